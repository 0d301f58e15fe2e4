"""What the 3-D view draws, computed with numpy alone (world mm, ISO 8855, ground z = 0).

Joint status (which joined points are open, by how much), the boxes the
cameras frame, and the shapes of bodies, dampers, tyres and the ground grid as
plain arrays. `suspension_sim.viz.meshes` turns these into pyvista meshes;
nothing here imports pyvista, so this module is cheap to import and to test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from suspension_sim.description import CHASSIS
from suspension_sim.errors import InputError
from suspension_sim.tolerances import COINCIDENT_MM, COLLINEAR_RATIO, NORM_FLOOR_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.solve.pose import Pose

Bounds = tuple[float, float, float, float, float, float]
"""A world box (mm): x0, x1, y0, y1, z0, z1."""
Segment = tuple[np.ndarray, np.ndarray]
"""A straight piece from one point to another (mm)."""
ShapeKind = Literal["point", "line", "plane", "solid"]

REFERENCE_SIZE_MM = 2600.0
"""Scene diagonal at which the base drawing sizes apply (a whole FSAE car)."""
SMALLEST_SCENE_MM = 800.0
"""Scenes smaller than this (a single corner) are drawn with this diagonal's sizes."""
FLAT_RATIO = 0.15
"""A body thinner than this fraction of its width is drawn as a plate (outline and web)."""
GROUND_MARGIN = 0.06
"""Ground patch margin around the car's footprint, as a fraction of its length."""
GRID_MM = 250.0
"""Spacing of the ground grid lines."""
GRID_LIFT_MM = 0.5
"""The grid sits this far above the ground plane (no z-fighting)."""
OPEN_FOCUS_PAD = 0.15
OPEN_FOCUS_MARGIN_MM = 40.0
"""``focus="open"`` pads the box around the open joints' bodies by PAD x its size + MARGIN."""
_MERGE_DECIMALS = round(-math.log10(COINCIDENT_MM))


@dataclass
class SceneInfo:
    """What `add_pose` drew: joint status and the world bounds of the geometry (mm)."""

    tolerance_mm: float
    open_joints: pd.Series  # open joined point -> gap (mm), largest first
    closed_joints: tuple[str, ...]
    bounds: Bounds
    actors: dict[str, Any] = field(default_factory=dict, repr=False)


# -- joints ---------------------------------------------------------------------------
def display_tolerance(pose: Pose, tolerance_mm: float | None = None) -> float:
    """The red/green threshold (mm): the argument, else the workbook's option."""
    if tolerance_mm is None:
        return float(pose.model.car.options.constraint_display_tolerance_mm)
    tol = float(tolerance_mm)
    if not tol > 0:
        raise InputError(f"display tolerance must be positive, got {tolerance_mm!r}")
    return tol


def joint_status(pose: Pose, tolerance_mm: float | None = None) -> pd.Series:
    """Joined point -> True when its copies are apart by more than the tolerance (red)."""
    tol = display_tolerance(pose, tolerance_mm)
    gaps = pose.residuals
    return (gaps > tol) | ~np.isfinite(gaps.to_numpy())


# -- boxes ----------------------------------------------------------------------------
def pose_bounds(pose: Pose) -> Bounds:
    """World box (mm) around every point copy and every tyre, and down to the ground."""
    xyz = pose.copies.to_numpy(dtype=float)
    lo, hi = xyz.min(axis=0), xyz.max(axis=0)
    for w in pose.model.car.wheels:
        c = pose.points.loc[w.centre].to_numpy(dtype=float)
        s = pose.points.loc[w.axis_point].to_numpy(dtype=float) - c
        s = s / max(float(np.linalg.norm(s)), NORM_FLOOR_MM)
        # half extent of a tyre (circle of radius r, width w, normal s) along each world axis
        across = np.sqrt(np.clip(1.0 - s**2, 0.0, 1.0))
        half = w.tyre_radius * across + 0.5 * w.tyre_width * np.abs(s)
        lo, hi = np.minimum(lo, c - half), np.maximum(hi, c + half)
    lo[2] = min(lo[2], 0.0)
    return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


def union_bounds(boxes: Sequence[Sequence[float]]) -> Bounds:
    """The smallest box (mm) holding every box of `boxes`."""
    b = np.asarray(boxes, dtype=float)
    return (
        b[:, 0].min(),
        b[:, 1].max(),
        b[:, 2].min(),
        b[:, 3].max(),
        b[:, 4].min(),
        b[:, 5].max(),
    )


def ground_rectangle(
    bounds: Sequence[float], margin: float = GROUND_MARGIN
) -> tuple[float, float, float, float]:
    """x0, x1, y0, y1 (mm) of the ground patch: the car's footprint plus a margin."""
    x0, x1, y0, y1 = bounds[:4]
    pad = margin * max(x1 - x0, y1 - y0, 1000.0)
    return (x0 - pad, x1 + pad, y0 - pad, y1 + pad)


def with_ground(bounds: Sequence[float], rect: Sequence[float]) -> Bounds:
    """`bounds` grown to hold the ground patch `rect` (x0, x1, y0, y1) at z = 0."""
    return union_bounds([bounds, (rect[0], rect[1], rect[2], rect[3], 0.0, 0.0)])


def scene_scale(bounds: Sequence[float]) -> float:
    """Size factor for tubes and spheres: 1 for a whole car, less for a corner."""
    b = np.asarray(bounds, dtype=float)
    diag = float(np.linalg.norm(b[1::2] - b[0::2]))
    return max(diag, SMALLEST_SCENE_MM) / REFERENCE_SIZE_MM


def open_joint_bounds(pose: Pose, info: SceneInfo, pad: float = OPEN_FOCUS_PAD) -> Bounds | None:
    """World box (mm) around every body that carries an open joint, padded; None if none."""
    if not len(info.open_joints):
        return None
    copies = pose.copies
    points = set(info.open_joints.index)
    owners = set(
        copies.index[copies.index.get_level_values("point").isin(points)].get_level_values("body")
    )
    owners.discard(CHASSIS)
    near = copies[copies.index.get_level_values("body").isin(owners)].to_numpy(dtype=float)
    near = np.vstack([near, copies.loc[list(points)].to_numpy(dtype=float)])
    lo, hi = near.min(axis=0), near.max(axis=0)
    margin = pad * float(np.max(hi - lo)) + OPEN_FOCUS_MARGIN_MM
    return (
        lo[0] - margin,
        hi[0] + margin,
        lo[1] - margin,
        hi[1] + margin,
        lo[2] - margin,
        hi[2] + margin,
    )


def world_to_pixel(plotter: Any, xyz: np.ndarray | Sequence[float]) -> np.ndarray:
    """Image (column, row) of world points (mm), row 0 at the top, as in a screenshot.

    `plotter` is a pyvista Plotter whose camera is set (nothing is imported here).
    """
    ren = plotter.renderer
    pts = np.atleast_2d(np.asarray(xyz, dtype=float))
    height = plotter.window_size[1]
    out = np.empty((len(pts), 2))
    for k, (x, y, z) in enumerate(pts):
        ren.SetWorldPoint(x, y, z, 1.0)
        ren.WorldToDisplay()
        dx, dy, _ = ren.GetDisplayPoint()
        out[k] = (dx, height - 1 - dy)
    return out


# -- shapes ---------------------------------------------------------------------------
def perpendicular_basis(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors perpendicular to `axis` and to each other."""
    a = axis / np.linalg.norm(axis)
    helper = np.array([0.0, 0.0, 1.0]) if abs(a[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    u = np.cross(a, helper)
    u /= np.linalg.norm(u)
    return u, np.cross(a, u)


def tyre_surface(
    centre: np.ndarray,
    axis: np.ndarray,
    radius: float,
    width: float,
    *,
    rim_ratio: float = 0.64,
    n_around: int = 72,
    n_profile: int = 24,
) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (n, 3) and quad faces (m, 4) of a tyre (mm).

    The cross-section is a superellipse (a squarish, rounded tyre section)
    between the rim radius ``rim_ratio * radius`` and `radius`, `width` wide,
    centred on the wheel plane through `centre` normal to `axis`.
    """
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    u, v = perpendicular_basis(a)
    r_in = rim_ratio * radius
    rc, hr, hw = 0.5 * (radius + r_in), 0.5 * (radius - r_in), 0.5 * width
    t = np.linspace(0.0, 2 * np.pi, n_profile, endpoint=False)
    expo = 2.0 / 5.0  # superellipse exponent 5: flat tread, rounded shoulders
    ax = hw * np.sign(np.cos(t)) * np.abs(np.cos(t)) ** expo
    rad = rc + hr * np.sign(np.sin(t)) * np.abs(np.sin(t)) ** expo
    th = np.linspace(0.0, 2 * np.pi, n_around, endpoint=False)
    ring = np.cos(th)[:, None] * u + np.sin(th)[:, None] * v  # (n_around, 3)
    pts = (
        np.asarray(centre, dtype=float)
        + ax[None, :, None] * a
        + rad[None, :, None] * ring[:, None, :]
    ).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n_around), np.arange(n_profile), indexing="ij")
    i2, j2 = (i + 1) % n_around, (j + 1) % n_profile
    quads = np.stack(
        [i * n_profile + j, i2 * n_profile + j, i2 * n_profile + j2, i * n_profile + j2], axis=-1
    ).reshape(-1, 4)
    return pts, quads


def classify_shape(points: np.ndarray, rel_tol: float = COLLINEAR_RATIO) -> ShapeKind:
    """'point', 'line', 'plane' or 'solid' from the spread of a point set."""
    pts = np.asarray(points, dtype=float)
    if len(pts) < 2:
        return "point"
    s = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False)
    if s[0] < COINCIDENT_MM:
        return "point"
    if len(pts) == 2 or s[1] <= rel_tol * s[0]:
        return "line"
    if len(pts) == 3 or s[2] <= rel_tol * s[0]:
        return "plane"
    return "solid"


def hull_outline(points: np.ndarray) -> np.ndarray:
    """Indices of the 2-D convex hull of points projected on their best-fit plane, in order."""
    from scipy.spatial import ConvexHull

    c = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(c)
    flat = c @ vt[:2].T
    if len(points) == 3:
        return np.arange(3)
    return ConvexHull(flat).vertices


def line_ends(points: np.ndarray) -> Segment:
    """The two extreme points of a (nearly) collinear set along its main direction."""
    c = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - c)
    t = (points - c) @ vt[0]
    return points[int(np.argmin(t))], points[int(np.argmax(t))]


@dataclass(frozen=True)
class BodyShape:
    """How one rigid body is drawn, as arrays (world mm).

    kind "point": a sphere at ``points[0]``; "line": a tube along `ends`;
    "plane"/"solid": a surface, `triangles` (m, 3) of the convex hull for a
    solid, else the polygon `outline_order` (indices of `points` in order)
    for a plate. `flat` bodies also get tubes along `outline` (k, 2, 3) and a
    lighter surface.
    """

    kind: ShapeKind
    points: np.ndarray
    ends: Segment | None = None
    outline_order: np.ndarray | None = None
    triangles: np.ndarray | None = None
    flat: bool = False

    @property
    def outline(self) -> list[Segment]:
        """The outline's edges, point to point, closed."""
        if self.outline_order is None:
            return []
        order, pts = self.outline_order, self.points
        return [(pts[order[k]], pts[order[(k + 1) % len(order)]]) for k in range(len(order))]


def body_shape(points: np.ndarray) -> BodyShape:
    """The drawing shape of a rigid body from its point positions (mm)."""
    from scipy.spatial import ConvexHull, QhullError

    pts = np.unique(np.round(np.asarray(points, dtype=float), _MERGE_DECIMALS), axis=0)
    kind = classify_shape(pts)
    if kind == "point":
        return BodyShape("point", pts[:1])
    if kind == "line":
        return BodyShape("line", pts, ends=line_ends(pts))
    order = hull_outline(pts)
    s = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False)
    triangles = None
    if kind == "solid":
        try:
            triangles = ConvexHull(pts).simplices
        except QhullError:  # too thin for qhull: draw it as the plate it nearly is
            kind = "plane"
    flat = kind == "plane" or s[2] < FLAT_RATIO * s[1]
    return BodyShape(kind, pts, outline_order=order, triangles=triangles, flat=flat)


@dataclass(frozen=True)
class DamperShape:
    """A damper drawn telescoping (mm): cylinder from the chassis eye, rod from the
    moving eye, both of fixed length, and the centre line of a coil spring."""

    body: Segment
    rod: Segment
    helix: np.ndarray  # (n, 3)


DAMPER_BODY_LENGTH = 0.58
DAMPER_ROD_LENGTH = 0.62
"""Cylinder and rod lengths as fractions of the damper's design length."""
SPRING_TURNS = 7
SPRING_SAMPLES = 280
SPRING_SPAN = (0.12, 0.88)
"""The spring runs between these fractions of the eye-to-eye length."""


def damper_shape(
    chassis_eye: np.ndarray, moving_eye: np.ndarray, design_length: float, coil_radius: float
) -> DamperShape | None:
    """Cylinder, rod and spring of a damper (mm); None when its eyes coincide."""
    c, m = np.asarray(chassis_eye, dtype=float), np.asarray(moving_eye, dtype=float)
    axis = m - c
    length = float(np.linalg.norm(axis))
    if length < COINCIDENT_MM:
        return None
    d = axis / length
    body_len = DAMPER_BODY_LENGTH * design_length
    rod_len = DAMPER_ROD_LENGTH * design_length
    u, v = perpendicular_basis(d)
    t = np.linspace(0.0, 1.0, SPRING_SAMPLES)
    start, stop = SPRING_SPAN[0] * length, SPRING_SPAN[1] * length
    turn = 2 * np.pi * SPRING_TURNS * t
    helix = (
        c
        + (start + (stop - start) * t)[:, None] * d
        + coil_radius * np.cos(turn)[:, None] * u
        + coil_radius * np.sin(turn)[:, None] * v
    )
    return DamperShape(
        body=(c, c + d * min(body_len, 0.95 * length)),
        rod=(m, m - d * min(rod_len, length)),
        helix=helix,
    )


def ground_grid(
    rect: Sequence[float], grid_mm: float = GRID_MM, lift_mm: float = GRID_LIFT_MM
) -> np.ndarray:
    """Grid lines (k, 2, 3) over the ground patch x0, x1, y0, y1 (mm), `lift_mm` above z = 0."""
    x0, x1, y0, y1 = rect
    z = lift_mm
    xs = np.arange(np.ceil(x0 / grid_mm) * grid_mm, x1, grid_mm)
    ys = np.arange(np.ceil(y0 / grid_mm) * grid_mm, y1, grid_mm)
    segs = [((x, y0, z), (x, y1, z)) for x in xs] + [((x0, y, z), (x1, y, z)) for y in ys]
    return np.array(segs, dtype=float).reshape(-1, 2, 3)


# -- view aids ------------------------------------------------------------------------
KINGPIN_EXTENSION_MM = 150.0
"""A drawn kingpin axis runs this far beyond each kingpin point."""


def kingpin_segments(pose: Pose, extension_mm: float = KINGPIN_EXTENSION_MM) -> dict[str, Segment]:
    """Wheel -> its kingpin (steering) axis as a segment (world mm): lower point to
    upper point, extended by `extension_mm` beyond each. Wheels without kingpin
    points, or with coincident ones, are left out."""
    points = pose.points
    out: dict[str, Segment] = {}
    for w in pose.model.car.wheels:
        if not w.kingpin_lower or not w.kingpin_upper:
            continue
        lo = points.loc[w.kingpin_lower].to_numpy(dtype=float)
        up = points.loc[w.kingpin_upper].to_numpy(dtype=float)
        length = float(np.linalg.norm(up - lo))
        if length < COINCIDENT_MM or not np.isfinite(length):
            continue
        d = (up - lo) / length
        out[w.name] = (lo - extension_mm * d, up + extension_mm * d)
    return out


@dataclass(frozen=True)
class CentreMarks:
    """Force-based centres of a pose as world points (mm), by wheel or by axle.

    instant: wheel -> its front-view instant centre (``fvic``) in the transverse
    plane through the wheel's contact point. roll: axle -> its roll centre, at
    the axle's mean contact-point x. Centres the metrics give as NaN (an open
    pose, a centre at infinity) are left out.
    """

    instant: dict[str, np.ndarray]
    roll: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.instant) + len(self.roll)


def centre_marks(pose: Pose) -> CentreMarks:
    """The front-view instant centres and roll centres of `pose` (world mm), from
    `suspension_sim.metrics.pose_metrics` (docs/conventions.md, "Roll centre")."""
    from suspension_sim.description import wheel_layout
    from suspension_sim.metrics import pose_metrics

    values = pose_metrics(pose, convention="iso")

    def get(column: str) -> float:
        return float(values.get(column, math.nan))

    car = pose.model.car
    instant: dict[str, np.ndarray] = {}
    contact_x: dict[str, float] = {}
    for w in car.wheels:
        contact_x[w.name] = get(f"contact_point_{w.name}_x_mm")
        p = np.array([contact_x[w.name], get(f"fvic_{w.name}_y_mm"), get(f"fvic_{w.name}_z_mm")])
        if np.isfinite(p).all():
            instant[w.name] = p
    roll: dict[str, np.ndarray] = {}
    if not car.wheels:
        return CentreMarks(instant, roll)
    T = pose.chassis_transform
    e, t = T[:3, 1], T[:3, 3]  # the chassis y axis and origin in the world
    for axle, (left, right) in wheel_layout(car).axles.items():
        x = 0.5 * (contact_x[left] + contact_x[right])
        h = get(f"roll_centre_height_{axle}_mm")
        lateral = get(f"roll_centre_lateral_{axle}_mm")
        if not (np.isfinite([x, h, lateral]).all() and abs(e[1]) > COLLINEAR_RATIO):
            continue
        # world y such that the point's chassis-frame y is `lateral` (exact without yaw)
        y = t[1] + (lateral - e[0] * (x - t[0]) - e[2] * (h - t[2])) / e[1]
        roll[axle] = np.array([x, y, h])
    return CentreMarks(instant, roll)
