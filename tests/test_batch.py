"""The batch engine against single-state solves, closed form, and itself.

* every example workbook: random states inside the damper limits and a
  smooth log-like path give the same points as `model.solve` (scipy's trf)
  to 1e-9 mm, by the numpy reference and by the compiled kernel;
* the compiled kernel equals the numpy reference to 1e-9 mm;
* an unreachable state in the middle of a batch is flagged with the text a
  single solve gives, and the states after it still close;
* the double-wishbone test corner against its circle-sphere closed form.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _cars import double_wishbone_corner
from test_solver_closed_form import closed_form_corner

import suspension_sim
from suspension_sim import Model
from suspension_sim.errors import InputError
from suspension_sim.solve import engine

WORKBOOKS = sorted(
    p for p in (Path(__file__).parents[1] / "workbooks").glob("*.xlsx") if p.stem != "template"
)
SAME_MM = 1e-9
METHODS = ["numpy", "compiled"]


@pytest.fixture(scope="module", params=WORKBOOKS, ids=[p.stem for p in WORKBOOKS])
def model(request: pytest.FixtureRequest) -> Model:
    return suspension_sim.load(request.param)


def stroke_range(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest stroke of each damper allowed by its lengths (mm)."""
    lo, hi = [], []
    for d in model.car.dampers:
        design = model.car.damper_design_length(d)
        hi.append(design - d.min_length if d.min_length is not None else 30.0)
        lo.append(design - d.max_length if d.max_length is not None else -30.0)
    return np.array(lo), np.array(hi)


def random_states(model: Model, n: int, seed: int) -> dict[str, np.ndarray]:
    """n states inside 80 % of the damper travel, rack +-10 mm, a random chassis state."""
    rng = np.random.default_rng(seed)
    lo, hi = stroke_range(model)
    mid, half = (lo + hi) / 2, 0.4 * (hi - lo)
    shocks = rng.uniform(mid - half, mid + half, size=(n, len(lo)))
    rack = rng.uniform(-10, 10, n) if model.topology.rack_param is not None else np.zeros(n)
    chassis = np.column_stack(
        [rng.uniform(-20, 20, (n, 3)), rng.uniform(-2, 2, (n, 3))]  # mm, deg
    )
    return {"shocks": shocks, "rack": rack, "chassis": chassis}


def log_path(model: Model, n: int) -> dict[str, np.ndarray]:
    """A smooth damper-log-like sequence at 200 Hz inside 60 % of the damper travel."""
    t = np.arange(n) / 200.0
    lo, hi = stroke_range(model)
    mid, half = (lo + hi) / 2, 0.3 * (hi - lo)
    k = np.arange(len(lo))[:, None]
    shocks = (mid[:, None] + half[:, None] * np.sin(2 * np.pi * (1.3 + 0.4 * k) * t + k)).T
    has_rack = model.topology.rack_param is not None
    rack = 8.0 * np.sin(2 * np.pi * 0.9 * t) if has_rack else np.zeros(n)
    chassis = np.zeros((n, 6))
    chassis[:, 2] = -10 * np.sin(2 * np.pi * 0.5 * t)
    chassis[:, 3] = 1.5 * np.sin(2 * np.pi * 0.7 * t)
    return {"shocks": shocks, "rack": rack, "chassis": chassis}


def single_points(model: Model, states: dict[str, np.ndarray], warm: bool) -> list:
    """model.solve (trf) for each state: from design, or warm from the previous pose."""
    poses = []
    guess = None
    for i in range(len(states["shocks"])):
        pose = model.solve(
            shocks=states["shocks"][i],
            rack=float(states["rack"][i]),
            chassis=states["chassis"][i],
            guess=guess,
        )
        poses.append(pose)
        guess = pose if warm else None
    return poses


def assert_no_worse_fit(model: Model, res: object, poses: list) -> None:
    """Each state's residual 2-norm is no larger than the single solve's (least squares)."""
    r = model.residuals(res.params.T)  # type: ignore[attr-defined]
    got = np.linalg.norm(r, axis=0)
    want = np.linalg.norm(model.residuals(np.array([p.params for p in poses]).T), axis=0)
    closed = 1e-10 * np.sqrt(len(r))  # every residual at the 1e-10 mm target
    assert np.all(got <= np.maximum(want * (1 + 1e-6) + 1e-12, closed))


def assert_same_points(result: engine.EngineResult | object, poses: list) -> None:
    for i, pose in enumerate(poses):
        want = pose.points.to_numpy(dtype=float)
        assert list(pose.points.index) == list(result.point_names)  # type: ignore[attr-defined]
        got = result.points[i]  # type: ignore[attr-defined]
        assert np.max(np.abs(got - want)) < SAME_MM, (i, np.max(np.abs(got - want)))


@pytest.mark.parametrize("method", METHODS)
def test_random_states_match_single_solves(model: Model, method: str) -> None:
    states = random_states(model, 10, seed=1)
    res = model.solve_batch(**states, method=method)  # type: ignore[arg-type]
    assert res.converged.all(), res.status_frame()
    poses = single_points(model, states, warm=False)
    for i, pose in enumerate(poses):
        # Redundant joints (a solid axle rolled) bind: both stop at the least-squares
        # compromise, within the workbook's tolerance but above 1e-10 mm.
        closes = pose.info.max_residual_mm <= 1e-10 and not model.mobility().redundant
        assert res.max_residual_mm[i] <= 1e-10 or not closes
        assert res.method[i] == "engine" or not closes
    assert_no_worse_fit(model, res, poses)
    assert_same_points(res, poses)


@pytest.mark.parametrize("method", METHODS)
def test_log_path_matches_warm_single_solves(model: Model, method: str) -> None:
    states = log_path(model, 120)
    res = model.solve_batch(**states, method=method)  # type: ignore[arg-type]
    assert res.converged.all()
    poses = single_points(model, states, warm=True)
    for i, pose in enumerate(poses):
        # Only where redundant joints bind may a state stop above 1e-10 mm (least squares).
        closes = pose.info.max_residual_mm <= 1e-10 and not model.mobility().redundant
        assert res.max_residual_mm[i] <= 1e-10 or not closes
        assert res.method[i] == "engine" or not closes  # no fallback on a smooth path
    assert_no_worse_fit(model, res, poses)
    assert_same_points(res, poses)


def test_compiled_equals_numpy_reference(model: Model) -> None:
    states = random_states(model, 40, seed=7)
    pl = engine.plan(model)
    U = np.column_stack([states["shocks"], states["rack"]])[:, : len(pl.inputs)]
    q0 = np.zeros(model.n_params)
    ref = engine.solve_numpy(model, U, q0, 1e-10)
    engine.compile_kernel()
    fast = engine.solve_compiled(model, U, q0, 1e-10)
    closed = (engine.OK, engine.STATIONARY)  # the latter where redundant joints bind
    both = np.isin(ref.status, closed) & np.isin(fast.status, closed)
    assert both.sum() >= 38  # a random jump may leave a state to the fallback, not more
    P_ref, _ = model.instance_positions(ref.params[both].T, derivatives=False)
    P_fast, _ = model.instance_positions(fast.params[both].T, derivatives=False)
    assert np.max(np.abs(P_ref - P_fast)) < SAME_MM
    # The residual the kernel reports is the model's own residual at its answer.
    r = model.residuals(fast.params[both].T)
    assert np.allclose(np.max(np.abs(r), axis=0), fast.max_residual_mm[both], atol=1e-12)


def test_compiled_log_with_a_jump_and_quantised_strokes_matches_numpy(model: Model) -> None:
    # Smooth stretches (extrapolated predictions), a jump in the middle and quantised
    # strokes (first-order predictions): both paths must land on the same poses.
    states = log_path(model, 60)
    states["shocks"][30:] = states["shocks"][30:][::-1]
    states["shocks"][45:] = np.round(states["shocks"][45:] / 0.2) * 0.2
    engine.compile_kernel()
    fast = model.solve_batch(**states, method="compiled")  # type: ignore[arg-type]
    ref = model.solve_batch(**states, method="numpy")  # type: ignore[arg-type]
    assert fast.converged.all() and ref.converged.all()
    assert np.max(np.abs(fast.points - ref.points)) < SAME_MM
    r = model.residuals(fast.params.T)
    assert np.allclose(np.max(np.abs(r), axis=0), fast.max_residual_mm, atol=1e-12)


@pytest.fixture(scope="module")
def car() -> Model:
    return suspension_sim.load(Path(__file__).parents[1] / "workbooks" / "fsae_car.xlsx")


@pytest.mark.parametrize("method", METHODS)
def test_unreachable_state_is_flagged_like_a_single_solve(car: Model, method: str) -> None:
    states = log_path(car, 9)
    states["rack"][4] = 150.0  # far past what the tie rods can follow
    res = car.solve_batch(**states, method=method)  # type: ignore[arg-type]
    assert list(np.flatnonzero(~res.converged)) == [4]
    single = car.solve(
        shocks=states["shocks"][4],
        rack=150.0,
        chassis=states["chassis"][4],
        on_failure="return",
    )
    assert not single.converged
    assert res.failures == {4: single.failure}
    assert "did not close" in res.failures[4]
    assert res.status_frame().loc[4, "failure"] == single.failure
    ok = [i for i in range(9) if i != 4]
    assert np.all(res.max_residual_mm[ok] <= 1e-10)
    after = {k: v[5:] for k, v in states.items()}
    assert_same_points(_Slice(res, 5), single_points(car, after, warm=False))


class _Slice:
    """The states from `start` on of a batch result (for `assert_same_points`)."""

    def __init__(self, res: object, start: int) -> None:
        self.point_names = res.point_names  # type: ignore[attr-defined]
        self.points = res.points[start:]  # type: ignore[attr-defined]


@pytest.mark.parametrize("method", METHODS)
def test_corner_batch_matches_closed_form(method: str) -> None:
    corner = Model(double_wishbone_corner())
    strokes = np.array([-20.0, -10.0, -2.5, 0.0, 5.0, 12.5, 25.0, 35.0, 20.0, -15.0])
    rack = np.array([-12.0, 0.0, 7.5, 3.0, -5.0, 7.5, 0.0, -12.0, 10.0, 2.0])
    res = corner.solve_batch(shocks=strokes[:, None], rack=rack, method=method)  # type: ignore[arg-type]
    assert res.converged.all()
    names = list(res.point_names)
    for i, (s, r) in enumerate(zip(strokes, rack, strict=True)):
        for name, xyz in closed_form_corner(float(s), float(r)).items():
            got = res.points[i, names.index(name)]
            assert np.allclose(got, xyz, atol=1e-6, rtol=0), (s, r, name, got - xyz)


def test_dataframe_columns_and_tidy_frame(car: Model) -> None:
    states = log_path(car, 5)
    frame = pd.DataFrame(states["shocks"], columns=[n.lower() for n in car.damper_names])
    res = car.solve_batch(frame, rack=states["rack"], method="numpy")
    same = car.solve_batch(states["shocks"], rack=states["rack"], method="numpy")
    assert np.array_equal(res.params, same.params)
    tidy = res.to_frame()
    assert list(tidy.columns) == ["state", "point", "x", "y", "z"]
    assert len(tidy) == 5 * len(res.point_names)
    row = tidy[(tidy.state == 3) & (tidy.point == res.point_names[7])]
    assert np.allclose(row[["x", "y", "z"]].to_numpy()[0], res.points[3, 7])
    assert suspension_sim.solve_batch is not None


def test_bad_inputs_name_the_parameter_and_state(car: Model) -> None:
    name = car.damper_names[0]
    with pytest.raises(InputError, match="Did you mean") as exc:
        car.solve_batch(pd.DataFrame({name + "x": [1.0], "time": [0.0]}))
    assert exc.value.where == "shocks"
    shocks = np.zeros((6, len(car.damper_names)))
    shocks[3, 0] = 500.0
    with pytest.raises(InputError, match="state 3") as exc:
        car.solve_batch(shocks)
    assert name in str(exc.value.where)
    with pytest.raises(InputError, match="expected"):
        car.solve_batch(np.zeros((4, 3)))
    shocks[3, 0] = np.nan
    with pytest.raises(InputError, match="state 3"):
        car.solve_batch(shocks)


def test_absurd_states_are_refused_with_the_single_solve_rule(car: Model) -> None:
    """A chassis state no car can take, or a rack travel past the rack's declared limit,
    is refused for the whole batch with the message a single solve gives, naming the
    first such state."""
    import dataclasses

    from suspension_sim.errors import InputError

    n = len(car.damper_names)
    chassis = np.zeros((5, 6))
    chassis[3, 3] = 120.0  # 120 deg of roll
    with pytest.raises(InputError) as caught:
        car.solve_batch(shocks=np.zeros((5, n)), chassis=chassis, method="numpy")
    assert caught.value.where == "chassis (roll)"
    assert caught.value.message.startswith("state 3 (1 state(s) in all): chassis roll 120 deg")
    with pytest.raises(InputError) as single:
        car.solve(chassis=tuple(chassis[3]))
    assert single.value.message in caught.value.message

    assert car.car.rack is not None
    limited = Model(
        dataclasses.replace(car.car, rack=dataclasses.replace(car.car.rack, max_travel=20.0))
    )
    rack = np.array([0.0, 10.0, 25.0, 30.0])
    with pytest.raises(InputError) as caught:
        limited.solve_batch(shocks=np.zeros((4, n)), rack=rack, method="numpy")
    assert caught.value.where == "rack"
    assert caught.value.message.startswith("state 2 (2 state(s) in all): rack travel 25")
