"""IFT rates against central differences of solved poses (never adjacent sweep steps).

Each rate is the derivative of a reported metric along a motion the solver
can reproduce with targets: single-wheel bump (wheel_travel targets on every
wheel, the rack held), pure steer (rack moved, every travel held) and chassis
roll with every contact point held on the ground (contact_z targets). The
instant centres are checked against the finite screw of the carrier between
the two solved poses.
"""

from __future__ import annotations

import numpy as np
import pytest
from _cars import four_corner_car
from _metric_cars import wishbone_car
from scipy.linalg import logm

from suspension_sim.metrics import pose_metrics
from suspension_sim.model.model import Model
from suspension_sim.solver import Pose
from suspension_sim.targets import contact_z, wheel_travel

H = 0.01  # mm of travel or rack, deg of roll
RTOL = 1e-6


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


def damper_of(model: Model, wheel: str) -> str:
    return f"{wheel}_Damper"


def travel_pose(model: Model, base: Pose, wheel: str, dt: float) -> Pose:
    """`base` with `wheel` moved dt mm in travel; other travels, rack and chassis held."""
    m0 = pose_metrics(base, rates=False)
    targets = {
        damper_of(model, w.name): wheel_travel(
            w.name, m0[f"wheel_travel_{w.name}_mm"] + (dt if w.name == wheel else 0.0)
        )
        for w in model.car.wheels
    }
    return model.solve(rack=base.rack, chassis=base.chassis, targets=targets, guess=base)


def bases(model: Model) -> dict[str, Pose]:
    return {
        "design": model.solve(),
        "bump+steer+chassis": model.solve(
            shocks=[10.0, -5.0, 3.0, 2.0], rack=4.0, chassis=(3.0, -2.0, 5.0, 1.0, -0.8, 2.0)
        ),
    }


def close(a: float, b: float) -> bool:
    return abs(a - b) <= RTOL * max(abs(a), abs(b)) + 1e-12


@pytest.mark.parametrize("case", ["design", "bump+steer+chassis"])
def test_bump_rates_match_central_differences(model: Model, case: str) -> None:
    base = bases(model)[case]
    m = pose_metrics(base)
    for w in ("FL", "FR", "RL"):
        plus, minus = (pose_metrics(travel_pose(model, base, w, s * H)) for s in (1, -1))

        def fd(key: str, plus=plus, minus=minus) -> float:
            return (plus[key] - minus[key]) / (2 * H)

        assert close(m[f"camber_gain_{w}_deg_per_mm"], fd(f"camber_{w}_deg")), w
        assert close(m[f"bump_steer_{w}_deg_per_mm"], fd(f"toe_{w}_deg")), w
        assert close(m[f"motion_ratio_{w}"], fd(f"stroke_{w}_Damper_mm")), w
        assert close(m[f"bump_steer_{w}_deg_per_25mm"], 25 * fd(f"toe_{w}_deg")), w
        assert fd(f"wheel_travel_{w}_mm") == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("case", ["design", "bump+steer+chassis"])
def test_steer_rate_matches_central_differences(model: Model, case: str) -> None:
    base = bases(model)[case]
    m = pose_metrics(base)
    m0 = pose_metrics(base, rates=False)
    targets = {
        damper_of(model, w.name): wheel_travel(w.name, m0[f"wheel_travel_{w.name}_mm"])
        for w in model.car.wheels
    }
    plus, minus = (
        pose_metrics(
            model.solve(rack=base.rack + s * H, chassis=base.chassis, targets=targets, guess=base)
        )
        for s in (1, -1)
    )
    for w in ("FL", "FR"):
        fd = (plus[f"steer_{w}_deg"] - minus[f"steer_{w}_deg"]) / (2 * H)
        assert close(m[f"steer_rate_{w}_deg_per_mm"], fd), w


@pytest.mark.parametrize(
    "chassis", [(0.0, 0.0, 0.0, 0.0, 0.0, 0.0), (0.0, 0.0, -8.0, 1.5, 0.5, 0.0)]
)
def test_roll_camber_matches_central_differences(model: Model, chassis: tuple) -> None:  # type: ignore[type-arg]
    targets = {damper_of(model, w.name): contact_z(w.name) for w in model.car.wheels}
    base = model.solve(rack=2.0, chassis=chassis, targets=targets)
    m = pose_metrics(base)
    poses = []
    for s in (1, -1):
        ch = list(chassis)
        ch[3] += s * H
        poses.append(pose_metrics(model.solve(rack=2.0, chassis=ch, targets=targets, guess=base)))
    for w in ("FL", "FR", "RL", "RR"):
        fd = (poses[0][f"camber_{w}_deg"] - poses[1][f"camber_{w}_deg"]) / (2 * H)
        assert close(m[f"roll_camber_{w}_deg_per_deg"], fd), w


def carrier_in_chassis(pose: Pose, body: str) -> np.ndarray:
    return np.linalg.inv(pose.chassis_transform) @ pose.body_frames[body]


@pytest.mark.parametrize(
    "car", [four_corner_car, lambda: wishbone_car(("FL", "FR", "RL", "RR"), incline_deg={"F": 2.5})]
)
def test_instant_centres_match_the_finite_screw(car) -> None:  # type: ignore[no-untyped-def]
    model = Model(car())
    base = model.solve(shocks=[6.0, -4.0, 2.0, 1.0], chassis=(0.0, 0.0, 4.0, 0.7, -0.4, 0.0))
    m = pose_metrics(base)
    T = base.chassis_transform
    for w in model.car.wheels[:3]:
        plus, minus = (travel_pose(model, base, w.name, s * H) for s in (1, -1))
        D = carrier_in_chassis(plus, w.body) @ np.linalg.inv(carrier_in_chassis(minus, w.body))
        xi = np.real(logm(D)) / (2 * H)  # spatial twist, chassis frame
        omega = np.array([xi[2, 1], xi[0, 2], xi[1, 0]])
        v = xi[:3, 3]
        p0 = np.cross(omega, v) / (omega @ omega)  # a point on the screw axis
        c = np.linalg.inv(T)[:3] @ np.append(base.points.loc[w.centre].to_numpy(float), 1.0)
        for axis, comps in ((0, ("y", "z")), (1, ("x", "z"))):
            t = (c[axis] - p0[axis]) / omega[axis]
            ic = T[:3, :3] @ (p0 + t * omega) + T[:3, 3]  # world
            key = "fvic" if axis == 0 else "svic"
            for comp in comps:
                got = m[f"{key}_{w.name}_{comp}_mm"]
                want = ic["xyz".index(comp)]
                assert got == pytest.approx(want, rel=RTOL, abs=1e-6), (key, w.name, comp)


def test_roll_gives_mirrored_left_and_right(model: Model) -> None:
    """Rolling the mirror-symmetric car by +r and -r swaps left and right."""
    targets = {damper_of(model, w.name): contact_z(w.name) for w in model.car.wheels}
    pos, neg = (
        pose_metrics(model.solve(chassis=(0, 0, 0, r, 0, 0), targets=targets)) for r in (2.0, -2.0)
    )
    assert pos["camber_FL_deg"] != pytest.approx(pos["camber_FR_deg"], abs=1e-3)
    mirrored = [
        "camber",
        "camber_chassis",
        "toe",
        "wheel_travel",
        "half_track",
        "caster",
        "kpi",
        "scrub_radius",
        "mechanical_trail",
    ]
    for stem in mirrored:
        unit = (
            "mm"
            if stem in ("wheel_travel", "half_track", "scrub_radius", "mechanical_trail")
            else "deg"
        )
        for a, b in (("FL", "FR"), ("RL", "RR")):
            assert pos[f"{stem}_{a}_{unit}"] == pytest.approx(neg[f"{stem}_{b}_{unit}"], abs=1e-8)
    for rate in ("camber_gain", "bump_steer"):
        assert pos[f"{rate}_FL_deg_per_mm"] == pytest.approx(
            neg[f"{rate}_FR_deg_per_mm"], abs=1e-10
        )
    assert pos["roll_camber_FL_deg_per_deg"] == pytest.approx(
        -neg["roll_camber_FR_deg_per_deg"], abs=1e-10
    )
    assert pos["roll_centre_lateral_front_mm"] == pytest.approx(
        -neg["roll_centre_lateral_front_mm"], abs=1e-8
    )
    assert pos["roll_centre_height_front_mm"] == pytest.approx(
        neg["roll_centre_height_front_mm"], abs=1e-8
    )
    # Positive roll lifts the left side: the left wheels droop, the right ones bump.
    assert pos["wheel_travel_FL_mm"] < 0 < pos["wheel_travel_FR_mm"]


def test_roll_camber_closed_form_at_a_symmetric_design(model: Model) -> None:
    """Zero static camber, independent corners: rolling by phi drops the left contact
    point by half_track * phi, so the wheel droops by that much, and the chassis tilts
    the wheel by -phi (left) / +phi (right): roll_camber = -+1 -+ gain * half_track."""
    m = pose_metrics(model.solve())
    for w, side in (("FL", 1), ("FR", -1), ("RL", 1), ("RR", -1)):
        gain = np.radians(m[f"camber_gain_{w}_deg_per_mm"])  # rad/mm
        expected = -side * (1.0 + gain * m[f"half_track_{w}_mm"])
        assert m[f"roll_camber_{w}_deg_per_deg"] == pytest.approx(expected, abs=1e-12)
