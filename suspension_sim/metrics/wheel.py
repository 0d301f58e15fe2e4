"""Per-wheel geometry from points and unit vectors (pure numpy, docs/conventions.md).

Inputs broadcast over leading axes (one row per wheel); the last axis is xyz.
Lengths in mm, angles in rad. ``s`` is the unit spin axis pointing outboard,
``n`` the unit ground normal (world +Z), ``k`` the unit kingpin axis pointing
up (lower -> upper pivot). Which frame a vector is in is stated per function:
angles that docs/conventions.md defines "in chassis axes" take chassis-frame
vectors, ground quantities take world-frame ones.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.metrics.vectors import Z_UP, cross, dot, norm, reject, unit


def spin_axis(centre: np.ndarray, axis_point: np.ndarray, orientation: np.ndarray) -> np.ndarray:
    """Unit spin axis centre -> axis point times `orientation` (+1/-1 per wheel).

    The orientation is fixed once at design so that s points outboard (the
    workbook may give the axis point inboard or outboard of the centre).
    """
    return unit(axis_point - centre) * np.asarray(orientation, dtype=float)[..., None]


def contact_point(
    centre: np.ndarray, s: np.ndarray, radius: np.ndarray, n: np.ndarray = Z_UP
) -> np.ndarray:
    """Lowest point of the tyre circle: CP = C - r d/|d|, d = n - (n.s)s (mm)."""
    d = reject(np.broadcast_to(n, s.shape), s)
    return centre - np.asarray(radius, dtype=float)[..., None] * unit(d)


def camber(s: np.ndarray, n: np.ndarray = Z_UP) -> np.ndarray:
    """Inclination of the wheel plane from n: -asin(s.n) (rad); - = top toward the centreline.

    With n the ground normal and s in world axes this is camber to the ground;
    with n the chassis z axis it is camber relative to the chassis.
    """
    return -np.arcsin(np.clip(dot(s, n), -1.0, 1.0))


def camber_front_view(s: np.ndarray, lateral: np.ndarray, n: np.ndarray = Z_UP) -> np.ndarray:
    """Front-view projection of camber: -atan2(s.n, |s.lateral|) (rad).

    lateral: the car's horizontal lateral axis (unit, perpendicular to n).
    """
    return -np.arctan2(dot(s, n), np.abs(dot(s, lateral)))


def toe(s_chassis: np.ndarray) -> np.ndarray:
    """atan2(s.x, |s.y|) in chassis axes (rad); + = toe-in on either side."""
    return np.arctan2(s_chassis[..., 0], np.abs(s_chassis[..., 1]))


def toe_wheel_plane(s_chassis: np.ndarray) -> np.ndarray:
    """Angle between the wheel plane and the chassis X axis: asin(s.x) (rad); + = toe-in.

    s outboard, chassis axes, either side. OptimumK's toe (docs/conventions.md,
    preset ``optimumk``): sin(toe_wheel_plane) = cos(camber_chassis) sin(toe),
    so it is smaller than the top-view `toe` on a cambered wheel.
    """
    return np.arcsin(np.clip(s_chassis[..., 0], -1.0, 1.0))


def turned_heading(x_h: np.ndarray, y_h: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """The horizontal unit vector x_h turned about the vertical by `angle` (rad, + toward y_h).

    x_h, y_h: the car's horizontal heading and lateral (+ left) axes, world frame.
    """
    a = np.asarray(angle, dtype=float)[..., None]
    return np.cos(a) * x_h + np.sin(a) * y_h


def contact_patch(
    centre: np.ndarray, s: np.ndarray, radius: np.ndarray, heading: np.ndarray, n: np.ndarray = Z_UP
) -> np.ndarray:
    """OptimumK's contact patch: C + r unit(s x h), the sign taken so it points down (mm).

    heading h: the vehicle X axis turned about the vertical by the steer angle
    (`turned_heading`). The point is on the tyre circle but, on a cambered and
    toed wheel, not its lowest point (`contact_point`): the two differ by a few
    tenths of a mm along x.
    """
    u = unit(cross(s, np.broadcast_to(heading, s.shape)))
    down = np.where(dot(u, np.broadcast_to(n, s.shape)) > 0.0, -1.0, 1.0)[..., None]
    return centre + np.asarray(radius, dtype=float)[..., None] * down * u


def steer(toe_now: np.ndarray, toe_design: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Roadwheel angle (rad): toe change from design, + = front of the wheel toward +Y.

    side: +1 for a left wheel, -1 for a right one (toe-in of a left wheel
    turns it to the right, of a right wheel to the left).
    """
    return -np.asarray(side, dtype=float) * (toe_now - toe_design)


def caster(k_chassis: np.ndarray) -> np.ndarray:
    """Side-view angle of k from the chassis z axis: atan2(-k.x, k.z) (rad); + = top rearward."""
    return np.arctan2(-k_chassis[..., 0], k_chassis[..., 2])


def kpi(k_chassis: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Kingpin inclination atan2(-k.y_out, k.z) (rad), y_out = side * chassis y; + = top inboard."""
    return np.arctan2(-np.asarray(side, dtype=float) * k_chassis[..., 1], k_chassis[..., 2])


def kingpin_ground_point(
    point_on_axis: np.ndarray, k: np.ndarray, cp: np.ndarray, n: np.ndarray = Z_UP
) -> np.ndarray:
    """G: where the kingpin axis meets the ground plane through CP (normal n), world mm."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = dot(cp - point_on_axis, n) / dot(k, n)
    return point_on_axis + t[..., None] * k


def ground_axes(
    s: np.ndarray, side: np.ndarray, n: np.ndarray = Z_UP
) -> tuple[np.ndarray, np.ndarray]:
    """The wheel's axes in the ground plane: (l, h), both unit, world frame.

    l = s projected on the plane (outboard); h = the wheel's forward heading,
    perpendicular to l: l x n for a left wheel, n x l for a right one.
    """
    nn = np.broadcast_to(n, s.shape)
    lat = unit(reject(s, nn))
    head = np.asarray(side, dtype=float)[..., None] * cross(lat, nn)
    return lat, head


def scrub_radius(cp: np.ndarray, g: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """(CP - G).l (mm); + = G inboard of CP."""
    return dot(cp - g, lat)


def mechanical_trail(cp: np.ndarray, g: np.ndarray, head: np.ndarray) -> np.ndarray:
    """(G - CP).h (mm); + = G ahead of CP."""
    return dot(g - cp, head)


def scrub_vehicle(
    cp: np.ndarray, g: np.ndarray, lateral: np.ndarray, side: np.ndarray
) -> np.ndarray:
    """(CP - G).(side * lateral) (mm): scrub in the vehicle's front view; + = G inboard of CP.

    lateral: the car's horizontal lateral axis y_h (+ left), not the wheel's own l.
    """
    return dot(cp - g, np.asarray(side, dtype=float)[..., None] * lateral)


def trail_vehicle(cp: np.ndarray, g: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """(G - CP).x_h (mm): trail in the vehicle's side view; + = G ahead of CP.

    heading: the car's horizontal heading x_h, not the wheel's own h.
    """
    return dot(g - cp, heading)


def ratio_per_motion(d_length: np.ndarray) -> np.ndarray:
    """Motion over spring, 1 / (d length / d motion) (motion unit per mm); inf for 0.

    OptimumK's Motion Ratio Heave is d heave / d coilover length: give the
    damper length's rate per mm of heave.
    """
    d = np.asarray(d_length, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(d != 0.0, 1.0 / np.where(d != 0.0, d, 1.0), np.inf)


def spindle_length(centre: np.ndarray, point_on_axis: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Perpendicular distance from the wheel centre to the kingpin axis (mm)."""
    return norm(reject(centre - point_on_axis, k))


def half_track(cp_chassis: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Outboard distance of CP from the chassis centre plane y = 0 (mm, chassis frame)."""
    return np.asarray(side, dtype=float) * cp_chassis[..., 1]
