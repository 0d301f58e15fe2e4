"""`batch_metrics`: the `pose_metrics` columns for every state of a `BatchResult` at once.

Damper-log replay solves 1e4..1e6 states with `solve_batch`; computing the
metrics pose by pose (`pose_metrics`, a few ms each) would dominate. Here
every formula runs on (states, wheels, xyz) arrays, a chunk of states at a
time (memory stays bounded), and the result equals ``pose_metrics(result.pose(i),
convention, rates)`` state by state (same columns, same order, same values
to rounding).

The metric formulas are the ones `pose_metrics` uses, with a leading state
axis (`metrics.geometry.place_wheels` / `geometry_columns`,
`metrics.rates.rate_columns`, `metrics.centres.centre_columns`; a pose is
S = 1 there). What is batched here is what feeds them:

* Geometry (``rates=False``): point copies from the model's part transforms
  (``model.part_transforms`` on (n_params, S) parameters) and the chassis
  transforms of `solve.batch.chassis_transforms`.
* Rates (``rates=True``): the constraint Jacobian of every state from
  ``model.evaluate_state`` in the engine's layout, the input tangents dq/du
  block by block of the engine plan (batched LU, QR for tall blocks), the
  wheel-travel tangents from them (``T (B T)^-1``, B the travel and rack
  rows: the bordered system of `solve.sensitivity.wheel_tangents` reduced
  to the mechanism's tangent space) and the carriers' twists along them
  (`pose_metrics` solves one dense least-squares system per pose instead).

Not batched (computed state by state through `pose_metrics`, for the
columns asked only): every rate column of a model whose wheel count differs
from its damper count (the bordered travel system is then not square), and
every geometry column of such a model when it has a rack and a wheel
without kingpin points (its kingpin axis needs the tangents). States that
did not converge keep their inputs and give NaN elsewhere, as `pose_metrics`.
Units: mm, deg in the columns (rad inside).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.metrics.catalogue import CATALOGUE
from suspension_sim.metrics.centres import ANTI_CENTRES, ANTIS, centre_columns
from suspension_sim.metrics.conventions import Preset, preset
from suspension_sim.metrics.core import layout, pose_metrics
from suspension_sim.metrics.geometry import (
    Slot,
    WheelSet,
    geometry_columns,
    kingpin_axes,
    place_wheels,
    wheel_set,
)
from suspension_sim.metrics.rates import point_velocities, rate_columns, slot_rates_batch
from suspension_sim.names import did_you_mean
from suspension_sim.solve import engine
from suspension_sim.solve.batch import chassis_transforms
from suspension_sim.solve.solver import blas_controller

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import BatchResult

GEOMETRY_CHUNK = 1024
"""Most states per vectorised chunk for geometry (the part transforms carry every PoE
derivative, (parts, 7, 3, 4, S): ~25 MB at 1024 on the example car; larger is not faster)."""
RATES_CHUNK = 256
"""Most states per chunk when tangents are needed (the point copies' PoE derivatives,
(copies, 6, 3, S), and the block Jacobians come on top)."""

INPUT_IDS = frozenset(
    {"chassis_heave", "chassis_roll", "chassis_pitch", "rack", "steering_wheel_angle"}
    | {"stroke", "damper_length"}
)
"""Metrics that are the state's own inputs (kept for states that did not converge)."""
CENTRE_IDS = frozenset(
    {"fvic", "svic", "fvsa", "svsa", "fvic_axis", "svic_axis", "fvic_arms", "svic_arms"}
    | {"roll_centre_height", "roll_centre_lateral", "roll_centre_axis_height", "pitch_centre"}
    | set(ANTIS)
    | set(ANTI_CENTRES.values())
)
"""Metrics `centre_columns` writes (they need the carriers' twists, the costliest step)."""


def batch_metrics(
    result: BatchResult,
    convention: str | None = None,
    rates: bool = False,
    columns: Sequence[str] | None = None,
    chunk: int = 4096,
) -> pd.DataFrame:
    """Every `pose_metrics` column for every state of `result`: one row per state.

    convention: output preset (``"iso"``, ``"optimumk"``; None = the
    workbook's). rates: also the IFT-based columns (rates, centres, antis).
    columns: a subset of the column names, in the order wanted (None = all,
    in catalogue order); an unknown name raises `InputError` (where="columns").
    chunk: states per vectorised chunk (bounds memory; at most
    `GEOMETRY_CHUNK`, with rates `RATES_CHUNK`). Values equal
    ``pose_metrics(result.pose(i), convention, rates)``; a state that did
    not converge has NaN except its inputs.
    For a car whose wheel and damper counts differ, the rate columns (and,
    with a rack and a wheel without kingpin points, every column but the
    inputs) are computed state by state through `pose_metrics` (slow: ask
    only for the columns you need).
    """
    model = result.model
    pre = preset(convention if convention is not None else model.car.options.sign_convention)
    slots = layout(model, rates)
    keys = tuple(CATALOGUE[m].key(w, c) for m, w, c in slots)
    chosen = _chosen(keys, columns)
    want = {slots[j] for j in chosen}
    st = wheel_set(model)
    n = len(result)
    out = np.full((n, len(chosen)), np.nan)
    col = {slots[j]: k for k, j in enumerate(chosen)}
    ids = {s[0] for s in want}
    square = len(st.names) == len(st.dampers)
    need_geo = bool(st.names) and bool(ids - INPUT_IDS)
    # A wheel without kingpin points takes its axis from the carrier's steering twist.
    twist_axis = need_geo and st.has_rack and bool(np.any(st.i_lower < 0))
    steer_axis = twist_axis and square
    per_state = {s for s in want if CATALOGUE[s[0]].rates and not square}
    if twist_axis and not square:  # no batched tangents: that geometry pose by pose too
        per_state |= {s for s in want if s[0] not in INPUT_IDS}
    need_tangents = steer_axis or any(CATALOGUE[s[0]].rates for s in want - per_state)
    step = max(1, min(chunk, RATES_CHUNK if need_tangents else GEOMETRY_CHUNK))
    with blas_controller().limit(limits=1, user_api="blas"):  # small systems: threads only cost
        for start in range(0, n, step):
            sl = slice(start, min(start + step, n))
            values: dict[Slot, np.ndarray] = {}
            _inputs(result, sl, st, values)
            ok = np.flatnonzero(result.converged[sl])
            if need_geo and len(ok):
                rows = ok + start
                found = _states(model, st, pre, result, rows, need_tangents, steer_axis, ids)
                for slot, v in found.items():
                    full = np.full(sl.stop - start, np.nan)
                    full[ok] = v
                    values[slot] = full
            for slot, v in values.items():
                k = col.get(slot)
                if k is not None and slot not in per_state:
                    out[sl, k] = v
    if per_state:
        name = pre.name
        for i in np.flatnonzero(result.converged):
            row = pose_metrics(result.pose(int(i)), name, rates=rates)
            for slot in per_state:
                out[i, col[slot]] = row[CATALOGUE[slot[0]].key(slot[1], slot[2])]
    table = pd.DataFrame(out + 0.0, columns=[keys[j] for j in chosen])  # + 0.0: no "-0"
    table.attrs["convention"] = pre.name
    return table


def _chosen(keys: tuple[str, ...], columns: Sequence[str] | None) -> list[int]:
    """Indices into `keys` of the columns asked for (all when None)."""
    if columns is None:
        return list(range(len(keys)))
    if isinstance(columns, str):
        columns = [columns]
    where = {k: j for j, k in enumerate(keys)}
    out = []
    for c in columns:
        j = where.get(c)
        if j is None:
            raise InputError(
                f"{c!r} is not a metric column of this car." + did_you_mean(str(c), keys),
                where="columns",
                hint="pose_metrics(pose) or suspension_sim.metrics.layout(model) lists them",
            )
        out.append(j)
    return out


def _inputs(result: BatchResult, sl: slice, st: WheelSet, out: dict[Slot, np.ndarray]) -> None:
    """The states' own inputs: chassis state, rack (and steering-wheel angle), strokes."""
    ch = result.chassis[sl]
    out[("chassis_heave", "", "")] = ch[:, 2]
    out[("chassis_roll", "", "")] = ch[:, 3]
    out[("chassis_pitch", "", "")] = ch[:, 4]
    out[("rack", "", "")] = result.rack[sl]
    if st.rack_ratio:
        out[("steering_wheel_angle", "", "")] = result.rack[sl] / st.rack_ratio
    for k, (name, length) in enumerate(zip(st.dampers, st.damper_design_length, strict=True)):
        stroke = result.shocks[sl, k]
        out[("stroke", name, "")] = stroke
        out[("damper_length", name, "")] = float(length) - stroke


# -- geometry ---------------------------------------------------------------------------
def copy_positions(model: KinematicModel, st: WheelSet, Q: np.ndarray) -> np.ndarray:
    """Chassis-frame positions (S, n_copies, 3) of the copies the wheel geometry uses
    (wheel centres, axis points, kingpin points, push/pull rod ends; the others are
    left at 0) for parameters Q (n_params, S).

    Each copy is its part's transform applied to its design point (`part_transforms`
    without derivatives): `instance_positions` would also carry every copy's PoE
    derivatives through, 4x the time.
    """
    idx = np.unique(
        np.concatenate([st.i_centre, st.i_axis, st.i_lower, st.i_upper, st.pushrod.reshape(-1)])
    )
    idx = idx[idx >= 0]
    G, _ = model.part_transforms(Q, derivatives=False)  # (n_parts, 3, 4, S)
    Gi = G[model.inst_part[idx]]
    P = np.zeros((Q.shape[1], len(model.inst_point), 3))
    rotated = np.einsum("nijs,nj->sni", Gi[:, :, :3], model.inst_design[idx])
    P[:, idx] = rotated + Gi[:, :, 3].transpose(2, 0, 1)
    return P


# -- tangents -------------------------------------------------------------------------------
def input_tangents(model: KinematicModel, data: np.ndarray) -> np.ndarray:
    """dq/du for S states, (S, n_params, n_inputs): `solve.sensitivity.input_tangents` batched.

    data: Jacobian values (nnz, S) in the engine plan's layout. Each block of
    the plan is solved on its own (the blocks share no rows or unknowns, so
    the least-squares solution of the whole system splits the same way):
    batched LU for square blocks, batched QR for tall ones (redundant joints).
    """
    pl = engine.plan(model)
    S = data.shape[1]
    n_in = len(pl.inputs)
    T = np.zeros((S, model.n_params, n_in))
    T[:, pl.inputs, np.arange(n_in)] = 1.0
    for blk in pl.blocks:
        m, nb = len(blk.rows), len(blk.params)
        J = dense(data[blk.entries], blk.entry_row, blk.entry_col, (m, nb))
        Jin = dense(data[blk.in_entries], blk.in_row, blk.in_col, (m, n_in))
        T[:, blk.params] = least_squares(J, -Jin)
    return T


def dense(
    values: np.ndarray, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    """Dense stack (S, *shape) from sparse entries values (nnz, S) at (rows, cols).

    Repeated (row, col) entries add up, as in the sparse Jacobian `pose_metrics` uses.
    """
    flat = rows * shape[1] + cols
    if len(np.unique(flat)) == len(flat):  # the usual case: plain assignment, far faster
        out = np.zeros((values.shape[1], *shape))
        out[:, rows, cols] = values.T
        return out
    summed = np.zeros((*shape, values.shape[1]))
    np.add.at(summed, (rows, cols), values)
    return summed.transpose(2, 0, 1)


def least_squares(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """x minimising |A x - B| for stacks A (S, m, n), B (S, m, k) with m >= n.

    Batched LU (square) or QR (tall); states where that fails (singular)
    fall back to `np.linalg.lstsq` one by one, as the single-pose path does.
    """
    S, m, n = A.shape
    if m < n:  # under-determined: the minimum-norm solution, state by state
        return np.stack([np.linalg.lstsq(a, b, rcond=None)[0] for a, b in zip(A, B, strict=True)])
    if m == n:
        M, rhs = A, B
    else:
        Qm, M = np.linalg.qr(A)
        rhs = np.matmul(Qm.transpose(0, 2, 1), B)
    try:
        x = np.linalg.solve(M, rhs)
        bad = ~np.all(np.isfinite(x), axis=(1, 2))
    except np.linalg.LinAlgError:
        x = np.zeros((S, n, B.shape[2]))
        bad = np.ones(S, dtype=bool)
    for s in np.flatnonzero(bad):
        x[s] = np.linalg.lstsq(A[s], B[s], rcond=None)[0]
    return x


def wheel_tangents(
    model: KinematicModel, st: WheelSet, T: np.ndarray, dP: np.ndarray
) -> np.ndarray:
    """dq per mm of each wheel's travel and per mm of rack, (S, n_params, n_wheels [+ 1]).

    `solve.sensitivity.wheel_tangents` solves the constraint Jacobian bordered
    by the travel rows B (wheel-centre z) and the rack row. Every solution of
    J dq = 0 is ``T a`` (T the input tangents), so the bordered system is
    ``(B T) a = I``: one small square solve per state (wheels + rack =
    dampers + rack), the same unique solution.
    """
    v = point_velocities(model, dP, T, st.i_centre)[..., 2]  # (S, n_w, n_in): d travel / d u
    if st.has_rack:
        rack = np.zeros((len(T), 1, T.shape[2]))
        rack[:, 0, -1] = 1.0
        v = np.concatenate([v, rack], axis=1)
    eye = np.broadcast_to(np.eye(v.shape[1]), v.shape)
    return np.matmul(T, least_squares(v, eye.copy()))


def carrier_twists(
    model: KinematicModel, st: WheelSet, Q: np.ndarray, dq: np.ndarray
) -> np.ndarray:
    """`solve.sensitivity.part_twists` of each wheel's carrier for S states: (S, n_w, 6, n_cols).

    Q: (n_params, S) parameters; dq: (S, n_params, n_cols) tangents. Chassis
    frame: w in rad/mm, v the velocity of the body point at the chassis origin.
    """
    G, dG = model.part_transforms(Q, derivatives=True)
    assert dG is not None
    parts = st.part
    kmax = model.kmax
    slots = np.full((len(parts), max(kmax, 1)), -1, dtype=int)
    for i, p in enumerate(parts):
        params = model.parts[p].params
        slots[i, : len(params)] = params
    rates = slot_rates_batch(slots, dq)[:, :, :kmax]  # (S, n_w, k, cols)
    Gdot = np.einsum("wkijs,swku->swiju", dG[parts, :kmax], rates)  # (S, n_w, 3, 4, cols)
    Rm = G[parts, :, :3]  # (n_w, 3, 3, S)
    t = G[parts, :, 3]  # (n_w, 3, S)
    W = np.einsum("swiju,wkjs->swiku", Gdot[:, :, :, :3], Rm)
    w = np.stack([W[:, :, 2, 1], W[:, :, 0, 2], W[:, :, 1, 0]], axis=2)
    v = Gdot[:, :, :, 3] - np.einsum("swiku,wks->swiu", W, t)
    return np.concatenate([w, v], axis=2)


# -- one chunk --------------------------------------------------------------------------------
def _states(
    model: KinematicModel,
    st: WheelSet,
    pre: Preset,
    result: BatchResult,
    rows: np.ndarray,
    tangents: bool,
    steer_axis: bool,
    ids: set[str],
) -> dict[Slot, np.ndarray]:
    """Every batched column of the (converged) states `rows`: {slot: (S,)}."""
    Q = result.params[rows].T
    T = None
    if tangents and engine.kernel_compiled():  # compiled: points, slopes, tangents at once
        P, dP, T = engine.tangents_compiled(model, Q)
        P = P.transpose(2, 0, 1)
        singular = np.flatnonzero(np.isnan(T).any(axis=(1, 2)))
        if len(singular):  # a singular block: least squares, as the numpy path does
            _r, data, _P, _dP = model.evaluate_state(Q[:, singular], engine.plan(model).layout)
            T[singular] = input_tangents(model, data)
    elif tangents:
        pl = engine.plan(model)
        _r, data, P, dP = model.evaluate_state(Q, pl.layout)
        P = P.transpose(2, 0, 1)
        T = input_tangents(model, data)
    else:
        P = copy_positions(model, st, Q)
    R, t = chassis_transforms(model, result.chassis[rows])
    g = place_wheels(st, P, R, t)
    out: dict[Slot, np.ndarray] = {}
    steer = tw = W = None
    centres = bool(ids & CENTRE_IDS)
    if tangents:
        assert dP is not None and T is not None
        W = wheel_tangents(model, st, T, dP)
        if steer_axis or centres:
            twist_cols = np.concatenate([T[:, :, -1:], W], axis=2) if steer_axis else W
            both = carrier_twists(model, st, Q, twist_cols)
            tw = both[..., 1:] if steer_axis else both
            if steer_axis:
                steer = both[..., 0].copy()
                loose = st.damper_of < 0
                steer[:, loose] = tw[:, loose][..., -1]
    k_c, k0_c = kingpin_axes(st, g, steer)
    out.update(geometry_columns(st, g, pre, k_c, k0_c, "ackermann" in ids))
    if tangents and any(CATALOGUE[m].rates for m in ids - CENTRE_IDS):
        assert W is not None and dP is not None
        out.update(rate_columns(model, st, g, W, dP, pre))
    if tangents and centres:
        assert tw is not None
        out.update(centre_columns(st, g, tw, model.car.options))
    return out
