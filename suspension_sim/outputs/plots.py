"""PNG charts of a sweep's table: per-wheel geometry against the swept variable.

One figure per quantity with a panel per wheel (camber, toe, caster, scrub
radius, mechanical trail, motion ratio), one line per value of a grid's
second motion (or per car, `suspension_sim.outputs.compare`), and a
roll-centre figure: height against lateral offset (its migration) and against
the swept variable, per axle. Steer motions add roadwheel angles against the
steering-wheel angle with the ideal-Ackermann line (``ackermann``), pitch
motions the antis and the pitch centres (``antis``); any columns can be drawn
against any column (`xy_figure`). Matplotlib is imported only here, with the
Agg canvas (no display, and no change to the user's pyplot backend). Column
names and units: docs/metrics.md.

Every motion axis says its sign (``chassis heave [mm] (+ up = rebound)``); an
axis never spans less than `MIN_SPAN_DEG`, `MIN_SPAN_MM` or `MIN_SPAN_RATIO`,
so round-off never shows as a spike. `OutputUnits` converts mm/deg columns to
inches or radians at the edge (tables and charts), renaming their suffix.

Each chart is built by a ``*_figure`` function that returns the matplotlib
`Figure` (its lines hold exactly the data plotted), and written by the
matching ``*_chart`` function through `save_figure`: atomically, as PNG.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import atomic_path
from suspension_sim.names import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from suspension_sim.sweeps import SweepResult

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

MIN_SPAN_DEG = 0.01
"""Smallest span of an angle axis (deg): a flatter line is drawn flat, not as noise."""
MIN_SPAN_MM = 0.1
"""Smallest span of a length axis (mm)."""
MIN_SPAN_RATIO = 0.001
"""Smallest span of a ratio axis (motion ratio, deg/deg, mm/mm; 0.1 for a % axis)."""
MIN_SPAN_RATE = 1e-4
"""Smallest span of a rate axis (deg/mm and other mixed units)."""
MAX_DECIMALS = 6
"""Most decimals of a series value in a legend."""

LENGTH_UNITS = ("mm", "in")
"""Output length units (`OutputUnits.length`)."""
ANGLE_UNITS = ("deg", "rad")
"""Output angle units (`OutputUnits.angle`)."""
_SCALE = {"mm": 1.0, "in": 1.0 / 25.4, "deg": 1.0, "rad": math.pi / 180.0}
"""Output units per table unit (the tables hold mm and deg)."""
_SUFFIX = re.compile(r"_(mm|deg)(?:_per_(mm|deg|25mm))?$")
"""A column's unit suffix: ``_mm``, ``_deg``, ``_deg_per_mm``, ``_deg_per_25mm``, ..."""
_UNIT_TEXT = re.compile(r"\[[^\]]*\]$")

MOTION_SIGNS: dict[str, str] = {
    "chassis_heave_mm": "+ up = rebound",
    "chassis_roll_deg": "+ = left side up",
    "chassis_pitch_deg": "+ = nose down",
    "chassis_yaw_deg": "+ = nose left",
    "chassis_x_mm": "+ = forward",
    "chassis_y_mm": "+ = left",
    "rack_mm": "+ = toward +Y",
    "steering_wheel_angle_deg": "+ = left turn",
    "steering_deg": "OptimumK's steering, + = rack toward +Y",
}
"""Sign written on the axis of each swept column (docs/conventions.md)."""
PREFIX_SIGNS: tuple[tuple[str, str], ...] = (
    ("wheel_travel_", "+ = bump"),
    ("stroke_", "+ = compression"),
)
"""Sign of swept columns named by a prefix (a wheel's travel, a damper's stroke)."""


# -- units ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class OutputUnits:
    """Units of the tables and charts written (the tables computed hold mm and deg).

    length: ``"mm"`` or ``"in"``; angle: ``"deg"`` or ``"rad"``. A column whose
    name ends in ``_mm``, ``_deg`` or ``_<a>_per_<b>`` is scaled and its suffix
    renamed (``camber_gain_FL_deg_per_mm`` -> ``camber_gain_FL_rad_per_in``);
    a ratio of like units (deg/deg), a per-25-mm denominator, % and plain
    ratios keep their numbers.
    """

    length: str = "mm"
    angle: str = "deg"

    def __post_init__(self) -> None:
        if self.length not in LENGTH_UNITS:
            raise InputError(f"unknown length unit {self.length!r}", where="units", hint="mm or in")
        if self.angle not in ANGLE_UNITS:
            raise InputError(
                f"unknown angle unit {self.angle!r}", where="angles", hint="deg or rad"
            )

    @property
    def is_default(self) -> bool:
        """True for mm and deg (nothing to convert)."""
        return self.length == "mm" and self.angle == "deg"

    def _out(self, unit: str) -> str:
        return {"mm": self.length, "deg": self.angle}.get(unit, unit)

    def unit_pair(self, column: str) -> tuple[str, str | None] | None:
        found = _SUFFIX.search(column)
        if found is None:
            return None
        num, den = found.group(1), found.group(2)
        if den == num:
            return None  # deg/deg, mm/mm: a plain ratio
        return num, den

    def factor(self, column: str) -> float:
        """Multiplier from the table's unit (mm, deg) of `column` to the output unit."""
        units = self.unit_pair(column)
        if units is None:
            return 1.0
        num, den = units
        f = _SCALE[self._out(num)]
        if den in ("mm", "deg"):
            f /= _SCALE[self._out(den)]
        return f

    def column(self, column: str) -> str:
        """`column` renamed for the output units (``camber_FL_deg`` -> ``camber_FL_rad``)."""
        units = self.unit_pair(column)
        if units is None:
            return column
        num, den = units
        suffix = self._out(num) + (f"_per_{self._out(den)}" if den else "")
        return _SUFFIX.sub("_" + suffix, column)

    def unit_text(self, column: str) -> str | None:
        """The output unit of `column` as written in a label (``rad/in``), or None."""
        units = self.unit_pair(column)
        if units is None:
            return None
        num, den = units
        return self._out(num) + (f"/{self._out(den)}" if den else "")

    def convert(self, column: str, values: np.ndarray | pd.Series) -> np.ndarray:
        """`values` of `column` (mm, deg) in the output unit: inches are mm / 25.4 and
        radians deg * (pi / 180) exactly, as a user would compute them."""
        out = np.asarray(values, dtype=float)
        units = self.unit_pair(column)
        if units is None:
            return out
        num, den = units
        out = _to_output(out, self._out(num))
        if den in ("mm", "deg"):
            out = _to_output(out, self._out(den), inverse=True)
        return out

    def values(self, table: pd.DataFrame, column: str) -> np.ndarray:
        """`table[column]` in the output unit (floats)."""
        return self.convert(column, table[column].to_numpy(float))

    def table(self, table: pd.DataFrame) -> pd.DataFrame:
        """A copy of `table` with every mm/deg column converted and renamed (attrs kept)."""
        out = table.copy()
        if self.is_default:
            return out
        for c in table.columns:
            if isinstance(c, str) and pd.api.types.is_numeric_dtype(table[c]):
                out[c] = self.convert(c, table[c])
        out.columns = [self.column(c) if isinstance(c, str) else c for c in table.columns]
        out.attrs.update(table.attrs)
        return out

    def label(self, column: str) -> str:
        """Axis label of `column` (``camber FL [deg]``) in the output units."""
        text = _label(column)
        unit = self.unit_text(column)
        if unit is None:
            return text
        if _UNIT_TEXT.search(text):
            return _UNIT_TEXT.sub(f"[{unit}]", text)
        return f"{_SUFFIX.sub('', column).replace('_', ' ')} [{unit}]"


def _to_output(values: np.ndarray, unit: str, *, inverse: bool = False) -> np.ndarray:
    """mm -> in (/ 25.4) or deg -> rad (* pi / 180), or back with `inverse`."""
    if unit == "in":
        return values * 25.4 if inverse else values / 25.4
    if unit == "rad":
        return values / (math.pi / 180.0) if inverse else values * (math.pi / 180.0)
    return values


DEFAULT_UNITS = OutputUnits()
"""mm and deg: the tables as computed."""


def axis_label(column: str, units: OutputUnits = DEFAULT_UNITS) -> str:
    """Axis label of `column` with the sign of a swept variable, e.g.
    ``chassis heave [mm] (+ up = rebound)``, ``wheel travel FL [mm] (+ = bump)``."""
    text = units.label(column)
    sign = MOTION_SIGNS.get(column)
    if sign is None:
        sign = next((s for p, s in PREFIX_SIGNS if column.startswith(p)), None)
    return f"{text} ({sign})" if sign else text


def min_span(column: str, units: OutputUnits = DEFAULT_UNITS) -> float:
    """Smallest axis span for `column` in the output units (0.01 deg, 0.1 mm, 0.001 ratio)."""
    parsed = units.unit_pair(column)
    if parsed is None:
        return 100 * MIN_SPAN_RATIO if column.endswith("_pct") else MIN_SPAN_RATIO
    num, den = parsed
    if den is not None:
        return MIN_SPAN_RATE
    base = MIN_SPAN_MM if num == "mm" else MIN_SPAN_DEG
    return base * units.factor(column)


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


def format_values(values: Sequence[float] | np.ndarray) -> list[str]:
    """Numbers with one common count of decimals, the fewest that shows each exactly
    (up to `MAX_DECIMALS`): ``[-2.5, 0, 10] -> ["-2.5", "0.0", "10.0"]``."""
    arr = np.asarray(values, dtype=float)
    finite = arr[np.isfinite(arr)]
    decimals = MAX_DECIMALS
    for d in range(MAX_DECIMALS + 1):
        scale = np.maximum(np.abs(finite), 1.0)
        if np.all(np.abs(np.round(finite, d) - finite) <= 1e-9 * scale):
            decimals = d
            break
    return [f"{v:.{decimals}f}" for v in arr]


# -- writing --------------------------------------------------------------------------------
def plot_sweep(
    result: SweepResult,
    directory: str | os.PathLike[str],
    *,
    units: OutputUnits = DEFAULT_UNITS,
    against_travel: bool = False,
    plot_x: str | None = None,
    plot_y: Sequence[str] = (),
) -> list[Path]:
    """Write the charts of a sweep result into `directory` (created if needed).

    x = the first swept variable (or `plot_x`); a grid's second variable gives
    one line per value. `plot_y`: columns for an extra chart against x.
    Returns the files written (charts whose columns are all missing or NaN are
    left out).
    """
    table = result.table.reset_index()
    wheels = _wheels(result, table)
    series = result.columns[1] if len(result.columns) > 1 else None
    return plot_table(
        table,
        plot_x or result.columns[0],
        directory,
        wheels=wheels,
        series=series,
        title=result.spec.name,
        units=units,
        against_travel=against_travel,
        plot_y=plot_y,
    )


def _wheels(result: SweepResult, table: pd.DataFrame) -> list[str]:
    if result.model is not None:
        return [w.name for w in result.model.car.wheels]
    return sorted({c.split("_")[1] for c in table.columns if c.startswith("camber_")})


def plot_table(
    table: pd.DataFrame,
    x: str,
    directory: str | os.PathLike[str],
    *,
    wheels: Sequence[str],
    series: str | None = None,
    title: str = "",
    charts: Sequence[str] | None = None,
    option: str = "directory",
    units: OutputUnits = DEFAULT_UNITS,
    against_travel: bool = False,
    plot_y: Sequence[str] = (),
) -> list[Path]:
    """Per-wheel charts and the roll-centre chart of any metrics table, as
    ``<stem>.png`` files in `directory` (created if needed).

    series: a column whose values give one line each: numbers (a grid's
    second variable, ``rack [mm] = 10``) or text labels (e.g. a ``car``
    column: the text is the legend). charts: file stems to draw (default:
    `CHART_STEMS`; ``ackermann`` and ``antis`` only for steer and pitch
    motions). `option` names the folder in error messages. See `table_figures`.
    """
    out_dir = Path(directory)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"{out_dir} is a file, not a folder", where=option)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create folder {out_dir}: {exc.strerror}", where=option) from None
    figures = table_figures(
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
    return [
        save_figure(fig, out_dir / f"{stem}.png", option=option) for stem, fig in figures.items()
    ]


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
    x = check_columns(table, [x], where="plot_x", units=units)[0]
    plot_y = check_columns(table, list(plot_y), where="plot_y", units=units)
    wanted = set(charts) if charts is not None else set(CHART_STEMS)
    figures: dict[str, Figure] = {}
    travel = {w: f"wheel_travel_{w}_mm" for w in wheels} if against_travel else None
    for stem, pattern, name in WHEEL_CHARTS:
        if stem not in wanted:
            continue
        columns = {w: pattern.format(w) for w in wheels}
        fig = wheel_figure(
            table, x, columns, series=series, title=f"{title}: {name}", units=units, xs=travel
        )
        if fig is not None:
            figures[stem] = fig
    extras = (
        ("roll_centre", True, roll_centre_figure, "roll centre"),
        ("ackermann", x in STEER_COLUMNS, steer_figure, "steering"),
        ("antis", x == PITCH_COLUMN, pitch_figure, "anti-dive, anti-squat, pitch centre"),
    )
    for stem, applies, build, name in extras:
        if stem in wanted and applies:
            fig = build(table, x, series=series, title=f"{title}: {name}", units=units)
            if fig is not None:
                figures[stem] = fig
    if plot_y:
        fig = xy_figure(table, x, plot_y, series=series, title=title, units=units)
        if fig is not None:
            figures[xy_stem(x, plot_y)] = fig
    return figures


def save_figure(fig: Figure, path: str | os.PathLike[str], *, option: str = "path") -> Path:
    """Write `fig` as a PNG at `path` (atomically; a link is written through).

    The format is PNG whatever the file ending. InputError naming `option`
    when the file cannot be written.
    """
    out = Path(path)
    try:
        with atomic_path(out) as tmp:
            fig.savefig(tmp, dpi=DPI, format="png")
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror}", where=option) from None
    return out


# -- building blocks ------------------------------------------------------------------------
def _label(column: str) -> str:
    from suspension_sim.metrics import label

    return label(column)


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


def _new_figure(panels: int, width: float = 5.2, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cols = 1 if panels == 1 else 2
    rows = math.ceil(panels / cols)
    # constrained layout: no label or title is clipped, however long
    fig = Figure(figsize=(width * cols, height * rows), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
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


def wheel_chart(
    table: pd.DataFrame,
    x: str,
    columns: dict[str, str],
    path: str | os.PathLike[str],
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Path | None:
    """`wheel_figure` written to `path` as PNG; None (nothing written) if there is no data."""
    fig = wheel_figure(table, x, columns, series=series, title=title, units=units)
    return None if fig is None else save_figure(fig, path)


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
            ax.text(0.5, 0.5, f"{wheel}: not defined", ha="center", va="center")
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
    return fig


def roll_centre_chart(
    table: pd.DataFrame,
    x: str,
    path: str | os.PathLike[str],
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Path | None:
    """`roll_centre_figure` written to `path` as PNG; None if there is no data."""
    fig = roll_centre_figure(table, x, series=series, title=title, units=units)
    return None if fig is None else save_figure(fig, path)


def roll_centre_figure(
    table: pd.DataFrame,
    x: str,
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Figure | None:
    """Roll-centre height against its lateral offset (migration) and against x, per axle."""
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
            height.plot(
                units.values(g, x), units.values(g, h), marker="o", markersize=3, label=label
            )
    migration.set_xlabel(f"roll centre lateral offset [{units.length}] (+ = left)")
    migration.set_ylabel(f"roll centre height [{units.length}]")
    migration.set_title("migration")
    height.set_xlabel(axis_label(x, units))
    height.set_ylabel(f"roll centre height [{units.length}]")
    height.set_title("height")
    _finish(migration, lats[0] if lats else heights[0], heights, units, legend=True)
    _finish(height, x, heights, units, legend=True)
    fig.suptitle(title)
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
                text = f"{_label(c)} {name}".strip() if len(ackermann) > 1 else name
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
    x, and against its x position: its migration); None if the table has none."""
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
                    label=f"{_label(c).removesuffix(' [%]')} {name}".strip(),
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
                if px in g.columns:
                    migration.plot(
                        units.values(g, px),
                        units.values(g, z),
                        marker="o",
                        markersize=3,
                        label=label,
                    )
        height.set_xlabel(axis_label(x, units))
        height.set_ylabel(f"pitch centre height [{units.length}]")
        height.set_title("pitch centre height")
        migration.set_xlabel(f"pitch centre x [{units.length}] (+ = forward)")
        migration.set_ylabel(f"pitch centre height [{units.length}]")
        migration.set_title("pitch centre migration")
        _finish(height, x, zs, units, legend=True)
        _finish(migration, xs[0], zs, units, legend=True)
    fig.suptitle(title)
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
                label = f"{_label(c).rsplit(' [', 1)[0]} {name}".strip()
                ax.plot(
                    units.values(g, x), units.values(g, c), marker="o", markersize=3, label=label
                )
        ax.set_xlabel(axis_label(x, units))
        ax.set_ylabel(
            axis_label(columns[0], units) if len(columns) == 1 else _unit_only(columns[0], units)
        )
        _finish(ax, x, columns, units, legend=len(columns) > 1 or len(groups) > 1)
    fig.suptitle(title)
    return fig


def _unit_only(column: str, units: OutputUnits) -> str:
    unit = units.unit_text(column) or ("%" if column.endswith("_pct") else "-")
    return f"[{unit}]"


def line_chart(
    table: pd.DataFrame,
    x: str,
    columns: Sequence[str],
    path: str | os.PathLike[str],
    *,
    title: str = "",
    ylabel: str | None = None,
    units: OutputUnits = DEFAULT_UNITS,
) -> Path | None:
    """`line_figure` written to `path` as PNG (folder created); None if there is no data."""
    fig = line_figure(table, x, columns, title=title, ylabel=ylabel, units=units)
    if fig is None:
        return None
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    return save_figure(fig, out)


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
    return fig
