"""The optimiser against answers found in closed form on planar cars (issue 25's hand check).

Both cars have every chassis pivot axis parallel to X, so each corner's front view is a
planar linkage (tests/_metric_cars.py). Two textbook facts give the tie-rod inner point
that zeroes bump steer without running any solver:

* **Parallelogram** (equal, parallel, horizontal arms): the upright translates without
  turning, every point of it moving on a circle of the arm's radius. The tie rod keeps
  its length over the whole travel, so toe stays exactly constant, only when its inner
  point is the outer point minus the arm vector (front view): the same height as the
  outer point here. Any other height turns the wheel as it moves.
* **Instant centre** (converging arms): at design the upright turns about the line through
  the front-view instant centre parallel to X. The tie rod's length rate is zero, so bump
  steer (the exact derivative at design) is zero, when its inner point lies on the line
  from its outer point through that centre.

Each test starts from a deliberately bad design (inner tie-rod points raised), gives the
optimiser one symmetric variable (the inner points' height) and a bump-steer objective,
and checks the height it finds against the closed form. The test computes the closed form
itself from the arm coordinates.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from _metric_cars import PARALLEL_ARMS, TYPICAL_ARMS, wishbone_car

from suspension_sim import load
from suspension_sim.cli import main
from suspension_sim.explore.design_space import Variable, apply_offsets
from suspension_sim.explore.optimise import optimise
from suspension_sim.explore.targets_spec import read_spec
from suspension_sim.model import KinematicModel
from suspension_sim.sweeps import run_sweep, standard_sweep
from suspension_sim.workbook.writer import write_car

TIE = Variable("FL_TIE_I", "z", -10.0, 10.0, "FR_TIE_I")
RAISE_MM = 6.0


def parallelogram_height() -> float:
    """Closed form: the inner tie-rod height (mm) that keeps the tie rod parallel and equal
    to the arms in front view: outer point minus the lower arm's vector."""
    arm = np.array(PARALLEL_ARMS["LBJ"]) - np.array(PARALLEL_ARMS["LCA_F"])
    outer = np.array(PARALLEL_ARMS["TIE_O"])
    inner_y = PARALLEL_ARMS["TIE_I"][1]
    # the inner point must be at outer - arm in (y, z); its y is the car's
    assert outer[1] - arm[1] == pytest.approx(inner_y)
    return float(outer[2] - arm[2])


def instant_centre_height(inner_y: float) -> float:
    """Closed form: the height (mm) at `inner_y` of the front-view line from the outer
    tie-rod point through the instant centre of the converging arms (the arms' lines'
    crossing, solved here as a 2 x 2 system)."""
    p = {k: np.array(v)[1:] for k, v in TYPICAL_ARMS.items()}  # (y, z)
    lower, upper = p["LBJ"] - p["LCA_F"], p["UBJ"] - p["UCA_F"]
    s, _ = np.linalg.solve(np.column_stack([lower, -upper]), p["UCA_F"] - p["LCA_F"])
    centre = p["LCA_F"] + s * lower
    outer = p["TIE_O"]
    slope = (centre[1] - outer[1]) / (centre[0] - outer[0])
    return float(outer[1] + (inner_y - outer[0]) * slope)


def spec_file(tmp_path: Path, objective: str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(
        "version: 1\n"
        "variables:\n"
        "  - {point: FL_TIE_I, axis: z, range: [-10, 10], symmetric: true}\n"
        "objectives:\n"
        f"  - {objective}\n",
        encoding="utf-8",
    )
    return path


OVER_HEAVE = (
    "{metric: toe_FL_deg, over: {motion: heave, start: -20, stop: 20, steps: 5}, "
    "gain: 0, tolerance: 0.01, per: 25}"
)


def raised(arms: dict[str, tuple[float, float, float]]) -> KinematicModel:
    return KinematicModel(apply_offsets(wishbone_car(arms=arms), [TIE], [RAISE_MM]))


def toe_over_heave(model: KinematicModel) -> np.ndarray:
    spec = standard_sweep(model, "heave", -20, 20, 9)
    result = run_sweep(model, spec, keep_poses=False)
    assert not result.problems
    return result.table["toe_FL_deg"].to_numpy()


def test_parallelogram_finds_the_height_that_keeps_toe_constant(tmp_path: Path) -> None:
    bad = raised(PARALLEL_ARMS)
    z_star = parallelogram_height()
    assert bad.car.point_map()["FL_TIE_I"][2] == pytest.approx(z_star + RAISE_MM)
    assert np.ptp(toe_over_heave(bad)) > 0.3  # the bad design steers: 0.55 deg over 40 mm

    result = optimise(bad, read_spec(spec_file(tmp_path, OVER_HEAVE)))
    assert result.met and result.feasible
    found = bad.car.point_map()["FL_TIE_I"][2] + result.offsets[0]
    assert found == pytest.approx(z_star, abs=1e-4)  # 6e-7 mm when written

    # The found car: toe constant over the whole travel (not only a zero fitted slope),
    # on both sides (the symmetric twin moved with it).
    moved = KinematicModel(apply_offsets(bad.car, [TIE], list(result.offsets)))
    assert moved.car.point_map()["FR_TIE_I"][2] == pytest.approx(found)
    assert np.ptp(toe_over_heave(moved)) < 1e-3


def test_instant_centre_finds_the_height_on_the_line_through_it(tmp_path: Path) -> None:
    bad = raised(TYPICAL_ARMS)
    inner_y = float(bad.car.point_map()["FL_TIE_I"][1])
    z_star = instant_centre_height(inner_y)
    objective = "{metric: bump_steer_FL_deg_per_mm, target: 0, tolerance: 0.0001}"

    result = optimise(bad, read_spec(spec_file(tmp_path, objective)), gradients="analytic")
    assert result.met and result.feasible
    assert abs(result.outcomes[0].before[0]) > 1e-3  # the bad design has bump steer
    assert abs(result.outcomes[0].after[0]) < 1e-6
    found = bad.car.point_map()["FL_TIE_I"][2] + result.offsets[0]
    assert found == pytest.approx(z_star, abs=1e-6)  # 1.2e-9 mm when written


def test_command_writes_the_closed_form_height_and_leaves_the_input(tmp_path: Path) -> None:
    workbook = tmp_path / "parallelogram.xlsx"
    write_car(raised(PARALLEL_ARMS).car, workbook)
    before = hashlib.sha256(workbook.read_bytes()).hexdigest()
    out = tmp_path / "optimised.xlsx"
    code = main(
        ["optimise", str(workbook), str(spec_file(tmp_path, OVER_HEAVE)), "--out", str(out)]
    )
    assert code == 0
    assert hashlib.sha256(workbook.read_bytes()).hexdigest() == before
    points = load(out).car.point_map()
    z_star = parallelogram_height()
    assert points["FL_TIE_I"][2] == pytest.approx(z_star, abs=1e-3)
    assert points["FR_TIE_I"][2] == pytest.approx(z_star, abs=1e-3)
