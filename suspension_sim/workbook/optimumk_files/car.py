"""A car from OptimumK's binary definition files, through the same importer core as the
Excel exports: a suspension (.O2Sus) becomes an `AxleExport`, a vehicle setup (.O2Set) a
`VehicleSetup`, and `suspension_sim.workbook.optimumk.car.build_car` builds the `Car`.

The files store SI units (m, rad, N/m); they are converted here, at the edge, to the
Excel path's units (mm, deg, N/mm), so the same core gives the same workbook. Each value
keeps where it was read: a `ByteCell` names the file, the byte offset and the element
(``front.O2Sus: byte 1234 (Double A-Arm, CHAS_LowFor_L)``).

A setup names its suspensions by GUID: `read_optimumk_files` finds them among the .O2Sus
files of the setup's project (the nearest folder above it holding ``Suspension`` and
``Setup`` folders), or takes them as arguments.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

from suspension_sim.description import Car, Source
from suspension_sim.errors import WorkbookError
from suspension_sim.workbook.cells import Cell, fail
from suspension_sim.workbook.optimumk.car import build_car
from suspension_sim.workbook.optimumk.export import AxleExport, FileValue
from suspension_sim.workbook.optimumk.setup import VehicleSetup
from suspension_sim.workbook.optimumk.sheets import Axle, parse_matrix_text
from suspension_sim.workbook.optimumk_files.definitions import (
    ANTI_ROLL_BAR_TYPES,
    NOT_READ_TYPES,
    POINT_ELEMENTS,
    SetupDef,
    SuspensionDef,
    read_definition,
    read_header,
)
from suspension_sim.workbook.optimumk_files.stream import (
    SHA1_SIZE,
    ByteReader,
    OptimumKFileError,
)

ANGLE_FIELDS = ("Static Camber", "Static Toe")
PUSH_ROD_MEMBERS = ("LowerAArm", "UpperAArm", "Upright")
TIE_ROD_MEMBERS = ("Chassis", "LowerAArm", "UpperAArm")
MAX_PROJECT_DEPTH = 8
"""Folders looked at above a setup for its project root."""


# -- where a value was read ------------------------------------------------------------------
@dataclass(frozen=True)
class ByteSource(Source):
    """A `Source` in a binary file: ``sheet`` is ``"byte N"``, ``cell`` the element and
    value, so it prints ``front.O2Sus: byte 1234 (Double A-Arm, CHAS_LowFor_L)``."""

    def __str__(self) -> str:
        return f"{self.file}: {self.sheet} ({self.cell})"


@dataclass(frozen=True)
class ByteCell(Cell):
    """A `Cell` for a value of a binary file: `row` is the byte offset, `what` the element
    and value; `where`, `ref` and `source` name the file and offset instead of a cell."""

    what: str = ""

    @property
    def ref(self) -> str:
        return f"byte {self.row}"

    @property
    def source(self) -> Source:
        return ByteSource(self.ref, self.what, self.file)

    @property
    def where(self) -> str:
        return str(self.source)


def byte_cell(file: str, offset: int, what: str, value: object = None) -> ByteCell:
    return ByteCell(file, "", offset, 0, value, what)


# -- a suspension ---------------------------------------------------------------------------------
def axle_export(sus: SuspensionDef, *, skip_anti_roll_bars: bool = False) -> AxleExport:
    """The suspension as the Excel reader would give it: points and wheel lengths in mm,
    angles in deg, the rack ratio in mm per turn, springs in N/mm, the push rod's and tie
    rod's attachments; the element types met and not read, and undecoded names, as
    warnings."""
    file = sus.header.file
    export = AxleExport(sheet=file, name=sus.header.name, length_unit="mm", angle_unit="deg")
    body = byte_cell(file, sus.header.offset, "suspension body")
    found = ", ".join(repr(m.type) for m in sus.elements_met) or "none"
    for needed in ("Double A-Arm", "Push Pull", "Wheels"):
        if needed not in sus.element_offsets:
            fail(
                body,
                f"no {needed!r} element (elements found: {found})",
                "the importer needs the Double A-Arm, Push Pull and Wheels elements; export"
                " the suspension to Excel from OptimumK if it is built otherwise",
            )
    for kind, names in POINT_ELEMENTS.items():
        _read_points(sus, export, kind, names)
    for side, values in sus.wheels.items():
        export.wheels[side] = {
            fld: FileValue(
                math.degrees(v.value) if fld in ANGLE_FIELDS else v.value * 1000.0,
                byte_cell(file, v.offset, f"Wheels, {_side_word(side)} {fld}"),
            )
            for fld, v in values.items()
        }
    if sus.rack_ratio is not None:
        export.has_rack = True
        export.rack_cell = byte_cell(file, sus.element_offsets["Rack Pinion"], "Rack Pinion")
        cell = byte_cell(file, sus.rack_ratio.offset, "Rack Pinion, rack travel per turn")
        if not sus.rack_ratio.value > 0:
            fail(
                cell,
                f"the rack travel per steering-wheel turn must be positive, found"
                f" {sus.rack_ratio.value:g} m",
                "check the Rack Pinion in OptimumK",
            )
        export.steering_ratio = FileValue(sus.rack_ratio.value * 1000.0, cell)
    _read_attachments(sus, export, body)
    for side, k in sus.springs.items():
        cell = byte_cell(file, k.offset, f"Spring, {_side_word(side)} stiffness")
        if not k.value > 0:
            fail(cell, f"spring stiffness must be positive, found {k.value:g} N/m", "check it")
        export.springs[side] = k.value / 1000.0  # N/m -> N/mm, the Stiffness block's unit
    _not_read(sus, export, skip_anti_roll_bars)
    return export


def _side_word(side: str) -> str:
    return "left" if side == "L" else "right"


def _read_points(sus: SuspensionDef, export: AxleExport, kind: str, names: tuple[str, ...]) -> None:
    """Each point once per side, named ``<name>_L``/``_R`` with the matching side byte."""
    file = sus.header.file
    for p in sus.points[kind]:
        cell = byte_cell(file, p.offset, f"{kind}, {p.name}")
        m = re.match(r"^(.*)_([LR])$", p.name)
        base, side = (m.group(1), m.group(2)) if m else (p.name, "")
        if base not in names or side not in ("L", "R"):
            fail(
                cell,
                f"point {p.name!r} is not one of the {kind} element's points",
                f"the {kind} element has {', '.join(n + '_L/_R' for n in names)}",
            )
        if (side == "L") != p.left:
            fail(
                cell,
                f"point {p.name!r} says side {side} but its side byte says"
                f" {'left' if p.left else 'right'}",
                "the file is damaged",
            )
        by_side = export.points.setdefault(base, {})
        if side in by_side:
            fail(cell, f"point {p.name!r} is given twice (first at {by_side[side][1].ref})", "")
        xyz = (p.xyz[0] * 1000.0, p.xyz[1] * 1000.0, p.xyz[2] * 1000.0)
        by_side[side] = (xyz, cell)  # type: ignore[index]
    missing = [f"{n}_{s}" for n in names for s in ("L", "R") if s not in export.points.get(n, {})]
    if missing:
        fail(
            byte_cell(file, sus.element_offsets[kind], kind),
            f"the {kind} element lacks {', '.join(missing)}",
            "export the suspension again from OptimumK",
        )


def _member(text: str) -> tuple[str, str]:
    """(member, side) of ``UpperAArm_L``."""
    m = re.match(r"^(.*?)_?([LR])$", text)
    return (m.group(1), m.group(2)) if m else (text, "")


def _read_attachments(sus: SuspensionDef, export: AxleExport, body: ByteCell) -> None:
    file = sus.header.file
    seen: dict[str, dict[str, tuple[str, ByteCell]]] = {}
    for a in sus.attachments:
        cell = byte_cell(file, a.offset, f"attachment of {a.element}, {a.point}", a.member)
        member, side = _member(a.member)
        if a.element == "Push Pull":
            key, allowed = "push", PUSH_ROD_MEMBERS
        elif a.element.replace(" ", "").casefold().startswith("tierod"):
            key, allowed = "tie", TIE_ROD_MEMBERS
        else:
            fail(
                cell,
                f"attachment of {a.element!r} ({a.point} to {a.member}) cannot be imported yet",
                "the importer reads the Push Pull and tie rod attachments",
            )
        if member not in allowed:
            fail(
                cell,
                f"{a.element} attached to {a.member!r} cannot be imported yet",
                f"supported attachments: {', '.join(allowed)}",
            )
        seen.setdefault(key, {})[side] = (member, cell)
    for key, by_side in seen.items():
        members = {m for m, _ in by_side.values()}
        first = next(iter(by_side.values()))
        if len(members) > 1:
            fail(
                first[1],
                f"the left and right {'push rods' if key == 'push' else 'tie rods'} are"
                f" attached to different members ({', '.join(sorted(members))})",
                "the importer builds both sides of an axle alike",
            )
        if key == "push":
            export.push_pull_on = first
        else:
            export.tie_rod_on = first
    if export.push_pull_on is None:
        fail(
            body,
            "no attachment of the Push Pull (what the push rod is attached to)",
            "export the suspension again from OptimumK",
        )


def _not_read(sus: SuspensionDef, export: AxleExport, skip_anti_roll_bars: bool) -> None:
    file = sus.header.file
    for met in sus.elements_not_read:
        cell = byte_cell(file, met.offset, met.type)
        if met.type in ANTI_ROLL_BAR_TYPES:
            if not skip_anti_roll_bars:
                fail(
                    cell,
                    f"the anti-roll bar {met.type!r} cannot be imported yet: the importer does"
                    " not read OptimumK's bar elements",
                    "import the car without it with skip_anti_roll_bars=True"
                    " (--skip-anti-roll-bars; the bar adds no kinematic constraint), then add"
                    " the bar in the workbook's Anti-roll Bars section (docs/workbook.md)",
                )
            reason = "anti-roll bar: the kinematics without it are unchanged"
        else:
            reason = NOT_READ_TYPES[met.type]
        export.warnings.append(f"{cell.where}: element {met.type!r} met, not read ({reason})")
    for gap in sus.undecoded:
        if gap.strings:
            export.warnings.append(
                f"{file}: bytes {gap.start}..{gap.end - 1}: not decoded; they hold the names"
                f" {', '.join(map(repr, gap.strings))} (nothing of the kinematics is read there)"
            )


# -- the setup --------------------------------------------------------------------------------
def vehicle_setup(setup: SetupDef) -> VehicleSetup:
    """Reference distance and CG height (m -> mm), brake bias (front share), drive bias
    (front share -> rear_drive_share), front mass % (percent -> fractions); the left mass
    % is said, not imported (as the Excel path)."""
    file = setup.header.file
    out = VehicleSetup(name=setup.header.name or None, where=f"{file} (vehicle setup)")

    def cell(offset: int, what: str) -> ByteCell:
        return byte_cell(file, offset, f"Setup, {what}")

    ref = setup.reference_distance
    if ref.value < 0 or not math.isfinite(ref.value):
        fail(cell(ref.offset, "Reference Distance"), f"Reference Distance {ref.value:g} m", "")
    if ref.value > 0:
        out.reference_distance_mm = ref.value * 1000.0
    cg = setup.cg_height
    if not cg.value > 0:
        fail(
            cell(cg.offset, "Center of Gravity Height"),
            f"the Center of Gravity Height must be a positive length, found {cg.value:g} m",
            "enter it in OptimumK",
        )
    out.cg_height_mm = cg.value * 1000.0
    shares = {}
    for name, v in (
        ("Front Mass Distribution", setup.front_mass_pct),
        ("Left Mass Distribution", setup.left_mass_pct),
        ("Brake Bias", setup.brake_bias_pct),
        ("Drive Bias", setup.drive_bias_pct),
    ):
        if not 0.0 <= v.value <= 100.0:
            fail(cell(v.offset, name), f"{name} {v.value:g} is not a percentage", "enter 0..100")
        shares[name] = v.value / 100.0
    out.front_mass_share = shares["Front Mass Distribution"]
    out.front_brake_share = shares["Brake Bias"]
    out.rear_drive_share = 1.0 - shares["Drive Bias"]
    left = setup.left_mass_pct
    out.warnings.append(
        f"{cell(left.offset, 'Left Mass Distribution').where}: Left Mass Distribution"
        f" {left.value:g} % not imported: no channel of the car uses it (the workbook has no"
        " left mass share)"
    )
    return out


# -- the car ----------------------------------------------------------------------------------
def car_from_definitions(
    front: SuspensionDef | None,
    rear: SuspensionDef | None,
    setup: SetupDef | None,
    name: str | None = None,
    *,
    reference_distance_mm: float | None = None,
    axes: str | None = None,
    skip_anti_roll_bars: bool = False,
) -> Car:
    """The `Car` of one or two suspensions and a setup (`build_car`, as the Excel path).
    axes: the files' axes as ``model = M @ file`` (default: OptimumK's X forward, Y left,
    Z up). reference_distance_mm overrides the setup's."""
    exports: dict[Axle, AxleExport] = {}
    if front is not None:
        exports["front"] = axle_export(front, skip_anti_roll_bars=skip_anti_roll_bars)
    if rear is not None:
        exports["rear"] = axle_export(rear, skip_anti_roll_bars=skip_anti_roll_bars)
    if not exports:
        raise WorkbookError(
            "no suspension to import",
            where=setup.header.file if setup else None,
            hint="give a .O2Sus file, or a .O2Set whose suspensions are in its project",
        )
    if axes is not None:
        matrix = parse_matrix_text(axes, "--axes")
        for e in exports.values():
            e.axis_map, e.axis_cell = matrix, None
    vs = vehicle_setup(setup) if setup is not None else VehicleSetup()
    if setup is None:
        vs.where = "no vehicle setup given (--vehicle)"
    if reference_distance_mm is not None:
        vs.reference_distance_mm = reference_distance_mm
    if "front" in exports and "rear" in exports and vs.reference_distance_mm is None:
        raise WorkbookError(
            "the rear suspension has its own origin, placed by the vehicle setup's Reference"
            " Distance, and "
            + ("the setup's is 0" if setup is not None else "no vehicle setup was given"),
            where=(
                byte_cell(setup.header.file, setup.reference_distance.offset, "Setup").where
                if setup is not None
                else exports["rear"].sheet
            ),
            hint="pass the vehicle setup (--vehicle SETUP.O2Set) or --reference-distance MM",
        )
    car_name = name or vs.name or next(iter(exports.values())).name or "OptimumK car"
    return build_car(exports, vs, car_name)


def _kind_of(path: Path) -> str:
    return path.suffix.lower()


def read_optimumk_files(
    source: str | Path,
    rear: str | Path | None = None,
    setup: str | Path | None = None,
    axle: Axle | None = None,
    name: str | None = None,
    *,
    reference_distance_mm: float | None = None,
    axes: str | None = None,
    skip_anti_roll_bars: bool = False,
) -> Car:
    """Build a `Car` from OptimumK's binary files.

    source: a suspension (.O2Sus; the `axle` given, else "front" with a rear file, else
    the axle the setup or its name says), or a vehicle setup (.O2Set: its front and rear
    suspensions found by GUID in its project folder, unless `rear` is given). rear: the
    rear suspension (.O2Sus). setup: the vehicle setup (.O2Set) for the Reference Distance,
    CG height, brake and drive bias and mass distribution."""
    src = Path(source)
    warnings: list[str] = []
    setup_def: SetupDef | None
    if _kind_of(src) == ".o2set":
        if setup is not None:
            raise WorkbookError(
                "a vehicle setup was given twice (as the file and with --vehicle)",
                where=str(setup),
                hint="give the setup once",
            )
        if axle is not None:
            raise WorkbookError(
                "--axle applies to a lone suspension (.O2Sus); a setup says which suspension"
                " is the front and which the rear",
                where=str(source),
                hint="leave out --axle",
            )
        setup_def = _read_setup(src)
        front_def, rear_def = _suspensions_of(setup_def, src, rear)
        if rear is not None:  # given by hand: say when it is not the setup's own rear
            warnings += _check_guids(setup_def, None, rear_def)
    else:
        setup_def = _read_setup(Path(setup)) if setup is not None else None
        first = _read_suspension(src)
        rear_def = _read_suspension(Path(rear)) if rear is not None else None
        if axle is None:
            axle = "front" if rear_def is not None else _axle_of(first, setup_def)
        if rear_def is not None and axle == "rear":
            raise WorkbookError(
                "a rear file was given, but the first file is said to be the rear suspension",
                where=str(source),
                hint="give the front suspension first: FRONT.O2Sus --rear REAR.O2Sus",
            )
        front_def = first if axle == "front" else None
        if axle == "rear":
            rear_def = first
        if setup_def is not None:
            warnings += _check_guids(setup_def, front_def, rear_def)
    car = car_from_definitions(
        front_def,
        rear_def,
        setup_def,
        name,
        reference_distance_mm=reference_distance_mm,
        axes=axes,
        skip_anti_roll_bars=skip_anti_roll_bars,
    )
    if warnings:
        car = replace(car, warnings=(*warnings, *car.warnings))
    return car


def _read_setup(path: Path) -> SetupDef:
    d = read_definition(path)
    if not isinstance(d, SetupDef):
        raise OptimumKFileError(f"{path.name} is not a vehicle setup", where=path.name)
    return d


def _read_suspension(path: Path) -> SuspensionDef:
    if _kind_of(path) != ".o2sus":
        raise OptimumKFileError(
            f"{path.name} is not an OptimumK suspension (.O2Sus)",
            where=path.name,
            hint="give the suspension's .O2Sus file",
        )
    d = read_definition(path)
    assert isinstance(d, SuspensionDef)
    return d


def _axle_of(sus: SuspensionDef, setup: SetupDef | None) -> Axle:
    """The axle a lone suspension is: the setup's GUID that names it, else a 'front' or
    'rear' word in its name or file name."""
    if setup is not None:
        if sus.header.guid == setup.front_guid:
            return "front"
        if sus.header.guid == setup.rear_guid:
            return "rear"
    for text in (sus.header.name, Path(sus.header.file).stem):
        words = set(re.findall(r"[a-z]+", text.casefold()))
        found = {"front", "rear"} & words
        if len(found) == 1:
            return "front" if "front" in found else "rear"
    raise WorkbookError(
        f"cannot tell whether suspension {sus.header.name!r} is the front or the rear one:"
        " neither its name nor its file name says",
        where=sus.header.file,
        hint="pass --axle front or --axle rear",
    )


def _check_guids(
    setup: SetupDef, front: SuspensionDef | None, rear: SuspensionDef | None
) -> list[str]:
    """Warnings when the suspensions given are not the ones the setup names."""
    out = []
    for axle, sus, guid in (("front", front, setup.front_guid), ("rear", rear, setup.rear_guid)):
        if sus is not None and guid is not None and sus.header.guid != guid:
            out.append(
                f"{setup.header.file}: the setup's {axle} suspension is {guid}; the file given"
                f" ({sus.header.file}, {sus.header.name!r}) is {sus.header.guid}: its numbers"
                " (Reference Distance ...) are used with it"
            )
    return out


def project_root(start: Path) -> Path:
    """The project folder of a file: the nearest folder at or above `start`'s folder that
    holds a ``Suspension`` and a ``Setup`` folder; else `start`'s own folder."""
    folder = start if start.is_dir() else start.parent
    probe = folder.resolve()
    for _ in range(MAX_PROJECT_DEPTH):
        if is_project(probe):  # an unreadable folder is not one: look further up
            return probe
        if probe.parent == probe:
            break
        probe = probe.parent
    return folder


def is_project(folder: Path) -> bool:
    """True when `folder` holds a ``Suspension`` and a ``Setup`` folder (an OptimumK
    project's vehicle folder, or the project above it)."""
    try:
        names = {p.name.casefold() for p in folder.iterdir() if p.is_dir()}
    except OSError:
        return False
    return {"suspension", "setup"} <= names


def definition_files(root: Path, suffix: str) -> list[Path]:
    """Files with `suffix` (any case), sorted: under `root` and its subfolders when it is a
    project (`is_project`), else in `root` itself only (a file outside any project never
    makes us walk a home folder)."""
    found = root.rglob("*") if is_project(root) else root.iterdir()
    return sorted(p for p in found if p.is_file() and p.suffix.lower() == suffix)


def guid_of(path: Path) -> str | None:
    """A definition file's GUID (header only, not checked further); None if unreadable."""
    try:
        data = path.read_bytes()
        return read_header(ByteReader(data, path.name, 0, max(len(data) - SHA1_SIZE, 0))).guid
    except (OSError, OptimumKFileError):
        return None


def _suspensions_of(
    setup: SetupDef, path: Path, rear: str | Path | None
) -> tuple[SuspensionDef | None, SuspensionDef | None]:
    """The setup's suspensions, found by GUID under its project root (or `rear`)."""
    root = project_root(path)
    files = definition_files(root, ".o2sus")
    by_guid: dict[str, list[Path]] = {}
    for f in files:
        g = guid_of(f)
        if g is not None:
            by_guid.setdefault(g, []).append(f)

    def find(guid: str | None, axle: str) -> SuspensionDef | None:
        if guid is None:
            return None
        paths = by_guid.get(guid, [])
        if not paths:
            raise WorkbookError(
                f"the setup's {axle} suspension (GUID {guid}) is in none of the {len(files)}"
                f" .O2Sus files under {root}",
                where=f"{setup.header.file}: byte {setup.header.offset}",
                hint=f"copy the {axle} suspension's .O2Sus into the project folder, or give"
                " the suspensions themselves: FRONT.O2Sus --rear REAR.O2Sus --vehicle SETUP.O2Set",
            )
        if len({p.read_bytes() for p in paths}) > 1:
            raise WorkbookError(
                f"the setup's {axle} suspension (GUID {guid}) is in several different files:"
                f" {', '.join(str(p) for p in paths)}",
                where=setup.header.file,
                hint="give the suspensions themselves: FRONT.O2Sus --rear REAR.O2Sus"
                " --vehicle SETUP.O2Set",
            )
        return _read_suspension(paths[0])

    front_def = find(setup.front_guid, "front")
    rear_def = _read_suspension(Path(rear)) if rear is not None else find(setup.rear_guid, "rear")
    if front_def is None and rear_def is None:
        raise WorkbookError(
            "the setup names no suspension (both GUIDs are all zeros)",
            where=setup.header.file,
            hint="give the suspension's .O2Sus file",
        )
    return front_def, rear_def


__all__ = [
    "ByteCell",
    "ByteSource",
    "axle_export",
    "car_from_definitions",
    "is_project",
    "project_root",
    "read_optimumk_files",
    "vehicle_setup",
]
