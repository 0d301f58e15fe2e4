"""The 3-D view of a pose: bodies, dampers, rack, tyres, ground and joint status.

Every joined point is a sphere, green when its copies on the bodies it joins
coincide within the display tolerance, red when they do not; a red sphere
sits at *each* copy of an open joint, with a red line across the gap, so a
best-effort pose (``solve(..., on_failure="return")``) shows at a glance
which joint failed and by how much (Rowe, section 4).

Geometry, in world mm (ISO 8855, +Z up, ground z = 0):

- a body with three or more non-collinear points: its convex hull (flat or
  nearly flat bodies, e.g. wishbones, also get tubes along their outline);
- a two-point link or a collinear body: a tube;
- a damper: a thick cylinder from its chassis point and a thinner rod from
  its moving point, both of fixed length, so they telescope with the stroke,
  inside a coil spring;
- the rack: a tube between its end points;
- a wheel: a tyre of its real radius and width about the centre -> axis
  point direction, with a rim barrel and a translucent hub face;
- chassis and other unjoined hard points: small dark spheres;
- the ground: a gridded plane at z = 0 under the car.

pyvista is imported only inside the functions that draw, after the
rendering probe (`suspension_sim.viz.probe`) passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from suspension_sim.description import CHASSIS
from suspension_sim.errors import InputError, SolveError

if TYPE_CHECKING:  # pragma: no cover
    import pyvista as pv

    from suspension_sim.solve.pose import Pose

Colour = tuple[float, float, float]

CAMERAS: tuple[str, ...] = ("front", "side", "top", "iso")
"""Camera presets; all use a parallel (orthographic) projection."""

CAMERA_VIEWS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    # direction from the car towards the camera, view-up (world axes)
    "front": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),  # from ahead: the car's left is image right
    "side": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),  # from the left: nose to image left
    "top": ((0.0, 0.0, 1.0), (0.0, -1.0, 0.0)),  # from above: nose to image left, as in "side"
    "iso": ((1.0, 0.85, 0.75), (0.0, 0.0, 1.0)),  # from front-left, above
}

KIND_COLOURS: dict[str, Colour] = {
    "revolute": (0.27, 0.48, 0.72),  # wishbones, rockers: steel blue
    "universal": (0.16, 0.60, 0.58),  # two-point links on the chassis: teal
    "link5": (0.16, 0.60, 0.58),  # pushrods, tie rods: teal
    "spherical": (0.48, 0.42, 0.72),  # lavender
    "free6": (0.93, 0.70, 0.24),  # uprights, axles: amber
    "fixed": (0.55, 0.57, 0.60),  # bodies welded to the chassis: grey
    "rack": (0.50, 0.32, 0.68),  # purple
}
"""Body colour by joint class (`model.topology.joint(body).kind`)."""

DAMPER_BODY: Colour = (0.20, 0.22, 0.26)
DAMPER_ROD: Colour = (0.80, 0.82, 0.85)
DAMPER_SPRING: Colour = (0.96, 0.82, 0.16)
TYRE: Colour = (0.13, 0.13, 0.14)
RIM: Colour = (0.72, 0.74, 0.77)
POINT: Colour = (0.20, 0.20, 0.23)
JOINT_OK: Colour = (0.10, 0.72, 0.26)
JOINT_OPEN: Colour = (0.92, 0.06, 0.06)
GROUND: Colour = (0.87, 0.88, 0.89)
GRID: Colour = (0.62, 0.64, 0.67)
BACKGROUND: Colour = (1.0, 1.0, 1.0)
TEXT: Colour = (0.08, 0.08, 0.10)

REFERENCE_SIZE_MM = 2600.0
"""Scene diagonal at which the base sizes below apply (a whole FSAE car)."""
LINK_RADIUS_MM = 9.0
JOINT_RADIUS_MM = 15.0


@dataclass
class SceneInfo:
    """What `add_pose` drew: joint status and the world bounds of the geometry (mm)."""

    tolerance_mm: float
    open_joints: pd.Series  # open joined point -> gap (mm), largest first
    closed_joints: tuple[str, ...]
    bounds: tuple[float, float, float, float, float, float]
    actors: dict[str, Any] = field(default_factory=dict, repr=False)


# -- no pyvista needed ---------------------------------------------------------------
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


def pose_bounds(pose: Pose) -> tuple[float, float, float, float, float, float]:
    """World box (mm) around every point copy and every tyre, and down to the ground."""
    xyz = pose.copies.to_numpy(dtype=float)
    lo, hi = xyz.min(axis=0), xyz.max(axis=0)
    for w in pose.model.car.wheels:
        c = pose.points.loc[w.centre].to_numpy(dtype=float)
        s = pose.points.loc[w.axis_point].to_numpy(dtype=float) - c
        s = s / max(float(np.linalg.norm(s)), 1e-12)
        # half extent of a tyre (circle of radius r, width w, normal s) along each world axis
        across = np.sqrt(np.clip(1.0 - s**2, 0.0, 1.0))
        half = w.tyre_radius * across + 0.5 * w.tyre_width * np.abs(s)
        lo, hi = np.minimum(lo, c - half), np.maximum(hi, c + half)
    lo[2] = min(lo[2], 0.0)
    return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


def _union(boxes: Sequence[Sequence[float]]) -> tuple[float, float, float, float, float, float]:
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
    bounds: Sequence[float], margin: float = 0.06
) -> tuple[float, float, float, float]:
    """x0, x1, y0, y1 (mm) of the ground patch: the car's footprint plus a margin."""
    x0, x1, y0, y1 = bounds[:4]
    pad = margin * max(x1 - x0, y1 - y0, 1000.0)
    return (x0 - pad, x1 + pad, y0 - pad, y1 + pad)


def _scale(bounds: Sequence[float]) -> float:
    """Size factor for tubes and spheres: 1 for a whole car, less for a corner."""
    b = np.asarray(bounds, dtype=float)
    diag = float(np.linalg.norm(b[1::2] - b[0::2]))
    return max(diag, 800.0) / REFERENCE_SIZE_MM


def _perpendicular_basis(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    u, v = _perpendicular_basis(a)
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


def classify_shape(points: np.ndarray, rel_tol: float = 1e-6) -> str:
    """'point', 'line', 'plane' or 'solid' from the spread of a point set."""
    pts = np.asarray(points, dtype=float)
    if len(pts) < 2:
        return "point"
    s = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False)
    if s[0] < 1e-9:
        return "point"
    if len(pts) == 2 or s[1] <= rel_tol * s[0]:
        return "line"
    if len(pts) == 3 or s[2] <= rel_tol * s[0]:
        return "plane"
    return "solid"


def _hull_outline(points: np.ndarray) -> np.ndarray:
    """Indices of the 2-D convex hull of points projected on their best-fit plane, in order."""
    from scipy.spatial import ConvexHull

    c = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(c)
    flat = c @ vt[:2].T
    if len(points) == 3:
        return np.arange(3)
    return ConvexHull(flat).vertices


def _line_ends(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two extreme points of a (nearly) collinear set along its main direction."""
    c = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - c)
    t = (points - c) @ vt[0]
    return points[int(np.argmin(t))], points[int(np.argmax(t))]


# -- pyvista meshes -------------------------------------------------------------------
def _tube(pv: Any, a: np.ndarray, b: np.ndarray, radius: float, sides: int = 20) -> pv.PolyData:
    """A capped tube from a to b (mm)."""
    return pv.Line(a, b).tube(radius=radius, n_sides=sides, capping=True)


def _tubes(pv: Any, segments: Sequence[tuple[np.ndarray, np.ndarray]], radius: float) -> Any:
    meshes = [_tube(pv, a, b, radius) for a, b in segments if np.linalg.norm(b - a) > 1e-9]
    return pv.merge(meshes) if meshes else None


def _spheres(pv: Any, centres: np.ndarray, radius: float) -> Any:
    """One mesh of spheres of `radius` at each centre (mm)."""
    if len(centres) == 0:
        return None
    glyph = pv.Sphere(radius=radius, theta_resolution=20, phi_resolution=14)
    return pv.PolyData(np.asarray(centres, dtype=float)).glyph(
        geom=glyph, scale=False, orient=False
    )


def _body_meshes(pv: Any, points: np.ndarray, link_r: float) -> list[tuple[Any, float]]:
    """Meshes (and their opacity) that draw one rigid body from its point positions."""
    from scipy.spatial import ConvexHull, QhullError

    pts = np.unique(np.round(np.asarray(points, dtype=float), 9), axis=0)
    shape = classify_shape(pts)
    if shape == "point":
        return [(_spheres(pv, pts[:1], 1.2 * link_r), 1.0)]
    if shape == "line":
        a, b = _line_ends(pts)
        return [(_tube(pv, a, b, link_r), 1.0)]
    order = _hull_outline(pts)
    outline = [(pts[order[k]], pts[order[(k + 1) % len(order)]]) for k in range(len(order))]
    edges = _tubes(pv, outline, 0.8 * link_r)
    s = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False)
    surf = None
    if shape == "solid":
        try:
            hull = ConvexHull(pts)
        except QhullError:  # too thin for qhull: draw it as the plate it nearly is
            shape = "plane"
        else:
            tri = np.hstack([np.full((len(hull.simplices), 1), 3), hull.simplices]).ravel()
            surf = pv.PolyData(pts, faces=tri).clean()
    if surf is None:
        face = np.concatenate([[len(order)], order])
        surf = pv.PolyData(pts, faces=face).triangulate()
    surf = surf.compute_normals(auto_orient_normals=shape == "solid", split_vertices=True)
    flat = shape == "plane" or s[2] < 0.15 * s[1]
    if flat:  # a wishbone-like plate: tube outline and a lighter web
        return [(edges, 1.0), (surf, 0.55)]
    return [(surf, 1.0)]


def _damper_meshes(
    pv: Any, c: np.ndarray, m: np.ndarray, design_length: float, link_r: float
) -> dict[str, Any]:
    """Cylinder from chassis point c, rod from moving point m, spring between (mm)."""
    axis = m - c
    length = float(np.linalg.norm(axis))
    if length < 1e-9:
        return {"body": _spheres(pv, c[None], 2.2 * link_r)}
    d = axis / length
    body_len = 0.58 * design_length
    rod_len = 0.62 * design_length
    out = {
        "body": _tube(pv, c, c + d * min(body_len, 0.95 * length), 2.1 * link_r),
        "rod": _tube(pv, m, m - d * min(rod_len, length), 0.75 * link_r),
    }
    # a coil spring between the eye ends: a helix around the axis
    u, v = _perpendicular_basis(d)
    turns, n = 7, 280
    t = np.linspace(0.0, 1.0, n)
    r = 2.9 * link_r
    start, stop = 0.12 * length, 0.88 * length
    helix = (
        c
        + (start + (stop - start) * t)[:, None] * d
        + r * np.cos(2 * np.pi * turns * t)[:, None] * u
        + r * np.sin(2 * np.pi * turns * t)[:, None] * v
    )
    out["spring"] = pv.Spline(helix, n).tube(radius=0.45 * link_r, n_sides=10)
    return out


def _ground(pv: Any, rect: Sequence[float], grid_mm: float = 250.0) -> tuple[Any, Any]:
    """The ground plane z = 0 over `rect` and its grid lines (mm)."""
    x0, x1, y0, y1 = rect
    plane = pv.Plane(
        center=((x0 + x1) / 2, (y0 + y1) / 2, 0.0),
        direction=(0.0, 0.0, 1.0),
        i_size=x1 - x0,
        j_size=y1 - y0,
        i_resolution=1,
        j_resolution=1,
    )
    z = 0.5  # lift the grid off the plane to avoid z-fighting
    segs = []
    for x in np.arange(np.ceil(x0 / grid_mm) * grid_mm, x1, grid_mm):
        segs.append(((x, y0, z), (x, y1, z)))
    for y in np.arange(np.ceil(y0 / grid_mm) * grid_mm, y1, grid_mm):
        segs.append(((x0, y, z), (x1, y, z)))
    pts = np.array([p for s in segs for p in s], dtype=float)
    lines = np.hstack([np.full((len(segs), 1), 2), np.arange(2 * len(segs)).reshape(-1, 2)])
    grid = pv.PolyData(pts, lines=lines.ravel()) if segs else None
    return plane, grid


# -- drawing -------------------------------------------------------------------------
def add_pose(
    plotter: pv.Plotter,
    pose: Pose,
    *,
    tolerance_mm: float | None = None,
    ground: bool = True,
    ground_rect: Sequence[float] | None = None,
    annotate: bool = True,
) -> SceneInfo:
    """Add every actor of `pose` to `plotter` (world mm) and return what was drawn.

    Point names are added separately by `add_labels`, once the camera is set.
    tolerance_mm: red/green threshold; default the workbook's
    ``constraint_display_tolerance_mm`` (0.01 mm). ground_rect: x0, x1, y0, y1
    of the ground patch (animations pass one rectangle for every frame).
    annotate: car name, inputs and solve status in the top-left corner.
    """
    from suspension_sim.viz.probe import import_pyvista

    pv = import_pyvista()
    model = pose.model
    car = model.car
    tol = display_tolerance(pose, tolerance_mm)
    copies = pose.copies
    if not np.isfinite(copies.to_numpy(dtype=float)).all():
        raise SolveError(
            "the pose has non-finite point coordinates: nothing can be drawn",
            where="view",
            hint="the solver diverged; try inputs closer to the design condition",
        )
    bounds = pose_bounds(pose)
    f = _scale(bounds)
    link_r, joint_r = LINK_RADIUS_MM * f, JOINT_RADIUS_MM * f
    actors: dict[str, Any] = {}

    layers: dict[str, tuple[Colour, float, dict[str, Any], list[Any]]] = {}

    def add(layer: str, mesh: Any, colour: Colour, opacity: float = 1.0, **style: Any) -> None:
        """Collect `mesh` into `layer`; each layer becomes one actor (fast to draw)."""
        if mesh is None or mesh.n_points == 0:
            return
        layers.setdefault(layer, (colour, opacity, style, []))[3].append(mesh)

    # bodies
    damper_of = {d.body: d for d in car.dampers}
    rack_body = car.rack.body if car.rack else None
    for body in car.bodies:
        if body.name == CHASSIS:
            continue
        pts = copies.xs(body.name, level="body").to_numpy(dtype=float)
        if body.name in damper_of:
            d = damper_of[body.name]
            c = copies.loc[(d.chassis_point, body.name)].to_numpy(dtype=float)
            m = copies.loc[(d.moving_point, body.name)].to_numpy(dtype=float)
            design = float(np.linalg.norm(car.point(d.moving_point) - car.point(d.chassis_point)))
            parts = _damper_meshes(pv, c, m, design, link_r)
            add("damper:body", parts.get("body"), DAMPER_BODY, specular=0.5)
            add("damper:rod", parts.get("rod"), DAMPER_ROD, specular=0.8)
            add("damper:spring", parts.get("spring"), DAMPER_SPRING)
            continue
        if body.name == rack_body:
            a, b = _line_ends(pts) if len(pts) > 1 else (pts[0], pts[0])
            add("rack", _tube(pv, a, b, 1.3 * link_r), KIND_COLOURS["rack"])
            continue
        kind = model.topology.joint(body.name).kind
        colour = KIND_COLOURS.get(kind, KIND_COLOURS["fixed"])
        for mesh, opacity in _body_meshes(pv, pts, link_r):
            layer = f"bodies:{kind}" + (":web" if opacity < 1.0 else "")
            add(layer, mesh, colour, opacity, split_sharp_edges=True)

    # wheels
    for w in car.wheels:
        c = copies.loc[(w.centre, w.body)].to_numpy(dtype=float)
        s = copies.loc[(w.axis_point, w.body)].to_numpy(dtype=float) - c
        if np.linalg.norm(s) < 1e-9:
            continue
        v, q = tyre_surface(c, s, w.tyre_radius, w.tyre_width)
        faces = np.hstack([np.full((len(q), 1), 4), q]).ravel()
        tyre = pv.PolyData(v, faces=faces).compute_normals(auto_orient_normals=True)
        add("wheels:tyre", tyre, TYRE, specular=0.15)
        rim_r = 0.62 * w.tyre_radius
        sn = s / np.linalg.norm(s)
        rim = pv.Cylinder(
            center=c,
            direction=sn,
            radius=rim_r,
            height=0.9 * w.tyre_width,
            resolution=72,
            capping=False,
        )
        add("wheels:rim", rim, RIM, specular=0.6)
        hub = pv.Disc(
            center=c + sn * 0.25 * w.tyre_width,
            normal=sn,
            inner=0.18 * w.tyre_radius,
            outer=rim_r,
            c_res=72,
        )
        add("wheels:hub", hub, RIM, opacity=0.35, specular=0.6)

    # joints: green where closed, red at every copy where open
    status = joint_status(pose, tol)
    gaps = pose.residuals
    open_pts = [p for p in status.index if status[p]]
    closed = [p for p in status.index if not status[p]]
    point_xyz = pose.points
    if closed:
        add(
            "joints:closed",
            _spheres(pv, point_xyz.loc[closed].to_numpy(dtype=float), joint_r),
            JOINT_OK,
        )
    if open_pts:
        red = copies.loc[copies.index.get_level_values("point").isin(open_pts)]
        add(
            "joints:open",
            _spheres(pv, red.to_numpy(dtype=float), 1.45 * joint_r),
            JOINT_OPEN,
            specular=0.1,
        )
        segs = []
        for p in open_pts:
            xyz = copies.xs(p, level="point").to_numpy(dtype=float)
            segs += [(xyz[0], xyz[k]) for k in range(1, len(xyz))]
        add("joints:gaps", _tubes(pv, segs, 0.35 * joint_r), JOINT_OPEN, specular=0.1)
        halo = point_xyz.loc[open_pts].to_numpy(dtype=float)
        add(
            "joints:halo", _spheres(pv, halo, 3.2 * joint_r), JOINT_OPEN, opacity=0.22, specular=0.0
        )

    # unjoined hard points (chassis mounts, wheel centres, ...)
    joined = set(status.index)
    lone = [p for p in point_xyz.index if p not in joined]
    if lone:
        add(
            "points", _spheres(pv, point_xyz.loc[lone].to_numpy(dtype=float), 0.55 * joint_r), POINT
        )

    if ground:
        rect = ground_rect if ground_rect is not None else ground_rectangle(bounds)
        plane, grid = _ground(pv, rect)
        add("ground", plane, GROUND, specular=0.0, smooth_shading=False)
        add("ground:grid", grid, GRID, smooth_shading=False, line_width=1)
        bounds = _union([bounds, (rect[0], rect[1], rect[2], rect[3], 0.0, 0.0)])

    for layer, (colour, opacity, style, meshes) in layers.items():
        mesh = meshes[0] if len(meshes) == 1 else pv.merge(meshes)
        actors[layer] = plotter.add_mesh(
            mesh,
            color=colour,
            opacity=opacity,
            smooth_shading=style.pop("smooth_shading", True),
            specular=style.pop("specular", 0.25),
            specular_power=style.pop("specular_power", 20.0),
            name=layer,
            reset_camera=False,
            render=False,
            **style,
        )

    open_series = gaps[open_pts].sort_values(ascending=False) if open_pts else gaps.iloc[:0]
    if annotate:
        actors["title"] = plotter.add_text(
            _annotation(pose, open_series, tol),
            position="upper_left",
            font_size=_font_size(plotter),
            color=TEXT,
            name="title",
            render=False,
        )
    return SceneInfo(tol, open_series, tuple(closed), bounds, actors)


def add_labels(
    plotter: pv.Plotter, pose: Pose, info: SceneInfo, *, all_points: bool = False
) -> None:
    """Name the open joints (with their gap) and, if `all_points`, every point.

    Call after the camera is set: each label is anchored a few pixels above
    and beside its point (to the right, or to the left in the right part of
    the image), so it neither hides the red sphere it names nor runs off the
    image.
    """
    points = pose.points
    font = _font_size(plotter)
    cam = plotter.camera
    up = np.asarray(cam.up, dtype=float)
    focal = np.asarray(cam.focal_point, dtype=float)
    toward = np.asarray(cam.position, dtype=float) - focal
    right = np.cross(-toward, up)
    right /= max(np.linalg.norm(right), 1e-12)
    width_px, height_px = plotter.window_size
    mm_per_px = 2.0 * cam.parallel_scale / height_px
    open_pts = list(info.open_joints.index)
    groups: list[tuple[str, list[str], list[str], dict[str, Any]]] = []
    if all_points:
        names = [str(p) for p in points.index if p not in open_pts]
        groups.append(("labels", names, names, {"bold": False, "shape_color": (1.0, 1.0, 1.0)}))
    if open_pts:  # always named, in their own layer so no other label hides them
        texts = [f"{p}: open {gap:.3g} mm" for p, gap in info.open_joints.items()]
        groups.append(
            ("labels:open", open_pts, texts, {"bold": True, "shape_color": (1.0, 0.93, 0.93)})
        )
    for layer, names, texts, look in groups:
        xyz = points.loc[names].to_numpy(dtype=float)
        col = (xyz - focal) @ right / mm_per_px + width_px / 2.0
        on_right = col > 0.62 * width_px
        # VTK draws the label box wrongly for right-justified labels, so labels
        # on the right side stay left-justified and move left by their width.
        width = np.array([0.62 * font * len(t) + 8.0 for t in texts])
        shift_px = np.where(on_right, -(width + 0.9 * font), 0.9 * font)
        anchors = xyz + (shift_px[:, None] * right + 0.6 * font * up) * mm_per_px
        info.actors[layer] = plotter.add_point_labels(
            anchors,
            texts,
            font_size=font,
            text_color=TEXT,
            shape_opacity=0.8,
            show_points=False,
            always_visible=True,
            justification_horizontal="left",
            justification_vertical="bottom",
            name=layer,
            reset_camera=False,
            render=False,
            **look,
        )


def _font_size(plotter: pv.Plotter) -> int:
    """Label and title font size (points): the plotter's override, else from its size."""
    fixed = getattr(plotter, "_suspension_sim_font", None)
    if fixed:
        return int(fixed)
    w, h = plotter.window_size
    return max(8, round(min(w, 1.33 * h) / 100))


def _title_space(plotter: pv.Plotter, annotate: bool) -> float:
    """Fraction of the image height the four-line title needs at the top."""
    if not annotate:
        return 0.0
    return min(0.3, (4 * 1.5 * _font_size(plotter) + 10) / plotter.window_size[1])


def _annotation(pose: Pose, open_series: pd.Series, tol: float) -> str:
    """Top-left text: car, inputs, status (mm, deg)."""
    strokes = ", ".join(f"{k} {v:g}" for k, v in pose.shocks.items()) or "none"
    x, y, z, roll, pitch, yaw = pose.chassis
    lines = [
        pose.model.car.name,
        f"strokes [mm]: {strokes}   rack: {pose.rack:g} mm",
        f"chassis: x {x:g} y {y:g} z {z:g} mm, roll {roll:g} pitch {pitch:g} yaw {yaw:g} deg",
    ]
    if len(open_series):
        worst = open_series.index[0]
        lines.append(
            f"NOT closed: {len(open_series)} joint(s) open beyond {tol:g} mm "
            f"(worst {worst}, {open_series.iloc[0]:.3g} mm)"
        )
    else:
        lines.append(f"all {len(pose.residuals)} joints closed within {tol:g} mm")
    return "\n".join(lines)


def frame_camera(
    plotter: pv.Plotter,
    camera: str,
    bounds: Sequence[float] | None = None,
    *,
    margin: float = 0.05,
    reserve_top: float = 0.0,
) -> None:
    """Point the camera along a preset and fit `bounds` (mm) tightly in the window.

    Parallel projection; the box's eight corners are projected on the view
    plane, so everything inside the box is in the image with `margin` to spare.
    reserve_top: fraction of the image height kept free at the top (for the title).
    """
    if camera not in CAMERA_VIEWS:
        raise InputError(
            f"unknown camera {camera!r}", where="--camera", hint=f"one of {', '.join(CAMERAS)}"
        )
    b = np.asarray(bounds if bounds is not None else plotter.bounds, dtype=float)
    toward, up = (np.asarray(v, dtype=float) for v in CAMERA_VIEWS[camera])
    toward /= np.linalg.norm(toward)
    up = up - (up @ toward) * toward
    up /= np.linalg.norm(up)
    right = np.cross(-toward, up)
    corners = np.array([[x, y, z] for x in b[0:2] for y in b[2:4] for z in b[4:6]])
    centre = corners.mean(axis=0)
    rel = corners - centre
    px, py = rel @ right, rel @ up
    focal = centre + 0.5 * (px.max() + px.min()) * right + 0.5 * (py.max() + py.min()) * up
    width, height = float(np.ptp(px)), float(np.ptp(py))
    w_px, h_px = plotter.window_size
    aspect = w_px / h_px
    usable = 1.0 - reserve_top
    scale = max(height / (2.0 * usable), width / (2.0 * aspect), 1.0) * (1.0 + 2.0 * margin)
    # shift the view up so the picture sits in the lower `usable` part of the image
    focal = focal + reserve_top * scale * up
    distance = 4.0 * float(np.linalg.norm(b[1::2] - b[0::2]) + 1.0)
    cam = plotter.camera
    plotter.enable_parallel_projection()
    cam.focal_point = tuple(focal)
    cam.position = tuple(focal + distance * toward)
    cam.up = tuple(up)
    cam.parallel_scale = scale
    plotter.renderer.ResetCameraClippingRange()


def scene_info(plotter: pv.Plotter) -> SceneInfo:
    """What `build_scene` drew on this plotter (joint status, bounds, actors)."""
    return plotter._suspension_sim_scene  # type: ignore[no-any-return]


def world_to_pixel(plotter: pv.Plotter, xyz: np.ndarray | Sequence[float]) -> np.ndarray:
    """Image (column, row) of world points (mm), row 0 at the top, as in a screenshot."""
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


def _new_plotter(pv: Any, size: Sequence[int], off_screen: bool) -> pv.Plotter:
    """A white-background plotter with neutral (not warm) lights."""
    plotter = pv.Plotter(
        off_screen=off_screen, window_size=[int(size[0]), int(size[1])], lighting="three lights"
    )
    plotter.set_background(BACKGROUND)
    return plotter


def build_scene(
    pose: Pose,
    *,
    labels: bool = False,
    tolerance_mm: float | None = None,
    camera: str = "iso",
    size: tuple[int, int] = (1200, 900),
    off_screen: bool | None = None,
    annotate: bool = True,
    ground: bool = True,
    anti_aliasing: str | None = "ssaa",
    focus: str = "car",
    font_size: int | None = None,
) -> pv.Plotter:
    """A plotter showing `pose` from a camera preset (see `add_pose` for the options).

    off_screen: None = off-screen unless a display exists. Call ``.show()``
    for a window or ``.screenshot(path)`` for an image, then ``.close()``.
    focus: "car" frames the whole car; "open" frames the bodies around the
    open joints (the whole car when every joint is closed). font_size: points
    for the title and labels (default: from the window size).
    """
    if focus not in ("car", "open"):
        raise InputError(f"unknown focus {focus!r}", where="--focus", hint="car or open")
    from suspension_sim.viz.probe import has_display, import_pyvista

    pv = import_pyvista()
    if off_screen is None:
        off_screen = not has_display()
    plotter = _new_plotter(pv, size, off_screen)
    plotter._suspension_sim_font = font_size  # private names are allowed on a Plotter
    info = add_pose(plotter, pose, tolerance_mm=tolerance_mm, ground=ground, annotate=annotate)
    plotter._suspension_sim_scene = info  # private names are allowed on a Plotter
    if anti_aliasing:
        plotter.enable_anti_aliasing(anti_aliasing)  # type: ignore[arg-type]
    box = open_joint_bounds(pose, info) if focus == "open" else None
    reserve = _title_space(plotter, annotate)
    frame_camera(plotter, camera, box if box is not None else info.bounds, reserve_top=reserve)
    add_labels(plotter, pose, info, all_points=labels)
    return plotter


def open_joint_bounds(
    pose: Pose, info: SceneInfo, pad: float = 0.15
) -> tuple[float, float, float, float, float, float] | None:
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
    margin = pad * float(np.max(hi - lo)) + 40.0
    return (
        lo[0] - margin,
        hi[0] + margin,
        lo[1] - margin,
        hi[1] + margin,
        lo[2] - margin,
        hi[2] + margin,
    )


def render_image(
    pose: Pose,
    path: str | Path | None = None,
    *,
    camera: str = "iso",
    size: tuple[int, int] = (1200, 900),
    labels: bool = False,
    tolerance_mm: float | None = None,
    annotate: bool = True,
    ground: bool = True,
    focus: str = "car",
    font_size: int | None = None,
) -> np.ndarray:
    """Render `pose` off-screen; write a PNG/JPEG to `path` if given. Returns RGB (h, w, 3)."""
    plotter = build_scene(
        pose,
        focus=focus,
        font_size=font_size,
        labels=labels,
        tolerance_mm=tolerance_mm,
        camera=camera,
        size=size,
        off_screen=True,
        annotate=annotate,
        ground=ground,
    )
    try:
        img = plotter.screenshot(str(path) if path is not None else None, return_img=True)
    finally:
        plotter.close()
    return np.asarray(img)


ANIMATION_SUFFIXES = (".gif", ".mp4")


def check_animation_path(path: str | Path) -> Path:
    """The output path if its format can be written here, else an `InputError`."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in ANIMATION_SUFFIXES:
        raise InputError(
            f"cannot write an animation as {suffix or 'a file without extension'!r}",
            where="--animate",
            hint="name the output .gif or .mp4",
        )
    if suffix == ".mp4":
        try:
            import imageio_ffmpeg  # noqa: F401
        except ImportError:
            raise InputError(
                "writing MP4 needs the optional package imageio-ffmpeg (it bundles ffmpeg)",
                where="--animate",
                hint="pip install imageio-ffmpeg (or pip install 'suspension-sim[mp4]'), "
                "or write a .gif instead",
            ) from None
    if not p.parent.exists():
        raise InputError(f"folder {p.parent} does not exist", where="--animate")
    if p.is_dir():
        raise InputError(f"{p} is a folder", where="--animate", hint="give a file name")
    return p


def animate(
    poses: Sequence[Pose],
    path: str | Path,
    *,
    camera: str = "iso",
    size: tuple[int, int] = (800, 600),
    fps: float = 12.0,
    labels: bool = False,
    tolerance_mm: float | None = None,
    annotate: bool = True,
) -> Path:
    """Write one frame per pose to a GIF or MP4 (by suffix); fixed camera and ground.

    GIF needs imageio (a dependency); MP4 needs imageio-ffmpeg (optional) and
    pads the frame height to a multiple of 16.
    """
    if not poses:
        raise InputError("no poses to animate", where="--sweep")
    out = check_animation_path(path)
    from suspension_sim.viz.probe import import_pyvista

    pv = import_pyvista()
    bounds = _union([pose_bounds(p) for p in poses])
    rect = ground_rectangle(bounds)
    frame_box = _union([bounds, (rect[0], rect[1], rect[2], rect[3], 0.0, 0.0)])
    plotter = _new_plotter(pv, size, True)
    try:
        if out.suffix.lower() == ".gif":
            plotter.open_gif(str(out), fps=fps)
        else:
            plotter.open_movie(str(out), framerate=max(1, round(fps)))
        for pose in poses:
            plotter.clear_actors()
            info = add_pose(
                plotter, pose, tolerance_mm=tolerance_mm, ground_rect=rect, annotate=annotate
            )
            frame_camera(plotter, camera, frame_box, reserve_top=_title_space(plotter, annotate))
            add_labels(plotter, pose, info, all_points=labels)
            plotter.write_frame()
    finally:
        plotter.close()
    return out
