"""Solver properties with independent truths: rigid motion, symmetry, failures."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from _cars import double_wishbone_corner, four_corner_car

from suspension_sim import Model
from suspension_sim.description import Damper
from suspension_sim.errors import InputError, SolveError
from suspension_sim.model.screws import rotation_xyz


@pytest.fixture(scope="module")
def car_model() -> Model:
    return Model(four_corner_car())


def test_design_state_closes_to_machine_precision(car_model: Model) -> None:
    pose = car_model.solve()
    assert pose.converged and pose.info.max_residual_mm < 1e-9
    design = car_model.car.point_map()
    for name, row in pose.points.iterrows():
        assert np.allclose(row.to_numpy(dtype=float), design[name], atol=1e-9)


def test_chassis_state_moves_every_point_rigidly(car_model: Model) -> None:
    shocks = [12.0, -4.0, 8.0, 3.0]
    base = car_model.solve(shocks=shocks, rack=6.0)
    state = (15.0, -7.0, 22.0, 2.5, -1.5, 4.0)
    moved = car_model.solve(shocks=shocks, rack=6.0, chassis=state)
    R = rotation_xyz(*np.radians(state[3:]))
    expected = base.points.to_numpy() @ R.T + np.array(state[:3])
    assert np.abs(moved.points.to_numpy() - expected).max() < 1e-9
    assert moved.info.max_residual_mm < 1e-9


def test_chassis_rotation_is_about_the_reference_point() -> None:
    car = four_corner_car()
    car = dataclasses.replace(
        car, options=dataclasses.replace(car.options, chassis_reference_point="FL_WC")
    )
    pose = Model(car).solve(chassis=(0, 0, 0, 3.0, 2.0, 1.0))
    assert np.allclose(pose.points.loc["FL_WC"].to_numpy(), car.point("FL_WC"), atol=1e-9)


def test_signs_of_chassis_roll_pitch_yaw(car_model: Model) -> None:
    design = car_model.solve().points
    roll = car_model.solve(chassis=(0, 0, 0, 2.0, 0, 0)).points
    pitch = car_model.solve(chassis=(0, 0, 0, 0, 2.0, 0)).points
    yaw = car_model.solve(chassis=(0, 0, 0, 0, 0, 2.0)).points
    assert roll.loc["FL_WC", "z"] > design.loc["FL_WC", "z"]  # roll lifts the left side
    nose = lambda pts: pts.loc["FL_WC", "z"] - pts.loc["RL_WC", "z"]  # noqa: E731
    assert nose(pitch) < nose(design)  # pitch puts the nose down
    assert yaw.loc["FL_LCA_F", "y"] > design.loc["FL_LCA_F", "y"]  # yaw turns the nose left


def _mirror_name(name: str) -> str:
    swap = {"FL": "FR", "FR": "FL", "RL": "RR", "RR": "RL"}
    return swap.get(name[:2], name[:2]) + name[2:]


def test_mirror_symmetric_inputs_give_mirror_symmetric_poses(car_model: Model) -> None:
    left = car_model.solve(shocks=[14.0, -6.0, 9.0, 2.0], rack=8.0)
    right = car_model.solve(shocks=[-6.0, 14.0, 2.0, 9.0], rack=-8.0)
    a = left.points
    b = right.points.rename(index=_mirror_name).loc[a.index]
    b = b * np.array([1.0, -1.0, 1.0])
    assert np.abs(a.to_numpy() - b.to_numpy()).max() < 1e-9


def test_warm_start_lands_on_the_same_pose(car_model: Model) -> None:
    cold = car_model.solve(shocks=[20.0, 18.0, 10.0, 9.0], rack=-5.0)
    near = car_model.solve(shocks=[19.0, 17.0, 9.0, 8.0], rack=-4.0)
    warm = car_model.solve(shocks=[20.0, 18.0, 10.0, 9.0], rack=-5.0, guess=near)
    assert np.abs(cold.points.to_numpy() - warm.points.to_numpy()).max() < 1e-9
    assert warm.info.iterations <= cold.info.iterations


def test_shocks_by_name_equal_shocks_in_order(car_model: Model) -> None:
    by_order = car_model.solve(shocks=[3.0, 4.0, 5.0, 6.0])
    by_name = car_model.solve(
        shocks={"FL_Damper": 3.0, "FR_Damper": 4.0, "RL_Damper": 5.0, "RR_Damper": 6.0}
    )
    assert np.array_equal(by_order.params, by_name.params)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"shocks": [1.0, 2.0]}, ["2 stroke value(s)", "4 damper(s)", "FL_Damper"]),
        ({"shocks": {"XX": 1.0}}, ["unknown damper 'XX'", "FL_Damper"]),
        ({"shocks": [np.nan, 0, 0, 0]}, ["not a finite number"]),
        ({"chassis": (0, 0, 0)}, ["3 chassis values", "roll pitch yaw"]),
        ({"shocks": [60.0, 0, 0, 0]}, ["below its minimum length 150", "at most 49.2"]),
    ],
)
def test_bad_inputs_are_explained(car_model: Model, kwargs: dict, words: list[str]) -> None:
    with pytest.raises(InputError) as info:
        car_model.solve(**kwargs)
    text = info.value.render()
    for w in words:
        assert w in text


def test_unreachable_stroke_names_input_and_open_joint() -> None:
    car = double_wishbone_corner()
    car = dataclasses.replace(car, dampers=(Damper("Damper", "DMP_C", "DMP_M"),))
    model = Model(car)
    # 48 mm is inside the link-length bound (50.7 mm) but past the rocker's dead
    # point (46.3 mm): the solver has to find out.
    with pytest.raises(SolveError) as info:
        model.solve(shocks=[48.0])
    text = info.value.render()
    assert "shock Damper = 48 mm" in text
    assert "left open by" in text
    assert "DMP_M" in text or "PR_I" in text or "PR_O" in text
    pose = info.value.pose  # type: ignore[attr-defined]
    assert not pose.converged and pose.info.method == "trf+lm"
    assert pose.residuals.max() > 1.0
    # The same request can return the best-effort pose for the 3-D view.
    best = model.solve(shocks=[48.0], on_failure="return")
    assert not best.converged and best.failure and "left open" in best.failure
    # Far beyond what the links can span: refused before any solve, naming the input.
    with pytest.raises(SolveError) as info:
        model.solve(shocks=[150.0], on_failure="return")
    assert info.value.where == "shocks (Damper)" and "beyond the reach" in info.value.render()


def test_toggle_configuration_is_flagged() -> None:
    # Lay the pushrod square to the path of its lower end (the tangent of its
    # circle about the wishbone axis): with the damper held, the wishbone can
    # then turn without changing the pushrod length to first order (a toggle).
    car = double_wishbone_corner()
    f, r, pr_o = car.point("LCA_F"), car.point("LCA_R"), car.point("PR_O")
    axis = (r - f) / np.linalg.norm(r - f)
    radial = pr_o - f - ((pr_o - f) @ axis) * axis
    tangent = np.cross(axis, radial) / np.linalg.norm(radial)
    up = np.array([0.0, 0.0, 1.0]) - tangent[2] * tangent
    pr_i = pr_o + 300.0 * up / np.linalg.norm(up)
    model = Model(double_wishbone_corner(points={"PR_I": tuple(pr_i)}))
    assert model.mobility().singular and "SINGULAR AT DESIGN" in "\n".join(model.mobility().lines())
    assert "Pushrod" in model.mobility().free_bodies
    pose = model.solve()
    assert pose.info.near_singular
    assert pose.info.singular_ratio < 1e-7
    healthy = Model(double_wishbone_corner()).solve()
    assert not healthy.info.near_singular and healthy.info.singular_ratio > 1e-4


def test_batch_evaluation_matches_single_states(car_model: Model) -> None:
    rng = np.random.default_rng(1)
    q = rng.normal(scale=0.05, size=(car_model.n_params, 7))
    batch = car_model.residuals(q)
    single = np.column_stack([car_model.residuals(q[:, [i]])[:, 0] for i in range(7)])
    assert np.allclose(batch, single, rtol=0, atol=1e-12)


def test_analytic_jacobian_matches_central_differences(car_model: Model) -> None:
    rng = np.random.default_rng(2)
    q = rng.normal(scale=0.05, size=car_model.n_params)
    unknowns = np.setdiff1d(np.arange(car_model.n_params), car_model.input_params())
    J = car_model.jacobian(q, unknowns).toarray()
    act = np.repeat(car_model.active_pairs * 3, 3) + np.tile(
        np.arange(3), len(car_model.active_pairs)
    )
    h = 1e-6
    for col, p in enumerate(unknowns):
        dq = np.zeros_like(q)
        dq[p] = h
        fd = (car_model.residuals((q + dq)[:, None]) - car_model.residuals((q - dq)[:, None]))[:, 0]
        assert np.allclose(J[:, col], fd[act] / (2 * h), atol=1e-5, rtol=1e-6)


def test_under_constrained_workbook_is_refused_with_the_free_body() -> None:
    from suspension_sim.description import Body
    from suspension_sim.errors import ModelError

    car = double_wishbone_corner()
    bodies = tuple(
        Body(b.name, tuple(p for p in b.points if p != "TIE_O"))
        for b in car.bodies
        if b.name != "TieRod"
    )
    model = Model(dataclasses.replace(car, bodies=bodies))
    assert model.mobility().free_after_inputs == 1
    with pytest.raises(ModelError) as info:
        model.solve()
    assert "UNDER-CONSTRAINED" in info.value.render() and "Upright" in info.value.render()


def test_mobility_counts_of_the_four_corner_car(car_model: Model) -> None:
    mob = car_model.mobility()
    # Hand count: per front corner 1+1+6+6+1+3+6 = 24 freedoms (spins counted),
    # per rear corner 1+1+6+2+6+1+3 = 20, rack 1 -> 89; 26 loop-closing joints x 3 = 78.
    assert mob.gruebler == 89 - 78 == 11
    assert mob.passive_spins == 6 and mob.inputs == 5
    assert mob.gruebler - mob.passive_spins - mob.inputs == 0
    assert mob.rank == mob.unknowns == mob.equations == 78 and mob.ok and not mob.redundant


def test_car_without_moving_joints_solves_trivially() -> None:
    from suspension_sim.description import Body, Car, Options, Point

    pts = {"A": (0.0, 0.0, 0.0), "B": (100.0, 0.0, 0.0), "C": (0.0, 100.0, 0.0), "D": (0, 0, 50.0)}
    car = Car(
        "fixed hub",
        Options(),
        tuple(Point(n, xyz) for n, xyz in pts.items()),
        (Body("Chassis", ("A", "B", "C")), Body("Hub", ("A", "B", "C", "D"))),
    )
    model = Model(car)
    assert model.topology.joint("Hub").kind == "fixed"
    pose = model.solve(chassis=(0, 0, 10.0, 0, 0, 0))
    assert pose.converged and pose.info.method == "none"
    assert pose.points.loc["D", "z"] == pytest.approx(60.0)
