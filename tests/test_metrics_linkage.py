"""Instant centres, roll and pitch centres, antis and Ackermann against textbook geometry.

The wishbone test cars (tests/_metric_cars.py) have every chassis pivot
axis parallel to X and the tie rod aimed at the front-view instant centre,
so their front view is a planar four-bar: the FVIC is where the two arm
lines cross, the carrier turns about the line through it parallel to X,
and the camber gain is -1 / (C.y - FVIC.y) rad per mm. Tilting an axle's
pivot axes by alpha in side view puts the SVIC at infinity along the tilt,
so anti-dive = tan(alpha) * L / h * share * 100.
"""

from __future__ import annotations

import numpy as np
import pytest
from _cars import double_wishbone_corner
from _metric_cars import PARALLEL_ARMS, TYPICAL_ARMS, front_view_ic, wishbone_car

from suspension_sim.description import Options, Wheel
from suspension_sim.metrics import linkage, pose_metrics
from suspension_sim.model.model import Model


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
