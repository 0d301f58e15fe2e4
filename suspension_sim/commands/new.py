"""``suspension-sim new PATH [--force]``: write a four-corner car template workbook.

The template is a complete Formula SAE car (front pushrod double wishbone with
a rack, rear pullrod double wishbone with toe links) with instructions beside
the index table; its source is ``suspension_sim/data/examples/template.toml``.
Refuses to overwrite an existing file unless --force.
"""

from __future__ import annotations

import argparse


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "new",
        help="write a four-corner car template workbook to start a car from",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("path", metavar="PATH", help="the .xlsx file to create")
    p.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim.workbook.writer import ensure_writable, write_car

    ensure_writable(args.path, force=args.force)  # fail before building anything
    from suspension_sim.workbook.examples import template_car, template_notes

    path = write_car(template_car(), args.path, force=args.force, notes=template_notes())
    print(f"wrote {path}")
    return 0
