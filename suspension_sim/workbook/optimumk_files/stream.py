"""Reading OptimumK's binary files byte by byte (`ByteReader`) and checking their SHA-1
(`check_sha1`). docs/optimumk_files.md has the layout.

The files are written .NET `BinaryWriter` style, little-endian: a string is a 7-bit
variable-length byte count then UTF-8 bytes; a date is an int64 (.NET ticks, the kind in
the top two bits); numbers are IEEE 754 doubles unless said otherwise. Every failure is an
`OptimumKFileError` (a `WorkbookError`) whose `where` is ``"<file>: byte <offset>"`` and
whose message says what was expected there, so a bad file never escapes as a bare
struct.error, IndexError or UnicodeDecodeError.
"""

from __future__ import annotations

import hashlib
import re
import struct
from datetime import UTC, datetime, timedelta

from suspension_sim.errors import WorkbookError

SHA1_SIZE = 20
"""Bytes of the SHA-1 at the end of every definition file."""

MAX_STRING = 1 << 20
"""Longest string accepted (bytes); a longer length prefix means a damaged file."""

MAX_TICKS = 3_155_378_975_999_999_999
"""Ticks of .NET's DateTime.MaxValue (100 ns steps since 0001-01-01)."""

GUID_RE = re.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)

NULL_GUID = "00000000-0000-0000-0000-000000000000"
"""The all-zero GUID: a reference to nothing (a setup without a rear suspension)."""


class OptimumKFileError(WorkbookError):
    """An OptimumK binary file cannot be read; `where` is ``"<file>: byte <offset>"``."""


class TruncatedFileError(OptimumKFileError):
    """The file ends before a value it must hold."""


class DamagedFileError(OptimumKFileError):
    """The SHA-1 at the end of the file does not match its content."""


class UnknownVersionError(OptimumKFileError):
    """The file's format version is not one the reader knows."""


class TypeFlagError(OptimumKFileError):
    """The first byte (the type flag) is unknown, or not the one the suffix says."""


class ElementTypeError(OptimumKFileError):
    """A suspension element type the reader does not understand."""


def where(file: str, offset: int) -> str:
    """``"<file>: byte <offset>"``, the place every error names."""
    return f"{file}: byte {offset}"


class ByteReader:
    """Reads values from `data` starting at `start`, never past `end` (default: the end of
    the data; a definition file's reader stops before its SHA-1). `pos` is the next byte."""

    def __init__(self, data: bytes, file: str, start: int = 0, end: int | None = None) -> None:
        self.data = data
        self.file = file
        self.pos = start
        self.end = len(data) if end is None else min(end, len(data))

    # -- errors -----------------------------------------------------------------------------
    def where(self, offset: int | None = None) -> str:
        return where(self.file, self.pos if offset is None else offset)

    def fail(
        self, message: str, offset: int | None = None, hint: str | None = None
    ) -> OptimumKFileError:
        """The error to raise at `offset` (default: the current position)."""
        return OptimumKFileError(message, where=self.where(offset), hint=hint)

    def _take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > self.end:
            left = max(self.end - self.pos, 0)
            raise TruncatedFileError(
                f"truncated: expected {what} ({_bytes(n)}) but only {_bytes(left)} left"
                f" (the data ends at byte {self.end})",
                where=self.where(),
                hint="the file was cut short (copy it again from the OptimumK project)",
            )
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    # -- values -------------------------------------------------------------------------------
    @property
    def remaining(self) -> int:
        """Bytes left before `end`."""
        return max(self.end - self.pos, 0)

    def raw(self, n: int, what: str = "bytes") -> bytes:
        """`n` bytes as they are."""
        return self._take(n, what)

    def byte(self, what: str = "a byte") -> int:
        return self._take(1, what)[0]

    def int32(self, what: str = "an int32") -> int:
        return int(struct.unpack("<i", self._take(4, what))[0])

    def int64(self, what: str = "an int64") -> int:
        return int(struct.unpack("<q", self._take(8, what))[0])

    def double(self, what: str = "a double") -> float:
        return float(struct.unpack("<d", self._take(8, what))[0])

    def float32(self, what: str = "a float32") -> float:
        return float(struct.unpack("<f", self._take(4, what))[0])

    def length7(self, what: str = "a string length") -> int:
        """A 7-bit variable-length integer (at most 5 bytes, as .NET writes an int32)."""
        start = self.pos
        value, shift = 0, 0
        for _ in range(5):
            b = self._take(1, what)[0]
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
        raise OptimumKFileError(
            f"expected {what} (a 7-bit length of at most 5 bytes); found more",
            where=self.where(start),
        )

    def string(self, what: str = "a string") -> str:
        """A 7-bit length then that many UTF-8 bytes."""
        start = self.pos
        n = self.length7(f"the length of {what}")
        if n > MAX_STRING:
            raise OptimumKFileError(
                f"expected {what}; its length prefix says {n} bytes, more than any string"
                " of these files",
                where=self.where(start),
                hint="the file is damaged or not an OptimumK file",
            )
        raw = self._take(n, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise OptimumKFileError(
                f"expected {what} in UTF-8; byte {start + 1 + exc.start} is not UTF-8",
                where=self.where(start),
                hint="the file is damaged or not an OptimumK file",
            ) from None

    def date(self, what: str = "a date") -> datetime | None:
        """A .NET DateTime as written by ToBinary: ticks (100 ns since 0001-01-01) in the
        low 62 bits, the kind in the top two (0 unspecified: a naive datetime; 1 UTC and 2
        local, whose ticks are stored in UTC: an aware UTC datetime). None for 0 ticks."""
        start = self.pos
        raw = struct.unpack("<Q", self._take(8, what))[0]
        kind, ticks = raw >> 62, raw & ((1 << 62) - 1)
        if kind == 3 or ticks > MAX_TICKS:
            raise OptimumKFileError(
                f"expected {what} (.NET ticks); 0x{raw:016x} is not a date",
                where=self.where(start),
                hint="the file is damaged or not an OptimumK file",
            )
        if ticks == 0:
            return None
        value = datetime(1, 1, 1) + timedelta(microseconds=ticks // 10)
        return value if kind == 0 else value.replace(tzinfo=UTC)

    def guid(self, what: str = "a GUID") -> str:
        """A GUID written as a string (``8-4-4-4-12`` hex digits), lower case."""
        start = self.pos
        text = self.string(what)
        if not GUID_RE.match(text):
            raise OptimumKFileError(
                f"expected {what} (8-4-4-4-12 hex digits); found {text[:60]!r}",
                where=self.where(start),
            )
        return text.lower()

    def expect(self, raw: bytes, what: str) -> None:
        """The next bytes must be `raw` (a marker or a fixed field)."""
        start = self.pos
        got = self._take(len(raw), what)
        if got != raw:
            raise OptimumKFileError(
                f"expected {what} (bytes {raw.hex(' ')}); found {got.hex(' ')}",
                where=self.where(start),
            )

    def peek_string(self, at: int, limit: int = 64) -> tuple[str, int] | None:
        """The printable string (7-bit length of one byte, 1..limit ASCII characters) at
        byte `at` and the offset after it, or None: for finding elements by their names
        without moving `pos`."""
        if at >= self.end:
            return None
        n = self.data[at]
        if not 1 <= n <= limit or at + 1 + n > self.end:
            return None
        raw = self.data[at + 1 : at + 1 + n]
        if not all(32 <= c < 127 for c in raw):
            return None
        return raw.decode("ascii"), at + 1 + n


def _bytes(n: int) -> str:
    return f"{n} byte" if n == 1 else f"{n} bytes"


def check_sha1(data: bytes, file: str) -> None:
    """The last 20 bytes must be the SHA-1 of all the bytes before them; else a
    `DamagedFileError` naming the file and the checksum's offset."""
    if len(data) < SHA1_SIZE:
        raise TruncatedFileError(
            f"truncated: {len(data)} bytes, fewer than the 20-byte SHA-1 every definition"
            " file ends with",
            where=where(file, 0),
        )
    if not sha1_ok(data):
        raise DamagedFileError(
            "damaged file: the SHA-1 in its last 20 bytes does not match the bytes before"
            " them (a byte was changed, or the file is truncated or not an OptimumK file)",
            where=where(file, len(data) - SHA1_SIZE),
            hint="copy the file again from the OptimumK project, or save it again in OptimumK",
        )


def sha1_ok(data: bytes) -> bool:
    """True when the last 20 bytes are the SHA-1 of the rest."""
    return len(data) >= SHA1_SIZE and hashlib.sha1(data[:-SHA1_SIZE]).digest() == data[-SHA1_SIZE:]
