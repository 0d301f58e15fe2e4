"""Compiling the kernel: every kernel function Python calls, and the foreground compile.

`kernel_steps` runs each kernel function once on empty tables of the types every
car's tables have (`engine_tables.dummy_tables`), which compiles it or loads it from
numba's disk cache; `suspension-sim warm-up` shows them as a progress bar and the
background compile (`solve.warmup`) runs them in a child process. `compile_kernel`
compiles in this process, under the compile lock so that two processes never
compile beside each other, and drops a damaged disk cache first. Whether a process
uses the kernel at all is decided in `solve.engine` (`kernel_compiled`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from suspension_sim.solve.engine_session import NO_HISTORY, run_kernel
from suspension_sim.solve.engine_tables import dummy_tables, kernel_module, work_arrays
from suspension_sim.solve.engine_targets import empty_target_tables


def compile_kernel() -> float:
    """Compile the kernel now, or load it from the disk cache (once per process);
    returns the seconds it took (0 if done). Once a compile has published the solve
    kernel's group (`warmup.SOLVE`), loads it without waiting for the rest; while
    another process compiles the kernels (`solve.warmup`), waits for it and loads its
    work instead of compiling."""
    k = kernel_module()
    if k is None:
        raise RuntimeError("numba is not installed: the compiled batch path is unavailable")
    if k.solve_sequence.signatures and k.solve_single.signatures:
        return 0.0
    t0 = time.perf_counter()
    from suspension_sim.solve import warmup

    if warmup.verified(warmup.SOLVE):  # published (the rest may still compile): load it
        with contextlib.suppress(Exception):  # numba could not read it: compile below
            for _, step, _ in kernel_steps():
                step()
            return time.perf_counter() - t0
    # Under the compile lock: while another process compiles, wait for it (said in one
    # line) and load its work; never compile beside it into the folder it publishes to.
    # A lock that cannot be taken at all (a file system without locks) still compiles:
    # the caller asked for the compiled path.
    with warmup.foreground_compile():
        if warmup.on_disk(warmup.SOLVE) and not warmup.verified(warmup.SOLVE):
            _drop_disk_cache(k)  # damaged: never hand it to numba; compile afresh
        try:
            for _, step, _ in kernel_steps():
                step()
        except Exception as exc:  # numba could not read its cache (a damaged index)
            if not k.CACHED:
                raise
            _drop_disk_cache(k)
            warmup.say_once(
                f"the compiled kernels on disk could not be loaded ({type(exc).__name__}); "
                "compiling them again"
            )
            for _, step, _ in kernel_steps():
                step()
    return time.perf_counter() - t0


LAZY = ("batch_tangents",)
"""Kernel entry points no command calls (`engine.tangents_compiled`, kept as a checked
twin of `metrics.batch.input_tangents`): not in `kernel_steps`, so the warm-up does
not spend ~3 s of CPU on them; compiled on their first use (`compile_on_first_use`)."""


def compile_on_first_use(disp: Any) -> Any:
    """The kernel function `disp` (a numba dispatcher), compiled first when it has no
    compiled version in this process: under the compile lock (`warmup.foreground_compile`:
    numba then writes into the code folder beside no other compile), on the same empty
    tables as `kernel_steps`, from the disk cache when a process compiled it before."""
    if disp.signatures:
        return disp
    from suspension_sim.solve import warmup

    with warmup.foreground_compile():
        if not disp.signatures:
            _LAZY_CALLS[disp.__name__]()
    return disp


def _drop_disk_cache(k: ModuleType) -> None:
    """Forget the kernels' compile on disk: the manifest and numba's index of every
    kernel function (numba then compiles and writes them anew)."""
    from suspension_sim.solve import warmup

    warmup.drop_compiled()  # the other kernels' too: they were compiled with it
    for value in vars(k).values():
        cache_ = getattr(value, "_cache", None)
        if cache_ is not None and hasattr(cache_, "flush"):
            with contextlib.suppress(OSError):
                cache_.flush()


def kernel_steps() -> list[tuple[str, Callable[[], object], float]]:
    """The kernel's compile, function by function, as (name, call, rough share of the
    time): each call runs one kernel function on empty tables of the types every car's
    tables have, which compiles it (or loads it from the disk cache). Every kernel
    function the solvers, sweeps and batches call is here, so that none is compiled
    later in a user's process; `LAZY` ones (no command calls them) are compiled on
    their first use (`compile_on_first_use`)."""
    k = kernel_module()
    if k is None:  # pragma: no cover - numba is a dependency
        raise RuntimeError("numba is not installed: the compiled batch path is unavailable")
    tab = dummy_tables()
    W, S = work_arrays(tab)
    one = np.zeros(1, dtype=np.int64)
    tt = empty_target_tables(tab.n_blocks, tab.k_max)

    def sequence() -> None:
        run_kernel(np.zeros((1, 1)), np.zeros(1), tab, W, S, np.zeros(2, np.int64), 1e-10, 1)

    def single() -> None:
        k.solve_single(
            np.zeros(1),
            np.zeros(1),
            tab.inputs,
            tab.arrays,
            W,
            S,
            tt.arrays,
            1e-10,
            1,
            np.zeros(2, np.int64),
            np.zeros(1),
            NO_HISTORY,
        )

    def chassis() -> None:
        k.chassis_points(np.zeros((1, 1)), tab.arrays[:7], W[:5], one, one, np.zeros((1, 1, 3)))

    def world() -> None:
        k.world_points(
            np.zeros((1, 1)),
            tab.arrays[:7],
            W[:5],
            one,
            one,
            one,
            np.array([0, 1], dtype=np.int64),
            np.zeros((1, 3, 3)),
            np.zeros((1, 3)),
            np.zeros((1, 1, 3)),
        )

    def spread() -> None:
        k.body_spread(
            np.zeros((3, 1)),
            tab.arrays[:7],
            W,
            one,
            one,
            np.zeros(1, dtype=np.int64),
            0.5,
            0.5,
            np.zeros(2),
            np.zeros((1, 3)),
            np.zeros((1, 3)),
        )

    def tangents() -> None:  # `by_engine.solve_targets_by_engine`
        k.block_tangents(np.zeros(1), one, tab.arrays, W, S, np.zeros((1, 1)))

    def slopes() -> None:  # `by_engine.solve_targets_by_engine`
        k.points_and_slopes(
            np.zeros(1), tab.arrays, W, one, one, np.zeros((1, 3)), np.zeros((1, 1, 3))
        )

    return [
        ("solve_sequence", sequence, 30.0),
        ("solve_single", single, 30.0),
        ("chassis_points", chassis, 2.0),
        ("world_points", world, 2.0),
        ("body_spread", spread, 3.0),
        ("block_tangents", tangents, 3.0),
        ("points_and_slopes", slopes, 2.0),
    ]


def _batch_tangents() -> None:
    k = kernel_module()
    assert k is not None
    tab = dummy_tables()
    W, S = work_arrays(tab)
    one = np.zeros(1, dtype=np.int64)
    k.batch_tangents(
        np.zeros((1, 1)),
        one,
        tab.arrays,
        W,
        S,
        one,
        one,
        np.zeros((1, 1, 3)),
        np.zeros((1, 1, 1, 3)),
        np.zeros((1, 1, 1)),
    )


_LAZY_CALLS: dict[str, Callable[[], None]] = {"batch_tangents": _batch_tangents}
"""How each `LAZY` entry point is compiled (run once on empty tables)."""
