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

This module counts and tests the inputs (and searches for the points that lock
one); following a free motion and searching for its causes is
`suspension_sim.model.free_motion` (the constants named above live there), and
the block-wise rank and null spaces both use are `suspension_sim.model.rank`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.description import CHASSIS
from suspension_sim.errors import SuspensionSimError
from suspension_sim.model.free_motion import FreeMotion, free_motions
from suspension_sim.model.model import slot_rates
from suspension_sim.model.rank import design_test, input_names, rank_and_nullspaces
from suspension_sim.model.topology import GRUEBLER_FREEDOM
from suspension_sim.tolerances import LOCK_SHARE, LOCK_SINE, STUCK_RATE

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model.model import KinematicModel

__all__ = [
    "FreeMotion",
    "LockedInput",
    "Mobility",
    "free_motions",
    "input_names",
    "mobility",
]


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
    J = model.dense_jacobian(q0, np.arange(model.n_params))
    Jx, Ju = J[:, x], J[:, u]
    m, n = Jx.shape
    rank, null_cols, null_rows, left_null = rank_and_nullspaces(Jx)
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
        full_rank, _, full_rows, _ = rank_and_nullspaces(J)
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
            redundant, locked = design_test(trial)
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
