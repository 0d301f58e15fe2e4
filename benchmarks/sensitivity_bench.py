"""Hardpoint-sensitivity speed (printed, never asserted): `python benchmarks/sensitivity_bench.py`.

Times `suspension_sim.sensitivity` for every metric x every hardpoint coordinate of a car
(default the example car, workbooks/fsae_car.xlsx): at design (target < 1 s), with mirror
pairs (--symmetric), and over heave -30..+30 mm (13 solve steps; the ends differentiated).
Medians of repeated runs after one warm-up call (the first call also builds the model's
per-model layouts). Prints the machine's core count: the work is single-threaded numpy, so
a busy 2-core machine shows in the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    args = parser.parse_args()

    import suspension_sim
    from suspension_sim.explore.sensitivity import sensitivity
    from suspension_sim.solve.solver import blas_controller
    from suspension_sim.sweeps import motions

    model = suspension_sim.load(args.workbook)
    cores = os.cpu_count()
    print(f"{Path(args.workbook).name}: {len(model.car.points)} hardpoints, cores: {cores}")
    heave = motions.heave(model, [-30.0 + 5.0 * i for i in range(13)])
    cases: tuple[tuple[str, dict[str, Any]], ...] = (
        ("at design", {}),
        ("at design, --symmetric", {"symmetric": True}),
        ("over heave -30..+30 mm", {"motion": heave}),
    )
    with blas_controller().limit(limits=1, user_api="blas"):
        for label, kwargs in cases:
            result = sensitivity(model, **kwargs)  # warm-up: layouts, wheel facts, solves
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                sensitivity(model, **kwargs)
                times.append(time.perf_counter() - t)
            n_m, n_c = result.matrix.shape
            print(
                f"  {label:26} {n_m:4d} metrics x {n_c:3d} coordinates = {n_m * n_c:6d} "
                f"derivatives: {statistics.median(times):.3f} s (median of {args.repeat})"
            )


if __name__ == "__main__":
    main()
