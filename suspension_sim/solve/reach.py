"""How far each input (damper stroke, rack travel) can go before the linkage stops.

Two measures, one cheap and one exact:

* `link_bounds`: a rigorous outer bound from link lengths alone. A point's
  distance from a chassis point can never exceed the shortest chain of
  rigid distances between them (through every body but the inputs, whose
  lengths vary), nor fall below what the triangle inequality leaves. A
  damper's eye-to-eye length, and the rack end points' distances to the
  chassis, are bounded that way. Microseconds, no solve: any input outside
  it is refused before the solver starts (`check_reach`, exit 3).
* `walk` / `input_reach`: the reachable interval itself, by a 1-D
  continuation from a solved pose (tangent predictor from the implicit
  function theorem, Newton corrector on the input's own blocks), doubling
  the step while it closes and halving it when it does not, down to
  `REACH_RESOLUTION_MM`. The end is a dead point (a toggle: the Jacobian
  turns singular and the input reverses), reported with the bodies that line
  up there. `input_reach` runs it once per model from the design condition
  (other inputs at 0), cached in ``model.derived``; `near_limits` runs a short
  walk from a pose to say how far each input is from its dead point.

The cheap bound alone answers "is this absurd" in no time; the walk gives the
numbers an engineer reads, at the price of a few hundred small solves once
per model. Units: mm of stroke or rack travel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.description import CHASSIS
from suspension_sim.errors import SolveError
from suspension_sim.model.mobility import input_names
from suspension_sim.solve.problem import blas_controller, problem
from suspension_sim.tolerances import (
    INPUT_LIMIT_DIGITS,
    LIMIT_SLACK_MM,
    MODE_SHARE,
    NEAR_LIMIT_MM,
    REACH_CLOSED_MM,
    REACH_MAX_MM,
    REACH_RESOLUTION_MM,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

FIRST_STEP_MM = 1.0
"""First continuation step of `input_reach` (mm of input); it doubles while solves close."""
MAX_STEP_MM = 4.0
"""Largest continuation step (mm of input): small enough to stay on the branch."""
NEWTON_ITERATIONS = 8
"""Corrector iterations per continuation step before the step is halved."""
LINING_UP_BODIES = 3
"""A dead point names at most this many bodies: those that move most in its free motion."""


# -- the cheap bound ----------------------------------------------------------------------
def link_bounds(model: KinematicModel) -> dict[str, tuple[float, float]]:
    """Outer bound on every input from link lengths: {input: (low, high)} in mm.

    An input no chain of rigid links constrains gets (-inf, inf). Cached per model.
    """
    return model.derived.get("reach: link bounds", lambda: _link_bounds(model))


def chain_distances(n: int, rows: np.ndarray, cols: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """(n, n) shortest chain lengths (mm) between n points through rigid links: edges
    rows[k] - cols[k] of length dist[k] (the shortest when given twice), inf where no
    chain joins two points. Floyd-Warshall in numpy: a car has ~100 points, ~1 ms, and
    a first pose needs no scipy.sparse import."""
    D = np.full((n, n), np.inf)
    np.fill_diagonal(D, 0.0)
    if len(rows):
        np.minimum.at(D, (rows, cols), dist)
    for k in range(n):
        np.minimum(D, D[:, k, None] + D[None, k, :], out=D)
    return D


def _link_bounds(model: KinematicModel) -> dict[str, tuple[float, float]]:
    car = model.car
    names = [p.name for p in car.points]
    index = {n: i for i, n in enumerate(names)}
    xyz = np.array([p.xyz for p in car.points], dtype=float).reshape(-1, 3)
    varying = {d.body for d in car.dampers} | ({car.rack.body} if car.rack else set())
    rows: list[int] = []
    cols: list[int] = []
    for body in car.bodies:
        if body.name in varying:
            continue
        ids = [index[p] for p in body.points]
        for a in ids:
            for b in ids:
                if a != b:
                    rows.append(a)
                    cols.append(b)
    n = len(names)
    dist = np.linalg.norm(xyz[rows] - xyz[cols], axis=1) if rows else np.zeros(0)
    graph = chain_distances(n, np.asarray(rows, dtype=int), np.asarray(cols, dtype=int), dist)
    chassis = [index[p] for p in car.body(CHASSIS).points]
    out: dict[str, tuple[float, float]] = {}
    for d in car.dampers:
        p, c = index[d.moving_point], index[d.chassis_point]
        reach = graph[p]
        longest = float(reach[c])
        shortest = max([0.0, *(float(np.linalg.norm(xyz[k] - xyz[c]) - reach[k]) for k in chassis)])
        design = car.damper_design_length(d)
        out[d.body] = (design - longest, design - shortest)
    if car.rack is not None and model.topology.rack_param is not None:
        out["rack"] = _rack_bound(model, graph, xyz, index, chassis)
    return out


def _rack_bound(
    model: KinematicModel,
    graph: np.ndarray,
    xyz: np.ndarray,
    index: dict[str, int],
    chassis: list[int],
) -> tuple[float, float]:
    """Rack travel t such that every joined rack point E + t a stays within the chain
    distance of every chassis point (a quadratic in t per pair)."""
    car = model.car
    assert car.rack is not None and model.topology.rack_param is not None
    q = np.zeros((model.n_params, 1))
    q[model.topology.rack_param] = 1.0
    P, _ = model.instance_positions(q, derivatives=False)
    lo, hi = -math.inf, math.inf
    joined = {p for p, _ in car.joined_points()}
    for point in car.body(car.rack.body).points:
        if point not in joined:
            continue
        i = model.inst_index[(point, car.rack.body)]
        axis = P[i, :, 0] - model.inst_design[i]  # mm per mm of travel
        reach = graph[index[point]]
        for k in chassis:
            if not np.isfinite(reach[k]):
                continue
            w = xyz[index[point]] - xyz[k]
            aa, wa = float(axis @ axis), float(w @ axis)
            disc = wa * wa - aa * (float(w @ w) - float(reach[k]) ** 2)
            if aa <= 0 or disc < 0:
                continue
            root = math.sqrt(disc)
            lo, hi = max(lo, (-wa - root) / aa), min(hi, (-wa + root) / aa)
    return lo, hi


def reach_bounds(model: KinematicModel) -> tuple[tuple[str, float, float], ...]:
    """(input, lowest, highest) value (mm) that `check_reach` lets pass: `link_bounds`
    with the slack, cached per model."""

    def build() -> tuple[tuple[str, float, float], ...]:
        return tuple(
            (name, lo - LIMIT_SLACK_MM, hi + LIMIT_SLACK_MM)
            for name, (lo, hi) in link_bounds(model).items()
        )

    return model.derived.get("reach: bounds with slack", build)


def check_reach(model: KinematicModel, strokes: dict[str, float], rack: float) -> None:
    """Refuse an input that no configuration of the links can reach (`SolveError`, before
    any solve). The bound is loose: inputs inside it may still not close."""
    for name, lo, hi in reach_bounds(model):  # the same comparisons, no message
        v = rack if name == "rack" else strokes.get(name, 0.0)
        if not lo <= v <= hi:
            break
    else:
        return
    bounds = link_bounds(model)
    values = {**strokes, "rack": rack}
    for name, (lo, hi) in bounds.items():
        v = values.get(name, 0.0)
        if lo - LIMIT_SLACK_MM <= v <= hi + LIMIT_SLACK_MM:
            continue
        what = "rack travel" if name == "rack" else f"stroke of {name}"
        where = "rack" if name == "rack" else f"shocks ({name})"
        raise SolveError(
            f"{what} {v:g} mm is beyond the reach of the linkage: the link lengths allow "
            f"{_interval(lo, hi)} mm at most, and less in fact (see 'suspension-sim check')",
            where=where,
            hint="check the value and its unit (mm)",
        )


def within_reach(model: KinematicModel, strokes: np.ndarray, rack: np.ndarray) -> np.ndarray:
    """Which of many states `check_reach` passes, (S,) bool, without a message: strokes
    (S, n_dampers) in Damping order and rack (S,) as `check_reach` reads them (mm; 0 for
    an input a target frees). The same comparisons, vectorised."""
    names = model.damper_names
    column = {name: strokes[:, k] for k, name in enumerate(names)}
    column["rack"] = rack
    zero = np.zeros(len(strokes))
    ok = np.ones(len(strokes), dtype=bool)
    for name, lo, hi in reach_bounds(model):
        v = column.get(name, zero)
        ok &= (lo <= v) & (v <= hi)
    return ok


def _interval(lo: float, hi: float) -> str:
    return f"{lo:+.{INPUT_LIMIT_DIGITS}f} .. {hi:+.{INPUT_LIMIT_DIGITS}f}"


# -- the walk -----------------------------------------------------------------------------
@dataclass(frozen=True)
class WalkEnd:
    """Where a walk of one input in one direction stopped."""

    input: str
    direction: int  # +1: the input grows, -1: it shrinks
    distance: float  # mm of input travelled from the start
    limited: bool  # True: a dead point stopped it (else the window was reached)
    bodies: tuple[str, ...] = ()  # bodies that line up at the dead point

    @property
    def value_from(self) -> float:
        """Signed offset of the end from the start (mm)."""
        return self.direction * self.distance


def walk(
    model: KinematicModel,
    q_start: np.ndarray,
    runs: list[tuple[str, int, float]],
    first_step: float = FIRST_STEP_MM,
) -> list[WalkEnd]:
    """Move each input of `runs` ((input name, +1/-1, window mm)) alone from the solved
    parameters `q_start`, the other inputs held, until a dead point or the window.

    Runs are independent and evaluated as one batch.
    """
    with blas_controller().limit(limits=1, user_api="blas"):
        return _walk(model, np.asarray(q_start, dtype=float), runs, first_step)


def _walk(
    model: KinematicModel,
    q_start: np.ndarray,
    runs: list[tuple[str, int, float]],
    first_step: float,
) -> list[WalkEnd]:
    if not runs:
        return []
    names = input_names(model)
    inputs = model.input_params()
    prob = problem(model, inputs)
    everything = np.arange(model.n_params)
    lay = model.layout(everything)
    unknowns = prob.unknowns
    B = len(runs)
    param = np.array([inputs[names.index(name)] for name, _, _ in runs], dtype=int)
    # Each run only moves the blocks its input's column touches.
    Ju0 = model.jacobian(q_start, inputs).toarray()
    run_rows: list[np.ndarray] = []
    run_cols: list[np.ndarray] = []
    for name, _, _ in runs:
        touched = np.flatnonzero(Ju0[:, names.index(name)])
        rws = [r for r, _ in prob.blocks if np.intersect1d(r, touched).size]
        cls = [c for r, c in prob.blocks if np.intersect1d(r, touched).size]
        run_rows.append(np.concatenate(rws) if rws else np.zeros(0, dtype=int))
        run_cols.append(np.concatenate(cls) if cls else np.zeros(0, dtype=int))
    tolerance = model.car.options.solver_tolerance_mm
    q = np.repeat(q_start[:, None], B, axis=1)
    travelled = np.zeros(B)
    step = np.array([min(first_step, w) for _, _, w in runs], dtype=float)
    window = np.array([w for _, _, w in runs], dtype=float)
    sign = np.array([d for _, d, _ in runs], dtype=float)
    done = window <= 0
    limited = np.zeros(B, dtype=bool)

    def jacobians(qq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r, data, _, _ = model.evaluate_state(qq, lay)
        J = np.zeros((B, lay.shape[0], lay.shape[1]))
        J[:, lay.rows, lay.indices] = data.T
        return r, J

    for _ in range(400):  # guard; steps double, so a walk needs far fewer
        active = np.flatnonzero(~done)
        if not active.size:
            break
        _, J = jacobians(q)
        trial = q.copy()
        for b in active:
            rows, cols = run_rows[b], run_cols[b]
            du = sign[b] * step[b]
            trial[param[b], b] += du
            if rows.size and cols.size:
                Jx = J[b][np.ix_(rows, unknowns[cols])]
                dx, *_ = np.linalg.lstsq(Jx, -J[b][rows, param[b]] * du, rcond=None)
                trial[unknowns[cols], b] += dx
        ok = np.zeros(B, dtype=bool)
        previous = np.full(B, np.inf)
        moved = np.full(B, np.inf)
        for _ in range(NEWTON_ITERATIONS):
            r, J = jacobians(trial)
            for b in active:
                if ok[b] or previous[b] < 0:
                    continue
                rows, cols = run_rows[b], run_cols[b]
                err = float(np.max(np.abs(r[rows, b]), initial=0.0))
                # Closed, or (redundant joints) a least-squares compromise within tolerance.
                if err <= REACH_CLOSED_MM or (moved[b] <= REACH_CLOSED_MM and err <= tolerance):
                    ok[b] = True
                    continue
                if not np.isfinite(err) or (err > 0.9 * previous[b] and err > tolerance):
                    previous[b] = -1.0  # not converging: give up this step
                    continue
                previous[b] = err
                Jx = J[b][np.ix_(rows, unknowns[cols])]
                dx, *_ = np.linalg.lstsq(Jx, -r[rows, b], rcond=None)
                trial[unknowns[cols], b] += dx
                moved[b] = float(np.max(np.abs(dx), initial=0.0))
            if all(ok[b] or previous[b] < 0 for b in active):
                break
        for b in active:
            if ok[b]:
                q[:, b] = trial[:, b]
                travelled[b] += step[b]
                if travelled[b] >= window[b] - REACH_RESOLUTION_MM:
                    done[b] = True
                step[b] = min(2 * step[b], MAX_STEP_MM, window[b] - travelled[b])
            else:
                step[b] /= 2
                if step[b] < REACH_RESOLUTION_MM:
                    done[b], limited[b] = True, True
    _, J = jacobians(q)
    out = []
    for k, (name, direction, _) in enumerate(runs):
        bodies: tuple[str, ...] = ()
        if limited[k]:
            bodies = _lining_up(model, J[k], unknowns, run_rows[k], run_cols[k])
        out.append(WalkEnd(name, direction, float(travelled[k]), bool(limited[k]), bodies))
    return out


def _lining_up(
    model: KinematicModel, J: np.ndarray, unknowns: np.ndarray, rows: np.ndarray, cols: np.ndarray
) -> tuple[str, ...]:
    """Bodies taking part in the near-free motion (smallest singular vector) of J."""
    if not rows.size or not cols.size:
        return ()
    A = J[np.ix_(rows, unknowns[cols])]
    norms = np.linalg.norm(A, axis=0)
    _, _, Vt = np.linalg.svd(A / np.where(norms > 0, norms, 1.0))
    share: dict[str, float] = {}
    for i, v in enumerate(np.abs(Vt[-1])):
        body = model.topology.param_body[unknowns[cols[i]]]
        share[body] = max(share.get(body, 0.0), float(v))
    ranked = sorted((b for b in share if share[b] > MODE_SHARE), key=lambda b: -share[b])
    return tuple(ranked[:LINING_UP_BODIES])


# -- per model: the reachable interval at design --------------------------------------------
@dataclass(frozen=True)
class Reach:
    """Reachable interval of one input from design, the other inputs at 0 (mm)."""

    input: str
    low: WalkEnd
    high: WalkEnd
    bound: tuple[float, float]  # the link-length bound (mm)

    @property
    def interval(self) -> tuple[float, float]:
        return (self.low.value_from, self.high.value_from)


def input_reach(model: KinematicModel) -> dict[str, Reach]:
    """{input: Reach} from the design condition, computed once per model."""
    return model.derived.get("reach: from design", lambda: _input_reach(model))


def _input_reach(model: KinematicModel) -> dict[str, Reach]:
    bounds = link_bounds(model)
    runs: list[tuple[str, int, float]] = []
    for name in input_names(model):
        lo, hi = bounds.get(name, (-math.inf, math.inf))
        runs.append((name, -1, min(max(-lo, 0.0), REACH_MAX_MM)))
        runs.append((name, +1, min(max(hi, 0.0), REACH_MAX_MM)))
    ends = walk(model, np.zeros(model.n_params), runs)
    out = {}
    for k, name in enumerate(input_names(model)):
        lo, hi = bounds.get(name, (-math.inf, math.inf))
        out[name] = Reach(name, ends[2 * k], ends[2 * k + 1], (lo, hi))
    return out


# -- near a limit ---------------------------------------------------------------------------
def near_limits(pose: Pose, band: float = NEAR_LIMIT_MM) -> list[str]:
    """One line per input of a closed pose that is within `band` mm of a dead point,
    moving that input alone ("FL_Damper is 0.8 mm of stroke from a dead point ...")."""
    if not pose.converged or pose.targets:
        return []
    model = pose.model
    runs = [(name, d, band) for name in input_names(model) for d in (-1, +1)]
    values = {**pose.shocks, "rack": pose.rack}
    lines = []
    for end in walk(model, pose.params, runs, first_step=band):
        if not end.limited:
            continue
        unit = "rack travel" if end.input == "rack" else "stroke"
        at = values[end.input] + end.value_from
        digits = INPUT_LIMIT_DIGITS
        lines.append(
            f"{end.input} is {end.distance:.{digits}f} mm of {unit} from a dead point at "
            f"{at:+.{digits}f} mm ({', '.join(end.bodies) or 'its links'} move fastest "
            "there): the pose changes fast near it and the linkage's other assembly is close"
        )
    return lines
