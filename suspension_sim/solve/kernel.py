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
redundant joints work too). Single solves (`solve_single`) solve targets here
too, each block that carries targets bordered with their rows and its freed
inputs' columns (`solve_bordered`). Units: mm, rad.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from suspension_sim.cache import private_code_dir
from suspension_sim.solve.engine_codes import (
    BRANCH,
    JUMP_PARAM_FLOOR,
    JUMP_PARAM_RATIO,
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

_CODE_DIR = private_code_dir(f"numba-{numba.__version__}")
CACHED = _CODE_DIR is not None
"""True when compiled code is kept on disk (in a folder only this user can write), so only
the first process compiles; otherwise every process compiles once, in memory."""


def njit(func: Any, nrt: bool = True) -> Any:
    """numba.njit with the on-disk cache in our private folder, when there is one.

    error_model="numpy": a division by zero gives inf or NaN (which the callers test
    with isfinite and report as a non-finite residual) instead of raising from inside
    compiled code; without the zero checks on every division a batch solve is ~10 %
    faster, with bit-identical results."""
    options: dict[str, Any] = {"cache": CACHED, "_nrt": nrt, "error_model": "numpy"}
    if not CACHED:
        return numba.njit(**options)(func)
    config: Any = numba.config
    previous = config.CACHE_DIR
    config.CACHE_DIR = str(_CODE_DIR)  # read once, when the function's cache locator is made
    try:
        return numba.njit(**options)(func)
    finally:
        config.CACHE_DIR = previous


def plain(func: Any) -> Any:
    """`njit` without numba's reference counting, for the inner functions that allocate
    nothing: every array they take out of the tables' tuples (or slice) would otherwise
    cost an atomic increment and decrement per call, which was about a quarter of a
    batch solve's time."""
    return njit(func, nrt=False)


CHORD_REFRESH = 1.5e-2
"""A chord step that shrank the residual by less than this factor marks the stored
inverse as old: it is renewed at the state's solution for the next state. Tuned on a
500 Hz log of the example car (benchmarks/batch_bench.py): lower renews too often
(each renewal costs a Jacobian and an inversion, ~7 chord steps), higher lets the
chord steps contract slowly."""
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
MAX_CHORD_STEPS = 8
"""Chord steps (reused factorisation) before a fresh Jacobian is taken."""
BROYDEN_PAIRS = 6
"""Rank-one updates (Broyden's second method) on top of a bordered block's factorisation
in `solve_bordered`; past them its steps are plain chord steps."""


@plain
def turn(A, i, a0, a1, a2, th):
    """A[i, :, :3] <- A[i, :, :3] @ exp([a] th): Rodrigues' rotation about the unit
    axis a by th (rad), I + sin th [a] + (1 - cos th) [a]^2."""
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


@plain
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
                turn(A, i, a0, a1, a2, th)


@plain
def eval_parts_only(q, parts, p_nj, p_kind, p_axis, p_param, p_frame, A):
    """`eval_parts` without the joint screws (for residuals and positions alone)."""
    for idx in range(parts.shape[0]):
        i = parts[idx]
        for r in range(3):
            for c in range(4):
                A[i, r, c] = p_frame[i, r, c]
        for j in range(p_nj[i]):
            a0 = p_axis[i, j, 0]
            a1 = p_axis[i, j, 1]
            a2 = p_axis[i, j, 2]
            th = q[p_param[i, j]]
            if p_kind[i, j] == 1:
                for r in range(3):
                    A[i, r, 3] += (A[i, r, 0] * a0 + A[i, r, 1] * a1 + A[i, r, 2] * a2) * th
            else:
                turn(A, i, a0, a1, a2, th)


@plain
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


@plain
def eval_block(b, q, T, W, r, Jt, Jin, with_jac):
    """Residuals r (m_b) and, if asked, the transposed Jacobian Jt (n_b, m_b) and the
    input columns Jin (m_b, n_in) of block b.

    T: the model tables (see `engine.KernelTables.arrays`); W: work arrays. The
    Jacobian is stored transposed so that each column is contiguous for the QR.
    A row is one axis of a joined pair, P_b - P_a (kind 0), or the distance between
    the two ends of an eliminated two-point link, |P_b - P_a| - L + c q[k] (kind 1;
    c q[k] a damper's stroke), whose Jacobian entries are scaled by the unit vector
    along the link; an entry without a point copy (inst < 0) is the constant c.
    """
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    r_ptr, r_a, r_b, r_axis = T[9], T[10], T[11], T[12]
    pa_ptr, pa_idx, in_ptr, in_idx = T[13], T[14], T[15], T[16]
    r_kind, r_len, r_coef, r_par = T[24], T[25], T[26], T[27]
    A, tw_w, tw_o, P, dP, U = W[0], W[1], W[2], W[3], W[4], W[5]
    if with_jac:
        eval_parts(
            q,
            pa_idx[pa_ptr[b] : pa_ptr[b + 1]],
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
            q, pa_idx[pa_ptr[b] : pa_ptr[b + 1]], p_nj, p_kind, p_axis, p_param, p_frame, A
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
        ia = r_a[r0 + k]
        ib = r_b[r0 + k]
        if r_kind[r0 + k] == 0:
            ax = r_axis[r0 + k]
            r[k] = P[ib, ax] - P[ia, ax]
        else:
            d0 = P[ib, 0] - P[ia, 0]
            d1 = P[ib, 1] - P[ia, 1]
            d2 = P[ib, 2] - P[ia, 2]
            ln = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            v = ln - r_len[r0 + k]
            if r_par[r0 + k] >= 0:
                v += r_coef[r0 + k] * q[r_par[r0 + k]]
            r[k] = v
            U[k, 0] = d0 / ln
            U[k, 1] = d1 / ln
            U[k, 2] = d2 / ln
    if with_jac:
        block_entries(b, T, W, Jt, Jin)


@plain
def block_entries(b, T, W, Jt, Jin):
    """Block b's transposed Jacobian Jt (n_b, m_b) and input columns Jin (m_b, n_in) from
    the point derivatives dP and the distance rows' unit vectors U already in W (an
    evaluation with derivatives at the state)."""
    c_ptr, r_ptr, r_kind = T[7], T[9], T[24]
    e_ptr, e_row, e_col, e_inst, e_slot, e_axis, e_sign = T[17:24]
    dP, U = W[4], W[5]
    r0 = r_ptr[b]
    m = r_ptr[b + 1] - r0
    n = c_ptr[b + 1] - c_ptr[b]
    Jt[:n, :m] = 0.0
    Jin[:m, :] = 0.0
    for e in range(e_ptr[b], e_ptr[b + 1]):
        row = e_row[e]
        if e_inst[e] < 0:
            v = e_sign[e]
        else:
            v = e_sign[e] * dP[e_inst[e], e_slot[e], e_axis[e]]
            if r_kind[r0 + row] != 0:
                v *= U[row, e_axis[e]]
        col = e_col[e]
        if col >= 0:
            Jt[col, row] += v
        else:
            Jin[row, -col - 1] += v


@plain
def link_rows(b, q, T, W):
    """Largest |residual| (mm) of block b's rows as the model has them, after its links
    were rebuilt: its axis rows (from P of its last evaluation) and every model row that
    involves a copy on one of its links (those links evaluated here). Every other row
    of the model is an axis row of its block."""
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    r_ptr, r_a, r_b, r_axis, r_kind = T[9], T[10], T[11], T[12], T[24]
    k_ptr, k_a, k_b, k_axis = T[33], T[34], T[35], T[36]
    kp_ptr, kp_idx, ki_ptr, ki_idx = T[37], T[38], T[39], T[40]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    worst = 0.0
    for k in range(r_ptr[b], r_ptr[b + 1]):
        if r_kind[k] == 0:
            v = abs(P[r_b[k], r_axis[k]] - P[r_a[k], r_axis[k]])
            if not v <= worst:
                worst = v
    eval_parts_only(q, kp_idx[kp_ptr[b] : kp_ptr[b + 1]], p_nj, p_kind, p_axis, p_param, p_frame, A)
    insts = ki_idx[ki_ptr[b] : ki_ptr[b + 1]]
    eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, False)
    for k in range(k_ptr[b], k_ptr[b + 1]):
        v = abs(P[k_b[k], k_axis[k]] - P[k_a[k], k_axis[k]])
        if not v <= worst:
            worst = v
    return worst


@plain
def rebuild_links(b, q, T, W):
    """Set the parameters of block b's eliminated two-point links in q from their ends'
    positions P (of the block's last evaluation at q): a link's frame F has its origin at
    end a and z towards end b at design, its chain is translations (link5 only) then
    rotations about local x then y, so with v = F_R^T (P_b - P_a):
    angle_y = atan2(v_x, |v_yz|), angle_x = atan2(-v_y, v_z) and d = F_R^T (P_a - F_t)."""
    p_param, p_frame = T[3], T[4]
    x_ptr, x_part, x_kind, x_a, x_b = T[28], T[29], T[30], T[31], T[32]
    P = W[3]
    for x in range(x_ptr[b], x_ptr[b + 1]):
        i = x_part[x]
        a = x_a[x]
        e = x_b[x]
        v0 = 0.0
        v1 = 0.0
        v2 = 0.0
        for r in range(3):
            d = P[e, r] - P[a, r]
            v0 += p_frame[i, r, 0] * d
            v1 += p_frame[i, r, 1] * d
            v2 += p_frame[i, r, 2] * d
        first = 0
        if x_kind[x] == 0:  # link5: dx, dy, dz of end a, then the two angles
            for c in range(3):
                t = 0.0
                for r in range(3):
                    t += p_frame[i, r, c] * (P[a, r] - p_frame[i, r, 3])
                q[p_param[i, c]] = t
            first = 3
        q[p_param[i, first]] = np.arctan2(-v1, v2)
        q[p_param[i, first + 1]] = np.arctan2(v0, np.sqrt(v1 * v1 + v2 * v2))


@plain
def qr_factor(Ft, m, n, tau):
    """Householder QR of J (m >= n) given as Ft = J^T (n rows of m), in place.

    Afterwards R[i, k] = Ft[k, i] (i <= k) and the Householder vectors are
    stored after the diagonal of each row. Returns min |R_ii| / max column
    norm (0 for a rank-deficient block).
    """
    big = 0.0
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += Ft[j, i] * Ft[j, i]
        big = max(big, np.sqrt(s))
    small = np.inf
    for j in range(n):
        norm = 0.0
        for i in range(j, m):
            norm += Ft[j, i] * Ft[j, i]
        norm = np.sqrt(norm)
        if norm == 0.0:
            tau[j] = 0.0
            small = 0.0
            continue
        alpha = -norm if Ft[j, j] >= 0.0 else norm
        v0 = Ft[j, j] - alpha
        # v = (1, Ft[j, j+1:] / v0); tau = -v0 / alpha
        inv = 1.0 / v0
        for i in range(j + 1, m):
            Ft[j, i] *= inv
        tj = -v0 / alpha
        tau[j] = tj
        Ft[j, j] = alpha
        small = min(small, abs(alpha))
        for k in range(j + 1, n):
            s = Ft[k, j]
            for i in range(j + 1, m):
                s += Ft[j, i] * Ft[k, i]
            s *= tj
            Ft[k, j] -= s
            for i in range(j + 1, m):
                Ft[k, i] -= s * Ft[j, i]
    if big == 0.0:
        return 0.0
    return small / big


@plain
def apply_qt(Ft, tau, m, n, y):
    """y <- Q^T y for the factorisation in Ft (y has m entries)."""
    for j in range(n):
        s = y[j]
        for i in range(j + 1, m):
            s += Ft[j, i] * y[i]
        s *= tau[j]
        y[j] -= s
        for i in range(j + 1, m):
            y[i] -= s * Ft[j, i]


@plain
def solve_r(Ft, n, y, out):
    """out <- R^-1 y[:n] (back substitution by columns of R = rows of Ft)."""
    for i in range(n):
        out[i] = y[i]
    for k in range(n - 1, -1, -1):
        out[k] /= Ft[k, k]
        v = out[k]
        for i in range(k):
            out[i] -= Ft[k, i] * v


@plain
def mul_r(Ft, n, x, out):
    """out <- R x (n entries)."""
    for i in range(n):
        out[i] = 0.0
    for k in range(n):
        v = x[k]
        for i in range(k + 1):
            out[i] += Ft[k, i] * v


@plain
def max_abs(v, m):
    out = 0.0
    for i in range(m):
        a = abs(v[i])
        if not a <= out:  # also catches NaN
            out = a
    return out


@plain
def sum_sq(v, m):
    out = 0.0
    for i in range(m):
        out += v[i] * v[i]
    return out


@plain
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


@plain
def invert(Jt, n, piv, B):
    """B <- J^-1 for a square J given as Jt = J^T (n x n): Gauss-Jordan in place with
    partial pivoting (n^3 flops; the row swaps are undone as column swaps at the end).
    piv: integer scratch of length >= n. Returns min |pivot| / max column norm (0 when
    singular)."""
    big = 0.0
    for k in range(n):
        s = 0.0
        for i in range(n):
            s += Jt[k, i] * Jt[k, i]
            B[i, k] = Jt[k, i]
        big = max(big, np.sqrt(s))
    small = np.inf
    for c in range(n):
        p = c
        best = abs(B[c, c])
        for i in range(c + 1, n):
            if abs(B[i, c]) > best:
                best = abs(B[i, c])
                p = i
        if best == 0.0 or not np.isfinite(best):
            return 0.0
        piv[c] = p
        if p != c:
            for k in range(n):
                t = B[c, k]
                B[c, k] = B[p, k]
                B[p, k] = t
        small = min(small, best)
        inv = 1.0 / B[c, c]
        B[c, c] = 1.0
        for k in range(n):
            B[c, k] *= inv
        for i in range(n):
            if i == c:
                continue
            f = B[i, c]
            if f == 0.0:
                continue
            B[i, c] = 0.0
            for k in range(n):
                B[i, k] -= f * B[c, k]
    for c in range(n - 1, -1, -1):
        p = piv[c]
        if p != c:
            for i in range(n):
                t = B[i, c]
                B[i, c] = B[i, p]
                B[i, p] = t
    if big == 0.0:
        return 0.0
    return small / big


@plain
def refactor(b, q, T, W, S, m, n):
    """Block b's chord inverse B (J^-1, or R^-1 Q^T for a tall block) and input columns
    at q, for the next chord steps and predictions. Returns True when usable."""
    eval_block(b, q, T, W, S[5], S[6], S[7], True)
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


@plain
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
    eval_block(b, q, T, W, r, Jt, Jin, False)
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
            eval_block(b, q, T, W, rt, Jt, Jin, False)
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
    eval_block(b, q, T, W, r, Jt, Jin, True)
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
        eval_block(b, q, T, W, rt, Jt, Jin, True)
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


@plain
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


@plain
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


@plain
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
            q[:] = q_good
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
            Pr[ps, :] = q
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
                        eval_block(b, q, T, W, S[5], S[6], S[7], False)
                    rebuild_links(b, q, T, W)
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
        Q[s, :] = q
        iters[s] = it_max
        res[s] = worst
        status[s] = st
        if st == OK:
            q_good[:] = q
            u_good[:] = U[s]
            for h in range(nc - 1, 0, -1):
                Qh[h, :] = Qh[h - 1]
                Uh[h, :] = Uh[h - 1]
            Qh[0, :] = q
            Uh[0, :] = U[s]
            nh += 1
        else:
            have[:] = False
            Eok[:] = False
            nh = 0


@plain
def world_points(Q, T, W, parts, insts, order, starts, R, t, out):
    """World-frame points of the states Q (N, n_params): out (N, n_points, 3), mm, each
    point the mean of its copies (order: copies grouped by point, point k's copies at
    order[starts[k]:starts[k + 1]]), moved by the chassis rotations R (N, 3, 3) and
    translations t (N, 3)."""
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    for s in range(Q.shape[0]):
        eval_parts_only(Q[s], parts, p_nj, p_kind, p_axis, p_param, p_frame, A)
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, False)
        for k in range(starts.shape[0] - 1):
            x0 = 0.0
            x1 = 0.0
            x2 = 0.0
            for c in range(starts[k], starts[k + 1]):
                n = order[c]
                x0 += P[n, 0]
                x1 += P[n, 1]
                x2 += P[n, 2]
            w = 1.0 / (starts[k + 1] - starts[k])
            x0 *= w
            x1 *= w
            x2 *= w
            for r in range(3):
                out[s, k, r] = R[s, r, 0] * x0 + R[s, r, 1] * x1 + R[s, r, 2] * x2 + t[s, r]


@njit
def chassis_points(Q, T, W, parts, insts, out):
    """Chassis-frame position of every point copy for the states Q (N, n_params):
    out (N, n_inst, 3), mm. parts/insts: every part and copy index."""
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    for s in range(Q.shape[0]):
        eval_parts_only(Q[s], parts, p_nj, p_kind, p_axis, p_param, p_frame, A)
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, False)
        for n in range(P.shape[0]):
            for r in range(3):
                out[s, n, r] = P[n, r]


@njit
def block_tangents(q, cols, T, W, S, out):
    """dq/du of every unknown for the input columns `cols` at the closed state q:
    out (n_params, len(cols)) gets -B Jin[:, cols] per block, with each block's inverse
    B renewed at q (`refactor`: J^-1, or R^-1 Q^T for a tall block; it then serves the
    next prediction too). Returns False if a block is singular there."""
    c_ptr, c_param, r_ptr = T[7], T[8], T[9]
    B, Jin = S[19], S[7]
    n_blocks = c_ptr.shape[0] - 1
    out[:, :] = 0.0
    for b in range(n_blocks):
        m = r_ptr[b + 1] - r_ptr[b]
        n = c_ptr[b + 1] - c_ptr[b]
        if n == 0:
            continue
        if not refactor(b, q, T, W, S, m, n):
            return False
        for j in range(cols.shape[0]):
            c = cols[j]
            for k in range(n):
                v = 0.0
                for i in range(m):
                    v -= B[b, k, i] * Jin[i, c]
                out[c_param[c_ptr[b] + k], j] = v
    return True


@njit
def points_and_slopes(q, T, W, parts, insts, P_out, dP_out):
    """Chassis-frame positions P_out (len(insts), 3) and PoE derivatives dP_out
    (len(insts), K, 3) of the point copies `insts` at q (their parts listed in `parts`)."""
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    eval_parts(q, parts, p_nj, p_kind, p_axis, p_param, p_frame, A, tw_w, tw_o)
    eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, True)
    for a in range(insts.shape[0]):
        n = insts[a]
        for r in range(3):
            P_out[a, r] = P[n, r]
            for j in range(dP.shape[1]):
                dP_out[a, j, r] = dP[n, j, r]


@njit
def batch_tangents(Q, cols, T, W, S, parts, insts, P_out, dP_out, T_out):
    """For states Q (N, n_params): point copies P_out (N, n_inst, 3), their PoE
    derivatives dP_out (N, n_inst, K, 3; unused slots 0) and the unknowns' dq/du for the
    input columns `cols`, T_out (N, n_params, len(cols)) (`block_tangents`; NaN for a
    state with a singular block)."""
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    for s in range(Q.shape[0]):
        q = Q[s]
        eval_parts(q, parts, p_nj, p_kind, p_axis, p_param, p_frame, A, tw_w, tw_o)
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, True)
        for n in range(P.shape[0]):
            nj = p_nj[i_part[n]]
            for r in range(3):
                P_out[s, n, r] = P[n, r]
                for j in range(dP.shape[1]):
                    dP_out[s, n, j, r] = dP[n, j, r] if j < nj else 0.0
        if not block_tangents(q, cols, T, W, S, T_out[s]):
            T_out[s, :, :] = np.nan


# -- single solves, with targets solved inside the kernel -----------------------------------
@plain
def block_touched(b, du, T):
    """True when an input that changed (du != 0) has a Jacobian entry in block b."""
    e_ptr, e_col = T[17], T[19]
    for e in range(e_ptr[b], e_ptr[b + 1]):
        col = e_col[e]
        if col < 0 and du[-col - 1] != 0.0:
            return True
    return False


@njit
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


@njit
def small_inverse(M, k, out):
    """out <- M^-1 for a small k x k M (Gauss-Jordan, partial pivoting). Returns
    min |pivot| / max |M| (0 when singular)."""
    big = 0.0
    for i in range(k):
        for c in range(k):
            big = max(big, abs(M[i, c]))
    A = M[:k, :k].copy()
    for i in range(k):
        for c in range(k):
            out[i, c] = 1.0 if i == c else 0.0
    small = np.inf
    for c in range(k):
        p = c
        for i in range(c + 1, k):
            if abs(A[i, c]) > abs(A[p, c]):
                p = i
        piv = A[p, c]
        if piv == 0.0 or not np.isfinite(piv):
            return 0.0
        small = min(small, abs(piv))
        for x in range(k):
            t = A[c, x]
            A[c, x] = A[p, x]
            A[p, x] = t
            t = out[c, x]
            out[c, x] = out[p, x]
            out[p, x] = t
        inv = 1.0 / piv
        for x in range(k):
            A[c, x] *= inv
            out[c, x] *= inv
        for i in range(k):
            if i == c:
                continue
            f = A[i, c]
            if f == 0.0:
                continue
            for x in range(k):
                A[i, x] -= f * A[c, x]
                out[i, x] -= f * out[c, x]
    if big == 0.0:
        return 0.0
    return small / big


@plain
def lu_factor(Jt, n, LU, piv):
    """LU <- the LU factorisation with partial pivoting of the square J given as Jt = J^T
    (n^3/3 flops, a third of `invert`). Returns min |pivot| / max column norm (0 when
    singular)."""
    big = 0.0
    for c in range(n):
        s = 0.0
        for i in range(n):
            v = Jt[c, i]
            s += v * v
            LU[i, c] = v
        big = max(big, np.sqrt(s))
    small = np.inf
    for c in range(n):
        p = c
        best = abs(LU[c, c])
        for i in range(c + 1, n):
            if abs(LU[i, c]) > best:
                best = abs(LU[i, c])
                p = i
        if best == 0.0 or not np.isfinite(best):
            return 0.0
        piv[c] = p
        if p != c:
            for x in range(n):
                t = LU[c, x]
                LU[c, x] = LU[p, x]
                LU[p, x] = t
        small = min(small, best)
        inv = 1.0 / LU[c, c]
        for i in range(c + 1, n):
            f = LU[i, c] * inv
            LU[i, c] = f
            if f != 0.0:
                for x in range(c + 1, n):
                    LU[i, x] -= f * LU[c, x]
    if big == 0.0:
        return 0.0
    return small / big


@plain
def lu_solve(LU, piv, n, out):
    """out <- J^-1 out for the factorisation of `lu_factor`."""
    for c in range(n):
        p = piv[c]
        if p != c:
            t = out[c]
            out[c] = out[p]
            out[p] = t
    for i in range(n):
        s = out[i]
        for x in range(i):
            s -= LU[i, x] * out[x]
        out[i] = s
    for i in range(n - 1, -1, -1):
        s = out[i]
        for x in range(i + 1, n):
            s -= LU[i, x] * out[x]
        out[i] = s / LU[i, i]


@njit
def border_factor(b, q, T, W, S, TT, n, k, LU, piv, Z, G, Sinv, r, gv):
    """Factorise square block b bordered with its targets at q: the block's LU, Z = J^-1 Ja
    (Ja: the freed inputs' columns), the target rows G and the inverse of the Schur
    complement Gu - Gq Z. Leaves the residuals in r and gv. True when usable."""
    Jt, Jin = S[6], S[7]
    eval_block(b, q, T, W, r, Jt, Jin, True)
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
    eval_targets(b, q, T, W, TT, gv, G, True)
    Sm = np.empty((k, k))
    for a in range(k):
        for c in range(k):
            v = G[a, n + c]
            for x in range(n):
                v -= G[a, x] * Z[x, c]
            Sm[a, c] = v
    return small_inverse(Sm, k, Sinv) > SINGULAR_PIVOT_RATIO


@njit
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


@njit
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


@njit
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
        eval_block(b, q, T, W, rt, Jt, Jin, False)
        eval_targets(b, q, T, W, TT, gt, G, False)
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
                    eval_block(b, q, T, W, rt, Jt, Jin, False)
                    eval_targets(b, q, T, W, TT, gt, G, False)
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
    pred[:] = q
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
            eval_block(b, q, T, W, S[4], S[6], S[7], False)
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


@njit
def body_spread(Q, T, W, parts, insts, inst_body, ratio, floor, memo_q, memo_P, out):
    """For three parameter rows Q (3, n_params): per body, the largest distance between
    the same point copy in rows 1 and 0, 2 and 0, 2 and 1, out (n_bodies, 3) (chassis
    frame, mm): what continuation's branch screen compares (`_body_distances`).

    Only the copies `insts` (on the moving `parts`) are placed: a body with none keeps
    0. Returns True when every body's distance between rows 2 and 1 is at most
    ratio * its distance between rows 1 and 0 + floor (the screen's pass). memo_q
    (n_params + 1,), memo_P (n_inst, 3): the last call's row 2 and its copies, reused
    for row 0 when that is the same state (a sweep's step starts where the last one
    ended); memo_q[-1] = 1 once they are set. T: the first 7 table arrays suffice."""
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    n_inst = insts.shape[0]
    n_par = Q.shape[1]
    P3 = np.empty((3, n_inst, 3))
    same = memo_q[n_par] == 1.0
    for j in range(n_par):
        if not same:
            break
        same = memo_q[j] == Q[0, j]
    for s in range(3):
        if s == 0 and same:
            for idx in range(n_inst):
                for r in range(3):
                    P3[0, idx, r] = memo_P[insts[idx], r]
            continue
        eval_parts_only(Q[s], parts, p_nj, p_kind, p_axis, p_param, p_frame, A)
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, False)
        for idx in range(n_inst):
            for r in range(3):
                P3[s, idx, r] = P[insts[idx], r]
    for idx in range(n_inst):
        for r in range(3):
            memo_P[insts[idx], r] = P3[2, idx, r]
    for j in range(n_par):
        memo_q[j] = Q[2, j]
    memo_q[n_par] = 1.0
    out[:, :] = 0.0
    for idx in range(n_inst):
        b = inst_body[insts[idx]]
        for col in range(3):
            a = 1 if col == 0 else 2
            c = 1 if col == 2 else 0
            d0 = P3[a, idx, 0] - P3[c, idx, 0]
            d1 = P3[a, idx, 1] - P3[c, idx, 1]
            d2 = P3[a, idx, 2] - P3[c, idx, 2]
            d = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            if d > out[b, col] or d != d:  # a NaN stays (as numpy's maximum keeps it)
                out[b, col] = d
    clear = True
    for b in range(out.shape[0]):
        clear = clear and out[b, 2] <= ratio * out[b, 0] + floor
    return clear
