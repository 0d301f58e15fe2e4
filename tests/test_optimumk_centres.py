"""OptimumK's centres (suspension_sim.optimumk.centres) against closed form.

The wishbone test cars (tests/_metric_cars.py) have every chassis pivot axis parallel to
X and the tie rod aimed at the front-view instant centre: the upright turns about the
line through the arm-line intersection parallel to X, so the force-based FV IC is that
intersection. Tilting an axle's pivot axes by alpha (rotation about Y through the wheel
centre) tilts that line, so each contact patch's side-view force line runs along the
tilt: the pitch centre is where the two tilted lines through the contact patches meet.
The force lines (`ForceLine`) stay defined when a centre is at infinity (parallel lines,
or farther than `CENTRE_AT_INFINITY_MM`): checked on trailing arms (a pure rotation about
the pivot line) and on the tilted axes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _metric_cars import (
    PARALLEL_ARMS,
    TYPICAL_ARMS,
    fixed_wheel_car,
    front_view_ic,
    trailing_arm_car,
    wishbone_car,
)

from suspension_sim import Model
from suspension_sim.errors import InputError
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.optimumk.centres import (
    ForceLine,
    fv_instant_centre,
    ok_contact_patches,
    ok_steer,
    optimumk_centres,
    pitch_centre,
    roll_centre,
    sv_instant_centre,
    two_point_lam,
)
from suspension_sim.tolerances import CENTRE_AT_INFINITY_MM

FOUR = ("FL", "FR", "RL", "RR")
WHEELBASE = 1530.0


def test_front_view_centre_is_the_arm_line_intersection_and_roll_centre_on_the_centreline() -> None:
    pose = Model(wishbone_car(corners=FOUR)).solve()
    ic_y, ic_z = front_view_ic(TYPICAL_ARMS)
    fl = fv_instant_centre(pose, "FL")
    assert fl == pytest.approx([0.0, ic_y, ic_z], rel=1e-11, abs=1e-9)  # in the plane X = CP.x = 0
    assert fv_instant_centre(pose, "RR") == pytest.approx(
        [-WHEELBASE, -ic_y, ic_z], rel=1e-11, abs=1e-9
    )
    # Roll centre: the line from CP (y 600, z 0) through the IC meets y = 0 at
    # z = 600 ic_z / (600 - ic_y) (similar triangles); symmetric car: on the centreline.
    rc = roll_centre(pose, "front")
    assert rc == pytest.approx([0.0, 0.0, ic_z * 600.0 / (600.0 - ic_y)], abs=1e-9)
    assert roll_centre(pose, "Rear")[0] == pytest.approx(-WHEELBASE, abs=1e-9)
    # Pivot axes parallel to X: the upright never turns in side view.
    assert np.all(np.isnan(sv_instant_centre(pose, "FL")))


def test_pitch_centre_where_the_tilted_side_view_lines_meet() -> None:
    a_f, a_r = 3.0, -2.0  # front axes rise toward the rear, rear axes toward the front
    pose = Model(wishbone_car(corners=FOUR, incline_deg={"F": a_f, "R": a_r})).solve()
    # Side view: from CP_f (0, 0) along (cos a_f, -sin a_f): z = -tan(a_f) x; from CP_r
    # (-L, 0): z = -tan(a_r) (x + L). They meet at x = L tan a_r / (tan a_f - tan a_r).
    tf, tr = math.tan(math.radians(a_f)), math.tan(math.radians(a_r))
    x = WHEELBASE * tr / (tf - tr)
    expected = [x, 600.0, -tf * x]
    assert pitch_centre(pose, "left") == pytest.approx(expected, abs=1e-8)
    assert pitch_centre(pose, "right") == pytest.approx([x, -600.0, -tf * x], abs=1e-8)
    # The front FV IC lies on the tilted rotation axis: the arm-line intersection at
    # design x, rotated about Y through the wheel centre, then slid along the axis to X = 0.
    ic_y, ic_z = front_view_ic(TYPICAL_ARMS)
    a = math.radians(a_f)
    dz = ic_z - 260.0
    px, pz = math.sin(a) * dz, 260.0 + math.cos(a) * dz
    z_at_0 = pz + (0.0 - px) * (-math.sin(a)) / math.cos(a)
    assert fv_instant_centre(pose, "FL") == pytest.approx([0.0, ic_y, z_at_0], rel=1e-11, abs=1e-8)


def test_parallel_lines_give_nan_and_coincident_lines_the_midpoint() -> None:
    both = Model(wishbone_car(corners=FOUR, incline_deg={"F": 2.0, "R": 2.0})).solve()
    assert np.all(np.isnan(pitch_centre(both, "left")))  # parallel, distinct lines
    flat = Model(wishbone_car(corners=FOUR, arms=PARALLEL_ARMS)).solve()
    assert np.all(np.isnan(fv_instant_centre(flat, "FL")))  # parallel arms: at infinity
    # Both force lines horizontal through the contact patches: one line, the centre
    # is taken midway (the limit of the symmetric case), on the ground.
    assert roll_centre(flat, "front") == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)


def test_contact_patch_is_on_the_tyre_circle_below_the_centre_in_the_heading_plane() -> None:
    # A cambered, toed wheel. OptimumK's heading hd is X turned by its Steer Angle
    # d = side (Toe - Static Toe), Toe = -asin(s.x) (wheel plane) and Static Toe the design's
    # top-view toe -atan(s.x / s.y) (what an OptimumK file holding this wheel would say):
    # not 0 at design on a cambered wheel. The patch C + r unit(s x hd), s x hd =
    # (-s.z sin d, s.z cos d, s.x sin d - s.y cos d), lies on the tyre circle.
    camber, toe = math.radians(-2.0), math.radians(1.5)
    s = np.array([math.sin(toe), math.cos(toe) * math.cos(camber), -math.sin(camber)])
    s /= np.linalg.norm(s)
    centre = np.array([10.0, 600.0, 260.0])
    pose = Model(fixed_wheel_car(centre, s)).solve()
    cp = ok_contact_patches(pose)["FL"]
    d = -math.asin(s[0]) + math.atan(s[0] / s[1])  # left wheel: side = +1
    assert math.degrees(d) == pytest.approx(9.1e-4, rel=0.01)  # the design's steer
    assert ok_steer(wheel_set(pose.model), s[None])[0] == pytest.approx(d, rel=1e-12)
    q = np.array([-s[2] * math.sin(d), s[2] * math.cos(d), s[0] * math.sin(d) - s[1] * math.cos(d)])
    expected = centre + 260.0 * q / np.linalg.norm(q)
    assert cp == pytest.approx(expected, abs=1e-9)
    # 1.4e-4 mm along x from the patch with the heading X (r d s.z)
    assert cp[0] - centre[0] == pytest.approx(-260.0 * d * s[2], rel=1e-3)
    # The lowest point of the circle is elsewhere (it leans along the toed heading).
    assert np.linalg.norm(cp - pose.points.loc["WC"].to_numpy()) == pytest.approx(260.0)
    lowest_x = centre[0] - 260.0 * (-s[2] * s[0]) / math.sqrt(1.0 - s[2] ** 2)
    assert abs(lowest_x - cp[0]) > 0.1


def test_centres_all_at_once_equal_the_single_calls_and_bad_names_are_refused() -> None:
    pose = Model(wishbone_car(corners=FOUR, incline_deg={"F": 3.0, "R": -2.0})).solve()
    c = optimumk_centres(pose)
    assert set(c.fvic) == set(FOUR) and set(c.roll_centre) == {"front", "rear"}
    np.testing.assert_array_equal(c.pitch_centre["left"], pitch_centre(pose, "left"))
    with pytest.raises(InputError, match="no axle 'middle'"):
        roll_centre(pose, "middle")
    with pytest.raises(InputError, match="no wheel 'XX'"):
        fv_instant_centre(pose, "XX")


def test_force_lines_are_defined_at_infinity_and_match_finite_centres() -> None:
    # Trailing arms: pure rotation about the pivot line (400, y, 330): finite side view.
    c = optimumk_centres(Model(trailing_arm_car(corners=FOUR)).solve())
    line = c.sv_line["FL"]
    assert not line.at_infinity
    assert line.centre() == pytest.approx([400.0, 600.0, 330.0], abs=1e-9)
    np.testing.assert_allclose(line.centre(), c.svic["FL"], atol=1e-9)
    toward = line.from_point(np.array([0.0, 600.0, 260.0]))  # wheel centre -> (400, 330)
    assert toward[2] / toward[0] == pytest.approx(70.0 / 400.0, rel=1e-12)
    # ... and a front view at infinity along a horizontal line
    assert c.fv_line["FL"].at_infinity and np.all(np.isnan(c.fv_line["FL"].centre()))
    # Side-view axes tilted by 3 deg: parallel force lines along (cos 3, 0, -sin 3).
    a = math.radians(3.0)
    c = optimumk_centres(Model(wishbone_car(corners=FOUR, incline_deg={"F": 3.0})).solve())
    line = c.sv_line["FR"]
    assert line.at_infinity and np.all(np.isnan(line.centre()))
    d = line.direction / np.linalg.norm(line.direction)
    assert abs(d @ [math.cos(a), 0.0, -math.sin(a)]) == pytest.approx(1.0, abs=1e-12)
    w = line.from_point(np.array([0.0, -600.0, 260.0]))  # from the wheel centre: parallel
    assert w[2] / w[0] == pytest.approx(-math.tan(a), rel=1e-10)


def test_centres_beyond_ten_km_are_at_infinity_and_arms_keep_the_inboard_sense() -> None:
    cp, inward = np.array([0.0, 600.0, 0.0]), np.array([0.0, -1.0, 0.0])
    direction = np.array([0.0, 1.0, 0.05])  # the centre lies outboard (+y) when lam > 0
    near = ForceLine(cp, direction, 1.0 / (0.5 * CENTRE_AT_INFINITY_MM))
    assert not near.at_infinity
    assert near.centre() == pytest.approx(cp + 0.5 * CENTRE_AT_INFINITY_MM * direction)
    assert near.arm(inward)[2] > 0.0  # the true (outboard) sense
    far = ForceLine(cp, direction, 1.0 / (2.0 * CENTRE_AT_INFINITY_MM))
    assert far.at_infinity and np.all(np.isnan(far.centre()))
    assert far.arm(inward) == pytest.approx(-direction)  # taken toward the centreline
    assert ForceLine(cp, direction, 0.0).arm(inward) == pytest.approx(-direction)


def test_side_view_centre_meets_the_wheel_centre_line() -> None:
    """`two_point_lam`: the contact patch's line meets the wheel centre's line (moved into
    the plane Y = CP.y) at a centre chosen by hand; the velocity's out-of-plane part is
    ignored; parallel lines are at infinity (lam = 0)."""
    m = np.array([0.0, 1.0, 0.0])
    cp, wc = np.array([[0.0, 612.0, 0.0]]), np.array([[0.0, 608.0, 200.0]])
    ic = np.array([5000.0, 612.0, 5.0])
    d_cp = ic - cp
    d_p = ic - (wc + np.array([0.0, 4.0, 0.0]))  # from the wheel centre moved into the plane
    u_wc = np.cross(d_p, m) + 3.0 * m  # m x u_wc = d_p; + an out-of-plane part
    assert two_point_lam(cp, d_cp, wc, u_wc, m) == pytest.approx([1.0], rel=1e-12)
    assert two_point_lam(cp, 2.0 * d_cp, wc, u_wc, m) == pytest.approx([2.0], rel=1e-12)
    parallel = np.cross(d_cp, m)  # the wheel centre's line parallel to the contact patch's
    assert two_point_lam(cp, d_cp, wc, parallel, m) == pytest.approx([0.0], abs=0.0)


def test_side_view_centre_of_a_skew_rotation_depends_on_the_wheel_centre_depth() -> None:
    """A body turning about a skew axis (part of its rotation in the side-view plane): the
    side-view velocities at the contact patch's and the wheel centre's depths are not one
    planar rotation, so where their lines meet (solved here by Cramer's rule in X, Z) is not
    the single-point centre CP + (m x v_CP) / (w.m): that is the difference OptimumK's own
    results show (7 % at 309 m)."""
    m = np.array([0.0, 1.0, 0.0])
    w = np.array([0.05, 1.0, 0.02])  # rad per unit, mostly about Y
    A = np.array([3000.0, 500.0, 120.0])  # a point of the axis
    cp, wc = np.array([0.0, 612.0, 4.7]), np.array([1.0, 608.5, 210.4])

    def vel(p: np.ndarray) -> np.ndarray:
        return np.cross(w, p - A)

    d_cp, d_wc = np.cross(m, vel(cp)), np.cross(m, vel(wc))
    # cp + a d_cp = wc' + b d_wc in (x, z): Cramer's rule
    det = -d_cp[0] * d_wc[2] + d_cp[2] * d_wc[0]
    rx, rz = wc[0] - cp[0], wc[2] - cp[2]
    a = (-rx * d_wc[2] + rz * d_wc[0]) / det
    lam = two_point_lam(cp[None], d_cp[None], wc[None], vel(wc)[None], m)[0]
    assert lam == pytest.approx(1.0 / a, rel=1e-10)
    single = 1.0 / (w @ m)  # the single-point centre: cp + d_cp / (w.m)
    apart = abs(1.0 / lam - single) * float(np.linalg.norm(d_cp))  # mm along the line
    assert apart > 0.5  # 1.1 mm here, 3 m from the contact patch: a different point
