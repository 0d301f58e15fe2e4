"""Writing files safely: one atomic-write mechanism for every output.

A file is written to a temporary sibling (``.NAME.suspension_sim-PID-XXXX.tmp``
in the same folder, so the rename cannot cross file systems) and renamed over
the target only once it is complete: an interrupted write leaves the original
untouched. The temporary file is removed on every failure, and stale ones of
ours (from a process that was killed) are removed on the next write in that
folder. A path that is a symbolic link is written through to its target, so
the link stays a link.

A file the user protected is never replaced: a read-only file (its owner has
no write permission) or any file in a read-only folder is refused before
anything is written, by the permission bits, so also when running as root
(whom the kernel lets write anyway). Commands call `check_output` early, before
any solving, so one rule holds for every output option: the folder an output
goes into must exist already (a typo in a folder name is reported, not
created); an output that is itself a folder (a report or chart folder) is
created, but its parent must exist; an existing output file is replaced only
with ``force=True`` (`refuse_existing`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from suspension_sim.errors import InputError

TEMP_TAG = ".suspension_sim-"
"""Marks our temporary files: ``.<name>.suspension_sim-<pid>-<random>.tmp``."""


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to `path` must replace: symbolic links followed."""
    p = Path(path)
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when a and b name one file: links followed, also on case-insensitive file
    systems; a path that does not exist (yet) is compared by its resolved form. Used to
    refuse an output that would overwrite an input."""
    pa, pb = Path(a), Path(b)
    with contextlib.suppress(OSError):  # unreadable: fall back to the resolved paths
        if pa.exists() and pb.exists():
            return os.path.samefile(pa, pb)
    return pa.resolve() == pb.resolve()


def usual_mode() -> int:
    """Permission bits a new file gets from the umask (mkstemp's are 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


class NotWritableError(PermissionError):
    """A write refused because the user protected the file or its folder."""


def _protected(path: Path, st: os.stat_result) -> bool:
    """True when `path` is read-only to the user: its owner has no write bit (what
    ``chmod a-w`` or a read-only flag gives; root included), or we may not write it."""
    if not st.st_mode & stat.S_IWUSR:
        return True
    return not os.access(path, os.W_OK)


def folder_problem(folder: Path) -> str | None:
    """Why nothing may be written in `folder` (missing, not a folder, read-only), or None."""
    try:
        st = folder.stat()
    except FileNotFoundError:
        return f"folder {folder} does not exist"
    except OSError as exc:
        return f"folder {folder} cannot be inspected ({exc.strerror or exc})"
    if not stat.S_ISDIR(st.st_mode):
        return f"{folder} is not a folder"
    if not st.st_mode & stat.S_IWUSR or not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is read-only (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def why_not_writable(path: str | os.PathLike[str]) -> str | None:
    """Why a write to `path` must be refused (read-only file or folder), or None.

    A symbolic link is judged by its target. A missing file is fine as long as
    its folder exists and is writable.
    """
    target = resolve_target(path)
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        return f"cannot be inspected ({exc.strerror or exc})"
    if st is not None and stat.S_ISDIR(st.st_mode):
        return "is a folder"
    if st is not None and _protected(target, st):
        return f"is read-only (mode {stat.S_IMODE(st.st_mode):04o}); it is never replaced"
    problem = folder_problem(target.parent)
    return None if problem is None else f"cannot be written: {problem}"


def check_writable(path: str | os.PathLike[str], *, where: str | None = None) -> Path:
    """`path` if it may be written, else an `InputError` naming the file and the
    reason (`where`: the option or parameter that gave the path)."""
    reason = why_not_writable(path)
    if reason is not None:
        raise InputError(
            f"{path} {reason}",
            where=where,
            hint="make it writable first (for example chmod u+w) if you mean to replace it,"
            " or choose another file",
        )
    return Path(path)


def check_output(
    path: str | os.PathLike[str], *, where: str | None = None, folder: bool = False
) -> Path:
    """Refuse an output path before any work is done (the one rule for every output).

    A file output (``folder=False``) goes into a folder that must exist already;
    a folder output (``folder=True``: a report or chart folder) may be created,
    but its parent must exist. Read-only files and folders are refused
    (`check_writable`). Returns `path` as a Path.
    """
    out = Path(path)
    target = resolve_target(out)
    if folder and target.exists() and not target.is_dir():
        raise InputError(f"{out} is a file, not a folder", where=where, hint="give a folder")
    if not folder and target.is_dir():
        raise InputError(f"{out} is a folder", where=where, hint="give a file name")
    holder = target if folder and target.exists() else target.parent
    problem = folder_problem(holder)
    if problem is not None and not holder.exists():
        raise InputError(
            problem,
            where=where,
            hint=f"create it first (mkdir {holder}) or choose another folder",
        )
    if problem is not None:
        raise InputError(
            f"{out} cannot be written: {problem}",
            where=where,
            hint="make the folder writable first (for example chmod u+w) or choose another",
        )
    return out if folder else check_writable(out, where=where)


def refuse_existing(
    path: str | os.PathLike[str], *, force: bool, where: str | None = None, what: str = "a result"
) -> Path:
    """The one rule for an existing output file, whatever its type (.csv, .xlsx,
    .parquet, ...): it is replaced only with ``force=True``, so a result never
    silently overwrites another. Returns `path` as a Path, else an `InputError`
    naming the file (`where`: the option or parameter that gave it; `what`: what
    would be written, for the message)."""
    out = Path(path)
    if not force and (out.exists() or out.is_symlink()):
        raise InputError(
            f"{out} exists; {what} only replaces it with force=True",
            where=where,
            hint="choose a new name or pass force=True",
        )
    return out


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
    into a user error naming its option or file), and `NotWritableError` (a
    PermissionError) for a file or folder the user protected (`why_not_writable`);
    the temporary file never outlives the call. `mode` defaults to the target's
    current permission bits, or the umask's for a new file. `suffix`, one
    extension such as ``".png"``, is appended to the temporary name
    (``....tmp.png``) for writers that pick the format from the name.
    """
    target = resolve_target(path)
    reason = why_not_writable(target)
    if reason is not None:
        raise NotWritableError(errno.EACCES, reason, str(target))
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
