"""Rank and null spaces of the Jacobian at design, block by block.

Shared by the degree-of-freedom counts (`suspension_sim.model.mobility`) and the
free-motion search (`suspension_sim.model.free_motion`), which both need the
rank of J_x (unknowns) and the left null space of J, and the quick pass/fail
test of a rebuilt trial model. Kept apart so neither of those two modules has to
import the other. A full car's Jacobian falls into independent blocks (one per
corner), so each SVD here is small.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.tolerances import LOCK_SINE, MODE_SHARE, RANK_TOL

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model.model import KinematicModel


def input_names(model: KinematicModel) -> tuple[str, ...]:
    """Names of the inputs in `model.input_params()` order: damper bodies, then "rack"."""
    rack = ("rack",) if model.topology.rack_param is not None else ()
    return (*model.damper_names, *rack)


def design_test(model: KinematicModel) -> tuple[int, set[str]]:
    """(redundant constraints, or -1 if a motion is free with the inputs held; the locked
    inputs) at design: `mobility` without the reporting."""
    u = model.input_params()
    x = np.setdiff1d(np.arange(model.n_params), u)
    J = model.dense_jacobian(np.zeros(model.n_params), np.arange(model.n_params))
    rank, _, _, left_null = rank_and_nullspaces(J[:, x], vectors=False)
    if rank < len(x):
        return -1, set()
    Ju = J[:, u]
    Ju = Ju / np.where(np.linalg.norm(Ju, axis=0) > 0, np.linalg.norm(Ju, axis=0), 1.0)
    hidden = np.linalg.norm(left_null.T @ Ju, axis=0)
    locked = {n for n, h in zip(input_names(model), hidden, strict=True) if h > LOCK_SINE}
    full_rank = rank_and_nullspaces(J, vectors=False)[0]
    return J.shape[0] - full_rank, locked


def rank_and_nullspaces(
    J: np.ndarray, vectors: bool = True
) -> tuple[int, list[int], list[int], np.ndarray]:
    """Rank of J (columns scaled), the columns/rows taking part in its null spaces (only
    with `vectors`), and an orthonormal basis of its left null space (m, m - rank).

    J is split into its independent blocks first (a full car: one per corner), so
    each SVD is small.
    """
    m = J.shape[0]
    rank = 0
    cols: set[int] = set()
    rows: set[int] = set()
    left: list[np.ndarray] = []
    for r_idx, c_idx in jacobian_blocks(J):
        A = J[np.ix_(r_idx, c_idx)]
        norms = np.linalg.norm(A, axis=0)
        cols |= {int(c_idx[i]) for i in np.flatnonzero(norms == 0)}
        if A.size == 0:
            block_rank, U, Vt = 0, np.eye(len(r_idx)), np.eye(len(c_idx))
        else:
            U, s, Vt = np.linalg.svd(A / np.where(norms > 0, norms, 1.0), full_matrices=True)
            tol = RANK_TOL * (s[0] if s.size and s[0] > 0 else 1.0)
            block_rank = int(np.sum(s > tol))
        rank += block_rank
        basis = np.zeros((m, len(r_idx) - block_rank))
        basis[r_idx] = U[:, block_rank:]
        left.append(basis)
        if vectors:
            for v in Vt[block_rank:]:
                cols |= {int(c_idx[i]) for i in np.flatnonzero(np.abs(v) > MODE_SHARE)}
            for u in U[:, block_rank:].T:
                rows |= {int(r_idx[i]) for i in np.flatnonzero(np.abs(u) > MODE_SHARE)}
    left_null = np.hstack(left) if left else np.zeros((m, 0))
    return rank, sorted(cols), sorted(rows), left_null


def graph_components(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """Connected components of an undirected graph of n nodes with edges a[k] - b[k]:
    (count, label per node), labels numbered in order of each component's lowest node,
    as scipy's connected_components numbers them. Union-find in plain Python: the graphs
    here have a few hundred nodes, and a first pose then needs no scipy.sparse (~0.2 s
    to import)."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(np.asarray(a).tolist(), np.asarray(b).tolist(), strict=True):
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    order: dict[int, int] = {}
    labels = np.empty(n, dtype=int)
    for i in range(n):
        labels[i] = order.setdefault(root(i), len(order))
    return len(order), labels


def jacobian_blocks(J: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(rows, columns) of J's independent blocks; an empty row or column is a block."""
    m, n = J.shape
    if not (m and n):
        return [(np.arange(m), np.arange(n))] if m or n else []
    rows, cols = np.nonzero(J)
    count, labels = graph_components(m + n, rows, m + cols)
    return [
        (np.flatnonzero(labels[:m] == c), np.flatnonzero(labels[m:] == c)) for c in range(count)
    ]
