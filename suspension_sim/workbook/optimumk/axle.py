"""One OptimumK suspension sheet, read as written: its units, axes, points, wheels,
attachments, rack and springs (`read_axle` -> `AxleExport`, file units and axes). The
blocks are read by `.points` and `.links`; ``User Options`` here.

Blocks read (docs/optimumk.md, "What the importer reads"): ``User Options`` (Length,
Angle, Force and Stiffness units, the coordinate system), ``Double A-Arm`` and ``Push
Pull`` (a point per row: name in B, Left X/Y/Z, a blank column, Right X/Y/Z), ``Wheels``
(a field per row: name in B, Left and Right values), ``Attachment``, ``Rack Pinion``
(Steering Ratio), ``Reference Point``, ``Stiffness``, ``Tierod Attachment``.

Nothing is dropped or invented without a word: a value given on one side and blank on the
other, a field or unit given twice (also under another spelling), a blank required value
and a number on a row without a name are errors naming the cell; numbers beside the
columns a block is read from, a blank Steering Ratio and a missing unit are warnings
naming the cell.
"""

from __future__ import annotations

from collections.abc import Sequence

from suspension_sim import units
from suspension_sim.workbook.cells import Cell, fail
from suspension_sim.workbook.optimumk.export import (
    ANTI_ROLL_BAR_BLOCKS,
    AXIS_LABELS,
    KNOWN_BLOCKS,
    STIFFNESS_LABELS,
    STIFFNESS_UNITS,
    SUPPORTED,
    AxleExport,
    is_point_row,
)
from suspension_sim.workbook.optimumk.links import (
    read_attachment,
    read_rack,
    read_stiffness,
    stiffness_unit_in,
    tie_rod_attachment,
)
from suspension_sim.workbook.optimumk.points import read_points, read_reference_points, read_wheels
from suspension_sim.workbook.optimumk.sheets import (
    Block,
    Sheet,
    is_number,
    label_key,
    matrix_text,
    option_rows,
    parse_matrix_text,
    read_matrix,
    unit_of,
)


def read_axle(sheet: Sheet, skip_anti_roll_bars: bool = False) -> AxleExport:
    """Read one suspension sheet (file units and axes)."""
    export = AxleExport(sheet=sheet.title, name=sheet.title_value("name"))
    blocks = sheet.blocks()
    stiffness: Block | None = None
    seen: dict[str, Cell] = {}
    read: list[tuple[Block, str]] = []
    for block in blocks:
        key = block.key
        canonical = KNOWN_BLOCKS.get(key)
        if canonical is None and key.startswith(ANTI_ROLL_BAR_BLOCKS):
            _anti_roll_bar(block, export, skip_anti_roll_bars)
            continue
        if canonical is None:
            fail(
                block.title_cell,
                f"the element type {block.title!r} cannot be imported yet",
                f"supported: {SUPPORTED}; build this suspension in a workbook by hand"
                " (docs/workbook.md), or remove the block from a copy of the export if it"
                " carries no kinematic element",
            )
        if canonical in seen:
            fail(
                block.title_cell,
                f"a second {canonical!r} block (the first is at {seen[canonical].ref})",
                "an export has each block once",
            )
        seen[canonical] = block.title_cell
        reads = _BLOCK_READS.get(canonical)
        if canonical == "User Options":
            _read_options(block, export)
        elif canonical in ("Double A-Arm", "Push Pull"):
            read_points(block, export, canonical)
        elif canonical == "Wheels":
            read_wheels(block, export)
        elif canonical == "Attachment":
            read_attachment(block, export)
        elif canonical == "Rack Pinion":
            read_rack(block, export)
        elif canonical == "Stiffness":
            stiffness = block  # read last: its unit may come from User Options
        elif canonical == "Reference Point":
            read_reference_points(block, export)
        elif canonical == "Tierod Attachment":
            used = tie_rod_attachment(sheet, block.first, export, block.col)
            block.note_stray(block.first, used)
            for r in block.rows()[1:]:
                block.note_stray(r, ())
        if reads is not None:
            read.append((block, reads))
    if stiffness is not None:
        read_stiffness(stiffness, export, skip_anti_roll_bars)
    if export.reference_points and export.reference_on is None:
        assert export.reference_cell is not None
        fail(
            export.reference_cell,
            "the Reference Point block gives a point but not the body it is attached to",
            "add its Attachment row (Reference Point | point | Chassis, or the A-arm or upright"
            " it is on)",
        )
    for needed in ("Double A-Arm", "Push Pull", "Wheels"):
        if needed not in seen:
            _missing_block(sheet, needed)
    if export.push_pull_on is None:
        _missing_block(sheet, "Attachment", "with a 'Push Pull' row (what the rod is attached to)")
    _unit_warnings(sheet, export, seen)
    for block, reads in read:
        warning = block.stray_warning(reads)
        if warning is not None:
            export.warnings.append(warning)
    far = sheet.far_warning()
    if far is not None:
        export.warnings.append(far)
    return export


_BLOCK_READS: dict[str, str] = {
    "Double A-Arm": "the name in B and the Left and Right X, Y, Z columns",
    "Push Pull": "the name in B and the Left and Right X, Y, Z columns",
    "Reference Point": "the name in B and the Left and Right X, Y, Z columns",
    "Wheels": "the field name in B and the Left and Right columns",
    "Attachment": "columns B to E",
    "Rack Pinion": "the Steering Ratio, the first value right of its label",
    "Stiffness": "the kind in B, the element in C and the Left and Right columns",
    "Tierod Attachment": "the first value right of its title",
}
"""Where each block's values are read, for the stray-number warning."""


def _unit_warnings(sheet: Sheet, export: AxleExport, seen: dict[str, Cell]) -> None:
    """Warnings for the units a file leaves out (read in mm, deg, N: OptimumK's defaults)."""
    where = seen["User Options"].where if "User Options" in seen else sheet.label
    for key, what, default in (("length", "Length", "mm"), ("angle", "Angle", "deg")):
        if key not in export.options:
            export.warnings.append(
                f"{where}: the file states no {what} unit (User Options); read in {default}"
            )
    if export.preloads and "force" not in export.options:
        export.warnings.append(
            f"{where}: the file states no Force unit (User Options); spring preloads read in N"
        )


def _anti_roll_bar(block: Block, export: AxleExport, skip: bool) -> None:
    sheet = block.sheet
    names = [sheet.text(r, 2) for r in block.rows() if is_point_row(sheet, r)]
    if not skip:
        fail(
            block.title_cell,
            f"the anti-roll bar {block.title!r} cannot be imported yet: the importer"
            " does not read OptimumK's bar blocks",
            "import the car without it with skip_anti_roll_bars=True (the bar adds no"
            " kinematic constraint, so the kinematics are unchanged), then add the bar"
            " in the workbook's Anti-roll Bars section (docs/workbook.md)",
        )
    export.warnings.append(
        f"{block.title_cell.where}: anti-roll bar block {block.title!r} not imported"
        f" (points {', '.join(names) or 'none'}): the importer does not read bar"
        " blocks yet; the kinematics without the bar are unchanged (add the bar in"
        " the Anti-roll Bars section)"
    )


def _missing_block(sheet: Sheet, block: str, detail: str = "") -> None:
    titles = [b.title for b in sheet.blocks()]
    fail(
        sheet.label,
        f"no {block!r} block {detail}".rstrip()
        + f" (blocks found in column A: {', '.join(map(repr, titles)) or 'none'})",
        "export the whole suspension from OptimumK; the importer needs the Double A-Arm,"
        " Push Pull, Wheels and Attachment blocks",
    )


def _once(export: AxleExport, key: str, cell: Cell, what: str) -> None:
    """Error when `what` (a User Options row) was given before."""
    if key in export.options:
        first = export.options[key]
        fail(
            cell,
            f"User Options gives the {what} twice ({first.ref} {first.text!r} and here)",
            "keep one row",
        )
    export.options[key] = cell


# -- User Options ---------------------------------------------------------------------------------
def _read_options(block: Block, export: AxleExport) -> None:
    """Length and Angle units, the stiffness and force units (for the Stiffness block) and
    the coordinate system: a row labelled as one (`AXIS_LABELS` words), or any row whose
    value is a 3x3 matrix written as text. A row given twice is an error; a number beside
    a unit is a warning."""
    ignored: list[str] = []
    rows = option_rows(block)
    i = 0
    while i < len(rows):
        label_cell, values = rows[i][0], rows[i][1:]
        label = label_key(label_cell.text or "")
        i += 1
        if is_number(label_cell):
            fail(
                label_cell,
                "a number without a label in User Options (not part of a coordinate-system matrix)",
                "write the matrix beside its label, three numbers on each of three rows",
            )
        if label in ("length", "angle", "force"):
            _once(export, label, label_cell, label_cell.text or label)
            unit = unit_of(label_cell, values, _UNIT_KINDS[label])
            if label == "length":
                export.length_unit = unit
            elif label == "angle":
                export.angle_unit = unit
            else:
                export.force_unit = unit
            _stray_beside_unit(block, label_cell, values, export)
        elif label in STIFFNESS_LABELS:
            _once(export, "stiffness", label_cell, "stiffness unit")
            unit_cell = stiffness_unit_in(values)
            if unit_cell is None:
                where = values[0] if values else label_cell
                fail(
                    where,
                    f"unknown stiffness unit {where.text!r}",
                    f"valid: {', '.join(STIFFNESS_UNITS)}",
                )
            export.stiffness_unit = unit_cell
            _stray_beside_unit(block, label_cell, values, export)
        elif label in AXIS_LABELS or matrix_text(values):
            _once(export, "axes", label_cell, "coordinate system")
            if label not in AXIS_LABELS:
                export.warnings.append(
                    f"{label_cell.where}: the matrix under {label_cell.text!r} read as the"
                    " coordinate system"
                )
            if values and isinstance(values[0].value, str) and not is_number(values[0]):
                export.axis_map = parse_matrix_text(values[0].value, values[0].where)
                _stray_beside_unit(block, label_cell, values, export, 1)
            else:
                export.axis_map = read_matrix(label_cell, values, rows[i : i + 2])
                i += 2
            export.axis_cell = label_cell
        else:
            ignored.append(label_cell.text or "")
    if ignored:
        export.warnings.append(
            f"{block.title_cell.where}: User Options rows not read: {', '.join(ignored)} (only"
            " Length, Angle, Force, Stiffness and the coordinate system are used)"
        )


_UNIT_KINDS: dict[str, units.Kind] = {"length": "length", "angle": "angle", "force": "force"}


def _stray_beside_unit(
    block: Block, label: Cell, values: Sequence[Cell], export: AxleExport, skip: int = 0
) -> None:
    """A warning for numbers beside a unit (``Length | millimeter | mm | 25.4``): not read."""
    found = [c for c in values[skip:] if is_number(c)]
    if found:
        export.warnings.append(
            f"{found[0].where}: the number {found[0].text} beside {label.text!r} in"
            f" {block.title!r} is not read (the row gives a unit, not a value)"
        )
