"""`batch_metrics` against `pose_metrics`, state by state.

* every example workbook, random states inside the damper limits, both
  presets, with and without rates: the same columns in the same order and
  the same values (1e-9 in mm / deg / ratios; instant-centre coordinates and
  swing arms within their conditioning, see `tolerance`);
* a front axle with no kingpin points (kingpin axis from the steering twist);
* a state that did not converge: NaN except its inputs, as `pose_metrics`;
* `columns=` picks and orders columns; an unknown name is an `InputError`
  naming ``columns`` with a suggestion; chunking does not change a value.

Both share the metric formulas (`place_wheels`, `geometry_columns`,
`rate_columns`, `centre_columns` with a leading state axis; tests/test_metrics_*.py
check those against closed-form cases). What is independent here is what feeds
them: `pose_metrics` solves one dense least-squares IFT system per pose
(`solve.sensitivity`) and places the copies with ``instance_positions``, where
`batch_metrics` uses batched block solves of the engine's Jacobian, the
bordered travel system reduced to the tangent space, batched carrier twists
and the part transforms; and the chunking, column selection and NaN handling
of the batch.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _metric_cars import fixed_wheel_car
from test_batch import log_path, random_states

import suspension_sim
from suspension_sim import Model
from suspension_sim.errors import InputError
from suspension_sim.metrics import metric_of, pose_metrics
from suspension_sim.metrics.batch import batch_metrics

ROOT = Path(__file__).resolve().parents[1]
WORKBOOKS = sorted(p for p in (ROOT / "workbooks").glob("*.xlsx") if p.stem != "template")
SAME = 1e-9
CENTRES = {
    "fvic",
    "svic",
    "fvsa",
    "svsa",
    "fvic_axis",
    "svic_axis",
    "fvic_arms",
    "svic_arms",
    "svic_anti_dive",
    "svic_anti_lift",
    "svic_anti_squat",
    "roll_centre_height",
    "roll_centre_lateral",
    "pitch_centre",
}


def tolerances(row: dict[str, float]) -> dict[str, float]:
    """Allowed difference per column: 1e-9, except instant centres and swing arms.

    A centre at distance D (its largest coordinate in the row, mm) is where
    two nearly parallel lines cross (their angle ~ L / D): a change of the
    tangents at rounding level (~1e-13 relative; LU per block here, one dense
    least squares in `pose_metrics`) moves every coordinate of it by
    ~1e-13 D^2 / mm. At 3 km that still asks ~1e-10 relative agreement. Roll
    and pitch centres lie on lines through those centres: D is the largest
    front-view (side-view) swing arm of the row; OptimumK's roll centre
    (`roll_centre_axis_height`) lies on lines through the screw axes' pierce
    points, so its D is the farthest of those (`fvic_axis`).
    """
    size: dict[tuple[str, str], float] = {}
    found = {}
    for key, v in row.items():
        hit = metric_of(key)
        assert hit is not None, key
        found[key] = hit
        if hit[0].id in CENTRES and np.isfinite(v):
            place = (hit[0].id, hit[1])
            size[place] = max(size.get(place, 0.0), abs(v))
    # Roll and pitch centres: lines through the force-based centres of their wheels.
    swing = {"fvsa": 0.0, "svsa": 0.0, "fvic_axis": 0.0}
    for (mid, _where), d in size.items():
        if mid in swing:
            swing[mid] = max(swing[mid], d)
    out = {}
    for key, (m, where, _c) in found.items():
        d = size.get((m.id, where), 0.0)
        if m.id in ("roll_centre_height", "roll_centre_lateral"):
            d = swing["fvsa"]
        elif m.id == "roll_centre_axis_height":  # lines through the screw axes' pierce points
            d = swing["fvic_axis"]
        elif m.id == "pitch_centre":
            d = swing["svsa"]
        out[key] = SAME + 1e-13 * d * d
    return out


def assert_rows_equal(table: pd.DataFrame, rows: list[dict[str, float]]) -> None:
    """Each table row equals its `pose_metrics` dictionary (keys, order, values, NaN)."""
    assert len(table) == len(rows)
    for i, row in enumerate(rows):
        assert list(table.columns) == list(row), i
        got = table.iloc[i].to_numpy(dtype=float)
        tol = tolerances(row)
        for key, a, b in zip(row, got, row.values(), strict=True):
            if np.isnan(b) or np.isinf(b):
                assert a == b or (np.isnan(a) and np.isnan(b)), (i, key, a, b)
            else:
                assert abs(a - b) <= tol[key], (i, key, a, b, a - b)


@pytest.fixture(scope="module", params=WORKBOOKS, ids=[p.stem for p in WORKBOOKS])
def solved(request: pytest.FixtureRequest) -> suspension_sim.solve.batch.BatchResult:
    model = suspension_sim.load(request.param)
    res = model.solve_batch(**random_states(model, 6, seed=5), method="numpy")
    assert res.converged.all()
    return res


@pytest.mark.parametrize("convention", ["iso", "optimumk"])
@pytest.mark.parametrize("rates", [False, True])
def test_equals_pose_metrics_on_every_workbook(solved, convention: str, rates: bool) -> None:  # type: ignore[no-untyped-def]
    table = batch_metrics(solved, convention, rates)
    rows = [pose_metrics(solved.pose(i), convention, rates) for i in range(len(solved))]
    assert_rows_equal(table, rows)
    assert table.attrs["convention"] == convention


def test_kingpin_from_the_steering_twist() -> None:
    """Front wheels without kingpin points: the axis comes from the rack tangent."""
    car = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx").car
    wheels = tuple(
        dataclasses.replace(w, kingpin_lower=None, kingpin_upper=None)
        if w.name.startswith("F")
        else w
        for w in car.wheels
    )
    model = Model(dataclasses.replace(car, wheels=wheels))
    res = model.solve_batch(**random_states(model, 4, seed=2), method="numpy")
    for rates in (False, True):
        table = batch_metrics(res, "iso", rates)
        assert_rows_equal(table, [pose_metrics(res.pose(i), "iso", rates) for i in range(4)])
        assert np.all(np.isfinite(table["caster_FL_deg"]))


def test_car_whose_wheels_move_no_damper_takes_rates_pose_by_pose() -> None:
    """One wheel on a fixed hub, no damper: no square travel system, so the rate
    columns come from `pose_metrics` per state; the geometry is still batched."""
    car = fixed_wheel_car(
        np.array([0.0, 600.0, 260.0]),
        np.array([0.05, 1.0, -0.03]),
        (np.array([5.0, 560.0, 120.0]), np.array([-10.0, 540.0, 330.0])),
    )
    model = Model(car)
    chassis = np.zeros((3, 6))
    chassis[:, 2], chassis[:, 3] = [0.0, 5.0, -5.0], [0.0, 1.0, 2.0]
    res = model.solve_batch(chassis=chassis, method="numpy")
    for rates in (False, True):
        table = batch_metrics(res, "optimumk", rates)
        assert_rows_equal(table, [pose_metrics(res.pose(i), "optimumk", rates) for i in range(3)])
    assert np.all(np.isfinite(table["camber_FL_deg"]))


@pytest.fixture(scope="module")
def unreachable() -> suspension_sim.solve.batch.BatchResult:
    car = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    states = log_path(car, 7)
    states["rack"][3] = 150.0  # far past what the tie rods can follow
    res = car.solve_batch(**states, method="numpy")
    assert list(np.flatnonzero(~res.converged)) == [3]
    return res


def test_state_that_did_not_converge_keeps_only_its_inputs(unreachable) -> None:  # type: ignore[no-untyped-def]
    res = unreachable
    table = batch_metrics(res, "iso", rates=True)
    assert_rows_equal(table, [pose_metrics(res.pose(i), "iso", True) for i in range(len(res))])
    row = table.iloc[3]
    inputs = {"chassis_heave", "chassis_roll", "chassis_pitch", "rack", "steering_wheel_angle"}
    inputs |= {"stroke", "damper_length"}
    for key, v in row.items():
        found = metric_of(str(key))
        assert found is not None
        assert np.isfinite(v) == (found[0].id in inputs), key
    assert row["rack_mm"] == 150.0


def test_columns_pick_and_order_and_chunks_change_nothing(unreachable) -> None:  # type: ignore[no-untyped-def]
    res = unreachable
    full = batch_metrics(res, "optimumk", rates=True)
    pick = ["roll_centre_height_front_mm", "camber_FL_deg", "motion_ratio_RR", "rack_mm"]
    part = batch_metrics(res, "optimumk", rates=True, columns=pick)
    assert list(part.columns) == pick
    pd.testing.assert_frame_equal(part, full[pick])
    rates_only = ["motion_ratio_FL", "bump_steer_FR_deg_per_mm", "steer_rate_FL_deg_per_mm"]
    rates_only += ["steering_toe_gain_FL_deg_per_deg", "steering_ratio_front"]
    rates_only += ["motion_ratio_heave_RR"]
    part = batch_metrics(res, "optimumk", rates=True, columns=rates_only)  # no twists needed
    pd.testing.assert_frame_equal(part, full[rates_only])
    for alone in ("roll_centre_axis_height_rear_mm", "pushrod_length_FL_mm"):  # one column
        part = batch_metrics(res, "optimumk", rates=True, columns=[alone])
        pd.testing.assert_frame_equal(part, full[[alone]])
        assert np.isfinite(part[alone]).sum() == len(res) - 1  # all but the unsolved state
    small = batch_metrics(res, "optimumk", rates=True, chunk=2)
    pd.testing.assert_frame_equal(small, full, rtol=0, atol=SAME)
    geometry = batch_metrics(res, "optimumk", columns=["toe_FR_deg"])
    assert np.allclose(
        geometry["toe_FR_deg"], full["toe_FR_deg"], rtol=0, atol=1e-12, equal_nan=True
    )


def test_unknown_column_names_columns_and_suggests(unreachable) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="Did you mean 'camber_FL_deg'") as exc:
        batch_metrics(unreachable, columns=["camber_FL_deg", "cambr_FL_deg"])
    assert exc.value.where == "columns"
    with pytest.raises(InputError) as exc:  # a rate column without rates=True is unknown too
        batch_metrics(unreachable, rates=False, columns=["motion_ratio_FL"])
    assert exc.value.where == "columns"
