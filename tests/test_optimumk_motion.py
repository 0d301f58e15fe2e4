"""OptimumK's motion style (suspension_sim.optimumk.motion) against an independent composition.

The truth here is OptimumK's rule written out again in the test: from step i-1 to step i
every chassis point is moved by the heave increment along world Z, then turned (own
Rodrigues formula) by the roll increment about the line through the design front and
rear roll centres, then by the pitch increment about the line through the design left
and right pitch centres. The solved poses must carry the chassis points exactly there.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from _cars import four_corner_car

from suspension_sim import Model, load
from suspension_sim.errors import InputError
from suspension_sim.metrics.geometry import pose_geometry, wheel_set
from suspension_sim.optimumk.centres import pitch_centre, roll_centre
from suspension_sim.optimumk.motion import chassis_state, optimumk_motion
from suspension_sim.solve.pose import Pose, chassis_transform

ROOT = Path(__file__).resolve().parents[1]


@cache
def car() -> tuple[Model, Pose]:
    model = load(ROOT / "workbooks" / "fsae_car.xlsx")
    return model, model.solve()


def rodrigues(p: np.ndarray, a: np.ndarray, b: np.ndarray, angle_deg: float) -> np.ndarray:
    """Points p (n, 3) turned by angle about the line a -> b (right hand about b - a)."""
    k = (b - a) / np.linalg.norm(b - a)
    th = math.radians(angle_deg)
    q = p - a
    return (
        a
        + q * math.cos(th)
        + np.cross(k, q) * math.sin(th)
        + np.outer(q @ k, k) * (1.0 - math.cos(th))
    )


def expected_chassis_points(
    design: Pose, heave: np.ndarray, roll: np.ndarray, pitch: np.ndarray
) -> list[np.ndarray]:
    pts = np.array([design.model.car.point(p) for p in design.model.car.body("Chassis").points])
    rf, rr = roll_centre(design, "front"), roll_centre(design, "rear")
    pl, pr = pitch_centre(design, "left"), pitch_centre(design, "right")
    out, prev = [], (0.0, 0.0, 0.0)
    for h, r, p in zip(heave, roll, pitch, strict=True):
        pts = pts + np.array([0.0, 0.0, h - prev[0]])
        pts = rodrigues(pts, rr, rf, r - prev[1])  # + roll lifts the left side
        pts = rodrigues(pts, pr, pl, p - prev[2])  # + pitch: nose down
        out.append(pts)
        prev = (h, r, p)
    return out


def solved_chassis_points(pose: Pose) -> np.ndarray:
    copies = pose.copies.xs("Chassis", level="body")
    names = pose.model.car.body("Chassis").points
    return copies.loc[list(names)].to_numpy()


CASES = {
    "heave": ([0, -10, -25, 15], [0] * 4, [0] * 4, [0] * 4),
    "roll": ([0] * 4, [0, 1, 2.5, -1.5], [0] * 4, [0] * 4),
    "pitch": ([0] * 4, [0] * 4, [0, -0.5, -1.0, 0.8], [0] * 4),
    "steering": ([0] * 4, [0] * 4, [0] * 4, [0, 30, -45, 60]),
    "combined": ([0, -8, -16, -20], [0, 0.7, 1.4, 2.0], [0, -0.2, -0.35, -0.5], [0, 15, 30, 40]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_chassis_points_follow_the_step_by_step_composition(name: str) -> None:
    model, design = car()
    heave, roll, pitch, steering = (np.array(v, dtype=float) for v in CASES[name])
    motion = optimumk_motion(model, heave, roll, pitch, steering, design=design)
    assert motion.ok, motion.problems
    assert not motion.notes  # step 0 is the design: the established case
    expected = expected_chassis_points(design, heave, roll, pitch)
    ground = {w: z for w, z in zip(*_contact_heights(design), strict=True)}
    ratio = model.car.rack.ratio_mm_per_deg
    for i, pose in enumerate(motion.poses):
        assert pose is not None and pose.converged
        np.testing.assert_allclose(solved_chassis_points(pose), expected[i], rtol=0, atol=1e-9)
        assert pose.rack == pytest.approx(steering[i] * ratio, abs=1e-12)  # + toward +Y
        names, z = _contact_heights(pose)
        for w, zi in zip(names, z, strict=True):  # each tyre at its own design height
            assert zi == pytest.approx(ground[w], abs=1e-6)


def _contact_heights(pose: Pose) -> tuple[tuple[str, ...], np.ndarray]:
    st = wheel_set(pose.model)
    return st.names, pose_geometry(pose, st, derivatives=False).cp_w[0, :, 2]


def test_signs_heave_up_roll_left_up_pitch_nose_down() -> None:
    model, design = car()
    m = optimumk_motion(model, [0, 5, 5, 5], [0, 0, 1, 1], [0, 0, 0, 1], [0] * 4, design=design)
    s = [st.chassis for st in m.states]
    assert s[1][2] == pytest.approx(5.0)  # heave: chassis up
    assert s[2][3] == pytest.approx(1.0, abs=0.01)  # roll about a nearly level X axis
    assert s[3][4] == pytest.approx(1.0, abs=0.01)  # pitch about a lateral axis


def test_step_size_matters_when_heave_and_roll_are_combined() -> None:
    model, design = car()
    ends = (-20.0, 2.0, -0.5)
    finals = []
    for n in (2, 5):
        cols = [np.linspace(0.0, e, n) for e in ends]
        m = optimumk_motion(model, *cols, np.zeros(n), design=design)
        assert m.ok
        finals.append(m.poses[-1])
    a, b = (solved_chassis_points(p) for p in finals)
    assert np.abs(a - b).max() > 0.05  # the same end values, another pose
    # Pure roll about one fixed axis does not depend on the step count.
    rolls = [
        optimumk_motion(
            model, np.zeros(n), np.linspace(0, 2, n), np.zeros(n), np.zeros(n), design=design
        ).chassis[-1]
        for n in (2, 5)
    ]
    np.testing.assert_allclose(rolls[0], rolls[1], atol=1e-12)


def test_pure_roll_about_the_inclined_roll_axis_yaws_a_little() -> None:
    model, design = car()
    m = optimumk_motion(model, [0, 0], [0, 2.0], [0, 0], [0, 0], design=design)
    d = roll_centre(design, "front") - roll_centre(design, "rear")
    d /= np.linalg.norm(d)
    phi = math.radians(2.0)
    # Rodrigues about d = (dx, 0, dz): R10 = dz sin(phi), R00 = cos(phi) + dx^2 (1 - cos(phi)).
    yaw = math.degrees(
        math.atan2(d[2] * math.sin(phi), math.cos(phi) + d[0] ** 2 * (1 - math.cos(phi)))
    )
    assert abs(d[2]) > 1e-3  # the example car's roll axis is inclined
    assert m.states[1].chassis[5] == pytest.approx(yaw, rel=1e-9)
    assert abs(yaw) > 1e-3


def test_chassis_state_round_trip_about_a_reference_point() -> None:
    model, _ = car()
    moved = Model(
        dataclasses.replace(
            model.car,
            options=dataclasses.replace(model.car.options, chassis_reference_point="FL_WC"),
        )
    )
    rng = np.random.default_rng(3)
    for _ in range(20):
        roll, pitch, yaw = rng.uniform(-0.3, 0.3, 3)
        c, s = np.cos, np.sin
        T = np.eye(4)
        T[:3, :3] = (
            np.array([[c(yaw), -s(yaw), 0], [s(yaw), c(yaw), 0], [0, 0, 1]])
            @ np.array([[c(pitch), 0, s(pitch)], [0, 1, 0], [-s(pitch), 0, c(pitch)]])
            @ np.array([[1, 0, 0], [0, c(roll), -s(roll)], [0, s(roll), c(roll)]])
        )
        T[:3, 3] = rng.uniform(-50, 50, 3)
        for m in (model, moved):
            back = chassis_transform(m, chassis_state(m, T))
            np.testing.assert_allclose(back, T, rtol=0, atol=1e-12)


def test_a_step_0_off_design_is_reached_in_one_increment_and_noted() -> None:
    model, design = car()
    m = optimumk_motion(model, [-5, -10], [1, 2], [0, 0], [0, 0], design=design)
    assert m.ok and any("not established" in n for n in m.notes)
    expected = expected_chassis_points(design, np.array([-5.0]), np.array([1.0]), np.array([0.0]))
    np.testing.assert_allclose(solved_chassis_points(m.poses[0]), expected[0], atol=1e-9)
    with pytest.raises(InputError, match="step 0 is not the design"):
        optimumk_motion(model, [-5], [0], [0], [0], design=design, step0_from_design=False)


def test_bad_motion_arrays_are_refused() -> None:
    model, design = car()
    with pytest.raises(InputError, match="roll_deg has 1 values, heave_mm 2"):
        optimumk_motion(model, [0, 1], [0], [0, 0], [0, 0], design=design)
    with pytest.raises(InputError, match="not a finite number"):
        optimumk_motion(model, [0, np.nan], [0, 0], [0, 0], [0, 0], design=design)


# -- sweeps in OptimumK's motion style ------------------------------------------------------
def test_a_roll_sweep_in_optimumk_style_is_a_path_from_design() -> None:
    from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep

    model, design = car()
    values = (-1.0, 0.5, 2.0)
    result = run_sweep(model, SweepSpec("r", MotionSpec("roll", values)), motion_style="optimumk")
    assert result.ok and result.motion_style == "optimumk"
    expected = expected_chassis_points(design, np.zeros(4), np.array([0.0, *values]), np.zeros(4))[
        1:
    ]
    for pose, pts in zip(result.poses, expected, strict=True):
        np.testing.assert_allclose(solved_chassis_points(pose), pts, rtol=0, atol=1e-9)
    ours = run_sweep(model, SweepSpec("r", MotionSpec("roll", values)), motion_style="ours")
    assert ours.motion_style == "ours"
    gap = np.abs(solved_chassis_points(ours.poses[-1]) - expected[-1]).max()
    assert gap > 0.5  # about the reference point's X axis, not the roll axis


def test_motion_style_default_follows_the_sign_convention_and_paths_are_not_added() -> None:
    from suspension_sim.sweeps import MotionSpec, SweepSpec
    from suspension_sim.sweeps.motions import motion_style

    model, _ = car()
    assert motion_style(None, None, model) == "ours"  # the example workbook is iso
    assert motion_style(None, "optimumk", model) == "optimumk"
    assert motion_style("Ours", "optimumk", model) == "ours"
    with pytest.raises(InputError, match="unknown motion style 'okay'"):
        motion_style("okay", None, model)
    grid = SweepSpec("g", MotionSpec("roll", (0.0, 1.0)), grid=MotionSpec("heave", (0.0, 5.0)))
    with pytest.raises(InputError, match="a grid of roll and heave in OptimumK's motion style"):
        grid.build(model, "optimumk")
    held = SweepSpec("h", MotionSpec("pitch", (0.0, 1.0)), fixed={"z": 5.0})
    with pytest.raises(InputError, match="holds the chassis z"):
        held.build(model, "optimumk")
    steer = SweepSpec("s", MotionSpec("roll", (0.0, 1.0)), grid=MotionSpec("steer", (0.0, 9.0)))
    assert len(steer.build(model, "optimumk")) == 4  # roll at two rack positions is fine


def test_roll_needs_only_the_roll_axis_and_pitch_names_its_missing_centre() -> None:
    """The test corner's side-view force lines are parallel (pitch centres at infinity):
    a roll-only motion still runs about the roll axis; pitch is refused naming the centre."""
    model = Model(four_corner_car())
    design = model.solve()
    assert not np.all(np.isfinite(pitch_centre(design, "left")))
    assert np.all(np.isfinite(roll_centre(design, "front")))
    zero = np.zeros(3)
    m = optimumk_motion(model, zero, np.array([0.0, 1.0, 2.0]), zero, zero, design=design)
    assert m.ok and not np.any(np.isnan(m.chassis))
    with pytest.raises(InputError, match="left pitch centre") as info:
        optimumk_motion(model, zero, zero, np.array([0.0, 0.5, 1.0]), zero, design=design)
    assert "pitch" in (info.value.hint or "")
