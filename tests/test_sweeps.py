"""Sweep definitions (YAML and the workbook's Sweeps section) and the sweep runner.

Truths are computed here from the solved points (docs/conventions.md formulas)
or by independent solves, not taken from the runner.
"""

from __future__ import annotations

import gc
import re
import textwrap
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest
from _cars import four_corner_car

from suspension_sim import Model
from suspension_sim.errors import InputError, WorkbookError
from suspension_sim.solve.continuation import check_branch, move, pose_distance
from suspension_sim.solve.pose import Pose
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import wheel_travel
from suspension_sim.sweeps import (
    MotionSpec,
    SweepResult,
    SweepSpec,
    find_sweep,
    load_sweeps,
    run_named_sweep,
    run_sweep,
)
from suspension_sim.sweeps.sheet import SHEET_HEADER
from suspension_sim.workbook import read_car, write_car

Z = np.array([0.0, 0.0, 1.0])

SWEEPS_YAML = """\
version: 1
sweeps:
  roll:
    description: body roll
    motion: roll
    start: -2
    stop: 2
    steps: 5
  bump_FL:
    motion: bump FL
    values: [-20, 0, 20]
  roll_at_steer:
    motion: roll
    start: -1
    stop: 1
    steps: 3
    grid:
      motion: steer
      values: [-10, 10]
  held:
    motion: heave
    start: 0
    stop: -10
    steps: 2
    fixed: {rack: 5, roll: 0.5}
  two_wheels:
    motion: bump
    wheel: FL
    values: [10]
    targets:
      FR_Damper: wheel_travel(FR, -5)
"""


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


def write(tmp_path: Path, text: str, name: str = "sweeps.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def camber(pose: Pose, wheel_name: str) -> float:
    """docs/conventions.md: camber = -asin(s.n), s the spin axis pointing outboard (deg)."""
    w = next(w for w in pose.model.car.wheels if w.name == wheel_name)
    c = pose.points.loc[w.centre].to_numpy(dtype=float)
    a = pose.points.loc[w.axis_point].to_numpy(dtype=float)
    s = (a - c) / np.linalg.norm(a - c)
    design = pose.model.car.point(w.axis_point) - pose.model.car.point(w.centre)
    if design[1] * pose.model.car.point(w.centre)[1] < 0:  # axis point inboard: flip
        s = -s
    return float(np.degrees(-np.arcsin(s @ Z)))


# -- definitions ---------------------------------------------------------------------
def test_yaml_sweeps_are_read(tmp_path: Path) -> None:
    path = write(tmp_path, SWEEPS_YAML)
    specs = load_sweeps(path)
    assert list(specs) == ["roll", "bump_FL", "roll_at_steer", "held", "two_wheels"]
    roll = specs["roll"]
    assert roll.motion.kind == "roll" and roll.motion.values == (-2.0, -1.0, 0.0, 1.0, 2.0)
    assert roll.description == "body roll" and roll.where == f"{path}:3"
    assert specs["bump_FL"].motion.of == "FL" and specs["bump_FL"].motion.values == (-20, 0, 20)
    grid = specs["roll_at_steer"].grid
    assert grid is not None and grid.kind == "steer" and grid.values == (-10.0, 10.0)
    assert specs["held"].fixed == {"rack": 5.0, "roll": 0.5}
    assert specs["two_wheels"].targets == {"FR_Damper": wheel_travel("FR", -5.0)}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("sweeps:\n  a:\n    motion: roll\n    start: 0\n    stop 1\n", 5, "not valid YAML"),
        ("sweeps:\n  a:\n    motion: roll\n    strat: 0\n", 4, "unknown key 'strat'"),
        ("sweeps:\n  a:\n    motion: wobble\n    values: [1]\n", 3, "unknown motion 'wobble'"),
        (
            "sweeps:\n  a:\n    motion: roll\n    start: 0\n    stop: 1\n    steps: 2.5\n",
            6,
            "whole",
        ),
        ("sweeps:\n  a:\n    motion: roll\n    values: [1, x]\n", 4, "must be a number"),
        ("sweeps:\n  a:\n    motion: bump\n    values: [1]\n", 3, "needs a wheel"),
        (
            "sweeps:\n  a:\n    motion: roll\n    values: [1]\n    targets:\n"
            "      FL_Damper: travel(FL)\n",
            6,
            "cannot read the target",
        ),
        ("sweeps:\n  a:\n    motion: roll\n    values: [1]\n  a:\n    motion: roll\n", 5, "twice"),
        ("sweep:\n  a: {}\n", 1, "unknown top-level key"),
    ],
)
def test_yaml_errors_name_the_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=message) as exc:
        load_sweeps(path)
    assert exc.value.where == f"{path}:{line}"


def test_a_definition_that_does_not_fit_the_car_names_its_line(
    tmp_path: Path, model: Model
) -> None:
    path = write(tmp_path, "sweeps:\n  a:\n    motion: bump XX\n    values: [1]\n")
    with pytest.raises(InputError, match="unknown wheel 'XX'") as exc:
        run_sweep(model, load_sweeps(path)["a"])
    assert exc.value.where == f"{path}:3"


def sweeps_workbook(tmp_path: Path, rows: list[list[object]]) -> Path:
    """The test car written by the workbook writer, plus a Sweeps sheet and index row."""
    path = write_car(four_corner_car(), tmp_path / "car.xlsx")
    wb = openpyxl.load_workbook(path)
    ws = wb.create_sheet("Sweeps")
    ws.append(["notes above the section are ignored"])
    ws.append(list(SHEET_HEADER))
    for row in rows:
        ws.append(row)
    index = wb["Index"]
    free = next(r for r in range(1, 50) if index.cell(r, 1).value is None)
    index.cell(free, 1, "Sweeps")
    index.cell(free, 2, f"Sweeps!A2:L{2 + len(rows)}")
    wb.save(path)
    return path


def test_sweeps_section_of_a_workbook(tmp_path: Path) -> None:
    path = sweeps_workbook(
        tmp_path,
        [
            ["heave", "heave", -10, 10, 3],
            ["roll_at_steer", "roll", -1, 1, 3, "steer", -10, 10, 2],
            ["bump_FL", "bump FL", 5, None, 1, None, None, None, None, "rack=2; roll=0.5"],
            [
                "held",
                "heave",
                0,
                0,
                1,
                None,
                None,
                None,
                None,
                None,
                "FR_Damper=wheel_travel(FR, 3)",
            ],
        ],
    )
    assert read_car(path) == four_corner_car()  # the car reader accepts the section
    specs = load_sweeps(path)
    assert list(specs) == ["heave", "roll_at_steer", "bump_FL", "held"]
    assert specs["heave"].motion.values == (-10.0, 0.0, 10.0)
    assert specs["heave"].where == "car.xlsx: Sweeps!A3"
    grid = specs["roll_at_steer"].grid
    assert grid is not None and grid.kind == "steer" and grid.values == (-10.0, 10.0)
    assert specs["bump_FL"].motion.of == "FL" and specs["bump_FL"].motion.values == (5.0,)
    assert specs["bump_FL"].fixed == {"rack": 2.0, "roll": 0.5}
    assert specs["held"].targets == {"FR_Damper": wheel_travel("FR", 3.0)}
    assert load_sweeps(write_car(four_corner_car(), tmp_path / "plain.xlsx")) == {}


@pytest.mark.parametrize(
    ("row", "cell", "message"),
    [
        (["a", "wobble", 0, 1, 2], "B3", "unknown motion"),
        (["a", "roll", 0, 1, "many"], "E3", "steps must be a number"),
        (["a", "roll", 0, 1, 0], "E3", "steps must be a whole number"),
        (["a", "roll", 0, 1, 2, None, 1, 2, 2], "G3", "grid value without a grid motion"),
        (["a", "roll", 0, 1, 2, None, None, None, None, "rack 5"], "J3", "cannot read"),
    ],
)
def test_sweeps_section_errors_name_the_cell(
    tmp_path: Path, row: list[object], cell: str, message: str
) -> None:
    path = sweeps_workbook(tmp_path, [row])
    with pytest.raises(WorkbookError, match=message) as exc:
        load_sweeps(path)
    assert exc.value.where == f"car.xlsx: Sweeps!{cell}"


def test_find_sweep_looks_beside_the_workbook_and_lists_names(tmp_path: Path) -> None:
    path = write_car(four_corner_car(), tmp_path / "car.xlsx")
    write(tmp_path, SWEEPS_YAML)
    assert find_sweep(path, "roll").motion.kind == "roll"
    with pytest.raises(InputError, match="Did you mean 'roll'") as exc:
        find_sweep(path, "rol")
    assert "bump_FL" in (exc.value.hint or "")


def spaced_damper_workbook(tmp_path: Path) -> Path:
    """The test car with its front-left damper body renamed 'FL Damper' (a space)."""
    path = write_car(four_corner_car(), tmp_path / "car.xlsx")
    wb = openpyxl.load_workbook(path)
    renamed = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value == "FL_Damper":
                    c.value = "FL Damper"
                    renamed += 1
    assert renamed == 2  # its Components row and its Damping row
    wb.save(path)
    return path


def damper_length(pose: Pose, corner: str) -> float:
    """Eye-to-eye length of a corner's damper from the solved points (mm)."""
    c = pose.points.loc[f"{corner}_DMP_C"].to_numpy(dtype=float)
    m = pose.points.loc[f"{corner}_DMP_M"].to_numpy(dtype=float)
    return float(np.linalg.norm(m - c))


def test_names_with_spaces_in_a_sweep_file(tmp_path: Path) -> None:
    path = spaced_damper_workbook(tmp_path)
    model = Model(read_car(path))
    assert "FL Damper" in model.damper_names
    yaml_path = write(
        tmp_path,
        """\
        sweeps:
          stroke:
            motion: stroke FL Damper
            values: [4]
          held:
            motion: stroke FR Damper     # FR_Damper: spaces ~ underscores
            values: [2]
            fixed: {FL Damper: 3}
          targeted:
            motion: bump FR
            values: [5]
            targets:
              FL Damper: wheel_travel(FL, -6)
          typo:
            motion: stroke FL Dampr
            values: [1]
        """,
    )
    specs = load_sweeps(yaml_path)
    assert specs["stroke"].motion.of == "FL Damper"
    design = model.solve()
    (pose,) = run_sweep(model, specs["stroke"]).poses
    assert damper_length(pose, "FL") == pytest.approx(damper_length(design, "FL") - 4, abs=1e-6)
    assert damper_length(pose, "FR") == pytest.approx(damper_length(design, "FR"), abs=1e-9)
    (pose,) = run_sweep(model, specs["held"]).poses
    assert damper_length(pose, "FL") == pytest.approx(damper_length(design, "FL") - 3, abs=1e-6)
    assert damper_length(pose, "FR") == pytest.approx(damper_length(design, "FR") - 2, abs=1e-6)
    (pose,) = run_sweep(model, specs["targeted"]).poses
    for wheel, want in (("FL", -6.0), ("FR", 5.0)):
        w = next(x for x in model.car.wheels if x.name == wheel)
        z = pose.points.loc[w.centre, "z"] - model.car.point(w.centre)[2]
        assert z == pytest.approx(want, abs=1e-6)
    with pytest.raises(InputError, match=re.escape("'FL Dampr'. Did you mean 'FL Damper'?")) as exc:
        specs["typo"].build(model)
    assert exc.value.where == f"{yaml_path}:15"
    # the workbook's own Sweeps section takes the same names
    wb = openpyxl.load_workbook(path)
    ws = wb.create_sheet("Sweeps")
    ws.append(list(SHEET_HEADER))
    ws.append(["s", "stroke FR_Damper", 1, 1, 1, None, None, None, None, "FL Damper=3"])
    wb["Index"].append(["Sweeps", "Sweeps!A1:L2"])
    wb.save(path)
    sheet = load_sweeps(path)["s"]
    assert sheet.fixed == {"FL Damper": 3.0}
    (pose,) = run_sweep(model, sheet).poses
    assert damper_length(pose, "FL") == pytest.approx(damper_length(design, "FL") - 3, abs=1e-6)


# -- running -------------------------------------------------------------------------
def test_roll_sweep_of_the_symmetric_car_is_mirrored(model: Model) -> None:
    spec = SweepSpec("roll", MotionSpec("roll", (-2.0, -1.0, 0.0, 1.0, 2.0)))
    result = run_sweep(model, spec)
    assert result.ok and result.steps == [0, 1, 2, 3, 4]
    poses = dict(zip(result.values[:, 0], result.poses, strict=True))
    table = result.table.set_index("chassis_roll_deg")
    for r in (1.0, 2.0):
        for left, right in (("FL", "FR"), ("RL", "RR")):
            truth = camber(poses[r], left)
            assert truth == pytest.approx(camber(poses[-r], right), abs=1e-9)
            assert truth != pytest.approx(camber(poses[0.0], left), abs=0.1)  # it did change
            # the metrics table agrees with the independent camber, mirrored too
            assert table.loc[r, f"camber_{left}_deg"] == pytest.approx(truth, abs=1e-9)
            assert table.loc[-r, f"camber_{right}_deg"] == pytest.approx(truth, abs=1e-9)
            assert table.loc[r, f"toe_{left}_deg"] == pytest.approx(
                table.loc[-r, f"toe_{right}_deg"], abs=1e-9
            )


def test_warm_started_sweep_equals_cold_solves(model: Model) -> None:
    spec = SweepSpec(
        "grid",
        MotionSpec("bump", (-20.0, 0.0, 20.0), of="FL"),
        grid=MotionSpec("rack", (-10.0, 10.0)),
    )
    result = run_sweep(model, spec)
    assert len(result.poses) == 6 and result.ok
    for i, pose in zip(result.steps, result.poses, strict=True):
        cold = result.motion[i].state.solve(model)  # from the design guess
        assert pose_distance(pose, cold) < 1e-6


def test_fixed_inputs_and_targets_are_held(tmp_path: Path, model: Model) -> None:
    specs = load_sweeps(write(tmp_path, SWEEPS_YAML))
    held = run_sweep(model, specs["held"])
    assert [p.rack for p in held.poses] == [5.0, 5.0]
    assert [p.chassis[3] for p in held.poses] == [0.5, 0.5]
    assert [p.chassis[2] for p in held.poses] == [0.0, -10.0]
    two = run_sweep(model, specs["two_wheels"])
    (pose,) = two.poses
    for wheel, want in (("FL", 10.0), ("FR", -5.0)):
        w = next(x for x in model.car.wheels if x.name == wheel)
        z = pose.points.loc[w.centre, "z"] - model.car.point(w.centre)[2]
        assert z == pytest.approx(want, abs=1e-6)


def test_an_unreachable_step_keeps_the_others(model: Model) -> None:
    spec = SweepSpec("bump", MotionSpec("bump", (0.0, 20.0, 300.0, 10.0), of="FL"))
    result = run_sweep(model, spec)
    assert result.steps == [0, 1, 3]
    assert list(result.table.index) == [0, 1, 3]
    assert result.table["wheel_travel_FL_mm"].tolist() == [0.0, 20.0, 10.0]
    (problem,) = result.problems
    assert problem.step == 2 and problem.values == (300.0,) and problem.kind == "unreachable"
    assert "cannot be reached" in problem.message and "joint" in problem.message
    assert "step 2 (wheel_travel_FL_mm = 300)" in result.summary()
    stroke = run_sweep(model, SweepSpec("s", MotionSpec("stroke", (5.0, 80.0), of="FL_Damper")))
    assert stroke.steps == [0] and stroke.problems[0].kind == "input"
    assert "minimum length" in stroke.problems[0].message


def test_a_pose_on_another_branch_is_flagged(model: Model) -> None:
    """A guess deliberately on the other branch: the FL rocker over centre."""
    state = State(shocks={"FL_Damper": 36.0})
    design = model.solve()
    same = move(design, state)
    guess = same.params.copy()
    guess[model.topology.param_names.index("FL_Rocker.angle")] = -1.6
    other = state.solve(model, guess=guess)
    assert other.converged and pose_distance(other, same) > 30.0  # a real second assembly
    previous = move(design, State(shocks={"FL_Damper": 34.0}))
    assert check_branch(previous, same, state) is None
    jump = check_branch(previous, other, state)
    assert jump is not None and jump.body.startswith("FL_")
    assert "jumped to another assembly branch" in jump.explain()


def test_the_compiled_screen_gives_the_numpy_screens_verdict(
    model: Model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check_branch` with the kernel's distances and pass test (one call) and with the
    numpy model's: the same verdict, the same bodies and distances, on a clean step, a
    jump to the other assembly, and a step whose start repeats (the kernel's memo)."""
    from suspension_sim.solve import engine

    state = State(shocks={"FL_Damper": 36.0})
    design = model.solve()
    same = move(design, state)
    guess = same.params.copy()
    guess[model.topology.param_names.index("FL_Rocker.angle")] = -1.6
    other = state.solve(model, guess=guess)
    previous = move(design, State(shocks={"FL_Damper": 34.0}))
    engine.compile_kernel()
    cases = [(previous, same), (previous, other), (same, other), (previous, other)]
    fast = [check_branch(a, b, state) for a, b in cases]
    with monkeypatch.context() as m:
        m.setattr(engine, "kernel_compiled", lambda: False)
        slow = [check_branch(a, b, state) for a, b in cases]
    assert fast[0] is None and slow[0] is None
    for f, s in zip(fast[1:], slow[1:], strict=True):
        assert f is not None and s is not None
        assert [b for b, _ in f.bodies] == [b for b, _ in s.bodies]
        assert np.allclose([d for _, d in f.bodies], [d for _, d in s.bodies], atol=1e-9)
        assert f.explain() == s.explain()


def test_a_jump_through_the_steering_dead_point_is_refused(model: Model) -> None:
    """Steer to just short of the steering arm's toggle (rack 66.527 mm on the test
    car), then back in one 10 mm step: the warm-started solve lands the right
    upright on its other assembly, with the steering arm flipped over the tie rod."""
    spec = SweepSpec("toggle", MotionSpec("steer", (20.0, 40.0, 60.0, 66.52, 56.5)))
    strict = run_sweep(model, spec, max_step_mm=20.0, halvings=0)
    assert strict.steps == [0, 1, 2, 3]
    (problem,) = strict.problems
    assert problem.kind == "branch jump" and problem.step == 4 and problem.values == (56.5,)
    assert "FR_" in problem.message and "refused" in problem.message
    assert "step 4 (rack_mm = 56.5): refused: body FR_" in strict.summary()
    # allowed to halve the step, the runner refuses the jumped pose and continues
    rescued = run_sweep(model, spec, max_step_mm=20.0)
    assert rescued.ok and rescued.steps == [0, 1, 2, 3, 4]
    (note,) = rescued.notes
    assert note.step == 4 and "FR_" in note.message
    continued = move(rescued.poses[3], spec.build(model)[4].state, max_step_mm=1.0)
    assert pose_distance(rescued.poses[4], continued) < 1e-6


def test_run_named_sweep_for_the_viewer(tmp_path: Path, model: Model) -> None:
    path = write_car(four_corner_car(), tmp_path / "car.xlsx")
    write(tmp_path, SWEEPS_YAML)
    poses = run_named_sweep(model, path, "bump_FL")
    assert len(poses) == 3 and all(p.converged for p in poses)
    other = write(tmp_path, SWEEPS_YAML.replace("bump_FL", "other"), "more.yaml")
    assert len(run_named_sweep(model, path, "other", sweep_file=other)) == 3


ROOT = Path(__file__).resolve().parents[1]


def test_the_yaml_example_in_the_docs_is_valid(tmp_path: Path, model: Model) -> None:
    text = (ROOT / "docs" / "sweeps.md").read_text(encoding="utf-8")
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    specs = load_sweeps(write(tmp_path, block))
    assert len(specs) == 6
    for name, spec in specs.items():
        if name != "steer_wheel":  # the test car has no steering ratio
            assert len(spec.build(model)) == len(spec.motion.values) * (
                len(spec.grid.values) if spec.grid else 1
            )


def test_bundled_sweeps_run_on_the_example_car() -> None:
    workbook = ROOT / "workbooks" / "fsae_car.xlsx"
    assert workbook.exists(), "run scripts/make_example_workbooks.py"
    import suspension_sim

    car = suspension_sim.load(str(workbook))
    specs = load_sweeps(ROOT / "workbooks" / "sweeps.yaml")
    assert set(specs) == {"heave", "roll", "pitch", "steer", "bump_FL", "roll_at_steer"}
    for spec in specs.values():
        result = run_sweep(car, spec)
        assert result.ok and not result.notes, result.summary()


# -- hostile text: exponents, limits, encodings -----------------------------------------
EXPONENTS_YAML = """\
sweeps:
  heave:
    motion: heave
    start: -1e1
    stop: 1E1
    steps: 3
    fixed: {rack: 5e0, roll: -5E-1, FL_Damper: 2.5e+0}
    targets:
      FR_Damper: wheel_travel(FR, -1e0)
  roll:
    motion: roll
    values: [-1e0, 0, 1.5e0, 2E0, .5e1]
    grid:
      motion: steer
      start: -1E1
      stop: 1e1
      steps: 2e0
  counted:
    motion: stroke FL_Damper
    start: 0
    stop: 1
    steps: 1e1
"""


def test_yaml_numbers_in_exponent_notation_are_numbers(tmp_path: Path) -> None:
    """YAML 1.1 (PyYAML) reads -1e1 and 2E3 as text; a sweep file reads them as numbers
    wherever a number is expected, and integers stay integers."""
    specs = load_sweeps(write(tmp_path, EXPONENTS_YAML))
    heave = specs["heave"]
    assert heave.motion.values == (-10.0, 0.0, 10.0)
    assert heave.fixed == {"rack": 5.0, "roll": -0.5, "FL_Damper": 2.5}
    assert heave.targets == {"FR_Damper": wheel_travel("FR", -1.0)}
    roll = specs["roll"]
    assert roll.motion.values == (-1.0, 0.0, 1.5, 2.0, 5.0)
    assert roll.grid is not None and roll.grid.values == (-10.0, 10.0)
    assert specs["counted"].motion.values == tuple(np.linspace(0, 1, 10))


def test_quoted_exponent_is_still_text(tmp_path: Path) -> None:
    path = write(tmp_path, "sweeps:\n  a:\n    motion: heave\n    values: ['-1e1']\n")
    with pytest.raises(InputError, match="must be a number, found '-1e1'") as exc:
        load_sweeps(path)
    assert exc.value.where == f"{path}:4"


HUGE_INT = "1" + "0" * 400


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("motion: heave\n    start: 0\n    stop: 1\n    steps: 1e9", 6, "from 1 to 10000"),
        ("motion: heave\n    start: -1e300\n    stop: 0\n    steps: 2", 4, "start -1e+300 mm"),
        ("motion: heave\n    start: 0\n    stop: 1e400\n    steps: 2", 5, "finite number"),
        (f"motion: heave\n    start: {HUGE_INT}\n    stop: 0\n    steps: 2", 4, "finite"),
        ("motion: stroke FL_Damper\n    values: [0, 1e6]", 4, "value 1e+06 mm is beyond"),
        ("motion: roll\n    values: [0, 91]", 4, "value 91 deg is beyond the limit"),
        ("motion: chassis yaw\n    values: [-1e3]", 4, "-1000 deg"),
        ("motion: chassis z\n    values: [-1001]", 4, "-1001 mm"),
        ("motion: steer deg\n    values: [1080, 1081]", 4, "1081 deg"),
        ("motion: heave\n    values: [0]\n    fixed: {roll: 1e6}", 5, "fixed roll 1e+06 deg"),
        ("motion: heave\n    values: [0]\n    fixed: {rack: -2e3}", 5, "fixed rack -2000 mm"),
        (
            "motion: heave\n    values: [0]\n    targets:\n      FR_Damper: wheel_travel(FR, 1e6)",
            6,
            "wheel travel 1e+06 mm",
        ),
        (
            "motion: heave\n    values: [0]\n    targets:\n      FR_Damper: coordinate(WC, z, 2e4)",
            6,
            "coordinate 20000 mm is beyond the limit of a sweep, 10000 mm",
        ),
        (
            "motion: heave\n    values: [" + ", ".join(["0"] * 10_001) + "]",
            4,
            "10001 entries, more than 10000",
        ),
        (
            "motion: roll\n    start: -1\n    stop: 1\n    steps: 200\n"
            "    grid:\n      motion: steer\n      start: -10\n      stop: 10\n      steps: 100",
            11,
            "200 x 100 = 20000 steps (grid), more than 10000",
        ),
    ],
)
def test_limits_are_checked_when_the_file_is_read(
    tmp_path: Path, body: str, line: int, message: str
) -> None:
    """One limit per quantity (docs/sweeps.md, 'Limits'), at the offending line, before
    a model is even loaded."""
    path = write(tmp_path, "sweeps:\n  a:\n    " + body + "\n")
    with pytest.raises(InputError) as exc:
        load_sweeps(path)
    assert message in exc.value.message
    assert exc.value.where == f"{path}:{line}"


def test_limits_themselves_are_accepted(tmp_path: Path) -> None:
    body = (
        "sweeps:\n  a:\n    motion: roll\n    values: [-90, 90]\n"
        "    grid: {motion: steer, start: -1000, stop: 1000, steps: 100}\n"
        "    fixed: {z: 1000}\n"
    )
    spec = load_sweeps(write(tmp_path, body))["a"]
    assert len(spec.motion.values) * len(spec.grid.values) == 200  # type: ignore[union-attr]
    many = "sweeps:\n  a:\n    motion: heave\n    start: 0\n    stop: 1\n    steps: 5000\n"
    many += "    grid: {motion: steer, values: [0, 1]}\n"  # 5000 x 2 = 10000 steps in all
    assert len(load_sweeps(write(tmp_path, many, "many.yaml"))["a"].motion.values) == 5000


def test_limits_of_specs_built_in_code() -> None:
    with pytest.raises(InputError, match="10001 values: more than 10000"):
        MotionSpec("heave", tuple(float(i % 10) for i in range(10_001)))
    with pytest.raises(InputError, match="value 95 deg is beyond"):
        MotionSpec("chassis", (0.0, 95.0), of="Roll")
    with pytest.raises(InputError, match="101 x 100 = 10100 steps"):
        SweepSpec("g", MotionSpec("heave", (0.0,) * 101), MotionSpec("rack", (0.0,) * 100))
    assert len(MotionSpec("chassis", (0.0, 95.0), of="x").values) == 2  # x is a length


@pytest.mark.parametrize(
    ("row", "cell", "message"),
    [
        (["a", "heave", -1e300, 0, 2], "C3", "start -1e+300 mm is beyond the limit"),
        (["a", "heave", 0, "1e400", 2], "D3", "stop must be a number"),
        (["a", "roll", 0, 1, 1e9], "E3", "from 1 to 10000"),
        (["a", "roll", -1, 1, 200, "steer", -10, 10, 100], "I3", "200 x 100 = 20000 steps"),
        (["a", "steer", -1e4, 0, 2], "C3", "-10000 mm"),
        (
            ["a", "roll", 0, 1, 2, None, None, None, None, "roll=1e3"],
            "J3",
            "Fixed: roll 1000 deg is beyond",
        ),
        (
            ["a", "heave", 0, 0, 1, None, None, None, None, None, "FR=wheel_travel(FR, 1e9)"],
            "K3",
            "1e+09 mm",
        ),
    ],
)
def test_sweeps_section_limits_name_the_cell(
    tmp_path: Path, row: list[object], cell: str, message: str
) -> None:
    path = sweeps_workbook(tmp_path, [row])
    with pytest.raises(WorkbookError) as exc:
        load_sweeps(path)
    assert message in exc.value.message
    assert exc.value.where == f"car.xlsx: Sweeps!{cell}"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "cp1252"])
def test_sweep_file_in_other_encodings(tmp_path: Path, encoding: str) -> None:
    """Notepad's 'Unicode' (UTF-16 with a mark), UTF-8 with a mark, and Windows-1252."""
    text = "# Hub Nr. 2: ±20 mm\n" + SWEEPS_YAML
    path = tmp_path / "sweeps.yaml"
    path.write_bytes(text.encode(encoding))
    plain = write(tmp_path, text, "plain.yaml")  # UTF-8 without a mark
    read, want = load_sweeps(path), load_sweeps(plain)
    assert read["roll"].where == f"{path}:4"
    assert repr(read).replace(str(path), "F") == repr(want).replace(str(plain), "F")


# -- long sweeps: no pose kept ------------------------------------------------------------
def _live_poses() -> int:
    gc.collect()
    return sum(isinstance(o, Pose) for o in gc.get_objects())


def test_sweep_without_poses_gives_the_same_table(model: Model) -> None:
    spec = SweepSpec(
        "grid",
        MotionSpec("bump", (-20.0, 0.0, 20.0, 300.0), of="FL"),  # 300 mm: unreachable
        grid=MotionSpec("rack", (-10.0, 10.0)),
    )
    kept = run_sweep(model, spec, convention="optimumk")
    lean = run_sweep(model, spec, convention="optimumk", keep_poses=False)
    assert len(kept.poses) == 6 and lean.poses == []
    assert lean.steps == kept.steps == [0, 1, 2, 4, 5, 6]
    pd.testing.assert_frame_equal(lean.table, kept.table)
    assert lean.table.attrs == kept.table.attrs == {"convention": "optimumk", "sweep": "grid"}
    assert [p.describe(lean.columns) for p in lean.problems] == [
        p.describe(kept.columns) for p in kept.problems
    ]

    def first_line(result: SweepResult) -> str:
        return re.sub(r"in [0-9.]+ s", "in T s", result.summary().splitlines()[0])

    assert (
        first_line(lean)
        == first_line(kept)
        == "sweep 'grid' (bump FL x rack): 6 of 8 steps solved in T s"
    )


def test_sweep_without_poses_holds_none(model: Model) -> None:
    spec = SweepSpec("s", MotionSpec("stroke", tuple(np.linspace(0, 4, 12)), of="FL_Damper"))
    run_sweep(model, spec, keep_poses=False)  # model caches filled once
    before = _live_poses()
    lean = run_sweep(model, spec, keep_poses=False)
    assert _live_poses() - before == 0 and len(lean.table) == 12
    kept = run_sweep(model, spec)  # the count does see kept poses
    assert _live_poses() - before >= 12 and len(kept.poses) == 12


# -- when a sweep loads the compiled kernel -----------------------------------------------
def test_short_sweeps_never_load_the_kernel_long_ones_do(
    model: Model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep of fewer than KERNEL_PAYS_STEPS steps stays on numpy (inside
    `engine.hold_load`, even where the lazy load would fire at once); a longer one loads
    the kernel once, before its steps. The load is recorded, not done (no numba here)."""
    import sys

    from suspension_sim.solve import engine
    from suspension_sim.sweeps import run as sweep_run

    loads: list[str] = []
    monkeypatch.delitem(sys.modules, "suspension_sim.solve.kernel", raising=False)
    for name, value in (
        ("_READY", False),
        ("_QUESTIONS", 0),
        ("_FIRST_ASKED", -1.0),
        ("_LOAD_TRIED", False),
        ("LOAD_AT_QUESTION", 1),  # outside hold_load, the first question would load
        ("LOAD_AFTER_S", 0.0),
    ):
        monkeypatch.setattr(engine, name, value)
    monkeypatch.setattr(engine, "load_kernel_if_cached", lambda: loads.append("load") or False)
    short = SweepSpec("short", MotionSpec("heave", (-5.0, 0.0, 5.0)))
    result = run_sweep(model, short)
    assert result.ok and len(result.steps) == 3 and loads == []
    n = sweep_run.KERNEL_PAYS_STEPS
    long = SweepSpec("long", MotionSpec("heave", tuple(np.linspace(-5.0, 5.0, n).tolist())))
    result = run_sweep(model, long, keep_poses=False)
    assert result.ok and len(result.steps) == n and loads[0] == "load"


def test_sweeps_section_comes_from_the_cache_until_the_workbook_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second read of an unchanged workbook's Sweeps section does not open it (the
    cells come from the cache) and gives the same sweeps, errors at the same cells; a
    saved change is read again."""
    from suspension_sim.sweeps import sheet

    monkeypatch.setenv("SUSPENSION_SIM_CACHE_DIR", str(tmp_path / "cache"))
    rows: list[list[object]] = [["heave", "heave", -10, 10, 3], ["b", "bump FL", 5, None, 1]]
    path = sweeps_workbook(tmp_path, rows)
    first = sheet.load_sheet(path)
    opened: list[Path] = []
    real = sheet.read_section

    def counted(*args: object) -> object:
        opened.append(Path(str(args[0])))
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sheet, "read_section", counted)
    again = sheet.load_sheet(path)
    assert opened == [] and again == first and again["b"].where == "car.xlsx: Sweeps!A4"
    rows[1][2] = 7  # the workbook changes: read again
    path.unlink()
    path = sweeps_workbook(tmp_path, rows)
    changed = sheet.load_sheet(path)
    assert opened == [path] and changed["b"].motion.values == (7.0,)
    rows[1][4] = "x"  # an error names its cell, from the cache as from the workbook
    path.unlink()
    path = sweeps_workbook(tmp_path, rows)
    for _ in range(2):
        with pytest.raises(WorkbookError) as exc:
            sheet.load_sheet(path)
        assert exc.value.where == "car.xlsx: Sweeps!E4"
    assert len(opened) == 2
