"""``suspension-sim springs``: wheel rates at a pose and the static ride height on the springs.

The command reads its options, prints and writes the tables of
`suspension_sim.loads.spring_tables` (computed by `suspension_sim.loads.springs`;
docs/springs.md, theory in docs/loads.md, "Springs, wheel rates and static ride
height"). Units at the edges: strokes and travel in mm, rates in N/mm, forces in N,
mass in kg, angles in deg.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from suspension_sim.commands.solve import add_pose_arguments, solve_pose
from suspension_sim.errors import InputError, SuspensionSimError

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import Car
    from suspension_sim.loads.springs import RollStiffness, Spring
    from suspension_sim.model import KinematicModel

SPRING_OPTION = "--spring"
CORNER_OPTION = "--corner-weights"
PARAMETER_OPTIONS = {
    "path": "--out",
    "front_share": "--front-weight",
    "cg_height_mm": "--cg-height",
    "mass_kg": "--mass",
}
"""Library parameter -> this command's option, for error messages."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "springs",
        help="wheel rates (k MR^2 + F dMR/dz) at a pose and the static ride height",
        description="Wheel rate of every wheel at one pose (strokes in mm, + = compression; "
        "rack in mm; chassis x y z in mm, roll pitch yaw in deg), split into k MR^2 and "
        "F dMR/dz (MR = ds/dz, stroke per mm of wheel-centre travel); with --mass or "
        "--corner-weights also the static ride height: strokes, chassis heave, roll and "
        "pitch, warp and spring forces on flat ground (docs/springs.md). Springs come from "
        "the Damping section's Spring rate / Spring preload / Spring free length columns "
        "or from --spring.",
    )
    add_pose_arguments(p)
    p.add_argument(
        SPRING_OPTION,
        action="append",
        default=None,
        metavar="DAMPER=RATE[,PRELOAD]",
        help="a damper's linear spring: RATE in N/mm, PRELOAD in N at the design length "
        "(default 0); overrides the workbook's (repeat for each damper)",
    )
    weights = p.add_mutually_exclusive_group()
    weights.add_argument(
        "--mass",
        type=float,
        default=None,
        metavar="KG",
        help="solve the ride height for this sprung mass (kg); the corner weights follow "
        "from the CG (--front-weight, --cg-height)",
    )
    weights.add_argument(
        CORNER_OPTION,
        nargs="+",
        default=None,
        metavar="N|WHEEL=N",
        help="solve the ride height for these contact-patch loads (N): one per wheel in "
        "Wheels order (FL FR RL RR on the examples) or WHEEL=N pairs",
    )
    p.add_argument(
        "--front-weight",
        type=float,
        default=0.5,
        metavar="SHARE",
        help="with --mass: static front weight share (0..1, default 0.5), which places the "
        "CG between the axles' wheel centres",
    )
    p.add_argument(
        "--cg-height",
        type=float,
        default=None,
        metavar="MM",
        help="with --mass: CG height above the ground (mm; default: the workbook's CG "
        "height in User Options)",
    )
    p.add_argument(
        "--out",
        default=None,
        help="write every table (long format: table, item, quantity, unit, value) to "
        ".csv, .xlsx or .parquet",
    )
    p.add_argument("--force", action="store_true", help="replace an existing .xlsx output")
    p.add_argument("--tolerance", type=float, default=None, help="solver tolerance (mm)")
    p.set_defaults(run=run)


# -- option parsing ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SpringOption:
    """One ``--spring DAMPER=RATE[,PRELOAD]``: rate N/mm, preload N."""

    name: str
    rate: float
    preload: float


def parse_springs(values: Sequence[str] | None) -> list[SpringOption]:
    """``--spring FL_Damper=35,250`` (repeatable) -> options; InputError naming --spring for
    a missing '=', a non-number, a rate <= 0 or a damper given twice."""
    out: list[SpringOption] = []
    for item in values or ():
        name, sep, rest = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(
                f"{item!r} is not DAMPER=RATE[,PRELOAD]",
                where=SPRING_OPTION,
                hint="for example --spring FL_Damper=35,250 (35 N/mm, 250 N preload)",
            )
        parts = [part.strip() for part in rest.split(",")]
        if len(parts) > 2:
            raise InputError(
                f"{item!r}: expected RATE or RATE,PRELOAD after '=', got {len(parts)} values",
                where=SPRING_OPTION,
                hint="for example --spring FL_Damper=35,250 (35 N/mm, 250 N preload)",
            )
        rate = _option_number(parts[0], f"{name} rate", SPRING_OPTION, "N/mm")
        preload = (
            _option_number(parts[1], f"{name} preload", SPRING_OPTION, "N")
            if len(parts) == 2
            else 0.0
        )
        if not rate > 0:
            raise InputError(
                f"{name} rate must be positive, got {rate:g} N/mm",
                where=SPRING_OPTION,
                hint="the spring rate in N/mm (a coil-over spring is typically 20..200 N/mm)",
            )
        if any(s.name == name for s in out):
            raise InputError(f"damper {name} is given twice", where=SPRING_OPTION)
        out.append(SpringOption(name, rate, preload))
    return out


def _option_number(text: str, what: str, option: str, unit: str) -> float:
    """A finite float from an option's text, or InputError naming the option."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(
            f"{what}: {text!r} is not a number", where=option, hint=f"give it in {unit}"
        ) from None
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, got {text!r}", where=option)
    return value


def parse_corner_weights(values: Sequence[str], wheels: Sequence[str]) -> dict[str, float]:
    """``--corner-weights 650 650 730 730`` (Wheels order) or ``FL=650 ...`` -> {wheel: N}."""
    named = ["=" in v for v in values]
    if any(named) and not all(named):
        raise InputError(
            "mixes plain values and WHEEL=N pairs",
            where=CORNER_OPTION,
            hint="give either one value per wheel or WHEEL=N for each",
        )
    out: dict[str, float] = {}
    if not all(named):
        if len(values) != len(wheels):
            raise InputError(
                f"expected {len(wheels)} value{'s' * (len(wheels) != 1)}, one per wheel "
                f"({' '.join(wheels)}), "
                f"got {len(values)}",
                where=CORNER_OPTION,
            )
        for wheel, text in zip(wheels, values, strict=True):
            out[wheel] = _option_number(text, wheel, CORNER_OPTION, "N")
    else:
        from suspension_sim.names import did_you_mean

        for item in values:
            name, value = (part.strip() for part in item.split("=", 1))
            if name not in wheels:
                raise InputError(
                    f"no wheel {name!r}." + did_you_mean(name, wheels),
                    where=CORNER_OPTION,
                    hint=f"the wheels are {', '.join(wheels)}",
                )
            if name in out:
                raise InputError(f"wheel {name} is given twice", where=CORNER_OPTION)
            out[name] = _option_number(value, name, CORNER_OPTION, "N")
        missing = [w for w in wheels if w not in out]
        if missing:
            raise InputError(
                f"no weight for wheel(s) {', '.join(missing)}",
                where=CORNER_OPTION,
                hint="give every wheel's contact-patch load",
            )
    for wheel, load in out.items():
        if load < 0:
            raise InputError(
                f"{wheel}: {load:g} N is negative",
                where=CORNER_OPTION,
                hint="the vertical load of the ground on each tyre, in N (0 or more)",
            )
    return out


FORMATS: dict[str, str] = {
    "track [mm]": "{:.1f}",
    "roll [N m/deg]": "{:.1f}",
    "roll springs [N m/deg]": "{:.1f}",
    "roll third springs [N m/deg]": "{:.1f}",
    "roll bars [N m/deg]": "{:.1f}",
    "bar share [-]": "{:.3f}",
    "heave [N/mm]": "{:.3f}",
    "third springs [N/mm]": "{:+.3f}",
    "bars [N/mm]": "{:+.3f}",
    "MR [mm/mm]": "{:.4f}",
    "dMR/dz [1/mm]": "{:+.6f}",
    "k [N/mm]": "{:g}",
    "F [N]": "{:.1f}",
    "k MR^2 [N/mm]": "{:.3f}",
    "F dMR/dz [N/mm]": "{:+.3f}",
    "wheel rate [N/mm]": "{:.3f}",
    "corner weight [N]": "{:.1f}",
    "lever rule [N]": "{:.1f}",
    "stroke [mm]": "{:+.3f}",
    "spring force [N]": "{:.1f}",
}


def _formatter(spec: str) -> Callable[[float], str]:
    """`spec`.format without a '-0' for values that round to zero."""

    def show(value: float) -> str:
        text = spec.format(value)
        return spec.format(0.0) if float(text) == 0.0 else text

    return show


def _zero(value: float, digits: int) -> str:
    """A signed number with `digits` decimals, ``+0.0...`` rather than ``-0.0...``."""
    return _formatter(f"{{:+.{digits}f}}")(value)


def format_table(frame: pd.DataFrame) -> str:
    """A table for the terminal, each column with its own number format."""
    formatters = {c: _formatter(FORMATS[c]) for c in frame.columns if c in FORMATS}
    return "  " + frame.to_string(formatters=formatters).replace("\n", "\n  ")


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.loads import spring_tables as tables
    from suspension_sim.loads.springs import Spring, roll_stiffness
    from suspension_sim.outputs.tables import check_table_path, write_table

    given = parse_springs(args.spring)
    if args.tolerance is not None and not (args.tolerance > 0):
        raise InputError("must be positive", where="--tolerance")
    if args.mass is None:
        for option, value, default in (
            ("--cg-height", args.cg_height, None),
            ("--front-weight", args.front_weight, 0.5),
        ):
            if value != default:
                raise InputError(
                    "only applies with --mass",
                    where=option,
                    hint="give --mass KG to solve the ride height from the mass and CG",
                )
    elif not (math.isfinite(args.mass) and args.mass > 0):
        raise InputError(f"must be a positive number of kg, got {args.mass:g}", where="--mass")
    if args.out:
        check_table_path(
            args.out,
            option="--out",
            protect=args.workbook,
            force=args.force,
            suggest_add_sheet=False,
        )
    model = load(args.workbook)
    if not model.damper_names:
        raise InputError(
            "the car has no dampers: wheel rates come from springs on dampers",
            where=args.workbook,
            hint="add the dampers to the Damping section (docs/workbook.md)",
        )
    springs = tables.resolve_springs(
        model,
        {s.name: Spring(s.rate, s.preload) for s in given},
        where=SPRING_OPTION,
        example=lambda names: " ".join(f"{SPRING_OPTION} {n}=RATE[,PRELOAD]" for n in names),
    )
    wheels = [w.name for w in model.car.wheels]
    corner = parse_corner_weights(args.corner_weights, wheels) if args.corner_weights else None
    cg = tables.cg_position(model, args.front_weight, args.cg_height) if args.mass else None

    pose = solve_pose(model, args)
    if not pose.converged:
        print(f"error: {pose.failure}")
        print("no wheel rates: the pose did not close")
        return 3
    for line in tables.spring_lines(
        model.car, springs, {s.name for s in given}, given_by=SPRING_OPTION
    ):
        print(line)
    if not wheels:
        print("no wheels: no wheel rates")
        return 0
    strokes = ", ".join(f"{k} {v:g}" for k, v in pose.shocks.items())
    print(f"Wheel rates at the pose (strokes [mm] {strokes}; rack {pose.rack:g} mm):")
    print(
        "  per mm of wheel-centre travel (+ = bump), every other wheel and the rack held; "
        "MR = ds/dz (stroke per\n  wheel travel), F = spring force at the pose, "
        "wheel rate = k MR^2 + F dMR/dz"
        + " + third springs" * bool(model.car.third_springs)
        + " + bars" * bool(model.car.anti_roll_bars)
    )
    rates = tables.wheel_rate_table(pose, springs)
    print(format_table(rates))
    if rates["damper"].str.contains(r"\(\+").any():
        print(
            "  (+n): n more dampers move with this wheel; MR, dMR/dz, k and F are the "
            "named damper's, the two rate terms sum over every damper"
        )
    rows = tables.long_rows("wheel_rates", rates.drop(columns="damper"))

    if len(wheels) > 1:
        try:
            stiffness = roll_stiffness(pose, springs)
        except SuspensionSimError as exc:  # e.g. a car without a two-wheeled axle
            print(f"roll stiffness: not available ({exc.message})")
        else:
            rows += _print_roll(stiffness, model.car)

    if corner is not None or cg is not None:
        rows += _ride_height(model, springs, corner, args.mass, cg, args)

    if args.out:
        path = write_table(
            pd.DataFrame(rows, columns=list(tables.LONG_COLUMNS)).set_index("table"),
            args.out,
            option="--out",
            protect=args.workbook,
            force=args.force,
            sheet_name="Springs",
        )
        print(f"wrote {path}")
    return 0


def _print_roll(stiffness: RollStiffness, car: Car) -> list[dict[str, object]]:
    """Print the roll stiffness per axle and its distribution; the --out rows."""
    from suspension_sim.loads.spring_tables import long_rows, roll_car_table, roll_table

    table = roll_table(stiffness, car)
    if table.empty:
        return []
    print(
        "Roll stiffness at the pose (per axle, the other axle and the rack held; + roll "
        "lifts the left side;\n  heave = both wheels of the axle up together):"
    )
    print(format_table(table))
    total = float(stiffness.total_Nm_per_deg)
    share = float(stiffness.front_share)
    text = f"  total {total:.1f} N m/deg"
    if math.isfinite(share):
        text += f"; front share {share:.3f} (roll stiffness distribution, front / total)"
    print(text)
    return long_rows("roll_stiffness", table) + long_rows(
        "roll_stiffness", roll_car_table(stiffness)
    )


def _ride_height(
    model: KinematicModel,
    springs: Mapping[str, Spring],
    corner: Mapping[str, float] | None,
    mass: float | None,
    cg: tuple[float, float, float] | None,
    args: argparse.Namespace,
) -> list[dict[str, object]]:
    """Solve, print and tabulate the static ride height (rows of the --out table)."""
    from suspension_sim.loads.spring_tables import chassis_table, long_rows, ride_height_tables
    from suspension_sim.loads.springs import corner_weights_from_cg, ride_height

    option = "--mass" if corner is None else CORNER_OPTION
    try:
        if corner is not None:
            rh = ride_height(model, corner, springs=springs)
        else:
            assert mass is not None and cg is not None
            rh = ride_height(model, mass_kg=mass, cg_mm=cg, springs=springs)
    except SuspensionSimError as exc:
        where = exc.where or ""
        if where == "ride height":
            exc.where = option
            raise
        if where.startswith("shocks"):  # a stroke past the damper's Min/Max length
            raise InputError(
                f"the springs cannot hold this load within the damper travel: {exc.message}",
                where=f"ride height ({option}, {SPRING_OPTION})",
                hint="stiffer springs or more preload (--spring DAMPER=RATE,PRELOAD), or "
                "less load; the Damping section's Min/Max length limit the stroke",
            ) from None
        if where:
            exc.where = f"ride height ({option}): {where}"
        raise
    lever = None
    if corner is None:
        assert mass is not None and cg is not None
        lever = corner_weights_from_cg(model, mass, (cg[0], cg[1]))
        source = "--cg-height" if args.cg_height is not None else "User Options CG height"
        print(
            f"Static ride height for {mass:g} kg, rigid tyres on flat ground, rack 0; CG at\n"
            f"  x {cg[0]:.1f} y {cg[1]:.1f} z {cg[2]:.1f} mm (front weight "
            f"{args.front_weight:g}; z from the {source}):"
        )
    else:
        total = sum(corner.values())
        print(
            f"Static ride height for the corner weights given ({total:.1f} N in all), rigid "
            "tyres on flat ground, rack 0:"
        )
    print(
        f"  chassis: heave {rh.heave_mm:+.3f} mm (+ = up), roll {_zero(rh.roll_deg, 4)} deg "
        f"(+ = left side up), pitch {_zero(rh.pitch_deg, 4)} deg (+ = nose down);\n"
        f"  warp {rh.warp_mm:.3f} mm; {rh.iterations} iterations"
    )
    if rh.warp_mm > 0.01:
        print(
            "  note: warp > 0: the springs cannot hold these corner weights with every "
            "contact patch on the\n  ground; the spring forces match the weights and the "
            "contact heights are met in least squares"
        )
    wheels, dampers = ride_height_tables(rh, springs, lever)
    print(format_table(wheels))
    print(format_table(dampers))
    return (
        long_rows("ride_height", chassis_table(rh))
        + long_rows("ride_height", wheels)
        + long_rows("ride_height", dampers)
    )
