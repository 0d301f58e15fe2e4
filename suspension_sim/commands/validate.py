"""``suspension-sim validate WORKBOOK EXPORT --out REPORT_DIR``: compare with an OptimumK export.

Drives the car through the export's motion (``--drive motion``: its heave,
roll, pitch and steer with the tyres on the ground; ``--drive dampers``: its
damper lengths as strokes), compares every mapped channel and writes
REPORT_DIR/report.md with plots. With ``--force-case NAME`` or ``--force-keyframes
FILE.csv`` an OptimumK export's force channels are compared too. EXPORT may also be
OptimumK's own result file (.O2Res): its channels are compared exactly as its Excel
export's, after its own copy of the car is checked against the workbook
(`suspension_sim.validation.okresult`; a result of another car fails unless
``--accept-other-car``). Exit 0 = every channel within tolerance, 1 = some channel or
step failed (or the result is of another car), 2 = bad input (the message names the
file and column, or the option).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from suspension_sim.errors import InputError
from suspension_sim.files import check_output, check_writable

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.validation import Export, Validation

PARAMETER_OPTIONS = {
    "out": "--out",
    "drive": "--drive",
    "channel_map": "--map",
    "force_case": "--force-case",
    "force_keyframes": "--force-keyframes",
    "accept_other_car": "--accept-other-car",
    "axes": "--axes",
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""
REPORT_FILES = ("report.md", "comparison.csv")
"""Files of REPORT_DIR checked before the run (a read-only one is refused)."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "validate",
        help="compare the model with an OptimumK results export and write a report",
        description="Compare the model with an OptimumK results export (or any export in its "
        "layout) and write REPORT_DIR/report.md with plots.",
        epilog="OptimumK's own result exports are read as they are ('Camber Angle [Left] "
        "[Front] (deg)', 'Motion [Heave]', title block, statistic rows) and compared channel "
        "by channel with OptimumK's definitions, the car driven in OptimumK's motion style "
        "(no map). Other tables ('Camber Angle Front Left [deg]', 'Heave [mm]', 'Steering "
        "Wheel Angle [deg]') go through the channel map; --map or --drive dampers read an "
        "OptimumK export that way too. OptimumK's own result file (.O2Res) is compared as "
        "its Excel export, after its own copy of the car is checked against the workbook "
        "(docs/optimumk_files.md). See docs/validation.md. Exit 0 = pass, 1 = fail (or a "
        "result of another car), 2 = bad input.",
    )
    p.add_argument("workbook", metavar="WORKBOOK", help="the car's .xlsx workbook (never written)")
    p.add_argument(
        "export",
        metavar="EXPORT",
        help="the OptimumK results export (.csv or .xlsx), or OptimumK's result file (.O2Res)",
    )
    p.add_argument(
        "--map",
        default=None,
        metavar="MAP",
        help="map file (.csv or .yaml): export channel -> our metric, sign, scale",
    )
    p.add_argument(
        "--drive",
        choices=("motion", "dampers"),
        default="motion",
        help="motion: the export's heave/roll/pitch/steer with tyres on the ground (default); "
        "dampers: its damper lengths as strokes",
    )
    p.add_argument(
        "--tol-angle",
        type=float,
        default=0.02,
        metavar="DEG",
        help="largest angle deviation allowed (deg, default 0.02)",
    )
    p.add_argument(
        "--tol-length",
        type=float,
        default=0.1,
        metavar="MM",
        help="largest length deviation allowed (mm, default 0.1)",
    )
    p.add_argument(
        "--tol-ratio",
        type=float,
        default=0.005,
        metavar="R",
        help="largest deviation allowed for ratios (motion ratio, default 0.005)",
    )
    p.add_argument(
        "--tol-percent",
        type=float,
        default=0.1,
        metavar="PCT",
        help="largest deviation allowed for percentages (anti-dive, Ackermann; default 0.1)",
    )
    p.add_argument(
        "--tol-force",
        type=float,
        default=1.0,
        metavar="N",
        help="largest force deviation allowed (N, default 1)",
    )
    p.add_argument(
        "--tol-moment",
        type=float,
        default=1.0,
        metavar="NM",
        help="largest moment deviation allowed (N m, default 1)",
    )
    force = p.add_mutually_exclusive_group()
    force.add_argument(
        "--force-case",
        default=None,
        metavar="NAME",
        help="compare the export's force channels with this case of the workbook's Load "
        "Cases section, held at every step (world axes, no brake/drive torques), or with "
        "OptimumK's force-case file (NAME.O2For). A .O2Res force result without it is "
        "compared with its own contact-patch loads",
    )
    force.add_argument(
        "--force-keyframes",
        default=None,
        metavar="FILE.csv",
        help="compare the export's force channels with OptimumK's force-case keyframes "
        "(wheel, percent, Fx, Fy, Fz, Mx, My, Mz; docs/loads.md), ramped with the export's "
        "Motion [Completion Percentage]",
    )
    p.add_argument(
        "--accept-other-car",
        action="store_true",
        help="a .O2Res result whose own car differs from the workbook's: compare anyway "
        "(the differences still lead the report); without it such a run fails",
    )
    p.add_argument(
        "--axes",
        default=None,
        metavar="MAP",
        help="a .O2Res result: the axes of its embedded car's files, as given to "
        "import-optimumk (e.g. '+X -Y +Z' for lateral + to the right); its binary copies do "
        "not state them",
    )
    p.add_argument("--out", required=True, metavar="REPORT_DIR", help="report folder")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots (faster)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.validation import load_channel_map, read_export, validate, write_report

    for option, value in (
        ("--tol-angle", args.tol_angle),
        ("--tol-length", args.tol_length),
        ("--tol-ratio", args.tol_ratio),
        ("--tol-percent", args.tol_percent),
        ("--tol-force", args.tol_force),
        ("--tol-moment", args.tol_moment),
    ):
        if not (value > 0):
            raise InputError(f"must be positive, found {value:g}", where=option)
    workbook, export_path = Path(args.workbook), Path(args.export)
    out = check_output(args.out, where="--out", folder=True)  # its parent must exist
    for name in REPORT_FILES:
        if (out / name).exists():
            check_writable(out / name, where="--out")
    model = load(str(workbook))
    from suspension_sim.validation.okresult import is_result_file

    if is_result_file(export_path):
        return _run_result(args, model, workbook, export_path, out)
    if args.axes is not None:
        raise InputError(
            "--axes applies to OptimumK's result file (.O2Res), whose embedded car is "
            "imported; an export's lateral axis is read from its own channels",
            where="--axes",
            hint="leave out --axes",
        )
    cmap = load_channel_map(args.map)
    # An OptimumK export is compared through OptimumK's channel registry in its motion
    # style; a map file or the damper drive read it as a table through the map instead.
    layout = "table" if (args.map or args.drive == "dampers") else "auto"
    export = read_export(export_path, cmap, layout=layout)
    force_case, keys = args.force_case, args.force_keyframes
    if force_case is not None and Path(force_case).suffix.lower() == ".o2for":
        from suspension_sim.validation.okresult import force_case_file

        keys = force_case_file(force_case, model)
        force_case = None
    result = validate(
        model,
        export,
        drive=args.drive,
        channel_map=cmap,
        tolerances=_tolerances(args),
        workbook=workbook,
        force_case=force_case,
        force_keyframes=keys,
    )
    protect = [workbook, export_path] + ([Path(args.map)] if args.map else [])
    if args.force_keyframes:
        protect.append(Path(args.force_keyframes))
    report = write_report(result, out, plots=not args.no_plots, protect=protect)
    return _outcome(result, export, report)


def _tolerances(args: argparse.Namespace) -> dict[str, float]:
    return {
        "angle": args.tol_angle,
        "length": args.tol_length,
        "ratio": args.tol_ratio,
        "percent": args.tol_percent,
        "force": args.tol_force,
        "moment": args.tol_moment,
    }


def _run_result(
    args: argparse.Namespace, model: KinematicModel, workbook: Path, path: Path, out: Path
) -> int:
    """An OptimumK result file: its own car checked (said first), then every channel
    compared as its Excel export's."""
    from suspension_sim.validation import write_report
    from suspension_sim.validation.okresult import check_car, result_export, validate_result
    from suspension_sim.workbook.optimumk_files.results import read_result

    if args.map or args.drive != "motion":
        option = "--map" if args.map else "--drive"
        raise InputError(
            "a .O2Res result is compared through OptimumK's channel registry, driven by its "
            "own Motion channels",
            where=option,
            hint=f"leave out {option}",
        )
    result = read_result(path)
    export = result_export(result)
    check = check_car(model, result, workbook, axes=args.axes)
    for line in check.lines():
        print(line if line.startswith(" ") else f"car: {line}")
    validation = validate_result(
        model,
        result,
        export,
        check,
        tolerances=_tolerances(args),
        workbook=workbook,
        force_case=args.force_case,
        force_keyframes=args.force_keyframes,
        accept_other_car=args.accept_other_car,
    )
    protect = [workbook, path]
    for extra in (args.force_case, args.force_keyframes):
        if extra and Path(extra).is_file():
            protect.append(Path(extra))
    report = write_report(validation, out, plots=not args.no_plots, protect=protect)
    return _outcome(validation, export, report)


def _outcome(result: Validation, export: Export, report: Path) -> int:
    """Print the run's outcome (summary, what was read, what failed); the exit code."""
    print(result.summary())
    if export.skipped:
        print(f"  skipped {len(export.skipped)} statistic row(s): {', '.join(export.skipped)}")
    for note in export.reading:
        print(f"  {note}")
    for line in result.warnings[: len(result.assumed)]:
        print(f"  note: {line}")
    if result.style == "optimumk":
        n_other = len(result.not_compared)
    else:
        n_other = len(export.ignored) + len(result.not_computed)
    if n_other:
        print(f"  {n_other} column(s) not compared (listed in the report)")
    for c in result.failed_channels[:20]:
        print(
            f"  {c.channel}: largest deviation {c.max_abs:.4g} {c.unit} "
            f"(tolerance {c.tolerance:g} {c.unit})"
        )
    for s in result.failed_steps[:5]:
        label = f"{export.steps[s.index]:g}"
        print(f"  step {label} not solved: {(s.failure or '').splitlines()[0]}")
    print(f"wrote {report}")
    return 0 if result.passed else 1
