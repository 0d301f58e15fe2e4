"""Block Newton: close one block of a state.

Chord steps reuse the stored inverse of the block's last Jacobian while they contract
(`solve_block`), then Powell's dogleg trust region with a fresh Jacobian every step
(Householder QR, MINPACK hybrj style). `refactor` renews the stored inverse (J^-1,
or R^-1 Q^T for a tall block) for the next chord steps and predictions. Units: mm, rad.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.solve.engine_codes import (
    NOT_CONVERGED,
    NOT_FINITE,
    OK,
    SINGULAR,
    STATIONARY,
    TRUST_START,
)
from suspension_sim.solve.kernel_eval import JAC, NO_JAC, eval_block_in
from suspension_sim.solve.kernel_jit import inner_plain
from suspension_sim.solve.kernel_linalg import (
    apply_qt,
    invert,
    max_abs,
    mul_r,
    qr_factor,
    solve_r,
    sum_sq,
)
from suspension_sim.tolerances import (
    CHORD_CONTRACTION,
    SINGULAR_PIVOT_RATIO,
    STATIONARY_GAIN,
    STATIONARY_STEP,
    TRUST_ACCEPT_RATIO,
    TRUST_MIN_RADIUS,
)

CHORD_REFRESH = 1.5e-2
"""A chord step that shrank the residual by less than this factor marks the stored
inverse as old: it is renewed at the state's solution for the next state. Tuned on a
500 Hz log of the example car (benchmarks/batch_bench.py): lower renews too often
(each renewal costs a Jacobian and an inversion, ~7 chord steps), higher lets the
chord steps contract slowly."""


MAX_CHORD_STEPS = 8
"""Chord steps (reused factorisation) before a fresh Jacobian is taken."""


@inner_plain
def store_qr(b, S, m, n):
    """Copy the Jacobian scratch (Jt, Jin) into block b's slot and QR-factor it (for the
    trust-region steps). The chord inverse B is invalid until `refactor`.

    Returns True when the block is usable (not near singular)."""
    F, tau, Fin, have = S[0], S[1], S[2], S[3]
    Jt, Jin = S[6], S[7]
    for k in range(n):
        for i in range(m):
            F[b, k, i] = Jt[k, i]
    for i in range(m):
        for k in range(Fin.shape[2]):
            Fin[b, i, k] = Jin[i, k]
    have[b] = False
    return qr_factor(F[b], m, n, tau[b]) > SINGULAR_PIVOT_RATIO


@inner_plain
def refactor(b, q, T, W, S, m, n):
    """Block b's chord inverse B (J^-1, or R^-1 Q^T for a tall block) and input columns
    at q, for the next chord steps and predictions. Returns True when usable."""
    eval_block_in(b, q, T, W, S[5], S[6], S[7], JAC)
    F, tau, Fin, have, B = S[0], S[1], S[2], S[3], S[19]
    Jt, Jin = S[6], S[7]
    for i in range(m):
        for k in range(Fin.shape[2]):
            Fin[b, i, k] = Jin[i, k]
    if m == n:
        have[b] = invert(Jt, n, S[22], B[b]) > SINGULAR_PIVOT_RATIO
        return have[b]
    if not store_qr(b, S, m, n):
        return False
    y, p = S[8], S[9]
    for i in range(m):
        for k in range(m):
            y[k] = 0.0
        y[i] = 1.0
        apply_qt(F[b], tau[b], m, n, y)
        solve_r(F[b], n, y, p)
        for k in range(n):
            B[b, k, i] = p[k]
    have[b] = True
    return True


@inner_plain
def solve_block(b, q, T, W, S, target, max_iter, stats):
    """Close block b of state q in place. Returns (status, iterations, largest residual mm).

    S: per-block stored factorisation (F, tau, Fin, have) and scratch vectors.
    stats: counters (evaluations, Jacobians, factorisations) for benchmarks.
    """
    c_ptr = T[7]
    c_param = T[8]
    r_ptr = T[9]
    F, tau, _Fin, have, r, rt, Jt, Jin, y, p, pg, x, D, g = S[:14]
    m = r_ptr[b + 1] - r_ptr[b]
    n = c_ptr[b + 1] - c_ptr[b]
    c0 = c_ptr[b]
    Fb = F[b]
    eval_block_in(b, q, T, W, r, Jt, Jin, NO_JAC)
    stats[0] += 1
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
        Bb = S[19][b]
        for _ in range(MAX_CHORD_STEPS):
            for k in range(n):
                v = 0.0
                for i in range(m):
                    v -= Bb[k, i] * r[i]
                p[k] = v
            for k in range(n):
                x[k] = q[c_param[c0 + k]]
                q[c_param[c0 + k]] += p[k]
            it += 1
            eval_block_in(b, q, T, W, rt, Jt, Jin, NO_JAC)
            stats[0] += 1
            new = max_abs(rt, m)
            if new <= target:
                if new > CHORD_REFRESH * res:  # the inverse has aged: renew it here
                    refactor(b, q, T, W, S, m, n)
                    stats[1] += 1
                return OK, it, new
            if not new <= CHORD_CONTRACTION * res:  # too slow (or NaN): undo, trust region
                for k in range(n):
                    q[c_param[c0 + k]] = x[k]
                break
            res = new
            for i in range(m):
                r[i] = rt[i]
    # Powell's dogleg with a fresh Jacobian every step (MINPACK hybrj style).
    eval_block_in(b, q, T, W, r, Jt, Jin, JAC)
    stats[1] += 1
    for k in range(n):
        s = sum_sq(Jt[k], m)
        D[k] = np.sqrt(s) if s > 0.0 else 1.0
    if not store_qr(b, S, m, n):
        return SINGULAR, it, res
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
                    s += Fb[k, i] * y[i]
                g[k] = s
            gs2 = 0.0
            for k in range(n):
                gs2 += (g[k] / D[k]) ** 2
            for k in range(n):  # d = -g / D^2
                x[k] = -g[k] / (D[k] * D[k])
            mul_r(Fb, n, x, pg)  # |R d|^2
            jd2 = sum_sq(pg, n)
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
        mul_r(Fb, n, p, pg)
        pred = 0.0
        for i in range(n):
            pred -= 2.0 * y[i] * pg[i] + pg[i] * pg[i]
        if pred <= STATIONARY_GAIN * f2:
            return STATIONARY, it, res
        for k in range(n):
            x[k] = q[c_param[c0 + k]]
            q[c_param[c0 + k]] += p[k]
        it += 1
        eval_block_in(b, q, T, W, rt, Jt, Jin, JAC)
        stats[0] += 1
        stats[1] += 1
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
                refactor(b, q, T, W, S, m, n)  # a fresh chord inverse for the next state
                stats[1] += 1
                return OK, it, res
            for k in range(n):
                D[k] = max(D[k], np.sqrt(sum_sq(Jt[k], m)))
            if not store_qr(b, S, m, n):
                return SINGULAR, it, res
        xn = 0.0
        for k in range(n):
            xn += (D[k] * q[c_param[c0 + k]]) ** 2
        if delta <= TRUST_MIN_RADIUS * (1.0 + np.sqrt(xn)):
            return NOT_CONVERGED, it, res
    return NOT_CONVERGED, it, res
