"""Targets solved inside the compiled kernel (`solver.solve_targets_in_kernel`).

* on every example car the kernel's bordered-block Newton gives the pose of the
  reference path (`solve_targets_by_engine`: Newton on the targeted inputs in
  Python) and of scipy's trf to 1e-9 mm, for ground contact, wheel travel and
  point-coordinate targets, in the world and chassis frames;
* the targets hold on the solved pose, measured independently from its world
  points (wheel centre height, the tyre contact point of docs/conventions.md);
* its first-order prediction is Newton's first step of the whole system from the
  guess: the dense least-squares step of `continuation.predicted_params`;
* targets it cannot express (a freed input acting on two blocks, a target on
  another corner than its freed input) and poses it cannot close fall back to
  the reference path and then to trf, with the same failure report;
* a sweep's one-increment steps (`sweeps.run._direct`) keep exactly the poses
  that `continuation.move` keeps.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import suspension_sim
from suspension_sim.errors import SolveError
from suspension_sim.solve import engine, solver
from suspension_sim.solve.continuation import predicted_params
from suspension_sim.solve.diagnostics import design_mobility
from suspension_sim.solve.pose import chassis_transform
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import CompiledTargets, coordinate, wheel_travel
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep
from suspension_sim.sweeps.motions import ground_targets

ROOT = Path(__file__).resolve().parents[1]
WORKBOOKS = sorted((ROOT / "workbooks").glob("*.xlsx"))
FSAE = ROOT / "workbooks" / "fsae_car.xlsx"


@pytest.fixture(scope="module", autouse=True)
def _kernel() -> None:
    engine.compile_kernel()


def _same(a: suspension_sim.Pose, b: suspension_sim.Pose) -> float:
    return float(np.abs(a.points.to_numpy(float) - b.points.to_numpy(float)).max())


def _cases(model: suspension_sim.Model) -> list[dict]:
    wheel = model.car.wheels[0]
    damper = model.damper_names[0]
    upright = wheel.body
    point = next(p for p, b in zip(model.inst_point, model.inst_body, strict=True) if b == upright)
    ground = ground_targets(model)
    return [
        {"chassis": (0, 0, -6.0, 0.0, 0.0, 0), "targets": ground},
        {"chassis": (0, 0, 4.0, 1.1, -0.5, 0), "targets": ground},
        {"targets": {damper: wheel_travel(wheel.name, 9.0)}},
        {"chassis": (0, 0, 0, 0.8, 0, 0), "targets": {damper: wheel_travel(wheel.name, -7.0)}},
        {
            "chassis": (0, 0, 3.0, 0.5, 0.3, 0),
            "targets": {damper: coordinate(point, "z", _z(model, point) + 6.0, "world")},
        },
        {"targets": {damper: coordinate(point, "z", _z(model, point) - 4.0, "chassis")}},
    ]


def _z(model: suspension_sim.Model, point: str) -> float:
    return float(model.car.point(point)[2])


def _no_reference(*_args: object) -> None:
    raise AssertionError("the reference path was taken")


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda p: p.stem)
def test_kernel_targets_equal_the_reference_and_trf(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = suspension_sim.load(path)
    redundant = bool(design_mobility(model).redundant)
    previous = model.solve()
    for case in _cases(model):
        ch = tuple(float(v) for v in case.get("chassis", (0,) * 6))
        ct = CompiledTargets(model, case["targets"], chassis_transform(model, ch))
        assert (engine.target_tables(model, ct) is None) == redundant  # tall blocks: trf
        with monkeypatch.context() as m:
            m.setattr(solver, "solve_targets_in_kernel", lambda *a: None)
            ref = model.solve(**case, guess=previous)
        with monkeypatch.context() as m:
            if not redundant:
                m.setattr(solver, "solve_targets_by_engine", _no_reference)
            fast = model.solve(**case, guess=previous)
        slow = model.solve(**case, guess=previous, method="trf")
        assert fast.converged and slow.converged and ref.converged
        assert fast.info.method == ref.info.method == ("trf" if redundant else "engine")
        assert _same(fast, ref) < 1e-9
        assert _same(fast, slow) < 1e-9
        assert fast.shocks == pytest.approx(slow.shocks, abs=1e-9)
        assert fast.info.max_residual_mm <= 1e-10 or redundant
        previous = fast


def test_targets_hold_on_the_solved_pose() -> None:
    """Measured from the world points of the pose, not from the solver's residuals: the
    wheel centre's height over the chassis, and each tyre's contact point height
    (CP = C - r d/|d|, d = the world z axis less its part along the spin axis)."""
    model = suspension_sim.load(FSAE)
    wheel = model.car.wheels[1]
    damper = model.damper_names[1]
    pose = model.solve(targets={damper: wheel_travel(wheel.name, 11.0)}, guess=model.solve())
    assert pose.info.method == "engine"
    centre = pose.points.loc[wheel.centre].to_numpy(float)
    assert centre[2] - model.car.point(wheel.centre)[2] == pytest.approx(11.0, abs=1e-9)

    chassis = (0, 0, -7.0, 1.2, 0.4, 0)
    pose = model.solve(chassis=chassis, targets=ground_targets(model), guess=model.solve())
    assert pose.info.method == "engine"
    for w in model.car.wheels:
        c = pose.points.loc[w.centre].to_numpy(float)
        s = pose.points.loc[w.axis_point].to_numpy(float) - c
        s /= np.linalg.norm(s)
        d = np.array([0.0, 0.0, 1.0]) - s[2] * s
        contact = c - w.tyre_radius * d / np.linalg.norm(d)
        assert contact[2] == pytest.approx(0.0, abs=1e-9), w.name


def test_prediction_is_newtons_first_step_of_the_whole_system() -> None:
    model = suspension_sim.load(FSAE)
    ground = ground_targets(model)
    bump = {model.damper_names[2]: wheel_travel(model.car.wheels[2].name, 3.0)}
    for before, state in (
        (
            State(chassis=(0, 0, -4.0, 0.5, 0, 0), targets=ground),
            State(chassis=(0, 0, -5.5, 0.5, 0, 0), targets=ground),
        ),
        (State(targets=bump), State(targets={k: replace(t, value=4.5) for k, t in bump.items()})),
    ):
        prev = before.solve(model)
        pose = state.solve(model, guess=prev)
        assert pose.info.method == "engine" and pose.info.prediction is not None
        want = predicted_params(prev, state)
        assert np.abs(pose.info.prediction - want).max() < 1e-9
        assert np.abs(pose.info.prediction - pose.params).max() > 1e-6  # a real step


def test_what_the_kernel_cannot_express_takes_the_reference_path() -> None:
    model = suspension_sim.load(FSAE)
    design = model.solve()
    axis_point = model.car.wheels[0].axis_point
    y = float(model.car.point(axis_point)[1])
    cases: list[dict] = [
        # the rack acts on both front corners: not one block
        {"targets": {"rack": coordinate(axis_point, "y", y + 0.5, "chassis")}},
        # a target on another corner than the input it frees
        {"targets": {model.damper_names[0]: wheel_travel(model.car.wheels[3].name, 2.0)}},
    ]
    for case in cases:
        ct = CompiledTargets(model, case["targets"], np.eye(4))
        assert engine.target_tables(model, ct) is None
        fast = model.solve(**case, guess=design, on_failure="return")
        slow = model.solve(**case, guess=design, on_failure="return", method="trf")
        assert fast.converged == slow.converged
        if fast.converged:
            assert _same(fast, slow) < 1e-9


def test_unreachable_targets_fail_as_before() -> None:
    model = suspension_sim.load(FSAE)
    wheel, damper = model.car.wheels[0].name, model.damper_names[0]
    targets = {damper: wheel_travel(wheel, 400.0)}
    ct = CompiledTargets(model, targets, np.eye(4))
    design = model.solve()
    assert solver.solve_targets_in_kernel(model, design.params, design.params, ct, 1e-6) is None
    pose = model.solve(targets=targets, on_failure="return")
    slow = model.solve(targets=targets, on_failure="return", method="trf")
    assert not pose.converged and pose.failure
    assert pose.failure == slow.failure
    with pytest.raises(SolveError):
        model.solve(targets=targets)


def test_direct_sweep_steps_keep_the_poses_move_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    from suspension_sim.sweeps import run

    model = suspension_sim.load(FSAE)
    specs = [
        SweepSpec("heave", MotionSpec("heave", tuple(np.linspace(-20.0, 20.0, 17)))),
        SweepSpec("bump", MotionSpec("bump", tuple(np.linspace(-25.0, 25.0, 17)), of="FL")),
        SweepSpec("roll", MotionSpec("roll", tuple(np.linspace(-2.0, 2.0, 17)))),
    ]
    for spec in specs:
        fast = run_sweep(model, spec)
        with monkeypatch.context() as m:
            m.setattr(run, "_direct", lambda *a: None)
            slow = run_sweep(model, spec)
        assert fast.steps == slow.steps == list(range(17)) and fast.ok
        for a, b in zip(fast.poses, slow.poses, strict=True):
            assert a.info.method == "engine"
            assert np.abs(a.params - b.params).max() < 1e-12


def test_compiled_body_spread_equals_the_screens_distances(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kernel's per-body distances (the sweep's quick branch screen) equal those of
    continuation's screen, computed by the numpy model."""
    from suspension_sim.solve import continuation

    model = suspension_sim.load(FSAE)
    rng = np.random.default_rng(4)
    Q = rng.normal(0.0, 0.05, (3, model.n_params))
    with monkeypatch.context() as m:  # the numpy model's points, not the kernel's
        m.setattr(engine, "kernel_compiled", lambda: False)
        names, want = continuation._body_distances(model, Q.T)
    got, _ = engine.body_spread_compiled(model, Q, 0.5, 0.5)
    assert names == list(dict.fromkeys(model.inst_body))
    assert np.abs(got - want).max() < 1e-9
    assert got.max() > 1.0  # the rows differ: real distances
    # The screen's pass, as continuation's rule on those distances, for a few constants.
    for ratio, floor in [(0.5, 0.5), (0.0, 1e-3), (2.0, 50.0), (0.1, 0.0)]:
        _, clear = engine.body_spread_compiled(model, Q, ratio, floor)
        assert clear == bool((want[:, 2] <= ratio * want[:, 0] + floor).all())
    # A step that starts where the last one ended reuses that row's copies: the same
    # distances as computed afresh.
    Q2 = np.stack([Q[2], Q[0] + 0.01, Q[1]])
    with monkeypatch.context() as m:
        m.setattr(engine, "kernel_compiled", lambda: False)
        _, want2 = continuation._body_distances(model, Q2.T)
    got2, _ = engine.body_spread_compiled(model, Q2, 0.5, 0.5)
    assert np.abs(got2 - want2).max() < 1e-9
    # A NaN coordinate gives NaN distances where numpy gives them, and never a pass.
    Q3 = Q.copy()
    Q3[2, 0] = np.nan
    with monkeypatch.context() as m:
        m.setattr(engine, "kernel_compiled", lambda: False)
        _, want3 = continuation._body_distances(model, Q3.T)
    got3, clear3 = engine.body_spread_compiled(model, Q3, 1e9, 1e9)
    assert np.isnan(want3).any() and not clear3
    assert np.array_equal(np.isnan(got3), np.isnan(want3))
    finite = ~np.isnan(want3)
    assert np.abs(got3[finite] - want3[finite]).max() < 1e-9
