"""OptimumK-layout Excel files written with openpyxl (no OptimumK involved).

* `write_suspension`: a suspension export (title block in column B, blocks
  titled in column A: User Options, Double A-Arm, Push Pull, Wheels,
  Attachment, Rack Pinion, Stiffness), the layout docs/optimumk.md reads;
* `write_setup`: a vehicle setup export (User Options, Setup);
* `write_result`: a result export (title block, header row
  `Quantity [Side] [Axle] (unit)`, the statistic rows Maximum / Minimum /
  Average / Std Deviation Value, then one `Step [n]` row per step).

Lengths mm, angles deg.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

Row = list[Any]
WHEEL_FIELDS = (
    "Half Track",
    "Longitudinal Offset",
    "Lateral Offset",
    "Vertical Offset",
    "Static Camber",
    "Static Toe",
    "Rim Diameter",
    "Tire Diameter",
    "Tire Width",
)
DOUBLE_A_ARM = (
    "CHAS_LowFor",
    "CHAS_LowAft",
    "CHAS_UppFor",
    "CHAS_UppAft",
    "UPRI_LowPnt",
    "UPRI_UppPnt",
    "CHAS_TiePnt",
    "UPRI_TiePnt",
)
PUSH_PULL = (
    "NSMA_PPAttPnt",
    "CHAS_AttPnt",
    "CHAS_RocAxi",
    "CHAS_RocPiv",
    "ROCK_RodPnt",
    "ROCK_CoiPnt",
)


def _save(path: Path, sheets: Mapping[str, Sequence[Row]]) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    for i, (title, rows) in enumerate(sheets.items()):
        ws = wb.active if i == 0 else wb.create_sheet()
        assert ws is not None
        ws.title = title
        for row in rows:
            ws.append(list(row))
    path = Path(path)
    wb.save(path)
    return path


def _title(name: str, kind: str) -> list[Row]:
    return [
        [None, "Name:", name],
        [None, "Type:", kind, "Created by:", "validation/optimumk_slvs (not OptimumK)"],
        [None, "Version:", "2.0.2 layout"],
        [],
        ["User Options", "Length", "millimeter", "mm"],
        [None, "Angle", "degree", "deg"],
        [None, "Stiffness", "newton/millimeter", "N/mm"],
    ]


def write_suspension(
    path: Path,
    *,
    name: str,
    axle: str,
    points: Mapping[str, Mapping[str, tuple[float, float, float]]],
    wheels: Mapping[str, float],
    push_pull_on: str,
    rack_mm_per_rev: float | None,
    spring_n_per_mm: float,
) -> Path:
    """One suspension export. points: {OptimumK name (Push Pull names without _L):
    {"L": (x, y, z), "R": (x, y, z)}} in the file's frame (mm); wheels: the Wheels
    block, the same on both sides (mm, deg)."""

    def point_row(label: str, p: Mapping[str, tuple[float, float, float]]) -> Row:
        return [None, label, *p["L"], None, *p["R"]]

    def pair(label: str, value: object) -> Row:
        return [None, label, value, None, None, None, value]

    rows = _title(name, "Suspension")
    rows += [
        [],
        ["Double A-Arm", "Point Name", "Left", None, None, None, "Right"],
        [None, None, "X", "Y", "Z", None, "X", "Y", "Z"],
        *(point_row(n, points[n]) for n in DOUBLE_A_ARM),
    ]
    if rack_mm_per_rev is None:
        rows.append([None, "Tierod Attachment", "Chassis"])
    rows += [
        [],
        ["Push Pull", "Point Name", "Left", None, None, None, "Right"],
        [None, None, "X", "Y", "Z", None, "X", "Y", "Z"],
        *(point_row(f"{n}_L", points[n]) for n in PUSH_PULL),
        [],
        ["Wheels", "Point Name", "Left", None, None, None, "Right"],
        *(pair(f, wheels[f]) for f in WHEEL_FIELDS),
        [],
        ["Attachment", "Element", None, "Attached To"],
        [None, "Push Pull", "NSMA_PPAttPnt", "Double A-Arm", push_pull_on],
    ]
    if rack_mm_per_rev is not None:
        rows += [[], ["Rack Pinion", "Steering Ratio", rack_mm_per_rev]]
    rows += [
        [],
        ["Stiffness", None, None, "Left", None, None, None, "Right"],
        [None, "Spring", "Push Pull", spring_n_per_mm, None, None, None, spring_n_per_mm],
    ]
    return _save(path, {f"{axle} Suspension": rows})


def write_setup(
    path: Path, *, name: str, front: str, rear: str, setup: Mapping[str, float]
) -> Path:
    """A vehicle setup export (Reference Distance mm; percentages as OptimumK shows them)."""
    rows = _title(name, "Vehicle Setup")
    rows += [[], ["Setup", "Front Suspension", front], [None, "Rear Suspension", rear]]
    rows += [[None, k, v] for k, v in setup.items()]
    return _save(path, {"Vehicle Setup": rows})


STATISTICS = ("Maximum Value", "Minimum Value", "Average Value", "Std Deviation Value")


def _cell(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def write_result(
    path: Path, title: Sequence[tuple[str, str]], columns: Mapping[str, Sequence[float]]
) -> Path:
    """A result export: title rows, a blank row, the header row (column A blank), the
    statistic rows over the steps (blank cells ignored), then `Step [n]` rows."""
    rows: list[Row] = [[k, v] for k, v in title]
    rows += [["User Options"], ["Length", "mm"], ["Angle", "deg"], []]
    rows.append([None, *columns])
    data = np.array([list(v) for v in columns.values()], dtype=float)
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            stats = (
                np.nanmax(data, axis=1),
                np.nanmin(data, axis=1),
                np.nanmean(data, axis=1),
                np.nanstd(data, axis=1),
            )
    for label, values in zip(STATISTICS, stats, strict=True):
        rows.append([label, *(_cell(v) for v in values)])
    for i in range(data.shape[1]):
        rows.append([f"Step [{i}]", *(_cell(v) for v in data[:, i])])
    return _save(path, {"Results": rows})
