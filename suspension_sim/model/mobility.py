"""Mobility: how many degrees of freedom the described mechanism has.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.model.topology import GRUEBLER_FREEDOM
from suspension_sim.tolerances import MODE_SHARE, RANK_TOL

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model.model import KinematicModel


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
    def ok(self) -> bool:
        """True unless the mechanism has too few joints (redundancies and toggles are
        reported but allowed: a pose can still be solved and is flagged)."""
        return self.free_after_inputs == 0 or self.singular

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
        if self.redundant and not self.singular:
            out.append(
                f"{self.redundant} redundant constraint(s) (consistent at design), at joint(s) "
                f"{', '.join(self.redundant_points)}: a cylindrical joint made of two shared "
                "points, or symmetric parallel links, counts a constraint twice. The solver "
                "handles this; a geometry error there cannot be absorbed, so keep those "
                "points exact."
            )
        if not self.free_after_inputs and not self.redundant:
            out.append("every body is located once the inputs are set: exactly constrained")
        return out


def mobility(model: KinematicModel) -> Mobility:
    """Count the mechanism's degrees of freedom at design (see module docstring)."""
    topo = model.topology
    freedoms = sum(GRUEBLER_FREEDOM[j.kind] for j in topo.joints)
    loops = len(model.active_pairs)
    gruebler = freedoms - 3 * loops
    inputs = len(model.input_params())
    unknowns = np.setdiff1d(np.arange(model.n_params), model.input_params())
    J = model.jacobian(np.zeros(model.n_params), unknowns).toarray()
    m, n = J.shape
    rank, null_cols, null_rows = _rank_and_nullspaces(J)
    body_of = [topo.param_body[p] for p in unknowns]
    free_bodies = sorted({body_of[i] for i in null_cols})
    row_pair = model.active_pairs[np.arange(m) // 3] if m else np.zeros(0, dtype=int)
    redundant_points = tuple(dict.fromkeys(model.pair_point[int(row_pair[i])] for i in null_rows))
    return Mobility(
        gruebler=gruebler,
        passive_spins=topo.passive_spins,
        inputs=inputs,
        unknowns=n,
        equations=m,
        rank=rank,
        free_after_inputs=n - rank,
        redundant=m - rank,
        free_bodies=tuple(free_bodies),
        redundant_points=redundant_points,
    )


def _rank_and_nullspaces(J: np.ndarray) -> tuple[int, list[int], list[int]]:
    """Rank of J (columns scaled) and the columns/rows taking part in its null spaces."""
    m, n = J.shape
    if m == 0 or n == 0:
        return 0, list(range(n)), list(range(m))
    norms = np.linalg.norm(J, axis=0)
    scale = np.where(norms > 0, norms, 1.0)
    U, s, Vt = np.linalg.svd(J / scale, full_matrices=True)
    tol = RANK_TOL * (s[0] if s.size and s[0] > 0 else 1.0)
    rank = int(np.sum(s > tol))
    cols: set[int] = set(np.flatnonzero(norms == 0).tolist())
    for v in Vt[rank:]:
        cols |= set(np.flatnonzero(np.abs(v) > MODE_SHARE).tolist())
    rows: set[int] = set()
    for u in U[:, rank:].T:
        rows |= set(np.flatnonzero(np.abs(u) > MODE_SHARE).tolist())
    return rank, sorted(cols), sorted(rows)
