"""OptimumK binary definition files for tests, written from the documented layout
(docs/optimumk_files.md); no third-party file is copied.

Encoding: little-endian; a string is a 7-bit variable-length byte count then UTF-8; a date
is .NET ticks with the kind in the top two bits (written as a local time, kind 2); numbers
are doubles in SI units (m, rad, N/m); a definition file ends with the SHA-1 of all the
bytes before it. The undecoded bytes between suspension elements are written in the form
such files have (colours, presence bytes), so the reader is tested finding the elements by
their strings.

The car values are the ones the Excel test files take (tests/_optimumk_files.py,
`suspension_sheet`): points by side in mm in the file's coordinates (Push Pull names
without ``_L``), wheels in mm and degrees, the rack ratio in mm per steering-wheel turn,
springs in N/mm; they are converted to SI here.

Public API: `string_bytes`, `date_bytes`, `header_bytes`, `with_sha1`, `point_record`,
`suspension_body`, `suspension_bytes`, `setup_body`, `setup_bytes`, `motion_body`,
`motion_bytes`, `force_body`, `force_bytes`, `simulation_bytes`, `element`, `new_guid`.
"""

from __future__ import annotations

import hashlib
import math
import struct
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

Vec = tuple[float, float, float]

DOUBLE_A_ARM: tuple[str, ...] = (
    "CHAS_LowFor",
    "CHAS_LowAft",
    "CHAS_UppFor",
    "CHAS_UppAft",
    "UPRI_LowPnt",
    "UPRI_UppPnt",
    "CHAS_TiePnt",
    "UPRI_TiePnt",
)
PUSH_PULL: tuple[str, ...] = (
    "NSMA_PPAttPnt",
    "CHAS_AttPnt",
    "CHAS_RocAxi",
    "CHAS_RocPiv",
    "ROCK_RodPnt",
    "ROCK_CoiPnt",
)
WHEEL_ORDER: tuple[str, ...] = (
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
"""The nine doubles per side of the Wheels element, in file order."""
ANGLES = ("Static Camber", "Static Toe")

FLAGS = {"motion": 0x41, "force": 0x70, "setup": 0x61, "suspension": 0x54, "simulation": 0x71}
NULL_GUID = "00000000-0000-0000-0000-000000000000"
WHEN = datetime(2024, 3, 1, 12, 30, 15, tzinfo=UTC)
COLOUR = b"\x00\x80\xff\xff"


# -- encoding -------------------------------------------------------------------------------
def length7(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def string_bytes(text: str) -> bytes:
    raw = text.encode("utf-8")
    return length7(len(raw)) + raw


def date_bytes(when: datetime | None, kind: int = 2) -> bytes:
    """.NET ToBinary: UTC ticks (100 ns since 0001-01-01) | kind << 62; None = 0 ticks."""
    if when is None:
        return struct.pack("<Q", 0)
    naive = when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when
    delta = naive - datetime(1, 1, 1)
    ticks = (delta.days * 86_400 + delta.seconds) * 10_000_000 + delta.microseconds * 10
    return struct.pack("<Q", ticks | (kind << 62))


def d(value: float) -> bytes:
    return struct.pack("<d", value)


def i32(value: int) -> bytes:
    return struct.pack("<i", value)


def new_guid(seed: str) -> str:
    """A GUID that depends on `seed` only (deterministic tests)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, seed))


def header_bytes(
    kind: str,
    name: str,
    guid: str,
    *,
    version: str = "2.0.2",
    user: str = "tests",
    comment: str = "",
    flag: int | None = None,
) -> bytes:
    """Type flag, version, GUID, name, created (date, user), modified (date, user), comment."""
    return (
        bytes([FLAGS[kind] if flag is None else flag])
        + string_bytes(version)
        + string_bytes(guid)
        + string_bytes(name)
        + date_bytes(WHEN)
        + string_bytes(user)
        + date_bytes(WHEN)
        + string_bytes(user)
        + string_bytes(comment)
    )


def with_sha1(data: bytes) -> bytes:
    """`data` followed by its SHA-1, as every definition file ends."""
    return data + hashlib.sha1(data).digest()


# -- suspension -------------------------------------------------------------------------------
def point_record(name: str, xyz_mm: Sequence[float], left: bool) -> bytes:
    """Byte 1, name, x y z (m), side byte (1 left), byte 0."""
    return (
        b"\x01"
        + string_bytes(name)
        + b"".join(d(v / 1000.0) for v in xyz_mm)
        + bytes([1 if left else 0, 0])
    )


def _point_list(names: Sequence[str], points_by_side: Mapping[str, Mapping[str, Vec]]) -> bytes:
    """int32 count, then the points of the left side then of the right, names with _L/_R."""
    out = [i32(2 * len(names))]
    for side in ("L", "R"):
        for n in names:
            shown = f"{n}_{side}"
            out.append(point_record(shown, points_by_side[n][side], side == "L"))
    return b"".join(out)


def element(version: str, kind: str) -> bytes:
    """An element object's version and type strings."""
    return string_bytes(version) + string_bytes(kind)


def _wheel_side(values: Mapping[str, float], side: str) -> bytes:
    out = []
    for f in WHEEL_ORDER:
        v = float(values.get(f, 0.0))
        out.append(d(math.radians(v) if f in ANGLES else v / 1000.0))
    out.append(b"\x80\x80\x80\xff")  # colour
    for vector in ("Forces", "Moments"):
        out.append(b"\x01" + string_bytes(f"{vector}_{side}") + d(0.0) * 3 + b"\x00\x00")
    return b"".join(out)


def suspension_body(
    axle: str,
    points_by_side: Mapping[str, Mapping[str, Vec]],
    wheels: Mapping[str, Mapping[str, float]],
    *,
    push_pull_on: str | None = None,
    rack_ratio: float | None = None,
    springs: Mapping[str, float] | None = None,
    leading_shift_mm: float = 42.0,
    gap: bytes = b"",
    extra_elements: Sequence[bytes] = (),
    wheels_element: bytes | None = None,
) -> bytes:
    """A suspension's body (no header, no SHA-1): the leading 28-point list (written
    `leading_shift_mm` above the element points: OptimumK does not solve with it), then
    the elements Double A-Arm, Push Pull, Wheels, Rack Pinion (front by default, `rack_ratio` mm per
    turn, default 90), the attachments (push rod on the UpperAArm at the front and the
    LowerAArm at the rear by default) and the spring list (`springs` N/mm per side).
    gap: extra undecoded bytes written before each element; extra_elements: written
    after the Wheels (e.g. ``element("2.0", "Mystery")``)."""
    front = axle == "front"
    shifted = {
        n: {s: (p[0], p[1], p[2] + leading_shift_mm) for s, p in by_side.items()}
        for n, by_side in points_by_side.items()
    }
    # The leading list holds both elements' points: 28 in all.
    leading = i32(2 * (len(DOUBLE_A_ARM) + len(PUSH_PULL)))
    for names in (DOUBLE_A_ARM, PUSH_PULL):
        for side in ("L", "R"):
            for n in names:
                leading += point_record(f"{n}_{side}", shifted[n][side], side == "L")
    out = [leading, i32(2), b"\x01", gap]
    out += [element("2.0", "Double A-Arm"), _point_list(DOUBLE_A_ARM, points_by_side)]
    out += [i32(0), COLOUR * 4, b"\x01\x11", gap]
    out += [element("2.0", "Push Pull"), _point_list(PUSH_PULL, points_by_side)]
    out += [COLOUR, b"\xff\xff\xff\xff", COLOUR, COLOUR, b"\x01\x51", gap]
    out += [
        wheels_element
        if wheels_element is not None
        else element("4.0", "Wheels")
        + _wheel_side(wheels["L"], "L")
        + _wheel_side(wheels["R"], "R")
    ]
    out += [b"\x01", gap, *extra_elements]
    ratio = rack_ratio if rack_ratio is not None else (90.0 if front else None)
    if ratio is not None:
        out += [b"\x01\x1a", element("2.0", "Rack Pinion"), d(ratio / 1000.0)]
    else:
        out.append(b"\x00")
    pp_on = push_pull_on or ("UpperAArm" if front else "LowerAArm")
    out += [b"\x01", i32(2)]
    for side in ("L", "R"):
        out += [
            string_bytes("Push Pull"),
            string_bytes("Double A-Arm"),
            string_bytes(f"NSMA_PPAttPnt_{side}"),
            string_bytes(f"{pp_on}_{side}"),
        ]
    out.append(b"\x00" * 5 + gap)
    if springs is not None:
        out += [
            string_bytes("2.0"),
            i32(1),
            string_bytes("Spring"),
            string_bytes("Push Pull"),
            b"\x00" * 4,
            d(springs["L"] * 1000.0),
            d(springs["R"] * 1000.0),
        ]
    out.append(b"\x01")
    return b"".join(out)


def suspension_bytes(
    axle: str,
    points_by_side: Mapping[str, Mapping[str, Vec]],
    wheels: Mapping[str, Mapping[str, float]],
    *,
    name: str | None = None,
    guid: str | None = None,
    version: str = "2.0.2",
    flag: int | None = None,
    **options: object,
) -> bytes:
    """A whole .O2Sus file (header, `suspension_body` options, SHA-1)."""
    shown = name or f"Test car - {'Front' if axle == 'front' else 'Rear'}"
    head = header_bytes("suspension", shown, guid or new_guid(shown), version=version, flag=flag)
    return with_sha1(head + suspension_body(axle, points_by_side, wheels, **options))  # type: ignore[arg-type]


# -- setup, motion, force case, simulation -------------------------------------------------------
def setup_body(
    front_guid: str | None,
    rear_guid: str | None,
    *,
    vehicle_guid: str | None = None,
    reference_distance: float = 1530.0,
    front_mass_pct: float = 47.0,
    left_mass_pct: float = 50.0,
    cg_height: float = 280.9,
    brake_bias_pct: float = 65.0,
    drive_bias_pct: float = 0.0,
) -> bytes:
    """A setup's body (no header, no SHA-1); lengths in mm (written in m), the rest in %
    (the same values as `_optimumk_files.setup_sheet`)."""
    return (
        string_bytes(front_guid or NULL_GUID)
        + string_bytes(rear_guid or NULL_GUID)
        + string_bytes(vehicle_guid or new_guid("vehicle"))
        + d(reference_distance / 1000.0)
        + d(front_mass_pct)
        + d(left_mass_pct)
        + d(cg_height / 1000.0)
        + d(brake_bias_pct)
        + d(drive_bias_pct)
    )


def setup_bytes(
    front_guid: str | None,
    rear_guid: str | None,
    *,
    name: str = "Test car",
    guid: str | None = None,
    version: str = "2.0.2",
    **values: float | str | None,
) -> bytes:
    """A whole .O2Set file (`setup_body` values)."""
    head = header_bytes("setup", name, guid or new_guid("setup " + name), version=version)
    return with_sha1(head + setup_body(front_guid, rear_guid, **values))  # type: ignore[arg-type]


def _keys(pairs: Sequence[tuple[float, float]]) -> bytes:
    return i32(len(pairs)) + b"".join(d(p) + d(v) for p, v in pairs)


def motion_body(
    intervals: int = 20,
    *,
    heave: Sequence[tuple[float, float]] = ((0.0, 0.0), (100.0, 0.0)),
    roll: Sequence[tuple[float, float]] = ((0.0, 0.0), (100.0, 0.0)),
    pitch: Sequence[tuple[float, float]] = ((0.0, 0.0), (100.0, 0.0)),
    steering: Sequence[tuple[float, float]] = ((0.0, 0.0), (100.0, 0.0)),
) -> bytes:
    """A motion's body: keys (percent, value) in SI (heave m; roll, pitch, steering rad)."""
    return b"\x00\x00" + i32(intervals) + b"".join(map(_keys, (heave, roll, pitch, steering)))


def motion_bytes(name: str = "Heave", *, guid: str | None = None, **keys: object) -> bytes:
    head = header_bytes("motion", name, guid or new_guid("motion " + name), version="2.0.1")
    return with_sha1(head + motion_body(**keys))  # type: ignore[arg-type]


def force_body(
    intervals: int = 20,
    keys: Mapping[tuple[str, str], Sequence[tuple[float, float]]] | None = None,
    application: str = "Contact Patch",
) -> bytes:
    """A force case's body: 24 key lists (FL, FR, RL, RR x Fx Fy Fz Mx My Mz; N, N m;
    absent = zero) then the application point."""
    given = keys or {}
    lists = [
        _keys(given.get((w, c), ((0.0, 0.0), (100.0, 0.0))))
        for w in ("FL", "FR", "RL", "RR")
        for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")
    ]
    return b"\x00\x00" + i32(intervals) + b"\x00" * 12 + b"".join(lists) + string_bytes(application)


def force_bytes(name: str = "Braking", *, guid: str | None = None, **options: object) -> bytes:
    head = header_bytes("force", name, guid or new_guid("force " + name))
    return with_sha1(head + force_body(**options))  # type: ignore[arg-type]


def simulation_bytes(
    name: str,
    vehicle_guid: str,
    setup_guid: str,
    motion_guid: str,
    *,
    kind: str = "Single Iteration",
) -> bytes:
    """A .O2Sim: the vehicle, setup and motion GUIDs, the type, then bytes not decoded."""
    head = header_bytes("simulation", name, new_guid("sim " + name), version="2.0.3")
    body = (
        string_bytes(vehicle_guid)
        + string_bytes(setup_guid)
        + string_bytes(motion_guid)
        + string_bytes(kind)
        + b"\x00" * 9
    )
    return with_sha1(head + body)
