"""The analysis scripts in scripts/ run end to end on the example car.

Each script runs in a fresh process (as a user runs it) into a temporary
folder; its results table is then checked against the library computing the
same pose directly, so a script that drifts from the API fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import suspension_sim
from suspension_sim.metrics import pose_metrics

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"

SCRIPTS = {
    # script: (extra arguments, table written, swept column, value checked, solve kwargs)
    "heave_motion_ratio.py": (
        ["--travel", "10"],
        "heave.csv",
        "chassis_heave_mm",
        "motion_ratio_FL",
    ),
    "roll_sweep.py": (["--max-roll", "1"], "roll.csv", "chassis_roll_deg", "camber_FL_deg"),
    "steer_sweep_ackermann.py": (["--rack", "10"], "steer.csv", "rack_mm", "toe_FL_deg"),
    "bump_steer_camber_gain.py": (
        ["--travel", "10"],
        "bump_FL.csv",
        "wheel_travel_FL_mm",
        "camber_FL_deg",
    ),
}


def _env() -> dict[str, str]:
    """This checkout's package first, whatever copy is installed."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


def _run(script: str, args: list[str], out: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, str(ROOT / "scripts" / script), str(EXAMPLE), "--out", str(out), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False, env=_env())


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_runs_and_agrees_with_the_library(script: str, tmp_path: Path) -> None:
    args, table_name, swept, column = SCRIPTS[script]
    done = _run(script, args, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    table = pd.read_csv(tmp_path / table_name)
    assert len(table) >= 3 and table[swept].nunique() == len(table)
    assert list(tmp_path.glob("*.png")), "the script wrote no chart"
    # Independent of the script: the pose with every input at the row's values.
    row = table.iloc[len(table) // 2]
    model = suspension_sim.load(EXAMPLE)
    strokes = {d.body: float(row[f"stroke_{d.body}_mm"]) for d in model.car.dampers}
    heave, roll, pitch = (float(row[f"chassis_{a}_{u}"]) for a, u in CHASSIS_COLUMNS)
    chassis = (0.0, 0.0, heave, roll, pitch, 0.0)
    pose = model.solve(shocks=strokes, rack=float(row["rack_mm"]), chassis=chassis)
    expected = pose_metrics(pose)[column]
    assert np.isfinite(row[column])
    assert row[column] == pytest.approx(expected, abs=1e-6)


CHASSIS_COLUMNS = [("heave", "mm"), ("roll", "deg"), ("pitch", "deg")]
"""The chassis columns of a results table (x, y and yaw stay 0 in these motions)."""


def test_script_names_a_missing_workbook(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "roll_sweep.py"), str(tmp_path / "nope.xlsx")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=_env(),
    )
    assert done.returncode == 2
    assert "nope.xlsx" in done.stderr and "Traceback" not in done.stderr
