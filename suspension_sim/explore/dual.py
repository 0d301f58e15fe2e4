"""Forward-mode derivatives: an array that carries its exact derivatives along N directions.

`Dual(val, der)` holds a value array ``val`` (shape S) and its derivatives ``der``
(shape (N, *S)): ``der[j]`` is d val / d (direction j). numpy's dispatch protocols
(``__array_ufunc__``, ``__array_function__``) let the project's own metric formulas
(`suspension_sim.metrics.wheel`, `rates`, `centres`, ...) run unchanged on Duals, so a
derivative is the exact chain rule through the very formula that gives the value: no
finite differences. Every supported operation applies its textbook derivative rule;
anything else raises TypeError naming the numpy function, so an unsupported path fails
loudly instead of dropping a derivative.

Used by `suspension_sim.explore.sensitivity` (hardpoint sensitivities).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Array = np.ndarray

DualArray = Any
"""A `Dual` where it flows through numpy-typed code (the metric formulas are annotated
with ``np.ndarray`` and take Duals through numpy's dispatch, which the type checker
cannot see)."""


def value(x: Any) -> Any:
    """The value part of a Dual, or x itself."""
    return x.val if isinstance(x, Dual) else x


class Dual:
    """An array value with exact derivatives along N directions (leading axis of `der`)."""

    __array_priority__ = 1000.0

    def __init__(self, val: Any, der: Array) -> None:
        self.val = np.asarray(val, dtype=float)
        self.der = np.asarray(der, dtype=float)
        if self.der.shape[1:] != self.val.shape:
            self.der = np.broadcast_to(self.der, (self.der.shape[0], *self.val.shape)).copy()

    # -- construction -------------------------------------------------------------------
    @staticmethod
    def constant(val: Any, n: int) -> Dual:
        v = np.array(val, dtype=float)  # a copy: it may be written into
        return Dual(v, np.zeros((n, *v.shape)))

    @property
    def n(self) -> int:
        return int(self.der.shape[0])

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.val.shape)

    @property
    def ndim(self) -> int:
        return int(self.val.ndim)

    @property
    def size(self) -> int:
        return int(self.val.size)

    def __len__(self) -> int:
        return len(self.val)

    def __repr__(self) -> str:
        return f"Dual(shape={self.shape}, directions={self.n})"

    def __array__(self, *args: Any, **kwargs: Any) -> Array:
        raise TypeError("a Dual cannot be turned into a plain array (its derivative would be lost)")

    # -- shape ----------------------------------------------------------------------------
    def _der_key(self, key: Any) -> tuple[Any, ...]:
        """The key spelt out over every value axis, then a full slice for the trailing
        direction axis (`der` is indexed with that axis moved last, so numpy's rules for
        where advanced-index axes go act on the value axes alone)."""
        parts = [value(k) for k in key] if isinstance(key, tuple) else [value(key)]
        used = 0
        for k in parts:
            if k is None or k is Ellipsis:
                continue
            arr = np.asarray(k)
            used += arr.ndim if arr.dtype == bool else 1
        fill = [slice(None)] * (self.ndim - used)
        if any(k is Ellipsis for k in parts):
            at = next(i for i, k in enumerate(parts) if k is Ellipsis)
            parts = parts[:at] + fill + parts[at + 1 :]
        else:
            parts = parts + fill
        return (*parts, slice(None))

    def __getitem__(self, key: Any) -> Dual:
        k = self._der_key(key)
        val = self.val[k[:-1]]
        return Dual(val, np.moveaxis(np.moveaxis(self.der, 0, -1)[k], -1, 0))

    def __setitem__(self, key: Any, item: Any) -> None:
        k = self._der_key(key)
        self.val[k[:-1]] = value(item)
        target = np.moveaxis(self.der, 0, -1)  # a view: writes go to self.der
        target[k] = np.moveaxis(item.der, 0, -1) if isinstance(item, Dual) else 0.0

    def reshape(self, *shape: Any) -> Dual:
        if len(shape) == 1 and isinstance(shape[0], tuple | list):
            shape = tuple(shape[0])
        val = self.val.reshape(shape)
        return Dual(val, self.der.reshape((self.n, *val.shape)))

    def transpose(self, *axes: Any) -> Dual:
        if len(axes) == 1 and isinstance(axes[0], tuple | list):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(range(self.ndim))[::-1]
        axes = tuple(a % self.ndim for a in axes)
        return Dual(self.val.transpose(axes), self.der.transpose(0, *(a + 1 for a in axes)))

    @property
    def T(self) -> Dual:
        return self.transpose()

    def copy(self) -> Dual:
        return Dual(self.val.copy(), self.der.copy())

    def sum(self, axis: Any = None) -> Dual:
        return _sum(self, axis)

    # -- arithmetic -------------------------------------------------------------------------
    def __add__(self, o: Any) -> Dual:
        return np.add(self, o)

    __radd__ = __add__

    def __sub__(self, o: Any) -> Dual:
        return np.subtract(self, o)

    def __rsub__(self, o: Any) -> Dual:
        return np.subtract(o, self)

    def __mul__(self, o: Any) -> Dual:
        return np.multiply(self, o)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> Dual:
        return np.true_divide(self, o)

    def __rtruediv__(self, o: Any) -> Dual:
        return np.true_divide(o, self)

    def __matmul__(self, o: Any) -> Dual:
        return np.matmul(self, o)

    def __rmatmul__(self, o: Any) -> Dual:
        return np.matmul(o, self)

    def __neg__(self) -> Dual:
        return Dual(-self.val, -self.der)

    def __pos__(self) -> Dual:
        return self

    def __pow__(self, k: Any) -> Dual:
        if isinstance(k, Dual):
            raise TypeError("Dual ** Dual is not supported")
        return Dual(self.val**k, k * self.val ** (k - 1) * self.der)

    def __lt__(self, o: Any) -> Array:
        return self.val < value(o)

    def __le__(self, o: Any) -> Array:
        return self.val <= value(o)

    def __gt__(self, o: Any) -> Array:
        return self.val > value(o)

    def __ge__(self, o: Any) -> Array:
        return self.val >= value(o)

    def __eq__(self, o: Any) -> Array:  # type: ignore[override]
        return self.val == value(o)

    def __ne__(self, o: Any) -> Array:  # type: ignore[override]
        return self.val != value(o)

    __hash__ = None  # type: ignore[assignment]

    # -- numpy dispatch --------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs.get("out") is not None:
            raise TypeError(f"Dual: numpy {ufunc.__name__}.{method} is not supported")
        kwargs.pop("out", None)
        if kwargs:
            raise TypeError(f"Dual: numpy {ufunc.__name__} with {sorted(kwargs)} is not supported")
        rule = _UFUNCS.get(ufunc.__name__)
        if rule is None:
            raise TypeError(f"Dual: numpy {ufunc.__name__} is not supported")
        return rule(*inputs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        rule = _FUNCTIONS.get(func.__name__)
        if rule is None:
            raise TypeError(f"Dual: numpy.{func.__name__} is not supported")
        return rule(*args, **kwargs)


# -- helpers ---------------------------------------------------------------------------------
def _n(*xs: Any) -> int:
    for x in xs:
        if isinstance(x, Dual):
            return x.n
    raise TypeError("no Dual among the operands")


def _der(x: Any, ndim: int, n: int) -> Array | None:
    """Derivative of x laid out for an output of `ndim` value dimensions, or None (constant)."""
    if not isinstance(x, Dual):
        return None
    return x.der.reshape((n, *(1,) * (ndim - x.ndim), *x.shape))


def _out_ndim(*xs: Any) -> int:
    return max(np.ndim(value(x)) for x in xs)


def _unary(f: Callable[[Array], Array], df: Callable[[Array], Array]) -> Callable[[Dual], Dual]:
    def rule(x: Dual) -> Dual:
        with np.errstate(divide="ignore", invalid="ignore"):  # NaN in, NaN out (as numpy)
            return Dual(f(x.val), df(x.val) * x.der)

    return rule


def _plain(f: Callable[..., Any]) -> Callable[..., Any]:
    """A function of the values only (comparisons, signs, tests): a plain array out."""

    def rule(*xs: Any) -> Any:
        return f(*(value(x) for x in xs))

    return rule


def _add(a: Any, b: Any, sign: float = 1.0) -> Dual:
    n, nd = _n(a, b), _out_ndim(a, b)
    val = value(a) + sign * value(b)
    da, db = _der(a, nd, n), _der(b, nd, n)
    if da is None:
        der = sign * db  # type: ignore[operator]
    elif db is None:
        der = da
    else:
        der = da + sign * db
    return Dual(val, np.broadcast_to(der, (n, *np.shape(val))))


def _mul(a: Any, b: Any) -> Dual:
    n, nd = _n(a, b), _out_ndim(a, b)
    va, vb = value(a), value(b)
    da, db = _der(a, nd, n), _der(b, nd, n)
    val = va * vb
    der = 0.0
    if da is not None:
        der = der + da * vb
    if db is not None:
        der = der + va * db
    return Dual(val, np.broadcast_to(der, (n, *np.shape(val))))


def _div(a: Any, b: Any) -> Dual:
    n, nd = _n(a, b), _out_ndim(a, b)
    va, vb = value(a), value(b)
    da, db = _der(a, nd, n), _der(b, nd, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = va / vb
        der = 0.0
        if da is not None:
            der = der + da / vb
        if db is not None:
            der = der - val * db / vb
    return Dual(val, np.broadcast_to(der, (n, *np.shape(val))))


def _atan2(y: Any, x: Any) -> Dual:
    n, nd = _n(y, x), _out_ndim(y, x)
    vy, vx = value(y), value(x)
    dy, dx = _der(y, nd, n), _der(x, nd, n)
    r2 = vx * vx + vy * vy
    der = 0.0
    if dy is not None:
        der = der + vx * dy / r2
    if dx is not None:
        der = der - vy * dx / r2
    val = np.arctan2(vy, vx)
    return Dual(val, np.broadcast_to(der, (n, *np.shape(val))))


def _hypot(a: Any, b: Any) -> Dual:
    n, nd = _n(a, b), _out_ndim(a, b)
    va, vb = value(a), value(b)
    val = np.hypot(va, vb)
    der = 0.0
    for v, d in ((va, _der(a, nd, n)), (vb, _der(b, nd, n))):
        if d is not None:
            der = der + v * d / val
    return Dual(val, np.broadcast_to(der, (n, *np.shape(val))))


def _matmul(a: Any, b: Any) -> Dual:
    va, vb = value(a), value(b)
    if np.ndim(va) < 2 or np.ndim(vb) < 2:
        raise TypeError("Dual: matmul needs operands of two or more dimensions")
    val = va @ vb
    n = _n(a, b)
    der = np.zeros((n, *val.shape))
    if isinstance(a, Dual):
        der = der + a.der @ vb
    if isinstance(b, Dual):
        der = der + va @ b.der
    return Dual(val, der)


def _maximum(a: Any, b: Any) -> Dual:
    return _where(value(a) >= value(b), a, b)


def _minimum(a: Any, b: Any) -> Dual:
    return _where(value(a) <= value(b), a, b)


_UFUNCS: dict[str, Callable[..., Any]] = {
    "add": _add,
    "subtract": lambda a, b: _add(a, b, -1.0),
    "multiply": _mul,
    "true_divide": _div,
    "divide": _div,
    "negative": lambda x: -x,
    "positive": lambda x: x,
    "sqrt": _unary(np.sqrt, lambda v: 0.5 / np.sqrt(v)),
    "square": _unary(np.square, lambda v: 2.0 * v),
    "sin": _unary(np.sin, np.cos),
    "cos": _unary(np.cos, lambda v: -np.sin(v)),
    "tan": _unary(np.tan, lambda v: 1.0 / np.cos(v) ** 2),
    "arcsin": _unary(np.arcsin, lambda v: 1.0 / np.sqrt(1.0 - v * v)),
    "arccos": _unary(np.arccos, lambda v: -1.0 / np.sqrt(1.0 - v * v)),
    "arctan": _unary(np.arctan, lambda v: 1.0 / (1.0 + v * v)),
    "absolute": _unary(np.abs, np.sign),
    "degrees": _unary(np.degrees, lambda v: np.full_like(v, 180.0 / np.pi)),
    "rad2deg": _unary(np.degrees, lambda v: np.full_like(v, 180.0 / np.pi)),
    "radians": _unary(np.radians, lambda v: np.full_like(v, np.pi / 180.0)),
    "arctan2": _atan2,
    "hypot": _hypot,
    "matmul": _matmul,
    "maximum": _maximum,
    "minimum": _minimum,
    "sign": _plain(np.sign),
    "isfinite": _plain(np.isfinite),
    "isnan": _plain(np.isnan),
    "isinf": _plain(np.isinf),
    "greater": _plain(np.greater),
    "greater_equal": _plain(np.greater_equal),
    "less": _plain(np.less),
    "less_equal": _plain(np.less_equal),
    "equal": _plain(np.equal),
    "not_equal": _plain(np.not_equal),
}


# -- numpy functions ---------------------------------------------------------------------------
def _as_dual(x: Any, n: int) -> Dual:
    return x if isinstance(x, Dual) else Dual.constant(x, n)


def _stack(arrays: Sequence[Any], axis: int = 0, **kw: Any) -> Dual:
    n = _n(*arrays)
    ds = [_as_dual(a, n) for a in arrays]
    shape = np.broadcast_shapes(*(d.shape for d in ds))
    ds = [_broadcast_to(d, shape) for d in ds]
    val = np.stack([d.val for d in ds], axis=axis)
    ax = axis if axis < 0 else axis + 1
    return Dual(val, np.stack([d.der for d in ds], axis=ax))


def _concatenate(arrays: Sequence[Any], axis: int = 0, **kw: Any) -> Dual:
    n = _n(*arrays)
    ds = [_as_dual(a, n) for a in arrays]
    val = np.concatenate([d.val for d in ds], axis=axis)
    ax = axis if axis < 0 else axis + 1
    return Dual(val, np.concatenate([d.der for d in ds], axis=ax))


def _broadcast_to(x: Any, shape: Any, **kw: Any) -> Any:
    if not isinstance(x, Dual):
        return np.broadcast_to(x, shape)
    shape = tuple(shape) if isinstance(shape, tuple | list) else (shape,)
    return Dual(np.broadcast_to(x.val, shape), np.broadcast_to(x.der, (x.n, *shape)))


def _where(cond: Any, a: Any, b: Any) -> Dual:
    cond = value(cond)
    n = _n(a, b)
    nd = _out_ndim(cond, a, b)
    val = np.where(cond, value(a), value(b))
    zero = np.zeros((1,) * (nd + 1))
    da = _der(a, nd, n)
    db = _der(b, nd, n)
    der = np.where(cond, zero if da is None else da, zero if db is None else db)
    return Dual(val, np.broadcast_to(der, (n, *val.shape)))


def _clip(x: Dual, lo: Any = None, hi: Any = None, **kw: Any) -> Dual:
    val = np.clip(x.val, lo, hi)
    inside = val == x.val
    return Dual(val, np.where(inside, x.der, 0.0))


def _sum(x: Dual, axis: Any = None, **kw: Any) -> Dual:
    if axis is None:
        return Dual(x.val.sum(), x.der.reshape(x.n, -1).sum(axis=1))
    axes = axis if isinstance(axis, tuple) else (axis,)
    axes = tuple(a % x.ndim for a in axes)
    return Dual(x.val.sum(axis=axes), x.der.sum(axis=tuple(a + 1 for a in axes)))


def _einsum(subscripts: str, *operands: Any, **kw: Any) -> Dual:
    if "->" not in subscripts:
        raise TypeError("Dual: einsum needs an explicit output ('->')")
    ins, out = subscripts.replace(" ", "").split("->")
    terms = ins.split(",")
    free = next(c for c in string.ascii_letters if c not in subscripts)
    vals = [value(o) for o in operands]
    val = np.einsum(subscripts, *vals)
    n = _n(*operands)
    der = np.zeros((n, *np.shape(val)))
    for i, o in enumerate(operands):
        if not isinstance(o, Dual):
            continue
        sub = ",".join(free + t if j == i else t for j, t in enumerate(terms))
        args = [o.der if j == i else vals[j] for j in range(len(operands))]
        der = der + np.einsum(f"{sub}->{free}{out}", *args)
    return Dual(val, der)


def _solve(a: Any, b: Any) -> Dual:
    va, vb = value(a), value(b)
    x = np.linalg.solve(va, vb)
    n = _n(a, b)
    rhs = np.zeros((n, *x.shape))
    if isinstance(b, Dual):
        rhs = rhs + b.der
    if isinstance(a, Dual):
        rhs = rhs - a.der @ x
    return Dual(x, np.linalg.solve(va, rhs))


def _full_like(x: Any, fill: Any, **kw: Any) -> Array:
    return np.full_like(value(x), fill, **kw)


def _zeros_like(x: Any, **kw: Any) -> Array:
    return np.zeros_like(value(x), **kw)


def _ones_like(x: Any, **kw: Any) -> Array:
    return np.ones_like(value(x), **kw)


def _any(x: Any, *a: Any, **kw: Any) -> Any:
    return np.any(value(x), *a, **kw)


def _all(x: Any, *a: Any, **kw: Any) -> Any:
    return np.all(value(x), *a, **kw)


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(np.shape(value(x)))


def _ndim(x: Any) -> int:
    return int(np.ndim(value(x)))


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "stack": _stack,
    "concatenate": _concatenate,
    "broadcast_to": _broadcast_to,
    "where": _where,
    "clip": _clip,
    "sum": _sum,
    "einsum": _einsum,
    "solve": _solve,
    "full_like": _full_like,
    "zeros_like": _zeros_like,
    "ones_like": _ones_like,
    "any": _any,
    "all": _all,
    "shape": _shape,
    "ndim": _ndim,
    "sign": _plain(np.sign),
    "isfinite": _plain(np.isfinite),
    "abs": _UFUNCS["absolute"],
}


def lstsq(A: Any, b: Any) -> Any:
    """Least-squares solution of A x = b (A of full column rank), with exact derivatives.

    x = (A^T A)^-1 A^T b; dx = (A^T A)^-1 (dA^T (b - A x) + A^T (db - dA x)).
    A (m, k), b (m, c); Duals or plain arrays.
    """
    va, vb = value(A), value(b)
    x, *_ = np.linalg.lstsq(va, vb, rcond=None)
    if not isinstance(A, Dual) and not isinstance(b, Dual):
        return x
    n = _n(A, b)
    resid = vb - va @ x
    rhs = np.zeros((n, va.shape[1], x.shape[1]))
    if isinstance(A, Dual):
        rhs = rhs + np.swapaxes(A.der, 1, 2) @ resid - va.T @ (A.der @ x)
    if isinstance(b, Dual):
        rhs = rhs + va.T @ b.der
    k, c = x.shape
    flat = rhs.transpose(1, 0, 2).reshape(k, n * c)  # one factorisation for every direction
    dx = np.linalg.solve(va.T @ va, flat).reshape(k, n, c).transpose(1, 0, 2)
    return Dual(x, dx)
