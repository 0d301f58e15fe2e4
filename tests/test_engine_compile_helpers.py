"""Helpers written to cut the kernels' compile time, against what they replace.

`loads.blocks_kernel._descending` stands in for ``np.argsort(-s, kind="mergesort")``
(numba's mergesort alone cost ~0.7 s of compile time): run as plain Python here (its
``py_func``), on random values with ties and NaN, it gives numpy's order exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from suspension_sim.loads import blocks_kernel
from suspension_sim.solve import warmup_codegen


def test_descending_is_numpys_stable_argsort(monkeypatch: pytest.MonkeyPatch) -> None:
    sort = blocks_kernel._descending.py_func
    monkeypatch.setitem(sort.__globals__, "_before", blocks_kernel._before.py_func)
    rng = np.random.default_rng(7)
    for _ in range(2000):
        c = int(rng.integers(1, 10))
        s = rng.integers(0, 4, size=c).astype(float) * 1.5
        if rng.random() < 0.3:
            s[rng.integers(0, c, size=int(rng.integers(1, 3)))] = np.nan
        order = np.full(c, -1, dtype=np.int64)
        sort(s, order)
        assert np.array_equal(order, np.argsort(-s, kind="mergesort")), (s, order)


PROBE = '''
import sys, types
import numpy as np
from suspension_sim.solve import warmup_codegen
assert warmup_codegen.skip_inner_machine_code()
mod = types.ModuleType("suspension_sim._codegen_probe")
sys.modules[mod.__name__] = mod
exec("""
import numba, numpy as np
inner = numba.njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)
@inner
def leaf(x):
    return np.sqrt(x) + 1.0
@inner
def mid(a):
    s = 0.0
    for v in a:
        s += leaf(v)
    return s
@numba.njit
def top(a):
    return mid(a) * 2.0
""", mod.__dict__)
a = np.arange(5.0)
want = 0.0
for v in a:
    want += float(np.sqrt(v)) + 1.0
got = mod.top(a)
libs = [next(iter(f.overloads.values())).library for f in (mod.leaf, mod.mid, mod.top)]
print(got == 2.0 * want, [getattr(x, warmup_codegen._MARK, False) for x in libs])
'''


def _numba_release() -> str:
    import numba

    return ".".join(numba.__version__.split(".")[:2])


@pytest.mark.skipif(
    _numba_release() not in warmup_codegen.CHECKED_NUMBA,
    reason="a numba release the compile setting was not checked with: it compiles as usual",
)
def test_the_compile_process_emits_machine_code_for_entry_points_only() -> None:
    """With `warmup_codegen.skip_inner_machine_code` (the compile process's setting), a
    function without a Python wrapper is linked into its callers, never emitted on its
    own; the entry point Python calls runs and gives the plain computation's result."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    run = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().split(maxsplit=1) == ["True", "[True, True, False]"]


def test_another_numba_release_compiles_as_usual(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a numba release the setting was not checked with, it is not installed."""
    import numba

    monkeypatch.setattr(warmup_codegen, "_installed", False)
    monkeypatch.setattr(numba, "__version__", "0.99.0")
    assert warmup_codegen.skip_inner_machine_code() is False
    assert warmup_codegen._installed is False
