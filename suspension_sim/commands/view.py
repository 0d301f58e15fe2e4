"""``suspension-sim view``: the pose in 3-D, joints green when closed and red when open.

A window when a display exists; otherwise (or with ``--screenshot``) an
off-screen image. ``--sweep NAME --animate out.gif|mp4`` writes one frame per
step of a sweep: a named sweep (from ``--sweeps FILE.yaml``, else the workbook or
a sweeps.yaml beside it) or a standard motion such as ``roll``. ``--no-tyres``,
``--kingpin`` and ``--centres`` are view aids. Rendering is probed in a child
process first, so a machine without GL libraries gets a message saying what
to install instead of a crash (docs/rendering.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from suspension_sim.commands.solve import add_pose_arguments, parse_shocks
from suspension_sim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
CAMERA_CHOICES = ("front", "side", "top", "iso")  # = suspension_sim.viz.CAMERAS
PARAMETER_OPTIONS = {
    "path": "--animate",
    "poses": "--sweep",
    "camera": "--camera",
    "focus": "--focus",
    "sweep": "--sweep",
    "tyres": "--no-tyres",
    "kingpin": "--kingpin",
    "centres": "--centres",
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "view",
        help="show a pose in 3-D (window, image, or sweep animation)",
        description="Show the pose for given strokes (mm, + = compression), rack travel (mm, "
        "+ = toward +Y) and chassis state (mm, deg) in 3-D. Joined points are green when "
        "closed and red (at each copy) when open beyond the display tolerance.",
    )
    add_pose_arguments(p)
    p.add_argument(
        "--screenshot",
        default=None,
        metavar="OUT.png",
        help="render off-screen to this image instead of opening a window",
    )
    p.add_argument("--camera", choices=CAMERA_CHOICES, default="iso", help="view direction")
    p.add_argument(
        "--focus",
        choices=("car", "open"),
        default="car",
        help="frame the whole car, or the bodies around the open joints",
    )
    p.add_argument("--labels", action="store_true", help="name every point")
    p.add_argument(
        "--size",
        nargs=2,
        type=int,
        default=None,
        metavar=("W", "H"),
        help="image or window size in pixels (default 1200 900; 800 600 for animations)",
    )
    p.add_argument(
        "--tolerance",
        type=float,
        default=None,
        metavar="MM",
        help="red/green display tolerance (default: the workbook's, 0.01 mm)",
    )
    p.add_argument("--no-tyres", action="store_true", help="do not draw the tyres and rims")
    p.add_argument(
        "--kingpin",
        action="store_true",
        help="draw each wheel's kingpin (steering) axis, extended 150 mm beyond its points",
    )
    p.add_argument(
        "--centres",
        action="store_true",
        help="mark the force-based front-view instant centres and the roll centres",
    )
    p.add_argument(
        "--sweep",
        default=None,
        metavar="SWEEP",
        help="a named sweep or a standard motion (heave, roll, pitch, steer, bump:WHEEL)",
    )
    p.add_argument(
        "--sweeps",
        default=None,
        metavar="FILE.yaml",
        help="sweep definitions for --sweep (instead of the workbook's)",
    )
    p.add_argument(
        "--animate", default=None, metavar="OUT.gif|mp4", help="write the sweep as an animation"
    )
    p.add_argument("--fps", type=float, default=12.0, help="animation frames per second")
    p.set_defaults(run=run)


def _check_args(args: argparse.Namespace) -> None:
    """Reject inconsistent options before anything slow happens."""
    from suspension_sim.files import check_output
    from suspension_sim.viz.probe import has_display

    if args.size is not None and (min(args.size) < 16 or max(args.size) > 8192):
        raise InputError(
            f"{args.size[0]} x {args.size[1]} pixels",
            where="--size",
            hint="give a width and height between 16 and 8192",
        )
    if args.tolerance is not None and not args.tolerance > 0:
        raise InputError("must be positive", where="--tolerance")
    if not args.fps > 0:
        raise InputError("must be positive", where="--fps")
    if args.sweep and not args.animate:
        raise InputError(
            "a sweep needs an output", where="--sweep", hint="add --animate out.gif (or .mp4)"
        )
    if args.sweeps and not args.sweep:
        raise InputError(
            "sweep definitions without a sweep", where="--sweeps", hint="add --sweep NAME"
        )
    if args.animate and not args.sweep:
        raise InputError(
            "nothing to animate", where="--animate", hint="name a sweep with --sweep SWEEP"
        )
    if args.animate:
        from suspension_sim.viz.render import check_animation_path

        check_output(args.animate, where="--animate")  # the one folder rule first
        check_animation_path(args.animate)
    if args.screenshot:
        shot = Path(args.screenshot)
        if shot.is_dir():
            raise InputError(f"{shot} is a folder", where="--screenshot", hint="name a .png file")
        if shot.suffix.lower() not in IMAGE_SUFFIXES:
            raise InputError(
                f"cannot write an image as {shot.suffix or 'a file without extension'!r}",
                where="--screenshot",
                hint="name the image .png (or .jpg, .bmp, .tif)",
            )
        check_output(shot, where="--screenshot")
    elif not args.animate and not has_display():
        raise InputError(
            "there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset)",
            where="--screenshot",
            hint="add --screenshot out.png to render an image off-screen",
        )


def _sweep_poses(
    model: KinematicModel, workbook: str, name: str, sweep_file: str | None
) -> list[Pose]:
    """The solved poses of a named sweep or standard motion (docs/sweeps.md)."""
    from suspension_sim.sweeps import choose_sweep, run_sweep

    chosen = choose_sweep(model, workbook, name, sweep_file)
    if chosen.note:
        print(f"note: {chosen.note}")
    return list(run_sweep(model, chosen.spec).poses)


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    from suspension_sim import load
    from suspension_sim.viz import animate, build_scene, ensure_rendering, save_screenshot
    from suspension_sim.viz.probe import start_probe

    # The rendering probe (a child process, ~1-3 s) runs while the car is loaded and
    # solved; its answer is taken before anything is drawn (no GL: a clear error).
    start_probe()
    model = load(args.workbook)
    aids = {"tyres": not args.no_tyres, "kingpin": args.kingpin, "centres": args.centres}

    if args.animate:
        poses = _sweep_poses(model, args.workbook, args.sweep, args.sweeps)
        ensure_rendering()
        out = animate(
            poses,
            args.animate,
            camera=args.camera,
            size=tuple(args.size) if args.size else (800, 600),
            fps=args.fps,
            labels=args.labels,
            tolerance_mm=args.tolerance,
            **aids,
        )
        n_open = sum(not p.converged for p in poses)
        print(f"wrote {out} ({len(poses)} frames, {n_open} not converged)")
        return 0

    pose = model.solve(
        shocks=parse_shocks(args.shocks),
        rack=args.rack,
        chassis=tuple(args.chassis),
        on_failure="return",
    )
    print(f"{model.car.name}: {pose.info.summary()}")
    if not pose.converged:
        print(f"warning: {pose.failure}", file=sys.stderr)
        print("the view shows the best-effort pose; open joints are red", file=sys.stderr)
    size = tuple(args.size) if args.size else (1200, 900)
    ensure_rendering()
    plotter = build_scene(
        pose,
        labels=args.labels,
        tolerance_mm=args.tolerance,
        camera=args.camera,
        size=size,
        off_screen=bool(args.screenshot),
        focus=args.focus,
        **aids,
    )
    try:
        if args.screenshot:
            save_screenshot(plotter, args.screenshot, where="--screenshot")
            print(f"wrote {args.screenshot}")
        else:
            plotter.show(title=f"suspension-sim: {model.car.name}")
    finally:
        plotter.close()
    # The picture is written either way; the exit code still says the pose is open.
    return 0 if pose.converged else 3
