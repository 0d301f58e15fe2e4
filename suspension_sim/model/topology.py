"""Joint classification: what each body's joint to the chassis is.

Rowe's table 1, made deterministic and extended (docs/model.md):

=========  ==========================================================  ======
class      rule                                                        params
=========  ==========================================================  ======
damper     named in Damping: universal at its chassis point, then a    2 + 1
           prismatic stroke that moves only the moving side (input)
rack       the Steering rack: prismatic along its end points (input)   1
fixed      shares 3+ non-collinear points with the chassis, or only    0
           points on one chassis axis (nothing can move)
revolute   shares two points (or a collinear set) with the chassis     1
universal  one chassis point, two points in all                        2
spherical  one chassis point, three or more points                     3
tbar       a T-bar lever (Anti-roll Bars): universal at its pivot, first   2
           about the pivot axis (fixed in the chassis), then about the
           shaft axis (on the lever): params pivot_angle, twist
link5      two points, none on the chassis (pushrod, tie rod):         5
           translation + universal, so no passive spin about its axis
free6      everything else (uprights, axles): 3 translations,          6
           3 rotations about its centroid
=========  ==========================================================  ======

Each body gets a local frame in which its screws are canonical; see
`suspension_sim.model.screws.chain_template`. A U-bar's arms are plain revolute
bodies. `bar_twist_params` says which parameters make an anti-roll bar's twist.
Units: mm, rad.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from suspension_sim.description import (
    CHASSIS,
    AntiRollBar,
    Car,
    t_bar_axes,
    u_bar_arm_fault,
)
from suspension_sim.errors import ModelError
from suspension_sim.model.screws import JointSpec, frame_from_axis, transform
from suspension_sim.tolerances import AXIS_ALONG_Y_MIN, COINCIDENT_MM, ON_LINE_MM, TBAR_SQUARE_DEG

SIGNATURES: dict[str, tuple[JointSpec, ...]] = {
    "fixed": (),
    "revolute": (("R", "z"),),
    "universal": (("R", "x"), ("R", "y")),
    "spherical": (("R", "x"), ("R", "y"), ("R", "z")),
    "tbar": (("R", "x"), ("R", "y")),
    "damper_cylinder": (("R", "x"), ("R", "y")),
    "damper_rod": (("R", "x"), ("R", "y"), ("P", "-z")),
    "rack": (("P", "z"),),
    "link5": (("P", "x"), ("P", "y"), ("P", "z"), ("R", "x"), ("R", "y")),
    "free6": (("P", "x"), ("P", "y"), ("P", "z"), ("R", "x"), ("R", "y"), ("R", "z")),
}

PARAM_NAMES: dict[str, tuple[str, ...]] = {
    "fixed": (),
    "revolute": ("angle",),
    "universal": ("angle_x", "angle_y"),
    "spherical": ("angle_x", "angle_y", "angle_z"),
    "tbar": ("pivot_angle", "twist"),
    "damper": ("angle_x", "angle_y", "stroke"),
    "rack": ("travel",),
    "link5": ("dx", "dy", "dz", "angle_x", "angle_y"),
    "free6": ("dx", "dy", "dz", "angle_x", "angle_y", "angle_z"),
}

GRUEBLER_FREEDOM: dict[str, int] = {
    # Freedoms of the body relative to the chassis before loop closure,
    # counting passive spins (a ball-ball link has 6: its spin is passive).
    "fixed": 0,
    "revolute": 1,
    "universal": 2,
    "spherical": 3,
    "tbar": 2,
    "damper": 3,
    "rack": 1,
    "link5": 6,
    "free6": 6,
}


@dataclass(frozen=True)
class Part:
    """A rigid set of points moved by one PoE chain (a body, or half a damper)."""

    body: str
    chain: str  # key of SIGNATURES
    frame: np.ndarray  # 4x4 local frame at design, chassis coordinates
    params: tuple[int, ...]  # global parameter index of each joint in the chain
    points: tuple[str, ...]


@dataclass(frozen=True)
class BodyJoint:
    """The classified joint of one body and why it was chosen."""

    body: str
    kind: str
    params: tuple[int, ...]
    reason: str
    parts: tuple[Part, ...] = field(default=())


@dataclass(frozen=True)
class Topology:
    """All bodies' joints, the global parameter list and the inputs."""

    joints: tuple[BodyJoint, ...]
    param_names: tuple[str, ...]
    param_body: tuple[str, ...]
    damper_params: tuple[int, ...]  # stroke parameter of each damper, Damping order
    rack_param: int | None
    passive_spins: int

    def joint(self, body: str) -> BodyJoint:
        for j in self.joints:
            if j.body == body:
                return j
        raise KeyError(body)


def _distance_to_line(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = (b - a) / np.linalg.norm(b - a)
    r = p - a
    return float(np.linalg.norm(r - (r @ d) * d))


def _require_distinct(car: Car, body: str, a: str, b: str, pts: dict[str, np.ndarray]) -> None:
    if np.linalg.norm(pts[a] - pts[b]) < COINCIDENT_MM:
        where = str(car.body(body).source) if car.body(body).source else None
        raise ModelError(
            f"body {body!r}: points {a} and {b} are at the same place, so they define no axis",
            where=where,
            hint="move one of the points in Hard Points, or remove it from the body",
        )


def classify(car: Car) -> Topology:
    """Classify every body's joint and lay out the parameter vector."""
    pts = car.point_map()
    chassis_pts = set(car.body(CHASSIS).points)
    damper_of = {d.body: d for d in car.dampers}
    rack_body = car.rack.body if car.rack else None
    special = set(damper_of) | ({rack_body} if rack_body else set())
    lever_of = _check_bars(car, special)

    joints: list[BodyJoint] = []
    names: list[str] = []
    owner: list[str] = []
    spins = 0

    def new_params(body: str, kind: str) -> tuple[int, ...]:
        start = len(names)
        for p in PARAM_NAMES[kind]:
            names.append(f"{body}.{p}")
            owner.append(body)
        return tuple(range(start, len(names)))

    for b in car.bodies:
        if b.name == CHASSIS:
            continue
        shared = [p for p in b.points if p in chassis_pts]
        others = [p for p in b.points if p not in chassis_pts]
        if b.name in damper_of:
            d = damper_of[b.name]
            _require_distinct(car, b.name, d.chassis_point, d.moving_point, pts)
            frame = frame_from_axis(
                pts[d.moving_point] - pts[d.chassis_point], pts[d.chassis_point]
            )
            ids = new_params(b.name, "damper")
            rod = tuple(p for p in b.points if p != d.chassis_point)
            parts = (
                Part(b.name, "damper_cylinder", frame, ids[:2], (d.chassis_point,)),
                Part(b.name, "damper_rod", frame, ids, rod),
            )
            reason = f"damper: universal at {d.chassis_point}, stroke along it to {d.moving_point}"
            joints.append(BodyJoint(b.name, "damper", ids, reason, parts))
            continue
        if b.name == rack_body:
            assert car.rack is not None
            e0, e1 = car.rack.end_points
            _require_distinct(car, b.name, e0, e1, pts)
            axis = pts[e1] - pts[e0]
            axis = axis / np.linalg.norm(axis)
            if abs(axis[1]) < AXIS_ALONG_Y_MIN:
                raise ModelError(
                    f"rack {b.name!r}: its axis {e0} -> {e1} is perpendicular to Y, "
                    "so 'positive rack = toward +Y' has no meaning",
                    where=str(car.rack.source) if car.rack.source else None,
                    hint="check the rack end points in Steering and Hard Points",
                )
            if shared:
                raise ModelError(
                    f"rack {b.name!r} shares {', '.join(shared)} with the Chassis; its "
                    "prismatic joint to the chassis is implicit",
                    where=str(b.source) if b.source else None,
                    hint="remove the chassis points from the rack body in Components",
                )
            frame = frame_from_axis(axis if axis[1] > 0 else -axis, pts[e0])
            ids = new_params(b.name, "rack")
            part = Part(b.name, "rack", frame, ids, b.points)
            reason = f"steering rack: prismatic along {e0} -> {e1}"
            joints.append(BodyJoint(b.name, "rack", ids, reason, (part,)))
            continue

        if b.name in lever_of:
            bar = lever_of[b.name]
            frame, reason = _t_bar_frame(car, bar, shared, pts)
            ids = new_params(b.name, "tbar")
            part = Part(b.name, "tbar", frame, ids, b.points)
            joints.append(BodyJoint(b.name, "tbar", ids, reason, (part,)))
            continue
        try:
            kind, frame, reason = _classify_plain(b.name, list(b.points), shared, others, pts)
        except ModelError as exc:
            exc.where = exc.where or (str(b.source) if b.source else car.source_path)
            raise
        ids = new_params(b.name, kind)
        chain = "fixed" if kind == "fixed" else kind
        spins += kind == "link5"
        joints.append(
            BodyJoint(b.name, kind, ids, reason, (Part(b.name, chain, frame, ids, b.points),))
        )

    for bar in car.anti_roll_bars:
        if bar.kind == "U-bar":
            for arm in bar.arms:
                kind = next(j.kind for j in joints if j.body == arm)
                if kind != "revolute":  # u_bar_arm_fault let it through: a third chassis point
                    raise ModelError(
                        f"anti-roll bar {bar.name!r}: arm {arm!r} is {kind}, not revolute"
                        " about the bar axis",
                        where=_where(car, bar),
                        hint="a U-bar arm shares only points on the bar axis with the Chassis",
                    )
    damper_params = tuple(
        next(j for j in joints if j.body == d.body).params[2] for d in car.dampers
    )
    rack_param = next(j.params[0] for j in joints if j.kind == "rack") if rack_body else None
    return Topology(tuple(joints), tuple(names), tuple(owner), damper_params, rack_param, spins)


def _classify_plain(
    body: str,
    points: list[str],
    shared: list[str],
    others: list[str],
    pts: dict[str, np.ndarray],
) -> tuple[str, np.ndarray, str]:
    """Kind, local frame and reason for a body that is neither damper nor rack."""
    identity = np.eye(4)
    if len(shared) >= 2:
        a, b = pts[shared[0]], pts[shared[1]]
        if np.linalg.norm(b - a) < COINCIDENT_MM:
            raise ModelError(
                f"body {body!r}: chassis points {shared[0]} and {shared[1]} coincide",
                hint="give the two pivot points distinct coordinates in Hard Points",
            )
        off_axis = [p for p in shared[2:] if _distance_to_line(pts[p], a, b) > ON_LINE_MM]
        if off_axis:
            return (
                "fixed",
                identity,
                (f"shares {', '.join(shared)} (not on one line) with the Chassis: fixed to it"),
            )
        moving = [p for p in others if _distance_to_line(pts[p], a, b) > ON_LINE_MM]
        if not moving:
            return (
                "fixed",
                identity,
                (f"all its points lie on the chassis axis {shared[0]}-{shared[1]}: nothing moves"),
            )
        frame = frame_from_axis(b - a, a)
        return "revolute", frame, f"revolute about {shared[0]}-{shared[1]}"
    if len(shared) == 1:
        c = pts[shared[0]]
        if len(points) == 2:
            other = others[0]
            if np.linalg.norm(pts[other] - c) < COINCIDENT_MM:
                raise ModelError(
                    f"body {body!r}: points {shared[0]} and {other} coincide",
                    hint="a link needs two distinct points",
                )
            frame = frame_from_axis(pts[other] - c, c)
            return "universal", frame, f"universal at {shared[0]} (two-point link)"
        return "spherical", transform(np.eye(3), c), f"spherical at {shared[0]}"
    if len(points) == 2:
        a, b = pts[points[0]], pts[points[1]]
        if np.linalg.norm(b - a) < COINCIDENT_MM:
            raise ModelError(
                f"body {body!r}: points {points[0]} and {points[1]} coincide",
                hint="a link needs two distinct points",
            )
        frame = frame_from_axis(b - a, a)
        return (
            "link5",
            frame,
            (
                f"two-point link between moving bodies: 5 coordinates (spin about "
                f"{points[0]}-{points[1]} removed)"
            ),
        )
    centroid = np.mean([pts[p] for p in points], axis=0)
    return "free6", transform(np.eye(3), centroid), "free body: 6 DOF about its centroid"


def _where(car: Car, bar: AntiRollBar) -> str | None:
    return str(bar.source) if bar.source else car.source_path


def _check_bars(car: Car, special: set[str]) -> dict[str, AntiRollBar]:
    """Check every bar against the car (the reader checks the same, naming cells; this
    covers cars built in code) and return T-bar lever body -> its bar."""
    bodies = {b.name: b for b in car.bodies}
    chassis = bodies[CHASSIS]
    pts = car.point_map()
    levers: dict[str, AntiRollBar] = {}
    used: set[str] = set()
    for bar in car.anti_roll_bars:

        def fault(message: str, hint: str, bar: AntiRollBar = bar) -> ModelError:
            return ModelError(
                f"anti-roll bar {bar.name!r}: {message}", where=_where(car, bar), hint=hint
            )

        n_arms = {"U-bar": 2, "T-bar": 1}.get(bar.kind)
        if n_arms is None:
            raise fault(f"unknown kind {bar.kind!r}", "a bar is a 'U-bar' or a 'T-bar'")
        if len(bar.arms) != n_arms or len(set(bar.arms)) != n_arms:
            raise fault(
                f"a {bar.kind} has {n_arms} distinct arm(s), found {list(bar.arms)}",
                "U-bar: two arms; T-bar: one lever",
            )
        for arm in bar.arms:
            if arm not in bodies or arm == CHASSIS or arm in special or arm in used:
                raise fault(
                    f"arm {arm!r} is not a free body of its own (unknown, the Chassis, a"
                    " damper, the rack or another bar's arm)",
                    "name the bar's own arm bodies from Components",
                )
            used.add(arm)
        for p in bar.axis_points:
            if p not in chassis.points:
                raise fault(f"axis point {p!r} is not on the Chassis", "name chassis points")
        if not bar.rate > 0:
            raise fault(f"torsional rate {bar.rate!r} N mm/rad", "a bar's rate is above 0")
        if bar.kind == "U-bar":
            for arm in bar.arms:
                problem = u_bar_arm_fault(bodies[arm], chassis, pts, bar.axis_points)
                if problem is not None:
                    raise fault(problem, "list two chassis points on the bar axis on the arm")
        else:
            levers[bar.arms[0]] = bar
    return levers


def _t_bar_frame(
    car: Car, bar: AntiRollBar, shared: list[str], pts: dict[str, np.ndarray]
) -> tuple[np.ndarray, str]:
    """Local frame of a T-bar lever: origin at the pivot, x = pivot axis, y = shaft axis
    (made perpendicular to x, within `TBAR_SQUARE_DEG`), z = x cross y; and the reason."""
    lever = bar.arms[0]
    pivot, axis2 = bar.axis_points
    shaft = bar.shaft_point

    def fault(message: str, hint: str) -> ModelError:
        return ModelError(f"T-bar {bar.name!r}: {message}", where=_where(car, bar), hint=hint)

    if shared != [pivot]:
        raise fault(
            f"lever {lever!r} shares {', '.join(shared) or 'nothing'} with the Chassis; its"
            f" only chassis point must be the pivot {pivot!r}",
            "list the pivot (Axis point 1) on the lever and the Chassis, and nothing else of"
            " the lever on the Chassis",
        )
    lever_points = car.body(lever).points
    if axis2 in lever_points:
        raise fault(f"axis point 2 {axis2!r} is on the lever", "use a chassis point off it")
    if shaft is None or shaft not in lever_points or shaft == pivot:
        raise fault(
            f"shaft point {shaft!r} is not a point of the lever other than the pivot",
            "name the lever point that, with the pivot, gives the shaft (torsion) axis",
        )
    for a, b in ((pivot, axis2), (pivot, shaft)):
        if np.linalg.norm(pts[b] - pts[a]) < COINCIDENT_MM:
            raise fault(f"{a} and {b} are at the same place", "give them distinct coordinates")
    u, w, miss = t_bar_axes(pts[pivot], pts[axis2], pts[shaft])
    if miss > TBAR_SQUARE_DEG:
        raise fault(
            f"the shaft axis {pivot} -> {shaft} is {90.0 - miss:.3f} deg from the pivot axis"
            f" {pivot} -> {axis2}, not 90 deg (within {TBAR_SQUARE_DEG:g} deg)",
            "the lever's two axes must be perpendicular: move the shaft point or axis point 2",
        )
    frame = transform(np.column_stack([u, w, np.cross(u, w)]), pts[pivot])
    reason = (
        f"T-bar lever of {bar.name!r}: universal at {pivot}, turning about the pivot axis"
        f" {pivot} -> {axis2}, then twisting about the shaft axis {pivot} -> {shaft}"
    )
    return frame, reason


class HasTopology(Protocol):
    """What `bar_twist_params` reads of a model (a `KinematicModel` has both)."""

    @property
    def car(self) -> Car: ...

    @property
    def topology(self) -> Topology: ...


def bar_twist_params(
    model: HasTopology, bar: AntiRollBar | str
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Parameter indices and signs of an anti-roll bar's twist (rad).

    ``twist = sum(sign * q[index])`` for a parameter vector q of the model (q = 0 at
    design, so the twist is 0 there); + is a right-handed rotation about the bar axis
    from axis point 1 to axis point 2 (U-bar) or about the shaft axis from the pivot
    to the shaft point (T-bar). U-bar: arm 1's angle minus arm 2's, each revolute
    angle signed by whether its own joint axis points along the bar axis. T-bar: the
    lever's ``twist`` parameter (its ``pivot_angle`` is free and stores no energy).
    `bar` is an `AntiRollBar` of ``model.car`` or its name; KeyError if unknown.
    """
    car, topo = model.car, model.topology
    if isinstance(bar, str):
        found = [b for b in car.anti_roll_bars if b.name == bar]
        if not found:
            raise KeyError(bar)
        bar = found[0]
    if bar.kind == "T-bar":
        return (topo.joint(bar.arms[0]).params[1],), (1.0,)
    a, b = (car.point(p) for p in bar.axis_points)
    axis = b - a
    idx: list[int] = []
    signs: list[float] = []
    for arm, sign in zip(bar.arms, (1.0, -1.0), strict=True):
        joint = topo.joint(arm)
        along = float(joint.parts[0].frame[:3, 2] @ axis)
        idx.append(joint.params[0])
        signs.append(sign if along > 0 else -sign)
    return tuple(idx), tuple(signs)


def bar_twist(model: HasTopology, bar: AntiRollBar | str, q: np.ndarray) -> np.ndarray:
    """An anti-roll bar's twist (rad) for parameter vectors q (n_params,) or (n_params, B):
    `bar_twist_params` applied."""
    idx, signs = bar_twist_params(model, bar)
    q = np.asarray(q, dtype=float)
    return np.tensordot(np.asarray(signs), q[list(idx)], axes=1)
