"""OptimumK's definition files: the common header (`read_header`) and the bodies of a
motion (.O2Mot), force case (.O2For), vehicle setup (.O2Set), suspension (.O2Sus) and the
references of a simulation (.O2Sim); `read_definition(path)` reads one file and checks its
SHA-1, version and type flag. Values stay as stored (SI: m, rad, N, N m, N/m), each with the
byte offset it was read at so messages can name it. docs/optimumk_files.md has the layout.

A suspension is read from its element objects, found by their version and type strings
(a few undecoded bytes may sit between them), never from the leading point list, which
OptimumK does not solve with. `parse_setup_body` and `parse_suspension_body` also read the
copies embedded in a result file (.O2Res), which carry no SHA-1.

One module for now (~790 lines): the five bodies share the key-list and point-record
readers and the element finder; the suspension's elements (about half of it) are the
natural first module to split out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from suspension_sim.workbook.optimumk_files.stream import (
    NULL_GUID,
    SHA1_SIZE,
    ByteReader,
    DamagedFileError,
    ElementTypeError,
    OptimumKFileError,
    TruncatedFileError,
    TypeFlagError,
    UnknownVersionError,
    sha1_ok,
    where,
)

Kind = Literal["motion", "force", "setup", "suspension", "simulation"]
Side = Literal["L", "R"]

KIND_OF_FLAG: dict[int, Kind] = {
    0x41: "motion",
    0x70: "force",
    0x61: "setup",
    0x54: "suspension",
    0x71: "simulation",
}
"""The first byte of a definition file -> what it defines."""

FLAG_OF_KIND: dict[Kind, int] = {kind: flag for flag, kind in KIND_OF_FLAG.items()}

KIND_OF_SUFFIX: dict[str, Kind] = {
    ".o2mot": "motion",
    ".o2for": "force",
    ".o2set": "setup",
    ".o2sus": "suspension",
    ".o2sim": "simulation",
}
"""File suffix (lower case) -> the kind its type flag must say."""

KIND_NAMES: dict[Kind, str] = {
    "motion": "motion",
    "force": "force case",
    "setup": "vehicle setup",
    "suspension": "suspension",
    "simulation": "simulation",
}

READ_VERSIONS = frozenset({"2.0.1", "2.0.2"})
"""Format versions of the definition files read (seen in a real OptimumK v2 project)."""

SIMULATION_VERSIONS = READ_VERSIONS | {"2.0.3"}
"""A simulation (of which only the references and type are read) was seen at 2.0.3."""

DOUBLE_A_ARM_NAMES = (
    "CHAS_LowFor",
    "CHAS_LowAft",
    "CHAS_UppFor",
    "CHAS_UppAft",
    "UPRI_LowPnt",
    "UPRI_UppPnt",
    "CHAS_TiePnt",
    "UPRI_TiePnt",
)
PUSH_PULL_NAMES = (
    "NSMA_PPAttPnt",
    "CHAS_AttPnt",
    "CHAS_RocAxi",
    "CHAS_RocPiv",
    "ROCK_RodPnt",
    "ROCK_CoiPnt",
)
POINT_ELEMENTS: dict[str, tuple[str, ...]] = {
    "Double A-Arm": DOUBLE_A_ARM_NAMES,
    "Push Pull": PUSH_PULL_NAMES,
}
"""Element types that are a point list, and the point names (per side, no suffix)."""

WHEEL_FIELDS = (
    "Longitudinal Offset",
    "Lateral Offset",
    "Vertical Offset",
    "Half Track",
    "Rim Diameter",
    "Tire Diameter",
    "Tire Width",
    "Static Camber",
    "Static Toe",
)
"""The nine doubles of each side of a Wheels element, in file order (m, rad)."""

NOT_READ_TYPES: dict[str, str] = {
    "Reference Point": "extra points that are not members of the linkage",
}
"""Element types met but not read: they do not change the kinematics."""

ANTI_ROLL_BAR_TYPES = ("U-Bar", "T-Bar", "Anti-Roll Bar", "Anti Roll Bar")
"""Anti-roll bars: no kinematic constraint; the importer refuses them unless told to skip
them (as the Excel path), so they are listed as met, not read."""

MOTION_DOFS = ("heave", "roll", "pitch", "steering")
"""Degrees of freedom of a motion, in file order (m, rad, rad, rad of steering wheel)."""

FORCE_WHEELS = ("FL", "FR", "RL", "RR")
FORCE_COMPONENTS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")

_VERSION_RE = re.compile(r"^\d+\.\d+$")
_FILE_VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")
_TYPE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9 _/-]*$")
MAX_COUNT = 10_000
"""Largest count (points, keys, intervals) accepted; more means a damaged file."""


# -- values ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class At:
    """A stored value and the byte offset it was read at."""

    value: float
    offset: int


@dataclass(frozen=True)
class BinPoint:
    """A point record: name as stored (``CHAS_LowFor_L``), x y z (m), left or right side,
    byte offset of the record."""

    name: str
    xyz: tuple[float, float, float]
    left: bool
    offset: int


@dataclass(frozen=True)
class Header:
    """What every definition file starts with."""

    file: str
    type_flag: int
    kind: Kind
    version: str
    guid: str
    name: str
    created: datetime | None
    created_by: str
    modified: datetime | None
    modified_by: str
    comment: str
    offset: int
    """Byte offset of the body."""
    start: int = 0
    """Byte offset of the type flag (0 in a file; elsewhere in a result's embedded copy)."""


@dataclass(frozen=True)
class Attachment:
    """An attachment record: an element's point attached to a member of another element
    (``Push Pull``, ``Double A-Arm``, ``NSMA_PPAttPnt_L``, ``UpperAArm_L``)."""

    element: str
    group: str
    point: str
    member: str
    offset: int


@dataclass(frozen=True)
class ElementMet:
    """An element object found: version and type strings, byte offset of the version."""

    version: str
    type: str
    offset: int


@dataclass(frozen=True)
class Undecoded:
    """Bytes between elements that were not decoded, and the names they hold (if any)."""

    start: int
    end: int
    strings: tuple[str, ...] = ()


@dataclass
class SuspensionDef:
    """A suspension, as stored (m, rad, N/m). Points per element: ``points["Double
    A-Arm"]``; wheels per side and field; rack ratio in m of rack per steering-wheel turn."""

    header: Header
    leading_points: list[BinPoint] = field(default_factory=list)
    points: dict[str, list[BinPoint]] = field(default_factory=dict)
    element_offsets: dict[str, int] = field(default_factory=dict)
    wheels: dict[Side, dict[str, At]] = field(default_factory=dict)
    rack_ratio: At | None = None
    attachments: list[Attachment] = field(default_factory=list)
    springs: dict[Side, At] = field(default_factory=dict)
    elements_met: list[ElementMet] = field(default_factory=list)
    elements_not_read: list[ElementMet] = field(default_factory=list)
    undecoded: list[Undecoded] = field(default_factory=list)
    end: int = 0
    """Byte offset after the suspension object."""

    @property
    def has_rack(self) -> bool:
        return "Rack Pinion" in self.element_offsets


@dataclass
class SetupDef:
    """A vehicle setup: the suspensions it joins (GUIDs; None = none) and its numbers."""

    header: Header
    front_guid: str | None
    rear_guid: str | None
    vehicle_guid: str | None
    reference_distance: At
    """m: from the front suspension's origin to the rear one's."""
    front_mass_pct: At
    left_mass_pct: At
    cg_height: At
    """m."""
    brake_bias_pct: At
    """% of the braking at the front."""
    drive_bias_pct: At
    """% of the drive at the front."""
    end: int = 0


@dataclass(frozen=True)
class Keys:
    """A key list: (percent of the motion, value) pairs; linear between keys."""

    keys: tuple[tuple[float, float], ...]
    offset: int

    def span(self) -> tuple[float, float] | None:
        """(lowest, highest) value, None without keys."""
        if not self.keys:
            return None
        values = [v for _, v in self.keys]
        return min(values), max(values)


@dataclass
class MotionDef:
    header: Header
    intervals: int
    dofs: dict[str, Keys]
    """heave (m), roll, pitch, steering (rad)."""

    @property
    def steps(self) -> int:
        return self.intervals + 1


@dataclass
class ForceCaseDef:
    header: Header
    intervals: int
    keys: dict[tuple[str, str], Keys]
    """(wheel, component) -> keys, N and N m."""
    application: str

    @property
    def steps(self) -> int:
        return self.intervals + 1


@dataclass
class SimulationDef:
    header: Header
    vehicle_guid: str
    setup_guid: str
    motion_guid: str
    type: str


Definition = MotionDef | ForceCaseDef | SetupDef | SuspensionDef | SimulationDef


# -- header ----------------------------------------------------------------------------------
def read_header(r: ByteReader, kind: Kind | None = None) -> Header:
    """The common header: type flag, version, GUID, name, created (date, user), modified
    (date, user), comment. kind: the kind the caller expects (TypeFlagError otherwise).
    The version is returned as read (the caller checks it against what it reads)."""
    start = r.pos
    flag = r.byte("the type flag")
    found = KIND_OF_FLAG.get(flag)
    if found is None:
        raise TypeFlagError(
            f"unknown type flag 0x{flag:02x}: a definition file starts with 0x41 (motion),"
            " 0x70 (force case), 0x61 (vehicle setup), 0x54 (suspension) or 0x71 (simulation)",
            where=where(r.file, start),
            hint="this is not an OptimumK definition file, or one of a kind not read",
        )
    if kind is not None and found != kind:
        raise TypeFlagError(
            f"type flag 0x{flag:02x} says a {KIND_NAMES[found]}; a {KIND_NAMES[kind]} was"
            f" expected (flag 0x{FLAG_OF_KIND[kind]:02x})",
            where=where(r.file, start),
            hint="give the right file, or rename it with its kind's suffix",
        )
    version = r.string("the format version")
    guid = r.guid("the file's GUID")
    name = r.string("the name")
    created = r.date("the creation date")
    created_by = r.string("the creating user")
    modified = r.date("the modification date")
    modified_by = r.string("the modifying user")
    comment = r.string("the comment")
    return Header(
        r.file,
        flag,
        found,
        version,
        guid,
        name,
        created,
        created_by,
        modified,
        modified_by,
        comment,
        r.pos,
        start,
    )


def check_version(header: Header) -> None:
    """UnknownVersionError for a version not read (naming it and its byte offset)."""
    allowed = SIMULATION_VERSIONS if header.kind == "simulation" else READ_VERSIONS
    if header.version not in allowed:
        raise UnknownVersionError(
            f"format version {header.version!r} of this {KIND_NAMES[header.kind]} is not"
            f" one the reader knows ({', '.join(sorted(allowed))})",
            where=where(header.file, header.start + 1),
            hint="export the suspension or setup to Excel from OptimumK and import that"
            " (docs/optimumk.md), or report the version so it can be checked",
        )


# -- bodies ----------------------------------------------------------------------------------
def _count(r: ByteReader, what: str, low: int = 0, high: int = MAX_COUNT) -> int:
    at = r.pos
    n = r.int32(what)
    if not low <= n <= high:
        raise r.fail(f"expected {what} ({low}..{high}); found {n}", at)
    return n


def _keys(r: ByteReader, what: str) -> Keys:
    at = r.pos
    n = _count(r, f"the number of keys of {what}")
    pairs = tuple(
        (r.double(f"a key's percent ({what})"), r.double(f"a key's value ({what})"))
        for _ in range(n)
    )
    return Keys(pairs, at)


def parse_motion_body(r: ByteReader, header: Header) -> MotionDef:
    """2 bytes, int32 intervals, then heave (m), roll, pitch, steering (rad) key lists."""
    r.raw(2, "two bytes before the number of intervals")
    intervals = _count(r, "the number of intervals", 1)
    dofs = {dof: _keys(r, dof) for dof in MOTION_DOFS}
    return MotionDef(header, intervals, dofs)


def parse_force_body(r: ByteReader, header: Header) -> ForceCaseDef:
    """2 bytes, int32 intervals, 12 bytes, 24 key lists (FL, FR, RL, RR x Fx..Mz), then the
    application point's name."""
    r.raw(2, "two bytes before the number of intervals")
    intervals = _count(r, "the number of intervals", 1)
    r.raw(12, "twelve bytes before the key lists")
    keys = {(w, c): _keys(r, f"{c} at {w}") for w in FORCE_WHEELS for c in FORCE_COMPONENTS}
    application = r.string("the application point")
    return ForceCaseDef(header, intervals, keys, application)


def _optional_guid(r: ByteReader, what: str) -> str | None:
    g = r.guid(what)
    return None if g == NULL_GUID else g


def parse_setup_body(r: ByteReader, header: Header) -> SetupDef:
    """GUIDs of the front and rear suspensions and of the vehicle (all-zero = none), then
    doubles: reference distance (m), front mass %, left mass %, CG height (m), brake bias %
    and drive bias % (front shares). Leaves `r` after the last double."""
    front = _optional_guid(r, "the front suspension's GUID")
    rear = _optional_guid(r, "the rear suspension's GUID")
    vehicle = _optional_guid(r, "the vehicle's GUID")
    values: list[At] = []
    for what in (
        "the reference distance (m)",
        "the front mass distribution (%)",
        "the left mass distribution (%)",
        "the CG height (m)",
        "the brake bias (%)",
        "the drive bias (%)",
    ):
        at = r.pos
        values.append(At(r.double(what), at))
    distance, front_mass, left_mass, cg, brake, drive = values
    return SetupDef(
        header, front, rear, vehicle, distance, front_mass, left_mass, cg, brake, drive, r.pos
    )


def parse_simulation_body(r: ByteReader, header: Header) -> SimulationDef:
    """GUIDs of the vehicle, setup and motion, then the simulation type (the rest is not
    decoded)."""
    vehicle = r.guid("the vehicle's GUID")
    setup = r.guid("the setup's GUID")
    motion = r.guid("the motion's GUID")
    kind = r.string("the simulation type")
    return SimulationDef(header, vehicle, setup, motion, kind)


def _point(r: ByteReader, what: str) -> BinPoint:
    """A point record: byte 1, name, x y z (m), byte side (1 = left), byte 0."""
    at = r.pos
    r.expect(b"\x01", f"the marker byte 1 of a point record ({what})")
    name = r.string(f"a point name ({what})")
    xyz = (r.double(f"x of {name}"), r.double(f"y of {name}"), r.double(f"z of {name}"))
    side_at = r.pos
    side = r.byte(f"the side byte of {name}")
    if side not in (0, 1):
        raise r.fail(f"expected the side byte of {name} (1 left, 0 right); found {side}", side_at)
    r.raw(1, f"the byte after {name}")
    return BinPoint(name, xyz, side == 1, at)


def _points(r: ByteReader, what: str) -> list[BinPoint]:
    n = _count(r, f"the number of points of {what}", 0, 1000)
    return [_point(r, what) for _ in range(n)]


def _vector(r: ByteReader, name: str) -> None:
    """A named vector record after a wheel (same form as a point record): its name must be
    `name` (``Forces_L``), else the bytes are not as read."""
    at = r.pos
    marker = r.byte(f"the marker byte of the {name} vector")
    got = r.peek_string(r.pos)
    if marker != 1 or got is None or got[0] != name:
        raise OptimumKFileError(
            f"expected the {name} vector record after the wheel's nine values; found"
            f" {'the name ' + repr(got[0]) if got else 'no name'}: the Wheels element is not"
            " laid out as read",
            where=where(r.file, at),
            hint="export the suspension to Excel from OptimumK and import that",
        )
    r.string(name)
    for axis in "xyz":
        r.double(f"{name} {axis}")
    r.raw(2, f"the two bytes after {name}")


_WHEEL_LIMITS: dict[str, tuple[float, float]] = {
    "Longitudinal Offset": (-5.0, 5.0),
    "Lateral Offset": (-5.0, 5.0),
    "Vertical Offset": (-5.0, 5.0),
    "Half Track": (0.01, 5.0),
    "Rim Diameter": (0.0, 3.0),
    "Tire Diameter": (0.01, 3.0),
    "Tire Width": (0.001, 2.0),
    "Static Camber": (-0.6, 0.6),
    "Static Toe": (-0.6, 0.6),
}
"""Plausible stored wheel values (m, rad): outside them, the bytes were not read right."""


def _wheel_side(r: ByteReader, side: Side) -> dict[str, At]:
    out: dict[str, At] = {}
    for fld in WHEEL_FIELDS:
        at = r.pos
        out[fld] = At(r.double(f"the {'left' if side == 'L' else 'right'} wheel's {fld}"), at)
    bad = [
        f"{f} {v.value:.6g}"
        for f, v in out.items()
        if not _WHEEL_LIMITS[f][0] <= v.value <= _WHEEL_LIMITS[f][1]
    ]
    if bad:
        raise OptimumKFileError(
            f"the {'left' if side == 'L' else 'right'} wheel's values read here are not"
            f" plausible ({', '.join(bad)}; m and rad): the Wheels element is not laid out"
            " as read, so no wheel is built from it",
            where=where(r.file, out[WHEEL_FIELDS[0]].offset),
            hint="export the suspension to Excel from OptimumK and import that",
        )
    return out


def _wheels(r: ByteReader, sus: SuspensionDef) -> None:
    """Per side: the nine doubles (`WHEEL_FIELDS`), a 4-byte colour, then the Forces and
    Moments vector records of that side."""
    for side in ("L", "R"):
        sus.wheels[side] = _wheel_side(r, side)
        r.raw(4, "the wheel's colour")
        _vector(r, f"Forces_{side}")
        _vector(r, f"Moments_{side}")


def _attachments(r: ByteReader, sus: SuspensionDef) -> None:
    n = _count(r, "the number of attachments", 1, 64)
    for _ in range(n):
        at = r.pos
        element = r.string("the attached element")
        group = r.string("the element the point is attached to")
        point = r.string("the attached point")
        member = r.string("the member it is attached to")
        sus.attachments.append(Attachment(element, group, point, member, at))


def _springs(r: ByteReader, sus: SuspensionDef, n: int) -> None:
    for _ in range(n):
        at = r.pos
        kind = r.string("the spring element's type")
        if kind != "Spring":
            raise ElementTypeError(
                f"element type {kind!r} in the spring list is not understood (only 'Spring'"
                " is read there)",
                where=where(r.file, at),
                hint="export the suspension to Excel from OptimumK and import that",
            )
        on = r.string("the element the spring is on")
        if on != "Push Pull":
            raise r.fail(f"a spring on {on!r} cannot be imported (only on the Push Pull)", at)
        r.raw(4, "four bytes before the spring stiffnesses")
        for side in ("L", "R"):
            o = r.pos
            sus.springs[side] = At(r.double(f"the {side} spring stiffness (N/m)"), o)


def _is_next_definition(r: ByteReader, q: int) -> bool:
    """A definition object's start (type flag, then a file version ``2.0.2``): the end of an
    embedded suspension copy."""
    if r.data[q] not in KIND_OF_FLAG:
        return False
    s = r.peek_string(q + 1, 16)
    return s is not None and bool(_FILE_VERSION_RE.match(s[0]))


def _element_at(r: ByteReader, q: int) -> tuple[str, str, int, int | None] | None:
    """(version, type, offset after the type string, count or None) of an element object
    at byte q: a version string (``2.0``) then a type string, or a version, an int32 count
    and a type string (the spring list)."""
    v = r.peek_string(q, 8)
    if v is None or not _VERSION_RE.match(v[0]):
        return None
    t = r.peek_string(v[1])
    if t is not None and _TYPE_RE.match(t[0]):
        return v[0], t[0], t[1], None
    if v[1] + 4 <= r.end:
        n = int.from_bytes(r.data[v[1] : v[1] + 4], "little", signed=True)
        t = r.peek_string(v[1] + 4)
        if 1 <= n <= 64 and t is not None and _TYPE_RE.match(t[0]):
            return v[0], t[0], t[1], n
    return None


def _attachments_at(r: ByteReader, q: int) -> bool:
    """An attachment list at byte q: an int32 count (1..64) then four names."""
    if q + 4 > r.end:
        return False
    n = int.from_bytes(r.data[q : q + 4], "little", signed=True)
    if not 1 <= n <= 64:
        return False
    at = q + 4
    for _ in range(4):
        s = r.peek_string(at)
        if s is None or _VERSION_RE.match(s[0]):
            return False
        at = s[1]
    return True


def _gap(r: ByteReader, start: int, end: int) -> Undecoded:
    strings, q = [], start
    while q < end:
        s = r.peek_string(q)
        if s is not None and s[1] <= end and len(s[0]) >= 3 and _TYPE_RE.match(s[0]):
            strings.append(s[0])
            q = s[1]
        else:
            q += 1
    return Undecoded(start, end, tuple(strings))


def parse_suspension_body(r: ByteReader, header: Header, *, whole: bool = False) -> SuspensionDef:
    """The leading point list (kept, not used), then the element objects, found by their
    version and type strings: Double A-Arm and Push Pull (point lists), Wheels, Rack
    Pinion, the attachment list and the spring list. The spring list and the byte after
    it end a suspension object: there the reader stops (`r` and `SuspensionDef.end` just
    after that byte), as for a result's embedded copies, whatever follows. whole (a
    definition file): the bytes after it up to the end are scanned too, for elements
    after the springs. Without a spring list it stops at the end of the data or where
    another definition object starts. ElementTypeError for an element type not
    understood."""
    sus = SuspensionDef(header)
    sus.leading_points = _points(r, "the leading point list")
    gap_start = q = r.pos
    while q < r.end:
        if q > gap_start and _is_next_definition(r, q):
            break
        found = _element_at(r, q)
        is_attachments = found is None and "Wheels" in sus.element_offsets and _attachments_at(r, q)
        if found is None and not is_attachments:
            q += 1
            continue
        if q > gap_start:
            sus.undecoded.append(_gap(r, gap_start, q))
        r.pos = q
        if is_attachments:
            if sus.attachments:
                raise r.fail("a second attachment list", q)
            _attachments(r, sus)
        elif found is not None:
            version, kind, after, count = found
            met = ElementMet(version, kind, q)
            r.pos = after
            if count is None:
                _element(r, sus, met)
            else:
                _spring_list(r, sus, met, count)
                if r.pos < r.end:
                    r.raw(1, "the byte after the spring list")
                if not whole or _nothing_follows(r):
                    gap_start = q = r.pos
                    break
        gap_start = q = r.pos
    end = min(q, r.end)
    if gap_start < end:
        sus.undecoded.append(_gap(r, gap_start, end))
    r.pos = max(r.pos, end) if q >= r.end else end
    sus.end = r.pos
    return sus


def _nothing_follows(r: ByteReader) -> bool:
    """After the spring list: the end, zeros only, or (after at most one byte) another
    definition object."""
    if r.pos >= r.end or not any(r.data[r.pos : r.end]):
        return True
    return any(_is_next_definition(r, q) for q in (r.pos, r.pos + 1) if q < r.end)


def _spring_list(r: ByteReader, sus: SuspensionDef, met: ElementMet, count: int) -> None:
    if met.type != "Spring":
        raise ElementTypeError(
            f"element list of type {met.type!r} (version {met.version}) is not understood",
            where=where(r.file, met.offset),
            hint="export the suspension to Excel from OptimumK and import that (docs/optimumk.md)",
        )
    if "Spring" in sus.element_offsets:
        raise r.fail("a second spring list", met.offset)
    sus.element_offsets["Spring"] = met.offset
    sus.elements_met.append(met)
    r.pos -= len(met.type.encode()) + 1  # the first item's type string is read per item
    _springs(r, sus, count)


def _element(r: ByteReader, sus: SuspensionDef, met: ElementMet) -> None:
    kind = met.type
    if kind in sus.element_offsets:
        raise r.fail(
            f"a second {kind!r} element (the first at byte {sus.element_offsets[kind]})",
            met.offset,
        )
    if kind in POINT_ELEMENTS:
        sus.points[kind] = _points(r, kind)
    elif kind == "Wheels":
        _wheels(r, sus)
    elif kind == "Rack Pinion":
        at = r.pos
        sus.rack_ratio = At(r.double("the rack travel per steering-wheel turn (m)"), at)
    elif kind in NOT_READ_TYPES or kind in ANTI_ROLL_BAR_TYPES:
        sus.elements_not_read.append(met)
        return  # its layout is unknown: the scan goes on after its type string
    else:
        raise ElementTypeError(
            f"element type {kind!r} (version {met.version}) is not understood",
            where=where(r.file, met.offset),
            hint="the reader reads Double A-Arm, Push Pull, Wheels, Rack Pinion, the"
            " attachments and Spring; export the suspension to Excel from OptimumK and"
            " import that (docs/optimumk.md)",
        )
    sus.element_offsets[kind] = met.offset
    sus.elements_met.append(met)


# -- files -------------------------------------------------------------------------------------
_PARSERS: dict[Kind, Callable[[ByteReader, Header], Definition]] = {
    "motion": parse_motion_body,
    "force": parse_force_body,
    "setup": parse_setup_body,
    "suspension": lambda r, h: parse_suspension_body(r, h, whole=True),
    "simulation": parse_simulation_body,
}


def read_bytes(path: Path) -> bytes:
    """The file's bytes; OptimumKFileError when it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise OptimumKFileError(
            f"file not found: {path}", where=path.name, hint="check the path and the name"
        ) from None
    except IsADirectoryError:
        raise OptimumKFileError(
            f"{path} is a folder, not a file", where=path.name, hint="give the file"
        ) from None
    except OSError as exc:
        raise OptimumKFileError(f"cannot read {path}: {exc}", where=path.name) from None


def parse_definition(data: bytes, file: str, kind: Kind | None = None) -> Definition:
    """A definition file's bytes: SHA-1, type flag (`kind`, when the suffix says one),
    version and body. A bad SHA-1 is a damaged file, told apart by what the bytes before
    it are: a file that ends before a value it must hold is truncated; bytes that cannot
    be read (a bad length, an unknown element ...) are named at the byte where reading
    stops; bytes that read as a whole file mean a changed value or a damaged checksum."""
    if not sha1_ok(data):
        try:
            _parse(data, file, kind, max(len(data) - SHA1_SIZE, 0))
        except TruncatedFileError as exc:
            detail = exc.message.removeprefix("truncated: ")
            raise TruncatedFileError(
                f"truncated: the file ({len(data)} bytes) ends before its content does:"
                f" {detail}; its last 20 bytes are no matching SHA-1",
                where=exc.where,
                hint="copy the file again from the OptimumK project",
            ) from None
        except OptimumKFileError as exc:
            raise DamagedFileError(
                "damaged file: the SHA-1 in its last 20 bytes does not match the bytes before"
                f" them, and they cannot be read here: {exc.message}",
                where=exc.where,
                hint="copy the file again from the OptimumK project, or save it again in OptimumK",
            ) from None
        raise DamagedFileError(
            "damaged file: the SHA-1 in its last 20 bytes does not match the bytes before"
            " them, which read as a whole file: a value was changed after OptimumK saved it"
            " (nothing of it is used), or the checksum itself is damaged",
            where=where(file, max(len(data) - SHA1_SIZE, 0)),
            hint="copy the file again from the OptimumK project, or save it again in OptimumK",
        )
    return _parse(data, file, kind, len(data) - SHA1_SIZE)


def _parse(data: bytes, file: str, kind: Kind | None, end: int) -> Definition:
    r = ByteReader(data, file, 0, end)
    header = read_header(r, kind)
    check_version(header)
    return _PARSERS[header.kind](r, header)


def read_definition(path: str | Path) -> Definition:
    """Read one definition file (.O2Mot, .O2For, .O2Set, .O2Sus, .O2Sim): SHA-1, type
    flag (it must match the suffix), version in `READ_VERSIONS`, body."""
    p = Path(path)
    kind = KIND_OF_SUFFIX.get(p.suffix.lower())
    if kind is None:
        raise OptimumKFileError(
            f"{p.name} is not an OptimumK definition file (suffix {p.suffix or 'none'})",
            where=p.name,
            hint="give a .O2Sus, .O2Set, .O2Mot, .O2For or .O2Sim file",
        )
    return parse_definition(read_bytes(p), p.name, kind)
