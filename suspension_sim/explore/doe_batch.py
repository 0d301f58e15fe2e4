"""A design's motions solved from the base car's solved steps (the DOE's fast solve).

The reference runs each motion of each design by continuation (`sweeps.run_sweep`):
design, then every step warm-started from the last, the first step in several
increments, each screened for a jump to another assembly branch. A design of a study
is the base car with a few points moved by millimetres, so the base car's solution at
the same step is a start as good as the design's previous step. `FromBase` keeps the
base car's motions, solved once per worker (`run_sweep` with the poses kept), and
`FromBase.run` solves a design's states each from the base car's joint parameters at
that step, one compiled single solve per state (`engine_session.KernelSession.solve_one`,
the solve the reference's steps make, with the same targets and tolerance), no
Python continuation around them. The solutions are the reference's to the solver's
tolerance (~1e-10 mm; tests/test_doe_fast.py compares the tables to 1e-9).

It is used only where it answers what the reference would (else `run` says None for
that motion, or for the whole design when it fails the design checks, and the
reference runs it: its rows then the reference's by construction):

* the base car ran every step of every motion, all its states passed the input
  checks, its mobility has no redundant joints (those solve by least squares);
* the design passes `design_checks` by a wide margin: its mobility, damper-wheel
  pairing and left-turn rack sign from one Jacobian at design (the reference's
  rules: `diagnostics.checked_mobility`, `sensitivity.damper_wheels`,
  `steering.left_turn_rack_sign`), the last two then seeded in ``model.derived``;
* the design's motions are the base car's states: each is built by the reference
  (`SweepSpec.build`, reading the seeded pairing and sign) and must equal the base
  car's; a motion that reads nothing else of the design (`PLAIN_KINDS`) is the base
  car's without being built when the seeded values are the base car's;
* the design's inputs pass the damper-limit checks `check_states` and `run_sweep`
  make (`solve.inputs.within_limits`, design-dependent through the dampers' design
  lengths; the other input checks read only the states); the link-reach bound
  (`solve.reach.check_reach`) is not evaluated: it is an outer bound of the inputs any
  closed pose has, so a state that closes passes it;
* every state closes (a state past the design's reach does not: reference path, which
  says ``unreachable``);
* the branch screen passes: along each motion (design, step 0, 1, ...), every body of
  the design lands within ``JUMP_RATIO`` x its predicted motion + ``JUMP_FLOOR_MM`` of
  its prediction, the prediction being the design's previous step moved by the base
  car's own step (`continuation`'s rule and constants; a design whose step crosses a
  dead point the base car's does not, or flips to another assembly, fails it).

One module (~800 lines) because its parts answer one question together, "does this
design take the base car's path, and with what": the design checks seed what the
motions' build reads, the build decides which motions are solved from the base car's
steps, and the screen and the rows read the same `BaseMotion`s. What splits out first
when it grows: the design checks (`Structure`, `structure`, `design_checks` and their
helpers) into a module of their own.

Units: mm, rad (joint parameters), deg (chassis angles).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import SuspensionSimError

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.engine_targets import TargetTables
    from suspension_sim.solve.targets import CompiledTargets, Target
    from suspension_sim.sweeps.motions import Motion
    from suspension_sim.sweeps.result import SweepResult
    from suspension_sim.sweeps.spec import SweepSpec

SEEDED_KEYS = (("sweeps", "damper_wheels"), "left_turn_rack_sign")
"""``model.derived`` entries a motion's build reads that `design_checks` computes."""


@dataclass(frozen=True)
class BaseMotion:
    """One motion as the base car ran it: its steps, every step's solved joint parameters
    (S, n_params), the inputs as `solver.check_states` reads them (strokes (S,
    n_dampers), 0 where a state gives none; rack (S,); which strokes no target frees),
    and per step its targets and chassis transform (4x4, the base car's reference
    point)."""

    spec: SweepSpec
    motion: Motion
    params: np.ndarray
    strokes: np.ndarray
    rack: np.ndarray
    held: np.ndarray
    targets: tuple[dict[str, Target], ...]
    chassis: tuple[np.ndarray, ...]
    tables: tuple[TargetTables, ...] = ()
    """Each step's targets laid out for the kernel on the base car (`engine.target_tables`;
    a design whose targets read the same numbers uses them, `_same_targets`)."""
    probes: tuple[tuple[int, CompiledTargets], ...] = ()
    """(step, the base car's compiled targets there) for the first step of each kind of
    targets (`CompiledTargets.signature`) of the motion."""


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


DAMPER_KEYS = ("input_table", "input_limits", "damper_design_lengths")
"""``model.derived`` entries that follow from the dampers' design lengths and the
workbook's limits alone (`solve.inputs.input_table`, `solve.inputs.input_limits`, the
lengths by damper): a design that moves no damper point has the base car's."""


def _design_lengths(model: KinematicModel) -> dict[str, float]:
    """Each damper's design length by body (mm), as `sweeps.result` keeps them."""
    car = model.car
    return {d.body: car.damper_design_length(d) for d in car.dampers}


def _wheel_rows(model: KinematicModel) -> tuple[np.ndarray, ...]:
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
    from suspension_sim.tolerances import MIN_DAMPER_RATE

    wheels = model.car.wheels
    n = model.n_params
    row, param, copy, slot = model.derived.get(
        ("doe_batch", "wheel_rows"), lambda: _wheel_rows(model)
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


class FromBase:
    """The base car's motions, solved once, and a design's motions solved from them
    (module doc). `ready` is False when the base car does not allow it (then `run`
    always answers None). moved: the points the study moves; ran: the base car's
    `run_sweep` results of `specs` with the poses kept, when the caller has them."""

    def __init__(
        self,
        base: KinematicModel,
        specs: Sequence[SweepSpec],
        convention: str | None,
        moved: AbstractSet[str] = frozenset(),
        ran: Sequence[SweepResult] = (),
    ) -> None:
        from suspension_sim.solve import engine
        from suspension_sim.solve.diagnostics import checked_mobility
        from suspension_sim.solve.pose import chassis_transform
        from suspension_sim.solve.solver import check_states
        from suspension_sim.solve.steering import left_turn_rack_sign
        from suspension_sim.solve.targets import CompiledTargets
        from suspension_sim.sweeps import run_sweep
        from suspension_sim.sweeps.motions import motion_style

        self.convention = convention
        self.motions: list[BaseMotion] = []
        self.ready = False
        self.keys: tuple[object, ...] = ()
        self.structure: Structure | None = None
        self.base_damper_of = np.zeros(0, dtype=int)
        self.base_ratio: float | None = None
        self.reference_point = np.zeros(3)
        self.copies: dict[object, object] = {}
        """What the base car's point copies give (`_body_runs`, `_wheel_rows`), seeded
        in a design of its structure (the same copies) under the same keys."""
        self.base_seeds: dict[object, object] = {}
        """The base car's values of `keys`."""
        self.plain: dict[int, bool] = {}
        """By the id of each of `motions`: whether `_plain_motion` says it is the base
        car's on every design whose seeded values are the base car's."""
        try:
            if not engine.kernel_compiled() or checked_mobility(base).redundant:
                return
            self.style = motion_style(None, convention, base)
            for k, spec in enumerate(specs):
                done = ran[k] if k < len(ran) and ran[k].spec is spec else None
                res = run_sweep(base, spec, convention=convention) if done is None else done
                if res.problems or len(res.poses) != len(res.motion) or not len(res.motion):
                    return
                states = [step.state for step in res.motion]
                checked = check_states(base, states)
                if not checked.ok.all():
                    return
                frames = tuple(chassis_transform(base, st.chassis) for st in states)
                tables: list[TargetTables] = []
                probes: dict[object, tuple[int, CompiledTargets]] = {}
                for k, st in enumerate(states):
                    ct = CompiledTargets(base, st.targets, frames[k])
                    tt = engine.target_tables(base, ct) if st.targets else engine.no_targets(base)
                    if tt is None:
                        return
                    tables.append(tt)
                    probes.setdefault(ct.signature, (k, ct))
                self.motions.append(
                    BaseMotion(
                        spec,
                        res.motion,
                        np.array([p.params for p in res.poses]),
                        checked.strokes,
                        checked.rack,
                        checked.held,
                        tuple(dict(st.targets) for st in states),
                        frames,
                        tuple(tables),
                        tuple(probes.values()),
                    )
                )
        except SuspensionSimError:
            return
        try:
            from suspension_sim.metrics.geometry import wheel_set

            if base.car.rack is not None and base.car.rack.ratio_mm_per_deg:
                left_turn_rack_sign(base)  # the wheel set's steering ratio reads it
            ws = wheel_set(base)
        except SuspensionSimError:
            return
        self.base_damper_of = ws.damper_of
        self.base_ratio = ws.rack_ratio
        self.keys = tuple(k for k in SEEDED_KEYS if k in base.derived._values)
        self.base_seeds = {k: base.derived._values[k] for k in self.keys}
        self.plain = {id(bm): _plain_motion(bm.spec, self.style) for bm in self.motions}
        if not self.motions:
            return
        self.limit_rows = (
            np.vstack([bm.strokes for bm in self.motions]),
            np.concatenate([bm.rack for bm in self.motions]),
            np.vstack([np.where(bm.held, bm.strokes, 0.0) for bm in self.motions]),
            np.cumsum([0] + [len(bm.strokes) for bm in self.motions]),
        )
        """Every motion's strokes, rack and held strokes in a row, and where each
        motion's rows start and end (the limit checks of `run`)."""
        self.reference_point = _reference_point(base)
        found = structure(base)
        if found is None:
            return
        fixed = not (set(moved) & wheel_points(base))
        self.structure = dataclasses.replace(found, wheels_fixed=fixed)
        self.copies = {
            ("doe_batch", "bodies"): _body_runs(base),
            ("doe_batch", "wheel_rows"): _wheel_rows(base),
        }
        damper_points = {p for d in base.car.dampers for p in (d.chassis_point, d.moving_point)}
        if not set(moved) & damper_points:
            # the dampers' design lengths, hence every input's limits, are the base car's
            from suspension_sim.solve.inputs import input_limits, input_table

            input_table(base)
            input_limits(base)
            base.derived.get("damper_design_lengths", lambda: _design_lengths(base))
            for key in DAMPER_KEYS:
                self.copies[key] = base.derived._values[key]
        self.ready = True

    def same_wheels(self, model: KinematicModel) -> bool | None:
        """Whether the design's wheel set equals the base car's (`doe_metrics.same_wheels`
        of the two), known without building it when the study moves none of the points
        it reads and `design_checks` found the design's wheel-to-damper choice: then
        only that choice and the steer sign can differ. None: build it and compare."""
        st = self.structure
        if st is None or not st.wheels_fixed:
            return None
        damper_of = model.derived._values.get(DAMPER_OF)
        if not isinstance(damper_of, np.ndarray):
            return None
        if self.base_ratio is not None:
            sign = model.derived._values.get("left_turn_rack_sign")
            if sign is None:
                return None
            rack = model.car.rack
            if rack is None or abs(rack.ratio_mm_per_deg or 0.0) * sign != self.base_ratio:
                return False
        return bool(np.array_equal(damper_of, self.base_damper_of))

    def run(
        self, model: KinematicModel
    ) -> list[tuple[SweepSpec, SweepResult | None, str] | None] | None:
        """Each motion of the design `model` (of the base car's structure) solved from
        the base car's steps, as the `run_sweep` result (``keep_poses=False``) in the
        reference's (spec, result, reason) form, or None for a motion that does not
        meet the module doc's conditions (the caller runs that one by `run_sweep`). None
        for the whole design when it fails `design_checks`, or no motion is solved."""
        from suspension_sim.solve import engine
        from suspension_sim.solve.inputs import within_limits
        from suspension_sim.solve.pose import chassis_transform

        if self.structure is None:
            return None
        for key, value in self.copies.items():  # the base car's copies are the design's
            model.derived.get(key, lambda v=value: v)  # type: ignore[misc]
        if not design_checks(model, self.structure, self.keys):
            return None
        same_frame = np.array_equal(_reference_point(model), self.reference_point)
        usable: list[BaseMotion] = []
        solved: list[np.ndarray] = []
        residuals: list[np.ndarray] = []
        # the seeded values equal to the base car's: a motion that reads nothing else of
        # the design is the base car's (`_plain_motion`), not built again
        seeded = model.derived._values
        same_seeds = all(
            k in seeded and _same_value(seeded[k], v) for k, v in self.base_seeds.items()
        )
        # the limit checks of `check_states` and of `run_sweep`, whose bounds follow the
        # design's damper lengths: every motion's states at once
        strokes, rack, held, ends = self.limit_rows
        try:
            ok = within_limits(model, strokes, rack) & within_limits(model, held)
        except SuspensionSimError:
            ok = np.zeros(len(strokes), dtype=bool)
        limits_ok = {
            id(bm): bool(ok[a:b].all())
            for bm, (a, b) in zip(self.motions, itertools.pairwise(ends), strict=True)
        }
        for bm in self.motions:
            try:
                if not (same_seeds and self.plain[id(bm)]):
                    with engine.hold_load():
                        if bm.spec.build(model, self.style) != bm.motion:
                            continue  # e.g. a roll about the design's own roll axis
            except SuspensionSimError:
                continue
            if not limits_ok[id(bm)]:
                continue
            if same_frame:
                frames = bm.chassis
                shared = _same_targets(model, bm)
            else:
                frames = tuple(chassis_transform(model, st.chassis) for st in bm.motion.states)
                shared = False
            got = _solve_states(model, bm, frames, bm.tables if shared else None)
            if got is None:
                continue
            usable.append(bm)
            solved.append(got[0])
            residuals.append(got[1])
        clear = _clear_of_branches(model, usable, solved) if usable else []
        done = {
            id(bm): (bm.spec, _result(model, bm, Q, r, self.convention, self.style), "")
            for bm, Q, r, ok in zip(usable, solved, residuals, clear, strict=True)
            if ok
        }
        if not done:
            return None
        return [done.get(id(bm)) for bm in self.motions]


PLAIN_KINDS = frozenset(("heave", "roll", "pitch", "steer", "bump", "stroke", "rack", "chassis"))
"""Motion kinds whose build in the ``ours`` style reads of the model only names, the
workbook's options and steering ratio (the same on every design of a study) and the
`SEEDED_KEYS` values (the damper-wheel pairing, the left-turn rack sign): `sweeps.motions`
heave, roll, pitch (contact targets of each damper's wheel), steer (the rack per degree:
ratio x sign), bump (the wheel's damper), stroke, rack, chassis."""


def _plain_motion(spec: SweepSpec, style: str) -> bool:
    """True when `spec` builds the same motion on every design whose seeded values are
    the base car's (`PLAIN_KINDS` in the ``ours`` style; held inputs and targets are
    names and numbers, `SweepSpec.held_state`): it need not be built per design."""
    motions = [spec.motion] + ([spec.grid] if spec.grid is not None else [])
    return style == "ours" and all(m.kind in PLAIN_KINDS for m in motions)


def _same_value(a: object, b: object) -> bool:
    """Equal seeded values (a dict, a float or an array)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return bool(a == b)


def _reference_point(model: KinematicModel) -> np.ndarray:
    """The chassis reference point the chassis transforms turn about (mm)."""
    from suspension_sim.solve.pose import chassis_transform

    return chassis_transform(model, (0.0, 0.0, 0.0, 1.0, 1.0, 1.0))[:3, 3].copy()


def _same_targets(model: KinematicModel, bm: BaseMotion) -> bool:
    """True when the design's targets read the same numbers as the base car's at every
    step of `bm` (the same chassis frames assumed): for each kind of targets of the
    motion, the compiled targets at its first step (point copies, gradients, offsets,
    tyre radii, contact flags) equal the base car's. Every other step of that kind
    differs from it only by values and frames the two cars share, so the base car's
    kernel layout of each step's targets is the design's."""
    from suspension_sim.solve.targets import CompiledTargets

    for k, ref in bm.probes:
        mine = CompiledTargets(model, bm.targets[k], bm.chassis[k])
        for name in ("i", "j", "g", "offset", "radius", "is_contact", "value"):
            if not np.array_equal(getattr(mine, name), getattr(ref, name)):
                return False
    return True


def _solve_states(
    model: KinematicModel,
    bm: BaseMotion,
    frames: tuple[np.ndarray, ...],
    tables: tuple[TargetTables, ...] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each state of `bm` on the design `model`, from the base car's solution at that
    step (its held inputs are the state's): the joint parameters (S, n_params) and the
    largest residual of each (mm), or None when one does not close (or its targets
    cannot be solved inside the kernel). tables: the targets of each step laid out for
    the kernel, when known (`_same_targets`)."""
    from suspension_sim.solve import engine
    from suspension_sim.solve.targets import CompiledTargets
    from suspension_sim.tolerances import INNER_TARGET_MM

    sess = engine.session(model)
    target = min(model.car.options.solver_tolerance_mm, INNER_TARGET_MM)
    out = np.empty_like(bm.params)
    worst = np.empty(len(out))
    for s, q_base in enumerate(bm.params):
        targets = bm.targets[s]
        tt: TargetTables | None
        if tables is not None:  # the base car's layout, the same numbers (`_same_targets`)
            tt = tables[s]
        elif targets:
            tt = engine.target_tables(model, CompiledTargets(model, targets, frames[s]))
        else:
            tt = engine.no_targets(model)
        if tt is None:
            return None
        st, _its, worst[s], q, _pred = sess.solve_one(q_base, q_base, tt, target)
        # BRANCH: closed, but far from the kernel's own prediction, which here (the
        # held inputs unchanged, the points moved) is the start: the screen that
        # applies is `_clear_of_branches`
        if st not in (engine.OK, engine.BRANCH):
            return None
        out[s] = q
    return out, worst


def _clear_of_branches(
    model: KinematicModel, motions: Sequence[BaseMotion], solved: Sequence[np.ndarray]
) -> list[bool]:
    """The branch screen of the module doc for every step of every motion, in one
    compiled call for the point positions: per body, the largest distance of its points
    between the prediction and the previous step (predicted motion) and between the
    solution and the prediction (deviation); per motion, True when every deviation is at
    most ``JUMP_RATIO * predicted + JUMP_FLOOR_MM`` (mm)."""
    from suspension_sim.solve import engine
    from suspension_sim.solve.continuation import JUMP_FLOOR_MM, JUMP_RATIO

    # the positions at design, then per motion at each step's prediction and solution
    # (each step's previous pose is the design or the step before: not computed twice)
    n_q = solved[0].shape[1]
    rows: list[np.ndarray] = [np.zeros((1, n_q))]
    for bm, Q in zip(motions, solved, strict=True):
        prev = np.vstack([np.zeros((1, n_q)), Q[:-1]])  # design, then each step
        base_prev = np.vstack([np.zeros((1, n_q)), bm.params[:-1]])
        rows += [prev + (bm.params - base_prev), Q]
    order, starts = model.derived.get(("doe_batch", "bodies"), lambda: _body_runs(model))
    if not len(order):  # nothing moves: no step can jump
        return [True] * len(solved)
    # (1 + 2 S_total, n_inst, 3), the copies in body order
    P = engine.chassis_points_compiled(model, np.vstack(rows))[:, order]
    design = P[:1]
    prev_l, pred_l, got_l = [], [], []
    at = 1
    for Q in solved:
        n = len(Q)
        pred, got = P[at : at + n], P[at + n : at + 2 * n]
        at += 2 * n
        prev_l += [design, got[:-1]]
        pred_l.append(pred)
        got_l.append(got)
    prev, pred, got = np.concatenate(prev_l), np.concatenate(pred_l), np.concatenate(got_l)
    moved = np.sqrt(((pred - prev) ** 2).sum(axis=2))  # (S_total, n_inst)
    off = np.sqrt(((got - pred) ** 2).sum(axis=2))
    moved_b = np.maximum.reduceat(moved, starts, axis=1)
    off_b = np.maximum.reduceat(off, starts, axis=1)
    ok = np.all(off_b <= JUMP_RATIO * moved_b + JUMP_FLOOR_MM, axis=1)
    ends = np.cumsum([0] + [len(Q) for Q in solved])
    return [bool(ok[a:b].all()) for a, b in itertools.pairwise(ends)]


def _body_runs(model: KinematicModel) -> tuple[np.ndarray, np.ndarray]:
    """The point copies on moving parts sorted by body (stable) and where each body's
    run starts. A copy on a fixed part (the chassis, a body fixed to it) stands still in
    every pose, so it always passes the branch screen and is left out."""
    keep = np.flatnonzero(model.inst_part >= model.n_fixed_parts)
    rows = np.unique(np.array(model.inst_body, dtype=object), return_inverse=True)[1]
    rows = np.asarray(rows).reshape(-1)[keep]
    sort = np.argsort(rows, kind="stable")
    return keep[sort], np.flatnonzero(np.r_[True, np.diff(rows[sort]) != 0])


def _result(
    model: KinematicModel,
    bm: BaseMotion,
    Q: np.ndarray,
    residual: np.ndarray,
    convention: str | None,
    style: str,
) -> SweepResult:
    """The `run_sweep` result (``keep_poses=False``) of the design's solved steps: what
    `MetricRows.add` keeps of each step's pose, the damper-limit text made (by
    `sweeps.result.limit_text`) only for the steps where some damper is past a length
    limit by more than `LIMIT_NOTE_MM` (the same comparisons; '' elsewhere)."""
    from suspension_sim.metrics import preset
    from suspension_sim.solve.inputs import input_table
    from suspension_sim.solve.pose import Pose, SolveInfo
    from suspension_sim.sweeps.result import MetricRows, SweepResult, limit_text
    from suspension_sim.tolerances import LIMIT_NOTE_MM

    car = model.car
    rows = MetricRows(preset(convention or car.options.sign_convention).name)
    table = input_table(model)
    tol = car.options.solver_tolerance_mm
    rows.model = model
    rows.tolerance = tol
    n = len(bm.motion)
    names = model.damper_names
    # Every stroke and the rack as the solved parameters hold them: the freed ones as
    # solved, the held ones as the base car's solve wrote them (`set_inputs` of the
    # state's inputs, read by name as `solve` reads them), which is what `solve` puts
    # in the pose.
    strokes = Q[:, table.damper_params]
    if table.rack_param is not None:
        rack = Q[:, table.rack_param]
    else:
        rack = np.array([float(step.state.rack) for step in bm.motion])
    design = model.derived.get("damper_design_lengths", lambda: _design_lengths(model))
    past = np.zeros(n, dtype=bool)
    for d in car.dampers:
        length = design[d.body] - strokes[:, names.index(d.body)]
        if d.min_length is not None:
            past |= length < d.min_length - LIMIT_NOTE_MM
        if d.max_length is not None:
            past |= length > d.max_length + LIMIT_NOTE_MM
    rows.params = list(Q.copy())
    rows.shocks = strokes.tolist()
    rows.rack = rack.tolist()
    rows.chassis = [tuple(step.state.chassis) for step in bm.motion]
    rows.residual = residual.tolist()
    rows.limits = [""] * n
    info = SolveInfo(True, "engine", 0, 1, 0, 0.0, tol, 0.0, float("nan"), False, "")
    for s in np.flatnonzero(past).tolist():
        shocks = dict(zip(names, rows.shocks[s], strict=True))
        chassis = bm.motion[s].state.chassis
        rows.limits[s] = limit_text(Pose(model, Q[s], shocks, rows.rack[s], chassis, info))
    steps = list(range(n))
    return SweepResult(bm.spec, bm.motion, [], steps, [], [], [], convention, model, rows, style)
