"""The Anti-roll Bars section of a car workbook: U-bars (two arms on the bar axis)
and T-bars (one lever on a pivot, its shaft square to the pivot axis).

Torsional rates are converted to N mm/rad. Split from
`suspension_sim.workbook.reader`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from suspension_sim import units
from suspension_sim.description import (
    ANTI_ROLL_BAR_KINDS,
    CHASSIS,
    AntiRollBar,
    Body,
    Damper,
    Rack,
    t_bar_axes,
    u_bar_arm_fault,
)
from suspension_sim.names import did_you_mean
from suspension_sim.tolerances import TBAR_SQUARE_DEG
from suspension_sim.workbook.cells import Cell, Table, fail, name_of, number, positive, records
from suspension_sim.workbook.reader_bodies import BodyReader
from suspension_sim.workbook.reader_sections import coincide
from suspension_sim.workbook.schema import ANTI_ROLL_BARS, SECTION_COLUMNS


class BarReader(BodyReader):
    """Reads the Anti-roll Bars rows."""

    # -- Anti-roll Bars -------------------------------------------------------------------
    def read_bars(
        self, table: Table, dampers: Sequence[Damper], rack: Rack | None
    ) -> tuple[AntiRollBar, ...]:
        """The Anti-roll Bars rows (rate converted to N mm/rad)."""
        bars: list[AntiRollBar] = []
        seen: dict[str, Cell] = {}
        arm_of: dict[str, str] = {}
        special = {d.body: "a damper" for d in dampers}
        if rack is not None:
            special[rack.body] = "the steering rack"
        for rec in records(table, SECTION_COLUMNS[ANTI_ROLL_BARS]):
            cell = rec["Bar"]
            assert cell is not None
            name = cell.text or ""
            if name in seen:
                fail(
                    cell,
                    f"anti-roll bar {name!r} is listed twice: {seen[name].ref} and {cell.ref}",
                    "give each bar its own name",
                )
            seen[name] = cell
            bar = self.read_bar(name, cell, rec, special)
            for arm, arm_cell in zip(bar.arms, (rec["Arm 1"], rec["Arm 2"]), strict=False):
                if arm in arm_of:
                    assert arm_cell is not None
                    fail(
                        arm_cell,
                        f"body {arm!r} is an arm of anti-roll bars {arm_of[arm]!r} and {name!r}",
                        "each bar has its own arms (or lever)",
                    )
                arm_of[arm] = name
            bars.append(bar)
        return tuple(bars)

    def read_bar(
        self, name: str, cell: Cell, rec: dict[str, Cell | None], special: dict[str, str]
    ) -> AntiRollBar:
        what = f"anti-roll bar {name!r}"
        kind = self.bar_kind(rec["Type"], what, cell)
        chassis = self.bodies[CHASSIS]
        arm_cells = (rec["Arm 1"], rec["Arm 2"])
        axis_cells = (rec["Axis point 1"], rec["Axis point 2"])
        axis = (
            self.require_point_on(axis_cells[0], chassis, f"{what} axis point 1", cell),
            self.require_point_on(axis_cells[1], chassis, f"{what} axis point 2", cell),
        )
        if axis[0] == axis[1] or coincide(self.xyz[axis[0]], self.xyz[axis[1]]):
            fail(
                axis_cells[1] or cell,
                f"{what}: axis points {axis[0]!r} and {axis[1]!r} are at the same place",
                "the bar's axis runs between two distinct chassis points",
            )
        rate = self.bar_rate(rec["Torsional rate"], what, cell)
        shaft_cell = rec["Shaft point"]
        if kind == "U-bar":
            arms = (
                self.bar_arm(arm_cells[0], f"{what} arm 1", cell, special),
                self.bar_arm(arm_cells[1], f"{what} arm 2", cell, special),
            )
            if arms[0].name == arms[1].name:
                fail(
                    arm_cells[1] or cell,
                    f"{what}: arm 1 and arm 2 are the same body {arms[0].name!r}",
                    "a U-bar has two arms, one at each end of the bar",
                )
            if shaft_cell is not None and not shaft_cell.blank:
                fail(
                    shaft_cell,
                    f"{what}: a U-bar has no shaft point (found {shaft_cell.text!r})",
                    "clear the cell: the bar twists about Axis point 1 -> Axis point 2",
                )
            for arm, arm_cell in zip(arms, arm_cells, strict=True):
                fault = u_bar_arm_fault(arm, chassis, self.xyz, axis)
                if fault is not None:
                    assert arm_cell is not None
                    fail(
                        arm_cell,
                        f"{what}: {fault}",
                        "list the arm's bearing points (on the bar axis) on both its row and"
                        " the Chassis row in Components, or fix Axis point 1 and 2",
                    )
            return AntiRollBar(
                name, kind, (arms[0].name, arms[1].name), axis, rate, source=cell.source
            )
        lever = self.bar_arm(arm_cells[0], f"{what} lever (arm 1)", cell, special)
        if arm_cells[1] is not None and not arm_cells[1].blank:
            fail(
                arm_cells[1],
                f"{what}: a T-bar has one lever (Arm 1), found Arm 2 {arm_cells[1].text!r}",
                "clear Arm 2: the lever's pivot is Axis point 1",
            )
        shared = [p for p in lever.points if p in chassis.points]
        if axis[0] not in lever.points:
            assert axis_cells[0] is not None
            fail(
                axis_cells[0],
                f"{what}: axis point 1 {axis[0]!r} (the pivot) is not a point of the lever"
                f" {lever.name!r} (its points: {', '.join(lever.points)})",
                "axis point 1 is the lever's pivot: list it on the lever and Chassis rows",
            )
        if shared != [axis[0]]:
            assert arm_cells[0] is not None
            others = [p for p in shared if p != axis[0]]
            fail(
                arm_cells[0],
                f"{what}: the lever {lever.name!r} shares {', '.join(others)} with the Chassis"
                f" besides its pivot {axis[0]!r}",
                "a T-bar lever has one chassis point, its pivot (Axis point 1); axis point 2"
                " is a chassis point off the lever",
            )
        if axis[1] in lever.points:
            assert axis_cells[1] is not None
            fail(
                axis_cells[1],
                f"{what}: axis point 2 {axis[1]!r} is a point of the lever {lever.name!r}",
                "axis point 2 is a chassis point off the lever: with the pivot it gives the"
                " axis the lever turns about freely (heave, pitch)",
            )
        shaft = self.require_point_on(shaft_cell, lever, f"{what} shaft point", cell)
        assert shaft_cell is not None
        if shaft == axis[0] or coincide(self.xyz[shaft], self.xyz[axis[0]]):
            fail(
                shaft_cell,
                f"{what}: the shaft point {shaft!r} is at the pivot {axis[0]!r}",
                "the shaft (torsion) axis runs from the pivot to the shaft point",
            )
        _, _, miss = t_bar_axes(self.xyz[axis[0]], self.xyz[axis[1]], self.xyz[shaft])
        if miss > TBAR_SQUARE_DEG:
            fail(
                shaft_cell,
                f"{what}: the shaft axis {axis[0]} -> {shaft} is {90.0 - miss:.3f} deg from"
                f" the pivot axis {axis[0]} -> {axis[1]}, not 90 deg (within"
                f" {TBAR_SQUARE_DEG:g} deg)",
                "the lever's two axes must be perpendicular (a cross-shaped universal joint):"
                " move the shaft point or axis point 2",
            )
        return AntiRollBar(name, kind, (lever.name,), axis, rate, shaft, source=cell.source)

    @staticmethod
    def bar_kind(cell: Cell | None, what: str, fallback: Cell) -> str:
        """U-bar or T-bar (any case; spaces and hyphens optional)."""
        words = {re.sub(r"[^a-z]", "", k.casefold()): k for k in ANTI_ROLL_BAR_KINDS}
        text = name_of(cell)
        kind = words.get(re.sub(r"[^a-z]", "", (text or "").casefold()))
        if kind is None:
            fail(
                cell or fallback,
                f"{what}: Type must be {' or '.join(ANTI_ROLL_BAR_KINDS)}, found"
                f" {'nothing' if text is None else repr(text)}",
                "U-bar: two arms on the bar axis; T-bar: one lever on a pivot (docs/workbook.md)",
            )
        return kind

    def bar_arm(
        self, cell: Cell | None, what: str, fallback: Cell, special: dict[str, str]
    ) -> Body:
        """An arm (or T-bar lever): a Components body, not the Chassis, a damper or rack."""
        if cell is None or cell.blank:
            fail(cell or fallback, f"{what} is blank", "name a body from Components")
        name = cell.text or ""
        if name not in self.bodies:
            hint = "name a body listed in Components"
            if self.symmetry:
                hint += (
                    "; with Symmetry a right arm is generated from the left one's row: name"
                    " it by its twin's name (FL_ARB -> FR_ARB)"
                )
            fail(
                cell,
                f"{what}: body {name!r} is not in Components." + did_you_mean(name, self.bodies),
                hint,
            )
        if name == CHASSIS or name in special:
            fail(
                cell,
                f"{what}: {name!r} is "
                + ("the Chassis" if name == CHASSIS else special[name])
                + ", not an arm",
                "name the bar's own arm body (a lever on the chassis)",
            )
        return self.bodies[name]

    def bar_rate(self, cell: Cell | None, what: str, fallback: Cell) -> float:
        """Torsional rate in (force unit)(length unit)/(angle unit), as N mm/rad."""
        o = self.options
        unit = f"{o.force_unit} {o.length_unit}/{o.angle_unit}"
        value = number(cell, f"torsional rate of {what}", unit=unit)
        if value is None:
            fail(cell or fallback, f"torsional rate of {what} is blank", f"enter it in {unit}")
        positive(cell, value, f"torsional rate of {what} ({unit})")
        per_rad = units.force_factor(o.force_unit) * self.factor
        return value * per_rad / units.angle_factor(o.angle_unit)
