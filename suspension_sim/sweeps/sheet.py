"""The Sweeps section of a car workbook: one sweep per row (docs/sweeps.md).

The section is read with the workbook reader's section reading
(`suspension_sim.workbook.cells.read_section`), so its index row, header and
cells follow the rules of every other section, and every error names the
cell (``car.xlsx: Sweeps!E4``). ``Fixed`` and ``Targets`` hold ``NAME=VALUE``
entries separated by ``;``; names may contain spaces (``FL Damper=3``).
Units: mm and degrees.

The section's cells are cached like the car (`suspension_sim.cache`, by the
workbook's content, its file name and the package's code): every ``sweep`` looks
for named sweeps in the workbook, and opening it with openpyxl costs ~0.3-0.5 s
that an unchanged workbook need not pay again.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

from suspension_sim.errors import InputError, WorkbookError
from suspension_sim.solve.targets import Target
from suspension_sim.sweeps.spec import (
    MOTION_HINT,
    MotionSpec,
    SweepSpec,
    check_input_name,
    check_value,
    held_limit,
    motion_limit,
    parse_motion_text,
    parse_target,
    sweep_values,
)
from suspension_sim.workbook.cells import Cell, number, read_section
from suspension_sim.workbook.schema import SWEEPS, Column

SHEET_COLUMNS: tuple[Column, ...] = (
    Column("Sweep", aliases=("Name",)),
    Column("Motion"),
    Column("Start"),
    Column("Stop"),
    Column("Steps"),
    Column("Grid motion", optional=True),
    Column("Grid start", optional=True),
    Column("Grid stop", optional=True),
    Column("Grid steps", optional=True),
    Column("Fixed", optional=True),
    Column("Targets", optional=True),
    Column("Description", optional=True),
)
"""The Sweeps section's columns (those after Steps are optional, in this order)."""
SHEET_HEADER: tuple[str, ...] = tuple(c.name for c in SHEET_COLUMNS)
"""The Sweeps section's header, as written in a workbook."""

Record = dict[str, Cell | None]


def load_sheet(path: Path) -> dict[str, SweepSpec]:
    """Sweep definitions by name from a workbook's Sweeps section ({} without one);
    WorkbookError at the cell."""
    records = _section(path)
    if records is None:
        return {}
    specs: dict[str, SweepSpec] = {}
    for rec in records:
        name_cell = rec["Sweep"]
        assert name_cell is not None
        name = name_cell.text or ""
        if name in specs:
            raise WorkbookError(
                f"sweep {name!r} is defined twice: {specs[name].where} and {name_cell.where}",
                where=name_cell.where,
                hint="give each sweep its own name",
            )
        main = _motion(rec, name, grid=False)
        assert main is not None
        fixed, targets = _held(rec)
        desc = rec["Description"]
        try:
            specs[name] = SweepSpec(
                name,
                main,
                _motion(rec, name, grid=True),
                fixed,
                targets,
                (desc.text or "") if desc is not None else "",
                name_cell.where,
            )
        except InputError as exc:  # the total step count of a grid
            raise WorkbookError(exc.message, where=exc.where, hint=exc.hint) from None
    return specs


CACHE_KIND = "sweeps_section"
"""The cache entries of Sweeps sections (`suspension_sim.cache`)."""


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:  # unreadable: the reader reports it
        return None


def _section(path: Path) -> list[Record] | None:
    """`read_section` of the Sweeps section, from the cache when the workbook (its bytes
    and name) and the package are unchanged; cells of other types than text, numbers
    and booleans are not cached (read each time)."""
    from suspension_sim import cache

    before = _digest(path)
    key = f"{before}|{path.name}|{cache.package_fingerprint()}" if before else None
    if key is not None and (payload := cache.read_entry(CACHE_KIND, key)) is not None:
        try:
            return _records_from_json(payload)
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            cache.reject_entry(CACHE_KIND, key, f"is not a Sweeps section ({exc})")
    records = read_section(path, SWEEPS, SHEET_COLUMNS)
    text = _records_to_json(records)
    if key is not None and text is not None and _digest(path) == before:
        cache.write_entry(CACHE_KIND, key, text)
    return records


def _records_to_json(records: list[Record] | None) -> bytes | None:
    """The records as JSON (a cell as [file, sheet, row, col, value]); None when a
    value is not plain text, a number or a boolean."""
    rows: list[dict[str, list[Any] | None]] | None = None
    if records is not None:
        rows = []
        for rec in records:
            row: dict[str, list[Any] | None] = {}
            for name, c in rec.items():
                if c is not None and not isinstance(c.value, str | int | float | bool | None):
                    return None
                row[name] = None if c is None else [c.file, c.sheet, c.row, c.col, c.value]
            rows.append(row)
    return json.dumps({"records": rows}).encode()


def _records_from_json(payload: bytes) -> list[Record] | None:
    rows = json.loads(payload)["records"]
    if rows is None:
        return None
    return [
        {
            name: None if c is None else Cell(c[0], c[1], int(c[2]), int(c[3]), c[4])
            for name, c in row.items()
        }
        for row in rows
    ]


def _motion(rec: Record, name: str, *, grid: bool) -> MotionSpec | None:
    """The row's motion, or its grid motion (None when the grid cells are blank)."""
    mcell = rec["Grid motion" if grid else "Motion"]
    start, stop, steps = (
        rec[c] for c in (("Grid start", "Grid stop", "Grid steps") if grid else SHEET_HEADER[2:5])
    )
    if mcell is None or mcell.blank:
        if grid:
            for c in (start, stop, steps):
                if c is not None and not c.blank:
                    raise WorkbookError(
                        f"sweep {name!r}: a grid value without a grid motion",
                        where=c.where,
                        hint="fill in 'Grid motion' or clear the grid cells",
                    )
            return None
        where = mcell.where if mcell is not None else rec["Sweep"].where  # type: ignore[union-attr]
        raise WorkbookError(f"sweep {name!r}: the motion is blank", where=where, hint=MOTION_HINT)
    try:
        kind, of, unit = parse_motion_text(mcell.text or "", mcell.where)
        values = sweep_values(
            # unbounded here: sweep_values checks them against the sweep limits
            number(start, "start", math.inf),
            number(stop, "stop", math.inf),
            number(steps, "steps", math.inf),
            None,
            (start or mcell).where,
            steps.where if steps is not None else None,
            motion_limit(kind, of, unit),
            {k: c.where for k, c in (("start", start), ("stop", stop)) if c is not None},
        )
        return MotionSpec(kind, values, of, unit, mcell.where, (steps or start or mcell).where)
    except InputError as exc:
        raise WorkbookError(exc.message, where=exc.where, hint=exc.hint) from None


def _held(rec: Record) -> tuple[dict[str, float], dict[str, Target]]:
    """The Fixed ('rack=5; roll=1') and Targets ('FL_Damper=wheel_travel(FL, 10)') cells."""
    fixed: dict[str, float] = {}
    targets: dict[str, Target] = {}
    for column, out in (("Fixed", fixed), ("Targets", targets)):
        cell = rec[column]
        if cell is None or cell.blank:
            continue
        parts = [p for p in re.split(r";|\n", cell.text or "") if p.strip()]
        if column == "Fixed" and len(parts) == 1 and "(" not in parts[0]:
            parts = [p for p in parts[0].split(",") if p.strip()]
        for part in parts:
            if "=" not in part:
                raise WorkbookError(
                    f"{column}: cannot read {part.strip()!r}",
                    where=cell.where,
                    hint="write NAME=VALUE entries separated by ';', e.g. 'rack=5; roll=1'"
                    if column == "Fixed"
                    else "write INPUT=TARGET entries separated by ';', e.g. "
                    "'FL_Damper=wheel_travel(FL, 10)'",
                )
            key, text = (s.strip() for s in part.split("=", 1))
            try:
                key = check_input_name(key, cell.where)
                if column == "Fixed":
                    try:
                        value = float(text)
                    except ValueError:
                        raise InputError(
                            f"Fixed: {text!r} is not a number (for {key})", where=cell.where
                        ) from None
                    what = f"Fixed: {key}"
                    value = check_value(value, what, held_limit(key), cell.where)
                    out[key] = value  # type: ignore[assignment]
                else:
                    out[key] = parse_target(text, cell.where)  # type: ignore[assignment]
            except InputError as exc:
                raise WorkbookError(exc.message, where=exc.where, hint=exc.hint) from None
    return fixed, targets
