"""Figure and numbers for docs/conventions.md, "OptimumK's motion style".

Usage::

    python scripts/make_motion_style_figure.py [WORKBOOK] [--out PNG] [--pitch DEG]

Defaults: workbooks/fsae_car.xlsx, docs/motion_style.png, -0.5 deg. Draws the side view
of the chassis points at design and pitched by the same angle in both styles (ours:
about the chassis reference point; OptimumK's: about its pitch axis through the pitch
centres), displacements magnified so they can be seen, with the roll axis and the pitch
centre; prints how far the front axle lifts and how the dampers differ.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import suspension_sim
from suspension_sim.errors import run_reporting_errors
from suspension_sim.optimumk.motion import motion_axes, optimumk_motion
from suspension_sim.solve.pose import apply_transform, chassis_transform
from suspension_sim.solve.state import State
from suspension_sim.sweeps.motions import optimumk_ground_targets

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
MAGNIFY = 10.0
"""Displacements from design are drawn this many times larger."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--out", default=str(ROOT / "docs" / "motion_style.png"))
    parser.add_argument("--pitch", type=float, default=-0.5, help="pitch angle, deg")
    args = parser.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model = suspension_sim.load(args.workbook)
    design = model.solve()
    axes = motion_axes(design)
    names = model.car.body("Chassis").points
    pts = np.array([model.car.point(p) for p in names])
    ok = optimumk_motion(model, [0, 0], [0, 0], [0, args.pitch], [0, 0], design=design)
    ours_T = chassis_transform(model, (0.0, 0.0, 0.0, 0.0, args.pitch, 0.0))
    moved = {"ours": apply_transform(ours_T, pts), "OptimumK": apply_transform(ok.chassis[1], pts)}

    front = [w for w in model.car.wheels if model.car.point(w.centre)[0] > -200.0]
    axle = np.mean([model.car.point(w.centre) for w in front], axis=0)
    print(f"pitch {args.pitch:g} deg (+ = nose down) on {model.car.name}:")
    print(
        f"  pitch centre x = {axes.pitch_point[0]:.1f} mm, z = {axes.pitch_point[2]:.1f} mm; "
        f"roll axis through ({axes.roll_point[0]:.1f}, {axes.roll_point[2]:.1f}) mm, "
        f"inclined {np.degrees(np.arcsin(axes.roll_direction[2])):.3f} deg"
    )
    ours_pose = State(
        chassis=(0.0, 0.0, 0.0, 0.0, args.pitch, 0.0), targets=optimumk_ground_targets(model)
    ).solve(model, guess=design)
    ok_pose = ok.poses[1]
    assert ok_pose is not None
    for style, T, pose in (("ours", ours_T, ours_pose), ("OptimumK", ok.chassis[1], ok_pose)):
        lift = apply_transform(T, axle[None])[0, 2] - axle[2]
        strokes = ", ".join(f"{d} {v:+.2f}" for d, v in pose.shocks.items())
        print(f"  {style:9s}: front axle (chassis point at the wheel centres) {lift:+.2f} mm")
        print(f"             strokes (mm, + compression): {strokes}")

    fig, ax = plt.subplots(figsize=(9, 4.2))
    order = np.argsort(pts[:, 0])
    ax.plot(pts[order, 0], pts[order, 2], "o", color="0.6", ms=3, label="design")
    for (style, p), colour in zip(moved.items(), ("tab:blue", "tab:orange"), strict=True):
        drawn = pts + MAGNIFY * (p - pts)
        ax.plot(
            drawn[:, 0], drawn[:, 2], "o", color=colour, ms=3, label=f"{style} ({args.pitch:g} deg)"
        )
    ax.plot(0.0, 0.0, "+", color="tab:blue", ms=12, mew=2, label="our reference point (origin)")
    ax.plot(*axes.pitch_point[[0, 2]], "x", color="tab:orange", ms=10, mew=2, label="pitch centre")
    xs = np.array([pts[:, 0].min(), pts[:, 0].max()])
    d, p0 = axes.roll_direction, axes.roll_point
    ax.plot(
        xs, p0[2] + (xs - p0[0]) * d[2] / d[0], "--", color="tab:green", lw=1, label="roll axis"
    )
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xlabel("x [mm] (+ forward)")
    ax.set_ylabel("z [mm]")
    ax.set_title(
        f"Side view: chassis points pitched {args.pitch:g} deg, displacements x{MAGNIFY:g}"
    )
    ax.set_aspect("equal")
    ax.legend(fontsize=8, loc="upper left", ncol=2)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_reporting_errors(main))
