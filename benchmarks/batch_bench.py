"""Batch engine and replay speed (printed, never asserted): `python benchmarks/batch_bench.py`.

* time to get the numba kernel ready: compiled, or loaded from the on-disk
  cache (a folder only this user can write) when a previous process compiled it;
* `solve_batch` states per second for damper-log-like batches (1e4 and 1e6
  states by default; 500 Hz logging of smooth strokes, steering and chassis
  motion) on the example car, by the compiled kernel (and 2,000 states by the
  numpy reference), with the Newton steps, the block evaluations and
  factorisations per state, the worst residual and the peak memory
  (tracemalloc, which sees numpy's arrays);
* world-frame points for all states;
* end-to-end `replay` of a CSV log (read, screen, solve, wheel-attitude
  metrics, write Parquet) in samples per second (1e4 samples: the best of three
  runs; the process's first replay, which imports pyarrow and builds the model's
  metric tables, is timed apart);
* the machine's core count (every figure is single-threaded).

Run it on a quiet machine: on a loaded one the figures say little.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"


def log_inputs(n: int, n_dampers: int, hz: float = 500.0, seed: int = 0) -> dict[str, np.ndarray]:
    """Smooth logged-data-like inputs at `hz`: strokes (mm), rack (mm), chassis (mm, deg)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / hz
    freqs = rng.uniform(0.5, 3.0, size=(n_dampers, 3))
    phases = rng.uniform(0, 2 * np.pi, size=(n_dampers, 3))
    strokes = sum(
        6.0 * np.sin(2 * np.pi * freqs[:, k, None] * t + phases[:, k, None]) for k in range(3)
    ).T
    chassis = np.zeros((n, 6))
    chassis[:, 2] = -5 * np.sin(t)
    chassis[:, 3] = 1.5 * np.sin(2 * np.pi * 0.4 * t + 0.3)
    chassis[:, 4] = 0.8 * np.sin(2 * np.pi * 0.7 * t)
    return {"shocks": strokes, "rack": 12.0 * np.sin(2 * np.pi * 0.4 * t), "chassis": chassis}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--states", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--numpy-states", type=int, default=2_000)
    parser.add_argument("--replay-samples", type=int, nargs="*", default=[10_000, 1_000_000])
    args = parser.parse_args()

    import suspension_sim
    from suspension_sim.solve import engine

    model = suspension_sim.load(args.workbook)
    n_d = len(model.damper_names)
    pl = engine.plan(model)
    sizes = ", ".join(f"{len(b.rows)}x{len(b.params)}" for b in pl.blocks)
    print(f"workbook: {Path(args.workbook).name} ({model.n_params} parameters, blocks {sizes})")
    print(f"machine: {os.cpu_count()} cores (all runs single-threaded)")
    t0 = time.perf_counter()
    engine.compile_kernel()
    from suspension_sim.solve import kernel

    where = "on-disk cache on" if kernel.CACHED else "no on-disk cache"
    print(f"numba kernel ready in {time.perf_counter() - t0:.2f} s ({where})")

    def run(method: str, n: int) -> None:
        inputs = log_inputs(n, n_d)
        model.solve_batch(**{k: v[:50] for k, v in inputs.items()}, method=method)  # type: ignore[arg-type]
        sess = engine.batch_session(model)
        before = sess.counts.copy()
        tracemalloc.start()
        t = time.perf_counter()
        res = model.solve_batch(**inputs, method=method)  # type: ignore[arg-type]
        elapsed = time.perf_counter() - t
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        its = np.bincount(res.iterations)
        share = ", ".join(f"{k}: {v / n:.0%}" for k, v in enumerate(its) if v / n >= 0.005)
        print(
            f"{method:>8} batch of {n:>9,} states: {n / elapsed:9.0f} states/s "
            f"({elapsed / n * 1e6:.1f} us each), {int((~res.converged).sum())} not closed, "
            f"{int((res.method != 'engine').sum())} by a fallback, worst residual "
            f"{res.max_residual_mm.max():.1e} mm, peak memory {peak / 2**20:.0f} MiB"
        )
        print(f"{'':>8} chord/Newton steps per state (largest over blocks): {share}")
        if method == "compiled":
            evals, jacs = (sess.counts - before) / n
            print(f"{'':>8} per state: {evals:.1f} block evaluations, {jacs:.2f} factorisations")
        if n <= 100_000:  # (N, P, 3) for a million states would be ~1.4 GB
            t = time.perf_counter()
            _ = res.points
            per = (time.perf_counter() - t) / n * 1e6
            print(f"{'':>8} world-frame points: {per:.1f} us per state")

    run("numpy", args.numpy_states)
    for n in args.states:
        run("compiled", n)

    if args.replay_samples:
        replay(model, args.replay_samples)


def replay(model: object, sizes: list[int]) -> None:
    """End-to-end replay of a generated CSV log (500 Hz) into Parquet."""
    import pandas as pd

    from suspension_sim.replay import replay_log

    m: Any = model
    names = m.damper_names
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        lines = ["time: {column: t, unit: s}", "dampers:"]
        lines += [f"  {d}: {{column: {d}, unit: mm}}" for d in names]
        if m.topology.rack_param is not None:
            lines.append("steering: {column: rack, unit: mm, kind: rack}")
        lines.append(
            "chassis: {roll: {column: roll, unit: deg}, pitch: {column: pitch, unit: deg}}"
        )
        (folder / "map.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")

        def write_log(n: int) -> None:
            inputs = log_inputs(n, len(names))
            frame = pd.DataFrame(inputs["shocks"], columns=list(names))
            frame.insert(0, "t", np.arange(n) / 500.0)
            frame["rack"] = inputs["rack"]
            frame["roll"] = inputs["chassis"][:, 3]
            frame["pitch"] = inputs["chassis"][:, 4]
            frame.to_csv(folder / "log.csv", index=False)

        # The process's first replay also imports pyarrow and builds the model's metric
        # tables (once per process): timed apart, so that the figures below are the
        # replay's own rate.
        write_log(1000)
        t = time.perf_counter()
        replay_log(m, folder / "log.csv", folder / "map.yaml", out=folder / "first.parquet")
        print(f"first replay in this process (1,000 samples): {time.perf_counter() - t:.2f} s")
        for n in sizes:
            write_log(n)
            for rates in (False, True):
                cols = None if rates else ["camber_FL_deg", "toe_FL_deg", "wheel_travel_FL_mm"]
                runs = []
                for k in range(3 if n <= 100_000 else 1):  # short logs: the best of three
                    out = folder / f"out{n}{rates}{k}.parquet"
                    t = time.perf_counter()
                    replay_log(m, folder / "log.csv", folder / "map.yaml", out=out, columns=cols)
                    runs.append(time.perf_counter() - t)
                elapsed = min(runs)
                what = "default columns (with rates)" if rates else "three geometry columns"
                print(
                    f"replay of {n:>9,} samples, {what}: {n / elapsed:8.0f} samples/s "
                    f"({elapsed:.2f} s, CSV in, Parquet out"
                    + (", best of 3)" if len(runs) > 1 else ")")
                )
            out = folder / f"mem{n}.parquet"
            tracemalloc.start()
            replay_log(m, folder / "log.csv", folder / "map.yaml", out=out)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(
                f"replay of {n:>9,} samples, default columns: peak memory {peak / 2**20:.0f} MiB "
                "(tracemalloc, a separate run; chunks of 20,000 samples)"
            )


if __name__ == "__main__":
    sys.exit(main())
