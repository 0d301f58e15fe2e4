"""Channel-map files (.csv, .yaml): rename, re-sign, rescale or ignore export channels.

`load_channel_map(path)` reads one (docs/validation.md, "Map files") on top of
the default map (`suspension_sim.validation.quantities.DEFAULT_QUANTITIES`);
`default_map_markdown()` prints the default map as the table in the docs.
Every problem is an `InputError` naming the file and line (or YAML key).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from suspension_sim.errors import InputError
from suspension_sim.validation.headers import (
    match_quantity,
    norm_name,
    parse_location,
    split_unit,
    tokens,
)
from suspension_sim.validation.quantities import (
    CANONICAL_UNIT,
    CORNERS,
    DEFAULT_QUANTITIES,
    DIMENSIONS,
    ChannelMap,
    ChannelRule,
    Quantity,
)

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
        raise InputError(
            "no such map file", where=str(p), hint="check the path of the channel map file"
        )
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
        if dim is not None and dim not in DIMENSIONS:
            raise InputError(
                f"unknown dimension {dim!r}", where=where, hint="angle, length or ratio"
            )
        if key in target:
            raise InputError(f"channel {name!r} is mapped twice", where=where)
        target[key] = ChannelRule(metric, sign, scale, dim, f"{source} ({where})")
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


def optimumk_headers_markdown() -> str:
    """OptimumK's header names we read, and our column each is compared with (docs table).

    Columns are shown for wheels named FL/FR/RL/RR and a damper named
    ``FL_Damper``; a real car's names replace them (from the geometry).
    """
    from suspension_sim.metrics.catalogue import CATALOGUE, metric_of
    from suspension_sim.validation.headers import parse_header
    from suspension_sim.validation.quantities import CORNER_CODES, OPTIMUMK_HEADERS

    rows = [
        "| OptimumK header | read as | per | compared with (optimumk preset) |",
        "|---|---|---|---|",
    ]
    cmap = ChannelMap()
    for text in OPTIMUMK_HEADERS:
        h = parse_header(text, "docs", cmap)
        assert h is not None and h.quantity is not None and h.rule is not None, text
        q, metric = h.quantity, h.rule.metric or ""
        if q.scope == "motion":
            ours = {
                "heave": "chassis z (+ up)",
                "roll": "chassis roll (+ left up)",
                "pitch": "chassis pitch (+ nose down)",
                "steering": "rack = angle x Steering ratio (+ toward +Y)",
            }[metric]
            per = "motion input"
        else:
            m = CATALOGUE.get(metric)
            loc = h.location or ""
            if m is None:
                found = metric_of(metric)
                ours = f"`{metric}`" if found else metric
            elif m.scope == "wheel":
                ours = f"`{m.key(CORNER_CODES[loc], q.component)}`"
            elif m.scope == "damper":
                ours = f"`{m.key(CORNER_CODES[loc] + '_Damper')}`"
            elif m.scope in ("axle", "side"):
                ours = f"`{m.key(loc.lower())}`"
            else:
                ours = f"`{m.key()}`"
            per = q.scope
        rows.append(f"| `{text}` | {h.channel} | {per} | {ours} |")
    return "\n".join(rows)


def default_map_markdown() -> str:
    """The default map as a Markdown table (docs and README embed it)."""
    rows = [
        "| export quantity | also accepted | per | unit | our metric (optimumk preset) | note |",
        "|---|---|---|---|---|---|",
    ]
    for q in DEFAULT_QUANTITIES:
        per = {
            "corner": "corner",
            "axle": "axle",
            "side": "side",
            "car": "car",
            "motion": "motion input",
            "index": "step",
        }
        metric = f"`{q.metric}`" if q.metric else ""
        if q.component:
            metric += f" ({q.component})"
        rows.append(
            f"| {q.name} | {', '.join(q.aliases)} | {per[q.scope]} | "
            f"{CANONICAL_UNIT[q.dimension] if q.scope != 'index' else ''} | "
            f"{metric} | {q.note} |"
        )
    return "\n".join(rows)


def optimumk_channels_markdown() -> str:
    """Every OptimumK quantity validate knows (the registry), its definition, how it is
    compared and its tolerance: the docs table (docs/validation.md)."""
    from suspension_sim.validation.okregistry import registry
    from suspension_sim.validation.results import DEFAULT_TOLERANCES, RELATIVE_TOLERANCE

    unit_of = {"angle": "deg", "length": "mm", "percent": "%", "gain": "deg/mm", "ratio": ""}
    rows = [
        "| OptimumK quantity | per | unit | definition (OptimumK's, world axes) | compared |",
        "|---|---|---|---|---|",
    ]
    for e in registry():
        if e.scope == "input":
            how = "motion input (drives the car), not compared"
        elif e.status == "always blank":
            how = "listed: always blank in OptimumK"
        elif e.status != "established":
            how = "listed: OptimumK's definition not established"
        else:
            tol = DEFAULT_TOLERANCES[e.dimension]
            how = f"to {tol:g} {unit_of.get(e.dimension, '')}".rstrip()
            if e.dimension in ("ratio", "gain"):
                how += f" + {RELATIVE_TOLERANCE:g} x the largest value"
            if e.approximate and e.tolerance is not None:
                how = (
                    f"to {e.tolerance:g} {unit_of.get(e.dimension, '')} (approximate: close "
                    "to OptimumK, not exact)"
                )
            if e.conditions:
                how += f"; listed, not compared, {e.conditions}"
        definition = e.definition.replace("|", "/")
        rows.append(f"| {e.name} | {e.scope} | {e.unit} | {definition} | {how} |")
    return "\n".join(rows)
