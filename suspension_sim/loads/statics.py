"""Static loads in every joint from the solved constraint Jacobian (docs/loads.md).

At a closed pose the joint residuals are r(q) = P_b - P_a for every joined
pair (a, b) of point copies. With lambda the force on copy b from copy a (and
-lambda on a), virtual work gives, for the unknown joint parameters x and the
inputs u (strokes, rack):

    J_x^T lambda = -Q_x          (equilibrium of every free joint parameter)
    f_u = Q_u + J_u^T lambda     (+ = damper compression; the rack: -f_u)

Q is the generalised external force, Q = sum (d point / d q)^T F + omega_q^T M
over the loads on the wheel carriers, plus ``-F_e de/dq`` for every third spring
and anti-roll bar (`suspension_sim.loads.elements`: known internal loads at the
pose, the same in every case, whose forces and moments also enter the body
equations below; the jacking force uses the tyres' Q alone). Pairs that hold by construction (a
wishbone's pivots on its own axis, a universal joint's centre) are not in the
Jacobian: their forces follow from the equilibrium of each body, six equations
per body, with the forces of the other joints known. Where statics leaves a
part of the answer free (redundant joints: J_x^T has a null space; two pivots
on one axis share an axial force), the minimum-norm answer is given and
labelled, never presented as exact.

Everything is vectorised over poses (B) and cases (C). Units: mm, N, N mm
inside; tables in N and the world frame.

This module assembles and solves the equilibrium; the rest is beside it:
`suspension_sim.loads.layout` (what does not change with the pose),
`suspension_sim.loads.positions` (positions, transforms, the Jacobian at B
poses), `suspension_sim.loads.applied` (the cases' loads per wheel),
`suspension_sim.loads.internal` (third springs and bars) and
`suspension_sim.loads.jacking`. Their public names used elsewhere are
re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError, ModelError
from suspension_sim.loads.applied import design_contact_points, wheel_loads, wheel_moments
from suspension_sim.loads.blocks import BatchCOO, Method, block_lstsq, compiled_kernel
from suspension_sim.loads.cases import LoadCase
from suspension_sim.loads.elements import Elements, elements_of
from suspension_sim.loads.internal import ElementLoads, internal_loads
from suspension_sim.loads.jacking import full_jacking, jacking_setup, jacking_work
from suspension_sim.loads.layout import LoadLayout, load_layout
from suspension_sim.loads.positions import (
    jacobian_columns,
    occurrence_layers,
    part_transforms,
    positions,
    scatter_add,
    sparse_jacobian,
)
from suspension_sim.metrics import wheel as wheel_geometry
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.metrics.vectors import Z_UP
from suspension_sim.solve.problem import blas_controller

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

__all__ = [
    "APPLIED",
    "AXIAL_SPLIT",
    "BASIS_ORDER",
    "EXACT",
    "LEGS",
    "LEGS_BENDING",
    "MIN_NORM",
    "LoadLayout",
    "Statics",
    "design_contact_points",
    "load_layout",
    "occurrence_layers",
    "scatter_add",
    "statics",
    "wheel_loads",
    "wheel_moments",
]


NULL_TOL = 1e-7
"""A force with a null-space component above this (relative) is not determined by statics."""


UNBALANCED_TOL = 1e-6
"""Relative equilibrium residual above which a load case cannot be held by the mechanism."""


LEG_FLOOR_N = 1e-6
"""Sideways force (N) on a wishbone leg below which it counts as a two-force member
whatever its load (round-off of an unloaded arm)."""


MOMENT_SCALE = 1e-3
"""Moment rows of the body equations in N m instead of N mm (conditioning only)."""


EXACT = "exact"


LEGS = "two-force legs"


LEGS_BENDING = "legs, arm in bending (least squares)"


AXIAL_SPLIT = "axial split assumed equal"


MIN_NORM = "minimum-norm (statically indeterminate)"


APPLIED = "applied"


BASIS_ORDER: tuple[str, ...] = (EXACT, APPLIED, LEGS, AXIAL_SPLIT, LEGS_BENDING, MIN_NORM)
"""Labels of how a force was found, from fully determined to least determined."""


_LABELS = np.array(BASIS_ORDER, dtype=object)


_CODE = {label: i for i, label in enumerate(BASIS_ORDER)}


@dataclass(frozen=True)
class Statics:
    """Raw results for B poses and C cases, chassis frame, N and N mm.

    Forces on copy b of each pair ((B, n_pairs, 3, C); the force on copy a is
    minus it), input forces (B, n_inputs, C; dampers + = compression, rack =
    force the steering puts on the rack along its +Y-pointing axis), applied
    loads and the flags that say which values statics determines.
    """

    pair_force: np.ndarray  # (B, n_pairs, 3, C), chassis frame
    pair_basis: np.ndarray  # (B, n_pairs) str labels (object array)
    pair_exact: np.ndarray  # (B, n_pairs) bool
    input_force: np.ndarray  # (B, n_inputs, C)
    input_exact: np.ndarray  # (B, n_inputs) bool
    rack_mount: np.ndarray  # (B, 3, C) force on the chassis from the rack assembly
    arm_axial: np.ndarray  # (B, n_arms, 2, C) leg forces, + = tension
    applied_force: np.ndarray  # (B, n_wheels, 3, C) chassis frame
    applied_point: np.ndarray  # (B, n_wheels, 3) contact points, chassis frame
    applied_moment: np.ndarray  # (B, n_wheels, 3, C) N mm about applied_point, chassis frame
    # (inboard torques, the case's moments, and a design-line force's moment about it)
    jacking: np.ndarray  # (B, n_wheels, C)
    determinate: np.ndarray  # (B,) bool: no redundant joints
    R: np.ndarray  # (B, 3, 3) chassis -> world rotations
    P: np.ndarray  # (B, n_inst, 3) copies, chassis frame
    elements: Elements | None = None  # third springs and bars (None: the car has none)
    element_deflection: np.ndarray | None = None  # (B, n_e) mm or rad
    element_force: np.ndarray | None = None  # (B, n_e) N (third springs) or N mm (bars)
    element_end_force: np.ndarray | None = None  # (B, n_s, 2, 3) on the spring ends, chassis
    bar_reaction: np.ndarray | None = None  # (B, n_b, 3, C) N mm: a T-bar's moment on the chassis
    pair_basis_code: np.ndarray | None = None  # (B, n_pairs) pair_basis as indices into BASIS_ORDER
    inst_force: np.ndarray | None = None  # (B, n_inst, 3, C) on each copy from its pairs, chassis


def statics(poses: list[Pose], cases: list[LoadCase], elements: Elements | None = None) -> Statics:
    """Forces in every joint for each pose and case (see the module docstring).

    elements: the third springs and bars with their rates (default: the car's,
    `suspension_sim.loads.elements.elements_of`); their loads at each pose are
    known internal loads, the same in every case.
    BLAS runs single-threaded: at this size threads only add overhead (as in the
    solver, `suspension_sim.solve.problem.blas_controller`).
    """
    with blas_controller().limit(limits=1, user_api="blas"):
        return _statics(poses, cases, elements)


def _statics(poses: list[Pose], cases: list[LoadCase], elements: Elements | None) -> Statics:
    if not poses:
        raise InputError("no poses to compute loads for")
    model = poses[0].model
    if any(p.model is not model for p in poses):
        raise InputError("every pose must come from the same model")
    bad = [i for i, p in enumerate(poses) if not p.converged]
    if bad:
        raise InputError(
            f"pose {bad[0]} did not close, so its loads mean nothing",
            hint="compute loads only on poses that solved (pose.converged)",
        )
    if not cases:
        raise InputError("no load cases given", hint="pass at least one LoadCase")
    lay = load_layout(model)
    st = wheel_set(model)
    B, C = len(poses), len(cases)
    q = np.stack([p.params for p in poses], axis=1)  # (n_params, B)
    T = np.stack([p.chassis_transform for p in poses])  # (B, 4, 4)
    R, t = T[:, :3, :3], T[:, :3, 3]

    # The compiled kernel (`suspension_sim.loads.blocks`) or None: one choice for every step.
    kernel = compiled_kernel(B)
    method: Method = "compiled" if kernel is not None else "numpy"
    local = model.local_transforms(q)  # shared by the copies and the wheel carriers
    P, dP = positions(model, local, kernel)  # (B, n_inst, 3), (B, n_inst, kmax, 3)
    J = sparse_jacobian(model, dP)  # (B, m, n_params) as its nonzeros
    JxT, JuT = jacobian_columns(J, lay.x).T, jacobian_columns(J, lay.u).T

    # -- applied loads: contact-patch forces and torques about the spin axis ---------
    force, wheel_axes, brake, drive = wheel_loads(model, cases)
    C_c, A_c = P[:, st.i_centre], P[:, st.i_axis]
    s_c = wheel_geometry.spin_axis(C_c, A_c, st.orient)  # (B, n_w, 3) outboard
    s_w = np.einsum("bij,bwj->bwi", R, s_c)
    C_w = np.einsum("bij,bwj->bwi", R, C_c) + t[:, None]
    cp_w = wheel_geometry.contact_point(C_w, s_w, st.radius, Z_UP)
    cp_c = np.einsum("bji,bwj->bwi", R, cp_w - t[:, None])
    _, head = wheel_geometry.ground_axes(s_w, st.side, Z_UP)  # (B, n_w, 3) world
    left = np.cross(np.broadcast_to(Z_UP, head.shape), head)  # lateral to the wheel's left
    wheel_frame = np.stack([head, left, np.broadcast_to(Z_UP, head.shape)], axis=-1)
    F_wheel = np.einsum("bwij,wjc->bwic", wheel_frame, force)
    F_w = np.where(wheel_axes[None, :, None, :], F_wheel, force[None])  # (B, n_w, 3, C)
    F_c = np.einsum("bji,bwjc->bwic", R, F_w)
    # Torque about the spin axis pointing to the car's left (forward rolling is +).
    a_left = st.side[None, :, None] * s_c  # chassis frame
    torque = 1000.0 * (
        np.where(lay.drive_inboard[:, None], drive, 0.0)
        - np.where(lay.brake_inboard[:, None], brake, 0.0)
    )  # N mm, (n_w, C)
    M_c = a_left[..., None] * torque[None, :, None, :]  # (B, n_w, 3, C)
    # Contact-patch moments (N m, case axes) and forces on the design line: both only
    # when a case has them (the moment about the pose's contact point, N mm).
    moment, design = wheel_moments(model, cases)
    if np.any(moment):
        M_wheel = np.einsum("bwij,wjc->bwic", wheel_frame, moment)
        M_world = np.where(wheel_axes[None, :, None, :], M_wheel, moment[None])
        M_c = M_c + 1000.0 * np.einsum("bji,bwjc->bwic", R, M_world)
    if np.any(design):
        p_d = design_contact_points(model)  # world-fixed
        shift = np.einsum("bji,bwj->bwi", R, p_d[None] - t[:, None]) - cp_c  # (B, n_w, 3)
        shifted = np.swapaxes(_cross(shift[:, :, None, :], np.swapaxes(F_c, 2, 3)), 2, 3)
        M_c = M_c + np.where(design[None, :, None, :], shifted, 0.0)

    part = lay.wheel_part
    Gw, dGw = part_transforms(model, local, part)
    Gw = np.moveaxis(Gw, -1, 0)  # (B, n_w, 3, 4)
    dGw = np.moveaxis(dGw, -1, 0)  # (B, n_w, kmax, 3, 4)
    Rg, tg = Gw[..., :3], Gw[..., 3]
    x0 = np.einsum("bwji,bwj->bwi", Rg, cp_c - tg)  # contact point at design, carrier frame
    dcp = np.einsum("bwkij,bwj->bwki", dGw[..., :3], x0) + dGw[..., 3]  # (B, n_w, kmax, 3)
    W = np.einsum("bwkij,bwlj->bwkil", dGw[..., :3], Rg)  # dR R^T (skew)
    omega = np.stack([W[..., 2, 1], W[..., 0, 2], W[..., 1, 0]], axis=-1)  # (B, n_w, kmax, 3)
    gen = np.einsum("bwki,bwic->bwkc", dcp, F_c) + np.einsum("bwki,bwic->bwkc", omega, M_c)
    slots = np.full((len(part), model.kmax), -1, dtype=int)
    for i, p in enumerate(part):
        params = model.parts[p].params
        slots[i, : len(params)] = params
    Q = np.zeros((B, model.n_params + 1, C))  # last row collects slot -1
    scatter_add(Q, slots.reshape(-1), gen.reshape(B, -1, C))
    Q = Q[:, :-1]
    Q_tyre = Q  # the jacking force is the tyres' share only

    # -- force elements: known internal loads, the same in every case ----------------------
    el = elements if elements is not None else elements_of(model)
    known = internal_loads(model, lay, el, q, P, dP, C)
    if known is not None:
        Q = Q + known.Q[..., None]

    # -- multipliers: J_x^T lambda = -Q_x (min-norm; null space = redundant joints) ----
    # The same solve also takes the jacking's right-hand sides (`jacking_setup`).
    jack_setup = jacking_setup(model, lay, dcp, slots, R, Q_tyre[:, lay.x], known is not None)
    rhs = -Q[:, lay.x]
    if jack_setup is not None:
        rhs = np.concatenate([rhs, jack_setup[0]], axis=2)
    sol = block_lstsq(JxT, rhs, lay.lambda_blocks, method=method)
    lam = sol.x[..., :C]  # (B, m, C)
    unbalanced = np.linalg.norm(JxT.matmul(lam) + Q[:, lay.x], axis=1)
    if np.any(unbalanced > UNBALANCED_TOL * np.maximum(np.linalg.norm(Q[:, lay.x], axis=1), 1.0)):
        raise ModelError(
            "the mechanism cannot hold this load case: with every stroke and the rack held "
            "some joint can still move, so the loads have no equilibrium",
            hint="check the car with 'suspension-sim check' (a near-toggle pose, or a "
            "wheel that no damper holds)",
        )
    # Null-space directions (redundant joints): only the columns that occur anywhere.
    N = sol.null_basis  # (B, m, k) unit vectors, N per unit of the free force
    determinate = np.asarray(np.abs(N).max(axis=(1, 2), initial=0.0) == 0.0, dtype=bool)
    k = N.shape[2]

    # -- input forces ------------------------------------------------------------------
    f_u = Q[:, lay.u] + JuT.matmul(lam)
    # Null-space directions are unit vectors (N per unit of the free force): a
    # value that moves with them is not fixed by statics.
    f_null = JuT.matmul(N)
    input_exact = (
        np.linalg.norm(f_null, axis=2, keepdims=False) <= NULL_TOL
        if k
        else (np.ones(f_u.shape[:2], dtype=bool))
    )
    if len(lay.inputs) and lay.inputs[-1] == "rack":
        f_u[:, -1] *= -1.0

    # -- forces in the pairs that hold by construction: body equilibrium ----------------
    n_pairs = len(model.pair_a)
    act3 = lam.reshape(B, len(lay.act), 3, C)
    pair_force = np.zeros((B, n_pairs, 3, C))
    pair_force[:, lay.act] = act3
    null_force = np.zeros((B, n_pairs, 3, k))
    null_force[:, lay.act] = N.reshape(B, len(lay.act), 3, k)
    applied = (F_c, cp_c, M_c)
    f_s, f_s_null, local_null, lever = _structural(
        model, lay, P, act3, null_force[:, lay.act], applied, known, kernel
    )
    pair_force[:, lay.struct] = f_s
    null_force[:, lay.struct] = f_s_null

    pair_exact = np.linalg.norm(null_force.reshape(B, n_pairs, -1), axis=2) <= NULL_TOL
    codes = np.where(pair_exact, _CODE[EXACT], _CODE[MIN_NORM])  # labels as BASIS_ORDER indices
    struct_local = local_null & pair_exact[:, lay.struct]
    codes[:, lay.struct] = np.where(struct_local, _CODE[AXIAL_SPLIT], codes[:, lay.struct])
    exact_struct = pair_exact[:, lay.struct] & ~local_null
    pair_exact[:, lay.struct] = exact_struct

    arm_axial = _wishbone_legs(model, lay, P, pair_force, pair_exact, codes)

    # -- the rack assembly's reaction on the chassis -------------------------------------
    inst_force = _instance_forces(model, lay, pair_force, kernel)  # (B, n_inst, 3, C)
    rack_mount = (
        inst_force[:, lay.rack_inst].sum(axis=1) if len(lay.rack_inst) else (np.zeros((B, 3, C)))
    )

    jacking = None
    if jack_setup is not None and JxT.n_rows == JxT.n_cols and determinate.all():
        jacking = jacking_work(lay, JuT, jack_setup[1], sol.x[..., C:], Q_tyre, lam, F_w, known)
    if jacking is None:
        jacking = full_jacking(model, lay, J, dcp, slots, Q_tyre, F_w, R, method)
    if known is not None:
        rack_mount = rack_mount + known.inst_force[:, lay.rack_inst].sum(axis=1)[..., None]
    return Statics(
        pair_force=pair_force,
        pair_basis=_LABELS[codes],
        pair_exact=pair_exact,
        input_force=f_u,
        input_exact=input_exact,
        rack_mount=rack_mount,
        arm_axial=arm_axial,
        applied_force=F_c,
        applied_point=cp_c,
        applied_moment=M_c,
        jacking=jacking,
        determinate=determinate,
        R=R,
        P=P,
        elements=el if el.n else None,
        element_deflection=known.deflection if known is not None else None,
        element_force=known.force if known is not None else None,
        element_end_force=known.end_force if known is not None else None,
        bar_reaction=lever,
        pair_basis_code=codes,
        inst_force=inst_force,
    )


def _instance_forces(
    model: KinematicModel,
    lay: LoadLayout,
    pair_force: np.ndarray,
    kernel: ModuleType | None = None,
) -> np.ndarray:
    """Force on every copy from its pairs: +f on copy b, -f on copy a (B, n_inst, 3, C)
    (by `kernel.pair_scatter` when given: the same sums in the same order)."""
    B, _, _, C = pair_force.shape
    out = np.zeros((B, len(model.inst_body), 3, C))
    if kernel is not None:
        kernel.pair_scatter(
            np.ascontiguousarray(pair_force, dtype=float),
            np.ascontiguousarray(model.pair_a, dtype=np.int64),
            np.ascontiguousarray(model.pair_b, dtype=np.int64),
            out,
        )
        return out
    scatter_add(out, model.pair_b, pair_force)
    scatter_add(out, model.pair_a, -pair_force)
    return out


def _structural(
    model: KinematicModel,
    lay: LoadLayout,
    P: np.ndarray,
    act_force: np.ndarray,
    act_null: np.ndarray,
    applied: tuple[np.ndarray, np.ndarray, np.ndarray],
    element_loads: ElementLoads | None = None,
    kernel: ModuleType | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Forces in the construction pairs from six equilibrium equations per body.

    Returns their forces (B, n_s, 3, C), the same for each null-space direction
    of the multipliers (B, n_s, 3, m), whether each pair has a free (local)
    component, e.g. the axial split between two pivots on one axis (B, n_s), and
    the moment of each bar on the chassis (B, n_bars, 3, C) N mm (None without
    elements): 0 for a U-bar (its two arm moments cancel); for a T-bar, minus the
    moment the chassis puts on the lever through its pivot and the bar, which the
    lever's balance fixes (the pivot carries no moment about its own axis, the
    bar its torque about the shaft axis, the pivot bearings the rest).
    kernel: the compiled block kernel (`suspension_sim.loads.blocks_kernel`) or None (numpy).
    """
    B = P.shape[0]
    n_b, n_s = len(lay.bodies), len(lay.struct)
    C, m = act_force.shape[-1], act_null.shape[-1]
    reaction = None
    if element_loads is not None:
        n_bars = element_loads.force.shape[1] - element_loads.end_force.shape[1]
        reaction = np.zeros((B, n_bars, 3, C))
    if n_s == 0:
        empty = np.zeros((B, 0, 3, C)), np.zeros((B, 0, 3, m)), np.zeros((B, 0), dtype=bool)
        return (*empty, reaction)
    # Moments about a reference copy of each body, in N m (conditioning).
    own = np.maximum(lay.inst_body, 0)
    r = (P - P[:, lay.body_ref[own]]) * MOMENT_SCALE  # (B, n_inst, 3)
    # A: +I / +skew(r) on the body of copy b, minus on copy a (precomputed places).
    side_r = r[:, lay.side_inst]  # (B, n_sides, 3)
    vals = np.empty((B, len(lay.side_inst), 6, 3))
    vals[:, :, :3] = lay.side_sign[None, :, None, None] * np.eye(3)
    vals[:, :, 3:] = lay.side_sign[None, :, None, None] * _skew(side_r)
    width = 3 * n_s
    A = BatchCOO(vals.reshape(B, -1), lay.side_flat // width, lay.side_flat % width, 6 * n_b, width)

    # Known wrenches: the forces of the Jacobian's pairs (and null directions) on
    # each copy, summed per body, then the applied loads.
    forces = np.concatenate([act_force, act_null], axis=3)  # (B, n_act, 3, K)
    K = forces.shape[3]
    if kernel is not None:  # the same sums, compiled
        w = np.zeros((B, n_b, 6, K))
        extra = element_loads.inst_force if element_loads is not None else np.zeros((B, 0, 3))
        kernel.body_wrenches(
            forces,
            np.ascontiguousarray(model.pair_a[lay.act], dtype=np.int64),
            np.ascontiguousarray(model.pair_b[lay.act], dtype=np.int64),
            np.ascontiguousarray(lay.inst_body, dtype=np.int64),
            np.ascontiguousarray(r),
            np.ascontiguousarray(extra if extra.shape[1] else np.zeros_like(r)),
            C,
            w,
        )
    else:
        w = _body_wrenches(lay, r, forces, C, element_loads)
    F_c, cp_c, M_c = applied
    wb = lay.wheel_body
    arm = (cp_c - P[:, lay.body_ref[wb]]) * MOMENT_SCALE  # (B, n_w, 3)
    mom = _cross(arm[..., None, :], np.swapaxes(F_c, 2, 3)) + np.swapaxes(M_c, 2, 3) * (
        MOMENT_SCALE
    )
    app = np.zeros((B, n_b, 6, C))
    scatter_add(app[:, :, :3], wb, F_c)
    scatter_add(app[:, :, 3:], wb, np.swapaxes(mom, 2, 3))
    w[..., :C] += app
    if element_loads is not None:
        w[:, :, 3:, :C] += MOMENT_SCALE * element_loads.body_moment[..., None]
        for (b, c), k in zip(element_loads.levers, element_loads.bar_column, strict=True):
            # The lever's moment from the chassis (pivot and bar together) is what
            # balances every other load on it about its pivot centre.
            about_centre = w[:, b, 3:] - np.cross(r[:, c, :, None], w[:, b, :3], axis=1)
            w[:, b, 3:] -= about_centre
            assert reaction is not None
            reaction[:, k] = about_centre[..., :C] / MOMENT_SCALE
    rows = w.reshape(B, 6 * n_b, K)

    rhs = -rows  # the known wrenches of the cases, then of the null directions
    sol = block_lstsq(A, rhs, lay.struct_blocks, method="numpy" if kernel is None else "compiled")
    f = sol.x[..., :C].reshape(B, n_s, 3, C)
    f_null = sol.x[..., C:].reshape(B, n_s, 3, m)
    # Local freedom: the right null space of A (e.g. two pivots' shared axial force).
    local = np.abs(sol.null_basis).max(axis=2, initial=0.0).reshape(B, n_s, 3).max(axis=2)
    local = local > NULL_TOL
    return f, f_null, local, reaction


def _body_wrenches(
    lay: LoadLayout,
    r: np.ndarray,
    forces: np.ndarray,
    C: int,
    element_loads: ElementLoads | None,
) -> np.ndarray:
    """The wrench on each body (B, n_b, 6, K) from the pair forces (B, n_act, 3, K) on
    copy b (minus on copy a) and the third springs' forces (first C columns): sum f and
    sum r x f over its copies (the numpy path of `blocks_kernel.body_wrenches`)."""
    B, K, n_b = forces.shape[0], forces.shape[3], len(lay.bodies)
    inst_f = np.tensordot(lay.act_incidence, forces, axes=(1, 1))  # (n_inst, B, 3, K)
    inst_f = np.moveaxis(inst_f, 0, 1)  # (B, n_inst, 3, K)
    if element_loads is not None:  # the third springs' forces, in every case (not the null columns)
        inst_f[..., :C] += element_loads.inst_force[..., None]
    inst_m = _cross(r[:, :, None, :], np.swapaxes(inst_f, 2, 3))  # (B, n_inst, K, 3)
    w = np.empty((B, n_b, 6, K))
    w[:, :, :3] = np.moveaxis(np.tensordot(lay.incidence, inst_f, axes=(1, 1)), 0, 1)
    w[:, :, 3:] = np.swapaxes(
        np.moveaxis(np.tensordot(lay.incidence, inst_m, axes=(1, 1)), 0, 1), 2, 3
    )
    return w


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.cross over the last axis (broadcast), the same arithmetic without its overhead."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _skew(v: np.ndarray) -> np.ndarray:
    """Cross-product matrices of vectors (..., 3) -> (..., 3, 3): skew(a) @ b = a x b."""
    out = np.zeros((*v.shape, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def _wishbone_legs(
    model: KinematicModel,
    lay: LoadLayout,
    P: np.ndarray,
    pair_force: np.ndarray,
    pair_exact: np.ndarray,
    codes: np.ndarray,
) -> np.ndarray:
    """Split each wishbone's axial pivot force so both legs carry force along themselves.

    The two pivots of an arm share a free axial force (t on one, -t on the
    other). An A-arm made of two legs that meet at the outer ball joint is two
    two-force members: t is chosen so that each pivot force lies along its leg
    (least squares when the arm carries another joint, e.g. a pushrod mount, and
    so is in bending). Updates pair_force, pair_exact and the basis codes
    (indices into `BASIS_ORDER`) in place;
    returns the leg forces (B, n_arms, 2, C), + = tension.
    """
    B, C = pair_force.shape[0], pair_force.shape[-1]
    if not len(lay.arms):
        return np.zeros((B, 0, 2, C))
    sA, sB, iA, iB = (lay.arms[:, k] for k in range(1, 5))
    pA, pB, pO = P[:, iA], P[:, iB], P[:, lay.arm_outer]  # (B, n_a, 3)
    a = _unit(pB - pA)
    dA, dB = _unit(pO - pA), _unit(pO - pB)
    fA, fB = pair_force[:, sA], pair_force[:, sB]  # (B, n_a, 3, C): on the arm
    cA = _cross(a, dA)[..., None]  # (B, n_a, 3, 1)
    cB = _cross(a, dB)[..., None]
    eA = _cross(np.swapaxes(fA, 2, 3), dA[:, :, None, :])  # (B, n_a, C, 3)
    eB = _cross(np.swapaxes(fB, 2, 3), dB[:, :, None, :])
    num = np.einsum("bacj,baj->bac", eA, cA[..., 0]) - np.einsum("bacj,baj->bac", eB, cB[..., 0])
    den = (cA[..., 0] ** 2).sum(-1) + (cB[..., 0] ** 2).sum(-1)
    tt = -num / den[..., None]  # (B, n_a, C)
    fA = fA + a[..., None] * tt[:, :, None, :]
    fB = fB - a[..., None] * tt[:, :, None, :]
    pair_force[:, sA], pair_force[:, sB] = fA, fB
    off = np.linalg.norm(
        _cross(np.swapaxes(fA, 2, 3), dA[:, :, None, :]), axis=-1
    ) + np.linalg.norm(_cross(np.swapaxes(fB, 2, 3), dB[:, :, None, :]), axis=-1)
    size = np.linalg.norm(fA, axis=2) + np.linalg.norm(fB, axis=2)
    # Legs carry pure axial forces in every case; LEG_FLOOR_N keeps an unloaded arm
    # (round-off only) from counting as bent, whatever the other cases load.
    along = (off <= 1e-6 * size + LEG_FLOOR_N).all(axis=2)  # (B, n_a)
    # Leg force, + = tension: the chassis pulls the pivot end away from the ball joint.
    axial = np.stack(
        [np.einsum("baic,bai->bac", fA, -dA), np.einsum("baic,bai->bac", fB, -dB)], axis=2
    )
    for s in (sA, sB):
        # Exact under the legs model when both legs are pure two-force members
        # and nothing upstream is indeterminate.
        upstream = codes[:, s] == _CODE[MIN_NORM]
        ok = along & ~upstream
        codes[:, s] = np.where(
            ok, _CODE[LEGS], np.where(upstream, _CODE[MIN_NORM], _CODE[LEGS_BENDING])
        )
        pair_exact[:, s] = ok
    return axial


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)
