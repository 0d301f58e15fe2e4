"""Motions: ground motions, single-wheel bump, direct inputs, grids.

Numbers are checked against quantities computed here from the solved
points with the docs/conventions.md formulas, not against the solver's own
targets.
"""

from __future__ import annotations

import numpy as np
import pytest
from _cars import four_corner_car

from suspension_sim import Model
from suspension_sim.description import Rack
from suspension_sim.errors import InputError
from suspension_sim.solve.continuation import move
from suspension_sim.solve.pose import Pose
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import contact_z, wheel_travel
from suspension_sim.sweeps import motions
from suspension_sim.workbook.examples import load_source

Z = np.array([0.0, 0.0, 1.0])


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


@pytest.fixture(scope="module")
def design(model: Model) -> Pose:
    return model.solve()


def contact_point(pose: Pose, wheel_name: str) -> np.ndarray:
    """docs/conventions.md: CP = C - r d/|d|, d = n - (n.s)s, from the posed points."""
    w = next(w for w in pose.model.car.wheels if w.name == wheel_name)
    c = pose.points.loc[w.centre].to_numpy(dtype=float)
    a = pose.points.loc[w.axis_point].to_numpy(dtype=float)
    s = (a - c) / np.linalg.norm(a - c)
    d = Z - (Z @ s) * s
    return c - w.tyre_radius * d / np.linalg.norm(d)


def travel(pose: Pose, wheel_name: str) -> float:
    """Wheel centre displacement along the chassis z axis from design (mm)."""
    w = next(w for w in pose.model.car.wheels if w.name == wheel_name)
    c = pose.points.loc[w.centre].to_numpy(dtype=float)
    T = pose.chassis_transform
    local = T[:3, :3].T @ (c - T[:3, 3])
    return float(local[2] - pose.model.car.point(w.centre)[2])


def test_each_damper_maps_to_the_wheel_on_its_corner(model: Model) -> None:
    assert motions.damper_wheels(model) == {
        "FL_Damper": "FL",
        "FR_Damper": "FR",
        "RL_Damper": "RL",
        "RR_Damper": "RR",
    }
    assert motions.wheel_dampers(model)["RR"] == "RR_Damper"


def test_solid_axle_maps_dampers_and_keeps_both_wheels_on_the_ground() -> None:
    axle = Model(load_source("solid_axle_rear"))
    assert motions.damper_wheels(axle) == {"RL_Damper": "RL", "RR_Damper": "RR"}
    start = axle.solve()
    poses = [
        move(start, s.state) for s in [*motions.roll(axle, [2.0]), *motions.heave(axle, [-15])]
    ]
    for pose in poses:
        for w in ("RL", "RR"):
            assert abs(contact_point(pose, w)[2]) < 1e-6
    # roll lifts the left side: the left damper extends, the right one compresses
    assert poses[0].shocks["RL_Damper"] < -5 and poses[0].shocks["RR_Damper"] > 5
    assert min(poses[1].shocks.values()) > 5  # heave down compresses both


@pytest.mark.parametrize(
    ("build", "value", "axis"),
    [
        (motions.heave, -25.0, 2),
        (motions.heave, 15.0, 2),
        (motions.roll, 2.5, 3),
        (motions.roll, -2.0, 3),
        (motions.pitch, 1.5, 4),
        (motions.steer, 20.0, None),
    ],
)
def test_ground_motions_keep_every_contact_point_on_the_ground(
    model: Model, design: Pose, build, value: float, axis: int | None
) -> None:  # type: ignore[no-untyped-def]
    (step,) = build(model, [value])
    pose = move(design, step.state)
    assert pose.converged
    for w in model.car.wheels:
        assert abs(contact_point(pose, w.name)[2]) < 1e-6, w.name
    if axis is None:
        assert pose.rack == pytest.approx(value)
    else:
        assert pose.chassis[axis] == pytest.approx(value)
    assert max(abs(v) for v in pose.shocks.values()) > 0.1  # the strokes really moved


def test_signs_of_heave_and_roll(model: Model, design: Pose) -> None:
    up = move(design, motions.heave(model, [10.0])[0].state)
    assert all(v < 0 for v in up.shocks.values())  # chassis up = droop = extension
    assert all(travel(up, w.name) < 0 for w in model.car.wheels)
    rolled = move(design, motions.roll(model, [2.0])[0].state)
    assert travel(rolled, "FL") < 0 < travel(rolled, "FR")  # + roll lifts the left side
    assert rolled.shocks["FL_Damper"] < 0 < rolled.shocks["FR_Damper"]


def test_combined_grid_step_keeps_contact_points_on_the_ground(model: Model, design: Pose) -> None:
    grid = motions.grid(motions.roll(model, [-1.5, 1.5]), motions.steer(model, [-15.0, 15.0]))
    assert grid.columns == ("chassis_roll_deg", "rack_mm")
    assert [s.values for s in grid] == [(-1.5, -15.0), (1.5, -15.0), (-1.5, 15.0), (1.5, 15.0)]
    pose = move(design, grid[3].state)
    assert pose.rack == pytest.approx(15.0)
    assert pose.chassis[3] == pytest.approx(1.5)
    for w in model.car.wheels:
        assert abs(contact_point(pose, w.name)[2]) < 1e-6


@pytest.mark.parametrize("value", [-30.0, 22.5])
def test_single_wheel_bump_reaches_the_prescribed_travel(
    model: Model, design: Pose, value: float
) -> None:
    (step,) = motions.bump(model, "fl", [value])  # wheel names match case-insensitively
    assert set(step.state.targets) == {"FL_Damper"}
    pose = move(design, step.state)
    assert travel(pose, "FL") == pytest.approx(value, abs=1e-6)
    for other in ("FR", "RL", "RR"):
        assert travel(pose, other) == pytest.approx(0.0, abs=1e-9)
        assert pose.shocks[f"{other}_Damper"] == 0.0
    assert pose.rack == 0.0 and pose.chassis == (0.0,) * 6


def test_steer_in_steering_wheel_degrees_needs_a_ratio(model: Model) -> None:
    with pytest.raises(InputError, match="Steering ratio"):
        motions.steer(model, [90.0], unit="deg")
    car = four_corner_car()
    from dataclasses import replace

    geared = Model(replace(car, rack=Rack("Rack", ("FL_TIE_I", "FR_TIE_I"), 0.25)))
    (step,) = motions.steer(geared, [90.0], unit="deg")
    assert step.state.rack == pytest.approx(22.5)
    assert motions.steer(geared, [90.0], unit="deg").columns == ("steering_wheel_angle_deg",)


def test_direct_inputs(model: Model) -> None:
    (s,) = motions.stroke(model, "FR_Damper", [4.0])
    assert s.state.shocks == {"FR_Damper": 4.0} and not s.state.targets
    (r,) = motions.rack(model, [-3.0])
    assert r.state.rack == -3.0 and r.state.shocks == {}
    (c,) = motions.chassis(model, "pitch", [0.5])
    assert c.state.chassis == (0.0, 0.0, 0.0, 0.0, 0.5, 0.0)
    assert motions.chassis(model, "z", [1.0]).columns == ("chassis_heave_mm",)
    assert motions.build(model, "stroke", [1.0], of="RL_Damper").columns == ("stroke_RL_Damper_mm",)


def test_merging_states() -> None:
    a = State(shocks={"FL_Damper": 1.0}, rack=2.0, chassis=(0, 0, 1, 0, 0, 0))
    b = State(shocks={"FL_Damper": 0.5}, rack=1.0, chassis=(0, 0, 0, 2, 0, 0))
    m = a.merge(b)
    assert m.shocks == {"FL_Damper": 1.5} and m.rack == 3.0
    assert m.chassis == (0.0, 0.0, 1.0, 2.0, 0.0, 0.0)
    same = State(targets={"FL_Damper": contact_z("FL")})
    assert same.merge(same).targets == {"FL_Damper": contact_z("FL")}
    bump = State(targets={"FL_Damper": wheel_travel("FL", 10.0)})
    with pytest.raises(InputError, match="FL_Damper"):
        bump.merge(same, names=("bump FL", "roll"))
    with pytest.raises(InputError, match="sets it to 1"):
        bump.merge(State(shocks={"FL_Damper": 1.0}))


def test_bad_names_are_explained(model: Model) -> None:
    with pytest.raises(InputError, match="unknown wheel 'XX'") as exc:
        motions.bump(model, "XX", [1.0])
    assert "FL, FR, RL, RR" in (exc.value.hint or "")
    with pytest.raises(InputError, match="needs a wheel"):
        motions.build(model, "bump", [1.0])
    with pytest.raises(InputError, match="unknown motion"):
        motions.build(model, "wobble", [1.0])
    with pytest.raises(InputError, match="steps must be at least 1"):
        motions.span(0, 1, 0)
