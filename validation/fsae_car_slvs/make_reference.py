"""SolveSpace reference for the example FSAE car (workbooks/fsae_car.xlsx).

Provenance: the car is read from the workbook with openpyxl alone
(validation/refkit.py), solved by SolveSpace's constraint solver (`slvs`,
a Newton solver on point coordinates, no screws, no joint classes), and
measured with refkit's own metric code (docs/conventions.md formulas, written
separately from suspension_sim.metrics). suspension_sim is not imported.

Motion (OptimumK-style, every tyre's lowest point on the ground z = 0, the
chassis pose prescribed about the workbook's chassis reference point):
heave sweep, roll sweep, pitch sweep, steer sweep, then a combined
"arbitrary" motion of all four at once (as Rowe compared).

Writes export.csv (OptimumK layout, OptimumK signs) beside this script:
motion channels, and per corner camber, toe, steer, caster, KPI, scrub,
trail, spindle length, half track, wheel travel, damper length; track per
axle. Run:

    python validation/fsae_car_slvs/make_reference.py [--workbook PATH] [--out PATH]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

import refkit  # noqa: E402

QUANTITIES = (
    ("Camber Angle", "deg"),
    ("Toe Angle", "deg"),
    ("Steer Angle", "deg"),
    ("Caster Angle", "deg"),
    ("Kingpin Angle", "deg"),
    ("Scrub Radius", "mm"),
    ("Mechanical Trail", "mm"),
    ("Spindle Length", "mm"),
    ("Half Track", "mm"),
    ("Wheel Travel", "mm"),
    ("Damper Length", "mm"),
)
CORNER_ORDER = ("Front Left", "Front Right", "Rear Left", "Rear Right")


def motion(
    heave: float, roll: float, pitch: float, steer: float
) -> list[tuple[float, float, float, float]]:
    """(heave mm, roll deg, pitch deg, steer) per step; steer in the export's steer unit."""
    steps: list[tuple[float, float, float, float]] = []
    steps += [(h, 0.0, 0.0, 0.0) for h in np.linspace(-heave, heave, 11)]
    steps += [(0.0, r, 0.0, 0.0) for r in np.linspace(-roll, roll, 9)]
    steps += [(0.0, 0.0, p, 0.0) for p in np.linspace(-pitch, pitch, 7)]
    steps += [(0.0, 0.0, 0.0, s) for s in np.linspace(-steer, steer, 9)]
    for x in np.linspace(0.0, 1.0, 17):  # everything at once
        steps.append(
            (
                -0.6 * heave * math.sin(math.pi * x),
                0.7 * roll * math.sin(2 * math.pi * x),
                0.5 * pitch * math.sin(3 * math.pi * x),
                0.8 * steer * math.sin(2 * math.pi * x + 0.5),
            )
        )
    return [tuple(float(v) for v in s) for s in steps]  # type: ignore[misc]


def run(workbook: Path, out: Path, heave: float, roll: float, pitch: float, steer: float) -> None:
    car = refkit.read_workbook(workbook)
    slv = refkit.SlvsCar(car)
    corner_of = refkit.corners(car)
    damper_of = refkit.damper_of_wheels(car)
    if sorted(corner_of.values()) != sorted(CORNER_ORDER) or len(damper_of) != 4:
        raise SystemExit(f"expected four corners with a damper each: {corner_of}, {damper_of}")
    use_swa = car.rack_ratio_mm_per_deg is not None
    ref = tuple(float(v) for v in car.reference_point)
    design = refkit.wheel_channels(car, car.points, refkit.ChassisPose(ref=ref))
    toe0 = {w: ch["Toe Angle"] for w, ch in design.items()}
    off = refkit.contact_heights(car, car.points)
    if max(abs(v) for v in off.values()) > 0.5:
        print(f"warning: design contact points not on z = 0: {off}")

    # Positive steering-wheel angle is a left turn (ISO 8855). Which way the rack
    # moves for that depends on the layout, so find it here, independently:
    # move the rack +1 mm and see which way the wheels' spin axes yaw.
    moved = slv.solve(refkit.ChassisPose(ref=ref), rack=1.0)
    yaw = sum(
        np.cross(
            car.points[w.axis_point] - car.points[w.centre], moved[w.axis_point] - moved[w.centre]
        )[2]
        for w in car.wheels
    )
    left_turn_rack = 1.0 if yaw > 0 else -1.0

    rows = []
    start = None
    t0 = time.perf_counter()
    for h, r, p, s in motion(heave, roll, pitch, steer):
        rack = s * abs(car.rack_ratio_mm_per_deg) * left_turn_rack if use_swa else s
        pose = refkit.ChassisPose(heave=h, roll=r, pitch=p, ref=ref)  # type: ignore[arg-type]
        pts = slv.solve(pose, rack=rack, start=start)
        start = pts
        heights = refkit.contact_heights(car, pts)
        assert max(abs(v) for v in heights.values()) < 1e-7, heights
        ch = refkit.wheel_channels(car, pts, pose, toe0)
        lengths = refkit.damper_lengths(car, pts)
        for body, (lo, hi) in car.damper_limits.items():
            length = lengths[body]
            if (lo is not None and length < lo) or (hi is not None and length > hi):
                raise SystemExit(
                    f"damper {body} is {length:.2f} mm at step {len(rows) + 1}, outside its "
                    f"limits {lo}..{hi}: reduce the motion"
                )
        for w in ch:
            ch[w]["Damper Length"] = lengths[damper_of[w]]
        rows.append(((h, r, p, s), ch))
    seconds = time.perf_counter() - t0

    wheel_at = {c: w for w, c in corner_of.items()}
    channels: dict[str, list[float]] = {}
    for q, unit in QUANTITIES:
        for corner in CORNER_ORDER:
            w = wheel_at[corner]
            channels[f"{q} {corner} [{unit}]"] = [row[1][w][q] for row in rows]
    for axle in ("Front", "Rear"):
        left, right = wheel_at[f"{axle} Left"], wheel_at[f"{axle} Right"]
        channels[f"Track {axle} [mm]"] = [
            row[1][left]["Half Track"] + row[1][right]["Half Track"] for row in rows
        ]
    steer_col = "Steering Wheel Angle [deg]" if use_swa else "Rack Travel [mm]"
    motion_cols = {
        "Heave [mm]": [row[0][0] for row in rows],
        "Roll [deg]": [row[0][1] for row in rows],
        "Pitch [deg]": [row[0][2] for row in rows],
        steer_col: [row[0][3] for row in rows],
    }
    try:
        shown = workbook.resolve().relative_to(ROOT)
    except ValueError:
        shown = workbook
    refkit.write_export(
        out,
        motion_cols,
        channels,
        comments=[
            "Reference export in the OptimumK layout - NOT from OptimumK.",
            f"Car: {shown} solved by SolveSpace (slvs) with every tyre on the ground.",
            "Made by validation/fsae_car_slvs/make_reference.py; see validation/README.md.",
            "Signs: OptimumK preset (toe + = toe-out). Units in the headers.",
        ],
    )
    print(f"wrote {out}: {len(rows)} steps, {len(channels)} channels, SolveSpace {seconds:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workbook", type=Path, default=ROOT / "workbooks" / "fsae_car.xlsx")
    ap.add_argument("--out", type=Path, default=HERE / "export.csv")
    ap.add_argument("--heave", type=float, default=20.0, help="mm, +- sweep")
    ap.add_argument("--roll", type=float, default=1.5, help="deg, +- sweep")
    ap.add_argument("--pitch", type=float, default=1.0, help="deg, +- sweep")
    ap.add_argument(
        "--steer",
        type=float,
        default=90.0,
        help="+- sweep: steering-wheel deg (rack mm without a ratio)",
    )
    a = ap.parse_args()
    run(a.workbook, a.out, a.heave, a.roll, a.pitch, a.steer)


if __name__ == "__main__":
    main()
