"""Chart and output-unit options shared by ``sweep`` and ``compare`` (docs/sweeps.md, "Charts")."""

from __future__ import annotations

import argparse

from suspension_sim.outputs.plots import ANGLE_UNITS, LENGTH_UNITS, OutputUnits

PARAMETER_OPTIONS = {
    "plot_x": "--plot-x",
    "plot_y": "--plot-y",
    "units": "--units",
    "angles": "--angles",
}
"""Library parameter -> option, for error messages (merged into each command's)."""


def add_chart_options(p: argparse.ArgumentParser) -> None:
    """--plot-x, --plot-y, --against-travel, --units, --angles."""
    p.add_argument(
        "--plot-x",
        metavar="COLUMN",
        default=None,
        help="x of the charts: any column of the table (default: the swept variable)",
    )
    p.add_argument(
        "--plot-y",
        metavar="COLUMN[,COLUMN]",
        default=None,
        help="also chart these columns against x (comma-separated column names)",
    )
    p.add_argument(
        "--against-travel",
        action="store_true",
        help="per-wheel charts against each wheel's travel (mm, + = bump)",
    )
    p.add_argument(
        "--units",
        choices=LENGTH_UNITS,
        default="mm",
        help="length unit of the tables and charts written (default mm)",
    )
    p.add_argument(
        "--angles",
        choices=ANGLE_UNITS,
        default="deg",
        help="angle unit of the tables and charts written (default deg)",
    )


def output_units(args: argparse.Namespace) -> OutputUnits:
    """The OutputUnits of --units and --angles."""
    return OutputUnits(args.units, args.angles)


def plot_y(args: argparse.Namespace) -> list[str]:
    """The --plot-y columns (comma-separated, spaces around names ignored)."""
    if not args.plot_y:
        return []
    return [c.strip() for c in str(args.plot_y).split(",") if c.strip()]
