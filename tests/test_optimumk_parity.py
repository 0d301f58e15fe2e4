"""OptimumK parity against an independent SolveSpace reference (issue 21).

validation/optimumk_slvs/ holds a full car written as OptimumK-layout suspension and
vehicle-setup exports (front.xlsx, rear.xlsx, vehicle.xlsx) and a result export
(export.xlsx, OptimumK's result layout) made by make_reference.py: the car moved in
OptimumK's motion style (heave, roll, pitch, steering, then all four at once) and solved
by SolveSpace (`slvs`), with every channel computed from the solved points by that
script's own code (OptimumK's definitions, rates by central differences of slvs
solves). It does not import suspension_sim. Here the layout files go through our
importer and `validate` compares the export with no channel map.

The exports are committed (making them takes SolveSpace ~20 s); this test only reads them.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import openpyxl
import pytest

import suspension_sim
from suspension_sim.api import Model
from suspension_sim.validation import read_export, validate
from suspension_sim.workbook import write_car
from suspension_sim.workbook.optimumk import read_optimumk

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "validation" / "optimumk_slvs"
EXPORT = CASE / "export.xlsx"
HEADER_ROW = 8  # the export's header row (1-based); Step [n] is row HEADER_ROW + 5 + n


@pytest.fixture(scope="module")
def car_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    car = read_optimumk(CASE / "front.xlsx", rear=CASE / "rear.xlsx", vehicle=CASE / "vehicle.xlsx")
    return write_car(car, tmp_path_factory.mktemp("okslvs") / "car.xlsx")


@pytest.fixture(scope="module")
def model(car_path: Path) -> Model:
    return suspension_sim.load(car_path)


def test_the_imported_car_is_the_reference_car(car_path: Path) -> None:
    """The layout files and make_reference.py describe the same car: every point the
    importer builds (hard points, and the wheel centre and spin-axis point it makes from
    the Wheels block) equals the script's own, which it placed by OptimumK's definitions
    (contact patch at the Vertical Offset, s0 = unit(-tan toe, side, -tan camber))."""
    # by file, under its own name (validation/fsae_car_slvs has a make_reference.py too)
    sys.path.insert(0, str(CASE.parent))  # refkit
    sys.path.insert(0, str(CASE))  # okfiles
    try:
        spec = importlib.util.spec_from_file_location(
            "optimumk_slvs_make_reference", CASE / "make_reference.py"
        )
        assert spec is not None and spec.loader is not None
        make_reference = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = make_reference  # its dataclasses look themselves up
        spec.loader.exec_module(make_reference)
    finally:
        sys.path.remove(str(CASE))
        sys.path.remove(str(CASE.parent))
    ref, _ = make_reference.build_car()
    ours = suspension_sim.workbook.read_car(car_path).point_map()
    rename = {"_WC": "_WheelCentre", "_WA": "_WheelAxis"}
    assert len(ref.points) == 64
    for name, p in ref.points.items():
        key = next((name.replace(a, b) for a, b in rename.items() if name.endswith(a)), name)
        assert np.allclose(ours[key], p, atol=1e-9), (name, ours[key], p)


def test_every_established_channel_matches_the_solvespace_reference(model: Model) -> None:
    export = read_export(EXPORT)
    result = validate(model, export)
    assert result.passed, result.summary()
    assert len(result.compared) >= 150
    # far inside the tolerances: the two solutions agree to the reference's rounding and
    # central differences (angles 1e-8 deg, lengths 1e-4 mm in this motion)
    for c in result.compared:
        if c.unit == "deg":
            assert c.max_abs < 1e-6, (c.channel, c.max_abs)
        elif c.unit == "mm":
            assert c.max_abs < 1e-3, (c.channel, c.max_abs)
        assert c.max_abs < 0.1 * c.tolerance, (c.channel, c.max_abs, c.tolerance)
    names = {(c.quantity, c.location) for c in result.compared}
    for expected in (
        ("Camber Angle Gain in Roll", "Rear Left"),
        ("Motion Ratio Heave", "Front Right"),
        ("Steering Ratio", "Front Left"),
        ("Roll Center Z", "Rear"),
        ("Anti-Squat Percentage", "Left"),
        ("Wheelbase", ""),
        ("Center of Gravity Z", ""),
        ("UPRI_LowPnt X", "Front Left"),
        ("Ackerman Percentage", "Front"),
    ):
        assert expected in names, expected
    # what the definitions leave open is listed, not compared
    reasons = dict(result.not_compared)
    for header in (
        "Camber Angle Gain in Pitch [Left] [Front] (deg/deg)",
        "Motion Ratio Pitch [Right] [Rear] (deg/mm)",
        "Instant Turn Radius [Front] (mm)",
    ):
        assert reasons[header].startswith("OptimumK's definition not established"), header
    assert reasons["Virtual King Pin Inclination [Left] [Front]"].startswith("always blank")
    # the tie-rod view angles are established except under pitch: compared at the 33 steps
    # without pitch (heave, roll, steering), not at the 24 with it
    tie = [c for c in result.compared if c.quantity.startswith("Tie Rod") and c.unit == "deg"]
    assert len(tie) == 8
    for c in tie:
        assert c.notes[0].startswith("compared at the 33 step(s) where it is established")
        assert c.max_abs < 1e-8, (c.channel, c.max_abs)


def _export_columns(path: Path) -> dict[str, np.ndarray]:
    """{header: values per step} of a result export (its Step [n] rows)."""
    wb = openpyxl.load_workbook(path, read_only=True)
    rows = list(wb.active.iter_rows(values_only=True))
    steps = [r for r in rows if isinstance(r[0], str) and r[0].startswith("Step [")]
    headers = rows[HEADER_ROW - 1]
    return {
        h: np.array([r[j] for r in steps], dtype=float)
        for j, h in enumerate(headers)
        if isinstance(h, str)
    }


def test_the_reference_takes_the_tie_rod_angles_in_the_chassis_frame() -> None:
    """The definitions give the tie-rod view angles in the chassis frame under roll. From
    the export's own world points: the angle in world axes equals the reference's where
    the chassis is not rotated (heave and steering steps) and is more than the 0.02 deg
    tolerance away from it at the roll steps (the rack's tie rod swings with the chassis)."""
    cols = _export_columns(EXPORT)
    tag = "[Left] [Front]"
    d = np.stack(
        [cols[f"UPRI_TiePnt {a} {tag} (mm)"] - cols[f"CHAS_TiePnt {a} {tag} (mm)"] for a in "XYZ"],
        axis=1,
    )
    u = d / np.linalg.norm(d, axis=1)[:, None]
    world = np.degrees(np.arcsin(np.abs(u[:, 2])))
    ref = cols[f"Tie Rod Front View Angle {tag} (deg)"]
    roll, pitch = cols["Motion [Roll] (deg)"], cols["Motion [Pitch] (deg)"]
    still = (roll == 0.0) & (pitch == 0.0)
    assert still.sum() >= 20
    assert np.abs(world - ref)[still].max() < 1e-8
    rolled = np.abs(roll) >= 1.0
    assert rolled.sum() >= 8
    assert np.abs(world - ref)[rolled].min() > 0.1


def test_without_steering_the_front_centres_are_compared_too(model: Model) -> None:
    """The same motion without steering (export_unsteered.xlsx): OptimumK's front instant
    centres are established for an unsteered upright, so the front roll centre, the pitch
    centres, anti-dive and the roll axis are compared as well, and match."""
    result = validate(model, read_export(CASE / "export_unsteered.xlsx"))
    assert result.passed, result.summary()
    assert len(result.compared) >= 400
    for c in result.compared:
        assert c.max_abs < 0.1 * c.tolerance, (c.channel, c.max_abs, c.tolerance)
    names = {(c.quantity, c.location) for c in result.compared}
    for expected in (
        ("Roll Center Z", "Front"),
        ("Roll Center (Ground) Y", "Front"),
        ("Pitch Center X", "Left"),
        ("Pitch Center (Ground) Z", "Right"),
        ("Anti-Dive Percentage", "Left"),
        ("Front View Instant Center Y", "Front Right"),
        ("Side View Swing Arm Angle", "Front Left"),
        ("Roll Axis Inclination Angle", ""),
    ):
        assert expected in names, expected


def test_one_channel_out_by_just_over_the_tolerance_fails_by_name_and_corner(
    model: Model,
    tmp_path: Path,
) -> None:
    """An angle 0.03 deg off at one step and a length 0.15 mm off at another (the default
    tolerances are 0.02 deg and 0.1 mm): exactly those two channels fail, at those steps."""
    wb = openpyxl.load_workbook(EXPORT)
    ws = wb.active
    assert ws is not None
    headers = {ws.cell(HEADER_ROW, c).value: c for c in range(1, ws.max_column + 1)}
    changes = {
        ("Camber Angle [Right] [Rear] (deg)", 20): 0.03,
        ("Push/Pull Length [Left] [Front] (mm)", 47): -0.15,
    }
    for (header, step), delta in changes.items():
        cell = ws.cell(HEADER_ROW + 5 + step, headers[header])
        assert ws.cell(cell.row, 1).value == f"Step [{step}]"
        cell.value = float(cell.value) + delta
    bad = tmp_path / "perturbed.xlsx"
    wb.save(bad)
    result = validate(model, read_export(bad))
    assert not result.passed
    failed = {c.channel: c for c in result.failed_channels}
    assert sorted(failed) == ["Camber Angle Rear Right", "Push/Pull Length Front Left"]
    camber, rod = failed["Camber Angle Rear Right"], failed["Push/Pull Length Front Left"]
    assert camber.location == "Rear Right" and rod.location == "Front Left"
    assert camber.at_step == 20 and camber.max_abs == pytest.approx(0.03, abs=1e-6)
    assert rod.at_step == 47 and rod.max_abs == pytest.approx(0.15, abs=1e-6)
    assert "Camber Angle Rear Right" in result.summary()
    assert "Push/Pull Length Front Left" in result.summary()
