"""Command-line entry point: ``suspension-sim COMMAND ...``.

Each command lives in its own module under ``suspension_sim.commands`` with
``add_parser(subparsers)`` and ``run(args) -> int``. Errors meant for the user
(`SuspensionSimError`) are printed without a traceback and give a non-zero
exit code. Commands that draw nothing never import pyvista.

The library names its API parameters in errors (``shocks``, ``camera``,
``channel_map``); here they become the options a user typed (``--shocks``,
``--camera``, ``--map``): the common ones in `PARAMETER_OPTIONS`, a command's
own in its module's ``PARAMETER_OPTIONS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from suspension_sim.errors import SuspensionSimError

COMMANDS: tuple[str, ...] = ("check", "new", "solve", "sweep", "view", "validate")


PARAMETER_OPTIONS: dict[str, str] = {
    "shocks": "--shocks",
    "rack": "--rack",
    "chassis": "--chassis",
    "tolerance": "--tolerance",
}
"""API parameter -> CLI option, for every command that has the pose options."""


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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="suspension-sim", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"suspension_sim.commands.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except SuspensionSimError as exc:
        module = sys.modules.get(f"suspension_sim.commands.{args.command}")
        names = {**PARAMETER_OPTIONS, **getattr(module, "PARAMETER_OPTIONS", {})}
        exc.where = as_option(exc.where, names)
        print(f"error: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
