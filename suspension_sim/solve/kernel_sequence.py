"""Batches: states solved one after another, each from the last that closed.

Per block, a prediction from the previous state (first order through the stored
inverse, with a secant correction, or the extrapolation of the last closed states
for a smooth, evenly sampled log), then `kernel_newton.solve_block`; the branch screen
retries a state whose solution left its prediction and flags it if it does again.
Units: mm, rad.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.solve.engine_codes import (
    BRANCH,
    JUMP_PARAM_FLOOR,
    JUMP_PARAM_RATIO,
    OK,
    STATIONARY,
)
from suspension_sim.solve.kernel_eval import NO_JAC, eval_block_in, link_rows, rebuild_links_in
from suspension_sim.solve.kernel_jit import inner_plain, njit
from suspension_sim.solve.kernel_linalg import copy_into
from suspension_sim.solve.kernel_newton import refactor, solve_block

SECANT_SIMILAR = 0.5
"""The secant correction is used when this step's input-induced residual differs from
the last one's by at most this fraction of it."""


SMOOTH_INPUTS = 0.1
"""Extrapolation of the last closed states (`predict_smooth`) is used when the inputs
depart from their own extrapolation by at most this fraction of their step (smooth,
evenly sampled inputs; a noisy or irregular batch keeps the first-order prediction)."""


SMOOTH_COEF = np.array([5.0, -10.0, 10.0, -5.0, 1.0])
"""Weights of the last states (newest first) in that extrapolation: quartic, exact for
a polynomial of degree 4 in the sample index (tuned on a 500 Hz log of the example car,
benchmarks/batch_bench.py: largest residual at the prediction ~1e-4 mm for first order
with the secant correction, 1e-5 quadratic, 1e-6 cubic, 1e-7 quartic)."""


@inner_plain
def predict_block(b, q, du, T, S):
    """Predict block b's unknowns for an input change du, in place.

    First order from the stored factorisation, q -= J^+ Jin du, plus a secant
    correction: the last first-order prediction's error (the second-order term
    and the factorisation's age), scaled to this step when the input-induced
    residual Jin du is close to the last one's (smooth logs, sweeps). The
    first-order prediction is kept in scratch for `remember`.
    """
    c_ptr = T[7]
    c_param = T[8]
    r_ptr = T[9]
    Fin, have = S[2], S[3]
    y = S[8]
    Ep, Ey, Eok, qp, yin = S[14], S[15], S[16], S[17], S[18]
    m = r_ptr[b + 1] - r_ptr[b]
    n = c_ptr[b + 1] - c_ptr[b]
    c0 = c_ptr[b]
    yin[0] = np.nan  # "no prediction made" for remember()
    if n == 0 or not have[b]:
        return
    moved = False
    for i in range(m):
        s = 0.0
        for k in range(du.shape[0]):
            s += Fin[b, i, k] * du[k]
        yin[i] = s
        y[i] = -s
        moved = moved or s != 0.0
    if not moved:
        yin[0] = np.nan
        return
    B = S[19][b]
    for k in range(n):
        v = 0.0
        for i in range(m):
            v += B[k, i] * y[i]
        q[c_param[c0 + k]] += v
        qp[k] = q[c_param[c0 + k]]  # the first-order prediction
    if Eok[b]:
        dot = 0.0
        last = 0.0
        diff = 0.0
        for i in range(m):
            dot += yin[i] * Ey[b, i]
            last += Ey[b, i] * Ey[b, i]
            diff += (yin[i] - Ey[b, i]) ** 2
        if last > 0.0 and diff <= SECANT_SIMILAR**2 * last:
            scale = dot / last
            for k in range(n):
                q[c_param[c0 + k]] += scale * Ep[b, k]


@inner_plain
def predict_smooth(b, q, Qh, coef, due, T, S):
    """Predict block b's unknowns in place by polynomial extrapolation in the sample index
    of the last closed states Qh (newest first, weights coef: `SMOOTH_COEF`), plus the
    first-order correction -B Jin due for the inputs' own departure from their
    extrapolation, due = u - sum coef_h u_h. For evenly sampled smooth motion (a log)
    the error is of fifth order in the step, against second order (less the secant
    correction) for `predict_block`. Units: mm, rad."""
    c_ptr = T[7]
    c_param = T[8]
    r_ptr = T[9]
    Fin, have = S[2], S[3]
    y = S[8]
    S[18][0] = np.nan  # no first-order prediction: nothing for remember()
    S[16][b] = False
    m = r_ptr[b + 1] - r_ptr[b]
    n = c_ptr[b + 1] - c_ptr[b]
    c0 = c_ptr[b]
    for k in range(n):
        j = c_param[c0 + k]
        v = 0.0
        for h in range(coef.shape[0]):
            v += coef[h] * Qh[h, j]
        q[j] = v
    if n == 0 or not have[b]:
        return
    for i in range(m):
        s = 0.0
        for k in range(due.shape[0]):
            s += Fin[b, i, k] * due[k]
        y[i] = s
    B = S[19][b]
    for k in range(n):
        v = 0.0
        for i in range(m):
            v += B[k, i] * y[i]
        q[c_param[c0 + k]] -= v


@inner_plain
def remember(b, q, T, S, usable):
    """After block b closed: store its prediction error for the next secant correction
    (usable: False when the factorisation changed during the solve)."""
    c_ptr = T[7]
    c_param = T[8]
    r_ptr = T[9]
    Ep, Ey, Eok, qp, yin = S[14], S[15], S[16], S[17], S[18]
    if np.isnan(yin[0]):
        return
    if not usable:
        Eok[b] = False
        return
    m = r_ptr[b + 1] - r_ptr[b]
    n = c_ptr[b + 1] - c_ptr[b]
    for k in range(n):
        Ep[b, k] = q[c_param[c_ptr[b] + k]] - qp[k]
    for i in range(m):
        Ey[b, i] = yin[i]
    Eok[b] = True


@njit
def solve_sequence(
    U, q0, input_idx, T, W, S, target, max_iter, Q, iters, res, status, stats, Pr, fresh
):
    """Solve states one after another, each warm-started from the last one that closed.

    U (N, n_in): input values (strokes, rack) per state; q0 (n_params,): the
    start. Writes Q (N, n_params), iters, res (largest residual, mm) and
    status (N,) and the prediction of each state Pr (N, n_params; or one row,
    overwritten per state, when the caller does not keep them). A prediction is
    first order (`predict_block`); after five closed states in a row with smooth,
    evenly sampled inputs (a log) and without fresh, it is their extrapolation
    (`predict_smooth`), which the branch screen then compares with;
    adds evaluations and Jacobians (each with a factorisation) to stats.
    Blocks are solved independently; the last block (no unknowns) only
    checks the residual rows that no unknown can change. fresh: factorise
    every block at q0 first, so that the first state's prediction is Newton's
    own first step from q0 (the implicit-function-theorem tangent that the
    continuation's branch screen compares with), not a stale or secant one.
    """
    n_blocks = T[7].shape[0] - 1
    have = S[3]
    Eok = S[16]
    q_good = q0.copy()
    u_good = q0[input_idx].copy()
    du = np.zeros(input_idx.shape[0])
    r_ptr = T[9]
    if fresh:
        for b in range(n_blocks):
            refactor(b, q_good, T, W, S, r_ptr[b + 1] - r_ptr[b], T[7][b + 1] - T[7][b])
            stats[1] += 1
            Eok[b] = False
    c_ptr, c_param = T[7], T[8]
    n_in = input_idx.shape[0]
    coef = SMOOTH_COEF
    nc = coef.shape[0]
    Qh = np.zeros((nc, q0.shape[0]))  # the last closed states, newest first
    Uh = np.zeros((nc, n_in))
    nh = 0  # how many of them follow one another
    due = np.zeros(n_in)
    q = np.empty_like(q0)  # the state being solved (one buffer for the whole run)
    for s in range(U.shape[0]):
        ps = s if Pr.shape[0] > 1 else 0  # one row: predictions kept only as scratch
        for attempt in range(2):
            copy_into(q, q_good)
            big = 0.0
            off = 0.0
            for k in range(n_in):
                q[input_idx[k]] = U[s, k]
                du[k] = U[s, k] - u_good[k]
                if nh >= nc:
                    v = U[s, k]
                    for h in range(nc):
                        v -= coef[h] * Uh[h, k]
                    due[k] = v
                    off = max(off, abs(v))
                big = max(big, abs(du[k]))
            # smooth, evenly sampled inputs: the inputs follow their own extrapolation
            # (not when the caller keeps the first-order predictions: single solves)
            smooth = attempt == 0 and not fresh and nh >= nc and off <= SMOOTH_INPUTS * big
            st = OK
            it_max = 0
            worst = 0.0
            copy_into(Pr[ps], q)
            for b in range(n_blocks):
                if smooth:
                    predict_smooth(b, q, Qh, coef, due, T, S)
                else:
                    predict_block(b, q, du, T, S)
                for k in range(c_ptr[b], c_ptr[b + 1]):
                    Pr[ps, c_param[k]] = q[c_param[k]]
                jacs = stats[1]
                bst, bit, bres = solve_block(b, q, T, W, S, target, max_iter, stats)
                remember(b, q, T, S, bst == OK and stats[1] == jacs)
                if T[28][b + 1] > T[28][b]:  # links rebuilt: report the model's own rows
                    if bst != OK:  # its last evaluation may have been a rejected step
                        eval_block_in(b, q, T, W, S[5], S[6], S[7], NO_JAC)
                    rebuild_links_in(b, q, T, W)
                    bres = link_rows(b, q, T, W)
                it_max = max(it_max, bit)
                if not bres <= worst:
                    worst = bres
                if bst != OK and (st in (OK, STATIONARY)):
                    st = bst
            if st != OK:
                break
            # Branch screen: the solution should sit within a fraction of the predicted
            # change of its prediction (second-order apart); else retry from a fresh
            # factorisation at the last closed state, then flag it.
            dev = 0.0
            moved = 0.0
            for k in range(c_ptr[0], c_ptr[n_blocks]):
                j = c_param[k]
                dev = max(dev, abs(q[j] - Pr[ps, j]))
                moved = max(moved, abs(Pr[ps, j] - q_good[j]))
            if dev <= JUMP_PARAM_RATIO * moved + JUMP_PARAM_FLOOR:
                break
            if attempt == 1:
                st = BRANCH
                break
            for b in range(n_blocks):
                refactor(b, q_good, T, W, S, r_ptr[b + 1] - r_ptr[b], c_ptr[b + 1] - c_ptr[b])
                stats[1] += 1
                Eok[b] = False
        copy_into(Q[s], q)
        iters[s] = it_max
        res[s] = worst
        status[s] = st
        if st == OK:
            copy_into(q_good, q)
            copy_into(u_good, U[s])
            for h in range(nc - 1, 0, -1):
                copy_into(Qh[h], Qh[h - 1])
                copy_into(Uh[h], Uh[h - 1])
            copy_into(Qh[0], q)
            copy_into(Uh[0], U[s])
            nh += 1
        else:
            have[:] = False
            Eok[:] = False
            nh = 0
