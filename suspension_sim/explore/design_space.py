"""Design variables (hardpoint coordinates with ranges) and the study file that names them.

A study file (YAML, docs/exploration.md) lists the design variables, the motions each
design runs through and how many designs to sample::

    version: 1
    variables:
      - {point: FL_UCA_F, axis: z, range: [-5, 5], symmetric: true}
      - {point: FL_TIE_I, axis: z, range: [-3, 3], symmetric: true}
    motions: [heave, roll, {motion: steer, start: -90, stop: 90, steps: 13}]
    samples: 256
    method: sobol        # or lhs
    seed: 0

A variable moves one point along one model axis by an offset from its design position
(mm, model frame: +X forward, +Y left, +Z up). ``symmetric: true`` moves the point's
right-side twin with it, mirrored (the same x and z offset, the opposite y offset), so a
symmetric car stays symmetric. Every problem is an InputError naming the file and line.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.model.refit import replaced
from suspension_sim.names import did_you_mean
from suspension_sim.sweeps.yaml_file import Node, SweepLoader, yaml_root
from suspension_sim.textfiles import read_text
from suspension_sim.workbook.mirror import is_left, right_name

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import Car, Point

AXES = ("x", "y", "z")
METHODS = ("sobol", "lhs")
VERSION = 1
MAX_SAMPLES = 1_000_000
"""Designs one study may ask for (a larger study is split into several files)."""
MAX_OFFSET_MM = 500.0
"""Largest offset a variable's range may reach: beyond, the unit is probably wrong."""
STUDY_KEYS = ("version", "variables", "motions", "samples", "method", "seed", "convention")
VARIABLE_KEYS = ("point", "axis", "range", "symmetric")
MOTION_KEYS = ("motion", "start", "stop", "steps")
STUDY_HINT = (
    "a study file holds 'variables:' (point, axis, range [mm], symmetric), 'motions:' and "
    "'samples:' (docs/exploration.md)"
)


@dataclass(frozen=True)
class Variable:
    """One design variable: `point` moved along model `axis` by an offset in [low, high] mm.

    twin: the right-side point moved with it (mirrored in y), or None.
    where: the study file line that defines it (``study.yaml:4``).
    """

    point: str
    axis: str
    low: float
    high: float
    twin: str | None = None
    where: str = ""

    @property
    def name(self) -> str:
        """Column name of the offset, e.g. ``FL_UCA_F.z``."""
        return f"{self.point}.{self.axis}"


@dataclass(frozen=True)
class MotionRequest:
    """A motion each design runs through: a standard motion or a named sweep of the car,
    optionally with its range changed (start/stop in mm or deg, steps)."""

    name: str
    start: float | None = None
    stop: float | None = None
    steps: int | None = None
    where: str = ""


@dataclass(frozen=True)
class Study:
    """A design-of-experiments study read from its file."""

    variables: tuple[Variable, ...]
    motions: tuple[MotionRequest, ...]
    samples: int
    method: str = "sobol"
    seed: int = 0
    convention: str | None = None
    where: str = ""

    @property
    def lows(self) -> np.ndarray:
        return np.array([v.low for v in self.variables])

    @property
    def highs(self) -> np.ndarray:
        return np.array([v.high for v in self.variables])


def check_variables(car: Car, variables: Sequence[Variable]) -> None:
    """Every variable's point (and twin) is a point of the car, and no coordinate is
    driven twice. InputError naming the study file line."""
    names = {p.name for p in car.points}
    driven: dict[tuple[str, str], str] = {}
    for v in variables:
        for point in (v.point, v.twin):
            if point is None:
                continue
            if point not in names:
                what = "twin point" if point == v.twin else "point"
                raise InputError(
                    f"the {what} {point!r} is not a point of the car."
                    + did_you_mean(point, sorted(names)),
                    where=v.where,
                    hint="name a hard point of the workbook's Points section",
                )
            key = (point, v.axis)
            if key in driven:
                raise InputError(
                    f"{point}.{v.axis} is moved by two variables (also at {driven[key]})",
                    where=v.where,
                    hint="give each coordinate one variable",
                )
            driven[key] = v.where


def apply_offsets(car: Car, variables: Sequence[Variable], offsets: Sequence[float]) -> Car:
    """The car with each variable's point moved by its offset (mm); twins mirrored in y.

    Each moved point's offsets are summed from 0.0 and added to its coordinates in
    float64, the other points and the car's other parts kept (the same objects). Called
    once per design of a study: the new `Point`s and `Car` are made as
    `dataclasses.replace` makes them, without its per-call cost (`model.refit.replaced`)."""
    moves: dict[str, list[float]] = {}
    for v, d in zip(variables, offsets, strict=True):
        k = AXES.index(v.axis)
        step = float(d)
        for point, sign in ((v.point, 1.0), (v.twin, -1.0 if v.axis == "y" else 1.0)):
            if point is None:
                continue
            delta = moves.get(point)
            if delta is None:
                delta = moves[point] = [0.0, 0.0, 0.0]
            delta[k] += sign * step
    points = list(car.points)
    if moves:
        for i, p in enumerate(points):
            delta = moves.get(p.name)
            if delta is not None:
                points[i] = _moved(p, delta)
    return replaced(car, points=tuple(points))


def _moved(point: Point, delta: Sequence[float]) -> Point:
    x, y, z = point.xyz
    return replaced(point, xyz=(float(x) + delta[0], float(y) + delta[1], float(z) + delta[2]))


# -- the study file ------------------------------------------------------------------------
@contextlib.contextmanager
def yaml_top(
    path: str | Path, what: str, keys: Sequence[str], hint: str
) -> Iterator[tuple[str, dict[str, tuple[Node, Node]]]]:
    """(file, top-level mapping) of a versioned YAML file (a study or an optimisation
    spec): text that is not YAML, an empty file, an unknown key or another `version` is
    an InputError at file:line. what: the file's name in messages ("study file")."""
    file = str(path)
    loader = SweepLoader(read_text(Path(path), what))
    try:
        root = yaml_root(loader, file, "docs/exploration.md")
        if root is None:
            raise InputError(f"the {what} is empty", where=file, hint=hint)
        top = Node(root, file, loader).mapping(f"the {what}")
        known_keys(top, keys, what)
        if "version" in top and top["version"][1].value() != VERSION:
            top["version"][1].fail(
                f"unsupported version {top['version'][1].value()!r}",
                hint=f"this reader knows {VERSION}",
            )
        yield file, top
    finally:
        loader.dispose()


def read_convention(top: dict[str, tuple[Node, Node]]) -> str | None:
    """The optional ``convention:`` (a sign-convention preset), InputError at its line."""
    if "convention" not in top:
        return None
    from suspension_sim.description import SIGN_CONVENTIONS

    node = top["convention"][1]
    convention = node.text("convention").strip().lower()
    if convention not in SIGN_CONVENTIONS:
        node.fail(
            f"convention {convention!r} is not known",
            hint="convention: " + " or ".join(SIGN_CONVENTIONS),
        )
    return convention


def read_study(path: str | Path) -> Study:
    """The study in a YAML file (InputError at file:line for anything wrong)."""
    with yaml_top(path, "study file", STUDY_KEYS, STUDY_HINT) as (file, top):
        for key in ("variables", "motions", "samples"):
            if key not in top:
                raise InputError(f"no '{key}:' in the study file", where=file, hint=STUDY_HINT)
        variables = read_variables(top["variables"][1])
        motions = _motions(top["motions"][1])
        samples = read_integer(top["samples"][1], "samples", 1, MAX_SAMPLES)
        method = "sobol"
        if "method" in top:
            method = top["method"][1].text("method").strip().lower()
            if method not in METHODS:
                top["method"][1].fail(
                    f"method {method!r} is not known", hint="method: sobol or lhs"
                )
        seed = read_integer(top["seed"][1], "seed", 0, 2**32 - 1) if "seed" in top else 0
        convention = read_convention(top)
        return Study(variables, motions, samples, method, seed, convention, where=file)


def known_keys(items: dict[str, tuple[Node, Node]], keys: Sequence[str], what: str) -> None:
    """InputError at the first key of `items` not in `keys` (with a did-you-mean)."""
    for key, (knode, _) in items.items():
        if key not in keys:
            knode.fail(
                f"{what}: unknown key {key!r}" + did_you_mean(key, list(keys)),
                hint="keys: " + ", ".join(keys),
            )


def read_integer(node: Node, what: str, low: int, high: int) -> int:
    """A whole number from low to high (InputError at the node's line otherwise)."""
    value = node.number(what)
    if value != math.floor(value) or not low <= value <= high:
        node.fail(f"{what} must be a whole number from {low} to {high}, found {value:g}")
    return int(value)


def read_variables(node: Node) -> tuple[Variable, ...]:
    """The ``variables:`` list (shared by the study and the optimisation spec)."""
    import yaml

    if not isinstance(node.node, yaml.SequenceNode) or not node.node.value:
        node.fail("variables must be a list, one entry per design variable", STUDY_HINT)
    out: list[Variable] = []
    for item in node.node.value:
        vnode = Node(item, node.file, node.loader)
        fields = vnode.mapping("a variable")
        known_keys(fields, VARIABLE_KEYS, "variable")
        for key in ("point", "axis", "range"):
            if key not in fields:
                vnode.fail(f"the variable has no {key!r}", STUDY_HINT)
        point = fields["point"][1].text("point").strip()
        axis_node = fields["axis"][1]
        axis = axis_node.text("axis").strip().lower()
        if axis not in AXES:
            axis_node.fail(f"axis {axis!r} is not x, y or z (model frame)")
        bounds = fields["range"][1].numbers("range")
        if len(bounds) != 2 or not bounds[0] < bounds[1]:
            fields["range"][1].fail("range must be [low, high] offsets in mm with low < high")
        if max(abs(b) for b in bounds) > MAX_OFFSET_MM:
            fields["range"][1].fail(
                f"range {bounds} reaches beyond {MAX_OFFSET_MM:g} mm",
                hint="ranges are offsets from the design position in mm",
            )
        twin = None
        if "symmetric" in fields:
            sym = fields["symmetric"][1].value()
            if not isinstance(sym, bool):
                fields["symmetric"][1].fail(f"symmetric must be true or false, found {sym!r}")
            if sym:
                if not is_left(point):
                    fields["point"][1].fail(
                        f"symmetric: {point!r} is not a left-side name (FL_, RL_, _L, Left ...),"
                        " so its twin is not known",
                        hint="name the left point, or leave symmetric out",
                    )
                twin = right_name(point)
        out.append(Variable(point, axis, bounds[0], bounds[1], twin, vnode.where))
    return tuple(out)


def _motions(node: Node) -> tuple[MotionRequest, ...]:
    import yaml

    if not isinstance(node.node, yaml.SequenceNode) or not node.node.value:
        node.fail("motions must be a list, e.g. [heave, roll, steer]", STUDY_HINT)
    out: list[MotionRequest] = []
    for item in node.node.value:
        mnode = Node(item, node.file, node.loader)
        if isinstance(item, yaml.ScalarNode):
            out.append(MotionRequest(mnode.text("motion").strip(), where=mnode.where))
            continue
        fields = mnode.mapping("a motion")
        known_keys(fields, MOTION_KEYS, "motion")
        if "motion" not in fields:
            mnode.fail("the motion has no 'motion:' name", STUDY_HINT)
        steps = read_integer(fields["steps"][1], "steps", 2, 1001) if "steps" in fields else None
        start = fields["start"][1].number("start") if "start" in fields else None
        stop = fields["stop"][1].number("stop") if "stop" in fields else None
        name = fields["motion"][1].text("motion").strip()
        out.append(MotionRequest(name, start, stop, steps, mnode.where))
    return tuple(out)
