"""`suspension-sim sweep` through cli.main: outputs, charts, results sheet, exit codes."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest
from _cars import four_corner_car

from suspension_sim.cli import main
from suspension_sim.commands.sweep import progress_bar
from suspension_sim.workbook import read_car, write_car

SWEEPS = """\
sweeps:
  roll:
    motion: roll
    start: -1
    stop: 1
    steps: 3
  roll_at_steer:
    motion: roll
    values: [-1, 1]
    grid:
      motion: steer
      values: [-10, 10]
  bad:
    motion: bump FL
    values: [0, 10, 300]
"""


@pytest.fixture
def workbook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test car written by the workbook writer, with a sweeps.yaml beside it."""
    monkeypatch.setenv("SUSPENSION_SIM_CACHE_DIR", str(tmp_path / "cache"))
    path = write_car(four_corner_car(), tmp_path / "car.xlsx")
    (tmp_path / "sweeps.yaml").write_text(textwrap.dedent(SWEEPS), encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".csv", ".xlsx", ".parquet"])
def test_writes_the_table(workbook: Path, suffix: str, capsys: pytest.CaptureFixture) -> None:
    out = workbook.with_name(f"roll{suffix}")
    assert main(["sweep", str(workbook), "roll", "--out", str(out)]) == 0
    table = {
        ".csv": lambda: pd.read_csv(out, index_col="step"),
        ".xlsx": lambda: pd.read_excel(out, index_col="step"),
        ".parquet": lambda: pd.read_parquet(out),
    }[suffix]()
    assert list(table.index) == [0, 1, 2]
    assert table["chassis_roll_deg"].tolist() == [-1.0, 0.0, 1.0]
    assert table.loc[2, "camber_FL_deg"] == pytest.approx(table.loc[0, "camber_FR_deg"])
    stdout = capsys.readouterr().out
    assert "3 of 3 steps solved" in stdout and "no problems" in stdout


def test_a_failed_step_writes_what_was_solved_and_exits_non_zero(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    out = workbook.with_name("bad.csv")
    assert main(["sweep", str(workbook), "bad", "--out", str(out)]) == 3
    table = pd.read_csv(out, index_col="step")
    assert table["wheel_travel_FL_mm"].tolist() == [0.0, 10.0]
    stdout = capsys.readouterr().out
    assert "2 of 3 steps solved" in stdout
    assert "1 problem(s)" in stdout and "step 2 (wheel_travel_FL_mm = 300)" in stdout


def test_plots_are_real_charts(workbook: Path) -> None:
    from matplotlib.image import imread

    folder = workbook.with_name("plots")
    assert main(["sweep", str(workbook), "roll_at_steer", "--plot", str(folder)]) == 0
    names = {p.name for p in folder.glob("*.png")}
    expected = {"camber", "toe", "caster", "scrub", "trail", "motion_ratio", "roll_centre"}
    assert names == {f"{n}.png" for n in expected}
    for name in names:
        path = folder / name
        assert path.stat().st_size > 15_000, name
        rgb = (imread(path)[:, :, :3] * 255).astype(np.int64)
        colours = np.unique(rgb[:, :, 0] << 16 | rgb[:, :, 1] << 8 | rgb[:, :, 2])
        assert len(colours) > 20 and rgb.std() > 10, name  # drawn lines, not blank


def cells(path: Path) -> dict[str, dict[str, object]]:
    """Every non-empty cell of every sheet (formulas as written), by sheet."""
    wb = openpyxl.load_workbook(path)
    return {
        ws.title: {c.coordinate: c.value for row in ws.iter_rows() for c in row if c.value}
        for ws in wb.worksheets
    }


def test_into_workbook_adds_one_sheet_and_touches_nothing_else(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    from openpyxl.chart import LineChart, Reference

    wb = openpyxl.load_workbook(workbook)  # a user's own sheet, with a formula and a chart
    notes = wb.create_sheet("My notes")
    notes["A1"], notes["B2"], notes["C3"] = "setup", 12.5, "=B2*2"
    chart = LineChart()
    chart.add_data(Reference(notes, min_col=2, min_row=1, max_row=3))
    notes.add_chart(chart, "E5")
    wb.save(workbook)
    before = cells(workbook)
    with zipfile.ZipFile(workbook) as zf:
        parts = {n: zf.read(n) for n in zf.namelist()}
    assert any(n.startswith("xl/charts/") for n in parts)  # openpyxl would drop it on re-save

    assert main(["sweep", str(workbook), "roll", "--into-workbook"]) == 0
    after = cells(workbook)
    assert list(after) == [*before, "Results roll"]
    for sheet, content in before.items():
        assert after[sheet] == content, sheet
    results = pd.read_excel(workbook, sheet_name="Results roll", index_col="step")
    assert results["chassis_roll_deg"].tolist() == [-1.0, 0.0, 1.0]
    with zipfile.ZipFile(workbook) as zf:
        changed = {n for n, data in parts.items() if zf.read(n) != data}
    assert changed <= {"xl/workbook.xml", "xl/_rels/workbook.xml.rels", "[Content_Types].xml"}
    assert read_car(workbook) == four_corner_car()

    # a second run refuses to overwrite the results sheet without --force
    saved = workbook.read_bytes()
    assert main(["sweep", str(workbook), "roll", "--into-workbook"]) == 2
    assert "already has a sheet 'Results roll'" in capsys.readouterr().err
    assert workbook.read_bytes() == saved
    assert main(["sweep", str(workbook), "roll", "--into-workbook", "--force"]) == 0
    assert list(cells(workbook)) == [*before, "Results roll"]


def test_bad_options_are_refused_before_running(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["sweep", str(workbook), "roll", "--out", str(workbook)]) == 2
    assert "source workbook" in capsys.readouterr().err
    assert main(["sweep", str(workbook), "roll", "--out", str(workbook.with_suffix(".txt"))]) == 2
    assert main(["sweep", str(workbook), "rol"]) == 2
    assert "Did you mean 'roll'" in capsys.readouterr().err


def test_progress_bar_is_off_without_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    update, close = progress_bar(5, "roll")
    update(1, 5)
    close()


def test_into_workbook_refuses_a_workbook_open_in_excel(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    lock = workbook.with_name(f"~${workbook.name}")
    lock.write_bytes(b"owner")
    before = workbook.read_bytes()
    assert main(["sweep", str(workbook), "roll", "--into-workbook"]) == 2
    assert "open in Excel" in capsys.readouterr().err
    assert workbook.read_bytes() == before
