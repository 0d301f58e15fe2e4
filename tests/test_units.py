"""Unit factors, axis-map parsing and workbook <-> model conversion."""

from __future__ import annotations

import math
import random

import pytest

from suspension_sim import units
from suspension_sim.units import UnitError

ROWE = ((0, 0, 1), (1, 0, 0), (0, 1, 0))  # CAD frame Y up, Z forward


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
    with pytest.raises(UnitError, match="valid: deg, rad"):
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
        ("+X -Y +Z", "mirrors"),
        ("[[0 1 0] [1 0 0] [0 0 1]]", "mirrors"),
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
