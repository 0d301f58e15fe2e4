"""Per-wheel geometry: the model's fixed wheel facts and each pose's wheel quantities.

`wheel_set(model)` gathers what does not change from pose to pose (point
copies, sides, axles, the damper of each wheel, design toe and wheelbase),
kept in ``model.derived``. `pose_geometry` places the wheels of a solved
pose (spin axes, contact points, the car's heading), and `geometry_metrics`
writes camber, toe, steer, caster, KPI, scrub, trail, spindle length, half
track, track, wheelbase and Ackermann in the iso convention, signed by the
output preset. Definitions: docs/conventions.md ("Wheel quantities", "Axle,
side and car quantities", "Ackermann"). Lengths in mm, angles in rad inside.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.description import CHASSIS, wheel_layout
from suspension_sim.metrics import linkage, wheel
from suspension_sim.metrics.conventions import Preset
from suspension_sim.metrics.vectors import Z_UP, cross, reject, unit
from suspension_sim.solve.sensitivity import input_tangents, part_twists, screw_axis, wheel_tangents
from suspension_sim.tolerances import MIN_DAMPER_RATE, MIN_STEER_TWIST

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

DEG = 180.0 / np.pi
EX, EY, EZ = np.eye(3)

Slot = tuple[str, str, str]
"""(metric id, where, component): one output column before it is named."""


@dataclass(frozen=True)
class WheelSet:
    """Per-model facts about the wheels that do not change from pose to pose.

    Index arrays point into the model's point copies (``model.inst_point``);
    -1 means "none". Lengths in mm, chassis frame.
    """

    names: tuple[str, ...]
    i_centre: np.ndarray  # copy of each wheel centre on its carrier
    i_axis: np.ndarray
    i_lower: np.ndarray  # kingpin lower/upper copies, -1 when not given
    i_upper: np.ndarray
    arms: np.ndarray  # (n, 2, 3): lower/upper arm (pivot, pivot, ball joint) copies, -1 none
    part: np.ndarray  # carrier part index
    side: np.ndarray  # +1 left, -1 right (`suspension_sim.description.wheel_layout`)
    orient: np.ndarray  # +1/-1 so that the spin axis points outboard
    radius: np.ndarray
    centre0: np.ndarray  # design centres (n, 3)
    toe0: np.ndarray  # design toe (rad)
    front: np.ndarray  # bool: on the front axle (`wheel_layout`: from the geometry)
    rear: np.ndarray  # bool: on the rear axle
    damper_of: np.ndarray  # index into dampers of each wheel's primary damper, -1 none
    dampers: tuple[str, ...]
    damper_params: np.ndarray
    damper_design_length: np.ndarray
    axles: dict[str, tuple[int, int]]  # "front"/"rear" -> (left wheel, right wheel)
    sides: dict[str, tuple[int, int]]  # "left"/"right" -> (front wheel, rear wheel)
    has_rack: bool
    rack_ratio: float | None  # mm of rack per steering-wheel degree, + = left turn
    reference: np.ndarray  # chassis reference point
    has_wheelbase: bool  # workbook wheelbase, or a front and a rear wheel on one side
    design_wheelbase: float  # workbook wheelbase, else mean of the sides' design wheelbases
    design_track: dict[str, float]  # axle -> track at design
    kingpin_needs_rack: bool  # some wheel has no kingpin points
    heave: np.ndarray  # (n, n) travel weights of each wheel's side-view motion (axle heave)
    roll: np.ndarray  # (n, n) travel weights of each wheel's front-view motion (axle roll)

    @property
    def double_wishbone(self) -> np.ndarray:
        """bool per wheel: both kingpin points sit on arms pivoted on the chassis."""
        return np.all(self.arms >= 0, axis=(1, 2))


def wheel_set(model: KinematicModel) -> WheelSet:
    """The model's `WheelSet`, built once and kept in ``model.derived``."""
    return model.derived.get(("metrics", "wheel_set"), lambda: _build_wheel_set(model))


def _build_wheel_set(model: KinematicModel) -> WheelSet:
    car = model.car
    inst_of = model.inst_index
    part_of = {p.body: i for i, p in enumerate(model.parts) if p.chain != "damper_rod"}
    ws = car.wheels
    names = tuple(w.name for w in ws)
    centre0 = np.array([car.point(w.centre) for w in ws]).reshape(-1, 3)
    axis0 = np.array([car.point(w.axis_point) for w in ws]).reshape(-1, 3)
    layout = wheel_layout(car)
    side = np.array([1.0 if s == "left" else -1.0 for s in layout.side]).reshape(-1)
    lateral = (axis0 - centre0)[:, 1] * side
    orient = np.where(lateral < 0, -1.0, 1.0)
    s0 = wheel.spin_axis(centre0, axis0, orient)
    front = np.array([a == "front" for a in layout.axle], dtype=bool)
    rear = np.array([a == "rear" for a in layout.axle], dtype=bool)
    axles = {a: (layout.index(lft), layout.index(rgt)) for a, (lft, rgt) in layout.axles.items()}
    sides = {s: (layout.index(f), layout.index(r)) for s, (f, r) in layout.sides.items()}

    dampers = model.damper_names
    damper_params = np.array(model.topology.damper_params, dtype=int)
    damper_len = np.array([car.damper_design_length(d) for d in car.dampers], dtype=float)
    damper_of = np.full(len(ws), -1, dtype=int)
    if len(ws) and len(dampers):
        design = SimpleNamespace(model=model, params=np.zeros(model.n_params))
        tg = wheel_tangents(design)  # type: ignore[arg-type]
        damper_of = primary_dampers(tg.dq[damper_params][:, : len(ws)])
    # Linkage motions (docs/conventions.md, "Instant centres and swing arms"): an
    # axle's heave (both travels +1 mm) for the side view, its roll (left +1,
    # right -1) for the front view; a wheel without a partner moves alone. For
    # independent corners the partner's column does not move the carrier, so
    # both are single-wheel travel; for a rigid axle they are its own motions.
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
    return WheelSet(
        names=names,
        i_centre=np.array([inst_of[(w.centre, w.body)] for w in ws], dtype=int),
        i_axis=np.array([inst_of[(w.axis_point, w.body)] for w in ws], dtype=int),
        # A kingpin point may sit on another body (a MacPherson strut's top mount
        # is on the chassis): take its copy on the wheel's body when there is one.
        i_lower=np.array([copy_index(model, w.kingpin_lower, w.body) for w in ws], dtype=int),
        i_upper=np.array([copy_index(model, w.kingpin_upper, w.body) for w in ws], dtype=int),
        arms=np.array(
            [
                [_arm(model, w.kingpin_lower, w.body), _arm(model, w.kingpin_upper, w.body)]
                for w in ws
            ],
            dtype=int,
        ).reshape(-1, 2, 3),
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
        has_wheelbase=car.options.wheelbase_mm is not None or bool(sides),
        kingpin_needs_rack=any(not w.kingpin_lower for w in ws),
        design_wheelbase=design_wheelbase,
        design_track={a: float(half0[i] + half0[j]) for a, (i, j) in axles.items()},
        heave=heave,
        roll=roll,
    )


def copy_index(model: KinematicModel, point: str | None, body: str) -> int:
    """Copy index of `point` on `body`, else its first copy; -1 for no point."""
    if point is None:
        return -1
    on_body = model.inst_index.get((point, body))
    return on_body if on_body is not None else model.inst_point.index(point)


def _arm(model: KinematicModel, joint: str | None, carrier: str) -> list[int]:
    """(pivot, pivot, ball joint) copies of the arm that carries `joint`, or -1s.

    An arm is a body other than the carrier, the chassis and the dampers that
    holds the kingpin point and at least two points of the chassis (its pivots:
    the first two in workbook order, taken on the chassis; the joint on the carrier).
    """
    car = model.car
    if joint is None or CHASSIS not in {b.name for b in car.bodies}:
        return [-1, -1, -1]
    chassis = set(car.body(CHASSIS).points)
    dampers = {d.body for d in car.dampers}
    for body in car.bodies:
        if body.name in (carrier, CHASSIS) or body.name in dampers or joint not in body.points:
            continue
        pivots = [p for p in body.points if p in chassis and p != joint]
        if len(pivots) >= 2:
            return [
                *(copy_index(model, p, CHASSIS) for p in pivots[:2]),
                copy_index(model, joint, carrier),
            ]
    return [-1, -1, -1]


def primary_dampers(stroke_rates: np.ndarray, floor: float = MIN_DAMPER_RATE) -> np.ndarray:
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


def _signed_ratio(model: KinematicModel) -> float | None:
    """mm of rack per steering-wheel degree, signed so + degrees = left turn; None without."""
    rack = model.car.rack
    if rack is None or not rack.ratio_mm_per_deg:
        return None
    from suspension_sim.solve.steering import rack_per_wheel_degree

    return rack_per_wheel_degree(model)


@dataclass(frozen=True)
class PoseGeometry:
    """The wheels of one solved pose. ``_c`` = chassis frame, ``_w`` = world frame (mm)."""

    T: np.ndarray  # 4x4 chassis -> world
    R: np.ndarray  # its rotation
    t: np.ndarray  # and translation
    P: np.ndarray  # (n_copies, 3) point copies, chassis frame
    dP: np.ndarray | None  # their PoE derivatives (None without rates)
    C_c: np.ndarray  # wheel centres
    A_c: np.ndarray  # axis points
    s_c: np.ndarray  # unit spin axes (outboard)
    C_w: np.ndarray
    s_w: np.ndarray
    cp_w: np.ndarray  # contact points (the lowest point of each tyre circle)
    cp_c: np.ndarray
    x_h: np.ndarray  # the car's horizontal heading (world)
    y_h: np.ndarray  # its horizontal lateral axis, + = left (world)
    toe: np.ndarray  # iso toe (rad)


def pose_geometry(pose: Pose, st: WheelSet, derivatives: bool) -> PoseGeometry:
    """Place the wheels of `pose` (derivatives: also the PoE derivatives, for rates)."""
    model = pose.model
    T = pose.chassis_transform
    R, t = T[:3, :3], T[:3, 3]
    P, dP = model.instance_positions(pose.params[:, None], derivatives=derivatives)
    P = P[:, :, 0]
    C_c, A_c = P[st.i_centre], P[st.i_axis]
    s_c = wheel.spin_axis(C_c, A_c, st.orient)
    C_w = C_c @ R.T + t
    s_w = s_c @ R.T
    cp_w = wheel.contact_point(C_w, s_w, st.radius, Z_UP)
    x_h = unit(reject(R[:, 0], Z_UP))
    return PoseGeometry(
        T=T,
        R=R,
        t=t,
        P=P,
        dP=dP,
        C_c=C_c,
        A_c=A_c,
        s_c=s_c,
        C_w=C_w,
        s_w=s_w,
        cp_w=cp_w,
        cp_c=(cp_w - t) @ R,
        x_h=x_h,
        y_h=cross(Z_UP, x_h),
        toe=wheel.toe(s_c),
    )


def geometry_metrics(
    st: WheelSet,
    geo: PoseGeometry,
    pre: Preset,
    steer_twists: np.ndarray | None,
    out: dict[Slot, float],
) -> None:
    """Write the wheel, axle and side geometry of a pose into `out` (preset signs).

    steer_twists: each carrier's twist per mm of rack (`steering_twists`), which
    gives the kingpin axis of a wheel without kingpin points; None = no such axis.
    """
    n = Z_UP
    n_w = len(st.names)
    R, t, P = geo.R, geo.t, geo.P
    camber = wheel.camber(geo.s_w, n)
    camber_fv = wheel.camber_front_view(geo.s_w, geo.y_h, n)

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
    g_w = wheel.kingpin_ground_point(k0_w, k_w, geo.cp_w, n)
    lat, head = wheel.ground_axes(geo.s_w, st.side, n)

    per_wheel: dict[str, np.ndarray] = {
        "wheel_travel": geo.C_c[:, 2] - st.centre0[:, 2],
        "camber": (camber_fv if pre.camber == "front_view" else camber) * DEG,
        "camber_chassis": wheel.camber(geo.s_c, EZ) * DEG,
        "camber_front_view": camber_fv * DEG,
        "toe": pre.toe_sign * geo.toe * DEG,
        "steer": preset_steer(pre, geo.toe, st) * DEG,
        "caster": wheel.caster(k_c) * DEG,
        "kpi": wheel.kpi(k_c, st.side) * DEG,
        "scrub_radius": wheel.scrub_radius(geo.cp_w, g_w, lat),
        "mechanical_trail": wheel.mechanical_trail(geo.cp_w, g_w, head),
        "spindle_length": wheel.spindle_length(geo.C_c, k0_c, k_c),
        "half_track": wheel.half_track(geo.cp_c, st.side),
    }
    for mid, arr in per_wheel.items():
        for name, v in zip(st.names, arr, strict=True):
            out[(mid, name, "")] = float(v)
    for i, name in enumerate(st.names):
        for a, comp in enumerate("xyz"):
            out[("wheel_centre", name, comp)] = float(geo.C_w[i, a])
            out[("contact_point", name, comp)] = float(geo.cp_w[i, a])

    half = per_wheel["half_track"]
    for axle, (il, ir) in st.axles.items():
        out[("track", axle, "")] = float(half[il] + half[ir])
    for side_name, (i_f, i_r) in st.sides.items():
        out[("wheelbase", side_name, "")] = float(geo.cp_c[i_f, 0] - geo.cp_c[i_r, 0])
    if "front" in st.axles and st.has_rack:
        steer_iso = wheel.steer(geo.toe, st.toe0, st.side)
        il, ir = st.axles["front"]
        out[("ackermann", "front", "")] = linkage.ackermann_percent(
            float(steer_iso[il]),
            float(steer_iso[ir]),
            st.design_wheelbase,
            st.design_track["front"],
        )


def steering_twists(pose: Pose, st: WheelSet, travel_twists: np.ndarray | None) -> np.ndarray:
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


def preset_steer(pre: Preset, toe: np.ndarray, st: WheelSet) -> np.ndarray:
    """Steer angle (rad) in the preset's sign (see `suspension_sim.metrics.conventions`)."""
    if pre.steer == "toe_change":
        return pre.toe_sign * (toe - st.toe0)
    return wheel.steer(toe, st.toe0, st.side)
