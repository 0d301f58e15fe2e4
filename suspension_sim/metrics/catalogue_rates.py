"""Catalogue entries of the rates: quantities from the implicit-function-theorem
tangents of a pose (motion ratios, gains, instant centres, anti-features, roll
and pitch centres), all with ``rates=True``.

In column order, after `suspension_sim.metrics.catalogue_geometry`. Signs are
those of the ``iso`` preset (docs/conventions.md); world frame unless stated.
"""

from __future__ import annotations

from suspension_sim.metrics.metric import Metric, entry

RATE_ENTRIES: tuple[Metric, ...] = (
    # -- rates (IFT) ------------------------------------------------------------
    entry(
        "motion_ratio",
        "-",
        "wheel",
        "Damper over wheel: d stroke / d wheel travel of the wheel's damper (the damper "
        "whose stroke moves most per mm of this wheel's travel at design), other wheels' "
        "travel and the rack held. Wheel rate = spring rate * MR^2.",
        "+ = damper compresses in bump",
        rates=True,
    ),
    entry(
        "installation_ratio",
        "-",
        "wheel",
        "Wheel over damper: 1 / motion_ratio (the inverse some teams quote).",
        "+ = damper compresses in bump",
        rates=True,
    ),
    entry(
        "motion_ratio_heave",
        "-",
        "wheel",
        "OptimumK's Motion Ratio Heave: d chassis heave / d length of the wheel's damper, "
        "every contact point held on the ground (rack, roll and pitch held): wheel over "
        "spring with the heave itself as the wheel displacement.",
        "+ = the damper extends as the chassis rises",
        rates=True,
    ),
    entry(
        "camber_gain",
        "deg/mm",
        "wheel",
        "d camber / d wheel travel (camber to the ground), single-wheel bump: other "
        "wheels' travel, rack and chassis held.",
        "- = camber goes more negative in bump",
        rates=True,
    ),
    entry(
        "roll_camber",
        "deg/deg",
        "wheel",
        "d camber / d chassis roll with every contact point held on the ground (rack and "
        "the other chassis coordinates held), camber to the ground. Includes the rigid "
        "rotation of the chassis.",
        "for + roll (left up): + = top of the wheel moves outboard",
        rates=True,
    ),
    entry(
        "bump_steer",
        "deg/mm",
        "wheel",
        "d toe / d wheel travel, single-wheel bump (others and the rack held).",
        "+ = toe-in in bump",
        rates=True,
        optimumk="sign flipped with toe: + = toe-out in bump",
    ),
    entry(
        "bump_steer_per_25mm",
        "deg/25mm",
        "wheel",
        "bump_steer * 25: toe change per 25 mm of bump (as often quoted).",
        "+ = toe-in in bump",
        stem="bump_steer",
        rates=True,
        optimumk="sign flipped with toe: + = toe-out in bump",
    ),
    entry(
        "steer_rate",
        "deg/mm",
        "wheel",
        "d steer / d rack with every wheel's travel held (steering ratio at the wheel).",
        "+ = wheel turns left for rack toward +Y",
        rates=True,
        optimumk="d steer / d rack of its steer (wheel-plane toe), + = turns left",
    ),
    entry(
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
    entry(
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
    entry(
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
    entry(
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
    entry(
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
    entry(
        "fvsa",
        "mm",
        "wheel",
        "Front-view swing-arm length: distance from CP to fvic in the front view "
        "(inf when fvic is at infinity).",
        "always >= 0; fvic_y tells on which side the centre lies",
        rates=True,
    ),
    entry(
        "svsa",
        "mm",
        "wheel",
        "Side-view swing-arm length: distance from CP to svic in the side view "
        "(inf when svic is at infinity).",
        "always >= 0; svic_x tells on which side the centre lies",
        rates=True,
    ),
    entry(
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
    entry(
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
    entry(
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
    entry(
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
    entry(
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
    entry(
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
    entry(
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
    entry(
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
    entry(
        "svic_anti_lift",
        "mm",
        "wheel",
        "With inboard rear brakes only (R = C): the force-based SVIC through C that gives "
        "anti_lift. World x and z, NaN at infinity.",
        "ISO 8855 axes (force-based, plane through C; only when anti_lift uses C)",
        rates=True,
        components=("x", "z"),
    ),
    entry(
        "svic_anti_squat",
        "mm",
        "wheel",
        "With a chassis-mounted drive only (R = C, the default): the force-based SVIC "
        "through C that gives anti_squat. World x and z, NaN at infinity.",
        "ISO 8855 axes (force-based, plane through C; only when anti_squat uses C)",
        rates=True,
        components=("x", "z"),
    ),
    entry(
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
    entry(
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
    entry(
        "roll_centre_lateral",
        "mm",
        "axle",
        "Roll centre's distance from the chassis centre plane (chassis y).",
        "+ = toward +Y (left)",
        rates=True,
    ),
    entry(
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
    entry(
        "roll_centre_axis_line_angle",
        "deg",
        "axle",
        "Angle between the two front-view lines whose crossing is roll_centre_axis_height "
        "(CP -> where each wheel's screw axis pierces the transverse plane), 0..90; "
        "conditioning flag as roll_centre_line_angle.",
        "always >= 0",
        rates=True,
    ),
    entry(
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
    entry(
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
