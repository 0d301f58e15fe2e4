"""Compile time of the numba kernels (printed, never asserted).

Run `python benchmarks/compile_bench.py`. Every run is a fresh process with an empty
cache folder (nothing on disk to load):

* per step: each step of the warm-up (`commands.warm_up.compile_steps`: the solve
  kernel function by function, the batch-metrics kernel, the loads kernel), run one
  after another in one process, wall and CPU seconds each, and the solve group's
  total (what `model.solve`, `solve_batch` and the sweeps need);
* the warm-up as a user runs it (``suspension-sim warm-up``: a compile process that
  runs the second lane, `solve.warmup.SECOND_LANE`, in a second process when there are
  two cores or more), whole-process wall seconds until the kernels are on disk.

Best and median of ``--runs`` runs each. The core count and load average are printed
with the figures: on a shared machine they swing by 2x (the CPU seconds less so).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STEPS = """
import json, os, sys, time
from suspension_sim.commands.warm_up import compile_steps
from suspension_sim.solve import warmup
os.environ[warmup.STAGING_ENV] = "numba-bench"  # what the compile process does
warmup._compiling = True  # this process compiles: no lock, no background start
out = []
for step in compile_steps():
    if step.label == "check":
        continue
    w, c = time.perf_counter(), time.process_time()
    step.run()
    out.append([step.label, time.perf_counter() - w, time.process_time() - c])
print(json.dumps(out))
"""


def env_with(cache: str) -> dict[str, str]:
    """Our environment with an empty cache folder and no background compile."""
    env = dict(os.environ)
    env["SUSPENSION_SIM_CACHE_DIR"] = cache
    env["SUSPENSION_SIM_BACKGROUND_COMPILE"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def step_times() -> list[tuple[str, float, float]]:
    """(label, wall s, CPU s) of every warm-up step, one fresh process, empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        proc = subprocess.run(
            [sys.executable, "-c", STEPS], env=env_with(cache), capture_output=True, text=True
        )
    if proc.returncode != 0:
        raise SystemExit(f"the compile steps failed:\n{proc.stderr}")
    return [(a, float(b), float(c)) for a, b, c in json.loads(proc.stdout.splitlines()[-1])]


def warm_up_time() -> float:
    """Wall seconds of ``suspension-sim warm-up --quiet`` into an empty cache folder."""
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "suspension_sim", "warm-up", "--quiet"],
            env=env_with(cache),
            capture_output=True,
            text=True,
        )
        took = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"warm-up failed:\n{proc.stdout}\n{proc.stderr}")
    return took


def summary(values: list[float]) -> str:
    return f"best {min(values):6.1f}  median {statistics.median(values):6.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per figure")
    parser.add_argument("--no-warm-up", action="store_true", help="per-step figures only")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f} (1 min)")
    runs = [step_times() for _ in range(args.runs)]
    labels = [label for label, _, _ in runs[0]]
    print(f"\nper step, one process, {args.runs} runs (seconds): wall | CPU")
    for i, label in enumerate(labels):
        wall = [r[i][1] for r in runs]
        cpu = [r[i][2] for r in runs]
        print(f"  {label:34s} {summary(wall)} | {summary(cpu)}")
    for name, pick in (
        ("solve group", lambda lab: lab.startswith("solve kernel")),
        ("all, one process", lambda lab: True),
    ):
        wall = [sum(w for lab, w, _ in r if pick(lab)) for r in runs]
        cpu = [sum(c for lab, _, c in r if pick(lab)) for r in runs]
        print(f"  {name:34s} {summary(wall)} | {summary(cpu)}")
    if not args.no_warm_up:
        times = [warm_up_time() for _ in range(args.runs)]
        print(f"\nsuspension-sim warm-up (whole process, {os.cpu_count()} cores): {summary(times)}")
    print(f"load average afterwards: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
