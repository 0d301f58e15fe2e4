"""Every bundled example workbook solves, at design and across its travel.

Besides the solver's own residuals, each pose is checked against geometry the
solver does not use directly: every rigid body keeps all its point-to-point
distances, and every damper's length equals design length - stroke.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import suspension_sim
from suspension_sim.solve.pose import Pose

WORKBOOKS = Path(__file__).resolve().parents[1] / "workbooks"
EXAMPLES = [
    "fsae_car",
    "fsae_car_arb",
    "template",
    "five_link_rear",
    "macpherson_front",
    "solid_axle_rear",
]


def assert_rigid_and_damped(pose: Pose) -> None:
    """Bodies keep their shape (1e-6 mm); dampers are design length - stroke."""
    car = pose.model.car
    design = car.point_map()
    copies = pose.copies
    dampers = {d.body: d for d in car.dampers}
    for body in car.bodies:
        if body.name in dampers:
            d = dampers[body.name]
            a = copies.loc[(d.chassis_point, body.name)].to_numpy(dtype=float)
            b = copies.loc[(d.moving_point, body.name)].to_numpy(dtype=float)
            want = np.linalg.norm(design[d.moving_point] - design[d.chassis_point])
            assert np.linalg.norm(b - a) == pytest.approx(want - pose.shocks[body.name], abs=1e-6)
            continue
        for p, q in itertools.combinations(body.points, 2):
            got = np.linalg.norm(
                copies.loc[(p, body.name)].to_numpy(dtype=float)
                - copies.loc[(q, body.name)].to_numpy(dtype=float)
            )
            assert got == pytest.approx(np.linalg.norm(design[p] - design[q]), abs=1e-6)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_solves_at_design_to_1e9(name: str) -> None:
    model = suspension_sim.load(WORKBOOKS / f"{name}.xlsx")
    assert model.mobility().ok
    pose = model.solve()
    assert pose.converged and pose.info.max_residual_mm < 1e-9
    assert pose.residuals.max() < 1e-9


def _travel(model: suspension_sim.model.model.Model, fraction: float) -> list[float]:
    """Strokes at a fraction of each damper's allowed range (or +-25 mm without limits)."""
    out = []
    design = model.car.point_map()
    for d in model.car.dampers:
        length = np.linalg.norm(design[d.moving_point] - design[d.chassis_point])
        lo = length - d.max_length if d.max_length is not None else -25.0
        hi = length - d.min_length if d.min_length is not None else 25.0
        out.append(hi * fraction if fraction > 0 else -lo * fraction)
    return out


@pytest.mark.parametrize(
    "name", ["five_link_rear", "macpherson_front", "solid_axle_rear", "fsae_car", "fsae_car_arb"]
)
def test_example_solves_across_its_travel(name: str) -> None:
    model = suspension_sim.load(WORKBOOKS / f"{name}.xlsx")
    has_rack = model.topology.rack_param is not None
    pose = None
    fractions = np.linspace(-0.9, 0.9, 7)
    racks = (-15.0, 0.0, 15.0) if has_rack else (0.0,)
    for f, rack in itertools.product(fractions, racks):
        strokes = _travel(model, float(f))
        if len(strokes) == 2 and name == "solid_axle_rear":
            strokes[1] = 0.5 * strokes[1]  # heave and roll together
        pose = model.solve(shocks=strokes, rack=rack, guess=pose)
        assert pose.converged, (f, rack, pose.info)
        if name == "solid_axle_rear":
            # A parallel four-link with a Panhard rod binds slightly in combined
            # heave and roll (a real over-constraint, absorbed by bushings on a
            # car); the least-squares pose leaves it far below a micrometre.
            assert pose.info.max_residual_mm < 1e-5, (f, pose.info)
        else:
            assert pose.info.max_residual_mm < 1e-9, (f, rack, pose.info)
        assert_rigid_and_damped(pose)
