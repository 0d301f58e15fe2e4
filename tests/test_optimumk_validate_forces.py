"""validate on OptimumK force results, against the independent SolveSpace reference.

validation/optimumk_slvs/make_reference.py (which never imports suspension_sim) wrote
export_forces.xlsx: the reference car moved in OptimumK's motion style (heave, roll,
pitch and steering at once, 13 steps) under the force-case keyframes force_keys.csv
(ramped with Motion [Completion Percentage], each load on the world-fixed line through
the design contact patch, Mz applied). Its force channels come from virtual work over
central differences of slvs solves: the tension of every two-force member (CoilOver,
Push/Pull, Tie Rod) with its length varied, the A-arm pivot forces with the pivot moved
(a support's reaction), the steering torque with the steering wheel turned. Nothing of
our statics is used. export_forces_held.xlsx holds the plain case HELD_CASE constant
over a heave and roll motion (7 steps).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pytest

import suspension_sim
from suspension_sim.api import Model
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.loads.cases import LoadCase, WheelLoad
from suspension_sim.validation import read_export, validate
from suspension_sim.validation.okforces import SPLIT_NOT_ESTABLISHED
from suspension_sim.validation.okheaders import force_key_of, parse_optimumk_header
from suspension_sim.validation.results import Validation

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "validation" / "optimumk_slvs"
CAR = CASE / "car.xlsx"
EXPORT = CASE / "export_forces.xlsx"
HELD = CASE / "export_forces_held.xlsx"
KEYS = CASE / "force_keys.csv"
HEADER_ROW = 8  # 1-based; the statistic rows follow, then Step [n] at HEADER_ROW + 5 + n
HELD_CASE = {  # make_reference.HELD_CASE: Fx Fy Fz (N), Mx My Mz (N m)
    "FL": (0.0, 0.0, 1000.0, 0.0, 0.0, 0.0),
    "FR": (0.0, -500.0, 800.0, 0.0, 0.0, 0.0),
    "RL": (0.0, 0.0, 900.0, 0.0, 0.0, 0.0),
    "RR": (300.0, 0.0, 900.0, 0.0, 0.0, 20.0),
}


@pytest.fixture(scope="module")
def model() -> Model:
    return suspension_sim.load(CAR)


@pytest.fixture(scope="module")
def keyed(model: Model) -> Validation:
    return validate(model, read_export(EXPORT), force_keyframes=KEYS)


def _edit(src: Path, dst: Path, change: dict[str, tuple[int, float]]) -> Path:
    """A copy of an export with cells changed: {header: (step, added value)}; a header
    mapped to (-1, factor) has its unit word replaced (see `_unit`)."""
    wb = openpyxl.load_workbook(src)
    ws = wb.active
    assert ws is not None
    headers = {ws.cell(HEADER_ROW, c).value: c for c in range(1, ws.max_column + 1)}
    for header, (step, delta) in change.items():
        c = headers[header]
        cell = ws.cell(HEADER_ROW + 5 + step, c)
        cell.value = float(cell.value) + delta  # type: ignore[arg-type]
    wb.save(dst)
    return dst


def _drop(src: Path, dst: Path, header: str) -> Path:
    wb = openpyxl.load_workbook(src)
    ws = wb.active
    assert ws is not None
    c = next(c for c in range(1, ws.max_column + 1) if ws.cell(HEADER_ROW, c).value == header)
    ws.delete_cols(c)
    wb.save(dst)
    return dst


# -- names ---------------------------------------------------------------------------------
def test_one_normal_form_for_headers_and_our_keys() -> None:
    """OptimumK's one-tag corner, the two-tag corner and our optimumk_forces key meet in
    one key; the steering torque's component after its tag is read."""
    a = force_key_of("Lower A-Arm To Chassis (Fore) - Fx [Front Left] (N)")
    b = force_key_of("Lower A-Arm To Chassis (Fore) - Fx [Left] [Front] (kN)")
    c = force_key_of("Lower A-Arm To Chassis (Fore) - Fx [Front Left]")  # our key
    assert a == b == c is not None
    assert force_key_of("Lower A-Arm To Chassis (Aft) - Fx [Front Left]") != a
    t = parse_optimumk_header("Steering Torque [Front] Mz (N m)")
    assert t is not None and t.kind == "force" and t.axle == "Front" and t.unit == "N m"
    assert force_key_of("Steering Torque [Front] Mz") == force_key_of(t.text)
    assert force_key_of("Camber Angle [Left] [Front] (deg)") is None


# -- the keyframes reference ---------------------------------------------------------------
def test_keyframes_reference_passes_with_no_map(keyed: Validation) -> None:
    assert keyed.passed, keyed.summary()
    names = {c.channel for c in keyed.compared}
    for corner in ("Front Left", "Front Right", "Rear Left", "Rear Right"):
        for channel in (
            "CoilOver To Rocker - Fx",
            "Push/Pull To Rocker - Fz",
            "Contact Patch - Mz",
        ):
            assert f"{channel} {corner}" in names
    assert "Steering Torque Mz Front" in names
    # the A-arm with only its ball joint (front lower, rear upper): pivots compared as is
    assert "Lower A-Arm To Chassis (Fore) - Fy Front Left" in names
    assert "Upper A-Arm To Chassis (Aft) - Fz Rear Right" in names
    # independent statics agree far inside the 1 N tolerance (2e-4 N when written)
    assert max(c.max_abs for c in keyed.compared if c.unit == "N") < 0.01
    assert max(c.max_abs for c in keyed.compared if c.unit == "N m") < 0.01
    # forces of kN: the comparison is not trivially of zeros
    cp = next(c for c in keyed.compared if c.channel == "CoilOver To Rocker - Fx Front Left")
    assert np.abs(cp.theirs).max() > 1000.0


def test_pivot_split_along_axis_is_listed_not_compared(keyed: Validation) -> None:
    """The A-arm carrying the push/pull (front upper, rear lower): every world component
    of its pivot forces is listed as not established; its sum and the components normal
    to the pivot axis are compared instead."""
    split = sorted(t for t, r in keyed.not_compared if r == SPLIT_NOT_ESTABLISHED)
    assert len(split) == 24  # 2 arms x 2 corners x 2 legs x Fx Fy Fz
    assert "Upper A-Arm To Chassis (Fore) - Fx [Front Left] (N)" in split
    assert "Lower A-Arm To Chassis (Aft) - Fz [Rear Right] (N)" in split
    assert not any("Lower A-Arm" in t and "Front" in t for t in split)
    names = {c.channel for c in keyed.compared}
    assert "Upper A-Arm To Chassis (Fore + Aft) - Fx Front Left" in names
    assert "Upper A-Arm To Chassis (Aft, normal to pivot axis) - Fz Front Right" in names
    assert "Lower A-Arm To Chassis (Fore, normal to pivot axis) - Fy Rear Left" in names
    derived = [c for c in keyed.compared if "(Fore + Aft)" in c.channel or "normal" in c.channel]
    assert len(derived) == 4 * (3 + 6)


def test_a_force_off_by_2_n_fails_by_channel_and_corner(model: Model, tmp_path: Path) -> None:
    bad = _edit(
        EXPORT, tmp_path / "bad.xlsx", {"Push/Pull To Rocker - Fy [Rear Right] (N)": (6, 2.0)}
    )
    v = validate(model, read_export(bad), force_keyframes=KEYS)
    assert not v.passed
    failed = [c.channel for c in v.failed_channels]
    assert failed == ["Push/Pull To Rocker - Fy Rear Right"]
    res = v.failed_channels[0]
    assert res.location == "Rear Right" and res.at_step == 6
    assert res.max_abs == pytest.approx(2.0, abs=0.01)
    assert "Push/Pull To Rocker - Fy Rear Right" in v.summary()


def test_along_axis_split_is_not_judged_but_a_normal_error_is(model: Model, tmp_path: Path) -> None:
    """At step 0 (the design: chassis = world) move 50 N along the front-left upper arm's
    pivot axis from its Fore to its Aft pivot: sum and normal components unchanged, still
    a pass. 2 N on the Fore pivot's Fz alone fails the derived channels."""
    axis = model.car.point("FL_CHAS_UppAft") - model.car.point("FL_CHAS_UppFor")
    axis = axis / np.linalg.norm(axis)
    moved = {
        f"Upper A-Arm To Chassis ({leg}) - {comp} [Front Left] (N)": (0, sign * 50.0 * axis[k])
        for leg, sign in (("Fore", 1.0), ("Aft", -1.0))
        for k, comp in enumerate(("Fx", "Fy", "Fz"))
    }
    v = validate(
        model, read_export(_edit(EXPORT, tmp_path / "a.xlsx", moved)), force_keyframes=KEYS
    )
    assert v.passed, v.summary()
    bad = {"Upper A-Arm To Chassis (Fore) - Fz [Front Left] (N)": (0, 2.0)}
    v = validate(model, read_export(_edit(EXPORT, tmp_path / "b.xlsx", bad)), force_keyframes=KEYS)
    failed = {c.channel for c in v.failed_channels}
    assert "Upper A-Arm To Chassis (Fore + Aft) - Fz Front Left" in failed
    assert "Upper A-Arm To Chassis (Fore, normal to pivot axis) - Fz Front Left" in failed
    assert all("Front Left" in c for c in failed)


def test_units_of_force_headers(model: Model, tmp_path: Path) -> None:
    """A channel written in kN and one in N mm (values converted) still pass."""
    wb = openpyxl.load_workbook(EXPORT)
    ws = wb.active
    assert ws is not None
    for c in range(1, ws.max_column + 1):
        text = ws.cell(HEADER_ROW, c).value
        if text == "CoilOver To Chassis - Fz [Front Right] (N)":
            ws.cell(HEADER_ROW, c).value = text.replace("(N)", "(kN)")
            factor = 1e-3
        elif text == "Steering Torque [Front] Mz (N m)":
            ws.cell(HEADER_ROW, c).value = text.replace("(N m)", "(N mm)")
            factor = 1e3
        else:
            continue
        for r in range(HEADER_ROW + 1, ws.max_row + 1):
            ws.cell(r, c).value = float(ws.cell(r, c).value) * factor  # type: ignore[arg-type]
    wb.save(tmp_path / "units.xlsx")
    v = validate(model, read_export(tmp_path / "units.xlsx"), force_keyframes=KEYS)
    assert v.passed, v.summary()
    units = {c.column.header.unit for c in v.compared}
    assert {"kN", "N mm"} <= units


# -- a workbook case held over the motion --------------------------------------------------
def _with_cases(tmp_path: Path, rows: list[list[object]]) -> Path:
    path = shutil.copy(CAR, tmp_path / "car.xlsx")
    wb = openpyxl.load_workbook(path)
    ws = wb.create_sheet("Load Cases")
    ws.append(["Case", "Wheel", "Fx", "Fy", "Fz", "Brake torque", "Drive torque", "Axes",
               "Description", "Mx", "My", "Mz"])  # fmt: skip
    for row in rows:
        ws.append(row)
    index = wb["Index"]
    free = next(r for r in range(1, 50) if index.cell(r, 1).value is None)
    index.cell(free, 1, "Load Cases")
    index.cell(free, 2, f"'Load Cases'!A1:L{1 + len(rows)}")
    wb.save(path)
    return Path(path)


def _held_rows(name: str = "held", fz_fl: float = 1000.0) -> list[list[object]]:
    rows: list[list[object]] = []
    for wheel, (fx, fy, fz, mx, my, mz) in HELD_CASE.items():
        fz = fz_fl if wheel == "FL" else fz
        rows.append([name, wheel, fx, fy, fz, None, None, "world", None, mx, my, mz])
    return rows


def test_load_cases_case_held_constant(tmp_path: Path) -> None:
    """The plain case of export_forces_held.xlsx as a Load Cases case: every channel
    passes; by hand, the contact patch channels are the case's numbers at every step,
    and 1002 N instead of 1000 N on FL fails exactly that channel by 2 N."""
    path = _with_cases(tmp_path, _held_rows() + _held_rows("heavier", 1002.0))
    model = suspension_sim.load(path)
    export = read_export(HELD)
    v = validate(model, export, force_case="held", workbook=path)
    assert v.passed, v.summary()
    fz = next(c for c in v.compared if c.channel == "Contact Patch - Fz Front Left")
    assert np.array_equal(fz.ours, np.full(export.n_steps, 1000.0))
    mz = next(c for c in v.compared if c.channel == "Contact Patch - Mz Rear Right")
    assert np.array_equal(mz.ours, np.full(export.n_steps, 20.0))
    w = validate(model, export, force_case="heavier", workbook=path)
    fz = next(c for c in w.compared if c.channel == "Contact Patch - Fz Front Left")
    assert not fz.passed and fz.max_abs == pytest.approx(2.0, abs=1e-9)
    assert any("'held'" in n for n in v.warnings)


# -- errors --------------------------------------------------------------------------------
def test_keyframes_need_completion_percentage(model: Model, tmp_path: Path) -> None:
    bare = _drop(EXPORT, tmp_path / "bare.xlsx", "Motion [Completion Percentage] (%)")
    with pytest.raises(InputError) as exc:
        validate(model, read_export(bare), force_keyframes=KEYS)
    assert exc.value.where == "force_keyframes"
    assert "Motion [Completion Percentage]" in exc.value.message


def test_case_errors(model: Model, tmp_path: Path) -> None:
    export = read_export(HELD)
    path = _with_cases(tmp_path, _held_rows())
    with pytest.raises(InputError) as exc:
        validate(model, export, force_case="hled", workbook=path)
    assert exc.value.where == "force_case" and "did you mean 'held'" in exc.value.message.lower()
    braking = LoadCase("braking", {"FL": WheelLoad((0.0, 0.0, 1000.0), brake_torque=300.0)})
    with pytest.raises(InputError) as exc:
        validate(model, export, force_case=braking)
    assert exc.value.where == "force_case" and "brake or drive torque" in exc.value.message
    wheel_axes = LoadCase("w", {"FL": WheelLoad((0.0, 100.0, 1000.0), axes="wheel")})
    with pytest.raises(InputError) as exc:
        validate(model, export, force_case=wheel_axes)
    assert exc.value.where == "force_case" and "world axes" in exc.value.message


def test_cli_names_the_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bare = _drop(EXPORT, tmp_path / "bare.xlsx", "Motion [Completion Percentage] (%)")
    code = main(["validate", str(CAR), str(bare), "--force-keyframes", str(KEYS),
                 "--out", str(tmp_path / "r1"), "--no-plots"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "--force-keyframes" in err and "Completion Percentage" in err
    code = main(["validate", str(CAR), str(HELD), "--force-case", "held",
                 "--out", str(tmp_path / "r2"), "--no-plots"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "--force-case" in err and "no load case 'held'" in err
    code = main(["validate", str(CAR), str(EXPORT), "--force-keyframes", str(KEYS),
                 "--tol-force", "0.5", "--out", str(tmp_path / "r3"), "--no-plots"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    report = (tmp_path / "r3" / "report.md").read_text()
    assert "0.5 N for forces" in report
    assert "Not compared: OptimumK's rule for the split along the pivot axis" in report


# -- a motion channel the export lacks (issue 24) -----------------------------------------
def test_missing_motion_channel_is_named(model: Model, tmp_path: Path) -> None:
    """Without Motion [Roll] the run says roll was taken as 0, and a failing summary
    names the missing channel first."""
    no_roll = _drop(HELD, tmp_path / "no_roll.xlsx", "Motion [Roll] (deg)")
    v = validate(model, read_export(no_roll), force_case=_case())
    assert v.assumed == ["Motion [Roll]"]
    assert any("'Motion [Roll]'" in w and "assumed 0 deg" in w for w in v.warnings)
    assert not v.passed
    assert v.summary().startswith("FAIL: motion channel(s) missing from the export, assumed 0")
    full = validate(model, read_export(HELD), force_case=_case())
    assert full.assumed == [] and full.passed


def _case() -> LoadCase:
    return LoadCase(
        "held",
        {w: WheelLoad((v[0], v[1], v[2]), moment=(v[3], v[4], v[5])) for w, v in HELD_CASE.items()},
    )
