"""Point positions, part transforms and the Jacobian's nonzeros at B poses, and the
scatter sums used with them (the array arithmetic of the statics).

`positions` and `part_transforms` repeat the model's own operations
(`KinematicModel.instance_positions`, `KinematicModel.part_transforms`) from
local transforms computed once, so they give the same numbers, bit for bit on
the numpy path (tests/test_loads_fast.py checks); `positions` may run the
compiled kernel (`suspension_sim.loads.blocks_kernel`). `scatter_add` sums
repeated indices in the order ``np.add.at`` does, without its cost. Split from
`suspension_sim.loads.statics`, which re-exports `scatter_add` and
`occurrence_layers`. Units: mm.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.loads.blocks import BatchCOO

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


def scatter_add(out: np.ndarray, index: np.ndarray, values: np.ndarray, axis: int = 1) -> None:
    """out[..., index[k], ...] += values[..., k, ...] along `axis`, repeats summed (in place).

    The same sums in the same order as ``np.add.at`` (bit for bit): the entries are
    split into layers by occurrence (the first of each index, then the second, ...),
    each layer one buffered fancy add with no repeats. np.add.at costs ~1 us per
    element; this costs one fancy add per layer (repeats are few here)."""
    o = np.moveaxis(out, axis, 0)
    v = np.moveaxis(values, axis, 0)
    for pos, idx in occurrence_layers(np.asarray(index).reshape(-1), o.shape[0]):
        o[idx] += v[pos]


_LAYER_CACHE: dict[tuple[bytes, int], tuple[tuple[np.ndarray, np.ndarray], ...]] = {}


def occurrence_layers(index: np.ndarray, size: int) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """(positions, indices) per occurrence layer of `index` (cached: the indices are fixed
    per model)."""
    key = (index.tobytes(), size)
    found = _LAYER_CACHE.get(key)
    if found is not None:
        return found
    idx = np.where(index < 0, index + size, index).astype(np.int64)
    order = np.argsort(idx, kind="stable")
    sorted_idx = idx[order]
    start = np.r_[True, sorted_idx[1:] != sorted_idx[:-1]] if len(idx) else np.zeros(0, bool)
    first = np.maximum.accumulate(np.where(start, np.arange(len(idx)), 0)) if len(idx) else start
    occurrence = np.empty(len(idx), dtype=np.int64)
    occurrence[order] = np.arange(len(idx)) - first
    layers = []
    for j in range(int(occurrence.max(initial=-1)) + 1):
        pos = np.flatnonzero(occurrence == j)
        layers.append((pos, idx[pos]))
    if len(_LAYER_CACHE) > 256:
        _LAYER_CACHE.clear()
    _LAYER_CACHE[key] = tuple(layers)
    return _LAYER_CACHE[key]


def positions(
    model: KinematicModel, local: np.ndarray, kernel: ModuleType | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """`KinematicModel.instance_positions` with derivatives (the same operations, so the
    same numbers) from the local transforms `model.local_transforms(q)` computed once for
    the copies and the wheel carriers: P (B, n_inst, 3), dP (B, n_inst, kmax, 3). By
    `kernel` (`suspension_sim.loads.blocks_kernel.positions`) when given."""
    if kernel is not None and local.shape[-1]:
        B, n = local.shape[-1], len(model.inst_part)
        P = np.empty((B, n, 3))
        dP = np.empty((B, n, model.kmax, 3))
        kernel.positions(
            np.ascontiguousarray(local, dtype=float),
            np.ascontiguousarray(model.inst_part, dtype=np.int64),
            np.ascontiguousarray(model.inst_local, dtype=float),
            np.ascontiguousarray(model.inst_rot, dtype=float),
            np.ascontiguousarray(model.inst_origin, dtype=float),
            P,
            dP,
        )
        return P, dP
    return positions_numpy(model, local)


def positions_numpy(model: KinematicModel, local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`positions` by numpy (the reference: `KinematicModel.instance_positions`' einsums)."""
    loc = local[model.inst_part]
    Y = np.einsum("nkijb,nj->nkib", loc[:, :, :, :3], model.inst_local)
    Y[:, 0] += loc[:, 0, :, 3]
    Y[:, 1:] += loc[:, 1:, :, 3]
    W = np.einsum("nij,nkjb->nkib", model.inst_rot, Y)
    P = W[:, 0] + model.inst_origin[:, :, None]
    return np.moveaxis(P, -1, 0), np.moveaxis(W[:, 1:], -1, 0)


def part_transforms(
    model: KinematicModel, local: np.ndarray, parts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`KinematicModel.part_transforms` with derivatives for the parts `parts` only (the
    same operations per part, so the same numbers; tests/test_loads_fast.py checks):
    G (n, 3, 4, B), dG (n, kmax, 3, 4, B)."""
    n, kmax = len(parts), model.kmax
    loc = local[parts]
    G = _conjugate(model.frame[parts], loc[:, 0], model.frame_inv[parts], homogeneous=True)
    rep = np.repeat(parts, kmax)
    d = loc[:, 1:].reshape(n * kmax, 3, 4, loc.shape[-1])
    dG = _conjugate(model.frame[rep], d, model.frame_inv[rep], homogeneous=False)
    return G, dG.reshape(n, kmax, 3, 4, loc.shape[-1])


def _conjugate(F: np.ndarray, T: np.ndarray, Finv: np.ndarray, homogeneous: bool) -> np.ndarray:
    """F @ [T; 0 0 0 h] @ Finv for stacks F, Finv (n, 4, 4), T (n, 3, 4, B) -> (n, 3, 4, B),
    h = 1 for a transform, 0 for a derivative (the model's own arithmetic, matmul)."""
    n, _, _, B = T.shape
    FT = np.matmul(F[:, :3, :3], T.reshape(n, 3, 4 * B)).reshape(n, 3, 4, B)
    if homogeneous:
        FT[:, :, 3] += F[:, :3, 3, None]
    out = np.matmul(FT.transpose(0, 1, 3, 2), Finv[:, None, :, :])  # (n, 3, B, 4)
    return out.transpose(0, 1, 3, 2)


def sparse_jacobian(model: KinematicModel, dP: np.ndarray) -> BatchCOO:
    """d residual (active pairs) / d every parameter (B, m, n_params), as its nonzeros:
    the dense matrix is ~90 % zeros and only its blocks are ever read."""
    lay = model.layout(np.arange(model.n_params))
    data = lay.sign[None, :] * dP[:, lay.inst, lay.slot, lay.axis]  # (B, nnz)
    return BatchCOO(data, lay.rows, lay.indices, lay.shape[0], lay.shape[1])


def jacobian_columns(J: BatchCOO, cols: np.ndarray) -> BatchCOO:
    """The columns `cols` of J, renumbered 0..len(cols)-1 in that order."""
    new = np.full(J.n_cols, -1)
    new[cols] = np.arange(len(cols))
    on = new[J.cols] >= 0
    return BatchCOO(J.values[:, on], J.rows[on], new[J.cols[on]], J.n_rows, len(cols))
