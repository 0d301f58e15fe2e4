"""Cells of a car workbook: values, references and ranges, the index table, and the
records of a section, each cell knowing where it is (`Source`).

Layout (docs/workbook.md has the full reference): the first sheet holds an
index table with the header ``Section | Range`` anywhere on it; each row maps
a section name to a cell range (``Geometry!A1:D90``, ``'Hard Points'!B2:E40``
or ``A1:D9`` on the index's own sheet). Only those ranges are read, the first
row of each being its header. Every problem is a `WorkbookError` whose `where`
is ``"car.xlsx: Sheet!C12"``.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from suspension_sim.description import Source
from suspension_sim.errors import WorkbookError
from suspension_sim.names import did_you_mean
from suspension_sim.tolerances import MAX_CELL_NUMBER
from suspension_sim.workbook.schema import (
    EXTRA_SECTIONS,
    INDEX_HEADER,
    REQUIRED_SECTIONS,
    SECTION_NAMES,
    Column,
)

if TYPE_CHECKING:  # pragma: no cover
    import openpyxl
    from openpyxl.worksheet.worksheet import Worksheet

MAX_ROW = 1_048_576
"""Rows of an Excel sheet."""
MAX_COL = 16_384
"""Columns of an Excel sheet (A..XFD)."""


def read_section(
    path: str | os.PathLike[str], section: str, columns: Sequence[Column]
) -> list[dict[str, Cell | None]] | None:
    """Data rows of one section as {column name: cell} (None where a trailing optional
    column is absent), the header checked against `columns`; None when the index does
    not list the section. For the `EXTRA_SECTIONS` that other modules read."""
    book = Book(Path(path))
    table = read_index(book).get(section)
    return None if table is None else records(table, columns)


def column_letter(col: int) -> str:
    """Excel's letters of a 1-based column number (1 -> A, 27 -> AA), without importing
    openpyxl (a cached car never loads it)."""
    letters = ""
    while col > 0:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


# -- cells ------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One cell's cached value and where it is."""

    file: str
    sheet: str
    row: int
    col: int
    value: Any

    @property
    def ref(self) -> str:
        """The cell's A1 reference, e.g. 'C12'."""
        return f"{column_letter(self.col)}{self.row}"

    @property
    def source(self) -> Source:
        """Where the cell is, as kept on the items read from it."""
        return Source(self.sheet, self.ref, self.file)

    @property
    def where(self) -> str:
        """``"car.xlsx: Sheet!C12"``, for error messages."""
        return str(self.source)

    @property
    def blank(self) -> bool:
        """True when the cell is empty or holds only spaces."""
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


def fail(where: Cell | str, message: str, hint: str | None = None) -> NoReturn:
    """Raise a `WorkbookError` at a cell (or a place written out)."""
    raise WorkbookError(message, where=where.where if isinstance(where, Cell) else where, hint=hint)


def norm(text: str) -> str:
    """Key for case- and space-insensitive matching of headers and names."""
    return re.sub(r"\s+", "", text.strip().strip("#").casefold())


# -- the file ---------------------------------------------------------------------
class Book:
    """The workbook opened twice: cached values, and formulas (loaded on demand)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = path.name
        if not path.exists():
            fail(self.file, f"workbook not found: {path}", "check the path and the file name")
        if path.is_dir():
            fail(self.file, f"{path} is a directory, not a workbook", "give the .xlsx file")
        self.values = self._load(data_only=True)
        self._formulas: openpyxl.Workbook | None = None

    def _load(self, *, data_only: bool) -> openpyxl.Workbook:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import openpyxl

                return openpyxl.load_workbook(self.path, data_only=data_only)
        except Exception as exc:
            fail(
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
        """The sheet that holds the index table."""
        return self.values.worksheets[0]

    def sheet(self, name: str) -> Worksheet | None:
        """A worksheet by name; Excel sheet names are case-insensitive."""
        sheets = self.values.worksheets  # chart sheets hold no cells
        exact = [ws for ws in sheets if ws.title == name]
        loose = [ws for ws in sheets if ws.title.casefold() == name.casefold()]
        return (exact or loose or [None])[0]

    def cell(self, ws: Worksheet, row: int, col: int) -> Cell:
        """A cell's cached value; an uncomputed formula is an error."""
        value = ws.cell(row=row, column=col).value
        cell = Cell(self.file, ws.title, row, col, value)
        if value is None and (formula := self.formula(ws.title, row, col)) is not None:
            fail(
                cell,
                f"the cell holds the formula {formula!r} but no computed value: the workbook"
                " was saved without computed values (e.g. written by a script)",
                "open and save it in Excel or LibreOffice, or replace the formula by a value",
            )
        return cell

    def block(self, ws: Worksheet, bounds: tuple[int, int, int, int]) -> list[list[Cell]]:
        """Cells of a range (min_col, min_row, max_col, max_row), row by row; a merged
        cell inside it is an error (`refuse_merged`)."""
        self.refuse_merged(ws, bounds)
        c0, r0, c1, r1 = bounds
        return [[self.cell(ws, r, c) for c in range(c0, c1 + 1)] for r in range(r0, r1 + 1)]

    def refuse_merged(self, ws: Worksheet, bounds: tuple[int, int, int, int]) -> None:
        """Error at the first merged cell inside bounds (min_col, min_row, max_col,
        max_row): a merged range keeps its value in its top-left cell only, so the
        other cells would read as blank."""
        c0, r0, c1, r1 = bounds
        hits = []
        for merged in ws.merged_cells.ranges:
            mc0, mr0, mc1, mr1 = merged.bounds
            lo_c, lo_r, hi_c, hi_r = max(c0, mc0), max(r0, mr0), min(c1, mc1), min(r1, mr1)
            if lo_c > hi_c or lo_r > hi_r:
                continue
            # Name a covered cell (its value is gone), else the top-left one.
            inside = [(r, c) for r in range(lo_r, hi_r + 1) for c in range(lo_c, hi_c + 1)]
            covered = [rc for rc in inside if rc != (mr0, mc0)]
            hits.append(((covered or inside)[0], merged.coord))
        if hits:
            (row, col), coord = min(hits)
            cell = Cell(self.file, ws.title, row, col, None)
            fail(
                cell,
                f"{cell.ref} is part of merged range {coord}; unmerge it",
                "a merged range keeps one value for all its cells: unmerge it (Excel: Home >"
                " Merge & Center) and give every cell its own value",
            )


# -- the index ----------------------------------------------------------------------
@dataclass
class Table:
    """A section: its range and cells (header row first)."""

    name: str  # as written in the index
    key: str  # canonical section name
    index_cell: Cell  # the Range cell in the index
    sheet: str
    bounds: tuple[int, int, int, int]  # min_col, min_row, max_col, max_row
    header: list[Cell] = field(default_factory=list)
    rows: list[list[Cell]] = field(default_factory=list)  # non-blank data rows

    @property
    def label(self) -> str:
        """``"section 'Hard Points'"`` as written in the index, for messages."""
        return f"section {self.name!r}"


def _index_header_on(ws: Worksheet) -> tuple[int, int] | None:
    """(row, col) of a 'Section' cell with 'Range' right of it on a sheet, if any."""
    section, range_ = (norm(h) for h in INDEX_HEADER)
    for row in ws.iter_rows(min_row=1, max_row=ws.max_row, max_col=ws.max_column):
        for c in row:
            if (
                isinstance(c.value, str)
                and norm(c.value) == section
                and c.column < ws.max_column
                and isinstance(nxt := ws.cell(row=c.row, column=c.column + 1).value, str)
                and norm(nxt) == range_
            ):
                return c.row, c.column
    return None


def _find_index_header(book: Book) -> tuple[int, int]:
    """(row, col) of the index header on the first sheet; an error naming the sheet and
    cell where it is when it sits on another sheet."""
    ws = book.first_sheet
    found = _index_header_on(ws)
    if found is not None:
        return found
    for other in book.values.worksheets[1:]:
        elsewhere = _index_header_on(other)
        if elsewhere is not None:
            cell = Cell(book.file, other.title, elsewhere[0], elsewhere[1], None)
            fail(
                cell,
                f"the index table is on sheet {other.title!r} ({cell.ref}), but it must be on"
                f" the first sheet (now {ws.title!r})",
                f"move sheet {other.title!r} to the first place (drag its tab to the far left)",
            )
    fail(
        f"{book.file}: {ws.title}",
        f"no index table on the first sheet {ws.title!r}: no cell 'Section' with 'Range'"
        " right of it",
        "put a two-column table 'Section | Range' on the first sheet, one row per section,"
        " e.g. 'Hard Points | Geometry!A1:D90' (see docs/workbook.md)",
    )


def _section_key(cell: Cell, name: str) -> str:
    """Canonical section name for an index entry (case/space-insensitive)."""
    known = (*SECTION_NAMES, *EXTRA_SECTIONS)
    for s in known:
        if norm(s) == norm(name):
            return s
    fail(
        cell,
        f"unknown section {name!r}." + did_you_mean(name, known),
        "valid sections: " + ", ".join(known),
    )


_RANGE_RE = re.compile(r"^(?:(?:'(?P<quoted>(?:[^']|'')+)'|(?P<plain>[^'!]+))!)?(?P<cells>[^!]+)$")


def _parse_range(cell: Cell, default_sheet: str) -> tuple[str, str]:
    """(sheet name, cell range) of an index Range cell."""
    text = cell.text or ""
    m = _RANGE_RE.match(text.lstrip("="))
    if not m:
        fail(
            cell,
            f"cannot read the range {text!r}",
            "write it like Geometry!A1:D90, 'Hard Points'!A1:D90 or A1:D90 (this sheet)",
        )
    sheet = m["quoted"].replace("''", "'") if m["quoted"] else m["plain"] or default_sheet
    return sheet.strip(), m["cells"].replace("$", "").strip()


def _range_bounds(book: Book, cell: Cell, ws: Worksheet, cells: str) -> tuple[int, int, int, int]:
    """Bounds of a range on a sheet, clipped to the sheet's data."""
    hint = "write it like A1:D90 (columns A..XFD, rows 1..1048576)"
    try:
        from openpyxl.utils.cell import range_boundaries

        c0, r0, c1, r1 = range_boundaries(cells.upper())
    except (ValueError, TypeError):
        fail(cell, f"malformed range {cells!r}", hint)
    if 0 in (c0, r0, c1, r1) or not cells:
        fail(cell, f"malformed range {cells!r}", hint)
    c0, r0 = c0 or 1, r0 or 1  # whole columns (A:D) or whole rows (1:9)
    c1, r1 = c1 or MAX_COL, r1 or MAX_ROW
    c0, c1 = min(c0, c1), max(c0, c1)
    r0, r1 = min(r0, r1), max(r0, r1)
    if c1 > MAX_COL or r1 > MAX_ROW:
        fail(cell, f"range {cells!r} lies outside the sheet (beyond XFD1048576)", hint)
    if r0 > ws.max_row or c0 > ws.max_column:
        end = f"{column_letter(ws.max_column)}{ws.max_row}"
        fail(
            cell,
            f"range {ws.title}!{cells} lies outside the data of sheet {ws.title!r},"
            f" which ends at {end}",
            "point the range at the section's header row and data",
        )
    return c0, r0, min(c1, ws.max_column), min(r1, ws.max_row)


def read_index(book: Book) -> dict[str, Table]:
    """The sections named in the index table, by canonical name."""
    ws = book.first_sheet
    hr, hc = _find_index_header(book)
    tables: dict[str, Table] = {}
    first: dict[str, Cell] = {}
    for r in range(hr + 1, ws.max_row + 1):
        name_cell, range_cell = book.cell(ws, r, hc), book.cell(ws, r, hc + 1)
        if name_cell.blank and range_cell.blank:
            break
        book.refuse_merged(ws, (hc, r, hc + 1, r))
        if name_cell.blank:
            fail(name_cell, "index row has a range but no section name", _SECTION_HINT)
        name = (name_cell.text or "").strip("#").strip()
        key = _section_key(name_cell, name)
        if key in first:
            fail(
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
            fail(
                range_cell,
                f"range {range_cell.text!r} names sheet {sheet_name!r}, which does not exist."
                + did_you_mean(sheet_name, book.values.sheetnames),
                "sheets in this workbook: " + ", ".join(book.values.sheetnames),
            )
        bounds = _range_bounds(book, range_cell, target, cells)
        block = book.block(target, bounds)
        if not re.search(r"\d", cells):  # whole columns: the header is the first row used
            while len(block) > 1 and all(c.blank for c in block[0]):
                block.pop(0)
        table = Table(name, key, range_cell, target.title, bounds, header=block[0])
        table.rows = [row for row in block[1:] if not all(c.blank for c in row)]
        tables[key] = table
    for key in REQUIRED_SECTIONS:
        if key not in tables:
            where = first[key] if key in first else book.cell(ws, hr, hc)
            fail(
                where,
                f"required section {key!r} is missing from the index"
                + (" (its range is blank)" if key in first else ""),
                f"add a row '{key} | <range>' to the index table",
            )
    return tables


_SECTION_HINT = "each index row is 'Section name | Range', e.g. 'Hard Points | Geometry!A1:D90'"


# -- headers and rows ----------------------------------------------------------------
def matches(cell: Cell, column: Column) -> bool:
    text = cell.text
    return text is not None and norm(text) in {norm(n) for n in (column.name, *column.aliases)}


def _expected(columns: Sequence[Column]) -> str:
    return " | ".join(c.name + (" (optional)" if c.optional else "") for c in columns)


def _check_header(table: Table, columns: Sequence[Column]) -> int:
    """Check a fixed-column header; return how many known columns it has."""
    header = table.header
    hint = f"the first row of the range must be the header: {_expected(columns)}"
    used = 0
    for i, column in enumerate(columns):
        cell = header[i] if i < len(header) else None
        if cell is not None and matches(cell, column):
            used = i + 1
            continue
        if column.optional and (cell is None or cell.blank):
            break
        where = cell if cell is not None else header[-1]
        found = repr(cell.text) if cell is not None and not cell.blank else "nothing"
        fail(where, f"{table.label}: expected header {column.name!r}, found {found}", hint)
    for j in range(used, len(header)):
        extra = header[j]
        if not extra.blank:
            fail(extra, f"{table.label}: unexpected column {extra.text!r}", hint)
        for row in table.rows:
            if not row[j].blank:
                fail(
                    row[j],
                    f"{table.label}: value {row[j].text!r} in a column without a header",
                    hint,
                )
    return used


def records(table: Table, columns: Sequence[Column]) -> list[dict[str, Cell | None]]:
    """Data rows as {column name: cell or None when the column is absent}."""
    used = _check_header(table, columns)
    out = []
    for row in table.rows:
        rec: dict[str, Cell | None] = {c.name: None for c in columns}
        for i in range(used):
            rec[columns[i].name] = row[i]
        key = row[0]
        if key.blank:
            fail(
                key,
                f"{table.label}: this row has values but no {columns[0].name.lower()} name",
                f"fill in column {columns[0].name!r} or clear the row",
            )
        out.append(rec)
    return out


# -- value helpers ---------------------------------------------------------------------
def name_of(cell: Cell | None) -> str | None:
    """A name cell's text, or None when blank or absent."""
    return None if cell is None else cell.text


def number(
    cell: Cell | None, what: str, limit: float = MAX_CELL_NUMBER, unit: str = ""
) -> float | None:
    """A numeric cell (numbers or numeric text); None when blank or absent.

    The value is range-checked before any arithmetic: not finite, or above `limit` in
    magnitude (in the cell's own `unit`, named in the message), is an error at the cell.
    """
    if cell is None or cell.blank:
        return None
    v = cell.value
    try:
        if isinstance(v, bool):
            value = math.nan
        elif isinstance(v, int | float):
            value = float(v)
        else:
            value = float(str(v).strip())
    except (ValueError, OverflowError):
        value = math.nan
    if not math.isfinite(value):
        fail(cell, f"{what} must be a number, found {cell.text!r}", "enter a plain number")
    if abs(value) > limit:
        if unit:
            fail(
                cell,
                f"{what} is {value:g} {unit}: not a car dimension (at most {limit:g} {unit})",
                "check the value and the Length unit",
            )
        fail(cell, f"{what} is {value:g}, beyond the plausible {limit:g}", "check the value")
    return value


def required_number(
    cell: Cell | None, what: str, fallback: Cell, limit: float = MAX_CELL_NUMBER, unit: str = ""
) -> float:
    """A numeric cell that must be given (`number` with its range check)."""
    value = number(cell, what, limit, unit)
    if value is None:
        fail(cell or fallback, f"{what} is blank", "enter a number")
    return value


def positive(cell: Cell | None, value: float | None, what: str) -> None:
    """Error at `cell` unless `value` is blank (None) or above zero."""
    if value is not None and value <= 0:
        assert cell is not None
        fail(cell, f"{what} must be positive, found {value:g}", "enter a number above 0")
