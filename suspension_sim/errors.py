"""Errors a user can act on.

Every error that comes from bad input carries *where* the problem is (a
workbook cell, a file and line, or a CLI option) and *what* to do about it.
The CLI prints these without a traceback and exits non-zero.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


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


def run_reporting_errors(main: Callable[[], int | None]) -> int:
    """Run a script's ``main()``: a user error prints its message (no traceback)
    and becomes the exit code, as in the CLI; Ctrl-C exits 130."""
    try:
        return int(main() or 0)
    except SuspensionSimError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
