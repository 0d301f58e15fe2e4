"""The numpy reference of the batch engine: block Newton with a dogleg trust region.

Each block of the plan (`engine_plan`) is closed by Gauss-Newton steps inside
Powell's dogleg trust region with the analytic Jacobian, in the style of MINPACK's
hybrj, until every residual is at or below the target
(`tolerances.INNER_TARGET_MM`), vectorised over states. Residuals and Jacobians come
from the model's own batch evaluation (`KinematicModel.evaluate_state` on
(n_params, N) parameter arrays, with the shipped sympy templates); the Gauss-Newton
step is a batched LU (`np.linalg.solve` on (N, n_b, n_b) stacks; QR for tall blocks
from redundant joints). States go in chunks; each chunk starts from the last solved
state plus a first-order prediction.

This is the tested reference: the compiled kernel (`engine_session`,
`solve.kernel`) must agree with it to 1e-9 mm. Units: mm, rad.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.solve.engine_codes import TRUST_START
from suspension_sim.solve.engine_plan import MAX_ITERATIONS, Block, EngineResult, plan
from suspension_sim.tolerances import (
    STATIONARY_GAIN,
    STATIONARY_STEP,
    TRUST_ACCEPT_RATIO,
    TRUST_MIN_RADIUS,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

NUMPY_CHUNK = 256
"""States per vectorised chunk in the numpy path (bounds its memory)."""


def _dense(data: np.ndarray, block: Block, m: int, n: int) -> np.ndarray:
    """Block Jacobian (S, m, n) from layout values data (nnz, S)."""
    J = np.zeros((data.shape[1], m, n))
    J[:, block.entry_row, block.entry_col] = data[block.entries].T
    return J


def _gauss_newton(J: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Steps -J^+ r for stacks J (S, m, n), r (S, m) and a per-state 'usable' flag.

    Square blocks: batched LU (`np.linalg.solve`); tall blocks: batched QR.
    """
    S, m, n = J.shape
    ok = np.ones(S, dtype=bool)
    if m == n:
        A, rhs = J, r
    else:
        Qm, A = np.linalg.qr(J)
        rhs = np.einsum("smn,sm->sn", Qm, r)
    try:
        p = -np.linalg.solve(A, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:  # some exactly singular: solve one at a time
        p = np.zeros((S, n))
        for s in range(S):
            try:
                p[s] = -np.linalg.solve(A[s], rhs[s])
            except np.linalg.LinAlgError:
                ok[s] = False
    ok &= np.all(np.isfinite(p), axis=1)
    p[~ok] = 0.0
    return p, ok


def _dogleg(
    J: np.ndarray, r: np.ndarray, D: np.ndarray, delta: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Powell's dogleg step in the D-scaled norm, for stacks of states.

    Returns the step (S, n), its predicted reduction |r|^2 - |r + J p|^2, its
    scaled length, the usable flag and the scaled length of the Gauss-Newton step.
    """
    p, ok = _gauss_newton(J, r)
    pn = np.linalg.norm(D * p, axis=1)
    gn = pn.copy()
    out = p.copy()
    far = pn > delta
    if np.any(far):
        Jf, rf, Df, dl = J[far], r[far], D[far], delta[far]
        g = np.einsum("smn,sm->sn", Jf, rf)
        gs = g / Df
        gsn = np.linalg.norm(gs, axis=1)
        d = -g / Df**2
        jd2 = np.einsum("smn,sn->sm", Jf, d)
        jd2 = np.einsum("sm,sm->s", jd2, jd2)
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.where(jd2 > 0, gsn**2 / jd2, 0.0)
            cauchy_out = (alpha * gsn >= dl) | (jd2 == 0)
            steep = (dl / np.where(gsn > 0, gsn, 1.0))[:, None] * d
        pc = alpha[:, None] * d
        diff = Df * (p[far] - pc)
        aa = np.einsum("sn,sn->s", diff, diff)
        bb = 2.0 * np.einsum("sn,sn->s", Df * pc, diff)
        cc = np.einsum("sn,sn->s", Df * pc, Df * pc) - dl**2
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (-bb + np.sqrt(np.maximum(bb * bb - 4 * aa * cc, 0.0))) / (2 * aa)
        mixed = pc + np.nan_to_num(t)[:, None] * (p[far] - pc)
        out[far] = np.where(cauchy_out[:, None], steep, mixed)
        pn = np.linalg.norm(D * out, axis=1)
    Jp = np.einsum("smn,sn->sm", J, out)
    pred = -np.einsum("sm,sm->s", 2 * r + Jp, Jp)
    return out, pred, pn, ok, gn


def newton_numpy(
    model: KinematicModel, Q: np.ndarray, target: float, max_iter: int = MAX_ITERATIONS
) -> EngineResult:
    """Close every block of the states Q (n_params, S) (the numpy reference).

    Q holds the inputs and the starting guess; it is not modified.
    """
    t0 = time.perf_counter()
    pl = plan(model)
    Q = np.array(Q, dtype=float)
    S = Q.shape[1]
    r, data, _, _ = model.evaluate_state(Q, pl.layout)
    loose = np.max(np.abs(r[pl.loose_rows]), axis=0, initial=0.0)
    status = np.where(np.isfinite(loose) & (loose <= target), 0, 1)
    iters = np.zeros(S, dtype=int)
    worst = np.nan_to_num(loose, nan=np.inf)
    # Per block: residuals, Jacobian, scale, trust radius, state of each state.
    rb, Jb, Db, delta, done, fail, its = [], [], [], [], [], [], []
    for blk in pl.blocks:
        m, n = len(blk.rows), len(blk.params)
        rb.append(r[blk.rows].T.copy())
        Jb.append(_dense(data, blk, m, n))
        norms = np.linalg.norm(Jb[-1], axis=1)
        Db.append(np.where(norms > 0, norms, 1.0))
        delta.append(
            TRUST_START * np.maximum(1.0, np.linalg.norm(Db[-1] * Q[blk.params].T, axis=1))
        )
        res = np.max(np.abs(rb[-1]), axis=1, initial=0.0)
        done.append(res <= target)
        fail.append(np.where(np.isfinite(res), 0, 3))
        its.append(np.zeros(S, dtype=int))
    for _ in range(max_iter):
        active = [np.flatnonzero(~done[b] & (fail[b] == 0)) for b in range(len(pl.blocks))]
        if not any(len(a) for a in active):
            break
        trial = Q.copy()
        steps: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None] = []
        for b, blk in enumerate(pl.blocks):
            idx = active[b]
            if not len(idx):
                steps.append(None)
                continue
            p, pred, pn, ok, gn = _dogleg(Jb[b][idx], rb[b][idx], Db[b][idx], delta[b][idx])
            fail[b][idx[~ok]] = 2
            xn = np.linalg.norm(Db[b][idx] * Q[blk.params][:, idx].T, axis=1)
            f2 = np.einsum("sm,sm->s", rb[b][idx], rb[b][idx])
            still = ok & ((gn <= STATIONARY_STEP * (1.0 + xn)) | (pred <= STATIONARY_GAIN * f2))
            fail[b][idx[still]] = 4
            ok &= ~still
            p[~ok] = 0.0
            trial[np.ix_(blk.params, idx)] += p.T
            steps.append((idx, ok, pred, pn))
        ev = np.unique(np.concatenate(active))
        pos = np.full(S, -1)
        pos[ev] = np.arange(len(ev))
        rt, dt, _, _ = model.evaluate_state(trial[:, ev], pl.layout)
        for b, blk in enumerate(pl.blocks):
            step = steps[b]
            if step is None:
                continue
            idx, ok, pred, pn = step
            idx, pred, pn = idx[ok], pred[ok], pn[ok]
            cols = pos[idx]
            r_new = rt[np.ix_(blk.rows, cols)].T
            new = np.max(np.abs(r_new), axis=1, initial=0.0)
            f2 = np.einsum("sm,sm->s", rb[b][idx], rb[b][idx])
            ft2 = np.einsum("sm,sm->s", r_new, r_new)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(pred > 0, (f2 - ft2) / pred, -1.0)
            accept = np.isfinite(new) & ((new <= target) | (ratio >= TRUST_ACCEPT_RATIO))
            dl = delta[b][idx]
            dl = np.where(
                ratio < 0.25, 0.25 * pn, np.where(ratio > 0.75, np.maximum(dl, 2 * pn), dl)
            )
            delta[b][idx] = dl
            its[b][idx] += 1
            acc = idx[accept]
            Q[np.ix_(blk.params, acc)] = trial[np.ix_(blk.params, acc)]
            rb[b][acc] = r_new[accept]
            J_new = _dense(dt[:, cols[accept]], blk, len(blk.rows), len(blk.params))
            Jb[b][acc] = J_new
            Db[b][acc] = np.maximum(Db[b][acc], np.linalg.norm(J_new, axis=1))
            done[b][acc] = new[accept] <= target
            xn = np.linalg.norm(Db[b][idx] * Q[blk.params][:, idx].T, axis=1)
            stuck = ~done[b][idx] & (dl <= TRUST_MIN_RADIUS * (1.0 + xn))
            fail[b][idx[stuck]] = 1
    for b in range(len(pl.blocks)):
        res = np.max(np.abs(rb[b]), axis=1, initial=0.0)
        worst = np.maximum(worst, np.nan_to_num(res, nan=np.inf))
        iters = np.maximum(iters, its[b])
        code = np.where(done[b], 0, np.where(fail[b] > 0, fail[b], 1))
        status = np.where((status == 0) | ((status == 4) & (code != 0)), code, status)
    return EngineResult(Q.T.copy(), status, iters, worst, time.perf_counter() - t0)


def predict_numpy(model: KinematicModel, q_base: np.ndarray, U: np.ndarray) -> np.ndarray:
    """Starting guesses (n_params, S) for inputs U (S, n_in): q_base plus a first-order
    step of every block, -J_u^+ J_in (u - u_base), with the Jacobian at q_base."""
    pl = plan(model)
    Q = np.repeat(np.asarray(q_base, dtype=float)[:, None], len(U), axis=1)
    dU = (U - q_base[pl.inputs]).T  # (n_in, S)
    Q[pl.inputs] = U.T
    _, data, _, _ = model.evaluate_state(q_base[:, None], pl.layout)
    values = data[:, 0]
    for blk in pl.blocks:
        m, n = len(blk.rows), len(blk.params)
        Ju = np.zeros((m, n))
        Ju[blk.entry_row, blk.entry_col] = values[blk.entries]
        Jin = np.zeros((m, len(pl.inputs)))
        Jin[blk.in_row, blk.in_col] = values[blk.in_entries]
        if not np.any(Jin):
            continue
        dx, *_ = np.linalg.lstsq(Ju, -(Jin @ dU), rcond=None)
        if np.all(np.isfinite(dx)):
            Q[blk.params] += dx
    return Q


def solve_numpy(
    model: KinematicModel,
    U: np.ndarray,
    q0: np.ndarray,
    target: float,
    chunk: int = NUMPY_CHUNK,
    max_iter: int = MAX_ITERATIONS,
) -> EngineResult:
    """Solve the states with inputs U (N, n_in) from the start q0, chunk by chunk (numpy).

    Each chunk starts from the last state of the previous chunk that closed
    (q0 for the first), plus a first-order prediction to each state.
    """
    t0 = time.perf_counter()
    N = len(U)
    out_q = np.zeros((N, model.n_params))
    status = np.zeros(N, dtype=int)
    iters = np.zeros(N, dtype=int)
    worst = np.zeros(N)
    predicted = np.zeros((N, model.n_params))
    base = np.asarray(q0, dtype=float).copy()
    for start in range(0, N, chunk):
        sl = slice(start, min(start + chunk, N))
        start_q = predict_numpy(model, base, U[sl])
        predicted[sl] = start_q.T
        res = newton_numpy(model, start_q, target, max_iter)
        out_q[sl], status[sl], iters[sl], worst[sl] = (
            res.params,
            res.status,
            res.iterations,
            res.max_residual_mm,
        )
        good = np.flatnonzero(res.status == 0)
        if len(good):
            base = res.params[good[-1]].copy()
    return EngineResult(out_q, status, iters, worst, time.perf_counter() - t0, predicted)
