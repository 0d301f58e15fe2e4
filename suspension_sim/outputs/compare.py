"""Design against design: the same sweep on several cars, overlaid charts, differences.

::

    import suspension_sim
    cmp = suspension_sim.compare(["car_a.xlsx", "car_b.xlsx"], "roll")
    cmp.differences          # per channel: design value, min, max, range per car,
                             # largest difference from the first car along the sweep
    print(cmp.summary())     # the biggest differences, per unit
    cmp.write("out/compare") # differences.csv and the charts, one line per car

Each car is named by its ``Car name`` (User Options), or by its file stem when
names are missing or clash (docs/sweeps.md, "Compare"). Corners are matched by
where they are (`suspension_sim.description.wheel_layout`: front/rear, left/right
from the wheel centres), not by their names: every car's columns are renamed to
the first car's wheel and damper names (`corner_maps`), and a car whose wheels sit
at other corners (another axle count) is refused. Differences are taken step by
step, at equal swept values (steps solved on both cars). Units: the tables' mm
and deg; `OutputUnits` converts on writing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from suspension_sim.description import wheel_layout
from suspension_sim.errors import InputError
from suspension_sim.metrics.catalogue import metric_of
from suspension_sim.outputs.figures import figure_plan
from suspension_sim.outputs.near_parallel import near_parallel
from suspension_sim.outputs.plots import (
    DEFAULT_UNITS,
    OutputUnits,
    format_values,
    min_span,
    plot_table,
    table_figures,
)
from suspension_sim.sweeps import MotionSpec, SweepResult, SweepSpec, load_sweeps, run_sweep
from suspension_sim.sweeps.run import KERNEL_PAYS_STEPS

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from suspension_sim.model import KinematicModel
    from suspension_sim.outputs.chart_worker import ChartWorker

CAR_COLUMN = "car"
"""Column of `Comparison.table` holding each row's car name (the chart legend)."""
DIFFERENCES_FILE = "differences.csv"
"""File `Comparison.write` writes the differences table to."""
SUMMARY_ROWS = 3
"""Channels per unit `Comparison.summary` lists, in each of its two groups."""
DESIGN_METRICS = frozenset(
    {"camber", "toe", "steer", "caster", "kpi", "scrub_radius", "mechanical_trail"}
    | {"spindle_length", "half_track", "track", "wheelbase", "ackermann"}
    | {"motion_ratio", "camber_gain", "roll_camber", "bump_steer", "steer_rate"}
    | {"steering_ratio", "anti_dive", "anti_lift", "anti_squat"}
    | {"roll_centre_height", "roll_centre_lateral", "pitch_centre"}
)
"""Metrics `Comparison.summary` lists first: the quantities a designer sets and reads.
The rest (instant-centre coordinates, screw-axis and arm-plane diagnostics, point
coordinates, alternative definitions, line angles) follow in a group of their own:
a far instant centre moves metres for a small change and would hide them."""
AXLE_SIDE = {("front", "left"): "front left", ("front", "right"): "front right"}
AXLE_SIDE.update({("rear", "left"): "rear left", ("rear", "right"): "rear right"})


@dataclass(frozen=True)
class CornerMap:
    """How one car's names map onto the first car's, corner by corner (by position).

    wheels, dampers: this car's name -> the first car's name at the same corner
    (every wheel; the dampers that are the motion-ratio damper of matched wheels).
    """

    wheels: dict[str, str]
    dampers: dict[str, str]

    @property
    def renamed(self) -> dict[str, str]:
        """The wheels whose name differs from the first car's at that corner."""
        return {a: b for a, b in self.wheels.items() if a != b}

    def column(self, column: str) -> str:
        """A table column of this car under the first car's names (others unchanged)."""
        found = metric_of(column)
        if found is None:
            return column
        metric, where, component = found
        if metric.scope == "wheel" and where in self.wheels:
            return metric.key(self.wheels[where], component)
        if metric.scope == "damper" and where in self.dampers:
            return metric.key(self.dampers[where], component)
        return column

    def inverse_name(self, name: str | None) -> str | None:
        """The first car's wheel or damper `name` as this car calls it (unchanged if none)."""
        if name is None:
            return None
        for table in (self.wheels, self.dampers):
            for own, first in table.items():
                if first == name:
                    return own
        return name


def corner_maps(models: Sequence[KinematicModel], names: Sequence[str]) -> list[CornerMap]:
    """Each car's `CornerMap` onto the first car (the first maps onto itself).

    Wheels match by (axle, side) from their centres (`wheel_layout`), dampers through
    the wheels they serve (`wheel_dampers`; a damper serving no matched wheel, or
    wheels of different first-car dampers, keeps its name). InputError at the odd
    car's Wheels sheet when its wheels are not at the same corners as the first car's.
    """
    from suspension_sim.metrics import wheel_dampers

    layouts = [wheel_layout(m.car) for m in models]

    def corners(i: int) -> dict[tuple[str, str], str]:
        lay = layouts[i]
        return {(a, s): n for n, a, s in zip(lay.names, lay.axle, lay.side, strict=True)}

    def listing(i: int) -> str:
        found = corners(i)
        return ", ".join(f"{AXLE_SIDE[c]} {found[c]}" for c in AXLE_SIDE if c in found)

    first = corners(0)
    first_dampers = wheel_dampers(models[0])
    out = []
    for i, m in enumerate(models):
        own = corners(i)
        if set(own) != set(first):
            wheels = m.car.wheels
            source = wheels[0].source if wheels else None
            axles = {len({a for a, _ in c}) for c in (own, first)}
            what = "axle count" if len(axles) > 1 else "corners"
            raise InputError(
                f"cannot compare {names[i]} with {names[0]}: the wheels are at other corners "
                f"(other {what}). {names[0]}: {listing(0) or 'no wheels'}; "
                f"{names[i]}: {listing(i) or 'no wheels'}",
                where=str(source) if source is not None else m.car.source_path or "models_or_paths",
                hint="compare matches wheels by position (front/rear from x, left/right from y "
                "of the wheel centres), so every car needs the same axles and sides",
            )
        wheel_map = {own[c]: first[c] for c in own}
        pairs: dict[str, set[str]] = {}
        for wheel, damper in wheel_dampers(m).items():
            target = first_dampers.get(wheel_map[wheel])
            if damper is not None and target is not None:
                pairs.setdefault(damper, set()).add(target)
        damper_map = {d: next(iter(t)) for d, t in pairs.items() if len(t) == 1}
        targets = list(damper_map.values())
        damper_map = {d: t for d, t in damper_map.items() if targets.count(t) == 1}
        out.append(CornerMap(wheel_map, damper_map))
    return out


def car_names(models: Sequence[KinematicModel]) -> list[str]:
    """Legend names: each car's ``Car name``, or its file stem when two cars share a name
    (or it has none); a name still shared gets `` (2)``, `` (3)``, ... appended."""
    names = [m.car.name.strip() for m in models]
    stems = [Path(m.car.source_path).stem if m.car.source_path else "" for m in models]
    out = []
    for name, stem in zip(names, stems, strict=True):
        clash = not name or names.count(name) > 1
        out.append((stem or name or "car") if clash else name)
    seen: dict[str, int] = {}
    unique = []
    for name in out:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return unique


@dataclass
class Comparison:
    """The same sweep run on several cars (`compare`); `names[i]` labels `results[i]`.

    design: each car's metrics at its design condition (`pose_metrics` of the
    unloaded pose, in the sweep's sign convention), under the first car's names.
    corners: each car's `CornerMap` onto the first car (empty: names as they are).
    """

    spec: SweepSpec
    names: list[str]
    results: list[SweepResult]
    design: list[dict[str, float]] = field(default_factory=list)
    corners: list[CornerMap] = field(default_factory=list)

    @cached_property
    def tables(self) -> list[pd.DataFrame]:
        """Each car's sweep table with its columns under the first car's wheel and
        damper names (`CornerMap.column`): equal names are the same corner."""
        if not self.corners:
            return [r.table for r in self.results]
        return [
            r.table.rename(columns=cm.column)
            for r, cm in zip(self.results, self.corners, strict=True)
        ]

    def legend(self, i: int) -> str:
        """Car i's legend text: its name, and its wheels shown under another name."""
        renamed = self.corners[i].renamed if self.corners else {}
        if not renamed:
            return self.names[i]
        return f"{self.names[i]} ({', '.join(f'{a} as {b}' for a, b in renamed.items())})"

    @property
    def x(self) -> str:
        """The first swept column (the charts' x)."""
        return self.results[0].columns[0]

    @property
    def ok(self) -> bool:
        """True when every step of every car was solved."""
        return all(r.ok for r in self.results)

    @cached_property
    def channels(self) -> list[str]:
        """Numeric metric columns of the tables (swept columns left out), first car's order."""
        swept = set(self.results[0].columns)
        out: list[str] = []
        for t in self.tables:
            for c in t.columns:
                if c not in swept and c not in out and pd.api.types.is_numeric_dtype(t[c]):
                    out.append(c)
        return out

    @cached_property
    def table(self) -> pd.DataFrame:
        """Every car's sweep table stacked, with a ``car`` column first (the names; a
        grid's second value is added to it: ``"car A, rack [mm] = 10"``)."""
        frames = []
        for i, r in enumerate(self.results):
            name = self.legend(i)
            t = self.tables[i].reset_index()
            labels = pd.Series([name] * len(t), index=t.index, dtype=object)
            if len(r.columns) > 1:
                from suspension_sim.metrics import label

                grid = self.corners[i].column(r.columns[1]) if self.corners else r.columns[1]
                texts = format_values(t[grid].to_numpy(float))
                labels = pd.Series(
                    [f"{name}, {label(grid)} = {v}" for v in texts], index=t.index, dtype=object
                )
            t.insert(0, CAR_COLUMN, labels)
            frames.append(t)
        return pd.concat(frames, ignore_index=True)

    def _aligned(self, i: int, channel: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, first car, car i) of `channel` at the steps both solved."""
        a, b = self.tables[0], self.tables[i]
        common = a.index.intersection(b.index)
        nan = np.full(len(common), np.nan)
        va = a.loc[common, channel].to_numpy(float) if channel in a else nan
        vb = b.loc[common, channel].to_numpy(float) if channel in b else nan
        return a.loc[common, self.x].to_numpy(float), va, vb

    @cached_property
    def differences(self) -> pd.DataFrame:
        """One row per channel (index ``channel``): for each car ``design <name>``,
        ``min <name>``, ``max <name>``, ``range <name>`` (max - min along the sweep);
        for each car after the first, ``largest difference <name>`` (the signed value of
        car - first car of largest magnitude, at equal swept values) and ``<x> at
        largest difference <name>``. NaN where a car lacks the channel."""
        data: dict[str, list[float]] = {}
        for k, (name, t) in enumerate(zip(self.names, self.tables, strict=True)):
            data[f"design {name}"] = [self.design[k].get(c, np.nan) for c in self.channels]
            lo, hi = [], []
            for c in self.channels:
                v = t[c].to_numpy(float) if c in t else np.array([np.nan])
                finite = v[np.isfinite(v)]
                lo.append(float(finite.min()) if finite.size else np.nan)
                hi.append(float(finite.max()) if finite.size else np.nan)
            data[f"min {name}"] = lo
            data[f"max {name}"] = hi
            data[f"range {name}"] = list(np.subtract(hi, lo))
        for i in range(1, len(self.results)):
            name = self.names[i]
            largest, where = [], []
            for c in self.channels:
                x, va, vb = self._aligned(i, c)
                d = vb - va
                ok = np.isfinite(d)
                if not ok.any():
                    largest.append(np.nan)
                    where.append(np.nan)
                    continue
                k = int(np.argmax(np.where(ok, np.abs(d), -1.0)))
                largest.append(float(d[k]))
                where.append(float(x[k]))
            data[f"largest difference {name}"] = largest
            data[f"{self.x} at largest difference {name}"] = where
        out = pd.DataFrame(data, index=pd.Index(self.channels, name="channel"))
        out.attrs["first"] = self.names[0]
        out.attrs["sweep"] = self.spec.name
        return out

    def differences_in(self, units: OutputUnits = DEFAULT_UNITS) -> pd.DataFrame:
        """`differences` in other units: each channel's values scaled, its name renamed
        (the swept values of the ``<x> at`` columns in the unit of x)."""
        table = self.differences
        if units.is_default:
            return table.copy()
        at = [c for c in table.columns if c.startswith(f"{self.x} at ")]
        values = [c for c in table.columns if c not in at]
        out = table.copy()
        for c in table.index:
            out.loc[c, values] = units.convert(str(c), table.loc[c, values].to_numpy(float))
        out[at] = units.convert(self.x, table[at].to_numpy(float))
        out = out.rename(columns={c: units.column(self.x) + c[len(self.x) :] for c in at})
        out.index = pd.Index([units.column(c) for c in table.index], name="channel")
        out.attrs.update(table.attrs)
        return out

    def _near_parallel_at_largest(self, i: int, channel: str) -> bool:
        """True when car i's largest difference from the first car in `channel` sits
        at a step where either car's centre comes from nearly parallel lines."""
        a, b = self.tables[0], self.tables[i]
        common = a.index.intersection(b.index)
        _x, va, vb = self._aligned(i, channel)
        d = vb - va
        ok = np.isfinite(d)
        if not ok.any():
            return False
        k = int(np.argmax(np.where(ok, np.abs(d), -1.0)))
        flags = near_parallel(a.loc[common], channel) | near_parallel(b.loc[common], channel)
        return bool(flags[k])

    def summary(self, units: OutputUnits = DEFAULT_UNITS, rows: int = SUMMARY_ROWS) -> str:
        """The biggest differences from the first car, `rows` metrics per unit (deg,
        mm, ratios, ...), each at its wheel, axle or side of largest difference: first
        the design quantities (`DESIGN_METRICS`), then the other channels;
        differences below a chart's minimum span count as none. A difference at a step
        where a roll or pitch centre comes from nearly parallel lines says so. Cars
        whose wheels are named differently get a line saying which corner is which
        (they are matched by position)."""
        first = self.names[0]
        lines = [f"sweep {self.spec.name!r}: {', '.join(self.names)} (differences from {first})"]
        for i, r in enumerate(self.results):
            solved = f"{len(r.steps)} of {len(r.motion)} steps solved"
            lines.append(f"  {self.names[i]}: {solved}" + ("" if r.ok else " (some failed)"))
        for i, cm in enumerate(self.corners):
            if cm.renamed:
                pairs = ", ".join(f"{a} = {first} {b}" for a, b in cm.wheels.items())
                lines.append(f"  corners matched by position: {self.names[i]} {pairs}")
        table = self.differences
        pos = {k: j for j, k in enumerate(table.columns)}
        for i, name in enumerate(self.names[1:], start=1):
            col = table[f"largest difference {name}"]
            groups: tuple[dict[str, list[tuple[float, str]]], ...] = ({}, {})
            for channel, d in col.items():
                c = str(channel)
                if not np.isfinite(d) or abs(d) * units.factor(c) < min_span(c, units):
                    continue
                unit = units.unit_text(c) or ("%" if c.endswith("_pct") else "-")
                found = metric_of(c)
                design = found is not None and found[0].id in DESIGN_METRICS
                groups[0 if design else 1].setdefault(unit, []).append(
                    (abs(d) * units.factor(c), c)
                )
            if not any(groups):
                lines.append(f"{name}: no difference from {first} above chart resolution")
                continue
            lines.append(f"{name} - {first}, largest differences along the sweep:")
            for heading, group in zip(("design quantities", "other channels"), groups, strict=True):
                if not group:
                    continue
                lines.append(f" {heading}:")
                for unit, items in group.items():
                    for c in _one_per_metric(sorted(items, reverse=True))[:rows]:
                        f = units.factor(c)
                        row = table.loc[c].to_numpy(float)
                        d = row[pos[f"largest difference {name}"]] * f
                        at = row[pos[f"{self.x} at largest difference {name}"]]
                        a = row[pos[f"design {first}"]] * f
                        b = row[pos[f"design {name}"]] * f
                        xv = at * units.factor(self.x)
                        note = (
                            " [near-parallel force lines there: unstable]"
                            if self._near_parallel_at_largest(i, c)
                            else ""
                        )
                        lines.append(
                            f"  {units.column(c)}: {d:+.4g} {unit} at {units.column(self.x)} = "
                            f"{xv:.4g} (design {a:.4g} -> {b:.4g}){note}"
                        )
        return "\n".join(lines)

    def figures(
        self,
        *,
        units: OutputUnits = DEFAULT_UNITS,
        against_travel: bool = False,
        plot_x: str | None = None,
        plot_y: Sequence[str] = (),
    ) -> dict[str, Figure]:
        """The overlaid charts by file stem: one line per car (the legend is the car
        names), as `suspension_sim.outputs.plots.table_figures` draws them."""
        job = self.charts(
            "", units=units, against_travel=against_travel, plot_x=plot_x, plot_y=plot_y
        )
        del job["directory"], job["option"]
        return table_figures(**job)

    def charts(
        self,
        directory: str | os.PathLike[str],
        *,
        units: OutputUnits = DEFAULT_UNITS,
        against_travel: bool = False,
        plot_x: str | None = None,
        plot_y: Sequence[str] = (),
        option: str = "directory",
    ) -> dict[str, Any]:
        """The arguments of `suspension_sim.outputs.plots.plot_table` for the overlaid
        charts in `directory` (plain data: they can be sent to another process,
        `chart_worker.ChartWorker.plot_table`)."""
        wheels: list[str] = []
        for k, r in enumerate(self.results):
            if r.model is not None:
                own = [w.name for w in r.model.car.wheels]
                if self.corners:  # every table is under the first car's wheel names
                    own = [self.corners[k].wheels.get(w, w) for w in own]
                wheels += [w for w in own if w not in wheels]
        return {
            "table": self.table,
            "x": plot_x or self.x,
            "directory": directory,
            "wheels": wheels,
            "series": CAR_COLUMN,
            "title": f"{self.spec.name}: {' vs '.join(self.names)}",
            "units": units,
            "against_travel": against_travel,
            "plot_y": list(plot_y),
            "option": option,
        }

    def write(
        self,
        directory: str | os.PathLike[str],
        *,
        units: OutputUnits = DEFAULT_UNITS,
        against_travel: bool = False,
        plot_x: str | None = None,
        plot_y: Sequence[str] = (),
        option: str = "directory",
        worker: ChartWorker | None = None,
    ) -> list[Path]:
        """Write `DIFFERENCES_FILE` and the charts (PNG) into `directory` (created if its
        parent exists); returns the files written. worker: draws the charts (see
        `chart_worker`; None: this process, in two processes where it can)."""
        from suspension_sim.files import check_output, write_text_atomically

        folder = check_output(directory, where=option, folder=True)
        folder.mkdir(exist_ok=True)
        job = self.charts(
            folder,
            units=units,
            against_travel=against_travel,
            plot_x=plot_x,
            plot_y=plot_y,
            option=option,
        )
        # the columns named are checked before anything is written (InputError)
        figure_plan(**{k: v for k, v in job.items() if k not in ("directory", "option")})
        if worker is not None:
            worker.submit(**job)  # drawn while the differences are worked out
        csv = self.differences_in(units).to_csv(float_format="%.12g")
        paths = [write_text_atomically(folder / DIFFERENCES_FILE, csv)]
        paths += plot_table(**job) if worker is None else worker.result()
        return paths


def _one_per_metric(items: list[tuple[float, str]]) -> list[str]:
    """The columns of `items` (sorted, largest first), only the first of each metric: a
    mirrored pair (toe FL and FR) or an x, z pair takes one line, leaving room for the
    next quantity."""
    seen: set[str] = set()
    out = []
    for _, c in items:
        found = metric_of(c)
        metric = found[0].id if found is not None else c
        if metric not in seen:
            seen.add(metric)
            out.append(c)
    return out


def _model(item: KinematicModel | str | os.PathLike[str]) -> KinematicModel:
    if not isinstance(item, str | os.PathLike):
        return item
    from suspension_sim.model import KinematicModel
    from suspension_sim.workbook.reader import read_car

    return KinematicModel(read_car(Path(item)))


def resolve_sweep(
    sweep: SweepSpec | str,
    models: Sequence[KinematicModel],
    sweep_file: str | os.PathLike[str] | None = None,
) -> SweepSpec:
    """`sweep` itself, or what the name means for the first car, as ``suspension-sim
    sweep`` resolves it (`suspension_sim.sweeps.standard.choose_sweep`): a named sweep
    (`sweep_file`, else the first workbook's Sweeps section or a sweeps.yaml beside it),
    else the standard motion of that name (heave, roll, pitch, steer, bump:WHEEL, ...)."""
    if isinstance(sweep, SweepSpec):
        return sweep
    from suspension_sim.sweeps.standard import choose_sweep, standard_sweep

    source = models[0].car.source_path
    if source is not None:
        return choose_sweep(models[0], source, sweep, sweep_file).spec
    if sweep_file is not None:
        specs = load_sweeps(sweep_file)
        if sweep in specs:
            return specs[sweep]
    return standard_sweep(models[0], sweep)


def compare(
    models_or_paths: Sequence[KinematicModel | str | os.PathLike[str]],
    sweep: SweepSpec | str,
    *,
    sweep_file: str | os.PathLike[str] | None = None,
    convention: str | None = None,
    names: Sequence[str] | None = None,
    resolve: Callable[[str, KinematicModel], SweepSpec] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Run the same sweep on each car (models or workbook paths) and compare them.

    sweep: a `SweepSpec` or a sweep name (`resolve_sweep`, or `resolve(name, first
    model)` when given). convention: the metrics' sign preset for every car (None:
    the first car's, so that all are compared in one). names: legend names
    (default `car_names`). progress(done, total) counts steps over all cars.
    Corners are matched by position (`corner_maps`): a sweep naming a wheel or
    damper of the first car runs on each car's wheel or damper at that corner.
    InputError for fewer than two cars, or cars whose wheels are at other corners.
    """
    from suspension_sim.solve import engine

    # No lazy kernel load in the middle (the cars' corners, the design poses): the
    # kernel is loaded up front when all the cars' steps together pay for it
    # (`KERNEL_PAYS_STEPS`; measured: 2 x 13 heave steps), else everything is numpy.
    with engine.hold_load():
        return _compare(models_or_paths, sweep, sweep_file, convention, names, resolve, progress)


def _compare(
    models_or_paths: Sequence[KinematicModel | str | os.PathLike[str]],
    sweep: SweepSpec | str,
    sweep_file: str | os.PathLike[str] | None,
    convention: str | None,
    names: Sequence[str] | None,
    resolve: Callable[[str, KinematicModel], SweepSpec] | None,
    progress: Callable[[int, int], None] | None,
) -> Comparison:
    """`compare`'s work."""
    from suspension_sim.metrics import pose_metrics, preset
    from suspension_sim.solve.solver import solve

    items = list(models_or_paths)
    if len(items) < 2:
        raise InputError(
            f"compare needs at least two cars, got {len(items)}", where="models_or_paths"
        )
    models = [_model(m) for m in items]
    if resolve is not None and isinstance(sweep, str):
        spec = resolve(sweep, models[0])
    else:
        spec = resolve_sweep(sweep, models, sweep_file)
    labels = list(names) if names is not None else car_names(models)
    if len(labels) != len(models) or len(set(labels)) != len(labels):
        raise InputError("names must be one distinct name per car", where="names")
    conv = preset(convention or models[0].car.options.sign_convention).name
    corners = corner_maps(models, labels)
    specs = [spec_for(spec, cm) for cm in corners]
    totals = [len(s.build(m)) for s, m in zip(specs, models, strict=True)]
    if sum(totals) >= KERNEL_PAYS_STEPS:  # all the cars' steps together pay for a load
        from suspension_sim.solve import engine

        engine.load_kernel_if_cached()
    done = 0
    results, design = [], []
    for m, s, cm, total in zip(models, specs, corners, totals, strict=True):

        def step(k: int, _n: int, base: int = done) -> None:
            if progress is not None:
                progress(base + k, sum(totals))

        results.append(run_sweep(m, s, step, convention=conv, keep_poses=False))
        own = pose_metrics(solve(m), conv, rates=True)
        design.append({cm.column(k): v for k, v in own.items()})
        done += total
    return Comparison(spec, labels, results, design, corners)


def spec_for(spec: SweepSpec, corners: CornerMap) -> SweepSpec:
    """`spec` (written for the first car) for a car with these corners: the wheel of a
    bump, the damper of a stroke, held dampers and targets renamed to this car's
    wheel or damper at the same corner."""
    if not corners.renamed and all(a == b for a, b in corners.dampers.items()):
        return spec

    def motion(m: MotionSpec | None) -> MotionSpec | None:
        if m is None or m.of is None:
            return m
        return replace(m, of=corners.inverse_name(m.of))

    def own(name: str) -> str:
        return corners.inverse_name(name) or name

    targets = {
        own(k): replace(t, name=own(t.name)) if t.kind != "coordinate" else t
        for k, t in spec.targets.items()
    }
    main = motion(spec.motion)
    assert main is not None
    return replace(
        spec,
        motion=main,
        grid=motion(spec.grid),
        fixed={own(k): v for k, v in spec.fixed.items()},
        targets=targets,
    )


__all__ = [
    "CAR_COLUMN",
    "DESIGN_METRICS",
    "DIFFERENCES_FILE",
    "Comparison",
    "CornerMap",
    "car_names",
    "compare",
    "corner_maps",
    "resolve_sweep",
    "spec_for",
]
