"""Reading small text files written by people (sweep and map files)."""

from __future__ import annotations

from pathlib import Path

from suspension_sim.errors import InputError


def read_text(path: Path, what: str) -> str:
    """The file's text: UTF-8 (with or without BOM), else Windows-1252 as Notepad and
    Excel save it; a clear error naming the file when it cannot be read at all."""
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise InputError(f"{path} is a folder, not a {what}", where=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror}", where=str(path)) from None
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise InputError(
        f"the {what} is neither UTF-8 nor Windows-1252 text",
        where=str(path),
        hint="save it as UTF-8 text",
    )
