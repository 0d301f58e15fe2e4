"""Walking from one solved pose to the next: small increments, assembly-branch checks.

A linkage usually has several assemblies for the same inputs (a rocker over
centre, a steering arm on the other side of its tie rod). A warm-started
solve normally stays on the branch of its guess, but a large step, above all
one that starts near a dead point (toggle), can converge onto another
assembly. That pose closes every joint, so nothing else would notice.

A move from a solved pose to a new `State` is therefore

1. split into increments: no stroke, rack, chassis coordinate or target value
   changes by more than `max_step_mm` and no chassis angle by more than
   `max_step_deg` (nor so much that the farthest wheel moves more than
   `max_step_mm`); the inputs, chassis state and target values are
   interpolated linearly from their values at the previous pose;
2. each increment's solution is screened against the first-order
   prediction from the previous pose (implicit function theorem: one Newton
   step of the new system from the old solution, ``dq = -J^+ r``). On the
   same branch the two differ by a second-order term, small against the
   predicted motion; a body that lands on another branch is off by a finite
   distance however small the step (`check_branch`);
3. a flagged increment (or one that does not converge) is solved again as
   two halves from the last accepted pose, recursively down to
   ``1/2**halvings`` of it. Where the halves land on the same pose, the
   step was only strongly non-linear (close to a dead point) and is kept.
   Where they land elsewhere, the direct solve had jumped: it is refused and
   the halves' pose kept (and a note says so). Where the halves cannot get
   there at all, the move fails (`MoveError`): with `jump` set when the
   only solution found lies on another branch, otherwise the state is out of
   reach of the current branch.

Units: mm and degrees (chassis angles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.solve.inputs import CHASSIS_AXES, input_table, locked_params, set_inputs
from suspension_sim.solve.pose import Pose, chassis_transform
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import CompiledTargets, Target

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

MAX_STEP_MM = 5.0
"""Largest increment of a stroke, the rack, a chassis coordinate or a target value (mm)."""
MAX_STEP_DEG = 1.0
"""Largest increment of a chassis angle (deg)."""
MAX_HALVINGS = 5
"""A suspicious or failed increment is halved at most this many times (to 1/32)."""
JUMP_RATIO = 0.5
"""Screen: a body is suspicious when it lands farther than this fraction of its predicted
motion (plus `JUMP_FLOOR_MM`) from the predicted place."""
JUMP_FLOOR_MM = 0.5
"""Screen: deviations from the first-order prediction below this (mm) are never suspicious."""
SAME_POSE_MM = 1e-3
"""Two solutions of one state whose point copies agree within this (mm) are the same pose."""


@dataclass(frozen=True)
class BranchJump:
    """Where a solve landed against where continuity says it should be (mm).

    `bodies` lists the bodies that jumped, worst first, with the distance
    (mm, largest over their points, chassis frame) between where they landed
    and the reference: the first-order prediction (screen) or the pose
    reached by continuing in smaller steps (confirmed jump).
    """

    bodies: tuple[tuple[str, float], ...]
    moved_mm: float  # how far the worst body's points moved in the step
    reference: str  # "prediction" or "continuation"

    @property
    def body(self) -> str:
        """The body that jumped farthest."""
        return self.bodies[0][0]

    def explain(self) -> str:
        name, dist = self.bodies[0]
        others = ", ".join(f"{b} {d:.3g} mm" for b, d in self.bodies[1:4])
        also = f"; also {others}" if others else ""
        if self.reference == "continuation":
            where = "from where continuing the motion in smaller steps puts it"
        else:
            where = (
                f"from where the previous step's motion leads (first-order prediction), "
                f"having moved {self.moved_mm:.3g} mm"
            )
        return (
            f"body {name} jumped to another assembly branch: it landed {dist:.3g} mm {where}{also}"
        )


class MoveError(Exception):
    """A move could not reach its state: `reason` says why, `jump` if a body jumped.

    `at` is the increment's state that failed (on the way to the target state).
    """

    def __init__(self, reason: str, jump: BranchJump | None = None, at: State | None = None):
        super().__init__(reason)
        self.reason = reason
        self.jump = jump
        self.at = at


# -- the screen ----------------------------------------------------------------------------
def _locked_and_q(prev: Pose, state: State) -> tuple[np.ndarray, np.ndarray]:
    """prev's parameters with the state's held inputs written in, and the unknowns."""
    model = prev.model
    freed = tuple(state.targets)
    q = prev.params.copy()
    set_inputs(model, q, state.shocks, state.rack, freed)
    unknowns = np.setdiff1d(np.arange(model.n_params), locked_params(model, freed))
    return q, unknowns


def predicted_params(prev: Pose, state: State) -> np.ndarray:
    """First-order prediction of the joint parameters at `state` from the solved `prev`.

    One least-squares Newton step of the state's system from prev's solution:
    prev closes every joint and meets its own targets, so the residual there
    under the new inputs is (to first order) the input change times its
    derivative, and the step is the implicit-function-theorem tangent applied
    to that change.
    """
    model = prev.model
    q, unknowns = _locked_and_q(prev, state)
    J = model.jacobian(q, unknowns).toarray()
    r = model.residuals(q[:, None])[:, 0].reshape(-1, 3)[model.active_pairs].ravel()
    if state.targets:
        P, dP = model.instance_positions(q[:, None], derivatives=True)
        assert dP is not None
        ct = CompiledTargets(model, state.targets, chassis_transform(model, state.chassis))
        rt, Jt = ct.evaluate(P[:, :, 0], dP[:, :, :, 0], unknowns)
        J = np.vstack([J, Jt])
        r = np.concatenate([r, rt])
    dx, *_ = np.linalg.lstsq(J, -r, rcond=None)
    q[unknowns] += dx
    return q


def _body_distances(model: KinematicModel, Q: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Per body, the largest distance between its points in the three parameter
    columns of Q: (bodies, 3) of [|P1 - P0|, |P2 - P0|, |P2 - P1|] (chassis frame, mm)."""
    P = _positions(model, Q)  # (3, n_inst, 3)
    diff = np.empty(P.shape)  # P[[1, 2, 2]] - P[[0, 0, 1]], without the gathers
    np.subtract(P[1], P[0], out=diff[0])
    np.subtract(P[2], P[0], out=diff[1])
    np.subtract(P[2], P[1], out=diff[2])
    d = np.sqrt(np.einsum("kic,kic->ik", diff, diff))  # (n_inst, 3)
    names, order, starts = model.derived.get(("continuation", "bodies"), lambda: _bodies(model))
    return names, np.maximum.reduceat(d[order], starts, axis=0)


def _screened_distances(
    model: KinematicModel, Q: np.ndarray
) -> tuple[list[str], np.ndarray | None]:
    """`_body_distances` of the rows of Q (3, n_params), or None for the distances when the
    compiled kernel is loaded and finds every body within the screen's allowance
    (`engine.body_spread_compiled`: the same distances, one kernel call; a sweep's
    next step reuses its start's point copies)."""
    from suspension_sim.solve import engine

    if not engine.kernel_compiled():
        return _body_distances(model, Q.T)
    d, clear = engine.body_spread_compiled(model, Q, JUMP_RATIO, JUMP_FLOOR_MM)
    names = model.derived.get(("continuation", "bodies"), lambda: _bodies(model))[0]
    return names, None if clear else d


def _bodies(model: KinematicModel) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Body names, the point copies sorted by body, and where each body's run starts."""
    names = list(dict.fromkeys(model.inst_body))
    index = {b: i for i, b in enumerate(names)}
    rows = np.array([index[b] for b in model.inst_body])
    order = np.argsort(rows, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(rows[order]) != 0])
    return names, order, starts


def _positions(model: KinematicModel, Q: np.ndarray) -> np.ndarray:
    """Chassis-frame point copies (S, n_inst, 3) for parameter columns Q (compiled
    kernel once loaded; the numpy model otherwise)."""
    from suspension_sim.solve import engine

    if engine.kernel_compiled():
        return engine.chassis_points_compiled(model, Q.T)
    return np.moveaxis(model.instance_positions(Q, derivatives=False)[0], 2, 0)


def check_branch(prev: Pose, new: Pose, state: State) -> BranchJump | None:
    """Screen a solved step: the bodies of `new` far from the first-order prediction.

    Compares every body's points at `new` (solved for `state`) with the
    prediction from `prev`, in the chassis frame so that a prescribed chassis
    motion does not count. None when every body is within ``JUMP_RATIO *
    predicted motion + JUMP_FLOOR_MM`` of its predicted place. Close to a
    dead point the prediction itself is poor, so a hit is a suspicion that
    `move` confirms or clears by solving the step in halves.
    """
    info = new.info
    if (
        info.prediction is not None
        and info.predicted_from is not None
        and np.array_equal(info.predicted_from, prev.params)
    ):  # the engine predicted this step from prev already (first order, for free)
        pred = info.prediction
    else:
        pred = predicted_params(prev, state)
    names, d = _screened_distances(prev.model, np.stack([prev.params, pred, new.params]))
    if d is None:  # the compiled screen passed every body
        return None
    predicted, moved, deviation = d[:, 0], d[:, 1], d[:, 2]
    excess = deviation - (JUMP_RATIO * predicted + JUMP_FLOOR_MM)
    if not (excess > 0).any():
        return None
    order = [i for i in np.argsort(-excess) if excess[i] > 0]
    bodies = tuple((names[i], float(deviation[i])) for i in order)
    return BranchJump(bodies, float(moved[order[0]]), "prediction")


def compare_poses(direct: Pose, continued: Pose, start: Pose) -> BranchJump | None:
    """The bodies where two solutions of one state differ (None if the same pose)."""
    names, d = _body_distances(
        direct.model, np.stack([start.params, continued.params, direct.params], axis=1)
    )
    apart, moved = d[:, 2], d[:, 1]
    if not (apart > SAME_POSE_MM).any():
        return None
    order = [i for i in np.argsort(-apart) if apart[i] > SAME_POSE_MM]
    bodies = tuple((names[i], float(apart[i])) for i in order)
    return BranchJump(bodies, float(moved[order[0]]), "continuation")


# -- moving --------------------------------------------------------------------------------
def measure_target(pose: Pose, target: Target) -> float:
    """The current value of a target's quantity at a pose (mm)."""
    return measure_targets(pose, {"_": target})["_"]


def measure_targets(pose: Pose, targets: dict[str, Target]) -> dict[str, float]:
    """The current value of each target's quantity at a pose (mm), in one pass."""
    if not targets:
        return {}
    model = pose.model
    P = _positions(model, pose.params[:, None])[0]
    zeroed = {k: Target(t.kind, t.name, 0.0, t.axis, t.frame) for k, t in targets.items()}
    ct = CompiledTargets(model, zeroed, chassis_transform(model, pose.chassis))
    slopes = np.zeros((P.shape[0], max(model.kmax, 1), 3))  # no unknowns: not used
    r, _ = ct.evaluate(P, slopes, np.zeros(0, dtype=int))
    return dict(zip(targets, (float(v) for v in r), strict=True))


@dataclass(frozen=True)
class Segment:
    """Linear interpolation from a solved pose's inputs to a state."""

    start: Pose
    end: State
    target_start: dict[str, float]

    def at(self, t: float) -> State:
        if t >= 1.0:
            return self.end
        end, start = self.end, self.start
        freed = {k.lower() for k in end.targets}
        shocks = {
            d: _lerp(start.shocks.get(d, 0.0), end.shocks.get(d, 0.0), t)
            for d in start.model.damper_names
            if d.lower() not in freed
        }
        rack = start.rack if "rack" in freed else _lerp(start.rack, end.rack, t)
        chassis = tuple(_lerp(a, b, t) for a, b in zip(start.chassis, end.chassis, strict=True))
        targets = {
            k: Target(tg.kind, tg.name, _lerp(self.target_start[k], tg.value, t), tg.axis, tg.frame)
            for k, tg in end.targets.items()
        }
        return State(shocks, rack, chassis, targets)  # type: ignore[arg-type]

    def increments(self, max_mm: float, max_deg: float) -> int:
        """How many equal increments keep every change within the limits."""
        end, start = self.end, self.start
        table = input_table(start.model)
        end_shocks, start_shocks = end.shocks, start.shocks
        freed = {k.lower() for k in end.targets} if end.targets else ()
        worst = 0.0
        for d, low in zip(table.names, table.lowered, strict=True):
            if low not in freed:
                change = abs(end_shocks.get(d, 0.0) - start_shocks.get(d, 0.0))
                worst = max(worst, change / max_mm)
        if "rack" not in freed:
            worst = max(worst, abs(end.rack - start.rack) / max_mm)
        for axis, a, b in zip(CHASSIS_AXES, start.chassis, end.chassis, strict=True):
            if axis in ("roll", "pitch", "yaw"):
                if a == b:
                    continue
                lever = _lever_mm(start, axis)
                worst = max(worst, abs(b - a) / max_deg, math.radians(abs(b - a)) * lever / max_mm)
            else:
                worst = max(worst, abs(b - a) / max_mm)
        for k, tg in end.targets.items():
            worst = max(worst, abs(tg.value - self.target_start[k]) / max_mm)
        return max(1, math.ceil(worst - 1e-9))


def _lever_mm(pose: Pose, axis: str) -> float:
    """Largest distance of a wheel centre from the chassis axis of `axis` (roll: x,
    pitch: y, yaw: z) through the reference point, mm: how far one radian of
    chassis rotation moves a wheel. Computed once per model and axis."""
    return lever_mm(pose.model, axis)


def lever_mm(model: KinematicModel, axis: str) -> float:
    """`_lever_mm` of a model (mm), computed once per model and axis."""
    return model.derived.get(("continuation", "lever", axis), lambda: _lever(model, axis))


def _lever(model: KinematicModel, axis: str) -> float:
    car = model.car
    ref_name = car.options.chassis_reference_point
    ref = car.point(ref_name) if ref_name else np.zeros(3)
    k = ("roll", "pitch", "yaw").index(axis)
    keep = [i for i in range(3) if i != k]
    return max(
        (float(np.linalg.norm((car.point(w.centre) - ref)[keep])) for w in car.wheels),
        default=1.0,
    )


def _lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


def move(
    start: Pose,
    state: State,
    *,
    max_step_mm: float = MAX_STEP_MM,
    max_step_deg: float = MAX_STEP_DEG,
    halvings: int = MAX_HALVINGS,
    check: bool = True,
    tolerance: float | None = None,
    notes: list[str] | None = None,
) -> Pose:
    """Solve `state` by continuation from the solved pose `start` (see the module doc).

    `halvings`: how often a suspicious or failed increment may be halved (0:
    refuse a jumped increment at once). `check=False` skips the branch screen
    (plain warm-started increments). A refused jump that smaller steps
    avoided appends a line to `notes`. Raises `MoveError` when the state
    cannot be reached on the current branch; InputError (e.g. a stroke beyond
    the damper's length limits) propagates.
    """
    if not (max_step_mm > 0 and max_step_deg > 0):
        raise InputError("increments must be positive", where="continuation")
    target_start = measure_targets(start, dict(state.targets))
    seg = Segment(start, state, target_start)
    n = seg.increments(max_step_mm, max_step_deg)
    walker = _Walker(seg, check, tolerance, notes, max(0, int(halvings)))
    pose = start
    for k in range(n):
        pose = walker.advance(pose, k / n, (k + 1) / n, 0)
    return pose


@dataclass
class _Walker:
    seg: Segment
    check: bool
    tolerance: float | None
    notes: list[str] | None
    halvings: int

    def solve(self, guess: Pose, t: float) -> tuple[Pose, State]:
        sub = self.seg.at(t)
        model = self.seg.start.model
        return sub.solve(model, guess=guess, on_failure="return", tolerance=self.tolerance), sub

    def advance(self, pose: Pose, t0: float, t1: float, depth: int) -> Pose:
        trial, sub = self.solve(pose, t1)
        suspect: BranchJump | None = None
        if trial.converged:
            if not self.check:
                return trial
            suspect = check_branch(pose, trial, sub)
            if suspect is None:
                return trial
        if depth >= self.halvings:
            return self.last_resort(pose, trial, sub, suspect, t0, t1)
        tm = 0.5 * (t0 + t1)
        try:
            mid = self.advance(pose, t0, tm, depth + 1)
            end = self.advance(mid, tm, t1, depth + 1)
        except MoveError as exc:
            if suspect is None or exc.jump is not None:
                raise
            raise MoveError(
                f"the solver found a pose on another assembly branch ({suspect.explain()}), "
                f"and the current branch cannot be continued there: {exc.reason}",
                suspect,
                exc.at,
            ) from None
        if suspect is not None:
            jump = compare_poses(trial, end, pose)
            if jump is not None and self.notes is not None:
                self.notes.append(
                    f"a direct solve of this step jumped ({jump.explain()}); that pose was "
                    "refused and the motion continued in smaller steps"
                )
        return end

    def last_resort(
        self,
        pose: Pose,
        trial: Pose,
        sub: State,
        suspect: BranchJump | None,
        t0: float,
        t1: float,
    ) -> Pose:
        """At the smallest increment: keep a suspect pose only if two halves agree with it."""
        if suspect is None:
            raise MoveError(trial.failure or "the joints did not close", None, sub)
        mid, _ = self.solve(pose, 0.5 * (t0 + t1))
        end = self.solve(mid, t1)[0] if mid.converged else mid
        if end.converged:
            jump = compare_poses(trial, end, pose)
            if jump is None:
                return trial
            raise MoveError(jump.explain(), jump, sub)
        raise MoveError(
            f"{suspect.explain()}, and the current branch cannot be continued there", suspect, sub
        )


def pose_distance(a: Pose, b: Pose) -> float:
    """Largest distance between the same point copy in two poses (chassis frame, mm)."""
    Q = np.stack([a.params, b.params], axis=1)
    P, _ = a.model.instance_positions(Q, derivatives=False)
    return float(np.linalg.norm(P[:, :, 0] - P[:, :, 1], axis=1).max())
