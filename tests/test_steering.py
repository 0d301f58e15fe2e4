"""A positive steering-wheel angle is a left turn, whichever side of the axle the rack is."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from _cars import four_corner_car

import suspension_sim
from suspension_sim import Model
from suspension_sim.errors import InputError
from suspension_sim.solve.steering import left_turn_rack_sign, rack_per_wheel_degree
from suspension_sim.sweeps.motions import steer

WORKBOOKS = Path(__file__).resolve().parents[1] / "workbooks"


def heading_change_deg(pose, wheel) -> float:  # type: ignore[no-untyped-def]
    """Top-view yaw of the wheel's spin axis from design, deg (+ = front toward +Y)."""
    car = pose.model.car
    s0 = car.point(wheel.axis_point) - car.point(wheel.centre)
    s1 = (pose.points.loc[wheel.axis_point] - pose.points.loc[wheel.centre]).to_numpy(dtype=float)
    cross = s0[0] * s1[1] - s0[1] * s1[0]
    return float(np.degrees(np.arctan2(cross, s0[:2] @ s1[:2])))


@pytest.mark.parametrize("source", ["fsae_car", "four_corner"])
def test_positive_steering_wheel_angle_turns_left(source: str) -> None:
    if source == "fsae_car":
        model = suspension_sim.load(WORKBOOKS / "fsae_car.xlsx")
    else:
        car = four_corner_car()
        car = dataclasses.replace(car, rack=dataclasses.replace(car.rack, ratio_mm_per_deg=0.2))
        model = Model(car)
    motion = steer(model, [30.0], unit="deg")
    pose = motion.steps[0].state.solve(model, None)
    front = [w for w in model.car.wheels if w.name.startswith("F")]
    assert all(heading_change_deg(pose, w) > 0.5 for w in front)
    ratio = abs(model.car.rack.ratio_mm_per_deg)
    assert abs(pose.rack) == pytest.approx(30.0 * ratio)
    assert rack_per_wheel_degree(model) == pytest.approx(ratio * left_turn_rack_sign(model))


def test_fsae_example_is_rear_steer() -> None:
    # Its rack sits behind the front axle: a left turn moves the rack toward -Y.
    model = suspension_sim.load(WORKBOOKS / "fsae_car.xlsx")
    assert left_turn_rack_sign(model) == -1.0


def test_steering_wheel_angle_needs_a_ratio() -> None:
    with pytest.raises(InputError, match="Steering ratio"):
        rack_per_wheel_degree(Model(four_corner_car()))
