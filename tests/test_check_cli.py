"""`suspension-sim check` and `suspension-sim new` through cli.main."""

from __future__ import annotations

from suspension_sim.cli import main
from suspension_sim.commands.check import describe_car
from suspension_sim.workbook import read_car


def test_check_prints_what_was_read(make_workbook, capsys):
    path = make_workbook()
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Car 'Quarter car'" in out
    assert "Bodies (7):" in out
    assert "  Upright (5 points): UB, LB, TO, WC, WA" in out
    assert "  TI -> Tie rod, Rack" in out  # joined points
    assert "Damper: chassis point DC, moving point DM, design length 407.185 mm" in out
    assert "FL on Upright: centre WC, axis point WA" in out
    assert "Steering rack: Rack, slides TI -> RE, ratio 0.5 mm per steering-wheel deg" in out
    assert "axis map +X +Y +Z" in out
    assert "No warnings." in out


def test_check_prints_warnings_and_still_succeeds(make_workbook, capsys):
    path = make_workbook({"Hard Points!B17": "NEW"})
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Warnings (1):" in out and "Hard Points!B17" in out


def test_check_reports_a_broken_workbook_without_traceback(make_workbook, capsys):
    path = make_workbook({"Hard Points!C5": "abc"})
    code = main(["check", str(path)])
    captured = capsys.readouterr()
    assert code != 0
    assert "car.xlsx: Hard Points!C5" in captured.err
    assert "must be a number" in captured.err and "fix:" in captured.err
    assert "Traceback" not in captured.err + captured.out


def test_check_missing_file(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.xlsx")]) != 0
    assert "nope.xlsx" in capsys.readouterr().err


def test_describe_car_takes_body_notes(make_workbook):
    car = read_car(make_workbook())
    lines = describe_car(car, body_notes={"Rack": "prismatic"})
    assert "  Rack (2 points): TI, RE  [prismatic]" in lines
    assert lines[0].startswith("Car 'Quarter car' from ")


def test_new_writes_a_template_that_checks_clean(tmp_path, capsys):
    path = tmp_path / "mycar.xlsx"
    assert main(["new", str(path)]) == 0
    assert path.exists() and str(path) in capsys.readouterr().out
    assert main(["check", str(path)]) == 0
    assert "Bodies (" in capsys.readouterr().out
    assert read_car(path).bodies


def test_new_refuses_to_overwrite_without_force(tmp_path, capsys):
    path = tmp_path / "mycar.xlsx"
    path.write_bytes(b"precious")
    assert main(["new", str(path)]) != 0
    err = capsys.readouterr().err
    assert str(path) in err and "already exists" in err and "--force" in err
    assert path.read_bytes() == b"precious"
    assert main(["new", str(path), "--force"]) == 0
    assert read_car(path).bodies
