"""PNG charts of a sweep's table: the one import path for figures, files and units.

The work is split three ways; this module re-exports their public names so that
``from suspension_sim.outputs.plots import plot_sweep`` (scripts, commands, tests)
keeps working:

- `suspension_sim.outputs.figures`: each ``*_figure`` builds a matplotlib `Figure`
  (per-wheel geometry, roll and pitch centres, steering with the ideal-Ackermann
  line, any columns against any column) and `table_figures` all of a table's;
- `suspension_sim.outputs.chart_files`: `plot_sweep`, `plot_table`, the ``*_chart``
  writers, `save_figure` and `save_figures` (atomic PNG files, two cores);
- `suspension_sim.outputs.chart_units`: `OutputUnits` (mm/in, deg/rad at the edge),
  axis labels with the sign of each swept variable, minimum axis spans, legend numbers.

Column names and units: docs/metrics.md.
"""

from __future__ import annotations

from suspension_sim.outputs.chart_files import (
    line_chart,
    plot_sweep,
    plot_table,
    roll_centre_chart,
    save_figure,
    save_figures,
    wheel_chart,
)
from suspension_sim.outputs.chart_units import (
    ANGLE_UNITS,
    DEFAULT_UNITS,
    LENGTH_UNITS,
    MAX_DECIMALS,
    MIN_SPAN_DEG,
    MIN_SPAN_MM,
    MIN_SPAN_RATE,
    MIN_SPAN_RATIO,
    MOTION_SIGNS,
    PREFIX_SIGNS,
    OutputUnits,
    axis_label,
    column_label,
    format_values,
    min_span,
)
from suspension_sim.outputs.figures import (
    CHART_STEMS,
    DPI,
    PITCH_COLUMN,
    STEER_COLUMNS,
    WHEEL_CHARTS,
    check_columns,
    hold_span,
    ideal_ackermann,
    line_figure,
    pitch_figure,
    roll_centre_figure,
    steer_figure,
    table_figures,
    wheel_figure,
    xy_figure,
    xy_stem,
)

__all__ = [
    "ANGLE_UNITS",
    "CHART_STEMS",
    "DEFAULT_UNITS",
    "DPI",
    "LENGTH_UNITS",
    "MAX_DECIMALS",
    "MIN_SPAN_DEG",
    "MIN_SPAN_MM",
    "MIN_SPAN_RATE",
    "MIN_SPAN_RATIO",
    "MOTION_SIGNS",
    "PITCH_COLUMN",
    "PREFIX_SIGNS",
    "STEER_COLUMNS",
    "WHEEL_CHARTS",
    "OutputUnits",
    "axis_label",
    "check_columns",
    "column_label",
    "format_values",
    "hold_span",
    "ideal_ackermann",
    "line_chart",
    "line_figure",
    "min_span",
    "pitch_figure",
    "plot_sweep",
    "plot_table",
    "roll_centre_chart",
    "roll_centre_figure",
    "save_figure",
    "save_figures",
    "steer_figure",
    "table_figures",
    "wheel_chart",
    "wheel_figure",
    "xy_figure",
    "xy_stem",
]
