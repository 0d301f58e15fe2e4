"""The fast path of a design of experiments: many designs of one car, with what does not
change between them built once per worker process.

A DOE moves hard-point coordinates and nothing else. The body graph, the joint classes,
the solver's blocks and Jacobian layout, the kernel tables' layout and the metric
layout are then the same for every design whose points did not move far enough to
change them. The reference path (`doe.run_design`) builds a whole `KinematicModel` per
design, runs `sweeps.run_sweep` per motion and turns each sweep's pandas table into row
dictionaries. `DesignRunner` (one per worker process and study, `runner`) first runs
the motions on the base car (the workbook's), then per design:

* **model** (`explore.doe_refill.refill_model`): only the bodies carrying a moved
  point get new joints: their frames re-computed for the class they have on the base car
  (`model.refit.refit`), or, when that is not certain, classified again by
  `model.topology.classify` itself; `same_structure` then compares the
  design with the base car (joints, parameters, parts, point copies, active joined
  pairs). The same: the base car's structural caches are handed over
  (`share_structure`: the problems' blocks, the engine plan, the Jacobian and metric
  layouts, the compiled kernels' entry points) and its kernel tables refilled with the
  design's numbers (`engine_tables.refill_tables`, `engine_reduced.refill_reduced`).
  Not the same (a point moved onto an axis, two pivots together...): the design is
  built whole and run as the reference runs it, never on the base car's structure;
* **checks and solves** (`explore.doe_batch.FromBase`): the design checks from one
  Jacobian at design, for the chunk's designs together (`FromBase.check_many`,
  `explore.doe_checks.design_checks_many`), and each motion's states solved from the
  base car's solved
  steps and screened for a branch jump; a design or motion that does not pass them
  runs the reference's checks and continuation (`checked_mobility`, `run_sweep` with
  ``keep_poses=False``), so the solved joint parameters, the failures and their
  reasons are the reference's;
* **metrics**: those of every solved step of every design of the chunk whose
  `WheelSet` equals the base car's in one pass of the formulas
  (`doe_metrics.designs_metrics`), of the others one `batch_metrics` call per design,
  written straight into the chunk's columns.

`run_chunk_fast` returns the same table as `doe.run_chunk` (tests/test_doe_fast.py
compares every column, numbers to 1e-9). Units: mm, deg in the columns.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import SuspensionSimError
from suspension_sim.explore.design_space import Variable, apply_offsets
from suspension_sim.explore.doe_refill import refill_model, same_structure, share_structure
from suspension_sim.sweeps.result import MetricRows

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.description import Car
    from suspension_sim.explore.doe_batch import FromBase
    from suspension_sim.explore.doe_metrics import JointPlan
    from suspension_sim.metrics.geometry import WheelSet
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import BatchResult
    from suspension_sim.sweeps.result import SweepResult
    from suspension_sim.sweeps.spec import SweepSpec

STRING_COLUMNS = ("dampers_beyond_limits",)
"""Metric columns of a sweep table that hold text, not numbers."""


@dataclass
class Outcome:
    """One design's rows as arrays: per row its motion, step, status and reason, the
    metric values (rows, metric columns) and the text columns (`STRING_COLUMNS`)."""

    motion: list[str | None]
    step: list[int]
    status: list[str]
    reason: list[str]
    values: np.ndarray
    text: list[list[str | None]]


@dataclass
class Solved:
    """A design solved through every motion: its model, each motion's result (or the
    reason it could not run), all solved steps as one batch (None: none solved), and
    whether its wheel set is the base car's (its metrics can join the others')."""

    model: KinematicModel
    results: list[tuple[SweepSpec, SweepResult | None, str]]
    batch: BatchResult | None
    shared_wheels: bool


class DesignRunner:
    """Runs designs of one car through fixed motions (the fast path of `doe.run_chunk`).

    Built once per worker process and study (`runner`); `run` gives one design's rows.
    """

    def __init__(
        self,
        car: Car,
        variables: Sequence[Variable],
        specs: Sequence[SweepSpec],
        convention: str | None,
        columns: Sequence[str],
    ) -> None:
        from suspension_sim.model import KinematicModel
        from suspension_sim.solve.diagnostics import checked_mobility
        from suspension_sim.sweeps import run_sweep

        self.car = car
        self.variables = tuple(variables)
        self.specs = tuple(specs)
        self.convention = convention
        self.columns = list(columns)
        reserved = {"design", "motion", "step", "status", "reason"} | {
            v.name for v in self.variables
        }
        self.metric_columns = [c for c in self.columns if c not in reserved]
        self.col = {c: k for k, c in enumerate(self.metric_columns)}
        self.text_cols = [c for c in self.metric_columns if c in STRING_COLUMNS]
        self._takes: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[np.ndarray, ...]] = {}
        """By (a motion's swept columns, the metrics' names): which metric columns of the
        table (first array) take which metric (second) (`_rows`)."""
        self.base = KinematicModel(car)
        self.moved = frozenset(
            p for v in self.variables for p in (v.point, v.twin) if p is not None
        )
        """The points the study's variables move (their twins included)."""
        self.base_ok = False
        """The base car ran every motion: its caches are the structure to share."""
        ran: list[SweepResult] = []
        """The base car's motions, poses kept (`doe_batch.FromBase` starts from them)."""
        # The base car's caches, built by one run of every motion (the structure the
        # designs share); a base car that cannot run leaves them unbuilt, and each
        # design then builds its own.
        try:
            checked_mobility(self.base)
            ran = [run_sweep(self.base, spec, convention=convention) for spec in self.specs]
            from suspension_sim.metrics.core import layout

            layout(self.base, True)
            from suspension_sim.solve.engine_reduced import reduced_tables

            reduced_tables(self.base)  # the metrics' tangents solve on them
            self.base_ok = True
        except SuspensionSimError:  # the base car cannot run a motion: base_ok stays
            self.base_ok = False  # False and every design builds and runs on its own
        from suspension_sim.metrics import preset

        self.preset = preset(convention or car.options.sign_convention).name
        """The sign convention's preset name (the same for every design: offsets leave
        the workbook's options alone)."""
        self.check_errors: list[str] = []
        """Unforeseen exceptions of the chunks' design checks together
        (`FromBase.check_many`; each design was then checked on its own): none expected,
        the tests assert it stays empty."""
        self.from_base: FromBase | None = None
        """The base car's motions, for solving each design's from them (`doe_batch`)."""
        if self.base_ok:
            from suspension_sim.explore.doe_batch import FromBase

            self.from_base = FromBase(self.base, self.specs, convention, self.moved, ran)
        self.plan: JointPlan | None = None
        """The batched formulas' plan of the base car; None: each design on its own."""
        self.wheels: WheelSet | None = None
        try:
            from suspension_sim.explore.doe_metrics import joint_path
            from suspension_sim.metrics.geometry import wheel_set

            self.wheels = wheel_set(self.base)
            self.plan = joint_path(self.base)
        except SuspensionSimError:
            self.plan = None

    def model(self, offsets: Sequence[float]) -> tuple[KinematicModel, bool]:
        """The design's model, sharing the base car's structure when it has it (then
        True), else built on its own as the reference builds it (False)."""
        from suspension_sim.model import KinematicModel

        car = apply_offsets(self.car, self.variables, offsets)
        model = refill_model(self.base, car, self.moved) if self.base_ok else None
        if model is None:
            model = KinematicModel(car)
        shared = same_structure(self.base, model)
        if shared:
            share_structure(self.base, model)
        return model, shared

    def run(self, offsets: Sequence[float]) -> Outcome:
        """One design's rows (as `doe.run_design`, in arrays)."""
        return self.run_many([offsets])[0]

    def run_many(self, designs: Sequence[Sequence[float]]) -> list[Outcome]:
        """The rows of several designs: each design solved (as `doe.run_design` does),
        then the metrics of all their solved steps, in one pass of the formulas for the
        designs whose wheel set is the base car's (`doe_metrics.designs_metrics`), one
        `batch_metrics` call per design for the others. An exception no check foresaw
        is that design's ``error`` row."""
        # each design's model, then the design checks of those on the base car's
        # structure together (`FromBase.check_many`), then each design's solves
        built: list[tuple[KinematicModel, bool] | Outcome] = []
        for offsets in designs:
            try:
                built.append(self.model(offsets))
            except SuspensionSimError as exc:
                built.append(self.failed_row(None, "invalid design", exc.render()))
            except Exception as exc:  # a design's failure is data (as doe.run_chunk)
                built.append(self.failed_row(None, "error", f"{type(exc).__name__}: {exc}"))
        checked: dict[int, bool] = {}
        if self.from_base is not None:
            shared = {i: b[0] for i, b in enumerate(built) if not isinstance(b, Outcome) and b[1]}
            try:
                answers = self.from_base.check_many(list(shared.values()))
                checked = dict(zip(shared, answers, strict=True))
            except Exception as exc:  # left to each design's own checks in `solve`
                checked = {}  # (the same rows, only slower: kept for the tests to see)
                if len(self.check_errors) < 8:
                    self.check_errors.append(f"{type(exc).__name__}: {exc}")
        solved: list[Solved | Outcome] = []
        for i, b in enumerate(built):
            if isinstance(b, Outcome):
                solved.append(b)
                continue
            try:
                solved.append(self.solve_built(b, checked.get(i)))
            except Exception as exc:  # a design's failure is data (as doe.run_chunk)
                solved.append(self.failed_row(None, "error", f"{type(exc).__name__}: {exc}"))
        metrics: dict[int, tuple[np.ndarray, list[str]]] = {}
        joint = [
            i
            for i, d in enumerate(solved)
            if isinstance(d, Solved) and d.batch is not None and d.shared_wheels
        ]
        if joint and self.plan is not None and self.wheels is not None:
            from suspension_sim.explore.doe_metrics import designs_metrics

            items = []
            for i in joint:
                d = solved[i]
                assert isinstance(d, Solved) and d.batch is not None
                items.append((d.model, d.batch))
            try:
                values = designs_metrics(self.plan, self.wheels, items, self.preset)
            except Exception:  # left to each design's own batch below
                values = []
            for i, v in zip(joint, values, strict=False):
                metrics[i] = (v, list(self.plan.keys))
        out: list[Outcome] = []
        for i, d in enumerate(solved):
            if not isinstance(d, Solved):
                out.append(d)
                continue
            try:
                out.append(self._rows(d, metrics.get(i)))
            except Exception as exc:
                out.append(self.failed_row(None, "error", f"{type(exc).__name__}: {exc}"))
        return out

    def solve(self, offsets: Sequence[float]) -> Solved | Outcome:
        """The design's model and every motion solved, or its ``invalid design`` row."""
        try:
            built = self.model(offsets)
        except SuspensionSimError as exc:
            return self.failed_row(None, "invalid design", exc.render())
        return self.solve_built(built)

    def solve_built(
        self, built: tuple[KinematicModel, bool], checked: bool | None = None
    ) -> Solved | Outcome:
        """`solve` of a design whose model is built (`model`: it and whether it has the
        base car's structure). checked: its design checks' answer when known
        (`FromBase.check_many`)."""
        from suspension_sim.solve.diagnostics import checked_mobility
        from suspension_sim.sweeps import run_sweep

        model, structure = built
        fast = None  # the motions solved from the base car's (`doe_batch`), if they can be
        if structure and self.from_base is not None:
            fast = self.from_base.run(model, checked)
        if fast is None:
            try:
                checked_mobility(model)
            except SuspensionSimError as exc:
                return self.failed_row(None, "invalid design", exc.render())
        results: list[tuple[SweepSpec, SweepResult | None, str]] = []
        for k, spec in enumerate(self.specs):
            got = None if fast is None else fast[k]
            if got is not None:  # solved from the base car's steps
                results.append(got)
                continue
            try:
                res = run_sweep(model, spec, convention=self.convention, keep_poses=False)
            except SuspensionSimError as exc:
                results.append((spec, None, exc.render()))
                continue
            results.append((spec, res, ""))
        every = MetricRows(self.preset)
        for _spec, done, _ in results:
            if done is not None and done.rows is not None and done.rows.values:
                r = done.rows
                every.model = r.model
                every.params += r.params
                every.shocks += r.shocks
                every.rack += r.rack
                every.chassis += r.chassis
                every.residual += r.residual
                every.tolerance = max(every.tolerance, r.tolerance)
                every.limits += r.limits
        batch = every.batch() if every.params else None
        shared = False
        if batch is not None and structure and self.plan is not None and self.wheels is not None:
            from suspension_sim.explore.doe_metrics import same_wheels
            from suspension_sim.metrics.geometry import wheel_set

            known: bool | None = None  # known without building the design's wheel set
            if fast is not None and self.from_base is not None:
                known = self.from_base.same_wheels(model)
            shared = same_wheels(wheel_set(model), self.wheels) if known is None else known
        return Solved(model, results, batch, shared)

    def failed_row(self, motion: str | None, status: str, reason: str) -> Outcome:
        """A design's one row saying why it has no others."""
        values = np.full((1, len(self.metric_columns)), np.nan)
        return Outcome([motion], [-1], [status], [reason], values, [[None] * len(self.text_cols)])

    def _rows(self, d: Solved, joint: tuple[np.ndarray, list[str]] | None) -> Outcome:
        """Every motion's rows of a solved design; the metrics of its solved steps from
        `joint` (`designs_metrics`) or else one `batch_metrics` call."""
        from suspension_sim.metrics.batch import batch_metrics

        results = d.results
        metrics: np.ndarray | None = None
        names: list[str] = []
        if joint is not None:
            metrics, names = joint
        elif d.batch is not None:
            table = batch_metrics(d.batch, self.preset, rates=True)
            metrics, names = table.to_numpy(dtype=float), [str(c) for c in table.columns]
        motion: list[str | None] = []
        step: list[int] = []
        status: list[str] = []
        reason: list[str] = []
        blocks: list[np.ndarray] = []
        text: list[list[str | None]] = []
        n_cols = len(self.metric_columns)
        done = 0  # solved steps taken from `metrics`
        for spec, res, why in results:
            if res is None:
                motion.append(spec.name)
                step.append(-1)
                status.append("input")
                reason.append(why)
                blocks.append(np.full((1, n_cols), np.nan))
                text.append([None] * len(self.text_cols))
                continue
            total = len(res.motion)
            out = np.full((total, n_cols), np.nan)
            texts: list[list[str | None]] = [[None] * len(self.text_cols) for _ in range(total)]
            solved = res.steps
            n = len(solved)
            if n:
                assert metrics is not None
                chunk = metrics[done : done + n]
                done += n
                front = list(res.columns)
                # the swept values first, then every metric not equal to a swept column
                for j, c in enumerate(front):
                    k = self.col.get(c)
                    if k is not None:
                        out[solved, k] = res.values[:, j]
                key = (tuple(front), tuple(names))
                found = self._takes.get(key)
                if found is None:
                    take = [
                        (self.col[c], i)
                        for i, c in enumerate(names)
                        if c not in front and c in self.col
                    ]
                    pairs = list(zip(*take, strict=True)) if take else [(), ()]
                    found = (np.array(pairs[0], dtype=np.int64), np.array(pairs[1], dtype=np.int64))
                    if len(self._takes) < 64:
                        self._takes[key] = found
                dst, src = found
                if len(dst):
                    out[np.ix_(np.asarray(solved), dst)] = chunk[:, src]
                assert res.rows is not None
                limits = res.rows.limits
                for t, c in enumerate(self.text_cols):
                    if c == "dampers_beyond_limits":
                        for i, s in enumerate(solved):
                            texts[s][t] = limits[i]
            failed = {p.step: p for p in res.problems}
            for s in range(total):
                motion.append(spec.name)
                step.append(s)
                if s in failed:
                    status.append(failed[s].kind)
                    reason.append(failed[s].message)
                    out[s] = np.nan
                else:
                    status.append("ok")
                    reason.append("")
            blocks.append(out)
            text += texts
        values = np.concatenate(blocks) if blocks else np.zeros((0, n_cols))
        return Outcome(motion, step, status, reason, values, text)


PAUSED_DESIGNS = 64
"""Designs run between two chances of Python's cyclic garbage collector (`collector_paused`)."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a few designs run, as it was after.
    A design allocates thousands of short-lived containers, so the collector runs often,
    and its older generations walk every long-lived object of the worker (the base car's
    model, caches and compiled tables: ~185,000 objects), ~5-10 % of a design's time
    for no garbage: a design's objects are freed by their reference counts (64 designs
    of the example study left no cycle for the collector), and any cycle waits at most
    `PAUSED_DESIGNS` designs. The switch is the process's: with chunks run by several
    threads at once (a Dask worker of more than one thread), the first to finish turns
    it back on while another runs (harmless: only slower)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_RUNNERS: dict[tuple[int, ...], tuple[Any, DesignRunner]] = {}
"""Runners kept per worker process, by the identity of the study's objects (held in the
value, so the identities stay theirs)."""


def runner(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    convention: str | None,
    columns: Sequence[str],
) -> DesignRunner:
    """The process's `DesignRunner` of a study (built on first use, then kept: a Dask
    worker receives the scattered car, variables and motions once and runs many chunks)."""
    key = (id(car), id(variables), id(specs), hash(convention), hash(tuple(columns)))
    found = _RUNNERS.get(key)
    if found is not None:
        return found[1]
    made = DesignRunner(car, variables, specs, convention, columns)
    if len(_RUNNERS) >= 4:
        _RUNNERS.clear()
    _RUNNERS[key] = ((car, variables, specs), made)
    return made


def run_chunk_fast(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    convention: str | None,
    first: int,
    offsets: np.ndarray,
    columns: Sequence[str],
) -> pd.DataFrame:
    """`doe.run_chunk`'s table by the fast path: the same rows, columns and values."""
    import pandas as pd

    data = chunk_columns(car, variables, specs, convention, first, offsets, columns)
    return pd.DataFrame(data, columns=list(columns))


def chunk_columns(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    convention: str | None,
    first: int,
    offsets: np.ndarray,
    columns: Sequence[str],
) -> dict[str, np.ndarray]:
    """`run_chunk_fast`'s table as one array per column, in `columns`' order (what the
    Parquet writer takes without going through pandas): int64 design and step, object
    arrays of text (NaN where a row has none, as pandas fills a missing record key; a
    float64 column of NaN when no row has any, as pandas makes a key no record has),
    float64 offsets and metrics."""
    from suspension_sim.solve import engine

    engine.load_kernel_if_cached()
    try:
        run = runner(car, variables, specs, convention, columns)
    except Exception:  # the base car itself fails in a way no check foresaw: the
        # reference path then makes each design's row (with its reason)
        from suspension_sim.explore.doe_reference import run_chunk

        frame = run_chunk(car, variables, specs, convention, first, offsets, columns)
        return {c: frame[c].to_numpy() for c in columns}
    designs = np.atleast_2d(np.asarray(offsets, dtype=float))
    parts: list[Outcome] = []
    for s in range(0, len(designs), PAUSED_DESIGNS):
        with collector_paused():
            parts += run.run_many(list(designs[s : s + PAUSED_DESIGNS]))
    design_no: list[int] = []
    for i, got in enumerate(parts):
        design_no += [first + i] * len(got.step)
    n_rows = len(design_no)
    data: dict[str, np.ndarray] = {
        "design": np.array(design_no, dtype=np.int64),
        "motion": np.array([m for p in parts for m in p.motion], dtype=object),
        "step": np.array([s for p in parts for s in p.step], dtype=np.int64),
        "status": np.array([s for p in parts for s in p.status], dtype=object),
        "reason": np.array([r for p in parts for r in p.reason], dtype=object),
    }
    reps = np.array([len(p.step) for p in parts], dtype=np.int64)
    for k, v in enumerate(run.variables):
        data[v.name] = np.repeat(designs[:, k], reps) if n_rows else np.zeros(0)
    values = (
        np.concatenate([p.values for p in parts])
        if parts
        else np.zeros((0, len(run.metric_columns)))
    )
    texts = [t for p in parts for t in p.text]
    for k, c in enumerate(run.metric_columns):
        if c in run.text_cols:
            t = run.text_cols.index(c)
            if all(r[t] is None for r in texts):  # no row has it: pandas' all-NaN column
                data[c] = np.full(n_rows, np.nan)
            else:
                data[c] = np.array([np.nan if r[t] is None else r[t] for r in texts], dtype=object)
        else:
            data[c] = np.ascontiguousarray(values[:, k])
    return {c: data[c] if c in data else np.full(n_rows, np.nan) for c in columns}
