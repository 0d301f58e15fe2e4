"""Replay a damper log: every sample solved with the batch engine, chunk by chunk.

`replay_log(model, log, map)` reads the map and the log's layout, makes one
pass over the log to screen it (`signals.Scan`: channel ranges, the static
segment's samples, the median time step), then a second pass that converts,
screens and solves `chunk` samples at a time (`solve_batch`, warm-started from
the previous chunk's last closed pose) and writes the table as it goes
(`writers.TableWriter`), so memory stays bounded for logs of millions of
samples. A sample with a problem is blank (NaN) in every metric column, its
`status` says why, and the problem is reported with its time stamps: nothing
is extrapolated or interpolated. Units: time in s, lengths in mm, angles in
deg (docs/conventions.md; docs/replay.md for the map file and the report).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import check_output, same_file
from suspension_sim.metrics.core import layout
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.names import did_you_mean
from suspension_sim.replay.channelmap import ChannelMap, load_map
from suspension_sim.replay.logs import LogFile, decimal_comma, open_log
from suspension_sim.replay.signals import (
    NOT_CLOSED,
    OK,
    STATUS_NAMES,
    Problem,
    ProblemLog,
    Scan,
    Screen,
    convert,
    rack_per_degree,
)
from suspension_sim.replay.writers import TableWriter
from suspension_sim.solve.batch import COMPILE_PAYS_STATES, BatchResult, chassis_transforms

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import Method

TIME_COLUMN = "time_s"
STATUS_COLUMN = "status"
DEFAULT_CHUNK = 20_000
"""Samples solved and written at a time (memory is a few kB per sample)."""
DEFAULT_GAP_FACTOR = 5.0
"""A time step longer than this many median steps is reported as a jump."""
KEEP_READ_BYTES = 32 * 2**20
"""The log's chunks as read by the first pass (the screen's statistics) are kept for the
second (the solve) when together they take at most this much memory (about 450,000
samples of nine channels); a longer log is read twice, chunk by chunk."""
KEEP_ROWS = 200_000
"""With an output file, `ReplayResult.table` is kept only for logs up to this long."""
DEFAULT_METRICS: tuple[str, ...] = (
    "stroke",
    "wheel_travel",
    "camber",
    "camber_chassis",
    "toe",
    "steer",
    "contact_point",
    "roll_centre_height",
    "motion_ratio",
)
"""Metrics written by default (plus the steering and chassis inputs that were mapped, and
the ride-height changes)."""
RIDE = "ride_height_change"
"""Derived column stem: change of the chassis' height above a contact point (mm, + = up)."""


@dataclass
class ReplayResult:
    """A replayed log: its table (None when too long to keep; see the file) and report."""

    table: pd.DataFrame | None
    problems: list[Problem]
    warnings: list[str]
    notes: list[str]
    samples: int
    counts: dict[str, int]
    seconds: float
    solve_seconds: float
    metrics_seconds: float
    engine: str
    out: Path | None = None
    dropped: int = 0
    decimals: int = 3
    columns: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every sample was solved."""
        return self.counts.get("ok", 0) == self.samples

    def summary(self) -> str:
        """One line: samples, statuses, time and rate."""
        parts = [f"{n} {name}" for name, n in self.counts.items() if n]
        solved = self.counts.get("ok", 0) + self.counts.get("not_closed", 0)
        rate = solved / self.solve_seconds if self.solve_seconds > 0 else float("inf")
        return (
            f"{self.samples} samples: {', '.join(parts) or 'none'}; {self.seconds:.3g} s "
            f"(solve {self.solve_seconds:.3g} s, {rate:.0f} states/s with the {self.engine} "
            f"engine; metrics {self.metrics_seconds:.3g} s)"
        )

    def nothing_solved(self) -> str:
        """One line saying why no sample was solved: the statuses and the first problem
        of the commonest one ("" when some sample was)."""
        if self.counts.get("ok", 0):
            return ""
        parts = [f"{n} {name}" for name, n in self.counts.items() if n]
        text = f"no sample was solved ({', '.join(parts) or 'no samples'})"
        if parts:
            worst = max((n, name) for name, n in self.counts.items() if n)[1]
            first = next((p for p in self.problems if p.kind == worst), None)
            if first is not None:
                text += f"; first: {first.text(self.decimals)}"
        return text

    def report_lines(self, limit: int | None = None) -> list[str]:
        """Notes, warnings and problem ranges as text lines (`limit` problems at most)."""
        lines = [f"note: {n}" for n in self.notes]
        lines += [f"warning: {w}" for w in self.warnings]
        shown = self.problems if limit is None else self.problems[:limit]
        lines += [p.text(self.decimals) for p in shown]
        more = len(self.problems) - len(shown) + self.dropped
        if more > 0:
            lines.append(f"... and {more} more problem range(s)")
        return lines

    def report_text(self) -> str:
        """The full report: summary, then every line of `report_lines`, with the solver's
        full explanation under each range that did not close."""
        lines = [self.summary()]
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"warning: {w}" for w in self.warnings]
        for p in self.problems:
            lines.append(p.text(self.decimals))
            if p.detail and "\n" in p.detail:
                lines += ["    " + line for line in p.detail.splitlines()]
        if self.dropped:
            lines.append(f"... and {self.dropped} more problem range(s) not listed")
        return "\n".join(lines) + "\n"


# -- columns ------------------------------------------------------------------------------
def ride_columns(model: KinematicModel) -> list[str]:
    """The derived ride-height columns: per wheel, then per axle."""
    st = wheel_set(model)
    return [f"{RIDE}_{w}_mm" for w in st.names] + [f"{RIDE}_{a}_mm" for a in st.axles]


def available_columns(model: KinematicModel) -> list[str]:
    """Every column a replay can write (besides time and status)."""
    keys = [_key(m, w, c) for m, w, c in layout(model, rates=True)]
    return keys + ride_columns(model)


def _key(metric: str, where: str, component: str) -> str:
    from suspension_sim.metrics.catalogue import CATALOGUE

    return CATALOGUE[metric].key(where, component)


def default_columns(model: KinematicModel, cmap: ChannelMap) -> list[str]:
    """Wheel attitude: strokes, the mapped steering and chassis inputs, wheel travel,
    camber to ground and chassis, toe, steer, contact points, ride-height changes, roll
    centre heights, motion ratios."""
    wanted = set(DEFAULT_METRICS)
    if cmap.steering is not None:
        wanted |= {"rack", "steering_wheel_angle"}
    wanted |= {f"chassis_{axis}" for axis in cmap.chassis}
    out = [_key(m, w, c) for m, w, c in layout(model, rates=True) if m in wanted]
    at = next((i for i, c in enumerate(out) if c.startswith("roll_centre_height")), len(out))
    return out[:at] + ride_columns(model) + out[at:]


def choose_columns(
    model: KinematicModel, cmap: ChannelMap, columns: Sequence[str] | None
) -> list[str]:
    """`columns` checked against what a replay can write (InputError naming `columns`
    with the nearest name); the default set when None."""
    if columns is None:
        return default_columns(model, cmap)
    valid = available_columns(model)
    out = []
    for name in columns:
        name = name.strip()
        if name in (TIME_COLUMN, STATUS_COLUMN):
            continue
        if name not in valid:
            raise InputError(
                f"no column {name!r} in a replay of this car." + did_you_mean(name, valid),
                where="columns",
                hint="columns are named as in the metric tables (docs/metrics.md), e.g. "
                "camber_FL_deg, toe_FR_deg, roll_centre_height_front_mm",
            )
        if name not in out:
            out.append(name)
    if not out:
        raise InputError("no columns chosen", where="columns", hint="e.g. camber_FL_deg")
    return out


# -- metrics ------------------------------------------------------------------------------
def _metric_frame(
    result: BatchResult, convention: str | None, rates: bool, columns: list[str]
) -> pd.DataFrame:
    """One row per state of `result`, the chosen metric columns (as `pose_metrics`)."""
    from suspension_sim.metrics.batch import batch_metrics

    return batch_metrics(result, convention=convention, rates=rates, columns=columns)


def _metric_columns(model: KinematicModel, chosen: list[str]) -> tuple[list[str], bool]:
    """Metric columns to compute for `chosen` (the contact points for ride heights), and
    whether they need the rates (IFT) metrics."""
    keys = [_key(m, w, c) for m, w, c in layout(model, rates=True)]
    need = [c for c in chosen if c in keys]
    if any(c.startswith(RIDE) for c in chosen):
        st = wheel_set(model)
        need += [f"contact_point_{w}_{a}_mm" for w in st.names for a in "xyz"]
    need = list(dict.fromkeys(need))
    plain = {_key(m, w, c) for m, w, c in layout(model, rates=False)}
    return need, any(c not in plain for c in need)


def _contact_heights(model: KinematicModel, frame: pd.DataFrame, chassis: np.ndarray) -> np.ndarray:
    """(N, wheels) height of each contact point in the chassis frame (mm)."""
    st = wheel_set(model)
    names = [f"contact_point_{w}_{a}_mm" for w in st.names for a in "xyz"]
    pts = _columns(frame, names).reshape(len(frame), len(st.names), 3)  # (N, W, 3) world
    R, t = chassis_transforms(model, chassis)
    local = np.einsum("nji,nwj->nwi", R, pts - t[:, None, :])
    return local[:, :, 2]


def _columns(frame: pd.DataFrame, names: list[str]) -> np.ndarray:
    """The columns `names` of an all-float frame as one (N, len(names)) array: one
    conversion of the frame, then numpy indexing (a pandas column lookup per name cost
    about 0.1 ms each)."""
    where = {c: i for i, c in enumerate(frame.columns)}
    return frame.to_numpy(dtype=float)[:, [where[c] for c in names]]


def _ride(model: KinematicModel, heights: np.ndarray, design: np.ndarray) -> dict[str, np.ndarray]:
    """Ride-height changes (mm, + = chassis higher above the tyre) per wheel and axle:
    the contact point's fall in the chassis frame from design (rigid tyres, flat ground)."""
    st = wheel_set(model)
    change = -(heights - design[None, :])
    out = {f"{RIDE}_{w}_mm": change[:, i] for i, w in enumerate(st.names)}
    for axle, (left, right) in st.axles.items():
        out[f"{RIDE}_{axle}_mm"] = 0.5 * (change[:, left] + change[:, right])
    return out


# -- the replay ---------------------------------------------------------------------------
def replay_log(
    model: KinematicModel,
    log_path: str | os.PathLike[str],
    map_path: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
    columns: Sequence[str] | None = None,
    convention: str | None = None,
    method: Method = "auto",
    chunk: int = DEFAULT_CHUNK,
    gap_factor: float = DEFAULT_GAP_FACTOR,
    force: bool = False,
    keep_table: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ReplayResult:
    """Replay the log at `log_path` through `model` as the map file at `map_path` says.

    out: a .csv or .parquet file written chunk by chunk (atomically; an existing one
    only with `force`; never the log, the map or the workbook). columns: metric columns
    to write (default: wheel attitude, `default_columns`). method: the batch engine
    ("auto", "numpy", "compiled"). chunk: samples per batch. gap_factor: a time step
    longer than this many median steps is reported. keep_table: keep the whole table in
    the result (default: without `out`, or for logs up to `KEEP_ROWS`). progress:
    called with (samples done, samples in all) after each chunk.
    """
    t_start = time.perf_counter()
    if not (isinstance(chunk, int) and chunk >= 1):
        raise InputError(f"chunk must be a positive integer, found {chunk!r}", where="chunk")
    if not (gap_factor > 1.0 and math.isfinite(gap_factor)):
        raise InputError(
            f"gap factor must be a number above 1, found {gap_factor:g}", where="gap_factor"
        )
    cmap = load_map(map_path)
    log = open_log(log_path, [ch.column for ch in cmap.channels])
    cmap = cmap.check(model, log.columns)
    chosen = choose_columns(model, cmap, columns)
    out_path = _check_out(model, out, force, (Path(log_path), Path(map_path)))
    rack_ratio = rack_per_degree(model, cmap)
    wanted = [ch.column for ch in cmap.channels]

    scan = Scan()
    notes: list[str] = []
    dated = False
    read: list[pd.DataFrame] | None = []  # the chunks, kept while small (`KEEP_READ_BYTES`)
    held = 0
    for frame in log.chunks(wanted, cmap.time.column, chunk):
        if log.time_note and not dated:  # known once the first chunk is read
            cmap, dated = _dated_time(cmap, log.time_note, notes), True
        scan.add(model, cmap, frame, rack_ratio)
        if read is not None:
            read.append(frame)
            held += int(frame.memory_usage(index=False).sum())
            if held > KEEP_READ_BYTES:
                read = None  # a long log: read it again below, chunk by chunk
    if scan.samples == 0:
        raise _no_time_error(cmap, log, log_path)
    if log.skipped_rows:
        notes.append(
            f"{log.skipped_rows} row(s) after the header have no numeric time (a units row?) "
            "and were skipped"
        )
    warnings: list[str] = []
    zeroes = scan.zeroes(model, cmap)
    offsets = {z.name: z.value for z in zeroes}
    for z in zeroes:
        notes.append(z.note())
        if z.warning():
            warnings.append(z.warning())
    warnings += [
        f"{ch.describe()} is constant ({value:g} mm) over the whole log: a dead or "
        "unplugged sensor?"
        for ch, value in scan.constant_channels(cmap)
    ]
    step = scan.median_step
    decimals = 3 if not (step > 0) else max(3, min(9, math.ceil(-math.log10(step) - 1e-6) + 1))
    kind = _engine(method, scan.samples)
    need, rates = _metric_columns(model, chosen)
    design_heights = None
    if any(c.startswith(RIDE) for c in chosen):
        design = model.solve_batch(  # type: ignore[attr-defined]
            shocks=np.zeros((1, len(model.damper_names))), method=kind
        )  # the log's engine: the same path as its samples, ride heights 0 at design
        contact = [f"contact_point_{w}_{a}_mm" for w in wheel_set(model).names for a in "xyz"]
        design_heights = _contact_heights(
            model, _metric_frame(design, convention, False, contact), design.chassis
        )[0]

    screen = Screen(model, cmap, gap_factor, step, bad=[ch.name for ch in scan.bad_channels(cmap)])
    problems = ProblemLog()
    counts = dict.fromkeys(STATUS_NAMES, 0)
    keep = keep_table if keep_table is not None else (out_path is None or scan.samples <= KEEP_ROWS)
    kept: list[pd.DataFrame] = []
    header = [TIME_COLUMN, STATUS_COLUMN, *chosen]
    guess: np.ndarray | None = None
    solve_s = metrics_s = 0.0
    engine_used = kind
    done = 0

    writer = TableWriter(out_path, option="out") if out_path is not None else None
    with writer if writer is not None else _Nothing():
        for frame in read if read is not None else log.chunks(wanted, cmap.time.column, chunk):
            start = int(frame.index[0])
            problems.flush_before(start)
            inputs = convert(model, cmap, frame, offsets, rack_ratio)
            status = screen.status(inputs, start, problems)
            n = len(frame)
            cells = {c: np.full(n, np.nan) for c in chosen}
            good = np.flatnonzero(status == OK)
            if len(good):
                t0 = time.perf_counter()
                batch = model.solve_batch(  # type: ignore[attr-defined]
                    shocks=inputs.strokes[good],
                    rack=inputs.rack[good] if model.topology.rack_param is not None else None,
                    chassis=inputs.chassis[good],
                    guess=guess,
                    method=kind,
                )
                t1 = time.perf_counter()
                solve_s += t1 - t0
                engine_used = batch.engine
                closed = np.flatnonzero(batch.converged)
                if len(closed):
                    guess = batch.params[closed[-1]].copy()
                metrics = _metric_frame(batch, convention, rates, need)
                found = [c for c in chosen if c in need]
                values = dict(zip(found, _columns(metrics, found).T, strict=True))
                if design_heights is not None:
                    heights = _contact_heights(model, metrics, batch.chassis)
                    values.update(_ride(model, heights, design_heights))
                metrics_s += time.perf_counter() - t1
                rows = good[closed]
                for c in chosen:
                    cells[c][rows] = values[c][closed] + 0.0  # + 0.0: no "-0"
                failed = np.flatnonzero(~batch.converged)
                if len(failed):
                    status[good[failed]] = NOT_CLOSED
                    details = [batch.failures.get(int(i), "") for i in failed]
                    for i, text in zip(failed.tolist(), details, strict=True):
                        problems.add(
                            "not_closed",
                            "solver",
                            np.array([start + int(good[i])]),
                            np.array([inputs.time[good[i]]]),
                            "not closed: " + (text.splitlines()[0] if text else "(no detail)"),
                            details=[text],
                        )
            arrays = {
                TIME_COLUMN: inputs.time,
                STATUS_COLUMN: np.array(STATUS_NAMES, dtype=object)[status],
                **cells,
            }
            for code, name in enumerate(STATUS_NAMES):
                counts[name] += int(np.count_nonzero(status == code))
            if writer is not None:
                writer.write_columns(arrays)
            if keep:  # one column per array, no 2-D block to copy into
                kept.append(pd.DataFrame(arrays, copy=False))
            done += n
            if progress is not None:
                progress(done, scan.samples)
        if writer is not None and writer.rows == 0:
            writer.write(pd.DataFrame({c: pd.Series(dtype=float) for c in header}))
    listed = problems.finish()
    result_table = None
    if keep:
        result_table = (
            pd.concat(kept, ignore_index=True)
            if kept
            else pd.DataFrame({c: pd.Series(dtype=float) for c in header})
        )
        result_table.attrs["convention"] = convention or model.car.options.sign_convention
    return ReplayResult(
        table=result_table,
        problems=listed,
        warnings=warnings,
        notes=notes,
        samples=scan.samples,
        counts=counts,
        seconds=time.perf_counter() - t_start,
        solve_seconds=solve_s,
        metrics_seconds=metrics_s,
        engine=engine_used,
        out=out_path,
        dropped=problems.dropped,
        decimals=decimals,
        columns=header,
    )


def _dated_time(cmap: ChannelMap, note: str, notes: list[str]) -> ChannelMap:
    """The map with its time channel in s when the log's time column holds dates or
    durations (read as s by `LogFile.chunks`); the map's time unit is then not used."""
    notes.append(note)
    if cmap.time.unit == "s":
        return cmap
    notes.append(f"the map's time unit {cmap.time.unit!r} is not used for dates or durations")
    return replace(cmap, time=replace(cmap.time, unit="s", factor=1.0))


def _no_time_error(cmap: ChannelMap, log: LogFile, log_path: str | os.PathLike[str]) -> InputError:
    """The error for a log without a single numeric time, with the likely cause."""
    texts = log.skipped_texts
    seen = f"; it holds {', '.join(repr(t) for t in texts)}" if texts else ""
    hint = "map 'time:' to the column of time stamps (numbers, in s or ms)"
    if decimal_comma(texts):
        hint = (
            "the numbers are written with a decimal comma ('0,01'): export the log with a "
            "decimal point, or with ';' between columns so that the comma reads as decimal"
        )
    elif any(re.search(r"\d:\d\d", t) for t in texts):
        hint = (
            "the time column holds clock times or dates as text: export the time in s, or "
            "save the log as Parquet with a timestamp column (read as s from its first stamp)"
        )
    return InputError(
        f"the log has no sample with a numeric time in column {cmap.time.column!r}"
        + (f" ({log.skipped_rows} rows without one{seen})" if log.skipped_rows else ""),
        where=cmap.time.column_where or str(log_path),
        hint=hint,
    )


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def _engine(method: Method, samples: int) -> Method:
    """The engine for the whole log: with "auto", compiled once the log is long enough
    for compiling to pay (`COMPILE_PAYS_STATES`) or the kernel is compiled already."""
    from suspension_sim.solve import engine

    if method != "auto":
        return method
    if engine.compiled_available() and (samples >= COMPILE_PAYS_STATES or engine.kernel_compiled()):
        return "compiled"
    return "numpy"


def _check_out(
    model: KinematicModel,
    out: str | os.PathLike[str] | None,
    force: bool,
    inputs: Sequence[Path],
) -> Path | None:
    """The output path, refused before any work: not .csv/.parquet, an input file (the
    log, the map, the workbook), an existing file without `force`, a bad folder."""
    if out is None:
        return None
    path = Path(out)
    if path.suffix.lower() not in (".csv", ".parquet"):
        raise InputError(
            f"cannot write {path.name!r}: a replay is written as .csv or .parquet",
            where="out",
            hint="end the file name with .csv or .parquet (Excel cannot hold a long log)",
        )
    source = model.car.source_path
    for p in [*inputs, *([Path(source)] if source else [])]:
        if same_file(path, p):
            raise InputError(
                f"{path} is an input of the replay ({p.name}); it is never overwritten",
                where="out",
                hint="choose another file name for the results",
            )
    if path.exists() and not force:
        raise InputError(
            f"{path} exists; a replay only replaces it with force=True",
            where="out",
            hint="choose a new name or pass force=True",
        )
    return check_output(path, where="out")
