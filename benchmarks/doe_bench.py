"""Design-of-experiments throughput: designs per second per core (CPU time) and CPU ms per
design by the fast path and by the reference path, and on a local Dask cluster of 1 and 2
worker processes (the scaling).

    python3 benchmarks/doe_bench.py [--designs 64] [--run-designs 512] [--dask-designs 512]
                                    [--repeats 3] [--no-dask]

Each design of the example car runs three motions of 13 steps (heave, roll, steer), the
issue's yardstick; the study moves four hardpoints symmetrically. In process: the
chunks of `doe_fast.run_chunk_fast` (`--run-designs` designs cut into `run_doe`'s
chunks) and of the reference `doe.run_chunk` (`--designs` designs in one), one after
the other, timed by the wall clock and by this process's CPU time (other programs on
the machine slow the first, hardly the second); then the whole `run_doe --workers 0`
by both paths (chunks made Arrow tables and written to Parquet; as many designs as
above): designs per second after the start-up (`DoeSummary.designs_per_second`), per
CPU second of the whole call, and the start-up (the base car's reference run that
fixes the table's columns, once per study). On Dask: `run_doe` through a running local
cluster (started and warmed up first, so its start is not counted; each run still
hands the car to the workers and builds their shared structure), by the wall clock
and per CPU second of the workers and this process together. Prints the core count,
the load average before and after, best and median of the repeats. Writes only into a
temporary folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:  # pragma: no cover
    import suspension_sim as ss
    from suspension_sim.description import Car
    from suspension_sim.explore.design_space import Study, Variable
    from suspension_sim.sweeps.spec import SweepSpec

STUDY = """\
version: 1
variables:
  - {point: FL_UCA_F, axis: z, range: [-5, 5], symmetric: true}
  - {point: FL_LCA_R, axis: y, range: [-4, 4], symmetric: true}
  - {point: FL_TIE_I, axis: z, range: [-3, 3], symmetric: true}
  - {point: RL_TIE_I, axis: z, range: [-3, 3], symmetric: true}
motions:
  - {motion: heave, steps: 13}
  - {motion: roll, steps: 13}
  - {motion: steer, steps: 13}
samples: %d
seed: 1
"""


def load() -> str:
    """The 1, 5 and 15 minute load averages (runnable processes; 2 = both cores busy)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rates(label: str, values: list[float], unit: str = "designs/s") -> str:
    return f"{label}: best {max(values):.1f}, median {statistics.median(values):.1f} {unit}"


def timed(run: Callable[[], object], designs: int, repeats: int) -> tuple[list[float], list[float]]:
    """Designs per wall-clock second and per CPU second of this process, per repeat."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        run()
        wall.append(designs / (time.perf_counter() - t))
        cpu.append(designs / (time.process_time() - c))
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=int, default=64, help="designs per reference-path run")
    parser.add_argument(
        "--run-designs", type=int, default=512, help="designs per fast-path run (in process)"
    )
    parser.add_argument("--dask-designs", type=int, default=512, help="designs per Dask run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true", help="only the in-process figures")
    args = parser.parse_args()

    import suspension_sim as ss
    from suspension_sim.explore import doe, doe_fast
    from suspension_sim.explore.design_space import read_study
    from suspension_sim.solve import engine

    workbook = str(ROOT / "workbooks" / "fsae_car.xlsx")
    model = ss.load(workbook)
    print(
        f"cores: {os.cpu_count()}; compiled kernels in use: {engine.load_kernel_if_cached()};"
        f" load average (1, 5, 15 min) before: {load()}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "study.yaml"
        path.write_text(STUDY % args.designs, encoding="utf-8")
        study = read_study(path)
        specs = doe.motion_specs(model, workbook, study.motions)
        steps = [len(s.motion.values) for s in specs]
        offsets = doe.sample_offsets(study)
        rows = doe.run_design(model.car, study.variables, offsets[0], specs, None)
        reserved = set(doe.KEY_COLUMNS) | {v.name for v in study.variables}
        metric = list(dict.fromkeys(k for r in rows for k in r if k not in reserved))
        columns = doe.table_columns(study.variables, metric)
        car, variables = model.car, study.variables
        print(
            f"{args.designs} designs x {len(specs)} motions ({', '.join(s.name for s in specs)})"
            f" x {steps} steps, {len(columns)} columns"
        )
        t = time.perf_counter()
        doe_fast.runner(car, variables, specs, None, columns)
        print(
            f"fast path, shared structure built once per process: {time.perf_counter() - t:.2f} s"
        )

        many = doe.sample_offsets(dataclasses.replace(study, samples=args.run_designs))
        size = doe.chunk_size(len(many))

        def fast() -> object:  # the designs in run_doe's chunks, one after the other
            for s in range(0, len(many), size):
                part = many[s : s + size]
                doe_fast.run_chunk_fast(car, variables, specs, None, s, part, columns)
            return None

        def reference() -> object:
            return doe.run_chunk(car, variables, specs, None, 0, offsets, columns)

        for name, run, n_designs in (
            (f"fast path, {len(many)} designs in chunks of {size}", fast, len(many)),
            (f"reference path, {len(offsets)} designs in one chunk", reference, len(offsets)),
        ):
            wall, cpu = timed(run, n_designs, args.repeats)
            ms = 1e3 / statistics.median(cpu)
            print(
                f"one core, {name}: {rates('wall clock', wall)}; "
                f"{rates('designs/s per core (CPU time)', cpu)}; {ms:.1f} ms of CPU per design"
            )
            if run is fast:
                taken = _from_base_share(car, variables, specs, columns, many)
                print(f"  designs of the fast path solved from the base car's steps: {taken}")
        for way in (True, False):
            n_run = args.run_designs if way else args.designs  # (the reference is slow)
            run_study = dataclasses.replace(study, samples=n_run)
            whole: list[float] = []
            whole_cpu: list[float] = []
            start: list[float] = []
            for r in range(args.repeats):
                out = Path(tmp) / f"w0-{way}-{r}.parquet"
                t, c = time.perf_counter(), time.process_time()
                summary = doe.run_doe(car, run_study, out, workbook=workbook, workers=0, fast=way)
                wall, cpu = time.perf_counter() - t, time.process_time() - c
                whole.append(summary.designs_per_second)
                whole_cpu.append(n_run / cpu)
                start.append(wall - summary.seconds)
            name = "fast path" if way else "reference path"
            print(
                f"one core, run_doe --workers 0, {n_run} designs (rows written to Parquet), "
                f"{name}: {rates('wall clock, after the start-up', whole)}; "
                f"{rates('per CPU second of the whole call', whole_cpu)}; start-up before "
                "the first design (the base car's reference run that fixes the table's columns): "
                f"median {statistics.median(start):.2f} s"
            )
        print(f"load average after the in-process runs: {load()}")
        if not args.no_dask:
            dask_scaling(
                study, model, workbook, specs, columns, args.dask_designs, args.repeats, Path(tmp)
            )


def _from_base_share(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    columns: list[str],
    offsets: object,
) -> str:
    """How many of the designs the fast path solved from the base car's steps
    (`doe_batch.FromBase`), the rest by the reference continuation."""
    from suspension_sim.explore import doe_fast

    run = doe_fast.runner(car, variables, specs, None, columns)
    fb = getattr(run, "from_base", None)  # (older fast paths have none)
    if fb is None or not fb.ready:
        return "none (the base car does not allow it, or no compiled kernels)"
    rows = list(offsets)  # type: ignore[call-overload]
    taken = 0
    for row in rows:
        model, shared = run.model(row)
        taken += bool(shared and fb.run(model) is not None)
    return f"{taken} of {len(rows)}"


def _warm_worker(
    car: Car, variables: Sequence[Variable], specs: Sequence[SweepSpec], columns: list[str]
) -> bool:
    """Run on each worker before the clock starts: load the compiled kernels and run one
    design (numba loads some kernel functions from its disk cache on their first call).
    True when the worker solves with the compiled kernels (False: they are not on disk,
    e.g. being compiled again after a change, and the worker runs the numpy path)."""
    import numpy as np

    from suspension_sim.explore import doe_fast
    from suspension_sim.solve import engine

    offsets = np.zeros((1, len(variables)))
    doe_fast.run_chunk_fast(car, variables, specs, None, 0, offsets, columns)
    return engine.kernel_compiled()


def dask_scaling(
    study: Study,
    model: ss.Model,
    workbook: str,
    specs: list[SweepSpec],
    columns: list[str],
    designs: int,
    repeats: int,
    tmp: Path,
) -> None:
    """`run_doe` through a warmed-up local cluster of 1, then 2 single-threaded worker
    processes: designs per second (total and per worker) and the 2-to-1 ratio."""
    import logging

    from dask.distributed import Client, LocalCluster

    from suspension_sim.explore import doe

    logging.getLogger("distributed").setLevel(logging.ERROR)
    big = dataclasses.replace(study, samples=designs)
    warm = dataclasses.replace(study, samples=8)
    medians: dict[int, float] = {}
    for workers in (1, 2):
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            address = cluster.scheduler_address
            compiled = client.run(_warm_worker, model.car, study.variables, specs, columns)
            if not all(compiled.values()):
                print(
                    f"warning: {workers} worker(s): compiled kernels not in use in "
                    f"{sum(not c for c in compiled.values())} of them (numpy path): "
                    "the figures below are not the compiled engine's"
                )
            doe.run_doe(model.car, warm, tmp / "warm.parquet", workbook=workbook, scheduler=address)
            got: list[float] = []
            cpu: list[float] = []  # designs per CPU second of the workers and this process
            for r in range(repeats):
                out = tmp / f"w{workers}-{r}.parquet"
                before = sum(client.run(time.process_time).values()) + time.process_time()
                s = doe.run_doe(model.car, big, out, workbook=workbook, scheduler=address)
                after = sum(client.run(time.process_time).values()) + time.process_time()
                got.append(s.designs_per_second)
                cpu.append(designs / (after - before))
            client.run(doe.quiet_worker_logs)  # the workers' stop, as run_doe's own
        medians[workers] = statistics.median(got)
        per = [g / workers for g in got]
        print(
            f"local Dask cluster, {workers} worker process(es), {designs} designs: "
            f"{rates('total', got)}; {rates('per worker', per)}; "
            f"{rates('per CPU second (workers + this process)', cpu)} (load after: {load()})"
        )
    print(
        f"scaling 2 workers / 1 worker (medians): {medians[2] / medians[1]:.2f} "
        "(2.00 = linear; other programs on the cores lower it: the designs per CPU second "
        "say whether two workers cost more work per design than one)"
    )


if __name__ == "__main__":
    main()
