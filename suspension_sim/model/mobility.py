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
from suspension_sim.model.topology import GRUEBLER_FREEDOM
from suspension_sim.tolerances import LOCK_SHARE, LOCK_SINE, MODE_SHARE, RANK_TOL, STUCK_RATE

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model.model import KinematicModel


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

    @property
    def structural_free(self) -> int:
        """Unknowns minus equations: > 0 means too few joints whatever the geometry."""
        return self.unknowns - self.equations

    @property
    def singular(self) -> bool:
        """Free motions at design although the joint count says there should be none:
        a toggle (links in line) at the design condition."""
        return self.free_after_inputs > 0 and self.structural_free <= 0

    @property
    def under_constrained(self) -> bool:
        """Motions stay free with every input held (too few joints)."""
        return self.free_after_inputs > 0 and not self.singular

    @property
    def ok(self) -> bool:
        """True unless a pose cannot be solved as asked: too few joints, an input that
        cannot move, or a body no input moves (redundancies and toggles at design are
        reported but allowed: a pose can still be solved and is flagged)."""
        if self.under_constrained:
            return False
        return not self.locked_inputs and not self.stuck_bodies

    def problems(self) -> list[str]:
        """The lines of `lines` that make `ok` False."""
        return [
            line
            for line in self.lines()
            if line.startswith(("UNDER-CONSTRAINED", "INPUT CANNOT MOVE", "STUCK"))
        ]

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
                f"although the joints should fix every body; they involve "
                f"{', '.join(self.free_bodies)}. Usually two links in line (a toggle): move a "
                "point of those bodies a little."
            )
        elif self.free_after_inputs:
            out.append(
                f"UNDER-CONSTRAINED: {self.free_after_inputs} motion(s) stay free with every "
                f"stroke and the rack held; they move {', '.join(self.free_bodies)}. Give "
                "these bodies another point shared with a located body (Components), or "
                "check for a misspelt point name."
            )
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
        if self.redundant and not self.singular and not self.locked_inputs:
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
    (see module docstring); points that lock an input are searched for only
    when one is locked."""
    mob = _counts(model)
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
