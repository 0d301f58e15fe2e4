"""Closing a pose with the block engine, the solver's first try (`solve.engine`).

`solve_by_engine` closes a pose with every input held; with targets,
`solve_targets_in_kernel` borders the blocks inside the compiled kernel and
`solve_targets_by_engine` (the reference) runs Newton on the targeted inputs
around the engine. Each returns the closed parameters and the solve record, or
None, and `suspension_sim.solve.solver` then runs trf + Levenberg-Marquardt.
Split from `suspension_sim.solve.solver` (which re-exports these names) so the
solver's own path reads on its own. Units: mm, rad.
"""

from __future__ import annotations

import functools
import math
import time
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.solve.diagnostics import pose_singular_ratio
from suspension_sim.solve.pose import SolveInfo
from suspension_sim.solve.problem import blas_controller
from suspension_sim.tolerances import INNER_TARGET_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.targets import CompiledTargets


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
            return q, engine_solve_info(model, q, its, res, tolerance, t0, first, q_guess)
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
    return q_out, engine_solve_info(
        model,
        q_out,
        int(result.iterations[0]),
        float(result.max_residual_mm[0]),
        tolerance,
        t0,
        pred,
        q_guess,
    )


def engine_solve_info(
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
    return q, engine_solve_info(model, q, its, res, tolerance, t0, pred, q_guess)


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
