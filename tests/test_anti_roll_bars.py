"""Anti-roll bars in the model: the T-bar lever joint, U-bar arms, twist parameters.

Each mechanism is driven by dampers whose rod ends are the arm or lever ends, so
the strokes for a chosen bar motion follow from plain geometry (the damper length
between a fixed eye and a point rotated about a known axis); the solved twist must
give back that motion.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from suspension_sim import units
from suspension_sim.api import Model
from suspension_sim.description import (
    AntiRollBar,
    Body,
    Car,
    Damper,
    Options,
    Point,
    ThirdSpring,
)
from suspension_sim.errors import ModelError
from suspension_sim.model import KinematicModel
from suspension_sim.model.topology import bar_twist, bar_twist_params
from suspension_sim.solve.diagnostics import design_mobility
from suspension_sim.solve.problem import problem
from suspension_sim.workbook.examples import load_source

H, W, A, L0 = 300.0, 230.0, 66.0, 150.0  # pivot height, half width, lever arm, damper length
RATE = 20000.0 / units.angle_factor("deg")  # 20 N m/deg in N mm/rad, as a workbook reads it


def tbar_car(shaft: tuple[float, float, float] = (-A, 0.0, H)) -> Car:
    """A T-bar lever pivoting at P about +Y, shaft axis rearward (-X), cross bar ends
    at (-A, +-W, H) carried by vertical dampers of length L0 from the chassis."""
    pts = {
        "P": (0.0, 0.0, H),
        "A2": (0.0, 100.0, H),
        "S": shaft,
        "EL": (-A, W, H),
        "ER": (-A, -W, H),
        "CL": (-A, W, H - L0),
        "CR": (-A, -W, H - L0),
        "K": (-A, 0.0, H + 150.0),
    }
    return Car(
        name="tbar",
        options=Options(),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=(
            Body("Chassis", ("P", "A2", "CL", "CR", "K")),
            Body("Lever", ("P", "S", "EL", "ER")),
            Body("DL", ("CL", "EL")),
            Body("DR", ("CR", "ER")),
        ),
        dampers=(Damper("DL", "CL", "EL"), Damper("DR", "CR", "ER")),
        third_springs=(ThirdSpring("Heave", ("S", "K"), spring_rate=30.0),),
        anti_roll_bars=(AntiRollBar("T", "T-bar", ("Lever",), ("P", "A2"), RATE, "S"),),
    )


def ubar_car() -> Car:
    """Two arms on one bar axis (both share the chassis points AP1, AP2), tips 80 mm
    forward at y = +-100, each carried by a vertical damper of length L0."""
    pts = {
        "AP1": (0.0, 100.0, H),
        "AP2": (0.0, -100.0, H),
        "TL": (80.0, 100.0, H),
        "TR": (80.0, -100.0, H),
        "CL": (80.0, 100.0, H - L0),
        "CR": (80.0, -100.0, H - L0),
    }
    return Car(
        name="ubar",
        options=Options(),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=(
            Body("Chassis", ("AP1", "AP2", "CL", "CR")),
            Body("ArmL", ("AP1", "AP2", "TL")),
            Body("ArmR", ("AP1", "AP2", "TR")),
            Body("DL", ("CL", "TL")),
            Body("DR", ("CR", "TR")),
        ),
        dampers=(Damper("DL", "CL", "TL"), Damper("DR", "CR", "TR")),
        anti_roll_bars=(AntiRollBar("U", "U-bar", ("ArmL", "ArmR"), ("AP1", "AP2"), RATE),),
    )


def stroke(dx: float, dz: float) -> float:
    """Stroke (mm, + shorter) of a damper of design length L0 whose rod end moved by
    (dx, dz) from straight above its eye."""
    return L0 - math.hypot(dx, L0 + dz)


def solve_both(model: Model, strokes: list[float]) -> np.ndarray:
    """Parameters from the numpy batch engine and from `model.solve`, checked equal."""
    batch = model.solve_batch(shocks=np.array([strokes]), method="numpy")
    assert batch.converged[0] and batch.max_residual_mm[0] < 1e-10
    pose = model.solve(shocks=strokes)
    assert pose.converged and pose.info.max_residual_mm < 1e-10
    np.testing.assert_allclose(pose.params, batch.params[0], atol=1e-9)
    return batch.params[0]


# -- T-bar ------------------------------------------------------------------------------
def test_t_bar_lever_is_a_universal_joint_with_named_params() -> None:
    model = KinematicModel(tbar_car())
    joint = model.topology.joint("Lever")
    assert joint.kind == "tbar"
    names = [model.topology.param_names[i] for i in joint.params]
    assert names == ["Lever.pivot_angle", "Lever.twist"]
    assert bar_twist_params(model, "T") == ((joint.params[1],), (1.0,))


def test_t_bar_twists_by_the_hand_computed_angle_in_roll() -> None:
    model = Model(tbar_car())
    phi = math.radians(3.0)  # twist about P -> S (-X): the left end goes down
    dz = W * math.sin(phi)
    dy = W * (1.0 - math.cos(phi))
    strokes = [stroke(dy, -dz), stroke(dy, dz)]
    q = solve_both(model, strokes)
    pivot, twist = (q[i] for i in model.topology.joint("Lever").params)
    assert float(bar_twist(model, "T", q)) == pytest.approx(phi, abs=1e-10)
    assert twist == pytest.approx(phi, abs=1e-10)
    assert pivot == pytest.approx(0.0, abs=1e-10)


def test_t_bar_turns_about_its_pivot_in_heave_without_twist() -> None:
    model = Model(tbar_car())
    theta = math.radians(-4.0)  # about +Y: the cross bar (behind the pivot) goes down
    s = stroke(A - A * math.cos(theta), A * math.sin(theta))
    q = solve_both(model, [s, s])
    pivot, twist = (q[i] for i in model.topology.joint("Lever").params)
    assert pivot == pytest.approx(theta, abs=1e-10)
    assert twist == pytest.approx(0.0, abs=1e-12)


def test_t_bar_adds_no_freedom_and_couples_its_two_sides() -> None:
    model = Model(tbar_car())
    mob = design_mobility(model)
    assert mob.ok and mob.free_after_inputs == 0 and mob.redundant == 0
    # lever 2 + two dampers 2 x 3 = 8 freedoms, 2 joints closing loops: 8 - 6 = 2 inputs
    assert mob.gruebler - mob.passive_spins == mob.inputs == 2
    assert len(problem(model, model.input_params()).blocks) == 1


def test_t_bar_with_non_perpendicular_axes_is_refused() -> None:
    with pytest.raises(ModelError, match=r"not 90 deg"):
        KinematicModel(tbar_car(shaft=(-A, 5.0, H)))  # 4.3 deg off square


def test_t_bar_pivot_must_be_the_levers_only_chassis_point() -> None:
    car = tbar_car()
    bodies = tuple(Body("Lever", (*b.points, "A2")) if b.name == "Lever" else b for b in car.bodies)
    with pytest.raises(ModelError, match=r"only chassis point must be the pivot"):
        KinematicModel(dataclasses.replace(car, bodies=bodies))


# -- U-bar ------------------------------------------------------------------------------
def arm_strokes(beta: float) -> float:
    """Stroke of a damper under an arm turned by beta about the bar axis AP1 -> AP2
    (-Y): the tip (80, y, H) goes to (80 cos b, y, H + 80 sin b)."""
    return stroke(80.0 - 80.0 * math.cos(beta), 80.0 * math.sin(beta))


def test_u_bar_twist_is_the_difference_of_the_arm_angles() -> None:
    model = Model(ubar_car())
    left, right = math.radians(4.0), math.radians(-2.0)
    q = solve_both(model, [arm_strokes(left), arm_strokes(right)])
    assert float(bar_twist(model, "U", q)) == pytest.approx(left - right, abs=1e-10)
    idx, signs = bar_twist_params(model, "U")
    assert idx == (model.topology.joint("ArmL").params[0], model.topology.joint("ArmR").params[0])
    assert sum(s * q[i] for i, s in zip(idx, signs, strict=True)) == pytest.approx(
        left - right, abs=1e-10
    )


def test_u_bar_arm_follows_its_own_side_only() -> None:
    model = Model(ubar_car())
    q = solve_both(model, [arm_strokes(math.radians(5.0)), 0.0])
    assert q[model.topology.joint("ArmR").params[0]] == 0.0
    assert float(bar_twist(model, "U", q)) == pytest.approx(math.radians(5.0), abs=1e-10)
    # arms sharing the two chassis axis points stay in separate solver blocks
    blocks = problem(model, model.input_params()).blocks
    assert len(blocks) == 2


def test_u_bar_arm_off_the_bar_axis_is_refused() -> None:
    car = ubar_car()
    # ArmL now turns about AP1 -> X1 (along X), not about the bar axis AP1 -> AP2 (-Y)
    bodies = {b.name: b for b in car.bodies}
    bodies["Chassis"] = Body("Chassis", (*bodies["Chassis"].points, "X1"))
    bodies["ArmL"] = Body("ArmL", ("AP1", "X1", "TL"))
    broken = dataclasses.replace(
        car,
        points=(*car.points, Point("X1", (50.0, 100.0, H))),
        bodies=tuple(bodies.values()),
    )
    with pytest.raises(ModelError, match=r"arm 'ArmL' turns about X \(AP1 -> X1\), not about"):
        KinematicModel(broken)


# -- the example car ----------------------------------------------------------------------
def test_fsae_car_arb_bars_add_no_freedom_and_twist_only_in_roll() -> None:
    model = Model(load_source("fsae_car_arb"))
    mob = design_mobility(model)
    assert mob.ok and mob.free_after_inputs == 0
    assert mob.gruebler - mob.passive_spins == mob.inputs == 5
    base = KinematicModel(load_source("fsae_car"))
    # each U-bar arm + drop link and the T-bar lever + 2 drop links: 2 x 6 + 12 parameters
    assert model.n_params == base.n_params + 24
    strokes = np.array([[10.0, 10.0, 10.0, 10.0], [8.0, -8.0, 8.0, -8.0]])
    batch = model.solve_batch(shocks=strokes, method="numpy")
    assert batch.converged.all() and batch.max_residual_mm.max() < 1e-10
    for bar in model.car.anti_roll_bars:
        twist = bar_twist(model, bar, batch.params.T)
        assert abs(twist[0]) < 1e-12  # heave: symmetric, no twist
        assert abs(twist[1]) > math.radians(0.5)  # roll twists the bar
