"""pyvista meshes of the shapes in `suspension_sim.viz.geometry` (world mm).

Every builder takes the pyvista module as its first argument (`pv`, from
`suspension_sim.viz.probe.import_pyvista`, after the rendering probe passed),
so importing this module never imports pyvista. Builders return None when
there is nothing to draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from suspension_sim.tolerances import COINCIDENT_MM
from suspension_sim.viz.geometry import (
    BodyShape,
    Segment,
    damper_shape,
    ground_grid,
    tyre_surface,
)

TUBE_SIDES = 20
SPHERE_RESOLUTION = (20, 14)
"""Sphere glyph resolution: around (theta) and pole to pole (phi)."""
WHEEL_RESOLUTION = 72
TYRE_PROFILE = 24
"""Points around a tyre's cross-section."""
SPRING_SIDES = 10
"""Sides of the tube drawing a coil spring's wire."""
RIM_RATIO = 0.62
"""Rim radius over tyre radius (the rim barrel and the hub face)."""
HUB_HOLE_RATIO = 0.18
"""Hole in the hub face over tyre radius."""


@dataclass(frozen=True)
class MeshDetail:
    """How finely the round shapes are cut into facets: spheres (around, pole to pole),
    wheels (around their axle), the tyre's cross-section, and the coil springs' wire
    (sides around it, points along the coil; None: every sample of the helix)."""

    sphere: tuple[int, int] = SPHERE_RESOLUTION
    wheel: int = WHEEL_RESOLUTION
    tyre_profile: int = TYRE_PROFILE
    spring_sides: int = SPRING_SIDES
    spring_points: int | None = None


FINE = MeshDetail()
"""`view`'s pictures and animations."""
LIGHT = MeshDetail(sphere=(12, 8), wheel=48, tyre_profile=16, spring_sides=6, spring_points=140)
"""The studio's view: 60 % fewer vertices for the same look at its size (a joint's
sphere is ~10 px across, a tyre ~200 px, a spring's wire ~3 px); software GL pays for
every vertex each frame."""


def tube(pv: Any, a: np.ndarray, b: np.ndarray, radius: float, sides: int = TUBE_SIDES) -> Any:
    """A capped tube from a to b (mm)."""
    return pv.Line(a, b).tube(radius=radius, n_sides=sides, capping=True)


def tubes(pv: Any, segments: Sequence[Segment], radius: float) -> Any:
    """One mesh of capped tubes along `segments` (zero-length ones skipped); None if none."""
    meshes = [
        tube(pv, a, b, radius)
        for a, b in segments
        if np.linalg.norm(np.subtract(b, a)) > COINCIDENT_MM
    ]
    return pv.merge(meshes) if meshes else None


def spheres(
    pv: Any, centres: np.ndarray, radius: float, resolution: tuple[int, int] = SPHERE_RESOLUTION
) -> Any:
    """One mesh of spheres of `radius` at each centre (mm), each with the same number of
    vertices, in the order of the centres; None if no centre."""
    if len(centres) == 0:
        return None
    theta, phi = resolution
    glyph = pv.Sphere(radius=radius, theta_resolution=theta, phi_resolution=phi)
    return pv.PolyData(np.asarray(centres, dtype=float)).glyph(
        geom=glyph, scale=False, orient=False
    )


def body_meshes(
    pv: Any, shape: BodyShape, link_r: float, detail: MeshDetail = FINE
) -> list[tuple[Any, float]]:
    """Meshes (and their opacity) that draw one rigid body; `link_r` is the tube radius (mm)."""
    if shape.kind == "point":
        return [(spheres(pv, shape.points[:1], 1.2 * link_r, detail.sphere), 1.0)]
    if shape.kind == "line":
        assert shape.ends is not None
        return [(tube(pv, *shape.ends, link_r), 1.0)]
    pts = shape.points
    if shape.triangles is not None:
        tri = np.hstack([np.full((len(shape.triangles), 1), 3), shape.triangles]).ravel()
        surf = pv.PolyData(pts, faces=tri).clean()
    else:
        order = shape.outline_order
        assert order is not None
        surf = pv.PolyData(pts, faces=np.concatenate([[len(order)], order])).triangulate()
    surf = surf.compute_normals(auto_orient_normals=shape.kind == "solid", split_vertices=True)
    if shape.flat:  # a wishbone-like plate: tube outline and a lighter web
        return [(tubes(pv, shape.outline, 0.8 * link_r), 1.0), (surf, 0.55)]
    return [(surf, 1.0)]


def damper_meshes(
    pv: Any,
    c: np.ndarray,
    m: np.ndarray,
    design_length: float,
    link_r: float,
    detail: MeshDetail = FINE,
) -> dict[str, Any]:
    """Cylinder from chassis point c, rod from moving point m, spring between (mm)."""
    shape = damper_shape(c, m, design_length, coil_radius=2.9 * link_r)
    if shape is None:
        c1 = np.asarray(c, dtype=float)[None]
        return {"body": spheres(pv, c1, 2.2 * link_r, detail.sphere)}
    return {
        "body": tube(pv, *shape.body, 2.1 * link_r),
        "rod": tube(pv, *shape.rod, 0.75 * link_r),
        "spring": _coil(pv, shape.helix, link_r, detail),
    }


def _coil(pv: Any, helix: np.ndarray, link_r: float, detail: MeshDetail) -> Any:
    """The wire of a coil spring along `helix` (mm)."""
    points = detail.spring_points or len(helix)
    return pv.Spline(helix, points).tube(radius=0.45 * link_r, n_sides=detail.spring_sides)


def coil_mesh(
    pv: Any, a: np.ndarray, b: np.ndarray, link_r: float, detail: MeshDetail = FINE
) -> Any:
    """A coil spring between points a and b (mm): a third spring, drawn as the coil of
    a damper without its cylinder and rod; None when the ends coincide."""
    shape = damper_shape(a, b, 1.0, coil_radius=2.9 * link_r)
    if shape is None:
        return None
    return _coil(pv, shape.helix, link_r, detail)


def wheel_meshes(
    pv: Any,
    centre: np.ndarray,
    axis: np.ndarray,
    radius: float,
    width: float,
    detail: MeshDetail = FINE,
) -> dict[str, Any]:
    """Tyre, rim barrel and hub face of a wheel about `centre` along `axis` (mm)."""
    v, q = tyre_surface(
        centre, axis, radius, width, n_around=detail.wheel, n_profile=detail.tyre_profile
    )
    faces = np.hstack([np.full((len(q), 1), 4), q]).ravel()
    tyre = pv.PolyData(v, faces=faces).compute_normals(auto_orient_normals=True)
    rim_r = RIM_RATIO * radius
    sn = axis / np.linalg.norm(axis)
    rim = pv.Cylinder(
        center=centre,
        direction=sn,
        radius=rim_r,
        height=0.9 * width,
        resolution=detail.wheel,
        capping=False,
    )
    hub = pv.Disc(
        center=centre + sn * 0.25 * width,
        normal=sn,
        inner=HUB_HOLE_RATIO * radius,
        outer=rim_r,
        c_res=detail.wheel,
    )
    return {"tyre": tyre, "rim": rim, "hub": hub}


def ground_meshes(pv: Any, rect: Sequence[float]) -> tuple[Any, Any]:
    """The ground plane z = 0 over `rect` (x0, x1, y0, y1, mm) and its grid lines."""
    x0, x1, y0, y1 = rect
    plane = pv.Plane(
        center=((x0 + x1) / 2, (y0 + y1) / 2, 0.0),
        direction=(0.0, 0.0, 1.0),
        i_size=x1 - x0,
        j_size=y1 - y0,
        i_resolution=1,
        j_resolution=1,
    )
    segs = ground_grid(rect)
    if not len(segs):
        return plane, None
    lines = np.hstack([np.full((len(segs), 1), 2), np.arange(2 * len(segs)).reshape(-1, 2)])
    return plane, pv.PolyData(segs.reshape(-1, 3), lines=lines.ravel())
