"""Targets: hold a quantity at a value in place of an input (as open-kinematics does).

An input (a damper stroke or the rack) is unlocked and a target residual is
added in its place, so the system stays square. Built in:

* ``contact_z(wheel, z)``: world z of the tyre contact point (docs/conventions.md:
  ``CP = C - r d/|d|``, ``d = n - (n.s)s``); OptimumK-style ground motions
  hold all four at 0 while the chassis pose is prescribed;
* ``wheel_travel(wheel, mm)``: displacement of the wheel centre along the
  chassis z axis from design (positive in bump);
* ``coordinate(point, axis, value, frame)``: one coordinate of a point.

Residuals and their analytic Jacobian rows are evaluated for all targets at
once from the model's point positions and derivatives. Units: mm.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from suspension_sim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

AXES = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class Target:
    """A quantity to hold (mm). See the module docstring for the kinds."""

    kind: Literal["contact_z", "travel", "coordinate"]
    name: str  # wheel name, or point name for "coordinate"
    value: float
    axis: str = "z"
    frame: Literal["world", "chassis"] = "world"

    def describe(self) -> str:
        if self.kind == "contact_z":
            return f"contact point {self.name} z = {self.value:g} mm"
        if self.kind == "travel":
            return f"wheel travel {self.name} = {self.value:g} mm"
        return f"{self.name}.{self.axis} ({self.frame}) = {self.value:g} mm"


def contact_z(wheel: str, z: float = 0.0) -> Target:
    """Hold the wheel's tyre contact point at world height z (mm)."""
    return Target("contact_z", wheel, float(z))


def wheel_travel(wheel: str, travel: float) -> Target:
    """Hold the wheel centre `travel` mm above its design place, chassis z axis."""
    return Target("travel", wheel, float(travel), frame="chassis")


def coordinate(
    point: str, axis: str, value: float, frame: Literal["world", "chassis"] = "world"
) -> Target:
    """Hold one coordinate (x, y or z, mm) of a point, in the world or chassis frame."""
    if axis not in AXES:
        raise InputError(f"unknown axis {axis!r}", where="target", hint="use x, y or z")
    return Target("coordinate", point, float(value), axis=axis, frame=frame)


class CompiledTargets:
    """Targets bound to a model and a chassis pose, evaluated in one vectorised pass.

    Each target row is ``f(P) - value`` where f depends on one or two point
    copies: f = g . P[i] (+ h . P[j]) for linear targets, and the contact
    height for contact targets.
    """

    def __init__(self, model: KinematicModel, targets: Mapping[str, Target], chassis_T: np.ndarray):
        self.model = model
        self.keys = tuple(targets)
        self.targets = tuple(targets.values())
        self.R = chassis_T[:3, :3]
        self.t = chassis_T[:3, 3]
        self.signature = tuple(
            [(key, tg.kind, tg.name, tg.axis, tg.frame) for key, tg in targets.items()]
        )
        """What fixes the targets' layout (everything but their values and the chassis)."""
        self.value = np.array([t.value for t in self.targets], dtype=float)
        fixed = model.derived.get(
            ("compiled_targets", self.signature), lambda: _fixed_part(model, self.targets)
        )
        self.i, self.j, g, offset, self.radius, self.is_contact, world = fixed
        # gradient on P[i] (linear kinds; chassis frame) and constant term of linear kinds:
        # the model's (read-only) arrays, copied only to write world-frame rows in
        self.g, self.offset = (g.copy(), offset.copy()) if world else (g, offset)
        for k, a in world:  # world-frame coordinates: the chassis rotation's row a
            self.g[k] = self.R[a]
            self.offset[k] = self.t[a]

    def evaluate(
        self, P: np.ndarray, dP: np.ndarray, unknowns: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Residuals (n,) and dense Jacobian rows (n, len(unknowns)) at one state.

        P: (n_inst, 3) chassis-frame positions, dP: (n_inst, kmax, 3) derivatives.
        """
        r, gi, gj = self.values_and_gradients(P)
        if not len(unknowns):  # values only (measuring a pose)
            return r, np.zeros((len(r), 0))
        m = self.model
        col_of = np.full(m.n_params, -1, dtype=int)
        col_of[unknowns] = np.arange(len(unknowns))
        J = np.zeros((len(r), len(unknowns)))
        rows = np.arange(len(r))
        for inst, grad in ((self.i, gi), (self.j, gj)):
            slots = m.inst_slots[inst]  # (n, kmax) parameter per slot
            cols = np.where(slots >= 0, col_of[np.maximum(slots, 0)], -1)
            vals = np.einsum("nk,nsk->ns", grad, dP[inst])
            ok = cols >= 0
            np.add.at(J, (np.broadcast_to(rows[:, None], cols.shape)[ok], cols[ok]), vals[ok])
        return r, J

    def total_derivative(
        self, gi: np.ndarray, gj: np.ndarray, dP: np.ndarray, tangents: np.ndarray
    ) -> np.ndarray:
        """Derivatives (n, n_inputs) of the residuals along parameter tangents (n_params,
        n_inputs), from the gradients of `values_and_gradients`: ``dr/du = sum over the
        copies' slots of grad . dP * dq/du``, without assembling the Jacobian (the
        engine's Newton on targeted inputs)."""
        padded = np.vstack([tangents, np.zeros((1, tangents.shape[1]))])  # slot -1 -> 0
        G = np.zeros((len(gi), tangents.shape[1]))
        for inst, grad in ((self.i, gi), (self.j, gj)):
            vals = np.einsum("nk,nsk->ns", grad, dP[inst])  # (n, kmax)
            G += np.einsum("ns,nsf->nf", vals, padded[self.model.inst_slots[inst]])
        return G

    def values_and_gradients(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Residuals (n,) and their gradients with respect to the two point copies of
        each target (n, 3) each, chassis frame (mm/mm)."""
        Pi, Pj = P[self.i], P[self.j]
        gi = self.g.copy()
        gj = np.zeros_like(gi)
        f = np.einsum("nk,nk->n", self.g, Pi) + self.offset
        c = self.is_contact
        if c.any():
            w = (Pj[c] - Pi[c]) @ self.R.T  # spin-axis vector in the world frame
            L = np.linalg.norm(w, axis=1)
            s = w / L[:, None]
            sz = s[:, 2]
            root = np.sqrt(np.clip(1.0 - sz * sz, 1e-300, None))
            cz = Pi[c] @ self.R[2] + self.t[2]
            f[c] = cz - self.radius[c] * root
            dsz = (np.array([0.0, 0.0, 1.0]) - sz[:, None] * s) / L[:, None]  # d sz / d w
            ga = (self.radius[c] * sz / root)[:, None] * (dsz @ self.R)
            gj[c] = ga
            gi[c] = self.R[2] - ga
        return f - self.value, gi, gj


def _fixed_part(
    model: KinematicModel, targets: tuple[Target, ...]
) -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[tuple[int, int]]
]:
    """The part of `CompiledTargets` that only the targets' kinds and places fix (cached
    per model): point copies i, j, the gradient g and offset of linear kinds (chassis
    frame), tyre radii, the contact flags, and (row, axis) of world-frame coordinates."""
    inst_of = model.inst_index
    wheels = {w.name: w for w in model.car.wheels}
    n = len(targets)
    i = np.zeros(n, dtype=int)  # first point copy (wheel centre / the point)
    j = np.zeros(n, dtype=int)  # second copy (wheel axis point) for contact
    g = np.zeros((n, 3))
    offset = np.zeros(n)
    radius = np.zeros(n)
    is_contact = np.zeros(n, dtype=bool)
    world: list[tuple[int, int]] = []
    for k, tg in enumerate(targets):
        if tg.kind in ("contact_z", "travel"):
            w = wheels.get(tg.name)
            if w is None:
                raise InputError(
                    f"unknown wheel {tg.name!r}",
                    where="target",
                    hint=f"wheels: {', '.join(wheels) or '(none)'}",
                )
            i[k] = inst_of[(w.centre, w.body)]
            j[k] = inst_of[(w.axis_point, w.body)]
            if tg.kind == "contact_z":
                is_contact[k] = True
                radius[k] = w.tyre_radius
            else:
                g[k] = (0.0, 0.0, 1.0)
                offset[k] = -model.car.point(w.centre)[2]
        else:
            copies = [c for c, p in enumerate(model.inst_point) if p == tg.name]
            if not copies:
                raise InputError(f"unknown point {tg.name!r}", where="target")
            i[k] = j[k] = copies[0]
            a = AXES[tg.axis]
            if tg.frame == "world":
                world.append((k, a))
            else:
                g[k, a] = 1.0
    for kept in (i, j, g, offset, radius, is_contact):
        kept.flags.writeable = False  # kept per model and shared by every CompiledTargets
    return i, j, g, offset, radius, is_contact, world
