"""Third springs and anti-roll bars: deflections, wheel rates, roll stiffness, statics.

Truths used, all independent of the code under test: the deflections from the
pose's own point positions by hand geometry (a spring's length; a U-bar arm's
angle about its axis; a T-bar lever's rotation about its shaft); rates as second
differences of the stored energy over poses solved with wheel-travel targets;
the virtual work of the tyre loads from finite differences of solved poses; the
global balance of the chassis against the tyre loads.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from suspension_sim.api import Model
from suspension_sim.description import Point
from suspension_sim.errors import InputError
from suspension_sim.loads import LoadCase, WheelLoad, solve_loads
from suspension_sim.loads.springs import (
    Spring,
    ride_height,
    roll_stiffness,
    wheel_rate_terms,
    wheel_rates,
)
from suspension_sim.metrics.core import pose_metrics
from suspension_sim.solve.targets import contact_z, wheel_travel
from tests._element_cars import ARM, BAR_AXIS_X, BAR_Z, element_car

WHEELS = ("FL", "FR", "RL", "RR")
RATE_THIRD, PRELOAD_THIRD, RATE_BAR = 60.0, 150.0, 4.0e5
COIL = {"F": (35.0, 250.0), "R": (40.0, 250.0)}  # rate N/mm, preload N (element_car)


@pytest.fixture(scope="module")
def ubar() -> Model:
    return Model(element_car())


@pytest.fixture(scope="module")
def tbar() -> Model:
    return Model(element_car(bar_kind="T-bar"))


# -- hand geometry from the pose's points (chassis frame: these poses keep the chassis at 0) --
def _pt(pose: object, name: str) -> np.ndarray:
    return pose.points.loc[name].to_numpy(dtype=float)  # type: ignore[attr-defined]


def _compression(pose: object) -> float:
    return 400.0 - float(np.linalg.norm(_pt(pose, "FR_TS") - _pt(pose, "FL_TS")))


def _u_twist(pose: object) -> float:
    """Arm 1's rotation minus arm 2's about the axis ARB_P1 -> ARB_P2 (-Y): an arm end
    ARM mm ahead of the axis at angle beta about -Y sits at z = BAR_Z + ARM sin(beta)."""
    beta = []
    for arm in ("RL", "RR"):
        e = _pt(pose, f"{arm}_ARB_E")
        beta.append(np.arctan2(e[2] - BAR_Z, e[0] - BAR_AXIS_X))
    return float(beta[0] - beta[1])


def _t_twist(pose: object) -> float:
    """The lever's rotation about its shaft (pivot -> TB_S), right-handed: with u the
    pivot axis (+Y) and s the shaft's direction now, the end-to-end vector d = EL - ER
    (along u at design) turns out of u towards -(u x s)."""
    u = np.array([0.0, 1.0, 0.0])
    s = _pt(pose, "TB_S") - _pt(pose, "ARB_P1")
    s /= np.linalg.norm(s)
    d = _pt(pose, "RL_ARB_E") - _pt(pose, "RR_ARB_E")
    return float(np.arctan2(-d @ np.cross(u, s), d @ u))


def _energy(pose: object, twist: object = _u_twist, third: bool = True, bar: bool = True) -> float:
    """Energy stored in the coil springs, third spring and bar (N mm), hand geometry."""
    total = 0.0
    for d, s in pose.shocks.items():  # type: ignore[attr-defined]
        k, p0 = COIL[d[0]]
        total += p0 * s + 0.5 * k * s * s
    if third:
        c = _compression(pose)
        total += PRELOAD_THIRD * c + 0.5 * RATE_THIRD * c * c
    if bar:
        total += 0.5 * RATE_BAR * twist(pose) ** 2  # type: ignore[operator]
    return total


def _travel_pose(model: Model, base: object, travel: dict[str, float]) -> object:
    """The pose with each wheel centre at the given travel (mm, chassis z), rack held."""
    targets = {f"{w}_Damper": wheel_travel(w, z) for w, z in travel.items()}
    return model.solve(
        shocks=base.shocks,  # type: ignore[attr-defined]
        rack=base.rack,  # type: ignore[attr-defined]
        guess=base,  # type: ignore[arg-type]
        tolerance=1e-12,
        targets=targets,
    )


def _travels(model: Model, pose: object) -> dict[str, float]:
    out = {}
    for w in model.car.wheels:
        out[w.name] = float(_pt(pose, w.centre)[2] - model.car.point(w.centre)[2])
    return out


def _second_difference(model: Model, pose: object, direction: dict[str, float], h: float, **kw):
    """d2E/dt2 along the wheel travels z + t * direction (every wheel targeted)."""
    z0 = _travels(model, pose)
    E = []
    for t in (-h, 0.0, h):
        p = _travel_pose(model, pose, {w: z0[w] + t * direction.get(w, 0.0) for w in WHEELS})
        E.append(_energy(p, **kw))
    return (E[0] - 2 * E[1] + E[2]) / h**2


# -- deflections against hand geometry ------------------------------------------------------
@pytest.mark.parametrize("kind", ["U-bar", "T-bar"])
def test_deflections_match_hand_geometry(ubar, tbar, kind):
    model = ubar if kind == "U-bar" else tbar
    twist = _u_twist if kind == "U-bar" else _t_twist
    pose = model.solve(shocks=dict(zip(model.damper_names, (6.0, -3.0, 9.0, -4.0), strict=True)))
    case = LoadCase("z", {"FL": WheelLoad((0.0, 0.0, 1000.0))})
    rows = solve_loads(pose, case).elements.set_index("element")
    assert rows.loc["Heave", "unit"] == "mm" and rows.loc["RearBar", "unit"] == "deg"
    assert rows.loc["Heave", "deflection"] == pytest.approx(_compression(pose), abs=1e-9)
    assert abs(twist(pose)) > 0.01  # the pose twists the bar: the check is not 0 = 0
    assert rows.loc["RearBar", "deflection"] == pytest.approx(np.degrees(twist(pose)), abs=1e-9)
    c = _compression(pose)
    assert rows.loc["Heave", "force_N"] == pytest.approx(PRELOAD_THIRD + RATE_THIRD * c)
    assert rows.loc["RearBar", "torque_Nm"] == pytest.approx(RATE_BAR * twist(pose) / 1000.0)


# -- third spring -------------------------------------------------------------------------------
def test_third_spring_in_heave_against_solved_poses():
    """Front heave (both wheels +z, rear held): its compression rate and its share of
    the axle's heave rate, from second differences of its energy over solved poses."""
    model = Model(element_car(bar_rate=None))
    pose = model.solve()
    h = 0.1
    c = [
        _compression(_travel_pose(model, pose, {"FL": t, "FR": t, "RL": 0.0, "RR": 0.0}))
        for t in (-h, 0.0, h)
    ]
    dc_dz = (c[2] - c[0]) / (2 * h)
    d2c_dz2 = (c[2] - 2 * c[1] + c[0]) / h**2
    assert dc_dz > 0.3  # heave compresses it
    rs = roll_stiffness(pose)
    heave = _second_difference(model, pose, {"FL": 1.0, "FR": 1.0}, h, third=True, bar=False)
    coils = _second_difference(model, pose, {"FL": 1.0, "FR": 1.0}, h, third=False, bar=False)
    front = rs.axles["front"]
    assert front.heave_terms["third springs"] == pytest.approx(heave - coils, rel=1e-5)
    assert front.heave_N_per_mm == pytest.approx(heave, rel=1e-6)
    # k (dc/dz)^2 + P d2c/dz2 with both from the solved spring lengths
    by_hand = RATE_THIRD * dc_dz**2 + (PRELOAD_THIRD + RATE_THIRD * c[1]) * d2c_dz2
    assert front.heave_terms["third springs"] == pytest.approx(by_hand, rel=1e-5)
    # one wheel at a time (wheel rate): the same energy, one travel
    terms = wheel_rate_terms(pose)
    one = _second_difference(model, pose, {"FL": 1.0}, h, third=True, bar=False)
    assert terms.loc["FL", "total"] == pytest.approx(one, rel=1e-6)
    assert terms.loc["FL", "third springs"] > 0.2 * terms.loc["FL", "total"]


def test_third_spring_barely_deflects_in_roll():
    """Rocker points right above parallel pivots, mirrored: in roll both rockers turn the
    same way and the points keep their distance to first order (hand check: each point
    moves 50 sin(theta) sideways, the same way), where heave shortens it by 100 sin(theta)."""
    model = Model(element_car(bar_rate=None))
    pose = model.solve()
    z = 10.0
    roll = _compression(_travel_pose(model, pose, {"FL": -z, "FR": z, "RL": 0.0, "RR": 0.0}))
    heave = _compression(_travel_pose(model, pose, {"FL": z, "FR": z, "RL": 0.0, "RR": 0.0}))
    assert abs(roll) < 0.01 * abs(heave)
    # the rockers' angle (from the pushrod eye, 60 mm from the pivot at design) gives heave
    eye = _pt(_travel_pose(model, pose, {"FL": z, "FR": z, "RL": 0.0, "RR": 0.0}), "FL_PR_I")
    theta = np.arctan2(eye[2] - 400.0, eye[1] - 200.0) - np.arctan2(40.0, 60.0)
    assert heave == pytest.approx(100.0 * np.sin(theta), rel=1e-9)
    front = roll_stiffness(pose).axles["front"]
    assert abs(front.roll_terms["third springs"]) < 1e-3 * front.roll_Nm_per_deg


# -- anti-roll bars --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["U-bar", "T-bar"])
def test_bar_roll_stiffness_against_solved_poses(ubar, tbar, kind):
    """Rear roll (left -(t/2) phi, right +(t/2) phi, front held): the bar's term equals
    k (dtheta/dphi)^2 at design (no torque there), and the total the energy's second
    difference at a twisted pose too."""
    model = ubar if kind == "U-bar" else tbar
    twist = _u_twist if kind == "U-bar" else _t_twist
    pose = model.solve()
    rear = roll_stiffness(pose).axles["rear"]
    half = 0.5 * rear.track_mm
    assert half == pytest.approx(600.0)
    dphi = 1e-4  # rad
    th = [
        twist(_travel_pose(model, pose, {"RL": -half * a, "RR": half * a, "FL": 0.0, "FR": 0.0}))
        for a in (-dphi, dphi)
    ]
    dtheta = (th[1] - th[0]) / (2 * dphi)
    by_hand = RATE_BAR * dtheta**2 * np.pi / 180.0 / 1000.0  # N m/deg
    assert rear.roll_terms["bars"] == pytest.approx(by_hand, rel=1e-6)
    assert rear.bar_share == pytest.approx(rear.roll_terms["bars"] / rear.roll_Nm_per_deg)
    assert 0.0 < rear.bar_share < 1.0
    # the U-bar's arm turns by about the arm end's rise over ARM: dtheta/dphi ~ -2 half MR / ARM
    # twisted pose: the whole roll stiffness from the energy (coils, third spring, bar)
    moved = model.solve(shocks=dict(zip(model.damper_names, (4.0, 1.0, 8.0, -2.0), strict=True)))
    assert abs(twist(moved)) > 0.01
    rs = roll_stiffness(moved)
    for axle, (left, right) in (("front", ("FL", "FR")), ("rear", ("RL", "RR"))):
        t = rs.axles[axle].track_mm
        d2E = _second_difference(
            model, moved, {left: -0.5 * t, right: 0.5 * t}, 2e-4, twist=twist
        )  # N mm / rad^2
        assert rs.axles[axle].roll_Nm_per_deg == pytest.approx(
            d2E * np.pi / 180.0 / 1000.0, rel=1e-4
        )
    total = rs.axles["front"].roll_Nm_per_deg + rs.axles["rear"].roll_Nm_per_deg
    assert rs.front_share == pytest.approx(rs.axles["front"].roll_Nm_per_deg / total)


def test_t_bar_adds_nothing_to_heave(tbar):
    """A symmetric T-bar turns about its pivot in heave and does not twist."""
    pose = tbar.solve()
    rear = roll_stiffness(pose).axles["rear"]
    assert abs(rear.heave_terms["bars"]) < 1e-9 * rear.heave_N_per_mm
    assert rear.roll_terms["bars"] > 0.01 * rear.roll_Nm_per_deg
    lifted = _travel_pose(tbar, pose, {"RL": 8.0, "RR": 8.0, "FL": 0.0, "FR": 0.0})
    assert abs(_t_twist(lifted)) < 1e-9
    assert abs(_pt(lifted, "TB_S")[2] - BAR_Z) > 1.0  # ... but it did turn about the pivot


@pytest.mark.parametrize("kind", ["U-bar", "T-bar"])
def test_wheel_rates_with_elements_are_second_differences_of_the_energy(ubar, tbar, kind):
    model = ubar if kind == "U-bar" else tbar
    twist = _u_twist if kind == "U-bar" else _t_twist
    pose = model.solve(
        shocks=dict(zip(model.damper_names, (5.0, -2.0, 7.0, 3.0), strict=True)), rack=3.0
    )
    rates = wheel_rates(pose)
    for w in WHEELS:
        fd = _second_difference(model, pose, {w: 1.0}, 0.1, twist=twist)
        assert rates[w] == pytest.approx(fd, rel=1e-5), w


# -- statics -----------------------------------------------------------------------------------
def _material_velocity(model: Model, pose: object, body: str, point: np.ndarray, name: str):
    """d(point fixed on `body`)/d input (a stroke or "rack") and d(compression, twist)/d
    input, central differences of solved poses."""
    h = 0.01
    T0 = pose.body_frames[body]  # type: ignore[attr-defined]
    local = np.linalg.solve(T0, np.append(point, 1.0))
    out, e = [], []
    for sign in (1.0, -1.0):
        shocks = dict(pose.shocks)  # type: ignore[attr-defined]
        rack = pose.rack  # type: ignore[attr-defined]
        if name == "rack":
            rack += sign * h
        else:
            shocks[name] += sign * h
        p = model.solve(shocks=shocks, rack=rack, guess=pose, tolerance=1e-12)
        out.append((p.body_frames[body] @ local)[:3])
        e.append(np.array([_compression(p), _u_twist(p)]))
    return (out[0] - out[1]) / (2 * h), (e[0] - e[1]) / (2 * h)


def test_virtual_work_with_elements(ubar):
    """For every input motion: damper force x 1 + element forces x their rates = the
    tyre loads' power (the rack: the steering holds it against the rest)."""
    pose = ubar.solve(
        shocks=dict(zip(ubar.damper_names, (3.0, -2.0, 6.0, 1.0), strict=True)),
        rack=2.0,
        tolerance=1e-12,
    )
    rng = np.random.default_rng(7)
    loads = {w: rng.uniform([-800, -1500, 500], [800, 1500, 3000]) for w in WHEELS}
    case = LoadCase("vw", {w: WheelLoad(tuple(f)) for w, f in loads.items()})
    result = solve_loads(pose, case)
    el = result.elements.set_index("element")
    F_e = np.array([el.loc["Heave", "force_N"], el.loc["RearBar", "torque_Nm"] * 1000.0])
    assert abs(F_e[1]) > 1.0  # the bar carries a torque here
    inputs = result.inputs.set_index("input")["force_N"]
    metrics = pose_metrics(pose, rates=False)
    for name in [*ubar.damper_names, "rack"]:
        work = 0.0
        element_power = 0.0
        for w in ubar.car.wheels:
            cp = np.array([metrics[f"contact_point_{w.name}_{a}_mm"] for a in "xyz"])
            v, de = _material_velocity(ubar, pose, w.body, cp, name)
            work += loads[w.name] @ v
            element_power = float(F_e @ de)  # the same for every wheel
        f = -inputs[name] if name == "rack" else inputs[name]
        scale = max(abs(work), abs(element_power), 1.0)
        assert abs(f + element_power - work) < 1e-6 * scale, name


def _with_chassis_end(car):
    """The third spring from the FL rocker to a chassis point TS_C = (0, -100, 450)."""
    chassis = car.body("Chassis")
    bodies = tuple(
        dataclasses.replace(b, points=(*b.points, "TS_C")) if b is chassis else b
        for b in car.bodies
    )
    spring = dataclasses.replace(car.third_springs[0], end_points=("FL_TS", "TS_C"))
    return dataclasses.replace(
        car,
        points=(*car.points, Point("TS_C", (0.0, -100.0, 450.0))),
        bodies=bodies,
        third_springs=(spring,),
    )


@pytest.mark.parametrize("kind", ["U-bar", "T-bar"])
def test_chassis_balances_the_tyre_loads_with_elements(kind):
    """Sum of the chassis rows = the tyre forces (1e-9), and their moment about the origin
    (with a T-bar's moment on the chassis) = the tyre forces' moment, on a rolled,
    pitched and yawed car; the third spring's chassis end is a pickup row."""
    model = Model(_with_chassis_end(element_car(bar_kind=kind)))
    pose = model.solve(
        shocks=dict(zip(model.damper_names, (3.0, -1.0, 5.0, 2.0), strict=True)),
        chassis=(0, 0, 0, 1.5, -1.0, 2.0),
    )
    rng = np.random.default_rng(1)
    loads = {w: rng.uniform([-800, -1500, 500], [800, 1500, 3000]) for w in WHEELS}
    case = LoadCase("c", {w: WheelLoad(tuple(f)) for w, f in loads.items()})
    result = solve_loads(pose, case)
    table = result.table
    pickups = result.pickups()
    spring_rows = pickups[pickups["member"] == "Heave"]
    assert list(spring_rows["point"]) == ["TS_C"]
    members = result.members().set_index("member")
    force = result.elements.set_index("element").loc["Heave", "force_N"]
    assert members.loc["Heave", "axial_N"] == pytest.approx(-force)
    assert spring_rows["F_N"].iloc[0] == pytest.approx(abs(force))
    met = pose_metrics(pose, rates=False)
    cp = {w: np.array([met[f"contact_point_{w}_{a}_mm"] for a in "xyz"]) for w in loads}
    total = sum(loads.values())
    moment = sum(np.cross(cp[w], f) for w, f in loads.items())
    chassis = table[table.body == "Chassis"][["Fx_N", "Fy_N", "Fz_N"]].to_numpy(float)
    assert np.abs(chassis.sum(axis=0) - total).max() < 1e-9 * np.abs(total).max()
    where = {n: pose.points.loc[n].to_numpy(float) for n in pose.points.index}
    rows = table[table.body.isin(["Chassis", "Rack"])]
    got = np.zeros(3)
    for name, f in zip(rows.point, rows[["Fx_N", "Fy_N", "Fz_N"]].to_numpy(float), strict=True):
        if name in where:
            got += np.cross(where[name], f)
    bar = result.elements.set_index("element").loc["RearBar"]
    if kind == "T-bar":
        reaction = bar[["Mx_Nm", "My_Nm", "Mz_Nm"]].to_numpy(float) * 1000.0
        assert np.linalg.norm(reaction) > 1.0
        got += reaction
    assert np.abs(got - moment).max() < 1e-9 * np.abs(moment).max()


def test_no_elements_no_change():
    """Without elements the result has an empty elements table and the same forces as a
    car whose elements have zero rate and preload."""
    plain = Model(element_car(third_rate=None, bar_rate=None))
    zero = Model(element_car(third_rate=0.0, third_preload=0.0, bar_rate=1e-300))
    case = LoadCase("c", {"FL": WheelLoad((300.0, -500.0, 2000.0))})
    a = solve_loads(plain.solve(shocks=[2.0, 1.0, 0.0, 3.0]), case)
    b = solve_loads(zero.solve(shocks=[2.0, 1.0, 0.0, 3.0]), case)
    assert a.elements.empty and len(b.elements) == 2
    fa = a.inputs.set_index("input")["force_N"]
    fb = b.inputs.set_index("input")["force_N"]
    assert np.allclose(fa.to_numpy(), fb.to_numpy(), rtol=1e-9, atol=1e-9)


def test_element_overrides_and_errors(ubar):
    pose = ubar.solve()
    stiffer = wheel_rate_terms(pose, {"Heave": Spring(120.0, 0.0)})
    base = wheel_rate_terms(pose, {"Heave": Spring(60.0, 0.0)})
    # no force at design: the term is k (dc/dz)^2, proportional to k
    assert stiffer.loc["FL", "third springs"] == pytest.approx(
        2 * base.loc["FL", "third springs"], rel=1e-12
    )
    assert stiffer.loc["FL", "springs"] == base.loc["FL", "springs"]
    with pytest.raises(InputError, match="no preload"):
        wheel_rates(pose, {"RearBar": Spring(1e5, 10.0)})
    with pytest.raises(InputError, match="not dampers, third"):
        wheel_rates(pose, {"Nope": Spring(1.0)})


def test_ride_height_includes_the_elements():
    """At the ride height every corner's contact load balances its coil spring and the
    elements by virtual work, from poses solved with that contact patch held at +- h."""
    model = Model(element_car())
    rh = ride_height(model, mass_kg=150.0, cg_mm=(-700.0, 30.0, 280.0))
    plain = ride_height(
        Model(element_car(third_rate=None, bar_rate=None)),
        mass_kg=150.0,
        cg_mm=(-700.0, 30.0, 280.0),
    )
    assert rh.heave_mm > plain.heave_mm  # the third spring holds the front up
    pose, h = rh.pose, 0.02
    el = solve_loads(pose, LoadCase("0", {"FL": WheelLoad((0.0, 0.0, 0.0))})).elements
    F_e = el.set_index("element")[["force_N", "torque_Nm"]]
    F = np.array([F_e.loc["Heave", "force_N"], F_e.loc["RearBar", "torque_Nm"] * 1000.0])
    for w in WHEELS:
        damper = f"{w}_Damper"
        z0 = 0.0
        s, e = [], []
        for z in (z0 - h, z0 + h):
            p = model.solve(
                shocks=pose.shocks,
                chassis=pose.chassis,
                guess=pose,
                tolerance=1e-12,
                targets={damper: contact_z(w, z)},
            )
            s.append(p.shocks[damper])
            e.append(np.array([_compression_world(p), _twist_world(p)]))
        ds, de = (s[1] - s[0]) / (2 * h), (e[1] - e[0]) / (2 * h)
        k, p0 = COIL[w[0]]
        spring = p0 + k * rh.strokes[damper]
        assert spring * ds + F @ de == pytest.approx(rh.corner_weights[w], rel=1e-5), w


def _chassis_points(pose: object, names: list[str]) -> list[np.ndarray]:
    T = pose.chassis_transform  # type: ignore[attr-defined]
    return [np.linalg.solve(T, np.append(_pt(pose, n), 1.0))[:3] for n in names]


def _compression_world(pose: object) -> float:
    a, b = _chassis_points(pose, ["FL_TS", "FR_TS"])
    return 400.0 - float(np.linalg.norm(b - a))


def _twist_world(pose: object) -> float:
    ends = _chassis_points(pose, ["RL_ARB_E", "RR_ARB_E"])
    beta = [np.arctan2(e[2] - BAR_Z, e[0] - BAR_AXIS_X) for e in ends]
    return float(beta[0] - beta[1])


assert ARM == 100.0  # the hand formulas above use the test car's arm length


@pytest.mark.parametrize("kind", ["U-bar", "T-bar"])
def test_each_arm_balances_with_the_bar(ubar, tbar, kind):
    """Every row on a bar arm (pivots, drop-link end) plus the bar's moment balances the
    arm: a U-bar puts -T a on arm 1 and +T a on arm 2 (a = ARB_P1 -> ARB_P2, T = rate x
    twist); a T-bar's lever takes minus its reported moment on the chassis."""
    model = ubar if kind == "U-bar" else tbar
    pose = model.solve(shocks=dict(zip(model.damper_names, (2.0, 1.0, 9.0, -5.0), strict=True)))
    case = LoadCase("c", {"RL": WheelLoad((200.0, 900.0, 2500.0)), "RR": WheelLoad((0, 0, 800))})
    result = solve_loads(pose, case)
    bar = result.elements.set_index("element").loc["RearBar"]
    T = bar["torque_Nm"] * 1000.0
    assert abs(T) > 1000.0
    a = np.array([0.0, -1.0, 0.0])
    arms = {"RL_ARB": -T * a, "RR_ARB": T * a} if kind == "U-bar" else {}
    if kind == "T-bar":
        arms = {"Lever": -bar[["Mx_Nm", "My_Nm", "Mz_Nm"]].to_numpy(float) * 1000.0}
        # the bar's torque about the shaft is part of it; the pivot takes none about its axis
        s = _pt(pose, "TB_S") - _pt(pose, "ARB_P1")
        assert arms["Lever"] @ (s / np.linalg.norm(s)) == pytest.approx(-T, rel=1e-9)
        assert abs(arms["Lever"][1]) < 1e-9 * abs(T)
    table = result.table
    for body, moment in arms.items():
        rows = table[table.body == body]
        F = rows[["Fx_N", "Fy_N", "Fz_N"]].to_numpy(float)
        r = np.array([_pt(pose, p) for p in rows.point]) - _pt(pose, "ARB_P1")
        assert np.abs(F.sum(axis=0)).max() < 1e-9 * np.abs(F).max()
        total = np.cross(r, F).sum(axis=0) + moment
        assert np.abs(total).max() < 1e-9 * abs(T), body


def test_sweep_reports_elements_per_step_and_case(tbar):
    from suspension_sim.loads import sweep_loads

    poses = [tbar.solve(shocks=[s, -s, 2 * s, -s]) for s in (0.0, 3.0, 6.0)]
    cases = [
        LoadCase("a", {"RL": WheelLoad((0.0, 500.0, 1500.0))}),
        LoadCase("b", {"FR": WheelLoad((100.0, 0.0, 900.0))}),
    ]
    sweep = sweep_loads(poses, cases, steps=[10, 11, 12]).elements
    assert list(sweep.columns[:3]) == ["step", "case", "element"] and len(sweep) == 3 * 2 * 2
    for step, pose in zip((10, 11, 12), poses, strict=True):
        one = solve_loads(pose, cases).elements
        got = sweep[sweep.step == step].drop(columns="step").reset_index(drop=True)
        assert np.allclose(
            got[["deflection", "Mx_Nm", "My_Nm", "Mz_Nm"]].to_numpy(float),
            one[["deflection", "Mx_Nm", "My_Nm", "Mz_Nm"]].to_numpy(float),
            rtol=1e-9,
            atol=1e-9,
            equal_nan=True,
        )
        assert list(got.case) == ["a", "a", "b", "b"]


def test_cli_loads_prints_bar_torque_from_its_twist(capsys: pytest.CaptureFixture[str]) -> None:
    """`loads` prints each bar's twist and torque: torque = rate x twist, the twist
    measured independently from the solved arms (model.topology.bar_twist)."""
    from pathlib import Path

    import suspension_sim
    from suspension_sim.cli import main
    from suspension_sim.model.topology import bar_twist

    path = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car_arb.xlsx"
    shocks = ["--shocks", "10", "-5", "5", "0"]
    assert main(["loads", str(path), "--mass", "280", "--case", "cornering", *shocks]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "springs and bars" in x)
    model = suspension_sim.load(path)
    pose = model.solve(shocks=[10, -5, 5, 0])
    for bar in model.car.anti_roll_bars:
        twist = float(bar_twist(model, bar, pose.params))
        assert abs(twist) > 1e-3  # a one-sided pose twists the bar
        assert f"{bar.name} twist {np.degrees(twist):+.3f} deg" in line
        assert f"{bar.rate * twist / 1000.0:+.1f} N m" in line


@pytest.mark.parametrize("rocker_first", [False, True])
def test_third_spring_on_a_link_joint_acts_on_the_rigid_body(rocker_first: bool) -> None:
    """A third spring ending where a pushrod meets its rocker pushes on the rocker (the
    pushrod is a two-force member): the pushrod force is the same whichever body is
    listed first, and equals its force without the spring plus nothing sideways."""
    from suspension_sim.description import Body, ThirdSpring
    from suspension_sim.workbook.examples import load_source

    car = load_source("fsae_car")
    bodies = list(car.bodies)
    if rocker_first:
        i = next(k for k, b in enumerate(bodies) if b.name == "FL_Pushrod")
        j = next(k for k, b in enumerate(bodies) if b.name == "FL_Rocker")
        bodies[i], bodies[j] = bodies[j], bodies[i]
    chassis = next(b for b in bodies if b.name == "Chassis")
    bodies[bodies.index(chassis)] = Body(chassis.name, (*chassis.points, "X3_C"))
    spring = ThirdSpring("FL extra", ("FL_PR_I", "X3_C"), spring_rate=40.0, spring_preload=800.0)
    car = dataclasses.replace(
        car,
        points=(*car.points, Point("X3_C", (-5.0, 150.0, 560.0))),
        bodies=tuple(bodies),
        third_springs=(spring,),
    )
    model = Model(car)
    pose = model.solve(shocks={"FL_Damper": 5.0})
    res = solve_loads(pose, LoadCase("c", {"FL": WheelLoad((0.0, 0.0, 1500.0))}))
    t = res.case("c")
    ends = t[(t["body"] == "FL_Pushrod")][["Fx_N", "Fy_N", "Fz_N"]].to_numpy()
    assert len(ends) == 2
    assert np.abs(ends[0] + ends[1]).max() < 1e-9  # equal and opposite: a two-force member
    rod = _pt(pose, "FL_PR_I") - _pt(pose, "FL_PR_O")
    assert np.linalg.norm(np.cross(ends[0], rod)) < 1e-9 * np.linalg.norm(ends[0]) * np.linalg.norm(
        rod
    )
    rows = t[t["point"] == "FL_PR_I"]
    assert set(rows[rows["member"] == "FL extra"]["body"]) == {"FL_Rocker"}
