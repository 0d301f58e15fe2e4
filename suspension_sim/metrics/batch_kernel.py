"""Compiled (numba) kinematics for `metrics.batch`: what the metric formulas need, per state.

For each closed state q this computes, in one pass without Python:

* the chassis-frame position of every point copy (``kernel.eval_parts`` /
  ``kernel.eval_insts``);
* the input tangents dq/du block by block of the engine plan: one Jacobian
  (`block_jacobian`, row by row from the joint screws) and one factorisation per block (LU for a
  square block, Householder QR for a tall one), solved only for the input
  columns that have entries in that block (the others are exactly 0);
* the wheel tangents ``W = T (B T)^-1`` (B the wheel-centre travel rows and
  the rack row, as `metrics.batch.wheel_tangents`), the velocities of the
  wheel centres and axis points along them, and the damper parameters' rows;
* the twists (w, v) of the wheel carriers along those tangents, from the
  joint screws of the kernel's product of exponentials: a revolute joint
  with axis w through o adds ``(w, o x w) rate``, a prismatic one
  ``(0, direction) rate`` (chassis frame, v the velocity of the body point
  at the chassis origin).

The numpy path of `metrics.batch` (``model.evaluate_state``,
``model.part_transforms``, batched LAPACK) is the reference; tests compare
the two on every example car. A state with a singular block or travel
system is flagged (``ok = 0``) and recomputed there. Compiled code is kept in
the kernel's private on-disk cache (`solve.kernel.njit`): compiled once per
user. Units: mm, rad.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from suspension_sim.solve.kernel import (
    JAC,
    NO_JAC,
    apply_qt,
    eval_insts,
    eval_parts,
    lu_factor,
    lu_solve,
    njit,
    plain,
    qr_factor,
    solve_r,
)
from suspension_sim.tolerances import SINGULAR_PIVOT_RATIO

NO_COLUMN = -(1 << 40)
"""`param_columns` entry of a parameter that is neither a block unknown nor an input
(held fixed: it has no Jacobian column)."""


@plain
def block_jacobian(b, T, W, pcol, Jt, Jin):
    """Transposed Jacobian Jt (n_b, m_b) and input columns Jin (m_b, n_in) of block b,
    with every part's transform and joint screws already in W (`kernel.eval_parts` at q).

    The same rows and entries as `kernel.eval_block`, computed row by row from the
    joint screws: an axis row's entry for joint j of the part carrying point p is that
    axis of ``w_j x (p - o_j)`` (revolute) or of ``w_j`` (prismatic), a distance row's
    the same vectors dotted with the row's unit vector, plus its stroke coefficient.
    No per-copy derivative array is filled (cheaper than `kernel.eval_block`, whose
    derivatives the solver keeps for other uses). pcol: each parameter's column, its
    local index in its block (>= 0) or -1 - its input index; `NO_COLUMN` if fixed."""
    p_nj, p_kind, p_param, i_part, i_local = T[0], T[1], T[3], T[5], T[6]
    c_ptr, r_ptr, r_a, r_b, r_axis = T[7], T[9], T[10], T[11], T[12]
    in_ptr, in_idx = T[15], T[16]
    r_kind, r_coef, r_par = T[24], T[26], T[27]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
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
        NO_JAC,
    )
    r0 = r_ptr[b]
    m = r_ptr[b + 1] - r0
    n = c_ptr[b + 1] - c_ptr[b]
    Jt[:n, :m] = 0.0
    Jin[:m, :] = 0.0
    for k in range(m):
        row = r0 + k
        ia = r_a[row]
        ib = r_b[row]
        ax = r_axis[row]
        axis_row = r_kind[row] == 0
        u0 = 0.0
        u1 = 0.0
        u2 = 0.0
        if not axis_row:  # |P_b - P_a| - L + c q: the unit vector from a to b
            u0 = P[ib, 0] - P[ia, 0]
            u1 = P[ib, 1] - P[ia, 1]
            u2 = P[ib, 2] - P[ia, 2]
            ln = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
            u0 /= ln
            u1 /= ln
            u2 /= ln
            if r_par[row] >= 0:
                col = pcol[r_par[row]]
                if col >= 0:
                    Jt[col, k] += r_coef[row]
                elif col != NO_COLUMN:
                    Jin[k, -col - 1] += r_coef[row]
        for end in range(2):
            pt = ib if end == 0 else ia
            sign = 1.0 if end == 0 else -1.0
            i = i_part[pt]
            for j in range(p_nj[i]):
                col = pcol[p_param[i, j]]
                if col == NO_COLUMN:
                    continue
                w0 = tw_w[i, j, 0]
                w1 = tw_w[i, j, 1]
                w2 = tw_w[i, j, 2]
                if p_kind[i, j] != 1:  # revolute: w x (p - o)
                    d0 = P[pt, 0] - tw_o[i, j, 0]
                    d1 = P[pt, 1] - tw_o[i, j, 1]
                    d2 = P[pt, 2] - tw_o[i, j, 2]
                    x0 = w1 * d2 - w2 * d1
                    x1 = w2 * d0 - w0 * d2
                    w2 = w0 * d1 - w1 * d0
                    w0 = x0
                    w1 = x1
                if axis_row:
                    v = w0 if ax == 0 else (w1 if ax == 1 else w2)
                else:
                    v = w0 * u0 + w1 * u1 + w2 * u2
                if col >= 0:
                    Jt[col, k] += sign * v
                else:
                    Jin[k, -col - 1] += sign * v


def param_columns(
    c_ptr: np.ndarray, c_param: np.ndarray, inputs: np.ndarray, n_params: int
) -> np.ndarray:
    """`block_jacobian`'s pcol: each parameter's local column in its block, -1 - its
    input index for an input, `NO_COLUMN` for a parameter held fixed."""
    pcol = np.full(n_params, NO_COLUMN, dtype=np.int64)
    for b in range(len(c_ptr) - 1):
        pcol[c_param[c_ptr[b] : c_ptr[b + 1]]] = np.arange(c_ptr[b + 1] - c_ptr[b])
    pcol[inputs] = -1 - np.arange(len(inputs))
    return pcol


@plain
def input_tangents_at(T, W, pcol, Jt, Jin, inputs, bc_ptr, bc_idx, LU, piv, x, y, Ft, tau, Tq):
    """Tq (n_params, n_in) <- dq/du at the closed state q, block by block.

    Each block: -J^-1 Jin[:, c] (LU) or its least-squares solution (QR, a tall
    block) for the input columns c with entries in it (bc_idx[bc_ptr[b]:...]).
    Every part must be evaluated at q in W first (`kernel.eval_parts`).
    Returns False when a block is singular (pivot ratio <= SINGULAR_PIVOT_RATIO).
    """
    c_ptr, c_param, r_ptr = T[7], T[8], T[9]
    Tq[:, :] = 0.0
    for c in range(inputs.shape[0]):
        Tq[inputs[c], c] = 1.0
    for b in range(c_ptr.shape[0] - 1):
        m = r_ptr[b + 1] - r_ptr[b]
        n = c_ptr[b + 1] - c_ptr[b]
        if n == 0:
            continue
        block_jacobian(b, T, W, pcol, Jt, Jin)
        square = m == n
        if square:
            if not lu_factor(Jt, n, LU, piv) > SINGULAR_PIVOT_RATIO:
                return False
        else:
            for k in range(n):
                for i in range(m):
                    Ft[k, i] = Jt[k, i]
            if not qr_factor(Ft, m, n, tau) > SINGULAR_PIVOT_RATIO:
                return False
        for e in range(bc_ptr[b], bc_ptr[b + 1]):
            c = bc_idx[e]
            if square:
                for i in range(m):
                    x[i] = -Jin[i, c]
                lu_solve(LU, piv, n, x)
            else:
                for i in range(m):
                    y[i] = -Jin[i, c]
                apply_qt(Ft, tau, m, n, y)
                solve_r(Ft, n, y, x)
            for k in range(n):
                Tq[c_param[c_ptr[b] + k], c] = x[k]
    return True


@plain
def add_velocity(n, T, dP, Wt, col, out):
    """out (3,) <- velocity of point copy n along the tangent column Wt[:, col]."""
    p_nj, p_param, i_part = T[0], T[3], T[5]
    i = i_part[n]
    for a in range(3):
        out[a] = 0.0
    for j in range(p_nj[i]):
        rate = Wt[p_param[i, j], col]
        for a in range(3):
            out[a] += dP[n, j, a] * rate


@plain
def add_twist(i, T, W, dq, col, out):
    """out (6,) <- twist (w, v) of part i along dq[:, col], chassis frame (v: the body
    point at the chassis origin)."""
    p_nj, p_kind, p_param = T[0], T[1], T[3]
    tw_w, tw_o = W[1], W[2]
    for a in range(6):
        out[a] = 0.0
    for j in range(p_nj[i]):
        rate = dq[p_param[i, j], col]
        w0 = tw_w[i, j, 0]
        w1 = tw_w[i, j, 1]
        w2 = tw_w[i, j, 2]
        if p_kind[i, j] == 1:
            out[3] += w0 * rate
            out[4] += w1 * rate
            out[5] += w2 * rate
        else:
            o0 = tw_o[i, j, 0]
            o1 = tw_o[i, j, 1]
            o2 = tw_o[i, j, 2]
            out[0] += w0 * rate
            out[1] += w1 * rate
            out[2] += w2 * rate
            out[3] += (o1 * w2 - o2 * w1) * rate
            out[4] += (o2 * w0 - o0 * w2) * rate
            out[5] += (o0 * w1 - o1 * w0) * rate


@njit
def metric_kinematics(
    Q,
    T,
    W,
    inputs,
    pcol,
    bc_ptr,
    bc_idx,
    parts,
    insts,
    rest_insts,
    vel_insts,
    wheel,
    dampers,
    w_params,
    flags,
    scratch,
    P_out,
    vC_out,
    vA_out,
    Wd_out,
    tw_out,
    ok,
):
    """Positions, wheel tangents, velocities and carrier twists of the states Q (N, n_params).

    wheel: (3, n_w) int: centre copy, axis-point copy, carrier part of each wheel;
    dampers: the damper parameters; w_params: the parameters whose wheel tangents are
    needed (the carriers' and the dampers'). flags: (has_rack,
    tangents, steer, twists, velocities): tangents = the wheel tangents, the dampers'
    rows Wd_out (N, n_d, nv) and, with velocities, the wheel centres' and axis points'
    velocities (vC_out, vA_out (N, n_w, nv, 3); else left unset); steer = the carriers'
    twist per mm of rack with the strokes held in tw_out[:, :, :, 0]; twists =
    their twists along the wheel tangents in the next nv columns. parts: the parts to
    evaluate (every part when tangents or steer are asked); P_out (N, len(insts), 3): the
    positions of the copies `insts`; rest_insts: those of them that the tangents'
    block evaluations do not place (all of them when no tangent is asked).
    ok[s] = 0 where a block or the travel system is singular (outputs then unset).
    """
    p_nj, p_kind, p_axis, p_param, p_frame, i_part, i_local = T[:7]
    A, tw_w, tw_o, P, dP = W[0], W[1], W[2], W[3], W[4]
    LU, piv, x, y, Ft, tau, Tq, V, X, Wt, piv2, vec, Jt, Jin = scratch
    has_rack, tangents, steer, twists, velocities = flags[0], flags[1], flags[2], flags[3], flags[4]
    n_w = wheel.shape[1]
    n_d = Wd_out.shape[1]
    n_in = inputs.shape[0]
    nv = n_w + (1 if has_rack else 0)
    for s in range(Q.shape[0]):
        q = Q[s]
        ok[s] = 1
        need_t = JAC if (tangents or steer) else NO_JAC  # one type: eval_insts compiled once
        eval_parts(q, parts, p_nj, p_kind, p_axis, p_param, p_frame, A, tw_w, tw_o)
        if need_t and not input_tangents_at(
            T, W, pcol, Jt, Jin, inputs, bc_ptr, bc_idx, LU, piv, x, y, Ft, tau, Tq
        ):
            ok[s] = 0
            continue
        eval_insts(rest_insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, NO_JAC)
        eval_insts(vel_insts, i_part, i_local, p_nj, p_kind, A, tw_w, tw_o, P, dP, need_t)
        for k in range(insts.shape[0]):
            n = insts[k]
            for a in range(3):
                P_out[s, k, a] = P[n, a]
        if steer:
            for w in range(n_w):
                add_twist(wheel[2, w], T, W, Tq, n_in - 1, vec)
                for a in range(6):
                    tw_out[s, w, a, 0] = vec[a]
        if not tangents:
            continue
        # B T: d travel / d u (rows: wheels, then the rack), solved for W = T (B T)^-1.
        for i in range(n_w):
            n = wheel[0, i]
            k = i_part[n]
            for c in range(n_in):
                v = 0.0
                for j in range(p_nj[k]):
                    v += dP[n, j, 2] * Tq[p_param[k, j], c]
                V[c, i] = v  # stored transposed, as lu_factor takes it
        if has_rack:
            for c in range(n_in):
                V[c, n_w] = 0.0
            V[n_in - 1, n_w] = 1.0
        if not lu_factor(V, nv, X, piv2) > SINGULAR_PIVOT_RATIO:
            ok[s] = 0
            continue
        for col in range(nv):
            for i in range(nv):
                x[i] = 0.0
            x[col] = 1.0
            lu_solve(X, piv2, nv, x)  # column col of (B T)^-1
            for k in range(w_params.shape[0]):  # only the rows the metrics read
                p = w_params[k]
                v = 0.0
                for c in range(n_in):
                    v += Tq[p, c] * x[c]
                Wt[p, col] = v
        for i in range(n_w if velocities else 0):
            for col in range(nv):
                add_velocity(wheel[0, i], T, dP, Wt, col, vec)
                for a in range(3):
                    vC_out[s, i, col, a] = vec[a]
                add_velocity(wheel[1, i], T, dP, Wt, col, vec)
                for a in range(3):
                    vA_out[s, i, col, a] = vec[a]
        for d in range(n_d):
            for col in range(nv):
                Wd_out[s, d, col] = Wt[dampers[d], col]
        if twists:
            first = 1 if steer else 0
            for w in range(n_w):
                for col in range(nv):
                    add_twist(wheel[2, w], T, W, Wt, col, vec)
                    for a in range(6):
                        tw_out[s, w, a, first + col] = vec[a]


def work_arrays(n_parts: int, n_inst: int, k_max: int, max_rows: int) -> tuple[np.ndarray, ...]:
    """The kernel's work arrays W (`kernel.eval_block` layout): part transforms (3x4),
    joint screw directions and origins, copies' positions and PoE derivatives, and the
    unit vectors of distance rows."""
    return (
        np.zeros((n_parts, 3, 4)),
        np.zeros((n_parts, k_max, 3)),
        np.zeros((n_parts, k_max, 3)),
        np.zeros((n_inst, 3)),
        np.zeros((n_inst, k_max, 3)),
        np.zeros((max(max_rows, 1), 3)),
    )


def scratch_arrays(
    max_rows: int, max_cols: int, n_params: int, n_in: int, n_v: int
) -> tuple[np.ndarray, ...]:
    """Scratch arrays of `metric_kinematics` (LU, pivots, vectors, QR, tangents, travel
    system, a block's transposed Jacobian and its input columns)."""
    m, n = max(max_rows, 1), max(max_cols, 1)
    big = max(m, n, n_v, 6)
    return (
        np.zeros((n, n)),
        np.zeros(big, dtype=np.int64),
        np.zeros(big),
        np.zeros(big),
        np.zeros((n, m)),
        np.zeros(n),
        np.zeros((n_params, max(n_in, 1))),
        np.zeros((max(n_in, n_v, 1), max(n_v, 1))),
        np.zeros((max(n_v, 1), max(n_v, 1))),
        np.zeros((n_params, max(n_v, 1))),
        np.zeros(big, dtype=np.int64),
        np.zeros(6),
        np.zeros((n, m)),
        np.zeros((m, max(n_in, 1))),
    )


def compile_on_empty_tables() -> None:
    """Compile `metric_kinematics` (or load it from the disk cache) by running it on no
    state, with arguments of the types `metrics.batch.kinematics_compiled` passes (the
    solve kernel's empty tables, `engine_tables.dummy_tables`): the warm-up compiles it
    without a car or a compiled solve first, so a second compile process can start on it
    at once. A type that differed from the real call's would compile a second version at
    the first real use (tests compare the two calls' numba types)."""
    from suspension_sim.solve.engine_tables import dummy_tables

    tab = dummy_tables()
    one = np.zeros(1, dtype=np.int64)
    n_in, nv = len(tab.inputs), 1
    metric_kinematics(
        np.zeros((0, tab.n_params)),
        tab.arrays,
        work_arrays(tab.n_parts, tab.n_inst, tab.k_max, tab.max_rows),
        tab.inputs,
        param_columns(tab.arrays[7], tab.arrays[8], tab.inputs, tab.n_params),
        one,
        one,
        one,
        one,
        one,
        one,
        np.zeros((3, 1), dtype=np.int64),
        one,
        one,
        np.zeros(5, dtype=np.int64),
        scratch_arrays(tab.max_rows, tab.max_cols, tab.n_params, n_in, nv),
        np.zeros((0, 1, 3)),
        np.zeros((0, 1, nv, 3)),
        np.zeros((0, 1, nv, 3)),
        np.zeros((0, 1, nv)),
        np.zeros((0, 1, 6, nv)),
        np.zeros(0, dtype=np.int8),
    )


def compiled_functions() -> tuple[Any, ...]:
    """The module's compiled entry points (for the stale-cache check of `metrics.batch`)."""
    return (block_jacobian, input_tangents_at, add_velocity, add_twist, metric_kinematics)
