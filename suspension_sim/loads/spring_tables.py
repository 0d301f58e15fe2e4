"""Tables of the springs report: wheel rates at a pose, roll stiffness per axle, the static
ride height, and the springs in use (what ``suspension-sim springs`` prints and writes).

Computed from `suspension_sim.loads.springs` (theory: docs/loads.md, "Springs, wheel
rates and static ride height"); each table is a DataFrame whose columns carry their
unit (``wheel rate [N/mm]``) and `long_rows` turns any of them into the rows of one
long table (table, item, quantity, unit, value). Units: strokes and travel in mm,
rates in N/mm, forces in N, roll stiffness in N m/deg, angles in deg.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.description import wheel_layout
from suspension_sim.errors import InputError
from suspension_sim.loads.springs import (
    RideHeight,
    RollStiffness,
    Spring,
    car_springs,
    stroke_derivatives,
    wheel_rate_terms,
    wheel_rates,
)
from suspension_sim.names import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import Car
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

CONTRIBUTES = 1e-9
"""|ds/dz| (mm/mm) above which a second damper counts as acting on a wheel."""
LONG_COLUMNS = ("table", "item", "quantity", "unit", "value")
"""Columns of the long table (`long_rows`)."""


def python_example(names: Sequence[str]) -> str:
    """How a Python caller gives springs to `names`: ``springs={'FL_Damper': Spring(...)}``."""
    return "springs={" + ", ".join(f"{n!r}: Spring(RATE, PRELOAD)" for n in names) + "}"


def resolve_springs(
    model: KinematicModel,
    overrides: Mapping[str, Spring],
    *,
    where: str = "springs",
    example: Callable[[Sequence[str]], str] = python_example,
) -> dict[str, Spring]:
    """Every damper's spring (`overrides` first, then the workbook's Damping columns) and
    the third springs `overrides` names: the `springs` mapping of
    `suspension_sim.loads.springs`.

    InputError at `where` for an unknown name (with a suggestion), an anti-roll bar,
    and dampers that have no spring anywhere (a wheel rate with a silent zero spring
    would mislead); `example(names)` shows how to give those springs.
    """
    car = model.car
    dampers = list(model.damper_names)
    thirds = [t.name for t in car.third_springs]
    bars = [b.name for b in car.anti_roll_bars]
    for name in overrides:
        if name in bars:
            raise InputError(
                f"{name!r} is an anti-roll bar; {where} sets dampers' and third springs' "
                "coil springs",
                where=where,
                hint="the bar's rate comes from the workbook's Anti-roll Bars section",
            )
        if name not in dampers + thirds:
            kinds = f"the dampers are {', '.join(dampers) or '(none)'}"
            if thirds:
                kinds += f"; the third springs {', '.join(thirds)}"
            raise InputError(
                f"no damper {name!r}"
                + (" or third spring" if thirds else "")
                + "."
                + did_you_mean(name, dampers + thirds),
                where=where,
                hint=kinds,
            )
    missing = [d.body for d in car.dampers if d.body not in overrides and d.spring_rate is None]
    if missing:
        raise InputError(
            f"no spring for damper(s) {', '.join(missing)}: the workbook gives no spring rate "
            f"and no {where} names them",
            where=where,
            hint=f"give {example(missing)} (N/mm, N), or fill in the Spring rate column of the "
            "workbook's Damping section (docs/workbook.md)",
        )
    third = {name: spring for name, spring in overrides.items() if name in thirds}
    return {**car_springs(model, overrides), **third}


def wheel_rate_table(pose: Pose, springs: Mapping[str, Spring]) -> pd.DataFrame:
    """Per wheel: its damper (largest |ds/dz|), MR = ds/dz (mm/mm), dMR/dz (1/mm), the
    spring's k (N/mm) and force F (N) at the pose; the coil springs' part of the wheel
    rate split as ``sum k MR^2 + sum F dMR/dz`` over the dampers, the third springs'
    and bars' parts when the car has them, and the wheel rate (N/mm per mm of
    wheel-centre travel, every other wheel and the rack held) of `wheel_rate_terms`."""
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


def cg_position(
    model: KinematicModel, front_share: float, cg_height_mm: float | None = None
) -> tuple[float, float, float]:
    """The CG (x, y, z) in mm, model frame at design: x between the axles' wheel centres
    by the lever rule of `front_share` (the static front weight share, 0..1), y midway
    between the left and right wheels, z = `cg_height_mm` above the ground plane z = 0
    (default: the workbook's CG height in User Options).

    InputError at ``front_share`` or ``cg_height_mm`` for a value out of range, at
    ``mass_kg`` for a car without a front and a rear axle of two wheels.
    """
    if not (0.0 <= front_share <= 1.0):
        raise InputError(
            f"must lie in 0..1, got {front_share:g}",
            where="front_share",
            hint="the static share of the weight on the front axle, e.g. 0.47",
        )
    height = model.car.options.cg_height_mm if cg_height_mm is None else cg_height_mm
    if not (math.isfinite(height) and height > 0):
        raise InputError(f"must be a positive number of mm, got {height:g}", where="cg_height_mm")
    car = model.car
    layout = wheel_layout(car)
    if set(layout.axles) != {"front", "rear"}:
        raise InputError(
            "a ride height from the mass needs a front and a rear axle with two wheels each",
            where="mass_kg",
            hint="give corner_weights= instead (one contact-patch load per wheel, N)",
        )
    xyz = {w.name: car.point(w.centre) for w in car.wheels}
    mid = {
        axle: 0.5 * (np.asarray(xyz[left]) + np.asarray(xyz[right]))
        for axle, (left, right) in layout.axles.items()
    }
    x = float(mid["rear"][0] + front_share * (mid["front"][0] - mid["rear"][0]))
    y = float(0.5 * (mid["front"][1] + mid["rear"][1]))
    return (x, y, float(height))


def roll_table(result: RollStiffness, car: Car) -> pd.DataFrame:
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


def roll_car_table(result: RollStiffness) -> pd.DataFrame:
    """One row ``car``: the total roll stiffness (N m/deg) and the front share (-)."""
    return pd.DataFrame(
        {"roll [N m/deg]": [result.total_Nm_per_deg], "front share [-]": [result.front_share]},
        index=["car"],
    )


def ride_height_tables(
    rh: RideHeight, springs: Mapping[str, Spring], lever: Mapping[str, float] | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per wheel (corner weight, lever-rule weight when given, wheel rate at ride height)
    and per damper (stroke, spring rate, spring force) of a solved ride height."""
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


def chassis_table(rh: RideHeight) -> pd.DataFrame:
    """One row ``chassis``: heave (mm, + = up), roll and pitch (deg), warp (mm)."""
    return pd.DataFrame(
        {
            "heave [mm]": [rh.heave_mm],
            "roll [deg]": [rh.roll_deg],
            "pitch [deg]": [rh.pitch_deg],
            "warp [mm]": [rh.warp_mm],
        },
        index=["chassis"],
    )


def spring_lines(
    car: Car, springs: Mapping[str, Spring], overridden: set[str], *, given_by: str = "given"
) -> list[str]:
    """The springs in use: every damper's and third spring's rate (N/mm) and preload (N),
    every bar's rate (N mm/rad and N m/deg), each with where it comes from (`given_by`
    for the `overridden` names, else the workbook)."""
    lines = ["springs (F = preload + k stroke; + = pushes the eyes apart):"]
    for d in car.dampers:
        s = springs[d.body]
        source = given_by if d.body in overridden else "workbook"
        lines.append(f"  {d.body}: k {s.rate:g} N/mm, preload {s.preload:g} N ({source})")
    for t in car.third_springs:
        if t.name in overridden:
            s = springs[t.name]
            text = f"k {s.rate:g} N/mm, preload {s.preload:g} N ({given_by})"
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
    """A wide table (columns ``quantity [unit]``) as rows of the long table
    (`LONG_COLUMNS`), each tagged with `table`."""
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
