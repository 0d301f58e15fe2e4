"""Unit factors, axis-map parsing and workbook <-> model conversion."""

from __future__ import annotations

import math
import random

import pytest

from suspension_sim import units
from suspension_sim.units import UnitError

ROWE = ((0, 0, 1), (1, 0, 0), (0, 1, 0))  # CAD frame Y up, Z forward


# Every spelling the workbook reader or the validation export headers accepted before the
# two unit tables became one, against hand numbers (1 in = 25.4 mm exactly, 1 lbf =
# 4.4482216152605 N exactly by definition).
DEG = math.pi / 180.0
OLD_SPELLINGS: list[tuple[str, str, str, float]] = [
    *[(t, "length", "mm", 1.0) for t in ("mm", "millimetre", "millimetres", "millimeter")],
    ("millimeters", "length", "mm", 1.0),
    ("cm", "length", "cm", 10.0),
    *[(t, "length", "m", 1000.0) for t in ("m", "metre", "metres", "meter", "meters")],
    *[(t, "length", "in", 25.4) for t in ("in", "inch", "inches", '"')],
    *[(t, "angle", "deg", DEG) for t in ("deg", "degree", "degrees", "°", "º")],
    *[(t, "angle", "rad", 1.0) for t in ("rad", "radian", "radians")],
    ("mrad", "angle", "mrad", 0.001),
    *[(t, "force", "N", 1.0) for t in ("N", "n", "newton", "newtons")],
    *[(t, "force", "lbf", 4.4482216152605) for t in ("lbf", "lb", "lbs")],
]


@pytest.mark.parametrize("text, kind, name, factor", OLD_SPELLINGS)
def test_every_old_spelling(text: str, kind: str, name: str, factor: float) -> None:
    for written in (text, text.upper(), f" {text} "):
        assert units.unit_kind(written) == kind
        assert units.canonical_unit(written, kind) == name  # type: ignore[arg-type]
        assert units.to_internal(2.0, written) == pytest.approx(2.0 * factor, rel=1e-15)
    factor_of = {
        "length": units.length_factor,
        "angle": units.angle_factor,
        "force": units.force_factor,
    }[kind]
    assert factor_of(text) == pytest.approx(factor, rel=1e-15)


def test_hand_conversions() -> None:
    assert units.to_internal(1.0, "in") == 25.4
    assert units.to_internal(3.0, "m") == 3000.0
    assert units.to_internal(180.0, "deg") == pytest.approx(math.pi, rel=1e-15)
    assert units.to_internal(1.0, "lbf") == 4.4482216152605
    assert units.convert(1.0, "rad", "deg") == pytest.approx(57.29577951308232, rel=1e-15)
    assert units.convert(1.0, "mrad", "deg") == pytest.approx(0.18 / math.pi, rel=1e-15)
    assert units.convert(2.0, "inches", "cm") == pytest.approx(5.08, rel=1e-15)
    assert units.from_internal(25.4, "in") == 1.0


def test_not_a_unit_and_wrong_kind() -> None:
    assert units.unit_kind("furlong") is None
    assert units.unit_kind("") is None
    assert units.unit_kind("-") is None  # a ratio, not a unit here
    with pytest.raises(UnitError, match=r"unknown length unit 'deg' \(that is a unit of angle\)"):
        units.length_factor("deg")
    with pytest.raises(UnitError, match="unknown unit 'furlong'"):
        units.to_internal(1.0, "furlong")
    with pytest.raises(UnitError, match="unknown angle unit 'mm'"):
        units.convert(1.0, "mm", "deg")


def test_spellings_cover_the_table() -> None:
    length = units.spellings("length")
    assert length['"'] == 25.4 and length["cm"] == 10.0 and "deg" not in length
    assert units.unit_names("angle") == ("deg", "rad", "mrad")
    spelled = {s.casefold() for kind in ("length", "angle", "force") for s in units.spellings(kind)}
    assert {text.casefold() for text, *_ in OLD_SPELLINGS} == spelled


@pytest.mark.parametrize(
    "text, name, factor",
    [
        ("mm", "mm", 1.0),
        ("MM", "mm", 1.0),
        ("m", "m", 1000.0),
        (" in ", "in", 25.4),
        ("inches", "in", 25.4),
        ("millimetre", "mm", 1.0),
    ],
)
def test_length_units(text, name, factor):
    assert units.length_unit(text) == name
    assert units.length_factor(text) == factor


def test_angle_and_force_units():
    assert units.angle_factor("deg") == math.pi / 180
    assert units.angle_factor("Radians") == 1.0
    assert units.force_unit("n") == "N"
    assert units.force_factor("lbf") == pytest.approx(4.448222, rel=1e-6)


@pytest.mark.parametrize("bad, kind", [("ft", "length"), ("", "length")])
def test_unknown_length_unit(bad, kind):
    with pytest.raises(UnitError, match=f"unknown {kind} unit"):
        units.length_unit(bad)


def test_unknown_angle_and_force_units():
    with pytest.raises(UnitError, match="valid: deg, rad, mrad"):
        units.angle_unit("grad")
    with pytest.raises(UnitError, match="valid: N, lbf"):
        units.force_unit("kgf")


@pytest.mark.parametrize(
    "text",
    [
        "[[0 0 1] [1 0 0] [0 1 0]]",
        "[[0, 0, 1], [1, 0, 0], [0, 1, 0]]",
        "[0 0 1; 1 0 0; 0 1 0]",
        "[[0 0 1] [1 0 0] [0 1 0]",  # as printed in Rowe's report (missing bracket)
        "+Z +X +Y",
        "Z X Y",
        "z, x, y",
    ],
)
def test_parse_axis_map_forms(text):
    assert units.parse_axis_map(text) == ROWE


def test_parse_axis_map_signs_and_matrix_input():
    assert units.parse_axis_map("-Y +X +Z") == ((0, -1, 0), (1, 0, 0), (0, 0, 1))
    assert units.parse_axis_map([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]]) == units.IDENTITY


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "blank"),
        ("Y up", "cannot read"),
        ("+X +Y", "needs 3"),
        ("+X +X +Z", "signed permutation"),
        ("[[1 1 0] [0 1 0] [0 0 1]]", "signed permutation"),
        ("[[0 0 0] [0 1 0] [0 0 1]]", "signed permutation"),
        ("[[2 0 0] [0 1 0] [0 0 1]]", "-1, 0 or 1"),
        ("[[1 0 0] [0 1 0]]", "6 numbers"),
    ],
)
def test_bad_axis_maps(text, message):
    with pytest.raises(UnitError, match=message):
        units.parse_axis_map(text)


def test_format_and_invert_axis_map():
    assert units.format_axis_map(ROWE) == "+Z +X +Y"
    assert units.format_matrix(ROWE) == "[[0 0 1] [1 0 0] [0 1 0]]"
    m = units.parse_axis_map("-Y +Z -X")
    assert units.parse_axis_map(units.format_axis_map(m)) == m
    inv = units.invert_axis_map(m)
    v = (1.0, 2.0, 3.0)
    assert units.apply_axis_map(inv, units.apply_axis_map(m, v)) == v


def test_workbook_to_model_by_hand():
    # model X = workbook +Z, model Y = workbook +X, model Z = workbook +Y; 1 in = 25.4 mm
    assert units.workbook_to_model((1, 2, 3), "in", ROWE) == pytest.approx((76.2, 25.4, 50.8))
    assert units.workbook_to_model((1, 2, 3), "m", units.parse_axis_map("-Y +X +Z")) == (
        -2000.0,
        1000.0,
        3000.0,
    )
    assert units.workbook_to_model((1.5, -2.25, 3.0), "mm", units.IDENTITY) == (1.5, -2.25, 3.0)


def test_model_to_workbook_inverts():
    xyz = (76.2, 25.4, 50.8)
    assert units.model_to_workbook(xyz, "in", ROWE) == pytest.approx((1.0, 2.0, 3.0))
    assert units.model_to_workbook((1.0, 2.0, 3.0), "mm", units.IDENTITY) == (1.0, 2.0, 3.0)


@pytest.mark.parametrize("unit", ["in", "m"])
def test_from_internal_round_trips_within_an_ulp(unit):
    factor = units.length_factor(unit)
    rng = random.Random(1)
    exact = 0
    for _ in range(2000):
        mm = rng.uniform(-2000.0, 2000.0)
        back = units.to_internal(units.from_internal(mm, factor), factor)
        assert abs(back - mm) <= math.ulp(mm)
        exact += back == mm
    assert exact > 1000  # exact whenever some float converts back exactly


@pytest.mark.parametrize(
    ("text", "reflection"),
    [("+X -Y +Z", True), ("[[0 1 0] [1 0 0] [0 0 1]]", True), ("+Z +X +Y", False)],
)
def test_reflections_are_accepted_and_named(text, reflection):
    """A left-handed workbook frame (lateral + right, or two axes swapped) reads through
    a determinant -1 map; `is_reflection` tells it apart from a rotation."""
    m = units.parse_axis_map(text)
    assert units.is_reflection(m) is reflection
    point = units.workbook_to_model((1.0, 2.0, 3.0), "mm", m)
    want = tuple(sum(m[i][k] * (1.0, 2.0, 3.0)[k] for k in range(3)) for i in range(3))
    assert point == want
    assert units.model_to_workbook(point, "mm", m) == (1.0, 2.0, 3.0)
