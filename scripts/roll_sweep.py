"""Body roll with the tyres on the ground: camber, toe and roll-centre migration.

Usage::

    python scripts/roll_sweep.py [WORKBOOK] [--out DIR] [--max-roll DEG]

Defaults: workbooks/fsae_car.xlsx, out/roll_sweep/, +-2 deg. Writes roll.csv
(one row per step: the roll angle, then every metric) and the charts of
`suspension_sim.outputs.plots` (camber, toe, caster, scrub, trail, motion
ratio, roll centre). Positive roll lifts the left side (docs/conventions.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import suspension_sim
from suspension_sim.errors import run_reporting_errors
from suspension_sim.outputs.plots import plot_sweep
from suspension_sim.outputs.tables import write_table
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep
from suspension_sim.sweeps.motions import span

EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--out", default="out/roll_sweep", help="output folder")
    parser.add_argument("--max-roll", type=float, default=2.0, help="deg, both ways")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = suspension_sim.load(args.workbook)
    spec = SweepSpec("roll", MotionSpec("roll", tuple(span(-args.max_roll, args.max_roll, 13))))
    result = run_sweep(model, spec)
    table = result.table
    write_table(table, out / "roll.csv")
    charts = plot_sweep(result, out)

    # Roll camber at design (deg of camber per deg of roll, IFT) and the roll centres.
    design = table[table["chassis_roll_deg"] == 0.0].iloc[0]
    for w in model.car.wheels:
        key = f"roll_camber_{w.name}_deg_per_deg"
        if key in table:
            print(f"{w.name}: roll camber {design[key]:+.3f} deg/deg")
    for axle in ("front", "rear"):
        h, y = f"roll_centre_height_{axle}_mm", f"roll_centre_lateral_{axle}_mm"
        if h in table:
            print(
                f"{axle} roll centre: {design[h]:.1f} mm high at design; at "
                f"{args.max_roll:+g} deg {table[h].iloc[-1]:.1f} mm high, "
                f"{table[y].iloc[-1]:+.1f} mm lateral"
            )
    print(result.summary())
    print(f"wrote {out / 'roll.csv'} and {len(charts)} charts to {out}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(run_reporting_errors(main))
