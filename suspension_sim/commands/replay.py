"""``suspension-sim replay WORKBOOK LOG --map MAP.yaml --out results.parquet``: damper log ->
wheel attitude, sample by sample (docs/replay.md).

Exit 0 = every sample that could be solved closed (blank samples of gaps and
out-of-limits values are reported, not failures), 3 = some sample did not
close, or no sample was solved at all (one line says why), 2 = bad input (the
message names the map line, the column or option).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from suspension_sim.description import SIGN_CONVENTIONS
from suspension_sim.errors import InputError

PARAMETER_OPTIONS = {
    "out": "--out",
    "columns": "--columns",
    "chunk": "--chunk",
    "gap_factor": "--gap-factor",
    "method": "--method",
    "plot": "--plot",
    "plot_columns": "--plot-columns",
    "report": "--report",
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""
SHOWN_PROBLEMS = 20
"""Problem ranges printed (all of them go to --report FILE)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a data-logger export (damper pots, steering) into wheel attitude",
        description="Solve every sample of a data-logger export (CSV or Parquet: a time "
        "column, damper potentiometers, optional steering and chassis heave/roll/pitch) and "
        "write per-sample wheel attitude: camber to ground and chassis, toe, wheel travel, "
        "contact points, ride-height changes, roll-centre heights, motion ratios. A MAP.yaml "
        "says which column is which and in which unit (docs/replay.md). Gaps, bad channels "
        "and values beyond the damper's travel are reported with their time stamps and "
        "left blank; nothing is extrapolated.",
        epilog="Exit 0 = done, 3 = some sample did not close or none was solved, 2 = bad input.",
    )
    p.add_argument("workbook", help="the car's .xlsx workbook (never written)")
    p.add_argument("log", help="the data-logger export: .csv or .parquet (never written)")
    p.add_argument(
        "--map", required=True, metavar="MAP.yaml", help="which log column feeds which input"
    )
    p.add_argument(
        "--out", required=True, metavar="FILE", help="results: a new .csv or .parquet file"
    )
    p.add_argument(
        "--columns",
        metavar="COLUMN[,COLUMN]",
        default=None,
        help="metric columns to write (comma-separated, e.g. camber_FL_deg,toe_FL_deg; "
        "default: the wheel-attitude set of docs/replay.md)",
    )
    p.add_argument("--plot", metavar="DIR", default=None, help="write PNG charts against time")
    p.add_argument(
        "--plot-columns",
        metavar="COLUMN[,COLUMN]",
        default=None,
        help="chart these columns (one panel each, DIR/columns.png) instead of the default charts",
    )
    p.add_argument(
        "--report", metavar="FILE", default=None, help="also write every problem to a text file"
    )
    p.add_argument(
        "--convention",
        choices=SIGN_CONVENTIONS,
        default=None,
        help="sign convention of the metrics (default: the workbook's 'Sign convention')",
    )
    p.add_argument(
        "--method",
        choices=("auto", "numpy", "compiled"),
        default="auto",
        help="batch engine: compiled (numba, ~15 s to compile once), numpy, or auto "
        "(compiled for logs of 10000 samples or more)",
    )
    p.add_argument(
        "--chunk",
        type=int,
        default=None,
        metavar="N",
        help="samples solved and written at a time (default 20000; memory grows with it)",
    )
    p.add_argument(
        "--gap-factor",
        type=float,
        default=None,
        metavar="F",
        help="report a time step longer than F x the median step (default 5)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no notes")
    p.set_defaults(run=run)


def _names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [c.strip() for c in text.split(",") if c.strip()]


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.files import check_output, write_text_atomically
    from suspension_sim.replay import plot_replay, replay_log
    from suspension_sim.replay.run import DEFAULT_CHUNK, DEFAULT_GAP_FACTOR

    inputs = [Path(args.workbook), Path(args.log), Path(args.map)]
    if args.plot:
        check_output(args.plot, where="--plot", folder=True)
    if args.report:
        report = check_output(args.report, where="--report")
        if any(report.exists() and p.exists() and report.samefile(p) for p in inputs):
            raise InputError(
                f"{report} is an input of the replay; it is never overwritten",
                where="--report",
            )
        if Path(args.out) == report:
            raise InputError("--report and --out name the same file", where="--report")
    model = load(args.workbook)
    _check_plot_columns(model, args)
    update, close = (lambda done, total: None), (lambda: None)
    if not args.quiet:
        update, close = _bar()
    try:
        result = replay_log(
            model,
            args.log,
            args.map,
            out=args.out,
            columns=_names(args.columns),
            convention=args.convention,
            method=args.method,
            chunk=args.chunk if args.chunk is not None else DEFAULT_CHUNK,
            gap_factor=args.gap_factor if args.gap_factor is not None else DEFAULT_GAP_FACTOR,
            force=args.force,
            keep_table=False,
            progress=update,
        )
    finally:
        close()
    print(f"{model.car.name}: replayed {args.log}")
    lines = result.report_lines(SHOWN_PROBLEMS)
    if args.quiet:
        lines = [line for line in lines if not line.startswith("note: ")]
    for line in lines:
        print(f"  {line}")
    print(f"wrote {result.out} ({result.samples} rows)")
    if args.report:
        write_text_atomically(args.report, result.report_text())
        print(f"wrote {args.report}")
    if args.plot:
        paths = plot_replay(
            args.out,
            args.plot,
            columns=_names(args.plot_columns),
            title=model.car.name,
            gap_factor=args.gap_factor if args.gap_factor is not None else DEFAULT_GAP_FACTOR,
        )
        print(f"wrote {len(paths)} chart(s) to {args.plot}")
    print(result.summary())
    if result.counts.get("ok", 0) == 0:
        print(f"error: {result.nothing_solved()}", file=sys.stderr)
        return 3
    return 3 if result.counts.get("not_closed", 0) else 0


def _check_plot_columns(model: object, args: argparse.Namespace) -> None:
    """--plot-columns must be columns the replay writes (checked before the long run)."""
    from suspension_sim.names import did_you_mean
    from suspension_sim.replay import load_map
    from suspension_sim.replay.run import choose_columns

    wanted = _names(args.plot_columns)
    if not wanted:
        return
    if not args.plot:
        raise InputError("--plot-columns needs --plot DIR", where="--plot-columns")
    cmap = load_map(args.map)
    written = choose_columns(model, cmap, _names(args.columns))  # type: ignore[arg-type]
    for name in wanted:
        if name not in written:
            raise InputError(
                f"{name!r} is not a column of the results." + did_you_mean(name, written),
                where="--plot-columns",
                hint="chart columns that are written (--columns)",
            )


def _bar() -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress bar (stderr, off when not a terminal) whose total is set at the first
    update: the log's length is known after the first pass."""
    from suspension_sim.commands.sweep import progress_bar

    bar: list[tuple[Callable[[int, int], None], Callable[[], None]]] = []

    def update(done: int, total: int) -> None:
        if not bar:
            bar.append(progress_bar(total, "replay"))
        bar[0][0](done, total)

    def close() -> None:
        if bar:
            bar[0][1]()

    return update, close
