"""Minimum-norm solves of block-sparse linear systems, batched over poses.

The statics' matrices (the constraint Jacobian, the bodies' equilibrium
equations) are block-diagonal after a permutation: a car's corners do not
share joints, and each body's construction joints appear in its own six
equations only. `block_pattern` finds the blocks once per model from the
sparsity pattern (connected components of the row-column graph), grouped by
shape, so each solve is a few batched SVDs of small matrices instead of one
SVD of the whole system per pose.

The matrix is given dense (B, n_rows, n_cols) or as its nonzeros (`BatchCOO`:
the same entries for every pose, values per pose), which skips building a
dense array that is mostly zeros. Two paths give the same answers: numpy
(batched LAPACK per shape group, the reference) and a compiled one
(`suspension_sim.loads.blocks_kernel`, numba: QR where a block is certified
full rank, a Jacobi SVD otherwise; several times faster on small blocks, where
LAPACK's per-matrix overhead dominates). The compiled path is used when it
costs no compile now (`use_compiled`); `sweep_loads` and `solve_loads` load it
whenever its code is on disk (`load_if_cached`). With it the statics also take
the copies' positions, the bodies' known wrenches and the sparse products from
the kernel (`compiled_kernel`: one choice for a whole computation).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from functools import cache, cached_property
from types import ModuleType
from typing import Literal

import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import connected_components

RANK_TOL = 1e-9
"""Singular values below this times the block's largest count as zero."""
CERTIFY = 1e-2
"""The compiled path takes a non-square block as full rank (QR instead of SVD) when
|R|_F |R^-1|_F < CERTIFY / RANK_TOL: then sigma_min > RANK_TOL sigma_max with a wide
margin, so the SVD's rank rule could not have dropped a singular value."""
COMPILE_PAYS_POSES = 50_000
"""With method="auto", a batch of at least this many poses compiles the kernel (~10 s
once; then it stays on disk): on the example car the compiled path saves ~0.1-0.2 ms per
pose over the three systems of the statics, so such a batch pays for the compile."""
Method = Literal["auto", "numpy", "compiled"]


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
    plans: dict[bytes, tuple[np.ndarray, ...]] = field(default_factory=dict, compare=False)
    """Where each nonzero of a `BatchCOO` goes in the grouped blocks, per (rows, cols)."""


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
class BatchCOO:
    """A batch of sparse matrices with one pattern: entry k is values[:, k] at
    (rows[k], cols[k]) of an (n_rows, n_cols) matrix; repeated places add up."""

    values: np.ndarray  # (B, nnz)
    rows: np.ndarray  # (nnz,)
    cols: np.ndarray  # (nnz,)
    n_rows: int
    n_cols: int

    @property
    def T(self) -> BatchCOO:
        """The transposed matrices."""
        return BatchCOO(self.values, self.cols, self.rows, self.n_cols, self.n_rows)

    def dense(self) -> np.ndarray:
        """The matrices, dense (B, n_rows, n_cols)."""
        out = np.zeros((self.values.shape[0], self.n_rows * self.n_cols))
        flat = np.asarray(self.rows) * self.n_cols + np.asarray(self.cols)
        for b in range(out.shape[0]):
            out[b] = np.bincount(flat, self.values[b], minlength=out.shape[1])
        return out.reshape(-1, self.n_rows, self.n_cols)

    def matmul(self, v: np.ndarray) -> np.ndarray:
        """M @ v for v (B, n_cols, K) -> (B, n_rows, K)."""
        return _sparse_product(self.values, self.rows, self.cols, v, self.n_rows)

    def rmatmul(self, v: np.ndarray) -> np.ndarray:
        """M^T @ v for v (B, n_rows, K) -> (B, n_cols, K)."""
        return _sparse_product(self.values, self.cols, self.rows, v, self.n_cols)


def _sparse_product(
    values: np.ndarray, out_index: np.ndarray, in_index: np.ndarray, v: np.ndarray, n: int
) -> np.ndarray:
    """out[:, i] = sum over k with out_index[k] == i of values[:, k] v[:, in_index[k]]
    (compiled when the kernel is in use: the same sums, to rounding)."""
    order, starts, targets = _segments(np.asarray(out_index, dtype=np.int64))
    out = np.zeros((values.shape[0], n, v.shape[2]))
    if len(order) and values.shape[0] and compiled_ready() and use_compiled(values.shape[0]):
        source, seg_ptr = _sources(np.asarray(in_index, dtype=np.int64), order, starts)
        kernel = sys.modules["suspension_sim.loads.blocks_kernel"]
        kernel.sparse_product(
            np.ascontiguousarray(values, dtype=float),
            order,
            source,
            seg_ptr,
            targets,
            np.ascontiguousarray(v, dtype=float),
            out,
        )
    elif len(order):
        terms = values[:, order, None] * v[:, np.asarray(in_index)[order]]
        out[:, targets] = np.add.reduceat(terms, starts, axis=1)
    return out


_SEGMENTS: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
_SOURCES: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}


def _sources(
    in_index: np.ndarray, order: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """in_index in the segments' order and each segment's bounds (cached per pattern)."""
    key = in_index.tobytes() + b"|" + order.tobytes()
    found = _SOURCES.get(key)
    if found is None:
        if len(_SOURCES) > 256:
            _SOURCES.clear()
        bounds = np.append(starts, len(order)).astype(np.int64)
        found = _SOURCES[key] = (np.ascontiguousarray(in_index[order]), bounds)
    return found


def _segments(index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stable order that groups equal indices, each group's start in it, and its index
    (cached: the patterns are fixed per model)."""
    key = index.tobytes()
    found = _SEGMENTS.get(key)
    if found is None:
        order = np.argsort(index, kind="stable")
        ordered = index[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(index) else order
        if len(_SEGMENTS) > 256:
            _SEGMENTS.clear()
        found = _SEGMENTS[key] = (order, starts, ordered[starts])
    return found


@dataclass(frozen=True)
class BlockSolution:
    """x (B, n_cols, K) min-norm; residual (B, K): |M x - y| per RHS after row
    equilibration (a load the system cannot carry); null_cols (n_cols,) bool: the
    columns that hold a null-space vector in some pose; null_basis (B, n_cols, k):
    those vectors, column j for the j-th True of null_cols (zero in poses where that
    column is not a null vector); `null` (B, n_cols, n_cols): the same in place,
    columns span each block's right null space, zero columns elsewhere."""

    x: np.ndarray
    residual: np.ndarray
    null_cols: np.ndarray
    null_basis: np.ndarray

    @cached_property
    def null(self) -> np.ndarray:
        """The null-space vectors in their columns, dense (B, n_cols, n_cols)."""
        B, n = self.x.shape[:2]
        out = np.zeros((B, n, n))
        out[:, :, np.flatnonzero(self.null_cols)] = self.null_basis
        return out


def block_lstsq(
    M: np.ndarray | BatchCOO,
    y: np.ndarray,
    pattern: BlockPattern,
    *,
    method: Method = "auto",
) -> BlockSolution:
    """Minimum-norm least-squares solution of M x = y, M (B, n_rows, n_cols) or a
    `BatchCOO`, y (B, n_rows, K).

    Each row is scaled to unit norm first (equilibration: it changes neither the
    solution of a consistent system nor its minimum-norm choice, only the rank test).
    method: "numpy" (reference), "compiled" (numba; compiles once, ~10 s, then
    cached on disk) or "auto" (`use_compiled`).
    """
    y = np.asarray(y, dtype=float)
    B, K = y.shape[0], y.shape[-1]
    n = pattern.n_cols
    compiled = method == "compiled" or (method == "auto" and use_compiled(B))
    kernel = _kernel() if compiled else None
    if compiled and kernel is None:  # pragma: no cover - numba is a dependency
        raise RuntimeError("numba is not installed: the compiled loads path is unavailable")
    x = np.zeros((B, n, K))
    residual = np.zeros((B, K))
    null_cols = np.zeros(n, dtype=bool)
    pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    blocks = _grouped(M, pattern, kernel)
    for g_index, (R_idx, C_idx) in enumerate(pattern.groups):
        G, r = R_idx.shape
        c = C_idx.shape[1]
        if c == 0:  # rows that meet no unknown: whatever they ask is unbalanced
            yb = y[:, R_idx.reshape(-1)].reshape(B, G * r, K)
            residual += np.linalg.norm(yb, axis=1) ** 2
            continue
        if r == 0:  # unknowns in no equation: free
            eye = np.broadcast_to(np.eye(c), (B, G, c, c))
            every = np.ones((B, G, c), dtype=bool)
            pieces.append((C_idx, np.asarray(eye), every, every[0]))
            continue
        Mb = blocks[g_index]  # (B, G, r, c)
        yb = y[:, R_idx]  # (B, G, r, K)
        if kernel is not None:
            xb = np.empty((B, G, c, K))
            done = np.zeros((B, G), dtype=bool)
            square = r == c and g_index not in pattern.singular
            if square:
                kernel.square_lanes(Mb, yb, RANK_TOL, xb, done)
            # null vectors only where some block is left (no large zero arrays otherwise)
            shape = (B, G, c) if not done.all() else (1, 1, 0)
            V = np.zeros((*shape, c))
            free = np.zeros(shape, dtype=bool)
            if not done.all():
                failed = kernel.solve_group(
                    Mb, yb, RANK_TOL, CERTIFY, square, done, xb, V, free, residual
                )
                if failed:
                    pattern.singular.add(g_index)
        else:
            xb, V, free, res2 = _group_numpy(Mb, yb, g_index, pattern)
            residual += res2
        x[:, C_idx] = xb
        if free.any():
            pieces.append((C_idx, V, free, np.asarray(free.any(axis=0), dtype=bool)))
    for C_idx, _, _, used in pieces:
        null_cols[C_idx[used]] = True
    cols = np.flatnonzero(null_cols)
    where = np.full(n, -1)
    where[cols] = np.arange(len(cols))
    null_basis = np.zeros((B, n, len(cols)))
    for C_idx, V, free, used in pieces:
        gs, ps = np.nonzero(used)  # blocks and their columns that hold a null vector
        vec = np.moveaxis(V[:, gs, :, ps], 0, 1) * free[:, gs, ps][..., None]  # (B, T, c)
        null_basis[:, C_idx[gs], where[C_idx[gs, ps]][:, None]] = vec
    return BlockSolution(x, np.sqrt(residual), null_cols, null_basis)


def _grouped(
    M: np.ndarray | BatchCOO, pattern: BlockPattern, kernel: ModuleType | None = None
) -> list[np.ndarray]:
    """Each group's blocks (B, G, r, c), gathered from the dense matrix or the nonzeros
    (by `kernel.gather_add` when given: the same sums in the same order)."""
    if not isinstance(M, BatchCOO):
        M = np.asarray(M, dtype=float)
        return [M[:, R[:, :, None], C[:, None, :]] for R, C in pattern.groups]
    B = M.values.shape[0]
    plan = _plan(M, pattern)
    out = []
    for (R, C), (take, place) in zip(
        pattern.groups, zip(plan[::2], plan[1::2], strict=True), strict=True
    ):
        G, r = R.shape
        c = C.shape[1]
        flat = np.zeros((B, G * r * c))
        if kernel is not None:
            kernel.gather_add(np.ascontiguousarray(M.values, dtype=float), take, place, flat)
        elif len(np.unique(place)) < len(place):  # repeated places add up
            np.add.at(flat.T, place, M.values[:, take].T)
        else:
            flat[:, place] = M.values[:, take]
        out.append(flat.reshape(B, G, r, c))
    return out


def _plan(M: BatchCOO, pattern: BlockPattern) -> tuple[np.ndarray, ...]:
    """Per group: which nonzeros fall in its blocks and where (flat in (G, r, c)), cached."""
    rows = np.asarray(M.rows, dtype=np.int64)
    cols = np.asarray(M.cols, dtype=np.int64)
    key = rows.tobytes() + b"|" + cols.tobytes()
    found = pattern.plans.get(key)
    if found is not None:
        return found
    row_group = np.full(pattern.n_rows, -1)
    row_block = np.zeros(pattern.n_rows, dtype=np.int64)
    row_pos = np.zeros(pattern.n_rows, dtype=np.int64)
    col_group = np.full(pattern.n_cols, -1)
    col_block = np.zeros(pattern.n_cols, dtype=np.int64)
    col_pos = np.zeros(pattern.n_cols, dtype=np.int64)
    for k, (R, C) in enumerate(pattern.groups):
        G, r = R.shape
        c = C.shape[1]
        row_group[R.reshape(-1)] = k
        row_block[R.reshape(-1)] = np.repeat(np.arange(G), r)
        row_pos[R.reshape(-1)] = np.tile(np.arange(r), G)
        col_group[C.reshape(-1)] = k
        col_block[C.reshape(-1)] = np.repeat(np.arange(G), c)
        col_pos[C.reshape(-1)] = np.tile(np.arange(c), G)
    g_of = row_group[rows]
    inside = (g_of >= 0) & (g_of == col_group[cols]) & (row_block[rows] == col_block[cols])
    if not np.all(inside):
        raise ValueError("a nonzero of the matrix lies outside the blocks of its pattern")
    plan: list[np.ndarray] = []
    for k, (_, C) in enumerate(pattern.groups):
        r = pattern.groups[k][0].shape[1]
        c = C.shape[1]
        take = np.flatnonzero(g_of == k)
        place = (row_block[rows[take]] * r + row_pos[rows[take]]) * c + col_pos[cols[take]]
        plan += [take, place]
    pattern.plans[key] = tuple(plan)
    return pattern.plans[key]


def _group_numpy(
    Mb: np.ndarray, yb: np.ndarray, g_index: int, pattern: BlockPattern
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One group's blocks by batched LAPACK (the reference path): x (B, G, c, K),
    null vectors V (B, G, c, c) (zero columns where not free), free (B, G, c), and the
    squared residuals (B, K)."""
    B, G, r, c = Mb.shape
    K = yb.shape[-1]
    scale = np.linalg.norm(Mb, axis=3, keepdims=True)
    scale = np.where(scale > 0, scale, 1.0)
    Mb = Mb / scale
    yb = yb / scale
    if r == c and g_index not in pattern.singular:
        square = _square_solve(Mb, yb)
        if square is not None:  # nonsingular: unique solution, no null space
            none = np.zeros((B, G, c), dtype=bool)
            return square, np.zeros((B, G, c, c)), none, np.zeros((B, K))
        pattern.singular.add(g_index)
    U, s, Vh = np.linalg.svd(Mb, full_matrices=True)  # U (B,G,r,r), Vh (B,G,c,c)
    k = min(r, c)
    smax = s[..., :1] if k else np.ones((B, G, 1))
    keep = s > RANK_TOL * np.maximum(smax, 1e-300)  # (B, G, k)
    inv = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    coef = (np.swapaxes(U[..., :k], 2, 3) @ yb) * inv[..., None]
    xb = np.swapaxes(Vh[..., :k, :], 2, 3) @ coef  # (B, G, c, K)
    fit = Mb @ xb - yb
    free = np.ones((B, G, c), dtype=bool)
    free[..., :k] = ~keep
    V = np.swapaxes(Vh, 2, 3) * free[:, :, None, :]  # (B, G, c, c): null columns
    return xb, V, free, (fit**2).sum(axis=2).sum(axis=1)


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


@cache
def _kernel() -> ModuleType | None:
    """`suspension_sim.loads.blocks_kernel` (imports numba; loads or compiles it), or
    None: the numpy path for the rest of this process."""
    from suspension_sim.solve import warmup

    loaded = sys.modules.get("suspension_sim.loads.blocks_kernel")
    return loaded if loaded is not None else _load_kernel(warmup.verified())


def _load_kernel(verified: bool) -> ModuleType | None:
    """Import the kernel (its functions have signatures: the import loads or compiles
    them). `verified`: a complete compile is on disk with every file's sha256 checked
    (`solve.warmup.verified`), so the import only loads it; one numba still cannot
    read (a damaged index) is forgotten, recompiled in the background, and None
    returned. Otherwise this process compiles it, holding the compile lock (waiting,
    said in one line, while another process compiles), after dropping numba's
    indexes of a damaged compile so numba never reads its code. None when numba is missing or
    the lock cannot be taken."""
    from suspension_sim.solve import warmup

    if verified:
        try:
            from suspension_sim.loads import blocks_kernel
        except ImportError:  # pragma: no cover - numba is a dependency
            return None
        except Exception as exc:  # numba could not read the cache: numpy here
            warmup.forget()
            warmup.say_once(
                f"the compiled loads kernel on disk could not be loaded ({type(exc).__name__});"
                " the numpy path is used and the kernels are compiled again"
            )
            warmup.start_background()
            return None
        return blocks_kernel
    with warmup.foreground_compile() as locked:
        if not locked:
            return None
        if warmup.verified():  # compiled by the process waited for
            return _load_kernel(True)
        if warmup.on_disk():  # listed but damaged: numba must never read it
            warmup.drop_compiled()
        try:
            from suspension_sim.loads import blocks_kernel
        except ImportError:  # pragma: no cover - numba is a dependency
            return None
        return blocks_kernel


def compiled_ready() -> bool:
    """True once the compiled kernel is loaded in this process (never imports numba)."""
    return "suspension_sim.loads.blocks_kernel" in sys.modules


def use_compiled(poses: int = 0) -> bool:
    """What method="auto" picks for a batch of `poses`: the compiled path when it is
    loaded in this process; when numba is already imported (the compiled solver is in
    use) and a previous process left the compiled code on disk (loading it takes well
    under a second); or when the batch is long enough to pay for compiling it
    (`COMPILE_PAYS_POSES`). Otherwise numpy: one pose's loads must not wait for a
    compiler or for numba's import (`compile_blocks` compiles on request)."""
    if compiled_ready():
        return True
    if poses >= COMPILE_PAYS_POSES:
        return _kernel() is not None
    if "numba" not in sys.modules or not _on_disk():
        return False
    return _kernel() is not None


def _on_disk() -> bool:
    """True when a complete compile of the kernels (this one among them) is in the
    private code folder and belongs to this package (`solve.warmup.on_disk`: stats
    only, ~1 ms; the files' hashes are checked before loading)."""
    from suspension_sim.solve import warmup

    return warmup.on_disk()


def compiled_kernel(poses: int = 0) -> ModuleType | None:
    """The compiled kernel module when method="auto" picks it for `poses` poses
    (`use_compiled`), else None: one choice for every step of a computation."""
    return _kernel() if use_compiled(poses) else None


def load_if_cached() -> bool:
    """Load the compiled kernel when its code is on disk (importing numba and loading
    take well under a second; no compile); True when it is loaded. The loads entry
    points call this, so method="auto" then uses it. Not on disk: asked once per process
    (the search costs ~1 ms; `compile_blocks` compiles on request). Not there, or
    damaged (a file's sha256 differs from the manifest's): the numpy path, the damaged
    compile forgotten, and a background compile started (`solve.warmup`)."""
    if compiled_ready():
        return True
    if _LOOKED[0]:
        return False
    _LOOKED[0] = True
    from suspension_sim.solve import warmup

    if warmup.verified():
        return _load_kernel(True) is not None
    if warmup.on_disk():  # listed but damaged: forget it, compile again
        warmup.drop_compiled()
    warmup.start_background()
    return False


_LOOKED = [False]
"""Whether `load_if_cached` searched the disk already in this process."""


def compile_blocks() -> float:
    """Compile (or load from disk) the compiled block kernel now; the seconds it took."""
    if compiled_ready():
        return 0.0
    t0 = time.perf_counter()
    if _kernel() is None:
        raise RuntimeError(
            "the compiled loads path is unavailable: numba is not installed, the compile "
            "lock in the code folder cannot be taken, or its compile on disk could not be "
            "loaded (then it is compiled again in the background)"
        )
    return time.perf_counter() - t0
