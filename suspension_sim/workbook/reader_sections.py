"""The shared part of reading a car workbook: its state, lengths in the workbook's
unit, User Options, and the cells left below a section's range.

`SectionReader` is the base of the reader classes (`reader_bodies`, `reader_dampers`,
`reader_bars`, and `reader`'s `read_car`, which reads the sections in dependency
order); each of them checks one group of sections. Lengths are range-checked in the
workbook's unit at their own cell, then converted to mm (`suspension_sim.units`).
Every problem is a `WorkbookError` naming ``file: Sheet!Cell``.
"""

from __future__ import annotations

import math
from typing import Any

from suspension_sim import units
from suspension_sim.description import Body, Options
from suspension_sim.names import did_you_mean
from suspension_sim.tolerances import MAX_COORDINATE_MM, SAME_PLACE_MM
from suspension_sim.workbook.cells import (
    Book,
    Cell,
    Table,
    column_letter,
    fail,
    norm,
    number,
    positive,
    records,
)
from suspension_sim.workbook.schema import (
    OPTION_NAMES,
    OPTIONS,
    SECTION_COLUMNS,
    SYMMETRY,
    USER_OPTIONS,
    OptionSpec,
)


def coincide(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Two model-frame points closer than `SAME_PLACE_MM`."""
    return math.dist(a, b) < SAME_PLACE_MM


class SectionReader:
    """Reads one workbook's sections: the state the section readers share, lengths,
    User Options and the checks of the section ranges themselves."""

    def __init__(self, book: Book, tables: dict[str, Table]):
        self.book = book
        self.tables = tables
        self.warnings: list[str] = []
        self.options = Options()
        self.name = book.path.stem
        self.ref_point_cell: Cell | None = None
        self.point_cells: dict[str, Cell] = {}
        self.xyz: dict[str, tuple[float, float, float]] = {}
        self.bodies: dict[str, Body] = {}
        self.body_cells: dict[str, Cell] = {}
        self.symmetry = False
        self.twins: set[str] = set()
        """Names of the points that Symmetry generated."""

    @property
    def factor(self) -> float:
        return units.length_factor(self.options.length_unit)

    @property
    def length_limit(self) -> float:
        """`MAX_COORDINATE_MM` in the workbook's length unit: no length of a car is larger."""
        return MAX_COORDINATE_MM / self.factor

    def length(self, cell: Cell | None, what: str) -> float | None:
        """A length cell in the workbook's unit, as mm (None when blank); range-checked
        against `MAX_COORDINATE_MM` before it is converted."""
        value = number(cell, what, self.length_limit, self.options.length_unit)
        return None if value is None else units.to_internal(value, self.factor)

    def required_length(self, cell: Cell | None, what: str, fallback: Cell) -> float:
        """A positive length that must be given, as mm."""
        value = self.length(cell, what)
        if value is None:
            fail(cell or fallback, f"{what} is blank", "enter it in the workbook's length unit")
        positive(cell, value, what)
        return value

    # -- User Options --------------------------------------------------------------
    def read_options(self, table: Table) -> None:
        """The given options over the `Options` defaults; units and axis map first, since
        the length options are in the length unit."""
        cells = self.option_cells(table)
        given = [
            (spec, cells[spec.name])
            for spec in OPTIONS
            if spec.name in cells and not cells[spec.name].blank
        ]
        frame = ("unit", "axis map")
        kwargs: dict[str, Any] = {}
        for spec, cell in given:
            if spec.kind in frame and spec.field is not None:
                kwargs[spec.field] = self.option_value(spec, cell)
        self.options = Options(**kwargs)
        for spec, cell in given:
            if spec.kind in frame:
                continue
            value = self.option_value(spec, cell)
            if spec.name == SYMMETRY:
                self.symmetry = bool(value)
            elif spec.field is None:
                self.name = value or self.name
            elif value is not None:
                kwargs[spec.field] = value
        self.options = Options(**kwargs)

    def option_value(self, spec: OptionSpec, cell: Cell) -> Any:
        """One option's value from its (non-blank) cell, lengths in mm."""
        option = spec.name
        if spec.kind == "unit":
            assert spec.unit is not None
            try:
                return units.canonical_unit(cell.text or "", spec.unit)
            except units.UnitError as exc:
                fail(cell, str(exc), f"set {option!r} to one of the valid units")
        if spec.kind == "axis map":
            try:
                return units.parse_axis_map(str(cell.value))
            except units.UnitError as exc:
                fail(
                    cell,
                    str(exc),
                    "write the model axes X, Y, Z in workbook axes, e.g. '+Z +X +Y' or"
                    " '[[0 0 1] [1 0 0] [0 1 0]]' (identity: '+X +Y +Z')",
                )
        if spec.kind == "mm":
            value = number(cell, option, MAX_COORDINATE_MM, "mm")
            positive(cell, value, f"{option} (mm)")
            return value
        if spec.kind == "length":
            value = self.length(cell, option)
            positive(cell, value, option)
            return value
        if spec.kind == "fraction":
            value = number(cell, option)
            if value is not None and not 0.0 <= value <= 1.0:
                fail(
                    cell,
                    f"{option} must be between 0 and 1, found {value:g}",
                    "write a fraction: 60 % is 0.6",
                )
            return value
        if spec.kind == "choice":
            word = norm(cell.text or "")
            choices = {norm(w): v for w, v in spec.choices.items()}
            if word not in choices:
                words = ", ".join(spec.choices)
                fail(
                    cell,
                    f"{option} must be one of {words}; found {cell.text!r}",
                    f"write one of: {words}",
                )
            return choices[word]
        if spec.kind == "point":
            self.ref_point_cell = cell
        return cell.text

    def option_cells(self, table: Table) -> dict[str, Cell]:
        """Value cell of each option given, by canonical option name."""
        valid = {norm(n): n for n in OPTION_NAMES}
        found: dict[str, Cell] = {}
        names: dict[str, Cell] = {}
        for rec in records(table, SECTION_COLUMNS[USER_OPTIONS]):
            name_cell, value_cell = rec["Option"], rec["Value"]
            assert name_cell is not None
            text = name_cell.text or ""
            canon = valid.get(norm(text))
            if canon is None:
                fail(
                    name_cell,
                    f"unknown option {text!r}." + did_you_mean(text, OPTION_NAMES),
                    "valid options: " + ", ".join(OPTION_NAMES),
                )
            if canon in names:
                fail(
                    name_cell,
                    f"option {canon!r} is given twice: {names[canon].ref} and {name_cell.ref}",
                    "keep one row per option",
                )
            names[canon] = name_cell
            found[canon] = value_cell if value_cell is not None else name_cell
        return found

    def check_reference_point(self) -> None:
        ref = self.options.chassis_reference_point
        if ref is not None and ref not in self.point_cells:
            assert self.ref_point_cell is not None
            fail(
                self.ref_point_cell,
                f"chassis reference point {ref!r} is not in Hard Points."
                + did_you_mean(ref, self.point_cells),
                "name a point from Hard Points, or leave it blank for the origin",
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
            where = f"{self.book.file}: {table.sheet}!{column_letter(c0)}{r1 + 1}"
            self.warnings.append(
                f"{where}: {value!r} is right below section {table.name!r} but outside its range"
                f" {table.index_cell.text} (not read); extend the range in"
                f" {table.index_cell.sheet}!{table.index_cell.ref} if it belongs to the section"
            )

    @staticmethod
    def inside(table: Table, sheet: str, row: int, col: int) -> bool:
        c0, r0, c1, r1 = table.bounds
        return table.sheet == sheet and r0 <= row <= r1 and c0 <= col <= c1
