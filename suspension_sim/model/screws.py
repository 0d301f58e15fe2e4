"""Screw axes and product-of-exponentials (PoE) transforms.

Two layers, in the spirit of Lynch and Park's *Modern Robotics*:

* small pure numpy functions (`skew`, `exp6`, `rotation_xyz`, `transform`)
  used off the hot path (chassis pose, tests, reporting);
* `chain_template(signature)`: the PoE of a joint chain built symbolically
  with sympy (Rowe eqs. 9-13), differentiated symbolically and lambdified
  once per process into a numpy function. Each body is given a local frame in
  which its joint screws are canonical (through the origin, along a local
  axis), so one template serves every body of that joint class and is
  evaluated for all of them at once (and for a batch of input states).

Units: translations in mm, rotations in rad.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

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
    """R = Rz(yaw) @ Ry(pitch) @ Rx(roll), angles in rad (CONVENTIONS.md)."""
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


def _chain_expressions(signature: Sequence[JointSpec]) -> tuple[list[sp.Symbol], list[sp.Expr]]:
    """Symbols and the flat list [T (3x4 row-major), dT/dtheta_k (3x4) for k]."""
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


def cache_dir() -> Path | None:
    """Folder for cached generated code and models; None when caching is off.

    ``SUSPENSION_SIM_CACHE_DIR`` overrides ``~/.cache/suspension_sim``; set it
    to an empty string to turn caching off.
    """
    env = os.environ.get("SUSPENSION_SIM_CACHE_DIR")
    if env == "":
        return None
    base = Path(env) if env else Path.home() / ".cache" / "suspension_sim"
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return base


def _template_source(signature: Sequence[JointSpec]) -> str:
    """Python source of the lambdified chain function (sympy, cse)."""
    import sympy as sp

    thetas, exprs = _chain_expressions(signature)
    fn = sp.lambdify(thetas, exprs, modules="numpy", cse=True, docstring_limit=0)
    import inspect

    return inspect.getsource(fn)


def _compile(source: str) -> Callable[..., list]:
    namespace: dict[str, object] = {}
    exec(compile(source, "<suspension_sim chain template>", "exec"), vars(np).copy(), namespace)
    funcs = [v for k, v in namespace.items() if callable(v) and not k.startswith("__")]
    return funcs[-1]  # type: ignore[return-value]


@cache
def chain_template(signature: tuple[JointSpec, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """Lambdified PoE of a chain of canonical joints, with its derivatives.

    Returns ``f(theta)`` taking an array ``(n, k, B)`` (n bodies, k joint
    parameters, B input states) and returning ``(n, 1 + k, 3, 4, B)``: the
    local transform's top three rows followed by its derivative with respect
    to each parameter. Built with sympy once per process; the generated code
    is cached on disk (keyed by signature and sympy version) so later
    processes skip the symbolic work.
    """
    from importlib.metadata import version

    key = repr((signature, version("sympy"), 2)).encode()
    cache = cache_dir()
    path = cache / f"chain_{hashlib.sha256(key).hexdigest()[:16]}.py" if cache else None
    source: str | None = None
    if path is not None and path.exists():
        source = path.read_text()
    if source is None:
        source = _template_source(signature)
        if path is not None:
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(source)
            os.replace(tmp, path)
    raw = _compile(source)
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
