"""Front/rear and left/right from where the wheels are, never from their names.

`wheel_layout` is checked on hand-placed wheel centres, and copies of the
example car whose wheels are renamed (LF/RF/LR/RR, "Front Left", even names
that say the wrong corner) must give the very same numbers for every metric,
every axle metric included, column for column.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from suspension_sim import Model, load
from suspension_sim.description import (
    Car,
    Options,
    Point,
    Source,
    Wheel,
    WheelLayout,
    wheel_layout,
)
from suspension_sim.errors import WorkbookError
from suspension_sim.metrics import layout, pose_metrics
from suspension_sim.validation import corner_wheels

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
ORIGINAL = ("FL", "FR", "RL", "RR")
"""Wheel names of the example car, Wheels!A2:A5 (front left, front right, rear left, rear
right: its centres are at x = 0 and x = -1530 mm, y = +-595 and +-583 mm)."""


def car_with_wheels(
    centres: dict[str, tuple[float, float, float]],
    reference: tuple[float, float, float] | None = None,
) -> Car:
    """A car that is only wheels (enough for `wheel_layout`), each on Wheels!A2, A3, ..."""
    points = [Point(f"{n} centre", xyz) for n, xyz in centres.items()]
    points += [
        Point(f"{n} axis", (x, y - 50.0 * np.sign(y), z)) for n, (x, y, z) in centres.items()
    ]
    options = Options()
    if reference is not None:
        points.append(Point("REF", reference))
        options = Options(chassis_reference_point="REF")
    wheels = tuple(
        Wheel(
            n,
            "Upright",
            f"{n} centre",
            f"{n} axis",
            260.0,
            180.0,
            source=Source("Wheels", f"A{i}", "car.xlsx"),
        )
        for i, n in enumerate(centres, start=2)
    )
    return Car("wheels only", options, tuple(points), (), wheels)


def corners(lay: WheelLayout) -> dict[str, tuple[str, str]]:
    return {n: lay.corner(n) for n in lay.names}


# -- the rules on hand-placed wheels --------------------------------------------------------
def test_four_wheels_any_names_any_order() -> None:
    lay = wheel_layout(
        car_with_wheels(
            {
                "b": (-1530.0, -583.0, 260.0),
                "Front Left": (0.0, 595.0, 260.0),
                "RF": (2.0, -597.0, 259.0),  # a front right wheel, named like a rear one
                "x y": (-1528.0, 583.0, 260.0),
            }
        )
    )
    assert corners(lay) == {
        "b": ("rear", "right"),
        "Front Left": ("front", "left"),
        "RF": ("front", "right"),
        "x y": ("rear", "left"),
    }
    assert dict(lay.axles) == {"front": ("Front Left", "RF"), "rear": ("x y", "b")}
    assert dict(lay.sides) == {"left": ("Front Left", "x y"), "right": ("RF", "b")}
    assert lay.at("rear", "left") == "x y"


def test_sides_and_axles_are_relative_to_the_reference_point() -> None:
    # Origin at the rear axle, reference at the centre of gravity: the same answer.
    wheels = {
        "1": (1530.0, 595.0, 260.0),
        "2": (1530.0, -595.0, 260.0),
        "3": (0.0, 583.0, 260.0),
        "4": (0.0, -583.0, 260.0),
    }
    lay = wheel_layout(car_with_wheels(wheels, reference=(800.0, 0.0, 300.0)))
    assert corners(lay) == {
        "1": ("front", "left"),
        "2": ("front", "right"),
        "3": ("rear", "left"),
        "4": ("rear", "right"),
    }


@pytest.mark.parametrize(
    ("x", "reference_x", "name", "axle"),
    [
        (-1530.0, None, "FL", "rear"),  # behind the origin: rear, whatever the name
        (-1530.0, None, "corner", "rear"),
        (800.0, 0.0, "RL", "front"),  # ahead of the reference point
        (0.0, None, "corner", "front"),  # at the reference: front...
        (0.0, None, "FL", "front"),
        (0.0, None, "RL", "rear"),  # ...unless named as a rear wheel
        (0.0, None, "Rear Left", "rear"),
        (0.0, None, "LR", "rear"),
        (0.0, None, "RF", "front"),  # right front
        (-400.0, -400.0, "rear_left", "rear"),
    ],
)
def test_single_axle(x: float, reference_x: float | None, name: str, axle: str) -> None:
    ref = None if reference_x is None else (reference_x, 0.0, 0.0)
    lay = wheel_layout(car_with_wheels({name: (x, 590.0, 260.0)}, reference=ref))
    assert lay.corner(name) == (axle, "left")
    assert not lay.axles and not lay.sides


def test_single_axle_pair_has_its_axle_and_no_side() -> None:
    lay = wheel_layout(
        car_with_wheels({"L": (-1530.0, 590.0, 260.0), "R": (-1530.0, -590.0, 260.0)})
    )
    assert dict(lay.axles) == {"rear": ("L", "R")}
    assert not lay.sides


def test_examples_keep_their_corners() -> None:
    """The single-corner examples are placed as their names always said."""
    expected = {
        "fsae_car": {
            "FL": ("front", "left"),
            "FR": ("front", "right"),
            "RL": ("rear", "left"),
            "RR": ("rear", "right"),
        },
        "macpherson_front": {"FL": ("front", "left")},
        "five_link_rear": {"RL": ("rear", "left")},
        "solid_axle_rear": {"RL": ("rear", "left"), "RR": ("rear", "right")},
    }
    for stem, want in expected.items():
        assert corners(wheel_layout(load(ROOT / "workbooks" / f"{stem}.xlsx").car)) == want, stem


@pytest.mark.parametrize(
    ("centres", "message", "cells"),
    [
        (
            {"A": (0.0, 600.0, 260.0), "B": (0.0, -600.0, 260.0), "C": (5.0, 300.0, 260.0)},
            "3 wheels on the front axle",
            ("A2", "A3", "A4"),
        ),
        (
            {"A": (0.0, 600.0, 260.0), "B": (0.0, 550.0, 260.0)},
            "both on the front left",
            ("A2", "A3"),
        ),
        (
            {"A": (0.0, 600.0, 260.0), "B": (0.0, 0.0, 260.0)},
            "centre plane",
            ("A3",),
        ),
        (
            {"A": (0.0, 600.0, 260.0), "B": (-1000.0, 600.0, 260.0), "C": (-2000.0, 600.0, 260.0)},
            "3 axles",
            ("A2", "A3", "A4"),
        ),
    ],
)
def test_ambiguous_layout_is_refused(
    centres: dict[str, tuple[float, float, float]], message: str, cells: tuple[str, ...]
) -> None:
    with pytest.raises(WorkbookError) as err:
        wheel_layout(car_with_wheels(centres))
    text = err.value.render()
    assert message in text
    assert err.value.where == f"car.xlsx: Wheels!{cells[0]}"
    for cell in cells:
        assert f"Wheels!{cell}" in text


# -- renamed copies of the example car ------------------------------------------------------
def renamed(tmp_path: Path, names: tuple[str, ...]) -> Path:
    """A copy of the example car with Wheels!A2:A5 renamed (names appear nowhere else)."""
    path = tmp_path / "renamed.xlsx"
    shutil.copyfile(EXAMPLE, path)
    wb = openpyxl.load_workbook(path)
    sheet = wb["Wheels"]
    assert tuple(sheet[f"A{r}"].value for r in range(2, 6)) == ORIGINAL
    for r, name in enumerate(names, start=2):
        sheet[f"A{r}"] = name
    wb.save(path)
    return path


POSES = {
    "design": {},
    "moved": {"rack": 6.0, "chassis": (0.0, 0.0, -8.0, 1.2, -0.7, 0.0)},
}
RENAMES = [
    ("LF", "RF", "LR", "RR"),
    ("Front Left", "Front Right", "Rear Left", "Rear Right"),
    ("RR", "RL", "FR", "FL"),  # every name says the wrong corner
]


@pytest.fixture(scope="module")
def reference(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Model, dict[str, dict[str, float]]]:
    """The example car saved the same way with its own names (an openpyxl round trip
    may change the last digit of a coordinate), and its metrics at each pose."""
    model = load(renamed(tmp_path_factory.mktemp("original"), ORIGINAL), use_cache=False)
    return model, {k: pose_metrics(model.solve(**kw)) for k, kw in POSES.items()}  # type: ignore[arg-type]


@pytest.mark.parametrize("names", RENAMES, ids=["LF-RF-LR-RR", "words", "misleading"])
def test_renamed_wheels_give_identical_metrics(
    tmp_path: Path,
    names: tuple[str, ...],
    reference: tuple[Model, dict[str, dict[str, float]]],
) -> None:
    base, original = reference
    model = load(renamed(tmp_path, names), use_cache=False)
    rename = dict(zip(ORIGINAL, names, strict=True))
    base_slots = layout(base)
    slots = layout(model)
    # The same columns in the same order; the wheel's label is the only difference.
    assert slots == tuple((m, rename.get(w, w), c) for m, w, c in base_slots)
    for label, kw in POSES.items():
        got = pose_metrics(model.solve(**kw))  # type: ignore[arg-type]
        want = original[label]
        assert len(got) == len(want)
        a = np.array(list(got.values()))
        b = np.array(list(want.values()))
        np.testing.assert_array_equal(a, b, err_msg=label)  # NaN where NaN, else bit for bit
    lay = wheel_layout(model.car)
    fl, fr, rl, rr = names
    assert dict(lay.axles) == {"front": (fl, fr), "rear": (rl, rr)}
    assert dict(lay.sides) == {"left": (fl, rl), "right": (fr, rr)}
    # Every axle and side metric is there (Ackermann needs steer), and the antis follow
    # the axle, not the name.
    design = pose_metrics(model.solve(**POSES["moved"]))  # type: ignore[arg-type]
    for key in (
        "track_front_mm",
        "track_rear_mm",
        "roll_centre_height_front_mm",
        "roll_centre_height_rear_mm",
        "wheelbase_left_mm",
        "wheelbase_right_mm",
        "ackermann_front_pct",
        f"anti_dive_{fl}_pct",
        f"anti_dive_{fr}_pct",
        f"anti_squat_{rl}_pct",
        f"anti_lift_{rr}_pct",
    ):
        assert key in design and np.isfinite(design[key]), key
    assert f"anti_dive_{rl}_pct" not in design
    assert f"anti_squat_{fl}_pct" not in design


def test_validation_corners_follow_the_geometry(tmp_path: Path) -> None:
    model = load(renamed(tmp_path, RENAMES[2]))
    assert corner_wheels(model) == {
        "Front Left": "RR",
        "Front Right": "RL",
        "Rear Left": "FR",
        "Rear Right": "FL",
    }
