"""The force elements' known internal loads at each pose (third springs, anti-roll bars).

Their deflections and forces at a pose follow from the geometry alone
(`suspension_sim.loads.elements`), so they are the same in every load case: the
statics adds their generalised force to the right-hand side and their forces and
moments to the body equations. Chassis frame, N and N mm. Split from
`suspension_sim.loads.statics` (it and `suspension_sim.loads.jacking` use them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.loads.elements import T_BAR, U_BAR, Elements, spring_end_forces, u_bar_moments
from suspension_sim.loads.elements import deflections as element_deflections
from suspension_sim.loads.elements import forces as element_forces
from suspension_sim.loads.elements import gradients as element_gradients
from suspension_sim.loads.layout import LoadLayout
from suspension_sim.loads.positions import scatter_add

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


@dataclass(frozen=True)
class ElementLoads:
    """The loads of the force elements at B poses (chassis frame, N and N mm).

    Q (B, n_params): generalised force ``-sum_e F_e de/dq``; inst_force (B, n_inst,
    3): the third springs' forces on their end copies; body_moment (B, n_bodies, 3):
    the U-bars' moments on their arms; levers: (body, centre copy) of each T-bar.
    """

    deflection: np.ndarray
    force: np.ndarray
    Q: np.ndarray
    end_force: np.ndarray
    inst_force: np.ndarray
    body_moment: np.ndarray
    levers: tuple[tuple[int, int], ...]
    bar_column: np.ndarray  # which bar (index into the bars) each lever is


def internal_loads(
    model: KinematicModel,
    lay: LoadLayout,
    el: Elements,
    q: np.ndarray,
    P: np.ndarray,
    dP: np.ndarray,
    C: int,
) -> ElementLoads | None:
    """The elements' deflections, forces and loads at every pose (None: no elements)."""
    if not el.n:
        return None
    B = P.shape[0]
    e = element_deflections(el, q, P)
    F = element_forces(el, e)
    G = element_gradients(model, el, P, dP)
    Qe = -np.einsum("be,bep->bp", F, G)
    ends = spring_end_forces(el, P, F)  # (B, n_s, 2, 3)
    inst_force = np.zeros((B, len(model.inst_body), 3))
    scatter_add(inst_force, el.ends.reshape(-1), ends.reshape(B, -1, 3))
    index = {b: i for i, b in enumerate(lay.bodies)}
    body_moment = np.zeros((B, len(lay.bodies), 3))
    moments = u_bar_moments(el, F)  # (B, n_b, 2, 3)
    levers: list[tuple[int, int]] = []
    column: list[int] = []
    for k, (kind, arms) in enumerate(zip(el.kinds[el.n_springs :], el.arms, strict=True)):
        if kind == U_BAR:
            for side, arm in enumerate(arms):
                body_moment[:, index[arm]] += moments[:, k, side]
        elif kind == T_BAR:
            levers.append((index[arms[0]], int(el.centre[k])))
            column.append(k)
    return ElementLoads(
        deflection=e,
        force=F,
        Q=Qe,
        end_force=ends,
        inst_force=inst_force,
        body_moment=body_moment,
        levers=tuple(levers),
        bar_column=np.array(column, dtype=int),
    )
