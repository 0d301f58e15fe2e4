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


KEY_IDS: tuple[str, ...] = (
    "camber",
    "toe",
    "caster",
    "kpi",
    "scrub_radius",
    "mechanical_trail",
    "motion_ratio",
    "camber_gain",
    "bump_steer",
    "roll_centre_height",
)
"""The metrics charted by default (``--charts key``)."""


def chart_groups(result: SensitivityResult) -> dict[str, list[str]]:
    """Metric id -> its columns in the result (one chart per id, a panel per column)."""
    from suspension_sim.metrics.catalogue import metric_of

    groups: dict[str, list[str]] = {}
    for column in result.metrics:
        found = metric_of(column)
        key = found[0].id if found is not None else column
        if found is not None and found[0].suffix and not column.endswith(found[0].suffix):
            key = column
        groups.setdefault(key, []).append(column)
    return groups


def tornado_figure(result: SensitivityResult, columns: list[str], count: int = 12) -> Figure:
    """One panel per column: the `count` coordinates that move it most, as a tornado chart
    (bars in the metric's unit per mm, largest at the top; red +, blue -)."""
    from matplotlib.figure import Figure

    from suspension_sim.metrics.catalogue import label

    n = len(columns)
    ncols = 1 if n == 1 else 2
    nrows = (n + ncols - 1) // ncols
    fig = Figure(figsize=(6.5 * ncols, (0.32 * count + 1.3) * nrows))
    what = result.what + (", mirror pairs together" if result.symmetric else "")
    fig.suptitle(f"hardpoint sensitivities ({what})", fontsize=11)
    for k, metric in enumerate(columns):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        rows = [r for r in result.top(metric, count) if np.isfinite(r[2])]
        biggest = max((abs(r[2]) for r in rows), default=0.0)
        rows = [r for r in rows if abs(r[2]) > 1e-9 * biggest]  # round-off is not a bar
        unit = result.units[result.metrics.index(metric)]
        per = f"{unit}/mm" if unit not in ("-", "") else "1/mm"
        names = [_coordinate_label(result, p, a) for p, a, _ in rows][::-1]
        values = [v for _, _, v in rows][::-1]
        ax.barh(
            range(len(values)), values, color=["tab:red" if v > 0 else "tab:blue" for v in values]
        )
        ax.set_yticks(range(len(values)), names, fontsize=8)
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"d {label(metric)} / d coordinate [{per}]", fontsize=9)
        value = result.values[result.metrics.index(metric)]
        ax.set_title(f"{label(metric)} = {value:.4g}", fontsize=9)
        if not rows:
            ax.text(0.5, 0.5, "no hardpoint moves it", ha="center", transform=ax.transAxes)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _coordinate_label(result: SensitivityResult, point: str, axis: str) -> str:
    partner = result.pairs.get(point)
    return f"{point} + {partner} {axis}" if partner else f"{point} {axis}"


def chart_name(key: str) -> str:
    """File name of a chart: ``tornado_<metric>.png`` (safe characters only)."""
    return "tornado_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", key) + ".png"


def write_tornado(
    result: SensitivityResult,
    columns: list[str],
    path: str | os.PathLike[str],
    count: int = 12,
    option: str = "--out",
) -> Path:
    """Write the tornado chart of these columns as a PNG (atomically, `save_figure`)."""
    from suspension_sim.outputs.chart_files import save_figure

    return save_figure(tornado_figure(result, columns, count), path, option=option)
