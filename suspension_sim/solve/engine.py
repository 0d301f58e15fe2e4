"""The batch engine: block-wise Newton with a trust region, for many states at once.

With every input held (strokes, rack; the chassis state moves the car
rigidly and cannot open a joint) and no targets, the Jacobian splits into
independent blocks found once per model from the body graph
(`solve.problem`): one per corner, or an axle and whatever couples it. Each
block is closed by Gauss-Newton steps inside Powell's dogleg trust region
with the analytic Jacobian, in the style of MINPACK's hybrj, until every
residual is at or below the target (`tolerances.INNER_TARGET_MM`).

Two implementations of the same method:

* `solve_numpy`: the reference, vectorised over states (`engine_numpy`).
* `solve_compiled`: the numba kernel (`solve.kernel`), one state after
  another, each warm-started from the last that closed with a first-order
  prediction and chord steps that reuse the last factorisation
  (`engine_session`).
* `KernelSession.solve_one`: one state in one kernel call (`model.solve`), with
  targets solved inside the kernel: each block that carries targets is bordered
  with their rows and its freed inputs' columns (`target_tables`,
  `kernel.solve_bordered`).

Neither raises or returns a state silently: each state has a status
(`kernel.OK`, ...); `solve.batch` hands every other state to the robust
single-state path. Units: mm, rad.

This module is the engine's public face: every name other modules use is
importable from here, and it holds the one piece of per-process state, whether
this process uses the compiled kernel (`kernel_compiled`, `load_kernel_if_cached`;
kept here because tests and benchmarks set `LOAD_AFTER_S` and read `_READY` on this
module). The work itself is split by job, each module readable in one sitting:

* `engine_plan`: the blocks of a model (`plan`) and `EngineResult`;
* `engine_numpy`: the numpy reference Newton (`solve_numpy`), the tested reference;
* `engine_tables`: the kernel's tables of a model, its work arrays, `kernel_module`;
* `engine_reduced`: tables with two-point links as distance rows (batches);
* `engine_targets`: targets laid out for the kernel's single solve;
* `engine_session`: `KernelSession`, `solve_compiled` (the compiled solves);
* `engine_points`: points, the branch screen's spread and tangents, compiled;
* `engine_compile`: `kernel_steps` and `compile_kernel` (compiling the kernel).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator

from suspension_sim.solve.engine_codes import (
    BRANCH,
    NOT_CONVERGED,
    NOT_FINITE,
    OK,
    SINGULAR,
    STATIONARY,
    STATUS_TEXT,
    TRUST_START,  # noqa: F401 - re-exported
)
from suspension_sim.solve.engine_compile import compile_kernel, kernel_steps
from suspension_sim.solve.engine_numpy import (  # noqa: F401 - re-exported
    NUMPY_CHUNK,
    newton_numpy,
    predict_numpy,
    solve_numpy,
)
from suspension_sim.solve.engine_plan import (  # noqa: F401 - re-exported
    MAX_ITERATIONS,
    Block,
    EngineResult,
    Plan,
    plan,
)
from suspension_sim.solve.engine_points import (  # noqa: F401 - re-exported
    body_spread_compiled,
    chassis_points_compiled,
    tangents_compiled,
    world_points_compiled,
)
from suspension_sim.solve.engine_reduced import (  # noqa: F401 - re-exported
    LINK_CHAINS,
    reduced_tables,
)
from suspension_sim.solve.engine_session import (  # noqa: F401 - re-exported
    NO_HISTORY,
    KernelSession,
    batch_session,
    run_kernel,
    session,
    solve_compiled,
)
from suspension_sim.solve.engine_tables import (  # noqa: F401 - re-exported
    KernelTables,
    compiled_available,
    dummy_tables,
    kernel_module,
    kernel_tables,
    work_arrays,
)
from suspension_sim.solve.engine_targets import (  # noqa: F401 - re-exported
    TargetTables,
    empty_target_tables,
    no_targets,
    target_tables,
)

__all__ = [
    "BRANCH",
    "NOT_CONVERGED",
    "NOT_FINITE",
    "OK",
    "SINGULAR",
    "STATIONARY",
    "STATUS_TEXT",
    "EngineResult",
    "Plan",
    "compile_kernel",
    "kernel_compiled",
    "kernels_complete",
    "load_kernel_if_cached",
    "plan",
    "solve_compiled",
    "solve_numpy",
]

_work = work_arrays
"""The old private name of `work_arrays`, kept for the tests that still use it."""


_READY = False
_QUESTIONS = 0
"""How often this process asked `kernel_compiled` while the kernel was not loaded."""
_FIRST_ASKED = -1.0
"""`time.perf_counter()` of that first question (-1: not asked yet)."""
_LOAD_TRIED = False
LOAD_AT_QUESTION = 3
"""The earliest question to `kernel_compiled` at which a kernel compiled on disk is
loaded: a solve the kernel does not serve asks twice (`solver.solve_by_engine`, or the
two target paths) before it runs numpy, so the third is the start of the second solve
and the first pose of a process never waits for the load."""
LOAD_AFTER_S = 0.5
"""...and only once this process has been solving (since its first question) for about
as long as the load takes (~0.35-0.8 s: numba's import, the kernel module, the
two solver functions): a loop of `model.solve` runs numpy for its first half second
and compiled afterwards (~0.05 ms a step instead of 2-8 ms), while a command that
solves two poses (~5-20 ms on numpy) is not slowed by a load it cannot win back. At
worst a process spends twice the best choice's time (the ski-rental rule)."""


_HELD = 0
"""How many `hold_load` blocks are open (process-wide)."""
_HELD_SINCE = -1.0
"""`time.perf_counter()` when the outermost open `hold_load` block began."""


@contextlib.contextmanager
def hold_load() -> Iterator[None]:
    """No lazy load of the compiled kernel inside this block: `kernel_compiled` answers
    from what is loaded already and does not count the question, and the time spent
    inside is taken off the `LOAD_AFTER_S` clock. For work known to be short (a sweep
    of a few steps: ~0.15 s of numpy solving) whose solves could not win back a load
    (~0.35-0.8 s), while other work (building motions, loading a second car) would
    otherwise run the clock. An explicit `load_kernel_if_cached` or `compile_kernel`
    inside still loads. Nests; process-wide (every thread's solves are held)."""
    global _HELD, _HELD_SINCE, _FIRST_ASKED
    if _HELD == 0:
        _HELD_SINCE = time.perf_counter()
    _HELD += 1
    try:
        yield
    finally:
        _HELD -= 1
        if _HELD == 0 and _FIRST_ASKED >= 0:  # the clock runs only outside held blocks
            _FIRST_ASKED += time.perf_counter() - max(_HELD_SINCE, _FIRST_ASKED)


def kernel_on_disk() -> bool:
    """True when a complete compile of the kernels is in this user's private code
    folder and belongs to this package (`solve.warmup.on_disk`: a manifest written
    after the whole compile, every file present), so loading it takes well under a
    second instead of a compile. Never imports numba."""
    from suspension_sim.solve import warmup

    return warmup.on_disk()


_COMPLETE = False
"""True once `kernels_complete` has seen every kernel on disk (it stays so)."""


def kernels_complete() -> bool:
    """True when every kernel's compile is on disk (`warmup.on_disk`: the whole
    compile's manifest), not just the solve kernel's group that `kernel_compiled`
    loads first: the gate for the metrics and loads kernels' compiled paths, which
    would otherwise compile in the calling process (or wait for the compile) while the
    rest of the first compile after an install runs. Stats only (~1 ms) until true."""
    global _COMPLETE
    if not _COMPLETE:
        from suspension_sim.solve import warmup

        _COMPLETE = warmup.on_disk()
    return _COMPLETE


def load_kernel_if_cached() -> bool:
    """Load the compiled kernel when a complete compile of the solve kernel's group is
    on disk (`warmup.SOLVE`: published first by a compile, before the metrics and loads
    kernels; its files verified first); True when it is ready in this process
    afterwards. Not on disk: a background compile is started
    (`solve.warmup.start_background`) and False returned at once. A cache that fails
    to load is forgotten and recompiled in the background; this process keeps the
    numpy path. Tried once per process."""
    global _LOAD_TRIED, _READY
    if _LOAD_TRIED:
        return kernel_compiled()
    _LOAD_TRIED = True  # before asking: `kernel_compiled` may call here
    if kernel_compiled():
        return True
    from suspension_sim.solve import warmup

    if not warmup.verified(warmup.SOLVE):  # the solvers' group is enough here
        if warmup.on_disk(warmup.SOLVE):  # listed but damaged: forget it, compile again
            warmup.forget()
        warmup.start_background()
        return False
    if not compiled_available():
        return False  # pragma: no cover - numba is a dependency
    try:
        for _, step, _ in kernel_steps()[:2]:  # the solvers; numba loads the rest on use
            step()
    except Exception as exc:  # a cache numba cannot read: numpy here, recompile there
        warmup.forget()
        warmup.say_once(
            f"the compiled kernels on disk could not be loaded ({type(exc).__name__}); "
            "the numpy path is used and they are compiled again"
        )
        warmup.start_background()
        return False
    _READY = True
    if not warmup.on_disk():  # the solvers' group only: the rest is compiling, or
        warmup.start_background()  # a compile was cut short (started again here)
    return True


def kernel_compiled() -> bool:
    """True once the kernel is compiled (or loaded from the disk cache) in this process.

    Never imports numba itself (that alone costs ~0.3 s), and answers from a
    flag once true: numba's own signature list is slow to build. From the start of a
    process's second solve (`LOAD_AT_QUESTION`), once it has been solving for
    `LOAD_AFTER_S`, it loads the kernel if a complete compile is on disk, or starts the
    background compile (`load_kernel_if_cached`): the first pose never waits, a loop of
    solves turns compiled. Inside `hold_load` it never loads. A kernel module that
    another thread is still importing counts as not loaded.
    """
    global _READY, _QUESTIONS, _FIRST_ASKED
    if not _READY:
        k = sys.modules.get("suspension_sim.solve.kernel")
        sequence = getattr(k, "solve_sequence", None)  # None while k is half imported
        single = getattr(k, "solve_single", None)
        _READY = (
            sequence is not None
            and single is not None
            and bool(sequence.signatures)
            and bool(single.signatures)
        )
        if not _READY and not _LOAD_TRIED and not _HELD:
            now = time.perf_counter()
            if _QUESTIONS == 0:
                _FIRST_ASKED = now
            _QUESTIONS += 1
            if _QUESTIONS >= LOAD_AT_QUESTION and now - _FIRST_ASKED >= LOAD_AFTER_S:
                load_kernel_if_cached()
    return _READY
