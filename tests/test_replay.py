"""`suspension_sim.replay` and `suspension-sim replay`: damper logs into wheel attitude.

Truths are independent of the replay: poses solved one by one with `model.solve`
and their `pose_metrics`; the workbook's steering ratio (0.25 mm of rack per
steering-wheel degree on fsae_car); a heave sweep with the tyres on the ground
for the ride-height change; offsets and time stamps put into the log by hand.
"""

from __future__ import annotations

import math
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import suspension_sim
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.metrics import pose_metrics
from suspension_sim.replay import replay_log

ROOT = Path(__file__).resolve().parents[1]
WORKBOOK = ROOT / "workbooks" / "fsae_car.xlsx"
DAMPERS = ("FL_Damper", "FR_Damper", "RL_Damper", "RR_Damper")
DESIGN_LENGTH = 200.0  # mm, every damper of fsae_car (Damping: 175..225 mm)
RATIO = 0.25  # mm of rack per steering-wheel degree (fsae_car's Steering ratio)

PLAIN_MAP = """\
time: {column: Time, unit: s}
dampers:
  FL_Damper: {column: FL, unit: mm}
  FR_Damper: {column: FR, unit: mm}
  RL_Damper: {column: RL, unit: mm}
  RR_Damper: {column: RR, unit: mm}
"""


@pytest.fixture(scope="module")
def model() -> suspension_sim.Model:
    return suspension_sim.load(WORKBOOK)


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def plain_log(tmp: Path, strokes: np.ndarray, t: np.ndarray | None = None) -> Path:
    t = np.arange(len(strokes)) * 0.01 if t is None else t
    frame = pd.DataFrame(
        {"Time": t, **{k: strokes[:, i] for i, k in enumerate(("FL", "FR", "RL", "RR"))}}
    )
    path = tmp / "log.csv"
    frame.to_csv(path, index=False)
    return path


def test_replayed_attitude_equals_single_solves(model, tmp_path):
    """Strokes (mm, volts of a length pot, lengths in cm), steering-wheel angle and the
    chassis from the log give the camber and toe of the same poses solved one by one."""
    states = [
        ((0.0, 0.0, 0.0, 0.0), 0.0, (0.0, 0.0)),
        ((12.0, -8.0, 5.0, 3.0), 40.0, (1.5, 0.0)),
        ((-15.0, 10.0, -6.0, 9.0), -60.0, (-0.8, 0.6)),
        ((20.0, 18.0, 14.0, 15.0), 10.0, (0.3, -1.2)),
    ]
    heave = [0.0, 5.0, -7.5, 2.0]
    rows, truth = [], []
    for (s, wheel_deg, (roll, pitch)), z in zip(states, heave, strict=True):
        rack = wheel_deg * RATIO * model_left_sign(model)
        pose = model.solve(shocks=list(s), rack=rack, chassis=(0.0, 0.0, z, roll, pitch, 0.0))
        truth.append(pose_metrics(pose))
        fr_length = DESIGN_LENGTH - s[1]
        rows.append(
            {
                "Time [s]": len(rows) * 0.02,
                "Damper FL": s[0],
                "FR pot": (fr_length + 37.5) / 15.0,  # volts: length = 15 V - 37.5 mm
                "RL length": (DESIGN_LENGTH - s[2]) / 10.0,  # cm
                "RR": s[3],
                "Steer": wheel_deg,
                "Heave": z,
                "Roll": math.radians(roll),
                "Pitch": pitch,
            }
        )
    log = tmp_path / "log.csv"
    pd.DataFrame(rows).to_csv(log, index=False)
    cmap = write(
        tmp_path,
        "map.yaml",
        """\
        time: {column: "Time [s]", unit: s}
        dampers:
          FL_Damper: {column: Damper FL, unit: mm}          # + = compression
          FR_Damper: {column: FR pot, unit: V, gain: 15.0, offset: -37.5, kind: length}
          RL_Damper: {column: RL length, unit: cm, kind: length}
          RR_Damper: RR
        steering: {column: Steer, unit: deg, kind: steering_wheel}
        chassis:
          heave: {column: Heave, unit: mm}
          roll: {column: Roll, unit: rad}
          pitch: {column: Pitch}
        """,
    )
    result = replay_log(model, log, cmap, method="numpy")
    table = result.table
    assert list(table["status"]) == ["ok"] * 4
    assert result.problems == []
    for i, row in enumerate(truth):
        for w in ("FL", "FR", "RL", "RR"):
            for c in (f"camber_{w}_deg", f"camber_chassis_{w}_deg", f"toe_{w}_deg"):
                assert table[c][i] == pytest.approx(row[c], abs=1e-9), (i, c)
        for d in DAMPERS:
            assert table[f"stroke_{d}_mm"][i] == pytest.approx(
                states[i][0][DAMPERS.index(d)], abs=1e-9
            )
        assert table["steering_wheel_angle_deg"][i] == pytest.approx(states[i][1], abs=1e-9)
        assert table["rack_mm"][i] == pytest.approx(
            abs(states[i][1]) * RATIO * np.sign(states[i][1]) * model_left_sign(model), abs=1e-12
        )
        assert table["chassis_roll_deg"][i] == pytest.approx(states[i][2][0], abs=1e-12)
    # a left turn (+ steering wheel) turns the front wheels left (+ steer), both of them
    left = table["steering_wheel_angle_deg"] > 20
    assert (table.loc[left, "steer_FL_deg"] > 0).all() and (
        table.loc[left, "steer_FR_deg"] > 0
    ).all()
    # camber to ground and to chassis differ by the roll when the chassis rolls
    assert table["camber_FL_deg"][1] != pytest.approx(table["camber_chassis_FL_deg"][1], abs=0.1)


def model_left_sign(model) -> float:
    """+1 when rack toward +Y turns the car left: from the geometry, as the docs say."""
    from suspension_sim.solve.steering import left_turn_rack_sign

    return left_turn_rack_sign(model)


def test_static_segment_zeroing_removes_an_offset(model, tmp_path):
    """A pot zeroed off by 3.7 mm (and a length pot 1.2 mm long) reads true strokes once
    zeroed at the static segment t = 0..0.05 s, where the car stands at design."""
    n = 30
    t = np.arange(n) * 0.01
    true = np.zeros((n, 4))
    true[6:, 0] = np.linspace(0, 12, n - 6)
    true[6:, 3] = np.linspace(0, -9, n - 6)
    logged = true.copy()
    logged[:, 0] += 3.7
    frame = pd.DataFrame({"Time": t, "FL": logged[:, 0], "FR": logged[:, 1], "RL": logged[:, 2]})
    frame["RR len"] = DESIGN_LENGTH - true[:, 3] + 1.2
    log = tmp_path / "log.csv"
    frame.to_csv(log, index=False)
    cmap = write(
        tmp_path,
        "map.yaml",
        PLAIN_MAP.replace(
            "RR_Damper: {column: RR, unit: mm}", "RR_Damper: {column: RR len, kind: length}"
        )
        + "zero: {from: 0.0, to: 0.05}\n",
    )
    result = replay_log(
        model,
        log,
        cmap,
        method="numpy",
        columns=["stroke_FL_Damper_mm", "stroke_RR_Damper_mm", "camber_FL_deg"],
    )
    assert np.allclose(result.table["stroke_FL_Damper_mm"], true[:, 0], atol=1e-12, rtol=0)
    assert np.allclose(result.table["stroke_RR_Damper_mm"], true[:, 3], atol=1e-12, rtol=0)
    assert any("zeroed at its median +3.7000 mm" in note for note in result.notes)
    pose = model.solve(shocks=list(true[-1]))
    assert result.table["camber_FL_deg"].iloc[-1] == pytest.approx(
        pose_metrics(pose)["camber_FL_deg"], abs=1e-9
    )
    assert list(result.table.columns) == [
        "time_s",
        "status",
        "stroke_FL_Damper_mm",
        "stroke_RR_Damper_mm",
        "camber_FL_deg",
    ]


def test_problems_are_reported_with_time_stamps_and_left_blank(model, tmp_path):
    n = 40
    t = np.arange(n) * 0.01
    strokes = np.tile(np.array([2.0, 2.0, 1.0, 1.0]), (n, 1))
    strokes[12:15, 0] = [26.0, 31.2, 27.0]  # beyond the damper's travel (max 25 mm)
    strokes[20, 2] = np.nan  # a gap in RL
    t[30] = t[29] - 0.005  # time goes back
    t[35:] += 1.0  # a jump of 1 s (100 median steps)
    log = plain_log(tmp_path, strokes, t)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    result = replay_log(model, log, cmap, method="numpy", chunk=16)  # ranges across chunks
    texts = [p.text() for p in result.problems]
    assert (
        "t = 0.120..0.140 s: FL_Damper stroke 31.20 mm beyond the damper's travel "
        "(max 25.00) (3 samples)" in texts
    )
    assert "t = 0.200 s: no value in RL_Damper (column 'RL')" in texts
    assert any(x.startswith("t = 0.285 s: time goes back") for x in texts)
    assert any(x.startswith("t = 1.350 s: time jumps by 1.01 s, from 0.34 s") for x in texts)
    table = result.table
    status = table["status"].tolist()
    assert status[12:15] == ["out_of_limits"] * 3 and status[20] == "gap" and status[30] == "gap"
    assert status.count("ok") == n - 5
    blank = table.drop(columns=["time_s", "status"]).to_numpy()
    bad_rows = [12, 13, 14, 20, 30]
    assert np.isnan(blank[bad_rows]).all()
    assert np.isfinite(blank[[11, 15, 35], :][:, :4]).all()
    assert result.counts == {
        "ok": 35,
        "not_closed": 0,
        "out_of_limits": 3,
        "gap": 2,
        "bad_channel": 0,
    }


def test_unreachable_sample_is_flagged_with_the_solvers_explanation(model, tmp_path):
    """320 deg of steering wheel is 80 mm of rack: the tie rods cannot follow."""
    n = 6
    frame = pd.DataFrame({"Time": np.arange(n) * 0.1, "FL": 0.0, "FR": 0.0, "RL": 0.0, "RR": 0.0})
    frame["Steer"] = [0.0, 10.0, 320.0, 10.0, 0.0, 0.0]
    log = tmp_path / "log.csv"
    frame.to_csv(log, index=False)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP + "steering: {column: Steer, unit: deg}\n")
    result = replay_log(model, log, cmap, method="numpy", columns=["toe_FL_deg"])
    assert result.table["status"].tolist() == ["ok", "ok", "not_closed", "ok", "ok", "ok"]
    assert np.isnan(result.table["toe_FL_deg"][2])
    (problem,) = result.problems
    assert problem.kind == "not_closed" and problem.start == pytest.approx(0.2)
    assert problem.text().startswith("t = 0.200 s: not closed: the joints did not close")
    assert "_TIE_I between" in problem.detail  # the solver's explanation names the open joints
    assert re.search(r"rack = -?80 mm", problem.detail)  # 320 deg x 0.25 mm/deg


def test_bad_and_constant_channels(model, tmp_path):
    n = 5
    frame = pd.DataFrame(
        {"Time": np.arange(n) * 0.1, "FL": np.linspace(0, 4, n), "FR": 3.0, "RL": np.nan, "RR": 0.5}
    )
    log = tmp_path / "log.csv"
    frame.to_csv(log, index=False)
    result = replay_log(model, log, write(tmp_path, "map.yaml", PLAIN_MAP), method="numpy")
    assert set(result.table["status"]) == {"bad_channel"}
    assert [p.text() for p in result.problems if p.kind == "bad_channel"] == [
        "t = 0.000..0.400 s: RL_Damper (column 'RL') has no numeric value in the whole log: "
        "nothing is solved (5 samples)"
    ]
    assert any("FR_Damper (column 'FR') is constant (3 mm)" in w for w in result.warnings)


def test_ride_height_change_in_heave_on_the_ground(model, tmp_path):
    """Strokes of a heave sweep (tyres held on the ground) replayed without chassis data:
    the ride-height change at every wheel is the heave itself."""
    from suspension_sim.sweeps.run import run_sweep
    from suspension_sim.sweeps.standard import choose_sweep

    spec = choose_sweep(model, WORKBOOK, "heave", start=-10.0, stop=10.0, steps=3).spec
    sweep = run_sweep(model, spec).table
    strokes = sweep[[f"stroke_{d}_mm" for d in DAMPERS]].to_numpy()
    log = plain_log(tmp_path, strokes)
    result = replay_log(model, log, write(tmp_path, "map.yaml", PLAIN_MAP), method="numpy")
    heave = sweep["chassis_heave_mm"].to_numpy()
    assert heave.tolist() == [-10.0, 0.0, 10.0]
    for name in ("FL", "RR", "front", "rear"):
        assert np.allclose(result.table[f"ride_height_change_{name}_mm"], heave, atol=1e-7), name


def test_a_long_log_read_twice_gives_the_same_replay(model, tmp_path, monkeypatch):
    """The first pass's chunks are kept for the second only while small
    (`KEEP_READ_BYTES`); a log past that is read again. Both give the same table,
    problems (with their time stamps) and notes, across chunk boundaries."""
    from suspension_sim.replay import run

    n = 40
    t = np.arange(n) * 0.01
    strokes = np.tile(np.array([2.0, 2.0, 1.0, 1.0]), (n, 1))
    strokes[:, 1] += np.linspace(0.0, 3.0, n)
    strokes[12:15, 0] = [26.0, 31.2, 27.0]
    strokes[20, 2] = np.nan
    log = plain_log(tmp_path, strokes, t)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    kept = replay_log(model, log, cmap, method="numpy", chunk=7, out=tmp_path / "a.parquet")
    monkeypatch.setattr(run, "KEEP_READ_BYTES", 0)
    again = replay_log(model, log, cmap, method="numpy", chunk=7, out=tmp_path / "b.parquet")
    pd.testing.assert_frame_equal(kept.table, again.table)
    assert [p.text() for p in kept.problems] == [p.text() for p in again.problems]
    assert kept.notes == again.notes and len(kept.problems) == 2
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "a.parquet"), pd.read_parquet(tmp_path / "b.parquet")
    )


def test_csv_and_parquet_outputs_read_back(model, tmp_path):
    strokes = np.array([[0.0, 0, 0, 0], [5, 5, 3, 3], [np.nan, 1, 1, 1], [-4, 2, 0, 1]])
    log = plain_log(tmp_path, strokes)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    tables = {}
    for suffix in ("csv", "parquet"):
        out = tmp_path / f"results.{suffix}"
        result = replay_log(model, log, cmap, out=out, method="numpy", chunk=3)
        back = pd.read_csv(out) if suffix == "csv" else pd.read_parquet(out)
        pd.testing.assert_frame_equal(back, result.table, check_dtype=False, rtol=0, atol=1e-12)
        tables[suffix] = back
        with pytest.raises(InputError, match="exists"):
            replay_log(model, log, cmap, out=out, method="numpy")
    assert tables["csv"]["status"].tolist() == ["ok", "ok", "gap", "ok"]
    # Blank cells are Parquet nulls (not NaN values), in every chunk, for every reader.
    import pyarrow.parquet as pq

    stored = pq.read_table(tmp_path / "results.parquet")
    assert stored.column("camber_FL_deg").null_count == 1
    with pytest.raises(InputError, match="input of the replay"):
        replay_log(model, log, cmap, out=log, force=True)


def test_parquet_log_and_missing_pyarrow(model, tmp_path, monkeypatch):
    strokes = np.array([[0.0, 0, 0, 0], [5, 5, 3, 3]])
    frame = pd.DataFrame(
        {"Time": [0.0, 0.01], **{k: strokes[:, i] for i, k in enumerate(("FL", "FR", "RL", "RR"))}}
    )
    log = tmp_path / "log.parquet"
    frame.to_parquet(log)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    result = replay_log(model, log, cmap, method="numpy", columns=["wheel_travel_FL_mm"])
    assert result.table["status"].tolist() == ["ok", "ok"]
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(InputError) as err:
        replay_log(model, log, cmap, method="numpy")
    assert "pip install suspension-sim[parquet]" in str(err.value)


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("line", "bad", "expected"),
    [
        (
            3,
            "FL_Dampr: {column: FL, unit: mm}",
            "'FL_Dampr' is not a damper of this workbook. Did you mean 'FL_Damper'?",
        ),
        (
            4,
            "FR_Damper: {column: FRx, unit: mm}",
            "the log has no column 'FRx' (for FR_Damper). Did you mean 'FR'?",
        ),
        (5, "RL_Damper: {column: RL, unit: kg}", "RL_Damper: unit 'kg' is not a length unit"),
    ],
)
def test_cli_bad_map_names_the_line(tmp_path, capsys, line, bad, expected):
    log = plain_log(tmp_path, np.zeros((3, 4)))
    lines = PLAIN_MAP.splitlines()
    key = bad.split(":")[0][:2]
    lines = ["  " + bad if ln.strip().startswith(key) else ln for ln in lines]
    cmap = write(tmp_path, "map.yaml", "\n".join(lines) + "\n")
    code, _, err = run_cli(
        ["replay", WORKBOOK, log, "--map", cmap, "--out", tmp_path / "r.csv"], capsys
    )
    assert code == 2
    assert f"map.yaml:{line}" in err and expected in err
    assert "Traceback" not in err
    assert not (tmp_path / "r.csv").exists()


def test_cli_writes_results_report_and_charts(tmp_path, capsys):
    strokes = np.array([[0.0, 0, 0, 0], [3, 3, 2, 2], [30, 3, 2, 2], [4, 4, 2, 2]])
    log = plain_log(tmp_path, strokes)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    out = tmp_path / "r.parquet"
    args = ["replay", WORKBOOK, log, "--map", cmap, "--out", out, "--quiet", "--method", "numpy"]
    charts = ["--plot", tmp_path / "charts", "--plot-columns", "camber_FL_deg,toe_FL_deg"]
    code, text, err = run_cli([*args, *charts, "--report", tmp_path / "rep.txt"], capsys)
    assert code == 0, err
    assert "t = 0.020 s: FL_Damper stroke 30.00 mm beyond the damper's travel (max 25.00)" in text
    assert pd.read_parquet(out)["status"].tolist() == ["ok", "ok", "out_of_limits", "ok"]
    assert (tmp_path / "charts" / "columns.png").read_bytes()[:4] == b"\x89PNG"
    assert "beyond the damper's travel" in (tmp_path / "rep.txt").read_text()
    code, _, err = run_cli(args, capsys)  # exists: --force needed
    assert code == 2 and "--force" in err and "Traceback" not in err
    code, _, err = run_cli([*args, "--force", "--columns", "camber_FL_dg"], capsys)
    assert code == 2 and "--columns" in err and "Did you mean 'camber_FL_deg'?" in err


def test_synthetic_example_reports_its_dropout_and_spike(model, tmp_path):
    """workbooks/replay_example (made by scripts/make_replay_example.py): a header block
    and a units row before the samples, a 50 ms RL dropout at 4.00 s, a spike at 7.31 s."""
    example = ROOT / "workbooks" / "replay_example"
    result = replay_log(
        model, example / "log.csv", example / "map.yaml", method="numpy", columns=["toe_FL_deg"]
    )
    assert result.samples == 1000
    texts = [p.text(2) for p in result.problems]
    assert texts == [
        "t = 4.00..4.04 s: no value in RL_Damper (column 'Damper Pos RL') (5 samples)",
        "t = 7.31 s: FL_Damper stroke 34.00 mm beyond the damper's travel (max 25.00)",
    ]
    offset = next(n for n in result.notes if n.startswith("FL_Damper"))
    assert abs(float(offset.split("median ")[1].split(" mm")[0]) - 3.1) < 0.02  # noise 0.05 mm


def test_chart_groups_and_envelope_keep_every_spike():
    from suspension_sim.replay import charts

    columns = ["time_s", "status", "camber_FL_deg", "camber_chassis_FL_deg", "toe_FL_deg"]
    columns += ["ride_height_change_FL_mm", "ride_height_change_front_mm"]
    groups = charts.chart_groups(columns)
    assert groups["camber"][1] == ["camber_FL_deg"]
    assert groups["camber_chassis"][1] == ["camber_chassis_FL_deg"]
    assert groups["ride_height"][1] == ["ride_height_change_front_mm"]
    n = 3 * charts.MAX_POINTS
    values = np.sin(np.arange(n) * 1e-3)
    values[12345] = 7.5  # one sample spike
    frame = pd.DataFrame({"time_s": np.arange(n) * 1e-3, "camber_FL_deg": values})
    t, series = charts._series(frame, ["camber_FL_deg"], 5.0)
    assert len(t) <= 2 * charts.ENVELOPE_BINS
    assert np.nanmax(series["camber_FL_deg"]) == 7.5
    assert np.nanmin(series["camber_FL_deg"]) == values.min()


def test_example_files_are_what_the_script_writes(tmp_path):
    import runpy

    script = runpy.run_path(str(ROOT / "scripts" / "make_replay_example.py"))
    assert script["main"](["--out-dir", str(tmp_path)]) == 0
    for name in ("log.csv", "map.yaml"):
        assert (tmp_path / name).read_bytes() == (
            ROOT / "workbooks" / "replay_example" / name
        ).read_bytes(), name


def test_zero_is_the_median_within_the_travel_and_a_moving_segment_is_warned(model, tmp_path):
    """Static segment t = 0..0.05 s (6 samples). FL: a pot 3.7 mm off with one glitch of
    400 mm (beyond the +-25 mm travel) there: the zero is still 3.7. FR: the car creeps
    0.5 mm per sample there (0..2.5 mm): zeroed at the median 1.25 mm, and warned. RL: a
    length pot 40 mm short of the design length, so every sample is beyond the travel
    before zeroing: all are used and the zero is still right."""
    n = 20
    t = np.arange(n) * 0.01
    true = np.zeros((n, 4))
    true[6:, 0] = np.linspace(0.0, 10.0, n - 6)
    fl = true[:, 0] + 3.7
    fl[2] = 400.0  # one glitch inside the static segment
    fr = np.r_[np.arange(6) * 0.5, np.full(n - 6, 2.5)]
    rl_length = DESIGN_LENGTH - true[:, 2] - 40.0
    frame = pd.DataFrame({"Time": t, "FL": fl, "FR": fr, "RL len": rl_length, "RR": 0.0})
    log = tmp_path / "log.csv"
    frame.to_csv(log, index=False)
    text = PLAIN_MAP.replace(
        "RL_Damper: {column: RL, unit: mm}", "RL_Damper: {column: RL len, kind: length}"
    )
    cmap = write(tmp_path, "map.yaml", text + "zero: {from: 0.0, to: 0.05}\n")
    columns = [f"stroke_{d}_mm" for d in DAMPERS]
    result = replay_log(model, log, cmap, method="numpy", columns=columns)
    table = result.table
    ok = table["status"] == "ok"
    assert table["status"][2] == "out_of_limits" and ok.sum() == n - 1
    assert np.allclose(table.loc[ok, "stroke_FL_Damper_mm"], true[ok, 0], atol=1e-12, rtol=0)
    assert np.allclose(table.loc[ok, "stroke_FR_Damper_mm"], fr[ok] - 1.25, atol=1e-12, rtol=0)
    assert np.allclose(table.loc[ok, "stroke_RL_Damper_mm"], 0.0, atol=1e-12, rtol=0)
    notes = "\n".join(result.notes)
    assert "FL_Damper: stroke zeroed at its median +3.7000 mm" in notes
    assert "(5 samples); 1 sample(s) beyond the damper's travel left out" in notes
    assert "RL_Damper: stroke zeroed at its median +40.0000 mm" in notes
    assert "all were used" in notes
    (warning,) = [w for w in result.warnings if "static segment" in w]
    assert warning.startswith(
        "FR_Damper: stroke moves 2.50 mm over the static segment t = 0..0.05 s "
        "(from +0.00 mm at t = 0 s to +2.50 mm at t = 0.05 s): the car was not standing still"
    )


@pytest.mark.parametrize("kind", ["datetime", "timedelta"])
def test_time_column_of_dates_or_durations_is_read_in_seconds(model, tmp_path, kind):
    """Time stamps 10 ms apart as dates (from 2026-06-01 10:23:00) or as durations
    (from 5 s): seconds from the first date, or the durations' seconds; a map's 'unit:
    ms' does not scale them."""
    n = 5
    seconds = np.arange(n) * 0.01 + (0.0 if kind == "datetime" else 5.0)
    if kind == "datetime":
        stamps = pd.Timestamp("2026-06-01 10:23:00") + pd.to_timedelta(seconds, unit="s")
    else:
        stamps = pd.to_timedelta(seconds, unit="s")
    strokes = np.linspace(0.0, 4.0, n)
    frame = pd.DataFrame({"Time": stamps, "FL": strokes, "FR": 0.0, "RL": 0.0, "RR": 0.0})
    log = tmp_path / "log.parquet"
    frame.to_parquet(log)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP.replace("unit: s}", "unit: ms}"))
    result = replay_log(model, log, cmap, method="numpy", columns=["stroke_FL_Damper_mm"])
    assert np.allclose(result.table["time_s"], seconds, atol=1e-9, rtol=0)
    assert result.table["status"].tolist() == ["ok"] * n
    assert np.allclose(result.table["stroke_FL_Damper_mm"], strokes, atol=1e-12, rtol=0)
    notes = "\n".join(result.notes)
    expected = "holds dates: time is in s from its first stamp 2026-06-01 10:23:00"
    assert (expected if kind == "datetime" else "holds durations") in notes
    assert "time unit 'ms' is not used" in notes


def test_header_is_the_line_naming_the_map_columns_not_a_metadata_line(model, tmp_path):
    """An AiM-style block: a '"Time","10:23 AM"' metadata line before the real header."""
    log = tmp_path / "aim.csv"
    log.write_text(
        '"Format","AiM CSV File"\n"Time","10:23 AM"\n"Sample Rate","100"\n\n'
        '"Time","FL","FR","RL","RR"\n"s","mm","mm","mm","mm"\n'
        + "".join(f"{k * 0.01:.2f},{k:.1f},0,0,0\n" for k in range(4)),
        encoding="utf-8",
    )
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    result = replay_log(model, log, cmap, method="numpy", columns=["stroke_FL_Damper_mm"])
    assert result.samples == 4
    assert result.table["time_s"].tolist() == [0.0, 0.01, 0.02, 0.03]
    assert result.table["stroke_FL_Damper_mm"].tolist() == [0.0, 1.0, 2.0, 3.0]
    # the same with old Mac line ends (CR only)
    log.write_bytes(log.read_bytes().replace(b"\n", b"\r"))
    result = replay_log(model, log, cmap, method="numpy", columns=["stroke_FL_Damper_mm"])
    assert result.table["stroke_FL_Damper_mm"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_fixed_stroke_beyond_the_travel_is_refused_at_its_line(model, tmp_path):
    """fsae_car's dampers run 175..225 mm about a 200 mm design length: -25..25 mm."""
    log = plain_log(tmp_path, np.zeros((3, 4)))
    for value, ok in ((25.0, True), (-25.0, True), (25.5, False), (-300.0, False)):
        text = PLAIN_MAP.replace("{column: RR, unit: mm}", f"{{fixed: {value}}}")
        cmap = write(tmp_path, "map.yaml", text)
        if ok:
            result = replay_log(model, log, cmap, method="numpy", columns=["stroke_RR_Damper_mm"])
            assert result.table["stroke_RR_Damper_mm"].tolist() == [value] * 3
            continue
        with pytest.raises(InputError) as err:
            replay_log(model, log, cmap, method="numpy")
        assert err.value.where.endswith("map.yaml:6")
        assert f"RR_Damper: fixed stroke {value:g} mm is beyond the damper's travel" in str(
            err.value
        )
        assert "-25..25 mm" in str(err.value)


def test_cli_exits_3_when_no_sample_is_solved(tmp_path, capsys):
    strokes = np.array([[30.0, 0, 0, 0], [31.0, 0, 0, 0], [32.0, 0, 0, 0]])  # FL beyond 25 mm
    log = plain_log(tmp_path, strokes)
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    args = ["replay", WORKBOOK, log, "--map", cmap, "--quiet", "--method", "numpy"]
    code, text, err = run_cli([*args, "--out", tmp_path / "r.csv"], capsys)
    assert code == 3, err
    (line,) = [x for x in err.splitlines() if x.startswith("error: ")]
    assert line.startswith("error: no sample was solved (3 out_of_limits); first: t = 0.000..")
    assert "FL_Damper stroke 32.00 mm beyond the damper's travel" in line
    strokes[1, 0] = 3.0  # one sample solved: the others are the log's, exit 0
    log = plain_log(tmp_path, strokes)
    code, text, err = run_cli([*args, "--out", tmp_path / "r3.csv"], capsys)
    assert code == 0, err
    assert "no sample was solved" not in text


def test_semicolon_log_with_decimal_commas(model, tmp_path):
    cmap = write(tmp_path, "map.yaml", PLAIN_MAP)
    rows = "Time;FL;FR;RL;RR\ns;mm;mm;mm;mm\n0,00;1,5;2;-3,25;0\n0,01;1,75;2;-3,25;0,5\n"
    log = tmp_path / "semi.csv"
    log.write_text(rows, encoding="utf-8")
    result = replay_log(model, log, cmap, method="numpy", columns=["stroke_FL_Damper_mm"])
    assert result.table["time_s"].tolist() == [0.0, 0.01]
    assert result.table["stroke_FL_Damper_mm"].tolist() == [1.5, 1.75]
    # quoted decimal commas in a comma-separated log read the same
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('Time,FL,FR,RL,RR\n"0,00","1,5",2,0,0\n"0,01","1,75",2,0,0\n')
    result = replay_log(model, quoted, cmap, method="numpy", columns=["stroke_FL_Damper_mm"])
    assert result.table["stroke_FL_Damper_mm"].tolist() == [1.5, 1.75]
    # decimal-comma times in a log whose other numbers have a decimal point: named
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("Time;FL;FR;RL;RR\n0,00;1.5;2.5;0.5;0.5\n0,01;1.5;2.5;0.5;0.5\n")
    with pytest.raises(InputError) as err:
        replay_log(model, mixed, cmap, method="numpy")
    assert "it holds '0,00', '0,01'" in str(err.value)
    assert "decimal comma" in str(err.value)
    # clock times as text are not read: the error says so
    clock = tmp_path / "clock.csv"
    clock.write_text("Time,FL,FR,RL,RR\n10:23:00.00,1,2,3,4\n10:23:00.01,1,2,3,4\n")
    with pytest.raises(InputError) as err:
        replay_log(model, clock, cmap, method="numpy")
    assert "it holds '10:23:00.00', '10:23:00.01'" in str(err.value)
    assert "clock times or dates as text" in (err.value.hint or "")


def test_envelope_of_a_long_log_breaks_at_a_time_jump():
    """A 10 s jump in a log of 3 x MAX_POINTS samples at 1 ms: no envelope segment is
    drawn across it (a NaN sits between), as in the short log's plain path."""
    from suspension_sim.replay import charts

    n = 3 * charts.MAX_POINTS
    at = 30_010  # inside a bin of the 60 000 / 2000 = 30-sample binning
    t = np.arange(n) * 1e-3
    t[at:] += 10.0
    frame = pd.DataFrame({"time_s": t, "camber_FL_deg": np.cos(t)})
    for shown, values in (
        charts._series(frame, ["camber_FL_deg"], 5.0),
        charts._series(frame.iloc[:5000], ["camber_FL_deg"], 5.0),  # the plain path
    ):
        v = values["camber_FL_deg"]
        drawn = np.isfinite(shown[:-1]) & np.isfinite(shown[1:])
        drawn &= np.isfinite(v[:-1]) & np.isfinite(v[1:])
        across = drawn & (shown[:-1] < t[at] - 1.0) & (shown[1:] >= t[at])
        assert not across.any()
        if len(shown) > 5000:
            assert np.isnan(shown).sum() == 1
            assert np.nanmax(shown[: np.flatnonzero(np.isnan(shown))[0]]) < t[at - 1] + 1e-12


def test_sample_without_a_time_stamp_is_reported_after_the_time_before(model, tmp_path):
    n = 8
    t = np.arange(n) * 0.01
    t[4] = np.nan  # no stamp: shown after 0.03 s
    t[5] = 0.02  # time goes back: a separate range, not merged with the one above
    log = plain_log(tmp_path, np.zeros((n, 4)), t)
    result = replay_log(model, log, write(tmp_path, "map.yaml", PLAIN_MAP), method="numpy")
    texts = [p.text() for p in result.problems]
    assert "after t = 0.030 s: no time stamp" in texts
    assert "t = 0.020 s: time goes back (or repeats): these samples are left blank" in texts


@pytest.mark.parametrize(
    ("entry", "what"),
    [
        ("FL_Damper: {column: FL, unit: V, gain: .inf}", "FL_Damper: gain"),
        ("FL_Damper: {column: FL, offset: .nan}", "FL_Damper: offset"),
        ("FL_Damper: {fixed: .nan}", "FL_Damper: fixed"),
    ],
)
def test_non_finite_numbers_in_the_map_get_a_replay_hint(model, tmp_path, entry, what):
    log = plain_log(tmp_path, np.zeros((3, 4)))
    lines = ["  " + entry if ln.strip().startswith("FL_") else ln for ln in PLAIN_MAP.splitlines()]
    cmap = write(tmp_path, "map.yaml", "\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        replay_log(model, log, cmap, method="numpy")
    assert err.value.where.endswith("map.yaml:3")
    assert f"{what} must be a finite number" in err.value.message
    assert "sweep" not in (err.value.hint or "")
    assert ("fixed: 0" if "fixed" in what else "gain x raw + offset") in (err.value.hint or "")


# -- the CSV writer: pandas' text, made by pyarrow in a writer thread ---------------------
def edge_columns(n: int = 4000) -> dict[str, np.ndarray]:
    """Floats of every magnitude and the cells where Python and pyarrow print differently
    (0.0, integers, below 1e-4, from 1e16, exponents pyarrow picks), NaN, inf, -0.0."""
    rng = np.random.default_rng(5)
    values = rng.normal(0.0, 1.0, n) * 10.0 ** rng.integers(-25, 25, n)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e16, 9999999999999998.0, 1e-4]
    special += [9.999999999999999e-05, 5e-324, 1.7976931348623157e308, 123456789012345.0]
    special += [1.5, -2.0, 600.0, 1e15, 1e21, 81823022739.0307, 4.026340852214133e-06]
    values[: len(special)] = special
    status = np.array(["ok", "gap", "out_of_limits", "not_closed"] * (n // 4), dtype=object)
    return {"time_s": np.arange(n) * 0.002, "status": status, "a": values, "b": -values[::-1]}


def test_csv_text_is_what_pandas_writes():
    from suspension_sim.replay.writers import csv_text

    columns = edge_columns()
    expected = pd.DataFrame(columns).to_csv(index=False, header=False)
    assert csv_text(columns) == expected.encode("utf-8")
    # Text pandas would quote, or a column of another type: the caller uses pandas.
    assert csv_text({"a": np.array([1.0]), "s": np.array(["x,y"], dtype=object)}) is None
    assert csv_text({"a": np.array([1.0]), "i": np.array([3])}) is None


def test_csv_writer_chunks_match_pandas(tmp_path, monkeypatch):
    from suspension_sim.replay import writers

    columns = edge_columns()
    out = tmp_path / "t.csv"
    with writers.TableWriter(out) as w:
        for k in range(0, 4000, 1500):  # three chunks, the last one short
            w.write_columns({c: v[k : k + 1500] for c, v in columns.items()})
        odd = {c: v[:2].copy() for c, v in columns.items()}
        odd["status"] = np.array(['say "no", twice', "ok"], dtype=object)  # pandas quotes it
        w.write_columns(odd)
        assert w.rows == 4002
    frame = pd.concat([pd.DataFrame(columns), pd.DataFrame(odd)], ignore_index=True)
    assert out.read_bytes() == frame.to_csv(index=False).encode("utf-8")

    # An error while writing a chunk (in the writer thread) is raised and leaves no file.
    def broken(columns: dict[str, np.ndarray]) -> bytes:
        raise InputError("disk full", where="out")

    monkeypatch.setattr(writers, "csv_text", broken)
    failed = tmp_path / "failed.csv"
    with pytest.raises(InputError, match="disk full"), writers.TableWriter(failed) as w:
        w.write_columns(columns)
    assert not failed.exists() and list(tmp_path.iterdir()) == [out]
