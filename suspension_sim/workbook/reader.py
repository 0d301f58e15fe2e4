"""Turn a car workbook's sections into a validated `Car`.

`suspension_sim.workbook.schema` declares the format and
`suspension_sim.workbook.cells` finds and reads the sections; this module
checks what they hold and builds the bodies, points, wheels, rack, dampers and
options, with the warnings (docs/workbook.md). Values are converted once, on
load, to mm / rad / N in the model frame (see `suspension_sim.units`).

Every problem is a `WorkbookError` whose `where` is ``"car.xlsx: Sheet!C12"``.

The sections are checked by a chain of reader classes, one module per group:
`reader_sections` (state, lengths, User Options), `reader_bodies` (Hard Points,
Components), `reader_dampers` (Damping), `reader_bars` (Anti-roll Bars); this
module reads Wheels and Steering and puts the car together in dependency order.
"""

from __future__ import annotations

import os
from pathlib import Path

from suspension_sim import units
from suspension_sim.description import CHASSIS, Car, Rack, Wheel
from suspension_sim.tolerances import LIMIT_SLACK_MM
from suspension_sim.workbook import mirror
from suspension_sim.workbook.cells import (
    Book,
    Cell,
    Table,
    fail,
    number,
    positive,
    read_index,
    records,
)
from suspension_sim.workbook.reader_bars import BarReader
from suspension_sim.workbook.reader_dampers import DamperReader
from suspension_sim.workbook.reader_sections import coincide
from suspension_sim.workbook.schema import (
    ANTI_ROLL_BARS,
    COMPONENTS,
    DAMPING,
    HARD_POINTS,
    SECTION_COLUMNS,
    STEERING,
    USER_OPTIONS,
    WHEELS,
)

TYRE_RADIUS_MM = (100.0, 700.0)
"""Outside this a tyre radius is probably in the wrong unit (a warning, not an error)."""


def read_car(path: str | os.PathLike[str]) -> Car:
    """Read and validate a workbook; lengths in mm, model frame (ISO 8855). With the
    Symmetry option the right side is generated (`mirror.generated_by_symmetry` counts it)."""
    book = Book(Path(path))
    return _CarReader(book, read_index(book)).read()


# -- the car ---------------------------------------------------------------------------
class _CarReader(DamperReader, BarReader):
    """Reads the sections of one workbook in dependency order (Wheels and Steering here)."""

    def read(self) -> Car:
        if USER_OPTIONS in self.tables:
            self.read_options(self.tables[USER_OPTIONS])
        points = self.read_points(self.tables[HARD_POINTS])
        n_points = self.mirror_points(points) if self.symmetry else 0
        n_bodies = self.read_bodies(self.tables[COMPONENTS])
        self.check_reference_point()
        wheels = self.read_wheels(self.tables[WHEELS]) if WHEELS in self.tables else ()
        rack = self.read_rack(self.tables[STEERING]) if STEERING in self.tables else None
        dampers, thirds = (
            self.read_dampers(self.tables[DAMPING]) if DAMPING in self.tables else ((), ())
        )
        if self.symmetry:
            wheel_list, n_wheels = mirror.mirror_wheels(wheels)
            damper_list, n_dampers = mirror.mirror_dampers(dampers)
            third_list, n_thirds = mirror.mirror_third_springs(thirds)
            wheels, dampers, thirds = tuple(wheel_list), tuple(damper_list), tuple(third_list)
            if not mirror.Generated(n_points, n_bodies, n_wheels, n_dampers, n_thirds):
                self.warnings.append(
                    f"{self.book.file}: {USER_OPTIONS}: Symmetry is on but generated nothing:"
                    f" no name has a left token ({', '.join(mirror.LEFT_TOKENS)}) or every"
                    " right-side item is typed as well"
                )
        bars = (
            self.read_bars(self.tables[ANTI_ROLL_BARS], dampers, rack)
            if ANTI_ROLL_BARS in self.tables
            else ()
        )
        self.warn_unused_points(points)
        self.warn_cells_below_ranges()
        return Car(
            name=self.name,
            options=self.options,
            points=tuple(points),
            bodies=tuple(self.bodies.values()),
            wheels=wheels,
            rack=rack,
            dampers=dampers,
            third_springs=thirds,
            anti_roll_bars=bars,
            warnings=tuple(self.warnings),
            source_path=str(self.book.path),
        )

    # -- Wheels --------------------------------------------------------------------------
    def read_wheels(self, table: Table) -> tuple[Wheel, ...]:
        wheels: list[Wheel] = []
        seen: dict[str, Cell] = {}
        for rec in records(table, SECTION_COLUMNS[WHEELS]):
            cell = rec["Wheel"]
            assert cell is not None
            name = cell.text or ""
            if name in seen:
                fail(
                    cell,
                    f"wheel {name!r} is listed twice: {seen[name].ref} and {cell.ref}",
                    "give each wheel its own name",
                )
            seen[name] = cell
            wheels.append(self.read_wheel(name, cell, rec))
        return tuple(wheels)

    def read_wheel(self, name: str, cell: Cell, rec: dict[str, Cell | None]) -> Wheel:
        """One Wheels row (tyre sizes converted to mm)."""
        what = f"wheel {name!r}"
        body = self.require_body(rec["Body"], what)
        if body.name == CHASSIS:
            fail(
                rec["Body"] or cell,
                f"{what} is carried by the Chassis, so it cannot move",
                "name the upright (or axle) that carries the wheel",
            )
        centre = self.require_point_on(rec["Centre point"], body, f"{what} centre point", cell)
        axis = self.require_point_on(rec["Axis point"], body, f"{what} axis point", cell)
        if centre == axis or coincide(self.xyz[centre], self.xyz[axis]):
            fail(
                rec["Axis point"] or cell,
                f"{what}: the axis point {axis!r} is at the centre point {centre!r}",
                "the spin axis runs from the centre point to a second point on the axle",
            )
        radius = self.required_length(rec["Tyre radius"], f"tyre radius of {what}", cell)
        width = self.required_length(rec["Tyre width"], f"tyre width of {what}", cell)
        lower_cell, upper_cell = rec["Kingpin lower"], rec["Kingpin upper"]
        lower = self.optional_kingpin_point(lower_cell, f"{what} kingpin lower point")
        upper = self.optional_kingpin_point(upper_cell, f"{what} kingpin upper point")
        if (lower is None) != (upper is None):
            fail(
                (lower_cell if lower is None else upper_cell) or cell,
                f"{what}: give both kingpin points or neither",
                "without kingpin points the steering axis comes from the rack motion",
            )
        if lower is not None and upper is not None and coincide(self.xyz[lower], self.xyz[upper]):
            fail(
                upper_cell or cell,
                f"{what}: kingpin points {lower!r} and {upper!r} are at the same place",
                "the kingpin axis runs from the lower to the upper pivot: check Hard Points",
            )
        if not TYRE_RADIUS_MM[0] <= radius <= TYRE_RADIUS_MM[1]:
            where = (rec["Tyre radius"] or cell).where
            self.warnings.append(
                f"{where}: tyre radius of {what} is {radius:.1f} mm, unusual for a racing "
                f"car ({TYRE_RADIUS_MM[0]:g}-{TYRE_RADIUS_MM[1]:g} mm): check the Length unit"
            )
        rim_cell = rec["Rim diameter"]
        rim = self.length(rim_cell, f"rim diameter of {what}")
        if rim is not None:
            positive(rim_cell, rim, f"rim diameter of {what}")
        return Wheel(
            name,
            body.name,
            centre,
            axis,
            radius,
            width,
            lower,
            upper,
            source=cell.source,
            rim_diameter=rim,
        )

    # -- Steering --------------------------------------------------------------------------
    def read_rack(self, table: Table) -> Rack | None:
        rows = records(table, SECTION_COLUMNS[STEERING])
        if not rows:
            return None
        if len(rows) > 1:
            second = rows[1]["Rack body"]
            assert second is not None
            fail(second, "Steering lists more than one rack", "a car has at most one steering rack")
        rec = rows[0]
        cell = rec["Rack body"]
        assert cell is not None
        body = self.require_body(cell, "steering rack")
        if body.name == CHASSIS:
            fail(cell, "the steering rack cannot be the Chassis", "name the rack's own body")
        e1 = self.optional_point_on(rec["End point 1"], body, "rack end point 1")
        e2 = self.optional_point_on(rec["End point 2"], body, "rack end point 2")
        if e1 is None and e2 is None:
            if len(body.points) != 2:
                fail(
                    cell,
                    f"rack body {body.name!r} has {len(body.points)} points, so its end points"
                    " must be named",
                    "fill in End point 1 and End point 2 (the rack slides from 1 towards 2)",
                )
            e1, e2 = body.points
        elif e1 is None or e2 is None:
            fail(
                (rec["End point 1"] if e1 is None else rec["End point 2"]) or cell,
                "give both rack end points or neither",
                "leave both blank only when the rack body has exactly two points",
            )
        elif e1 == e2:
            fail(
                rec["End point 2"] or cell,
                "the two rack end points are the same point",
                "name two different points",
            )
        per_angle = units.angle_factor(self.options.angle_unit) / units.angle_factor("deg")
        ratio = number(
            rec["Steering ratio"],
            "steering ratio",
            self.length_limit * per_angle,
            f"{self.options.length_unit}/{self.options.angle_unit}",
        )
        if ratio is not None:
            positive(rec["Steering ratio"], ratio, "steering ratio")
            ratio = units.to_internal(ratio, self.factor) / per_angle
        lo = self.length(rec["Min travel"], "rack min travel")
        hi = self.length(rec["Max travel"], "rack max travel")
        if lo is not None and hi is not None and lo > hi:
            fail(
                rec["Min travel"] or cell,
                "the rack's min travel is greater than its max travel",
                "swap them, or check the signs (travel is + toward +Y, 0 at design)",
            )
        if (lo is not None and lo > LIMIT_SLACK_MM) or (hi is not None and hi < -LIMIT_SLACK_MM):
            self.warnings.append(
                f"{cell.where}: the rack's travel limits leave out the design condition"
                " (travel 0): min travel must be <= 0 <= max travel"
            )
        return Rack(body.name, (e1, e2), ratio, lo, hi, source=cell.source)
