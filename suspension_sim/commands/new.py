"""``suspension-sim new PATH [--force]``: write a fresh template workbook.

Refuses to overwrite an existing file unless --force.
"""

from __future__ import annotations

import argparse

TEMPLATE_NOTES: tuple[str, ...] = (
    "suspension_sim car workbook. Every section and column: docs/workbook.md.",
    "The Section | Range table on the left says where each section is; only those ranges"
    " are read, so keep your own notes anywhere else.",
    "When you add rows (points, bodies, wheels) or point columns, extend the range here.",
    "Units and CAD frame: User Options (Length unit, Axis map). Converted once, on load.",
    "Components: one row per rigid body with all its points. A point named on two bodies"
    " is a joint between them. The chassis is the body named Chassis.",
    "Hard Points: every point's X, Y, Z at the design condition.",
    "Check the workbook with: suspension-sim check <this file>",
)
"""Instructions written beside the index table of a new workbook."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "new",
        help="write a fresh template workbook to start a car from",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("path", metavar="PATH", help="the .xlsx file to create")
    p.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim.workbook.writer import ensure_writable, write_car

    ensure_writable(args.path, force=args.force)  # fail before building anything
    from suspension_sim.workbook.examples import template_car

    path = write_car(template_car(), args.path, force=args.force, notes=TEMPLATE_NOTES)
    print(f"wrote {path}")
    return 0
