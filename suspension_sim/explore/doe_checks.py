"""The DOE's design checks: will the reference's checks of a design certainly pass, and
with what it then reads (the damper-wheel pairing, the left-turn rack sign, the wheel set's
damper choice), from one Jacobian at design instead of the reference's three passes.

A design of a study shares the base car's structure (`doe_refill`): its joints,
parameters, point copies and Jacobian layout are the base car's, only the numbers
differ. `Structure` keeps what the checks take from the base car; `design_checks` checks
one design (the plain path, the rules written out once); `design_checks_many` checks
several at once, every array op over all of them (the same rules, decisions and seeded
values: tests/test_doe_fast.py compares the two on random designs). A design that fails
a check, or passes it by less than `MARGIN`, goes to the reference, which says why.
`explore.doe_batch.FromBase` uses them before solving a design from the base car's steps.

Units: mm, rad (joint parameters); rates in mm per mm or rad of input.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

MARGIN = 1e3
"""How far inside the reference's thresholds the design checks must pass (rank, stuck
bodies, the pairing's and the steer sign's floors): a design that passes them by less
is checked by the reference itself."""


@dataclass(frozen=True)
class Structure:
    """What the design checks take from the base car: the unknowns and inputs
    (parameter indices), the independent blocks of J_x as (rows, columns) of it, the
    mask of those blocks, and which point copies belong to each moving body."""

    x: np.ndarray
    u: np.ndarray
    blocks: tuple[tuple[np.ndarray, np.ndarray], ...]
    mask: np.ndarray
    moving: tuple[np.ndarray, ...]
    stacks: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    """The blocks grouped by size, as index arrays (k, m, 1) of rows and (k, 1, m) of
    columns of J_x: one batched SVD per size."""
    moving_order: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, int))
    moving_starts: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, int))
    """The moving bodies' point copies in a row, and where each body's run starts."""
    wheels_fixed: bool = False
    """The study moves no point the wheel set reads (`wheel_points`)."""
    partition: bool = False
    """The blocks cover every row and every column of J_x once (the input tangents are
    then solved block by block)."""
    local0: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 1, 3, 4, 1)))
    """The parts' local transforms at design and their derivatives, by point copy
    (`positions`): the same for every design of the base car's structure."""


DAMPER_OF = ("doe_batch", "damper_of")
"""``model.derived`` key of the design's wheel-to-damper choice (`_primary_dampers`)."""


def wheel_points(model: KinematicModel) -> frozenset[str]:
    """The points whose coordinates `metrics.geometry.wheel_set` reads (wheel centres and
    spin-axis points, the dampers' ends for their design lengths, the chassis reference
    point); the rest of it is names, the body graph, the tyre radii, the workbook's
    options, the steer sign and `damper_of`. A design that moves none of them has the
    base car's wheel set but for those last two (tests/test_doe_fast.py compares)."""
    car = model.car
    names = {p for w in car.wheels for p in (w.centre, w.axis_point)}
    names |= {p for d in car.dampers for p in (d.chassis_point, d.moving_point)}
    if car.options.chassis_reference_point:
        names.add(car.options.chassis_reference_point)
    return frozenset(names)


def structure(base: KinematicModel) -> Structure | None:
    """The base car's `Structure`, or None when J_x at design is not square (redundant
    or missing constraints: only the reference's mobility check answers those)."""
    from suspension_sim.description import CHASSIS
    from suspension_sim.model.rank import jacobian_blocks

    n = base.n_params
    u = base.input_params()
    x = np.setdiff1d(np.arange(n), u)
    J = base.dense_jacobian(np.zeros(n), np.arange(n))
    if J.shape[0] != len(x):
        return None
    Jx = J[:, x]
    blocks = tuple(jacobian_blocks(Jx))
    mask = np.zeros(Jx.shape, dtype=bool)
    for r, c in blocks:
        if len(r) != len(c):
            return None
        mask[np.ix_(r, c)] = True
    bodies = {j.body for j in base.topology.joints if j.kind != "fixed"} - {CHASSIS}
    inst_body = np.array(base.inst_body, dtype=object)
    moving = tuple(
        np.flatnonzero(inst_body == b) for b in dict.fromkeys(base.inst_body) if b in bodies
    )
    sizes: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
    for r, c in blocks:
        sizes.setdefault(len(r), []).append((r, c))
    stacks = tuple(
        (np.array([r for r, _ in group])[:, :, None], np.array([c for _, c in group])[:, None, :])
        for group in sizes.values()
    )
    order = np.concatenate(moving) if moving else np.zeros(0, dtype=int)
    starts = np.cumsum([0] + [len(m) for m in moving[:-1]]) if moving else np.zeros(0, int)
    local0 = base.local_transforms(np.zeros((n, 1)))[base.inst_part]
    every = np.arange(len(x))
    partition = bool(
        blocks
        and np.array_equal(np.sort(np.concatenate([r for r, _ in blocks])), every)
        and np.array_equal(np.sort(np.concatenate([c for _, c in blocks])), every)
    )
    return Structure(
        x,
        u,
        blocks,
        mask,
        moving,
        stacks,
        order,
        np.asarray(starts, dtype=int),
        False,
        partition,
        local0,
    )


def positions(model: KinematicModel, local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`model.instance_positions` from its parts' local transforms already indexed by
    point copy, ``local_transforms(q)[inst_part]`` (n_inst, 1 + k, 3, 4, B): the same
    arithmetic, so the same numbers. Those transforms depend only on the chains and
    parameters, not on the frames or points: a design of the base car's structure takes
    the base car's (the designs of a study share the states asked: design, random).
    Returns P (n_inst, 3, B) and dP (n_inst, k, 3, B), mm and mm per rad or mm."""
    Y = np.einsum("nkijb,nj->nkib", local[:, :, :, :3], model.inst_local)
    Y[:, 0] += local[:, 0, :, 3]
    Y[:, 1:] += local[:, 1:, :, 3]
    W = np.einsum("nij,nkjb->nkib", model.inst_rot, Y)
    return W[:, 0] + model.inst_origin[:, :, None], W[:, 1:]


def design_checks(model: KinematicModel, st: Structure, keys: Sequence[object]) -> bool:
    """True when the reference's design checks certainly pass for `model` (a design of
    the base car's structure), and then ``model.derived`` is seeded with the values of
    `keys` (`SEEDED_KEYS`) the motions' build reads. One Jacobian at design, one solve
    for the input tangents, one pass of the point rates, instead of the reference's
    three (`diagnostics.checked_mobility`, `sensitivity.damper_wheels`,
    `steering.left_turn_rack_sign`, each at design):

    * mobility (`model.mobility`): J_x square and of full rank (each independent
      block's smallest singular value of the column-scaled block above `MARGIN` x the
      rank tolerance), so no motion is free, no input is locked (no left null space)
      and no constraint is redundant; every moving body has a point moving at more than
      `MARGIN` x `STUCK_RATE` per unit of some input;
    * the damper-wheel pairing: the reference's rule on the same rates, the best
      pairing ahead of the next by a relative 1e-9 and each pair's rate above `MARGIN`
      x `NO_WHEEL_RATE`;
    * the left-turn rack sign: the summed yaw rate above `MARGIN` x `NO_STEER_YAW`.

    False (nothing seeded) otherwise: the reference then checks, and says why. The
    rates are taken at design (q = 0, where every design closes by construction; the
    reference takes them at the solved design pose, the same to ~1e-13).
    """
    from suspension_sim.model import slot_rates
    from suspension_sim.solve.sensitivity import BRUTE_FORCE_PAIRING
    from suspension_sim.tolerances import NO_STEER_YAW, NO_WHEEL_RATE, RANK_TOL, STUCK_RATE

    n = model.n_params
    if st.local0.shape[0] != len(model.inst_part):
        return False
    # `model.dense_jacobian` at design and the point slopes there, from one evaluation
    # of the point copies (`positions`: the same numbers)
    _, dP = positions(model, st.local0)
    lay = model.layout(np.arange(n))
    if lay.shape != (len(st.x), n):
        return False
    data = lay.sign * dP[lay.inst, lay.slot, lay.axis, 0]
    rows = np.repeat(np.arange(lay.shape[0]), np.diff(lay.indptr))
    J = np.bincount(rows * n + lay.indices, weights=data, minlength=lay.shape[0] * n).reshape(
        lay.shape
    )
    Jx, Ju = J[:, st.x], J[:, st.u]
    if np.any(Jx[~st.mask]):
        return False
    dx = np.empty((len(st.x), len(st.u))) if st.partition else None
    for R, C in st.stacks:  # the blocks of one size together: (k, m, m)
        A = Jx[R, C]
        norms = np.sqrt(np.einsum("kij,kij->kj", A, A))
        if not (norms > 0).all():
            return False
        if A.shape[1] == 1:  # a 1 x 1 block scaled to its column's norm: +-1
            s = np.ones((len(A), 1))
        else:
            s = np.linalg.svd(A / norms[:, None, :], compute_uv=False)
        if not (s[:, -1] > MARGIN * RANK_TOL * s[:, 0]).all():
            return False
        if dx is not None:  # J_x is these blocks: each solved on its own
            try:
                dx[C[:, 0, :]] = np.linalg.solve(A, -Ju[R[:, :, 0]])
            except np.linalg.LinAlgError:
                return False
    if dx is None:
        try:
            dx = np.linalg.solve(Jx, -Ju)
        except np.linalg.LinAlgError:
            return False
    dq = np.zeros((n, len(st.u)))
    dq[st.x] = dx
    dq[st.u, np.arange(len(st.u))] = 1.0
    slots = model.inst_slots
    rates = np.einsum("nki,nku->niu", dP[:, : slots.shape[1], :, 0], slot_rates(slots, dq))
    speed = np.abs(rates).max(axis=(1, 2))
    if (
        len(st.moving_order)
        and not (
            np.maximum.reduceat(speed[st.moving_order], st.moving_starts) > MARGIN * STUCK_RATE
        ).all()
    ):
        return False
    wheels = model.car.wheels
    dampers = model.damper_names
    inst = model.inst_index
    seeds: dict[object, object] = {}
    if ("sweeps", "damper_wheels") in keys:
        if not wheels or len(dampers) != len(wheels) or len(dampers) > BRUTE_FORCE_PAIRING:
            return False
        M = np.zeros((len(dampers), len(wheels)))
        for j, w in enumerate(wheels):
            M[:, j] = np.linalg.norm(rates[inst[(w.centre, w.body)], :, : len(dampers)], axis=0)
        rows = np.arange(len(dampers))
        perms = _permutations(len(rows))
        totals = M[rows, perms].sum(axis=1)
        best = int(np.argmax(totals))
        others = np.delete(totals, best)
        if others.size and not totals[best] - others.max() > 1e-9 * abs(totals[best]):
            return False
        cols = perms[best]
        if not (M[rows, cols] > MARGIN * NO_WHEEL_RATE).all():
            return False
        seeds[("sweeps", "damper_wheels")] = {
            dampers[r]: wheels[j].name for r, j in zip(rows.tolist(), cols.tolist(), strict=True)
        }
    if "left_turn_rack_sign" in keys:
        if model.topology.rack_param is None:
            return False
        k = len(st.u) - 1  # the rack is the last input
        yaw = 0.0
        for w in wheels:
            ic, ia = inst[(w.centre, w.body)], inst[(w.axis_point, w.body)]
            s_ = model.inst_design[ia] - model.inst_design[ic]
            ds = rates[ia, :, k] - rates[ic, :, k]
            yaw += float((s_[0] * ds[1] - s_[1] * ds[0]) / (s_ @ s_))  # (s x ds)_z
        if not abs(yaw) > MARGIN * NO_STEER_YAW:
            return False
        seeds["left_turn_rack_sign"] = 1.0 if yaw > 0 else -1.0
    if st.wheels_fixed:
        seeds[DAMPER_OF] = _primary_dampers(model, J, dP)
    for key, value in seeds.items():
        model.derived.get(key, lambda v=value: v)  # type: ignore[misc]
    return True


def wheel_rows(model: KinematicModel) -> tuple[np.ndarray, ...]:
    """Per wheel (row) and slot of its centre's copy: the row, the slot's parameter, the
    copy and the slot (`_primary_dampers` sums the copy's z rates into the rows)."""
    out: list[tuple[int, int, int, int]] = []
    for r, w in enumerate(model.car.wheels):
        i = model.inst_index[(w.centre, w.body)]
        out += [(r, int(p), i, k) for k, p in enumerate(model.inst_slots[i]) if p >= 0]
    arr = np.array(out, dtype=np.int64).reshape(-1, 4)
    return tuple(np.ascontiguousarray(arr[:, j]) for j in range(4))


@functools.cache
def _permutations(n: int) -> np.ndarray:
    """Every ordering of range(n), (n!, n) (the pairing's brute force; kept per n)."""
    out = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)
    out.flags.writeable = False
    return out


def _primary_dampers(model: KinematicModel, J: np.ndarray, dP: np.ndarray) -> np.ndarray | None:
    """The wheel set's `damper_of` (`metrics.geometry.primary_dampers` of the
    single-wheel travel tangents, `solve.sensitivity.wheel_tangents`, at design) from the
    Jacobian and point slopes at design already at hand: the same bordered system. None
    when some wheel's choice is within a relative 1e-9 of a tie, or its rate within
    `MARGIN` of the floor (the wheel set is then built and compared whole)."""

    wheels = model.car.wheels
    n = model.n_params
    row, param, copy, slot = model.derived.get(
        ("doe_batch", "wheel_rows"), lambda: wheel_rows(model)
    )
    B = np.zeros((len(wheels) + (model.topology.rack_param is not None), n))
    np.add.at(B, (row, param), dP[copy, slot, 2, 0])  # each wheel centre's z rate
    if model.topology.rack_param is not None:
        B[-1, model.topology.rack_param] = 1.0
    A = np.vstack([J, B])
    rhs = np.vstack([np.zeros((J.shape[0], len(B))), np.eye(len(B))])
    try:  # square and regular when the checks above passed: lstsq's answer, cheaper
        dq = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:
        dq = np.linalg.lstsq(A, rhs, rcond=None)[0]
    rates = np.abs(dq[np.array(model.topology.damper_params, dtype=int)][:, : len(wheels)])
    return _choose_dampers(rates)


def _choose_dampers(rates: np.ndarray) -> np.ndarray | None:
    """Per wheel (column of `rates`, |stroke rate| of each damper per mm of that wheel's
    travel), the damper it moves most, -1 where it moves none above `MIN_DAMPER_RATE`;
    None when a choice is within a relative 1e-9 of a tie or a rate within `MARGIN` of
    that floor (`_primary_dampers`)."""
    from suspension_sim.tolerances import MIN_DAMPER_RATE

    if rates.size == 0:
        return None
    ranked = np.sort(rates, axis=0)
    top = ranked[-1]
    if rates.shape[0] > 1 and not (top - ranked[-2] > 1e-9 * top).all():
        return None
    if not ((top > MARGIN * MIN_DAMPER_RATE) | (top < MIN_DAMPER_RATE / MARGIN)).all():
        return None
    best = np.argmax(rates, axis=0)
    return np.where(top >= MIN_DAMPER_RATE, best, -1)


def design_checks_many(
    models: Sequence[KinematicModel], st: Structure, keys: Sequence[object]
) -> list[bool]:
    """`design_checks` of several designs of the base car's structure at once: the same
    rules and thresholds, each array op over all the designs (the blocks' solves
    stacked, the pairing's permutations per design in one take), then per design the
    same seeds in ``model.derived``. A design's answer does not depend on the others'.
    The arithmetic differs in its last bits (stacked products, the rank rule from the
    inverse's norm, the damper choice from a small inverse), so a design within ~1e-10
    (relative) of one of the `MARGIN`-widened thresholds may be answered the other
    way: either answer is safe, a False sending it to the reference's own checks.
    Falls back to `design_checks` one by one when the designs do not all share the
    Jacobian layout, or a stacked solve meets a singular block (that design's own
    check then says False)."""
    if len(models) < 2:
        return [design_checks(m, st, keys) for m in models]
    try:
        got = _checks_stacked(models, st, keys)
    except (np.linalg.LinAlgError, _NotSharedError):
        got = None
    if got is None:
        return [design_checks(m, st, keys) for m in models]
    for model, seeds in zip(models, got, strict=True):
        if seeds is None:
            continue
        for key, value in seeds.items():
            model.derived.get(key, lambda v=value: v)  # type: ignore[misc]
    return [seeds is not None for seeds in got]


class _NotSharedError(Exception):
    """The designs given to `_checks_stacked` do not share the Jacobian layout."""


def _checks_stacked(
    models: Sequence[KinematicModel], st: Structure, keys: Sequence[object]
) -> list[dict[object, object] | None]:
    """Per design, the seeds `design_checks` would write, or None where it says False
    (module doc). Raises `_NotSharedError` when the designs' layouts differ."""
    from suspension_sim.solve.sensitivity import BRUTE_FORCE_PAIRING
    from suspension_sim.tolerances import NO_STEER_YAW, NO_WHEEL_RATE, RANK_TOL, STUCK_RATE

    m0 = models[0]
    n = m0.n_params
    every = np.arange(n)
    lay = m0.layout(every)
    n_inst = len(m0.inst_part)
    if st.local0.shape[0] != n_inst or lay.shape != (len(st.x), n):
        raise _NotSharedError
    for m in models[1:]:
        if m.layout(every) is not lay or m.n_params != n or len(m.inst_part) != n_inst:
            raise _NotSharedError
    D = len(models)
    ok = np.ones(D, dtype=bool)
    # `positions`' slopes of every design, (D, n_inst, k, 3): the same products, summed
    # by explicit terms and matmul (einsum's loops are 2-4x slower on these stacks)
    L = st.local0[..., 0]  # (n_inst, 1 + k, 3, 4)
    p_ = np.stack([m.inst_local for m in models])[:, :, None, None, :]  # (D, n, 1, 1, 3)
    Y = L[None, :, 1:, :, 3] + L[None, :, 1:, :, 0] * p_[..., 0]
    Y += L[None, :, 1:, :, 1] * p_[..., 1]
    Y += L[None, :, 1:, :, 2] * p_[..., 2]
    dP = Y @ np.stack([m.inst_rot for m in models]).transpose(0, 1, 3, 2)
    # the Jacobian at design of every design (D, m, n)
    rows = np.repeat(np.arange(lay.shape[0]), np.diff(lay.indptr))
    flat = rows * n + lay.indices
    size = lay.shape[0] * n
    data = lay.sign * dP[:, lay.inst, lay.slot, lay.axis]
    J = np.bincount(
        (flat[None, :] + size * np.arange(D)[:, None]).ravel(),
        weights=data.ravel(),
        minlength=D * size,
    ).reshape(D, *lay.shape)
    Jx, Ju = J[:, :, st.x], J[:, :, st.u]
    ok &= ~Jx[:, ~st.mask].any(axis=1)
    u = len(st.u)
    dx = np.zeros((D, len(st.x), u)) if st.partition else None
    for R, C in st.stacks:  # (D, k, m, m)
        A = Jx[:, R, C]
        norms = np.sqrt(np.einsum("dkij,dkij->dkj", A, A))
        good = (norms > 0).all(axis=(1, 2))
        ok &= good
        A = np.where(good[:, None, None, None], A, np.eye(A.shape[-1]))  # kept regular
        norms = np.where(good[:, None, None], norms, 1.0)
        m_ = A.shape[-1]
        if dx is None:
            if m_ > 1:
                ok &= _full_rank(A / norms[:, :, None, :])
            continue
        rhs = -Ju[:, R[:, :, 0]]
        if m_ == 1:  # (a 1 x 1 block scaled to its column's norm is +-1: no rank check)
            dx[:, C[:, 0, :]] = np.linalg.solve(A, rhs)
            continue
        # the tangents and the inverse from one factorisation; the rank check from the
        # inverse where it settles it (`_full_rank`, exact, where it does not)
        eye = np.broadcast_to(np.eye(m_), (*A.shape[:2], m_, m_))
        X = np.linalg.solve(A, np.concatenate([rhs, eye], axis=-1))
        dx[:, C[:, 0, :]] = X[..., : rhs.shape[-1]]
        # the scaled block A / norms has unit columns, so its largest singular value is
        # at most sqrt(m); its inverse is norms (rows) x A's, whose Frobenius norm bounds
        # 1 / its smallest singular value from above
        inv = norms[..., :, None] * X[..., rhs.shape[-1] :]
        floor = 1.0 / np.sqrt((inv * inv).sum(axis=(2, 3)))  # <= smallest singular value
        settled = (floor > MARGIN * RANK_TOL * np.sqrt(m_)).all(axis=1)
        unsure = np.flatnonzero(ok & ~settled)
        if len(unsure):
            ok[unsure] &= _full_rank(A[unsure] / norms[unsure][:, :, None, :])
    if dx is None:  # J_x whole; a design already failed keeps the others' solve regular
        dx = np.linalg.solve(np.where(ok[:, None, None], Jx, np.eye(Jx.shape[1])), -Ju)
    dq = np.zeros((D, n + 1, u))  # row n: the zero row a slot -1 reads (`slot_rates`)
    dq[:, st.x] = dx
    dq[:, st.u, np.arange(u)] = 1.0
    slots = m0.inst_slots
    k = slots.shape[1]
    rates = dP[:, :, :k].transpose(0, 1, 3, 2) @ dq[:, slots]  # (D, n_inst, 3, u)
    if len(st.moving_order):
        speed = np.abs(rates).max(axis=(2, 3))
        fastest = np.maximum.reduceat(speed[:, st.moving_order], st.moving_starts, axis=1)
        ok &= (fastest > MARGIN * STUCK_RATE).all(axis=1)
    wheels = m0.car.wheels
    dampers = m0.damper_names
    inst = m0.inst_index
    seeds: list[dict[object, object]] = [{} for _ in range(D)]
    if ("sweeps", "damper_wheels") in keys:
        if not wheels or len(dampers) != len(wheels) or len(dampers) > BRUTE_FORCE_PAIRING:
            return [None] * D
        centre = [inst[(w.centre, w.body)] for w in wheels]
        W = rates[:, centre, :, : len(dampers)]  # (D, wheels, 3, dampers)
        M = np.sqrt((W * W).sum(axis=2)).transpose(0, 2, 1)  # (D, dampers, wheels)
        r_ = np.arange(len(dampers))
        perms = _permutations(len(r_))
        totals = M[:, r_, perms].sum(axis=2)  # (D, n!)
        best = np.argmax(totals, axis=1)
        top = totals[np.arange(D), best]
        if totals.shape[1] > 1:
            others = np.where(np.arange(totals.shape[1]) == best[:, None], -np.inf, totals)
            ok &= top - others.max(axis=1) > 1e-9 * np.abs(top)
        cols = perms[best]  # (D, dampers)
        ok &= (
            np.take_along_axis(M, cols[:, :, None], axis=2)[:, :, 0] > MARGIN * NO_WHEEL_RATE
        ).all(axis=1)
        for d in np.flatnonzero(ok).tolist():
            seeds[d][("sweeps", "damper_wheels")] = {
                dampers[r]: wheels[j].name
                for r, j in zip(r_.tolist(), cols[d].tolist(), strict=True)
            }
    if "left_turn_rack_sign" in keys:
        if m0.topology.rack_param is None:
            return [None] * D
        yaw = np.zeros(D)
        design = np.stack([m.inst_design for m in models])
        for w in wheels:
            ic, ia = inst[(w.centre, w.body)], inst[(w.axis_point, w.body)]
            s_ = design[:, ia] - design[:, ic]
            ds = rates[:, ia, :, u - 1] - rates[:, ic, :, u - 1]
            yaw += (s_[:, 0] * ds[:, 1] - s_[:, 1] * ds[:, 0]) / (s_ * s_).sum(axis=1)
        ok &= np.abs(yaw) > MARGIN * NO_STEER_YAW
        for d in np.flatnonzero(ok).tolist():
            seeds[d]["left_turn_rack_sign"] = 1.0 if yaw[d] > 0 else -1.0
    if st.wheels_fixed:
        chosen = _primary_dampers_many(models, rates, ok)
        for d in np.flatnonzero(ok).tolist():
            seeds[d][DAMPER_OF] = chosen[d]
    return [seeds[d] if ok[d] else None for d in range(D)]


def _full_rank(A: np.ndarray) -> np.ndarray:
    """Per design, whether every block of the stack A (D, k, m, m), its columns scaled to
    unit norm, has its smallest singular value above `MARGIN` x `RANK_TOL` x its largest
    (`design_checks`' rank rule)."""
    from suspension_sim.tolerances import RANK_TOL

    s = np.linalg.svd(A, compute_uv=False)
    return np.asarray((s[..., -1] > MARGIN * RANK_TOL * s[..., 0]).all(axis=1))


def _primary_dampers_many(
    models: Sequence[KinematicModel], rates: np.ndarray, ok: np.ndarray
) -> list[np.ndarray | None]:
    """`_primary_dampers` of each design still `ok`, from the input tangents' point rates
    (D, n_inst, 3, u) at hand. Its bordered system [J; B] dq = [0; I] asks for the
    tangent that moves one wheel centre up 1 mm, the other wheels and the rack not at
    all. With J_x regular (checked) every tangent with J dq = 0 is the input tangents
    times some c, so dq = dq_u G^-1 with G = B dq_u (u x u: each wheel centre's z rate
    per input, then the rack row), and the strokes' rows of dq, those of G^-1 (dq_u is
    the identity on the inputs): one small inverse per design, not an n x n solve."""
    m0 = models[0]
    wheels = m0.car.wheels
    D = len(models)
    out: list[np.ndarray | None] = [None] * D
    live = np.flatnonzero(ok)
    rack = m0.topology.rack_param
    u = rates.shape[-1]
    n_d = len(m0.topology.damper_params)
    if not len(live) or len(wheels) + (rack is not None) != u or n_d + (rack is not None) != u:
        for d in live.tolist():  # (not the square case: the designs one by one)
            out[d] = _primary_dampers_of(models[d])
        return out
    inst = m0.inst_index
    centre = [inst[(w.centre, w.body)] for w in wheels]
    G = np.zeros((len(live), u, u))
    G[:, : len(wheels)] = rates[live][:, centre, 2, :]
    if rack is not None:
        G[:, -1, -1] = 1.0  # the rack is the last input (`KinematicModel.input_params`)
    try:
        Ginv = np.linalg.inv(G)
    except np.linalg.LinAlgError:
        for d in live.tolist():
            out[d] = _primary_dampers_of(models[d])
        return out
    picked = np.abs(Ginv[:, :n_d, : len(wheels)])
    for i, d in enumerate(live.tolist()):
        out[d] = _choose_dampers(picked[i])
    return out


def _primary_dampers_of(model: KinematicModel) -> np.ndarray | None:
    """`_primary_dampers` of one design from its own Jacobian and slopes at design."""
    n = model.n_params
    st_local = model.local_transforms(np.zeros((n, 1)))[model.inst_part]
    _, dP = positions(model, st_local)
    J = model.dense_jacobian(np.zeros(n), np.arange(n))
    return _primary_dampers(model, J, dP)
