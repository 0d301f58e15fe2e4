"""Minimum-norm solves of block-sparse linear systems, batched over poses.

The statics' matrices (the constraint Jacobian, the bodies' equilibrium
equations) are block-diagonal after a permutation: a car's corners do not
share joints, and each body's construction joints appear in its own six
equations only. `block_pattern` finds the blocks once per model from the
sparsity pattern (connected components of the row-column graph), grouped by
shape, so each solve is a few batched SVDs of small matrices instead of one
SVD of the whole system per pose.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import connected_components

RANK_TOL = 1e-9
"""Singular values below this times the block's largest count as zero."""


@dataclass(frozen=True)
class BlockPattern:
    """Blocks of an (n_rows, n_cols) matrix, grouped by shape: per group the row
    indices (G, r) and column indices (G, c) of each block. Rows or columns that
    meet nothing form blocks with no columns or no rows."""

    n_rows: int
    n_cols: int
    groups: tuple[tuple[np.ndarray, np.ndarray], ...]
    singular: set[int] = field(default_factory=set, compare=False)
    """Square groups found singular once (e.g. a wishbone's two pivots): the SVD
    is used for them directly afterwards (a speed memo; results do not depend on it)."""


def block_pattern(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int) -> BlockPattern:
    """Blocks of the pattern with nonzeros at (rows[k], cols[k])."""
    rows = np.asarray(rows, dtype=int)
    cols = np.asarray(cols, dtype=int)
    n = n_rows + n_cols
    graph = sps.coo_matrix((np.ones(len(rows)), (rows, n_rows + cols)), shape=(n, n)).tocsr()
    _, label = connected_components(graph, directed=False)
    by_shape: dict[tuple[int, int], tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for lab in np.unique(label):
        members = np.flatnonzero(label == lab)
        r = members[members < n_rows]
        c = members[members >= n_rows] - n_rows
        key = (len(r), len(c))
        entry = by_shape.setdefault(key, ([], []))
        entry[0].append(r)
        entry[1].append(c)
    groups = tuple(
        (
            np.array(rs, dtype=int).reshape(len(rs), key[0]),
            np.array(cs, dtype=int).reshape(len(cs), key[1]),
        )
        for key, (rs, cs) in by_shape.items()
    )
    return BlockPattern(n_rows, n_cols, groups)


@dataclass(frozen=True)
class BlockSolution:
    """x (B, n_cols, K) min-norm; null (B, n_cols, n_cols): columns span each block's
    right null space (zero columns elsewhere); residual (B, K): |M x - y| per RHS
    after row equilibration (a load the system cannot carry)."""

    x: np.ndarray
    null: np.ndarray
    residual: np.ndarray


def block_lstsq(M: np.ndarray, y: np.ndarray, pattern: BlockPattern) -> BlockSolution:
    """Minimum-norm least-squares solution of M x = y, M (B, n_rows, n_cols), y (B, n_rows, K).

    Each row is scaled to unit norm first (equilibration: it changes neither the
    solution of a consistent system nor its minimum-norm choice, only the rank test).
    """
    B, K = M.shape[0], y.shape[-1]
    x = np.zeros((B, pattern.n_cols, K))
    null = np.zeros((B, pattern.n_cols, pattern.n_cols))
    residual = np.zeros((B, K))
    for g_index, (R_idx, C_idx) in enumerate(pattern.groups):
        G, r = R_idx.shape
        c = C_idx.shape[1]
        if c == 0:  # rows that meet no unknown: whatever they ask is unbalanced
            yb = y[:, R_idx.reshape(-1)].reshape(B, G * r, K)
            residual += np.linalg.norm(yb, axis=1) ** 2
            continue
        if r == 0:  # unknowns in no equation: free
            cc = C_idx.reshape(-1)
            null[:, cc, cc] = 1.0
            continue
        Mb = M[:, R_idx[:, :, None], C_idx[:, None, :]]  # (B, G, r, c)
        yb = y[:, R_idx]  # (B, G, r, K)
        scale = np.linalg.norm(Mb, axis=3, keepdims=True)
        scale = np.where(scale > 0, scale, 1.0)
        Mb = Mb / scale
        yb = yb / scale
        if r == c and g_index not in pattern.singular:
            square = _square_solve(Mb, yb)
            if square is not None:  # nonsingular: unique solution, no null space
                x[:, C_idx] = square
                continue
            pattern.singular.add(g_index)
        U, s, Vh = np.linalg.svd(Mb, full_matrices=True)  # U (B,G,r,r), Vh (B,G,c,c)
        k = min(r, c)
        smax = s[..., :1] if k else np.ones((B, G, 1))
        keep = s > RANK_TOL * np.maximum(smax, 1e-300)  # (B, G, k)
        inv = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
        coef = (np.swapaxes(U[..., :k], 2, 3) @ yb) * inv[..., None]
        xb = np.swapaxes(Vh[..., :k, :], 2, 3) @ coef  # (B, G, c, K)
        x[:, C_idx] = xb
        fit = Mb @ xb - yb
        residual += (fit**2).sum(axis=2).sum(axis=1)
        free = np.ones((B, G, c), dtype=bool)
        free[..., :k] = ~keep
        V = np.swapaxes(Vh, 2, 3) * free[:, :, None, :]  # (B, G, c, c): null columns
        null[:, C_idx[:, :, None], C_idx[:, None, :]] = V
    return BlockSolution(x, null, np.sqrt(residual))


def _square_solve(Mb: np.ndarray, yb: np.ndarray) -> np.ndarray | None:
    """Solve square blocks by QR when every one is clearly nonsingular (the smallest
    |R_ii| above `RANK_TOL` times the largest), else None (use the SVD). A singular
    matrix has a zero R_ii; QR and a triangular solve cost a fifth of an SVD."""
    q, rr = np.linalg.qr(Mb)
    d = np.abs(np.diagonal(rr, axis1=-2, axis2=-1))
    if not np.all(d.min(axis=-1) > RANK_TOL * d.max(axis=-1)):
        return None
    x = np.linalg.solve(rr, np.swapaxes(q, 2, 3) @ yb)
    return x if np.all(np.isfinite(x)) else None
