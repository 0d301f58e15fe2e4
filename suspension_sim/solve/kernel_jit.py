"""How the kernel functions are compiled: numba's njit with the on-disk cache in this
user's private code folder (`cache.private_code_dir`), numpy's division rules, and no
wrapper a function does not need.

Four decorators: `njit` (called from Python: the entry points), `plain` (the same
without reference counting, for functions that allocate nothing), `inner` and
`inner_plain` (called only from compiled code: no Python wrapper, not cached on their
own, as numba compiles their code into every entry point that calls them).
"""

from __future__ import annotations

from typing import Any

import numba

from suspension_sim.cache import private_code_dir

_CODE_DIR = private_code_dir(f"numba-{numba.__version__}")


CACHED = _CODE_DIR is not None
"""True when compiled code is kept on disk (in a folder only this user can write), so only
the first process compiles; otherwise every process compiles once, in memory."""


def njit(func: Any, nrt: bool = True, python: bool = True) -> Any:
    """numba.njit with the on-disk cache in our private folder, when there is one.

    error_model="numpy": a division by zero gives inf or NaN (which the callers test
    with isfinite and report as a non-finite residual) instead of raising from inside
    compiled code; without the zero checks on every division a batch solve is ~10 %
    faster, with bit-identical results. No C-callable wrapper (nothing takes these
    functions' addresses), and none for Python either when python=False (`inner`):
    each wrapper unboxes every table array and costs compile time, ~10 % of it."""
    options: dict[str, Any] = {
        "cache": CACHED and python,
        "_nrt": nrt,
        "error_model": "numpy",
        "no_cfunc_wrapper": True,
        "no_cpython_wrapper": not python,
    }
    if not CACHED:
        return numba.njit(**options)(func)
    config: Any = numba.config
    previous = config.CACHE_DIR
    config.CACHE_DIR = str(_CODE_DIR)  # read once, when the function's cache locator is made
    try:
        return numba.njit(**options)(func)
    finally:
        config.CACHE_DIR = previous


def plain(func: Any) -> Any:
    """`njit` without numba's reference counting, for the inner functions that allocate
    nothing: every array they take out of the tables' tuples (or slice) would otherwise
    cost an atomic increment and decrement per call, which was about a quarter of a
    batch solve's time."""
    return njit(func, nrt=False)


def inner(func: Any) -> Any:
    """`njit` for a function only compiled code calls (no Python wrapper)."""
    return njit(func, python=False)


def inner_plain(func: Any) -> Any:
    """`plain` for a function only compiled code calls (no Python wrapper)."""
    return njit(func, nrt=False, python=False)
