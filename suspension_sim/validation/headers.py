"""The header grammar of an export: quantity, location and unit of each column.

An export has one column per channel. A header names a **quantity**, a
**location** (corner or axle; motion channels have none) and a **unit**::

    header   := name [unit]
    name     := quantity [location] | location quantity
    unit     := "[" text "]" | "(" text ")"
    location := corner | axle
    corner   := Front Left | Front Right | Rear Left | Rear Right
                (also Left Front ..., FL FR RL RR, LF RF LR RR)
    axle     := Front | Rear

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

from suspension_sim import units
from suspension_sim.errors import InputError
from suspension_sim.validation.quantities import (
    AXLES,
    CANONICAL_UNIT,
    CORNER_CODES,
    CORNERS,
    DIMENSIONS,
    ChannelMap,
    ChannelRule,
    Dimension,
    Quantity,
)

# -- units ----------------------------------------------------------------------------
ANGLE_UNITS: dict[str, float] = {s: units.convert(1.0, s, "deg") for s in units.spellings("angle")}
"""deg per unit of angle (every spelling of the one unit table, `suspension_sim.units`)."""

LENGTH_UNITS: dict[str, float] = units.spellings("length")
"""mm per unit of length (every spelling of the one unit table, `suspension_sim.units`)."""

RATIO_UNITS: dict[str, float] = {"": 1.0, "-": 1.0, "mm/mm": 1.0, "m/m": 1.0, "ratio": 1.0}
"""Unit words accepted for a dimensionless channel."""

UNITS: dict[Dimension, dict[str, float]] = {
    "angle": ANGLE_UNITS,
    "length": LENGTH_UNITS,
    "ratio": RATIO_UNITS,
}


def unit_factor(unit: str | None, dimension: Dimension) -> float:
    """Factor from `unit` to mm/deg (1 for ratios); KeyError if not a unit of `dimension`.

    No unit (None or blank) means mm or deg (the OptimumK default). This is
    the only function that reads the unit tables.
    """
    if unit is None or not unit.strip():
        return 1.0
    key = unit.strip()
    table = UNITS[dimension]
    if key in table:
        return table[key]
    if key.lower() in table:
        return table[key.lower()]
    raise KeyError(key)


def known_unit(text: str) -> bool:
    """True if `text` is a unit of any dimension (used to spot a units row)."""
    if not text.strip():
        return False
    for dimension in DIMENSIONS:
        try:
            unit_factor(text, dimension)
        except KeyError:
            continue
        return True
    return False


def unit_list(dimension: Dimension) -> str:
    """Accepted units of a dimension, for error hints."""
    names = {"angle": "deg, rad", "length": "mm, cm, m, in", "ratio": "- (or none)"}
    return names[dimension]


# -- header parsing ---------------------------------------------------------------------
_UNIT_RE = re.compile(r"^(?P<name>.*?)\s*(?:\[(?P<u1>[^\]]*)\]|\((?P<u2>[^)]*)\))\s*$")
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


def tokens(text: str) -> tuple[str, ...]:
    """Lower-case words of a name (spaces, _ - . all separate words)."""
    return tuple(t for t in _SEP_RE.split(str(text).strip().lower()) if t)


def norm_name(text: str) -> str:
    """A name in matching form: lower case, single spaces (``"camber angle front left"``)."""
    return " ".join(tokens(text))


def split_unit(header: str) -> tuple[str, str | None]:
    """("Camber Angle Front Left", "deg") from ``"Camber Angle Front Left [deg]"``."""
    text = str(header).strip()
    m = _UNIT_RE.match(text)
    if not m:
        return text, None
    unit = m.group("u1") if m.group("u1") is not None else m.group("u2")
    return m.group("name").strip(), unit.strip()


def parse_location(words: tuple[str, ...]) -> str | None:
    """Canonical corner (``"Front Left"``) or axle (``"Front"``) for the words, else None."""
    if words in _CORNER_WORDS:
        return _CORNER_WORDS[words]
    if words in _AXLE_WORDS:
        return _AXLE_WORDS[words]
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
    name, unit = split_unit(text)
    if unit is None and unit_below is not None:
        unit = unit_below
    key = norm_name(name)
    if not key:
        return None
    rule = channel_map.channel_rules.get(key)
    found = match_quantity(name, channel_map)
    if found is None:
        if rule is None:
            return None
        return Header(str(text), name, unit, None, None, rule)
    quantity, loc_words = found
    location = parse_location(loc_words) if loc_words else None
    if loc_words and location is None:
        if rule is not None:  # the map names this exact column: trust it
            return Header(str(text), name, unit, None, None, rule)
        raise _location_error(text, where, quantity, " ".join(loc_words))
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
    elif quantity.scope == "axle":
        valid = "Front, Rear"
        example = f"'{quantity.name} Front [{CANONICAL_UNIT[quantity.dimension]}]'"
    else:
        valid = "none (a motion channel is for the whole car)"
        example = f"'{quantity.name} [{CANONICAL_UNIT[quantity.dimension]}]'"
    return InputError(
        f"column {text!r}: {words!r} is not a corner or axle name that {quantity.name!r} takes",
        where=where,
        hint=f"locations: {valid}; e.g. {example} (or map the column in a channel map file)",
    )


def _check_scope(text: str, where: str, quantity: Quantity, location: str | None) -> None:
    ok = {
        "corner": location in CORNERS,
        "axle": location in AXLES,
        "motion": location is None,
        "index": location is None,
    }[quantity.scope]
    if ok:
        return
    if quantity.scope == "corner":
        need = f"a corner ({', '.join(CORNERS)})"
    elif quantity.scope == "axle":
        need = "an axle (Front or Rear)"
    else:
        need = "no corner or axle"
    found = f"found {location!r}" if location else "found none"
    raise InputError(
        f"column {text!r}: {quantity.name!r} needs {need}, {found}",
        where=where,
        hint=f"e.g. '{quantity.name}"
        + {"corner": " Front Left", "axle": " Front"}.get(quantity.scope, "")
        + f" [{CANONICAL_UNIT[quantity.dimension]}]'",
    )
