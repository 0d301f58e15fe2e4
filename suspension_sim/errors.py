"""Errors a user can act on.

Every error that comes from bad input carries *where* the problem is (a
workbook cell, a file and line, or a CLI option) and *what* to do about it.
The CLI prints these without a traceback and exits non-zero; anything else
that escapes a command is a bug, reported in one line (`report_internal_error`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path


class SuspensionSimError(Exception):
    """Base class for every error meant for the user (no traceback shown).

    `where` names the place (``"car.xlsx: Hard Points!C12"``, ``"--shocks"``),
    `hint` says how to fix it.
    """

    exit_code = 2

    def __init__(self, message: str, *, where: str | None = None, hint: str | None = None):
        self.message = message
        self.where = where
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text += f"\n  fix: {self.hint}"
        return text


class WorkbookError(SuspensionSimError):
    """The workbook is malformed; `where` is ``file: Sheet!Cell``."""


class InputError(SuspensionSimError):
    """A solve input (stroke, rack, chassis state, option) is invalid."""


class ModelError(SuspensionSimError):
    """The described mechanism cannot be modelled (under/over-constrained, degenerate)."""


class SolveError(SuspensionSimError):
    """The solver could not close the constraints for the given inputs."""

    exit_code = 3


class RenderingUnavailableError(SuspensionSimError):
    """Off-screen rendering is not possible on this machine (missing GL libraries)."""

    exit_code = 4


EXIT_CODES: dict[int, str] = {
    0: "done (check and validate found nothing wrong)",
    1: "validate found a channel out of tolerance",
    2: "bad input: the message names the cell, file or option",
    3: "a pose did not close (SolveError)",
    4: "could not run here: rendering libraries missing, or an internal error (a bug)",
    130: "interrupted (Ctrl-C); no output is left half-written",
    141: "the output pipe was closed early (as `| head`); the rest is dropped",
}
"""Exit codes of the command line and the scripts (README, "Exit codes")."""

INTERNAL_ERROR_EXIT = 4
INTERRUPTED_EXIT = 130
BROKEN_PIPE_EXIT = 141
DEBUG_ENV = "SUSPENSION_SIM_DEBUG"
"""Environment variable that, set to anything but empty or 0, shows tracebacks (= --debug)."""


def debug_requested() -> bool:
    """True when `DEBUG_ENV` asks for tracebacks of internal errors."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def report_internal_error(
    exc: BaseException, *, command: str, inputs: Sequence[str] = (), debug: bool = False
) -> int:
    """Print one line for an unexpected error (a bug, not the user's input) and
    return `INTERNAL_ERROR_EXIT`; the traceback too when `debug`."""
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
    detail = " ".join(f"{type(exc).__name__}: {exc}".split())
    on = f" on {', '.join(inputs)}" if inputs else ""
    more = "" if debug else " (add --debug for the traceback)"
    print(
        f"error: internal error in '{command}'{on}: {detail}. This is a bug in suspension_sim: "
        f"please report this with the workbook and this message on the project's issue "
        f"tracker{more}.",
        file=sys.stderr,
    )
    return INTERNAL_ERROR_EXIT


def stdout_closed() -> int:
    """After a BrokenPipeError (the reader of our output has gone, as ``| head -1``):
    send further output to the null device, so nothing is printed at exit, and
    return `BROKEN_PIPE_EXIT` (128 + SIGPIPE, what the shell reports for other tools)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return BROKEN_PIPE_EXIT


def run_reporting_errors(main: Callable[[], int | None]) -> int:
    """Run a script's ``main()`` as the CLI runs a command: a user error prints
    its message (no traceback) and becomes the exit code; Ctrl-C exits 130; a
    closed output pipe 141; an unexpected error prints one line and exits 4
    (the traceback too with SUSPENSION_SIM_DEBUG=1)."""
    script = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "script"
    try:
        code = int(main() or 0)
        sys.stdout.flush()
        return code
    except SuspensionSimError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    except BrokenPipeError:
        return stdout_closed()
    except Exception as exc:
        return report_internal_error(
            exc, command=" ".join([script, *sys.argv[1:]]), debug=debug_requested()
        )
