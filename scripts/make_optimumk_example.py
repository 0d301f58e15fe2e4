"""Write an example export in OptimumK's result layout, made by suspension_sim (not OptimumK).

Usage::

    python scripts/make_optimumk_example.py [WORKBOOK] [--out DIR] [--no-report]

Defaults: workbooks/fsae_car.xlsx, validation/optimumk_layout/. Drives the car
through motions in OptimumK's motion style (heave, roll, pitch, steering-wheel
angle, then all four at once; every tyre at its design contact-patch height),
computes every channel with OptimumK's definitions (suspension_sim.optimumk)
and writes them as OptimumK's v2.x result export does
(docs/validation.md, "OptimumK result exports"): a title block (Name, Type,
Version, User Options), a header row of ``Quantity [Side] [Axle] (unit)``
channels and ``Motion [Heave]`` ..., the table view's statistic rows (Maximum
Value ... Std Deviation Value) and one ``Step [n]`` row per step. It writes

    DIR/export.xlsx   the export (one sheet, "Results")
    DIR/report/       `suspension-sim validate WORKBOOK DIR/export.xlsx` (unless --no-report;
                      without its charts unless --plots)

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

STATISTICS = ("Maximum Value", "Minimum Value", "Average Value", "Std Deviation Value")


def motion(n: int = 9) -> np.ndarray:
    """(steps, 4): heave mm, roll deg, pitch deg, steering-wheel deg (OptimumK's signs:
    heave + up, roll + left up, pitch + nose down, steering + = rack toward +Y). Step 0 is
    the design state, as in every OptimumK result examined (validate compares nothing
    otherwise)."""
    ramp = np.linspace(-1.0, 1.0, n)
    zero = np.zeros(n)
    blocks = [
        np.column_stack([20.0 * ramp, zero, zero, zero]),
        np.column_stack([zero, 1.5 * ramp, zero, zero]),
        np.column_stack([zero, zero, 1.0 * ramp, zero]),
        np.column_stack([zero, zero, zero, 90.0 * ramp]),
        np.column_stack([-10.0 * ramp, 1.0 * ramp, -0.5 * ramp, 60.0 * ramp]),
    ]
    return np.vstack([np.zeros((1, 4)), *blocks])


def channels(model: suspension_sim.Model, steps: np.ndarray) -> tuple[list[str], list[list[float]]]:
    """(headers, columns) in OptimumK's v2.x names: the car moved in OptimumK's motion style
    (`suspension_sim.optimumk.motion.optimumk_motion`) and every channel OptimumK's
    definitions give (`suspension_sim.optimumk.channels.optimumk_channels`), each header
    with its unit in round brackets (none for a plain ratio)."""
    from suspension_sim.optimumk.channels import optimumk_channels, quantity, split_key
    from suspension_sim.optimumk.motion import optimumk_motion

    m = optimumk_motion(model, *(steps[:, i] for i in range(4)))
    if m.problems:
        raise SystemExit(f"steps not solved: {m.problems}")
    headers = ["Motion [Heave] (mm)", "Motion [Roll] (deg)", "Motion [Pitch] (deg)"]
    headers.append("Motion [Steering] (deg)")
    cols = [list(steps[:, i]) for i in range(4)]
    for key, values in optimumk_channels(model, m.poses, motion=m).items():
        if key.startswith("Motion ["):
            continue
        name, side, axle = split_key(key)
        scope = "corner" if side and axle else ("axle" if axle else ("side" if side else "car"))
        unit = quantity(name, scope).unit  # type: ignore[arg-type]
        headers.append(key if unit == "-" else f"{key} ({unit})")
        cols.append([float(v) for v in values])
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
    parser.add_argument(
        "--plots", action="store_true", help="also draw the report's charts (65 PNGs, 4 MB)"
    )
    args = parser.parse_args()

    def run() -> int:
        model = suspension_sim.load(args.workbook)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        steps = motion()
        headers, cols = channels(model, steps)
        name = f"{Path(args.workbook).stem}: heave, roll, pitch, steering, combined"
        export = write_xlsx(out / "export.xlsx", name, headers, cols)
        print(f"wrote {export}: {len(steps)} steps, {len(headers)} channels")
        if not args.no_report:
            from suspension_sim.cli import main as cli

            plots = [] if args.plots else ["--no-plots"]
            return cli(
                ["validate", args.workbook, str(export), "--out", str(out / "report"), *plots]
            )
        return 0

    return run_reporting_errors(run)


if __name__ == "__main__":
    raise SystemExit(main())
