"""Compiled (numba) solves of the statics' small blocks: one block at a time, no Python inside.

Imported only by `suspension_sim.loads.blocks` when the compiled path is used
(importing numba costs ~0.5 s; compiling this module ~10-15 s once, then
it is loaded from the same private on-disk folder as the solve kernel).

Per block (rows scaled to unit norm, as in the numpy path):

* square, not known singular: Householder QR; when every |R_ii| is above
  ``tol`` times the largest (the numpy path's test) the unique solution by
  back substitution (`square_lanes`: 16 blocks side by side, so the loops
  vectorise across blocks);
* otherwise a full-rank certificate first: Householder QR of the block (tall)
  or of its transpose (wide), accepted when ``|R|_F |R^-1|_F < cert / tol``.
  As ``sigma_min >= 1/|R^-1|_F`` and ``sigma_max <= |R|_F``, the SVD would then
  keep every singular value, so the least-squares (tall) or minimum-norm
  (wide, null space = the last columns of the full Q) answer is the SVD's;
* otherwise, tall or square, one null direction: Householder QR with column
  pivoting, accepted when ``|R_nn| <= cert tol |R_11|`` (so s_n <= tol s_max: the
  SVD drops it) and ``|R|_F |R11^-1|_F < cert / tol`` (it keeps the others); the
  null vector from R, the minimum-norm answer the basic solution less its part
  along it (`_rank_one_short`; the rank-5 body blocks of a car's wishbones,
  ~4x cheaper than the SVD);
* otherwise (rank-deficient, or too close to tell) a one-sided Jacobi SVD
  (Hestenes), singular values sorted descending like LAPACK's, the same rank
  rule as the numpy path (``s > tol * s_max``, at most min(r, c) kept).

Null-space columns land in the same places as the numpy path's (the block's
columns from its rank on); within a null space of dimension > 1 the basis is
another orthonormal basis of the same space.

Also the statics' other per-element loops (`suspension_sim.loads.statics`), each
the compiled twin of a numpy reference that tests compare it with: `positions`
(the point copies and their derivatives), `body_wrenches` (known forces summed
per body), `sparse_product` and `gather_add` (`blocks.BatchCOO` products and
block gathers).

One module (~830 lines): numba compiles and caches it as one unit, and its entry points
share the small linear-algebra helpers at its top; those would split out first
(`loads.blocks_linalg`) if it grows.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from suspension_sim.cache import private_code_dir

_CODE_DIR = private_code_dir(f"numba-{numba.__version__}")
CACHED = _CODE_DIR is not None
"""True when the compiled code is kept on disk (see `suspension_sim.solve.kernel`)."""

FASTMATH = {"reassoc", "contract"}
"""Lets LLVM vectorise the dot products (reordered sums, fused multiply-adds); NaN and
infinity keep their meaning (no "nnan"/"ninf"), so the finiteness checks still hold.
Division follows numpy (x / 0 is inf or nan, no exception): `square_lanes` divides in
every lane and discards the lanes whose blocks are singular."""
JACOBI_SWEEPS = 60
"""Sweeps of the Jacobi SVD before giving up on convergence (small blocks need < 10)."""
JACOBI_EPS = 1e-15
"""Columns count as orthogonal when |w_i . w_j| <= this * |w_i| |w_j|."""


def njit(*signature: str, fastmath: bool = True) -> Any:
    """numba.njit (eager when a signature is given) with the on-disk cache in our
    private folder, when there is one. fastmath=False: numpy's rounding exactly (no
    reordered sums, no fused multiply-adds)."""

    njit_: Any = numba.njit
    flags = FASTMATH if fastmath else set()

    def wrap(func: Any) -> Any:
        if not CACHED:
            return njit_(*signature, cache=False, fastmath=flags, error_model="numpy")(func)
        config: Any = numba.config
        previous = config.CACHE_DIR
        config.CACHE_DIR = str(_CODE_DIR)  # read once, when the cache locator is made
        try:
            return njit_(*signature, cache=True, fastmath=flags, error_model="numpy")(func)
        finally:
            config.CACHE_DIR = previous

    return wrap


def inner(func: Any) -> Any:
    """numba.njit for a helper only compiled code calls: no Python wrapper and no cache
    file of its own (it is compiled into each kernel that calls it, and cached there)."""
    njit_: Any = numba.njit
    return njit_(
        cache=False,
        fastmath=FASTMATH,
        error_model="numpy",
        no_cpython_wrapper=True,
        no_cfunc_wrapper=True,
    )(func)


TRANSPOSE = np.True_
NO_TRANSPOSE = np.False_
"""`_reflect`'s flag as numpy booleans: literal True and False would compile it twice."""


@inner
def _householder(H: np.ndarray, m: int, n: int, beta: np.ndarray) -> None:  # pragma: no cover
    """In-place Householder QR of the tall (m, n) matrix whose column k is H[k, :m]
    (m >= n): R[i, j] = H[j, i] for i <= j, the reflectors' vectors (v_k[k] = 1
    implied) in H[k, k + 1:m], their factors in beta[:n]."""
    for k in range(n):
        norm2 = 0.0
        for i in range(k, m):
            norm2 += H[k, i] * H[k, i]
        alpha = H[k, k]
        if norm2 == 0.0:
            beta[k] = 0.0
            continue
        rkk = -np.sqrt(norm2) if alpha >= 0.0 else np.sqrt(norm2)
        v0 = alpha - rkk
        for i in range(k + 1, m):
            H[k, i] /= v0
        beta[k] = -v0 / rkk  # = 2 / (v^T v) with v[k] = 1
        H[k, k] = rkk
        for j in range(k + 1, n):
            s = H[j, k]
            for i in range(k + 1, m):
                s += H[k, i] * H[j, i]
            s *= beta[k]
            H[j, k] -= s
            for i in range(k + 1, m):
                H[j, i] -= s * H[k, i]


@inner
def _reflect(
    H: np.ndarray, m: int, n: int, beta: np.ndarray, Z: np.ndarray, K: int, transpose: bool
) -> None:  # pragma: no cover - compiled
    """Z[j, :m] <- Q^T Z[j, :m] (transpose) or Q Z[j, :m] for j < K, Q from `_householder`."""
    for step in range(n):
        k = step if transpose else n - 1 - step
        if beta[k] == 0.0:
            continue
        for j in range(K):
            s = Z[j, k]
            for i in range(k + 1, m):
                s += H[k, i] * Z[j, i]
            s *= beta[k]
            Z[j, k] -= s
            for i in range(k + 1, m):
                Z[j, i] -= s * H[k, i]


@inner
def _certified(H: np.ndarray, n: int, Rinv: np.ndarray, limit: float) -> bool:  # pragma: no cover
    """True when R (n, n) of `_householder` has |R|_F |R^-1|_F < limit; R^-1 in Rinv."""
    normR = 0.0
    for j in range(n):
        if H[j, j] == 0.0:
            return False
        for i in range(j + 1):
            normR += H[j, i] * H[j, i]
    normI = 0.0
    for j in range(n):  # column j of R^-1 by back substitution on e_j
        for i in range(n - 1, -1, -1):
            if i > j:
                Rinv[i, j] = 0.0
                continue
            s = 1.0 if i == j else 0.0
            for k in range(i + 1, j + 1):
                s -= H[k, i] * Rinv[k, j]
            v = s / H[i, i]
            Rinv[i, j] = v
            normI += v * v
    return np.sqrt(normR * normI) < limit


@inner
def _pivoted_qr(
    H: np.ndarray, m: int, n: int, beta: np.ndarray, piv: np.ndarray
) -> bool:  # pragma: no cover - compiled
    """`_householder` with column pivoting (the largest remaining column first; piv[k]:
    the original column in place k). False when the block is zero."""
    for j in range(n):
        piv[j] = j
    for k in range(n):
        best = -1.0
        p = k
        for j in range(k, n):
            norm2 = 0.0
            for i in range(k, m):
                norm2 += H[j, i] * H[j, i]
            if norm2 > best:
                best = norm2
                p = j
        if p != k:
            for i in range(m):
                t = H[k, i]
                H[k, i] = H[p, i]
                H[p, i] = t
            t2 = piv[k]
            piv[k] = piv[p]
            piv[p] = t2
        alpha = H[k, k]
        if best == 0.0:
            if k == 0:
                return False
            beta[k] = 0.0
            continue
        rkk = -np.sqrt(best) if alpha >= 0.0 else np.sqrt(best)
        v0 = alpha - rkk
        for i in range(k + 1, m):
            H[k, i] /= v0
        beta[k] = -v0 / rkk
        H[k, k] = rkk
        for j in range(k + 1, n):
            s = H[j, k]
            for i in range(k + 1, m):
                s += H[k, i] * H[j, i]
            s *= beta[k]
            H[j, k] -= s
            for i in range(k + 1, m):
                H[j, i] -= s * H[k, i]
    return True


@inner
def _rank_one_short(
    H: np.ndarray, n: int, Rinv: np.ndarray, tol: float, cert: float
) -> bool:  # pragma: no cover - compiled
    """True when the pivoted R (n, n) of `_pivoted_qr` certifies rank n - 1 under the SVD's
    rule (s > tol s_max): s_n <= |R_nn| <= cert tol |R_11| <= cert tol s_max drops the last
    singular value, and s_(n-1) >= 1 / |R11^-1|_F > tol |R|_F / cert >= tol s_max / cert keeps
    the others (R11 the leading (n-1) block). Fills Rinv[:n-1, :n-1] with R11^-1."""
    if not abs(H[n - 1, n - 1]) <= cert * tol * abs(H[0, 0]):
        return False
    normR = 0.0
    for j in range(n):
        for i in range(j + 1):
            normR += H[j, i] * H[j, i]
    for j in range(n - 1):
        if H[j, j] == 0.0:
            return False
    normI = 0.0
    for j in range(n - 1):  # column j of R11^-1 by back substitution on e_j
        for i in range(n - 2, -1, -1):
            if i > j:
                Rinv[i, j] = 0.0
                continue
            acc = 1.0 if i == j else 0.0
            for k in range(i + 1, j + 1):
                acc -= H[k, i] * Rinv[k, j]
            v = acc / H[i, i]
            Rinv[i, j] = v
            normI += v * v
    return bool(np.sqrt(normR * normI) < cert / tol)


@inner
def _null_and_solve(
    H: np.ndarray,
    m: int,
    n: int,
    beta: np.ndarray,
    piv: np.ndarray,
    Rinv: np.ndarray,
    Yt: np.ndarray,
    K: int,
    Z: np.ndarray,
    xb: np.ndarray,
    v: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """From `_pivoted_qr` and `_rank_one_short` (rank n - 1, R_nn taken as zero): the unit
    null vector v[:n] = P [-R11^-1 r12; 1] / norm and the minimum-norm least-squares
    answers xb[j, :n] of the right-hand sides Yt[j, :m] (j < K): the basic solution
    P [R11^-1 (Q^T y)[:n-1]; 0] less its component along v (the pseudo-inverse of the
    rank n - 1 matrix, so the SVD's answer to rounding)."""
    norm2 = 1.0
    for i in range(n - 1):
        acc = 0.0
        for k in range(i, n - 1):
            acc -= Rinv[i, k] * H[n - 1, k]
        Z[0, i] = acc
        norm2 += acc * acc
    Z[0, n - 1] = 1.0
    inv = 1.0 / np.sqrt(norm2)
    for i in range(n):
        v[piv[i]] = Z[0, i] * inv
    for j in range(K):
        for i in range(m):
            Z[j, i] = Yt[j, i]
    _reflect(H, m, n, beta, Z, K, TRANSPOSE)
    for j in range(K):
        for i in range(n):
            xb[j, i] = 0.0
        for i in range(n - 1):
            acc = 0.0
            for k in range(i, n - 1):
                acc += Rinv[i, k] * Z[j, k]
            xb[j, piv[i]] = acc
        dot = 0.0
        for i in range(n):
            dot += v[i] * xb[j, i]
        for i in range(n):
            xb[j, i] -= dot * v[i]


@inner
def _descending(s: np.ndarray, order: np.ndarray) -> None:  # pragma: no cover - compiled
    """order <- the indices of s by descending value, ties in index order and NaN last:
    ``np.argsort(-s, kind="mergesort")`` (a stable insertion sort: s holds a block's few
    singular values, and numba's mergesort costs ~0.7 s of compile time)."""
    for i in range(s.shape[0]):
        key = order[i] = i
        j = i
        while j > 0 and _before(s[key], s[order[j - 1]]):
            order[j] = order[j - 1]
            j -= 1
        order[j] = key


@inner
def _before(a: float, b: float) -> bool:  # pragma: no cover - compiled
    """a sorts before b in `_descending`: larger, or a number against a NaN."""
    return a > b or (np.isnan(b) and not np.isnan(a))


@inner
def _jacobi(W: np.ndarray, V: np.ndarray, r: int, c: int) -> None:  # pragma: no cover
    """One-sided Jacobi on the columns W[j, :r] (j < c) of a block; V[j, :c] (start:
    identity) accumulates the rotations, so that A v_j = w_j. A column whose norm is
    negligible against the block (a null direction) is not rotated against others."""
    total = 0.0
    for j in range(c):
        for k in range(r):
            total += W[j, k] * W[j, k]
    tiny = (1e-15 * 1e-15) * total
    for _ in range(JACOBI_SWEEPS):
        rotated = False
        for i in range(c - 1):
            for j in range(i + 1, c):
                alpha = 0.0
                beta = 0.0
                gamma = 0.0
                for k in range(r):
                    alpha += W[i, k] * W[i, k]
                    beta += W[j, k] * W[j, k]
                    gamma += W[i, k] * W[j, k]
                if alpha <= tiny or beta <= tiny:
                    continue
                if abs(gamma) <= JACOBI_EPS * np.sqrt(alpha * beta):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
                cs = 1.0 / np.sqrt(1.0 + t * t)
                sn = cs * t
                for k in range(r):
                    wi = W[i, k]
                    wj = W[j, k]
                    W[i, k] = cs * wi - sn * wj
                    W[j, k] = sn * wi + cs * wj
                for k in range(c):
                    vi = V[i, k]
                    vj = V[j, k]
                    V[i, k] = cs * vi - sn * vj
                    V[j, k] = sn * vi + cs * vj
        if not rotated:
            return


@njit(
    "int64(float64[:, :, :, :], float64[:, :, :, :], float64, float64, boolean, "
    "boolean[:, ::1], float64[:, :, :, ::1], float64[:, :, :, ::1], boolean[:, :, ::1], "
    "float64[:, ::1])"
)
def solve_group(  # pragma: no cover - compiled
    Mg: np.ndarray,
    yg: np.ndarray,
    tol: float,
    cert: float,
    try_square: bool,
    skip: np.ndarray,
    x: np.ndarray,
    V: np.ndarray,
    free: np.ndarray,
    res2: np.ndarray,
) -> int:
    """Solve every block of one shape group for every pose (see the module docstring).

    Mg (B, G, r, c) the blocks, yg (B, G, r, K) their right-hand sides (any memory
    layout: a fancy-indexed gather is read in place), r, c > 0.
    Writes x (B, G, c, K), the null vectors into the columns of V (B, G, c, c) (zero
    columns elsewhere; V starts zero) with free (B, G, c) marking them, and adds the
    squared residuals to res2 (B, K). Blocks marked in skip (B, G) are left alone
    (solved already by `square_lanes`). Square blocks: QR first when try_square, else the
    group is known singular and goes straight to the SVD. Returns how many square blocks
    failed the QR test.
    """
    B, G, r, c = Mg.shape
    K = yg.shape[3]
    k_min = min(r, c)
    big = max(r, c)
    At = np.empty((c, r))  # scaled block, column j in At[j]
    Yt = np.empty((K, r))  # scaled right-hand sides, one per row
    H = np.empty((big, big))
    beta = np.empty(big)
    Z = np.empty((max(K, big), big))
    Rinv = np.empty((big, big))
    Vt = np.empty((c, c))
    xb = np.empty((K, c))
    s = np.empty(c)
    scale = np.empty(r)
    piv = np.empty(c, dtype=np.int64)
    order = np.empty(c, dtype=np.int64)
    failed = 0
    limit = cert / tol
    for b in range(B):
        for g in range(G):
            if skip[b, g]:
                continue
            for i in range(r):
                n2 = 0.0
                for j in range(c):
                    v = Mg[b, g, i, j]
                    n2 += v * v
                scale[i] = np.sqrt(n2) if n2 > 0.0 else 1.0
            for j in range(c):
                for i in range(r):
                    At[j, i] = Mg[b, g, i, j] / scale[i]
            for j in range(K):
                for i in range(r):
                    Yt[j, i] = yg[b, g, i, j] / scale[i]
            solved = False
            if try_square and r == c:
                for j in range(c):
                    for i in range(r):
                        H[j, i] = At[j, i]
                _householder(H, r, c, beta)
                dmin = np.inf
                dmax = 0.0
                for i in range(c):
                    d = abs(H[i, i])
                    dmin = min(dmin, d)
                    dmax = max(dmax, d)
                if dmin > tol * dmax:
                    for j in range(K):
                        for i in range(r):
                            Z[j, i] = Yt[j, i]
                    _reflect(H, r, c, beta, Z, K, TRANSPOSE)
                    finite = True
                    for j in range(K):
                        for i in range(c - 1, -1, -1):
                            acc = Z[j, i]
                            for k in range(i + 1, c):
                                acc -= H[k, i] * xb[j, k]
                            xb[j, i] = acc / H[i, i]
                            if not np.isfinite(xb[j, i]):
                                finite = False
                    if finite:
                        for i in range(c):
                            for j in range(K):
                                x[b, g, i, j] = xb[j, i]
                        continue  # the numpy path adds no residual here either
                failed += 1
            if r == c and not try_square:
                pass  # a square group known singular: straight to the SVD (as the numpy path)
            elif r >= c:  # tall: least squares by QR when certified full column rank
                for j in range(c):
                    for i in range(r):
                        H[j, i] = At[j, i]
                _householder(H, r, c, beta)
                if _certified(H, c, Rinv, limit):
                    for j in range(K):
                        for i in range(r):
                            Z[j, i] = Yt[j, i]
                    _reflect(H, r, c, beta, Z, K, TRANSPOSE)
                    for j in range(K):
                        for i in range(c):
                            acc = 0.0
                            for k in range(i, c):
                                acc += Rinv[i, k] * Z[j, k]
                            xb[j, i] = acc
                    solved = True
            else:  # wide: minimum norm by QR of A^T when certified full row rank
                for i in range(r):
                    for j in range(c):
                        H[i, j] = At[j, i]
                _householder(H, c, r, beta)
                if _certified(H, r, Rinv, limit):  # A = R^T Q1^T: x = Q1 R^-T y
                    for j in range(K):
                        for i in range(c):
                            Z[j, i] = 0.0
                        for i in range(r):
                            acc = 0.0
                            for k in range(i + 1):
                                acc += Rinv[k, i] * Yt[j, k]
                            Z[j, i] = acc
                    _reflect(H, c, r, beta, Z, K, NO_TRANSPOSE)
                    for j in range(K):
                        for i in range(c):
                            xb[j, i] = Z[j, i]
                    # the null space: the last c - r columns of the full Q
                    for p in range(c):
                        for i in range(c):
                            Z[p, i] = 1.0 if (i == p and p >= r) else 0.0
                    _reflect(H, c, r, beta, Z, c, NO_TRANSPOSE)
                    for p in range(r, c):
                        free[b, g, p] = True
                        for i in range(c):
                            V[b, g, i, p] = Z[p, i]
                    solved = True
            if not solved and r >= c >= 2:  # one null direction: pivoted QR, certified
                for j in range(c):
                    for i in range(r):
                        H[j, i] = At[j, i]
                if _pivoted_qr(H, r, c, beta, piv) and _rank_one_short(H, c, Rinv, tol, cert):
                    _null_and_solve(H, r, c, beta, piv, Rinv, Yt, K, Z, xb, s)
                    free[b, g, c - 1] = True
                    for i in range(c):
                        V[b, g, i, c - 1] = s[i]
                    solved = True
            if not solved:  # rank-deficient or not certified: Jacobi SVD
                for j in range(c):
                    for i in range(r):
                        H[j, i] = At[j, i]
                    for i in range(c):
                        Vt[j, i] = 1.0 if i == j else 0.0
                _jacobi(H, Vt, r, c)
                for j in range(c):
                    acc = 0.0
                    for i in range(r):
                        acc += H[j, i] * H[j, i]
                    s[j] = np.sqrt(acc)
                _descending(s, order)
                smax = max(s[order[0]], 1e-300)
                for j in range(K):
                    for i in range(c):
                        xb[j, i] = 0.0
                for p in range(c):
                    q = order[p]
                    if p < k_min and s[q] > tol * smax:
                        for kk in range(K):
                            acc = 0.0
                            for i in range(r):
                                acc += H[q, i] * Yt[kk, i]
                            acc /= s[q] * s[q]
                            for i in range(c):
                                xb[kk, i] += Vt[q, i] * acc
                    else:
                        free[b, g, p] = True
                        for i in range(c):
                            V[b, g, i, p] = Vt[q, i]
            for i in range(c):
                for j in range(K):
                    x[b, g, i, j] = xb[j, i]
            for j in range(K):
                acc2 = 0.0
                for i in range(r):
                    acc = -Yt[j, i]
                    for k in range(c):
                        acc += At[k, i] * xb[j, k]
                    acc2 += acc * acc
                res2[b, j] += acc2
    return failed


LANES = 16
"""Blocks solved side by side by `square_lanes` (the innermost loops run over them, so
they vectorise: small blocks are too short for SIMD along their own rows)."""


@njit(
    "void(float64[:, :, :, :], float64[:, :, :, :], float64, float64[:, :, :, ::1], "
    "boolean[:, ::1])"
)
def square_lanes(  # pragma: no cover - compiled
    Mg: np.ndarray, yg: np.ndarray, tol: float, x: np.ndarray, done: np.ndarray
) -> None:
    """Square blocks (B, G, n, n), `LANES` at a time: Householder QR, the same test as
    `solve_group` (every |R_ii| above tol times the largest), back substitution.
    Writes x (B, G, n, K) and done (B, G) for the blocks that pass with a finite answer;
    the others are left to `solve_group`."""
    B, G, n, _ = Mg.shape
    K = yg.shape[3]
    L = LANES
    H = np.empty((n, n, L))  # H[j, i, ln]: column j of lane ln's block
    Y = np.empty((K, n, L))
    X = np.empty((K, n, L))
    beta = np.empty((n, L))
    scale = np.empty(L)
    s = np.empty(L)
    bs = np.empty(L, dtype=np.int64)
    gs = np.empty(L, dtype=np.int64)
    total = B * G
    for start in range(0, total, L):
        m = min(L, total - start)
        for ln in range(L):
            t = start + min(ln, m - 1)  # spare lanes repeat the last block
            bs[ln] = t // G
            gs[ln] = t % G
        for i in range(n):
            for ln in range(L):
                acc = 0.0
                for j in range(n):
                    v = Mg[bs[ln], gs[ln], i, j]
                    acc += v * v
                scale[ln] = np.sqrt(acc) if acc > 0.0 else 1.0
            for j in range(n):
                for ln in range(L):
                    H[j, i, ln] = Mg[bs[ln], gs[ln], i, j] / scale[ln]
            for j in range(K):
                for ln in range(L):
                    Y[j, i, ln] = yg[bs[ln], gs[ln], i, j] / scale[ln]
        for k in range(n):
            for ln in range(L):
                s[ln] = 0.0
            for i in range(k, n):
                for ln in range(L):
                    s[ln] += H[k, i, ln] * H[k, i, ln]
            for ln in range(L):
                norm2 = s[ln]
                alpha = H[k, k, ln]
                if norm2 == 0.0:
                    beta[k, ln] = 0.0
                    s[ln] = 1.0  # divisor for the (zero) column below
                    continue
                rkk = -np.sqrt(norm2) if alpha >= 0.0 else np.sqrt(norm2)
                v0 = alpha - rkk
                beta[k, ln] = -v0 / rkk
                H[k, k, ln] = rkk
                s[ln] = v0
            for i in range(k + 1, n):
                for ln in range(L):
                    H[k, i, ln] /= s[ln]
            for j in range(k + 1, n):
                for ln in range(L):
                    s[ln] = H[j, k, ln]
                for i in range(k + 1, n):
                    for ln in range(L):
                        s[ln] += H[k, i, ln] * H[j, i, ln]
                for ln in range(L):
                    s[ln] *= beta[k, ln]
                    H[j, k, ln] -= s[ln]
                for i in range(k + 1, n):
                    for ln in range(L):
                        H[j, i, ln] -= s[ln] * H[k, i, ln]
            for j in range(K):  # Q^T y, reflector k
                for ln in range(L):
                    s[ln] = Y[j, k, ln]
                for i in range(k + 1, n):
                    for ln in range(L):
                        s[ln] += H[k, i, ln] * Y[j, i, ln]
                for ln in range(L):
                    s[ln] *= beta[k, ln]
                    Y[j, k, ln] -= s[ln]
                for i in range(k + 1, n):
                    for ln in range(L):
                        Y[j, i, ln] -= s[ln] * H[k, i, ln]
        for j in range(K):
            for i in range(n - 1, -1, -1):
                for ln in range(L):
                    s[ln] = Y[j, i, ln]
                for k in range(i + 1, n):
                    for ln in range(L):
                        s[ln] -= H[k, i, ln] * X[j, k, ln]
                for ln in range(L):
                    X[j, i, ln] = s[ln] / H[i, i, ln]
        for ln in range(m):
            dmin = np.inf
            dmax = 0.0
            for i in range(n):
                d = abs(H[i, i, ln])
                dmin = min(dmin, d)
                dmax = max(dmax, d)
            if not dmin > tol * dmax:
                continue
            finite = True
            for j in range(K):
                for i in range(n):
                    if not np.isfinite(X[j, i, ln]):
                        finite = False
            if not finite:
                continue
            done[bs[ln], gs[ln]] = True
            for i in range(n):
                for j in range(K):
                    x[bs[ln], gs[ln], i, j] = X[j, i, ln]


@njit(
    "void(float64[:, ::1], int64[::1], int64[::1], int64[::1], int64[::1], "
    "float64[:, :, ::1], float64[:, :, ::1])",
    fastmath=False,
)
def sparse_product(  # pragma: no cover - compiled
    values: np.ndarray,
    take: np.ndarray,
    source: np.ndarray,
    seg_ptr: np.ndarray,
    target: np.ndarray,
    v: np.ndarray,
    out: np.ndarray,
) -> None:
    """out[b, target[s]] = sum over e in seg_ptr[s]:seg_ptr[s + 1] of values[b, take[e]]
    v[b, source[e]], left to right (`blocks._sparse_product`; no fastmath). values (B,
    nnz), v (B, n_in, K), out (B, n_out, K) zeroed by the caller (rows that no segment
    names stay zero)."""
    B = values.shape[0]
    K = v.shape[2]
    acc = np.empty(K)
    for b in range(B):
        for s in range(target.shape[0]):
            e0 = seg_ptr[s]
            val = values[b, take[e0]]
            src = source[e0]
            for k in range(K):
                acc[k] = val * v[b, src, k]
            for e in range(e0 + 1, seg_ptr[s + 1]):
                val = values[b, take[e]]
                src = source[e]
                for k in range(K):
                    acc[k] += val * v[b, src, k]
            t = target[s]
            for k in range(K):
                out[b, t, k] = acc[k]


@njit(
    "void(float64[:, :, :, :, ::1], int64[::1], float64[:, ::1], float64[:, :, ::1], "
    "float64[:, ::1], float64[:, :, ::1], float64[:, :, :, ::1])",
    fastmath=False,
)
def positions(  # pragma: no cover - compiled
    local: np.ndarray,
    inst_part: np.ndarray,
    inst_local: np.ndarray,
    inst_rot: np.ndarray,
    inst_origin: np.ndarray,
    P: np.ndarray,
    dP: np.ndarray,
) -> None:
    """`KinematicModel.instance_positions` with derivatives, from the local transforms
    (n_parts, 1 + kmax, 3, 4, B) of `KinematicModel.local_transforms`, in the same
    arithmetic (sums left to right, no fastmath): P (B, n_inst, 3), dP (B, n_inst, kmax, 3)."""
    K1 = local.shape[1]
    B = local.shape[4]
    Y = np.empty((3, B))
    for n in range(inst_part.shape[0]):
        p = inst_part[n]
        x0 = inst_local[n, 0]
        x1 = inst_local[n, 1]
        x2 = inst_local[n, 2]
        for k in range(K1):
            for i in range(3):
                for b in range(B):
                    y = local[p, k, i, 0, b] * x0
                    y = y + local[p, k, i, 1, b] * x1
                    y = y + local[p, k, i, 2, b] * x2
                    Y[i, b] = y + local[p, k, i, 3, b]
            for i in range(3):
                r0 = inst_rot[n, i, 0]
                r1 = inst_rot[n, i, 1]
                r2 = inst_rot[n, i, 2]
                for b in range(B):
                    w = r0 * Y[0, b]
                    w = w + r1 * Y[1, b]
                    w = w + r2 * Y[2, b]
                    if k == 0:
                        P[b, n, i] = w + inst_origin[n, i]
                    else:
                        dP[b, n, k - 1, i] = w


@njit(
    "void(float64[:, :, :, ::1], int64[::1], int64[::1], int64[::1], float64[:, :, ::1], "
    "float64[:, :, ::1], int64, float64[:, :, :, ::1])"
)
def body_wrenches(  # pragma: no cover - compiled
    forces: np.ndarray,
    copy_a: np.ndarray,
    copy_b: np.ndarray,
    inst_body: np.ndarray,
    r: np.ndarray,
    extra: np.ndarray,
    C: int,
    w: np.ndarray,
) -> None:
    """The wrench on each body from known pair forces (`statics._structural`): forces
    (B, n_act, 3, K) on copy b of each pair (minus on copy a), extra (B, n_inst, 3) more
    force on each copy in the first C columns, r (B, n_inst, 3) each copy's arm; w (B,
    n_bodies, 6, K) gets sum f and sum r x f over the copies of each body (inst_body
    >= 0; the chassis and the rack, -1, have no equations). w starts zero."""
    B, n_act, _, K = forces.shape
    n_inst = inst_body.shape[0]
    f = np.empty((n_inst, 3, K))
    for b in range(B):
        f[:] = 0.0
        for j in range(n_act):
            ib = copy_b[j]
            ia = copy_a[j]
            for i in range(3):
                for k in range(K):
                    f[ib, i, k] += forces[b, j, i, k]
                    f[ia, i, k] -= forces[b, j, i, k]
        for n in range(n_inst):
            body = inst_body[n]
            if body < 0:
                continue
            for i in range(3):
                for k in range(C):
                    f[n, i, k] += extra[b, n, i]
            r0 = r[b, n, 0]
            r1 = r[b, n, 1]
            r2 = r[b, n, 2]
            for k in range(K):
                f0 = f[n, 0, k]
                f1 = f[n, 1, k]
                f2 = f[n, 2, k]
                w[b, body, 0, k] += f0
                w[b, body, 1, k] += f1
                w[b, body, 2, k] += f2
                w[b, body, 3, k] += r1 * f2 - r2 * f1
                w[b, body, 4, k] += r2 * f0 - r0 * f2
                w[b, body, 5, k] += r0 * f1 - r1 * f0


@njit("void(float64[:, ::1], int64[::1], int64[::1], float64[:, ::1])", fastmath=False)
def gather_add(  # pragma: no cover - compiled
    values: np.ndarray, take: np.ndarray, place: np.ndarray, out: np.ndarray
) -> None:
    """out[b, place[e]] += values[b, take[e]] for every e in order (np.add.at's sums):
    the nonzeros of a `blocks.BatchCOO` into its grouped blocks. out (B, size) starts zero."""
    for b in range(values.shape[0]):
        for e in range(take.shape[0]):
            out[b, place[e]] += values[b, take[e]]


@njit("void(float64[:, :, :, ::1], int64[::1], int64[::1], float64[:, :, :, ::1])", fastmath=False)
def pair_scatter(  # pragma: no cover - compiled
    pair_force: np.ndarray, pair_a: np.ndarray, pair_b: np.ndarray, out: np.ndarray
) -> None:
    """out[:, pair_b[j]] += pair_force[:, j], then out[:, pair_a[j]] -= pair_force[:, j], j in
    order (`statics._instance_forces`' sums, in its order). pair_force (B, n_pairs, 3, C),
    out (B, n_inst, 3, C) starts zero."""
    B, n, _, C = pair_force.shape
    for b in range(B):
        for j in range(n):
            t = pair_b[j]
            for i in range(3):
                for c in range(C):
                    out[b, t, i, c] += pair_force[b, j, i, c]
        for j in range(n):
            t = pair_a[j]
            for i in range(3):
                for c in range(C):
                    out[b, t, i, c] -= pair_force[b, j, i, c]
