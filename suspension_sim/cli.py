"""Command-line entry point: ``suspension-sim COMMAND ...``.

Each command lives in its own module under ``suspension_sim.commands`` with
``add_parser(subparsers)`` and ``run(args) -> int``. Errors meant for the user
(`SuspensionSimError`) are printed without a traceback and give a non-zero
exit code. Commands that draw nothing never import pyvista.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from suspension_sim.errors import SuspensionSimError

COMMANDS: tuple[str, ...] = ("check", "new", "solve", "sweep", "view", "validate")


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
        try:
            module = importlib.import_module(f"suspension_sim.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"suspension_sim.commands.{name}":
                continue  # command not part of this build
            raise
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except SuspensionSimError as exc:
        print(f"error: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
