"""The header grammar of an export: quantity, location and unit of each column.

An export has one column per channel. A header names a **quantity**, a
**location** (corner or axle; motion channels have none) and a **unit**::

    header   := name [unit] | quantity tag+ ["(" unit ")"]     (OptimumK)
    name     := quantity [location] | location quantity
    unit     := "[" text "]" | "(" text ")"
    tag      := "[" location-or-motion word(s) "]"
    location := corner | axle | side
    corner   := Front Left | Front Right | Rear Left | Rear Right
                (also Left Front ..., FL FR RL RR, LF RF LR RR)
    axle     := Front | Rear
    side     := Left | Right

OptimumK writes ``Camber Angle [Left] [Front] (deg)`` (v2.x: side, then
axle), ``Camber Angle [Front Left] (deg)`` (older), ``Roll Center Z [Front]``,
``Wheelbase [Left]`` and ``Motion [Heave]``: square-bracket tags that hold
locations or motions are part of the name, the round bracket is the unit.
A tagged header that matches no quantity cleanly is not compared (never an
error): it is one of OptimumK's many channels we do not compute.

Matching ignores case and treats spaces, ``_``, ``-`` and ``.`` alike, so
``Camber Angle Front Left [deg]``, ``front_left camber angle (rad)`` and
``Camber Angle FL [°]`` are the same channel. A header without a unit is in
mm or deg (docs/conventions.md: OptimumK preset). Units may instead sit in a
row of their own right below the header row. Every unit is converted by
`unit_factor`, the one function that reads the unit tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from suspension_sim.errors import InputError
from suspension_sim.validation.export_units import (
    unit_factor,
    unit_list,
)
from suspension_sim.validation.okheaders import OkHeader, norm_words, parse_optimumk_header
from suspension_sim.validation.quantities import (
    AXLES,
    CANONICAL_UNIT,
    CORNER_CODES,
    CORNERS,
    SIDES,
    ChannelMap,
    ChannelRule,
    Dimension,
    Quantity,
)

# -- header parsing ---------------------------------------------------------------------
_UNIT_RE = re.compile(r"^(?P<name>.*?)\s*(?:\[(?P<u1>[^\]]*)\]|\((?P<u2>[^)]*)\))\s*$")
_TAGGED_RE = re.compile(
    r"^(?P<name>[^\[\]()]*?)\s*(?P<tags>(?:\[[^\[\]]*\]\s*)+)(?:\((?P<unit>[^()]*)\))?\s*$"
)
_TAG_RE = re.compile(r"\[([^\[\]]*)\]")
MOTION_TAGS = frozenset({"heave", "roll", "pitch", "steering", "steer"})
"""Words of OptimumK's motion tags (``Motion [Heave]``)."""
_SEP_RE = re.compile(r"[\s_\-.]+")

_CORNER_WORDS: dict[tuple[str, ...], str] = {}
for _corner in CORNERS:
    _ax, _side = _corner.lower().split()
    _CORNER_WORDS[(_ax, _side)] = _corner
    _CORNER_WORDS[(_side, _ax)] = _corner
    _code = CORNER_CODES[_corner].lower()
    _CORNER_WORDS[(_code,)] = _corner
    _CORNER_WORDS[(_code[::-1],)] = _corner
_AXLE_WORDS: dict[tuple[str, ...], str] = {
    ("front",): "Front",
    ("rear",): "Rear",
    ("front", "axle"): "Front",
    ("rear", "axle"): "Rear",
    ("f",): "Front",
    ("r",): "Rear",
}
_SIDE_WORDS: dict[tuple[str, ...], str] = {
    ("left",): "Left",
    ("right",): "Right",
    ("left", "side"): "Left",
    ("right", "side"): "Right",
}


def tokens(text: str) -> tuple[str, ...]:
    """Lower-case words of a name (spaces, _ - . all separate words)."""
    return tuple(t for t in _SEP_RE.split(str(text).strip().lower()) if t)


def norm_name(text: str) -> str:
    """A name in matching form: lower case, single spaces (``"camber angle front left"``)."""
    return " ".join(tokens(text))


def split_tagged(header: str) -> tuple[str, str | None] | None:
    """(name with its tags as words, unit) of an OptimumK tagged header, else None.

    ``"Camber Angle [Left] [Front] (deg)"`` -> ``("Camber Angle Left Front", "deg")``,
    ``"Motion [Heave]"`` -> ``("Motion Heave", None)``. Tags must hold location or
    motion words; ``"Camber Angle [deg]"`` is not tagged (its bracket is a unit).
    """
    m = _TAGGED_RE.match(str(header).strip())
    if not m or not m.group("name").strip():
        return None
    tags = [tag.strip() for tag in _TAG_RE.findall(m.group("tags"))]
    for tag in tags:
        words = tokens(tag)
        if not words:
            return None
        if not (parse_location(words) is not None or set(words) <= MOTION_TAGS):
            return None
    unit = m.group("unit")
    name = " ".join([m.group("name").strip(), *tags])
    return name, (unit.strip() if unit is not None else None)


def split_unit(header: str) -> tuple[str, str | None]:
    """("Camber Angle Front Left", "deg") from ``"Camber Angle Front Left [deg]"``.

    OptimumK's tagged headers keep their tags as words (`split_tagged`).
    """
    text = str(header).strip()
    tagged = split_tagged(text)
    if tagged is not None:
        return tagged
    m = _UNIT_RE.match(text)
    if not m:
        return text, None
    unit = m.group("u1") if m.group("u1") is not None else m.group("u2")
    return m.group("name").strip(), unit.strip()


def parse_location(words: tuple[str, ...]) -> str | None:
    """Canonical corner (``"Front Left"``), axle (``"Front"``) or side (``"Left"``), else None."""
    if words in _CORNER_WORDS:
        return _CORNER_WORDS[words]
    if words in _AXLE_WORDS:
        return _AXLE_WORDS[words]
    if words in _SIDE_WORDS:
        return _SIDE_WORDS[words]
    return None


@dataclass(frozen=True)
class Header:
    """A parsed header. `quantity` is None for a column matched only by a map rule."""

    text: str
    name: str  # header without the unit
    unit: str | None
    quantity: Quantity | None
    location: str | None
    rule: ChannelRule | None
    optimumk: OkHeader | None = None
    """The header in OptimumK's grammar, when it is one (its tags are its only location)."""

    @property
    def label(self) -> str:
        """The quantity as the export spells it, without the location (``CoilOver Length``).

        In OptimumK's grammar only the tags are the location: ``Front View Instant
        Center X [Left] [Front]`` keeps the word Front in its quantity."""
        if self.optimumk is not None and self.optimumk.kind != "motion":
            return self.optimumk.quantity
        return quantity_words(self.name, self.location) or (
            self.quantity.name if self.quantity is not None else self.name
        )

    @property
    def channel(self) -> str:
        """Canonical channel name without unit, e.g. ``"Camber Angle Front Left"``."""
        if self.quantity is None:
            return self.name
        return f"{self.quantity.name} {self.location}" if self.location else self.quantity.name


DIRECTION_WORDS = frozenset(
    {"front", "rear", "left", "right", "fl", "fr", "rl", "rr", "lf", "rf", "lr"}
)
"""Words that show a header meant to name a corner or axle."""
FILLER_WORDS = frozenset({"wheel", "tyre", "tire", "corner", "side"})
"""Words allowed around a location and ignored (``Front Left Wheel``)."""


def _location_split(words: tuple[str, ...], at_end: bool) -> tuple[str | None, tuple[str, ...]]:
    """(location, leftover) with the location at the end (or start) of `words`.

    The leftover words sit between the quantity and the location: they
    continue the quantity's name (``Camber [Gain] Front Left``).
    """
    core = tuple(w for w in words if w not in FILLER_WORDS)
    for n in (2, 1):
        if len(core) >= n:
            part, rest = (core[-n:], core[:-n]) if at_end else (core[:n], core[n:])
            loc = parse_location(part)
            if loc is not None:
                return loc, rest
    return None, core


def spellings(channel_map: ChannelMap) -> list[tuple[tuple[str, ...], Quantity]]:
    """(words, quantity) for every spelling of every quantity of the map, longest first."""
    out = [
        (tokens(spelling), q) for q in channel_map.quantities for spelling in (q.name, *q.aliases)
    ]
    out.sort(key=lambda item: len(item[0]), reverse=True)
    return out


def match_quantity(name: str, channel_map: ChannelMap) -> tuple[Quantity, tuple[str, ...]] | None:
    """(quantity, location words) if a known quantity starts or ends the name.

    The rest of the name must be a location (or nothing). When it is a location
    plus other words (``Camber Gain Front Left`` against ``Camber``), the header
    is another quantity and does not match. When it names no valid location but
    uses direction words (``Camber Angle Front Middle``), the match is returned
    so that the caller can report the bad location.
    """
    words = tokens(name)
    bad: tuple[Quantity, tuple[str, ...]] | None = None
    for spelling, q in spellings(channel_map):
        n = len(spelling)
        if words[:n] == spelling:
            rest, at_end = words[n:], True
        elif n < len(words) and words[-n:] == spelling:
            rest, at_end = words[:-n], False
        else:
            continue
        core = tuple(w for w in rest if w not in FILLER_WORDS)
        if not core:
            return q, ()
        loc, leftover = _location_split(rest, at_end)
        if loc is not None and not leftover:
            return q, core
        if loc is None and bad is None and DIRECTION_WORDS & set(core):
            bad = (q, core)
    return bad


def parse_header(
    text: str, where: str, channel_map: ChannelMap, unit_below: str | None = None
) -> Header | None:
    """Parse one header cell; None if it is not a channel we know (ignored column).

    Raises InputError (naming `where`) for a known quantity with an unknown
    location, a location it does not take, or a unit that is not one of its
    dimension. `unit_below` is the unit from a units row, if the export has one.
    """
    tagged = split_tagged(str(text)) is not None
    ok = parse_optimumk_header(text) if tagged else None
    if ok is not None and ok.kind != "motion":
        return _parse_tagged(str(text), where, channel_map, ok)
    name, unit = split_unit(text)
    if unit is None and unit_below is not None:
        unit = unit_below
    key = norm_name(name)
    if not key:
        return None
    rule = channel_map.channel_rules.get(key)
    found = match_quantity(name, channel_map)
    if found is not None and not found[1] and found[0].scope == "side":
        ok_car = parse_optimumk_header(text)
        if ok_car is not None and ok_car.kind == "car" and rule is None:
            # OptimumK's car-level Wheelbase (the mean of the sides): no column of the
            # default map; listed as not compared, never refused
            return None
    if found is None:
        if rule is None:
            return None
        return Header(str(text), name, unit, None, name_location(name), rule)
    quantity, loc_words = found
    location = parse_location(loc_words) if loc_words else None
    if location is None and not loc_words and quantity.default_location is not None:
        location = quantity.default_location
    if loc_words and location is None:
        if rule is not None:  # the map names this exact column: trust it
            return Header(str(text), name, unit, None, name_location(name), rule)
        if tagged:  # one of OptimumK's channels that we do not compute
            return None
        raise _location_error(text, where, quantity, " ".join(loc_words))
    if tagged and not _scope_ok(quantity, location):
        return None
    _check_scope(text, where, quantity, location)
    if rule is None and location is not None:
        rule = channel_map.channel_rules.get(norm_name(f"{quantity.name} {location}"))
    if rule is None:
        rule = channel_map.quantity_rules.get(norm_name(quantity.name))
    if rule is None:
        rule = ChannelRule(quantity.metric)
    header = Header(str(text), name, unit, quantity, location, rule)
    if rule.metric is not None and quantity.scope != "index":
        check_unit(header, rule.dimension or quantity.dimension, where)
    return header


def _parse_tagged(text: str, where: str, channel_map: ChannelMap, ok: OkHeader) -> Header | None:
    """A header in OptimumK's tag grammar read through a channel map: the quantity is the
    whole name before the tags (a spelling of the map, words matched exactly), the
    location only the tags. A quantity the map does not have, or a location it does not
    take, is not compared (None), never an error: OptimumK writes hundreds of channels."""
    location = ok.location
    words = norm_words(ok.quantity)
    name = f"{ok.quantity} {location}" if location else ok.quantity
    written = split_tagged(text)  # the tags as words in the order written
    rule = next(
        (
            channel_map.channel_rules[k]
            for k in (norm_name(name), norm_name(written[0] if written else name))
            if k in channel_map.channel_rules
        ),
        None,
    )
    quantity = next(
        (
            q
            for q in channel_map.quantities
            if words in {norm_words(s) for s in (q.name, *q.aliases)}
        ),
        None,
    )
    if quantity is None:
        if rule is None:
            return None
        return Header(text, name, ok.unit, None, location, rule, ok)
    if location is None and quantity.default_location is not None:
        location = quantity.default_location
    if not _scope_ok(quantity, location):
        return None
    if rule is None and location is not None:
        rule = channel_map.channel_rules.get(norm_name(f"{quantity.name} {location}"))
    if rule is None:
        rule = channel_map.quantity_rules.get(norm_name(quantity.name))
    if rule is None:
        rule = ChannelRule(quantity.metric)
    header = Header(text, name, ok.unit, quantity, location, rule, ok)
    if rule.metric is not None and quantity.scope != "index":
        check_unit(header, rule.dimension or quantity.dimension, where)
    return header


def name_location(name: str) -> str | None:
    """The corner, axle or side that ends (or starts) a header name, if any.

    Keeps the location of a column that only a map file names
    (``Bump Steer Front Left`` mapped to ``bump_steer``), so it is compared with
    that corner's column and reported with its corner.
    """
    words = tuple(w for w in tokens(name) if w not in FILLER_WORDS)
    for n in (2, 1):
        if len(words) > n:
            for part in (words[-n:], words[:n]):
                loc = parse_location(part)
                if loc is not None:
                    return loc
    return None


def quantity_words(name: str, location: str | None) -> str:
    """`name` without the words of `location` (``Camber Angle Left Front`` -> ``Camber Angle``)."""
    if location is None:
        return name
    loc_words = set(tokens(location)) | {CORNER_CODES.get(location, "").lower()}
    loc_words |= {w[::-1] for w in loc_words if len(w) == 2}
    kept = [w for w in name.split() if not set(tokens(w)) <= loc_words]
    return " ".join(kept)


def check_unit(header: Header, dimension: Dimension, where: str) -> float:
    """The header's unit factor to mm/deg; InputError naming the column if unknown."""
    try:
        return unit_factor(header.unit, dimension)
    except KeyError:
        raise InputError(
            f"column {header.text!r}: unknown unit {header.unit!r} for a"
            f"{'n' if dimension == 'angle' else ''} {dimension} channel",
            where=where,
            hint=f"use one of {unit_list(dimension)} in the header, e.g. "
            f"'{header.name} [{CANONICAL_UNIT[dimension]}]'",
        ) from None


def _location_error(text: str, where: str, quantity: Quantity, words: str) -> InputError:
    if quantity.scope == "corner":
        valid = ", ".join(CORNERS)
        example = f"'{quantity.name} Front Left [{CANONICAL_UNIT[quantity.dimension]}]'"
    elif quantity.scope in ("axle", "car"):
        valid = "Front, Rear"
        example = f"'{quantity.name} Front [{CANONICAL_UNIT[quantity.dimension]}]'"
    elif quantity.scope == "side":
        valid = "Left, Right"
        example = f"'{quantity.name} Left [{CANONICAL_UNIT[quantity.dimension]}]'"
    else:
        valid = "none (a motion channel is for the whole car)"
        example = f"'{quantity.name} [{CANONICAL_UNIT[quantity.dimension]}]'"
    return InputError(
        f"column {text!r}: {words!r} is not a corner or axle name that {quantity.name!r} takes",
        where=where,
        hint=f"locations: {valid}; e.g. {example} (or map the column in a channel map file)",
    )


def _scope_ok(quantity: Quantity, location: str | None) -> bool:
    """True if `location` is one that `quantity` takes."""
    return {
        "corner": location in CORNERS,
        "axle": location in AXLES,
        "side": location in SIDES,
        "car": location is None or location in AXLES,
        "motion": location is None,
        "index": location is None,
    }[quantity.scope]


def _check_scope(text: str, where: str, quantity: Quantity, location: str | None) -> None:
    if _scope_ok(quantity, location):
        return
    if quantity.scope == "corner":
        need = f"a corner ({', '.join(CORNERS)})"
    elif quantity.scope == "axle":
        need = "an axle (Front or Rear)"
    elif quantity.scope == "side":
        need = "a side (Left or Right)"
    elif quantity.scope == "car":
        need = "no corner (or an axle)"
    else:
        need = "no corner or axle"
    found = f"found {location!r}" if location else "found none"
    raise InputError(
        f"column {text!r}: {quantity.name!r} needs {need}, {found}",
        where=where,
        hint=f"e.g. '{quantity.name}"
        + {"corner": " Front Left", "axle": " Front", "side": " Left"}.get(quantity.scope, "")
        + f" [{CANONICAL_UNIT[quantity.dimension]}]'",
    )
