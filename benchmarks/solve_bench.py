"""Solver speed figures (printed, never asserted): run `python benchmarks/solve_bench.py`.

* model build: cold (empty cache folder: workbook read with openpyxl, joint
  classification; the PoE templates are shipped pre-generated) and cached
  (unchanged workbook: the car comes from its JSON cache entry, openpyxl is
  never imported);
* one full-car `model.solve` from the design condition (cold) and
  warm-started from a neighbouring pose, and a sequence of 1,000 log-like
  states (smooth damper-pot-like strokes, steering and chassis motion) each
  from the last: by scipy's trf + LM, by the numpy block engine and by the
  compiled kernel;
* `run_sweep` per step on 41-step sweeps driven by inputs (stroke, rack) and by
  targets (bump, heave: solved inside the kernel once it is loaded), medians of
  repeated runs, next to the raw solve of the same steps (each from the previous
  kept pose) and their ratio: what continuation and the branch screen add;
* metrics per pose: `pose_metrics` one at a time, `batch_metrics` for many.
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


def _median_us(fn: object, n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _sweep_ms(model: object, workbook: Path, name: str) -> tuple[float, float, set[str]]:
    """Median ms per step of `run_sweep` (continuation, branch screen) over repeated runs,
    and of the raw solves of the same steps, each from the previous kept pose."""
    from suspension_sim.sweeps.run import run_sweep
    from suspension_sim.sweeps.standard import choose_sweep

    spec = choose_sweep(model, workbook, name, steps=41).spec  # type: ignore[arg-type]
    res = run_sweep(model, spec)  # type: ignore[arg-type]
    runs = []
    for _ in range(7):
        t0 = time.perf_counter()
        res = run_sweep(model, spec)  # type: ignore[arg-type]
        runs.append((time.perf_counter() - t0) / max(len(res.steps), 1) * 1e3)
    states = [step.state for step in spec.build(model)]  # type: ignore[attr-defined]
    pairs = [(states[k], res.poses[i - 1]) for i, k in enumerate(res.steps) if i > 0]
    raw = []
    for _ in range(7):
        t0 = time.perf_counter()
        for state, guess in pairs:
            state.solve(model, guess=guess, on_failure="return")
        raw.append((time.perf_counter() - t0) / max(len(pairs), 1) * 1e3)
    return statistics.median(runs), statistics.median(raw), {p.info.method for p in res.poses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(DEFAULT))
    parser.add_argument("--states", type=int, default=1000)
    args = parser.parse_args()
    workbook = Path(args.workbook)

    import suspension_sim
    from suspension_sim.solve import engine

    with tempfile.TemporaryDirectory() as cache:
        cold_build, cached_build, first_pose = build_times(workbook, cache)
        before = os.environ.get("SUSPENSION_SIM_CACHE_DIR")
        os.environ["SUSPENSION_SIM_CACHE_DIR"] = cache
        model = suspension_sim.load(workbook)
        if before is None:  # the user's own cache again (the compiled kernel lives there)
            del os.environ["SUSPENSION_SIM_CACHE_DIR"]
        else:
            os.environ["SUSPENSION_SIM_CACHE_DIR"] = before
    n_d = len(model.damper_names)
    print(
        f"workbook: {workbook.name} ({len(model.car.bodies)} bodies, {model.n_params} parameters)"
    )
    print(
        f"machine: {os.cpu_count()} cores (everything below single-threaded), load average "
        f"{os.getloadavg()[0]:.2f} (timings on a shared machine need a load well under 1)"
    )
    print(f"fresh process to loaded model, cold cache:   {cold_build * 1e3:8.1f} ms")
    print(f"fresh process to loaded model, cached car:   {cached_build * 1e3:8.1f} ms")
    print(f"fresh process to first solved pose (cached): {first_pose * 1e3:8.1f} ms")

    model.solve()
    target = {"shocks": [15.0] * n_d, "rack": 10.0, "chassis": (0, 0, -10, 1.0, 0.5, 0)}
    near = model.solve(shocks=[14.5] * n_d, rack=9.8, chassis=(0, 0, -10, 0.95, 0.5, 0))
    states = realistic_states(args.states, n_d)

    def sequence(method: str) -> tuple[float, float]:
        pose = model.solve(**states[0], method=method)  # type: ignore[arg-type]
        worst = 0.0
        t0 = time.perf_counter()
        for s in states:
            pose = model.solve(**s, guess=pose, method=method)  # type: ignore[arg-type]
            worst = max(worst, pose.info.max_residual_mm)
        return (time.perf_counter() - t0) / len(states) * 1e6, worst

    def report(label: str, method: str) -> None:
        cold = _median_us(lambda: model.solve(**target, method=method), 20)
        warm = _median_us(lambda: model.solve(**target, guess=near, method=method), 50)
        seq, worst = sequence(method)
        print(f"{label}:")
        print(f"  full-car solve from design (cold):          {cold:9.1f} us median")
        print(f"  warm solve from a neighbour (0.5 mm away):  {warm:9.1f} us median")
        print(
            f"  sequence of {len(states)} log-like states, each from the last: {seq:7.1f} us "
            f"per state (worst residual {worst:.1e} mm)"
        )

    report("scipy trf + LM (method='trf', the robust path)", "trf")
    report("block engine, numpy (model.solve before the kernel is loaded)", "auto")
    t0 = time.perf_counter()
    engine.compile_kernel()
    print(
        f"numba kernel ready in {time.perf_counter() - t0:.2f} s "
        "(compiled, or loaded from the on-disk cache when present)"
    )
    report("block engine, compiled kernel (model.solve once the kernel is loaded)", "auto")

    for name in ("stroke:FL_Damper", "rack", "bump:FL", "heave"):
        ms, raw, methods = _sweep_ms(model, workbook, name)
        print(
            f"run_sweep {name:<17} 41 steps: {ms:7.3f} ms per step, raw solve {raw:6.3f} ms "
            f"({ms / raw:.1f}x; solved by {sorted(methods)})"
        )
    print(f"load average after the sweeps: {os.getloadavg()[0]:.2f}")

    from suspension_sim.metrics import pose_metrics
    from suspension_sim.metrics.batch import batch_metrics
    from suspension_sim.solve.batch import BatchResult

    poses = [model.solve(**s) for s in states[:200]]
    pose_metrics(poses[0])
    t0 = time.perf_counter()
    for p in poses:
        pose_metrics(p)
    one = (time.perf_counter() - t0) / len(poses) * 1e3
    batch = BatchResult.from_poses(model, poses)
    batch_metrics(batch, rates=True)
    t0 = time.perf_counter()
    batch_metrics(batch, rates=False)
    geo = (time.perf_counter() - t0) / len(poses) * 1e6
    t0 = time.perf_counter()
    batch_metrics(batch, rates=True)
    allm = (time.perf_counter() - t0) / len(poses) * 1e6
    print(f"pose_metrics, one pose at a time:              {one:8.2f} ms per pose")
    print(f"batch_metrics, geometry only (200 poses):      {geo:8.1f} us per pose")
    print(f"batch_metrics, with rates and centres:         {allm:8.1f} us per pose")


if __name__ == "__main__":
    main()
