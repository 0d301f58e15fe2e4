"""The `optimumk` output preset against OptimumK's definitions of its steering rates.

OptimumK (docs/conventions.md, "Output presets"; docs/validation.md) defines, with SW its
steering-wheel angle (+ = rack toward +Y by SW x the workbook's ratio) and the contact
points held on the ground:

* Steering Ratio = 1 / mean(d steer / d SW) over the axle (steer + = turned left);
* Steering Toe Angle Gain = -d toe / d SW (its toe: wheel plane, + = toe-out);
* Steering Camber Angle Gain = -d camber / d SW.

The truth here is central differences of solved poses (rack moved, every contact point
held on the ground by targets), read through each preset's own geometry columns; `iso`
keeps its definitions (+ d/d SW per degree of LEFT turn, ratio positive for any layout).
The example car's rack sits behind the front axle, so a rack moving toward +Y turns the
car right: OptimumK's ratio is negative there, ours (iso) positive.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from suspension_sim import load
from suspension_sim.metrics import pose_metrics
from suspension_sim.model import KinematicModel
from suspension_sim.solve.state import State
from suspension_sim.solve.steering import rack_per_wheel_degree
from suspension_sim.sweeps.motions import ground_targets

WORKBOOK = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
D = 0.05  # steering-wheel degrees either side of design
FRONT = ("FL", "FR")


@pytest.fixture(scope="module")
def model() -> KinematicModel:
    return load(WORKBOOK)


def _differences(
    model: KinematicModel, convention: str, rack_per_degree: float
) -> dict[str, float]:
    """d column / d SW (per steering-wheel degree) of every steering-related column by
    central differences: rack = +-D x rack_per_degree, contact points held at z = 0."""
    targets = ground_targets(model)
    rows = [
        pose_metrics(
            State(rack=s * rack_per_degree, targets=targets).solve(model, tolerance=1e-12),
            convention,
            rates=False,
        )
        for s in (D, -D)
    ]
    out: dict[str, float] = {}
    for w in FRONT:
        for col in (
            f"toe_{w}_deg",
            f"toe_wheel_plane_{w}_deg",
            f"camber_{w}_deg",
            f"steer_{w}_deg",
        ):
            out[col] = (rows[0][col] - rows[1][col]) / (2 * D)
    return out


def test_optimumk_preset_is_optimumks_sign(model: KinematicModel) -> None:
    ratio = model.car.rack.ratio_mm_per_deg  # type: ignore[union-attr]
    assert ratio == pytest.approx(0.25)  # OptimumK's SW: rack = SW x the ratio as given
    fd = _differences(model, "optimumk", ratio)
    at = pose_metrics(model.solve(), "optimumk")
    steer = []
    for w in FRONT:
        # its toe is the wheel-plane toe, + = toe-out (the preset's toe_wheel_plane column)
        gain = -fd[f"toe_wheel_plane_{w}_deg"]
        assert at[f"steering_toe_gain_{w}_deg_per_deg"] == pytest.approx(gain, rel=1e-6)
        camber = -fd[f"camber_{w}_deg"]
        assert at[f"steering_camber_gain_{w}_deg_per_deg"] == pytest.approx(camber, rel=1e-5)
        steer.append(fd[f"steer_{w}_deg"])
        assert fd[f"steer_{w}_deg"] < 0  # rack toward +Y behind the axle: turned right
    assert at["steering_ratio_front"] == pytest.approx(1.0 / np.mean(steer), rel=1e-6)
    assert at["steering_ratio_front"] == pytest.approx(-4.71, abs=0.01)
    assert np.isnan(at["steering_ratio_rear"])  # the rack does not steer the rear
    # turning right, the left wheel toes in and the right one out: -d toe(+ out) / d SW
    assert at["steering_toe_gain_FL_deg_per_deg"] > 0 > at["steering_toe_gain_FR_deg_per_deg"]


def test_iso_preset_is_unchanged(model: KinematicModel) -> None:
    signed = rack_per_wheel_degree(model)  # + degrees = left turn
    assert signed == pytest.approx(-0.25)  # the rack behind the axle moves toward -Y
    fd = _differences(model, "iso", signed)
    at = pose_metrics(model.solve(), "iso")
    steer = []
    for w in FRONT:
        gain = fd[f"toe_{w}_deg"]  # top-view toe, + = toe-in, per degree of left turn
        assert at[f"steering_toe_gain_{w}_deg_per_deg"] == pytest.approx(gain, rel=1e-6)
        camber = fd[f"camber_{w}_deg"]
        assert at[f"steering_camber_gain_{w}_deg_per_deg"] == pytest.approx(camber, rel=1e-5)
        steer.append(fd[f"steer_{w}_deg"])
    assert at["steering_ratio_front"] == pytest.approx(1.0 / np.mean(steer), rel=1e-6)
    assert at["steering_ratio_front"] == pytest.approx(4.71, abs=0.01)
    # a left turn toes the left (inner) wheel out and the right one in, iso toe + = in
    assert at["steering_toe_gain_FL_deg_per_deg"] < 0 < at["steering_toe_gain_FR_deg_per_deg"]


def test_preset_matches_optimumks_channels(model: KinematicModel) -> None:
    """The same quantities from `optimumk_channels`, a second implementation of OptimumK's
    definitions (its world-frame toe, its own rate code): equal at design (1e-11 relative
    seen for the ratio and toe gains, 1e-8 for the camber gains)."""
    from suspension_sim.optimumk.channels import optimumk_channels

    pose = model.solve()
    at = pose_metrics(pose, "optimumk")
    ch = {k: float(v[0]) for k, v in optimumk_channels(model, [pose]).items()}
    assert at["steering_ratio_front"] == pytest.approx(ch["Steering Ratio [Front]"], rel=1e-9)
    for w, side in zip(FRONT, ("Left", "Right"), strict=True):
        ours = at[f"steering_toe_gain_{w}_deg_per_deg"]
        assert ours == pytest.approx(ch[f"Steering Toe Angle Gain [{side}] [Front]"], rel=1e-9)
        ours = at[f"steering_camber_gain_{w}_deg_per_deg"]
        theirs = ch[f"Steering Camber Angle Gain [{side}] [Front]"]
        assert ours == pytest.approx(theirs, rel=1e-6)


def test_roll_centre_of_the_preset_is_the_force_based_one(model: KinematicModel) -> None:
    """OptimumK's Roll Center is built from the force lines CP -> FV IC: our
    roll_centre_height, not the screw-axis roll_centre_axis_height (same number in both
    presets); the catalogue says so."""
    from suspension_sim.metrics.catalogue import CATALOGUE
    from suspension_sim.optimumk.channels import optimumk_channels

    pose = model.solve()
    iso, ok = pose_metrics(pose, "iso"), pose_metrics(pose, "optimumk")
    ch = {k: float(v[0]) for k, v in optimumk_channels(model, [pose]).items()}
    for axle in ("front", "rear"):
        col = f"roll_centre_height_{axle}_mm"
        assert iso[col] == ok[col]
        theirs = ch[f"Roll Center (Ground) Z [{axle.capitalize()}]"]
        assert ok[col] == pytest.approx(theirs, abs=1e-3)  # 5e-4 mm seen
        assert abs(ok[f"roll_centre_axis_height_{axle}_mm"] - theirs) > 1.0
    assert "Roll Center" in CATALOGUE["roll_centre_height"].optimumk
    assert "not OptimumK's Roll Center" in CATALOGUE["roll_centre_axis_height"].optimumk
