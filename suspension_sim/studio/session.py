"""The studio's state, without any web code: the cars, the controls and what they give.

A `Session` holds one workbook (or two, A and B), the controls a user moves
(heave, roll, pitch, steer, damper strokes, motion, preset) and, for each car,
the last good `Loaded` model and its solved pose. `Session.update()` solves the
pose the controls ask for (warm-started from the last one) and returns a `Frame`:
the pose(s), the design-sheet rows and the current motion's chart lines with the
marker. `Session.reload()` reads a changed workbook; a bad workbook keeps the last
good car and returns its error message (the same text the command line prints).

Two ways to drive the car (`Controls.drive`):

- ``"ground"`` (default): heave (chassis z, mm, + = up), roll and pitch (deg) and the
  steer prescribe the chassis and the rack; every damper stroke is solved so that each
  tyre's contact point stays at z = 0 (the ground motions of docs/sweeps.md, in our
  motion style);
- ``"strokes"``: Rowe's direct inputs: the damper strokes (mm, + = compression), the
  rack and the chassis state are all given, the wheels follow the body.

The steer control is the steering-wheel angle (deg, + = left turn) when the workbook
gives a Steering ratio, else the rack travel (mm, + toward +Y).

Every number comes from the library: `api.Model.solve`, `metrics.pose_metrics` and
the design sheet of `outputs.design_sheet` (what ``report`` prints), and the charts
from `sweeps.run_sweep` (what ``sweep`` writes). Units: mm, deg.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import SuspensionSimError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.api import Model
    from suspension_sim.outputs.design_sheet import DesignSheet
    from suspension_sim.solve.pose import Pose
    from suspension_sim.solve.targets import Target

DRIVES: tuple[str, ...] = ("ground", "strokes")
PRESETS: tuple[str, ...] = ("iso", "optimumk")
CHART_METRICS: tuple[tuple[str, str], ...] = (
    ("camber", "camber [deg]"),
    ("toe", "toe [deg]"),
    ("caster", "caster [deg]"),
    ("kpi", "KPI [deg]"),
    ("scrub_radius", "scrub radius [mm]"),
    ("mechanical_trail", "mechanical trail [mm]"),
    ("motion_ratio", "motion ratio [damper/wheel]"),
    ("roll_centre_height", "roll centre height [mm]"),
)
"""Charts of the current motion: catalogue metric and its axis label."""
CORNER_MM = 300.0
"""Two cars' wheels are the same corner when their design contact points are each
other's nearest and at most this far apart (mm)."""


@dataclass(frozen=True)
class Slider:
    """One control's range (mm or deg); `key` is its name in `Controls`."""

    key: str
    label: str
    low: float
    high: float
    step: float


@dataclass
class Controls:
    """What the user set. Units: heave mm (+ = chassis up), roll/pitch deg, steer deg of
    steering wheel (or mm of rack, see `Loaded.steer_unit`), strokes mm (+ = compression)."""

    drive: str = "ground"
    heave: float = 0.0
    roll: float = 0.0
    pitch: float = 0.0
    steer: float = 0.0
    strokes: dict[str, float] = field(default_factory=dict)
    preset: str = "iso"
    motion: str = "heave"


@dataclass(frozen=True)
class Loaded:
    """A car read from its workbook, with what the controls need from it."""

    path: Path
    model: Model
    targets: dict[str, Target]
    steer_unit: str
    rack_per_steer: float
    sliders: tuple[Slider, ...]
    motions: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.model.car.name


def file_stamp(path: Path) -> tuple[float, int, int] | None:
    """(mtime, size, inode) of a file, None when it cannot be read: a change means a save."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime, st.st_size, st.st_ino)


def read_car(path: Path) -> Loaded:
    """Load a workbook (cached by content, `api.load`) and work out its controls.

    Raises the library's `SuspensionSimError` (cell-precise) for bad input.
    """
    from suspension_sim.api import load
    from suspension_sim.errors import InputError
    from suspension_sim.solve.steering import rack_per_wheel_degree
    from suspension_sim.sweeps.motions import ground_targets
    from suspension_sim.sweeps.standard import StandardName, default_range

    model = load(path)
    sliders = [
        Slider(
            "heave",
            "heave [mm] (+ = chassis up)",
            *default_range(model, StandardName("heave"))[:2],
            0.5,
        ),
        Slider(
            "roll",
            "roll [deg] (+ lifts the left side)",
            *default_range(model, StandardName("roll"))[:2],
            0.05,
        ),
        Slider(
            "pitch",
            "pitch [deg] (+ = nose down)",
            *default_range(model, StandardName("pitch"))[:2],
            0.05,
        ),
    ]
    steer_unit, per = "mm", 1.0
    if model.car.rack is not None:
        try:
            per = rack_per_wheel_degree(model, where="steering")
            steer_unit = "deg"
        except InputError:
            per = 1.0
        low, high, _ = default_range(model, StandardName("steer", None, steer_unit))
        text = (
            "steering wheel [deg] (+ = left turn)"
            if steer_unit == "deg"
            else "rack [mm] (+ toward +Y)"
        )
        sliders.append(Slider("steer", text, low, high, 0.5))
    for d in model.damper_names:
        low, high, _ = default_range(model, StandardName("stroke", d))
        sliders.append(Slider(f"stroke:{d}", f"stroke {d} [mm]", low, high, 0.5))
    try:
        targets = ground_targets(model)
    except SuspensionSimError:
        targets = {}
    return Loaded(
        path, model, targets, steer_unit, per, tuple(sliders), motion_names(model, path, steer_unit)
    )


def motion_names(model: Model, path: Path, steer_unit: str) -> tuple[str, ...]:
    """The standard motions of this car and the workbook's named sweeps (by name)."""
    from suspension_sim.sweeps.find import named_sweeps

    names = ["heave", "roll", "pitch"]
    if model.car.rack is not None:
        names += [f"steer:{steer_unit}", "rack"]
    names += [f"bump:{w.name}" for w in model.car.wheels]
    names += [f"stroke:{d}" for d in model.damper_names]
    try:
        for _, specs in named_sweeps(path, None):
            names += [n for n in specs if n not in names]
    except SuspensionSimError:
        pass  # a bad sweeps file: the standard motions still work
    return tuple(names)


@dataclass(frozen=True)
class Cell:
    """A table cell: the metric column it shows (None: n/a), its value and its text."""

    key: str | None
    value: float
    text: str


@dataclass(frozen=True)
class Row:
    """One row of the design sheet: label, unit, cells of car A (and B, matched by corner)."""

    label: str
    unit: str
    cells: tuple[Cell, ...]
    cells_b: tuple[Cell, ...] = ()


@dataclass(frozen=True)
class Series:
    """One chart line: x and y values, its label and car ("A" or "B")."""

    label: str
    car: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    group: str = ""


@dataclass(frozen=True)
class Chart:
    """One chart of the current motion: its lines and the marker at the current pose."""

    title: str
    x_label: str
    series: tuple[Series, ...]
    marker: tuple[tuple[str, float, float], ...]


@dataclass
class Frame:
    """What the page shows for the current controls."""

    pose: Pose | None
    pose_b: Pose | None
    columns: tuple[str, ...]
    rows: tuple[Row, ...]
    status: str
    status_b: str = ""
    inputs: dict[str, float] = field(default_factory=dict)


class Session:
    """The studio's cars and controls (module doc); no web code, no drawing."""

    def __init__(
        self, path_a: str | os.PathLike[str], path_b: str | os.PathLike[str] | None = None
    ):
        self.paths: list[Path] = [Path(path_a)] + ([Path(path_b)] if path_b is not None else [])
        self.cars: list[Loaded | None] = [None] * len(self.paths)
        self.errors: list[str | None] = [None] * len(self.paths)
        self.stamps: list[tuple[float, int, int] | None] = [None] * len(self.paths)
        self.poses: list[Pose | None] = [None] * len(self.paths)
        self.controls = Controls()
        self._sweeps: dict[tuple[int, str, str, int], Any] = {}
        self._loads = [0] * len(self.paths)
        for k in range(len(self.paths)):
            self._read(k)

    # -- reading ------------------------------------------------------------------------
    def _read(self, k: int) -> bool:
        """Read workbook `k`; True when it changed the car. A bad workbook keeps the last
        good car and sets `errors[k]` (the command line's message)."""
        path = self.paths[k]
        self.stamps[k] = file_stamp(path)
        try:
            car = read_car(path)
        except SuspensionSimError as exc:
            self.errors[k] = exc.render()
            return False
        self.cars[k] = car
        self.errors[k] = None
        self.poses[k] = None
        self._loads[k] += 1
        if k == 0:
            for s in car.sliders:
                if s.key.startswith("stroke:"):
                    self.controls.strokes.setdefault(s.key.split(":", 1)[1], 0.0)
            if self.controls.motion not in car.motions:
                self.controls.motion = "heave"
        return True

    def changed(self) -> list[int]:
        """The workbooks whose file changed since they were last read."""
        return [k for k, p in enumerate(self.paths) if file_stamp(p) != self.stamps[k]]

    def reload(self, which: list[int] | None = None) -> list[int]:
        """Read the changed (or the given) workbooks again; the ones that were read."""
        todo = self.changed() if which is None else which
        for k in todo:
            self._read(k)
        return todo

    @property
    def car(self) -> Loaded:
        """Car A (the last good one). RuntimeError if it never loaded."""
        car = self.cars[0]
        if car is None:
            raise RuntimeError(self.errors[0] or "no car")
        return car

    # -- solving ------------------------------------------------------------------------
    def solve_inputs(self, car: Loaded) -> dict[str, Any]:
        """The `Model.solve` arguments of the current controls for `car` (module doc)."""
        c = self.controls
        chassis = (0.0, 0.0, float(c.heave), float(c.roll), float(c.pitch), 0.0)
        # the steer control in A's unit: B's own ratio when B has the same unit, else A's rack
        per = (
            car.rack_per_steer if car.steer_unit == self.car.steer_unit else self.car.rack_per_steer
        )
        rack = float(c.steer) * per if car.model.car.rack is not None else 0.0
        if c.drive == "ground" and car.targets:
            return {"shocks": None, "rack": rack, "chassis": chassis, "targets": car.targets}
        names = list(car.model.damper_names)
        mine = list(self.car.model.damper_names)
        shocks = {
            d: float(c.strokes.get(d, c.strokes.get(mine[i], 0.0) if i < len(mine) else 0.0))
            for i, d in enumerate(names)
        }
        return {"shocks": shocks, "rack": rack, "chassis": chassis, "targets": None}

    def solve(self, k: int) -> Pose | None:
        """Solve car `k` at the controls (warm start from its last pose); None if never loaded."""
        car = self.cars[k]
        if car is None:
            return None
        inputs = self.solve_inputs(car)
        guess = self.poses[k] if self.poses[k] is not None and self.poses[k].converged else None  # type: ignore[union-attr]
        pose = car.model.solve(**inputs, guess=guess, on_failure="return")
        if not pose.converged and guess is not None:  # a jump: try again from design
            pose = car.model.solve(**inputs, on_failure="return")
        self.poses[k] = pose
        return pose

    def update(self) -> Frame:
        """Solve every car at the controls; the design sheet rows (module doc)."""
        from suspension_sim.outputs.design_sheet import design_sheet

        poses = [self.solve(k) for k in range(len(self.paths))]
        pose = poses[0]
        assert pose is not None
        sheet = design_sheet(pose, self.controls.preset)
        sheet_b = None
        pose_b = poses[1] if len(poses) > 1 else None
        if pose_b is not None:
            sheet_b = design_sheet(pose_b, self.controls.preset)
        columns, rows = sheet_rows(sheet, sheet_b, self.corner_map())
        inputs = {f"stroke:{d}": float(v) for d, v in pose.shocks.items()}
        return Frame(
            pose,
            pose_b,
            columns,
            rows,
            status_text(pose),
            status_text(pose_b) if pose_b is not None else "",
            inputs,
        )

    def corner_map(self) -> dict[str, str]:
        """{A's wheel: B's wheel at the same corner} (empty without B): the two wheels whose
        design contact points are each other's nearest, within `CORNER_MM`; a wheel of
        one car with no such partner (a half car against a whole one) is left out."""
        if len(self.cars) < 2 or self.cars[1] is None:
            return {}
        from suspension_sim.metrics.geometry import wheel_set

        a, b = wheel_set(self.car.model), wheel_set(self.cars[1].model)
        if not len(a.names) or not len(b.names):
            return {}
        d = np.linalg.norm(a.contact0[:, None, :] - b.contact0[None, :, :], axis=2)
        out: dict[str, str] = {}
        for i, name in enumerate(a.names):
            j = int(np.argmin(d[i]))
            if int(np.argmin(d[:, j])) == i and d[i, j] <= CORNER_MM:
                out[str(name)] = str(b.names[j])
        return out

    # -- charts -------------------------------------------------------------------------
    def sweep_table(self, k: int) -> pd.DataFrame | None:
        """Car `k`'s table of the current motion (in the preset's signs), computed once per
        load, motion and preset; None when the motion does not apply to that car."""
        car = self.cars[k]
        if car is None:
            return None
        key = (k, self.controls.motion, self.controls.preset, self._loads[k])
        if key not in self._sweeps:
            from suspension_sim.sweeps import choose_sweep, run_sweep

            try:
                chosen = choose_sweep(car.model, car.path, self.controls.motion)
                result = run_sweep(
                    car.model,
                    chosen.spec,
                    convention=self.controls.preset,
                    motion_style="ours",
                    keep_poses=False,
                )
                self._sweeps[key] = (result.table.reset_index(), result.columns)
            except SuspensionSimError as exc:
                self._sweeps[key] = (None, exc.render())
        table, _ = self._sweeps[key]
        return table

    def charts(self, frame: Frame) -> tuple[list[Chart], str]:
        """The current motion's charts (A, and B dashed) with the marker at the current
        pose; and a note (why there are none, or ""). A grid sweep (two swept variables)
        has one line per value of its second variable."""
        from suspension_sim.metrics import CATALOGUE, pose_metrics

        key = (0, self.controls.motion, self.controls.preset, self._loads[0])
        table = self.sweep_table(0)
        if table is None:
            return [], str(self._sweeps.get(key, (None, "no car"))[1])
        swept = self._sweeps[key][1]
        x_col = swept[0]
        group = swept[1] if len(swept) > 1 else None
        table_b = self.sweep_table(1) if len(self.paths) > 1 else None
        corners = self.corner_map()
        now: dict[str, float] = {}
        if frame.pose is not None:  # the sheet's values; the swept inputs without the rates
            now = pose_metrics(frame.pose, self.controls.preset, rates=False)
            now.update({c.key: c.value for r in frame.rows for c in r.cells if c.key})
        charts = []
        places = [w.name for w in self.car.model.car.wheels]
        for metric, label in CHART_METRICS:
            m = CATALOGUE[metric]
            series: list[Series] = []
            marks: list[tuple[str, float, float]] = []
            where = ("front", "rear") if metric == "roll_centre_height" else tuple(places)
            for place in where:
                col = m.key(place)
                if col not in table.columns:
                    continue
                series += _lines(table, x_col, col, group, place, "A")
                if col in now and x_col in now:
                    marks.append((place, float(now[x_col]), float(now[col])))
                if table_b is not None:
                    other = place if metric == "roll_centre_height" else corners.get(place)
                    if other is None:
                        continue
                    col_b = m.key(other)
                    if col_b in table_b.columns and x_col in table_b.columns:
                        series += _lines(table_b, x_col, col_b, group, place, "B")
            if series:
                charts.append(Chart(label, x_col, tuple(series), tuple(marks)))
        return charts, ""


def _lines(
    table: pd.DataFrame, x: str, y: str, group: str | None, label: str, car: str
) -> list[Series]:
    """One line of `y` against `x`, or one per value of `group` (a grid sweep)."""
    if group is None or group not in table.columns:
        return [Series(label, car, _floats(table[x]), _floats(table[y]))]
    out = []
    for value, rows in table.groupby(group, sort=False):
        out.append(Series(label, car, _floats(rows[x]), _floats(rows[y]), f"{group} {value:g}"))
    return out


def _floats(values: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in np.asarray(values, dtype=float))


def status_text(pose: Pose | None) -> str:
    """One line: converged or which joints stay open."""
    if pose is None:
        return ""
    if pose.converged:
        return f"{pose.model.car.name}: {pose.info.summary()}"
    return f"{pose.model.car.name}: NOT closed: {pose.failure}"


def sheet_rows(
    sheet: DesignSheet, sheet_b: DesignSheet | None, corners: dict[str, str]
) -> tuple[tuple[str, ...], tuple[Row, ...]]:
    """The design sheet as one table: columns = wheels then axles then sides; B's cells
    under A's columns (wheels matched by position, `corners`)."""
    from suspension_sim.outputs.design_sheet import format_value

    columns: list[str] = []
    for t in sheet.tables:
        columns += [c for c in t.columns if c not in columns]
    wheels = set(sheet.tables[0].columns) if sheet.tables else set()
    b_values: dict[tuple[str, str], tuple[str | None, float]] = {}
    if sheet_b is not None:
        for t in sheet_b.tables:
            for r in t.rows:
                for c, key, v in zip(t.columns, r.keys, r.values, strict=True):
                    b_values[(r.label, c)] = (key, v)
    rows: list[Row] = []
    for t in sheet.tables:
        for r in t.rows:
            unit = r.quantity.unit
            values = dict(zip(t.columns, zip(r.keys, r.values, strict=True), strict=True))
            cells = []
            cells_b = []
            for c in columns:
                key, v = values.get(c, (None, math.nan))
                cells.append(Cell(key, v, format_value(v, unit)))
                if sheet_b is not None:
                    kb, vb = b_values.get((r.label, corners.get(c, c)), (None, math.nan))
                    if c not in corners and c in wheels:  # no wheel of B at this corner
                        kb, vb = None, math.nan
                    cells_b.append(Cell(kb, vb, format_value(vb, unit)))
            rows.append(Row(r.label, unit, tuple(cells), tuple(cells_b)))
    return tuple(columns), tuple(rows)
