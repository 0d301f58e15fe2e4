"""Load-table speed against solve speed (printed, never asserted):
`python benchmarks/loads_bench.py [WORKBOOK] [--steps 100] [--compiled]`.

A sweep of N steps (the strokes ramped 0..20 mm with a roll ramp 0..2 deg) on
the example car. Every timing is the median of several runs:

* solving it: one `model.solve` per step warm-started from the previous step,
  and `solve_batch(method="numpy")`. With --compiled the numba solve kernel is
  loaded (compiled once, ~20 s, not counted) and the same `model.solve` loop is
  timed again (it then uses the kernel), with `solve_batch(method="compiled")`
  and `run_sweep` of the standard heave motion (N steps, what `sweep` runs);
* the load tables of every step for the five standard cases at once
  (`sweep_loads`), and for one case, on both paths of the statics: numpy (the
  reference) and the compiled block kernel (`suspension_sim.loads.blocks`; loaded
  from disk, or compiled once, ~20 s, not counted), which `sweep_loads` and
  `solve_loads` use whenever its code is on disk;
* one pose's loads (`solve_loads`);
* the ratio loads / solve against each solve timing (the issue asks for < 1).

Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from suspension_sim.solve.pose import Pose

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 7
"""Repeats of each timing (the median is printed: a shared machine is noisy)."""
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--compiled", action="store_true", help="also time the numba kernels")
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
    print(f"machine: {os.cpu_count()} cores; {len(cases)} load cases; medians of {REPEAT}")

    def solve_loop() -> list[Pose]:
        poses = []
        guess = None
        for i in range(n):
            pose = model.solve(shocks=list(strokes[i]), chassis=tuple(chassis[i]), guess=guess)
            poses.append(pose)
            guess = pose
        return poses

    solves: dict[str, tuple[float, float]] = {}
    model.solve()  # warm caches
    solves["model.solve per step (numpy engine)"] = _median(solve_loop, REPEAT)
    poses = solve_loop()
    model.solve_batch(shocks=strokes[:5], chassis=chassis[:5], method="numpy")
    solves["solve_batch(method='numpy')"] = _median(
        lambda: model.solve_batch(shocks=strokes, chassis=chassis, method="numpy"), REPEAT
    )
    batch = model.solve_batch(shocks=strokes, chassis=chassis, method="numpy")
    assert bool(batch.converged.all())
    if args.compiled:
        from suspension_sim.solve import engine
        from suspension_sim.sweeps.run import run_sweep
        from suspension_sim.sweeps.standard import choose_sweep

        took = engine.compile_kernel()
        print(f"compile (or load from disk): solve kernel {took:.1f} s")
        model.solve()
        solves["model.solve per step (kernel loaded)"] = _median(solve_loop, REPEAT)
        model.solve_batch(shocks=strokes[:5], chassis=chassis[:5], method="compiled")
        solves["solve_batch(method='compiled')"] = _median(
            lambda: model.solve_batch(shocks=strokes, chassis=chassis, method="compiled"), REPEAT
        )
        spec = choose_sweep(model, args.workbook, "heave", steps=n).spec
        run_sweep(model, spec)
        solves[f"run_sweep heave, {n} steps (kernel loaded)"] = _median(
            lambda: run_sweep(model, spec), REPEAT
        )
    for name, (t, fast) in solves.items():
        print(f"solve, {name:<42s} {t * 1e3:9.1f} ms (fastest {fast * 1e3:.1f})")

    from suspension_sim.loads import blocks

    took_blocks = blocks.compile_blocks()
    print(f"compile (or load from disk): block kernel {took_blocks:.1f} s")
    loads: dict[str, tuple[float, float]] = {}
    methods = ["numpy", "compiled"]
    for method in methods:
        with _blocks_method(method):
            sweep_loads(poses[:2], cases)  # warm the per-model layout
            loads[f"sweep_loads, {len(cases)} cases, blocks {method}"] = _median(
                lambda: sweep_loads(poses, cases), REPEAT
            )
            loads[f"sweep_loads, 1 case, blocks {method}"] = _median(
                lambda: sweep_loads(poses, cases[:1]), REPEAT
            )
            loads[f"solve_loads, one pose, blocks {method}"] = _median(
                lambda: solve_loads(poses[0], cases), 4 * REPEAT
            )
    rows = len(sweep_loads(poses, cases).table)
    print(f"({rows} table rows for {len(cases)} cases)")
    for name, (t, fast) in loads.items():
        print(f"loads, {name:<42s} {t * 1e3:9.1f} ms (fastest {fast * 1e3:.1f})")

    print("ratio loads / solve, medians (fastest): < 1 = the load tables cost less than solving")
    width = max(len(k) for k in solves)
    for lname, (lt, lf) in loads.items():
        if "one pose" in lname:
            continue
        print(f"  {lname}")
        for sname, (st, sf) in solves.items():
            print(f"    / {sname:<{width}s} {lt / st:6.2f} ({lf / sf:.2f})")


@contextmanager
def _blocks_method(method: str) -> Iterator[None]:
    """Make the statics' method="auto" (`blocks.use_compiled`) pick `method` for the
    duration: the block solves and the compiled helpers together."""
    from suspension_sim.loads import blocks

    saved = blocks.use_compiled
    blocks.use_compiled = lambda poses=0: method == "compiled"
    try:
        yield
    finally:
        blocks.use_compiled = saved


def _median(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and fastest wall time of `run` over `repeat` calls (s); on a shared
    machine the fastest is the steadier figure."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


if __name__ == "__main__":
    main()
