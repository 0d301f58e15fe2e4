"""``suspension-sim sweep``: run a named sweep or a standard motion; write its table and
charts."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from suspension_sim.commands.charts import PARAMETER_OPTIONS as CHART_OPTIONS
from suspension_sim.commands.charts import add_chart_options, output_units, plot_y
from suspension_sim.description import SIGN_CONVENTIONS

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.outputs.chart_worker import ChartWorker

RESULTS_SHEET = "Results {}"
PARAMETER_OPTIONS = {
    "path": "--out",
    "directory": "--plot",
    "convention": "--convention",
    "motion_style": "--motion-style",
    "optimumk_channels": "--optimumk-channels",
    "start": "--from",
    "stop": "--to",
    "steps": "--steps",
    **CHART_OPTIONS,
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""
"""Name of the sheet --into-workbook adds (truncated to Excel's 31 characters)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep",
        help="run a standard motion (heave, roll, steer, bump:FL, ...) or a named sweep and "
        "write its metrics",
        description="Run a standard motion, which every car has (heave, roll, pitch, steer, "
        "bump:WHEEL, stroke:DAMPER, rack, chassis:AXIS, each over a default range), or a "
        "sweep defined in the workbook's Sweeps section, in a sweeps.yaml next to the "
        "workbook, or in --sweeps FILE.yaml; a named sweep takes precedence over the "
        "standard motion of its name (docs/sweeps.md). Writes one row of metrics per step. "
        "Steps that cannot be solved are reported; what was solved is still written, and "
        "the exit code is then non-zero.",
    )
    p.add_argument("workbook", help="the car's .xlsx workbook")
    p.add_argument(
        "sweep",
        help="a standard motion: heave, roll, pitch, steer (steer:mm, steer:deg), bump:WHEEL, "
        "stroke:DAMPER, rack, chassis:AXIS (names may contain spaces: 'stroke:FL Damper'); "
        "or the name of a defined sweep",
    )
    p.add_argument(
        "--from",
        dest="start",
        type=float,
        metavar="A",
        default=None,
        help="first value of the motion: mm for heave, bump, stroke, rack, steer:mm and chassis "
        "x/y/z; deg for roll, pitch, steer:deg (steering wheel) and chassis roll/pitch/yaw "
        "(defaults: heave -30, roll -2, pitch -1.5, bump -30, stroke -15, rack and steer "
        "the rack's travel limits, else steering wheel -90 deg with a Steering ratio, "
        "else -20 mm)",
    )
    p.add_argument(
        "--to",
        dest="stop",
        type=float,
        metavar="B",
        default=None,
        help="last value of the motion, in the units of --from (default: the mirror of the "
        "default start, e.g. heave +30 mm)",
    )
    p.add_argument(
        "--steps",
        type=int,
        metavar="N",
        default=None,
        help="number of steps from A to B inclusive (default 13 for a standard motion; a "
        "named sweep keeps its own)",
    )
    p.add_argument("--sweeps", metavar="FILE.yaml", default=None, help="sweep definitions")
    p.add_argument(
        "--out", default=None, help="write the table to a new .csv, .xlsx or .parquet file"
    )
    p.add_argument("--plot", metavar="DIR", default=None, help="write PNG charts into DIR")
    add_chart_options(p)
    p.add_argument(
        "--convention",
        choices=SIGN_CONVENTIONS,
        default=None,
        help="sign convention of the metrics (default: the workbook's 'Sign convention')",
    )
    p.add_argument(
        "--motion-style",
        choices=("ours", "optimumk"),
        default=None,
        help="how heave, roll, pitch and steer move the chassis: 'ours' (the chassis state "
        "about the reference point, contact points at z = 0) or 'optimumk' (OptimumK's "
        "incremental motion: roll and pitch about its roll and pitch axes, each contact "
        "point at its design height; steer:deg in its steering sign). Default: optimumk "
        "when the sign convention is optimumk, else ours (docs/conventions.md)",
    )
    p.add_argument(
        "--optimumk-channels",
        action="store_true",
        help="also write every OptimumK channel of the solved steps, each column named as "
        "OptimumK names it, e.g. 'Camber Angle [Left] [Front] (deg)' (OptimumK's "
        "definitions; its own numbers need OptimumK's motion style, --motion-style "
        "optimumk, the default under --convention optimumk; docs/sweeps.md)",
    )
    p.add_argument(
        "--into-workbook",
        action="store_true",
        help="also add the table to the source workbook as a new sheet 'Results <sweep>' "
        "(nothing else in the workbook changes)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing --out file (.csv, .xlsx or .parquet) or results sheet",
    )
    p.set_defaults(run=run)


def progress_bar(
    total: int, name: str, *, stream: TextIO | None = None
) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A tqdm bar of `total` steps on `stream` (default stderr; off when that is not a
    terminal, or under CI): (update(done, total), close()). close() shows the final
    count, then clears the line."""
    out = sys.stderr if stream is None else stream
    if not out.isatty() or os.environ.get("CI"):
        return (lambda done, total: None), (lambda: None)
    from tqdm import tqdm

    # No monitor thread: the charts are drawn in a forked child too
    # (`outputs.chart_files.save_figures`), which needs a process of one thread.
    tqdm.monitor_interval = 0
    bar = tqdm(total=total, desc=name, unit="step", file=out, leave=False)

    def update(done: int, total: int) -> None:
        bar.update(done - bar.n)

    def close() -> None:
        bar.refresh()  # updates closer than tqdm's minimum interval are not drawn
        bar.close()

    return update, close


def _check_outputs(args: argparse.Namespace, sheet: str) -> None:
    """Refuse bad output options before a long run (the writers check again): the
    folder rule and read-only files of `suspension_sim.files.check_output`, and an
    existing --out file of any type without --force (`suspension_sim.files.refuse_existing`)."""
    from suspension_sim.files import check_output, check_writable
    from suspension_sim.outputs.tables import check_table_path

    if args.out:
        check_table_path(args.out, option="--out", protect=args.workbook, force=args.force)
    if args.plot:
        from suspension_sim.outputs.plots import CHART_STEMS, xy_stem

        folder = check_output(args.plot, where="--plot", folder=True)
        stems = list(CHART_STEMS)
        if plot_y(args) and args.plot_x:  # (the default x is known once the car is read)
            stems.append(xy_stem(args.plot_x, plot_y(args)))
        for stem in stems:
            if (folder / f"{stem}.png").exists():
                check_writable(folder / f"{stem}.png", where="--plot")
    if args.into_workbook:
        from suspension_sim.outputs.xlsx_append import check_sheet_target

        check_sheet_target(args.workbook, sheet, force=args.force, option="--into-workbook")


def run(args: argparse.Namespace) -> int:
    from suspension_sim.outputs.chart_worker import chart_worker

    # With --plot, a worker loads matplotlib on the other core while the sweep runs.
    with chart_worker(bool(args.plot)) as worker:
        return _run(args, worker)


def _run(args: argparse.Namespace, worker: ChartWorker | None) -> int:
    from suspension_sim import load
    from suspension_sim.outputs.tables import write_table
    from suspension_sim.outputs.xlsx_append import add_sheet, sheet_name
    from suspension_sim.sweeps.run import run_sweep
    from suspension_sim.sweeps.standard import choose_sweep

    model = load(args.workbook)
    chosen = choose_sweep(
        model,
        args.workbook,
        args.sweep,
        args.sweeps,
        start=args.start,
        stop=args.stop,
        steps=args.steps,
    )
    spec = chosen.spec
    sheet = sheet_name(RESULTS_SHEET.format(spec.name))
    _check_outputs(args, sheet)
    if chosen.note:
        print(f"note: {chosen.note}")
    from suspension_sim.sweeps.motions import motion_style

    style = motion_style(args.motion_style, args.convention, model)
    motion_steps = len(spec.build(model, style))
    update, close = progress_bar(motion_steps, spec.name)
    try:
        result = run_sweep(
            model,
            spec,
            progress=update,
            convention=args.convention,
            keep_poses=False,
            motion_style=style,
            optimumk_channels=args.optimumk_channels,
        )
    finally:
        close()
    units = output_units(args)
    table = units.table(result.table)
    convention = table.attrs.get("convention", args.convention or "iso")
    print(
        f"{model.car.name}: {spec.description or spec.motion.label()} [{convention}]"
        + (" (OptimumK's motion style)" if style == "optimumk" else "")
    )
    if args.out:
        # write_table checks the path again: the file may have appeared while the sweep ran.
        path = write_table(table, args.out, option="--out", protect=args.workbook, force=args.force)
        print(f"wrote {path} ({len(table)} rows)")
    if args.plot:
        from suspension_sim.outputs.chart_files import plot_table, sweep_charts

        if result.steps:
            job = sweep_charts(
                result,
                args.plot,
                units=units,
                against_travel=args.against_travel,
                plot_x=args.plot_x,
                plot_y=plot_y(args),
            )
            paths = plot_table(**job) if worker is None else worker.plot_table(**job)
            print(f"wrote {len(paths)} chart(s) to {args.plot}")
    if args.into_workbook:
        used = add_sheet(args.workbook, sheet, table, force=args.force, option="--into-workbook")
        print(f"added sheet {used!r} to {args.workbook}")
    print(result.summary())
    if result.steps:
        from suspension_sim.outputs.near_parallel import near_parallel_notes

        for note in near_parallel_notes(result.table, result.columns[0]):
            print(f"note: {note}")
    return 0 if result.ok else 3
