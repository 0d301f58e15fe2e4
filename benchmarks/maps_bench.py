"""Kinematic-map speed (printed, never asserted): `python benchmarks/maps_bench.py`.

* time to get the numba solve kernel ready (loaded from the on-disk cache, or
  compiled once when there is none), reported apart;
* `compute_maps` of the example car on a 41 x 41 grid (wheel travel x rack) per
  steered corner and 41 values per rear corner, with and without the lookup's
  accuracy pass (every cell centre solved again), best of three runs, and the time
  per corner; the target of issue 25 is under 5 s for the car;
* the lookup's speed (queries per second, bilinear and cubic) on one corner;
* the machine's core count (the batch solve is single-threaded).

Run it on a quiet machine: on a loaded one the figures say little.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--n", type=int, default=41, help="values per axis (default 41)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    import suspension_sim
    from suspension_sim.maps import Lookup, compute_maps
    from suspension_sim.solve import engine

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cores: {os.cpu_count()} (usable by this process: {usable}); one is used")
    model = suspension_sim.load(args.workbook)
    t0 = time.perf_counter()
    if engine.compiled_available():
        engine.compile_kernel()  # loads the cached kernel, or compiles it once
    print(f"solve kernel ready in {time.perf_counter() - t0:.2f} s")
    compute_maps(model, travel=(-30, 30, 5), rack=(-20, 20, 5))  # model tables, imports

    n = args.n
    for accuracy in (False, True):
        best = float("inf")
        maps = None
        for _ in range(args.runs):
            t0 = time.perf_counter()
            maps = compute_maps(model, travel=(-30, 30, n), rack=(-20, 20, n), accuracy=accuracy)
            best = min(best, time.perf_counter() - t0)
        assert maps is not None
        corners = len(maps.corners)
        nodes = sum(m.reason.size for m in maps.corners.values())
        label = "with the accuracy pass" if accuracy else "nodes only"
        print(
            f"{model.car.name}: {n} x {n} maps, {corners} corners ({nodes} nodes), {label}: "
            f"{best:.2f} s (best of {args.runs}), {best / corners:.2f} s per corner"
        )
    assert maps is not None
    first = next(m for m in maps.corners.values() if m.rack is not None)
    rng = np.random.default_rng(0)
    q = 100_000
    t = rng.uniform(-20, 20, q)
    r = rng.uniform(-20, 20, q)
    for method in ("linear", "cubic"):
        lk = Lookup(maps, first.name, method=method)
        lk.compute(t[:10], r[:10])  # build the interpolators
        t0 = time.perf_counter()
        lk.compute(t, r)
        dt = time.perf_counter() - t0
        print(f"lookup {first.name} ({method}): {q / dt:,.0f} queries/s (all quantities)")


if __name__ == "__main__":
    main()
