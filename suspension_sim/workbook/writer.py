"""Write a `Car` as a workbook that `read_car` reads back to an equal car.

Layout: the first sheet ``Index`` holds the ``Section | Range`` table at A1
and the notes in column D; each section has its own sheet, named like the
section, with its header in row 1 (bold, frozen) and one row per item. Values
are written in the car's own units and CAD frame (`Options`), numbers with
full float precision, so a mm/identity car round-trips exactly and any other
unit to within about one ulp.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.cell.cell import Cell
from openpyxl.styles import Font
from openpyxl.utils.cell import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from suspension_sim import units
from suspension_sim.description import Car
from suspension_sim.errors import WorkbookError
from suspension_sim.files import why_not_writable, write_atomically
from suspension_sim.workbook.schema import (
    ANTI_ROLL_BARS,
    COMPONENTS,
    COMPONENTS_COLUMNS,
    DAMPING,
    DAMPING_TYPES,
    HARD_POINTS,
    INDEX_HEADER,
    OPTIONS,
    SECTION_COLUMNS,
    SECTION_NAMES,
    STEERING,
    USER_OPTIONS,
    WHEELS,
    OptionSpec,
)

INDEX_SHEET = "Index"
NOTES_COLUMN = 4  # D: one blank column right of the index table
MIN_WIDTH, MAX_WIDTH = 8, 60

Row = list[Any]


# -- public API -------------------------------------------------------------------
def write_car(
    car: Car,
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    notes: Sequence[str] = (),
) -> Path:
    """Write `car` to `path` (.xlsx) atomically; refuse to overwrite unless `force`.

    `notes` are lines written right of the index table (instructions, origin).
    Returns the path written.
    """
    target = ensure_writable(path, force=force)
    wb = build_workbook(car, notes)
    _save_atomically(wb, target)
    return target


def build_workbook(car: Car, notes: Sequence[str] = ()) -> openpyxl.Workbook:
    """The workbook for `car` (not saved)."""
    wb = openpyxl.Workbook()
    index = wb.active
    assert index is not None
    index.title = INDEX_SHEET
    sections = section_rows(car)
    ranges: list[tuple[str, str]] = []
    for name in SECTION_NAMES:
        if name not in sections:
            continue
        ws = wb.create_sheet(name)
        rows = sections[name]
        _write_rows(ws, rows, bold_first=True)
        if name == USER_OPTIONS:
            _write_option_help(ws)
        ws.freeze_panes = "A2"
        width = max(len(r) for r in rows)
        ranges.append((name, f"{sheet_ref(name)}!A1:{get_column_letter(width)}{len(rows)}"))
    _write_rows(index, [list(INDEX_HEADER), *map(list, ranges)], bold_first=True)
    if notes:
        _write_notes(index, notes)
    for ws in wb.worksheets:
        _fit_columns(ws)
    return wb


def section_rows(car: Car) -> dict[str, list[Row]]:
    """Each section's rows (header first) in the car's units and CAD frame; Anti-roll
    Bars only when the car has a bar."""
    rows = {
        USER_OPTIONS: [_header(USER_OPTIONS), *option_rows(car)],
        COMPONENTS: _component_rows(car),
        HARD_POINTS: [_header(HARD_POINTS), *_point_rows(car)],
        WHEELS: _wheels_section(car),
        STEERING: [_header(STEERING), *_rack_rows(car)],
        DAMPING: _damping_rows(car),
    }
    if car.anti_roll_bars:
        rows[ANTI_ROLL_BARS] = [_header(ANTI_ROLL_BARS), *_bar_rows(car)]
    return rows


def sheet_ref(name: str) -> str:
    """A sheet name as written in a range: quoted ('Hard Points') only when needed."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and not re.fullmatch(
        r"[A-Za-z]{1,3}\d+", name
    ):
        return name
    return "'" + name.replace("'", "''") + "'"


# -- sections -----------------------------------------------------------------------
def _header(section: str) -> Row:
    return [c.name for c in SECTION_COLUMNS[section]]


def _length(car: Car, mm: float | None) -> float | None:
    """mm -> the car's length unit (None stays None)."""
    if mm is None:
        return None
    return units.from_internal(mm, units.length_factor(car.options.length_unit))


def option_rows(car: Car) -> list[Row]:
    """`User Options` rows: every option, explicitly, in the car's units."""
    return [[spec.name, option_value(car, spec)] for spec in OPTIONS]


def option_value(car: Car, spec: OptionSpec) -> Any:
    """An option's value as written: lengths in the car's unit, a choice as its first word."""
    if spec.field is None:
        return car.name if spec.kind == "text" else next(iter(spec.choices))  # Symmetry: none
    value = getattr(car.options, spec.field)
    if spec.kind == "axis map":
        return units.format_axis_map(value)
    if spec.kind == "length":
        return _length(car, value)
    if spec.kind == "choice":
        return next((word for word, v in spec.choices.items() if v == value), value)
    return value


OPTION_HELP: dict[str, str] = {spec.name: spec.help for spec in OPTIONS}
"""Help written right of the User Options range (column D, not read)."""


def _component_rows(car: Car) -> list[Row]:
    width = max((len(b.points) for b in car.bodies), default=2)
    header: Row = [*(c.name for c in COMPONENTS_COLUMNS), *([None] * (width - 1))]
    return [header, *([b.name, *b.points] for b in car.bodies)]


def _point_rows(car: Car) -> list[Row]:
    o = car.options
    return [
        [p.name, *units.model_to_workbook(p.xyz, o.length_unit, o.axis_map)] for p in car.points
    ]


def _wheels_section(car: Car) -> list[Row]:
    """Wheels header and rows; the Rim diameter column only when a wheel has one."""
    width = len(SECTION_COLUMNS[WHEELS])
    if all(w.rim_diameter is None for w in car.wheels):
        width -= 1
    return [_header(WHEELS)[:width], *(row[:width] for row in _wheel_rows(car))]


def _wheel_rows(car: Car) -> list[Row]:
    return [
        [
            w.name,
            w.body,
            w.centre,
            w.axis_point,
            _length(car, w.tyre_radius),
            _length(car, w.tyre_width),
            w.kingpin_lower,
            w.kingpin_upper,
            _length(car, w.rim_diameter),
        ]
        for w in car.wheels
    ]


def _rack_rows(car: Car) -> list[Row]:
    rack = car.rack
    if rack is None:
        return []
    ratio = None
    if rack.ratio_mm_per_deg is not None:
        per_unit = units.angle_factor(car.options.angle_unit) / units.angle_factor("deg")
        ratio = _length(car, rack.ratio_mm_per_deg * per_unit)
    travel = [_length(car, rack.min_travel), _length(car, rack.max_travel)]
    return [[rack.body, *rack.end_points, ratio, *travel]]


def _damping_rows(car: Car) -> list[Row]:
    """Damping header and rows: dampers, then third springs. The spring columns only when
    some row has a spring, the Type column only when there is a third spring."""
    springs = any(d.spring_rate is not None for d in car.dampers) or bool(car.third_springs)
    width = len(SECTION_COLUMNS[DAMPING]) - 1 if springs else 5
    if car.third_springs:
        width += 1
    rows = [*_damper_rows(car), *_third_spring_rows(car)]
    return [_header(DAMPING)[:width], *(row[:width] for row in rows)]


def _spring_cells(
    car: Car, rate: float | None, preload: float | None, free: float | None
) -> list[Any]:
    """Spring rate, preload and free length in the car's force and length units."""
    to_unit = units.force_factor(car.options.force_unit)
    length = units.length_factor(car.options.length_unit)
    return [
        None if rate is None else units.from_internal(rate * length, to_unit),
        None if preload is None else units.from_internal(preload, to_unit),
        _length(car, free),
    ]


def _damper_rows(car: Car) -> list[Row]:
    return [
        [
            d.body,
            d.chassis_point,
            d.moving_point,
            _length(car, d.min_length),
            _length(car, d.max_length),
            *_spring_cells(car, d.spring_rate, d.spring_preload, d.spring_free_length),
            None,
        ]
        for d in car.dampers
    ]


def _third_spring_rows(car: Car) -> list[Row]:
    return [
        [
            t.name,
            *t.end_points,
            _length(car, t.min_length),
            _length(car, t.max_length),
            *_spring_cells(car, t.spring_rate, t.spring_preload, t.spring_free_length),
            DAMPING_TYPES[1],
        ]
        for t in car.third_springs
    ]


def _bar_rows(car: Car) -> list[Row]:
    """Anti-roll Bars rows, the torsional rate in (force unit)(length unit)/(angle unit)."""
    o = car.options
    per_rad = units.force_factor(o.force_unit) * units.length_factor(o.length_unit)
    angle = units.angle_factor(o.angle_unit)
    rows: list[Row] = []
    for bar in car.anti_roll_bars:
        arms = [*bar.arms, None][:2]
        # the reader computes value * per_rad / angle: write the float it reads back exactly
        rate = _preimage(bar.rate, bar.rate * angle / per_rad, lambda v: v * per_rad / angle)
        rows.append([bar.name, bar.kind, *arms, *bar.axis_points, bar.shaft_point, rate])
    return rows


def _preimage(target: float, guess: float, forward: Callable[[float], float]) -> float:
    """A float within a few ulps of `guess` that `forward` maps exactly to `target`
    (`guess` itself when none does): unit conversions that round-trip bit for bit.
    The shortest decimal that does is preferred (20000, not 20000.000000000004)."""
    for digits in range(1, 17):
        short = float(f"{guess:.{digits}g}")
        if forward(short) == target:
            return short
    below = above = guess
    for _ in range(8):
        for v in (below, above):
            if forward(v) == target:
                return v
        below, above = math.nextafter(below, -math.inf), math.nextafter(above, math.inf)
    return guess


# -- cells and sheets -----------------------------------------------------------------
def _set(cell: Cell, value: Any) -> None:
    """Write a value; text as text, floats with all 17 significant digits when needed.

    openpyxl writes numbers with 16 significant digits, which loses the last
    bit of some floats; those few are handed to it as their exact repr.
    """
    cell.value = value
    if isinstance(value, str) and value.startswith("="):
        cell.data_type = "s"  # a name, not a formula
    elif isinstance(value, float) and math.isfinite(value) and float(f"{value:.16g}") != value:
        cell._value = repr(value)  # written verbatim as the number's text


def _write_rows(ws: Worksheet, rows: Sequence[Row], *, bold_first: bool, col: int = 1) -> None:
    bold = Font(bold=True)
    for r, row in enumerate(rows, start=1):
        for c, value in enumerate(row, start=col):
            if value is None:
                continue
            cell = ws.cell(row=r, column=c)
            _set(cell, value)
            if bold_first and r == 1:
                cell.font = bold


def _write_option_help(ws: Worksheet) -> None:
    """Allowed values of each option in column D (outside the section's range)."""
    ws.cell(row=1, column=NOTES_COLUMN, value="Allowed values (not read)").font = Font(italic=True)
    for r in range(2, ws.max_row + 1):
        name = ws.cell(row=r, column=1).value
        if name in OPTION_HELP:
            ws.cell(row=r, column=NOTES_COLUMN, value=OPTION_HELP[name])


def _write_notes(ws: Worksheet, notes: Sequence[str]) -> None:
    """Notes right of the index table: a bold 'Notes' title and one line per row."""
    ws.cell(row=1, column=NOTES_COLUMN, value="Notes").font = Font(bold=True)
    for r, line in enumerate(notes, start=2):
        _set(ws.cell(row=r, column=NOTES_COLUMN), str(line))


def _fit_columns(ws: Worksheet) -> None:
    """Column widths from the longest text in each column (clamped)."""
    widths: dict[int, int] = {}
    for row in ws.iter_rows():
        for cell in row:
            if cell.value is not None:
                text = cell.value if isinstance(cell.value, str) else f"{cell.value:.6g}"
                widths[cell.column] = max(widths.get(cell.column, 0), len(text))
    for col, width in widths.items():
        limit = 100 if ws.title == INDEX_SHEET and col == NOTES_COLUMN else MAX_WIDTH
        ws.column_dimensions[get_column_letter(col)].width = min(max(width + 2, MIN_WIDTH), limit)


# -- files ------------------------------------------------------------------------------
def ensure_writable(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Check a workbook may be written at `path` (.xlsx, new unless `force`, in an
    existing folder, never over a read-only file or into a read-only folder)."""
    target = Path(path)
    where = str(target)
    if target.suffix.lower() != ".xlsx":
        raise WorkbookError(
            f"cannot write {target.name!r}: the workbook must have the .xlsx extension",
            where=where,
            hint="name the file like car.xlsx",
        )
    if target.is_dir():
        raise WorkbookError(f"{target} is a directory", where=where, hint="give a file name")
    if target.exists() and not force:
        raise WorkbookError(
            f"{target} already exists; not overwriting it",
            where=where,
            hint="pass force=True to replace it, or choose another name",
        )
    if not target.parent.is_dir():
        raise WorkbookError(
            f"directory {target.parent} does not exist",
            where=where,
            hint="create the directory first or choose another path",
        )
    reason = why_not_writable(target)
    if reason is not None:
        raise WorkbookError(
            f"the file {reason}",
            where=where,
            hint="make it writable first (for example chmod u+w) or choose another path",
        )
    return target


def _save_atomically(wb: openpyxl.Workbook, target: Path) -> None:
    """Save through a temporary file next to `target`, renamed over it when complete."""
    try:
        write_atomically(target, wb.save)
    except OSError as exc:
        raise WorkbookError(
            f"cannot write {target}: {exc.strerror or exc}",
            where=str(target),
            hint="check the directory is writable and the file is not open in Excel",
        ) from exc
