"""Single-wheel bump and droop at every corner: camber gain and bump steer.

Usage::

    python scripts/bump_steer_camber_gain.py [WORKBOOK] [--out DIR] [--travel MM]

Defaults: workbooks/fsae_car.xlsx, out/bump_steer_camber_gain/, +-20 mm of
wheel travel (+ = bump). Each corner moves alone (its damper replaced by a
wheel-travel target; the chassis, the rack and the other strokes held).
Camber gain (deg/mm) and bump steer (deg per 25 mm, + = toe-in in bump) come
from the constraint Jacobian at each step. Writes bump_<wheel>.csv, one
table for all corners (bump_all.csv) and camber/toe/gain charts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

import suspension_sim
from suspension_sim.errors import run_reporting_errors
from suspension_sim.outputs.plots import wheel_chart
from suspension_sim.outputs.tables import write_table
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep
from suspension_sim.sweeps.motions import span

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
X = "wheel travel [mm]"  # each corner's own travel (+ = bump)
COLUMNS = ("camber_{}_deg", "toe_{}_deg", "camber_gain_{}_deg_per_mm", "bump_steer_{}_deg_per_25mm")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--out", default="out/bump_steer_camber_gain", help="output folder")
    parser.add_argument("--travel", type=float, default=20.0, help="mm of travel, both ways")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = suspension_sim.load(args.workbook)
    travel = tuple(span(-args.travel, args.travel, 11))
    wheels = [w.name for w in model.car.wheels]
    per_corner = []
    ok = True
    for w in wheels:
        result = run_sweep(model, SweepSpec(f"bump_{w}", MotionSpec("bump", travel, of=w)))
        ok &= result.ok
        table = result.table
        write_table(table, out / f"bump_{w}.csv")
        # this corner's columns, indexed by its own travel
        own = table.set_index(f"wheel_travel_{w}_mm")[[c.format(w) for c in COLUMNS]]
        per_corner.append(own.rename_axis(X))
        if not result.ok:
            print(result.summary())
    combined = pd.concat(per_corner, axis=1).reset_index()
    write_table(combined.set_index(X), out / "bump_all.csv")
    for stem, pattern in zip(("camber", "toe", "camber_gain", "bump_steer"), COLUMNS, strict=True):
        wheel_chart(
            combined,
            X,
            {w: pattern.format(w) for w in wheels},
            out / f"{stem}.png",
            title=f"single-wheel bump: {stem.replace('_', ' ')}",
        )

    at_design = combined[combined[X] == 0.0].iloc[0]
    for w in wheels:
        print(
            f"{w}: camber gain {at_design[f'camber_gain_{w}_deg_per_mm']:+.4f} deg/mm, "
            f"bump steer {at_design[f'bump_steer_{w}_deg_per_25mm']:+.3f} deg/25 mm"
        )
    print(f"wrote bump_*.csv and charts to {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(run_reporting_errors(main))
