"""The quantities of a kinematic map: names, units and signs (docs/conventions.md, iso).

A map's values are in the `iso` preset whatever the workbook's sign convention,
in mm and degrees; a table column is written ``name [unit]`` (``camber [deg]``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """One map quantity: its name, unit and sign (what + means)."""

    name: str
    unit: str
    sign: str

    @property
    def header(self) -> str:
        """The table column: ``name [unit]``."""
        return f"{self.name} [{self.unit}]"


FIELDS: tuple[Field, ...] = (
    Field("camber", "deg", "inclination to the ground, - = top of the wheel toward the centreline"),
    Field("toe", "deg", "top-view angle of the spin axis, + = toe-in (both sides)"),
    Field("steer", "deg", "roadwheel angle from design, + = front of the wheel toward +Y (left)"),
    Field("track_change", "mm", "change of half track from design, + = contact point outboard"),
    Field("caster", "deg", "side-view kingpin angle, + = top of the axis rearward"),
    Field("kpi", "deg", "front-view kingpin angle, + = top of the axis inboard"),
    Field("scrub_radius", "mm", "+ = kingpin ground point inboard of the contact point"),
    Field("trail", "mm", "mechanical trail, + = kingpin ground point ahead of the contact point"),
    Field("motion_ratio", "-", "d stroke / d wheel travel (damper over wheel), rack held"),
    Field("stroke", "mm", "the corner's damper stroke, + = compression"),
    Field("wheel_centre_x", "mm", "ISO 8855 axes, chassis at design (world = chassis frame)"),
    Field("wheel_centre_y", "mm", "ISO 8855 axes, + = left"),
    Field("wheel_centre_z", "mm", "ISO 8855 axes, + = up, ground at z = 0"),
    Field("contact_point_x", "mm", "lowest point of the tyre circle, ISO 8855 axes"),
    Field("contact_point_y", "mm", "lowest point of the tyre circle, + = left"),
    Field("contact_point_z", "mm", "lowest point of the tyre circle, + = up"),
)
"""Every quantity of a map, in table order."""

FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}

TRAVEL = Field("travel", "mm", "wheel centre along the chassis z axis from design, + = bump")
RACK = Field("rack", "mm", "rack travel from design, + = rack toward +Y (left)")
REASON = "reason"
"""Column naming why a node is NaN ('' where it was reached)."""
