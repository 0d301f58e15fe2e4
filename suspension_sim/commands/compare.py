"""``suspension-sim compare``: the same sweep on several cars, overlaid charts and differences."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from suspension_sim.commands.charts import PARAMETER_OPTIONS as CHART_OPTIONS
from suspension_sim.commands.charts import add_chart_options, output_units, plot_y
from suspension_sim.description import SIGN_CONVENTIONS

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.outputs.chart_worker import ChartWorker

PARAMETER_OPTIONS = {
    "directory": "--out",
    "convention": "--convention",
    "models_or_paths": "WORKBOOK",
    **CHART_OPTIONS,
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="run the same sweep on two or more cars; overlaid charts and differences",
        description="Run one sweep on each workbook and write, into --out DIR, the charts "
        "with one line per car (named by each workbook's 'Car name', or its file name when "
        "names clash) and differences.csv: per channel, each car's value at design, min, "
        "max and range along the sweep, and the largest difference from the first car at "
        "equal swept values. Wheels are matched by where they are (front/rear, left/right "
        "from the wheel centres), not by name: every table uses the first car's wheel "
        "names and the legend says which wheel of another car is which; cars whose wheels "
        "are at other corners (another axle count) are refused. The biggest differences "
        "are printed, the design quantities (camber, toe, roll centre, antis, ...) before "
        "the other channels. The sweep is looked up as `sweep` does for the first "
        "workbook: a named sweep, else the standard motion of that name (docs/sweeps.md, "
        "'Compare').",
    )
    p.add_argument("workbooks", nargs="+", metavar="WORKBOOK", help="two or more .xlsx workbooks")
    p.add_argument("sweep", help="name of the sweep to run on each car")
    p.add_argument("--out", metavar="DIR", required=True, help="folder for the charts and table")
    p.add_argument("--sweeps", metavar="FILE.yaml", default=None, help="sweep definitions")
    p.add_argument(
        "--convention",
        choices=SIGN_CONVENTIONS,
        default=None,
        help="sign convention of the metrics (default: the first workbook's)",
    )
    add_chart_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim.outputs.chart_worker import chart_worker

    # A worker loads matplotlib on the other core while the cars are read and solved.
    with chart_worker() as worker:
        return _run(args, worker)


def _run(args: argparse.Namespace, worker: ChartWorker | None) -> int:
    from suspension_sim import load
    from suspension_sim.errors import InputError
    from suspension_sim.files import check_output
    from suspension_sim.outputs.compare import compare
    from suspension_sim.sweeps.standard import choose_sweep

    if len(args.workbooks) < 2:
        raise InputError(
            "compare needs at least two workbooks before the sweep name",
            where="WORKBOOK",
            hint="suspension-sim compare A.xlsx B.xlsx SWEEP --out DIR",
        )
    check_output(args.out, where="--out", folder=True)
    units = output_units(args)
    models = [load(w) for w in args.workbooks]
    chosen = choose_sweep(models[0], args.workbooks[0], args.sweep, args.sweeps)
    if chosen.note:
        print(f"note: {chosen.note}")
    result = compare(models, chosen.spec, convention=args.convention)
    paths = result.write(
        args.out,
        units=units,
        against_travel=args.against_travel,
        plot_x=args.plot_x,
        plot_y=plot_y(args),
        option="--out",
        worker=worker,
    )
    print(result.summary(units))
    print(f"wrote {paths[0]} and {len(paths) - 1} chart(s) to {args.out}")
    return 0 if result.ok else 3
