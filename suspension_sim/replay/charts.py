"""PNG charts of a replay against time (matplotlib, Agg canvas; no pyplot state).

One figure per quantity (camber, camber to the chassis, toe, wheel travel,
ride-height change, roll-centre height, motion ratio), a panel per wheel or
axle, time on x. A blank sample (any status but ok) breaks the line, and so
does a time jump (a step over `gap_factor` median steps, or time going back):
nothing is drawn across a gap. A long log is drawn as its envelope: the
minimum and maximum of each of `ENVELOPE_BINS` bins per chunk, read chunk by
chunk from the written table, so a spike is never hidden and memory stays
bounded; a bin never spans a time jump, and the envelope breaks there too.
Style and labels: `suspension_sim.outputs.plots`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.outputs.chart_layout import fit_margins
from suspension_sim.outputs.plots import (
    DEFAULT_UNITS,
    DPI,
    OutputUnits,
    axis_label,
    hold_span,
    min_span,
    save_figures,
)
from suspension_sim.replay.logs import open_log

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

TIME = "time_s"
MAX_POINTS = 20_000
"""Samples drawn one by one; a longer log is drawn as its min/max envelope."""
ENVELOPE_BINS = 2_000
"""Time bins of the envelope of a long log."""
CHUNK = 200_000
"""Rows read at a time from the written table."""
CHARTS: tuple[tuple[str, str, str], ...] = (
    ("camber", r"camber_(?P<w>[^_].*)_deg", "camber to ground"),
    ("camber_chassis", r"camber_chassis_(?P<w>.+)_deg", "camber to chassis"),
    ("toe", r"toe_(?P<w>.+)_deg", "toe"),
    ("wheel_travel", r"wheel_travel_(?P<w>.+)_mm", "wheel travel"),
    ("ride_height", r"ride_height_change_(?P<w>.+)_mm", "ride-height change"),
    ("roll_centre", r"roll_centre_height_(?P<w>.+)_mm", "roll-centre height"),
    ("motion_ratio", r"motion_ratio_(?P<w>.+)", "motion ratio (damper / wheel)"),
    ("stroke", r"stroke_(?P<w>.+)_mm", "damper stroke"),
)
"""(file stem, column pattern, title) of the default charts."""


def chart_groups(columns: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
    """{stem: (title, columns)} of the default charts whose columns are in `columns`."""
    import re

    out: dict[str, tuple[str, list[str]]] = {}
    for stem, pattern, title in CHARTS:
        found = [c for c in columns if re.fullmatch(pattern, c)]
        if stem == "camber":
            found = [c for c in found if not c.startswith(("camber_chassis_", "camber_front_"))]
        if stem == "ride_height":  # per axle only: the wheels' are in the table
            axles = [c for c in found if c.split("_")[3] in ("front", "rear")]
            found = axles or found
        if found:
            out[stem] = (title, found)
    return out


def plot_replay(
    source: pd.DataFrame | str | os.PathLike[str],
    directory: str | os.PathLike[str],
    *,
    columns: Sequence[str] | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
    gap_factor: float = 5.0,
) -> list[Path]:
    """Write the replay charts into `directory` (created if needed); returns the files.

    source: the replay table, or the .csv/.parquet file it was written to (read chunk
    by chunk). columns: draw these, one panel each, in ``columns.png``, instead of the
    default charts.
    """
    names = list(source.columns) if isinstance(source, pd.DataFrame) else _file_columns(source)
    if columns is not None:
        groups = {"columns": ("", [c for c in columns if c in names])}
    else:
        groups = chart_groups(names)
    wanted = [c for _, cols in groups.values() for c in cols]
    if not wanted:
        return []
    t, series = _series(source, wanted, gap_factor)
    folder = Path(directory)
    folder.mkdir(exist_ok=True)
    items = []
    for stem, (name, cols) in groups.items():
        fig = replay_figure(
            t, series, cols, title=f"{title}: {name}" if name else title, units=units
        )
        if fig is not None:
            items.append((fig, folder / f"{stem}.png"))
    return save_figures(items, option="plot")


def replay_figure(
    t: np.ndarray,
    series: dict[str, np.ndarray],
    columns: Sequence[str],
    *,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Figure | None:
    """A panel per column against time; None when no column has a number."""
    present = [c for c in columns if c in series and np.isfinite(series[c]).any()]
    if not present:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cols = 1 if len(present) == 1 else 2
    rows = math.ceil(len(present) / cols)
    fig = Figure(figsize=(6.4 * cols, 3.2 * rows), dpi=DPI)
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    for ax in axes[len(present) :]:
        ax.set_visible(False)
    for ax, c in zip(axes, present, strict=False):
        ax.plot(t, units.convert(c, series[c]), linewidth=0.8)
        ax.set_xlabel("time [s]")
        sign = "\n(+ = chassis higher)" if c.startswith("ride_height_change_") else ""
        ax.set_ylabel(axis_label(c, units) + sign)
        ax.set_title(units.label(c), fontsize="medium")
        ax.grid(True, alpha=0.3)
        hold_span(ax, min_span(c, units), "y")
        ax.ticklabel_format(useOffset=False)
    fig.suptitle(title)
    fit_margins(fig)
    return fig


def _file_columns(path: str | os.PathLike[str]) -> list[str]:
    return open_log(path, TIME).columns


def _frames(
    source: pd.DataFrame | str | os.PathLike[str], columns: list[str]
) -> Iterable[pd.DataFrame]:
    if isinstance(source, pd.DataFrame):
        return [source[[TIME, *columns]].astype(float)]
    return open_log(source, TIME).chunks([TIME, *columns], TIME, CHUNK)


def _series(
    source: pd.DataFrame | str | os.PathLike[str], columns: list[str], gap_factor: float
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Time and the columns to draw: every sample of a short log (NaN inserted at time
    jumps), the min/max envelope of a long one."""
    raw_t: list[np.ndarray] = []
    raw: dict[str, list[np.ndarray]] = {c: [] for c in columns}
    n = 0
    envelope: _Envelope | None = None
    for frame in _frames(source, columns):
        n += len(frame)
        if envelope is None and n > MAX_POINTS:
            envelope = _Envelope(columns, gap_factor)
            for k in range(len(raw_t)):
                envelope.add(raw_t[k], {c: raw[c][k] for c in columns})
            raw_t, raw = [], {c: [] for c in columns}
        t = frame[TIME].to_numpy(dtype=float)
        values = {c: frame[c].to_numpy(dtype=float) for c in columns}
        if envelope is not None:
            envelope.add(t, values)
        else:
            raw_t.append(t)
            for c in columns:
                raw[c].append(values[c])
    if envelope is not None:
        return envelope.result()
    t = np.concatenate(raw_t) if raw_t else np.zeros(0)
    series = {c: np.concatenate(raw[c]) if raw[c] else np.zeros(0) for c in columns}
    return _break_jumps(t, series, gap_factor)


def _break_jumps(
    t: np.ndarray, series: dict[str, np.ndarray], gap_factor: float
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Insert a NaN sample inside every time jump (and where time goes back), so the
    line breaks there."""
    if len(t) < 3:
        return t, series
    dt = np.diff(t)
    good = dt[np.isfinite(dt) & (dt > 0)]
    if not len(good):
        return t, series
    limit = gap_factor * float(np.median(good))
    cut = np.flatnonzero(~((dt >= 0) & (dt <= limit))) + 1  # also NaN and backward steps
    if not len(cut):
        return t, series
    t_out = np.insert(t, cut, np.nan)
    return t_out, {c: np.insert(v, cut, np.nan) for c, v in series.items()}


class _Envelope:
    """Min and max per bin, accumulated chunk by chunk; a bin never spans a time jump (a
    step over `gap_factor` x the median step, or time going back) and a NaN point sits
    between the bins on either side of one, as `_break_jumps` does for a short log."""

    def __init__(self, columns: list[str], gap_factor: float):
        self.columns = columns
        self.gap_factor = gap_factor
        self.t: list[np.ndarray] = []
        self.v: dict[str, list[np.ndarray]] = {c: [] for c in columns}
        self.steps: list[float] = []  # median time step of each chunk (s)
        self.last = math.nan  # the last time of the chunk before

    def add(self, t: np.ndarray, values: dict[str, np.ndarray]) -> None:
        # Chunks are reduced to at most ENVELOPE_BINS min/max pairs each (plus one bin
        # edge per time jump) as they come.
        ok = np.isfinite(t)
        t = t[ok]
        if not len(t):
            return
        dt = np.diff(np.concatenate([[self.last], t]))  # dt[i]: the step into sample i
        good = dt[np.isfinite(dt) & (dt > 0)]
        if len(good):
            self.steps.append(float(np.median(good)))
        limit = self.gap_factor * float(np.median(self.steps)) if self.steps else math.inf
        self.last = float(t[-1])
        jumps = np.flatnonzero(np.isfinite(dt) & ((dt > limit) | (dt < 0)))
        edges = np.linspace(0, len(t), min(ENVELOPE_BINS, len(t)) + 1).astype(int)
        starts = np.unique(np.concatenate([edges[:-1], jumps]))
        broken = np.isin(starts, jumps)  # a NaN point before these bins
        keep = np.ones((len(starts), 3), dtype=bool)
        keep[:, 0] = broken
        slots = np.empty((len(starts), 3))
        slots[:, 0] = np.nan
        slots[:, 1] = slots[:, 2] = t[starts]
        self.t.append(slots[keep])
        for c in self.columns:
            v = values[c][ok]
            slots = np.empty((len(starts), 3))
            slots[:, 0] = np.nan
            slots[:, 1] = np.fmin.reduceat(v, starts)
            slots[:, 2] = np.fmax.reduceat(v, starts)
            self.v[c].append(slots[keep])

    def result(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        t = np.concatenate(self.t) if self.t else np.zeros(0)
        return t, {c: np.concatenate(v) if v else np.zeros(0) for c, v in self.v.items()}
