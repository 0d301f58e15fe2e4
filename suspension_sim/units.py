"""Units and axis maps, and conversion to the model frame.

The model works in mm, rad and N in the ISO 8855 frame (+X forward, +Y left,
+Z up). A workbook may use another length/angle/force unit and any CAD frame;
its `User Options` name them, and everything is converted once, on load.
`UNITS` is the project's one table of unit names, aliases and factors: the
workbook reader and the validation export headers both read it (through
`unit_kind`, `length_factor`, `angle_factor`, `to_internal`, `convert`, ...).

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
from dataclasses import dataclass
from typing import Literal

AxisMap = tuple[tuple[int, int, int], ...]
"""A 3x3 signed permutation matrix as nested tuples of -1/0/1."""

IDENTITY: AxisMap = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
"""The identity axis map (equal to `suspension_sim.description.IDENTITY_AXIS_MAP`)."""

Kind = Literal["length", "angle", "force"]
"""What a unit measures; internal units: mm, rad, N."""

INTERNAL_UNIT: dict[Kind, str] = {"length": "mm", "angle": "rad", "force": "N"}
"""The model's unit of each kind."""


@dataclass(frozen=True)
class Unit:
    """A unit: canonical name, kind, internal units per one of it, other spellings."""

    name: str
    kind: Kind
    factor: float
    """mm, rad or N per one of this unit (e.g. 25.4 for 'in')."""
    aliases: tuple[str, ...] = ()


UNITS: tuple[Unit, ...] = (
    Unit("mm", "length", 1.0, ("millimetre", "millimetres", "millimeter", "millimeters")),
    Unit("cm", "length", 10.0),
    Unit("m", "length", 1000.0, ("metre", "metres", "meter", "meters")),
    Unit("in", "length", 25.4, ("inch", "inches", '"')),
    Unit("deg", "angle", math.pi / 180.0, ("degree", "degrees", "°", "º")),
    Unit("rad", "angle", 1.0, ("radian", "radians")),
    Unit("mrad", "angle", 1e-3),
    Unit("N", "force", 1.0, ("newton", "newtons")),
    Unit("lbf", "force", 4.4482216152605, ("lb", "lbs")),
)
"""The one table of units, for the workbook and for imported exports alike
(1 lbf = 4.4482216152605 N exactly). Names and aliases match case-insensitively."""

_BY_SPELLING: dict[str, Unit] = {
    spelling.casefold(): u for u in UNITS for spelling in (u.name, *u.aliases)
}


class UnitError(ValueError):
    """A unit name or axis map the user wrote is not valid (message says why)."""


# -- unit names ---------------------------------------------------------------
def find_unit(text: str) -> Unit | None:
    """The unit `text` names (case-insensitive, surrounding spaces ignored), or None."""
    return _BY_SPELLING.get(str(text).strip().casefold())


def unit_kind(text: str) -> Kind | None:
    """'length', 'angle' or 'force' for a unit's name or alias; None if not a unit."""
    found = find_unit(text)
    return None if found is None else found.kind


def unit_names(kind: Kind) -> tuple[str, ...]:
    """Canonical names of the units of `kind`, e.g. ('mm', 'cm', 'm', 'in')."""
    return tuple(u.name for u in UNITS if u.kind == kind)


def spellings(kind: Kind) -> dict[str, float]:
    """Every accepted spelling (names and aliases, as written in `UNITS`) of the units of
    `kind` -> internal units (mm, rad, N) per one of it."""
    return {s: u.factor for u in UNITS if u.kind == kind for s in (u.name, *u.aliases)}


def _unit(text: str, kind: Kind) -> Unit:
    """The unit of `kind` that `text` names; `UnitError` listing the valid ones if none."""
    found = find_unit(text)
    if found is not None and found.kind == kind:
        return found
    key = str(text).strip()
    other = f" (that is a unit of {found.kind})" if found else ""
    valid = ", ".join(unit_names(kind))
    raise UnitError(f"unknown {kind} unit {key!r}{other}; valid: {valid}")


def canonical_unit(text: str, kind: Kind) -> str:
    """Canonical name of the unit of `kind` that `text` names (e.g. 'inches' -> 'in')."""
    return _unit(text, kind).name


def length_unit(text: str) -> str:
    """Canonical length unit name ('mm', 'cm', 'm' or 'in') for a user's text."""
    return canonical_unit(text, "length")


def angle_unit(text: str) -> str:
    """Canonical angle unit name ('deg', 'rad' or 'mrad') for a user's text."""
    return canonical_unit(text, "angle")


def force_unit(text: str) -> str:
    """Canonical force unit name ('N' or 'lbf') for a user's text."""
    return canonical_unit(text, "force")


def length_factor(unit: str) -> float:
    """mm per `unit` (e.g. 25.4 for 'in')."""
    return _unit(unit, "length").factor


def angle_factor(unit: str) -> float:
    """rad per `unit` (e.g. pi/180 for 'deg')."""
    return _unit(unit, "angle").factor


def force_factor(unit: str) -> float:
    """N per `unit` (e.g. 4.448... for 'lbf')."""
    return _unit(unit, "force").factor


def unit_factor(unit: str) -> float:
    """Internal units (mm, rad or N) per `unit`, whatever its kind; `UnitError` if unknown."""
    found = find_unit(unit)
    if found is None:
        raise UnitError(f"unknown unit {str(unit).strip()!r}")
    return found.factor


def convert(value: float, unit: str, to: str) -> float:
    """`value` in `unit` expressed in unit `to` of the same kind (e.g. 1 rad -> 57.3 deg)."""
    target = find_unit(to)
    if target is None:
        raise UnitError(f"unknown unit {str(to).strip()!r}")
    return float(value) * _unit(unit, target.kind).factor / target.factor


# -- scalar conversion --------------------------------------------------------
def _factor(unit: str | float) -> float:
    return unit_factor(unit) if isinstance(unit, str) else float(unit)


def to_internal(value: float, unit: str | float) -> float:
    """A value in `unit` (a unit name, or its factor from `unit_factor`) as mm, rad or N."""
    return float(value) * _factor(unit)


def from_internal(value: float, unit: str | float) -> float:
    """Internal value (mm, rad, N) back in `unit` (a unit name or its factor).

    Picks, among the float nearest ``value / factor`` and its two neighbours,
    one that converts back to exactly `value` when there is one, so that
    writing a car and reading it again gives the same floats in nearly every
    case (otherwise it is off by about one ulp).
    """
    factor = _factor(unit)
    value = float(value)
    guess = value / factor
    for candidate in (guess, math.nextafter(guess, math.inf), math.nextafter(guess, -math.inf)):
        if candidate * factor == value:
            return candidate
    return guess


# -- axis maps ----------------------------------------------------------------
_AXES = "XYZ"
_SHORT_TOKEN = re.compile(r"^([+-]?)([XYZ])$", re.IGNORECASE)
_NUMBER_TOKEN = re.compile(r"[+-]?\d+(?:\.\d*)?")


def parse_axis_map(text: str | Sequence[Sequence[float]]) -> AxisMap:
    """Parse and validate an axis map (see module docstring for the forms).

    Also accepts a 3x3 nested sequence of numbers. Raises `UnitError` when
    the text cannot be read or is not a signed permutation.
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
    """Check a 3x3 matrix is a signed permutation; return it as ints.

    Each row and each column must hold exactly one +1 or -1. A determinant of
    -1 (a reflection) is accepted: it reads a left-handed workbook frame, such
    as a CAD or OptimumK frame with the lateral axis positive to the right
    (`is_reflection`; `check` says so).
    """
    rows = [list(r) for r in matrix]
    if len(rows) != 3 or any(len(r) != 3 for r in rows):
        raise UnitError("axis map must be a 3x3 matrix")
    shown = format_matrix(rows)
    for r in rows:
        for v in r:
            if v not in (-1, 0, 1):
                raise UnitError(f"axis map {shown} holds {v!r}; entries must be -1, 0 or 1")
    ints: AxisMap = tuple((int(r[0]), int(r[1]), int(r[2])) for r in rows)
    for i in range(3):
        row_nonzero = sum(1 for v in ints[i] if v)
        col_nonzero = sum(1 for r in ints if r[i])
        if row_nonzero != 1 or col_nonzero != 1:
            raise UnitError(
                f"axis map {shown} is not a signed permutation: every row and every column"
                " needs exactly one +1 or -1"
            )
    return ints


def is_reflection(m: AxisMap) -> bool:
    """True when the axis map has determinant -1: the workbook's frame is left-handed."""
    return _det(m) == -1


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
    return tuple((axis_map[0][i], axis_map[1][i], axis_map[2][i]) for i in range(3))


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
