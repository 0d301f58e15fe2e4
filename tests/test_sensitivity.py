"""Hardpoint sensitivities (`suspension_sim.explore.sensitivity`, `suspension-sim sensitivity`).

Truths: central finite differences of models rebuilt through the public API with one
hardpoint moved and solved again (`Model`, `model.solve`, `pose_metrics`), the metric
values `pose_metrics` reports, and closed forms: a coordinate a metric cannot depend on
gives exactly 0, moving the whole car rigidly changes no angle, a prescribed wheel travel
does not depend on any hardpoint, and a mirror pair's column is the sum of its points'
columns with y mirrored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import suspension_sim
from suspension_sim import cli, load
from suspension_sim.api import Model
from suspension_sim.description import Car
from suspension_sim.errors import InputError, ModelError
from suspension_sim.explore import (
    SensitivityResult,
    hardpoint_names,
    mirror_pairs,
    pose_derivatives,
)
from suspension_sim.explore.dual import Dual, lstsq
from suspension_sim.explore.sensitivity import sensitivity
from suspension_sim.metrics import pose_metrics
from suspension_sim.solve.pose import Pose
from suspension_sim.sweeps import motions

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ("fsae_car", "fsae_car_arb", "five_link_rear", "macpherson_front", "solid_axle_rear")
H = 1e-2
"""Finite-difference step, mm (large enough that the solves' round-off, ~1e-10, stays far
below the tolerance; the truncation error is still ~1e-10)."""


@cache
def example(name: str) -> Model:
    return load(ROOT / "workbooks" / f"{name}.xlsx")


@cache
def design_result(name: str) -> SensitivityResult:
    return sensitivity(example(name))


def moved(car: Car, moves: dict[str, np.ndarray]) -> Model:
    """The car with the named hardpoints moved (mm), as a new public-API model."""
    points = tuple(
        dataclasses.replace(p, xyz=tuple(np.array(p.xyz, dtype=float) + moves[p.name]))
        if p.name in moves
        else p
        for p in car.points
    )
    return Model(dataclasses.replace(car, points=points))


def central(
    model: Model,
    point: str,
    axis: int,
    measure: Callable[[Model], dict[str, float]],
    richardson: bool = False,
) -> dict[str, float]:
    """Central finite difference of every measured metric for one coordinate (per mm);
    `richardson`: extrapolated from steps H and H/2 (error O(H^4): a roll centre over a
    motion is curved enough that a plain central difference is off by ~1e-5 at H)."""

    def diff(h: float) -> dict[str, float]:
        step = np.eye(3)[axis] * h
        plus = measure(moved(model.car, {point: step}))
        minus = measure(moved(model.car, {point: -step}))
        return {k: (plus[k] - minus[k]) / (2 * h) for k in plus}

    coarse = diff(H)
    if not richardson:
        return coarse
    fine = diff(H / 2)
    return {k: (4.0 * fine[k] - coarse[k]) / 3.0 for k in fine}


def at_design(model: Model) -> dict[str, float]:
    return pose_metrics(model.solve())


def over_heave(model: Model) -> dict[str, float]:
    """Change of every metric over heave -30 -> +30 mm, each end walked from design."""
    ends = []
    for sign in (-1.0, 1.0):
        pose = None
        for z in (0.0, 15.0 * sign, 30.0 * sign):  # the sensitivity's own path
            pose = model.solve(
                chassis=(0, 0, z, 0, 0, 0), targets=motions.ground_targets(model), guess=pose
            )
        assert pose is not None
        ends.append(pose_metrics(pose))
    low, high = ends
    return {k: high[k] - low[k] for k in low}


CHECKED = (
    "camber",
    "toe",
    "caster",
    "kpi",
    "scrub_radius",
    "roll_centre_height",
    "motion_ratio",
    "anti_",
    "roll_centre_line_angle",
)
"""Metric stems compared with finite differences."""


def _compare(result: SensitivityResult, fd: dict[str, float], point: str, axis: str) -> list[str]:
    bad = []
    for column in result.metrics:
        if not column.startswith(CHECKED):
            continue
        a = result.derivative(column, point, axis)
        f = fd[column]
        if np.isnan(a) and np.isnan(f):
            continue
        if not abs(a - f) <= 1e-6 * abs(f) + 5e-8:
            bad.append(f"{column} / {point}.{axis}: analytic {a:.10g}, finite difference {f:.10g}")
    return bad


@pytest.mark.parametrize("name", EXAMPLES)
def test_design_derivatives_match_finite_differences(name: str) -> None:
    model = example(name)
    result = design_result(name)
    rng = np.random.default_rng(7)
    names = list(model.car.point_map())
    if name == "fsae_car_arb":
        # the example car plus its bars: its T-bar lever's shaft point (the lever's own
        # frame recipe); each of its rebuilt cars costs ~0.4 s to check, so no more
        picked = ["RC_TBAR_S"]
    else:
        picked = list(rng.choice(names, 2, replace=False))
        wheel = model.car.wheels[0]  # and always an upright point
        picked.append(wheel.kingpin_lower or wheel.axis_point)
    bad: list[str] = []
    checked = 0
    for point in dict.fromkeys(picked):
        for a, axis in enumerate("xyz"):
            try:
                fd = central(model, point, a, at_design)
            except ModelError:
                # An over-constrained linkage (the solid axle's links) moves only thanks to
                # an exact alignment: moving one of its points alone locks it (the result
                # says so), so there is no neighbouring car to difference with.
                assert result.redundant > 0
                continue
            bad += _compare(result, fd, point, axis)
            checked += 1
    assert checked >= 3
    assert not bad, "\n".join(bad[:10])


def test_heave_change_derivatives_match_finite_differences() -> None:
    model = example("fsae_car")
    result = sensitivity(model, motions.heave(model, [-30.0, -15.0, 0.0, 15.0, 30.0]))
    assert result.what.startswith("change over heave")
    bad: list[str] = []
    for point in ("FL_TIE_I", "FL_PR_I"):
        for a, axis in enumerate("xyz"):
            bad += _compare(result, central(model, point, a, over_heave, True), point, axis)
    assert not bad, "\n".join(bad[:10])


def test_kingpin_from_the_steering_screw_axis() -> None:
    """Without kingpin points the kingpin is the upright's screw axis under the rack with
    the strokes held (docs/metrics.md), a rate: its derivatives come through the tangents.
    On a double wishbone it is the ball-joint line, so caster's derivative is the
    closed form of `test_caster_and_toe_derivatives_in_closed_form` again."""
    base = example("fsae_car")
    wheels = tuple(
        dataclasses.replace(w, kingpin_lower=None, kingpin_upper=None) if w.name == "FL" else w
        for w in base.car.wheels
    )
    model = Model(dataclasses.replace(base.car, wheels=wheels))
    result = sensitivity(model)
    ref = pose_metrics(model.solve())
    for column in ("caster_FL_deg", "kpi_FL_deg", "scrub_radius_FL_mm", "mechanical_trail_FL_mm"):
        assert result.values[result.metrics.index(column)] == pytest.approx(ref[column], rel=1e-9)
    fd = central(model, "FL_UBJ", 0, at_design)
    assert not _compare(result, fd, "FL_UBJ", "x")
    pts = model.car.point_map()
    k = pts["FL_UBJ"] - pts["FL_LBJ"]
    d_caster = -np.degrees(k[2] / (k[0] ** 2 + k[2] ** 2))
    assert result.derivative("caster_FL_deg", "FL_UBJ", "x") == pytest.approx(d_caster, rel=1e-9)


def test_roll_about_a_reference_point_that_moves() -> None:
    """Roll turns the chassis about its reference point, a hardpoint here: moving that
    point moves the roll axis, and the derivatives follow it."""
    base = example("fsae_car")
    options = dataclasses.replace(base.car.options, chassis_reference_point="FL_LCA_F")
    model = Model(dataclasses.replace(base.car, options=options))

    def roll(m: Model) -> motions.Motion:
        return motions.roll(m, [-2.0, -1.0, 0.0, 1.0, 2.0])

    def change(m: Model) -> dict[str, float]:
        ends = []
        for sign in (-1.0, 1.0):
            pose = None
            for step in (roll(m)[2], roll(m)[int(2 + sign)], roll(m)[int(2 + 2 * sign)]):
                s = step.state
                pose = m.solve(chassis=s.chassis, targets=dict(s.targets), guess=pose)
            assert pose is not None
            ends.append(pose_metrics(pose))
        return {k: ends[1][k] - ends[0][k] for k in ends[0]}

    result = sensitivity(model, roll(model))
    bad: list[str] = []
    for a, axis in enumerate("xyz"):
        bad += _compare(result, central(model, "FL_LCA_F", a, change, True), "FL_LCA_F", axis)
    assert not bad, "\n".join(bad[:10])
    assert abs(result.derivative("roll_centre_height_front_mm", "FL_LCA_F", "z")) > 0.1


@pytest.mark.parametrize(
    ("name", "kind", "points"),
    [
        ("macpherson_front", "heave", ("FL_STRUT_T", "FL_TIE_I")),
        ("five_link_rear", "bump", ("RL_UF_O", "RL_TIE_I")),
    ],
)
def test_motion_changes_on_other_layouts(name: str, kind: str, points: tuple[str, ...]) -> None:
    """A strut (its top mount a spherical joint on the chassis) in heave and a five-link
    rear in single-wheel bump (a wheel-travel target, measured from the design wheel
    centre, which moves with the hardpoints)."""
    model = example(name)

    def motion(m: Model) -> motions.Motion:
        values = [-20.0, -10.0, 0.0, 10.0, 20.0]
        if kind == "bump":
            return motions.bump(m, m.car.wheels[0].name, values)
        return motions.heave(m, values)

    def change(m: Model) -> dict[str, float]:
        ends = []
        for index in ((2, 1, 0), (2, 3, 4)):  # walked from design to each end
            pose = None
            for i in index:
                s = motion(m)[i].state
                pose = m.solve(
                    shocks=dict(s.shocks), chassis=s.chassis, targets=dict(s.targets), guess=pose
                )
            assert pose is not None
            ends.append(pose_metrics(pose))
        return {k: ends[1][k] - ends[0][k] for k in ends[0]}

    result = sensitivity(model, motion(model))
    bad: list[str] = []
    for point in points:
        for a, axis in enumerate("xyz"):
            bad += _compare(result, central(model, point, a, change, True), point, axis)
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("name", EXAMPLES)
def test_values_are_pose_metrics(name: str) -> None:
    model = example(name)
    result = design_result(name)
    ref = pose_metrics(model.solve())
    assert len(result.metrics) > 10
    for column, value in zip(result.metrics, result.values, strict=True):
        # the same formulas on the same pose, summed in another order: round-off only (the
        # lateral roll centre, 0 by symmetry, is ill-conditioned: ~1e-9 mm)
        assert value == pytest.approx(ref[column], rel=1e-9, abs=1e-7, nan_ok=True), column


def test_heave_values_are_changes_of_pose_metrics() -> None:
    model = example("fsae_car")
    result = sensitivity(model, motions.heave(model, [-30.0, -15.0, 0.0, 15.0, 30.0]))
    ref = over_heave(model)
    for column, value in zip(result.metrics, result.values, strict=True):
        # lateral roll centres are 0 by symmetry and ill-conditioned: round-off of ~1e-8 mm
        assert value == pytest.approx(ref[column], rel=1e-9, abs=1e-7, nan_ok=True), column


def test_a_coordinate_a_metric_cannot_see_gives_exactly_zero() -> None:
    result = design_result("fsae_car")
    # At design camber and toe are those of the spin axis: only FL_WC and FL_WA count.
    for column in ("camber_FL_deg", "toe_FL_deg"):
        col = result.column(column)
        own = {i for i, (p, _) in enumerate(result.coordinates) if p in ("FL_WC", "FL_WA")}
        assert all(col[i] == 0.0 for i in range(len(col)) if i not in own), column
        assert any(col[i] != 0.0 for i in own)
    # A rear point moves no front metric, rates included.
    for column in ("camber_gain_FL_deg_per_mm", "motion_ratio_FL", "bump_steer_FL_deg_per_mm"):
        for axis in "xyz":
            assert result.derivative(column, "RL_UBJ", axis) == 0.0
    # The wheel centre height follows its own point one for one.
    assert result.derivative("wheel_centre_FL_z_mm", "FL_WC", "z") == 1.0


def test_caster_and_toe_derivatives_in_closed_form() -> None:
    """caster = atan2(-k.x, k.z) of k = UBJ - LBJ: d/d UBJ.x = -k.z / (k.x^2 + k.z^2) rad;
    toe = atan2(s.x, |s.y|) of the unit spin axis s (outboard, WC and WA L apart):
    d/d WA.x = -|s.y| / (L (s.x^2 + s.y^2)) rad (the terms of the normalisation cancel)."""
    model = example("fsae_car")
    result = design_result("fsae_car")
    pts = model.car.point_map()
    k = pts["FL_UBJ"] - pts["FL_LBJ"]
    d_caster = -np.degrees(k[2] / (k[0] ** 2 + k[2] ** 2))
    assert result.derivative("caster_FL_deg", "FL_UBJ", "x") == pytest.approx(d_caster, rel=1e-12)
    assert result.derivative("caster_FL_deg", "FL_LBJ", "x") == pytest.approx(-d_caster, rel=1e-12)
    axis = pts["FL_WA"] - pts["FL_WC"]
    length = float(np.linalg.norm(axis))
    s = -axis / length  # FL's axis point is inboard: s points outboard
    d_toe = np.degrees(-abs(s[1]) / length / (s[0] ** 2 + s[1] ** 2))
    assert result.derivative("toe_FL_deg", "FL_WA", "x") == pytest.approx(d_toe, rel=1e-9)


def _rigid_sum(result: SensitivityResult, axis: str, points: set[str] | None = None) -> np.ndarray:
    """Derivative of every metric for all (or these) points moved together along an axis."""
    cols = [
        i
        for i, (p, a) in enumerate(result.coordinates)
        if a == axis and (points is None or p in points)
    ]
    return np.asarray(result.matrix[:, cols].sum(axis=1))


def test_moving_the_whole_car_changes_no_angle() -> None:
    result = design_result("fsae_car")
    angles = [i for i, m in enumerate(result.metrics) if m.endswith(("_deg", "_deg_per_mm"))]
    angles += [i for i, m in enumerate(result.metrics) if m.startswith("motion_ratio")]
    roll = [i for i in angles if result.metrics[i].startswith("roll_camber")]
    for axis in "xyz":
        total = _rigid_sum(result, axis)
        # Roll turns the chassis about its reference point (here the origin, which stays
        # put): moved sideways, the car rolls about another axis, so roll camber changes.
        keep = [i for i in angles if axis != "y" or i not in roll]
        np.testing.assert_allclose(total[keep], 0.0, atol=1e-9)
        if axis == "y":
            assert np.all(np.abs(total[roll]) > 1e-5)
    up = _rigid_sum(result, "z")
    side = _rigid_sum(result, "y")
    for name in ("FL", "FR", "RL", "RR"):
        i = result.metrics.index(f"wheel_centre_{name}_z_mm")
        assert up[i] == pytest.approx(1.0, abs=1e-12)
        assert side[result.metrics.index(f"camber_{name}_deg")] == pytest.approx(0.0, abs=1e-12)
    rc = result.metrics.index("roll_centre_height_front_mm")
    assert up[rc] == pytest.approx(1.0, abs=1e-9)  # the roll centre rises with the car


def test_moving_a_corner_up_moves_its_wheel_centre_one_for_one() -> None:
    model = example("fsae_car")
    result = design_result("fsae_car")
    fl = {p for p in model.car.point_map() if p.startswith("FL_")}
    up = _rigid_sum(result, "z", fl)
    assert up[result.metrics.index("wheel_centre_FL_z_mm")] == pytest.approx(1.0, abs=1e-12)
    assert up[result.metrics.index("wheel_centre_FR_z_mm")] == 0.0


def test_a_prescribed_wheel_travel_depends_on_no_hardpoint() -> None:
    model = example("fsae_car")
    result = sensitivity(model, motions.bump(model, "FL", [-20.0, 0.0, 20.0]))
    i = result.metrics.index("wheel_travel_FL_mm")
    assert result.values[i] == pytest.approx(40.0, abs=1e-9)
    np.testing.assert_allclose(result.matrix[i], 0.0, atol=1e-10)
    # The whole car moved sideways changes no camber change over the bump either.
    side = _rigid_sum(result, "y")
    assert side[result.metrics.index("camber_FL_deg")] == pytest.approx(0.0, abs=1e-10)


def test_symmetric_columns_are_mirror_sums() -> None:
    model = example("fsae_car")
    full = design_result("fsae_car")
    sym = sensitivity(model, symmetric=True)
    pairs = mirror_pairs(model)
    assert pairs["FL_UBJ"] == "FR_UBJ" and pairs["RL_WC"] == "RR_WC"
    assert sym.pairs == pairs
    assert len(sym.coordinates) == 3 * (len(model.car.points) - len(pairs))
    for metric in ("toe_FL_deg", "roll_centre_height_front_mm", "camber_gain_FR_deg_per_mm"):
        for point in ("FL_UBJ", "FL_TIE_I", "RL_LCA_F"):
            for axis, sign in (("x", 1.0), ("y", -1.0), ("z", 1.0)):
                left = full.derivative(metric, point, axis)
                right = full.derivative(metric, pairs[point], axis)
                assert sym.derivative(metric, point, axis) == pytest.approx(
                    left + sign * right, rel=1e-12, abs=1e-15
                )
    # A mirror-symmetric move keeps the car symmetric: the roll centre stays on the centreline.
    i = sym.metrics.index("roll_centre_lateral_front_mm")
    np.testing.assert_allclose(sym.matrix[i], 0.0, atol=1e-8)


def test_table_and_metric_selection() -> None:
    model = example("fsae_car")
    result = sensitivity(model, metrics=["toe_FL_deg", "camber_FL_deg"])
    assert result.metrics == ("toe_FL_deg", "camber_FL_deg")
    table = result.table()
    assert len(table) == 2 * len(result.coordinates)
    row = table[(table.metric == "toe_FL_deg") & (table.point == "FL_WA") & (table.axis == "x")]
    assert row.unit.item() == "deg/mm"
    assert row.derivative.item() == result.derivative("toe_FL_deg", "FL_WA", "x")
    assert suspension_sim.sensitivity is sensitivity  # the package's entry point
    with pytest.raises(InputError) as err:
        sensitivity(model, metrics=["toe_XX_deg"])
    assert err.value.where == "metrics"


def test_pose_derivatives_along_chosen_moves() -> None:
    """A few directions at one solved step of a motion: the same numbers as the full
    result, combined (the optimiser's entry point)."""
    model = example("fsae_car")
    heave = motions.heave(model, [0.0, 15.0, 30.0])
    full = sensitivity(model, motions.heave(model, [0.0, 30.0]))
    names = hardpoint_names(model)
    assert names == tuple(p for p, _ in full.coordinates[::3])
    moves = np.zeros((2, len(names), 3))
    moves[0, names.index("FL_TIE_I"), 2] = 1.0
    moves[1, names.index("FL_UBJ"), 0] = 0.5
    moves[1, names.index("FL_LBJ"), 1] = -2.0
    pose = None
    for step in heave:  # walked from design like the sensitivity's own path
        s = step.state
        pose = model.solve(chassis=s.chassis, targets=dict(s.targets), guess=pose)
    assert pose is not None
    end = pose_derivatives(model, pose.params, pose.chassis, heave[2].state, moves)
    start = pose_derivatives(model, np.zeros(model.n_params), (0,) * 6, heave[0].state, moves)
    for column in ("toe_FL_deg", "roll_centre_height_front_mm", "motion_ratio_FL"):
        change = end[column][1] - start[column][1]
        expect = [
            full.derivative(column, "FL_TIE_I", "z"),
            0.5 * full.derivative(column, "FL_UBJ", "x")
            - 2.0 * full.derivative(column, "FL_LBJ", "y"),
        ]
        np.testing.assert_allclose(change, expect, rtol=1e-9, atol=1e-12)
        assert end[column][0] - start[column][0] == pytest.approx(
            full.values[full.metrics.index(column)], abs=1e-9
        )
    with pytest.raises(InputError) as err:
        pose_derivatives(model, pose.params, pose.chassis, heave[2].state, moves[:, :3])
    assert err.value.where == "directions"


def test_ackermann_at_a_steered_pose() -> None:
    """Ackermann (spelt out on Duals, its library formula takes plain arrays): the value
    of `pose_metrics` at 20 mm of rack on the ground, the derivatives those of re-solved
    cars."""
    model = example("fsae_car")
    steer = motions.steer(model, [0.0, 10.0, 20.0])

    def steered(m: Model) -> Pose:
        pose = None
        for step in steer:
            s = step.state
            pose = m.solve(rack=s.rack, targets=dict(s.targets), guess=pose)
        assert pose is not None
        return pose

    pose = steered(model)
    names = hardpoint_names(model)
    moves = np.zeros((3, len(names), 3))
    moves[0, names.index("FL_TIE_O"), 0] = 1.0
    moves[1, names.index("RACK_L" if "RACK_L" in names else "FL_TIE_I"), 1] = 1.0
    moves[2, names.index("RL_WC"), 0] = 1.0  # the wheelbase
    value, grad = pose_derivatives(model, pose.params, pose.chassis, steer[2].state, moves)[
        "ackermann_front_pct"
    ]
    assert value == pytest.approx(pose_metrics(pose)["ackermann_front_pct"], rel=1e-12)
    for k in range(3):
        point = names[int(np.flatnonzero(moves[k].any(axis=1))[0])]
        axis = int(np.flatnonzero(moves[k].any(axis=0))[0])
        fd = central(model, point, axis, lambda m: pose_metrics(steered(m)))
        assert grad[k] == pytest.approx(fd["ackermann_front_pct"], rel=1e-6, abs=5e-8)


def test_dual_indexing_follows_numpy_for_every_direction() -> None:
    """Advanced indices apart (``a[:, i, :, i]``) move their axis to the front in numpy;
    each direction's derivative must be indexed exactly like the value."""
    rng = np.random.default_rng(5)
    val, der = rng.normal(size=(2, 3, 4, 3)), rng.normal(size=(6, 2, 3, 4, 3))
    x = Dual(val, der)
    own = np.arange(3)
    for key in ((slice(None), own, slice(None), own), (Ellipsis, 0), (slice(None), None, 1)):
        y = x[key]
        assert y.val.shape == val[key].shape
        for j in range(6):
            np.testing.assert_array_equal(y.der[j], der[j][key])


def test_dual_least_squares_matches_its_closed_form() -> None:
    rng = np.random.default_rng(3)
    A0, dA = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    b0, db = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    x = lstsq(Dual(A0, dA[None]), Dual(b0, db[None]))
    assert isinstance(x, Dual)

    def solve(t: float) -> np.ndarray:
        A, b = A0 + t * dA, b0 + t * db
        return np.asarray(np.linalg.solve(A.T @ A, A.T @ b))

    np.testing.assert_allclose(x.val, solve(0.0), rtol=1e-12)
    np.testing.assert_allclose(x.der[0], (solve(1e-6) - solve(-1e-6)) / 2e-6, rtol=1e-6)


# -- the command ---------------------------------------------------------------------------
def _main(args: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    from suspension_sim.commands.sensitivity import HELP

    monkeypatch.setitem(cli.COMMANDS, "sensitivity", HELP)  # until cli.py lists it
    return cli.main(["sensitivity", *args])


WORKBOOK = str(ROOT / "workbooks" / "fsae_car.xlsx")


@pytest.mark.parametrize(
    "extra",
    [
        ["--top", "0"],
        ["--format", "xls"],
        ["--from", "-10"],
        ["--motion", "heave", "--steps", "1"],
        ["--motion", "wobble"],
        ["--motion", "bump:XX"],
        ["--metrics", "toe_XX_deg"],
        ["--charts", "nonsense"],
    ],
)
def test_bad_options_exit_2(
    extra: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = _main(
        [WORKBOOK, "--out", str(tmp_path / "out"), "--charts", "none", *extra], monkeypatch
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "error:" in err


def test_command_writes_table_and_charts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    out = tmp_path / "sens"
    args = [WORKBOOK, "--out", str(out), "--format", "csv", "--charts", "toe", "--symmetric"]
    assert _main(args, monkeypatch) == 0
    text = capsys.readouterr().out
    assert "mirror pairs moved together" in text
    table = pd.read_csv(out / "sensitivity.csv")
    assert {"metric", "unit", "point", "partner", "axis", "derivative"} <= set(table.columns)
    row = table[(table.metric == "toe_FL_deg") & (table.point == "FL_WA") & (table.axis == "x")]
    assert row.partner.item() == "FR_WA"
    assert (out / "charts" / "tornado_toe.png").stat().st_size > 1000
    assert _main(args, monkeypatch) == 2  # exists: only with --force
    assert "exists" in capsys.readouterr().err
    assert _main([*args, "--force"], monkeypatch) == 0
