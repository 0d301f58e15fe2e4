"""Named sweeps: defined in YAML or in a workbook's Sweeps section, run step by step.

A sweep is a motion (`suspension_sim.sweeps.motions`: heave, roll, pitch, steer,
single-wheel bump, or Rowe's direct inputs) over a range of values,
optionally crossed with a second motion (a grid), with inputs and targets
held throughout. docs/sweeps.md describes both file forms::

    specs = load_sweeps("workbooks/sweeps.yaml")        # or a workbook with a Sweeps section
    result = run_sweep(model, specs["roll"])
    result.table            # swept values + metrics, one row per solved step
    result.problems         # steps that could not be solved, with the reason

The runner walks from design to the first step, then from each solved step
to the next, by continuation (`suspension_sim.solve.continuation`): small
increments, each warm-started from the previous pose and screened for a jump
to another assembly branch. A step that cannot be reached (or only on
another branch) is reported in `problems` and the sweep goes on from the last
solved pose; the steps already solved are kept.

Units: mm and degrees (CONVENTIONS.md).
"""

from __future__ import annotations

import difflib
import math
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError, SuspensionSimError, WorkbookError
from suspension_sim.solve.continuation import (
    MAX_HALVINGS,
    MAX_STEP_DEG,
    MAX_STEP_MM,
    MoveError,
    move,
)
from suspension_sim.solve.targets import AXES, Target, contact_z, coordinate, wheel_travel
from suspension_sim.sweeps import motions
from suspension_sim.sweeps.motions import CHASSIS_AXES, Motion, State

if TYPE_CHECKING:  # pragma: no cover
    import yaml

    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

YAML_SUFFIXES = (".yaml", ".yml")
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")
BESIDE_WORKBOOK = "sweeps.yaml"
"""A sweep file with this name next to a workbook is used when the workbook has no
Sweeps section (or lacks the sweep asked for)."""
MAX_STEPS = 10_000
MAX_NOTES = 6
"""Notes shown by `SweepResult.summary` (all are in `SweepResult.notes`)."""

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
MOTION_KEYS = ("motion", "wheel", "damper", "axis", "unit", "start", "stop", "steps", "values")
FIXED_NAMES = ("rack", *CHASSIS_AXES)
TARGET_FUNCTIONS = ("contact_z", "wheel_travel", "coordinate")


# -- specifications -------------------------------------------------------------------
@dataclass(frozen=True)
class MotionSpec:
    """One motion of a sweep: its kind, what it acts on, and its values.

    kind: a `motions.MOTION_KINDS` name. of: the wheel (bump), damper
    (stroke) or chassis axis (chassis). unit: mm or deg (steer). values: mm
    or deg, in sweep order. where: the definition's place (file:line or
    workbook cell), for error messages.
    """

    kind: str
    values: tuple[float, ...]
    of: str | None = None
    unit: str | None = None
    where: str = ""

    def build(self, model: KinematicModel) -> Motion:
        """The motion on this model (InputError at `where` for unknown names)."""
        try:
            return motions.build(model, self.kind, self.values, of=self.of, unit=self.unit)
        except InputError as exc:
            raise _relocate(exc, self.where) from None

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

    def build(self, model: KinematicModel) -> Motion:
        """The sweep's steps on this model (InputError naming the definition's place)."""
        motion = self.motion.build(model)
        if self.grid is not None:
            second = self.grid.build(model)
            try:
                motion = motions.grid(motion, second)
            except InputError as exc:
                raise _relocate(exc, self.where) from None
        if self.fixed or self.targets:
            try:
                motion = motion.with_fixed(self.held_state(model))
            except InputError as exc:
                raise _relocate(exc, self.where) from None
        return motion

    def held_state(self, model: KinematicModel) -> State:
        """`fixed` and `targets` as a State (names checked against the model)."""
        shocks: dict[str, float] = {}
        rack = 0.0
        ch = [0.0] * 6
        for key, value in self.fixed.items():
            low = key.lower()
            if low == "rack":
                rack = value
            elif low in CHASSIS_AXES:
                ch[CHASSIS_AXES.index(low)] = value
            else:
                shocks[_pick(key, model.damper_names, "fixed input", FIXED_NAMES)] = value
        targets: dict[str, Target] = {}
        inputs = [*model.damper_names, *(["rack"] if model.car.rack is not None else [])]
        wheels = [w.name for w in model.car.wheels]
        points = [p.name for p in model.car.points]
        for key, tg in self.targets.items():
            name = _pick(key, inputs, "target input (a damper or rack)")
            of = _pick(
                tg.name, *((points, "point") if tg.kind == "coordinate" else (wheels, "wheel"))
            )
            targets[name] = Target(tg.kind, of, tg.value, tg.axis, tg.frame)
        return State(shocks, rack, tuple(ch), targets)  # type: ignore[arg-type]


def _pick(name: str, choices: Sequence[str], what: str, extra: Sequence[str] = ()) -> str:
    for c in choices:
        if c == name:
            return c
    loose = [c for c in choices if c.casefold() == name.strip().casefold()]
    if len(loose) == 1:
        return loose[0]
    valid = [*extra, *choices]
    near = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
    raise InputError(
        f"unknown {what} {name!r}" + (f". Did you mean {near[0]!r}?" if near else ""),
        hint=f"valid: {', '.join(valid) or '(none)'}",
    )


def _relocate(exc: SuspensionSimError, where: str) -> InputError:
    """The same error, placed at a sweep definition (file:line or cell)."""
    return InputError(exc.message, where=where or exc.where, hint=exc.hint)


# -- parsing shared by both forms ------------------------------------------------------
def parse_motion_text(
    text: str, where: str, of: str | None = None
) -> tuple[str, str | None, str | None]:
    """'bump FL', 'steer deg', 'chassis roll', 'heave' -> (kind, of, unit).

    `of` is the wheel, damper or axis given separately (YAML ``wheel:`` etc.).
    """
    words = str(text).split()
    if not words:
        raise InputError("the motion is blank", where=where, hint=_MOTION_HINT)
    kind = words[0].lower()
    if kind not in motions.MOTION_KINDS:
        near = difflib.get_close_matches(kind, motions.MOTION_KINDS, n=1, cutoff=0.6)
        raise InputError(
            f"unknown motion {words[0]!r}" + (f". Did you mean {near[0]!r}?" if near else ""),
            where=where,
            hint=_MOTION_HINT,
        )
    rest = words[1:]
    if len(rest) > 1:
        raise InputError(f"cannot read the motion {text!r}", where=where, hint=_MOTION_HINT)
    if kind == "steer":
        unit = rest[0].lower() if rest else None
        if unit not in (None, "mm", "deg"):
            raise InputError(
                f"steer unit must be mm (rack) or deg (steering wheel), found {rest[0]!r}",
                where=where,
            )
        return kind, None, unit
    if kind in ("bump", "stroke", "chassis"):
        if rest and of is not None:
            raise InputError(f"motion {kind!r}: {rest[0]!r} and {of!r} both given", where=where)
        if not rest and of is None:
            need = {"bump": "a wheel", "stroke": "a damper", "chassis": "an axis"}[kind]
            raise InputError(f"motion {kind!r} needs {need}", where=where, hint=_MOTION_HINT)
        return kind, rest[0] if rest else of, None
    if rest:
        raise InputError(f"motion {kind!r} takes nothing after it", where=where, hint=_MOTION_HINT)
    return kind, None, None


_MOTION_HINT = (
    "motions: heave, roll, pitch, steer [mm|deg], bump WHEEL, stroke DAMPER, rack, "
    "chassis x|y|z|roll|pitch|yaw (docs/sweeps.md)"
)


def sweep_values(
    start: float | None,
    stop: float | None,
    steps: float | None,
    values: Sequence[float] | None,
    where: str,
    steps_where: str | None = None,
) -> tuple[float, ...]:
    """Values from start/stop/steps or an explicit list (InputError at `where`, or at
    `steps_where` for a bad step count)."""
    if values is not None:
        if start is not None or stop is not None or steps is not None:
            raise InputError(
                "give either values or start/stop/steps, not both",
                where=where,
            )
        out = tuple(float(v) for v in values)
        if not out:
            raise InputError("values is empty", where=where, hint="list at least one value")
        return out
    if start is None:
        raise InputError("start is missing", where=where, hint="give start, stop and steps")
    if steps is None:
        raise InputError("steps is missing", where=where, hint="give the number of steps")
    if not float(steps).is_integer() or not 1 <= steps <= MAX_STEPS:
        raise InputError(
            f"steps must be a whole number from 1 to {MAX_STEPS}, found {steps:g}",
            where=steps_where or where,
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
    'coordinate(POINT, z, 250)' or 'coordinate(POINT, y, 225, chassis)' -> Target."""
    m = re.fullmatch(r"\s*([A-Za-z_]+)\s*\((.*)\)\s*", str(text))
    hint = (
        "write contact_z(WHEEL), contact_z(WHEEL, Z), wheel_travel(WHEEL, MM) or "
        "coordinate(POINT, x|y|z, MM[, world|chassis])"
    )
    if not m:
        raise InputError(f"cannot read the target {text!r}", where=where, hint=hint)
    func = m[1].lower()
    args = [a.strip() for a in m[2].split(",")] if m[2].strip() else []

    def number(a: str) -> float:
        try:
            v = float(a)
        except ValueError:
            raise InputError(f"{a!r} is not a number in {text!r}", where=where, hint=hint) from None
        if not math.isfinite(v):
            raise InputError(f"{a!r} is not a finite number", where=where)
        return v

    if func == "contact_z" and len(args) in (1, 2):
        return contact_z(args[0], number(args[1]) if len(args) == 2 else 0.0)
    if func == "wheel_travel" and len(args) == 2:
        return wheel_travel(args[0], number(args[1]))
    if func == "coordinate" and len(args) in (3, 4):
        axis = args[1].lower()
        frame = args[3].lower() if len(args) == 4 else "world"
        if axis not in AXES or frame not in ("world", "chassis"):
            raise InputError(f"cannot read the target {text!r}", where=where, hint=hint)
        return coordinate(args[0], axis, number(args[2]), frame)  # type: ignore[arg-type]
    raise InputError(f"cannot read the target {text!r}", where=where, hint=hint)


def _check_fixed_name(name: str, where: str) -> str:
    if not name or not re.fullmatch(r"[^=;\s]+", name):
        raise InputError(f"cannot read the fixed input name {name!r}", where=where)
    return name


# -- YAML -------------------------------------------------------------------------------
class _Y:
    """A YAML node with its place (file:line) for messages."""

    def __init__(self, node: yaml.Node, file: str, loader: yaml.SafeLoader):
        self.node = node
        self.file = file
        self.loader = loader

    @property
    def where(self) -> str:
        return f"{self.file}:{self.node.start_mark.line + 1}"

    def fail(self, message: str, hint: str | None = None) -> None:
        raise InputError(message, where=self.where, hint=hint)

    def value(self) -> Any:
        return self.loader.construct_object(self.node, deep=True)

    def mapping(self, what: str) -> dict[str, tuple[_Y, _Y]]:
        """{key text: (key node, value node)}; keys must be unique scalars."""
        import yaml

        if not isinstance(self.node, yaml.MappingNode):
            self.fail(f"{what} must be a mapping (key: value lines)")
        out: dict[str, tuple[_Y, _Y]] = {}
        for k, v in self.node.value:
            key = _Y(k, self.file, self.loader)
            if not isinstance(k, yaml.ScalarNode):
                key.fail(f"{what}: keys must be plain names")
            text = str(key.value())
            if text in out:
                key.fail(f"{what}: {text!r} is given twice (first at line {out[text][0].line})")
            out[text] = (key, _Y(v, self.file, self.loader))
        return out

    @property
    def line(self) -> int:
        return self.node.start_mark.line + 1

    def number(self, what: str) -> float:
        v = self.value()
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            self.fail(f"{what} must be a number, found {v!r}")
        return float(v)

    def text(self, what: str) -> str:
        v = self.value()
        if isinstance(v, dict | list) or v is None:
            self.fail(f"{what} must be a name or text, found {v!r}")
        return str(v)

    def numbers(self, what: str) -> list[float]:
        import yaml

        if not isinstance(self.node, yaml.SequenceNode):
            self.fail(f"{what} must be a list of numbers, e.g. [-20, 0, 20]")
        return [_Y(n, self.file, self.loader).number(f"{what} entry") for n in self.node.value]


def _load_yaml(path: Path) -> dict[str, SweepSpec]:
    import yaml

    file = str(path)
    from suspension_sim.textfiles import read_text

    text = read_text(path, "sweep file")
    loader = yaml.SafeLoader(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            if exc.context_mark and "simple key" in (exc.context or ""):
                mark = exc.context_mark  # a key without ':' -- its own line, not the next
            where = f"{file}:{mark.line + 1}" if mark else file
            raise InputError(
                f"not valid YAML: {exc.problem or exc.context}",
                where=where,
                hint="check the indentation and the ':' after each key (docs/sweeps.md)",
            ) from None
        except yaml.YAMLError as exc:
            raise InputError(f"not valid YAML: {exc}", where=file) from None
        if root is None:
            raise InputError("the sweep file is empty", where=file, hint=_YAML_HINT)
        top = _Y(root, file, loader).mapping("the sweep file")
        for key, (knode, _) in top.items():
            if key not in ("version", "sweeps"):
                knode.fail(f"unknown top-level key {key!r}", hint=_YAML_HINT)
        if "version" in top:
            vnode = top["version"][1]
            if vnode.value() != 1:
                vnode.fail(f"unsupported version {vnode.value()!r}", hint="this reader knows 1")
        if "sweeps" not in top:
            raise InputError("no 'sweeps:' mapping", where=f"{file}:1", hint=_YAML_HINT)
        specs: dict[str, SweepSpec] = {}
        for name, (knode, vnode) in top["sweeps"][1].mapping("sweeps").items():
            specs[name] = _yaml_sweep(name, knode, vnode)
        return specs
    finally:
        loader.dispose()


_YAML_HINT = "a sweep file looks like 'sweeps:' then 'NAME:' then motion/start/stop/steps"


def _yaml_sweep(name: str, knode: _Y, node: _Y) -> SweepSpec:
    items = node.mapping(f"sweep {name!r}")
    for key, (k, _) in items.items():
        if key not in SWEEP_KEYS:
            near = difflib.get_close_matches(key, SWEEP_KEYS, n=1, cutoff=0.6)
            k.fail(
                f"sweep {name!r}: unknown key {key!r}"
                + (f". Did you mean {near[0]!r}?" if near else ""),
                hint="keys: " + ", ".join(SWEEP_KEYS),
            )
    motion = _yaml_motion(f"sweep {name!r}", node, {k: v for k, (_, v) in items.items()})
    grid = None
    if "grid" in items:
        gnode = items["grid"][1]
        gitems = gnode.mapping(f"sweep {name!r}: grid")
        for key, (k, _) in gitems.items():
            if key not in MOTION_KEYS:
                k.fail(
                    f"sweep {name!r}: grid: unknown key {key!r}",
                    hint="keys: " + ", ".join(MOTION_KEYS),
                )
        grid = _yaml_motion(f"sweep {name!r} grid", gnode, {k: v for k, (_, v) in gitems.items()})
    fixed: dict[str, float] = {}
    if "fixed" in items:
        for key, (k, v) in items["fixed"][1].mapping(f"sweep {name!r}: fixed").items():
            fixed[_check_fixed_name(key, k.where)] = v.number(f"fixed {key}")
    targets: dict[str, Target] = {}
    if "targets" in items:
        for key, (k, v) in items["targets"][1].mapping(f"sweep {name!r}: targets").items():
            targets[_check_fixed_name(key, k.where)] = parse_target(
                v.text(f"target {key}"), v.where
            )
    description = items["description"][1].text("description") if "description" in items else ""
    return SweepSpec(name, motion, grid, fixed, targets, description, knode.where)


def _yaml_motion(what: str, node: _Y, items: dict[str, _Y]) -> MotionSpec:
    if "motion" not in items:
        node.fail(f"{what}: no motion", hint=_MOTION_HINT)
    mnode = items["motion"]
    given = [k for k in ("wheel", "damper", "axis") if k in items]
    if len(given) > 1:
        items[given[1]].fail(f"{what}: give one of wheel, damper or axis")
    separate = items[given[0]].text(given[0]) if given else None
    kind, of, unit = parse_motion_text(mnode.text("motion"), mnode.where, separate)
    if given:
        wanted = {"bump": "wheel", "stroke": "damper", "chassis": "axis"}.get(kind)
        if wanted != given[0]:
            items[given[0]].fail(f"{what}: motion {kind!r} takes no {given[0]}")
    if "unit" in items:
        if kind != "steer":
            items["unit"].fail(f"{what}: only steer takes a unit (mm or deg)")
        unit = items["unit"].text("unit").lower()
        if unit not in ("mm", "deg"):
            items["unit"].fail(f"{what}: unit must be mm or deg, found {unit!r}")

    def num(key: str) -> float | None:
        return items[key].number(key) if key in items else None

    first = next((items[k] for k in ("start", "values", "steps") if k in items), mnode)
    values = sweep_values(
        num("start"),
        num("stop"),
        num("steps"),
        items["values"].numbers("values") if "values" in items else None,
        first.where,
        items["steps"].where if "steps" in items else None,
    )
    return MotionSpec(kind, values, of, unit, mnode.where)


# -- the Sweeps section of a workbook ---------------------------------------------------
def _sheet_columns() -> tuple[Any, ...]:
    from suspension_sim.workbook.reader import Column

    return (
        Column("Sweep", aliases=("Name",)),
        Column("Motion"),
        Column("Start"),
        Column("Stop"),
        Column("Steps"),
        Column("Grid motion", optional=True),
        Column("Grid start", optional=True),
        Column("Grid stop", optional=True),
        Column("Grid steps", optional=True),
        Column("Fixed", optional=True),
        Column("Targets", optional=True),
        Column("Description", optional=True),
    )


SHEET_HEADER: tuple[str, ...] = (
    "Sweep",
    "Motion",
    "Start",
    "Stop",
    "Steps",
    "Grid motion",
    "Grid start",
    "Grid stop",
    "Grid steps",
    "Fixed",
    "Targets",
    "Description",
)
"""The Sweeps section's header (columns after Steps are optional, in this order)."""


def _load_sheet(path: Path) -> dict[str, SweepSpec]:
    from suspension_sim.workbook.reader import SWEEPS, _number, read_section

    records = read_section(path, SWEEPS, _sheet_columns())
    if records is None:
        return {}
    specs: dict[str, SweepSpec] = {}
    cells: dict[str, str] = {}
    for rec in records:
        name_cell = rec["Sweep"]
        assert name_cell is not None
        name = name_cell.text or ""
        if name in specs:
            raise WorkbookError(
                f"sweep {name!r} is defined twice: {cells[name]} and {name_cell.where}",
                where=name_cell.where,
                hint="give each sweep its own name",
            )
        cells[name] = name_cell.where

        def motion(prefix: str, rec: dict[str, Any] = rec, name: str = name) -> MotionSpec | None:
            mcell = rec[f"{prefix}Motion" if not prefix else f"{prefix}motion"]
            start, stop, steps = (rec[f"{prefix}{c}"] for c in _sheet_range_names(prefix))
            if mcell is None or mcell.blank:
                if prefix:
                    for c in (start, stop, steps):
                        if c is not None and not c.blank:
                            raise WorkbookError(
                                f"sweep {name!r}: a grid value without a grid motion",
                                where=c.where,
                                hint="fill in 'Grid motion' or clear the grid cells",
                            )
                    return None
                raise WorkbookError(
                    f"sweep {name!r}: the motion is blank", where=mcell.where, hint=_MOTION_HINT
                )
            try:
                kind, of, unit = parse_motion_text(mcell.text or "", mcell.where)
                values = sweep_values(
                    _number(start, "start"),
                    _number(stop, "stop"),
                    _number(steps, "steps"),
                    None,
                    (start or mcell).where,
                    steps.where if steps is not None else None,
                )
            except InputError as exc:
                raise WorkbookError(exc.message, where=exc.where, hint=exc.hint) from None
            return MotionSpec(kind, values, of, unit, mcell.where)

        main = motion("")
        assert main is not None
        grid = motion("Grid ")
        fixed, targets = _sheet_held(rec)
        desc = rec["Description"]
        specs[name] = SweepSpec(
            name,
            main,
            grid,
            fixed,
            targets,
            (desc.text or "") if desc is not None else "",
            name_cell.where,
        )
    return specs


def _sheet_range_names(prefix: str) -> tuple[str, str, str]:
    return ("start", "stop", "steps") if prefix else ("Start", "Stop", "Steps")


def _sheet_held(rec: dict[str, Any]) -> tuple[dict[str, float], dict[str, Target]]:
    """The Fixed ('rack=5; roll=1') and Targets ('FL_Damper=wheel_travel(FL, 10)') cells."""
    fixed: dict[str, float] = {}
    targets: dict[str, Target] = {}
    for column, out in (("Fixed", fixed), ("Targets", targets)):
        cell = rec[column]
        if cell is None or cell.blank:
            continue
        parts = [p for p in re.split(r";|\n", cell.text or "") if p.strip()]
        if column == "Fixed" and len(parts) == 1 and "(" not in parts[0]:
            parts = [p for p in parts[0].split(",") if p.strip()]
        for part in parts:
            if "=" not in part:
                raise WorkbookError(
                    f"{column}: cannot read {part.strip()!r}",
                    where=cell.where,
                    hint="write NAME=VALUE entries separated by ';', e.g. 'rack=5; roll=1'"
                    if column == "Fixed"
                    else "write INPUT=TARGET entries separated by ';', e.g. "
                    "'FL_Damper=wheel_travel(FL, 10)'",
                )
            key, text = (s.strip() for s in part.split("=", 1))
            try:
                _check_fixed_name(key, cell.where)
                if column == "Fixed":
                    try:
                        value = float(text)
                    except ValueError:
                        raise InputError(
                            f"Fixed: {text!r} is not a number (for {key})", where=cell.where
                        ) from None
                    out[key] = value  # type: ignore[assignment]
                else:
                    out[key] = parse_target(text, cell.where)  # type: ignore[assignment]
            except InputError as exc:
                raise WorkbookError(exc.message, where=exc.where, hint=exc.hint) from None
    return fixed, targets


# -- loading ------------------------------------------------------------------------------
def load_sweeps(path_or_workbook: str | os.PathLike[str] | KinematicModel) -> dict[str, SweepSpec]:
    """Sweep definitions by name from a YAML file or a workbook's Sweeps section.

    A workbook (or a `Model`, meaning its workbook) without a Sweeps section
    gives an empty dict. Errors name the file and line (YAML) or the sheet
    and cell (workbook).
    """
    if hasattr(path_or_workbook, "car"):
        source = path_or_workbook.car.source_path  # type: ignore[union-attr]
        if source is None:
            return {}
        path = Path(source)
    else:
        path = Path(path_or_workbook)  # type: ignore[arg-type]
    suffix = path.suffix.lower()
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a sweep file", where=str(path))
    if not path.is_file():
        raise InputError(f"no such file: {path}", where=str(path), hint="check the path")
    if suffix in YAML_SUFFIXES:
        return _load_yaml(path)
    if suffix in WORKBOOK_SUFFIXES:
        return _load_sheet(path)
    raise InputError(
        f"cannot read sweeps from a {suffix or 'file without extension'}",
        where=str(path),
        hint="give a .yaml file or an .xlsx workbook with a Sweeps section",
    )


def find_sweep(
    workbook: str | os.PathLike[str], name: str, sweep_file: str | os.PathLike[str] | None = None
) -> SweepSpec:
    """The sweep `name`: from `sweep_file` if given; else the workbook's Sweeps
    section, then a sweeps.yaml next to the workbook. InputError lists what exists."""
    places: list[tuple[str, dict[str, SweepSpec]]] = []
    if sweep_file is not None:
        places.append((str(sweep_file), load_sweeps(sweep_file)))
    else:
        wb = Path(workbook)
        places.append((f"{wb} (Sweeps section)", load_sweeps(wb)))
        beside = wb.with_name(BESIDE_WORKBOOK)
        if beside.is_file():
            places.append((str(beside), load_sweeps(beside)))
    for _, specs in places:
        if name in specs:
            return specs[name]
    for _, specs in places:  # a unique case-insensitive match
        loose = [n for n in specs if n.casefold() == name.casefold()]
        if len(loose) == 1:
            return specs[loose[0]]
    known = sorted({n for _, specs in places for n in specs})
    near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    looked = "; ".join(p for p, _ in places)
    raise InputError(
        f"no sweep named {name!r}" + (f". Did you mean {near[0]!r}?" if near else ""),
        where="sweep",
        hint=(f"sweeps defined: {', '.join(known)} " if known else "no sweeps are defined ")
        + f"(looked in {looked}; see docs/sweeps.md)",
    )


# -- running ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """A step that was not solved (or a note about one that was).

    step: index in the motion (0-based). values: the swept values.
    kind: "unreachable", "branch jump", "input" (an invalid input such as a
    stroke beyond the damper's length limits) or "note".
    """

    step: int
    values: tuple[float, ...]
    message: str
    kind: Literal["unreachable", "branch jump", "input", "note"] = "unreachable"

    def describe(self, columns: Sequence[str]) -> str:
        vals = ", ".join(f"{c} = {v:g}" for c, v in zip(columns, self.values, strict=False))
        return f"step {self.step} ({vals}): {self.message}"


@dataclass
class SweepResult:
    """What a sweep produced. Poses, values and seconds are for the solved steps only."""

    spec: SweepSpec
    motion: Motion
    poses: list[Pose]
    steps: list[int]  # motion step index of each pose
    problems: list[Problem]
    notes: list[Problem]
    seconds: list[float]  # wall time of each solved step (s)
    convention: str | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        """Names (with units) of the swept variables."""
        return self.motion.columns

    @property
    def values(self) -> np.ndarray:
        """Swept values of the solved steps, (solved steps, columns)."""
        return self.motion.values[self.steps] if self.steps else np.zeros((0, len(self.columns)))

    @property
    def ok(self) -> bool:
        return not self.problems

    @cached_property
    def table(self) -> pd.DataFrame:
        """One row per solved step (index ``step``): the swept values, then every metric
        (`suspension_sim.metrics.metrics_table`; a metric column equal to a swept one is
        not repeated). ``attrs`` holds the sweep name and the sign convention."""
        front = pd.DataFrame(self.values, columns=list(self.columns))
        if self.poses:
            from suspension_sim.metrics import metrics_table

            metrics = metrics_table(self.poses, self.convention).reset_index(drop=True)
            attrs = dict(metrics.attrs)
            metrics = metrics.drop(columns=[c for c in front.columns if c in metrics.columns])
            table = pd.concat([front, metrics], axis=1).copy()
            # Strokes solved for a target are not limited by the solver: say so on
            # every row, so a plot of the table cannot hide a bottomed-out damper.
            table["dampers_beyond_limits"] = [
                "; ".join(damper_limit_notes(p)).removeprefix(
                    "dampers beyond their length limits: "
                )
                for p in self.poses
            ]
            table.attrs.update(attrs)
        else:
            table = front
        table.index = pd.Index(self.steps, name="step")
        table.attrs["sweep"] = self.spec.name
        return table

    def summary(self) -> str:
        """Steps solved, problems, slowest step: a few lines for the terminal."""
        n = len(self.motion)
        total = sum(self.seconds)
        lines = [
            f"sweep {self.spec.name!r} ({self.motion.name}): {len(self.poses)} of {n} steps "
            f"solved in {total:.2f} s"
        ]
        if self.seconds:
            k = int(np.argmax(self.seconds))
            vals = ", ".join(
                f"{c} = {v:g}" for c, v in zip(self.columns, self.values[k], strict=True)
            )
            lines.append(f"slowest step: {self.steps[k]} ({vals}), {self.seconds[k]:.3f} s")
        for note in self.notes[:MAX_NOTES]:
            lines.append("note: " + note.describe(self.columns))
        if len(self.notes) > MAX_NOTES:
            lines.append(f"... and {len(self.notes) - MAX_NOTES} more note(s) (result.notes)")
        if self.problems:
            lines.append(f"{len(self.problems)} problem(s):")
            lines += ["  " + p.describe(self.columns) for p in self.problems]
        else:
            lines.append("no problems")
        return "\n".join(lines)


def run_sweep(
    model: KinematicModel,
    spec: SweepSpec,
    progress: Callable[[int, int], None] | None = None,
    *,
    convention: str | None = None,
    max_step_mm: float = MAX_STEP_MM,
    max_step_deg: float = MAX_STEP_DEG,
    halvings: int = MAX_HALVINGS,
) -> SweepResult:
    """Solve every step of a sweep by continuation from design.

    progress(done, total) is called after each step. `convention` picks the
    metrics' sign preset for the table (None: the workbook's). The
    continuation settings are those of `suspension_sim.solve.continuation.move`.
    A step that cannot be solved is recorded in `problems` (with the
    reason) and the sweep continues from the last solved pose. InputError
    for a definition that does not fit the model (unknown wheel, ...).
    """
    motion = spec.build(model)
    design = model.solve()
    pose = design
    result = SweepResult(spec, motion, [], [], [], [], [], convention)
    total = len(motion)
    for i, step in enumerate(motion):
        t0 = time.perf_counter()
        notes: list[str] = []
        try:
            _check_step_limits(model, step.state)
            new = move(
                pose,
                step.state,
                max_step_mm=max_step_mm,
                max_step_deg=max_step_deg,
                halvings=halvings,
                notes=notes,
            )
        except MoveError as exc:
            kind: Literal["unreachable", "branch jump"] = (
                "branch jump" if exc.jump is not None else "unreachable"
            )
            text = (
                f"refused: {exc.reason} (close to a dead point, where links line up, the "
                "solver can land on another assembly of the linkage)"
                if exc.jump is not None
                else f"cannot be reached from the previous solved pose: {exc.reason}"
            )
            if exc.at is not None and exc.at is not step.state:
                text += f"\n  (stopped on the way there, at {_difference(exc.at, step.state)})"
            result.problems.append(Problem(i, step.values, text, kind))
        except InputError as exc:
            result.problems.append(Problem(i, step.values, exc.render(), "input"))
        else:
            result.poses.append(new)
            result.steps.append(i)
            result.seconds.append(time.perf_counter() - t0)
            notes += damper_limit_notes(new)
            result.notes += [Problem(i, step.values, n, "note") for n in notes]
            pose = new
        if progress is not None:
            progress(i + 1, total)
    return result


def _difference(at: State, end: State) -> str:
    """The inputs and targets of `at` that differ from `end` (where a walk stopped)."""
    parts = [f"stroke {k} {v:.4g} mm" for k, v in at.shocks.items() if v != end.shocks.get(k, 0.0)]
    if at.rack != end.rack and "rack" not in at.targets:
        parts.append(f"rack {at.rack:.4g} mm")
    for axis, a, b in zip(CHASSIS_AXES, at.chassis, end.chassis, strict=True):
        if a != b:
            parts.append(f"chassis {axis} {a:.4g} {'deg' if axis in CHASSIS_AXES[3:] else 'mm'}")
    for key, tg in at.targets.items():
        other = end.targets.get(key)
        if other is None or abs(tg.value - other.value) > 1e-9:
            parts.append(tg.describe())
    return ", ".join(parts) or at.describe()


def _check_step_limits(model: KinematicModel, state: State) -> None:
    """Refuse a step whose own strokes break a damper's limits, naming those strokes
    (rather than the first increment on the way there that would)."""
    from suspension_sim.solve.inputs import check_damper_limits, parse_shocks

    free = {k.lower() for k in state.targets}
    strokes = parse_shocks(model, state.shocks)
    held = {k: v for k, v in strokes.items() if k.lower() not in free}
    check_damper_limits(model, {**dict.fromkeys(strokes, 0.0), **held})


def damper_limit_notes(pose: Pose) -> list[str]:
    """One line naming the dampers whose solved length is outside their Min/Max length.

    Strokes solved for a target (ground motions, bump) are not limited by the
    solver: the pose is kept, but those dampers would have bottomed or topped out.
    """
    out = []
    car = pose.model.car
    for d in car.dampers:
        design = float(np.linalg.norm(car.point(d.moving_point) - car.point(d.chassis_point)))
        length = design - pose.shocks[d.body]
        if d.min_length is not None and length < d.min_length - 1e-6:
            out.append(f"{d.body} {length:.1f} mm < min {d.min_length:g} mm")
        if d.max_length is not None and length > d.max_length + 1e-6:
            out.append(f"{d.body} {length:.1f} mm > max {d.max_length:g} mm")
    return ["dampers beyond their length limits: " + ", ".join(out)] if out else []


def run_named_sweep(
    model: KinematicModel,
    workbook_path: str | os.PathLike[str],
    name: str,
    sweep_file: str | os.PathLike[str] | None = None,
) -> list[Pose]:
    """The solved poses of a named sweep, in order (for animating it).

    The sweep comes from `sweep_file` if given, else the workbook's Sweeps
    section or a sweeps.yaml beside it (`find_sweep`). Steps that could not be
    solved are left out; `run_sweep` reports them.
    """
    spec = find_sweep(workbook_path, name, sweep_file)
    return run_sweep(model, spec).poses


__all__ = [
    "SHEET_HEADER",
    "MotionSpec",
    "Problem",
    "SweepResult",
    "SweepSpec",
    "find_sweep",
    "load_sweeps",
    "parse_target",
    "run_named_sweep",
    "run_sweep",
]
