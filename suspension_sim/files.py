"""Writing files safely: one atomic-write mechanism for every output.

A file is written to a temporary sibling (``.NAME.suspension_sim-PID-XXXX.tmp``
in the same folder, so the rename cannot cross file systems) and renamed over
the target only once it is complete: an interrupted write leaves the original
untouched. The temporary file is removed on every failure, and stale ones of
ours (from a process that was killed) are removed on the next write in that
folder. A path that is a symbolic link is written through to its target, so
the link stays a link.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

TEMP_TAG = ".suspension_sim-"
"""Marks our temporary files: ``.<name>.suspension_sim-<pid>-<random>.tmp``."""


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to `path` must replace: symbolic links followed."""
    p = Path(path)
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def usual_mode() -> int:
    """Permission bits a new file gets from the umask (mkstemp's are 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    return True


def is_temp_name(name: str) -> bool:
    """True for a name ending in ``.tmp``, or in ``.tmp`` plus one extension (``.tmp.png``)."""
    if name.endswith(".tmp"):
        return True
    _, sep, tail = name.rpartition(".tmp.")
    return bool(sep) and bool(tail) and "." not in tail


def remove_stale_temps(folder: Path) -> None:
    """Delete our temporary files in `folder` whose writing process is gone."""
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            name = entry.name
            if not (name.startswith(".") and TEMP_TAG in name and is_temp_name(name)):
                continue
            pid_text = name.rsplit(TEMP_TAG, 1)[1].split("-", 1)[0]
            if pid_text.isdigit() and not _pid_alive(int(pid_text)):
                with contextlib.suppress(OSError):
                    entry.unlink()


@contextlib.contextmanager
def atomic_path(
    path: str | os.PathLike[str], *, mode: int | None = None, suffix: str | None = None
) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces `path` atomically.

    Raises OSError as the operating system reports it (the caller turns that
    into a user error naming its option or file); the temporary file never
    outlives the call. `mode` defaults to the target's current permission bits,
    or the umask's for a new file. `suffix`, one extension such as ``".png"``, is
    appended to the temporary name (``....tmp.png``) for writers that pick the
    format from the name.
    """
    target = resolve_target(path)
    folder = target.parent
    remove_stale_temps(folder)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}{TEMP_TAG}{os.getpid()}-", suffix=f".tmp{suffix or ''}", dir=folder
    )
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        if mode is None:
            try:
                mode = target.stat().st_mode & 0o7777
            except FileNotFoundError:
                mode = usual_mode()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_atomically(
    path: str | os.PathLike[str], write: Callable[[Path], object], *, mode: int | None = None
) -> Path:
    """Call ``write(tmp)`` to fill a temporary file, then rename it over `path`."""
    with atomic_path(path, mode=mode) as tmp:
        write(tmp)
    return resolve_target(path)


def write_bytes_atomically(path: str | os.PathLike[str], data: bytes) -> Path:
    """Atomically replace `path` with `data`."""
    return write_atomically(path, lambda tmp: tmp.write_bytes(data))


def write_text_atomically(path: str | os.PathLike[str], text: str) -> Path:
    """Atomically replace `path` with UTF-8 `text`."""
    return write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
