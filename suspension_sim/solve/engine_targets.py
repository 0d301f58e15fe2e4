"""Targets laid out for the compiled single solve (`kernel.solve_single`).

`model.solve` with targets (a ride height, a toe, a contact) solves them inside the
kernel: each block that carries targets is bordered with their rows and its freed
inputs' columns (`kernel.solve_bordered`). `target_tables` builds those rows, or
says None when a target spans two blocks, a freed input acts on two blocks, or a
block is tall (redundant joints): the caller then takes the reference path
(`solver.solve_targets_by_engine`). The layout depends only on the model and the
targets' kinds and places, so it is cached per signature; the values (goals,
offsets, radii) are filled per call. Units: mm, rad.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.solve.engine_plan import plan
from suspension_sim.solve.engine_tables import kernel_tables

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.targets import CompiledTargets


@dataclass(frozen=True)
class TargetTables:
    """Targets laid out for `kernel.solve_single` (see `kernel.eval_targets`): per block
    its target rows and freed inputs, sorted by block."""

    arrays: tuple[np.ndarray, ...]
    freed: np.ndarray  # parameter index of each freed input


@dataclass(frozen=True)
class _TargetLayout:
    """The part of `TargetTables` fixed by the model and the targets' kinds and places."""

    order: np.ndarray  # target rows sorted by block
    contact: np.ndarray  # (n,) bool, in that order
    arrays: tuple[np.ndarray, ...]  # tb_ptr, kind, i, j, then t_cols, t_in, parts, insts
    freed: np.ndarray  # parameter index of the input each target row frees, in that order


def no_targets(model: KinematicModel) -> TargetTables:
    """Empty target tables (a plain single solve by `kernel.solve_single`)."""

    def build() -> TargetTables:
        tab = kernel_tables(model)
        return empty_target_tables(tab.n_blocks, tab.k_max)

    return model.derived.get("engine_no_targets", build)


def empty_target_tables(n_blocks: int, k_max: int) -> TargetTables:
    """Target tables with no target, for kernel tables of n_blocks blocks (the loose rows'
    included) and k_max joints per part: a plain single solve, or compiling it."""
    return _assemble(_empty_layout(n_blocks, k_max), np.zeros((0, 3)), np.zeros(0))


def _empty_layout(n_blocks: int, k_max: int) -> _TargetLayout:
    z = np.zeros(0, dtype=np.int64)
    ptr = np.zeros(n_blocks + 1, dtype=np.int64)
    arrays = (ptr, z, z, z, np.zeros((0, 2, k_max), dtype=np.int64), z, ptr, z, ptr, z)
    return _TargetLayout(z, np.zeros(0, dtype=bool), arrays, z)


def _assemble(
    lay: _TargetLayout,
    g: np.ndarray,
    off: np.ndarray,
    rad: np.ndarray | None = None,
    val: np.ndarray | None = None,
) -> TargetTables:
    n = len(lay.order)
    ptr, kind, ti, tj, cols, t_in, tp_ptr, tp_idx, ti_ptr, ti_idx = lay.arrays
    arrays = (
        ptr,
        kind,
        ti,
        tj,
        np.ascontiguousarray(g, dtype=float).reshape(n, 3),
        np.ascontiguousarray(off, dtype=float),
        np.ascontiguousarray(np.zeros(n) if rad is None else rad, dtype=float),
        np.ascontiguousarray(np.zeros(n) if val is None else val, dtype=float),
        cols,
        t_in,
        tp_ptr,
        tp_idx,
        ti_ptr,
        ti_idx,
    )
    return TargetTables(arrays, np.zeros(0, dtype=np.int64))


def target_tables(model: KinematicModel, targets: CompiledTargets) -> TargetTables | None:
    """The targets laid out for the kernel, or None when some target is not a function
    of one block whose freed inputs act on that block alone (the caller then takes
    the reference path). The freed inputs are those the targets' keys name."""
    sig = ("engine_target_layout", targets.signature)
    lay = model.derived.get(sig, lambda: _target_layout(model, targets))
    if lay is None:
        return None
    o = lay.order
    c = lay.contact
    g = targets.g[o]
    off = targets.offset[o]
    g[c] = targets.R[2]
    off[c] = targets.t[2]
    a = lay.arrays
    arrays = (*a[:4], g, off, targets.radius[o], targets.value[o], *a[4:])
    return TargetTables(arrays, lay.freed)


def _target_layout(model: KinematicModel, targets: CompiledTargets) -> _TargetLayout | None:
    from suspension_sim.solve.inputs import input_param

    freed = tuple(int(input_param(model, key)) for key in targets.keys)
    pl = plan(model)
    tab = kernel_tables(model)
    n_u = len(pl.unknowns)
    if len(freed) != len(targets.targets) or len(set(freed)) != len(freed):
        return None
    block_of = np.full(model.n_params, -1)
    col_of = np.full(model.n_params, -1)
    for b, blk in enumerate(pl.blocks):
        block_of[blk.params] = b
        col_of[blk.params] = np.arange(len(blk.params))
    input_pos = {int(p): k for k, p in enumerate(pl.inputs)}
    # Each freed input must act on one block only (all its Jacobian entries there).
    freed_block = []
    for f in freed:
        if f not in input_pos:
            return None
        k = input_pos[f]
        total = int(np.count_nonzero(pl.layout.indices == n_u + k))
        hit = [b for b, blk in enumerate(pl.blocks) if np.any(blk.in_col == k)]
        if len(hit) != 1 or int(np.count_nonzero(pl.blocks[hit[0]].in_col == k)) != total:
            return None
        freed_block.append(hit[0])
    # Each target must be a function of one block's unknowns (and held or freed inputs).
    t_block = []
    for t in range(len(targets.targets)):
        insts = (targets.i[t], targets.j[t]) if targets.is_contact[t] else (targets.i[t],)
        params = {int(p) for inst in insts for p in model.inst_slots[inst] if p >= 0}
        blocks = {int(block_of[p]) for p in params if block_of[p] >= 0}
        if len(blocks) != 1:
            return None
        b = blocks.pop()
        for p in params:
            if block_of[p] < 0 and p in freed and freed_block[freed.index(p)] != b:
                return None
        t_block.append(b)
    nb = tab.n_blocks
    if sorted(t_block) != sorted(freed_block):  # square bordered blocks
        return None
    if any(len(pl.blocks[b].rows) != len(pl.blocks[b].params) for b in t_block):
        return None  # a tall block (redundant joints): least squares, the reference path
    order = np.argsort(np.asarray(t_block), kind="stable")
    blocks_sorted = np.asarray(t_block)[order]
    ptr = np.searchsorted(blocks_sorted, np.arange(nb + 1)).astype(np.int64)
    # The freed inputs of each block, in the order of its bordered columns.
    t_in = np.zeros(len(order), dtype=np.int64)
    border: dict[int, list[int]] = {}
    for b in range(nb):
        fs = sorted(f for f, fb in zip(freed, freed_block, strict=True) if fb == b)
        border[b] = fs
        t_in[ptr[b] : ptr[b + 1]] = [input_pos[f] for f in fs]
    K = tab.k_max
    cols = np.full((len(order), 2, K), -1, dtype=np.int64)
    parts: list[np.ndarray] = []
    insts_all: list[np.ndarray] = []
    for b in range(nb):
        ins = []
        for row in range(ptr[b], ptr[b + 1]):
            t = order[row]
            n_b = len(pl.blocks[b].params)
            for side, inst in enumerate((targets.i[t], targets.j[t])):
                ins.append(int(inst))
                for s, p in enumerate(model.inst_slots[inst][:K]):
                    if p < 0:
                        continue
                    if block_of[p] == b:
                        cols[row, side, s] = col_of[p]
                    elif int(p) in border[b]:
                        cols[row, side, s] = n_b + border[b].index(int(p))
        u = np.unique(np.asarray(ins, dtype=np.int64))
        insts_all.append(u)
        parts.append(np.unique(model.inst_part[u]).astype(np.int64))

    def ptr_of(xs: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(x) for x in xs])]).astype(np.int64)

    def cat(xs: list[np.ndarray]) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate(xs), dtype=np.int64)

    arrays = (
        ptr,
        targets.is_contact[order].astype(np.int64),
        np.asarray(targets.i, dtype=np.int64)[order],
        np.asarray(targets.j, dtype=np.int64)[order],
        cols,
        t_in,
        ptr_of(parts),
        cat(parts),
        ptr_of(insts_all),
        cat(insts_all),
    )
    return _TargetLayout(
        order, targets.is_contact[order].copy(), arrays, np.asarray(freed, dtype=np.int64)[order]
    )
