"""Writing result tables: csv, xlsx or parquet, chosen by the file ending.

Files are written atomically through `suspension_sim.files.atomic_path`
(temp file in the same folder, then rename; a symbolic link is written
through to its target), a result is never written over the workbook it came
from, an existing file of any type is only replaced with ``force=True``
(`suspension_sim.files.refuse_existing`: one rule for every output), and a
read-only file or folder is never written. The folder must exist already
(`suspension_sim.files.check_output`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import (
    NotWritableError,
    atomic_path,
    check_output,
    refuse_existing,
    same_file,
)

FORMATS = (".csv", ".xlsx", ".parquet")


def write_table(
    table: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    option: str = "path",
    protect: str | os.PathLike[str] | None = None,
    force: bool = False,
    sheet_name: str = "Results",
) -> Path:
    """Write `table` to csv/xlsx/parquet by extension; returns the path written.

    `protect` is a file that must never be written (the source workbook);
    `option` names the CLI option in error messages.
    """
    out = check_table_path(path, option=option, protect=protect, force=force)
    suffix = out.suffix.lower()
    started = False
    try:
        with atomic_path(out, suffix=suffix) as tmp:
            started = True
            _write(table, tmp, suffix, sheet_name, option)
    except NotWritableError as exc:
        raise InputError(f"{out} {exc.strerror}", where=option) from None
    except OSError as exc:
        if not started:  # the temporary file could not be made
            raise InputError(
                f"cannot write in folder {out.parent}: {exc.strerror}", where=option
            ) from None
        raise InputError(f"cannot write {out}: {exc.strerror}", where=option) from None
    return out


def _write(table: pd.DataFrame, tmp: Path, suffix: str, sheet_name: str, option: str) -> None:
    """Fill `tmp` with the table in the format of `suffix`."""
    if suffix == ".csv":
        table.to_csv(tmp)
    elif suffix == ".xlsx":
        table.to_excel(tmp, sheet_name=sheet_name, engine="openpyxl")
    else:
        try:
            table.to_parquet(tmp)
        except ImportError:
            raise InputError(
                "writing parquet needs the pyarrow package",
                where=option,
                hint="pip install pyarrow, or write .csv/.xlsx",
            ) from None


def check_table_path(
    path: str | os.PathLike[str],
    *,
    option: str = "path",
    protect: str | os.PathLike[str] | None = None,
    force: bool = False,
    suggest_add_sheet: bool = True,
) -> Path:
    """Refuse a results path before any work is done (see `write_table`): a
    folder, an unknown file type, the source workbook, an existing file of any
    type without `force` (`suspension_sim.files.refuse_existing`, the one rule), a
    missing folder, a read-only file or folder. `suggest_add_sheet`: the refusal
    of the source workbook suggests `add_sheet` (off for commands that have no
    way to add a sheet)."""
    out = Path(path)
    if out.is_dir():
        raise InputError(
            f"{out} is a folder", where=option, hint="give a file name such as results.csv"
        )
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(
            f"cannot write {out.name!r}: unknown file type {suffix or '(none)'}",
            where=option,
            hint="end the file name with .csv, .xlsx or .parquet",
        )
    if protect is not None and same_file(out, Path(protect)):
        raise InputError(
            f"{out} is the source workbook; results never overwrite it",
            where=option,
            hint="choose another file name"
            + (
                ", or add the table to the workbook as a new sheet with add_sheet"
                if suggest_add_sheet
                else ""
            ),
        )
    checked = check_output(out, where=option)  # a read-only file: said first (--force won't do)
    refuse_existing(out, force=force, where=option, what="a results table")
    return checked
