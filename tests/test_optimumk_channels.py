"""OptimumK's channels (`suspension_sim.optimumk.channels`) against independent truths.

* the registry: every computed key is a known, computable quantity and every
  established quantity of a four-corner car is computed;
* the definitions' own worked numbers (static camber -0.96 and toe 0.5 give camber
  -0.959963, toe 0.499930, steer -7.0e-5 deg at design, and the contact patch's heading
  turned by that steer);
* hand geometry of the test corner (caster, KPI, king pin at ground, scrub, trail,
  top upright angle, CG) and of a planar double wishbone (front-view instant centre
  at the arm-line intersection, swing arm, roll centre);
* swing-arm angles and antis by hand: trailing arms (the side-view centre is where the
  pivot line meets the wheel's plane), side-view arms exactly parallel (centre and
  length blank, angle the arms' tilt, antis from it) and nearly parallel (the rotation
  axis yawed: values continuous with the parallel ones, across the 10 km blanking);
* every rate against central differences of solved poses (contact points held on the
  ground with `contact_z`; at design, where OptimumK's contact patch is the lowest
  point of the tyre circle, the two holds agree to first order);
* left/right mirror symmetry of a symmetric car.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from _cars import CORNER_BODIES, CORNER_POINTS
from _metric_cars import (
    PARALLEL_ARMS,
    TYPICAL_ARMS,
    front_view_ic,
    rotation_y,
    trailing_arm_car,
    wishbone_car,
)

from suspension_sim.description import Body, Car, Damper, Options, Point, Rack, Wheel
from suspension_sim.model import KinematicModel
from suspension_sim.optimumk.channels import (
    QUANTITIES,
    Scope,
    channel_key,
    channel_status,
    optimumk_channels,
    quantity,
    split_key,
)
from suspension_sim.solve.pose import Pose
from suspension_sim.solve.solver import solve
from suspension_sim.solve.targets import contact_z

OK_NAMES = {
    "LCA_F": "CHAS_LowFor",
    "LCA_R": "CHAS_LowAft",
    "LBJ": "UPRI_LowPnt",
    "UCA_F": "CHAS_UppFor",
    "UCA_R": "CHAS_UppAft",
    "UBJ": "UPRI_UppPnt",
    "TIE_I": "CHAS_TiePnt",
    "TIE_O": "UPRI_TiePnt",
    "PR_O": "NSMA_PPAttPnt",
    "PR_I": "ROCK_RodPnt",
    "RK_P1": "CHAS_RocAxi",
    "RK_P2": "CHAS_RocPiv",
    "DMP_M": "ROCK_CoiPnt",
    "DMP_C": "CHAS_AttPnt",
    "WC": "WheelCentre",
    "WA": "WheelAxis",
}
CORNERS = (("FL", 0.0, 1.0), ("FR", 0.0, -1.0), ("RL", -1530.0, 1.0), ("RR", -1530.0, -1.0))
RACK_MM_PER_DEG = 0.2


def ok_car(
    spin: tuple[float, float] | None = None,
    rim: float | None = None,
    options: Options | None = None,
) -> Car:
    """The four-corner test car (tests/_cars.py) in OptimumK's point names, as the
    importer names them (``FL_UPRI_LowPnt`` ...), with a rack of 0.2 mm per degree.

    spin: (static toe, static camber) in deg: the design spin axis
    unit(-tan toe, side, -tan camber), as OptimumK defines it; None = straight.
    """
    pts: dict[str, tuple[float, float, float]] = {}
    bodies: dict[str, list[str]] = {"Chassis": []}
    wheels, dampers = [], []
    for corner, dx, sy in CORNERS:

        def nm(p: str, corner: str = corner) -> str:
            return f"{corner}_{OK_NAMES[p]}"

        for n, (x, y, z) in CORNER_POINTS.items():
            if n != "RACK_R":
                pts[nm(n)] = (x + dx, sy * y, z)
        if spin is not None:
            toe, camber = np.radians(spin)
            s = np.array([-np.tan(toe), sy, -np.tan(camber)])
            s /= np.linalg.norm(s)
            ax, ay, az = np.array(pts[nm("WC")]) - 50.0 * s
            pts[nm("WA")] = (float(ax), float(ay), float(az))
        for b, members in CORNER_BODIES.items():
            if b == "Rack":
                continue
            names = [nm(p) for p in members]
            if b == "Chassis":
                bodies["Chassis"] += names + ([nm("TIE_I")] if corner[0] == "R" else [])
            else:
                bodies[f"{corner}_{b}"] = names
        wheels.append(
            Wheel(
                corner,
                f"{corner}_Upright",
                nm("WC"),
                nm("WA"),
                260.0,
                180.0,
                nm("LBJ"),
                nm("UBJ"),
                rim_diameter=rim,
            )
        )
        dampers.append(Damper(f"{corner}_Damper", nm("DMP_C"), nm("DMP_M"), 150.0, 250.0))
    bodies["Rack"] = ["FL_CHAS_TiePnt", "FR_CHAS_TiePnt"]
    return Car(
        name="OptimumK-named test car",
        options=options or Options(cg_height_mm=280.0, front_mass_share=0.45),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=tuple(Body(n, tuple(p)) for n, p in bodies.items()),
        wheels=tuple(wheels),
        rack=Rack("Rack", ("FL_CHAS_TiePnt", "FR_CHAS_TiePnt"), RACK_MM_PER_DEG),
        dampers=tuple(dampers),
    )


@pytest.fixture(scope="module")
def model() -> KinematicModel:
    return KinematicModel(ok_car())


def grounded(
    model: KinematicModel,
    *,
    heave: float = 0.0,
    rack: float = 0.0,
    lift: dict[str, float] | None = None,
    roll: tuple[float, float] | None = None,
) -> Pose:
    """A pose with every contact point at z = 0 (or `lift` mm for the named wheels): the
    chassis up `heave` mm, the rack at `rack`, rolled by roll = (deg, axis height) about
    the X-parallel line through (0, 0, height)."""
    lift = lift or {}
    targets = {f"{w}_Damper": contact_z(w, lift.get(w, 0.0)) for w, _, _ in CORNERS}
    chassis = [0.0, 0.0, heave, 0.0, 0.0, 0.0]
    if roll is not None:
        angle, h = roll
        a = math.radians(angle)
        # R = Rx(a) about the origin, then shifted so the line y = 0, z = h stays put.
        chassis[1] = h * math.sin(a)
        chassis[2] += h - h * math.cos(a)
        chassis[3] = angle
    return solve(model, rack=rack, chassis=chassis, targets=targets)


def angles(pose: Pose, wheel: str) -> tuple[float, float, float]:
    """OptimumK's camber and toe (deg) and the coilover length (mm), straight from the
    solved points: s = unit(centre - axis point) (the axis point is inboard)."""
    p = pose.points
    c = p.loc[f"{wheel}_WheelCentre"].to_numpy()
    a = p.loc[f"{wheel}_WheelAxis"].to_numpy()
    s = (c - a) / np.linalg.norm(c - a)
    ends = p.loc[[f"{wheel}_CHAS_AttPnt", f"{wheel}_ROCK_CoiPnt"]].to_numpy()
    length = float(np.linalg.norm(ends[0] - ends[1]))
    return math.degrees(-math.asin(s[2])), math.degrees(-math.asin(s[0])), length


def test_registry_matches_what_is_computed(model: KinematicModel) -> None:
    for q in QUANTITIES:
        assert q.dimension
        assert quantity(q.name, q.scope) is q or quantity(q.name, q.scope).name == q.name
    pose = solve(model)
    ch = optimumk_channels(model, [pose, None])
    for key, values in ch.items():
        name, side, axle = split_key(key)
        scope: Scope = "corner" if side and axle else "axle" if axle else "side" if side else "car"
        q = quantity(name, scope)  # KeyError: a key the registry does not know
        assert q.status != "not established", key
        if q.status == "always blank":
            assert np.all(np.isnan(values)), key
        else:
            assert np.isnan(values[1]), key  # the unsolved step is blank
    missing = [
        k
        for q in QUANTITIES
        if q.status == "established" and q.scope != "input"
        for k in q.channel_keys()
        if k not in ch
        and channel_status(model, k) == ("established", "")
        and q.name not in ("Toe Distance", "Steering Side Ratio")
    ]
    assert missing == []
    assert channel_status(model, "Toe Distance [Left] [Front]")[0] == "not established"
    assert channel_status(model, "Tie Rod Top View Angle [Left] [Front]", pitch=True)[0] == (
        "not established"
    )
    assert channel_status(model, "Roll Center Z [Front]", steered=True)[0] == "not established"
    assert channel_status(model, "Roll Center Z [Rear]", steered=True) == ("established", "")
    assert channel_status(model, "Camber Angle Gain in Pitch [Left] [Rear]")[0] == (
        "not established"
    )
    assert channel_status(model, "Anti-Lift Percentage [Left] [Front]") == ("established", "")
    rwd = replace(model.car.options, rear_drive_share=0.7)
    awd = KinematicModel(replace(model.car, options=rwd))
    assert channel_status(awd, "Anti-Lift Percentage [Left] [Front]")[0] == "not established"
    assert channel_key("Wheelbase") == "Wheelbase"
    assert quantity("fvsa length").name == "Front View Swing Arm Length"


def test_static_camber_and_toe_worked_numbers() -> None:
    """OptimumK's spin axis from static toe 0.5 and camber -0.96 deg reports camber
    asin(cos(toe) sin(camber)) = -0.959963 and toe 0.499930; steer = side (toe - 0.5)."""
    m = KinematicModel(ok_car(spin=(0.5, -0.96), rim=330.2))
    ch = optimumk_channels(m, [solve(m)], rates=False)
    for side in ("left", "right"):
        sgn = 1.0 if side == "left" else -1.0
        for axle in ("front", "rear"):
            camber = ch[channel_key("Camber Angle", side, axle)][0]
            toe = ch[channel_key("Toe Angle", side, axle)][0]
            assert camber == pytest.approx(-0.959963, abs=5e-7)
            assert toe == pytest.approx(0.499930, abs=5e-7)
            steer = ch[channel_key("Steer Angle", side, axle)][0]
            assert steer == pytest.approx(sgn * (toe - 0.5), abs=1e-12)
            assert steer == pytest.approx(sgn * -7.0e-5, abs=1e-6)
            distance = ch[channel_key("Toe Distance", side, axle)][0]
            assert distance == pytest.approx(330.2 * math.sin(math.radians(toe)), rel=1e-12)
            # the contact patch's heading is turned by that same Steer Angle (one steer):
            # CP = WC + r unit(s x hd), s from the reported camber and toe
            sx, sz = -math.sin(math.radians(toe)), -math.sin(math.radians(camber))
            s = np.array([sx, sgn * math.sqrt(1.0 - sx * sx - sz * sz), sz])
            wc = np.array([ch[channel_key(f"Wheel Center {c}", side, axle)][0] for c in "XYZ"])
            cp = np.array([ch[channel_key(f"Contact Patch {c}", side, axle)][0] for c in "XYZ"])

            def patch(d_deg: float, s: np.ndarray = s, wc: np.ndarray = wc) -> np.ndarray:
                d = math.radians(d_deg)
                q = np.cross(s, [math.cos(d), math.sin(d), 0.0])
                return wc + 260.0 * q / np.linalg.norm(q) * (-1.0 if q[2] > 0 else 1.0)

            assert cp == pytest.approx(patch(steer), abs=1e-9)
            # the heading X (the wheel-plane toe's change, 0 at design) is 5e-6 mm away
            assert np.linalg.norm(patch(0.0) - cp) == pytest.approx(5.3e-6, rel=0.02)


def test_corner_geometry_by_hand(model: KinematicModel) -> None:
    ch = optimumk_channels(model, [solve(model)], rates=False)

    def at(q: str, side: str = "left", axle: str = "front") -> float:
        return float(ch[channel_key(q, side, axle)][0])

    # k = UBJ - LBJ = (-15, +-20, 250); the ball-joint line meets z = 0 at
    # LBJ - (130 / 250) k = (12.8, +-570.4, 0); CP = (0, +-600, 0).
    for side, sgn in (("left", 1.0), ("right", -1.0)):
        for axle, x0 in (("front", 0.0), ("rear", -1530.0)):
            assert at("Caster Angle", side, axle) == pytest.approx(
                math.degrees(math.atan2(15, 250))
            )
            assert at("King Pin Inclination", side, axle) == pytest.approx(
                math.degrees(math.atan2(20, 250))
            )
            g = [at(f"King Pin Axis at Ground {c}", side, axle) for c in "XYZ"]
            assert g == pytest.approx([x0 + 12.8, sgn * 570.4, 0.0], abs=1e-9)
            assert at("Scrub Radius", side, axle) == pytest.approx(29.6)
            assert at("Mechanical Trail", side, axle) == pytest.approx(12.8)
            assert at("Half Track", side, axle) == pytest.approx(600.0)
            # upper ball joint (-10, 540, 380) -> outer tie-rod point (70, 555, 210)
            assert at("Top Upright Angle", side, axle) == pytest.approx(
                math.degrees(math.atan(170 / 80))
            )
            assert at("Tie Rod Length", side, axle) == pytest.approx(
                math.sqrt(10**2 + 335**2 + 10**2)
            )
            assert at("Tie Rod Front View Angle", side, axle) == pytest.approx(
                math.degrees(math.asin(10 / math.sqrt(10**2 + 335**2 + 10**2)))
            )
            assert at("UPRI_LowPnt Y", side, axle) == pytest.approx(sgn * 560.0)
    assert ch["Wheelbase [Left]"][0] == pytest.approx(1530.0)
    assert ch["Wheelbase"][0] == pytest.approx(1530.0)
    assert ch["Track [Front]"][0] == pytest.approx(1200.0)
    # CG: front and rear CP midpoints (0, 0, 0) and (-1530, 0, 0), 45 % at the front.
    cg = [ch[f"Center of Gravity {c}"][0] for c in "XYZ"]
    assert cg == pytest.approx([-0.55 * 1530.0, 0.0, 280.0], abs=1e-9)


def test_planar_wishbone_front_view_centres() -> None:
    """Pivot axes parallel to X: the front-view instant centre is where the arm lines
    cross; the roll centre is on the line CP -> IC at the centreline."""
    m = KinematicModel(wishbone_car())
    ch = optimumk_channels(m, [solve(m)], rates=False)
    ic_y, ic_z = front_view_ic(TYPICAL_ARMS)
    for side, sgn in (("left", 1.0), ("right", -1.0)):
        y = ch[channel_key("Front View Instant Center Y", side, "front")][0]
        z = ch[channel_key("Front View Instant Center Z", side, "front")][0]
        assert (y, z) == pytest.approx((sgn * ic_y, ic_z), abs=1e-7)
        length = ch[channel_key("Front View Swing Arm Length", side, "front")][0]
        assert length == pytest.approx(math.hypot(600.0 - ic_y, ic_z), rel=1e-10)
        angle = ch[channel_key("Front View Swing Arm Angle", side, "front")][0]
        assert angle == pytest.approx(math.degrees(math.atan(ic_z / abs(600.0 - ic_y))))
    assert ch["Roll Center Y [Front]"][0] == pytest.approx(0.0, abs=1e-7)
    assert ch["Roll Center Z [Front]"][0] == pytest.approx(ic_z * 600.0 / (600.0 - ic_y))
    assert ch["Roll Center (Ground) Z [Front]"][0] == pytest.approx(ch["Roll Center Z [Front]"][0])


def test_rates_against_central_differences(model: KinematicModel) -> None:
    design = grounded(model)
    ch = optimumk_channels(model, [design])

    def at(q: str, side: str = "left", axle: str = "front") -> float:
        return float(ch[channel_key(q, side, axle)][0])

    d = 0.05
    # heave: gains -d angle / dh, motion ratio dh / dL
    up, down = grounded(model, heave=d), grounded(model, heave=-d)
    for w, side, axle in (("FL", "left", "front"), ("RR", "right", "rear")):
        (c1, t1, l1), (c0, t0, l0) = angles(up, w), angles(down, w)
        assert at("Camber Angle Gain in Heave", side, axle) == pytest.approx(
            -(c1 - c0) / (2 * d), rel=1e-6
        )
        assert at("Toe Angle Gain in Heave", side, axle) == pytest.approx(
            -(t1 - t0) / (2 * d), rel=1e-6
        )
        assert at("Motion Ratio Heave", side, axle) == pytest.approx(2 * d / (l1 - l0), rel=1e-6)
    # single-wheel bump of the front left contact point
    up, down = grounded(model, lift={"FL": d}), grounded(model, lift={"FL": -d})
    (c1, t1, l1), (c0, t0, l0) = angles(up, "FL"), angles(down, "FL")
    assert at("Camber Angle Gain in Left Wheel Bump/Rebound") == pytest.approx(
        (c1 - c0) / (2 * d), rel=1e-6
    )
    assert at("Toe Angle Gain in Left Wheel Bump/Rebound") == pytest.approx(
        (t1 - t0) / (2 * d), rel=1e-6
    )
    assert at("Motion Ratio Single Left Wheel") == pytest.approx(-2 * d / (l1 - l0), rel=1e-6)
    assert at("Camber Angle Gain in Left Wheel Bump/Rebound", "right") == pytest.approx(0, abs=1e-9)
    assert at("Motion Ratio Single Left Wheel", "right") == 0.0
    assert at("Camber Angle Gain in Left Wheel Bump/Rebound") == pytest.approx(
        at("Camber Angle Gain in Heave"), rel=1e-9
    )
    # steering: SW +-d deg, rack = SW x 0.2 mm
    up, down = grounded(model, rack=d * RACK_MM_PER_DEG), grounded(model, rack=-d * RACK_MM_PER_DEG)
    steer = []
    for w, side, sgn in (("FL", "left", 1.0), ("FR", "right", -1.0)):
        (c1, t1, l1), (c0, t0, l0) = angles(up, w), angles(down, w)
        d_steer = sgn * (t1 - t0) / (2 * d)
        steer.append(d_steer)
        assert at("Steering Ratio", side) == pytest.approx(1 / d_steer, rel=1e-6)
        assert at("Steering Toe Angle Gain", side) == pytest.approx(-(t1 - t0) / (2 * d), rel=1e-6)
        assert at("Steering Camber Angle Gain", side) == pytest.approx(
            -(c1 - c0) / (2 * d), rel=1e-6
        )
        assert at("Motion Ratio Steering", side) == pytest.approx(2 * d / (l1 - l0), rel=1e-5)
    assert ch["Steering Ratio [Front]"][0] == pytest.approx(2 / sum(steer), rel=1e-6)
    # roll about the current roll axis: both roll centres at this height on y = 0
    h = ch["Roll Center Z [Front]"][0]
    assert ch["Roll Center Z [Rear]"][0] == pytest.approx(h, abs=1e-9)
    d = 0.005  # deg: the rates of roll curve more than those of heave (mm)
    up, down = grounded(model, roll=(d, h)), grounded(model, roll=(-d, h))
    for w, side, axle in (("FL", "left", "front"), ("RR", "right", "rear")):
        (c1, t1, l1), (c0, t0, l0) = angles(up, w), angles(down, w)
        assert at("Camber Angle Gain in Roll", side, axle) == pytest.approx(
            -(c1 - c0) / (2 * d), rel=1e-6
        )
        assert at("Toe Angle Gain in Roll", side, axle) == pytest.approx(
            -(t1 - t0) / (2 * d), rel=1e-6
        )
        assert at("Motion Ratio Roll", side, axle) == pytest.approx(2 * d / (l1 - l0), rel=1e-6)


def test_left_and_right_mirror(model: KinematicModel) -> None:
    """A symmetric car in heave: left and right agree on every corner channel except the
    Y coordinates (opposite) and the steer-like ones (opposite: + = turned left)."""
    poses = [grounded(model, heave=h) for h in (0.0, 12.0)]
    ch = optimumk_channels(model, poses)
    # opposite: steer-like (+ = turned left), per + roll (lifts the left side) and per
    # steering-wheel degree (the rack moves toward +Y), except the ratio of two such
    opposite = (
        "Steer Angle",
        "Steering Wheel Angle per Steer Angle",
        "Motion Ratio Roll",
        "Camber Angle Gain in Roll",
        "Toe Angle Gain in Roll",
        "Steering Toe Angle Gain",
        "Steering Camber Angle Gain",
        "Motion Ratio Steering",
    )
    checked = 0
    for key, left in ch.items():
        name, side, axle = split_key(key)
        if side != "left" or axle is None or "Wheel Bump" in name or "Single" in name:
            continue
        right = ch[channel_key(name, "right", axle)]
        sign = -1.0 if name.endswith(" Y") or name.startswith(opposite) else 1.0
        np.testing.assert_allclose(right, sign * left, rtol=1e-7, atol=1e-7, err_msg=key)
        checked += 1
    assert checked > 100
    wl, wr = (
        ch["Camber Angle Gain in Left Wheel Bump/Rebound [Left] [Front]"],
        ch["Camber Angle Gain in Right Wheel Bump/Rebound [Right] [Front]"],
    )
    np.testing.assert_allclose(wl, wr, rtol=1e-9)
    # displacements are from the first step
    assert ch["Wheel Center Displacement Z [Left] [Front]"][0] == 0.0
    assert ch["CoilOver Displacement [Left] [Front]"][1] == pytest.approx(
        ch["CoilOver Length [Left] [Front]"][1] - ch["CoilOver Length [Left] [Front]"][0]
    )


FOUR = ("FL", "FR", "RL", "RR")
L_WB, H_CG, BRAKE_FRONT = 1530.0, 300.0, 0.6
ANTI_OPTIONS = Options(
    cg_height_mm=H_CG,
    wheelbase_mm=L_WB,
    front_mass_share=0.5,
    front_brake_share=BRAKE_FRONT,
    rear_drive_share=1.0,
)
"""Every test car here has its wheel centres at z = 260 with r = 260 and the spin axis
along Y: the contact patches are at z = 0, the wheelbase is 1530 and the CG at z = 300,
so h = CG.z - CP.z = 300 and L / h = 5.1."""


def design_channels(car: Car) -> dict[str, np.ndarray]:
    m = KinematicModel(car)
    return optimumk_channels(m, [solve(m)], rates=False)


def test_antis_by_hand_on_trailing_arms() -> None:
    """Each wheel turns about its pivot line, so its side-view centre is where that line
    meets the plane y = 600 (the wheel's plane). Front: a semi-trailing line through
    (-600, 350, 150) and (-560, 500, 170) meets it at t = 250/150: (-533.33, 600, 183.33);
    rear: a pure trailing line 500 mm ahead of the rear axle at z = 330."""
    car = trailing_arm_car(
        pivots={
            "F": ((-600.0, 350.0, 150.0), (-560.0, 500.0, 170.0)),
            "R": ((500.0, 350.0, 330.0), (500.0, 500.0, 330.0)),
        },
        options=ANTI_OPTIONS,
    )
    ch = design_channels(car)
    front_ic = (-600.0 + 40.0 * 5 / 3, 600.0, 150.0 + 20.0 * 5 / 3)
    rear_ic = (-L_WB + 500.0, 600.0, 330.0)
    for side, sgn in (("left", 1.0), ("right", -1.0)):
        for axle, ic in (("front", front_ic), ("rear", rear_ic)):
            got = [ch[channel_key(f"Side View Instant Center {c}", side, axle)][0] for c in "XYZ"]
            assert got == pytest.approx([ic[0], sgn * ic[1], ic[2]], abs=1e-8)
    # Front: CP (0, 0) -> IC (-533.33, 183.33): tan = 183.33 / 533.33 = 0.34375, rising
    # toward the rear (+). Anti-dive = 100 x 0.34375 x 5.1 x 0.6 = 105.1875 %.
    assert ch["Side View Swing Arm Angle [Left] [Front]"][0] == pytest.approx(
        math.degrees(math.atan(0.34375)), abs=1e-10
    )
    assert ch["Side View Swing Arm Length [Left] [Front]"][0] == pytest.approx(
        math.hypot(533.0 + 1 / 3, 183.0 + 1 / 3), rel=1e-12
    )
    assert ch["Anti-Dive Percentage [Left] [Front]"][0] == pytest.approx(105.1875, rel=1e-10)
    assert ch["Anti-Dive Percentage [Right]"][0] == pytest.approx(105.1875, rel=1e-10)
    # Rear: CP (-1530, 0) -> IC (-1030, 330): tan = 0.66, rising toward the front (+).
    # Anti-lift = 100 x 0.66 x 5.1 x (1 - 0.6) = 134.64 %. Anti-squat takes the line
    # from the WHEEL CENTRE (-1530, 260): slope 70 / 500 = 0.14, 100 x 0.14 x 5.1 x 1 =
    # 71.4 % (from the contact patch it would be 336.6 %).
    assert ch["Side View Swing Arm Angle [Right] [Rear]"][0] == pytest.approx(
        math.degrees(math.atan(0.66)), abs=1e-10
    )
    assert ch["Anti-Lift Percentage [Right] [Rear]"][0] == pytest.approx(134.64, rel=1e-10)
    assert ch["Anti-Squat Percentage [Left] [Rear]"][0] == pytest.approx(71.4, rel=1e-10)
    assert ch["Anti-Squat Percentage [Right]"][0] == pytest.approx(71.4, rel=1e-10)
    # Pure trailing rear arm: the front-view centre is at infinity (blank) along a
    # horizontal line, so the front-view angle is 0.
    assert np.isnan(ch["Front View Instant Center Z [Left] [Rear]"][0])
    assert np.isnan(ch["Front View Swing Arm Length [Left] [Rear]"][0])
    assert ch["Front View Swing Arm Angle [Left] [Rear]"][0] == pytest.approx(0.0, abs=1e-10)


def yawed(car: Car, beta_deg: float) -> Car:
    """The car with every linkage point of every corner (all but the wheel centre and
    axis point) turned about the vertical through its wheel centre by beta (left) or
    -beta (right, mirror): the upright's rotation axis turns with them."""
    centres = {w.name: car.point(w.centre) for w in car.wheels}
    out = []
    for p in car.points:
        corner = p.name[:2]
        if p.name.endswith(("_WC", "_WA")) or corner not in centres:
            out.append(p)
            continue
        b = math.radians(beta_deg if corner[1] == "L" else -beta_deg)
        cx, cy, _ = centres[corner]
        x, y, z = p.xyz[0] - cx, p.xyz[1] - cy, p.xyz[2]
        out.append(
            Point(
                p.name,
                (cx + math.cos(b) * x - math.sin(b) * y, cy + math.sin(b) * x + math.cos(b) * y, z),
            )
        )
    return replace(car, points=tuple(out))


def side_view_ic(alpha_deg: float, beta_deg: float, x0: float) -> np.ndarray:
    """Closed form for `yawed(wishbone_car(incline_deg=alpha))`, left wheel at x = x0.

    The upright of the wishbone car turns about the line through its front-view centre
    (0, ic_y, ic_z) along X (tests/_metric_cars.py); the car's Ry(alpha) about
    (0, 0, 260) and the yaw Rz(beta) about (0, 600) carry that line rigidly. A pure
    rotation's force-based centre in a plane is where its axis meets the plane: y = 600.
    """
    ic_y, ic_z = front_view_ic(TYPICAL_ARMS)
    a = math.radians(beta_deg)
    Rz = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0, 0, 1]])
    pivot, c = np.array([0.0, 0.0, 260.0]), np.array([0.0, 600.0, 0.0])
    p = rotation_y(alpha_deg) @ (np.array([0.0, ic_y, ic_z]) - pivot) + pivot
    p = Rz @ (p - c) + c
    d = Rz @ rotation_y(alpha_deg) @ np.array([1.0, 0.0, 0.0])
    return p + (600.0 - p[1]) / d[1] * d + np.array([x0, 0.0, 0.0])


def test_parallel_side_view_arms_give_finite_angles_and_antis() -> None:
    """Pivot axes tilted by alpha in side view (front 3 deg, rear -2 deg), every axis of
    an axle parallel: the side-view centre is at infinity, so it and the swing-arm
    length are blank, but the force line runs along the tilt: the swing-arm angle is
    the tilt (+ = rising toward the other axle) and the antis follow from it."""
    ch = design_channels(
        wishbone_car(corners=FOUR, incline_deg={"F": 3.0, "R": -2.0}, options=ANTI_OPTIONS)
    )
    for side in ("left", "right"):
        for axle, tilt in (("front", 3.0), ("rear", 2.0)):
            assert np.isnan(ch[channel_key("Side View Instant Center X", side, axle)][0])
            assert np.isnan(ch[channel_key("Side View Swing Arm Length", side, axle)][0])
            angle = ch[channel_key("Side View Swing Arm Angle", side, axle)][0]
            assert angle == pytest.approx(tilt, abs=1e-10)
        tan3, tan2 = math.tan(math.radians(3.0)), math.tan(math.radians(2.0))
        # by hand: 100 tan(angle) x L / h x share, L / h = 5.1
        dive = ch[channel_key("Anti-Dive Percentage", side, "front")][0]
        assert dive == pytest.approx(100.0 * tan3 * 5.1 * BRAKE_FRONT, rel=1e-10)
        lift = ch[channel_key("Anti-Lift Percentage", side, "rear")][0]
        assert lift == pytest.approx(100.0 * tan2 * 5.1 * (1.0 - BRAKE_FRONT), rel=1e-10)
        # the wheel-centre line meets the force line at infinity: parallel to it
        squat = ch[channel_key("Anti-Squat Percentage", side, "rear")][0]
        assert squat == pytest.approx(100.0 * tan2 * 5.1, rel=1e-10)


def test_nearly_parallel_side_view_arms_are_continuous_with_the_parallel_case() -> None:
    """The same car with its linkage yawed by beta: the rotation axis now pierces the
    wheel's plane (y = 600) at about 2711 / sin(beta) mm. beta = 0.5, 0.05, 0.005 deg put
    the side-view centre 311 m, 3.1 km and 31 km away: the first two are shown, the
    third is blank (farther than 10 km), and every angle and anti equals the closed form
    from the true centre and tends to the parallel case's value."""
    alpha = {"F": 3.0, "R": -2.0}
    base = wishbone_car(corners=FOUR, incline_deg=alpha, options=ANTI_OPTIONS)
    parallel = design_channels(base)
    gaps: dict[str, list[float]] = {}
    for beta, shown in ((0.5, True), (0.05, True), (0.005, False)):
        ch = design_channels(yawed(base, beta))
        ic_f, ic_r = side_view_ic(3.0, beta, 0.0), side_view_ic(-2.0, beta, -L_WB)
        assert abs(ic_f[0]) > 3e5 and abs(ic_r[0]) > 3e5
        got_f = np.array([ch[f"Side View Instant Center {c} [Left] [Front]"][0] for c in "XYZ"])
        if shown:
            np.testing.assert_allclose(got_f, ic_f, rtol=1e-7)
            assert ch["Side View Swing Arm Length [Left] [Front]"][0] == pytest.approx(
                math.hypot(ic_f[0], ic_f[2]), rel=1e-7
            )
        else:
            assert np.all(np.isnan(got_f))
            assert np.isnan(ch["Side View Swing Arm Length [Left] [Front]"][0])
        # closed form from the true centre (CP at z = 0 and x = 0 / -1530)
        front = -math.atan(ic_f[2] / ic_f[0])
        rear = math.atan(ic_r[2] / (ic_r[0] + L_WB))
        values = {
            "Side View Swing Arm Angle [Left] [Front]": math.degrees(front),
            "Side View Swing Arm Angle [Left] [Rear]": math.degrees(rear),
            "Anti-Dive Percentage [Left] [Front]": 100.0 * math.tan(front) * 5.1 * BRAKE_FRONT,
            "Anti-Lift Percentage [Left] [Rear]": 100.0 * math.tan(rear) * 5.1 * 0.4,
            "Anti-Squat Percentage [Left] [Rear]": 100.0
            * (ic_r[2] - 260.0)
            / (ic_r[0] + L_WB)
            * 5.1,
        }
        for key, want in values.items():
            assert ch[key][0] == pytest.approx(want, rel=1e-7, abs=1e-9), (beta, key)
        for key in values:
            gaps.setdefault(key, []).append(abs(float(ch[key][0] - parallel[key][0])))
    # continuous: the gap to the parallel value shrinks with beta (about linearly),
    # also across the blanking of the centre between 3.1 km and 31 km
    for key, (g1, g2, g3) in gaps.items():
        assert g2 < 0.2 * g1 and g3 < 0.2 * g2 and g3 < 1e-2, (key, g1, g2, g3)


def test_front_view_angle_of_parallel_arms_takes_the_inboard_sense() -> None:
    """Parallel, equal arms and tie rod rising 30 mm over 360 mm outboard (a front-view
    parallelogram): the front-view centre is at infinity (blank, as its length), the
    force line runs along the arms, and its angle atan(dz / |dy|) is taken toward the
    centreline: -atan(30 / 360)."""
    arms = dict(PARALLEL_ARMS)
    for name in ("LBJ", "UBJ", "TIE_O"):
        x, y, z = arms[name]
        arms[name] = (x, y, z + 30.0)
    ch = design_channels(wishbone_car(corners=FOUR, arms=arms, options=ANTI_OPTIONS))
    for side in ("left", "right"):
        for axle in ("front", "rear"):
            assert np.isnan(ch[channel_key("Front View Instant Center Y", side, axle)][0])
            assert np.isnan(ch[channel_key("Front View Swing Arm Length", side, axle)][0])
            angle = ch[channel_key("Front View Swing Arm Angle", side, axle)][0]
            assert angle == pytest.approx(-math.degrees(math.atan(30.0 / 360.0)), abs=1e-9)
