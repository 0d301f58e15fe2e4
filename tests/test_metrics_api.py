"""The public metrics API: column names, catalogue, presets, tables, corner models, speed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from _cars import double_wishbone_corner, four_corner_car

from suspension_sim import Model
from suspension_sim.description import Options
from suspension_sim.errors import InputError
from suspension_sim.metrics import (
    CATALOGUE,
    label,
    layout,
    metric_of,
    metrics_table,
    pose_metrics,
    wheel_dampers,
)
from suspension_sim.metrics.catalogue import markdown_table

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


def test_documented_columns_exist(model: Model) -> None:
    m = pose_metrics(model.solve())
    for key in (
        "camber_FL_deg",
        "toe_FL_deg",
        "wheel_travel_FL_mm",
        "motion_ratio_FL",
        "installation_ratio_FL",
        "roll_centre_height_front_mm",
        "track_front_mm",
        "wheelbase_left_mm",
        "chassis_heave_mm",
        "chassis_roll_deg",
        "chassis_pitch_deg",
        "stroke_FL_Damper_mm",
        "damper_length_FL_Damper_mm",
        "wheel_centre_FL_x_mm",
        "contact_point_RR_z_mm",
        "camber_gain_FL_deg_per_mm",
        "bump_steer_FL_deg_per_25mm",
        "roll_camber_FL_deg_per_deg",
        "anti_dive_FL_pct",
        "anti_squat_RL_pct",
        "ackermann_front_pct",
    ):
        assert key in m, key
    assert m["damper_length_FL_Damper_mm"] == pytest.approx(
        np.linalg.norm(model.car.point("FL_DMP_M") - model.car.point("FL_DMP_C"))
    )
    assert wheel_dampers(model) == {w: f"{w}_Damper" for w in ("FL", "FR", "RL", "RR")}


def test_every_column_maps_back_to_its_catalogue_entry(model: Model) -> None:
    m = pose_metrics(model.solve())
    for key in m:
        found = metric_of(key)
        assert found is not None, key
        metric, where, component = found
        assert metric.key(where, component) == key
    assert label("camber_gain_FL_deg_per_mm") == "camber gain FL [deg/mm]"
    assert label("motion_ratio_FL") == "motion ratio FL [-]"
    assert metric_of("not_a_metric") is None
    assert "damper over wheel" in CATALOGUE["motion_ratio"].description.lower()


def test_docs_describe_every_metric() -> None:
    text = (ROOT / "docs" / "metrics.md").read_text()
    for mid, metric in CATALOGUE.items():
        assert f"`{metric.stem}" in text or mid in text, mid
    # The "All columns" table is the catalogue's own, regenerated, not edited by hand.
    assert markdown_table() in text
    conventions = (ROOT / "docs" / "conventions.md").read_text()
    for mid in CATALOGUE:
        assert f"`{mid}`" in conventions, mid


def test_rates_false_is_the_geometry_subset(model: Model) -> None:
    pose = model.solve(shocks=[4.0, 1.0, 0.0, 2.0], rack=3.0)
    full, geometry = pose_metrics(pose), pose_metrics(pose, rates=False)
    assert set(geometry) < set(full)
    assert all(not CATALOGUE[mid].rates for mid, _, _ in layout(model, rates=False))
    for key, value in geometry.items():
        assert value == pytest.approx(full[key], nan_ok=True)
    assert list(full) == [CATALOGUE[m].key(w, c) for m, w, c in layout(model)]  # ordered


def test_optimumk_preset_flips_toe_and_keeps_one_steer_sign(model: Model) -> None:
    pose = model.solve(shocks=[8.0, 3.0, 0.0, 0.0], rack=5.0)
    iso, ok = pose_metrics(pose, "iso"), pose_metrics(pose, "optimumk")
    for w in ("FL", "FR"):
        assert ok[f"toe_{w}_deg"] == pytest.approx(-iso[f"toe_{w}_deg"])
        assert ok[f"bump_steer_{w}_deg_per_mm"] == pytest.approx(-iso[f"bump_steer_{w}_deg_per_mm"])
        assert ok[f"camber_{w}_deg"] == iso[f"camber_{w}_deg"]
        assert ok[f"camber_gain_{w}_deg_per_mm"] == iso[f"camber_gain_{w}_deg_per_mm"]
    # One heading sign on both wheels (+ = left) in both presets; optimumk's steer is the
    # change of the wheel-plane toe, within a thousandth of a degree of iso's here.
    assert iso["steer_FL_deg"] > 0 and iso["steer_FR_deg"] > 0
    for w in ("FL", "FR"):
        assert ok[f"steer_{w}_deg"] == pytest.approx(iso[f"steer_{w}_deg"], abs=1e-3)
        rate = f"steer_rate_{w}_deg_per_mm"
        assert ok[rate] == pytest.approx(iso[rate], rel=1e-3)
    with pytest.raises(InputError, match="sign convention"):
        pose_metrics(pose, "sae")


def test_workbook_convention_is_the_default() -> None:
    car = four_corner_car()
    car = dataclasses.replace(
        car, options=dataclasses.replace(car.options, sign_convention="optimumk")
    )
    pose = Model(car).solve(rack=3.0)
    assert pose_metrics(pose)["toe_FL_deg"] == pose_metrics(pose, "optimumk")["toe_FL_deg"]
    assert pose_metrics(pose)["toe_FL_deg"] == pytest.approx(
        -pose_metrics(pose, "iso")["toe_FL_deg"]
    )


def test_metrics_table_one_row_per_pose(model: Model) -> None:
    poses = [model.solve(rack=r) for r in (-5.0, 0.0, 5.0)]
    table = metrics_table(poses)
    assert table.shape[0] == 3
    assert list(table.columns) == list(pose_metrics(poses[0]))
    assert table.attrs["convention"] == "iso"
    assert table["rack_mm"].tolist() == [-5.0, 0.0, 5.0]
    assert table["steer_FL_deg"].is_monotonic_increasing


def test_a_single_corner_skips_axle_metrics() -> None:
    corner = Model(double_wishbone_corner())
    m = pose_metrics(corner.solve(shocks=[5.0]))
    assert "camber_FL_deg" in m and "motion_ratio_FL" in m and "fvic_FL_y_mm" in m
    assert not any(
        k.startswith(("track_", "roll_centre", "wheelbase_", "ackermann", "anti_")) for k in m
    )
    # With a wheelbase in the workbook the corner can report its anti-dive.
    with_wb = double_wishbone_corner(options=Options(wheelbase_mm=1530.0))
    assert "anti_dive_FL_pct" in pose_metrics(Model(with_wb).solve())


def test_a_pose_that_did_not_converge_reports_only_its_inputs(model: Model) -> None:
    pose = model.solve(shocks=[5.0, 0.0, 0.0, 0.0])
    bad = dataclasses.replace(pose, info=dataclasses.replace(pose.info, converged=False))
    m = pose_metrics(bad)
    assert m["stroke_FL_Damper_mm"] == 5.0 and m["chassis_roll_deg"] == 0.0
    assert np.isnan(m["camber_FL_deg"]) and np.isnan(m["motion_ratio_FL"])


def test_every_sign_convention_has_a_preset() -> None:
    """The workbook, the CLI and the metrics share one list of output conventions."""
    from suspension_sim.description import SIGN_CONVENTIONS
    from suspension_sim.metrics import PRESETS

    assert set(PRESETS) == set(SIGN_CONVENTIONS)


def test_rates_of_a_car_without_joint_parameters_do_not_crash() -> None:
    """A wheel bolted to the chassis has no joint parameters: its geometry is still
    reported (the wheel's own numbers), and asking for rates is not an error."""
    from _metric_cars import fixed_wheel_car

    from suspension_sim import Model

    model = Model(fixed_wheel_car(np.array([0.0, 600.0, 260.0]), np.array([0.0, 1.0, 0.0])))
    assert model.n_params == 0
    m = pose_metrics(model.solve(), rates=True)
    assert m["camber_FL_deg"] == pytest.approx(0.0, abs=1e-12)
    assert m["half_track_FL_mm"] == pytest.approx(600.0, abs=1e-9)
