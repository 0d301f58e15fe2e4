"""OptimumK's corner quantities (one channel per wheel: ``<name> [<Side>] [<Axle>]``).

The first part of the registry (`suspension_sim.optimumk.registry.QUANTITIES`), in the
order of docs/validation.md's table: wheel attitude and position, links and rocker,
instant centres, swing arms and antis, gains, motion ratios, steering and the
hardpoints' coordinates. Definitions in world axes; see the registry's module doc.
"""

from __future__ import annotations

from suspension_sim.optimumk.keys import (
    FRONT_ONLY,
    GAIN_SIGN,
    PITCH,
    REAR_ONLY,
    STEERED_FRONT,
    OkQuantity,
    ok_quantity,
    xyz_quantities,
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

PUSH_PULL = {"NSMA_PPAttPnt", "ROCK_RodPnt", "CHAS_RocAxi", "CHAS_RocPiv", "ROCK_CoiPnt"}
PUSH_PULL |= {"CHAS_AttPnt"}

CORNER_QUANTITIES: tuple[OkQuantity, ...] = (
    # -- corner: wheel attitude and position ---------------------------------------------
    ok_quantity(
        "Camber Angle",
        "corner",
        "deg",
        "-asin(s.z): the wheel plane's inclination from the vertical; - = top toward the car",
        evidence="1.5e-8 deg",
    ),
    ok_quantity(
        "Toe Angle",
        "corner",
        "deg",
        "-asin(s.x): the wheel plane's angle to the X axis; + = toe-out",
        evidence="1.5e-8 deg",
    ),
    ok_quantity(
        "Steer Angle",
        "corner",
        "deg",
        "side x (Toe Angle - the static toe of the design): + = wheel turned left, both sides",
        evidence="0 deg",
    ),
    ok_quantity(
        "Caster Angle",
        "corner",
        "deg",
        "atan2(-k.x, k.z), k from the lower to the upper ball joint: + = top of the axis rearward",
        evidence="6.6e-14 deg",
    ),
    ok_quantity(
        "King Pin Inclination",
        "corner",
        "deg",
        "atan2(-side k.y, k.z): front-view lean of the ball-joint line; + = top inboard",
        aliases=("Kingpin Inclination", "KPI", "King Pin Inclination Angle"),
        evidence="3.4e-14 deg",
    ),
    *xyz_quantities(
        "King Pin Axis at Ground",
        "corner",
        "where the ball-joint line reaches the height of the contact patch",
        aliases=("Kingpin Axis at Ground", "King Pin Axis on Ground"),
        evidence="4.6e-13 mm",
    ),
    ok_quantity(
        "Scrub Radius",
        "corner",
        "mm",
        "side x (CP - G).y, G the king pin axis at ground: + = G inboard of the contact patch",
        evidence="2.5e-13 mm",
    ),
    ok_quantity(
        "Mechanical Trail",
        "corner",
        "mm",
        "(G - CP).x, G the king pin axis at ground: + = G ahead of the contact patch",
        aliases=("Caster Trail", "Trail"),
        evidence="4.4e-13 mm",
    ),
    ok_quantity(
        "Top Upright Angle",
        "corner",
        "deg",
        "side-view angle of the line upper ball joint -> outer tie-rod point: atan(-dz / dx)",
        evidence="8.5e-14 deg",
    ),
    ok_quantity(
        "Half Track", "corner", "mm", "side x CP.y: the contact patch's distance from Y = 0"
    ),
    ok_quantity(
        "Toe Distance",
        "corner",
        "mm",
        "rim diameter x sin(Toe Angle): the toe as a length at the rim (needs the Wheels "
        "section's Rim diameter)",
        conditions=("blank without a rim diameter",),
        evidence="1.4e-14 mm",
    ),
    *xyz_quantities("Wheel Center", "corner", "the wheel centre"),
    *xyz_quantities(
        "Contact Patch",
        "corner",
        "the contact patch C + r unit(s x h) (h = X turned by the steer angle), on the tyre "
        "circle below the centre",
        evidence="1e-3 mm at 75 deg of steer",
    ),
    *xyz_quantities(
        "Wheel Center Displacement",
        "corner",
        "the wheel centre minus its value at the motion's first step",
        evidence="2.1e-13 mm",
    ),
    *xyz_quantities(
        "Contact Patch Displacement",
        "corner",
        "the contact patch minus its value at the motion's first step",
        evidence="2.1e-13 mm",
    ),
    # -- corner: links and the rocker ------------------------------------------------------
    ok_quantity(
        "CoilOver Length",
        "corner",
        "mm",
        "distance between the coilover's two ends (the damper length)",
        aliases=("Coilover Length", "Coil Over Length", "Spring Length"),
        evidence="2.3e-13 mm",
    ),
    ok_quantity(
        "CoilOver Displacement",
        "corner",
        "mm",
        "CoilOver Length minus its value at the motion's first step: + = extension",
        aliases=("Coilover Displacement", "Coil Over Displacement"),
        evidence="2.5e-14 mm",
    ),
    ok_quantity(
        "Push/Pull Length",
        "corner",
        "mm",
        "length of the push or pull rod (arm or upright end to rocker end)",
        aliases=("PushPull Length", "Push Pull Length", "Push-Pull Length", "Pushrod Length"),
        evidence="2.3e-13 mm",
    ),
    ok_quantity(
        "Tie Rod Length",
        "corner",
        "mm",
        "distance between the inner and outer tie-rod points",
        aliases=("Tierod Length", "Tie-Rod Length"),
        evidence="2.3e-13 mm (as a distance of named points)",
    ),
    ok_quantity(
        "Upper A-Arm Fore Length",
        "corner",
        "mm",
        "distance from the upper A-arm's fore chassis pivot to the upper ball joint",
        aliases=("Upper A-Arm Front Length", "Upper A Arm Fore Length", "Upper AArm Fore Length"),
    ),
    ok_quantity(
        "Upper A-Arm Aft Length",
        "corner",
        "mm",
        "distance from the upper A-arm's aft chassis pivot to the upper ball joint",
        aliases=("Upper A-Arm Rear Length", "Upper A Arm Aft Length", "Upper AArm Aft Length"),
    ),
    ok_quantity(
        "Lower A-Arm Fore Length",
        "corner",
        "mm",
        "distance from the lower A-arm's fore chassis pivot to the lower ball joint",
        aliases=("Lower A-Arm Front Length", "Lower A Arm Fore Length", "Lower AArm Fore Length"),
    ),
    ok_quantity(
        "Lower A-Arm Aft Length",
        "corner",
        "mm",
        "distance from the lower A-arm's aft chassis pivot to the lower ball joint",
        aliases=("Lower A-Arm Rear Length", "Lower A Arm Aft Length", "Lower AArm Aft Length"),
    ),
    ok_quantity(
        "Rocker/CoilOver Angle",
        "corner",
        "deg",
        "angle between the coilover and the rocker's plane (rocker pivot, rod end, coilover "
        "end): asin(|n.u|)",
        aliases=("Rocker/Coilover Angle", "Rocker CoilOver Angle", "Rocker/Coil Over Angle"),
        evidence="2.9e-13 deg",
    ),
    ok_quantity(
        "Rocker/PRod Angle",
        "corner",
        "deg",
        "angle between the push/pull rod and the rocker's plane: asin(|n.u|)",
        aliases=("Rocker/Push Rod Angle", "Rocker/PushRod Angle", "Rocker/Pull Rod Angle"),
        evidence="2.9e-13 deg",
    ),
    ok_quantity(
        "Tie Rod Top View Angle",
        "corner",
        "deg",
        "asin(|u.x|), u = unit(outer - inner tie-rod point) in the chassis's axes",
        aliases=("Tierod Top View Angle",),
        conditions=(PITCH,),
        evidence="3.4e-14 deg in heave and steering, 7e-6 deg in roll",
    ),
    ok_quantity(
        "Tie Rod Front View Angle",
        "corner",
        "deg",
        "asin(|u.z|), u = unit(outer - inner tie-rod point) in the chassis's axes",
        aliases=("Tierod Front View Angle",),
        conditions=(PITCH,),
        evidence="3.4e-14 deg in heave and steering, 7e-6 deg in roll",
    ),
    # -- corner: instant centres, swing arms, antis -------------------------------------
    *xyz_quantities(
        "Front View Instant Center",
        "corner",
        "force-based front-view instant centre in the plane X = CP.x (the line CP -> centre "
        "is normal to the contact patch's velocity in the wheel's own travel, rack held)",
        aliases=("FV Instant Center", "Front View IC"),
        # with pitch the view plane is not pinned down: world X gives 0.29 mm (rear, 0.8 deg
        # of pitch in a real result), chassis X 0.002 mm in Y but 0.04 mm in Z
        conditions=(STEERED_FRONT, PITCH),
        evidence="rear exact; front 2e-4 deg (line angle) in heave",
    ),
    *xyz_quantities(
        "Side View Instant Center",
        "corner",
        "side-view instant centre in the plane Y = CP.y: where the line through the contact "
        "patch normal to its side-view velocity meets the line through the wheel centre "
        "normal to the wheel centre's (the wheel's own travel, rack held); compared only "
        "within 10 m of the contact patch (farther it is ill-conditioned)",
        aliases=("SV Instant Center", "Side View IC"),
        conditions=(STEERED_FRONT,),
        evidence="line angle 3e-11 deg; position 8.2 mm at 309 m (9e-10 mm per mm^2 of the "
        "distance) in real results, 7 % off with the contact patch's velocity alone",
    ),
    ok_quantity(
        "Front View Swing Arm Length",
        "corner",
        "mm",
        "distance from the contact patch to the front-view instant centre, in the YZ plane",
        aliases=("FVSA Length", "Front View Swing Arm"),
        conditions=(STEERED_FRONT, PITCH),
        evidence="1.8e-12 mm from the instant centre",
    ),
    ok_quantity(
        "Front View Swing Arm Angle",
        "corner",
        "deg",
        "atan(dz / |dy|), (dy, dz) from the contact patch to the front-view instant centre",
        aliases=("FVSA Angle",),
        conditions=(STEERED_FRONT, PITCH),
        evidence="1e-14 deg from the instant centre",
    ),
    ok_quantity(
        "Side View Swing Arm Length",
        "corner",
        "mm",
        "distance from the contact patch to the side-view instant centre, in the XZ plane; "
        "compared only within 10 m (as the centre)",
        aliases=("SVSA Length", "Side View Swing Arm"),
        conditions=(STEERED_FRONT,),
        evidence="4e-16 relative from the instant centre",
    ),
    ok_quantity(
        "Side View Swing Arm Angle",
        "corner",
        "deg",
        "-atan(dz/dx) front, +atan(dz/dx) rear, (dx, dz) from the contact patch to the "
        "side-view instant centre: + = the line rises toward the other axle",
        aliases=("SVSA Angle",),
        conditions=(STEERED_FRONT,),
        evidence="2e-16 deg from the instant centre",
    ),
    ok_quantity(
        "Anti-Dive Percentage",
        "corner",
        "%",
        "100 tan(front SVSA angle) x Wheelbase[side] / (CG.z - front CP.z) x brake bias",
        aliases=("Anti Dive Percentage", "Anti-Dive"),
        axles=FRONT_ONLY,
        conditions=(STEERED_FRONT, "blank without the front mass share (CG)"),
        evidence="5e-16 relative",
    ),
    ok_quantity(
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
    ok_quantity(
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
    ok_quantity(
        "Camber Angle Gain in Heave",
        "corner",
        "deg/mm",
        "-d(Camber Angle)/d(heave), every contact patch held at its height " + GAIN_SIGN,
        aliases=("Camber Gain in Heave",),
        evidence="4e-10 deg/mm",
    ),
    ok_quantity(
        "Toe Angle Gain in Heave",
        "corner",
        "deg/mm",
        "-d(Toe Angle)/d(heave), every contact patch held at its height " + GAIN_SIGN,
        aliases=("Toe Gain in Heave", "Bump Steer"),
        evidence="4e-10 deg/mm",
    ),
    *(
        ok_quantity(
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
        ok_quantity(
            f"{what} Angle Gain in Roll",
            "corner",
            "deg/deg",
            f"-d({what} Angle)/d(roll): the chassis rolling about the current roll axis "
            "(front and rear roll centres of the step), contact patches held at their heights",
            aliases=(f"{what} Gain in Roll",),
            # the current roll axis comes from the roll centres, not established with pitch
            conditions=(PITCH,),
            evidence="2.1e-6 deg/deg",
        )
        for what in ("Camber", "Toe")
    ),
    *(
        ok_quantity(
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
    ok_quantity(
        "Motion Ratio Heave",
        "corner",
        "-",
        "d(heave)/d(CoilOver Length), every contact patch held at its height",
        evidence="2.6e-8",
    ),
    *(
        ok_quantity(
            f"Motion Ratio Single {wheel} Wheel",
            "corner",
            "-",
            f"d(-{wheel.lower()} contact patch height)/d(CoilOver Length), chassis and the "
            "other contact patches held; 0 where the coilover does not move",
            evidence="1.5e-8",
        )
        for wheel in ("Left", "Right")
    ),
    ok_quantity(
        "Motion Ratio Roll",
        "corner",
        "deg/mm",
        "d(roll)/d(CoilOver Length), rolling about the current roll axis with the contact "
        "patches held at their heights",
        approximate=True,
        conditions=(PITCH,),
        evidence="close, not exact: 1.7e-5 deg/mm in heave, 2e-6 deg/mm in steering, 2e-3 "
        "deg/mm in a combined heave + roll + pitch + steering motion",
        # the combined motion's 2e-3 deg/mm with a 50 % margin; the exact channels' 0.001
        # deg/mm would fail a real combined result on the known approximation
        tolerance=0.003,
    ),
    ok_quantity(
        "Motion Ratio Pitch",
        "corner",
        "deg/mm",
        "d(pitch)/d(CoilOver Length): no construction found that matches",
        status="not established",
    ),
    ok_quantity(
        "Motion Ratio Steering",
        "corner",
        "deg/mm",
        "d(SW)/d(CoilOver Length), contact patches held at their heights; compared only up "
        "to 1000 deg/mm (the coilover barely moving with the steering: a pole)",
        evidence="5e-7 relative in heave, 2e-4 relative at 75 deg of steer; 2.9e-5 relative "
        "up to 1000 deg/mm and the reciprocal to 3.3e-7 mm/deg in real results",
    ),
    # -- corner: steering ------------------------------------------------------------------
    ok_quantity(
        "Steering Ratio",
        "corner",
        "-",
        "1 / (d Steer Angle / d SW), contact patches held at their heights",
        evidence="4e-8 relative",
    ),
    ok_quantity(
        "Steering Toe Angle Gain",
        "corner",
        "deg/deg",
        "-d(Toe Angle)/d(SW), contact patches held at their heights",
        aliases=("Steering Toe Gain",),
        evidence="4e-8 relative",
    ),
    ok_quantity(
        "Steering Camber Angle Gain",
        "corner",
        "deg/deg",
        "-d(Camber Angle)/d(SW), contact patches held at their heights",
        aliases=("Steering Camber Gain",),
        evidence="2e-7 relative",
    ),
    ok_quantity(
        "Steering Wheel Angle per Steer Angle",
        "corner",
        "-",
        "SW / Steer Angle (a secant, not a rate); blank at zero steer",
        evidence="9e-16",
    ),
    *(
        ok_quantity(
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
        for q in xyz_quantities(
            point,
            "corner",
            f"the {text}",
            aliases=(f"{point}_L",) if point in PUSH_PULL else (),
            evidence="4.7e-11 mm",
        )
    ),
)
"""Every corner quantity, in the order of docs/validation.md's table."""
