"""A design's motions solved from the base car's solved steps (the DOE's fast solve).

The reference runs each motion of each design by continuation (`sweeps.run_sweep`):
design, then every step warm-started from the last, the first step in several
increments, each screened for a jump to another assembly branch. A design of a study
is the base car with a few points moved by millimetres, so the base car's solution at
the same step is a start as good as the design's previous step. `FromBase` keeps the
base car's motions, solved once per worker (`run_sweep` with the poses kept), and
`FromBase.run` solves a design's states each from the base car's joint parameters at
that step, one compiled single solve per state (`engine_session.KernelSession.solve_rows`:
`solve_one`, the solve the reference's steps make, with the same targets and tolerance,
for each state), no
Python continuation around them. The solutions are the reference's to the solver's
tolerance (~1e-10 mm; tests/test_doe_fast.py compares the tables to 1e-9).

It is used only where it answers what the reference would (else `run` says None for
that motion, or for the whole design when it fails the design checks, and the
reference runs it: its rows then the reference's by construction):

* the base car ran every step of every motion, all its states passed the input
  checks, its mobility has no redundant joints (those solve by least squares);
* the design passes `design_checks` by a wide margin: its mobility, damper-wheel
  pairing and left-turn rack sign from one Jacobian at design (the reference's
  rules: `diagnostics.checked_mobility`, `sensitivity.damper_wheels`,
  `steering.left_turn_rack_sign`), the last two then seeded in ``model.derived``;
* the design's motions are the base car's states: each is built by the reference
  (`SweepSpec.build`, reading the seeded pairing and sign) and must equal the base
  car's; a motion that reads nothing else of the design (`PLAIN_KINDS`) is the base
  car's without being built when the seeded values are the base car's;
* the design's inputs pass the damper-limit checks `check_states` and `run_sweep`
  make (`solve.inputs.within_limits`, design-dependent through the dampers' design
  lengths; the other input checks read only the states); the link-reach bound
  (`solve.reach.check_reach`) is not evaluated: it is an outer bound of the inputs any
  closed pose has, so a state that closes passes it;
* every state closes (a state past the design's reach does not: reference path, which
  says ``unreachable``);
* the branch screen passes: along each motion (design, step 0, 1, ...), every body of
  the design lands within ``JUMP_RATIO`` x its predicted motion + ``JUMP_FLOOR_MM`` of
  its prediction, the prediction being the design's previous step moved by the base
  car's own step (`continuation`'s rule and constants; a design whose step crosses a
  dead point the base car's does not, or flips to another assembly, fails it).

The design checks live in `explore.doe_checks` (`Structure`, `design_checks`,
`design_checks_many`); this module keeps what reads the `BaseMotion`s: which motions
are solved from the base car's steps, the solves, the branch screen and the rows.

Units: mm, rad (joint parameters), deg (chassis angles).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import SuspensionSimError
from suspension_sim.explore.doe_checks import (
    DAMPER_OF,
    Structure,
    design_checks,
    design_checks_many,
    structure,
    wheel_points,
    wheel_rows,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.engine_targets import TargetTables
    from suspension_sim.solve.pose import SolveInfo
    from suspension_sim.solve.targets import CompiledTargets, Target
    from suspension_sim.sweeps.motions import Motion
    from suspension_sim.sweeps.result import SweepResult
    from suspension_sim.sweeps.spec import SweepSpec

SEEDED_KEYS = (("sweeps", "damper_wheels"), "left_turn_rack_sign")
"""``model.derived`` entries a motion's build reads that `design_checks` computes."""


@dataclass(frozen=True)
class BaseMotion:
    """One motion as the base car ran it: its steps, every step's solved joint parameters
    (S, n_params), the inputs as `solver.check_states` reads them (strokes (S,
    n_dampers), 0 where a state gives none; rack (S,); which strokes no target frees),
    and per step its targets and chassis transform (4x4, the base car's reference
    point)."""

    spec: SweepSpec
    motion: Motion
    params: np.ndarray
    strokes: np.ndarray
    rack: np.ndarray
    held: np.ndarray
    targets: tuple[dict[str, Target], ...]
    chassis: tuple[np.ndarray, ...]
    tables: tuple[TargetTables, ...] = ()
    """Each step's targets laid out for the kernel on the base car (`engine.target_tables`;
    a design whose targets read the same numbers uses them, `_same_targets`)."""
    probes: tuple[tuple[int, CompiledTargets], ...] = ()
    """(step, the base car's compiled targets there) for the first step of each kind of
    targets (`CompiledTargets.signature`) of the motion."""
    chassis_rows: tuple[tuple[float, ...], ...] = ()
    """Each step's chassis state as `MetricRows.chassis` keeps it (`_result`)."""
    preset: str = ""
    """The sign convention's preset name (`MetricRows.convention`)."""


DAMPER_KEYS = ("input_table", "input_limits", "damper_design_lengths")
"""``model.derived`` entries that follow from the dampers' design lengths and the
workbook's limits alone (`solve.inputs.input_table`, `solve.inputs.input_limits`, the
lengths by damper): a design that moves no damper point has the base car's."""


def _design_lengths(model: KinematicModel) -> dict[str, float]:
    """Each damper's design length by body (mm), as `sweeps.result` keeps them."""
    car = model.car
    return {d.body: car.damper_design_length(d) for d in car.dampers}


class FromBase:
    """The base car's motions, solved once, and a design's motions solved from them
    (module doc). `ready` is False when the base car does not allow it (then `run`
    always answers None). moved: the points the study moves; ran: the base car's
    `run_sweep` results of `specs` with the poses kept, when the caller has them."""

    def __init__(
        self,
        base: KinematicModel,
        specs: Sequence[SweepSpec],
        convention: str | None,
        moved: AbstractSet[str] = frozenset(),
        ran: Sequence[SweepResult] = (),
    ) -> None:
        from suspension_sim.metrics import preset
        from suspension_sim.solve import engine
        from suspension_sim.solve.diagnostics import checked_mobility
        from suspension_sim.solve.pose import chassis_transform
        from suspension_sim.solve.solver import check_states
        from suspension_sim.solve.steering import left_turn_rack_sign
        from suspension_sim.solve.targets import CompiledTargets
        from suspension_sim.sweeps import run_sweep
        from suspension_sim.sweeps.motions import motion_style

        self.convention = convention
        self.motions: list[BaseMotion] = []
        self.ready = False
        self.keys: tuple[object, ...] = ()
        self.structure: Structure | None = None
        self.base_damper_of = np.zeros(0, dtype=int)
        self.base_ratio: float | None = None
        self.reference_point = np.zeros(3)
        self.copies: dict[object, object] = {}
        """What the base car's point copies give (`_body_runs`, `wheel_rows`), seeded
        in a design of its structure (the same copies) under the same keys."""
        self.base_seeds: dict[object, object] = {}
        """The base car's values of `keys`."""
        self.plain: dict[int, bool] = {}
        """By the id of each of `motions`: whether `_plain_motion` says it is the base
        car's on every design whose seeded values are the base car's."""
        try:
            if not engine.kernel_compiled() or checked_mobility(base).redundant:
                return
            self.style = motion_style(None, convention, base)
            for k, spec in enumerate(specs):
                done = ran[k] if k < len(ran) and ran[k].spec is spec else None
                res = run_sweep(base, spec, convention=convention) if done is None else done
                if res.problems or len(res.poses) != len(res.motion) or not len(res.motion):
                    return
                states = [step.state for step in res.motion]
                checked = check_states(base, states)
                if not checked.ok.all():
                    return
                frames = tuple(chassis_transform(base, st.chassis) for st in states)
                tables: list[TargetTables] = []
                probes: dict[object, tuple[int, CompiledTargets]] = {}
                for k, st in enumerate(states):
                    ct = CompiledTargets(base, st.targets, frames[k])
                    tt = engine.target_tables(base, ct) if st.targets else engine.no_targets(base)
                    if tt is None:
                        return
                    tables.append(tt)
                    probes.setdefault(ct.signature, (k, ct))
                self.motions.append(
                    BaseMotion(
                        spec,
                        res.motion,
                        np.array([p.params for p in res.poses]),
                        checked.strokes,
                        checked.rack,
                        checked.held,
                        tuple(dict(st.targets) for st in states),
                        frames,
                        tuple(tables),
                        tuple(probes.values()),
                        tuple(tuple(st.chassis) for st in states),
                        preset(convention or base.car.options.sign_convention).name,
                    )
                )
        except SuspensionSimError:
            return
        try:
            from suspension_sim.metrics.geometry import wheel_set

            if base.car.rack is not None and base.car.rack.ratio_mm_per_deg:
                left_turn_rack_sign(base)  # the wheel set's steering ratio reads it
            ws = wheel_set(base)
        except SuspensionSimError:
            return
        self.base_damper_of = ws.damper_of
        self.base_ratio = ws.rack_ratio
        self.keys = tuple(k for k in SEEDED_KEYS if k in base.derived._values)
        self.base_seeds = {k: base.derived._values[k] for k in self.keys}
        self.plain = {id(bm): _plain_motion(bm.spec, self.style) for bm in self.motions}
        if not self.motions:
            return
        self.limit_rows = (
            np.vstack([bm.strokes for bm in self.motions]),
            np.concatenate([bm.rack for bm in self.motions]),
            np.vstack([np.where(bm.held, bm.strokes, 0.0) for bm in self.motions]),
            np.cumsum([0] + [len(bm.strokes) for bm in self.motions]),
        )
        """Every motion's strokes, rack and held strokes in a row, and where each
        motion's rows start and end (the limit checks of `run`)."""
        self.reference_point = _reference_point(base)
        found = structure(base)
        if found is None:
            return
        fixed = not (set(moved) & wheel_points(base))
        self.structure = dataclasses.replace(found, wheels_fixed=fixed)
        self.copies = {
            ("doe_batch", "bodies"): _body_runs(base),
            ("doe_batch", "wheel_rows"): wheel_rows(base),
        }
        damper_points = {p for d in base.car.dampers for p in (d.chassis_point, d.moving_point)}
        if not set(moved) & damper_points:
            # the dampers' design lengths, hence every input's limits, are the base car's
            from suspension_sim.solve.inputs import input_limits, input_table

            input_table(base)
            input_limits(base)
            base.derived.get("damper_design_lengths", lambda: _design_lengths(base))
            for key in DAMPER_KEYS:
                self.copies[key] = base.derived._values[key]
        self.ready = True

    def same_wheels(self, model: KinematicModel) -> bool | None:
        """Whether the design's wheel set equals the base car's (`doe_metrics.same_wheels`
        of the two), known without building it when the study moves none of the points
        it reads and `design_checks` found the design's wheel-to-damper choice: then
        only that choice and the steer sign can differ. None: build it and compare."""
        st = self.structure
        if st is None or not st.wheels_fixed:
            return None
        damper_of = model.derived._values.get(DAMPER_OF)
        if not isinstance(damper_of, np.ndarray):
            return None
        if self.base_ratio is not None:
            sign = model.derived._values.get("left_turn_rack_sign")
            if sign is None:
                return None
            rack = model.car.rack
            if rack is None or abs(rack.ratio_mm_per_deg or 0.0) * sign != self.base_ratio:
                return False
        return bool(np.array_equal(damper_of, self.base_damper_of))

    def check_many(self, models: Sequence[KinematicModel]) -> list[bool]:
        """`design_checks` of designs of the base car's structure, all at once
        (`design_checks_many`), each seeded as `run` seeds it; what `run` takes as
        `checked`. False for all when the base car allows no design checks."""
        if self.structure is None:
            return [False] * len(models)
        for model in models:
            self._seed_copies(model)
        return design_checks_many(models, self.structure, self.keys)

    def _seed_copies(self, model: KinematicModel) -> None:
        """The base car's copies are the design's (`copies`)."""
        for key, value in self.copies.items():
            model.derived.get(key, lambda v=value: v)  # type: ignore[misc]

    def run(
        self, model: KinematicModel, checked: bool | None = None
    ) -> list[tuple[SweepSpec, SweepResult | None, str] | None] | None:
        """Each motion of the design `model` (of the base car's structure) solved from
        the base car's steps, as the `run_sweep` result (``keep_poses=False``) in the
        reference's (spec, result, reason) form, or None for a motion that does not
        meet the module doc's conditions (the caller runs that one by `run_sweep`). None
        for the whole design when it fails `design_checks`, or no motion is solved.
        checked: the design checks' answer when `check_many` gave it (None: `run`
        checks)."""
        from suspension_sim.solve import engine
        from suspension_sim.solve.inputs import within_limits
        from suspension_sim.solve.pose import chassis_transform

        if self.structure is None:
            return None
        if checked is None:
            self._seed_copies(model)
            checked = design_checks(model, self.structure, self.keys)
        if not checked:
            return None
        same_frame = np.array_equal(_reference_point(model), self.reference_point)
        usable: list[BaseMotion] = []
        solved: list[np.ndarray] = []
        residuals: list[np.ndarray] = []
        # the seeded values equal to the base car's: a motion that reads nothing else of
        # the design is the base car's (`_plain_motion`), not built again
        seeded = model.derived._values
        same_seeds = all(
            k in seeded and _same_value(seeded[k], v) for k, v in self.base_seeds.items()
        )
        # the limit checks of `check_states` and of `run_sweep`, whose bounds follow the
        # design's damper lengths: every motion's states at once
        strokes, rack, held, ends = self.limit_rows
        try:
            ok = within_limits(model, strokes, rack) & within_limits(model, held)
        except SuspensionSimError:
            ok = np.zeros(len(strokes), dtype=bool)
        limits_ok = {
            id(bm): bool(ok[a:b].all())
            for bm, (a, b) in zip(self.motions, itertools.pairwise(ends), strict=True)
        }
        for bm in self.motions:
            try:
                if not (same_seeds and self.plain[id(bm)]):
                    with engine.hold_load():
                        if bm.spec.build(model, self.style) != bm.motion:
                            continue  # e.g. a roll about the design's own roll axis
            except SuspensionSimError:
                continue
            if not limits_ok[id(bm)]:
                continue
            if same_frame:
                frames = bm.chassis
                shared = _same_targets(model, bm)
            else:
                frames = tuple(chassis_transform(model, st.chassis) for st in bm.motion.states)
                shared = False
            got = _solve_states(model, bm, frames, bm.tables if shared else None)
            if got is None:
                continue
            usable.append(bm)
            solved.append(got[0])
            residuals.append(got[1])
        clear = _clear_of_branches(model, usable, solved) if usable else []
        done = {
            id(bm): (bm.spec, _result(model, bm, Q, r, self.convention, self.style), "")
            for bm, Q, r, ok in zip(usable, solved, residuals, clear, strict=True)
            if ok
        }
        if not done:
            return None
        return [done.get(id(bm)) for bm in self.motions]


PLAIN_KINDS = frozenset(("heave", "roll", "pitch", "steer", "bump", "stroke", "rack", "chassis"))
"""Motion kinds whose build in the ``ours`` style reads of the model only names, the
workbook's options and steering ratio (the same on every design of a study) and the
`SEEDED_KEYS` values (the damper-wheel pairing, the left-turn rack sign): `sweeps.motions`
heave, roll, pitch (contact targets of each damper's wheel), steer (the rack per degree:
ratio x sign), bump (the wheel's damper), stroke, rack, chassis."""


def _plain_motion(spec: SweepSpec, style: str) -> bool:
    """True when `spec` builds the same motion on every design whose seeded values are
    the base car's (`PLAIN_KINDS` in the ``ours`` style; held inputs and targets are
    names and numbers, `SweepSpec.held_state`): it need not be built per design."""
    motions = [spec.motion] + ([spec.grid] if spec.grid is not None else [])
    return style == "ours" and all(m.kind in PLAIN_KINDS for m in motions)


def _same_value(a: object, b: object) -> bool:
    """Equal seeded values (a dict, a float or an array)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return bool(a == b)


def _reference_point(model: KinematicModel) -> np.ndarray:
    """The chassis reference point the chassis transforms turn about (mm)."""
    from suspension_sim.solve.pose import chassis_transform

    return chassis_transform(model, (0.0, 0.0, 0.0, 1.0, 1.0, 1.0))[:3, 3].copy()


def _same_targets(model: KinematicModel, bm: BaseMotion) -> bool:
    """True when the design's targets read the same numbers as the base car's at every
    step of `bm` (the same chassis frames assumed): for each kind of targets of the
    motion, the compiled targets at its first step (point copies, gradients, offsets,
    tyre radii, contact flags) equal the base car's. Every other step of that kind
    differs from it only by values and frames the two cars share, so the base car's
    kernel layout of each step's targets is the design's."""
    from suspension_sim.solve.targets import CompiledTargets

    for k, ref in bm.probes:
        mine = CompiledTargets(model, bm.targets[k], bm.chassis[k])
        for name in ("i", "j", "g", "offset", "radius", "is_contact", "value"):
            if not np.array_equal(getattr(mine, name), getattr(ref, name)):
                return False
    return True


def _solve_states(
    model: KinematicModel,
    bm: BaseMotion,
    frames: tuple[np.ndarray, ...],
    tables: tuple[TargetTables, ...] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each state of `bm` on the design `model`, from the base car's solution at that
    step (its held inputs are the state's): the joint parameters (S, n_params) and the
    largest residual of each (mm), or None when one does not close (or its targets
    cannot be solved inside the kernel). tables: the targets of each step laid out for
    the kernel, when known (`_same_targets`)."""
    from suspension_sim.solve import engine
    from suspension_sim.solve.targets import CompiledTargets
    from suspension_sim.tolerances import INNER_TARGET_MM

    target = min(model.car.options.solver_tolerance_mm, INNER_TARGET_MM)
    found: Sequence[TargetTables | None]
    if tables is not None:  # the base car's layout, the same numbers (`_same_targets`)
        found = tables
    else:
        found = [
            engine.target_tables(model, CompiledTargets(model, bm.targets[s], frames[s]))
            if bm.targets[s]
            else engine.no_targets(model)
            for s in range(len(bm.params))
        ]
    ready = [tt for tt in found if tt is not None]
    if len(ready) != len(found):
        return None
    out = bm.params.copy()  # each state starts at the base car's solution at its step
    # BRANCH: closed, but far from the kernel's own prediction, which here (the held
    # inputs unchanged, the points moved) is the start: the screen that applies is
    # `_clear_of_branches`
    sess = engine.session(model)
    worst = sess.solve_rows(out, bm.params, ready, target, (engine.OK, engine.BRANCH))
    if worst is None:
        return None
    return out, worst


def _clear_of_branches(
    model: KinematicModel, motions: Sequence[BaseMotion], solved: Sequence[np.ndarray]
) -> list[bool]:
    """The branch screen of the module doc for every step of every motion, in one
    compiled call for the point positions: per body, the largest distance of its points
    between the prediction and the previous step (predicted motion) and between the
    solution and the prediction (deviation); per motion, True when every deviation is at
    most ``JUMP_RATIO * predicted + JUMP_FLOOR_MM`` (mm)."""
    from suspension_sim.solve import engine
    from suspension_sim.solve.continuation import JUMP_FLOOR_MM, JUMP_RATIO

    # Every step of every motion in a row: the previous pose of a motion's first step
    # is the design (q = 0), of any other the step before; the prediction is the
    # previous pose moved by the base car's own step.
    Q = np.concatenate(solved)
    base = np.concatenate([bm.params for bm in motions])
    first = np.zeros(len(Q), dtype=bool)
    first[np.cumsum([0] + [len(q) for q in solved[:-1]])] = True
    prev_q = np.roll(Q, 1, axis=0)
    prev_q[first] = 0.0
    prev_b = np.roll(base, 1, axis=0)
    prev_b[first] = 0.0
    pred_q = prev_q + (base - prev_b)
    order, starts = model.derived.get(("doe_batch", "bodies"), lambda: _body_runs(model))
    if not len(order):  # nothing moves: no step can jump
        return [True] * len(solved)
    # the positions at design, at each solution, at each prediction: (1 + 2 S, n, 3)
    S = len(Q)
    P = engine.chassis_points_compiled(model, np.vstack([np.zeros((1, Q.shape[1])), Q, pred_q]))
    got, pred = P[1 : S + 1], P[S + 1 :]
    prev_row = np.arange(S)  # the step before's row of P (its solution), or the design's
    prev_row[first] = 0
    # per copy, the predicted motion's and the deviation's length (2 S, n); the x, y, z
    # terms summed in turn (numpy's sum over a short last axis, 8x slower, adds them in
    # the same order), then the copies in body order and each body's largest
    d = np.concatenate([pred - P[prev_row], got - pred])
    d *= d
    dist = np.sqrt(d[:, :, 0] + d[:, :, 1] + d[:, :, 2])[:, order]
    largest = np.maximum.reduceat(dist, starts, axis=1)
    moved_b, off_b = largest[:S], largest[S:]
    ok = np.all(off_b <= JUMP_RATIO * moved_b + JUMP_FLOOR_MM, axis=1)
    ends = np.cumsum([0] + [len(q) for q in solved])
    return [bool(ok[a:b].all()) for a, b in itertools.pairwise(ends)]


def _body_runs(model: KinematicModel) -> tuple[np.ndarray, np.ndarray]:
    """The point copies on moving parts sorted by body (stable) and where each body's
    run starts. A copy on a fixed part (the chassis, a body fixed to it) stands still in
    every pose, so it always passes the branch screen and is left out."""
    keep = np.flatnonzero(model.inst_part >= model.n_fixed_parts)
    rows = np.unique(np.array(model.inst_body, dtype=object), return_inverse=True)[1]
    rows = np.asarray(rows).reshape(-1)[keep]
    sort = np.argsort(rows, kind="stable")
    return keep[sort], np.flatnonzero(np.r_[True, np.diff(rows[sort]) != 0])


def _result(
    model: KinematicModel,
    bm: BaseMotion,
    Q: np.ndarray,
    residual: np.ndarray,
    convention: str | None,
    style: str,
) -> SweepResult:
    """The `run_sweep` result (``keep_poses=False``) of the design's solved steps: what
    `MetricRows.add` keeps of each step's pose, the damper-limit text made (by
    `sweeps.result.limit_text`) only for the steps where some damper is past a length
    limit by more than `LIMIT_NOTE_MM` (the same comparisons; '' elsewhere)."""
    from suspension_sim.solve.inputs import input_table
    from suspension_sim.solve.pose import Pose
    from suspension_sim.sweeps.result import MetricRows, SweepResult, limit_text

    car = model.car
    table = input_table(model)
    tol = car.options.solver_tolerance_mm
    n = len(bm.motion)
    names = model.damper_names
    # Every stroke and the rack as the solved parameters hold them: the freed ones as
    # solved, the held ones as the base car's solve wrote them (`set_inputs` of the
    # state's inputs, read by name as `solve` reads them), which is what `solve` puts
    # in the pose.
    strokes = Q[:, table.damper_params]
    if table.rack_param is not None:
        rack = Q[:, table.rack_param].tolist()
    else:
        rack = [float(step.state.rack) for step in bm.motion]
    design = model.derived.get("damper_design_lengths", lambda: _design_lengths(model))
    order, low, high = model.derived.get(LIMIT_ROWS, lambda: _limit_rows(model))
    lengths = np.array([design[b] for b in order]) - strokes
    past = ((lengths < low) | (lengths > high)).any(axis=1)
    rows = MetricRows(
        convention=bm.preset,
        model=model,
        params=list(Q),
        shocks=strokes.tolist(),
        rack=rack,
        chassis=list(bm.chassis_rows),
        residual=residual.tolist(),
        tolerance=tol,
        limits=[""] * n,
    )
    if past.any():
        info = _solved_info(tol)
        for s in np.flatnonzero(past).tolist():
            shocks = dict(zip(names, rows.shocks[s], strict=True))
            chassis = bm.motion[s].state.chassis
            rows.limits[s] = limit_text(Pose(model, Q[s], shocks, rows.rack[s], chassis, info))
    return SweepResult(
        bm.spec, bm.motion, [], list(range(n)), [], [], [], convention, model, rows, style
    )


LIMIT_ROWS = ("doe_batch", "limit_rows")
"""``model.derived`` key of `_limit_rows`."""


def _limit_rows(model: KinematicModel) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The dampers in the order of ``model.damper_names`` (their bodies) and the lengths
    past which `limit_text` names them: min - `LIMIT_NOTE_MM` and max + `LIMIT_NOTE_MM`
    (mm; -inf / inf where the workbook gives no limit, so no length is past it)."""
    from suspension_sim.tolerances import LIMIT_NOTE_MM

    by_body = {d.body: d for d in model.car.dampers}
    dampers = [by_body[name] for name in model.damper_names]
    low = [-np.inf if d.min_length is None else d.min_length - LIMIT_NOTE_MM for d in dampers]
    high = [np.inf if d.max_length is None else d.max_length + LIMIT_NOTE_MM for d in dampers]
    return [d.body for d in dampers], np.array(low), np.array(high)


def _solved_info(tol: float) -> SolveInfo:
    """The `SolveInfo` of a step the kernel closed (what the limit text's pose carries)."""
    from suspension_sim.solve.pose import SolveInfo

    return SolveInfo(True, "engine", 0, 1, 0, 0.0, tol, 0.0, float("nan"), False, "")
