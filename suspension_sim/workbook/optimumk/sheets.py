"""The cells of an OptimumKinematics export (.xlsx): sheets, title block, blocks, units and
the coordinate-system matrix, each value kept with its cell for the error messages.

An export sheet is a title block (``Name:``, ``Type:`` ... in column A or B), then blocks,
each named in column A on its first row (``User Options`` also in B); a block ends where
the next starts. Merged cells hold their value in the top-left cell. What the blocks mean
is read by `suspension_sim.workbook.optimumk.axle` (suspension sheets) and
`suspension_sim.workbook.optimumk.setup` (the vehicle setup); docs/optimumk.md has the
layout and the evidence it rests on.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from openpyxl.utils import get_column_letter

from suspension_sim import units
from suspension_sim.errors import WorkbookError
from suspension_sim.workbook.cells import Book, Cell, fail, number

Axle = Literal["front", "rear"]
Side = Literal["L", "R"]
Vec = tuple[float, float, float]
Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]

IDENTITY: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
SIDES: tuple[Side, Side] = ("L", "R")
"""OptimumK's Left and Right columns."""

READ_COLUMNS = 60
"""Columns read as cells (A..BH); numbers beyond are listed in a warning (`Sheet.far`)."""

TITLE_LABELS = frozenset(
    {
        "name",
        "type",
        "version",
        "comments",
        "comment",
        "description",
        "createdby",
        "createdon",
        "modifiedby",
        "modifiedon",
        "date",
        "author",
    }
)
"""Labels of the title block (``Name:``, ``Type:``, ``Version:``, ``Comments:`` ...), matched
without case or colon in column A or B wherever they are: never a block, never a block row."""


def label_key(text: str) -> str:
    """Case-, space- and punctuation-insensitive key (``Double A-Arm`` -> ``doubleaarm``)."""
    return re.sub(r"[^a-z0-9]", "", text.casefold())


def side_name(side: Side) -> str:
    return "Left" if side == "L" else "Right"


def is_number(cell: Cell) -> bool:
    """A number, or text that reads as one (``12``, ``-0.5``, ``1e3``)."""
    v = cell.value
    if isinstance(v, bool):
        return False
    if isinstance(v, int | float):
        return True
    return bool(re.fullmatch(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*", str(v)))


@dataclass
class Sheet:
    """One sheet's cells (1-based rows and columns, like Excel)."""

    book: Book
    title: str
    cells: list[list[Cell]]
    merged: dict[tuple[int, int], int] = field(default_factory=dict)
    """Top-left (row, column) of a merged range -> its last column (openpyxl keeps the value
    in the top-left cell, None in the others)."""
    far: list[Cell] = field(default_factory=list)
    """Numeric cells beyond the `READ_COLUMNS` read (never read: a warning lists them)."""

    @property
    def label(self) -> str:
        return f"{self.book.file}: {self.title}"

    def cell(self, row: int, col: int) -> Cell:
        """The cell at (row, col); blank beyond the used range."""
        if 1 <= row <= len(self.cells) and 1 <= col <= len(self.cells[row - 1]):
            return self.cells[row - 1][col - 1]
        return Cell(self.book.file, self.title, row, col, None)

    def text(self, row: int, col: int) -> str:
        return self.cell(row, col).text or ""

    def width(self, row: int) -> int:
        """Columns read on a row."""
        return len(self.cells[row - 1]) if 1 <= row <= len(self.cells) else 0

    def after(self, row: int, col: int, span: int = 6) -> Cell:
        """The first non-blank cell right of (row, col) and its merged range, within `span`
        columns; the blank cell just right of it when there is none (for the error)."""
        start = self.merged.get((row, col), col) + 1
        for c in range(start, start + span):
            if not self.cell(row, c).blank:
                return self.cell(row, c)
        return self.cell(row, start)

    def title_row(self, row: int) -> tuple[int, str] | None:
        """(column, label key) when the row is a title-block row: a `TITLE_LABELS` label in
        column A, or in column B with column A blank."""
        for col in (1, 2):
            key = label_key(self.text(row, col))
            if key in TITLE_LABELS:
                return col, key
            if key:
                return None
        return None

    def title_value(self, key: str) -> str:
        """The value beside a title-block label (``Name:`` ...), '' when absent or blank. A
        label given twice with different values is an error at the second."""
        found: Cell | None = None
        for r in range(1, len(self.cells) + 1):
            at = self.title_row(r)
            if at is None or at[1] != key:
                continue
            cell = self.after(r, at[0])
            if found is not None and (cell.text or "") != (found.text or ""):
                fail(
                    cell,
                    f"the title block gives {self.text(r, at[0])!r} twice: {found.text!r}"
                    f" ({found.ref}) and {cell.text!r}",
                    "keep one row",
                )
            found = found or cell
        return (found.text or "") if found is not None else ""

    def numbers_outside(self, row: int, used: Collection[int]) -> list[Cell]:
        """Numeric cells of a row outside the columns `used` (1-based)."""
        return [
            self.cell(row, c)
            for c in range(1, self.width(row) + 1)
            if c not in used and is_number(self.cell(row, c))
        ]

    def far_warning(self) -> str | None:
        """A warning listing the numbers beyond the columns read, None when there are none."""
        if not self.far:
            return None
        first, rest = self.far[0], [c.ref for c in self.far[1:]]
        also = f" (also {', '.join(rest)})" if rest else ""
        return (
            f"{first.where}: the number {first.text} is beyond column"
            f" {get_column_letter(READ_COLUMNS)} and is not read{also}; an export's values"
            " are in columns A to I"
        )

    def blocks(self) -> list[Block]:
        """Blocks in sheet order: a text in column A starts one (``User Options`` also in
        column B), title-block rows excepted; a block ends where the next starts."""
        starts: list[tuple[int, int]] = []
        for r in range(1, len(self.cells) + 1):
            if self.title_row(r) is not None:
                continue
            if self.text(r, 1):
                starts.append((r, 1))
            elif label_key(self.text(r, 2)) == "useroptions":
                starts.append((r, 2))
        if not starts:  # an empty or notes sheet: no blocks
            return []
        ends = [r for r, _ in starts[1:]] + [len(self.cells) + 1]
        return [Block(self, r, e, c) for (r, c), e in zip(starts, ends, strict=True)]


@dataclass
class Block:
    """Rows first..end-1 of a sheet; the title is in column `col` (A, or B for a
    ``User Options`` written there) of the first row."""

    sheet: Sheet
    first: int
    end: int
    col: int = 1
    stray: list[Cell] = field(default_factory=list)
    """Numbers found beside the columns the block's reader reads (`note_stray`)."""

    @property
    def title_cell(self) -> Cell:
        return self.sheet.cell(self.first, self.col)

    @property
    def title(self) -> str:
        return self.sheet.text(self.first, self.col)

    @property
    def key(self) -> str:
        return label_key(self.title)

    def rows(self) -> list[int]:
        """The block's rows, title-block rows (``Comments:`` ...) left out."""
        return [r for r in range(self.first, self.end) if self.sheet.title_row(r) is None]

    def side_columns(self, default: tuple[int, int] = (3, 7)) -> tuple[int, int]:
        """Columns of the Left and Right values: from the block's 'Left'/'Right' header
        (the title row or the one below), else `default` (C and G as OptimumK writes
        point and Wheels blocks)."""
        for r in (self.first, self.first + 1):
            if r >= self.end:
                break
            cols = {label_key(self.sheet.text(r, c)): c for c in range(2, 12)}
            if "left" in cols and "right" in cols:
                return cols["left"], cols["right"]
        return default

    def outside(self, row: int, used: Collection[int]) -> list[Cell]:
        """Numbers of a row outside `used` columns (the title cell is never one)."""
        keep = {*used, self.col} if row == self.first else set(used)
        return self.sheet.numbers_outside(row, keep)

    def note_stray(self, row: int, used: Collection[int]) -> None:
        """Keep the row's numbers outside `used` for `stray_warning`."""
        self.stray += self.outside(row, used)

    def refuse_unlabelled(self, row: int, what: str) -> None:
        """Error at the first number of a row that has no label in column B: a value whose
        name is missing would otherwise be dropped without a word."""
        found = self.outside(row, ())
        if found:
            fail(
                found[0],
                f"the number {found[0].text} in the {self.title!r} block is on a row with no"
                f" {what} in column B",
                f"write the {what} in column B, or delete the number",
            )

    def stray_warning(self, reads: str) -> str | None:
        """One warning naming the stray numbers (`note_stray`), None when there are none.
        reads: where the block's values are read (for the message)."""
        if not self.stray:
            return None
        first, rest = self.stray[0], [f"{c.ref} ({c.text})" for c in self.stray[1:]]
        also = f" (also {', '.join(rest)})" if rest else ""
        return (
            f"{first.where}: the number {first.text} beside the {self.title!r} block's columns"
            f" is not read{also}; the block's values are read from {reads}"
        )


def read_sheets(path: Path) -> list[Sheet]:
    """Every worksheet of an .xlsx file, its used range read as cells (`READ_COLUMNS`
    columns; numbers further right are kept in `Sheet.far` for a warning)."""
    if path.suffix.lower() != ".xlsx":
        raise WorkbookError(
            f"{path.name} is not an .xlsx file",
            where=str(path),
            hint="export from OptimumK to Excel (.xlsx), or save the file as .xlsx",
        )
    book = Book(path)
    out = []
    for ws in book.values.worksheets:
        n_rows, n_cols = ws.max_row, min(ws.max_column, READ_COLUMNS)
        cells = [[book.cell(ws, r, c) for c in range(1, n_cols + 1)] for r in range(1, n_rows + 1)]
        merged = {(m.min_row, m.min_col): m.max_col for m in ws.merged_cells.ranges}
        far: list[Cell] = []
        if ws.max_column > READ_COLUMNS:
            for r, row in enumerate(ws.iter_rows(min_col=READ_COLUMNS + 1, values_only=True), 1):
                for c, value in enumerate(row, READ_COLUMNS + 1):
                    cell = Cell(book.file, ws.title, r, c, value)
                    if value is not None and is_number(cell):
                        far.append(cell)
        out.append(Sheet(book, ws.title, cells, merged, far))
    return out


# -- User Options -----------------------------------------------------------------------------
def option_rows(block: Block) -> list[list[Cell]]:
    """User Options rows as their non-blank cells, label first: on the title row the cells
    right of the title, on the others every cell from column B (the title may sit in A or
    B, the labels in B or C)."""
    sheet = block.sheet
    out = []
    for r in block.rows():
        first = block.col + 1 if r == block.first else 2
        cells = [sheet.cell(r, c) for c in range(first, max(sheet.width(r), first) + 1)]
        cells = [c for c in cells if not c.blank]
        if cells:
            out.append(cells)
    return out


def unit_of(label: Cell, values: Sequence[Cell], kind: units.Kind) -> str:
    """The unit named beside a label (OptimumK writes the word and its symbol)."""
    for cell in values[:2]:
        try:
            return units.canonical_unit(cell.text or "", kind)
        except units.UnitError:
            continue
    where = values[0] if values else label
    fail(
        where,
        f"unknown {kind} unit {where.text if values else ''!r}",
        f"valid: {', '.join(units.unit_names(kind))} (or their names: inch, millimeter, degree)",
    )


# -- the coordinate system ----------------------------------------------------------------------
def matrix_text(values: Sequence[Cell]) -> bool:
    """A cell holding a 3x3 matrix as text (``[[1,0,0] [0,1,0] [0,0,1]]``)."""
    if not values or not isinstance(values[0].value, str):
        return False
    text = clean_matrix_text(values[0].value)
    return "[" in text and len(re.findall(r"[+-]?\d+(?:\.\d*)?", text)) == 9


def clean_matrix_text(text: str) -> str:
    """Excel's escaped carriage returns (``_x000D_``), CR and LF as spaces."""
    return re.sub(r"_x000[dD]_|[\r\n]", " ", text)


def read_matrix(label: Cell, values: Sequence[Cell], below: Sequence[Sequence[Cell]]) -> Matrix:
    """A 3x3 matrix of numbers: three beside its label and three on each of the next two
    rows; a fourth number on a row is an error (it would be dropped)."""
    rows: list[list[float]] = []
    for k, cells in enumerate([values, *below][:3]):
        found = [c for c in cells if is_number(c)]
        if len(found) < 3 or (k > 0 and not is_number(cells[0])):
            where = cells[0] if cells else label
            fail(
                where,
                "the coordinate-system matrix needs 3 rows of 3 numbers, found "
                + ", ".join(repr(c.text) for c in cells),
                "write the matrix beside its label and on the two rows below, or '+X -Y +Z'",
            )
        if len(found) > 3:
            fail(
                found[3],
                f"a row of the coordinate-system matrix holds {len(found)} numbers, not 3",
                "delete the extra number",
            )
        rows.append([float(number(c, "coordinate-system matrix entry") or 0.0) for c in found])
    if len(rows) < 3:
        fail(label, "the coordinate-system matrix needs 3 rows", "write 3 rows of 3 numbers")
    return validate_matrix(rows, label.where)


def parse_matrix_text(text: str, where: str) -> Matrix:
    """Short form ``+X -Y +Z`` (model X, Y, Z as signed file axes) or a matrix written as
    text (``[[1 0 0] [0 -1 0] [0 0 1]]``, commas or spaces, Excel's ``_x000D_`` escapes,
    CR/LF); a reflection is allowed."""
    text = clean_matrix_text(text)
    if re.fullmatch(r"[\s\[\](),;0-9+\-.]+", text):
        numbers = [float(n) for n in re.findall(r"[+-]?\d+(?:\.\d*)?", text)]
        if len(numbers) == 9:
            return validate_matrix([numbers[0:3], numbers[3:6], numbers[6:9]], where)
    tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    rows: list[list[float]] = []
    for token in tokens:
        m = re.fullmatch(r"([+-]?)([XYZ])", token, flags=re.IGNORECASE)
        if m is None:
            break
        row = [0.0, 0.0, 0.0]
        row["XYZ".index(m.group(2).upper())] = -1.0 if m.group(1) == "-" else 1.0
        rows.append(row)
    if len(rows) != 3 or len(tokens) != 3:
        raise WorkbookError(
            f"cannot read the coordinate system {text!r}",
            where=where,
            hint="write model X (forward), Y (left), Z (up) as signed file axes, e.g. '+X -Y +Z'"
            " for a file whose lateral axis points right",
        )
    return validate_matrix(rows, where)


def validate_matrix(rows: Sequence[Sequence[float]], where: str) -> Matrix:
    """A signed permutation (rotation or reflection) as ints; WorkbookError otherwise."""
    shown = units.format_matrix(rows)
    ok = all(v in (-1, 0, 1) for r in rows for v in r) and all(
        sum(1 for v in rows[i] if v) == 1 and sum(1 for r in rows if r[i]) == 1 for i in range(3)
    )
    if not ok:
        raise WorkbookError(
            f"the coordinate system {shown} is not a signed permutation",
            where=where,
            hint="every row and column needs exactly one +1 or -1",
        )
    a, b, c = (tuple(int(v) for v in r) for r in rows)
    return ((a[0], a[1], a[2]), (b[0], b[1], b[2]), (c[0], c[1], c[2]))
