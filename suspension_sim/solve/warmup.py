"""Compile the numba kernels once per user: in the background, or on request with a bar.

The compiled kernels (`solve.kernel`, `metrics.batch_kernel`, `loads.blocks_kernel`)
take minutes to compile and well under a second to load from numba's on-disk cache,
which lives in the user's private code folder (`cache.private_code_dir`,
``<cache folder>/numba-<numba version>``). This module keeps that folder complete:

* **Compile** (`run_compile`, in a child process ``python -m
  suspension_sim.commands.warm_up --child``): under a lock file (``compile.lock``, so two
  processes never compile at once, and a compile finished by another process is not
  repeated), the kernels are compiled into a staging folder beside the code folder,
  then moved in folder by folder, and only then is the *manifest* written
  (``manifest-<package location>.json``: the kernel sources' stamps, the Python and
  numba versions, every compiled file with its size and sha256; numba's index files by
  name only, as they grow when a later process compiles another signature),
  atomically. So the manifest names a complete compile or nothing.
* **Use** (`on_disk`, `verified`): a process loads the kernels only when the
  manifest matches this package (same kernel sources, Python, numba) and every file
  it lists is there with its size (and, before loading, its sha256). A missing,
  stale, half-written or corrupt cache is a plain "not compiled": the numpy path
  is used and a background compile is started.
* **Background** (`start_background`): the first run after an install starts the
  compile in a separate, niced process (its output in ``warmup.log`` in the code
  folder) and says so in one line on stderr. A compile that fails leaves a marker
  (``failed-<package location>.txt``): it is said once, not retried in the
  background, and ``suspension-sim warm-up`` retries it.
  ``SUSPENSION_SIM_BACKGROUND_COMPILE=0`` turns the background compile off.
* **Foreground** (`warm_up`, ``suspension-sim warm-up``): the same compile, not
  niced, with a progress bar (for CI images and lab machines).

Nothing here imports numba in the calling process; only the child does.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import IO, Any

from suspension_sim import cache as cache_mod

BACKGROUND_ENV = "SUSPENSION_SIM_BACKGROUND_COMPILE"
"""Set to 0 (or false, no, off) to never start a background compile."""
STAGING_ENV = cache_mod.CODE_DIR_ENV
"""Set by `run_compile` for its own process: the code folder name numba writes into."""
MANIFEST_FORMAT = 3
"""Raised whenever what a compile puts on disk changes: older manifests are then stale."""
NICENESS = 10
"""How much the background compile is niced (POSIX)."""
LOG_NAME = "warmup.log"
LOCK_NAME = "compile.lock"

PACKAGE = Path(__file__).resolve().parents[1]
"""The installed package folder (numba keys its cache folders by its sources' path)."""
KERNEL_SOURCES = ("solve/kernel.py", "metrics/batch_kernel.py", "loads/blocks_kernel.py")
"""The modules whose compiled code the manifest covers (relative to `PACKAGE`)."""

_said: set[str] = set()
"""Messages given in this process (each line at most once per process)."""
_compiling = False
"""True inside the compile process (which holds the lock itself)."""
_held = False
"""True while `foreground_compile` holds the lock in this process."""
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


def _identity() -> dict[str, Any]:
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
        ident = _identity()
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
    ident = _identity()
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
            if digest is None:  # an index (`_publish`)
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
    return (rest or "unknown error") if ident == _identity() else None


# -- the lock ---------------------------------------------------------------------------
class Lock:
    """An exclusive lock on a file (fcntl.flock / msvcrt.locking); released when the
    process ends, however it ends, so a killed compile never leaves it held."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._f: IO[bytes] | None = None

    def acquire(self, wait: bool) -> bool:
        """Take the lock; False when `wait` is False and another process holds it."""
        try:
            f = open(self.path, "a+b")  # noqa: SIM115 - held until release
        except OSError:
            return False
        try:
            if os.name == "nt":  # pragma: no cover - Windows
                msvcrt: Any = importlib.import_module("msvcrt")
                mode = msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK
                while True:
                    try:
                        f.seek(0)
                        msvcrt.locking(f.fileno(), mode, 1)
                        break
                    except OSError:
                        if not wait:
                            raise
            else:
                import fcntl

                fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            f.close()
            return False
        self._f = f
        return True

    def release(self) -> None:
        if self._f is not None:
            with contextlib.suppress(OSError):
                if os.name == "nt":  # pragma: no cover - Windows
                    msvcrt: Any = importlib.import_module("msvcrt")
                    self._f.seek(0)
                    msvcrt.locking(self._f.fileno(), msvcrt.LK_UNLCK, 1)
            self._f.close()
            self._f = None


def compile_running() -> bool:
    """True while some other process holds the compile lock."""
    folder = code_folder()
    if _compiling:
        return False
    if folder is None or not folder.is_dir():
        return False
    lock = Lock(folder / LOCK_NAME)
    if lock.acquire(wait=False):
        lock.release()
        return False
    return True


# -- compiling (in the child process) -----------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One piece of the compile: a label and what to run; `weight` ~ its share of the time."""

    label: str
    run: Callable[[], object]
    weight: float


LOADS_STEP = "loads kernel"
"""The step that needs nothing of the others: a foreground compile runs it in a second
process at the same time when the machine has two cores or more."""
CHILD_MODULE = "suspension_sim.commands.warm_up"
"""What the compile process runs (``python -m``): it knows every kernel to compile
(`commands.warm_up.compile_steps`), which sit in layers above this one."""


def wait_for_compile() -> bool:
    """Wait until no other process holds the compile lock (saying so in one line on
    stderr first); True when the kernels are on disk afterwards."""
    with foreground_compile():
        return on_disk()


@contextlib.contextmanager
def foreground_compile() -> Iterator[bool]:
    """Hold the compile lock while this process compiles kernels itself (numba then
    writes straight into the code folder, which a background compile publishes into):
    while another process holds it, say so in one line on stderr and wait. Yields
    True when the lock is held (or this is the compile process, which holds it), False
    when it cannot be taken (no code folder, or the lock file cannot be locked): the
    caller then must not compile into the cache. No usable code folder: True (the
    kernels are then compiled in memory, nothing is written)."""
    global _held
    code = code_folder()
    if _compiling or _held or code is None:  # the compile process, or held here already
        yield True
        return
    folder = cache_mod.private_code_dir(code.name)
    if folder is None:  # the kernels do not use it either (`cache.private_code_dir`)
        yield True
        return
    lock = Lock(folder / LOCK_NAME)
    if not lock.acquire(wait=False):
        say_once(
            f"waiting for the kernel compile running in another process (log {folder / LOG_NAME})"
        )
        if not lock.acquire(wait=True):
            yield False
            return
    _held = True
    try:
        yield True
    finally:
        _held = False
        lock.release()


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
        _write_json_atomically(manifest_path(dst), data)
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


def _publish(staging: Path, folder: Path) -> dict[str, list[Any]]:
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


def _write_json_atomically(path: Path, data: dict[str, Any]) -> None:
    from suspension_sim.files import write_bytes_atomically

    write_bytes_atomically(path, json.dumps(data, indent=1, sort_keys=True).encode())


def run_compile(
    wait: bool,
    say: Callable[[str], None],
    steps: Callable[[], list[Step]],
    parallel: bool = False,
) -> int:
    """The child's work: compile every kernel once into the code folder. Exit code 0
    when the kernels are there afterwards (compiled here or by another process).

    wait: block on the lock (foreground) or leave at once when another process holds
    it (background). say: progress lines for the parent (``PLAN n total_weight``,
    ``STEP weight label``, ``WAIT``, ``DONE``, ``SKIP``, ``FAIL``). steps: what to
    compile (`commands.warm_up.compile_steps`; tests pass cheap stand-ins to check the
    locking and publishing), called once the staging folder is named, so that the
    kernel modules it imports write there. parallel: run the `LOADS_STEP` in a second process at
    the same time when there are two cores or more."""
    global _compiling
    folder = code_folder()
    if folder is None:
        say("SKIP no cache folder (SUSPENSION_SIM_CACHE_DIR is empty) or no numba")
        return 1
    base = cache_mod.private_code_dir(folder.name)
    if base is None:
        say(f"SKIP the code folder {folder} cannot be used (see the warning)")
        return 1
    lock = Lock(base / LOCK_NAME)
    if not lock.acquire(wait=False):
        if not wait:
            say("SKIP another process is compiling")
            return 0
        say("WAIT")
        if not lock.acquire(wait=True):
            say(f"FAIL cannot lock {lock.path}")
            return 1
    try:
        if read_manifest(base) is not None and on_disk():
            say("DONE already compiled")
            return 0
        for old in base.parent.glob(f"{base.name}-staging-*"):  # left by a killed compile
            shutil.rmtree(old, ignore_errors=True)
        staging_name = f"{base.name}-staging-{os.getpid()}"
        os.environ[STAGING_ENV] = staging_name
        _compiling = True
        staging = cache_mod.private_code_dir(staging_name)
        if staging is None:
            raise RuntimeError(f"cannot create the staging folder {base.parent / staging_name}")
        helper = None
        try:
            todo = steps()
            say(f"PLAN {len(todo)} {sum(s.weight for s in todo):g}")
            at = next((i for i, st in enumerate(todo) if st.label == LOADS_STEP), -1)
            if parallel and at >= 0 and (os.cpu_count() or 1) >= 2:
                helper = subprocess.Popen(  # on a second core, while the others compile
                    [*_child_command(background=False), "--step", LOADS_STEP],
                    stdin=subprocess.DEVNULL,
                    env={**_child_env(), STAGING_ENV: staging_name},
                )
            for i, step in enumerate(todo):
                if helper is not None and i == at:
                    continue
                if helper is not None and i > at:  # the steps after it need it done
                    _join(helper, todo[at], say)
                    helper = None
                say(f"STEP {step.weight:g} {step.label}")
                step.run()
            if helper is not None:
                _join(helper, todo[at], say)
                helper = None
            with contextlib.suppress(OSError):  # stale (checked above): never beside new files
                manifest_path(base).unlink()
            files = _publish(staging, base)
        finally:
            if helper is not None:
                helper.kill()
                helper.wait()
            shutil.rmtree(staging, ignore_errors=True)
            os.environ.pop(STAGING_ENV, None)
            _compiling = False
        _write_json_atomically(manifest_path(base), {**_identity(), "files": files})
        with contextlib.suppress(OSError):
            failed_path(base).unlink()
        say("DONE compiled")
        return 0
    except Exception as exc:
        import traceback

        text = json.dumps(_identity()) + "\n" + f"{type(exc).__name__}: {exc}\n"
        with contextlib.suppress(OSError):
            from suspension_sim.files import write_bytes_atomically

            detail = text + traceback.format_exc()
            write_bytes_atomically(failed_path(base), detail.encode())
        say(f"FAIL {type(exc).__name__}: {exc}")
        return 1
    finally:
        lock.release()


def _join(helper: subprocess.Popen[bytes], step: Step, say: Callable[[str], None]) -> None:
    """Wait for the process compiling `step` at the same time; raise if it failed."""
    say(f"STEP {step.weight:g} {step.label}")
    if helper.wait() != 0:
        raise RuntimeError(f"the {step.label} failed (exit {helper.returncode})")


def child_main(argv: list[str], steps: Callable[[], list[Step]]) -> int:
    """The compile process (``python -m suspension_sim.commands.warm_up --child
    [--background | --step LABEL]``): `run_compile` of `steps()`, its progress lines
    on stdout; ``--step`` runs one step into the staging folder of the compile that
    started it (which holds the lock)."""
    global _compiling
    if "--step" in argv:
        _compiling = True
        label = argv[argv.index("--step") + 1]
        for step in steps():
            if step.label == label:
                step.run()
        return 0
    background = "--background" in argv
    if background and hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(NICENESS)

    def say(line: str) -> None:
        print(line, flush=True)

    return run_compile(wait=not background, say=say, steps=steps, parallel=not background)


# -- starting it (in the user's process) ------------------------------------------------
def background_allowed() -> bool:
    """False when ``SUSPENSION_SIM_BACKGROUND_COMPILE`` is 0/false/no/off."""
    value = os.environ.get(BACKGROUND_ENV, "").strip().lower()
    return value not in ("0", "false", "no", "off")


def _child_command(background: bool) -> list[str]:
    cmd = [sys.executable, "-m", CHILD_MODULE, "--child"]
    return [*cmd, "--background"] if background else cmd


def _child_env() -> dict[str, str]:
    """The child's environment: ours, with this package importable first."""
    env = dict(os.environ)
    env.pop(STAGING_ENV, None)
    root = str(PACKAGE.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def say_once(text: str) -> None:
    """One line on stderr, at most once per process (never raises)."""
    if text in _said:
        return
    _said.add(text)
    with contextlib.suppress(Exception):
        print(f"suspension-sim: {text}", file=sys.stderr, flush=True)


def start_background() -> bool:
    """Start the background compile when the kernels are not on disk and none is
    running; True when one was started (said in one line on stderr). A failed compile
    is said once (its marker then records that) and not retried here."""
    if not background_allowed() or on_disk():
        return False
    folder = code_folder()
    if folder is None:
        return False
    failed = failure()
    if failed is not None:
        _say_failure(folder, failed)
        return False
    base = cache_mod.private_code_dir(folder.name)
    if base is None or compile_running():
        return False
    try:
        with open(base / LOG_NAME, "ab") as log:
            kwargs: dict[str, Any] = {}
            if os.name == "nt":  # pragma: no cover - Windows
                kwargs["creationflags"] = 0x00004000 | 0x00000200 | 0x08000000
            else:
                kwargs["start_new_session"] = True
            subprocess.Popen(
                _child_command(background=True),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=_child_env(),
                close_fds=True,
                **kwargs,
            )
    except OSError as exc:
        say_once(f"cannot start the background compile ({exc}); the numpy path is used")
        return False
    say_once(
        "compiling the fast solver kernels in the background (a few minutes, once per "
        f"install; log {base / LOG_NAME}); until then the numpy path is used"
    )
    return True


def _say_failure(folder: Path, reason: str) -> None:
    """Say a failed compile once (the marker remembers it was said)."""
    path = failed_path(folder)
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return
    if "\nSAID\n" in text:
        return
    say_once(
        f"compiling the fast solver kernels failed ({reason.strip().splitlines()[0]}; "
        f"details in {path}); the numpy path is used. Run `suspension-sim warm-up` to retry."
    )
    with contextlib.suppress(OSError), open(path, "a") as f:
        f.write("\nSAID\n")


def warm_up(progress: bool = True, out: IO[str] | None = None) -> int:
    """Compile the kernels now (``suspension-sim warm-up``), in a child process, with a
    progress bar on `out` (stderr by default); waits for a compile already running.
    Returns 0 when the kernels are on disk afterwards."""
    stream = sys.stderr if out is None else out
    if code_folder() is None:
        print(
            f"no cache folder ({cache_mod.ENV_VAR} is empty, or numba is missing): "
            "nothing to compile into",
            file=stream,
        )
        return 1
    folder = code_folder()
    assert folder is not None
    with contextlib.suppress(OSError):
        failed_path(folder).unlink()  # asked for: retry a failed compile
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        _child_command(background=False),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=_child_env(),
        text=True,
    )
    assert proc.stdout is not None
    code = _follow(proc.stdout, progress, stream)
    code = proc.wait() or code
    if code == 0:
        print(f"compiled kernels ready in {folder} ({time.perf_counter() - t0:.0f} s)", file=stream)
    return code


def _follow(lines: IO[str], progress: bool, stream: IO[str]) -> int:
    """Show the child's progress lines as a bar; returns 1 when it reported a failure."""
    from tqdm import tqdm

    bar: Any = None
    last = 0.0  # the weight of the step running
    code = 0
    other: list[str] = []
    with contextlib.ExitStack() as stack:
        for raw in lines:
            line = raw.rstrip("\n")
            word, _, rest = line.partition(" ")
            if word == "PLAN":
                total = float(rest.split(" ")[1])
                bar = stack.enter_context(
                    tqdm(
                        total=total,
                        desc="compiling kernels",
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}",
                        file=stream,
                        disable=not progress,
                    )
                )
                stack.enter_context(_ticking(bar))
            elif word == "STEP" and bar is not None:
                weight, label = rest.split(" ", 1)
                bar.update(last)
                last = float(weight)
                bar.set_postfix_str(label)
            elif word == "WAIT":
                print("waiting for the compile already running in another process", file=stream)
            elif word in ("DONE", "SKIP"):
                if bar is not None:
                    bar.update(bar.total - bar.n)
                if word == "SKIP" or rest != "compiled":
                    print(rest, file=stream)
            elif word == "FAIL":
                code = 1
                print(f"compile failed: {rest}", file=stream)
            else:
                other.append(line)
    if code and other:
        print("\n".join(other[-20:]), file=stream)
    return code


@contextlib.contextmanager
def _ticking(bar: Any) -> Iterator[None]:
    """Redraw `bar` every second (its elapsed time) while a long step runs."""
    import threading

    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(1.0):
            with contextlib.suppress(Exception):
                bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
