"""`pose_metrics`: every metric of a solved pose as one flat, ordered dict.

Computed in the iso convention from the model's own point copies (no
DataFrame look-ups), vectorised over wheels, then signed by the output
preset. Rates and linkage metrics come from one IFT solve
(`suspension_sim.solve.sensitivity.wheel_tangents`) per pose. See docs/metrics.md
for every definition and the design decisions.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.metrics import linkage, rates, wheel
from suspension_sim.metrics.catalogue import CATALOGUE, Metric
from suspension_sim.metrics.conventions import Preset, preset
from suspension_sim.metrics.vectors import Z_UP, cross, reject, unit
from suspension_sim.solve.sensitivity import (
    Tangents,
    input_tangents,
    part_twists,
    screw_axis,
    wheel_tangents,
)
from suspension_sim.solve.solver import blas_controller

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

DEG = 180.0 / np.pi
EX, EY, EZ = np.eye(3)
MIN_STEER_TWIST = 1e-9
"""rad per mm of rack below which the rack does not steer a wheel (no steering axis)."""

Slot = tuple[str, str, str]  # (metric id, where, component)


@dataclass(frozen=True)
class _Static:
    """Per-model facts that do not change from pose to pose (cached per model)."""

    names: tuple[str, ...]
    i_centre: np.ndarray  # point-copy index of each wheel centre (on its carrier)
    i_axis: np.ndarray
    i_lower: np.ndarray  # kingpin lower/upper copies, -1 when not given
    i_upper: np.ndarray
    part: np.ndarray  # carrier part index
    side: np.ndarray  # +1 left, -1 right (design y of the centre; name if on y = 0)
    orient: np.ndarray  # +1/-1 so that the spin axis points outboard
    radius: np.ndarray
    centre0: np.ndarray  # design centres, chassis frame (n, 3)
    toe0: np.ndarray  # design toe (rad)
    front: np.ndarray  # bool: name starts with F
    rear: np.ndarray  # bool: name starts with R
    damper_of: np.ndarray  # index into dampers of each wheel's primary damper, -1 none
    dampers: tuple[str, ...]
    damper_params: np.ndarray
    damper_design_length: np.ndarray
    axles: dict[str, tuple[int, int]]  # "front"/"rear" -> (left wheel, right wheel)
    sides: dict[str, tuple[int, int]]  # "left"/"right" -> (front wheel, rear wheel)
    has_rack: bool
    rack_ratio: float | None
    reference: np.ndarray  # chassis reference point (chassis frame)
    design_wheelbase: float  # workbook wheelbase, else mean of the sides' design wheelbases
    design_track: dict[str, float]  # axle -> track at design
    kingpin_needs_rack: bool  # some wheel has no kingpin points
    heave: np.ndarray  # (n, n) travel weights of each wheel's side-view motion (its axle's heave)
    roll: np.ndarray  # (n, n) travel weights of each wheel's front-view motion (its axle's roll)


_STATIC: weakref.WeakKeyDictionary[KinematicModel, _Static] = weakref.WeakKeyDictionary()
_LAYOUT: weakref.WeakKeyDictionary[KinematicModel, dict[bool, tuple[Slot, ...]]] = (
    weakref.WeakKeyDictionary()
)
_KEYS: weakref.WeakKeyDictionary[KinematicModel, dict[bool, tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)


def _static(model: KinematicModel) -> _Static:
    cached = _STATIC.get(model)
    if cached is not None:
        return cached
    car = model.car
    inst_of = {
        (p, b): i for i, (p, b) in enumerate(zip(model.inst_point, model.inst_body, strict=True))
    }
    part_of = {p.body: i for i, p in enumerate(model.parts) if p.chain != "damper_rod"}
    ws = car.wheels
    names = tuple(w.name for w in ws)
    centre0 = np.array([car.point(w.centre) for w in ws]).reshape(-1, 3)
    axis0 = np.array([car.point(w.axis_point) for w in ws]).reshape(-1, 3)
    side = np.ones(len(ws))
    for i, w in enumerate(ws):
        y = centre0[i, 1]
        if abs(y) > 1e-9:
            side[i] = np.sign(y)
        elif len(w.name) > 1 and w.name[1].upper() == "R":
            side[i] = -1.0
    lateral = (axis0 - centre0)[:, 1] * side
    orient = np.where(lateral < 0, -1.0, 1.0)
    s0 = wheel.spin_axis(centre0, axis0, orient)
    front = np.array([w.name[:1].upper() == "F" for w in ws], dtype=bool)
    rear = np.array([w.name[:1].upper() == "R" for w in ws], dtype=bool)

    def find(axle: str, lr: str) -> int | None:
        hits = [i for i, n in enumerate(names) if n[:1].upper() == axle and n[1:2].upper() == lr]
        return hits[0] if len(hits) == 1 else None

    axles: dict[str, tuple[int, int]] = {}
    sides: dict[str, tuple[int, int]] = {}
    for label, letter in (("front", "F"), ("rear", "R")):
        lft, rgt = find(letter, "L"), find(letter, "R")
        if lft is not None and rgt is not None:
            axles[label] = (lft, rgt)
    for label, letter in (("left", "L"), ("right", "R")):
        f, r = find("F", letter), find("R", letter)
        if f is not None and r is not None:
            sides[label] = (f, r)

    dampers = model.damper_names
    damper_params = np.array(model.topology.damper_params, dtype=int)
    damper_len = np.array(
        [
            np.linalg.norm(car.point(d.moving_point) - car.point(d.chassis_point))
            for d in car.dampers
        ]
    )
    damper_of = np.full(len(ws), -1, dtype=int)
    if len(ws) and len(dampers):
        design = SimpleNamespace(model=model, params=np.zeros(model.n_params))
        tg = wheel_tangents(design)  # type: ignore[arg-type]
        damper_of = rates.primary_dampers(tg.dq[damper_params][:, : len(ws)])
    # Linkage motions (docs/metrics.md, "Linkage metrics"): an axle's heave (both
    # travels +1 mm) for the side view, its roll (left +1, right -1) for the front
    # view; a wheel without a partner moves alone. For independent corners the
    # partner's column does not move the carrier, so both are single-wheel travel;
    # for a rigid axle (both wheels on one body) they are the axle's own motions.
    heave = np.eye(len(ws))
    roll = np.eye(len(ws))
    for lft, rgt in axles.values():
        heave[[lft, rgt]] = 0.0
        heave[[lft, rgt], lft] = heave[[lft, rgt], rgt] = 1.0
        roll[[lft, rgt]] = 0.0
        roll[[lft, rgt], lft], roll[[lft, rgt], rgt] = 1.0, -1.0
    ref_name = car.options.chassis_reference_point
    cp0 = wheel.contact_point(centre0, s0, np.array([w.tyre_radius for w in ws], dtype=float))
    half0 = side * cp0[:, 1] if len(ws) else np.zeros(0)
    wheelbases = [float(cp0[f, 0] - cp0[r, 0]) for f, r in sides.values()]
    if car.options.wheelbase_mm is not None:
        design_wheelbase = float(car.options.wheelbase_mm)
    else:
        design_wheelbase = float(np.mean(wheelbases)) if wheelbases else float("nan")
    st = _Static(
        names=names,
        i_centre=np.array([inst_of[(w.centre, w.body)] for w in ws], dtype=int),
        i_axis=np.array([inst_of[(w.axis_point, w.body)] for w in ws], dtype=int),
        # A kingpin point may sit on another body (a MacPherson strut's top mount
        # is on the chassis): take its copy on the wheel's body when there is one.
        i_lower=np.array([_copy(model, w.kingpin_lower, w.body) for w in ws], dtype=int),
        i_upper=np.array([_copy(model, w.kingpin_upper, w.body) for w in ws], dtype=int),
        part=np.array([part_of[w.body] for w in ws], dtype=int),
        side=side,
        orient=orient,
        radius=np.array([w.tyre_radius for w in ws], dtype=float),
        centre0=centre0,
        toe0=wheel.toe(s0),
        front=front,
        rear=rear,
        damper_of=damper_of,
        dampers=dampers,
        damper_params=damper_params,
        damper_design_length=damper_len,
        axles=axles,
        sides=sides,
        has_rack=model.topology.rack_param is not None,
        rack_ratio=_signed_ratio(model),
        reference=car.point(ref_name) if ref_name else np.zeros(3),
        kingpin_needs_rack=any(not w.kingpin_lower for w in ws),
        design_wheelbase=design_wheelbase,
        design_track={a: float(half0[i] + half0[j]) for a, (i, j) in axles.items()},
        heave=heave,
        roll=roll,
    )
    _STATIC[model] = st
    return st


def _has_wheelbase(model: KinematicModel, st: _Static) -> bool:
    return model.car.options.wheelbase_mm is not None or bool(st.sides)


def _copy(model: KinematicModel, point: str | None, body: str) -> int:
    """Instance index of `point` on `body`, else its first copy; -1 for no point."""
    if point is None:
        return -1
    copies = [i for i, p in enumerate(model.inst_point) if p == point]
    on_body = [i for i in copies if model.inst_body[i] == body]
    return (on_body or copies)[0]


def _signed_ratio(model: KinematicModel) -> float | None:
    """mm of rack per steering-wheel degree, signed so + degrees = left turn; None without."""
    rack = model.car.rack
    if rack is None or not rack.ratio_mm_per_deg:
        return None
    from suspension_sim.solve.steering import rack_per_wheel_degree

    return rack_per_wheel_degree(model)


def layout(model: KinematicModel, rates: bool = True) -> tuple[Slot, ...]:
    """The (metric id, where, component) of every column `pose_metrics` returns, in order."""
    cache = _LAYOUT.setdefault(model, {})
    if rates in cache:
        return cache[rates]
    st = _static(model)
    out: list[Slot] = []
    for m in CATALOGUE.values():
        if m.rates and not rates:
            continue
        for where in _places(m, model, st):
            for comp in m.components or ("",):
                out.append((m.id, where, comp))
    cache[rates] = tuple(out)
    return cache[rates]


def _keys(model: KinematicModel, rates: bool) -> tuple[str, ...]:
    cache = _KEYS.setdefault(model, {})
    if rates not in cache:
        cache[rates] = tuple(CATALOGUE[m].key(w, c) for m, w, c in layout(model, rates))
    return cache[rates]


def _places(m: Metric, model: KinematicModel, st: _Static) -> list[str]:
    """Where a metric applies for this model ([""] for a car-wide one, [] for none)."""
    if m.scope == "car":
        if m.id in ("rack",):
            return [""] if st.has_rack else []
        if m.id == "steering_wheel_angle":
            return [""] if st.has_rack and st.rack_ratio else []
        return [""]
    if m.scope == "damper":
        return list(st.dampers)
    if m.scope == "axle":
        if m.id == "ackermann":
            return (
                ["front"]
                if "front" in st.axles and st.has_rack and _has_wheelbase(model, st)
                else []
            )
        return list(st.axles)
    if m.scope == "side":
        return list(st.sides)
    names = list(st.names)
    if m.id in ("motion_ratio", "installation_ratio"):
        return [n for n, d in zip(names, st.damper_of, strict=True) if d >= 0]
    if m.id == "steer_rate":
        return names if st.has_rack else []
    if m.id in ("anti_dive", "anti_lift", "anti_squat"):
        if not _has_wheelbase(model, st):
            return []
        mask = st.front if m.id == "anti_dive" else st.rear
        return [n for n, f in zip(names, mask, strict=True) if f]
    return names


def pose_metrics(pose: Pose, convention: str | None = None, rates: bool = True) -> dict[str, float]:
    """Every metric of a pose: ``{column: value}`` in catalogue order (see `CATALOGUE`).

    convention: an output preset (``"iso"``, ``"optimumk"``); None = the
    workbook's ``sign_convention``. rates: also the IFT-based metrics (rates,
    instant centres, roll/pitch centres, anti percentages); off = geometry
    only, somewhat faster. A pose that did not converge gives NaN for
    everything but its inputs (chassis state, rack, strokes).
    Units and signs are in the column names and the catalogue.
    """
    model = pose.model
    pre = preset(convention if convention is not None else model.car.options.sign_convention)
    slots = layout(model, rates)
    keys = _keys(model, rates)
    values: dict[Slot, float] = {}
    _inputs(pose, values)
    if pose.converged:
        with blas_controller().limit(limits=1, user_api="blas"):  # small systems: threads only cost
            _wheels(pose, _static(model), pre, rates, values)
    nan = float("nan")
    # "+ 0.0" turns -0.0 into 0.0 so tables do not show "-0".
    return {k: float(values.get(slot, nan)) + 0.0 for k, slot in zip(keys, slots, strict=True)}


def metrics_table(poses: Iterable[Pose], convention: str | None = None) -> pd.DataFrame:
    """One row per pose (in order), one column per metric (`pose_metrics` with rates).

    ``table.attrs["convention"]`` names the preset used.
    """
    rows = []
    name = convention
    for pose in poses:
        if name is None:
            name = pose.model.car.options.sign_convention
        rows.append(pose_metrics(pose, name, rates=True))
    table = pd.DataFrame(rows)
    table.attrs["convention"] = preset(name).name
    return table


# -- computation (iso) ------------------------------------------------------------
def _inputs(pose: Pose, out: dict[Slot, float]) -> None:
    _x, _y, z, roll, pitch, _yaw = pose.chassis
    out[("chassis_heave", "", "")] = float(z)
    out[("chassis_roll", "", "")] = float(roll)
    out[("chassis_pitch", "", "")] = float(pitch)
    out[("rack", "", "")] = float(pose.rack)
    st = _static(pose.model)
    if st.rack_ratio:
        out[("steering_wheel_angle", "", "")] = float(pose.rack) / st.rack_ratio
    for name, length in zip(st.dampers, st.damper_design_length, strict=True):
        stroke = float(pose.shocks[name])
        out[("stroke", name, "")] = stroke
        out[("damper_length", name, "")] = float(length) - stroke


def _inst_rates(
    model: KinematicModel, dP: np.ndarray, dq: np.ndarray, idx: np.ndarray
) -> np.ndarray:
    """Chassis-frame velocities of point copies `idx` per tangent column: (m, n_cols, 3)."""
    slots = model.inst_slots[idx]
    r = np.where(slots[:, :, None] >= 0, dq[np.maximum(slots, 0)], 0.0)
    return np.einsum("mki,mku->mui", dP[idx, : slots.shape[1], :, 0], r)


def _wheels(pose: Pose, st: _Static, pre: Preset, want_rates: bool, out: dict[Slot, float]) -> None:
    model = pose.model
    opts = model.car.options
    n_w = len(st.names)
    if n_w == 0:
        return
    T = pose.chassis_transform
    R, t = T[:3, :3], T[:3, 3]
    n = Z_UP
    axis_from_rack = st.kingpin_needs_rack and st.has_rack
    P, dP = model.instance_positions(pose.params[:, None], derivatives=want_rates)
    P = P[:, :, 0]

    C_c, A_c = P[st.i_centre], P[st.i_axis]
    s_c = wheel.spin_axis(C_c, A_c, st.orient)
    C_w = C_c @ R.T + t
    s_w = s_c @ R.T
    cp_w = wheel.contact_point(C_w, s_w, st.radius, n)
    cp_c = (cp_w - t) @ R
    x_h = unit(reject(R[:, 0], n))  # the car's horizontal heading
    y_h = cross(n, x_h)  # and horizontal lateral axis (+ = left)

    camber = wheel.camber(s_w, n)
    camber_fv = wheel.camber_front_view(s_w, y_h, n)
    toe = wheel.toe(s_c)

    tg: Tangents | None = None
    twists: np.ndarray | None = None
    if want_rates:
        tg = wheel_tangents(pose)
        twists = part_twists(pose, tg)
    steer_twists = _steering_twists(pose, st, twists) if axis_from_rack else None

    # Kingpin axis: the pivots, or the carrier's instantaneous axis under the rack.
    k_c = np.full((n_w, 3), np.nan)
    k0_c = np.full((n_w, 3), np.nan)
    for i in range(n_w):
        if st.i_lower[i] >= 0:
            lo, up = P[st.i_lower[i]], P[st.i_upper[i]]
            k_c[i], k0_c[i] = unit(up - lo), lo
        elif steer_twists is not None:
            tw = steer_twists[i]
            if np.linalg.norm(tw[:3]) > MIN_STEER_TWIST:
                point, direction, _pitch = screw_axis(tw)
                k_c[i] = direction if direction[2] >= 0 else -direction
                k0_c[i] = point
    k_w = k_c @ R.T
    k0_w = k0_c @ R.T + t
    g_w = wheel.kingpin_ground_point(k0_w, k_w, cp_w, n)
    lat, head = wheel.ground_axes(s_w, st.side, n)

    per_wheel: dict[str, np.ndarray] = {
        "wheel_travel": C_c[:, 2] - st.centre0[:, 2],
        "camber": (camber_fv if pre.camber == "front_view" else camber) * DEG,
        "camber_chassis": wheel.camber(s_c, EZ) * DEG,
        "camber_front_view": camber_fv * DEG,
        "toe": pre.toe_sign * toe * DEG,
        "steer": _steer(pre, toe, st) * DEG,
        "caster": wheel.caster(k_c) * DEG,
        "kpi": wheel.kpi(k_c, st.side) * DEG,
        "scrub_radius": wheel.scrub_radius(cp_w, g_w, lat),
        "mechanical_trail": wheel.mechanical_trail(cp_w, g_w, head),
        "spindle_length": wheel.spindle_length(C_c, k0_c, k_c),
        "half_track": wheel.half_track(cp_c, st.side),
    }
    for mid, arr in per_wheel.items():
        for name, v in zip(st.names, arr, strict=True):
            out[(mid, name, "")] = float(v)
    for i, name in enumerate(st.names):
        for a, comp in enumerate("xyz"):
            out[("wheel_centre", name, comp)] = float(C_w[i, a])
            out[("contact_point", name, comp)] = float(cp_w[i, a])

    half = per_wheel["half_track"]
    for axle, (il, ir) in st.axles.items():
        out[("track", axle, "")] = float(half[il] + half[ir])
    for side_name, (i_f, i_r) in st.sides.items():
        out[("wheelbase", side_name, "")] = float(cp_c[i_f, 0] - cp_c[i_r, 0])
    L = st.design_wheelbase
    steer_iso = wheel.steer(toe, st.toe0, st.side)
    if "front" in st.axles and st.has_rack:
        il, ir = st.axles["front"]
        out[("ackermann", "front", "")] = linkage.ackermann_percent(
            float(steer_iso[il]), float(steer_iso[ir]), L, st.design_track["front"]
        )

    if tg is None or twists is None or dP is None:
        return

    # -- rates along the wheel-travel and rack tangents ------------------------
    cols = len(tg.inputs)
    v_C = _inst_rates(model, dP, tg.dq, st.i_centre)  # (n_w, cols, 3) chassis frame
    v_A = _inst_rates(model, dP, tg.dq, st.i_axis)
    ds_c = rates.d_spin_axis(C_c[:, None], A_c[:, None], st.orient[:, None], v_C, v_A)
    ds_w = ds_c @ R.T
    own = np.arange(n_w)
    ds_c_own, ds_w_own = ds_c[own, own], ds_w[own, own]
    gain = rates.d_camber(s_w, ds_w_own, n)
    gain_fv = rates.d_camber_front_view(s_w, ds_w_own, y_h, n)
    bump = pre.toe_sign * rates.d_toe(s_c, ds_c_own)
    wheel_rates: dict[str, np.ndarray] = {
        "camber_gain": (gain_fv if pre.camber == "front_view" else gain) * DEG,
        "bump_steer": bump * DEG,
        "bump_steer_per_25mm": bump * DEG * 25.0,
    }
    if st.has_rack:
        d_toe_rack = rates.d_toe(s_c, ds_c[:, cols - 1])
        if pre.steer == "toe_change":
            wheel_rates["steer_rate"] = pre.toe_sign * d_toe_rack * DEG
        else:
            wheel_rates["steer_rate"] = -st.side * d_toe_rack * DEG

    # Roll camber: chassis roll with every contact point held on the ground.
    rigid_ds_w = cross(EX, s_c) @ R.T
    rigid_dC_w = cross(EX, C_c - st.reference) @ R.T
    rigid_cp_z = rates.d_contact_point(s_w, rigid_ds_w, rigid_dC_w, st.radius, n)[:, 2]
    v_C_w = v_C[:, :n_w] @ R.T
    dcp_z = rates.d_contact_point(s_w[:, None], ds_w[:, :n_w], v_C_w, st.radius[:, None], n)[..., 2]
    dtau = rates.contact_hold_response(dcp_z, rigid_cp_z)
    dcam = rates.d_camber(s_w[:, None], ds_w[:, :n_w], n)  # (i, k)
    roll_cam = rates.d_camber(s_w, rigid_ds_w, n) + dcam @ dtau
    wheel_rates["roll_camber"] = roll_cam  # rad/rad = deg/deg

    for mid, arr in wheel_rates.items():
        for name, v in zip(st.names, arr, strict=True):
            out[(mid, name, "")] = float(v)
    for i, name in enumerate(st.names):
        d = st.damper_of[i]
        if d >= 0:
            mr = float(tg.dq[st.damper_params[d], i])
            out[("motion_ratio", name, "")] = mr
            out[("installation_ratio", name, "")] = 1.0 / mr if mr != 0 else float("inf")

    # -- instant centres, swing arms, antis, roll and pitch centres -----------------
    # Screw-axis centres (CONVENTIONS.md wording) from each wheel's own travel
    # column; in-plane centres, swing arms, antis and roll/pitch centres from the
    # carrier's velocity under its axle's heave (side view) or roll (front view).
    tw_own = twists[st.part, :, own]  # (n_w, 6): carrier twist per mm of its wheel's travel
    travel = twists[st.part, :, :n_w]  # (n_w, 6, n_w): carrier i per mm of wheel k
    tw_side = np.einsum("iak,ik->ia", travel, st.heave)
    tw_front = np.einsum("iak,ik->ia", travel, st.roll)

    def velocity(tw: np.ndarray, p: np.ndarray) -> np.ndarray:
        """World velocity of carrier-fixed points p (chassis frame) under twists tw."""
        return (tw[:, 3:] + cross(tw[:, :3], p)) @ R.T

    cp_side, c_side = velocity(tw_side, cp_c), velocity(tw_side, C_c)
    cp_front = velocity(tw_front, cp_c)
    for i, name in enumerate(st.names):
        fv = linkage.instant_centre(tw_own[i], C_c[i], EX)
        sv = linkage.instant_centre(tw_own[i], C_c[i], EY)
        pf = linkage.finite(linkage.transform_homogeneous(T, *fv), fv[1])
        ps = linkage.finite(linkage.transform_homogeneous(T, *sv), sv[1])
        out[("fvic", name, "y")], out[("fvic", name, "z")] = float(pf[1]), float(pf[2])
        out[("svic", name, "x")], out[("svic", name, "z")] = float(ps[0]), float(ps[2])
        fv = linkage.planar_centre(tw_front[i], C_c[i], EX)
        sv = linkage.planar_centre(tw_side[i], C_c[i], EY)
        fv = (linkage.transform_homogeneous(T, *fv), fv[1])
        sv = (linkage.transform_homogeneous(T, *sv), sv[1])
        pf, ps = linkage.finite(*fv), linkage.finite(*sv)
        out[("fvic_planar", name, "y")] = float(pf[1])
        out[("fvic_planar", name, "z")] = float(pf[2])
        out[("svic_planar", name, "x")] = float(ps[0])
        out[("svic_planar", name, "z")] = float(ps[2])
        out[("fvsa", name, "")] = linkage.view_distance(cp_w[i], *fv, x_h)
        out[("svsa", name, "")] = linkage.view_distance(cp_w[i], *sv, y_h)
        antis: list[tuple[str, bool, float, bool]] = []  # (metric, front, share, force at C)
        if st.front[i]:
            antis.append(("anti_dive", True, opts.front_brake_share, opts.front_brakes_inboard))
        elif st.rear[i]:
            share = 1.0 - opts.front_brake_share
            antis.append(("anti_lift", False, share, opts.rear_brakes_inboard))
            antis.append(("anti_squat", False, opts.rear_drive_share, opts.drive_inboard))
        for mid, is_front, share, at_centre in antis:
            direction, _ = linkage.view_normal(c_side[i] if at_centre else cp_side[i], y_h)
            out[(mid, name, "")] = linkage.anti_percent(
                direction, x_h, n, is_front, L, opts.cg_height_mm, share
            )

    for axle, (il, ir) in st.axles.items():
        u, h = linkage.centre_of_lines(
            cp_w[il],
            linkage.view_normal(cp_front[il], x_h),
            cp_w[ir],
            linkage.view_normal(cp_front[ir], x_h),
            y_h,
            n,
        )
        mid = 0.5 * (cp_w[il] + cp_w[ir])
        rc = (mid @ x_h) * x_h + u * y_h + h * n
        out[("roll_centre_height", axle, "")] = float(h)
        out[("roll_centre_lateral", axle, "")] = float(((rc - t) @ R)[1])
    for side_name, (i_f, i_r) in st.sides.items():
        x, h = linkage.centre_of_lines(
            cp_w[i_f],
            linkage.view_normal(cp_side[i_f], y_h),
            cp_w[i_r],
            linkage.view_normal(cp_side[i_r], y_h),
            x_h,
            n,
        )
        out[("pitch_centre", side_name, "x")] = float(x)
        out[("pitch_centre", side_name, "z")] = float(h)


def _steering_twists(pose: Pose, st: _Static, travel_twists: np.ndarray | None) -> np.ndarray:
    """Twist (w, v) of each wheel's carrier per mm of rack, chassis frame: (n_wheels, 6).

    With every damper stroke held (`input_tangents`): the springs hold the
    ride position while the rack turns the wheel. For a double wishbone this
    is exactly the rotation about the ball-joint line (the wishbones cannot
    move), and for a multi-link it is the usual virtual steering axis.
    Holding the wheel centre height instead (the wheel-travel tangent) would
    make the wishbones move to keep C level as it swings round the inclined
    axis, which tilts the axis by ~0.2 deg on a typical FSAE corner. A wheel
    that no damper moves falls back to the travel-held tangent.
    """
    held = input_tangents(pose)
    out = part_twists(pose, held)[st.part, :, len(held.inputs) - 1]
    if np.any(st.damper_of < 0):
        if travel_twists is None:
            travel_twists = part_twists(pose, wheel_tangents(pose))
        last = travel_twists.shape[2] - 1
        loose = st.damper_of < 0
        out[loose] = travel_twists[st.part[loose], :, last]
    return out


def _steer(pre: Preset, toe: np.ndarray, st: _Static) -> np.ndarray:
    """Steer angle (rad) in the preset's sign (see `conventions`)."""
    if pre.steer == "toe_change":
        return pre.toe_sign * (toe - st.toe0)
    return wheel.steer(toe, st.toe0, st.side)


def wheel_dampers(model: KinematicModel) -> dict[str, str | None]:
    """Wheel -> the damper its motion ratio refers to (None: no damper moves with it)."""
    st = _static(model)
    return {
        name: (st.dampers[d] if d >= 0 else None)
        for name, d in zip(st.names, st.damper_of, strict=True)
    }
