"""A MacPherson kingpin runs from the lower ball joint to the strut top mount on the chassis.

Two independent routes give its caster and KPI: the named pivots, and the
instantaneous axis of the knuckle under rack motion. They must agree.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import suspension_sim
from suspension_sim import Model
from suspension_sim.metrics import pose_metrics

WORKBOOK = Path(__file__).resolve().parents[1] / "workbooks" / "macpherson_front.xlsx"


@pytest.mark.parametrize(("stroke", "rack"), [(0.0, 0.0), (12.0, 8.0), (-10.0, -6.0)])
def test_named_top_mount_equals_the_instantaneous_steering_axis(stroke: float, rack: float) -> None:
    named = suspension_sim.load(WORKBOOK)
    wheel = named.car.wheels[0]
    assert named.car.body("Chassis").points.count(wheel.kingpin_upper) == 1
    free = dataclasses.replace(
        named.car,
        wheels=(dataclasses.replace(wheel, kingpin_lower=None, kingpin_upper=None),),
    )
    a = pose_metrics(named.solve(shocks=[stroke], rack=rack))
    b = pose_metrics(Model(free).solve(shocks=[stroke], rack=rack))
    for key in ("caster_FL_deg", "kpi_FL_deg", "scrub_radius_FL_mm", "mechanical_trail_FL_mm"):
        assert a[key] == pytest.approx(b[key], abs=1e-6), key
