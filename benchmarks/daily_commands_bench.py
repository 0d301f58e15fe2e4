"""Daily commands as users get them (printed, never asserted):
``python benchmarks/daily_commands_bench.py``.

Every figure is a whole fresh process (``python -m suspension_sim ...``: start-up,
imports, the car from its cache, the work, the files), kernels on disk, best and
median of ``--repeat`` runs (and the median CPU time of the process with its children:
what the machine's load cannot inflate much), with the core count and load average:

* ``--help``, ``--version``;
* ``check``, ``report``, ``solve`` on the example car;
* ``sweep heave`` with its 7 charts (``--plot``), and without charts;
* ``compare`` of two cars (fsae_car, fsae_car_arb) with their charts;
* ``view --screenshot`` (off-screen, the rendering probe included);
* ``replay`` of a 200,000-sample log (500 Hz, with 50 ms dropouts, rows missing,
  spikes beyond the damper's travel and a damper jumping out of its travel: what a
  real log has) to Parquet and to CSV;
* a fresh Python process to its first solved pose (``import``, ``load``,
  ``model.solve()``), and the ``model.solve`` loop of ``first_use_bench`` (where the
  compiled kernel takes over).

Inputs and outputs are made in a temporary folder (the workbooks are only read).
``--source DIR ...`` times other checkouts of the package (e.g. a ``git worktree`` of
an older commit; several: their runs interleaved, for a before/after table),
``--only NAME ...`` some of the items (``help``, ``version`` for those two).
The children write their bytecode (``.pyc``) into the temporary folder and reuse it, as
an installed package has it, even where ``PYTHONDONTWRITEBYTECODE`` is set
(``--no-bytecode``: as the environment says; every module then compiled at each start).
The first use after an install (an empty cache: the background compile) is
``first_use_bench.py``'s. On a shared machine the figures swing by 2x: read the best.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
WORKBOOKS = ROOT / "workbooks"
CAR = WORKBOOKS / "fsae_car.xlsx"
OTHER_CAR = WORKBOOKS / "fsae_car_arb.xlsx"
MAP = WORKBOOKS / "replay_example" / "map.yaml"
NEUTRAL = tempfile.gettempdir()
"""The children's working folder: not a checkout (``python -m`` puts it first on the path)."""
LOG_SAMPLES = 200_000
LOG_HZ = 500.0

FIRST_POSE = """
import json, sys, time
t0 = time.perf_counter()
import suspension_sim
model = suspension_sim.load(sys.argv[1])
pose = model.solve()
print(json.dumps({"first": time.perf_counter() - t0, "ok": bool(pose.converged)}))
"""


def write_log(path: Path, samples: int = LOG_SAMPLES, hz: float = LOG_HZ) -> dict[str, int]:
    """A synthetic log in the replay example's layout (its map.yaml reads it): the
    example's cornering, braking and roll model at `hz`, with what a real log has:
    RL pot dropouts of 50 ms (blank cells), rows missing for 0.2 s (time gaps), FL
    spikes beyond the damper's travel, and the RR damper jumping 60 mm out of its travel
    for 3 samples. Returns how many of each were put in."""
    rng = np.random.default_rng(3)
    t = np.arange(samples) / hz
    ramp = np.clip((t - 2.0) / 0.5, 0.0, 1.0)
    steer = ramp * 90.0 * np.sin(2 * np.pi * t / 8.0)  # deg, + = left turn
    roll = 0.015 * steer
    pitch = 0.8 * np.sin(2 * np.pi * 0.3 * t) * (np.sin(2 * np.pi * t / 20.0) > 0.5)
    heave = -2.0 * ramp
    k_roll, k_pitch = 10.0, 12.0  # mm of stroke per deg
    strokes = np.column_stack(
        [
            -k_roll * roll + k_pitch * pitch - heave,
            +k_roll * roll + k_pitch * pitch - heave,
            -k_roll * roll - k_pitch * pitch - heave,
            +k_roll * roll - k_pitch * pitch - heave,
        ]
    )
    strokes[t < 2.0] = 0.0
    strokes += rng.normal(0.0, 0.05, strokes.shape)
    fl = strokes[:, 0] + 3.1  # pot 3.1 mm off zero (the map's static segment removes it)
    fr_volts = (200.0 - strokes[:, 1] - 150.0) / 15.0  # length = 15 V + 150 mm
    rl = strokes[:, 2].copy()
    rr_length = 200.0 - strokes[:, 3]
    span = t[-1]
    dropouts = [int(s * hz) for s in np.arange(10.0, span - 1.0, 19.3)]
    for a in dropouts:
        rl[a : a + int(0.05 * hz)] = np.nan
    spikes = [int(s * hz) for s in np.arange(5.0, span - 1.0, 9.7)]
    fl[spikes] = 34.0 + 3.1
    jumps = [int(s * hz) for s in np.arange(7.0, span - 1.0, 37.1)]
    for i in jumps:
        rr_length[i : i + 3] -= 60.0
    keep = np.ones(samples, bool)
    gaps = [int(s * hz) for s in np.arange(50.0, span - 1.0, 100.0)]
    for a in gaps:
        keep[a : a + int(0.2 * hz)] = False
    cells = np.column_stack([t, fl, fr_volts, rl, rr_length, steer, roll, pitch])[keep]
    head = [
        '"Format","SYNTHETIC benchmark log (benchmarks/daily_commands_bench.py)"',
        '"Vehicle","fsae_car"',
        f'"Sample Rate","{hz:g}","Hz"',
        "",
        '"Time","Damper Pos FL","Damper FR","Damper Pos RL","Damper RR Len",'
        '"Steered Angle","Roll Angle","Pitch Angle"',
        '"s","mm","V","mm","mm","deg","deg","deg"',
    ]
    text = "\n".join(",".join("" if v != v else f"{v:.4f}" for v in row) for row in cells.tolist())
    path.write_text("\n".join(head) + "\n" + text + "\n", encoding="utf-8")
    return {
        "samples": int(keep.sum()),
        "dropouts": len(dropouts),
        "spikes": len(spikes),
        "jumps": len(jumps),
        "gaps": len(gaps),
    }


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def whole_process(
    args: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)
) -> Callable[[], tuple[float, float]]:
    """A timer of one fresh ``python -m suspension_sim ARGS``: (wall clock, CPU) seconds,
    the CPU of the process and its own children (chart workers, the rendering probe)."""

    def timed() -> tuple[float, float]:
        cpu = children_cpu()
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "suspension_sim", *args],
            env=env,
            capture_output=True,
            cwd=NEUTRAL,
            text=True,
        )
        took = time.perf_counter() - t
        if proc.returncode not in ok:
            raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
        return took, children_cpu() - cpu

    return timed


def first_pose(env: dict[str, str]) -> Callable[[], tuple[float, float]]:
    """A timer of a fresh Python process to its first solved pose (as the child says;
    the CPU figure is the whole child's)."""

    def timed() -> tuple[float, float]:
        cpu = children_cpu()
        proc = subprocess.run(
            [sys.executable, "-c", FIRST_POSE, str(CAR)],
            env=env,
            capture_output=True,
            cwd=NEUTRAL,
            text=True,
            check=True,
        )
        return float(json.loads(proc.stdout)["first"]), children_cpu() - cpu

    return timed


def kernels_on_disk(env: dict[str, str]) -> bool:
    code = "from suspension_sim.solve import warmup; print(warmup.on_disk())"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, cwd=NEUTRAL, text=True
    )
    return out.stdout.strip() == "True"


def source_env(source: Path, pycache: Path | None = None) -> dict[str, str]:
    """The environment that runs the package of `source` (a checkout's root). pycache:
    a folder for the compiled bytecode (``PYTHONPYCACHEPREFIX``), written even where
    ``PYTHONDONTWRITEBYTECODE`` is set, as an installed package has its ``.pyc`` files
    (None: the environment's own setting)."""
    path = os.pathsep.join(p for p in (str(source.resolve()), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def timers(
    env: dict[str, str], folder: Path, log: Path, tag: str
) -> dict[str, Callable[[], tuple[float, float]]]:
    """Every item's timer for one checkout (`env`); outputs in `folder` under `tag`."""
    (folder / tag).mkdir(exist_ok=True)
    car, other, out = str(CAR), str(OTHER_CAR), str(folder / tag)
    replay = ["replay", car, str(log), "--map", str(MAP), "--quiet", "--force", "--out"]
    return {
        "--help": whole_process(["--help"], env),
        "--version": whole_process(["--version"], env),
        "check": whole_process(["check", car], env),
        "report": whole_process(["report", car], env),
        "solve": whole_process(["solve", car], env),
        "sweep heave + charts": whole_process(
            ["sweep", car, "heave", "--out", f"{out}/h.csv", "--plot", f"{out}/h", "--force"], env
        ),
        "sweep heave, no charts": whole_process(
            ["sweep", car, "heave", "--out", f"{out}/h2.csv", "--force"], env
        ),
        "compare 2 cars + charts": whole_process(
            ["compare", car, other, "heave", "--out", f"{out}/cmp"], env
        ),
        "view --screenshot": whole_process(["view", car, "--screenshot", f"{out}/view.png"], env),
        "replay -> parquet": whole_process([*replay, f"{out}/r.parquet"], env, ok=(0, 3)),
        "replay -> csv": whole_process([*replay, f"{out}/r.csv"], env, ok=(0, 3)),
        "first pose (Python)": first_pose(env),
    }


def solve_loop(env: dict[str, str], steps: int) -> str:
    """first_use_bench's loop of `model.solve` in a fresh process, as one line."""
    sys.path.insert(0, str(Path(__file__).parent))
    from first_use_bench import LOOP

    proc = subprocess.run(
        [sys.executable, "-c", LOOP, str(CAR), str(steps)],
        env=env,
        capture_output=True,
        cwd=NEUTRAL,
        text=True,
        check=True,
    )
    loop = json.loads(proc.stdout)
    times, used = loop["steps"], loop["used"]
    k = used.index(True) if True in used else len(used)
    where = f"compiled from step {k + 1}" if k < len(times) else "numpy throughout"
    return (
        f"model.solve loop of {len(times)} steps in a fresh process: {sum(times):.2f} s ({where})"
    )


def _item(name: str, known: Mapping[str, object]) -> str:
    """An item by its name; ``help`` and ``version`` for ``--help`` and ``--version``
    (argparse takes ``--only --help`` for its own option)."""
    return name if name in known or f"--{name}" not in known else f"--{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per item")
    parser.add_argument(
        "--source",
        type=Path,
        nargs="+",
        default=[ROOT],
        help="checkouts to time (several: their runs interleaved, for a before/after table)",
    )
    parser.add_argument("--only", nargs="*", default=None, help="items to time (names below)")
    parser.add_argument("--samples", type=int, default=LOG_SAMPLES, help="replay log length")
    parser.add_argument("--loop", type=int, default=1000, help="model.solve loop steps")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="leave PYTHONDONTWRITEBYTECODE as it is (by default the children write and "
        "reuse their .pyc files in a folder of their own, as an installed package has them)",
    )
    a = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="suspension_sim_daily_"))
    pycache = None if a.no_bytecode else folder / "pycache"
    envs = [source_env(s, pycache and pycache / str(k)) for k, s in enumerate(a.source)]
    for source, env in zip(a.source, envs, strict=True):
        if not kernels_on_disk(env):
            shutil.rmtree(folder, ignore_errors=True)
            raise SystemExit(f"{source}: the compiled kernels are not on disk: run warm-up")
    try:
        log = folder / "log.csv"
        made = write_log(log, a.samples)
        runs = [timers(env, folder, log, f"s{k}") for k, env in enumerate(envs)]
        wanted = list(runs[0]) if a.only is None else [_item(w, runs[0]) for w in a.only]
        unknown = [w for w in wanted if w not in runs[0]]
        if unknown:
            raise SystemExit(f"unknown items {unknown}; known: {list(runs[0])}")
        print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.2f}")
        print(
            "bytecode: "
            + ("as the environment says" if pycache is None else f"cached in {pycache}")
        )
        for k, source in enumerate(a.source):
            print(f"source {k}: {source}")
        print(
            f"replay log: {made['samples']} samples at {LOG_HZ:g} Hz, {made['dropouts']} "
            f"dropouts, {made['gaps']} time gaps, {made['spikes']} spikes and "
            f"{made['jumps']} jumps beyond the travel"
        )
        for env in envs:  # the cars into each checkout's cache
            whole_process(["check", str(CAR)], env)()
            whole_process(["check", str(OTHER_CAR)], env)()
        for name in wanted:
            for timer in runs:
                timer[name]()  # one run first: the page cache, the outputs in place
            got: list[list[tuple[float, float]]] = [[] for _ in runs]
            for _ in range(a.repeat):
                for k, timer in enumerate(runs):
                    got[k].append(timer[name]())
            for k, times in enumerate(got):
                wall = [w for w, _ in times]
                cpu = statistics.median(c for _, c in times)
                label = name if len(runs) == 1 else f"{name} [{k}]"
                print(
                    f"{label:>28}: best {min(wall):6.2f} s, median "
                    f"{statistics.median(wall):6.2f} s (CPU {cpu:5.2f} s; {a.repeat} runs)",
                    flush=True,
                )
        if a.only is None and a.loop:
            for k, env in enumerate(envs):
                print(("" if len(envs) == 1 else f"[{k}] ") + solve_loop(env, a.loop))
        print(f"load average at end: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
