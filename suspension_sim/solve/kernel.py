"""The compiled (numba) kernel of the batch engine: one state at a time, no Python inside.

Imported only by `suspension_sim.solve.engine` on first compiled use (importing numba
costs ~0.3 s; the kernels are compiled once per user, `solve.warmup`). Every function
is plain numba-typed code on flat arrays that `engine.KernelTables` builds once per
model, so one compilation serves every car. The numpy reference path
(`KinematicModel.evaluate_state` and `engine`'s Newton) is the independent check.

The code is split by job; this module re-exports every public name, so callers
import from here:

* `solve.kernel_jit`: the decorators (on-disk cache, which wrappers);
* `solve.kernel_eval`: part transforms, point copies, a block's residuals and
  Jacobian, the eliminated two-point links;
* `solve.kernel_linalg`: QR, LU, inverses and vector helpers;
* `solve.kernel_newton`: one block closed (chord steps, then Powell's dogleg);
* `solve.kernel_sequence`: a batch of states, each predicted from the last
  (`solve_sequence`), with its branch screen;
* `solve.kernel_targets`: single solves with targets met inside the kernel
  (`solve_single`, bordered blocks);
* `solve.kernel_points`: positions and tangents of solved states, and the bodies'
  spread for continuation's branch screen.

numba's disk cache checks only the source file of the function it compiled, not the
files of the functions compiled into it: an entry point's index older than any
kernel source is dropped on import (`drop_stale_indexes`), so a changed kernel is
never run from stale machine code. Units: mm, rad.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from suspension_sim.solve.engine_codes import (
    BRANCH,
    JUMP_PARAM_FLOOR,
    JUMP_PARAM_RATIO,
    NOT_CONVERGED,
    NOT_FINITE,
    OK,
    SINGULAR,
    STATIONARY,
    TRUST_START,
)
from suspension_sim.solve.kernel_eval import (
    JAC,
    NO_JAC,
    block_entries,
    eval_block,
    eval_block_in,
    eval_insts,
    eval_parts,
    eval_parts_only,
    link_rows,
    rebuild_links,
    rebuild_links_in,
    turn,
)
from suspension_sim.solve.kernel_jit import CACHED, inner, inner_plain, njit, plain
from suspension_sim.solve.kernel_linalg import (
    apply_qt,
    copy_into,
    invert,
    lu_factor,
    lu_solve,
    max_abs,
    mul_r,
    qr_factor,
    small_inverse,
    solve_r,
    sum_sq,
)
from suspension_sim.solve.kernel_newton import (
    CHORD_REFRESH,
    MAX_CHORD_STEPS,
    refactor,
    solve_block,
    store_qr,
)
from suspension_sim.solve.kernel_points import (
    batch_tangents,
    block_tangents,
    body_spread,
    chassis_points,
    points_and_slopes,
    world_points,
)
from suspension_sim.solve.kernel_sequence import (
    SECANT_SIMILAR,
    SMOOTH_COEF,
    SMOOTH_INPUTS,
    predict_block,
    predict_smooth,
    remember,
    solve_sequence,
)
from suspension_sim.solve.kernel_targets import (
    BROYDEN_PAIRS,
    block_touched,
    border_factor,
    border_step,
    eval_targets,
    secant,
    solve_bordered,
    solve_single,
)

MODULES = (
    "kernel.py",
    "kernel_jit.py",
    "kernel_eval.py",
    "kernel_linalg.py",
    "kernel_newton.py",
    "kernel_sequence.py",
    "kernel_targets.py",
    "kernel_points.py",
)
"""The kernel's source files (in `suspension_sim/solve`)."""

ENTRY_POINTS = (
    solve_sequence,
    solve_single,
    chassis_points,
    world_points,
    body_spread,
    batch_tangents,
    points_and_slopes,
    block_tangents,
    eval_block,
    eval_parts,
    rebuild_links,
)
"""The functions Python may call (each cached on disk on its own; the others are
compiled into them). `eval_block`, `eval_parts` and `rebuild_links` are called from
Python by tests only: the kernel calls `eval_block_in` and `rebuild_links_in`, which
have no Python wrapper, so those two are compiled only when Python calls them."""


def newest_source() -> float:
    """The newest modification time (s) of the kernel's source files: compiled code
    older than this may hold an older version of a function compiled into it."""
    here = Path(__file__).parent
    return max((here / name).stat().st_mtime for name in MODULES)


def drop_stale_indexes(functions: tuple[Any, ...], newest: float) -> None:
    """Drop numba's on-disk index of each of `functions` that is older than `newest`
    (numba then compiles it afresh instead of loading it): ~1 ms, stats only."""
    for disp in functions:
        with contextlib.suppress(AttributeError, OSError):
            index = Path(disp._cache._cache_file._index_path)
            if index.exists() and index.stat().st_mtime < newest:
                disp._cache.flush()


if CACHED:
    drop_stale_indexes(ENTRY_POINTS, newest_source())

__all__ = [
    "BRANCH",
    "BROYDEN_PAIRS",
    "CACHED",
    "CHORD_REFRESH",
    "ENTRY_POINTS",
    "JAC",
    "JUMP_PARAM_FLOOR",
    "JUMP_PARAM_RATIO",
    "MAX_CHORD_STEPS",
    "MODULES",
    "NOT_CONVERGED",
    "NOT_FINITE",
    "NO_JAC",
    "OK",
    "SECANT_SIMILAR",
    "SINGULAR",
    "SMOOTH_COEF",
    "SMOOTH_INPUTS",
    "STATIONARY",
    "TRUST_START",
    "apply_qt",
    "batch_tangents",
    "block_entries",
    "block_tangents",
    "block_touched",
    "body_spread",
    "border_factor",
    "border_step",
    "chassis_points",
    "copy_into",
    "drop_stale_indexes",
    "eval_block",
    "eval_block_in",
    "eval_insts",
    "eval_parts",
    "eval_parts_only",
    "eval_targets",
    "inner",
    "inner_plain",
    "invert",
    "link_rows",
    "lu_factor",
    "lu_solve",
    "max_abs",
    "mul_r",
    "newest_source",
    "njit",
    "plain",
    "points_and_slopes",
    "predict_block",
    "predict_smooth",
    "qr_factor",
    "rebuild_links",
    "rebuild_links_in",
    "refactor",
    "remember",
    "secant",
    "small_inverse",
    "solve_block",
    "solve_bordered",
    "solve_r",
    "solve_sequence",
    "solve_single",
    "store_qr",
    "sum_sq",
    "turn",
    "world_points",
]
