"""`compute_maps`: per corner, a grid of wheel travel x rack travel of the wheel's attitude.

Steered corners (the rack moves the wheel) get a grid over wheel travel x rack
travel; the others over wheel travel only. Every node is the state of
`suspension_sim.maps.solve` (single-wheel bump with the rack held, the chassis at
design), and all nodes of all corners are solved as a few batches (`solve_corners`).
The accuracy of the lookup (`suspension_sim.maps.lookup.Lookup`) is measured
against the native solve at every cell centre and kept with the map, per quantity.
Units: mm, deg (docs/conventions.md, iso preset).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.maps.fields import FIELD_NAMES
from suspension_sim.maps.lookup import Lookup, cubic_possible
from suspension_sim.maps.result import CornerMap, Maps
from suspension_sim.maps.solve import (
    Corner,
    Solved,
    choose_corners,
    design_half_tracks,
    solve_corners,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

Axis = tuple[float, float, int]
"""(first, last, count): `count` evenly spaced values, both ends included (mm)."""

DEFAULT_TRAVEL: Axis = (-30.0, 30.0, 41)
DEFAULT_RACK: Axis = (-20.0, 20.0, 41)
"""Rack axis when the workbook declares no Min/Max rack travel."""
MAX_NODES = 1001
"""Most values on one axis (a 1001 x 1001 grid is already a million states)."""
METHODS = ("linear", "cubic")


def check_axis(value: Sequence[float] | None, default: Axis, where: str) -> Axis:
    """(first, last, count) checked: finite, first < last, 2 <= count <= MAX_NODES."""
    if value is None:
        return default
    try:
        first, last, count = value
    except (TypeError, ValueError):
        raise InputError(
            f"expected three values MIN MAX N, got {value!r}", where=where, hint="e.g. -30 30 41"
        ) from None
    try:
        lo, hi = float(first), float(last)
    except (TypeError, ValueError):
        raise InputError(
            f"MIN and MAX must be numbers, got {first!r} {last!r}", where=where
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        raise InputError(
            f"MIN {first} must be a finite number below MAX {last}",
            where=where,
            hint="e.g. -30 30 41",
        )
    try:
        n = float(count)
    except (TypeError, ValueError):
        n = float("nan")
    if not n.is_integer() or not 2 <= n <= MAX_NODES:
        raise InputError(
            f"N must be a whole number from 2 to {MAX_NODES}, got {count!r}",
            where=where,
            hint="the number of grid values, both ends included (e.g. 41)",
        )
    return lo, hi, int(n)


def rack_axis(model: KinematicModel, rack: Sequence[float] | None) -> Axis | None:
    """The rack axis: as given, else the rack's declared Min/Max travel (41 values), else
    `DEFAULT_RACK`; None for a car without a rack."""
    if model.topology.rack_param is None or model.car.rack is None:
        if rack is not None:
            raise InputError(
                "this workbook has no steering rack", where="rack", hint="leave the rack axis out"
            )
        return None
    r = model.car.rack
    default = DEFAULT_RACK
    if r.min_travel is not None and r.max_travel is not None and r.min_travel < r.max_travel:
        default = (float(r.min_travel), float(r.max_travel), DEFAULT_RACK[2])
    return check_axis(rack, default, "rack")


def serpentine(nt: int, nr: int) -> tuple[np.ndarray, np.ndarray]:
    """Node indices (travel, rack) in boustrophedon order: each state is one step from
    the one before, so the batch's warm start from its neighbour stays close."""
    ti = np.repeat(np.arange(nt), nr)
    rj = np.tile(np.arange(nr), nt).reshape(nt, nr)
    rj[1::2] = rj[1::2, ::-1]
    return ti, rj.ravel()


def compute_maps(
    model: KinematicModel,
    travel: Sequence[float] | None = None,
    rack: Sequence[float] | None = None,
    corners: Sequence[str] | None = None,
    *,
    accuracy: bool = True,
    method: str = "auto",
) -> Maps:
    """Kinematic maps of every corner (or `corners`, wheel names).

    travel: (first, last, count) of wheel travel, mm (+ = bump; default -30, 30, 41);
    rack: (first, last, count) of rack travel, mm (+ toward +Y; default the rack's
    declared limits, else -20, 20, 41), for the corners the rack steers. accuracy: also
    solve every cell centre and record the lookup's error there per quantity (about
    doubles the time). method: solve_batch's engine ("auto", "compiled", "numpy").
    """
    import time

    t0 = time.perf_counter()
    t_axis = check_axis(travel, DEFAULT_TRAVEL, "travel")
    r_axis = rack_axis(model, rack)
    chosen = choose_corners(model, corners)
    tv = np.linspace(*t_axis[:2], t_axis[2])
    rv = None if r_axis is None else np.linspace(*r_axis[:2], r_axis[2])
    design = design_half_tracks(model, chosen)
    maps: dict[str, CornerMap] = {}
    for c, (values, reason) in _solve_grid(model, chosen, tv, rv, method).items():
        values["track_change"] = values["track_change"] - design[c.wheel]
        maps[c.wheel] = CornerMap(
            c, tv, rv if c.steered else None, values, reason, half_track_design=design[c.wheel]
        )
    if accuracy:
        _measure(model, maps, method)
    name = model.car.name
    source = model.car.source_path
    from pathlib import Path

    out = Maps(name, Path(source).name if source else None, maps)
    out.seconds = time.perf_counter() - t0
    return out


def _solve_grid(
    model: KinematicModel,
    corners: Sequence[Corner],
    tv: np.ndarray,
    rv: np.ndarray | None,
    method: str,
) -> dict[Corner, tuple[dict[str, np.ndarray], np.ndarray]]:
    """{corner: ({quantity: grid}, reasons)} at the nodes tv x rv (steered) or tv."""
    out: dict[Corner, tuple[dict[str, np.ndarray], np.ndarray]] = {}
    steered = [c for c in corners if c.steered and rv is not None]
    plain = [c for c in corners if c not in steered]
    if steered:
        assert rv is not None
        ti, rj = serpentine(len(tv), len(rv))
        found = solve_corners(model, steered, tv[ti], rv[rj], method)
        for c in steered:
            out[c] = _arrange(found[c.wheel], (len(tv), len(rv)), (ti, rj))
    if plain:
        found = solve_corners(model, plain, tv, np.zeros_like(tv), method)
        for c in plain:
            out[c] = _arrange(found[c.wheel], (len(tv),), (np.arange(len(tv)),))
    return out


def _arrange(
    s: Solved, shape: tuple[int, ...], index: tuple[np.ndarray, ...]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    values: dict[str, np.ndarray] = {}
    for name in FIELD_NAMES:
        grid = np.full(shape, np.nan)
        src = (
            s.stroke
            if name == "stroke"
            else s.values.get("half_track" if name == "track_change" else name)
        )
        assert src is not None
        grid[index] = src
        values[name] = grid
    reason = np.full(shape, "", dtype=object)
    reason[index] = s.reason
    return values, reason


def cell_centres(m: CornerMap) -> tuple[np.ndarray, np.ndarray]:
    """Travel and rack (mm) of every cell centre of a map, flattened (rack 0 without a
    rack axis)."""
    tc = 0.5 * (m.travel[1:] + m.travel[:-1])
    if m.rack is None:
        return tc, np.zeros_like(tc)
    rc = 0.5 * (m.rack[1:] + m.rack[:-1])
    t, r = np.meshgrid(tc, rc, indexing="ij")
    return t.ravel(), r.ravel()


def _measure(model: KinematicModel, maps: dict[str, CornerMap], method: str) -> None:
    """Native values at every cell centre against the lookup's, per quantity."""
    by_grid: dict[bool, list[CornerMap]] = {}
    for m in maps.values():
        by_grid.setdefault(m.rack is not None, []).append(m)
    for group in by_grid.values():
        first = group[0]
        tc, rc = cell_centres(first)
        if first.rack is not None:  # serpentine over the centres too
            ti, rj = serpentine(len(first.travel) - 1, len(first.rack) - 1)
            order = ti * (len(first.rack) - 1) + rj
            tc, rc = tc[order], rc[order]
        found = solve_corners(model, [m.corner for m in group], tc, rc, method)
        for m in group:
            s = found[m.name]
            truth = {name: s.values.get(name) for name in FIELD_NAMES}
            truth["stroke"] = s.stroke
            truth["track_change"] = s.values["half_track"] - m.half_track_design
            m.accuracy = _errors(m, tc, rc, truth)  # type: ignore[arg-type]


def _errors(
    m: CornerMap, tc: np.ndarray, rc: np.ndarray, truth: dict[str, np.ndarray]
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    preds = {}
    for meth in METHODS:
        if meth == "cubic" and not cubic_possible(m):
            continue
        lk = Lookup(_bare(m), method=meth, outside="nan")
        preds[meth] = lk.compute(tc, rc).values
    for name in FIELD_NAMES:
        entry: dict[str, Any] = {"linear": None, "cubic": None}
        cells = 0
        for meth, pred in preds.items():
            err = pred[name] - truth[name]
            ok = np.isfinite(err)
            cells = int(ok.sum())
            if cells:
                entry[meth] = {
                    "max": float(np.max(np.abs(err[ok]))),
                    "rms": float(np.sqrt(np.mean(err[ok] ** 2))),
                }
        entry["cells"] = cells
        lin, cub = entry["linear"], entry["cubic"]
        better = cub is not None and lin is not None
        better = better and cub["max"] <= lin["max"] and cub["rms"] < lin["rms"]
        entry["method"] = "cubic" if better else "linear"  # cubic where it is measurably better
        out[name] = entry
    return out


def _bare(m: CornerMap) -> Maps:
    """A Maps holding only `m` (for a lookup over it)."""
    return Maps("", None, {m.name: m})
