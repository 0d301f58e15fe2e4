"""The optimisation spec: design variables, objectives and constraints (YAML, file:line errors).

::

    version: 1
    variables:                       # exactly as in a DOE study file (design_space)
      - {point: FL_TIE_I, axis: z, range: [-10, 10], symmetric: true}
    objectives:                      # soft: least squares of normalised violations
      - {metric: toe_FL_deg, over: {motion: heave, start: -30, stop: 30, steps: 13},
         within: [-0.05, 0.05], relative: true}
      - {metric: camber_FL_deg, over: heave, gain: -0.8, tolerance: 0.1, per: 25}
    constraints:                     # hard: must hold at the optimum
      - {metric: roll_centre_height_front_mm, between: [30, 50]}
      - {metric: ackermann_front_pct, at: {motion: steer, value: 90}, between: [40, 80]}
      - {link: [FL_TIE_I, FL_TIE_O], length: [300, 340]}
      - {point: FL_TIE_I, box: [[-100, 150, 80], [100, 400, 200]]}

A metric term is evaluated at design (no ``over``/``at``), at every step of a motion
(``over``), or at one value of a motion (``at``). Requirements: ``between``/``within``
[low, high] (a band; ``relative: true`` takes each value minus the same car's value at
design, e.g. toe change in heave), ``target`` (+ ``tolerance``), ``gain`` (the
least-squares slope of the metric against the motion's swept value, times ``per``, within
``gain +- tolerance``). ``scale`` sets the normalisation (default: the band's half width,
or the tolerance; 1 mm for links and boxes). Units: the metric column's unit; mm for
lengths and boxes (model frame).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from suspension_sim.errors import InputError
from suspension_sim.explore.design_space import (
    MotionRequest,
    Variable,
    known_keys,
    read_convention,
    read_variables,
    yaml_top,
)
from suspension_sim.sweeps.yaml_file import Node

SPEC_KEYS = ("version", "variables", "objectives", "constraints", "convention")
TERM_KEYS = (
    "metric",
    "over",
    "at",
    "between",
    "within",
    "relative",
    "gain",
    "per",
    "tolerance",
    "target",
    "scale",
    "link",
    "length",
    "point",
    "box",
)
OVER_KEYS = ("motion", "start", "stop", "steps")
AT_KEYS = ("motion", "value", "steps")
SPEC_HINT = (
    "an optimisation spec holds 'variables:' (as a DOE study), 'objectives:' and/or "
    "'constraints:' (docs/exploration.md, Optimisation)"
)
AT_STEPS = 7
"""Values from design to an ``at:`` value: the continuation's path (one long step can
fail to close where short ones do, e.g. 0 to 90 deg of steering wheel)."""
DEFAULT_PER = 1.0
"""A gain without ``per`` is per unit of the swept value (mm or deg)."""


@dataclass(frozen=True)
class Term:
    """One objective or constraint.

    kind: ``metric`` (a metric column), ``link`` (distance between two points at design,
    mm) or ``box`` (a point's design position inside a box, mm). role: ``objective``
    (least squares) or ``constraint`` (must hold). low/high: the band per quantity (None:
    unbounded on that side); target: the value pulled toward (objectives) or required
    within `scale` (constraints without a band). gain_per: a gain term's ``per``.
    """

    kind: Literal["metric", "link", "box"]
    role: Literal["objective", "constraint"]
    where: str
    metric: str = ""
    over: MotionRequest | None = None
    at: MotionRequest | None = None
    at_value: float = 0.0
    low: tuple[float | None, ...] = (None,)
    high: tuple[float | None, ...] = (None,)
    target: float | None = None
    scale: float = 1.0
    relative: bool = False
    gain_per: float | None = None
    points: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """A short human name, e.g. ``toe_FL_deg over heave (relative)``."""
        if self.kind == "link":
            return f"length {self.points[0]}-{self.points[1]}"
        if self.kind == "box":
            return f"{self.points[0]} in box"
        text = self.metric
        if self.gain_per is not None:
            text = f"{self.metric} gain per {self.gain_per:g}"
        if self.over is not None:
            text += f" over {self.over.name}"
        if self.at is not None:
            text += f" at {self.at.name} {self.at_value:g}"
        if self.relative:
            text += " (relative)"
        return text

    @property
    def requirement(self) -> str:
        """The requirement as text, e.g. ``within [-0.05, 0.05]``."""
        if self.kind == "box":
            return f"inside [{_fmt(self.low)}]..[{_fmt(self.high)}] mm"
        parts = []
        if self.gain_per is not None and self.target is not None:
            return f"gain {self.target:g} +- {self.scale:g}"
        if self.low[0] is not None or self.high[0] is not None:
            parts.append(f"within [{_fmt(self.low)}, {_fmt(self.high)}]")
        if self.target is not None:
            parts.append(f"target {self.target:g} +- {self.scale:g}")
        return ", ".join(parts)


def _fmt(values: Sequence[float | None]) -> str:
    return ", ".join("-inf" if v is None else f"{v:g}" for v in values)


@dataclass(frozen=True)
class OptimiseSpec:
    """An optimisation spec read from its file."""

    variables: tuple[Variable, ...]
    terms: tuple[Term, ...]
    convention: str | None = None
    where: str = ""

    @property
    def motions(self) -> tuple[MotionRequest, ...]:
        """Every distinct motion the terms need (``over`` and ``at``), in order."""
        out: list[MotionRequest] = []
        for t in self.terms:
            for m in (t.over, t.at):
                if m is not None and motion_key(m) not in [motion_key(o) for o in out]:
                    out.append(m)
        return tuple(out)


def motion_key(m: MotionRequest) -> tuple[str, float | None, float | None, int | None]:
    """Two requests with the same key run the same sweep."""
    return (m.name, m.start, m.stop, m.steps)


def read_spec(path: str | Path) -> OptimiseSpec:
    """The spec in a YAML file (InputError at file:line for anything wrong)."""
    with yaml_top(path, "optimisation spec", SPEC_KEYS, SPEC_HINT) as (file, top):
        if "variables" not in top:
            raise InputError("no 'variables:' in the optimisation spec", where=file, hint=SPEC_HINT)
        variables = read_variables(top["variables"][1])
        terms: list[Term] = []
        for key, role in (("objectives", "objective"), ("constraints", "constraint")):
            if key in top:
                terms += _terms(top[key][1], role)  # type: ignore[arg-type]
        if not terms:
            raise InputError(
                "the optimisation spec has no objectives and no constraints",
                where=file,
                hint=SPEC_HINT,
            )
        return OptimiseSpec(variables, tuple(terms), read_convention(top), where=file)


def _terms(node: Node, role: Literal["objective", "constraint"]) -> list[Term]:
    if not isinstance(node.node, yaml.SequenceNode) or not node.node.value:
        node.fail(f"{role}s must be a list, one entry per {role}", SPEC_HINT)
    return [_term(Node(item, node.file, node.loader), role) for item in node.node.value]


def _positive(node: Node, what: str) -> float:
    value = node.number(what)
    if not value > 0:
        node.fail(f"{what} must be positive, found {value:g}")
    return value


def _band(node: Node, what: str) -> tuple[float, float]:
    values = node.numbers(what)
    if len(values) != 2 or not values[0] <= values[1]:
        node.fail(f"{what} must be [low, high] with low <= high")
    return values[0], values[1]


def _term(tnode: Node, role: Literal["objective", "constraint"]) -> Term:
    f = tnode.mapping(f"an {role}" if role == "objective" else f"a {role}")
    known_keys(f, TERM_KEYS, role)
    where = tnode.where
    kinds = [k for k in ("metric", "link", "point") if k in f]
    if len(kinds) != 1:
        tnode.fail(
            f"the {role} must name exactly one of metric:, link: or point: (found "
            f"{', '.join(kinds) or 'none'})",
            SPEC_HINT,
        )
    scale = _positive(f["scale"][1], "scale") if "scale" in f else None
    if kinds[0] == "link":
        _only(f, ("link", "length", "scale"), "a link limit")
        names = [Node(n, tnode.file, tnode.loader) for n in _seq(f["link"][1], "link", 2)]
        points = tuple(n.text("link point").strip() for n in names)
        if "length" not in f:
            tnode.fail("a link limit needs length: [min, max] in mm")
        lo, hi = _band(f["length"][1], "length")
        if lo < 0:
            f["length"][1].fail("length must be [min, max] in mm, min >= 0")
        return Term("link", role, where, low=(lo,), high=(hi,), scale=scale or 1.0, points=points)
    if kinds[0] == "point":
        _only(f, ("point", "box", "scale"), "a packaging box")
        point = f["point"][1].text("point").strip()
        if "box" not in f:
            tnode.fail("a packaging box needs box: [[xmin, ymin, zmin], [xmax, ymax, zmax]] (mm)")
        corners = [Node(n, tnode.file, tnode.loader) for n in _seq(f["box"][1], "box", 2)]
        lows = corners[0].numbers("box corner")
        highs = corners[1].numbers("box corner")
        if (
            len(lows) != 3
            or len(highs) != 3
            or any(a > b for a, b in zip(lows, highs, strict=True))
        ):
            f["box"][1].fail(
                "box must be [[xmin, ymin, zmin], [xmax, ymax, zmax]] with min <= max (mm)"
            )
        return Term(
            "box",
            role,
            where,
            low=tuple(lows),
            high=tuple(highs),
            scale=scale or 1.0,
            points=(point,),
        )
    metric = f["metric"][1].text("metric").strip()
    over = _over(f["over"][1]) if "over" in f else None
    at, at_value = _at(f["at"][1]) if "at" in f else (None, 0.0)
    if over is not None and at is not None:
        tnode.fail("give over: (every step of a motion) or at: (one value), not both")
    reqs = [k for k in ("between", "within", "gain", "target") if k in f]
    if not reqs:
        tnode.fail(
            f"the {role} on {metric!r} has no requirement",
            "give between:, within:, gain: or target:",
        )
    if ("between" in f) and ("within" in f):
        f["within"][1].fail("between: and within: mean the same band; give one")
    relative = False
    if "relative" in f:
        rel = f["relative"][1].value()
        if not isinstance(rel, bool):
            f["relative"][1].fail(f"relative must be true or false, found {rel!r}")
        relative = rel
        if relative and over is None and at is None:
            f["relative"][1].fail("relative: true compares with design, so it needs over: or at:")
    tolerance = _positive(f["tolerance"][1], "tolerance") if "tolerance" in f else None
    if "gain" in f:
        if over is None:
            f["gain"][1].fail("a gain is a slope over a motion: give over:")
        if len(reqs) > 1:
            f["gain"][1].fail("a gain term takes gain: and tolerance: only (no band or target)")
        if tolerance is None:
            f["gain"][1].fail("a gain needs tolerance: (the accepted +- about it)")
        if relative:
            f["relative"][1].fail("a gain is a slope; relative: does not apply")
        per = _positive(f["per"][1], "per") if "per" in f else DEFAULT_PER
        gain = f["gain"][1].number("gain")
        return Term(
            "metric",
            role,
            where,
            metric=metric,
            over=over,
            low=(gain - tolerance,),
            high=(gain + tolerance,),
            target=gain,
            scale=scale or tolerance,
            gain_per=per,
        )
    if "per" in f:
        f["per"][1].fail("per: belongs to a gain")
    low: float | None = None
    high: float | None = None
    band_key = "between" if "between" in f else "within" if "within" in f else None
    if band_key is not None:
        low, high = _band(f[band_key][1], band_key)
    target = f["target"][1].number("target") if "target" in f else None
    if target is not None and band_key is None and tolerance is None and scale is None:
        f["target"][1].fail("a target needs tolerance: (or scale:) saying how close is close")
    if band_key is not None and tolerance is not None:
        f["tolerance"][1].fail("tolerance: goes with target: or gain:; a band is its own tolerance")
    if scale is None:
        if tolerance is not None:
            scale = tolerance
        elif low is not None and high is not None and high > low:
            scale = (high - low) / 2.0
        else:
            tnode.fail("the band has no width: give scale: (the normalisation, metric unit)")
    return Term(
        "metric",
        role,
        where,
        metric=metric,
        over=over,
        at=at,
        at_value=at_value,
        low=(low,),
        high=(high,),
        target=target,
        scale=scale,
        relative=relative,
    )


def _only(f: dict[str, tuple[Node, Node]], keys: Sequence[str], what: str) -> None:
    for key, (knode, _) in f.items():
        if key not in keys:
            knode.fail(f"{key}: does not apply to {what}", hint="keys: " + ", ".join(keys))


def _seq(node: Node, what: str, count: int) -> list[yaml.Node]:
    if not isinstance(node.node, yaml.SequenceNode) or len(node.node.value) != count:
        node.fail(f"{what} must be a list of {count} entries")
    return list(node.node.value)


def _over(node: Node) -> MotionRequest:
    if isinstance(node.node, yaml.ScalarNode):
        return MotionRequest(node.text("motion").strip(), where=node.where)
    f = node.mapping("over")
    known_keys(f, OVER_KEYS, "over")
    if "motion" not in f:
        node.fail("over: needs motion: (heave, roll, steer, ... or a named sweep)")
    steps = None
    if "steps" in f:
        steps = _steps(f["steps"][1])
    start = f["start"][1].number("start") if "start" in f else None
    stop = f["stop"][1].number("stop") if "stop" in f else None
    return MotionRequest(f["motion"][1].text("motion").strip(), start, stop, steps, node.where)


def _steps(node: Node) -> int:
    value = node.number("steps")
    if value != math.floor(value) or not 2 <= value <= 1001:
        node.fail(f"steps must be a whole number from 2 to 1001, found {value:g}")
    return int(value)


def _at(node: Node) -> tuple[MotionRequest, float]:
    """``at: {motion: steer, value: 90}``: the motion swept from design (0) to the value
    (``steps`` values on the way, default `AT_STEPS`), the last step taken."""
    f = node.mapping("at")
    known_keys(f, AT_KEYS, "at")
    if "motion" not in f or "value" not in f:
        node.fail("at: needs motion: and value:, e.g. {motion: steer, value: 90}")
    value = f["value"][1].number("value")
    if value == 0:
        f["value"][1].fail("at: value 0 is the design: leave at: out")
    steps = _steps(f["steps"][1]) if "steps" in f else AT_STEPS
    name = f["motion"][1].text("motion").strip()
    return MotionRequest(name, 0.0, value, steps, node.where), value
