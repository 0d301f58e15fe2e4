"""What an export is compared on: its quantities, corners and axles, and their metric mapping.

`DEFAULT_QUANTITIES` is the default map: export quantity -> our metric id
(`suspension_sim.metrics.catalogue`), compared in the ``optimumk`` sign preset
(docs/conventions.md). A `ChannelMap` is those quantities plus the overrides
of a map file (`suspension_sim.validation.mapfiles`): rename, re-sign,
rescale or ignore. How a header names a quantity is in
`suspension_sim.validation.headers`. Values are compared in mm and deg.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Dimension = Literal["angle", "length", "ratio"]
Scope = Literal["corner", "axle", "motion", "index"]

DIMENSIONS: tuple[Dimension, ...] = ("angle", "length", "ratio")
CANONICAL_UNIT: dict[Dimension, str] = {"angle": "deg", "length": "mm", "ratio": "-"}
"""The unit every channel is compared in, by dimension."""

CORNERS: tuple[str, ...] = ("Front Left", "Front Right", "Rear Left", "Rear Right")
"""Corner names as OptimumK writes them (docs/conventions.md: OptimumK preset)."""

AXLES: tuple[str, ...] = ("Front", "Rear")

CORNER_CODES: dict[str, str] = {
    "Front Left": "FL",
    "Front Right": "FR",
    "Rear Left": "RL",
    "Rear Right": "RR",
}

MOTION_KEYS: tuple[str, ...] = ("heave", "roll", "pitch", "rack", "steering_wheel")
"""Motion inputs an export can carry (mm for heave and rack, deg otherwise)."""


@dataclass(frozen=True)
class Quantity:
    """One export quantity and what it is compared with.

    name: the export's spelling (canonical); aliases: other accepted spellings.
    metric: our metric id (catalogue) for corner/axle channels, a key of
    `MOTION_KEYS` for motion channels, None for the step index.
    """

    name: str
    dimension: Dimension
    scope: Scope
    metric: str | None
    aliases: tuple[str, ...] = ()
    note: str = ""


DEFAULT_QUANTITIES: tuple[Quantity, ...] = (
    # motion (inputs of the motion drive)
    Quantity(
        "Heave",
        "length",
        "motion",
        "heave",
        ("Chassis Heave", "Heave Travel"),
        "chassis z at the reference point, + = up (droop); flip with a map if yours is + = bump",
    ),
    Quantity("Roll", "angle", "motion", "roll", ("Chassis Roll", "Roll Angle"), "+ = left up"),
    Quantity(
        "Pitch", "angle", "motion", "pitch", ("Chassis Pitch", "Pitch Angle"), "+ = nose down"
    ),
    Quantity(
        "Rack Travel",
        "length",
        "motion",
        "rack",
        ("Rack Displacement", "Rack Position", "Steering Rack Travel", "Rack"),
        "+ = rack toward +Y (left)",
    ),
    Quantity(
        "Steering Wheel Angle",
        "angle",
        "motion",
        "steering_wheel",
        ("Steering Wheel", "SWA", "Handwheel Angle", "Steering Input"),
        "rack = angle x the workbook's Steering ratio; "
        "+ = left turn (rack direction from the geometry)",
    ),
    # step index (kept for the report, never compared)
    Quantity("Step", "ratio", "index", None, ("Steps", "Index", "Sample", "Time", "Step Number")),
    # per corner
    Quantity("Camber Angle", "angle", "corner", "camber", ("Camber", "Inclination Angle")),
    Quantity(
        "Toe Angle", "angle", "corner", "toe", ("Toe",), "optimumk sign: + = toe-out (ours flipped)"
    ),
    Quantity(
        "Steer Angle",
        "angle",
        "corner",
        "steer",
        ("Steering Angle", "Wheel Steer Angle", "Road Wheel Angle", "Roadwheel Angle"),
        "toe minus static toe, toe-out positive (right wheel flipped from iso)",
    ),
    Quantity("Caster Angle", "angle", "corner", "caster", ("Caster", "Castor Angle", "Castor")),
    Quantity(
        "Kingpin Angle",
        "angle",
        "corner",
        "kpi",
        (
            "Kingpin Inclination",
            "Kingpin Inclination Angle",
            "KPI",
            "KPI Angle",
            "Steering Axis Inclination",
            "SAI",
        ),
    ),
    Quantity(
        "Scrub Radius",
        "length",
        "corner",
        "scrub_radius",
        ("Kingpin Offset at Ground", "Scrub"),
        "in the wheel's ground axes (docs/conventions.md)",
    ),
    Quantity(
        "Mechanical Trail",
        "length",
        "corner",
        "mechanical_trail",
        ("Trail", "Caster Trail", "Castor Trail", "Mechanical Trail at Ground"),
        "along the wheel's heading; OptimumK may measure along chassis X (differs with steer)",
    ),
    Quantity(
        "Spindle Length",
        "length",
        "corner",
        "spindle_length",
        ("Kingpin Offset at Hub", "Kingpin Offset at Wheel Centre", "Spindle Offset"),
    ),
    Quantity(
        "Damper Length",
        "length",
        "corner",
        "damper_length",
        ("Shock Length", "Damper Eye to Eye", "Shock Eye to Eye", "Coilover Length"),
        "the corner's damper (found from the geometry); also a drive input",
    ),
    Quantity(
        "Wheel Travel",
        "length",
        "corner",
        "wheel_travel",
        ("Vertical Wheel Travel", "Wheel Centre Travel", "Wheel Center Travel"),
        "wheel centre along chassis z from design, + = bump",
    ),
    Quantity("Half Track", "length", "corner", "half_track", ("Half Track Width",)),
    Quantity(
        "Motion Ratio",
        "ratio",
        "corner",
        "motion_ratio",
        ("Damper Motion Ratio", "Shock Motion Ratio"),
        "damper over wheel; map to installation_ratio if your export is wheel over damper",
    ),
    # per axle
    Quantity("Track", "length", "axle", "track", ("Track Width", "Wheel Track")),
    Quantity(
        "Roll Centre Height",
        "length",
        "axle",
        "roll_centre_height",
        ("Roll Center Height", "RC Height", "Roll Centre Z", "Roll Center Z"),
    ),
)
"""The default channel map (docs: validation/README.md and docs/validation.md)."""


@dataclass(frozen=True)
class ChannelRule:
    """How one export channel (or every channel of a quantity) is compared.

    metric: our metric id or full column (``camber_chassis`` or
    ``camber_chassis_FL_deg``), a motion key, or None to ignore the channel.
    Values are converted as ``ours = sign * scale * export (in mm/deg)``.
    """

    metric: str | None
    sign: float = 1.0
    scale: float = 1.0
    dimension: Dimension | None = None
    source: str = "default map"


@dataclass(frozen=True)
class ChannelMap:
    """Default quantities plus user overrides (from a map file).

    quantity_rules: by normalised quantity name (applies to every location);
    channel_rules: by normalised channel name (quantity + location, no unit);
    corners: export corner -> workbook wheel name.
    """

    quantities: tuple[Quantity, ...] = DEFAULT_QUANTITIES
    quantity_rules: Mapping[str, ChannelRule] = field(default_factory=dict)
    channel_rules: Mapping[str, ChannelRule] = field(default_factory=dict)
    corners: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None
