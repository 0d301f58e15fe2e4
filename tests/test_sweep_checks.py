"""A sweep checks every step's inputs once for the whole sweep (`solver.check_states`)
and decides its one-increment steps at once (`run._single_increments`): the same
checks must still fire for a bad step anywhere, with the single solve's message, and
the poses must be those of the step-by-step path.

Truths: the single solve's own error for the same state (`solve`), the step-by-step
runner (the hoisted checks switched off), and `Segment.increments` on the solved poses.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from _cars import four_corner_car

from suspension_sim import Model
from suspension_sim.errors import InputError, SolveError, SuspensionSimError
from suspension_sim.solve import by_engine, solver
from suspension_sim.solve.continuation import Segment
from suspension_sim.solve.inputs import (
    check_chassis,
    check_input_limits,
    finite_number,
    parse_shocks,
)
from suspension_sim.solve.reach import check_reach
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import contact_z, wheel_travel
from suspension_sim.sweeps import MotionSpec, SweepResult, SweepSpec, run_sweep
from suspension_sim.sweeps import run as run_module
from suspension_sim.sweeps.motions import Motion, Step

NAN = float("nan")


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


@dataclass(frozen=True)
class StatesSpec:
    """A sweep whose steps are the given states, bad ones included (a `SweepSpec` always
    checks its values when it is read, so it cannot hold most of them)."""

    name: str
    states: tuple[State, ...]

    def build(self, model: Model, style: str = "ours") -> Motion:
        steps = tuple(Step((float(i),), s) for i, s in enumerate(self.states))
        return Motion(self.name, ("step",), steps)


def single_solve_error(model: Model, state: State) -> SuspensionSimError:
    """What `solve` raises for this state alone (the per-step checks)."""
    with pytest.raises(SuspensionSimError) as info:
        state.solve(model)
    return info.value


def good(k: int) -> State:
    return State(shocks={"FL_Damper": 2.0 * k})


OWN_ERRORS = {
    "stroke past the damper's length": State(shocks={"FL_Damper": 80.0}),
    "stroke not a number": State(shocks={"FL_Damper": NAN}),
    "stroke far outside any car": State(shocks={"RR_Damper": 1e7}),
    "unknown damper": State(shocks={"XX_Damper": 1.0}),
    "damper given twice": State(shocks={"FL_Damper": 1.0, "fl_damper": 2.0}),
    "targeted damper's own stroke past its length": State(
        shocks={"FR_Damper": -200.0}, targets={"FR_Damper": wheel_travel("FR", 1.0)}
    ),
}
"""States refused by the checks at the step itself, with the single solve's message."""

WALKED_INTO = {
    "chassis roll past 90 deg": State(chassis=(0.0, 0.0, 0.0, 95.0, 0.0, 0.0)),
    "chassis z past 1 m": State(chassis=(0.0, 0.0, -1500.0, 0.0, 0.0, 0.0)),
}
"""States the walk there splits into increments: the first increment past the limit is
refused (its message names that increment's value)."""

BAD_STATES = {**OWN_ERRORS, **WALKED_INTO}


@pytest.mark.parametrize("what", list(BAD_STATES))
def test_a_bad_step_in_the_middle_is_reported_as_before(
    model: Model, what: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = BAD_STATES[what]
    expected = single_solve_error(model, bad)
    assert isinstance(expected, InputError)
    states = (good(0), good(1), bad, good(2), good(3))
    result = run_sweep(model, StatesSpec("mixed", states))  # type: ignore[arg-type]
    assert result.steps == [0, 1, 3, 4]
    (problem,) = result.problems
    assert problem.step == 2 and problem.kind == "input"
    if what in OWN_ERRORS:
        assert problem.message == expected.render()
    else:  # the same check, met on the way there: the same message but for the value
        value = re.compile(r"-?[0-9.]+ (mm|deg) is beyond")
        assert value.sub("V", problem.message) == value.sub("V", expected.render())
        assert problem.message != expected.render()
    with monkeypatch.context() as m:
        step_by_step(m)
        before = run_sweep(model, StatesSpec("mixed", states))  # type: ignore[arg-type]
    assert outcome(result) == outcome(before)
    # the steps around it are the poses the single solve gives
    for k, pose in zip(result.steps, result.poses, strict=True):
        alone = states[k].solve(model)
        assert np.max(np.abs(pose.params - alone.params)) < 1e-6


def test_a_step_beyond_the_linkage_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without damper lengths a stroke can pass what the links allow: the single solve
    refuses it (`check_reach`, SolveError); the sweep walks towards it and stops where
    the linkage does, as it did checking step by step."""
    car = four_corner_car()
    free = tuple(dataclasses.replace(d, min_length=None, max_length=None) for d in car.dampers)
    model = Model(dataclasses.replace(car, dampers=free))
    bad = State(shocks={"FL_Damper": 900.0})
    expected = single_solve_error(model, bad)
    assert isinstance(expected, SolveError) and "beyond the reach" in expected.message
    spec = StatesSpec("reach", (good(0), good(1), bad, good(2)))
    result = run_sweep(model, spec)  # type: ignore[arg-type]
    assert result.steps == [0, 1, 3] and [p.step for p in result.problems] == [2]
    with monkeypatch.context() as m:
        step_by_step(m)
        before = run_sweep(model, spec)  # type: ignore[arg-type]
    assert outcome(result) == outcome(before)


def step_by_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the hoisting off: every step checked and tested on its own, as before."""

    def nothing_checked(model: Model, states: list[State]) -> solver.CheckedStates:
        checked = solver.check_states(model, states)
        return dataclasses.replace(checked, ok=np.zeros(len(states), dtype=bool))

    def nothing_decided(model: Model, states: list[State], *args: object) -> np.ndarray:
        return np.full(len(states), -1, dtype=np.int8)

    monkeypatch.setattr(run_module, "check_states", nothing_checked)
    monkeypatch.setattr(run_module, "_single_increments", nothing_decided)


def outcome(result: SweepResult) -> tuple[object, ...]:
    return (
        [p.params.tobytes() for p in result.poses],
        [(p.shocks, p.rack, p.chassis, p.info.iterations) for p in result.poses],
        result.steps,
        [(p.step, p.kind, p.message) for p in result.problems],
        [(p.step, p.message) for p in result.notes],
    )


SPECS = [
    SweepSpec(
        "stroke", MotionSpec("stroke", (-12.0, -6.0, 0.0, 9.0, 30.0, 80.0, 3.0), "FL_Damper")
    ),
    SweepSpec("bump", MotionSpec("bump", (-30.0, -12.0, 0.0, 5.0, 300.0, 14.0), of="FL")),
    SweepSpec("heave", MotionSpec("heave", (-15.0, -4.0, 3.0, 11.0))),
    SweepSpec("roll", MotionSpec("roll", (-2.0, -0.5, 0.5, 2.5))),
    SweepSpec(
        "roll at steer",
        MotionSpec("roll", (-1.0, 0.0, 1.0)),
        grid=MotionSpec("steer", (-8.0, 8.0)),
    ),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_hoisted_checks_give_the_step_by_step_poses(
    model: Model, spec: SweepSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bit for bit: the same poses, problems and notes as checking step by step (also
    with increments small enough that some steps take several)."""
    for kwargs in ({}, {"max_step_mm": 2.0, "max_step_deg": 0.3}):
        fast = outcome(run_sweep(model, spec, **kwargs))  # type: ignore[arg-type]
        with monkeypatch.context() as m:
            step_by_step(m)
            slow = outcome(run_sweep(model, spec, **kwargs))  # type: ignore[arg-type]
        assert fast == slow


@pytest.mark.parametrize(
    ("spec", "mm", "deg"),
    [(SPECS[0], 5.0, 1.0), (SPECS[1], 4.0, 1.0), (SPECS[2], 5.0, 1.0), (SPECS[3], 5.0, 0.4)],
    ids=["stroke", "bump", "heave", "roll"],
)
def test_one_increment_decided_at_once_as_segment_decides(
    model: Model, spec: SweepSpec, mm: float, deg: float
) -> None:
    """Each step decided at once agrees with `Segment.increments` from the pose solved
    at the step before (some steps are decided)."""
    motion = spec.build(model)
    states = [s.state for s in motion]
    checked = solver.check_states(model, states)
    flags = run_module._single_increments(model, states, checked, mm, deg)
    result = run_sweep(model, spec, max_step_mm=mm, max_step_deg=deg)
    pose_of = dict(zip(result.steps, result.poses, strict=True))
    seen = set()
    for i in range(1, len(states)):
        if flags[i] == -1 or i - 1 not in pose_of:
            continue
        pose = pose_of[i - 1]
        start = {k: pose.targets[k].value for k in states[i].targets}
        one = Segment(pose, states[i], start).increments(mm, deg) == 1
        assert bool(flags[i]) == one, i
        seen.add(one)
    assert flags[0] == -1
    assert seen


def scalar_checks(model: Model, state: State) -> bool:
    """True when `solve`'s own per-state checks pass (the truth for `check_states`)."""
    try:
        strokes = parse_shocks(model, state.shocks)
        rack = finite_number(state.rack, "rack")
        check_chassis(state.chassis)
        check_input_limits(model, strokes, rack)
        freed = {k.lower() for k in state.targets}
        held = {k: v for k, v in strokes.items() if k.lower() not in freed}
        check_reach(model, held, 0.0 if "rack" in freed else rack)
    except SuspensionSimError:
        return False
    return True


def test_check_states_passes_exactly_what_the_single_checks_pass(model: Model) -> None:
    rng = np.random.default_rng(7)
    names = list(model.damper_names)
    states = list(BAD_STATES.values())
    picks = [-1e7, -300.0, -60.0, -26.0, -5.0, 0.0, 4.0, 49.0, 51.0, 500.0, NAN, math.inf]
    for _ in range(150):
        shocks = {n: float(rng.choice(picks)) for n in rng.choice(names, size=2, replace=False)}
        chassis = tuple(float(rng.choice([0.0, 3.0, -80.0, 95.0, 1200.0])) for _ in range(6))
        targets = {"FL_Damper": contact_z("FL")} if rng.random() < 0.3 else {}
        rack = float(rng.choice([0.0, 12.0, -400.0, NAN]))
        states.append(State(shocks, rack, chassis, targets))  # type: ignore[arg-type]
    checked = solver.check_states(model, states)
    truth = [scalar_checks(model, s) for s in states]
    assert checked.ok.tolist() == truth
    assert 0 < sum(truth) < len(truth)
    for i in np.flatnonzero(checked.ok):
        strokes, rack, chassis = checked.inputs(int(i))
        assert strokes == parse_shocks(model, states[i].shocks)
        assert rack == states[i].rack and chassis == states[i].chassis


def test_the_single_solve_fast_paths_keep_their_errors(model: Model) -> None:
    names = model.damper_names
    values = [1.0, "2.5", 3, np.float64(-4.0)]
    assert parse_shocks(model, iter(values)) == dict(zip(names, [1.0, 2.5, 3.0, -4.0], strict=True))
    with pytest.raises(InputError, match="3 stroke value"):
        parse_shocks(model, (v for v in [1.0, 2.0, 3.0]))
    with pytest.raises(InputError, match="'x' is not a number") as info:
        parse_shocks(model, [0.0, "x", 0.0, 0.0])
    assert info.value.where == f"shocks ({names[1]})"
    assert check_chassis(["1", 2, 3.0, 4, 5, 6]) == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    with pytest.raises(InputError, match="nan is not a finite number") as info:
        check_chassis([0, 0, 0, 0, NAN, 0])
    assert info.value.where == "chassis (pitch)"
    with pytest.raises(InputError, match="5 chassis values"):
        check_chassis([0, 0, 0, 0, 0])
    # a damper of the test car is 150 .. 250 mm long around its design length
    design = model.car.damper_design_length(model.car.dampers[0])
    edge = design - 150.0
    check_input_limits(model, {names[0]: edge})
    with pytest.raises(InputError, match="below its minimum length"):
        check_input_limits(model, {names[0]: edge + 1e-6})


def test_the_engine_solve_record_has_its_fields_in_place(model: Model) -> None:
    """`engine_solve_info` builds `SolveInfo` by position (speed): each field where it belongs."""
    q, pred, guess = (np.full(model.n_params, v) for v in (0.0, 1.0, 2.0))
    info = by_engine.engine_solve_info(model, q, 3, 1e-11, 1e-6, 0.0, pred, guess)
    assert (info.converged, info.method, info.iterations, info.nfev, info.njev) == (
        True,
        "engine",
        3,
        4,
        3,
    )
    assert (info.max_residual_mm, info.tolerance_mm, info.message) == (1e-11, 1e-6, "")
    assert info.seconds > 0 and math.isnan(info.ratio) and not info.ratio_flag
    assert info.prediction is pred and info.predicted_from is guess
    # the near-singular check on demand, at the design pose (far from any toggle)
    assert info.ratio_of is not None and info.singular_ratio > 0 and not info.near_singular
