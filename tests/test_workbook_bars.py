"""Workbook side of anti-roll bars and third springs: the Damping Type column, the
Anti-roll Bars section, their units, round trip, errors at the cell and Symmetry."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import get_column_letter, quote_sheetname

from suspension_sim.description import Car, Options
from suspension_sim.errors import WorkbookError
from suspension_sim.workbook import read_car
from suspension_sim.workbook.car_json import car_from_json, car_to_json
from suspension_sim.workbook.examples import load_source
from suspension_sim.workbook.writer import write_car
from tests.test_anti_roll_bars import tbar_car, ubar_car

ROOT = Path(__file__).resolve().parents[1]
ARB = ROOT / "workbooks" / "fsae_car_arb.xlsx"
RIGHT = re.compile(r"^(FR|RR)(_|$)")


def written(car: Car, tmp_path: Path, name: str = "car.xlsx") -> Path:
    return write_car(car, tmp_path / name)


def edited(path: Path, sheet: str, row_name: str, column: str, value: object) -> str:
    """Set the cell of `column` (by header) in the row whose first cell is `row_name`;
    returns the cell's reference."""
    wb = openpyxl.load_workbook(path)
    ws = wb[sheet]
    header = [c.value for c in ws[1]]
    col = header.index(column) + 1 if column in header else len(header) + 1
    if column not in header:
        ws.cell(row=1, column=col, value=column)
    row = next(r[0].row for r in ws.iter_rows(min_row=2) if r[0].value == row_name)
    ws.cell(row=row, column=col).value = value  # (value=None in ws.cell would keep the old)
    wb.save(path)
    return f"{sheet}!{get_column_letter(col)}{row}"


def raises_at(path: Path, ref: str, *words: str) -> WorkbookError:
    with pytest.raises(WorkbookError) as info:
        read_car(path)
    text = str(info.value)
    assert ref in (info.value.where or ""), (info.value.where, ref)
    for w in words:
        assert w in text, text
    return info.value


# -- round trip and units ------------------------------------------------------------------
@pytest.mark.parametrize("build", [tbar_car, ubar_car])
def test_bars_and_third_springs_round_trip(build: Callable[[], Car], tmp_path: Path) -> None:
    car = build()
    back = read_car(written(car, tmp_path))
    assert back == car
    assert back.anti_roll_bars == car.anti_roll_bars
    assert back.third_springs == car.third_springs
    assert car_from_json(car_to_json(back)) == back


@pytest.mark.parametrize(
    ("units", "per_unit"),
    [
        (("N", "mm", "deg"), 180.0 / math.pi),  # N mm/deg -> N mm/rad
        (("lbf", "in", "rad"), 4.4482216152605 * 25.4),
        (("N", "m", "deg"), 1000.0 * 180.0 / math.pi),
    ],
)
def test_torsional_rate_is_read_in_the_workbook_units(
    units: tuple[str, str, str], per_unit: float, tmp_path: Path
) -> None:
    force, length, angle = units
    car = tbar_car()
    car = Car(
        **{
            **car.__dict__,
            "options": Options(length_unit=length, force_unit=force, angle_unit=angle),
        }
    )
    path = written(car, tmp_path)
    # the writer converts back to the workbook's units (to within an ulp)
    assert read_car(path).anti_roll_bars[0].rate == pytest.approx(car.anti_roll_bars[0].rate)
    edited(path, "Anti-roll Bars", "T", "Torsional rate", 20.0)
    assert read_car(path).anti_roll_bars[0].rate == pytest.approx(20.0 * per_unit, rel=1e-14)


def test_the_arb_example_round_trips_through_json_and_shows_both_kinds() -> None:
    car = read_car(ARB)
    assert car == load_source("fsae_car_arb")
    kinds = {b.name: b.kind for b in car.anti_roll_bars}
    assert kinds == {"Front ARB": "U-bar", "Rear T-bar": "T-bar"}
    assert [t.name for t in car.third_springs] == ["Rear heave"]
    assert car_from_json(car_to_json(car)) == car
    # 20 N m/deg
    front = car.anti_roll_bars[0]
    assert front.rate == pytest.approx(20000.0 * 180.0 / math.pi, rel=1e-14)


# -- errors at the cell --------------------------------------------------------------------
def test_third_spring_named_like_a_body_is_refused(tmp_path: Path) -> None:
    path = written(tbar_car(), tmp_path)
    ref = edited(path, "Damping", "Heave", "Damper body", "Lever")
    raises_at(path, ref, "'Lever'", "not a body")


def test_unknown_damping_type_names_its_cell(tmp_path: Path) -> None:
    path = written(tbar_car(), tmp_path)
    ref = edited(path, "Damping", "Heave", "Type", "heave")
    raises_at(path, ref, "damper or third", "'heave'")


def test_third_spring_end_on_no_body_names_its_cell(tmp_path: Path) -> None:
    path = written(tbar_car(), tmp_path)
    ref = edited(path, "Damping", "Heave", "Moving point", "KX")
    raises_at(path, ref, "'KX'", "not in Hard Points", "Did you mean 'K'?")


def test_third_spring_needs_a_rate(tmp_path: Path) -> None:
    path = written(tbar_car(), tmp_path)
    ref = edited(path, "Damping", "Heave", "Spring rate", None)
    raises_at(path, ref, "no spring rate")


def test_u_bar_arm_turning_about_another_axis_names_the_arm_cell(tmp_path: Path) -> None:
    path = written(ubar_car(), tmp_path)
    ref = edited(path, "Anti-roll Bars", "U", "Axis point 2", "CL")  # axis AP1 -> CL: vertical
    assert ref == "Anti-roll Bars!F2"
    raises_at(path, "Anti-roll Bars!C2", "arm 'ArmL' turns about -Y (AP1 -> AP2)", "not about")


def test_t_bar_with_a_second_arm_names_the_cell(tmp_path: Path) -> None:
    path = written(tbar_car(), tmp_path)
    ref = edited(path, "Anti-roll Bars", "T", "Arm 2", "DL")
    raises_at(path, ref, "one lever")


def test_t_bar_off_square_shaft_names_the_shaft_cell(tmp_path: Path) -> None:
    car = tbar_car(shaft=(-66.0, 10.0, 300.0))
    path = written(car, tmp_path)
    raises_at(path, "Anti-roll Bars!G2", "not 90 deg", "81.3")


@pytest.mark.parametrize(
    ("column", "value", "words"),
    [
        ("Torsional rate", 0, ["must be positive"]),
        ("Torsional rate", None, ["is blank"]),
        ("Type", "V-bar", ["U-bar or T-bar", "'V-bar'"]),
        ("Axis point 2", "EL", ["not a point of body 'Chassis'"]),
        ("Arm 1", "DL", ["a damper"]),
    ],
)
def test_bad_bar_values_name_sheet_and_cell(
    column: str, value: object, words: list[str], tmp_path: Path
) -> None:
    path = written(tbar_car(), tmp_path)
    ref = edited(path, "Anti-roll Bars", "T", column, value)
    raises_at(path, ref, *words)


def test_type_column_must_come_last(tmp_path: Path) -> None:
    path = written(tbar_car(), tmp_path)
    wb = openpyxl.load_workbook(path)
    ws = wb["Damping"]
    ws["F1"], ws["I1"] = "Type", "Spring rate"
    wb.save(path)
    raises_at(path, "Damping!F1", "must be the last one")


# -- Symmetry ----------------------------------------------------------------------------
def left_side(target: Path, arm2: str | None = None) -> Path:
    """workbooks/fsae_car_arb.xlsx with every right-side row and Components cell deleted
    and Symmetry on; the bars (declared once) keep naming the right arm and axis point."""
    wb = openpyxl.load_workbook(ARB)
    ranges = {row[0].value: row[1] for row in wb["Index"].iter_rows(min_row=2, max_col=2)}
    for sheet in ("Hard Points", "Components", "Wheels", "Damping"):
        ws = wb[sheet]
        rows = [list(r) for r in ws.iter_rows(values_only=True)]
        kept = [rows[0]] + [r for r in rows[1:] if not RIGHT.match(str(r[0]))]
        if sheet == "Components":
            kept = [
                [r[0]] + [v for v in r[1:] if v is not None and not RIGHT.match(str(v))]
                for r in kept
            ]
        for row in ws.iter_rows():
            for cell in row:
                cell.value = None
        width = max(len(r) for r in kept)
        for i, r in enumerate(kept, start=1):
            for j, v in enumerate(r, start=1):
                ws.cell(row=i, column=j, value=v)
        ranges[sheet].value = f"{quote_sheetname(sheet)}!A1:{get_column_letter(width)}{len(kept)}"
    row = next(r for r in wb["User Options"].iter_rows(min_row=2) if r[0].value == "Symmetry")
    row[1].value = "mirror left to right"
    if arm2 is not None:
        wb["Anti-roll Bars"]["D2"] = arm2
    wb.save(target)
    return target


def test_symmetry_generates_the_right_arm_a_bar_names(tmp_path: Path) -> None:
    car = read_car(left_side(tmp_path / "left.xlsx"))
    full = read_car(ARB)
    assert car.anti_roll_bars == full.anti_roll_bars
    assert car.body("FR_ARB") == full.body("FR_ARB")
    assert set(car.body("TBar").points) == set(full.body("TBar").points)
    assert car.third_springs == full.third_springs  # a centre spring is not mirrored
    assert {p.name for p in car.points} == {p.name for p in full.points}


def test_symmetry_missing_right_arm_says_how_to_name_it(tmp_path: Path) -> None:
    path = left_side(tmp_path / "left.xlsx", arm2="FR_ARB_X")
    raises_at(path, "Anti-roll Bars!D2", "'FR_ARB_X' is not in Components", "Symmetry")


# -- check ---------------------------------------------------------------------------------
def test_check_prints_the_bars_and_third_springs(capsys: pytest.CaptureFixture[str]) -> None:
    from suspension_sim.cli import main

    assert main(["check", str(ARB)]) == 0
    out = capsys.readouterr().out
    assert (
        "Front ARB: U-bar, arms FL_ARB and FR_ARB, bar axis FL_ARB_B1 -> FR_ARB_B1,"
        " rate 20 N m/deg" in out
    )
    assert "Rear T-bar: T-bar, lever TBar, pivot RC_TBAR_P" in out and "rate 15 N m/deg" in out
    assert "Rear heave: RC_TBAR_S (TBar) -> RC_3RD_C (Chassis), design length 150.000 mm" in out
    assert "spring 35 N/mm, preload 486 N" in out  # the corner springs of the base car
    assert "-> 5 active, 5 input(s)" in out  # the bars add no freedom
