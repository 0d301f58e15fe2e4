"""``suspension-sim import-optimumk SUSPENSION.xlsx --out CAR.xlsx``: import an OptimumK car.

Reads OptimumKinematics' Excel export of a suspension (or of a vehicle with its
front and rear suspension sheets), or OptimumK's own project files (a .O2Sus
suspension, a .O2Set vehicle setup that names its suspensions; docs/optimumk_files.md),
and writes one of our car workbooks, with
OptimumK's point names kept (``FL_CHAS_LowFor``). The conversion (units, axes,
Reference Distance, the wheel built from Half Track, offsets, static camber
and toe and tyre diameter) is described in docs/optimumk.md. The output never
replaces an input file and is written atomically; an existing output is
refused unless --force.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PARAMETER_OPTIONS: dict[str, str] = {}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "import-optimumk",
        help="convert an OptimumK export (.xlsx) or project file (.O2Sus/.O2Set) into a car "
        "workbook",
        description=__doc__.splitlines()[0],
    )
    p.add_argument(
        "source",
        metavar="SUSPENSION",
        help="OptimumK suspension export (.xlsx; front axle unless --axle rear), or a vehicle"
        " export holding 'Front'/'Rear' suspension sheets and the vehicle setup; or OptimumK's"
        " own files: a suspension (.O2Sus) or a vehicle setup (.O2Set, whose two suspensions"
        " are found by GUID in its project folder)",
    )
    p.add_argument(
        "--rear", metavar="REAR", help="the rear suspension export (.xlsx) or file (.O2Sus)"
    )
    p.add_argument(
        "--vehicle",
        "--setup",
        dest="vehicle",
        metavar="VEHICLE",
        help="the vehicle setup export (.xlsx) or file (.O2Set): its Reference Distance places"
        " the rear axle",
    )
    p.add_argument(
        "--reference-distance",
        type=float,
        metavar="MM",
        help="distance from the front to the rear suspension origin, mm (instead of --vehicle)",
    )
    p.add_argument(
        "--axle",
        choices=("front", "rear"),
        default=None,
        help="which axle a lone suspension export is (default: what its sheet name or title"
        " block says; for a .O2Sus, the setup's GUID or its name)",
    )
    p.add_argument(
        "--axes",
        metavar="MAP",
        help="the files' axes, overriding their coordinate system: model X (forward), Y (left),"
        " Z (up) as signed file axes, e.g. '+X -Y +Z' for lateral + to the right",
    )
    p.add_argument(
        "--skip-anti-roll-bars",
        action="store_true",
        help="import a car whose files hold a U-bar or T-bar without the bar (the importer does"
        " not read bar blocks yet; a warning names what was left out: add the bar in the"
        " workbook's Anti-roll Bars section)",
    )
    p.add_argument("--name", help="the car's name (default: the vehicle's or suspension's)")
    p.add_argument("--out", required=True, metavar="CAR.xlsx", help="the workbook to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim.errors import InputError
    from suspension_sim.files import check_output
    from suspension_sim.workbook.optimumk import read_optimumk
    from suspension_sim.workbook.writer import ensure_writable, write_car

    inputs = [p for p in (args.source, args.rear, args.vehicle) if p]
    out = Path(args.out)
    for given in inputs:
        if Path(given).exists() and out.resolve() == Path(given).resolve():
            raise InputError(
                f"{args.out} is an input file; the import never replaces its input",
                where="--out",
                hint="write the car to a new file, e.g. --out car.xlsx",
            )
    if args.reference_distance is not None and not args.reference_distance > 0:
        raise InputError(
            f"the reference distance must be positive, found {args.reference_distance:g}",
            where="--reference-distance",
            hint="give the distance from the front to the rear suspension origin in mm",
        )
    check_output(out, where="--out")
    ensure_writable(out, force=args.force)  # fail before reading anything
    not_a_car = {".o2mot": "a motion", ".o2for": "a force case", ".o2res": "a result",
                 ".o2sim": "a simulation", ".o2pro": "the project file"}  # fmt: skip
    for p in inputs:
        what = not_a_car.get(Path(p).suffix.lower())
        if what is not None:
            raise InputError(
                f"{Path(p).name} is {what}, not a car: import-optimumk reads suspensions"
                " (.O2Sus) and vehicle setups (.O2Set), or their Excel exports",
                where=str(p),
                hint="give the project's setup file (Setup/*.O2Set); a result is compared"
                " with `validate WORKBOOK RESULT.O2Res`"
                if what == "a result"
                else "give the project's setup file (Setup/*.O2Set)",
            )
    binary = [p for p in inputs if Path(p).suffix.lower() in (".o2sus", ".o2set")]
    if binary and len(binary) != len(inputs):
        raise InputError(
            "OptimumK project files (.O2Sus, .O2Set) and Excel exports cannot be mixed",
            where=binary[0],
            hint="give all the files as .O2Sus/.O2Set, or all as Excel exports",
        )
    common = {
        "rear": args.rear,
        "axle": args.axle,
        "axes": args.axes,
        "reference_distance_mm": args.reference_distance,
        "name": args.name,
        "skip_anti_roll_bars": args.skip_anti_roll_bars,
    }
    if binary:  # OptimumK's own files: another reader, the same core (docs/optimumk_files.md)
        from suspension_sim.workbook.optimumk_files.car import read_optimumk_files

        car = read_optimumk_files(args.source, setup=args.vehicle, **common)
    else:
        car = read_optimumk(args.source, vehicle=args.vehicle, **common)
    notes = [
        f"Imported from OptimumK: {', '.join(Path(p).name for p in inputs)} by"
        " suspension-sim import-optimumk (docs/optimumk.md).",
        "Point names are OptimumK's, prefixed by the corner (FL_CHAS_LowFor); WheelCentre and"
        " WheelAxis are ours, built from the Wheels block (OptimumK has no wheel-centre point).",
        "Coordinates: model frame (+X forward, +Y left, +Z up) with the files' own heights:"
        " each contact patch at its Vertical Offset (OptimumK's contact-patch Z), points not"
        " shifted vertically; the rear origin moved back by the Reference Distance.",
        *car.warnings,
    ]
    path = write_car(car, out, force=args.force, notes=notes)
    for warning in car.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"wrote {path}: {len(car.wheels)} wheels, {len(car.bodies)} bodies,"
        f" {len(car.points)} points; check it with: suspension-sim check {path}"
    )
    return 0
