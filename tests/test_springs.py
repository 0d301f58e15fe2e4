"""Springs on the dampers: workbook columns, wheel rates, static ride height.

Truths used: wheel rates against central differences of the spring-balanced
wheel force over solved poses (wheel-travel targets; motion ratio from the
independent `wheel_tangents`); ride height against the virtual work of the
corner load on solved poses with contact-height targets, the ground contact
from the pose's own points, left/right symmetry and the lever rule.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import suspension_sim
from suspension_sim.description import Car
from suspension_sim.errors import InputError, WorkbookError
from suspension_sim.loads.springs import (
    G,
    Spring,
    car_springs,
    corner_weights_from_cg,
    ride_height,
    wheel_rates,
)
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.model import KinematicModel
from suspension_sim.solve.sensitivity import wheel_tangents
from suspension_sim.solve.solver import solve
from suspension_sim.solve.targets import contact_z, wheel_travel
from suspension_sim.sweeps.motions import wheel_dampers
from suspension_sim.workbook.reader import read_car
from suspension_sim.workbook.writer import write_car

FSAE = "workbooks/fsae_car.xlsx"
SPRINGS = {  # N/mm and N at stroke 0: different per corner so no symmetry hides an error
    "FL_Damper": Spring(35.0, 600.0),
    "FR_Damper": Spring(30.0, 0.0),
    "RL_Damper": Spring(40.0, 350.0),
    "RR_Damper": Spring(45.0, -200.0),
}


@pytest.fixture(scope="module")
def model() -> KinematicModel:
    return suspension_sim.load(FSAE)


# -- workbook ----------------------------------------------------------------------------
SPRING_COLS = {
    "Index!C9": "Geometry!A19:H20",
    "Geometry!F19": "Spring rate",
    "Geometry!G19": "Spring preload",
    "Geometry!H19": "Spring free length",
}


def test_old_workbook_has_no_springs(make_workbook):
    car = read_car(make_workbook())
    d = car.dampers[0]
    assert (d.spring_rate, d.spring_preload, d.spring_free_length) == (None, None, None)


def test_spring_columns_in_lbf_and_inches(make_workbook, point_rows, small_points):
    edits = dict(SPRING_COLS)
    edits.update({"Index!F4": "in", "Index!F6": "lbf", "Geometry!F20": 200, "Geometry!G20": 50})
    for name, (x, y, z) in small_points.items():  # the same geometry in inches
        r = point_rows[name]
        edits.update({f"Hard Points!C{r}": x / 25.4, f"Hard Points!D{r}": y / 25.4})
        edits[f"Hard Points!E{r}"] = z / 25.4
    edits.update({"Geometry!D20": 350 / 25.4, "Geometry!E20": 450 / 25.4})
    edits.update({"Geometry!E12": 230 / 25.4, "Geometry!F12": 180 / 25.4})
    car = read_car(make_workbook(edits))
    d = car.dampers[0]
    lbf = 4.4482216152605
    assert d.spring_rate == pytest.approx(200 * lbf / 25.4, rel=1e-12)  # lbf/in -> N/mm
    assert d.spring_preload == pytest.approx(50 * lbf, rel=1e-12)
    assert d.spring_free_length is None
    again = read_car(write_car(car, make_workbook(edits).with_name("again.xlsx")))
    assert again.dampers[0].spring_rate == pytest.approx(d.spring_rate, rel=1e-14)
    assert again.dampers[0].spring_preload == pytest.approx(d.spring_preload, rel=1e-14)


def test_free_length_gives_the_preload(make_workbook, small_points):
    car = read_car(make_workbook({**SPRING_COLS, "Geometry!F20": 40, "Geometry!H20": 420}))
    design = float(np.linalg.norm(np.subtract(small_points["DM"], small_points["DC"])))
    model = KinematicModel(car)
    spring = car_springs(model)["Damper"]
    assert spring.rate == 40 and spring.preload == pytest.approx(40 * (420 - design))
    # stroke s shortens the damper by s: the force is k (L_free - (L_design - s))
    assert spring.force(3.0) == pytest.approx(40 * (420 - (design - 3.0)))


@pytest.mark.parametrize(
    ("edits", "cell", "words"),
    [
        ({"Geometry!F20": "stiff"}, "Geometry!F20", "must be a number"),
        ({"Geometry!F20": -10}, "Geometry!F20", "must be positive"),
        ({"Geometry!G20": 100}, "Geometry!G20", "needs a spring rate"),
        ({"Geometry!F20": 30, "Geometry!G20": -5}, "Geometry!G20", "0 or more"),
        ({"Geometry!F20": 30, "Geometry!G20": 5, "Geometry!H20": 400}, "Geometry!H20", "not both"),
        ({"Geometry!F20": 30, "Geometry!H20": 0}, "Geometry!H20", "must be positive"),
    ],
)
def test_bad_spring_cells_name_the_cell(make_workbook, edits, cell, words):
    with pytest.raises(WorkbookError) as err:
        read_car(make_workbook({**SPRING_COLS, **edits}))
    assert cell in str(err.value) and words in str(err.value)


def test_writer_round_trips_springs(make_workbook, tmp_path):
    car = read_car(make_workbook({**SPRING_COLS, "Geometry!F20": 31.5, "Geometry!G20": 412.25}))
    again = read_car(write_car(car, tmp_path / "out.xlsx"))
    assert again == car
    assert again.dampers[0].spring_rate == 31.5 and again.dampers[0].spring_preload == 412.25
    free = dataclasses.replace(car.dampers[0], spring_preload=None, spring_free_length=433.0)
    car2 = dataclasses.replace(car, dampers=(free,))
    assert read_car(write_car(car2, tmp_path / "free.xlsx")) == car2


def test_missing_spring_is_an_error(model):
    """A damper without a spring rate (stripped here: the example may give springs)."""
    bare = tuple(
        dataclasses.replace(d, spring_rate=None, spring_preload=None, spring_free_length=None)
        for d in model.car.dampers
    )
    stripped = KinematicModel(dataclasses.replace(model.car, dampers=bare))
    with pytest.raises(InputError, match="no spring rate"):
        wheel_rates(solve(stripped))


# -- wheel rates ---------------------------------------------------------------------------
def _travel(model: KinematicModel, pose, wheel: str) -> float:
    w = next(w for w in model.car.wheels if w.name == wheel)
    i = model.inst_index[(w.centre, w.body)]
    P, _ = model.instance_positions(pose.params[:, None], derivatives=False)
    return float(P[i, 2, 0] - model.car.point(w.centre)[2])


def _spring_wheel_force(model: KinematicModel, pose, wheel: str) -> float:
    """F_spring * ds/dz by virtual work, ds/dz from `wheel_tangents` (independent code)."""
    tan = wheel_tangents(pose)
    k = tan.inputs.index(wheel)
    u = model.input_params()
    total = 0.0
    for j, d in enumerate(model.damper_names):
        total += float(SPRINGS[d].force(pose.shocks[d])) * tan.dq[u[j], k]
    return total


@pytest.mark.parametrize(
    ("shocks", "rack"), [((0.0, 0.0, 0.0, 0.0), 0.0), ((12.0, -6.0, 8.0, 15.0), 4.0)]
)
def test_wheel_rate_is_the_derivative_of_the_spring_balanced_force(model, shocks, rack):
    pose = solve(model, dict(zip(model.damper_names, shocks, strict=True)), rack)
    rates = wheel_rates(pose, SPRINGS)
    h = 0.05
    for wheel, damper in wheel_dampers(model).items():
        z0 = _travel(model, pose, wheel)
        forces = []
        for z in (z0 - h, z0 + h):
            p = solve(
                model,
                pose.shocks,
                rack,
                guess=pose,
                tolerance=1e-11,
                targets={damper: wheel_travel(wheel, z)},
            )
            forces.append(_spring_wheel_force(model, p, wheel))
        fd = (forces[1] - forces[0]) / (2 * h)
        assert rates[wheel] == pytest.approx(fd, rel=1e-6), wheel
        # the F dMR/dz term matters: k MR^2 alone would be off
    mr = wheel_tangents(pose).dq[model.input_params()[0], 0]
    k_mr2 = SPRINGS["FL_Damper"].rate * mr**2
    assert abs(rates["FL"] - k_mr2) > 1e-4 * k_mr2


def test_zero_force_wheel_rate_is_k_mr_squared(model):
    """With no spring force the rate is k MR^2, MR from finite differences of strokes."""
    springs = {d: Spring(25.0, 0.0) for d in model.damper_names}
    pose = solve(model)
    rates = wheel_rates(pose, springs)
    h = 0.05
    for wheel, damper in wheel_dampers(model).items():
        s = [
            solve(model, targets={damper: wheel_travel(wheel, z)}, tolerance=1e-11).shocks[damper]
            for z in (-h, h)
        ]
        mr = (s[1] - s[0]) / (2 * h)
        assert rates[wheel] == pytest.approx(25.0 * mr**2, rel=1e-6)


# -- ride height ---------------------------------------------------------------------------
def _contact_heights(model: KinematicModel, pose) -> np.ndarray:
    """World z of each tyre's lowest point, from the pose's world points (mm)."""
    pts = pose.copies
    out = []
    for w in model.car.wheels:
        c = pts.loc[(w.centre, w.body)].to_numpy(dtype=float)
        a = pts.loc[(w.axis_point, w.body)].to_numpy(dtype=float)
        s = (a - c) / np.linalg.norm(a - c)
        down = np.array([0.0, 0.0, -1.0])
        d = down - (down @ s) * s  # lowest point of the tyre circle
        out.append(c[2] + w.tyre_radius * (d / np.linalg.norm(d))[2])
    return np.array(out)


def _check_balance(model: KinematicModel, rh, springs) -> None:
    """Virtual work at the solution: W_i dz_cp = F_d ds_d, ds/dz_cp from solved poses
    holding the contact point at z +- h (chassis held); spring forces from the rates."""
    pose, h = rh.pose, 0.02
    names = [w.name for w in model.car.wheels]
    heights = _contact_heights(model, pose)  # 0 unless the car warps
    for wheel, damper in wheel_dampers(model).items():
        s = []
        z0 = heights[names.index(wheel)]
        for z in (z0 - h, z0 + h):
            p = solve(
                model,
                pose.shocks,
                0.0,
                pose.chassis,
                guess=pose,
                tolerance=1e-11,
                targets={damper: contact_z(wheel, z)},
            )
            s.append(p.shocks[damper])
        ds_dz = (s[1] - s[0]) / (2 * h)
        spring = springs[damper].force(rh.strokes[damper])
        assert spring == pytest.approx(rh.corner_weights[wheel] / ds_dz, rel=1e-5), wheel


def test_ride_height_from_corner_weights(model):
    weights = {"FL": 650.0, "FR": 650.0, "RL": 720.0, "RR": 720.0}
    springs = {d: Spring(30.0, 400.0) for d in model.damper_names}
    rh = ride_height(model, weights, springs=springs)
    assert np.abs(_contact_heights(model, rh.pose)).max() < 1e-6
    assert rh.warp_mm < 1e-6
    assert abs(rh.roll_deg) < 1e-9  # a symmetric car with symmetric weights
    assert rh.strokes["FL_Damper"] == pytest.approx(rh.strokes["FR_Damper"], abs=1e-9)
    assert rh.strokes["RL_Damper"] == pytest.approx(rh.strokes["RR_Damper"], abs=1e-9)
    assert rh.heave_mm < 0  # the springs compress: the car sits down
    _check_balance(model, rh, springs)


def test_ride_height_from_mass_and_cg(model):
    springs = {d: Spring(32.0, 300.0) for d in model.damper_names}
    cg = (-700.0, 0.0, 280.0)
    rh = ride_height(model, mass_kg=280.0, cg_mm=cg, springs=springs)
    W = np.array([rh.corner_weights[w.name] for w in model.car.wheels])
    assert W.sum() == pytest.approx(280.0 * G, rel=1e-9)
    assert np.abs(_contact_heights(model, rh.pose)).max() < 1e-6
    assert abs(rh.roll_deg) < 1e-9
    # Front-heavy CG (the front axle is at x = 0, the rear at -1530): by the lever rule
    # the front carries (1530 - 700) / 1530 of the weight, near enough at a small pitch.
    lever = corner_weights_from_cg(model, 280.0, cg[:2])
    front = rh.corner_weights["FL"] + rh.corner_weights["FR"]
    assert front == pytest.approx(lever["FL"] + lever["FR"], rel=2e-2)
    assert lever["FL"] + lever["FR"] > lever["RL"] + lever["RR"]
    _check_balance(model, rh, springs)


def test_cross_weight_warps_but_balances_every_spring(model):
    """Diagonal corner weights on equal springs cannot all touch flat ground: the
    springs still balance their corners exactly and the misfit is the warp."""
    weights = {"FL": 760.0, "FR": 640.0, "RL": 640.0, "RR": 760.0}
    springs = {d: Spring(30.0, 400.0) for d in model.damper_names}
    rh = ride_height(model, weights, springs=springs)
    heights = _contact_heights(model, rh.pose)
    assert rh.warp_mm == pytest.approx(np.abs(heights).max(), abs=1e-9)
    assert rh.warp_mm > 0.5
    # the diagonal that carries more sits above the ground plane, the other below
    # (wheels in the order FL, FR, RL, RR); least squares with heave free: sum ~ 0
    sign = np.sign(heights)
    assert sign[0] == sign[3] == -sign[1] == -sign[2]
    assert abs(heights.sum()) < 1e-3 * rh.warp_mm
    _check_balance(model, rh, springs)


def test_off_centre_cg_is_in_moment_balance(model):
    springs = {d: Spring(28.0 + 4 * i, 250.0) for i, d in enumerate(model.damper_names)}
    cg = np.array([-600.0, 40.0, 300.0])
    rh = ride_height(model, mass_kg=250.0, cg_mm=tuple(cg), springs=springs)
    T = rh.pose.chassis_transform
    cg_w = T[:3, :3] @ cg + T[:3, 3]
    pts = rh.pose.copies
    W = np.array([rh.corner_weights[w.name] for w in model.car.wheels])
    cp = np.array(
        [pts.loc[(w.centre, w.body)].to_numpy(dtype=float) for w in model.car.wheels]
    )  # the contact patches are below the centres to within the camber offset
    heights = _contact_heights(model, rh.pose)
    assert np.abs(heights).max() < 1e-6
    assert W.sum() == pytest.approx(250.0 * G, rel=1e-9)
    assert rh.roll_deg < 0  # CG left of centre: the left side sinks (+ roll lifts it)
    assert W[0] > W[1] and W[2] > W[3]  # left wheels carry more
    # moments of the loads about the CG (contact x, y from the wheel centres: camber
    # moves the patch a few mm sideways at most, so 1 % of the total moment)
    arm = W @ (cp[:, :2] - cg_w[:2])
    assert np.abs(arm).max() < 1e-2 * W.sum() * 1e3
    _check_balance(model, rh, springs)


def test_stiff_springs_hand_check(model):
    """Springs so stiff the motion ratio does not change: s = (W / MR_cp - P) / k."""
    k = 1e6
    springs = {d: Spring(k, 0.0) for d in model.damper_names}
    weights = {w.name: 700.0 for w in model.car.wheels}
    rh = ride_height(model, weights, springs=springs)
    st = wheel_set(model)
    assert st.names == tuple(weights)
    pose = solve(model)
    tan = wheel_tangents(pose)
    u = model.input_params()
    for i, (wheel, damper) in enumerate(wheel_dampers(model).items()):
        j = list(model.damper_names).index(damper)
        # per mm of wheel-centre travel; at a camber gain that small the contact patch
        # moves with the centre to well under 1 %: the hand value to 1 %
        mr = tan.dq[u[j], tan.inputs.index(wheel)]
        assert rh.strokes[damper] == pytest.approx(700.0 / mr / k, rel=1e-2), (i, wheel)


def test_bad_inputs(model):
    springs = {d: Spring(30.0) for d in model.damper_names}
    with pytest.raises(InputError, match="every wheel"):
        ride_height(model, {"FL": 700.0}, springs=springs)
    with pytest.raises(InputError, match="0 N or more"):
        ride_height(model, {"FL": 700.0, "FR": -1.0, "RL": 700.0, "RR": 700.0}, springs=springs)
    with pytest.raises(InputError, match="mass"):
        ride_height(model, springs=springs)
    with pytest.raises(InputError, match="not dampers"):
        car_springs(model, {"Nope": Spring(1.0)})


def test_car_springs_reads_the_description(model):
    car: Car = model.car
    d0 = dataclasses.replace(car.dampers[0], spring_rate=20.0, spring_free_length=250.0)
    rest = tuple(
        dataclasses.replace(d, spring_rate=25.0, spring_preload=None, spring_free_length=None)
        for d in car.dampers[1:]
    )
    m2 = KinematicModel(dataclasses.replace(car, dampers=(d0, *rest)))
    sp = car_springs(m2)
    assert sp[d0.body] == Spring(20.0, 20.0 * (250.0 - car.damper_design_length(d0)))
    assert all(sp[d.body] == Spring(25.0, 0.0) for d in rest)


@pytest.mark.parametrize(
    ("name", "weights", "held"),
    [
        ("macpherson_front", {"FL": 600.0}, ("roll", "pitch")),  # one corner
        ("solid_axle_rear", {"RL": 700.0, "RR": 700.0}, ("pitch",)),  # one axle
    ],
)
def test_ride_height_holds_what_the_tyres_do_not_fix(name, weights, held):
    """One corner fixes neither roll nor pitch, one axle not pitch: they stay 0 (not a
    minimum-norm guess), and the contact patches still sit on the ground."""
    from pathlib import Path

    model = suspension_sim.load(Path(__file__).resolve().parents[1] / "workbooks" / f"{name}.xlsx")
    springs = {d: Spring(30.0, 100.0) for d in model.damper_names}
    rh = ride_height(model, weights, springs=springs)
    for angle in held:
        assert getattr(rh, f"{angle}_deg") == 0.0
    assert np.abs(_contact_heights(model, rh.pose)).max() < 1e-6
    assert rh.heave_mm < -5.0  # the corner sits down on its spring
    with pytest.raises(InputError, match="above 0 N/mm"):
        ride_height(model, weights, springs={d: Spring(0.0) for d in model.damper_names})
