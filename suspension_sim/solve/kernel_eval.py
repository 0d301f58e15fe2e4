"""Evaluation: part transforms, point copies, a block's residuals and Jacobian.

Each part's product of exponentials is evaluated directly from its joint signature
(kind R/P and canonical local axis per joint): starting from the part's frame F,
``A <- A @ exp([S_j] t_j)`` for each joint j. The prefix before joint j gives that
joint's screw in the chassis frame (axis ``w = R_A a_j`` through ``o = t_A``, or
direction ``R_A a_j`` for a prismatic joint), so the derivative of a point p is
``w x (p - o)`` or that direction. The numpy reference path
(`KinematicModel.evaluate_state`, with the shipped sympy templates) is the
independent check of this code. Also the eliminated two-point links: their
coordinates rebuilt from their ends (`rebuild_links`) and the rows they carry
(`link_rows`). Units: mm, rad.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.solve.kernel_jit import inner_plain, plain

JAC = np.True_
NO_JAC = np.False_
"""The `with_jac` arguments of `eval_block`, `eval_insts` and `eval_targets`: numpy bools,
typed as a run-time bool. A literal True or False would be typed as a constant and
compile each of them twice (once per value), for no measurable gain at run time."""


@inner_plain
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


@inner_plain
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


@inner_plain
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


@inner_plain
def eval_block_in(b, q, T, W, r, Jt, Jin, with_jac):
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


@inner_plain
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


@inner_plain
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
    eval_insts(insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, NO_JAC)
    for k in range(k_ptr[b], k_ptr[b + 1]):
        v = abs(P[k_b[k], k_axis[k]] - P[k_a[k], k_axis[k]])
        if not v <= worst:
            worst = v
    return worst


@inner_plain
def rebuild_links_in(b, q, T, W):
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
def eval_block(b, q, T, W, r, Jt, Jin, with_jac):
    """`eval_block_in`, callable from Python (tests): the kernel's own calls go to
    `eval_block_in`, which has no Python wrapper (unboxing the tables' tuples costs
    ~0.3 s of compile), so this one is compiled only when Python calls it."""
    eval_block_in(b, q, T, W, r, Jt, Jin, with_jac)


@plain
def rebuild_links(b, q, T, W):
    """`rebuild_links_in`, callable from Python (tests; see `eval_block`)."""
    rebuild_links_in(b, q, T, W)
