"""The inputs of a pose: strokes, rack, chassis state, and which parameters they lock.

Library errors here name the API parameter (``shocks``, ``rack``, ``chassis``,
``guess``, ``targets``); the CLI translates those to its option names.
Units: mm for strokes, rack and chassis x/y/z; degrees for roll/pitch/yaw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.tolerances import LIMIT_SLACK_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose
    from suspension_sim.solve.targets import Target

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


def input_values(model: KinematicModel, strokes: Mapping[str, float], rack: float) -> np.ndarray:
    """Write strokes and rack travel into a zero parameter vector (n_params,)."""
    q = np.zeros(model.n_params)
    set_inputs(model, q, strokes, rack)
    return q


def set_inputs(
    model: KinematicModel, q: np.ndarray, strokes: Mapping[str, float], rack: float
) -> None:
    """Lock the inputs in a parameter vector: strokes by damper body (mm), rack (mm)."""
    q[list(model.topology.damper_params)] = [strokes.get(n, 0.0) for n in model.damper_names]
    if model.topology.rack_param is not None:
        q[model.topology.rack_param] = rack


def locked_params(model: KinematicModel, freed: Sequence[str] = ()) -> np.ndarray:
    """Parameter indices held fixed in a solve: every input but those `freed` (by name)."""
    locked = model.input_params()
    if freed:
        locked = np.setdiff1d(locked, [input_param(model, name) for name in freed])
    return locked


# -- a step -------------------------------------------------------------------------
@dataclass(frozen=True)
class State:
    """The inputs of one pose (mm; chassis roll/pitch/yaw in degrees).

    shocks: strokes of the dampers this state sets (others are 0), mm, + in
    compression. rack: mm, + toward +Y. chassis: x, y, z, roll, pitch, yaw
    relative to design. targets: {input name: Target}; a targeted input (a
    damper body or ``"rack"``) is solved for, its value here is only a guess.
    """

    shocks: Mapping[str, float] = field(default_factory=dict)
    rack: float = 0.0
    chassis: tuple[float, float, float, float, float, float] = ZERO_CHASSIS
    targets: Mapping[str, Target] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ch = tuple(float(v) for v in self.chassis)
        if len(ch) != 6:
            raise InputError(
                f"{len(ch)} chassis values given", where="state", hint="give x y z roll pitch yaw"
            )
        object.__setattr__(self, "chassis", ch)
        object.__setattr__(self, "rack", float(self.rack))
        object.__setattr__(self, "shocks", {str(k): float(v) for k, v in self.shocks.items()})
        object.__setattr__(self, "targets", dict(self.targets))

    def merge(self, other: State, *, names: tuple[str, str] = ("first", "second")) -> State:
        """The two states applied together: inputs and chassis add, targets unite.

        An input that one state drives by a target cannot also be set or
        targeted differently by the other (InputError naming both; `names`
        say which motions the states come from).
        """
        targets = dict(self.targets)
        for key, tg in other.targets.items():
            if key in targets and targets[key] != tg:
                raise InputError(
                    f"{names[0]} and {names[1]} both drive {key}: "
                    f"{targets[key].describe()} vs {tg.describe()}",
                    where="motions",
                    hint="combine a single-wheel or direct motion with the direct 'rack' or "
                    "'chassis' motions, or ground motions with each other",
                )
            targets[key] = tg
        shocks = dict(self.shocks)
        for key, v in other.shocks.items():
            shocks[key] = shocks.get(key, 0.0) + v
        for a, b, (na, nb) in ((self, other, names), (other, self, names[::-1])):
            for key in a.targets:
                if key in b.shocks and b.shocks[key] != 0.0:
                    raise InputError(
                        f"{na} drives {key} by a target ({a.targets[key].describe()}) while "
                        f"{nb} sets it to {b.shocks[key]:g} mm",
                        where="motions",
                        hint="a targeted input is solved for; do not also fix it",
                    )
                if key.lower() == "rack" and b.rack != 0.0:
                    raise InputError(
                        f"{na} drives the rack by a target while {nb} sets it to {b.rack:g} mm",
                        where="motions",
                    )
        chassis = tuple(a + b for a, b in zip(self.chassis, other.chassis, strict=True))
        return State(shocks, self.rack + other.rack, chassis, targets)  # type: ignore[arg-type]

    def solve(
        self,
        model: KinematicModel,
        guess: Pose | np.ndarray | None = None,
        *,
        on_failure: Literal["raise", "return"] = "raise",
        tolerance: float | None = None,
    ) -> Pose:
        """Solve this state (see `suspension_sim.solve.solver.solve`)."""
        from suspension_sim.solve.solver import solve

        return solve(
            model,
            shocks=dict(self.shocks),
            rack=self.rack,
            chassis=self.chassis,
            guess=guess,
            tolerance=tolerance,
            on_failure=on_failure,
            targets=dict(self.targets) or None,
        )

    def describe(self, targets: bool = True) -> str:
        """One line: the non-zero inputs (and the targets unless `targets` is False)."""
        parts = [f"{k} {v:g} mm" for k, v in self.shocks.items() if v]
        if self.rack:
            parts.append(f"rack {self.rack:g} mm")
        for axis, v in zip(CHASSIS_AXES, self.chassis, strict=True):
            if v:
                parts.append(f"chassis {axis} {v:g} {axis_unit(axis)}")
        if targets:
            parts += [f"{k}: {t.describe()}" for k, t in self.targets.items()]
        return ", ".join(parts) or "design"
