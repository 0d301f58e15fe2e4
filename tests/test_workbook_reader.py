"""read_car on real .xlsx files: conversion, tolerated layouts, warnings, every error."""

from __future__ import annotations

import math
import re
import warnings
import zipfile
from pathlib import Path

import openpyxl
import pytest

from suspension_sim.description import Options
from suspension_sim.errors import WorkbookError
from suspension_sim.workbook import read_car


# -- a valid workbook ---------------------------------------------------------------
def test_reads_the_small_workbook(make_workbook, small_points, small_bodies):
    car = read_car(make_workbook())
    assert car.name == "Quarter car"
    assert car.options == Options(cg_height_mm=280.0)
    assert {p.name: p.xyz for p in car.points} == small_points
    assert [p.name for p in car.points] == list(small_points)  # workbook order
    assert {b.name: b.points for b in car.bodies} == small_bodies
    (wheel,) = car.wheels
    assert (wheel.name, wheel.body, wheel.centre, wheel.axis_point) == ("FL", "Upright", "WC", "WA")
    assert (wheel.tyre_radius, wheel.tyre_width) == (230.0, 180.0)
    assert (wheel.kingpin_lower, wheel.kingpin_upper) == ("LB", "UB")
    assert car.rack is not None
    assert car.rack.end_points == ("TI", "RE")  # blank: the rack body's two points
    assert car.rack.ratio_mm_per_deg == 0.5
    (damper,) = car.dampers
    assert (damper.body, damper.chassis_point, damper.moving_point) == ("Damper", "DC", "DM")
    assert (damper.min_length, damper.max_length) == (350.0, 450.0)
    assert car.warnings == ()
    assert dict(car.joined_points())["TI"] == ["Tie rod", "Rack"]


def test_sources_name_file_sheet_and_cell(make_workbook):
    car = read_car(make_workbook())
    ub = next(p for p in car.points if p.name == "UB")
    assert str(ub.source) == "car.xlsx: Hard Points!B7"
    assert str(car.body("Upright").source) == "car.xlsx: Geometry!A5"
    assert str(car.dampers[0].source) == "car.xlsx: Geometry!A20"


def test_notes_outside_ranges_and_blank_rows_are_ignored(make_workbook):
    plain = read_car(make_workbook())
    noisy = read_car(
        make_workbook(
            {
                "Geometry!H3": "a note right of Components",
                "Geometry!A10": "between sections",
                "Hard Points!F5": "=1/0",  # even a formula outside a range is not read
                "Hard Points!B20": "OLD",
                "Index!A12": "Section",  # notes below the index table's end
                "Notes!A1": "a whole sheet of notes",
            },
            name="noisy.xlsx",
        )
    )
    assert noisy == plain
    assert noisy.warnings == ()


def test_blank_rows_inside_every_section(make_workbook):
    edits = {
        "Index!C5": "Geometry!A1:G9",  # Components: one more (blank) row
        "Geometry!A9": None,
        "Index!C7": "Geometry!A11:H13",  # Wheels: blank row after FL
        "Index!C9": "Geometry!A18:E20",  # Damping: range starts one row early
        "Geometry!A18": "Damper body",
        "Geometry!B18": "Chassis point",
        "Geometry!C18": "Moving point",
        "Geometry!D18": "Min length",
        "Geometry!E18": "Max length",
        "Geometry!A19": None,
        "Geometry!B19": None,
        "Geometry!C19": None,
        "Geometry!D19": None,
        "Geometry!E19": None,
    }
    car = read_car(make_workbook(edits))
    assert len(car.bodies) == 7 and len(car.wheels) == 1 and len(car.dampers) == 1


def test_index_may_use_rowe_headings_and_absolute_ranges(make_workbook):
    car = read_car(
        make_workbook(
            {
                "Index!B6": "#### Hard Points ####",
                "Index!C6": "'Hard Points'!$B$2:$E$16",
                "Index!B5": "components",
                "Index!C5": "geometry!a1:g8",
            }
        )
    )
    assert len(car.points) == 13


def test_whole_column_range(make_workbook):
    car = read_car(make_workbook({"Index!C6": "'Hard Points'!B:E", "Hard Points!B1": None}))
    assert len(car.points) == 13


def test_optional_sections_may_be_absent(make_workbook):
    edits = {f"Index!{c}{r}": None for c in "BC" for r in (4, 7, 8, 9)}
    edits |= {"Index!B4": "Components", "Index!C4": "Geometry!A1:G8"}
    edits |= {"Index!B5": "Hard Points", "Index!C5": "'Hard Points'!B2:E16"}
    edits |= {"Index!B6": None, "Index!C6": None}
    car = read_car(make_workbook(edits))
    assert car.options == Options()
    assert car.name == "car"  # the file name without extension
    assert (car.wheels, car.rack, car.dampers) == ((), None, ())


def test_optional_section_with_blank_range(make_workbook):
    car = read_car(make_workbook({"Index!C7": None}))
    assert car.wheels == ()


# -- units and axis map ---------------------------------------------------------------
def test_inches_and_axis_map(make_workbook, point_rows):
    r = point_rows["UF"]
    edits = {
        "Index!F4": "in",
        "Index!F7": "+Z +X +Y",
        f"Hard Points!C{r}": 1,
        f"Hard Points!D{r}": 2,
        f"Hard Points!E{r}": 3,
    }
    car = read_car(make_workbook(edits))
    assert car.point("UF") == pytest.approx([76.2, 25.4, 50.8], abs=1e-12)
    assert car.options.cg_height_mm == pytest.approx(280 * 25.4)
    assert car.wheels[0].tyre_radius == pytest.approx(230 * 25.4)
    assert car.dampers[0].max_length == pytest.approx(450 * 25.4)
    assert car.rack is not None
    assert car.rack.ratio_mm_per_deg == pytest.approx(0.5 * 25.4)
    assert car.options.axis_map == ((0, 0, 1), (1, 0, 0), (0, 1, 0))


def test_a_left_handed_frame_reads_with_a_reflection(make_workbook, point_rows, capsys):
    """A workbook whose lateral axis points right (every y negated) with the axis map
    '+X -Y +Z' is the same car; `check` names the map a reflection."""
    from openpyxl import load_workbook

    from suspension_sim.cli import main

    plain = make_workbook(name="plain.xlsx")
    wb = load_workbook(plain)
    ws = wb["Hard Points"]
    for r in point_rows.values():
        ws[f"D{r}"] = -float(ws[f"D{r}"].value)
    wb["Index"]["F7"] = "+X -Y +Z"
    flipped = plain.with_name("left_handed.xlsx")
    wb.save(flipped)
    a, b = read_car(plain), read_car(flipped)
    for name in point_rows:
        assert b.point(name) == pytest.approx(a.point(name), abs=1e-12), name
    assert main(["check", str(flipped)]) in (0, 1)
    out = capsys.readouterr().out
    assert "a reflection: the workbook's frame is left-handed" in out


@pytest.mark.parametrize("text", ["[[0 0 1] [1 0 0] [0 1 0]]", "[[0,0,1],[1,0,0],[0,1,0]]"])
def test_rowe_matrix_axis_map(make_workbook, point_rows, text):
    r = point_rows["UF"]
    edits = {"Index!F4": "m", "Index!F7": text}
    edits |= {f"Hard Points!C{r}": 0.001, f"Hard Points!D{r}": -0.002, f"Hard Points!E{r}": 0.003}
    car = read_car(make_workbook(edits))
    assert car.point("UF") == pytest.approx([3.0, 1.0, -2.0])


def test_steering_ratio_in_angle_unit(make_workbook):
    car = read_car(make_workbook({"Index!F5": "rad", "Geometry!D16": 30.0}))
    assert car.rack is not None
    assert car.rack.ratio_mm_per_deg == pytest.approx(30.0 * math.pi / 180)


def test_centimetres_and_milliradians(make_workbook, point_rows):
    r = point_rows["UF"]
    edits = {"Index!F4": "cm", "Index!F5": "mrad"}
    edits |= {f"Hard Points!C{r}": 15, f"Hard Points!D{r}": 25, f"Hard Points!E{r}": 30}
    car = read_car(make_workbook(edits))
    assert car.point("UF") == pytest.approx([150.0, 250.0, 300.0], rel=1e-15)
    assert car.wheels[0].tyre_radius == pytest.approx(2300.0, rel=1e-15)
    assert car.rack is not None  # 0.5 cm per mrad = 5 mm per 0.001 rad
    assert car.rack.ratio_mm_per_deg == pytest.approx(5.0 / 0.001 * math.pi / 180, rel=1e-14)


def test_all_options(make_workbook):
    rows = {
        "Length unit": "mm",
        "Solver tolerance": 1e-8,
        "Constraint display tolerance": 0.05,
        "Chassis reference point": "DC",
        "CG height": 290,
        "Wheelbase": 1530,
        "Front brake share": 0.7,
        "Front brakes": "Inboard",
        "Rear brakes": "inboard",
        "Rear drive share": 0.5,
        "Drive": "hub",
        "Sign convention": "OptimumK",
    }
    edits: dict[str, object] = {"Index!C4": f"E3:F{3 + len(rows)}"}
    for i, (name, value) in enumerate(rows.items(), start=4):
        edits |= {f"Index!E{i}": name, f"Index!F{i}": value}
    car = read_car(make_workbook(edits))
    assert car.options == Options(
        solver_tolerance_mm=1e-8,
        constraint_display_tolerance_mm=0.05,
        chassis_reference_point="DC",
        cg_height_mm=290.0,
        wheelbase_mm=1530.0,
        front_brake_share=0.7,
        front_brakes_inboard=True,
        rear_brakes_inboard=True,
        rear_drive_share=0.5,
        drive_inboard=False,
        sign_convention="optimumk",
    )


def test_numeric_text_is_a_number(make_workbook, point_rows):
    car = read_car(make_workbook({f"Hard Points!C{point_rows['UF']}": " 151.5 "}))
    assert car.point("UF")[0] == 151.5


# -- warnings ----------------------------------------------------------------------------
def test_unused_point_is_a_warning(make_workbook):
    edits = {"Index!C6": "'Hard Points'!B2:E17", "Hard Points!B17": "SPARE"}
    edits |= {"Hard Points!C17": 1, "Hard Points!D17": 2, "Hard Points!E17": 3}
    car = read_car(make_workbook(edits))
    assert "SPARE" in [p.name for p in car.points]
    (warning,) = car.warnings
    assert warning.startswith("car.xlsx: Hard Points!B17:") and "SPARE" in warning


def test_value_right_below_a_range_is_a_warning(make_workbook):
    car = read_car(make_workbook({"Hard Points!B17": "NEW"}))
    (warning,) = car.warnings
    assert "Hard Points!B17" in warning and "extend the range" in warning and "Index!C6" in warning


def test_damper_outside_its_lengths_is_a_warning(make_workbook):
    car = read_car(make_workbook({"Geometry!E20": 400}))
    (warning,) = car.warnings
    assert "Geometry!A20" in warning and "407.185" in warning


def test_damper_at_exactly_its_limits_is_no_warning(make_workbook, point_rows):
    # DC = (0, 280, 500); DM moved to (0, 580, 100): a 3-4-5 triangle, 500 mm eye to eye
    r = point_rows["DM"]
    moved = {f"Hard Points!D{r}": 580, f"Hard Points!E{r}": 100}
    at_max = read_car(make_workbook(moved | {"Geometry!D20": 400, "Geometry!E20": 500}))
    at_min = read_car(make_workbook(moved | {"Geometry!D20": 500, "Geometry!E20": 600}))
    assert [w for w in at_max.warnings + at_min.warnings if "damper" in w] == []
    assert at_max.damper_design_length("Damper") == 500.0
    short = read_car(make_workbook(moved | {"Geometry!E20": 499.999}))
    (warning,) = short.warnings
    assert "Geometry!A20" in warning and "500.000 mm long" in warning


def test_wheel_axis_point_a_hair_from_the_centre(make_workbook, point_rows):
    # WC = (0, 600, 230); WA moved onto it: 1e-7 mm apart is the same place, 1e-3 mm is not
    r = point_rows["WA"]
    near = {f"Hard Points!D{r}": 600, f"Hard Points!E{r}": 230.0000001}
    with pytest.raises(WorkbookError, match="axis point 'WA' is at the centre point 'WC'"):
        read_car(make_workbook(near))
    apart = read_car(make_workbook(near | {f"Hard Points!E{r}": 230.001}))
    assert apart.point("WA")[2] == 230.001


# -- formulas ----------------------------------------------------------------------------
def _add_cached_value(path: Path, formula: str, value: str) -> None:
    """Give a formula the cached value Excel would have saved (openpyxl writes none)."""
    with zipfile.ZipFile(path) as z:
        items = {n: z.read(n) for n in z.namelist()}
    for name, data in items.items():
        if name.startswith("xl/worksheets/"):
            items[name] = data.replace(
                f"<f>{formula}</f><v />".encode(), f"<f>{formula}</f><v>{value}</v>".encode()
            )
    with zipfile.ZipFile(path, "w") as z:
        for name, data in items.items():
            z.writestr(name, data)


def test_formula_with_cached_value_is_read(make_workbook, point_rows):
    path = make_workbook({f"Hard Points!C{point_rows['UF']}": "=100+51"})
    _add_cached_value(path, "100+51", "151")
    assert read_car(path).point("UF")[0] == 151.0


def test_formula_without_cached_value_is_an_error(make_workbook, point_rows):
    r = point_rows["UF"]
    path = make_workbook({f"Hard Points!C{r}": "=100+51"})
    with pytest.raises(WorkbookError) as err:
        read_car(path)
    assert err.value.where == f"car.xlsx: Hard Points!C{r}"
    assert "without computed values" in err.value.message
    assert "LibreOffice" in (err.value.hint or "")


# -- errors ------------------------------------------------------------------------------
ERRORS: dict[str, tuple[dict[str, object], str, str]] = {
    # id: (edits, where (after "car.xlsx: "), regex the message must match)
    "missing index table": ({"Index!B3": "Sections"}, "Index", r"no index table"),
    "required section range blank": (
        {"Index!C6": None},
        "Index!B6",
        r"required section 'Hard Points' is missing.*blank",
    ),
    "required section not listed": (
        {"Index!B5": "Wheels", "Index!B7": None, "Index!C7": None},
        "Index!B3",
        r"required section 'Components' is missing",
    ),
    "unknown section": (
        {"Index!B6": "Hardpoint"},
        "Index!B6",
        r"unknown section 'Hardpoint'.*Did you mean 'Hard Points'",
    ),
    "section listed twice": ({"Index!B7": "hard points"}, "Index!B7", r"listed twice.*B6.*B7"),
    "range beyond the sheet": (
        {"Index!C6": "'Hard Points'!B2:E2000000"},
        "Index!C6",
        r"outside the sheet",
    ),
    "range beyond the data": (
        {"Index!C6": "'Hard Points'!Z100:AC120"},
        "Index!C6",
        r"outside the data of sheet 'Hard Points', which ends at G16",
    ),
    "unknown sheet": (
        {"Index!C6": "Hardpoints!B2:E16"},
        "Index!C6",
        r"sheet 'Hardpoints', which does not exist.*Did you mean 'Hard Points'",
    ),
    "malformed range": ({"Index!C6": "'Hard Points'!B2-E16"}, "Index!C6", r"malformed range"),
    "row zero": ({"Index!C6": "'Hard Points'!B0:E16"}, "Index!C6", r"malformed range"),
    "unreadable range": ({"Index!C6": "a!b!c"}, "Index!C6", r"cannot read the range"),
    "wrong header": (
        {"Hard Points!C2": "Xcoord"},
        "Hard Points!C2",
        r"section 'Hard Points': expected header 'X', found 'Xcoord'",
    ),
    "missing required column": (
        {"Index!C7": "Geometry!A11:E12", "Geometry!F11": None},
        "Geometry!E11",
        r"section 'Wheels': expected header 'Tyre width', found nothing",
    ),
    "unexpected column": (
        {"Index!C9": "Geometry!A19:F20", "Geometry!F19": "Colour"},
        "Geometry!F19",
        r"unexpected column 'Colour'",
    ),
    "value under a blank header": (
        {"Index!C9": "Geometry!A19:F20", "Geometry!F20": "red"},
        "Geometry!F20",
        r"value 'red' in a column without a header",
    ),
    "components header": ({"Geometry!A1": "Part"}, "Geometry!A1", r"expected header 'Body'"),
    "duplicate point": (
        {"Hard Points!B4": "UF"},
        "Hard Points!B4",
        r"point 'UF' is defined twice in Hard Points: Hard Points!B3 and Hard Points!B4",
    ),
    "point without a name": (
        {"Hard Points!B9": None},
        "Hard Points!B9",
        r"row has values but no point name",
    ),
    "duplicate body": (
        {"Geometry!A3": "Chassis"},
        "Geometry!A3",
        r"body 'Chassis' is listed twice in Components: A2 and A3",
    ),
    "point listed twice on a body": (
        {"Geometry!D3": "UF"},
        "Geometry!D3",
        r"lists point 'UF' twice: B3 and D3",
    ),
    "point absent from Hard Points": (
        {"Geometry!B3": "UFX"},
        "Geometry!B3",
        r"'Upper wishbone' uses point 'UFX', which is not in Hard Points.*Did you mean 'UF'",
    ),
    "point name case": ({"Geometry!B3": "uf"}, "Geometry!B3", r"case-sensitive"),
    "no chassis": ({"Geometry!A2": "Frame"}, "Geometry!A1", r"no body named 'Chassis'"),
    "chassis in lower case": (
        {"Geometry!A2": "chassis"},
        "Geometry!A2",
        r"no body named 'Chassis' \(found 'chassis'; names are case-sensitive\)",
    ),
    "non-numeric coordinate": (
        {"Hard Points!C5": "abc"},
        "Hard Points!C5",
        r"X coordinate of point 'LF' must be a number, found 'abc'",
    ),
    "blank coordinate": (
        {"Hard Points!E5": None},
        "Hard Points!E5",
        r"Z coordinate of point 'LF' is blank",
    ),
    "excel error value": (
        {"Hard Points!D5": "#DIV/0!"},
        "Hard Points!D5",
        r"must be a number, found '#DIV/0!'",
    ),
    "unknown length unit": (
        {"Index!F4": "furlong"},
        "Index!F4",
        r"unknown length unit 'furlong'; valid: mm, cm, m, in",
    ),
    "unknown angle unit": ({"Index!F5": "grad"}, "Index!F5", r"unknown angle unit"),
    "unknown force unit": ({"Index!F6": "kgf"}, "Index!F6", r"unknown force unit"),
    "axis map not a permutation": (
        {"Index!F7": "[[1 1 0] [0 1 0] [0 0 1]]"},
        "Index!F7",
        r"not a signed permutation",
    ),
    "axis map entries": ({"Index!F7": "[[2 0 0] [0 1 0] [0 0 1]]"}, "Index!F7", r"-1, 0 or 1"),
    "axis map unparseable": ({"Index!F7": "Y up"}, "Index!F7", r"cannot read axis map"),
    "axis map repeats an axis": ({"Index!F7": "+X +X +Z"}, "Index!F7", r"signed permutation"),
    "axis map short": ({"Index!F7": "+X +Y"}, "Index!F7", r"needs 3"),
    "unknown option": (
        {"Index!E8": "Colour"},
        "Index!E8",
        r"unknown option 'Colour'",
    ),
    "misspelt option": (
        {"Index!E4": "Lenght unit"},
        "Index!E4",
        r"unknown option 'Lenght unit'\. Did you mean 'Length unit'\?",
    ),
    "option twice": ({"Index!E8": "length unit"}, "Index!E8", r"'Length unit' is given twice"),
    "share above one": (
        {"Index!E9": "Front brake share", "Index!F9": 60},
        "Index!F9",
        r"Front brake share must be between 0 and 1, found 60",
    ),
    "negative share": (
        {"Index!E9": "Rear drive share", "Index!F9": -0.1},
        "Index!F9",
        r"between 0 and 1",
    ),
    "bad brake mount": (
        {"Index!E9": "Front brakes", "Index!F9": "inside"},
        "Index!F9",
        r"Front brakes must be one of outboard, inboard",
    ),
    "negative cg height": ({"Index!F8": -5}, "Index!F8", r"CG height must be positive"),
    "unknown reference point": (
        {"Index!E9": "Chassis reference point", "Index!F9": "CG"},
        "Index!F9",
        r"chassis reference point 'CG' is not in Hard Points",
    ),
    "body with one point": (
        {"Geometry!C6": None},
        "Geometry!A6",
        r"body 'Tie rod' has 1 point\(s\); a rigid body needs at least two",
    ),
    "wheel on a missing body": (
        {"Geometry!B12": "Hub"},
        "Geometry!B12",
        r"wheel 'FL': body 'Hub' is not in Components",
    ),
    "wheel point not on its body": (
        {"Geometry!C12": "UF"},
        "Geometry!C12",
        r"wheel 'FL' centre point 'UF' is not a point of body 'Upright'",
    ),
    "wheel axis point is the centre": ({"Geometry!D12": "WC"}, "Geometry!D12", r"centre point"),
    "negative tyre radius": (
        {"Geometry!E12": -230},
        "Geometry!E12",
        r"tyre radius of wheel 'FL' must be positive, found -230",
    ),
    "blank tyre width": ({"Geometry!F12": None}, "Geometry!F12", r"tyre width .* is blank"),
    "one kingpin point": (
        {"Geometry!H12": None},
        "Geometry!H12",
        r"give both kingpin points or neither",
    ),
    "wheel listed twice": (
        {"Index!C7": "Geometry!A11:H13", "Geometry!A13": "FL", "Geometry!B13": "Upright"},
        "Geometry!A13",
        r"wheel 'FL' is listed twice",
    ),
    "rack on a missing body": (
        {"Geometry!A16": "Steering rack"},
        "Geometry!A16",
        r"steering rack: body 'Steering rack' is not in Components",
    ),
    "rack point not on its body": (
        {"Geometry!B16": "UF", "Geometry!C16": "RE"},
        "Geometry!B16",
        r"rack end point 1 'UF' is not a point of body 'Rack'",
    ),
    "one rack end point": ({"Geometry!B16": "TI"}, "Geometry!C16", r"both rack end points"),
    "two racks": (
        {"Index!C8": "Geometry!A15:D17", "Geometry!A17": "Rack"},
        "Geometry!A17",
        r"more than one rack",
    ),
    "rack is the chassis": ({"Geometry!A16": "Chassis"}, "Geometry!A16", r"cannot be the Chassis"),
    "damper on a missing body": (
        {"Geometry!A20": "Shock"},
        "Geometry!A20",
        r"damper: body 'Shock' is not in Components",
    ),
    "damper point not on its body": (
        {"Geometry!C20": "UB"},
        "Geometry!C20",
        r"damper 'Damper' moving point 'UB' is not a point of body 'Damper'",
    ),
    "damper chassis point not on the chassis": (
        {"Geometry!B20": "DM", "Geometry!C20": "DC"},
        "Geometry!B20",
        r"chassis point 'DM' is not on the Chassis body",
    ),
    "damper min above max": (
        {"Geometry!D20": 450, "Geometry!E20": 350},
        "Geometry!D20",
        r"min length is greater than max length",
    ),
    "negative damper length": ({"Geometry!D20": -1}, "Geometry!D20", r"must be positive"),
}


@pytest.mark.parametrize("edits, where, message", ERRORS.values(), ids=ERRORS.keys())
def test_errors_name_the_cell(make_workbook, edits, where, message):
    path = make_workbook(edits)
    with pytest.raises(WorkbookError) as err:
        read_car(path)
    assert err.value.where == f"car.xlsx: {where}"
    assert re.search(message, err.value.message), err.value.message
    assert err.value.hint


def test_missing_file(tmp_path):
    with pytest.raises(WorkbookError) as err:
        read_car(tmp_path / "missing.xlsx")
    assert err.value.where == "missing.xlsx"
    assert "not found" in err.value.message


def test_not_an_xlsx(tmp_path):
    path = tmp_path / "car.xlsx"
    path.write_text("Point,X,Y,Z\n")
    with pytest.raises(WorkbookError) as err:
        read_car(path)
    assert err.value.where == "car.xlsx"
    assert "cannot open" in err.value.message and ".xlsx" in (err.value.hint or "")


def test_old_xls_format(tmp_path):
    path = tmp_path / "car.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(WorkbookError) as err:
        read_car(path)
    assert "cannot open" in err.value.message


def test_index_must_be_on_the_first_sheet(make_workbook):
    path = make_workbook()
    wb = openpyxl.load_workbook(path)
    wb.move_sheet("Index", offset=2)
    wb.save(path)
    with pytest.raises(WorkbookError) as err:
        read_car(path)
    # Where the index was found (header 'Section' at Index!B3), and what to do.
    assert err.value.where == "car.xlsx: Index!B3"
    assert "on sheet 'Index' (B3)" in err.value.message
    assert "first sheet (now 'Geometry')" in err.value.message
    assert "move sheet 'Index' to the first place" in (err.value.hint or "")


def test_no_index_anywhere_names_the_first_sheet(make_workbook):
    with pytest.raises(WorkbookError) as err:
        read_car(make_workbook({"Index!B3": "Sections"}))
    assert err.value.where == "car.xlsx: Index"
    assert "no index table on the first sheet 'Index'" in err.value.message


# -- merged cells ------------------------------------------------------------------------
def _merge(path: Path, sheet: str, cells: str) -> Path:
    wb = openpyxl.load_workbook(path)
    wb[sheet].merge_cells(cells)
    wb.save(path)
    return path


@pytest.mark.parametrize(
    "sheet, merged, where",
    [
        ("Hard Points", "C3:D3", "Hard Points!D3"),  # two coordinates of point UF
        ("Hard Points", "B9:B10", "Hard Points!B10"),  # two point names
        ("Hard Points", "A5:B5", "Hard Points!B5"),  # from a note column into the range
        ("Geometry", "B12:C12", "Geometry!C12"),  # Wheels: centre and axis point
        ("Index", "B6:C6", "Index!C6"),  # the index table: a section and its range
        ("Index", "E8:F8", "Index!F8"),  # User Options on the index sheet
    ],
)
def test_merged_cell_inside_a_section_is_named(make_workbook, sheet, merged, where):
    path = _merge(make_workbook(), sheet, merged)
    with pytest.raises(WorkbookError) as err:
        read_car(path)
    assert err.value.where == f"car.xlsx: {where}"
    ref = where.split("!")[1]
    assert err.value.message == f"{ref} is part of merged range {merged}; unmerge it"
    assert "unmerge" in (err.value.hint or "")


def test_merged_cells_outside_every_range_are_ignored(make_workbook):
    plain = read_car(make_workbook())
    path = _merge(make_workbook(name="titled.xlsx"), "Hard Points", "A1:F1")  # a title row
    _merge(path, "Index", "A1:D1")  # the note above the index table
    assert read_car(path) == plain


# -- absurd numbers ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "edits, where, message",
    [
        ({"Hard Points!D5": 1e300}, "Hard Points!D5", "Y coordinate of point 'LF' is 1e+300 mm"),
        ({"Hard Points!E9": -1e308}, "Hard Points!E9", "Z coordinate of point 'LB' is -1e+308"),
        ({"Hard Points!C3": 2e7}, "Hard Points!C3", "X coordinate of point 'UF' is 2e+07 mm"),
        # 10 km in metres: the limit is the same length in the workbook's unit
        (
            {"Hard Points!C3": 2e4, "Index!F4": "m"},
            "Hard Points!C3",
            "X coordinate of point 'UF' is 20000 m: not a car dimension (at most 10000 m)",
        ),
        ({"Hard Points!C3": "1e400"}, "Hard Points!C3", "must be a number, found '1e400'"),
        ({"Hard Points!C3": "inf"}, "Hard Points!C3", "must be a number, found 'inf'"),
        ({"Hard Points!C3": "-Infinity"}, "Hard Points!C3", "must be a number"),
        ({"Hard Points!C3": "nan"}, "Hard Points!C3", "must be a number, found 'nan'"),
        ({"Geometry!E12": 1e308}, "Geometry!E12", "tyre radius of wheel 'FL' is 1e+308 mm"),
        ({"Geometry!E20": 1e300}, "Geometry!E20", "max length of damper 'Damper' is 1e+300"),
        ({"Index!F8": 1e300}, "Index!F8", "CG height is 1e+300 mm"),
        ({"Geometry!D16": 1e300}, "Geometry!D16", "steering ratio is 1e+300 mm/deg"),
        ({"Index!E9": "Solver tolerance", "Index!F9": 1e300}, "Index!F9", "Solver tolerance"),
    ],
)
def test_absurd_number_names_its_own_cell(make_workbook, edits, where, message):
    path = make_workbook(edits)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning from numpy or float arithmetic
        with pytest.raises(WorkbookError) as err:
            read_car(path)
    assert err.value.where == f"car.xlsx: {where}"
    assert message in err.value.message


def test_largest_plausible_coordinate_is_read(make_workbook):
    # 10 km is the limit itself, and is accepted (in the workbook's unit: 10000 m).
    car = read_car(make_workbook({"Hard Points!C3": 1e4, "Index!F4": "m"}))
    assert dict((p.name, p.xyz) for p in car.points)["UF"][0] == pytest.approx(1e7)
