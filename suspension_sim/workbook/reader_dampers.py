"""The Damping section of a car workbook: dampers, third springs and their springs.

Rates are converted to N/mm, preloads to N, lengths to mm; a design length outside
the given min/max, or a spring that pulls, is a warning. Split from
`suspension_sim.workbook.reader`.
"""

from __future__ import annotations

from suspension_sim import units
from suspension_sim.description import CHASSIS, Damper, ThirdSpring, damper_length
from suspension_sim.tolerances import LIMIT_SLACK_MM
from suspension_sim.workbook.cells import (
    Cell,
    Table,
    fail,
    matches,
    norm,
    number,
    positive,
    records,
)
from suspension_sim.workbook.reader_bodies import BodyReader
from suspension_sim.workbook.reader_sections import coincide
from suspension_sim.workbook.schema import DAMPING, DAMPING_TYPES, SECTION_COLUMNS


class DamperReader(BodyReader):
    """Reads the Damping rows (dampers and third springs)."""

    # -- Damping ----------------------------------------------------------------------------
    def read_dampers(self, table: Table) -> tuple[tuple[Damper, ...], tuple[ThirdSpring, ...]]:
        """The Damping rows: dampers (Type blank or ``damper``) and third springs (Type
        ``third``), each in row order."""
        dampers: list[Damper] = []
        thirds: list[ThirdSpring] = []
        seen: dict[str, Cell] = {}
        chassis = self.bodies[CHASSIS]
        self.check_spring_header(table)
        for rec in records(table, SECTION_COLUMNS[DAMPING]):
            cell = rec["Damper body"]
            assert cell is not None
            if self.damping_type(rec["Type"]) == "third":
                thirds.append(self.read_third_spring(rec, cell, seen))
                continue
            body = self.require_body(cell, "damper")
            if body.name == CHASSIS:
                fail(cell, "a damper cannot be the Chassis", "name the damper's own body")
            if body.name in seen:
                fail(
                    cell,
                    f"damper {body.name!r} is listed twice: {seen[body.name].ref} and {cell.ref}",
                    "one row per damper",
                )
            seen[body.name] = cell
            cp = self.require_point_on(
                rec["Chassis point"], body, f"damper {body.name!r} chassis point", cell
            )
            if cp not in chassis.points:
                fail(
                    rec["Chassis point"] or cell,
                    f"damper {body.name!r}: chassis point {cp!r} is not on the Chassis body",
                    "the chassis point is where the damper is mounted to the chassis: list it on"
                    " both the damper and the Chassis rows in Components",
                )
            mp = self.require_point_on(
                rec["Moving point"], body, f"damper {body.name!r} moving point", cell
            )
            if mp == cp:
                fail(
                    rec["Moving point"] or cell,
                    f"damper {body.name!r}: moving point equals the chassis point",
                    "name the damper's other eye",
                )
            lo, hi = self.length_limits(rec, f"damper {body.name!r}", cell)
            rate, preload, free = self.read_spring(rec, body.name, cell)
            damper = Damper(
                body.name,
                cp,
                mp,
                lo,
                hi,
                source=cell.source,
                spring_rate=rate,
                spring_preload=preload,
                spring_free_length=free,
            )
            self.warn_damper_length(damper, cell)
            self.warn_loose_spring(
                f"damper {damper.body!r}", damper.spring_free_length, (cp, mp), cell
            )
            dampers.append(damper)
        return tuple(dampers), tuple(thirds)

    @staticmethod
    def damping_type(cell: Cell | None) -> str:
        """The Type of a Damping row: ``damper`` (blank) or ``third``."""
        if cell is None or cell.blank:
            return DAMPING_TYPES[0]
        word = norm(cell.text or "")
        if word not in DAMPING_TYPES:
            fail(
                cell,
                f"Damping Type must be {' or '.join(DAMPING_TYPES)}, found {cell.text!r}",
                "leave it blank (or 'damper') for a damper body; 'third' makes the row a third"
                " (heave) spring between its Chassis point and Moving point",
            )
        return word

    def read_third_spring(
        self, rec: dict[str, Cell | None], cell: Cell, seen: dict[str, Cell]
    ) -> ThirdSpring:
        """A Damping row of Type ``third``: a spring between two points (not a body)."""
        name = cell.text or ""
        what = f"third spring {name!r}"
        if name in self.bodies:
            fail(
                cell,
                f"{what} has the name of a body in Components, but a third spring is not a"
                " body: it only joins its two end points",
                "give it a name of its own that is not a Components body, and name its ends"
                " in Chassis point and Moving point (points of any bodies)",
            )
        if name in seen:
            fail(
                cell,
                f"{name!r} is listed twice in Damping: {seen[name].ref} and {cell.ref}",
                "one row per damper or third spring",
            )
        seen[name] = cell
        ends = (
            self.require_point_on_a_body(rec["Chassis point"], f"{what} first end", cell),
            self.require_point_on_a_body(rec["Moving point"], f"{what} second end", cell),
        )
        if ends[0] == ends[1] or coincide(self.xyz[ends[0]], self.xyz[ends[1]]):
            fail(
                rec["Moving point"] or cell,
                f"{what}: its two ends {ends[0]!r} and {ends[1]!r} are at the same place",
                "a third spring acts along the line between two distinct points",
            )
        lo, hi = self.length_limits(rec, what, cell)
        rate, preload, free = self.read_spring(rec, name, cell, noun="third spring")
        if rate is None:
            fail(
                rec["Spring rate"] or cell,
                f"{what} has no spring rate",
                "fill in Spring rate (force unit per length unit): a third spring is only a spring",
            )
        length = damper_length(self.xyz[ends[0]], self.xyz[ends[1]])
        slack = LIMIT_SLACK_MM
        if (lo is not None and length < lo - slack) or (hi is not None and length > hi + slack):
            self.warnings.append(
                f"{cell.where}: {what} is {length:.3f} mm long at the design condition,"
                " outside its min/max lengths"
            )
        self.warn_loose_spring(what, free, ends, cell)
        return ThirdSpring(
            name,
            ends,
            lo,
            hi,
            source=cell.source,
            spring_rate=rate,
            spring_preload=preload,
            spring_free_length=free,
        )

    @staticmethod
    def check_spring_header(table: Table) -> None:
        """A column right of Max length that is not a spring column is an unexpected
        column (as before the spring columns existed), not a misspelt spring header."""
        columns = SECTION_COLUMNS[DAMPING]
        last = len(columns) - 1
        for i, cell in enumerate(table.header):
            if i != last and matches(cell, columns[last]):
                fail(
                    cell,
                    f"{table.label}: the {columns[last].name!r} column must be the last one,"
                    f" after {columns[last - 1].name!r}",
                    "write the header "
                    + " | ".join(c.name for c in columns)
                    + " (the spring columns may stay blank below their headers)",
                )
        first = next(i for i, c in enumerate(columns) if c.name == "Spring rate")
        if len(table.header) <= first:
            return
        cell = table.header[first]
        if cell.blank or any(matches(cell, c) for c in columns[first:]):
            return
        names = " | ".join(c.name for c in columns)
        fail(
            cell,
            f"{table.label}: unexpected column {cell.text!r}",
            f"the first row of the range must be the header: {names} (the last five optional)",
        )

    def length_limits(
        self, rec: dict[str, Cell | None], what: str, cell: Cell
    ) -> tuple[float | None, float | None]:
        """Min and Max length of a Damping row (mm, each optional, > 0, min <= max);
        `what` names the row's item in messages."""
        lo = self.length(rec["Min length"], f"min length of {what}")
        hi = self.length(rec["Max length"], f"max length of {what}")
        positive(rec["Min length"], lo, f"min length of {what}")
        positive(rec["Max length"], hi, f"max length of {what}")
        if lo is not None and hi is not None and lo > hi:
            fail(
                rec["Min length"] or cell,
                f"{what}: min length is greater than max length",
                "swap them, or check the units",
            )
        return lo, hi

    def read_spring(
        self, rec: dict[str, Cell | None], damper: str, cell: Cell, noun: str = "damper"
    ) -> tuple[float | None, float | None, float | None]:
        """The optional spring of a Damping row: rate (N/mm), preload (N), free length
        (mm), converted from the workbook's force and length units. `noun` names the
        row's item in messages (damper or third spring)."""
        force_unit, length_unit = self.options.force_unit, self.options.length_unit
        to_n = units.force_factor(force_unit)
        rate_cell, preload_cell, free_cell = (
            rec["Spring rate"],
            rec["Spring preload"],
            rec["Spring free length"],
        )
        what = f"spring rate of {noun} {damper!r}"
        rate = number(rate_cell, what, unit=f"{force_unit}/{length_unit}")
        positive(rate_cell, rate, what)
        what = f"spring preload of {noun} {damper!r}"
        preload = number(preload_cell, what, unit=force_unit)
        if preload is not None and preload < 0:
            assert preload_cell is not None
            fail(
                preload_cell,
                f"{what} must be 0 or more, found {preload:g}",
                "the preload is the spring force at the design length (a coil spring pushes)",
            )
        free = self.length(free_cell, f"spring free length of {noun} {damper!r}")
        positive(free_cell, free, f"spring free length of {noun} {damper!r}")
        if rate is None:
            given = preload_cell if preload is not None else free_cell if free is not None else None
            if given is not None:
                fail(
                    given,
                    f"{noun} {damper!r}: a spring preload or free length needs a spring rate",
                    "fill in Spring rate, or clear the cell",
                )
            return None, None, None
        if preload is not None and free is not None:
            assert free_cell is not None
            fail(
                free_cell,
                f"{noun} {damper!r}: give the spring preload or the free length, not both",
                "clear one of the two cells (the other follows from the rate)",
            )
        rate_n_mm = units.to_internal(rate, to_n) / self.factor
        return rate_n_mm, None if preload is None else units.to_internal(preload, to_n), free

    # -- warnings ---------------------------------------------------------------------------
    def warn_loose_spring(
        self, what: str, free_length: float | None, ends: tuple[str, str], cell: Cell
    ) -> None:
        """Warn when a spring's free length is shorter than its design length (it pulls)."""
        if free_length is None:
            return
        length = damper_length(self.xyz[ends[0]], self.xyz[ends[1]])
        if free_length < length - LIMIT_SLACK_MM:
            self.warnings.append(
                f"{cell.where}: the spring of {what} is {length:.3f} mm long at"
                f" the design condition, longer than its free length"
                f" {free_length:.3f} mm: it pulls (a linear spring is assumed)"
            )

    def warn_damper_length(self, damper: Damper, cell: Cell) -> None:
        """Warn when the design length (as `Car.damper_design_length`) is outside
        [min, max] by more than `LIMIT_SLACK_MM`."""
        length = damper_length(self.xyz[damper.chassis_point], self.xyz[damper.moving_point])
        lo, hi = damper.min_length, damper.max_length
        slack = LIMIT_SLACK_MM
        if (lo is not None and length < lo - slack) or (hi is not None and length > hi + slack):
            self.warnings.append(
                f"{cell.where}: damper {damper.body!r} is {length:.3f} mm long at the design"
                f" condition, outside its min/max lengths"
            )
