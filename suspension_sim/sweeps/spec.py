"""Sweep definitions: `MotionSpec`, `SweepSpec`, and the text both file forms share.

A definition is read from a YAML file (`suspension_sim.sweeps.yaml_file`) or a
workbook's Sweeps section (`suspension_sim.sweeps.sheet`) without a model;
names of wheels, dampers, points and axes are checked against the model
when the sweep is built (`SweepSpec.build`), and errors then name the
definition's place (file:line or sheet!cell). docs/sweeps.md describes the
forms. Units: mm and degrees (docs/conventions.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from suspension_sim.errors import InputError, SuspensionSimError
from suspension_sim.solve.inputs import CHASSIS_AXES
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import AXES, Target, contact_z, coordinate, wheel_travel
from suspension_sim.sweeps import motions
from suspension_sim.sweeps.motions import Motion, match_name, unknown_name

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

MAX_STEPS = 10_000
"""Most steps a sweep may have in all: a motion's steps times its grid's steps, and the
entries of a ``values:`` list (checked when the definition is read, before any work)."""
MAX_TRAVEL_MM = 1_000.0
"""Largest swept or held length a sweep may name (mm, either sign): heave, bump travel,
strokes, rack, chassis x/y/z, contact heights and wheel-travel targets."""
MAX_POSITION_MM = 10_000.0
"""Largest point coordinate a ``coordinate(...)`` target may name (mm, either sign)."""
MAX_ANGLE_DEG = 90.0
"""Largest chassis roll, pitch or yaw a sweep may name (deg, either sign)."""
MAX_STEERING_WHEEL_DEG = 1_080.0
"""Largest steering-wheel angle of a ``steer deg`` sweep (deg, either sign: three turns)."""
LIMITS_HINT = (
    f"a sweep moves a car by at most {MAX_TRAVEL_MM:g} mm, {MAX_ANGLE_DEG:g} deg of chassis"
    f" angle or {MAX_STEERING_WHEEL_DEG:g} deg of steering wheel, in at most {MAX_STEPS} steps"
    " (docs/sweeps.md, 'Limits')"
)

SWEEP_KEYS = (
    "description",
    "motion",
    "wheel",
    "damper",
    "axis",
    "unit",
    "start",
    "stop",
    "steps",
    "values",
    "grid",
    "fixed",
    "targets",
)
"""Keys of a sweep in the YAML form."""
MOTION_KEYS = ("motion", "wheel", "damper", "axis", "unit", "start", "stop", "steps", "values")
"""Keys of a motion (a sweep's own, or its grid's) in the YAML form."""
FIXED_NAMES = ("rack", *CHASSIS_AXES)
"""Held inputs other than dampers (``fixed:``)."""
TARGET_FUNCTIONS = ("contact_z", "wheel_travel", "coordinate")

MOTION_HINT = (
    "motions: heave, roll, pitch, steer [mm|deg], bump WHEEL, stroke DAMPER, rack, "
    "chassis x|y|z|roll|pitch|yaw (docs/sweeps.md)"
)
TARGET_HINT = (
    "write contact_z(WHEEL), contact_z(WHEEL, Z), wheel_travel(WHEEL, MM) or "
    "coordinate(POINT, x|y|z, MM[, world|chassis])"
)


# -- specifications -------------------------------------------------------------------
@dataclass(frozen=True)
class MotionSpec:
    """One motion of a sweep: its kind, what it acts on, and its values.

    kind: a `motions.MOTION_KINDS` name. of: the wheel (bump), damper
    (stroke) or chassis axis (chassis); a name may contain spaces. unit: mm
    or deg (steer). values: mm or deg, in sweep order. where: the
    definition's place (file:line or workbook cell), for error messages.
    """

    kind: str
    values: tuple[float, ...]
    of: str | None = None
    unit: str | None = None
    where: str = ""
    steps_where: str = ""
    """Where the step count is given (``steps``/``values``), for the grid-total error."""

    def __post_init__(self) -> None:
        """The limits of docs/sweeps.md (a spec built in code is checked as one read)."""
        if len(self.values) > MAX_STEPS:
            raise InputError(
                f"{len(self.values)} values: more than {MAX_STEPS}",
                where=self.steps_where or self.where or None,
                hint=LIMITS_HINT,
            )
        limit = motion_limit(self.kind, self.of, self.unit)
        for v in self.values:
            check_value(v, "a value", limit, self.where)

    def build(self, model: KinematicModel, style: str = "ours") -> Motion:
        """The motion on this model (InputError at `where` for unknown names); `style`:
        how ground motions move the chassis (`motions.MOTION_STYLES`)."""
        try:
            return motions.build(
                model, self.kind, self.values, of=self.of, unit=self.unit, style=style
            )
        except InputError as exc:
            raise relocate(exc, self.where) from None

    def label(self) -> str:
        return " ".join(p for p in (self.kind, self.of, self.unit) if p)


@dataclass(frozen=True)
class SweepSpec:
    """A named sweep: a motion, optionally a second (grid) motion, held inputs, targets.

    fixed: inputs held through the sweep, {"rack" | chassis axis | damper
    body: value} (mm or deg; added to the motion's own values). targets:
    {input name: Target} held through the sweep. For a grid, every step of
    `motion` is solved at each step of `grid`.
    """

    name: str
    motion: MotionSpec
    grid: MotionSpec | None = None
    fixed: Mapping[str, float] = field(default_factory=dict)
    targets: Mapping[str, Target] = field(default_factory=dict)
    description: str = ""
    where: str = ""

    def __post_init__(self) -> None:
        """The total step count of docs/sweeps.md, before any work."""
        if self.grid is not None:
            total = len(self.motion.values) * len(self.grid.values)
            if total > MAX_STEPS:
                raise InputError(
                    f"sweep {self.name!r} has {len(self.motion.values)} x "
                    f"{len(self.grid.values)} = {total} steps (grid), more than {MAX_STEPS}",
                    where=self.grid.steps_where or self.grid.where or self.where or None,
                    hint=LIMITS_HINT,
                )

    def build(self, model: KinematicModel, style: str = "ours") -> Motion:
        """The sweep's steps on this model (InputError naming the definition's place).

        style ``optimumk`` (`motions.MOTION_STYLES`): the ground motions move the chassis
        as OptimumK does, a path from design; a grid of two chassis motions (heave, roll,
        pitch) or a held chassis coordinate would add chassis states, which that path
        does not allow, and is refused.
        """
        if motions.match_name(style, list(motions.MOTION_STYLES), "motion style") == "optimumk":
            self._check_optimumk_style()
        motion = self.motion.build(model, style)
        second = self.grid.build(model, style) if self.grid is not None else None
        try:
            if second is not None:
                motion = motions.grid(motion, second)
            if self.fixed or self.targets:
                motion = motion.with_fixed(self.held_state(model))
        except InputError as exc:
            raise relocate(exc, self.where) from None
        return motion

    def _check_optimumk_style(self) -> None:
        """InputError for what OptimumK's motion style cannot do (see `build`)."""
        hint = (
            "in OptimumK's style the chassis follows one path from design; sweep one chassis "
            "motion (a grid with steer is fine), or use the motion style 'ours' "
            "(--motion-style ours)"
        )
        kinds = [m.kind for m in (self.motion, self.grid) if m is not None]
        if sum(k in motions.CHASSIS_MOTIONS for k in kinds) > 1:
            raise InputError(
                f"sweep {self.name!r}: a grid of {' and '.join(kinds)} in OptimumK's motion style",
                where=self.where or None,
                hint=hint,
            )
        held = [k for k in self.fixed if k.strip().lower() in CHASSIS_AXES]
        if held and any(k in motions.CHASSIS_MOTIONS for k in kinds):
            raise InputError(
                f"sweep {self.name!r} holds the chassis {', '.join(held)} during a chassis "
                "motion in OptimumK's motion style",
                where=self.where or None,
                hint=hint,
            )

    def held_state(self, model: KinematicModel) -> State:
        """`fixed` and `targets` as a State (names checked against the model)."""
        shocks: dict[str, float] = {}
        rack = 0.0
        ch = [0.0] * 6
        for key, value in self.fixed.items():
            low = key.strip().lower()
            if low == "rack":
                rack = value
            elif low in CHASSIS_AXES:
                ch[CHASSIS_AXES.index(low)] = value
            else:
                name = match_name(key, model.damper_names, "fixed input", extra=FIXED_NAMES)
                shocks[name] = value
        targets: dict[str, Target] = {}
        inputs = [*model.damper_names, *(["rack"] if model.car.rack is not None else [])]
        wheels = [w.name for w in model.car.wheels]
        points = [p.name for p in model.car.points]
        for key, tg in self.targets.items():
            name = match_name(key, inputs, "target input (a damper or rack)")
            if tg.kind == "coordinate":
                of = match_name(tg.name, points, "point")
            else:
                of = match_name(tg.name, wheels, "wheel")
            targets[name] = Target(tg.kind, of, tg.value, tg.axis, tg.frame)
        return State(shocks, rack, tuple(ch), targets)  # type: ignore[arg-type]


def relocate(exc: SuspensionSimError, where: str) -> InputError:
    """The same error, placed at a sweep definition (file:line or cell)."""
    return InputError(exc.message, where=where or exc.where, hint=exc.hint)


# -- parsing shared by both forms ------------------------------------------------------
def parse_motion_text(
    text: str, where: str, of: str | None = None
) -> tuple[str, str | None, str | None]:
    """'bump FL', 'stroke FL Damper', 'steer deg', 'chassis roll', 'heave' -> (kind, of, unit).

    Everything after the kind is the wheel, damper or axis, spaces included
    (checked against the model when the sweep is built). `of` is the name
    given separately (YAML ``wheel:`` etc.).
    """
    m = re.fullmatch(r"\s*(\S+)\s*(.*?)\s*", str(text), flags=re.DOTALL)
    if m is None or not m[1]:
        raise InputError("the motion is blank", where=where, hint=MOTION_HINT)
    kind = m[1].lower()
    rest = m[2] or None
    if kind not in motions.MOTION_KINDS:
        raise InputError(
            unknown_name("motion", m[1], motions.MOTION_KINDS), where=where, hint=MOTION_HINT
        )
    if kind == "steer":
        unit = rest.lower() if rest else None
        if unit not in (None, "mm", "deg"):
            raise InputError(
                f"steer unit must be mm (rack) or deg (steering wheel), found {rest!r}",
                where=where,
            )
        return kind, None, unit
    if kind in ("bump", "stroke", "chassis"):
        if rest and of is not None:
            raise InputError(f"motion {kind!r}: {rest!r} and {of!r} both given", where=where)
        if not rest and of is None:
            need = {"bump": "a wheel", "stroke": "a damper", "chassis": "an axis"}[kind]
            raise InputError(f"motion {kind!r} needs {need}", where=where, hint=MOTION_HINT)
        return kind, rest or of, None
    if rest:
        raise InputError(f"motion {kind!r} takes nothing after it", where=where, hint=MOTION_HINT)
    return kind, None, None


Limit = tuple[float, str]
"""(largest magnitude, unit) of a swept or held quantity (`motion_limit`, `held_limit`)."""


def motion_limit(kind: str, of: str | None = None, unit: str | None = None) -> Limit:
    """The limit of a motion's values: `MAX_ANGLE_DEG` for roll, pitch and chassis
    angles, `MAX_STEERING_WHEEL_DEG` for ``steer deg``, else `MAX_TRAVEL_MM`."""
    k = kind.strip().lower()
    axis = (of or "").strip().lower()
    if k in ("roll", "pitch") or (k == "chassis" and axis in CHASSIS_AXES[3:]):
        return MAX_ANGLE_DEG, "deg"
    if k == "steer" and (unit or "").strip().lower() == "deg":
        return MAX_STEERING_WHEEL_DEG, "deg"
    return MAX_TRAVEL_MM, "mm"


def held_limit(name: str) -> Limit:
    """The limit of a ``fixed:`` value: a chassis angle, else a length (rack, x/y/z,
    a damper's stroke)."""
    if name.strip().lower() in CHASSIS_AXES[3:]:
        return MAX_ANGLE_DEG, "deg"
    return MAX_TRAVEL_MM, "mm"


def check_value(value: float, what: str, limit: Limit, where: str) -> float:
    """`value` if finite and within the limit; InputError at `where` otherwise."""
    largest, unit = limit
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, found {value!r}", where=where or None)
    if abs(value) > largest:
        raise InputError(
            f"{what} {value:g} {unit} is beyond the limit of a sweep, {largest:g} {unit}"
            " either way",
            where=where or None,
            hint=LIMITS_HINT,
        )
    return value


def sweep_values(
    start: float | None,
    stop: float | None,
    steps: float | None,
    values: Sequence[float] | None,
    where: str,
    steps_where: str | None = None,
    limit: Limit = (MAX_TRAVEL_MM, "mm"),
    wheres: Mapping[str, str] | None = None,
) -> tuple[float, ...]:
    """Values from start/stop/steps or an explicit list (InputError at `where`, or at
    `steps_where` for a bad step count, or at ``wheres[key]`` for an out-of-range start,
    stop or values entry); at most `MAX_STEPS`, each within `limit` (`motion_limit`).
    Everything is checked before any value is generated."""
    at = dict(wheres or {})
    if values is not None:
        if start is not None or stop is not None or steps is not None:
            raise InputError("give either values or start/stop/steps, not both", where=where)
        if len(values) > MAX_STEPS:
            raise InputError(
                f"{len(values)} values: more than {MAX_STEPS}", where=where, hint=LIMITS_HINT
            )
        out = tuple(check_value(float(v), "value", limit, at.get("values", where)) for v in values)
        if not out:
            raise InputError("values is empty", where=where, hint="list at least one value")
        return out
    if start is None:
        raise InputError("start is missing", where=where, hint="give start, stop and steps")
    if steps is None:
        raise InputError("steps is missing", where=where, hint="give the number of steps")
    check_value(float(start), "start", limit, at.get("start", where))
    if stop is not None:
        check_value(float(stop), "stop", limit, at.get("stop", where))
    if not math.isfinite(steps) or not float(steps).is_integer() or not 1 <= steps <= MAX_STEPS:
        raise InputError(
            f"steps must be a whole number from 1 to {MAX_STEPS}, found {steps:g}",
            where=steps_where or where,
            hint=LIMITS_HINT,
        )
    if stop is None:
        if steps != 1:
            raise InputError("stop is missing", where=where, hint="give start, stop and steps")
        stop = start
    if steps == 1 and float(stop) != float(start):
        raise InputError(
            f"one step cannot go from {start:g} to {stop:g}",
            where=steps_where or where,
            hint="use at least 2 steps, or give stop equal to start",
        )
    return tuple(motions.span(float(start), float(stop), int(steps)))


def parse_target(text: str, where: str) -> Target:
    """'contact_z(FL)', 'contact_z(FL, 0)', 'wheel_travel(FL, 10)',
    'coordinate(POINT, z, 250)' or 'coordinate(POINT, y, 225, chassis)' -> Target
    (mm). Wheel and point names may contain spaces."""
    m = re.fullmatch(r"\s*([A-Za-z_]+)\s*\((.*)\)\s*", str(text))
    if not m:
        raise InputError(f"cannot read the target {text!r}", where=where, hint=TARGET_HINT)
    func = m[1].lower()
    args = [a.strip() for a in m[2].split(",")] if m[2].strip() else []
    if any(not a for a in args):
        raise InputError(f"cannot read the target {text!r}", where=where, hint=TARGET_HINT)

    def number(a: str) -> float:
        try:
            v = float(a)
        except ValueError:
            raise InputError(
                f"{a!r} is not a number in {text!r}", where=where, hint=TARGET_HINT
            ) from None
        if not math.isfinite(v):
            raise InputError(f"{a!r} is not a finite number", where=where)
        return v

    travel: Limit = (MAX_TRAVEL_MM, "mm")
    if func == "contact_z" and len(args) in (1, 2):
        z = check_value(number(args[1]), "contact height", travel, where) if len(args) == 2 else 0
        return contact_z(args[0], float(z))
    if func == "wheel_travel" and len(args) == 2:
        return wheel_travel(args[0], check_value(number(args[1]), "wheel travel", travel, where))
    if func == "coordinate" and len(args) in (3, 4):
        axis = args[1].lower()
        frame = args[3].lower() if len(args) == 4 else "world"
        if axis not in AXES or frame not in ("world", "chassis"):
            raise InputError(f"cannot read the target {text!r}", where=where, hint=TARGET_HINT)
        value = check_value(number(args[2]), "coordinate", (MAX_POSITION_MM, "mm"), where)
        return coordinate(args[0], axis, value, frame)  # type: ignore[arg-type]
    if func not in TARGET_FUNCTIONS:
        raise InputError(
            f"cannot read the target {text!r}: " + unknown_name("function", m[1], TARGET_FUNCTIONS),
            where=where,
            hint=TARGET_HINT,
        )
    raise InputError(f"cannot read the target {text!r}", where=where, hint=TARGET_HINT)


def check_input_name(name: str, where: str) -> str:
    """A held input's name (``fixed:``/``targets:`` key), stripped: not blank, without
    '=' or ';' (spaces are allowed: ``FL Damper``). InputError at `where`."""
    text = str(name).strip()
    if not text or re.search(r"[=;\n]", text):
        raise InputError(f"cannot read the input name {name!r}", where=where)
    return text
