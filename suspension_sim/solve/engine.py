"""The batch engine: block-wise Newton with a trust region, for many states at once.

With every input held (strokes, rack; the chassis state moves the car
rigidly and cannot open a joint) and no targets, the Jacobian splits into
independent blocks found once per model from the body graph
(`solve.problem`): one per corner, or an axle and whatever couples it. Each
block is closed by Gauss-Newton steps inside Powell's dogleg trust region
with the analytic Jacobian, in the style of MINPACK's hybrj, until every
residual is at or below the target (`tolerances.INNER_TARGET_MM`).

Two implementations of the same method:

* `solve_numpy`: the reference, vectorised over states. Residuals and
  Jacobians come from the model's own batch evaluation
  (`KinematicModel.evaluate_state` on (n_params, N) parameter arrays, with the
  shipped sympy templates); the Gauss-Newton step is a batched LU
  (`np.linalg.solve` on (N, n_b, n_b) stacks; QR for tall blocks from
  redundant joints). States go in chunks; each chunk starts from the last
  solved state plus a first-order prediction.
* `solve_compiled`: the numba kernel (`solve.kernel`), one state after
  another, each warm-started from the last that closed with a first-order
  prediction and chord steps that reuse the last factorisation.
* `KernelSession.solve_one`: one state in one kernel call (`model.solve`), with
  targets solved inside the kernel: each block that carries targets is bordered
  with their rows and its freed inputs' columns (`target_tables`,
  `kernel.solve_bordered`).

Neither raises or returns a state silently: each state has a status
(`kernel.OK`, ...); `solve.batch` hands every other state to the robust
single-state path. Units: mm, rad.

Not yet split (1700 lines): this module holds several jobs in this order: the block
plan and the numpy reference Newton, the kernel's tables (full and with two-point links
as distance rows), the kernel session and compiled helpers, target tables, and loading
or compiling the kernel. Splitting it by job is issue 23's item 5, still open; it was
left whole in the session that reworked the kernel loading, so one change did not also
move every function.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.model.topology import SIGNATURES
from suspension_sim.solve.engine_codes import (
    BRANCH,
    NOT_CONVERGED,
    NOT_FINITE,
    OK,
    SINGULAR,
    STATIONARY,
    STATUS_TEXT,
    TRUST_START,
)
from suspension_sim.solve.problem import problem
from suspension_sim.tolerances import (
    STATIONARY_GAIN,
    STATIONARY_STEP,
    TRUST_ACCEPT_RATIO,
    TRUST_MIN_RADIUS,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import JacobianLayout, KinematicModel
    from suspension_sim.solve.targets import CompiledTargets

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
    "load_kernel_if_cached",
    "plan",
    "solve_compiled",
    "solve_numpy",
]

MAX_ITERATIONS = 50
"""Trust-region steps per block and state before the state counts as not closed."""
NUMPY_CHUNK = 256
"""States per vectorised chunk in the numpy path (bounds its memory)."""
_NO_HISTORY = np.zeros((0, 1))
"""`kernel.solve_single`'s history when the guess carries none."""
_AXIS = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0), "-z": (0.0, 0.0, -1.0)}


@dataclass(frozen=True)
class Block:
    """One independent block: its residual rows and unknown columns, and where its
    Jacobian entries sit in the plan's layout (unknown and input columns)."""

    rows: np.ndarray  # residual rows (layout row indices)
    params: np.ndarray  # global parameter index of each unknown column
    entries: np.ndarray  # layout entries in unknown columns of this block
    entry_row: np.ndarray  # their local row
    entry_col: np.ndarray  # their local column
    in_entries: np.ndarray  # layout entries in input columns touching this block
    in_row: np.ndarray
    in_col: np.ndarray  # index into Plan.inputs


@dataclass(frozen=True)
class Plan:
    """What the engine needs of one model: unknowns, inputs, blocks (built once per model)."""

    unknowns: np.ndarray  # global indices of the unknowns
    inputs: np.ndarray  # global indices of the held inputs (strokes, then rack)
    layout: JacobianLayout  # columns: unknowns, then inputs
    blocks: tuple[Block, ...]
    loose_rows: np.ndarray  # residual rows that no unknown can change


@dataclass(frozen=True)
class EngineResult:
    """Per-state outcome of an engine run (N states)."""

    params: np.ndarray  # (N, n_params)
    status: np.ndarray  # (N,) kernel status codes, 0 = converged
    iterations: np.ndarray  # (N,) largest number of Newton steps over the blocks
    max_residual_mm: np.ndarray  # (N,)
    seconds: float
    predicted: np.ndarray | None = None  # (N, n_params) first-order start of each state

    @property
    def converged(self) -> np.ndarray:
        return self.status == 0


def plan(model: KinematicModel) -> Plan:
    """The engine plan of a model with every input held (cached per model)."""
    return model.derived.get("engine_plan", lambda: _build_plan(model))


def _build_plan(model: KinematicModel) -> Plan:
    inputs = model.input_params()
    prob = problem(model, inputs)
    unknowns = prob.unknowns
    n_u = len(unknowns)
    lay = model.layout(np.concatenate([unknowns, inputs]))
    entry_rows = lay.rows
    blocks: list[Block] = []
    covered = np.zeros(lay.shape[0], dtype=bool)
    for rows, cols in prob.blocks:
        covered[rows] = True
        local_row = np.full(lay.shape[0], -1)
        local_row[rows] = np.arange(len(rows))
        local_col = np.full(n_u, -1)
        local_col[cols] = np.arange(len(cols))
        in_rows = local_row[entry_rows] >= 0
        unk = in_rows & (lay.indices < n_u)
        inp = in_rows & (lay.indices >= n_u)
        ent = np.flatnonzero(unk)
        ient = np.flatnonzero(inp)
        blocks.append(
            Block(
                rows=np.asarray(rows),
                params=unknowns[cols],
                entries=ent,
                entry_row=local_row[entry_rows[ent]],
                entry_col=local_col[lay.indices[ent]],
                in_entries=ient,
                in_row=local_row[entry_rows[ient]],
                in_col=lay.indices[ient] - n_u,
            )
        )
        assert np.all(blocks[-1].entry_col >= 0), "a block's rows reach another block's columns"
    return Plan(unknowns, inputs, lay, tuple(blocks), np.flatnonzero(~covered))


# -- numpy reference ----------------------------------------------------------------
def _dense(data: np.ndarray, block: Block, m: int, n: int) -> np.ndarray:
    """Block Jacobian (S, m, n) from layout values data (nnz, S)."""
    J = np.zeros((data.shape[1], m, n))
    J[:, block.entry_row, block.entry_col] = data[block.entries].T
    return J


def _gauss_newton(J: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Steps -J^+ r for stacks J (S, m, n), r (S, m) and a per-state 'usable' flag.

    Square blocks: batched LU (`np.linalg.solve`); tall blocks: batched QR.
    """
    S, m, n = J.shape
    ok = np.ones(S, dtype=bool)
    if m == n:
        A, rhs = J, r
    else:
        Qm, A = np.linalg.qr(J)
        rhs = np.einsum("smn,sm->sn", Qm, r)
    try:
        p = -np.linalg.solve(A, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:  # some exactly singular: solve one at a time
        p = np.zeros((S, n))
        for s in range(S):
            try:
                p[s] = -np.linalg.solve(A[s], rhs[s])
            except np.linalg.LinAlgError:
                ok[s] = False
    ok &= np.all(np.isfinite(p), axis=1)
    p[~ok] = 0.0
    return p, ok


def _dogleg(
    J: np.ndarray, r: np.ndarray, D: np.ndarray, delta: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Powell's dogleg step in the D-scaled norm, for stacks of states.

    Returns the step (S, n), its predicted reduction |r|^2 - |r + J p|^2, its
    scaled length, the usable flag and the scaled length of the Gauss-Newton step.
    """
    p, ok = _gauss_newton(J, r)
    pn = np.linalg.norm(D * p, axis=1)
    gn = pn.copy()
    out = p.copy()
    far = pn > delta
    if np.any(far):
        Jf, rf, Df, dl = J[far], r[far], D[far], delta[far]
        g = np.einsum("smn,sm->sn", Jf, rf)
        gs = g / Df
        gsn = np.linalg.norm(gs, axis=1)
        d = -g / Df**2
        jd2 = np.einsum("smn,sn->sm", Jf, d)
        jd2 = np.einsum("sm,sm->s", jd2, jd2)
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.where(jd2 > 0, gsn**2 / jd2, 0.0)
            cauchy_out = (alpha * gsn >= dl) | (jd2 == 0)
            steep = (dl / np.where(gsn > 0, gsn, 1.0))[:, None] * d
        pc = alpha[:, None] * d
        diff = Df * (p[far] - pc)
        aa = np.einsum("sn,sn->s", diff, diff)
        bb = 2.0 * np.einsum("sn,sn->s", Df * pc, diff)
        cc = np.einsum("sn,sn->s", Df * pc, Df * pc) - dl**2
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (-bb + np.sqrt(np.maximum(bb * bb - 4 * aa * cc, 0.0))) / (2 * aa)
        mixed = pc + np.nan_to_num(t)[:, None] * (p[far] - pc)
        out[far] = np.where(cauchy_out[:, None], steep, mixed)
        pn = np.linalg.norm(D * out, axis=1)
    Jp = np.einsum("smn,sn->sm", J, out)
    pred = -np.einsum("sm,sm->s", 2 * r + Jp, Jp)
    return out, pred, pn, ok, gn


def newton_numpy(
    model: KinematicModel, Q: np.ndarray, target: float, max_iter: int = MAX_ITERATIONS
) -> EngineResult:
    """Close every block of the states Q (n_params, S) (the numpy reference).

    Q holds the inputs and the starting guess; it is not modified.
    """
    t0 = time.perf_counter()
    pl = plan(model)
    Q = np.array(Q, dtype=float)
    S = Q.shape[1]
    r, data, _, _ = model.evaluate_state(Q, pl.layout)
    loose = np.max(np.abs(r[pl.loose_rows]), axis=0, initial=0.0)
    status = np.where(np.isfinite(loose) & (loose <= target), 0, 1)
    iters = np.zeros(S, dtype=int)
    worst = np.nan_to_num(loose, nan=np.inf)
    # Per block: residuals, Jacobian, scale, trust radius, state of each state.
    rb, Jb, Db, delta, done, fail, its = [], [], [], [], [], [], []
    for blk in pl.blocks:
        m, n = len(blk.rows), len(blk.params)
        rb.append(r[blk.rows].T.copy())
        Jb.append(_dense(data, blk, m, n))
        norms = np.linalg.norm(Jb[-1], axis=1)
        Db.append(np.where(norms > 0, norms, 1.0))
        delta.append(
            TRUST_START * np.maximum(1.0, np.linalg.norm(Db[-1] * Q[blk.params].T, axis=1))
        )
        res = np.max(np.abs(rb[-1]), axis=1, initial=0.0)
        done.append(res <= target)
        fail.append(np.where(np.isfinite(res), 0, 3))
        its.append(np.zeros(S, dtype=int))
    for _ in range(max_iter):
        active = [np.flatnonzero(~done[b] & (fail[b] == 0)) for b in range(len(pl.blocks))]
        if not any(len(a) for a in active):
            break
        trial = Q.copy()
        steps: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None] = []
        for b, blk in enumerate(pl.blocks):
            idx = active[b]
            if not len(idx):
                steps.append(None)
                continue
            p, pred, pn, ok, gn = _dogleg(Jb[b][idx], rb[b][idx], Db[b][idx], delta[b][idx])
            fail[b][idx[~ok]] = 2
            xn = np.linalg.norm(Db[b][idx] * Q[blk.params][:, idx].T, axis=1)
            f2 = np.einsum("sm,sm->s", rb[b][idx], rb[b][idx])
            still = ok & ((gn <= STATIONARY_STEP * (1.0 + xn)) | (pred <= STATIONARY_GAIN * f2))
            fail[b][idx[still]] = 4
            ok &= ~still
            p[~ok] = 0.0
            trial[np.ix_(blk.params, idx)] += p.T
            steps.append((idx, ok, pred, pn))
        ev = np.unique(np.concatenate(active))
        pos = np.full(S, -1)
        pos[ev] = np.arange(len(ev))
        rt, dt, _, _ = model.evaluate_state(trial[:, ev], pl.layout)
        for b, blk in enumerate(pl.blocks):
            step = steps[b]
            if step is None:
                continue
            idx, ok, pred, pn = step
            idx, pred, pn = idx[ok], pred[ok], pn[ok]
            cols = pos[idx]
            r_new = rt[np.ix_(blk.rows, cols)].T
            new = np.max(np.abs(r_new), axis=1, initial=0.0)
            f2 = np.einsum("sm,sm->s", rb[b][idx], rb[b][idx])
            ft2 = np.einsum("sm,sm->s", r_new, r_new)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(pred > 0, (f2 - ft2) / pred, -1.0)
            accept = np.isfinite(new) & ((new <= target) | (ratio >= TRUST_ACCEPT_RATIO))
            dl = delta[b][idx]
            dl = np.where(
                ratio < 0.25, 0.25 * pn, np.where(ratio > 0.75, np.maximum(dl, 2 * pn), dl)
            )
            delta[b][idx] = dl
            its[b][idx] += 1
            acc = idx[accept]
            Q[np.ix_(blk.params, acc)] = trial[np.ix_(blk.params, acc)]
            rb[b][acc] = r_new[accept]
            J_new = _dense(dt[:, cols[accept]], blk, len(blk.rows), len(blk.params))
            Jb[b][acc] = J_new
            Db[b][acc] = np.maximum(Db[b][acc], np.linalg.norm(J_new, axis=1))
            done[b][acc] = new[accept] <= target
            xn = np.linalg.norm(Db[b][idx] * Q[blk.params][:, idx].T, axis=1)
            stuck = ~done[b][idx] & (dl <= TRUST_MIN_RADIUS * (1.0 + xn))
            fail[b][idx[stuck]] = 1
    for b in range(len(pl.blocks)):
        res = np.max(np.abs(rb[b]), axis=1, initial=0.0)
        worst = np.maximum(worst, np.nan_to_num(res, nan=np.inf))
        iters = np.maximum(iters, its[b])
        code = np.where(done[b], 0, np.where(fail[b] > 0, fail[b], 1))
        status = np.where((status == 0) | ((status == 4) & (code != 0)), code, status)
    return EngineResult(Q.T.copy(), status, iters, worst, time.perf_counter() - t0)


def predict_numpy(model: KinematicModel, q_base: np.ndarray, U: np.ndarray) -> np.ndarray:
    """Starting guesses (n_params, S) for inputs U (S, n_in): q_base plus a first-order
    step of every block, -J_u^+ J_in (u - u_base), with the Jacobian at q_base."""
    pl = plan(model)
    Q = np.repeat(np.asarray(q_base, dtype=float)[:, None], len(U), axis=1)
    dU = (U - q_base[pl.inputs]).T  # (n_in, S)
    Q[pl.inputs] = U.T
    _, data, _, _ = model.evaluate_state(q_base[:, None], pl.layout)
    values = data[:, 0]
    for blk in pl.blocks:
        m, n = len(blk.rows), len(blk.params)
        Ju = np.zeros((m, n))
        Ju[blk.entry_row, blk.entry_col] = values[blk.entries]
        Jin = np.zeros((m, len(pl.inputs)))
        Jin[blk.in_row, blk.in_col] = values[blk.in_entries]
        if not np.any(Jin):
            continue
        dx, *_ = np.linalg.lstsq(Ju, -(Jin @ dU), rcond=None)
        if np.all(np.isfinite(dx)):
            Q[blk.params] += dx
    return Q


def solve_numpy(
    model: KinematicModel,
    U: np.ndarray,
    q0: np.ndarray,
    target: float,
    chunk: int = NUMPY_CHUNK,
    max_iter: int = MAX_ITERATIONS,
) -> EngineResult:
    """Solve the states with inputs U (N, n_in) from the start q0, chunk by chunk (numpy).

    Each chunk starts from the last state of the previous chunk that closed
    (q0 for the first), plus a first-order prediction to each state.
    """
    t0 = time.perf_counter()
    N = len(U)
    out_q = np.zeros((N, model.n_params))
    status = np.zeros(N, dtype=int)
    iters = np.zeros(N, dtype=int)
    worst = np.zeros(N)
    predicted = np.zeros((N, model.n_params))
    base = np.asarray(q0, dtype=float).copy()
    for start in range(0, N, chunk):
        sl = slice(start, min(start + chunk, N))
        start_q = predict_numpy(model, base, U[sl])
        predicted[sl] = start_q.T
        res = newton_numpy(model, start_q, target, max_iter)
        out_q[sl], status[sl], iters[sl], worst[sl] = (
            res.params,
            res.status,
            res.iterations,
            res.max_residual_mm,
        )
        good = np.flatnonzero(res.status == 0)
        if len(good):
            base = res.params[good[-1]].copy()
    return EngineResult(out_q, status, iters, worst, time.perf_counter() - t0, predicted)


# -- compiled kernel ----------------------------------------------------------------
@cache
def kernel_module() -> ModuleType | None:
    """`suspension_sim.solve.kernel` (imports numba), or None when numba is missing."""
    try:
        from suspension_sim.solve import kernel
    except ImportError:  # pragma: no cover - numba is a dependency
        return None
    return kernel


def compiled_available() -> bool:
    """True when numba can be imported (the compiled path can run)."""
    return kernel_module() is not None


@dataclass(frozen=True)
class KernelTables:
    """Flat arrays the compiled kernel reads (see `kernel.eval_block`), per model."""

    arrays: tuple[np.ndarray, ...]
    n_blocks: int  # including the last block of loose rows
    max_rows: int
    max_cols: int
    n_params: int
    inputs: np.ndarray
    k_max: int
    n_parts: int
    n_inst: int


def kernel_tables(model: KinematicModel) -> KernelTables:
    """The model's kernel tables (cached per model)."""
    return model.derived.get("engine_kernel_tables", lambda: _build_tables(model))


def _build_tables(model: KinematicModel) -> KernelTables:
    pl = plan(model)
    parts = model.parts
    K = max(model.kmax, 1)
    p_nj = np.array([len(SIGNATURES[p.chain]) for p in parts], dtype=np.int64)
    p_kind = np.zeros((len(parts), K), dtype=np.int64)
    p_axis = np.zeros((len(parts), K, 3))
    p_param = np.zeros((len(parts), K), dtype=np.int64)
    for i, part in enumerate(parts):
        for j, (kind, axis) in enumerate(SIGNATURES[part.chain]):
            p_kind[i, j] = 1 if kind == "P" else 0
            p_axis[i, j] = _AXIS[axis]
            p_param[i, j] = part.params[j]
    p_frame = np.ascontiguousarray(model.frame[:, :3, :])
    act = model.active_pairs
    lay = pl.layout
    c_param: list[np.ndarray] = []
    r_a: list[np.ndarray] = []
    r_b: list[np.ndarray] = []
    r_axis: list[np.ndarray] = []
    pa: list[np.ndarray] = []
    ins: list[np.ndarray] = []
    e_cols: list[np.ndarray] = []
    e_rows: list[np.ndarray] = []
    e_idx: list[np.ndarray] = []
    groups = [(blk.rows, blk.params, blk) for blk in pl.blocks] + [
        (pl.loose_rows, np.zeros(0, dtype=int), None)
    ]
    for rows, params, blk in groups:
        pair = act[rows // 3]
        ia, ib = model.pair_a[pair], model.pair_b[pair]
        insts = np.unique(np.concatenate([ia, ib]))
        c_param.append(params)
        r_a.append(ia)
        r_b.append(ib)
        r_axis.append(rows % 3)
        ins.append(insts)
        pa.append(np.unique(model.inst_part[insts]))
        if blk is None:
            e_idx.append(np.zeros(0, dtype=int))
            e_rows.append(np.zeros(0, dtype=int))
            e_cols.append(np.zeros(0, dtype=int))
            continue
        e_idx.append(np.concatenate([blk.entries, blk.in_entries]))
        e_rows.append(np.concatenate([blk.entry_row, blk.in_row]))
        e_cols.append(np.concatenate([blk.entry_col, -1 - blk.in_col]))
    ent = np.concatenate(e_idx).astype(np.int64)

    def ptr(parts_: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(x) for x in parts_])]).astype(np.int64)

    def cat(parts_: list[np.ndarray]) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate(parts_), dtype=np.int64)

    arrays = (
        p_nj,
        p_kind,
        p_axis,
        p_param,
        p_frame,
        model.inst_part.astype(np.int64),
        np.ascontiguousarray(model.inst_local, dtype=float),
        ptr(c_param),
        cat(c_param),
        ptr(r_a),
        cat(r_a),
        cat(r_b),
        cat(r_axis),
        ptr(pa),
        cat(pa),
        ptr(ins),
        cat(ins),
        ptr(e_idx),
        cat(e_rows),
        cat(e_cols),
        lay.inst[ent].astype(np.int64),
        lay.slot[ent].astype(np.int64),
        lay.axis[ent].astype(np.int64),
        np.ascontiguousarray(lay.sign[ent], dtype=float),
        *_plain_rows(sum(len(x) for x in r_a), len(groups)),
    )
    return KernelTables(
        arrays=arrays,
        n_blocks=len(groups),
        max_rows=max((len(g[0]) for g in groups), default=0),
        max_cols=max((len(g[1]) for g in groups), default=0),
        n_params=model.n_params,
        inputs=pl.inputs.astype(np.int64),
        k_max=K,
        n_parts=len(parts),
        n_inst=len(model.inst_part),
    )


def _plain_rows(n_rows: int, n_groups: int) -> tuple[np.ndarray, ...]:
    """The extra table arrays of tables whose rows are all axis rows and that eliminate
    no link: row kind 0, length 0, no stroke term; no link to rebuild in any block."""
    return (
        np.zeros(n_rows, dtype=np.int64),
        np.zeros(n_rows),
        np.zeros(n_rows),
        np.full(n_rows, -1, dtype=np.int64),
        np.zeros(n_groups + 1, dtype=np.int64),
        *(np.zeros(0, dtype=np.int64) for _ in range(4)),
        np.zeros(n_groups + 1, dtype=np.int64),
        *(np.zeros(0, dtype=np.int64) for _ in range(3)),
        np.zeros(n_groups + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(n_groups + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )


LINK_CHAINS = ("link5", "universal", "damper_rod")
"""Part chains that a batch solve can replace by one distance row between their ends: a
two-point link (5 coordinates), a two-point link on a chassis point (universal), a
damper's rod (its stroke an input)."""


@dataclass(frozen=True)
class _Link:
    part: int  # the link's part
    kind: int  # 0: link5 (translations + angles), 1: angles only (origin on the chassis)
    ends: tuple[str, str]  # point at the frame's origin, point along its z axis
    length: float  # design distance between the ends, mm
    stroke: int  # the damper's stroke parameter, or -1


def reduced_tables(model: KinematicModel) -> KernelTables | None:
    """Kernel tables with every eligible two-point link eliminated (cached per model).

    A ball-ended pushrod or tie rod, a link from a chassis point, a damper between a
    chassis point and one moving point: its coordinates only place the link itself,
    and its joined ends' three coincidence rows each come down to one equation,
    |P_b - P_a| = L (L - stroke for a damper), on the copies of its end points on
    the bodies it joins. The blocks lose those unknowns (21 -> 9 on the example car's
    corners) and `kernel.rebuild_links` sets the links' coordinates from their ends
    after each state. None when nothing can be eliminated or the reduced problem does
    not split into the plan's blocks.
    """
    return model.derived.get("engine_reduced_tables", lambda: _build_reduced(model))


def _links(model: KinematicModel, inputs: set[int]) -> dict[int, _Link]:
    """The eligible links by part (see `reduced_tables`)."""
    pts = model.car.point_map()
    fixed_names = {
        model.inst_point[i] for i in range(len(model.inst_part)) if model.inst_part[i] == 0
    }
    out: dict[int, _Link] = {}
    for i, part in enumerate(model.parts):
        if part.chain not in LINK_CHAINS:
            continue
        if part.chain == "link5" and len(part.points) == 2:
            ends = (part.points[0], part.points[1])
            kind, stroke = 0, -1
        elif part.chain == "universal" and len(part.points) == 2:
            origin = part.frame[:3, 3]
            first = min(part.points, key=lambda p: float(np.linalg.norm(pts[p] - origin)))
            other = next(p for p in part.points if p != first)
            ends = (first, other)
            kind, stroke = 1, -1
        elif part.chain == "damper_rod" and len(part.points) == 1:
            origin = part.frame[:3, 3]
            chassis = [p for p in fixed_names if np.linalg.norm(pts[p] - origin) < 1e-9]
            if len(chassis) != 1 or part.params[2] not in inputs:
                continue
            ends = (chassis[0], part.points[0])
            kind, stroke = 1, part.params[2]
        else:
            continue
        if kind == 1 and ends[0] not in fixed_names:
            continue
        if np.linalg.norm(pts[ends[0]] - part.frame[:3, 3]) > 1e-9:
            continue  # the frame's origin must be the first end
        out[i] = _Link(i, kind, ends, float(np.linalg.norm(pts[ends[1]] - pts[ends[0]])), stroke)
    return out


def _build_reduced(model: KinematicModel) -> KernelTables | None:
    pl = plan(model)
    full = kernel_tables(model)
    p_nj, p_param = full.arrays[0], full.arrays[3]
    inputs = [int(k) for k in pl.inputs]
    in_col = {k: j for j, k in enumerate(inputs)}
    links = _links(model, set(inputs))
    # A link needs a copy of each end on a body that stays (iterate: links on links).
    dropped: set[int] = set()
    while True:
        elim = {i for i in links if i not in dropped}
        gone = set(elim)
        gone |= {
            j
            for j, part in enumerate(model.parts)
            if part.params and any(set(part.params) <= set(model.parts[i].params) for i in elim)
        }
        keep = [i for i in range(len(model.inst_part)) if int(model.inst_part[i]) not in gone]
        copies: dict[str, list[int]] = {}
        for i in keep:
            copies.setdefault(model.inst_point[i], []).append(i)
        bad = {i for i in elim if any(e not in copies for e in links[i].ends)}
        if not bad:
            break
        dropped |= bad
    if not elim:
        return None
    gone_params = {k for i in elim for k in model.parts[i].params if k not in in_col}
    block_of: dict[int, int] = {}
    for b, blk in enumerate(pl.blocks):
        for k in blk.params:
            if int(k) not in gone_params:
                block_of[int(k)] = b
    # Which copies move at all (as `KinematicModel._active_pairs` judges pairs).
    rng = np.random.default_rng(0)
    P, _ = model.instance_positions(rng.uniform(-0.5, 0.5, size=(model.n_params, 3)), False)
    moves = np.abs(P - model.inst_design[:, :, None]).max(axis=(1, 2)) > 1e-6
    fixed = model.inst_part < model.n_fixed_parts
    # rows: (a, b, axis, kind, length, stroke parameter)
    rows: list[tuple[int, int, int, int, float, int]] = []
    for cs in copies.values():
        ref = cs[0]
        for c in cs[1:]:
            if not (moves[ref] or moves[c]) and (fixed[ref] or fixed[c]):
                continue
            rows += [(ref, c, ax, 0, 0.0, -1) for ax in range(3)]
    x_of: dict[int, tuple[int, int, int]] = {}  # link part -> (its row, end a copy, end b copy)
    for i in sorted(elim):
        lk = links[i]
        a, e = copies[lk.ends[0]][0], copies[lk.ends[1]][0]
        x_of[i] = (len(rows), a, e)
        rows.append((a, e, 0, 1, lk.length, lk.stroke))

    def unknowns(row: tuple[int, int, int, int, float, int]) -> set[int]:
        out = set()
        for inst in row[:2]:
            part = int(model.inst_part[inst])
            out |= {int(p_param[part, j]) for j in range(int(p_nj[part]))} - set(in_col)
        if row[5] >= 0 and row[5] not in in_col:
            out.add(row[5])
        return out

    n_b = len(pl.blocks)
    rows_of: list[list[int]] = [[] for _ in range(n_b + 1)]
    for k, row in enumerate(rows):
        ks = unknowns(row)
        if any(u in gone_params or u not in block_of for u in ks):
            return None
        bs = {block_of[u] for u in ks}
        if len(bs) > 1:
            return None
        rows_of[bs.pop() if bs else n_b].append(k)
    cols_of = [
        np.array([int(k) for k in blk.params if int(k) not in gone_params], dtype=np.int64)
        for blk in pl.blocks
    ] + [np.zeros(0, dtype=np.int64)]
    if any(len(rows_of[b]) < len(cols_of[b]) for b in range(n_b)):
        return None

    arr: dict[str, list[Any]] = {k: [] for k in ("c", "ra", "rb", "ax", "kd", "ln", "cf", "pr")}
    pa: list[np.ndarray] = []
    ins: list[np.ndarray] = []
    ent: dict[str, list[Any]] = {k: [] for k in ("row", "col", "inst", "slot", "axis", "sign")}
    e_ptr = [0]
    x_ptr = [0]
    xs: dict[str, list[int]] = {k: [] for k in ("part", "kind", "a", "b")}
    xs_part_of: list[list[int]] = [[] for _ in range(n_b + 1)]
    for b in range(n_b + 1):
        local = {int(k): j for j, k in enumerate(cols_of[b])}
        arr["c"].append(cols_of[b])
        chosen = [rows[k] for k in rows_of[b]]
        insts: set[int] = set()
        for lr, (ia, ib, ax, kd, ln, st) in enumerate(chosen):
            arr["ra"].append(ia)
            arr["rb"].append(ib)
            arr["ax"].append(ax)
            arr["kd"].append(kd)
            arr["ln"].append(ln)
            arr["cf"].append(1.0 if st >= 0 else 0.0)
            arr["pr"].append(st)
            insts |= {ia, ib}
            if b == n_b:
                continue
            for inst, sign in ((ia, -1.0), (ib, 1.0)):
                part = int(model.inst_part[inst])
                for j in range(int(p_nj[part])):
                    k = int(p_param[part, j])
                    col = local[k] if k in local else -1 - in_col[k]
                    for axis in (ax,) if kd == 0 else (0, 1, 2):
                        ent["row"].append(lr)
                        ent["col"].append(col)
                        ent["inst"].append(inst)
                        ent["slot"].append(j)
                        ent["axis"].append(axis)
                        ent["sign"].append(sign)
            if st >= 0:  # d(|P_b - P_a| - L + stroke)/d stroke = 1
                ent["row"].append(lr)
                ent["col"].append(local[st] if st in local else -1 - in_col[st])
                ent["inst"].append(-1)
                ent["slot"].append(0)
                ent["axis"].append(0)
                ent["sign"].append(1.0)
        e_ptr.append(len(ent["row"]))
        inst_arr = np.array(sorted(insts), dtype=np.int64)
        ins.append(inst_arr)
        pa.append(np.unique(model.inst_part[inst_arr]).astype(np.int64))
        for i in sorted(elim):
            row_k, a, e = x_of[i]
            if row_k in rows_of[b]:
                xs_part_of[b].append(i)
                xs["part"].append(i)
                xs["kind"].append(links[i].kind)
                xs["a"].append(a)
                xs["b"].append(e)
        x_ptr.append(len(xs["part"]))

    def ptr(xs_: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(x) for x in xs_])]).astype(np.int64)

    def i64(x: list[Any]) -> np.ndarray:
        return np.ascontiguousarray(np.array(x, dtype=np.int64).reshape(-1))

    def f64(x: list[Any]) -> np.ndarray:
        return np.ascontiguousarray(np.array(x, dtype=float).reshape(-1))

    # The model's own rows that involve a copy on an eliminated part, with the block of
    # that part's link (`kernel.link_rows` checks them after the links are rebuilt).
    owner = {int(p): b for b in range(n_b + 1) for p in xs_part_of[b]}
    for i in sorted(elim):
        for j, other in enumerate(model.parts):
            if j in gone and j not in owner and set(other.params) <= set(model.parts[i].params):
                owner[j] = owner[i]
    act = model.active_pairs
    checks: list[list[tuple[int, int, int]]] = [[] for _ in range(n_b + 1)]
    for pair in act:
        a, e = int(model.pair_a[pair]), int(model.pair_b[pair])
        parts_ = [int(model.inst_part[a]), int(model.inst_part[e])]
        mine = [owner[p] for p in parts_ if p in owner]
        if mine:
            checks[mine[0]] += [(a, e, ax) for ax in range(3)]
    k_parts = [sorted({p for p, b in owner.items() if b == g}) for g in range(n_b + 1)]
    k_insts = [
        np.flatnonzero(np.isin(model.inst_part, k_parts[g])).astype(np.int64)
        for g in range(n_b + 1)
    ]
    rows_per = [len(r) for r in rows_of]
    arrays = (
        *full.arrays[:7],
        ptr(arr["c"]),
        i64(np.concatenate(arr["c"]).tolist()),
        np.concatenate([[0], np.cumsum(rows_per)]).astype(np.int64),
        i64(arr["ra"]),
        i64(arr["rb"]),
        i64(arr["ax"]),
        ptr(pa),
        i64(np.concatenate(pa).tolist()),
        ptr(ins),
        i64(np.concatenate(ins).tolist()),
        np.array(e_ptr, dtype=np.int64),
        i64(ent["row"]),
        i64(ent["col"]),
        i64(ent["inst"]),
        i64(ent["slot"]),
        i64(ent["axis"]),
        f64(ent["sign"]),
        i64(arr["kd"]),
        f64(arr["ln"]),
        f64(arr["cf"]),
        i64(arr["pr"]),
        np.array(x_ptr, dtype=np.int64),
        i64(xs["part"]),
        i64(xs["kind"]),
        i64(xs["a"]),
        i64(xs["b"]),
        ptr([np.array(c) for c in checks]),
        i64([a for c in checks for a, _, _ in c]),
        i64([e for c in checks for _, e, _ in c]),
        i64([ax for c in checks for _, _, ax in c]),
        ptr([np.array(p) for p in k_parts]),
        i64([p for ps in k_parts for p in ps]),
        ptr(k_insts),
        i64(np.concatenate(k_insts).tolist()),
    )
    return KernelTables(
        arrays=arrays,
        n_blocks=n_b + 1,
        max_rows=max(rows_per, default=0),
        max_cols=max((len(c) for c in cols_of), default=0),
        n_params=model.n_params,
        inputs=full.inputs,
        k_max=full.k_max,
        n_parts=full.n_parts,
        n_inst=full.n_inst,
    )


def _work(tab: KernelTables) -> tuple[tuple[np.ndarray, ...], tuple[Any, ...]]:
    """Fresh work arrays (W) and per-block storage (S) for kernel runs.

    S holds each block's last factorisation (F = R and the Householder vectors
    of J^T, tau, the input columns Fin, a usable flag) and scratch vectors; see
    `kernel.solve_block`.
    """
    m, n, nb, n_in = max(tab.max_rows, 1), max(tab.max_cols, 1), tab.n_blocks, len(tab.inputs)
    W = (
        np.zeros((tab.n_parts, 3, 4)),
        np.zeros((tab.n_parts, tab.k_max, 3)),
        np.zeros((tab.n_parts, tab.k_max, 3)),
        np.zeros((tab.n_inst, 3)),
        np.zeros((tab.n_inst, tab.k_max, 3)),
        np.zeros((m, 3)),  # unit vectors of distance rows (`kernel.eval_block`)
    )
    S = (
        np.zeros((nb, n, m)),
        np.zeros((nb, n)),
        np.zeros((nb, m, max(n_in, 1))),
        np.zeros(nb, dtype=np.bool_),
        np.zeros(m),
        np.zeros(m),
        np.zeros((n, m)),
        np.zeros((m, max(n_in, 1))),
        np.zeros(m),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros((nb, n)),
        np.zeros((nb, m)),
        np.zeros(nb, dtype=np.bool_),
        np.zeros(n),
        np.zeros(m),
        np.zeros((nb, n, m)),
        np.zeros(n),
        np.zeros(m),
        np.zeros(max(n, m), dtype=np.int64),  # pivots (`kernel.invert`)
    )
    return W, S


class KernelSession:
    """The compiled kernel's state for one model, kept between calls.

    Each block's last factorisation survives from one call to the next, so a
    warm single solve (a sweep step, the next log sample) starts with cheap
    chord steps instead of a fresh Jacobian. A lock keeps one thread at a time
    on the shared work arrays; a second thread gets fresh ones.
    """

    def __init__(self, model: KinematicModel, tables: KernelTables | None = None) -> None:
        self.tables = kernel_tables(model) if tables is None else tables
        self.W, self.S = _work(self.tables)
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
                out, self._entry = _run_kernel(
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
        W, S = _work(self.tables)
        counts = np.zeros(2, np.int64)
        return _run_kernel(U, q0, self.tables, W, S, counts, target, max_iter, None, fresh)[0]

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
        hist = _NO_HISTORY if history is None else np.ascontiguousarray(history, dtype=float)
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
            W, S = _work(self.tables)
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


def _call_entry(entry: list[Any], disp: Any, args: tuple[Any, ...]) -> Any:
    """Call a kernel function through its compiled entry point (no numba dispatch,
    which costs ~100 us typing the tables' tuple); the first call goes through the
    dispatcher and keeps the entry point in `entry` (one per kept work arrays).
    Returns what the function returns."""
    if entry:
        return entry[0](*args)
    out = disp(*args)
    entry.append(disp.overloads[tuple(disp.typeof_pyval(a) for a in args)].entry_point)
    return out


def chassis_points_compiled(model: KinematicModel, params: np.ndarray) -> np.ndarray:
    """Chassis-frame positions of every point copy, (N, n_inst, 3) mm, for parameter rows
    params (N, n_params), by the compiled kernel (the numpy reference is
    `KinematicModel.instance_positions`)."""
    k = kernel_module()
    assert k is not None
    tab = kernel_tables(model)
    entry: list[Any]
    W, parts, insts, lock, entry = model.derived.get(
        "engine_points_work",
        lambda: (
            _work(tab)[0],
            np.arange(tab.n_parts, dtype=np.int64),
            np.arange(tab.n_inst, dtype=np.int64),
            threading.Lock(),
            [],
        ),
    )
    out = np.empty((len(params), tab.n_inst, 3))
    Q = np.ascontiguousarray(params, dtype=float)
    if lock.acquire(blocking=False):  # the kept work arrays, one thread at a time
        try:
            _call_entry(entry, k.chassis_points, (Q, tab.arrays, W, parts, insts, out))
        finally:
            lock.release()
    else:
        k.chassis_points(Q, tab.arrays, _work(tab)[0], parts, insts, out)
    return out


def body_spread_compiled(
    model: KinematicModel, Q: np.ndarray, ratio: float, floor_mm: float
) -> tuple[np.ndarray, bool]:
    """Per body (in the order of first appearance in `model.inst_body`), the largest
    distance between the same point copy in parameter rows 1 and 0, 2 and 0, 2 and 1 of
    Q (3, n_params): (n_bodies, 3), chassis frame, mm (`kernel.body_spread`; the numpy
    reference is `continuation._body_distances`); and whether every body's distance
    between rows 2 and 1 is at most ratio * its distance between rows 1 and 0 +
    floor_mm (the branch screen's pass, with its constants)."""
    k = kernel_module()
    assert k is not None
    tab = kernel_tables(model)

    def build() -> tuple[Any, ...]:
        names = list(dict.fromkeys(model.inst_body))
        index = {b: i for i, b in enumerate(names)}
        body = np.array([index[b] for b in model.inst_body], dtype=np.int64)
        moving = np.flatnonzero(tab.arrays[0] > 0)  # parts with joints (the rest are fixed)
        return (
            _work(tab)[0],
            moving.astype(np.int64),
            np.flatnonzero(np.isin(model.inst_part, moving)).astype(np.int64),
            body,
            len(names),
            *_spread_memo(tab),
            threading.Lock(),
            [],
        )

    W, parts, insts, body, n_bodies, memo_q, memo_P, lock, entry = model.derived.get(
        "engine_spread_work", build
    )
    out = np.empty((n_bodies, 3))
    Q = np.ascontiguousarray(Q, dtype=float)
    if Q.shape != (3, tab.n_params):
        raise ValueError(f"body_spread_compiled takes (3, {tab.n_params}) rows, not {Q.shape}")
    T7 = tab.arrays[:7]  # all it reads (fewer arrays to hand over per call)
    args: tuple[Any, ...]
    if lock.acquire(blocking=False):
        try:
            args = (Q, T7, W, parts, insts, body, float(ratio), float(floor_mm))
            clear = _call_entry(entry, k.body_spread, (*args, memo_q, memo_P, out))
        finally:
            lock.release()
    else:  # another thread has the kept arrays: fresh ones, nothing remembered
        args = (Q, T7, _work(tab)[0], parts, insts, body, float(ratio), float(floor_mm))
        clear = k.body_spread(*args, *_spread_memo(tab), out)
    return out, bool(clear)


def _spread_memo(tab: KernelTables) -> tuple[np.ndarray, np.ndarray]:
    """Empty memo arrays of `kernel.body_spread` (last row 2 and its copies; unset)."""
    return np.zeros(tab.n_params + 1), np.zeros((tab.n_inst, 3))


def tangents_compiled(
    model: KinematicModel, Q: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point copies P (n_inst, 3, S), their PoE derivatives dP (n_inst, K, 3, S) and the
    input tangents dq/du (S, n_params, n_inputs) at closed states Q (n_params, S), by the
    compiled kernel: the layouts of `KinematicModel.instance_positions` and of
    `metrics.batch.input_tangents` (the numpy reference). NaN tangents for a state with
    a singular block."""
    k = kernel_module()
    assert k is not None
    tab = kernel_tables(model)
    W, S = _work(tab)
    N = Q.shape[1]
    n_in = len(tab.inputs)
    P = np.empty((N, tab.n_inst, 3))
    dP = np.empty((N, tab.n_inst, tab.k_max, 3))
    T = np.zeros((N, tab.n_params, n_in))
    k.batch_tangents(
        np.ascontiguousarray(Q.T, dtype=float),
        np.arange(n_in, dtype=np.int64),
        tab.arrays,
        W,
        S,
        np.arange(tab.n_parts, dtype=np.int64),
        np.arange(tab.n_inst, dtype=np.int64),
        P,
        dP,
        T,
    )
    T[:, tab.inputs, np.arange(n_in)] = 1.0
    return P.transpose(1, 2, 0), dP.transpose(1, 2, 3, 0), T


@dataclass(frozen=True)
class TargetTables:
    """Targets laid out for `kernel.solve_single` (see `kernel.eval_targets`): per block
    its target rows and freed inputs, sorted by block."""

    arrays: tuple[np.ndarray, ...]
    freed: np.ndarray  # parameter index of each freed input


@dataclass(frozen=True)
class _TargetLayout:
    """The part of `TargetTables` fixed by the model and the targets' kinds and places."""

    order: np.ndarray  # target rows sorted by block
    contact: np.ndarray  # (n,) bool, in that order
    arrays: tuple[np.ndarray, ...]  # tb_ptr, kind, i, j, then t_cols, t_in, parts, insts
    freed: np.ndarray  # parameter index of the input each target row frees, in that order


def no_targets(model: KinematicModel) -> TargetTables:
    """Empty target tables (a plain single solve by `kernel.solve_single`)."""

    def build() -> TargetTables:
        tab = kernel_tables(model)
        return _assemble(_empty_layout(tab.n_blocks, tab.k_max), np.zeros((0, 3)), np.zeros(0))

    return model.derived.get("engine_no_targets", build)


def _empty_layout(n_blocks: int, k_max: int) -> _TargetLayout:
    z = np.zeros(0, dtype=np.int64)
    ptr = np.zeros(n_blocks + 1, dtype=np.int64)
    arrays = (ptr, z, z, z, np.zeros((0, 2, k_max), dtype=np.int64), z, ptr, z, ptr, z)
    return _TargetLayout(z, np.zeros(0, dtype=bool), arrays, z)


def _assemble(
    lay: _TargetLayout,
    g: np.ndarray,
    off: np.ndarray,
    rad: np.ndarray | None = None,
    val: np.ndarray | None = None,
) -> TargetTables:
    n = len(lay.order)
    ptr, kind, ti, tj, cols, t_in, tp_ptr, tp_idx, ti_ptr, ti_idx = lay.arrays
    arrays = (
        ptr,
        kind,
        ti,
        tj,
        np.ascontiguousarray(g, dtype=float).reshape(n, 3),
        np.ascontiguousarray(off, dtype=float),
        np.ascontiguousarray(np.zeros(n) if rad is None else rad, dtype=float),
        np.ascontiguousarray(np.zeros(n) if val is None else val, dtype=float),
        cols,
        t_in,
        tp_ptr,
        tp_idx,
        ti_ptr,
        ti_idx,
    )
    return TargetTables(arrays, np.zeros(0, dtype=np.int64))


def target_tables(model: KinematicModel, targets: CompiledTargets) -> TargetTables | None:
    """The targets laid out for the kernel, or None when some target is not a function
    of one block whose freed inputs act on that block alone (the caller then takes
    the reference path). The freed inputs are those the targets' keys name."""
    sig = ("engine_target_layout", targets.signature)
    lay = model.derived.get(sig, lambda: _target_layout(model, targets))
    if lay is None:
        return None
    o = lay.order
    c = lay.contact
    g = targets.g[o]
    off = targets.offset[o]
    g[c] = targets.R[2]
    off[c] = targets.t[2]
    a = lay.arrays
    arrays = (*a[:4], g, off, targets.radius[o], targets.value[o], *a[4:])
    return TargetTables(arrays, lay.freed)


def _target_layout(model: KinematicModel, targets: CompiledTargets) -> _TargetLayout | None:
    from suspension_sim.solve.inputs import input_param

    freed = tuple(int(input_param(model, key)) for key in targets.keys)
    pl = plan(model)
    tab = kernel_tables(model)
    n_u = len(pl.unknowns)
    if len(freed) != len(targets.targets) or len(set(freed)) != len(freed):
        return None
    block_of = np.full(model.n_params, -1)
    col_of = np.full(model.n_params, -1)
    for b, blk in enumerate(pl.blocks):
        block_of[blk.params] = b
        col_of[blk.params] = np.arange(len(blk.params))
    input_pos = {int(p): k for k, p in enumerate(pl.inputs)}
    # Each freed input must act on one block only (all its Jacobian entries there).
    freed_block = []
    for f in freed:
        if f not in input_pos:
            return None
        k = input_pos[f]
        total = int(np.count_nonzero(pl.layout.indices == n_u + k))
        hit = [b for b, blk in enumerate(pl.blocks) if np.any(blk.in_col == k)]
        if len(hit) != 1 or int(np.count_nonzero(pl.blocks[hit[0]].in_col == k)) != total:
            return None
        freed_block.append(hit[0])
    # Each target must be a function of one block's unknowns (and held or freed inputs).
    t_block = []
    for t in range(len(targets.targets)):
        insts = (targets.i[t], targets.j[t]) if targets.is_contact[t] else (targets.i[t],)
        params = {int(p) for inst in insts for p in model.inst_slots[inst] if p >= 0}
        blocks = {int(block_of[p]) for p in params if block_of[p] >= 0}
        if len(blocks) != 1:
            return None
        b = blocks.pop()
        for p in params:
            if block_of[p] < 0 and p in freed and freed_block[freed.index(p)] != b:
                return None
        t_block.append(b)
    nb = tab.n_blocks
    if sorted(t_block) != sorted(freed_block):  # square bordered blocks
        return None
    if any(len(pl.blocks[b].rows) != len(pl.blocks[b].params) for b in t_block):
        return None  # a tall block (redundant joints): least squares, the reference path
    order = np.argsort(np.asarray(t_block), kind="stable")
    blocks_sorted = np.asarray(t_block)[order]
    ptr = np.searchsorted(blocks_sorted, np.arange(nb + 1)).astype(np.int64)
    # The freed inputs of each block, in the order of its bordered columns.
    t_in = np.zeros(len(order), dtype=np.int64)
    border: dict[int, list[int]] = {}
    for b in range(nb):
        fs = sorted(f for f, fb in zip(freed, freed_block, strict=True) if fb == b)
        border[b] = fs
        t_in[ptr[b] : ptr[b + 1]] = [input_pos[f] for f in fs]
    K = tab.k_max
    cols = np.full((len(order), 2, K), -1, dtype=np.int64)
    parts: list[np.ndarray] = []
    insts_all: list[np.ndarray] = []
    for b in range(nb):
        ins = []
        for row in range(ptr[b], ptr[b + 1]):
            t = order[row]
            n_b = len(pl.blocks[b].params)
            for side, inst in enumerate((targets.i[t], targets.j[t])):
                ins.append(int(inst))
                for s, p in enumerate(model.inst_slots[inst][:K]):
                    if p < 0:
                        continue
                    if block_of[p] == b:
                        cols[row, side, s] = col_of[p]
                    elif int(p) in border[b]:
                        cols[row, side, s] = n_b + border[b].index(int(p))
        u = np.unique(np.asarray(ins, dtype=np.int64))
        insts_all.append(u)
        parts.append(np.unique(model.inst_part[u]).astype(np.int64))

    def ptr_of(xs: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(x) for x in xs])]).astype(np.int64)

    def cat(xs: list[np.ndarray]) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate(xs), dtype=np.int64)

    arrays = (
        ptr,
        targets.is_contact[order].astype(np.int64),
        np.asarray(targets.i, dtype=np.int64)[order],
        np.asarray(targets.j, dtype=np.int64)[order],
        cols,
        t_in,
        ptr_of(parts),
        cat(parts),
        ptr_of(insts_all),
        cat(insts_all),
    )
    return _TargetLayout(
        order, targets.is_contact[order].copy(), arrays, np.asarray(freed, dtype=np.int64)[order]
    )


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


def kernel_on_disk() -> bool:
    """True when a complete compile of the kernels is in this user's private code
    folder and belongs to this package (`solve.warmup.on_disk`: a manifest written
    after the whole compile, every file present), so loading it takes well under a
    second instead of a compile. Never imports numba."""
    from suspension_sim.solve import warmup

    return warmup.on_disk()


def load_kernel_if_cached() -> bool:
    """Load the compiled kernel when a complete compile is on disk (its files verified
    first); True when it is ready in this process afterwards. Not on disk: a background
    compile is started (`solve.warmup.start_background`) and False returned at once. A
    cache that fails to load is forgotten and recompiled in the background; this
    process keeps the numpy path. Tried once per process."""
    global _LOAD_TRIED, _READY
    if _LOAD_TRIED:
        return kernel_compiled()
    _LOAD_TRIED = True  # before asking: `kernel_compiled` may call here
    if kernel_compiled():
        return True
    from suspension_sim.solve import warmup

    if not warmup.verified():
        if warmup.on_disk():  # listed but damaged: forget it, compile again
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
    return True


def kernel_compiled() -> bool:
    """True once the kernel is compiled (or loaded from the disk cache) in this process.

    Never imports numba itself (that alone costs ~0.3 s), and answers from a
    flag once true: numba's own signature list is slow to build. From the start of a
    process's second solve (`LOAD_AT_QUESTION`), once it has been solving for
    `LOAD_AFTER_S`, it loads the kernel if a complete compile is on disk, or starts the
    background compile (`load_kernel_if_cached`): the first pose never waits, a loop of
    solves turns compiled.
    """
    global _READY, _QUESTIONS, _FIRST_ASKED
    if not _READY:
        k = sys.modules.get("suspension_sim.solve.kernel")
        _READY = (
            k is not None and bool(k.solve_sequence.signatures) and bool(k.solve_single.signatures)
        )
        if not _READY and not _LOAD_TRIED:
            now = time.perf_counter()
            if _QUESTIONS == 0:
                _FIRST_ASKED = now
            _QUESTIONS += 1
            if _QUESTIONS >= LOAD_AT_QUESTION and now - _FIRST_ASKED >= LOAD_AFTER_S:
                load_kernel_if_cached()
    return _READY


def compile_kernel() -> float:
    """Compile the kernel now, or load it from the disk cache (once per process);
    returns the seconds it took (0 if done). While another process compiles the
    kernels (`solve.warmup`), waits for it and loads its work instead of compiling."""
    k = kernel_module()
    if k is None:
        raise RuntimeError("numba is not installed: the compiled batch path is unavailable")
    if k.solve_sequence.signatures and k.solve_single.signatures:
        return 0.0
    t0 = time.perf_counter()
    from suspension_sim.solve import warmup

    # Under the compile lock: while another process compiles, wait for it (said in one
    # line) and load its work; never compile beside it into the folder it publishes to.
    # A lock that cannot be taken at all (a file system without locks) still compiles:
    # the caller asked for the compiled path.
    with warmup.foreground_compile():
        if warmup.on_disk() and not warmup.verified():
            _drop_disk_cache(k)  # damaged: never hand it to numba; compile afresh
        try:
            for _, step, _ in kernel_steps():
                step()
        except Exception as exc:  # numba could not read its cache (a damaged index)
            if not k.CACHED:
                raise
            _drop_disk_cache(k)
            warmup.say_once(
                f"the compiled kernels on disk could not be loaded ({type(exc).__name__}); "
                "compiling them again"
            )
            for _, step, _ in kernel_steps():
                step()
    return time.perf_counter() - t0


def _drop_disk_cache(k: ModuleType) -> None:
    """Forget the kernels' compile on disk: the manifest and numba's index of every
    kernel function (numba then compiles and writes them anew)."""
    from suspension_sim.solve import warmup

    warmup.drop_compiled()  # the other kernels' too: they were compiled with it
    for value in vars(k).values():
        cache_ = getattr(value, "_cache", None)
        if cache_ is not None and hasattr(cache_, "flush"):
            with contextlib.suppress(OSError):
                cache_.flush()


def kernel_steps() -> list[tuple[str, Callable[[], object], float]]:
    """The kernel's compile, function by function, as (name, call, rough share of the
    time): each call runs one kernel function on empty tables of the types every car's
    tables have, which compiles it (or loads it from the disk cache). Every kernel
    function Python calls is here, so that none is compiled later in a user's process."""
    k = kernel_module()
    if k is None:  # pragma: no cover - numba is a dependency
        raise RuntimeError("numba is not installed: the compiled batch path is unavailable")
    tab = _dummy_tables()
    W, S = _work(tab)
    one = np.zeros(1, dtype=np.int64)
    tt = _assemble(_empty_layout(tab.n_blocks, tab.k_max), np.zeros((0, 3)), np.zeros(0))

    def sequence() -> None:
        _run_kernel(np.zeros((1, 1)), np.zeros(1), tab, W, S, np.zeros(2, np.int64), 1e-10, 1)

    def single() -> None:
        k.solve_single(
            np.zeros(1),
            np.zeros(1),
            tab.inputs,
            tab.arrays,
            W,
            S,
            tt.arrays,
            1e-10,
            1,
            np.zeros(2, np.int64),
            np.zeros(1),
            _NO_HISTORY,
        )

    def chassis() -> None:
        k.chassis_points(np.zeros((1, 1)), tab.arrays, W, one, one, np.zeros((1, 1, 3)))

    def world() -> None:
        k.world_points(
            np.zeros((1, 1)),
            tab.arrays,
            W,
            one,
            one,
            one,
            np.array([0, 1], dtype=np.int64),
            np.zeros((1, 3, 3)),
            np.zeros((1, 3)),
            np.zeros((1, 1, 3)),
        )

    def spread() -> None:
        k.body_spread(
            np.zeros((3, 1)),
            tab.arrays[:7],
            W,
            one,
            one,
            np.zeros(1, dtype=np.int64),
            0.5,
            0.5,
            np.zeros(2),
            np.zeros((1, 3)),
            np.zeros((1, 3)),
        )

    def tangents() -> None:
        k.batch_tangents(
            np.zeros((1, 1)),
            one,
            tab.arrays,
            W,
            S,
            one,
            one,
            np.zeros((1, 1, 3)),
            np.zeros((1, 1, 1, 3)),
            np.zeros((1, 1, 1)),
        )

    def slopes() -> None:  # `by_engine.solve_targets_by_engine`
        k.points_and_slopes(
            np.zeros(1), tab.arrays, W, one, one, np.zeros((1, 3)), np.zeros((1, 1, 3))
        )

    return [
        ("solve_sequence", sequence, 30.0),
        ("solve_single", single, 30.0),
        ("chassis_points", chassis, 2.0),
        ("world_points", world, 2.0),
        ("body_spread", spread, 3.0),
        ("batch_tangents", tangents, 5.0),
        ("points_and_slopes", slopes, 2.0),
    ]


def _dummy_tables() -> KernelTables:
    """Tables of an empty problem, of the right types (only used to compile)."""
    i0 = np.zeros(1, dtype=np.int64)
    z = np.zeros(0, dtype=np.int64)
    arrays = (
        i0,
        np.zeros((1, 1), dtype=np.int64),
        np.zeros((1, 1, 3)),
        np.zeros((1, 1), dtype=np.int64),
        np.zeros((1, 3, 4)),
        i0,
        np.zeros((1, 3)),
        np.zeros(2, dtype=np.int64),
        z,
        np.zeros(2, dtype=np.int64),
        z,
        z,
        z,
        np.zeros(2, dtype=np.int64),
        z,
        np.zeros(2, dtype=np.int64),
        z,
        np.zeros(2, dtype=np.int64),
        z,
        z,
        z,
        z,
        z,
        np.zeros(0),
        *_plain_rows(0, 1),
    )
    return KernelTables(arrays, 1, 0, 0, 1, np.zeros(1, dtype=np.int64), 1, 1, 1)


def _run_kernel(
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


def world_points_compiled(
    model: KinematicModel,
    params: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    R: np.ndarray,
    t: np.ndarray,
) -> np.ndarray:
    """World-frame points (N, n_points, 3) mm of parameter rows params (N, n_params) with
    chassis rotations R (N, 3, 3) and translations t (N, 3), each point the mean of its
    copies (`kernel.world_points`; order and starts group the copies by point)."""
    k = kernel_module()
    assert k is not None
    tab = kernel_tables(model)
    W = _work(tab)[0]
    everything = np.arange(tab.n_parts, dtype=np.int64), np.arange(tab.n_inst, dtype=np.int64)
    out = np.empty((len(params), len(starts) - 1, 3))
    k.world_points(
        np.ascontiguousarray(params, dtype=float),
        tab.arrays,
        W,
        *everything,
        np.ascontiguousarray(order, dtype=np.int64),
        np.ascontiguousarray(starts, dtype=np.int64),
        np.ascontiguousarray(R, dtype=float),
        np.ascontiguousarray(t, dtype=float),
        out,
    )
    return out
