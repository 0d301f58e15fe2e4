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
`rate_columns` computes them for S states at once (a leading state axis:
`metrics.batch`); `rate_metrics` writes them for one pose through it
(docs/conventions.md, "Rates").
"""

from __future__ import annotations

import contextlib
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.metrics import wheel
from suspension_sim.metrics.conventions import Preset
from suspension_sim.metrics.geometry import DEG, EX, Slot, Wheels, WheelSet, to_world
from suspension_sim.metrics.vectors import Z_UP, cross, d_unit, dot, reject, unit

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


def d_toe_wheel_plane(s_chassis: np.ndarray, ds_chassis: np.ndarray) -> np.ndarray:
    """Derivative of asin(s.x), chassis axes (rad per unit input)."""
    sx = s_chassis[..., 0]
    return ds_chassis[..., 0] / np.sqrt(1.0 - sx * sx)


def d_steer_toe(pre: Preset, s_chassis: np.ndarray, ds_chassis: np.ndarray) -> np.ndarray:
    """Derivative of the toe the preset's steer is a change of (rad per unit input):
    wheel-plane toe (`d_toe_wheel_plane`) in optimumk, top-view toe (`d_toe`) in iso."""
    if pre.steer == "wheel_plane":
        return d_toe_wheel_plane(s_chassis, ds_chassis)
    return d_toe(s_chassis, ds_chassis)


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


def steering_ratio(mean_steer_rate: np.ndarray) -> np.ndarray:
    """``1 / mean(d steer / d steering-wheel angle)``: steering-wheel degrees per degree
    of the axle's mean roadwheel steer; NaN if the axle does not steer.

    The steering-wheel degree is the preset's (`steering_rates`): iso's + = left turn
    gives a positive ratio for any layout; OptimumK's + = rack toward +Y gives its
    Steering Ratio, whose sign follows the rack's side of the axle.
    """
    m = np.asarray(mean_steer_rate, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = 1.0 / m
    return np.where(np.abs(m) > 1e-9, ratio, np.nan)


def slot_rates_batch(slots: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """`model.slot_rates` for stacks dq (S, n_params, n_cols): (S, *slots.shape, n_cols)."""
    padded = np.concatenate([dq, np.zeros((dq.shape[0], 1, dq.shape[2]))], axis=1)
    return padded[:, slots]


def point_velocities(
    model: KinematicModel, dP: np.ndarray, dq: np.ndarray, idx: np.ndarray
) -> np.ndarray:
    """Chassis-frame velocities of point copies `idx` per tangent column, (S, m, n_cols, 3).

    dP: (n_copies, kmax, 3, S) PoE derivatives; dq: (S, n_params, n_cols).
    """
    slots = model.inst_slots[idx]
    r = slot_rates_batch(slots, dq)  # (S, m, k, cols)
    return np.einsum("mkis,smku->smui", dP[idx, : slots.shape[1]], r)


VELOCITY_IDS = frozenset(
    {"camber_gain", "bump_steer", "bump_steer_per_25mm", "steer_rate", "roll_camber"}
    | {"motion_ratio_heave", "steering_toe_gain", "steering_camber_gain", "steering_ratio"}
)
"""The metrics of `rate_columns` that read the wheel centres' and axis points'
velocities (v_C, v_A); the motion and installation ratios need only the dampers' rows."""


def rate_columns(
    st: WheelSet,
    g: Wheels,
    v_C: np.ndarray,
    v_A: np.ndarray,
    Wd: np.ndarray,
    pre: Preset,
    ids: AbstractSet[str] | None = None,
) -> dict[Slot, np.ndarray]:
    """Camber gain, bump steer, steer rate, roll camber, steering toe gain and ratio, motion
    and installation ratios of S states: {slot: (S,)}.

    Along the wheel tangents (one column per wheel's travel, then the rack;
    `solve.sensitivity.wheel_tangents`): v_C, v_A the velocities of the wheel
    centres and axis points (S, n_w, cols, 3), chassis frame (`point_velocities`);
    Wd the damper parameters' rows (S, n_dampers, cols), mm of stroke per unit.
    ids: only these metrics (None = all; the others are not computed).
    """

    def want(*mids: str) -> bool:
        return ids is None or any(m in ids for m in mids)

    n = Z_UP
    n_w = len(st.names)
    R = g.R
    S, cols = len(R), v_C.shape[2]
    out: dict[Slot, np.ndarray] = {}
    wheel_rates: dict[str, np.ndarray] = {}
    steering = ("steering_toe_gain", "steering_camber_gain", "steering_ratio")
    ground = want("roll_camber", "motion_ratio_heave") or (
        st.has_rack and bool(st.rack_ratio) and want(*steering)
    )
    rolls = ground and want("roll_camber")
    steers = ground and st.has_rack and bool(st.rack_ratio) and want(*steering)
    if ground or want("camber_gain", "bump_steer", "bump_steer_per_25mm", "steer_rate"):
        # components first, (3, cols, S, n_w): one loop over S x n_w values per operation
        ds_c3 = _d_spin_axis(g.C_c, g.A_c, st.orient, v_C, v_A)
        ds_c = ds_c3.transpose(2, 3, 1, 0).copy()  # (S, n_w, cols, 3)
        # the `to_world` calls of the plain form, in one when they all can
        chassis = {"ds": ds_c}
        if ground:
            chassis["v_C"] = v_C[:, :, :n_w]
        if steers:
            chassis["v_rack"] = v_C[:, :, cols - 1]
        if rolls:
            chassis["rigid_ds"] = cross(EX, g.s_c)
            chassis["rigid_dC"] = cross(EX, g.C_c - st.reference)
        world = dict(zip(chassis, _to_world_each(R, list(chassis.values())), strict=True))
        ds_w = world["ds"]
        own = np.arange(n_w)
        ds_c_own, ds_w_own = ds_c[:, own, own], ds_w[:, own, own]
        s_w = g.s_w
        if want("camber_gain"):
            if pre.camber == "front_view":
                gain = d_camber_front_view(s_w, ds_w_own, g.y_h[:, None], n)
            else:
                gain = d_camber(s_w, ds_w_own, n)
            wheel_rates["camber_gain"] = gain * DEG
        if want("bump_steer", "bump_steer_per_25mm"):
            bump = pre.toe_sign * d_toe(g.s_c, ds_c_own)
            wheel_rates["bump_steer"] = bump * DEG
            wheel_rates["bump_steer_per_25mm"] = bump * DEG * 25.0
        if st.has_rack and want("steer_rate"):
            d_toe_rack = d_steer_toe(pre, g.s_c, ds_c[:, :, cols - 1])
            wheel_rates["steer_rate"] = -st.side * d_toe_rack * DEG
    if ground:
        s3 = s_w.transpose(2, 0, 1).copy()[:, None]  # (3, 1, S, n_w)
        radius = np.broadcast_to(st.radius, (S, n_w)).copy()
        # d CP.z along every travel column (and the rack's, for the steering rates)
        v_w = world["v_C"]
        if steers:
            v_w = np.concatenate([v_w, world["v_rack"][:, :, None]], axis=2)
        cp_z = _d_contact_z(
            s3, _columns_first(ds_w[:, :, : v_w.shape[2]]), _columns_first(v_w), radius
        )
        dcp_z = cp_z[:n_w].transpose(1, 2, 0).copy()  # (S, i, k)
        if rolls:
            # Roll camber: chassis roll with every contact point held on the ground.
            rigid_ds_w, rigid_dC_w = world["rigid_ds"], world["rigid_dC"]
            rigid_cp_z = _d_contact_z(
                s3,
                _columns_first(rigid_ds_w[:, :, None]),
                _columns_first(rigid_dC_w[:, :, None]),
                radius,
            )[0]
            dtau = square_solve(dcp_z, -rigid_cp_z)
            dcam = _d_camber_z(s3, _columns_first(ds_w[:, :, :n_w]))  # (k, S, i)
            dcam = dcam.transpose(1, 2, 0).copy()  # (S, i, k)
            wheel_rates["roll_camber"] = d_camber(s_w, rigid_ds_w, n) + np.einsum(
                "sik,sk->si", dcam, dtau
            )
        if steers:
            toe_gain, camber_gain, steer = _steering_rates(g, st, pre, ds_c, ds_w, cp_z[n_w], dcp_z)
            wheel_rates["steering_toe_gain"] = toe_gain
            wheel_rates["steering_camber_gain"] = camber_gain
            for axle, (il, ir) in st.axles.items():
                mean = 0.5 * (steer[:, il] + steer[:, ir])
                out[("steering_ratio", axle, "")] = steering_ratio(mean)
    for mid, arr in wheel_rates.items():
        for i, name in enumerate(st.names):
            out[(mid, name, "")] = arr[:, i]
    ratio = want("motion_ratio", "installation_ratio")
    heave = want("motion_ratio_heave")
    if heave:
        # Heave with every contact point on the ground (the chassis up 1 mm lifts every CP 1 mm).
        dtau_heave = square_solve(dcp_z, -np.ones(dcp_z.shape[:2]))
    for i, name in enumerate(st.names):
        d = st.damper_of[i]
        if d < 0:
            continue
        if ratio:
            mr = Wd[:, d, i]
            out[("motion_ratio", name, "")] = mr
            with np.errstate(divide="ignore"):
                out[("installation_ratio", name, "")] = np.where(mr != 0, 1.0 / mr, np.inf)
        if heave:
            # d damper length / d heave = -(d stroke / d travel) . (d travel / d heave)
            d_length = -np.einsum("sk,sk->s", Wd[:, d, :n_w], dtau_heave)
            out[("motion_ratio_heave", name, "")] = wheel.ratio_per_motion(d_length)
    return out


# -- `rate_columns`' formulas on components-first arrays: the same operations --------------
def _columns_first(v: np.ndarray) -> np.ndarray:
    """(S, n_w, cols, 3) -> (3, cols, S, n_w) contiguous."""
    return v.transpose(3, 2, 0, 1).copy()


def _to_world_each(R: np.ndarray, vectors: list[np.ndarray]) -> list[np.ndarray]:
    """``[to_world(R, v) for v in vectors]``, each (S, ..., 3) C-contiguous, in one call
    when every stack holds two vectors or more a state (their 3x3 products then come out
    the same whatever the stack; a one-vector stack takes another BLAS routine)."""
    S = len(R)
    sizes = [v[0].size // 3 for v in vectors]
    if min(sizes) < 2:
        return [to_world(R, v) for v in vectors]
    both = to_world(R, np.concatenate([v.reshape(S, -1, 3) for v in vectors], axis=1))
    bounds = np.cumsum([0, *sizes])
    return [
        both[:, bounds[k] : bounds[k + 1]].copy().reshape(v.shape) for k, v in enumerate(vectors)
    ]


def _d_spin_axis(
    C: np.ndarray, A: np.ndarray, orient: np.ndarray, v_C: np.ndarray, v_A: np.ndarray
) -> np.ndarray:
    """`d_spin_axis` of the wheels' centres and axis points C, A (S, n_w, 3) and their
    velocities (S, n_w, cols, 3): the spin axes' velocities, components first
    (3, cols, S, n_w) (`vectors.d_unit`: (da - u (u.da)) / |a|)."""
    a = (A - C).transpose(2, 0, 1).copy()[:, None]  # (3, 1, S, n_w)
    length = np.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    with np.errstate(invalid="ignore", divide="ignore"):
        u = a / length
    da = _columns_first(v_A - v_C)  # the same differences, one transposition
    along = da[0] * u[0] + da[1] * u[1] + da[2] * u[2]
    o = np.broadcast_to(np.asarray(orient, dtype=float), length.shape).copy()
    return o * ((da - along * u) / length)


def _d_contact_z(
    s: np.ndarray, ds: np.ndarray, d_centre: np.ndarray, radius: np.ndarray
) -> np.ndarray:
    """The z component of `d_contact_point` (n = `Z_UP`), components first: s (3, 1, S,
    n_w), ds and d_centre (3, cols, S, n_w), radius (S, n_w) -> (cols, S, n_w)."""
    n0, n1, n2 = (float(c) for c in Z_UP)
    ns = n0 * s[0] + n1 * s[1] + n2 * s[2]  # dot(nn, s)
    d = np.stack([n0 - ns * s[0], n1 - ns * s[1], n2 - ns * s[2]])  # reject(nn, s)
    nds = n0 * ds[0] + n1 * ds[1] + n2 * ds[2]
    dd = -nds * s - ns * ds
    dd_d = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    with np.errstate(invalid="ignore", divide="ignore"):
        u = d / np.sqrt(dd_d)
    du_z = (dd[2] - (dd[0] * u[0] + dd[1] * u[1] + dd[2] * u[2]) * u[2]) / np.sqrt(dd_d)
    return d_centre[2] - radius * du_z


def _d_camber_z(s: np.ndarray, ds: np.ndarray) -> np.ndarray:
    """`d_camber` (n = `Z_UP`) components first: s (3, 1, S, n_w), ds (3, cols, S, n_w)."""
    n0, n1, n2 = (float(c) for c in Z_UP)
    sn = s[0] * n0 + s[1] * n1 + s[2] * n2
    return -(ds[0] * n0 + ds[1] * n1 + ds[2] * n2) / np.sqrt(1.0 - sn * sn)


def steering_rates(
    g: Wheels,
    st: WheelSet,
    pre: Preset,
    ds_c: np.ndarray,
    ds_w: np.ndarray,
    v_C: np.ndarray,
    dcp_z: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(toe gain, camber gain, d steer) per steering-wheel degree, every contact point
    held on the ground.

    The rack moves with the wheels' travels solved so that no contact point
    leaves the ground (IFT, as roll camber). The steering-wheel degree is the
    preset's (`Preset.steering`): + = left turn in iso (the workbook's signed
    ratio), + = rack toward +Y in optimumk (OptimumK's steering). Toe, camber and
    steer are the preset's (wheel-plane toe in optimumk), toe in the preset's sign;
    the gains are ``Preset.steering_gain_sign`` x d toe (d camber) / d steering:
    + d/d SW in iso, OptimumK's ``-d toe / d SW`` and ``-d camber / d SW`` in
    optimumk. All in deg per deg, (S, n_wheels) each.

    ds_c, ds_w: spin-axis velocities (S, n_w, cols, 3) chassis / world frame; v_C the
    wheel-centre velocities (chassis frame); dcp_z (S, n_w, n_w) d CP_i.z / d travel_k.
    """
    rack = ds_c.shape[2] - 1
    v_rack_w = to_world(g.R, v_C[:, :, rack])
    cp_rack = d_contact_point(g.s_w, ds_w[:, :, rack], v_rack_w, st.radius, Z_UP)[..., 2]
    return _steering_rates(g, st, pre, ds_c, ds_w, cp_rack, dcp_z)


def _steering_rates(
    g: Wheels,
    st: WheelSet,
    pre: Preset,
    ds_c: np.ndarray,
    ds_w: np.ndarray,
    cp_rack: np.ndarray,
    dcp_z: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`steering_rates` from the contact points' rates along the rack, cp_rack (S, n_w)."""
    n_w = len(st.names)
    rack = ds_c.shape[2] - 1
    dtau = square_solve(dcp_z, -cp_rack)
    ds = ds_c[:, :, rack] + np.einsum("sikc,sk->sic", ds_c[:, :, :n_w], dtau)
    ds_world = ds_w[:, :, rack] + np.einsum("sikc,sk->sic", ds_w[:, :, :n_w], dtau)
    d_toe_rack = d_steer_toe(pre, g.s_c, ds)
    if pre.camber == "front_view":
        d_camber_rack = d_camber_front_view(g.s_w, ds_world, g.y_h[:, None], Z_UP)
    else:
        d_camber_rack = d_camber(g.s_w, ds_world, Z_UP)
    assert st.rack_ratio is not None
    per_degree = abs(st.rack_ratio) if pre.steering == "rack_left" else st.rack_ratio
    sign = pre.steering_gain_sign
    toe_gain = sign * pre.toe_sign * d_toe_rack * per_degree
    camber_gain = sign * d_camber_rack * per_degree
    steer = -st.side * d_toe_rack * per_degree
    return toe_gain * DEG, camber_gain * DEG, steer * DEG


def square_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve A x = b per state (A (S, n, n), b (S, n)), NaN where singular.

    The IFT with contact targets: with A = d CP_i.z / d travel_k and b = -(d CP.z / d
    chassis coordinate, joints held), x is the travels' rate that keeps every contact
    point on the ground (mm per unit of the chassis coordinate).
    """
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        x = np.full(b.shape, np.nan)
        for s in range(len(A)):
            with contextlib.suppress(np.linalg.LinAlgError):
                x[s] = np.linalg.solve(A[s], b[s])
        return x


def rate_metrics(
    model: KinematicModel,
    st: WheelSet,
    geo: Wheels,
    tg: Tangents,
    pre: Preset,
    out: dict[Slot, float],
) -> None:
    """Write the `rate_columns` of one pose (`pose_geometry(..., derivatives=True)`) into `out`.

    tg: `wheel_tangents` of the pose (one column per wheel's travel, then the rack).
    """
    assert geo.dP is not None, "pose_geometry(..., derivatives=True) is needed for rates"
    W = tg.dq[None]
    v_C = point_velocities(model, geo.dP, W, st.i_centre)
    v_A = point_velocities(model, geo.dP, W, st.i_axis)
    for slot, v in rate_columns(st, geo, v_C, v_A, W[:, st.damper_params], pre).items():
        out[slot] = float(v[0])
