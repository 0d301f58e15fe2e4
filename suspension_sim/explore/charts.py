"""Tornado charts of hardpoint sensitivities (matplotlib, Agg; no window).

One chart per metric: the coordinates whose derivative is largest in magnitude, as
horizontal bars (metric unit per mm), largest at the top, so the points that matter most
for a metric are read at a glance.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from suspension_sim.explore.sensitivity import SensitivityResult


def tornado_figure(result: SensitivityResult, metric: str, count: int = 12) -> Figure:
    """The `count` coordinates that move `metric` most, as a tornado chart."""
    from matplotlib.figure import Figure

    from suspension_sim.metrics.catalogue import label

    rows = [r for r in result.top(metric, count) if r[2] != 0.0 and np.isfinite(r[2])]
    unit = result.units[result.metrics.index(metric)]
    per = f"{unit}/mm" if unit not in ("-", "") else "1/mm"
    fig = Figure(figsize=(7.0, 0.45 * max(len(rows), 1) + 1.6))
    ax = fig.add_subplot()
    names = [_coordinate_label(result, p, a) for p, a, _ in rows][::-1]
    values = [v for _, _, v in rows][::-1]
    colours = ["tab:red" if v > 0 else "tab:blue" for v in values]
    ax.barh(range(len(values)), values, color=colours)
    ax.set_yticks(range(len(values)), names)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"d {label(metric)} / d coordinate [{per}]")
    what = "design" if result.what == "design" else result.what
    pairs = ", mirror pairs together" if result.symmetric else ""
    ax.set_title(f"{label(metric)}: {what}{pairs}", fontsize=10)
    if not rows:
        ax.text(0.5, 0.5, "no hardpoint moves this metric", ha="center", transform=ax.transAxes)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _coordinate_label(result: SensitivityResult, point: str, axis: str) -> str:
    partner = result.pairs.get(point)
    return f"{point} + {partner} {axis}" if partner else f"{point} {axis}"


def chart_name(metric: str) -> str:
    """File name of a metric's tornado chart: ``tornado_<column>.png`` (safe characters)."""
    return "tornado_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", metric) + ".png"


def write_tornado(
    result: SensitivityResult,
    metric: str,
    path: str | os.PathLike[str],
    count: int = 12,
    option: str = "--out",
) -> Path:
    """Write one metric's tornado chart as a PNG (atomically, `save_figure`)."""
    from suspension_sim.outputs.chart_files import save_figure

    return save_figure(tornado_figure(result, metric, count), path, option=option)
