"""Batch metrics speed (printed, never asserted): `python benchmarks/metrics_bench.py`.

Per-state microseconds of `suspension_sim.metrics.batch.batch_metrics`
(geometry only, and with rates; best of three after a warm-up call) against
`pose_metrics` called pose by pose,
for a damper-log-like batch on the example car (2,000 states by default,
solved once with the numpy engine so no numba compile is timed). Also the
largest difference between the two, as a sanity check. One core: BLAS is
limited to one thread inside both.

Run it on a quiet machine: on a loaded one the figures say little.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from solve_bench import realistic_states  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--states", type=int, default=2_000)
    parser.add_argument("--single", type=int, default=200, help="poses timed with pose_metrics")
    parser.add_argument("--convention", default="iso")
    args = parser.parse_args()

    import suspension_sim
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.metrics.batch import batch_metrics
    from suspension_sim.solve.batch import batch_inputs

    model = suspension_sim.load(args.workbook)
    inputs = batch_inputs(realistic_states(args.states, len(model.damper_names)))
    t = time.perf_counter()
    res = model.solve_batch(**inputs, method="numpy")
    print(
        f"workbook: {Path(args.workbook).name}, {args.states} states solved "
        f"({int(res.converged.sum())} converged) in {time.perf_counter() - t:.1f} s (numpy)"
    )
    n1 = min(args.single, args.states)
    for rates in (False, True):
        table = batch_metrics(res, args.convention, rates)  # warm: per-model caches
        times = []
        for _ in range(3):
            t = time.perf_counter()
            table = batch_metrics(res, args.convention, rates)
            times.append(time.perf_counter() - t)
        per_batch = min(times) / args.states
        t = time.perf_counter()
        rows = [pose_metrics(res.pose(i), args.convention, rates) for i in range(n1)]
        per_pose = (time.perf_counter() - t) / n1
        want = np.array([list(r.values()) for r in rows])
        got = table.to_numpy()[:n1]
        diff = np.abs(got - want)
        same = (np.isnan(got) & np.isnan(want)) | (got == want)
        worst = float(np.max(np.where(same, 0.0, diff), initial=0.0))
        label = "rates on " if rates else "rates off"
        print(
            f"{label}: batch_metrics {per_batch * 1e6:8.1f} us/state, "
            f"pose_metrics {per_pose * 1e6:8.1f} us/state ({n1} poses), "
            f"x{per_pose / per_batch:.0f}; {table.shape[1]} columns, "
            f"largest difference {worst:.1e}"
        )


if __name__ == "__main__":
    main()
