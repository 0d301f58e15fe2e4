"""Small dense linear algebra for the kernel, on arrays it owns: Householder QR of a
transposed Jacobian (tall blocks from redundant joints too), Gauss-Jordan inverses,
LU with partial pivoting, and vector helpers. Each factorisation returns its smallest
pivot over the largest column norm, the blocks' singularity test.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.solve.kernel_jit import inner, inner_plain


@inner_plain
def qr_factor(Ft, m, n, tau):
    """Householder QR of J (m >= n) given as Ft = J^T (n rows of m), in place.

    Afterwards R[i, k] = Ft[k, i] (i <= k) and the Householder vectors are
    stored after the diagonal of each row. Returns min |R_ii| / max column
    norm (0 for a rank-deficient block).
    """
    big = 0.0
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += Ft[j, i] * Ft[j, i]
        big = max(big, np.sqrt(s))
    small = np.inf
    for j in range(n):
        norm = 0.0
        for i in range(j, m):
            norm += Ft[j, i] * Ft[j, i]
        norm = np.sqrt(norm)
        if norm == 0.0:
            tau[j] = 0.0
            small = 0.0
            continue
        alpha = -norm if Ft[j, j] >= 0.0 else norm
        v0 = Ft[j, j] - alpha
        # v = (1, Ft[j, j+1:] / v0); tau = -v0 / alpha
        inv = 1.0 / v0
        for i in range(j + 1, m):
            Ft[j, i] *= inv
        tj = -v0 / alpha
        tau[j] = tj
        Ft[j, j] = alpha
        small = min(small, abs(alpha))
        for k in range(j + 1, n):
            s = Ft[k, j]
            for i in range(j + 1, m):
                s += Ft[j, i] * Ft[k, i]
            s *= tj
            Ft[k, j] -= s
            for i in range(j + 1, m):
                Ft[k, i] -= s * Ft[j, i]
    if big == 0.0:
        return 0.0
    return small / big


@inner_plain
def apply_qt(Ft, tau, m, n, y):
    """y <- Q^T y for the factorisation in Ft (y has m entries)."""
    for j in range(n):
        s = y[j]
        for i in range(j + 1, m):
            s += Ft[j, i] * y[i]
        s *= tau[j]
        y[j] -= s
        for i in range(j + 1, m):
            y[i] -= s * Ft[j, i]


@inner_plain
def solve_r(Ft, n, y, out):
    """out <- R^-1 y[:n] (back substitution by columns of R = rows of Ft)."""
    for i in range(n):
        out[i] = y[i]
    for k in range(n - 1, -1, -1):
        out[k] /= Ft[k, k]
        v = out[k]
        for i in range(k):
            out[i] -= Ft[k, i] * v


@inner_plain
def mul_r(Ft, n, x, out):
    """out <- R x (n entries)."""
    for i in range(n):
        out[i] = 0.0
    for k in range(n):
        v = x[k]
        for i in range(k + 1):
            out[i] += Ft[k, i] * v


@inner_plain
def copy_into(dst, src):
    """dst[:] = src for two vectors of one length (a slice assignment would compile
    numba's broadcasting, with its error messages, ~3 s)."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@inner_plain
def max_abs(v, m):
    out = 0.0
    for i in range(m):
        a = abs(v[i])
        if not a <= out:  # also catches NaN
            out = a
    return out


@inner_plain
def sum_sq(v, m):
    out = 0.0
    for i in range(m):
        out += v[i] * v[i]
    return out


@inner_plain
def invert(Jt, n, piv, B):
    """B <- J^-1 for a square J given as Jt = J^T (n x n): Gauss-Jordan in place with
    partial pivoting (n^3 flops; the row swaps are undone as column swaps at the end).
    piv: integer scratch of length >= n. Returns min |pivot| / max column norm (0 when
    singular)."""
    big = 0.0
    for k in range(n):
        s = 0.0
        for i in range(n):
            s += Jt[k, i] * Jt[k, i]
            B[i, k] = Jt[k, i]
        big = max(big, np.sqrt(s))
    small = np.inf
    for c in range(n):
        p = c
        best = abs(B[c, c])
        for i in range(c + 1, n):
            if abs(B[i, c]) > best:
                best = abs(B[i, c])
                p = i
        if best == 0.0 or not np.isfinite(best):
            return 0.0
        piv[c] = p
        if p != c:
            for k in range(n):
                t = B[c, k]
                B[c, k] = B[p, k]
                B[p, k] = t
        small = min(small, best)
        inv = 1.0 / B[c, c]
        B[c, c] = 1.0
        for k in range(n):
            B[c, k] *= inv
        for i in range(n):
            if i == c:
                continue
            f = B[i, c]
            if f == 0.0:
                continue
            B[i, c] = 0.0
            for k in range(n):
                B[i, k] -= f * B[c, k]
    for c in range(n - 1, -1, -1):
        p = piv[c]
        if p != c:
            for i in range(n):
                t = B[i, c]
                B[i, c] = B[i, p]
                B[i, p] = t
    if big == 0.0:
        return 0.0
    return small / big


@inner
def small_inverse(M, k, out):
    """out <- M^-1 for a small k x k M (Gauss-Jordan, partial pivoting). Returns
    min |pivot| / max |M| (0 when singular)."""
    big = 0.0
    for i in range(k):
        for c in range(k):
            big = max(big, abs(M[i, c]))
    A = M[:k, :k].copy()
    for i in range(k):
        for c in range(k):
            out[i, c] = 1.0 if i == c else 0.0
    small = np.inf
    for c in range(k):
        p = c
        for i in range(c + 1, k):
            if abs(A[i, c]) > abs(A[p, c]):
                p = i
        piv = A[p, c]
        if piv == 0.0 or not np.isfinite(piv):
            return 0.0
        small = min(small, abs(piv))
        for x in range(k):
            t = A[c, x]
            A[c, x] = A[p, x]
            A[p, x] = t
            t = out[c, x]
            out[c, x] = out[p, x]
            out[p, x] = t
        inv = 1.0 / piv
        for x in range(k):
            A[c, x] *= inv
            out[c, x] *= inv
        for i in range(k):
            if i == c:
                continue
            f = A[i, c]
            if f == 0.0:
                continue
            for x in range(k):
                A[i, x] -= f * A[c, x]
                out[i, x] -= f * out[c, x]
    if big == 0.0:
        return 0.0
    return small / big


@inner_plain
def lu_factor(Jt, n, LU, piv):
    """LU <- the LU factorisation with partial pivoting of the square J given as Jt = J^T
    (n^3/3 flops, a third of `invert`). Returns min |pivot| / max column norm (0 when
    singular)."""
    big = 0.0
    for c in range(n):
        s = 0.0
        for i in range(n):
            v = Jt[c, i]
            s += v * v
            LU[i, c] = v
        big = max(big, np.sqrt(s))
    small = np.inf
    for c in range(n):
        p = c
        best = abs(LU[c, c])
        for i in range(c + 1, n):
            if abs(LU[i, c]) > best:
                best = abs(LU[i, c])
                p = i
        if best == 0.0 or not np.isfinite(best):
            return 0.0
        piv[c] = p
        if p != c:
            for x in range(n):
                t = LU[c, x]
                LU[c, x] = LU[p, x]
                LU[p, x] = t
        small = min(small, best)
        inv = 1.0 / LU[c, c]
        for i in range(c + 1, n):
            f = LU[i, c] * inv
            LU[i, c] = f
            if f != 0.0:
                for x in range(c + 1, n):
                    LU[i, x] -= f * LU[c, x]
    if big == 0.0:
        return 0.0
    return small / big


@inner_plain
def lu_solve(LU, piv, n, out):
    """out <- J^-1 out for the factorisation of `lu_factor`."""
    for c in range(n):
        p = piv[c]
        if p != c:
            t = out[c]
            out[c] = out[p]
            out[p] = t
    for i in range(n):
        s = out[i]
        for x in range(i):
            s -= LU[i, x] * out[x]
        out[i] = s
    for i in range(n - 1, -1, -1):
        s = out[i]
        for x in range(i + 1, n):
            s -= LU[i, x] * out[x]
        out[i] = s / LU[i, i]
