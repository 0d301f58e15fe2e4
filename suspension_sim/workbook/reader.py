"""Read a car workbook (.xlsx) into a validated `Car`.

Layout (docs/workbook.md has the full reference): the first sheet holds an
index table with the header ``Section | Range`` anywhere on it; each row maps
a section name to a cell range (``Geometry!A1:D90``, ``'Hard Points'!B2:E40``
or ``A1:D9`` on the index's own sheet). Only those ranges are read, the first
row of each being its header. Values are converted once, on load, to mm / rad
/ N in the model frame (see `suspension_sim.units`).

Every problem is a `WorkbookError` whose `where` is ``"car.xlsx: Sheet!C12"``.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import openpyxl
from openpyxl.utils.cell import get_column_letter, range_boundaries
from openpyxl.worksheet.worksheet import Worksheet

from suspension_sim import units
from suspension_sim.description import (
    CHASSIS,
    Body,
    Car,
    Damper,
    Options,
    Point,
    Rack,
    Source,
    Wheel,
)
from suspension_sim.errors import WorkbookError

# -- the format -----------------------------------------------------------------
USER_OPTIONS = "User Options"
COMPONENTS = "Components"
HARD_POINTS = "Hard Points"
WHEELS = "Wheels"
STEERING = "Steering"
DAMPING = "Damping"
SECTION_NAMES: tuple[str, ...] = (USER_OPTIONS, COMPONENTS, HARD_POINTS, WHEELS, STEERING, DAMPING)
SWEEPS = "Sweeps"
EXTRA_SECTIONS: tuple[str, ...] = (SWEEPS,)
"""Optional sections that the car reader accepts in the index but leaves to other modules
(Sweeps: `suspension_sim.sweeps`, docs/sweeps.md); read them with `read_section`."""
REQUIRED_SECTIONS: tuple[str, ...] = (COMPONENTS, HARD_POINTS)
TYRE_RADIUS_MM = (100.0, 700.0)
"""Outside this a tyre radius is probably in the wrong unit (a warning, not an error)."""
MAX_COORDINATE_MM = 1e7
"""No point of a car is 10 km from its origin: larger values are typing errors (1e300)."""

INDEX_HEADER: tuple[str, str] = ("Section", "Range")

MAX_ROW = 1_048_576
MAX_COL = 16_384


@dataclass(frozen=True)
class Column:
    """A column of a section: header text (plus accepted aliases)."""

    name: str
    optional: bool = False
    aliases: tuple[str, ...] = ()


SECTION_COLUMNS: dict[str, tuple[Column, ...]] = {
    USER_OPTIONS: (Column("Option"), Column("Value")),
    HARD_POINTS: (
        Column("Point", aliases=("Point name", "Name")),
        Column("X"),
        Column("Y"),
        Column("Z"),
    ),
    WHEELS: (
        Column("Wheel"),
        Column("Body"),
        Column("Centre point", aliases=("Center point",)),
        Column("Axis point"),
        Column("Tyre radius", aliases=("Tire radius",)),
        Column("Tyre width", aliases=("Tire width",)),
        Column("Kingpin lower", optional=True),
        Column("Kingpin upper", optional=True),
    ),
    STEERING: (
        Column("Rack body"),
        Column("End point 1", optional=True),
        Column("End point 2", optional=True),
        Column("Steering ratio", optional=True),
    ),
    DAMPING: (
        Column("Damper body"),
        Column("Chassis point"),
        Column("Moving point"),
        Column("Min length", optional=True),
        Column("Max length", optional=True),
    ),
}
"""Header of each fixed-column section, in order (Components is free-width)."""

COMPONENTS_COLUMNS: tuple[Column, Column] = (
    Column("Body", aliases=("Element", "Component")),
    Column("Points", aliases=("Point",)),
)
"""Components: ``Body | Points`` then as many point cells as needed."""

OPTION_NAMES: tuple[str, ...] = (
    "Car name",
    "Length unit",
    "Angle unit",
    "Force unit",
    "Axis map",
    "Solver tolerance",
    "Constraint display tolerance",
    "Chassis reference point",
    "CG height",
    "Wheelbase",
    "Front brake share",
    "Front brakes",
    "Rear brakes",
    "Rear drive share",
    "Drive",
    "Sign convention",
)
"""Valid names in the `User Options` section (matched case-insensitively)."""

SIGN_CONVENTIONS: tuple[str, ...] = ("iso", "optimumk")
BRAKE_MOUNTS: dict[str, bool] = {"outboard": False, "inboard": True}
DRIVE_MOUNTS: dict[str, bool] = {"inboard": True, "chassis": True, "outboard": False, "hub": False}


# -- public API -------------------------------------------------------------------
def read_car(path: str | os.PathLike[str]) -> Car:
    """Read and validate a workbook; lengths in mm, model frame (ISO 8855)."""
    book = _Book(Path(path))
    tables = _read_index(book)
    reader = _CarReader(book, tables)
    return reader.read()


def read_section(
    path: str | os.PathLike[str], section: str, columns: Sequence[Column]
) -> list[dict[str, _Cell | None]] | None:
    """Data rows of one section as {column name: cell} (None where a trailing optional
    column is absent), the header checked against `columns`; None when the index does
    not list the section. For the `EXTRA_SECTIONS` other modules read."""
    book = _Book(Path(path))
    table = _read_index(book).get(section)
    return None if table is None else _records(table, columns)


def _coincide(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Two model-frame points closer than 1e-6 mm."""
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) < 1e-12


# -- cells ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Cell:
    """One cell's cached value and where it is."""

    file: str
    sheet: str
    row: int
    col: int
    value: Any

    @property
    def ref(self) -> str:
        return f"{get_column_letter(self.col)}{self.row}"

    @property
    def source(self) -> Source:
        return Source(self.sheet, self.ref, self.file)

    @property
    def where(self) -> str:
        return str(self.source)

    @property
    def blank(self) -> bool:
        return self.value is None or (isinstance(self.value, str) and not self.value.strip())

    @property
    def text(self) -> str | None:
        """The value as stripped text (numbers without a trailing '.0'); None if blank."""
        if self.blank:
            return None
        v = self.value
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v).strip()


def _fail(where: _Cell | str, message: str, hint: str | None = None) -> NoReturn:
    raise WorkbookError(
        message, where=where.where if isinstance(where, _Cell) else where, hint=hint
    )


def _suggest(name: str, choices: Iterable[str]) -> str:
    """' Did you mean 'X'?' for a near miss (case-insensitive first), else ''."""
    choices = list(choices)
    for c in choices:
        if c.casefold() == name.casefold():
            return f" Did you mean {c!r}? (names are case-sensitive)"
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.7)
    return f" Did you mean {close[0]!r}?" if close else ""


def _norm(text: str) -> str:
    """Key for case- and space-insensitive matching of headers and names."""
    return re.sub(r"\s+", "", text.strip().strip("#").casefold())


# -- the file ---------------------------------------------------------------------
class _Book:
    """The workbook opened twice: cached values, and formulas (loaded on demand)."""

    def __init__(self, path: Path):
        self.path = path
        self.file = path.name
        if not path.exists():
            _fail(self.file, f"workbook not found: {path}", "check the path and the file name")
        if path.is_dir():
            _fail(self.file, f"{path} is a directory, not a workbook", "give the .xlsx file")
        self.values = self._load(data_only=True)
        self._formulas: openpyxl.Workbook | None = None

    def _load(self, *, data_only: bool) -> openpyxl.Workbook:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return openpyxl.load_workbook(self.path, data_only=data_only)
        except Exception as exc:
            _fail(
                self.file,
                f"cannot open {self.path} as an .xlsx workbook ({type(exc).__name__}: {exc})",
                "save it from Excel or LibreOffice as 'Excel Workbook (.xlsx)'",
            )

    def formula(self, sheet: str, row: int, col: int) -> str | None:
        """The formula of a cell, if it holds one."""
        if self._formulas is None:
            self._formulas = self._load(data_only=False)
        cell = self._formulas[sheet].cell(row=row, column=col)
        if cell.data_type == "f":
            v = cell.value
            return v if isinstance(v, str) else str(getattr(v, "text", "") or "formula")
        return None

    @property
    def first_sheet(self) -> Worksheet:
        return self.values.worksheets[0]

    def sheet(self, name: str) -> Worksheet | None:
        """A worksheet by name; Excel sheet names are case-insensitive."""
        sheets = self.values.worksheets  # chart sheets hold no cells
        exact = [ws for ws in sheets if ws.title == name]
        loose = [ws for ws in sheets if ws.title.casefold() == name.casefold()]
        return (exact or loose or [None])[0]

    def cell(self, ws: Worksheet, row: int, col: int) -> _Cell:
        """A cell's cached value; an uncomputed formula is an error."""
        value = ws.cell(row=row, column=col).value
        cell = _Cell(self.file, ws.title, row, col, value)
        if value is None and (formula := self.formula(ws.title, row, col)) is not None:
            _fail(
                cell,
                f"the cell holds the formula {formula!r} but no computed value: the workbook"
                " was saved without computed values (e.g. written by a script)",
                "open and save it in Excel or LibreOffice, or replace the formula by a value",
            )
        return cell

    def block(self, ws: Worksheet, bounds: tuple[int, int, int, int]) -> list[list[_Cell]]:
        """Cells of a range (min_col, min_row, max_col, max_row), row by row."""
        c0, r0, c1, r1 = bounds
        return [[self.cell(ws, r, c) for c in range(c0, c1 + 1)] for r in range(r0, r1 + 1)]


# -- the index ----------------------------------------------------------------------
@dataclass
class _Table:
    """A section: its range and cells (header row first)."""

    name: str  # as written in the index
    key: str  # canonical section name
    index_cell: _Cell  # the Range cell in the index
    sheet: str
    bounds: tuple[int, int, int, int]  # min_col, min_row, max_col, max_row
    header: list[_Cell] = field(default_factory=list)
    rows: list[list[_Cell]] = field(default_factory=list)  # non-blank data rows

    @property
    def label(self) -> str:
        return f"section {self.name!r}"


def _find_index_header(book: _Book) -> tuple[int, int]:
    """(row, col) of the 'Section' cell with 'Range' right of it on the first sheet."""
    ws = book.first_sheet
    for row in ws.iter_rows(min_row=1, max_row=ws.max_row, max_col=ws.max_column):
        for c in row:
            if (
                isinstance(c.value, str)
                and _norm(c.value) == "section"
                and c.column < ws.max_column
                and isinstance(nxt := ws.cell(row=c.row, column=c.column + 1).value, str)
                and _norm(nxt) == "range"
            ):
                return c.row, c.column
    _fail(
        f"{book.file}: {ws.title}",
        f"no index table on the first sheet {ws.title!r}: no cell 'Section' with 'Range'"
        " right of it",
        "put a two-column table 'Section | Range' on the first sheet, one row per section,"
        " e.g. 'Hard Points | Geometry!A1:D90' (see docs/workbook.md)",
    )


def _section_key(cell: _Cell, name: str) -> str:
    """Canonical section name for an index entry (case/space-insensitive)."""
    known = (*SECTION_NAMES, *EXTRA_SECTIONS)
    for s in known:
        if _norm(s) == _norm(name):
            return s
    _fail(
        cell,
        f"unknown section {name!r}." + _suggest(name, known),
        "valid sections: " + ", ".join(known),
    )


_RANGE_RE = re.compile(r"^(?:(?:'(?P<quoted>(?:[^']|'')+)'|(?P<plain>[^'!]+))!)?(?P<cells>[^!]+)$")


def _parse_range(cell: _Cell, default_sheet: str) -> tuple[str, str]:
    """(sheet name, cell range) of an index Range cell."""
    text = cell.text or ""
    m = _RANGE_RE.match(text.lstrip("="))
    if not m:
        _fail(
            cell,
            f"cannot read the range {text!r}",
            "write it like Geometry!A1:D90, 'Hard Points'!A1:D90 or A1:D90 (this sheet)",
        )
    sheet = m["quoted"].replace("''", "'") if m["quoted"] else m["plain"] or default_sheet
    return sheet.strip(), m["cells"].replace("$", "").strip()


def _range_bounds(book: _Book, cell: _Cell, ws: Worksheet, cells: str) -> tuple[int, int, int, int]:
    """Bounds of a range on a sheet, clipped to the sheet's data."""
    hint = "write it like A1:D90 (columns A..XFD, rows 1..1048576)"
    try:
        c0, r0, c1, r1 = range_boundaries(cells.upper())
    except (ValueError, TypeError):
        _fail(cell, f"malformed range {cells!r}", hint)
    if 0 in (c0, r0, c1, r1) or not cells:
        _fail(cell, f"malformed range {cells!r}", hint)
    c0, r0 = c0 or 1, r0 or 1  # whole columns (A:D) or whole rows (1:9)
    c1, r1 = c1 or MAX_COL, r1 or MAX_ROW
    c0, c1 = min(c0, c1), max(c0, c1)
    r0, r1 = min(r0, r1), max(r0, r1)
    if c1 > MAX_COL or r1 > MAX_ROW:
        _fail(cell, f"range {cells!r} lies outside the sheet (beyond XFD1048576)", hint)
    if r0 > ws.max_row or c0 > ws.max_column:
        end = f"{get_column_letter(ws.max_column)}{ws.max_row}"
        _fail(
            cell,
            f"range {ws.title}!{cells} lies outside the data of sheet {ws.title!r},"
            f" which ends at {end}",
            "point the range at the section's header row and data",
        )
    return c0, r0, min(c1, ws.max_column), min(r1, ws.max_row)


def _read_index(book: _Book) -> dict[str, _Table]:
    """The sections named in the index table, by canonical name."""
    ws = book.first_sheet
    hr, hc = _find_index_header(book)
    tables: dict[str, _Table] = {}
    first: dict[str, _Cell] = {}
    for r in range(hr + 1, ws.max_row + 1):
        name_cell, range_cell = book.cell(ws, r, hc), book.cell(ws, r, hc + 1)
        if name_cell.blank and range_cell.blank:
            break
        if name_cell.blank:
            _fail(name_cell, "index row has a range but no section name", _SECTION_HINT)
        name = (name_cell.text or "").strip("#").strip()
        key = _section_key(name_cell, name)
        if key in first:
            _fail(
                name_cell,
                f"section {key!r} is listed twice in the index: {first[key].ref} and"
                f" {name_cell.ref}",
                "keep one row per section",
            )
        first[key] = name_cell
        if range_cell.blank:
            continue  # an optional section left empty
        sheet_name, cells = _parse_range(range_cell, ws.title)
        target = book.sheet(sheet_name)
        if target is None:
            _fail(
                range_cell,
                f"range {range_cell.text!r} names sheet {sheet_name!r}, which does not exist."
                + _suggest(sheet_name, book.values.sheetnames),
                "sheets in this workbook: " + ", ".join(book.values.sheetnames),
            )
        bounds = _range_bounds(book, range_cell, target, cells)
        block = book.block(target, bounds)
        if not re.search(r"\d", cells):  # whole columns: the header is the first row used
            while len(block) > 1 and all(c.blank for c in block[0]):
                block.pop(0)
        table = _Table(name, key, range_cell, target.title, bounds, header=block[0])
        table.rows = [row for row in block[1:] if not all(c.blank for c in row)]
        tables[key] = table
    for key in REQUIRED_SECTIONS:
        if key not in tables:
            where = first[key] if key in first else book.cell(ws, hr, hc)
            _fail(
                where,
                f"required section {key!r} is missing from the index"
                + (" (its range is blank)" if key in first else ""),
                f"add a row '{key} | <range>' to the index table",
            )
    return tables


_SECTION_HINT = "each index row is 'Section name | Range', e.g. 'Hard Points | Geometry!A1:D90'"


# -- headers and rows ----------------------------------------------------------------
def _matches(cell: _Cell, column: Column) -> bool:
    text = cell.text
    return text is not None and _norm(text) in {_norm(n) for n in (column.name, *column.aliases)}


def _expected(columns: Sequence[Column]) -> str:
    return " | ".join(c.name + (" (optional)" if c.optional else "") for c in columns)


def _check_header(table: _Table, columns: Sequence[Column]) -> int:
    """Check a fixed-column header; return how many known columns it has."""
    header = table.header
    hint = f"the first row of the range must be the header: {_expected(columns)}"
    used = 0
    for i, column in enumerate(columns):
        cell = header[i] if i < len(header) else None
        if cell is not None and _matches(cell, column):
            used = i + 1
            continue
        if column.optional and (cell is None or cell.blank):
            break
        where = cell if cell is not None else header[-1]
        found = repr(cell.text) if cell is not None and not cell.blank else "nothing"
        _fail(where, f"{table.label}: expected header {column.name!r}, found {found}", hint)
    for j in range(used, len(header)):
        extra = header[j]
        if not extra.blank:
            _fail(extra, f"{table.label}: unexpected column {extra.text!r}", hint)
        for row in table.rows:
            if not row[j].blank:
                _fail(
                    row[j],
                    f"{table.label}: value {row[j].text!r} in a column without a header",
                    hint,
                )
    return used


def _records(table: _Table, columns: Sequence[Column]) -> list[dict[str, _Cell | None]]:
    """Data rows as {column name: cell or None when the column is absent}."""
    used = _check_header(table, columns)
    out = []
    for row in table.rows:
        rec: dict[str, _Cell | None] = {c.name: None for c in columns}
        for i in range(used):
            rec[columns[i].name] = row[i]
        key = row[0]
        if key.blank:
            _fail(
                key,
                f"{table.label}: this row has values but no {columns[0].name.lower()} name",
                f"fill in column {columns[0].name!r} or clear the row",
            )
        out.append(rec)
    return out


# -- value helpers ---------------------------------------------------------------------
def _name(cell: _Cell | None) -> str | None:
    """A name cell's text, or None when blank or absent."""
    return None if cell is None else cell.text


def _number(cell: _Cell | None, what: str) -> float | None:
    """A numeric cell (numbers or numeric text); None when blank or absent."""
    if cell is None or cell.blank:
        return None
    v = cell.value
    if isinstance(v, bool):
        value = math.nan
    elif isinstance(v, int | float):
        value = float(v)
    else:
        try:
            value = float(str(v).strip())
        except ValueError:
            value = math.nan
    if not math.isfinite(value):
        _fail(cell, f"{what} must be a number, found {cell.text!r}", "enter a plain number")
    return value


def _required_number(cell: _Cell | None, what: str, fallback: _Cell) -> float:
    value = _number(cell, what)
    if value is None:
        _fail(cell or fallback, f"{what} is blank", "enter a number")
    return value


def _positive(cell: _Cell | None, value: float | None, what: str) -> None:
    """Error at `cell` unless `value` is blank (None) or above zero."""
    if value is not None and value <= 0:
        assert cell is not None
        _fail(cell, f"{what} must be positive, found {value:g}", "enter a number above 0")


# -- the car ---------------------------------------------------------------------------
class _CarReader:
    """Reads the sections of one workbook in dependency order."""

    def __init__(self, book: _Book, tables: dict[str, _Table]):
        self.book = book
        self.tables = tables
        self.warnings: list[str] = []
        self.options = Options()
        self.name = book.path.stem
        self.ref_point_cell: _Cell | None = None
        self.point_cells: dict[str, _Cell] = {}
        self.xyz: dict[str, tuple[float, float, float]] = {}
        self.bodies: dict[str, Body] = {}
        self.body_cells: dict[str, _Cell] = {}

    @property
    def factor(self) -> float:
        return units.length_factor(self.options.length_unit)

    def length(self, cell: _Cell | None, what: str) -> float | None:
        """A length cell in the workbook's unit, as mm (None when blank)."""
        value = _number(cell, what)
        return None if value is None else units.to_internal(value, self.factor)

    def read(self) -> Car:
        if USER_OPTIONS in self.tables:
            self.read_options(self.tables[USER_OPTIONS])
        points = self.read_points(self.tables[HARD_POINTS])
        self.read_bodies(self.tables[COMPONENTS])
        self.check_reference_point()
        wheels = self.read_wheels(self.tables[WHEELS]) if WHEELS in self.tables else ()
        rack = self.read_rack(self.tables[STEERING]) if STEERING in self.tables else None
        dampers = self.read_dampers(self.tables[DAMPING]) if DAMPING in self.tables else ()
        self.warn_unused_points(points)
        self.warn_cells_below_ranges()
        return Car(
            name=self.name,
            options=self.options,
            points=tuple(points),
            bodies=tuple(self.bodies.values()),
            wheels=wheels,
            rack=rack,
            dampers=dampers,
            warnings=tuple(self.warnings),
            source_path=str(self.book.path),
        )

    # -- User Options --------------------------------------------------------------
    def read_options(self, table: _Table) -> None:
        cells = self.option_cells(table)
        kwargs: dict[str, Any] = {}

        def unit(option: str, parse: Any, default: str) -> str:
            cell = cells.get(option)
            if cell is None or cell.blank:
                return default
            try:
                return parse(cell.text)
            except units.UnitError as exc:
                _fail(cell, str(exc), f"set {option!r} to one of the valid units")

        kwargs["length_unit"] = unit("Length unit", units.length_unit, "mm")
        kwargs["angle_unit"] = unit("Angle unit", units.angle_unit, "deg")
        kwargs["force_unit"] = unit("Force unit", units.force_unit, "N")
        if (cell := cells.get("Axis map")) is not None and not cell.blank:
            try:
                kwargs["axis_map"] = units.parse_axis_map(str(cell.value))
            except units.UnitError as exc:
                _fail(
                    cell,
                    str(exc),
                    "write the model axes X, Y, Z in workbook axes, e.g. '+Z +X +Y' or"
                    " '[[0 0 1] [1 0 0] [0 1 0]]' (identity: '+X +Y +Z')",
                )
        self.options = Options(**kwargs)
        kwargs |= self.option_numbers(cells)
        kwargs |= self.option_choices(cells)
        if (cell := cells.get("Chassis reference point")) is not None and not cell.blank:
            kwargs["chassis_reference_point"] = cell.text
            self.ref_point_cell = cell
        if (cell := cells.get("Car name")) is not None and not cell.blank:
            self.name = cell.text or self.name
        self.options = Options(**kwargs)

    def option_cells(self, table: _Table) -> dict[str, _Cell]:
        """Value cell of each option given, by canonical option name."""
        valid = {_norm(n): n for n in OPTION_NAMES}
        found: dict[str, _Cell] = {}
        names: dict[str, _Cell] = {}
        for rec in _records(table, SECTION_COLUMNS[USER_OPTIONS]):
            name_cell, value_cell = rec["Option"], rec["Value"]
            assert name_cell is not None
            text = name_cell.text or ""
            canon = valid.get(_norm(text))
            if canon is None:
                _fail(
                    name_cell,
                    f"unknown option {text!r}." + _suggest(text, OPTION_NAMES),
                    "valid options: " + ", ".join(OPTION_NAMES),
                )
            if canon in names:
                _fail(
                    name_cell,
                    f"option {canon!r} is given twice: {names[canon].ref} and {name_cell.ref}",
                    "keep one row per option",
                )
            names[canon] = name_cell
            found[canon] = value_cell if value_cell is not None else name_cell
        return found

    def option_numbers(self, cells: dict[str, _Cell]) -> dict[str, Any]:
        """Numeric options, lengths converted to mm."""
        out: dict[str, Any] = {}
        for option, key in (
            ("Solver tolerance", "solver_tolerance_mm"),
            ("Constraint display tolerance", "constraint_display_tolerance_mm"),
        ):
            value = _number(cells.get(option), option)
            if value is not None:
                _positive(cells[option], value, f"{option} (mm)")
                out[key] = value
        for option, key in (("CG height", "cg_height_mm"), ("Wheelbase", "wheelbase_mm")):
            cell = cells.get(option)
            value = self.length(cell, option)
            if value is not None:
                _positive(cell, value, option)
                out[key] = value
        for option, key in (
            ("Front brake share", "front_brake_share"),
            ("Rear drive share", "rear_drive_share"),
        ):
            cell = cells.get(option)
            value = _number(cell, option)
            if value is not None:
                if not 0.0 <= value <= 1.0:
                    _fail(
                        cells[option],
                        f"{option} must be between 0 and 1, found {value:g}",
                        "write a fraction: 60 % is 0.6",
                    )
                out[key] = value
        return out

    def option_choices(self, cells: dict[str, _Cell]) -> dict[str, Any]:
        """Options that pick a word from a list."""
        out: dict[str, Any] = {}
        for option, key, choices in (
            ("Front brakes", "front_brakes_inboard", BRAKE_MOUNTS),
            ("Rear brakes", "rear_brakes_inboard", BRAKE_MOUNTS),
            ("Drive", "drive_inboard", DRIVE_MOUNTS),
            ("Sign convention", "sign_convention", {c: c for c in SIGN_CONVENTIONS}),
        ):
            cell = cells.get(option)
            if cell is None or cell.blank:
                continue
            word = _norm(cell.text or "")
            if word not in choices:
                _fail(
                    cell,
                    f"{option} must be one of {', '.join(choices)}; found {cell.text!r}",
                    f"write one of: {', '.join(choices)}",
                )
            out[key] = choices[word]
        return out

    def check_reference_point(self) -> None:
        ref = self.options.chassis_reference_point
        if ref is not None and ref not in self.point_cells:
            assert self.ref_point_cell is not None
            _fail(
                self.ref_point_cell,
                f"chassis reference point {ref!r} is not in Hard Points."
                + _suggest(ref, self.point_cells),
                "name a point from Hard Points, or leave it blank for the origin",
            )

    # -- Hard Points -----------------------------------------------------------------
    def read_points(self, table: _Table) -> list[Point]:
        points: list[Point] = []
        opts = self.options
        for rec in _records(table, SECTION_COLUMNS[HARD_POINTS]):
            cell = rec["Point"]
            assert cell is not None
            name = cell.text or ""
            if name in self.point_cells:
                first = self.point_cells[name]
                _fail(
                    cell,
                    f"point {name!r} is defined twice in Hard Points: {first.sheet}!{first.ref}"
                    f" and {cell.sheet}!{cell.ref}",
                    "delete or rename one of them",
                )
            xyz = tuple(
                _required_number(rec[axis], f"{axis} coordinate of point {name!r}", cell)
                for axis in "XYZ"
            )
            model = units.workbook_to_model(xyz, opts.length_unit, opts.axis_map)
            if max(abs(v) for v in model) > MAX_COORDINATE_MM:
                _fail(
                    cell,
                    f"point {name!r} is {max(abs(v) for v in model) / 1000:.3g} m from the "
                    "origin: not a car dimension",
                    f"check the coordinates and the Length unit (at most {MAX_COORDINATE_MM:g} mm)",
                )
            self.point_cells[name] = cell
            self.xyz[name] = model
            points.append(Point(name, model, source=cell.source))
        return points

    # -- Components --------------------------------------------------------------------
    def read_bodies(self, table: _Table) -> None:
        self.check_components_header(table)
        for row in table.rows:
            body_cell, point_cells = row[0], [c for c in row[1:] if not c.blank]
            if body_cell.blank:
                _fail(body_cell, "Components: points listed without a body name", "name the body")
            name = body_cell.text or ""
            if name in self.body_cells:
                _fail(
                    body_cell,
                    f"body {name!r} is listed twice in Components: {self.body_cells[name].ref} and"
                    f" {body_cell.ref}",
                    "give each body one row, with all its points",
                )
            names = self.body_points(name, point_cells)
            if len(names) < 2:
                _fail(
                    body_cell,
                    f"body {name!r} has {len(names)} point(s); a rigid body needs at least two",
                    "list every point of the body on its row (joints to other bodies included)",
                )
            self.body_cells[name] = body_cell
            self.bodies[name] = Body(name, tuple(names), source=body_cell.source)
        if CHASSIS not in self.bodies:
            near = [b for b in self.bodies if b.casefold() == CHASSIS.casefold()]
            _fail(
                self.body_cells[near[0]] if near else table.header[0],
                f"Components has no body named {CHASSIS!r}"
                + (f" (found {near[0]!r}; names are case-sensitive)" if near else ""),
                f"name the sprung mass '{CHASSIS}' (exactly); it is the reference body",
            )

    def check_components_header(self, table: _Table) -> None:
        header = table.header
        expected = "Body | Points (then any number of point cells)"
        for i, column in enumerate(COMPONENTS_COLUMNS):
            if i >= len(header) or not _matches(header[i], column):
                cell = header[min(i, len(header) - 1)]
                found = repr(cell.text) if i < len(header) and not cell.blank else "nothing"
                _fail(
                    cell,
                    f"{table.label}: expected header {column.name!r}, found {found}",
                    f"the first row of the range must be the header: {expected}",
                )
        for cell in header[2:]:
            if not cell.blank and not re.fullmatch(r"points?\s*\d*", _norm(cell.text or "")):
                _fail(
                    cell, f"{table.label}: unexpected column {cell.text!r}", f"header: {expected}"
                )

    def body_points(self, body: str, cells: Sequence[_Cell]) -> list[str]:
        """The point cells of a body: each a Hard Point, each once."""
        names: dict[str, _Cell] = {}
        for cell in cells:
            name = cell.text or ""
            if name not in self.point_cells:
                _fail(
                    cell,
                    f"body {body!r} uses point {name!r}, which is not in Hard Points."
                    + _suggest(name, self.point_cells),
                    "add the point to Hard Points (and extend its range), or fix the spelling",
                )
            if name in names:
                _fail(
                    cell,
                    f"body {body!r} lists point {name!r} twice: {names[name].ref} and {cell.ref}",
                    "list each point of a body once",
                )
            names[name] = cell
        return list(names)

    def require_body(self, cell: _Cell | None, role: str) -> Body:
        name = _name(cell)
        assert cell is not None
        if name is None:
            _fail(cell, f"{role}: body name is blank", "name a body from Components")
        if name not in self.bodies:
            _fail(
                cell,
                f"{role}: body {name!r} is not in Components." + _suggest(name, self.bodies),
                "name a body listed in Components",
            )
        return self.bodies[name]

    def require_point_on(self, cell: _Cell | None, body: Body, what: str, fallback: _Cell) -> str:
        name = _name(cell)
        if name is None:
            _fail(cell or fallback, f"{what} is blank", f"name a point of body {body.name!r}")
        assert cell is not None
        if name not in body.points:
            _fail(
                cell,
                f"{what} {name!r} is not a point of body {body.name!r}"
                f" (its points: {', '.join(body.points)})",
                f"name one of the points listed for {body.name!r} in Components",
            )
        return name

    def optional_kingpin_point(self, cell: _Cell | None, what: str) -> str | None:
        """A kingpin pivot: any point that some body uses (a MacPherson strut's top
        mount is on the chassis, not on the upright)."""
        if cell is None or cell.blank:
            return None
        name = cell.text or ""
        used = {p for b in self.bodies.values() for p in b.points}
        if name not in used:
            _fail(
                cell,
                f"{what} {name!r} is not a point of any body." + _suggest(name, sorted(used)),
                "name a ball joint of the upright, or a strut's top mount",
            )
        return name

    def optional_point_on(self, cell: _Cell | None, body: Body, what: str) -> str | None:
        if cell is None or cell.blank:
            return None
        return self.require_point_on(cell, body, what, cell)

    # -- Wheels --------------------------------------------------------------------------
    def read_wheels(self, table: _Table) -> tuple[Wheel, ...]:
        wheels: list[Wheel] = []
        seen: dict[str, _Cell] = {}
        for rec in _records(table, SECTION_COLUMNS[WHEELS]):
            cell = rec["Wheel"]
            assert cell is not None
            name = cell.text or ""
            if name in seen:
                _fail(
                    cell,
                    f"wheel {name!r} is listed twice: {seen[name].ref} and {cell.ref}",
                    "give each wheel its own name",
                )
            seen[name] = cell
            wheels.append(self.read_wheel(name, cell, rec))
        return tuple(wheels)

    def read_wheel(self, name: str, cell: _Cell, rec: dict[str, _Cell | None]) -> Wheel:
        """One Wheels row (tyre sizes converted to mm)."""
        what = f"wheel {name!r}"
        body = self.require_body(rec["Body"], what)
        if body.name == CHASSIS:
            _fail(
                rec["Body"] or cell,
                f"{what} is carried by the Chassis, so it cannot move",
                "name the upright (or axle) that carries the wheel",
            )
        centre = self.require_point_on(rec["Centre point"], body, f"{what} centre point", cell)
        axis = self.require_point_on(rec["Axis point"], body, f"{what} axis point", cell)
        if centre == axis or _coincide(self.xyz[centre], self.xyz[axis]):
            _fail(
                rec["Axis point"] or cell,
                f"{what}: the axis point {axis!r} is at the centre point {centre!r}",
                "the spin axis runs from the centre point to a second point on the axle",
            )
        radius = self.required_length(rec["Tyre radius"], f"tyre radius of {what}", cell)
        width = self.required_length(rec["Tyre width"], f"tyre width of {what}", cell)
        lower_cell, upper_cell = rec["Kingpin lower"], rec["Kingpin upper"]
        lower = self.optional_kingpin_point(lower_cell, f"{what} kingpin lower point")
        upper = self.optional_kingpin_point(upper_cell, f"{what} kingpin upper point")
        if (lower is None) != (upper is None):
            _fail(
                (lower_cell if lower is None else upper_cell) or cell,
                f"{what}: give both kingpin points or neither",
                "without kingpin points the steering axis comes from the rack motion",
            )
        if lower is not None and upper is not None and _coincide(self.xyz[lower], self.xyz[upper]):
            _fail(
                upper_cell or cell,
                f"{what}: kingpin points {lower!r} and {upper!r} are at the same place",
                "the kingpin axis runs from the lower to the upper pivot: check Hard Points",
            )
        if not TYRE_RADIUS_MM[0] <= radius <= TYRE_RADIUS_MM[1]:
            where = (rec["Tyre radius"] or cell).where
            self.warnings.append(
                f"{where}: tyre radius of {what} is {radius:.1f} mm, unusual for a racing "
                f"car ({TYRE_RADIUS_MM[0]:g}-{TYRE_RADIUS_MM[1]:g} mm): check the Length unit"
            )
        return Wheel(name, body.name, centre, axis, radius, width, lower, upper, source=cell.source)

    def required_length(self, cell: _Cell | None, what: str, fallback: _Cell) -> float:
        """A positive length that must be given, as mm."""
        value = self.length(cell, what)
        if value is None:
            _fail(cell or fallback, f"{what} is blank", "enter it in the workbook's length unit")
        _positive(cell, value, what)
        return value

    # -- Steering --------------------------------------------------------------------------
    def read_rack(self, table: _Table) -> Rack | None:
        records = _records(table, SECTION_COLUMNS[STEERING])
        if not records:
            return None
        if len(records) > 1:
            second = records[1]["Rack body"]
            assert second is not None
            _fail(
                second, "Steering lists more than one rack", "a car has at most one steering rack"
            )
        rec = records[0]
        cell = rec["Rack body"]
        assert cell is not None
        body = self.require_body(cell, "steering rack")
        if body.name == CHASSIS:
            _fail(cell, "the steering rack cannot be the Chassis", "name the rack's own body")
        e1 = self.optional_point_on(rec["End point 1"], body, "rack end point 1")
        e2 = self.optional_point_on(rec["End point 2"], body, "rack end point 2")
        if e1 is None and e2 is None:
            if len(body.points) != 2:
                _fail(
                    cell,
                    f"rack body {body.name!r} has {len(body.points)} points, so its end points"
                    " must be named",
                    "fill in End point 1 and End point 2 (the rack slides from 1 towards 2)",
                )
            e1, e2 = body.points
        elif e1 is None or e2 is None:
            _fail(
                (rec["End point 1"] if e1 is None else rec["End point 2"]) or cell,
                "give both rack end points or neither",
                "leave both blank only when the rack body has exactly two points",
            )
        elif e1 == e2:
            _fail(
                rec["End point 2"] or cell,
                "the two rack end points are the same point",
                "name two different points",
            )
        ratio = _number(rec["Steering ratio"], "steering ratio")
        if ratio is not None:
            _positive(rec["Steering ratio"], ratio, "steering ratio")
            per_angle = units.angle_factor(self.options.angle_unit) / units.angle_factor("deg")
            ratio = units.to_internal(ratio, self.factor) / per_angle
        return Rack(body.name, (e1, e2), ratio, source=cell.source)  # type: ignore[arg-type]

    # -- Damping ----------------------------------------------------------------------------
    def read_dampers(self, table: _Table) -> tuple[Damper, ...]:
        dampers: list[Damper] = []
        seen: dict[str, _Cell] = {}
        chassis = self.bodies[CHASSIS]
        for rec in _records(table, SECTION_COLUMNS[DAMPING]):
            cell = rec["Damper body"]
            assert cell is not None
            body = self.require_body(cell, "damper")
            if body.name == CHASSIS:
                _fail(cell, "a damper cannot be the Chassis", "name the damper's own body")
            if body.name in seen:
                _fail(
                    cell,
                    f"damper {body.name!r} is listed twice: {seen[body.name].ref} and {cell.ref}",
                    "one row per damper",
                )
            seen[body.name] = cell
            cp = self.require_point_on(
                rec["Chassis point"], body, f"damper {body.name!r} chassis point", cell
            )
            if cp not in chassis.points:
                _fail(
                    rec["Chassis point"] or cell,
                    f"damper {body.name!r}: chassis point {cp!r} is not on the Chassis body",
                    "the chassis point is where the damper is mounted to the chassis: list it on"
                    " both the damper and the Chassis rows in Components",
                )
            mp = self.require_point_on(
                rec["Moving point"], body, f"damper {body.name!r} moving point", cell
            )
            if mp == cp:
                _fail(
                    rec["Moving point"] or cell,
                    f"damper {body.name!r}: moving point equals the chassis point",
                    "name the damper's other eye",
                )
            lo = self.length(rec["Min length"], f"min length of damper {body.name!r}")
            hi = self.length(rec["Max length"], f"max length of damper {body.name!r}")
            _positive(rec["Min length"], lo, f"min length of damper {body.name!r}")
            _positive(rec["Max length"], hi, f"max length of damper {body.name!r}")
            if lo is not None and hi is not None and lo > hi:
                _fail(
                    rec["Min length"] or cell,
                    f"damper {body.name!r}: min length is greater than max length",
                    "swap them, or check the units",
                )
            damper = Damper(body.name, cp, mp, lo, hi, source=cell.source)
            self.warn_damper_length(damper, cell)
            dampers.append(damper)
        return tuple(dampers)

    # -- warnings ---------------------------------------------------------------------------
    def warn_damper_length(self, damper: Damper, cell: _Cell) -> None:
        """Warn when the design length is outside [min, max]."""
        length = math.dist(self.xyz[damper.chassis_point], self.xyz[damper.moving_point])
        lo, hi = damper.min_length, damper.max_length
        if (lo is not None and length < lo - 1e-9) or (hi is not None and length > hi + 1e-9):
            self.warnings.append(
                f"{cell.where}: damper {damper.body!r} is {length:.3f} mm long at the design"
                f" condition, outside its min/max lengths"
            )

    def warn_unused_points(self, points: Sequence[Point]) -> None:
        used = {p for b in self.bodies.values() for p in b.points}
        for p in points:
            if p.name not in used:
                cell = self.point_cells[p.name]
                self.warnings.append(
                    f"{cell.where}: point {p.name!r} is in Hard Points but on no body (not used)"
                )

    def warn_cells_below_ranges(self) -> None:
        """Warn about a value right below a section's first column (a row left out?)."""
        for table in self.tables.values():
            c0, _, _, r1 = table.bounds
            ws = self.book.values[table.sheet]
            if r1 >= ws.max_row:
                continue
            value = ws.cell(row=r1 + 1, column=c0).value
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            if any(self.inside(other, table.sheet, r1 + 1, c0) for other in self.tables.values()):
                continue
            where = f"{self.book.file}: {table.sheet}!{get_column_letter(c0)}{r1 + 1}"
            self.warnings.append(
                f"{where}: {value!r} is right below section {table.name!r} but outside its range"
                f" {table.index_cell.text} (not read); extend the range in"
                f" {table.index_cell.sheet}!{table.index_cell.ref} if it belongs to the section"
            )

    @staticmethod
    def inside(table: _Table, sheet: str, row: int, col: int) -> bool:
        c0, r0, c1, r1 = table.bounds
        return table.sheet == sheet and r0 <= row <= r1 and c0 <= col <= c1
