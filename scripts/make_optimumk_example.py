"""Write an example export in OptimumK's result layout, made by suspension_sim (not OptimumK).

Usage::

    python scripts/make_optimumk_example.py [WORKBOOK] [--out DIR] [--no-report]

Defaults: workbooks/fsae_car.xlsx, validation/optimumk_layout/. Drives the car
through OptimumK-style motions (heave, roll, pitch, steering-wheel angle, then
all four at once; every tyre on the ground), computes our metrics in the
``optimumk`` preset and writes them as OptimumK's v2.x result export does
(docs/validation.md, "OptimumK result exports"): a title block (Name, Type,
Version, User Options), a header row of ``Quantity [Side] [Axle] (unit)``
channels and ``Motion [Heave]`` ..., the table view's statistic rows (Maximum
Value ... Std Deviation Value) and one ``Step [n]`` row per step. It writes

    DIR/export.xlsx   the export (one sheet, "Results")
    DIR/report/       `suspension-sim validate WORKBOOK DIR/export.xlsx` (unless --no-report)

The numbers are our own, so the report shows zero difference: the file
demonstrates the layout and the validation path, it is no evidence that our
numbers match OptimumK's (docs/validation.md says what is known about that).
Units: mm and deg.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import suspension_sim
from suspension_sim.errors import run_reporting_errors

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
OUT = ROOT / "validation" / "optimumk_layout"

SIDE_AXLE = {"FL": ("Left", "Front"), "FR": ("Right", "Front"), "RL": ("Left", "Rear")}
SIDE_AXLE["RR"] = ("Right", "Rear")

CORNER_CHANNELS: tuple[tuple[str, str, str], ...] = (
    # (OptimumK quantity, unit, our metric column stem with {w} for the wheel)
    ("Camber Angle", "deg", "camber_{w}_deg"),
    ("Toe Angle", "deg", "toe_wheel_plane_{w}_deg"),
    ("Steer Angle", "deg", "steer_{w}_deg"),
    ("Caster Angle", "deg", "caster_{w}_deg"),
    ("King Pin Inclination", "deg", "kpi_{w}_deg"),
    ("Scrub Radius", "mm", "scrub_vehicle_{w}_mm"),
    ("Mechanical Trail", "mm", "trail_vehicle_{w}_mm"),
    ("Half Track", "mm", "half_track_{w}_mm"),
    ("Wheel Center X", "mm", "wheel_centre_{w}_x_mm"),
    ("Wheel Center Y", "mm", "wheel_centre_{w}_y_mm"),
    ("Wheel Center Z", "mm", "wheel_centre_{w}_z_mm"),
    ("Contact Patch Z", "mm", "contact_patch_{w}_z_mm"),
    ("CoilOver Length", "mm", "damper_length_{w}_Damper_mm"),
    ("Push/Pull Length", "mm", "pushrod_length_{w}_mm"),
    ("Motion Ratio Heave", "-", "motion_ratio_heave_{w}"),
    ("Steering Toe Angle Gain", "deg/deg", "steering_toe_gain_{w}_deg_per_deg"),
)
FRONT_ONLY = (("Anti-Dive Percentage", "%", "anti_dive_{w}_pct"),)
AXLE_CHANNELS = (
    ("Roll Center Z", "mm", "roll_centre_axis_height_{a}_mm"),
    # a channel of OptimumK's that the default map does not compare (listed as such)
    ("Roll Center Y", "mm", "roll_centre_lateral_{a}_mm"),
)
SIDE_CHANNELS = (("Wheelbase", "mm", "wheelbase_{s}_mm"),)
STATISTICS = ("Maximum Value", "Minimum Value", "Average Value", "Std Deviation Value")


def motion(n: int = 9) -> np.ndarray:
    """(steps, 4): heave mm, roll deg, pitch deg, steering-wheel deg (OptimumK's signs:
    heave + up, roll + left up, pitch + nose down, steering + = rack toward +Y)."""
    ramp = np.linspace(-1.0, 1.0, n)
    zero = np.zeros(n)
    blocks = [
        np.column_stack([20.0 * ramp, zero, zero, zero]),
        np.column_stack([zero, 1.5 * ramp, zero, zero]),
        np.column_stack([zero, zero, 1.0 * ramp, zero]),
        np.column_stack([zero, zero, zero, 90.0 * ramp]),
        np.column_stack([-10.0 * ramp, 1.0 * ramp, -0.5 * ramp, 60.0 * ramp]),
    ]
    return np.vstack(blocks)


def solve_motion(model: suspension_sim.Model, steps: np.ndarray) -> list[dict[str, float]]:
    """Our metrics (optimumk preset) at every step, every tyre on the ground."""
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.solve.state import State
    from suspension_sim.solve.steering import rack_per_wheel_degree
    from suspension_sim.sweeps.motions import ground_targets

    targets = ground_targets(model)
    per_degree = abs(rack_per_wheel_degree(model))  # OptimumK: + = rack toward +Y
    rows = []
    guess = None
    for heave, roll, pitch, steering in steps:
        state = State(
            rack=float(steering) * per_degree,
            chassis=(0.0, 0.0, float(heave), float(roll), float(pitch), 0.0),
            targets=targets,
        )
        pose = state.solve(model, guess=guess)
        guess = pose
        rows.append(pose_metrics(pose, convention="optimumk"))
    return rows


def channels(
    steps: np.ndarray, rows: list[dict[str, float]]
) -> tuple[list[str], list[list[float]]]:
    """(headers, columns) in OptimumK's v2.x names."""
    headers = ["Motion [Heave] (mm)", "Motion [Roll] (deg)", "Motion [Pitch] (deg)"]
    headers.append("Motion [Steering] (deg)")
    cols = [list(steps[:, i]) for i in range(4)]

    def add(header: str, key: str) -> None:
        headers.append(header)
        cols.append([r.get(key, math.nan) for r in rows])

    for quantity, unit, key in CORNER_CHANNELS:
        for w, (side, axle) in SIDE_AXLE.items():
            add(f"{quantity} [{side}] [{axle}] ({unit})", key.format(w=w))
    for quantity, unit, key in FRONT_ONLY:
        for w in ("FL", "FR"):
            side, axle = SIDE_AXLE[w]
            add(f"{quantity} [{side}] [{axle}] ({unit})", key.format(w=w))
    for quantity, unit, key in AXLE_CHANNELS:
        for axle in ("Front", "Rear"):
            add(f"{quantity} [{axle}] ({unit})", key.format(a=axle.lower()))
    for quantity, unit, key in SIDE_CHANNELS:
        for side in ("Left", "Right"):
            add(f"{quantity} [{side}] ({unit})", key.format(s=side.lower()))
    add("Steering Ratio [Front]", "steering_ratio_front")
    add("Steering Rack Displacement (mm)", "rack_mm")
    return headers, cols


def write_xlsx(path: Path, name: str, headers: list[str], cols: list[list[float]]) -> Path:
    """OptimumK's result layout: title block, header, statistic rows, Step [n] rows."""
    import openpyxl

    from suspension_sim.files import write_atomically

    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Results"
    for row in (
        ["Name", name],
        ["Type", "Result"],
        ["Version", "2.3.0 (layout only: written by suspension_sim, not by OptimumK)"],
        ["User Options"],
        ["Length", "mm"],
        ["Angle", "deg"],
        [],
    ):
        ws.append(row)
    ws.append(["", *headers])
    data = np.array(cols, dtype=float)  # (channels, steps)
    with np.errstate(all="ignore"):
        stats = (
            np.nanmax(data, axis=1),
            np.nanmin(data, axis=1),
            np.nanmean(data, axis=1),
            np.nanstd(data, axis=1),
        )
    for label, values in zip(STATISTICS, stats, strict=True):
        ws.append([label, *(_cell(v) for v in values)])
    for i in range(data.shape[1]):
        ws.append([f"Step [{i}]", *(_cell(v) for v in data[:, i])])
    return write_atomically(path, lambda tmp: wb.save(tmp))


def _cell(value: float) -> float | None:
    """A number, or an empty cell where we have none (Ackermann straight ahead, ...)."""
    return None if not math.isfinite(value) else float(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(EXAMPLE), help="the car's workbook")
    parser.add_argument("--out", default=str(OUT), help="output folder (default %(default)s)")
    parser.add_argument("--no-report", action="store_true", help="skip the validation report")
    args = parser.parse_args()

    def run() -> int:
        model = suspension_sim.load(args.workbook)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        steps = motion()
        headers, cols = channels(steps, solve_motion(model, steps))
        name = f"{Path(args.workbook).stem}: heave, roll, pitch, steering, combined"
        export = write_xlsx(out / "export.xlsx", name, headers, cols)
        print(f"wrote {export}: {len(steps)} steps, {len(headers)} channels")
        if not args.no_report:
            from suspension_sim.cli import main as cli

            return cli(["validate", args.workbook, str(export), "--out", str(out / "report")])
        return 0

    return run_reporting_errors(run)


if __name__ == "__main__":
    raise SystemExit(main())
