"""Motions: sequences of input states for sweeps (OptimumK-style and Rowe's direct inputs).

A step of a sweep is a `State`: damper strokes, rack travel, chassis state and
targets (a target replaces an input, see `suspension_sim.solve.targets`). A
`Motion` is a sequence of `Step` s, each a state with the value(s) of the
swept variable(s) for the results table.

Ground motions hold every tyre contact point on the ground (``z = 0``) while
the chassis pose is prescribed: every damper is replaced by a ``contact_z``
target for the wheel on its corner, so the strokes follow from the geometry.

========  ====================================================  =================
motion    swept variable (table column)                         sign
========  ====================================================  =================
heave     chassis z, mm (``chassis_heave_mm``)                  + = chassis up,
                                                                as the chassis
                                                                state z: + heave
                                                                is droop, - bump
roll      chassis roll, deg (``chassis_roll_deg``)              + lifts the left
                                                                side
pitch     chassis pitch, deg (``chassis_pitch_deg``)            + = nose down
steer     rack travel, mm (``rack_mm``), or steering-wheel      + = rack toward
          angle, deg (``steering_wheel_angle_deg``) times the   +Y
          Steering ratio (mm of rack per deg)
bump      one wheel's travel, mm (``wheel_travel_FL_mm``):      + = bump,
          that wheel's damper is replaced by a wheel-travel     - = droop
          target, every other input held
stroke    one damper's stroke, mm (``stroke_FL_Damper_mm``)     + = compression
rack      rack travel, mm, nothing else moves (``rack_mm``)     + = toward +Y
chassis   one chassis coordinate, strokes and rack held         docs/conventions.md
          (``chassis_heave_mm`` for z, ``chassis_roll_deg``,
          ``chassis_x_mm``, ...)
========  ====================================================  =================

Column names are those of `suspension_sim.metrics` for the same quantity,
so a sweep's table has one column per quantity.

Motion styles (``style``): ``"ours"`` prescribes each step's chassis state absolutely,
``R = Rz Ry Rx`` about the chassis reference point, with the contact points at z = 0.
``"optimumk"`` moves the chassis as OptimumK does (`suspension_sim.optimumk.motion`):
from design through every step in turn, heave along world Z, roll about the design roll
axis (front and rear roll centres), pitch about the design pitch axis (left and right
pitch centres), every contact point held at its own design height; ``steer deg`` is then
OptimumK's Motion [Steering] (column ``steering_deg``, rack = value x Steering ratio, + =
rack toward +Y). `motion_style` resolves ``None``. docs/conventions.md, "OptimumK's
motion style".

`grid(primary, secondary)` is the cartesian product of two motions (e.g. roll
at several steer angles): for each step of `secondary`, every step of
`primary`, each a merged state.

Units at this API: mm and degrees (docs/conventions.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.names import did_you_mean, loose_key
from suspension_sim.solve.inputs import CHASSIS_AXES, axis_unit
from suspension_sim.solve.sensitivity import damper_wheels
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import Target, contact_z, wheel_travel

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

GROUND_MOTIONS: tuple[str, ...] = ("heave", "roll", "pitch", "steer")
MOTION_STYLES: tuple[str, ...] = ("ours", "optimumk")
"""How ground motions move the chassis (module doc)."""
CHASSIS_MOTIONS: tuple[str, ...] = ("heave", "roll", "pitch")
"""Ground motions that move the chassis (in OptimumK's style their steps are a path)."""
DIRECT_MOTIONS: tuple[str, ...] = ("stroke", "rack", "chassis")
MOTION_KINDS: tuple[str, ...] = (*GROUND_MOTIONS, "bump", *DIRECT_MOTIONS)
"""Every motion kind a sweep may name."""


@dataclass(frozen=True)
class Step:
    """One step of a motion: the swept value(s), in the order of `Motion.columns`."""

    values: tuple[float, ...]
    state: State


@dataclass(frozen=True)
class Motion(Sequence[Step]):
    """A named sequence of steps. `columns` name the swept variables (with units)."""

    name: str
    columns: tuple[str, ...]
    steps: tuple[Step, ...]

    @overload
    def __getitem__(self, index: int) -> Step: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Step]: ...
    def __getitem__(self, index: int | slice) -> Step | Sequence[Step]:
        return self.steps[index]

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    @property
    def values(self) -> np.ndarray:
        """Swept values, (steps, columns)."""
        return np.array([s.values for s in self.steps], dtype=float).reshape(
            len(self.steps), len(self.columns)
        )

    @property
    def states(self) -> tuple[State, ...]:
        return tuple(s.state for s in self.steps)

    def with_fixed(self, fixed: State, label: str = "fixed inputs") -> Motion:
        """Every step merged with `fixed` (inputs held through the whole motion)."""
        steps = tuple(
            Step(s.values, s.state.merge(fixed, names=(self.name, label))) for s in self.steps
        )
        return Motion(self.name, self.columns, steps)


def _values(values: Sequence[float] | np.ndarray, what: str) -> list[float]:
    out = [float(v) for v in np.atleast_1d(np.asarray(values, dtype=float))]
    if not out:
        raise InputError(f"{what}: no values", where="motions", hint="give at least one step")
    for v in out:
        if not math.isfinite(v):
            raise InputError(f"{what}: {v!r} is not a finite number", where="motions")
    return out


def span(start: float, stop: float, steps: int) -> list[float]:
    """`steps` evenly spaced values from start to stop inclusive (one step: start)."""
    if steps < 1:
        raise InputError(f"steps must be at least 1, found {steps}", where="motions")
    if steps == 1:
        return [float(start)]
    return [float(v) for v in np.linspace(float(start), float(stop), int(steps))]


# -- which damper carries which wheel --------------------------------------------------
def wheel_dampers(model: KinematicModel) -> dict[str, str]:
    """{wheel name: damper body}, the inverse of `damper_wheels`."""
    return {w: d for d, w in damper_wheels(model).items()}


def ground_targets(model: KinematicModel, z: float = 0.0) -> dict[str, Target]:
    """Every damper replaced by a target holding its wheel's contact point at world z (mm)."""
    return {d: contact_z(w, z) for d, w in damper_wheels(model).items()}


def motion_style(style: str | None, convention: str | None, model: KinematicModel) -> str:
    """The motion style to use: `style` if given (``ours`` or ``optimumk``, any case), else
    ``optimumk`` when the sign convention (`convention`, else the workbook's) is
    ``optimumk`` (results meant for comparison with OptimumK), else ``ours``."""
    if style is not None:
        return match_name(style, list(MOTION_STYLES), "motion style")
    name = (convention or model.car.options.sign_convention or "iso").strip().lower()
    return "optimumk" if name == "optimumk" else "ours"


def optimumk_ground_targets(model: KinematicModel) -> dict[str, Target]:
    """Every damper replaced by a target holding its wheel's contact point at its design
    height (OptimumK's ground, `suspension_sim.optimumk.motion.ground_targets`)."""
    from suspension_sim.optimumk.motion import ground_targets as ok_targets
    from suspension_sim.solve.solver import solve

    return dict(
        model.derived.get(("sweeps", "optimumk_ground"), lambda: ok_targets(model, solve(model)))
    )


# -- ground motions -------------------------------------------------------------------
def heave(
    model: KinematicModel, values: Sequence[float] | np.ndarray, style: str = "ours"
) -> Motion:
    """Chassis z displacement (mm; + = up, i.e. droop) with the contact points on the ground."""
    return _ground(model, "heave", "chassis_heave_mm", values, axis=2, style=style)


def roll(
    model: KinematicModel, values: Sequence[float] | np.ndarray, style: str = "ours"
) -> Motion:
    """Chassis roll (deg; + lifts the left side) with the contact points on the ground."""
    return _ground(model, "roll", "chassis_roll_deg", values, axis=3, style=style)


def pitch(
    model: KinematicModel, values: Sequence[float] | np.ndarray, style: str = "ours"
) -> Motion:
    """Chassis pitch (deg; + = nose down) with the contact points on the ground."""
    return _ground(model, "pitch", "chassis_pitch_deg", values, axis=4, style=style)


def steer(
    model: KinematicModel,
    values: Sequence[float] | np.ndarray,
    unit: Literal["mm", "deg"] = "mm",
    style: str = "ours",
) -> Motion:
    """Steering with the contact points on the ground.

    unit "mm": rack travel (+ toward +Y). unit "deg": steering-wheel angle,
    + = left turn, converted with the Steering ratio (mm of rack per degree,
    direction from the geometry: `suspension_sim.solve.steering`); InputError if the
    workbook gives no ratio. Style ``optimumk``: unit "deg" is OptimumK's Motion
    [Steering] (column ``steering_deg``): rack = value x the Steering ratio as given,
    + = rack toward +Y; the contact points stay at their design heights.
    """
    rack = model.car.rack
    if rack is None:
        raise InputError(
            "this car has no steering rack", where="motions", hint="add a Steering section"
        )
    vals = _values(values, "steer")
    ok = _style(style) == "optimumk"
    if unit == "mm":
        column, factor = "rack_mm", 1.0
    elif unit == "deg" and ok:
        from suspension_sim.optimumk.motion import rack_per_steering_degree

        try:
            column, factor = "steering_deg", rack_per_steering_degree(model)
        except InputError as exc:
            raise InputError(exc.message, where="motions", hint=exc.hint) from None
    elif unit == "deg":
        from suspension_sim.solve.steering import rack_per_wheel_degree

        column, factor = "steering_wheel_angle_deg", rack_per_wheel_degree(model, where="motions")
    else:
        raise InputError(f"unknown steer unit {unit!r}", where="motions", hint="use mm or deg")
    targets = optimumk_ground_targets(model) if ok else ground_targets(model)
    steps = tuple(Step((v,), State(rack=v * factor, targets=targets)) for v in vals)
    return Motion("steer", (column,), steps)


def _style(style: str) -> str:
    return match_name(style, list(MOTION_STYLES), "motion style")


def _ground(
    model: KinematicModel,
    name: str,
    column: str,
    values: Sequence[float] | np.ndarray,
    axis: int,
    style: str = "ours",
) -> Motion:
    if _style(style) == "optimumk":
        return _ground_optimumk(model, name, column, values, axis)
    targets = ground_targets(model)
    steps = []
    for v in _values(values, name):
        ch = [0.0] * 6
        ch[axis] = v
        steps.append(Step((v,), State(chassis=tuple(ch), targets=targets)))  # type: ignore[arg-type]
    return Motion(name, (column,), tuple(steps))


def _ground_optimumk(
    model: KinematicModel, name: str, column: str, values: Sequence[float] | np.ndarray, axis: int
) -> Motion:
    """Heave, roll or pitch as OptimumK moves the chassis: an OptimumK motion whose step 0
    is the design and whose later steps are `values` in order (the design's roll and
    pitch axes; `suspension_sim.optimumk.motion.compose_chassis`)."""
    from suspension_sim.optimumk.motion import (
        chassis_state,
        compose_chassis,
        motion_axes,
        no_axes,
    )
    from suspension_sim.solve.solver import solve

    vals = _values(values, name)
    targets = optimumk_ground_targets(model)
    if axis == 2:
        axes = no_axes()
    else:
        try:
            roll, pitch = axis == 3, axis == 4
            axes = model.derived.get(
                ("sweeps", "optimumk_axes", roll, pitch),
                lambda: motion_axes(solve(model), roll=roll, pitch=pitch),
            )
        except InputError as exc:
            raise InputError(exc.message, where="motions", hint=exc.hint) from None
    cols = [np.zeros(len(vals)) for _ in range(3)]
    cols[axis - 2] = np.array(vals)
    T = compose_chassis(cols[0], cols[1], cols[2], axes)
    steps = tuple(
        Step((v,), State(chassis=chassis_state(model, T[i]), targets=targets))
        for i, v in enumerate(vals)
    )
    return Motion(name, (column,), steps)


# -- single wheel -----------------------------------------------------------------------
def bump(model: KinematicModel, wheel: str, values: Sequence[float] | np.ndarray) -> Motion:
    """One wheel's travel prescribed (mm; + bump, - droop), every other input held.

    The wheel's damper is replaced by a `wheel_travel` target; the chassis
    stays at design and the other strokes and the rack at zero.
    """
    by_wheel = wheel_dampers(model)
    name = match_name(wheel, list(by_wheel), "wheel")
    damper = by_wheel[name]
    steps = tuple(
        Step((v,), State(targets={damper: wheel_travel(name, v)}))
        for v in _values(values, f"bump {name}")
    )
    return Motion(f"bump {name}", (f"wheel_travel_{name}_mm",), steps)


# -- Rowe's direct inputs -------------------------------------------------------------------
def stroke(model: KinematicModel, damper: str, values: Sequence[float] | np.ndarray) -> Motion:
    """One damper's stroke (mm, + compression), everything else held."""
    name = match_name(damper, list(model.damper_names), "damper")
    steps = tuple(Step((v,), State(shocks={name: v})) for v in _values(values, f"stroke {name}"))
    return Motion(f"stroke {name}", (f"stroke_{name}_mm",), steps)


def rack(model: KinematicModel, values: Sequence[float] | np.ndarray) -> Motion:
    """Rack travel (mm, + toward +Y) with the strokes and the chassis held."""
    if model.car.rack is None:
        raise InputError(
            "this car has no steering rack", where="motions", hint="add a Steering section"
        )
    steps = tuple(Step((v,), State(rack=v)) for v in _values(values, "rack"))
    return Motion("rack", ("rack_mm",), steps)


def chassis(model: KinematicModel, axis: str, values: Sequence[float] | np.ndarray) -> Motion:
    """One chassis coordinate (mm or deg) with the strokes and the rack held.

    The wheels then move with the chassis (nothing holds them on the ground).
    """
    a = match_name(axis, list(CHASSIS_AXES), "chassis axis")
    k = CHASSIS_AXES.index(a)
    steps = []
    for v in _values(values, f"chassis {a}"):
        ch = [0.0] * 6
        ch[k] = v
        steps.append(Step((v,), State(chassis=tuple(ch))))  # type: ignore[arg-type]
    return Motion(f"chassis {a}", (_chassis_column(a),), tuple(steps))


def _chassis_column(axis: str) -> str:
    """Table column of a chassis coordinate (the metrics' names where they exist)."""
    named = {"z": "heave", "roll": "roll", "pitch": "pitch"}
    return f"chassis_{named.get(axis, axis)}_{axis_unit(axis)}"


# -- combining ------------------------------------------------------------------------------
def grid(primary: Motion, secondary: Motion) -> Motion:
    """Cartesian product: for each step of `secondary`, every step of `primary`.

    Columns are the primary's then the secondary's; each step's state is the
    two states merged (`State.merge`).
    """
    dup = set(primary.columns) & set(secondary.columns)
    if dup:
        raise InputError(
            f"a grid of {primary.name} and {secondary.name} sweeps {', '.join(sorted(dup))} twice",
            where="motions",
            hint="combine two different motions",
        )
    steps = []
    for b in secondary:
        for a in primary:
            state = a.state.merge(b.state, names=(primary.name, secondary.name))
            steps.append(Step(a.values + b.values, state))
    return Motion(
        f"{primary.name} x {secondary.name}", primary.columns + secondary.columns, tuple(steps)
    )


def build(
    model: KinematicModel,
    kind: str,
    values: Sequence[float] | np.ndarray,
    *,
    of: str | None = None,
    unit: str | None = None,
    style: str = "ours",
) -> Motion:
    """A motion by kind name (see `MOTION_KINDS`).

    `of` names what a motion acts on: the wheel of ``bump``, the damper of
    ``stroke``, the axis of ``chassis``. `unit` is ``mm`` or ``deg`` for
    ``steer``. `style` (`MOTION_STYLES`) applies to the ground motions.
    """
    k = match_name(kind, list(MOTION_KINDS), "motion")
    needs_of = {"bump": "wheel", "stroke": "damper", "chassis": "axis"}
    if k in needs_of and not of:
        raise InputError(
            f"motion {k!r} needs a {needs_of[k]}",
            where="motions",
            hint=f"e.g. '{k} {_example_of(model, k)}'",
        )
    if k not in needs_of and of:
        raise InputError(f"motion {k!r} takes no {of!r}", where="motions")
    if unit is not None and k != "steer":
        raise InputError(f"motion {k!r} takes no unit", where="motions")
    if k == "heave":
        return heave(model, values, style)
    if k == "roll":
        return roll(model, values, style)
    if k == "pitch":
        return pitch(model, values, style)
    if k == "steer":
        u = (unit or "mm").lower()
        if u not in ("mm", "deg"):
            raise InputError(f"unknown steer unit {unit!r}", where="motions", hint="mm or deg")
        return steer(model, values, u, style)  # type: ignore[arg-type]
    if k == "bump":
        return bump(model, str(of), values)
    if k == "stroke":
        return stroke(model, str(of), values)
    if k == "rack":
        return rack(model, values)
    return chassis(model, str(of), values)


def _example_of(model: KinematicModel, kind: str) -> str:
    if kind == "bump":
        return model.car.wheels[0].name if model.car.wheels else "FL"
    if kind == "stroke":
        return model.damper_names[0] if model.damper_names else "FL_Damper"
    return "roll"


def match_name(name: str, choices: Sequence[str], what: str, *, extra: Sequence[str] = ()) -> str:
    """The choice `name` means: the same text, else the one choice equal to it ignoring
    case, else ignoring case, spaces and underscores (``FL Damper`` ~ ``fl_damper``).

    InputError (where "motions") otherwise, with a did-you-mean from
    `suspension_sim.names` and the valid names (`extra` first) in the hint.
    """
    text = str(name)
    if text in choices:
        return text
    for key in (str.casefold, loose_key):
        hits = [c for c in choices if key(c) == key(text.strip())]
        if len(hits) == 1:
            return hits[0]
    valid = [*extra, *choices]
    raise InputError(
        unknown_name(what, text, valid),
        where="motions",
        hint=f"valid: {', '.join(valid)}" if valid else f"this car has no {what}",
    )


def unknown_name(what: str, name: str, choices: Sequence[str]) -> str:
    """``"unknown WHAT 'NAME'. Did you mean 'X'?"`` (the suggestion only for a near miss)."""
    near = did_you_mean(name, choices)
    return f"unknown {what} {name!r}" + (f".{near}" if near else "")
