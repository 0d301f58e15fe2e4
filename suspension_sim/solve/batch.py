"""Solve many states at once: `solve_batch` and its `BatchResult`.

Every state holds all inputs (strokes, rack) and a chassis state; the block
engine (`solve.engine`) closes them, each warm-started from its neighbour.
A state the engine does not close to `tolerances.INNER_TARGET_MM` goes to
the single-state trust-region reflective + Levenberg-Marquardt path
(`solve.solver.solve`): first from the last state that closed, then, if that
fails too, from the batch's `guess` exactly as a single `solve` would, whose
best-effort pose and failure text the result keeps. Nothing is returned
silently: `converged` says which states closed.

Units: mm for strokes, rack and chassis x/y/z; degrees for chassis roll,
pitch and yaw (docs/conventions.md); points in mm in the world frame.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.names import did_you_mean
from suspension_sim.solve import engine
from suspension_sim.solve.diagnostics import checked_mobility, pose_singular_ratio
from suspension_sim.solve.inputs import (
    CHASSIS_AXES,
    check_chassis,
    check_input_limits,
    input_limits,
)
from suspension_sim.solve.pose import Pose, SolveInfo
from suspension_sim.solve.problem import blas_controller
from suspension_sim.tolerances import (
    INNER_TARGET_MM,
    LIMIT_SLACK_MM,
    MAX_CHASSIS_MM,
    MAX_CHASSIS_TILT_DEG,
    MAX_CHASSIS_YAW_DEG,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.model import KinematicModel

COMPILE_PAYS_STATES = 10_000
"""With method="auto", batches at least this long compile the kernel (a few seconds once
per process); shorter ones use the numpy path unless the kernel is compiled already."""
LOAD_PAYS_STATES = 200
"""With method="auto", batches at least this long load the kernel when a previous
process left it on disk (well under a second)."""
POINTS_CHUNK = 4096
"""States per chunk when the world-frame points are computed (bounds memory)."""

Method = Literal["auto", "compiled", "numpy"]


@dataclass
class BatchResult:
    """Solved states of one batch (N states). Points and frames are computed on access."""

    model: KinematicModel = field(repr=False)
    params: np.ndarray = field(repr=False)  # (N, n_params)
    shocks: np.ndarray = field(repr=False)  # (N, n_dampers), mm
    rack: np.ndarray = field(repr=False)  # (N,), mm
    chassis: np.ndarray = field(repr=False)  # (N, 6): x, y, z (mm), roll, pitch, yaw (deg)
    converged: np.ndarray  # (N,) bool
    iterations: np.ndarray  # (N,) Newton steps (largest over the blocks) or trf Jacobians
    max_residual_mm: np.ndarray  # (N,)
    method: np.ndarray  # (N,) "engine", or the fallback's method ("trf", "trf+lm")
    tolerance_mm: float
    seconds: float
    engine: str  # "compiled" or "numpy"
    failures: dict[int, str] = field(default_factory=dict)
    """State index -> failure explanation (the text a single solve gives)."""
    failed_poses: dict[int, Pose] = field(default_factory=dict, repr=False)
    """State index -> the best-effort pose of each state that did not close."""
    source_poses: list[Pose] | None = field(default=None, repr=False)
    """The poses a result was made from (`from_poses`): `pose(i)` returns them."""

    @classmethod
    def from_poses(cls, model: KinematicModel, poses: Sequence[Pose]) -> BatchResult:
        """A batch result holding already solved poses (e.g. a sweep's steps), so that
        whole-batch code (`metrics.batch_metrics`, `points`) runs on them at once."""
        names = model.damper_names
        n = len(poses)
        return cls(
            model=model,
            params=np.array([p.params for p in poses]).reshape(n, model.n_params),
            shocks=np.array([[p.shocks[d] for d in names] for p in poses]).reshape(n, len(names)),
            rack=np.array([p.rack for p in poses], dtype=float),
            chassis=np.array([p.chassis for p in poses], dtype=float).reshape(n, 6),
            converged=np.array([p.converged for p in poses], dtype=bool),
            iterations=np.array([p.info.iterations for p in poses], dtype=int),
            max_residual_mm=np.array([p.info.max_residual_mm for p in poses], dtype=float),
            method=np.array([p.info.method for p in poses], dtype=object),
            tolerance_mm=max((p.info.tolerance_mm for p in poses), default=0.0),
            seconds=sum(p.info.seconds for p in poses),
            engine="poses",
            source_poses=list(poses),
        )

    def __len__(self) -> int:
        return len(self.params)

    @cached_property
    def point_names(self) -> tuple[str, ...]:
        """Names of the points, in the order of `points` (as `Pose.points`)."""
        return tuple(dict.fromkeys(self.model.inst_point))

    @cached_property
    def points(self) -> np.ndarray:
        """(N, P, 3) world-frame points (mm); a joined point at the mean of its copies."""
        m = self.model
        names = self.point_names
        row = {n: i for i, n in enumerate(names)}
        which = np.array([row[n] for n in m.inst_point])
        order = np.argsort(which, kind="stable")  # copies grouped by point
        starts = np.flatnonzero(np.r_[True, np.diff(which[order]) != 0])
        counts = np.diff(np.r_[starts, len(order)])
        compiled = engine.kernel_compiled()
        N = len(self)
        R, t = chassis_transforms(m, self.chassis)
        if compiled:  # one pass per state in the kernel (the numpy path below is its check)
            bounds = np.r_[starts, len(order)]
            return engine.world_points_compiled(m, self.params, order, bounds, R, t)
        out = np.empty((N, len(names), 3))
        for start in range(0, N, POINTS_CHUNK):
            sl = slice(start, min(start + POINTS_CHUNK, N))
            P = np.moveaxis(m.instance_positions(self.params[sl].T, derivatives=False)[0], 2, 0)
            local = np.add.reduceat(P[:, order], starts, axis=1) / counts[None, :, None]
            out[sl] = np.matmul(local, R[sl].transpose(0, 2, 1)) + t[sl, None, :]
        return out

    def to_frame(self) -> pd.DataFrame:
        """Tidy points: one row per state and point, columns state, point, x, y, z (mm)."""
        import pandas as pd

        N, n_p = len(self), len(self.point_names)
        pts = self.points.reshape(N * n_p, 3)
        return pd.DataFrame(
            {
                "state": np.repeat(np.arange(N), n_p),
                "point": np.tile(np.array(self.point_names, dtype=object), N),
                "x": pts[:, 0],
                "y": pts[:, 1],
                "z": pts[:, 2],
            }
        )

    def status_frame(self) -> pd.DataFrame:
        """One row per state: converged, iterations, max_residual_mm, method, failure."""
        import pandas as pd

        return pd.DataFrame(
            {
                "converged": self.converged,
                "iterations": self.iterations,
                "max_residual_mm": self.max_residual_mm,
                "method": self.method,
                "failure": [self.failures.get(i, "") for i in range(len(self))],
            }
        ).rename_axis("state")

    def pose(self, i: int) -> Pose:
        """State i as a `Pose` (the fallback's own pose for a state that did not close)."""
        if self.source_poses is not None:
            return self.source_poses[i]
        if i in self.failed_poses:
            return self.failed_poses[i]
        names = self.model.damper_names
        info = SolveInfo(
            converged=bool(self.converged[i]),
            method=str(self.method[i]),
            iterations=int(self.iterations[i]),
            nfev=int(self.iterations[i]) + 1,
            njev=int(self.iterations[i]),
            max_residual_mm=float(self.max_residual_mm[i]),
            tolerance_mm=self.tolerance_mm,
            seconds=self.seconds / max(len(self), 1),
            ratio=float("nan"),
            ratio_flag=False,
            ratio_of=functools.partial(pose_singular_ratio, self.model, self.params[i].copy()),
        )
        strokes = {n: float(v) for n, v in zip(names, self.shocks[i], strict=True)}
        ch = tuple(float(v) for v in self.chassis[i])
        return Pose(self.model, self.params[i].copy(), strokes, float(self.rack[i]), ch, info)  # type: ignore[arg-type]

    def summary(self) -> str:
        """One line: states, how many closed, the slowest and worst, time."""
        n = len(self)
        bad = int(np.count_nonzero(~self.converged))
        rate = n / self.seconds if self.seconds > 0 else float("inf")
        return (
            f"{n} states with the {self.engine} engine: {n - bad} converged, {bad} not; "
            f"largest residual {np.max(self.max_residual_mm, initial=0.0):.3g} mm, "
            f"{self.seconds:.3g} s ({rate:.0f} states/s)"
        )


def chassis_transforms(model: KinematicModel, chassis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World rotation (N, 3, 3) and translation (N, 3) of the chassis for states (N, 6)
    (x, y, z mm; roll, pitch, yaw deg), as `pose.chassis_transform` does for one."""
    ref_name = model.car.options.chassis_reference_point
    ref = model.car.point(ref_name) if ref_name else np.zeros(3)
    roll, pitch, yaw = (np.radians(chassis[:, k]) for k in (3, 4, 5))
    cr, sr, cp, sp, cy, sy = (
        np.cos(roll),
        np.sin(roll),
        np.cos(pitch),
        np.sin(pitch),
        np.cos(yaw),
        np.sin(yaw),
    )
    R = np.empty((len(chassis), 3, 3))
    # R = Rz(yaw) @ Ry(pitch) @ Rx(roll)
    R[:, 0, 0] = cy * cp
    R[:, 0, 1] = cy * sp * sr - sy * cr
    R[:, 0, 2] = cy * sp * cr + sy * sr
    R[:, 1, 0] = sy * cp
    R[:, 1, 1] = sy * sp * sr + cy * cr
    R[:, 1, 2] = sy * sp * cr - cy * sr
    R[:, 2, 0] = -sp
    R[:, 2, 1] = cp * sr
    R[:, 2, 2] = cp * cr
    t = ref + chassis[:, :3] - np.einsum("nij,j->ni", R, ref)
    return R, t


# -- inputs -------------------------------------------------------------------------
def _length(shocks: Any, rack: Any, chassis: Any) -> int | None:
    """Number of states: rows of shocks, else entries of rack, else rows of chassis."""
    if shocks is not None:
        return len(shocks)
    if rack is not None and np.ndim(rack) >= 1:
        return len(rack)
    if chassis is not None and np.ndim(chassis) == 2:
        return len(chassis)
    return None


def _strokes(model: KinematicModel, shocks: Any, n: int) -> np.ndarray:
    names = model.damper_names
    if shocks is None:
        return np.zeros((n, len(names)))
    if hasattr(shocks, "columns"):  # a DataFrame: columns by damper name
        out = np.zeros((n, len(names)))
        lookup = {d.casefold(): i for i, d in enumerate(names)}
        seen: set[int] = set()
        for col in shocks.columns:
            i = lookup.get(str(col).casefold())
            if i is None:
                raise InputError(
                    f"column {col!r} is not a damper of this workbook."
                    + did_you_mean(str(col), names),
                    where="shocks",
                    hint=f"pass only the damper columns: {', '.join(names) or '(none)'}",
                )
            if i in seen:
                raise InputError(f"damper {names[i]} is given twice", where="shocks")
            seen.add(i)
            out[:, i] = _finite(shocks[col].to_numpy(dtype=float), f"shocks ({names[i]})")
        return out
    a = np.asarray(shocks, dtype=float)
    if a.ndim == 1 and len(names) == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[1] != len(names):
        raise InputError(
            f"shocks has shape {a.shape}, expected (N, {len(names)})",
            where="shocks",
            hint=f"one column per damper in Damping order: {', '.join(names)}",
        )
    return _finite(a, "shocks")


def _finite(a: np.ndarray, where: str) -> np.ndarray:
    bad = ~np.isfinite(a)
    if np.any(bad):
        state = int(np.flatnonzero(bad.reshape(len(a), -1).any(axis=1))[0])
        raise InputError(f"state {state}: a value is not a finite number", where=where)
    return a


def _column(value: Any, n: int, where: str) -> np.ndarray:
    a = np.asarray(0.0 if value is None else value, dtype=float)
    if a.ndim == 0:
        a = np.full(n, float(a))
    if a.shape != (n,):
        raise InputError(f"{where} has shape {a.shape}, expected ({n},)", where=where)
    return _finite(a, where)


def _chassis(value: Any, n: int) -> np.ndarray:
    a = np.asarray((0.0,) * 6 if value is None else value, dtype=float)
    if a.ndim == 1 and a.shape == (6,):
        a = np.tile(a, (n, 1))
    if a.shape != (n, 6):
        raise InputError(
            f"chassis has shape {a.shape}, expected ({n}, 6)",
            where="chassis",
            hint=f"one row per state: {', '.join(CHASSIS_AXES)} (mm, deg)",
        )
    return _finite(a, "chassis")


def _refuse_first(bad: np.ndarray, check: Callable[[int], object]) -> None:
    """Refuse the whole batch when `bad` (N,) flags a state: `check(i)` raises the single
    solve's own error for the first such state, given here with its index and the count."""
    idx = np.flatnonzero(bad)
    if not len(idx):
        return
    try:
        check(int(idx[0]))
    except InputError as exc:
        raise InputError(
            f"state {idx[0]} ({len(idx)} state(s) in all): {exc.message}",
            where=exc.where,
            hint=exc.hint,
        ) from None


def _check_chassis_states(chassis: np.ndarray) -> None:
    """Refuse a chassis state that makes no physical sense (`solve.inputs.check_chassis`)."""
    limits = np.array([MAX_CHASSIS_MM] * 3 + [MAX_CHASSIS_TILT_DEG] * 2 + [MAX_CHASSIS_YAW_DEG])
    bad = (np.abs(chassis) > limits).any(axis=1)
    _refuse_first(bad, lambda i: check_chassis(chassis[i].tolist()))


def _check_input_states(model: KinematicModel, strokes: np.ndarray, rack: np.ndarray) -> None:
    """Refuse a stroke or rack travel past its declared limit by more than the slack, with
    the single solve's rule and message (`solve.inputs.input_limits`,
    `check_input_limits`)."""
    limits = input_limits(model)
    names = model.damper_names
    columns = [(strokes[:, k], name) for k, name in enumerate(names)] + [(rack, "rack")]
    bad = np.zeros(len(strokes), dtype=bool)
    for values, name in columns:
        low, high = limits.get(name, (None, None))
        if high is not None:
            bad |= values > high + LIMIT_SLACK_MM
        if low is not None:
            bad |= values < low - LIMIT_SLACK_MM
    _refuse_first(
        bad,
        lambda i: check_input_limits(
            model, dict(zip(names, strokes[i].tolist(), strict=True)), float(rack[i])
        ),
    )


def _start(model: KinematicModel, guess: Pose | np.ndarray | None) -> np.ndarray:
    if guess is None:
        return np.zeros(model.n_params)
    if isinstance(guess, Pose):
        return guess.params.copy()
    q0 = np.asarray(guess, dtype=float).copy()
    if q0.shape != (model.n_params,):
        raise InputError(f"guess has shape {q0.shape}, expected ({model.n_params},)", where="guess")
    return q0


# -- the batch ----------------------------------------------------------------------
def solve_batch(
    model: KinematicModel,
    shocks: Any = None,
    rack: Any = None,
    chassis: Any = None,
    guess: Pose | np.ndarray | None = None,
    tolerance: float | None = None,
    method: Method = "auto",
) -> BatchResult:
    """Solve N states: shocks (N, n_dampers) array or DataFrame with damper-name columns
    (mm, + in compression), rack (N,) mm, chassis (N, 6) or (6,): x, y, z (mm), roll,
    pitch, yaw (deg). guess: a Pose or parameter vector (n_params,) the first state
    starts from (design by default). tolerance: largest joint gap accepted (mm; the
    workbook's by default). method: "compiled" (numba), "numpy" (the reference), or
    "auto" (compiled for long batches or once compiled, numpy otherwise).
    """
    t0 = time.perf_counter()
    mob = checked_mobility(model)
    n = _length(shocks, rack, chassis)
    if n is None:
        raise InputError("no states given", where="shocks", hint="give shocks as an (N, n) array")
    strokes = _strokes(model, shocks, n)
    rack_mm = _column(rack, n, "rack")
    if model.topology.rack_param is None and np.any(rack_mm != 0.0):
        raise InputError(
            "this workbook has no steering rack",
            where="rack",
            hint="leave the rack at 0 or add a Steering section",
        )
    ch = _chassis(chassis, n)
    _check_chassis_states(ch)
    _check_input_states(model, strokes, rack_mm)
    tol = float(tolerance if tolerance is not None else model.car.options.solver_tolerance_mm)
    target = min(tol, INNER_TARGET_MM)
    q0 = _start(model, guess)
    pl = engine.plan(model)
    U = strokes if model.topology.rack_param is None else np.column_stack([strokes, rack_mm])
    assert U.shape[1] == len(pl.inputs)

    kind = _choose(method, n)
    if kind == "compiled":
        engine.compile_kernel()
        res = engine.solve_compiled(model, U, q0, target, reduced=True)
    else:
        with blas_controller().limit(limits=1, user_api="blas"):
            res = engine.solve_numpy(model, U, q0, target)
    params = res.params  # ours: no copy (an (N, n_params) array can be large)
    converged = res.converged.copy()
    if mob.redundant:  # redundant joints that bind: the least-squares point within tolerance
        converged |= (res.status == engine.STATIONARY) & (res.max_residual_mm <= tol)
    iterations = res.iterations.astype(int)
    worst = res.max_residual_mm.copy()
    methods = np.full(n, "engine", dtype=object)
    failures: dict[int, str] = {}
    failed_poses: dict[int, Pose] = {}
    for i in np.flatnonzero(~converged):
        if res.status[i] == engine.BRANCH:
            pose = _continue(model, params, converged, int(i), strokes, rack_mm, ch, tol)
        else:
            pose = _fallback(
                model, params, converged, int(i), strokes[i], rack_mm[i], ch[i], q0, tol
            )
        params[i] = pose.params
        converged[i] = pose.converged
        iterations[i] = pose.info.iterations
        worst[i] = pose.info.max_residual_mm
        methods[i] = pose.info.method
        if not pose.converged:
            failures[int(i)] = pose.failure or ""
            failed_poses[int(i)] = pose
    return BatchResult(
        model=model,
        params=params,
        shocks=strokes,
        rack=rack_mm,
        chassis=ch,
        converged=converged,
        iterations=iterations,
        max_residual_mm=worst,
        method=methods,
        tolerance_mm=tol,
        seconds=time.perf_counter() - t0,
        engine=kind,
        failures=failures,
        failed_poses=failed_poses,
    )


def _choose(method: Method, n: int) -> str:
    if method not in ("auto", "compiled", "numpy"):
        raise InputError(
            f"unknown method {method!r}", where="method", hint="auto, compiled or numpy"
        )
    if method == "numpy" or not engine.compiled_available():
        if method == "compiled":
            raise InputError(
                "the compiled engine needs numba, which is not installed",
                where="method",
                hint="pip install numba, or use method='numpy'",
            )
        return "numpy"
    if method == "compiled":
        return "compiled"
    if engine.kernel_compiled() or n >= COMPILE_PAYS_STATES:
        return "compiled"
    return "compiled" if n >= LOAD_PAYS_STATES and engine.kernel_on_disk() else "numpy"


def _continue(
    model: KinematicModel,
    params: np.ndarray,
    converged: np.ndarray,
    i: int,
    strokes: np.ndarray,
    rack: np.ndarray,
    chassis: np.ndarray,
    tol: float,
) -> Pose:
    """State i, which the engine closed far from its prediction (near a dead point), by
    continuation from the last closed state (or design) with the branch screen
    (`solve.continuation.move`): small steps on the same assembly branch, or a
    not-converged pose explaining why the state cannot be reached on it."""
    from suspension_sim.solve.continuation import MoveError, move
    from suspension_sim.solve.solver import solve
    from suspension_sim.solve.state import State

    def state_of(k: int) -> State:
        return State(
            shocks=dict(zip(model.damper_names, (float(v) for v in strokes[k]), strict=True)),
            rack=float(rack[k]),
            chassis=tuple(float(v) for v in chassis[k]),  # type: ignore[arg-type]
        )

    before = np.flatnonzero(converged[:i])
    if len(before):
        k = int(before[-1])
        start = state_of(k).solve(model, guess=params[k], tolerance=tol, method="trf")
    else:
        start = solve(model, tolerance=tol)
    state = state_of(i)
    try:
        return move(start, state, tolerance=tol)
    except MoveError as exc:
        pose = state.solve(model, guess=start, tolerance=tol, on_failure="return", method="trf")
        info = dataclasses.replace(pose.info, converged=False)  # not this motion's pose
        out = Pose(model, pose.params, pose.shocks, pose.rack, pose.chassis, info)
        out.failure = f"not reached on the assembly branch of the previous state: {exc.reason}"
        return out


def _fallback(
    model: KinematicModel,
    params: np.ndarray,
    converged: np.ndarray,
    i: int,
    strokes: np.ndarray,
    rack: float,
    chassis: np.ndarray,
    q0: np.ndarray,
    tol: float,
) -> Pose:
    """State i by the single-state path: from the last closed state, then from the guess."""
    from suspension_sim.solve.solver import solve

    before = np.flatnonzero(converged[:i])
    args: dict[str, Any] = {
        "shocks": strokes.tolist(),
        "rack": float(rack),
        "chassis": tuple(float(v) for v in chassis),
        "tolerance": tol,
        "on_failure": "return",
        "method": "trf",  # the engine has already failed on this state
    }
    if len(before):
        pose = solve(model, guess=params[before[-1]], **args)
        if pose.converged:
            return pose
    return solve(model, guess=q0, **args)


def batch_inputs(states: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Arrays for `solve_batch` from single-solve keyword dictionaries (shocks list,
    rack, chassis): a convenience for tests and benchmarks."""
    return {
        "shocks": np.array([s["shocks"] for s in states], dtype=float),
        "rack": np.array([s.get("rack", 0.0) for s in states], dtype=float),
        "chassis": np.array([s.get("chassis", (0.0,) * 6) for s in states], dtype=float),
    }
