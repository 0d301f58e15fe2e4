"""Chart marks for roll and pitch centres built from nearly parallel force lines.

A roll centre is where two front-view force lines cross, a pitch centre where two
side-view lines cross. When the lines are nearly parallel the crossing runs far
and moves a long way for a small change (a roll centre 1.7 -> 13 -> 99 mm, 6.9 m
sideways, between two steps of a grid). The tables keep the number and carry the
angle between the lines (``roll_centre_line_angle_<axle>_deg``,
``roll_centre_axis_line_angle_<axle>_deg``, ``pitch_centre_line_angle_<side>_deg``);
charts ring every point whose angle is below `NEAR_PARALLEL_LINES_DEG`
(docs/metrics.md, "Nearly parallel lines").

Matplotlib is not imported here: `mark_near_parallel` draws on an ``Axes`` it is given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pandas as pd

from suspension_sim.tolerances import NEAR_PARALLEL_LINES_DEG

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

MARK_LABEL = f"near-parallel force lines (< {NEAR_PARALLEL_LINES_DEG:g} deg)"
"""Legend text of the ring drawn round a flagged point."""
MARK_COLOUR = "red"
"""Edge colour of the ring."""

_FLAGGED = (
    (re.compile(r"^roll_centre_(?:height|lateral)_(\w+?)_(?:mm|in)$"), "roll_centre_line_angle"),
    (re.compile(r"^roll_centre_axis_height_(\w+?)_(?:mm|in)$"), "roll_centre_axis_line_angle"),
    (re.compile(r"^pitch_centre_(\w+?)_[xz]_(?:mm|in)$"), "pitch_centre_line_angle"),
)
"""A centre's column (in mm, or renamed to inches) -> its angle metric."""


class Converter(Protocol):
    """What `mark_near_parallel` needs of the output units (`plots.OutputUnits`)."""

    def values(self, table: pd.DataFrame, column: str) -> np.ndarray:
        """`table[column]` in the output unit."""
        ...


def flag_column(column: str) -> str | None:
    """The line-angle column that flags a centre column (``roll_centre_height_front_mm``
    -> ``roll_centre_line_angle_front_deg``), or None for any other column."""
    for pattern, metric in _FLAGGED:
        found = pattern.match(column)
        if found:
            return f"{metric}_{found.group(1)}_deg"
    return None


def near_parallel(table: pd.DataFrame, column: str) -> np.ndarray:
    """Rows (bool per row) where `column` is a centre whose lines are nearer than
    `NEAR_PARALLEL_LINES_DEG` to parallel; all False when the table has no flag for it.
    A blank angle (no lines) flags nothing: the centre is blank too."""
    flag = flag_column(column)
    if flag is None or flag not in table.columns:
        return np.zeros(len(table), dtype=bool)
    angle = table[flag].to_numpy(float)
    with np.errstate(invalid="ignore"):
        return np.asarray(angle < NEAR_PARALLEL_LINES_DEG)


def mark_near_parallel(
    ax: Axes, table: pd.DataFrame, x: str, y: str, units: Converter | None = None
) -> int:
    """Ring, on `ax`, every point (x, y) of `table` whose y is a centre from nearly
    parallel lines (`near_parallel`); the first ring of an Axes gets `MARK_LABEL` in
    its legend. x, y: the table's column names (mm, deg); `units` converts them as
    the chart did (None: as stored). Returns the number of points ringed."""
    if x not in table.columns or y not in table.columns:
        return 0
    rows = near_parallel(table, y) | near_parallel(table, x)  # x: a migration chart
    if not bool(np.any(rows)):
        return 0

    def values(column: str) -> np.ndarray:
        if units is None:
            return table[column].to_numpy(float)
        return np.asarray(units.values(table, column), dtype=float)

    xs, ys = values(x)[rows], values(y)[rows]
    shown = np.isfinite(xs) & np.isfinite(ys)
    if not bool(np.any(shown)):
        return 0
    labelled = any(t == MARK_LABEL for t in ax.get_legend_handles_labels()[1])
    ax.scatter(
        xs[shown],
        ys[shown],
        s=90,
        facecolors="none",
        edgecolors=MARK_COLOUR,
        linewidths=1.5,
        zorder=5,
        label=None if labelled else MARK_LABEL,
    )
    return int(np.count_nonzero(shown))


_ANGLE = re.compile(r"^(roll_centre|roll_centre_axis|pitch_centre)_line_angle_(\w+?)_deg$")
_CENTRE_TEXT = {
    "roll_centre": "roll centre",
    "roll_centre_axis": "roll centre (screw-axis construction)",
    "pitch_centre": "pitch centre",
}


def near_parallel_notes(table: pd.DataFrame, x: str | Sequence[str] | None = None) -> list[str]:
    """One line per centre of a sweep table (mm, deg) with steps from nearly parallel
    lines: how many, the smallest angle and where (the swept values `x`, one column or
    a grid's columns, when given; else the step), e.g. ``front roll centre: 2 of 15
    steps from near-parallel force lines (angle < 1 deg; smallest 0.11 deg at
    chassis_roll_deg = -1): those values jump for small changes (kept in the table,
    ringed on the charts)``."""
    notes = []
    for column in table.columns:
        found = _ANGLE.match(str(column))
        if not found:
            continue
        angle = table[column].to_numpy(float)
        with np.errstate(invalid="ignore"):
            flagged = angle < NEAR_PARALLEL_LINES_DEG
        n = int(np.count_nonzero(flagged))
        if not n:
            continue
        k = int(np.nanargmin(np.where(flagged, angle, np.nan)))
        swept = [x] if isinstance(x, str) else list(x or ())
        swept = [c for c in swept if c in table.columns]
        if swept:
            where = ", ".join(f"{c} = {float(table[c].iloc[k]):.4g}" for c in swept)
        else:
            where = f"step {table.index[k]}"
        notes.append(
            f"{found.group(2)} {_CENTRE_TEXT[found.group(1)]}: {n} of {len(table)} steps from "
            f"near-parallel force lines (angle < {NEAR_PARALLEL_LINES_DEG:g} deg; smallest "
            f"{angle[k]:.2g} deg at {where}): those values jump for small changes (kept in "
            f"the table, ringed on the charts)"
        )
    return notes


__all__ = [
    "MARK_LABEL",
    "flag_column",
    "mark_near_parallel",
    "near_parallel",
    "near_parallel_notes",
]
