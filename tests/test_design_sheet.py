"""The design sheet (`suspension-sim report`, the short tables of `check` and `solve`):
the same numbers as a sweep's design row, mirror-equal on a symmetric car, and the
camber, toe, caster, KPI, scrub and trail a hand-built car was given."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _metric_cars import fixed_wheel_car, wishbone_car
from scipy.spatial.transform import Rotation

import suspension_sim
from suspension_sim.cli import main
from suspension_sim.description import Car, Point
from suspension_sim.outputs.design_sheet import (
    DesignSheet,
    design_sheet,
    format_design_sheet,
    format_value,
)
from suspension_sim.sweeps.run import run_sweep
from suspension_sim.sweeps.spec import MotionSpec, SweepSpec
from suspension_sim.workbook import write_car

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"


@pytest.fixture(scope="module")
def example() -> suspension_sim.Model:
    return suspension_sim.load(EXAMPLE)


def cells(sheet: DesignSheet) -> dict[tuple[str, str], float]:
    """{(row label, column): value} over every table."""
    return {
        (r.label, c): v
        for t in sheet.tables
        for r in t.rows
        for c, v in zip(t.columns, r.values, strict=True)
    }


@pytest.mark.parametrize("convention", ["iso", "optimumk"])
def test_values_equal_the_sweeps_design_row(example: suspension_sim.Model, convention: str) -> None:
    sheet = design_sheet(example.solve(), convention)
    design = SweepSpec("design", MotionSpec("heave", (0.0,)))
    result = run_sweep(example, design, convention=convention, keep_poses=False)
    row = result.table.iloc[0]
    compared = 0
    for table in sheet.tables:
        for r in table.rows:
            for key, value in zip(r.keys, r.values, strict=True):
                if key is None:  # does not apply (anti-dive on a rear wheel)
                    assert math.isnan(value)
                    continue
                expected = r.quantity.scale * float(row[key])
                if math.isnan(expected):  # Ackermann straight ahead
                    assert math.isnan(value)
                    continue
                # the sheet solves its tangents per pose, the sweep table for all rows at
                # once (metrics.batch): the same formulas, so equal to rounding
                assert value == pytest.approx(expected, rel=1e-9, abs=1e-8), (r.label, key)
                compared += 1
    # 13 rows on every wheel, 3 antis on two wheels each, track and roll centre (2 rows)
    # on both axles (Ackermann is blank straight ahead), wheelbase on both sides
    labels = {r.label for t in sheet.tables for r in t.rows}
    assert len(labels) == 21
    assert compared == 4 * 13 + 3 * 2 + 3 * 2 + 2
    assert sheet.convention == convention


def test_symmetric_car_gives_mirror_equal_sides(example: suspension_sim.Model) -> None:
    sheet = design_sheet(example.solve(), "iso")
    wheels = next(t for t in sheet.tables if t.title == "per wheel")
    for r in wheels.rows:
        v = dict(zip(wheels.columns, r.values, strict=True))
        for left, right in (("FL", "FR"), ("RL", "RR")):
            if math.isnan(v[left]):
                assert math.isnan(v[right]), r.label
            else:
                assert v[left] == pytest.approx(v[right], abs=1e-9), r.label
    values = cells(sheet)
    assert values[("wheelbase [mm]", "left")] == pytest.approx(values[("wheelbase [mm]", "right")])
    for axle in ("front", "rear"):
        assert abs(values[("roll centre lateral offset [mm]", axle)]) < 1e-6
        # half tracks of one axle add up to its track
        track = values[("track [mm]", axle)]
        halves = [values[("half track [mm]", w)] for w in wheels.columns if w[0] == axle[0].upper()]
        assert sum(halves) == pytest.approx(track, abs=1e-9)
    # derived rows: camber gain per 25 mm is 25 x the per-mm value; bump steer likewise
    for w in wheels.columns:
        for name in ("camber gain", "bump steer"):
            per_mm = next(k for k in values if k[0].startswith(f"{name} [deg/mm]") and k[1] == w)
            per_25 = next(k for k in values if k[0].startswith(f"{name} [deg/25 mm]") and k[1] == w)
            assert values[per_25] == pytest.approx(25.0 * values[per_mm], rel=1e-12)


def test_optimumk_flips_only_toe_and_bump_steer(example: suspension_sim.Model) -> None:
    pose = example.solve(rack=5.0)
    iso, ok = cells(design_sheet(pose, "iso")), cells(design_sheet(pose, "optimumk"))
    for (label, column), value in iso.items():
        if label.startswith(("toe", "bump steer")):
            other = ok[(label.replace("(+ in)", "(+ out)"), column)]
            assert other == -value
        elif not math.isnan(value):
            assert ok[(label, column)] == value, label


TILT_TURN = {"F": (2.0, 0.5), "R": (1.0, -0.2)}
"""Per axle: the wheels' top tilted inboard by this much, then the front turned toward +Y
(deg)."""
INCLINE = {"F": -4.0, "R": 0.0}
"""Per axle: the side-view tilt of every pivot axis (`wishbone_car`), deg."""


def xyz(p: np.ndarray) -> tuple[float, float, float]:
    return float(p[0]), float(p[1]), float(p[2])


def hand_car() -> tuple[dict[tuple[str, str], float], Car]:
    """`wishbone_car` on four corners with known spin axes and pivot inclines, and the
    sheet values that construction gives (iso signs, deg and mm)."""
    car = wishbone_car(("FL", "FR", "RL", "RR"), incline_deg=INCLINE)
    points = {p.name: np.array(p.xyz) for p in car.points}
    truth: dict[tuple[str, str], float] = {}
    for corner in ("FL", "FR", "RL", "RR"):
        side = 1.0 if corner[1] == "L" else -1.0
        tilt, turn = TILT_TURN[corner[0]]
        spin = (
            Rotation.from_euler("z", turn, degrees=True)
            * Rotation.from_euler("x", side * tilt, degrees=True)
        ).apply([0.0, side, 0.0])
        points[f"{corner}_WA"] = points[f"{corner}_WC"] + 50.0 * spin
        a = np.radians(INCLINE[corner[0]])
        lower, upper = points[f"{corner}_LBJ"], points[f"{corner}_UBJ"]
        k = (upper - lower) / np.linalg.norm(upper - lower)
        # Hand truths: tilting the top inboard is negative camber; turning the front
        # toward +Y is toe-out on the left, toe-in on the right. The kingpin (0, -20, 200)
        # of a left corner in front view, turned by the incline a about Y: caster -a,
        # inclination atan(20 / (200 cos a)).
        truth[("camber [deg]", corner)] = -tilt
        truth[("toe [deg] (+ in)", corner)] = -side * turn
        truth[("caster [deg]", corner)] = -np.degrees(a)
        truth[("KPI [deg]", corner)] = np.degrees(np.arctan2(20.0, 200.0 * np.cos(a)))
        wc = points[f"{corner}_WC"]
        truth[("spindle length [mm]", corner)] = float(np.linalg.norm(np.cross(wc - lower, k)))
    moved = tuple(Point(p.name, xyz(points[p.name])) for p in car.points)
    return truth, dataclasses.replace(car, points=moved)


def test_report_shows_the_alignment_a_car_was_built_with(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    truth, car = hand_car()
    workbook = write_car(car, tmp_path / "hand.xlsx")
    out = tmp_path / "design.csv"
    assert main(["report", str(workbook), "--convention", "iso", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = pd.read_csv(out, index_col="quantity")
    header = next(x for x in lines if x.strip().startswith("per wheel")).split()[2:]
    for (label, corner), value in truth.items():
        assert table.loc[label, corner] == pytest.approx(value, abs=1e-9), (label, corner)
        line = next(x for x in lines if x.strip().startswith(label))
        unit = label.split("[")[1].split("]")[0]
        shown = line[len(line) - len(line.lstrip()) + len(label) :].split()
        assert shown[header.index(corner)] == format_value(value, unit), (label, corner)
    # toe-out positive in the optimumk convention; camber, caster, KPI unchanged
    out_ok = tmp_path / "design_ok.csv"
    assert main(["report", str(workbook), "--convention", "optimumk", "--out", str(out_ok)]) == 0
    ok = pd.read_csv(out_ok, index_col="quantity")
    for (label, corner), value in truth.items():
        if label.startswith("toe"):
            assert ok.loc["toe [deg] (+ out)", corner] == pytest.approx(-value, abs=1e-9)
        else:
            assert ok.loc[label, corner] == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("side", [1, -1])
def test_report_shows_the_kingpin_a_fixed_wheel_was_built_with(side: int, tmp_path: Path) -> None:
    """`fixed_wheel_car`: a vertical wheel whose kingpin axis meets the ground `scrub`
    inboard of and `trail` ahead of the contact point (0, 600 side, 0), with the given
    caster (top rearward) and inclination (top inboard). No joint moves, so the sheet
    has the geometry rows only."""
    caster, kpi, scrub, trail = 6.0, 8.0, 35.0, 18.0
    ground = np.array([trail, side * (600.0 - scrub), 0.0])
    k = np.array([-np.tan(np.radians(caster)), -side * np.tan(np.radians(kpi)), 1.0])
    name = "FL" if side > 0 else "FR"
    centre = np.array([0.0, side * 600.0, 260.0])
    car = fixed_wheel_car(centre, [0.0, side, 0.0], (ground + 120 * k, ground + 330 * k), name)
    workbook = write_car(car, tmp_path / "fixed.xlsx")
    out = tmp_path / "design.csv"
    assert main(["report", str(workbook), "--out", str(out)]) == 0
    table = pd.read_csv(out, index_col="quantity")
    truth = {
        "camber [deg]": 0.0,
        "toe [deg] (+ in)": 0.0,
        "caster [deg]": caster,
        "KPI [deg]": kpi,
        "scrub radius [mm]": scrub,
        "mechanical trail [mm]": trail,
        "half track [mm]": 600.0,
    }
    for label, value in truth.items():
        assert table.loc[label, name] == pytest.approx(value, abs=1e-9), label
    assert "motion ratio [damper/wheel]" not in table.index


def test_report_outputs_and_their_safety(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    workbook = tmp_path / "car.xlsx"
    workbook.write_bytes(EXAMPLE.read_bytes())
    xlsx = tmp_path / "design.xlsx"
    args = ["report", str(workbook)]
    assert main([*args, "--out", str(xlsx), "--into-workbook"]) == 0
    sheet = design_sheet(suspension_sim.load(workbook).solve())
    expected = sheet.frame()
    for written in (
        pd.read_excel(xlsx, index_col=0, sheet_name="Design sheet"),
        pd.read_excel(workbook, index_col=0, sheet_name="Design sheet"),
    ):
        assert list(written.index) == list(expected.index)
        assert list(written.columns) == list(expected.columns)
        assert np.allclose(written.to_numpy(float), expected.to_numpy(), equal_nan=True, atol=0)
    capsys.readouterr()
    # an existing sheet or .xlsx is only replaced with --force, refused before solving
    # (this rack travel cannot be reached: a solve would exit 3)
    saved = workbook.read_bytes()
    assert main([*args, "--into-workbook", "--rack", "200"]) == 2
    assert "already has a sheet 'Design sheet'" in capsys.readouterr().err
    assert main([*args, "--out", str(xlsx), "--rack", "200"]) == 2
    assert main([*args, "--out", str(workbook), "--force"]) == 2
    assert workbook.read_bytes() == saved
    assert main([*args, "--into-workbook", "--force"]) == 0
    sheets = pd.ExcelFile(workbook).sheet_names
    assert sheets.count("Design sheet") == 1
    # a pose that does not close writes nothing and exits 3
    fresh = tmp_path / "fresh.csv"
    assert main([*args, "--rack", "200", "--out", str(fresh)]) == 3
    assert not fresh.exists()
    # a read-only workbook is never changed
    workbook.chmod(0o444)
    try:
        before = workbook.read_bytes()
        assert main([*args, "--into-workbook", "--force"]) == 2
        assert workbook.read_bytes() == before
    finally:
        workbook.chmod(0o644)


def test_check_and_solve_print_the_short_sheet(
    example: suspension_sim.Model, capsys: pytest.CaptureFixture
) -> None:
    assert main(["check", str(EXAMPLE)]) == 0
    checked = capsys.readouterr().out
    short = format_design_sheet(design_sheet(example.solve(), short=True)).splitlines()[1:]
    assert "Design condition (iso signs" in checked
    assert "\n".join(short) in checked
    assert "anti-dive" not in checked and "roll centre height [mm]" in checked

    assert main(["solve", str(EXAMPLE), "--shocks", "10", "10", "5", "5", "--rack", "5"]) == 0
    solved = capsys.readouterr().out
    pose = example.solve(shocks=[10, 10, 5, 5], rack=5.0)
    short = format_design_sheet(design_sheet(pose, short=True)).splitlines()[1:]
    assert "\n".join(short) in solved
    camber = next(x for x in solved.splitlines() if x.strip().startswith("camber [deg]"))
    from suspension_sim.metrics import pose_metrics

    assert camber.split()[2] == format_value(pose_metrics(pose)["camber_FL_deg"], "deg")


def test_format_value_has_one_precision_per_unit() -> None:
    assert format_value(-1e-13, "deg") == "0.000"
    assert format_value(1.23456, "mm") == "1.23"
    assert format_value(-0.032555, "deg/mm") == "-0.03256"
    assert format_value(float("nan"), "%") == "-"


def test_contact_points_off_the_ground_are_noted_with_their_heights() -> None:
    """The SolveSpace reference car is imported from OptimumK files whose Vertical Offset
    is 4.73168606 mm (front) and 4.27201516 mm (rear): its contact points sit there, and
    the sheet says so; the example car's are on z = 0 and get no such note."""
    from suspension_sim.outputs.design_sheet import design_sheet, ground_note

    root = Path(__file__).parent.parent
    imported = suspension_sim.load(root / "validation" / "optimumk_slvs" / "car.xlsx")
    note = ground_note(imported)
    assert note is not None
    assert "z = 4.73 mm (FL, FR), 4.27 mm (RL, RR)" in note
    assert note in design_sheet(imported.solve(), "optimumk").notes
    assert ground_note(suspension_sim.load(root / "workbooks" / "fsae_car.xlsx")) is None
