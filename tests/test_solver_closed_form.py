"""The double-wishbone corner against a closed-form solution.

The corner is solved in closed form by successive circle-sphere intersections
(the construction of the open-kinematics article, docs/references.md): the
rocker eye on its pivot circle meets the sphere of the damper length; the
pushrod's lower end on the wishbone circle meets the sphere of the pushrod
length; the upper ball joint on its circle meets the kingpin-length sphere
about the lower one; the outer tie-rod end is the trilateration of three
spheres. Nothing here calls the solver's model code, so agreement to 1e-6 mm
is an independent check.
"""

from __future__ import annotations

import numpy as np
import pytest
from _cars import CORNER_POINTS, double_wishbone_corner

from suspension_sim import Model

P = {k: np.array(v) for k, v in CORNER_POINTS.items()}


def rotate_about(p: np.ndarray, a: np.ndarray, b: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues rotation of p about the line a->b by angle (rad)."""
    k = (b - a) / np.linalg.norm(b - a)
    v = p - a
    return (
        a + v * np.cos(angle) + np.cross(k, v) * np.sin(angle) + k * (k @ v) * (1 - np.cos(angle))
    )


def circle_sphere_angle(
    a: np.ndarray, b: np.ndarray, p: np.ndarray, centre: np.ndarray, radius: float
) -> float:
    """Angle (rad, from design) that puts p, turning about a->b, at `radius` from centre.

    A cos t + B sin t + C = 0 (circle-sphere intersection); of the two
    roots, the one nearer the design condition.
    """
    axis = (b - a) / np.linalg.norm(b - a)
    r = p - a
    c = a + (r @ axis) * axis
    rp = p - c
    R = np.linalg.norm(rp)
    u = rp / R
    v = np.cross(axis, u)
    d = c - centre
    A = 2 * R * (d @ u)
    B = 2 * R * (d @ v)
    C = d @ d + R * R - radius * radius
    amp = np.hypot(A, B)
    assert abs(C) <= amp, "geometry cannot reach this input"
    phi = np.arctan2(B, A)
    roots = [phi + np.arccos(-C / amp), phi - np.arccos(-C / amp)]
    roots = [(t + np.pi) % (2 * np.pi) - np.pi for t in roots]
    return min(roots, key=abs)


def trilaterate(
    c1: np.ndarray, c2: np.ndarray, c3: np.ndarray, r: tuple[float, float, float], near: np.ndarray
) -> np.ndarray:
    """Point at distances r from c1, c2, c3; the root on the same side as `near`."""
    ex = (c2 - c1) / np.linalg.norm(c2 - c1)
    i = ex @ (c3 - c1)
    ey = c3 - c1 - i * ex
    ey /= np.linalg.norm(ey)
    ez = np.cross(ex, ey)
    d = np.linalg.norm(c2 - c1)
    j = ey @ (c3 - c1)
    x = (r[0] ** 2 - r[1] ** 2 + d**2) / (2 * d)
    y = (r[0] ** 2 - r[2] ** 2 + i**2 + j**2) / (2 * j) - i * x / j
    z = np.sqrt(r[0] ** 2 - x**2 - y**2)
    side = np.sign((near - c1) @ ez) or 1.0
    return c1 + x * ex + y * ey + side * z * ez


def rigid_from_three(
    design: list[np.ndarray], posed: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and translation that carry three design points to their posed places."""

    def frame(p: list[np.ndarray]) -> np.ndarray:
        x = p[1] - p[0]
        x /= np.linalg.norm(x)
        z = np.cross(x, p[2] - p[0])
        z /= np.linalg.norm(z)
        return np.column_stack([x, np.cross(z, x), z])

    R = frame(posed) @ frame(design).T
    return R, posed[0] - R @ design[0]


def closed_form_corner(stroke: float, rack: float) -> dict[str, np.ndarray]:
    """Every moving point of the test corner for a stroke and rack travel (mm)."""
    dist = lambda a, b: float(np.linalg.norm(P[a] - P[b]))  # noqa: E731
    damper_len = dist("DMP_M", "DMP_C") - stroke
    phi = circle_sphere_angle(P["RK_P1"], P["RK_P2"], P["DMP_M"], P["DMP_C"], damper_len)
    pr_i = rotate_about(P["PR_I"], P["RK_P1"], P["RK_P2"], phi)
    alpha = circle_sphere_angle(P["LCA_F"], P["LCA_R"], P["PR_O"], pr_i, dist("PR_O", "PR_I"))
    lbj = rotate_about(P["LBJ"], P["LCA_F"], P["LCA_R"], alpha)
    pr_o = rotate_about(P["PR_O"], P["LCA_F"], P["LCA_R"], alpha)
    beta = circle_sphere_angle(P["UCA_F"], P["UCA_R"], P["UBJ"], lbj, dist("UBJ", "LBJ"))
    ubj = rotate_about(P["UBJ"], P["UCA_F"], P["UCA_R"], beta)
    rack_dir = (P["TIE_I"] - P["RACK_R"]) / np.linalg.norm(P["TIE_I"] - P["RACK_R"])
    tie_i = P["TIE_I"] + rack * rack_dir * np.sign(rack_dir[1])
    tie_o = trilaterate(
        lbj,
        ubj,
        tie_i,
        (dist("TIE_O", "LBJ"), dist("TIE_O", "UBJ"), dist("TIE_O", "TIE_I")),
        near=P["TIE_O"],
    )
    R, t = rigid_from_three([P["LBJ"], P["UBJ"], P["TIE_O"]], [lbj, ubj, tie_o])
    return {
        "DMP_M": rotate_about(P["DMP_M"], P["RK_P1"], P["RK_P2"], phi),
        "PR_I": pr_i,
        "PR_O": pr_o,
        "LBJ": lbj,
        "UBJ": ubj,
        "TIE_I": tie_i,
        "TIE_O": tie_o,
        "WC": R @ P["WC"] + t,
        "WA": R @ P["WA"] + t,
    }


@pytest.fixture(scope="module")
def corner_model() -> Model:
    return Model(double_wishbone_corner())


@pytest.mark.parametrize("stroke", [-20.0, -10.0, -2.5, 0.0, 5.0, 12.5, 25.0, 35.0])
@pytest.mark.parametrize("rack", [-12.0, 0.0, 7.5])
def test_corner_matches_circle_sphere_closed_form(
    corner_model: Model, stroke: float, rack: float
) -> None:
    pose = corner_model.solve(shocks=[stroke], rack=rack)
    assert pose.converged
    assert pose.info.max_residual_mm < 1e-9
    truth = closed_form_corner(stroke, rack)
    for name, xyz in truth.items():
        got = pose.points.loc[name, ["x", "y", "z"]].to_numpy(dtype=float)
        assert np.allclose(got, xyz, atol=1e-6, rtol=0), (name, got - xyz)


def test_stroke_moves_only_the_moving_end(corner_model: Model) -> None:
    pose = corner_model.solve(shocks=[15.0])
    copies = pose.copies
    assert np.allclose(copies.loc[("DMP_C", "Damper")].to_numpy(), P["DMP_C"], atol=1e-12)
    length = np.linalg.norm(pose.points.loc["DMP_M"].to_numpy() - P["DMP_C"])
    assert length == pytest.approx(np.linalg.norm(P["DMP_M"] - P["DMP_C"]) - 15.0, abs=1e-9)
