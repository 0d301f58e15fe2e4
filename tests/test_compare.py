"""`suspension_sim.compare` and `suspension-sim compare`: the example car against a copy
with one hardpoint moved 10 mm, checked against sweeps run and subtracted here."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

import suspension_sim
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.metrics import metric_of, pose_metrics
from suspension_sim.outputs.compare import DIFFERENCES_FILE, Comparison
from suspension_sim.outputs.plots import DPI
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
MOVED_POINT = "FL_UCA_F"
ROLL = SweepSpec("roll", MotionSpec("roll", (-2.0, -1.0, 0.0, 1.0, 2.0)))
SWEEPS_YAML = "sweeps:\n  roll:\n    motion: roll\n    values: [-2, 0, 2]\n"


def edited_copy(src: Path, dst: Path, *, name: str | None = None, dz: float = 0.0) -> Path:
    """A copy of `src` with MOVED_POINT raised by `dz` mm and the Car name set to `name`."""
    shutil.copy(src, dst)
    wb = openpyxl.load_workbook(dst)
    points = wb["Hard Points"]
    moved = [row for row in points.iter_rows() if row[0].value == MOVED_POINT]
    assert len(moved) == 1
    moved[0][3].value = float(moved[0][3].value) + dz  # columns: name, x, y, z
    if name is not None:
        options = wb["User Options"]
        rows = [row for row in options.iter_rows() if row[0].value == "Car name"]
        assert len(rows) == 1
        rows[0][1].value = name
    wb.save(dst)
    return dst


@pytest.fixture(scope="module")
def cars(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("compare")
    base = folder / "base.xlsx"
    shutil.copy(EXAMPLE, base)
    moved = edited_copy(EXAMPLE, folder / "moved_copy.xlsx", name="raised UCA", dz=10.0)
    (folder / "sweeps.yaml").write_text(SWEEPS_YAML)
    return base, moved


@pytest.fixture(scope="module")
def comparison(cars: tuple[Path, Path]) -> Comparison:
    return suspension_sim.compare(list(cars), ROLL)


def test_differences_equal_a_direct_computation(
    cars: tuple[Path, Path], comparison: Comparison
) -> None:
    models = [suspension_sim.load(p, use_cache=False) for p in cars]
    tables = [run_sweep(m, ROLL, keep_poses=True).table for m in models]
    design = [pose_metrics(m.solve(), "iso", rates=True) for m in models]
    names = ["fsae_car", "raised UCA"]
    assert comparison.names == names
    diff = comparison.differences
    assert "chassis_roll_deg" not in diff.index  # the swept variable is not a channel
    assert "dampers_beyond_limits" not in diff.index
    checked = 0
    for channel in diff.index:
        a, b = tables[0][channel].to_numpy(float), tables[1][channel].to_numpy(float)
        for name, t, d in zip(names, (a, b), design, strict=True):
            np.testing.assert_allclose(diff.loc[channel, f"design {name}"], d[channel], atol=1e-12)
            if np.isfinite(t).any():  # to the last bits: either engine may serve a run
                got = [diff.loc[channel, f"{k} {name}"] for k in ("min", "max", "range")]
                want = [np.nanmin(t), np.nanmax(t), np.nanmax(t) - np.nanmin(t)]
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=channel)
        d = b - a
        if not np.isfinite(d).any():
            assert np.isnan(diff.loc[channel, "largest difference raised UCA"])
            continue
        k = int(np.nanargmax(np.abs(d)))
        got = diff.loc[channel, "largest difference raised UCA"]
        assert abs(got - d[k]) <= 1e-12 * max(1.0, abs(d[k])), channel
        at = diff.loc[channel, "chassis_roll_deg at largest difference raised UCA"]
        assert at == tables[0]["chassis_roll_deg"].iloc[k]
        checked += 1
    assert checked > 100
    # physics: a front-left chassis pivot moves the front-left wheel's path only
    largest = diff["largest difference raised UCA"]
    assert abs(largest["camber_FL_deg"]) > 0.05
    assert abs(largest["caster_FL_deg"]) > 0.05
    for corner in ("FR", "RL", "RR"):
        assert abs(largest[f"camber_{corner}_deg"]) < 1e-9
        assert abs(largest[f"toe_{corner}_deg"]) < 1e-9
    # a chassis pivot does not change the design position of the wheel
    assert abs(diff.loc["camber_FL_deg", "design raised UCA"] - design[0]["camber_FL_deg"]) < 1e-9


def test_legend_shows_car_names_and_the_png_is_that_figure(
    cars: tuple[Path, Path], comparison: Comparison, tmp_path: Path
) -> None:
    import imageio.v3 as iio

    figures = comparison.figures()
    assert {"camber", "toe", "roll_centre"} <= set(figures)
    for ax in figures["camber"].axes:
        if ax.get_visible() and ax.get_legend() is not None:
            assert [t.get_text() for t in ax.get_legend().get_texts()] == [
                "fsae_car",
                "raised UCA",
            ]
            lines = ax.get_lines()
            wheel = ax.get_title()
            for line, t in zip(lines, comparison.results, strict=True):
                y = np.asarray(line.get_ydata(), float)
                np.testing.assert_array_equal(y, t.table[f"camber_{wheel}_deg"].to_numpy(float))
    texts = {t.get_text() for t in figures["roll_centre"].axes[0].get_legend().get_texts()}
    assert texts == {"front fsae_car", "rear fsae_car", "front raised UCA", "rear raised UCA"}
    assert not any("design =" in t or "car =" in t for t in texts)

    paths = comparison.write(tmp_path / "out")
    assert paths[0].name == DIFFERENCES_FILE
    image = iio.imread(tmp_path / "out" / "camber.png")
    fig = comparison.figures()["camber"]
    fig.canvas.draw()
    drawn = np.asarray(fig.canvas.buffer_rgba())
    w, h = fig.get_size_inches() * DPI
    assert image.shape == drawn.shape == (round(h), round(w), 4)
    assert np.mean(np.any(image != drawn, axis=-1)) < 1e-3
    table = pd.read_csv(paths[0], index_col="channel")
    np.testing.assert_allclose(
        table.to_numpy(float), comparison.differences.to_numpy(float), rtol=1e-11, atol=1e-12
    )


def test_clashing_names_fall_back_to_file_stems(cars: tuple[Path, Path], tmp_path: Path) -> None:
    twin = tmp_path / "twin.xlsx"  # a byte copy: the same Car name as the base
    shutil.copy(EXAMPLE, twin)
    cmp = suspension_sim.compare(
        [cars[0], twin, cars[1]], SweepSpec("level", MotionSpec("roll", (0.0,)))
    )
    assert cmp.names == ["base", "twin", "raised UCA"]
    # an unchanged copy differs by nothing
    assert np.nanmax(np.abs(cmp.differences["largest difference twin"])) == 0.0
    legend = cmp.figures()["camber"].axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == cmp.names


def test_one_car_is_refused(cars: tuple[Path, Path]) -> None:
    with pytest.raises(InputError, match="at least two"):
        suspension_sim.compare([cars[0]], ROLL)


def test_cli_writes_charts_and_table_and_prints_the_biggest_differences(
    cars: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    import imageio.v3 as iio

    out = tmp_path / "cmp"
    argv = ["compare", str(cars[0]), str(cars[1]), "roll", "--out", str(out), "--units", "in"]
    assert main(argv) == 0
    stdout = capsys.readouterr().out
    assert "raised UCA - fsae_car, largest differences" in stdout
    assert "note: sweep 'roll' from" in stdout  # the named sweep beside the workbook wins
    assert "camber_FL_deg" in stdout  # the largest angle difference is at the moved corner
    assert "_mm" not in stdout  # lengths in inches
    table = pd.read_csv(out / DIFFERENCES_FILE, index_col="channel")
    assert "track_front_in" in table.index and "track_front_mm" not in table.index
    # the sweep came from the sweeps.yaml beside the first workbook: -2, 0, 2 deg
    direct = suspension_sim.compare(
        list(cars), SweepSpec("roll", MotionSpec("roll", (-2.0, 0.0, 2.0)))
    ).differences
    np.testing.assert_allclose(
        table.loc["track_front_in", "design fsae_car"],
        direct.loc["track_front_mm", "design fsae_car"] / 25.4,
        rtol=1e-11,
    )
    for png in out.glob("*.png"):
        image = iio.imread(png)
        assert image.ndim == 3 and image.shape[0] > 100
    assert (out / "camber.png").is_file()
    assert main(["compare", str(cars[0]), "roll", "--out", str(out)]) == 2
    assert "two workbooks" in capsys.readouterr().err


def test_a_standard_motion_by_name(cars: tuple[Path, Path]) -> None:
    cmp = suspension_sim.compare(list(cars), "bump:FL")
    assert cmp.x == "wheel_travel_FL_mm" and len(cmp.results[0].steps) > 2
    assert abs(cmp.differences.loc["camber_FL_deg", "largest difference raised UCA"]) > 0.01


# -- corners matched by position (issue 24, item 2) ------------------------------------------
LF_NAMES = {"FL": "LF", "FR": "RF", "RL": "LR", "RR": "RR"}
LOWERED = ("FL_LCA_F", "FL_LCA_R", "FR_LCA_F", "FR_LCA_R")


def renamed_copy(dst: Path, name: str, *, names: dict[str, str], drop: float = 0.0) -> Path:
    """The example car under another Car name, its wheels renamed (`names`) and its
    front lower arms' chassis pivots `drop` mm lower."""
    shutil.copy(EXAMPLE, dst)
    wb = openpyxl.load_workbook(dst)
    wheels = [row for row in wb["Wheels"].iter_rows(min_row=2) if row[0].value in names]
    assert len(wheels) == 4
    for row in wheels:
        row[0].value = names[row[0].value]
    for row in wb["Hard Points"].iter_rows():
        if row[0].value in LOWERED:
            row[3].value = float(row[3].value) - drop
    options = [row for row in wb["User Options"].iter_rows() if row[0].value == "Car name"]
    options[0][1].value = name
    wb.save(dst)
    return dst


def test_renamed_corners_are_matched_by_position(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`compare lfcar.xlsx mycar.xlsx roll`: LF names against FL names. Before, the
    charts had 7 panels with only RR overlaid and nothing said so."""
    lfcar = renamed_copy(tmp_path / "lfcar.xlsx", "lfcar", names=LF_NAMES)
    same = {n: n for n in LF_NAMES}
    mycar = renamed_copy(tmp_path / "mycar.xlsx", "mycar", names=same, drop=8.0)
    out = tmp_path / "out"
    assert main(["compare", str(lfcar), str(mycar), "roll", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert (
        "corners matched by position: mycar FL = lfcar LF, FR = lfcar RF, RL = lfcar LR" in stdout
    )

    # the sweeps run and subtracted here, corner by corner
    spec = SweepSpec("roll", MotionSpec("roll", tuple(np.linspace(-2.0, 2.0, 13))))
    a = run_sweep(suspension_sim.load(lfcar, use_cache=False), spec).table
    b = run_sweep(suspension_sim.load(mycar, use_cache=False), spec).table
    table = pd.read_csv(out / DIFFERENCES_FILE, index_col="channel")
    wheels = {
        found[1] for c in table.index if (found := metric_of(c)) and found[0].scope == "wheel"
    }
    assert wheels == {"LF", "RF", "LR", "RR"}  # one set of names: the first car's
    for first, own in (("LF", "FL"), ("RF", "FR"), ("LR", "RL"), ("RR", "RR")):
        for metric in ("camber_{}_deg", "toe_{}_deg", "motion_ratio_{}"):
            d = b[metric.format(own)].to_numpy() - a[metric.format(first)].to_numpy()
            got = table.loc[metric.format(first), "largest difference mycar"]
            assert got == pytest.approx(d[np.argmax(np.abs(d))], rel=1e-9, abs=1e-12)
    d_rc = b["roll_centre_height_front_mm"] - a["roll_centre_height_front_mm"]
    assert abs(d_rc).max() > 10.0  # the front roll centre is ~18 mm lower
    # the design quantities come first: the roll centre before the far screw-axis centre
    svic = table.loc[[c for c in table.index if c.startswith("svic_axis_")]]
    assert svic["largest difference mycar"].abs().max() > 10 * abs(d_rc).max()
    design, other = stdout.index(" design quantities:"), stdout.index(" other channels:")
    assert design < stdout.index("  roll_centre_height_front_mm: ") < other
    assert other < stdout.index("  svic_axis_")

    # the charts: four panels (lfcar's names), both cars in each, the legend says which is which
    cmp = suspension_sim.compare([lfcar, mycar], spec)
    camber = cmp.figures()["camber"]
    panels = [ax for ax in camber.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["LF", "RF", "LR", "RR"]
    for ax in panels:
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == ["lfcar", "mycar (FL as LF, FR as RF, RL as LR)"]
        own = {v: k for k, v in LF_NAMES.items()}[ax.get_title()]
        lines = ax.get_lines()
        np.testing.assert_array_equal(lines[0].get_ydata(), a[f"camber_{ax.get_title()}_deg"])
        np.testing.assert_array_equal(lines[1].get_ydata(), b[f"camber_{own}_deg"])


def test_a_wheel_motion_runs_on_the_wheel_at_that_corner(tmp_path: Path) -> None:
    lfcar = renamed_copy(tmp_path / "lfcar.xlsx", "lfcar", names=LF_NAMES)
    cmp = suspension_sim.compare([lfcar, EXAMPLE], "bump:LF")  # FL on the example car
    assert cmp.x == "wheel_travel_LF_mm"
    assert cmp.results[1].columns[0] == "wheel_travel_FL_mm"  # its own bump of FL
    # the same geometry under other names: no difference beyond round-off
    assert np.nanmax(np.abs(cmp.differences["largest difference fsae_car"])) < 1e-9


def test_cars_with_other_axles_are_refused(
    cars: tuple[Path, Path], capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    corner = Path(__file__).resolve().parents[1] / "workbooks" / "macpherson_front.xlsx"
    argv = ["compare", str(cars[0]), str(corner), "roll", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "macpherson_front.xlsx: Wheels!A2" in err
    assert "other axle count" in err
    assert "front left FL, front right FR, rear left RL, rear right RR" in err
    assert not (tmp_path / "o").exists()  # refused before anything was written
