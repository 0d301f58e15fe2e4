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
    "referencepoint": "Reference Point",
    "referencepoints": "Reference Point",
    "tierodattachment": "Tierod Attachment",
}
"""Blocks of a suspension sheet the importer reads. A vehicle setup sheet holds a ``Setup``
block (`read_setup`)."""

ANTI_ROLL_BAR_BLOCKS = ("ubar", "tbar", "antirollbar", "swaybar")
"""Blocks of anti-roll bars (key prefixes): an error naming the cell (not read yet), or,
with skip_anti_roll_bars, left out with a warning."""

STIFFNESS_UNITS: dict[str, float] = {
    "N/mm": 1.0,
    "N/m": 1e-3,
    "kN/m": 1.0,
    "kN/mm": 1e3,
    "N/cm": 0.1,
    "lbf/in": 4.4482216152605 / 25.4,
    "lb/in": 4.4482216152605 / 25.4,
}
"""Spring-rate units the importer reads -> N/mm (matched without case or spaces)."""

STIFFNESS_LABELS = frozenset(
    {"stiffness", "linearstiffness", "springstiffness", "springrate", "translationalstiffness"}
)
"""User Options labels of the (linear) stiffness unit."""

MEMBERS: dict[str, str] = {
    "upper": "UpperAArm",
    "lower": "LowerAArm",
    "upright": "Upright",
    "chassis": "Chassis",
    "rocker": "Rocker",
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


@dataclass
class _Sheet:
    """One sheet's cells (1-based rows and columns, like Excel)."""

    book: Book
    title: str
    cells: list[list[Cell]]
    merged: dict[tuple[int, int], int] = field(default_factory=dict)
    """Top-left (row, column) of a merged range -> its last column (openpyxl keeps the value
    in the top-left cell, None in the others)."""

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
            key = _key(self.text(row, col))
            if key in TITLE_LABELS:
                return col, key
            if key:
                return None
        return None

    def title_value(self, key: str) -> str:
        """The value beside a title-block label (``Name:`` ...), '' when absent."""
        for r in range(1, len(self.cells) + 1):
            found = self.title_row(r)
            if found is not None and found[1] == key:
                return self.after(r, found[0]).text or ""
        return ""

    def blocks(self) -> list[_Block]:
        """Blocks in sheet order: a text in column A starts one (``User Options`` also in
        column B), title-block rows excepted; a block ends where the next starts."""
        starts: list[tuple[int, int]] = []
        for r in range(1, len(self.cells) + 1):
            if self.title_row(r) is not None:
                continue
            if self.text(r, 1):
                starts.append((r, 1))
            elif _key(self.text(r, 2)) == "useroptions":
                starts.append((r, 2))
        if not starts:  # an empty or notes sheet: no blocks
            return []
        ends = [r for r, _ in starts[1:]] + [len(self.cells) + 1]
        return [_Block(self, r, e, c) for (r, c), e in zip(starts, ends, strict=True)]


@dataclass
class _Block:
    """Rows first..end-1 of a sheet; the title is in column `col` (A, or B for a
    ``User Options`` written there) of the first row."""

    sheet: _Sheet
    first: int
    end: int
    col: int = 1

    @property
    def title_cell(self) -> Cell:
        return self.sheet.cell(self.first, self.col)

    @property
    def title(self) -> str:
        return self.sheet.text(self.first, self.col)

    @property
    def key(self) -> str:
        return _key(self.title)

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
            cols = {_key(self.sheet.text(r, c)): c for c in range(2, 12)}
            if "left" in cols and "right" in cols:
                return cols["left"], cols["right"]
        return default


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
    stiffness_unit: tuple[str, Cell | None] | None = None
    """The User Options stiffness unit (canonical name, its cell), when stated."""
    force_unit: str = "N"
    springs: dict[Side, float] = field(default_factory=dict)
    """Spring rate on each side's Push Pull coilover, N/mm (Stiffness block)."""
    preloads: dict[Side, float] = field(default_factory=dict)
    """Spring preload on each side, N (Stiffness block)."""
    reference_points: dict[str, dict[Side, tuple[Vec, Cell]]] = field(default_factory=dict)
    """Reference Point block: name (no ``_L``) -> side -> (x, y, z in file units, name cell)."""
    reference_on: tuple[str, Cell] | None = None
    """The body the Reference Point is attached to (`MEMBERS` value) and its cell."""
    reference_cell: Cell | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class VehicleSetup:
    """The vehicle setup sheet: Reference Distance (mm) and what else we use.

    Shares are fractions 0..1 (the sheet gives percent): front_mass_share of the mass on
    the front axle, front_brake_share of the braking at the front, rear_drive_share = 1 -
    Drive Bias (front share of the drive)."""

    name: str | None = None
    reference_distance_mm: float | None = None
    cg_height_mm: float | None = None
    front_brake_share: float | None = None
    rear_drive_share: float | None = None
    front_mass_share: float | None = None
    warnings: list[str] = field(default_factory=list)


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
        merged = {(m.min_row, m.min_col): m.max_col for m in ws.merged_cells.ranges}
        out.append(_Sheet(book, ws.title, cells, merged))
    return out


def _is_setup(sheet: _Sheet) -> bool:
    return any(
        _key(sheet.text(r, c)) == "referencedistance"
        for r in range(1, len(sheet.cells) + 1)
        for c in (1, 2)
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
    export = AxleExport(sheet=sheet.title, name=sheet.title_value("name"))
    blocks = sheet.blocks()
    stiffness: _Block | None = None
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
            stiffness = block  # read last: its unit may come from User Options
        elif canonical == "Reference Point":
            _read_reference_points(block, export)
        elif canonical == "Tierod Attachment":
            _tie_rod_attachment(sheet, block.first, export, block.col)
    if stiffness is not None:
        _read_stiffness(stiffness, export, skip_anti_roll_bars)
    if export.reference_points and export.reference_on is None:
        assert export.reference_cell is not None
        fail(
            export.reference_cell,
            "the Reference Point block gives a point but not the body it is attached to",
            "add its Attachment row (Reference Point | point | Chassis, or the A-arm or upright"
            " it is on)",
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


def _option_rows(block: _Block) -> list[list[Cell]]:
    """User Options rows as their non-blank cells, label first: on the title row the cells
    right of the title, on the others every cell from column B (the title may sit in A or
    B, the labels in B or C)."""
    sheet = block.sheet
    out = []
    for r in block.rows():
        first = block.col + 1 if r == block.first else 2
        width = len(sheet.cells[r - 1]) if r <= len(sheet.cells) else 0
        cells = [sheet.cell(r, c) for c in range(first, max(width, first) + 1)]
        cells = [c for c in cells if not c.blank]
        if cells:
            out.append(cells)
    return out


def _is_number(cell: Cell) -> bool:
    v = cell.value
    if isinstance(v, bool):
        return False
    if isinstance(v, int | float):
        return True
    return bool(re.fullmatch(r"\s*[+-]?\d+(\.\d*)?\s*", str(v)))


def _read_options(block: _Block, export: AxleExport) -> None:
    """Length and Angle units, the stiffness and force units (for the Stiffness block) and
    the coordinate system: a row labelled as one (`AXIS_LABELS` words), or any row whose
    value is a 3x3 matrix written as text."""
    ignored: list[str] = []
    rows = _option_rows(block)
    i = 0
    while i < len(rows):
        label_cell, values = rows[i][0], rows[i][1:]
        label = _key(label_cell.text or "")
        i += 1
        if _is_number(label_cell):
            fail(
                label_cell,
                "a number without a label in User Options (not part of a coordinate-system matrix)",
                "write the matrix beside its label, three numbers on each of three rows",
            )
        if label in ("length", "angle"):
            kind: units.Kind = "length" if label == "length" else "angle"
            export_unit = _unit_of(label_cell, values, kind)
            if kind == "length":
                export.length_unit = export_unit
            else:
                export.angle_unit = export_unit
        elif label == "force":
            export.force_unit = _unit_of(label_cell, values, "force")
        elif label in STIFFNESS_LABELS:
            unit = _stiffness_unit_in(values)
            if unit is None:
                where = values[0] if values else label_cell
                fail(
                    where,
                    f"unknown stiffness unit {where.text!r}",
                    f"valid: {', '.join(STIFFNESS_UNITS)}",
                )
            export.stiffness_unit = unit
        elif label in AXIS_LABELS or _matrix_text(values):
            if label not in AXIS_LABELS:
                export.warnings.append(
                    f"{label_cell.where}: the matrix under {label_cell.text!r} read as the"
                    " coordinate system"
                )
            if values and isinstance(values[0].value, str) and not _is_number(values[0]):
                export.axis_map = _parse_matrix_text(values[0].value, values[0].where)
            else:
                export.axis_map = _read_matrix(label_cell, values, rows[i : i + 2])
                i += 2
            export.axis_cell = label_cell
        else:
            ignored.append(label_cell.text or "")
    if ignored:
        export.warnings.append(
            f"{block.title_cell.where}: User Options rows not read: {', '.join(ignored)} (only"
            " Length, Angle, Force, Stiffness and the coordinate system are used)"
        )


def _matrix_text(values: Sequence[Cell]) -> bool:
    """A cell holding a 3x3 matrix as text (``[[1,0,0] [0,1,0] [0,0,1]]``)."""
    if not values or not isinstance(values[0].value, str):
        return False
    text = _clean_matrix_text(values[0].value)
    return "[" in text and len(re.findall(r"[+-]?\d+(?:\.\d*)?", text)) == 9


def _clean_matrix_text(text: str) -> str:
    """Excel's escaped carriage returns (``_x000D_``), CR and LF as spaces."""
    return re.sub(r"_x000[dD]_|[\r\n]", " ", text)


def _unit_of(label: Cell, values: Sequence[Cell], kind: units.Kind) -> str:
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


def _read_matrix(label: Cell, values: Sequence[Cell], below: Sequence[Sequence[Cell]]) -> Matrix:
    """A 3x3 matrix of numbers: three beside its label and three on each of the next two
    rows."""
    rows: list[list[float]] = []
    for k, cells in enumerate([values, *below][:3]):
        found = [c for c in cells if _is_number(c)][:3]
        if len(found) < 3 or (k > 0 and not _is_number(cells[0])):
            where = cells[0] if cells else label
            fail(
                where,
                "the coordinate-system matrix needs 3 rows of 3 numbers, found "
                + ", ".join(repr(c.text) for c in cells),
                "write the matrix beside its label and on the two rows below, or '+X -Y +Z'",
            )
        rows.append([float(number(c, "coordinate-system matrix entry") or 0.0) for c in found])
    if len(rows) < 3:
        fail(label, "the coordinate-system matrix needs 3 rows", "write 3 rows of 3 numbers")
    return _validate_matrix(rows, label.where)


def _parse_matrix_text(text: str, where: str) -> Matrix:
    """Short form ``+X -Y +Z`` (model X, Y, Z as signed file axes) or a matrix written as
    text (``[[1 0 0] [0 -1 0] [0 0 1]]``, commas or spaces, Excel's ``_x000D_`` escapes,
    CR/LF); a reflection is allowed."""
    text = _clean_matrix_text(text)
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
    """``Element | point | group | member`` rows: the Push Pull rod's and the Reference
    Point's body (member in E, else D), a tie rod's (the cell right of the label)."""
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
        elif element in ("referencepoint", "referencepoints"):
            if not target.text:
                target = sheet.after(r, 2)
            export.reference_on = (
                _member(
                    target,
                    "the Reference Point",
                    ("Chassis", "LowerAArm", "UpperAArm", "Upright", "Rocker"),
                ),
                target,
            )
        elif element.startswith(ANTI_ROLL_BAR_BLOCKS):
            continue  # the bar itself is not imported (warned at its block)
        elif element.startswith("tierod"):
            _tie_rod_attachment(sheet, r, export)
        else:
            fail(
                sheet.cell(r, 2),
                f"attachment of {sheet.text(r, 2)!r} cannot be imported yet",
                "the importer reads the Push Pull, Reference Point and Tie Rod attachments",
            )


def _tie_rod_attachment(sheet: _Sheet, r: int, export: AxleExport, col: int = 2) -> None:
    """``Tierod Attachment`` (label at (r, col)): its value is the next cell to the right."""
    cell = sheet.after(r, col)
    if _key(cell.text or "") in ("doubleaarm", "rackpinion"):  # group, then member
        cell = sheet.after(r, cell.col)
    export.tie_rod_on = (_member(cell, "the tie rod", ("Chassis", "LowerAArm", "UpperAArm")), cell)


def _read_rack(block: _Block, export: AxleExport) -> None:
    sheet = block.sheet
    export.has_rack, export.rack_cell = True, block.title_cell
    for r in block.rows():
        label = _key(sheet.text(r, 2))
        if label == "steeringratio":
            cell = sheet.after(r, 2)
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


def _read_reference_points(block: _Block, export: AxleExport) -> None:
    """The Reference Point block: point rows as in the point blocks (name in B, Left X Y Z,
    a blank column, Right X Y Z; a side left blank is not given), optionally an
    ``Attachment`` row (the body in the next cell). An empty block is skipped."""
    sheet = block.sheet
    export.reference_cell = block.title_cell
    left_col, right_col = block.side_columns()
    limit = MAX_COORDINATE_MM / units.length_factor(export.length_unit)
    for r in block.rows():
        if not _is_point_row(sheet, r, block):
            continue
        name_cell = sheet.cell(r, 2)
        label = name_cell.text or ""
        if _key(label) in ("attachment", "attachedto"):
            target = sheet.after(r, 2)
            allowed = ("Chassis", "LowerAArm", "UpperAArm", "Upright", "Rocker")
            export.reference_on = (_member(target, "the Reference Point", allowed), target)
            continue
        name = re.sub(r"_[LR]$", "", label.strip(), flags=re.IGNORECASE)
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            fail(
                name_cell,
                f"Reference Point name {label!r} is not a point name (letters, digits, _)",
                "rename the point in OptimumK",
            )
        if name in export.reference_points:
            fail(name_cell, f"point {label!r} is given twice", "keep one row per point")
        sides: dict[Side, tuple[Vec, Cell]] = {}
        for side, col in _side_cols(left_col, right_col):
            cells = [sheet.cell(r, c) for c in range(col, col + 3)]
            what = "Left" if side == "L" else "Right"
            values = [
                number(c, f"{'XYZ'[k]} of {label} ({what})", limit, export.length_unit)
                for k, c in enumerate(cells)
            ]
            if all(v is None for v in values):
                continue
            for c, v in zip(cells, values, strict=True):
                if v is None:
                    fail(c, f"{label}: a {what} coordinate is blank", "give X, Y and Z")
            sides[side] = ((values[0] or 0.0, values[1] or 0.0, values[2] or 0.0), name_cell)
        if sides:
            export.reference_points[name] = sides


def _stiffness_unit_in(cells: Sequence[Cell]) -> tuple[str, Cell] | None:
    """The first cell naming a spring-rate unit (``N/mm``, ``[N/m]``, ``Stiffness (N/mm)``)."""
    spellings = {_unit_key(u): u for u in STIFFNESS_UNITS}
    for cell in cells:
        if not isinstance(cell.value, str):
            continue
        for text in [cell.value, *re.findall(r"[\[(]([^\])]*)[\])]", cell.value)]:
            unit = spellings.get(_unit_key(text))
            if unit is not None:
                return unit, cell
    return None


def _unit_key(text: str) -> str:
    return re.sub(r"\s", "", text.casefold()).replace("lbs/", "lb/")


def _read_stiffness(block: _Block, export: AxleExport, skip_anti_roll_bars: bool) -> None:
    """The Stiffness block (layout of a team's real exports, docs/optimumk.md): a row per
    element, its kind in B (``Spring``), the element in C (``Push Pull``), the Left value in
    D and the Right one in H (a ``Left``/``Right`` header moves them); a bar's single value
    in F. Spring rates in the unit the block or User Options states, else N/mm (a warning);
    a ``Preload`` row in the User Options force unit."""
    sheet = block.sheet
    left_col, right_col = block.side_columns(default=(4, 8))
    header = [sheet.cell(r, c) for r in (block.first, block.first + 1) for c in range(2, 12)]
    unit = _stiffness_unit_in(header) or export.stiffness_unit
    for r in block.rows():
        label_cell = sheet.cell(r, 2)
        label = _key(label_cell.text or "")
        row_cells = [sheet.cell(r, c) for c in range(2, 12)]
        if not label or {"left", "right"} & {_key(c.text or "") for c in row_cells}:
            continue
        if label.startswith(ANTI_ROLL_BAR_BLOCKS):
            if not skip_anti_roll_bars:
                fail(
                    label_cell,
                    f"the anti-roll bar stiffness {label_cell.text!r} cannot be imported yet:"
                    " the importer does not read OptimumK's bar blocks",
                    "import the car without the bar with skip_anti_roll_bars=True, then add"
                    " the bar and its rate in the Anti-roll Bars section",
                )
            export.warnings.append(
                f"{label_cell.where}: anti-roll bar stiffness {label_cell.text!r} not imported"
                " (the bar is not imported)"
            )
            continue
        is_spring = label in ("spring", "springs", "coilover", "springrate")
        is_preload = "preload" in label
        if not (is_spring or is_preload):
            fail(
                label_cell,
                f"unknown Stiffness row {label_cell.text!r}",
                "the importer reads the Spring rate (and Preload) of the Push Pull coilovers,"
                " and anti-roll bar rows with skip_anti_roll_bars",
            )
        element = sheet.cell(r, 3)
        if element.text and _key(element.text) not in ("pushpull", "coilover", "spring"):
            fail(
                element,
                f"a spring on {element.text!r} cannot be imported (only on the Push Pull)",
                "the importer reads the coilover spring of the Push Pull element",
            )
        values: dict[Side, tuple[float, Cell]] = {}
        for side, col in _side_cols(left_col, right_col):
            cell = sheet.cell(r, col)
            what = f"{label_cell.text} ({'Left' if side == 'L' else 'Right'})"
            v = number(cell, what)
            if v is not None:
                values[side] = (v, cell)
        if not values:
            fail(
                sheet.cell(r, left_col),
                f"the {label_cell.text!r} row gives no value in its Left and Right cells"
                f" ({sheet.cell(r, left_col).ref}, {sheet.cell(r, right_col).ref})",
                "give both sides' values, or delete the row",
            )
        if len(values) == 1:
            side = "R" if "L" in values else "L"
            col = right_col if side == "R" else left_col
            fail(
                sheet.cell(r, col),
                f"the {label_cell.text!r} row gives one side only",
                "give the Left and the Right value",
            )
        if is_preload:
            factor = units.force_factor(export.force_unit)
            for side, (v, _cell) in values.items():
                export.preloads[side] = v * factor
            continue
        row_unit = _stiffness_unit_in(row_cells[2:])
        if row_unit is not None:
            unit = row_unit
        if unit is None:
            unit = ("N/mm", None)
            export.warnings.append(
                f"{label_cell.where}: the file states no stiffness unit; spring rates read in"
                " N/mm (OptimumK's usual display unit)"
            )
        for side, (v, cell) in values.items():
            if v <= 0:
                fail(cell, f"spring rate must be positive, found {v:g}", "enter the rate")
            export.springs[side] = v * STIFFNESS_UNITS[unit[0]]


# -- the vehicle setup ----------------------------------------------------------------------------
SETUP_NAMES = frozenset({"frontsuspension", "rearsuspension", "vehicle", "setup"})
"""Setup rows naming the suspensions (not numbers)."""


def _percent(cell: Cell, what: str) -> float | None:
    """A percentage 0..100 as a fraction; a value in (0, 1] is refused as a likely
    fraction (60 % written 0.6)."""
    v = number(cell, what)
    if v is None:
        return None
    if not 0 <= v <= 100:
        fail(cell, f"{what} {v:g} is not a percentage", "enter 0..100")
    if 0 < v <= 1:
        fail(
            cell,
            f"{what} {v:g} reads as {v:g} %: a fraction?",
            f"enter the share in percent ({v * 100:g} for {v:g})",
        )
    return v / 100.0


def read_setup(sheet: _Sheet) -> VehicleSetup:
    """Reference Distance, CG height, brake and drive bias, mass distribution of a vehicle
    setup sheet (lengths to mm, percentages to fractions). Labels in B (or A), values in
    the next cell; an unknown numeric row is an error naming its cell."""
    length_unit = "mm"
    setup = VehicleSetup(name=sheet.title_value("name") or None)
    blocks = sheet.blocks()
    for block in blocks:
        if block.key == "useroptions":
            for cells in _option_rows(block):
                if _key(cells[0].text or "") == "length":
                    length_unit = _unit_of(cells[0], cells[1:], "length")
    factor = units.length_factor(length_unit)
    limit = MAX_COORDINATE_MM / factor
    for block in blocks:
        if block.key == "useroptions":
            continue
        for r in block.rows():
            # A Setup block's rows are labelled in B; any other title in A is itself a row
            # label (an unknown one is an error at its cell).
            col = block.col if r == block.first and block.key != "setup" else 2
            label_cell = sheet.cell(r, col)
            label = _key(label_cell.text or "")
            if not label:
                continue
            cell = sheet.after(r, col)
            _setup_row(setup, label, label_cell, cell, limit, length_unit, factor)
    return setup


def _setup_row(
    setup: VehicleSetup,
    label: str,
    label_cell: Cell,
    cell: Cell,
    limit: float,
    length_unit: str,
    factor: float,
) -> None:
    """One row of the Setup block into `setup`."""
    if label in SETUP_NAMES:
        return
    if label == "referencedistance":
        v = number(cell, "Reference Distance", limit, length_unit)
        if v is None or v <= 0:
            fail(cell, "the Reference Distance must be a positive length", "enter it")
        setup.reference_distance_mm = units.to_internal(v, factor)
    elif label in ("centerofgravityheight", "centreofgravityheight", "cgheight"):
        v = number(cell, "Center of Gravity Height", limit, length_unit)
        if v is None or v <= 0:
            fail(cell, "the Center of Gravity Height must be a positive length", "enter it")
        setup.cg_height_mm = units.to_internal(v, factor)
    elif label == "brakebias":
        setup.front_brake_share = _percent(cell, "Brake Bias")
    elif label == "drivebias":
        front = _percent(cell, "Drive Bias")
        setup.rear_drive_share = None if front is None else 1.0 - front
    elif label in ("frontmassdistribution", "massdistributionfront", "frontmass"):
        setup.front_mass_share = _percent(cell, "Front Mass Distribution")
    elif label in ("leftmassdistribution", "massdistributionleft", "leftmass"):
        left = _percent(cell, "Left Mass Distribution")
        if left is not None:
            setup.warnings.append(
                f"{cell.where}: Left Mass Distribution {left * 100:g} % not imported: no"
                " channel of the car uses it (the workbook has no left mass share)"
            )
    else:
        fail(
            label_cell,
            f"unknown Setup row {label_cell.text!r}",
            "the importer reads Reference Distance, Brake Bias, Drive Bias, Front and Left"
            " Mass Distribution and Center of Gravity Height",
        )


# -- the car --------------------------------------------------------------------------------------
def _apply(m: Matrix, v: Sequence[float]) -> Vec:
    x, y, z = (sum(m[i][j] * v[j] for j in range(3)) for i in range(3))
    return (float(x), float(y), float(z))


def wheel_points(
    half_track: float,
    longitudinal: float,
    vertical: float,
    camber: float,
    toe: float,
    radius: float,
    side: float,
) -> tuple[Vec, Vec, Vec]:
    """Wheel centre, spin-axis point and contact patch (mm, model frame) from OptimumK's
    wheel definition (docs/optimumk.md, "The wheel").

    camber, toe: rad in OptimumK's signs (camber - = top inboard; toe + = toe-out).
    side: +1 left, -1 right. OptimumK's design spin axis (outboard) is given by its
    front- and top-view slopes, s = unit(-tan toe, side, -tan camber); the contact patch
    is CP = (longitudinal, side half_track, vertical) (vertical = the Vertical Offset: CP's
    height in the file's frame); OptimumK puts CP at C + r unit(s x X) (heading X at
    design), so C = CP - r u with u = side unit(s x X), which points down; the axis point
    lies `WHEEL_AXIS_OFFSET_MM` inboard of C on s.
    """
    raw = (-math.tan(toe), side, -math.tan(camber))
    norm = math.sqrt(sum(v * v for v in raw))
    s = (raw[0] / norm, raw[1] / norm, raw[2] / norm)
    # s x X = (0, s_z, -s_y)
    length = math.hypot(s[1], s[2])
    u = (0.0, side * s[2] / length, -side * s[1] / length)
    cp = (longitudinal, side * half_track, vertical)
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
    warnings += setup.warnings
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
        rear_drive_share=(
            default.rear_drive_share if setup.rear_drive_share is None else setup.rear_drive_share
        ),
        front_mass_share=setup.front_mass_share,
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
        for s in ("L", "R"):
            lat = export.wheels[s].get("Lateral Offset")
            if lat is not None and lat.value != 0.0:
                fail(
                    lat.cell,
                    f"Lateral Offset {lat.value:g} is not supported (only 0)",
                    "move the suspension points by the offset instead, or set it to 0 and"
                    " adjust the Half Track",
                )
        # The file's longitudinal and vertical coordinates in model X and Z: their signs.
        self.long_sign = float(sum(self.m[0]))
        self.vert_sign = float(sum(self.m[2]))

    def model(self, xyz: Vec) -> Vec:
        """File coordinates (file unit and axes) -> model mm, this axle's origin (the rear
        moved back by the Reference Distance; no vertical shift)."""
        x, y, z = _apply(self.m, xyz)
        return (
            units.to_internal(x, self.scale) + self.shift_x,
            units.to_internal(y, self.scale),
            units.to_internal(z, self.scale),
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
        vo = w.get("Vertical Offset")
        vertical = self.vert_sign * (vo.value if vo else 0.0) * self.scale
        rim = w.get("Rim Diameter")
        rim_mm = None if rim is None else units.to_internal(rim.value, self.scale)
        if rim is not None and rim.value <= 0:
            fail(rim.cell, "Rim Diameter must be positive", "enter the rim's diameter")
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
            vertical,
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
        bodies_of = {"Chassis": chassis, "LowerAArm": lower, "UpperAArm": upper}
        ref_body = e.reference_on[0] if e.reference_on else "Chassis"
        rocker_extra: list[str] = []
        for ref_name, by_side in e.reference_points.items():
            if side not in by_side:
                continue
            xyz, cell = by_side[side]
            ours = n(ref_name)
            if ours in {p.name for p in pts}:
                fail(
                    cell,
                    f"Reference Point {ref_name!r} has the name of another point ({ours})",
                    "rename the reference point in OptimumK",
                )
            pts.append(Point(ours, self.model(xyz), cell.source))
            {**bodies_of, "Upright": upright, "Rocker": rocker_extra}[ref_body].append(ours)
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
                (
                    n("CHAS_RocAxi"),
                    n("CHAS_RocPiv"),
                    n("ROCK_RodPnt"),
                    n("ROCK_CoiPnt"),
                    *rocker_extra,
                ),
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
            rim_diameter=rim_mm,
        )
        damper = Damper(
            f"{corner}_Coilover",
            n("CHAS_AttPnt"),
            n("ROCK_CoiPnt"),
            source=src_of["CHAS_AttPnt"],
            spring_rate=e.springs.get(side),
            spring_preload=e.preloads.get(side),
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
