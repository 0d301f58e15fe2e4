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

Dimension = Literal["angle", "length", "ratio", "percent", "gain", "force", "moment"]
Scope = Literal["corner", "axle", "side", "car", "motion", "index"]

DIMENSIONS: tuple[Dimension, ...] = (
    "angle",
    "length",
    "ratio",
    "percent",
    "gain",
    "force",
    "moment",
)
CANONICAL_UNIT: dict[Dimension, str] = {
    "angle": "deg",
    "length": "mm",
    "ratio": "-",
    "percent": "%",
    "gain": "deg/mm",
    "force": "N",
    "moment": "N m",
}
"""The unit every channel is compared in, by dimension (``gain``: an angle per mm, as
OptimumK's camber and toe gains; ``force``/``moment``: OptimumK's force channels)."""

CORNERS: tuple[str, ...] = ("Front Left", "Front Right", "Rear Left", "Rear Right")
"""Corner names as OptimumK writes them (docs/conventions.md: OptimumK preset)."""

AXLES: tuple[str, ...] = ("Front", "Rear")
SIDES: tuple[str, ...] = ("Left", "Right")

CORNER_CODES: dict[str, str] = {
    "Front Left": "FL",
    "Front Right": "FR",
    "Rear Left": "RL",
    "Rear Right": "RR",
}

MOTION_KEYS: tuple[str, ...] = (
    "heave",
    "roll",
    "pitch",
    "rack",
    "steering_wheel",
    "steering",
    "completion",
)
"""Motion inputs an export can carry (mm for heave and rack, deg otherwise).

``steering_wheel``: steering-wheel degrees, + = left turn (ours); ``steering``:
OptimumK's ``Motion [Steering]``, steering-wheel degrees, + = the inboard tie-rod
points (the rack) toward +Y, whichever way that turns the car; ``completion``:
OptimumK's ``Motion [Completion Percentage]`` (%), where each step lies in the motion
(read and shown, never compared)."""


@dataclass(frozen=True)
class Quantity:
    """One export quantity and what it is compared with.

    name: the export's spelling (canonical); aliases: other accepted spellings.
    metric: our metric id (catalogue) for corner/axle channels, a key of
    `MOTION_KEYS` for motion channels, None for the step index.
    scope: where the channel applies: a corner, an axle, a side (Left/Right),
    the car (no location, or an axle), a motion input or the step index.
    component: the x/y/z component of a point metric (``wheel_centre`` x).
    default_location: the location of a header that names none (an axle
    quantity OptimumK writes without one, e.g. Ackerman Percentage: Front).
    """

    name: str
    dimension: Dimension
    scope: Scope
    metric: str | None
    aliases: tuple[str, ...] = ()
    note: str = ""
    component: str = ""
    default_location: str | None = None


DEFAULT_QUANTITIES: tuple[Quantity, ...] = (
    # motion (inputs of the motion drive)
    Quantity(
        "Heave",
        "length",
        "motion",
        "heave",
        ("Motion Heave", "Chassis Heave", "Heave Travel"),
        "chassis z at the reference point, + = up (droop); flip with a map if yours is + = bump",
    ),
    Quantity(
        "Roll",
        "angle",
        "motion",
        "roll",
        ("Motion Roll", "Chassis Roll", "Roll Angle"),
        "+ = left up",
    ),
    Quantity(
        "Pitch",
        "angle",
        "motion",
        "pitch",
        ("Motion Pitch", "Chassis Pitch", "Pitch Angle"),
        "+ = nose down",
    ),
    Quantity(
        "Motion Steering",
        "angle",
        "motion",
        "steering",
        ("Steering Motion",),
        "OptimumK's steering: steering-wheel deg, + = rack (inboard tie-rod points) toward +Y; "
        "rack = angle x the workbook's Steering ratio",
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
        "Toe Angle",
        "angle",
        "corner",
        "toe_wheel_plane",
        ("Toe",),
        "OptimumK's toe: the wheel plane's angle to the vehicle X axis, + = toe-out",
    ),
    Quantity(
        "Steer Angle",
        "angle",
        "corner",
        "steer",
        ("Steering Angle", "Wheel Steer Angle", "Road Wheel Angle", "Roadwheel Angle"),
        "wheel-plane toe minus static toe as a heading, + = turned left on both wheels",
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
            "King Pin Inclination",
            "King Pin Angle",
            "King Pin Inclination Angle",
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
        "scrub_vehicle",
        ("Kingpin Offset at Ground", "Scrub"),
        "in the vehicle's front view, from OptimumK's contact patch (docs/conventions.md)",
    ),
    Quantity(
        "Mechanical Trail",
        "length",
        "corner",
        "trail_vehicle",
        ("Trail", "Caster Trail", "Castor Trail", "Mechanical Trail at Ground"),
        "in the vehicle's side view, from OptimumK's contact patch (docs/conventions.md)",
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
        ("CoilOver Length", "Shock Length", "Damper Eye to Eye", "Shock Eye to Eye"),
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
    Quantity("Half Track", "length", "corner", "half_track", ("Half Track Width", "Halftrack")),
    Quantity(
        "Push/Pull Length",
        "length",
        "corner",
        "pushrod_length",
        ("Pushrod Length", "Pullrod Length", "Push Pull Length", "Push/Pull Rod Length"),
        "the corner's push- or pullrod (the link from the suspension to the damper's rocker)",
    ),
    *(
        Quantity(
            f"Wheel Center {c.upper()}",
            "length",
            "corner",
            "wheel_centre",
            (f"Wheel Centre {c.upper()}",),
            "road-fixed (world) coordinates" + (", + = left" if c == "y" else ""),
            component=c,
        )
        for c in "xyz"
    ),
    *(
        Quantity(
            f"Contact Patch {c.upper()}",
            "length",
            "corner",
            "contact_patch",
            (f"Contact Point {c.upper()}", f"Tire Contact Patch {c.upper()}"),
            "OptimumK's construction C + r unit(s x h), road-fixed"
            + (", + = left" if c == "y" else ""),
            component=c,
        )
        for c in "xyz"
    ),
    Quantity(
        "Motion Ratio",
        "ratio",
        "corner",
        "installation_ratio",
        ("Damper Motion Ratio", "Shock Motion Ratio"),
        "wheel over damper, as OptimumK quotes its motion ratios; map to motion_ratio if"
        " your export is damper over wheel",
    ),
    Quantity(
        "Motion Ratio Heave",
        "ratio",
        "corner",
        "motion_ratio_heave",
        (),
        "d heave / d coilover length with the tyres on the ground (wheel over spring)",
    ),
    Quantity(
        "Steering Toe Angle Gain",
        "ratio",
        "corner",
        "steering_toe_gain",
        ("Steering Toe Gain",),
        "d toe / d steering-wheel angle, tyres on the ground (deg/deg)",
    ),
    Quantity(
        "Anti-Dive Percentage",
        "percent",
        "corner",
        "anti_dive",
        ("Anti-Dive", "Anti Dive Percentage"),
        "front wheels, braking",
    ),
    Quantity(
        "Anti-Squat Percentage",
        "percent",
        "corner",
        "anti_squat",
        ("Anti-Squat",),
        "rear wheels, drive",
    ),
    Quantity(
        "Anti-Lift Percentage",
        "percent",
        "corner",
        "anti_lift",
        ("Anti-Lift",),
        "rear wheels under braking (a front anti-lift under drive is not computed)",
    ),
    # per axle
    Quantity("Track", "length", "axle", "track", ("Track Width", "Wheel Track")),
    Quantity(
        "Roll Centre Height",
        "length",
        "axle",
        "roll_centre_height",
        ("Roll Center Height", "RC Height"),
        "our force-based roll centre (docs/conventions.md)",
    ),
    Quantity(
        "Roll Center Z",
        "length",
        "axle",
        "roll_centre_height",
        ("Roll Centre Z", "Kinematic Roll Center Z"),
        "OptimumK's Roll Center: the force-based lines contact patch -> front-view instant "
        "centre (our roll_centre_height), world z",
    ),
    Quantity(
        "Ackerman Percentage",
        "percent",
        "axle",
        "ackermann",
        ("Ackermann Percentage", "Ackermann", "Ackerman"),
        "front axle when the header names none",
        default_location="Front",
    ),
    Quantity(
        "Steering Ratio",
        "ratio",
        "axle",
        "steering_ratio",
        (),
        "1 / mean(d steer / d steering-wheel angle); front axle when the header names none",
        default_location="Front",
    ),
    # per side
    Quantity("Wheelbase", "length", "side", "wheelbase", ("Wheel Base",)),
    # the car
    Quantity(
        "Steering Rack Displacement",
        "length",
        "car",
        "rack_mm",
        ("Steering Rack Position",),
        "compared with our rack travel (+ toward +Y); drives the rack when the workbook gives "
        "no Steering ratio",
    ),
)
"""The default channel map (docs: validation/README.md and docs/validation.md)."""

OPTIMUMK_HEADERS: tuple[str, ...] = (
    "Motion [Heave] (mm)",
    "Motion [Roll] (deg)",
    "Motion [Pitch] (deg)",
    "Motion [Steering] (deg)",
    "Camber Angle [Left] [Front] (deg)",
    "Toe Angle [Left] [Front] (deg)",
    "Steer Angle [Left] [Front] (deg)",
    "Caster Angle [Left] [Front] (deg)",
    "King Pin Inclination [Left] [Front] (deg)",
    "Scrub Radius [Left] [Front] (mm)",
    "Mechanical Trail [Left] [Front] (mm)",
    "Half Track [Left] [Front] (mm)",
    "Wheel Center X [Left] [Front] (mm)",
    "Wheel Center Y [Left] [Front] (mm)",
    "Wheel Center Z [Left] [Front] (mm)",
    "Contact Patch X [Left] [Front] (mm)",
    "Contact Patch Y [Left] [Front] (mm)",
    "Contact Patch Z [Left] [Front] (mm)",
    "CoilOver Length [Left] [Front] (mm)",
    "Push/Pull Length [Left] [Front] (mm)",
    "Motion Ratio Heave [Left] [Front]",
    "Steering Toe Angle Gain [Left] [Front] (deg/deg)",
    "Anti-Dive Percentage [Left] [Front] (%)",
    "Anti-Lift Percentage [Left] [Rear] (%)",
    "Anti-Squat Percentage [Left] [Rear] (%)",
    "Roll Center Z [Front] (mm)",
    "Track [Front] (mm)",
    "Ackerman Percentage (%)",
    "Steering Ratio [Front]",
    "Wheelbase [Left] (mm)",
    "Steering Rack Displacement (mm)",
    "Camber Angle [Front Left] (deg)",
)
"""OptimumK result-export headers read with no map, one per quantity (v2.x spelling:
``[Side] [Axle]``; the last is the older ``[Front Left]`` spelling). docs/validation.md
shows them with the column each is compared with (`optimumk_headers_markdown`)."""


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
