"""OptimumK's vehicle setup sheet (`read_setup` -> `VehicleSetup`): the Reference Distance
that places the rear suspension's origin, and the CG height, brake and drive bias and mass
distribution the car's options take (lengths to mm, percentages to fractions).

Labels in B (or A), values in the next cell. An unknown row, a row given twice, a blank
value and a number on a row with no label are errors naming the cell; a number beside a
row's value is a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from suspension_sim import units
from suspension_sim.tolerances import MAX_COORDINATE_MM
from suspension_sim.workbook.cells import Cell, fail, number
from suspension_sim.workbook.optimumk.sheets import Block, Sheet, label_key, option_rows, unit_of

SETUP_NAMES = frozenset({"frontsuspension", "rearsuspension", "vehicle", "setup"})
"""Setup rows naming the suspensions (not numbers)."""

SETUP_ROWS: dict[str, str] = {
    "referencedistance": "Reference Distance",
    "centerofgravityheight": "Center of Gravity Height",
    "centreofgravityheight": "Center of Gravity Height",
    "cgheight": "Center of Gravity Height",
    "brakebias": "Brake Bias",
    "drivebias": "Drive Bias",
    "frontmassdistribution": "Front Mass Distribution",
    "massdistributionfront": "Front Mass Distribution",
    "frontmass": "Front Mass Distribution",
    "leftmassdistribution": "Left Mass Distribution",
    "massdistributionleft": "Left Mass Distribution",
    "leftmass": "Left Mass Distribution",
}
"""Numeric Setup rows (label key -> the row's name; several spellings of one row)."""


@dataclass
class VehicleSetup:
    """The vehicle setup sheet: Reference Distance (mm) and what else we use.

    Shares are fractions 0..1 (the sheet gives percent): front_mass_share of the mass on
    the front axle, front_brake_share of the braking at the front, rear_drive_share = 1 -
    Drive Bias (front share of the drive)."""

    name: str | None = None
    reference_distance_mm: float | None = None
    cg_height_mm: float | None = None
    front_brake_share: float | None = None
    rear_drive_share: float | None = None
    front_mass_share: float | None = None
    warnings: list[str] = field(default_factory=list)
    where: str = ""
    """Where it was read (the sheet), or that none was given: named by the warnings."""


def _percent(cell: Cell, what: str) -> float:
    """A percentage 0..100 as a fraction; a value in (0, 1] is refused as a likely
    fraction (60 % written 0.6)."""
    v = _value(cell, what)
    if not 0 <= v <= 100:
        fail(cell, f"{what} {v:g} is not a percentage", "enter 0..100")
    if 0 < v <= 1:
        fail(
            cell,
            f"{what} {v:g} reads as {v:g} %: a fraction?",
            f"enter the share in percent ({v * 100:g} for {v:g})",
        )
    return v / 100.0


def _value(cell: Cell, what: str, limit: float | None = None, unit: str = "") -> float:
    """A number that must be given: blank is an error at the cell."""
    v = number(cell, what) if limit is None else number(cell, what, limit, unit)
    if v is None:
        fail(cell, f"the {what} is blank", f"enter the {what}, or delete the row")
    return v


def read_setup(sheet: Sheet) -> VehicleSetup:
    """Reference Distance, CG height, brake and drive bias, mass distribution of a vehicle
    setup sheet (lengths to mm, percentages to fractions)."""
    length_unit: str | None = None
    setup = VehicleSetup(name=sheet.title_value("name") or None)
    blocks = sheet.blocks()
    for block in blocks:
        if block.key == "useroptions":
            for cells in option_rows(block):
                if label_key(cells[0].text or "") == "length":
                    if length_unit is not None:
                        fail(cells[0], "User Options gives the Length unit twice", "keep one")
                    length_unit = unit_of(cells[0], cells[1:], "length")
    factor = units.length_factor(length_unit or "mm")
    seen: dict[str, Cell] = {}
    for block in blocks:
        if block.key == "useroptions":
            continue
        for r in block.rows():
            # A Setup block's rows are labelled in B; any other title in A is itself a row
            # label (an unknown one is an error at its cell).
            col = block.col if r == block.first and block.key != "setup" else 2
            label_cell = sheet.cell(r, col)
            label = label_key(label_cell.text or "")
            if not label:
                block.refuse_unlabelled(r, "label")
                continue
            cell = sheet.after(r, col)
            name = SETUP_ROWS.get(label)
            if name is not None:
                if name in seen:
                    fail(
                        label_cell,
                        f"the setup gives the {name} twice (first at {seen[name].ref})",
                        "keep one row",
                    )
                seen[name] = label_cell
            _setup_row(setup, name or label, label_cell, cell, length_unit or "mm", factor)
            block.note_stray(r, {col, cell.col})
        warning = _stray(block)
        if warning is not None:
            setup.warnings.append(warning)
    lengths = [n for n in ("Reference Distance", "Center of Gravity Height") if n in seen]
    if lengths and length_unit is None:
        setup.warnings.append(
            f"{sheet.label}: the setup states no Length unit (User Options); its"
            f" {' and '.join(lengths)} read in mm"
        )
    far = sheet.far_warning()
    if far is not None:
        setup.warnings.append(far)
    return setup


def _stray(block: Block) -> str | None:
    return block.stray_warning("the label and the first value right of it")


def _setup_row(
    setup: VehicleSetup,
    name: str,
    label_cell: Cell,
    cell: Cell,
    length_unit: str,
    factor: float,
) -> None:
    """One row of the Setup block into `setup` (name: the row's `SETUP_ROWS` name, else its
    label key)."""
    limit = MAX_COORDINATE_MM / factor
    if name in SETUP_NAMES:
        return
    if name in ("Reference Distance", "Center of Gravity Height"):
        v = _value(cell, name, limit, length_unit)
        if v <= 0:
            fail(cell, f"the {name} must be a positive length", "enter it")
        if name == "Reference Distance":
            setup.reference_distance_mm = units.to_internal(v, factor)
        else:
            setup.cg_height_mm = units.to_internal(v, factor)
    elif name == "Brake Bias":
        setup.front_brake_share = _percent(cell, name)
    elif name == "Drive Bias":
        setup.rear_drive_share = 1.0 - _percent(cell, name)
    elif name == "Front Mass Distribution":
        setup.front_mass_share = _percent(cell, name)
    elif name == "Left Mass Distribution":
        left = _percent(cell, name)
        setup.warnings.append(
            f"{cell.where}: Left Mass Distribution {left * 100:g} % not imported: no"
            " channel of the car uses it (the workbook has no left mass share)"
        )
    else:
        fail(
            label_cell,
            f"unknown Setup row {label_cell.text!r}",
            "the importer reads Reference Distance, Brake Bias, Drive Bias, Front and Left"
            " Mass Distribution and Center of Gravity Height",
        )
