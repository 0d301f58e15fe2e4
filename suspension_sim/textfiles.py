"""Reading small text files written by people (sweep files, map files, csv exports).

`read_text` is the one decoder: a byte-order mark decides first (UTF-8, UTF-16
LE or BE: Excel's "Unicode text" is UTF-16 LE with a mark), then UTF-16
without a mark is recognised by its NUL bytes, then UTF-8, then Windows-1252
as Notepad and Excel save text on Windows. A file none of these reads is an
error that names the encoding tried and the first byte it could not read.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from suspension_sim.errors import InputError

BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)
"""(byte-order mark, codec, name) of the marked encodings read."""
TEXT_HINT = "save it as UTF-8 text (or Excel's 'Unicode text' / 'CSV UTF-8')"


def read_text(path: Path, what: str) -> str:
    """The file's text, decoded as the module docstring says (the mark is dropped);
    an `InputError` naming the file, and the encoding when it cannot be read."""
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise InputError(f"{path} is a folder, not a {what}", where=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror}", where=str(path)) from None
    return decode_text(raw, what, str(path))


def decode_text(raw: bytes, what: str, where: str) -> str:
    """Bytes of a text file as text (see `read_text`); `where` names it in errors."""
    for bom, codec, name in BOMS:
        if raw.startswith(bom):
            note = f", though it starts with a {name} byte-order mark"
            return _decode(raw[len(bom) :], codec, name, what, where, note)
    if b"\x00" in raw:
        unmarked = _utf16_without_mark(raw)
        if unmarked is None:
            raise InputError(
                f"the {what} holds NUL bytes: it is not a text file (a workbook or another"
                " binary file saved under a text name?)",
                where=where,
                hint=TEXT_HINT,
            )
        name = "UTF-16 LE" if unmarked == "utf-16-le" else "UTF-16 BE"
        return _decode(raw, unmarked, name, what, where, " (UTF-16 without a byte-order mark)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("cp1252")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the {what} is neither UTF-8 nor Windows-1252 text (byte 0x{raw[exc.start]:02X}"
            f" at offset {exc.start} is neither)",
            where=where,
            hint=TEXT_HINT,
        ) from None


def _utf16_without_mark(raw: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when NUL bytes sit at odd or even offsets as in
    mostly-ASCII UTF-16 text; None otherwise (a binary file)."""
    even, odd = raw[0::2], raw[1::2]
    half = max(len(raw) // 2, 1)
    if odd.count(0) > 0.9 * half and even.count(0) < 0.1 * half:
        return "utf-16-le"
    if even.count(0) > 0.9 * half and odd.count(0) < 0.1 * half:
        return "utf-16-be"
    return None


def _decode(raw: bytes, codec: str, name: str, what: str, where: str, note: str = "") -> str:
    """`raw` decoded with `codec` (strict); an error naming the encoding (`name`)."""
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"the {what} is not valid {name} text{note} (cannot decode byte {exc.start}"
            f" of {len(raw)})",
            where=where,
            hint=TEXT_HINT,
        ) from None
    if "\x00" in text:
        raise InputError(
            f"the {what} decodes as {name} but holds NUL characters: it is not a text file",
            where=where,
            hint=TEXT_HINT,
        )
    return text
