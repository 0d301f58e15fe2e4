"""Units of an export's headers: the tables and `unit_factor`, the one function reading them.

Angles convert to deg, lengths to mm, gains to deg/mm, forces to N (N, kN, lbf), moments
to N m (N m, N mm, kN m, lbf in, lbf ft);
ratios and percentages are plain. No unit (None or blank) means OptimumK's display unit.
"""

from __future__ import annotations

from suspension_sim import units
from suspension_sim.validation.quantities import DIMENSIONS, Dimension

# -- units ----------------------------------------------------------------------------
ANGLE_UNITS: dict[str, float] = {s: units.convert(1.0, s, "deg") for s in units.spellings("angle")}
"""deg per unit of angle (every spelling of the one unit table, `suspension_sim.units`)."""

LENGTH_UNITS: dict[str, float] = units.spellings("length")
"""mm per unit of length (every spelling of the one unit table, `suspension_sim.units`)."""

RATIO_UNITS: dict[str, float] = {
    "": 1.0,
    "-": 1.0,
    "mm/mm": 1.0,
    "m/m": 1.0,
    "ratio": 1.0,
    "deg/mm": 1.0,
    "deg/deg": 1.0,
    "mm/deg": 1.0,
}
"""Unit words accepted for a ratio or a rate channel (rates compared in these units as
written: deg/mm, deg/deg, mm/deg)."""

PERCENT_UNITS: dict[str, float] = {"%": 1.0, "pct": 1.0, "percent": 1.0, "": 1.0, "-": 100.0}
"""Unit words accepted for a percentage (a bare fraction, ``-``, is x 100)."""

GAIN_UNITS: dict[str, float] = {
    "": 1.0,
    "deg/mm": 1.0,
    "°/mm": 1.0,
    "deg/m": 1e-3,
    "rad/m": 180.0 / 3.141592653589793 / 1000.0,
    "rad/mm": 180.0 / 3.141592653589793,
}
"""deg/mm per unit of an angle-per-length gain (OptimumK's camber and toe gains)."""

FORCE_UNITS: dict[str, float] = {
    "": 1.0,
    **units.spellings("force"),
    "kN": 1000.0,
    "kilonewton": 1000.0,
    "kilonewtons": 1000.0,
}
"""N per unit of force (N, lbf and their spellings from `suspension_sim.units`, plus kN)."""

MOMENT_LENGTHS: dict[str, float] = {"m": 1.0, "mm": 1e-3, "cm": 1e-2, "in": 0.0254, "ft": 0.3048}
"""m per unit of the lever arm of a moment unit (``N m``, ``N mm``, ``lbf in``, ``lbf ft``)."""


def _moment_units() -> dict[str, float]:
    """N m per unit of moment: every force spelling times every lever-arm length, written
    ``N m``, ``N.m``, ``N*m``, ``N·m``, ``N-m`` or ``Nm`` (and ``lbf ft``, ``kN m`` ...)."""
    out: dict[str, float] = {"": 1.0}
    for f, nf in FORCE_UNITS.items():
        if not f:
            continue
        for length, m in MOMENT_LENGTHS.items():
            for joint in (" ", ".", "*", "·", "-", ""):
                out[f"{f}{joint}{length}"] = nf * m
    return out


MOMENT_UNITS: dict[str, float] = _moment_units()
"""N m per unit of moment."""

UNITS: dict[Dimension, dict[str, float]] = {
    "angle": ANGLE_UNITS,
    "length": LENGTH_UNITS,
    "ratio": RATIO_UNITS,
    "percent": PERCENT_UNITS,
    "gain": GAIN_UNITS,
    "force": FORCE_UNITS,
    "moment": MOMENT_UNITS,
}


def unit_factor(unit: str | None, dimension: Dimension) -> float:
    """Factor from `unit` to mm/deg (1 for ratios); KeyError if not a unit of `dimension`.

    No unit (None or blank) means mm or deg (the OptimumK default). This is
    the only function that reads the unit tables.
    """
    if unit is None or not unit.strip():
        return 1.0
    key = unit.strip()
    table = UNITS[dimension]
    if key in table:
        return table[key]
    lowered = {k.lower(): v for k, v in table.items()}
    if key.lower() in lowered:
        return lowered[key.lower()]
    raise KeyError(key)


def known_unit(text: str) -> bool:
    """True if `text` is a unit of any dimension (used to spot a units row)."""
    if not text.strip():
        return False
    for dimension in DIMENSIONS:
        try:
            unit_factor(text, dimension)
        except KeyError:
            continue
        return True
    return False


def unit_list(dimension: Dimension) -> str:
    """Accepted units of a dimension, for error hints."""
    names = {
        "angle": "deg, rad",
        "length": "mm, cm, m, in",
        "ratio": "- (or none)",
        "percent": "% (or none)",
        "gain": "deg/mm, rad/m",
        "force": "N, kN, lbf",
        "moment": "N m, N mm, kN m, lbf in, lbf ft",
    }
    return names[dimension]
