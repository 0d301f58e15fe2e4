"""Every metric of the solved steps of many designs in one pass (the DOE's fast path).

`metrics.batch.batch_metrics` computes the sweep table's metric columns for the states
of one model: per state, the compiled kernel places the point copies and solves the
wheel tangents (`kinematics_compiled`), then the metric formulas run on (states, wheels,
xyz) arrays, a few hundred small numpy operations whatever the number of states. A DOE
design has ~40 solved states, so those operations cost more than the states.

`designs_metrics` runs the kernel part per design (each design's own tables, written
into one set of arrays for the group: `metrics.batch.kinematics_into`) and the formulas
once a group (`GROUP_STATES`) for all the designs whose `WheelSet` (the per-model facts
the formulas read: which copies are the wheel centres, the design centres, toe, contact
points, damper lengths, axles, the rack ratio ...) is equal, field by field, to the base
car's; the values are those of `batch_metrics` state by state (the same formulas on the
same numbers; tests/test_doe_fast.py compares the tables). Designs with another wheel
set, and cars the batched path does not cover (see `joint_path`), are left to
`batch_metrics` one design at a time. Units as the sweep table: mm, deg.

Cost on the example car (64 designs of 3 x 13 states, CPU inside the DOE's chunks):
~0.6 ms a design (0.8 before the components-first formulas), of which the kernel ~0.22
(~5 us a state), `centre_columns` ~0.16-0.19, `rate_columns` ~0.10-0.15, the geometry
~0.07; by the wall clock ~0.55-0.57 (0.77 before), benchmarks/doe_bench.py's study. Much of
the formulas' is BLAS and LAPACK calls per state, kept so the values stay bit for bit
(`to_world`'s 3x3 products, the contact-point solves, the arms' one-vector products).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
from collections.abc import Callable, Sequence, Sized
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from suspension_sim.metrics.batch import (
    CENTRE_IDS,
    INPUT_IDS,
    KINGPIN_IDS,
    KernelOutputs,
    Kinematics,
    compiled_args,
    fill_inputs,
    kernel_outputs,
    kernel_work,
    kinematics_compiled,
    kinematics_into,
    square_travel,
    use_compiled,
)
from suspension_sim.metrics.catalogue import CATALOGUE
from suspension_sim.metrics.centres import centre_columns
from suspension_sim.metrics.conventions import Preset, preset
from suspension_sim.metrics.core import layout
from suspension_sim.metrics.geometry import (
    Slot,
    WheelSet,
    geometry_columns,
    kingpin_axes,
    place_wheels,
    wheel_set,
)
from suspension_sim.metrics.rates import VELOCITY_IDS, rate_columns
from suspension_sim.solve.batch import chassis_transforms
from suspension_sim.solve.engine_reduced import reduced_tables
from suspension_sim.solve.engine_tables import kernel_tables
from suspension_sim.solve.problem import blas_controller

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.metrics.batch import CompiledArgs
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import BatchResult
    from suspension_sim.solve.engine_tables import KernelTables


def same_wheels(a: WheelSet, b: WheelSet) -> bool:
    """True when every field of the two wheel sets is equal (arrays element by element,
    NaN equal to NaN): the metric formulas then read the same numbers for both."""
    for f in dataclasses.fields(WheelSet):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            x, y = np.asarray(x), np.asarray(y)
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            nan = x.dtype.kind == "f"
            if not np.array_equal(x, y, equal_nan=nan):
                return False
        elif x != y:
            return False
    return True


@dataclasses.dataclass(frozen=True)
class JointPlan:
    """What the formulas need to know of the base car (as `batch_metrics` decides it)."""

    slots: tuple[Slot, ...]
    keys: tuple[str, ...]
    ids: frozenset[str]
    tangents: bool
    steer_axis: bool
    twists: bool
    velocities: bool
    centres: bool
    args: CompiledArgs | None = dataclasses.field(default=None, compare=False, repr=False)
    """The base car's `compiled_args`: every entry but the kernel tables is the same for
    each design of its layout (`_design_tables`), so they are built once."""
    reduced: bool = dataclasses.field(default=False, compare=False)
    """Whether `args` are on the reduced kernel tables (else the full ones)."""


def joint_path(model: KinematicModel) -> JointPlan | None:
    """The plan of the batched formulas for `model`'s structure, or None when
    `batch_metrics` would take another road for it: no wheels, the numpy path (the
    compiled kernel not loaded), or a car whose wheel and damper counts differ (some
    columns are then computed pose by pose)."""
    slots = layout(model, True)
    st = wheel_set(model)
    ids = frozenset(s[0] for s in slots)
    square = len(st.names) == len(st.dampers)
    need_geo = bool(st.names) and bool(ids - INPUT_IDS)
    if not need_geo or not square or not use_compiled("auto"):
        return None
    twist_axis = st.has_rack and bool(np.any(st.i_lower < 0)) and bool(ids & KINGPIN_IDS)
    steer_axis = twist_axis
    tangents = steer_axis or any(CATALOGUE[s[0]].rates for s in slots)
    centres = tangents and bool(ids & CENTRE_IDS)
    args = compiled_args(model, st)
    return JointPlan(
        slots=slots,
        keys=tuple(CATALOGUE[m].key(w, c) for m, w, c in slots),
        ids=ids,
        tangents=tangents,
        steer_axis=steer_axis,
        twists=centres or (steer_axis and bool(np.any(st.damper_of < 0))),
        velocities=tangents and bool(ids & VELOCITY_IDS),
        centres=centres,
        args=args,
        reduced=args.tables is model.derived._values.get("engine_reduced_tables"),
    )


def designs_metrics(
    plan: JointPlan,
    base: WheelSet,
    items: Sequence[tuple[KinematicModel, BatchResult]],
    convention: str,
) -> list[np.ndarray]:
    """Metric values (states, `plan.keys`) of each design's converged states, in the
    order of `items`: one pass of the formulas for groups of designs of up to
    `GROUP_STATES` states (as few groups as that allows, of even sizes). Every
    design's wheel set must equal `base` (`same_wheels`) and its model have the
    structure `plan` was made for."""
    pre = preset(convention)
    out: list[np.ndarray] = []
    with blas_controller().limit(limits=1, user_api="blas"):
        for group in _groups(items, GROUP_STATES):
            out += _group(plan, base, group, pre)
    return out


GROUP_STATES = 2048
"""Most states per pass of the formulas. Their cost is a fixed part (a few hundred numpy
calls, ~1.5 ms) plus a part per state that grows with the arrays once they outgrow the
caches. A `run_many` call's 64 designs x 39 states (the benchmark) measured, CPU ms a
design inside the DOE's chunks: one pass of 2496 states ~0.59-0.67, two of 1248 ~0.59-0.62,
three of 832 ~0.62 (alone, designs_metrics repeated on the same designs: one pass ~0.55,
two ~0.58). The arrays stay a few MB (the carriers' twists, (states, wheels, 6,
columns), the largest: ~2 MB at 2048 states on the example car)."""


Item = TypeVar("Item", bound=tuple[Any, Sized])
"""A (model, result) pair of `designs_metrics` (the result's length: its states)."""


def _groups(items: Sequence[Item], cap: int) -> list[Sequence[Item]]:
    """`items` split, in order, into as few runs of at most `cap` states as the greedy
    split gives, each run aiming at the same number of states (a design never splits)."""
    sizes = [len(r) for _, r in items]
    total = sum(sizes)
    if total <= cap:
        return [items] if items else []
    n = -(-total // cap)
    target = -(-total // n)
    out: list[Sequence[Item]] = []
    start, states = 0, 0
    for k, size in enumerate(sizes):
        if k > start and (states + size > cap or states >= target):
            out.append(items[start:k])
            start, states = k, 0
        states += size
    out.append(items[start:])
    return out


ARGS_KEY = ("metrics", "batch_kernel_args")
"""``model.derived`` key of `metrics.batch.compiled_args`."""
TABLE_NUMBERS = frozenset((4, 6, 25))
"""The kernel tables' arrays that hold coordinates (frames, local points, link lengths:
`engine_tables.refill_tables`, `engine_reduced.refill_reduced`); the rest is layout."""


def _design_tables(
    template: CompiledArgs, reduced: bool, model: KinematicModel
) -> KernelTables | None:
    """`model`'s kernel tables, the reduced or the full ones as `template`'s, when they
    have `template`'s layout, else None."""
    tab = reduced_tables(model) if reduced else kernel_tables(model)
    if tab is None or not _same_layout(template.tables, tab):
        return None
    return tab


def _same_layout(a: KernelTables, b: KernelTables) -> bool:
    """Kernel tables of the same layout (all but `TABLE_NUMBERS` equal)."""
    if (a.n_blocks, a.max_rows, a.max_cols, a.n_params, a.k_max, a.n_parts, a.n_inst) != (
        b.n_blocks,
        b.max_rows,
        b.max_cols,
        b.n_params,
        b.k_max,
        b.n_parts,
        b.n_inst,
    ) or len(a.arrays) != len(b.arrays):
        return False
    if a.inputs is not b.inputs and not np.array_equal(a.inputs, b.inputs):
        return False
    pick = _layout_picker(len(a.arrays))
    if all(map(operator.is_, pick(a.arrays), pick(b.arrays))):
        return True  # the usual case: a refilled design shares the base's layout arrays
    return all(
        k in TABLE_NUMBERS or x is y or (x.shape == y.shape and np.array_equal(x, y))
        for k, (x, y) in enumerate(zip(a.arrays, b.arrays, strict=True))
    )


@functools.cache
def _layout_picker(n: int) -> Callable[[Sequence[np.ndarray]], Any]:
    """The getter of the layout arrays (all but `TABLE_NUMBERS`) of n kernel-table arrays:
    a tuple of them (at least two; `KernelTables` has ~40)."""
    return operator.itemgetter(*(k for k in range(n) if k not in TABLE_NUMBERS))


def _group(
    plan: JointPlan,
    base: WheelSet,
    group: Sequence[tuple[KinematicModel, BatchResult]],
    pre: Preset,
) -> list[np.ndarray]:
    """`designs_metrics` of one group: the kernel per design, the formulas once.

    The kernel writes each design's states into the group's arrays, with the base car's
    `compiled_args` (`JointPlan.args`) and the design's own tables when they have the same
    layout (every entry of `CompiledArgs` but the tables follows from it, the wheel set and
    the parts), else through the design's own `kinematics_compiled`."""
    model0 = group[0][0]
    template, reduced = plan.args, plan.reduced
    if template is None:  # a plan made without them: the first design's
        template = compiled_args(model0, base)
        reduced = template.tables is model0.derived._values.get("engine_reduced_tables")
    square = square_travel(template, base)
    flags = (plan.tangents, plan.steer_axis, plan.twists)
    outputs = kernel_outputs(template, base, sum(len(r) for _, r in group), *flags)
    work = kernel_work(template.tables, base) if square else None
    start = 0
    for model, result in group:
        if not bool(np.all(result.converged)):
            raise ValueError("designs_metrics takes converged states only")
        # the wheel set is `base`: equal to the design's own (`designs_metrics`)
        rows = slice(start, start + len(result))
        start = rows.stop
        mine: KernelOutputs = tuple(o[rows] for o in outputs)  # type: ignore[assignment]
        Q = result.params.T
        tab = _design_tables(template, reduced, model)
        if square and work is not None and tab is not None:
            kinematics_into(model, base, template, tab, Q, *flags, plan.velocities, mine, work)
        else:
            own = kinematics_compiled(model, base, Q, *flags, plan.velocities)
            _kinematics(mine, plan).take(np.arange(len(result)), own)
    # The states' own inputs and chassis transforms, all designs at once: elementwise
    # formulas of the states' chassis, rack and strokes, and of the chassis reference
    # point, which is a field of the wheel set (`WheelSet.reference`), so every
    # design's is the base car's.
    states = SimpleNamespace(
        chassis=np.concatenate([r.chassis for _, r in group]),
        rack=np.concatenate([r.rack for _, r in group]),
        shocks=np.concatenate([r.shocks for _, r in group]),
    )
    inputs: dict[Slot, np.ndarray] = {}
    fill_inputs(states, slice(None), base, inputs)  # type: ignore[arg-type]
    R, t = chassis_transforms(model0, states.chassis)
    kin = _kinematics(outputs, plan)
    st = template.st  # P holds only the copies the metrics read
    g = place_wheels(st, kin.P, R, t)
    steer = None
    if plan.steer_axis:
        assert kin.steer is not None
        steer = kin.steer.copy()
        loose = st.damper_of < 0
        if np.any(loose):
            assert kin.tw is not None
            steer[:, loose] = kin.tw[:, loose][..., -1]
    n = len(kin.P)
    found: dict[Slot, np.ndarray] = {}
    if plan.ids & KINGPIN_IDS:
        k_c, k0_c = kingpin_axes(st, g, steer)
    else:
        k_c = k0_c = np.full((n, len(st.names), 3), np.nan)
    found.update(geometry_columns(st, g, pre, k_c, k0_c, "ackermann" in plan.ids, plan.ids))
    if plan.tangents and any(CATALOGUE[m].rates for m in plan.ids - CENTRE_IDS):
        assert kin.v_C is not None and kin.v_A is not None and kin.Wd is not None
        found.update(rate_columns(st, g, kin.v_C, kin.v_A, kin.Wd, pre, plan.ids))
    if plan.centres:
        assert kin.tw is not None
        found.update(centre_columns(st, g, kin.tw, model0.car.options, plan.ids))
    # one row per column, written whole (the states' rows of it are its transpose)
    columns = np.empty((len(plan.slots), n))
    for k, slot in enumerate(plan.slots):
        got = found.get(slot)
        if got is None:
            got = inputs.get(slot)
        columns[k] = np.nan if got is None else got
    columns += 0.0  # no "-0"
    bounds = np.cumsum([0] + [len(r) for _, r in group])
    return [columns[:, a:b].T for a, b in itertools.pairwise(bounds.tolist())]


def _kinematics(outputs: KernelOutputs, plan: JointPlan) -> Kinematics:
    """The `Kinematics` views of kernel outputs, as `kinematics_into` makes them."""
    P, v_C, v_A, Wd, tw, _ok = outputs
    kin = Kinematics(P)
    if plan.tangents:
        kin.v_C, kin.v_A, kin.Wd = v_C, v_A, Wd
    if plan.steer_axis:
        kin.steer = tw[..., 0]
    if plan.twists:
        kin.tw = tw[..., 1:] if plan.steer_axis else tw
    return kin
