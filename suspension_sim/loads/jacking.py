"""The jacking force per wheel and case: the vertical contact-patch load the springs
do not carry (docs/loads.md).

Two ways to the same number: `jacking_work`, a dampers x wheels system from the
multipliers' solve (its right-hand sides set up by `jacking_setup`), when the
car has one damper per wheel and determinate joints; otherwise `full_jacking`,
which solves for the motion that lifts each contact patch 1 mm (and returns NaN
where none exists). tests/test_jacking_short.py compares them. Split from
`suspension_sim.loads.statics`, which chooses between them. N.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.loads.blocks import BatchCOO, Method, block_lstsq
from suspension_sim.loads.internal import ElementLoads
from suspension_sim.loads.layout import LoadLayout
from suspension_sim.loads.positions import jacobian_columns

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


JACKING_COND = 1e8
"""The dampers x wheels system of `jacking_work` is solved only below this condition
number (else the full jacking solve, `full_jacking`, which also finds wheels it cannot lift)."""


def jacking_setup(
    model: KinematicModel,
    lay: LoadLayout,
    dcp: np.ndarray,
    slots: np.ndarray,
    R: np.ndarray,
    Qt_x: np.ndarray,
    elements: bool,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Right-hand sides the multipliers' solve also takes for the jacking (`jacking_work`),
    or None when the short path does not apply (the dampers are not one per wheel):
    [-Q_x of the tyres alone (with force elements only), V_x^T] (B, n_x, ...) and V_d (B,
    n_w, n_d), with V (B, n_w, n_params) the contact patches' heights per parameter."""
    n_w, n_d = dcp.shape[1], len(model.damper_names)
    if n_w == 0 or n_d != n_w or len(lay.x) != len(model.active_pairs) * 3:
        return None
    B = dcp.shape[0]
    up = R[:, 2, :]  # world +Z in chassis axes, (B, 3)
    vert = np.einsum("bwki,bi->bwk", dcp, up)  # (B, n_w, kmax)
    w_of, k_of = np.nonzero(slots >= 0)
    V = np.zeros((B, n_w, model.n_params))
    V[:, w_of, slots[w_of, k_of]] = vert[:, w_of, k_of]  # a wheel's parameters are distinct
    if model.topology.rack_param is not None:
        V[:, :, model.topology.rack_param] = 0.0  # the rack is held (not a jacking parameter)
    extra = np.swapaxes(V[:, :, lay.x], 1, 2)  # (B, n_x, n_w)
    if elements:
        extra = np.concatenate([-Qt_x, extra], axis=2)
    return extra, V[:, :, lay.u[:n_d]]


def jacking_work(
    lay: LoadLayout,
    JuT: BatchCOO,
    V_d: np.ndarray,
    extra: np.ndarray,
    Q_tyre: np.ndarray,
    lam: np.ndarray,
    F_w: np.ndarray,
    known: ElementLoads | None,
) -> np.ndarray | None:
    """The jacking forces (B, n_w, C) of `full_jacking` from the multipliers' solve, or None
    (use `full_jacking`): with K = [J_x J_d; V_x V_d] (constraints and patch heights, the
    rack held) the springs' share of wheel w's load is z_w in K^T [lambda'; z] = Q_keep
    (the tyres' Q). With J_x^T Y = V_x^T and J_x^T lambda_t = -Q_x (both solved with the
    multipliers), z = S^-1 (Q_d + J_d^T lambda_t), S = V_d^T - J_d^T Y: dampers x wheels,
    solved when well conditioned. extra: the extra columns of that solve (B, m, ...)."""
    n_w = V_d.shape[1]
    C = lam.shape[-1]
    n_d = V_d.shape[2]
    if known is not None:
        lam_t, Y = extra[..., :C], extra[..., C:]
    else:
        lam_t, Y = lam, extra
    both = JuT.matmul(np.concatenate([lam_t, Y], axis=2))  # (B, n_u, C + n_w)
    S = np.swapaxes(V_d, 1, 2) - both[:, :n_d, C:]  # (B, n_d, n_w)
    rhs = Q_tyre[:, lay.u[:n_d]] + both[:, :n_d, :C]  # (B, n_d, C)
    if not np.all(np.isfinite(S)) or not np.all(np.linalg.cond(S) < JACKING_COND):
        return None
    work = np.linalg.solve(S, rhs)  # (B, n_w, C)
    assert work.shape[1] == n_w
    return F_w[:, :, 2, :] - work


def full_jacking(
    model: KinematicModel,
    lay: LoadLayout,
    J: BatchCOO,
    dcp: np.ndarray,
    slots: np.ndarray,
    Q: np.ndarray,
    F_w: np.ndarray,
    R: np.ndarray,
    method: Method = "auto",
) -> np.ndarray:
    """Jacking force per wheel and case (N): the vertical load at the contact patch
    that the springs do not carry, Fz - Q . dq_i with dq_i the motion that lifts
    the contact patch (a point of the carrier) 1 mm, every other contact patch and
    the rack held and the strokes free (virtual work: Q . dq_i is the spring and
    damper forces' share). NaN where no such motion exists. J: the Jacobian's
    nonzeros (`sparse_jacobian`)."""
    B, m, n = J.values.shape[0], J.n_rows, J.n_cols
    n_w = dcp.shape[1]
    if n_w == 0:
        return np.zeros((B, 0, Q.shape[-1]))
    up = R[:, 2, :]  # world +Z in chassis axes, (B, 3)
    vert = np.einsum("bwki,bi->bwk", dcp, up)  # (B, n_w, kmax)
    # The rack is held: leave its column out (the front corners then decouple).
    keep = lay.jacking_params
    Jk = jacobian_columns(J, keep)
    new = np.full(n + 1, -1)
    new[keep] = np.arange(len(keep))
    col = new[np.where(slots >= 0, slots, n)]  # (n_w, kmax): kept column, -1 = none
    w_of, k_of = np.nonzero(col >= 0)
    K = BatchCOO(
        np.concatenate([Jk.values, vert[:, w_of, k_of]], axis=1),
        np.concatenate([Jk.rows, m + w_of]),
        np.concatenate([Jk.cols, col[w_of, k_of]]),
        m + n_w,
        len(keep),
    )
    rhs = np.zeros((B, m + n_w, n_w))
    rhs[:, m + np.arange(n_w), np.arange(n_w)] = 1.0
    dq = block_lstsq(K, rhs, lay.jacking_blocks, method=method).x  # (B, len(keep), n_w)
    miss = np.linalg.norm(K.matmul(dq) - rhs, axis=1) > 1e-6  # (B, n_w)
    work = np.swapaxes(dq, 1, 2) @ Q[:, keep]  # springs' share of wheel w's vertical load
    jack = F_w[:, :, 2, :] - work
    return np.where(miss[..., None], np.nan, jack)
