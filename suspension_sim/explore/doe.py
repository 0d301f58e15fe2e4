"""Design of experiments: a space-filling sample of hardpoint offsets, each design run
through the study's motions, the results streamed to one Parquet file.

`run_doe(car, study, out)` samples the study's variables (scipy.stats.qmc: scrambled
Sobol or Latin hypercube, seeded, so a study gives the same designs every time), splits
the designs into chunks and runs the chunks on a Dask cluster: a local one with one
single-threaded worker process per core by default, or the scheduler at an address
(``tcp://host:8786``) -- the same code path. Each finished chunk is written to the
Parquet file in design order, so the file is the same whatever the cluster did.

One row per (design, motion, step): the design number, every variable's offset (mm),
the motion's name and step, ``status`` (``ok``, or why not: ``unreachable``,
``branch jump``, ``input``, ``invalid design``, ``error``), ``reason`` (the solver's or
reader's message) and every metric column of the sweep table (docs/metrics.md units).
A design that cannot be built or solved is a row with its reason, never a crash.

The chunks run by `doe_fast.run_chunk_fast` (the structure the designs share built once
per worker, the metrics of a chunk's designs in one pass); `run_chunk` is the reference
path, one whole model and `sweep` tables per design, the same table
(``run_doe(fast=False)``; tests/test_doe_fast.py compares them).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.explore.design_space import (
    MotionRequest,
    Study,
    Variable,
    check_variables,
)
from suspension_sim.explore.doe_reference import run_chunk, run_design

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from suspension_sim.description import Car
    from suspension_sim.sweeps.spec import SweepSpec

KEY_COLUMNS = ("design", "motion", "step", "status", "reason")
"""Columns every row has before the offsets and the metrics."""
CHUNK_DESIGNS = 16
"""Fewest designs per task (`chunk_size`): a task costs Dask and the writing process
some milliseconds of CPU, about as much as a design on the fast path, and the fast
path checks and measures a task's designs together (8 designs a task cost ~0.3 ms of
CPU a design more than 32)."""
MAX_CHUNK_DESIGNS = 32
"""Most designs per task (`chunk_size`)."""
ROW_GROUP_ROWS = 4096
"""Rows the writer gathers (whole chunks, in design order) before it writes them as one
Parquet row group: with a few hundred columns, each write costs about as much per column
as per row, so small row groups cost the writing process ~0.5 ms of CPU per design."""
CHUNKS_AT_LEAST = 16
"""A study is cut into at least this many tasks where `CHUNK_DESIGNS` allows, so that
every worker of a small cluster stays busy to the end and the progress bar moves."""


def chunk_size(designs: int) -> int:
    """Designs per task for a study of `designs`: as many as keep `CHUNKS_AT_LEAST` tasks,
    between `CHUNK_DESIGNS` and `MAX_CHUNK_DESIGNS` (256 designs: 16 a task; 1024: 32).
    Larger tasks cost less Dask and Arrow overhead per design (on a local two-worker
    cluster, 8 designs a task took about 14 ms of CPU per design, 32 about 11.6)."""
    return max(CHUNK_DESIGNS, min(MAX_CHUNK_DESIGNS, designs // CHUNKS_AT_LEAST))


@dataclass
class DoeSummary:
    """What a study run did: counts by outcome, the time, and where the file is."""

    path: Path
    designs: int
    rows: int
    designs_ok: int
    designs_partly: int
    designs_failed: int
    seconds: float
    workers: int
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def designs_per_second(self) -> float:
        return self.designs / self.seconds if self.seconds > 0 else math.inf


def sample_offsets(study: Study) -> np.ndarray:
    """The study's designs: (samples, variables) offsets in mm within each range.

    Sobol points are scrambled (Owen) and seeded; a sample count that is not a power of
    two loses Sobol's balance properties a little (scipy warns; the warning is kept
    quiet here and said in docs/exploration.md)."""
    import warnings

    from scipy.stats import qmc

    d = len(study.variables)
    sampler: qmc.QMCEngine
    if study.method == "lhs":
        sampler = qmc.LatinHypercube(d, seed=study.seed)
    else:
        sampler = qmc.Sobol(d, scramble=True, seed=study.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        unit = sampler.random(study.samples)
    return np.asarray(qmc.scale(unit, study.lows, study.highs), dtype=float)


def motion_specs(
    model: Any, workbook: str | None, motions: Sequence[MotionRequest]
) -> list[SweepSpec]:
    """The sweeps of the study's motions on the design car (a named sweep of the workbook
    takes precedence over a standard motion of the same name, as in ``sweep``)."""
    from suspension_sim.sweeps import choose_sweep, standard_sweep

    out = []
    for m in motions:
        try:
            if workbook is None:
                out.append(standard_sweep(model, m.name, m.start, m.stop, m.steps))
            else:
                chosen = choose_sweep(
                    model, workbook, m.name, start=m.start, stop=m.stop, steps=m.steps
                )
                out.append(chosen.spec)
        except InputError as exc:
            raise InputError(exc.message, where=m.where, hint=exc.hint) from None
    return out


def table_columns(variables: Sequence[Variable], metric_columns: Sequence[str]) -> list[str]:
    """Every row's columns: keys, offsets, metrics."""
    return [*KEY_COLUMNS, *(v.name for v in variables), *metric_columns]


def column_types(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> dict[str, str]:
    """Each metric column's type from the design car's rows: ``float`` for numbers,
    ``bool`` for flags, ``string`` for text (e.g. which dampers are beyond their limits)."""
    types: dict[str, str] = {}
    for c in columns:
        values = [r[c] for r in rows if r.get(c) is not None]
        if values and all(isinstance(v, bool | np.bool_) for v in values):
            types[c] = "bool"
        elif all(
            isinstance(v, int | float | np.number) and not isinstance(v, bool) for v in values
        ):
            types[c] = "float"
        else:
            types[c] = "string"
    return types


def arrow_schema(variables: Sequence[Variable], metric_types: dict[str, str]) -> pa.Schema:
    """The Parquet schema: one for every chunk, so the file is one table."""
    import pyarrow as pa

    kinds = {"float": pa.float64(), "bool": pa.bool_(), "string": pa.string()}

    fields = [
        pa.field("design", pa.int64()),
        pa.field("motion", pa.string()),
        pa.field("step", pa.int64()),
        pa.field("status", pa.string()),
        pa.field("reason", pa.string()),
    ]
    fields += [pa.field(v.name, pa.float64()) for v in variables]
    fields += [pa.field(c, kinds[t]) for c, t in metric_types.items()]
    return pa.schema(fields)


def run_doe(
    car: Car,
    study: Study,
    out: str | os.PathLike[str],
    *,
    workbook: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    chunk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    fast: bool = True,
) -> DoeSummary:
    """Run every design of `study` and write the rows to the Parquet file `out`.

    scheduler: a Dask scheduler address; None starts a local cluster of `workers`
    single-threaded processes (None: one per core) and stops it afterwards; workers=0
    runs every chunk in this process, one after the other (the same chunks and rows:
    for debugging and for checking the cluster's table).
    chunk: designs per task (None: `chunk_size`; the file is the same whatever it is).
    progress(done designs, total) after each chunk. The file is written to a temporary
    name beside `out` and renamed when complete (`suspension_sim.files`).
    fast: run the chunks by the fast path (`doe_fast`: the structure the designs share
    built once per worker, the metrics of a chunk's designs in one pass); False runs
    the reference `run_chunk`, a whole model and sweep tables per design. The same
    table either way. Each chunk is made an Arrow table and counted where it ran
    (`chunk_task`); this process writes the chunks in design order.
    """
    from suspension_sim.model import KinematicModel

    check_variables(car, study.variables)
    base = KinematicModel(car)
    specs = motion_specs(base, workbook, study.motions)
    dask = None if scheduler is None and workers == 0 else _connect(scheduler, workers)
    try:
        return _run(dask, car, study, specs, out, chunk, progress, fast)
    finally:
        if dask is not None:
            dask.close()


def _run(
    dask: _Dask | None,
    car: Car,
    study: Study,
    specs: Sequence[SweepSpec],
    out: str | os.PathLike[str],
    chunk: int | None,
    progress: Callable[[int, int], None] | None,
    fast: bool,
) -> DoeSummary:
    """`run_doe` from its motions on: in this process (`dask` None) or on the cluster."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from suspension_sim.files import atomic_path

    convention = study.convention
    # The metric columns of the design car: every design's rows are put in them. Its
    # reference run, where the compiled kernels are loaded (on a worker: this process
    # may have none, and the numpy path costs it ~1 s).
    zero = [0.0] * len(study.variables)
    if dask is None:
        first_rows = zero_design_rows(car, study.variables, zero, specs, convention)
        offsets = sample_offsets(study)
    else:
        task = dask.client.submit(
            zero_design_rows, car, study.variables, zero, specs, convention, pure=False
        )
        offsets = sample_offsets(study)  # (scipy.stats' import, ~0.5 s, meanwhile)
        first_rows = task.result()
    reserved = set(KEY_COLUMNS) | {v.name for v in study.variables}
    metric_columns = list(dict.fromkeys(k for r in first_rows for k in r if k not in reserved))
    columns = table_columns(study.variables, metric_columns)
    schema = arrow_schema(study.variables, column_types(first_rows, metric_columns))
    n = len(offsets)
    if chunk is None:
        chunk = chunk_size(n)
    t0 = time.perf_counter()
    job = ChunkJob(fast, schema, car, study.variables, specs, convention, columns)
    finished: Iterator[tuple[int, ChunkResult]]
    if dask is None:
        finished = _in_process(job, offsets, chunk)
        n_workers = 0
    else:
        finished = _on_dask(dask, job, offsets, chunk)
        n_workers = dask.workers
    pending: dict[int, ChunkResult] = {}
    next_start = 0
    done = rows = 0
    counts = {"ok": 0, "partly": 0, "failed": 0}
    reasons: dict[str, int] = {}
    # Dictionary encoding only where values repeat (design, motion, step, status, text):
    # on the hundreds of float metric columns it costs ~60 % of the write and makes the
    # file larger.
    coded = [f.name for f in schema if not pa.types.is_floating(f.type)]
    try:
        with (
            atomic_path(out) as tmp,
            pq.ParquetWriter(str(tmp), schema, use_dictionary=coded) as writer,
        ):
            held: list[pa.Table] = []  # chunks not written yet, in design order
            held_rows = 0
            for s, result in finished:
                pending[s] = result
                while next_start in pending:
                    table, chunk_counts, chunk_reasons = pending.pop(next_start)
                    held.append(table)
                    held_rows += table.num_rows
                    if held_rows >= ROW_GROUP_ROWS:
                        writer.write_table(pa.concat_tables(held))
                        held, held_rows = [], 0
                    rows += table.num_rows
                    for k, v in chunk_counts.items():
                        counts[k] += v
                    for k, v in chunk_reasons.items():
                        reasons[k] = reasons.get(k, 0) + v
                    done += min(chunk, n - next_start)
                    next_start += chunk
                    if progress is not None:
                        progress(done, n)
            if held:
                writer.write_table(pa.concat_tables(held))
    finally:
        close = getattr(finished, "close", None)
        if close is not None:
            close()
    return DoeSummary(
        Path(out),
        n,
        rows,
        counts["ok"],
        counts["partly"],
        counts["failed"],
        time.perf_counter() - t0,
        n_workers,
        reasons,
    )


ChunkResult = tuple["pa.Table", dict[str, int], dict[str, int]]
"""A finished chunk: its rows as an Arrow table in the file's schema, the designs solved
at every step / partly / not at all, and how many rows have each status but ``ok``."""


@dataclass(frozen=True)
class ChunkJob:
    """What every chunk of a study runs with (shipped once to each Dask worker): the
    path (`doe_fast` or the reference), the file's Arrow schema, the car, the study's
    variables and motions, the sign convention and the table's columns."""

    fast: bool
    schema: pa.Schema
    car: Car
    variables: Sequence[Variable]
    specs: Sequence[SweepSpec]
    convention: str | None
    columns: Sequence[str]


def chunk_task(job: ChunkJob, first: int, offsets: np.ndarray) -> ChunkResult:
    """One chunk of designs (`offsets`, the first numbered `first`), as a worker runs it:
    the rows (`doe_fast.chunk_columns`, or the reference `run_chunk` when not
    `job.fast`), made an Arrow table in the job's schema and counted here, so the
    process writing the file only writes (converting a chunk's few hundred columns
    costs about as much as solving a design)."""
    import pyarrow as pa

    study = (job.car, job.variables, job.specs, job.convention)
    if job.fast:
        from suspension_sim.explore.doe_fast import chunk_columns

        data = chunk_columns(*study, first, offsets, job.columns)
        table = arrow_table(data, job.schema)
    else:
        frame = run_chunk(*study, first, offsets, job.columns)
        table = pa.Table.from_pandas(frame, schema=job.schema, preserve_index=False)
        data = {"design": frame["design"].to_numpy(), "status": frame["status"].to_numpy()}
    counts, reasons = count_designs(data["design"], data["status"])
    return table, counts, reasons


def arrow_table(data: dict[str, np.ndarray], schema: pa.Schema) -> pa.Table:
    """The columns `data` (`doe_fast.chunk_columns`) as an Arrow table in `schema`, as
    ``pa.Table.from_pandas`` makes it of the same columns in a DataFrame (NaN and None
    are nulls), one array per column without pandas in between."""
    import pandas as pd
    import pyarrow as pa

    try:
        arrays = [pa.array(data[f.name], type=f.type, from_pandas=True) for f in schema]
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a column the schema types otherwise
        frame = pd.DataFrame(data, columns=[f.name for f in schema])
        return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
    return pa.Table.from_arrays(arrays, schema=schema)


def count_designs(design: np.ndarray, status: np.ndarray) -> tuple[dict[str, int], dict[str, int]]:
    """Designs solved at every step (``ok``), at some (``partly``), at none (``failed``);
    and the rows of each status other than ``ok``."""
    counts = {"ok": 0, "partly": 0, "failed": 0}
    reasons: dict[str, int] = {}
    seen: dict[int, list[bool]] = {}
    for d, s in zip(design.tolist(), status.tolist(), strict=True):
        good = s == "ok"
        seen.setdefault(int(d), []).append(good)
        if not good:
            reasons[str(s)] = reasons.get(str(s), 0) + 1
    for flags in seen.values():
        counts["ok" if all(flags) else "partly" if any(flags) else "failed"] += 1
    return counts, reasons


def _in_process(
    job: ChunkJob, offsets: np.ndarray, chunk: int
) -> Iterator[tuple[int, ChunkResult]]:
    """(first design, its chunk), chunk after chunk, in this process."""
    for s in range(0, len(offsets), chunk):
        yield s, chunk_task(job, s, offsets[s : s + chunk])


def zero_design_rows(
    car: Car,
    variables: Sequence[Variable],
    offsets: Sequence[float],
    specs: Sequence[SweepSpec],
    convention: str | None,
) -> list[dict[str, object]]:
    """`run_design` with the compiled kernels loaded first when they are on disk (what
    `run_doe` reads the table's columns from; on a worker, as a task)."""
    from suspension_sim.solve import engine

    engine.load_kernel_if_cached()
    return run_design(car, variables, offsets, specs, convention)


@dataclass
class _Dask:
    """A Dask client and the local cluster `run_doe` started for it (None: the user's
    scheduler), and the number of workers."""

    client: Any
    cluster: Any
    workers: int
    warming: list[Any] = field(default_factory=list)
    """The futures of `prepare_worker` on each worker."""

    def close(self) -> None:
        """Close the client, and stop the local cluster `run_doe` started. A failure to
        close is logged, not raised: it must not hide the error the run may be ending
        with, and the table is written (or not) by then."""
        for part in (self.client, self.cluster):
            if part is None:
                continue
            try:
                part.close()
            except Exception as exc:
                logging.getLogger(__name__).warning("closing %s: %s", type(part).__name__, exc)


def _connect(scheduler: str | None, workers: int | None) -> _Dask:
    """A client of the Dask scheduler at `scheduler`, or of a local cluster of `workers`
    single-threaded processes (None: one per core) started here."""
    from dask.distributed import Client, LocalCluster

    # Dask's own chatter (a worker slow to stop, ...) is not the user's business; its
    # configuration sets the level when it is imported, so it is lowered here.
    logging.getLogger("distributed").setLevel(logging.ERROR)
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
    opened = _Dask(None, cluster, 0)
    try:
        client = opened.client = Client(scheduler if cluster is None else cluster)
        addresses = list(client.scheduler_info().get("workers", {}))
        opened.workers = len(addresses)
        # every worker imports the DOE's modules and loads the compiled kernels now, all
        # at once, one of them then running the zero design (not each at its first
        # chunk); the futures are kept so that the tasks are not cancelled
        opened.warming = [
            client.submit(prepare_worker, workers=[a], allow_other_workers=False, pure=False)
            for a in addresses
        ]
    except BaseException:
        opened.close()  # what was opened, nothing left running
        raise
    return opened


def prepare_worker() -> None:
    """On a Dask worker, before its first chunk: the fast path's modules imported and the
    compiled kernels loaded when they are on disk (~1 s on a fresh worker process)."""
    import suspension_sim.explore.doe_fast  # noqa: F401  (its imports: the solver, metrics)
    from suspension_sim.solve import engine

    engine.load_kernel_if_cached()


def _on_dask(
    dask: _Dask, job: ChunkJob, offsets: np.ndarray, chunk: int
) -> Iterator[tuple[int, ChunkResult]]:
    """The chunks submitted to the cluster (the job sent to every worker once); yields
    (first design, its `chunk_task` result) as chunks finish. When every chunk is in,
    the workers of a local cluster `run_doe` started are told to log nothing more
    (`quiet_worker_logs`)."""
    from dask.distributed import as_completed

    client = dask.client
    job_f = client.scatter(job, broadcast=True)
    futures = {
        client.submit(chunk_task, job_f, s, offsets[s : s + chunk], pure=False): s
        for s in range(0, len(offsets), chunk)
    }
    for fut in as_completed(list(futures)):
        yield futures[fut], fut.result()
    if dask.cluster is not None:  # every chunk is in: quiet the workers' stop
        with contextlib.suppress(Exception):
            client.run(quiet_worker_logs)


def quiet_worker_logs() -> None:
    """Run on each worker of a local cluster this process started, once every chunk is
    in, before the cluster stops: a worker whose heartbeat meets the scheduler already
    closing logs "Failed to communicate with scheduler during heartbeat" with a
    traceback (a race inside dask.distributed's own shutdown, harmless: nothing is left
    to run). A chunk's failure never goes through these logs: it comes back to this
    process with its future (`doe.run_doe` then raises or writes its rows)."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
