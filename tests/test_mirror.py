"""Symmetry: the one naming rule, the left-side workbook against the fully typed one,
conflicts, and the four-corner template written by ``suspension-sim new``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
from openpyxl.utils import get_column_letter, quote_sheetname

from suspension_sim.api import Model
from suspension_sim.cli import main
from suspension_sim.description import Car
from suspension_sim.errors import WorkbookError
from suspension_sim.sweeps.run import run_sweep
from suspension_sim.sweeps.spec import MotionSpec, SweepSpec
from suspension_sim.workbook import read_car
from suspension_sim.workbook.examples import load_source, load_toml
from suspension_sim.workbook.mirror import (
    Generated,
    generated_by_symmetry,
    is_left,
    left_tokens,
    mirror_car,
    right_name,
)

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "workbooks" / "fsae_car.xlsx"
RIGHT = re.compile(r"^(FR|RR)(_|$)")
"""Right-side names of the example car, written out independently of the rule."""


# -- the naming rule ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("FL_UCA_F", "FR_UCA_F"),
        ("FL_UCA_R", "FR_UCA_R"),  # the rear pivot's R is not a side token
        ("RL_Damper", "RR_Damper"),
        ("LF_UBJ", "RF_UBJ"),
        ("LR Toe link", "RR Toe link"),
        ("UCA_L", "UCA_R"),
        ("L_Rocker", "R_Rocker"),
        ("Front Left", "Front Right"),
        ("front left upright", "front right upright"),
        ("FRONT-LEFT.WC", "FRONT-RIGHT.WC"),
        ("fl_wc", "fr_wc"),
        ("FL", "FR"),
    ],
)
def test_left_names_get_right_twins(left: str, right: str) -> None:
    assert is_left(left)
    assert right_name(left) == right


@pytest.mark.parametrize(
    "name", ["Chassis", "Rack", "LCA_F", "FL1_UCA", "Leftover", "PH_C", "FR_UBJ", "ARB"]
)
def test_names_without_a_left_word_are_shared(name: str) -> None:
    assert left_tokens(name) == ()
    assert right_name(name) == name


def test_generated_summary_counts() -> None:
    line = Generated(points=1, bodies=14, wheels=2, dampers=0).summary()
    assert "1 point," in line and "14 bodies" in line and "2 wheels" in line
    assert "0 dampers" in line
    assert "generated nothing" in Generated().summary()


# -- the left-side workbook ----------------------------------------------------------------
SECTIONS = ("Hard Points", "Components", "Wheels", "Damping")


def left_side_workbook(target: Path, extra_points: Sequence[Sequence[Any]] = ()) -> Path:
    """workbooks/fsae_car.xlsx with every right-side row and Components cell deleted, the
    Symmetry option set, and `extra_points` appended to Hard Points."""
    wb = openpyxl.load_workbook(FULL)
    index = wb["Index"]
    ranges = {row[0].value: row[1] for row in index.iter_rows(min_row=2, max_col=2)}
    for sheet in SECTIONS:
        ws = wb[sheet]
        rows = [list(r) for r in ws.iter_rows(values_only=True)]
        kept = [rows[0]] + [r for r in rows[1:] if not RIGHT.match(str(r[0]))]
        if sheet == "Components":
            kept = [
                [r[0]] + [v for v in r[1:] if v is not None and not RIGHT.match(str(v))]
                for r in kept
            ]
        if sheet == "Hard Points":
            kept += [list(p) for p in extra_points]
        for row in ws.iter_rows():
            for cell in row:
                cell.value = None
        width = max(len(r) for r in kept)
        for i, r in enumerate(kept, start=1):
            for j, v in enumerate(r, start=1):
                ws.cell(row=i, column=j, value=v)
        ranges[sheet].value = f"{quote_sheetname(sheet)}!A1:{get_column_letter(width)}{len(kept)}"
    options = wb["User Options"]
    row = next(r for r in options.iter_rows(min_row=2, max_col=2) if r[0].value == "Symmetry")
    row[1].value = "mirror left to right"
    wb.save(target)
    return target


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Car:
    """workbooks/fsae_car.xlsx, loaded and saved by openpyxl as the left-side copy is.

    openpyxl saves numbers with 16 significant digits, so a float that needs 17 (the
    wheel points computed from the contact patch) loses its last bit in any openpyxl
    save: both workbooks compared go through the same save.
    """
    path = tmp_path_factory.mktemp("full") / "fsae_car.xlsx"
    openpyxl.load_workbook(FULL).save(path)
    car = read_car(path)
    original = read_car(FULL)
    assert [p.name for p in car.points] == [p.name for p in original.points]
    assert np.allclose(
        [p.xyz for p in car.points], [p.xyz for p in original.points], rtol=1e-15, atol=0.0
    )
    return car


@pytest.fixture(scope="module")
def left_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return left_side_workbook(tmp_path_factory.mktemp("mirror") / "left.xlsx")


def test_left_side_workbook_has_only_the_left_side(left_only: Path) -> None:
    wb = openpyxl.load_workbook(left_only, read_only=True)
    cells = [r[0] for r in wb["Hard Points"].iter_rows(min_row=2, values_only=True)]
    wb.close()
    names = [n for n in cells if n is not None]
    assert names and not any(RIGHT.match(n) for n in names)
    assert any(n.startswith("FL_") for n in names) and any(n.startswith("RL_") for n in names)


def test_left_side_gives_exactly_the_fully_typed_car(left_only: Path, full: Car) -> None:
    car = read_car(left_only)
    generated = generated_by_symmetry(car)
    assert car == full  # names, order, coordinates (exact), bodies, wheels, rack, dampers
    assert car.warnings == ()
    # what Symmetry generated = the right-side items of the fully typed car
    assert generated == Generated(
        points=sum(bool(RIGHT.match(p.name)) for p in full.points),
        bodies=sum(bool(RIGHT.match(b.name)) for b in full.bodies),
        wheels=sum(bool(RIGHT.match(w.name)) for w in full.wheels),
        dampers=sum(bool(RIGHT.match(d.body)) for d in full.dampers),
    )
    assert generated.points == 32 and generated.bodies == 14
    assert generated.wheels == 2 and generated.dampers == 2
    assert not generated_by_symmetry(full)


def test_left_side_gives_the_same_model_and_poses(left_only: Path, full: Car) -> None:
    a, b, committed = Model(read_car(left_only)), Model(full), Model(read_car(FULL))
    assert a.topology.param_names == b.topology.param_names
    assert [j.kind for j in a.topology.joints] == [j.kind for j in b.topology.joints]
    assert np.array_equal(a.frame, b.frame)
    for kwargs in (
        {"shocks": {"FL_Damper": 10.0, "RR_Damper": -5.0}, "rack": 12.0},
        {"chassis": (0.0, 0.0, -8.0, 1.0, 0.5, 0.0)},
    ):
        pa, pb = a.solve(**kwargs), b.solve(**kwargs)  # type: ignore[arg-type]
        assert list(pa.points.index) == list(pb.points.index)
        assert np.max(np.abs(pa.points.to_numpy() - pb.points.to_numpy())) <= 1e-12
        # the committed workbook itself (its 17-digit wheel points): the same poses too
        pc = committed.solve(**kwargs)  # type: ignore[arg-type]
        assert np.max(np.abs(pa.points.to_numpy() - pc.points.to_numpy())) <= 1e-12


def test_check_says_what_symmetry_generated(
    left_only: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(left_only)]) == 0
    out = capsys.readouterr().out
    assert "generated the right side: 32 points, 14 bodies, 2 wheels, 2 dampers" in out
    assert main(["check", str(FULL)]) == 0
    assert "Symmetry" not in capsys.readouterr().out


def test_a_right_point_typed_as_its_mirror_is_accepted(tmp_path: Path, full: Car) -> None:
    x, y, z = full.point("FL_UBJ")
    path = left_side_workbook(tmp_path / "same.xlsx", [["FR_UBJ", x, -y, z]])
    assert read_car(path).point("FR_UBJ").tolist() == [x, -y, z]
    assert len(read_car(path).points) == len(full.points)


def test_symmetry_on_a_fully_typed_car_changes_nothing(tmp_path: Path, full: Car) -> None:
    wb = openpyxl.load_workbook(FULL)
    row = next(r for r in wb["User Options"].iter_rows(max_col=2) if r[0].value == "Symmetry")
    row[1].value = "Mirror Left To Right"  # words match case- and space-insensitively
    wb.save(tmp_path / "both.xlsx")
    car = read_car(tmp_path / "both.xlsx")
    assert car == full
    assert not generated_by_symmetry(car)
    assert len(car.warnings) == 1 and "Symmetry is on but generated nothing" in car.warnings[0]


def test_a_conflicting_right_point_names_both_cells(tmp_path: Path, full: Car) -> None:
    x, y, z = full.point("FL_UBJ")
    path = left_side_workbook(tmp_path / "clash.xlsx", [["FR_UBJ", x, -y + 1.0, z]])
    wb = openpyxl.load_workbook(path, read_only=True)
    rows = [r[0] for r in wb["Hard Points"].iter_rows(values_only=True)]
    wb.close()
    left_cell = f"'Hard Points'!A{rows.index('FL_UBJ') + 1}".replace("'", "")
    right_cell = f"Hard Points!A{rows.index('FR_UBJ') + 1}"
    with pytest.raises(WorkbookError) as info:
        read_car(path)
    text = info.value.render()
    assert right_cell in text and left_cell in text
    assert "FR_UBJ" in text and "FL_UBJ" in text
    assert info.value.where is not None and info.value.where.endswith(right_cell)


# -- the TOML sources use the same rule ------------------------------------------------------
def test_toml_mirror_is_the_workbook_rule(tmp_path: Path) -> None:
    source_car = load_source("fsae_car")  # symmetry = "mirror left to right"
    left = replace(
        source_car,
        points=tuple(p for p in source_car.points if not RIGHT.match(p.name)),
        bodies=tuple(
            replace(b, points=tuple(p for p in b.points if not RIGHT.match(p)))
            for b in source_car.bodies
            if not RIGHT.match(b.name)
        ),
        wheels=tuple(w for w in source_car.wheels if not RIGHT.match(w.name)),
        dampers=tuple(d for d in source_car.dampers if not RIGHT.match(d.body)),
    )
    mirrored, generated = mirror_car(left)
    assert mirrored == source_car
    assert generated == Generated(32, 14, 2, 2)
    text = (ROOT / "suspension_sim" / "data" / "examples" / "fsae_car.toml").read_text()
    old = tmp_path / "old.toml"
    old.write_text(text.replace("[options]", '[mirror]\nsides = { FL = "FR" }\n\n[options]'))
    with pytest.raises(WorkbookError, match="symmetry"):
        load_toml(old)


# -- the four-corner template ------------------------------------------------------------------
@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("new") / "mycar.xlsx"
    assert main(["new", str(path)]) == 0
    return path


def test_new_writes_a_four_corner_car_that_checks_clean(
    template: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(template)]) == 0
    car = read_car(template)
    assert sorted(w.name for w in car.wheels) == ["FL", "FR", "RL", "RR"]
    assert len(car.dampers) == 4 and car.rack is not None
    # four distinct corners: front/rear by x, left/right by y of the wheel centres
    centres = {w.name: car.point(w.centre) for w in car.wheels}
    assert centres["FL"][0] == centres["FR"][0] > centres["RL"][0] == centres["RR"][0]
    assert centres["FL"][1] == -centres["FR"][1] > 0 and centres["RL"][1] == -centres["RR"][1] > 0
    assert car.warnings == ()
    wb = openpyxl.load_workbook(template, read_only=True)
    notes = [r[0] for r in wb["Index"].iter_rows(min_col=4, max_col=4, values_only=True)]
    wb.close()
    assert any("TEMPLATE" in str(n) for n in notes) and any("Symmetry" in str(n) for n in notes)


@pytest.mark.parametrize(
    ("motion", "values"),
    [
        ("heave", (-30.0, -15.0, 0.0, 15.0, 30.0)),
        ("roll", (-2.0, -1.0, 0.0, 1.0, 2.0)),
        ("pitch", (-1.5, 0.0, 1.5)),
        ("steer", (-30.0, -10.0, 0.0, 10.0, 30.0)),
    ],
)
def test_template_solves_every_standard_motion(
    template: Path, motion: str, values: tuple[float, ...]
) -> None:
    model = Model(read_car(template))
    result = run_sweep(model, SweepSpec(motion, MotionSpec(motion, values)))
    assert result.problems == []
    assert len(result.poses) == len(values)
    assert all(p.converged for p in result.poses)
    # the step at 0 is the design condition
    design = next(p for p, v in zip(result.poses, values, strict=True) if v == 0.0)
    assert np.max(np.abs(design.points.to_numpy() - model.solve().points.to_numpy())) < 1e-9
