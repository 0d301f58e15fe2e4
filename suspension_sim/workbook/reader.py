"""Turn a car workbook's sections into a validated `Car`.

`suspension_sim.workbook.schema` declares the format and
`suspension_sim.workbook.cells` finds and reads the sections; this module
checks what they hold and builds the bodies, points, wheels, rack, dampers and
options, with the warnings (docs/workbook.md). Values are converted once, on
load, to mm / rad / N in the model frame (see `suspension_sim.units`).

Every problem is a `WorkbookError` whose `where` is ``"car.xlsx: Sheet!C12"``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openpyxl.utils.cell import get_column_letter

from suspension_sim import units
from suspension_sim.description import (
    ANTI_ROLL_BAR_KINDS,
    CHASSIS,
    AntiRollBar,
    Body,
    Car,
    Damper,
    Options,
    Point,
    Rack,
    ThirdSpring,
    Wheel,
    damper_length,
    t_bar_axes,
    u_bar_arm_fault,
)
from suspension_sim.names import did_you_mean
from suspension_sim.tolerances import (
    LIMIT_SLACK_MM,
    MAX_COORDINATE_MM,
    SAME_PLACE_MM,
    TBAR_SQUARE_DEG,
)
from suspension_sim.workbook import mirror
from suspension_sim.workbook.cells import (
    Book,
    Cell,
    Table,
    fail,
    matches,
    name_of,
    norm,
    number,
    positive,
    read_index,
    records,
    required_number,
)
from suspension_sim.workbook.schema import (
    ANTI_ROLL_BARS,
    COMPONENTS,
    COMPONENTS_COLUMNS,
    DAMPING,
    DAMPING_TYPES,
    HARD_POINTS,
    OPTION_NAMES,
    OPTIONS,
    SECTION_COLUMNS,
    STEERING,
    SYMMETRY,
    USER_OPTIONS,
    WHEELS,
    OptionSpec,
)

TYRE_RADIUS_MM = (100.0, 700.0)
"""Outside this a tyre radius is probably in the wrong unit (a warning, not an error)."""


def read_car(path: str | os.PathLike[str]) -> Car:
    """Read and validate a workbook; lengths in mm, model frame (ISO 8855). With the
    Symmetry option the right side is generated (`mirror.generated_by_symmetry` counts it)."""
    book = Book(Path(path))
    return _CarReader(book, read_index(book)).read()


def _coincide(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Two model-frame points closer than `SAME_PLACE_MM`."""
    return math.dist(a, b) < SAME_PLACE_MM


# -- the car ---------------------------------------------------------------------------
class _CarReader:
    """Reads the sections of one workbook in dependency order."""

    def __init__(self, book: Book, tables: dict[str, Table]):
        self.book = book
        self.tables = tables
        self.warnings: list[str] = []
        self.options = Options()
        self.name = book.path.stem
        self.ref_point_cell: Cell | None = None
        self.point_cells: dict[str, Cell] = {}
        self.xyz: dict[str, tuple[float, float, float]] = {}
        self.bodies: dict[str, Body] = {}
        self.body_cells: dict[str, Cell] = {}
        self.symmetry = False
        self.twins: set[str] = set()
        """Names of the points that Symmetry generated."""

    @property
    def factor(self) -> float:
        return units.length_factor(self.options.length_unit)

    @property
    def length_limit(self) -> float:
        """`MAX_COORDINATE_MM` in the workbook's length unit: no length of a car is larger."""
        return MAX_COORDINATE_MM / self.factor

    def length(self, cell: Cell | None, what: str) -> float | None:
        """A length cell in the workbook's unit, as mm (None when blank); range-checked
        against `MAX_COORDINATE_MM` before it is converted."""
        value = number(cell, what, self.length_limit, self.options.length_unit)
        return None if value is None else units.to_internal(value, self.factor)

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

    # -- User Options --------------------------------------------------------------
    def read_options(self, table: Table) -> None:
        """The given options over the `Options` defaults; units and axis map first, since
        the length options are in the length unit."""
        cells = self.option_cells(table)
        given = [
            (spec, cells[spec.name])
            for spec in OPTIONS
            if spec.name in cells and not cells[spec.name].blank
        ]
        frame = ("unit", "axis map")
        kwargs: dict[str, Any] = {}
        for spec, cell in given:
            if spec.kind in frame and spec.field is not None:
                kwargs[spec.field] = self.option_value(spec, cell)
        self.options = Options(**kwargs)
        for spec, cell in given:
            if spec.kind in frame:
                continue
            value = self.option_value(spec, cell)
            if spec.name == SYMMETRY:
                self.symmetry = bool(value)
            elif spec.field is None:
                self.name = value or self.name
            elif value is not None:
                kwargs[spec.field] = value
        self.options = Options(**kwargs)

    def option_value(self, spec: OptionSpec, cell: Cell) -> Any:
        """One option's value from its (non-blank) cell, lengths in mm."""
        option = spec.name
        if spec.kind == "unit":
            assert spec.unit is not None
            try:
                return units.canonical_unit(cell.text or "", spec.unit)
            except units.UnitError as exc:
                fail(cell, str(exc), f"set {option!r} to one of the valid units")
        if spec.kind == "axis map":
            try:
                return units.parse_axis_map(str(cell.value))
            except units.UnitError as exc:
                fail(
                    cell,
                    str(exc),
                    "write the model axes X, Y, Z in workbook axes, e.g. '+Z +X +Y' or"
                    " '[[0 0 1] [1 0 0] [0 1 0]]' (identity: '+X +Y +Z')",
                )
        if spec.kind == "mm":
            value = number(cell, option, MAX_COORDINATE_MM, "mm")
            positive(cell, value, f"{option} (mm)")
            return value
        if spec.kind == "length":
            value = self.length(cell, option)
            positive(cell, value, option)
            return value
        if spec.kind == "fraction":
            value = number(cell, option)
            if value is not None and not 0.0 <= value <= 1.0:
                fail(
                    cell,
                    f"{option} must be between 0 and 1, found {value:g}",
                    "write a fraction: 60 % is 0.6",
                )
            return value
        if spec.kind == "choice":
            word = norm(cell.text or "")
            choices = {norm(w): v for w, v in spec.choices.items()}
            if word not in choices:
                words = ", ".join(spec.choices)
                fail(
                    cell,
                    f"{option} must be one of {words}; found {cell.text!r}",
                    f"write one of: {words}",
                )
            return choices[word]
        if spec.kind == "point":
            self.ref_point_cell = cell
        return cell.text

    def option_cells(self, table: Table) -> dict[str, Cell]:
        """Value cell of each option given, by canonical option name."""
        valid = {norm(n): n for n in OPTION_NAMES}
        found: dict[str, Cell] = {}
        names: dict[str, Cell] = {}
        for rec in records(table, SECTION_COLUMNS[USER_OPTIONS]):
            name_cell, value_cell = rec["Option"], rec["Value"]
            assert name_cell is not None
            text = name_cell.text or ""
            canon = valid.get(norm(text))
            if canon is None:
                fail(
                    name_cell,
                    f"unknown option {text!r}." + did_you_mean(text, OPTION_NAMES),
                    "valid options: " + ", ".join(OPTION_NAMES),
                )
            if canon in names:
                fail(
                    name_cell,
                    f"option {canon!r} is given twice: {names[canon].ref} and {name_cell.ref}",
                    "keep one row per option",
                )
            names[canon] = name_cell
            found[canon] = value_cell if value_cell is not None else name_cell
        return found

    def check_reference_point(self) -> None:
        ref = self.options.chassis_reference_point
        if ref is not None and ref not in self.point_cells:
            assert self.ref_point_cell is not None
            fail(
                self.ref_point_cell,
                f"chassis reference point {ref!r} is not in Hard Points."
                + did_you_mean(ref, self.point_cells),
                "name a point from Hard Points, or leave it blank for the origin",
            )

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
        if centre == axis or _coincide(self.xyz[centre], self.xyz[axis]):
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
        if lower is not None and upper is not None and _coincide(self.xyz[lower], self.xyz[upper]):
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

    def required_length(self, cell: Cell | None, what: str, fallback: Cell) -> float:
        """A positive length that must be given, as mm."""
        value = self.length(cell, what)
        if value is None:
            fail(cell or fallback, f"{what} is blank", "enter it in the workbook's length unit")
        positive(cell, value, what)
        return value

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
        if ends[0] == ends[1] or _coincide(self.xyz[ends[0]], self.xyz[ends[1]]):
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
        if axis[0] == axis[1] or _coincide(self.xyz[axis[0]], self.xyz[axis[1]]):
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
        if shaft == axis[0] or _coincide(self.xyz[shaft], self.xyz[axis[0]]):
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

    def warn_unused_points(self, points: Sequence[Point]) -> None:
        used = {p for b in self.bodies.values() for p in b.points}
        for p in points:
            if p.name not in used and p.name not in self.twins:
                cell = self.point_cells[p.name]
                self.warnings.append(
                    f"{cell.where}: point {p.name!r} is in Hard Points but on no body (not used)"
                )

    def warn_cells_below_ranges(self) -> None:
        """Warn about a value right below a section's first column (a row left out?)."""
        for table in self.tables.values():
            c0, _, _, r1 = table.bounds
            ws = self.book.values[table.sheet]
            if r1 >= ws.max_row:
                continue
            value = ws.cell(row=r1 + 1, column=c0).value
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            if any(self.inside(other, table.sheet, r1 + 1, c0) for other in self.tables.values()):
                continue
            where = f"{self.book.file}: {table.sheet}!{get_column_letter(c0)}{r1 + 1}"
            self.warnings.append(
                f"{where}: {value!r} is right below section {table.name!r} but outside its range"
                f" {table.index_cell.text} (not read); extend the range in"
                f" {table.index_cell.sheet}!{table.index_cell.ref} if it belongs to the section"
            )

    @staticmethod
    def inside(table: Table, sheet: str, row: int, col: int) -> bool:
        c0, r0, c1, r1 = table.bounds
        return table.sheet == sheet and r0 <= row <= r1 and c0 <= col <= c1
