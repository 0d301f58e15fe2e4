"""Wheel angles and kingpin geometry against hand-built geometry (docs/conventions.md).

Truths come from explicit rotations (scipy) and plane geometry, never from
the metric code: a wheel tilted by a known angle about X and turned by a
known angle about Z, a kingpin axis through a known ground point with
known caster and inclination.
"""

from __future__ import annotations

import numpy as np
import pytest
from _metric_cars import TYRE_RADIUS, fixed_wheel_car
from scipy.spatial.transform import Rotation

from suspension_sim import Model
from suspension_sim.metrics import pose_metrics, wheel
from suspension_sim.solve.solver import Pose, SolveInfo

C_LEFT = np.array([0.0, 600.0, 260.0])


def design_pose(model: Model, chassis: tuple[float, ...] = (0.0,) * 6) -> Pose:
    """The design condition as a Pose (the hub is fixed: there is nothing to solve)."""
    info = SolveInfo(True, "none", 0, 0, 0, 0.0, 1e-6, 0.0, 1.0, False)
    return Pose(model, np.zeros(model.n_params), {}, 0.0, chassis, info)  # type: ignore[arg-type]


def tilted_spin(tilt_deg: float, turn_deg: float, side: int) -> np.ndarray:
    """Outboard spin axis after tilting the wheel top inboard by `tilt` (rotation about X,
    sense chosen per side) and then turning it by `turn` about +Z (front toward +Y)."""
    s0 = np.array([0.0, side, 0.0])
    tilt = Rotation.from_euler("x", side * tilt_deg, degrees=True)
    turn = Rotation.from_euler("z", turn_deg, degrees=True)
    return (turn * tilt).apply(s0)


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize(("tilt", "turn"), [(2.0, 0.0), (2.0, 17.0), (-1.5, -8.0), (0.0, 5.0)])
def test_known_tilt_gives_known_camber_and_toe(side: int, tilt: float, turn: float) -> None:
    s = tilted_spin(tilt, turn, side)
    # Hand truths: tilting the top inboard by `tilt` is camber -tilt (any turn keeps
    # the inclination); turning the front toward +Y is toe-out on the left (toe
    # -turn) and toe-in on the right (toe +turn). Front-view camber of a turned
    # wheel: tan(fv) = tan(tilt) / cos(turn).
    camber = -tilt
    toe = -side * turn
    front_view = -np.degrees(np.arctan(np.tan(np.radians(tilt)) / np.cos(np.radians(turn))))
    assert np.degrees(wheel.camber(s)) == pytest.approx(camber, abs=1e-12)
    assert np.degrees(wheel.toe(s)) == pytest.approx(toe, abs=1e-12)
    lateral = np.array([0.0, 1.0, 0.0])
    assert np.degrees(wheel.camber_front_view(s, lateral)) == pytest.approx(front_view, abs=1e-12)

    centre = C_LEFT * np.array([1, side, 1])
    # The workbook may give the axis point inboard of the centre: same answers.
    for spin in (s, -s):
        model = Model(fixed_wheel_car(centre, spin, name="FL" if side > 0 else "FR"))
        name = model.car.wheels[0].name
        iso = pose_metrics(design_pose(model), "iso", rates=False)
        ok = pose_metrics(design_pose(model), "optimumk", rates=False)
        assert iso[f"camber_{name}_deg"] == pytest.approx(camber, abs=1e-9)
        assert iso[f"camber_chassis_{name}_deg"] == pytest.approx(camber, abs=1e-9)
        assert iso[f"camber_front_view_{name}_deg"] == pytest.approx(front_view, abs=1e-9)
        assert iso[f"toe_{name}_deg"] == pytest.approx(toe, abs=1e-9)
        assert ok[f"camber_{name}_deg"] == pytest.approx(camber, abs=1e-9)  # same sign
        assert ok[f"toe_{name}_deg"] == pytest.approx(-toe, abs=1e-9)  # toe-out positive
        assert iso[f"steer_{name}_deg"] == 0.0  # design condition
        # Contact point: directly below the centre along the wheel plane's
        # steepest-descent line, r below along it: height r cos(tilt) lower.
        cp_z = centre[2] - TYRE_RADIUS * np.cos(np.radians(tilt))
        assert iso[f"contact_point_{name}_z_mm"] == pytest.approx(cp_z, abs=1e-9)


def test_front_view_camber_drift_with_steer_matches_conventions_note() -> None:
    """docs/conventions.md: the projection drifts ~0.1 deg from the inclination at 17 deg
    of steer."""
    s = tilted_spin(2.0, 17.0, 1)
    drift = np.degrees(wheel.camber_front_view(s, np.array([0.0, 1.0, 0.0])) - wheel.camber(s))
    assert -0.12 < drift < -0.08


def test_camber_to_ground_and_to_chassis_differ_by_roll() -> None:
    """A vertical wheel on a chassis rolled by +1 deg (left up): the chassis carries the
    wheel's top toward -Y, so camber to the ground is -1 deg (left), chassis camber 0."""
    model = Model(fixed_wheel_car(C_LEFT, np.array([0.0, 1.0, 0.0])))
    m = pose_metrics(design_pose(model, (0.0, 0.0, 0.0, 1.0, 0.0, 0.0)), rates=False)
    assert m["camber_FL_deg"] == pytest.approx(-1.0, abs=1e-9)
    assert m["camber_chassis_FL_deg"] == pytest.approx(0.0, abs=1e-12)
    assert m["camber_front_view_FL_deg"] == pytest.approx(-1.0, abs=1e-9)
    assert m["chassis_roll_deg"] == 1.0


def kingpin_through(
    ground: np.ndarray, caster_deg: float, kpi_deg: float, side: int
) -> tuple[np.ndarray, np.ndarray]:
    """Lower/upper kingpin points on the axis through `ground` (z = 0) with the given
    caster (top rearward) and inclination (top inboard)."""
    k = np.array([-np.tan(np.radians(caster_deg)), -side * np.tan(np.radians(kpi_deg)), 1.0])
    return ground + 120.0 * k, ground + 330.0 * k


@pytest.mark.parametrize("side", [1, -1])
def test_kingpin_caster_kpi_scrub_trail_spindle(side: int) -> None:
    caster, kpi, scrub, trail = 6.0, 8.0, 35.0, 18.0
    centre = C_LEFT * np.array([1, side, 1])
    cp = np.array([0.0, side * 600.0, 0.0])
    # G is `scrub` inboard of CP and `trail` ahead of it, on the ground.
    ground = cp + np.array([trail, -side * scrub, 0.0])
    lower, upper = kingpin_through(ground, caster, kpi, side)
    model = Model(
        fixed_wheel_car(centre, [0.0, side, 0.0], (lower, upper), name="FL" if side > 0 else "FR")
    )
    name = model.car.wheels[0].name
    m = pose_metrics(design_pose(model), rates=False)
    assert m[f"caster_{name}_deg"] == pytest.approx(caster, abs=1e-9)
    assert m[f"kpi_{name}_deg"] == pytest.approx(kpi, abs=1e-9)
    assert m[f"scrub_radius_{name}_mm"] == pytest.approx(scrub, abs=1e-9)
    assert m[f"mechanical_trail_{name}_mm"] == pytest.approx(trail, abs=1e-9)
    k = (upper - lower) / np.linalg.norm(upper - lower)
    spindle = np.linalg.norm(np.cross(centre - lower, k))  # distance point-line
    assert m[f"spindle_length_{name}_mm"] == pytest.approx(spindle, abs=1e-9)
    assert m[f"half_track_{name}_mm"] == pytest.approx(600.0, abs=1e-9)


def test_scrub_and_trail_are_in_the_wheels_own_axes() -> None:
    """Turn the whole wheel + kingpin by 20 deg about the vertical through CP: scrub and
    trail (measured in the wheel's ground axes) are unchanged, toe changes by 20 deg."""
    cp = np.array([0.0, 600.0, 0.0])
    ground = cp + np.array([18.0, -35.0, 0.0])
    lower, upper = kingpin_through(ground, 6.0, 8.0, 1)
    turn = Rotation.from_euler("z", 20.0, degrees=True)

    def about_cp(p: np.ndarray) -> np.ndarray:
        return turn.apply(p - cp) + cp

    model = Model(
        fixed_wheel_car(
            about_cp(C_LEFT), turn.apply([0.0, 1.0, 0.0]), (about_cp(lower), about_cp(upper))
        )
    )
    m = pose_metrics(design_pose(model), rates=False)
    assert m["scrub_radius_FL_mm"] == pytest.approx(35.0, abs=1e-9)
    assert m["mechanical_trail_FL_mm"] == pytest.approx(18.0, abs=1e-9)
    assert m["toe_FL_deg"] == pytest.approx(-20.0, abs=1e-9)  # front toward +Y: toe-out


def test_pure_functions_vectorise_over_wheels() -> None:
    s = np.stack([tilted_spin(2.0, 3.0, 1), tilted_spin(2.0, 3.0, -1)])
    assert np.allclose(np.degrees(wheel.camber(s)), [-2.0, -2.0])
    assert np.allclose(np.degrees(wheel.toe(s)), [-3.0, 3.0])
    steer = np.degrees(wheel.steer(wheel.toe(s), np.zeros(2), np.array([1.0, -1.0])))
    assert np.allclose(steer, [3.0, 3.0])  # both turned left by 3 deg
    centres = np.array([[0.0, 600.0, 260.0], [0.0, -600.0, 260.0]])
    cp = wheel.contact_point(centres, s, np.array([260.0, 260.0]))
    assert np.allclose(cp[:, 2], 260.0 - 260.0 * np.cos(np.radians(2.0)))
