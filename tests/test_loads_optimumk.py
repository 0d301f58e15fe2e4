"""Contact-patch moments, the design-contact-point force line and OptimumK's joint-force
channels (suspension_sim.loads, suspension_sim.optimumk.forces), against independent truths.

Truths: virtual work by central differences of solved poses (the damper and rack
forces equal the power of the loads per mm of stroke or rack, with the force acting at
the material point of the upright that sits on the world-fixed design line and the
moment on the upright's angular velocity); each body's balance summed by hand from the
channels and the pose's points; the member axes from the pose's points; linear
interpolation of keyframes by hand.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest

import suspension_sim
from suspension_sim.api import Model
from suspension_sim.cli import main
from suspension_sim.errors import InputError, WorkbookError
from suspension_sim.loads import LoadCase, LoadResult, WheelLoad, solve_loads
from suspension_sim.loads.sheet import SHEET_HEADER, load_cases_sheet
from suspension_sim.loads.statics import design_contact_points, statics
from suspension_sim.metrics.core import pose_metrics
from suspension_sim.optimumk.forces import (
    cases_per_step,
    joint_channels,
    optimumk_forces,
    read_force_keys,
    steering_torque,
)
from suspension_sim.solve.pose import Pose
from suspension_sim.workbook.writer import write_car

ROOT = Path(__file__).resolve().parents[1]
H = 0.01  # mm of stroke or rack for the central differences


def _rates(model: Model, pose: Pose, body: str, point: np.ndarray, which: str) -> tuple:
    """(velocity of `point` fixed on `body`, angular velocity of `body`) per mm of the
    damper `which` (or of the rack), world, by central differences of solved poses."""
    T0 = pose.body_frames[body]
    local = np.linalg.solve(T0, np.append(point, 1.0))
    frames = []
    for sign in (1.0, -1.0):
        shocks = dict(pose.shocks)
        rack = pose.rack
        if which == "rack":
            rack += sign * H
        else:
            shocks[which] += sign * H
        p = model.solve(
            shocks=shocks,
            rack=rack,
            chassis=pose.chassis,
            guess=pose,
            tolerance=1e-11,
        )
        frames.append(p.body_frames[body])
    v = ((frames[0] - frames[1]) @ local)[:3] / (2 * H)
    W = (frames[0][:3, :3] - frames[1][:3, :3]) / (2 * H) @ T0[:3, :3].T
    return v, np.array([W[2, 1], W[0, 2], W[1, 0]])


def _input(result: LoadResult, name: str, case: str) -> float:
    i = result.inputs
    return float(i.loc[(i["input"] == name) & (i["case"] == case), "force_N"].iloc[0])


# -- virtual work: moments and the design line ----------------------------------------------
def test_virtual_work_with_moments_and_the_design_line() -> None:
    """Damper and rack forces = the loads' power per mm: the force at the material point
    of the upright on the world-fixed line through the design contact point, the
    moment (N m -> N mm) on the upright's angular velocity; the contact-point case
    differs from it (the line moved ~ the strokes)."""
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    shocks = {d: 6.0 - 2.0 * i for i, d in enumerate(model.damper_names)}
    pose = model.solve(shocks=shocks, rack=3.0, chassis=(0, 0, 5, 1.0, -0.8, 0.5), tolerance=1e-11)
    rng = np.random.default_rng(7)
    forces = {w.name: rng.uniform([-900, -1500, 500], [900, 1500, 3000]) for w in model.car.wheels}
    moments = {w.name: rng.uniform(-40, 40, 3) for w in model.car.wheels}
    design = LoadCase(
        "design",
        {
            w: WheelLoad(tuple(forces[w]), moment=tuple(moments[w]), application="design")
            for w in forces
        },
    )
    contact = LoadCase(
        "contact",
        {w: WheelLoad(tuple(forces[w]), moment=tuple(moments[w])) for w in forces},
    )
    result = solve_loads(pose, [design, contact])
    p_d = dict(zip([w.name for w in model.car.wheels], design_contact_points(model), strict=True))
    met = pose_metrics(pose, rates=False)
    cp = {w: np.array([met[f"contact_point_{w}_{a}_mm"] for a in "xyz"]) for w in forces}
    assert max(np.linalg.norm(cp[w] - p_d[w]) for w in forces) > 3.0  # the two lines differ
    carriers = {w.name: w.body for w in model.car.wheels}
    for name in [*model.damper_names, "rack"]:
        work_d = work_c = 0.0
        for w in forces:
            v_d, omega = _rates(model, pose, carriers[w], p_d[w], name)
            v_c, _ = _rates(model, pose, carriers[w], cp[w], name)
            turn = 1000.0 * moments[w] @ omega
            work_d += forces[w] @ v_d + turn
            work_c += forces[w] @ v_c + turn
        sign = -1.0 if name == "rack" else 1.0  # the steering holds the rack
        assert _input(result, name, "design") == pytest.approx(sign * work_d, rel=1e-6, abs=1e-6)
        assert _input(result, name, "contact") == pytest.approx(sign * work_c, rel=1e-6, abs=1e-6)
    d = result.inputs[result.inputs.case == "design"].force_N.to_numpy()
    c = result.inputs[result.inputs.case == "contact"].force_N.to_numpy()
    assert np.abs(d - c).max() > 1.0


def test_a_moment_in_wheel_axes_turns_with_the_wheel() -> None:
    """Mx in the wheel's axes is about the wheel's heading (the ground-plane direction
    perpendicular to the spin axis): on a steered wheel it equals the world moment
    25 N m x heading, the heading built here from the pose's wheel points."""
    from suspension_sim.metrics.vectors import Z_UP

    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    pose = model.solve(rack=8.0, tolerance=1e-11)
    wheel = model.car.wheels[0]
    c = _pt(pose, wheel.centre)
    s = _pt(pose, wheel.axis_point) - c
    s = s / np.linalg.norm(s) * (1.0 if c[1] > 0 else -1.0)  # pointing to the car's left
    head = np.cross(s, Z_UP)  # ground plane, perpendicular to the spin axis
    head /= np.linalg.norm(head)
    head = head if head[0] > 0 else -head  # forward
    assert abs(head[1]) > 0.01  # steered
    cases = [
        LoadCase("wheel", {wheel.name: WheelLoad(axes="wheel", moment=(25.0, 0.0, 0.0))}),
        LoadCase("world", {wheel.name: WheelLoad(moment=tuple(25.0 * head))}),
    ]
    res = solve_loads(pose, cases).inputs
    a = res[res.case == "wheel"].force_N.to_numpy()
    b = res[res.case == "world"].force_N.to_numpy()
    assert np.abs(a - b).max() < 1e-9 * max(1.0, np.abs(a).max())
    assert np.abs(a).max() > 1.0


# -- an OptimumK-imported car --------------------------------------------------------------------
@pytest.fixture(scope="module")
def ok_model(tmp_path_factory: pytest.TempPathFactory) -> Model:
    from suspension_sim.workbook.optimumk import read_optimumk
    from tests.test_optimumk_import import suspension_rows, write_xlsx

    d = tmp_path_factory.mktemp("optimumk")
    front = write_xlsx(d / "front.xlsx", {"Front": suspension_rows("front")})
    rear = write_xlsx(d / "rear.xlsx", {"Rear": suspension_rows("rear")})
    return Model(read_optimumk(front, rear=rear, reference_distance_mm=1530.0))


MZ = 30.0  # N m on the front left tyre
CASE = LoadCase(
    "ok",
    {
        "FL": WheelLoad((-600.0, 900.0, 2200.0), moment=(12.0, -8.0, MZ), application="design"),
        "FR": WheelLoad((-500.0, 700.0, 1600.0), moment=(0.0, 0.0, -15.0), application="design"),
        "RL": WheelLoad((300.0, 800.0, 1900.0), application="design"),
        "RR": WheelLoad((300.0, 600.0, 1400.0), moment=(0.0, 5.0, 0.0), application="design"),
    },
)


@pytest.fixture(scope="module")
def ok_pose(ok_model: Model) -> Pose:
    shocks = {d: 4.0 + i for i, d in enumerate(ok_model.damper_names)}
    return ok_model.solve(shocks=shocks, rack=6.0, chassis=(0, 0, 3, 0.8, -0.4, 0), tolerance=1e-11)


@pytest.fixture(scope="module")
def channels(ok_model: Model, ok_pose: Pose) -> dict[str, float]:
    out = optimumk_forces(ok_model, [ok_pose], [CASE])
    return {k: float(v[0]) for k, v in out.items()}


def _vec(ch: dict[str, float], stem: str, corner: str, m: bool = False) -> np.ndarray:
    comps = ("Mx", "My", "Mz") if m else ("Fx", "Fy", "Fz")
    return np.array([ch[f"{stem} - {c} [{corner}]"] for c in comps])


def _pt(pose: Pose, name: str) -> np.ndarray:
    return pose.points.loc[name].to_numpy(float)


def test_names_and_action_equals_minus_reaction(channels: dict[str, float]) -> None:
    expected = [
        "Lower A-Arm To Chassis (Fore) - Fx [Front Left]",
        "Lower A-Arm To Chassis (Aft) - Fz [Rear Right]",
        "Upper A-Arm To Upright - Fz [Front Left]",
        "Tie Rod To Upright - Fy [Front Right]",
        "Push/Pull To Rocker - Fx [Rear Left]",
        "CoilOver To Chassis - Fz [Front Left]",
        "Rocker To Chassis - Mx [Front Left]",
        "Tie Rod To Rack - Fy [Front Left]",
        "Tie Rod To Chassis - Fy [Rear Left]",
        "Contact Patch - Mz [Front Left]",
        "Steering Torque [Front] Mz",
    ]
    for name in expected:
        assert name in channels, name
    pairs = 0
    for name, value in channels.items():
        head, _, tail = name.partition(" - ")
        if " To " not in head:
            continue
        a, _, rest = head.partition(" To ")
        b, leg = [*rest.split(" (", 1), ""][:2]
        reverse = f"{b} To {a}{' (' + leg if leg else ''} - {tail}"
        assert channels[reverse] == pytest.approx(-value, abs=1e-9 * (1 + abs(value))), name
        pairs += 1
    # per corner 13 joints: the A-arms' four pivots, their two ball joints, the push/pull
    # rod's two ends, the tie rod's two, the coilover's two, the rocker's bearing
    assert pairs == 4 * 13 * 6 * 2  # both directions, six components


def test_two_force_members_carry_axial_force_only(
    channels: dict[str, float], ok_pose: Pose
) -> None:
    """Tie rod, push/pull rod and coilover: the force at each end lies along the member
    (from the pose's points) and the two ends' forces balance."""
    members = [
        ("Tie Rod To Upright", "Tie Rod To Rack", "FL_UPRI_TiePnt", "FL_CHAS_TiePnt", "Front Left"),
        (
            "Tie Rod To Upright",
            "Tie Rod To Chassis",
            "RR_UPRI_TiePnt",
            "RR_CHAS_TiePnt",
            "Rear Right",
        ),
        (
            "Push/Pull To Rocker",
            "Push/Pull To Lower A-Arm",
            "FL_ROCK_RodPnt",
            "FL_NSMA_PPAttPnt",
            "Front Left",
        ),
        (
            "Push/Pull To Rocker",
            "Push/Pull To Upper A-Arm",
            "RL_ROCK_RodPnt",
            "RL_NSMA_PPAttPnt",
            "Rear Left",
        ),
        (
            "CoilOver To Chassis",
            "CoilOver To Rocker",
            "FR_CHAS_AttPnt",
            "FR_ROCK_CoiPnt",
            "Front Right",
        ),
    ]
    for end1, end2, p1, p2, corner in members:
        u = _pt(ok_pose, p2) - _pt(ok_pose, p1)
        u /= np.linalg.norm(u)
        f1, f2 = _vec(channels, end1, corner), _vec(channels, end2, corner)
        assert np.linalg.norm(f1) > 10.0, end1
        assert np.linalg.norm(np.cross(f1, u)) < 1e-8 * np.linalg.norm(f1), (end1, corner)
        assert np.linalg.norm(f1 + f2) < 1e-8 * np.linalg.norm(f1), (end1, end2, corner)
        assert np.allclose(_vec(channels, end1, corner, m=True), 0.0)


def test_upright_moment_balance_closes_only_with_mz(
    channels: dict[str, float], ok_model: Model, ok_pose: Pose
) -> None:
    """Sum the forces on the front-left upright from the channels, at the pose's joint
    points, plus the ground's force on the design line: the force balance closes, and the
    moment balance closes with the case's moment and misses exactly Mz without it (about
    world z: -30 N m); with the force at the current contact point it misses too."""
    corner = "Front Left"
    on_upright = {
        "Lower A-Arm To Upright": "FL_UPRI_LowPnt",
        "Upper A-Arm To Upright": "FL_UPRI_UppPnt",
        "Tie Rod To Upright": "FL_UPRI_TiePnt",
    }
    F = _vec(channels, "Contact Patch", corner)
    M = _vec(channels, "Contact Patch", corner, m=True)
    assert M[2] == MZ
    p_d = design_contact_points(ok_model)[0]
    total_f = F.copy()
    total_m = np.cross(p_d, F) / 1000.0  # N m, about the origin
    for stem, point in on_upright.items():
        f = _vec(channels, stem, corner)
        total_f += f
        total_m += np.cross(_pt(ok_pose, point), f) / 1000.0
    scale = np.abs(F).max()
    assert np.abs(total_f).max() < 1e-8 * scale
    assert np.abs(total_m + M).max() < 1e-8 * scale  # closes with the case's moment
    without_mz = total_m + M - np.array([0.0, 0.0, MZ])
    assert without_mz == pytest.approx([0.0, 0.0, -MZ], abs=1e-8 * scale)
    met = pose_metrics(ok_pose, rates=False)
    cp = np.array([met[f"contact_point_FL_{a}_mm"] for a in "xyz"])
    moved = total_m + M + np.cross(cp - p_d, F) / 1000.0
    assert np.abs(moved).max() > 1.0  # the current contact point does not balance it


def test_steering_torque_is_its_definition_and_virtual_work(
    channels: dict[str, float], ok_model: Model, ok_pose: Pose
) -> None:
    """Steering Torque [Front] Mz = (tie rods' force on the rack along its +Y axis) x rack
    travel per radian of steering wheel (m/rad), OptimumK's sign; and the same from
    virtual work: the loads' power per mm of rack."""
    rack = ok_model.car.rack
    assert rack is not None and rack.ratio_mm_per_deg
    per_rad = rack.ratio_mm_per_deg * 180.0 / math.pi / 1000.0
    axis = _pt(ok_pose, "FL_CHAS_TiePnt") - _pt(ok_pose, "FR_CHAS_TiePnt")
    axis /= np.linalg.norm(axis)  # +Y-pointing, carried by the chassis (rolled here)
    on_rack = _vec(channels, "Tie Rod To Rack", "Front Left") + _vec(
        channels, "Tie Rod To Rack", "Front Right"
    )
    torque = channels["Steering Torque [Front] Mz"]
    assert torque == pytest.approx((on_rack @ axis) * per_rad, rel=1e-9)
    p_d = design_contact_points(ok_model)
    work = 0.0
    for k, wheel in enumerate(ok_model.car.wheels):
        load = CASE.wheels[wheel.name]
        v, omega = _rates(ok_model, ok_pose, wheel.body, p_d[k], "rack")
        work += np.asarray(load.force) @ v + 1000.0 * np.asarray(load.moment) @ omega
    assert torque == pytest.approx(work * per_rad, rel=1e-6)
    assert abs(torque) > 0.5


def test_coilover_force_comes_from_statics_not_the_spring(
    channels: dict[str, float], ok_model: Model, ok_pose: Pose
) -> None:
    """A spring rate on the coilovers changes nothing: OptimumK's statics ignore it, and
    ours takes the damper force from the balance of the loads (virtual work)."""
    car = ok_model.car
    sprung = dataclasses.replace(
        car, dampers=tuple(dataclasses.replace(d, spring_rate=21.2) for d in car.dampers)
    )
    model2 = Model(sprung)
    pose2 = model2.solve(shocks=ok_pose.shocks, rack=ok_pose.rack, chassis=ok_pose.chassis)
    again = optimumk_forces(model2, [pose2], CASE)
    name = "CoilOver To Chassis - Fx [Front Left]"
    assert again[name][0] == pytest.approx(channels[name], rel=1e-8)
    # the coilover's axial force equals the damper force of our own table (+ = compression)
    res = solve_loads(ok_pose, CASE)
    u = _pt(ok_pose, "FL_ROCK_CoiPnt") - _pt(ok_pose, "FL_CHAS_AttPnt")
    u /= np.linalg.norm(u)
    on_chassis = _vec(channels, "CoilOver To Chassis", "Front Left")
    assert -(on_chassis @ u) == pytest.approx(_input(res, "FL_Coilover", "ok"), rel=1e-8)


def test_per_step_cases_combine_like_separate_solves(ok_model: Model, ok_pose: Pose) -> None:
    """optimumk_forces solves unit cases once and combines them per step; each step
    equals the statics of that step's case alone (and a None pose gives NaN)."""
    other = ok_model.solve(shocks={d: -3.0 for d in ok_model.damper_names}, rack=-4.0)
    half = LoadCase(
        "half",
        {
            w: dataclasses.replace(
                load, force=tuple(0.5 * np.asarray(load.force)), application="contact"
            )
            for w, load in CASE.wheels.items()
        },
    )
    out = optimumk_forces(ok_model, [ok_pose, other, None], [CASE, half, CASE])
    for k, (pose, case) in enumerate(((ok_pose, CASE), (other, half))):
        st = statics([pose], [case])
        direct = joint_channels(ok_model, st)
        direct.update(steering_torque(ok_model, st))
        for name, value in direct.items():
            assert out[name][k] == pytest.approx(value[0, 0], abs=1e-8 * (1 + abs(value[0, 0])))
    assert all(np.isnan(v[2]) for v in out.values())


def test_force_keys_ramped_over_completion(ok_model: Model, tmp_path: Path) -> None:
    path = tmp_path / "keys.csv"
    path.write_text(
        "wheel,percent,Fx,Fy,Fz,Mx,My,Mz\n"
        "FL,0,0,0,1000,,,0\n"
        "FL,50,-400,800,2000,0,0,20\n"
        "Front Right,100,100,-200,1500,0,0,-10\n"
        "FL,100,-400,800,3000,0,0,40\n"
    )
    keys = read_force_keys(path, ok_model)
    cases = cases_per_step(keys, [0.0, 25.0, 75.0, 100.0])
    fl = [c.wheels["FL"] for c in cases]
    assert fl[1].force == pytest.approx((-200.0, 400.0, 1500.0))
    assert fl[1].moment == pytest.approx((0.0, 0.0, 10.0))
    assert fl[2].force[2] == pytest.approx(2500.0) and fl[2].moment[2] == pytest.approx(30.0)
    assert cases[0].wheels["FR"].force == pytest.approx((100.0, -200.0, 1500.0))  # held
    assert all(w.application == "design" for c in cases for w in c.wheels.values())
    held = cases_per_step(CASE, [0.0, 50.0])
    assert held[1].wheels == CASE.wheels

    bad = tmp_path / "bad.csv"
    bad.write_text("wheel,percent,Fx,Fy,Fz\nFL,0,0,0,1\nFX,10,0,0,1\n")
    with pytest.raises(InputError, match="no wheel 'FX'") as exc:
        read_force_keys(bad, ok_model)
    assert exc.value.where == f"{bad}:3"
    bad.write_text("wheel,percent,Fx,Fy,Fz\nFL,0,0,abc,1\n")
    with pytest.raises(InputError, match="Fy must be a number") as exc:
        read_force_keys(bad, ok_model)
    assert exc.value.where == f"{bad}:2"


# -- the workbook's Load Cases columns and the CLI ------------------------------------------
def _cases_workbook(tmp_path: Path, rows: list[list[object]], name: str = "car.xlsx") -> Path:
    from tests._cars import four_corner_car

    path = write_car(four_corner_car(), tmp_path / name)
    wb = openpyxl.load_workbook(path)
    ws = wb.create_sheet("Load Cases")
    ws.append(list(SHEET_HEADER))
    for row in rows:
        ws.append(row)
    index = wb["Index"]
    free = next(r for r in range(1, 50) if index.cell(r, 1).value is None)
    index.cell(free, 1, "Load Cases")
    index.cell(free, 2, f"'Load Cases'!A1:M{1 + len(rows)}")
    wb.save(path)
    return path


def test_load_cases_moments_and_application(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert SHEET_HEADER[-4:] == ("Mx", "My", "Mz", "Application")
    rows = [
        ["corner", "FL", -300, 900, 2000, None, None, None, None, 5, None, 25, "design"],
        ["corner", "FR", 0, 700, 1500],
    ]
    path = _cases_workbook(tmp_path, rows)
    model = suspension_sim.load(path)
    (case,) = load_cases_sheet(path, model.car)
    fl = case.wheels["FL"]
    assert fl.moment == (5.0, 0.0, 25.0) and fl.application == "design"
    assert case.wheels["FR"].application == "contact"

    bad = _cases_workbook(
        tmp_path, [["c", "FL", 0, 0, 1, None, None, None, None, 0, 0, 0, "desing"]], "bad.xlsx"
    )
    with pytest.raises(WorkbookError, match="Did you mean 'design'") as exc:
        load_cases_sheet(bad, model.car)
    assert exc.value.where == "bad.xlsx: Load Cases!M2"
    bad = _cases_workbook(
        tmp_path, [["c", "FL", 0, 0, 1, None, None, None, None, "x", 0, 0]], "bad2.xlsx"
    )
    with pytest.raises(WorkbookError, match="Mx") as exc:
        load_cases_sheet(bad, model.car)
    assert exc.value.where == "bad2.xlsx: Load Cases!J2"

    # the CLI: the column, and --application overriding every case
    shocks = ["--shocks", "8", "8", "8", "8"]  # away from design: the two lines differ
    out_design = tmp_path / "design.csv"
    assert main(["loads", str(path), *shocks, "--out", str(out_design)]) == 0
    out_contact = tmp_path / "contact.csv"
    argv = ["loads", str(path), *shocks, "--application", "contact", "--out", str(out_contact)]
    assert main(argv) == 0
    capsys.readouterr()
    import pandas as pd

    a, b = pd.read_csv(out_design), pd.read_csv(out_contact)
    assert len(a) == len(b) and np.abs(a.Fx_N - b.Fx_N).max() > 1e-3
    pose = model.solve(shocks={d: 8.0 for d in model.damper_names})
    direct = solve_loads(pose, case).table
    assert np.abs(direct.Fx_N.to_numpy() - a.Fx_N.to_numpy()).max() < 1e-6
    with pytest.raises(SystemExit) as stop:  # argparse refuses an unknown word
        main(["loads", str(path), "--application", "nowhere"])
    assert stop.value.code == 2
    assert "--application" in capsys.readouterr().err
