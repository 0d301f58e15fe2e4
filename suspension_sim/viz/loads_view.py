"""The 3-D view of one load case: members coloured by axial force, contact-patch loads as arrows.

Every member of `LoadResult.members()` (two-point links, dampers and each
wishbone leg, pivot to ball joint) is drawn as a tube whose colour is its
axial force on a diverging colormap centred on zero, with symmetric limits at
the case's largest |force| (+ = tension, red; - = compression, blue: the
colours of the bar chart, `suspension_sim.loads.colours`). The
rest of the car is drawn by `suspension_sim.viz.render.build_scene` and then
greyed, so only the forces carry colour; the applied contact-patch loads are
dark green arrows, longest for the largest load, each named with its
magnitude. World mm, N (docs/loads.md, "3-D view of member forces").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.loads.colours import axial_colormap
from suspension_sim.tolerances import COINCIDENT_MM
from suspension_sim.viz.camera import MIN_FONT_PT, font_points
from suspension_sim.viz.geometry import scene_scale
from suspension_sim.viz.meshes import tube
from suspension_sim.viz.render import LINK_RADIUS_MM, TEXT, build_scene, save_screenshot

if TYPE_CHECKING:  # pragma: no cover
    import pyvista as pv

    from suspension_sim.loads.result import LoadResult
    from suspension_sim.solve.pose import Pose

Colour = tuple[float, float, float]

SCALAR_TITLE = "axial force [N], + tension / - compression"
SCALARS = "axial_N"
"""Name of the per-point scalar array on the member meshes (N, + = tension)."""
MEMBER_RADIUS = 1.6
DAMPER_RADIUS = 2.4
"""Member tube radius over the view's link radius (dampers: wide enough to cover the body)."""
GREY: Colour = (0.70, 0.71, 0.73)
JOINT_GREY: Colour = (0.45, 0.46, 0.49)
ARROW: Colour = (0.0, 0.50, 0.18)
ARROW_MM = 450.0
"""Length of the largest contact-patch arrow for a whole car (scaled with the scene)."""
TYRE_OPACITY = 0.3
"""Tyres are see-through so the arrows from the contact patches show."""
GREYED = ("bodies:", "rack", "damper:", "points", "joints:closed", "wheels:rim", "wheels:hub")
"""Layers of the pose view drawn grey here (by name prefix)."""
PATCH = " contact patch (applied)"
"""Suffix of the contact-patch rows of `LoadResult.table` (after the wheel name)."""


@dataclass
class MemberScene:
    """What `build_member_scene` drew: the plotter and the meshes behind the colours.

    members: member name -> its tube, whose point array ``axial_N`` holds its
    axial force (N, + = tension) at every point; limit: the colour range is
    [-limit, +limit] N; arrows: wheel -> (contact point mm, force N, world).
    """

    plotter: pv.Plotter
    case: str
    members: dict[str, Any]
    forces: dict[str, float]
    limit: float
    arrows: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    actors: dict[str, Any] = field(default_factory=dict, repr=False)


def member_segments(pose: Pose) -> dict[str, tuple[np.ndarray, np.ndarray, bool]]:
    """Member name (as in `LoadResult.members()`) -> its two ends (world mm) and
    whether it is a damper. Two-point links and dampers run between their two joined
    points; a wishbone leg from its pivot to the arm's ball joint (docs/loads.md)."""
    from suspension_sim.loads.statics import load_layout

    model = pose.model
    lay = load_layout(model)
    copies = pose.copies

    def xyz(i: int) -> np.ndarray:
        return np.asarray(
            copies.loc[(model.inst_point[i], model.inst_body[i])], dtype=float
        ).reshape(3)

    dampers = {d.body for d in model.car.dampers}
    out: dict[str, tuple[np.ndarray, np.ndarray, bool]] = {}
    for b, (i1, i2) in lay.two_force.items():
        name = lay.bodies[b]
        out[name] = (xyz(i1), xyz(i2), name in dampers)
    for k, (b, _sA, _sB, iA, iB) in enumerate(lay.arms):
        ball = xyz(int(lay.arm_outer[k]))
        for i in (int(iA), int(iB)):
            out[f"{lay.bodies[b]} leg {model.inst_point[i]}"] = (xyz(i), ball, False)
    return out


POSE_MATCH_MM = 1e-3
"""The pose passed with a result must put every point copy within this of the result's."""


def _world_shift(result: LoadResult, pose: Pose) -> np.ndarray:
    """Translation (mm) from the statics' chassis frame to world, checking that `result`
    was solved at `pose` (InputError if not, or if it is a sweep of several poses)."""
    st = result.raw
    if st.P.shape[0] != 1:
        raise InputError(
            f"the 3-D view shows one pose; this result is a sweep of {st.P.shape[0]}",
            where="result",
            hint="use solve_loads(pose, cases) for the pose to draw",
        )
    model = pose.model
    keys = list(zip(model.inst_point, model.inst_body, strict=True))
    world = pose.copies.loc[keys].to_numpy(dtype=float) if len(keys) == len(st.P[0]) else None
    R = st.R[0]
    if world is not None:
        t = world[0] - R @ st.P[0, 0]
        gap = float(np.abs(st.P[0] @ R.T + t - world).max())
        if gap <= POSE_MATCH_MM:
            return np.asarray(t)
    raise InputError(
        "the loads were solved at another pose than the one to draw",
        where="pose",
        hint="pass the pose given to solve_loads(pose, cases)",
    )


def contact_arrows(
    result: LoadResult, case: str, pose: Pose
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Wheel -> (contact point, world mm; applied force on the tyre, world N) of one case.

    The statics keeps the contact points in the chassis frame with the chassis
    rotation; the translation is recovered from the point copies of `pose`.
    """
    t = _world_shift(result, pose)
    rows = result.case(case)
    applied = rows[rows["point"].astype(str).str.endswith(PATCH)]
    st = result.raw
    points = st.applied_point[0] @ st.R[0].T + t
    return {
        str(r.point).removesuffix(PATCH): (
            np.asarray(xyz, dtype=float),
            np.array([r.Fx_N, r.Fy_N, r.Fz_N], dtype=float),
        )
        for r, xyz in zip(applied.itertuples(), points, strict=True)
    }


def build_member_scene(
    result: LoadResult,
    case: str,
    pose: Pose,
    *,
    camera: str = "iso",
    size: tuple[int, int] = (1200, 900),
    off_screen: bool | None = None,
    tyres: bool = True,
) -> MemberScene:
    """A plotter with the car at `pose`, members coloured by their axial force in `case`.

    `result` must be ``solve_loads(pose, cases)`` of this pose (InputError if
    not). Rendering is
    probed first (`RenderingUnavailableError`, exit 4, without GL). off_screen:
    None = off-screen unless a display exists. Call `save_screenshot` or
    ``.show()`` on ``.plotter``, then ``.plotter.close()``.
    """
    result.case(case)  # InputError naming the cases for a bad name
    _world_shift(result, pose)  # one pose, and the one the loads were solved at
    members = result.members()
    members = members[members["case"] == case]
    forces = {str(m): float(v) for m, v in zip(members["member"], members["axial_N"], strict=True)}
    from suspension_sim.viz.probe import ensure_rendering, import_pyvista

    ensure_rendering()
    pv = import_pyvista()
    plotter = build_scene(pose, camera=camera, size=size, off_screen=off_screen, tyres=tyres)
    try:
        return _decorate(pv, plotter, result, case, pose, forces)
    except BaseException:
        plotter.close()
        raise


def _decorate(
    pv: Any,
    plotter: pv.Plotter,
    result: LoadResult,
    case: str,
    pose: Pose,
    forces: dict[str, float],
) -> MemberScene:
    """Grey the pose view, add the coloured members, the arrows and their legends."""
    from suspension_sim.viz.geometry import pose_bounds
    from suspension_sim.viz.render import scene_info

    info = scene_info(plotter)
    for name, actor in info.actors.items():
        if name.startswith(GREYED):
            actor.prop.color = JOINT_GREY if name.startswith(("joints", "points")) else GREY
        elif name == "wheels:tyre":
            actor.prop.opacity = TYRE_OPACITY

    f = scene_scale(pose_bounds(pose))
    link_r = LINK_RADIUS_MM * f
    finite = [abs(v) for v in forces.values() if np.isfinite(v)]
    limit = max(finite) if finite and max(finite) > 0 else 1.0
    meshes: dict[str, Any] = {}
    for name, (a, b, damper) in member_segments(pose).items():
        value = forces.get(name)
        if value is None or not np.isfinite(value) or np.linalg.norm(b - a) <= COINCIDENT_MM:
            continue
        mesh = tube(pv, a, b, (DAMPER_RADIUS if damper else MEMBER_RADIUS) * link_r)
        mesh.point_data[SCALARS] = np.full(mesh.n_points, value)
        meshes[name] = mesh
    actors: dict[str, Any] = {}
    if meshes:
        actors["members"] = plotter.add_mesh(
            pv.merge(list(meshes.values()), merge_points=False),  # no shared end points
            scalars=SCALARS,
            cmap=axial_colormap(),
            clim=(-limit, limit),
            smooth_shading=True,
            specular=0.2,
            name="members",
            reset_camera=False,
            render=False,
            scalar_bar_args={
                "title": SCALAR_TITLE,
                "color": TEXT,
                "vertical": False,
                "position_x": 0.5,
                "position_y": 0.03,
                "width": 0.45,
                "height": 0.09,
                "fmt": "%.0f",
                "n_labels": 5,
                "title_font_size": font_points(plotter),
                "label_font_size": font_points(plotter),
            },
        )
        bar = plotter.scalar_bars[SCALAR_TITLE]
        bar.SetTextPositionToPrecedeScalarBar()  # numbers below the bar
        bar.SetVerticalTitleSeparation(2 * font_points(plotter))  # the title below them
        actors["scalar_bar"] = bar
    arrows = contact_arrows(result, case, pose)
    biggest = max((float(np.linalg.norm(F)) for _, F in arrows.values()), default=0.0)
    if biggest > 0:
        scale = ARROW_MM * f / biggest
        glyphs, tips, texts = [], [], []
        for wheel, (p, F) in arrows.items():
            n = float(np.linalg.norm(F))
            if n * scale < COINCIDENT_MM:
                continue
            glyphs.append(
                pv.Arrow(
                    start=p,
                    direction=F / n,
                    scale=n * scale,
                    shaft_radius=0.03,
                    tip_radius=0.08,
                    tip_length=0.2,
                )
            )
            tips.append(p + F * scale)
            texts.append(f"{wheel} {n:.0f} N")
        if glyphs:
            actors["arrows"] = plotter.add_mesh(
                pv.merge(glyphs), color=ARROW, name="arrows", reset_camera=False, render=False
            )
            actors["arrows:labels"] = plotter.add_point_labels(
                np.array(tips),
                texts,
                font_size=font_points(plotter),
                text_color=ARROW,
                shape_opacity=0.7,
                show_points=False,
                always_visible=True,
                name="arrows:labels",
                reset_camera=False,
                render=False,
            )
    actors["case"] = plotter.add_text(
        f"load case {case}: {len(meshes)} members,\nlargest axial force {limit:.0f} N;\n"
        "green arrows: contact-patch loads",
        position="lower_left",
        font_size=max(MIN_FONT_PT, round(0.7 * font_points(plotter))),
        color=TEXT,
        name="case",
        render=False,
    )
    info.actors.update(actors)
    return MemberScene(plotter, case, meshes, forces, limit, arrows, actors)


def render_member_forces(
    result: LoadResult,
    case: str,
    path: str | Path,
    pose: Pose,
    *,
    camera: str = "iso",
    size: tuple[int, int] = (1200, 900),
    tyres: bool = True,
    where: str = "path",
) -> Path:
    """Render `case` of `result` (``solve_loads(pose, ...)``) off-screen to an image file.

    Members are coloured by axial force (N, + = tension), contact-patch loads
    are arrows; the file is written atomically. Returns the file written.
    """
    scene = build_member_scene(
        result, case, pose, camera=camera, size=size, off_screen=True, tyres=tyres
    )
    try:
        out, _ = save_screenshot(scene.plotter, path, where=where)
    finally:
        scene.plotter.close()
    return out
