"""A DOE design's `KinematicModel` made from the base car's, not built whole (the fast
path's model step, `explore.doe_fast`).

A design moves hard points and nothing else. `refill_model` re-frames only the bodies
carrying a moved point (`model.refit.refit`, else `classify` itself), takes the parts'
and point copies' structural indexes from the base car and computes only their
coordinates; `same_structure` then compares the design with the base car (joints,
parameters, parts, point copies, active joined pairs); when they are the same,
`share_structure` hands the base car's structural caches over (`STRUCTURAL_KEYS`, the
problems' blocks, the metric layouts, the compiled kernels' entry points) and refills
its kernel tables with the design's numbers (`engine_tables.refill_tables`,
`engine_reduced.refill_reduced`). What depends on names alone (which bodies, parts and
point copies the study's points reach, which links the reduced tables may drop) is
worked out once per base model (`_Plan`, `refit.refit_plan`, `refill_reduced`'s
memo); per design only the numbers that depend on coordinates are computed, the others
taken from the base model: the numbers of the plain refill (`_refill_plain`) bit for
bit, and a whole build's but for the last bits of the vectorised frames (`refit`).
tests/test_doe_fast.py compares refilled models and tables with freshly built ones
attribute by attribute, tests/test_doe_refill.py the fast steps with the plain ones.
Units: mm, rad.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import numpy as np

from suspension_sim.errors import SuspensionSimError
from suspension_sim.model.refit import RefitPlan, point_rows, refit_plan, replaced
from suspension_sim.model.topology import BodyJoint, Part
from suspension_sim.tolerances import COINCIDENT_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import AntiRollBar, Body, Car, Damper, Rack
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.engine_tables import KernelTables

STRUCTURAL_KEYS = ("engine_plan",)
"""``model.derived`` entries that depend only on the body graph, the joint classes and
the active pairs; so do the problem blocks of each lock set, keyed ``("problem", ...)``,
and the metric layouts, ``("metrics", "layout", rates)`` and ``("metrics", "keys",
rates)`` (`share_structure` hands those over too)."""


def same_structure(base: KinematicModel, model: KinematicModel) -> bool:
    """True when `model` has `base`'s structure: the same bodies, joint kinds, parameter
    layout, parts (chains, parameters, points), point copies and active joined pairs.

    Only then are `base`'s structural caches valid for `model` (the Jacobian's layout,
    the solver's blocks, the metrics' columns); frames and point coordinates may differ.
    """
    tb, tm = base.topology, model.topology
    if (
        tb.param_names != tm.param_names
        or tb.damper_params != tm.damper_params
        or tb.rack_param != tm.rack_param
        or len(tb.joints) != len(tm.joints)
    ):
        return False
    for a, b in zip(tb.joints, tm.joints, strict=True):
        if a is not b and (a.body, a.kind, a.params) != (b.body, b.kind, b.params):
            return False
    if len(base.parts) != len(model.parts):
        return False
    for pa, pb in zip(base.parts, model.parts, strict=True):
        if pa is not pb and _part_key(pa) != _part_key(pb):
            return False
    return (
        base.inst_point == model.inst_point
        and base.inst_body == model.inst_body
        and _same_array(base.pair_a, model.pair_a)
        and _same_array(base.pair_b, model.pair_b)
        and _same_array(base.active_pairs, model.active_pairs)
    )


def _part_key(p: Part) -> tuple[str, str, tuple[int, ...], tuple[str, ...]]:
    """What a part is made of but its frame: body, chain, parameters, points."""
    return (p.body, p.chain, p.params, p.points)


def _same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal(a, b)``, at once when they are the same array."""
    return a is b or bool(np.array_equal(a, b))


def refill_model(base: KinematicModel, car: Car, moved: AbstractSet[str]) -> KinematicModel | None:
    """`KinematicModel(car)` for a `car` that is ``base.car`` with only the points
    `moved` at other coordinates, reclassifying only the bodies that carry one of them.

    A body's joint class and local frame follow from its own points alone (which of
    them are chassis points, and where they are), so the bodies without a moved point
    keep `base`'s joints; those with one keep their class and get new frames
    (`model.refit.refit`), or where that is not certain are classified by
    `model.topology.classify` itself, on a car of just those bodies (and the chassis,
    their dampers, the rack if it is one of them). None -- build the whole model
    instead -- when a moved body's
    class, parts or points differ from `base`'s, when its classification raises (the
    full build then raises the same error, with its cell), or when an anti-roll bar
    involves a moved point (bars are checked against the whole car).

    What depends on names alone (which bodies, parts and copies a moved point reaches,
    `refit.refit_plan`) is kept per base model and set of moved points (`_Plan`), so
    a design of the base car's bodies, dampers, rack, bars and point list (the same
    objects, as `design_space.apply_offsets` gives) only does the arithmetic
    (`_refill_fast`); any other car takes `_refill_plain`.
    """
    plan = _plan(base, car, moved)
    if plan is not None:
        xyz = point_rows(car)
        refitted = plan.refit.joints(xyz)
        if refitted is not None:
            return _refill_fast(base, car, plan, refitted, xyz)
    return _refill_plain(base, car, moved)


@dataclass(frozen=True)
class _Plan:
    """What `refill_model` derives from `base` and the moved points' names alone: the
    car's parts it holds for (`bodies`...: compared by identity), the moved bodies'
    `RefitPlan`, where their joints and parts sit in ``base.topology.joints`` and
    ``base.parts``, the parts whose frames change, and each point copy's row of the
    point list."""

    bodies: tuple[Body, ...]
    dampers: tuple[Damper, ...]
    rack: Rack | None
    bars: tuple[AntiRollBar, ...]
    names: list[str]  # the point list's names, in order
    refit: RefitPlan
    joints: list[tuple[int, str]]  # (index in base.topology.joints, body)
    parts: list[tuple[int, str, int]]  # (index in base.parts, body, index in its joint)
    framed: np.ndarray  # the parts whose frames change (their index, ascending)
    copy_rows: np.ndarray
    framed_copies: np.ndarray  # the copies on those parts (bool), and their rows
    on_framed: np.ndarray
    local: np.ndarray  # the base's local transforms at the random states, by copy
    positions: np.ndarray  # the base's copies there (`doe_checks.positions`)
    largest: np.ndarray  # each one's largest move from its design point there, mm
    fixed: np.ndarray  # the copies on fixed parts (bool)
    structural: np.ndarray  # the pairs that cannot open (bool; the others are active)


def _plan(base: KinematicModel, car: Car, moved: AbstractSet[str]) -> _Plan | None:
    """``base``'s `_Plan` for `moved` when `car` has its bodies, dampers, rack, bars and
    point names (None: `_refill_plain`)."""
    key = ("doe_refill", "plan", moved if isinstance(moved, frozenset) else frozenset(moved))
    plan = base.derived.get(key, lambda: _make_plan(base, key[2]))
    if (
        plan is None
        or car.bodies is not plan.bodies
        or car.dampers is not plan.dampers
        or car.rack is not plan.rack
        or car.anti_roll_bars is not plan.bars
        or [p.name for p in car.points] != plan.names
    ):
        return None
    return plan


def _make_plan(base: KinematicModel, moved: frozenset[str]) -> _Plan | None:
    from suspension_sim.description import CHASSIS
    from suspension_sim.solve.engine_reduced import random_states

    car = base.car
    if _bar_touched(car, moved):
        return None
    if not all(hasattr(base, n) for n in (*PART_INDEXES, *INSTANCE_INDEXES, "parts", "frame")):
        return None
    # the parts as `KinematicModel._build_parts` lays them out from the joints
    fixed: list[tuple[str, str, tuple[int, ...], tuple[str, ...]]]
    fixed = [(CHASSIS, "fixed", (), car.body(CHASSIS).points)]
    moving: list[tuple[str, str, tuple[int, ...], tuple[str, ...]]] = []
    for j in base.topology.joints:
        for part in j.parts:
            (fixed if part.chain == "fixed" else moving).append(_part_key(part))
    if fixed + moving != [_part_key(p) for p in base.parts]:
        return None
    bodies = _moved_bodies(car, moved)
    refit = refit_plan(car, base.topology, sorted(bodies))
    if refit is None:
        return None
    how = {j.body: h for j, h, _ in refit.plan}
    joints = [(k, j.body) for k, j in enumerate(base.topology.joints) if j.body in bodies]
    slot = {_part_key(p): k for k, p in enumerate(base.parts)}
    parts = [
        (slot[_part_key(p)], body, m)
        for k, body in joints
        for m, p in enumerate(base.topology.joints[k].parts)
    ]
    framed = sorted(k for k, body, _ in parts if how[body] != "keep")
    _, rows = _copy_rows(base)
    local = base.derived.get(
        ("doe_fast", "random_local"),
        lambda: base.local_transforms(random_states(base.n_params))[base.inst_part][:, :1],
    )
    framed_copies = np.isin(base.inst_part, framed)
    P = _positions()(base, local)[0]
    largest = _largest_move(P, base.inst_design)
    moves = largest > COINCIDENT_MM
    fixed_copies = base.inst_part < base.n_fixed_parts
    a, b = base.pair_a, base.pair_b
    structural = ~moves[b] & ~moves[a] & (fixed_copies[a] | fixed_copies[b])
    if not np.array_equal(np.flatnonzero(~structural), base.active_pairs):
        return None  # the base's pairs were found otherwise
    return _Plan(
        car.bodies,
        car.dampers,
        car.rack,
        car.anti_roll_bars,
        [p.name for p in car.points],
        refit,
        joints,
        parts,
        np.array(framed, dtype=np.intp),
        rows,
        framed_copies,
        np.flatnonzero(framed_copies),
        local,
        P,
        largest,
        fixed_copies,
        structural,
    )


def _bar_touched(car: Car, moved: AbstractSet[str]) -> bool:
    """An anti-roll bar involves a moved point (its axis, shaft or arms' points)."""
    for bar in car.anti_roll_bars:
        touched = (
            set(bar.axis_points)
            | {bar.shaft_point}
            | {p for arm in bar.arms for p in car.body(arm).points}
        )
        if touched & moved:
            return True
    return False


def _moved_bodies(car: Car, moved: AbstractSet[str]) -> set[str]:
    """The bodies whose joints a move of the points `moved` may change: those carrying
    one, the dampers and the rack whose axis points are among them."""
    from suspension_sim.description import CHASSIS

    names = {b.name for b in car.bodies if b.name != CHASSIS and moved & set(b.points)}
    # a damper's axis and the rack's are named by their points: those bodies follow them
    names |= {d.body for d in car.dampers if {d.chassis_point, d.moving_point} & moved}
    if car.rack is not None and set(car.rack.end_points) & moved:
        names.add(car.rack.body)
    return names


def _refill_fast(
    base: KinematicModel,
    car: Car,
    plan: _Plan,
    refitted: dict[str, BodyJoint],
    xyz: np.ndarray,
) -> KinematicModel | None:
    """`_refill_plain` for a car `plan` holds for, the moved bodies' joints `refitted`:
    the same model state (`KinematicModel.__init__`'s attributes, the same numbers)."""
    from suspension_sim.model import KinematicModel
    from suspension_sim.model.model import Derived
    from suspension_sim.solve.engine_reduced import MOVING, MOVING_MM, RANDOM_POSITIONS

    model = KinematicModel.__new__(KinematicModel)
    model.car = car
    joints = list(base.topology.joints)
    for k, body in plan.joints:
        joints[k] = refitted[body]
    model.topology = replaced(base.topology, joints=tuple(joints))
    model.n_params = base.n_params
    # `_refill_parts`: the base's parts but the moved bodies', frames and inverses
    # (each 4 x 4 inverted on its own by `np.linalg.inv`: the base's where it is the same)
    parts = list(base.parts)
    for k, body, m in plan.parts:
        parts[k] = refitted[body].parts[m]
    model.parts = parts
    state, known = model.__dict__, base.__dict__
    state.update({name: known[name] for name in PART_INDEXES})
    frame = base.frame.copy()
    frame_inv = base.frame_inv.copy()
    if len(plan.framed):
        new = np.array([parts[k].frame for k in plan.framed.tolist()])
        frame[plan.framed] = new
        frame_inv[plan.framed] = np.linalg.inv(new)
    model.frame = frame
    model.frame_inv = frame_inv
    # `_refill_instances`: the copies on re-framed parts or at moved points computed
    # (each row on its own, as for all), the others' numbers the base's
    state.update({name: known[name] for name in INSTANCE_INDEXES})
    X = model.inst_design = xyz[plan.copy_rows]
    on = plan.on_framed
    redo = np.flatnonzero(plan.framed_copies | (base.inst_design != X).any(axis=1))
    finv = frame_inv[model.inst_part[redo]]
    local = base.inst_local.copy()
    local[redo] = np.einsum("nij,nj->ni", finv[:, :3, :3], X[redo]) + finv[:, :3, 3]
    model.inst_local = local
    f = frame[model.inst_part[on]]
    model.inst_rot = base.inst_rot.copy()
    model.inst_rot[on] = f[:, :3, :3]
    model.inst_origin = base.inst_origin.copy()
    model.inst_origin[on] = f[:, :3, 3]
    P = plan.positions.copy()
    some = SimpleNamespace(
        inst_local=local[redo], inst_rot=model.inst_rot[redo], inst_origin=model.inst_origin[redo]
    )
    P[redo] = _positions()(cast("KinematicModel", some), plan.local[redo])[0]
    # `KinematicModel._active_pairs`: which copies move at the random states (the
    # base's answer where nothing changed), then the pairs that can open
    largest = plan.largest.copy()
    largest[redo] = _largest_move(P[redo], X[redo])
    if len(model.pair_a):
        moves = largest > COINCIDENT_MM
        fixed = plan.fixed
        a, b = model.pair_a, model.pair_b
        structural = ~moves[b] & ~moves[a] & (fixed[a] | fixed[b])
        if (structural == plan.structural).all():
            model.active_pairs = base.active_pairs  # (the same array: `same_structure`)
        else:
            model.active_pairs = np.flatnonzero(~structural)
    else:
        model.active_pairs = np.zeros(0, dtype=int)
    model._layouts = {}
    model.derived = Derived()
    if model.__dict__.keys() != base.__dict__.keys():  # __init__ sets something else now
        return None
    model.derived._values[RANDOM_POSITIONS] = P
    model.derived._values[MOVING] = largest > MOVING_MM  # `engine_reduced._moving`
    return model


def _largest_move(P: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Each copy's largest coordinate change from its design point `X` (n, 3) over its
    positions `P` (n, 3, B), mm: ``np.abs(P - X[:, :, None]).max(axis=(1, 2))``."""
    gap = np.abs(P - X[:, :, None])
    return gap.reshape(len(gap), gap[0].size).max(axis=1) if len(gap) else np.zeros(0)


def _positions() -> Callable[[KinematicModel, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    from suspension_sim.explore.doe_checks import positions

    return positions


def _refill_plain(base: KinematicModel, car: Car, moved: AbstractSet[str]) -> KinematicModel | None:
    """`refill_model` for any car: the bodies carrying a moved point found, re-framed
    (`refit`) or classified again, the parts and point copies refilled."""
    from suspension_sim.description import CHASSIS
    from suspension_sim.model import KinematicModel
    from suspension_sim.model.model import Derived
    from suspension_sim.model.refit import refit
    from suspension_sim.model.topology import classify

    if _bar_touched(car, moved):
        return None
    names = _moved_bodies(car, moved)
    refitted = refit(car, base.topology, names) if names else {}
    if refitted is not None:  # every moved body keeps its class: only its frames change
        joints = tuple(refitted.get(j.body, j) for j in base.topology.joints)
    else:
        rack = car.rack if car.rack is not None and car.rack.body in names else None
        sub = dataclasses.replace(
            car,
            bodies=tuple(b for b in car.bodies if b.name == CHASSIS or b.name in names),
            dampers=tuple(d for d in car.dampers if d.body in names),
            rack=rack,
            anti_roll_bars=(),
        )
        try:
            fresh = {j.body: j for j in classify(sub).joints}
        except SuspensionSimError:
            return None
        out: list[BodyJoint] = []
        for j in base.topology.joints:
            f = fresh.get(j.body)
            if f is None:
                out.append(j)
                continue
            if f.kind != j.kind or len(f.params) != len(j.params) or len(f.parts) != len(j.parts):
                return None
            ids = dict(zip(f.params, j.params, strict=True))
            parts: list[Part] = []
            for fp, bp in zip(f.parts, j.parts, strict=True):
                if (fp.body, fp.chain, fp.points) != (bp.body, bp.chain, bp.points):
                    return None
                parts.append(Part(fp.body, fp.chain, fp.frame, bp.params, fp.points))
                if tuple(ids[k] for k in fp.params) != bp.params:
                    return None
            out.append(BodyJoint(j.body, j.kind, j.params, f.reason, tuple(parts)))
        joints = tuple(out)
    model = KinematicModel.__new__(KinematicModel)
    # what KinematicModel.__init__ sets, with the topology put together above
    model.car = car
    model.topology = dataclasses.replace(base.topology, joints=joints)
    model.n_params = len(model.topology.param_names)
    if refitted is None or not _refill_parts(base, model):
        model._build_parts()
    if not _refill_instances(base, model):
        model._build_instances()
    model._layouts = {}
    model.derived = Derived()
    random_p = model.__dict__.pop(_RANDOM_P, None)
    if set(vars(model)) != set(vars(base)):  # __init__ sets something else now
        return None
    if random_p is not None:
        from suspension_sim.solve.engine_reduced import RANDOM_POSITIONS

        model.derived.get(RANDOM_POSITIONS, lambda: random_p)
    return model


PART_INDEXES = ("n_fixed_parts", "kmax", "groups")
"""What `KinematicModel._build_parts` derives from the parts' chains and parameters alone."""


def _refill_parts(base: KinematicModel, model: KinematicModel) -> bool:
    """`model._build_parts()` when `model`'s joints are `base`'s but for their frames
    (`refit`): the parts in the same order (the chassis part, the fixed parts, then the
    moving ones), `PART_INDEXES` taken from `base`, the frames and their inverses
    computed as that method computes them. False (nothing set) when the parts differ."""
    from suspension_sim.description import CHASSIS

    fixed_parts = [Part(CHASSIS, "fixed", np.eye(4), (), model.car.body(CHASSIS).points)]
    moving: list[Part] = []
    for j in model.topology.joints:
        for part in j.parts:
            (fixed_parts if part.chain == "fixed" else moving).append(part)
    parts = fixed_parts + moving
    key = [(p.body, p.chain, p.params, p.points) for p in parts]
    if key != [(p.body, p.chain, p.params, p.points) for p in base.parts]:
        return False
    if not all(hasattr(base, name) for name in PART_INDEXES):
        return False
    model.parts = parts
    for name in PART_INDEXES:
        setattr(model, name, getattr(base, name))
    model.frame = np.array([p.frame for p in parts])
    model.frame_inv = np.linalg.inv(model.frame)
    return True


INSTANCE_INDEXES = (
    "inst_part",
    "inst_point",
    "inst_body",
    "inst_index",
    "inst_slots",
    "pair_a",
    "pair_b",
    "pair_point",
    "pair_bodies",
    "joined_points",
    "n_residuals",
)
"""What `KinematicModel._build_instances` derives from the parts' bodies, parameters and
point names alone (the point copies, their slots, the joined pairs)."""


def _refill_instances(base: KinematicModel, model: KinematicModel) -> bool:
    """`model._build_instances()` when `model`'s parts are `base`'s (the same bodies,
    chains, parameters and point names in the same order): the copies' and pairs'
    indexes taken from `base` (`INSTANCE_INDEXES`), the coordinates computed as that
    method computes them (design points, local points, frames) and the pairs that can
    open found by the model itself. False (nothing set) when the parts differ or
    `base` lacks one of those attributes."""
    key = [(p.body, p.chain, p.params, p.points) for p in model.parts]
    if key != [(p.body, p.chain, p.params, p.points) for p in base.parts]:
        return False
    if not all(hasattr(base, name) for name in INSTANCE_INDEXES):
        return False
    for name in INSTANCE_INDEXES:
        setattr(model, name, getattr(base, name))
    # the design points of the copies as `_build_instances` takes them (each point's
    # coordinates as float64: the same numbers), gathered by the base car's rows of the
    # workbook's point list when the design lists the same points in the same order
    order = tuple(p.name for p in model.car.points)
    known, rows = base.derived.get(("doe_fast", "copy_rows"), lambda: _copy_rows(base))
    if order == known:
        xyz = np.array([p.xyz for p in model.car.points], dtype=float).reshape(-1, 3)
        model.inst_design = xyz[rows]
    else:
        pts = model.car.point_map()
        names = model.inst_point
        model.inst_design = np.array([pts[n] for n in names], dtype=float).reshape(-1, 3)
    frame = model.frame[model.inst_part]
    finv = model.frame_inv[model.inst_part]
    model.inst_local = np.einsum("nij,nj->ni", finv[:, :3, :3], model.inst_design) + finv[:, :3, 3]
    model.inst_rot = frame[:, :3, :3].copy()
    model.inst_origin = frame[:, :3, 3].copy()
    from suspension_sim.explore.doe_checks import positions
    from suspension_sim.solve.engine_reduced import random_states

    # `KinematicModel._active_pairs` with the point copies at its random states computed
    # from `base`'s local transforms there (the same parts: the same numbers)
    n = model.n_params
    local = base.derived.get(
        ("doe_fast", "random_local"),
        lambda: base.local_transforms(random_states(n))[base.inst_part][:, :1],
    )
    P = positions(model, local)[0]
    model.__dict__[_RANDOM_P] = P  # for the model's memo, once it has one (`refill_model`)
    if not len(model.pair_a):
        model.active_pairs = np.zeros(0, dtype=int)
        return True
    moves = np.abs(P - model.inst_design[:, :, None]).max(axis=(1, 2)) > COINCIDENT_MM
    fixed = model.inst_part < model.n_fixed_parts
    a, b = model.pair_a, model.pair_b
    structural = ~moves[b] & ~moves[a] & (fixed[a] | fixed[b])
    model.active_pairs = np.flatnonzero(~structural)
    return True


def _copy_rows(base: KinematicModel) -> tuple[tuple[str, ...], np.ndarray]:
    """The names of ``base.car.points`` in order, and each point copy's row in it."""
    order = tuple(p.name for p in base.car.points)
    row = {name: k for k, name in enumerate(order)}
    return order, np.array([row[n] for n in base.inst_point], dtype=np.int64)


_RANDOM_P = "_doe_random_positions"
"""Where `_refill_instances` leaves the random-state positions until the model's memo
exists (`refill_model` moves them to ``engine_reduced.RANDOM_POSITIONS``)."""


def share_structure(base: KinematicModel, model: KinematicModel) -> None:
    """Give `model` the structural caches `base` has built (`STRUCTURAL_KEYS`, the
    problems of each lock set, the metric layouts, the Jacobian layouts). Call only when
    `same_structure(base, model)`."""
    values = base.derived._values
    for key, value in values.items():
        structural = key in STRUCTURAL_KEYS or (
            isinstance(key, tuple)
            and (
                key[0] == "problem"
                or (key[0] == "metrics" and len(key) == 3 and key[1] in ("layout", "keys"))
            )
        )
        if structural:
            model.derived._values.setdefault(key, value)
    for key, layout in base._layouts.items():
        model._layouts.setdefault(key, layout)
    # Savings only: what cannot be handed over (another layout of the engine's work
    # arrays one day) is built by the model itself, as the reference builds it.
    with contextlib.suppress(ValueError):
        _refill_tables(base, model)
    with contextlib.suppress(AttributeError, TypeError, ValueError):
        _share_entries(base, model)


def _refill_tables(base: KinematicModel, model: KinematicModel) -> None:
    """`model`'s kernel tables (full and reduced) as `base`'s layout with `model`'s
    numbers (`engine_tables.refill_tables`, `engine_reduced.refill_reduced`); the reduced
    ones are left to be built when a coordinate-made choice differs."""
    from suspension_sim.solve.engine_reduced import refill_reduced
    from suspension_sim.solve.engine_tables import KernelTables, refill_tables

    values = base.derived._values
    full = values.get("engine_kernel_tables")
    if not isinstance(full, KernelTables):
        return
    model.derived.get("engine_kernel_tables", lambda: refill_tables(full, model))
    reduced = values.get("engine_reduced_tables")
    if isinstance(reduced, KernelTables):
        refilled = refill_reduced(base, reduced, model)
        if refilled is not None:
            model.derived.get("engine_reduced_tables", lambda: refilled)


def _share_entries(base: KinematicModel, model: KinematicModel) -> None:
    """The compiled kernels' entry points `base` found, handed to `model`'s kernel
    session and point work arrays, so its first calls skip numba's dispatch (typing the
    tables' nested tuples, ~0.1 ms a call). The same structure gives tables of the same
    types, which is what an entry point is compiled for; the work arrays and memos are
    `model`'s own. Anything not laid out as expected is left to be built as usual."""
    from suspension_sim.solve import engine_points, engine_session
    from suspension_sim.solve.engine_tables import kernel_tables

    values = base.derived._values
    sess = values.get("engine_kernel_session")
    if isinstance(sess, engine_session.KernelSession):
        mine = engine_session.session(model)
        for name in ("_entry", "_single_entry"):
            if getattr(mine, name, None) is None and getattr(sess, name, None) is not None:
                setattr(mine, name, getattr(sess, name))
    tab = kernel_tables(model)
    spread = values.get("engine_spread_work")
    if isinstance(spread, tuple) and len(spread) == 9 and isinstance(spread[8], list):
        model.derived.get(
            "engine_spread_work",
            lambda: (
                _fresh(spread[0], tab),
                *spread[1:5],
                *engine_points.spread_memo(tab),
                threading.Lock(),
                list(spread[8]),
            ),
        )
    points = values.get("engine_points_work")
    if isinstance(points, tuple) and len(points) == 5 and isinstance(points[4], list):
        model.derived.get(
            "engine_points_work",
            lambda: (_fresh(points[0], tab), *points[1:3], threading.Lock(), list(points[4])),
        )


def _fresh(work: object, tab: KernelTables) -> tuple[np.ndarray, ...]:
    """Work arrays (W) of `tab`'s layout, zeros: ``engine_tables.work_arrays(tab)[0]``,
    made as zeros like `work`, the base's (the same structure: the same shapes and
    types), when it is a tuple of arrays (a fraction of the cost: W only)."""
    if isinstance(work, tuple) and all(isinstance(a, np.ndarray) for a in work):
        return tuple(np.zeros_like(a) for a in work)
    from suspension_sim.solve.engine_tables import work_arrays

    return work_arrays(tab)[0]
