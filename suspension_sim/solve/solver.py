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
chassis roll, pitch and yaw (docs/conventions.md).

The engine's paths are `suspension_sim.solve.by_engine` and the checks of many
states at once `suspension_sim.solve.checked_states`; their public names are
re-exported here.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from suspension_sim.errors import InputError, SolveError
from suspension_sim.solve.by_engine import (
    OUTER_ITERATIONS,
    solve_by_engine,
    solve_targets_by_engine,
    solve_targets_in_kernel,
)
from suspension_sim.solve.checked_states import CheckedStates, StateInputs, check_states
from suspension_sim.solve.diagnostics import checked_mobility, explain_failure, singular_ratio
from suspension_sim.solve.inputs import (
    check_chassis,
    check_input_limits,
    check_tolerance,
    finite_number,
    input_table,
    locked_params,
    parse_shocks,
    set_inputs,
)
from suspension_sim.solve.pose import ChassisState, Pose, SolveInfo, chassis_transform
from suspension_sim.solve.problem import blas_controller, problem
from suspension_sim.solve.reach import check_reach
from suspension_sim.tolerances import (
    DENSE_LIMIT,
    INNER_TARGET_MM,
    LSQ_STOP,
    NEAR_SINGULAR_RATIO,
    SOLVE_TIME_LIMIT_S,
)

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sps

    from suspension_sim.model import KinematicModel
    from suspension_sim.model.mobility import Mobility
    from suspension_sim.solve.targets import CompiledTargets, Target

__all__ = [
    "LM_MAX_NFEV",
    "OUTER_ITERATIONS",
    "TRF_MAX_NFEV",
    "CheckedStates",
    "Pose",
    "SolveInfo",
    "SolveTimeoutError",
    "StateInputs",
    "blas_controller",
    "check_states",
    "solve",
    "solve_by_engine",
    "solve_checked",
    "solve_params",
    "solve_targets_by_engine",
    "solve_targets_in_kernel",
]


TRF_MAX_NFEV = 100
"""Residual evaluations of the trust-region stage: a reachable pose closes in ~10."""


LM_MAX_NFEV = 400
"""Residual evaluations of the Levenberg-Marquardt fallback: it either closes a hard pose
in a few dozen or is chasing an unreachable one (whose best effort is then returned)."""


class SolveTimeoutError(Exception):
    """Raised inside a solve's residual function past `SOLVE_TIME_LIMIT_S`."""


@dataclasses.dataclass
class _Best:
    """The unknowns with the smallest largest residual (mm) seen so far in a solve."""

    x: np.ndarray
    err: float


def solve_params(
    model: KinematicModel,
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
    with blas_controller().limit(limits=1, user_api="blas"):
        return _solve_params(model, q_start, locked, tolerance, targets)


def _solve_params(
    model: KinematicModel,
    q_start: np.ndarray,
    locked: np.ndarray,
    tolerance: float,
    targets: CompiledTargets | None,
) -> tuple[np.ndarray, SolveInfo]:
    t0 = time.perf_counter()
    prob = problem(model, locked)
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
    deadline = t0 + SOLVE_TIME_LIMIT_S
    best = _Best(q[prob.unknowns].copy(), np.inf)

    import scipy.sparse as sps

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray | sps.csr_matrix]:
        if last.get("x") is not None and np.array_equal(last["x"], x):  # type: ignore[arg-type]
            return last["r"], last["J"]  # type: ignore[return-value]
        if time.perf_counter() > deadline:
            raise SolveTimeoutError
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
        err = float(np.max(np.abs(r), initial=0.0))
        if err < best.err:
            best.x, best.err = x.copy(), err
        return r, J

    def fun(x: np.ndarray) -> np.ndarray:
        return evaluate(x)[0]

    def jac(x: np.ndarray) -> np.ndarray | sps.csr_matrix:
        return evaluate(x)[1]

    def jac_dense(x: np.ndarray) -> np.ndarray:
        J = jac(x)
        return J if isinstance(J, np.ndarray) else J.toarray()

    from scipy.optimize import least_squares  # ~0.6 s to import: only when trf runs

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
    timed_out = False
    if np.max(np.abs(r0), initial=0.0) <= target:  # already closed (e.g. the design state)
        x, nfev, njev, method, err = x0, 1, 0, "trf", float(np.max(np.abs(r0), initial=0.0))
    else:
        try:
            res = least_squares(
                fun,
                x0,
                jac=jac,
                method="trf",
                tr_solver="exact" if dense else "lsmr",
                ftol=LSQ_STOP,
                xtol=LSQ_STOP,
                gtol=LSQ_STOP,
                max_nfev=TRF_MAX_NFEV,
                callback=stop_when_closed,
            )
            x, nfev, njev, method = res.x, res.nfev, res.njev or 0, "trf"
            err = float(np.max(np.abs(res.fun)))
        except SolveTimeoutError:
            x, err, timed_out = best.x, best.err, True
            nfev, njev, method = 0, 0, "trf"
    if err > tolerance and not timed_out:
        try:
            res2 = least_squares(
                fun,
                x,
                jac=jac_dense,
                method="lm",
                ftol=LSQ_STOP,
                xtol=LSQ_STOP,
                gtol=LSQ_STOP,
                max_nfev=LM_MAX_NFEV,
            )
            x2, err2 = res2.x, float(np.max(np.abs(res2.fun)))
            nfev += res2.nfev
            njev += res2.njev or 0
        except SolveTimeoutError:
            x2, err2, timed_out = best.x, best.err, True
        method = "trf+lm"
        if err2 < err:
            x, err = x2, err2
    q[prob.unknowns] = x
    ratio = singular_ratio(jac_dense(x), None if targets is not None else prob.blocks)
    info = SolveInfo(
        converged=err <= tolerance,
        method=method,
        iterations=njev,
        nfev=nfev,
        njev=njev,
        max_residual_mm=err,
        tolerance_mm=tolerance,
        seconds=time.perf_counter() - t0,
        ratio=ratio,
        ratio_flag=ratio < NEAR_SINGULAR_RATIO,
        message=f"stopped after {SOLVE_TIME_LIMIT_S:g} s" if timed_out else "",
    )
    return q, info


def _chassis_T(model: KinematicModel, ch: tuple[float, ...]) -> np.ndarray:
    """`chassis_transform` with its rotation part kept from the last call with the same
    angles (sweeps move the chassis along x, y, z at fixed angles, or not at all): the
    translation x, y, z only adds to the transform's last column (mm, deg)."""
    memo: dict[str, tuple[tuple[float, ...], np.ndarray]] = model.derived.get(
        "solver_chassis_rotation", dict
    )
    roll, pitch, yaw = ch[3:]
    last = memo.get("value")
    if last is None or last[0] != (roll, pitch, yaw):
        last = ((roll, pitch, yaw), chassis_transform(model, (0.0, 0.0, 0.0, roll, pitch, yaw)))
        memo["value"] = last
    T = last[1].copy()
    T[:3, 3] += ch[:3]
    return T


def solve(
    model: KinematicModel,
    shocks: Sequence[float] | Mapping[str, float] | None = None,
    rack: float = 0.0,
    chassis: Sequence[float] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    guess: Pose | np.ndarray | None = None,
    tolerance: float | None = None,
    on_failure: Literal["raise", "return"] = "raise",
    targets: Mapping[str, Target] | None = None,
    method: Literal["auto", "trf"] = "auto",
) -> Pose:
    """Solve the pose for the given inputs (mm; chassis roll/pitch/yaw in degrees).

    shocks: one stroke per damper in Damping order, or {damper body: stroke};
    positive in compression. rack: mm, positive toward +Y. chassis: x, y, z,
    roll, pitch, yaw relative to design. guess: a previous pose (or parameter
    vector) to warm-start from; the design condition otherwise. targets:
    {input name: Target} replaces those inputs (damper bodies or "rack") by
    targets (see `suspension_sim.solve.targets`); the targeted inputs start where the
    guess has them (trf: at their given values). method: "auto" closes the pose with
    the block engine (`solve.engine`: compiled when the kernel is loaded in this
    process, numpy otherwise; targets inside the kernel, else Newton on the targeted
    inputs, and trf + LM without the kernel) and hands anything it cannot close to
    trf + Levenberg-Marquardt; "trf" goes straight to trf + LM (redundant joints
    always do).
    """
    if method not in ("auto", "trf"):
        raise InputError(f"unknown method {method!r}", where="method", hint="auto or trf")
    mob = checked_mobility(model)
    strokes = parse_shocks(model, shocks)
    rack_mm = finite_number(rack, "rack")
    if model.topology.rack_param is None and rack_mm != 0.0:
        raise InputError(
            "this workbook has no steering rack",
            where="rack",
            hint="leave the rack at 0 or add a Steering section",
        )
    ch = check_chassis(chassis)
    tol = model.car.options.solver_tolerance_mm if tolerance is None else check_tolerance(tolerance)
    check_input_limits(model, strokes, rack_mm)
    freed = {str(name).lower() for name in targets or ()}
    check_reach(
        model,
        {k: v for k, v in strokes.items() if k.lower() not in freed} if freed else strokes,
        0.0 if "rack" in freed else rack_mm,
    )

    if guess is None:
        q_guess = np.zeros(model.n_params)
    elif isinstance(guess, Pose):
        q_guess = guess.params.copy()
    else:
        q_guess = np.asarray(guess, dtype=float).copy()
        if q_guess.shape != (model.n_params,):
            raise InputError(
                f"guess has shape {q_guess.shape}, expected ({model.n_params},)", where="guess"
            )
    return _solve_inputs(
        model,
        mob,
        strokes,
        rack_mm,
        ch,
        tol,
        q_guess,
        guess if isinstance(guess, Pose) else None,
        targets,
        method,
        on_failure,
    )


def solve_checked(
    model: KinematicModel,
    strokes: dict[str, float],
    rack: float,
    chassis: ChassisState,
    guess: Pose,
    targets: Mapping[str, Target] | None = None,
) -> Pose:
    """`solve` (method "auto", the workbook's tolerance, ``on_failure="return"``) of
    inputs the caller has already checked as `solve` checks them: strokes {damper body:
    mm} for every damper (as `inputs.parse_shocks` gives them; the dict becomes the
    pose's), rack (mm), chassis (mm, deg) as floats. For many states checked at once
    (a sweep, `check_states`): the same pose, without the per-state checks."""
    return _solve_inputs(
        model,
        checked_mobility(model),
        strokes,
        rack,
        chassis,
        model.car.options.solver_tolerance_mm,
        guess.params.copy(),
        guess,
        targets,
        "auto",
        "return",
    )


def _solve_inputs(
    model: KinematicModel,
    mob: Mobility,
    strokes: dict[str, float],
    rack_mm: float,
    ch: ChassisState,
    tol: float,
    q_guess: np.ndarray,
    guess: Pose | None,
    targets: Mapping[str, Target] | None,
    method: Literal["auto", "trf"],
    on_failure: Literal["raise", "return"],
) -> Pose:
    """`solve` once its inputs are checked: q_guess is the start (a copy the solve may
    keep), guess the Pose it came from (if any, for its first-order history)."""
    q0 = q_guess.copy()
    set_inputs(model, q0, strokes, rack_mm)
    names = tuple(targets or ())
    locked = model.derived.get(("locked_params", names), lambda: locked_params(model, names))
    compiled = None
    if targets:
        from suspension_sim.solve.targets import CompiledTargets

        compiled = CompiledTargets(model, targets, _chassis_T(model, ch))
    found = None
    if method == "auto" and not mob.redundant:
        if compiled is None:
            found = solve_by_engine(model, q_guess, q0[input_table(model).inputs], tol)
        else:
            history = None
            if guess is not None:
                before, source = guess.info.prediction, guess.info.predicted_from
                if before is not None and source is not None:
                    history = np.empty((2, len(before)))
                    history[0] = before
                    history[1] = source
            found = solve_targets_in_kernel(model, q_guess, q0, compiled, tol, history)
            if found is None:
                found = solve_targets_by_engine(model, q_guess, q0, locked, compiled, tol)
    q, info = found if found is not None else solve_params(model, q0, locked, tol, compiled)
    if targets:
        table = input_table(model)
        strokes.update(zip(table.names, q[table.damper_params].tolist(), strict=True))
        if table.rack_param is not None:
            rack_mm = float(q[table.rack_param])
    if info.converged and info.max_residual_mm > INNER_TARGET_MM and mob.redundant:
        info = dataclasses.replace(
            info,
            message=f"redundant joints ({', '.join(mob.redundant_points)}) bind by "
            f"{info.max_residual_mm:.2g} mm here: a least-squares compromise within tolerance",
        )
    pose = Pose(model, q, strokes, rack_mm, ch, info)
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
    return pose
