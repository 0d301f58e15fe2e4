"""Compile time of the numba kernels (printed, never asserted).

Run `python benchmarks/compile_bench.py`. Every run is a fresh process with an empty,
private, temporary cache folder (nothing on disk to load; the user's own compiled
kernels are never read, replaced or removed: each child checks that its cache folder
is the temporary one before it compiles anything):

* per step: each step of the warm-up (`commands.warm_up.compile_steps`: the solve
  kernel function by function, the batch-metrics kernel, the loads kernel), run one
  after another in one process with the compile process's settings
  (`solve.warmup.COMPILE_ENV`), wall and CPU seconds each, and per group: the solve
  group (`solve.warmup.SOLVE`: what `model.solve`, `solve_batch` and the sweeps
  need), the metrics kernel, the loads kernel, and all of them; and per process of
  the warm-up (`solve.warmup.SECOND_LANE`: which steps the second one runs), the sum
  of its steps' CPU seconds (how well the two are balanced; each also pays its
  imports);
* the warm-up as a user runs it (``suspension-sim warm-up``: a compile process that
  runs the second lane, `solve.warmup.SECOND_LANE`, in a second process when there
  are two cores or more): whole-process wall seconds until the solve group's
  manifest is published (the solvers are used from then on) and until every kernel
  is on disk, and the CPU seconds of both processes together.

Best and median of ``--runs`` runs each. The core count and load average are printed
with the figures: on a shared machine the wall times swing by 2x (the CPU seconds
less so); CPU seconds are the figure to compare changes by.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STEPS = """
import json, os, sys, time
from pathlib import Path
from suspension_sim.cache import cache_dir
folder = cache_dir()
if folder is None or Path(folder).resolve() != Path(sys.argv[1]).resolve():
    raise SystemExit(f"not the benchmark's temporary cache folder: {folder}")
from suspension_sim.solve import warmup
for key, value in warmup.COMPILE_ENV.items():  # as the compile process has them (numba
    os.environ.setdefault(key, value)  # reads them at its import, which comes below)
from suspension_sim.commands.warm_up import compile_steps
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

GROUPS = (
    ("solve group", lambda label: label.startswith("solve kernel")),
    ("batch metrics kernel", lambda label: label == "batch metrics kernel"),
    ("loads kernel", lambda label: label == "loads kernel"),
    ("all, one process", lambda label: True),
)


def env_with(cache: str) -> dict[str, str]:
    """Our environment with an empty cache folder and no background compile."""
    env = dict(os.environ)
    env.pop("SUSPENSION_SIM_CODE_DIR_NAME", None)
    env["SUSPENSION_SIM_CACHE_DIR"] = cache
    env["SUSPENSION_SIM_BACKGROUND_COMPILE"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def step_times() -> list[tuple[str, float, float]]:
    """(label, wall s, CPU s) of every warm-up step, one fresh process, empty cache."""
    with tempfile.TemporaryDirectory(prefix="compile_bench_") as cache:
        proc = subprocess.run(
            [sys.executable, "-c", STEPS, cache],
            env=env_with(cache),
            capture_output=True,
            text=True,
        )
    if proc.returncode != 0:
        raise SystemExit(f"the compile steps failed:\n{proc.stderr}")
    return [(a, float(b), float(c)) for a, b, c in json.loads(proc.stdout.splitlines()[-1])]


def warm_up_time() -> tuple[float, float, float]:
    """``suspension-sim warm-up --quiet`` into an empty cache folder: wall seconds until
    the solve group's manifest is there, until the command ends, and the CPU seconds
    of its processes."""
    with tempfile.TemporaryDirectory(prefix="compile_bench_") as cache:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "suspension_sim", "warm-up", "--quiet"],
            env=env_with(cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        solve = float("nan")
        while proc.poll() is None:
            if solve != solve and any(Path(cache).glob("numba-*/manifest-solve-*.json")):
                solve = time.perf_counter() - t
            time.sleep(0.05)
        took = time.perf_counter() - t
        out = proc.communicate()[0]
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"warm-up failed:\n{out}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return solve, took, cpu


def summary(values: list[float]) -> str:
    return f"best {min(values):6.1f}  median {statistics.median(values):6.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per figure")
    parser.add_argument("--no-steps", action="store_true", help="warm-up figures only")
    parser.add_argument("--no-warm-up", action="store_true", help="per-step figures only")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f} (1 min)")
    if not args.no_steps:
        runs = [step_times() for _ in range(args.runs)]
        labels = [label for label, _, _ in runs[0]]
        print(f"\nper step, one process, {args.runs} runs (seconds): wall | CPU")
        for i, label in enumerate(labels):
            wall = [r[i][1] for r in runs]
            cpu = [r[i][2] for r in runs]
            print(f"  {label:34s} {summary(wall)} | {summary(cpu)}")
        print("per group:")
        for name, pick in GROUPS:
            wall = [sum(w for lab, w, _ in r if pick(lab)) for r in runs]
            cpu = [sum(c for lab, _, c in r if pick(lab)) for r in runs]
            print(f"  {name:34s} {summary(wall)} | {summary(cpu)}")
        sys.path.insert(0, str(ROOT))  # this checkout's lanes, not an installed copy's
        from suspension_sim.solve.warmup import SECOND_LANE

        print("per process of the warm-up (its steps' CPU, from the figures above):")
        for name, second in (("first process", False), ("second process", True)):
            cpu = [sum(c for lab, _, c in r if (lab in SECOND_LANE) == second) for r in runs]
            print(f"  {name:34s} {'':27s} | {summary(cpu)}")
    if not args.no_warm_up:
        times = [warm_up_time() for _ in range(args.runs)]
        cores = os.cpu_count()
        print(f"\nsuspension-sim warm-up, whole process, {cores} cores, {args.runs} runs (s):")
        print(f"  solve group published (solvers in use) {summary([t[0] for t in times])}")
        print(f"  every kernel on disk                   {summary([t[1] for t in times])}")
        print(f"  CPU of the compile processes           {summary([t[2] for t in times])}")
    print(f"load average afterwards: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
