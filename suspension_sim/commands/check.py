"""``suspension-sim check WORKBOOK``: read a workbook and print what it describes.

Exit codes, as `solve`: 0 when the workbook reads cleanly and its mechanism can
move as asked (warnings, redundant joints and a toggle at design are printed
but allowed); 2 for a malformed workbook (named by its cell, with a fix) and
for a mechanism that cannot be solved: under-constrained, a free motion at
design that can be followed with every input held (named by its bodies, axis
and likely causes; docs/model.md, "Free motion or toggle: the rule"), an input
(damper, rack) that cannot move, or a body that no input moves.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping

import numpy as np

from suspension_sim import units
from suspension_sim.description import Car


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "check",
        help="read a workbook and print its bodies, joints, dampers, wheels and rack",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("workbook", metavar="WORKBOOK", help="the car's .xlsx workbook")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.errors import ModelError
    from suspension_sim.model.topology import PARAM_NAMES
    from suspension_sim.solve.diagnostics import (
        design_mobility,
        mechanism_problem,
        mechanism_where,
    )
    from suspension_sim.workbook.mirror import generated_by_symmetry

    # `load`: an unchanged workbook's validated car comes from the cache (by its
    # content), without the reader and openpyxl (~0.4 s); a changed one is read.
    model = load(args.workbook)
    car = model.car
    notes = {
        j.body: f"{j.kind} ({len(PARAM_NAMES[j.kind])} parameter(s)): {j.reason}"
        for j in model.topology.joints
    }
    notes[car.body("Chassis").name] = "chassis: the 6-DOF input state, applied to everything"
    print("\n".join(describe_car(car, body_notes=notes)))
    if generated := generated_by_symmetry(car):
        print(generated.summary())
    mob = design_mobility(model)
    print("Mobility:")
    print("\n".join(f"  {line}" for line in mob.lines()))
    if not mob.ok:
        raise ModelError(
            mechanism_problem(mob),
            where=mechanism_where(model, mob),
            hint="fix what is named above in Components, then run check again",
        )
    if not mob.singular:
        print("\n".join(describe_reach(model)))
        print("\n".join(describe_design(model)))
    return 0


def describe_design(model: object) -> list[str]:
    """The short design sheet at design: camber, toe, caster, KPI, scrub, trail and
    motion ratio per wheel, roll centre height per axle (mm, deg; in the workbook's
    sign convention); nothing for a car without wheels or a design that does not close."""
    from suspension_sim.outputs.design_sheet import design_sheet, format_design_sheet
    from suspension_sim.solve.solver import solve

    pose = solve(model, on_failure="return")  # type: ignore[arg-type]
    if not pose.converged:
        return []
    sheet = design_sheet(pose, short=True)
    if not sheet.tables:
        return []
    title = f"Design condition ({sheet.convention} signs; every quantity: suspension-sim report):"
    return format_design_sheet(sheet, title).splitlines()


def describe_reach(model: object) -> list[str]:
    """Reachable range of every input from design, the others at 0 (mm), with its
    declared limits and what stops it."""
    from suspension_sim.solve.inputs import input_limits
    from suspension_sim.solve.reach import input_reach

    limits = input_limits(model)  # type: ignore[arg-type]
    reach = input_reach(model)  # type: ignore[arg-type]
    if not reach:
        return ["Reach: no inputs"]
    lines = ["Reach (to the dead points) of each input from design, the others at 0:"]
    for name, r in reach.items():
        lo, hi = r.interval
        what = "rack travel" if name == "rack" else f"{name} stroke"
        low, high = limits.get(name, (None, None))
        declared = (
            "no limits declared"
            if low is None and high is None
            else f"limits {_signed(low, '-inf')} .. {_signed(high, '+inf')}"
        )
        lines.append(f"  {what} reachable {lo:+.2f} .. {hi:+.2f} mm ({declared})")
        for end in (r.low, r.high):
            if not end.limited:
                lines.append(f"    no dead point found up to {end.value_from:+.2f} mm")
        for value, end in ((low, r.low), (high, r.high)):
            if value is not None and (value < lo or value > hi):
                lines.append(
                    f"    warning: the limit {value:+.2f} mm is beyond the dead point at "
                    f"{end.value_from:+.2f} mm: the linkage cannot get there"
                )
    return lines


def _signed(value: float | None, blank: str) -> str:
    return blank if value is None else f"{value:+.2f}"


def describe_car(car: Car, *, body_notes: Mapping[str, str] | None = None) -> list[str]:
    """What was read, as printable lines (lengths in mm, model frame).

    `body_notes` adds text after a body's line (e.g. its joint class).
    """
    where = f" from {car.source_path}" if car.source_path else ""
    return [
        f"Car {car.name!r}{where}",
        *describe_options(car),
        *describe_bodies(car, body_notes),
        *describe_points(car),
        *describe_joints(car),
        *describe_dampers(car),
        *describe_third_springs(car),
        *describe_bars(car),
        *describe_wheels(car),
        *describe_rack(car),
        *describe_warnings(car),
    ]


def _mm(value: float | None) -> str:
    return "not given" if value is None else f"{value:g} mm"


def describe_options(car: Car) -> list[str]:
    o = car.options
    mount = {True: "inboard", False: "outboard"}
    return [
        "Options:",
        f"  units: length {o.length_unit}, angle {o.angle_unit}, force {o.force_unit};"
        f" axis map {units.format_axis_map(o.axis_map)} (model X, Y, Z in workbook axes"
        + (
            "; a reflection: the workbook's frame is left-handed, e.g. lateral + to the right)"
            if units.is_reflection(o.axis_map)
            else ")"
        ),
        f"  solver tolerance {o.solver_tolerance_mm:g} mm,"
        f" constraint display tolerance {o.constraint_display_tolerance_mm:g} mm",
        f"  chassis reference point: {o.chassis_reference_point or 'origin'}",
        f"  CG height {_mm(o.cg_height_mm)}, wheelbase {_mm(o.wheelbase_mm)}",
        f"  front brakes {mount[o.front_brakes_inboard]} (share {o.front_brake_share:g}),"
        f" rear brakes {mount[o.rear_brakes_inboard]};"
        f" drive {mount[o.drive_inboard]} (rear share {o.rear_drive_share:g})",
        f"  sign convention: {o.sign_convention}",
    ]


def describe_bodies(car: Car, body_notes: Mapping[str, str] | None = None) -> list[str]:
    lines = [f"Bodies ({len(car.bodies)}):"]
    for b in car.bodies:
        note = (body_notes or {}).get(b.name)
        tail = f"  [{note}]" if note else ""
        lines.append(f"  {b.name} ({len(b.points)} points): {', '.join(b.points)}{tail}")
    return lines


def describe_points(car: Car) -> list[str]:
    width = max((len(p.name) for p in car.points), default=4)
    lines = [f"Hard points ({len(car.points)}; mm, model frame +X forward, +Y left, +Z up):"]
    for p in car.points:
        x, y, z = p.xyz
        lines.append(f"  {p.name:<{width}}  {x:10.3f} {y:10.3f} {z:10.3f}")
    return lines


def describe_joints(car: Car) -> list[str]:
    joined = list(car.joined_points())
    lines = [f"Joined points ({len(joined)}; point -> bodies):"]
    lines += [f"  {p} -> {', '.join(bodies)}" for p, bodies in joined]
    return lines


def describe_dampers(car: Car) -> list[str]:
    lines = [f"Dampers ({len(car.dampers)}):"]
    for d in car.dampers:
        length = car.damper_design_length(d)
        lines.append(
            f"  {d.body}: chassis point {d.chassis_point}, moving point {d.moving_point},"
            f" design length {length:.3f} mm, min {_mm(d.min_length)}, max {_mm(d.max_length)}"
            + (
                ""
                if d.spring_rate is None
                else f", {_spring(d.spring_rate, d.spring_preload, d.spring_free_length)}"
            )
        )
    return lines


def _spring(rate: float | None, preload: float | None, free: float | None) -> str:
    if rate is None:
        return "no spring"
    text = f"spring {rate:g} N/mm"
    if free is not None:
        return text + f", free length {free:g} mm"
    return text + f", preload {preload or 0.0:g} N"


def describe_third_springs(car: Car) -> list[str]:
    """Third (heave) springs: ends, design length and rate (nothing when there are none)."""
    if not car.third_springs:
        return []
    lines = [f"Third springs ({len(car.third_springs)}; not bodies: springs between two points):"]
    for t in car.third_springs:
        a, b = t.end_points
        length = float(np.linalg.norm(car.point(b) - car.point(a)))
        lines.append(
            f"  {t.name}: {a} ({', '.join(car.bodies_of_point(a))}) -> {b}"
            f" ({', '.join(car.bodies_of_point(b))}), design length {length:.3f} mm,"
            f" min {_mm(t.min_length)}, max {_mm(t.max_length)},"
            f" {_spring(t.spring_rate, t.spring_preload, t.spring_free_length)}"
        )
    return lines


def describe_bars(car: Car) -> list[str]:
    """Anti-roll bars: kind, arms, axis and torsional rate (N m/deg); nothing without."""
    if not car.anti_roll_bars:
        return []
    lines = [f"Anti-roll bars ({len(car.anti_roll_bars)}):"]
    for bar in car.anti_roll_bars:
        rate = bar.rate / 1000.0 * math.pi / 180.0  # N mm/rad -> N m/deg
        a, b = bar.axis_points
        if bar.kind == "T-bar":
            what = (
                f"lever {bar.arms[0]}, pivot {a}, pivot axis {a} -> {b},"
                f" shaft (torsion) axis {a} -> {bar.shaft_point}"
            )
        else:
            what = f"arms {bar.arms[0]} and {bar.arms[1]}, bar axis {a} -> {b}"
        lines.append(f"  {bar.name}: {bar.kind}, {what}, rate {rate:.4g} N m/deg")
    return lines


def describe_wheels(car: Car) -> list[str]:
    lines = [f"Wheels ({len(car.wheels)}):"]
    for w in car.wheels:
        kingpin = (
            f"kingpin {w.kingpin_lower} -> {w.kingpin_upper}"
            if w.kingpin_lower
            else "kingpin from rack motion"
        )
        lines.append(
            f"  {w.name} on {w.body}: centre {w.centre}, axis point {w.axis_point},"
            f" tyre radius {w.tyre_radius:g} mm, width {w.tyre_width:g} mm, {kingpin}"
        )
    return lines


def describe_rack(car: Car) -> list[str]:
    rack = car.rack
    if rack is None:
        return ["Steering rack: none"]
    ratio = (
        "ratio not given"
        if rack.ratio_mm_per_deg is None
        else f"ratio {rack.ratio_mm_per_deg:g} mm per steering-wheel deg"
    )
    return [
        f"Steering rack: {rack.body}, slides {rack.end_points[0]} -> {rack.end_points[1]}, {ratio}"
    ]


def describe_warnings(car: Car) -> list[str]:
    if not car.warnings:
        return ["No warnings."]
    return [f"Warnings ({len(car.warnings)}):", *(f"  {w}" for w in car.warnings)]
