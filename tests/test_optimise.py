"""Optimisation toward targets (suspension_sim.explore.optimise, command optimise).

Truths are independent of the optimiser: the tie-rod inner height that zeroes bump steer
is found by a brute-force scan of re-solved designs (run_sweep + numpy.polyfit); the
analytic design gradients are checked against central differences of re-solved designs;
link lengths against numpy norms of the moved points. The example car starts from a
deliberately bad design (both inner tie-rod points raised 4 mm).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from suspension_sim import load
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.explore.design_space import Variable, apply_offsets
from suspension_sim.explore.optimise import ANALYTIC, CLOSED, FINITE, optimise, prepare
from suspension_sim.explore.targets_spec import read_spec
from suspension_sim.model import KinematicModel
from suspension_sim.sweeps import run_sweep, standard_sweep
from suspension_sim.workbook.writer import write_car

CAR = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
RAISE_MM = 4.0
TIE = Variable("FL_TIE_I", "z", -10.0, 10.0, "FR_TIE_I")
HEAVE = "{motion: heave, start: -20, stop: 20, steps: 3}"


@pytest.fixture(scope="module")
def bad_car() -> KinematicModel:
    """The example car with both inner tie-rod points raised RAISE_MM: bump steer."""
    return KinematicModel(apply_offsets(load(CAR).car, [TIE], [RAISE_MM]))


def spec_file(tmp_path: Path, body: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


BUMP_STEER = f"""version: 1
variables:
  - {{point: FL_TIE_I, axis: z, range: [-10, 10], symmetric: true}}
objectives:
  - {{metric: toe_FL_deg, over: {HEAVE}, gain: 0, tolerance: 0.01, per: 25}}
"""


def toe_slope(model: KinematicModel, offset: float) -> float:
    """Bump-steer slope (deg per 25 mm of heave) of the model with the tie rods moved
    `offset` mm: a re-solved sweep and a numpy straight-line fit."""
    moved = KinematicModel(apply_offsets(model.car, [TIE], [offset]))
    spec = standard_sweep(moved, "heave", -20, 20, 3)
    result = run_sweep(moved, spec, keep_poses=False)
    assert not result.problems
    return float(np.polyfit(np.array(spec.motion.values), result.table["toe_FL_deg"], 1)[0] * 25)


def test_zero_bump_steer_matches_a_brute_force_scan(
    bad_car: KinematicModel, tmp_path: Path
) -> None:
    result = optimise(bad_car, read_spec(spec_file(tmp_path, BUMP_STEER)), gradients="analytic")
    # Independent: a scan of re-solved designs brackets the slope's sign change; a
    # parabola through three of them gives the root.
    grid = np.array([-4.5, -4.0, -3.5])
    slopes = np.array([toe_slope(bad_car, d) for d in grid])
    assert slopes[0] * slopes[-1] < 0
    roots = [r.real for r in np.roots(np.polyfit(grid, slopes, 2)) if abs(r.imag) < 1e-12]
    root = min(roots, key=lambda r: abs(r + 4.0))
    assert result.offsets[0] == pytest.approx(root, abs=0.01)
    assert abs(result.offsets[0] + RAISE_MM) < 0.5  # near the example car's own height
    outcome = result.outcomes[0]
    assert outcome.gradient == ANALYTIC
    assert outcome.before[0] == pytest.approx(toe_slope(bad_car, 0.0), rel=1e-9)
    assert abs(outcome.after[0]) < 1e-6
    assert result.met and result.feasible and not outcome.met_before


def test_a_box_that_excludes_the_optimum_puts_the_variable_on_its_face(
    bad_car: KinematicModel, tmp_path: Path
) -> None:
    z = float(bad_car.car.point_map()["FL_TIE_I"][2])
    body = BUMP_STEER + (
        "constraints:\n"
        f"  - {{point: FL_TIE_I, box: [[-1000, -1000, {z - 2.0}], [1000, 1000, 1000]]}}\n"
    )
    result = optimise(bad_car, read_spec(spec_file(tmp_path, body)), gradients="finite")
    assert result.outcomes[0].gradient == FINITE
    assert result.offsets[0] == pytest.approx(-2.0, abs=1e-6)
    box = result.outcomes[1]
    assert box.binds and box.met_after and box.gradient == CLOSED
    assert not result.outcomes[0].binds
    assert result.feasible and not result.met  # the bump steer cannot reach zero
    # The slope there is what a re-solved design gives at -2 mm.
    assert result.outcomes[0].after[0] == pytest.approx(toe_slope(bad_car, -2.0), rel=1e-6)


def test_a_range_end_is_reported(bad_car: KinematicModel, tmp_path: Path) -> None:
    body = BUMP_STEER.replace("range: [-10, 10]", "range: [-1.5, 10]")
    result = optimise(bad_car, read_spec(spec_file(tmp_path, body)), starts=3, seed=7)
    assert result.offsets[0] == pytest.approx(-1.5, abs=1e-9)
    assert result.at_bound == ["FL_TIE_I.z"]
    assert not result.met
    # Multi-start: the design, then two scrambled-Sobol points of the range; all end on
    # the range's end (the slope has one sign over the whole range), the best is kept.
    firsts = [float(s.start[0]) for s in result.starts]
    assert firsts[0] == 0.0 and len(set(firsts)) == 3
    assert all(-1.5 <= f <= 10 for f in firsts)
    assert [float(s.end[0]) for s in result.starts] == pytest.approx([-1.5] * 3, abs=1e-6)
    assert result.objective_after == min(s.objective for s in result.starts)


GRADIENTS = """version: 1
variables:
  - {point: FL_UCA_F, axis: z, range: [-5, 5], symmetric: true}
  - {point: FL_LCA_R, axis: y, range: [-5, 5], symmetric: true}
  - {point: FL_TIE_O, axis: x, range: [-5, 5]}
objectives:
  - {metric: roll_centre_height_front_mm, target: 40, tolerance: 1}
  - {metric: camber_FL_deg, between: [-2, 0]}
constraints:
  - {link: [FL_UCA_F, FL_LCA_R], length: [0, 1000]}
  - {link: [FR_LCA_R, FL_TIE_O], length: [0, 2000]}
  - {metric: toe_FL_deg, over: {motion: heave, start: -20, stop: 20, steps: 3},
     within: [-1, 1], relative: true}
  - {metric: camber_FL_deg, over: {motion: heave, start: -20, stop: 20, steps: 3},
     gain: 0.8, tolerance: 0.5, per: 25}
  - {metric: camber_FL_deg, over: {motion: roll, start: 0.5, stop: 1.5, steps: 2},
     within: [-1, 1], relative: true}
  - {metric: ackermann_front_pct, at: {motion: steer, value: 60}, between: [-200, 200]}
"""


def test_analytic_and_closed_form_gradients_match_central_differences(tmp_path: Path) -> None:
    """Design metrics, every step of a motion (relative to its step at 0, or to the design
    pose when the motion has none), a slope, and one finite-difference term (Ackermann)."""
    model = KinematicModel(load(CAR).car)
    problem, base = prepare(model, read_spec(spec_file(tmp_path, GRADIENTS)), gradients="analytic")
    assert problem.sources[:7] == [ANALYTIC] * 2 + [CLOSED] * 2 + [ANALYTIC] * 3
    finite, _ = prepare(model, read_spec(spec_file(tmp_path, GRADIENTS)), gradients="finite")
    assert finite.sources == [FINITE] * 2 + [CLOSED] * 2 + [FINITE] * 4
    x = np.array([1.0, -0.5, 0.7])
    jac = problem.jacobian(x, problem.evaluate(x))
    jac_fd = finite.jacobian(x, finite.evaluate(x))
    assert [j.shape for j in jac] == [(1, 3)] * 4 + [(3, 3), (1, 3), (2, 3), (1, 3)]
    h = 1e-3
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        up, down = problem.evaluate(x + e), problem.evaluate(x - e)
        for i in range(8):
            central = (up.values[i] - down.values[i]) / (2 * h)
            exact = problem.sources[i] != FINITE
            assert jac[i][:, j] == pytest.approx(central, rel=1e-5 if exact else 1e-3, abs=1e-7)
            # forward differences (step 1e-3 mm): looser
            assert jac_fd[i][:, j] == pytest.approx(central, rel=1e-3, abs=1e-5), (i, j)
    # The link lengths are the moved points' distances.
    moved = apply_offsets(model.car, problem.variables, x.tolist()).point_map()
    got = problem.evaluate(x).values
    assert got[2][0] == pytest.approx(np.linalg.norm(moved["FL_UCA_F"] - moved["FL_LCA_R"]))
    assert got[3][0] == pytest.approx(np.linalg.norm(moved["FR_LCA_R"] - moved["FL_TIE_O"]))
    assert base.values[0][0] != got[0][0]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_command_writes_a_workbook_that_reloads_to_the_reported_values(
    bad_car: KinematicModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_car(bad_car.car, tmp_path / "bad.xlsx")
    before = _digest(source)
    spec = spec_file(tmp_path, BUMP_STEER)
    out, report = tmp_path / "new.xlsx", tmp_path / "report"
    args = ["optimise", str(source), str(spec), "--out", str(out), "--report", str(report)]
    assert main(args) == 0
    assert _digest(source) == before  # the input is never written
    terms = pd.read_csv(report / "terms.csv")
    variables = pd.read_csv(report / "variables.csv")
    new = load(out)
    z_after = float(new.car.point_map()["FL_TIE_I"][2])
    assert z_after == pytest.approx(variables["coordinate_after_mm"][0], abs=1e-9)
    assert float(new.car.point_map()["FR_TIE_I"][2]) == pytest.approx(z_after, abs=1e-9)
    slope = toe_slope(KinematicModel(new.car), 0.0)
    assert slope == pytest.approx(terms["after_min"][0], abs=1e-9)
    assert abs(slope) < 1e-6
    text = (report / "optimise.md").read_text(encoding="utf-8")
    assert "toe_FL_deg gain per 25 over heave: " in text and "charts/01_toe_FL_deg" in text
    assert len(list((report / "charts").glob("*.png"))) == 1
    # Existing outputs: refused without --force, replaced with it.
    assert main(args) == 2
    assert "exists" in capsys.readouterr().err
    assert main([*args, "--force"]) == 0
    assert _digest(source) == before


def test_command_refuses_the_input_as_output(tmp_path: Path) -> None:
    source = write_car(load(CAR).car, tmp_path / "car.xlsx")
    before = _digest(source)
    spec = spec_file(tmp_path, BUMP_STEER)
    assert main(["optimise", str(source), str(spec), "--out", str(source), "--force"]) == 2
    link = tmp_path / "link.xlsx"
    os.symlink(source, link)
    assert main(["optimise", str(source), str(spec), "--out", str(link), "--force"]) == 2
    assert main(["optimise", str(link), str(spec), "--out", str(source), "--force"]) == 2
    assert main(["optimise", str(source), str(spec), "--out", str(tmp_path / "x.csv")]) == 2
    assert (
        main(
            ["optimise", str(source), str(spec), "--out", str(tmp_path / "n.xlsx"), "--starts", "0"]
        )
        == 2
    )
    assert _digest(source) == before


def test_command_exit_1_when_targets_are_not_met(bad_car: KinematicModel, tmp_path: Path) -> None:
    source = write_car(bad_car.car, tmp_path / "bad.xlsx")
    body = BUMP_STEER.replace("range: [-10, 10]", "range: [-1, 10]")
    spec = spec_file(tmp_path, body)
    report = tmp_path / "r"
    args = ["--starts", "2", "--gradients", "finite", "--report", str(report)]
    assert main(["optimise", str(source), str(spec), "--out", str(tmp_path / "n.xlsx"), *args]) == 1
    starts = pd.read_csv(report / "starts.csv")
    assert len(starts) == 2 and starts["FL_TIE_I.z_start_mm"][0] == 0.0
    terms = pd.read_csv(report / "terms.csv")
    assert terms["gradient"].tolist() == [FINITE] and not terms["met_after"][0]
    assert load(tmp_path / "n.xlsx").car.point_map()["FL_TIE_I"][2] == pytest.approx(
        bad_car.car.point_map()["FL_TIE_I"][2] - 1.0, abs=1e-9
    )


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        (
            "version: 1\nvariables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\n",
            None,
            "no objectives",
        ),
        (
            "variables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\nobjectives:\n"
            "  - {metric: toe_FL_deg, wobble: 3, between: [0, 1]}\n",
            4,
            "unknown key 'wobble'",
        ),
        (
            "variables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\nobjectives:\n"
            "  - {metric: toe_FL_deg}\n",
            4,
            "no requirement",
        ),
        (
            "variables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\nconstraints:\n"
            "  - {metric: toe_FL_deg, gain: 0, tolerance: 1}\n",
            4,
            "give over:",
        ),
        (
            "variables:\n  - {point: FL_TIE_I, axis: q, range: [-1, 1]}\nconstraints:\n"
            "  - {metric: toe_FL_deg, between: [0, 1]}\n",
            2,
            "axis 'q'",
        ),
        (
            "variables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\nconstraints:\n"
            "  - {link: [FL_TIE_I], length: [0, 1]}\n",
            4,
            "2 entries",
        ),
        (
            "variables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\nconstraints:\n"
            "  - {metric: toe_FL_deg, relative: true, between: [0, 1]}\n",
            4,
            "needs over:",
        ),
    ],
)
def test_spec_errors_name_file_and_line(
    tmp_path: Path, body: str, line: int | None, words: str
) -> None:
    path = spec_file(tmp_path, body)
    with pytest.raises(InputError) as info:
        read_spec(path)
    assert words in info.value.message
    assert info.value.where == (str(path) if line is None else f"{path}:{line}")


def test_names_that_do_not_fit_the_car_name_the_spec_line(tmp_path: Path) -> None:
    model = KinematicModel(load(CAR).car)
    head = "variables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\nconstraints:\n"
    cases = [
        ("  - {metric: toe_FL_degs, between: [0, 1]}\n", "toe_FL_deg"),
        ("  - {point: FL_TIE_X, box: [[0, 0, 0], [1, 1, 1]]}\n", "FL_TIE_X"),
        ("  - {metric: toe_FL_deg, over: wobble, between: [0, 1]}\n", "wobble"),
    ]
    for k, (term, hint) in enumerate(cases):
        path = spec_file(tmp_path, head + term, f"s{k}.yaml")
        with pytest.raises(InputError) as info:
            prepare(model, read_spec(path))
        assert info.value.where == f"{path}:4", info.value.render()
        assert hint in info.value.render()


def test_a_motion_the_car_cannot_complete_is_refused_with_the_solvers_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example's sweeps.yaml defines 'steer' in rack mm (a named sweep wins over the
    standard motion): 90 mm of rack is past the linkage's reach."""
    body = (
        "variables:\n  - {point: FL_TIE_I, axis: z, range: [-1, 1]}\nobjectives:\n"
        "  - {metric: toe_FL_deg, at: {motion: steer, value: 90}, between: [-90, 90]}\n"
    )
    spec = spec_file(tmp_path, body)
    out = tmp_path / "n.xlsx"
    assert main(["optimise", str(CAR), str(spec), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the design itself cannot be evaluated" in err and "is not solved" in err
    assert not out.exists()
