"""Positions and tangents of solved states: point copies in the chassis and world
frames, their derivatives, the unknowns' dq/du (for the batch metrics), and the
bodies' spread between three states (continuation's branch screen). Units: mm, rad.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.solve.kernel_eval import JAC, NO_JAC, eval_insts, eval_parts, eval_parts_only
from suspension_sim.solve.kernel_jit import njit, plain
from suspension_sim.solve.kernel_newton import refactor


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
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, NO_JAC)
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
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, NO_JAC)
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
    eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, JAC)
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
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, JAC)
        for n in range(P.shape[0]):
            nj = p_nj[i_part[n]]
            for r in range(3):
                P_out[s, n, r] = P[n, r]
                for j in range(dP.shape[1]):
                    dP_out[s, n, j, r] = dP[n, j, r] if j < nj else 0.0
        if not block_tangents(q, cols, T, W, S, T_out[s]):
            T_out[s, :, :] = np.nan


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
        eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, NO_JAC)
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
