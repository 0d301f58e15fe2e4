"""``suspension-sim doe WORKBOOK STUDY.yaml --out RESULTS.parquet``: a design of experiments.

Samples the study's hardpoint ranges (scrambled Sobol or Latin hypercube), runs every
design through the study's motions on a Dask cluster (a local one, one process per core,
unless --scheduler names one) and streams one row per design, motion and step to a
Parquet file, with a progress bar. A design that cannot be built or solved is a row with
its reason. docs/exploration.md, "Design of experiments".
"""

from __future__ import annotations

import argparse

PARAMETER_OPTIONS = {"out": "--out", "scheduler": "--scheduler", "workers": "--workers"}
"""Library parameter -> this command's option, for error messages (see `cli`)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doe",
        help="design of experiments: sample hardpoint ranges, run each design's motions, "
        "write one Parquet table",
        description=__doc__.splitlines()[0],
        epilog="The study file names the variables (point, axis, range in mm about the "
        "design, symmetric), the motions (standard motions or the workbook's named "
        "sweeps), the number of samples, the method (sobol or lhs) and the seed. Exit 0 = "
        "every design solved, 1 = some designs or steps could not be solved (their rows "
        "say why), 2 = bad input.",
    )
    p.add_argument("workbook", metavar="WORKBOOK", help="the car's .xlsx workbook (never written)")
    p.add_argument("study", metavar="STUDY.yaml", help="the study: variables, motions, samples")
    p.add_argument("--out", metavar="RESULTS.parquet", required=True, help="the Parquet file")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="a running Dask scheduler (tcp://host:8786) whose workers have suspension_sim "
        "installed; default: a local cluster on this machine",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="processes of the local cluster (default: one per core); 0 runs every design in "
        "this process, without a cluster (debugging, small studies)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.commands.sweep import progress_bar
    from suspension_sim.errors import InputError
    from suspension_sim.explore.design_space import read_study
    from suspension_sim.explore.doe import run_doe
    from suspension_sim.outputs.tables import check_table_path

    if args.workers is not None and not 0 <= args.workers <= 512:
        raise InputError(
            f"{args.workers} workers", where="--workers", hint="give 0 (no cluster) to 512"
        )
    if args.scheduler is not None and args.workers is not None:
        raise InputError(
            "--workers sets the local cluster's size; a --scheduler has its own workers",
            where="--workers",
            hint="leave --workers out with --scheduler",
        )
    if not str(args.out).lower().endswith(".parquet"):
        raise InputError(
            f"{args.out!r} is not a .parquet file name", where="--out", hint="name it *.parquet"
        )
    check_table_path(args.out, option="--out", protect=args.workbook, force=args.force)
    study = read_study(args.study)
    model = load(args.workbook)
    where = (
        "this process (no cluster)"
        if args.workers == 0
        else args.scheduler or f"a local Dask cluster ({args.workers or 'one process per core'})"
    )
    print(f"{study.samples} designs x {len(study.motions)} motion(s) on {where}", flush=True)
    update, close = progress_bar(study.samples, "designs")
    try:
        summary = run_doe(
            model.car,
            study,
            args.out,
            workbook=args.workbook,
            scheduler=args.scheduler,
            workers=args.workers,
            progress=update,
        )
    finally:
        close()
    print(
        f"wrote {summary.rows} rows ({summary.designs} designs) to {summary.path} in "
        f"{summary.seconds:.1f} s on {summary.workers} worker(s): "
        f"{summary.designs_per_second:.1f} designs/s"
    )
    print(
        f"designs: {summary.designs_ok} solved at every step, {summary.designs_partly} with "
        f"steps not solved, {summary.designs_failed} not built or not solved at all"
    )
    if summary.reasons:
        listed = ", ".join(f"{k} {v}" for k, v in sorted(summary.reasons.items()))
        print(f"rows not solved: {listed} (their 'reason' column says why)")
    return 0 if summary.designs_ok == summary.designs else 1
