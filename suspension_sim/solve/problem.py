"""The unknowns of one set of locked inputs, and the independent blocks they split into.

With every stroke, the rack and the chassis state given, a full car's
Jacobian splits into independent blocks (one per corner, or an axle and
whatever couples it); the blocks come from the body graph once per lock set.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import ThreadpoolController

from suspension_sim.model.rank import graph_components

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import JacobianLayout, KinematicModel


@lru_cache(maxsize=1)
def blas_controller() -> ThreadpoolController:
    """The process's BLAS thread control: solves of ~100 unknowns run single-threaded
    (``with blas_controller().limit(limits=1, user_api="blas")``)."""
    return ThreadpoolController()


@dataclass(frozen=True)
class Problem:
    """The unknowns of one lock set and the blocks they split into."""

    unknowns: np.ndarray
    layout: JacobianLayout
    blocks: tuple[tuple[np.ndarray, np.ndarray], ...]  # (rows, cols) per connected block


def problem(model: KinematicModel, locked: np.ndarray) -> Problem:
    """The unknowns and independent blocks when `locked` parameters are held (cached)."""
    key = ("problem", np.asarray(locked, dtype=int).tobytes())
    return model.derived.get(key, lambda: _build_problem(model, locked))


def column_components(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    """Connected components of a sparse pattern's columns (CSR `indptr`, `indices`, `n`
    columns): two columns are connected when a row holds both. (count, label per
    column), numbered as scipy's connected_components numbers them."""
    counts = np.diff(indptr)
    filled = counts > 0
    first = np.repeat(indices[indptr[:-1][filled]], counts[filled])  # each row's first column
    return graph_components(n, first, indices)


def _build_problem(model: KinematicModel, locked: np.ndarray) -> Problem:
    mask = np.ones(model.n_params, dtype=bool)
    mask[locked] = False
    unknowns = np.flatnonzero(mask)
    lay = model.layout(unknowns)
    n = len(unknowns)
    rows = np.repeat(np.arange(lay.shape[0]), np.diff(lay.indptr))
    ncomp, labels = column_components(lay.indptr, lay.indices, n)
    blocks = []
    for c in range(ncomp):
        cols = np.flatnonzero(labels == c)
        rws = np.unique(rows[np.isin(lay.indices, cols)])
        blocks.append((rws, cols))
    return Problem(unknowns, lay, tuple(blocks))
