"""`suspension-sim check` on every bundled workbook, and on a broken copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pytest

from suspension_sim.cli import main

WORKBOOKS = Path(__file__).resolve().parents[1] / "workbooks"


@pytest.mark.parametrize("path", sorted(WORKBOOKS.glob("*.xlsx")), ids=lambda p: p.stem)
def test_check_runs_clean_on_every_example(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Mobility:" in out and "0 free motion(s)" in out
    assert "No warnings." in out


def _cell_of(book: openpyxl.Workbook, sheet: str, point: str, column: int) -> str:
    ws = book[sheet]
    for row in ws.iter_rows():
        if row[0].value == point:
            return row[column].coordinate
    raise AssertionError(point)


def _broken_copy(
    tmp_path: Path, sheet: str, row_name: str, column: int, value: object
) -> tuple[Path, str]:
    """A copy of the example car with one cell changed; returns it and the cell."""
    broken = tmp_path / "broken.xlsx"
    shutil.copy(WORKBOOKS / "fsae_car.xlsx", broken)
    book = openpyxl.load_workbook(broken)
    cell = _cell_of(book, sheet, row_name, column)
    book[sheet][cell] = value
    book.save(broken)
    return broken, cell


@pytest.mark.parametrize(
    ("sheet", "point", "column", "value", "words"),
    [
        ("Hard Points", "FL_UBJ", 3, "12,5 mm", ["must be a number"]),
        (
            "Components",
            "FL_Upright",
            2,
            "FL_UBJ_TYPO",
            ["'FL_UBJ_TYPO'", "not in Hard Points", "Did you mean 'FL_UBJ'?"],
        ),
    ],
)
def test_check_on_a_broken_copy_points_at_the_cell(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sheet: str,
    point: str,
    column: int,
    value: str,
    words: list[str],
) -> None:
    broken, cell = _broken_copy(tmp_path, sheet, point, column, value)
    assert main(["check", str(broken)]) != 0
    err = capsys.readouterr().err
    assert f"{sheet}!{cell}" in err
    for w in words:
        assert w in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("sheet", "point", "column", "value", "words"),
    [
        ("Hard Points", "FL_UBJ", 3, 1e300, ["not a car dimension"]),
        ("Wheels", "FL", 3, "FL_WC", ["axis point", "centre point"]),
        ("Wheels", "FL", 1, "Chassis", ["carried by the Chassis"]),
    ],
)
def test_geometry_mistakes_are_named(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sheet: str,
    point: str,
    column: int,
    value: object,
    words: list[str],
) -> None:
    broken, _ = _broken_copy(tmp_path, sheet, point, column, value)
    assert main(["check", str(broken)]) == 2
    err = capsys.readouterr().err
    assert sheet in err and "Traceback" not in err
    for w in words:
        assert w in err


def test_wrong_length_unit_is_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same numbers read as inches: every tyre becomes 25 times too big.
    broken = tmp_path / "inches.xlsx"
    shutil.copy(WORKBOOKS / "fsae_car.xlsx", broken)
    book = openpyxl.load_workbook(broken)
    book["User Options"][_cell_of(book, "User Options", "Length unit", 1)] = "in"
    book.save(broken)
    assert main(["check", str(broken)]) == 0
    out = capsys.readouterr().out
    assert "unusual for a racing car" in out and "check the Length unit" in out
