"""The studio's 3-D view: the same scene code as ``view`` (`suspension_sim.viz.add_pose`)
on one off-screen plotter that the page shows (trame streams its images).

Car A is drawn as ``view`` draws it (bodies, tyres, joints green/red with their gaps,
kingpin axes and centres as toggles). Car B, when given, is drawn by the same
`add_pose` into a `_Recorder` and its meshes added ghosted (translucent, under names
``B:<layer>``), so both cars share one view. The ground patch and the camera are set
when a car is (re)loaded and then kept, so the car moves on a fixed ground and a
camera the user turned stays where it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pyvista as pv

    from suspension_sim.solve.pose import Pose

GHOST_OPACITY = 0.3
"""Opacity of car B's meshes (and of A's translucent parts times this)."""


@dataclass
class Aids:
    """The view aids of `viz.add_pose` the page toggles."""

    tyres: bool = True
    kingpin: bool = False
    centres: bool = False


class _Recorder:
    """Stands in for a plotter: keeps what `add_pose` adds (meshes and their look)."""

    def __init__(self, window_size: tuple[int, int]) -> None:
        self.window_size = window_size
        self.meshes: list[tuple[Any, dict[str, Any]]] = []

    def add_mesh(self, mesh: Any, **kw: Any) -> None:
        self.meshes.append((mesh, kw))

    def add_text(self, *_: Any, **__: Any) -> None:
        return None

    def add_legend(self, *_: Any, **__: Any) -> None:
        return None


class StudioScene:
    """One off-screen plotter showing car A (and B ghosted); `draw` after each solve."""

    def __init__(self, size: tuple[int, int] = (900, 640)) -> None:
        from suspension_sim.viz.probe import import_pyvista
        from suspension_sim.viz.render import new_plotter

        self.pv = import_pyvista()
        self.plotter: pv.Plotter = new_plotter(self.pv, size, True)
        self.ground_rect: tuple[float, float, float, float] | None = None
        self.framed = False

    def reset_framing(self) -> None:
        """Frame the camera and the ground again at the next draw (after a reload)."""
        self.ground_rect = None
        self.framed = False

    def draw(self, pose: Pose, pose_b: Pose | None = None, aids: Aids | None = None) -> None:
        """Replace the drawing by `pose` (and `pose_b` ghosted); no render (the view does)."""
        from suspension_sim.viz.camera import frame_camera, title_space
        from suspension_sim.viz.geometry import ground_rectangle, pose_bounds, union_bounds
        from suspension_sim.viz.render import add_pose

        aids = aids or Aids()
        style = {"tyres": aids.tyres, "kingpin": aids.kingpin, "centres": aids.centres}
        if self.ground_rect is None:
            boxes = [pose_bounds(pose)] + ([pose_bounds(pose_b)] if pose_b is not None else [])
            self.ground_rect = ground_rectangle(union_bounds(boxes))
        self.plotter.clear_actors()
        info = add_pose(self.plotter, pose, ground_rect=self.ground_rect, **style)
        if pose_b is not None:
            self._ghost(pose_b, style)
        if not self.framed:
            reserve = title_space(self.plotter, True)
            frame_camera(self.plotter, "iso", info.bounds, reserve_top=reserve)
            self.framed = True

    def _ghost(self, pose: Pose, style: dict[str, bool]) -> None:
        from suspension_sim.viz.render import add_pose

        rec = _Recorder(tuple(self.plotter.window_size))  # type: ignore[arg-type]
        add_pose(rec, pose, ground=False, annotate=False, **style)  # type: ignore[arg-type]
        for mesh, kw in rec.meshes:
            look = dict(kw)
            name = f"B:{look.pop('name', len(self.plotter.actors))}"
            look["opacity"] = GHOST_OPACITY * float(look.get("opacity", 1.0))
            self.plotter.add_mesh(mesh, name=name, **look)

    def camera(self, preset: str) -> None:
        """Turn the camera to a preset (front, side, top, iso) framing the whole scene."""
        from suspension_sim.viz.camera import frame_camera, title_space

        frame_camera(
            self.plotter, preset, self.plotter.bounds, reserve_top=title_space(self.plotter, True)
        )

    def close(self) -> None:
        self.plotter.close()
