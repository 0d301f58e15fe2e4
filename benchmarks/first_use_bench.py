"""Speed as users get it (printed, never asserted): run `python benchmarks/first_use_bench.py`.

Every figure is a fresh process, imports included, in a temporary cache folder:

* the time from the first command after an install (an empty cache: it starts the
  background compile, `suspension_sim.solve.warmup`) until the solvers' compiled group
  is on disk (a new process's solves use it) and until every kernel is;
* whole-process times of ``--help``, ``--version``, ``check``, ``report`` and ``solve``
  on the example car, kernels on disk, car cached (medians of `--repeat` runs);
* the time to the first solved pose, and a loop of `model.solve` (smooth strokes and
  rack, each from the last pose): its total, the step at which the compiled kernel
  took over, and the median step before and after.

With ``--cache DIR`` an existing cache folder is used (no compile measured). The
machine's core count and load average are printed with the figures: on a shared
machine they swing by 2x.
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
DEFAULT = ROOT / "workbooks" / "fsae_car.xlsx"

LOOP = """
import json, math, sys, time
t0 = time.perf_counter()
import suspension_sim
from suspension_sim.solve import engine
model = suspension_sim.load(sys.argv[1])
pose = model.solve()
first = time.perf_counter() - t0
n, steps, used = len(model.damper_names), [], []
for i in range(int(sys.argv[2])):
    t = time.perf_counter()
    pose = model.solve(shocks=[15 * math.sin(i / 40)] * n, rack=4 * math.sin(i / 60), guess=pose)
    steps.append(time.perf_counter() - t)
    used.append(engine._READY)
print(json.dumps({"first": first, "steps": steps, "used": used}))
"""


def run(args: list[str], env: dict[str, str]) -> float:
    """Seconds of one whole process (`python -m suspension_sim ARGS`)."""
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "suspension_sim", *args], env=env, capture_output=True, text=True
    )
    took = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed:\n{proc.stderr}")
    return took


def on_disk(env: dict[str, str], group: str = "") -> bool:
    """True when the kernels (of `group`: "solve", the solvers' group) are on disk."""
    code = f"from suspension_sim.solve import warmup; print(warmup.on_disk({group!r}))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return out.stdout.strip() == "True"


def compile_after_install(env: dict[str, str], workbook: Path) -> tuple[float, float]:
    """Seconds from `check` on an empty cache (it starts the background compile) until
    the solvers' group is on disk (a new process's solves use it) and until every
    kernel is (polled every 0.5 s)."""
    t = time.perf_counter()
    run(["check", str(workbook)], env)
    solve = float("nan")
    while not on_disk(env):
        if solve != solve and on_disk(env, "solve"):
            solve = time.perf_counter() - t
        time.sleep(0.5)
    took = time.perf_counter() - t
    return (took if solve != solve else solve), took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workbook", type=Path, default=DEFAULT)
    parser.add_argument("--cache", type=Path, default=None, help="use this cache folder")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--steps", type=int, default=1000, help="model.solve loop length")
    a = parser.parse_args()
    folder = a.cache or Path(tempfile.mkdtemp(prefix="suspension_sim_bench_"))
    env = {
        **os.environ,
        "SUSPENSION_SIM_CACHE_DIR": str(folder),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.2f}")
    if a.cache is None:
        solve, took = compile_after_install(env, a.workbook)
        print(f"first command after install -> compiled solvers on disk: {solve:.0f} s")
        print(f"first command after install -> every compiled kernel on disk: {took:.0f} s")
    elif not on_disk(env):
        raise SystemExit(f"no compiled kernels in {folder}: run `suspension-sim warm-up`")
    wb = str(a.workbook)
    run(["check", wb], env)  # the car into the cache
    for label, argv in [
        ("--help", ["--help"]),
        ("--version", ["--version"]),
        ("check", ["check", wb]),
        ("report", ["report", wb]),
        ("solve", ["solve", wb]),
    ]:
        times = [run(argv, env) for _ in range(a.repeat)]
        print(f"{label:>10}: {statistics.median(times):.2f} s (whole process, median)")
    proc = subprocess.run(
        [sys.executable, "-c", LOOP, wb, str(a.steps)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(proc.stdout)
    steps, used = out["steps"], out["used"]
    k = used.index(True) if True in used else len(used)
    print(f"fresh process to its first solved pose: {out['first']:.2f} s")
    print(f"model.solve loop, {len(steps)} steps in a fresh process: {sum(steps):.2f} s")
    if k < len(steps):
        before = statistics.median(steps[:k]) * 1e3 if k else float("nan")
        after = statistics.median(steps[k + 1 :]) * 1e3
        print(
            f"  compiled from step {k + 1} (loading took {steps[k]:.2f} s); "
            f"median step {before:.2f} ms before, {after:.3f} ms after"
        )
    else:
        print(f"  numpy throughout: median step {statistics.median(steps) * 1e3:.2f} ms")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
