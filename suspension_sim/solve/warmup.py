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

This module is the driver (compile, background start, foreground compile, waiting,
messages); the files on disk are `solve.warmup_store`'s (manifest, checks, publish,
copy), the lock file `solve.warmup_lock`'s and the progress bar
`solve.warmup_progress`'s. Their public names are importable from here too.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from suspension_sim import cache as cache_mod
from suspension_sim.solve.warmup_lock import Lock
from suspension_sim.solve.warmup_progress import follow as _follow
from suspension_sim.solve.warmup_store import (  # noqa: F401 - re-exported: public names stay here
    ALL,
    GROUP_FOLDERS,
    KERNEL_SOURCES,
    MANIFEST_FORMAT,
    PACKAGE,
    SOLVE,
    code_folder,
    copy_compiled,
    drop_compiled,
    failed_path,
    failure,
    forget,
    manifest_path,
    numba_folder,
    numba_version,
    on_disk,
    read_manifest,
    verified,
    why_not_on_disk,
    write_json_atomically,
)
from suspension_sim.solve.warmup_store import identity as _identity
from suspension_sim.solve.warmup_store import publish as _publish  # a name here: tests watch it
from suspension_sim.solve.warmup_store import publish_group as _publish_group

BACKGROUND_ENV = "SUSPENSION_SIM_BACKGROUND_COMPILE"
"""Set to 0 (or false, no, off) to never start a background compile."""
STAGING_ENV = cache_mod.CODE_DIR_ENV
"""Set by `run_compile` for its own process: the code folder name numba writes into."""
NICENESS = 10
"""How much the background compile is niced (POSIX)."""
LOG_NAME = "warmup.log"
LOCK_NAME = "compile.lock"

_said: set[str] = set()
"""Messages given in this process (each line at most once per process)."""
_compiling = False
"""True inside the compile process (which holds the lock itself)."""
_held = False
"""True while `foreground_compile` holds the lock in this process."""


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
"""The loads kernel's step (it needs nothing of the others)."""
METRICS_STEP = "batch metrics kernel"
"""The batch-metrics kernel's step (compiled on empty tables: it needs no solve first)."""
SECOND_LANE = (
    "solve kernel: chassis_points",
    "solve kernel: world_points",
    "solve kernel: body_spread",
    "solve kernel: points_and_slopes",
    METRICS_STEP,
    LOADS_STEP,
)
"""The steps a foreground compile runs in a second process, in this order, while this
one runs the others, when the machine has two cores or more: this process the two
big solvers (the sequence and the single solve, which share most of their code, so
it is typed once) and the block tangents (which share it too), the second one the
small solve steps first (so that the solve group is complete when the solvers are),
then the batch-metrics and loads kernels, which need no compiled solve. Measured in
CPU seconds (`benchmarks/compile_bench.py`'s steps, a loaded 2-core machine): ~20
here against ~19 there, the second process starting a little later."""
SOLVE_STEPS = "solve kernel"
"""The start of the labels of the solve kernel's steps (`SOLVE` group): once they are
all done (in both processes), the group is published with its own manifest before
the other steps run (`publish_group`), so the solvers are used from then on."""
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
    ``STEP weight label`` as this process starts a step, ``LANE weight label`` as the
    second process finishes one, ``GROUP name`` once a group is published, ``WAIT``,
    ``DONE``, ``SKIP``, ``FAIL``; one line at a time). steps: what to
    compile (`commands.warm_up.compile_steps`; tests pass cheap stand-ins to check the
    locking and publishing), called once the staging folder is named, so that the
    kernel modules it imports write there. parallel: run the `SECOND_LANE` steps in a
    second process at the same time when there are two cores or more."""
    global _compiling
    say = _one_line_at_a_time(say)
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
        for group in GROUP_FOLDERS:  # stale or damaged: never beside the files copied in
            with contextlib.suppress(OSError):
                manifest_path(base, group).unlink()
        staging_name = f"{base.name}-staging-{os.getpid()}"
        os.environ[STAGING_ENV] = staging_name
        _compiling = True
        staging = cache_mod.private_code_dir(staging_name)
        if staging is None:
            raise RuntimeError(f"cannot create the staging folder {base.parent / staging_name}")
        helper = None
        watch: _LaneWatch | None = None
        try:
            todo = steps()
            say(f"PLAN {len(todo)} {sum(s.weight for s in todo):g}")
            lane = [st for st in todo if st.label in SECOND_LANE]
            lane.sort(key=lambda st: SECOND_LANE.index(st.label))
            if not (parallel and lane and (os.cpu_count() or 1) >= 2):
                lane = []
            last = max((todo.index(st) for st in lane), default=-1)
            if lane:
                labels = [arg for st in lane for arg in ("--step", st.label)]
                helper = subprocess.Popen(  # on a second core, while the others compile
                    [*_child_command(background=False), *labels],
                    stdin=subprocess.DEVNULL,
                    env={**_child_env(), STAGING_ENV: staging_name},
                )
                watch = _LaneWatch(staging, lane, say)
            group_done = not any(st.label.startswith(SOLVE_STEPS) for st in todo)
            published = False
            for i, step in enumerate(todo):
                if step in lane:
                    continue
                if not group_done and not step.label.startswith(SOLVE_STEPS):
                    group_done = True  # every solve step of this process is done
                    published = _publish_solve(helper, staging, base, lane, say)
                if helper is not None and i > last:  # the steps after them need them done
                    _join(helper, lane, watch)
                    helper = None
                say(f"STEP {step.weight:g} {step.label}")
                step.run()
            if not group_done and helper is not None:  # the second process has the rest
                published = _publish_solve(helper, staging, base, lane, say)
            if helper is not None:
                _join(helper, lane, watch)
                helper = None
            with contextlib.suppress(OSError):  # stale (checked above): never beside new files
                manifest_path(base).unlink()
            if published:  # its folders stay in place: processes may be loading from them
                files = _publish(staging, base, tuple(GROUP_FOLDERS.values()))
            else:
                files = _publish(staging, base)
        finally:
            if watch is not None:
                watch.stop()
            if helper is not None:
                helper.kill()
                helper.wait()
            shutil.rmtree(staging, ignore_errors=True)
            os.environ.pop(STAGING_ENV, None)
            _compiling = False
        write_json_atomically(manifest_path(base), {**_identity(), "files": files})
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


LANE_POLL_S = 0.25
"""How often the second compile process's finished steps are looked for (s)."""


def _marker(staging: Path, label: str) -> Path:
    """The file the second compile process leaves in `staging` once step `label` is done."""
    return staging / (".done-" + "".join(c if c.isalnum() else "-" for c in label))


def _wait_for_solve(helper: subprocess.Popen[bytes], staging: Path, lane: list[Step]) -> bool:
    """Wait until the second process has done its solve-kernel steps (or has ended);
    True when they are all done."""
    wanted = [_marker(staging, st.label) for st in lane if st.label.startswith(SOLVE_STEPS)]
    while helper.poll() is None and not all(m.exists() for m in wanted):
        time.sleep(0.05)
    return all(m.exists() for m in wanted)


def _publish_solve(
    helper: subprocess.Popen[bytes] | None,
    staging: Path,
    base: Path,
    lane: list[Step],
    say: Callable[[str], None],
) -> bool:
    """Publish the solve group once the second process (if any) has done its solve
    steps too; True when published (else the whole compile publishes it at the end)."""
    if helper is not None and not _wait_for_solve(helper, staging, lane):
        return False
    publish_group(staging, base, SOLVE)
    say(f"GROUP {SOLVE}")
    return True


def publish_group(staging: Path, base: Path, group: str) -> None:
    """Publish the compiled files of `group` from the staging folder into the code
    folder `base` while the compile goes on: its files copied in (`warmup_store.
    publish_group`), then its manifest written atomically (a process then loads the
    group: `on_disk(group)`, `verified(group)`)."""
    files = _publish_group(staging, base, group)
    write_json_atomically(manifest_path(base, group), {**_identity(), "files": files})


def _join(helper: subprocess.Popen[bytes], lane: list[Step], watch: _LaneWatch | None) -> None:
    """Wait for the process compiling the steps `lane` at the same time; raise if it
    failed, else say every one of its steps not said yet (``LANE``)."""
    code = helper.wait()
    if watch is not None:
        watch.stop(finished=code == 0)
    if code != 0:
        names = ", ".join(step.label for step in lane)
        raise RuntimeError(f"the second compile process ({names}) failed (exit {code})")


def _one_line_at_a_time(say: Callable[[str], None]) -> Callable[[str], None]:
    """`say` behind a lock: the lane watch says its lines from a thread of its own."""
    lock = threading.Lock()

    def said(line: str) -> None:
        with lock:
            say(line)

    return said


class _LaneWatch:
    """Says ``LANE weight label`` as the second compile process finishes each of its
    steps (its marker file appears in the staging folder; looked for every
    `LANE_POLL_S`), so the progress bar moves while both processes compile."""

    def __init__(self, staging: Path, lane: list[Step], say: Callable[[str], None]) -> None:
        self._staging, self._lane, self._say = staging, lane, say
        self._said: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(LANE_POLL_S):
            self._report(finished=False)

    def _report(self, finished: bool) -> None:
        for step in self._lane:
            if step.label in self._said:
                continue
            if finished or _marker(self._staging, step.label).exists():
                self._said.add(step.label)
                self._say(f"LANE {step.weight:g} {step.label}")

    def stop(self, finished: bool = False) -> None:
        """Stop watching; `finished`: the process ended well, so every step is done."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        self._report(finished)


def child_main(argv: list[str], steps: Callable[[], list[Step]]) -> int:
    """The compile process (``python -m suspension_sim.commands.warm_up --child
    [--background | --step LABEL ...]``): `run_compile` of `steps()`, its progress lines
    on stdout; ``--step`` (repeated) runs those steps, in that order, into the staging
    folder of the compile that started it (which holds the lock)."""
    global _compiling
    if "--step" in argv:
        _compiling = True
        labels = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--step"]
        todo = {step.label: step for step in steps()}
        staging = cache_mod.private_code_dir("staging")  # STAGING_ENV names it
        for label in labels:
            if label in todo:
                todo[label].run()
                if staging is not None:
                    _marker(staging, label).touch()
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


COMPILE_ENV = {"NUMBA_OPT": "3"}
"""Set for the compile process unless the user set them: LLVM's optimisation level 3
(numba's default). The compile process optimises each kernel's code once, at the entry
points Python calls (`warmup_codegen`), instead of once more for every function above
it, so level 3 now costs little: measured on the example car (one process, a loaded
2-core machine), the two solvers compile in ~16-17 s of CPU at level 3 against ~15 s
at level 1 (and ~21-22 s at level 1 before `warmup_codegen`), while at level 1 a warm
single solve was ~12 % slower; at level 3 every run time is the same or better than
before (a loop of `model.solve`, a batch solve, the batch metrics, the loads' block
solves; `benchmarks/compile_bench.py`). The machine code differs, the results do not
(no fast-math in the solve kernels; the tests compare every path)."""


def _child_env() -> dict[str, str]:
    """The child's environment: ours, with this package importable first, and
    `COMPILE_ENV` where the user has not set it."""
    env = {**COMPILE_ENV, **os.environ}
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


_started_here = False
"""True once this process has started a background compile (it never starts two: the
child may not hold the lock yet when a second damaged cache is found)."""


def start_background() -> bool:
    """Start the background compile when the kernels are not on disk and none is
    running; True when one was started (said in one line on stderr). A failed compile
    is said once (its marker then records that) and not retried here."""
    global _started_here
    if _started_here or not background_allowed() or on_disk():
        return False  # one background compile per process at most
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
    _started_here = True
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
