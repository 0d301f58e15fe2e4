"""Read an OptimumK result file (.O2Res, format "2.3.0"): its car, its channels, its forces.

Layout (docs/optimumk_files.md, "Results (.O2Res)"), little-endian, every number in SI
units (m, rad, N, N m, N/m):

* from byte 0: a type flag (0x81), strings version ("2.3.0"), GUID and the result's
  name, 4 bytes (a colour), 1 byte; the vehicle (0xA1, strings version, GUID, name);
  then, each after a byte 1, full copies of the setup and of the front and rear
  suspensions the result was computed on (a definition file's header and body, without
  its SHA-1; the copies have GUIDs of their own, so they are taken in order); zeros up
  to `BLOCK`;
* at `BLOCK` (20000): int32 channel count, int32 step count, int32 file size, int32
  offset of the data; at `FORCE_BLOCK` (20100), in a force result: int32 force-element
  count, int32 step count, int32 offsets of their names and of their values;
* at `TABLE` (22000): one record per channel: string name, int32 unit code, int32 type
  code (`DOUBLE`, 14), int64 offset of its data from the file's start;
* the data: channel i's `step count` doubles at ``data offset + 8 * steps * i``;
* a force result: then the force elements' names (strings) and float32
  [elements][steps][9] (application point x y z m, force x y z N, moment x y z N m).

The layout was checked on the 14 result files of a public OptimumK project
(docs/optimumk_files.md, "Evidence").

Every problem (another version, a truncated file, a count or offset that does not fit
the file, a corrupted channel record) is an `OptimumKFileError` naming the file and the
byte offset; nothing is half read.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from suspension_sim.workbook.optimumk_files.definitions import (
    SetupDef,
    SuspensionDef,
    check_version,
    parse_setup_body,
    parse_suspension_body,
    read_header,
)
from suspension_sim.workbook.optimumk_files.stream import (
    ByteReader,
    OptimumKFileError,
    TruncatedFileError,
    TypeFlagError,
    UnknownVersionError,
)

RESULT_FLAG = 0x81
"""The first byte of a result file."""
VEHICLE_FLAG = 0xA1
"""The byte that opens the vehicle record."""
SETUP_FLAG = 0x61
SUSPENSION_FLAG = 0x54
PRESENT = 0x01
"""Type flags of the embedded setup and suspension copies (as in .O2Set / .O2Sus); each
copy follows a presence byte (`PRESENT`)."""
RESULT_VERSIONS = ("2.3.0",)
"""Result formats read (the only one seen)."""
BLOCK = 20000
"""Byte of the counts block (channels, steps, file size, data offset)."""
TABLE = 22000
"""Byte of the channel table."""
FORCE_BLOCK = 20100
"""Byte of a force result's counts: int32 force elements, int32 steps, int32 offset of
their names, int32 offset of their float32 values (zeros in a result without forces)."""
DOUBLE = 14
"""Type code of a channel of doubles (the only one seen)."""
FORCE_VALUES = 9
"""float32 per force element and step: point x y z (m), force x y z (N), moment x y z (N m)."""
MAX_FORCE_ELEMENTS = 10000
"""More names than this before the float32 block fits: not a force block."""

UNIT_CODES: dict[int, str] = {
    3: "rad",
    9: "N",
    12: "m",
    18: "-",
    22: "N/m",
    27: "N m",
    33: "rad/m",
    32: "rad/m",
}
"""SI unit of each unit code seen. 18 is no unit (a ratio; a channel named "...Percentage"
or "...Bias" is already in %). 32 is seen only on Motion Ratio Steering/Roll/Pitch: rad/m
is inferred from those channels, not verified."""
INFERRED_UNIT_CODES = frozenset({32})
"""Unit codes whose unit is inferred, not verified (docs/optimumk_files.md)."""

_VERSION_RE = re.compile(rb"[0-9]+\.[0-9]+\.[0-9]+")
"""A definition file's version string (``2.0.2``)."""


@dataclass(frozen=True)
class ResultChannel:
    """One channel: its name as stored (some force names end in a blank; `name` is
    stripped), unit code, values in SI units (one per step), and where it is."""

    name: str
    unit_code: int
    values: np.ndarray
    record: int
    """Byte of its channel-table record."""
    data: int
    """Byte of its first value."""

    @property
    def unit(self) -> str | None:
        """Its SI unit (`UNIT_CODES`), None for a code not seen before."""
        return UNIT_CODES.get(self.unit_code)


@dataclass(frozen=True)
class ForceElement:
    """One force element of a force result, float32 as stored: per step the application
    point (m), the force (N) and the moment (N m), world axes."""

    name: str
    offset: int
    """Byte of its name."""
    point: np.ndarray
    force: np.ndarray
    moment: np.ndarray


@dataclass(frozen=True)
class Vehicle:
    version: str
    guid: str
    name: str


@dataclass(frozen=True)
class OkResult:
    """A result file read (see the module docstring). Units SI."""

    path: Path
    version: str
    guid: str
    name: str
    vehicle: Vehicle
    setup: SetupDef
    front: SuspensionDef | None
    rear: SuspensionDef | None
    n_steps: int
    channels: tuple[ResultChannel, ...]
    force_elements: tuple[ForceElement, ...]
    data_offset: int
    file_size: int

    def channel(self, name: str) -> ResultChannel | None:
        """The channel called `name` (blanks at the ends ignored), or None."""
        key = name.strip()
        return next((c for c in self.channels if c.name == key), None)

    @property
    def is_force_result(self) -> bool:
        """True when the file holds force elements after its data."""
        return bool(self.force_elements)


def _error(
    path: Path,
    offset: int,
    message: str,
    hint: str | None = None,
    kind: type[OptimumKFileError] = OptimumKFileError,
) -> OptimumKFileError:
    return kind(message, where=f"{path.name}: byte {offset}", hint=hint)


def read_result(path: str | Path) -> OkResult:
    """Read a .O2Res file (see the module docstring); OptimumKFileError naming the byte
    offset of anything that does not fit."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise OptimumKFileError(
            f"cannot read the result file: {exc.strerror or exc}", where=str(p)
        ) from None
    r = ByteReader(data, p.name)
    flag = r.byte()
    if flag != RESULT_FLAG:
        raise _error(
            p,
            0,
            f"not an OptimumK result: its first byte is 0x{flag:02X}, a result's is "
            f"0x{RESULT_FLAG:02X}",
            hint="give the .O2Res file of a result (OptimumK's Result folder)",
            kind=TypeFlagError,
        )
    at = r.pos
    version = r.string()
    if version not in RESULT_VERSIONS:
        raise _error(
            p,
            at,
            f"result format {version!r} is not read (read: {', '.join(RESULT_VERSIONS)})",
            hint="export the result to Excel from OptimumK and validate against that file",
            kind=UnknownVersionError,
        )
    guid = r.guid("the result's GUID")
    name = r.string("the result's name")
    r.raw(4, "the result's colour")
    r.byte("a byte after the colour")
    at = r.pos
    if r.byte() != VEHICLE_FLAG:
        raise _error(p, at, f"expected the vehicle record (0x{VEHICLE_FLAG:02X}) here")
    vehicle = Vehicle(
        r.string("the vehicle's version"), r.guid("the vehicle's GUID"), r.string("its name")
    )
    setup, front, rear = _embedded(p, data, r.pos)
    return _channels_and_forces(p, data, version, guid, name, vehicle, setup, front, rear)


def _copy_at(r: ByteReader, q: int, flag: int) -> bool:
    """True when a copy of type `flag` starts at byte `q` (the flag, then a version string
    such as ``2.0.2``)."""
    if q >= r.end or r.data[q] != flag:
        return False
    s = r.peek_string(q + 1, 16)
    return s is not None and bool(_VERSION_RE.fullmatch(s[0].encode()))


def _next_copy(r: ByteReader, flag: int) -> bool:
    """True when a copy of type `flag` follows, after its presence byte (1) if there is
    one; `r` is then left at its type flag."""
    if r.pos < r.end and r.data[r.pos] == PRESENT and _copy_at(r, r.pos + 1, flag):
        r.pos += 1
    return _copy_at(r, r.pos, flag)


def _embedded(
    path: Path, data: bytes, start: int
) -> tuple[SetupDef, SuspensionDef | None, SuspensionDef | None]:
    """The setup copy, then the suspension copies after it (each read by the definition
    reader, which stops where the next copy or the zeros before `BLOCK` start)."""
    if len(data) < BLOCK:
        raise _error(
            path,
            len(data),
            f"truncated: the file ends at byte {len(data)}, before its counts block at byte "
            f"{BLOCK}",
            kind=TruncatedFileError,
        )
    r = ByteReader(data, path.name, start, BLOCK)
    if not _next_copy(r, SETUP_FLAG):
        raise _error(
            path,
            start,
            f"expected the copy of the vehicle setup (type flag 0x{SETUP_FLAG:02X}, after a "
            f"byte 1) here, found 0x{data[start]:02X}",
        )
    header = read_header(r, "setup")
    check_version(header)
    setup = parse_setup_body(r, header)
    copies: list[SuspensionDef] = []
    first = r.pos
    while len(copies) < 2 and _next_copy(r, SUSPENSION_FLAG):
        header = read_header(r, "suspension")
        check_version(header)
        copies.append(parse_suspension_body(r, header))
    front, rear = _front_and_rear(path, setup, copies, first)
    return setup, front, rear


def _front_and_rear(
    path: Path, setup: SetupDef, copies: list[SuspensionDef], at: int
) -> tuple[SuspensionDef | None, SuspensionDef | None]:
    """The front and rear suspension copies, in that order: one per suspension the setup
    names (the copies carry GUIDs of their own, not the ones the setup refers to)."""
    roles = [g is not None for g in (setup.front_guid, setup.rear_guid)]
    if len(copies) != sum(roles):
        named = " and ".join(r for r, on in zip(("front", "rear"), roles, strict=True) if on)
        raise _error(
            path,
            at,
            f"the setup names {sum(roles)} suspension(s) ({named or 'none'}), the result "
            f"holds {len(copies)} suspension cop{'y' if len(copies) == 1 else 'ies'} after it",
        )
    it = iter(copies)
    front = next(it) if roles[0] else None
    rear = next(it) if roles[1] else None
    return front, rear


def _channels_and_forces(
    path: Path,
    data: bytes,
    version: str,
    guid: str,
    name: str,
    vehicle: Vehicle,
    setup: SetupDef,
    front: SuspensionDef | None,
    rear: SuspensionDef | None,
) -> OkResult:
    r = ByteReader(data, path.name, BLOCK)
    n_channels, n_steps, size, data_offset = r.int32(), r.int32(), r.int32(), r.int32()
    if size != len(data):
        raise _error(
            path,
            BLOCK + 8,
            f"the result says it is {size} bytes long, the file has {len(data)}: "
            + ("truncated" if len(data) < size else "bytes added or a damaged count"),
            kind=TruncatedFileError if len(data) < size else OptimumKFileError,
        )
    if n_channels < 1:
        raise _error(path, BLOCK, f"channel count {n_channels}: the result has no channel")
    if n_steps < 1:
        raise _error(path, BLOCK + 4, f"step count {n_steps}: the result has no step")
    data_end = data_offset + 8 * n_steps * n_channels
    if not TABLE <= data_offset <= size or data_end > size:
        raise _error(
            path,
            BLOCK + 12,
            f"data offset {data_offset}: {n_channels} channels x {n_steps} steps of doubles "
            f"from there do not fit between the channel table (byte {TABLE}) and the end of "
            f"the file ({size} bytes)",
        )
    channels = _table(path, data, n_channels, n_steps, data_offset)
    forces = _force_elements(path, data, data_end, n_steps)
    return OkResult(
        path,
        version,
        guid,
        name,
        vehicle,
        setup,
        front,
        rear,
        n_steps,
        channels,
        forces,
        data_offset,
        size,
    )


def _table(
    path: Path, data: bytes, n_channels: int, n_steps: int, data_offset: int
) -> tuple[ResultChannel, ...]:
    """The channel table at `TABLE` (it must end before the data) and each channel's data."""
    r = ByteReader(data, path.name, TABLE, data_offset)
    values = np.frombuffer(
        data, dtype="<f8", count=n_channels * n_steps, offset=data_offset
    ).reshape(n_channels, n_steps)
    out: list[ResultChannel] = []
    for i in range(n_channels):
        record = r.pos
        name = r.string(f"the name of channel {i + 1}").strip()
        if not name:
            raise _error(path, record, f"channel {i + 1} of {n_channels} has no name")
        unit = r.int32(f"the unit code of {name!r}")
        at = r.pos
        kind = r.int32(f"the type code of {name!r}")
        if kind != DOUBLE:
            raise _error(
                path,
                at,
                f"channel {name!r}: type code {kind}, expected {DOUBLE} (double)",
            )
        at = r.pos
        offset = r.int64(f"the data offset of {name!r}")
        expected = data_offset + 8 * n_steps * i
        if offset != expected:
            raise _error(
                path,
                at,
                f"channel {name!r} (record {i + 1}): its data offset is {offset}, expected "
                f"{expected} (data offset + 8 x steps x {i})",
            )
        out.append(ResultChannel(name, unit, values[i].astype(float), record, expected))
    return tuple(out)


def _force_counts(path: Path, data: bytes) -> tuple[int, int, int, int] | None:
    """(elements, steps, names offset, float32 offset) at `FORCE_BLOCK`, None when those
    16 bytes are zero (a result without force elements)."""
    raw = data[FORCE_BLOCK : FORCE_BLOCK + 16]
    if not any(raw):
        return None
    n, steps, names, block = struct.unpack("<4i", raw)
    return n, steps, names, block


def _force_elements(path: Path, data: bytes, start: int, n_steps: int) -> tuple[ForceElement, ...]:
    """The force elements after the data: names until the rest is exactly one float32
    block of [names][steps][9]; checked against the counts at `FORCE_BLOCK` when the
    file has them."""
    counts = _force_counts(path, data)
    if start == len(data):
        if counts is not None:
            raise _error(
                path,
                FORCE_BLOCK,
                f"the force counts say {counts[0]} force elements, but the file ends with "
                "the channel data",
                kind=TruncatedFileError,
            )
        return ()
    per = 4 * FORCE_VALUES * n_steps
    r = ByteReader(data, path.name, start)
    names: list[tuple[str, int]] = []
    while True:
        at = r.pos
        names.append((r.string("a force element's name"), at))
        rest = len(data) - r.pos
        if rest == per * len(names):
            break
        if rest < per * len(names) or len(names) >= MAX_FORCE_ELEMENTS:
            raise _error(
                path,
                start,
                f"the {len(data) - start} bytes after the data are not force-element names "
                f"followed by float32 [elements][{n_steps} steps][{FORCE_VALUES}]",
            )
    if counts is not None and counts != (len(names), n_steps, start, r.pos):
        raise _error(
            path,
            FORCE_BLOCK,
            f"the force counts ({counts[0]} elements, {counts[1]} steps, names at byte "
            f"{counts[2]}, values at byte {counts[3]}) do not match the file ({len(names)} "
            f"elements, {n_steps} steps, names at byte {start}, values at byte {r.pos})",
        )
    block = np.frombuffer(data, dtype="<f4", offset=r.pos).reshape(len(names), n_steps, 9)
    block = block.astype(float)
    return tuple(
        ForceElement(n, at, block[k, :, 0:3], block[k, :, 3:6], block[k, :, 6:9])
        for k, (n, at) in enumerate(names)
    )
