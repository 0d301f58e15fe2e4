"""The replay map file (YAML): which log column feeds which input, in which unit.

A map a user writes in a minute (docs/replay.md)::

    time: {column: Time, unit: s}
    dampers:
      FL_Damper: {column: Damper FL, unit: mm}                      # stroke, + = compression
      FR_Damper: {column: DamperFR_V, unit: V, gain: 15.0, offset: -37.5, kind: length}
      RL_Damper: {fixed: 0}                                          # not logged: held
    steering: {column: Steer Angle, unit: deg}      # steering-wheel angle (kind: rack for mm)
    chassis: {heave: {column: Heave, unit: mm}, roll: {column: Roll, unit: deg}}
    zero: {from: 0.0, to: 2.0}                      # static segment (s): strokes zeroed there

Every channel is ``value = gain * raw + offset`` (gain 1, offset 0 by default),
in its unit; a channel in volts (V or mV) gives mm (lengths) or deg (angles)
through gain (per volt) and offset. The file is read node by node
(`suspension_sim.sweeps.yaml_file`), so every error names the file and line
(``map.yaml:7``). Names are checked against a car and a log by `ChannelMap.check`,
and so is a held stroke (``{fixed: STROKE}``) against the damper's travel.
A misspelt damper or column is answered with the nearest name at the same
corner (`suggest`): ``LF_Damper`` -> ``FL_Damper``, never a damper of the
other side.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import yaml

from suspension_sim.errors import InputError
from suspension_sim.names import closest, did_you_mean, loose_key
from suspension_sim.sweeps.yaml_file import Node, SweepLoader, yaml_root
from suspension_sim.textfiles import read_text
from suspension_sim.units import find_unit

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

Quantity = Literal["length", "angle", "time"]
"""What a channel measures once converted: mm, deg or s."""

TOP_KEYS = ("version", "time", "dampers", "steering", "chassis", "zero")
CHANNEL_KEYS = ("column", "unit", "gain", "offset", "kind")
CHASSIS_KEYS = ("heave", "roll", "pitch")
ZERO_KEYS = ("from", "to", "steering")
DAMPER_KINDS = ("stroke", "length")
STEERING_KINDS = ("steering_wheel", "rack")
TIME_UNITS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "min": 60.0}
"""Seconds per one of each accepted time unit."""
VOLT_UNITS: dict[str, float] = {"v": 1.0, "mv": 1e-3}
"""Volts per one of each accepted voltage unit (gain is per volt)."""
MAP_HINT = "a map looks like 'time: {column: Time, unit: s}' then 'dampers:' (docs/replay.md)"
GAIN_HINT = (
    "a channel's value is gain x raw + offset, both plain numbers, e.g. "
    "'{column: Damper FR, unit: V, gain: 15.0, offset: -37.5}'"
)
FIXED_HINT = "a damper that was not logged is held at a stroke (mm, + = compression): '{fixed: 0}'"
ZERO_HINT = "zero: {from: 0.0, to: 2.0} (s of log time, where the car stood still)"
VERSION = 1


@dataclass(frozen=True)
class Channel:
    """One mapped log column and how to turn it into an input (mm, deg or s).

    `factor` converts ``gain * raw + offset`` to mm, deg or s; for volts the
    gain and offset already give mm or deg (factor 1 after the volt scale).
    """

    name: str  # the input: a damper body, "steering", "heave", "roll", "pitch", "time"
    column: str
    quantity: Quantity
    unit: str
    gain: float = 1.0
    offset: float = 0.0
    factor: float = 1.0  # internal (mm, deg, s) per unit of gain * raw + offset
    volts: float = 0.0  # volts per raw unit (V: 1, mV: 1e-3); 0 = not a voltage channel
    kind: str = ""
    where: str = ""  # map file and line of the channel's entry
    column_where: str = ""  # map file and line of its column

    def convert(self, raw: object) -> object:
        """Raw log values (an array) as mm, deg or s: ``(gain * raw * volts + offset)``
        for a voltage channel, ``(gain * raw + offset) * factor`` otherwise."""
        if self.volts:
            return self.gain * (raw * self.volts) + self.offset  # type: ignore[operator]
        return (self.gain * raw + self.offset) * self.factor  # type: ignore[operator]

    def describe(self) -> str:
        """``FL_Damper (column 'Damper FL')`` for messages."""
        return f"{self.name} (column {self.column!r})"


@dataclass(frozen=True)
class Zero:
    """Static segment [start, stop] (s of log time) where strokes (and the steering,
    if asked) are set to zero at their median (`signals.Scan.zeroes`)."""

    start: float
    stop: float
    steering: bool = False
    where: str = ""


@dataclass
class ChannelMap:
    """A parsed map file: time, damper channels (or held strokes), steering, chassis."""

    path: str
    time: Channel
    dampers: dict[str, Channel] = field(default_factory=dict)  # damper body -> channel
    fixed: dict[str, float] = field(default_factory=dict)  # damper body -> held stroke (mm)
    steering: Channel | None = None
    chassis: dict[str, Channel] = field(default_factory=dict)  # heave/roll/pitch -> channel
    zero: Zero | None = None
    damper_where: dict[str, str] = field(default_factory=dict)  # as written -> file:line
    fixed_where: dict[str, str] = field(default_factory=dict)  # as written -> its value's line
    top_where: str = ""

    @property
    def channels(self) -> list[Channel]:
        """Every channel read from the log, time first."""
        out = [self.time, *self.dampers.values()]
        if self.steering is not None:
            out.append(self.steering)
        return out + list(self.chassis.values())

    def check(self, model: KinematicModel, columns: Sequence[str]) -> ChannelMap:
        """This map with damper names as the workbook spells them and columns as the
        log spells them; InputError at the map line for an unknown damper or column,
        a damper left unmapped, a held stroke beyond the damper's travel, or steering
        on a car without a rack."""
        names = list(model.damper_names)
        dampers: dict[str, Channel] = {}
        fixed: dict[str, float] = {}
        for given, where in self.damper_where.items():
            name = _match(given, names)
            if name is None:
                raise InputError(
                    f"{given!r} is not a damper of this workbook." + suggest(given, names),
                    where=where,
                    hint=f"dampers (Damping section): {', '.join(names) or '(none)'}",
                )
            if name in dampers or name in fixed:
                raise InputError(f"damper {name} is mapped twice", where=where)
            if given in self.dampers:
                dampers[name] = replace(self.dampers[given], name=name)
            else:
                fixed[name] = self.fixed[given]
                _check_fixed(model, name, fixed[name], self.fixed_where.get(given, where))
        missing = [n for n in names if n not in dampers and n not in fixed]
        if missing:
            raise InputError(
                f"no channel for damper(s) {', '.join(missing)}",
                where=self.top_where,
                hint=f"map each damper to a column, or hold it: '{missing[0]}: {{fixed: 0}}'",
            )
        if self.steering is not None and model.topology.rack_param is None:
            raise InputError(
                "this workbook has no steering rack, so a steering channel cannot be used",
                where=self.steering.where,
                hint="remove the 'steering:' entry",
            )
        out = replace(self, dampers=dampers, fixed=fixed)
        out.time = _column(self.time, columns)
        out.dampers = {n: _column(c, columns) for n, c in dampers.items()}
        if self.steering is not None:
            out.steering = _column(self.steering, columns)
        out.chassis = {k: _column(c, columns) for k, c in self.chassis.items()}
        return out


def _check_fixed(model: KinematicModel, name: str, stroke: float, where: str) -> None:
    """Refuse a held stroke (mm) beyond the damper's travel: every sample would be out of
    limits (the rule that screens samples, `replay.travel.beyond_travel`)."""
    from suspension_sim.replay.travel import beyond_travel
    from suspension_sim.solve.inputs import input_limits

    if not beyond_travel(model, name, np.array([stroke]))[0]:
        return
    low, high = input_limits(model).get(name, (None, None))
    span = (
        f"{'no minimum' if low is None else f'{low:g}'}.."
        f"{'no maximum' if high is None else f'{high:g}'} mm"
    )
    raise InputError(
        f"{name}: fixed stroke {stroke:g} mm is beyond the damper's travel ({span}, from the "
        "Damping min/max lengths)",
        where=where,
        hint=f"hold it at a stroke within {span} (+ = compression), e.g. '{name}: {{fixed: 0}}'",
    )


CORNER_CODES: dict[str, str] = {
    "fl": "FL",
    "lf": "FL",
    "fr": "FR",
    "rf": "FR",
    "rl": "RL",
    "lr": "RL",
    "rr": "RR",
}
"""Two-letter corner codes either way round (LF = FL); R is rear beside L, right beside F."""
AXLE_WORDS: dict[str, str] = {"front": "F", "rear": "R"}
SIDE_WORDS: dict[str, str] = {"left": "L", "right": "R", "lh": "L", "rh": "R"}
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
"""Words of a name: runs split at case changes, digits and punctuation (FLDamper -> FL Damper)."""


def corner_of(name: str) -> str | None:
    """The corner a name points at (``FL``, ``FR``, ``RL``, ``RR``), from a corner code
    (``FL_Damper``, ``Damper LF``, ``damper_rf``) or words (``Front Left Damper``,
    ``rear_rh``); None when it names none or two."""
    found: set[str] = set()
    axle = side = ""
    for word in (w.casefold() for w in _WORDS.findall(name)):
        if word in CORNER_CODES:
            found.add(CORNER_CODES[word])
        axle = AXLE_WORDS.get(word, axle)
        side = SIDE_WORDS.get(word, side)
    if axle and side:
        found.add(axle + side)
    return found.pop() if len(found) == 1 else None


def suggest(name: str, choices: Sequence[str], *, corner: str | None = None) -> str:
    """``" Did you mean 'X'?"`` for a misspelt `name`, or ``""``; X is at the same corner.

    The corner is the one `name` points at (else `corner`, e.g. the damper whose column
    is misspelt). When some choices are at that corner the suggestion is the nearest of
    them (the only one is suggested however it is spelt: ``Damper LF`` ->
    ``FL_Damper``); choices at another corner are never suggested. A name at no
    corner equally near to choices at two corners gets no suggestion.
    """
    at = corner_of(name) or corner
    if at is None:
        best = closest(name, choices)
        if best is not None and corner_of(best) is not None:
            score = difflib.SequenceMatcher(None, name, best).ratio()
            tied = {
                corner_of(c)
                for c in choices
                if difflib.SequenceMatcher(None, name, c).ratio() == score
            }
            if len(tied) > 1:  # as near to two corners: no guess at a side
                return ""
        return did_you_mean(name, choices)
    same = [c for c in choices if corner_of(c) == at]
    if len(same) == 1 and same[0] != name:
        return f" Did you mean {same[0]!r}?"
    if same:
        return did_you_mean(name, same)
    return did_you_mean(name, [c for c in choices if corner_of(c) is None])


def _match(name: str, choices: Sequence[str]) -> str | None:
    """`name` as spelled in `choices`: exact, else the one case-insensitive match."""
    if name in choices:
        return name
    same = [c for c in choices if c.casefold() == name.casefold()]
    return same[0] if len(same) == 1 else None


def _column(channel: Channel, columns: Sequence[str]) -> Channel:
    """The channel with its column as the log spells it (exact, else the one match
    ignoring case); InputError at the map line otherwise."""
    found = _match(channel.column, list(columns))
    if found is None:
        same = [c for c in columns if loose_key(c) == loose_key(channel.column)]
        found = same[0] if len(same) == 1 else None
    if found is None:
        shown = ", ".join(repr(c) for c in list(columns)[:12])
        more = " ..." if len(columns) > 12 else ""
        raise InputError(
            f"the log has no column {channel.column!r} (for {channel.name})."
            + suggest(channel.column, list(columns), corner=corner_of(channel.name)),
            where=channel.column_where or channel.where,
            hint=f"the log's columns: {shown}{more}",
        )
    return replace(channel, column=found)


# -- reading ------------------------------------------------------------------------------
def load_map(path: str | os.PathLike[str]) -> ChannelMap:
    """Read a replay map file (InputError at file:line for anything wrong)."""
    p = Path(path)
    if not p.is_file():
        raise InputError("no such map file", where=str(p), hint=MAP_HINT)
    if p.suffix.lower() not in (".yaml", ".yml"):
        raise InputError(
            f"a replay map is a .yaml file, not {p.suffix or '(no ending)'}",
            where=str(p),
            hint=MAP_HINT,
        )
    file = str(p)
    loader = SweepLoader(read_text(p, "map file"))
    try:
        root = yaml_root(loader, file, "docs/replay.md")
        if root is None:
            raise InputError("the map file is empty", where=file, hint=MAP_HINT)
        return _read(Node(root, file, loader), file)
    finally:
        loader.dispose()


def _keys(items: dict[str, tuple[Node, Node]], allowed: Sequence[str], what: str) -> None:
    for key, (knode, _) in items.items():
        if key not in allowed:
            knode.fail(
                f"{what}: unknown key {key!r}." + did_you_mean(key, allowed),
                hint="keys: " + ", ".join(allowed),
            )


def _read(root: Node, file: str) -> ChannelMap:
    top = root.mapping("the map file")
    _keys(top, TOP_KEYS, "the map file")
    if "version" in top and top["version"][1].value() != VERSION:
        top["version"][1].fail(f"unsupported version {top['version'][1].value()!r}")
    if "time" not in top:
        raise InputError("no 'time:' entry", where=f"{file}:{root.line}", hint=MAP_HINT)
    if "dampers" not in top:
        raise InputError("no 'dampers:' entry", where=f"{file}:{root.line}", hint=MAP_HINT)
    time = _channel("time", top["time"][0], top["time"][1], "time")
    out = ChannelMap(path=file, time=time, top_where=top["dampers"][0].where)
    for name, (knode, vnode) in top["dampers"][1].mapping("dampers").items():
        out.damper_where[name] = knode.where
        if isinstance(vnode.node, yaml.MappingNode) and "fixed" in vnode.mapping(name):
            items = vnode.mapping(name)
            _keys(items, ("fixed",), f"damper {name}")
            value = _number(items["fixed"][1], f"{name}: fixed", FIXED_HINT)
            out.fixed[name] = value
            out.fixed_where[name] = items["fixed"][1].where
            continue
        out.dampers[name] = _channel(name, knode, vnode, "length", DAMPER_KINDS)
    if "steering" in top:
        knode, vnode = top["steering"]
        out.steering = _channel("steering", knode, vnode, "steering", STEERING_KINDS)
    if "chassis" in top:
        for axis, (knode, vnode) in top["chassis"][1].mapping("chassis").items():
            if axis not in CHASSIS_KEYS:
                knode.fail(
                    f"chassis: unknown axis {axis!r}." + did_you_mean(axis, CHASSIS_KEYS),
                    hint="chassis axes: heave (mm, + up), roll (deg, + left side up), "
                    "pitch (deg, + nose down)",
                )
            out.chassis[axis] = _channel(
                axis, knode, vnode, "length" if axis == "heave" else "angle"
            )
    if "zero" in top:
        out.zero = _zero(top["zero"][1])
    return out


def _zero(node: Node) -> Zero:
    items = node.mapping("zero")
    _keys(items, ZERO_KEYS, "zero")
    for key in ("from", "to"):
        if key not in items:
            node.fail(f"zero: no '{key}' (s)", hint=ZERO_HINT)
    start = _number(items["from"][1], "zero: from", ZERO_HINT)
    stop = _number(items["to"][1], "zero: to", ZERO_HINT)
    if not stop > start:
        items["to"][1].fail(f"zero: 'to' ({stop:g} s) must be after 'from' ({start:g} s)")
    steering = False
    if "steering" in items:
        value = items["steering"][1].value()
        if not isinstance(value, bool):
            items["steering"][1].fail("zero: steering must be true or false")
        steering = value
    return Zero(start, stop, steering, node.where)


def _channel(
    name: str,
    knode: Node,
    node: Node,
    quantity: str,
    kinds: Sequence[str] = (),
) -> Channel:
    """One channel entry: ``{column: ..., unit: ..., gain: ..., offset: ..., kind: ...}``
    (a bare column name is accepted too, in the default unit)."""
    if isinstance(node.node, yaml.ScalarNode):
        items: dict[str, tuple[Node, Node]] = {"column": (knode, node)}
    else:
        items = node.mapping(name)
        _keys(items, CHANNEL_KEYS if kinds else CHANNEL_KEYS[:-1], name)
    if "column" not in items:
        node.fail(f"{name}: no 'column' (the log's column name)", hint=MAP_HINT)
    cnode = items["column"][1]
    column = cnode.text(f"{name}: column").strip()
    if not column:
        cnode.fail(f"{name}: blank column name")
    gain = _number(items["gain"][1], f"{name}: gain", GAIN_HINT) if "gain" in items else 1.0
    offset = _number(items["offset"][1], f"{name}: offset", GAIN_HINT) if "offset" in items else 0.0
    if gain == 0.0:
        items["gain"][1].fail(f"{name}: gain must not be 0")
    kind = items["kind"][1].text(f"{name}: kind").strip() if "kind" in items else ""
    if kind and kind not in kinds:
        items["kind"][1].fail(
            f"{name}: unknown kind {kind!r}." + did_you_mean(kind, kinds),
            hint="kinds: " + ", ".join(kinds),
        )
    unit_node = items["unit"][1] if "unit" in items else None
    unit = unit_node.text(f"{name}: unit").strip() if unit_node is not None else ""
    if quantity == "steering":
        if not kind:
            kind = "rack" if unit and _is_length(unit) else "steering_wheel"
        quantity = "length" if kind == "rack" else "angle"
    if quantity == "length" and not kind and kinds:
        kind = "stroke"
    where_unit = unit_node.where if unit_node is not None else node.where
    factor, volts, unit = _unit(name, unit, quantity, where_unit)
    if volts and "gain" not in items:
        node.fail(
            f"{name}: a channel in {unit} needs a gain ({'mm' if quantity == 'length' else 'deg'}"
            " per volt)",
            hint=f"{name}: {{column: ..., unit: V, gain: 15.0, offset: -37.5}}",
        )
    return Channel(
        name=name,
        column=column,
        quantity=quantity,  # type: ignore[arg-type]
        unit=unit,
        gain=gain,
        offset=offset,
        factor=factor,
        volts=volts,
        kind=kind,
        where=knode.where,
        column_where=cnode.where,
    )


def _number(node: Node, what: str, hint: str) -> float:
    """A finite number at `node` (InputError at its line with a replay hint otherwise)."""
    v = node.value()
    if isinstance(v, bool) or not isinstance(v, int | float):
        node.fail(f"{what} must be a number, found {v!r}", hint)
    try:
        value = float(v)
    except OverflowError:  # an integer with hundreds of digits
        value = math.inf
    if not math.isfinite(value):
        node.fail(f"{what} must be a finite number, found {node.source_text()}", hint)
    return value


def _is_length(unit: str) -> bool:
    found = find_unit(unit)
    return found is not None and found.kind == "length"


def _unit(name: str, unit: str, quantity: str, where: str) -> tuple[float, float, str]:
    """(factor to mm/deg/s, volts per raw unit or 0, canonical unit) of a channel."""
    default = {"length": "mm", "angle": "deg", "time": "s"}[quantity]
    if not unit:
        unit = default
    if quantity == "time":
        if unit not in TIME_UNITS:
            raise InputError(
                f"time: unknown unit {unit!r}." + did_you_mean(unit, list(TIME_UNITS)),
                where=where,
                hint="time units: " + ", ".join(TIME_UNITS),
            )
        return TIME_UNITS[unit], 0.0, unit
    if unit.casefold() in VOLT_UNITS:
        return 1.0, VOLT_UNITS[unit.casefold()], "V" if unit.casefold() == "v" else "mV"
    found = find_unit(unit)
    if found is None or found.kind != quantity:
        valid = ["mm", "cm", "m", "in"] if quantity == "length" else ["deg", "rad", "mrad"]
        other = f" (that is a unit of {found.kind})" if found is not None else ""
        raise InputError(
            f"{name}: unit {unit!r} is not a {quantity} unit{other}",
            where=where,
            hint=f"units: {', '.join(valid)}, or V / mV with a gain",
        )
    target = find_unit(default)
    assert target is not None
    return found.factor / target.factor, 0.0, found.name
