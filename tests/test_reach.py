"""How far each input can go: link-length bounds, reach walks, near-limit warnings,
input limits (damper lengths, rack travel) and refused absurd states.

Truths: a rocker driven by a damper has its dead points where the damper lines
up with the rocker arm (length = D -+ r, closed form); the solver itself closes
just inside a walked limit and not just outside it.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from _cars import double_wishbone_corner

from suspension_sim import load
from suspension_sim.api import Model
from suspension_sim.cli import main
from suspension_sim.description import Body, Car, Damper, Options, Point
from suspension_sim.errors import InputError, SolveError
from suspension_sim.solve.reach import check_reach, input_reach, link_bounds, near_limits
from suspension_sim.workbook import read_car
from suspension_sim.workbook.writer import write_car

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"


def rocker_car(r: float = 60.0, d: float = 200.0, angle_deg: float = 50.0) -> Car:
    """A rocker about the z axis (pivots P1, P2), arm r to M, damper from C (on the x
    axis, d from the pivot) to M. The damper length runs from d - r to d + r."""
    a = math.radians(angle_deg)
    pts = {
        "P1": (0.0, 0.0, 0.0),
        "P2": (0.0, 0.0, 50.0),
        "M": (r * math.cos(a), r * math.sin(a), 0.0),
        "C": (d, 0.0, 0.0),
    }
    return Car(
        name="rocker",
        options=Options(),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=(
            Body("Chassis", ("P1", "P2", "C")),
            Body("Rocker", ("P1", "P2", "M")),
            Body("Damper", ("C", "M")),
        ),
        dampers=(Damper("Damper", "C", "M"),),
    )


def test_reach_of_a_rocker_matches_the_closed_form() -> None:
    car = rocker_car()
    model = Model(car)
    design = car.damper_design_length("Damper")
    reach = input_reach(model)["Damper"]
    lo, hi = reach.interval
    # Stroke = design - length; the dead points are at length d + r and d - r.
    assert lo == pytest.approx(design - 260.0, abs=2e-3)
    assert hi == pytest.approx(design - 140.0, abs=2e-3)
    assert reach.low.limited and reach.high.limited and "Rocker" in reach.high.bodies
    b_lo, b_hi = link_bounds(model)["Damper"]
    assert b_lo <= lo and hi <= b_hi  # the cheap bound contains the reach


def test_walked_limits_agree_with_the_solver() -> None:
    car = double_wishbone_corner()
    model = Model(dataclasses.replace(car, dampers=(Damper("Damper", "DMP_C", "DMP_M"),)))
    reach = input_reach(model)
    for name, kwargs in (("Damper", "shocks"), ("rack", "rack")):
        lo, hi = reach[name].interval
        for inside, outside in ((hi - 0.01, hi + 0.01), (lo + 0.01, lo - 0.01)):
            value = {"shocks": [inside]} if kwargs == "shocks" else {"rack": inside}
            assert model.solve(**value).converged
            value = {"shocks": [outside]} if kwargs == "shocks" else {"rack": outside}
            assert not model.solve(**value, on_failure="return").converged


def test_far_out_inputs_are_refused_before_solving() -> None:
    model = load(EXAMPLE)
    lo, hi = link_bounds(model)["rack"]
    assert lo < -47.8 and hi > 47.8  # a bound, not the reach
    with pytest.raises(SolveError) as info:
        model.solve(rack=1e4)
    assert info.value.where == "rack" and "beyond the reach" in info.value.render()
    check_reach(model, {}, 40.0)  # inside: nothing to say
    # A value inside the bound but out of reach still fails, with bounded work.
    pose = model.solve(rack=200.0, on_failure="return")
    assert not pose.converged and pose.info.nfev <= 100 + 400


def test_cli_exit_codes_for_unreachable_and_absurd_inputs(capsys) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings anywhere
        assert main(["solve", str(EXAMPLE), "--rack", "1e4"]) == 3
        err = capsys.readouterr().err
        assert "--rack" in err and "beyond the reach" in err
        assert main(["solve", str(EXAMPLE), "--rack", "1e300"]) == 2
        err = capsys.readouterr().err
        assert "--rack" in err and "far outside" in err and "inf" not in err
        assert main(["solve", str(EXAMPLE), "--shocks", "0", "0", "1e300", "0"]) == 2
        assert "RL_Damper" in capsys.readouterr().err


def test_check_reports_the_reach_of_every_input(capsys) -> None:
    assert main(["check", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    reach = input_reach(load(EXAMPLE))
    lo, hi = reach["FL_Damper"].interval
    assert f"FL_Damper stroke reachable {lo:+.2f} .. {hi:+.2f} mm" in out
    assert "(limits -25.00 .. +25.00)" in out
    lo, hi = reach["rack"].interval
    assert f"rack travel reachable {lo:+.2f} .. {hi:+.2f} mm (no limits declared)" in out


def test_near_dead_point_is_flagged_with_its_distance(capsys) -> None:
    model = load(EXAMPLE)
    hi = input_reach(model)["rack"].interval[1]
    assert main(["solve", str(EXAMPLE), "--rack", f"{hi - 0.8:.3f}"]) == 0
    out = capsys.readouterr().out
    assert f"rack is {0.8:.2f} mm of rack travel from a dead point at {hi:+.2f} mm" in out
    assert main(["solve", str(EXAMPLE), "--rack", "20"]) == 0
    assert "dead point" not in capsys.readouterr().out
    # A stroke near its dead point (the example's damper limits removed).
    car = model.car
    free = tuple(dataclasses.replace(d, min_length=None, max_length=None) for d in car.dampers)
    unlimited = Model(dataclasses.replace(car, dampers=free))
    top = input_reach(unlimited)["FL_Damper"].interval[1]
    pose = unlimited.solve(shocks={"FL_Damper": top - 0.5})
    lines = near_limits(pose)
    assert len(lines) == 1 and lines[0].startswith("FL_Damper is 0.50 mm of stroke")
    assert "FL_Rocker" in lines[0]
    assert near_limits(unlimited.solve(shocks={"FL_Damper": top - 5.0})) == []


def test_a_stroke_a_hair_past_its_limit_reads_consistently() -> None:
    model = load(EXAMPLE)  # strokes allowed -25 .. +25 mm (lengths 175 .. 225)
    with pytest.raises(InputError) as info:
        model.solve(shocks={"FL_Damper": 25.0001})
    text = info.value.render()
    assert "stroke 25.0001 mm" in text and "at most 25.0000 mm" in text
    with pytest.raises(InputError) as info:
        model.solve(shocks={"FL_Damper": -25.000001})
    assert "-25.000001" in info.value.render() and "at least -25.000000" in info.value.render()
    assert model.solve(shocks={"FL_Damper": 25.0}).converged  # the limit itself is allowed


def test_rack_travel_limits_from_the_workbook(make_workbook, tmp_path, capsys) -> None:
    edits = {
        "Index!C8": "Geometry!A15:F16",
        "Geometry!E15": "Min travel",
        "Geometry!F15": "Max travel",
        "Geometry!E16": -20,
        "Geometry!F16": 15.5,
    }
    path = make_workbook(edits)
    car = read_car(path)
    assert car.rack is not None
    assert (car.rack.min_travel, car.rack.max_travel) == (-20.0, 15.5)
    again = write_car(car, tmp_path / "again.xlsx")
    assert read_car(again) == car
    model = Model(car)
    with pytest.raises(InputError) as info:
        model.solve(rack=16.0)
    assert info.value.where == "rack" and "maximum travel 15.50 mm" in info.value.render()
    assert model.solve(rack=15.5).converged
    assert main(["solve", str(path), "--rack", "-21"]) == 2
    err = capsys.readouterr().err
    assert "--rack" in err and "minimum travel -20.00 mm" in err
    assert main(["check", str(path)]) == 0
    assert "(limits -20.00 .. +15.50)" in capsys.readouterr().out
    # In cm: the limits are lengths in the workbook's unit.
    cm = make_workbook({**edits, "Index!F4": "cm"} | _scaled_points(0.1), name="cm.xlsx")
    assert read_car(cm).rack.max_travel == pytest.approx(155.0)  # type: ignore[union-attr]
    bad = make_workbook({**edits, "Geometry!E16": 5, "Geometry!F16": -5}, name="bad.xlsx")
    assert main(["check", str(bad)]) == 2
    assert "Geometry!E16" in capsys.readouterr().err


def _scaled_points(factor: float) -> dict[str, object]:
    from conftest import POINT_ROWS, SMALL_POINTS

    out: dict[str, object] = {}
    for name, xyz in SMALL_POINTS.items():
        for col, v in zip("CDE", xyz, strict=True):
            out[f"Hard Points!{col}{POINT_ROWS[name]}"] = v * factor
    out |= {"Index!F8": 28, "Geometry!E12": 23, "Geometry!F12": 18}
    out |= {"Geometry!D20": 35, "Geometry!E20": 45}
    return out


@pytest.mark.parametrize(
    ("chassis", "where"),
    [
        ((0, 0, -1500, 0, 0, 0), "chassis (z)"),
        ((0, 0, 0, 1e6, 0, 0), "chassis (roll)"),
        ((0, 0, 0, 0, 95, 0), "chassis (pitch)"),
        ((0, 0, 0, 0, 0, 400), "chassis (yaw)"),
    ],
)
def test_absurd_chassis_states_are_refused(chassis: tuple, where: str) -> None:
    model = Model(double_wishbone_corner())
    with pytest.raises(InputError) as info:
        model.solve(chassis=chassis)
    assert info.value.where == where


@pytest.mark.parametrize("tolerance", [0.0, -1e-6, float("nan")])
def test_non_positive_tolerance_is_refused(tolerance: float) -> None:
    model = Model(double_wishbone_corner())
    with pytest.raises(InputError) as info:
        model.solve(tolerance=tolerance)
    assert info.value.where == "tolerance"
    assert np.isfinite(model.solve(tolerance=1e-9).info.max_residual_mm)
