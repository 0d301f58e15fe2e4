"""Two backends behind one call: `Lookup` (interpolates a map) and `Native` (solves).

Both answer ``compute(travel, steer)`` for one corner: travel = wheel travel (mm,
+ = bump), steer = rack travel (mm, + toward +Y; ignored by a corner the rack does
not steer, whose map has no rack axis), scalars or arrays (broadcast together). The
answer is a `MapValues`: every quantity of `suspension_sim.maps.fields.FIELDS` (mm,
deg, iso signs), a `valid` mask and a `reason` for each NaN.

`Lookup` interpolates with scipy's RegularGridInterpolator: ``method="linear"``
(bilinear; linear along travel for a map without a rack axis), ``"cubic"``, or
``"auto"`` (the default: per quantity, the method whose error at the cell centres,
measured by `compute_maps` against the native solve, is smaller; linear when
unmeasured). A query on a grid node returns the node's value exactly. Cubic needs
4 values per axis and no NaN: it runs on the longest run of travel rows that are
reached at every rack value, and queries outside that run fall back to bilinear.
A query outside the grid raises `InputError` (``outside="error"``, the default) or,
with ``outside="nan"``, gives NaN with ``valid`` False and the reason "outside the
map"; nothing is ever extrapolated. A query in a cell that touches an unreachable
node is NaN with that node's reason.

`Native` solves the same states with the model (`suspension_sim.maps.solve`), all
queries of one call as one batch: the reference the lookup's accuracy is measured
against, and the backend to use when the hard points change at run time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.maps.fields import BY_NAME, FIELD_NAMES
from suspension_sim.maps.result import CornerMap, Maps

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

OUTSIDE = ("error", "nan")
LOOKUP_METHODS = ("auto", "linear", "cubic")
EDGE = 1e-9
"""Relative slack (of an axis' span) within which a query on the grid's edge is inside."""


@dataclass
class MapValues:
    """The answer of `compute`: {quantity: array of the queries' broadcast shape} (units
    in `units`), `valid` (reached and inside the map) and `reason` ('' where valid)."""

    values: dict[str, np.ndarray]
    valid: np.ndarray
    reason: np.ndarray

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]

    @property
    def units(self) -> dict[str, str]:
        return {name: BY_NAME[name].unit for name in self.values}


def _queries(travel: Any, steer: Any) -> tuple[np.ndarray, np.ndarray]:
    try:
        t, s = np.broadcast_arrays(
            np.asarray(travel, dtype=float),
            np.asarray(0.0 if steer is None else steer, dtype=float),
        )
    except ValueError as exc:
        raise InputError(
            f"travel and steer do not broadcast together ({exc})", where="steer"
        ) from None
    for name, a in (("travel", t), ("steer", s)):
        if not np.all(np.isfinite(a)):
            raise InputError("a value is not a finite number", where=name)
    return t, s


def cubic_possible(m: CornerMap) -> bool:
    """True when the map has at least 4 values on every axis (scipy's cubic needs 4)."""
    return len(m.travel) >= 4 and (m.rack is None or len(m.rack) >= 4)


def _cubic_rows(m: CornerMap, grid: np.ndarray) -> slice | None:
    """The longest run of travel rows finite at every rack value (>= 4 rows), or None."""
    ok = np.isfinite(grid) if grid.ndim == 1 else np.isfinite(grid).all(axis=1)
    best: tuple[int, int] = (0, 0)
    start = None
    for i, flag in enumerate([*ok.tolist(), False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = None
    return slice(*best) if best[1] - best[0] >= 4 else None


class Lookup:
    """Interpolated kinematics of one corner from a map (a `Maps`, or a folder written
    by `Maps.write`). corner: the wheel name (optional when the maps hold one corner)."""

    def __init__(
        self,
        source: Maps | str | os.PathLike[str],
        corner: str | None = None,
        *,
        method: str = "auto",
        outside: str = "error",
    ):
        maps = source if isinstance(source, Maps) else Maps.read(source)
        if corner is None:
            if len(maps.corners) != 1:
                raise InputError(
                    "these maps hold several corners; name one",
                    where="corner",
                    hint=f"corners: {', '.join(maps.corners)}",
                )
            corner = next(iter(maps.corners))
        if corner not in maps.corners:
            raise InputError(
                f"no map of corner {corner!r}",
                where="corner",
                hint=f"corners: {', '.join(maps.corners)}",
            )
        if method not in LOOKUP_METHODS:
            raise InputError(
                f"unknown method {method!r}", where="method", hint="auto, linear or cubic"
            )
        if outside not in OUTSIDE:
            raise InputError(f"unknown choice {outside!r}", where="outside", hint="error or nan")
        self.map: CornerMap = maps.corners[corner]
        self.corner = corner
        self.method = method
        self.outside = outside
        self._interp: dict[tuple[str, str], Any] = {}

    def method_of(self, name: str) -> str:
        """The interpolation used for a quantity ("linear" or "cubic")."""
        if self.method != "auto":
            return self.method
        entry = self.map.accuracy.get(name)
        return str(entry.get("method", "linear")) if entry else "linear"

    def _axes(self, rows: slice | None = None) -> tuple[np.ndarray, ...]:
        t = self.map.travel if rows is None else self.map.travel[rows]
        return (t,) if self.map.rack is None else (t, self.map.rack)

    def _interpolator(self, name: str, method: str) -> tuple[Any, slice | None]:
        from scipy.interpolate import RegularGridInterpolator

        key = (name, method)
        if key not in self._interp:
            grid = self.map.values[name]
            rows = None
            made: Any = None
            if method == "cubic":
                rows = _cubic_rows(self.map, grid) if self._cubic_ok() else None
                if rows is not None:
                    from scipy.sparse.linalg import spsolve

                    # a direct solve for the spline coefficients: scipy's default iterative
                    # solver stops at ~1e-5 relative (2e-3 mm off on straight-line data)
                    made = RegularGridInterpolator(
                        self._axes(rows),
                        grid[rows],
                        method="cubic",
                        bounds_error=False,
                        solver=spsolve,
                        solver_args={},
                    )
            else:
                made = RegularGridInterpolator(
                    self._axes(), grid, method="linear", bounds_error=False
                )
            self._interp[key] = (made, rows)
        return self._interp[key]

    def _cubic_ok(self) -> bool:
        return cubic_possible(self.map)

    def compute(self, travel: Any, steer: Any = 0.0) -> MapValues:
        """Every quantity at wheel travel `travel` (mm, + bump) and rack `steer` (mm, +
        toward +Y), interpolated; see the module docstring for NaN and the edges."""
        m = self.map
        t, s = _queries(travel, steer)
        shape = t.shape
        t, s = t.ravel(), s.ravel()
        inside = self._inside(t, s)
        pts = t[:, None] if m.rack is None else np.column_stack([t, s])
        node = self._nodes(t, s)
        values: dict[str, np.ndarray] = {}
        for name in FIELD_NAMES:
            grid = m.values[name]
            linear, _ = self._interpolator(name, "linear")
            v = linear(pts)
            if self.method_of(name) == "cubic":
                cubic, rows = self._interpolator(name, "cubic")
                if cubic is not None:
                    lo, hi = m.travel[rows][0], m.travel[rows][-1]
                    use = (t >= lo) & (t <= hi)
                    if use.any():
                        v[use] = cubic(pts[use])
            hit = node[0] >= 0
            if hit.any():  # on a node: the node's own value, exactly
                idx = (node[0][hit],) if m.rack is None else (node[0][hit], node[1][hit])
                v[hit] = grid[idx]
            v[~inside] = np.nan
            values[name] = v.reshape(shape) + 0.0  # no "-0"
        reason = np.full(len(t), "", dtype=object)
        reason[~inside] = "outside the map"
        unreached = inside & ~np.isfinite(values["camber"].ravel())
        for i in np.flatnonzero(unreached):
            reason[i] = self._cell_reason(t[i], s[i])
        valid = reason == ""
        return MapValues(values, valid.reshape(shape), reason.reshape(shape))

    def _inside(self, t: np.ndarray, s: np.ndarray) -> np.ndarray:
        m = self.map
        checks = [("travel", t, m.travel)]
        if m.rack is not None:
            checks.append(("steer", s, m.rack))
        inside = np.ones(len(t), dtype=bool)
        for name, q, axis in checks:
            slack = EDGE * (axis[-1] - axis[0])
            out = (q < axis[0] - slack) | (q > axis[-1] + slack)
            if out.any() and self.outside == "error":
                bad = float(q[np.flatnonzero(out)[0]])
                raise InputError(
                    f"{name} {bad:g} mm is outside the map of corner {self.corner} "
                    f"({axis[0]:g} to {axis[-1]:g} mm); a lookup never extrapolates",
                    where=name,
                    hint="compute a larger map (maps --travel/--rack MIN MAX N), use "
                    "outside='nan', or use Native for this state",
                )
            inside &= ~out
        return inside

    def _nodes(self, t: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index of the grid node each query sits on exactly (-1 where none)."""
        m = self.map

        def exact(q: np.ndarray, axis: np.ndarray) -> np.ndarray:
            k = np.clip(np.searchsorted(axis, q), 0, len(axis) - 1)
            return np.where(axis[k] == q, k, -1)

        it = exact(t, m.travel)
        if m.rack is None:
            return it, np.zeros_like(it)
        ir = exact(s, m.rack)
        both = (it >= 0) & (ir >= 0)
        return np.where(both, it, -1), np.where(both, ir, -1)

    def _cell_reason(self, t: float, s: float) -> str:
        m = self.map
        i = int(np.clip(np.searchsorted(m.travel, t) - 1, 0, len(m.travel) - 2))
        rows = [i, i + 1]
        if m.rack is None:
            found = [m.reason[k] for k in rows]
        else:
            j = int(np.clip(np.searchsorted(m.rack, s) - 1, 0, len(m.rack) - 2))
            found = [m.reason[a, b] for a in rows for b in (j, j + 1)]
        named = [str(r) for r in found if r]
        return f"unreachable: {named[0]}" if named else "unreachable"


class Native:
    """The same call as `Lookup`, solved: one corner of a model (`suspension_sim.load`),
    every query of one `compute` solved as one batch."""

    def __init__(self, model: KinematicModel, corner: str, *, method: str = "auto"):
        from suspension_sim.maps.solve import choose_corners

        self.model = model
        self.corner = corner
        self._corner = choose_corners(model, [corner])[0]
        self.solver_method = method

    def compute(self, travel: Any, steer: Any = 0.0) -> MapValues:
        """Every quantity at wheel travel `travel` (mm) and rack `steer` (mm), solved."""
        from suspension_sim.maps.solve import design_half_tracks, solve_corners

        t, s = _queries(travel, steer)
        shape = t.shape
        rack = s.ravel() if self._corner.steered else np.zeros(t.size)
        found = solve_corners(self.model, [self._corner], t.ravel(), rack, self.solver_method)
        sol = found[self._corner.wheel]
        design = design_half_tracks(self.model, [self._corner])[self._corner.wheel]
        values: dict[str, np.ndarray] = {}
        for name in FIELD_NAMES:
            if name == "stroke":
                v = sol.stroke
            elif name == "track_change":
                v = sol.values["half_track"] - design
            else:
                v = sol.values[name]
            values[name] = np.asarray(v, dtype=float).reshape(shape)
        reason = np.asarray(sol.reason, dtype=object)
        return MapValues(values, (reason == "").reshape(shape), reason.reshape(shape))
