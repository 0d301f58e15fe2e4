"""The compiled (numba) kernel of the batch engine: one state at a time, no Python inside.

Imported only by `suspension_sim.solve.engine` on first compiled use (importing
numba costs ~0.3 s, compiling ~ a few seconds once per process). Every
function here is plain numba-typed code on flat arrays that
`engine.KernelTables` builds once per model, so one compilation serves
every car.

Transforms: each part's product of exponentials is evaluated directly from
its joint signature (kind R/P and canonical local axis per joint): starting
from the part's frame F, ``A <- A @ exp([S_j] t_j)`` for each joint j. The
prefix before joint j gives that joint's screw in the chassis frame (axis
``w = R_A a_j`` through ``o = t_A``, or direction ``R_A a_j`` for a prismatic
joint), so the derivative of a point p is ``w x (p - o)`` or that direction:
no symbolic template is needed. The numpy reference path
(`KinematicModel.evaluate_state`, with the shipped sympy templates) is the
independent check of this code.

Per block: first a prediction from the previous state (first-order, through
the stored factorisation of the last Jacobian), then chord steps reusing
that factorisation while they contract, then Powell's dogleg trust region
with a fresh Jacobian every step (Householder QR, so tall blocks from
redundant joints work too). Units: mm, rad.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suspension_sim.solve.engine_codes import (
    NOT_CONVERGED,
    NOT_FINITE,
    OK,
    SINGULAR,
    STATIONARY,
    TRUST_START,
)
from suspension_sim.tolerances import (
    CHORD_CONTRACTION,
    SINGULAR_PIVOT_RATIO,
    STATIONARY_GAIN,
    STATIONARY_STEP,
    TRUST_ACCEPT_RATIO,
    TRUST_MIN_RADIUS,
)

CHORD_REFRESH = 1e-3
"""A chord step that shrank the residual by less than this factor marks the stored
factorisation as old: it is renewed at the state's solution for the next state."""
MAX_CHORD_STEPS = 8
"""Chord steps (reused factorisation) before a fresh Jacobian is taken."""


@njit(cache=False)
def eval_parts(q, parts, p_nj, p_kind, p_axis, p_param, p_frame, A, tw_w, tw_o):
    """Chassis-frame transform A = F T(q) (3x4) and joint screws of the given parts."""
    for idx in range(parts.shape[0]):
        i = parts[idx]
        for r in range(3):
            for c in range(4):
                A[i, r, c] = p_frame[i, r, c]
        for j in range(p_nj[i]):
            a0 = p_axis[i, j, 0]
            a1 = p_axis[i, j, 1]
            a2 = p_axis[i, j, 2]
            for r in range(3):
                tw_w[i, j, r] = A[i, r, 0] * a0 + A[i, r, 1] * a1 + A[i, r, 2] * a2
                tw_o[i, j, r] = A[i, r, 3]
            th = q[p_param[i, j]]
            if p_kind[i, j] == 1:  # prismatic: translate along the screw direction
                for r in range(3):
                    A[i, r, 3] += tw_w[i, j, r] * th
            else:  # revolute: A[:, :3] <- A[:, :3] @ (I + s [a] + (1 - c) [a]^2)
                s = np.sin(th)
                c1 = 1.0 - np.cos(th)
                e00 = 1.0 + c1 * (a0 * a0 - 1.0)
                e11 = 1.0 + c1 * (a1 * a1 - 1.0)
                e22 = 1.0 + c1 * (a2 * a2 - 1.0)
                e01 = -s * a2 + c1 * a0 * a1
                e10 = s * a2 + c1 * a0 * a1
                e02 = s * a1 + c1 * a0 * a2
                e20 = -s * a1 + c1 * a0 * a2
                e12 = -s * a0 + c1 * a1 * a2
                e21 = s * a0 + c1 * a1 * a2
                for r in range(3):
                    x0 = A[i, r, 0]
                    x1 = A[i, r, 1]
                    x2 = A[i, r, 2]
                    A[i, r, 0] = x0 * e00 + x1 * e10 + x2 * e20
                    A[i, r, 1] = x0 * e01 + x1 * e11 + x2 * e21
                    A[i, r, 2] = x0 * e02 + x1 * e12 + x2 * e22


@njit(cache=False)
def eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, with_jac):
    """Positions P (n_inst, 3) and, if asked, slot derivatives dP (n_inst, K, 3)."""
    for idx in range(insts.shape[0]):
        n = insts[idx]
        i = i_part[n]
        x0 = i_local[n, 0]
        x1 = i_local[n, 1]
        x2 = i_local[n, 2]
        for r in range(3):
            P[n, r] = A[i, r, 0] * x0 + A[i, r, 1] * x1 + A[i, r, 2] * x2 + A[i, r, 3]
        if not with_jac:
            continue
        for j in range(p_nj[i]):
            w0 = tw_w[i, j, 0]
            w1 = tw_w[i, j, 1]
            w2 = tw_w[i, j, 2]
            if p_kind[i, j] == 1:
                dP[n, j, 0] = w0
                dP[n, j, 1] = w1
                dP[n, j, 2] = w2
            else:
                d0 = P[n, 0] - tw_o[i, j, 0]
                d1 = P[n, 1] - tw_o[i, j, 1]
                d2 = P[n, 2] - tw_o[i, j, 2]
                dP[n, j, 0] = w1 * d2 - w2 * d1
                dP[n, j, 1] = w2 * d0 - w0 * d2
                dP[n, j, 2] = w0 * d1 - w1 * d0


@njit(cache=False)
def eval_block(b, q, T, W, r, J, Jin, with_jac):
    """Residuals r (m_b) and, if asked, Jacobian J (m_b, n_b) and input columns Jin of block b.

    T: the model tables (see `engine.KernelTables.arrays`); W: work arrays.
    """
    (
        p_nj,
        p_kind,
        p_axis,
        p_param,
        p_frame,
        i_part,
        i_local,
        c_ptr,
        _c_param,
        r_ptr,
        r_a,
        r_b,
        r_axis,
        pa_ptr,
        pa_idx,
        in_ptr,
        in_idx,
        e_ptr,
        e_row,
        e_col,
        e_inst,
        e_slot,
        e_axis,
        e_sign,
    ) = T
    A, tw_w, tw_o, P, dP = W
    eval_parts(
        q, pa_idx[pa_ptr[b] : pa_ptr[b + 1]], p_nj, p_kind, p_axis, p_param, p_frame, A, tw_w, tw_o
    )
    eval_insts(
        in_idx[in_ptr[b] : in_ptr[b + 1]],
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
    r0 = r_ptr[b]
    m = r_ptr[b + 1] - r0
    for k in range(m):
        ax = r_axis[r0 + k]
        r[k] = P[r_b[r0 + k], ax] - P[r_a[r0 + k], ax]
    if with_jac:
        n = c_ptr[b + 1] - c_ptr[b]
        J[:m, :n] = 0.0
        Jin[:m, :] = 0.0
        for e in range(e_ptr[b], e_ptr[b + 1]):
            v = e_sign[e] * dP[e_inst[e], e_slot[e], e_axis[e]]
            col = e_col[e]
            if col >= 0:
                J[e_row[e], col] += v
            else:
                Jin[e_row[e], -col - 1] += v


@njit(cache=False)
def qr_factor(J, m, n, tau):
    """Householder QR of J[:m, :n] in place (m >= n); R above the diagonal, vectors below.

    Returns min |R_ii| / max column norm (0 for a rank-deficient block).
    """
    big = 0.0
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += J[i, j] * J[i, j]
        big = max(big, np.sqrt(s))
    small = np.inf
    for j in range(n):
        norm = 0.0
        for i in range(j, m):
            norm += J[i, j] * J[i, j]
        norm = np.sqrt(norm)
        if norm == 0.0:
            tau[j] = 0.0
            small = 0.0
            continue
        alpha = -norm if J[j, j] >= 0.0 else norm
        v0 = J[j, j] - alpha
        # v = (1, J[j+1:, j] / v0); tau = -v0 / alpha
        for i in range(j + 1, m):
            J[i, j] /= v0
        tau[j] = -v0 / alpha
        J[j, j] = alpha
        small = min(small, abs(alpha))
        for k in range(j + 1, n):
            s = J[j, k]
            for i in range(j + 1, m):
                s += J[i, j] * J[i, k]
            s *= tau[j]
            J[j, k] -= s
            for i in range(j + 1, m):
                J[i, k] -= s * J[i, j]
    if big == 0.0:
        return 0.0
    return small / big


@njit(cache=False)
def apply_qt(F, tau, m, n, y):
    """y <- Q^T y for the factorisation in F (y has m entries)."""
    for j in range(n):
        s = y[j]
        for i in range(j + 1, m):
            s += F[i, j] * y[i]
        s *= tau[j]
        y[j] -= s
        for i in range(j + 1, m):
            y[i] -= s * F[i, j]


@njit(cache=False)
def solve_r(F, n, y, out):
    """out <- R^-1 y[:n] (back substitution)."""
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= F[i, k] * out[k]
        out[i] = s / F[i, i]


@njit(cache=False)
def max_abs(v, m):
    out = 0.0
    for i in range(m):
        a = abs(v[i])
        if not a <= out:  # also catches NaN
            out = a
    return out


@njit(cache=False)
def sum_sq(v, m):
    out = 0.0
    for i in range(m):
        out += v[i] * v[i]
    return out


@njit(cache=False)
def refactor(b, q, T, W, S, m, n):
    """Store the factorisation of block b's Jacobian at q (for the next prediction)."""
    F, tau, Fin, have, _r, rt, J, Jin, _y, _p, _pg, _x, _D, _g = S
    eval_block(b, q, T, W, rt, J, Jin, True)
    for i in range(m):
        for k in range(n):
            F[b, i, k] = J[i, k]
        for k in range(Fin.shape[2]):
            Fin[b, i, k] = Jin[i, k]
    have[b] = qr_factor(F[b], m, n, tau[b]) > SINGULAR_PIVOT_RATIO


@njit(cache=False)
def solve_block(b, q, T, W, S, target, max_iter):
    """Close block b of state q in place. Returns (status, iterations, largest residual mm).

    S: per-block stored factorisation (F, tau, Fin, have) and scratch vectors.
    """
    c_ptr = T[7]
    c_param = T[8]
    r_ptr = T[9]
    F, tau, Fin, have, r, rt, J, Jin, y, p, pg, x, D, g = S
    m = r_ptr[b + 1] - r_ptr[b]
    n = c_ptr[b + 1] - c_ptr[b]
    c0 = c_ptr[b]
    Fb = F[b]
    eval_block(b, q, T, W, r, J, Jin, False)
    res = max_abs(r, m)
    if res <= target:
        return OK, 0, res
    if not np.isfinite(res):
        return NOT_FINITE, 0, res
    if n == 0:
        return NOT_CONVERGED, 0, res
    it = 0
    # Chord steps with the stored factorisation while they contract fast.
    if have[b]:
        for _ in range(MAX_CHORD_STEPS):
            for i in range(m):
                y[i] = -r[i]
            apply_qt(Fb, tau[b], m, n, y)
            solve_r(Fb, n, y, p)
            for k in range(n):
                x[k] = q[c_param[c0 + k]]
                q[c_param[c0 + k]] += p[k]
            it += 1
            eval_block(b, q, T, W, rt, J, Jin, False)
            new = max_abs(rt, m)
            if new <= target:
                if new > CHORD_REFRESH * res:  # the factorisation has aged: renew it here
                    refactor(b, q, T, W, S, m, n)
                return OK, it, new
            if (
                not new <= CHORD_CONTRACTION * res
            ):  # too slow (or NaN): undo, go to the trust region
                for k in range(n):
                    q[c_param[c0 + k]] = x[k]
                break
            res = new
            for i in range(m):
                r[i] = rt[i]
    # Powell's dogleg with a fresh Jacobian every step (MINPACK hybrj style).
    eval_block(b, q, T, W, r, J, Jin, True)
    for k in range(n):
        s = 0.0
        for i in range(m):
            s += J[i, k] * J[i, k]
        D[k] = np.sqrt(s) if s > 0.0 else 1.0
    for i in range(m):
        for k in range(n):
            Fb[i, k] = J[i, k]
        for k in range(Fin.shape[2]):
            Fin[b, i, k] = Jin[i, k]
    if qr_factor(Fb, m, n, tau[b]) <= SINGULAR_PIVOT_RATIO:
        have[b] = False
        return SINGULAR, it, res
    have[b] = True
    xn = 0.0
    for k in range(n):
        xn += (D[k] * q[c_param[c0 + k]]) ** 2
    delta = TRUST_START * max(1.0, np.sqrt(xn))
    f2 = sum_sq(r, m)
    while it < max_iter:
        # Gauss-Newton step and the gradient, both from R and Q^T r.
        for i in range(m):
            y[i] = r[i]
        apply_qt(Fb, tau[b], m, n, y)  # y[:n] = Q^T r
        for i in range(n):
            y[i] = -y[i]
        solve_r(Fb, n, y, p)  # p = -R^-1 Q^T r
        for i in range(n):
            y[i] = -y[i]
        pn = 0.0
        for k in range(n):
            pn += (D[k] * p[k]) ** 2
        pn = np.sqrt(pn)
        xn = 0.0
        for k in range(n):
            xn += (D[k] * q[c_param[c0 + k]]) ** 2
        if pn <= STATIONARY_STEP * (1.0 + np.sqrt(xn)):
            return STATIONARY, it, res
        if pn > delta:
            for k in range(n):  # g = R^T Q^T r = J^T r
                s = 0.0
                for i in range(k + 1):
                    s += Fb[i, k] * y[i]
                g[k] = s
            gs2 = 0.0
            for k in range(n):
                gs2 += (g[k] / D[k]) ** 2
            jd2 = 0.0
            for i in range(n):  # |R d|^2 with d = -g / D^2
                s = 0.0
                for k in range(i, n):
                    s -= Fb[i, k] * g[k] / (D[k] * D[k])
                jd2 += s * s
            gsn = np.sqrt(gs2)
            alpha = gs2 / jd2 if jd2 > 0.0 else 0.0
            if alpha * gsn >= delta or jd2 == 0.0:
                for k in range(n):
                    p[k] = -(delta / gsn) * g[k] / (D[k] * D[k])
            else:
                aa = 0.0
                bb = 0.0
                cc = 0.0
                for k in range(n):
                    pc = -alpha * g[k] / (D[k] * D[k])
                    pg[k] = pc
                    dd = D[k] * (p[k] - pc)
                    aa += dd * dd
                    bb += 2.0 * D[k] * pc * dd
                    cc += (D[k] * pc) ** 2
                cc -= delta * delta
                t = (-bb + np.sqrt(max(bb * bb - 4.0 * aa * cc, 0.0))) / (2.0 * aa)
                for k in range(n):
                    p[k] = pg[k] + t * (p[k] - pg[k])
            pn = 0.0
            for k in range(n):
                pn += (D[k] * p[k]) ** 2
            pn = np.sqrt(pn)
        # Predicted reduction |r|^2 - |r + J p|^2 = -(2 (Q^T r).(R p) + |R p|^2).
        pred = 0.0
        for i in range(n):
            s = 0.0
            for k in range(i, n):
                s += Fb[i, k] * p[k]
            pred -= 2.0 * y[i] * s + s * s
        if pred <= STATIONARY_GAIN * f2:
            return STATIONARY, it, res
        for k in range(n):
            x[k] = q[c_param[c0 + k]]
            q[c_param[c0 + k]] += p[k]
        it += 1
        eval_block(b, q, T, W, rt, J, Jin, True)
        new = max_abs(rt, m)
        ft2 = sum_sq(rt, m)
        ratio = (f2 - ft2) / pred if pred > 0.0 else -1.0
        accept = np.isfinite(new) and (new <= target or ratio >= TRUST_ACCEPT_RATIO)
        if ratio < 0.25:
            delta = 0.25 * pn
        elif ratio > 0.75:
            delta = max(delta, 2.0 * pn)
        if not accept:
            for k in range(n):
                q[c_param[c0 + k]] = x[k]
        else:
            for i in range(m):
                r[i] = rt[i]
            f2 = ft2
            res = new
            if res <= target:
                return OK, it, res
            for k in range(n):
                s = 0.0
                for i in range(m):
                    s += J[i, k] * J[i, k]
                D[k] = max(D[k], np.sqrt(s))
            for i in range(m):
                for k in range(n):
                    Fb[i, k] = J[i, k]
                for k in range(Fin.shape[2]):
                    Fin[b, i, k] = Jin[i, k]
            if qr_factor(Fb, m, n, tau[b]) <= SINGULAR_PIVOT_RATIO:
                have[b] = False
                return SINGULAR, it, res
        xn = 0.0
        for k in range(n):
            xn += (D[k] * q[c_param[c0 + k]]) ** 2
        if delta <= TRUST_MIN_RADIUS * (1.0 + np.sqrt(xn)):
            return NOT_CONVERGED, it, res
    return NOT_CONVERGED, it, res


@njit(cache=False)
def predict_block(b, q, du, T, S):
    """First-order prediction q[block] -= J^+ Jin du from the stored factorisation."""
    c_ptr = T[7]
    c_param = T[8]
    r_ptr = T[9]
    F, tau, Fin, have, _r, _rt, _J, _Jin, y, p, _pg, _x, _D, _g = S
    m = r_ptr[b + 1] - r_ptr[b]
    n = c_ptr[b + 1] - c_ptr[b]
    if n == 0 or not have[b]:
        return
    moved = False
    for i in range(m):
        s = 0.0
        for k in range(du.shape[0]):
            s += Fin[b, i, k] * du[k]
        y[i] = -s
        moved = moved or s != 0.0
    if not moved:
        return
    apply_qt(F[b], tau[b], m, n, y)
    solve_r(F[b], n, y, p)
    for k in range(n):
        q[c_param[c_ptr[b] + k]] += p[k]


@njit(cache=False)
def solve_sequence(U, q0, input_idx, T, W, S, target, max_iter, Q, iters, res, status):
    """Solve states one after another, each warm-started from the last one that closed.

    U (N, n_in): input values (strokes, rack) per state; q0 (n_params,): the
    start. Writes Q (N, n_params), iters, res (largest residual, mm) and
    status (N,). Blocks are solved independently; the last block (no
    unknowns) only checks the residual rows that no unknown can change.
    """
    n_blocks = T[7].shape[0] - 1
    have = S[3]
    q_good = q0.copy()
    u_good = q0[input_idx].copy()
    du = np.zeros(input_idx.shape[0])
    for s in range(U.shape[0]):
        q = q_good.copy()
        for k in range(input_idx.shape[0]):
            q[input_idx[k]] = U[s, k]
            du[k] = U[s, k] - u_good[k]
        st = OK
        it_max = 0
        worst = 0.0
        for b in range(n_blocks):
            predict_block(b, q, du, T, S)
            bst, bit, bres = solve_block(b, q, T, W, S, target, max_iter)
            it_max = max(it_max, bit)
            if not bres <= worst:
                worst = bres
            if bst != OK and (st in (OK, STATIONARY)):
                st = bst
        Q[s, :] = q
        iters[s] = it_max
        res[s] = worst
        status[s] = st
        if st == OK:
            q_good[:] = q
            u_good[:] = U[s]
        else:
            have[:] = False
