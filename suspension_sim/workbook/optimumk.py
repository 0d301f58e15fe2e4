"""Read OptimumKinematics suspension and vehicle exports (.xlsx) into a `Car`.

Layout read (docs/optimumk.md, with the evidence it rests on): one sheet per
suspension, a title block (``Name:``, ``Type:`` ... in column B), then blocks,
each named in column A on its first row: ``User Options`` (Length and Angle
units, optionally the coordinate system), ``Double A-Arm`` and ``Push Pull``
(a point per row: name in B, Left X/Y/Z, a blank column, Right X/Y/Z),
``Wheels`` (a field per row: name in B, Left and Right values),
``Attachment`` (what the push/pull rod is attached to), ``Rack Pinion``
(Steering Ratio, rack travel per steering-wheel turn). A vehicle setup sheet
gives the Reference Distance between the front and rear suspension origins.

Everything is converted once, here, to mm, rad and the model frame (ISO 8855,
+X forward, +Y left, +Z up, ground z = 0): the file's units, its axis map
(which may be a reflection: some teams' files have lateral + to the right),
the rear origin shifted back by the Reference Distance and each axle down by
its Vertical Offset. OptimumK has no wheel-centre point: the wheel centre and a
spin-axis point are built from Half Track, Longitudinal/Vertical Offset,
Static Camber, Static Toe and Tire Diameter by OptimumK's own definitions
(`wheel_points`). OptimumK's point names are kept, prefixed by the corner
(``FL_CHAS_LowFor``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from suspension_sim import units
from suspension_sim.description import (
    CHASSIS,
    Body,
    Car,
    Damper,
    Options,
    Point,
    Rack,
    Wheel,
)
from suspension_sim.errors import WorkbookError
from suspension_sim.tolerances import MAX_COORDINATE_MM
from suspension_sim.workbook.cells import Book, Cell, fail, number

Axle = Literal["front", "rear"]
Side = Literal["L", "R"]
Vec = tuple[float, float, float]
Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]

IDENTITY: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))

# -- what the importer knows ------------------------------------------------------------
DOUBLE_A_ARM_POINTS: tuple[str, ...] = (
    "CHAS_LowFor",
    "CHAS_LowAft",
    "CHAS_UppFor",
    "CHAS_UppAft",
    "UPRI_LowPnt",
    "UPRI_UppPnt",
    "CHAS_TiePnt",
    "UPRI_TiePnt",
)
"""Points of the Double A-Arm block (wishbones, ball joints, tie rod)."""

PUSH_PULL_POINTS: tuple[str, ...] = (
    "NSMA_PPAttPnt",
    "ROCK_RodPnt",
    "CHAS_RocAxi",
    "CHAS_RocPiv",
    "ROCK_CoiPnt",
    "CHAS_AttPnt",
)
"""Points of the Push Pull block; OptimumK writes them with an ``_L`` suffix."""

WHEEL_FIELDS: dict[str, str] = {
    "halftrack": "Half Track",
    "longitudinaloffset": "Longitudinal Offset",
    "lateraloffset": "Lateral Offset",
    "verticaloffset": "Vertical Offset",
    "staticcamber": "Static Camber",
    "statictoe": "Static Toe",
    "rimdiameter": "Rim Diameter",
    "tirediameter": "Tire Diameter",
    "tyrediameter": "Tire Diameter",
    "tirewidth": "Tire Width",
    "tyrewidth": "Tire Width",
}
"""Fields of the Wheels block (matched without case, spaces or punctuation)."""

REQUIRED_WHEEL_FIELDS = ("Half Track", "Static Camber", "Static Toe", "Tire Diameter", "Tire Width")

AXIS_LABELS = frozenset(
    {
        "coordinatesystem",
        "coordinatematrix",
        "coordinates",
        "axissystem",
        "axismatrix",
        "axismap",
        "axes",
        "axis",
        "referential",
        "referenceaxis",
        "referenceaxes",
    }
)
"""User Options labels of the coordinate-system matrix."""

KNOWN_BLOCKS: dict[str, str] = {
    "useroptions": "User Options",
    "doubleaarm": "Double A-Arm",
    "pushpull": "Push Pull",
    "wheels": "Wheels",
    "attachment": "Attachment",
    "rackpinion": "Rack Pinion",
    "rackandpinion": "Rack Pinion",
    "stiffness": "Stiffness",
}
"""Blocks of a suspension sheet the importer reads (Stiffness is read past: spring rates
are not geometry). A vehicle setup sheet holds a ``Setup`` block (`read_setup`)."""

ANTI_ROLL_BAR_BLOCKS = ("ubar", "tbar", "antirollbar", "swaybar")
"""Blocks of anti-roll bars (key prefixes): an error naming the cell (not read yet), or,
with skip_anti_roll_bars, left out with a warning."""

MEMBERS: dict[str, str] = {
    "upper": "UpperAArm",
    "lower": "LowerAArm",
    "upright": "Upright",
    "chassis": "Chassis",
}
"""Words of an attachment -> our body suffix."""

MAX_STATIC_ANGLE = math.radians(30.0)
"""Largest static camber or toe accepted (rad): beyond it the angle unit is probably wrong."""

WHEEL_AXIS_OFFSET_MM = 50.0
"""The spin-axis point is this far inboard of the wheel centre (any point on the axis works)."""

SUPPORTED = (
    "Double A-Arm with a Push Pull rod (to a rocker and a coilover) attached to an A-arm or"
    " the upright, Rack Pinion steering or a tie rod fixed to the chassis or an A-arm"
)


def _key(text: str) -> str:
    """Case-, space- and punctuation-insensitive key (``Double A-Arm`` -> ``doubleaarm``)."""
    return re.sub(r"[^a-z0-9]", "", text.casefold())


def _point_key(text: str) -> str:
    """Key of a point name without OptimumK's ``_L`` suffix."""
    return _key(re.sub(r"_[LR]$", "", text.strip(), flags=re.IGNORECASE))


_POINT_NAMES = {_point_key(n): n for n in (*DOUBLE_A_ARM_POINTS, *PUSH_PULL_POINTS)}


# -- sheets and blocks ------------------------------------------------------------------
@dataclass
class _Sheet:
    """One sheet's cells (1-based rows and columns, like Excel)."""

    book: Book
    title: str
    cells: list[list[Cell]]

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

    def blocks(self) -> list[_Block]:
        """Blocks in sheet order: a text in column A starts one, it ends where the next starts."""
        starts = [r for r in range(1, len(self.cells) + 1) if self.text(r, 1)]
        if not starts:  # an empty or notes sheet: no blocks
            return []
        ends = [*starts[1:], len(self.cells) + 1]
        return [_Block(self, r, e) for r, e in zip(starts, ends, strict=True)]


@dataclass
class _Block:
    """Rows first..end-1 of a sheet; the title is in column A of the first row."""

    sheet: _Sheet
    first: int
    end: int

    @property
    def title_cell(self) -> Cell:
        return self.sheet.cell(self.first, 1)

    @property
    def title(self) -> str:
        return self.sheet.text(self.first, 1)

    @property
    def key(self) -> str:
        return _key(self.title)

    def rows(self) -> range:
        return range(self.first, self.end)

    def side_columns(self) -> tuple[int, int]:
        """Columns of the Left and Right values: from the block's 'Left'/'Right' header
        (the title row or the one below), else C and G as OptimumK writes them."""
        for r in (self.first, self.first + 1):
            if r >= self.end:
                break
            cols = {_key(self.sheet.text(r, c)): c for c in range(2, 12)}
            if "left" in cols and "right" in cols:
                return cols["left"], cols["right"]
        return 3, 7


# -- what one suspension sheet says -----------------------------------------------------------
@dataclass
class _Field:
    """A value read from a cell (file units)."""

    value: float
    cell: Cell


@dataclass
class AxleExport:
    """One OptimumK suspension sheet, as written (its own units and axes)."""

    sheet: str
    name: str
    length_unit: str = "mm"
    angle_unit: str = "deg"
    axis_map: Matrix = IDENTITY
    """``model = axis_map @ file`` (a signed permutation; a reflection is allowed)."""
    axis_cell: Cell | None = None
    points: dict[str, dict[Side, tuple[Vec, Cell]]] = field(default_factory=dict)
    """Canonical point name -> side -> (x, y, z in file units and axes, the name's cell)."""
    wheels: dict[Side, dict[str, _Field]] = field(default_factory=dict)
    steering_ratio: _Field | None = None
    has_rack: bool = False
    rack_cell: Cell | None = None
    push_pull_on: tuple[str, Cell] | None = None
    tie_rod_on: tuple[str, Cell] | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class VehicleSetup:
    """The vehicle setup sheet: Reference Distance (mm) and what else we use."""

    name: str | None = None
    reference_distance_mm: float | None = None
    cg_height_mm: float | None = None
    front_brake_share: float | None = None


# -- public API -----------------------------------------------------------------------------
def read_optimumk(
    source: str | Path,
    *,
    rear: str | Path | None = None,
    vehicle: str | Path | None = None,
    axle: Axle | None = None,
    axes: str | None = None,
    reference_distance_mm: float | None = None,
    name: str | None = None,
    skip_anti_roll_bars: bool = False,
) -> Car:
    """Build a `Car` (mm, model frame) from OptimumK exports.

    source: a suspension export (the `axle` given; None: the axle its sheet name or
    title block says, "front" when a rear file is given too), or a vehicle export with its
    suspension sheets (names with 'front'/'rear') and its setup sheet. rear: the
    rear suspension export. vehicle: the vehicle setup export (its Reference
    Distance places the rear origin). axes: overrides every file's coordinate
    system, ``model = M @ file`` in the short form (``"+X -Y +Z"``, reflections
    allowed). reference_distance_mm overrides the setup's. skip_anti_roll_bars: import
    a car whose files hold a U-bar or T-bar without it (a warning names it; otherwise
    it is an error, as any element we cannot import). WorkbookError naming
    the file, sheet and cell for anything that cannot be imported.
    """
    override = _parse_matrix_text(axes, "--axes") if axes is not None else None
    if axle is None and rear is not None:
        axle = "front"
    front_sheet, rear_sheet, setup_sheets = _classify(_sheets(Path(source)), axle)
    if rear is not None:
        if rear_sheet is not None:
            raise WorkbookError(
                f"{Path(source).name} already holds a rear suspension (sheet"
                f" {rear_sheet.title!r}), and a rear file was given too",
                where=str(rear),
                hint="give the rear suspension once",
            )
        if front_sheet is None:
            raise WorkbookError(
                "a rear file was given, but the first file is not a front suspension",
                where=str(source),
                hint="give the front suspension first: SUSPENSION.xlsx --rear REAR.xlsx",
            )
        rear_sheets = _sheets(Path(rear))
        found = [s for s in rear_sheets if _is_suspension(s) and not _is_setup(s)]
        if len(found) != 1:
            raise WorkbookError(
                f"the rear file holds {len(found)} suspension sheets; it needs one",
                where=str(rear),
                hint="give OptimumK's export of the rear suspension alone",
            )
        rear_sheet = found[0]
        setup_sheets += [s for s in rear_sheets if _is_setup(s)]
    if vehicle is not None:
        sheets = _sheets(Path(vehicle))
        found = [s for s in sheets if _is_setup(s)]
        if not found:
            raise WorkbookError(
                "no vehicle setup found: no sheet has a 'Reference Distance' row",
                where=str(vehicle),
                hint="give OptimumK's vehicle setup export (Setup block with Reference Distance)",
            )
        setup_sheets = found + setup_sheets
    exports: dict[Axle, AxleExport] = {}
    if front_sheet is not None:
        exports["front"] = read_axle(front_sheet, skip_anti_roll_bars)
    if rear_sheet is not None:
        exports["rear"] = read_axle(rear_sheet, skip_anti_roll_bars)
    if not exports:
        raise WorkbookError(
            "no suspension found: no sheet has a 'Double A-Arm' block in column A",
            where=str(source),
            hint="give OptimumK's suspension export (.xlsx)",
        )
    if override is not None:
        for e in exports.values():
            e.axis_map, e.axis_cell = override, None
    setup = read_setup(setup_sheets[0]) if setup_sheets else VehicleSetup()
    if reference_distance_mm is not None:
        setup.reference_distance_mm = reference_distance_mm
    if "rear" in exports and "front" in exports and setup.reference_distance_mm is None:
        raise WorkbookError(
            "the rear suspension has its own origin, placed by the vehicle setup's Reference"
            " Distance, and no vehicle setup was given",
            where=str(rear or source),
            hint="pass the vehicle setup export (--vehicle VEHICLE.xlsx) or"
            " --reference-distance MM",
        )
    car_name = name or setup.name or next(iter(exports.values())).name or Path(source).stem
    return build_car(exports, setup, car_name)


# -- files and sheets ---------------------------------------------------------------------------
def _sheets(path: Path) -> list[_Sheet]:
    """Every worksheet of an .xlsx file, its used range read as cells."""
    if path.suffix.lower() != ".xlsx":
        raise WorkbookError(
            f"{path.name} is not an .xlsx file",
            where=str(path),
            hint="export from OptimumK to Excel (.xlsx), or save the file as .xlsx",
        )
    book = Book(path)
    out = []
    for ws in book.values.worksheets:
        n_rows, n_cols = ws.max_row, min(ws.max_column, 30)
        cells = [[book.cell(ws, r, c) for c in range(1, n_cols + 1)] for r in range(1, n_rows + 1)]
        out.append(_Sheet(book, ws.title, cells))
    return out


def _is_setup(sheet: _Sheet) -> bool:
    return any(
        _key(sheet.text(r, 2)) == "referencedistance" for r in range(1, len(sheet.cells) + 1)
    )


SUSPENSION_BLOCKS = frozenset({"doubleaarm", "pushpull", "wheels", "attachment", "rackpinion"})


def _is_suspension(sheet: _Sheet) -> bool:
    """A sheet with a suspension block, or with User Options and some other block (an
    element type the importer will name in its error); a notes sheet is neither."""
    keys = {b.key for b in sheet.blocks()}
    return bool(keys & SUSPENSION_BLOCKS) or (
        "useroptions" in keys and bool(keys - {"useroptions", "setup"})
    )


def _axle_named(sheet: _Sheet) -> Axle:
    """The axle a lone suspension sheet says it is: its title, else a 'front'/'rear' word
    in its title block (the Name row). WorkbookError when it says neither or both."""
    texts = [sheet.title] + [
        sheet.text(r, c) for r in range(1, min(len(sheet.cells), 12) + 1) for c in (1, 2, 3)
    ]
    for text in texts:
        words = set(re.findall(r"[a-z]+", text.casefold()))
        found = {"front", "rear"} & words
        if len(found) == 1:
            return "front" if "front" in found else "rear"
    raise WorkbookError(
        f"cannot tell whether sheet {sheet.title!r} is the front or the rear suspension:"
        " neither its name nor its title block says",
        where=f"{sheet.book.file}: {sheet.title}",
        hint="pass --axle front or --axle rear",
    )


def _classify(
    sheets: Sequence[_Sheet], axle: Axle | None
) -> tuple[_Sheet | None, _Sheet | None, list[_Sheet]]:
    """(front suspension, rear suspension, setup sheets) of a file. A lone suspension
    sheet is the `axle` given, or the axle its name says (None)."""
    setups = [s for s in sheets if _is_setup(s)]
    susp = [s for s in sheets if _is_suspension(s) and s not in setups]
    if len(susp) <= 1:
        lone = susp[0] if susp else None
        if lone is not None and axle is None:
            axle = _axle_named(lone)
        return (lone, None, setups) if axle == "front" else (None, lone, setups)
    front = [s for s in susp if "front" in s.title.casefold()]
    rear = [s for s in susp if "rear" in s.title.casefold()]
    if len(front) != 1 or len(rear) != 1 or len(susp) != 2:
        titles = ", ".join(repr(s.title) for s in susp)
        raise WorkbookError(
            f"{len(susp)} suspension sheets ({titles}); cannot tell front from rear",
            where=susp[0].book.file,
            hint="name one sheet with 'Front' and one with 'Rear', or give them as separate"
            " files (SUSPENSION.xlsx --rear REAR.xlsx)",
        )
    return front[0], rear[0], setups


# -- one suspension sheet ------------------------------------------------------------------------
def read_axle(sheet: _Sheet, skip_anti_roll_bars: bool = False) -> AxleExport:
    """Read one suspension sheet (file units and axes; see the module docstring)."""
    name = ""
    for r in range(1, len(sheet.cells) + 1):
        if _key(sheet.text(r, 2)) == "name":
            name = sheet.text(r, 3)
            break
    export = AxleExport(sheet=sheet.title, name=name)
    blocks = sheet.blocks()
    seen: dict[str, Cell] = {}
    for block in blocks:
        key = block.key
        canonical = KNOWN_BLOCKS.get(key)
        if canonical is None and key.startswith(ANTI_ROLL_BAR_BLOCKS):
            names = [sheet.text(r, 2) for r in block.rows() if _is_point_row(sheet, r, block)]
            if not skip_anti_roll_bars:
                fail(
                    block.title_cell,
                    f"the anti-roll bar {block.title!r} cannot be imported yet: the importer"
                    " does not read OptimumK's bar blocks",
                    "import the car without it with skip_anti_roll_bars=True (the bar adds no"
                    " kinematic constraint, so the kinematics are unchanged), then add the bar"
                    " in the workbook's Anti-roll Bars section (docs/workbook.md)",
                )
            export.warnings.append(
                f"{block.title_cell.where}: anti-roll bar block {block.title!r} not imported"
                f" (points {', '.join(names) or 'none'}): the importer does not read bar"
                " blocks yet; the kinematics without the bar are unchanged (add the bar in"
                " the Anti-roll Bars section)"
            )
            continue
        if canonical is None:
            fail(
                block.title_cell,
                f"the element type {block.title!r} cannot be imported yet",
                f"supported: {SUPPORTED}; build this suspension in a workbook by hand"
                " (docs/workbook.md), or remove the block from a copy of the export if it"
                " carries no kinematic element",
            )
        if canonical in seen:
            fail(
                block.title_cell,
                f"a second {canonical!r} block (the first is at {seen[canonical].ref})",
                "an export has each block once",
            )
        seen[canonical] = block.title_cell
        if canonical == "User Options":
            _read_options(block, export)
        elif canonical in ("Double A-Arm", "Push Pull"):
            _read_points(block, export, canonical)
        elif canonical == "Wheels":
            _read_wheels(block, export)
        elif canonical == "Attachment":
            _read_attachment(block, export)
        elif canonical == "Rack Pinion":
            _read_rack(block, export)
        elif canonical == "Stiffness":
            export.warnings.append(
                f"{block.title_cell.where}: Stiffness block not imported (spring and bar rates"
                " are not part of the kinematic car)"
            )
    for needed in ("Double A-Arm", "Push Pull", "Wheels"):
        if needed not in seen:
            _missing_block(sheet, needed)
    if export.push_pull_on is None:
        _missing_block(sheet, "Attachment", "with a 'Push Pull' row (what the rod is attached to)")
    return export


def _missing_block(sheet: _Sheet, block: str, detail: str = "") -> None:
    titles = [b.title for b in sheet.blocks()]
    raise WorkbookError(
        f"no {block!r} block {detail}".rstrip()
        + f" (blocks found in column A: {', '.join(map(repr, titles)) or 'none'})",
        where=sheet.label,
        hint="export the whole suspension from OptimumK; the importer needs the Double A-Arm,"
        " Push Pull, Wheels and Attachment blocks",
    )


def _is_point_row(sheet: _Sheet, r: int, block: _Block) -> bool:
    label = _key(sheet.text(r, 2))
    return bool(label) and label not in ("pointname", "element", "x")


def _read_options(block: _Block, export: AxleExport) -> None:
    sheet = block.sheet
    ignored: list[str] = []
    for r in block.rows():
        label = _key(sheet.text(r, 2))
        if not label:
            continue
        if label in ("length", "angle"):
            kind: units.Kind = "length" if label == "length" else "angle"
            export_unit = _unit_of(sheet, r, kind)
            if kind == "length":
                export.length_unit = export_unit
            else:
                export.angle_unit = export_unit
        elif label in AXIS_LABELS:
            export.axis_map = _read_matrix(sheet, r)
            export.axis_cell = sheet.cell(r, 2)
        elif sheet.text(r, 2) and not any(r0 < r < r0 + 3 for r0 in _matrix_rows(block)):
            ignored.append(sheet.text(r, 2))
    if ignored:
        export.warnings.append(
            f"{block.title_cell.where}: User Options rows not read: {', '.join(ignored)} (only"
            " Length, Angle and the coordinate system are used)"
        )


def _matrix_rows(block: _Block) -> list[int]:
    """Rows of the User Options block that hold a coordinate-system label."""
    return [r for r in block.rows() if _key(block.sheet.text(r, 2)) in AXIS_LABELS]


def _unit_of(sheet: _Sheet, r: int, kind: units.Kind) -> str:
    """The unit named in column C (or D, OptimumK writes the word and its symbol)."""
    texts = [sheet.cell(r, c) for c in (3, 4) if sheet.text(r, c)]
    for cell in texts:
        try:
            return units.canonical_unit(cell.text or "", kind)
        except units.UnitError:
            continue
    where = texts[0] if texts else sheet.cell(r, 3)
    fail(
        where,
        f"unknown {kind} unit {where.text!r}",
        f"valid: {', '.join(units.unit_names(kind))} (or their names: inch, millimeter, degree)",
    )


def _read_matrix(sheet: _Sheet, r: int) -> Matrix:
    """The coordinate system beside its label: short-form text in C (``+X -Y +Z``) or a
    3x3 matrix of numbers in C:E of this row and the next two."""
    first = sheet.cell(r, 3)
    if isinstance(first.value, str) and not re.fullmatch(r"\s*[+-]?\d+(\.0*)?\s*", first.value):
        return _parse_matrix_text(first.value, first.where)
    rows: list[list[float]] = []
    for rr in range(r, r + 3):
        row = []
        for c in range(3, 6):
            cell = sheet.cell(rr, c)
            v = number(cell, "coordinate-system matrix entry")
            if v is None:
                fail(
                    cell,
                    "the coordinate-system matrix needs 3 rows of 3 numbers (C:E), found a blank",
                    "write the matrix in C:E of its row and the two below, or '+X -Y +Z' in C",
                )
            row.append(v)
        rows.append(row)
    return _validate_matrix(rows, first.where)


def _parse_matrix_text(text: str, where: str) -> Matrix:
    """Short form ``+X -Y +Z`` (model X, Y, Z as signed file axes) or a matrix written as
    text (``[[1 0 0] [0 -1 0] [0 0 1]]``); a reflection is allowed."""
    if re.fullmatch(r"[\s\[\](),;0-9+\-.]+", text):
        numbers = [float(n) for n in re.findall(r"[+-]?\d+(?:\.\d*)?", text)]
        if len(numbers) == 9:
            return _validate_matrix([numbers[0:3], numbers[3:6], numbers[6:9]], where)
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
    return _validate_matrix(rows, where)


def _validate_matrix(rows: Sequence[Sequence[float]], where: str) -> Matrix:
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


def _side_cols(left_col: int, right_col: int) -> tuple[tuple[Side, int], tuple[Side, int]]:
    return (("L", left_col), ("R", right_col))


def _read_points(block: _Block, export: AxleExport, canonical: str) -> None:
    sheet = block.sheet
    left_col, right_col = block.side_columns()
    allowed = DOUBLE_A_ARM_POINTS if canonical == "Double A-Arm" else PUSH_PULL_POINTS
    unit = export.length_unit
    limit = MAX_COORDINATE_MM / units.length_factor(unit)
    for r in block.rows():
        if not _is_point_row(sheet, r, block):
            continue
        name_cell = sheet.cell(r, 2)
        label = name_cell.text or ""
        if _key(label) == "tierodattachment":
            _tie_rod_attachment(sheet, r, export)
            continue
        point = _POINT_NAMES.get(_point_key(label))
        if point is None or point not in allowed:
            fail(
                name_cell,
                f"unknown point {label!r} in the {canonical!r} block",
                f"the {canonical} block holds {', '.join(allowed)}; another element type"
                " cannot be imported yet",
            )
        if point in export.points:
            fail(name_cell, f"point {label!r} is given twice", "keep one row per point")
        sides: dict[Side, tuple[Vec, Cell]] = {}
        for side, col in _side_cols(left_col, right_col):
            xyz = []
            for c in range(col, col + 3):
                cell = sheet.cell(r, c)
                what = f"{'XYZ'[c - col]} of {label} ({'Left' if side == 'L' else 'Right'})"
                v = number(cell, what, limit, unit)
                if v is None:
                    fail(
                        cell,
                        f"{label}: a {'Left' if side == 'L' else 'Right'} coordinate is blank",
                        "OptimumK exports give X, Y and Z of both sides; enter the number",
                    )
                xyz.append(v)
            sides[side] = ((xyz[0], xyz[1], xyz[2]), name_cell)
        export.points[point] = sides
    missing = [p for p in allowed if p not in export.points]
    if missing:
        fail(
            block.title_cell,
            f"the {canonical!r} block lacks {', '.join(missing)}",
            "export the whole suspension from OptimumK",
        )


def _read_wheels(block: _Block, export: AxleExport) -> None:
    sheet = block.sheet
    left_col, right_col = block.side_columns()
    export.wheels = {"L": {}, "R": {}}
    for r in block.rows():
        if not _is_point_row(sheet, r, block):
            continue
        name_cell = sheet.cell(r, 2)
        canonical = WHEEL_FIELDS.get(_key(name_cell.text or ""))
        if canonical is None:
            fail(
                name_cell,
                f"unknown Wheels field {name_cell.text!r}",
                "the importer reads " + ", ".join(dict.fromkeys(WHEEL_FIELDS.values())),
            )
        for side, col in _side_cols(left_col, right_col):
            cell = sheet.cell(r, col)
            v = number(cell, f"{canonical} ({'Left' if side == 'L' else 'Right'})")
            if v is None:
                continue
            export.wheels[side][canonical] = _Field(v, cell)
    for side, col in _side_cols(left_col, right_col):
        for needed in REQUIRED_WHEEL_FIELDS:
            if needed not in export.wheels[side]:
                fail(
                    sheet.cell(block.first, col),
                    f"the Wheels block gives no {needed} for the"
                    f" {'Left' if side == 'L' else 'Right'} wheel",
                    f"add the {needed} row with Left and Right values",
                )


def _member(cell: Cell, what: str, allowed: Sequence[str]) -> str:
    text = _key(cell.text or "")
    for word, member in MEMBERS.items():
        if word in text and member in allowed:
            return member
    fail(
        cell,
        f"{what} attached to {cell.text!r} cannot be imported yet",
        f"supported attachments: {', '.join(allowed)}",
    )


def _read_attachment(block: _Block, export: AxleExport) -> None:
    sheet = block.sheet
    for r in block.rows():
        element = _key(sheet.text(r, 2))
        if not element or element == "element":
            continue
        target = sheet.cell(r, 5) if sheet.text(r, 5) else sheet.cell(r, 4)
        if element == "pushpull":
            export.push_pull_on = (
                _member(target, "the Push Pull rod", ("LowerAArm", "UpperAArm", "Upright")),
                target,
            )
        elif element.startswith(ANTI_ROLL_BAR_BLOCKS):
            continue  # the bar itself is not imported (warned at its block)
        elif element.startswith("tierod"):
            export.tie_rod_on = (
                _member(target, "the tie rod", ("Chassis", "LowerAArm", "UpperAArm")),
                target,
            )
        else:
            fail(
                sheet.cell(r, 2),
                f"attachment of {sheet.text(r, 2)!r} cannot be imported yet",
                "the importer reads the Push Pull (and Tie Rod) attachments",
            )


def _tie_rod_attachment(sheet: _Sheet, r: int, export: AxleExport) -> None:
    cell = sheet.cell(r, 3)
    export.tie_rod_on = (_member(cell, "the tie rod", ("Chassis", "LowerAArm", "UpperAArm")), cell)


def _read_rack(block: _Block, export: AxleExport) -> None:
    sheet = block.sheet
    export.has_rack, export.rack_cell = True, block.title_cell
    for r in block.rows():
        label = _key(sheet.text(r, 2))
        if label == "steeringratio":
            cell = sheet.cell(r, 3)
            v = number(cell, "Steering Ratio (rack travel per steering-wheel turn)")
            if v is not None and v <= 0:
                fail(cell, f"Steering Ratio must be positive, found {v:g}", "enter mm per turn")
            if v is not None:
                export.steering_ratio = _Field(v, cell)
        elif label == "tierodattachment":
            _tie_rod_attachment(sheet, r, export)
        elif label:
            fail(
                sheet.cell(r, 2),
                f"unknown Rack Pinion field {sheet.text(r, 2)!r}",
                "the importer reads the Steering Ratio (rack travel per steering-wheel turn)",
            )


# -- the vehicle setup ----------------------------------------------------------------------------
def read_setup(sheet: _Sheet) -> VehicleSetup:
    """Reference Distance, CG height and brake bias of a vehicle setup sheet (to mm)."""
    length_unit = "mm"
    setup = VehicleSetup()
    for block in sheet.blocks():
        if block.key == "useroptions":
            for r in block.rows():
                if _key(sheet.text(r, 2)) == "length":
                    length_unit = _unit_of(sheet, r, "length")
    factor = units.length_factor(length_unit)
    limit = MAX_COORDINATE_MM / factor
    for r in range(1, len(sheet.cells) + 1):
        label = _key(sheet.text(r, 2))
        cell = sheet.cell(r, 3)
        if label == "name":
            setup.name = cell.text or None
        elif label == "referencedistance":
            v = number(cell, "Reference Distance", limit, length_unit)
            if v is None or v <= 0:
                fail(cell, "the Reference Distance must be a positive length", "enter it")
            setup.reference_distance_mm = units.to_internal(v, factor)
        elif label in ("centerofgravityheight", "centreofgravityheight", "cgheight"):
            v = number(cell, "Center of Gravity Height", limit, length_unit)
            if v is not None and v > 0:
                setup.cg_height_mm = units.to_internal(v, factor)
        elif label == "brakebias":
            v = number(cell, "Brake Bias (percent at the front)")
            if v is not None:
                if not 0 <= v <= 100:
                    fail(cell, f"Brake Bias {v:g} is not a percentage", "enter 0..100")
                if 0 < v <= 1:
                    fail(
                        cell,
                        f"Brake Bias {v:g} reads as {v:g} % at the front: a fraction?",
                        f"enter the front share in percent ({v * 100:g} for {v:g})",
                    )
                setup.front_brake_share = v / 100.0
    return setup


# -- the car --------------------------------------------------------------------------------------
def _apply(m: Matrix, v: Sequence[float]) -> Vec:
    x, y, z = (sum(m[i][j] * v[j] for j in range(3)) for i in range(3))
    return (float(x), float(y), float(z))


def wheel_points(
    half_track: float,
    longitudinal: float,
    camber: float,
    toe: float,
    radius: float,
    side: float,
) -> tuple[Vec, Vec, Vec]:
    """Wheel centre, spin-axis point and contact patch (mm, model frame, ground z = 0)
    from OptimumK's wheel definition (docs/optimumk.md, "The wheel").

    camber, toe: rad in OptimumK's signs (camber - = top inboard; toe + = toe-out, the
    angle between the wheel plane and the X axis). side: +1 left, -1 right. The
    outboard spin axis is s = (-sin toe, side sqrt(1 - sin^2 toe - sin^2 camber),
    -sin camber); the contact patch CP = (longitudinal, side half_track, 0); the
    centre C = CP - r u with u = side unit(s x X), OptimumK's contact-patch direction
    (it points down); the axis point lies `WHEEL_AXIS_OFFSET_MM` inboard of C on s.
    """
    sx, sz = -math.sin(toe), -math.sin(camber)
    s = (sx, side * math.sqrt(1.0 - sx * sx - sz * sz), sz)
    # s x X = (0, s_z, -s_y)
    length = math.hypot(s[1], s[2])
    u = (0.0, side * s[2] / length, -side * s[1] / length)
    cp = (longitudinal, side * half_track, 0.0)
    c = (cp[0] - radius * u[0], cp[1] - radius * u[1], cp[2] - radius * u[2])
    a = tuple(c[i] - WHEEL_AXIS_OFFSET_MM * s[i] for i in range(3))
    return c, (a[0], a[1], a[2]), cp


def build_car(exports: dict[Axle, AxleExport], setup: VehicleSetup, name: str) -> Car:
    """The `Car` of one or two axles (see the module docstring for the conversions)."""
    points: list[Point] = []
    chassis: list[str] = []
    bodies: list[Body] = []
    wheels: list[Wheel] = []
    dampers: list[Damper] = []
    rack: Rack | None = None
    warnings: list[str] = []
    first = exports.get("front") or exports["rear"]
    order: tuple[Axle, Axle] = ("front", "rear")
    for axle_name in order:
        export = exports.get(axle_name)
        if export is None:
            continue
        warnings += export.warnings
        shift_x = 0.0
        if axle_name == "rear" and "front" in exports:
            assert setup.reference_distance_mm is not None
            shift_x = -setup.reference_distance_mm
        corner = _Corner(export, "F" if axle_name == "front" else "R", shift_x)
        corner.check_sides()
        sides: tuple[Side, Side] = ("L", "R")
        for side in sides:
            pts, chas, bods, wheel, damper = corner.build(side)
            points += pts
            chassis += chas
            bodies += bods
            wheels.append(wheel)
            dampers.append(damper)
        if export.has_rack:
            if rack is not None:
                fail(
                    export.rack_cell or export.sheet,
                    "both axles have a Rack Pinion block; the car holds one rack",
                    "import the steered axle with its rack and the other with its tie rods"
                    " fixed (Tierod Attachment: Chassis)",
                )
            rack, rack_body = corner.rack()
            bodies.append(rack_body)
    default = Options()
    options = Options(
        length_unit=first.length_unit,
        angle_unit=first.angle_unit,
        sign_convention="optimumk",
        cg_height_mm=setup.cg_height_mm or default.cg_height_mm,
        front_brake_share=(
            default.front_brake_share
            if setup.front_brake_share is None
            else setup.front_brake_share
        ),
    )
    return Car(
        name=name,
        options=options,
        points=tuple(points),
        bodies=(Body(CHASSIS, tuple(chassis)), *bodies),
        wheels=tuple(wheels),
        rack=rack,
        dampers=tuple(dampers),
        warnings=tuple(warnings),
    )


class _Corner:
    """One axle's export turned into bodies, one side at a time (model frame, mm)."""

    def __init__(self, export: AxleExport, prefix: str, shift_x: float) -> None:
        self.e = export
        self.prefix = prefix
        self.scale = units.length_factor(export.length_unit)
        self.angle = units.angle_factor(export.angle_unit)
        self.m = export.axis_map
        self.shift_x = shift_x
        vo = {s: export.wheels[s].get("Vertical Offset") for s in ("L", "R")}
        left, right = vo["L"], vo["R"]
        if (left.value if left else 0.0) != (right.value if right else 0.0):
            cell = (right or left).cell  # type: ignore[union-attr]
            fail(
                cell,
                "Left and Right Vertical Offsets differ: the two contact patches would not be"
                " on one ground plane",
                "give both sides the same Vertical Offset",
            )
        self.vertical = (left.value if left else 0.0) * self.scale
        for s in ("L", "R"):
            lat = export.wheels[s].get("Lateral Offset")
            if lat is not None and lat.value != 0.0:
                fail(
                    lat.cell,
                    f"Lateral Offset {lat.value:g} is not supported (only 0)",
                    "move the suspension points by the offset instead, or set it to 0 and"
                    " adjust the Half Track",
                )
        # The file's longitudinal coordinate in model X: its axis and sign.
        self.long_sign = float(sum(self.m[0]))

    def model(self, xyz: Vec) -> Vec:
        """File coordinates (file unit and axes) -> model mm, this axle's origin."""
        x, y, z = _apply(self.m, xyz)
        return (
            units.to_internal(x, self.scale) + self.shift_x,
            units.to_internal(y, self.scale),
            units.to_internal(z, self.scale) - self.vertical,
        )

    def name(self, side: Side, point: str) -> str:
        return f"{self.prefix}{side}_{point}"

    def check_sides(self) -> None:
        """After the axis map: Left-column points at +Y (left), Right ones at -Y, the upper
        ball joint above the lower one and the Fore wishbone pivots ahead of the Aft ones
        (OptimumK's names say so), else the coordinate system is wrong."""
        for side in ("L", "R"):
            low, cell = self.e.points["UPRI_LowPnt"][side]
            upp, _ = self.e.points["UPRI_UppPnt"][side]
            fore, fcell = self.e.points["CHAS_LowFor"][side]
            aft, _ = self.e.points["CHAS_LowAft"][side]
            if self.model(upp)[2] <= self.model(low)[2]:
                fail(
                    cell,
                    "the upper ball joint (UPRI_UppPnt) is not above the lower one (UPRI_LowPnt)"
                    " in the model frame: the file's vertical axis points down, or the"
                    " coordinate system is wrong",
                    "give the file's axes (User Options coordinate system, or --axes with"
                    " model X, Y, Z as signed file axes, e.g. '+X +Y -Z')",
                )
            if self.model(fore)[0] <= self.model(aft)[0]:
                fail(
                    fcell,
                    "the fore wishbone pivot (CHAS_LowFor) is not ahead of the aft one"
                    " (CHAS_LowAft) in the model frame: the file's longitudinal axis points"
                    " rearward, or the coordinate system is wrong",
                    "give the file's axes (User Options coordinate system, or --axes with"
                    " model X, Y, Z as signed file axes, e.g. '-X -Y +Z')",
                )
        xyz, cell = self.e.points["UPRI_LowPnt"]["L"]
        if self.model(xyz)[1] <= 0.0:
            fail(
                cell,
                "the Left column's lower ball joint is not on the left (+Y) in the model frame:"
                " the file's lateral axis points right, or the coordinate system is wrong",
                "give the file's axes (User Options coordinate system, or --axes '+X -Y +Z'"
                " for lateral + to the right)",
            )
        xyz, cell = self.e.points["UPRI_LowPnt"]["R"]
        if self.model(xyz)[1] >= 0.0:
            fail(
                cell,
                "the Right column's lower ball joint is not on the right (-Y)",
                "check the Right X/Y/Z columns and the coordinate system",
            )

    def build(self, side: Side) -> tuple[list[Point], list[str], list[Body], Wheel, Damper]:
        e, n = self.e, (lambda p: self.name(side, p))
        corner = f"{self.prefix}{side}"
        pts = [
            Point(n(p), self.model(e.points[p][side][0]), e.points[p][side][1].source)
            for p in (*DOUBLE_A_ARM_POINTS, *PUSH_PULL_POINTS)
        ]
        w = e.wheels[side]
        sgn = 1.0 if side == "L" else -1.0
        radius = units.to_internal(w["Tire Diameter"].value, self.scale) / 2.0
        width = units.to_internal(w["Tire Width"].value, self.scale)
        for fld, v in (("Tire Diameter", radius), ("Tire Width", width)):
            if v <= 0:
                fail(w[fld].cell, f"{fld} must be positive", "enter the tyre's size")
        lon = w.get("Longitudinal Offset")
        longitudinal = self.long_sign * (lon.value if lon else 0.0) * self.scale + self.shift_x
        half = units.to_internal(w["Half Track"].value, self.scale)
        if half <= 0:
            fail(w["Half Track"].cell, "Half Track must be positive", "enter the half track")
        for fld in ("Static Camber", "Static Toe"):
            if abs(w[fld].value * self.angle) > MAX_STATIC_ANGLE:
                fail(
                    w[fld].cell,
                    f"{fld} {w[fld].value:g} {self.e.angle_unit} is not a static wheel angle"
                    f" (at most {math.degrees(MAX_STATIC_ANGLE):g} deg)",
                    "check the value and the Angle unit in User Options",
                )
        c, a, _cp = wheel_points(
            half,
            longitudinal,
            w["Static Camber"].value * self.angle,
            w["Static Toe"].value * self.angle,
            radius,
            sgn,
        )
        src = w["Half Track"].cell.source
        pts += [Point(f"{corner}_WheelCentre", c, src), Point(f"{corner}_WheelAxis", a, src)]

        pp_on = e.push_pull_on[0] if e.push_pull_on else "LowerAArm"
        tie_on = e.tie_rod_on[0] if e.tie_rod_on else "Chassis"
        lower = [n("CHAS_LowFor"), n("CHAS_LowAft"), n("UPRI_LowPnt")]
        upper = [n("CHAS_UppFor"), n("CHAS_UppAft"), n("UPRI_UppPnt")]
        upright = [
            n("UPRI_UppPnt"),
            n("UPRI_LowPnt"),
            n("UPRI_TiePnt"),
            f"{corner}_WheelCentre",
            f"{corner}_WheelAxis",
        ]
        chassis = [
            n("CHAS_LowFor"),
            n("CHAS_LowAft"),
            n("CHAS_UppFor"),
            n("CHAS_UppAft"),
            n("CHAS_RocAxi"),
            n("CHAS_RocPiv"),
            n("CHAS_AttPnt"),
        ]
        {"LowerAArm": lower, "UpperAArm": upper, "Upright": upright}[pp_on].append(
            n("NSMA_PPAttPnt")
        )
        if not e.has_rack:
            {"Chassis": chassis, "LowerAArm": lower, "UpperAArm": upper}[tie_on].append(
                n("CHAS_TiePnt")
            )
        src_of = {p: e.points[p][side][1].source for p in e.points}
        bodies = [
            Body(f"{corner}_LowerAArm", tuple(lower), src_of["CHAS_LowFor"]),
            Body(f"{corner}_UpperAArm", tuple(upper), src_of["CHAS_UppFor"]),
            Body(f"{corner}_Upright", tuple(upright), src_of["UPRI_UppPnt"]),
            Body(f"{corner}_TieRod", (n("CHAS_TiePnt"), n("UPRI_TiePnt")), src_of["CHAS_TiePnt"]),
            Body(
                f"{corner}_PushPull",
                (n("NSMA_PPAttPnt"), n("ROCK_RodPnt")),
                src_of["NSMA_PPAttPnt"],
            ),
            Body(
                f"{corner}_Rocker",
                (n("CHAS_RocAxi"), n("CHAS_RocPiv"), n("ROCK_RodPnt"), n("ROCK_CoiPnt")),
                src_of["CHAS_RocAxi"],
            ),
            Body(f"{corner}_Coilover", (n("CHAS_AttPnt"), n("ROCK_CoiPnt")), src_of["CHAS_AttPnt"]),
        ]
        wheel = Wheel(
            corner,
            f"{corner}_Upright",
            f"{corner}_WheelCentre",
            f"{corner}_WheelAxis",
            radius,
            width,
            n("UPRI_LowPnt"),
            n("UPRI_UppPnt"),
            src,
        )
        damper = Damper(
            f"{corner}_Coilover", n("CHAS_AttPnt"), n("ROCK_CoiPnt"), source=src_of["CHAS_AttPnt"]
        )
        return pts, chassis, bodies, wheel, damper

    def rack(self) -> tuple[Rack, Body]:
        """The rack: prismatic between the two inner tie-rod points (left end first)."""
        ends = (self.name("L", "CHAS_TiePnt"), self.name("R", "CHAS_TiePnt"))
        ratio = None
        if self.e.steering_ratio is not None:
            ratio = units.to_internal(self.e.steering_ratio.value, self.scale) / 360.0
        src = self.e.rack_cell.source if self.e.rack_cell else None
        return Rack("Rack", ends, ratio, source=src), Body("Rack", ends, src)
