"""Heave with the tyres on the ground: motion ratio and wheel rate factor per corner.

Usage::

    python scripts/heave_motion_ratio.py [WORKBOOK] [--out DIR] [--travel MM]

Defaults: workbooks/fsae_car.xlsx, out/heave_motion_ratio/, +-20 mm of
chassis heave (+ = chassis up, i.e. droop). Motion ratio = d stroke / d
wheel travel (damper over wheel, from the constraint Jacobian); wheel rate =
spring rate x MR^2. Writes heave.csv, motion_ratios.png and the standard
sweep charts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import suspension_sim
from suspension_sim.errors import run_reporting_errors
from suspension_sim.outputs.plots import line_chart, plot_sweep
from suspension_sim.outputs.tables import write_table
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep
from suspension_sim.sweeps.motions import span

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--out", default="out/heave_motion_ratio", help="output folder")
    parser.add_argument("--travel", type=float, default=20.0, help="mm of heave, both ways")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = suspension_sim.load(args.workbook)
    spec = SweepSpec("heave", MotionSpec("heave", tuple(span(-args.travel, args.travel, 11))))
    result = run_sweep(model, spec)
    table = result.table
    write_table(table, out / "heave.csv")
    plot_sweep(result, out)

    wheels = [w.name for w in model.car.wheels]
    line_chart(
        table,
        "chassis_heave_mm",
        [f"motion_ratio_{w}" for w in wheels],
        out / "motion_ratios.png",
        title="motion ratio (damper / wheel), all corners",
        ylabel="motion ratio",
    )

    design = table[table["chassis_heave_mm"] == 0.0].iloc[0]
    for w in wheels:
        mr = design[f"motion_ratio_{w}"]
        lo, hi = table[f"motion_ratio_{w}"].min(), table[f"motion_ratio_{w}"].max()
        print(f"{w}: motion ratio {mr:.3f} at ride height ({lo:.3f}..{hi:.3f}), MR^2 {mr**2:.3f}")
    print(result.summary())
    print(f"wrote heave.csv and charts to {out}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(run_reporting_errors(main))
