"""Roll and pitch centres from nearly parallel force lines (issue 24, item 3).

The mistake as a user makes it: a car whose front roll centre sits near the ground,
swept in a heave x roll grid; the roll centre jumps from a few mm to metres sideways
between two steps. Each centre now carries the angle between its two lines; the angle
is checked against the printed centre and contact points (the two lines must pass
through them), the jumping steps are below `NEAR_PARALLEL_LINES_DEG` and the others
are not, the table keeps the value, the charts ring the flagged points and the sweep
reports them in words.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

import suspension_sim
from suspension_sim.cli import main
from suspension_sim.metrics import linkage
from suspension_sim.outputs.near_parallel import (
    MARK_LABEL,
    flag_column,
    mark_near_parallel,
    near_parallel,
    near_parallel_notes,
)
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep
from suspension_sim.tolerances import NEAR_PARALLEL_LINES_DEG

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
LOWERED = ("FL_LCA_F", "FL_LCA_R", "FR_LCA_F", "FR_LCA_R")
DROP_MM = 18.0
"""Lowering the front lower arms' chassis pivots this much puts the front roll centre
0.5 mm above the ground at design (40.5 mm on the example car)."""
GRID_YAML = """sweeps:
  roll_heave:
    motion: roll
    values: [-1, -0.5, 0, 0.5, 1]
    grid:
      motion: heave
      values: [-10, 0, 10]
"""


def lowered_car(folder: Path) -> Path:
    """The example car with its front lower-arm chassis pivots DROP_MM lower, and the
    heave x roll grid beside it."""
    path = folder / "low_rc.xlsx"
    shutil.copy(EXAMPLE, path)
    wb = openpyxl.load_workbook(path)
    rows = [r for r in wb["Hard Points"].iter_rows() if r[0].value in LOWERED]
    assert len(rows) == len(LOWERED)
    for row in rows:
        row[3].value = float(row[3].value) - DROP_MM
    wb.save(path)
    (folder / "sweeps.yaml").write_text(GRID_YAML)
    return path


def angle_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angle (deg, 0..90) between the 2-D lines along a and b (n, 2)."""
    across = np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
    return np.degrees(np.arctan2(across, np.abs(np.sum(a * b, axis=1))))


def test_lines_angle_by_hand() -> None:
    u, v = np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])
    p1, p2 = np.array([0.0, 600.0, 0.0]), np.array([0.0, -600.0, 0.0])
    at = (np.array([0.0, 0.0, 40.0]), 1.0)  # both lines through (y, z) = (0, 40)
    want = 2 * np.degrees(np.arctan(40.0 / 600.0))
    got = np.degrees(linkage.lines_angle(p1, at, p2, at, u, v))
    assert got == pytest.approx(want, abs=1e-12)
    # a direction at infinity (lam = 0) is a line along it; either sense is one line
    flat = (np.array([0.0, 1.0, 0.0]), 0.0)
    back = (np.array([0.0, -1.0, 0.0]), 0.0)
    assert linkage.lines_angle(p1, flat, p2, back, u, v) == 0.0  # parallel
    up = (np.array([0.0, 0.0, -3.0]), 0.0)
    assert np.degrees(linkage.lines_angle(p1, flat, p2, up, u, v)) == pytest.approx(90.0)
    # the view drops the third axis: a line along it has no direction in the view
    along = (np.array([5.0, 0.0, 0.0]), 0.0)
    assert np.isnan(linkage.lines_angle(p1, along, p2, flat, u, v))


def test_angles_are_those_of_the_printed_centres() -> None:
    """Every line of a centre passes through its contact point and the centre: the angle
    column equals the angle between those two lines, rebuilt from the printed columns
    (heave keeps the chassis axes on the world axes, so chassis y = world y)."""
    model = suspension_sim.load(EXAMPLE)
    heave = SweepSpec("heave", MotionSpec("heave", (-20.0, 0.0, 20.0)))
    t = run_sweep(model, heave).table
    rc = t[["roll_centre_lateral_front_mm", "roll_centre_height_front_mm"]].to_numpy()
    cp = {w: t[[f"contact_point_{w}_{c}_mm" for c in "xyz"]].to_numpy() for w in ("FL", "FR", "RL")}
    front = angle_between(rc - cp["FL"][:, 1:], rc - cp["FR"][:, 1:])
    np.testing.assert_allclose(t["roll_centre_line_angle_front_deg"], front, atol=1e-9)
    pc = t[["pitch_centre_left_x_mm", "pitch_centre_left_z_mm"]].to_numpy()
    side = angle_between(pc - cp["FL"][:, ::2], pc - cp["RL"][:, ::2])
    np.testing.assert_allclose(t["pitch_centre_line_angle_left_deg"], side, atol=1e-9)
    # symmetric at design: 2 atan(h / (t/2)); the example car is well conditioned
    design = t.loc[t["chassis_heave_mm"] == 0.0].iloc[0]
    h, track = design["roll_centre_height_front_mm"], design["track_front_mm"]
    assert design["roll_centre_line_angle_front_deg"] == pytest.approx(
        2 * np.degrees(np.arctan(h / (track / 2))), abs=1e-6
    )
    for c in t.columns:
        if "_line_angle_" in c:
            assert (t[c] > NEAR_PARALLEL_LINES_DEG).all(), c  # no flag on the example car


@pytest.fixture(scope="module")
def grid_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[int, str, pd.DataFrame, Path]:
    """`suspension-sim sweep low_rc.xlsx roll_heave --out table.csv --plot charts`."""
    folder = tmp_path_factory.mktemp("near_parallel")
    car = lowered_car(folder)
    out = folder / "table.csv"
    import contextlib
    import io

    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(["sweep", str(car), "roll_heave", "--out", str(out), "--plot", str(folder)])
    return code, stdout.getvalue(), pd.read_csv(out), folder


def test_heave_roll_grid_flags_the_jumping_roll_centre(
    grid_run: tuple[int, str, pd.DataFrame, Path],
) -> None:
    code, _stdout, t, _folder = grid_run
    assert code == 0
    assert len(t) == 15
    lateral = t["roll_centre_lateral_front_mm"].to_numpy()
    height = t["roll_centre_height_front_mm"].to_numpy()
    angle = t["roll_centre_line_angle_front_deg"].to_numpy()
    level = t["chassis_heave_mm"].to_numpy() == 0.0
    rolled = np.abs(t["chassis_roll_deg"].to_numpy()) == 1.0
    # the user's observation: at design height the roll centre runs metres sideways as
    # soon as the car rolls, while 10 mm up or down it moves ~0.2 m per degree
    assert np.all(np.abs(lateral[level & rolled]) > 3000.0)
    assert np.all(np.abs(lateral[~level]) < 300.0)
    # ... the lines there are a tenth of a degree apart: flagged; the rest are not
    assert np.all(angle[level] < 0.2)
    assert np.all(angle[~level] > 2.0)
    flagged = near_parallel(t, "roll_centre_height_front_mm")
    np.testing.assert_array_equal(flagged, level)
    np.testing.assert_array_equal(flagged, near_parallel(t, "roll_centre_lateral_front_mm"))
    # the table keeps the (finite) numbers: flagged, not blanked
    assert np.all(np.isfinite(height)) and np.all(np.isfinite(lateral))
    # the rear axle, untouched, is well conditioned everywhere
    assert (t["roll_centre_line_angle_rear_deg"] > 4.0).all()
    assert not near_parallel(t, "roll_centre_height_rear_mm").any()


def test_the_sweep_says_so_in_words(grid_run: tuple[int, str, pd.DataFrame, Path]) -> None:
    code, stdout, t, _folder = grid_run
    notes = near_parallel_notes(t, "chassis_roll_deg")
    assert len(notes) == 1, notes  # the front roll centre only
    note = notes[0]
    assert note.startswith("front roll centre: 5 of 15 steps from near-parallel force lines")
    assert f"angle < {NEAR_PARALLEL_LINES_DEG:g} deg" in note
    smallest = t["roll_centre_line_angle_front_deg"].min()
    assert f"smallest {smallest:.2g} deg at chassis_roll_deg = " in note
    k = int(t["roll_centre_line_angle_front_deg"].to_numpy().argmin())
    both = near_parallel_notes(t, ["chassis_roll_deg", "chassis_heave_mm"])[0]
    roll, heave = t["chassis_roll_deg"].iloc[k], t["chassis_heave_mm"].iloc[k]
    assert f"at chassis_roll_deg = {roll:.4g}, chassis_heave_mm = {heave:.4g})" in both
    # what `suspension-sim sweep` prints (exit code 0: every step solved)
    assert code == 0
    printed = [line for line in stdout.splitlines() if "near-parallel" in line]
    assert printed == [f"note: {note}"]


def test_charts_ring_the_flagged_points(grid_run: tuple[int, str, pd.DataFrame, Path]) -> None:
    """The roll-centre chart the sweep wrote: both panels ring exactly the five flagged
    points (one legend entry each), not the rear axle's."""
    from suspension_sim.outputs.plots import roll_centre_figure

    _code, _stdout, t, folder = grid_run
    assert (folder / "roll_centre.png").is_file()
    fig = roll_centre_figure(t, "chassis_roll_deg", series="chassis_heave_mm")
    assert fig is not None
    migration, height = fig.axes[:2]
    flagged = near_parallel(t, "roll_centre_height_front_mm")
    h = "roll_centre_height_front_mm"
    for ax, x in ((migration, "roll_centre_lateral_front_mm"), (height, "chassis_roll_deg")):
        rings = np.concatenate([np.asarray(c.get_offsets()) for c in ax.collections])
        want = t.loc[flagged, [x, h]].to_numpy()
        assert sorted(map(tuple, rings)) == sorted(map(tuple, want))
        labels = [c.get_label() for c in ax.collections]
        assert labels.count(MARK_LABEL) == 1
        assert MARK_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]
    # the marking itself, on an empty chart: the rear axle's points are not ringed
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    assert mark_near_parallel(ax, t, "chassis_roll_deg", h) == 5
    assert mark_near_parallel(ax, t, "chassis_roll_deg", h.replace("front", "rear")) == 0
    assert flag_column("roll_centre_height_front_mm") == "roll_centre_line_angle_front_deg"
    assert flag_column("pitch_centre_left_z_mm") == "pitch_centre_line_angle_left_deg"
    assert flag_column("camber_FL_deg") is None


def test_compare_says_when_a_difference_sits_on_near_parallel_lines(
    grid_run: tuple[int, str, pd.DataFrame, Path],
) -> None:
    """The example car against the low roll-centre car in the same grid: the roll centre's
    lateral difference is largest where the low car's lines are a tenth of a degree apart,
    and the summary says so; the well-conditioned rear roll centre carries no such note."""
    _code, _stdout, _table, folder = grid_run
    car = folder / "low_rc.xlsx"
    spec = SweepSpec(
        "roll_heave",
        MotionSpec("roll", (-1.0, -0.5, 0.0, 0.5, 1.0)),
        grid=MotionSpec("heave", (-10.0, 0.0, 10.0)),
    )
    cmp = suspension_sim.compare([EXAMPLE, car], spec)
    lateral = cmp.differences.loc["roll_centre_lateral_front_mm"]
    assert abs(lateral["largest difference low_rc"]) > 3000.0
    assert abs(lateral["chassis_roll_deg at largest difference low_rc"]) == 1.0
    lines = {line.split(":")[0].strip(): line for line in cmp.summary(rows=8).splitlines()}
    assert "[near-parallel force lines there: unstable]" in lines["roll_centre_lateral_front_mm"]
    rear = [v for k, v in lines.items() if k.startswith("roll_centre_height_rear")]
    assert all("near-parallel" not in v for v in rear)
