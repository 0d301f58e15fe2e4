"""The workbook format, declared once: sections, their columns and the options.

docs/workbook.md documents what this module declares. The reader
(`suspension_sim.workbook.reader`) checks a workbook against it and the writer
(`suspension_sim.workbook.writer`) lays a car out by it, so a section, column
or option is added or renamed here and nowhere else. Option defaults are the
field defaults of `suspension_sim.description.Options`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from suspension_sim.description import SIGN_CONVENTIONS
from suspension_sim.units import Kind
from suspension_sim.workbook.mirror import SYMMETRY_CHOICES

# -- sections ---------------------------------------------------------------------------
USER_OPTIONS = "User Options"
COMPONENTS = "Components"
HARD_POINTS = "Hard Points"
WHEELS = "Wheels"
STEERING = "Steering"
DAMPING = "Damping"
ANTI_ROLL_BARS = "Anti-roll Bars"
SECTION_NAMES: tuple[str, ...] = (
    USER_OPTIONS,
    COMPONENTS,
    HARD_POINTS,
    WHEELS,
    STEERING,
    DAMPING,
    ANTI_ROLL_BARS,
)
"""The car's sections, in the order the writer lays them out (Anti-roll Bars only when
the car has a bar)."""
SWEEPS = "Sweeps"
LOAD_CASES = "Load Cases"
EXTRA_SECTIONS: tuple[str, ...] = (SWEEPS, LOAD_CASES)
"""Optional sections that the car reader accepts in the index but leaves to other modules
(Sweeps: `suspension_sim.sweeps`, docs/sweeps.md; Load Cases: `suspension_sim.loads`,
docs/loads.md); read them with `suspension_sim.workbook.cells.read_section`."""
REQUIRED_SECTIONS: tuple[str, ...] = (COMPONENTS, HARD_POINTS)

INDEX_HEADER: tuple[str, str] = ("Section", "Range")
"""Header of the index table on the first sheet."""


# -- columns ------------------------------------------------------------------------------
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
        Column("Rim diameter", optional=True),
    ),
    STEERING: (
        Column("Rack body"),
        Column("End point 1", optional=True),
        Column("End point 2", optional=True),
        Column("Steering ratio", optional=True),
        Column("Min travel", optional=True),
        Column("Max travel", optional=True),
    ),
    DAMPING: (
        Column("Damper body"),
        Column("Chassis point"),
        Column("Moving point"),
        Column("Min length", optional=True),
        Column("Max length", optional=True),
        Column("Spring rate", optional=True),
        Column("Spring preload", optional=True),
        Column("Spring free length", optional=True),
        Column("Type", optional=True),
    ),
    ANTI_ROLL_BARS: (
        Column("Bar"),
        Column("Type"),
        Column("Arm 1"),
        Column("Arm 2"),
        Column("Axis point 1"),
        Column("Axis point 2"),
        Column("Shaft point"),
        Column("Torsional rate"),
    ),
}
"""Header of each fixed-column section, in order (Components is free-width)."""

DAMPING_TYPES: tuple[str, str] = ("damper", "third")
"""Values of the Damping ``Type`` column (blank = ``damper``): a damper body, or a third
(heave) spring between two points (`suspension_sim.description.ThirdSpring`)."""

COMPONENTS_COLUMNS: tuple[Column, Column] = (
    Column("Body", aliases=("Element", "Component")),
    Column("Points", aliases=("Point",)),
)
"""Components: ``Body | Points`` then as many point cells as needed."""


# -- User Options -------------------------------------------------------------------------
BRAKE_MOUNTS: dict[str, bool] = {"outboard": False, "inboard": True}
"""Words of the brake options -> `Options.*_brakes_inboard` (the first word is written)."""
DRIVE_MOUNTS: dict[str, bool] = {"inboard": True, "chassis": True, "outboard": False, "hub": False}
"""Words of the Drive option -> `Options.drive_inboard` (the first word is written)."""

OptionKind = Literal["text", "unit", "axis map", "mm", "length", "fraction", "choice", "point"]
"""How an option's value is read: free text; a unit name (of `OptionSpec.unit`); an axis
map; a positive number always in mm; a positive length in the workbook's length unit; a
fraction 0..1; a word of `OptionSpec.choices`; a Hard Point name."""


@dataclass(frozen=True)
class OptionSpec:
    """One row of `User Options`: its name, the `Options` field it sets and its values."""

    name: str
    field: str | None
    """The `Options` field it sets; None for the car's name (`Car.name`) and for Symmetry
    (how the reader builds the car, not part of it)."""
    kind: OptionKind
    help: str
    """Allowed values, written beside the section by the writer (not read)."""
    unit: Kind | None = None
    """For kind 'unit': the quantity the unit measures."""
    choices: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """For kind 'choice': accepted word (case-insensitive) -> field value."""


SYMMETRY = "Symmetry"
"""The option that generates the right side from the left (`suspension_sim.workbook.mirror`)."""

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("Car name", None, "text", "any text"),
    OptionSpec(
        "Length unit",
        "length_unit",
        "unit",
        "mm | cm | m | in — coordinates, tyre sizes, damper lengths, CG height",
        unit="length",
    ),
    OptionSpec(
        "Angle unit",
        "angle_unit",
        "unit",
        "deg | rad | mrad — the steering ratio's angle",
        unit="angle",
    ),
    OptionSpec("Force unit", "force_unit", "unit", "N | lbf", unit="force"),
    OptionSpec(
        "Axis map",
        "axis_map",
        "axis map",
        "model X, Y, Z in workbook axes, e.g. +Z +X +Y (identity: +X +Y +Z)",
    ),
    OptionSpec("Solver tolerance", "solver_tolerance_mm", "mm", "mm, always"),
    OptionSpec(
        "Constraint display tolerance", "constraint_display_tolerance_mm", "mm", "mm, always"
    ),
    OptionSpec(
        "Chassis reference point",
        "chassis_reference_point",
        "point",
        "a Hard Point; blank = origin",
    ),
    OptionSpec("CG height", "cg_height_mm", "length", "length unit"),
    OptionSpec("Wheelbase", "wheelbase_mm", "length", "length unit; optional reference"),
    OptionSpec("Front brake share", "front_brake_share", "fraction", "0..1"),
    OptionSpec(
        "Front brakes",
        "front_brakes_inboard",
        "choice",
        "outboard | inboard",
        choices=BRAKE_MOUNTS,
    ),
    OptionSpec(
        "Rear brakes", "rear_brakes_inboard", "choice", "outboard | inboard", choices=BRAKE_MOUNTS
    ),
    OptionSpec("Rear drive share", "rear_drive_share", "fraction", "0..1"),
    OptionSpec(
        "Front mass share",
        "front_mass_share",
        "fraction",
        "0..1; blank = not given (OptimumK's centre of gravity)",
    ),
    OptionSpec(
        "Drive",
        "drive_inboard",
        "choice",
        "inboard (chassis-mounted) | outboard (hub)",
        choices=DRIVE_MOUNTS,
    ),
    OptionSpec(
        "Sign convention",
        "sign_convention",
        "choice",
        "iso | optimumk",
        choices={c: c for c in SIGN_CONVENTIONS},
    ),
    OptionSpec(
        SYMMETRY,
        None,
        "choice",
        "none | mirror left to right — generate the right side (docs/workbook.md)",
        choices=SYMMETRY_CHOICES,
    ),
)
"""Every option of `User Options`, in the order the writer lists them."""

OPTION_NAMES: tuple[str, ...] = tuple(o.name for o in OPTIONS)
"""Valid names in the `User Options` section (matched case- and space-insensitively)."""
