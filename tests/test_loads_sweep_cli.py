"""`suspension-sim loads --sweep`: per-step load tables of a motion from the command line.

Each step's damper forces are checked against virtual work on poses solved
independently of the sweep: for a vertical load F_z on one contact patch and a
solved pose, the damper force equals F_z dz_cp/ds (the contact patch's vertical
velocity per mm of stroke, finite differences of two solves at +-h)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import suspension_sim
from suspension_sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
CAR = ROOT / "workbooks" / "fsae_car.xlsx"


def test_sweep_tables_have_every_step_and_match_virtual_work(tmp_path: Path) -> None:
    out = tmp_path / "loads.csv"
    argv = ["loads", str(CAR), "--mass", "280", "--case", "bump", "--sweep", "stroke:FL_Damper"]
    assert main([*argv, "--from", "-10", "--to", "10", "--steps", "5", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert sorted(table["step"].unique()) == [0, 1, 2, 3, 4]
    model = suspension_sim.load(CAR)
    wheel = next(w for w in model.car.wheels if w.name == "FL")
    for step, stroke in zip(range(5), np.linspace(-10, 10, 5), strict=True):
        rows = table[(table["step"] == step) & (table["body"] == "FL_Damper")]
        assert len(rows) == 2
        applied = table[(table["step"] == step) & (table["point"] == "FL contact patch (applied)")]
        assert np.abs(applied[["Fx_N", "Fy_N"]].to_numpy()).max() < 1e-9  # vertical only
        fz = float(applied["Fz_N"].iloc[0])
        h = 1e-3
        z = [_contact_z(model.solve(shocks={"FL_Damper": stroke + d}), wheel) for d in (-h, h)]
        dz_ds = (z[1] - z[0]) / (2 * h)
        force = -float(rows["axial_N"].iloc[0])  # + = compression
        assert force == pytest.approx(fz * dz_ds, rel=1e-6)


def _contact_z(pose: object, wheel: object) -> float:
    """Height of the tyre's lowest point (mm): the circle of radius r about the wheel
    centre C in the plane normal to the spin axis, lowest along world z."""
    pts = pose.points  # type: ignore[attr-defined]  # world frame (chassis state 0 here)
    c = pts.loc[wheel.centre].to_numpy(dtype=float)  # type: ignore[attr-defined]
    s = pts.loc[wheel.axis_point].to_numpy(dtype=float) - c  # type: ignore[attr-defined]
    s /= np.linalg.norm(s)
    down = np.array([0.0, 0.0, -1.0]) - s * -s[2]
    return float((c + wheel.tyre_radius * down / np.linalg.norm(down))[2])  # type: ignore[attr-defined]


def test_sweep_refuses_one_pose_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loads", str(CAR), "--mass", "280", "--sweep", "heave", "--rack", "3"]) == 2
    assert "--rack" in capsys.readouterr().err
    assert main(["loads", str(CAR), "--mass", "280", "--steps", "3"]) == 2
    assert "--steps: needs --sweep" in capsys.readouterr().err
