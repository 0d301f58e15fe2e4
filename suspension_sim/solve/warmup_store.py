"""The compiled kernels on disk: where they live, the manifest, and its checks.

The part of `solve.warmup` that only reads and writes files (no processes, no lock):
the code folder (`code_folder`), the manifest that names a complete compile
(`read_manifest`, `on_disk`, `why_not_on_disk`, `verified` with sha256), forgetting a
damaged compile (`forget`, `drop_compiled`), the recorded failure (`failure`),
moving a staged compile in (`publish`) and copying a complete one elsewhere
(`copy_compiled`). Nothing here imports numba.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import sys
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from suspension_sim import cache as cache_mod

MANIFEST_FORMAT = 4
"""Raised whenever what a compile puts on disk changes: older manifests are then stale."""
PACKAGE = Path(__file__).resolve().parents[1]
"""The installed package folder (numba keys its cache folders by its sources' path)."""
KERNEL_SOURCES = (
    "solve/kernel.py",
    "solve/kernel_jit.py",
    "solve/kernel_eval.py",
    "solve/kernel_linalg.py",
    "solve/kernel_newton.py",
    "solve/kernel_sequence.py",
    "solve/kernel_targets.py",
    "solve/kernel_points.py",
    "metrics/batch_kernel.py",
    "loads/blocks_kernel.py",
)
"""The modules whose compiled code the manifest covers (relative to `PACKAGE`; the
solve kernel's files are `solve.kernel.MODULES`, listed here so that nothing imports
numba to read them)."""

_checked: bytes | None = None
"""The manifest `verified` last read in this process (what `forget` may drop)."""


# -- where ------------------------------------------------------------------------------
@cache
def numba_version() -> str | None:
    """The installed numba's version, without importing numba (None: not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numba")
    except PackageNotFoundError:  # pragma: no cover - numba is a dependency
        return None


def code_folder() -> Path | None:
    """``<cache folder>/numba-<version>`` (not created here), or None (no cache, no numba)."""
    folder = cache_mod.cache_dir()
    ver = numba_version()
    if folder is None or ver is None:
        return None
    return folder / f"numba-{ver}"


def _location_tag() -> str:
    """A short tag of this package's location (numba's cache files are per location)."""
    return hashlib.sha1(str(PACKAGE).encode()).hexdigest()[:16]


def manifest_path(folder: Path) -> Path:
    return folder / f"manifest-{_location_tag()}.json"


def failed_path(folder: Path) -> Path:
    return folder / f"failed-{_location_tag()}.txt"


def _stamps() -> dict[str, list[int]]:
    """{kernel source: [mtime_ns, size]}: what numba itself checks its cache against."""
    out: dict[str, list[int]] = {}
    for rel in KERNEL_SOURCES:
        st = (PACKAGE / rel).stat()
        out[rel] = [st.st_mtime_ns, st.st_size]
    return out


def identity() -> dict[str, Any]:
    """What a manifest must match to be this package's: sources, Python, numba, place."""
    return {
        "format": MANIFEST_FORMAT,
        "package": str(PACKAGE),
        "python": list(sys.version_info[:2]),
        "numba": numba_version(),
        "sources": _stamps(),
    }


# -- state on disk ----------------------------------------------------------------------
def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest when it belongs to this package as installed now, else None."""
    try:
        return _manifest(manifest_path(folder).read_bytes())
    except OSError:
        return None


def _manifest(raw: bytes) -> dict[str, Any] | None:
    """`raw` read as a manifest of this package as installed now, else None."""
    try:
        data = json.loads(raw)
        ident = identity()
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return None
    if any(data.get(k) != v for k, v in ident.items()):
        return None
    return data


def on_disk() -> bool:
    """True when a complete compile of these kernels is in the code folder (manifest
    current, every listed file there with its size). Stats only: ~1 ms, no numba."""
    return why_not_on_disk() is None


def why_not_on_disk() -> str | None:
    """None when `on_disk`, else what is missing or stale (for messages and tests)."""
    folder = code_folder()
    if folder is None:
        return "no cache folder, or numba is not installed"
    try:
        data = json.loads(manifest_path(folder).read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        return f"no readable manifest {manifest_path(folder)} ({type(exc).__name__})"
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return "the manifest is not one of ours"
    ident = identity()
    stale = sorted(k for k, v in ident.items() if data.get(k) != v)
    if stale:
        return f"the manifest is for another {', '.join(stale)}"
    try:
        for rel, (size, _) in data["files"].items():
            if (folder / rel).stat().st_size != size and size is not None:
                return f"{rel} has changed size"
    except OSError as exc:
        return f"{exc.filename}: {exc.strerror}"
    except (TypeError, ValueError):
        return "the manifest's file table is damaged"
    return None


def verified() -> bool:
    """`on_disk`, and every compiled file's sha256 matches (read before loading: a
    corrupt file must never reach numba, which would raise or recompile). Remembers
    the manifest it checked: `forget` drops only that one."""
    global _checked
    folder = code_folder()
    if folder is None:
        return False
    try:
        _checked = manifest_path(folder).read_bytes()
    except OSError:
        _checked = None
        return False
    data = _manifest(_checked)
    if data is None or not on_disk():
        return False
    try:
        for rel, (_, digest) in data["files"].items():
            if digest is None:  # an index (`publish`)
                continue
            if hashlib.sha256((folder / rel).read_bytes()).hexdigest() != digest:
                return False
    except (OSError, TypeError, ValueError):
        return False
    return True


def forget() -> bool:
    """Drop the manifest (the compiled files are then unused until the next compile);
    only the one `verified` last checked in this process, when it checked one: a
    manifest another process has published since names a new, complete compile.
    True when a manifest was dropped."""
    global _checked
    folder = code_folder()
    if folder is None:
        return False
    path = manifest_path(folder)
    try:
        if _checked is not None and path.read_bytes() != _checked:
            return False
        path.unlink()
    except OSError:
        return False
    finally:
        _checked = None
    return True


def failure() -> str | None:
    """The recorded failure of the last compile of this package, or None."""
    folder = code_folder()
    if folder is None:
        return None
    try:
        text = failed_path(folder).read_text(errors="replace")
    except OSError:
        return None
    head, _, rest = text.partition("\n")
    try:
        ident = json.loads(head)
    except ValueError:
        return rest or "unknown error"
    return (rest or "unknown error") if ident == identity() else None


def numba_folder(source: str) -> Path | None:
    """The folder numba caches the functions of `source` (relative to `PACKAGE`) in:
    ``<code folder>/<its folder's name>_<sha1 of its folder's path>`` (numba's rule for
    a user-given cache folder), or None when there is no code folder."""
    folder = code_folder()
    if folder is None:
        return None
    parent = str((PACKAGE / source).parent)
    return folder / f"{Path(parent).name}_{hashlib.sha1(parent.encode()).hexdigest()}"


def drop_compiled() -> None:
    """Forget a damaged compile: the manifest, and numba's index files of every kernel
    (`KERNEL_SOURCES`), so numba compiles them afresh instead of reading its code.
    Nothing when another process has published a new compile since it was checked."""
    if not forget() and on_disk():
        return
    for source in KERNEL_SOURCES:
        where = numba_folder(source)
        if where is None:
            return
        for index in where.glob(f"{Path(source).stem}.*.nbi"):
            with contextlib.suppress(OSError):
                index.unlink()


def copy_compiled(src: Path, dst: Path) -> bool:
    """Copy a complete compile (the files its manifest lists, then the manifest) from
    the code folder `src` to `dst` (e.g. to keep it between test runs); True when
    `src` held one for this package and every file copied with its sha256. Refused
    (False, nothing more copied) when `src`, its parent or a file's folders are not
    private to this user (`_private`), or a listed name leaves the folder."""
    data = read_manifest(src)
    if data is None or not _private(src.parent, src):
        return False
    try:
        for rel, (_, digest) in data["files"].items():
            if not _inside(rel) or not _private(*_chain(src, rel)):
                return False
            blob = (src / rel).read_bytes()
            if digest is not None and hashlib.sha256(blob).hexdigest() != digest:
                return False
            target = dst / rel
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            from suspension_sim.files import write_bytes_atomically

            write_bytes_atomically(target, blob)
        write_json_atomically(manifest_path(dst), data)
    except (OSError, TypeError, ValueError):
        return False
    return True


def _inside(rel: object) -> bool:
    """True when a manifest's file name `rel` stays inside its folder: relative, with
    no ``..``, drive, backslash or empty part (a manifest is data read from disk)."""
    if not isinstance(rel, str) or not rel or "\\" in rel or ":" in rel:
        return False
    parts = PurePosixPath(rel).parts
    return not PurePosixPath(rel).is_absolute() and all(p not in ("", ".", "..") for p in parts)


def _chain(root: Path, rel: str) -> list[Path]:
    """Every folder from `root` (excluded) down to the file `rel`, and the file."""
    out, here = [], root
    for part in PurePosixPath(rel).parts:
        here = here / part
        out.append(here)
    return out


def _private(*paths: Path) -> bool:
    """True when each path is a real folder or file (not a symbolic link) owned by this
    user and writable by no one else (`cache.private_code_dir`'s rule): numba's index
    files are pickles, so compiled code is never taken from a place others can write."""
    try:
        for path in paths:
            info = os.lstat(path)
            if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
                return False
            if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
                return False
            if info.st_mode & 0o022:
                return False
    except OSError:
        return False
    return True


def publish(staging: Path, folder: Path) -> dict[str, list[Any]]:
    """Move the compiled folders from `staging` into `folder` (replacing older ones) and
    return the manifest's file table {relative path: [size, sha256]}. numba's index
    files (``.nbi``) are listed as [None, None], present but not pinned: numba adds an
    entry to them when a later process compiles another signature, which leaves the
    machine code already there (``.nbc``, pinned) untouched."""
    files: dict[str, list[Any]] = {}
    for sub in sorted(p for p in staging.iterdir() if p.is_dir()):
        for f in sorted(sub.rglob("*")):
            if f.is_file() and f.suffix == ".nbi" and ".tmp." not in f.name:
                files[f.relative_to(staging).as_posix()] = [None, None]
            elif f.is_file() and ".tmp." not in f.name:
                data = f.read_bytes()
                files[f.relative_to(staging).as_posix()] = [
                    len(data),
                    hashlib.sha256(data).hexdigest(),
                ]
        _swap(sub, folder / sub.name)
    return files


def _swap(new: Path, target: Path) -> None:
    """Put the folder `new` in place of `target`, moving an older `target` aside and
    removing it. A `target` that reappears meanwhile (a process compiling in memory
    without the lock) is moved aside too and the move retried."""
    import errno

    for attempt in range(5):
        old = target.with_name(f".old-{target.name}-{os.getpid()}-{attempt}")
        if target.exists():
            os.replace(target, old)
        try:
            os.replace(new, target)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) or attempt == 4:
                raise
            continue
        finally:
            shutil.rmtree(old, ignore_errors=True)
        return


def write_json_atomically(path: Path, data: dict[str, Any]) -> None:
    from suspension_sim.files import write_bytes_atomically

    write_bytes_atomically(path, json.dumps(data, indent=1, sort_keys=True).encode())
