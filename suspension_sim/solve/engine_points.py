"""Geometry by the compiled kernel: point positions, the branch screen's spread, tangents.

Faster twins of numpy paths that stay the reference: `chassis_points_compiled` and
`world_points_compiled` (`KinematicModel.instance_positions`), `body_spread_compiled`
(the per-body distances of the continuation's branch screen,
`continuation._body_distances`), `tangents_compiled` (`metrics.batch.input_tangents`).
Each reads the model's kernel tables (`engine_tables`); those called per sweep step
keep their work arrays and compiled entry point per model, one thread at a time.
Units: mm, rad.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.solve.engine_tables import (
    KernelTables,
    kernel_module,
    kernel_tables,
    work_arrays,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


def _call_entry(entry: list[Any], disp: Any, args: tuple[Any, ...]) -> Any:
    """Call a kernel function through its compiled entry point (no numba dispatch,
    which costs ~100 us typing the tables' tuple); the first call goes through the
    dispatcher and keeps the entry point in `entry` (one per kept work arrays).
    Returns what the function returns."""
    if entry:
        return entry[0](*args)
    out = disp(*args)
    entry.append(disp.overloads[tuple(disp.typeof_pyval(a) for a in args)].entry_point)
    return out


def chassis_points_compiled(model: KinematicModel, params: np.ndarray) -> np.ndarray:
    """Chassis-frame positions of every point copy, (N, n_inst, 3) mm, for parameter rows
    params (N, n_params), by the compiled kernel (the numpy reference is
    `KinematicModel.instance_positions`)."""
    k = kernel_module()
    assert k is not None
    tab = kernel_tables(model)
    entry: list[Any]
    W, parts, insts, lock, entry = model.derived.get(
        "engine_points_work",
        lambda: (
            work_arrays(tab)[0],
            np.arange(tab.n_parts, dtype=np.int64),
            np.arange(tab.n_inst, dtype=np.int64),
            threading.Lock(),
            [],
        ),
    )
    out = np.empty((len(params), tab.n_inst, 3))
    Q = np.ascontiguousarray(params, dtype=float)
    T7 = tab.arrays[:7]  # all it reads: a smaller Python wrapper to compile, quicker calls
    if lock.acquire(blocking=False):  # the kept work arrays, one thread at a time
        try:
            _call_entry(entry, k.chassis_points, (Q, T7, W[:5], parts, insts, out))
        finally:
            lock.release()
    else:
        k.chassis_points(Q, T7, work_arrays(tab)[0][:5], parts, insts, out)
    return out


def body_spread_compiled(
    model: KinematicModel, Q: np.ndarray, ratio: float, floor_mm: float
) -> tuple[np.ndarray, bool]:
    """Per body (in the order of first appearance in `model.inst_body`), the largest
    distance between the same point copy in parameter rows 1 and 0, 2 and 0, 2 and 1 of
    Q (3, n_params): (n_bodies, 3), chassis frame, mm (`kernel.body_spread`; the numpy
    reference is `continuation._body_distances`); and whether every body's distance
    between rows 2 and 1 is at most ratio * its distance between rows 1 and 0 +
    floor_mm (the branch screen's pass, with its constants)."""
    k = kernel_module()
    assert k is not None
    tab = kernel_tables(model)

    def build() -> tuple[Any, ...]:
        names = list(dict.fromkeys(model.inst_body))
        index = {b: i for i, b in enumerate(names)}
        body = np.array([index[b] for b in model.inst_body], dtype=np.int64)
        moving = np.flatnonzero(tab.arrays[0] > 0)  # parts with joints (the rest are fixed)
        return (
            work_arrays(tab)[0],
            moving.astype(np.int64),
            np.flatnonzero(np.isin(model.inst_part, moving)).astype(np.int64),
            body,
            len(names),
            *spread_memo(tab),
            threading.Lock(),
            [],
        )

    W, parts, insts, body, n_bodies, memo_q, memo_P, lock, entry = model.derived.get(
        "engine_spread_work", build
    )
    out = np.empty((n_bodies, 3))
    Q = np.ascontiguousarray(Q, dtype=float)
    if Q.shape != (3, tab.n_params):
        raise ValueError(f"body_spread_compiled takes (3, {tab.n_params}) rows, not {Q.shape}")
    T7 = tab.arrays[:7]  # all it reads (fewer arrays to hand over per call)
    args: tuple[Any, ...]
    if lock.acquire(blocking=False):
        try:
            args = (Q, T7, W, parts, insts, body, float(ratio), float(floor_mm))
            clear = _call_entry(entry, k.body_spread, (*args, memo_q, memo_P, out))
        finally:
            lock.release()
    else:  # another thread has the kept arrays: fresh ones, nothing remembered
        args = (Q, T7, work_arrays(tab)[0], parts, insts, body, float(ratio), float(floor_mm))
        clear = k.body_spread(*args, *spread_memo(tab), out)
    return out, bool(clear)


def spread_memo(tab: KernelTables) -> tuple[np.ndarray, np.ndarray]:
    """Empty memo arrays of `kernel.body_spread` (last row 2 and its copies; unset)."""
    return np.zeros(tab.n_params + 1), np.zeros((tab.n_inst, 3))


def tangents_compiled(
    model: KinematicModel, Q: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point copies P (n_inst, 3, S), their PoE derivatives dP (n_inst, K, 3, S) and the
    input tangents dq/du (S, n_params, n_inputs) at closed states Q (n_params, S), by the
    compiled kernel: the layouts of `KinematicModel.instance_positions` and of
    `metrics.batch.input_tangents` (the numpy reference). NaN tangents for a state with
    a singular block. The kernel function is not in the warm-up (`engine_compile.LAZY`):
    compiled (or loaded from the disk cache) on its first use in a process."""
    from suspension_sim.solve.engine_compile import compile_on_first_use

    k = kernel_module()
    assert k is not None
    batch_tangents = compile_on_first_use(k.batch_tangents)
    tab = kernel_tables(model)
    W, S = work_arrays(tab)
    N = Q.shape[1]
    n_in = len(tab.inputs)
    P = np.empty((N, tab.n_inst, 3))
    dP = np.empty((N, tab.n_inst, tab.k_max, 3))
    T = np.zeros((N, tab.n_params, n_in))
    batch_tangents(
        np.ascontiguousarray(Q.T, dtype=float),
        np.arange(n_in, dtype=np.int64),
        tab.arrays,
        W,
        S,
        np.arange(tab.n_parts, dtype=np.int64),
        np.arange(tab.n_inst, dtype=np.int64),
        P,
        dP,
        T,
    )
    T[:, tab.inputs, np.arange(n_in)] = 1.0
    return P.transpose(1, 2, 0), dP.transpose(1, 2, 3, 0), T


def world_points_compiled(
    model: KinematicModel,
    params: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    R: np.ndarray,
    t: np.ndarray,
) -> np.ndarray:
    """World-frame points (N, n_points, 3) mm of parameter rows params (N, n_params) with
    chassis rotations R (N, 3, 3) and translations t (N, 3), each point the mean of its
    copies (`kernel.world_points`; order and starts group the copies by point)."""
    k = kernel_module()
    assert k is not None
    tab = kernel_tables(model)
    W = work_arrays(tab)[0]
    everything = np.arange(tab.n_parts, dtype=np.int64), np.arange(tab.n_inst, dtype=np.int64)
    out = np.empty((len(params), len(starts) - 1, 3))
    k.world_points(  # the arrays it reads only (see `chassis_points_compiled`)
        np.ascontiguousarray(params, dtype=float),
        tab.arrays[:7],
        W[:5],
        *everything,
        np.ascontiguousarray(order, dtype=np.int64),
        np.ascontiguousarray(starts, dtype=np.int64),
        np.ascontiguousarray(R, dtype=float),
        np.ascontiguousarray(t, dtype=float),
        out,
    )
    return out
