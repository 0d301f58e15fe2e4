"""Units and labels of the charts and tables written: `OutputUnits` (mm/in, deg/rad at the
edge), axis labels with the sign of each swept variable, the smallest axis spans and the
legend's number format.

The tables computed hold mm and deg (docs/metrics.md); `OutputUnits` converts a column
whose name ends in ``_mm``, ``_deg`` or ``_<a>_per_<b>`` and renames its suffix. No
matplotlib here (`suspension_sim.outputs.figures` draws, `suspension_sim.outputs.chart_files`
writes).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError

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


def column_label(column: str) -> str:
    """The label of a table column with its unit (``camber FL [deg]``; docs/metrics.md)."""
    from suspension_sim.metrics import label

    return label(column)


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
        text = column_label(column)
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
