"""Camera presets and framing of the 3-D view (world mm, ISO 8855: +X forward, +Y left, +Z up).

Every preset uses a parallel (orthographic) projection and fits a world box
tightly in the window, leaving room at the top for the title. Nothing here
imports pyvista: the functions act on a plotter made elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pyvista as pv

CAMERAS: tuple[str, ...] = ("front", "side", "top", "iso")
"""Camera presets; all use a parallel (orthographic) projection."""

CAMERA_VIEWS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    # direction from the car towards the camera, view-up (world axes)
    "front": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),  # from ahead: the car's left is image right
    "side": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),  # from the left: nose to image left
    "top": ((0.0, 0.0, 1.0), (0.0, -1.0, 0.0)),  # from above: nose to image left, as in "side"
    "iso": ((1.0, 0.85, 0.75), (0.0, 0.0, 1.0)),  # from front-left, above
}

FRAME_MARGIN = 0.05
"""Fraction of the image left free around the framed box."""
TITLE_LINES = 4
MAX_TITLE_SPACE = 0.3
"""The title never takes more than this fraction of the image height."""
MIN_FONT_PT = 8


def font_points(plotter: pv.Plotter) -> int:
    """Label and title font size (points): the plotter's override, else from its size."""
    fixed = getattr(plotter, "_suspension_sim_font", None)
    if fixed:
        return int(fixed)
    w, h = plotter.window_size
    return max(MIN_FONT_PT, round(min(w, 1.33 * h) / 100))


def title_space(plotter: pv.Plotter, annotate: bool) -> float:
    """Fraction of the image height the four-line title needs at the top."""
    if not annotate:
        return 0.0
    need = (TITLE_LINES * 1.5 * font_points(plotter) + 10) / plotter.window_size[1]
    return min(MAX_TITLE_SPACE, need)


def frame_camera(
    plotter: pv.Plotter,
    camera: str,
    bounds: Sequence[float] | None = None,
    *,
    margin: float = FRAME_MARGIN,
    reserve_top: float = 0.0,
) -> None:
    """Point the camera along a preset and fit `bounds` (mm) tightly in the window.

    Parallel projection; the box's eight corners are projected on the view
    plane, so everything inside the box is in the image with `margin` to spare.
    reserve_top: fraction of the image height kept free at the top (for the title).
    """
    if camera not in CAMERA_VIEWS:
        raise InputError(
            f"unknown camera {camera!r}", where="camera", hint=f"one of {', '.join(CAMERAS)}"
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
    plotter.enable_parallel_projection()  # type: ignore[call-arg]  # pyvista decorator typing
    cam.focal_point = tuple(focal)
    cam.position = tuple(focal + distance * toward)
    cam.up = tuple(up)
    cam.parallel_scale = scale
    plotter.renderer.ResetCameraClippingRange()
