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
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np
import scipy.sparse as sps

from suspension_sim.errors import InputError, SolveError
from suspension_sim.solve.diagnostics import (
    checked_mobility,
    explain_failure,
    pose_singular_ratio,
    singular_ratio,
)
from suspension_sim.solve.inputs import (
    CHASSIS_LIMITS,
    check_chassis,
    check_input_limits,
    check_tolerance,
    finite_number,
    input_table,
    locked_params,
    parse_shocks,
    set_inputs,
    within_limits,
)
from suspension_sim.solve.pose import ChassisState, Pose, SolveInfo, chassis_transform
from suspension_sim.solve.problem import blas_controller, problem
from suspension_sim.solve.reach import check_reach, within_reach
from suspension_sim.tolerances import (
    DENSE_LIMIT,
    INNER_TARGET_MM,
    LSQ_STOP,
    MAX_INPUT,
    NEAR_SINGULAR_RATIO,
    SOLVE_TIME_LIMIT_S,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.model.mobility import Mobility
    from suspension_sim.solve.targets import CompiledTargets, Target


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


def solve_by_engine(
    model: KinematicModel, q_guess: np.ndarray, u: np.ndarray, tolerance: float
) -> tuple[np.ndarray, SolveInfo] | None:
    """Close the pose with every input held (values u) by the block engine, starting
    from q_guess with a first-order prediction; None when the engine does not close it
    (the caller then runs trf + LM). Blocks whose inputs did not change cost one
    residual evaluation. The near-singular check is left to be computed on demand."""
    from suspension_sim.solve import engine

    t0 = time.perf_counter()
    pl = engine.plan(model)
    if not len(pl.unknowns) or not np.isfinite(q_guess).all():
        return None
    target = min(tolerance, INNER_TARGET_MM)
    if engine.kernel_compiled():
        q = np.array(q_guess, dtype=float)
        q[pl.inputs] = u
        st, its, res, q, first = engine.session(model).solve_one(
            q, q_guess, engine.no_targets(model), target
        )
        if st == engine.OK:
            return q, _engine_info(model, q, its, res, tolerance, t0, first, q_guess)
    U = np.asarray(u, dtype=float)[None, :]
    if engine.kernel_compiled():  # the sequence kernel: a second factorisation on a branch
        result = engine.solve_compiled(model, U, q_guess, target, fresh=True)
    else:  # small systems: BLAS threads only cost, and make results timing-dependent
        with blas_controller().limit(limits=1, user_api="blas"):
            result = engine.solve_numpy(model, U, q_guess, target)
    if result.status[0] != engine.OK:
        return None
    q_out = result.params[0]
    pred = None if result.predicted is None else result.predicted[0]
    return q_out, _engine_info(
        model,
        q_out,
        int(result.iterations[0]),
        float(result.max_residual_mm[0]),
        tolerance,
        t0,
        pred,
        q_guess,
    )


def _engine_info(
    model: KinematicModel,
    q: np.ndarray,
    its: int,
    residual: float,
    tolerance: float,
    t0: float,
    prediction: np.ndarray | None,
    q_guess: np.ndarray,
) -> SolveInfo:
    """The solve record of a pose the engine closed (near-singular check on demand).

    Fields by position, in `SolveInfo`'s order (half the cost of naming them, once per
    solve): converged, method, iterations, nfev, njev, max_residual_mm, tolerance_mm,
    seconds, ratio, ratio_flag, message, ratio_of, prediction, predicted_from."""
    return SolveInfo(
        True,
        "engine",
        its,
        its + 1,
        its,
        residual,
        tolerance,
        time.perf_counter() - t0,
        math.nan,
        False,
        "",
        functools.partial(pose_singular_ratio, model, q.copy()),
        prediction,
        q_guess,
    )


def solve_targets_in_kernel(
    model: KinematicModel,
    q_guess: np.ndarray,
    q0: np.ndarray,
    targets: CompiledTargets,
    tolerance: float,
    history: np.ndarray | None = None,
) -> tuple[np.ndarray, SolveInfo] | None:
    """Close a pose whose targets replace some inputs inside the compiled kernel (one
    call): each block that carries targets is bordered with their rows and its freed
    inputs' columns and closed by Newton's method on the bordered block
    (`kernel.solve_bordered`). None when the kernel is not loaded, a target is not a
    function of one block whose freed inputs act on it alone (`engine.target_tables`),
    or the kernel does not close the pose or finds it far from its first-order
    prediction: the caller then takes `solve_targets_by_engine`, the reference.
    The freed inputs start where the guess has them. history: the guess pose's own
    first-order prediction and the parameters it came from, (2, n_params), when it has
    them: the first step then adds that step's second-order error, scaled
    (`kernel.secant`), which saves an iteration or two per block in a sweep; the
    prediction the solve reports stays the first-order one. Units: mm, rad."""
    from suspension_sim.solve import engine

    if not engine.kernel_compiled():
        return None
    t0 = time.perf_counter()
    if not np.isfinite(q_guess).all():
        return None
    tt = engine.target_tables(model, targets)
    if tt is None:
        return None
    q = q0.copy()
    q[tt.freed] = q_guess[tt.freed]
    target = min(tolerance, INNER_TARGET_MM)
    st, its, res, q, pred = engine.session(model).solve_one(q, q_guess, tt, target, history=history)
    if st != engine.OK:
        return None
    return q, _engine_info(model, q, its, res, tolerance, t0, pred, q_guess)


OUTER_ITERATIONS = 12
"""Newton steps on the targeted inputs before a target solve goes to trf + LM."""


def solve_targets_by_engine(
    model: KinematicModel,
    q_guess: np.ndarray,
    q0: np.ndarray,
    locked: np.ndarray,
    targets: CompiledTargets,
    tolerance: float,
) -> tuple[np.ndarray, SolveInfo] | None:
    """Close a pose whose targets replace some inputs, with the compiled block engine;
    None (the caller runs trf + LM) when the kernel is not loaded or anything fails.

    Newton on the targeted inputs u_F alone: each step closes the joints for the
    current inputs with the engine (every block independent), evaluates the
    targets g and, by the implicit function theorem, their total derivative
    dg/du_F = g_q dq/du_F + g_u (the tangents from each block's Jacobian at the
    closed state), and solves the small square system for the step. The first
    step from the guess is the first-order prediction that continuation's branch
    screen compares with. Units: mm, rad.
    """
    from suspension_sim.solve import engine

    if not engine.kernel_compiled():
        return None
    t0 = time.perf_counter()
    k = engine.kernel_module()
    assert k is not None
    pl = engine.plan(model)
    inputs = pl.inputs
    freed = np.flatnonzero(~np.isin(inputs, locked))
    if len(freed) != len(targets.targets) or not len(pl.unknowns):
        return None
    if not np.all(np.isfinite(q_guess)):
        return None
    sess = engine.session(model)
    tab = sess.tables
    insts = np.unique(np.concatenate([targets.i, targets.j])).astype(np.int64)
    parts = np.unique(model.inst_part[insts]).astype(np.int64)
    P = np.zeros((tab.n_inst, 3))
    dP = np.zeros((tab.n_inst, tab.k_max, 3))
    P_some = np.zeros((len(insts), 3))
    dP_some = np.zeros((len(insts), tab.k_max, 3))
    tangents = np.zeros((model.n_params, len(freed)))
    target = min(tolerance, INNER_TARGET_MM)
    u = q0[inputs].copy()
    u[freed] = q_guess[inputs[freed]]  # the targeted inputs start where the guess has them
    start = q_guess
    prediction = None
    its = 0
    for it in range(OUTER_ITERATIONS):
        res = engine.solve_compiled(model, u[None, :], start, target, fresh=it == 0)
        if res.status[0] != engine.OK:
            return None
        q = res.params[0]
        its += int(res.iterations[0]) + 1
        k.points_and_slopes(q, tab.arrays, sess.W, parts, insts, P_some, dP_some)
        P[insts], dP[insts] = P_some, dP_some
        r, gi, gj = targets.values_and_gradients(P)
        err = float(np.max(np.abs(r), initial=0.0))
        if err <= target:
            break
        if not np.isfinite(err) or not k.block_tangents(
            q, freed.astype(np.int64), tab.arrays, sess.W, sess.S, tangents
        ):
            return None
        tangents[inputs[freed], np.arange(len(freed))] = 1.0
        G = targets.total_derivative(gi, gj, dP, tangents)
        try:
            du = np.linalg.solve(G, -r)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(du)):
            return None
        if it == 0:
            prediction = q + tangents @ du
        u[freed] += du
        start = q
    else:
        return None
    info = SolveInfo(
        converged=True,
        method="engine",
        iterations=its,
        nfev=its + 1,
        njev=its,
        max_residual_mm=max(float(res.max_residual_mm[0]), err),
        tolerance_mm=tolerance,
        seconds=time.perf_counter() - t0,
        ratio=float("nan"),
        ratio_flag=False,
        ratio_of=functools.partial(pose_singular_ratio, model, q.copy()),
        prediction=prediction if prediction is not None else q.copy(),
        predicted_from=q_guess,
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


@dataclasses.dataclass(frozen=True)
class CheckedStates:
    """Many states' inputs read as `solve` reads them, and which of the states pass every
    check `solve` makes of its inputs (`check_states`). A row where `ok` is False may
    hold anything: solve that state with `solve`, which names what is wrong.

    strokes: (S, n_dampers) mm in Damping order (0 where a state sets none); rack: (S,)
    mm; chassis: (S, 6) mm, deg; held: (S, n_dampers) True where no target frees the
    damper's stroke; rack_held: (S,) True where no target frees the rack.
    """

    names: tuple[str, ...]
    ok: np.ndarray
    strokes: np.ndarray
    rack: np.ndarray
    chassis: np.ndarray
    held: np.ndarray
    rack_held: np.ndarray

    @functools.cached_property
    def _floats(self) -> tuple[list[list[float]], list[float], list[list[float]]]:
        """strokes, rack and chassis as Python floats (the states' own values)."""
        return self.strokes.tolist(), self.rack.tolist(), self.chassis.tolist()

    def inputs(self, i: int) -> tuple[dict[str, float], float, ChassisState]:
        """State i's strokes {damper body: mm}, rack (mm) and chassis state (mm, deg) as
        `solve` reads them (a fresh dict: `solve_checked` keeps it in the pose)."""
        strokes, rack, chassis = self._floats
        x, y, z, roll, pitch, yaw = chassis[i]
        return dict(zip(self.names, strokes[i], strict=True)), rack[i], (x, y, z, roll, pitch, yaw)


class StateInputs(Protocol):
    """What `check_states` reads of a state (`solve.state.State`, which imports this
    module, so it is named by its shape here)."""

    @property
    def shocks(self) -> Mapping[str, float]: ...
    @property
    def rack(self) -> float: ...
    @property
    def chassis(self) -> tuple[float, float, float, float, float, float]: ...
    @property
    def targets(self) -> Mapping[str, Target]: ...


def check_states(model: KinematicModel, states: Sequence[StateInputs]) -> CheckedStates:
    """The checks `solve` makes of each state's inputs (`parse_shocks`, `finite_number`,
    no rack on a car without one, `check_chassis`, `check_input_limits`, `check_reach`),
    for all the states at once: `CheckedStates.ok` says which pass them all (the same
    comparisons, vectorised, without messages). A sweep solves those by `solve_checked`
    and hands the others to `solve`, whose error then names the culprit."""
    table = input_table(model)
    n, nd = len(states), len(table.names)
    strokes = np.zeros((n, nd))
    ok = np.ones(n, dtype=bool)
    # States grouped by the strokes they name and by the inputs their targets free.
    by_keys: dict[tuple[str, ...], list[int]] = {}
    by_freed: dict[tuple[str, ...], list[int]] = {}
    for i, st in enumerate(states):
        by_keys.setdefault(tuple(st.shocks), []).append(i)
        by_freed.setdefault(tuple(st.targets), []).append(i)
    for keys, rows in by_keys.items():
        if not keys:
            continue
        found = [table.lookup.get(str(k).lower()) for k in keys]
        cols = [table.names.index(c) for c in found if c is not None]
        if len(set(cols)) != len(keys):  # an unknown damper, or one given twice
            ok[rows] = False
            continue
        values = [list(states[i].shocks.values()) for i in rows]
        strokes[np.ix_(rows, cols)] = np.array(values, dtype=float).reshape(len(rows), len(cols))
    held = np.ones((n, nd), dtype=bool)
    rack_held = np.ones(n, dtype=bool)
    for tkeys, rows in by_freed.items():
        if tkeys:
            freed = {str(k).lower() for k in tkeys}
            held[rows] = [d not in freed for d in table.lowered]
            rack_held[rows] = "rack" not in freed
    rack = np.array([st.rack for st in states], dtype=float).reshape(n)
    chassis = np.array([st.chassis for st in states], dtype=float).reshape(n, 6)
    ok &= (np.abs(strokes) <= MAX_INPUT).all(axis=1)  # NaN fails too
    ok &= np.abs(rack) <= MAX_INPUT
    if table.rack_param is None:
        ok &= rack == 0.0
    ok &= (np.abs(chassis) <= np.minimum(CHASSIS_LIMITS, MAX_INPUT)).all(axis=1)
    ok &= within_limits(model, strokes, rack)
    ok &= within_reach(model, np.where(held, strokes, 0.0), np.where(rack_held, rack, 0.0))
    return CheckedStates(table.names, ok, strokes, rack, chassis, held, rack_held)


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
