"""Diagnostics of a solve: conditioning (toggle poses), mobility, and why a pose stays open."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import ModelError
from suspension_sim.model.mobility import Mobility, mobility
from suspension_sim.solve.problem import problem

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose


def design_mobility(model: KinematicModel) -> Mobility:
    """Degree-of-freedom report at design, computed once per model."""
    return model.derived.get("mobility", lambda: mobility(model))


def checked_mobility(model: KinematicModel) -> Mobility:
    """The model's design mobility (cached); ModelError naming the free motion's
    Components row when the car cannot be solved (under-constrained, a free motion)."""
    mob = design_mobility(model)
    if not mob.ok:
        raise ModelError(
            mechanism_problem(mob),
            where=mechanism_where(model, mob),
            hint="run 'suspension-sim check' on the workbook and fix what it names",
        )
    return mob


def mechanism_problem(mob: Mobility) -> str:
    """Why a mechanism cannot be solved as asked (`Mobility.ok` is False), for an error."""
    if mob.free_motions:
        bodies = dict.fromkeys(b for motion in mob.free_motions for b in motion.bodies)
        head = (
            f"a free motion at design: {', '.join(bodies)} can move with every stroke and "
            "the rack held, so a pose would not be unique"
        )
    elif mob.under_constrained:
        head = "the mechanism is under-constrained, so a pose would not be unique"
    else:
        head = "the mechanism cannot move as its inputs ask"
    return head + ":\n  " + "\n  ".join(mob.problems() or mob.lines())


def mechanism_where(model: KinematicModel, mob: Mobility) -> str:
    """Where to look for a mechanism problem: the Components cell of the first body it
    names (the row a free motion's causes point at, a locked input's body, a stuck or
    free body), else the workbook."""
    car = model.car
    # A free motion: the row its causes point at first; of several, the shortest row
    # (a two-point link is the row most often typed wrong).
    firsts = [motion.rows[0] for motion in mob.free_motions if motion.rows]
    firsts.sort(key=lambda b: len(car.body(b).points))
    names = [*firsts, *(b for motion in mob.free_motions for b in (*motion.rows, *motion.bodies))]
    names += [lk.name for lk in mob.locked_inputs if lk.name != "rack"]
    names += (
        [car.rack.body] if car.rack and any(lk.name == "rack" for lk in mob.locked_inputs) else []
    )
    names += [*mob.stuck_bodies, *(mob.free_bodies if mob.under_constrained else ())]
    for name in names:
        try:
            source = car.body(name).source
        except KeyError:
            continue
        if source is not None:
            return str(source)
    return car.source_path or car.name


def singular_ratio(J: np.ndarray, blocks: Sequence[tuple[np.ndarray, np.ndarray]] | None) -> float:
    """Smallest min/max singular value over J's independent blocks (columns unit norm).

    `blocks` (rows, columns) come from the body graph; None derives them from J.
    """
    if blocks is None:
        pattern = (J != 0).astype(float)
        import scipy.sparse as sps
        from scipy.sparse.csgraph import connected_components

        ncomp, labels = connected_components(sps.csr_matrix(pattern.T @ pattern), directed=False)
        found = []
        for c in range(ncomp):
            cols = np.flatnonzero(labels == c)
            found.append((np.flatnonzero(pattern[:, cols].sum(axis=1) > 0), cols))
        blocks = found
    worst = 1.0
    for rows, cols in blocks:
        A = J[np.ix_(rows, cols)]
        norms = np.linalg.norm(A, axis=0)
        norms[norms == 0] = 1.0
        s = np.linalg.svd(A / norms, compute_uv=False) if A.size else np.zeros(0)
        if len(s) < len(cols) or not s.size or s[0] <= 0:
            return 0.0
        worst = min(worst, float(s[-1] / s[0]))
    return worst


def explain_failure(pose: Pose) -> str:
    """Say which joints stayed open, by how much, and which inputs drive them."""
    m = pose.model
    gaps = pose.residuals
    open_pts = gaps[gaps > pose.info.tolerance_mm].sort_values(ascending=False)
    lines = [f"the joints did not close (largest gap {gaps.max():.4g} mm):"]
    for point, gap in open_pts.head(5).items():
        bodies = sorted(
            {
                b
                for p, pair in zip(m.pair_point, m.pair_bodies, strict=True)
                if p == point
                for b in pair
            }
        )
        lines.append(f"  joint {point} between {' and '.join(bodies)} left open by {gap:.4g} mm")
    involved = inputs_near(pose, set(open_pts.index))
    if involved:
        lines.append("  inputs driving them: " + ", ".join(involved))
    return "\n".join(lines)


def inputs_near(pose: Pose, points: set[str]) -> list[str]:
    """Inputs in the same closed loop as the given joints, formatted 'name = value'."""
    m = pose.model
    locked = m.input_params()
    prob = problem(m, locked)
    bodies_open = {
        b for p, pair in zip(m.pair_point, m.pair_bodies, strict=True) if p in points for b in pair
    }
    cols_open = {
        int(c) for c, p in enumerate(prob.unknowns) if m.topology.param_body[p] in bodies_open
    }
    comp_bodies: set[str] = set()
    for _rows, cols in prob.blocks:
        if cols_open & {int(c) for c in cols}:
            comp_bodies |= {m.topology.param_body[prob.unknowns[c]] for c in cols}
    # An input belongs to a loop when its body shares a joined point with the loop.
    out = []
    for d in m.car.dampers:
        if d.body in comp_bodies:
            out.append(f"shock {d.body} = {pose.shocks[d.body]:g} mm")
    rack = m.car.rack
    if rack is not None:
        neighbours = {
            b
            for p, pair in zip(m.pair_point, m.pair_bodies, strict=True)
            if rack.body in pair
            for b in pair
        }
        if neighbours & comp_bodies:
            out.append(f"rack = {pose.rack:g} mm")
    return out


def pose_singular_ratio(model: KinematicModel, params: np.ndarray) -> float:
    """`singular_ratio` at a pose with every input held (the on-demand check of
    engine solves): smallest min/max singular value over the blocks."""
    prob = problem(model, model.input_params())
    lay = prob.layout
    _, data, _, _ = model.evaluate_state(np.asarray(params, dtype=float)[:, None], lay)
    J = np.zeros(lay.shape)
    J[lay.rows, lay.indices] = data[:, 0]
    return singular_ratio(J, prob.blocks)
