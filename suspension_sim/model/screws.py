"""Screw axes and product-of-exponentials (PoE) transforms.

Two layers, in the spirit of Lynch and Park's *Modern Robotics*:

* small pure numpy functions: `rotation_xyz`, `transform` and
  `frame_from_axis` (chassis pose, body frames), and `skew`, `exp6`,
  `revolute_screw`, `prismatic_screw` (Rowe eq. 13 one screw at a time: the
  independent reference the chain templates are tested against);
* `chain_template(signature)`: the PoE of a joint chain built symbolically
  with sympy (Rowe eqs. 9-13) and differentiated symbolically. Each body is
  given a local frame in which its joint screws are canonical (through the
  origin, along a local axis), so one template serves every body of that
  joint class and is evaluated for all of them at once (and for a batch of
  input states). The joint classes in use are shipped pre-generated in
  `templates_generated` (scripts/generate_templates.py), so sympy is not
  even imported at run time; any other chain is generated in-process.

Units: translations in mm, rotations in rad.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.model.templates_generated import TEMPLATES

if TYPE_CHECKING:  # pragma: no cover
    import sympy as sp

JointSpec = tuple[str, str]
"""('R' | 'P', axis) with axis one of 'x', 'y', 'z', '-z' in the body's local frame."""

_AXES: dict[str, tuple[int, int, int]] = {
    "x": (1, 0, 0),
    "y": (0, 1, 0),
    "z": (0, 0, 1),
    "-z": (0, 0, -1),
}


# -- numpy building blocks ---------------------------------------------------
def skew(w: np.ndarray) -> np.ndarray:
    """3x3 skew-symmetric matrix [w] with [w] v = w x v."""
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def exp6(screw: np.ndarray, theta: float) -> np.ndarray:
    """4x4 transform exp([S] theta) of a screw S = (w, v) (Rowe eq. 13).

    For |w| = 1 a rotation of theta rad about the axis (pitch v); for w = 0 a
    translation of theta (mm) along v.
    """
    w = np.asarray(screw[:3], dtype=float)
    v = np.asarray(screw[3:], dtype=float)
    out = np.eye(4)
    if np.allclose(w, 0.0):
        out[:3, 3] = v * theta
        return out
    W = skew(w)
    out[:3, :3] = np.eye(3) + np.sin(theta) * W + (1.0 - np.cos(theta)) * W @ W
    G = np.eye(3) * theta + (1.0 - np.cos(theta)) * W + (theta - np.sin(theta)) * W @ W
    out[:3, 3] = G @ v
    return out


def revolute_screw(axis: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Screw of a pure rotation about a unit axis through a point: (w, -w x q)."""
    w = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    return np.concatenate([w, np.cross(-w, np.asarray(point, dtype=float))])


def prismatic_screw(axis: np.ndarray) -> np.ndarray:
    """Screw of a pure translation along a unit axis: (0, v)."""
    v = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    return np.concatenate([np.zeros(3), v])


def rotation_xyz(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """R = Rz(yaw) @ Ry(pitch) @ Rx(roll), angles in rad (docs/conventions.md)."""
    cr, sr = np.cos(roll), np.sin(roll)
    cp, sp_ = np.cos(pitch), np.sin(pitch)
    cy, sy = np.cos(yaw), np.sin(yaw)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp_], [0, 1, 0], [-sp_, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def transform(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    """4x4 homogeneous transform from a 3x3 rotation and a translation (mm)."""
    out = np.eye(4)
    out[:3, :3] = rotation
    out[:3, 3] = translation
    return out


def frame_from_axis(z_axis: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """A right-handed 4x4 frame at `origin` whose local z is `z_axis`.

    The local x axis is chosen deterministically (perpendicular to z and to
    the model axis least aligned with z), unlike Rowe's random choice, so the
    same workbook always gives the same parametrisation.
    """
    z = np.asarray(z_axis, dtype=float)
    z = z / np.linalg.norm(z)
    helper = np.eye(3)[int(np.argmin(np.abs(z)))]
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return transform(np.column_stack([x, y, z]), np.asarray(origin, dtype=float))


def frames_from_axes(z_axes: np.ndarray, origins: np.ndarray) -> np.ndarray:
    """`frame_from_axis` of many axes at once: z_axes and origins (k, 3), mm, give the
    frames (k, 4, 4), each the one `frame_from_axis` gives for its row (the same rule
    and operations, vectorised; used where many bodies are re-framed per design). The
    norms and cross products are written out as `np.linalg.norm(.., axis=1)` and
    `np.cross` compute them (the same products, sums and order: the same numbers), at a
    fraction of their call cost."""
    z = np.asarray(z_axes, dtype=float).reshape(-1, 3)
    z = z / np.sqrt(np.add.reduce(z * z, axis=1))[:, None]
    x = _cross(_EYE3[np.argmin(np.abs(z), axis=1)], z)
    x /= np.sqrt(np.add.reduce(x * x, axis=1))[:, None]
    out = np.zeros((len(z), 4, 4))
    out[:, :3, 0] = x
    out[:, :3, 1] = _cross(z, x)
    out[:, :3, 2] = z
    out[:, :3, 3] = np.asarray(origins, dtype=float).reshape(-1, 3)
    out[:, 3, 3] = 1.0
    return out


_EYE3 = np.eye(3)
_EYE3.flags.writeable = False
_A = np.array([1, 2, 0, 2, 0, 1])
_B = np.array([2, 0, 1, 1, 2, 0])


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`np.cross` of row vectors (k, 3): a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0,
    each product rounded, then the difference (as `np.cross` does)."""
    products = a[:, _A] * b[:, _B]
    return products[:, :3] - products[:, 3:]


# -- symbolic chain templates -------------------------------------------------
def _sym_exp(kind: str, axis: str, theta: sp.Symbol) -> sp.Matrix:
    """Symbolic exp([S] theta) for a canonical screw through the local origin."""
    import sympy as sp

    a = sp.Matrix(_AXES[axis])
    if kind == "P":
        out = sp.eye(4)
        out[:3, 3] = a * theta
        return out
    W = sp.Matrix([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    R = sp.eye(3) + sp.sin(theta) * W + (1 - sp.cos(theta)) * W * W
    out = sp.eye(4)
    out[:3, :3] = R
    # v = -w x q = 0 for a screw through the origin: no translation part.
    return out


def chain_expressions(signature: Sequence[JointSpec]) -> tuple[list[sp.Symbol], list[sp.Expr]]:
    """Symbols t0.. and the flat list [T (3x4 row-major), dT/dt_k (3x4) for each k]."""
    import sympy as sp

    thetas = list(sp.symbols(f"t0:{len(signature)}", real=True))
    T = sp.eye(4)
    for (kind, axis), th in zip(signature, thetas, strict=True):
        T = T * _sym_exp(kind, axis, th)
    top = T[:3, :]
    exprs: list[sp.Expr] = list(top)
    for th in thetas:
        exprs.extend(sp.diff(e, th) for e in top)
    return thetas, [sp.simplify(e) for e in exprs]


def lambdify_chain(signature: Sequence[JointSpec]) -> Callable[..., list[Any]]:
    """Generate the raw chain function with sympy, in this process (about 0.2-0.5 s).

    ``f(t0, t1, ...)`` (rad for R joints, mm for P joints; scalars or arrays)
    returns the flat list of `chain_expressions`. Used for signatures that
    `templates_generated` does not ship, and by scripts/generate_templates.py.
    Nothing is written to or read from disk.
    """
    import sympy as sp

    thetas, exprs = chain_expressions(signature)
    return sp.lambdify(thetas, exprs, modules="numpy", cse=True, docstring_limit=0)


@cache
def chain_template(signature: tuple[JointSpec, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """The PoE of a chain of canonical joints, with its derivatives.

    Returns ``f(theta)`` taking an array ``(n, k, B)`` (n bodies, k joint
    parameters in rad or mm, B input states) and returning
    ``(n, 1 + k, 3, 4, B)``: the local transform's top three rows followed by
    its derivative with respect to each parameter. The joint classes of
    `topology.SIGNATURES` are shipped pre-generated (`templates_generated`);
    any other signature is generated with sympy once per process.
    """
    raw = TEMPLATES.get(signature) or lambdify_chain(signature)
    k = len(signature)

    def evaluate(theta: np.ndarray) -> np.ndarray:
        n, _, batch = theta.shape
        values = raw(*(theta[:, j, :] for j in range(k)))
        out = np.empty((n, 1 + k, 3, 4, batch))
        flat = out.reshape(n, (1 + k) * 12, batch)
        for i, v in enumerate(values):
            flat[:, i, :] = v
        return out

    return evaluate
