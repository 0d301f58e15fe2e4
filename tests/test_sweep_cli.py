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
from suspension_sim.model import KinematicModel
from suspension_sim.optimumk.channels import Scope
from suspension_sim.sweeps import SweepResult
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
    assert main(["sweep", str(workbook), "roll", "--out", str(link)]) == 2  # it exists
    assert target.read_text(encoding="utf-8") == "old\n"
    assert main(["sweep", str(workbook), "roll", "--out", str(link), "--force"]) == 0
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


@pytest.mark.parametrize("suffix", [".csv", ".xlsx", ".parquet"])
def test_an_existing_output_is_replaced_only_with_force(
    workbook: Path, suffix: str, capsys: pytest.CaptureFixture
) -> None:
    """One rule for every --out type: exit 2 naming the file and --force, nothing written."""
    out = workbook.with_name(f"roll{suffix}")
    out.write_bytes(b"someone's data")
    capsys.readouterr()
    assert main(["sweep", str(workbook), "roll", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--out: {out} exists" in err and "--force" in err and "force=True" not in err
    assert out.read_bytes() == b"someone's data"
    assert main(["sweep", str(workbook), "roll", "--out", str(out), "--force"]) == 0
    assert out.read_bytes() != b"someone's data"
    # the same rule for the design sheet of `report`
    sheet = workbook.with_name(f"design{suffix}")
    sheet.write_bytes(b"kept")
    assert main(["report", str(workbook), "--out", str(sheet)]) == 2
    assert f"{sheet} exists" in capsys.readouterr().err
    assert sheet.read_bytes() == b"kept"


def test_the_rule_lives_in_files_for_the_library_too(tmp_path: Path) -> None:
    from suspension_sim.errors import InputError
    from suspension_sim.files import refuse_existing

    new = tmp_path / "new.parquet"
    assert refuse_existing(new, force=False, where="path") == new
    new.write_bytes(b"x")
    with pytest.raises(InputError) as err:
        refuse_existing(new, force=False, where="path", what="a table")
    assert "exists; a table only replaces it with force=True" in str(err.value)
    assert err.value.hint == "choose a new name or pass force=True"
    assert refuse_existing(new, force=True) == new


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("heav", "heave"), ("stear", "steer"), ("bumb:FL", "bump:FL"), ("rol", "roll")],
)
def test_a_mistyped_motion_suggests_the_standard_motion(
    workbook: Path, typed: str, meant: str, capsys: pytest.CaptureFixture
) -> None:
    assert main(["sweep", str(workbook), typed]) == 2
    err = capsys.readouterr().err
    assert f"no sweep or standard motion named {typed!r}. Did you mean {meant!r}?" in err
    assert "standard motions: heave, roll" in err


def test_an_unrelated_name_gets_no_suggestion(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["sweep", str(workbook), "xyzzy"]) == 2
    err = capsys.readouterr().err
    assert "no sweep or standard motion named 'xyzzy'" in err and "Did you mean" not in err


SCOPES: dict[str, Scope] = {
    "corner": "corner",
    "axle": "axle",
    "side": "side",
    "car": "car",
    "motion": "input",
}
"""The registry's scope of each kind of parsed OptimumK header."""


def _solved_heave(workbook: Path, style: str, keep: bool) -> tuple[KinematicModel, SweepResult]:
    """A heave of -10, 0, +10 mm with OptimumK's channels in the table."""
    from suspension_sim import load
    from suspension_sim.sweeps import run_sweep, standard_sweep

    model = load(workbook)
    spec = standard_sweep(model, "heave", -10.0, 10.0, 3)
    result = run_sweep(model, spec, motion_style=style, optimumk_channels=True, keep_poses=keep)
    assert result.ok
    return model, result


@pytest.mark.parametrize("style", ["optimumk", "ours"])
def test_optimumk_channels_are_columns_named_by_optimumk(workbook: Path, style: str) -> None:
    """Every channel of `optimumk_channels` on the sweep's own poses, under a header that
    parses back to its channel and unit; the same numbers when the poses are not kept."""
    from suspension_sim.optimumk.channels import optimumk_channels, quantity
    from suspension_sim.validation.okheaders import parse_optimumk_header

    model, result = _solved_heave(workbook, style, keep=True)
    table = result.table
    channels = optimumk_channels(model, result.poses)
    assert len(channels) > 150
    ok_columns = [c for c in table.columns if c.endswith(")") or "[" in c]
    assert len(ok_columns) == len(channels)
    parsed = [parse_optimumk_header(c) for c in ok_columns]
    for key, values in channels.items():
        matches = [c for c, h in zip(ok_columns, parsed, strict=True) if h and h.key == key]
        assert len(matches) == 1, key
        header = parse_optimumk_header(matches[0])
        assert header is not None
        name = key if header.kind == "motion" else header.quantity
        unit = quantity(name, SCOPES.get(header.kind)).unit  # a point: any scope
        assert header.unit == (None if unit == "-" else unit), matches[0]
        np.testing.assert_array_equal(table[matches[0]].to_numpy(float), values)
    # rows line up with the steps: OptimumK's camber is ours (-asin(s.z), world)
    np.testing.assert_allclose(
        table["Camber Angle [Left] [Front] (deg)"], table["camber_FL_deg"], atol=1e-12
    )
    assert table["Camber Angle [Left] [Front] (deg)"].std() > 0.1  # it does move in heave
    _, lean = _solved_heave(workbook, style, keep=False)  # poses rebuilt from the kept rows
    np.testing.assert_allclose(
        lean.table[ok_columns].to_numpy(float),
        table[ok_columns].to_numpy(float),
        rtol=1e-12,
        atol=1e-12,
    )


def test_sweep_and_report_cli_write_optimumk_channels(
    workbook: Path, capsys: pytest.CaptureFixture
) -> None:
    from suspension_sim import load
    from suspension_sim.optimumk.channels import optimumk_channels
    from suspension_sim.sweeps.okcolumns import optimumk_header

    out = workbook.with_name("ok.csv")
    argv = ["sweep", str(workbook), "heave", "--from", "-10", "--to", "10", "--steps", "3"]
    argv += ["--motion-style", "optimumk", "--optimumk-channels", "--out", str(out)]
    assert main(argv) == 0
    table = pd.read_csv(out, index_col="step")
    _, result = _solved_heave(workbook, "optimumk", keep=True)
    expected = result.table
    header = "Camber Angle [Left] [Front] (deg)"
    assert header in table.columns and "Motion Ratio Heave [Left] [Front]" in table.columns
    np.testing.assert_allclose(table[header], expected[header], rtol=1e-12)
    # report: the design pose's channels as rows, value column
    sheet = workbook.with_name("design.csv")
    capsys.readouterr()
    assert main(["report", str(workbook), "--optimumk-channels", "--out", str(sheet)]) == 0
    printed = capsys.readouterr().out
    assert "OptimumK's channels" in printed and header in printed
    rows = pd.read_csv(sheet, index_col="quantity")["value"].astype(float).to_dict()
    model = load(workbook)
    for key, values in optimumk_channels(model, [model.solve()]).items():
        got = rows[optimumk_header(key)]
        if np.isnan(values[0]):
            assert np.isnan(got), key
        else:
            assert got == pytest.approx(values[0], rel=1e-12, abs=1e-12), key


BLAS_PROBE = """
import os, sys
if sys.argv[1] == "numpy first":
    import numpy
from suspension_sim.cli import single_threaded_blas
single_threaded_blas()
import numpy
from threadpoolctl import threadpool_info
blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
print(os.environ.get("OPENBLAS_NUM_THREADS"), blas)
"""


@pytest.mark.parametrize(
    ("case", "env", "expected"),
    [
        ("cli", {}, "1 [1]"),  # a command: one BLAS thread, as the library reads it
        ("cli", {"OPENBLAS_NUM_THREADS": "2"}, "2 [2]"),  # the user's count is kept
        ("numpy first", {}, "None"),  # too late to set: left alone
    ],
)
def test_commands_run_blas_on_one_thread(case: str, env: dict[str, str], expected: str) -> None:
    """cli.main sets OPENBLAS/OMP/MKL_NUM_THREADS to 1 before numpy loads, unless the user
    set them: OpenBLAS threads spin on a busy machine (a small SVD ~70 ms, not ~0.1 ms)."""
    import os
    import subprocess

    pytest.importorskip("threadpoolctl")
    base = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE, case],
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out.startswith(expected), out
