"""One entry per reported metric: name, unit, scope, meaning and sign.

Column names are built here and nowhere else::

    <stem>_<where>[_<component>][_<suffix>]

``where`` is a wheel name (``FL``), an axle (``front``/``rear``), a side
(``left``/``right``) or a damper body name; car-wide metrics have none.
``component`` is ``x``/``y``/``z`` for coordinates. ``suffix`` carries the
unit (``mm``, ``deg``, ``deg_per_mm``, ``pct``; nothing for a ratio), e.g.
``camber_FL_deg``, ``wheel_centre_FL_x_mm``, ``track_front_mm``,
``stroke_FL_Damper_mm``, ``motion_ratio_FL``.

Signs are those of the ``iso`` preset (docs/conventions.md); ``optimumk`` says
how that preset differs (see `suspension_sim.metrics.conventions`). All
coordinates are world frame (ISO 8855, ground z = 0) unless stated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Scope = Literal["car", "damper", "wheel", "axle", "side"]


@dataclass(frozen=True)
class Metric:
    """A reported quantity. `key(...)` builds its column name.

    rates: True when it comes from the implicit-function-theorem tangents
    (omitted by ``pose_metrics(..., rates=False)``).
    """

    id: str
    stem: str
    unit: str
    suffix: str
    scope: Scope
    description: str
    sign: str
    rates: bool = False
    components: tuple[str, ...] = ()
    optimumk: str = "same as iso"

    def key(self, where: str = "", component: str = "") -> str:
        """Column name, e.g. ``key("FL") -> "camber_FL_deg"``."""
        parts = [self.stem, where, component, self.suffix]
        return "_".join(p for p in parts if p)

    def label(self, where: str = "", component: str = "") -> str:
        """Human label for a plot axis, e.g. ``"camber FL [deg]"``."""
        text = " ".join(p for p in (self.stem.replace("_", " "), where, component) if p)
        return f"{text} [{self.unit}]" if self.unit else text


def _m(
    id: str,
    unit: str,
    scope: Scope,
    description: str,
    sign: str,
    *,
    stem: str | None = None,
    suffix: str | None = None,
    rates: bool = False,
    components: tuple[str, ...] = (),
    optimumk: str = "same as iso",
) -> Metric:
    if suffix is None:
        suffix = {"%": "pct", "-": ""}.get(unit, unit.replace("/", "_per_"))
    return Metric(
        id, stem or id, unit, suffix, scope, description, sign, rates, components, optimumk
    )


XYZ = ("x", "y", "z")

_ENTRIES: tuple[Metric, ...] = (
    # -- car: chassis state and inputs ---------------------------------------
    _m(
        "chassis_heave",
        "mm",
        "car",
        "Chassis z translation of the reference point relative to design "
        "(pose.chassis z); the ground is fixed at z = 0.",
        "+ = chassis up (ride height increases)",
    ),
    _m(
        "chassis_roll",
        "deg",
        "car",
        "Chassis roll relative to the ground (pose.chassis roll), "
        "R = Rz(yaw) Ry(pitch) Rx(roll) about the reference point.",
        "+ = left side up",
    ),
    _m(
        "chassis_pitch",
        "deg",
        "car",
        "Chassis pitch relative to the ground (pose.chassis pitch).",
        "+ = nose down",
    ),
    _m("rack", "mm", "car", "Rack displacement from design.", "+ = rack toward +Y (left)"),
    _m(
        "steering_wheel_angle",
        "deg",
        "car",
        "rack / steering ratio (only when the workbook gives the ratio); the ratio's "
        "direction comes from the geometry (suspension_sim.solve.steering).",
        "+ = left turn (ISO 8855), whichever side of the axle the rack is",
    ),
    # -- dampers --------------------------------------------------------------
    _m("stroke", "mm", "damper", "Damper stroke from design.", "+ = compression"),
    _m(
        "damper_length",
        "mm",
        "damper",
        "Eye-to-eye length: design length - stroke.",
        "always positive",
    ),
    # -- wheel geometry -------------------------------------------------------
    _m(
        "wheel_travel",
        "mm",
        "wheel",
        "Displacement of the wheel centre along the chassis z axis from design.",
        "+ = bump (wheel up relative to the chassis)",
    ),
    _m(
        "camber",
        "deg",
        "wheel",
        "Inclination of the wheel plane to the ground normal: -asin(s.n), s = unit spin "
        "axis pointing outboard, n = ground normal (world +Z). The tyre-model inclination "
        "angle. Used by both presets.",
        "- = top of the wheel toward the car centreline (both sides)",
    ),
    _m(
        "camber_chassis",
        "deg",
        "wheel",
        "As camber, relative to the chassis: -asin(s.z_chassis).",
        "- = top toward the centreline",
    ),
    _m(
        "camber_front_view",
        "deg",
        "wheel",
        "Front-view projection: -atan2(s.n, |s.y_h|), y_h = chassis y axis projected on "
        "the ground plane (the car's horizontal lateral axis). Equals camber with the "
        "wheel straight; differs with steer.",
        "- = top toward the centreline",
    ),
    _m(
        "toe",
        "deg",
        "wheel",
        "Top-view angle of the wheel heading from the chassis X axis: "
        "atan2(s.x, |s.y|), chassis axes.",
        "+ = toe-in (front of the wheel toward the centreline)",
        optimumk="sign flipped: + = toe-out",
    ),
    _m(
        "toe_wheel_plane",
        "deg",
        "wheel",
        "Angle between the wheel plane and the chassis X axis: asin(s.x), chassis axes "
        "(OptimumK's toe). sin(toe_wheel_plane) = cos(camber_chassis) sin(toe): smaller "
        "than toe on a cambered wheel.",
        "+ = toe-in (front of the wheel toward the centreline)",
        optimumk="sign flipped: + = toe-out (OptimumK's Toe Angle)",
    ),
    _m(
        "steer",
        "deg",
        "wheel",
        "Roadwheel angle: change of the top-view wheel heading from design, about the "
        "chassis z axis (toe change, so static toe is excluded): -side * (toe - design toe).",
        "+ = wheel turned to the left (front toward +Y), both wheels",
        optimumk="wheel-plane toe minus static (design) toe as a heading, -side * "
        "(toe_wheel_plane - its design value): + = turned left on both wheels (earlier "
        "versions flipped the right wheel)",
    ),
    _m(
        "caster",
        "deg",
        "wheel",
        "Side-view angle of the kingpin axis k from the chassis z axis: atan2(-k.x, k.z), "
        "chassis axes. NaN for a wheel without kingpin points that the rack does not steer.",
        "+ = top of the axis rearward",
    ),
    _m(
        "kpi",
        "deg",
        "wheel",
        "Kingpin inclination: front-view angle of k from the chassis z axis, "
        "atan2(-k.y_out, k.z), y_out = outboard lateral direction of the wheel.",
        "+ = top of the axis inboard",
    ),
    _m(
        "scrub_radius",
        "mm",
        "wheel",
        "(CP - G).l: G = kingpin axis meets the ground plane through CP, l = spin axis "
        "projected on that plane (outboard), i.e. measured in the wheel's own axes.",
        "+ = G inboard of CP",
    ),
    _m(
        "mechanical_trail",
        "mm",
        "wheel",
        "(G - CP).h, h = the wheel's forward heading in the ground plane (perpendicular to "
        "l), so it stays meaningful with steer (not along the chassis X axis).",
        "+ = G ahead of CP",
    ),
    _m(
        "scrub_vehicle",
        "mm",
        "wheel",
        "Scrub radius in the vehicle's front view: (CP' - G').(side y_h), CP' = "
        "contact_patch, G' = kingpin axis meets the ground plane through CP', y_h = the "
        "car's horizontal lateral axis (OptimumK's Scrub Radius).",
        "+ = G' inboard of CP'",
    ),
    _m(
        "trail_vehicle",
        "mm",
        "wheel",
        "Mechanical trail in the vehicle's side view: (G' - CP').x_h, x_h = the car's "
        "horizontal heading (OptimumK's Mechanical Trail).",
        "+ = G' ahead of CP'",
    ),
    _m(
        "spindle_length",
        "mm",
        "wheel",
        "Perpendicular distance from the wheel centre to the kingpin axis (kingpin offset at hub).",
        "always >= 0",
    ),
    _m(
        "pushrod_length",
        "mm",
        "wheel",
        "Distance between the two ends of the wheel's push- or pullrod: the two-point "
        "link from the upright (or an arm holding a kingpin point) to the rocker that "
        "carries the wheel's damper (OptimumK's Push/Pull Length). A rigid link, so it "
        "only checks the geometry. NaN for a damper acting on an arm directly.",
        "always > 0",
    ),
    _m(
        "half_track",
        "mm",
        "wheel",
        "Distance of the contact point from the chassis centre plane (chassis y), "
        "measured perpendicular to that plane.",
        "+ = outboard",
    ),
    _m(
        "wheel_centre",
        "mm",
        "wheel",
        "Wheel centre C, world frame.",
        "ISO 8855 axes",
        components=XYZ,
    ),
    _m(
        "contact_point",
        "mm",
        "wheel",
        "Tyre contact point CP = C - r d/|d|, d = n - (n.s)s, world frame.",
        "ISO 8855 axes",
        components=XYZ,
    ),
    _m(
        "contact_patch",
        "mm",
        "wheel",
        "OptimumK's contact patch CP' = C + r unit(s x h), taken pointing down, h = the "
        "car's horizontal heading x_h turned about the vertical by the wheel-plane steer "
        "(optimumk steer); world frame. A few tenths of a mm from contact_point in x on "
        "a cambered, toed wheel.",
        "ISO 8855 axes",
        components=XYZ,
    ),
    # -- axle and side geometry -----------------------------------------------
    _m(
        "track",
        "mm",
        "axle",
        "Left + right half tracks of the axle.",
        "always positive",
    ),
    _m(
        "wheelbase",
        "mm",
        "side",
        "Chassis-X distance from the rear to the front contact point on one side.",
        "+ = front ahead of rear",
    ),
    _m(
        "ackermann",
        "%",
        "axle",
        "(d_i - d_o)/(d_i_ideal - d_o)*100, d_i_ideal = atan(L/(L/tan d_o - t)); "
        "d_o/d_i = outer/inner steer angle magnitudes, L = workbook wheelbase (else the "
        "mean design wheelbase), t = this axle's design track. NaN when (nearly) straight.",
        "100 = ideal Ackermann, 0 = parallel, < 0 = anti-Ackermann",
    ),
    # -- rates (IFT) ------------------------------------------------------------
    _m(
        "motion_ratio",
        "-",
        "wheel",
        "Damper over wheel: d stroke / d wheel travel of the wheel's damper (the damper "
        "whose stroke moves most per mm of this wheel's travel at design), other wheels' "
        "travel and the rack held. Wheel rate = spring rate * MR^2.",
        "+ = damper compresses in bump",
        rates=True,
    ),
    _m(
        "installation_ratio",
        "-",
        "wheel",
        "Wheel over damper: 1 / motion_ratio (the inverse some teams quote).",
        "+ = damper compresses in bump",
        rates=True,
    ),
    _m(
        "motion_ratio_heave",
        "-",
        "wheel",
        "OptimumK's Motion Ratio Heave: d chassis heave / d length of the wheel's damper, "
        "every contact point held on the ground (rack, roll and pitch held): wheel over "
        "spring with the heave itself as the wheel displacement.",
        "+ = the damper extends as the chassis rises",
        rates=True,
    ),
    _m(
        "camber_gain",
        "deg/mm",
        "wheel",
        "d camber / d wheel travel (camber to the ground), single-wheel bump: other "
        "wheels' travel, rack and chassis held.",
        "- = camber goes more negative in bump",
        rates=True,
    ),
    _m(
        "roll_camber",
        "deg/deg",
        "wheel",
        "d camber / d chassis roll with every contact point held on the ground (rack and "
        "the other chassis coordinates held), camber to the ground. Includes the rigid "
        "rotation of the chassis.",
        "for + roll (left up): + = top of the wheel moves outboard",
        rates=True,
    ),
    _m(
        "bump_steer",
        "deg/mm",
        "wheel",
        "d toe / d wheel travel, single-wheel bump (others and the rack held).",
        "+ = toe-in in bump",
        rates=True,
        optimumk="sign flipped with toe: + = toe-out in bump",
    ),
    _m(
        "bump_steer_per_25mm",
        "deg/25mm",
        "wheel",
        "bump_steer * 25: toe change per 25 mm of bump (as often quoted).",
        "+ = toe-in in bump",
        stem="bump_steer",
        rates=True,
        optimumk="sign flipped with toe: + = toe-out in bump",
    ),
    _m(
        "steer_rate",
        "deg/mm",
        "wheel",
        "d steer / d rack with every wheel's travel held (steering ratio at the wheel).",
        "+ = wheel turns left for rack toward +Y",
        rates=True,
        optimumk="d steer / d rack of its steer (wheel-plane toe), + = turns left",
    ),
    _m(
        "steering_toe_gain",
        "deg/deg",
        "wheel",
        "Toe per steering-wheel degree with every contact point held on the ground "
        "(the travels follow the rack), chassis held: d toe / d steering-wheel angle in "
        "iso (top-view toe, + = toe-in, per degree of left turn); OptimumK's Steering Toe "
        "Angle Gain -d toe / d steering in optimumk (its wheel-plane toe, + = toe-out, per "
        "degree of its steering: + = rack toward +Y). Needs the Steering ratio.",
        "iso: + = toe-in per degree of left turn",
        rates=True,
        optimumk="OptimumK's -d toe_wheel_plane (+ out) / d steering (+ = rack toward +Y)",
    ),
    _m(
        "steering_camber_gain",
        "deg/deg",
        "wheel",
        "Camber (to the ground) per steering-wheel degree, contact points held on the "
        "ground, chassis held: d camber / d steering-wheel angle per degree of left turn "
        "in iso; OptimumK's Steering Camber Angle Gain -d camber / d steering (+ = rack "
        "toward +Y) in optimumk. Needs the Steering ratio.",
        "iso: + = top of the wheel moves outboard per degree of left turn",
        rates=True,
        optimumk="OptimumK's -d camber / d steering (+ = rack toward +Y)",
    ),
    _m(
        "steering_ratio",
        "-",
        "axle",
        "Steering-wheel degrees per degree of the axle's mean steer, contact points held on "
        "the ground: 1 / mean(d steer / d steering-wheel angle), steer + = turned left; "
        "the steering-wheel degree is + = left turn in iso, OptimumK's steering (+ = rack "
        "toward +Y) in optimumk, which makes it OptimumK's Steering Ratio. NaN for an axle "
        "the rack does not steer; needs the Steering ratio.",
        "iso: + for any layout",
        rates=True,
        optimumk="OptimumK's 1 / mean(d steer / d steering), steering + = rack toward +Y: "
        "- when the rack is behind the axle",
    ),
    _m(
        "fvic",
        "mm",
        "wheel",
        "Front-view instant centre, force-based: IC = R + (w x v)/|w|^2 in the transverse "
        "plane through R = CP (normal along the car's heading), w = the carrier's angular "
        "velocity normal to that plane, v = the in-plane velocity of the carrier-fixed CP, "
        "for the axle's roll (left travel +1, right -1: single-wheel travel for independent "
        "corners, the axle's own roll for a rigid axle), rack held. A force at CP along "
        "CP -> fvic does no work on the motion (no jacking). World y and z; blank (NaN) "
        "when the force lines are parallel (centre at infinity).",
        "ISO 8855 axes (force-based, plane through CP; 0.1 had it through C as `fvic_planar`)",
        rates=True,
        components=("y", "z"),
    ),
    _m(
        "svic",
        "mm",
        "wheel",
        "Side-view instant centre, force-based: IC = R + (w x v)/|w|^2 in the longitudinal "
        "plane through R = CP (normal along the car's lateral axis), for the axle's heave "
        "(both travels +1: single-wheel travel for independent corners), rack held. The "
        "line CP -> svic sets every anti that uses CP. World x and z; blank (NaN) at "
        "infinity.",
        "ISO 8855 axes (force-based, plane through CP; 0.1 had it through C as `svic_planar`)",
        rates=True,
        components=("x", "z"),
    ),
    _m(
        "fvsa",
        "mm",
        "wheel",
        "Front-view swing-arm length: distance from CP to fvic in the front view "
        "(inf when fvic is at infinity).",
        "always >= 0; fvic_y tells on which side the centre lies",
        rates=True,
    ),
    _m(
        "svsa",
        "mm",
        "wheel",
        "Side-view swing-arm length: distance from CP to svic in the side view "
        "(inf when svic is at infinity).",
        "always >= 0; svic_x tells on which side the centre lies",
        rates=True,
    ),
    _m(
        "fvic_axis",
        "mm",
        "wheel",
        "Diagnostic: where the carrier's instantaneous screw axis (this wheel's own "
        "travel, rack held) pierces the front-view plane of fvic (through CP); world y and "
        "z, NaN at infinity. Off the force-based fvic by pitch x (m x w)/(w.m); not used by "
        "any other metric (called fvic before 0.2).",
        "ISO 8855 axes (screw-axis diagnostic; `fvic` before 0.2)",
        rates=True,
        components=("y", "z"),
    ),
    _m(
        "svic_axis",
        "mm",
        "wheel",
        "Diagnostic: where the same screw axis pierces the side-view plane of svic "
        "(through CP); world x and z, NaN at infinity. Can sit hundreds of mm from svic on "
        "a double wishbone (called svic before 0.2).",
        "ISO 8855 axes (screw-axis diagnostic; `svic` before 0.2)",
        rates=True,
        components=("x", "z"),
    ),
    _m(
        "fvic_arms",
        "mm",
        "wheel",
        "Double wishbones only (both kingpin points on arms pivoted on the chassis): "
        "where the upper and lower arm planes (two chassis pivots and the ball joint "
        "each) meet the front-view plane through CP, the graphical construction other "
        "tools draw. Ignores the tie rod. World y and z, NaN at infinity.",
        "ISO 8855 axes (arm planes, double wishbones only)",
        rates=True,
        components=("y", "z"),
    ),
    _m(
        "svic_arms",
        "mm",
        "wheel",
        "Double wishbones only: where the upper and lower arm planes meet the side-view "
        "plane through CP. World x and z, NaN at infinity (e.g. pivot axes parallel in "
        "side view).",
        "ISO 8855 axes (arm planes, double wishbones only)",
        rates=True,
        components=("x", "z"),
    ),
    _m(
        "anti_dive",
        "%",
        "wheel",
        "Front wheels: tan(theta) * L / cg_height * front_brake_share * 100, theta = "
        "side-view angle of the line from R through its force-based SVIC (R = CP with "
        "outboard brakes: svic; R = C with inboard brakes: svic_anti_dive), i.e. "
        "tan(theta) = dx/dz of the carrier-fixed R in wheel travel (the axle's heave), "
        "positive rising toward the rear; L = workbook wheelbase, else the mean design "
        "wheelbase.",
        "+ = anti-dive, - = pro-dive",
        rates=True,
    ),
    _m(
        "anti_lift",
        "%",
        "wheel",
        "Rear wheels under braking: tan(theta) * L / cg_height * (1 - front_brake_share) "
        "* 100, theta of the line from R (CP: svic; C with inboard rear brakes: "
        "svic_anti_lift) through its SVIC, tan(theta) = -dx/dz of R in wheel travel (the "
        "axle's heave), positive rising toward the front.",
        "+ = anti-lift, - = pro-lift",
        rates=True,
    ),
    _m(
        "anti_squat",
        "%",
        "wheel",
        "Rear wheels under drive: tan(theta) * L / cg_height * rear_drive_share * 100, "
        "theta of the line from R (C for a chassis-mounted drive: svic_anti_squat; CP for "
        "hub motors: svic) through its SVIC, tan(theta) = -dx/dz of R in wheel travel (the "
        "axle's heave), positive rising toward the front.",
        "+ = anti-squat, - = pro-squat",
        rates=True,
    ),
    _m(
        "svic_anti_dive",
        "mm",
        "wheel",
        "With inboard front brakes only (R = wheel centre C): the force-based SVIC in the "
        "longitudinal plane through C, as svic; the line C -> this point gives anti_dive. "
        "World x and z, NaN at infinity.",
        "ISO 8855 axes (force-based, plane through C; only when anti_dive uses C)",
        rates=True,
        components=("x", "z"),
    ),
    _m(
        "svic_anti_lift",
        "mm",
        "wheel",
        "With inboard rear brakes only (R = C): the force-based SVIC through C that gives "
        "anti_lift. World x and z, NaN at infinity.",
        "ISO 8855 axes (force-based, plane through C; only when anti_lift uses C)",
        rates=True,
        components=("x", "z"),
    ),
    _m(
        "svic_anti_squat",
        "mm",
        "wheel",
        "With a chassis-mounted drive only (R = C, the default): the force-based SVIC "
        "through C that gives anti_squat. World x and z, NaN at infinity.",
        "ISO 8855 axes (force-based, plane through C; only when anti_squat uses C)",
        rates=True,
        components=("x", "z"),
    ),
    _m(
        "roll_centre_height",
        "mm",
        "axle",
        "Kinematic roll centre: front-view intersection of the lines through CP_left and "
        "CP_right perpendicular to their velocities in the axle's roll (left travel +1, "
        "right -1), i.e. the lines CP -> fvic; height above the ground. Independent "
        "corners: the classic CP -> FVIC construction; rigid axle: where the axle's roll "
        "motion has no lateral velocity (e.g. the Panhard rod at the centreline).",
        "+ = above the ground",
        rates=True,
        optimumk="same as iso: OptimumK's Roll Center (Ground) Z (force-based lines)",
    ),
    _m(
        "roll_centre_axis_height",
        "mm",
        "axle",
        "Screw-axis roll centre (a diagnostic, not OptimumK's Roll Center, which is the "
        "force-based roll_centre_height): front-view intersection of the lines from "
        "CP_left and CP_right to where each wheel's instantaneous screw axis (its own "
        "travel, rack held) pierces the vertical transverse plane through the two "
        "contact points; height above the ground. Ignores the screw's pitch, so it "
        "differs from roll_centre_height by several mm on a typical FSAE axle.",
        "+ = above the ground",
        rates=True,
        optimumk="same as iso; not OptimumK's Roll Center (that is roll_centre_height)",
    ),
    _m(
        "roll_centre_lateral",
        "mm",
        "axle",
        "Roll centre's distance from the chassis centre plane (chassis y).",
        "+ = toward +Y (left)",
        rates=True,
    ),
    _m(
        "roll_centre_line_angle",
        "deg",
        "axle",
        "Angle between the two front-view lines whose crossing is roll_centre_height "
        "(CP_left and CP_right, each perpendicular to its velocity in the axle's roll), "
        "0..90. The roll centre's conditioning: below NEAR_PARALLEL_LINES_DEG (1 deg) the "
        "lines are nearly parallel and the centre moves far for a small change in either "
        "line (its value is kept; charts mark it). 0 when the lines are parallel.",
        "always >= 0",
        rates=True,
    ),
    _m(
        "roll_centre_axis_line_angle",
        "deg",
        "axle",
        "Angle between the two front-view lines whose crossing is roll_centre_axis_height "
        "(CP -> where each wheel's screw axis pierces the transverse plane), 0..90; "
        "conditioning flag as roll_centre_line_angle.",
        "always >= 0",
        rates=True,
    ),
    _m(
        "pitch_centre",
        "mm",
        "side",
        "Side-view intersection of the lines through CP_front and CP_rear (one side) "
        "perpendicular to their velocities in wheel travel (the axle's heave), i.e. "
        "the lines CP -> svic: x along the car's horizontal heading (world X at zero yaw) "
        "and height z.",
        "ISO 8855 axes",
        rates=True,
        components=("x", "z"),
    ),
    _m(
        "pitch_centre_line_angle",
        "deg",
        "side",
        "Angle between the two side-view lines whose crossing is pitch_centre (CP_front "
        "and CP_rear, each perpendicular to its velocity in the axle's heave), 0..90; "
        "below NEAR_PARALLEL_LINES_DEG (1 deg) the pitch centre is ill-conditioned (value "
        "kept, charts mark it).",
        "always >= 0",
        rates=True,
    ),
)

CATALOGUE: dict[str, Metric] = {m.id: m for m in _ENTRIES}
"""Every metric by id, in column order."""

_UNIT_SUFFIXES = sorted({m.suffix for m in _ENTRIES if m.suffix}, key=len, reverse=True)


def metric_of(column: str) -> tuple[Metric, str, str] | None:
    """(metric, where, component) for a column name, or None if it is not one of ours."""
    for m in sorted(_ENTRIES, key=lambda e: len(e.stem), reverse=True):
        if not column.startswith(m.stem):
            continue
        rest = column[len(m.stem) :]
        if m.suffix:
            if not rest.endswith("_" + m.suffix):
                continue
            rest = rest[: -len(m.suffix) - 1]
        elif any(rest.endswith("_" + s) for s in _UNIT_SUFFIXES):
            continue
        rest = rest.lstrip("_")
        component = ""
        if m.components:
            found = re.search(r"_(" + "|".join(m.components) + r")$", "_" + rest)
            if not found:
                continue
            component = found.group(1)
            rest = rest[: -len(component)].rstrip("_")
        if bool(rest) != (m.scope != "car"):
            continue
        return m, rest, component
    return None


def label(column: str) -> str:
    """Plot label for a column, e.g. ``camber_FL_deg -> "camber FL [deg]"``."""
    found = metric_of(column)
    if found is None:
        return column
    m, where, component = found
    return m.label(where, component)


def markdown_table() -> str:
    """The catalogue as a Markdown table (docs/metrics.md embeds it)."""
    rows = [
        "| column | unit | scope | sign (iso) | optimumk | IFT |",
        "|---|---|---|---|---|---|",
    ]
    example = {"wheel": "FL", "axle": "front", "side": "left", "damper": "FL_Damper", "car": ""}
    for m in _ENTRIES:
        comp = m.components[0] if m.components else ""
        rear = ("anti_lift", "anti_squat", "svic_anti_lift", "svic_anti_squat")
        where = "RL" if m.id in rear else example[m.scope]
        col = m.key(where, comp)
        if m.components:
            col = col.replace(f"_{comp}_", "_{" + ",".join(m.components) + "}_")
            if not m.suffix:
                col = col.replace(f"_{comp}", "_{" + ",".join(m.components) + "}")
        rows.append(
            f"| `{col}` | {m.unit} | {m.scope} | {m.sign} | {m.optimumk} | "
            f"{'yes' if m.rates else ''} |"
        )
    return "\n".join(rows)
