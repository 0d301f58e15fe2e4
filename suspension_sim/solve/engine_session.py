"""The compiled kernel's session per model: solving states one after another.

`KernelSession` keeps the kernel's work arrays and each block's last factorisation
between calls, so a warm solve (a sweep step, the next log sample) starts with cheap
chord steps instead of a fresh Jacobian, and calls the compiled entry point directly
(numba's dispatch costs ~100 us, more than a warm solve). `solve_compiled` runs a
sequence of states (`kernel.solve_sequence`), each warm-started from the last that
closed with a first-order prediction; `KernelSession.solve_one` one state with its
targets (`kernel.solve_single`). `batch_session` solves on the reduced tables
(`engine_reduced`). Units: mm, rad.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.solve.engine_plan import MAX_ITERATIONS, EngineResult
from suspension_sim.solve.engine_reduced import reduced_tables
from suspension_sim.solve.engine_tables import (
    KernelTables,
    kernel_module,
    kernel_tables,
    work_arrays,
)
from suspension_sim.solve.engine_targets import TargetTables

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

NO_HISTORY = np.zeros((0, 1))
"""`kernel.solve_single`'s history when the guess carries none."""


class KernelSession:
    """The compiled kernel's state for one model, kept between calls.

    Each block's last factorisation survives from one call to the next, so a
    warm single solve (a sweep step, the next log sample) starts with cheap
    chord steps instead of a fresh Jacobian. A lock keeps one thread at a time
    on the shared work arrays; a second thread gets fresh ones.
    """

    def __init__(self, model: KinematicModel, tables: KernelTables | None = None) -> None:
        self.tables = kernel_tables(model) if tables is None else tables
        self.W, self.S = work_arrays(self.tables)
        self.counts = np.zeros(2, dtype=np.int64)  # evaluations, Jacobians (factorisations)
        self._lock = threading.Lock()
        self._entry: Any = None  # the compiled entry point, once known
        self._single_entry: Any = None  # the same for `kernel.solve_single`

    def solve(
        self,
        U: np.ndarray,
        q0: np.ndarray,
        target: float,
        max_iter: int = MAX_ITERATIONS,
        fresh: bool = False,
    ) -> EngineResult:
        """Solve the states U (N, n_in) one after another from q0 (see `solve_compiled`)."""
        if self._lock.acquire(blocking=False):
            try:
                out, self._entry = run_kernel(
                    U,
                    q0,
                    self.tables,
                    self.W,
                    self.S,
                    self.counts,
                    target,
                    max_iter,
                    self._entry,
                    fresh,
                )
                return out
            finally:
                self._lock.release()
        W, S = work_arrays(self.tables)
        counts = np.zeros(2, np.int64)
        return run_kernel(U, q0, self.tables, W, S, counts, target, max_iter, None, fresh)[0]

    def solve_one(
        self,
        q: np.ndarray,
        q_guess: np.ndarray,
        tt: TargetTables,
        target: float,
        max_iter: int = MAX_ITERATIONS,
        history: np.ndarray | None = None,
    ) -> tuple[int, int, float, np.ndarray, np.ndarray]:
        """One state from q (held inputs written, freed inputs at their guess) moving from
        the pose q_guess, with the targets tt solved inside the kernel
        (`kernel.solve_single`). history: the guess pose's own first-order prediction
        and what it was made from, (2, n_params), or None (`kernel.secant`). Returns
        (status, iterations, largest residual mm, the solution, the first-order
        prediction)."""
        k = kernel_module()
        assert k is not None
        q = np.array(q, dtype=float)  # solved in place: the caller's start stays as it was
        pred = np.empty_like(q)
        qg = np.ascontiguousarray(q_guess, dtype=float)
        hist = NO_HISTORY if history is None else np.ascontiguousarray(history, dtype=float)
        if self._lock.acquire(blocking=False):
            try:
                args = (
                    q,
                    qg,
                    self.tables.inputs,
                    self.tables.arrays,
                    self.W,
                    self.S,
                    tt.arrays,
                    float(target),
                    int(max_iter),
                    self.counts,
                    pred,
                    hist,
                )
                if self._single_entry is None:
                    disp = k.solve_single
                    st, its, res = disp(*args)
                    sig = tuple(disp.typeof_pyval(a) for a in args)
                    self._single_entry = disp.overloads[sig].entry_point
                else:
                    st, its, res = self._single_entry(*args)
            finally:
                self._lock.release()
        else:
            W, S = work_arrays(self.tables)
            st, its, res = k.solve_single(
                q,
                qg,
                self.tables.inputs,
                self.tables.arrays,
                W,
                S,
                tt.arrays,
                float(target),
                int(max_iter),
                np.zeros(2, np.int64),
                pred,
                hist,
            )
        return int(st), int(its), float(res), q, pred

    def solve_rows(
        self,
        Q: np.ndarray,
        guesses: np.ndarray,
        tables: Sequence[TargetTables],
        target: float,
        accept: tuple[int, ...],
        max_iter: int = MAX_ITERATIONS,
    ) -> np.ndarray | None:
        """Each row of Q (S, n_params) solved in place as `solve_one` solves one state
        (its held inputs written, freed ones at their guess), moving from the pose in the
        same row of `guesses`, with the targets tables[s]; one lock and one work set for
        all the rows, the compiled entry point called directly (a DOE design's 39 states:
        ~4 us of Python a state less). Q and guesses must be C-contiguous float64 (the
        entry point reads them as such: ValueError otherwise). Returns each row's largest
        residual (mm), or None as soon as a row ends with a status not in `accept` (Q is
        then partly solved)."""
        for name, a in (("Q", Q), ("guesses", guesses)):
            if a.dtype != np.float64 or not a.flags.c_contiguous or a.shape != Q.shape:
                raise ValueError(f"solve_rows: {name} must be C-contiguous float64 like Q")
        if len(tables) != len(Q):
            raise ValueError("solve_rows: one targets table per row of Q")
        k = kernel_module()
        assert k is not None
        pred = np.empty(Q.shape[1])
        worst = np.empty(len(Q))
        with self._lock:  # the work arrays are one thread's at a time
            entry = self._single_entry
            for s in range(len(Q)):
                args = (
                    Q[s],
                    guesses[s],
                    self.tables.inputs,
                    self.tables.arrays,
                    self.W,
                    self.S,
                    tables[s].arrays,
                    float(target),
                    int(max_iter),
                    self.counts,
                    pred,
                    NO_HISTORY,
                )
                if entry is None:
                    disp = k.solve_single
                    st, _its, res = disp(*args)
                    sig = tuple(disp.typeof_pyval(a) for a in args)
                    entry = self._single_entry = disp.overloads[sig].entry_point
                else:
                    st, _its, res = entry(*args)
                if st not in accept:
                    return None
                worst[s] = res
        return worst


def session(model: KinematicModel) -> KernelSession:
    """The model's kernel session (one per model; compile the kernel first)."""
    return model.derived.get("engine_kernel_session", lambda: KernelSession(model))


def batch_session(model: KinematicModel) -> KernelSession:
    """The kernel session for batches (`solve_batch`): the reduced tables, with each
    two-point link as one distance row (`reduced_tables`), when the car allows; else the
    model's own `session`."""

    def build() -> KernelSession:
        tab = reduced_tables(model)
        return session(model) if tab is None else KernelSession(model, tab)

    return model.derived.get("engine_batch_session", build)


def run_kernel(
    U: np.ndarray,
    q0: np.ndarray,
    tab: KernelTables,
    W: tuple[np.ndarray, ...],
    S: tuple[Any, ...],
    counts: np.ndarray,
    target: float,
    max_iter: int,
    entry: Any = None,
    fresh: bool = False,
) -> tuple[EngineResult, Any]:
    """Run `kernel.solve_sequence`; returns the result and the compiled entry point used.

    entry: a compiled entry point from an earlier call with the same work
    arrays (a `KernelSession`'s), called directly: numba's per-call dispatch
    (typing the nested table tuples) costs ~100 us, more than a warm solve.
    None goes through the dispatcher and finds the entry point for next time.
    """
    k = kernel_module()
    assert k is not None
    t0 = time.perf_counter()
    N = len(U)
    Q = np.empty((N, tab.n_params))
    iters = np.empty(N, dtype=np.int64)
    res = np.empty(N)
    status = np.empty(N, dtype=np.int64)
    pred = np.empty((N if fresh else 1, tab.n_params))  # kept for single solves only
    args = (
        np.ascontiguousarray(U, dtype=float),
        np.ascontiguousarray(q0, dtype=float),
        tab.inputs,
        tab.arrays,
        W,
        S,
        float(target),
        int(max_iter),
        Q,
        iters,
        res,
        status,
        counts,
        pred,
        bool(fresh),
    )
    if entry is None:
        disp = k.solve_sequence
        disp(*args)
        entry = disp.overloads[tuple(disp.typeof_pyval(a) for a in args)].entry_point
    else:
        entry(*args)
    kept = pred if fresh else None
    return EngineResult(Q, status, iters, res, time.perf_counter() - t0, kept), entry


def solve_compiled(
    model: KinematicModel,
    U: np.ndarray,
    q0: np.ndarray,
    target: float,
    max_iter: int = MAX_ITERATIONS,
    fresh: bool = False,
    reduced: bool = False,
) -> EngineResult:
    """Solve the states with inputs U (N, n_in) one after another from q0 (compiled).

    Uses the model's `KernelSession`, so the blocks' factorisations carry over
    from the previous call; fresh=True factorises them at q0 first (the first
    state's prediction is then Newton's first step from q0: what a single
    solve from a guess, and the continuation's branch screen, want).
    reduced: solve with the two-point links eliminated (`batch_session`): the same
    solutions from blocks about half the size; the predictions then cover only the
    unknowns that remain (the links' parameters follow from their ends).
    """
    sess = batch_session(model) if reduced else session(model)
    return sess.solve(U, q0, target, max_iter, fresh)
