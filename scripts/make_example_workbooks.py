"""Regenerate the example workbooks (workbooks/*.xlsx) from their TOML sources.

Usage::

    python scripts/make_example_workbooks.py [--force] [--out DIR] [NAME ...]

Without NAME every example in `suspension_sim.workbook.examples.EXAMPLES` is handled.
A missing workbook is written. An existing one that already reads back equal
to its source, with the same notes, is left untouched (so regenerating causes
no spurious binary diffs: openpyxl stamps every save with the time). A stale
one is rewritten only with --force. Prints one line per workbook; the exit
code is 1 if a stale workbook was left or a write failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from suspension_sim.description import Car
from suspension_sim.errors import SuspensionSimError
from suspension_sim.workbook import examples


def notes_for(name: str) -> list[str]:
    """Notes written into an example workbook (the template gets instructions)."""
    if name == examples.TEMPLATE:
        return examples.template_notes()
    return examples.source_notes(name)


def notes_in(path: Path) -> list[str]:
    """The notes lines beside the index table of a workbook written by `write_car`."""
    import openpyxl

    from suspension_sim.workbook.writer import INDEX_SHEET, NOTES_COLUMN

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        ws = wb[INDEX_SHEET]
        lines = []
        for (value,) in ws.iter_rows(
            min_row=2, min_col=NOTES_COLUMN, max_col=NOTES_COLUMN, values_only=True
        ):
            if value is None:
                break
            lines.append(str(value))
        return lines
    finally:
        wb.close()


def options_in(path: Path) -> list[str]:
    """The option names of the User Options sheet of a workbook written by `write_car`."""
    import openpyxl

    from suspension_sim.workbook.schema import USER_OPTIONS

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        rows = wb[USER_OPTIONS].iter_rows(min_row=2, max_col=1, values_only=True)
        return [str(value) for (value,) in rows if value is not None]
    finally:
        wb.close()


def is_up_to_date(path: Path, car: Car, notes: Sequence[str]) -> bool:
    """True when `path` reads back equal to `car`, carries the same notes and lists
    every option of the schema (a new option rewrites the examples)."""
    from suspension_sim.workbook.reader import read_car
    from suspension_sim.workbook.schema import OPTION_NAMES

    try:
        return (
            read_car(path) == car
            and notes_in(path) == list(notes)
            and options_in(path) == list(OPTION_NAMES)
        )
    except (SuspensionSimError, KeyError, OSError):
        return False


def write_example(name: str, out_dir: Path, *, force: bool) -> Path:
    """Write one example workbook ``out_dir/<name>.xlsx`` and return its path."""
    from suspension_sim.workbook.writer import write_car

    car = examples.load_source(name)
    return write_car(car, out_dir / f"{name}.xlsx", force=force, notes=notes_for(name))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="examples to write (default: all)")
    parser.add_argument("--force", action="store_true", help="overwrite stale workbooks")
    parser.add_argument(
        "--out",
        type=Path,
        default=examples.workbooks_dir(),
        help="output folder (default: the repository's workbooks/)",
    )
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in examples.EXAMPLES]
    if unknown:
        parser.error(f"unknown example(s) {unknown}; known: {', '.join(examples.EXAMPLES)}")
    return args


def handle(name: str, out_dir: Path, *, force: bool) -> bool:
    """Write, keep or report one example; False when it is left stale or failed."""
    target = out_dir / f"{name}.xlsx"
    if target.exists():
        if is_up_to_date(target, examples.load_source(name), notes_for(name)):
            print(f"up to date  {target}")
            return True
        if not force:
            print(f"stale       {target} (use --force to overwrite)")
            return False
    try:
        path = write_example(name, out_dir, force=force)
    except SuspensionSimError as exc:
        print(f"failed      {target}: {exc.render()}", file=sys.stderr)
        return False
    print(f"wrote       {path}")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results = [handle(name, args.out, force=args.force) for name in args.names or examples.EXAMPLES]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
