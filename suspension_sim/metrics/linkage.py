"""Linkage metrics from the carrier's twist (docs/conventions.md, "Instant centres
and swing arms", "Roll centre and pitch centre", "Anti-dive, anti-lift, anti-squat").

Three kinds of instant centre, each in a view plane through a reference point R:

* `force_centre`: the **force-based** centre ``R + (w x v) / |w|^2``, w the
  part of the carrier's angular velocity normal to the plane and v the
  in-plane velocity of R (the ``fvic``/``svic`` columns and the centres
  printed beside the antis). A force at R along the line R -> centre does
  no virtual work on the motion;
* `instant_centre`: where the instantaneous **screw axis** pierces the
  plane (the ``fvic_axis``/``svic_axis`` diagnostics). The two coincide only
  when the motion has no pitch or the axis is normal to the plane;
* `planes_meet`: where two arm planes of a double wishbone meet the view
  plane (the ``fvic_arms``/``svic_arms`` construction).

Roll centres, pitch centres and antis use lines through a wheel point
perpendicular to that point's velocity in the view (`view_normal`), the
lines through the force-based centres.

Centres are kept homogeneous, ``(N, lam)`` with the point ``N/lam``, so that
a centre at infinity (parallel arms) is still a direction ``N`` (lam = 0):
swing-arm lengths become inf, while roll centres, pitch centres and anti
percentages, which only need *lines*, stay finite and continuous. Lengths
in mm, angles in rad, twists (w, v) in rad/mm and mm/mm.

Every function broadcasts over leading axes (one state, or a stack of
states and wheels: `metrics.batch` and `pose_metrics` share them); with
single vectors the scalar results are numpy scalars.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.metrics.vectors import cross, dot, homogeneous_line, norm, unit
from suspension_sim.tolerances import (
    CENTRE_AT_INFINITY_MM,
    COINCIDENT_LINES_MM,
    PARALLEL_SIN,
    PURE_TRANSLATION_RAD,
    STRAIGHT_AHEAD_RAD,
)

Homogeneous = tuple[np.ndarray, np.ndarray]
"""(N (..., 3), lam (...)): the point N / lam, or the direction N at infinity (lam = 0)."""


def _at_infinity(
    N: np.ndarray, lam: np.ndarray | float, ref: np.ndarray, tol: float = CENTRE_AT_INFINITY_MM
) -> Homogeneous:
    """(N, lam), or (N - lam ref, 0) where N/lam lies beyond `tol` mm of ref."""
    lam = np.asarray(lam, dtype=float)
    offset = N - lam[..., None] * ref
    far = np.abs(lam) * tol <= norm(offset)
    return np.where(far[..., None], offset, N), np.where(far, 0.0, lam)[()]


def instant_centre(
    twist: np.ndarray, plane_point: np.ndarray, plane_normal: np.ndarray
) -> Homogeneous:
    """Where the screw axis of `twist` (w, v) meets a plane, homogeneous: (N (..., 3), lam).

    The axis is the set ``p0 + t w`` with ``p0 = w x v / |w|^2``. The meeting
    point is ``N / lam`` with ``lam = w.m`` and ``N = lam p0 + ((P - p0).m) w``
    (m the plane normal, P a point of it). For a pure translation (w = 0) the
    centre is at infinity perpendicular to v in the plane: N = m x v, lam = 0.
    """
    w, v = twist[..., :3], twist[..., 3:]
    ww = dot(w, w)
    moving = ww >= PURE_TRANSLATION_RAD**2
    safe = np.where(moving, ww, 1.0)
    p0 = cross(w, v) / safe[..., None]
    what = w / np.sqrt(safe)[..., None]
    lam = dot(what, plane_normal)
    N = lam[..., None] * p0 + dot(plane_point - p0, plane_normal)[..., None] * what
    N, lam = _at_infinity(N, lam, plane_point)
    N = np.where(moving[..., None], N, cross(plane_normal, v))
    return N, np.where(moving, lam, 0.0)[()]


def force_centre(twist: np.ndarray, ref: np.ndarray, plane_normal: np.ndarray) -> Homogeneous:
    """Force-based instant centre of `twist` (w, v) in the plane through `ref`: (N, lam).

    Seen in the plane (unit normal m through R = `ref`, a point fixed on the
    carrier), the in-plane velocity of its points is a planar rigid motion:
    rotation at rate ``w.m`` about ``IC = R + m x u(R) / (w.m)``,
    ``u(R) = v + w x R``, which is ``R + (w_m x v_R) / |w_m|^2`` with w_m and
    v_R the normal part of w and the in-plane part of u(R). Homogeneous:
    ``lam = w.m``, ``N = lam R + m x u(R)``. With ``w.m = 0`` (parallel force
    lines, a translation in the view) or a centre beyond
    `CENTRE_AT_INFINITY_MM` it is at infinity along ``m x u(R)`` (lam = 0).
    It equals `instant_centre` when the twist has no pitch.
    """
    w, v = twist[..., :3], twist[..., 3:]
    m = plane_normal
    lam = dot(w, m)
    N = lam[..., None] * ref + cross(m, v + cross(w, ref))
    return _at_infinity(N, lam, ref)


def planes_meet(
    planes: tuple[tuple[np.ndarray, np.ndarray], ...], tol: float = CENTRE_AT_INFINITY_MM
) -> Homogeneous:
    """Common point of three planes given as (point, normal), homogeneous: (N, lam).

    ``N = d1 (n2 x n3) + d2 (n3 x n1) + d3 (n1 x n2)``, ``lam = n1.(n2 x n3)``
    with unit normals and ``d_i = n_i.p_i``. The third plane is the view plane
    and its point the reference: a meeting point farther than `tol` from it (the
    line of the first two planes parallel to the view) is at infinity.
    """
    (p1, n1), (p2, n2), (p3, n3) = ((p, unit(n)) for p, n in planes)
    lam = dot(n1, cross(n2, n3))
    N = (
        dot(n1, p1)[..., None] * cross(n2, n3)
        + dot(n2, p2)[..., None] * cross(n3, n1)
        + dot(n3, p3)[..., None] * cross(n1, n2)
    )
    return _at_infinity(N, lam, p3, tol)


def view_normal(velocity: np.ndarray, view_axis: np.ndarray) -> Homogeneous:
    """The direction, in the view along `view_axis`, perpendicular to a point's velocity.

    As a homogeneous point at infinity ``(view_axis x velocity, 0)``: the line
    from the point toward it is the line through the point's force-based instant
    centre, along which a force does no virtual work on the motion.
    """
    N = cross(view_axis, velocity)
    return N, np.zeros(N.shape[:-1])[()]


def transform_homogeneous(T: np.ndarray, N: np.ndarray, lam: np.ndarray | float) -> np.ndarray:
    """Apply a 4x4 transform to homogeneous points (N (..., 3), lam): R N + lam t."""
    return N @ T[:3, :3].T + np.asarray(lam, dtype=float)[..., None] * T[:3, 3]


def finite(N: np.ndarray, lam: np.ndarray | float) -> np.ndarray:
    """The points N / lam, NaN where at infinity (lam = 0)."""
    lam = np.asarray(lam, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            (lam != 0.0)[..., None], N / np.where(lam != 0, lam, 1.0)[..., None], np.nan
        )


def view_distance(
    point: np.ndarray, N: np.ndarray, lam: np.ndarray | float, view_axis: np.ndarray
) -> np.ndarray:
    """Distance from `point` to the homogeneous point in the view along `view_axis` (unit);
    inf where the point is at infinity."""
    lam = np.asarray(lam, dtype=float)
    d = finite(N, lam) - point
    dist = norm(d - dot(d, view_axis)[..., None] * view_axis)
    return np.where(lam == 0.0, np.inf, dist)[()]


def line_direction(ref: np.ndarray, N: np.ndarray, lam: np.ndarray | float) -> np.ndarray:
    """Direction (up to sign) of the line from `ref` to the homogeneous point: N - lam ref."""
    return N - np.asarray(lam, dtype=float)[..., None] * ref


def anti_percent(
    direction: np.ndarray,
    forward: np.ndarray,
    up: np.ndarray,
    front: bool,
    wheelbase: float,
    cg_height: float,
    share: float,
) -> np.ndarray:
    """tan(theta) * wheelbase / cg_height * share * 100 (%).

    theta: side-view angle from the ground of a line (`direction`, either
    sense), positive when it rises toward the car's centre: toward the rear
    for a front wheel, toward the front for a rear wheel. The line is the one
    from the reference point through its side-view force-based centre,
    ``view_normal(velocity of the reference point, lateral axis)``, so
    tan(theta) = +dx/dz of the reference point for a front wheel and -dx/dz
    for a rear one. forward/up: the car's horizontal heading and the ground
    normal (unit).
    """
    rise = dot(direction, up)
    run = dot(direction, forward)
    if front:
        run = -run
    with np.errstate(divide="ignore", invalid="ignore"):
        tan_theta = np.divide(rise, run)
    return (tan_theta * wheelbase / cg_height * share * 100.0)[()]


def centre_of_lines(
    p1: np.ndarray,
    q1: tuple[np.ndarray, np.ndarray | float],
    p2: np.ndarray,
    q2: tuple[np.ndarray, np.ndarray | float],
    u_axis: np.ndarray,
    v_axis: np.ndarray,
) -> np.ndarray:
    """Intersection, in the view spanned by (u_axis, v_axis), of the lines p1 -> q1 and p2 -> q2.

    p1, p2: finite 3-D points (..., 3); q1, q2: homogeneous 3-D points (N, lam).
    Returns the 2-D view coordinates (u, v) (..., 2): NaN if the lines are
    parallel and distinct; midway between p1 and p2 on the common line if they
    coincide (p2 within `COINCIDENT_LINES_MM` of the first line), the limit of
    the symmetric case (e.g. the roll centre of horizontal, parallel,
    equal-length arms lies on the ground at the centre). Used for the roll
    centre (front view) and pitch centre (side view).
    """

    def view(p: np.ndarray) -> np.ndarray:
        return np.stack([dot(p, u_axis), dot(p, v_axis)], axis=-1)

    def view_h(N: np.ndarray, lam: np.ndarray | float) -> np.ndarray:
        lam_b = np.broadcast_to(np.asarray(lam, dtype=float), N.shape[:-1])
        return np.stack([dot(N, u_axis), dot(N, v_axis), lam_b], axis=-1)

    a, b = view(p1), view(p2)
    l1 = homogeneous_line(a, view_h(*q1))
    l2 = homogeneous_line(b, view_h(*q2))
    x = cross(l1, l2)
    finite_x = np.all(np.isfinite(x), axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        crossing = x[..., :2] / x[..., 2:]
    b_h = np.concatenate([b, np.ones((*b.shape[:-1], 1))], axis=-1)
    same = np.abs(dot(l1, b_h)) < COINCIDENT_LINES_MM
    out = np.where(same[..., None], (a + b) / 2, np.nan)
    out = np.where((np.abs(x[..., 2]) > PARALLEL_SIN)[..., None], crossing, out)
    return np.where(finite_x[..., None], out, np.nan)


def lines_angle(
    p1: np.ndarray,
    q1: tuple[np.ndarray, np.ndarray | float],
    p2: np.ndarray,
    q2: tuple[np.ndarray, np.ndarray | float],
    u_axis: np.ndarray,
    v_axis: np.ndarray,
) -> np.ndarray:
    """Angle (rad, 0..pi/2) between the lines p1 -> q1 and p2 -> q2 seen in the view
    spanned by (u_axis, v_axis): the conditioning of their crossing (`centre_of_lines`).

    Same arguments as `centre_of_lines`. A change d (rad) in one line's direction moves
    the crossing by about its distance from that line's point times d / sin(angle),
    so a small angle marks a roll or pitch centre that jumps for small changes
    (`NEAR_PARALLEL_LINES_DEG`). 0 for parallel or coincident lines; NaN where a line
    has no direction in the view.
    """

    def view(d: np.ndarray) -> np.ndarray:
        return np.stack([dot(d, u_axis), dot(d, v_axis)], axis=-1)

    d1 = view(line_direction(p1, *q1))
    d2 = view(line_direction(p2, *q2))
    across = np.abs(d1[..., 0] * d2[..., 1] - d1[..., 1] * d2[..., 0])
    along = np.abs(dot(d1, d2))
    defined = (norm(d1) > 0.0) & (norm(d2) > 0.0)
    return np.where(defined, np.arctan2(across, along), np.nan)[()]


def ackermann_percent(
    steer_left: float,
    steer_right: float,
    wheelbase: float,
    track: float,
    eps: float = STRAIGHT_AHEAD_RAD,
) -> float:
    """Ackermann % from the two roadwheel angles (rad, + = turned left, iso).

    The inner wheel is the one on the side of the turn (the mean steer's
    sign); d_o, d_i are the magnitudes of the outer and inner angles,
    ``d_i_ideal = atan(L / (L/tan d_o - t))`` and the result is
    ``(d_i - d_o) / (d_i_ideal - d_o) * 100``. NaN when the mean steer is
    below `eps` rad (no turn, the ratio is 0/0).
    """
    mean = 0.5 * (steer_left + steer_right)
    if not np.isfinite(mean) or abs(mean) < eps:
        return float("nan")
    if mean > 0:  # left turn: left wheel inside
        d_i, d_o = steer_left, steer_right
    else:
        d_i, d_o = -steer_right, -steer_left
    with np.errstate(divide="ignore", invalid="ignore"):
        ideal = np.arctan(wheelbase / (wheelbase / np.tan(np.float64(d_o)) - track))
        return float((d_i - d_o) / (ideal - d_o) * 100.0)


def ackermann_percents(
    steer_left: np.ndarray,
    steer_right: np.ndarray,
    wheelbase: float,
    track: float,
    eps: float = STRAIGHT_AHEAD_RAD,
) -> np.ndarray:
    """`ackermann_percent` of arrays of roadwheel angles (rad, + = left, iso), elementwise."""
    left = np.asarray(steer_left, dtype=float)
    right = np.asarray(steer_right, dtype=float)
    mean = 0.5 * (left + right)
    turning = np.isfinite(mean) & (np.abs(mean) >= eps)
    left_turn = mean > 0  # left turn: left wheel inside
    d_i = np.where(left_turn, left, -right)
    d_o = np.where(left_turn, right, -left)
    with np.errstate(divide="ignore", invalid="ignore"):
        ideal = np.arctan(wheelbase / (wheelbase / np.tan(d_o) - track))
        value = (d_i - d_o) / (ideal - d_o) * 100.0
    return np.where(turning, value, np.nan)
