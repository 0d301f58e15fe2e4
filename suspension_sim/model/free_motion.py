"""Free motions at design: following them, and searching for their likely causes.

When the counts of `suspension_sim.model.mobility` find the Jacobian in the
unknowns rank-deficient with every input held, each null vector is followed
(moved `FOLLOW_MOVE_MM` and closed again by Gauss-Newton) to tell a mechanism
(a finite motion: the pose is not unique, an error) from a toggle (free to
first order only: flagged, allowed); see that module's docstring for the rule.
A mechanism is described by the bodies that move, the screw axis of the
best-located one, and its likely causes (a point on one body only, a body whose
points are all on another body, and the one-point replacements that would
remove it, each tried on a rebuilt model).

This is the error path only (a healthy car never reaches it), and it is kept
apart from the counts so each can be read on its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.description import CHASSIS
from suspension_sim.errors import SuspensionSimError
from suspension_sim.model.model import slot_rates
from suspension_sim.model.rank import design_test, jacobian_blocks
from suspension_sim.model.screws import skew
from suspension_sim.tolerances import RANK_TOL

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model.model import JacobianLayout, KinematicModel

FOLLOW_MOVE_MM = 2.0
"""A free motion at design is followed until its fastest point has moved this far (mm)."""
FOLLOW_CLOSED_MM = 1e-8
"""...and counts as followed when every joint closes again below this gap (mm)..."""
FOLLOW_KEPT = 0.5
"""...with at least this share of the move kept (closing by going back to design is a toggle)."""
FOLLOW_ITERATIONS = 40
"""Gauss-Newton steps allowed to close the joints after the move."""
MOVING_SHARE = 1e-3
"""A body takes part in a free motion when a point of it moves faster than this share
of the fastest point."""
ON_AXIS_MM = 0.05
"""A hard point this close (mm) to a free motion's screw axis is named as lying on it."""
TRANSLATION_RATE = 1e-6
"""rad per mm of the fastest point's motion below which a free motion is a pure slide."""
SCREW_PITCH_MM = 1e-2
"""mm per rad of slide along the axis above which a free motion is named a screw."""
MAX_REPAIR_TRIALS = 24
"""One-point replacements tried (each a rebuilt model, about 30 ms; error path only)."""
REPAIR_POINTS = 3
"""Lone points (nearest the moving bodies first) tried as replacements."""


@dataclass(frozen=True)
class FreeMotion:
    """A motion of the mechanism at design that survives with every input held and can be
    followed (a mechanism, not a toggle).

    `bodies`: the bodies that move, fastest first; `body`: the one whose screw axis is
    given (`point`, mm, `direction` unit, `pitch` mm/rad, or `direction` only for a slide);
    `through`: its hard points on that axis; `causes`: likely causes as sentences;
    `rows`: bodies whose Components rows the causes point at (the first is where to look);
    `count`: independent free motions of these bodies (the axis is that of one of them).
    """

    bodies: tuple[str, ...]
    body: str
    direction: tuple[float, float, float]
    point: tuple[float, float, float] | None
    pitch: float
    through: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    count: int = 1

    def axis_text(self) -> str:
        """How the named body moves, in words and numbers (mm, unit direction)."""
        d = ", ".join(f"{c:+.3f}" for c in self.direction)
        if self.point is None:
            return f"{self.body} slides along ({d})"
        if len(self.through) >= 2:
            where = f"the line through {' and '.join(self.through[:2])}"
        elif self.through:
            where = f"an axis through {self.through[0]}"
        else:
            where = "an axis"
        p = ", ".join(f"{c:.1f}" for c in self.point)
        text = f"{self.body} turns about {where} (point ({p}) mm, direction ({d}))"
        if abs(self.pitch) > SCREW_PITCH_MM:
            text += f", sliding {self.pitch:.3g} mm along it per radian (a screw)"
        return text

    def lines(self) -> list[str]:
        """The motion and its likely causes, for `Mobility.lines`."""
        many = f" ({self.count} independent motions; one of them)" if self.count > 1 else ""
        verb = "moves" if len(self.bodies) == 1 else "move"
        out = [
            f"FREE MOTION: {', '.join(self.bodies)} {verb} with every stroke and the rack "
            f"held{many}: {self.axis_text()}."
        ]
        out += [f"  likely cause: {cause}." for cause in self.causes]
        if not self.causes:
            out.append(
                "  likely cause: a joint missing between these bodies and a located one: "
                "check their rows in Components for a misspelt or misplaced point name."
            )
        return out


def free_motions(model: KinematicModel) -> tuple[FreeMotion, ...]:
    """The free motions at design that can be followed with every input held (see module
    docstring): one per independent block of J_x (a corner) with null vectors that survive
    the follow test, described by `_describe` from the first of them, with its likely
    causes and how many there are. Empty for an exactly constrained car or a toggle."""
    u = model.input_params()
    x = np.setdiff1d(np.arange(model.n_params), u)
    q0 = np.zeros(model.n_params)
    lay = model.layout(x)
    Jx = model.dense_jacobian(q0, x)
    found: list[FreeMotion] = []
    for r_idx, c_idx in jacobian_blocks(Jx):
        A = Jx[np.ix_(r_idx, c_idx)]
        norms = np.linalg.norm(A, axis=0)
        scale = np.where(norms > 0, norms, 1.0)
        if A.size:
            _, s, Vt = np.linalg.svd(A / scale, full_matrices=True)
            tol = RANK_TOL * (s[0] if s.size and s[0] > 0 else 1.0)
            null = Vt[int(np.sum(s > tol)) :]
        else:
            null = np.eye(len(c_idx))
        followed = []
        for z in null:
            dq = np.zeros(model.n_params)
            dq[x[c_idx]] = z / scale
            if _follow(model, x, lay, dq):
                followed.append(dq)
        if followed and (motion := _describe(model, followed[0])) is not None:
            found.append(dataclasses.replace(motion, count=len(followed)))
    # One entry per set of bodies (a free link's spins are separate blocks of J_x).
    merged: dict[frozenset[str], FreeMotion] = {}
    for motion in found:
        key = frozenset(motion.bodies)
        if key in merged:
            motion = dataclasses.replace(merged[key], count=merged[key].count + motion.count)
        merged[key] = motion
    return tuple(merged.values())


def _point_rates(model: KinematicModel, dq: np.ndarray) -> np.ndarray:
    """Velocity (mm per unit of `dq`) of every point copy at design, (n_inst, 3)."""
    _, dP = model.instance_positions(np.zeros((model.n_params, 1)), derivatives=True)
    assert dP is not None
    k = dP.shape[1]
    rates = slot_rates(model.inst_slots, dq[:, None])[:, :k, 0]  # (inst, k)
    return np.einsum("nki,nk->ni", dP[:, :, :, 0], rates)


def _follow(model: KinematicModel, x: np.ndarray, lay: JacobianLayout, dq: np.ndarray) -> bool:
    """True when the design can be moved along `dq` (both senses tried) until its fastest
    point has gone `FOLLOW_MOVE_MM` and every joint closes again with the inputs held,
    keeping at least `FOLLOW_KEPT` of the move: a finite motion, not a toggle."""
    speed = float(np.linalg.norm(_point_rates(model, dq), axis=1).max(initial=0.0))
    if speed <= 0.0:
        return False
    P0, _ = model.instance_positions(np.zeros((model.n_params, 1)), derivatives=False)
    for sense in (1.0, -1.0):
        q = sense * FOLLOW_MOVE_MM / speed * dq
        for _ in range(FOLLOW_ITERATIONS):
            r, data = model.residuals_and_jacobian_data(q[:, None], lay)
            if np.abs(r).max(initial=0.0) < FOLLOW_CLOSED_MM:
                P, _ = model.instance_positions(q[:, None], derivatives=False)
                moved = float(np.linalg.norm(P[:, :, 0] - P0[:, :, 0], axis=1).max(initial=0.0))
                if moved >= FOLLOW_KEPT * FOLLOW_MOVE_MM:
                    return True
                break
            import scipy.sparse as sps

            J = sps.csr_matrix((data[:, 0], lay.indices, lay.indptr), shape=lay.shape)
            step, *_ = np.linalg.lstsq(J.toarray(), -r[:, 0], rcond=None)
            q[x] += step
    return False


def _describe(model: KinematicModel, dq: np.ndarray) -> FreeMotion | None:
    """The bodies `dq` moves (fastest first) and the screw axis of the best-located one
    (the fastest part with three points not in line; else the fastest part)."""
    v = _point_rates(model, dq)
    speed = np.linalg.norm(v, axis=1)
    top = float(speed.max(initial=0.0))
    if top <= 0.0:
        return None
    v, speed = v / top, speed / top
    part_speed: dict[int, float] = {}
    for i, part in enumerate(model.inst_part):
        part_speed[int(part)] = max(part_speed.get(int(part), 0.0), float(speed[i]))
    moving = sorted(
        (p for p, s in part_speed.items() if s > MOVING_SHARE), key=lambda p: -part_speed[p]
    )
    bodies = tuple(dict.fromkeys(model.parts[p].body for p in moving))
    if not bodies:
        return None

    def located(part: int) -> bool:
        pts = model.inst_design[model.inst_part == part]
        return len(pts) >= 3 and np.linalg.matrix_rank(pts[1:] - pts[0], tol=ON_AXIS_MM) >= 2

    part = next((p for p in moving if located(p)), moving[0])
    idx = np.flatnonzero(model.inst_part == part)
    P = model.inst_design[idx]
    centre = P.mean(axis=0)
    # v_i = w x (p_i - c) + v_c, least squares over the part's points.
    A = np.zeros((3 * len(idx), 6))
    for row, p in enumerate(P - centre):
        A[3 * row : 3 * row + 3, :3] = -skew(p)
        A[3 * row : 3 * row + 3, 3:] = np.eye(3)
    sol, *_ = np.linalg.lstsq(A, v[idx].ravel(), rcond=None)
    w, vc = sol[:3], sol[3:]
    rate = float(np.linalg.norm(w))
    body = model.parts[part].body
    through: tuple[str, ...] = ()
    point: tuple[float, float, float] | None = None
    pitch = 0.0
    if rate < TRANSLATION_RATE:
        d = vc / max(float(np.linalg.norm(vc)), 1e-300)
        direction = (float(d[0]), float(d[1]), float(d[2]))
    else:
        axis = w / rate
        foot = centre + np.cross(w, vc) / rate**2
        direction = (float(axis[0]), float(axis[1]), float(axis[2]))
        point = (float(foot[0]), float(foot[1]), float(foot[2]))
        pitch = float(w @ vc) / rate**2
        off = model.inst_design[idx] - foot
        dist = np.linalg.norm(off - np.outer(off @ axis, axis), axis=1)
        on = sorted((float(dd), model.inst_point[i]) for dd, i in zip(dist, idx, strict=True))
        through = tuple(dict.fromkeys(name for dd, name in on if dd < ON_AXIS_MM))
    causes, rows = _likely_causes(model, bodies)
    return FreeMotion(bodies, body, direction, point, pitch, through, causes, rows)


def _likely_causes(
    model: KinematicModel, bodies: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Sentences naming the likely causes of a free motion of `bodies`, and the bodies
    whose rows they point at: a moving body all of whose points are on one other body
    (it joins that body to itself); points on one body only (they join nothing; wheel
    centre and axis points excepted); and the one-point replacements on the moving
    bodies' rows, among those lone points, that leave every body located and every
    input free."""
    car = model.car
    wheel_points = {p for w in car.wheels for p in (w.centre, w.axis_point)}
    owners: dict[str, list[str]] = {}
    for b in car.bodies:
        for p in b.points:
            owners.setdefault(p, []).append(b.name)
    lonely = [p for p, bs in owners.items() if len(bs) == 1 and p not in wheel_points]
    causes: list[str] = []
    rows: list[str] = []
    for name in bodies:
        pts = car.body(name).points
        for other in car.bodies:
            if other.name != name and len(pts) >= 2 and set(pts) <= set(other.points):
                causes.append(
                    f"every point of {name} ({', '.join(pts)}) is also on {other.name}: it "
                    f"joins {other.name} to itself and holds nothing"
                )
                rows.append(name)
    repairs = _repairs(model, bodies, lonely)
    used = {new for _, _, new in repairs}
    for p in lonely:
        if owners[p][0] in bodies or p in used:
            causes.append(f"{p} is on one body only ({owners[p][0]}): it joins nothing")
            rows.append(owners[p][0])
    for body, old, new in repairs:
        causes.append(
            f"on the row of {body}, {new} in place of {old} would locate every body "
            "(a point typed on the wrong row?)"
        )
    return tuple(causes), tuple(dict.fromkeys([*(r[0] for r in repairs), *rows]))


def _repairs(
    model: KinematicModel, bodies: tuple[str, ...], lonely: list[str]
) -> list[tuple[str, str, str]]:
    """(body, point replaced, lone point put in its place) for each one-point edit that
    leaves no free motion and no locked input: on a neighbour's row, its joint with the
    moving `bodies` replaced by a lone point of theirs; on a moving body's row, a point
    replaced by one of the `REPAIR_POINTS` lone points nearest them (each a rebuilt
    model; at most `MAX_REPAIR_TRIALS`)."""
    from suspension_sim.model.model import KinematicModel

    car = model.car
    fixed_roles = {(d.body, d.chassis_point) for d in car.dampers}
    fixed_roles |= {(d.body, d.moving_point) for d in car.dampers}
    fixed_roles |= {
        (w.body, p)
        for w in car.wheels
        for p in (w.centre, w.axis_point, w.kingpin_lower, w.kingpin_upper)
        if p
    }
    if car.rack is not None:
        fixed_roles |= {(car.rack.body, p) for p in car.rack.end_points}
    # The lone points nearest the moving bodies first: a point typed on the wrong row
    # usually belongs near where it was meant to go.
    where = car.point_map()
    moving = np.array([where[p] for name in bodies for p in car.body(name).points])

    def distance(p: str) -> float:
        return float(np.linalg.norm(moving - where[p], axis=1).min(initial=np.inf))

    near = sorted(lonely, key=distance)[:REPAIR_POINTS]
    on_moving = {p for name in bodies for p in car.body(name).points}
    # A lone point on a moving body: a neighbour's joint with the moving bodies may have
    # been meant to be that point (a link's end typed as the ball joint next to it).
    trials = [
        (b.name, old, new)
        for b in car.bodies
        if b.name != CHASSIS and b.name not in bodies
        for old in b.points
        if old in on_moving and (b.name, old) not in fixed_roles
        for new in lonely
        if new in on_moving and new not in b.points
    ]
    # A lone point elsewhere: a moving body's point may have been meant to be it.
    trials += [
        (name, old, new)
        for name in bodies
        if name != CHASSIS
        for old in car.body(name).points
        if (name, old) not in fixed_roles
        for new in near
        if new not in car.body(name).points
    ]
    trials = list(dict.fromkeys(trials))[:MAX_REPAIR_TRIALS]
    found: list[tuple[str, str, str]] = []
    for name, old, new in trials:
        edited = tuple(
            dataclasses.replace(b, points=tuple(new if p == old else p for p in b.points))
            if b.name == name
            else b
            for b in car.bodies
        )
        try:
            trial = KinematicModel(dataclasses.replace(car, bodies=edited))
            redundant, locked = design_test(trial)
        except (SuspensionSimError, KeyError, ValueError, np.linalg.LinAlgError):
            continue
        if redundant >= 0 and not locked:
            found.append((name, old, new))
    # Most likely first: a short link's row, then the point replaced that joins most bodies.
    found.sort(key=lambda f: (len(car.body(f[0]).points), -len(car.bodies_of_point(f[1]))))
    return found
