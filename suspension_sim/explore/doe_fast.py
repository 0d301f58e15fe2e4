"""The fast path of a design of experiments: many designs of one car, with what does not
change between them built once per worker process.

A DOE moves hard-point coordinates and nothing else. The body graph, the joint classes,
the solver's blocks and Jacobian layout, the kernel tables' layout and the metric
layout are then the same for every design whose points did not move far enough to
change them. The reference path (`doe.run_design`) builds a whole `KinematicModel` per
design, runs `sweeps.run_sweep` per motion and turns each sweep's pandas table into row
dictionaries. `DesignRunner` (one per worker process and study, `runner`) first runs
the motions on the base car (the workbook's), then per design:

* **model** (`refill_model`): only the bodies carrying a moved point get new joints:
  their frames re-computed for the class they have on the base car
  (`model.topology.refit`), or, when that is not certain, classified again by
  `model.topology.classify` itself; `same_structure` then compares the
  design with the base car (joints, parameters, parts, point copies, active joined
  pairs). The same: the base car's structural caches are handed over
  (`share_structure`: the problems' blocks, the engine plan, the Jacobian and metric
  layouts, the compiled kernels' entry points) and its kernel tables refilled with the
  design's numbers (`engine_tables.refill_tables`, `engine_reduced.refill_reduced`).
  Not the same (a point moved onto an axis, two pivots together...): the design is
  built whole and run as the reference runs it, never on the base car's structure;
* **checks and solves**: the design-mobility check and every motion are the
  reference's (`checked_mobility`, `run_sweep` with ``keep_poses=False``), so the
  solved joint parameters, the failures and their reasons are the reference's;
* **metrics**: those of every solved step of every design of the chunk whose
  `WheelSet` equals the base car's in one pass of the formulas
  (`doe_metrics.designs_metrics`), of the others one `batch_metrics` call per design,
  written straight into the chunk's columns.

`run_chunk_fast` returns the same table as `doe.run_chunk` (tests/test_doe_fast.py
compares every column, numbers to 1e-9). Units: mm, deg in the columns.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import SuspensionSimError
from suspension_sim.explore.design_space import Variable, apply_offsets
from suspension_sim.sweeps.result import MetricRows
from suspension_sim.tolerances import COINCIDENT_MM

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.description import Car
    from suspension_sim.explore.doe_batch import FromBase
    from suspension_sim.explore.doe_metrics import JointPlan
    from suspension_sim.metrics.geometry import WheelSet
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import BatchResult
    from suspension_sim.sweeps.result import SweepResult
    from suspension_sim.sweeps.spec import SweepSpec

STRING_COLUMNS = ("dampers_beyond_limits",)
"""Metric columns of a sweep table that hold text, not numbers."""
STRUCTURAL_KEYS = ("engine_plan",)
"""``model.derived`` entries that depend only on the body graph, the joint classes and
the active pairs; so do the problem blocks of each lock set, keyed ``("problem", ...)``,
and the metric layouts, ``("metrics", "layout", rates)`` and ``("metrics", "keys",
rates)`` (`share_structure` hands those over too)."""


@dataclass
class Outcome:
    """One design's rows as arrays: per row its motion, step, status and reason, the
    metric values (rows, metric columns) and the text columns (`STRING_COLUMNS`)."""

    motion: list[str | None]
    step: list[int]
    status: list[str]
    reason: list[str]
    values: np.ndarray
    text: list[list[str | None]]


@dataclass
class Solved:
    """A design solved through every motion: its model, each motion's result (or the
    reason it could not run), all solved steps as one batch (None: none solved), and
    whether its wheel set is the base car's (its metrics can join the others')."""

    model: KinematicModel
    results: list[tuple[SweepSpec, SweepResult | None, str]]
    batch: BatchResult | None
    shared_wheels: bool


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
        if (a.body, a.kind, a.params) != (b.body, b.kind, b.params):
            return False
    if len(base.parts) != len(model.parts):
        return False
    for pa, pb in zip(base.parts, model.parts, strict=True):
        if (pa.body, pa.chain, pa.params, pa.points) != (pb.body, pb.chain, pb.params, pb.points):
            return False
    return (
        base.inst_point == model.inst_point
        and base.inst_body == model.inst_body
        and np.array_equal(base.pair_a, model.pair_a)
        and np.array_equal(base.pair_b, model.pair_b)
        and np.array_equal(base.active_pairs, model.active_pairs)
    )


def refill_model(base: KinematicModel, car: Car, moved: AbstractSet[str]) -> KinematicModel | None:
    """`KinematicModel(car)` for a `car` that is ``base.car`` with only the points
    `moved` at other coordinates, reclassifying only the bodies that carry one of them.

    A body's joint class and local frame follow from its own points alone (which of
    them are chassis points, and where they are), so the bodies without a moved point
    keep `base`'s joints; those with one keep their class and get new frames
    (`model.topology.refit`), or where that is not certain are classified by
    `model.topology.classify` itself, on a car of just those bodies (and the chassis,
    their dampers, the rack if it is one of them). None -- build the whole model
    instead -- when a moved body's
    class, parts or points differ from `base`'s, when its classification raises (the
    full build then raises the same error, with its cell), or when an anti-roll bar
    involves a moved point (bars are checked against the whole car).
    """
    from suspension_sim.description import CHASSIS
    from suspension_sim.model import KinematicModel
    from suspension_sim.model.model import Derived
    from suspension_sim.model.topology import BodyJoint, Part, classify, refit

    for bar in car.anti_roll_bars:
        touched = (
            set(bar.axis_points)
            | {bar.shaft_point}
            | {p for arm in bar.arms for p in car.body(arm).points}
        )
        if touched & moved:
            return None
    names = {b.name for b in car.bodies if b.name != CHASSIS and moved & set(b.points)}
    # a damper's axis and the rack's are named by their points: those bodies follow them
    names |= {d.body for d in car.dampers if {d.chassis_point, d.moving_point} & moved}
    if car.rack is not None and set(car.rack.end_points) & moved:
        names.add(car.rack.body)
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
    from suspension_sim.model.topology import Part

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
    from suspension_sim.explore.doe_batch import positions
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
    from suspension_sim.solve.engine_tables import kernel_tables, work_arrays

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
                work_arrays(tab)[0],
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
            lambda: (work_arrays(tab)[0], *points[1:3], threading.Lock(), list(points[4])),
        )


class DesignRunner:
    """Runs designs of one car through fixed motions (the fast path of `doe.run_chunk`).

    Built once per worker process and study (`runner`); `run` gives one design's rows.
    """

    def __init__(
        self,
        car: Car,
        variables: Sequence[Variable],
        specs: Sequence[SweepSpec],
        convention: str | None,
        columns: Sequence[str],
    ) -> None:
        from suspension_sim.model import KinematicModel
        from suspension_sim.solve.diagnostics import checked_mobility
        from suspension_sim.sweeps import run_sweep

        self.car = car
        self.variables = tuple(variables)
        self.specs = tuple(specs)
        self.convention = convention
        self.columns = list(columns)
        reserved = {"design", "motion", "step", "status", "reason"} | {
            v.name for v in self.variables
        }
        self.metric_columns = [c for c in self.columns if c not in reserved]
        self.col = {c: k for k, c in enumerate(self.metric_columns)}
        self.text_cols = [c for c in self.metric_columns if c in STRING_COLUMNS]
        self._takes: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[np.ndarray, ...]] = {}
        """By (a motion's swept columns, the metrics' names): which metric columns of the
        table (first array) take which metric (second) (`_rows`)."""
        self.base = KinematicModel(car)
        self.moved = frozenset(
            p for v in self.variables for p in (v.point, v.twin) if p is not None
        )
        """The points the study's variables move (their twins included)."""
        self.base_ok = False
        """The base car ran every motion: its caches are the structure to share."""
        ran: list[SweepResult] = []
        """The base car's motions, poses kept (`doe_batch.FromBase` starts from them)."""
        # The base car's caches, built by one run of every motion (the structure the
        # designs share); a base car that cannot run leaves them unbuilt, and each
        # design then builds its own.
        try:
            checked_mobility(self.base)
            ran = [run_sweep(self.base, spec, convention=convention) for spec in self.specs]
            from suspension_sim.metrics.core import layout

            layout(self.base, True)
            from suspension_sim.solve.engine_reduced import reduced_tables

            reduced_tables(self.base)  # the metrics' tangents solve on them
            self.base_ok = True
        except SuspensionSimError:  # the base car cannot run a motion: base_ok stays
            self.base_ok = False  # False and every design builds and runs on its own
        from suspension_sim.metrics import preset

        self.preset = preset(convention or car.options.sign_convention).name
        """The sign convention's preset name (the same for every design: offsets leave
        the workbook's options alone)."""
        self.from_base: FromBase | None = None
        """The base car's motions, for solving each design's from them (`doe_batch`)."""
        if self.base_ok:
            from suspension_sim.explore.doe_batch import FromBase

            self.from_base = FromBase(self.base, self.specs, convention, self.moved, ran)
        self.plan: JointPlan | None = None
        """The batched formulas' plan of the base car; None: each design on its own."""
        self.wheels: WheelSet | None = None
        try:
            from suspension_sim.explore.doe_metrics import joint_path
            from suspension_sim.metrics.geometry import wheel_set

            self.wheels = wheel_set(self.base)
            self.plan = joint_path(self.base)
        except SuspensionSimError:
            self.plan = None

    def model(self, offsets: Sequence[float]) -> tuple[KinematicModel, bool]:
        """The design's model, sharing the base car's structure when it has it (then
        True), else built on its own as the reference builds it (False)."""
        from suspension_sim.model import KinematicModel

        car = apply_offsets(self.car, self.variables, offsets)
        model = refill_model(self.base, car, self.moved) if self.base_ok else None
        if model is None:
            model = KinematicModel(car)
        shared = same_structure(self.base, model)
        if shared:
            share_structure(self.base, model)
        return model, shared

    def run(self, offsets: Sequence[float]) -> Outcome:
        """One design's rows (as `doe.run_design`, in arrays)."""
        return self.run_many([offsets])[0]

    def run_many(self, designs: Sequence[Sequence[float]]) -> list[Outcome]:
        """The rows of several designs: each design solved (as `doe.run_design` does),
        then the metrics of all their solved steps, in one pass of the formulas for the
        designs whose wheel set is the base car's (`doe_metrics.designs_metrics`), one
        `batch_metrics` call per design for the others. An exception no check foresaw
        is that design's ``error`` row."""
        solved: list[Solved | Outcome] = []
        for offsets in designs:
            try:
                solved.append(self.solve(offsets))
            except Exception as exc:  # a design's failure is data (as doe.run_chunk)
                solved.append(self.failed_row(None, "error", f"{type(exc).__name__}: {exc}"))
        metrics: dict[int, tuple[np.ndarray, list[str]]] = {}
        joint = [
            i
            for i, d in enumerate(solved)
            if isinstance(d, Solved) and d.batch is not None and d.shared_wheels
        ]
        if joint and self.plan is not None and self.wheels is not None:
            from suspension_sim.explore.doe_metrics import designs_metrics

            items = []
            for i in joint:
                d = solved[i]
                assert isinstance(d, Solved) and d.batch is not None
                items.append((d.model, d.batch))
            try:
                values = designs_metrics(self.plan, self.wheels, items, self.preset)
            except Exception:  # left to each design's own batch below
                values = []
            for i, v in zip(joint, values, strict=False):
                metrics[i] = (v, list(self.plan.keys))
        out: list[Outcome] = []
        for i, d in enumerate(solved):
            if not isinstance(d, Solved):
                out.append(d)
                continue
            try:
                out.append(self._rows(d, metrics.get(i)))
            except Exception as exc:
                out.append(self.failed_row(None, "error", f"{type(exc).__name__}: {exc}"))
        return out

    def solve(self, offsets: Sequence[float]) -> Solved | Outcome:
        """The design's model and every motion solved, or its ``invalid design`` row."""
        from suspension_sim.solve.diagnostics import checked_mobility
        from suspension_sim.sweeps import run_sweep

        try:
            model, structure = self.model(offsets)
        except SuspensionSimError as exc:
            return self.failed_row(None, "invalid design", exc.render())
        fast = None  # the motions solved from the base car's (`doe_batch`), if they can be
        if structure and self.from_base is not None:
            fast = self.from_base.run(model)
        if fast is None:
            try:
                checked_mobility(model)
            except SuspensionSimError as exc:
                return self.failed_row(None, "invalid design", exc.render())
        results: list[tuple[SweepSpec, SweepResult | None, str]] = []
        for k, spec in enumerate(self.specs):
            got = None if fast is None else fast[k]
            if got is not None:  # solved from the base car's steps
                results.append(got)
                continue
            try:
                res = run_sweep(model, spec, convention=self.convention, keep_poses=False)
            except SuspensionSimError as exc:
                results.append((spec, None, exc.render()))
                continue
            results.append((spec, res, ""))
        every = MetricRows(self.preset)
        for _spec, done, _ in results:
            if done is not None and done.rows is not None and done.rows.values:
                r = done.rows
                every.model = r.model
                every.params += r.params
                every.shocks += r.shocks
                every.rack += r.rack
                every.chassis += r.chassis
                every.residual += r.residual
                every.tolerance = max(every.tolerance, r.tolerance)
                every.limits += r.limits
        batch = every.batch() if every.params else None
        shared = False
        if batch is not None and structure and self.plan is not None and self.wheels is not None:
            from suspension_sim.explore.doe_metrics import same_wheels
            from suspension_sim.metrics.geometry import wheel_set

            known: bool | None = None  # known without building the design's wheel set
            if fast is not None and self.from_base is not None:
                known = self.from_base.same_wheels(model)
            shared = same_wheels(wheel_set(model), self.wheels) if known is None else known
        return Solved(model, results, batch, shared)

    def failed_row(self, motion: str | None, status: str, reason: str) -> Outcome:
        """A design's one row saying why it has no others."""
        values = np.full((1, len(self.metric_columns)), np.nan)
        return Outcome([motion], [-1], [status], [reason], values, [[None] * len(self.text_cols)])

    def _rows(self, d: Solved, joint: tuple[np.ndarray, list[str]] | None) -> Outcome:
        """Every motion's rows of a solved design; the metrics of its solved steps from
        `joint` (`designs_metrics`) or else one `batch_metrics` call."""
        from suspension_sim.metrics.batch import batch_metrics

        results = d.results
        metrics: np.ndarray | None = None
        names: list[str] = []
        if joint is not None:
            metrics, names = joint
        elif d.batch is not None:
            table = batch_metrics(d.batch, self.preset, rates=True)
            metrics, names = table.to_numpy(dtype=float), [str(c) for c in table.columns]
        motion: list[str | None] = []
        step: list[int] = []
        status: list[str] = []
        reason: list[str] = []
        blocks: list[np.ndarray] = []
        text: list[list[str | None]] = []
        n_cols = len(self.metric_columns)
        done = 0  # solved steps taken from `metrics`
        for spec, res, why in results:
            if res is None:
                motion.append(spec.name)
                step.append(-1)
                status.append("input")
                reason.append(why)
                blocks.append(np.full((1, n_cols), np.nan))
                text.append([None] * len(self.text_cols))
                continue
            total = len(res.motion)
            out = np.full((total, n_cols), np.nan)
            texts: list[list[str | None]] = [[None] * len(self.text_cols) for _ in range(total)]
            solved = res.steps
            n = len(solved)
            if n:
                assert metrics is not None
                chunk = metrics[done : done + n]
                done += n
                front = list(res.columns)
                # the swept values first, then every metric not equal to a swept column
                for j, c in enumerate(front):
                    k = self.col.get(c)
                    if k is not None:
                        out[solved, k] = res.values[:, j]
                key = (tuple(front), tuple(names))
                found = self._takes.get(key)
                if found is None:
                    take = [
                        (self.col[c], i)
                        for i, c in enumerate(names)
                        if c not in front and c in self.col
                    ]
                    pairs = list(zip(*take, strict=True)) if take else [(), ()]
                    found = (np.array(pairs[0], dtype=np.int64), np.array(pairs[1], dtype=np.int64))
                    if len(self._takes) < 64:
                        self._takes[key] = found
                dst, src = found
                if len(dst):
                    out[np.ix_(np.asarray(solved), dst)] = chunk[:, src]
                assert res.rows is not None
                limits = res.rows.limits
                for t, c in enumerate(self.text_cols):
                    if c == "dampers_beyond_limits":
                        for i, s in enumerate(solved):
                            texts[s][t] = limits[i]
            failed = {p.step: p for p in res.problems}
            for s in range(total):
                motion.append(spec.name)
                step.append(s)
                if s in failed:
                    status.append(failed[s].kind)
                    reason.append(failed[s].message)
                    out[s] = np.nan
                else:
                    status.append("ok")
                    reason.append("")
            blocks.append(out)
            text += texts
        values = np.concatenate(blocks) if blocks else np.zeros((0, n_cols))
        return Outcome(motion, step, status, reason, values, text)


_RUNNERS: dict[tuple[int, ...], tuple[Any, DesignRunner]] = {}
"""Runners kept per worker process, by the identity of the study's objects (held in the
value, so the identities stay theirs)."""


def runner(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    convention: str | None,
    columns: Sequence[str],
) -> DesignRunner:
    """The process's `DesignRunner` of a study (built on first use, then kept: a Dask
    worker receives the scattered car, variables and motions once and runs many chunks)."""
    key = (id(car), id(variables), id(specs), hash(convention), hash(tuple(columns)))
    found = _RUNNERS.get(key)
    if found is not None:
        return found[1]
    made = DesignRunner(car, variables, specs, convention, columns)
    if len(_RUNNERS) >= 4:
        _RUNNERS.clear()
    _RUNNERS[key] = ((car, variables, specs), made)
    return made


def run_chunk_fast(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    convention: str | None,
    first: int,
    offsets: np.ndarray,
    columns: Sequence[str],
) -> pd.DataFrame:
    """`doe.run_chunk`'s table by the fast path: the same rows, columns and values."""
    import pandas as pd

    data = chunk_columns(car, variables, specs, convention, first, offsets, columns)
    return pd.DataFrame(data, columns=list(columns))


def chunk_columns(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    convention: str | None,
    first: int,
    offsets: np.ndarray,
    columns: Sequence[str],
) -> dict[str, np.ndarray]:
    """`run_chunk_fast`'s table as one array per column, in `columns`' order (what the
    Parquet writer takes without going through pandas): int64 design and step, object
    arrays of text (NaN where a row has none, as pandas fills a missing record key; a
    float64 column of NaN when no row has any, as pandas makes a key no record has),
    float64 offsets and metrics."""
    from suspension_sim.solve import engine

    engine.load_kernel_if_cached()
    try:
        run = runner(car, variables, specs, convention, columns)
    except Exception:  # the base car itself fails in a way no check foresaw: the
        # reference path then makes each design's row (with its reason)
        from suspension_sim.explore.doe_reference import run_chunk

        frame = run_chunk(car, variables, specs, convention, first, offsets, columns)
        return {c: frame[c].to_numpy() for c in columns}
    designs = np.atleast_2d(np.asarray(offsets, dtype=float))
    parts = run.run_many(list(designs))
    design_no: list[int] = []
    for i, got in enumerate(parts):
        design_no += [first + i] * len(got.step)
    n_rows = len(design_no)
    data: dict[str, np.ndarray] = {
        "design": np.array(design_no, dtype=np.int64),
        "motion": np.array([m for p in parts for m in p.motion], dtype=object),
        "step": np.array([s for p in parts for s in p.step], dtype=np.int64),
        "status": np.array([s for p in parts for s in p.status], dtype=object),
        "reason": np.array([r for p in parts for r in p.reason], dtype=object),
    }
    reps = np.array([len(p.step) for p in parts], dtype=np.int64)
    for k, v in enumerate(run.variables):
        data[v.name] = np.repeat(designs[:, k], reps) if n_rows else np.zeros(0)
    values = (
        np.concatenate([p.values for p in parts])
        if parts
        else np.zeros((0, len(run.metric_columns)))
    )
    texts = [t for p in parts for t in p.text]
    for k, c in enumerate(run.metric_columns):
        if c in run.text_cols:
            t = run.text_cols.index(c)
            if all(r[t] is None for r in texts):  # no row has it: pandas' all-NaN column
                data[c] = np.full(n_rows, np.nan)
            else:
                data[c] = np.array([np.nan if r[t] is None else r[t] for r in texts], dtype=object)
        else:
            data[c] = np.ascontiguousarray(values[:, k])
    return {c: data[c] if c in data else np.full(n_rows, np.nan) for c in columns}
