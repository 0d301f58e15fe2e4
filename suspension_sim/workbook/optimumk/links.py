"""What joins an OptimumK suspension's parts and what springs it: the ``Attachment`` block
(the Push Pull rod's and the Reference Point's body), the tie rod's attachment, ``Rack
Pinion`` (the Steering Ratio) and ``Stiffness`` (coilover spring rates and preloads), read
into an `AxleExport`.

Given twice, or on one side only, is an error at the cell; a blank Steering Ratio and
numbers beside the columns read are warnings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from suspension_sim import units
from suspension_sim.workbook.cells import Cell, fail, number
from suspension_sim.workbook.optimumk.export import (
    ANTI_ROLL_BAR_BLOCKS,
    STIFFNESS_UNITS,
    AxleExport,
    FileValue,
    member,
    reference_attachment,
)
from suspension_sim.workbook.optimumk.sheets import SIDES, Block, Sheet, Side, label_key, side_name


# -- Attachment, tie rod, rack ------------------------------------------------------------------
def read_attachment(block: Block, export: AxleExport) -> None:
    """``Element | point | group | member`` rows: the Push Pull rod's and the Reference
    Point's body (member in E, else D), a tie rod's (the cell right of the label)."""
    sheet = block.sheet
    for r in block.rows():
        element = label_key(sheet.text(r, 2))
        if not element or element == "element":
            block.refuse_unlabelled(r, "element")
            continue
        target = sheet.cell(r, 5) if sheet.text(r, 5) else sheet.cell(r, 4)
        if element == "pushpull":
            if export.push_pull_on is not None:
                fail(
                    sheet.cell(r, 2),
                    "the Push Pull attachment is given twice (first at"
                    f" {export.push_pull_on[1].ref})",
                    "keep one Push Pull row",
                )
            export.push_pull_on = (
                member(target, "the Push Pull rod", ("LowerAArm", "UpperAArm", "Upright")),
                target,
            )
            block.note_stray(r, range(2, 6))
        elif element in ("referencepoint", "referencepoints"):
            if not target.text:
                target = sheet.after(r, 2)
            reference_attachment(export, target)
            block.note_stray(r, {*range(2, 6), target.col})
        elif element.startswith(ANTI_ROLL_BAR_BLOCKS):
            continue  # the bar itself is not imported (warned at its block)
        elif element.startswith("tierod"):
            block.note_stray(r, tie_rod_attachment(sheet, r, export))
        else:
            fail(
                sheet.cell(r, 2),
                f"attachment of {sheet.text(r, 2)!r} cannot be imported yet",
                "the importer reads the Push Pull, Reference Point and Tie Rod attachments",
            )


def tie_rod_attachment(sheet: Sheet, r: int, export: AxleExport, col: int = 2) -> set[int]:
    """``Tierod Attachment`` (label at (r, col)): its value is the next cell to the right
    (after a group name). Returns the columns read; a second attachment is an error."""
    cell = sheet.after(r, col)
    used = {col, cell.col}
    if label_key(cell.text or "") in ("doubleaarm", "rackpinion"):  # group, then member
        cell = sheet.after(r, cell.col)
        used.add(cell.col)
    if export.tie_rod_on is not None:
        fail(
            cell,
            f"the tie rod's attachment is given twice (first at {export.tie_rod_on[1].where})",
            "keep one Tierod Attachment",
        )
    export.tie_rod_on = (member(cell, "the tie rod", ("Chassis", "LowerAArm", "UpperAArm")), cell)
    return used


def read_rack(block: Block, export: AxleExport) -> None:
    """``Steering Ratio`` (rack travel per steering-wheel turn, its value the first cell
    right of the label). Blank or absent: the rack has no ratio, with a warning."""
    sheet = block.sheet
    export.has_rack, export.rack_cell = True, block.title_cell
    ratio_row: Cell | None = None
    for r in block.rows():
        label = label_key(sheet.text(r, 2))
        if label == "steeringratio":
            if ratio_row is not None:
                fail(
                    sheet.cell(r, 2),
                    f"the Steering Ratio is given twice (first at {ratio_row.ref})",
                    "keep one row",
                )
            ratio_row = sheet.cell(r, 2)
            cell = sheet.after(r, 2)
            v = number(cell, "Steering Ratio (rack travel per steering-wheel turn)")
            if v is not None and v <= 0:
                fail(cell, f"Steering Ratio must be positive, found {v:g}", "enter mm per turn")
            if v is None:
                export.warnings.append(_no_ratio(cell.where, "is blank"))
            else:
                export.steering_ratio = FileValue(v, cell)
            block.note_stray(r, {2, cell.col})
        elif label == "tierodattachment":
            block.note_stray(r, tie_rod_attachment(sheet, r, export))
        elif label:
            fail(
                sheet.cell(r, 2),
                f"unknown Rack Pinion field {sheet.text(r, 2)!r}",
                "the importer reads the Steering Ratio (rack travel per steering-wheel turn)",
            )
        else:
            block.refuse_unlabelled(r, "field name")
    if ratio_row is None:
        export.warnings.append(_no_ratio(block.title_cell.where, "row is missing"))


def _no_ratio(where: str, what: str) -> str:
    return (
        f"{where}: the Rack Pinion's Steering Ratio {what}: the car imports with a rack and no"
        " ratio, so a steering-wheel angle (OptimumK's Motion [Steering]) cannot be turned into"
        " rack travel until the Steering section's Steering ratio is entered"
    )


# -- Stiffness -----------------------------------------------------------------------------------
def stiffness_unit_in(cells: Sequence[Cell]) -> tuple[str, Cell] | None:
    """The first cell naming a spring-rate unit (``N/mm``, ``[N/m]``, ``Stiffness (N/mm)``)."""
    spellings = {_unit_key(u): u for u in STIFFNESS_UNITS}
    for cell in cells:
        if not isinstance(cell.value, str):
            continue
        for text in [cell.value, *re.findall(r"[\[(]([^\])]*)[\])]", cell.value)]:
            unit = spellings.get(_unit_key(text))
            if unit is not None:
                return unit, cell
    return None


def _unit_key(text: str) -> str:
    return re.sub(r"\s", "", text.casefold()).replace("lbs/", "lb/")


def read_stiffness(block: Block, export: AxleExport, skip_anti_roll_bars: bool) -> None:
    """The Stiffness block (layout of a team's real exports, docs/optimumk.md): a row per
    element, its kind in B (``Spring``), the element in C (``Push Pull``), the Left value in
    D and the Right one in H (a ``Left``/``Right`` header moves them); a bar's single value
    in F. Spring rates in the unit the block or User Options states, else N/mm (a warning);
    a ``Preload`` row in the User Options force unit. A spring or preload row given twice
    is an error."""
    sheet = block.sheet
    left_col, right_col = block.side_columns(default=(4, 8))
    header = [sheet.cell(r, c) for r in (block.first, block.first + 1) for c in range(2, 12)]
    unit = stiffness_unit_in(header) or export.stiffness_unit
    rows: dict[str, Cell] = {}
    for r in block.rows():
        label_cell = sheet.cell(r, 2)
        label = label_key(label_cell.text or "")
        row_cells = [sheet.cell(r, c) for c in range(2, 12)]
        if {"left", "right"} & {label_key(c.text or "") for c in row_cells}:
            continue  # the header
        if not label:
            block.refuse_unlabelled(r, "kind")
            continue
        if label.startswith(ANTI_ROLL_BAR_BLOCKS):
            if not skip_anti_roll_bars:
                fail(
                    label_cell,
                    f"the anti-roll bar stiffness {label_cell.text!r} cannot be imported yet:"
                    " the importer does not read OptimumK's bar blocks",
                    "import the car without the bar with skip_anti_roll_bars=True, then add"
                    " the bar and its rate in the Anti-roll Bars section",
                )
            export.warnings.append(
                f"{label_cell.where}: anti-roll bar stiffness {label_cell.text!r} not imported"
                " (the bar is not imported)"
            )
            continue
        is_spring = label in ("spring", "springs", "coilover", "springrate")
        is_preload = "preload" in label
        if not (is_spring or is_preload):
            fail(
                label_cell,
                f"unknown Stiffness row {label_cell.text!r}",
                "the importer reads the Spring rate (and Preload) of the Push Pull coilovers,"
                " and anti-roll bar rows with skip_anti_roll_bars",
            )
        kind = "preload" if is_preload else "spring"
        if kind in rows:
            fail(
                label_cell,
                f"the Stiffness block gives the {kind} of the Push Pull twice: at"
                f" {rows[kind].ref} and here",
                "keep one row",
            )
        rows[kind] = label_cell
        element = sheet.cell(r, 3)
        if element.text and label_key(element.text) not in ("pushpull", "coilover", "spring"):
            fail(
                element,
                f"a spring on {element.text!r} cannot be imported (only on the Push Pull)",
                "the importer reads the coilover spring of the Push Pull element",
            )
        values = _stiffness_values(sheet, r, label_cell, left_col, right_col)
        block.note_stray(r, {2, 3, left_col, right_col})
        if is_preload:
            factor = units.force_factor(export.force_unit)
            for side, (v, _cell) in values.items():
                export.preloads[side] = v * factor
            continue
        row_unit = stiffness_unit_in(row_cells[2:])
        if row_unit is not None:
            unit = row_unit
        if unit is None:
            unit = ("N/mm", None)
            export.warnings.append(
                f"{label_cell.where}: the file states no stiffness unit; spring rates read in"
                " N/mm (OptimumK's usual display unit)"
            )
        for side, (v, cell) in values.items():
            if v <= 0:
                fail(cell, f"spring rate must be positive, found {v:g}", "enter the rate")
            export.springs[side] = v * STIFFNESS_UNITS[unit[0]]


def _stiffness_values(
    sheet: Sheet, r: int, label_cell: Cell, left_col: int, right_col: int
) -> dict[Side, tuple[float, Cell]]:
    """Both sides' values of a Stiffness row; one side only, or none, is an error."""
    values: dict[Side, tuple[float, Cell]] = {}
    for side, col in zip(SIDES, (left_col, right_col), strict=True):
        cell = sheet.cell(r, col)
        v = number(cell, f"{label_cell.text} ({side_name(side)})")
        if v is not None:
            values[side] = (v, cell)
    if not values:
        fail(
            sheet.cell(r, left_col),
            f"the {label_cell.text!r} row gives no value in its Left and Right cells"
            f" ({sheet.cell(r, left_col).ref}, {sheet.cell(r, right_col).ref})",
            "give both sides' values, or delete the row",
        )
    if len(values) == 1:
        missing: Side = "R" if "L" in values else "L"
        fail(
            sheet.cell(r, right_col if missing == "R" else left_col),
            f"the {label_cell.text!r} row gives one side only",
            "give the Left and the Right value",
        )
    return values
