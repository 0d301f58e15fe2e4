"""OptimumK export channels: the header grammar, units and the default channel map.

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
mm or deg (CONVENTIONS: OptimumK preset). Units may instead sit in a row of
their own right below the header row.

`DEFAULT_QUANTITIES` is the default map: export quantity -> our metric id
(`suspension_sim.metrics.catalogue`), compared in the ``optimumk`` sign preset.
A map file (`load_channel_map`) renames, re-signs, rescales or ignores
channels. Units after reading: mm and deg.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from suspension_sim.errors import InputError

Dimension = Literal["angle", "length", "ratio"]
Scope = Literal["corner", "axle", "motion", "index"]

CORNERS: tuple[str, ...] = ("Front Left", "Front Right", "Rear Left", "Rear Right")
"""Corner names as OptimumK writes them (CONVENTIONS: OptimumK preset)."""

AXLES: tuple[str, ...] = ("Front", "Rear")

CORNER_CODES: dict[str, str] = {
    "Front Left": "FL",
    "Front Right": "FR",
    "Rear Left": "RL",
    "Rear Right": "RR",
}

MOTION_KEYS: tuple[str, ...] = ("heave", "roll", "pitch", "rack", "steering_wheel")
"""Motion inputs an export can carry (mm for heave and rack, deg otherwise)."""


@dataclass(frozen=True)
class Quantity:
    """One export quantity and what it is compared with.

    name: the export's spelling (canonical); aliases: other accepted spellings.
    metric: our metric id (catalogue) for corner/axle channels, a key of
    `MOTION_KEYS` for motion channels, None for the step index.
    """

    name: str
    dimension: Dimension
    scope: Scope
    metric: str | None
    aliases: tuple[str, ...] = ()
    note: str = ""


DEFAULT_QUANTITIES: tuple[Quantity, ...] = (
    # motion (inputs of the motion drive)
    Quantity(
        "Heave",
        "length",
        "motion",
        "heave",
        ("Chassis Heave", "Heave Travel"),
        "chassis z at the reference point, + = up (droop); flip with a map if yours is + = bump",
    ),
    Quantity("Roll", "angle", "motion", "roll", ("Chassis Roll", "Roll Angle"), "+ = left up"),
    Quantity(
        "Pitch", "angle", "motion", "pitch", ("Chassis Pitch", "Pitch Angle"), "+ = nose down"
    ),
    Quantity(
        "Rack Travel",
        "length",
        "motion",
        "rack",
        ("Rack Displacement", "Rack Position", "Steering Rack Travel", "Rack"),
        "+ = rack toward +Y (left)",
    ),
    Quantity(
        "Steering Wheel Angle",
        "angle",
        "motion",
        "steering_wheel",
        ("Steering Wheel", "SWA", "Handwheel Angle", "Steering Input"),
        "rack = angle x the workbook's Steering ratio; + = rack toward +Y",
    ),
    # step index (kept for the report, never compared)
    Quantity("Step", "ratio", "index", None, ("Steps", "Index", "Sample", "Time", "Step Number")),
    # per corner
    Quantity("Camber Angle", "angle", "corner", "camber", ("Camber", "Inclination Angle")),
    Quantity(
        "Toe Angle", "angle", "corner", "toe", ("Toe",), "optimumk sign: + = toe-out (ours flipped)"
    ),
    Quantity(
        "Steer Angle",
        "angle",
        "corner",
        "steer",
        ("Steering Angle", "Wheel Steer Angle", "Road Wheel Angle", "Roadwheel Angle"),
        "toe minus static toe, toe-out positive (right wheel flipped from iso)",
    ),
    Quantity("Caster Angle", "angle", "corner", "caster", ("Caster", "Castor Angle", "Castor")),
    Quantity(
        "Kingpin Angle",
        "angle",
        "corner",
        "kpi",
        (
            "Kingpin Inclination",
            "Kingpin Inclination Angle",
            "KPI",
            "KPI Angle",
            "Steering Axis Inclination",
            "SAI",
        ),
    ),
    Quantity(
        "Scrub Radius",
        "length",
        "corner",
        "scrub_radius",
        ("Kingpin Offset at Ground", "Scrub"),
        "in the wheel's ground axes (CONVENTIONS)",
    ),
    Quantity(
        "Mechanical Trail",
        "length",
        "corner",
        "mechanical_trail",
        ("Trail", "Caster Trail", "Castor Trail", "Mechanical Trail at Ground"),
        "along the wheel's heading; OptimumK may measure along chassis X (differs with steer)",
    ),
    Quantity(
        "Spindle Length",
        "length",
        "corner",
        "spindle_length",
        ("Kingpin Offset at Hub", "Kingpin Offset at Wheel Centre", "Spindle Offset"),
    ),
    Quantity(
        "Damper Length",
        "length",
        "corner",
        "damper_length",
        ("Shock Length", "Damper Eye to Eye", "Shock Eye to Eye", "Coilover Length"),
        "the corner's damper (found from the geometry); also a drive input",
    ),
    Quantity(
        "Wheel Travel",
        "length",
        "corner",
        "wheel_travel",
        ("Vertical Wheel Travel", "Wheel Centre Travel", "Wheel Center Travel"),
        "wheel centre along chassis z from design, + = bump",
    ),
    Quantity("Half Track", "length", "corner", "half_track", ("Half Track Width",)),
    Quantity(
        "Motion Ratio",
        "ratio",
        "corner",
        "motion_ratio",
        ("Damper Motion Ratio", "Shock Motion Ratio"),
        "damper over wheel; map to installation_ratio if your export is wheel over damper",
    ),
    # per axle
    Quantity("Track", "length", "axle", "track", ("Track Width", "Wheel Track")),
    Quantity(
        "Roll Centre Height",
        "length",
        "axle",
        "roll_centre_height",
        ("Roll Center Height", "RC Height", "Roll Centre Z", "Roll Center Z"),
    ),
)
"""The default channel map (docs: validation/README.md and docs/validation.md)."""


# -- units ----------------------------------------------------------------------------
ANGLE_UNITS: dict[str, float] = {
    "deg": 1.0,
    "degree": 1.0,
    "degrees": 1.0,
    "°": 1.0,
    "º": 1.0,
    "rad": 180.0 / math.pi,
    "radian": 180.0 / math.pi,
    "radians": 180.0 / math.pi,
    "mrad": 0.18 / math.pi,
}
"""deg per unit of angle."""

LENGTH_UNITS: dict[str, float] = {
    "mm": 1.0,
    "millimetre": 1.0,
    "millimetres": 1.0,
    "millimeter": 1.0,
    "millimeters": 1.0,
    "cm": 10.0,
    "m": 1000.0,
    "metre": 1000.0,
    "metres": 1000.0,
    "meter": 1000.0,
    "meters": 1000.0,
    "in": 25.4,
    "inch": 25.4,
    "inches": 25.4,
    '"': 25.4,
}
"""mm per unit of length."""

RATIO_UNITS: dict[str, float] = {"": 1.0, "-": 1.0, "mm/mm": 1.0, "m/m": 1.0, "ratio": 1.0}
"""Unit words accepted for a dimensionless channel."""

UNITS: dict[Dimension, dict[str, float]] = {
    "angle": ANGLE_UNITS,
    "length": LENGTH_UNITS,
    "ratio": RATIO_UNITS,
}
CANONICAL_UNIT: dict[Dimension, str] = {"angle": "deg", "length": "mm", "ratio": "-"}


def unit_factor(unit: str | None, dimension: Dimension) -> float:
    """Factor from `unit` to mm/deg (1 for ratios); KeyError if not a unit of `dimension`.

    No unit (None or blank) means mm or deg (the OptimumK default).
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
    return any(_in_table(text, t) for t in UNITS.values())


def _in_table(text: str, table: Mapping[str, float]) -> bool:
    return text.strip() in table or text.strip().lower() in table


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
class ChannelRule:
    """How one export channel (or every channel of a quantity) is compared.

    metric: our metric id or full column (``camber_chassis`` or
    ``camber_chassis_FL_deg``), a motion key, or None to ignore the channel.
    Values are converted as ``ours = sign * scale * export (in mm/deg)``.
    """

    metric: str | None
    sign: float = 1.0
    scale: float = 1.0
    dimension: Dimension | None = None
    source: str = "default map"


@dataclass(frozen=True)
class ChannelMap:
    """Default quantities plus user overrides (from a map file).

    quantity_rules: by normalised quantity name (applies to every location);
    channel_rules: by normalised channel name (quantity + location, no unit);
    corners: export corner -> workbook wheel name.
    """

    quantities: tuple[Quantity, ...] = DEFAULT_QUANTITIES
    quantity_rules: Mapping[str, ChannelRule] = field(default_factory=dict)
    channel_rules: Mapping[str, ChannelRule] = field(default_factory=dict)
    corners: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None

    def aliases(self) -> list[tuple[tuple[str, ...], Quantity]]:
        """(words, quantity) for every spelling, longest first."""
        out = []
        for q in self.quantities:
            for spelling in (q.name, *q.aliases):
                out.append((tokens(spelling), q))
        out.sort(key=lambda item: len(item[0]), reverse=True)
        return out


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
    for spelling, q in channel_map.aliases():
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
        hint=f"locations: {valid}; e.g. {example} (or map the column in a --map file)",
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


# -- map files ----------------------------------------------------------------------------
MAP_COLUMNS = ("channel", "metric", "sign", "scale")
IGNORE_WORDS = {"ignore", "none", "skip", "-", "null"}


def load_channel_map(path: str | Path | None) -> ChannelMap:
    """The default map, overridden by a map file (.csv, .yaml or .yml) if given.

    CSV: header ``channel,metric,sign,scale`` (sign and scale optional; a blank
    metric keeps the default map's). YAML::

        channels:
          Camber Angle: {metric: camber_front_view}       # a whole quantity
          Toe Angle Front Left: {sign: -1}               # one channel
          Heave: {sign: -1}                              # + = bump in your export
          Roll Centre Height: ignore
        corners: {Front Left: LF, Front Right: RF}       # export corner -> wheel

    In CSV a corner row is ``corner Front Left,LF``. `channel` is a quantity
    name, a full channel name (quantity + corner/axle, no unit) or any header
    text of the export; metric is our metric id or column (docs/metrics.md), a
    motion key (heave, roll, pitch, rack, steering_wheel), or ``ignore``.
    """
    if path is None:
        return ChannelMap()
    p = Path(path)
    if not p.is_file():
        raise InputError("no such map file", where=str(p), hint="check the --map path")
    suffix = p.suffix.lower()
    if suffix == ".csv":
        entries, corners = _read_map_csv(p)
    elif suffix in (".yaml", ".yml"):
        entries, corners = _read_map_yaml(p)
    else:
        raise InputError(
            f"unknown map file type {suffix or '(none)'}",
            where=str(p),
            hint="write the map as .csv (channel,metric,sign,scale) or .yaml",
        )
    return build_channel_map(entries, corners, source=str(p))


MapEntry = tuple[str, dict[str, object], str]
"""(channel text, fields, where) as read from a map file."""


def build_channel_map(
    entries: Iterable[MapEntry],
    corners: Mapping[str, tuple[str, str]] | None = None,
    *,
    source: str = "map",
) -> ChannelMap:
    """A ChannelMap from map entries (see `load_channel_map`)."""
    base = ChannelMap()
    qrules: dict[str, ChannelRule] = {}
    crules: dict[str, ChannelRule] = {}
    for text, fields_, where in entries:
        name, _unit = split_unit(text)
        key = norm_name(name)
        if not key:
            raise InputError("blank channel name", where=where, hint="name an export channel")
        found = match_quantity(name, base)
        quantity: Quantity | None = None
        target = crules
        if found is not None:
            q, loc_words = found
            location = parse_location(loc_words) if loc_words else None
            if not loc_words:
                quantity, target = q, qrules
                key = norm_name(q.name)
            elif location is not None:
                quantity = q
                key = norm_name(f"{q.name} {location}")
        default_metric = quantity.metric if quantity else None
        raw_metric = fields_.get("metric", "__default__")
        if quantity is None and raw_metric == "__default__":
            raise InputError(
                f"{name!r} is not a channel of the default map, so it needs a metric",
                where=where,
                hint="give the metric to compare it with (e.g. camber_FL_deg), or 'ignore'",
            )
        metric = _metric_field(raw_metric, default_metric)
        sign = _number_field(fields_.get("sign"), 1.0, "sign", where)
        if sign not in (1.0, -1.0):
            raise InputError(f"sign must be 1 or -1, found {sign:g}", where=where)
        scale = _number_field(fields_.get("scale"), 1.0, "scale", where)
        if scale == 0 or not math.isfinite(scale):
            raise InputError("scale must be a finite, non-zero number", where=where)
        dim = fields_.get("dimension")
        if dim is not None and dim not in UNITS:
            raise InputError(
                f"unknown dimension {dim!r}", where=where, hint="angle, length or ratio"
            )
        if key in target:
            raise InputError(f"channel {name!r} is mapped twice", where=where)
        target[key] = ChannelRule(metric, sign, scale, dim, f"{source} ({where})")  # type: ignore[arg-type]
    corner_map: dict[str, str] = {}
    for corner_text, (wheel, where) in (corners or {}).items():
        corner = parse_location(tokens(corner_text))
        if corner not in CORNERS:
            raise InputError(
                f"{corner_text!r} is not a corner",
                where=where,
                hint=f"corners: {', '.join(CORNERS)}",
            )
        corner_map[corner] = str(wheel).strip()
    return replace(
        base, quantity_rules=qrules, channel_rules=crules, corners=corner_map, source=source
    )


def _metric_field(value: object, default: str | None) -> str | None:
    if value == "__default__":
        return default
    if value is None:
        return None
    text = str(value).strip()
    return None if not text or text.lower() in IGNORE_WORDS else text


def _number_field(value: object, default: float, what: str, where: str) -> float:
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{what} {value!r} is not a number", where=where) from None


def _read_map_csv(path: Path) -> tuple[list[MapEntry], dict[str, tuple[str, str]]]:
    import io

    from suspension_sim.textfiles import read_text

    rows = list(csv.reader(io.StringIO(read_text(path, "map file"), newline="")))
    if not rows:
        raise InputError("the map file is empty", where=str(path))
    head = [norm_name(c) for c in rows[0]]
    if "channel" not in head:
        raise InputError(
            f"the first row must be a header with 'channel' and 'metric', found {rows[0]}",
            where=f"{path}: line 1",
            hint="channel,metric,sign,scale",
        )
    unknown = [c for c in head if c and c not in MAP_COLUMNS and c != "dimension"]
    if unknown:
        raise InputError(
            f"unknown map column(s) {', '.join(unknown)}",
            where=f"{path}: line 1",
            hint="columns: channel, metric, sign, scale (dimension optional)",
        )
    entries: list[MapEntry] = []
    corners: dict[str, tuple[str, str]] = {}
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row) or row[0].strip().startswith("#"):
            continue
        rec = {h: (row[i].strip() if i < len(row) else "") for i, h in enumerate(head) if h}
        where = f"{path}: line {n}"
        channel = rec.get("channel", "")
        if norm_name(channel).startswith("corner "):
            corners[channel.strip()[len("corner") :].strip()] = (rec.get("metric", ""), where)
            continue
        fields_: dict[str, object] = {k: v for k, v in rec.items() if k != "channel"}
        if fields_.get("metric") == "":
            fields_.pop("metric")  # blank: the default map's metric
        entries.append((channel, fields_, where))
    return entries, corners


def _read_map_yaml(path: Path) -> tuple[list[MapEntry], dict[str, tuple[str, str]]]:
    try:
        import yaml
    except ImportError:
        raise InputError(
            "reading a YAML map needs the PyYAML package",
            where=str(path),
            hint="pip install pyyaml, or write the map as CSV",
        ) from None
    from suspension_sim.textfiles import read_text

    text = read_text(path, "map file")
    try:
        data = yaml.safe_load(text) or {}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise InputError(f"not valid YAML: {exc.problem}", where=where) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML: {exc}", where=str(path)) from None
    if not isinstance(data, dict) or not set(data) <= {"channels", "corners"}:
        raise InputError(
            "a YAML map has the keys 'channels' and/or 'corners'",
            where=str(path),
            hint="channels: {Camber Angle: {metric: camber}}",
        )
    entries: list[MapEntry] = []
    for channel, spec in (data.get("channels") or {}).items():
        where = f"{path}: channels.{channel}"
        if spec is None or isinstance(spec, str):
            fields_: dict[str, object] = {"metric": spec}
        elif isinstance(spec, dict):
            bad = set(spec) - {"metric", "sign", "scale", "dimension"}
            if bad:
                raise InputError(
                    f"unknown key(s) {', '.join(sorted(map(str, bad)))}",
                    where=where,
                    hint="keys: metric, sign, scale, dimension",
                )
            fields_ = dict(spec)
        else:
            raise InputError(
                f"expected a metric name or a mapping, found {spec!r}",
                where=where,
                hint="{metric: camber, sign: 1, scale: 1}",
            )
        entries.append((str(channel), fields_, where))
    corners = {
        str(k): (str(v), f"{path}: corners.{k}") for k, v in (data.get("corners") or {}).items()
    }
    return entries, corners


def default_map_markdown() -> str:
    """The default map as a Markdown table (docs and README embed it)."""
    rows = [
        "| export quantity | also accepted | per | unit | our metric (optimumk preset) | note |",
        "|---|---|---|---|---|---|",
    ]
    for q in DEFAULT_QUANTITIES:
        per = {"corner": "corner", "axle": "axle", "motion": "motion input", "index": "step"}
        rows.append(
            f"| {q.name} | {', '.join(q.aliases)} | {per[q.scope]} | "
            f"{CANONICAL_UNIT[q.dimension] if q.scope != 'index' else ''} | "
            f"{'`' + q.metric + '`' if q.metric else ''} | {q.note} |"
        )
    return "\n".join(rows)
