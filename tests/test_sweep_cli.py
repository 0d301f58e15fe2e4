"""`suspension-sim sweep` through cli.main: outputs, charts, results sheet, exit codes."""

from __future__ import annotations

import io
import re
import sys
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


def test_charts_plot_the_table(workbook: Path) -> None:
    import imageio.v3 as iio

    from suspension_sim.metrics import label
    from suspension_sim.outputs.plots import DPI, WHEEL_CHARTS, table_figures

    folder, out = workbook.with_name("plots"), workbook.with_name("grid.csv")
    argv = ["sweep", str(workbook), "roll_at_steer", "--out", str(out), "--plot", str(folder)]
    assert main(argv) == 0
    expected = {"camber", "toe", "caster", "scrub", "trail", "motion_ratio", "roll_centre"}
    assert {p.name for p in folder.iterdir()} == {f"{n}.png" for n in expected}  # no temp left
    table = pd.read_csv(out)  # the step index is a column
    wheels = ["FL", "FR", "RL", "RR"]
    figures = table_figures(
        table, "chassis_roll_deg", wheels=wheels, series="rack_mm", title="roll_at_steer"
    )
    assert set(figures) == expected
    # each per-wheel chart: a panel per wheel, a line per rack value, the table's numbers
    plotted: dict[tuple[str, str, float], np.ndarray] = {}
    for stem, pattern, _ in WHEEL_CHARTS:
        axes = [ax for ax in figures[stem].axes if ax.get_visible()]
        assert [ax.get_title() for ax in axes] == wheels
        for ax, wheel in zip(axes, wheels, strict=True):
            lines = ax.get_lines()
            assert len(lines) == 2
            for line, rack in zip(lines, (-10.0, 10.0), strict=True):
                rows = table[table["rack_mm"] == rack]
                xy = np.asarray(line.get_xydata())
                assert xy[:, 0].tolist() == rows["chassis_roll_deg"].tolist() == [-1.0, 1.0]
                assert xy[:, 1].tolist() == rows[pattern.format(wheel)].tolist()
                plotted[(stem, wheel, rack)] = xy[:, 1]
    # the car is symmetric: FL at (roll r, rack s) is FR at (-r, -s), camber and caster alike
    for stem in ("camber", "caster"):
        mirrored = plotted[(stem, "FR", 10.0)][::-1]
        np.testing.assert_allclose(plotted[(stem, "FL", -10.0)], mirrored, atol=1e-9)
    assert not np.allclose(plotted[("camber", "FL", -10.0)], plotted[("camber", "FR", -10.0)])
    # roll centre: height against lateral offset, and against roll, per axle and rack value
    migration, height = figures["roll_centre"].axes
    order = [(axle, rack) for axle in ("front", "rear") for rack in (-10.0, 10.0)]
    for ax, x in ((migration, "roll_centre_lateral_{}_mm"), (height, "chassis_roll_deg")):
        lines = ax.get_lines()
        labels = [f"{axle} {label('rack_mm')} = {rack:g}" for axle, rack in order]
        assert [ln.get_label() for ln in lines] == labels
        for line, (axle, rack) in zip(lines, order, strict=True):
            rows = table[table["rack_mm"] == rack]
            xy = np.asarray(line.get_xydata())
            assert xy[:, 0].tolist() == rows[x.format(axle)].tolist()
            assert xy[:, 1].tolist() == rows[f"roll_centre_height_{axle}_mm"].tolist()
    # each file is its figure drawn: same size, same pixels, and not blank
    for stem, fig in figures.items():
        image = iio.imread(folder / f"{stem}.png")
        fig.canvas.draw()
        drawn = np.asarray(fig.canvas.buffer_rgba())
        w, h = fig.get_size_inches() * DPI
        assert image.shape == drawn.shape == (round(h), round(w), 4), stem
        assert np.mean(np.any(image != drawn, axis=-1)) < 1e-3, stem
        rgb = image[:, :, :3].astype(int)
        blue = np.all(np.abs(rgb - (31, 119, 180)) < 30, axis=-1)  # matplotlib's first line
        assert blue.sum() > 200 and rgb.std() > 10, stem


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


def test_outputs_write_through_links(workbook: Path, capsys: pytest.CaptureFixture) -> None:
    """A linked --out file and a linked workbook stay links; their targets get the data."""
    data = workbook.parent / "data"
    data.mkdir()
    target = data / "roll.csv"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    link = workbook.with_name("roll.csv")
    link.symlink_to(target)
    assert main(["sweep", str(workbook), "roll", "--out", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert pd.read_csv(target)["chassis_roll_deg"].tolist() == [-1.0, 0.0, 1.0]
    assert target.stat().st_mode & 0o777 == 0o640  # the replaced file keeps its mode
    # a link to the source workbook is the source workbook: refused
    to_source = workbook.with_name("results.xlsx")
    to_source.symlink_to(workbook)
    assert main(["sweep", str(workbook), "roll", "--out", str(to_source), "--force"]) == 2
    assert "source workbook" in capsys.readouterr().err
    # the results sheet is added to the linked workbook's target
    moved = data / "car.xlsx"
    workbook.rename(moved)
    workbook.symlink_to(moved)
    assert main(["sweep", str(workbook), "roll", "--into-workbook"]) == 0
    assert workbook.is_symlink()
    assert "Results roll" in openpyxl.load_workbook(moved).sheetnames
    leftovers = [p.name for p in (*data.iterdir(), *workbook.parent.iterdir()) if ".tmp" in p.name]
    assert leftovers == []


def test_bad_options_are_refused_before_running(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["sweep", str(workbook), "roll", "--out", str(workbook)]) == 2
    assert "source workbook" in capsys.readouterr().err
    assert main(["sweep", str(workbook), "roll", "--out", str(workbook.with_suffix(".txt"))]) == 2
    assert main(["sweep", str(workbook), "rol"]) == 2
    assert "Did you mean 'roll'" in capsys.readouterr().err


class Terminal(io.StringIO):
    """A text stream that says it is a terminal (where the progress bar draws)."""

    def isatty(self) -> bool:
        return True


def test_progress_bar_counts_every_step(workbook: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["sweep", str(workbook), "bad"]) == 3  # 2 of 3 steps solved, all 3 counted
    shown = terminal.getvalue()
    assert shown.startswith("\rbad:")
    counts = [(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+) \[", shown)]
    assert counts[0] == (0, 3) and counts[-1] == (3, 3)
    assert [n for n, _ in counts] == sorted(n for n, _ in counts)


def test_progress_bar_is_off_without_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    for stream in (io.StringIO(), Terminal()):
        if isinstance(stream, Terminal):
            monkeypatch.setenv("CI", "1")
        update, close = progress_bar(5, "roll", stream=stream)
        update(1, 5)
        close()
        assert stream.getvalue() == ""
    shown = Terminal()
    monkeypatch.delenv("CI")
    update, close = progress_bar(5, "roll", stream=shown)
    update(5, 5)
    close()
    assert "5/5" in shown.getvalue()


def test_into_workbook_refuses_a_workbook_open_in_excel(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    lock = workbook.with_name(f"~${workbook.name}")
    lock.write_bytes(b"owner")
    before = workbook.read_bytes()
    assert main(["sweep", str(workbook), "roll", "--into-workbook"]) == 2
    assert "open in Excel" in capsys.readouterr().err
    assert workbook.read_bytes() == before
