"""Optimisation toward targets: move hardpoints (design variables) until metrics meet a spec.

`optimise(model, spec)` minimises the least squares of the objectives' normalised
violations (and distances to their targets) subject to the constraints, within the
variables' ranges, with scipy's SLSQP. Every evaluation builds the candidate car
(`design_space.apply_offsets`), checks its mobility and runs each motion the spec names
(`run_sweep`, continuation from design): a candidate with a step that cannot be solved is
infeasible, with the solver's reason.

Gradients (each term's source is in `TermOutcome.gradient`):

- the metrics `explore.sensitivity.pose_derivatives` differentiates (camber, toe, caster,
  KPI, scrub, trail, track, motion ratio, camber gain, bump steer, roll-centre height, ...):
  ``analytic (IFT)``, exact, by the implicit function theorem at every solved pose the term
  visits (each step of a motion; a relative band subtracts the reference step's
  derivative; a gain weights the steps' derivatives by the least-squares slope's weights);
- link lengths and packaging boxes: ``closed form``;
- everything else (metrics the sensitivities do not cover, e.g. the swing-arm lengths or
  the steering-wheel gains): ``finite differences``, forward, of re-solved designs, step
  `FD_STEP_MM`.

``gradients="auto"`` (the default) takes, per problem, whichever of the analytic path and
finite differences costs less per gradient (one timed design evaluation x variables
against one timed `pose_derivatives` call x poses visited): with the compiled kernels a
re-solved 13-step motion costs less than the Dual-number pass over its 13 poses, so many
variables over long motions go to finite differences; ``analytic`` and ``finite`` force one.

``starts > 1`` adds starts from a scrambled Sobol sample of the variable box (seeded):
the best feasible end wins. Units: offsets in mm; metric values in their columns' units.

One module for now (~950 lines): the problem set-up, the evaluation with its gradients and
the SLSQP driver share the term bookkeeping; the report tables would split out first.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import InputError, SuspensionSimError
from suspension_sim.explore.design_space import AXES, Variable, apply_offsets, check_variables
from suspension_sim.explore.targets_spec import OptimiseSpec, Term, motion_key
from suspension_sim.names import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.description import Car
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose
    from suspension_sim.solve.state import State
    from suspension_sim.sweeps.spec import SweepSpec

FD_STEP_MM = 1e-3
"""Forward-difference step (mm): far above the solver's closure (~1e-9 mm), far below
the curvature of any metric in a hardpoint."""
MET_TOLERANCE = 1e-6
"""A band counts as met when its normalised violation is at most this."""
BIND_TOLERANCE = 1e-4
"""A constraint binds when its normalised slack is at most this; a variable when it is
within this many mm of its range's end."""
FAILED_OBJECTIVE = 1e6
"""Objective value returned for a candidate that cannot be solved (the line search then
steps back)."""
MAX_ITERATIONS = 100
GRADIENT_MODES = ("auto", "analytic", "finite")
CACHE_SIZE = 256
"""Evaluations kept (each holds its motions' tables and poses)."""
STALL = 1e-3
STALL_ITERATIONS = 2
"""A run stops early once every target is met and the objective has improved by less
than `STALL` (relative) in each of the last `STALL_ITERATIONS` iterations: the remaining
pull toward exact target values is then not worth more re-solves."""

ANALYTIC = "analytic (IFT)"
CLOSED = "closed form"
FINITE = "finite differences"


class UnsolvedError(Exception):
    """A candidate design that cannot be built or whose motion has an unsolved step."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Evaluation:
    """One candidate's term values: per term, an array of quantities (one per step for a
    band over a motion, three for a box, else one); `series` the raw metric over each
    motion (for charts); `reason` when the candidate could not be solved."""

    values: list[np.ndarray]
    series: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    reason: str = ""
    model: KinematicModel | None = None
    runs: dict[tuple[Any, ...], MotionRun] = field(default_factory=dict)
    design_pose: Pose | None = None


@dataclass
class MotionRun:
    """One motion solved for a candidate: its table, swept values (first column), and the
    solved poses and their states (kept when analytic gradients need them)."""

    table: pd.DataFrame
    swept: np.ndarray
    poses: list[Pose]
    states: list[State]


@dataclass(frozen=True)
class TermOutcome:
    """A term before and after: the quantities' min and max, whether it is met, whether it
    binds (constraints at the optimum) and where its gradient came from."""

    term: Term
    before: np.ndarray
    after: np.ndarray
    met_before: bool
    met_after: bool
    binds: bool
    gradient: str


@dataclass(frozen=True)
class StartOutcome:
    """One SLSQP run: where it started and ended, the objective, feasible or not."""

    start: np.ndarray
    end: np.ndarray
    objective: float
    violation: float
    iterations: int
    message: str


@dataclass
class OptimiseResult:
    """What `optimise` found.

    offsets: the best design's offsets (mm, one per variable); car: that design.
    outcomes: every term before and after; objective_before/after: the least-squares
    value; feasible: every constraint holds and every motion is reachable at the end;
    met: also every objective's band (and target tolerance) holds. series: per term over
    a motion, (swept values, before, after) for the charts.
    """

    spec: OptimiseSpec
    offsets: np.ndarray
    car: Car
    outcomes: list[TermOutcome]
    objective_before: float
    objective_after: float
    feasible: bool
    met: bool
    at_bound: list[str]
    starts: list[StartOutcome]
    evaluations: int
    gradient_evaluations: int
    seconds: float
    series: dict[int, tuple[str, np.ndarray, np.ndarray, np.ndarray]]
    reason: str = ""

    @property
    def variables(self) -> tuple[Variable, ...]:
        return self.spec.variables

    def variables_table(self) -> pd.DataFrame:
        """Every variable: point, axis, range, offset before (0) and after (mm), coordinate
        before and after (mm), at a range end."""
        import pandas as pd

        base = {p.name: p.xyz for p in self._base_points}
        rows = []
        for v, d in zip(self.variables, self.offsets, strict=True):
            k = AXES.index(v.axis)
            c0 = float(base[v.point][k])
            rows.append(
                {
                    "variable": v.name,
                    "twin": v.twin or "",
                    "low_mm": v.low,
                    "high_mm": v.high,
                    "offset_before_mm": 0.0,
                    "offset_after_mm": float(d),
                    "coordinate_before_mm": c0,
                    "coordinate_after_mm": c0 + float(d),
                    "at_range_end": v.name in self.at_bound,
                }
            )
        return pd.DataFrame(rows)

    def terms_table(self) -> pd.DataFrame:
        """Every objective and constraint: its requirement, min/max of its values before
        and after (a box: of the point's x, y, z, also listed), met before/after, binds,
        gradient source, the spec line."""
        import pandas as pd

        rows = []
        for o in self.outcomes:
            rows.append(
                {
                    "role": o.term.role,
                    "term": o.term.label,
                    "requirement": o.term.requirement,
                    "before_min": float(np.min(o.before)) if o.before.size else math.nan,
                    "before_max": float(np.max(o.before)) if o.before.size else math.nan,
                    "after_min": float(np.min(o.after)) if o.after.size else math.nan,
                    "after_max": float(np.max(o.after)) if o.after.size else math.nan,
                    "box_after_xyz_mm": " ".join(f"{v:.9g}" for v in o.after)
                    if o.term.kind == "box"
                    else "",
                    "met_before": o.met_before,
                    "met_after": o.met_after,
                    "binds": o.binds,
                    "gradient": o.gradient,
                    "where": o.term.where,
                }
            )
        return pd.DataFrame(rows)

    _base_points: tuple[Any, ...] = ()


# -- evaluating a candidate ------------------------------------------------------------------
class Problem:
    """The spec on one car: builds candidates, evaluates terms, caches by offsets."""

    def __init__(
        self,
        car: Car,
        spec: OptimiseSpec,
        specs: dict[tuple[Any, ...], SweepSpec],
        supported: frozenset[str],
        geometry: frozenset[str] = frozenset(),
    ) -> None:
        self.car = car
        self.spec = spec
        self.specs = specs
        self.supported = supported
        self.geometry = geometry
        self.variables = spec.variables
        self.n = len(spec.variables)
        self.cache: dict[bytes, Evaluation] = {}
        self.evaluations = 0
        self.gradient_evaluations = 0
        self.base_xyz = car.point_map()
        self.sources = [self._source(t, analytic=True) for t in spec.terms]

    def _source(self, t: Term, *, analytic: bool) -> str:
        if t.kind in ("link", "box"):
            return CLOSED
        if analytic and t.metric in self.supported:
            return ANALYTIC
        return FINITE

    def use(self, analytic: bool) -> None:
        """Differentiate the supported metrics analytically (else by finite differences)."""
        self.sources = [self._source(t, analytic=analytic) for t in self.spec.terms]

    def poses_needed(self, ev: Evaluation) -> int:
        """Solved poses the analytic gradient visits (one `pose_derivatives` call each)."""
        seen: set[tuple[Any, int]] = set()
        for t, src in zip(self.spec.terms, self.sources, strict=True):
            if src != ANALYTIC:
                continue
            if t.over is None and t.at is None:
                seen.add((None, 0))
                continue
            key = _motion_of(t)
            n = len(ev.runs[key].swept)
            seen.update((key, k) for k in (range(n) if t.over is not None else [n - 1]))
            if t.relative:
                ref = _reference(t, ev.runs)
                seen.add((None, 0) if ref is None else (key, ref))
        return len(seen)

    # the model of a candidate
    def model(self, x: np.ndarray) -> KinematicModel:
        from suspension_sim.model import KinematicModel
        from suspension_sim.solve.diagnostics import checked_mobility

        try:
            model = KinematicModel(apply_offsets(self.car, self.variables, x.tolist()))
            checked_mobility(model)
        except SuspensionSimError as exc:
            raise UnsolvedError(f"the design cannot be built: {exc.render()}") from None
        return model

    def evaluate(self, x: np.ndarray, *, only_finite: bool = False) -> Evaluation:
        """Every term's quantities at offsets `x` (cached). `only_finite`: skip the terms
        whose gradient is not by finite differences (their values are then empty)."""
        key = np.asarray(x, dtype=float).tobytes() + bytes([only_finite])
        if key in self.cache:
            return self.cache[key]
        self.evaluations += 1
        try:
            ev = self._evaluate(np.asarray(x, dtype=float), only_finite)
        except UnsolvedError as exc:
            ev = Evaluation([], reason=exc.reason)
        self.cache[key] = ev
        while len(self.cache) > CACHE_SIZE:  # oldest first: SLSQP revisits only recent points
            del self.cache[next(iter(self.cache))]
        return ev

    def _evaluate(self, x: np.ndarray, only_finite: bool) -> Evaluation:
        from suspension_sim.metrics import pose_metrics
        from suspension_sim.solve.solver import solve
        from suspension_sim.sweeps import run_sweep

        terms = self.spec.terms
        wanted = [not only_finite or s == FINITE for s in self.sources]
        metric_terms = [t for t, w in zip(terms, wanted, strict=True) if w and t.kind == "metric"]
        model = self.model(x) if metric_terms else None
        keep = not only_finite and ANALYTIC in self.sources
        convention = self.spec.convention
        runs: dict[tuple[Any, ...], MotionRun] = {}
        for t in metric_terms:
            for m in (t.over, t.at):
                if m is None or motion_key(m) in runs:
                    continue
                assert model is not None
                spec = self.specs[motion_key(m)]
                try:
                    result = run_sweep(model, spec, convention=convention, keep_poses=keep)
                except SuspensionSimError as exc:
                    raise UnsolvedError(f"{m.name}: {exc.render()}") from None
                if result.problems:
                    p = result.problems[0]
                    raise UnsolvedError(
                        f"{m.name} step {p.step + 1} of {len(result.motion)} is not solved: "
                        f"{p.message}"
                    )
                swept = np.asarray(result.motion.values, dtype=float)
                s = swept.reshape(len(swept), -1)[:, 0]
                states = [result.motion[i].state for i in result.steps]
                runs[motion_key(m)] = MotionRun(result.table, s, list(result.poses), states)
        design: dict[str, float] = {}
        design_pose = None
        if any(_needs_design(t, runs) for t in metric_terms):
            assert model is not None
            try:
                design_pose = solve(model)
                design = pose_metrics(design_pose, convention)
            except SuspensionSimError as exc:
                raise UnsolvedError(f"the design pose cannot be solved: {exc.render()}") from None
        values: list[np.ndarray] = []
        series: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        moved = None
        for i, (t, w) in enumerate(zip(terms, wanted, strict=True)):
            if not w:
                values.append(np.zeros(0))
                continue
            if t.kind == "link":
                moved = moved if moved is not None else self.points(x)
                values.append(
                    np.array([float(np.linalg.norm(moved[t.points[0]] - moved[t.points[1]]))])
                )
                continue
            if t.kind == "box":
                moved = moved if moved is not None else self.points(x)
                values.append(np.asarray(moved[t.points[0]], dtype=float).copy())
                continue
            if t.over is None and t.at is None:
                values.append(np.array([_number(design, t.metric)]))
                continue
            run = runs[_motion_of(t)]
            col = np.asarray(run.table[t.metric], dtype=float)
            series[i] = (run.swept, col)
            if t.gain_per is not None:
                values.append(np.array([_slope(run.swept, col) * t.gain_per]))
                continue
            if t.relative:
                ref = _reference(t, runs)
                col = col - (col[ref] if ref is not None else _number(design, t.metric))
            values.append(col if t.over is not None else col[-1:])
        return Evaluation(values, series, model=model, runs=runs, design_pose=design_pose)

    def points(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Design positions of every point at offsets x (mm)."""
        out = {k: np.asarray(v, dtype=float).copy() for k, v in self.base_xyz.items()}
        for v, d in zip(self.variables, x, strict=True):
            k = AXES.index(v.axis)
            out[v.point][k] += d
            if v.twin is not None:
                out[v.twin][k] += -d if v.axis == "y" else d
        return out

    # gradients
    def jacobian(self, x: np.ndarray, base: Evaluation) -> list[np.ndarray]:
        """d quantities / d offsets per term, (n_quantities, n_variables), from each term's
        source (module docstring)."""
        self.gradient_evaluations += 1
        jac: list[np.ndarray | None] = [None] * len(self.spec.terms)
        fd = [i for i, s in enumerate(self.sources) if s == FINITE]
        if fd:
            cols = []
            for j in range(self.n):
                xj = np.array(x, dtype=float)
                h = FD_STEP_MM if xj[j] + FD_STEP_MM <= self.variables[j].high else -FD_STEP_MM
                xj[j] += h
                ev = self.evaluate(xj, only_finite=True)
                if ev.reason:  # the step itself is unreachable: one-sided the other way
                    xj[j] -= 2 * h
                    h = -h
                    ev = self.evaluate(xj, only_finite=True)
                    if ev.reason:
                        raise UnsolvedError(ev.reason)
                cols.append([(ev.values[i] - base.values[i]) / h for i in fd])
            for k, i in enumerate(fd):
                jac[i] = np.stack([c[k] for c in cols], axis=1)
        analytic = [i for i, s in enumerate(self.sources) if s == ANALYTIC]
        if analytic:
            for i, rows in self._analytic(base, analytic).items():
                jac[i] = rows
        for i, t in enumerate(self.spec.terms):
            if self.sources[i] == CLOSED:
                jac[i] = self._closed(x, t)
        return [np.asarray(j) for j in jac]

    def directions(self, model: KinematicModel) -> np.ndarray:
        """(n_variables, n_points, 3): each variable's move of the hardpoints per mm."""
        from suspension_sim.explore.sensitivity import hardpoint_names

        index = {n: k for k, n in enumerate(hardpoint_names(model))}
        out = np.zeros((self.n, len(index), 3))
        for j, v in enumerate(self.variables):
            a = AXES.index(v.axis)
            out[j, index[v.point], a] += 1.0
            if v.twin is not None:
                out[j, index[v.twin], a] += -1.0 if v.axis == "y" else 1.0
        return out

    def _analytic(self, ev: Evaluation, terms: list[int]) -> dict[int, np.ndarray]:
        """Rows of d quantity / d offset for metric terms, exact: `pose_derivatives` (the
        implicit function theorem) at each solved pose the term uses, chained through the
        term (a step's value, minus the reference step's, or the slope's weights)."""
        from suspension_sim.explore.sensitivity import pose_derivatives
        from suspension_sim.solve.state import State

        assert ev.model is not None
        model = ev.model
        moves = self.directions(model)
        convention = self.spec.convention
        wanted: dict[tuple[Any, ...] | None, dict[int, set[str]]] = {}
        for i in terms:
            t = self.spec.terms[i]
            if t.over is None and t.at is None:
                wanted.setdefault(None, {}).setdefault(0, set()).add(t.metric)
                continue
            key = _motion_of(t)
            run = ev.runs[key]
            steps = range(len(run.swept)) if t.over is not None else [len(run.swept) - 1]
            for k in steps:
                wanted.setdefault(key, {}).setdefault(k, set()).add(t.metric)
            if t.relative:
                ref = _reference(t, ev.runs)
                if ref is None:
                    wanted.setdefault(None, {}).setdefault(0, set()).add(t.metric)
                else:
                    wanted.setdefault(key, {}).setdefault(ref, set()).add(t.metric)
        grads: dict[tuple[Any, ...] | None, dict[int, dict[str, np.ndarray]]] = {}
        for where, per_step in wanted.items():
            for k, names in per_step.items():
                if where is None:
                    pose, state = ev.design_pose, State()
                else:
                    pose, state = ev.runs[where].poses[k], ev.runs[where].states[k]
                assert pose is not None
                rates = not names <= self.geometry
                got = pose_derivatives(
                    model,
                    pose.params,
                    pose.chassis,
                    state,
                    moves,
                    metrics=sorted(names),
                    convention=convention,
                    rates=rates,
                )
                grads.setdefault(where, {})[k] = {n: g for n, (_, g) in got.items()}
        out: dict[int, np.ndarray] = {}
        for i in terms:
            t = self.spec.terms[i]
            if t.over is None and t.at is None:
                out[i] = grads[None][0][t.metric][None, :]
                continue
            key = _motion_of(t)
            run = ev.runs[key]
            per = grads[key]
            if t.gain_per is not None:
                s = run.swept
                w = (s - s.mean()) / float(np.dot(s - s.mean(), s - s.mean())) * t.gain_per
                out[i] = (w @ np.array([per[k][t.metric] for k in range(len(s))]))[None, :]
                continue
            chosen = list(range(len(run.swept))) if t.over is not None else [len(run.swept) - 1]
            g = np.array([per[k][t.metric] for k in chosen])
            if t.relative:
                ref = _reference(t, ev.runs)
                g = g - (per[ref][t.metric] if ref is not None else grads[None][0][t.metric])
            out[i] = g
        return out

    def _closed(self, x: np.ndarray, t: Term) -> np.ndarray:
        """Link length and box gradients: exact, the variables move design positions."""
        moves = np.zeros((len(t.points), 3, self.n))
        for j, v in enumerate(self.variables):
            k = AXES.index(v.axis)
            for a, p in enumerate(t.points):
                if p == v.point:
                    moves[a, k, j] += 1.0
                if p == v.twin:
                    moves[a, k, j] += -1.0 if v.axis == "y" else 1.0
        if t.kind == "box":
            return moves[0]
        pts = self.points(x)
        d = pts[t.points[0]] - pts[t.points[1]]
        length = float(np.linalg.norm(d))
        u = d / length if length > 0 else np.zeros(3)
        return np.asarray(u @ (moves[0] - moves[1]))[None, :]


def _motion_of(t: Term) -> tuple[Any, ...]:
    m = t.over if t.over is not None else t.at
    assert m is not None
    return motion_key(m)


def _reference(t: Term, runs: dict[tuple[Any, ...], MotionRun]) -> int | None:
    """The step a relative term is measured from: the motion's step at 0 (design) when it
    has one, else None (the design pose). None also for terms that are not relative."""
    if not t.relative or (t.over is None and t.at is None):
        return None
    run = runs.get(_motion_of(t))
    if run is None:
        return None
    zero = np.flatnonzero(np.abs(run.swept) <= 1e-12)
    return int(zero[0]) if len(zero) else None


def _needs_design(t: Term, runs: dict[tuple[Any, ...], MotionRun]) -> bool:
    """The term needs the design pose: a metric at design, or relative to it."""
    if t.over is None and t.at is None:
        return True
    return t.relative and _reference(t, runs) is None


def _number(row: dict[str, float], metric: str) -> float:
    value = row.get(metric)
    if value is None or isinstance(value, str):
        return math.nan
    return float(value)


def _slope(s: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of y against s."""
    sc = s - s.mean()
    return float(np.dot(sc, y - y.mean()) / np.dot(sc, sc))


# -- residuals -------------------------------------------------------------------------------
def _bands(t: Term, n: int) -> tuple[np.ndarray, np.ndarray]:
    lo = np.array([-np.inf if v is None else v for v in t.low], dtype=float)
    hi = np.array([np.inf if v is None else v for v in t.high], dtype=float)
    return np.broadcast_to(lo, (n,)).copy(), np.broadcast_to(hi, (n,)).copy()


def violation(t: Term, q: np.ndarray) -> np.ndarray:
    """Normalised band violation of each quantity (0 inside the band)."""
    lo, hi = _bands(t, len(q))
    return np.maximum(0.0, np.maximum(lo - q, q - hi)) / t.scale


def is_met(t: Term, q: np.ndarray) -> bool:
    """The band holds at every quantity (and a target without a band is within scale)."""
    if q.size == 0 or not np.all(np.isfinite(q)):
        return False
    if np.any(violation(t, q) > MET_TOLERANCE):
        return False
    has_band = t.low[0] is not None or t.high[0] is not None
    if t.target is not None and not has_band:
        return bool(np.all(np.abs(q - t.target) <= t.scale * (1 + MET_TOLERANCE)))
    return True


def objective_residuals(
    terms: Sequence[Term], values: Sequence[np.ndarray], jac: Sequence[np.ndarray] | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Residuals of the objectives (band violations / scale, and (q - target) / scale
    where a target is given) and their Jacobian (rows x variables)."""
    res: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    for i, t in enumerate(terms):
        if t.role != "objective":
            continue
        q = values[i]
        lo, hi = _bands(t, len(q))
        r = np.where(q < lo, (q - lo) / t.scale, np.where(q > hi, (q - hi) / t.scale, 0.0))
        res.append(r)
        if jac is not None:
            active = ((q < lo) | (q > hi))[:, None]
            rows.append(np.where(active, jac[i] / t.scale, 0.0))
        if t.target is not None:
            res.append((q - t.target) / t.scale)
            if jac is not None:
                rows.append(jac[i] / t.scale)
    r_all = np.concatenate(res) if res else np.zeros(0)
    if jac is None:
        return r_all, None
    n = jac[0].shape[1] if len(jac) else 0
    return r_all, (np.concatenate(rows) if rows else np.zeros((0, n)))


def constraint_slacks(
    terms: Sequence[Term], values: Sequence[np.ndarray], jac: Sequence[np.ndarray] | None
) -> tuple[np.ndarray, np.ndarray | None, list[int]]:
    """Normalised slacks (>= 0 when the constraint holds) of every constraint's sides and
    their Jacobian; `owner[k]` is the term index of slack k."""
    out: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    owner: list[int] = []
    for i, t in enumerate(terms):
        if t.role != "constraint":
            continue
        q = values[i]
        lo, hi = _bands(t, len(q))
        has_band = np.isfinite(lo).any() or np.isfinite(hi).any()
        if not has_band and t.target is not None:
            lo, hi = np.full(len(q), t.target - t.scale), np.full(len(q), t.target + t.scale)
        for bound, sign in ((lo, 1.0), (hi, -1.0)):
            keep = np.isfinite(bound)
            if not keep.any():
                continue
            out.append(sign * (q[keep] - bound[keep]) / t.scale)
            owner += [i] * int(keep.sum())
            if jac is not None:
                rows.append(sign * jac[i][keep] / t.scale)
    s = np.concatenate(out) if out else np.zeros(0)
    if jac is None:
        return s, None, owner
    n = jac[0].shape[1] if len(jac) else 0
    return s, (np.concatenate(rows) if rows else np.zeros((0, n))), owner


# -- the optimiser ---------------------------------------------------------------------------
def prepare(
    model: KinematicModel,
    spec: OptimiseSpec,
    workbook: str | None = None,
    gradients: str = "auto",
) -> tuple[Problem, Evaluation]:
    """The problem on this car and its evaluation at design; InputError at the spec's
    file:line for a term that does not fit the car (unknown metric, point, motion).

    gradients: ``analytic`` (the supported metrics by `pose_derivatives`), ``finite``
    (every metric by finite differences) or ``auto``: whichever costs less per gradient on
    this problem, from the time of one design evaluation (x variables) against one
    `pose_derivatives` call (x the poses the terms visit)."""
    if gradients not in GRADIENT_MODES:
        raise InputError(
            f"gradients {gradients!r}", where="gradients", hint=" or ".join(GRADIENT_MODES)
        )
    from suspension_sim.explore.doe import motion_specs

    car = model.car
    check_variables(car, spec.variables)
    names = set(car.point_map())
    for t in spec.terms:
        for p in t.points:
            if p not in names:
                raise InputError(
                    f"{p!r} is not a point of the car." + did_you_mean(p, sorted(names)),
                    where=t.where,
                    hint="name a hard point of the workbook's Points section",
                )
    requests = spec.motions
    built = motion_specs(model, workbook, requests)
    specs = {motion_key(m): s for m, s in zip(requests, built, strict=True)}
    supported, geometry, pd_seconds = differentiated(model, spec.convention, len(spec.variables))
    problem = Problem(car, spec, specs, supported, geometry)
    problem.use(gradients != "finite")
    columns = _columns(model, spec.convention)
    for t in spec.terms:
        if t.kind == "metric" and t.metric not in columns:
            raise InputError(
                f"{t.metric!r} is not a metric column of this car."
                + did_you_mean(t.metric, sorted(columns)),
                where=t.where,
                hint="metric columns are those of a sweep table (docs/metrics.md)",
            )
    t0 = time.process_time()
    base = problem.evaluate(np.zeros(problem.n))
    eval_seconds = time.process_time() - t0
    if gradients == "auto" and not base.reason and ANALYTIC in problem.sources:
        analytic_cost = problem.poses_needed(base) * pd_seconds
        finite_cost = problem.n * eval_seconds
        problem.use(analytic_cost <= finite_cost)
    return problem, base


def differentiated(
    model: KinematicModel, convention: str | None, n_dir: int = 1
) -> tuple[frozenset[str], frozenset[str], float]:
    """The metric columns `pose_derivatives` differentiates on this car: all, and those it
    gives without the rate metrics (cheaper); and the CPU seconds of one call with rates
    and `n_dir` directions (the second call, so one-time set-up is not counted)."""
    from suspension_sim.explore.sensitivity import hardpoint_names, pose_derivatives
    from suspension_sim.solve.solver import solve
    from suspension_sim.solve.state import State

    pose = solve(model)
    moves = np.zeros((max(n_dir, 1), len(hardpoint_names(model)), 3))
    found = []
    seconds = 0.0
    for rates in (False, True, True):
        t0 = time.process_time()
        got = pose_derivatives(
            model, pose.params, pose.chassis, State(), moves, convention=convention, rates=rates
        )
        seconds = time.process_time() - t0
        found.append(frozenset(got))
    return found[1], found[0], seconds


def _columns(model: KinematicModel, convention: str | None) -> set[str]:
    """The metric columns of a sweep table of this car (the design pose's metrics)."""
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.solve.solver import solve

    return set(pose_metrics(solve(model), convention))


def optimise(
    model: KinematicModel,
    spec: OptimiseSpec,
    *,
    starts: int = 1,
    seed: int = 0,
    workbook: str | None = None,
    max_iterations: int = MAX_ITERATIONS,
    gradients: str = "auto",
    progress: Callable[[int, int], None] | None = None,
) -> OptimiseResult:
    """Move the spec's variables to meet its objectives and constraints (module docstring).

    model: a `KinematicModel` (or `suspension_sim.load(...)`'s model: its ``.car`` is
    used). starts: SLSQP runs, the first from the design, the others from a scrambled
    Sobol sample of the variable box (seed). workbook: the car's workbook, so motions may
    name its sweeps. gradients: ``auto``, ``analytic`` or ``finite`` (`prepare`).
    progress(done, starts) after each start.
    """
    from scipy.optimize import minimize

    from suspension_sim.model import KinematicModel
    from suspension_sim.solve import engine

    if not isinstance(model, KinematicModel):
        model = KinematicModel(model.car)
    if starts < 1:
        raise InputError(f"{starts} starts", where="starts", hint="give 1 or more")
    engine.load_kernel_if_cached()
    t0 = time.perf_counter()
    problem, base = prepare(model, spec, workbook, gradients)
    if base.reason:
        raise InputError(
            f"the design itself cannot be evaluated: {base.reason}",
            where=spec.where,
            hint="check the spec's motions on the unmodified car (suspension-sim sweep)",
        )
    terms = spec.terms
    lows = np.array([v.low for v in spec.variables])
    highs = np.array([v.high for v in spec.variables])
    bounds = list(zip(lows, highs, strict=True))
    last_good: dict[str, Any] = {}

    def values_jac(x: np.ndarray) -> tuple[Evaluation, list[np.ndarray] | None]:
        ev = problem.evaluate(x)
        if ev.reason:
            return ev, None
        key = x.tobytes()
        if last_good.get("key") != key:
            try:
                jac = problem.jacobian(x, ev)
            except UnsolvedError:
                return ev, None
            last_good.update(key=key, jac=jac)
        return ev, last_good["jac"]

    def fun(x: np.ndarray) -> float:
        ev = problem.evaluate(x)
        if ev.reason:
            return FAILED_OBJECTIVE
        r, _ = objective_residuals(terms, ev.values, None)
        return float(np.dot(r, r))

    def fun_grad(x: np.ndarray) -> np.ndarray:
        ev, jac = values_jac(x)
        if jac is None:
            return np.zeros(problem.n)
        r, J = objective_residuals(terms, ev.values, jac)
        assert J is not None
        return np.asarray(2.0 * r @ J) if len(r) else np.zeros(problem.n)

    n_slack = len(constraint_slacks(terms, base.values, None)[0])

    def cons(x: np.ndarray) -> np.ndarray:
        ev = problem.evaluate(x)
        if ev.reason:
            return -np.ones(n_slack)
        return constraint_slacks(terms, ev.values, None)[0]

    def cons_jac(x: np.ndarray) -> np.ndarray:
        ev, jac = values_jac(x)
        if jac is None:
            return np.zeros((n_slack, problem.n))
        _, J, _ = constraint_slacks(terms, ev.values, jac)
        assert J is not None
        return J

    constraints = [{"type": "ineq", "fun": cons, "jac": cons_jac}] if n_slack else []
    x0s = [np.clip(np.zeros(problem.n), lows, highs)]
    if starts > 1:
        from scipy.stats import qmc

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            unit = qmc.Sobol(problem.n, scramble=True, seed=seed).random(starts - 1)
        x0s += list(qmc.scale(unit, lows, highs))
    runs: list[StartOutcome] = []

    def all_met(x: np.ndarray) -> bool:
        ev = problem.evaluate(x)
        return not ev.reason and all(is_met(t, v) for t, v in zip(terms, ev.values, strict=True))

    for k, x0 in enumerate(x0s):
        history: list[float] = []

        def stop_when_met(xk: np.ndarray, history: list[float] = history) -> None:
            """Stop once every target is met and the objective has stalled (`STALL`)."""
            history.append(fun(np.asarray(xk, dtype=float)))
            if len(history) > STALL_ITERATIONS and all_met(np.asarray(xk, dtype=float)):
                recent = history[-STALL_ITERATIONS - 1 :]
                if all(a - b <= STALL * a + 1e-15 for a, b in itertools.pairwise(recent)):
                    raise StopIteration

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = minimize(
                fun,
                x0,
                jac=fun_grad,
                bounds=bounds,
                constraints=constraints,
                method="SLSQP",
                callback=stop_when_met,
                options={"maxiter": max_iterations, "ftol": 1e-10},
            )
        end = np.clip(np.asarray(res.x, dtype=float), lows, highs)
        ev = problem.evaluate(end)
        viol = math.inf if ev.reason else _violation(terms, ev.values)
        f_end = FAILED_OBJECTIVE if ev.reason else fun(end)
        runs.append(StartOutcome(np.asarray(x0), end, f_end, viol, int(res.nit), str(res.message)))
        if progress is not None:
            progress(k + 1, len(x0s))
    feasible_runs = [r for r in runs if r.violation <= MET_TOLERANCE]
    pool = feasible_runs or runs
    best = min(pool, key=lambda r: (r.violation if not feasible_runs else 0.0, r.objective))
    x = best.end
    after = problem.evaluate(x)
    f_before = fun(np.zeros(problem.n))
    return _result(problem, spec, base, after, x, f_before, best, runs, time.perf_counter() - t0)


def _violation(terms: Sequence[Term], values: Sequence[np.ndarray]) -> float:
    s, _, _ = constraint_slacks(terms, values, None)
    return float(max(0.0, -float(s.min()))) if len(s) else 0.0


def _result(
    problem: Problem,
    spec: OptimiseSpec,
    base: Evaluation,
    after: Evaluation,
    x: np.ndarray,
    f_before: float,
    best: StartOutcome,
    runs: list[StartOutcome],
    seconds: float,
) -> OptimiseResult:
    terms = spec.terms
    solved = not after.reason
    values = after.values if solved else [np.full_like(v, np.nan) for v in base.values]
    slacks, _, owner = constraint_slacks(terms, values, None) if solved else (np.zeros(0), None, [])
    binding = {owner[k] for k, s in enumerate(slacks) if abs(s) <= BIND_TOLERANCE}
    outcomes = [
        TermOutcome(
            t,
            base.values[i],
            values[i],
            is_met(t, base.values[i]),
            solved and is_met(t, values[i]),
            i in binding,
            problem.sources[i],
        )
        for i, t in enumerate(terms)
    ]
    at_bound = [
        v.name
        for v, d in zip(spec.variables, x, strict=True)
        if d - v.low <= BIND_TOLERANCE or v.high - d <= BIND_TOLERANCE
    ]
    series: dict[int, tuple[str, np.ndarray, np.ndarray, np.ndarray]] = {}
    for i, (s, col) in base.series.items():
        m = terms[i].over or terms[i].at
        assert m is not None
        label = problem.specs[motion_key(m)].name
        got = after.series.get(i, (s, np.full_like(col, np.nan)))[1]
        series[i] = (label, s, col, got)
    feasible = solved and all(o.met_after for o in outcomes if o.term.role == "constraint")
    met = feasible and all(o.met_after for o in outcomes)
    result = OptimiseResult(
        spec,
        x,
        apply_offsets(problem.car, spec.variables, x.tolist()),
        outcomes,
        f_before,
        best.objective,
        feasible,
        met,
        at_bound,
        runs,
        problem.evaluations,
        problem.gradient_evaluations,
        seconds,
        series,
        after.reason,
    )
    result._base_points = tuple(problem.car.points)
    return result
