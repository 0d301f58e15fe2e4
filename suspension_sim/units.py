"""Units and axis maps of the workbook, and conversion to the model frame.

The model works in mm, rad and N in the ISO 8855 frame (+X forward, +Y left,
+Z up). A workbook may use another length/angle/force unit and any CAD frame;
its `User Options` name them, and everything is converted once, on load.

Axis map: a 3x3 signed permutation matrix ``M`` whose rows are the model axes
X, Y, Z written in workbook axes, so ``model = M @ workbook``. It is accepted
as Rowe's matrix text ``"[[0 0 1] [1 0 0] [0 1 0]]"`` (spaces, commas or
semicolons) or as the short form ``"+Z +X +Y"`` (model X = workbook +Z, model
Y = workbook +X, model Z = workbook +Y). Both of those describe a CAD frame
with Y up and Z forward.

Errors are `UnitError` (a `ValueError`) with a message meant for the user;
the workbook reader adds the cell.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from suspension_sim.description import IDENTITY_AXIS_MAP

AxisMap = tuple[tuple[int, int, int], ...]
"""A 3x3 signed permutation matrix as nested tuples of -1/0/1."""

IDENTITY: AxisMap = IDENTITY_AXIS_MAP

LENGTH_UNITS: dict[str, float] = {"mm": 1.0, "m": 1000.0, "in": 25.4}
"""mm per unit of length."""

ANGLE_UNITS: dict[str, float] = {"deg": math.pi / 180.0, "rad": 1.0}
"""rad per unit of angle."""

FORCE_UNITS: dict[str, float] = {"N": 1.0, "lbf": 4.4482216152605}
"""N per unit of force (1 lbf = 4.4482216152605 N exactly)."""

_ALIASES: dict[str, str] = {
    "millimetre": "mm",
    "millimetres": "mm",
    "millimeter": "mm",
    "millimeters": "mm",
    "metre": "m",
    "metres": "m",
    "meter": "m",
    "meters": "m",
    "inch": "in",
    "inches": "in",
    "degree": "deg",
    "degrees": "deg",
    "°": "deg",
    "radian": "rad",
    "radians": "rad",
    "n": "N",
    "newton": "N",
    "newtons": "N",
    "lb": "lbf",
    "lbs": "lbf",
}

_AXES = "XYZ"


class UnitError(ValueError):
    """A unit name or axis map the user wrote is not valid (message says why)."""


# -- unit names ---------------------------------------------------------------
def _canonical(text: str, table: dict[str, float], kind: str) -> str:
    """Canonical unit name for `text` (case-insensitive, a few aliases)."""
    key = str(text).strip()
    for name in table:
        if key.lower() == name.lower():
            return name
    alias = _ALIASES.get(key.lower())
    if alias in table:
        return alias
    valid = ", ".join(table)
    raise UnitError(f"unknown {kind} unit {key!r}; valid: {valid}")


def length_unit(text: str) -> str:
    """Canonical length unit name ('mm', 'm' or 'in') for a user's text."""
    return _canonical(text, LENGTH_UNITS, "length")


def angle_unit(text: str) -> str:
    """Canonical angle unit name ('deg' or 'rad') for a user's text."""
    return _canonical(text, ANGLE_UNITS, "angle")


def force_unit(text: str) -> str:
    """Canonical force unit name ('N' or 'lbf') for a user's text."""
    return _canonical(text, FORCE_UNITS, "force")


def length_factor(unit: str) -> float:
    """mm per `unit` (e.g. 25.4 for 'in')."""
    return LENGTH_UNITS[length_unit(unit)]


def angle_factor(unit: str) -> float:
    """rad per `unit` (e.g. pi/180 for 'deg')."""
    return ANGLE_UNITS[angle_unit(unit)]


def force_factor(unit: str) -> float:
    """N per `unit` (e.g. 4.448... for 'lbf')."""
    return FORCE_UNITS[force_unit(unit)]


# -- scalar conversion --------------------------------------------------------
def to_internal(value: float, factor: float) -> float:
    """A workbook value times its unit factor (e.g. inches -> mm)."""
    return float(value) * factor


def from_internal(value: float, factor: float) -> float:
    """Internal value (mm, rad, N) back in the workbook unit.

    Picks, among the float nearest ``value / factor`` and its two neighbours,
    one that converts back to exactly `value` when there is one, so that
    writing a car and reading it again gives the same floats in nearly every
    case (otherwise it is off by about one ulp).
    """
    value = float(value)
    guess = value / factor
    for candidate in (guess, math.nextafter(guess, math.inf), math.nextafter(guess, -math.inf)):
        if candidate * factor == value:
            return candidate
    return guess


# -- axis maps ----------------------------------------------------------------
_SHORT_TOKEN = re.compile(r"^([+-]?)([XYZ])$", re.IGNORECASE)
_NUMBER_TOKEN = re.compile(r"[+-]?\d+(?:\.\d*)?")


def parse_axis_map(text: str | Sequence[Sequence[float]]) -> AxisMap:
    """Parse and validate an axis map (see module docstring for the forms).

    Also accepts a 3x3 nested sequence of numbers. Raises `UnitError` when
    the text cannot be read or is not a right-handed signed permutation.
    """
    if not isinstance(text, str):
        return validate_axis_map(text)
    raw = text.strip()
    if not raw:
        raise UnitError("axis map is blank")
    tokens = [t for t in re.split(r"[\s,;]+", raw) if t]
    if tokens and all(_SHORT_TOKEN.match(t) for t in tokens):
        return _parse_short(tokens, raw)
    if re.fullmatch(r"[\s\[\](),;0-9+\-.]+", raw):
        numbers = [float(n) for n in _NUMBER_TOKEN.findall(raw)]
        if len(numbers) != 9:
            raise UnitError(f"axis map {raw!r} has {len(numbers)} numbers; a 3x3 matrix needs 9")
        return validate_axis_map([numbers[0:3], numbers[3:6], numbers[6:9]])
    raise UnitError(
        f"cannot read axis map {raw!r}; write it as '+Z +X +Y' (model X, Y, Z in workbook"
        " axes) or as a matrix '[[0 0 1] [1 0 0] [0 1 0]]'"
    )


def _parse_short(tokens: list[str], raw: str) -> AxisMap:
    """Short form: three signed workbook axes for model X, Y, Z."""
    if len(tokens) != 3:
        raise UnitError(f"axis map {raw!r} names {len(tokens)} axes; it needs 3 (e.g. '+Z +X +Y')")
    rows: list[list[int]] = []
    for token in tokens:
        sign, axis = _SHORT_TOKEN.match(token).groups()  # type: ignore[union-attr]
        row = [0, 0, 0]
        row[_AXES.index(axis.upper())] = -1 if sign == "-" else 1
        rows.append(row)
    return validate_axis_map(rows)


def validate_axis_map(matrix: Sequence[Sequence[float]]) -> AxisMap:
    """Check a 3x3 matrix is a right-handed signed permutation; return it as ints.

    Each row and each column must hold exactly one +1 or -1. A determinant of
    -1 would mirror the car (left and right swapped) and is refused.
    """
    rows = [list(r) for r in matrix]
    if len(rows) != 3 or any(len(r) != 3 for r in rows):
        raise UnitError("axis map must be a 3x3 matrix")
    shown = format_matrix(rows)
    for r in rows:
        for v in r:
            if v not in (-1, 0, 1):
                raise UnitError(f"axis map {shown} holds {v!r}; entries must be -1, 0 or 1")
    ints = tuple(tuple(int(v) for v in r) for r in rows)
    for i in range(3):
        row_nonzero = sum(1 for v in ints[i] if v)
        col_nonzero = sum(1 for r in ints if r[i])
        if row_nonzero != 1 or col_nonzero != 1:
            raise UnitError(
                f"axis map {shown} is not a signed permutation: every row and every column"
                " needs exactly one +1 or -1"
            )
    if _det(ints) != 1:
        raise UnitError(
            f"axis map {shown} mirrors the car (determinant -1): left and right would swap;"
            " flip the sign of one axis"
        )
    return ints  # type: ignore[return-value]


def _det(m: AxisMap) -> int:
    """Determinant of a 3x3 integer matrix."""
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


def format_axis_map(axis_map: AxisMap) -> str:
    """Short form of a (valid) axis map, e.g. '+Z +X +Y'."""
    words = []
    for row in axis_map:
        col = next(i for i, v in enumerate(row) if v)
        words.append(("+" if row[col] > 0 else "-") + _AXES[col])
    return " ".join(words)


def format_matrix(matrix: Sequence[Sequence[float]]) -> str:
    """Rowe's matrix form, e.g. '[[0 0 1] [1 0 0] [0 1 0]]'."""
    return "[" + " ".join("[" + " ".join(f"{v:g}" for v in r) + "]" for r in matrix) + "]"


def invert_axis_map(axis_map: AxisMap) -> AxisMap:
    """Inverse of a signed permutation (its transpose): ``workbook = inv @ model``."""
    return tuple(tuple(axis_map[j][i] for j in range(3)) for i in range(3))  # type: ignore[return-value]


def apply_axis_map(axis_map: AxisMap, xyz: Sequence[float]) -> tuple[float, float, float]:
    """``axis_map @ xyz`` for a signed permutation, exactly (no rounding)."""
    out = []
    for row in axis_map:
        col = next(i for i, v in enumerate(row) if v)
        out.append(float(xyz[col]) if row[col] > 0 else -float(xyz[col]))
    return (out[0], out[1], out[2])


def workbook_to_model(
    xyz: Sequence[float], unit: str, axis_map: AxisMap
) -> tuple[float, float, float]:
    """A workbook point (its unit, CAD frame) as mm in the model frame."""
    factor = length_factor(unit)
    x, y, z = apply_axis_map(axis_map, xyz)
    return (to_internal(x, factor), to_internal(y, factor), to_internal(z, factor))


def model_to_workbook(
    xyz_mm: Sequence[float], unit: str, axis_map: AxisMap
) -> tuple[float, float, float]:
    """A model point (mm, model frame) in the workbook's unit and CAD frame."""
    factor = length_factor(unit)
    x, y, z = apply_axis_map(invert_axis_map(axis_map), xyz_mm)
    return (
        from_internal(x, factor),
        from_internal(y, factor),
        from_internal(z, factor),
    )
