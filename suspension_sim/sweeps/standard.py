"""Standard motions: heave, roll, pitch, steer, bump, stroke, rack and chassis for any car.

A standard motion needs no sweep definition: its name says the motion
(``heave``, ``bump:FL``, ``stroke:FL Damper``, ``steer:deg``, ``chassis:yaw``;
a space works as well as the colon) and its range has a default for the car
(`default_range`), which ``start``, ``stop`` and ``steps`` change. A named
sweep (YAML file or Sweeps section) of the same name takes precedence
(`choose_sweep`). docs/sweeps.md, "Standard motions". Units: mm and deg.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from suspension_sim.errors import InputError
from suspension_sim.names import closest, did_you_mean
from suspension_sim.solve.inputs import CHASSIS_AXES, axis_unit
from suspension_sim.sweeps.motions import match_name
from suspension_sim.sweeps.run import find_named_sweep, find_sweep, named_sweeps
from suspension_sim.sweeps.spec import (
    MotionSpec,
    SweepSpec,
    motion_limit,
    relocate,
    sweep_values,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

STANDARD_MOTIONS: tuple[str, ...] = (
    "heave",
    "roll",
    "pitch",
    "steer",
    "bump",
    "stroke",
    "rack",
    "chassis",
)
"""Kinds a standard motion may name (`suspension_sim.sweeps.motions.MOTION_KINDS`)."""
STEPS = 13
"""Steps of a standard motion unless told (an even range then has a step at design)."""
HEAVE_MM = 30.0
"""Default heave: chassis z from -30 to +30 mm (+ = up, droop)."""
ROLL_DEG = 2.0
"""Default roll: -2 to +2 deg (+ lifts the left side)."""
PITCH_DEG = 1.5
"""Default pitch: -1.5 to +1.5 deg (+ = nose down)."""
BUMP_MM = 30.0
"""Default single-wheel bump: wheel travel -30 (droop) to +30 mm (bump)."""
STROKE_MM = 15.0
"""Default stroke: -15 to +15 mm (+ = compression), within the damper's length limits."""
RACK_MM = 20.0
"""Default rack travel without declared travel limits: -20 to +20 mm."""
STEERING_WHEEL_DEG = 90.0
"""Default steering-wheel angle with a Steering ratio and no rack limits: -90 to +90 deg."""
CHASSIS_MM = 30.0
"""Default chassis x, y or z: -30 to +30 mm (strokes and rack held)."""
CHASSIS_DEG = 2.0
"""Default chassis roll, pitch or yaw: -2 to +2 deg (strokes and rack held)."""

STANDARD_HINT = (
    "standard motions: heave, roll, pitch, steer[:mm|:deg], bump:WHEEL, stroke:DAMPER, "
    "rack, chassis:x|y|z|roll|pitch|yaw (docs/sweeps.md, 'Standard motions')"
)


@dataclass(frozen=True)
class StandardName:
    """A standard motion's name taken apart: kind, what it acts on, steer unit."""

    kind: str
    of: str | None = None
    unit: str | None = None


@dataclass(frozen=True)
class ChosenSweep:
    """The sweep a name means for a car (`choose_sweep`).

    place: where a named sweep was defined, or ``"standard motion"``. note: a
    line for the user when a named sweep shadows the standard motion of its
    name, else None.
    """

    spec: SweepSpec
    place: str
    standard: bool
    note: str | None = None


def parse_standard(text: str) -> StandardName | None:
    """``heave``, ``bump:FL``, ``bump FL``, ``stroke:FL Damper``, ``steer:deg`` ... ->
    `StandardName`; None when `text` does not start with a standard kind. InputError
    (where "sweep") for a standard kind used wrongly (``bump`` without a wheel)."""
    m = re.fullmatch(r"\s*([A-Za-z]+)\s*(?:[:\s]\s*(.*?))?\s*", str(text), flags=re.DOTALL)
    if m is None or m[1].lower() not in STANDARD_MOTIONS:
        return None
    kind = m[1].lower()
    rest = (m[2] or "").strip() or None
    if kind == "steer":
        unit = rest.lower() if rest else None
        if unit not in (None, "mm", "deg"):
            raise InputError(
                f"steer takes mm (rack) or deg (steering wheel), found {rest!r}",
                where="sweep",
                hint=STANDARD_HINT,
            )
        return StandardName(kind, None, unit)
    if kind in ("bump", "stroke", "chassis"):
        if rest is None:
            need = {"bump": "WHEEL", "stroke": "DAMPER", "chassis": "AXIS"}[kind]
            raise InputError(
                f"the standard motion {kind!r} needs a name: {kind}:{need}",
                where="sweep",
                hint=STANDARD_HINT,
            )
        return StandardName(kind, rest, None)
    if rest is not None:
        raise InputError(
            f"the standard motion {kind!r} takes nothing after it, found {rest!r}",
            where="sweep",
            hint=STANDARD_HINT,
        )
    return StandardName(kind)


def default_range(model: KinematicModel, name: StandardName) -> tuple[float, float, str | None]:
    """(start, stop, steer unit) of a standard motion on this car (mm or deg).

    heave +-`HEAVE_MM`, roll +-`ROLL_DEG`, pitch +-`PITCH_DEG`, bump
    +-`BUMP_MM`, stroke +-`STROKE_MM` within the damper's length limits,
    chassis +-`CHASSIS_MM` or +-`CHASSIS_DEG`. Steer: over the rack's declared
    travel limits (mm), else +-`STEERING_WHEEL_DEG` of steering wheel when the
    Steering ratio is known, else +-`RACK_MM`; ``steer:deg`` and ``steer:mm``
    choose the unit. Rack: over its travel limits, else +-`RACK_MM`.
    """
    kind = name.kind
    fixed = {"heave": HEAVE_MM, "roll": ROLL_DEG, "pitch": PITCH_DEG, "bump": BUMP_MM}
    if kind in fixed:
        return -fixed[kind], fixed[kind], None
    if kind == "chassis":
        axis = match_name(str(name.of), list(CHASSIS_AXES), "chassis axis")
        size = CHASSIS_DEG if axis_unit(axis) == "deg" else CHASSIS_MM
        return -size, size, None
    if kind == "stroke":
        return stroke_range(model, str(name.of))
    rack = model.car.rack
    if rack is None:
        raise InputError(
            "this car has no steering rack", where="sweep", hint="add a Steering section"
        )
    low = rack.min_travel if rack.min_travel is not None else -RACK_MM
    high = rack.max_travel if rack.max_travel is not None else RACK_MM
    declared = rack.min_travel is not None or rack.max_travel is not None
    if kind == "rack":
        return low, high, None
    unit = name.unit
    if unit is None:
        unit = "mm" if declared or not rack.ratio_mm_per_deg else "deg"
    if unit == "mm":
        return low, high, unit
    from suspension_sim.solve.steering import rack_per_wheel_degree

    per_deg = rack_per_wheel_degree(model, where="sweep")
    if not declared:
        return -STEERING_WHEEL_DEG, STEERING_WHEEL_DEG, unit
    ends = sorted((low / per_deg, high / per_deg))
    return ends[0], ends[1], unit


def stroke_range(model: KinematicModel, damper: str) -> tuple[float, float, None]:
    """+-`STROKE_MM` of a damper's stroke, cut to its Min/Max length (mm, + compression)."""
    name = match_name(damper, list(model.damper_names), "damper")
    d = model.car.damper(name)
    low, high = -STROKE_MM, STROKE_MM
    if d is not None:
        design = model.car.damper_design_length(d)
        if d.max_length is not None:
            low = max(low, design - d.max_length)
        if d.min_length is not None:
            high = min(high, design - d.min_length)
    return low, high, None


def standard_sweep(
    model: KinematicModel,
    text: str,
    start: float | None = None,
    stop: float | None = None,
    steps: int | None = None,
) -> SweepSpec:
    """The standard motion `text` on this car (`parse_standard`), over its
    `default_range` unless `start`/`stop` (mm or deg) or `steps` are given.
    InputError (where "sweep") when `text` is not a standard motion or names an
    unknown wheel or damper; at "start"/"stop"/"steps" for a bad range."""
    name = parse_standard(text)
    if name is None:
        raise InputError(f"{text!r} is not a standard motion", where="sweep", hint=STANDARD_HINT)
    of = name.of
    try:
        if name.kind == "bump":
            of = match_name(str(of), [w.name for w in model.car.wheels], "wheel")
        elif name.kind == "stroke":
            of = match_name(str(of), list(model.damper_names), "damper")
        elif name.kind == "chassis":
            of = match_name(str(of), list(CHASSIS_AXES), "chassis axis")
        name = StandardName(name.kind, of, name.unit)
        low, high, unit = default_range(model, name)
    except InputError as exc:
        raise relocate(exc, "sweep") from None
    name = StandardName(name.kind, of, unit)
    values = range_values(name, low, high, start, stop, steps)
    label = " ".join(p for p in (name.kind, name.of, name.unit) if p)
    motion = MotionSpec(name.kind, values, of=name.of, unit=name.unit, where="sweep")
    return SweepSpec(label, motion, description=describe(name, values), where="sweep")


def range_values(
    name: StandardName,
    low: float,
    high: float,
    start: float | None,
    stop: float | None,
    steps: int | None,
) -> tuple[float, ...]:
    """Values from `start` (default `low`) to `stop` (default `high`) in `steps` (default
    `STEPS`; one step: `start` alone), checked against the sweep limits."""
    a = low if start is None else float(start)
    b = high if stop is None else float(stop)
    n = STEPS if steps is None else steps
    if n == 1 and stop is None:
        b = a
    return sweep_values(
        a,
        b,
        n,
        None,
        where="sweep",
        steps_where="steps",
        limit=motion_limit(name.kind, name.of, name.unit),
        wheres={"start": "start", "stop": "stop"},
    )


def describe(name: StandardName, values: tuple[float, ...]) -> str:
    """``standard motion: chassis roll from -2 to +2 deg, 13 steps``."""
    what = {
        "heave": ("chassis heave (+ = up)", "mm"),
        "roll": ("chassis roll (+ lifts the left side)", "deg"),
        "pitch": ("chassis pitch (+ = nose down)", "deg"),
        "bump": (f"wheel travel of {name.of} (+ = bump)", "mm"),
        "stroke": (f"stroke of {name.of} (+ = compression)", "mm"),
        "rack": ("rack travel (+ toward +Y)", "mm"),
    }
    if name.kind == "steer":
        text, unit = (
            ("steering-wheel angle (+ = left turn)", "deg")
            if name.unit == "deg"
            else ("rack travel with the contact points on the ground (+ toward +Y)", "mm")
        )
    elif name.kind == "chassis":
        text, unit = f"chassis {name.of}", axis_unit(str(name.of))
    else:
        text, unit = what[name.kind]
    n = len(values)
    span = f"at {values[0]:+g}" if n == 1 else f"from {values[0]:+g} to {values[-1]:+g}"
    return f"standard motion: {text} {span} {unit}, {n} step{'s' if n != 1 else ''}"


def with_range(
    spec: SweepSpec,
    start: float | None = None,
    stop: float | None = None,
    steps: int | None = None,
) -> SweepSpec:
    """A named sweep with its (first) motion's range changed: the missing ones of
    `start`, `stop` and `steps` are the sweep's own first value, last value and count."""
    if start is None and stop is None and steps is None:
        return spec
    m = spec.motion
    old = m.values
    name = StandardName(m.kind, m.of, m.unit)
    steps = len(old) if steps is None else steps
    values = range_values(name, old[0], old[-1], start, stop, steps)
    return dataclasses.replace(spec, motion=dataclasses.replace(m, values=values))


def choose_sweep(
    model: KinematicModel,
    workbook: str | os.PathLike[str],
    name: str,
    sweep_file: str | os.PathLike[str] | None = None,
    *,
    start: float | None = None,
    stop: float | None = None,
    steps: int | None = None,
) -> ChosenSweep:
    """The sweep `name` means for this car: a named sweep (`find_named_sweep`: the
    sweep file, else the workbook's Sweeps section or a sweeps.yaml beside it) if one
    has that name, else the standard motion. `start`/`stop`/`steps` change the range
    (of a named sweep's first motion). InputError naming both kinds when neither fits.
    """
    found = find_named_sweep(workbook, name, sweep_file)
    standard = _is_standard(name)
    if found is not None:
        spec, place = found
        note = None
        if standard:
            note = (
                f"sweep {spec.name!r} from {place} is run: a named sweep takes precedence "
                f"over the standard motion {name!r}"
            )
        return ChosenSweep(with_range(spec, start, stop, steps), place, False, note)
    if standard:
        return ChosenSweep(standard_sweep(model, name, start, stop, steps), "standard motion", True)
    try:
        find_sweep(workbook, name, sweep_file)
    except InputError as exc:
        known = [n for _, specs in named_sweeps(workbook, sweep_file) for n in specs]
        guess = standard_guess(name)
        near = did_you_mean(name, [*known, *([guess] if guess else [])])
        raise InputError(
            f"no sweep or standard motion named {name!r}" + (f".{near}" if near else ""),
            where=exc.where,
            hint=f"{exc.hint}; {STANDARD_HINT}",
        ) from None
    raise AssertionError("find_sweep found what find_named_sweep did not")  # pragma: no cover


def standard_guess(text: str) -> str | None:
    """The standard motion a mistyped name most likely meant (``heav`` -> ``heave``,
    ``bumb:FL`` -> ``bump:FL``), or None when its first word is not close to a kind."""
    m = re.fullmatch(r"\s*([A-Za-z]+)\s*(?:[:\s]\s*(.*?))?\s*", str(text), flags=re.DOTALL)
    if m is None:
        return None
    kind = closest(m[1].lower(), STANDARD_MOTIONS)
    if kind is None:
        return None
    rest = (m[2] or "").strip()
    return f"{kind}:{rest}" if rest else kind


def _is_standard(text: str) -> bool:
    """Whether `text` starts with a standard kind (a misuse then raises when run)."""
    try:
        return parse_standard(text) is not None
    except InputError:
        return True
