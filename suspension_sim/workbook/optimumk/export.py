"""What the OptimumK importer knows (point names, Wheels fields, blocks, units, bodies) and
what one suspension sheet says (`AxleExport`, in the file's own units and axes), with the
small helpers the block readers share.

The readers: `suspension_sim.workbook.optimumk.axle` (a sheet, User Options), `.points`
(point blocks, Reference Point, Wheels), `.links` (Attachment, tie rod, Rack Pinion,
Stiffness). docs/optimumk.md has the layout and the evidence it rests on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from suspension_sim.workbook.cells import Cell, fail
from suspension_sim.workbook.optimumk.sheets import IDENTITY, Matrix, Sheet, Side, Vec, label_key

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
"""Wheels fields without which no wheel can be built: absent or blank is an error."""

POSITION_WHEEL_FIELDS = ("Longitudinal Offset", "Vertical Offset")
"""Where the contact patch is: blank is an error (it would read as 0); a row left out of a
hand-made file is 0 with a warning."""

ANGLE_WHEEL_FIELDS = ("Static Camber", "Static Toe")

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
block (`suspension_sim.workbook.optimumk.setup`)."""

SUSPENSION_BLOCKS = frozenset({"doubleaarm", "pushpull", "wheels", "attachment", "rackpinion"})
"""Block keys that make a sheet a suspension sheet."""

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

REFERENCE_BODIES = ("Chassis", "LowerAArm", "UpperAArm", "Upright", "Rocker")
"""Bodies a Reference Point may be attached to."""

SUPPORTED = (
    "Double A-Arm with a Push Pull rod (to a rocker and a coilover) attached to an A-arm or"
    " the upright, Rack Pinion steering or a tie rod fixed to the chassis or an A-arm"
)


def point_key(text: str) -> str:
    """Key of a point name without OptimumK's ``_L`` suffix."""
    return label_key(re.sub(r"_[LR]$", "", text.strip(), flags=re.IGNORECASE))


POINT_NAMES = {point_key(n): n for n in (*DOUBLE_A_ARM_POINTS, *PUSH_PULL_POINTS)}
"""Point key -> canonical OptimumK point name (without ``_L``)."""


@dataclass
class FileValue:
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
    wheels: dict[Side, dict[str, FileValue]] = field(default_factory=dict)
    """Side -> Wheels field -> value; a field is on both sides or on neither."""
    steering_ratio: FileValue | None = None
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
    options: dict[str, Cell] = field(default_factory=dict)
    """User Options rows read (``length``, ``angle``, ``force``, ``stiffness``, ``axes``) ->
    their label cell (a second one is an error)."""
    warnings: list[str] = field(default_factory=list)


def is_point_row(sheet: Sheet, r: int) -> bool:
    label = label_key(sheet.text(r, 2))
    return bool(label) and label not in ("pointname", "element", "x")


def xyz_columns(left: int, right: int) -> set[int]:
    return {2, *range(left, left + 3), *range(right, right + 3)}


def member(cell: Cell, what: str, allowed: Sequence[str]) -> str:
    text = label_key(cell.text or "")
    for word, member in MEMBERS.items():
        if word in text and member in allowed:
            return member
    fail(
        cell,
        f"{what} attached to {cell.text!r} cannot be imported yet",
        f"supported attachments: {', '.join(allowed)}",
    )


def reference_attachment(export: AxleExport, target: Cell) -> None:
    if export.reference_on is not None:
        fail(
            target,
            "the Reference Point's attachment is given twice (first at"
            f" {export.reference_on[1].where})",
            "keep one attachment row",
        )
    export.reference_on = (member(target, "the Reference Point", REFERENCE_BODIES), target)
