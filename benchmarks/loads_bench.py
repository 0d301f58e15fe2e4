"""Load-table speed against solve speed (printed, never asserted):
`python benchmarks/loads_bench.py [WORKBOOK] [--steps 100] [--compiled]`.

A sweep of N steps (heave with the strokes ramped 0..20 mm and a roll ramp
0..2 deg) on the example car:

* the time to solve the sweep: one `model.solve` per step warm-started from the
  previous step (what `sweep` does), and `solve_batch(method="numpy")`; with
  --compiled also the numba kernel (compiles once, ~15 s, not counted);
* the time to compute the load tables of every step for the five standard
  cases at once (`sweep_loads`), and for one case;
* one pose's loads (`solve_loads`), median of 20.

The issue asks for loads faster than solving. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 5
"""Repeats of each batch timing (the median is printed: a shared machine is noisy)."""
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--compiled", action="store_true", help="also time the numba kernel")
    args = parser.parse_args()

    import suspension_sim
    from suspension_sim.loads import car_cases, solve_loads, sweep_loads

    model = suspension_sim.load(args.workbook)
    n = args.steps
    n_d = len(model.damper_names)
    strokes = np.linspace(0.0, 20.0, n)[:, None] * np.ones(n_d)
    chassis = np.zeros((n, 6))
    chassis[:, 3] = np.linspace(0.0, 2.0, n)
    cases = car_cases(model, 280.0)
    print(f"workbook: {Path(args.workbook).name}, {model.n_params} parameters, {n} steps")
    print(f"machine: {os.cpu_count()} cores; {len(cases)} load cases")

    model.solve()  # warm caches
    t = time.perf_counter()
    poses = []
    guess = None
    for i in range(n):
        pose = model.solve(shocks=list(strokes[i]), chassis=tuple(chassis[i]), guess=guess)
        poses.append(pose)
        guess = pose
    t_loop = time.perf_counter() - t
    print(f"solve, one model.solve per step (warm):   {t_loop * 1e3:9.1f} ms")

    model.solve_batch(shocks=strokes[:5], chassis=chassis[:5], method="numpy")
    t_batch = _median(
        lambda: model.solve_batch(shocks=strokes, chassis=chassis, method="numpy"), REPEAT
    )
    batch = model.solve_batch(shocks=strokes, chassis=chassis, method="numpy")
    print(f"solve, solve_batch(method='numpy'):       {t_batch * 1e3:9.1f} ms (median of {REPEAT})")
    if args.compiled:
        from suspension_sim.solve import engine

        engine.compile_kernel()
        model.solve_batch(shocks=strokes[:5], chassis=chassis[:5], method="compiled")
        t = time.perf_counter()
        model.solve_batch(shocks=strokes, chassis=chassis, method="compiled")
        print(
            f"solve, solve_batch(method='compiled'):    {(time.perf_counter() - t) * 1e3:9.1f} ms"
        )
    assert bool(batch.converged.all())

    sweep_loads(poses[:2], cases)  # warm the per-model layout
    t_all = _median(lambda: sweep_loads(poses, cases), REPEAT)
    rows = len(sweep_loads(poses, cases).table)
    print(
        f"loads, sweep_loads, {len(cases)} cases:             {t_all * 1e3:9.1f} ms "
        f"({rows} table rows; median of {REPEAT})"
    )
    t_one = _median(lambda: sweep_loads(poses, cases[:1]), REPEAT)
    print(f"loads, sweep_loads, 1 case:               {t_one * 1e3:9.1f} ms")
    times = []
    for _ in range(20):
        t = time.perf_counter()
        solve_loads(poses[0], cases)
        times.append(time.perf_counter() - t)
    one = statistics.median(times) * 1e3
    print(f"loads, one pose ({len(cases)} cases), median:     {one:9.1f} ms")
    print(
        f"ratio loads / solve: {t_all / t_loop:.2f} of the per-step solves, "
        f"{t_all / t_batch:.2f} of solve_batch (numpy)"
    )


def _median(run: Callable[[], object], repeat: int) -> float:
    """Median wall time of `run` over `repeat` calls (s)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


if __name__ == "__main__":
    main()
