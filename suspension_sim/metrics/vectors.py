"""Small vector helpers shared by the metric modules (numpy, last axis = xyz).

All functions broadcast over leading axes. Lengths in mm, angles in rad.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.tolerances import COINCIDENT_LINES_MM, PARALLEL_SIN

Z_UP = np.array([0.0, 0.0, 1.0])
"""Ground normal n (world +Z, docs/conventions.md)."""


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot product over the last axis (3-vectors component by component: on the strided
    views the metrics pass, about twice as fast as einsum)."""
    if a.shape[-1] == 3 and b.shape[-1] == 3:
        return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]
    return np.einsum("...i,...i->...", a, b)


def norm(a: np.ndarray) -> np.ndarray:
    """Euclidean length over the last axis."""
    return np.sqrt(dot(a, a))


def unit(a: np.ndarray) -> np.ndarray:
    """a / |a| over the last axis (NaN for a zero vector)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / norm(a)[..., None]


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product over the last axis (np.cross is slow for a handful of vectors)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def reject(a: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Component of a perpendicular to the unit vector n: a - (a.n) n."""
    return a - dot(a, n)[..., None] * n


def d_unit(a: np.ndarray, da: np.ndarray) -> np.ndarray:
    """Derivative of a/|a| along da: (da - u (u.da)) / |a|."""
    u = unit(a)
    return reject(da, u) / norm(a)[..., None]


def homogeneous_line(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """2-D line through the finite point p (..., 2) and the homogeneous point q (..., 3).

    Returned as (a, b, c) with a^2 + b^2 = 1 (a x + b y + c = 0); NaN if p = q.
    """
    ph = np.concatenate([p, np.ones((*p.shape[:-1], 1))], axis=-1)
    line = cross(ph, q)
    with np.errstate(invalid="ignore", divide="ignore"):
        return line / np.hypot(line[..., 0], line[..., 1])[..., None]


def intersect_lines(
    l1: np.ndarray, l2: np.ndarray, p1: np.ndarray, p2: np.ndarray, eps: float = PARALLEL_SIN
) -> np.ndarray:
    """Intersection (2,) of two normalised 2-D lines l1 (through p1) and l2 (through p2).

    Parallel lines give NaN, unless they coincide (p2 within `COINCIDENT_LINES_MM` of l1): the
    intersection is then taken midway between p1 and p2 on the common line,
    which is the limit of the symmetric case (e.g. the roll centre of
    horizontal, parallel, equal-length arms lies on the ground at the centre).
    """
    x = cross(l1, l2)
    if not np.all(np.isfinite(x)):
        return np.full(2, np.nan)
    if abs(x[2]) > eps:
        return x[:2] / x[2]
    if abs(l1 @ np.append(p2, 1.0)) < COINCIDENT_LINES_MM:
        return (p1 + p2) / 2
    return np.full(2, np.nan)
