"""A bar chart of member forces for one load case (matplotlib, Agg canvas).

Horizontal bars, one per member (two-force link, damper, wishbone leg),
+ = tension to the right in red, compression to the left in blue (the colours
of the 3-D view, `suspension_sim.loads.colours`); a value that statics does
not fix (a redundant joint, a leg of an arm in bending) is drawn hatched and
marked in its label. The figure is returned; the command writes it
(`suspension_sim.outputs.plots.save_figure`). Same style as the sweep charts:
constrained layout, light grid, 110 dpi.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.loads.colours import COMPRESSION_WORD, TENSION_WORD, force_colour

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from suspension_sim.loads.result import LoadResult

DPI = 110


def member_force_figure(result: LoadResult, case: str) -> Figure:
    """Axial force of every member in `case` (N, + = tension) as horizontal bars."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = result.members()
    rows = rows[rows["case"] == case]
    if "step" in rows.columns:
        rows = rows[rows["step"] == rows["step"].min()]
    names = [
        m + ("" if ok else " (not exact)")
        for m, ok in zip(rows["member"], rows["determinate"], strict=True)
    ]
    values = rows["axial_N"].to_numpy(dtype=float)
    exact = rows["determinate"].to_numpy(dtype=bool)
    height = max(2.5, 0.28 * len(names) + 1.2)
    fig = Figure(figsize=(7.5, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    y = np.arange(len(names))[::-1]
    bars = ax.barh(y, values, color=[force_colour(v) for v in values])
    for bar, ok in zip(bars, exact, strict=True):
        if not ok:
            bar.set_hatch("//")
            bar.set_alpha(0.6)
    ax.set_yticks(y, names, fontsize="small")
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"axial force [N] (+ tension, {TENSION_WORD}; - compression, {COMPRESSION_WORD})")
    title = f"member forces: {case}"
    if not result.determinate:
        title += " (statically indeterminate: minimum-norm)"
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    return fig
