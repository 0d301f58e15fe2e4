"""Regenerate the two pictures in docs/ from the example car.

    python scripts/render_docs_images.py                # workbooks/fsae_car.xlsx
    python scripts/render_docs_images.py --test-car     # tests/_cars.four_corner_car()

Writes
- docs/fsae_car_iso.png: the car at design, iso camera;
- docs/failure_view.png: the best-effort pose for a stroke of the first damper
  beyond what its linkage can reach, open joints red at each copy.

The failure stroke is searched for (10 mm steps, warm-started) with the
damper's workbook length limits lifted, since a well-made workbook's limits
keep every stroke reachable; the first stroke that leaves a gap of at least
`--min-gap` mm is drawn.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import imageio.v3 as iio  # noqa: E402

from suspension_sim import Model  # noqa: E402
from suspension_sim.solve.solver import Pose  # noqa: E402
from suspension_sim.viz import build_scene, render_image, scene_info  # noqa: E402


def load_model(args: argparse.Namespace) -> Model:
    """The workbook's model, or the four-corner test car with --test-car."""
    if args.test_car:
        sys.path.insert(0, str(ROOT / "tests"))
        from _cars import four_corner_car

        return Model(four_corner_car())
    import suspension_sim

    return suspension_sim.load(args.workbook, use_cache=False)


def unreachable_pose(model: Model, min_gap_mm: float, step_mm: float = 10.0) -> Pose:
    """Best-effort pose for the smallest stroke of the first damper (limits lifted)
    that leaves a joint open by at least `min_gap_mm`."""
    car = model.car
    if not car.dampers:
        raise SystemExit("the car has no dampers: nothing to push beyond reach")
    free = dataclasses.replace(
        car,
        dampers=tuple(
            dataclasses.replace(d, min_length=None, max_length=None) for d in car.dampers
        ),
    )
    free_model = Model(free)
    name = car.dampers[0].body
    d0 = car.dampers[0]
    design = float(np.linalg.norm(car.point(d0.moving_point) - car.point(d0.chassis_point)))
    guess: Pose | None = None
    stroke = step_mm
    while stroke < design:
        pose = free_model.solve(shocks={name: stroke}, guess=guess, on_failure="return")
        if not pose.converged and pose.info.max_residual_mm >= min_gap_mm:
            print(f"{name}: stroke {stroke:g} mm is beyond reach")
            print(pose.failure)
            return pose
        if pose.converged:
            guess = pose
        stroke += step_mm
    raise SystemExit(f"{name}: every stroke up to the damper's length closes; nothing to show")


def failure_view(pose: Pose, path: Path, size: tuple[int, int]) -> None:
    """Whole car (left, 62 % of the width) beside a close-up of the open joints."""
    w, h = size
    left_w = int(0.62 * w)
    font = max(8, round(w / 110))
    whole = render_image(pose, camera="iso", size=(left_w, h), font_size=font)
    plotter = build_scene(
        pose,
        camera="iso",
        size=(w - left_w - 2, h),
        off_screen=True,
        annotate=False,
        focus="open",
        font_size=font,
    )
    try:
        worst = scene_info(plotter).open_joints
        plotter.add_text(
            f"close-up: {worst.index[0]} open by {worst.iloc[0]:.3g} mm\n"
            "red spheres: the joint's copy on each body",
            position="upper_left",
            font_size=font,
            color=(0.08, 0.08, 0.10),
        )
        detail = np.asarray(plotter.screenshot(return_img=True))
    finally:
        plotter.close()
    rule = np.full((h, 2, 3), 200, dtype=np.uint8)
    iio.imwrite(path, np.hstack([whole[..., :3], rule, detail[..., :3]]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workbook", default=str(ROOT / "workbooks" / "fsae_car.xlsx"))
    parser.add_argument("--test-car", action="store_true", help="use tests/_cars.four_corner_car")
    parser.add_argument("--out", default=str(ROOT / "docs"), help="folder for the PNGs")
    parser.add_argument("--size", nargs=2, type=int, default=(1400, 1000), metavar=("W", "H"))
    parser.add_argument("--min-gap", type=float, default=15.0, help="visible gap (mm)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = load_model(args)
    size = (int(args.size[0]), int(args.size[1]))

    design = model.solve()
    render_image(design, out / "fsae_car_iso.png", camera="iso", size=size)
    print(f"wrote {out / 'fsae_car_iso.png'}")

    failed = unreachable_pose(model, args.min_gap)
    failure_view(failed, out / "failure_view.png", size)
    print(f"wrote {out / 'failure_view.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
