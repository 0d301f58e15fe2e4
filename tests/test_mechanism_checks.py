"""Mechanisms that cannot do what is asked are refused by `check` and `solve` (exit 2).

The bad workbooks are real files: the example car and the small test workbook
with an upright point also listed on the Chassis. That locks one corner while
the equation count still balances, so only the input test can see it. The
truth that the damper is locked is checked independently: the solver cannot
move it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from _cars import four_corner_car
from openpyxl.utils.cell import get_column_letter, range_boundaries

from suspension_sim.api import Model
from suspension_sim.cli import main
from suspension_sim.description import Body, Point
from suspension_sim.errors import ModelError

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"


def _example_with_chassis_point(tmp_path: Path, point: str) -> Path:
    """The example car with `point` added to the Chassis row of Components."""
    wb = openpyxl.load_workbook(EXAMPLE)
    index = wb["Index"]
    row = next(r for r in range(1, 20) if index.cell(r, 1).value == "Components")
    sheet, cells = str(index.cell(row, 2).value).split("!")
    c0, r0, c1, r1 = range_boundaries(cells)
    ws = wb[sheet]
    chassis = next(r for r in range(r0, r1 + 1) if ws.cell(r, c0).value == "Chassis")
    col = c0 + 1
    while ws.cell(chassis, col).value is not None:
        col += 1
    ws.cell(chassis, col).value = point
    last = get_column_letter(max(col, c1))
    index.cell(row, 2).value = f"{sheet}!{get_column_letter(c0)}{r0}:{last}{r1}"
    path = tmp_path / "locked.xlsx"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def car_model() -> Model:
    return Model(four_corner_car())


def test_example_with_a_locked_corner_fails_check_and_solve(tmp_path, capsys) -> None:
    path = _example_with_chassis_point(tmp_path, "FL_WC")
    assert main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    assert "Mobility:" in captured.out  # what was read is still printed
    err = captured.err
    assert "Traceback" not in err
    assert "damper FL_Damper is locked" in err and "steering rack is locked" in err
    assert "FL_WC from Chassis" in err  # the point that locks it, and where to remove it
    assert "FL_Upright" in err and "consistent redundancy" not in err
    assert "handles this" not in err
    assert main(["solve", str(path), "--shocks", "1", "0", "0", "0"]) == 2
    err = capsys.readouterr().err
    assert "FL_Damper is locked" in err and "FL_WC from Chassis" in err


def test_small_workbook_with_the_wheel_centre_on_the_chassis(make_workbook, capsys) -> None:
    path = make_workbook({"Geometry!G2": "WC"})  # the Chassis row: UF UR LF LR DC + WC
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "damper Damper is locked" in err and "steering rack is locked" in err
    assert "WC from Chassis" in err
    assert main(["solve", str(path)]) == 2
    assert "WC from Chassis" in capsys.readouterr().err
    # The intact workbook checks clean and reports its reach.
    assert main(["check", str(make_workbook(name="ok.xlsx"))]) == 0
    assert "Damper stroke reachable" in capsys.readouterr().out


def test_locked_input_really_cannot_move() -> None:
    """The Jacobian test agrees with the solver: the locked damper does not move."""
    car = four_corner_car()
    chassis = car.body("Chassis")
    bodies = tuple(
        dataclasses.replace(b, points=(*b.points, "FL_WC")) if b.name == "Chassis" else b
        for b in car.bodies
    )
    assert "FL_WC" not in chassis.points
    model = Model(dataclasses.replace(car, bodies=bodies))
    mob = model.mobility()
    assert not mob.ok and mob.free_after_inputs == 0
    locked = {lk.name: lk for lk in mob.locked_inputs}
    assert set(locked) == {"FL_Damper", "rack"}
    assert "FL_WC from Chassis" in locked["FL_Damper"].culprits
    assert {"FL_Upright", "FL_Damper"} <= set(mob.stuck_bodies)
    assert not any(b.startswith(("RL", "RR", "FR_U")) for b in mob.stuck_bodies)
    with pytest.raises(ModelError) as info:
        model.solve(shocks={"FL_Damper": 2.0})
    assert "FL_Damper is locked" in info.value.render()
    # Independent truth: the solver on the same equations cannot move that stroke.
    from suspension_sim.solve.solver import solve_params

    q = model.input_params()
    params = np.zeros(model.n_params)
    params[q[0]] = 2.0  # FL_Damper
    _, solved = solve_params(model, params, q, 1e-6)
    assert not solved.converged and solved.max_residual_mm > 0.1
    params[q[0]] = 0.0
    params[q[2]] = 2.0  # RL_Damper is free
    _, solved = solve_params(model, params, q, 1e-6)
    assert solved.converged


def test_bodies_that_no_input_moves_are_refused() -> None:
    """Two chassis-pivoted arms sharing a ball joint hold each other still: the counts
    call it one redundancy, but nothing moves them."""
    car = four_corner_car()
    extra = {
        "A1": (500.0, 0.0, 100.0),
        "A2": (500.0, 0.0, 200.0),
        "B1": (700.0, 0.0, 100.0),
        "B2": (700.0, 0.0, 200.0),
        "X": (600.0, 80.0, 150.0),
    }
    points = car.points + tuple(Point(n, xyz) for n, xyz in extra.items())
    bodies = (
        *(
            dataclasses.replace(b, points=(*b.points, "A1", "A2", "B1", "B2"))
            if b.name == "Chassis"
            else b
            for b in car.bodies
        ),
        Body("ArmA", ("A1", "A2", "X")),
        Body("ArmB", ("B1", "B2", "X")),
    )
    model = Model(dataclasses.replace(car, points=points, bodies=bodies))
    mob = model.mobility()
    assert mob.stuck_bodies == ("ArmA", "ArmB") and not mob.locked_inputs
    assert not mob.ok and any("STUCK" in line for line in mob.problems())
    with pytest.raises(ModelError) as info:
        model.solve()
    assert "ArmA, ArmB" in info.value.render()


def test_under_constrained_is_exit_2_in_check_and_solve(make_workbook, capsys) -> None:
    # The tie rod ends at a new point XX instead of the upright's TO: the upright spins.
    extra = {"Hard Points!B17": "XX", "Hard Points!C17": 60, "Hard Points!D17": 560}
    extra |= {"Hard Points!E17": 140, "Index!C6": "'Hard Points'!B2:E17", "Geometry!C6": "XX"}
    path = make_workbook(extra)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "UNDER-CONSTRAINED" in err
    # The free motions, named: the upright about its ball joints, the tie rod about TI;
    # the two lone ends and the edit that joins them, on the tie rod's row (Geometry!A6).
    assert "car.xlsx: Geometry!A6: a free motion at design" in err
    assert "Upright turns about the line through" in err and "UB" in err and "LB" in err
    assert "Tie rod turns about an axis through TI" in err
    assert "TO is on one body only (Upright)" in err and "XX is on one body only (Tie rod)" in err
    assert "on the row of Tie rod, TO in place of XX would locate every body" in err
    assert main(["solve", str(path)]) == 2
    assert "UNDER-CONSTRAINED" in capsys.readouterr().err


def test_healthy_cars_have_every_input_free(car_model: Model) -> None:
    mob = car_model.mobility()
    assert mob.ok and not mob.locked_inputs and not mob.stuck_bodies
