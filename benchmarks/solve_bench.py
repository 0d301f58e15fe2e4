"""Solver speed figures (printed, never asserted): run `python benchmarks/solve_bench.py`.

* model build: cold (empty cache folder: workbook read with openpyxl, joint
  classification; the PoE templates are shipped pre-generated) and cached
  (unchanged workbook: the car comes from its JSON cache entry, openpyxl is
  never imported);
* one full-car solve from the design condition (cold) and warm-started from
  a neighbouring pose;
* states per second over 1,000 realistic input states (smooth damper-pot-like
  strokes, steering and chassis motion), each warm-started from the last.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"


def build_times(workbook: Path, cache: str) -> tuple[float, float, float]:
    """Seconds from process start to `load` done, cold cache then warm cache, and
    (warm cache) to the first solved pose; each in a fresh process, imports included."""
    code = (
        "import time; t = time.perf_counter(); import suspension_sim as s; "
        f"m = s.load({str(workbook)!r}); t1 = time.perf_counter(); m.solve(); "
        "print(t1 - t, time.perf_counter() - t)"
    )
    env = dict(os.environ, SUSPENSION_SIM_CACHE_DIR=cache)
    out = []
    for _ in range(2):
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if res.returncode:
            raise SystemExit(res.stderr)
        out.append([float(v) for v in res.stdout.split()])
    return out[0][0], out[1][0], out[1][1]


def realistic_states(n: int, n_dampers: int, seed: int = 0) -> list[dict]:
    """Smooth, logged-data-like inputs: strokes (mm), rack (mm), chassis (mm, deg)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 200.0  # 200 Hz logging
    states = []
    freqs = rng.uniform(0.5, 3.0, size=(n_dampers, 3))
    phases = rng.uniform(0, 2 * np.pi, size=(n_dampers, 3))
    strokes = sum(
        6.0 * np.sin(2 * np.pi * freqs[:, k, None] * t + phases[:, k, None]) for k in range(3)
    )
    rack = 12.0 * np.sin(2 * np.pi * 0.4 * t)
    roll = 1.5 * np.sin(2 * np.pi * 0.4 * t + 0.3)
    pitch = 0.8 * np.sin(2 * np.pi * 0.7 * t)
    for i in range(n):
        states.append(
            {
                "shocks": strokes[:, i].tolist(),
                "rack": float(rack[i]),
                "chassis": (
                    0.0,
                    0.0,
                    float(-5 * np.sin(t[i])),
                    float(roll[i]),
                    float(pitch[i]),
                    0.0,
                ),
            }
        )
    return states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--states", type=int, default=1000)
    args = parser.parse_args()
    workbook = Path(args.workbook)

    import suspension_sim

    with tempfile.TemporaryDirectory() as cache:
        cold_build, cached_build, first_pose = build_times(workbook, cache)
        os.environ["SUSPENSION_SIM_CACHE_DIR"] = cache
        model = suspension_sim.load(workbook)
    n_d = len(model.damper_names)
    print(
        f"workbook: {workbook.name} ({len(model.car.bodies)} bodies, {model.n_params} parameters)"
    )
    print(f"fresh process to loaded model, cold cache:   {cold_build * 1e3:8.1f} ms")
    print(f"fresh process to loaded model, cached car:   {cached_build * 1e3:8.1f} ms")
    print(f"fresh process to first solved pose (cached): {first_pose * 1e3:8.1f} ms")

    model.solve()  # warm up the lambdified templates in this process
    states = realistic_states(args.states, n_d)
    # Cold: from the design condition to a state well away from it.
    target = {"shocks": [15.0] * n_d, "rack": 10.0, "chassis": (0, 0, -10, 1.0, 0.5, 0)}
    cold = []
    for _ in range(20):
        t0 = time.perf_counter()
        pose = model.solve(**target)
        cold.append(time.perf_counter() - t0)
    print(
        f"full-car solve from design (cold):        {statistics.median(cold) * 1e3:8.2f} ms median"
        f"  ({pose.info.iterations} iterations, max residual {pose.info.max_residual_mm:.1e} mm)"
    )
    warm = []
    near = model.solve(shocks=[14.5] * n_d, rack=9.8, chassis=(0, 0, -10, 0.95, 0.5, 0))
    for _ in range(50):
        t0 = time.perf_counter()
        pose = model.solve(**target, guess=near)
        warm.append(time.perf_counter() - t0)
    print(
        f"full-car solve, warm start from a neighbour: {statistics.median(warm) * 1e3:6.2f} ms"
        f"  ({pose.info.iterations} iterations, max residual {pose.info.max_residual_mm:.1e} mm)"
    )
    pose = model.solve(**states[0])
    worst = 0.0
    t0 = time.perf_counter()
    for s in states:
        pose = model.solve(**s, guess=pose)
        worst = max(worst, pose.info.max_residual_mm)
    elapsed = time.perf_counter() - t0
    print(
        f"sequence of {len(states)} realistic states:     {len(states) / elapsed:8.0f} states/s"
        f"  ({elapsed / len(states) * 1e3:.2f} ms each, worst residual {worst:.1e} mm)"
    )
    from suspension_sim.metrics import pose_metrics

    pose_metrics(pose)  # build the per-model metric layout once
    per_pose = []
    for _ in range(50):
        t0 = time.perf_counter()
        pose_metrics(pose)
        per_pose.append(time.perf_counter() - t0)
    print(f"pose_metrics, one pose:                   {statistics.median(per_pose) * 1e3:8.2f} ms")
    print(f"machine: {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
