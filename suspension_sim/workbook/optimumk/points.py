"""The point blocks (``Double A-Arm``, ``Push Pull``, ``Reference Point``) and the ``Wheels``
block of an OptimumK suspension sheet, read into an `AxleExport` (file units and axes).

Point rows: the name in B, Left X Y Z, a blank column, Right X Y Z (a ``Left``/``Right``
header moves them). Wheels rows: the field in B, its Left and Right values. A value given
on one side and blank on the other, a field or point given twice (also under another
spelling), a blank required value and a number on a row with no name are errors at the
cell; numbers beside the columns read are a warning (`Block.stray_warning`).
"""

from __future__ import annotations

import re

from suspension_sim import units
from suspension_sim.tolerances import MAX_COORDINATE_MM
from suspension_sim.workbook.cells import Cell, fail, number
from suspension_sim.workbook.optimumk.export import (
    ANGLE_WHEEL_FIELDS,
    DOUBLE_A_ARM_POINTS,
    POINT_NAMES,
    POSITION_WHEEL_FIELDS,
    PUSH_PULL_POINTS,
    REQUIRED_WHEEL_FIELDS,
    WHEEL_FIELDS,
    AxleExport,
    FileValue,
    is_point_row,
    point_key,
    reference_attachment,
    xyz_columns,
)
from suspension_sim.workbook.optimumk.links import tie_rod_attachment
from suspension_sim.workbook.optimumk.sheets import SIDES, Block, Side, Vec, label_key, side_name


# -- point blocks ---------------------------------------------------------------------------------
def read_points(block: Block, export: AxleExport, canonical: str) -> None:
    sheet = block.sheet
    left_col, right_col = block.side_columns()
    allowed = DOUBLE_A_ARM_POINTS if canonical == "Double A-Arm" else PUSH_PULL_POINTS
    unit = export.length_unit
    limit = MAX_COORDINATE_MM / units.length_factor(unit)
    for r in block.rows():
        if not is_point_row(sheet, r):
            block.refuse_unlabelled(r, "point name")
            continue
        name_cell = sheet.cell(r, 2)
        label = name_cell.text or ""
        if label_key(label) == "tierodattachment":
            block.note_stray(r, tie_rod_attachment(sheet, r, export))
            continue
        point = POINT_NAMES.get(point_key(label))
        if point is None or point not in allowed:
            fail(
                name_cell,
                f"unknown point {label!r} in the {canonical!r} block",
                f"the {canonical} block holds {', '.join(allowed)}; another element type"
                " cannot be imported yet",
            )
        if point in export.points:
            first = export.points[point]["L"][1]
            fail(
                name_cell,
                f"point {label!r} is given twice (first at {first.ref})",
                "keep one row per point",
            )
        sides: dict[Side, tuple[Vec, Cell]] = {}
        for side, col in zip(SIDES, (left_col, right_col), strict=True):
            xyz = []
            for c in range(col, col + 3):
                cell = sheet.cell(r, c)
                what = f"{'XYZ'[c - col]} of {label} ({side_name(side)})"
                v = number(cell, what, limit, unit)
                if v is None:
                    fail(
                        cell,
                        f"{label}: a {side_name(side)} coordinate is blank",
                        "OptimumK exports give X, Y and Z of both sides; enter the number",
                    )
                xyz.append(v)
            sides[side] = ((xyz[0], xyz[1], xyz[2]), name_cell)
        export.points[point] = sides
        block.note_stray(r, xyz_columns(left_col, right_col))
    missing = [p for p in allowed if p not in export.points]
    if missing:
        fail(
            block.title_cell,
            f"the {canonical!r} block lacks {', '.join(missing)}",
            "export the whole suspension from OptimumK",
        )


def read_reference_points(block: Block, export: AxleExport) -> None:
    """The Reference Point block: point rows as in the point blocks (name in B, Left X Y Z,
    a blank column, Right X Y Z; a side left blank is not given), optionally an
    ``Attachment`` row (the body in the next cell). An empty block is skipped."""
    sheet = block.sheet
    export.reference_cell = block.title_cell
    if _listed_layout(block, export):
        return
    left_col, right_col = block.side_columns()
    limit = MAX_COORDINATE_MM / units.length_factor(export.length_unit)
    for r in block.rows():
        if not is_point_row(sheet, r):
            block.refuse_unlabelled(r, "point name")
            continue
        name_cell = sheet.cell(r, 2)
        label = name_cell.text or ""
        if label_key(label) in ("attachment", "attachedto"):
            target = sheet.after(r, 2)
            reference_attachment(export, target)
            block.note_stray(r, {2, target.col})
            continue
        name = re.sub(r"_[LR]$", "", label.strip(), flags=re.IGNORECASE)
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            fail(
                name_cell,
                f"Reference Point name {label!r} is not a point name (letters, digits, _)",
                "rename the point in OptimumK",
            )
        if name in export.reference_points:
            fail(name_cell, f"point {label!r} is given twice", "keep one row per point")
        sides: dict[Side, tuple[Vec, Cell]] = {}
        for side, col in zip(SIDES, (left_col, right_col), strict=True):
            cells = [sheet.cell(r, c) for c in range(col, col + 3)]
            what = side_name(side)
            values = [
                number(c, f"{'XYZ'[k]} of {label} ({what})", limit, export.length_unit)
                for k, c in enumerate(cells)
            ]
            if all(v is None for v in values):
                continue
            for c, v in zip(cells, values, strict=True):
                if v is None:
                    fail(c, f"{label}: a {what} coordinate is blank", "give X, Y and Z")
            sides[side] = ((values[0] or 0.0, values[1] or 0.0, values[2] or 0.0), name_cell)
        if not sides:
            fail(
                sheet.cell(r, left_col),
                f"Reference Point {label!r} gives no coordinates on either side",
                "give X, Y and Z of the Left and/or Right point, or delete the row",
            )
        export.reference_points[name] = sides
        block.note_stray(r, xyz_columns(left_col, right_col))


def _listed_layout(block: Block, export: AxleExport) -> bool:
    """OptimumK's own export writes the Reference Point block with a header row
    (``Reference Point Name | Attachement | X Y Z``, one point per row, no Left/Right;
    seen in a real export with the block empty). True when the block has that header:
    an empty block is skipped, and point rows under it are left out with a warning
    naming each (a reference point only measures, it moves no link, and how this layout
    attaches a point to a side is not established)."""
    sheet = block.sheet
    rows = block.rows()
    header = next(
        (r for r in rows if label_key(sheet.text(r, 2)) in ("referencepointname", "pointname")),
        None,
    )
    if header is None or not any(
        label_key(sheet.text(header, c)) in ("attachement", "attachment") for c in range(3, 7)
    ):
        return False
    for r in rows:
        if r <= header:
            continue
        cells = [sheet.cell(r, c) for c in range(2, 12)]
        if any(c.value not in (None, "") for c in cells):
            export.warnings.append(
                f"{sheet.cell(r, 2).where}: Reference Point {sheet.text(r, 2)!r} is not"
                " imported (a measuring point; OptimumK's one-point-per-row layout is not"
                " read yet)"
            )
    return True


# -- Wheels ---------------------------------------------------------------------------------------
def read_wheels(block: Block, export: AxleExport) -> None:
    """A field per row (`WHEEL_FIELDS`), its Left and Right values. Errors at the cell: a
    field given twice (also as Tire and Tyre Diameter), given on one side and blank on the
    other, or blank where no default exists; a missing required field. Warnings: no Rim
    Diameter (no Toe Distance), no Longitudinal or Vertical Offset row (read as 0)."""
    sheet = block.sheet
    left_col, right_col = block.side_columns()
    export.wheels = {"L": {}, "R": {}}
    rows: dict[str, Cell] = {}
    length = export.length_unit
    limit = MAX_COORDINATE_MM / units.length_factor(length)
    for r in block.rows():
        if not is_point_row(sheet, r):
            block.refuse_unlabelled(r, "field name")
            continue
        name_cell = sheet.cell(r, 2)
        canonical = WHEEL_FIELDS.get(label_key(name_cell.text or ""))
        if canonical is None:
            fail(
                name_cell,
                f"unknown Wheels field {name_cell.text!r}",
                "the importer reads " + ", ".join(dict.fromkeys(WHEEL_FIELDS.values())),
            )
        if canonical in rows:
            first = rows[canonical]
            fail(
                name_cell,
                f"the Wheels block gives {canonical} twice: {first.text!r} at {first.ref} and"
                f" {name_cell.text!r} here",
                "keep one row",
            )
        rows[canonical] = name_cell
        is_angle = canonical in ANGLE_WHEEL_FIELDS
        cells: dict[Side, Cell] = {"L": sheet.cell(r, left_col), "R": sheet.cell(r, right_col)}
        values = {
            side: (
                number(cell, f"{canonical} ({side_name(side)})")
                if is_angle
                else number(cell, f"{canonical} ({side_name(side)})", limit, length)
            )
            for side, cell in cells.items()
        }
        given = [s for s, v in values.items() if v is not None]
        if len(given) == 1:
            blank: Side = "R" if given[0] == "L" else "L"
            fail(
                cells[blank],
                f"{canonical} is given for the {side_name(given[0])} wheel"
                f" ({cells[given[0]].ref}) and blank for the {side_name(blank)} one",
                f"enter the {side_name(blank)} {canonical} (OptimumK gives both sides)",
            )
        if not given:
            if canonical in (*REQUIRED_WHEEL_FIELDS, *POSITION_WHEEL_FIELDS):
                fail(
                    cells["L"],
                    f"{canonical} is blank on both sides",
                    f"enter the {canonical} of both wheels"
                    + (
                        " (0 if that is what you mean)"
                        if canonical in POSITION_WHEEL_FIELDS
                        else ""
                    ),
                )
            if canonical == "Rim Diameter":
                export.warnings.append(
                    f"{cells['L'].where}: Rim Diameter is blank: OptimumK's Toe Distance"
                    " (rim diameter x sin toe) is not available for this axle"
                )
            # a blank Lateral Offset is 0, the only value supported (docs/optimumk.md)
        for side in given:
            v = values[side]
            assert v is not None
            export.wheels[side][canonical] = FileValue(v, cells[side])
        block.note_stray(r, {2, left_col, right_col})
    for needed in REQUIRED_WHEEL_FIELDS:
        if needed not in rows:
            fail(
                block.title_cell,
                f"the Wheels block has no {needed} row",
                f"add the {needed} row with Left and Right values",
            )
    absent = [f for f in POSITION_WHEEL_FIELDS if f not in rows]
    if absent:
        export.warnings.append(
            f"{block.title_cell.where}: the Wheels block has no {' and no '.join(absent)} row:"
            " read as 0 (an OptimumK export has both)"
        )
    if "Rim Diameter" not in rows:
        export.warnings.append(
            f"{block.title_cell.where}: the Wheels block has no Rim Diameter row: OptimumK's"
            " Toe Distance (rim diameter x sin toe) is not available for this axle"
        )
