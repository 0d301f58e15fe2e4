"""Steering lock to lock with the tyres on the ground: roadwheel angles and Ackermann.

Usage::

    python scripts/steer_sweep_ackermann.py [WORKBOOK] [--out DIR] [--rack MM]

Defaults: workbooks/fsae_car.xlsx, out/steer_sweep_ackermann/, rack +-30 mm
(+ = toward +Y, left). Steer angle: + = wheel turned left, both wheels;
Ackermann % = (d_i - d_o) / (d_i_ideal - d_o) x 100 (docs/conventions.md).
Writes steer.csv, steer_angles.png, ackermann.png and the standard charts
(camber, caster, scrub radius and trail against rack travel).
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
    parser.add_argument("--out", default="out/steer_sweep_ackermann", help="output folder")
    parser.add_argument("--rack", type=float, default=30.0, help="mm of rack, both ways")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = suspension_sim.load(args.workbook)
    spec = SweepSpec("steer", MotionSpec("steer", tuple(span(-args.rack, args.rack, 13))))
    result = run_sweep(model, spec)
    table = result.table
    write_table(table, out / "steer.csv")
    plot_sweep(result, out)

    front = [w.name for w in model.car.wheels if w.name.startswith("F")]
    line_chart(
        table,
        "rack_mm",
        [f"steer_{w}_deg" for w in front],
        out / "steer_angles.png",
        title="roadwheel angles (+ = turned left)",
        ylabel="steer [deg]",
    )
    line_chart(table, "rack_mm", ["ackermann_front_pct"], out / "ackermann.png", title="Ackermann")

    print(f"{'rack mm':>8} " + " ".join(f"{'steer ' + w:>9}" for w in front) + "  Ackermann %")
    for _, row in table.iterrows():
        angles = " ".join(f"{row[f'steer_{w}_deg']:9.2f}" for w in front)
        print(
            f"{row['rack_mm']:8.1f} {angles}  {row.get('ackermann_front_pct', float('nan')):10.1f}"
        )
    print(result.summary())
    print(f"wrote steer.csv and charts to {out}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(run_reporting_errors(main))
