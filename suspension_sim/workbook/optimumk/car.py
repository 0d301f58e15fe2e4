"""Read OptimumKinematics suspension and vehicle exports (.xlsx) into a `Car`.

`read_optimumk` finds the suspension and setup sheets among the files given, reads each
suspension sheet (`suspension_sim.workbook.optimumk.axle`, in the file's own units and
axes) and the vehicle setup (`suspension_sim.workbook.optimumk.setup`), then builds the car
here (`build_car`). docs/optimumk.md has the layout and the evidence it rests on.

Everything is converted once, here, to mm, rad and the model frame (ISO 8855 axes: +X
forward, +Y left, +Z up): the file's units, its axis map (which may be a reflection: some
teams' files have lateral + to the right) and the rear origin moved back by the Reference
Distance. Heights stay the file's own: no point is shifted vertically, and each contact
patch is put at its Vertical Offset (OptimumK's Contact Patch Z), so the car's "ground" is
the plane through its design contact patches, not z = 0. OptimumK has no wheel-centre
point: the wheel centre and a spin-axis point are built from Half Track,
Longitudinal/Vertical Offset, Static Camber, Static Toe and Tire Diameter by OptimumK's
own definitions (`wheel_points`). OptimumK's point names are kept, prefixed by the corner
(``FL_CHAS_LowFor``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from suspension_sim import units
from suspension_sim.description import (
    CHASSIS,
    Body,
    Car,
    Damper,
    Options,
    Point,
    Rack,
    Wheel,
)
from suspension_sim.errors import WorkbookError
from suspension_sim.workbook.cells import fail
from suspension_sim.workbook.optimumk.axle import read_axle
from suspension_sim.workbook.optimumk.export import (
    DOUBLE_A_ARM_POINTS,
    PUSH_PULL_POINTS,
    SUSPENSION_BLOCKS,
    AxleExport,
)
from suspension_sim.workbook.optimumk.setup import VehicleSetup, read_setup
from suspension_sim.workbook.optimumk.sheets import (
    Axle,
    Matrix,
    Sheet,
    Side,
    Vec,
    label_key,
    parse_matrix_text,
    read_sheets,
)

MAX_STATIC_ANGLE = math.radians(30.0)
"""Largest static camber or toe accepted (rad): beyond it the angle unit is probably wrong."""

WHEEL_AXIS_OFFSET_MM = 50.0
"""The spin-axis point is this far inboard of the wheel centre (any point on the axis works)."""


# -- public API -----------------------------------------------------------------------------
def read_optimumk(
    source: str | Path,
    *,
    rear: str | Path | None = None,
    vehicle: str | Path | None = None,
    axle: Axle | None = None,
    axes: str | None = None,
    reference_distance_mm: float | None = None,
    name: str | None = None,
    skip_anti_roll_bars: bool = False,
) -> Car:
    """Build a `Car` (mm, model frame) from OptimumK exports.

    source: a suspension export (the `axle` given; None: the axle its sheet name or
    title block says, "front" when a rear file is given too), or a vehicle export with its
    suspension sheets (names with 'front'/'rear') and its setup sheet. rear: the
    rear suspension export. vehicle: the vehicle setup export (its Reference
    Distance places the rear origin). axes: overrides every file's coordinate
    system, ``model = M @ file`` in the short form (``"+X -Y +Z"``, reflections
    allowed). reference_distance_mm overrides the setup's. skip_anti_roll_bars: import
    a car whose files hold a U-bar or T-bar without it (a warning names it; otherwise
    it is an error, as any element we cannot import). WorkbookError naming
    the file, sheet and cell for anything that cannot be imported. OptimumK's own project
    files (.O2Sus, .O2Set) are read by `suspension_sim.workbook.optimumk_files.car`
    (the same core; docs/optimumk_files.md); given here, they are an error saying so.
    """
    binary = [p for p in (source, rear, vehicle) if p is not None and _is_binary(p)]
    if binary:  # read by optimumk_files, which builds on this module (no import back)
        raise WorkbookError(
            f"{Path(binary[0]).name} is an OptimumK project file, not an Excel export",
            where=str(binary[0]),
            hint="read .O2Sus/.O2Set files with"
            " suspension_sim.workbook.optimumk_files.car.read_optimumk_files (the command"
            " import-optimumk does); Excel exports and project files cannot be mixed",
        )
    override = parse_matrix_text(axes, "--axes") if axes is not None else None
    if axle is None and rear is not None:
        axle = "front"
    front_sheet, rear_sheet, setup_sheets = _classify(read_sheets(Path(source)), axle)
    if rear is not None:
        if rear_sheet is not None:
            raise WorkbookError(
                f"{Path(source).name} already holds a rear suspension (sheet"
                f" {rear_sheet.title!r}), and a rear file was given too",
                where=str(rear),
                hint="give the rear suspension once",
            )
        if front_sheet is None:
            raise WorkbookError(
                "a rear file was given, but the first file is not a front suspension",
                where=str(source),
                hint="give the front suspension first: SUSPENSION.xlsx --rear REAR.xlsx",
            )
        rear_sheets = read_sheets(Path(rear))
        found = [s for s in rear_sheets if _is_suspension(s) and not _is_setup(s)]
        if len(found) != 1:
            raise WorkbookError(
                f"the rear file holds {len(found)} suspension sheets; it needs one",
                where=str(rear),
                hint="give OptimumK's export of the rear suspension alone",
            )
        rear_sheet = found[0]
        setup_sheets += [s for s in rear_sheets if _is_setup(s)]
    if vehicle is not None:
        sheets = read_sheets(Path(vehicle))
        found = [s for s in sheets if _is_setup(s)]
        if not found:
            raise WorkbookError(
                "no vehicle setup found: no sheet has a 'Reference Distance' row",
                where=str(vehicle),
                hint="give OptimumK's vehicle setup export (Setup block with Reference Distance)",
            )
        setup_sheets = found + setup_sheets
    exports: dict[Axle, AxleExport] = {}
    if front_sheet is not None:
        exports["front"] = read_axle(front_sheet, skip_anti_roll_bars)
    if rear_sheet is not None:
        exports["rear"] = read_axle(rear_sheet, skip_anti_roll_bars)
    if not exports:
        raise WorkbookError(
            "no suspension found: no sheet has a 'Double A-Arm' block in column A",
            where=str(source),
            hint="give OptimumK's suspension export (.xlsx)",
        )
    if override is not None:
        for e in exports.values():
            e.axis_map, e.axis_cell = override, None
    setup = read_setup(setup_sheets[0]) if setup_sheets else VehicleSetup()
    setup.where = (
        f"{setup_sheets[0].label} (vehicle setup)"
        if setup_sheets
        else "no vehicle setup given (--vehicle)"
    )
    if len(setup_sheets) > 1:
        setup.warnings.append(
            f"{setup_sheets[0].label}: the vehicle setup read from this sheet; not read:"
            f" {', '.join(s.label for s in setup_sheets[1:])}"
        )
    if reference_distance_mm is not None:
        setup.reference_distance_mm = reference_distance_mm
    if "rear" in exports and "front" in exports and setup.reference_distance_mm is None:
        raise WorkbookError(
            "the rear suspension has its own origin, placed by the vehicle setup's Reference"
            " Distance, and no vehicle setup was given",
            where=str(rear or source),
            hint="pass the vehicle setup export (--vehicle VEHICLE.xlsx) or"
            " --reference-distance MM",
        )
    car_name = name or setup.name or next(iter(exports.values())).name or Path(source).stem
    return build_car(exports, setup, car_name)


# -- files and sheets ---------------------------------------------------------------------------
def _is_binary(path: str | Path) -> bool:
    """An OptimumK project file (docs/optimumk_files.md), read by `optimumk_files`."""
    return Path(path).suffix.lower() in (".o2sus", ".o2set")


def _is_setup(sheet: Sheet) -> bool:
    return any(
        label_key(sheet.text(r, c)) == "referencedistance"
        for r in range(1, len(sheet.cells) + 1)
        for c in (1, 2)
    )


def _is_suspension(sheet: Sheet) -> bool:
    """A sheet with a suspension block, or with User Options and some other block (an
    element type the importer will name in its error); a notes sheet is neither."""
    keys = {b.key for b in sheet.blocks()}
    return bool(keys & SUSPENSION_BLOCKS) or (
        "useroptions" in keys and bool(keys - {"useroptions", "setup"})
    )


def _axle_named(sheet: Sheet) -> Axle:
    """The axle a lone suspension sheet says it is: its title, else a 'front'/'rear' word
    in its title block (the Name row). WorkbookError when it says neither or both."""
    texts = [sheet.title] + [
        sheet.text(r, c) for r in range(1, min(len(sheet.cells), 12) + 1) for c in (1, 2, 3)
    ]
    for text in texts:
        words = set(re.findall(r"[a-z]+", text.casefold()))
        found = {"front", "rear"} & words
        if len(found) == 1:
            return "front" if "front" in found else "rear"
    raise WorkbookError(
        f"cannot tell whether sheet {sheet.title!r} is the front or the rear suspension:"
        " neither its name nor its title block says",
        where=f"{sheet.book.file}: {sheet.title}",
        hint="pass --axle front or --axle rear",
    )


def _classify(
    sheets: Sequence[Sheet], axle: Axle | None
) -> tuple[Sheet | None, Sheet | None, list[Sheet]]:
    """(front suspension, rear suspension, setup sheets) of a file. A lone suspension
    sheet is the `axle` given, or the axle its name says (None)."""
    setups = [s for s in sheets if _is_setup(s)]
    susp = [s for s in sheets if _is_suspension(s) and s not in setups]
    if len(susp) <= 1:
        lone = susp[0] if susp else None
        if lone is not None and axle is None:
            axle = _axle_named(lone)
        return (lone, None, setups) if axle == "front" else (None, lone, setups)
    front = [s for s in susp if "front" in s.title.casefold()]
    rear = [s for s in susp if "rear" in s.title.casefold()]
    if len(front) != 1 or len(rear) != 1 or len(susp) != 2:
        titles = ", ".join(repr(s.title) for s in susp)
        raise WorkbookError(
            f"{len(susp)} suspension sheets ({titles}); cannot tell front from rear",
            where=susp[0].book.file,
            hint="name one sheet with 'Front' and one with 'Rear', or give them as separate"
            " files (SUSPENSION.xlsx --rear REAR.xlsx)",
        )
    return front[0], rear[0], setups


# -- the car --------------------------------------------------------------------------------------
def _apply(m: Matrix, v: Sequence[float]) -> Vec:
    x, y, z = (sum(m[i][j] * v[j] for j in range(3)) for i in range(3))
    return (float(x), float(y), float(z))


def wheel_points(
    half_track: float,
    longitudinal: float,
    vertical: float,
    camber: float,
    toe: float,
    radius: float,
    side: float,
) -> tuple[Vec, Vec, Vec]:
    """Wheel centre, spin-axis point and contact patch (mm, model frame) from OptimumK's
    wheel definition (docs/optimumk.md, "The wheel").

    camber, toe: rad in OptimumK's signs (camber - = top inboard; toe + = toe-out).
    side: +1 left, -1 right. OptimumK's design spin axis (outboard) is given by its
    front- and top-view slopes, s = unit(-tan toe, side, -tan camber); the contact patch
    is CP = (longitudinal, side half_track, vertical) (vertical = the Vertical Offset: CP's
    height in the file's frame); OptimumK puts CP at C + r unit(s x X) (heading X at
    design), so C = CP - r u with u = side unit(s x X), which points down; the axis point
    lies `WHEEL_AXIS_OFFSET_MM` inboard of C on s.
    """
    raw = (-math.tan(toe), side, -math.tan(camber))
    norm = math.sqrt(sum(v * v for v in raw))
    s = (raw[0] / norm, raw[1] / norm, raw[2] / norm)
    # s x X = (0, s_z, -s_y)
    length = math.hypot(s[1], s[2])
    u = (0.0, side * s[2] / length, -side * s[1] / length)
    cp = (longitudinal, side * half_track, vertical)
    c = (cp[0] - radius * u[0], cp[1] - radius * u[1], cp[2] - radius * u[2])
    a = tuple(c[i] - WHEEL_AXIS_OFFSET_MM * s[i] for i in range(3))
    return c, (a[0], a[1], a[2]), cp


def build_car(exports: dict[Axle, AxleExport], setup: VehicleSetup, name: str) -> Car:
    """The `Car` of one or two axles (see the module docstring for the conversions)."""
    points: list[Point] = []
    chassis: list[str] = []
    bodies: list[Body] = []
    wheels: list[Wheel] = []
    dampers: list[Damper] = []
    rack: Rack | None = None
    warnings: list[str] = []
    first = exports.get("front") or exports["rear"]
    order: tuple[Axle, Axle] = ("front", "rear")
    for axle_name in order:
        export = exports.get(axle_name)
        if export is None:
            continue
        warnings += export.warnings
        shift_x = 0.0
        if axle_name == "rear" and "front" in exports:
            assert setup.reference_distance_mm is not None
            shift_x = -setup.reference_distance_mm
        corner = _Corner(export, "F" if axle_name == "front" else "R", shift_x)
        corner.check_sides()
        sides: tuple[Side, Side] = ("L", "R")
        for side in sides:
            pts, chas, bods, wheel, damper = corner.build(side)
            points += pts
            chassis += chas
            bodies += bods
            wheels.append(wheel)
            dampers.append(damper)
        if export.has_rack:
            if rack is not None:
                fail(
                    export.rack_cell or export.sheet,
                    "both axles have a Rack Pinion block; the car holds one rack",
                    "import the steered axle with its rack and the other with its tie rods"
                    " fixed (Tierod Attachment: Chassis)",
                )
            rack, rack_body = corner.rack()
            bodies.append(rack_body)
    warnings += setup.warnings
    default = Options()
    warnings += _setup_defaults(setup, default)
    options = Options(
        length_unit=first.length_unit,
        angle_unit=first.angle_unit,
        sign_convention="optimumk",
        cg_height_mm=setup.cg_height_mm or default.cg_height_mm,
        front_brake_share=(
            default.front_brake_share
            if setup.front_brake_share is None
            else setup.front_brake_share
        ),
        rear_drive_share=(
            default.rear_drive_share if setup.rear_drive_share is None else setup.rear_drive_share
        ),
        front_mass_share=setup.front_mass_share,
    )
    return Car(
        name=name,
        options=options,
        points=tuple(points),
        bodies=(Body(CHASSIS, tuple(chassis)), *bodies),
        wheels=tuple(wheels),
        rack=rack,
        dampers=tuple(dampers),
        warnings=tuple(warnings),
    )


class _Corner:
    """One axle's export turned into bodies, one side at a time (model frame, mm)."""

    def __init__(self, export: AxleExport, prefix: str, shift_x: float) -> None:
        self.e = export
        self.prefix = prefix
        self.scale = units.length_factor(export.length_unit)
        self.angle = units.angle_factor(export.angle_unit)
        self.m = export.axis_map
        self.shift_x = shift_x
        for s in ("L", "R"):
            lat = export.wheels[s].get("Lateral Offset")
            if lat is not None and lat.value != 0.0:
                fail(
                    lat.cell,
                    f"Lateral Offset {lat.value:g} is not supported (only 0)",
                    "move the suspension points by the offset instead, or set it to 0 and"
                    " adjust the Half Track",
                )
        # The file's longitudinal and vertical coordinates in model X and Z: their signs.
        self.long_sign = float(sum(self.m[0]))
        self.vert_sign = float(sum(self.m[2]))

    def model(self, xyz: Vec) -> Vec:
        """File coordinates (file unit and axes) -> model mm, this axle's origin (the rear
        moved back by the Reference Distance; no vertical shift)."""
        x, y, z = _apply(self.m, xyz)
        return (
            units.to_internal(x, self.scale) + self.shift_x,
            units.to_internal(y, self.scale),
            units.to_internal(z, self.scale),
        )

    def name(self, side: Side, point: str) -> str:
        return f"{self.prefix}{side}_{point}"

    def check_sides(self) -> None:
        """After the axis map: Left-column points at +Y (left), Right ones at -Y, the upper
        ball joint above the lower one and the Fore wishbone pivots ahead of the Aft ones
        (OptimumK's names say so), else the coordinate system is wrong."""
        for side in ("L", "R"):
            low, cell = self.e.points["UPRI_LowPnt"][side]
            upp, _ = self.e.points["UPRI_UppPnt"][side]
            fore, fcell = self.e.points["CHAS_LowFor"][side]
            aft, _ = self.e.points["CHAS_LowAft"][side]
            if self.model(upp)[2] <= self.model(low)[2]:
                fail(
                    cell,
                    "the upper ball joint (UPRI_UppPnt) is not above the lower one (UPRI_LowPnt)"
                    " in the model frame: the file's vertical axis points down, or the"
                    " coordinate system is wrong",
                    "give the file's axes (User Options coordinate system, or --axes with"
                    " model X, Y, Z as signed file axes, e.g. '+X +Y -Z')",
                )
            if self.model(fore)[0] <= self.model(aft)[0]:
                fail(
                    fcell,
                    "the fore wishbone pivot (CHAS_LowFor) is not ahead of the aft one"
                    " (CHAS_LowAft) in the model frame: the file's longitudinal axis points"
                    " rearward, or the coordinate system is wrong",
                    "give the file's axes (User Options coordinate system, or --axes with"
                    " model X, Y, Z as signed file axes, e.g. '-X -Y +Z')",
                )
        xyz, cell = self.e.points["UPRI_LowPnt"]["L"]
        if self.model(xyz)[1] <= 0.0:
            fail(
                cell,
                "the Left column's lower ball joint is not on the left (+Y) in the model frame:"
                " the file's lateral axis points right, or the coordinate system is wrong",
                "give the file's axes (User Options coordinate system, or --axes '+X -Y +Z'"
                " for lateral + to the right)",
            )
        xyz, cell = self.e.points["UPRI_LowPnt"]["R"]
        if self.model(xyz)[1] >= 0.0:
            fail(
                cell,
                "the Right column's lower ball joint is not on the right (-Y)",
                "check the Right X/Y/Z columns and the coordinate system",
            )

    def build(self, side: Side) -> tuple[list[Point], list[str], list[Body], Wheel, Damper]:
        e, n = self.e, (lambda p: self.name(side, p))
        corner = f"{self.prefix}{side}"
        pts = [
            Point(n(p), self.model(e.points[p][side][0]), e.points[p][side][1].source)
            for p in (*DOUBLE_A_ARM_POINTS, *PUSH_PULL_POINTS)
        ]
        w = e.wheels[side]
        sgn = 1.0 if side == "L" else -1.0
        radius = units.to_internal(w["Tire Diameter"].value, self.scale) / 2.0
        width = units.to_internal(w["Tire Width"].value, self.scale)
        for fld, v in (("Tire Diameter", radius), ("Tire Width", width)):
            if v <= 0:
                fail(w[fld].cell, f"{fld} must be positive", "enter the tyre's size")
        # The reader gives a field on both sides or neither: an offset row left out of the
        # file is 0 (warned there; a blank one is an error), no Rim Diameter is None (warned).
        lon = w.get("Longitudinal Offset")
        longitudinal = self.long_sign * (lon.value if lon else 0.0) * self.scale + self.shift_x
        vo = w.get("Vertical Offset")
        vertical = self.vert_sign * (vo.value if vo else 0.0) * self.scale
        rim = w.get("Rim Diameter")
        rim_mm = None if rim is None else units.to_internal(rim.value, self.scale)
        if rim is not None and rim.value <= 0:
            fail(rim.cell, "Rim Diameter must be positive", "enter the rim's diameter")
        half = units.to_internal(w["Half Track"].value, self.scale)
        if half <= 0:
            fail(w["Half Track"].cell, "Half Track must be positive", "enter the half track")
        for fld in ("Static Camber", "Static Toe"):
            if abs(w[fld].value * self.angle) > MAX_STATIC_ANGLE:
                fail(
                    w[fld].cell,
                    f"{fld} {w[fld].value:g} {self.e.angle_unit} is not a static wheel angle"
                    f" (at most {math.degrees(MAX_STATIC_ANGLE):g} deg)",
                    "check the value and the Angle unit in User Options",
                )
        c, a, _cp = wheel_points(
            half,
            longitudinal,
            vertical,
            w["Static Camber"].value * self.angle,
            w["Static Toe"].value * self.angle,
            radius,
            sgn,
        )
        src = w["Half Track"].cell.source
        pts += [Point(f"{corner}_WheelCentre", c, src), Point(f"{corner}_WheelAxis", a, src)]

        pp_on = e.push_pull_on[0] if e.push_pull_on else "LowerAArm"
        tie_on = e.tie_rod_on[0] if e.tie_rod_on else "Chassis"
        lower = [n("CHAS_LowFor"), n("CHAS_LowAft"), n("UPRI_LowPnt")]
        upper = [n("CHAS_UppFor"), n("CHAS_UppAft"), n("UPRI_UppPnt")]
        upright = [
            n("UPRI_UppPnt"),
            n("UPRI_LowPnt"),
            n("UPRI_TiePnt"),
            f"{corner}_WheelCentre",
            f"{corner}_WheelAxis",
        ]
        chassis = [
            n("CHAS_LowFor"),
            n("CHAS_LowAft"),
            n("CHAS_UppFor"),
            n("CHAS_UppAft"),
            n("CHAS_RocAxi"),
            n("CHAS_RocPiv"),
            n("CHAS_AttPnt"),
        ]
        {"LowerAArm": lower, "UpperAArm": upper, "Upright": upright}[pp_on].append(
            n("NSMA_PPAttPnt")
        )
        if not e.has_rack:
            {"Chassis": chassis, "LowerAArm": lower, "UpperAArm": upper}[tie_on].append(
                n("CHAS_TiePnt")
            )
        bodies_of = {"Chassis": chassis, "LowerAArm": lower, "UpperAArm": upper}
        ref_body = e.reference_on[0] if e.reference_on else "Chassis"
        rocker_extra: list[str] = []
        for ref_name, by_side in e.reference_points.items():
            if side not in by_side:
                continue
            xyz, cell = by_side[side]
            ours = n(ref_name)
            if ours in {p.name for p in pts}:
                fail(
                    cell,
                    f"Reference Point {ref_name!r} has the name of another point ({ours})",
                    "rename the reference point in OptimumK",
                )
            pts.append(Point(ours, self.model(xyz), cell.source))
            {**bodies_of, "Upright": upright, "Rocker": rocker_extra}[ref_body].append(ours)
        src_of = {p: e.points[p][side][1].source for p in e.points}
        bodies = [
            Body(f"{corner}_LowerAArm", tuple(lower), src_of["CHAS_LowFor"]),
            Body(f"{corner}_UpperAArm", tuple(upper), src_of["CHAS_UppFor"]),
            Body(f"{corner}_Upright", tuple(upright), src_of["UPRI_UppPnt"]),
            Body(f"{corner}_TieRod", (n("CHAS_TiePnt"), n("UPRI_TiePnt")), src_of["CHAS_TiePnt"]),
            Body(
                f"{corner}_PushPull",
                (n("NSMA_PPAttPnt"), n("ROCK_RodPnt")),
                src_of["NSMA_PPAttPnt"],
            ),
            Body(
                f"{corner}_Rocker",
                (
                    n("CHAS_RocAxi"),
                    n("CHAS_RocPiv"),
                    n("ROCK_RodPnt"),
                    n("ROCK_CoiPnt"),
                    *rocker_extra,
                ),
                src_of["CHAS_RocAxi"],
            ),
            Body(f"{corner}_Coilover", (n("CHAS_AttPnt"), n("ROCK_CoiPnt")), src_of["CHAS_AttPnt"]),
        ]
        wheel = Wheel(
            corner,
            f"{corner}_Upright",
            f"{corner}_WheelCentre",
            f"{corner}_WheelAxis",
            radius,
            width,
            n("UPRI_LowPnt"),
            n("UPRI_UppPnt"),
            src,
            rim_diameter=rim_mm,
        )
        damper = Damper(
            f"{corner}_Coilover",
            n("CHAS_AttPnt"),
            n("ROCK_CoiPnt"),
            source=src_of["CHAS_AttPnt"],
            spring_rate=e.springs.get(side),
            spring_preload=e.preloads.get(side),
        )
        return pts, chassis, bodies, wheel, damper

    def rack(self) -> tuple[Rack, Body]:
        """The rack: prismatic between the two inner tie-rod points (left end first)."""
        ends = (self.name("L", "CHAS_TiePnt"), self.name("R", "CHAS_TiePnt"))
        ratio = None
        if self.e.steering_ratio is not None:
            ratio = units.to_internal(self.e.steering_ratio.value, self.scale) / 360.0
        src = self.e.rack_cell.source if self.e.rack_cell else None
        return Rack("Rack", ends, ratio, source=src), Body("Rack", ends, src)


def _setup_defaults(setup: VehicleSetup, default: Options) -> list[str]:
    """One warning per setup value the car takes a default for (a missing row, or no
    setup at all), naming the workbook option that sets it: the CG height, brake and
    drive shares feed the antis, the loads and OptimumK's Center of Gravity channels."""
    out: list[str] = []
    where = setup.where or "the vehicle setup"
    if setup.cg_height_mm is None:
        out.append(
            f"{where}: no Center of Gravity Height: CG height {default.cg_height_mm:g} mm "
            "(our default) is used; set 'CG height' in User Options"
        )
    if setup.front_brake_share is None:
        out.append(
            f"{where}: no Brake Bias: front brake share {default.front_brake_share:g} (our "
            "default) is used; set 'Front brake share' in User Options"
        )
    if setup.rear_drive_share is None:
        out.append(
            f"{where}: no Drive Bias: rear drive share {default.rear_drive_share:g} (our "
            "default) is used; set 'Rear drive share' in User Options"
        )
    if setup.front_mass_share is None:
        out.append(
            f"{where}: no Front Mass Distribution: OptimumK's Center of Gravity and anti "
            "channels are not computed; set 'Front mass share' in User Options"
        )
    return out
