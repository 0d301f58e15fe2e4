"""OptimumK's rate channels of one solved pose: gains, motion ratios, steering rates.

Every rate is a first derivative at the pose from the solved constraint Jacobian
(implicit function theorem), as `suspension_sim.metrics.rates` does: the joint
parameters' rates per mm of each wheel's travel and per mm of rack
(`solve.sensitivity.wheel_tangents`) give the wheels' velocities; a chassis motion
adds the rigid velocity of its twist; the wheels' travels are then solved so that
every contact patch stays at its height (OptimumK's ground), and the angle rates
follow by the chain rule. No finite differences.

The motions (OptimumK's definitions, docs/optimumk.md):

* heave: the chassis up 1 mm (world Z), contact patches held;
* single-wheel bump of wheel j: its contact patch up 1 mm, the chassis and every other
  contact patch held;
* roll: the chassis turning about the current roll axis (rear -> front roll centre,
  + lifts the left side), contact patches held; per radian (= deg/deg);
* steering: the steering wheel turned 1 deg (rack = SW x ratio), contact patches held.

OptimumK's angles: camber ``-asin(s.z)``, toe ``-asin(s.x)`` (world; s the outboard
spin axis), steer ``side x (toe - static toe)`` (`suspension_sim.optimumk.centres.ok_steer`,
the one steer of the OptimumK channels). Its contact patch ``CP = C + r unit(s x h)``
(taken downward; h = X turned about Z by the steer angle) is the point held on the ground.
Internal units mm, rad.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.metrics.geometry import Wheels, WheelSet
from suspension_sim.metrics.rates import d_spin_axis, point_velocities
from suspension_sim.metrics.vectors import cross, d_unit, unit
from suspension_sim.solve.sensitivity import wheel_tangents

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.solve.pose import Pose

EX, EY, EZ = np.eye(3)
DEG = 180.0 / np.pi


@dataclass(frozen=True)
class Motion:
    """One motion's rates of every wheel (per unit of the motion: mm, rad or SW deg).

    camber, toe: d angle (rad) per unit, (n_wheels,). length: d damper length (mm) per
    unit of each wheel's damper, (n_wheels,), NaN for a wheel without one.
    """

    camber: np.ndarray
    toe: np.ndarray
    length: np.ndarray


@dataclass(frozen=True)
class PoseRates:
    """The motions of one pose: heave (per mm), bump[j] (per mm of wheel j's contact
    patch up), roll (per rad, None without a roll axis), steering (per SW degree, None
    without a rack and ratio)."""

    heave: Motion
    bump: tuple[Motion, ...]
    roll: Motion | None
    steering: Motion | None


def angle_rates(s: np.ndarray, ds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rates of camber -asin(s.z) and toe -asin(s.x) (rad per unit) along ds (world)."""
    return (
        -ds[..., 2] / np.sqrt(1.0 - s[..., 2] ** 2),
        -ds[..., 0] / np.sqrt(1.0 - s[..., 0] ** 2),
    )


def contact_patch_rate(
    s: np.ndarray,
    ds: np.ndarray,
    dC: np.ndarray,
    radius: np.ndarray,
    steer: np.ndarray,
    side: np.ndarray,
) -> np.ndarray:
    """Velocity of OptimumK's contact patch C + r down unit(s x h) (mm per unit), world.

    h = cos(d) X + sin(d) Y with d the steer angle ``side x (-asin(s.x) - static)``, so
    dh = (-sin d X + cos d Y) dd, dd = side x (-ds.x / sqrt(1 - s.x^2)). s, radius,
    steer, side per wheel; ds, dC (n_wheels, ..., 3) along any number of columns.
    """
    extra = (slice(None),) + (None,) * (ds.ndim - s.ndim)
    d = steer[extra]
    h = np.cos(d)[..., None] * EX + np.sin(d)[..., None] * EY
    h_perp = -np.sin(d)[..., None] * EX + np.cos(d)[..., None] * EY
    dd = side[extra] * (-ds[..., 0] / np.sqrt(1.0 - s[extra][..., 0] ** 2))
    s_b = np.broadcast_to(s[extra], ds.shape)
    q = cross(s_b, h)
    down = np.where(unit(q)[..., 2] > 0.0, -1.0, 1.0)[..., None]
    dq = cross(ds, h) + cross(s_b, h_perp * dd[..., None])
    return dC + radius[extra][..., None] * down * d_unit(q, dq)


def pose_rates(
    pose: Pose,
    st: WheelSet,
    geo: Wheels,
    roll_axis: tuple[np.ndarray, np.ndarray] | None,
    rack_per_sw_deg: float | None,
) -> PoseRates:
    """The rates of one solved pose.

    geo: `pose_geometry(pose, st, derivatives=True)`; roll_axis: (point, unit direction)
    of the current roll axis, world mm (None: no roll rates); rack_per_sw_deg: mm of rack
    per steering-wheel degree, + = toward +Y (None: no steering rates). The steer that
    turns each contact patch's heading is `suspension_sim.optimumk.centres.ok_steer`.
    """
    from suspension_sim.optimumk.centres import ok_steer

    model = pose.model
    assert geo.dP is not None, "pose_geometry(..., derivatives=True) is needed for rates"
    n_w = len(st.names)
    tg = wheel_tangents(pose)
    W = tg.dq[None]
    R = geo.R[0]
    v_C = point_velocities(model, geo.dP, W, st.i_centre)[0]  # (n_w, cols, 3) chassis
    v_A = point_velocities(model, geo.dP, W, st.i_axis)[0]
    C_c, A_c = geo.C_c[0], geo.A_c[0]
    ds_cols = d_spin_axis(C_c[:, None], A_c[:, None], st.orient[:, None], v_C, v_A) @ R.T
    dC_cols = v_C @ R.T  # (n_w, cols, 3) world
    s, C = geo.s_w[0], geo.C_w[0]
    steer = ok_steer(st, s)
    cam_cols, toe_cols = angle_rates(s[:, None], ds_cols)
    cpz_cols = contact_patch_rate(s, ds_cols, dC_cols, st.radius, steer, st.side)[..., 2]
    stroke = W[0][st.damper_params]  # (n_dampers, cols) d stroke per column
    has = st.damper_of >= 0
    len_cols = np.full((n_w, dC_cols.shape[1]), np.nan)
    len_cols[has] = -stroke[st.damper_of[has]]  # length = design - stroke
    M = cpz_cols[:, :n_w]  # d CP_i.z / d travel_k

    def motion(w: np.ndarray, v: np.ndarray, rack: float, target: np.ndarray) -> Motion:
        """Rigid twist (w, v) of the chassis (world), rack rate, and the contact patches'
        required rise; the travels solved by the IFT with the contact patches held."""
        ds_r = cross(np.broadcast_to(w, s.shape), s)
        dC_r = v + cross(np.broadcast_to(w, C.shape), C)
        cp_r = contact_patch_rate(s, ds_r, dC_r, st.radius, steer, st.side)[..., 2]
        rack_cols = dC_cols.shape[1] > n_w
        if rack and rack_cols:
            cp_r = cp_r + rack * cpz_cols[:, n_w]
        try:
            tau = np.linalg.solve(M, target - cp_r)
        except np.linalg.LinAlgError:
            tau = np.full(n_w, np.nan)
        coef = np.concatenate([tau, [rack] if rack_cols else []])
        cam_r, toe_r = angle_rates(s, ds_r)
        return Motion(
            camber=cam_r + cam_cols @ coef,
            toe=toe_r + toe_cols @ coef,
            length=len_cols @ coef,
        )

    zero = np.zeros(3)
    heave = motion(zero, EZ, 0.0, np.zeros(n_w))
    bump = tuple(motion(zero, zero, 0.0, np.eye(n_w)[j]) for j in range(n_w))
    roll = None
    if roll_axis is not None and np.all(np.isfinite(roll_axis[0])):
        point, a = roll_axis
        if np.all(np.isfinite(a)):
            roll = motion(a, -cross(a, point), 0.0, np.zeros(n_w))
    steering = None
    if rack_per_sw_deg and st.has_rack:
        steering = motion(zero, zero, float(rack_per_sw_deg), np.zeros(n_w))
    return PoseRates(heave, bump, roll, steering)
