"""``suspension-sim maps WORKBOOK --out DIR``: kinematic maps per corner for vehicle
simulators (docs/exploration.md, "Kinematic maps")."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from suspension_sim.errors import InputError

PARAMETER_OPTIONS = {
    "directory": "--out",
    "travel": "--travel",
    "rack": "--rack",
    "formats": "--format",
    "corners": "--corners",
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""

HELP = "kinematic maps per corner (wheel travel x rack) for vehicle simulators, CSV/Parquet"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "maps",
        help=HELP,
        description="Write, per corner, a grid over wheel travel x rack travel (corners the "
        "rack steers) or wheel travel (the others) of camber, toe, steer, track change, "
        "caster, KPI, scrub radius, trail, motion ratio, damper stroke, wheel centre and "
        "contact point (iso signs, mm and deg), as CSV and/or Parquet with units in the "
        "headers, plus maps.json (grid, units, signs, version, and the lookup's accuracy "
        "measured at every cell centre against the solver, which is also printed). A node "
        "is single-wheel bump with the rack held (chassis at design); nodes that cannot be "
        "reached (a damper past its Min/Max length, ...) are NaN with a reason.",
    )
    p.add_argument("workbook", help="the car's .xlsx workbook")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created)")
    p.add_argument(
        "--travel",
        nargs=3,
        metavar=("MIN", "MAX", "N"),
        default=None,
        help="wheel travel axis, mm (+ = bump): N values from MIN to MAX (default -30 30 41)",
    )
    p.add_argument(
        "--rack",
        nargs=3,
        metavar=("MIN", "MAX", "N"),
        default=None,
        help="rack travel axis, mm (+ = rack toward +Y): N values from MIN to MAX (default "
        "the rack's Min/Max travel with 41 values, else -20 20 41)",
    )
    p.add_argument(
        "--format",
        default="csv,parquet",
        metavar="LIST",
        help="csv, parquet or csv,parquet (default both; Parquet needs pyarrow)",
    )
    p.add_argument(
        "--corners",
        default=None,
        metavar="LIST",
        help="only these wheels, comma-separated (default every corner)",
    )
    p.add_argument("--force", action="store_true", help="replace existing map files in DIR")
    p.set_defaults(run=run)


def _axis(values: Sequence[str] | None, option: str) -> tuple[float, float, float] | None:
    """MIN MAX N as typed: numbers, else an error naming the option (the ranges are
    checked by `compute_maps`, which names the option too)."""
    if values is None:
        return None
    try:
        lo, hi, n = (float(v) for v in values)
    except ValueError:
        raise InputError(
            f"expected numbers MIN MAX N, got {' '.join(values)}",
            where=option,
            hint="e.g. -30 30 41",
        ) from None
    return lo, hi, n


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.files import check_output
    from suspension_sim.maps.grid import DEFAULT_RACK, DEFAULT_TRAVEL, check_axis, compute_maps
    from suspension_sim.maps.result import check_formats

    travel = _axis(args.travel, "--travel")
    rack = _axis(args.rack, "--rack")
    check_axis(travel, DEFAULT_TRAVEL, "travel")  # before the workbook is read
    check_axis(rack, DEFAULT_RACK, "rack")
    formats = check_formats(args.format)
    check_output(args.out, where="--out", folder=True)
    corners = None
    if args.corners is not None:
        corners = [c.strip() for c in args.corners.split(",") if c.strip()]
    model = load(args.workbook)
    maps = compute_maps(model, travel, rack, corners)
    paths = maps.write(args.out, formats, force=args.force)
    print(f"{maps.car}: kinematic maps [iso] in {maps.seconds:.2f} s")
    for m in maps.corners.values():
        axes = f"travel {m.travel[0]:g}..{m.travel[-1]:g} mm x {len(m.travel)}"
        if m.rack is not None:
            axes += f", rack {m.rack[0]:g}..{m.rack[-1]:g} mm x {len(m.rack)}"
        bad = int((~m.reachable).sum())
        where = f"{m.name} ({m.corner.axle} {m.corner.side})"
        print(f"{where}: {axes}; {bad} of {m.reason.size} nodes unreachable")
        reasons: dict[str, int] = {}
        for r in m.reason.ravel():
            if r:
                reasons[str(r)] = reasons.get(str(r), 0) + 1
        for r, k in reasons.items():
            print(f"  {k} x {r}")
    print(accuracy_text(maps))
    for p in paths:
        print(f"wrote {p}")
    return 0


def accuracy_text(maps: object) -> str:
    """The lookup accuracy at the cell centres, one line per corner and quantity."""
    from suspension_sim.maps.fields import BY_NAME
    from suspension_sim.maps.result import Maps

    assert isinstance(maps, Maps)
    lines = [
        "lookup accuracy at the cell centres (|lookup - native|: max / rms; * = used by auto):",
        f"  {'corner':6} {'quantity':16} {'unit':4} {'bilinear max':>13} {'rms':>10} "
        f"{'cubic max':>11} {'rms':>10}",
    ]

    def num(entry: dict[str, float] | None, key: str) -> str:
        return "-" if not entry or entry.get(key) is None else f"{entry[key]:.3g}"

    for m in maps.corners.values():
        for q, e in m.accuracy.items():
            lin, cub = e.get("linear"), e.get("cubic")
            mark_l = "*" if e.get("method") == "linear" else " "
            mark_c = "*" if e.get("method") == "cubic" else " "
            lines.append(
                f"  {m.name:6} {q:16} {BY_NAME[q].unit:4} {num(lin, 'max'):>12}{mark_l} "
                f"{num(lin, 'rms'):>10} {num(cub, 'max'):>10}{mark_c} {num(cub, 'rms'):>10}"
            )
    return "\n".join(lines)
