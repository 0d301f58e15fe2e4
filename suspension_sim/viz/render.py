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

View aids, each optional: tyres can be left out (``tyres=False``); each
wheel's kingpin axis can be drawn as a magenta line through its kingpin
points, extended beyond both (``kingpin=True``); the force-based front-view
instant centres (orange) and roll centres (blue) can be marked with spheres
and a legend (``centres=True``).

The shapes are computed in `suspension_sim.viz.geometry`, meshed in
`suspension_sim.viz.meshes` and framed by `suspension_sim.viz.camera`.
pyvista is imported only inside the functions that draw, after the
rendering probe (`suspension_sim.viz.probe`) passed. Files (images,
animations) are written atomically (`suspension_sim.files`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from suspension_sim.description import CHASSIS
from suspension_sim.errors import InputError, SolveError
from suspension_sim.files import atomic_path
from suspension_sim.tolerances import COINCIDENT_MM, NORM_FLOOR_MM
from suspension_sim.viz.camera import font_points, frame_camera, title_space
from suspension_sim.viz.geometry import (
    Bounds,
    SceneInfo,
    body_shape,
    centre_marks,
    display_tolerance,
    ground_rectangle,
    joint_status,
    kingpin_segments,
    line_ends,
    open_joint_bounds,
    pose_bounds,
    scene_scale,
    union_bounds,
    with_ground,
)
from suspension_sim.viz.meshes import (
    FINE,
    MeshDetail,
    body_meshes,
    coil_mesh,
    damper_meshes,
    ground_meshes,
    spheres,
    tube,
    tubes,
    wheel_meshes,
)

if TYPE_CHECKING:  # pragma: no cover
    import pyvista as pv

    from suspension_sim.solve.pose import Pose

Colour = tuple[float, float, float]

KIND_COLOURS: dict[str, Colour] = {
    "revolute": (0.27, 0.48, 0.72),  # wishbones, rockers: steel blue
    "universal": (0.16, 0.60, 0.58),  # two-point links on the chassis: teal
    "link5": (0.16, 0.60, 0.58),  # pushrods, tie rods: teal
    "spherical": (0.48, 0.42, 0.72),  # lavender
    "tbar": (0.48, 0.42, 0.72),  # T-bar levers (anti-roll bars): lavender
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
KINGPIN: Colour = (0.90, 0.05, 0.62)
"""Kingpin (steering) axes: magenta."""
INSTANT_CENTRE: Colour = (1.0, 0.45, 0.0)
"""Front-view instant centres: orange."""
ROLL_CENTRE: Colour = (0.10, 0.22, 0.95)
"""Roll centres: blue."""

LINK_RADIUS_MM = 9.0
JOINT_RADIUS_MM = 15.0
"""Tube and joint-sphere radii for a whole car (`geometry.REFERENCE_SIZE_MM`), scaled with it."""
KINGPIN_RADIUS = 0.6
CENTRE_RADIUS = 1.5
"""Kingpin-axis tube radius over the link radius; centre-sphere radius over the joint radius."""

IMAGE_SUFFIXES: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
"""Image formats a screenshot can be written in (from the file's suffix)."""
ANIMATION_SUFFIXES: tuple[str, ...] = (".gif", ".mp4")


# -- drawing -------------------------------------------------------------------------
def _xyz(table: pd.DataFrame, key: tuple[str, str]) -> np.ndarray:
    """x, y, z (mm) of one row of a point-copies table, by (point, body)."""
    return np.asarray(table.loc[key], dtype=float)


def add_pose(
    plotter: pv.Plotter,
    pose: Pose,
    *,
    tolerance_mm: float | None = None,
    ground: bool = True,
    ground_rect: Sequence[float] | None = None,
    annotate: bool = True,
    tyres: bool = True,
    kingpin: bool = False,
    centres: bool = False,
    detail: MeshDetail = FINE,
) -> SceneInfo:
    """Add every actor of `pose` to `plotter` (world mm) and return what was drawn.

    Point names are added separately by `add_labels`, once the camera is set.
    tolerance_mm: red/green threshold; default the workbook's
    ``constraint_display_tolerance_mm`` (0.01 mm). ground_rect: x0, x1, y0, y1
    of the ground patch (animations pass one rectangle for every frame).
    annotate: car name, inputs and solve status in the top-left corner.
    tyres: draw the tyres, rims and hubs. kingpin: draw each wheel's kingpin axis
    (`geometry.kingpin_segments`). centres: mark the front-view instant centres and
    roll centres (`geometry.centre_marks`), with a legend. detail: the facets of round
    shapes (`meshes.FINE`; the studio draws `meshes.LIGHT`).
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
    f = scene_scale(bounds)
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
            c = _xyz(copies, (d.chassis_point, body.name))
            m = _xyz(copies, (d.moving_point, body.name))
            parts = damper_meshes(pv, c, m, car.damper_design_length(d), link_r, detail)
            add("damper:body", parts.get("body"), DAMPER_BODY, specular=0.5)
            add("damper:rod", parts.get("rod"), DAMPER_ROD, specular=0.8)
            add("damper:spring", parts.get("spring"), DAMPER_SPRING)
            continue
        if body.name == rack_body:
            a, b = line_ends(pts) if len(pts) > 1 else (pts[0], pts[0])
            add("rack", tube(pv, a, b, 1.3 * link_r), KIND_COLOURS["rack"])
            continue
        kind = model.topology.joint(body.name).kind
        colour = KIND_COLOURS.get(kind, KIND_COLOURS["fixed"])
        for mesh, opacity in body_meshes(pv, body_shape(pts), link_r, detail):
            layer = f"bodies:{kind}" + (":web" if opacity < 1.0 else "")
            add(layer, mesh, colour, opacity, split_sharp_edges=True)

    # third springs: a coil between their ends (not bodies)
    for t in car.third_springs:
        ends = pose.points.loc[list(t.end_points)].to_numpy(dtype=float)
        coil = coil_mesh(pv, ends[0], ends[1], link_r, detail)
        add("third springs", coil, DAMPER_SPRING)

    # wheels
    for w in car.wheels if tyres else ():
        c = _xyz(copies, (w.centre, w.body))
        s = _xyz(copies, (w.axis_point, w.body)) - c
        if np.linalg.norm(s) < COINCIDENT_MM:
            continue
        wheel = wheel_meshes(pv, c, s, w.tyre_radius, w.tyre_width, detail)
        add("wheels:tyre", wheel["tyre"], TYRE, specular=0.15)
        add("wheels:rim", wheel["rim"], RIM, specular=0.6)
        add("wheels:hub", wheel["hub"], RIM, opacity=0.35, specular=0.6)

    # joints: green where closed, red at every copy where open
    status = joint_status(pose, tol)
    gaps = pose.residuals
    open_pts = [p for p in status.index if status[p]]
    closed = [p for p in status.index if not status[p]]
    point_xyz = pose.points
    if closed:
        add(
            "joints:closed",
            spheres(pv, point_xyz.loc[closed].to_numpy(dtype=float), joint_r, detail.sphere),
            JOINT_OK,
        )
    if open_pts:
        red = copies.loc[copies.index.get_level_values("point").isin(open_pts)]
        add(
            "joints:open",
            spheres(pv, red.to_numpy(dtype=float), 1.45 * joint_r, detail.sphere),
            JOINT_OPEN,
            specular=0.1,
        )
        segs = []
        for p in open_pts:
            xyz = copies.xs(p, level="point").to_numpy(dtype=float)
            segs += [(xyz[0], xyz[k]) for k in range(1, len(xyz))]
        add("joints:gaps", tubes(pv, segs, 0.35 * joint_r), JOINT_OPEN, specular=0.1)
        halo = point_xyz.loc[open_pts].to_numpy(dtype=float)
        halos = spheres(pv, halo, 3.2 * joint_r, detail.sphere)
        add("joints:halo", halos, JOINT_OPEN, opacity=0.22, specular=0.0)

    # unjoined hard points (chassis mounts, wheel centres, ...)
    joined = set(status.index)
    lone = [p for p in point_xyz.index if p not in joined]
    if lone:
        lone_xyz = point_xyz.loc[lone].to_numpy(dtype=float)
        add("points", spheres(pv, lone_xyz, 0.55 * joint_r, detail.sphere), POINT)

    # view aids
    if kingpin:
        axes = list(kingpin_segments(pose).values())
        add("kingpin", tubes(pv, axes, KINGPIN_RADIUS * link_r), KINGPIN, specular=0.1)
    legend: list[tuple[str, Colour]] = []
    if centres:
        marks = centre_marks(pose)
        for layer, found, colour, text in (
            ("centres:instant", marks.instant, INSTANT_CENTRE, "instant centre (front view)"),
            ("centres:roll", marks.roll, ROLL_CENTRE, "roll centre"),
        ):
            if found:
                xyz = np.array(list(found.values()), dtype=float)
                marks_mesh = spheres(pv, xyz, CENTRE_RADIUS * joint_r, detail.sphere)
                add(layer, marks_mesh, colour, specular=0.1)
                legend.append((text, colour))
                bounds = _framing_centres(bounds, xyz)

    if ground:
        rect = ground_rect if ground_rect is not None else ground_rectangle(bounds)
        plane, grid = ground_meshes(pv, rect)
        add("ground", plane, GROUND, specular=0.0, smooth_shading=False)
        add("ground:grid", grid, GRID, smooth_shading=False, line_width=1)
        bounds = with_ground(bounds, rect)

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

    if legend:
        add_legend: Any = plotter.add_legend  # pyvista's decorator confuses mypy
        actors["legend"] = add_legend(
            [[text, colour] for text, colour in legend],
            bcolor=BACKGROUND,
            border=True,
            loc="lower left",
            face="circle",
            size=(0.3, 0.03 * (len(legend) + 1)),
        )
    open_series = gaps[open_pts].sort_values(ascending=False) if open_pts else gaps.iloc[:0]
    if annotate:
        actors["title"] = plotter.add_text(
            annotation(pose, open_series, tol),
            position="upper_left",
            font_size=font_points(plotter),
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
    font = font_points(plotter)
    cam = plotter.camera
    up = np.asarray(cam.up, dtype=float)
    focal = np.asarray(cam.focal_point, dtype=float)
    toward = np.asarray(cam.position, dtype=float) - focal
    right = np.cross(-toward, up)
    right /= max(np.linalg.norm(right), NORM_FLOOR_MM)
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


def annotation(pose: Pose, open_series: pd.Series, tol: float) -> str:
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


# -- scenes ----------------------------------------------------------------------------
def scene_info(plotter: pv.Plotter) -> SceneInfo:
    """What `build_scene` drew on this plotter (joint status, bounds, actors)."""
    info: SceneInfo = plotter._suspension_sim_scene
    return info


def new_plotter(pv: Any, size: Sequence[int], off_screen: bool) -> pv.Plotter:
    """A white-background plotter with neutral (not warm) lights; `size` in pixels."""
    plotter = pv.Plotter(
        off_screen=off_screen, window_size=[int(size[0]), int(size[1])], lighting="three lights"
    )
    plotter.set_background(BACKGROUND)
    return plotter


def _framing_centres(bounds: Bounds, xyz: np.ndarray) -> Bounds:
    """`bounds` grown to hold the centres within one car size of the car (a swing arm of a
    few metres is framed; a centre near infinity would shrink the car to a dot)."""
    lo, hi = np.array(bounds[0::2]), np.array(bounds[1::2])
    reach = float(np.max(hi - lo))
    near = xyz[np.all((xyz > lo - reach) & (xyz < hi + reach), axis=1)]
    boxes = [bounds, *((p[0], p[0], p[1], p[1], p[2], p[2]) for p in near)]
    return union_bounds(boxes)


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
    tyres: bool = True,
    kingpin: bool = False,
    centres: bool = False,
) -> pv.Plotter:
    """A plotter showing `pose` from a camera preset (see `add_pose` for the options).

    off_screen: None = off-screen unless a display exists. Call ``.show()``
    for a window or `save_screenshot` for an image, then ``.close()``.
    focus: "car" frames the whole car; "open" frames the bodies around the
    open joints (the whole car when every joint is closed). font_size: points
    for the title and labels (default: from the window size).
    """
    if focus not in ("car", "open"):
        raise InputError(f"unknown focus {focus!r}", where="focus", hint="car or open")
    from suspension_sim.viz.probe import has_display, import_pyvista

    pv = import_pyvista()
    if off_screen is None:
        off_screen = not has_display()
    plotter = new_plotter(pv, size, off_screen)
    plotter._suspension_sim_font = font_size  # private names are allowed on a Plotter
    info = add_pose(
        plotter,
        pose,
        tolerance_mm=tolerance_mm,
        ground=ground,
        annotate=annotate,
        tyres=tyres,
        kingpin=kingpin,
        centres=centres,
    )
    plotter._suspension_sim_scene = info  # private names are allowed on a Plotter
    if anti_aliasing:
        plotter.enable_anti_aliasing(anti_aliasing)  # type: ignore[arg-type]
    box = open_joint_bounds(pose, info) if focus == "open" else None
    reserve = title_space(plotter, annotate)
    frame_camera(plotter, camera, box if box is not None else info.bounds, reserve_top=reserve)
    add_labels(plotter, pose, info, all_points=labels)
    return plotter


# -- files -----------------------------------------------------------------------------
def save_screenshot(
    plotter: pv.Plotter, path: str | Path, *, where: str = "path"
) -> tuple[Path, np.ndarray]:
    """Write the plotter's image to `path` atomically; returns the file and the RGB image.

    The format follows the suffix (png, jpg, bmp, tif; none = png, appended).
    An unwritable file is an `InputError` naming `where` (the parameter or option).
    """
    target = Path(path)
    if not target.suffix:
        target = target.with_suffix(".png")
    suffix = target.suffix.lower()
    if suffix not in IMAGE_SUFFIXES:
        raise InputError(
            f"cannot write an image as {suffix!r}",
            where=where,
            hint="name the image .png (or .jpg, .bmp, .tif)",
        )
    try:
        with atomic_path(target, suffix=suffix) as tmp:
            img = plotter.screenshot(str(tmp), return_img=True)
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror or exc}", where=where) from None
    return target, np.asarray(img)


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
    tyres: bool = True,
    kingpin: bool = False,
    centres: bool = False,
) -> np.ndarray:
    """Render `pose` off-screen; write a PNG/JPEG to `path` if given. Returns RGB (h, w, 3).

    tyres, kingpin, centres: the view aids of `add_pose`.
    """
    plotter = build_scene(
        pose,
        tyres=tyres,
        kingpin=kingpin,
        centres=centres,
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
        if path is None:
            img = np.asarray(plotter.screenshot(None, return_img=True))
        else:
            _, img = save_screenshot(plotter, path)
    finally:
        plotter.close()
    return img


def check_animation_path(path: str | Path) -> Path:
    """The output path if its format can be written here, else an `InputError`."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in ANIMATION_SUFFIXES:
        raise InputError(
            f"cannot write an animation as {suffix or 'a file without extension'!r}",
            where="path",
            hint="name the output .gif or .mp4",
        )
    if suffix == ".mp4":
        try:
            import imageio_ffmpeg  # noqa: F401
        except ImportError:
            raise InputError(
                "writing MP4 needs the optional package imageio-ffmpeg (it bundles ffmpeg)",
                where="path",
                hint="pip install imageio-ffmpeg (or pip install 'suspension-sim[mp4]'), "
                "or write a .gif instead",
            ) from None
    if not p.parent.exists():
        raise InputError(f"folder {p.parent} does not exist", where="path")
    if p.is_dir():
        raise InputError(f"{p} is a folder", where="path", hint="give a file name")
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
    tyres: bool = True,
    kingpin: bool = False,
    centres: bool = False,
) -> Path:
    """Write one frame per pose to a GIF or MP4 (by suffix); fixed camera and ground.

    tyres, kingpin, centres: the view aids of `add_pose`, on every frame.

    GIF needs imageio (a dependency); MP4 needs imageio-ffmpeg (optional) and
    pads the frame height to a multiple of 16. The file appears only once
    every frame is written (atomically).
    """
    if not poses:
        raise InputError("no poses to animate", where="poses")
    out = check_animation_path(path)
    suffix = out.suffix.lower()
    from suspension_sim.viz.probe import import_pyvista

    pv = import_pyvista()
    bounds = union_bounds([pose_bounds(p) for p in poses])
    rect = ground_rectangle(bounds)
    frame_box = with_ground(bounds, rect)
    try:
        with atomic_path(out, suffix=suffix) as tmp:
            plotter = new_plotter(pv, size, True)
            try:
                if suffix == ".gif":
                    plotter.open_gif(str(tmp), fps=fps)
                else:
                    plotter.open_movie(str(tmp), framerate=max(1, round(fps)))
                for pose in poses:
                    plotter.clear_actors()
                    info = add_pose(
                        plotter,
                        pose,
                        tolerance_mm=tolerance_mm,
                        ground_rect=rect,
                        annotate=annotate,
                        tyres=tyres,
                        kingpin=kingpin,
                        centres=centres,
                    )
                    reserve = title_space(plotter, annotate)
                    frame_camera(plotter, camera, frame_box, reserve_top=reserve)
                    add_labels(plotter, pose, info, all_points=labels)
                    plotter.write_frame()
                writer, plotter.mwriter = plotter.mwriter, None
                if writer is not None:  # finish the file here: close() would hide an error
                    writer.close()
            finally:
                plotter.close()
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}", where="path") from None
    return out
