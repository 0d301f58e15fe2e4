"""Running named sweeps: find a definition, solve it step by step, report.

A sweep is a motion (`suspension_sim.sweeps.motions`: heave, roll, pitch, steer,
single-wheel bump, or Rowe's direct inputs) over a range of values,
optionally crossed with a second motion (a grid), with inputs and targets
held throughout (`suspension_sim.sweeps.spec`). Definitions come from a YAML
file (`suspension_sim.sweeps.yaml_file`) or a workbook's Sweeps section
(`suspension_sim.sweeps.sheet`); docs/sweeps.md describes both::

    specs = load_sweeps("workbooks/sweeps.yaml")        # or a workbook with a Sweeps section
    result = run_sweep(model, specs["roll"])
    result.table            # swept values + metrics, one row per solved step
    result.problems         # steps that could not be solved, with the reason

The runner walks from design to the first step, then from each solved step
to the next, by continuation (`suspension_sim.solve.continuation`): small
increments, each warm-started from the previous pose and screened for a jump
to another assembly branch. A step that cannot be reached (or only on
another branch) is reported in `problems` and the sweep goes on from the last
solved pose; the steps already solved are kept.

Units: mm and degrees (docs/conventions.md).
Finding definitions is `suspension_sim.sweeps.find` and the result
`suspension_sim.sweeps.result`; their public names are re-exported here.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.solve.continuation import (
    JUMP_FLOOR_MM,
    JUMP_RATIO,
    MAX_HALVINGS,
    MAX_STEP_DEG,
    MAX_STEP_MM,
    MoveError,
    Segment,
    check_branch,
    lever_mm,
    move,
)
from suspension_sim.solve.inputs import (
    CHASSIS_AXES,
    check_damper_limits,
    parse_shocks,
    within_limits,
)
from suspension_sim.solve.solver import CheckedStates, check_states, solve, solve_checked
from suspension_sim.sweeps.motions import motion_style as resolve_style
from suspension_sim.sweeps.spec import SweepSpec
from suspension_sim.tolerances import SAME_TARGET_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import ChassisState, Pose
    from suspension_sim.solve.state import State
    from suspension_sim.sweeps.motions import Motion
from suspension_sim.sweeps.find import find_named_sweep, find_sweep, load_sweeps, named_sweeps
from suspension_sim.sweeps.result import MetricRows, Problem, SweepResult, damper_limit_notes

KERNEL_PAYS_STEPS = 20
"""A sweep of at least this many steps loads the compiled kernel when it is on disk."""


def run_sweep(
    model: KinematicModel,
    spec: SweepSpec,
    progress: Callable[[int, int], None] | None = None,
    *,
    convention: str | None = None,
    max_step_mm: float = MAX_STEP_MM,
    max_step_deg: float = MAX_STEP_DEG,
    halvings: int = MAX_HALVINGS,
    keep_poses: bool = True,
    motion_style: str | None = None,
    optimumk_channels: bool = False,
) -> SweepResult:
    """Solve every step of a sweep by continuation from design.

    motion_style: how the ground motions move the chassis, ``ours`` or ``optimumk``
    (`suspension_sim.sweeps.motions.motion_style`; None: ``optimumk`` when the sign
    convention is optimumk, else ``ours``); `SweepResult.motion_style` says which.

    progress(done, total) is called after each step. `convention` picks the
    metrics' sign preset for the table (None: the workbook's). The
    continuation settings are those of `suspension_sim.solve.continuation.move`.
    A step that cannot be solved is recorded in `problems` (with the
    reason) and the sweep continues from the last solved pose. InputError
    for a definition that does not fit the model (unknown wheel, ...).

    keep_poses: keep every solved `Pose` in `SweepResult.poses` (for animating or
    inspecting them). False computes each step's metrics row as it goes and keeps
    only the last pose (the warm start of the next step): the same `table`, with
    memory that does not grow by a pose per step.

    optimumk_channels: `SweepResult.table` also holds every OptimumK channel of the
    solved steps under OptimumK's own header, e.g. ``Camber Angle [Left] [Front] (deg)``
    (`suspension_sim.sweeps.okcolumns`); they are OptimumK's numbers when the chassis
    moves in its style (``motion_style="optimumk"``, the default under the optimumk
    convention).
    """
    from suspension_sim.solve import engine

    style = resolve_style(motion_style, convention, model)
    with engine.hold_load():  # building the motion is no loop of solves to load it for
        motion = spec.build(model, style)
    held = contextlib.ExitStack()
    if len(motion) >= KERNEL_PAYS_STEPS:
        engine.load_kernel_if_cached()  # well under a second when a process compiled it
    else:  # a short sweep (~0.15 s of numpy) cannot win back a load (~0.35-0.8 s)
        held.enter_context(engine.hold_load())
    with held:
        return _solve_steps(
            model,
            spec,
            motion,
            progress,
            convention,
            style,
            optimumk_channels,
            keep_poses,
            max_step_mm,
            max_step_deg,
            halvings,
        )


def _solve_steps(
    model: KinematicModel,
    spec: SweepSpec,
    motion: Motion,
    progress: Callable[[int, int], None] | None,
    convention: str | None,
    style: str,
    optimumk_channels: bool,
    keep_poses: bool,
    max_step_mm: float,
    max_step_deg: float,
    halvings: int,
) -> SweepResult:
    """`run_sweep`'s steps from design, the motion built."""
    design = solve(model)
    pose = design
    rows = None
    if not keep_poses:
        from suspension_sim.metrics import preset

        rows = MetricRows(preset(convention or model.car.options.sign_convention).name)
    result = SweepResult(
        spec, motion, [], [], [], [], [], convention, model, rows, style, optimumk_channels
    )
    total = len(motion)
    # Every step's inputs checked at once, as each step's solve and `_check_step_limits`
    # check them: a step that passes is solved without repeating those checks; one that
    # does not goes through them, so its problem names what is wrong as before.
    states = [step.state for step in motion]
    checked = check_states(model, states)
    fine = (
        checked.ok & within_limits(model, np.where(checked.held, checked.strokes, 0.0))
    ).tolist()
    single = _single_increments(model, states, checked, max_step_mm, max_step_deg).tolist()
    last = -1  # the step that gave `pose` (-1: design)
    for i, step in enumerate(motion):
        t0 = time.perf_counter()
        notes: list[str] = []
        try:
            inputs = checked.inputs(i) if fine[i] else None
            if inputs is None:
                _check_step_limits(model, step.state)
            one = single[i] if last == i - 1 else -1
            new = _direct(pose, step.state, max_step_mm, max_step_deg, inputs, one) or move(
                pose,
                step.state,
                max_step_mm=max_step_mm,
                max_step_deg=max_step_deg,
                halvings=halvings,
                notes=notes,
            )
        except MoveError as exc:
            kind: Literal["unreachable", "branch jump"] = (
                "branch jump" if exc.jump is not None else "unreachable"
            )
            text = (
                f"refused: {exc.reason} (close to a dead point, where links line up, the "
                "solver can land on another assembly of the linkage)"
                if exc.jump is not None
                else f"cannot be reached from the previous solved pose: {exc.reason}"
            )
            if exc.at is not None and exc.at is not step.state:
                text += f"\n  (stopped on the way there, at {_difference(exc.at, step.state)})"
            result.problems.append(Problem(i, step.values, text, kind))
        except InputError as exc:
            result.problems.append(Problem(i, step.values, exc.render(), "input"))
        else:
            if rows is None:
                result.poses.append(new)
            else:
                rows.add(new)
            result.steps.append(i)
            result.seconds.append(time.perf_counter() - t0)
            notes += damper_limit_notes(new)
            result.notes += [Problem(i, step.values, n, "note") for n in notes]
            pose = new
            last = i
        if progress is not None:
            progress(i + 1, total)
    return result


def _direct(
    pose: Pose,
    state: State,
    max_step_mm: float,
    max_step_deg: float,
    inputs: tuple[dict[str, float], float, ChassisState] | None = None,
    one: int = -1,
) -> Pose | None:
    """The step solved as `move` solves a step it takes in one increment, or None (then
    `move` does the step, from the start).

    When `move` would not split the step (`continuation.Segment.increments`), its first act is one
    warm-started solve from `pose`, kept if it closes and passes the branch screen
    (`check_branch`); that is all this does, with two shortcuts: the screen's per-body
    distances come from the compiled kernel (`_clear_of_branches`), and the targets at
    `pose` are not measured when `pose` was solved for the same targets (it meets them
    within its residual, <= 1e-10 mm, and their values only count the increments). A
    step that does not close or looks suspect returns None, and `move` then repeats
    it and halves as it always does. inputs: the state's strokes, rack and chassis
    already checked (`solver.check_states`): solved by `solver.solve_checked`, else by
    `State.solve`, which checks them. one: that test (targets held, one increment)
    made for the whole sweep (`_single_increments`): 1 passed, 0 failed, -1 not made.
    """
    if not (max_step_mm > 0 and max_step_deg > 0) or not pose.converged:
        return None
    if one == 0:
        return None
    if one != 1:
        start: dict[str, float] = {}
        held_targets = pose.targets
        for key, tg in state.targets.items():
            held = held_targets.get(key)
            if held is None or (held.kind, held.name, held.axis, held.frame) != (
                tg.kind,
                tg.name,
                tg.axis,
                tg.frame,
            ):
                return None
            start[key] = held.value
        if Segment(pose, state, start).increments(max_step_mm, max_step_deg) != 1:
            return None
    model = pose.model
    if inputs is None:
        trial = state.solve(model, guess=pose, on_failure="return")
    else:
        strokes, rack, chassis = inputs
        trial = solve_checked(model, strokes, rack, chassis, pose, state.targets or None)
    if not trial.converged:
        return None
    if not _clear_of_branches(pose, trial) and check_branch(pose, trial, state) is not None:
        return None
    return trial


_Kinds = tuple[tuple[str, str, str, str, str], ...]
"""Each target of a state as (input, kind, name, axis, frame): all but its value."""


def _single_increments(
    model: KinematicModel,
    states: Sequence[State],
    checked: CheckedStates,
    max_step_mm: float,
    max_step_deg: float,
) -> np.ndarray:
    """`_direct`'s test of each step, made for all steps at once (int8, (S,)): from the
    pose this sweep solved at step i - 1, does the pose hold step i's targets and would
    `move` take step i in one increment (`continuation.Segment.increments`)? 1 yes, 0
    no, -1 not decided here (step 0, which starts at design; a step whose inputs or
    targets are not those of its predecessor's kind), and then `_direct` decides.

    That pose's held strokes, rack, chassis and target values are step i - 1's own
    inputs (a solve moves only what its targets free), so the changes are the
    differences of the two steps' inputs, and the same quotients as
    `Segment.increments` (mm over `max_step_mm`, deg over `max_step_deg`, a chassis
    angle's wheel travel) decide, in the same floating-point operations.
    """
    n = len(states)
    out = np.full(n, -1, dtype=np.int8)
    if n < 2 or not (max_step_mm > 0 and max_step_deg > 0):
        return out
    # Decided only where both steps read cleanly, the strokes are keyed by the dampers'
    # own names (`Segment` looks them up exactly), and the targets are the same ones
    # (the same kinds on the same places, in the same order).
    names = set(checked.names)
    exact: dict[tuple[str, ...], bool] = {}
    kinds: dict[tuple[object, ...], tuple[_Kinds, list[float]]] = {}
    clean: list[bool] = []
    sig: list[_Kinds] = []
    target_values: list[list[float]] = []
    for st in states:
        keys = tuple(st.shocks)
        if keys not in exact:
            exact[keys] = all(k in names for k in keys)
        clean.append(exact[keys])
        held = st.targets
        ids = (*held, *map(id, held.values()))  # the states hold their targets alive
        if ids not in kinds:
            kinds[ids] = (
                tuple([(k, t.kind, t.name, t.axis, t.frame) for k, t in held.items()]),
                [t.value for t in held.values()],
            )
        kind, value = kinds[ids]
        sig.append(kind)
        target_values.append(value)
    known = checked.ok & np.array(clean, dtype=bool)
    known[1:] &= known[:-1] & np.array([a == b for a, b in itertools.pairwise(sig)], dtype=bool)
    known[0] = False
    worst = np.zeros(n)
    # Held strokes, the rack unless freed, chassis x, y, z: |change| / max_step_mm.
    mm = np.column_stack([checked.strokes, checked.rack, checked.chassis[:, :3]])
    counted = np.column_stack([checked.held, checked.rack_held, np.ones((n, 3), dtype=bool)])
    change = np.abs(np.diff(mm, axis=0)) / max_step_mm
    worst[1:] = np.max(change, axis=1, initial=0.0, where=counted[1:])
    angles = checked.chassis[:, 3:]
    turned = angles[1:] != angles[:-1]
    if turned.any():  # a chassis angle that changes: degrees, and the wheels' travel
        turn = np.abs(np.diff(angles, axis=0))
        for k, axis in enumerate(("roll", "pitch", "yaw")):
            lever = lever_mm(model, axis)
            term = np.maximum(
                turn[:, k] / max_step_deg, np.radians(turn[:, k]) * lever / max_step_mm
            )
            worst[1:] = np.maximum(worst[1:], np.where(turned[:, k], term, 0.0))
    widths = {len(x) for x in sig}
    if widths != {0}:  # the targets' changes, as `Segment.increments` takes them
        if len(widths) == 1:  # the same count everywhere: one array, keys aligned if known
            values = np.array(target_values, dtype=float)
            moved_t = np.abs(np.diff(values, axis=0)) / max_step_mm
            # fmax: a NaN change is passed over, as Python's max(worst, nan) passes it
            worst[1:] = np.fmax(worst[1:], np.fmax.reduce(moved_t, axis=1))
        else:
            for i in np.flatnonzero(known).tolist():
                w, before = float(worst[i]), states[i - 1].targets
                for key, tg in states[i].targets.items():
                    w = max(w, abs(tg.value - before[key].value) / max_step_mm)
                worst[i] = w
    single = np.maximum(1, np.ceil(worst - 1e-9)) == 1
    out[known] = single[known]
    return out


def _clear_of_branches(pose: Pose, trial: Pose) -> bool:
    """True when `check_branch` would pass the step, from the body distances computed by
    the compiled kernel (`engine.body_spread_compiled`, the same distances and the same
    rule as the screen); False when that is not known (no kernel, no prediction from
    `pose`) or some body is suspect (`check_branch` then decides and describes it)."""
    from suspension_sim.solve import engine

    info = trial.info
    prediction, source = info.prediction, info.predicted_from
    if (
        prediction is None
        or source is None
        or not engine.kernel_compiled()
        or source.shape != pose.params.shape
        or not (source == pose.params).all()
    ):
        return False
    Q = np.empty((3, len(prediction)))
    Q[0], Q[1], Q[2] = pose.params, prediction, trial.params
    return engine.body_spread_compiled(pose.model, Q, JUMP_RATIO, JUMP_FLOOR_MM)[1]


def _difference(at: State, end: State) -> str:
    """The inputs and targets of `at` that differ from `end` (where a walk stopped)."""
    parts = [f"stroke {k} {v:.4g} mm" for k, v in at.shocks.items() if v != end.shocks.get(k, 0.0)]
    if at.rack != end.rack and "rack" not in at.targets:
        parts.append(f"rack {at.rack:.4g} mm")
    for axis, a, b in zip(CHASSIS_AXES, at.chassis, end.chassis, strict=True):
        if a != b:
            parts.append(f"chassis {axis} {a:.4g} {'deg' if axis in CHASSIS_AXES[3:] else 'mm'}")
    for key, tg in at.targets.items():
        other = end.targets.get(key)
        if other is None or abs(tg.value - other.value) > SAME_TARGET_MM:
            parts.append(tg.describe())
    return ", ".join(parts) or at.describe()


def _check_step_limits(model: KinematicModel, state: State) -> None:
    """Refuse a step whose own strokes break a damper's limits, naming those strokes
    (rather than the first increment on the way there that would)."""
    free = {k.lower() for k in state.targets}
    strokes = parse_shocks(model, state.shocks)
    held = {k: v for k, v in strokes.items() if k.lower() not in free}
    check_damper_limits(model, {**dict.fromkeys(strokes, 0.0), **held})


def run_named_sweep(
    model: KinematicModel,
    workbook_path: str | os.PathLike[str],
    name: str,
    sweep_file: str | os.PathLike[str] | None = None,
) -> list[Pose]:
    """The solved poses of a named sweep, in order (for animating it).

    The sweep comes from `sweep_file` if given, else the workbook's Sweeps
    section or a sweeps.yaml beside it (`find_sweep`). Steps that could not be
    solved are left out; `run_sweep` reports them.
    """
    spec = find_sweep(workbook_path, name, sweep_file)
    return run_sweep(model, spec).poses


__all__ = [
    "MetricRows",
    "Problem",
    "SweepResult",
    "damper_limit_notes",
    "find_named_sweep",
    "find_sweep",
    "load_sweeps",
    "named_sweeps",
    "run_named_sweep",
    "run_sweep",
]
