"""Per-wheel geometry: the model's fixed wheel facts and each pose's wheel quantities.

`wheel_set(model)` gathers what does not change from pose to pose (point
copies, sides, axles, the damper of each wheel, design toe and wheelbase),
kept in ``model.derived``. `place_wheels` places the wheels of S solved
states (spin axes, contact points, the car's heading; a leading state axis)
and `geometry_columns` computes camber, toe, steer, caster, KPI, scrub,
trail, spindle length, half track, track, wheelbase and Ackermann in the
iso convention, signed by the output preset. `metrics.batch` calls them on
chunks of states; `pose_geometry` and `geometry_metrics` on one pose (S = 1).
Definitions: docs/conventions.md ("Wheel quantities", "Axle, side and car
quantities", "Ackermann"). Lengths in mm, angles in rad inside.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.description import CHASSIS, wheel_layout
from suspension_sim.metrics import linkage, wheel
from suspension_sim.metrics.conventions import Preset
from suspension_sim.metrics.vectors import Z_UP, cross, dot, norm, reject, unit
from suspension_sim.solve.sensitivity import input_tangents, part_twists, wheel_tangents
from suspension_sim.tolerances import MIN_DAMPER_RATE, MIN_STEER_TWIST, PURE_TRANSLATION_RAD

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
    contact0: np.ndarray  # design contact points (n, 3): lowest points of the tyre circles
    patch0: np.ndarray  # OptimumK's design contact patches (n, 3): C + r unit(s x X), downward
    toe0: np.ndarray  # design toe (rad)
    toe_wp0: np.ndarray  # design wheel-plane toe (rad): zero of the optimumk preset's steer
    front: np.ndarray  # bool: on the front axle (`wheel_layout`: from the geometry)
    rear: np.ndarray  # bool: on the rear axle
    damper_of: np.ndarray  # index into dampers of each wheel's primary damper, -1 none
    pushrod: np.ndarray  # (n, 2) copies of the ends of each wheel's push/pull rod, -1 none
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
    radius0 = np.array([w.tyre_radius for w in ws], dtype=float)
    cp0 = wheel.contact_point(centre0, s0, radius0)
    half0 = side * cp0[:, 1] if len(ws) else np.zeros(0)
    wheelbases = [float(cp0[f, 0] - cp0[r, 0]) for f, r in sides.values()]
    if car.options.wheelbase_mm is not None:
        design_wheelbase = float(car.options.wheelbase_mm)
    else:
        design_wheelbase = float(np.mean(wheelbases)) if wheelbases else float("nan")
    return WheelSet(
        names=names,
        contact0=cp0,
        patch0=wheel.contact_patch(centre0, s0, radius0, EX),
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
        toe_wp0=wheel.toe_wheel_plane(s0),
        front=front,
        rear=rear,
        damper_of=damper_of,
        pushrod=np.array(
            [
                pushrod_ends(model, w.name, int(d)) if d >= 0 else [-1, -1]
                for w, d in zip(ws, damper_of, strict=True)
            ],
            dtype=int,
        ).reshape(-1, 2),
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


def pushrod_ends(model: KinematicModel, wheel_name: str, damper: int) -> list[int]:
    """Copies of the two ends of a wheel's push- or pullrod, or [-1, -1].

    The rod is a two-point body (not a damper) that joins the rocker carrying
    the wheel's damper (`damper`: index into the car's dampers) to the wheel's
    upright or to an arm that holds one of its kingpin points (OptimumK's
    Push/Pull element). A damper acting on an arm directly has none.
    """
    car = model.car
    w = next(x for x in car.wheels if x.name == wheel_name)
    dampers = {d.body for d in car.dampers}
    moving = car.dampers[damper].moving_point
    rockers = [
        b for b in car.bodies if moving in b.points and b.name not in dampers and b.name != CHASSIS
    ]
    joints = {p for p in (w.kingpin_lower, w.kingpin_upper) if p}
    suspension = {
        b.name
        for b in car.bodies
        if b.name == w.body or (joints & set(b.points) and b.name != CHASSIS)
    }
    for rocker in rockers:
        for link in car.bodies:
            if len(link.points) != 2 or link.name in dampers or link.name == rocker.name:
                continue
            a, b = link.points
            if b in rocker.points:
                a, b = b, a
            if a not in rocker.points:
                continue
            if any(b in body.points for body in car.bodies if body.name in suspension):
                return [copy_index(model, a, link.name), copy_index(model, b, link.name)]
    return [-1, -1]


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


# -- placed wheels (S states; one pose is S = 1) -----------------------------------------
@dataclass(frozen=True)
class Wheels:
    """The wheels of S solved states (one pose: S = 1).

    ``_c`` chassis frame, ``_w`` world frame; (S, n_wheels, 3) unless stated; mm.
    """

    R: np.ndarray  # (S, 3, 3) chassis -> world rotation
    t: np.ndarray  # (S, 3)
    P: np.ndarray  # (S, n_copies, 3) point copies, chassis frame
    C_c: np.ndarray
    A_c: np.ndarray
    s_c: np.ndarray
    C_w: np.ndarray
    s_w: np.ndarray
    cp_w: np.ndarray
    cp_c: np.ndarray
    x_h: np.ndarray  # (S, 3) horizontal heading (world)
    y_h: np.ndarray  # (S, 3) horizontal lateral axis, + = left
    toe: np.ndarray  # (S, n_wheels) iso toe (rad)
    dP: np.ndarray | None = None  # (n_copies, kmax, 3, S) PoE derivatives (rates only)


def to_world(R: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate chassis-frame vectors v (S, ..., 3) by R (S, 3, 3)."""
    S = len(R)
    flat = v.reshape(S, -1, 3)
    return np.matmul(flat, R.transpose(0, 2, 1)).reshape(v.shape)


def to_chassis(R: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate world-frame vectors v (S, ..., 3) by R^T."""
    S = len(R)
    return np.matmul(v.reshape(S, -1, 3), R).reshape(v.shape)


def place_wheels(
    st: WheelSet, P: np.ndarray, R: np.ndarray, t: np.ndarray, dP: np.ndarray | None = None
) -> Wheels:
    """Place the wheels of S states: P (S, n_copies, 3) point copies (chassis frame),
    R (S, 3, 3), t (S, 3) the chassis transforms; dP their PoE derivatives (for rates)."""
    C_c, A_c = P[:, st.i_centre], P[:, st.i_axis]
    s_c = wheel.spin_axis(C_c, A_c, st.orient)
    C_w = to_world(R, C_c) + t[:, None]
    s_w = to_world(R, s_c)
    cp_w = wheel.contact_point(C_w, s_w, st.radius, Z_UP)
    x_h = unit(reject(R[:, :, 0], Z_UP))
    return Wheels(
        R=R,
        dP=dP,
        t=t,
        P=P,
        C_c=C_c,
        A_c=A_c,
        s_c=s_c,
        C_w=C_w,
        s_w=s_w,
        cp_w=cp_w,
        cp_c=to_chassis(R, cp_w - t[:, None]),
        x_h=x_h,
        y_h=cross(Z_UP, x_h),
        toe=wheel.toe(s_c),
    )


def kingpin_axes(
    st: WheelSet, g: Wheels, steer: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Kingpin direction k (up) and a point on it, chassis frame, (S, n_wheels, 3) each.

    From the kingpin points, else from the carrier's steering twist `steer`
    (S, n_wheels, 6) (its instantaneous screw axis, `steering_twists`); NaN
    without either or when the twist has no rotation (|w| <= `MIN_STEER_TWIST`).
    """
    S, n_w = g.toe.shape
    k_c = np.full((S, n_w, 3), np.nan)
    k0_c = np.full((S, n_w, 3), np.nan)
    pts = st.i_lower >= 0
    lo, up = g.P[:, st.i_lower[pts]], g.P[:, st.i_upper[pts]]
    k_c[:, pts], k0_c[:, pts] = unit(up - lo), lo
    if steer is not None and not np.all(pts):
        tw = steer[:, ~pts]
        point, direction = screw_axes(tw)
        turns = norm(tw[..., :3]) > MIN_STEER_TWIST
        direction = np.where(direction[..., 2:] >= 0, direction, -direction)
        k_c[:, ~pts] = np.where(turns[..., None], direction, np.nan)
        k0_c[:, ~pts] = np.where(turns[..., None], point, np.nan)
    return k_c, k0_c


def screw_axes(twist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`solve.sensitivity.screw_axis` for stacks of twists (..., 6): (point, unit direction).

    A pure translation (|w| < `PURE_TRANSLATION_RAD`) gives the origin and v/|v|.
    """
    w, v = twist[..., :3], twist[..., 3:]
    ww = dot(w, w)
    moving = ww >= PURE_TRANSLATION_RAD**2
    safe = np.where(moving, ww, 1.0)[..., None]
    vn = norm(v)[..., None]
    point = np.where(moving[..., None], cross(w, v) / safe, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        slide = np.where(vn > 0, v / np.where(vn > 0, vn, 1.0), v)
    direction = np.where(moving[..., None], w / np.sqrt(safe), slide)
    return point, direction


def geometry_columns(
    st: WheelSet,
    g: Wheels,
    pre: Preset,
    k_c: np.ndarray,
    k0_c: np.ndarray,
    ackermann: bool = True,
    ids: AbstractSet[str] | None = None,
) -> dict[Slot, np.ndarray]:
    """The wheel, axle and side geometry of S states: {slot: (S,) values}, preset signs.

    k_c, k0_c: the kingpin axes (`kingpin_axes`). ackermann: also the
    Ackermann percentage (`linkage.ackermann_percents`). ids: only these
    metrics (None = all; the others are not computed). Formulas: `metrics.wheel`.
    """

    def want(*mids: str) -> bool:
        return ids is None or any(m in ids for m in mids)

    n = Z_UP
    R, t = g.R, g.t
    x_h, y_h = g.x_h[:, None], g.y_h[:, None]
    per_wheel: dict[str, np.ndarray] = {}
    if want("wheel_travel"):
        per_wheel["wheel_travel"] = g.C_c[..., 2] - st.centre0[:, 2]
    if want("camber", "camber_front_view"):
        camber_fv = wheel.camber_front_view(g.s_w, y_h, n)
        if want("camber"):
            camber = camber_fv if pre.camber == "front_view" else wheel.camber(g.s_w, n)
            per_wheel["camber"] = camber * DEG
        if want("camber_front_view"):
            per_wheel["camber_front_view"] = camber_fv * DEG
    if want("camber_chassis"):
        per_wheel["camber_chassis"] = wheel.camber(g.s_c, EZ) * DEG
    if want("toe"):
        per_wheel["toe"] = pre.toe_sign * g.toe * DEG
    if want("toe_wheel_plane"):
        per_wheel["toe_wheel_plane"] = pre.toe_sign * wheel.toe_wheel_plane(g.s_c) * DEG
    if want("steer"):
        per_wheel["steer"] = preset_steer(pre, g.toe, st, s_chassis=g.s_c) * DEG
    if want("caster"):
        per_wheel["caster"] = wheel.caster(k_c) * DEG
    if want("kpi"):
        per_wheel["kpi"] = wheel.kpi(k_c, st.side) * DEG
    kingpin_world = want("scrub_radius", "mechanical_trail", "scrub_vehicle", "trail_vehicle")
    if kingpin_world:
        k_w = to_world(R, k_c)
        k0_w = to_world(R, k0_c) + t[:, None]
    if want("scrub_radius", "mechanical_trail"):
        g_w = wheel.kingpin_ground_point(k0_w, k_w, g.cp_w, n)
        lat, head = wheel.ground_axes(g.s_w, st.side, n)
        per_wheel["scrub_radius"] = wheel.scrub_radius(g.cp_w, g_w, lat)
        per_wheel["mechanical_trail"] = wheel.mechanical_trail(g.cp_w, g_w, head)
    cp_ok = None
    if want("scrub_vehicle", "trail_vehicle", "contact_patch"):
        # OptimumK's contact patch: C + r unit(s x h), h = x_h turned by the wheel-plane steer.
        toe_wp = wheel.toe_wheel_plane(g.s_c)
        heading = wheel.turned_heading(x_h, y_h, wheel.steer(toe_wp, st.toe_wp0, st.side))
        cp_ok = wheel.contact_patch(g.C_w, g.s_w, st.radius, heading, n)
    if cp_ok is not None and want("scrub_vehicle", "trail_vehicle"):
        g_ok = wheel.kingpin_ground_point(k0_w, k_w, cp_ok, n)
        per_wheel["scrub_vehicle"] = wheel.scrub_vehicle(cp_ok, g_ok, y_h, st.side)
        per_wheel["trail_vehicle"] = wheel.trail_vehicle(cp_ok, g_ok, x_h)
    if want("pushrod_length"):
        per_wheel["pushrod_length"] = np.where(
            st.pushrod[:, 0] >= 0,
            norm(g.P[:, st.pushrod[:, 0]] - g.P[:, st.pushrod[:, 1]]),
            np.nan,
        )
    if want("spindle_length"):
        per_wheel["spindle_length"] = wheel.spindle_length(g.C_c, k0_c, k_c)
    half = wheel.half_track(g.cp_c, st.side) if want("half_track", "track") else None
    if half is not None and want("half_track"):
        per_wheel["half_track"] = half
    out: dict[Slot, np.ndarray] = {}
    for mid, arr in per_wheel.items():
        for i, name in enumerate(st.names):
            out[(mid, name, "")] = arr[:, i]
    points: list[tuple[str, np.ndarray | None]] = [
        ("wheel_centre", g.C_w),
        ("contact_point", g.cp_w),
        ("contact_patch", cp_ok),
    ]
    for mid, xyz in points:
        if xyz is None or not want(mid):
            continue
        for i, name in enumerate(st.names):
            for a, comp in enumerate("xyz"):
                out[(mid, name, comp)] = xyz[:, i, a]
    if half is not None and want("track"):
        for axle, (il, ir) in st.axles.items():
            out[("track", axle, "")] = half[:, il] + half[:, ir]
    if want("wheelbase"):
        for side_name, (i_f, i_r) in st.sides.items():
            out[("wheelbase", side_name, "")] = g.cp_c[:, i_f, 0] - g.cp_c[:, i_r, 0]
    if ackermann and want("ackermann") and "front" in st.axles and st.has_rack:
        steer_iso = wheel.steer(g.toe, st.toe0, st.side)
        il, ir = st.axles["front"]
        wb, track = st.design_wheelbase, st.design_track["front"]
        out[("ackermann", "front", "")] = linkage.ackermann_percents(
            steer_iso[:, il], steer_iso[:, ir], wb, track
        )
    return out


def pose_geometry(pose: Pose, st: WheelSet, derivatives: bool) -> Wheels:
    """Place the wheels of one solved pose (S = 1; derivatives: also the PoE derivatives)."""
    T = pose.chassis_transform
    P, dP = pose.model.instance_positions(pose.params[:, None], derivatives=derivatives)
    return place_wheels(st, P.transpose(2, 0, 1), T[None, :3, :3], T[None, :3, 3], dP)


def geometry_metrics(
    st: WheelSet,
    geo: Wheels,
    pre: Preset,
    steer_twists: np.ndarray | None,
    out: dict[Slot, float],
) -> None:
    """Write the wheel, axle and side geometry of one pose (`pose_geometry`) into `out`.

    steer_twists: each carrier's twist per mm of rack (`steering_twists`), which
    gives the kingpin axis of a wheel without kingpin points; None = no such axis.
    """
    k_c, k0_c = kingpin_axes(st, geo, None if steer_twists is None else steer_twists[None])
    for slot, v in geometry_columns(st, geo, pre, k_c, k0_c).items():
        out[slot] = float(v[0])


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


def preset_steer(
    pre: Preset, toe: np.ndarray, st: WheelSet, *, s_chassis: np.ndarray | None = None
) -> np.ndarray:
    """Steer angle (rad) as the preset defines it (`suspension_sim.metrics.conventions`).

    A heading, + = turned left, on both wheels in both presets; iso takes the
    change of the top-view `toe` (rad, iso sign), optimumk the change of the
    wheel-plane toe of `s_chassis` (unit outboard spin axes, chassis frame)
    from its design (static) value.
    """
    if pre.steer == "wheel_plane":
        if s_chassis is None:
            raise ValueError("the optimumk steer is a change of wheel-plane toe: give s_chassis")
        return wheel.steer(wheel.toe_wheel_plane(s_chassis), st.toe_wp0, st.side)
    return wheel.steer(toe, st.toe0, st.side)
