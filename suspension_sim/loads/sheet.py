"""The Load Cases section of a car workbook: one row per case and wheel (docs/loads.md).

Read with the workbook reader's section reading
(`suspension_sim.workbook.cells.read_section`), so its index row, header and
cells follow the rules of every other section and every error names the cell
(``car.xlsx: Load Cases!C4``). Rows with the same Case name form one case.
Forces are in the workbook's force unit (User Options), torques and the
contact-patch moments Mx, My, Mz in N m (lbf ft when the force unit is lbf), in
the row's Axes. Application: ``contact`` (default) or ``design`` (the force on the
line through the design contact point, OptimumK's rule).
"""

from __future__ import annotations

from pathlib import Path

from suspension_sim import units
from suspension_sim.description import Car
from suspension_sim.errors import WorkbookError
from suspension_sim.loads.cases import APPLICATIONS, AXES, Application, Axes, LoadCase, WheelLoad
from suspension_sim.names import did_you_mean
from suspension_sim.workbook.cells import Cell, number, read_section
from suspension_sim.workbook.schema import LOAD_CASES, Column

SHEET_COLUMNS: tuple[Column, ...] = (
    Column("Case", aliases=("Name", "Load case")),
    Column("Wheel"),
    Column("Fx"),
    Column("Fy"),
    Column("Fz"),
    Column("Brake torque", optional=True, aliases=("Brake",)),
    Column("Drive torque", optional=True, aliases=("Drive",)),
    Column("Axes", optional=True),
    Column("Description", optional=True),
    Column("Mx", optional=True),
    Column("My", optional=True),
    Column("Mz", optional=True),
    Column("Application", optional=True, aliases=("Applied at", "Force line")),
)
"""The Load Cases section's columns (those after Fz are optional, in this order; a
column used needs the ones before it in the header, which may stay blank)."""
SHEET_HEADER: tuple[str, ...] = tuple(c.name for c in SHEET_COLUMNS)

LBF_FT_IN_NM = 4.4482216152605 * 0.3048
"""N m per lbf ft."""
MAX_FORCE_N = 1e6
"""No wheel force or torque of a car is larger (a unit mix-up)."""


def load_cases_sheet(path: str | Path, car: Car) -> list[LoadCase]:
    """The workbook's load cases in order of first appearance ([] without the section).

    Forces converted to N with the workbook's force unit, torques to N m;
    WorkbookError at the cell for an unknown wheel, a repeated wheel within a
    case, a blank or absurd number or an unknown Axes word.
    """
    records = read_section(path, LOAD_CASES, SHEET_COLUMNS)
    if not records:
        return []
    force_unit = car.options.force_unit
    factor = units.to_internal(1.0, _force_factor(force_unit))
    torque_factor = LBF_FT_IN_NM if force_unit.casefold() in ("lbf", "lb", "lbs") else 1.0
    torque_unit = "lbf ft" if torque_factor != 1.0 else "N m"
    wheels = [w.name for w in car.wheels]
    cases: dict[str, dict[str, WheelLoad]] = {}
    texts: dict[str, str] = {}
    first: dict[str, str] = {}
    for rec in records:
        name_cell = rec["Case"]
        assert name_cell is not None
        name = name_cell.text or ""
        wheel_cell = rec["Wheel"]
        wheel = wheel_cell.text if wheel_cell is not None else None
        if not wheel:
            raise WorkbookError(
                f"load case {name!r}: the wheel is blank",
                where=(wheel_cell or name_cell).where,
                hint=f"name one of the car's wheels: {', '.join(wheels)}",
            )
        if wheel not in wheels:
            assert wheel_cell is not None
            raise WorkbookError(
                f"load case {name!r}: no wheel {wheel!r} in this car."
                + did_you_mean(wheel, wheels),
                where=wheel_cell.where,
                hint=f"the car's wheels are {', '.join(wheels)} (Wheels section)",
            )
        loads = cases.setdefault(name, {})
        first.setdefault(name, name_cell.where)
        if wheel in loads:
            assert wheel_cell is not None
            raise WorkbookError(
                f"load case {name!r} gives wheel {wheel!r} twice",
                where=wheel_cell.where,
                hint="one row per wheel and case",
            )
        force = tuple(
            _value(rec[c], f"{c} of {name!r}/{wheel}", force_unit, required=True) * factor
            for c in ("Fx", "Fy", "Fz")
        )
        brake = _value(rec["Brake torque"], "brake torque", torque_unit) * torque_factor
        drive = _value(rec["Drive torque"], "drive torque", torque_unit) * torque_factor
        axes = _axes(rec["Axes"])
        moment = tuple(
            _value(rec[c], f"{c} of {name!r}/{wheel}", torque_unit) * torque_factor
            for c in ("Mx", "My", "Mz")
        )
        loads[wheel] = WheelLoad(
            (force[0], force[1], force[2]),
            axes,
            brake,
            drive,
            (moment[0], moment[1], moment[2]),
            _application(rec["Application"]),
        )
        desc = rec["Description"]
        if desc is not None and desc.text and name not in texts:
            texts[name] = desc.text
    return [LoadCase(n, w, texts.get(n, ""), first[n]) for n, w in cases.items()]


def _force_factor(unit: str) -> float:
    found = units.find_unit(unit)
    return found.factor if found is not None else 1.0


def _value(cell: Cell | None, what: str, unit: str, required: bool = False) -> float:
    """A number cell (0 when blank and not required)."""
    value = number(cell, what, MAX_FORCE_N, unit)
    if value is None:
        if required and cell is not None:
            raise WorkbookError(
                f"{what} is blank", where=cell.where, hint="enter a number (0 for none)"
            )
        return 0.0
    return value


def _axes(cell: Cell | None) -> Axes:
    """The Axes word: world (default) or wheel."""
    if cell is None or cell.blank:
        return "world"
    word = (cell.text or "").strip().casefold()
    if word not in AXES:
        raise WorkbookError(
            f"axes {cell.text!r} is not one of {', '.join(AXES)}." + did_you_mean(word, AXES),
            where=cell.where,
            hint="world = ISO ground axes (x forward, y left, z up); wheel = the wheel's "
            "longitudinal, lateral and vertical ground axes",
        )
    return "wheel" if word == "wheel" else "world"


def _application(cell: Cell | None) -> Application:
    """The Application word: contact (default) or design."""
    if cell is None or cell.blank:
        return "contact"
    word = (cell.text or "").strip().casefold()
    if word not in APPLICATIONS:
        raise WorkbookError(
            f"application {cell.text!r} is not one of {', '.join(APPLICATIONS)}."
            + did_you_mean(word, APPLICATIONS),
            where=cell.where,
            hint="contact = the force acts at the pose's contact point; design = on the line "
            "through the design contact point (how OptimumK applies its force cases)",
        )
    return "design" if word == "design" else "contact"
