"""OptimumK's result channels: the registry `QUANTITIES` and `optimumk_channels`.

One `OkQuantity` per quantity OptimumK (v2.3) exports. A channel's key is the quantity
followed by its bracketed tags, without the unit (`channel_key`):
``"Camber Angle [Left] [Front]"`` (corner), ``"Roll Center Z [Front]"`` (axle),
``"Wheelbase [Left]"`` (side), ``"Wheelbase"`` (car), ``"Motion [Heave]"`` (input),
``"UPRI_LowPnt X [Left] [Front]"`` (a hardpoint's coordinate).

status:

* ``"established"``: the definition reproduces OptimumK's numbers (to the error in
  `evidence`) and `optimumk_channels` computes it; `conditions` say in which motions it
  is not (`channel_status` applies them);
* ``"not established"``: the data did not pin the definition down; never computed;
* ``"always blank"``: OptimumK writes no number for a double wishbone; reported as NaN.

Values are in OptimumK's display units: mm, deg, deg/mm, deg/deg, % and plain ratios
("-"). Every definition is in world axes (X forward, Y left, Z up), side = +1 left and
-1 right, s the unit spin axis pointing outboard, k the king pin axis (lower -> upper
ball joint), CP OptimumK's contact patch (``C + r unit(s x h)``, h the X axis turned by
the steer angle), SW the steering-wheel angle (+ = rack toward +Y). Definitions and
their evidence: docs/optimumk.md and docs/validation.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.metrics.geometry import WheelSet
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

Scope = Literal["corner", "axle", "side", "car", "input"]
Status = Literal["established", "not established", "always blank"]

DIMENSIONS: dict[str, str] = {
    "mm": "length",
    "deg": "angle",
    "deg/mm": "angle per length",
    "deg/deg": "angle per angle",
    "%": "percent",
    "-": "ratio",
}
"""Dimension of each display unit."""

SIDES = ("left", "right")
AXLES = ("front", "rear")


@dataclass(frozen=True)
class OkQuantity:
    """One OptimumK quantity (a channel per corner, axle or side, or one for the car).

    name: OptimumK's spelling (the header's text before the tags). aliases: other
    spellings accepted. axles: where it exists (corner and axle scope). definition: one
    line in our own words. conditions: motions in which a computed channel is not
    established. approximate: computed, close to OptimumK but not exact (`evidence` says
    how close). evidence: the largest difference from OptimumK's numbers seen.
    """

    name: str
    scope: Scope
    unit: str
    status: Status
    definition: str
    aliases: tuple[str, ...] = ()
    axles: tuple[str, ...] = AXLES
    conditions: tuple[str, ...] = ()
    approximate: bool = False
    evidence: str = ""

    @property
    def dimension(self) -> str:
        """length, angle, angle per length, angle per angle, percent or ratio."""
        return DIMENSIONS[self.unit]

    def channel_keys(self) -> tuple[str, ...]:
        """Every channel key of this quantity on a four-wheeled car."""
        if self.scope == "corner":
            return tuple(channel_key(self.name, s, a) for a in self.axles for s in SIDES)
        if self.scope == "axle":
            return tuple(channel_key(self.name, None, a) for a in self.axles)
        if self.scope == "side":
            return tuple(channel_key(self.name, s, None) for s in SIDES)
        return (self.name,)


def channel_key(name: str, side: str | None = None, axle: str | None = None) -> str:
    """``"<name> [<Side>] [<Axle>]"`` (absent tags left out), OptimumK's order."""
    return name + "".join(f" [{t.capitalize()}]" for t in (side, axle) if t)


STEERED_FRONT = "front: not established when the front wheels are steered"
PITCH = "not established when the motion has pitch"
FRONT_ONLY = ("front",)
REAR_ONLY = ("rear",)


def _q(
    name: str,
    scope: Scope,
    unit: str,
    definition: str,
    *,
    status: Status = "established",
    aliases: tuple[str, ...] = (),
    axles: tuple[str, ...] = AXLES,
    conditions: tuple[str, ...] = (),
    approximate: bool = False,
    evidence: str = "",
) -> OkQuantity:
    return OkQuantity(
        name, scope, unit, status, definition, aliases, axles, conditions, approximate, evidence
    )


def _xyz(
    name: str,
    scope: Scope,
    definition: str,
    *,
    aliases: tuple[str, ...] = (),
    status: Status = "established",
    axles: tuple[str, ...] = AXLES,
    conditions: tuple[str, ...] = (),
    evidence: str = "",
) -> tuple[OkQuantity, ...]:
    """The X, Y and Z channels of a point quantity (mm, world)."""
    return tuple(
        _q(
            f"{name} {c}",
            scope,
            "mm",
            f"{definition}: its {c} (world, mm)",
            status=status,
            aliases=tuple(f"{a} {c}" for a in aliases),
            axles=axles,
            conditions=conditions,
            evidence=evidence,
        )
        for c in "XYZ"
    )


OK_POINTS: dict[str, str] = {
    "CHAS_LowFor": "lower A-arm fore chassis pivot",
    "CHAS_LowAft": "lower A-arm aft chassis pivot",
    "CHAS_UppFor": "upper A-arm fore chassis pivot",
    "CHAS_UppAft": "upper A-arm aft chassis pivot",
    "UPRI_LowPnt": "lower ball joint",
    "UPRI_UppPnt": "upper ball joint",
    "CHAS_TiePnt": "inner tie-rod point",
    "UPRI_TiePnt": "outer tie-rod point (on the upright)",
    "NSMA_PPAttPnt": "push/pull rod's outer end (on the arm or upright)",
    "ROCK_RodPnt": "push/pull rod's end on the rocker",
    "CHAS_RocAxi": "rocker axis point",
    "CHAS_RocPiv": "rocker pivot point",
    "ROCK_CoiPnt": "coilover's end on the rocker",
    "CHAS_AttPnt": "coilover's chassis end",
}
"""OptimumK's hardpoint names (the imported car prefixes them with its corner,
``FL_UPRI_LowPnt``; docs/optimumk.md) and what each is."""

_PUSH_PULL = {"NSMA_PPAttPnt", "ROCK_RodPnt", "CHAS_RocAxi", "CHAS_RocPiv", "ROCK_CoiPnt"}
_PUSH_PULL |= {"CHAS_AttPnt"}

_GAIN_SIGN = "(sign: minus the rate, so + = the angle decreases as the chassis rises)"

QUANTITIES: tuple[OkQuantity, ...] = (
    # -- corner: wheel attitude and position ---------------------------------------------
    _q(
        "Camber Angle",
        "corner",
        "deg",
        "-asin(s.z): the wheel plane's inclination from the vertical; - = top toward the car",
        evidence="1.5e-8 deg",
    ),
    _q(
        "Toe Angle",
        "corner",
        "deg",
        "-asin(s.x): the wheel plane's angle to the X axis; + = toe-out",
        evidence="1.5e-8 deg",
    ),
    _q(
        "Steer Angle",
        "corner",
        "deg",
        "side x (Toe Angle - the static toe of the design): + = wheel turned left, both sides",
        evidence="0 deg",
    ),
    _q(
        "Caster Angle",
        "corner",
        "deg",
        "atan2(-k.x, k.z), k from the lower to the upper ball joint: + = top of the axis rearward",
        evidence="6.6e-14 deg",
    ),
    _q(
        "King Pin Inclination",
        "corner",
        "deg",
        "atan2(-side k.y, k.z): front-view lean of the ball-joint line; + = top inboard",
        aliases=("Kingpin Inclination", "KPI", "King Pin Inclination Angle"),
        evidence="3.4e-14 deg",
    ),
    *_xyz(
        "King Pin Axis at Ground",
        "corner",
        "where the ball-joint line reaches the height of the contact patch",
        aliases=("Kingpin Axis at Ground", "King Pin Axis on Ground"),
        evidence="4.6e-13 mm",
    ),
    _q(
        "Scrub Radius",
        "corner",
        "mm",
        "side x (CP - G).y, G the king pin axis at ground: + = G inboard of the contact patch",
        evidence="2.5e-13 mm",
    ),
    _q(
        "Mechanical Trail",
        "corner",
        "mm",
        "(G - CP).x, G the king pin axis at ground: + = G ahead of the contact patch",
        aliases=("Caster Trail", "Trail"),
        evidence="4.4e-13 mm",
    ),
    _q(
        "Top Upright Angle",
        "corner",
        "deg",
        "side-view angle of the line upper ball joint -> outer tie-rod point: atan(-dz / dx)",
        evidence="8.5e-14 deg",
    ),
    _q("Half Track", "corner", "mm", "side x CP.y: the contact patch's distance from Y = 0"),
    _q(
        "Toe Distance",
        "corner",
        "mm",
        "rim diameter x sin(Toe Angle): the toe as a length at the rim (needs the Wheels "
        "section's Rim diameter)",
        conditions=("blank without a rim diameter",),
        evidence="1.4e-14 mm",
    ),
    *_xyz("Wheel Center", "corner", "the wheel centre"),
    *_xyz(
        "Contact Patch",
        "corner",
        "the contact patch C + r unit(s x h) (h = X turned by the steer angle), on the tyre "
        "circle below the centre",
        evidence="1e-3 mm at 75 deg of steer",
    ),
    *_xyz(
        "Wheel Center Displacement",
        "corner",
        "the wheel centre minus its value at the motion's first step",
        evidence="2.1e-13 mm",
    ),
    *_xyz(
        "Contact Patch Displacement",
        "corner",
        "the contact patch minus its value at the motion's first step",
        evidence="2.1e-13 mm",
    ),
    # -- corner: links and the rocker ------------------------------------------------------
    _q(
        "CoilOver Length",
        "corner",
        "mm",
        "distance between the coilover's two ends (the damper length)",
        aliases=("Coilover Length", "Coil Over Length", "Spring Length"),
        evidence="2.3e-13 mm",
    ),
    _q(
        "CoilOver Displacement",
        "corner",
        "mm",
        "CoilOver Length minus its value at the motion's first step: + = extension",
        aliases=("Coilover Displacement", "Coil Over Displacement"),
        evidence="2.5e-14 mm",
    ),
    _q(
        "Push/Pull Length",
        "corner",
        "mm",
        "length of the push or pull rod (arm or upright end to rocker end)",
        aliases=("PushPull Length", "Push Pull Length", "Push-Pull Length", "Pushrod Length"),
        evidence="2.3e-13 mm",
    ),
    _q(
        "Tie Rod Length",
        "corner",
        "mm",
        "distance between the inner and outer tie-rod points",
        aliases=("Tierod Length", "Tie-Rod Length"),
        evidence="2.3e-13 mm (as a distance of named points)",
    ),
    _q(
        "Upper A-Arm Fore Length",
        "corner",
        "mm",
        "distance from the upper A-arm's fore chassis pivot to the upper ball joint",
        aliases=("Upper A-Arm Front Length", "Upper A Arm Fore Length", "Upper AArm Fore Length"),
    ),
    _q(
        "Upper A-Arm Aft Length",
        "corner",
        "mm",
        "distance from the upper A-arm's aft chassis pivot to the upper ball joint",
        aliases=("Upper A-Arm Rear Length", "Upper A Arm Aft Length", "Upper AArm Aft Length"),
    ),
    _q(
        "Lower A-Arm Fore Length",
        "corner",
        "mm",
        "distance from the lower A-arm's fore chassis pivot to the lower ball joint",
        aliases=("Lower A-Arm Front Length", "Lower A Arm Fore Length", "Lower AArm Fore Length"),
    ),
    _q(
        "Lower A-Arm Aft Length",
        "corner",
        "mm",
        "distance from the lower A-arm's aft chassis pivot to the lower ball joint",
        aliases=("Lower A-Arm Rear Length", "Lower A Arm Aft Length", "Lower AArm Aft Length"),
    ),
    _q(
        "Rocker/CoilOver Angle",
        "corner",
        "deg",
        "angle between the coilover and the rocker's plane (rocker pivot, rod end, coilover "
        "end): asin(|n.u|)",
        aliases=("Rocker/Coilover Angle", "Rocker CoilOver Angle", "Rocker/Coil Over Angle"),
        evidence="2.9e-13 deg",
    ),
    _q(
        "Rocker/PRod Angle",
        "corner",
        "deg",
        "angle between the push/pull rod and the rocker's plane: asin(|n.u|)",
        aliases=("Rocker/Push Rod Angle", "Rocker/PushRod Angle", "Rocker/Pull Rod Angle"),
        evidence="2.9e-13 deg",
    ),
    _q(
        "Tie Rod Top View Angle",
        "corner",
        "deg",
        "asin(|u.x|), u = unit(outer - inner tie-rod point) in the chassis's axes",
        aliases=("Tierod Top View Angle",),
        conditions=(PITCH,),
        evidence="3.4e-14 deg in heave and steering, 7e-6 deg in roll",
    ),
    _q(
        "Tie Rod Front View Angle",
        "corner",
        "deg",
        "asin(|u.z|), u = unit(outer - inner tie-rod point) in the chassis's axes",
        aliases=("Tierod Front View Angle",),
        conditions=(PITCH,),
        evidence="3.4e-14 deg in heave and steering, 7e-6 deg in roll",
    ),
    # -- corner: instant centres, swing arms, antis -------------------------------------
    *_xyz(
        "Front View Instant Center",
        "corner",
        "force-based front-view instant centre in the plane X = CP.x (the line CP -> centre "
        "is normal to the contact patch's velocity in the wheel's own travel, rack held)",
        aliases=("FV Instant Center", "Front View IC"),
        conditions=(STEERED_FRONT,),
        evidence="rear exact; front 2e-4 deg (line angle) in heave",
    ),
    *_xyz(
        "Side View Instant Center",
        "corner",
        "force-based side-view instant centre in the plane Y = CP.y",
        aliases=("SV Instant Center", "Side View IC"),
        conditions=(STEERED_FRONT,),
        evidence="rear exact; front 2e-4 deg (line angle) in heave",
    ),
    _q(
        "Front View Swing Arm Length",
        "corner",
        "mm",
        "distance from the contact patch to the front-view instant centre, in the YZ plane",
        aliases=("FVSA Length", "Front View Swing Arm"),
        conditions=(STEERED_FRONT,),
        evidence="1.8e-12 mm from the instant centre",
    ),
    _q(
        "Front View Swing Arm Angle",
        "corner",
        "deg",
        "atan(dz / |dy|), (dy, dz) from the contact patch to the front-view instant centre",
        aliases=("FVSA Angle",),
        conditions=(STEERED_FRONT,),
        evidence="1e-14 deg from the instant centre",
    ),
    _q(
        "Side View Swing Arm Length",
        "corner",
        "mm",
        "distance from the contact patch to the side-view instant centre, in the XZ plane",
        aliases=("SVSA Length", "Side View Swing Arm"),
        conditions=(STEERED_FRONT,),
        evidence="4e-16 relative",
    ),
    _q(
        "Side View Swing Arm Angle",
        "corner",
        "deg",
        "-atan(dz/dx) front, +atan(dz/dx) rear, (dx, dz) from the contact patch to the "
        "side-view instant centre: + = the line rises toward the other axle",
        aliases=("SVSA Angle",),
        conditions=(STEERED_FRONT,),
        evidence="2e-16 deg from the instant centre",
    ),
    _q(
        "Anti-Dive Percentage",
        "corner",
        "%",
        "100 tan(front SVSA angle) x Wheelbase[side] / (CG.z - front CP.z) x brake bias",
        aliases=("Anti Dive Percentage", "Anti-Dive"),
        axles=FRONT_ONLY,
        conditions=(STEERED_FRONT, "blank without the front mass share (CG)"),
        evidence="5e-16 relative",
    ),
    _q(
        "Anti-Lift Percentage",
        "corner",
        "%",
        "rear: 100 tan(rear SVSA angle) x Wheelbase[side] / (CG.z - rear CP.z) x (1 - brake "
        "bias); front: 0 when no drive torque goes to the front",
        aliases=("Anti Lift Percentage", "Anti-Lift"),
        conditions=(
            STEERED_FRONT,
            "front: not established unless the front drive share is 0",
            "blank without the front mass share (CG)",
        ),
        evidence="6e-16 relative",
    ),
    _q(
        "Anti-Squat Percentage",
        "corner",
        "%",
        "100 (slope of the line wheel centre -> side-view instant centre) x Wheelbase[side] "
        "/ (CG.z - rear CP.z) x rear drive share",
        aliases=("Anti Squat Percentage", "Anti-Squat"),
        axles=REAR_ONLY,
        conditions=("blank without the front mass share (CG)",),
        evidence="2.4e-15 relative (rear drive share 1)",
    ),
    # -- corner: gains ---------------------------------------------------------------------
    _q(
        "Camber Angle Gain in Heave",
        "corner",
        "deg/mm",
        "-d(Camber Angle)/d(heave), every contact patch held at its height " + _GAIN_SIGN,
        aliases=("Camber Gain in Heave",),
        evidence="4e-10 deg/mm",
    ),
    _q(
        "Toe Angle Gain in Heave",
        "corner",
        "deg/mm",
        "-d(Toe Angle)/d(heave), every contact patch held at its height " + _GAIN_SIGN,
        aliases=("Toe Gain in Heave", "Bump Steer"),
        evidence="4e-10 deg/mm",
    ),
    *(
        _q(
            f"{what} Angle Gain in {wheel} Wheel Bump/Rebound",
            "corner",
            "deg/mm",
            f"d({what} Angle) per mm of upward motion of the {wheel.lower()} contact patch "
            "(chassis and the other contact patches held): the heave gain on that wheel, 0 "
            "on an independent other wheel",
            aliases=(f"{what} Angle Gain in {wheel} Wheel Bump", f"{what} Gain in {wheel} Wheel"),
            evidence="2.3e-11 deg/mm",
        )
        for wheel in ("Left", "Right")
        for what in ("Camber", "Toe")
    ),
    *(
        _q(
            f"{what} Angle Gain in Roll",
            "corner",
            "deg/deg",
            f"-d({what} Angle)/d(roll): the chassis rolling about the current roll axis "
            "(front and rear roll centres of the step), contact patches held at their heights",
            aliases=(f"{what} Gain in Roll",),
            evidence="2.1e-6 deg/deg",
        )
        for what in ("Camber", "Toe")
    ),
    *(
        _q(
            f"{what} Angle Gain in Pitch",
            "corner",
            "deg/deg",
            f"-d({what} Angle)/d(pitch) about the current pitch axis (pitch centres): "
            "the closest construction found is 2e-3 deg/deg off in heave",
            status="not established",
            aliases=(f"{what} Gain in Pitch",),
        )
        for what in ("Camber", "Toe")
    ),
    _q(
        "Motion Ratio Heave",
        "corner",
        "-",
        "d(heave)/d(CoilOver Length), every contact patch held at its height",
        evidence="2.6e-8",
    ),
    *(
        _q(
            f"Motion Ratio Single {wheel} Wheel",
            "corner",
            "-",
            f"d(-{wheel.lower()} contact patch height)/d(CoilOver Length), chassis and the "
            "other contact patches held; 0 where the coilover does not move",
            evidence="1.5e-8",
        )
        for wheel in ("Left", "Right")
    ),
    _q(
        "Motion Ratio Roll",
        "corner",
        "deg/mm",
        "d(roll)/d(CoilOver Length), rolling about the current roll axis with the contact "
        "patches held at their heights",
        approximate=True,
        evidence="close, not exact: 1.7e-5 deg/mm in heave, 2e-3 deg/mm in a combined motion",
    ),
    _q(
        "Motion Ratio Pitch",
        "corner",
        "deg/mm",
        "d(pitch)/d(CoilOver Length): no construction found that matches",
        status="not established",
    ),
    _q(
        "Motion Ratio Steering",
        "corner",
        "deg/mm",
        "d(SW)/d(CoilOver Length), contact patches held at their heights",
        evidence="5e-7 relative in heave, 2e-4 relative at 75 deg of steer",
    ),
    # -- corner: steering ------------------------------------------------------------------
    _q(
        "Steering Ratio",
        "corner",
        "-",
        "1 / (d Steer Angle / d SW), contact patches held at their heights",
        evidence="4e-8 relative",
    ),
    _q(
        "Steering Toe Angle Gain",
        "corner",
        "deg/deg",
        "-d(Toe Angle)/d(SW), contact patches held at their heights",
        aliases=("Steering Toe Gain",),
        evidence="4e-8 relative",
    ),
    _q(
        "Steering Camber Angle Gain",
        "corner",
        "deg/deg",
        "-d(Camber Angle)/d(SW), contact patches held at their heights",
        aliases=("Steering Camber Gain",),
        evidence="2e-7 relative",
    ),
    _q(
        "Steering Wheel Angle per Steer Angle",
        "corner",
        "-",
        "SW / Steer Angle (a secant, not a rate); blank at zero steer",
        evidence="9e-16",
    ),
    *(
        _q(
            f"Virtual {what}",
            "corner",
            unit,
            f"{text}: OptimumK leaves it blank",
            status="always blank",
        )
        for what, unit, text in (
            ("King Pin Inclination", "deg", "inclination of a virtual steering axis"),
            ("Scrub Radius", "mm", "scrub radius of a virtual steering axis"),
            ("Caster Angle", "deg", "caster of a virtual steering axis"),
            ("Mechanical Trail", "mm", "trail of a virtual steering axis"),
            ("King Pin Axis on Ground X", "mm", "virtual steering axis at the ground"),
            ("King Pin Axis on Ground Y", "mm", "virtual steering axis at the ground"),
            ("King Pin Axis on Ground Z", "mm", "virtual steering axis at the ground"),
        )
    ),
    # -- corner: hardpoints ----------------------------------------------------------------
    *(
        q
        for point, text in OK_POINTS.items()
        for q in _xyz(
            point,
            "corner",
            f"the {text}",
            aliases=(f"{point}_L",) if point in _PUSH_PULL else (),
            evidence="4.7e-11 mm",
        )
    ),
    # -- axle ------------------------------------------------------------------------------
    *_xyz(
        "Roll Center",
        "axle",
        "roll centre: where the front-view lines from the two contact patches to their "
        "front-view instant centres meet (X the contact patches' mean)",
        aliases=("Roll Centre",),
        conditions=(STEERED_FRONT,),
        evidence="2.4e-3 mm front, 4e-7 mm rear",
    ),
    *_xyz(
        "Roll Center (Ground)",
        "axle",
        "roll centre with Z measured from the axle's contact patch height (X, Y as the roll "
        "centre's)",
        aliases=("Roll Centre (Ground)",),
        conditions=(STEERED_FRONT,),
        evidence="1.5e-14 mm from the roll centre",
    ),
    _q("Track", "axle", "mm", "CP_left.y - CP_right.y", aliases=("Track Width",)),
    _q(
        "Steering Ratio",
        "axle",
        "-",
        "1 / mean of the sides' d Steer Angle / d SW (harmonic mean of the sides' ratios)",
        axles=FRONT_ONLY,
        evidence="3e-8 relative",
    ),
    _q(
        "Steering Wheel Angle per Average Steer Angle",
        "axle",
        "-",
        "SW / mean(Steer Angle) (a secant); blank at zero steer",
        axles=FRONT_ONLY,
        evidence="9e-16",
    ),
    _q(
        "Steering Rack Displacement",
        "axle",
        "mm",
        "SW x rack travel per steering-wheel turn / 360: + = inner tie-rod points toward +Y",
        axles=FRONT_ONLY,
        evidence="3.6e-15 mm",
    ),
    _q(
        "Ackerman Angle",
        "axle",
        "deg",
        "|steer of the inner wheel| - |steer of the outer wheel|, the inner wheel on the side "
        "the car turns to",
        aliases=("Ackermann Angle",),
        axles=FRONT_ONLY,
        evidence="1e-16 deg",
    ),
    _q(
        "Ackerman Percentage",
        "axle",
        "%",
        "100 x inner steer / atan(L / (L / tan(outer steer) - t)), L the current Wheelbase, "
        "t the current front Track; blank at zero steer",
        aliases=("Ackermann Percentage", "Ackerman", "Ackermann"),
        axles=FRONT_ONLY,
        evidence="2.8e-14 %",
    ),
    _q(
        "Ackerman Percentage",
        "car",
        "%",
        "as Ackerman Percentage [Front]",
        aliases=("Ackermann Percentage",),
    ),
    *_xyz(
        "Instant Turn Center",
        "axle",
        "the point the car turns about: in pure steer it lies at the rear axle's X on the "
        "ground, but no construction found matches",
        status="not established",
        axles=FRONT_ONLY,
    ),
    _q(
        "Instant Turn Radius",
        "axle",
        "mm",
        "turn radius: not the distance from the turn centre to the CG; no construction found",
        status="not established",
        axles=FRONT_ONLY,
    ),
    _q(
        "Steering Side Ratio",
        "axle",
        "-",
        "OptimumK leaves it blank",
        status="always blank",
        axles=FRONT_ONLY,
    ),
    # -- side ------------------------------------------------------------------------------
    _q(
        "Wheelbase",
        "side",
        "mm",
        "3-D distance between the side's front and rear contact patches",
        evidence="4.6e-13 mm",
    ),
    *_xyz(
        "Pitch Center",
        "side",
        "pitch centre: where the force lines of the side's front and rear contact patches "
        "meet, in the vertical plane through those two contact patches",
        aliases=("Pitch Centre",),
        conditions=(STEERED_FRONT,),
        evidence="5e-5 mm at design, 0.44 mm at +25 mm of heave",
    ),
    *_xyz(
        "Pitch Center (Ground)",
        "side",
        "pitch centre with Z measured from the mean height of the four contact patches",
        aliases=("Pitch Centre (Ground)",),
        conditions=(STEERED_FRONT,),
        evidence="1.3e-13 mm from the pitch centre",
    ),
    _q(
        "Anti-Dive Percentage",
        "side",
        "%",
        "the side's front Anti-Dive Percentage",
        aliases=("Anti Dive Percentage", "Anti-Dive"),
        conditions=(STEERED_FRONT, "blank without the front mass share (CG)"),
        evidence="5e-16 relative",
    ),
    _q(
        "Anti-Squat Percentage",
        "side",
        "%",
        "the side's rear Anti-Squat Percentage",
        aliases=("Anti Squat Percentage", "Anti-Squat"),
        conditions=("blank without the front mass share (CG)",),
        evidence="2.4e-15 relative",
    ),
    # -- car -------------------------------------------------------------------------------
    _q(
        "Wheelbase",
        "car",
        "mm",
        "mean of Wheelbase [Left] and [Right]",
        evidence="2.3e-13 mm",
    ),
    _q(
        "Roll Axis Inclination Angle",
        "car",
        "deg",
        "atan2(-dz, dx), (dx, dz) from the rear to the front roll centre: + = axis lower at "
        "the front",
        aliases=("Roll Axis Inclination",),
        conditions=(STEERED_FRONT,),
        evidence="7e-15 deg from the roll centres",
    ),
    *_xyz(
        "Center of Gravity",
        "car",
        "centre of gravity: at design on the line between the axles' contact-patch "
        "midpoints at the front mass share, raised by the CG height normal to that line; "
        "then carried by the chassis",
        aliases=("Centre of Gravity", "CG"),
        conditions=("blank without the front mass share",),
        evidence="1e-13 mm",
    ),
    # -- inputs ----------------------------------------------------------------------------
    _q("Motion [Heave]", "input", "mm", "heave input: + = chassis up"),
    _q("Motion [Roll]", "input", "deg", "roll input about the step-0 roll axis"),
    _q("Motion [Pitch]", "input", "deg", "pitch input about the step-0 pitch axis"),
    _q("Motion [Steering]", "input", "deg", "steering-wheel angle: + = rack toward +Y"),
    _q(
        "Motion [Completion Percentage]",
        "input",
        "%",
        "progress through the motion (drives a force case's ramp); read from the export",
        status="not established",
    ),
)
"""Every OptimumK quantity we know of, in the order of docs/validation.md's table."""


def quantity(name: str, scope: Scope | None = None) -> OkQuantity:
    """The quantity called `name` (or one of its aliases), matched ignoring case, spaces,
    hyphens and underscores; `scope` picks between same-named ones (Wheelbase). KeyError
    when none matches."""
    want = _norm(name)
    for q in QUANTITIES:
        if scope is not None and q.scope != scope:
            continue
        if want in (_norm(q.name), *(_norm(a) for a in q.aliases)):
            return q
    raise KeyError(name)


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch not in " -_")


def split_key(key: str) -> tuple[str, str | None, str | None]:
    """(quantity name, side, axle) of a channel key (side/axle lower case or None)."""
    if key.startswith("Motion ["):
        return key, None, None
    name, side, axle = key, None, None
    while name.endswith("]") and " [" in name:
        head, _, tag = name.rpartition(" [")
        word = tag[:-1].strip().lower()
        if word in SIDES and side is None:
            side = word
        elif word in AXLES and axle is None:
            axle = word
        else:
            break
        name = head
    return name, side, axle


def _scope_of(side: str | None, axle: str | None) -> Scope:
    if side and axle:
        return "corner"
    if axle:
        return "axle"
    return "side" if side else "car"


def channel_status(
    model: KinematicModel | None, key: str, *, pitch: bool = False, steered: bool = False
) -> tuple[Status, str]:
    """Whether a channel is established for this car and motion: (status, reason).

    pitch: the motion has pitch; steered: the front wheels are steered at some step.
    The reason is "" for an established channel, else says why (an unknown key is
    "not established" with the reason "not an OptimumK quantity we know").
    """
    name, side, axle = split_key(key)
    scope: Scope = "input" if key.startswith("Motion [") else _scope_of(side, axle)
    try:
        q = quantity(name, scope)
    except KeyError:
        if scope == "axle":
            try:  # Ackerman Percentage is also accepted car-level
                q = quantity(name, "car")
            except KeyError:
                return "not established", "not an OptimumK quantity we know"
        else:
            return "not established", "not an OptimumK quantity we know"
    if q.status != "established":
        return q.status, q.definition
    if axle is not None and axle not in q.axles:
        return "not established", f"{q.name} exists on the {' and '.join(q.axles)} axle only"
    front = axle == "front" or (scope == "side" and q.name.startswith("Pitch Center"))
    front = front or q.name in ("Roll Axis Inclination Angle", "Anti-Dive Percentage")
    if steered and STEERED_FRONT in q.conditions and front:
        return "not established", (
            "the front instant centres of a steered upright are not established"
        )
    if pitch and PITCH in q.conditions:
        return "not established", "not established when the motion has pitch"
    if q.name == "Anti-Lift Percentage" and axle == "front":
        opts = model.car.options if model is not None else None
        if opts is None or opts.rear_drive_share != 1.0:
            return "not established", "front anti-lift is known only with no front drive"
    if model is not None:
        opts = model.car.options
        needs_cg = any("front mass share" in c for c in q.conditions)
        if needs_cg and getattr(opts, "front_mass_share", None) is None:
            return "not established", "no front mass share (User Options) to place the CG"
        if q.name == "Toe Distance" and not all(
            getattr(w, "rim_diameter", None) for w in model.car.wheels
        ):
            return "not established", "no rim diameter in the Wheels section"
    return "established", ""


# -- computing the channels -----------------------------------------------------------------
DEG = 180.0 / np.pi
_LINKS = {
    "Tie Rod Length": ("CHAS_TiePnt", "UPRI_TiePnt"),
    "Push/Pull Length": ("NSMA_PPAttPnt", "ROCK_RodPnt"),
    "Upper A-Arm Fore Length": ("CHAS_UppFor", "UPRI_UppPnt"),
    "Upper A-Arm Aft Length": ("CHAS_UppAft", "UPRI_UppPnt"),
    "Lower A-Arm Fore Length": ("CHAS_LowFor", "UPRI_LowPnt"),
    "Lower A-Arm Aft Length": ("CHAS_LowAft", "UPRI_LowPnt"),
}
"""Link lengths: the distance between two named points of the corner."""

_DISPLACED = ("Wheel Center", "Contact Patch")


def corner_points(model: KinematicModel) -> dict[str, dict[str, int]]:
    """Wheel name -> {OptimumK point name: index of a copy of that point} (world geometry).

    The corner's own points are named ``<prefix>_<OptimumK name>`` by the importer; the
    prefix is read from the wheel's lower kingpin point (``FL_UPRI_LowPnt`` -> ``FL_``),
    else the wheel's name and an underscore. Points the car does not have are left out.
    """
    index = {p: i for i, p in reversed(list(enumerate(model.inst_point)))}
    out: dict[str, dict[str, int]] = {}
    for w in model.car.wheels:
        low = w.kingpin_lower or ""
        prefix = low[: -len("UPRI_LowPnt")] if low.endswith("UPRI_LowPnt") else f"{w.name}_"
        out[w.name] = {ok: index[prefix + ok] for ok in OK_POINTS if prefix + ok in index}
    return out


def _static_toe(st: WheelSet) -> np.ndarray:
    """The static toe OptimumK's steer starts from (rad, + = toe-out): the design's
    top-view toe, which is the file's Static Toe for an imported car (its design spin axis
    is unit(-tan toe, side, -tan camber))."""
    return -np.asarray(st.toe0, dtype=float)


def design_cg(model: KinematicModel, front_mass_share: float | None) -> np.ndarray:
    """OptimumK's CG at design (world mm), NaN without a front mass share or two axles.

    ``Mf + (1 - front share)(Mr - Mf) + H n``: Mf, Mr the midpoints of the front and rear
    design contact patches, n the upward unit normal of the line Mf -> Mr in the XZ
    plane, H the workbook's CG height.
    """
    from suspension_sim.metrics.geometry import place_wheels, wheel_set
    from suspension_sim.optimumk.centres import ok_contact_points

    st = wheel_set(model)
    if front_mass_share is None or not {"front", "rear"} <= set(st.axles):
        return np.full(3, np.nan)
    P, _ = model.instance_positions(np.zeros((model.n_params, 1)), derivatives=False)
    geo = place_wheels(st, P.transpose(2, 0, 1), np.eye(3)[None], np.zeros((1, 3)))
    cp = ok_contact_points(geo, st.toe_wp0, st.side, st.radius)[0]
    mf = cp[list(st.axles["front"])].mean(axis=0)
    mr = cp[list(st.axles["rear"])].mean(axis=0)
    d = mr - mf
    n = np.array([d[2], 0.0, -d[0]])
    n = n / np.linalg.norm(n) * (1.0 if d[0] <= 0 else -1.0)
    if n[2] < 0:
        n = -n
    return mf + (1.0 - front_mass_share) * d + model.car.options.cg_height_mm * n


def _finite_ratio(num: float, den: float) -> float:
    return float(num / den) if den != 0.0 and np.isfinite(den) else float("nan")


def optimumk_channels(
    model: KinematicModel,
    poses: Sequence[Pose | None],
    *,
    motion: Any = None,
    steering_deg: Sequence[float] | np.ndarray | None = None,
    front_mass_share: float | None = None,
    rates: bool = True,
) -> dict[str, np.ndarray]:
    """Every established OptimumK channel of a motion's poses: {key: (n,) values}.

    Keys as `channel_key` builds them; values in OptimumK's display units (mm, deg,
    deg/mm, deg/deg, %, ratio); NaN where a step did not solve (None) or the channel is
    blank at that step (e.g. a ratio at zero steer). Channels of quantities that are not
    established are left out; "always blank" ones are all NaN. Displacements are from
    the first step.

    motion: an `OptimumKMotion` (its Motion [...] inputs are echoed and its steering
    gives SW); steering_deg: SW per step when no motion is given (else rack / ratio);
    front_mass_share: overrides the workbook's (User Options) for the CG; rates: also
    the gains, motion ratios and steering rates (one IFT solve per step).
    """
    from suspension_sim.description import wheel_layout
    from suspension_sim.metrics.geometry import pose_geometry, wheel_set

    st = wheel_set(model)
    layout = wheel_layout(model.car)
    n = len(poses)
    rows: list[dict[str, float]] = []
    if steering_deg is None and motion is not None:
        steering_deg = getattr(motion, "steering_deg", None)
    ratio = model.car.rack.ratio_mm_per_deg if model.car.rack is not None else None
    share = front_mass_share
    if share is None:
        share = getattr(model.car.options, "front_mass_share", None)
    cg0 = design_cg(model, share)
    pts = corner_points(model)
    for i, pose in enumerate(poses):
        if pose is None or not pose.converged:
            rows.append({})
            continue
        if steering_deg is not None:
            sw = float(np.asarray(steering_deg, dtype=float)[i])
        else:
            sw = float(pose.rack) / ratio if ratio else float("nan")
        geo = pose_geometry(pose, st, derivatives=rates)
        with np.errstate(divide="ignore", invalid="ignore"):  # centres at infinity: NaN
            rows.append(_pose_channels(pose, st, layout, geo, pts, cg0, sw, ratio, rates))
    keys: list[str] = []
    for row in rows:
        keys.extend(k for k in row if k not in keys)
    out = {k: np.array([row.get(k, np.nan) for row in rows], dtype=float) for k in keys}
    for k in list(out):
        name, side, axle = split_key(k)
        for base in _DISPLACED:
            if name.startswith(base + " ") and len(name) == len(base) + 2:
                dk = channel_key(f"{base} Displacement {name[-1]}", side, axle)
                out[dk] = out[k] - out[k][0]
        if name == "CoilOver Length":
            out[channel_key("CoilOver Displacement", side, axle)] = out[k] - out[k][0]
    if motion is not None:
        for word, attr in (
            ("Heave", "heave_mm"),
            ("Roll", "roll_deg"),
            ("Pitch", "pitch_deg"),
            ("Steering", "steering_deg"),
        ):
            values = getattr(motion, attr, None)
            if values is not None:
                out[f"Motion [{word}]"] = np.asarray(values, dtype=float).reshape(n)
    for q in QUANTITIES:
        if q.status == "always blank":
            for k in q.channel_keys():
                out[k] = np.full(n, np.nan)
    return out


def _angle_between(u: np.ndarray, plane: tuple[np.ndarray, ...]) -> float:
    """asin(|n.u|) (deg): the angle between the line along u and the plane through 3 points."""
    a, b, c = plane
    n = np.cross(b - a, c - a)
    return float(np.degrees(np.arcsin(abs(n @ u) / (np.linalg.norm(n) * np.linalg.norm(u)))))


def _pose_channels(
    pose: Pose,
    st: WheelSet,
    layout: Any,
    geo: Any,
    pts: dict[str, dict[str, int]],
    cg0: np.ndarray,
    sw: float,
    ratio: float | None,
    rates: bool,
) -> dict[str, float]:
    """The channels of one solved pose (module doc; displacements are added later)."""
    from suspension_sim.optimumk.centres import optimumk_centres

    out: dict[str, float] = {}
    R, t = geo.R[0], geo.t[0]
    P = geo.P[0] @ R.T + t  # every point copy, world
    s, C = geo.s_w[0], geo.C_w[0]
    camber = -np.arcsin(np.clip(s[:, 2], -1.0, 1.0))
    toe = -np.arcsin(np.clip(s[:, 0], -1.0, 1.0))
    steer = st.side * (toe - _static_toe(st))
    cen = optimumk_centres(pose)
    cp = np.array([cen.contact_patch[name] for name in st.names]).reshape(-1, 3)
    T = pose.chassis_transform
    cg = T[:3, :3] @ cg0 + T[:3, 3]
    svsa_rad: dict[int, float] = {}
    for i, name in enumerate(st.names):
        axle, side, sgn = layout.axle[i], layout.side[i], float(st.side[i])

        def put(q: str, v: float | np.floating[Any], axle: str = axle, side: str = side) -> None:
            out[channel_key(q, side, axle)] = float(v)

        def put_xyz(q: str, p: np.ndarray) -> None:
            for c, v in zip("XYZ", p, strict=True):
                put(f"{q} {c}", v)

        put("Camber Angle", camber[i] * DEG)
        put("Toe Angle", toe[i] * DEG)
        put("Steer Angle", steer[i] * DEG)
        put("Half Track", sgn * cp[i, 1])
        rim = getattr(model_wheel(pose, name), "rim_diameter", None)
        if rim:
            put("Toe Distance", rim * np.sin(toe[i]))
        put_xyz("Wheel Center", C[i])
        put_xyz("Contact Patch", cp[i])
        if st.i_lower[i] >= 0 and st.i_upper[i] >= 0:
            lbj, ubj = P[st.i_lower[i]], P[st.i_upper[i]]
            k = ubj - lbj
            put("Caster Angle", np.degrees(np.arctan2(-k[0], k[2])))
            put("King Pin Inclination", np.degrees(np.arctan2(-sgn * k[1], k[2])))
            g = lbj + (cp[i, 2] - lbj[2]) / k[2] * k
            put_xyz("King Pin Axis at Ground", g)
            put("Scrub Radius", sgn * (cp[i, 1] - g[1]))
            put("Mechanical Trail", g[0] - cp[i, 0])
        d = st.damper_of[i]
        if d >= 0:
            length = st.damper_design_length[d] - float(pose.shocks[st.dampers[d]])
            put("CoilOver Length", length)
        named = {ok: P[j] for ok, j in pts.get(name, {}).items()}
        for ok, p in named.items():
            put_xyz(ok, p)
        for q, (a, b) in _LINKS.items():
            if a in named and b in named:
                put(q, np.linalg.norm(named[a] - named[b]))
        if "UPRI_UppPnt" in named and "UPRI_TiePnt" in named:
            dv = named["UPRI_TiePnt"] - named["UPRI_UppPnt"]
            put("Top Upright Angle", np.degrees(np.arctan(-dv[2] / dv[0])))
        if "CHAS_TiePnt" in named and "UPRI_TiePnt" in named:
            u = R.T @ (named["UPRI_TiePnt"] - named["CHAS_TiePnt"])
            u = u / np.linalg.norm(u)
            put("Tie Rod Top View Angle", np.degrees(np.arcsin(abs(u[0]))))
            put("Tie Rod Front View Angle", np.degrees(np.arcsin(abs(u[2]))))
        rocker = ("CHAS_RocPiv", "ROCK_RodPnt", "ROCK_CoiPnt")
        if all(p in named for p in rocker):
            plane = tuple(named[p] for p in rocker)
            if "CHAS_AttPnt" in named:
                u = named["CHAS_AttPnt"] - named["ROCK_CoiPnt"]
                put("Rocker/CoilOver Angle", _angle_between(u, plane))
            if "NSMA_PPAttPnt" in named:
                u = named["ROCK_RodPnt"] - named["NSMA_PPAttPnt"]
                put("Rocker/PRod Angle", _angle_between(u, plane))
        fv, sv = cen.fvic[name], cen.svic[name]
        put_xyz("Front View Instant Center", fv)
        put_xyz("Side View Instant Center", sv)
        dy, dz = fv[1] - cp[i, 1], fv[2] - cp[i, 2]
        put("Front View Swing Arm Length", np.hypot(dy, dz))
        put("Front View Swing Arm Angle", np.degrees(np.arctan(dz / abs(dy))))
        dx, dz = sv[0] - cp[i, 0], sv[2] - cp[i, 2]
        put("Side View Swing Arm Length", np.hypot(dx, dz))
        svsa_rad[i] = float(np.arctan(dz / dx)) * (-1.0 if axle == "front" else 1.0)
        put("Side View Swing Arm Angle", np.degrees(svsa_rad[i]))

    opts = pose.model.car.options
    wheelbase: dict[str, float] = {}
    for side, (i_f, i_r) in st.sides.items():
        wheelbase[side] = float(np.linalg.norm(cp[i_f] - cp[i_r]))
        out[channel_key("Wheelbase", side)] = wheelbase[side]
        pc = cen.pitch_centre[side]
        for c, v in zip("XYZ", pc, strict=True):
            out[channel_key(f"Pitch Center {c}", side)] = float(v)
        ground = np.array([pc[0], pc[1], pc[2] - cp[:, 2].mean()])
        for c, v in zip("XYZ", ground, strict=True):
            out[channel_key(f"Pitch Center (Ground) {c}", side)] = float(v)
        wb = wheelbase[side]
        dive = 100.0 * np.tan(svsa_rad[i_f]) * wb / (cg[2] - cp[i_f, 2]) * opts.front_brake_share
        lift = (
            100.0 * np.tan(svsa_rad[i_r]) * wb / (cg[2] - cp[i_r, 2]) * (1 - opts.front_brake_share)
        )
        sv, wc = cen.svic[st.names[i_r]], C[i_r]
        slope = (sv[2] - wc[2]) / (sv[0] - wc[0])
        squat = 100.0 * slope * wb / (cg[2] - cp[i_r, 2]) * opts.rear_drive_share
        for key, v in (
            (channel_key("Anti-Dive Percentage", side, "front"), dive),
            (channel_key("Anti-Dive Percentage", side), dive),
            (channel_key("Anti-Lift Percentage", side, "rear"), lift),
            (channel_key("Anti-Squat Percentage", side, "rear"), squat),
            (channel_key("Anti-Squat Percentage", side), squat),
        ):
            out[key] = float(v)
        if opts.rear_drive_share == 1.0:  # no front drive: no front anti-lift
            out[channel_key("Anti-Lift Percentage", side, "front")] = 0.0
    if wheelbase:
        out["Wheelbase"] = float(np.mean(list(wheelbase.values())))
    for c, v in zip("XYZ", cg, strict=True):
        out[f"Center of Gravity {c}"] = float(v)
    for axle, (il, ir) in st.axles.items():
        rc = cen.roll_centre[axle]
        out[channel_key("Track", None, axle)] = float(cp[il, 1] - cp[ir, 1])
        ground = np.array([rc[0], rc[1], rc[2] - 0.5 * (cp[il, 2] + cp[ir, 2])])
        for c, v, g in zip("XYZ", rc, ground, strict=True):
            out[channel_key(f"Roll Center {c}", None, axle)] = float(v)
            out[channel_key(f"Roll Center (Ground) {c}", None, axle)] = float(g)
    if {"front", "rear"} <= set(cen.roll_centre):
        d = cen.roll_centre["front"] - cen.roll_centre["rear"]
        out["Roll Axis Inclination Angle"] = float(np.degrees(np.arctan2(-d[2], d[0])))
    if st.has_rack and "front" in st.axles:
        il, ir = st.axles["front"]
        out[channel_key("Steering Rack Displacement", None, "front")] = float(pose.rack)
        mean = 0.5 * (steer[il] + steer[ir])
        out[channel_key("Steering Wheel Angle per Average Steer Angle", None, "front")] = (
            _finite_ratio(sw, mean * DEG) if mean != 0.0 else float("nan")
        )
        inner, outer = (steer[il], steer[ir]) if mean >= 0 else (-steer[ir], -steer[il])
        out[channel_key("Ackerman Angle", None, "front")] = float((abs(inner) - abs(outer)) * DEG)
        if wheelbase and mean != 0.0:
            L = out["Wheelbase"]
            track = out[channel_key("Track", None, "front")]
            with np.errstate(divide="ignore", invalid="ignore"):
                ideal = np.arctan(L / (L / np.tan(outer) - track))
            pct = float(100.0 * inner / ideal)
        else:
            pct = float("nan")
        out[channel_key("Ackerman Percentage", None, "front")] = pct
        out["Ackerman Percentage"] = pct
        for i in range(len(st.names)):
            key = channel_key(
                "Steering Wheel Angle per Steer Angle", layout.side[i], layout.axle[i]
            )
            out[key] = _finite_ratio(sw, steer[i] * DEG) if steer[i] != 0.0 else float("nan")
    if rates:
        _rate_channels(pose, st, layout, geo, steer, cen, ratio, out)
    return out


def model_wheel(pose: Pose, name: str) -> Any:
    """The description's wheel called `name`."""
    return next(w for w in pose.model.car.wheels if w.name == name)


def _inverse(x: float, floor: float = 1e-12) -> float:
    return float(1.0 / x) if abs(x) > floor else float("nan")


def _rate_channels(
    pose: Pose,
    st: WheelSet,
    layout: Any,
    geo: Any,
    steer: np.ndarray,
    cen: Any,
    ratio: float | None,
    out: dict[str, float],
) -> None:
    """The gains, motion ratios and steering rates of one pose (`optimumk.rates`)."""
    from suspension_sim.optimumk.rates import pose_rates

    axis = None
    if {"front", "rear"} <= set(cen.roll_centre):
        rf, rr = cen.roll_centre["front"], cen.roll_centre["rear"]
        axis = (rr, (rf - rr) / np.linalg.norm(rf - rr))
    pr = pose_rates(pose, st, geo, steer, axis, ratio if st.has_rack else None)
    for i in range(len(st.names)):
        axle, side = layout.axle[i], layout.side[i]

        def put(q: str, v: float | np.floating[Any], axle: str = axle, side: str = side) -> None:
            out[channel_key(q, side, axle)] = float(v)

        put("Camber Angle Gain in Heave", -pr.heave.camber[i] * DEG)
        put("Toe Angle Gain in Heave", -pr.heave.toe[i] * DEG)
        put("Motion Ratio Heave", _inverse(pr.heave.length[i]))
        pair = st.axles.get(axle)
        for word, j in zip(("Left", "Right"), pair or (None, None), strict=True):
            if j is None:
                continue
            b = pr.bump[j]
            put(f"Camber Angle Gain in {word} Wheel Bump/Rebound", b.camber[i] * DEG)
            put(f"Toe Angle Gain in {word} Wheel Bump/Rebound", b.toe[i] * DEG)
            dl = b.length[i]
            put(f"Motion Ratio Single {word} Wheel", -1.0 / dl if abs(dl) > 1e-12 else 0.0)
        if pr.roll is not None:
            put("Camber Angle Gain in Roll", -pr.roll.camber[i])
            put("Toe Angle Gain in Roll", -pr.roll.toe[i])
            put("Motion Ratio Roll", DEG * _inverse(pr.roll.length[i]))
        if pr.steering is not None:
            d_steer = float(st.side[i]) * pr.steering.toe[i] * DEG  # deg per SW deg
            put("Steering Ratio", _inverse(d_steer))
            put("Steering Toe Angle Gain", -pr.steering.toe[i] * DEG)
            put("Steering Camber Angle Gain", -pr.steering.camber[i] * DEG)
            put("Motion Ratio Steering", _inverse(pr.steering.length[i]))
    if pr.steering is not None and "front" in st.axles:
        il, ir = st.axles["front"]
        mean = 0.5 * (st.side[il] * pr.steering.toe[il] + st.side[ir] * pr.steering.toe[ir])
        out[channel_key("Steering Ratio", None, "front")] = _inverse(float(mean) * DEG)
