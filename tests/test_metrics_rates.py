"""IFT rates against central differences of solved poses (never adjacent sweep steps).

Each rate is the derivative of a reported metric along a motion the solver
can reproduce with targets: single-wheel bump (wheel_travel targets on every
wheel, the rack held), pure steer (rack moved, every travel held) and chassis
roll with every contact point held on the ground (contact_z targets). The
screw-axis diagnostics are checked against the finite screw of the carrier
between the two solved poses, the force-based centres against the finite
velocities of carrier-fixed points.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from _cars import four_corner_car
from _metric_cars import solid_axle_car, wishbone_car
from scipy.linalg import logm

import suspension_sim
from suspension_sim import Model
from suspension_sim.metrics import pose_metrics, wheel_dampers
from suspension_sim.solve.pose import Pose
from suspension_sim.solve.targets import contact_z, wheel_travel

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


@pytest.mark.parametrize("convention", ["iso", "optimumk"])
def test_steering_rates_off_design_match_central_differences(convention: str) -> None:
    """Steering toe and camber gains and the steering ratio at a rolled, pitched, heaved
    and steered pose, every contact point held on the ground, chassis held: iso per degree
    of left turn (+ d/d SWA), optimumk OptimumK's (-d/d SW, SW + = rack toward +Y)."""
    import dataclasses

    from suspension_sim.solve.steering import rack_per_wheel_degree

    car = four_corner_car()
    assert car.rack is not None
    model = Model(
        dataclasses.replace(car, rack=dataclasses.replace(car.rack, ratio_mm_per_deg=0.2))
    )
    targets = {damper_of(model, w.name): contact_z(w.name) for w in model.car.wheels}
    chassis = (0.0, 0.0, -8.0, 1.5, 0.5, 0.0)
    base = model.solve(rack=3.0, chassis=chassis, targets=targets)
    m = pose_metrics(base, convention)
    if convention == "optimumk":
        per_degree, sign, toe = 0.2, -1.0, "toe_wheel_plane"  # its toe: wheel plane, + out
    else:
        per_degree, sign, toe = rack_per_wheel_degree(model), 1.0, "toe"
    d = H / 0.2  # steering-wheel degrees for H mm of rack
    plus, minus = (
        pose_metrics(
            model.solve(
                rack=3.0 + s * d * per_degree, chassis=chassis, targets=targets, guess=base
            ),
            convention,
            rates=False,
        )
        for s in (1, -1)
    )

    def fd(key: str) -> float:
        return (plus[key] - minus[key]) / (2 * d)

    for w in ("FL", "FR"):
        assert close(m[f"steering_toe_gain_{w}_deg_per_deg"], sign * fd(f"{toe}_{w}_deg")), w
        assert close(m[f"steering_camber_gain_{w}_deg_per_deg"], sign * fd(f"camber_{w}_deg")), w
    mean = 0.5 * (fd("steer_FL_deg") + fd("steer_FR_deg"))
    assert close(m["steering_ratio_front"], 1.0 / mean)
    if convention == "iso":
        assert m["steering_ratio_front"] > 0  # iso: positive for any layout


def carrier_in_chassis(pose: Pose, body: str) -> np.ndarray:
    return np.linalg.inv(pose.chassis_transform) @ pose.body_frames[body]


@pytest.mark.parametrize(
    "car", [four_corner_car, lambda: wishbone_car(("FL", "FR", "RL", "RR"), incline_deg={"F": 2.5})]
)
def test_screw_axis_diagnostics_match_the_finite_screw(car) -> None:  # type: ignore[no-untyped-def]
    """`fvic_axis`/`svic_axis`: the finite screw of the carrier between two solved poses
    (wheel travel +-H) pierces the view planes through CP (normals x_h and y_h)."""
    model = Model(car())
    base = model.solve(shocks=[6.0, -4.0, 2.0, 1.0], chassis=(0.0, 0.0, 4.0, 0.7, -0.4, 0.0))
    m = pose_metrics(base)
    T = base.chassis_transform
    x_h, y_h, _n = views(base)
    for w in model.car.wheels[:3]:
        plus, minus = (travel_pose(model, base, w.name, s * H) for s in (1, -1))
        D = carrier_in_chassis(plus, w.body) @ np.linalg.inv(carrier_in_chassis(minus, w.body))
        xi = np.real(logm(D)) / (2 * H)  # spatial twist, chassis frame
        omega = np.array([xi[2, 1], xi[0, 2], xi[1, 0]])
        v = xi[:3, 3]
        p0 = np.cross(omega, v) / (omega @ omega)  # a point on the screw axis
        p0_w, omega_w = T[:3, :3] @ p0 + T[:3, 3], T[:3, :3] @ omega  # world
        cp = np.array([m[f"contact_point_{w.name}_{a}_mm"] for a in "xyz"])
        for normal, key, comps in ((x_h, "fvic_axis", "yz"), (y_h, "svic_axis", "xz")):
            ic = p0_w + ((cp - p0_w) @ normal) / (omega_w @ normal) * omega_w
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


# -- linkage metrics against finite motions of the carrier ----------------------------
# The antis, force-based instant centres and roll/pitch centres are defined by the
# velocity of carrier-fixed points (docs/metrics.md, "Linkage metrics"): truths
# here come from solved poses with the wheel travel moved +-H, using nothing from
# the metric code but the reported contact points.
ROOT = Path(__file__).resolve().parents[1]


def workbook(name: str) -> Callable[[], Model]:
    return lambda: suspension_sim.load(ROOT / "workbooks" / f"{name}.xlsx")


def moved(model: Model, base: Pose, deltas: dict[str, float]) -> Pose:
    """`base` with the wheel travels moved by `deltas` (mm); other travels, rack, chassis held."""
    m0 = pose_metrics(base, rates=False)
    dampers = wheel_dampers(model)
    targets = {
        dampers[w.name]: wheel_travel(
            w.name, m0[f"wheel_travel_{w.name}_mm"] + deltas.get(w.name, 0.0)
        )
        for w in model.car.wheels
    }
    return model.solve(rack=base.rack, chassis=base.chassis, targets=targets, guess=base)


def partner(model: Model, wheel: str) -> str | None:
    """The other wheel of the axle (same first letter), if the car has one."""
    names = [w.name for w in model.car.wheels]
    other = wheel[0] + ("R" if wheel[1] == "L" else "L")
    return other if other in names else None


def rigid(model: Model, wheel: str) -> bool:
    other = partner(model, wheel)
    body = {w.name: w.body for w in model.car.wheels}
    return other is not None and body[other] == body[wheel]


def displacement(
    model: Model, base: Pose, deltas: dict[str, float], wheel: str, point: np.ndarray
) -> np.ndarray:
    """World velocity (per mm) of a point fixed on `wheel`'s carrier, by central differences."""
    body = next(w.body for w in model.car.wheels if w.name == wheel)
    local = np.linalg.inv(base.body_frames[body]) @ np.append(point, 1.0)
    plus = moved(model, base, {w: d * H for w, d in deltas.items()})
    minus = moved(model, base, {w: -d * H for w, d in deltas.items()})
    return ((plus.body_frames[body] - minus.body_frames[body]) @ local)[:3] / (2 * H)


def heave_of(model: Model, wheel: str) -> dict[str, float]:
    """Side-view motion: the axle's heave for a rigid axle, else the wheel alone."""
    other = partner(model, wheel)
    return {wheel: 1.0, other: 1.0} if other and rigid(model, wheel) else {wheel: 1.0}


def roll_of(model: Model, wheel: str) -> dict[str, float]:
    """Front-view motion: the axle's roll (left +1, right -1) for a rigid axle, else alone."""
    other = partner(model, wheel)
    if other and rigid(model, wheel):
        left, right = (wheel, other) if wheel[1] == "L" else (other, wheel)
        return {left: 1.0, right: -1.0}
    return {wheel: 1.0}


def views(pose: Pose) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The car's horizontal heading x_h, lateral axis y_h and the ground normal n (world)."""
    n = np.array([0.0, 0.0, 1.0])
    x = pose.chassis_transform[:3, 0]
    x_h = (x - (x @ n) * n) / np.linalg.norm(x - (x @ n) * n)
    return x_h, np.cross(n, x_h), n


LINKAGE_CASES = {
    "fsae": (workbook("fsae_car"), {}),
    "fsae rolled+pitched": (workbook("fsae_car"), {"chassis": (0, 0, -6.0, 1.2, -0.8, 0)}),
    "five-link": (workbook("five_link_rear"), {}),
    "four-corner steered": (
        lambda: Model(four_corner_car()),
        {"shocks": [6.0, -4.0, 2.0, 1.0], "rack": 3.0, "chassis": (0, 0, 4.0, 0.7, -0.4, 0)},
    ),
    "solid axle, inclined links": (
        lambda: Model(solid_axle_car(link_rise=60.0, panhard=((-420.0, 250.0), (400.0, 330.0)))),
        {"shocks": [5.0, -3.0]},
    ),
}


@pytest.fixture(scope="module", params=list(LINKAGE_CASES))
def linkage_case(request: pytest.FixtureRequest) -> tuple[Model, Pose, dict[str, float]]:
    make, solve_args = LINKAGE_CASES[request.param]
    model = make()
    base = model.solve(**solve_args)
    assert base.converged
    return model, base, pose_metrics(base)


def test_antis_are_the_reference_points_fore_aft_over_vertical_motion(
    linkage_case: tuple[Model, Pose, dict[str, float]],
) -> None:
    """tan(theta) = +dx/dz (front) or -dx/dz (rear) of C or the carrier-fixed CP."""
    model, base, m = linkage_case
    o = model.car.options
    L = o.wheelbase_mm or 1530.0
    x_h, _, n = views(base)
    for w in model.car.wheels:
        c = base.points.loc[w.centre].to_numpy(float)
        cp = np.array([m[f"contact_point_{w.name}_{a}_mm"] for a in "xyz"])
        if w.name[0] == "F":
            cases = [("anti_dive", o.front_brake_share, o.front_brakes_inboard, 1.0)]
        else:
            cases = [
                ("anti_lift", 1 - o.front_brake_share, o.rear_brakes_inboard, -1.0),
                ("anti_squat", o.rear_drive_share, o.drive_inboard, -1.0),
            ]
        for metric, share, at_centre, sign in cases:
            u = displacement(model, base, heave_of(model, w.name), w.name, c if at_centre else cp)
            want = sign * (u @ x_h) / (u @ n) * L / o.cg_height_mm * share * 100
            assert m[f"{metric}_{w.name}_pct"] == pytest.approx(want, rel=1e-6, abs=1e-7), (
                metric,
                w.name,
            )


def force_centre_fd(
    model: Model, base: Pose, deltas: dict[str, float], wheel: str, view: str
) -> np.ndarray:
    """Point of the view plane through the carrier-fixed CP (normal x_h for "front", y_h for
    "side") whose finite-difference velocity has no in-plane component; world frame.
    Solved from the affine velocity field of three points of the plane."""
    x_h, y_h, n = views(base)
    e1 = y_h if view == "front" else x_h
    m = pose_metrics(base, rates=False)
    cp = np.array([m[f"contact_point_{wheel}_{a}_mm"] for a in "xyz"])
    v0 = displacement(model, base, deltas, wheel, cp)
    a = displacement(model, base, deltas, wheel, cp + 100.0 * e1) - v0
    b = displacement(model, base, deltas, wheel, cp + 100.0 * n) - v0
    basis = np.column_stack([e1, n])
    coef = np.linalg.solve(basis.T @ np.column_stack([a, b]) / 100.0, -(basis.T @ v0))
    return cp + coef[0] * e1 + coef[1] * n


def test_force_based_instant_centres_match_finite_differences(
    linkage_case: tuple[Model, Pose, dict[str, float]],
) -> None:
    model, base, m = linkage_case
    for w in model.car.wheels[:2]:
        for view, key, comps, motion in (
            ("front", "fvic", "yz", roll_of(model, w.name)),
            ("side", "svic", "xz", heave_of(model, w.name)),
        ):
            got = np.array([m[f"{key}_{w.name}_{c}_mm"] for c in comps])
            if np.all(np.isnan(got)):  # at infinity (the inclined-link axle in side view)
                continue
            ic = force_centre_fd(model, base, motion, w.name, view)
            want = ic[["xyz".index(c) for c in comps]]
            assert got == pytest.approx(want, rel=1e-6, abs=1e-5), (key, w.name)


def perpendicular_meet(
    p1: np.ndarray, v1: np.ndarray, p2: np.ndarray, v2: np.ndarray, u: np.ndarray, z: np.ndarray
) -> np.ndarray:
    """Where the lines through p1, p2 perpendicular to v1, v2 meet, in the view (u, z)."""
    a = np.array([[v1 @ u, v1 @ z], [v2 @ u, v2 @ z]])
    rhs = np.array([v1 @ u * (p1 @ u) + v1 @ z * (p1 @ z), v2 @ u * (p2 @ u) + v2 @ z * (p2 @ z)])
    return np.linalg.solve(a, rhs)


def test_roll_and_pitch_centres_match_finite_differences(
    linkage_case: tuple[Model, Pose, dict[str, float]],
) -> None:
    """Lines through each CP perpendicular to its (finite-difference) velocity in the view."""
    model, base, m = linkage_case
    x_h, y_h, n = views(base)
    names = [w.name for w in model.car.wheels]

    def cp(w: str) -> np.ndarray:
        return np.array([m[f"contact_point_{w}_{a}_mm"] for a in "xyz"])

    for axle, (left, right) in {"front": ("FL", "FR"), "rear": ("RL", "RR")}.items():
        if left not in names or right not in names:
            continue
        # Independent corners: each wheel alone; a rigid axle: its roll (left +1, right -1).
        v_l = displacement(model, base, roll_of(model, left), left, cp(left))
        v_r = displacement(model, base, roll_of(model, right), right, cp(right))
        _, h = perpendicular_meet(cp(left), v_l, cp(right), v_r, y_h, n)
        assert m[f"roll_centre_height_{axle}_mm"] == pytest.approx(h, rel=1e-6, abs=1e-5), axle
    for side, (front, rear) in {"left": ("FL", "RL"), "right": ("FR", "RR")}.items():
        if front not in names or rear not in names:
            continue
        v_f = displacement(model, base, heave_of(model, front), front, cp(front))
        v_r = displacement(model, base, heave_of(model, rear), rear, cp(rear))
        x, h = perpendicular_meet(cp(front), v_f, cp(rear), v_r, x_h, n)
        assert m[f"pitch_centre_{side}_x_mm"] == pytest.approx(x, rel=1e-6, abs=1e-5), side
        assert m[f"pitch_centre_{side}_z_mm"] == pytest.approx(h, rel=1e-6, abs=1e-5), side
