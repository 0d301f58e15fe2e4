"""The figures of a sweep's table: per-wheel geometry against the swept variable, roll and
pitch centres, steering with the ideal-Ackermann line, any columns against any column.

One figure per quantity with a panel per wheel (camber, toe, caster, scrub radius,
mechanical trail, motion ratio), one line per value of a grid's second motion (or per
car, `suspension_sim.outputs.compare`), and a roll-centre figure: height against lateral
offset (its migration) and against the swept variable, per axle. Steer motions add
roadwheel angles against the steering-wheel angle with the ideal-Ackermann line
(``ackermann``), pitch motions the antis and the pitch centres (``antis``). A roll or
pitch centre from nearly parallel force lines is ringed
(`suspension_sim.outputs.near_parallel`).

Each ``*_figure`` function returns the matplotlib `Figure` (its lines hold exactly the
data plotted) on the Agg canvas (no display, no change to the user's pyplot backend);
`suspension_sim.outputs.chart_files` writes them. Units and labels:
`suspension_sim.outputs.chart_units`. Every axis never spans less than its minimum span
(`chart_units.min_span`), so round-off never shows as a spike. Margins are measured once
from the texts when a figure is built (`chart_layout.fit_margins`; no layout engine).
`figure_plan` lists the charts of a table without building them, and inside
`reused_figures` every builder draws on the figure of its shape made before, cleared
(the commands draw their charts so: `chart_files.draw_plan`).

One module (~700 lines): every figure shares the panel layout, the units and the
reused-figure mechanism; the steering and antis figures would split out first.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.names import did_you_mean
from suspension_sim.outputs.chart_layout import fit_margins
from suspension_sim.outputs.chart_units import (
    DEFAULT_UNITS,
    MIN_SPAN_DEG,
    OutputUnits,
    axis_label,
    column_label,
    format_values,
    min_span,
)
from suspension_sim.outputs.near_parallel import mark_near_parallel

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

WHEEL_CHARTS: tuple[tuple[str, str, str], ...] = (
    ("camber", "camber_{}_deg", "camber"),
    ("toe", "toe_{}_deg", "toe"),
    ("caster", "caster_{}_deg", "caster"),
    ("scrub", "scrub_radius_{}_mm", "scrub radius"),
    ("trail", "mechanical_trail_{}_mm", "mechanical trail"),
    ("motion_ratio", "motion_ratio_{}", "motion ratio (damper / wheel)"),
)
"""(file stem, column pattern with the wheel name, title) of the per-wheel charts."""
CHART_STEMS: tuple[str, ...] = (*(c[0] for c in WHEEL_CHARTS), "roll_centre", "ackermann", "antis")
"""File stems of every standard chart (``ackermann`` for steer motions, ``antis`` for pitch)."""
STEER_COLUMNS = ("steering_wheel_angle_deg", "rack_mm", "steering_deg")
"""Swept columns of a steer motion (they get the ``ackermann`` chart)."""
PITCH_COLUMN = "chassis_pitch_deg"
"""Swept column of a pitch motion (it gets the ``antis`` chart)."""
DPI = 110
"""Pixels per inch of the PNG files."""


def xy_stem(x: str, ys: Sequence[str]) -> str:
    """File stem of the chart of `ys` against `x` (``toe_FL_deg_vs_rack_mm``)."""
    stem = f"{ys[0]}{'_etc' if len(ys) > 1 else ''}_vs_{x}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)


def check_columns(
    table: pd.DataFrame, columns: Sequence[str], *, where: str, units: OutputUnits = DEFAULT_UNITS
) -> list[str]:
    """`columns` as the table names them; a name in the output units (``camber_FL_rad``)
    is accepted too. InputError at `where` for an unknown one, with the nearest name."""
    by_output = {units.column(c): c for c in table.columns if isinstance(c, str)}
    out = []
    for name in columns:
        if name in table.columns:
            out.append(name)
        elif name in by_output:
            out.append(by_output[name])
        else:
            raise InputError(
                f"no column {name!r} in the table." + did_you_mean(name, list(by_output)),
                where=where,
                hint="the columns are those of the sweep's table (--out); docs/metrics.md",
            )
    return out


def table_figures(
    table: pd.DataFrame,
    x: str,
    *,
    wheels: Sequence[str],
    series: str | None = None,
    title: str = "",
    charts: Sequence[str] | None = None,
    units: OutputUnits = DEFAULT_UNITS,
    against_travel: bool = False,
    plot_y: Sequence[str] = (),
) -> dict[str, Figure]:
    """The figures `plot_table` writes, by file stem (charts without data left out).

    against_travel: per-wheel charts against each wheel's travel
    (``wheel_travel_<wheel>_mm``) instead of x. plot_y: columns drawn
    against x in one more chart (`xy_stem`). Values and labels in `units`.
    """
    plan = figure_plan(
        table,
        x,
        wheels=wheels,
        series=series,
        title=title,
        charts=charts,
        units=units,
        against_travel=against_travel,
        plot_y=plot_y,
    )
    figures: dict[str, Figure] = {}
    for stem, build in plan:
        fig = build()
        if fig is not None:
            figures[stem] = fig
    return figures


FigureBuilder = Callable[[], "Figure | None"]
"""Builds one chart's figure when called (None: the chart has no data)."""


def figure_plan(
    table: pd.DataFrame,
    x: str,
    *,
    wheels: Sequence[str],
    series: str | None = None,
    title: str = "",
    charts: Sequence[str] | None = None,
    units: OutputUnits = DEFAULT_UNITS,
    against_travel: bool = False,
    plot_y: Sequence[str] = (),
) -> list[tuple[str, FigureBuilder]]:
    """(file stem, builder) of every chart `table_figures` may draw, in its order,
    nothing built yet (see `table_figures` for the arguments): the columns named are
    checked here (InputError), so that the figures can be built elsewhere, one at a
    time (`chart_files.plot_table`: each saved before the next is built, in two
    processes)."""
    x = check_columns(table, [x], where="plot_x", units=units)[0]
    plot_y = check_columns(table, list(plot_y), where="plot_y", units=units)
    wanted = set(charts) if charts is not None else set(CHART_STEMS)
    plan: list[tuple[str, FigureBuilder]] = []
    travel = {w: f"wheel_travel_{w}_mm" for w in wheels} if against_travel else None
    for stem, pattern, name in WHEEL_CHARTS:
        if stem in wanted:
            columns = {w: pattern.format(w) for w in wheels}
            plan.append(
                (
                    stem,
                    partial(
                        wheel_figure,
                        table,
                        x,
                        columns,
                        series=series,
                        title=f"{title}: {name}",
                        units=units,
                        xs=travel,
                    ),
                )
            )
    extras = (
        ("roll_centre", True, roll_centre_figure, "roll centre"),
        ("ackermann", x in STEER_COLUMNS, steer_figure, "steering"),
        ("antis", x == PITCH_COLUMN, pitch_figure, "anti-dive, anti-squat, pitch centre"),
    )
    for stem, applies, build, name in extras:
        if stem in wanted and applies:
            plan.append(
                (
                    stem,
                    partial(build, table, x, series=series, title=f"{title}: {name}", units=units),
                )
            )
    if plot_y:
        plan.append(
            (
                xy_stem(x, plot_y),
                partial(xy_figure, table, x, plot_y, series=series, title=title, units=units),
            )
        )
    return plan


# -- building blocks ------------------------------------------------------------------------
def hold_span(ax: Axes, span: float, axis: str = "y") -> None:
    """Widen `ax`'s `axis` ("x" or "y") about its middle to at least `span` (data units)."""
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo >= span:
        return
    mid = 0.5 * (lo + hi)
    if axis == "y":
        ax.set_ylim(mid - 0.5 * span, mid + 0.5 * span)
    else:
        ax.set_xlim(mid - 0.5 * span, mid + 0.5 * span)


def _groups(
    table: pd.DataFrame, series: str | None, units: OutputUnits = DEFAULT_UNITS
) -> list[tuple[str, pd.DataFrame]]:
    """(legend text, rows) per value of `series`: text values in order of appearance,
    numbers sorted, written ``<label> = <value>`` with one precision for all."""
    if series is None or series not in table.columns:
        return [("", table)]
    column = table[series]
    if not pd.api.types.is_numeric_dtype(column):
        return [(str(v), table[column == v]) for v in pd.unique(column)]
    groups = list(table.groupby(series, sort=True))
    texts = format_values([float(v) * units.factor(series) for v, _ in groups])  # type: ignore[arg-type]
    name = units.label(series)
    return [(f"{name} = {t}", g) for t, (_, g) in zip(texts, groups, strict=True)]


_REUSED: dict[tuple[int, int, float, float], Figure] | None = None
"""Inside `reused_figures`: the figure made for each (rows, cols, width, height)."""
_SPARE: dict[tuple[int, int, float, float], Figure] = {}
"""Figures made and drawn ahead (`warm_up`): where the next `reused_figures` starts."""


@contextlib.contextmanager
def reused_figures() -> Iterator[None]:
    """Within this block every ``*_figure`` function draws on the figure it made before
    for the same grid and size, cleared (`_clear`), instead of making a new one: the
    axes and their ticks are made once (a third of the time of a chart), and the text
    sizes measured for one chart serve the next. For charts drawn one after the other,
    each saved before the next is built: a figure returned inside must not be kept
    (the next chart of its shape overwrites it). The files are those of new figures,
    byte for byte (a test checks)."""
    global _REUSED
    outer, _REUSED = _REUSED, dict(_SPARE)
    try:
        yield
    finally:
        _REUSED = outer


def warm_up(stop: Callable[[], bool] | None = None) -> None:
    """Make the figure of the per-wheel charts (a 2 x 2 grid of panels: most of the
    standard charts, and the first one drawn) and draw it once with a little made-up
    data, for the next `reused_figures` block of this process and of the processes
    forked from it: its axes, their ticks and the font are then ready (~0.05 s of the
    first chart, for ~0.15 s of CPU spent ahead). The chart worker does this while the
    command solves (`chart_worker`); the charts drawn after are those of new figures.
    stop: asked first; True skips the drawing (the work has arrived)."""
    global _SPARE
    if stop is not None and stop():
        return
    x = [-1.0, 0.0, 1.0]
    wheels = {w: f"camber_{w}_deg" for w in ("FL", "FR", "RL", "RR")}
    table = pd.DataFrame({"chassis_heave_mm": x, **{c: x for c in wheels.values()}})
    with reused_figures():
        fig = wheel_figure(table, "chassis_heave_mm", wheels)
        if fig is not None:
            fig.canvas.draw()
        assert _REUSED is not None
        _SPARE = dict(_REUSED)


def _clear(fig: Figure) -> None:
    """What a chart left on a figure removed, so that the next one draws as on a new
    figure: its lines, rings, texts and legends, titles and labels, the colour cycle,
    the data limits and autoscaling, hidden axes and panels."""
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None:
        suptitle.set_text("")
    for ax in fig.axes:
        for artist in [*ax.lines, *ax.collections, *ax.texts, *ax.patches]:
            artist.remove()
        legend = ax.get_legend()
        if legend is not None:
            legend.remove()
        ax.set_title("")
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.set_axis_on()
        ax.set_visible(True)
        ax.set_prop_cycle(None)
        ax.relim()
        ax.set_xlim(0.0, 1.0)  # a new axes' limits (anything placed before data uses them)
        ax.set_ylim(0.0, 1.0)
        ax.set_autoscale_on(True)
        if hasattr(ax, "_autotitlepos"):
            ax._autotitlepos = True  # set_title("") keeps what `fit_margins` set


def _new_figure(panels: int, width: float = 5.2, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    """A figure of `panels` panels (two columns from two panels on) on the Agg canvas;
    inside `reused_figures`, the one made before for this shape, cleared."""
    cols = 1 if panels == 1 else 2
    rows = math.ceil(panels / cols)
    key = (rows, cols, width, height)
    if _REUSED is not None and key in _REUSED:
        fig = _REUSED[key]
        _clear(fig)
        axes = list(fig.axes)
    else:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        # No layout engine: the builders end with `fit_margins` (measured once, not at
        # every draw).
        fig = Figure(figsize=(width * cols, height * rows), dpi=DPI)
        FigureCanvasAgg(fig)
        axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
        if _REUSED is not None:
            _REUSED[key] = fig
    for ax in axes[panels:]:
        ax.set_visible(False)
    return fig, axes[:panels]


def _finish(
    ax: Axes, x: str, ys: Sequence[str], units: OutputUnits, *, legend: bool = False
) -> None:
    """Grid, the minimum spans of both axes (the largest of the columns drawn), no
    offset notation, a legend when asked."""
    ax.grid(True, alpha=0.3)
    hold_span(ax, min_span(x, units), "x")
    if ys:
        hold_span(ax, max(min_span(y, units) for y in ys), "y")
    with contextlib.suppress(AttributeError):  # not a ScalarFormatter
        ax.ticklabel_format(useOffset=False)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")


def _has_data(table: pd.DataFrame, column: str) -> bool:
    return column in table.columns and bool(np.isfinite(table[column].to_numpy(float)).any())


# -- figures ----------------------------------------------------------------------------------
def wheel_figure(
    table: pd.DataFrame,
    x: str,
    columns: dict[str, str],
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
    xs: Mapping[str, str] | None = None,
) -> Figure | None:
    """One panel per wheel (titled with its name) of `columns[wheel]` against x, a line
    per value of `series`; None if there is no data. xs: a column per wheel to use as
    x instead (e.g. its wheel travel)."""
    present = {w: c for w, c in columns.items() if _has_data(table, c)}
    x_of = {w: (xs or {}).get(w, x) for w in columns}
    if not present or not all(c in table.columns for c in x_of.values()):
        return None
    fig, axes = _new_figure(len(columns))
    groups = _groups(table, series, units)
    for ax, (wheel, column) in zip(axes, columns.items(), strict=True):
        if wheel not in present:
            ax.text(
                0.5, 0.5, f"{wheel}: not defined", ha="center", va="center", transform=ax.transAxes
            )
            ax.set_axis_off()
            continue
        wx = x_of[wheel]
        for name, g in groups:
            ax.plot(
                units.values(g, wx),
                units.values(g, column),
                marker="o",
                markersize=3,
                label=name or None,
            )
        ax.set_title(wheel)
        ax.set_xlabel(axis_label(wx, units))
        ax.set_ylabel(axis_label(column, units))
        _finish(ax, wx, [column], units, legend=len(groups) > 1)
    fig.suptitle(title)
    fit_margins(fig)
    return fig


def roll_centre_figure(
    table: pd.DataFrame,
    x: str,
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Figure | None:
    """Roll-centre height against its lateral offset (migration) and against x, per axle;
    a centre from nearly parallel force lines is ringed on both panels."""
    axles = [
        c[len("roll_centre_height_") : -len("_mm")]
        for c in table.columns
        if c.startswith("roll_centre_height_") and c.endswith("_mm") and _has_data(table, c)
    ]
    if not axles or x not in table.columns:
        return None
    fig, (migration, height) = _new_figure(2)
    heights, lats = [], []
    for axle in axles:
        h, lat = f"roll_centre_height_{axle}_mm", f"roll_centre_lateral_{axle}_mm"
        heights.append(h)
        for name, g in _groups(table, series, units):
            label = f"{axle} {name}".strip()
            if lat in g.columns:
                lats.append(lat)
                migration.plot(
                    units.values(g, lat), units.values(g, h), marker="o", markersize=3, label=label
                )
                mark_near_parallel(migration, g, lat, h, units)
            height.plot(
                units.values(g, x), units.values(g, h), marker="o", markersize=3, label=label
            )
            mark_near_parallel(height, g, x, h, units)
    migration.set_xlabel(f"roll centre lateral offset [{units.length}] (+ = left)")
    migration.set_ylabel(f"roll centre height [{units.length}]")
    migration.set_title("migration")
    height.set_xlabel(axis_label(x, units))
    height.set_ylabel(f"roll centre height [{units.length}]")
    height.set_title("height")
    _finish(migration, lats[0] if lats else heights[0], heights, units, legend=True)
    _finish(height, x, heights, units, legend=True)
    fig.suptitle(title)
    fit_margins(fig)
    return fig


def _steered(table: pd.DataFrame, units: OutputUnits) -> list[str]:
    """Wheels whose roadwheel angle (``steer_<wheel>_deg``) changes along the table."""
    out = []
    for c in table.columns:
        if isinstance(c, str) and c.startswith("steer_") and c.endswith("_deg") and "rate" not in c:
            v = table[c].to_numpy(float)
            v = v[np.isfinite(v)]
            if v.size and np.ptp(v) >= MIN_SPAN_DEG:
                out.append(c[len("steer_") : -len("_deg")])
    return out


def ideal_ackermann(
    steer_left: np.ndarray, steer_right: np.ndarray, wheelbase: float, track: float
) -> np.ndarray:
    """Roadwheel angle (rad, + = left) of the inner wheel that gives ideal Ackermann for
    the outer wheel's angle: ``atan(L / (L / tan d_o - t))``, the inner wheel being on
    the side of the turn (the mean angle's sign). 0 straight ahead."""
    left = np.asarray(steer_left, float)
    right = np.asarray(steer_right, float)
    turn_left = 0.5 * (left + right) >= 0
    outer = np.where(turn_left, right, -left)  # magnitude-signed: + toward the turn
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = np.arctan(wheelbase / (wheelbase / np.tan(outer) - track))
    inner = np.where(np.abs(outer) > 0, inner, 0.0)
    return np.where(turn_left, inner, -inner)


def _design_row(table: pd.DataFrame, x: str) -> pd.Series:
    """The row closest to x = 0 (straight ahead, level)."""
    k = int(np.nanargmin(np.abs(table[x].to_numpy(float))))
    return table.iloc[k]


def steer_figure(
    table: pd.DataFrame,
    x: str,
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Figure | None:
    """Roadwheel angles against the steering-wheel angle (the rack travel if the car has
    no steering ratio) with the ideal-Ackermann line for the inner wheel, and the
    Ackermann % against the same axis; None if no wheel steers."""
    if _has_data(table, "steering_wheel_angle_deg"):
        x = "steering_wheel_angle_deg"
    steered = _steered(table, units)
    if not steered or x not in table.columns:
        return None
    ackermann = [
        c for c in table.columns if str(c).startswith("ackermann_") and _has_data(table, c)
    ]
    fig, axes = _new_figure(2 if ackermann else 1)
    angles, groups = axes[0], _groups(table, series, units)
    pair = _left_right(table, steered)
    ys = [f"steer_{w}_deg" for w in steered]
    for name, g in groups:
        for w, c in zip(steered, ys, strict=True):
            label = f"{w} {name}".strip()
            angles.plot(
                units.values(g, x), units.values(g, c), marker="o", markersize=3, label=label
            )
        if pair is not None:
            left, right = pair
            ref = _design_row(g, x)
            track = float(ref[f"contact_point_{left}_y_mm"] - ref[f"contact_point_{right}_y_mm"])
            bases = [c for c in g.columns if str(c).startswith("wheelbase_")]
            base = float(np.mean([ref[c] for c in bases])) if bases else float("nan")
            ideal = ideal_ackermann(
                np.radians(g[f"steer_{left}_deg"].to_numpy(float)),
                np.radians(g[f"steer_{right}_deg"].to_numpy(float)),
                base,
                track,
            )
            angles.plot(
                units.values(g, x),
                np.degrees(ideal) * units.factor("steer_deg"),
                linestyle="--",
                color="0.4",
                label=f"ideal Ackermann, inner wheel {name}".strip(),
            )
    angles.set_xlabel(axis_label(x, units))
    angles.set_ylabel(f"roadwheel angle [{units.angle}] (+ = left)")
    angles.set_title("roadwheel angles")
    _finish(angles, x, ys, units, legend=True)
    if ackermann:
        ax = axes[1]
        for name, g in groups:
            for c in ackermann:
                text = f"{column_label(c)} {name}".strip() if len(ackermann) > 1 else name
                ax.plot(
                    units.values(g, x),
                    units.values(g, c),
                    marker="o",
                    markersize=3,
                    label=text or None,
                )
        ax.set_xlabel(axis_label(x, units))
        ax.set_ylabel(units.label(ackermann[0]) + " (100 = ideal)")
        ax.set_title("Ackermann")
        _finish(ax, x, ackermann, units, legend=len(groups) > 1 or len(ackermann) > 1)
    fig.suptitle(title)
    fit_margins(fig)
    return fig


def _left_right(table: pd.DataFrame, wheels: Sequence[str]) -> tuple[str, str] | None:
    """(left, right) of two steered wheels, from where their contact points are (y)."""
    if len(wheels) != 2:
        return None
    ys = []
    for w in wheels:
        c = f"contact_point_{w}_y_mm"
        if not _has_data(table, c):
            return None
        ys.append(float(np.nanmean(table[c].to_numpy(float))))
    if ys[0] == ys[1]:
        return None
    return (wheels[0], wheels[1]) if ys[0] > ys[1] else (wheels[1], wheels[0])


_ANTI = re.compile(r"^anti_(dive|lift|squat)_.+_pct$")
_PITCH_CENTRE = re.compile(r"^pitch_centre_(.+)_z_mm$")


def pitch_figure(
    table: pd.DataFrame,
    x: str,
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Figure | None:
    """Anti-dive/-lift/-squat against x, and the pitch centre of each side (height against
    x, and against its x position: its migration; a centre from nearly parallel lines is
    ringed); None if the table has none."""
    antis = [c for c in table.columns if _ANTI.match(str(c)) and _has_data(table, c)]
    sides = [
        m.group(1)
        for c in table.columns
        if (m := _PITCH_CENTRE.match(str(c))) and _has_data(table, c)
    ]
    if not (antis or sides) or x not in table.columns:
        return None
    fig, axes = _new_figure(3 if antis and sides else 2 if sides else 1)
    groups = _groups(table, series, units)
    k = 0
    if antis:
        ax = axes[0]
        for name, g in groups:
            for c in antis:
                ax.plot(
                    units.values(g, x),
                    units.values(g, c),
                    marker="o",
                    markersize=3,
                    label=f"{column_label(c).removesuffix(' [%]')} {name}".strip(),
                )
        ax.set_xlabel(axis_label(x, units))
        ax.set_ylabel("anti [%] (+ = anti, - = pro)")
        ax.set_title("antis")
        _finish(ax, x, antis, units, legend=True)
        k = 1
    if sides:
        height, migration = axes[k], axes[k + 1]
        zs = [f"pitch_centre_{s}_z_mm" for s in sides]
        xs = [f"pitch_centre_{s}_x_mm" for s in sides]
        for name, g in groups:
            for side, z, px in zip(sides, zs, xs, strict=True):
                label = f"{side} {name}".strip()
                height.plot(
                    units.values(g, x), units.values(g, z), marker="o", markersize=3, label=label
                )
                mark_near_parallel(height, g, x, z, units)
                if px in g.columns:
                    migration.plot(
                        units.values(g, px),
                        units.values(g, z),
                        marker="o",
                        markersize=3,
                        label=label,
                    )
                    mark_near_parallel(migration, g, px, z, units)
        height.set_xlabel(axis_label(x, units))
        height.set_ylabel(f"pitch centre height [{units.length}]")
        height.set_title("pitch centre height")
        migration.set_xlabel(f"pitch centre x [{units.length}] (+ = forward)")
        migration.set_ylabel(f"pitch centre height [{units.length}]")
        migration.set_title("pitch centre migration")
        _finish(height, x, zs, units, legend=True)
        _finish(migration, xs[0], zs, units, legend=True)
    fig.suptitle(title)
    fit_margins(fig)
    return fig


def xy_figure(
    table: pd.DataFrame,
    x: str,
    ys: Sequence[str],
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Figure | None:
    """Any columns against any column: a panel per unit of the `ys` (columns in the same
    unit share one), a line per column and value of `series`; None without data."""
    present = [c for c in ys if _has_data(table, c)]
    if not present or x not in table.columns:
        return None
    by_unit: dict[str, list[str]] = {}
    for c in present:
        by_unit.setdefault(units.unit_text(c) or ("%" if c.endswith("_pct") else "-"), []).append(c)
    fig, axes = _new_figure(len(by_unit), width=6.4, height=4.2)
    groups = _groups(table, series, units)
    for ax, columns in zip(axes, by_unit.values(), strict=True):
        for name, g in groups:
            for c in columns:
                label = f"{column_label(c).rsplit(' [', 1)[0]} {name}".strip()
                ax.plot(
                    units.values(g, x), units.values(g, c), marker="o", markersize=3, label=label
                )
        ax.set_xlabel(axis_label(x, units))
        ax.set_ylabel(
            axis_label(columns[0], units) if len(columns) == 1 else _unit_only(columns[0], units)
        )
        _finish(ax, x, columns, units, legend=len(columns) > 1 or len(groups) > 1)
    fig.suptitle(title)
    fit_margins(fig)
    return fig


def _unit_only(column: str, units: OutputUnits) -> str:
    unit = units.unit_text(column) or ("%" if column.endswith("_pct") else "-")
    return f"[{unit}]"


def line_figure(
    table: pd.DataFrame,
    x: str,
    columns: Sequence[str],
    *,
    title: str = "",
    ylabel: str | None = None,
    units: OutputUnits = DEFAULT_UNITS,
) -> Figure | None:
    """Several columns against x in one panel (for the example scripts)."""
    present = [c for c in columns if _has_data(table, c)]
    if not present or x not in table.columns:
        return None
    fig, (ax,) = _new_figure(1, width=6.4, height=4.2)
    for c in present:
        ax.plot(
            units.values(table, x),
            units.values(table, c),
            marker="o",
            markersize=3,
            label=units.label(c),
        )
    ax.set_xlabel(axis_label(x, units))
    ax.set_ylabel(ylabel or (units.label(present[0]) if len(present) == 1 else ""))
    _finish(ax, x, present, units, legend=True)
    ax.set_title(title)
    fit_margins(fig)
    return fig
