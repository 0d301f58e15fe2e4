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
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.names import did_you_mean
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
from suspension_sim.sweeps.motions import Motion
from suspension_sim.sweeps.motions import motion_style as resolve_style
from suspension_sim.sweeps.spec import SweepSpec
from suspension_sim.tolerances import LIMIT_NOTE_MM, SAME_TARGET_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import BatchResult
    from suspension_sim.solve.pose import ChassisState, Pose
    from suspension_sim.solve.state import State

YAML_SUFFIXES = (".yaml", ".yml")
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")
BESIDE_WORKBOOK = "sweeps.yaml"
"""A sweep file with this name next to a workbook is used when the workbook has no
Sweeps section (or lacks the sweep asked for)."""
MAX_NOTES = 6
"""Notes shown by `SweepResult.summary` (all are in `SweepResult.notes`)."""


# -- loading ------------------------------------------------------------------------------
def load_sweeps(path_or_workbook: str | os.PathLike[str] | KinematicModel) -> dict[str, SweepSpec]:
    """Sweep definitions by name from a YAML file or a workbook's Sweeps section.

    A workbook (or a `Model`, meaning its workbook) without a Sweeps section
    gives an empty dict. Errors name the file and line (YAML) or the sheet
    and cell (workbook).
    """
    if isinstance(path_or_workbook, str | os.PathLike):
        path = Path(path_or_workbook)
    else:
        source = path_or_workbook.car.source_path
        if source is None:
            return {}
        path = Path(source)
    suffix = path.suffix.lower()
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a sweep file", where=str(path))
    if not path.is_file():
        raise InputError(f"no such file: {path}", where=str(path), hint="check the path")
    if suffix in YAML_SUFFIXES:
        from suspension_sim.sweeps.yaml_file import load_yaml

        return load_yaml(path)
    if suffix in WORKBOOK_SUFFIXES:
        from suspension_sim.sweeps.sheet import load_sheet

        return load_sheet(path)
    raise InputError(
        f"cannot read sweeps from a {suffix or 'file without extension'}",
        where=str(path),
        hint="give a .yaml file or an .xlsx workbook with a Sweeps section",
    )


def named_sweeps(
    workbook: str | os.PathLike[str], sweep_file: str | os.PathLike[str] | None = None
) -> list[tuple[str, dict[str, SweepSpec]]]:
    """(place, sweeps by name) where a workbook's named sweeps are looked up, in order:
    `sweep_file` alone if given; else the workbook's Sweeps section, then a
    sweeps.yaml next to the workbook."""
    places: list[tuple[str, dict[str, SweepSpec]]] = []
    if sweep_file is not None:
        places.append((str(sweep_file), load_sweeps(sweep_file)))
    else:
        wb = Path(workbook)
        places.append((f"{wb} (Sweeps section)", load_sweeps(wb)))
        beside = wb.with_name(BESIDE_WORKBOOK)
        if beside.is_file():
            places.append((str(beside), load_sweeps(beside)))
    return places


def find_named_sweep(
    workbook: str | os.PathLike[str], name: str, sweep_file: str | os.PathLike[str] | None = None
) -> tuple[SweepSpec, str] | None:
    """(sweep, place) of the named sweep `name` (`named_sweeps`; the exact name, else the
    one equal to it ignoring case), or None."""
    places = named_sweeps(workbook, sweep_file)
    for place, specs in places:
        if name in specs:
            return specs[name], place
    for place, specs in places:  # a unique case-insensitive match
        loose = [n for n in specs if n.casefold() == name.casefold()]
        if len(loose) == 1:
            return specs[loose[0]], place
    return None


def find_sweep(
    workbook: str | os.PathLike[str], name: str, sweep_file: str | os.PathLike[str] | None = None
) -> SweepSpec:
    """The named sweep `name`: from `sweep_file` if given; else the workbook's Sweeps
    section, then a sweeps.yaml next to the workbook. InputError lists what exists
    (standard motions, which need no definition, are `suspension_sim.sweeps.standard`)."""
    found = find_named_sweep(workbook, name, sweep_file)
    if found is not None:
        return found[0]
    places = named_sweeps(workbook, sweep_file)
    known = sorted({n for _, specs in places for n in specs})
    near = did_you_mean(name, known)
    looked = "; ".join(p for p, _ in places)
    raise InputError(
        f"no sweep named {name!r}" + (f".{near}" if near else ""),
        where="sweep",
        hint=(f"sweeps defined: {', '.join(known)} " if known else "no sweeps are defined ")
        + f"(looked in {looked}; see docs/sweeps.md)",
    )


# -- running ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """A step that was not solved (or a note about one that was).

    step: index in the motion (0-based). values: the swept values.
    kind: "unreachable", "branch jump", "input" (an invalid input such as a
    stroke beyond the damper's length limits) or "note".
    """

    step: int
    values: tuple[float, ...]
    message: str
    kind: Literal["unreachable", "branch jump", "input", "note"] = "unreachable"

    def describe(self, columns: Sequence[str]) -> str:
        vals = ", ".join(f"{c} = {v:g}" for c, v in zip(columns, self.values, strict=False))
        return f"step {self.step} ({vals}): {self.message}"


@dataclass
class MetricRows:
    """What a sweep keeps of each solved step with ``keep_poses=False``: the joint
    parameters and inputs (a few hundred bytes a step, not a `Pose`) and the
    damper-limit text; `frame` computes every metric for all steps at once
    (`suspension_sim.metrics.batch.batch_metrics`, as `SweepResult.table` does
    for kept poses). `convention` is the preset's name."""

    convention: str
    model: KinematicModel | None = None
    params: list[np.ndarray] = field(default_factory=list)
    shocks: list[list[float]] = field(default_factory=list)
    rack: list[float] = field(default_factory=list)
    chassis: list[tuple[float, ...]] = field(default_factory=list)
    residual: list[float] = field(default_factory=list)
    tolerance: float = 0.0
    limits: list[str] = field(default_factory=list)

    def add(self, pose: Pose) -> None:
        """Keep what the metrics of one solved pose need."""
        self.model = pose.model
        self.params.append(pose.params.copy())
        self.shocks.append([pose.shocks[d] for d in pose.model.damper_names])
        self.rack.append(float(pose.rack))
        self.chassis.append(tuple(pose.chassis))
        self.residual.append(pose.info.max_residual_mm)
        self.tolerance = max(self.tolerance, pose.info.tolerance_mm)
        self.limits.append(limit_text(pose))

    @property
    def values(self) -> list[np.ndarray]:
        """The kept steps' parameter vectors (one per solved step)."""
        return self.params

    def batch(self) -> BatchResult:
        """The kept steps as one `BatchResult` (its `pose(i)` rebuilds step i's pose)."""
        from suspension_sim.solve.batch import BatchResult

        assert self.model is not None
        n = len(self.params)
        return BatchResult(
            model=self.model,
            params=np.array(self.params).reshape(n, self.model.n_params),
            shocks=np.array(self.shocks, dtype=float).reshape(n, len(self.model.damper_names)),
            rack=np.array(self.rack, dtype=float),
            chassis=np.array(self.chassis, dtype=float).reshape(n, 6),
            converged=np.ones(n, dtype=bool),
            iterations=np.zeros(n, dtype=int),
            max_residual_mm=np.array(self.residual, dtype=float),
            method=np.full(n, "sweep", dtype=object),
            tolerance_mm=self.tolerance,
            seconds=0.0,
            engine="sweep",
        )

    def frame(self) -> pd.DataFrame:
        """Every metric of the kept steps, laid out as `metrics_table` lays them out."""
        from suspension_sim.metrics.batch import batch_metrics

        table = batch_metrics(self.batch(), self.convention, rates=True).reset_index(drop=True)
        table.attrs["convention"] = self.convention
        return table


def poses_table(poses: Sequence[Pose], convention: str | None) -> pd.DataFrame:
    """`metrics_table` of solved poses, computed for all of them at once
    (`suspension_sim.metrics.batch.batch_metrics`, equal to it per pose)."""
    from suspension_sim.metrics import preset
    from suspension_sim.metrics.batch import batch_metrics
    from suspension_sim.solve.batch import BatchResult

    model = poses[0].model
    name = preset(convention or model.car.options.sign_convention).name
    table = batch_metrics(BatchResult.from_poses(model, poses), name, rates=True)
    table.attrs["convention"] = name
    return table.reset_index(drop=True)


@dataclass
class SweepResult:
    """What a sweep produced. Poses, values and seconds are for the solved steps only.

    `poses` is empty when the sweep ran with ``keep_poses=False``: the table's metrics
    were then computed step by step into `rows` and the poses let go.
    """

    spec: SweepSpec
    motion: Motion
    poses: list[Pose]
    steps: list[int]  # motion step index of each solved step
    problems: list[Problem]
    notes: list[Problem]
    seconds: list[float]  # wall time of each solved step (s)
    convention: str | None = None
    model: KinematicModel | None = None
    rows: MetricRows | None = None
    motion_style: str = "ours"
    """How the ground motions moved the chassis (`suspension_sim.sweeps.motions.MOTION_STYLES`)."""
    optimumk_channels: bool = False
    """`table` also holds OptimumK's channels (`suspension_sim.sweeps.okcolumns`)."""

    @property
    def columns(self) -> tuple[str, ...]:
        """Names (with units) of the swept variables."""
        return self.motion.columns

    @property
    def values(self) -> np.ndarray:
        """Swept values of the solved steps, (solved steps, columns)."""
        return self.motion.values[self.steps] if self.steps else np.zeros((0, len(self.columns)))

    @property
    def ok(self) -> bool:
        return not self.problems

    @cached_property
    def table(self) -> pd.DataFrame:
        """One row per solved step (index ``step``): the swept values, then every metric
        (`suspension_sim.metrics.metrics_table`; a metric column equal to a swept one is
        not repeated); with `optimumk_channels`, then every OptimumK channel of the solved
        poses under OptimumK's header (`suspension_sim.sweeps.okcolumns.optimumk_columns`).
        ``attrs`` holds the sweep name and the sign convention."""
        front = pd.DataFrame(self.values, columns=list(self.columns))
        metrics: pd.DataFrame | None = None
        if self.rows is not None and self.rows.values:
            metrics, limits = self.rows.frame(), self.rows.limits
        elif self.poses:
            metrics = poses_table(self.poses, self.convention)
            limits = [limit_text(p) for p in self.poses]
        if metrics is not None:
            attrs = dict(metrics.attrs)
            metrics = metrics.drop(columns=[c for c in front.columns if c in metrics.columns])
            table = pd.concat([front, metrics], axis=1).copy()
            # Strokes solved for a target are not limited by the solver: say so on
            # every row, so a plot of the table cannot hide a bottomed-out damper.
            table["dampers_beyond_limits"] = limits
            if self.optimumk_channels:
                table = pd.concat([table, self.optimumk_table()], axis=1)
            table.attrs.update(attrs)
        else:
            table = front
        table.index = pd.Index(self.steps, name="step")
        table.attrs["sweep"] = self.spec.name
        return table

    def solved_poses(self) -> list[Pose]:
        """The solved steps' poses, in order: the kept ones, else rebuilt from what
        ``keep_poses=False`` kept (`MetricRows`; the same joint parameters and inputs)."""
        if self.poses:
            return list(self.poses)
        if self.rows is not None and self.rows.values:
            batch = self.rows.batch()
            return [batch.pose(i) for i in range(len(batch))]
        return []

    def optimumk_table(self) -> pd.DataFrame:
        """OptimumK's channels of the solved steps (`optimumk_columns`), one row per
        solved step (0..n-1); no columns when no step was solved."""
        from suspension_sim.sweeps.okcolumns import optimumk_columns

        poses = self.solved_poses()
        if not poses:
            return pd.DataFrame(index=pd.RangeIndex(0))
        return optimumk_columns(poses[0].model, poses)

    def summary(self) -> str:
        """Steps solved, problems, slowest step: a few lines for the terminal."""
        n = len(self.motion)
        total = sum(self.seconds)
        lines = [
            f"sweep {self.spec.name!r} ({self.motion.name}): {len(self.steps)} of {n} steps "
            f"solved in {total:.2f} s"
        ]
        if self.seconds:
            k = int(np.argmax(self.seconds))
            vals = ", ".join(
                f"{c} = {v:g}" for c, v in zip(self.columns, self.values[k], strict=True)
            )
            lines.append(f"slowest step: {self.steps[k]} ({vals}), {self.seconds[k]:.3f} s")
        for note in self.notes[:MAX_NOTES]:
            lines.append("note: " + note.describe(self.columns))
        if len(self.notes) > MAX_NOTES:
            lines.append(f"... and {len(self.notes) - MAX_NOTES} more note(s) (result.notes)")
        if self.problems:
            lines.append(f"{len(self.problems)} problem(s):")
            lines += ["  " + p.describe(self.columns) for p in self.problems]
        else:
            lines.append("no problems")
        return "\n".join(lines)


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
    style = resolve_style(motion_style, convention, model)
    motion = spec.build(model, style)
    if len(motion) >= KERNEL_PAYS_STEPS:
        from suspension_sim.solve import engine

        engine.load_kernel_if_cached()  # well under a second when a process compiled it
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


def limit_text(pose: Pose) -> str:
    """The table's ``dampers_beyond_limits`` cell: the dampers past their lengths, or ''."""
    return "; ".join(damper_limit_notes(pose)).removeprefix("dampers beyond their length limits: ")


def damper_limit_notes(pose: Pose) -> list[str]:
    """One line naming the dampers whose solved length is outside their Min/Max length.

    Strokes solved for a target (ground motions, bump) are not limited by the
    solver: the pose is kept, but those dampers would have bottomed or topped out.
    """
    out = []
    car = pose.model.car
    design = pose.model.derived.get(
        "damper_design_lengths", lambda: {d.body: car.damper_design_length(d) for d in car.dampers}
    )
    for d in car.dampers:
        length = design[d.body] - pose.shocks[d.body]
        if d.min_length is not None and length < d.min_length - LIMIT_NOTE_MM:
            out.append(f"{d.body} {length:.1f} mm < min {d.min_length:g} mm")
        if d.max_length is not None and length > d.max_length + LIMIT_NOTE_MM:
            out.append(f"{d.body} {length:.1f} mm > max {d.max_length:g} mm")
    return ["dampers beyond their length limits: " + ", ".join(out)] if out else []


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
