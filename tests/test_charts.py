"""Charts an engineer reads at a glance: signs on motion axes, minimum spans, output units,
any column against any column, steer and pitch charts, text series, no clipped labels."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.transforms import Bbox

import suspension_sim
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.outputs.plots import (
    MIN_SPAN_DEG,
    MIN_SPAN_MM,
    MIN_SPAN_RATIO,
    OutputUnits,
    axis_label,
    format_values,
    pitch_figure,
    plot_table,
    steer_figure,
    table_figures,
    wheel_figure,
    xy_figure,
)
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
SWEEPS = """\
sweeps:
  heave:
    motion: heave
    values: [-10, 0, 10]
"""


@pytest.fixture(scope="module")
def model() -> suspension_sim.Model:
    return suspension_sim.load(EXAMPLE)


def sweep_table(model: suspension_sim.Model, kind: str, values: tuple[float, ...]) -> pd.DataFrame:
    spec = SweepSpec(kind, MotionSpec(kind, values))
    return run_sweep(model, spec, keep_poses=False).table.reset_index()


def test_motion_axes_say_their_sign() -> None:
    assert axis_label("chassis_heave_mm") == "chassis heave [mm] (+ up = rebound)"
    assert axis_label("chassis_roll_deg") == "chassis roll [deg] (+ = left side up)"
    assert axis_label("chassis_pitch_deg") == "chassis pitch [deg] (+ = nose down)"
    assert axis_label("rack_mm") == "rack [mm] (+ = toward +Y)"
    assert axis_label("wheel_travel_FL_mm") == "wheel travel FL [mm] (+ = bump)"
    assert axis_label("camber_FL_deg") == "camber FL [deg]"  # not a motion: no sign note
    assert axis_label("chassis_heave_mm", OutputUnits("in")) == (
        "chassis heave [in] (+ up = rebound)"
    )


def flat_table(noise: float = 1e-13) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    x = np.linspace(-2.0, 2.0, 9)
    wiggle = noise * rng.standard_normal(x.size)
    return pd.DataFrame(
        {
            "chassis_roll_deg": x,
            "camber_FL_deg": -1.0 + wiggle,
            "scrub_radius_FL_mm": 35.0 + wiggle,
            "motion_ratio_FL": 1.07 + wiggle,
        }
    )


@pytest.mark.parametrize(
    ("column", "span", "units"),
    [
        ("camber_FL_deg", MIN_SPAN_DEG, OutputUnits()),
        ("scrub_radius_FL_mm", MIN_SPAN_MM, OutputUnits()),
        ("motion_ratio_FL", MIN_SPAN_RATIO, OutputUnits()),
        ("camber_FL_deg", MIN_SPAN_DEG * math.pi / 180, OutputUnits(angle="rad")),
        ("scrub_radius_FL_mm", MIN_SPAN_MM / 25.4, OutputUnits(length="in")),
    ],
)
def test_noise_is_drawn_flat(column: str, span: float, units: OutputUnits) -> None:
    table = flat_table()
    fig = wheel_figure(table, "chassis_roll_deg", {"FL": column}, units=units)
    assert fig is not None
    (ax,) = [a for a in fig.axes if a.get_visible()]
    lo, hi = ax.get_ylim()
    assert hi - lo >= span * (1 - 1e-12)
    y = np.asarray(ax.get_lines()[0].get_ydata(), float)
    assert lo < y.min() and y.max() < hi  # the data stay in view, in the middle
    # a real variation is not widened: the axis follows the data
    slope = 5 * span / units.factor(column)  # table units per deg of roll
    varying = table.assign(**{column: table[column] + slope * table["chassis_roll_deg"]})
    fig = wheel_figure(varying, "chassis_roll_deg", {"FL": column}, units=units)
    assert fig is not None
    lo, hi = fig.axes[0].get_ylim()
    assert 20 * span <= hi - lo < 25 * span


def test_output_units_convert_and_rename_at_the_edge() -> None:
    table = pd.DataFrame(
        {
            "chassis_heave_mm": [-10.0, 10.0],
            "camber_FL_deg": [-1.0, -2.0],
            "camber_gain_FL_deg_per_mm": [0.02, 0.03],
            "roll_camber_FL_deg_per_deg": [-0.6, -0.7],
            "bump_steer_FL_deg_per_25mm": [0.1, 0.2],
            "motion_ratio_FL": [1.1, 1.2],
            "ackermann_front_pct": [30.0, 40.0],
            "dampers_beyond_limits": ["", "FL"],
        }
    )
    out = OutputUnits("in", "rad").table(table)
    assert list(out.columns) == [
        "chassis_heave_in",
        "camber_FL_rad",
        "camber_gain_FL_rad_per_in",
        "roll_camber_FL_deg_per_deg",
        "bump_steer_FL_rad_per_25mm",
        "motion_ratio_FL",
        "ackermann_front_pct",
        "dampers_beyond_limits",
    ]
    assert out["chassis_heave_in"].tolist() == (table["chassis_heave_mm"] / 25.4).tolist()
    np.testing.assert_allclose(out["camber_FL_rad"], np.radians(table["camber_FL_deg"]))
    np.testing.assert_allclose(
        out["camber_gain_FL_rad_per_in"], np.radians(table["camber_gain_FL_deg_per_mm"]) * 25.4
    )
    for same in ("roll_camber_FL_deg_per_deg", "motion_ratio_FL", "ackermann_front_pct"):
        assert out[same].tolist() == table[same].tolist()
    assert out["dampers_beyond_limits"].tolist() == ["", "FL"]
    assert OutputUnits().table(table).equals(table)
    with pytest.raises(InputError):
        OutputUnits("furlong")


def test_sweep_cli_units_in_is_mm_over_25_4(tmp_path: Path) -> None:
    (tmp_path / "sweeps.yaml").write_text(SWEEPS)
    book = tmp_path / "car.xlsx"
    book.write_bytes(EXAMPLE.read_bytes())
    mm, inch = tmp_path / "mm.csv", tmp_path / "in.csv"
    assert main(["sweep", str(book), "heave", "--out", str(mm)]) == 0
    argv = ["sweep", str(book), "heave", "--out", str(inch), "--units", "in", "--angles", "rad"]
    assert main(argv) == 0
    a, b = pd.read_csv(mm), pd.read_csv(inch)
    for column in ("chassis_heave_mm", "track_front_mm", "scrub_radius_FL_mm"):
        renamed = column.removesuffix("_mm") + "_in"
        assert column not in b.columns
        np.testing.assert_allclose(b[renamed], a[column] / 25.4, rtol=1e-15, atol=0)
    np.testing.assert_allclose(b["camber_FL_rad"], np.radians(a["camber_FL_deg"]), rtol=1e-15)
    assert b["motion_ratio_FL"].tolist() == a["motion_ratio_FL"].tolist()


def test_any_column_against_any_column(model: suspension_sim.Model, tmp_path: Path) -> None:
    table = sweep_table(model, "heave", (-10.0, 0.0, 10.0))
    ys = ["camber_FL_deg", "toe_FL_deg", "scrub_radius_FL_mm"]
    fig = xy_figure(table, "wheel_travel_FL_mm", ys)
    assert fig is not None
    angles, lengths = [ax for ax in fig.axes if ax.get_visible()]  # a panel per unit
    assert [ln.get_label() for ln in angles.get_lines()] == ["camber FL", "toe FL"]
    for line, c in zip(angles.get_lines(), ys[:2], strict=True):
        xy = np.asarray(line.get_xydata())
        assert xy[:, 0].tolist() == table["wheel_travel_FL_mm"].tolist()
        assert xy[:, 1].tolist() == table[c].tolist()
    assert lengths.get_ylabel() == "scrub radius FL [mm]"
    assert angles.get_xlabel() == "wheel travel FL [mm] (+ = bump)"
    with pytest.raises(InputError, match="Did you mean 'camber_FL_deg'") as err:
        table_figures(table, "chassis_heave_mm", wheels=["FL"], plot_y=["camber_FL_dg"])
    assert err.value.where == "plot_y"
    # the command: --plot-x / --plot-y, bad names at their option
    (tmp_path / "sweeps.yaml").write_text(SWEEPS)
    book = tmp_path / "car.xlsx"
    book.write_bytes(EXAMPLE.read_bytes())
    plots = tmp_path / "plots"
    argv = ["sweep", str(book), "heave", "--plot", str(plots)]
    assert main([*argv, "--plot-x", "wheel_travel_FL_mm", "--plot-y", "toe_FL_deg"]) == 0
    assert (plots / "toe_FL_deg_vs_wheel_travel_FL_mm.png").is_file()
    assert main([*argv, "--plot-y", "toe_FL"]) == 2


def test_against_travel(model: suspension_sim.Model) -> None:
    table = sweep_table(model, "roll", (-1.0, 0.0, 1.0))
    wheels = [w.name for w in model.car.wheels]
    figures = table_figures(table, "chassis_roll_deg", wheels=wheels, against_travel=True)
    for ax, wheel in zip(figures["camber"].axes, wheels, strict=True):
        xy = np.asarray(ax.get_lines()[0].get_xydata())
        assert xy[:, 0].tolist() == table[f"wheel_travel_{wheel}_mm"].tolist()
        assert ax.get_xlabel() == f"wheel travel {wheel} [mm] (+ = bump)"


def test_steer_chart_has_the_ideal_ackermann_line(model: suspension_sim.Model) -> None:
    table = sweep_table(model, "steer", (-20.0, -10.0, 0.0, 10.0, 20.0))
    fig = steer_figure(table, "rack_mm")
    assert fig is not None
    angles, ackermann = fig.axes
    assert angles.get_xlabel() == "steering wheel angle [deg] (+ = left turn)"
    lines = {ln.get_label(): np.asarray(ln.get_xydata()) for ln in angles.get_lines()}
    assert set(lines) == {"FL", "FR", "ideal Ackermann, inner wheel"}
    np.testing.assert_array_equal(lines["FL"][:, 1], table["steer_FL_deg"])
    # the metric's own definition inverted: ack = (d_i - d_o) / (ideal - d_o) * 100
    left, right = table["steer_FL_deg"].to_numpy(), table["steer_FR_deg"].to_numpy()
    ack = table["ackermann_front_pct"].to_numpy()
    turning = np.isfinite(ack)
    assert turning.sum() == 4
    inner = np.where(left + right > 0, left, -right)
    outer = np.where(left + right > 0, right, -left)
    ideal = outer + (inner - outer) * 100.0 / ack
    sign = np.sign(left + right)
    np.testing.assert_allclose(
        lines["ideal Ackermann, inner wheel"][turning, 1], (sign * ideal)[turning], atol=1e-9
    )
    assert abs(lines["ideal Ackermann, inner wheel"][~turning, 1]).max() < 1e-9
    np.testing.assert_array_equal(ackermann.get_lines()[0].get_ydata(), ack)


def test_pitch_chart_has_antis_and_pitch_centres(model: suspension_sim.Model) -> None:
    table = sweep_table(model, "pitch", (-1.0, 0.0, 1.0))
    fig = pitch_figure(table, "chassis_pitch_deg")
    assert fig is not None
    antis, height, migration = [ax for ax in fig.axes if ax.get_visible()]
    labels = [ln.get_label() for ln in antis.get_lines()]
    assert "anti dive FL" in labels and "anti squat RL" in labels
    for line in antis.get_lines():
        name = line.get_label()
        column = name.replace(" ", "_", 1).replace(" ", "_") + "_pct"
        assert np.asarray(line.get_ydata()).tolist() == table[column].tolist()
    assert height.get_xlabel() == "chassis pitch [deg] (+ = nose down)"
    xy = np.asarray(migration.get_lines()[0].get_xydata())
    assert xy[:, 0].tolist() == table["pitch_centre_left_x_mm"].tolist()
    assert xy[:, 1].tolist() == table["pitch_centre_left_z_mm"].tolist()
    roll = table_figures(table, "chassis_roll_deg", wheels=["FL"], charts=["antis"])
    assert roll == {}  # antis only for pitch motions


def test_text_series_and_consistent_precision(tmp_path: Path) -> None:
    table = flat_table(0.0)
    two = pd.concat(
        [table.assign(car="B car"), table.assign(car="A car", camber_FL_deg=-2.0)],
        ignore_index=True,
    )
    paths = plot_table(
        two, "chassis_roll_deg", tmp_path, wheels=["FL"], series="car", charts=["camber"]
    )
    assert [p.name for p in paths] == ["camber.png"]
    figures = table_figures(two, "chassis_roll_deg", wheels=["FL"], series="car")
    legend = figures["camber"].axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["B car", "A car"]  # as they come
    assert format_values([-20, 0, 20]) == ["-20", "0", "20"]
    assert format_values([0.5, 1, 2]) == ["0.5", "1.0", "2.0"]
    assert format_values([0.25, -1]) == ["0.25", "-1.00"]
    grid = pd.concat([table.assign(rack_mm=v) for v in (-2.5, 0.0, 10.0)], ignore_index=True)
    fig = wheel_figure(grid, "chassis_roll_deg", {"FL": "camber_FL_deg"}, series="rack_mm")
    assert fig is not None
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == ["rack [mm] = -2.5", "rack [mm] = 0.0", "rack [mm] = 10.0"]


def test_no_label_is_clipped(model: suspension_sim.Model) -> None:
    table = sweep_table(model, "heave", (-10.0, 10.0))
    figures = table_figures(table, "chassis_heave_mm", wheels=[w.name for w in model.car.wheels])
    for stem, fig in figures.items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        box = fig.bbox
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            for text in (ax.xaxis.label, ax.yaxis.label, ax.title):
                if not text.get_text():
                    continue
                ext = text.get_window_extent(renderer)
                assert ext.x0 >= box.x0 - 0.5 and ext.x1 <= box.x1 + 0.5, (stem, text)
                assert ext.y0 >= box.y0 - 0.5 and ext.y1 <= box.y1 + 0.5, (stem, text)


# -- near-parallel force lines: ringed on the centre charts --------------------------------
def centre_table() -> pd.DataFrame:
    """A roll sweep whose front roll centre at the two outer steps comes from force lines
    0.4 and 0.2 deg from parallel (below NEAR_PARALLEL_LINES_DEG = 1 deg), and whose left
    pitch centre at the first step from lines 0.5 deg apart."""
    return pd.DataFrame(
        {
            "chassis_roll_deg": [-2.0, -1.0, 0.0, 1.0, 2.0],
            "roll_centre_height_front_mm": [900.0, 60.0, 40.0, 20.0, -800.0],
            "roll_centre_lateral_front_mm": [4000.0, 30.0, 0.0, -30.0, -5000.0],
            "roll_centre_line_angle_front_deg": [0.4, 12.0, 14.0, 12.0, 0.2],
            "pitch_centre_left_z_mm": [300.0, 250.0, 240.0, 230.0, 220.0],
            "pitch_centre_left_x_mm": [-9000.0, 1500.0, 1400.0, 1300.0, 1200.0],
            "pitch_centre_line_angle_left_deg": [0.5, 5.0, 5.0, 5.0, 5.0],
        }
    )


def rings(ax) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The points ringed on `ax` (its scatter collections' offsets), in data units."""
    found = [np.asarray(c.get_offsets()) for c in ax.collections]
    return np.concatenate(found) if found else np.empty((0, 2))


def test_roll_centre_chart_rings_points_from_near_parallel_lines() -> None:
    from suspension_sim.outputs.near_parallel import MARK_LABEL
    from suspension_sim.outputs.plots import roll_centre_figure
    from suspension_sim.tolerances import NEAR_PARALLEL_LINES_DEG

    table = centre_table()
    flagged = table["roll_centre_line_angle_front_deg"] < NEAR_PARALLEL_LINES_DEG
    assert flagged.tolist() == [True, False, False, False, True]
    fig = roll_centre_figure(table, "chassis_roll_deg", title="roll")
    assert fig is not None
    migration, height = fig.axes[:2]
    rows = table[flagged]
    np.testing.assert_array_equal(
        rings(migration),
        rows[["roll_centre_lateral_front_mm", "roll_centre_height_front_mm"]].to_numpy(),
    )
    np.testing.assert_array_equal(
        rings(height), rows[["chassis_roll_deg", "roll_centre_height_front_mm"]].to_numpy()
    )
    for ax in (migration, height):
        assert MARK_LABEL in ax.get_legend_handles_labels()[1]
        (line,) = ax.lines  # the data line itself is unchanged: every step drawn
        assert len(line.get_xdata()) == len(table)
    # in inches the rings move with the line
    fig_in = roll_centre_figure(table, "chassis_roll_deg", units=OutputUnits("in"))
    assert fig_in is not None
    np.testing.assert_allclose(
        rings(fig_in.axes[1])[:, 1], rows["roll_centre_height_front_mm"] / 25.4
    )


def test_pitch_chart_rings_the_pitch_centre_from_near_parallel_lines() -> None:
    table = centre_table()
    fig = pitch_figure(table, "chassis_roll_deg", title="pitch")
    assert fig is not None
    height, migration = fig.axes[:2]
    first = table.iloc[0]
    np.testing.assert_array_equal(
        rings(height), [[first["chassis_roll_deg"], first["pitch_centre_left_z_mm"]]]
    )
    np.testing.assert_array_equal(
        rings(migration), [[first["pitch_centre_left_x_mm"], first["pitch_centre_left_z_mm"]]]
    )


def test_no_ring_without_a_flag_column() -> None:
    from suspension_sim.outputs.plots import roll_centre_figure

    table = centre_table().drop(columns="roll_centre_line_angle_front_deg")
    fig = roll_centre_figure(table, "chassis_roll_deg")
    assert fig is not None
    assert all(len(rings(ax)) == 0 for ax in fig.axes)


def test_plots_is_the_one_import_path_of_the_split_modules() -> None:
    """Figures, files and units live in their own modules; every public name is still
    importable from outputs.plots and is the same object."""
    from suspension_sim.outputs import chart_files, chart_units, figures, plots

    for name in plots.__all__:
        homes = [m for m in (chart_files, chart_units, figures) if hasattr(m, name)]
        assert homes, name
        assert getattr(plots, name) is getattr(homes[0], name)


def test_charts_drawn_in_two_processes_are_the_files_one_process_writes(
    model: suspension_sim.Model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`save_figures` splits the figures with a forked child where it can: the files
    are byte for byte those of a single process; a child that fails is redone here."""
    from suspension_sim.outputs import chart_files

    table = sweep_table(model, "heave", (-10.0, 0.0, 10.0))
    wheels = [w.name for w in model.car.wheels]
    one = plot_table(table, "chassis_heave_mm", tmp_path / "one", wheels=wheels)
    forks: list[int] = []
    real_fork = chart_files.os.fork

    def counted_fork() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(chart_files, "can_fork", lambda: chart_files.sys.platform == "linux")
    monkeypatch.setattr(chart_files.os, "fork", counted_fork)
    two = plot_table(table, "chassis_heave_mm", tmp_path / "two", wheels=wheels)
    assert [p.name for p in two] == [p.name for p in one] and len(one) == 7
    for a, b in zip(one, two, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    if chart_files.sys.platform == "linux":
        assert forks == [1]
        # The child cannot write (a folder named like its first file): this process
        # redraws that figure, and the error is raised here, naming the option.
        (tmp_path / "three").mkdir()
        blocked = tmp_path / "three" / two[0].name  # the child draws the first chart
        blocked.mkdir()
        with pytest.raises(InputError, match="cannot write") as caught:
            plot_table(table, "chassis_heave_mm", tmp_path / "three", wheels=wheels)
        assert caught.value.where == "directory"


# -- fixed margins, reused figures, the chart worker ---------------------------------------
def overlaps(a: Bbox, b: Bbox) -> bool:
    """True when two display boxes share more than a pixel's width."""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > 1.0 and min(a.y1, b.y1) - max(a.y0, b.y0) > 1.0


def test_margins_make_room_for_long_numbers_and_labels() -> None:
    """`chart_layout.fit_margins` measures the texts: tick labels of six digits and four
    decimals, a long axis label and two-line titles stay inside the figure and off the
    panels next to them, as matplotlib itself measures them at the draw."""
    steps = np.linspace(-1.0, 1.0, 5)
    table = pd.DataFrame({"chassis_roll_deg": steps})
    for wheel, base in (("FL", 123456.0), ("FR", -98765.0), ("RL", 0.5), ("RR", -0.25)):
        table[f"scrub_radius_{wheel}_mm"] = base + 0.0123 * steps
    columns = {w: f"scrub_radius_{w}_mm" for w in ("FL", "FR", "RL", "RR")}
    fig = wheel_figure(table, "chassis_roll_deg", columns, title="a title\non two lines")
    assert fig is not None
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    labels = [t.get_text() for t in panels[0].get_yticklabels() if t.get_text()]
    assert any(len(t) >= 9 for t in labels), labels  # e.g. 123456.02: the long case
    for ax in panels:
        box = ax.get_tightbbox(renderer)  # its tick labels, axis labels, title
        assert box is not None
        assert box.x0 >= fig.bbox.x0 - 0.5 and box.x1 <= fig.bbox.x1 + 0.5, ax.get_title()
        assert box.y0 >= fig.bbox.y0 - 0.5 and box.y1 <= fig.bbox.y1 + 0.5, ax.get_title()
        for other in panels:
            if other is not ax:
                assert not overlaps(box, other.get_window_extent()), (ax.get_title(), other)
    title = fig._suptitle.get_window_extent(renderer)  # type: ignore[attr-defined]
    assert title.y1 <= fig.bbox.y1
    assert not any(overlaps(title, ax.get_window_extent()) for ax in panels)
    assert not any(overlaps(title, ax.title.get_window_extent(renderer)) for ax in panels)


def test_reused_figures_write_the_files_new_figures_write(
    model: suspension_sim.Model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`plot_table` draws every chart on one figure per shape, cleared between charts: the
    files are byte for byte those of a new figure per chart, also after a chart with a
    panel that had no data (its axes switched off) and after a two-panel chart."""
    from suspension_sim.outputs import chart_files

    monkeypatch.setattr(chart_files, "can_fork", lambda: False)  # one process, in order
    table = sweep_table(model, "steer", (-20.0, 0.0, 20.0)).drop(columns="toe_RR_deg")
    wheels = [w.name for w in model.car.wheels]
    # drawn in the plan's order: camber, toe (RR not defined), caster on one 2 x 2
    # figure; roll_centre, ackermann on one 1 x 2 figure
    charts = ["toe", "ackermann", "roll_centre", "camber", "caster"]
    written = plot_table(table, "rack_mm", tmp_path, wheels=wheels, charts=charts)
    assert sorted(p.stem for p in written) == sorted(charts)
    fresh = table_figures(table, "rack_mm", wheels=wheels, charts=charts)
    toe = [ax for ax in fresh["toe"].axes if ax.get_visible()]
    assert not toe[3].axison and [ax.axison for ax in fresh["camber"].axes] == [True] * 4
    for stem, fig in fresh.items():
        new = chart_files.save_figure(fig, tmp_path / f"new_{stem}.png")
        assert (tmp_path / f"{stem}.png").read_bytes() == new.read_bytes(), stem


def test_the_chart_worker_draws_what_this_process_draws(
    model: suspension_sim.Model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ChartWorker` (forked before the work, matplotlib loaded there) writes the files
    `plot_table` writes here; a job that fails in it is redone here, raising the error
    at its option; a worker given no job is stopped at once."""
    import os
    import sys

    from suspension_sim.outputs import chart_worker
    from suspension_sim.outputs.chart_worker import ChartWorker

    if not sys.platform.startswith("linux"):
        pytest.skip("the worker needs fork")
    # (a thread another test left running would make can_fork say no: the worker only draws)
    monkeypatch.setattr(chart_worker, "can_fork", lambda: True)
    table = sweep_table(model, "heave", (-10.0, 0.0, 10.0))
    wheels = [w.name for w in model.car.wheels]
    job: dict[str, Any] = {"table": table, "x": "chassis_heave_mm", "wheels": wheels}
    here = plot_table(directory=tmp_path / "here", **job)
    worker = ChartWorker.start()
    assert worker is not None

    def not_here(**_: object) -> list[Path]:
        raise AssertionError("drawn in this process, not by the worker")

    with monkeypatch.context() as patch:
        patch.setattr(chart_worker, "plot_table", not_here)  # the worker forked before
        there = worker.plot_table(directory=tmp_path / "there", **job)
    assert [p.name for p in there] == [p.name for p in here] and len(here) == 7
    for a, b in zip(here, there, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    # a job the worker cannot do (its folder is a file): redone here, the error raised here
    (tmp_path / "a_file").write_text("")
    worker = ChartWorker.start()
    assert worker is not None
    with pytest.raises(InputError, match="is a file") as caught:
        worker.plot_table(directory=tmp_path / "a_file", option="--plot", **job)
    assert caught.value.where == "--plot"
    # no job: stopped, nothing left running
    worker = ChartWorker.start()
    assert worker is not None
    worker.close()
    with pytest.raises(ProcessLookupError):
        os.kill(worker.pid, 0)
