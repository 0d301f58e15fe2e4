"""``suspension-sim springs``: wheel rates at a pose and the static ride height on the springs.

The command side of `suspension_sim.loads.springs` (docs/springs.md; the
theory in docs/loads.md, "Springs, wheel rates and static ride height").
Units at the edges: strokes and travel in mm, rates in N/mm, forces in N,
mass in kg, angles in deg.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from suspension_sim.commands.solve import add_pose_arguments, solve_pose
from suspension_sim.errors import InputError, SuspensionSimError

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import Car
    from suspension_sim.loads.springs import RideHeight, Spring
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

PARAMETER_OPTIONS = {"path": "--out"}
"""Library parameter -> this command's option, for error messages."""

SPRING_OPTION = "--spring"
CORNER_OPTION = "--corner-weights"
CONTRIBUTES = 1e-9
"""|ds/dz| (mm/mm) above which a second damper counts as acting on a wheel."""


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


def resolve_springs(model: KinematicModel, given: Sequence[SpringOption]) -> dict[str, Spring]:
    """Every damper's spring (--spring first, then the workbook's columns) and the
    third springs --spring names: the `springs` mapping of `suspension_sim.loads.springs`.

    InputError naming --spring for an unknown name (with a suggestion), an anti-roll
    bar, and dampers that have no spring anywhere (a wheel rate with a silent zero
    spring would mislead).
    """
    from suspension_sim.loads.springs import Spring, car_springs
    from suspension_sim.names import did_you_mean

    car = model.car
    dampers = list(model.damper_names)
    thirds = [t.name for t in car.third_springs]
    bars = [b.name for b in car.anti_roll_bars]
    for s in given:
        if s.name in bars:
            raise InputError(
                f"{s.name!r} is an anti-roll bar; --spring sets dampers' and third springs' "
                "coil springs",
                where=SPRING_OPTION,
                hint="the bar's rate comes from the workbook's Anti-roll Bars section",
            )
        if s.name not in dampers + thirds:
            kinds = f"the dampers are {', '.join(dampers) or '(none)'}"
            if thirds:
                kinds += f"; the third springs {', '.join(thirds)}"
            raise InputError(
                f"no damper {s.name!r}"
                + (" or third spring" if thirds else "")
                + "."
                + did_you_mean(s.name, dampers + thirds),
                where=SPRING_OPTION,
                hint=kinds,
            )
    overrides = {s.name: Spring(s.rate, s.preload) for s in given}
    missing = [d.body for d in car.dampers if d.body not in overrides and d.spring_rate is None]
    if missing:
        example = " ".join(f"{SPRING_OPTION} {name}=RATE[,PRELOAD]" for name in missing)
        raise InputError(
            f"no spring for damper(s) {', '.join(missing)}: the workbook gives no spring rate "
            "and no --spring names them",
            where=SPRING_OPTION,
            hint=f"give {example} (N/mm, N), or fill in the Spring rate column of the "
            "workbook's Damping section (docs/workbook.md)",
        )
    third = {name: spring for name, spring in overrides.items() if name in thirds}
    return {**car_springs(model, overrides), **third}


# -- tables -----------------------------------------------------------------------------------
def wheel_rate_table(pose: Pose, springs: Mapping[str, Spring]) -> pd.DataFrame:
    """Per wheel: its damper (largest |ds/dz|), MR = ds/dz (mm/mm), dMR/dz (1/mm), the
    spring's k (N/mm) and force F (N) at the pose; the coil springs' part of the wheel
    rate split as ``sum k MR^2 + sum F dMR/dz`` over the dampers, the third springs'
    and bars' parts when the car has them, and the wheel rate (N/mm per mm of
    wheel-centre travel, every other wheel and the rack held) of
    `suspension_sim.loads.springs.wheel_rate_terms`."""
    from suspension_sim.loads.springs import stroke_derivatives, wheel_rate_terms

    model = pose.model
    dampers = list(model.damper_names)
    ds, d2s = stroke_derivatives(pose)
    k = np.array([springs[d].rate for d in dampers])
    F = np.array([float(springs[d].force(pose.shocks[d])) for d in dampers])
    spring_term = k @ ds**2
    force_term = F @ d2s
    terms = wheel_rate_terms(pose, springs).reindex([w.name for w in model.car.wheels])
    groups = {c: terms[c].to_numpy(dtype=float) for c in terms.columns}
    extra = [
        (group, f"{group} [N/mm]")
        for group, present in (
            ("third springs", model.car.third_springs),
            ("bars", model.car.anti_roll_bars),
        )
        if present
    ]
    rows = []
    for i, w in enumerate(model.car.wheels):
        j = int(np.argmax(np.abs(ds[:, i])))
        others = [d for n, d in enumerate(dampers) if n != j and abs(ds[n, i]) > CONTRIBUTES]
        rows.append(
            {
                "wheel": w.name,
                "damper": dampers[j] + (f" (+{len(others)})" if others else ""),
                "MR [mm/mm]": ds[j, i],
                "dMR/dz [1/mm]": d2s[j, i],
                "k [N/mm]": k[j],
                "F [N]": F[j],
                "k MR^2 [N/mm]": spring_term[i],
                "F dMR/dz [N/mm]": force_term[i],
                **{column: groups[group][i] for group, column in extra},
                "wheel rate [N/mm]": groups["total"][i],
            }
        )
    return pd.DataFrame(rows).set_index("wheel")


def cg_from_options(
    model: KinematicModel, front_weight: float, cg_height: float | None
) -> tuple[float, float, float]:
    """The CG (x, y, z) in mm, model frame at design: x between the axles' wheel centres
    by the lever rule of `front_weight`, y midway between the left and right wheels,
    z = the CG height above the ground plane z = 0 (--cg-height, else User Options)."""
    from suspension_sim.description import wheel_layout

    if not (0.0 <= front_weight <= 1.0):
        raise InputError(
            f"must lie in 0..1, got {front_weight:g}",
            where="--front-weight",
            hint="the static share of the weight on the front axle, e.g. 0.47",
        )
    height = model.car.options.cg_height_mm if cg_height is None else cg_height
    if not (math.isfinite(height) and height > 0):
        raise InputError(f"must be a positive number of mm, got {height:g}", where="--cg-height")
    car = model.car
    layout = wheel_layout(car)
    if set(layout.axles) != {"front", "rear"}:
        raise InputError(
            "a ride height from the mass needs a front and a rear axle with two wheels each",
            where="--mass",
            hint=f"give {CORNER_OPTION} instead (one contact-patch load per wheel, N)",
        )
    xyz = {w.name: car.point(w.centre) for w in car.wheels}
    mid = {
        axle: 0.5 * (np.asarray(xyz[left]) + np.asarray(xyz[right]))
        for axle, (left, right) in layout.axles.items()
    }
    x = float(mid["rear"][0] + front_weight * (mid["front"][0] - mid["rear"][0]))
    y = float(0.5 * (mid["front"][1] + mid["rear"][1]))
    return (x, y, float(height))


def roll_table(result: Any, car: Car) -> pd.DataFrame:
    """The per-axle table of a `roll_stiffness` result with units in the column names:
    track (mm), roll stiffness (N m/deg) and its parts by spring group (only the
    groups the car has), the bars' share, heave rate (N/mm)."""
    table = result.table()
    present = {
        "springs": True,
        "third springs": bool(car.third_springs),
        "bars": bool(car.anti_roll_bars),
    }
    columns = {"track_mm": "track [mm]", "roll_Nm_per_deg": "roll [N m/deg]"}
    columns |= {f"roll_{g}": f"roll {g} [N m/deg]" for g, on in present.items() if on}
    columns["bar_share"] = "bar share [-]"
    columns["heave_N_per_mm"] = "heave [N/mm]"
    out = table[[c for c in columns if c in table.columns]].rename(columns=columns)
    out.index.name = "axle"
    return out


def ride_height_tables(
    rh: RideHeight, springs: Mapping[str, Spring], lever: Mapping[str, float] | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per wheel (corner weight, lever-rule weight with --mass, wheel rate at ride height)
    and per damper (stroke, spring rate, spring force) of a solved ride height."""
    from suspension_sim.loads.springs import wheel_rates

    rates = wheel_rates(rh.pose, springs)
    wheels = pd.DataFrame(
        {
            "corner weight [N]": pd.Series(rh.corner_weights),
            **({"lever rule [N]": pd.Series(dict(lever))} if lever is not None else {}),
            "wheel rate [N/mm]": pd.Series(rates),
        }
    )
    wheels.index.name = "wheel"
    dampers = pd.DataFrame(
        {
            "stroke [mm]": pd.Series(rh.strokes),
            "k [N/mm]": pd.Series({d: springs[d].rate for d in rh.strokes}),
            "spring force [N]": pd.Series(rh.spring_forces),
        }
    )
    dampers.index.name = "damper"
    return wheels, dampers


def spring_lines(car: Car, springs: Mapping[str, Spring], overridden: set[str]) -> list[str]:
    """The springs in use: every damper's and third spring's rate (N/mm) and preload (N),
    every bar's rate (N mm/rad and N m/deg), each with where it comes from."""
    lines = ["springs (F = preload + k stroke; + = pushes the eyes apart):"]
    for d in car.dampers:
        s = springs[d.body]
        source = "--spring" if d.body in overridden else "workbook"
        lines.append(f"  {d.body}: k {s.rate:g} N/mm, preload {s.preload:g} N ({source})")
    for t in car.third_springs:
        if t.name in overridden:
            s = springs[t.name]
            text = f"k {s.rate:g} N/mm, preload {s.preload:g} N (--spring)"
        else:
            rest = (
                f"free length {t.spring_free_length:g} mm"
                if t.spring_free_length is not None
                else f"preload {t.spring_preload or 0.0:g} N"
            )
            text = f"k {t.spring_rate or 0.0:g} N/mm, {rest} (workbook)"
        lines.append(f"  {t.name} (third spring): {text}")
    for b in car.anti_roll_bars:
        per_deg = b.rate * math.pi / 180.0 / 1000.0
        lines.append(
            f"  {b.name} ({b.kind}): {b.rate:.0f} N mm/rad = {per_deg:.4g} N m/deg of twist "
            "(workbook)"
        )
    return lines


def long_rows(table: str, frame: pd.DataFrame) -> list[dict[str, object]]:
    """A wide table (columns ``quantity [unit]``) as rows of the long --out table."""
    rows: list[dict[str, object]] = []
    for item, record in frame.iterrows():
        for column, value in record.items():
            quantity, _, unit = str(column).partition(" [")
            rows.append(
                {
                    "table": table,
                    "item": str(item),
                    "quantity": quantity,
                    "unit": unit.rstrip("]"),
                    "value": value,
                }
            )
    return rows


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
    from suspension_sim.loads import springs as springs_module
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
    springs = resolve_springs(model, given)
    wheels = [w.name for w in model.car.wheels]
    corner = parse_corner_weights(args.corner_weights, wheels) if args.corner_weights else None
    cg = cg_from_options(model, args.front_weight, args.cg_height) if args.mass else None

    pose = solve_pose(model, args)
    if not pose.converged:
        print(f"error: {pose.failure}")
        print("no wheel rates: the pose did not close")
        return 3
    for line in spring_lines(model.car, springs, {s.name for s in given}):
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
    rates = wheel_rate_table(pose, springs)
    print(format_table(rates))
    if rates["damper"].str.contains(r"\(\+").any():
        print(
            "  (+n): n more dampers move with this wheel; MR, dMR/dz, k and F are the "
            "named damper's, the two rate terms sum over every damper"
        )
    rows = long_rows("wheel_rates", rates.drop(columns="damper"))

    if len(wheels) > 1:
        try:
            stiffness = springs_module.roll_stiffness(pose, springs)
        except SuspensionSimError as exc:  # e.g. a car without a two-wheeled axle
            print(f"roll stiffness: not available ({exc.message})")
        else:
            rows += _print_roll(stiffness, model.car)

    if corner is not None or cg is not None:
        rows += _ride_height(model, springs, corner, args.mass, cg, args)

    if args.out:
        path = write_table(
            pd.DataFrame(rows, columns=["table", "item", "quantity", "unit", "value"]).set_index(
                "table"
            ),
            args.out,
            option="--out",
            protect=args.workbook,
            force=args.force,
            sheet_name="Springs",
        )
        print(f"wrote {path}")
    return 0


def _print_roll(stiffness: Any, car: Car) -> list[dict[str, object]]:
    """Print the roll stiffness per axle and its distribution; the --out rows."""
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
    car_row = pd.DataFrame({"roll [N m/deg]": [total], "front share [-]": [share]}, index=["car"])
    return long_rows("roll_stiffness", table) + long_rows("roll_stiffness", car_row)


def _ride_height(
    model: KinematicModel,
    springs: Mapping[str, Spring],
    corner: Mapping[str, float] | None,
    mass: float | None,
    cg: tuple[float, float, float] | None,
    args: argparse.Namespace,
) -> list[dict[str, object]]:
    """Solve, print and tabulate the static ride height (rows of the --out table)."""
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
    chassis = pd.DataFrame(
        {
            "heave [mm]": [rh.heave_mm],
            "roll [deg]": [rh.roll_deg],
            "pitch [deg]": [rh.pitch_deg],
            "warp [mm]": [rh.warp_mm],
        },
        index=["chassis"],
    )
    return (
        long_rows("ride_height", chassis)
        + long_rows("ride_height", wheels)
        + long_rows("ride_height", dampers)
    )
