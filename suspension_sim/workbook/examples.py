"""The example cars: readable TOML sources turned into `Car` descriptions.

The sources live in ``suspension_sim/data/examples/<name>.toml`` so that an
installed package can still build the template workbook; the repository's
``workbooks/*.xlsx`` are generated from them by
``scripts/make_example_workbooks.py``.

TOML schema. Every length in the file is in ``[options] length_unit`` (a
length unit of `suspension_sim.units`: mm, cm, m or in) and every coordinate in the file's
own (CAD) axes, except the ``[options]`` keys ending in ``_mm``; angles in the
file are in degrees. The `Car` built always holds mm in the model frame,
converted exactly as the workbook reader converts, so a source and the
workbook generated from it compare equal.

``name``
    The car's name (the example's file stem).
``notes``
    Optional list of strings shown in the workbook's notes area.
``[options]``
    Any field of `Options` by its own name. ``axis_map`` is a 3x3 signed
    permutation whose rows are the model axes X, Y, Z written in file axes.
``symmetry``
    Optional: ``"mirror left to right"`` generates the right side from the left
    by the one naming rule of `suspension_sim.workbook.mirror` (the workbook's
    Symmetry option): every point, body, wheel and damper whose name has a left
    token (``FL_UCA_F``, ``RL_Damper``) gets a twin (``FR_UCA_F``) at model
    ``(x, -y, z)``; shared bodies (Chassis, Rack) receive the twins of their left
    points; the output order is FL.., FR.., RL.., RR... Default ``"none"``.
``[points]``
    ``NAME = [x, y, z]``, or ``NAME = "wheel"`` for a wheel centre or axis
    point that a ``[[wheels]]`` entry computes from its placement.
``[bodies]``
    ``NAME = ["POINT", ...]``. A point named on two bodies is a ball joint.
``[[wheels]]``
    ``name, body, centre, axis_point, tyre_radius, tyre_width`` and optional
    ``kingpin = [lower, upper]`` (points of any body: a strut's top mount is on
    the chassis). With ``contact = [x, y, z]``,
    ``camber_deg``, ``toe_deg`` and ``axis_offset`` the centre and axis points
    are computed so that the contact point sits exactly on the ground at the
    design condition (docs/conventions.md): ``C = CP + r (-sin g sin t,
    -side sin g cos t, cos g)`` with ``g = -camber``, ``t = toe`` and the axis
    point ``axis_offset`` inboard of C along the spin axis.
``[steering]``
    ``body``, ``end_points = [left, right]`` (left = larger model y) and
    optional ``ratio_mm_per_deg``.
``[[dampers]]``
    ``body, chassis_point, moving_point`` and either ``min_length`` /
    ``max_length`` or ``length_margin`` (min/max = design length -/+ margin);
    optional coil-over spring ``spring_rate`` (force unit per length unit) with
    ``spring_preload`` (force unit) or ``spring_free_length``.
``[[third_springs]]``
    ``name, end_points = [first, second]`` (points of any bodies), the length
    keys of a damper and ``spring_rate`` (required), ``spring_preload`` or
    ``spring_free_length``: a `ThirdSpring` (the workbook's Damping row of Type
    ``third``).
``[[anti_roll_bars]]``
    ``name, kind ("U-bar" | "T-bar"), arms = [...]`` (two arm bodies, or the
    T-bar's lever), ``axis_points = [first, second]`` (chassis points),
    ``shaft_point`` (T-bar only) and ``rate`` in (force unit)(length unit)/deg:
    an `AntiRollBar` (the workbook's Anti-roll Bars section). Bars are never
    mirrored; they may name right-side arms that symmetry generates.
``base``
    Optional: the name of another example this one extends. The base's source
    is read first and this file's content merged into it: ``[options]``,
    ``[points]`` and ``[bodies]`` key by key (an entry given here replaces the
    base's), ``[extend_bodies]`` ``NAME = ["POINT", ...]`` appends points to a
    body of the base (a rocker that gains a drop-link ball joint, the
    Chassis that gains mounts), the arrays of tables (``[[wheels]]``,
    ``[[dampers]]``, ``[[third_springs]]``, ``[[anti_roll_bars]]``) are
    appended, and ``name``, ``notes``, ``symmetry`` and ``[steering]`` replace
    the base's when given. A base may itself have a base (no cycles).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from suspension_sim import units
from suspension_sim.description import (
    CHASSIS,
    AntiRollBar,
    Body,
    Car,
    Damper,
    Options,
    Point,
    Rack,
    ThirdSpring,
    Wheel,
    damper_length,
)
from suspension_sim.errors import WorkbookError
from suspension_sim.names import did_you_mean
from suspension_sim.workbook.mirror import (
    SYMMETRY_CHOICES,
    SYMMETRY_MIRROR,
    SYMMETRY_NONE,
    mirror_car,
)

EXAMPLES: tuple[str, ...] = (
    "fsae_car",
    "fsae_car_arb",
    "template",
    "five_link_rear",
    "macpherson_front",
    "solid_axle_rear",
)
"""Names of the example cars (file stems of the sources and workbooks)."""

TEMPLATE = "template"
"""The example that ``suspension-sim new`` copies."""

WHEEL_PLACEHOLDER = "wheel"
"""`[points]` value for a point computed from a wheel's placement."""

Vec = tuple[float, float, float]


# -- locations ----------------------------------------------------------------
def source_dir() -> Path:
    """Folder holding the example sources (``<name>.toml``), inside the package."""
    return Path(__file__).resolve().parents[1] / "data" / "examples"


def source_path(name: str) -> Path:
    """Path of one example's TOML source; raises `KeyError` for unknown names."""
    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; known: {', '.join(EXAMPLES)}")
    return source_dir() / f"{name}.toml"


def workbooks_dir() -> Path:
    """The repository's ``workbooks/`` folder (next to the package folder).

    Only meaningful in a source checkout; an installed package has none.
    """
    return Path(__file__).resolve().parents[2] / "workbooks"


# -- public builders ----------------------------------------------------------
def load_source(name: str) -> Car:
    """Build the `Car` of one example from its TOML source (mm, model frame)."""
    return load_toml(source_path(name))


def source_notes(name: str) -> list[str]:
    """The ``notes`` lines of an example's source (its base's when it has none)."""
    return [str(line) for line in _read_source(source_path(name)).get("notes", [])]


def template_car() -> Car:
    """The four-corner car that ``suspension-sim new`` writes as a workbook."""
    return load_source(TEMPLATE)


def template_notes() -> list[str]:
    """Instructions written beside the index table of the template workbook."""
    return [
        "suspension_sim TEMPLATE: a complete four-corner Formula SAE car to edit (plausible"
        " numbers, not your car). Front: double wishbones, pushrod, rocker, damper, rack and"
        " tie rods. Rear: double wishbones, pullrod, rocker, damper and toe links. Full"
        " reference: docs/workbook.md.",
        "EDIT: replace the Hard Points by your car's (design condition), keep the names or"
        " rename them everywhere they appear (Components, Wheels, Steering, Damping).",
        "SYMMETRY: a symmetric car may be entered by its left side only: set User Options"
        " Symmetry to 'mirror left to right' and delete the right-side rows (FR_, RR_); every"
        " name with a left token (FL, RL, LF, LR, L, Left as a whole word) gets its right twin"
        " at Y -> -Y. check says what it generated. An asymmetric car keeps Symmetry 'none' and"
        " types both sides.",
        "SECTIONS: the Section | Range table on the left says where each section is"
        " (User Options, Components, Hard Points, Wheels, Steering, Damping); only those"
        " ranges are read, the first row of each being its header. Keep your own notes,"
        " sketches and calculations anywhere else.",
        "INDEX: when you add rows (points, bodies, wheels) or point columns, extend the"
        " section's range in the index table.",
        "UNITS: User Options set the length unit (mm, m, in) of every coordinate, tyre size,"
        " damper length, CG height and wheelbase (the two tolerances are always mm), and the"
        " angle unit of the steering ratio. Everything is converted once, on load.",
        "AXIS MAP: paste CAD coordinates as they are and give the model axes X (forward),"
        " Y (left), Z (up) in CAD axes, e.g. '+Z +X +Y' (= [[0 0 1] [1 0 0] [0 1 0]]) for a"
        " Y-up CAD frame whose Z points forward. Identity: '+X +Y +Z'. Ground is model Z = 0.",
        "HARD POINTS: every point's X, Y, Z at the design condition (ride height, straight"
        " ahead, every input zero). Names are free text but unique.",
        "JOINTS BY SHARED POINT NAME: Components lists each rigid body with all its points;"
        " a point named on two bodies is a ball joint between them. There is no joint table.",
        "CHASSIS: the body named exactly 'Chassis' lists every chassis-mounted point. A body"
        " sharing two points with it turns about the line through them (wishbone, rocker);"
        " a two-point body sharing one point is a link with a universal joint there (toe"
        " link); anything else (the upright) is free and held by its ball joints.",
        "WHEELS: the carrier body, a centre point and a point on the spin axis (both on the"
        " carrier, joined to nothing else), tyre radius and width, and the kingpin lower and"
        " upper points (the ball joints). Put the wheel centre at tyre radius x cos(camber)"
        " above the ground so the tyre touches Z = 0 at design.",
        "STEERING: the rack body and its end points, left (+Y) first; the rack slides along"
        " the line between them (input: rack travel, mm, + = toward +Y). Its end points are"
        " the inner tie-rod ball joints.",
        "DAMPING: each damper body has a chassis point and a moving point (eye to eye) and"
        " optional min/max lengths (input: stroke, mm, + = compression).",
        "SPRINGS AND BARS: Damping may add Spring rate | Spring preload | Spring free length"
        " columns and a last Type column (blank = damper, 'third' = a third/heave spring"
        " between two points, not a body). Anti-roll bars go in an optional 'Anti-roll Bars'"
        " section (U-bar arms or a T-bar lever, torsional rate in N mm/deg): add an index row"
        " for it; see workbooks/fsae_car_arb.xlsx and docs/workbook.md.",
        "Check the workbook with: suspension-sim check <this file>; then solve or sweep it.",
    ]


# -- TOML -> Car --------------------------------------------------------------
def load_toml(path: Path) -> Car:
    """Build a `Car` from a TOML source file (see module docstring for the schema)."""
    data = _read_source(path)
    where = str(path)
    options = _options(data.get("options", {}), where)
    scale = units.length_factor(options.length_unit)
    symmetry = _symmetry(data, where)

    raw_points = _table(data, "points", where)
    wheels_src = list(data.get("wheels", []))
    coords: dict[str, Vec] = {}
    for name, value in raw_points.items():
        if isinstance(value, str):
            if value != WHEEL_PLACEHOLDER:
                raise _error(where, f"[points] {name}", f"unknown placeholder {value!r}")
            continue
        coords[name] = _to_model(_vec(value, where, f"[points] {name}"), options)
    wheels = [_wheel(w, coords, raw_points, options, scale, where) for w in wheels_src]

    missing = [n for n, v in raw_points.items() if isinstance(v, str) and n not in coords]
    if missing:
        raise _error(where, "[points]", f"no wheel placement computes {', '.join(missing)}")

    points = tuple(Point(n, coords[n]) for n in raw_points)
    bodies = tuple(
        Body(str(name), tuple(str(p) for p in pts))
        for name, pts in _table(data, "bodies", where).items()
    )
    point_map = {p.name: p.xyz for p in points}
    rack = _rack(data.get("steering"), where)
    force = units.force_factor(options.force_unit)
    dampers = tuple(_damper(d, point_map, scale, force, where) for d in data.get("dampers", []))
    thirds = tuple(
        _third_spring(t, point_map, scale, force, where) for t in data.get("third_springs", [])
    )
    bars = tuple(_bar(b, scale, force, where) for b in data.get("anti_roll_bars", []))
    car = Car(
        name=str(data.get("name", path.stem)),
        options=options,
        points=points,
        bodies=bodies,
        wheels=tuple(wheels),
        rack=rack,
        dampers=dampers,
        third_springs=thirds,
        anti_roll_bars=bars,
        source_path=str(path),
    )
    if symmetry:
        car, _ = mirror_car(car, where)
    check_car(car, where)
    return car


def check_car(car: Car, where: str = "") -> None:
    """Structural checks on a description; raises `WorkbookError` on the first fault."""
    names = [p.name for p in car.points]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _error(where, "[points]", f"duplicate point names {dup}")
    known = set(names)
    body_names = [b.name for b in car.bodies]
    if CHASSIS not in body_names:
        raise _error(where, "[bodies]", f"no body named {CHASSIS!r}")
    if len(set(body_names)) != len(body_names):
        raise _error(where, "[bodies]", "duplicate body names")
    used: set[str] = set()
    for b in car.bodies:
        unknown = [p for p in b.points if p not in known]
        if unknown:
            raise _error(where, f"[bodies] {b.name}", f"unknown points {unknown}")
        if len(b.points) < 2 or len(set(b.points)) != len(b.points):
            raise _error(where, f"[bodies] {b.name}", "needs two or more distinct points")
        used.update(b.points)
    unused = [n for n in names if n not in used]
    if unused:
        raise _error(where, "[points]", f"points on no body: {unused}")
    for w in car.wheels:
        kingpin = [k for k in (w.kingpin_lower, w.kingpin_upper) if k is not None]
        if len(kingpin) == 1:
            raise _error(where, f"wheel {w.name}", "give both kingpin points or neither")
        _check_refs(car, where, f"wheel {w.name}", w.body, [w.centre, w.axis_point])
        used = {p for b in car.bodies for p in b.points}
        if any(k not in used for k in kingpin):
            raise _error(where, f"wheel {w.name}", f"kingpin points {kingpin} must be on a body")
    if car.rack is not None:
        left, right = car.rack.end_points
        _check_refs(car, where, "[steering]", car.rack.body, [left, right])
        if car.point(left)[1] <= car.point(right)[1]:
            raise _error(where, "[steering] end_points", "give the left (+y) end first")
    for d in car.dampers:
        _check_refs(car, where, f"damper {d.body}", d.body, [d.chassis_point, d.moving_point])
        if d.chassis_point not in car.body(CHASSIS).points:
            raise _error(where, f"damper {d.body}", f"{d.chassis_point} is not on the Chassis")
    used = {p for b in car.bodies for p in b.points}
    for t in car.third_springs:
        if t.name in body_names:
            raise _error(where, f"third spring {t.name}", "has the name of a body")
        if any(p not in used for p in t.end_points) or t.spring_rate is None:
            raise _error(
                where, f"third spring {t.name}", "needs two ends on bodies and a spring_rate"
            )
    for bar in car.anti_roll_bars:
        if any(a not in body_names for a in bar.arms):
            raise _error(where, f"anti-roll bar {bar.name}", f"unknown arm in {list(bar.arms)}")
        if any(p not in car.body(CHASSIS).points for p in bar.axis_points):
            raise _error(where, f"anti-roll bar {bar.name}", "axis points must be on the Chassis")


# -- helpers: reading ---------------------------------------------------------
def _read_toml(path: Path) -> dict[str, Any]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


_APPENDED = ("wheels", "dampers", "third_springs", "anti_roll_bars")
_MERGED = ("options", "points", "bodies")


def _read_source(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A source's TOML with its ``base`` merged in (module docstring, ``base``)."""
    data = _read_toml(path)
    base_name = data.pop("base", None)
    extend = data.pop("extend_bodies", {})
    if base_name is None:
        if extend:
            raise _error(str(path), "[extend_bodies]", "needs a base to extend")
        return data
    where = str(path)
    if base_name not in EXAMPLES:
        raise _error(
            where,
            "base",
            f"unknown example {base_name!r}." + did_you_mean(str(base_name), EXAMPLES),
        )
    base_path = source_path(str(base_name))
    if base_path in (*seen, path):
        raise _error(where, "base", f"{base_name!r} extends this file again (a cycle)")
    merged = _read_source(base_path, (*seen, path))
    for key in _MERGED:
        merged[key] = {**merged.get(key, {}), **data.pop(key, {})}
    for key in _APPENDED:
        merged[key] = [*merged.get(key, []), *data.pop(key, [])]
    for body, points in extend.items():
        if body not in merged["bodies"]:
            raise _error(where, f"[extend_bodies] {body}", "the base has no such body")
        merged["bodies"][body] = [*merged["bodies"][body], *points]
    merged.update(data)  # name, notes, symmetry, steering
    return merged


def _error(where: str, item: str, message: str) -> WorkbookError:
    return WorkbookError(message, where=f"{where}: {item}" if where else item)


def _table(data: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict) or not value:
        raise _error(where, f"[{key}]", "missing or empty table")
    return value


def _vec(value: Any, where: str, item: str) -> Vec:
    if not (isinstance(value, list) and len(value) == 3):
        raise _error(where, item, "expected [x, y, z]")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        raise _error(where, item, "coordinates must be numbers")
    return (float(value[0]), float(value[1]), float(value[2]))


def _symmetry(data: Mapping[str, Any], where: str) -> bool:
    """The top-level ``symmetry`` key: True to generate the right side (`mirror`)."""
    if "mirror" in data:
        raise _error(
            where, "[mirror]", f'replaced by the top-level key symmetry = "{SYMMETRY_MIRROR}"'
        )
    word = data.get("symmetry", SYMMETRY_NONE)
    if word not in SYMMETRY_CHOICES:
        raise _error(where, "symmetry", f"expected one of {', '.join(map(repr, SYMMETRY_CHOICES))}")
    return SYMMETRY_CHOICES[word]


def _options(table: Mapping[str, Any], where: str) -> Options:
    """`Options` from the ``[options]`` table (`Options` field names as keys)."""
    known = sorted(f.name for f in fields(Options))
    kwargs: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise _error(where, f"[options] {key}", "unknown option." + did_you_mean(key, known))
        kwargs[key] = float(value) if type(value) is int else value
    try:
        for key, parse in (
            ("length_unit", units.length_unit),
            ("angle_unit", units.angle_unit),
            ("force_unit", units.force_unit),
        ):
            if key in kwargs:
                kwargs[key] = parse(kwargs[key])
        if "axis_map" in kwargs:
            kwargs["axis_map"] = units.parse_axis_map(kwargs["axis_map"])
    except units.UnitError as exc:
        raise _error(where, "[options]", str(exc)) from None
    return Options(**kwargs)


def _to_model(xyz: Vec, options: Options) -> Vec:
    """File coordinates (file unit, file axes) -> model frame mm, as the reader does."""
    return units.workbook_to_model(xyz, options.length_unit, options.axis_map)


# -- helpers: wheels, rack, dampers -------------------------------------------
def wheel_points(
    contact: Vec, tyre_radius: float, camber: float, toe: float, axis_offset: float
) -> tuple[Vec, Vec]:
    """Wheel centre and axis point (mm, model frame) for a contact point on z = 0.

    camber, toe in rad (docs/conventions.md signs: negative camber = top inboard,
    positive toe = toe-in). The axis point lies `axis_offset` mm inboard of the
    centre on the spin axis. With ``g = -camber`` the outboard spin axis is
    ``s = (cos g sin t, side cos g cos t, sin g)`` and the centre is
    ``C = CP + r (-sin g sin t, -side sin g cos t, cos g)``, which puts the
    lowest point of the tyre circle exactly at CP.
    """
    side = 1.0 if contact[1] >= 0.0 else -1.0
    g, t = -camber, toe
    s = (math.cos(g) * math.sin(t), side * math.cos(g) * math.cos(t), math.sin(g))
    d = (-math.sin(g) * math.sin(t), -side * math.sin(g) * math.cos(t), math.cos(g))
    c = tuple(contact[i] + tyre_radius * d[i] for i in range(3))
    a = tuple(c[i] - axis_offset * s[i] for i in range(3))
    return (c[0], c[1], c[2]), (a[0], a[1], a[2])


def _wheel(
    src: Mapping[str, Any],
    coords: dict[str, Vec],
    raw_points: Mapping[str, Any],
    options: Options,
    scale: float,
    where: str,
) -> Wheel:
    name = str(src.get("name", "?"))
    item = f"[[wheels]] {name}"
    kingpin = src.get("kingpin", [None, None])
    if not (isinstance(kingpin, list) and len(kingpin) == 2):
        raise _error(where, f"{item} kingpin", "expected [lower, upper]")
    try:
        wheel = Wheel(
            name=name,
            body=str(src["body"]),
            centre=str(src["centre"]),
            axis_point=str(src["axis_point"]),
            tyre_radius=units.to_internal(src["tyre_radius"], scale),
            tyre_width=units.to_internal(src["tyre_width"], scale),
            kingpin_lower=kingpin[0],
            kingpin_upper=kingpin[1],
        )
    except KeyError as exc:
        raise _error(where, item, f"missing key {exc.args[0]!r}") from None
    if "contact" not in src:
        return wheel
    contact = _to_model(_vec(src["contact"], where, f"{item} contact"), options)
    if contact[2] != 0.0:
        raise _error(where, f"{item} contact", "the contact point must be on the ground (z = 0)")
    for key in (wheel.centre, wheel.axis_point):
        if raw_points.get(key) != WHEEL_PLACEHOLDER:
            raise _error(where, item, f'list {key} in [points] as "{WHEEL_PLACEHOLDER}"')
    centre, axis = wheel_points(
        contact,
        wheel.tyre_radius,
        math.radians(float(src.get("camber_deg", 0.0))),
        math.radians(float(src.get("toe_deg", 0.0))),
        units.to_internal(src.get("axis_offset", 50.0 / scale), scale),
    )
    coords[wheel.centre] = centre
    coords[wheel.axis_point] = axis
    return wheel


def _rack(src: Mapping[str, Any] | None, where: str) -> Rack | None:
    if src is None:
        return None
    ends = src.get("end_points", [])
    if len(ends) != 2:
        raise _error(where, "[steering] end_points", "give [left, right]")
    ratio = src.get("ratio_mm_per_deg")
    return Rack(
        body=str(src["body"]),
        end_points=(str(ends[0]), str(ends[1])),
        ratio_mm_per_deg=None if ratio is None else float(ratio),
    )


def _lengths(
    src: Mapping[str, Any],
    ends: tuple[str, str],
    points: Mapping[str, Vec],
    scale: float,
    where: str,
    item: str,
) -> tuple[float | None, float | None]:
    """min/max length (mm) from ``min_length``/``max_length`` or ``length_margin``."""
    if "length_margin" in src:
        if ends[0] not in points or ends[1] not in points:
            raise _error(where, item, "unknown end points")
        design = damper_length(points[ends[0]], points[ends[1]])
        margin = units.to_internal(src["length_margin"], scale)
        return design - margin, design + margin
    lo, hi = src.get("min_length"), src.get("max_length")
    return (
        None if lo is None else units.to_internal(lo, scale),
        None if hi is None else units.to_internal(hi, scale),
    )


def _spring(
    src: Mapping[str, Any], scale: float, force: float
) -> tuple[float | None, float | None, float | None]:
    """Spring rate (N/mm), preload (N) and free length (mm), as the reader converts them."""
    rate, preload, free = (
        src.get(k) for k in ("spring_rate", "spring_preload", "spring_free_length")
    )
    return (
        None if rate is None else units.to_internal(float(rate), force) / scale,
        None if preload is None else units.to_internal(float(preload), force),
        None if free is None else units.to_internal(float(free), scale),
    )


def _damper(
    src: Mapping[str, Any], points: Mapping[str, Vec], scale: float, force: float, where: str
) -> Damper:
    body = str(src.get("body", "?"))
    item = f"[[dampers]] {body}"
    try:
        chassis, moving = str(src["chassis_point"]), str(src["moving_point"])
    except KeyError as exc:
        raise _error(where, item, f"missing key {exc.args[0]!r}") from None
    lo, hi = _lengths(src, (chassis, moving), points, scale, where, item)
    rate, preload, free = _spring(src, scale, force)
    return Damper(
        body,
        chassis,
        moving,
        lo,
        hi,
        spring_rate=rate,
        spring_preload=preload,
        spring_free_length=free,
    )


def _third_spring(
    src: Mapping[str, Any], points: Mapping[str, Vec], scale: float, force: float, where: str
) -> ThirdSpring:
    name = str(src.get("name", "?"))
    item = f"[[third_springs]] {name}"
    ends = src.get("end_points", [])
    if not (isinstance(ends, list) and len(ends) == 2):
        raise _error(where, f"{item} end_points", "give [first, second]")
    pair = (str(ends[0]), str(ends[1]))
    lo, hi = _lengths(src, pair, points, scale, where, item)
    rate, preload, free = _spring(src, scale, force)
    return ThirdSpring(
        name, pair, lo, hi, spring_rate=rate, spring_preload=preload, spring_free_length=free
    )


def _bar(src: Mapping[str, Any], scale: float, force: float, where: str) -> AntiRollBar:
    """An ``[[anti_roll_bars]]`` entry; ``rate`` in (force unit)(length unit)/deg -> N mm/rad."""
    name = str(src.get("name", "?"))
    item = f"[[anti_roll_bars]] {name}"
    try:
        arms, axis, rate = src["arms"], src["axis_points"], float(src["rate"])
        kind = str(src["kind"])
    except KeyError as exc:
        raise _error(where, item, f"missing key {exc.args[0]!r}") from None
    if not (isinstance(axis, list) and len(axis) == 2) or not isinstance(arms, list):
        raise _error(where, item, "arms = [...] and axis_points = [first, second]")
    shaft = src.get("shaft_point")
    return AntiRollBar(
        name,
        kind,
        tuple(str(a) for a in arms),
        (str(axis[0]), str(axis[1])),
        rate * force * scale / units.angle_factor("deg"),
        None if shaft is None else str(shaft),
    )


def _check_refs(car: Car, where: str, item: str, body: str, pts: Sequence[str]) -> None:
    try:
        owner = car.body(body)
    except KeyError:
        raise _error(where, item, f"unknown body {body!r}") from None
    bad = [p for p in pts if p not in owner.points]
    if bad:
        raise _error(where, item, f"points {bad} are not on body {body}")
