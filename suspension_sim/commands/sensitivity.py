"""``suspension-sim sensitivity WORKBOOK --out DIR``: d metric / d hardpoint coordinate for
every metric and every hardpoint, at design or over a motion (docs/exploration.md,
"Sensitivities"), as a tidy table (CSV and/or Parquet) and tornado charts."""

from __future__ import annotations

import argparse
import time

from suspension_sim.errors import InputError

PARAMETER_OPTIONS = {
    "sweep": "--motion",
    "start": "--from",
    "stop": "--to",
    "steps": "--steps",
    "metrics": "--metrics",
    "convention": "--convention",
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""

HELP = "derivatives of every metric with respect to every hardpoint coordinate (per mm)"
FORMATS = ("csv", "parquet")
TABLE = "sensitivity"


def add_parser(sub: argparse._SubParsersAction) -> None:
    from suspension_sim.description import SIGN_CONVENTIONS

    p = sub.add_parser(
        "sensitivity",
        help=HELP,
        description="The derivative of every design metric (camber, toe, caster, KPI, "
        "scrub, trail, track, motion ratio, camber gain, bump steer, roll-centre height, "
        "...) with respect to every hardpoint coordinate x, y, z (metric unit per mm), "
        "computed exactly from the constraint Jacobian by the implicit function theorem. "
        "At design by default; with --motion, the derivative of each metric's change over "
        "the motion (last step minus first, e.g. bump steer = toe(+30) - toe(-30) in "
        "heave). Writes sensitivity.csv / sensitivity.parquet (metric, unit, point, axis, "
        "derivative) and a tornado chart per metric of the coordinates that matter most.",
    )
    p.add_argument("workbook", help="the car's .xlsx workbook")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created)")
    p.add_argument(
        "--motion",
        default=None,
        metavar="MOTION",
        help="a standard motion: heave, roll, pitch, steer, bump:WHEEL, stroke:DAMPER, rack, "
        "chassis:AXIS (ground motions in our style: contact points at z = 0); default: at design",
    )
    p.add_argument("--from", dest="start", type=float, default=None, help="motion start (mm/deg)")
    p.add_argument("--to", dest="stop", type=float, default=None, help="motion end (mm/deg)")
    p.add_argument(
        "--steps",
        type=int,
        default=None,
        help="steps the solve walks the motion in (default 13); only the ends are differentiated",
    )
    p.add_argument(
        "--symmetric",
        action="store_true",
        help="move each left point and its mirror image together (y mirrored): one column per pair",
    )
    p.add_argument(
        "--metrics",
        default=None,
        metavar="LIST",
        help="only these metric columns, comma-separated (e.g. toe_FL_deg,camber_FL_deg)",
    )
    p.add_argument(
        "--top",
        type=int,
        default=12,
        metavar="N",
        help="coordinates shown per tornado chart (default 12)",
    )
    p.add_argument(
        "--charts",
        default="key",
        metavar="key|all|none|LIST",
        help="tornado charts, one per metric with a panel per wheel/axle: key (camber, toe, "
        "caster, KPI, scrub, trail, motion ratio, camber gain, bump steer, roll-centre height; "
        "default), all, none, or these metrics (e.g. toe,camber_gain)",
    )
    p.add_argument(
        "--format",
        default="csv,parquet",
        metavar="LIST",
        help="csv, parquet or csv,parquet (default both; Parquet needs pyarrow)",
    )
    p.add_argument(
        "--convention",
        choices=SIGN_CONVENTIONS,
        default=None,
        help="sign convention of the metrics (default: the workbook's 'Sign convention')",
    )
    p.add_argument("--force", action="store_true", help="replace existing files in DIR")
    p.set_defaults(run=run)


def _list(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _formats(text: str) -> list[str]:
    items = _list(text) or []
    bad = [f for f in items if f.lower() not in FORMATS]
    if bad or not items:
        raise InputError(
            f"unknown format {', '.join(bad) or '(none)'}",
            where="--format",
            hint="csv, parquet or csv,parquet",
        )
    return list(dict.fromkeys(f.lower() for f in items))


def check_options(args: argparse.Namespace) -> None:
    """Refuse bad options before the workbook is read."""
    if args.top < 1:
        raise InputError(f"must be 1 or more, got {args.top}", where="--top")
    if args.steps is not None and args.steps < 2:
        raise InputError(f"a motion needs 2 or more steps, got {args.steps}", where="--steps")
    if args.motion is None and (args.start, args.stop, args.steps) != (None, None, None):
        raise InputError(
            "--from, --to and --steps need a --motion",
            where="--motion",
            hint="e.g. --motion heave --from -30 --to 30",
        )


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.explore.charts import KEY_IDS, chart_groups, chart_name, write_tornado
    from suspension_sim.explore.sensitivity import sensitivity
    from suspension_sim.files import check_output
    from suspension_sim.outputs.tables import check_table_path, write_table
    from suspension_sim.sweeps.standard import standard_sweep

    check_options(args)
    formats = _formats(args.format)
    out = check_output(args.out, where="--out", folder=True)
    charts = args.charts.strip().lower()
    for fmt in formats:  # an existing table only with --force, before any work
        if out.is_dir():
            check_table_path(out / f"{TABLE}.{fmt}", option="--out", force=args.force)
    model = load(args.workbook)
    motion = None
    if args.motion is not None:
        steps = args.steps if args.steps is not None else 13
        spec = standard_sweep(model, args.motion, args.start, args.stop, steps)
        motion = spec.motion.build(model, style="ours")
    started = time.perf_counter()
    result = sensitivity(
        model,
        motion,
        symmetric=args.symmetric,
        metrics=_list(args.metrics),
        convention=args.convention,
    )
    seconds = time.perf_counter() - started
    groups = chart_groups(result)
    if charts == "key":
        chosen = [k for k in KEY_IDS if k in groups]
    elif charts == "all":
        chosen = list(groups)
    elif charts == "none":
        chosen = []
    else:
        chosen = _list(args.charts) or []
        unknown = [m for m in chosen if m not in groups]
        if unknown:
            raise InputError(
                f"no chart for {', '.join(unknown)}",
                where="--charts",
                hint="key, all, none, or metrics such as " + ", ".join(list(groups)[:6]),
            )
    chart_dir = out / "charts"
    if not args.force:
        for key in chosen:
            if (chart_dir / chart_name(key)).exists():
                raise InputError(
                    f"{chart_dir / chart_name(key)} exists", where="--out", hint="add --force"
                )
    out.mkdir(exist_ok=True)
    table = result.table().set_index("metric")  # the first column of the files
    written = [
        write_table(table, out / f"{TABLE}.{fmt}", option="--out", force=args.force)
        for fmt in formats
    ]
    if chosen:
        chart_dir.mkdir(exist_ok=True)
    for key in chosen:
        written.append(write_tornado(result, groups[key], chart_dir / chart_name(key), args.top))
    n_coords = len(result.coordinates)
    pairs = f", {len(result.pairs)} mirror pairs moved together" if args.symmetric else ""
    print(
        f"{model.car.name}: {len(result.metrics)} metrics x {n_coords} coordinates"
        f"{pairs} ({result.what}) in {seconds:.2f} s"
    )
    if result.redundant:
        plural = "s" if result.redundant != 1 else ""
        where = ", ".join(result.redundant_points) or "its joints"
        print(
            f"note: the linkage is over-constrained ({result.redundant} redundant joint "
            f"equation{plural}, at {where}): moving a point of those links alone may lock "
            "it; the derivatives hold for moves that keep the alignment"
        )
    print(summary(result))
    for path in written[: len(formats)]:
        print(f"wrote {path}")
    if chosen:
        print(f"wrote {len(chosen)} tornado charts in {chart_dir}")
    return 0


def summary(result: object, count: int = 3) -> str:
    """The largest derivative(s) of each metric, one line per metric."""
    from suspension_sim.explore.sensitivity import SensitivityResult

    assert isinstance(result, SensitivityResult)
    lines = ["largest derivatives per metric (metric unit per mm):"]
    width = max((len(m) for m in result.metrics), default=0)
    for m, value in zip(result.metrics, result.values, strict=True):
        top = [r for r in result.top(m, count) if r[2] != 0.0]
        text = ", ".join(f"{p}.{a} {d:+.4g}" for p, a, d in top) or "(none)"
        lines.append(f"  {m:<{width}} {value:>10.4g}  {text}")
    return "\n".join(lines)
