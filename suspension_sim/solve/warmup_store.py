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

MANIFEST_FORMAT = 6
"""Raised whenever what a compile puts on disk changes (5: the solve group's manifest,
batch_tangents no longer compiled up front, chassis_points and world_points on the
seven tables they read; 6: the entry points compiled with their inner functions'
code optimised once, at the entry point, `warmup_codegen`): older manifests are then
stale."""
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

ALL = ""
"""The group of every kernel: the manifest written once the whole compile is in."""
SOLVE = "solve"
"""The solve kernel's group (`solve.kernel`: the solvers, points, spread, tangents):
published by the compile as soon as its steps are done, with a manifest of its own,
so a process uses the compiled solver while the metrics and loads kernels still
compile. Its files are numba's folders for `solve/` (`GROUP_FOLDERS`)."""
GROUP_FOLDERS = {SOLVE: "solve_"}
"""The start of the names of numba's cache folders (``<source folder>_<sha1>``) that a
group's manifest covers."""

_checked: tuple[Path, bytes] | None = None
"""The manifest `verified` last read in this process and what it held (what `forget`
may drop)."""


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


def manifest_path(folder: Path, group: str = ALL) -> Path:
    """The manifest of `group` (`ALL`: the whole compile; `SOLVE`) in the code folder."""
    head = f"manifest-{group}-" if group else "manifest-"
    return folder / f"{head}{_location_tag()}.json"


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
def read_manifest(folder: Path, group: str = ALL) -> dict[str, Any] | None:
    """The manifest of `group` when it belongs to this package as installed now, else None."""
    try:
        return _manifest(manifest_path(folder, group).read_bytes())
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


def on_disk(group: str = ALL) -> bool:
    """True when a complete compile of these kernels (of `group`: `SOLVE` is there
    too once every kernel is) is in the code folder (manifest current, every listed
    file there with its size). Stats only: ~1 ms, no numba."""
    return why_not_on_disk(group) is None


def why_not_on_disk(group: str = ALL) -> str | None:
    """None when `on_disk(group)`, else what is missing or stale (for messages, tests)."""
    folder = code_folder()
    if folder is None:
        return "no cache folder, or numba is not installed"
    if group and why_not_on_disk(ALL) is None:
        return None
    path = manifest_path(folder, group)
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        return f"no readable manifest {path} ({type(exc).__name__})"
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


def verified(group: str = ALL) -> bool:
    """`on_disk(group)`, and every compiled file's sha256 matches (read before loading:
    a corrupt file must never reach numba, which would raise or recompile); for a
    group, the whole compile's manifest when it is there, else the group's own.
    Remembers the manifest it checked: `forget` drops only that one."""
    global _checked
    folder = code_folder()
    if folder is None:
        return False
    if group and on_disk(ALL):
        group = ALL
    path = manifest_path(folder, group)
    try:
        raw = path.read_bytes()
    except OSError:
        _checked = None
        return False
    _checked = (path, raw)
    data = _manifest(raw)
    if data is None or not on_disk(group):
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
    path = manifest_path(folder) if _checked is None else _checked[0]
    try:
        if _checked is not None and path.read_bytes() != _checked[1]:
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
    folder = code_folder()
    for group in GROUP_FOLDERS:  # they name the same files
        with contextlib.suppress(OSError):
            if folder is not None:
                manifest_path(folder, group).unlink()
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


def publish(staging: Path, folder: Path, in_place: tuple[str, ...] = ()) -> dict[str, list[Any]]:
    """Move the compiled folders from `staging` into `folder` (replacing older ones) and
    return the manifest's file table {relative path: [size, sha256]}. numba's index
    files (``.nbi``) are listed as [None, None], present but not pinned: numba adds an
    entry to them when a later process compiles another signature, which leaves the
    machine code already there (``.nbc``, pinned) untouched. in_place: the starts of
    folder names whose files are copied in one by one (atomically) instead: a group
    published before (`publish_group`), which other processes may be loading from, so
    its folder never disappears for an instant."""
    files: dict[str, list[Any]] = {}
    for sub in sorted(p for p in staging.iterdir() if p.is_dir()):
        files.update(_table(staging, sub))
        if in_place and sub.name.startswith(in_place):
            _copy_in(staging, sub, folder)
        else:
            _swap(sub, folder / sub.name)
    return files


def publish_group(staging: Path, folder: Path, group: str) -> dict[str, list[Any]]:
    """Copy the compiled files of `group` (its folders, `GROUP_FOLDERS`) from `staging`
    into `folder` (each file atomically; the staging folder keeps them for the whole
    compile's `publish`) and return their file table (see `publish`)."""
    files: dict[str, list[Any]] = {}
    for sub in sorted(p for p in staging.iterdir() if p.is_dir()):
        if sub.name.startswith(GROUP_FOLDERS[group]):
            files.update(_table(staging, sub))
            _copy_in(staging, sub, folder)
    return files


def _table(staging: Path, sub: Path) -> dict[str, list[Any]]:
    """The manifest's file table of the staged folder `sub` (see `publish`)."""
    files: dict[str, list[Any]] = {}
    for f in sorted(sub.rglob("*")):
        if f.is_file() and f.suffix == ".nbi" and ".tmp." not in f.name:
            files[f.relative_to(staging).as_posix()] = [None, None]
        elif f.is_file() and ".tmp." not in f.name:
            data = f.read_bytes()
            files[f.relative_to(staging).as_posix()] = [len(data), hashlib.sha256(data).hexdigest()]
    return files


def _copy_in(staging: Path, sub: Path, folder: Path) -> None:
    """Copy every file of the staged folder `sub` into `folder`, each atomically (a
    reader sees the old file or the new one, never a part)."""
    from suspension_sim.files import write_bytes_atomically

    for f in sorted(sub.rglob("*")):
        if f.is_file() and ".tmp." not in f.name:
            target = folder / f.relative_to(staging)
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            blob = f.read_bytes()
            with contextlib.suppress(OSError):
                if target.read_bytes() == blob:
                    continue
            write_bytes_atomically(target, blob)


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
