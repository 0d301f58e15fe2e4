"""The inputs of a pose: strokes, rack, chassis state, and which parameters they lock.

Library errors here name the API parameter (``shocks``, ``rack``, ``chassis``,
``guess``, ``targets``); the CLI translates those to its option names.
Units: mm for strokes, rack and chassis x/y/z; degrees for roll/pitch/yaw.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.tolerances import (
    INPUT_LIMIT_DIGITS,
    LIMIT_SLACK_MM,
    MAX_CHASSIS_MM,
    MAX_CHASSIS_TILT_DEG,
    MAX_CHASSIS_YAW_DEG,
    MAX_INPUT,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

CHASSIS_AXES: tuple[str, ...] = ("x", "y", "z", "roll", "pitch", "yaw")
"""Chassis state components, in the order of the solver's ``chassis`` tuple."""

ZERO_CHASSIS: tuple[float, float, float, float, float, float] = (0.0,) * 6

CHASSIS_LIMITS: tuple[float, ...] = (
    (MAX_CHASSIS_MM,) * 3 + (MAX_CHASSIS_TILT_DEG,) * 2 + (MAX_CHASSIS_YAW_DEG,)
)
"""Largest magnitude of each chassis state component (mm, deg) that `check_chassis` passes."""


def axis_unit(axis: str) -> str:
    """Unit of a chassis state component at the API: mm for x/y/z, deg for angles."""
    return "mm" if axis in ("x", "y", "z") else "deg"


@dataclass(frozen=True)
class InputTable:
    """Per-model constants of the input checks (built once, `input_table`).

    names: damper bodies in Damping order, and `lowered` in lower case; lookup:
    lower-case name -> name;
    damper_params: stroke parameter of each damper (index array); rack_param: the
    rack's parameter or None; inputs: `KinematicModel.input_params`; bounds: (input,
    lowest, highest) value (mm) that `check_input_limits` lets pass, the slack
    included (-inf/inf: no limit).
    """

    names: tuple[str, ...]
    lowered: tuple[str, ...]
    lookup: dict[str, str]
    damper_params: np.ndarray
    rack_param: int | None
    inputs: np.ndarray
    bounds: tuple[tuple[str, float, float], ...]


def input_table(model: KinematicModel) -> InputTable:
    """The model's `InputTable` (cached in ``model.derived``)."""
    return model.derived.get("input_table", lambda: _input_table(model))


def _input_table(model: KinematicModel) -> InputTable:
    names = model.damper_names
    bounds = tuple(
        (
            name,
            -math.inf if low is None else low - LIMIT_SLACK_MM,
            math.inf if high is None else high + LIMIT_SLACK_MM,
        )
        for name, (low, high) in input_limits(model).items()
    )
    return InputTable(
        names,
        tuple(n.lower() for n in names),
        {n.lower(): n for n in names},
        np.array(model.topology.damper_params, dtype=np.intp),
        model.topology.rack_param,
        model.input_params(),
        bounds,
    )


def parse_shocks(
    model: KinematicModel, shocks: Sequence[float] | Mapping[str, float] | None
) -> dict[str, float]:
    """{damper body: stroke (mm)} for every damper (0 where not given) from a sequence in
    Damping order or a mapping by (case-insensitive) name; InputError naming `shocks`."""
    table = input_table(model)
    names = table.names
    seq: list[object] = []
    if shocks is not None and not isinstance(shocks, Mapping):
        seq = list(shocks)
        fast = _finite_floats(seq, len(names), MAX_INPUT)
        if fast is not None:  # every value a finite number in range: nothing to refuse
            return dict(zip(names, fast, strict=True))
    values = dict.fromkeys(names, 0.0)
    if shocks is None:
        return values
    if isinstance(shocks, Mapping):
        lookup = table.lookup
        seen: set[str] = set()
        for key, v in shocks.items():
            name = lookup.get(str(key).lower())
            if name in seen:
                raise InputError(f"damper {name} is given twice", where="shocks")
            seen.add(str(name))
            if name is None:
                raise InputError(
                    f"unknown damper {key!r}",
                    where="shocks",
                    hint=f"dampers in this workbook: {', '.join(names) or '(none)'}",
                )
            values[name] = finite_number(v, f"shocks[{key}]")
        return values
    if len(seq) != len(names):
        raise InputError(
            f"{len(seq)} stroke value(s) given, but the workbook has {len(names)} damper(s)",
            where="shocks",
            hint=f"give one stroke (mm) per damper in Damping order: {', '.join(names)}",
        )
    for n, item in zip(names, seq, strict=True):
        values[n] = finite_number(item, f"shocks ({n})")
    return values


def _finite_floats(values: Sequence[object], n: int, limit: float) -> list[float] | None:
    """`values` as n floats when each is a finite number no larger than `limit` in
    magnitude (what `finite_number` passes); None otherwise, and then the caller's
    item-by-item checks find and name the culprit (so this never raises)."""
    try:
        out = [float(v) for v in values]  # type: ignore[arg-type]
    except Exception:  # any failure: the slow path raises the right error
        return None
    if len(out) != n:
        return None
    for v in out:
        if not abs(v) <= limit:  # NaN fails too
            return None
    return out


def finite_number(value: object, where: str, limit: float = MAX_INPUT) -> float:
    """`value` as a float; refused (naming `where`) unless it is a finite number no
    larger than `limit` in magnitude (mm or deg), checked before any arithmetic."""
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{value!r} is not a number", where=where) from None
    if not math.isfinite(v):
        raise InputError(f"{value!r} is not a finite number", where=where)
    if abs(v) > limit:
        raise InputError(
            f"{v:g} is far outside any car (at most {limit:g} in magnitude)",
            where=where,
            hint="check the value and its unit (mm, deg)",
        )
    return v


def check_chassis(chassis: Sequence[object]) -> tuple[float, float, float, float, float, float]:
    """The six chassis values as floats (mm, deg), refused when they make no physical
    sense: x, y, z beyond `MAX_CHASSIS_MM`, roll or pitch beyond `MAX_CHASSIS_TILT_DEG`,
    yaw beyond `MAX_CHASSIS_YAW_DEG`."""
    values = list(chassis)
    limits = CHASSIS_LIMITS
    fast = _finite_floats(values, 6, MAX_INPUT)
    if fast is not None and all(abs(v) <= a for v, a in zip(fast, limits, strict=True)):
        x, y, z, roll, pitch, yaw = fast  # every value fine: nothing to refuse
        return (x, y, z, roll, pitch, yaw)
    if len(values) != 6:
        raise InputError(
            f"{len(values)} chassis values given",
            where="chassis",
            hint="give x y z (mm) roll pitch yaw (deg)",
        )
    out = []
    for axis, value, limit in zip(CHASSIS_AXES, values, limits, strict=True):
        v = finite_number(value, f"chassis ({axis})")
        if abs(v) > limit:
            unit = axis_unit(axis)
            raise InputError(
                f"chassis {axis} {v:g} {unit} is beyond +-{limit:g} {unit} from design: "
                + ("wheels that far into the ground or the air" if unit == "mm" else "no car")
                + " is a pose to solve",
                where=f"chassis ({axis})",
                hint=f"give {axis} relative to the design condition, in {unit}",
            )
        out.append(v)
    x, y, z, roll, pitch, yaw = out
    return (x, y, z, roll, pitch, yaw)


def check_tolerance(tolerance: object) -> float:
    """A solver tolerance (mm) must be a positive finite number."""
    tol = finite_number(tolerance, "tolerance")
    if not tol > 0:
        raise InputError(
            f"{tol:g} mm is not a positive tolerance", where="tolerance", hint="e.g. 1e-6 (mm)"
        )
    return tol


def limit_text(value: float, limit: float) -> tuple[str, str]:
    """`value` and `limit` printed with the same decimals (at least `INPUT_LIMIT_DIGITS`),
    enough that a value past the limit never prints equal to it."""
    for digits in range(INPUT_LIMIT_DIGITS, 16):
        a, b = f"{value:.{digits}f}", f"{limit:.{digits}f}"
        if a != b:
            return a, b
    return repr(value), repr(limit)


def input_limits(model: KinematicModel) -> dict[str, tuple[float | None, float | None]]:
    """Declared limits of every input, {damper body or "rack": (low, high)} in mm of
    stroke or rack travel (None = no limit): a damper's min/max length, the rack's
    min/max travel. Computed once per model."""
    return model.derived.get("input_limits", lambda: _input_limits(model))


def _input_limits(model: KinematicModel) -> dict[str, tuple[float | None, float | None]]:
    out: dict[str, tuple[float | None, float | None]] = {}
    for d in model.car.dampers:
        design = model.car.damper_design_length(d)
        out[d.body] = (
            None if d.max_length is None else design - d.max_length,
            None if d.min_length is None else design - d.min_length,
        )
    rack = model.car.rack
    if rack is not None and model.topology.rack_param is not None:
        out["rack"] = (rack.min_travel, rack.max_travel)
    return out


def check_input_limits(
    model: KinematicModel, strokes: Mapping[str, float], rack: float | None = None
) -> None:
    """Refuse a stroke or rack travel (mm) past its declared limit (`input_limits`) by
    more than `LIMIT_SLACK_MM`; the message prints both with enough digits to differ."""
    for name, lowest, highest in input_table(model).bounds:  # the same tests, no message
        given = rack if name == "rack" and rack is not None else strokes.get(name)
        if given is not None and (given > highest or given < lowest):
            break
    else:
        return
    limits = input_limits(model)
    values: dict[str, float] = dict(strokes)
    if rack is not None:
        values["rack"] = rack
    for name, (low, high) in limits.items():
        if name not in values:
            continue
        v = values[name]
        for limit, past in ((high, "above"), (low, "below")):
            if limit is None:
                continue
            if (v > limit + LIMIT_SLACK_MM) if past == "above" else (v < limit - LIMIT_SLACK_MM):
                raise InputError(
                    _limit_message(model, name, v, limit, past),
                    where="rack" if name == "rack" else f"shocks ({name})",
                    hint=f"use a {'rack travel' if name == 'rack' else 'stroke'} of at "
                    f"{'most' if past == 'above' else 'least'} {limit_text(v, limit)[1]} mm",
                )


def within_limits(
    model: KinematicModel, strokes: np.ndarray, rack: np.ndarray | None = None
) -> np.ndarray:
    """Which of many states `check_input_limits` passes, (S,) bool, without a message:
    strokes (S, n_dampers) in Damping order, rack (S,) or None (not checked), mm. The
    same comparisons, vectorised (a sweep checks all its steps at once)."""
    table = input_table(model)
    column = {name: strokes[:, k] for k, name in enumerate(table.names)}
    if rack is not None:
        column["rack"] = rack
    ok = np.ones(len(strokes), dtype=bool)
    for name, low, high in table.bounds:
        v = column.get(name)
        if v is not None:
            ok &= ~((v > high) | (v < low))
    return ok


def _limit_message(model: KinematicModel, name: str, v: float, limit: float, past: str) -> str:
    shown, bound = limit_text(v, limit)
    if name == "rack":
        word = "maximum" if past == "above" else "minimum"
        return f"rack travel {shown} mm is {past} the rack's {word} travel {bound} mm"
    d = model.car.damper(name)
    assert d is not None
    design = model.car.damper_design_length(d)
    length = design - v
    # A stroke above its limit makes the damper shorter than its minimum length.
    end = d.min_length if past == "above" else d.max_length
    assert end is not None
    length_text, end_text = limit_text(length, end)
    side = "below its minimum" if past == "above" else "above its maximum"
    allowed = "up to" if past == "above" else "down to"
    return (
        f"stroke {shown} mm makes damper {name} {length_text} mm long, {side} length "
        f"{end_text} mm (design {design:.{INPUT_LIMIT_DIGITS}f} mm: strokes allowed {allowed} "
        f"{bound} mm)"
    )


def check_damper_limits(model: KinematicModel, strokes: dict[str, float]) -> None:
    """`check_input_limits` for the strokes only (mm)."""
    check_input_limits(model, strokes)


def input_param(model: KinematicModel, name: str) -> int:
    """Parameter index of an input named by damper body or 'rack'."""
    if name.lower() == "rack" and model.topology.rack_param is not None:
        return model.topology.rack_param
    for d, p in zip(model.damper_names, model.topology.damper_params, strict=True):
        if d.lower() == name.lower():
            return p
    valid = [*model.damper_names, *(["rack"] if model.topology.rack_param is not None else [])]
    raise InputError(
        f"{name!r} is not an input that a target can replace",
        where="targets",
        hint=f"inputs: {', '.join(valid)}",
    )


def set_inputs(
    model: KinematicModel,
    q: np.ndarray,
    strokes: Mapping[str, float],
    rack: float,
    freed: Sequence[str] = (),
) -> None:
    """Write the held inputs into a parameter vector: strokes by damper body (mm), rack (mm).

    Inputs named in `freed` (replaced by targets) keep the value q already has,
    which is their starting guess.
    """
    if not freed:
        table = input_table(model)
        q[table.damper_params] = [strokes.get(name, 0.0) for name in table.names]
        if table.rack_param is not None:
            q[table.rack_param] = rack
        return
    skip = {int(input_param(model, name)) for name in freed}
    for name, p in zip(model.damper_names, model.topology.damper_params, strict=True):
        if p not in skip:
            q[p] = strokes.get(name, 0.0)
    rp = model.topology.rack_param
    if rp is not None and rp not in skip:
        q[rp] = rack


def locked_params(model: KinematicModel, freed: Sequence[str] = ()) -> np.ndarray:
    """Parameter indices held fixed in a solve: every input but those `freed` (by name)."""
    locked = model.input_params()
    if freed:
        locked = np.setdiff1d(locked, [input_param(model, name) for name in freed])
    return locked
