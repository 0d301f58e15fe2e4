"""Batch engine speed figures (printed, never asserted): `python benchmarks/batch_bench.py`.

* compile time of the numba kernel (once per process; no on-disk cache);
* states per second for a damper-log-like batch (1e4 states by default) on
  the example car, by the numpy reference and by the compiled kernel, with
  the iterations and the worst residual;
* a warm single-state compiled solve (median microseconds, one state
  warm-started from a neighbour, Python call included);
* peak Python memory of each batch (tracemalloc) and the machine's core count.

Run it on a quiet machine: on a loaded one the figures say little.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from solve_bench import realistic_states  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--states", type=int, default=10_000)
    parser.add_argument("--numpy-states", type=int, default=2_000)
    args = parser.parse_args()

    import suspension_sim
    from suspension_sim.solve import engine
    from suspension_sim.solve.batch import batch_inputs

    model = suspension_sim.load(args.workbook)
    n_d = len(model.damper_names)
    inputs = batch_inputs(realistic_states(args.states, n_d))
    pl = engine.plan(model)
    sizes = ", ".join(f"{len(b.rows)}x{len(b.params)}" for b in pl.blocks)
    print(f"workbook: {Path(args.workbook).name} ({model.n_params} parameters, blocks {sizes})")
    print(f"machine: {os.cpu_count()} cores (all runs single-threaded)")

    t0 = time.perf_counter()
    compile_s = engine.compile_kernel()
    print(f"numba kernel compile (once per process):  {compile_s:8.2f} s")
    del t0

    def run(method: str, n: int) -> None:
        part = {k: v[:n] for k, v in inputs.items()}
        model.solve_batch(**{k: v[:50] for k, v in part.items()}, method=method)  # type: ignore[arg-type]
        tracemalloc.start()
        t = time.perf_counter()
        res = model.solve_batch(**part, method=method)  # type: ignore[arg-type]
        elapsed = time.perf_counter() - t
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        its = np.bincount(res.iterations)
        share = ", ".join(f"{k}: {v / n:.0%}" for k, v in enumerate(its) if v)
        print(
            f"{method:>8} batch of {n} states: {n / elapsed:10.0f} states/s "
            f"({elapsed / n * 1e6:.1f} us each), {int((~res.converged).sum())} not closed, "
            f"{int((res.method != 'engine').sum())} by the fallback, worst residual "
            f"{res.max_residual_mm.max():.1e} mm, peak memory {peak / 2**20:.1f} MiB"
        )
        print(f"{'':>8} iterations per state (largest over blocks): {share}")
        t = time.perf_counter()
        _ = res.points
        print(
            f"{'':>8} world-frame points for all states: {(time.perf_counter() - t) * 1e3:.1f} ms"
        )

    run("numpy", min(args.numpy_states, args.states))
    run("compiled", args.states)

    # Warm single-state solve: one state from its neighbour's solution, through the kernel.
    tab = engine.kernel_tables(model)
    U = np.column_stack([inputs["shocks"], inputs["rack"]])[:, : len(pl.inputs)]
    near = engine.solve_compiled(model, U[:1], np.zeros(model.n_params), 1e-10).params[0]
    times = []
    for i in range(1, 201):
        q0 = near.copy()
        t = time.perf_counter()
        out = engine.solve_kernel_arrays(U[i : i + 1], q0, tab.inputs, tab, 1e-10, 50)
        times.append(time.perf_counter() - t)
        near = out.params[0]
    print(
        f"warm single-state compiled solve:          {statistics.median(times) * 1e6:8.1f} us "
        "median (Python call included; no stored factorisation between calls)"
    )


if __name__ == "__main__":
    main()
