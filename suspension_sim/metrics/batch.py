"""`batch_metrics`: the `pose_metrics` columns for every state of a `BatchResult` at once.

Damper-log replay solves 1e4..1e6 states with `solve_batch`; computing the
metrics pose by pose (`pose_metrics`, a few ms each) would dominate. Here
every formula runs on (states, wheels, xyz) arrays, a chunk of states at a
time (memory stays bounded), and the result equals ``pose_metrics(result.pose(i),
convention, rates)`` state by state (same columns, same order, same values
to rounding).

The metric formulas are the ones `pose_metrics` uses, with a leading state
axis (`metrics.geometry.place_wheels` / `geometry_columns`,
`metrics.rates.rate_columns`, `metrics.centres.centre_columns`; a pose is
S = 1 there). What is batched here is what feeds them:

* Geometry (``rates=False``): point copies from the model's part transforms
  (``model.part_transforms`` on (n_params, S) parameters) and the chassis
  transforms of `solve.batch.chassis_transforms`.
* Rates (``rates=True``): the constraint Jacobian of every state from
  ``model.evaluate_state`` in the engine's layout, the input tangents dq/du
  block by block of the engine plan (batched LU, QR for tall blocks), the
  wheel-travel tangents from them (``T (B T)^-1``, B the travel and rack
  rows: the bordered system of `solve.sensitivity.wheel_tangents` reduced
  to the mechanism's tangent space) and the carriers' twists along them
  (`pose_metrics` solves one dense least-squares system per pose instead).

Those are the numpy path (``method="numpy"``, the reference). When the solve
kernel is loaded (``engine.kernel_compiled()``, e.g. after a compiled
``solve_batch``), ``method="auto"`` takes the compiled path instead
(`metrics.batch_kernel`, `kinematics_compiled`): positions, tangents on the
engine's reduced blocks, wheel tangents, velocities and twists per state in
numba, the same values to ~1e-11 relative. Either way, only the formulas of the
columns asked for run (``ids``), with larger chunks on the compiled path.

Not batched (computed state by state through `pose_metrics`, for the
columns asked only): every rate column of a model whose wheel count differs
from its damper count (the bordered travel system is then not square), and
every geometry column of such a model when it has a rack and a wheel
without kingpin points (its kingpin axis needs the tangents). States that
did not converge keep their inputs and give NaN elsewhere, as `pose_metrics`.
Units: mm, deg in the columns (rad inside).

One module (~760 lines) because both paths feed the same formulas from the same
chunks and `batch_metrics` chooses between them per chunk; what splits out first
when it grows: the compiled path's arguments and calls (`CompiledArgs` to
`kinematics_into`, which the DOE's metrics pass also calls directly).

One module (about 700 lines) on purpose: the numpy reference and the compiled path
sit side by side so each column is built from the same tables and the tests compare
the two line for line (`tests/test_batch_metrics_compiled.py`).

One module (~710 lines): the numpy reference and the compiled path share the chunking,
the input columns and the slots they fill; the compiled path's argument tables
(`CompiledArgs`) would split out first.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.metrics.catalogue import CATALOGUE
from suspension_sim.metrics.centres import ANTI_CENTRES, ANTIS, LINE_ANGLES, centre_columns
from suspension_sim.metrics.conventions import Preset, preset
from suspension_sim.metrics.core import layout, pose_metrics
from suspension_sim.metrics.geometry import (
    Slot,
    WheelSet,
    geometry_columns,
    kingpin_axes,
    place_wheels,
    wheel_set,
)
from suspension_sim.metrics.rates import (
    VELOCITY_IDS,
    point_velocities,
    rate_columns,
    slot_rates_batch,
)
from suspension_sim.names import did_you_mean
from suspension_sim.solve import engine
from suspension_sim.solve.batch import chassis_transforms
from suspension_sim.solve.solver import blas_controller

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import BatchResult

GEOMETRY_CHUNK = 1024
"""Most states per vectorised chunk for geometry (the part transforms carry every PoE
derivative, (parts, 7, 3, 4, S): ~25 MB at 1024 on the example car; larger is not faster)."""
RATES_CHUNK = 256
"""Most states per chunk when tangents are needed (the point copies' PoE derivatives,
(copies, 6, 3, S), and the block Jacobians come on top)."""
COMPILED_GEOMETRY_CHUNK = 4096
"""Most states per chunk on the compiled path without tangents: the kernel returns only
the copies the metrics read (40 on the example car: ~4 MB at 4096 states) and the
formulas' temporaries are (S, n_wheels, 3) arrays (~0.4 MB each); a few tens of MB in
all. Larger chunks were no faster (cache misses outweigh numpy's per-call overhead)."""
COMPILED_RATES_CHUNK = 2048
"""Most states per chunk on the compiled path with tangents: positions (~2 MB at 2048
states on the example car), velocities, damper rows and twists (~2 kB a state: ~4 MB)
and the rate and centre formulas' temporaries, (S, n_wheels, columns, 3) arrays of
~0.5 MB; tens of MB in all."""

INPUT_IDS = frozenset(
    {"chassis_heave", "chassis_roll", "chassis_pitch", "rack", "steering_wheel_angle"}
    | {"stroke", "damper_length"}
)
"""Metrics that are the state's own inputs (kept for states that did not converge)."""
CENTRE_IDS = frozenset(
    {"fvic", "svic", "fvsa", "svsa", "fvic_axis", "svic_axis", "fvic_arms", "svic_arms"}
    | {"roll_centre_height", "roll_centre_lateral", "roll_centre_axis_height", "pitch_centre"}
    | set(ANTIS)
    | set(ANTI_CENTRES.values())
    | set(LINE_ANGLES.values())
)
"""Metrics `centre_columns` writes (they need the carriers' twists, the costliest step)."""
KINGPIN_IDS = frozenset(
    {"caster", "kpi", "scrub_radius", "mechanical_trail", "scrub_vehicle", "trail_vehicle"}
    | {"spindle_length"}
)
"""Metrics that read the kingpin axis."""


def batch_metrics(
    result: BatchResult,
    convention: str | None = None,
    rates: bool = False,
    columns: Sequence[str] | None = None,
    chunk: int = 8192,
    method: str = "auto",
) -> pd.DataFrame:
    """Every `pose_metrics` column for every state of `result`: one row per state.

    convention: output preset (``"iso"``, ``"optimumk"``; None = the
    workbook's). rates: also the IFT-based columns (rates, centres, antis).
    columns: a subset of the column names, in the order wanted (None = all,
    in catalogue order); an unknown name raises `InputError` (where="columns").
    chunk: states per vectorised chunk (bounds memory; at most
    `GEOMETRY_CHUNK`, with rates `RATES_CHUNK`; on the compiled path
    `COMPILED_GEOMETRY_CHUNK`, `COMPILED_RATES_CHUNK`). Values equal
    ``pose_metrics(result.pose(i), convention, rates)``; a state that did
    not converge has NaN except its inputs.
    method: "auto" (the compiled kernel, `metrics.batch_kernel`, when the solve
    kernel is loaded in this process), "compiled" (load or compile it) or
    "numpy" (the reference path; same values to rounding).
    For a car whose wheel and damper counts differ, the rate columns (and,
    with a rack and a wheel without kingpin points, every column but the
    inputs) are computed state by state through `pose_metrics` (slow: ask
    only for the columns you need).
    """
    model = result.model
    pre = preset(convention if convention is not None else model.car.options.sign_convention)
    slots = layout(model, rates)
    keys = tuple(CATALOGUE[m].key(w, c) for m, w, c in slots)
    chosen = _chosen(keys, columns)
    want = {slots[j] for j in chosen}
    st = wheel_set(model)
    n = len(result)
    out = np.full((len(chosen), n), np.nan)  # one row per column: contiguous writes
    col = {slots[j]: k for k, j in enumerate(chosen)}
    ids = {s[0] for s in want}
    square = len(st.names) == len(st.dampers)
    need_geo = bool(st.names) and bool(ids - INPUT_IDS)
    # A wheel without kingpin points takes its axis from the carrier's steering twist.
    twist_axis = need_geo and st.has_rack and bool(np.any(st.i_lower < 0))
    twist_axis = twist_axis and bool(ids & KINGPIN_IDS)
    steer_axis = twist_axis and square
    per_state = {s for s in want if CATALOGUE[s[0]].rates and not square}
    if twist_axis and not square:  # no batched tangents: that geometry pose by pose too
        per_state |= {s for s in want if s[0] not in INPUT_IDS}
    need_tangents = steer_axis or any(CATALOGUE[s[0]].rates for s in want - per_state)
    compiled = need_geo and use_compiled(method)
    if compiled:
        cap = COMPILED_RATES_CHUNK if need_tangents else COMPILED_GEOMETRY_CHUNK
    else:
        cap = RATES_CHUNK if need_tangents else GEOMETRY_CHUNK
    step = max(1, min(chunk, cap))
    with blas_controller().limit(limits=1, user_api="blas"):  # small systems: threads only cost
        for start in range(0, n, step):
            sl = slice(start, min(start + step, n))
            values: dict[Slot, np.ndarray] = {}
            fill_inputs(result, sl, st, values)
            for slot, v in values.items():
                k = col.get(slot)
                if k is not None and slot not in per_state:
                    out[k, sl] = v
            ok = np.flatnonzero(result.converged[sl])
            if need_geo and len(ok):
                rows = ok + start
                found = _states(
                    model, st, pre, result, rows, need_tangents, steer_axis, ids, compiled
                )
                every = len(ok) == sl.stop - start
                for slot, v in found.items():
                    k = col.get(slot)
                    if k is None or slot in per_state:
                        continue
                    if every:
                        out[k, sl] = v
                    else:  # the others stay NaN
                        out[k, rows] = v
    if per_state:
        name = pre.name
        for i in np.flatnonzero(result.converged):
            row = pose_metrics(result.pose(int(i)), name, rates=rates)
            for slot in per_state:
                out[col[slot], i] = row[CATALOGUE[slot[0]].key(slot[1], slot[2])]
    out += 0.0  # no "-0"
    table = pd.DataFrame(out.T, columns=[keys[j] for j in chosen], copy=False)
    table.attrs["convention"] = pre.name
    return table


def _chosen(keys: tuple[str, ...], columns: Sequence[str] | None) -> list[int]:
    """Indices into `keys` of the columns asked for (all when None)."""
    if columns is None:
        return list(range(len(keys)))
    if isinstance(columns, str):
        columns = [columns]
    where = {k: j for j, k in enumerate(keys)}
    out = []
    for c in columns:
        j = where.get(c)
        if j is None:
            raise InputError(
                f"{c!r} is not a metric column of this car." + did_you_mean(str(c), keys),
                where="columns",
                hint="pose_metrics(pose) or suspension_sim.metrics.layout(model) lists them",
            )
        out.append(j)
    return out


def fill_inputs(result: BatchResult, sl: slice, st: WheelSet, out: dict[Slot, np.ndarray]) -> None:
    """The states' own inputs: chassis state, rack (and steering-wheel angle), strokes."""
    ch = result.chassis[sl]
    out[("chassis_heave", "", "")] = ch[:, 2]
    out[("chassis_roll", "", "")] = ch[:, 3]
    out[("chassis_pitch", "", "")] = ch[:, 4]
    out[("rack", "", "")] = result.rack[sl]
    if st.rack_ratio:
        out[("steering_wheel_angle", "", "")] = result.rack[sl] / st.rack_ratio
    for k, (name, length) in enumerate(zip(st.dampers, st.damper_design_length, strict=True)):
        stroke = result.shocks[sl, k]
        out[("stroke", name, "")] = stroke
        out[("damper_length", name, "")] = float(length) - stroke


# -- geometry ---------------------------------------------------------------------------
def copy_positions(model: KinematicModel, st: WheelSet, Q: np.ndarray) -> np.ndarray:
    """Chassis-frame positions (S, n_copies, 3) of the copies the wheel geometry uses
    (wheel centres, axis points, kingpin points, push/pull rod ends; the others are
    left at 0) for parameters Q (n_params, S).

    Each copy is its part's transform applied to its design point (`part_transforms`
    without derivatives): `instance_positions` would also carry every copy's PoE
    derivatives through, 4x the time.
    """
    idx = np.unique(
        np.concatenate([st.i_centre, st.i_axis, st.i_lower, st.i_upper, st.pushrod.reshape(-1)])
    )
    idx = idx[idx >= 0]
    G, _ = model.part_transforms(Q, derivatives=False)  # (n_parts, 3, 4, S)
    Gi = G[model.inst_part[idx]]
    P = np.zeros((Q.shape[1], len(model.inst_point), 3))
    rotated = np.einsum("nijs,nj->sni", Gi[:, :, :3], model.inst_design[idx])
    P[:, idx] = rotated + Gi[:, :, 3].transpose(2, 0, 1)
    return P


# -- tangents -------------------------------------------------------------------------------
def input_tangents(model: KinematicModel, data: np.ndarray) -> np.ndarray:
    """dq/du for S states, (S, n_params, n_inputs): `solve.sensitivity.input_tangents` batched.

    data: Jacobian values (nnz, S) in the engine plan's layout. Each block of
    the plan is solved on its own (the blocks share no rows or unknowns, so
    the least-squares solution of the whole system splits the same way):
    batched LU for square blocks, batched QR for tall ones (redundant joints).
    """
    pl = engine.plan(model)
    S = data.shape[1]
    n_in = len(pl.inputs)
    T = np.zeros((S, model.n_params, n_in))
    T[:, pl.inputs, np.arange(n_in)] = 1.0
    for blk in pl.blocks:
        m, nb = len(blk.rows), len(blk.params)
        J = dense(data[blk.entries], blk.entry_row, blk.entry_col, (m, nb))
        Jin = dense(data[blk.in_entries], blk.in_row, blk.in_col, (m, n_in))
        T[:, blk.params] = least_squares(J, -Jin)
    return T


def dense(
    values: np.ndarray, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    """Dense stack (S, *shape) from sparse entries values (nnz, S) at (rows, cols).

    Repeated (row, col) entries add up, as in the sparse Jacobian `pose_metrics` uses.
    """
    flat = rows * shape[1] + cols
    if len(np.unique(flat)) == len(flat):  # the usual case: plain assignment, far faster
        out = np.zeros((values.shape[1], *shape))
        out[:, rows, cols] = values.T
        return out
    summed = np.zeros((*shape, values.shape[1]))
    np.add.at(summed, (rows, cols), values)
    return summed.transpose(2, 0, 1)


def least_squares(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """x minimising |A x - B| for stacks A (S, m, n), B (S, m, k) with m >= n.

    Batched LU (square) or QR (tall); states where that fails (singular)
    fall back to `np.linalg.lstsq` one by one, as the single-pose path does.
    """
    S, m, n = A.shape
    if m < n:  # under-determined: the minimum-norm solution, state by state
        return np.stack([np.linalg.lstsq(a, b, rcond=None)[0] for a, b in zip(A, B, strict=True)])
    if m == n:
        M, rhs = A, B
    else:
        Qm, M = np.linalg.qr(A)
        rhs = np.matmul(Qm.transpose(0, 2, 1), B)
    try:
        x = np.linalg.solve(M, rhs)
        bad = ~np.all(np.isfinite(x), axis=(1, 2))
    except np.linalg.LinAlgError:
        x = np.zeros((S, n, B.shape[2]))
        bad = np.ones(S, dtype=bool)
    for s in np.flatnonzero(bad):
        x[s] = np.linalg.lstsq(A[s], B[s], rcond=None)[0]
    return x


def wheel_tangents(
    model: KinematicModel, st: WheelSet, T: np.ndarray, dP: np.ndarray
) -> np.ndarray:
    """dq per mm of each wheel's travel and per mm of rack, (S, n_params, n_wheels [+ 1]).

    `solve.sensitivity.wheel_tangents` solves the constraint Jacobian bordered
    by the travel rows B (wheel-centre z) and the rack row. Every solution of
    J dq = 0 is ``T a`` (T the input tangents), so the bordered system is
    ``(B T) a = I``: one small square solve per state (wheels + rack =
    dampers + rack), the same unique solution.
    """
    v = point_velocities(model, dP, T, st.i_centre)[..., 2]  # (S, n_w, n_in): d travel / d u
    if st.has_rack:
        rack = np.zeros((len(T), 1, T.shape[2]))
        rack[:, 0, -1] = 1.0
        v = np.concatenate([v, rack], axis=1)
    eye = np.broadcast_to(np.eye(v.shape[1]), v.shape)
    return np.matmul(T, least_squares(v, eye.copy()))


def carrier_twists(
    model: KinematicModel, st: WheelSet, Q: np.ndarray, dq: np.ndarray
) -> np.ndarray:
    """`solve.sensitivity.part_twists` of each wheel's carrier for S states: (S, n_w, 6, n_cols).

    Q: (n_params, S) parameters; dq: (S, n_params, n_cols) tangents. Chassis
    frame: w in rad/mm, v the velocity of the body point at the chassis origin.
    """
    G, dG = model.part_transforms(Q, derivatives=True)
    assert dG is not None
    parts = st.part
    kmax = model.kmax
    slots = np.full((len(parts), max(kmax, 1)), -1, dtype=int)
    for i, p in enumerate(parts):
        params = model.parts[p].params
        slots[i, : len(params)] = params
    rates = slot_rates_batch(slots, dq)[:, :, :kmax]  # (S, n_w, k, cols)
    Gdot = np.einsum("wkijs,swku->swiju", dG[parts, :kmax], rates)  # (S, n_w, 3, 4, cols)
    Rm = G[parts, :, :3]  # (n_w, 3, 3, S)
    t = G[parts, :, 3]  # (n_w, 3, S)
    W = np.einsum("swiju,wkjs->swiku", Gdot[:, :, :, :3], Rm)
    w = np.stack([W[:, :, 2, 1], W[:, :, 0, 2], W[:, :, 1, 0]], axis=2)
    v = Gdot[:, :, :, 3] - np.einsum("swiku,wks->swiu", W, t)
    return np.concatenate([w, v], axis=2)


# -- kinematics of a chunk: numpy reference and compiled --------------------------------
@dataclass
class Kinematics:
    """What the metric formulas need of S closed states (chassis frame, mm, rad).

    P: point copies (S, n_copies, 3). With tangents: v_C, v_A the velocities of
    the wheel centres and axis points along the wheel tangents (S, n_w, nv, 3;
    one column per wheel's travel, then the rack) and Wd the damper parameters'
    rows of those tangents (S, n_dampers, nv). steer: each carrier's twist per mm
    of rack with the strokes held (S, n_w, 6); tw: the carriers' twists along the
    wheel tangents (S, n_w, 6, nv).
    """

    P: np.ndarray
    v_C: np.ndarray | None = None
    v_A: np.ndarray | None = None
    Wd: np.ndarray | None = None
    steer: np.ndarray | None = None
    tw: np.ndarray | None = None

    def take(self, rows: np.ndarray, other: Kinematics) -> None:
        """Overwrite states `rows` with those of `other` (same fields, len(rows) states)."""
        for name in ("P", "v_C", "v_A", "Wd", "steer", "tw"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is not None and theirs is not None:
                mine[rows] = theirs


def kinematics_numpy(
    model: KinematicModel,
    st: WheelSet,
    Q: np.ndarray,
    tangents: bool,
    steer_axis: bool,
    twists: bool,
) -> Kinematics:
    """`Kinematics` of the states Q (n_params, S) by the numpy reference path.

    tangents: the wheel tangents and velocities; steer_axis: the steering twists;
    twists: the carriers' twists along the wheel tangents (needs tangents).
    """
    if not (tangents or steer_axis):
        return Kinematics(copy_positions(model, st, Q))
    pl = engine.plan(model)
    _r, data, P, dP = model.evaluate_state(Q, pl.layout)
    T = input_tangents(model, data)
    out = Kinematics(P.transpose(2, 0, 1))
    W = wheel_tangents(model, st, T, dP) if tangents else None
    cols = []
    if steer_axis:
        cols.append(T[:, :, -1:])
    if twists and W is not None:
        cols.append(W)
    if cols:
        both = carrier_twists(model, st, Q, np.concatenate(cols, axis=2))
        if steer_axis:
            out.steer = both[..., 0]
            both = both[..., 1:]
        if twists:
            out.tw = both
    if W is not None:
        out.v_C = point_velocities(model, dP, W, st.i_centre)
        out.v_A = point_velocities(model, dP, W, st.i_axis)
        out.Wd = W[:, st.damper_params]
    return out


@dataclass(frozen=True)
class CompiledArgs:
    """Per-model constant arguments of `batch_kernel.metric_kinematics`."""

    tables: engine.KernelTables
    pcol: np.ndarray  # each parameter's Jacobian column (`batch_kernel.param_columns`)
    bc_ptr: np.ndarray
    bc_idx: np.ndarray
    parts: np.ndarray  # the parts of the blocks and of `insts` (tangents need them)
    geo_parts: np.ndarray  # the parts of `insts`
    insts: np.ndarray  # the copies the metrics read (the kernel returns only these)
    rest_insts: np.ndarray  # those of them no block of `tables` places (`kinematics_compiled`)
    vel_insts: np.ndarray
    wheel: np.ndarray
    dampers: np.ndarray
    w_params: np.ndarray  # parameters whose wheel tangents the metrics read
    st: WheelSet  # the wheel set with its copy indices into `insts`


def compiled_args(model: KinematicModel, st: WheelSet) -> CompiledArgs:
    """`CompiledArgs` of the model (kept in ``model.derived``)."""

    def build() -> CompiledArgs:
        tab = _tangent_tables(model, st)
        e_ptr, e_col = tab.arrays[17], tab.arrays[19]
        per_block = []
        for b in range(tab.n_blocks):  # input columns with entries in each block
            c = e_col[e_ptr[b] : e_ptr[b + 1]]
            per_block.append(np.unique(-c[c < 0] - 1))
        counts = [len(c) for c in per_block]
        fields = ("i_centre", "i_axis", "i_lower", "i_upper", "arms", "pushrod")
        used = np.concatenate([getattr(st, f).reshape(-1) for f in fields])
        insts = np.unique(used[used >= 0]).astype(np.int64)
        remap = np.full(tab.n_inst + 1, -1, dtype=int)  # index -1 stays -1
        remap[insts] = np.arange(len(insts))
        compact = dataclasses.replace(st, **{f: remap[getattr(st, f)] for f in fields})
        a = tab.arrays
        solved = [b for b in range(tab.n_blocks) if a[7][b + 1] > a[7][b]]  # with unknowns
        placed = np.concatenate(
            [np.zeros(0, dtype=np.int64)] + [a[16][a[15][b] : a[15][b + 1]] for b in solved]
        )
        return CompiledArgs(
            tables=tab,
            pcol=_batch_kernel().param_columns(a[7], a[8], tab.inputs, tab.n_params),
            bc_ptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
            bc_idx=np.concatenate([np.zeros(0), *per_block]).astype(np.int64),
            parts=np.union1d(tab.arrays[14], model.inst_part[insts]).astype(np.int64),
            geo_parts=np.unique(model.inst_part[insts]).astype(np.int64),
            insts=insts,
            rest_insts=np.setdiff1d(insts, placed).astype(np.int64),
            vel_insts=np.unique(np.concatenate([st.i_centre, st.i_axis])).astype(np.int64),
            wheel=np.ascontiguousarray(
                np.stack([st.i_centre, st.i_axis, st.part]).reshape(3, -1), dtype=np.int64
            ),
            dampers=np.ascontiguousarray(st.damper_params, dtype=np.int64).reshape(-1),
            w_params=np.union1d(
                np.concatenate([model.parts[int(i)].params for i in st.part] + [[]]),
                st.damper_params,
            ).astype(np.int64),
            st=compact,
        )

    return model.derived.get(("metrics", "batch_kernel_args"), build)


def _tangent_tables(model: KinematicModel, st: WheelSet) -> engine.KernelTables:
    """The kernel tables the compiled tangents use: the engine's reduced tables (its
    two-point links eliminated: 9 instead of 21 unknowns per corner of the example car,
    so the Jacobians and their LU cost a fraction) when every wheel carrier's parameters
    stay unknowns or inputs there, else the full tables. The tangents of the carriers
    and of the inputs are the same in both (the reduced constraints have the same
    solutions); only the eliminated links' rows differ, and no metric reads them."""
    full = engine.kernel_tables(model)
    reduced_of = getattr(engine, "reduced_tables", None)
    reduced = reduced_of(model) if reduced_of is not None else None
    if reduced is None or reduced.n_inst != full.n_inst or reduced.n_parts != full.n_parts:
        return full
    kept = set(reduced.arrays[8].tolist()) | set(reduced.inputs.tolist())
    carriers = {p for i in np.unique(st.part) for p in model.parts[int(i)].params}
    if not carriers <= kept or not np.array_equal(reduced.inputs, full.inputs):
        return full
    return reduced


def kinematics_compiled(
    model: KinematicModel,
    st: WheelSet,
    Q: np.ndarray,
    tangents: bool,
    steer_axis: bool,
    twists: bool,
    velocities: bool = True,
) -> Kinematics:
    """`kinematics_numpy` by the compiled kernel (`metrics.batch_kernel`), with P holding
    only the copies the metrics read (``compiled_args(model, st).st`` indexes them);
    states with a singular block or travel system are recomputed by the numpy path."""
    c = compiled_args(model, st)
    if (tangents or steer_axis) and not square_travel(c, st):
        ref = kinematics_numpy(model, st, Q, tangents, steer_axis, twists)
        ref.P = ref.P[:, c.insts]
        return ref
    outputs = kernel_outputs(c, st, Q.shape[1], tangents, steer_axis, twists)
    work = kernel_work(c.tables, st)
    return kinematics_into(
        model, st, c, c.tables, Q, tangents, steer_axis, twists, velocities, outputs, work
    )


def square_travel(c: CompiledArgs, st: WheelSet) -> bool:
    """Whether the kernel's tables have one input per travel column (the wheels', then the
    rack's): the square travel system `metric_kinematics` solves."""
    return len(c.tables.inputs) == len(st.names) + (1 if st.has_rack else 0)


KernelOutputs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""`metric_kinematics`' output arrays of S states: P, v_C, v_A, Wd, tw, ok."""


def kernel_outputs(
    c: CompiledArgs, st: WheelSet, S: int, tangents: bool, steer_axis: bool, twists: bool
) -> KernelOutputs:
    """Empty `KernelOutputs` of S states (C-contiguous: each state's rows may be handed to
    one `kinematics_into` call, a run of states to another)."""
    n_w, n_d = len(st.names), len(st.dampers)
    nv = n_w + (1 if st.has_rack else 0)
    n_tw = (1 if steer_axis else 0) + (nv if twists else 0)
    P = np.empty((S, len(c.insts), 3))
    v_C = np.empty((S, n_w, nv if tangents else 0, 3))
    v_A = np.empty_like(v_C)
    Wd = np.empty((S, n_d if tangents else 0, nv))
    tw = np.empty((S, n_w, 6, n_tw))
    return P, v_C, v_A, Wd, tw, np.zeros(S, dtype=np.int8)


def kernel_work(tab: engine.KernelTables, st: WheelSet) -> tuple[Any, Any]:
    """The work and scratch arrays of `metric_kinematics` for tables of `tab`'s layout
    (the kernel writes each before it reads it, state after state: a call may reuse
    those of another call on tables of the same layout)."""
    bk = _batch_kernel()
    nv = len(st.names) + (1 if st.has_rack else 0)
    return (
        bk.work_arrays(tab.n_parts, tab.n_inst, tab.k_max, tab.max_rows),
        bk.scratch_arrays(tab.max_rows, tab.max_cols, tab.n_params, len(tab.inputs), nv),
    )


def kinematics_into(
    model: KinematicModel,
    st: WheelSet,
    c: CompiledArgs,
    tab: engine.KernelTables,
    Q: np.ndarray,
    tangents: bool,
    steer_axis: bool,
    twists: bool,
    velocities: bool,
    outputs: KernelOutputs,
    work: tuple[Any, Any],
) -> Kinematics:
    """`kinematics_compiled` of `model` with the arguments `c` but the kernel tables `tab`
    (of `c.tables`' layout: a design of the same structure), written into `outputs`
    (`kernel_outputs` of Q.shape[1] states) with the kernel's `work` arrays
    (`kernel_work`). The travel system must be square (`square_travel`)."""
    P, v_C, v_A, Wd, tw, ok = outputs
    Wk, scratch = work
    flags = np.array([st.has_rack, tangents, steer_axis, twists, velocities], dtype=np.int64)
    _batch_kernel().metric_kinematics(
        np.ascontiguousarray(Q.T, dtype=float),
        tab.arrays,
        Wk,
        tab.inputs,
        c.pcol,
        c.bc_ptr,
        c.bc_idx,
        c.parts if tangents or steer_axis else c.geo_parts,
        c.insts,
        c.rest_insts if tangents or steer_axis else c.insts,
        c.vel_insts,
        c.wheel,
        c.dampers,
        c.w_params,
        flags,
        scratch,
        P,
        v_C,
        v_A,
        Wd,
        tw,
        ok,
    )
    out = Kinematics(P)
    if tangents:
        if not velocities:  # not computed: NaN, never stale memory
            v_C.fill(np.nan)
            v_A.fill(np.nan)
        out.v_C, out.v_A, out.Wd = v_C, v_A, Wd
    if steer_axis:
        out.steer = tw[..., 0]
    if twists:
        out.tw = tw[..., 1:] if steer_axis else tw
    bad = np.flatnonzero(ok == 0)
    if len(bad):  # a singular block: least squares, as the numpy path does
        ref = kinematics_numpy(model, st, Q[:, bad], tangents, steer_axis, twists)
        ref.P = ref.P[:, c.insts]
        out.take(bad, ref)
    return out


_BATCH_KERNEL: list[Any] = []


def _batch_kernel() -> Any:
    """`metrics.batch_kernel` (imports numba; only once the solve kernel is loaded).

    numba's disk cache knows only the source file of the function it compiled, not the
    kernel functions it inlined from `solve.kernel`: an index older than that file is
    dropped first, so a changed kernel is never run from stale machine code. A compile
    on disk whose files do not match its manifest (`solve.warmup.verified`), or an
    index numba could not read, is dropped too: numba then compiles the function
    afresh in this process instead of raising on damaged code at its first call.
    """
    if not _BATCH_KERNEL:
        from suspension_sim.metrics import batch_kernel
        from suspension_sim.solve import kernel, warmup

        if warmup.on_disk() and not warmup.verified():
            warmup.drop_compiled()
        newest = kernel.newest_source()
        for disp in batch_kernel.compiled_functions():
            with contextlib.suppress(AttributeError, OSError):
                cache_file = disp._cache._cache_file
                index = Path(cache_file._index_path)
                if index.exists() and index.stat().st_mtime < newest:
                    disp._cache.flush()
                elif index.exists():
                    try:
                        cache_file._load_index()  # what numba reads at the first call
                    except Exception:
                        disp._cache.flush()
        _BATCH_KERNEL.append(batch_kernel)
    return _BATCH_KERNEL[0]


def use_compiled(method: str) -> bool:
    """Whether `batch_metrics(method=...)` takes the compiled path ("auto": when the
    solve kernel is loaded in this process and every kernel's compile is on disk, so
    this process never compiles the metrics kernel itself)."""
    if method == "numpy":
        return False
    if method == "compiled":
        if not engine.compiled_available():
            raise InputError(
                "method='compiled' needs numba, which is not installed.",
                where="method",
                hint="pip install numba, or use method='numpy'",
            )
        engine.compile_kernel()
        return True
    if method == "auto":  # and never while the first compile's metrics part still runs
        return engine.kernel_compiled() and engine.kernels_complete()
    raise InputError(
        f"method must be 'auto', 'compiled' or 'numpy', not {method!r}.",
        where="method",
        hint="'auto' takes the compiled kernel when it is loaded",
    )


# -- one chunk --------------------------------------------------------------------------------
def _states(
    model: KinematicModel,
    st: WheelSet,
    pre: Preset,
    result: BatchResult,
    rows: np.ndarray,
    tangents: bool,
    steer_axis: bool,
    ids: set[str],
    compiled: bool,
) -> dict[Slot, np.ndarray]:
    """Every batched column of the (converged) states `rows`: {slot: (S,)}."""
    Q = result.params[rows].T
    centres = tangents and bool(ids & CENTRE_IDS)
    twists = centres or (steer_axis and bool(np.any(st.damper_of < 0)))
    if compiled:  # the wheels' velocities only for the rate columns that read them
        velocities = tangents and bool(ids & VELOCITY_IDS)
        kin = kinematics_compiled(model, st, Q, tangents, steer_axis, twists, velocities)
    else:
        kin = kinematics_numpy(model, st, Q, tangents, steer_axis, twists)
    if compiled:  # P holds only the copies the metrics read: indices into them
        st = compiled_args(model, st).st
    R, t = chassis_transforms(model, result.chassis[rows])
    g = place_wheels(st, kin.P, R, t)
    steer = None
    if steer_axis:
        assert kin.steer is not None
        steer = kin.steer.copy()
        loose = st.damper_of < 0
        if np.any(loose):
            assert kin.tw is not None
            steer[:, loose] = kin.tw[:, loose][..., -1]
    out: dict[Slot, np.ndarray] = {}
    if ids & KINGPIN_IDS:
        k_c, k0_c = kingpin_axes(st, g, steer)
    else:  # no column reads the kingpin axis
        k_c = k0_c = np.full((len(rows), len(st.names), 3), np.nan)
    out.update(geometry_columns(st, g, pre, k_c, k0_c, "ackermann" in ids, ids))
    if tangents and any(CATALOGUE[m].rates for m in ids - CENTRE_IDS):
        assert kin.v_C is not None and kin.v_A is not None and kin.Wd is not None
        out.update(rate_columns(st, g, kin.v_C, kin.v_A, kin.Wd, pre, ids))
    if centres:
        assert kin.tw is not None
        out.update(centre_columns(st, g, kin.tw, model.car.options, ids))
    return out
