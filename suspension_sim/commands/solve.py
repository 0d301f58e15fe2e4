"""``suspension-sim solve``: one pose from strokes, rack and chassis state."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover - pandas only where a table is made (view imports us)
    import pandas as pd


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve",
        help="solve one pose and write the point positions",
        description="Solve the pose for given damper strokes (mm, + = compression), rack "
        "travel (mm, + = toward +Y) and chassis state (x y z in mm, roll pitch yaw in deg).",
    )
    add_pose_arguments(p)
    p.add_argument("--out", default=None, help="write points to .csv, .xlsx or .parquet")
    p.add_argument("--force", action="store_true", help="replace an existing .xlsx output")
    p.add_argument("--tolerance", type=float, default=None, help="solver tolerance (mm)")
    p.set_defaults(run=run)


def add_pose_arguments(p: argparse.ArgumentParser) -> None:
    """WORKBOOK, --shocks, --rack and --chassis: the inputs of one pose (mm, deg)."""
    p.add_argument("workbook", help="the car's .xlsx workbook")
    p.add_argument(
        "--shocks",
        nargs="+",
        default=None,
        metavar="V|NAME=V",
        help="strokes in mm: one per damper in Damping order, or NAME=V pairs",
    )
    p.add_argument("--rack", type=float, default=0.0, metavar="MM", help="rack travel (mm)")
    p.add_argument(
        "--chassis",
        nargs=6,
        type=float,
        default=(0.0,) * 6,
        metavar=("X", "Y", "Z", "ROLL", "PITCH", "YAW"),
        help="chassis state relative to design (mm, deg)",
    )


def parse_shocks(values: list[str] | None) -> list[float] | dict[str, float] | None:
    """'--shocks 1 2 3 4' or '--shocks FL_Damper=1 ...' -> list or mapping (mm)."""
    if not values:
        return None
    named = ["=" in v for v in values]
    if any(named) and not all(named):
        raise InputError(
            "mixes plain values and NAME=V pairs",
            where="--shocks",
            hint="give either one value per damper or NAME=V for each",
        )
    if not all(named):
        return [_number(v, f"value {i + 1}") for i, v in enumerate(values)]
    out: dict[str, float] = {}
    for item in values:
        name, value = (part.strip() for part in item.split("=", 1))
        if name in out:
            raise InputError(f"damper {name} is given twice", where="--shocks")
        out[name] = _number(value, name)
    return out


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(
            f"{what}: {text!r} is not a number", where="--shocks", hint="strokes are in mm"
        ) from None


def points_table(pose: object) -> pd.DataFrame:
    """Points with their joint residual (mm); blank residual = not a joint."""
    df = pose.points.copy()  # type: ignore[attr-defined]
    df["residual"] = pose.residuals.reindex(df.index)  # type: ignore[attr-defined]
    df.columns = ["x_mm", "y_mm", "z_mm", "residual_mm"]
    return df


def pose_summary(pose: object) -> list[str]:
    """The short design sheet of a solved pose: camber, toe, caster, KPI, scrub, trail
    and motion ratio per wheel, roll centre height per axle (mm, deg; the workbook's
    sign convention); nothing for a car without wheels."""
    from suspension_sim.outputs.design_sheet import design_sheet, format_design_sheet

    sheet = design_sheet(pose, short=True)  # type: ignore[arg-type]
    if not sheet.tables:
        return []
    title = f"Alignment of this pose ({sheet.convention} signs; all quantities: report):"
    return format_design_sheet(sheet, title).splitlines()


def solve_pose(model: Any, args: argparse.Namespace) -> Any:
    """The pose the pose options ask for (`add_pose_arguments`), returned even when it
    does not close (check `pose.converged`); prints the convergence summary line."""
    pose = model.solve(
        shocks=parse_shocks(args.shocks),
        rack=args.rack,
        chassis=tuple(args.chassis),
        tolerance=args.tolerance,
        on_failure="return",
    )
    print(f"{model.car.name}: {pose.info.summary()}")
    return pose


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.outputs.tables import check_table_path, write_table
    from suspension_sim.solve.reach import near_limits

    if args.out:
        check_table_path(args.out, option="--out", protect=args.workbook, force=args.force)
    model = load(args.workbook)
    if args.tolerance is not None and not (args.tolerance > 0):
        raise InputError("must be positive", where="--tolerance")
    pose = solve_pose(model, args)
    strokes = ", ".join(f"{k} {v:g}" for k, v in pose.shocks.items()) or "(no dampers)"
    print(f"inputs: strokes [mm] {strokes}; rack {pose.rack:g} mm; chassis {pose.chassis}")
    near = list(dict.fromkeys(near_limits(pose))) if pose.converged else []  # once each
    for line in near:
        print(f"warning: {line}")
    if pose.info.near_singular and not near:
        print(
            "warning: near-singular (toggle) configuration: a link is close to lining up "
            "with its neighbour, so small input changes move it a lot"
        )
    for w in model.car.wheels:
        c = pose.points.loc[w.centre].to_numpy(dtype=float)
        print(f"wheel {w.name}: centre ({c[0]:.3f}, {c[1]:.3f}, {c[2]:.3f}) mm")
    if not pose.converged:
        print(f"error: {pose.failure}")
        if args.out:
            print(f"{args.out} not written: the pose did not close (see it with 'view')")
        return 3
    print("\n".join(pose_summary(pose)))
    if args.out:
        path = write_table(
            points_table(pose), args.out, option="--out", protect=args.workbook, force=args.force
        )
        print(f"wrote {path}")
    return 0 if np.isfinite(pose.info.max_residual_mm) else 3
