"""The inputs of a pose: strokes, rack, chassis state, and which parameters they lock.

Library errors here name the API parameter (``shocks``, ``rack``, ``chassis``,
``guess``, ``targets``); the CLI translates those to its option names.
Units: mm for strokes, rack and chassis x/y/z; degrees for roll/pitch/yaw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.tolerances import LIMIT_SLACK_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

CHASSIS_AXES: tuple[str, ...] = ("x", "y", "z", "roll", "pitch", "yaw")
"""Chassis state components, in the order of the solver's ``chassis`` tuple."""

ZERO_CHASSIS: tuple[float, float, float, float, float, float] = (0.0,) * 6


def axis_unit(axis: str) -> str:
    """Unit of a chassis state component at the API: mm for x/y/z, deg for angles."""
    return "mm" if axis in ("x", "y", "z") else "deg"


def parse_shocks(
    model: KinematicModel, shocks: Sequence[float] | Mapping[str, float] | None
) -> dict[str, float]:
    names = model.damper_names
    values = dict.fromkeys(names, 0.0)
    if shocks is None:
        return values
    if isinstance(shocks, Mapping):
        lookup = {n.lower(): n for n in names}
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
    seq = list(shocks)
    if len(seq) != len(names):
        raise InputError(
            f"{len(seq)} stroke value(s) given, but the workbook has {len(names)} damper(s)",
            where="shocks",
            hint=f"give one stroke (mm) per damper in Damping order: {', '.join(names)}",
        )
    for n, v in zip(names, seq, strict=True):
        values[n] = finite_number(v, f"shocks ({n})")
    return values


def finite_number(value: object, where: str) -> float:
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{value!r} is not a number", where=where) from None
    if not np.isfinite(v):
        raise InputError(f"{value!r} is not a finite number", where=where)
    return v


def check_damper_limits(model: KinematicModel, strokes: dict[str, float]) -> None:
    for d in model.car.dampers:
        design = model.car.damper_design_length(d)
        length = design - strokes[d.body]
        if d.min_length is not None and length < d.min_length - LIMIT_SLACK_MM:
            raise InputError(
                f"stroke {strokes[d.body]:g} mm makes damper {d.body} {length:.2f} mm long, "
                f"below its minimum length {d.min_length:g} mm (design {design:.2f} mm)",
                where=f"shocks ({d.body})",
                hint=f"use a stroke of at most {design - d.min_length:.2f} mm",
            )
        if d.max_length is not None and length > d.max_length + LIMIT_SLACK_MM:
            raise InputError(
                f"stroke {strokes[d.body]:g} mm makes damper {d.body} {length:.2f} mm long, "
                f"above its maximum length {d.max_length:g} mm (design {design:.2f} mm)",
                where=f"shocks ({d.body})",
                hint=f"use a stroke of at least {design - d.max_length:.2f} mm",
            )


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
