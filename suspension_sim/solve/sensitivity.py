"""Rates from the solved constraint Jacobian (implicit function theorem).

At a closed pose the joint residuals r(x, u) = 0, with x the unknown joint
parameters and u the inputs (strokes, rack). Differentiating,
``J_x dx/du = -J_u``, so one least-squares solve with the Jacobian the solver
already has gives every parameter's rate with respect to every input: no
sweep steps and no finite differences. Point velocities and body twists
follow from the PoE derivatives.

Rates are per unit input: mm/mm for points, rad/mm for rotations. Points and
twists are reported in the chassis frame unless stated (the chassis state is
held while an input moves, so the world rate is the chassis rate rotated).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.model import slot_rates
from suspension_sim.tolerances import NO_WHEEL_RATE, PURE_TRANSLATION_RAD

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose


@dataclass(frozen=True)
class Tangents:
    """dq/du for every input at a pose: `dq[:, k]` is the rate for `inputs[k]`."""

    inputs: tuple[str, ...]  # damper body names, then "rack"
    params: np.ndarray  # global parameter index of each input
    dq: np.ndarray  # (n_params, n_inputs)


def input_tangents(pose: Pose) -> Tangents:
    """Parameter rates with respect to each input (others and the chassis held)."""
    model = pose.model
    inputs = list(model.damper_names)
    if model.topology.rack_param is not None:
        inputs.append("rack")
    u = model.input_params()
    x = np.setdiff1d(np.arange(model.n_params), u)
    everything = np.arange(model.n_params)
    J = model.jacobian(pose.params, everything).toarray()
    Jx, Ju = J[:, x], J[:, u]
    dx, *_ = np.linalg.lstsq(Jx, -Ju, rcond=None)
    dq = np.zeros((model.n_params, len(u)))
    dq[x] = dx
    dq[u, np.arange(len(u))] = 1.0
    return Tangents(tuple(inputs), u, dq)


def point_rates(pose: Pose, tangents: Tangents) -> np.ndarray:
    """d(point copy)/d(input), chassis frame: (n_inst, 3, n_inputs), mm per mm."""
    model = pose.model
    _, dP = model.instance_positions(pose.params[:, None], derivatives=True)
    assert dP is not None
    slots = model.inst_slots  # (n_inst, kmax)
    rates = slot_rates(slots, tangents.dq)
    return np.einsum("nki,nku->niu", dP[:, : slots.shape[1], :, 0], rates)


def part_twists(pose: Pose, tangents: Tangents) -> np.ndarray:
    """Spatial twist (w, v) of every part per input, chassis frame: (n_parts, 6, n_inputs).

    ``w`` in rad/mm and ``v`` the velocity of the body point at the chassis
    origin, mm/mm; the instantaneous screw axis follows from them.
    """
    model = pose.model
    G, dG = model.part_transforms(pose.params[:, None], derivatives=True)
    assert dG is not None
    kmax = model.kmax
    slots = np.full((len(model.parts), max(kmax, 1)), -1, dtype=int)
    for i, part in enumerate(model.parts):
        slots[i, : len(part.params)] = part.params
    rates = slot_rates(slots, tangents.dq)
    Gdot = np.einsum("nkijb,nku->nijub", dG[:, :kmax], rates[:, :kmax])[..., 0]  # (n,3,4,u)
    R = G[:, :, :3, 0]
    t = G[:, :, 3, 0]
    W = np.einsum("niju,nkj->niku", Gdot[:, :, :3], R)  # Rdot R^T (skew)
    w = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=1)
    v = Gdot[:, :, 3] - np.einsum("niku,nk->niu", W, t)
    return np.concatenate([w, v], axis=1)


def screw_axis(twist: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Instantaneous screw axis of a twist (w, v): (point on axis, unit direction, pitch).

    Pure translation (w = 0) gives direction v and infinite pitch.
    """
    w, v = twist[:3], twist[3:]
    ww = float(w @ w)
    if ww < PURE_TRANSLATION_RAD**2:
        n = np.linalg.norm(v)
        return np.zeros(3), v / n if n else v, float("inf")
    point = np.cross(w, v) / ww
    return point, w / np.sqrt(ww), float(w @ v) / ww


def wheel_tangents(pose: Pose) -> Tangents:
    """Parameter rates per mm of each wheel's travel, and per mm of rack.

    Column k < n_wheels moves wheel k by 1 mm of travel (wheel centre along the
    chassis z axis) with every other wheel's travel and the rack held, the
    strokes free: single-wheel bump for any layout, including a solid axle.
    The last column (if the car has a rack) moves the rack 1 mm with every
    wheel's travel held: pure steering. Solved from the constraint Jacobian
    bordered by the travel and rack rows (implicit function theorem).
    """
    model = pose.model
    wheels = model.car.wheels
    everything = np.arange(model.n_params)
    J = model.jacobian(pose.params, everything).toarray()
    _, dP = model.instance_positions(pose.params[:, None], derivatives=True)
    assert dP is not None
    inst_of = model.inst_index
    rows = []
    for w in wheels:
        i = inst_of[(w.centre, w.body)]
        row = np.zeros(model.n_params)
        for slot, p in enumerate(model.inst_slots[i]):
            if p >= 0:
                row[p] += dP[i, slot, 2, 0]
        rows.append(row)
    names = [w.name for w in wheels]
    if model.topology.rack_param is not None:
        row = np.zeros(model.n_params)
        row[model.topology.rack_param] = 1.0
        rows.append(row)
        names.append("rack")
    B = np.array(rows).reshape(len(rows), model.n_params)
    A = np.vstack([J, B])
    rhs = np.vstack([np.zeros((J.shape[0], len(rows))), np.eye(len(rows))])
    dq, *_ = np.linalg.lstsq(A, rhs, rcond=None)
    return Tangents(tuple(names), np.full(len(rows), -1), dq)


def damper_wheels(model: KinematicModel) -> dict[str, str]:
    """{damper body: wheel name}: the wheel on the same corner as each damper.

    Found once per model from the design pose: the rate of every wheel
    centre with respect to every stroke (implicit function theorem) is
    assigned one-to-one to maximise the total motion, so a damper gets the
    wheel its stroke moves most (a solid axle with a damper per side works
    the same way). Raises InputError when the car has no damper for some
    wheel (ground motions need one per wheel).
    """
    return dict(model.derived.get(("sweeps", "damper_wheels"), lambda: _damper_wheels(model)))


BRUTE_FORCE_PAIRING = 6
"""Up to this many dampers the pairing is found by trying every permutation (720 at
most; 24 for a car): scipy.optimize's import alone costs ~0.35 s of every ground motion."""


def best_pairing(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the square matrix `M` that maximise the sum of ``M[rows, cols]``,
    rows in order: every permutation tried up to `BRUTE_FORCE_PAIRING`, else scipy's
    `linear_sum_assignment` (the same optimum; on a tie, the first permutation found)."""
    n = M.shape[0]
    rows = np.arange(n)
    if n > BRUTE_FORCE_PAIRING:
        from scipy.optimize import linear_sum_assignment

        r, c = linear_sum_assignment(-M)
        return np.asarray(r), np.asarray(c)
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)
    totals = M[rows, perms].sum(axis=1)
    return rows, perms[int(np.argmax(totals))]


def _damper_wheels(model: KinematicModel) -> dict[str, str]:
    from suspension_sim.solve.solver import solve

    wheels = model.car.wheels
    dampers = model.damper_names
    if not wheels:
        raise InputError("the car has no wheels", where="motions", hint="add a Wheels section")
    if len(dampers) != len(wheels):
        raise InputError(
            f"ground motions and single-wheel bump need one damper per wheel; the car has "
            f"{len(dampers)} damper(s) ({', '.join(dampers) or 'none'}) and {len(wheels)} "
            f"wheel(s) ({', '.join(w.name for w in wheels)})",
            where="motions",
            hint="use the direct motions (stroke, rack, chassis), or describe one damper per "
            "wheel in the Damping section",
        )
    design = solve(model)
    tangents = input_tangents(design)
    rates = point_rates(design, tangents)
    inst = model.inst_index
    M = np.zeros((len(dampers), len(wheels)))
    for j, w in enumerate(wheels):
        i = inst[(w.centre, w.body)]
        M[:, j] = np.linalg.norm(rates[i, :, : len(dampers)], axis=0)
    rows, cols = best_pairing(M)
    out: dict[str, str] = {}
    for r, c in zip(rows, cols, strict=True):
        if M[r, c] < NO_WHEEL_RATE:
            raise InputError(
                f"damper {dampers[r]} does not move any wheel left without a damper "
                f"(wheel {wheels[c].name} does not move with its stroke)",
                where="motions",
                hint="check the Damping and Wheels sections: each damper must carry one wheel",
            )
        out[dampers[r]] = wheels[c].name
    return out
