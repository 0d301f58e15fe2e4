"""Mobility: how many degrees of freedom the described mechanism has, and whether
every input can do its job.

Two counts that should agree, and an explanation when they say something is
wrong:

* Gruebler-Kutzbach: the sum of each body's joint freedoms (counting the
  passive spin of ball-ended links) minus 3 for every joint that closes a
  loop (a point shared by two moving bodies, or a chassis point off its
  body's joint axis).
* The Jacobian rank at design: free motions = unknowns - rank. With every
  input (strokes, rack) held this must be 0; rows beyond the rank are
  redundant (consistent) constraints, e.g. a MacPherson strut's cylindrical
  joint made of two shared points.

The counts can balance while the mechanism still cannot do what is asked:
one corner locked by an extra shared point leaves as many unknowns as
equations, but its damper cannot move. So, at design, with J_x the Jacobian
in the unknowns and J_u in the inputs (implicit function theorem,
``J_x dx = -J_u du``):

* an input is **locked** when its column J_u[:, k] is not in the range of J_x
  (freeing it alone adds no motion); the constraint rows that lock it are
  the support of that column's component in the left null space of J_x
  (the redundancy that holding the inputs hides);
* a moving body is **stuck** when no input moves any of its points.

Rows in the left null space of the full Jacobian [J_x J_u] are redundant
whatever the inputs (a MacPherson strut's cylinder); the others lock inputs.

A free motion at design (J_x rank-deficient) is either a **mechanism** or a
**toggle**, told apart by following it: the bodies are moved along the null
vector until their fastest point has gone `FOLLOW_MOVE_MM`, and the joints are
closed again by Gauss-Newton with every input held. If they close
(`FOLLOW_CLOSED_MM`) with at least `FOLLOW_KEPT` of the move kept, the motion
is finite: a mechanism, the pose is not unique, and it is an error (exit 2),
described by the bodies that move, the screw axis of the best-located one,
and the likely causes (a point on one body only, a body whose points are all
on another body, and the one-point replacements that would remove it). If
they cannot close (a gap growing as the square of the move) or close only by
returning to design, the motion is free to first order only: a toggle (links
in line at design), flagged but allowed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import connected_components

from suspension_sim.description import CHASSIS
from suspension_sim.errors import SuspensionSimError
from suspension_sim.model.model import slot_rates
from suspension_sim.model.screws import skew
from suspension_sim.model.topology import GRUEBLER_FREEDOM
from suspension_sim.tolerances import LOCK_SHARE, LOCK_SINE, MODE_SHARE, RANK_TOL, STUCK_RATE

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


@dataclass(frozen=True)
class LockedInput:
    """An input (damper body or "rack") that cannot move at design.

    `joints`: joined points whose constraint rows lock it; `culprits`: points
    whose removal from one body (named as "point on body") would free it
    without leaving anything loose.
    """

    name: str
    joints: tuple[str, ...]
    culprits: tuple[str, ...] = ()

    def line(self) -> str:
        kind = "the steering rack" if self.name == "rack" else f"damper {self.name}"
        text = f"INPUT CANNOT MOVE: {kind} is locked at design"
        text += f" by its joint(s) {', '.join(self.joints)}"
        if self.culprits:
            text += f"; removing one of these frees it: {'; '.join(self.culprits)}"
        return text + "."


@dataclass(frozen=True)
class Mobility:
    """Degree-of-freedom counts at the design condition."""

    gruebler: int
    passive_spins: int
    inputs: int
    unknowns: int
    equations: int
    rank: int
    free_after_inputs: int
    redundant: int
    free_bodies: tuple[str, ...]
    redundant_points: tuple[str, ...]
    locked_inputs: tuple[LockedInput, ...] = ()
    stuck_bodies: tuple[str, ...] = ()
    free_motions: tuple[FreeMotion, ...] = ()

    @property
    def structural_free(self) -> int:
        """Unknowns minus equations: > 0 means too few joints whatever the geometry."""
        return self.unknowns - self.equations

    @property
    def singular(self) -> bool:
        """Free motions at design, none of which can be followed, although the joint
        count says there should be none: a toggle (links in line) at design."""
        return self.free_after_inputs > 0 and not self.under_constrained

    @property
    def under_constrained(self) -> bool:
        """Motions stay free with every input held: too few joints, or a free motion that
        can be followed (a mechanism; see `FreeMotion`)."""
        return self.free_after_inputs > 0 and (self.structural_free > 0 or bool(self.free_motions))

    @property
    def ok(self) -> bool:
        """True unless a pose cannot be solved as asked: too few joints, a free motion
        that can be followed (a pose would not be unique), an input that cannot move,
        or a body no input moves (redundancies and toggles at design are reported but
        allowed: a pose can still be solved and is flagged)."""
        if self.under_constrained:
            return False
        return not self.locked_inputs and not self.stuck_bodies

    def problems(self) -> list[str]:
        """The lines of `lines` that make `ok` False (with a free motion's detail lines)."""
        heads = ("UNDER-CONSTRAINED", "FREE MOTION", "INPUT CANNOT MOVE", "STUCK")
        out: list[str] = []
        for line in self.lines():
            if line.startswith(heads) or (line.startswith("  ") and out):
                out.append(line)
        return out

    def lines(self) -> list[str]:
        """Human-readable report for `suspension-sim check`."""
        active = self.gruebler - self.passive_spins
        out = [
            f"Gruebler-Kutzbach mobility: {self.gruebler} "
            f"({self.passive_spins} passive link spin(s), removed by the 5-coordinate links) "
            f"-> {active} active, {self.inputs} input(s)",
            f"Jacobian at design: {self.unknowns} unknowns, {self.equations} equations, "
            f"rank {self.rank} -> {self.free_after_inputs} free motion(s) with the inputs held",
        ]
        if self.singular:
            out.append(
                f"SINGULAR AT DESIGN: {self.free_after_inputs} motion(s) are free to first order "
                f"only, involving {', '.join(self.free_bodies)}: following them opens a joint "
                "(by the square of the move), so the pose is still unique. A toggle: two "
                "links in line at a dead point of an input. Move a point of those bodies a "
                "little to leave it."
            )
        elif self.free_after_inputs and self.structural_free <= 0:
            out.append(
                f"UNDER-CONSTRAINED: {self.free_after_inputs} motion(s) stay free with every "
                f"stroke and the rack held, although the joint count balances (a joint "
                "counted twice, one missing elsewhere). It is a mechanism, not a toggle: "
                "the motion can be followed with every joint closed, so a pose would not "
                "be unique."
            )
        elif self.free_after_inputs:
            out.append(
                f"UNDER-CONSTRAINED: {self.free_after_inputs} motion(s) stay free with every "
                f"stroke and the rack held; they move {', '.join(self.free_bodies)}. Give "
                "these bodies another point shared with a located body (Components), or "
                "check for a misspelt point name."
            )
        for motion in self.free_motions:
            out += motion.lines()
        out += [locked.line() for locked in self.locked_inputs]
        if self.stuck_bodies:
            out.append(
                f"STUCK: no input moves {', '.join(self.stuck_bodies)}: a point shared with "
                "the Chassis or another body too many locks them (see above)."
                if self.locked_inputs
                else f"STUCK: no input moves {', '.join(self.stuck_bodies)}; they are held "
                "in place by their joints alone. Remove the extra shared point that locks "
                "them, or drive them with a damper or the rack."
            )
        if self.redundant and not self.free_after_inputs and not self.locked_inputs:
            out.append(
                f"{self.redundant} redundant constraint(s) (consistent at design), at joint(s) "
                f"{', '.join(self.redundant_points)}: a cylindrical joint made of two shared "
                "points, or symmetric parallel links, counts a constraint twice. The solver "
                "handles this; a geometry error there cannot be absorbed, so keep those "
                "points exact."
            )
        if self.ok and not self.free_after_inputs and not self.redundant:
            out.append("every body is located once the inputs are set: exactly constrained")
        return out


def input_names(model: KinematicModel) -> tuple[str, ...]:
    """Names of the inputs in `model.input_params()` order: damper bodies, then "rack"."""
    rack = ("rack",) if model.topology.rack_param is not None else ()
    return (*model.damper_names, *rack)


def mobility(model: KinematicModel) -> Mobility:
    """Count the mechanism's degrees of freedom at design and test every input
    (see module docstring); free motions are followed, and points that lock an
    input searched for, only when the counts find one (a healthy car pays for
    one Jacobian and its block SVDs)."""
    mob = _counts(model)
    if mob.free_after_inputs:
        return dataclasses.replace(mob, free_motions=free_motions(model))
    if not mob.locked_inputs:
        return mob
    culprits = _culprits(model, mob)
    locked = tuple(
        dataclasses.replace(lk, culprits=culprits.get(lk.name, ())) for lk in mob.locked_inputs
    )
    return dataclasses.replace(mob, locked_inputs=locked)


def _counts(model: KinematicModel) -> Mobility:
    topo = model.topology
    freedoms = sum(GRUEBLER_FREEDOM[j.kind] for j in topo.joints)
    gruebler = freedoms - 3 * len(model.active_pairs)
    u = model.input_params()
    x = np.setdiff1d(np.arange(model.n_params), u)
    q0 = np.zeros(model.n_params)
    J = model.jacobian(q0, np.arange(model.n_params)).toarray()
    Jx, Ju = J[:, x], J[:, u]
    m, n = Jx.shape
    rank, null_cols, null_rows, left_null = _rank_and_nullspaces(Jx)
    body_of = [topo.param_body[p] for p in x]
    free_bodies = sorted({body_of[i] for i in null_cols})
    row_pair = model.active_pairs[np.arange(m) // 3] if m else np.zeros(0, dtype=int)

    def points_of(rows: list[int]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(model.pair_point[int(row_pair[i])] for i in rows))

    # Split the left null space of J_x: directions that also annihilate J_u are
    # redundant whatever the inputs; the rest lock an input.
    names = input_names(model)
    locked: list[LockedInput] = []
    stuck: tuple[str, ...] = ()
    redundant_rows = null_rows
    redundant = m - rank
    if rank == n and m > 0:  # no free motion: the input tests are meaningful
        scale = np.linalg.norm(Ju, axis=0)
        Ju_unit = Ju / np.where(scale > 0, scale, 1.0)
        hidden = left_null.T @ Ju_unit  # (m - rank, n_inputs)
        for k, name in enumerate(names):
            if np.linalg.norm(hidden[:, k]) > LOCK_SINE:
                y = left_null @ hidden[:, k]
                rows = np.flatnonzero(np.abs(y) > LOCK_SHARE * np.abs(y).max()).tolist()
                locked.append(LockedInput(name, points_of(rows)))
        # The redundancy that stays with the inputs free.
        full_rank, _, full_rows, _ = _rank_and_nullspaces(J)
        redundant = m - full_rank
        redundant_rows = full_rows if redundant else []
        free = [k for k, name in enumerate(names) if name not in {lk.name for lk in locked}]
        stuck = _stuck_bodies(model, q0, x, Jx, Ju[:, free], u[free])
    return Mobility(
        gruebler=gruebler,
        passive_spins=topo.passive_spins,
        inputs=len(u),
        unknowns=n,
        equations=m,
        rank=rank,
        free_after_inputs=n - rank,
        redundant=redundant,
        free_bodies=tuple(free_bodies),
        redundant_points=points_of(redundant_rows),
        locked_inputs=tuple(locked),
        stuck_bodies=stuck,
    )


def _stuck_bodies(
    model: KinematicModel,
    q: np.ndarray,
    x: np.ndarray,
    Jx: np.ndarray,
    Ju: np.ndarray,
    u: np.ndarray,
) -> tuple[str, ...]:
    """Moving bodies none of whose points move for any of the inputs `u` (mm/mm, rad/mm)."""
    dq = np.zeros((model.n_params, max(len(u), 1)))
    if len(u):
        dx, *_ = np.linalg.lstsq(Jx, -Ju, rcond=None)
        dq[x] = dx
        dq[u, np.arange(len(u))] = 1.0
    _, dP = model.instance_positions(q[:, None], derivatives=True)
    assert dP is not None
    slots = model.inst_slots
    rates = slot_rates(slots, dq)
    v = np.einsum("nki,nku->niu", dP[:, : slots.shape[1], :, 0], rates)  # (inst, 3, inputs)
    speed = np.abs(v).max(axis=(1, 2)) if v.size else np.zeros(len(model.inst_body))
    moving = {j.body for j in model.topology.joints if j.kind != "fixed"} - {CHASSIS}
    moved = {b for b, s in zip(model.inst_body, speed, strict=True) if s > STUCK_RATE}
    return tuple(b for b in dict.fromkeys(model.inst_body) if b in moving and b not in moved)


def _culprits(model: KinematicModel, mob: Mobility) -> dict[str, tuple[str, ...]]:
    """For each locked input, the memberships ("FL_WC on Chassis") whose removal frees
    it while leaving no motion free and the fewest redundant constraints: each
    candidate is a rebuilt model (error path only). Chassis points come first."""
    from suspension_sim.model.model import KinematicModel

    car = model.car
    stuck = set(mob.stuck_bodies)
    damper_chassis = {d.chassis_point for d in car.dampers}
    candidates: list[tuple[str, str]] = []  # (point, body it is removed from)
    for p in car.body(CHASSIS).points:
        if p not in damper_chassis and any(p in car.body(b).points for b in stuck):
            candidates.append((p, CHASSIS))
    for lk in mob.locked_inputs:
        for p in lk.joints:
            candidates += [(p, b) for b in car.bodies_of_point(p) if b in stuck]
    freed: dict[str, list[tuple[int, str]]] = {}
    every: list[tuple[int, str]] = []  # candidates that free every locked input
    for point, body in dict.fromkeys(candidates):
        bodies = tuple(
            dataclasses.replace(b, points=tuple(x for x in b.points if x != point))
            if b.name == body
            else b
            for b in car.bodies
        )
        try:
            trial = KinematicModel(dataclasses.replace(car, bodies=bodies))
            redundant, locked = _quick_test(trial)
        except (SuspensionSimError, KeyError, ValueError, np.linalg.LinAlgError):
            continue
        if redundant < 0:  # a motion is left free
            continue
        for lk in mob.locked_inputs:
            if lk.name not in locked:
                freed.setdefault(lk.name, []).append((redundant, f"{point} from {body}"))
        if not locked:
            every.append((redundant, f"{point} from {body}"))
    if every:
        freed = {lk.name: every for lk in mob.locked_inputs}
    out: dict[str, tuple[str, ...]] = {}
    for name, found in freed.items():
        fewest = min(r for r, _ in found)
        out[name] = tuple(text for r, text in found if r == fewest)
    return out


def _quick_test(model: KinematicModel) -> tuple[int, set[str]]:
    """(redundant constraints, or -1 if a motion is free with the inputs held; the locked
    inputs) at design: `_counts` without the reporting."""
    u = model.input_params()
    x = np.setdiff1d(np.arange(model.n_params), u)
    J = model.jacobian(np.zeros(model.n_params), np.arange(model.n_params)).toarray()
    rank, _, _, left_null = _rank_and_nullspaces(J[:, x], vectors=False)
    if rank < len(x):
        return -1, set()
    Ju = J[:, u]
    Ju = Ju / np.where(np.linalg.norm(Ju, axis=0) > 0, np.linalg.norm(Ju, axis=0), 1.0)
    hidden = np.linalg.norm(left_null.T @ Ju, axis=0)
    locked = {n for n, h in zip(input_names(model), hidden, strict=True) if h > LOCK_SINE}
    full_rank = _rank_and_nullspaces(J, vectors=False)[0]
    return J.shape[0] - full_rank, locked


def _rank_and_nullspaces(
    J: np.ndarray, vectors: bool = True
) -> tuple[int, list[int], list[int], np.ndarray]:
    """Rank of J (columns scaled), the columns/rows taking part in its null spaces (only
    with `vectors`), and an orthonormal basis of its left null space (m, m - rank).

    J is split into its independent blocks first (a full car: one per corner), so
    each SVD is small.
    """
    m = J.shape[0]
    rank = 0
    cols: set[int] = set()
    rows: set[int] = set()
    left: list[np.ndarray] = []
    for r_idx, c_idx in _blocks(J):
        A = J[np.ix_(r_idx, c_idx)]
        norms = np.linalg.norm(A, axis=0)
        cols |= {int(c_idx[i]) for i in np.flatnonzero(norms == 0)}
        if A.size == 0:
            block_rank, U, Vt = 0, np.eye(len(r_idx)), np.eye(len(c_idx))
        else:
            U, s, Vt = np.linalg.svd(A / np.where(norms > 0, norms, 1.0), full_matrices=True)
            tol = RANK_TOL * (s[0] if s.size and s[0] > 0 else 1.0)
            block_rank = int(np.sum(s > tol))
        rank += block_rank
        basis = np.zeros((m, len(r_idx) - block_rank))
        basis[r_idx] = U[:, block_rank:]
        left.append(basis)
        if vectors:
            for v in Vt[block_rank:]:
                cols |= {int(c_idx[i]) for i in np.flatnonzero(np.abs(v) > MODE_SHARE)}
            for u in U[:, block_rank:].T:
                rows |= {int(r_idx[i]) for i in np.flatnonzero(np.abs(u) > MODE_SHARE)}
    left_null = np.hstack(left) if left else np.zeros((m, 0))
    return rank, sorted(cols), sorted(rows), left_null


def _blocks(J: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(rows, columns) of J's independent blocks; an empty row or column is a block."""
    m, n = J.shape
    pattern = sps.csr_matrix(J != 0)
    graph = sps.bmat([[None, pattern], [pattern.T, None]], format="csr") if m and n else None
    if graph is None:
        return [(np.arange(m), np.arange(n))] if m or n else []
    count, labels = connected_components(graph, directed=False)
    return [
        (np.flatnonzero(labels[:m] == c), np.flatnonzero(labels[m:] == c)) for c in range(count)
    ]


def free_motions(model: KinematicModel) -> tuple[FreeMotion, ...]:
    """The free motions at design that can be followed with every input held (see module
    docstring): one per independent block of J_x (a corner) with null vectors that survive
    the follow test, described by `_describe` from the first of them, with its likely
    causes and how many there are. Empty for an exactly constrained car or a toggle."""
    u = model.input_params()
    x = np.setdiff1d(np.arange(model.n_params), u)
    q0 = np.zeros(model.n_params)
    lay = model.layout(x)
    Jx = model.jacobian(q0, x).toarray()
    found: list[FreeMotion] = []
    for r_idx, c_idx in _blocks(Jx):
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
            redundant, locked = _quick_test(trial)
        except (SuspensionSimError, KeyError, ValueError, np.linalg.LinAlgError):
            continue
        if redundant >= 0 and not locked:
            found.append((name, old, new))
    # Most likely first: a short link's row, then the point replaced that joins most bodies.
    found.sort(key=lambda f: (len(car.body(f[0]).points), -len(car.bodies_of_point(f[1]))))
    return found
