"""3-D inspection of poses with pyvista: bodies, tyres, ground, red/green joints.

Importing this package is cheap: pyvista (and VTK) are imported only by the
functions that draw, after a child-process probe has shown that rendering
works here (`probe.ensure_rendering`); see docs/rendering.md.

    from suspension_sim.viz import render_image, animate
    render_image(pose, "pose.png", camera="iso")

Modules: `geometry` (joint status, bounds and shapes with numpy alone),
`meshes` (pyvista meshes of those shapes), `camera` (presets and framing),
`render` (scenes, images and animations), `probe` (can this machine render?).
"""

from __future__ import annotations

from suspension_sim.viz.camera import CAMERAS, frame_camera
from suspension_sim.viz.geometry import (
    CentreMarks,
    SceneInfo,
    centre_marks,
    joint_status,
    kingpin_segments,
    open_joint_bounds,
    pose_bounds,
    world_to_pixel,
)
from suspension_sim.viz.probe import (
    ProbeResult,
    configure_environment,
    ensure_rendering,
    has_display,
    import_pyvista,
    probe_rendering,
)
from suspension_sim.viz.render import (
    KIND_COLOURS,
    add_labels,
    add_pose,
    animate,
    build_scene,
    check_animation_path,
    render_image,
    save_screenshot,
    scene_info,
)

__all__ = [
    "CAMERAS",
    "KIND_COLOURS",
    "CentreMarks",
    "ProbeResult",
    "SceneInfo",
    "add_labels",
    "add_pose",
    "animate",
    "build_scene",
    "centre_marks",
    "check_animation_path",
    "configure_environment",
    "ensure_rendering",
    "frame_camera",
    "has_display",
    "import_pyvista",
    "joint_status",
    "kingpin_segments",
    "open_joint_bounds",
    "pose_bounds",
    "probe_rendering",
    "render_image",
    "save_screenshot",
    "scene_info",
    "world_to_pixel",
]
