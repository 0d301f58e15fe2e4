"""Hard Points and Components of a car workbook: the points (model frame, mm), the
bodies, and the look-ups of bodies and points every later section uses.

With the Symmetry option the right-side points and bodies are generated here
(`suspension_sim.workbook.mirror`). Split from `suspension_sim.workbook.reader`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from suspension_sim import units
from suspension_sim.description import CHASSIS, Body, Point
from suspension_sim.names import did_you_mean
from suspension_sim.workbook import mirror
from suspension_sim.workbook.cells import (
    Cell,
    Table,
    fail,
    matches,
    name_of,
    norm,
    records,
    required_number,
)
from suspension_sim.workbook.reader_sections import SectionReader
from suspension_sim.workbook.schema import COMPONENTS_COLUMNS, HARD_POINTS, SECTION_COLUMNS


class BodyReader(SectionReader):
    """Reads Hard Points and Components, and names bodies and points for the other sections."""

    # -- Hard Points -----------------------------------------------------------------
    def read_points(self, table: Table) -> list[Point]:
        points: list[Point] = []
        opts = self.options
        for rec in records(table, SECTION_COLUMNS[HARD_POINTS]):
            cell = rec["Point"]
            assert cell is not None
            name = cell.text or ""
            if name in self.point_cells:
                first = self.point_cells[name]
                fail(
                    cell,
                    f"point {name!r} is defined twice in Hard Points: {first.sheet}!{first.ref}"
                    f" and {cell.sheet}!{cell.ref}",
                    "delete or rename one of them",
                )
            # Each coordinate is range-checked at its own cell, in the workbook's unit,
            # before it is converted (the axis map only permutes and flips axes).
            xyz = tuple(
                required_number(
                    rec[axis],
                    f"{axis} coordinate of point {name!r}",
                    cell,
                    self.length_limit,
                    opts.length_unit,
                )
                for axis in "XYZ"
            )
            model = units.workbook_to_model(xyz, opts.length_unit, opts.axis_map)
            self.point_cells[name] = cell
            self.xyz[name] = model
            points.append(Point(name, model, source=cell.source))
        return points

    def mirror_points(self, points: list[Point]) -> int:
        """Symmetry: add the twins of the left points (in place); returns how many. A twin
        is looked up at its left point's cell."""
        mirrored, count = mirror.mirror_points(points)
        cells = {cell.source: cell for cell in self.point_cells.values()}
        for p in mirrored:
            if p.name not in self.point_cells:
                assert p.source is not None
                self.point_cells[p.name] = cells[p.source]
                self.xyz[p.name] = p.xyz
                self.twins.add(p.name)
        points[:] = mirrored
        return count

    # -- Components --------------------------------------------------------------------
    def read_bodies(self, table: Table) -> int:
        """Read Components (with the Symmetry twins); returns how many bodies were generated."""
        self.check_components_header(table)
        typed: list[Body] = []
        for row in table.rows:
            body_cell, point_cells = row[0], [c for c in row[1:] if not c.blank]
            if body_cell.blank:
                fail(body_cell, "Components: points listed without a body name", "name the body")
            name = body_cell.text or ""
            if name in self.body_cells:
                fail(
                    body_cell,
                    f"body {name!r} is listed twice in Components: {self.body_cells[name].ref} and"
                    f" {body_cell.ref}",
                    "give each body one row, with all its points",
                )
            names = self.body_points(name, point_cells)
            self.body_cells[name] = body_cell
            typed.append(Body(name, tuple(names), source=body_cell.source))
        bodies, count = mirror.mirror_bodies(typed) if self.symmetry else (typed, 0)
        cells = {cell.source: cell for cell in self.body_cells.values()}
        for body in bodies:
            assert body.source is not None
            cell = self.body_cells.setdefault(body.name, cells[body.source])
            if len(body.points) < 2:
                fail(
                    cell,
                    f"body {body.name!r} has {len(body.points)} point(s); a rigid body needs at"
                    " least two",
                    "list every point of the body on its row (joints to other bodies included)",
                )
            self.bodies[body.name] = body
        if CHASSIS not in self.bodies:
            near = [b for b in self.bodies if b.casefold() == CHASSIS.casefold()]
            fail(
                self.body_cells[near[0]] if near else table.header[0],
                f"Components has no body named {CHASSIS!r}"
                + (f" (found {near[0]!r}; names are case-sensitive)" if near else ""),
                f"name the sprung mass '{CHASSIS}' (exactly); it is the reference body",
            )
        return count

    def check_components_header(self, table: Table) -> None:
        header = table.header
        expected = "Body | Points (then any number of point cells)"
        for i, column in enumerate(COMPONENTS_COLUMNS):
            if i >= len(header) or not matches(header[i], column):
                cell = header[min(i, len(header) - 1)]
                found = repr(cell.text) if i < len(header) and not cell.blank else "nothing"
                fail(
                    cell,
                    f"{table.label}: expected header {column.name!r}, found {found}",
                    f"the first row of the range must be the header: {expected}",
                )
        for cell in header[2:]:
            if not cell.blank and not re.fullmatch(r"points?\s*\d*", norm(cell.text or "")):
                fail(cell, f"{table.label}: unexpected column {cell.text!r}", f"header: {expected}")

    def body_points(self, body: str, cells: Sequence[Cell]) -> list[str]:
        """The point cells of a body: each a Hard Point, each once."""
        names: dict[str, Cell] = {}
        for cell in cells:
            name = cell.text or ""
            if name not in self.point_cells:
                fail(
                    cell,
                    f"body {body!r} uses point {name!r}, which is not in Hard Points."
                    + did_you_mean(name, self.point_cells),
                    "add the point to Hard Points (and extend its range), or fix the spelling",
                )
            if name in names:
                fail(
                    cell,
                    f"body {body!r} lists point {name!r} twice: {names[name].ref} and {cell.ref}",
                    "list each point of a body once",
                )
            names[name] = cell
        return list(names)

    def require_body(self, cell: Cell | None, role: str) -> Body:
        name = name_of(cell)
        assert cell is not None
        if name is None:
            fail(cell, f"{role}: body name is blank", "name a body from Components")
        if name not in self.bodies:
            fail(
                cell,
                f"{role}: body {name!r} is not in Components." + did_you_mean(name, self.bodies),
                "name a body listed in Components",
            )
        return self.bodies[name]

    def require_point_on(self, cell: Cell | None, body: Body, what: str, fallback: Cell) -> str:
        name = name_of(cell)
        if name is None:
            fail(cell or fallback, f"{what} is blank", f"name a point of body {body.name!r}")
        assert cell is not None
        if name not in body.points:
            fail(
                cell,
                f"{what} {name!r} is not a point of body {body.name!r}"
                f" (its points: {', '.join(body.points)})",
                f"name one of the points listed for {body.name!r} in Components",
            )
        return name

    def optional_kingpin_point(self, cell: Cell | None, what: str) -> str | None:
        """A kingpin pivot: any point that some body uses (a MacPherson strut's top
        mount is on the chassis, not on the upright)."""
        if cell is None or cell.blank:
            return None
        name = cell.text or ""
        used = {p for b in self.bodies.values() for p in b.points}
        if name not in used:
            fail(
                cell,
                f"{what} {name!r} is not a point of any body." + did_you_mean(name, sorted(used)),
                "name a ball joint of the upright, or a strut's top mount",
            )
        return name

    def optional_point_on(self, cell: Cell | None, body: Body, what: str) -> str | None:
        if cell is None or cell.blank:
            return None
        return self.require_point_on(cell, body, what, cell)

    def require_point_on_a_body(self, cell: Cell | None, what: str, fallback: Cell) -> str:
        """A Hard Point that some body (the Chassis included) lists."""
        name = name_of(cell)
        if name is None:
            fail(cell or fallback, f"{what} is blank", "name a point of some body")
        assert cell is not None
        used = {p for b in self.bodies.values() for p in b.points}
        if name not in used:
            known = name in self.point_cells
            fail(
                cell,
                f"{what} {name!r} is "
                + ("in Hard Points but on no body" if known else "not in Hard Points")
                + "."
                + ("" if known else did_you_mean(name, sorted(used))),
                "name a point listed on a body in Components (the Chassis counts)",
            )
        return name

    def warn_unused_points(self, points: Sequence[Point]) -> None:
        used = {p for b in self.bodies.values() for p in b.points}
        for p in points:
            if p.name not in used and p.name not in self.twins:
                cell = self.point_cells[p.name]
                self.warnings.append(
                    f"{cell.where}: point {p.name!r} is in Hard Points but on no body (not used)"
                )
