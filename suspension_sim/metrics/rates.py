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
stroke per mm of wheel travel, roll camber deg per deg of roll.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.metrics.vectors import Z_UP, d_unit, dot, reject, unit


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


def primary_dampers(stroke_rates: np.ndarray, floor: float = 1e-6) -> np.ndarray:
    """For each wheel (column), the damper (row) whose stroke moves most per mm of travel.

    stroke_rates: (n_dampers, n_wheels) d stroke / d travel at design. -1 for a
    wheel that moves no damper (|rate| < floor). Two wheels may share a damper
    (a monoshock); a damper that is nobody's largest (a heave damper) gets
    no motion_ratio column.
    """
    if stroke_rates.size == 0:
        return np.full(stroke_rates.shape[1], -1, dtype=int)
    best = np.argmax(np.abs(stroke_rates), axis=0)
    moved = np.abs(stroke_rates[best, np.arange(stroke_rates.shape[1])]) >= floor
    return np.where(moved, best, -1)
