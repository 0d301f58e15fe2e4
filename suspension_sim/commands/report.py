"""``suspension-sim report``: the design sheet (static alignment per wheel, axle, side)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.commands.solve import add_pose_arguments, parse_shocks
from suspension_sim.description import SIGN_CONVENTIONS
from suspension_sim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover - pandas only when a table is made (printing needs none)
    import pandas as pd

    from suspension_sim.solve.pose import Pose

REPORT_SHEET = "Design sheet"
"""Name of the sheet --into-workbook adds."""
PARAMETER_OPTIONS = {
    "path": "--out",
    "convention": "--convention",
    "optimumk_channels": "--optimumk-channels",
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="print the design sheet: camber, toe, caster, KPI, scrub, trail, ... per wheel",
        description="Print the static design condition of a pose (design by default; the "
        "pose options as 'solve': strokes in mm + = compression, rack in mm + = toward +Y, "
        "chassis x y z in mm and roll pitch yaw in deg) as tables: rows are quantities with "
        "their units, columns are wheels, axles and sides (docs/metrics.md, 'Design sheet').",
    )
    add_pose_arguments(p)
    p.add_argument(
        "--convention",
        choices=SIGN_CONVENTIONS,
        default=None,
        help="sign convention (default: the workbook's 'Sign convention')",
    )
    p.add_argument(
        "--optimumk-channels",
        action="store_true",
        help="also list every OptimumK channel of the pose under OptimumK's own name and "
        "unit, e.g. 'Camber Angle [Left] [Front] (deg)' (OptimumK's definitions; "
        "docs/sweeps.md); with --out they are rows of the file with their value in the "
        "column 'value'",
    )
    p.add_argument(
        "--out", default=None, help="also write the sheet to a new .csv, .xlsx or .parquet file"
    )
    p.add_argument(
        "--into-workbook",
        action="store_true",
        help=f"also add the sheet to the source workbook as a new sheet {REPORT_SHEET!r} "
        "(nothing else in the workbook changes)",
    )
    p.add_argument(
        "--force", action="store_true", help="replace an existing --out file or the sheet"
    )
    p.add_argument("--tolerance", type=float, default=None, help="solver tolerance (mm)")
    p.set_defaults(run=run)


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse bad output options before solving (the writers check again): the rules
    of ``sweep --out`` (an existing file of any type only with --force) and
    ``sweep --into-workbook``."""
    if args.out:
        from suspension_sim.outputs.tables import check_table_path

        check_table_path(args.out, option="--out", protect=args.workbook, force=args.force)
    if args.into_workbook:
        from suspension_sim.outputs.xlsx_append import check_sheet_target

        check_sheet_target(args.workbook, REPORT_SHEET, force=args.force, option="--into-workbook")


def optimumk_rows(pose: Pose) -> pd.DataFrame:
    """OptimumK's channels of one pose as rows: index = OptimumK's header (the
    channel text with its unit, `suspension_sim.sweeps.okcolumns.optimumk_header`),
    one column ``value`` (OptimumK's display units)."""
    import pandas as pd

    from suspension_sim.sweeps.okcolumns import optimumk_columns

    model = pose.model
    frame = optimumk_columns(model, [pose], rates=model.n_params > 0)
    index = pd.Index(list(frame.columns), name="quantity")
    return pd.DataFrame({"value": frame.iloc[0].to_numpy(float)}, index=index)


def format_optimumk_rows(rows: pd.DataFrame) -> str:
    """The channels of `optimumk_rows` as text, one per line (``-`` for a blank)."""
    width = max((len(str(k)) for k in rows.index), default=0)
    lines = ["OptimumK's channels (its definitions and units, world frame; docs/sweeps.md):"]
    for key, v in zip(rows.index, rows["value"], strict=True):
        text = "-" if not np.isfinite(v) else f"{v:.6g}"
        lines.append(f"  {key:<{width}}  {text:>12}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.outputs.design_sheet import design_sheet, format_design_sheet

    if args.tolerance is not None and not (args.tolerance > 0):
        raise InputError("must be positive", where="--tolerance")
    check_outputs(args)
    model = load(args.workbook)
    pose = model.solve(
        shocks=parse_shocks(args.shocks),
        rack=args.rack,
        chassis=tuple(args.chassis),
        tolerance=args.tolerance,
    )  # a pose that does not close raises SolveError (exit 3): nothing is written
    sheet = design_sheet(pose, args.convention)
    print(format_design_sheet(sheet))
    if not (args.optimumk_channels or args.out or args.into_workbook):
        return 0  # nothing more to print or write: no table (and no pandas)
    import pandas as pd

    table = sheet.frame()
    if args.optimumk_channels:
        channels = optimumk_rows(pose)
        print(format_optimumk_rows(channels))
        table = pd.concat([table, channels])
        table.attrs.update(sheet.frame().attrs)
    if args.out:
        from suspension_sim.outputs.tables import write_table

        path = write_table(
            table,
            args.out,
            option="--out",
            protect=args.workbook,
            force=args.force,
            sheet_name=REPORT_SHEET,
        )
        print(f"wrote {path}")
    if args.into_workbook:
        from suspension_sim.outputs.xlsx_append import add_sheet

        used = add_sheet(
            args.workbook, REPORT_SHEET, table, force=args.force, option="--into-workbook"
        )
        print(f"added sheet {used!r} to {args.workbook}")
    return 0
