"""Solve a full-car pose: close every joint for given strokes, rack and chassis state.

Unknowns are the joint parameters that are not inputs. scipy's trust-region
reflective method runs first with the analytic sparse Jacobian (its sparsity
pattern is the body graph); if it stops short of the tolerance,
Levenberg-Marquardt takes over from the best point found. The result says
which method closed the pose, the iterations, the function evaluations and
the largest residual, and flags near-singular (toggle) configurations.

A pose that does not close is never returned silently: by default a
`SolveError` names the inputs, their values and the joints left open; with
``on_failure="return"`` the best-effort pose comes back with
``converged=False`` (for the 3-D view's red points).

Units at this API: mm for strokes, rack and chassis x/y/z; degrees for
chassis roll, pitch and yaw (CONVENTIONS.md).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
import scipy.sparse as sps
from scipy.optimize import least_squares
from scipy.sparse.csgraph import connected_components
from threadpoolctl import ThreadpoolController

from suspension_sim.errors import InputError, ModelError, SolveError
from suspension_sim.model.screws import rotation_xyz, transform

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model.model import JacobianLayout, Model
    from suspension_sim.targets import CompiledTargets, Target

ChassisState = tuple[float, float, float, float, float, float]
DENSE_LIMIT = 400
"""Unknowns up to which the trust-region subproblem is solved densely (exact)."""
INNER_TARGET_MM = 1e-10
"""The solver iterates until every residual is below this (or the tolerance, if smaller)."""
NEAR_SINGULAR_RATIO = 1e-7
"""Smallest/largest singular value (columns normalised) below which a pose is a toggle."""


@dataclass(frozen=True)
class SolveInfo:
    """How a solve went. Residuals in mm."""

    converged: bool
    method: str  # "trf", "trf+lm" or "none" (nothing to solve)
    iterations: int
    nfev: int
    njev: int
    max_residual_mm: float
    tolerance_mm: float
    seconds: float
    singular_ratio: float  # min/max singular value of the column-scaled Jacobian
    near_singular: bool
    message: str = ""

    def summary(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        text = (
            f"{state} with {self.method}: {self.iterations} iterations, {self.nfev} residual "
            f"evaluations, largest residual {self.max_residual_mm:.3g} mm "
            f"(tolerance {self.tolerance_mm:g} mm), {self.seconds * 1e3:.2f} ms"
        )
        if self.near_singular:
            text += f"; near-singular (ratio {self.singular_ratio:.2g})"
        if self.message:
            text += f"; {self.message}"
        return text


@dataclass
class Pose:
    """A solved (or best-effort) pose of the car, in the world frame (mm).

    `params` is the full joint parameter vector (pass the pose as ``guess=``
    to warm-start the next solve).
    """

    model: Model = field(repr=False)
    params: np.ndarray = field(repr=False)
    shocks: dict[str, float]
    rack: float
    chassis: ChassisState
    info: SolveInfo
    failure: str | None = None
    targets: dict[str, Target] = field(default_factory=dict)

    @property
    def converged(self) -> bool:
        return self.info.converged

    @cached_property
    def chassis_transform(self) -> np.ndarray:
        """4x4 world transform of the chassis (CONVENTIONS.md: about the reference point)."""
        return chassis_transform(self.model, self.chassis)

    @cached_property
    def copies(self) -> pd.DataFrame:
        """Every copy of every point (point, body) -> x, y, z in the world frame."""
        P, _ = self.model.instance_positions(self.params[:, None], derivatives=False)
        world = _apply(self.chassis_transform, P[:, :, 0])
        index = pd.MultiIndex.from_arrays(
            [self.model.inst_point, self.model.inst_body], names=["point", "body"]
        )
        return pd.DataFrame(world, index=index, columns=["x", "y", "z"])

    @cached_property
    def points(self) -> pd.DataFrame:
        """Point name -> x, y, z (mm, world frame); joined points at the mean of their copies."""
        df = self.copies.groupby(level="point", sort=False).mean()
        df.index.name = "point"
        return df

    @cached_property
    def residuals(self) -> pd.Series:
        """Joined point -> largest distance between its copies (mm)."""
        m = self.model
        r = m.residuals(self.params[:, None])[:, 0].reshape(-1, 3)
        gap = pd.Series(np.linalg.norm(r, axis=1), index=list(m.pair_point))
        out = gap.groupby(level=0, sort=False).max()
        out.index.name = "point"
        out.name = "residual_mm"
        return out

    @cached_property
    def body_frames(self) -> dict[str, np.ndarray]:
        """Body -> 4x4 world transform that carries its design points to this pose.

        A damper has two entries: ``NAME`` (cylinder) and ``NAME.rod``.
        """
        G, _ = self.model.part_transforms(self.params[:, None], derivatives=False)
        out: dict[str, np.ndarray] = {}
        for i, part in enumerate(self.model.parts):
            T = np.eye(4)
            T[:3, :] = G[i, :, :, 0]
            name = part.body + (".rod" if part.chain == "damper_rod" else "")
            out[name] = self.chassis_transform @ T
        return out


def chassis_transform(model: Model, chassis: ChassisState) -> np.ndarray:
    """World transform of the chassis: R about the reference point, then x, y, z (mm, deg)."""
    x, y, z, roll, pitch, yaw = (float(v) for v in chassis)
    ref_name = model.car.options.chassis_reference_point
    ref = model.car.point(ref_name) if ref_name else np.zeros(3)
    R = rotation_xyz(np.radians(roll), np.radians(pitch), np.radians(yaw))
    return transform(R, ref + np.array([x, y, z]) - R @ ref)


def _apply(T: np.ndarray, P: np.ndarray) -> np.ndarray:
    return P @ T[:3, :3].T + T[:3, 3]


# -- inputs ---------------------------------------------------------------------
def _parse_shocks(
    model: Model, shocks: Sequence[float] | Mapping[str, float] | None
) -> dict[str, float]:
    names = model.damper_names
    values = dict.fromkeys(names, 0.0)
    if shocks is None:
        return values
    if isinstance(shocks, Mapping):
        lookup = {n.lower(): n for n in names}
        seen: set[str] = set()
        for key, v in shocks.items():
            name = lookup.get(str(key).lower())
            if name in seen:
                raise InputError(f"damper {name} is given twice", where="shocks")
            seen.add(str(name))
            if name is None:
                raise InputError(
                    f"unknown damper {key!r}",
                    where="shocks",
                    hint=f"dampers in this workbook: {', '.join(names) or '(none)'}",
                )
            values[name] = _finite(v, f"shocks[{key}]")
        return values
    seq = list(shocks)
    if len(seq) != len(names):
        raise InputError(
            f"{len(seq)} stroke value(s) given, but the workbook has {len(names)} damper(s)",
            where="shocks",
            hint=f"give one stroke (mm) per damper in Damping order: {', '.join(names)}",
        )
    for n, v in zip(names, seq, strict=True):
        values[n] = _finite(v, f"shocks ({n})")
    return values


def _finite(value: object, where: str) -> float:
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{value!r} is not a number", where=where) from None
    if not np.isfinite(v):
        raise InputError(f"{value!r} is not a finite number", where=where)
    return v


def _check_damper_limits(model: Model, strokes: dict[str, float]) -> None:
    for d in model.car.dampers:
        design = float(
            np.linalg.norm(model.car.point(d.moving_point) - model.car.point(d.chassis_point))
        )
        length = design - strokes[d.body]
        if d.min_length is not None and length < d.min_length - 1e-9:
            raise InputError(
                f"stroke {strokes[d.body]:g} mm makes damper {d.body} {length:.2f} mm long, "
                f"below its minimum length {d.min_length:g} mm (design {design:.2f} mm)",
                where=f"shocks ({d.body})",
                hint=f"use a stroke of at most {design - d.min_length:.2f} mm",
            )
        if d.max_length is not None and length > d.max_length + 1e-9:
            raise InputError(
                f"stroke {strokes[d.body]:g} mm makes damper {d.body} {length:.2f} mm long, "
                f"above its maximum length {d.max_length:g} mm (design {design:.2f} mm)",
                where=f"shocks ({d.body})",
                hint=f"use a stroke of at least {design - d.max_length:.2f} mm",
            )


# -- solving --------------------------------------------------------------------
@dataclass(frozen=True)
class _Problem:
    """The unknowns of one lock set and the blocks they split into."""

    unknowns: np.ndarray
    layout: JacobianLayout
    blocks: tuple[tuple[np.ndarray, np.ndarray], ...]  # (rows, cols) per connected block


def _problem(model: Model, locked: np.ndarray) -> _Problem:
    cache: dict[bytes, _Problem] = model.__dict__.setdefault("_problems", {})
    key = np.asarray(locked, dtype=int).tobytes()
    if key in cache:
        return cache[key]
    mask = np.ones(model.n_params, dtype=bool)
    mask[locked] = False
    unknowns = np.flatnonzero(mask)
    lay = model.layout(unknowns)
    n = len(unknowns)
    rows = np.repeat(np.arange(lay.shape[0]), np.diff(lay.indptr))
    S = sps.csr_matrix((np.ones(len(rows)), (rows, lay.indices)), shape=lay.shape)
    ncomp, labels = connected_components((S.T @ S).tocsr(), directed=False) if n else (0, [])
    blocks = []
    for c in range(ncomp):
        cols = np.flatnonzero(labels == c)
        rws = np.unique(rows[np.isin(lay.indices, cols)])
        blocks.append((rws, cols))
    prob = _Problem(unknowns, lay, tuple(blocks))
    cache[key] = prob
    return prob


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def solve_params(
    model: Model,
    q_start: np.ndarray,
    locked: np.ndarray,
    tolerance: float,
    targets: CompiledTargets | None = None,
) -> tuple[np.ndarray, SolveInfo]:
    """Move the unlocked parameters of q_start until every joint closes.

    `targets` add residual rows (one per input left unlocked). Returns the full
    parameter vector and the solve record. Never raises for a non-converged
    result: the caller decides (see `solve`).

    BLAS runs single-threaded here: for ~100x100 systems threads only add
    overhead, and on a busy 2-core machine they made a warm solve 10x slower.
    """
    with _blas().limit(limits=1, user_api="blas"):
        return _solve_params(model, q_start, locked, tolerance, targets)


def _solve_params(
    model: Model,
    q_start: np.ndarray,
    locked: np.ndarray,
    tolerance: float,
    targets: CompiledTargets | None,
) -> tuple[np.ndarray, SolveInfo]:
    t0 = time.perf_counter()
    prob = _problem(model, locked)
    lay = prob.layout
    q = np.array(q_start, dtype=float)
    if len(prob.unknowns) == 0:
        r = model.residuals(q[:, None])[:, 0]
        err = float(np.max(np.abs(r), initial=0.0))
        info = SolveInfo(
            err <= tolerance, "none", 0, 1, 0, err, tolerance, time.perf_counter() - t0, 1.0, False
        )
        return q, info

    # The Jacobian's sparsity pattern comes from the body graph (the layout).
    # Small systems (a full car has ~80 unknowns) solve fastest with the exact
    # trust-region subproblem on the dense matrix, filled straight from that
    # pattern; large ones keep it sparse and use LSMR.
    dense = lay.shape[1] <= DENSE_LIMIT
    last: dict[str, object] = {}

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray | sps.csr_matrix]:
        if last.get("x") is not None and np.array_equal(last["x"], x):  # type: ignore[arg-type]
            return last["r"], last["J"]  # type: ignore[return-value]
        q[prob.unknowns] = x
        r, data, P, dP = model.evaluate_state(q[:, None], lay)
        r = r[:, 0]
        J: np.ndarray | sps.csr_matrix
        if dense:
            J = np.zeros(lay.shape)
            J[lay.rows, lay.indices] = data[:, 0]
        else:
            J = sps.csr_matrix((data[:, 0], lay.indices, lay.indptr), shape=lay.shape)
        if targets is not None:
            rt, Jt = targets.evaluate(P[:, :, 0], dP[:, :, :, 0], prob.unknowns)
            r = np.concatenate([r, rt])
            J = np.vstack([J, Jt]) if dense else sps.vstack([J, sps.csr_matrix(Jt)], format="csr")
        last.update(x=x.copy(), r=r, J=J)
        return r, J

    def fun(x: np.ndarray) -> np.ndarray:
        return evaluate(x)[0]

    def jac(x: np.ndarray) -> np.ndarray | sps.csr_matrix:
        return evaluate(x)[1]

    def jac_dense(x: np.ndarray) -> np.ndarray:
        J = jac(x)
        return J if isinstance(J, np.ndarray) else J.toarray()

    x0 = q[prob.unknowns].copy()
    target = min(tolerance, INNER_TARGET_MM)

    def stop_when_closed(intermediate_result: object) -> None:
        if np.max(np.abs(intermediate_result.fun)) <= target:  # type: ignore[attr-defined]
            raise StopIteration

    r0 = fun(x0)
    if not np.all(np.isfinite(r0)):
        raise SolveError(
            "the joint residuals are not finite at the starting pose",
            where=model.car.source_path or model.car.name,
            hint="a point is at an impossible place (check Hard Points), or the guess is NaN",
        )
    if np.max(np.abs(r0), initial=0.0) <= target:  # already closed (e.g. the design state)
        x, nfev, njev, method, err = x0, 1, 0, "trf", float(np.max(np.abs(r0), initial=0.0))
    else:
        res = least_squares(
            fun,
            x0,
            jac=jac,
            method="trf",
            tr_solver="exact" if dense else "lsmr",
            ftol=1e-15,
            xtol=1e-15,
            gtol=1e-15,
            max_nfev=100,
            callback=stop_when_closed,
        )
        x, nfev, njev, method = res.x, res.nfev, res.njev or 0, "trf"
        err = float(np.max(np.abs(res.fun)))
    if err > tolerance:
        res2 = least_squares(
            fun,
            x,
            jac=jac_dense,
            method="lm",
            ftol=1e-15,
            xtol=1e-15,
            gtol=1e-15,
            max_nfev=2000,
        )
        err2 = float(np.max(np.abs(res2.fun)))
        nfev += res2.nfev
        njev += res2.njev or 0
        method = "trf+lm"
        if err2 < err:
            x, err = res2.x, err2
    q[prob.unknowns] = x
    ratio = _singular_ratio(jac_dense(x), None if targets is not None else prob.blocks)
    info = SolveInfo(
        converged=err <= tolerance,
        method=method,
        iterations=njev,
        nfev=nfev,
        njev=njev,
        max_residual_mm=err,
        tolerance_mm=tolerance,
        seconds=time.perf_counter() - t0,
        singular_ratio=ratio,
        near_singular=ratio < NEAR_SINGULAR_RATIO,
    )
    return q, info


def _singular_ratio(J: np.ndarray, blocks: Sequence[tuple[np.ndarray, np.ndarray]] | None) -> float:
    """Smallest min/max singular value over J's independent blocks (columns unit norm).

    `blocks` (rows, columns) come from the body graph; None derives them from J.
    """
    if blocks is None:
        pattern = (J != 0).astype(float)
        ncomp, labels = connected_components(sps.csr_matrix(pattern.T @ pattern), directed=False)
        found = []
        for c in range(ncomp):
            cols = np.flatnonzero(labels == c)
            found.append((np.flatnonzero(pattern[:, cols].sum(axis=1) > 0), cols))
        blocks = found
    worst = 1.0
    for rows, cols in blocks:
        A = J[np.ix_(rows, cols)]
        norms = np.linalg.norm(A, axis=0)
        norms[norms == 0] = 1.0
        s = np.linalg.svd(A / norms, compute_uv=False) if A.size else np.zeros(0)
        if len(s) < len(cols) or not s.size or s[0] <= 0:
            return 0.0
        worst = min(worst, float(s[-1] / s[0]))
    return worst


def solve(
    model: Model,
    shocks: Sequence[float] | Mapping[str, float] | None = None,
    rack: float = 0.0,
    chassis: Sequence[float] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    guess: Pose | np.ndarray | None = None,
    tolerance: float | None = None,
    on_failure: Literal["raise", "return"] = "raise",
    targets: Mapping[str, Target] | None = None,
) -> Pose:
    """Solve the pose for the given inputs (mm; chassis roll/pitch/yaw in degrees).

    shocks: one stroke per damper in Damping order, or {damper body: stroke};
    positive in compression. rack: mm, positive toward +Y. chassis: x, y, z,
    roll, pitch, yaw relative to design. guess: a previous pose (or parameter
    vector) to warm-start from; the design condition otherwise. targets:
    {input name: Target} replaces those inputs (damper bodies or "rack") by
    targets (see `suspension_sim.targets`); their given values are then only
    the starting guess.
    """
    mob = model.mobility()
    if not mob.ok:
        raise ModelError(
            "the mechanism is under-constrained, so a pose would not be unique:\n  "
            + "\n  ".join(mob.lines()),
            where=model.car.source_path or model.car.name,
            hint="run 'suspension-sim check' on the workbook and fix the bodies it names",
        )
    strokes = _parse_shocks(model, shocks)
    rack_mm = _finite(rack, "rack")
    if model.topology.rack_param is None and rack_mm != 0.0:
        raise InputError(
            "this workbook has no steering rack",
            where="rack",
            hint="leave the rack at 0 or add a Steering section",
        )
    names = ("x", "y", "z", "roll", "pitch", "yaw")
    ch = tuple(_finite(v, f"chassis ({names[i] if i < 6 else i})") for i, v in enumerate(chassis))
    if len(ch) != 6:
        raise InputError(
            f"{len(ch)} chassis values given",
            where="chassis",
            hint="give x y z (mm) roll pitch yaw (deg)",
        )
    _check_damper_limits(model, strokes)
    tol = float(tolerance if tolerance is not None else model.car.options.solver_tolerance_mm)

    if guess is None:
        q0 = np.zeros(model.n_params)
    elif isinstance(guess, Pose):
        q0 = guess.params.copy()
    else:
        q0 = np.asarray(guess, dtype=float).copy()
        if q0.shape != (model.n_params,):
            raise InputError(
                f"guess has shape {q0.shape}, expected ({model.n_params},)", where="guess"
            )
    locked = model.input_params()
    q0[list(model.topology.damper_params)] = [strokes[n] for n in model.damper_names]
    if model.topology.rack_param is not None:
        q0[model.topology.rack_param] = rack_mm
    compiled = None
    if targets:
        from suspension_sim.targets import CompiledTargets

        freed = [_input_param(model, name) for name in targets]
        locked = np.setdiff1d(locked, freed)
        compiled = CompiledTargets(model, targets, chassis_transform(model, ch))
    q, info = solve_params(model, q0, locked, tol, compiled)
    if targets:
        for name, value in zip(
            model.damper_names, q[list(model.topology.damper_params)], strict=True
        ):
            strokes[name] = float(value)
        if model.topology.rack_param is not None:
            rack_mm = float(q[model.topology.rack_param])
    if info.converged and info.max_residual_mm > INNER_TARGET_MM and mob.redundant:
        info = dataclasses.replace(
            info,
            message=f"redundant joints ({', '.join(mob.redundant_points)}) bind by "
            f"{info.max_residual_mm:.2g} mm here: a least-squares compromise within tolerance",
        )
    pose = Pose(model, q, strokes, rack_mm, ch, info)  # type: ignore[arg-type]
    pose.targets = dict(targets or {})
    if not info.converged:
        pose.failure = explain_failure(pose)
        if on_failure == "raise":
            err = SolveError(
                pose.failure,
                where="solve",
                hint="check the inputs against the travel the geometry allows",
            )
            err.pose = pose  # type: ignore[attr-defined]
            raise err
    elif info.near_singular:
        pose.failure = None
    return pose


def _input_param(model: Model, name: str) -> int:
    """Parameter index of an input named by damper body or 'rack'."""
    if name.lower() == "rack" and model.topology.rack_param is not None:
        return model.topology.rack_param
    for d, p in zip(model.damper_names, model.topology.damper_params, strict=True):
        if d.lower() == name.lower():
            return p
    valid = [*model.damper_names, *(["rack"] if model.topology.rack_param is not None else [])]
    raise InputError(
        f"{name!r} is not an input that a target can replace",
        where="targets",
        hint=f"inputs: {', '.join(valid)}",
    )


def explain_failure(pose: Pose) -> str:
    """Say which joints stayed open, by how much, and which inputs drive them."""
    m = pose.model
    gaps = pose.residuals
    open_pts = gaps[gaps > pose.info.tolerance_mm].sort_values(ascending=False)
    lines = [f"the joints did not close (largest gap {gaps.max():.4g} mm):"]
    for point, gap in open_pts.head(5).items():
        bodies = sorted(
            {
                b
                for p, pair in zip(m.pair_point, m.pair_bodies, strict=True)
                if p == point
                for b in pair
            }
        )
        lines.append(f"  joint {point} between {' and '.join(bodies)} left open by {gap:.4g} mm")
    involved = _inputs_near(pose, set(open_pts.index))
    if involved:
        lines.append("  inputs driving them: " + ", ".join(involved))
    return "\n".join(lines)


def _inputs_near(pose: Pose, points: set[str]) -> list[str]:
    """Inputs in the same closed loop as the given joints, formatted 'name = value'."""
    m = pose.model
    locked = m.input_params()
    prob = _problem(m, locked)
    bodies_open = {
        b for p, pair in zip(m.pair_point, m.pair_bodies, strict=True) if p in points for b in pair
    }
    cols_open = {
        int(c) for c, p in enumerate(prob.unknowns) if m.topology.param_body[p] in bodies_open
    }
    comp_bodies: set[str] = set()
    for _rows, cols in prob.blocks:
        if cols_open & {int(c) for c in cols}:
            comp_bodies |= {m.topology.param_body[prob.unknowns[c]] for c in cols}
    # An input belongs to a loop when its body shares a joined point with the loop.
    out = []
    for d in m.car.dampers:
        if d.body in comp_bodies:
            out.append(f"shock {d.body} = {pose.shocks[d.body]:g} mm")
    rack = m.car.rack
    if rack is not None:
        neighbours = {
            b
            for p, pair in zip(m.pair_point, m.pair_bodies, strict=True)
            if rack.body in pair
            for b in pair
        }
        if neighbours & comp_bodies:
            out.append(f"rack = {pose.rack:g} mm")
    return out
