"""The on-disk cache: checksummed plain data, never trusted, never required.

Where: ``SUSPENSION_SIM_CACHE_DIR``, or ``~/.cache/suspension_sim`` when the
variable is unset; an empty string turns the cache off.

What: entries of plain bytes (JSON in practice) under a (kind, key) pair,
one file each. Nothing from the cache is ever executed or unpickled. An
entry file is one JSON header line ``{"format", "kind", "key", "sha256"}``
followed by the payload; `read_entry` returns the payload only when the
header names exactly the expected kind and key, the payload hash matches,
and the file is a regular file of the current user. Anything else is a miss.

Failure: the cache is an optimisation. Any problem (folder not writable or
deleted, a file where the folder should be, a truncated, corrupt, foreign or
swapped entry) makes the caller rebuild from the source, with one
`CacheWarning` per process naming the folder; never a traceback, never a
wrong result. Writes are atomic (`suspension_sim.files`, unique temporary
names), so any number of processes may write the same entry at once, and at
most `MAX_ENTRIES` entries of a kind are kept (the oldest written go first).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import re
import stat
import warnings
from pathlib import Path

from suspension_sim.files import write_bytes_atomically

ENV_VAR = "SUSPENSION_SIM_CACHE_DIR"
"""Environment variable naming the cache folder ("" turns the cache off)."""

CODE_DIR_ENV = "SUSPENSION_SIM_CODE_DIR_NAME"
"""Set only inside the compile process (`suspension_sim.solve.warmup`): the folder name
`private_code_dir` gives the numba kernels instead of theirs (a staging folder, moved
into place once the whole compile succeeded)."""

FORMAT = 1
"""Version of the entry-file layout; entries of another format are misses."""

SUFFIX = ".entry"

MAX_ENTRIES = 200
"""Entries kept per kind; the oldest written are removed beyond this (old code's keys)."""

MAX_ENTRY_BYTES = 64 * 2**20
"""Larger files in the cache folder are not ours: they are not read."""

_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")
_ENTRY = re.compile(r"[a-z][a-z0-9_]{0,31}-[0-9a-f]{40}\.entry\Z")

warned_this_process = False
"""Set once the one `CacheWarning` of this process has been given."""


class CacheWarning(UserWarning):
    """The cache could not be used; the result was rebuilt from the source."""


def cache_dir() -> Path | None:
    """The cache folder (not created here), or None when caching is off.

    ``SUSPENSION_SIM_CACHE_DIR`` overrides ``~/.cache/suspension_sim``; an
    empty string turns caching off.
    """
    env = os.environ.get(ENV_VAR)
    if env == "":
        return None
    if env:
        return Path(env).expanduser()
    try:
        return Path.home() / ".cache" / "suspension_sim"
    except (RuntimeError, KeyError):  # no home folder: nowhere to cache
        return None


@functools.cache
def package_fingerprint() -> str:
    """sha256 (hex) of this package's own files, sources and data; computed once.

    Any change to the code or its data files gives a new fingerprint, so an
    entry built by other code is never used.
    """
    return folder_fingerprint(Path(__file__).resolve().parent)


def folder_fingerprint(root: Path) -> str:
    """sha256 (hex) over the relative names and contents of every file under `root`.

    Compiled files (``__pycache__``) and hidden files are left out.
    """
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if "__pycache__" in rel.parts or any(p.startswith(".") for p in rel.parts):
            continue
        if not path.is_file():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            data = b"<unreadable>"
        digest.update(f"{rel.as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def entry_name(kind: str, key: str) -> str:
    """File name of the (kind, key) entry: ``KIND-HASH.entry``."""
    if not _KIND.match(kind):
        raise ValueError(f"cache kind must match {_KIND.pattern}: {kind!r}")
    return f"{kind}-{hashlib.sha256(key.encode()).hexdigest()[:40]}{SUFFIX}"


def read_entry(kind: str, key: str) -> bytes | None:
    """The payload stored under (kind, key), or None on a miss or any problem."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / entry_name(kind, key)
    try:
        data = _read_own_file(path)
    except FileNotFoundError:
        return None  # a plain miss (also when the folder does not exist yet)
    except OSError as exc:
        _problem(folder, f"cannot read {path.name} ({exc.strerror or exc})")
        return None
    if data is None:
        _problem(folder, f"{path.name} is not a regular file of this user, or too large")
        return None
    payload = _verified_payload(data, kind, key)
    if payload is None:
        _problem(folder, f"{path.name} is damaged or holds another entry; it is rebuilt")
    return payload


def write_entry(kind: str, key: str, payload: bytes) -> None:
    """Store `payload` under (kind, key), atomically; problems only warn."""
    folder = cache_dir()
    if folder is None:
        return
    name = entry_name(kind, key)
    header = {
        "format": FORMAT,
        "kind": kind,
        "key": key,
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    data = json.dumps(header, sort_keys=True).encode() + b"\n" + payload
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = folder / name
        if path.is_symlink():  # never write through a link left in the folder
            path.unlink()
        write_bytes_atomically(path, data)
    except OSError as exc:
        _problem(folder, f"cannot write {name} ({exc.strerror or exc})")
        return
    _prune(folder, kind)


def _prune(folder: Path, kind: str) -> None:
    """Remove the oldest-written entries of `kind` beyond `MAX_ENTRIES` (best effort)."""
    with contextlib.suppress(OSError):
        found = [p for p in folder.glob(f"{kind}-*{SUFFIX}") if _ENTRY.match(p.name)]
        if len(found) <= MAX_ENTRIES:
            return
        aged: list[tuple[float, Path]] = []
        for p in found:
            with contextlib.suppress(OSError):
                aged.append((p.stat(follow_symlinks=False).st_mtime, p))
        for _, p in sorted(aged)[: len(aged) - MAX_ENTRIES]:
            with contextlib.suppress(OSError):
                p.unlink()


def reject_entry(kind: str, key: str, reason: str) -> None:
    """Report that the entry read for (kind, key) could not be used (e.g. not a car)."""
    folder = cache_dir()
    if folder is not None:
        _problem(folder, f"{entry_name(kind, key)} {reason}; it is rebuilt")


def _read_own_file(path: Path) -> bytes | None:
    """The bytes of `path` if it is a regular file owned by this user, else None.

    Opened without following a symbolic link, and checked on the open file,
    so the file cannot be swapped between the check and the read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None  # a symbolic link
        raise
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            return None
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return None
        return f.read()


def _verified_payload(data: bytes, kind: str, key: str) -> bytes | None:
    """The payload after the header line, if the header matches and the hash agrees."""
    head, sep, payload = data.partition(b"\n")
    if not sep:
        return None
    try:
        header = json.loads(head)
    except (ValueError, RecursionError):  # ValueError includes UnicodeDecodeError
        return None
    expected = {
        "format": FORMAT,
        "kind": kind,
        "key": key,
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    return payload if header == expected else None


def _problem(folder: Path, detail: str) -> None:
    """Warn once per process that the cache folder could not be used."""
    global warned_this_process
    if warned_this_process:
        return
    warned_this_process = True
    with contextlib.suppress(Exception):
        warnings.warn(
            f"suspension_sim cache folder {folder}: {detail}; caching is skipped and the "
            f"result is rebuilt from the source (set {ENV_VAR} to another folder, or to an "
            "empty string to turn the cache off)",
            CacheWarning,
            stacklevel=3,
        )


def private_code_dir(name: str) -> Path | None:
    """A folder for compiled machine code that only this user can write, or None.

    The one exception to "plain data only": numba's on-disk cache of the
    compiled batch kernel (`suspension_sim.solve.kernel`), which numba itself
    loads (its index is pickled). It is allowed only where no one else can
    plant code: ``<cache folder>/<name>``, created with mode 0700, a real
    folder (not a symbolic link) owned by this user with no group or other
    write access, inside a cache folder of the same kind. Anything else gives
    None and one `CacheWarning`: the kernel is then compiled in memory (some
    seconds per process), never loaded from a doubtful place. Inside the compile
    process, ``SUSPENSION_SIM_CODE_DIR_NAME`` replaces `name` (its staging folder).
    """
    folder = cache_dir()
    name = os.environ.get(CODE_DIR_ENV) or name
    if folder is None or not _KIND.match(name.replace("-", "_").replace(".", "_")):
        return None
    sub = folder / name
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            sub.mkdir(mode=0o700)
        for path in (folder, sub):
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode):
                _problem(path, "not a folder (a file or a symbolic link)")
                return None
            if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
                _problem(path, "owned by another user, so compiled code is not loaded from it")
                return None
            if info.st_mode & 0o022:
                _problem(path, "writable by other users, so compiled code is not loaded from it")
                return None
        if not os.access(sub, os.W_OK | os.X_OK):
            _problem(sub, "not writable")
            return None
    except OSError as exc:
        _problem(sub, exc.strerror or str(exc))
        return None
    return sub
