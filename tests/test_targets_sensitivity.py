"""Targets replacing inputs, and implicit-function-theorem rates vs central differences."""

from __future__ import annotations

import numpy as np
import pytest
from _cars import four_corner_car

from suspension_sim import Model
from suspension_sim.errors import InputError
from suspension_sim.solve.sensitivity import input_tangents, part_twists, point_rates
from suspension_sim.solve.targets import contact_z, coordinate, wheel_travel


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


def contact_point(pose, wheel) -> np.ndarray:  # type: ignore[no-untyped-def]
    """docs/conventions.md: CP = C - r d/|d|, d = n - (n.s)s, from the posed points."""
    c = pose.points.loc[wheel.centre].to_numpy(dtype=float)
    a = pose.points.loc[wheel.axis_point].to_numpy(dtype=float)
    s = (a - c) / np.linalg.norm(a - c)
    n = np.array([0.0, 0.0, 1.0])
    d = n - (n @ s) * s
    return c - wheel.tyre_radius * d / np.linalg.norm(d)


@pytest.mark.parametrize(
    "chassis",
    [(0, 0, -25.0, 0, 0, 0), (0, 0, 15.0, 0, 0, 0), (0, 0, 0, 2.0, 0, 0), (0, 0, -5, 0, -1.5, 0)],
)
def test_ground_motion_keeps_contact_points_on_the_ground(model: Model, chassis) -> None:  # type: ignore[no-untyped-def]
    targets = {
        d: contact_z(w.name) for d, w in zip(model.damper_names, model.car.wheels, strict=True)
    }
    pose = model.solve(chassis=chassis, targets=targets)
    assert pose.converged
    for w in model.car.wheels:
        assert abs(contact_point(pose, w)[2]) < 1e-6
    assert any(abs(v) > 1.0 for v in pose.shocks.values())  # the strokes really moved


def test_wheel_travel_target(model: Model) -> None:
    pose = model.solve(targets={"RL_Damper": wheel_travel("RL", -18.0)})
    z = pose.points.loc["RL_WC", "z"] - model.car.point("RL_WC")[2]
    assert z == pytest.approx(-18.0, abs=1e-9)
    assert pose.shocks["FL_Damper"] == 0.0 and pose.shocks["RL_Damper"] < 0


def test_coordinate_target_replaces_the_rack(model: Model) -> None:
    pose = model.solve(targets={"rack": coordinate("FL_TIE_I", "y", 225.0)})
    assert pose.points.loc["FL_TIE_I", "y"] == pytest.approx(225.0, abs=1e-9)
    assert pose.rack == pytest.approx(5.0, abs=1e-9)


def test_unknown_input_for_target(model: Model) -> None:
    with pytest.raises(InputError, match="not an input"):
        model.solve(targets={"XX": wheel_travel("FL", 1.0)})


def test_ift_rates_match_central_differences(model: Model) -> None:
    shocks = np.array([10.0, 5.0, 3.0, 2.0])
    pose = model.solve(shocks=shocks, rack=4.0)
    tangents = input_tangents(pose)
    rates = point_rates(pose, tangents)
    twists = part_twists(pose, tangents)
    h = 1e-4
    for k, name in enumerate(tangents.inputs):
        du = np.zeros(5)
        du[k] = h
        plus = model.solve(shocks=shocks + du[:4], rack=4.0 + du[4], guess=pose)
        minus = model.solve(shocks=shocks - du[:4], rack=4.0 - du[4], guess=pose)
        fd = (plus.copies.to_numpy() - minus.copies.to_numpy()) / (2 * h)
        assert np.allclose(rates[:, :, k], fd, atol=1e-7, rtol=1e-6), name
        # Twist of every part reproduces its points' velocities: v + w x p.
        P = pose.copies.to_numpy()
        w, v = twists[model.inst_part, :3, k], twists[model.inst_part, 3:, k]
        assert np.allclose(v + np.cross(w, P), rates[:, :, k], atol=1e-9)
