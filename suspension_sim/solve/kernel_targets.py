"""Single solves with targets met inside the kernel (`solve_single`, `model.solve`).

Each block that carries targets is bordered with their rows and its freed inputs'
columns (`solve_bordered`): Newton on the square block with the Schur complement of
the border, then Broyden's rank-one updates while the steps contract. Blocks without
targets are predicted and closed as in a batch (`kernel_newton.solve_block`).
Units: mm, rad.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.solve.engine_codes import (
    BRANCH,
    JUMP_PARAM_FLOOR,
    JUMP_PARAM_RATIO,
    NOT_CONVERGED,
    NOT_FINITE,
    OK,
    SINGULAR,
    STATIONARY,
)
from suspension_sim.solve.kernel_eval import (
    JAC,
    NO_JAC,
    eval_block_in,
    eval_insts,
    eval_parts,
    eval_parts_only,
)
from suspension_sim.solve.kernel_jit import inner, inner_plain, njit
from suspension_sim.solve.kernel_linalg import (
    copy_into,
    lu_factor,
    lu_solve,
    max_abs,
    small_inverse,
)
from suspension_sim.solve.kernel_newton import refactor, solve_block
from suspension_sim.solve.kernel_sequence import SECANT_SIMILAR, predict_block
from suspension_sim.tolerances import CHORD_CONTRACTION, SINGULAR_PIVOT_RATIO

BROYDEN_PAIRS = 6
"""Rank-one updates (Broyden's second method) on top of a bordered block's factorisation
in `solve_bordered`; past them its steps are plain chord steps."""


@inner_plain
def block_touched(b, du, T):
    """True when an input that changed (du != 0) has a Jacobian entry in block b."""
    e_ptr, e_col = T[17], T[19]
    for e in range(e_ptr[b], e_ptr[b + 1]):
        col = e_col[e]
        if col < 0 and du[-col - 1] != 0.0:
            return True
    return False


@inner
def eval_targets(b, q, T, W, TT, gv, G, with_jac):
    """Residuals gv (k_b) of block b's targets and, if asked, their rows G (k_b, n_b + k_b)
    in the block's bordered columns (its unknowns, then its freed inputs).

    A target row is ``g . P[i] + off - value`` (linear: a coordinate, a wheel travel)
    or the tyre contact height ``R2 . P[i] + t2 - radius sqrt(1 - sz^2)`` with
    ``sz = R2 . (P[j] - P[i]) / |P[j] - P[i]|`` (contact; g holds the chassis
    rotation's third row R2 and off its t2), P in the chassis frame (mm)."""
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    tb_ptr, t_kind, t_i, t_j, t_g, t_off, t_rad, t_val, t_cols = TT[:9]
    tp_ptr, tp_idx, ti_ptr, ti_idx = TT[10:14]
    if with_jac:
        eval_parts(
            q,
            tp_idx[tp_ptr[b] : tp_ptr[b + 1]],
            p_nj,
            p_kind,
            p_axis,
            p_param,
            p_frame,
            A,
            tw_w,
            tw_o,
        )
    else:
        eval_parts_only(
            q, tp_idx[tp_ptr[b] : tp_ptr[b + 1]], p_nj, p_kind, p_axis, p_param, p_frame, A
        )
    eval_insts(
        ti_idx[ti_ptr[b] : ti_ptr[b + 1]],
        i_part,
        i_local,
        p_nj,
        p_kind,
        A,
        tw_w,
        tw_o,
        P,
        dP,
        with_jac,
    )
    t0 = tb_ptr[b]
    for t in range(t0, tb_ptr[b + 1]):
        row = t - t0
        i = t_i[t]
        j = t_j[t]
        contact = t_kind[t] == 1
        g0 = t_g[t, 0]
        g1 = t_g[t, 1]
        g2 = t_g[t, 2]
        f = t_off[t] - t_val[t] + g0 * P[i, 0] + g1 * P[i, 1] + g2 * P[i, 2]
        gi0, gi1, gi2 = g0, g1, g2
        gj0 = gj1 = gj2 = 0.0
        if contact:
            d0 = P[j, 0] - P[i, 0]
            d1 = P[j, 1] - P[i, 1]
            d2 = P[j, 2] - P[i, 2]
            L = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            sz = (g0 * d0 + g1 * d1 + g2 * d2) / L
            root = np.sqrt(max(1.0 - sz * sz, 1e-300))
            f -= t_rad[t] * root
            c = t_rad[t] * sz / root / L
            gj0 = c * (g0 - sz * d0 / L)
            gj1 = c * (g1 - sz * d1 / L)
            gj2 = c * (g2 - sz * d2 / L)
            gi0 = g0 - gj0
            gi1 = g1 - gj1
            gi2 = g2 - gj2
        gv[row] = f
        if not with_jac:
            continue
        G[row, :] = 0.0
        for s in range(p_nj[i_part[i]]):
            col = t_cols[t, 0, s]
            if col >= 0:
                G[row, col] += gi0 * dP[i, s, 0] + gi1 * dP[i, s, 1] + gi2 * dP[i, s, 2]
        if contact:
            for s in range(p_nj[i_part[j]]):
                col = t_cols[t, 1, s]
                if col >= 0:
                    G[row, col] += gj0 * dP[j, s, 0] + gj1 * dP[j, s, 1] + gj2 * dP[j, s, 2]


@inner
def border_factor(b, q, T, W, S, TT, n, k, LU, piv, Z, G, Sinv, r, gv):
    """Factorise square block b bordered with its targets at q: the block's LU, Z = J^-1 Ja
    (Ja: the freed inputs' columns), the target rows G and the inverse of the Schur
    complement Gu - Gq Z. Leaves the residuals in r and gv. True when usable."""
    Jt, Jin = S[6], S[7]
    eval_block_in(b, q, T, W, r, Jt, Jin, JAC)
    if not lu_factor(Jt, n, LU, piv) > SINGULAR_PIVOT_RATIO:
        return False
    t_in = TT[9]
    t0 = TT[0][b]
    col = np.empty(n)
    for c in range(k):
        j = t_in[t0 + c]
        for x in range(n):
            col[x] = Jin[x, j]
        lu_solve(LU, piv, n, col)
        for x in range(n):
            Z[x, c] = col[x]
    eval_targets(b, q, T, W, TT, gv, G, JAC)
    Sm = np.empty((k, k))
    for a in range(k):
        for c in range(k):
            v = G[a, n + c]
            for x in range(n):
                v -= G[a, x] * Z[x, c]
            Sm[a, c] = v
    return small_inverse(Sm, k, Sinv) > SINGULAR_PIVOT_RATIO


@inner
def border_step(n, k, LU, piv, Z, G, Sinv, r, gv, dq, du, w, h):
    """Newton step (dq, du) of the bordered block from its residuals r, gv:
    w = J^-1 r, du = Sinv (Gq w - gv), dq = -w - Z du (w, h: scratch of n and k)."""
    for x in range(n):
        w[x] = r[x]
    lu_solve(LU, piv, n, w)
    for a in range(k):
        v = -gv[a]
        for x in range(n):
            v += G[a, x] * w[x]
        h[a] = v
    for c in range(k):
        v = 0.0
        for a in range(k):
            v += Sinv[c, a] * h[a]
        du[c] = v
    for x in range(n):
        v = -w[x]
        for c in range(k):
            v -= Z[x, c] * du[c]
        dq[x] = v


@inner
def secant(q, xs, dq, du, cols, input_idx, ins, hist, corr):
    """Add to the first step (dq, du) from xs the second-order error of the step that
    led to xs: the guess pose's own solution xs less its first-order prediction
    hist[0] (made from hist[1]), scaled by the square of this step over that one,
    when the two first-order steps are alike (a sweep's steady increments). Writes
    the correction to corr (for Broyden's update). Units: mm, rad."""
    n = cols.shape[0]
    k = ins.shape[0]
    num = 0.0
    den = 0.0
    diff = 0.0
    for x in range(n + k):
        j = cols[x] if x < n else input_idx[ins[x - n]]
        dc = dq[x] if x < n else du[x - n]
        dp = hist[0, j] - hist[1, j]
        num += dc * dp
        den += dp * dp
        diff += (dc - dp) ** 2
    if not (den > 0.0 and diff <= SECANT_SIMILAR**2 * den):
        return
    sc = (num / den) ** 2
    for x in range(n + k):
        j = cols[x] if x < n else input_idx[ins[x - n]]
        v = sc * (xs[x] - hist[0, j])
        if np.isfinite(v):
            corr[x] = v
            q[j] += v


@inner
def solve_bordered(b, q, input_idx, T, W, S, TT, target, max_iter, stats, pred, hist):
    """Close block b and meet its targets by moving its unknowns and its freed inputs:
    Newton on the square block bordered with the target rows and the freed inputs'
    columns (the block's LU and the Schur complement of the border); then steps with
    that factorisation and Broyden's rank-one updates (second method) while they
    contract tenfold, a fresh factorisation (with step halving) otherwise. The first
    step, from the factorisation at the start, is written to pred (the first-order
    prediction). Returns (status, iterations, largest residual mm)."""
    c_ptr, c_param, r_ptr = T[7], T[8], T[9]
    tb_ptr, t_in = TT[0], TT[9]
    m = r_ptr[b + 1] - r_ptr[b]
    n = c_ptr[b + 1] - c_ptr[b]
    c0 = c_ptr[b]
    t0 = tb_ptr[b]
    k = tb_ptr[b + 1] - t0
    LU = np.empty((n, n))
    piv = np.empty(n, dtype=np.int64)
    Z = np.empty((n, k))
    G = np.empty((k, n + k))
    Sinv = np.empty((k, k))
    r = np.empty(m)
    gv = np.empty(k)
    rt = np.empty(m)
    gt = np.empty(k)
    dq = np.empty(n)
    du = np.empty(k)
    xs = np.empty(n + k)
    Jt, Jin = S[6], S[7]
    stats[1] += 1
    stats[0] += 1
    if not border_factor(b, q, T, W, S, TT, n, k, LU, piv, Z, G, Sinv, r, gv):
        return SINGULAR, 0, max(max_abs(r, m), max_abs(gv, k))
    res = max(max_abs(r, m), max_abs(gv, k))
    if not np.isfinite(res):
        return NOT_FINITE, 0, res
    fresh = True
    it = 0
    N = n + k
    w = np.empty(N)
    ws = np.empty(n)
    hs = np.empty(k)
    Fv = np.empty(N)
    Fp = np.empty(N)
    Uv = np.empty((BROYDEN_PAIRS, N))
    Vv = np.empty((BROYDEN_PAIRS, N))
    corr = np.zeros(N)  # the last step less -H F (the secant correction of the first)
    pairs = 0
    have_prev = False
    while res > target:
        if it >= max_iter:
            return NOT_CONVERGED, it, res
        # w = H F: the bordered Newton solve with the factorisation, plus the rank-one
        # corrections of Broyden's (second) method gathered since it was made.
        border_step(n, k, LU, piv, Z, G, Sinv, r, gv, dq, du, ws, hs)
        for x in range(n):
            w[x] = -dq[x]
            Fv[x] = r[x]
        for c in range(k):
            w[n + c] = -du[c]
            Fv[n + c] = gv[c]
        for i in range(pairs):
            d = 0.0
            for x in range(N):
                d += Vv[i, x] * Fv[x]
            for x in range(N):
                w[x] += d * Uv[i, x]
        if have_prev and pairs < BROYDEN_PAIRS:
            # The last step s = -H' F' + corr gave y = F - F'; Broyden's second method
            # H <- H' + (s - H' y) y^T / y.y, where s - H' y = corr - H' F = corr - w.
            yy = 0.0
            yf = 0.0
            for x in range(N):
                yx = Fv[x] - Fp[x]
                Vv[pairs, x] = yx
                yy += yx * yx
                yf += yx * Fv[x]
            if yy > 0.0:
                for x in range(N):
                    Uv[pairs, x] = (corr[x] - w[x]) / yy
                    w[x] += Uv[pairs, x] * yf
                pairs += 1
        for x in range(N):
            corr[x] = 0.0
        for x in range(n):
            dq[x] = -w[x]
        for c in range(k):
            du[c] = -w[n + c]
        for x in range(N):
            Fp[x] = Fv[x]
        for x in range(n):
            j = c_param[c0 + x]
            xs[x] = q[j]
            q[j] += dq[x]
        for c in range(k):
            j = input_idx[t_in[t0 + c]]
            xs[n + c] = q[j]
            q[j] += du[c]
        if it == 0:
            for x in range(n):
                pred[c_param[c0 + x]] = q[c_param[c0 + x]]
            for c in range(k):
                j = input_idx[t_in[t0 + c]]
                pred[j] = q[j]
            if hist.shape[0] == 2:
                secant(
                    q, xs, dq, du, c_param[c0 : c0 + n], input_idx, t_in[t0 : t0 + k], hist, corr
                )
        it += 1
        eval_block_in(b, q, T, W, rt, Jt, Jin, NO_JAC)
        eval_targets(b, q, T, W, TT, gt, G, NO_JAC)
        stats[0] += 1
        new = max(max_abs(rt, m), max_abs(gt, k))
        if new <= target or new <= CHORD_CONTRACTION * res:
            res = new
            for i in range(m):
                r[i] = rt[i]
            for c in range(k):
                gv[c] = gt[c]
            fresh = False
            have_prev = True
            continue
        if not new < res:
            if not fresh:  # an aged factorisation: undo, refactorise here
                scale = 0.0
            else:  # a fresh Newton step that overshoots: halve it
                scale = 0.5
                while scale > 1e-3:
                    for x in range(n):
                        j = c_param[c0 + x]
                        q[j] = xs[x] + scale * dq[x]
                    for c in range(k):
                        j = input_idx[t_in[t0 + c]]
                        q[j] = xs[n + c] + scale * du[c]
                    eval_block_in(b, q, T, W, rt, Jt, Jin, NO_JAC)
                    eval_targets(b, q, T, W, TT, gt, G, NO_JAC)
                    stats[0] += 1
                    new = max(max_abs(rt, m), max_abs(gt, k))
                    if new < res:
                        break
                    scale *= 0.5
                if not new < res:
                    scale = 0.0
            if scale == 0.0:
                for x in range(n):
                    q[c_param[c0 + x]] = xs[x]
                for c in range(k):
                    q[input_idx[t_in[t0 + c]]] = xs[n + c]
                if fresh:
                    return NOT_CONVERGED, it, res
        # progress, but slow (or undone): a fresh factorisation at the current point
        stats[1] += 1
        if not border_factor(b, q, T, W, S, TT, n, k, LU, piv, Z, G, Sinv, r, gv):
            return SINGULAR, it, res
        res = max(max_abs(r, m), max_abs(gv, k))
        if not np.isfinite(res):
            return NOT_FINITE, it, res
        fresh = True
        pairs = 0
        have_prev = False
    return OK, it, res


@njit
def solve_single(q, qg, input_idx, T, W, S, TT, target, max_iter, stats, pred, hist):
    """Solve one state in place from q (held inputs written, freed inputs at their
    guess), the guess qg being the pose it moves from (a closed one in a sweep).

    Blocks without targets: a fresh factorisation at qg and the first-order
    prediction for the held inputs' change, then `solve_block` (as
    `solve_sequence` with fresh=True); a block that no changed input touches and
    that is closed already costs one residual evaluation. Blocks with targets:
    `solve_bordered`. pred (n_params) gets the first-order prediction of every
    unknown and freed input (what continuation's branch screen compares with).
    hist: (2, n_params), the guess pose's own first-order prediction and the
    parameters it was made from, when the guess is a pose solved this way (a
    sweep's last step: `secant`); (0, n_params) otherwise.
    Returns (status, iterations, largest residual mm); BRANCH when the solution
    lies farther from the prediction than the batch screen allows (the caller
    then takes its reference path)."""
    n_blocks = T[7].shape[0] - 1
    c_ptr, c_param, r_ptr = T[7], T[8], T[9]
    tb_ptr, t_in = TT[0], TT[9]
    Eok = S[16]
    du = np.empty(input_idx.shape[0])
    for k in range(input_idx.shape[0]):
        du[k] = q[input_idx[k]] - qg[input_idx[k]]
    copy_into(pred, q)
    st = OK
    it_max = 0
    worst = 0.0
    for b in range(n_blocks):
        m = r_ptr[b + 1] - r_ptr[b]
        n = c_ptr[b + 1] - c_ptr[b]
        Eok[b] = False
        if tb_ptr[b + 1] > tb_ptr[b]:
            bst, bit, bres = solve_bordered(
                b, q, input_idx, T, W, S, TT, target, max_iter, stats, pred, hist
            )
        elif n > 0 and block_touched(b, du, T):
            refactor(b, qg, T, W, S, m, n)
            stats[1] += 1
            predict_block(b, q, du, T, S)
            for x in range(c_ptr[b], c_ptr[b + 1]):
                pred[c_param[x]] = q[c_param[x]]
            bst, bit, bres = solve_block(b, q, T, W, S, target, max_iter, stats)
        else:  # no input of this block changed: closed already unless the guess is not
            eval_block_in(b, q, T, W, S[4], S[6], S[7], NO_JAC)
            stats[0] += 1
            bst, bit, bres = OK, 0, max_abs(S[4], m)
            if not bres <= target:
                if n > 0:
                    refactor(b, qg, T, W, S, m, n)
                    stats[1] += 1
                bst, bit, bres = solve_block(b, q, T, W, S, target, max_iter, stats)
        it_max = max(it_max, bit)
        if not bres <= worst:
            worst = bres
        if bst != OK and (st in (OK, STATIONARY)):
            st = bst
    if st != OK:
        return st, it_max, worst
    dev = 0.0
    moved = 0.0
    for x in range(c_ptr[0], c_ptr[n_blocks]):
        j = c_param[x]
        dev = max(dev, abs(q[j] - pred[j]))
        moved = max(moved, abs(pred[j] - qg[j]))
    for t in range(tb_ptr[n_blocks]):
        j = input_idx[t_in[t]]
        dev = max(dev, abs(q[j] - pred[j]))
        moved = max(moved, abs(pred[j] - qg[j]))
    if dev > JUMP_PARAM_RATIO * moved + JUMP_PARAM_FLOOR:
        return BRANCH, it_max, worst
    return OK, it_max, worst
