"""PNG charts of a sweep's table: per-wheel geometry against the swept variable.

One figure per quantity with a panel per wheel (camber, toe, caster, scrub
radius, mechanical trail, motion ratio), one line per value of a grid's
second motion, and a roll-centre figure: height against lateral offset
(its migration) and against the swept variable, per axle. Matplotlib is
imported only here, with the Agg canvas (no display, and no change to the
user's pyplot backend). Column names and units: docs/metrics.md.

Each chart is built by a ``*_figure`` function that returns the matplotlib
`Figure` (its lines hold exactly the data plotted), and written by the
matching ``*_chart`` function through `save_figure`: atomically, as PNG.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import atomic_path

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from suspension_sim.sweeps import SweepResult

WHEEL_CHARTS: tuple[tuple[str, str, str], ...] = (
    ("camber", "camber_{}_deg", "camber"),
    ("toe", "toe_{}_deg", "toe"),
    ("caster", "caster_{}_deg", "caster"),
    ("scrub", "scrub_radius_{}_mm", "scrub radius"),
    ("trail", "mechanical_trail_{}_mm", "mechanical trail"),
    ("motion_ratio", "motion_ratio_{}", "motion ratio (damper / wheel)"),
)
"""(file stem, column pattern with the wheel name, title) of the per-wheel charts."""
DPI = 110
"""Pixels per inch of the PNG files."""


def plot_sweep(result: SweepResult, directory: str | os.PathLike[str]) -> list[Path]:
    """Write the charts of a sweep result into `directory` (created if needed).

    x = the first swept variable; a grid's second variable gives one line per
    value. Returns the files written (charts whose columns are all missing or
    NaN are left out).
    """
    table = result.table.reset_index()
    wheels = _wheels(result, table)
    series = result.columns[1] if len(result.columns) > 1 else None
    return plot_table(
        table,
        result.columns[0],
        directory,
        wheels=wheels,
        series=series,
        title=result.spec.name,
    )


def _wheels(result: SweepResult, table: pd.DataFrame) -> list[str]:
    if result.model is not None:
        return [w.name for w in result.model.car.wheels]
    return sorted({c.split("_")[1] for c in table.columns if c.startswith("camber_")})


def plot_table(
    table: pd.DataFrame,
    x: str,
    directory: str | os.PathLike[str],
    *,
    wheels: Sequence[str],
    series: str | None = None,
    title: str = "",
    charts: Sequence[str] | None = None,
    option: str = "directory",
) -> list[Path]:
    """Per-wheel charts and the roll-centre chart of any metrics table, as
    ``<stem>.png`` files in `directory` (created if needed).

    charts: file stems to draw (default: all of `WHEEL_CHARTS` and
    ``roll_centre``). `option` names the folder in error messages.
    """
    out_dir = Path(directory)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"{out_dir} is a file, not a folder", where=option)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create folder {out_dir}: {exc.strerror}", where=option) from None
    figures = table_figures(table, x, wheels=wheels, series=series, title=title, charts=charts)
    return [
        save_figure(fig, out_dir / f"{stem}.png", option=option) for stem, fig in figures.items()
    ]


def table_figures(
    table: pd.DataFrame,
    x: str,
    *,
    wheels: Sequence[str],
    series: str | None = None,
    title: str = "",
    charts: Sequence[str] | None = None,
) -> dict[str, Figure]:
    """The figures `plot_table` writes, by file stem (charts without data left out)."""
    wanted = set(charts) if charts is not None else {c[0] for c in WHEEL_CHARTS} | {"roll_centre"}
    figures: dict[str, Figure] = {}
    for stem, pattern, name in WHEEL_CHARTS:
        if stem not in wanted:
            continue
        columns = {w: pattern.format(w) for w in wheels}
        fig = wheel_figure(table, x, columns, series=series, title=f"{title}: {name}")
        if fig is not None:
            figures[stem] = fig
    if "roll_centre" in wanted:
        fig = roll_centre_figure(table, x, series=series, title=f"{title}: roll centre")
        if fig is not None:
            figures["roll_centre"] = fig
    return figures


def save_figure(fig: Figure, path: str | os.PathLike[str], *, option: str = "path") -> Path:
    """Write `fig` as a PNG at `path` (atomically; a link is written through).

    The format is PNG whatever the file ending. InputError naming `option`
    when the file cannot be written.
    """
    out = Path(path)
    try:
        with atomic_path(out) as tmp:
            fig.savefig(tmp, dpi=DPI, format="png")
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror}", where=option) from None
    return out


def _label(column: str) -> str:
    from suspension_sim.metrics import label

    return label(column)


def _groups(table: pd.DataFrame, series: str | None) -> list[tuple[str, pd.DataFrame]]:
    if series is None or series not in table.columns:
        return [("", table)]
    return [(f"{_label(series)} = {v:g}", g) for v, g in table.groupby(series, sort=True)]


def _new_figure(panels: int, width: float = 5.2, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cols = 1 if panels == 1 else 2
    rows = math.ceil(panels / cols)
    w, h = width * cols, height * rows
    # fixed margins: constrained layout doubles the drawing time
    fig = Figure(figsize=(w, h), dpi=DPI)
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    fig.subplots_adjust(
        left=0.75 / w,
        right=1 - 0.2 / w,
        bottom=0.55 / h,
        top=1 - 0.6 / h,
        wspace=0.8 / width * cols,
        hspace=0.9 / height * rows,
    )
    for ax in axes[panels:]:
        ax.set_visible(False)
    return fig, axes[:panels]


def _has_data(table: pd.DataFrame, column: str) -> bool:
    return column in table.columns and bool(np.isfinite(table[column].to_numpy(float)).any())


def wheel_chart(
    table: pd.DataFrame,
    x: str,
    columns: dict[str, str],
    path: str | os.PathLike[str],
    *,
    series: str | None = None,
    title: str = "",
) -> Path | None:
    """`wheel_figure` written to `path` as PNG; None (nothing written) if there is no data."""
    fig = wheel_figure(table, x, columns, series=series, title=title)
    return None if fig is None else save_figure(fig, path)


def wheel_figure(
    table: pd.DataFrame,
    x: str,
    columns: dict[str, str],
    *,
    series: str | None = None,
    title: str = "",
) -> Figure | None:
    """One panel per wheel (titled with its name) of `columns[wheel]` against x, a line
    per value of `series`; None if there is no data."""
    present = {w: c for w, c in columns.items() if _has_data(table, c)}
    if not present or x not in table.columns:
        return None
    fig, axes = _new_figure(len(columns))
    groups = _groups(table, series)
    for ax, (wheel, column) in zip(axes, columns.items(), strict=True):
        if wheel not in present:
            ax.text(0.5, 0.5, f"{wheel}: not defined", ha="center", va="center")
            ax.set_axis_off()
            continue
        for name, g in groups:
            ax.plot(g[x], g[column], marker="o", markersize=3, label=name or None)
        ax.set_title(wheel)
        ax.set_xlabel(_label(x))
        ax.set_ylabel(_label(column))
        ax.grid(True, alpha=0.3)
        if len(groups) > 1:
            ax.legend(fontsize="small")
    fig.suptitle(title)
    return fig


def roll_centre_chart(
    table: pd.DataFrame,
    x: str,
    path: str | os.PathLike[str],
    *,
    series: str | None = None,
    title: str = "",
) -> Path | None:
    """`roll_centre_figure` written to `path` as PNG; None if there is no data."""
    fig = roll_centre_figure(table, x, series=series, title=title)
    return None if fig is None else save_figure(fig, path)


def roll_centre_figure(
    table: pd.DataFrame,
    x: str,
    *,
    series: str | None = None,
    title: str = "",
) -> Figure | None:
    """Roll-centre height against its lateral offset (migration) and against x, per axle."""
    axles = [
        c[len("roll_centre_height_") : -len("_mm")]
        for c in table.columns
        if c.startswith("roll_centre_height_") and c.endswith("_mm") and _has_data(table, c)
    ]
    if not axles or x not in table.columns:
        return None
    fig, (migration, height) = _new_figure(2)
    for axle in axles:
        h, lat = f"roll_centre_height_{axle}_mm", f"roll_centre_lateral_{axle}_mm"
        for name, g in _groups(table, series):
            label = f"{axle} {name}".strip()
            if lat in g.columns:
                migration.plot(g[lat], g[h], marker="o", markersize=3, label=label)
            height.plot(g[x], g[h], marker="o", markersize=3, label=label)
    migration.set_xlabel("roll centre lateral offset [mm] (+ = left)")
    migration.set_ylabel("roll centre height [mm]")
    migration.set_title("migration")
    height.set_xlabel(_label(x))
    height.set_ylabel("roll centre height [mm]")
    height.set_title("height")
    for ax in (migration, height):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle(title)
    return fig


def line_chart(
    table: pd.DataFrame,
    x: str,
    columns: Sequence[str],
    path: str | os.PathLike[str],
    *,
    title: str = "",
    ylabel: str | None = None,
) -> Path | None:
    """`line_figure` written to `path` as PNG (folder created); None if there is no data."""
    fig = line_figure(table, x, columns, title=title, ylabel=ylabel)
    if fig is None:
        return None
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    return save_figure(fig, out)


def line_figure(
    table: pd.DataFrame,
    x: str,
    columns: Sequence[str],
    *,
    title: str = "",
    ylabel: str | None = None,
) -> Figure | None:
    """Several columns against x in one panel (for the example scripts)."""
    present = [c for c in columns if _has_data(table, c)]
    if not present or x not in table.columns:
        return None
    fig, (ax,) = _new_figure(1, width=6.4, height=4.2)
    for c in present:
        ax.plot(table[x], table[c], marker="o", markersize=3, label=_label(c))
    ax.set_xlabel(_label(x))
    ax.set_ylabel(ylabel or (_label(present[0]) if len(present) == 1 else ""))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(title)
    return fig
