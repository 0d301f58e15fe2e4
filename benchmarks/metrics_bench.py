"""Batch metrics speed (printed, never asserted): `python benchmarks/metrics_bench.py`.

Per-state microseconds of `suspension_sim.metrics.batch.batch_metrics`
(geometry only, and with rates; best of three after a warm-up call) against
`pose_metrics` called pose by pose,
for a damper-log-like batch on the example car (2,000 states by default,
solved once with the numpy engine so no numba compile is timed). Also the
largest difference between the two, as a sanity check. One core: BLAS is
limited to one thread inside both.

Then the compiled path (`metrics.batch_kernel`; the kernels are loaded or
compiled first, not timed) against the numpy path, for geometry only, every
column with rates, and the damper-log replay's default columns
(`replay.run.default_columns`), with the largest relative difference between
the two paths (``--compiled-states`` states, 20,000 by default).

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
    parser.add_argument("--compiled-states", type=int, default=20_000)
    parser.add_argument("--no-compiled", action="store_true", help="skip the compiled timings")
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

    if not args.no_compiled:
        compiled_paths(model, args.compiled_states, args.convention)


def compiled_paths(model: object, n: int, convention: str) -> None:
    """Per-state microseconds (median of three after a warm-up) of `batch_metrics` on the
    compiled and the numpy paths: geometry, all columns with rates, the replay's columns."""
    from suspension_sim.metrics.batch import batch_metrics
    from suspension_sim.metrics.catalogue import CATALOGUE
    from suspension_sim.metrics.core import layout
    from suspension_sim.replay.run import DEFAULT_METRICS
    from suspension_sim.solve import engine
    from suspension_sim.solve.batch import batch_inputs

    if not engine.compiled_available():
        print("numba is not installed: no compiled timings")
        return
    t = time.perf_counter()
    engine.compile_kernel()
    print(f"solve kernel ready in {time.perf_counter() - t:.1f} s")
    inputs = batch_inputs(realistic_states(n, len(model.damper_names)))  # type: ignore[attr-defined]
    res = model.solve_batch(**inputs, method="compiled")  # type: ignore[attr-defined]
    # The replay's default set with every input mapped (replay.run.default_columns without
    # the ride-height columns it derives from the contact points).
    wanted = set(DEFAULT_METRICS) | {"rack", "steering_wheel_angle"}
    wanted |= {"chassis_heave", "chassis_roll", "chassis_pitch"}
    replay = [CATALOGUE[m].key(w, c) for m, w, c in layout(res.model, True) if m in wanted]
    t = time.perf_counter()
    warm = batch_inputs(realistic_states(4, len(model.damper_names)))  # type: ignore[attr-defined]
    small = model.solve_batch(**warm, method="compiled")  # type: ignore[attr-defined]
    batch_metrics(small, convention, True, method="compiled")
    print(f"metrics kernel ready in {time.perf_counter() - t:.1f} s; {n} states")
    cases = [
        ("geometry", False, None),
        ("all, rates", True, None),
        (f"replay ({len(replay)} columns)", True, replay),
    ]
    for label, rates, columns in cases:
        per = {}
        tables = {}
        for method in ("compiled", "numpy"):
            tables[method] = batch_metrics(res, convention, rates, columns, method=method)
            times = []
            for _ in range(3):
                t = time.perf_counter()
                batch_metrics(res, convention, rates, columns, method=method)
                times.append(time.perf_counter() - t)
            per[method] = float(np.median(times)) / n
        a, b = tables["compiled"].to_numpy(), tables["numpy"].to_numpy()
        same = (np.isnan(a) & np.isnan(b)) | (a == b)
        with np.errstate(invalid="ignore"):
            rel = np.where(same, 0.0, np.abs(a - b) / np.maximum(1.0, np.abs(b)))
        print(
            f"{label:>22}: compiled {per['compiled'] * 1e6:7.1f} us/state, "
            f"numpy {per['numpy'] * 1e6:7.1f} us/state (x{per['numpy'] / per['compiled']:.1f}); "
            f"largest relative difference {float(np.nanmax(rel, initial=0.0)):.1e}"
        )


if __name__ == "__main__":
    main()
