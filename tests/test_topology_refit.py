"""`model.refit.refit` (a moved body's joint re-framed, its class known) against
`topology.classify` (the reference), and `screws.frames_from_axes` against
`screws.frame_from_axis`: the same frames to 1e-12 on random moves of every example
car's points, and None (so `classify` answers) whenever a move changes a class, comes
within the margin of one of `classify`'s thresholds, or makes two points coincide."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import suspension_sim as ss
from suspension_sim.description import CHASSIS, Body, Car, Point
from suspension_sim.errors import ModelError
from suspension_sim.model.refit import refit
from suspension_sim.model.screws import frame_from_axis, frames_from_axes
from suspension_sim.model.topology import Topology, classify
from suspension_sim.tolerances import ON_LINE_MM

ROOT = Path(__file__).resolve().parents[1]
CARS = ("fsae_car", "fsae_car_arb", "macpherson_front", "five_link_rear", "solid_axle_rear")


def xyz(v: np.ndarray) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))


def moved(car: Car, moves: dict[str, np.ndarray]) -> Car:
    """The car with the named points moved by the given vectors (mm)."""
    points = tuple(
        dataclasses.replace(p, xyz=xyz(np.add(p.xyz, moves[p.name]))) if p.name in moves else p
        for p in car.points
    )
    return dataclasses.replace(car, points=points)


def assert_same(got: dict, want: Topology, bodies: set[str]) -> None:
    """refit's joints are classify's: kind, parameters, reason, parts, frames (1e-12)."""
    assert set(got) == bodies
    for name, j in got.items():
        w = want.joint(name)
        assert (j.kind, j.params, j.reason) == (w.kind, w.params, w.reason)
        assert len(j.parts) == len(w.parts)
        for a, b in zip(j.parts, w.parts, strict=True):
            assert (a.body, a.chain, a.params, a.points) == (b.body, b.chain, b.params, b.points)
            np.testing.assert_allclose(a.frame, b.frame, rtol=0, atol=1e-12)


def test_frames_from_axes_is_frame_from_axis_row_by_row() -> None:
    rng = np.random.default_rng(3)
    axes = rng.normal(size=(300, 3)) * rng.uniform(1e-3, 1e3, size=(300, 1))
    axes[:6] = np.array([[1, 0, 0], [0, -2, 0], [0, 0, 5], [1, 1, 0], [0, 1e-9, -1], [3, 3, 3]])
    origins = rng.normal(size=(300, 3)) * 500
    got = frames_from_axes(axes, origins)
    want = np.array([frame_from_axis(a, o) for a, o in zip(axes, origins, strict=True)])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # right-handed and orthonormal, z along the axis
    R = got[:, :3, :3]
    np.testing.assert_allclose(
        R @ R.transpose(0, 2, 1), np.broadcast_to(np.eye(3), R.shape), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(np.linalg.det(R), 1.0)
    z = axes / np.linalg.norm(axes, axis=1)[:, None]
    np.testing.assert_allclose(R[:, :, 2], z, atol=1e-12)


@pytest.mark.parametrize("name", CARS)
def test_refit_matches_classify_on_random_moves(name: str) -> None:
    """Every point not on an anti-roll bar moved by up to 5 mm per axis, 15 times: refit
    of every body (T-bar levers aside) is classify's, or None; None only where a move
    leaves a body's class (points that lie exactly on an axis by design)."""
    car = ss.load(ROOT / "workbooks" / f"{name}.xlsx").car
    base = classify(car)
    bar_points = {
        p
        for bar in car.anti_roll_bars
        for p in (
            *bar.axis_points,
            bar.shaft_point,
            *(q for a in bar.arms for q in car.body(a).points),
        )
        if p is not None
    }
    levers = {bar.arms[0] for bar in car.anti_roll_bars if bar.kind == "T-bar"}
    bodies = {b.name for b in car.bodies if b.name != CHASSIS} - levers
    rng = np.random.default_rng(7)
    answered = 0
    for _ in range(15):
        moves = {p.name: rng.uniform(-5, 5, 3) for p in car.points if p.name not in bar_points}
        design = moved(car, moves)
        got = refit(design, base, bodies)
        want = classify(design)
        if got is None:
            kinds = {j.body: j.kind for j in want.joints}
            assert any(kinds[b] != base.joint(b).kind for b in bodies)
            continue
        answered += 1
        assert_same(got, want, bodies)
    assert answered >= 10
    # a T-bar lever is left to classify
    if levers:
        assert refit(car, base, levers) is None


def with_extra_bodies(car: Car) -> Car:
    """The car with three more bodies on chassis points: a spherical one (one chassis
    point, three points), one fixed by three chassis points off one line, and one fixed
    because its only other point lies on the axis of its two chassis points."""
    chassis = car.body(CHASSIS).points
    pm = car.point_map()
    c0, c1, c2 = chassis[0], chassis[1], chassis[2]
    on_axis = pm[c0] + 0.3 * (pm[c1] - pm[c0])
    new = (
        Point("XS1", (1.0, 2.0, 3.0)),
        Point("XS2", (40.0, -20.0, 90.0)),
        Point("XF1", (-30.0, 60.0, 10.0)),
        Point("XA1", xyz(on_axis)),
    )
    bodies = (
        Body("X_sph", (c0, "XS1", "XS2")),
        Body("X_fix3", (c0, c1, c2, "XF1")),
        Body("X_axis", (c0, c1, "XA1")),
    )
    return dataclasses.replace(car, points=car.points + new, bodies=car.bodies + bodies)


def test_refit_of_spherical_and_fixed_bodies() -> None:
    car = with_extra_bodies(ss.load(ROOT / "workbooks" / "fsae_car.xlsx").car)
    base = classify(car)
    extra = {"X_sph", "X_fix3", "X_axis"}
    assert {base.joint(b).kind for b in extra} == {"spherical", "fixed"}
    design = moved(car, {"XS1": np.array([1.0, -2.0, 0.5]), "XF1": np.array([3.0, 0, 1])})
    got = refit(design, base, extra)
    assert got is not None
    assert_same(got, classify(design), extra)
    # its point moved off the chassis axis: X_axis turns revolute, refit says None
    off = moved(car, {"XA1": np.array([0.0, 0.0, 2.0])})
    assert classify(off).joint("X_axis").kind == "revolute"
    assert refit(off, base, {"X_axis"}) is None


def test_refit_falls_back_where_classify_decides_otherwise() -> None:
    """The upper wishbone's ball joint moved onto its pivot axis (fixed: nothing moves),
    to just outside ON_LINE_MM of it (revolute, but within refit's margin), to 1 um off
    it (revolute, clear of the margin: refit answers), and a tie rod's ends made to
    coincide (classify raises)."""
    model = ss.load(ROOT / "workbooks" / "fsae_car.xlsx")
    car, base = model.car, model.topology
    f, r, b = (car.point(n) for n in ("FL_UCA_F", "FL_UCA_R", "FL_UBJ"))
    d = (r - f) / np.linalg.norm(r - f)
    foot = f + float((b - f) @ d) * d
    normal = (b - foot) / np.linalg.norm(b - foot)

    onto = moved(car, {"FL_UBJ": foot - b})
    assert classify(onto).joint("FL_UCA").kind == "fixed"
    assert refit(onto, base, {"FL_UCA"}) is None

    near = moved(car, {"FL_UBJ": foot + 1.0000001 * ON_LINE_MM * normal - b})
    assert classify(near).joint("FL_UCA").kind == "revolute"
    assert refit(near, base, {"FL_UCA"}) is None

    clear = moved(car, {"FL_UBJ": foot + 1e-3 * normal - b})
    got = refit(clear, base, {"FL_UCA"})
    assert got is not None
    assert_same(got, classify(clear), {"FL_UCA"})

    tie = next(j.body for j in base.joints if j.kind == "link5")
    ends = car.body(tie).points
    joined = moved(car, {ends[1]: car.point(ends[0]) - car.point(ends[1])})
    with pytest.raises(ModelError):
        classify(joined)
    assert refit(joined, base, {tie}) is None
