"""3-D inspection of poses with pyvista: bodies, tyres, ground, red/green joints.

Importing this package is cheap: pyvista (and VTK) are imported only by the
functions that draw, after a child-process probe has shown that rendering
works here (`probe.ensure_rendering`); see docs/rendering.md.

    from suspension_sim.viz import render_image, animate
    render_image(pose, "pose.png", camera="iso")
"""

from __future__ import annotations

from suspension_sim.viz.probe import (
    ProbeResult,
    configure_environment,
    ensure_rendering,
    has_display,
    import_pyvista,
    probe_rendering,
)
from suspension_sim.viz.scene import (
    CAMERAS,
    KIND_COLOURS,
    SceneInfo,
    add_labels,
    add_pose,
    animate,
    build_scene,
    check_animation_path,
    frame_camera,
    joint_status,
    open_joint_bounds,
    pose_bounds,
    render_image,
    scene_info,
    world_to_pixel,
)

__all__ = [
    "CAMERAS",
    "KIND_COLOURS",
    "ProbeResult",
    "SceneInfo",
    "add_labels",
    "add_pose",
    "animate",
    "build_scene",
    "check_animation_path",
    "configure_environment",
    "ensure_rendering",
    "frame_camera",
    "has_display",
    "import_pyvista",
    "joint_status",
    "open_joint_bounds",
    "pose_bounds",
    "probe_rendering",
    "render_image",
    "scene_info",
    "world_to_pixel",
]
