"""Rates of the wheel metrics: analytic directional derivatives along IFT tangents.

`suspension_sim.solve.sensitivity.wheel_tangents` gives, at a solved pose, the
rate of every joint parameter per mm of each wheel's travel (others and the
rack held) and per mm of rack (every travel held). The point velocities
that follow (mm/mm, chassis frame) are pushed through the *derivatives* of
the metric formulas here (chain rule), so camber gain, bump steer and the
motion ratio are exact first derivatives at the pose: no finite
differences, no neighbouring sweep steps.

Shapes: vectors (..., 3) with the velocity ``ds`` of the same shape;
results in rad (or mm) per unit input. Units of the reported rates: camber
gain and bump steer deg/mm (bump steer also deg/25 mm), motion ratio mm of
stroke per mm of wheel travel, roll camber deg per deg of roll. `rate_metrics`
writes them for a pose (docs/conventions.md, "Rates").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.metrics.conventions import Preset
from suspension_sim.metrics.geometry import DEG, EX, PoseGeometry, Slot, WheelSet
from suspension_sim.metrics.vectors import Z_UP, cross, d_unit, dot, reject, unit
from suspension_sim.model import slot_rates

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.sensitivity import Tangents


def d_spin_axis(
    centre: np.ndarray,
    axis_point: np.ndarray,
    orientation: np.ndarray,
    d_centre: np.ndarray,
    d_axis_point: np.ndarray,
) -> np.ndarray:
    """Velocity of s = orientation * unit(axis_point - centre) from its points' velocities."""
    o = np.asarray(orientation, dtype=float)[..., None]
    return o * d_unit(axis_point - centre, d_axis_point - d_centre)


def d_camber(s: np.ndarray, ds: np.ndarray, n: np.ndarray = Z_UP) -> np.ndarray:
    """d(-asin(s.n)) = -(ds.n) / sqrt(1 - (s.n)^2) (rad per unit input)."""
    sn = dot(s, n)
    return -dot(ds, n) / np.sqrt(1.0 - sn * sn)


def d_camber_front_view(
    s: np.ndarray, ds: np.ndarray, lateral: np.ndarray, n: np.ndarray = Z_UP
) -> np.ndarray:
    """Derivative of -atan2(s.n, |s.lateral|) (rad per unit input)."""
    p, dp = dot(s, n), dot(ds, n)
    sign = np.sign(dot(s, lateral))
    q, dq = sign * dot(s, lateral), sign * dot(ds, lateral)
    return -(q * dp - p * dq) / (p * p + q * q)


def d_toe(s_chassis: np.ndarray, ds_chassis: np.ndarray) -> np.ndarray:
    """Derivative of atan2(s.x, |s.y|), chassis axes (rad per unit input)."""
    p, dp = s_chassis[..., 0], ds_chassis[..., 0]
    sign = np.sign(s_chassis[..., 1])
    q, dq = sign * s_chassis[..., 1], sign * ds_chassis[..., 1]
    return (q * dp - p * dq) / (p * p + q * q)


def d_contact_point(
    s: np.ndarray,
    ds: np.ndarray,
    d_centre: np.ndarray,
    radius: np.ndarray,
    n: np.ndarray = Z_UP,
) -> np.ndarray:
    """Velocity of CP = C - r d/|d|, d = n - (n.s)s (mm per unit input).

    dd = -(n.ds) s - (n.s) ds; d(d/|d|) = (dd - u (u.dd)) / |d|.
    """
    nn = np.broadcast_to(n, s.shape)
    d = reject(nn, s)
    dd = -dot(nn, ds)[..., None] * s - dot(nn, s)[..., None] * ds
    u = unit(d)
    du = reject(dd, u) / np.sqrt(dot(d, d))[..., None]
    return d_centre - np.asarray(radius, dtype=float)[..., None] * du


def contact_hold_response(dcp_z: np.ndarray, rigid_z: np.ndarray) -> np.ndarray:
    """Wheel-travel rates that keep every contact point on the ground under a chassis motion.

    dcp_z: (n_wheels, n_wheels), d CP_i.z (world) / d travel_k;
    rigid_z: (n_wheels,), d CP_i.z / d chassis coordinate with every joint held.
    Solves ``dcp_z @ dtau = -rigid_z`` (IFT with the contact targets): returns
    dtau (n_wheels,) in mm per unit of the chassis coordinate, NaN if singular.
    """
    try:
        return np.linalg.solve(dcp_z, -rigid_z)
    except np.linalg.LinAlgError:
        return np.full(len(rigid_z), np.nan)


def point_velocities(
    model: KinematicModel, dP: np.ndarray, dq: np.ndarray, idx: np.ndarray
) -> np.ndarray:
    """Chassis-frame velocities of point copies `idx` per tangent column: (m, n_cols, 3)."""
    slots = model.inst_slots[idx]
    r = slot_rates(slots, dq)
    return np.einsum("mki,mku->mui", dP[idx, : slots.shape[1], :, 0], r)


def rate_metrics(
    model: KinematicModel,
    st: WheelSet,
    geo: PoseGeometry,
    tg: Tangents,
    pre: Preset,
    out: dict[Slot, float],
) -> None:
    """Write camber gain, bump steer, steer rate, roll camber and motion ratios into `out`.

    tg: `wheel_tangents` of the pose (one column per wheel's travel, then the rack).
    """
    assert geo.dP is not None, "pose_geometry(..., derivatives=True) is needed for rates"
    n = Z_UP
    n_w = len(st.names)
    R = geo.R
    cols = len(tg.inputs)
    v_C = point_velocities(model, geo.dP, tg.dq, st.i_centre)  # (n_w, cols, 3) chassis frame
    v_A = point_velocities(model, geo.dP, tg.dq, st.i_axis)
    ds_c = d_spin_axis(geo.C_c[:, None], geo.A_c[:, None], st.orient[:, None], v_C, v_A)
    ds_w = ds_c @ R.T
    own = np.arange(n_w)
    ds_c_own, ds_w_own = ds_c[own, own], ds_w[own, own]
    s_w = geo.s_w
    gain = d_camber(s_w, ds_w_own, n)
    gain_fv = d_camber_front_view(s_w, ds_w_own, geo.y_h, n)
    bump = pre.toe_sign * d_toe(geo.s_c, ds_c_own)
    wheel_rates: dict[str, np.ndarray] = {
        "camber_gain": (gain_fv if pre.camber == "front_view" else gain) * DEG,
        "bump_steer": bump * DEG,
        "bump_steer_per_25mm": bump * DEG * 25.0,
    }
    if st.has_rack:
        d_toe_rack = d_toe(geo.s_c, ds_c[:, cols - 1])
        if pre.steer == "toe_change":
            wheel_rates["steer_rate"] = pre.toe_sign * d_toe_rack * DEG
        else:
            wheel_rates["steer_rate"] = -st.side * d_toe_rack * DEG

    # Roll camber: chassis roll with every contact point held on the ground.
    rigid_ds_w = cross(EX, geo.s_c) @ R.T
    rigid_dC_w = cross(EX, geo.C_c - st.reference) @ R.T
    rigid_cp_z = d_contact_point(s_w, rigid_ds_w, rigid_dC_w, st.radius, n)[:, 2]
    v_C_w = v_C[:, :n_w] @ R.T
    dcp_z = d_contact_point(s_w[:, None], ds_w[:, :n_w], v_C_w, st.radius[:, None], n)[..., 2]
    dtau = contact_hold_response(dcp_z, rigid_cp_z)
    dcam = d_camber(s_w[:, None], ds_w[:, :n_w], n)  # (i, k)
    wheel_rates["roll_camber"] = d_camber(s_w, rigid_ds_w, n) + dcam @ dtau  # rad/rad = deg/deg

    for mid, arr in wheel_rates.items():
        for name, v in zip(st.names, arr, strict=True):
            out[(mid, name, "")] = float(v)
    for i, name in enumerate(st.names):
        d = st.damper_of[i]
        if d >= 0:
            mr = float(tg.dq[st.damper_params[d], i])
            out[("motion_ratio", name, "")] = mr
            out[("installation_ratio", name, "")] = 1.0 / mr if mr != 0 else float("inf")
