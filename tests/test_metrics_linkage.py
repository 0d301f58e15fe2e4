"""Instant centres, roll and pitch centres, antis and Ackermann against textbook geometry.

The wishbone test cars (tests/_metric_cars.py) have every chassis pivot
axis parallel to X and the tie rod aimed at the front-view instant centre,
so their front view is a planar four-bar: the FVIC is where the two arm
lines cross, the carrier turns about the line through it parallel to X,
and the camber gain is -1 / (C.y - FVIC.y) rad per mm. Tilting an axle's
pivot axes by alpha in side view puts the SVIC at infinity along the tilt,
so anti-dive = tan(alpha) * L / h * share * 100.

Trailing and semi-trailing arms turn about a fixed pivot line, so every
point moves on a circle about it and the antis, instant centres and
roll/pitch centres follow from that line alone. The solid axle on four
parallel links and a Panhard rod rolls about the line (parallel to the
links) through the point where the rod crosses the centreline, and heaves
perpendicular to the links. Motions with screw pitch (real double
wishbones) are checked against finite differences in test_metrics_rates.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from _cars import double_wishbone_corner
from _metric_cars import (
    AXLE_X,
    PANHARD_X,
    PARALLEL_ARMS,
    TYPICAL_ARMS,
    front_view_ic,
    solid_axle_car,
    trailing_arm_car,
    wishbone_car,
)

import suspension_sim
from suspension_sim import Model
from suspension_sim.description import Options, Wheel
from suspension_sim.metrics import linkage, pose_metrics
from suspension_sim.solve.sensitivity import part_twists, screw_axis, wheel_tangents

ROOT = Path(__file__).resolve().parents[1]


def metrics(car, **kw) -> dict[str, float]:  # type: ignore[no-untyped-def]
    model = Model(car)
    return pose_metrics(model.solve(), **kw)


def test_fvic_roll_centre_and_camber_gain_of_a_planar_double_wishbone() -> None:
    m = metrics(wishbone_car())
    ic_y, ic_z = front_view_ic(TYPICAL_ARMS)
    assert m["fvic_FL_y_mm"] == pytest.approx(ic_y, rel=1e-9)
    assert m["fvic_FL_z_mm"] == pytest.approx(ic_z, rel=1e-9)
    assert m["fvic_FR_y_mm"] == pytest.approx(-ic_y, rel=1e-9)  # mirrored
    # Swing arm: CP (600, 0) to the IC, front view.
    assert m["fvsa_FL_mm"] == pytest.approx(np.hypot(600.0 - ic_y, ic_z), rel=1e-9)
    # Roll centre: the line CP (600, 0) -> IC meets the centreline (similar triangles).
    assert m["roll_centre_height_front_mm"] == pytest.approx(
        ic_z * 600.0 / (600.0 - ic_y), rel=1e-9
    )
    assert m["roll_centre_lateral_front_mm"] == pytest.approx(0.0, abs=1e-9)
    gain = -np.degrees(1.0 / (600.0 - ic_y))
    assert m["camber_gain_FL_deg_per_mm"] == pytest.approx(gain, rel=1e-9)
    assert m["camber_gain_FR_deg_per_mm"] == pytest.approx(gain, rel=1e-9)
    assert m["bump_steer_FL_deg_per_mm"] == pytest.approx(0.0, abs=1e-12)  # tie rod aimed at IC
    # Pivot axes parallel to X: the carrier axis never meets a longitudinal plane.
    assert np.isnan(m["svic_FL_x_mm"]) and m["svsa_FL_mm"] == np.inf
    assert m["anti_dive_FL_pct"] == pytest.approx(0.0, abs=1e-9)


def test_parallel_equal_arms_put_the_roll_centre_on_the_ground() -> None:
    m = metrics(wishbone_car(arms=PARALLEL_ARMS))
    assert m["roll_centre_height_front_mm"] == pytest.approx(0.0, abs=1e-9)
    assert m["roll_centre_lateral_front_mm"] == pytest.approx(0.0, abs=1e-9)
    assert m["fvsa_FL_mm"] == np.inf and np.isnan(m["fvic_FL_y_mm"])
    assert m["camber_gain_FL_deg_per_mm"] == pytest.approx(0.0, abs=1e-12)  # translation


@pytest.mark.parametrize("inboard", [False, True])
def test_inclined_pivot_axes_give_textbook_antis_and_pitch_centre(inboard: bool) -> None:
    alpha_f, alpha_r = 3.0, -2.0  # front axes rise toward the rear, rear toward the front
    L, h, front_share, rear_drive = 1530.0, 300.0, 0.62, 0.9
    options = Options(
        cg_height_mm=h,
        wheelbase_mm=L,
        front_brake_share=front_share,
        front_brakes_inboard=inboard,
        rear_brakes_inboard=inboard,
        rear_drive_share=rear_drive,
        drive_inboard=inboard,
    )
    car = wishbone_car(
        ("FL", "FR", "RL", "RR"), incline_deg={"F": alpha_f, "R": alpha_r}, options=options
    )
    m = metrics(car)
    tf, tr = np.tan(np.radians(alpha_f)), np.tan(np.radians(-alpha_r))
    # SVIC at infinity: the line from CP or C has the slope of the axes either way.
    for w in ("FL", "FR"):
        assert m[f"anti_dive_{w}_pct"] == pytest.approx(tf * L / h * front_share * 100, rel=1e-9)
        assert m[f"svsa_{w}_mm"] == np.inf
    for w in ("RL", "RR"):
        assert m[f"anti_lift_{w}_pct"] == pytest.approx(
            tr * L / h * (1 - front_share) * 100, rel=1e-9
        )
        assert m[f"anti_squat_{w}_pct"] == pytest.approx(tr * L / h * rear_drive * 100, rel=1e-9)
    # Pitch centre: z = tf (0 - x) from the front CP and z = tr (x + L) from the rear CP.
    x = -L * tr / (tf + tr)
    for side in ("left", "right"):
        assert m[f"pitch_centre_{side}_x_mm"] == pytest.approx(x, rel=1e-9)
        assert m[f"pitch_centre_{side}_z_mm"] == pytest.approx(-x * tf, rel=1e-9)
    assert m["wheelbase_left_mm"] == pytest.approx(L, abs=1e-9)
    assert m["track_front_mm"] == pytest.approx(1200.0, abs=1e-9)


def test_anti_with_a_finite_svic_uses_the_reference_point() -> None:
    """Pure function: SVIC 2000 mm behind and 150 mm above a front CP at the origin:
    tan(theta) = 150/2000; from C (260 mm up) the line falls: tan = (150-260)/2000."""
    fwd, up = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    svic = (np.array([-2000.0, 600.0, 150.0]), 1.0)
    for ref, tan in ((np.array([0.0, 600.0, 0.0]), 0.075), (np.array([0.0, 600.0, 260.0]), -0.055)):
        d = linkage.line_direction(ref, *svic)
        got = linkage.anti_percent(d, fwd, up, True, 1530.0, 300.0, 0.6)
        assert got == pytest.approx(tan * 1530.0 / 300.0 * 0.6 * 100, rel=1e-12)
    # Seen from a rear CP 1530 mm behind it, the same centre rises toward the front.
    d = linkage.line_direction(np.array([-3530.0, 600.0, 0.0]), *svic)
    got = linkage.anti_percent(d, fwd, up, False, 1530.0, 300.0, 1.0)
    assert got == pytest.approx(150.0 / 1530.0 * 1530.0 / 300.0 * 100, rel=1e-12)


def test_ackermann_formula_hand_case() -> None:
    L, t, d_o = 1530.0, 1200.0, np.radians(20.0)
    ideal = np.arctan(L / (L / np.tan(d_o) - t))  # 1530/(4203.6 - 1200): 26.99 deg
    assert np.degrees(ideal) == pytest.approx(26.99, abs=0.01)
    half = d_o + 0.5 * (ideal - d_o)
    # Left turn: left wheel inside.
    assert linkage.ackermann_percent(half, d_o, L, t) == pytest.approx(50.0, rel=1e-12)
    assert linkage.ackermann_percent(ideal, d_o, L, t) == pytest.approx(100.0, rel=1e-12)
    assert linkage.ackermann_percent(d_o, d_o, L, t) == pytest.approx(0.0, abs=1e-12)
    # Right turn (negative angles): right wheel inside; mirror image, same %.
    assert linkage.ackermann_percent(-d_o, -half, L, t) == pytest.approx(50.0, rel=1e-12)
    assert np.isnan(linkage.ackermann_percent(0.0, 0.0, L, t))


def test_ackermann_of_a_steered_car_uses_its_roadwheel_angles() -> None:
    from _cars import four_corner_car

    model = Model(four_corner_car())
    m = pose_metrics(model.solve(rack=8.0))
    left, right = np.radians(m["steer_FL_deg"]), np.radians(m["steer_FR_deg"])
    assert left > 0 and right > 0  # rack toward +Y turns both wheels left
    # No wheelbase in the workbook: the design wheelbase and track (1530, 1200 mm).
    expected = linkage.ackermann_percent(left, right, 1530.0, 1200.0)
    assert m["ackermann_front_pct"] == pytest.approx(expected, rel=1e-12)


def test_kingpin_from_the_rack_twist_is_the_ball_joint_axis() -> None:
    """Without kingpin points the steering axis is the carrier's instantaneous axis under
    the rack with the springs (strokes) held; for ball joints that is the LBJ-UBJ line."""
    with_points = Model(double_wishbone_corner())
    car = with_points.car
    w = car.wheels[0]
    bare = Wheel(w.name, w.body, w.centre, w.axis_point, w.tyre_radius, w.tyre_width)
    without = Model(type(car)(**{**car.__dict__, "wheels": (bare,)}))
    for shocks, rack in ((0.0, 0.0), (12.0, -6.0)):
        a = pose_metrics(with_points.solve(shocks=[shocks], rack=rack), rates=False)
        b = pose_metrics(without.solve(shocks=[shocks], rack=rack), rates=False)
        for key in ("caster", "kpi", "scrub_radius", "mechanical_trail", "spindle_length"):
            unit = "deg" if key in ("caster", "kpi") else "mm"
            assert b[f"{key}_FL_{unit}"] == pytest.approx(a[f"{key}_FL_{unit}"], abs=1e-7), key


def anti_options(inboard: bool) -> Options:
    return Options(
        cg_height_mm=300.0,
        wheelbase_mm=1530.0,
        front_brake_share=0.6,
        front_brakes_inboard=inboard,
        rear_brakes_inboard=inboard,
        rear_drive_share=0.9,
        drive_inboard=inboard,
    )


@pytest.mark.parametrize("inboard", [False, True])
def test_trailing_arms_by_hand(inboard: bool) -> None:
    """Leading arms in front (pivot line along Y, 400 mm behind and 70 mm above C), trailing
    arms at the rear (400 mm ahead, 70 mm above). A point p of the arm moves on a circle
    about the pivot P: velocity ~ y x (p - P), so dx/dz = -(p_z - P_z) / (p_x - P_x) and
    the line from p toward P is perpendicular to it: tan(theta) is that line's slope."""
    L, h = 1530.0, 300.0
    front = ((-400.0, 350.0, 330.0), (-400.0, 500.0, 330.0))
    rear = ((400.0, 350.0, 330.0), (400.0, 500.0, 330.0))
    car = trailing_arm_car(pivots={"F": front, "R": rear}, options=anti_options(inboard))
    m = metrics(car)
    z_ref = 260.0 if inboard else 0.0  # C or CP
    tan = (330.0 - z_ref) / 400.0  # rises toward the car's centre at both ends
    for w in ("FL", "FR"):
        assert m[f"anti_dive_{w}_pct"] == pytest.approx(tan * L / h * 0.6 * 100, rel=1e-9)
        # Pure rotation about a line parallel to Y: both kinds of centre are the pivot.
        for key in ("svic", "svic_axis"):
            assert m[f"{key}_{w}_x_mm"] == pytest.approx(-400.0, abs=1e-9)
            assert m[f"{key}_{w}_z_mm"] == pytest.approx(330.0, rel=1e-12)
        assert m[f"svsa_{w}_mm"] == pytest.approx(np.hypot(400.0, 330.0), rel=1e-12)
        assert np.isnan(m[f"fvic_{w}_y_mm"]) and m[f"fvsa_{w}_mm"] == np.inf
    for w in ("RL", "RR"):
        assert m[f"anti_lift_{w}_pct"] == pytest.approx(tan * L / h * 0.4 * 100, rel=1e-9)
        assert m[f"anti_squat_{w}_pct"] == pytest.approx(tan * L / h * 0.9 * 100, rel=1e-9)
        assert m[f"svic_{w}_x_mm"] == pytest.approx(400.0 - L, rel=1e-12)
    # Pitch centre: CP-to-pivot lines z = 0.825 (-x) (front) and z = 0.825 (x + L) (rear).
    for side in ("left", "right"):
        assert m[f"pitch_centre_{side}_x_mm"] == pytest.approx(-L / 2, rel=1e-9)
        assert m[f"pitch_centre_{side}_z_mm"] == pytest.approx(0.825 * L / 2, rel=1e-9)
    # Seen from the front the arms only translate CP vertically: roll centre on the ground.
    assert m["roll_centre_height_front_mm"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("inboard", [False, True])
def test_semi_trailing_arm_by_hand(inboard: bool) -> None:
    """A pivot line yawed and tilted: still a pure rotation (no pitch), so the screw-axis and
    force-based centres are both where the pivot line meets the plane through CP (below C),
    and any point p moves along a x (p - P)."""
    pa, pb = np.array([400.0, 300.0, 330.0]), np.array([250.0, 520.0, 380.0])
    car = trailing_arm_car(
        ("RL", "RR"), pivots={"R": (tuple(pa), tuple(pb))}, options=anti_options(inboard)
    )
    m = metrics(car)
    L, h = 1530.0, 300.0
    a = (pb - pa) / np.linalg.norm(pb - pa)
    shift = np.array([-L, 0.0, 0.0])  # the rear corner's origin
    c = np.array([0.0, 600.0, 260.0])
    ref = c if inboard else c - np.array([0.0, 0.0, 260.0])
    v = np.cross(a, ref - pa)
    tan = -v[0] / v[2]
    assert m["anti_lift_RL_pct"] == pytest.approx(tan * L / h * 0.4 * 100, rel=1e-9)
    assert m["anti_squat_RL_pct"] == pytest.approx(tan * L / h * 0.9 * 100, rel=1e-9)
    assert m["anti_squat_RR_pct"] == pytest.approx(m["anti_squat_RL_pct"], rel=1e-9)  # mirror
    side = pa + (600.0 - pa[1]) / a[1] * a + shift  # pivot line meets y = C_y
    front = pa + (0.0 - pa[0]) / a[0] * a  # ... and x = C_x
    for key in ("svic", "svic_axis"):
        assert m[f"{key}_RL_x_mm"] == pytest.approx(side[0], rel=1e-9)
        assert m[f"{key}_RL_z_mm"] == pytest.approx(side[2], rel=1e-9)
    for key in ("fvic", "fvic_axis"):
        assert m[f"{key}_RL_y_mm"] == pytest.approx(front[1], rel=1e-9)
        assert m[f"{key}_RL_z_mm"] == pytest.approx(front[2], rel=1e-9)
    assert m["roll_centre_height_rear_mm"] == pytest.approx(
        front[2] * 600.0 / (600.0 - front[1]), rel=1e-9
    )


@pytest.mark.parametrize(
    ("rise", "panhard"),
    [
        (0.0, ((-420.0, 300.0), (400.0, 300.0))),  # horizontal links and rod
        (0.0, ((-420.0, 250.0), (400.0, 330.0))),  # rod inclined in front view
        (60.0, ((-420.0, 300.0), (400.0, 300.0))),  # links rising toward the front
        (60.0, ((-420.0, 250.0), (400.0, 330.0))),
    ],
)
def test_solid_axle_roll_centre_and_antis_by_hand(
    rise: float, panhard: tuple[tuple[float, float], tuple[float, float]]
) -> None:
    """Four parallel links (direction d, inclined atan(rise/560) in side view) let the axle
    only translate perpendicular to d and rotate about d. Anti-symmetric travel (left +1,
    right -1) is then a rotation about a line parallel to d through the centreline (the
    wheel centres are symmetric); the Panhard rod's axle end may only move perpendicular
    to the rod, so that line crosses the rod's plane (x = -1610) on the rod, at y = 0:
    roll centre = rod height at the centreline + 80 mm * tan(alpha) (the wheel plane is
    80 mm ahead). Heave (both travels +1) translates the axle perpendicular to the links:
    dx/dz = -tan(alpha) for C and CP alike, so anti-squat = tan(alpha) L/h share."""
    (yc, zc), (ya, za) = panhard
    tan_a = rise / 560.0
    rod_at_centre = zc + (0.0 - yc) * (za - zc) / (ya - yc)
    want = rod_at_centre + (AXLE_X - PANHARD_X) * tan_a
    options = Options(cg_height_mm=300.0, wheelbase_mm=1530.0, front_brake_share=0.6)
    model = Model(solid_axle_car(rise, panhard, options))
    pose = model.solve()
    m = pose_metrics(pose)
    assert m["roll_centre_height_rear_mm"] == pytest.approx(want, rel=1e-9)
    assert m["roll_centre_lateral_rear_mm"] == pytest.approx(0.0, abs=1e-9)
    for w in ("RL", "RR"):
        assert m[f"fvic_{w}_y_mm"] == pytest.approx(0.0, abs=1e-9)
        assert m[f"fvic_{w}_z_mm"] == pytest.approx(want, rel=1e-9)
        assert m[f"anti_squat_{w}_pct"] == pytest.approx(tan_a * 1530 / 300 * 100, abs=1e-9)
        assert m[f"anti_lift_{w}_pct"] == pytest.approx(tan_a * 1530 / 300 * 40, abs=1e-9)
    # Equivalently (docs/conventions.md): the axle's screw axis for left +1 / right -1
    # (difference of the two travel columns) pierces the wheel-centre plane there (it has
    # no pitch here).
    axle = next(i for i, p in enumerate(model.parts) if p.body == "Axle")
    twists = part_twists(pose, wheel_tangents(pose))
    point, direction, pitch = screw_axis(twists[axle, :, 0] - twists[axle, :, 1])
    pierce = point + (AXLE_X - point[0]) / direction[0] * direction
    assert pierce[1:] == pytest.approx([0.0, want], abs=1e-9)
    assert abs(pitch) < 1e-9
    # The single-wheel screw-axis diagnostic is where the axle turns when one wheel moves
    # and the other is held: at the held wheel's centre line. Lines CP -> that point meet
    # half as high: the wrong rigid-axle roll centre.
    if rise == 0.0 and zc == za:
        got = (m["fvic_axis_RL_y_mm"], m["fvic_axis_RL_z_mm"])
        assert got == pytest.approx((-590.0, zc), abs=1e-9)


def test_solid_axle_example_rolls_about_its_panhard_rod() -> None:
    """workbooks/solid_axle_rear.xlsx: horizontal parallel links, horizontal Panhard rod at
    300 mm: roll centre 300 mm at the centreline (the single-wheel lines gave 150 mm)."""
    model = suspension_sim.load(ROOT / "workbooks" / "solid_axle_rear.xlsx")
    m = pose_metrics(model.solve())
    assert m["roll_centre_height_rear_mm"] == pytest.approx(300.0, abs=1e-6)
    assert m["roll_centre_lateral_rear_mm"] == pytest.approx(0.0, abs=1e-6)


def test_force_centre_differs_from_the_screw_axis_by_the_pitch() -> None:
    """A screw along w through p0 with pitch h: the point where its axis pierces a plane
    moves by h w, whose in-plane part the force-based centre must cancel, so
    force = pierce + h (m x w) / (w.m); with h = 0 the two coincide."""
    w = np.array([5.7e-4, -3.5e-4, 1.2e-5])
    p0 = np.array([-120.0, 300.0, 150.0])
    m_side, c = np.array([0.0, 1.0, 0.0]), np.array([0.0, 600.0, 260.0])
    for h in (0.0, 33.0, -75.0):
        twist = np.concatenate([w, -np.cross(w, p0) + h * w])
        Ns, ls = linkage.instant_centre(twist, c, m_side)
        Np, lp = linkage.force_centre(twist, c, m_side)
        want = Ns / ls + h * np.cross(m_side, w) / (w @ m_side)
        assert Np / lp == pytest.approx(want, rel=1e-12)
        # The anti line from a reference point in the plane through the force centre is
        # perpendicular to that point's velocity (view_normal), whatever the pitch.
        fwd, up = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
        by_line = linkage.line_direction(c, Np, lp)
        by_velocity, _ = linkage.view_normal(twist[3:] + np.cross(w, c), m_side)
        args = (fwd, up, True, 1530.0, 280.0, 0.65)
        assert linkage.anti_percent(by_line, *args) == pytest.approx(
            linkage.anti_percent(by_velocity, *args), rel=1e-9
        )
    # Pure translation in the view: at infinity, perpendicular to the in-plane velocity.
    toward, lam = linkage.force_centre(np.array([0, 0, 0, 0.1, 0.3, 1.0]), c, m_side)
    assert lam == 0.0 and toward == pytest.approx([1.0, 0.0, -0.1])


def test_fsae_antis_follow_the_velocity_not_the_screw_axis() -> None:
    """Evidence (docs/metrics.md): on the FSAE car the line from CP to the screw-axis point
    (`svic_axis`) gives anti-dive +20.3 %; the contact point's actual motion, i.e. the line
    CP -> the force-based `svic`, gives +27.0 %."""
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    m = pose_metrics(model.solve())
    assert m["anti_dive_FL_pct"] == pytest.approx(26.98, abs=0.01)
    assert m["anti_lift_RL_pct"] == pytest.approx(18.65, abs=0.01)
    assert m["anti_squat_RL_pct"] == pytest.approx(21.04, abs=0.01)
    fwd, up = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    cp = np.array([m[f"contact_point_FL_{a}_mm"] for a in "xyz"])
    by_axis = np.array([m["svic_axis_FL_x_mm"], cp[1], m["svic_axis_FL_z_mm"]])
    old = linkage.anti_percent(by_axis - cp, fwd, up, True, 1530.0, 280.0, 0.65)
    assert old == pytest.approx(20.33, abs=0.01)


# -- instant centres per docs/conventions.md: force-based through R, blanks, arm planes ---------


def test_force_based_fvic_is_the_arm_line_intersection_even_with_bump_steer() -> None:
    """Planar double wishbone (pivot axes along X, ball joints and CP in the plane x = 0)
    with the tie rod NOT aimed at the arm intersection: the ball joints still move
    perpendicular to their arms in the front view, so the in-plane velocity field of the
    plane x = 0 turns about the textbook intersection of the arm lines, bump steer or not.
    The screw axis is no longer parallel to X (w_z from the bump steer) and pierces that
    plane elsewhere."""
    arms = {**TYPICAL_ARMS, "TIE_I": (70.0, 200.0, 260.0)}
    m = metrics(wishbone_car(arms=arms))
    ic_y, ic_z = front_view_ic(TYPICAL_ARMS)
    assert abs(m["bump_steer_FL_deg_per_mm"]) > 1e-3  # the case is not a pure rotation
    for key in ("fvic", "fvic_arms"):
        assert m[f"{key}_FL_y_mm"] == pytest.approx(ic_y, rel=1e-9), key
        assert m[f"{key}_FL_z_mm"] == pytest.approx(ic_z, rel=1e-9), key
        assert m[f"{key}_FR_y_mm"] == pytest.approx(-ic_y, rel=1e-9), key
    axis = np.array([m["fvic_axis_FL_y_mm"], m["fvic_axis_FL_z_mm"]])
    assert np.hypot(*(axis - (ic_y, ic_z))) > 1.0
    assert m["fvsa_FL_mm"] == pytest.approx(np.hypot(600.0 - ic_y, ic_z), rel=1e-9)
    assert m["roll_centre_height_front_mm"] == pytest.approx(
        ic_z * 600.0 / (600.0 - ic_y), rel=1e-9
    )


def test_arm_plane_centres_by_hand() -> None:
    """Lower arm plane z = 120 + (y - 200)/36 (pivot axis along X); the upper arm's pivot
    axis rises 20 mm over 200 mm toward the front: its plane is (0, 250, 300) + a (100, 0,
    10) + b (0, 290, 30). In the side-view plane through CP (y = 600) the lower plane is
    z = z_l and the upper z = 300 + 30 * 350/290 + 0.1 x; in the front-view plane (x = 0)
    both are the arm lines through (250, 300) and (200, 120)."""
    arms = {**TYPICAL_ARMS, "UCA_F": (100.0, 250.0, 310.0), "UCA_R": (-100.0, 250.0, 290.0)}
    m = metrics(wishbone_car(arms=arms))
    z_l = 120.0 + 400.0 / 36.0
    x = (z_l - 300.0 - 30.0 * 350.0 / 290.0) / 0.1
    assert m["svic_arms_FL_x_mm"] == pytest.approx(x, rel=1e-9)
    assert m["svic_arms_FL_z_mm"] == pytest.approx(z_l, rel=1e-9)
    ic = front_view_ic({**TYPICAL_ARMS, "UCA_F": (0.0, 250.0, 300.0)})
    assert m["fvic_arms_FL_y_mm"] == pytest.approx(ic[0], rel=1e-9)
    assert m["fvic_arms_FL_z_mm"] == pytest.approx(ic[1], rel=1e-9)
    # Mirror image on the right.
    assert m["svic_arms_FR_x_mm"] == pytest.approx(x, rel=1e-9)
    assert m["fvic_arms_FR_y_mm"] == pytest.approx(-ic[0], rel=1e-9)
    # Without arms (trailing arm, MacPherson strut, multi-link) there are no arm columns.
    assert not any("_arms_" in k for k in metrics(trailing_arm_car()))
    for name in ("macpherson_front", "five_link_rear"):
        model = suspension_sim.load(ROOT / "workbooks" / f"{name}.xlsx")
        assert not any("_arms_" in k for k in pose_metrics(model.solve()))


def test_parallel_force_lines_give_blank_centres() -> None:
    """Parallel, equal, horizontal arms with pivot axes along X: the carrier translates, so
    no view has a finite centre. Centres are blank (NaN) and swing arms infinite, never a
    large number; the lines (roll centre, antis) stay finite."""
    options = Options(cg_height_mm=300.0, wheelbase_mm=1530.0, front_brakes_inboard=True)
    m = metrics(wishbone_car(arms=PARALLEL_ARMS, options=options))
    for w in ("FL", "FR"):
        for key, comps in (
            ("fvic", "yz"),
            ("svic", "xz"),
            ("fvic_arms", "yz"),
            ("svic_arms", "xz"),
            ("svic_anti_dive", "xz"),
        ):
            for c in comps:
                assert np.isnan(m[f"{key}_{w}_{c}_mm"]), (key, w, c)
        assert m[f"fvsa_{w}_mm"] == np.inf and m[f"svsa_{w}_mm"] == np.inf
        assert m[f"anti_dive_{w}_pct"] == pytest.approx(0.0, abs=1e-9)
    assert m["roll_centre_height_front_mm"] == pytest.approx(0.0, abs=1e-9)


def _anti_variant(case: str) -> tuple[Model, dict[str, object]]:
    """A car, brake/drive options and a pose for the anti consistency test."""
    inboard = {"front_brakes_inboard": True, "rear_brakes_inboard": True, "drive_inboard": True}
    outboard = {"front_brakes_inboard": False, "rear_brakes_inboard": False}
    moved = {"shocks": [6.0, -3.0, 4.0, 1.0], "chassis": (0.0, 0.0, -5.0, 1.2, -0.7, 0.0)}

    def workbook(name: str, **changes) -> Model:  # type: ignore[no-untyped-def]
        car = suspension_sim.load(ROOT / "workbooks" / f"{name}.xlsx").car
        return Model(dataclasses.replace(car, options=dataclasses.replace(car.options, **changes)))

    if case == "fsae as given":
        return workbook("fsae_car"), {}
    if case == "fsae all inboard, rolled+pitched":
        return workbook("fsae_car", **inboard), moved
    if case == "fsae hub drive, outboard brakes":
        return workbook("fsae_car", drive_inboard=False, **outboard), moved
    if case == "five-link inboard":
        return workbook("five_link_rear", **inboard), {"shocks": [4.0]}
    if case == "trailing arms inboard":
        return Model(trailing_arm_car(options=anti_options(True))), {}
    pivots = {"R": ((400.0, 300.0, 330.0), (250.0, 520.0, 380.0))}  # semi-trailing, outboard
    return Model(trailing_arm_car(("RL", "RR"), pivots=pivots, options=anti_options(False))), {}


ANTI_VARIANTS = (
    "fsae as given",
    "fsae all inboard, rolled+pitched",
    "fsae hub drive, outboard brakes",
    "five-link inboard",
    "trailing arms inboard",
    "semi-trailing outboard",
)


@pytest.mark.parametrize("case", ANTI_VARIANTS)
def test_the_printed_side_view_centre_reproduces_each_anti(case: str) -> None:
    """docs/conventions.md: an anti is tan(theta) * L / cg_height * share * 100, theta the
    side-view angle of the line from its reference point R (CP, or C for inboard brakes and
    a chassis-mounted drive) through the SVIC computed for that same R: `svic` for R = CP,
    `svic_anti_*` (present only then) for R = C. Recomputed from the printed columns."""
    model, solve_args = _anti_variant(case)
    o = model.car.options
    design = pose_metrics(model.solve())
    sides = [k for k in ("wheelbase_left_mm", "wheelbase_right_mm") if k in design]
    L = o.wheelbase_mm or float(np.mean([design[k] for k in sides]))
    m = pose_metrics(model.solve(**solve_args))  # type: ignore[arg-type]
    checked = 0
    for w in model.car.wheels:
        front = w.name[0] == "F"
        cases = (
            [("anti_dive", o.front_brake_share, o.front_brakes_inboard)]
            if front
            else [
                ("anti_lift", 1 - o.front_brake_share, o.rear_brakes_inboard),
                ("anti_squat", o.rear_drive_share, o.drive_inboard),
            ]
        )
        for anti, share, at_centre in cases:
            centre = f"svic_{anti}" if at_centre else "svic"
            ref = "wheel_centre" if at_centre else "contact_point"
            assert (f"svic_{anti}_{w.name}_x_mm" in m) == at_centre, (anti, w.name)
            rx, rz = m[f"{ref}_{w.name}_x_mm"], m[f"{ref}_{w.name}_z_mm"]
            ix, iz = m[f"{centre}_{w.name}_x_mm"], m[f"{centre}_{w.name}_z_mm"]
            assert np.isfinite(ix) and np.isfinite(iz), (anti, w.name)
            run = (rx - ix) if front else (ix - rx)  # toward the car's centre
            want = (iz - rz) / run * L / o.cg_height_mm * share * 100.0
            assert m[f"{anti}_{w.name}_pct"] == pytest.approx(want, rel=1e-9, abs=1e-9)
            checked += 1
    assert checked >= 2
