"""A miswired Components row is a free motion at design, refused by every command (exit 2).

Issue 24, item 1, as the user made it: the car from `suspension-sim new` with its
wheels renamed LF/RF/LR/RR, and the tie rod's row typed `LF_TIE_O, LF_LBJ`: its
inner end on the upright's ball joint instead of the rack's `LF_TIE_I`. The
joint count still balances (the tie rod, now between two upright points, counts
a constraint twice), so the Jacobian at design is one short of full rank and the
upright turns freely about its kingpin. Before, `check` called that a toggle and
exited 0, and `solve --rack 5` printed an LF toe that the rack did not decide.

Independent truths: the free motion is shown by plain geometry (turning the
upright and tie rod about the line through the ball joints moves no joined point
and keeps every body rigid: a second assembly with the same inputs), and the
toggle is shown to be one by the same geometry (its link length changes as the
square of the turn, so the joints cannot follow it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from _cars import double_wishbone_corner

from suspension_sim.api import Model
from suspension_sim.cli import main
from suspension_sim.description import Car
from suspension_sim.workbook import read_car
from suspension_sim.workbook.writer import write_car

RENAME = {"FL": "LF", "FR": "RF", "RL": "LR", "RR": "RR"}
PREFIX = re.compile(r"^(FL|FR|RL|RR)(?=_|$)")


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _user_car(folder: Path, rows: dict[str, tuple[str, ...]], name: str) -> Path:
    """`suspension-sim new`, every FL/FR/RL/RR name renamed LF/RF/LR/RR (as the user's
    car), then the Components rows in `rows` retyped (point cells from column B)."""
    template = folder / "new.xlsx"
    if not template.exists():
        assert _run(["new", str(template)])[0] == 0
    wb = openpyxl.load_workbook(template)
    for ws in wb.worksheets[1:]:
        for line in ws.iter_rows():
            for cell in line:
                if isinstance(cell.value, str):
                    cell.value = PREFIX.sub(lambda m: RENAME[m.group(1)], cell.value)
    ws = wb["Components"]
    for line in ws.iter_rows():
        if line[0].value in rows:
            for cell, point in zip(line[1:], rows[str(line[0].value)], strict=False):
                cell.value = point
    path = folder / name
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("miswired")


@pytest.fixture(scope="module")
def miswired(folder: Path) -> Path:
    return _user_car(folder, {"LF_TieRod": ("LF_TIE_O", "LF_LBJ")}, "miswired.xlsx")


@pytest.fixture(scope="module")
def intact(folder: Path) -> Path:
    return _user_car(folder, {}, "intact.xlsx")


def test_the_intact_car_checks_clean_and_steers(intact: Path) -> None:
    code, out, _ = _run(["check", str(intact)])
    assert code == 0 and "exactly constrained" in out and "FREE MOTION" not in out
    code, out, _ = _run(["solve", str(intact), "--rack", "5"])
    assert code == 0
    toe = re.search(r"toe \[deg\] \(\+ in\)\s+(\S+)\s+(\S+)", out)
    assert toe is not None
    assert float(toe.group(2)) == pytest.approx(-4.385, abs=1e-3)  # RF, as in the issue
    assert float(toe.group(1)) > 0  # LF steers with the rack, toward +Y


def test_miswired_tie_rod_fails_check_naming_the_motion_and_the_cause(miswired: Path) -> None:
    code, out, err = _run(["check", str(miswired)])
    assert code == 2 and "Traceback" not in out + err
    assert "Mobility:" in out  # what was read is still printed
    assert "SINGULAR AT DESIGN" not in out + err and "(a toggle)" not in out + err
    # Where: the tie rod's row, the row that was typed wrong (row 7 of Components).
    assert err.startswith("error: miswired.xlsx: Components!A7: a free motion at design")
    assert "LF_TieRod, LF_Upright can move with every stroke and the rack held" in err
    assert "pose would not be unique" in err and "It is a mechanism, not a toggle" in err
    # Which bodies move and about which axis: the upright about its kingpin.
    assert "LF_Upright turns about the line through LF_UBJ and LF_LBJ" in err
    # The likely causes, as the issue asks for them.
    assert "LF_TIE_I is on one body only (Rack): it joins nothing" in err
    assert "every point of LF_TieRod (LF_TIE_O, LF_LBJ) is also on LF_Upright" in err
    assert "on the row of LF_TieRod, LF_TIE_I in place of LF_LBJ would locate every body" in err
    assert "fix:" in err
    # Nothing after the mechanism report: no reach walk, no design sheet.
    assert "Reach" not in out and "toe" not in out


def test_the_named_axis_is_the_kingpin_line_and_the_motion_is_real(miswired: Path) -> None:
    """Geometry alone: turn LF_Upright and LF_TieRod about the line LF_LBJ-LF_UBJ. Every
    point they share with another body stays put and both stay rigid, so the same
    strokes and rack have a second assembly: the pose is not unique. The axis `check`
    names is that line."""
    car = read_car(miswired)
    lbj, ubj = car.point("LF_LBJ"), car.point("LF_UBJ")
    axis = (ubj - lbj) / np.linalg.norm(ubj - lbj)
    turned = {"LF_Upright", "LF_TieRod"}
    angle = np.radians(5.0)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    R = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K  # Rodrigues
    moved = {}
    for body in turned:
        for p in car.body(body).points:
            moved[p] = lbj + R @ (car.point(p) - lbj)
    for name, bodies in car.joined_points():
        if set(bodies) - turned and name in moved:  # joined to a body that stays put
            assert np.linalg.norm(moved[name] - car.point(name)) < 1e-9, name
    assert np.linalg.norm(moved["LF_WA"] - car.point("LF_WA")) > 1.0  # the wheel steers
    _, _, err = _run(["check", str(miswired)])
    found = re.search(r"point \(([^)]*)\) mm, direction \(([^)]*)\)", err)
    assert found is not None
    point = np.array([float(v) for v in found.group(1).split(",")])
    direction = np.array([float(v) for v in found.group(2).split(",")])
    assert abs(abs(direction @ axis) - 1.0) < 2e-3  # printed to 3 decimals
    off = point - lbj
    assert np.linalg.norm(off - (off @ axis) * axis) < 0.1  # the printed point is on it


@pytest.mark.parametrize(
    "argv",
    [["solve", "--rack", "5"], ["report"], ["sweep", "heave"], ["sweep", "steer"]],
    ids=["solve", "report", "sweep-heave", "sweep-steer"],
)
def test_every_command_refuses_the_miswired_car(miswired: Path, argv: list[str]) -> None:
    code, out, err = _run([argv[0], str(miswired), *argv[1:]])
    assert code == 2, out + err
    assert "Traceback" not in out + err
    assert "Components!A7: a free motion at design" in err
    assert "LF_Upright turns about the line through LF_UBJ and LF_LBJ" in err
    assert "LF_TIE_I is on one body only (Rack)" in err
    assert "toe" not in out and "anti-dive" not in out.lower()  # no number printed


@pytest.mark.parametrize(
    ("rows", "where", "moves", "cause", "repair"),
    [
        (  # the pushrod's inner end typed as the lower ball joint
            {"LF_Pushrod": ("LF_PR_O", "LF_LBJ")},
            "Components!A8",
            "LF_Upright, LF_Pushrod, LF_LCA",
            "LF_PR_I is on one body only (LF_Rocker)",
            "on the row of LF_Pushrod, LF_PR_I in place of LF_LBJ",
        ),
        (  # the rear toe link's outer end typed as the upper ball joint
            {"LR_ToeLink": ("LR_TIE_I", "LR_UBJ")},
            "Components!A21",
            "LR_Upright can move",
            "LR_TIE_O is on one body only (LR_Upright)",
            "on the row of LR_ToeLink, LR_TIE_O in place of LR_UBJ",
        ),
        (  # the upper wishbone's ball joint typed as the lower one
            {"LF_UCA": ("LF_UCA_F", "LF_UCA_R", "LF_LBJ")},
            "Components!A4",
            "LF_Upright, LF_TieRod can move",
            "LF_UBJ is on one body only (LF_Upright)",
            "on the row of LF_UCA, LF_UBJ in place of LF_LBJ",
        ),
    ],
    ids=["pushrod", "toe-link", "upper-wishbone"],
)
def test_other_miswired_rows(
    folder: Path, rows: dict[str, tuple[str, ...]], where: str, moves: str, cause: str, repair: str
) -> None:
    path = _user_car(folder, rows, f"{next(iter(rows))}.xlsx")
    code, out, err = _run(["check", str(path)])
    assert code == 2 and "Traceback" not in out + err
    assert f"{where}: a free motion at design" in err
    assert moves in err and cause in err and repair in err
    assert "SINGULAR AT DESIGN" not in out + err


def test_a_point_typed_twice_on_one_row_is_refused_by_the_reader(folder: Path) -> None:
    path = _user_car(folder, {"LF_TieRod": ("LF_TIE_O", "LF_TIE_O")}, "twice.xlsx")
    for argv in (["check"], ["solve", "--rack", "5"], ["report"]):
        code, out, err = _run([argv[0], str(path), *argv[1:]])
        assert code == 2 and "Traceback" not in out + err
        assert "Components!C7" in err and "lists point 'LF_TIE_O' twice" in err
        assert "toe" not in out


def _toggle_car() -> tuple[Car, np.ndarray]:
    """The corner with its pushrod laid square to the path of its lower end (as in
    test_solver_properties): with the damper held the wishbone can turn to first order
    only. Returns the car and the wishbone's pivot axis (unit)."""
    car = double_wishbone_corner()
    f, r, pr_o = car.point("LCA_F"), car.point("LCA_R"), car.point("PR_O")
    axis = (r - f) / np.linalg.norm(r - f)
    radial = pr_o - f - ((pr_o - f) @ axis) * axis
    tangent = np.cross(axis, radial) / np.linalg.norm(radial)
    up = np.array([0.0, 0.0, 1.0]) - tangent[2] * tangent
    pr_i = pr_o + 300.0 * up / np.linalg.norm(up)
    return double_wishbone_corner(points={"PR_I": tuple(pr_i)}), axis


def test_a_toggle_at_design_stays_a_flagged_toggle(tmp_path: Path) -> None:
    """The rule (docs/model.md): a free motion that cannot be followed is a toggle. The
    pushrod's length changes as the square of the wishbone's turn (a dead point), so
    `check` and `solve` still exit 0 and flag it."""
    car, axis = _toggle_car()
    f = car.point("LCA_F")
    pr_o, pr_i = car.point("PR_O"), car.point("PR_I")
    length = np.linalg.norm(pr_i - pr_o)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    change = []
    for angle in (1e-3, 2e-3):
        R = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K
        change.append(np.linalg.norm(pr_i - (f + R @ (pr_o - f))) - length)
    assert change[1] / change[0] == pytest.approx(4.0, rel=1e-2)  # second order only
    mob = Model(car).mobility()
    assert mob.singular and mob.ok and not mob.free_motions and not mob.under_constrained
    path = write_car(car, tmp_path / "toggle.xlsx")
    code, out, err = _run(["check", str(path)])
    assert code == 0 and "SINGULAR AT DESIGN" in out and "FREE MOTION" not in out + err
    code, out, err = _run(["solve", str(path)])
    assert code == 0 and "near-singular" in out and "from a dead point" in out
    assert out.count("from a dead point") == 1


def test_library_refuses_the_mechanism_too(miswired: Path) -> None:
    """The same check runs where the model is first solved: `Model.solve` and
    `solve_batch` raise ModelError (exit 2) with the free motion."""
    from suspension_sim import load
    from suspension_sim.errors import ModelError

    model = load(miswired, use_cache=False)
    mob = model.mobility()
    assert not mob.ok and mob.under_constrained and len(mob.free_motions) == 1
    motion = mob.free_motions[0]
    assert set(motion.bodies) == {"LF_Upright", "LF_TieRod"} and motion.rows[0] == "LF_TieRod"
    assert set(motion.through) >= {"LF_LBJ", "LF_UBJ"} and abs(motion.pitch) < 1e-6
    with pytest.raises(ModelError) as info:
        model.solve(rack=5.0)
    assert info.value.exit_code == 2 and "LF_TIE_I is on one body only" in info.value.render()
    with pytest.raises(ModelError) as batch:
        model.solve_batch(rack=np.array([0.0, 5.0]))
    # the batch names the free motion's Components row as the single solve does
    assert batch.value.render() == info.value.render()
    assert "Components!A7" in batch.value.render()


def test_a_healthy_car_pays_nothing_extra() -> None:
    """Free motions are followed only when the rank is short: the example car's
    mobility is the counts alone (no follow, no repair search)."""
    car = read_car(Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx")
    mob = Model(car).mobility()
    assert mob.ok and mob.free_after_inputs == 0 and not mob.free_motions
    # A free motion removed by the repair the message suggests: exactly constrained again.
    bodies = tuple(
        dataclasses.replace(b, points=("FL_TIE_O", "FL_LBJ")) if b.name == "FL_TieRod" else b
        for b in car.bodies
    )
    bad = Model(dataclasses.replace(car, bodies=bodies)).mobility()
    assert any("FL_TIE_I in place of FL_LBJ" in c for c in bad.free_motions[0].causes)
