"""Re-framing a design's moved bodies without classifying them again (the DOE's model).

A design of a study is the base car with a few points moved by millimetres, so each
body keeps its joint class: `refit` takes the class from the base car's `Topology`
and computes only the new frames from the moved points, by `classify`'s own rules,
for all the moved bodies at once (`screws.frames_from_axes`). It repeats `classify`'s
coordinate-dependent decisions (points on a pivot axis, points that coincide, a rack
axis perpendicular to y) and answers None, for `classify` to decide, whenever a class
would change or a distance is within `REFIT_MARGIN` of one of its thresholds.
`refit_plan` is the part that depends on the names alone (kept per base car by
`explore.doe_refill`), `RefitPlan.joints` the arithmetic per design;
tests/test_topology_refit.py compares with `classify` on random moves. Units: mm.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from suspension_sim.description import CHASSIS, Car
from suspension_sim.model.screws import frames_from_axes, transform
from suspension_sim.model.topology import BodyJoint, Part, Topology
from suspension_sim.tolerances import AXIS_ALONG_Y_MIN, COINCIDENT_MM, ON_LINE_MM

REFIT_MARGIN = 1e-3
"""`refit` is conclusive only where each distance it compares with a threshold of
`classify` (``COINCIDENT_MM``, ``ON_LINE_MM``, ``AXIS_ALONG_Y_MIN``) is farther from it
than this fraction of the threshold (plus 1e-12): its vectorised arithmetic may differ
from `classify`'s in the last bits, never by that much."""


_BAND_COINCIDENT = REFIT_MARGIN * COINCIDENT_MM + 1e-12
_BAND_ON_LINE = REFIT_MARGIN * ON_LINE_MM + 1e-12
_BAND_ALONG_Y = REFIT_MARGIN * AXIS_ALONG_Y_MIN + 1e-12
"""The bands about `classify`'s thresholds in which `refit` does not decide (a distance
d is clear of threshold t when ``abs(d - t) > REFIT_MARGIN * t + 1e-12``)."""


def _fixed_case(reason: str) -> int:
    """Which of `_classify_plain`'s two rules made a body with two chassis points fixed:
    0, a third chassis point off their axis; 2, every point on that axis."""
    return 0 if reason.startswith("shares ") else 2


_T = TypeVar("_T")


def _rows(index: list[int]) -> np.ndarray:
    return np.array(index, dtype=np.intp)


def replaced(obj: _T, **changes: object) -> _T:
    """``dataclasses.replace(obj, **changes)`` for a frozen dataclass: the same fields in
    the same order, without running ``__init__`` (a few times cheaper; `refit` and the
    DOE make a few dozen per design), unless the class has a ``__post_init__`` (then
    `dataclasses.replace` itself)."""
    if hasattr(obj, "__post_init__") or not hasattr(obj, "__dict__"):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    if not changes.keys() <= obj.__dict__.keys():  # as dataclasses.replace refuses it
        unknown = sorted(changes.keys() - obj.__dict__.keys())
        raise TypeError(f"{type(obj).__name__} has no field(s) {', '.join(unknown)}")
    new = object.__new__(type(obj))
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new


@dataclass(frozen=True)
class RefitPlan:
    """What `refit` derives from the names alone (the bodies' classes, which points
    make which axis, line and frame), as rows of the car's point list; `joints` does
    the arithmetic for one design's coordinates. Made by `refit_plan`."""

    order: tuple[str, ...]  # the car's point names, in order: the rows of `joints`' xyz
    plan: tuple[tuple[BodyJoint, str, int | np.ndarray], ...]
    """Per body: its base joint, where its frame comes from ("axis": a row of the axes,
    "keep": the base joint as it is, "eye": the identity, "centre": the point row,
    "centroid": the mean of the point rows) and that row or rows."""
    axis_head: np.ndarray  # per axis: the point rows of its head and tail (its origin)
    axis_tail: np.ndarray
    rack: tuple[int, int, int] | None  # the rack's row of the axes, its end points' rows
    coincide: tuple[np.ndarray, np.ndarray]  # vectors head - tail not below COINCIDENT_MM
    line_p: np.ndarray  # per line check: the point, and the axis's two points
    line_a: np.ndarray
    line_b: np.ndarray
    line_shared: np.ndarray  # the point is a chassis point (bool)
    line_group: np.ndarray  # its body's entry of `expect`
    expect: np.ndarray  # per body with two chassis points: classify's rule (0, 1, 2)

    def joints(self, xyz: np.ndarray) -> dict[str, BodyJoint] | None:
        """`refit` for the coordinates `xyz` (n, 3), mm, of the points `order` names."""
        axes = xyz[self.axis_head] - xyz[self.axis_tail]
        origins = xyz[self.axis_tail]
        if self.rack is not None:
            row, e0, e1 = self.rack
            axis = xyz[e1] - xyz[e0]
            length = math.sqrt(axis.dot(axis))  # float(np.linalg.norm(axis)), its numbers
            if not (length > COINCIDENT_MM and abs(length - COINCIDENT_MM) > _BAND_COINCIDENT):
                return None
            axis = axis / length
            along = abs(float(axis[1]))
            if not abs(along - AXIS_ALONG_Y_MIN) > _BAND_ALONG_Y or along < AXIS_ALONG_Y_MIN:
                return None
            axes[row] = axis if axis[1] > 0 else -axis
        head, tail = self.coincide
        if len(head):
            v = xyz[head] - xyz[tail]
            lengths = np.sqrt(np.add.reduce(v * v, axis=1))  # np.linalg.norm(v, axis=1)
            if not (
                (np.abs(lengths - COINCIDENT_MM) > _BAND_COINCIDENT).all()
                and (lengths > COINCIDENT_MM).all()
            ):
                return None
        if len(self.line_p):
            A = xyz[self.line_a]
            d = xyz[self.line_b] - A
            d = d / np.sqrt(np.add.reduce(d * d, axis=1))[:, None]
            r = xyz[self.line_p] - A
            w = r - np.add.reduce(r * d, axis=1)[:, None] * d
            dist = np.sqrt(np.add.reduce(w * w, axis=1))
            if not (np.abs(dist - ON_LINE_MM) > _BAND_ON_LINE).all():
                return None
            off = dist > ON_LINE_MM
            n, g, shared = len(self.expect), self.line_group, self.line_shared
            shared_off = np.bincount(g, off & shared, n) > 0
            moving_off = np.bincount(g, off & ~shared, n) > 0
            # classify's order: a shared point off the axis makes it fixed (one reason),
            # else a moving point off it revolute, else fixed (the other reason)
            sub = np.where(shared_off, 0, np.where(moving_off, 1, 2))
            if (sub != self.expect).any():
                return None
        frames = frames_from_axes(axes, origins) if len(axes) else np.zeros((0, 4, 4))
        out: dict[str, BodyJoint] = {}
        for j, how, where in self.plan:
            if how == "keep":
                out[j.body] = j
                continue
            if how == "axis":
                frame = frames[where]
            elif how == "eye":
                frame = np.eye(4)
            elif how == "centre":
                frame = transform(np.eye(3), xyz[where])
            else:
                frame = transform(np.eye(3), np.mean(xyz[where], axis=0))
            if len(j.parts) == 1:
                parts: tuple[Part, ...] = (replaced(j.parts[0], frame=frame),)
            else:
                parts = tuple(replaced(p, frame=frame) for p in j.parts)
            out[j.body] = replaced(j, parts=parts)
        return out


def point_rows(car: Car) -> np.ndarray:
    """The coordinates of ``car.points`` in order (n, 3), mm: the numbers of
    ``car.point_map()`` as rows."""
    flat = itertools.chain.from_iterable([p.xyz for p in car.points])
    return np.fromiter(flat, dtype=float, count=3 * len(car.points)).reshape(-1, 3)


def refit_plan(car: Car, base: Topology, bodies: Collection[str]) -> RefitPlan | None:
    """The part of `refit` that depends on names alone, for the cars with `car`'s bodies,
    dampers, rack and point names: None when `refit` is None whatever the coordinates
    (a body's class cannot be kept by these rules, a T-bar lever, an unknown name)."""
    order = tuple(p.name for p in car.points)
    row = {name: k for k, name in enumerate(order)}
    chassis = set(car.body(CHASSIS).points)
    damper_of = {d.body: d for d in car.dampers}
    by_name = {b.name: b for b in car.bodies}
    joint_of = {j.body: j for j in base.joints}
    heads: list[int] = []
    tails: list[int] = []
    rack: tuple[int, int, int] | None = None
    plan: list[tuple[BodyJoint, str, int | np.ndarray]] = []
    c_head: list[int] = []
    c_tail: list[int] = []
    lp: list[int] = []
    la: list[int] = []
    lb: list[int] = []
    ls: list[bool] = []
    lg: list[int] = []
    expect: list[int] = []

    def axis(j: BodyJoint, head: int, tail: int) -> None:
        heads.append(head)
        tails.append(tail)
        plan.append((j, "axis", len(heads) - 1))

    try:
        for name in bodies:
            j = joint_of[name]
            b = by_name[name]
            if j.kind == "damper":
                d = damper_of[name]
                c, m = row[d.chassis_point], row[d.moving_point]
                c_head.append(m)
                c_tail.append(c)
                axis(j, m, c)
                continue
            if j.kind == "rack":
                assert car.rack is not None and car.rack.body == name
                e0, e1 = (row[p] for p in car.rack.end_points)
                rack = (len(heads), e0, e1)
                axis(j, e1, e0)
                continue
            if j.kind == "tbar" or name == (car.rack.body if car.rack else None):
                return None
            shared = [row[p] for p in b.points if p in chassis]
            others = [row[p] for p in b.points if p not in chassis]
            if len(shared) >= 2:
                a, e = shared[0], shared[1]
                c_head.append(e)
                c_tail.append(a)
                for p, is_shared in [(p, True) for p in shared[2:]] + [(p, False) for p in others]:
                    lp.append(p)
                    la.append(a)
                    lb.append(e)
                    ls.append(is_shared)
                    lg.append(len(expect))
                if j.kind == "revolute":
                    expect.append(1)
                    axis(j, e, a)
                elif j.kind == "fixed":
                    expect.append(_fixed_case(j.reason))
                    identity = all(np.array_equal(p.frame, np.eye(4)) for p in j.parts)
                    plan.append((j, "keep" if identity else "eye", 0))
                else:
                    return None
            elif len(shared) == 1:
                if j.kind == "universal" and len(b.points) == 2:
                    c_head.append(others[0])
                    c_tail.append(shared[0])
                    axis(j, others[0], shared[0])
                elif j.kind == "spherical" and len(b.points) != 2:
                    plan.append((j, "centre", shared[0]))
                else:
                    return None
            elif len(b.points) == 2:
                if j.kind != "link5":
                    return None
                a, e = row[b.points[0]], row[b.points[1]]
                c_head.append(e)
                c_tail.append(a)
                axis(j, e, a)
            else:
                if j.kind != "free6":
                    return None
                plan.append((j, "centroid", _rows([row[p] for p in b.points])))
    except KeyError:
        return None
    return RefitPlan(
        order,
        tuple(plan),
        _rows(heads),
        _rows(tails),
        rack,
        (_rows(c_head), _rows(c_tail)),
        _rows(lp),
        _rows(la),
        _rows(lb),
        np.array(ls, dtype=bool),
        _rows(lg),
        np.array(expect, dtype=np.int64),
    )


def refit(car: Car, base: Topology, bodies: Collection[str]) -> dict[str, BodyJoint] | None:
    """The joints of `bodies` for `car`, a car with `base`'s bodies, dampers and rack
    whose points moved (a design of a study), when each keeps its joint class in `base`:
    the same kind, parameters, reason and parts, the frames computed from `car`'s points
    by `classify`'s rules (`screws.frames_from_axes` for all the bodies at once).

    None when that is not certain, and `classify` must answer: a body's class would
    change (a wishbone's ball joint moved onto its pivot axis...), a distance lies within
    `REFIT_MARGIN` of one of `classify`'s thresholds (it may raise there), or a body is
    a T-bar lever (its frame comes from its bar). `refit_plan` does the part that
    depends on names (kept by the DOE for all its designs), `RefitPlan.joints` the
    arithmetic. tests/test_topology_refit.py compares with `classify` on random moves.
    Units: mm.
    """
    plan = refit_plan(car, base, bodies)
    return None if plan is None else plan.joints(point_rows(car))


# -- anti-roll bars ----------------------------------------------------------------
