"""Write the SYNTHETIC replay example: workbooks/replay_example/{log.csv, map.yaml}.

The log is made up (no car was driven): 10 s at 100 Hz of a car standing still for
2 s, then a left and a right corner with braking between, for workbooks/fsae_car.xlsx.
Damper strokes follow a simple roll/heave/pitch model (about 10 mm of stroke per
degree of roll), with the things a real log has: a pot mounted 3.1 mm off zero
(removed by the map's static segment), one pot in volts and one giving the
damper's length, a logger header block and a units row, a 50 ms dropout, and one
spike beyond the damper's travel. `suspension-sim replay` reports the last two
with their time stamps (docs/replay.md).

Run: python scripts/make_replay_example.py [--out-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "workbooks" / "replay_example"
RATE_HZ = 100.0
SECONDS = 10.0
DESIGN_LENGTH_MM = 200.0  # fsae_car: every damper 200 mm at design
VOLT_GAIN, VOLT_OFFSET = 15.0, 150.0  # FR pot: length (mm) = 15 x volts + 150
FL_ZERO_ERROR_MM = 3.1

MAP = """\
# Replay map for the SYNTHETIC example log (scripts/make_replay_example.py).
time: {column: Time, unit: s}
dampers:
  FL_Damper: {column: Damper Pos FL, unit: mm}                   # stroke, + = compression
  FR_Damper: {column: Damper FR, unit: V, gain: 15.0, offset: 150.0, kind: length}
  RL_Damper: {column: Damper Pos RL, unit: mm}
  RR_Damper: {column: Damper RR Len, unit: mm, kind: length}     # eye-to-eye length
steering: {column: Steered Angle, unit: deg, kind: steering_wheel}   # + = left turn
chassis:
  roll: {column: Roll Angle, unit: deg}      # IMU, + = left side up
  pitch: {column: Pitch Angle, unit: deg}    # IMU, + = nose down
zero: {from: 0.0, to: 1.5}                   # the car stands still: strokes read 0 here
"""


def make_log() -> str:
    """The log as CSV text (header block, column names, units row, samples)."""
    rng = np.random.default_rng(7)
    t = np.arange(0.0, SECONDS, 1.0 / RATE_HZ)
    ramp = np.clip((t - 2.0) / 0.5, 0.0, 1.0)
    steer = ramp * (90.0 * np.sin(2 * np.pi * (t - 2.0) / 8.0))  # deg, + = left turn
    roll = 0.015 * steer  # deg: a left turn lifts the left side (+ roll)
    pitch = np.where((t > 5.5) & (t < 6.5), 0.8 * np.sin(np.pi * (t - 5.5)), 0.0)  # braking
    heave = -2.0 * ramp  # mm: aero load settles the car
    k_roll, k_pitch = 10.0, 12.0  # mm of stroke per deg
    noise = rng.normal(0.0, 0.05, (len(t), 4))
    strokes = np.column_stack(
        [
            -k_roll * roll + k_pitch * pitch - heave,  # FL: rebounds in + roll
            +k_roll * roll + k_pitch * pitch - heave,  # FR
            -k_roll * roll - k_pitch * pitch - heave,  # RL
            +k_roll * roll - k_pitch * pitch - heave,  # RR
        ]
    )
    strokes[t < 2.0] = 0.0
    strokes += noise
    fl = strokes[:, 0] + FL_ZERO_ERROR_MM
    fr_volts = (DESIGN_LENGTH_MM - strokes[:, 1] - VOLT_OFFSET) / VOLT_GAIN
    rl = strokes[:, 2].copy()
    rr_length = DESIGN_LENGTH_MM - strokes[:, 3]
    dropout = (t >= 4.00) & (t < 4.05)
    rl[dropout] = np.nan  # the logger lost the RL pot for 50 ms
    spike = np.argmin(np.abs(t - 7.31))
    fl[spike] = 34.0 + FL_ZERO_ERROR_MM  # an electrical spike beyond the damper's travel
    lines = [
        '"Format","SYNTHETIC example log (scripts/make_replay_example.py)"',
        '"Vehicle","fsae_car"',
        '"Sample Rate","100","Hz"',
        "",
        '"Time","Damper Pos FL","Damper FR","Damper Pos RL","Damper RR Len",'
        '"Steered Angle","Roll Angle","Pitch Angle"',
        '"s","mm","V","mm","mm","deg","deg","deg"',
    ]
    for i in range(len(t)):
        cells = (t[i], fl[i], fr_volts[i], rl[i], rr_length[i], steer[i], roll[i], pitch[i])
        lines.append(",".join("" if np.isnan(v) else f"{v + 0.0:.4f}" for v in cells))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=OUT, help=f"default {OUT}")
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "log.csv").write_text(make_log(), encoding="utf-8")
    (args.out_dir / "map.yaml").write_text(MAP, encoding="utf-8")
    print(f"wrote {args.out_dir / 'log.csv'} and {args.out_dir / 'map.yaml'} (synthetic)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
