"""OptimumK-layout Excel exports for tests, written with openpyxl from documented facts.

No third-party file is copied: the layout is the one docs/optimumk.md describes (from a
team's reader of its real exports and from a user's report of a real v2 export):

* a title block whose labels sit in column A (``Name:``, ``Type:``, ``Version:``,
  ``Comments:`` in A4), or in column B with ``title_col=2``; merged cells (the comment over
  B4:I5, the ``Left``/``Right`` headers over C:E and G:I, each block title over its
  header rows);
* ``User Options`` with Length and Angle (word in C, symbol in D) and the coordinate
  system as Excel stores multi-line text, ``[[1,0,0]_x000D_\\n [0,1,0]_x000D_\\n [0,0,1]]``;
* the point blocks (name in B, Left X Y Z in C:E, a blank column, Right X Y Z in G:I),
  Wheels (name in B, Left in C, Right in G), Attachment (``Push Pull | NSMA_PPAttPnt |
  Double A-Arm | UpperAArm``; ``Reference Point | name | Chassis``; ``Tierod Attachment |
  Chassis`` on the rear), Rack Pinion (front), a Reference Point block (empty by default)
  and Stiffness (``Spring | Push Pull | Left in D | ... | Right in H``).

Public API: `write_suspension_export`, `write_setup_export`, `suspension_sheet`,
`setup_sheet`, `write_sheets`, `cell_of`, `set_cell`, `set_cells`. Points are given in the FILE's
coordinates and length unit (``points_by_side["CHAS_LowFor"]["L"] = (x, y, z)``), Push
Pull names without the ``_L`` suffix (it is added on writing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import openpyxl
from openpyxl.utils import get_column_letter

Vec = tuple[float, float, float]
Row = list[Any]
Axle = Literal["front", "rear"]

DOUBLE_A_ARM: tuple[str, ...] = (
    "CHAS_LowFor",
    "CHAS_LowAft",
    "CHAS_UppFor",
    "CHAS_UppAft",
    "UPRI_LowPnt",
    "UPRI_UppPnt",
    "CHAS_TiePnt",
    "UPRI_TiePnt",
)
PUSH_PULL: tuple[str, ...] = (
    "NSMA_PPAttPnt",
    "ROCK_RodPnt",
    "CHAS_RocAxi",
    "CHAS_RocPiv",
    "ROCK_CoiPnt",
    "CHAS_AttPnt",
)
WHEEL_FIELDS: tuple[str, ...] = (
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
IDENTITY_TEXT = "[[1,0,0]_x000D_\n [0,1,0]_x000D_\n [0,0,1]]"
"""The coordinate-system text as a real export stores it (Excel's escaped CR, then LF)."""


@dataclass
class Sheet:
    """Rows (lists of cell values, row 1 first) and merged ranges (``"B4:I5"``)."""

    rows: list[Row]
    merges: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ReferencePoint:
    """A Reference Point row: its name, the file coordinates per side given ("L"/"R"),
    and the body it is attached to (``Chassis``, ``UpperAArm`` ...)."""

    name: str
    by_side: Mapping[str, Vec]
    attached_to: str = "Chassis"


def _title(rows: list[Row], merges: list[str], name: str, kind: str, col: int) -> None:
    pad: Row = [None] * (col - 1)
    rows += [
        [*pad, "Name:", name],
        [*pad, "Type:", kind, None, "Created by:", "tests"],
        [*pad, "Version:", "2.0.2", None, "Modified by:", "tests", "Modified on:", "2024-01-01"],
        [*pad, "Comments:", "first line\nsecond line", None, None, None, None, None, None],
        [],
    ]
    first = get_column_letter(col + 1)
    merges.append(f"{first}4:I5")


def _block_title_merge(merges: list[str], row: int, n: int) -> None:
    """Merge a block title (column A) over its first n rows."""
    if n > 1:
        merges.append(f"A{row}:A{row + n - 1}")


def suspension_sheet(
    axle: Axle,
    points_by_side: Mapping[str, Mapping[str, Vec]],
    wheels: Mapping[str, Mapping[str, float]],
    *,
    name: str | None = None,
    title_col: int = 1,
    length: tuple[str, str] = ("millimeter", "mm"),
    angle: tuple[str, str] = ("degree", "deg"),
    coordinate_label: str = "Coordinate System",
    coordinate_text: str | None = IDENTITY_TEXT,
    option_rows: Sequence[Row] = (),
    push_pull_on: str | None = None,
    tierod_attachment: str | None = None,
    rack_ratio: float | None = None,
    springs: Mapping[str, float] | None = None,
    preloads: Mapping[str, float] | None = None,
    stiffness_header: bool = False,
    reference_point: ReferencePoint | None = None,
    merged: bool = True,
    extra_blocks: Sequence[Sequence[Row]] = (),
) -> Sheet:
    """One suspension sheet in OptimumK's layout (see the module docstring).

    Defaults follow the real exports described in docs/optimumk.md: the push rod on the
    UpperAArm at the front and on the LowerAArm at the rear; a Rack Pinion (90 mm/rev)
    on the front; ``Tierod Attachment: Chassis`` on the rear only; an empty Reference
    Point block on the front. springs/preloads: {"L": rate, "R": rate} in the file's
    display units (N/mm, N), written to the Stiffness block. option_rows: extra User
    Options rows (e.g. ``[None, "Stiffness", "newton/meter", "N/m"]``).
    """
    rows: list[Row] = []
    merges: list[str] = []
    front = axle == "front"
    _title(
        rows, merges, name or f"Test car - {'Front' if front else 'Rear'}", "Suspension", title_col
    )
    rows += [
        ["User Options", "Length", *length],
        [None, "Angle", *angle],
        *[list(r) for r in option_rows],
    ]
    if coordinate_text is not None:
        rows.append([None, coordinate_label, coordinate_text])

    def header(title: str) -> list[Row]:
        return [
            [title, "Point Name", "Left", None, None, None, "Right"],
            [None, None, "X", "Y", "Z", None, "X", "Y", "Z"],
        ]

    def point_rows(names: Sequence[str], suffix: str) -> list[Row]:
        out = []
        for n in names:
            left, right = points_by_side[n]["L"], points_by_side[n]["R"]
            out.append([None, n + suffix, *left, None, *right])
        return out

    blocks: list[list[Row]] = [
        [*header("Double A-Arm"), *point_rows(DOUBLE_A_ARM, "")],
        [*header("Push Pull"), *point_rows(PUSH_PULL, "_L")],
        [
            ["Wheels", "Point Name", "Left", None, None, None, "Right"],
            *(
                [None, f, wheels["L"][f], None, None, None, wheels["R"][f]]
                for f in WHEEL_FIELDS
                if f in wheels["L"]
            ),
        ],
    ]
    ref_rows = header("Reference Point")
    if reference_point is not None:
        p = reference_point.by_side
        left = list(p["L"]) if "L" in p else [None] * 3
        right = list(p["R"]) if "R" in p else [None] * 3
        ref_rows.append([None, reference_point.name, *left, None, *right])
    if front or reference_point is not None:
        blocks.append(ref_rows)
    pp_on = push_pull_on or ("UpperAArm" if front else "LowerAArm")
    attachment: list[Row] = [
        ["Attachment", "Element", None, "Attached To"],
        [None, "Push Pull", "NSMA_PPAttPnt", "Double A-Arm", pp_on],
    ]
    if reference_point is not None:
        attachment.append(
            [None, "Reference Point", reference_point.name, reference_point.attached_to]
        )
    tie = tierod_attachment if tierod_attachment is not None else (None if front else "Chassis")
    if tie is not None:
        attachment += [[], [None, "Tierod Attachment", tie]]
    blocks.append(attachment)
    ratio = rack_ratio if rack_ratio is not None else (90.0 if front else None)
    if ratio is not None:
        blocks.append([["Rack Pinion", "Steering Ratio", ratio]])
    if springs is not None or preloads is not None:
        stiff: list[Row] = []
        if stiffness_header:
            stiff.append(["Stiffness", "Element", "Attached To", "Left", None, None, None, "Right"])
        if springs is not None:
            stiff.append(
                [None, "Spring", "Push Pull", springs["L"], None, None, None, springs["R"]]
            )
        if preloads is not None:
            stiff.append(
                [None, "Preload", "Push Pull", preloads["L"], None, None, None, preloads["R"]]
            )
        stiff[0][0] = "Stiffness"
        blocks.append(stiff)
    blocks += [list(map(list, b)) for b in extra_blocks]
    for block in blocks:
        rows.append([])
        start = len(rows) + 1
        rows += block
        if merged and block and block[0] and block[0][0] is not None:
            if len(block) > 1 and block[1] and block[1][0] is None and block[0][0] != "Stiffness":
                _block_title_merge(merges, start, 2)
            if len(block[0]) > 6 and block[0][2] == "Left" and block[0][6] == "Right":
                merges += [f"C{start}:E{start}", f"G{start}:I{start}"]
    return Sheet(rows, merges if merged else [])


def setup_sheet(
    *,
    name: str = "Test car",
    reference_distance: float = 1530.0,
    cg_height: float = 280.9,
    front_mass_pct: float = 47.0,
    left_mass_pct: float = 50.0,
    brake_bias_pct: float = 65.0,
    drive_bias_pct: float = 0.0,
    length: tuple[str, str] = ("millimeter", "mm"),
    title_col: int = 1,
) -> Sheet:
    """A vehicle setup sheet: title block, User Options and the Setup block (label in B,
    value in C; percentages as percent: Brake/Drive Bias = front share)."""
    rows: list[Row] = []
    merges: list[str] = []
    _title(rows, merges, name, "Vehicle Setup", title_col)
    rows += [
        ["User Options", "Length", *length],
        [None, "Angle", "degree", "deg"],
        [],
        ["Setup", "Front Suspension", f"{name} - Front"],
        [None, "Rear Suspension", f"{name} - Rear"],
        [None, "Reference Distance", reference_distance],
        [None, "Front Mass Distribution", front_mass_pct],
        [None, "Left Mass Distribution", left_mass_pct],
        [None, "Center of Gravity Height", cg_height],
        [None, "Brake Bias", brake_bias_pct],
        [None, "Drive Bias", drive_bias_pct],
    ]
    return Sheet(rows, merges)


def write_sheets(path: Path, sheets: Mapping[str, Sheet]) -> Path:
    """Write sheets (title -> Sheet) to an .xlsx file; returns the path."""
    wb = openpyxl.Workbook()
    first = True
    for title, sheet in sheets.items():
        ws = wb.active if first else wb.create_sheet()
        assert ws is not None
        ws.title = title
        first = False
        for row in sheet.rows:
            ws.append(list(row))
        for rng in sheet.merges:
            ws.merge_cells(rng)
    wb.save(path)
    return path


def write_suspension_export(
    path: Path,
    axle: Axle,
    points_by_side: Mapping[str, Mapping[str, Vec]],
    wheels: Mapping[str, Mapping[str, float]],
    *,
    sheet: str | None = None,
    **options: Any,
) -> Path:
    """A one-sheet suspension export (`suspension_sheet` options); sheet title default
    ``Front Suspension`` / ``Rear Suspension``."""
    title = sheet or ("Front Suspension" if axle == "front" else "Rear Suspension")
    return write_sheets(path, {title: suspension_sheet(axle, points_by_side, wheels, **options)})


def write_setup_export(path: Path, *, sheet: str = "Vehicle Setup", **options: Any) -> Path:
    """A one-sheet vehicle setup export (`setup_sheet` options)."""
    return write_sheets(path, {sheet: setup_sheet(**options)})


def cell_of(path: Path, text: Any, occurrence: int = 0) -> tuple[str, str]:
    """(sheet title, A1 reference) of the n-th cell whose value equals `text` (any value)."""
    wb = openpyxl.load_workbook(path)
    found = [
        (ws.title, c.coordinate)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if c.value == text
    ]
    return found[occurrence]


def set_cell(path: Path, sheet: str, ref: str, value: Any) -> None:
    """Overwrite one cell of an existing file (to build a malformed variant)."""
    set_cells(path, sheet, {ref: value})


def set_cells(path: Path, sheet: str, values: Mapping[str, Any]) -> None:
    """Overwrite cells of an existing file ({"C33": value, ...}; None blanks a cell)."""
    wb = openpyxl.load_workbook(path)
    for ref, value in values.items():
        wb[sheet][ref] = value
    wb.save(path)
