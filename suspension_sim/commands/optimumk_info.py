"""``suspension-sim optimumk-info PATH``: what each OptimumK project file is.

For a file or a project folder (and its subfolders): each definition file's type, name,
version, dates and users, GUID, and what it refers to (a setup's suspensions, a
simulation's setup and motion, resolved to names within the project folder), a motion's
steps and ranges, a force case's steps and application point (docs/optimumk_files.md).
A file that cannot be read is listed with its error; the exit code is then 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

PARAMETER_OPTIONS: dict[str, str] = {}

HELP = "list what each OptimumK project file is (type, name, version, dates, references)"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("optimumk-info", help=HELP, description=__doc__.splitlines()[0])
    p.add_argument(
        "path",
        metavar="PATH",
        help="an OptimumK file (.O2Sus, .O2Set, .O2Mot, .O2For, .O2Sim, .O2Res) or a project"
        " folder",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0 when every file was read; 2 when one could not be (it is listed with its error)."""
    from suspension_sim.errors import InputError
    from suspension_sim.workbook.optimumk_files.project import describe, render

    path = Path(args.path)
    if not path.exists():
        raise InputError(
            f"not found: {path}", where="PATH", hint="give an OptimumK file or project folder"
        )
    infos = describe(path)
    root = path if path.is_dir() else path.parent
    if not infos:
        print(f"{path}: no OptimumK files (.O2Sus, .O2Set, .O2Mot, .O2For, .O2Sim, .O2Res)")
        return 0
    print(render(infos, root), end="")
    bad = [i for i in infos if i.error is not None]
    print(f"{len(infos)} file{'' if len(infos) == 1 else 's'}, {len(bad)} not read")
    return 2 if bad else 0
