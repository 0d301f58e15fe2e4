"""The compiled kernel's tables of a model, its work arrays, and the kernel module.

`KernelTables` flattens what `solve.kernel` reads of one model into int64/float64
arrays (parts' joint signatures and frames, point copies, each block's unknowns,
rows and Jacobian entries; see `kernel.eval_block`), built once per model from the
engine plan (`engine_plan`): numba compiles one version for every car because every
car's tables have the same types. `work_arrays` gives the scratch arrays a kernel
run writes into; `dummy_tables` an empty problem of the right types, to compile
with. `kernel_module` imports numba only when first asked. Units: mm, rad.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.model.topology import SIGNATURES
from suspension_sim.solve.engine_plan import plan

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

_AXIS = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0), "-z": (0.0, 0.0, -1.0)}


@cache
def kernel_module() -> ModuleType | None:
    """`suspension_sim.solve.kernel` (imports numba), or None when numba is missing."""
    try:
        from suspension_sim.solve import kernel
    except ImportError:  # pragma: no cover - numba is a dependency
        return None
    return kernel


def compiled_available() -> bool:
    """True when numba can be imported (the compiled path can run)."""
    return kernel_module() is not None


@dataclass(frozen=True)
class KernelTables:
    """Flat arrays the compiled kernel reads (see `kernel.eval_block`), per model."""

    arrays: tuple[np.ndarray, ...]
    n_blocks: int  # including the last block of loose rows
    max_rows: int
    max_cols: int
    n_params: int
    inputs: np.ndarray
    k_max: int
    n_parts: int
    n_inst: int


def kernel_tables(model: KinematicModel) -> KernelTables:
    """The model's kernel tables (cached per model)."""
    return model.derived.get("engine_kernel_tables", lambda: _build_tables(model))


def _build_tables(model: KinematicModel) -> KernelTables:
    pl = plan(model)
    parts = model.parts
    K = max(model.kmax, 1)
    p_nj = np.array([len(SIGNATURES[p.chain]) for p in parts], dtype=np.int64)
    p_kind = np.zeros((len(parts), K), dtype=np.int64)
    p_axis = np.zeros((len(parts), K, 3))
    p_param = np.zeros((len(parts), K), dtype=np.int64)
    for i, part in enumerate(parts):
        for j, (kind, axis) in enumerate(SIGNATURES[part.chain]):
            p_kind[i, j] = 1 if kind == "P" else 0
            p_axis[i, j] = _AXIS[axis]
            p_param[i, j] = part.params[j]
    p_frame = np.ascontiguousarray(model.frame[:, :3, :])
    act = model.active_pairs
    lay = pl.layout
    c_param: list[np.ndarray] = []
    r_a: list[np.ndarray] = []
    r_b: list[np.ndarray] = []
    r_axis: list[np.ndarray] = []
    pa: list[np.ndarray] = []
    ins: list[np.ndarray] = []
    e_cols: list[np.ndarray] = []
    e_rows: list[np.ndarray] = []
    e_idx: list[np.ndarray] = []
    groups = [(blk.rows, blk.params, blk) for blk in pl.blocks] + [
        (pl.loose_rows, np.zeros(0, dtype=int), None)
    ]
    for rows, params, blk in groups:
        pair = act[rows // 3]
        ia, ib = model.pair_a[pair], model.pair_b[pair]
        insts = np.unique(np.concatenate([ia, ib]))
        c_param.append(params)
        r_a.append(ia)
        r_b.append(ib)
        r_axis.append(rows % 3)
        ins.append(insts)
        pa.append(np.unique(model.inst_part[insts]))
        if blk is None:
            e_idx.append(np.zeros(0, dtype=int))
            e_rows.append(np.zeros(0, dtype=int))
            e_cols.append(np.zeros(0, dtype=int))
            continue
        e_idx.append(np.concatenate([blk.entries, blk.in_entries]))
        e_rows.append(np.concatenate([blk.entry_row, blk.in_row]))
        e_cols.append(np.concatenate([blk.entry_col, -1 - blk.in_col]))
    ent = np.concatenate(e_idx).astype(np.int64)

    def ptr(parts_: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(x) for x in parts_])]).astype(np.int64)

    def cat(parts_: list[np.ndarray]) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate(parts_), dtype=np.int64)

    arrays = (
        p_nj,
        p_kind,
        p_axis,
        p_param,
        p_frame,
        model.inst_part.astype(np.int64),
        np.ascontiguousarray(model.inst_local, dtype=float),
        ptr(c_param),
        cat(c_param),
        ptr(r_a),
        cat(r_a),
        cat(r_b),
        cat(r_axis),
        ptr(pa),
        cat(pa),
        ptr(ins),
        cat(ins),
        ptr(e_idx),
        cat(e_rows),
        cat(e_cols),
        lay.inst[ent].astype(np.int64),
        lay.slot[ent].astype(np.int64),
        lay.axis[ent].astype(np.int64),
        np.ascontiguousarray(lay.sign[ent], dtype=float),
        *_plain_rows(sum(len(x) for x in r_a), len(groups)),
    )
    return KernelTables(
        arrays=arrays,
        n_blocks=len(groups),
        max_rows=max((len(g[0]) for g in groups), default=0),
        max_cols=max((len(g[1]) for g in groups), default=0),
        n_params=model.n_params,
        inputs=pl.inputs.astype(np.int64),
        k_max=K,
        n_parts=len(parts),
        n_inst=len(model.inst_part),
    )


def refill_tables(tab: KernelTables, model: KinematicModel) -> KernelTables:
    """`tab` (another model's tables) with `model`'s numbers: the parts' frames and the
    point copies in their parts' frames, the only entries of `_build_tables` that
    depend on coordinates. For a model of the same structure as the one `tab` was
    built for (the same parts, chains, parameters, point copies and active pairs, as
    `explore.doe_refill.same_structure` checks): then equal to `kernel_tables(model)`,
    without rebuilding the layout."""
    arrays = list(tab.arrays)
    frame = np.ascontiguousarray(model.frame[:, :3, :])
    local = np.ascontiguousarray(model.inst_local, dtype=float)
    if frame.shape != arrays[4].shape or local.shape != arrays[6].shape:
        raise ValueError("refill_tables: the model's structure is not the tables'")
    arrays[4], arrays[6] = frame, local
    return dataclasses.replace(tab, arrays=tuple(arrays))  # same layout, new numbers


def _plain_rows(n_rows: int, n_groups: int) -> tuple[np.ndarray, ...]:
    """The extra table arrays of tables whose rows are all axis rows and that eliminate
    no link: row kind 0, length 0, no stroke term; no link to rebuild in any block."""
    return (
        np.zeros(n_rows, dtype=np.int64),
        np.zeros(n_rows),
        np.zeros(n_rows),
        np.full(n_rows, -1, dtype=np.int64),
        np.zeros(n_groups + 1, dtype=np.int64),
        *(np.zeros(0, dtype=np.int64) for _ in range(4)),
        np.zeros(n_groups + 1, dtype=np.int64),
        *(np.zeros(0, dtype=np.int64) for _ in range(3)),
        np.zeros(n_groups + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(n_groups + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )


def work_arrays(tab: KernelTables) -> tuple[tuple[np.ndarray, ...], tuple[Any, ...]]:
    """Fresh work arrays (W) and per-block storage (S) for kernel runs.

    S holds each block's last factorisation (F = R and the Householder vectors
    of J^T, tau, the input columns Fin, a usable flag) and scratch vectors; see
    `kernel.solve_block`.
    """
    m, n, nb, n_in = max(tab.max_rows, 1), max(tab.max_cols, 1), tab.n_blocks, len(tab.inputs)
    W = (
        np.zeros((tab.n_parts, 3, 4)),
        np.zeros((tab.n_parts, tab.k_max, 3)),
        np.zeros((tab.n_parts, tab.k_max, 3)),
        np.zeros((tab.n_inst, 3)),
        np.zeros((tab.n_inst, tab.k_max, 3)),
        np.zeros((m, 3)),  # unit vectors of distance rows (`kernel.eval_block`)
    )
    S = (
        np.zeros((nb, n, m)),
        np.zeros((nb, n)),
        np.zeros((nb, m, max(n_in, 1))),
        np.zeros(nb, dtype=np.bool_),
        np.zeros(m),
        np.zeros(m),
        np.zeros((n, m)),
        np.zeros((m, max(n_in, 1))),
        np.zeros(m),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros((nb, n)),
        np.zeros((nb, m)),
        np.zeros(nb, dtype=np.bool_),
        np.zeros(n),
        np.zeros(m),
        np.zeros((nb, n, m)),
        np.zeros(n),
        np.zeros(m),
        np.zeros(max(n, m), dtype=np.int64),  # pivots (`kernel.invert`)
    )
    return W, S


def dummy_tables() -> KernelTables:
    """Tables of an empty problem, of the right types (only used to compile)."""
    i0 = np.zeros(1, dtype=np.int64)
    z = np.zeros(0, dtype=np.int64)
    arrays = (
        i0,
        np.zeros((1, 1), dtype=np.int64),
        np.zeros((1, 1, 3)),
        np.zeros((1, 1), dtype=np.int64),
        np.zeros((1, 3, 4)),
        i0,
        np.zeros((1, 3)),
        np.zeros(2, dtype=np.int64),
        z,
        np.zeros(2, dtype=np.int64),
        z,
        z,
        z,
        np.zeros(2, dtype=np.int64),
        z,
        np.zeros(2, dtype=np.int64),
        z,
        np.zeros(2, dtype=np.int64),
        z,
        z,
        z,
        z,
        z,
        np.zeros(0),
        *_plain_rows(0, 1),
    )
    return KernelTables(arrays, 1, 0, 0, 1, np.zeros(1, dtype=np.int64), 1, 1, 1)
