"""Command-line entry point: ``suspension-sim COMMAND ...``.

Each command lives in its own module under ``suspension_sim.commands`` with
``add_parser(subparsers)`` and ``run(args) -> int``. Errors meant for the user
(`SuspensionSimError`) are printed without a traceback and give a non-zero
exit code; so do Ctrl-C, a closed output pipe and any unexpected (internal)
error, whose traceback only ``--debug`` shows. Commands that draw nothing
never import pyvista.

The library names its API parameters in errors (``shocks``, ``camera``,
``channel_map``); here they become the options a user typed (``--shocks``,
``--camera``, ``--map``): the common ones in `PARAMETER_OPTIONS`, a command's
own in its module's ``PARAMETER_OPTIONS``.

``suspension-sim --version`` prints the package version and exits 0 before any
command module (or numpy, pandas) is imported; ``--help`` and a command import only
that command's module. A command that solves starts the background compile of the
fast kernels when they are not on disk yet (`suspension_sim.solve.warmup`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from suspension_sim.errors import (
    DEBUG_ENV,
    INTERRUPTED_EXIT,
    SuspensionSimError,
    debug_requested,
    report_internal_error,
    stdout_closed,
)
from suspension_sim.version import __version__

PROG = "suspension-sim"
VERSION_OPTIONS = ("--version", "-V")

COMMANDS: dict[str, str] = {
    "check": "read a workbook and print its bodies, joints, dampers, wheels and rack",
    "new": "write a four-corner car template workbook to start a car from",
    "solve": "solve one pose and write the point positions",
    "report": "print the design sheet: camber, toe, caster, KPI, scrub, trail, ... per wheel",
    "sweep": "run a standard motion (heave, roll, steer, bump:FL, ...) or a named sweep and "
    "write its metrics",
    "compare": "run the same sweep on two or more cars; overlaid charts and differences",
    "view": "show a pose in 3-D (window, image, or sweep animation)",
    "studio": "a live page in the browser: the car, sliders, design sheet and charts; "
    "follows the workbook",
    "validate": "compare the model with an OptimumK results export and write a report",
    "replay": "replay a data-logger export (damper pots, steering) into wheel attitude",
    "import-optimumk": "convert an OptimumK export (.xlsx) or project file (.O2Sus/.O2Set) "
    "into a car workbook",
    "loads": "forces in every link, damper and chassis pickup for load cases",
    "springs": "wheel rates (k MR^2 + F dMR/dz) at a pose and the static ride height",
    "optimumk-info": "list what each OptimumK project file is (type, name, version, dates, "
    "references)",
    "sensitivity": "derivatives of every metric with respect to every hardpoint coordinate "
    "(per mm)",
    "maps": "kinematic maps per corner (wheel travel x rack) for vehicle simulators, CSV/Parquet",
    "optimise": "move hardpoints toward kinematic targets (SLSQP, analytic gradients); writes a "
    "new workbook",
    "doe": "design of experiments: sample hardpoint ranges, run each design's motions, "
    "write one Parquet table",
    "warm-up": "compile the fast solver kernels now (once per install; for CI images and lab PCs)",
}
"""Every command and its one-line help (the same text as its module's parser: a test
checks). Only the command given is imported (`build_parser`), so ``--help`` and a
command's start never import the others (pandas, scipy)."""

NO_BACKGROUND_COMPILE = ("new", "warm-up", "import-optimumk", "optimumk-info")
"""Commands that solve nothing: they never start the background compile."""


PARAMETER_OPTIONS: dict[str, str] = {
    "shocks": "--shocks",
    "rack": "--rack",
    "chassis": "--chassis",
    "tolerance": "--tolerance",
}
"""API parameter -> CLI option, for every command that has the pose options."""

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""Thread counts of the BLAS libraries, set to 1 for a command (unless the user set them).
The matrices solved are small (a car's joints): threads cannot speed them up, and on
a busy machine OpenBLAS's threads spin for a core: measured on 2 cores with other work
running, `compare` took 19-43 s with them and 4.7-5.7 s without (scipy least-squares
SVDs of 73 ms instead of well under 1 ms)."""

DEBUG_HELP = f"show the full traceback of an internal error (or set {DEBUG_ENV}=1)"


PARAMETER_TEXT: dict[str, str] = {
    "force=True": "--force",
    'drive="dampers"': "--drive dampers",
    'drive="motion"': "--drive motion",
    "a channel map file": "a --map file",
    "with add_sheet": "with --into-workbook",
    "skip_anti_roll_bars=True": "--skip-anti-roll-bars",
    "corner_weights=": "--corner-weights",
}
"""Python spellings in library messages and hints -> what a command-line user types."""


def as_option_text(text: str | None) -> str | None:
    """A library message or hint with its Python spellings turned into options."""
    if not text:
        return text
    for python, option in PARAMETER_TEXT.items():
        text = text.replace(python, option)
    return text


def as_option(where: str | None, names: dict[str, str]) -> str | None:
    """`where` with a leading API parameter name replaced by its option.

    ``"shocks (FL_Damper)"`` -> ``"--shocks (FL_Damper)"``; anything else
    (a file, a cell, an option already) is returned unchanged.
    """
    if not where:
        return where
    for name, option in names.items():
        if where == name or where.startswith((f"{name} ", f"{name}[", f"{name}(")):
            return option + where[len(name) :]
    return where


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad options as our errors (exit 2, no traceback)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def version_text() -> str:
    """``suspension-sim 0.2.0``: what ``--version`` prints."""
    return f"{PROG} {__version__}"


def asks_version(argv: Sequence[str]) -> bool:
    """True when the options before any command ask for the version
    (``--version``, ``-V``, with or without ``--debug``)."""
    for arg in argv:
        if arg in VERSION_OPTIONS:
            return True
        if arg != "--debug":
            return False
    return False


def command_of(argv: Sequence[str]) -> str | None:
    """The command named in argv (the first word that is not an option), or None."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser: the full parser of the command named in argv (every command's when
    argv is None); the others only by name and help (their modules not imported)."""
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    parser.add_argument(
        *VERSION_OPTIONS, action="version", version=version_text(), help="print the version"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    chosen = command_of(argv) if argv is not None else None
    for name, summary in COMMANDS.items():
        if argv is None or name == chosen:
            module = importlib.import_module(f"suspension_sim.commands.{name.replace('-', '_')}")
            module.add_parser(sub)
        else:
            sub.add_parser(name, help=summary, add_help=False)
    for command in sub.choices.values():  # also accepted after the command
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
        )
    return parser


def single_threaded_blas() -> None:
    """One BLAS thread (`BLAS_THREADS`) unless the environment names a count; only
    before numpy is first imported (the libraries read it when they load)."""
    if "numpy" in sys.modules:
        return
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


def inputs_of(args: argparse.Namespace | None) -> list[str]:
    """The files a command was given (workbook, export, path), for error reports."""
    if args is None:
        return []
    names = ("workbook", "export", "path")
    return [str(getattr(args, n)) for n in names if isinstance(getattr(args, n, None), str)]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (README, "Exit codes"): 0 done,
    1 problems found, 2 bad input, 3 a pose did not close, 4 rendering
    unavailable or an internal error, 130 interrupted, 141 output pipe closed.
    No traceback is shown unless ``--debug`` (or SUSPENSION_SIM_DEBUG=1)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args: argparse.Namespace | None = None
    single_threaded_blas()
    if asks_version(argv):  # no command module imported: instant
        try:
            print(version_text())
            sys.stdout.flush()
        except BrokenPipeError:
            return stdout_closed()
        return 0
    try:
        args = build_parser(argv).parse_args(argv)
        if args.command not in NO_BACKGROUND_COMPILE:
            from suspension_sim.solve import warmup

            warmup.start_background()  # the first run after an install: compile meanwhile
        code = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except SuspensionSimError as exc:
        command = args.command if args is not None else ""
        module = sys.modules.get(f"suspension_sim.commands.{command}")
        names = {**PARAMETER_OPTIONS, **getattr(module, "PARAMETER_OPTIONS", {})}
        exc.where = as_option(exc.where, names)
        exc.message = as_option_text(exc.message) or exc.message
        exc.hint = as_option_text(exc.hint)
        print(f"error: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    except BrokenPipeError:
        return stdout_closed()
    except Exception as exc:
        debug = bool(getattr(args, "debug", False)) or "--debug" in argv or debug_requested()
        command = f"suspension-sim {args.command}" if args is not None else "suspension-sim"
        return report_internal_error(exc, command=command, inputs=inputs_of(args), debug=debug)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
