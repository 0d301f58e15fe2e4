"""write_car: round trips through real files, layout, overwrite protection."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import openpyxl
import pytest
from _cars import four_corner_car

from suspension_sim.description import Options, Point
from suspension_sim.errors import WorkbookError
from suspension_sim.workbook import read_car, write_car

Y_UP = ((0, 0, 1), (1, 0, 0), (0, 1, 0))  # model X = CAD +Z, Y = CAD +X, Z = CAD +Y


def _close(a: Any, b: Any, rel: float = 1e-9, path: str = "car") -> None:
    """Equal field by field, except floats, which agree to `rel`."""
    if dataclasses.is_dataclass(a):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            if f.compare:
                _close(getattr(a, f.name), getattr(b, f.name), rel, f"{path}.{f.name}")
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, rel, f"{path}[{i}]")
    elif isinstance(a, float):
        assert b == pytest.approx(a, rel=rel, abs=1e-12), path
    else:
        assert a == b, path


def test_round_trip_of_a_read_workbook_is_exact(make_workbook, tmp_path):
    car = read_car(make_workbook())
    again = read_car(write_car(car, tmp_path / "out.xlsx"))
    assert again == car
    assert again.warnings == ()


def test_round_trip_keeps_every_float_bit(tmp_path):
    awkward = (0.1 + 0.2, 1 / 3, -123.456789012345678)
    car = dataclasses.replace(
        four_corner_car(),
        points=(Point("odd", awkward), *four_corner_car().points),
        options=Options(cg_height_mm=math.pi * 100, wheelbase_mm=1530.0000000000002),
    )
    again = read_car(write_car(car, tmp_path / "bits.xlsx"))
    assert again == car
    assert again.point("odd").tolist() == list(awkward)
    assert any("odd" in w for w in again.warnings)  # on no body


def test_round_trip_in_inches_with_y_up_axis_map(make_workbook, tmp_path):
    car = read_car(make_workbook())
    options = dataclasses.replace(
        car.options,
        length_unit="in",
        angle_unit="rad",
        force_unit="lbf",
        axis_map=Y_UP,
        wheelbase_mm=1530.3,
        chassis_reference_point="DC",
        front_brakes_inboard=True,
        drive_inboard=False,
        sign_convention="optimumk",
    )
    car = dataclasses.replace(car, options=options)
    path = write_car(car, tmp_path / "inch.xlsx")
    again = read_car(path)
    _close(car, again)
    assert again.options.axis_map == Y_UP and again.options.length_unit == "in"

    # the file holds inches in the CAD frame: UF = (150, 250, 300) mm in the model frame
    ws = openpyxl.load_workbook(path)["Hard Points"]
    row = next(r for r in ws.iter_rows(min_row=2) if r[0].value == "UF")
    assert [c.value for c in row[1:4]] == pytest.approx([250 / 25.4, 300 / 25.4, 150 / 25.4])


def test_round_trip_in_centimetres_and_milliradians(make_workbook, tmp_path):
    car = read_car(make_workbook())
    options = dataclasses.replace(
        car.options, length_unit="cm", angle_unit="mrad", rear_brakes_inboard=True
    )
    car = dataclasses.replace(car, options=options)
    path = write_car(car, tmp_path / "cm.xlsx")
    _close(car, read_car(path))
    book = openpyxl.load_workbook(path)
    written = {r[0].value: r[1].value for r in book["User Options"].iter_rows(min_row=2)}
    assert written["Length unit"] == "cm" and written["Angle unit"] == "mrad"
    assert written["CG height"] == pytest.approx(28.0)  # 280 mm
    assert (written["Front brakes"], written["Rear brakes"], written["Drive"]) == (
        "outboard",
        "inboard",
        "inboard",
    )
    ws = book["Hard Points"]
    row = next(r for r in ws.iter_rows(min_row=2) if r[0].value == "UF")
    assert [c.value for c in row[1:4]] == pytest.approx([15.0, 25.0, 30.0])
    ratio = book["Steering"]["D2"].value  # 0.5 mm/deg = 0.05 cm per (180/pi/1000) mrad
    assert ratio == pytest.approx(0.05 * 180 / math.pi / 1000)


def test_four_corner_car_round_trip(tmp_path):
    car = four_corner_car()
    assert read_car(write_car(car, tmp_path / "car.xlsx")) == car


def test_car_without_optional_parts(tmp_path):
    base = four_corner_car()
    car = dataclasses.replace(base, wheels=(), rack=None, dampers=())
    again = read_car(write_car(car, tmp_path / "bare.xlsx"))
    assert again == car


def test_layout(make_workbook, tmp_path):
    car = read_car(make_workbook())
    path = write_car(car, tmp_path / "out.xlsx", notes=["Line one", "Line two"])
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == [
        "Index",
        "User Options",
        "Components",
        "Hard Points",
        "Wheels",
        "Steering",
        "Damping",
    ]
    index = wb["Index"]
    table = [(r[0].value, r[1].value) for r in index.iter_rows(min_row=1, max_row=7, max_col=2)]
    assert table == [
        ("Section", "Range"),
        ("User Options", "'User Options'!A1:B19"),
        ("Components", "Components!A1:F8"),
        ("Hard Points", "'Hard Points'!A1:D14"),
        ("Wheels", "Wheels!A1:H2"),
        ("Steering", "Steering!A1:F2"),
        ("Damping", "Damping!A1:E2"),
    ]
    assert [index["D1"].value, index["D2"].value, index["D3"].value] == [
        "Notes",
        "Line one",
        "Line two",
    ]
    assert index["A1"].font.b and wb["Hard Points"]["D1"].font.b
    assert wb["Components"]["A2"].value == "Chassis"
    assert wb["User Options"]["A2"].value == "Car name"
    assert wb["User Options"]["B6"].value == "+X +Y +Z"
    assert wb["Hard Points"].freeze_panes == "A2"
    assert wb["Hard Points"].column_dimensions["A"].width >= 8


def test_refuses_to_overwrite(make_workbook, tmp_path):
    car = read_car(make_workbook())
    path = tmp_path / "car.xlsx"  # the source workbook itself
    before = path.read_bytes()
    with pytest.raises(WorkbookError) as err:
        write_car(car, path)
    assert str(path) in err.value.where
    assert "already exists" in err.value.message and "force=True" in (err.value.hint or "")
    assert path.read_bytes() == before
    write_car(car, path, force=True)
    assert read_car(path) == car


def test_writes_atomically_leaving_no_temp_files(make_workbook, tmp_path):
    car = read_car(make_workbook())
    write_car(car, tmp_path / "a.xlsx")
    write_car(car, tmp_path / "a.xlsx", force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.xlsx", "car.xlsx"]


def test_a_failed_write_names_the_file_and_leaves_nothing(make_workbook, tmp_path):
    car = read_car(make_workbook())
    target = tmp_path / ("x" * 245 + ".xlsx")  # a legal name whose temporary sibling is not
    with pytest.raises(WorkbookError) as err:
        write_car(car, target)
    assert err.value.where == str(target) and "cannot write" in err.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["car.xlsx"]


@pytest.mark.parametrize("name, message", [("car.xls", ".xlsx"), ("nodir/car.xlsx", "directory")])
def test_bad_target(make_workbook, tmp_path, name, message):
    car = read_car(make_workbook())
    with pytest.raises(WorkbookError, match=message):
        write_car(car, tmp_path / name)


def test_names_that_look_like_formulas_stay_text(tmp_path):
    base = four_corner_car()
    renamed = {"FL_WA": "=WA"}
    points = tuple(dataclasses.replace(p, name=renamed.get(p.name, p.name)) for p in base.points)
    bodies = tuple(
        dataclasses.replace(b, points=tuple(renamed.get(n, n) for n in b.points))
        for b in base.bodies
    )
    wheels = tuple(
        dataclasses.replace(w, axis_point=renamed.get(w.axis_point, w.axis_point))
        for w in base.wheels
    )
    car = dataclasses.replace(base, points=points, bodies=bodies, wheels=wheels)
    path = write_car(car, tmp_path / "eq.xlsx", notes=["=not a formula"])
    assert read_car(path) == car
