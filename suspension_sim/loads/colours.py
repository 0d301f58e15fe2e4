"""The colours of axial forces: one rule for every picture of the loads.

Tension is red, compression blue, a member carrying nothing pale grey (the
README's rule for ``suspension-sim loads``). The one definition is the
diverging colormap `COLORMAP` on symmetric limits [-F, +F] N: its low end
(blue) is compression, its high end (red) tension. The 3-D view
(`suspension_sim.viz.loads_view`, ``--view``) maps each member's axial force
(N, + = tension) through it; the bar chart (`suspension_sim.loads.charts`,
``--chart``) colours each bar with its end colour, `force_colour`. Colours
are RGB triples in 0..1; matplotlib is imported only when a colour is asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.colors import Colormap

RGB = tuple[float, float, float]

COLORMAP: Final = "coolwarm"
"""Matplotlib's diverging map: blue (low, compression) - pale grey (0) - red (high, tension)."""
TENSION_END: Final = 1.0
COMPRESSION_END: Final = 0.0
"""Where tension and compression sit on the colormap (0..1)."""
TENSION_WORD: Final = "red"
COMPRESSION_WORD: Final = "blue"
"""The two colours' names, for labels."""


def axial_colormap() -> Colormap:
    """The colormap of axial forces (`COMPRESSION_END` at -F N, `TENSION_END` at +F N)."""
    import matplotlib

    return matplotlib.colormaps[COLORMAP]


def force_colour(force_n: float) -> RGB:
    """The tension colour (red) for an axial force >= 0 N, the compression colour
    (blue) below: the two ends of `axial_colormap`."""
    r, g, b, _ = axial_colormap()(TENSION_END if force_n >= 0 else COMPRESSION_END)
    return (float(r), float(g), float(b))
