"""The jacking force from the multipliers' solve (`jacking.jacking_work`: a dampers x
wheels system) against the full jacking solve (`jacking.full_jacking`: the motion that lifts
each contact patch, from [J; patch heights]), and the compiled rank-one block path
(`blocks_kernel._rank_one_short`) against the pseudo-inverse."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import suspension_sim
from suspension_sim.loads import LoadCase, WheelLoad, blocks, statics
from suspension_sim.loads.blocks import block_lstsq, block_pattern
from suspension_sim.metrics.geometry import wheel_set

ROOT = Path(__file__).resolve().parents[1]


def _poses(name: str, n: int = 3) -> tuple[list[object], list[LoadCase]]:
    model = suspension_sim.load(ROOT / "workbooks" / f"{name}.xlsx")
    nd = len(model.damper_names)
    poses = [
        model.solve(shocks=[3.0 * i] * nd, chassis=(0.0, 0.0, 0.0, 0.5 * i, 0.0, 0.0))
        for i in range(n)
    ]
    names = wheel_set(model).names
    cases = [
        LoadCase(f"c{k}", {w: WheelLoad((200.0 * k, 400.0 - 90 * k, 1500.0)) for w in names})
        for k in range(3)
    ]
    return poses, cases


@pytest.mark.parametrize("name", ["fsae_car", "fsae_car_arb", "five_link_rear"])
def test_short_jacking_equals_the_full_solve(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks, "use_compiled", lambda poses=0: False)
    poses, cases = _poses(name)
    full_calls: list[int] = []
    full = statics.full_jacking

    def spy(*args: object, **kwargs: object) -> np.ndarray:
        full_calls.append(1)
        return full(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(statics, "full_jacking", spy)
    short = statics.statics(poses, cases)  # type: ignore[arg-type]
    assert not full_calls  # the short path was taken: one damper per wheel, determinate
    monkeypatch.setattr(statics, "jacking_setup", lambda *a, **k: None)
    reference = statics.statics(poses, cases)  # type: ignore[arg-type]
    assert full_calls
    size = np.abs(reference.applied_force).max()
    assert np.all(np.isfinite(short.jacking))
    assert np.abs(short.jacking - reference.jacking).max() <= 1e-9 * size
    # everything else is the same solve's answer
    assert np.abs(short.pair_force - reference.pair_force).max() <= 1e-9 * size


def test_other_cars_take_the_full_jacking_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    """A solid axle (two dampers, four wheels, redundant joints) has no short path."""
    monkeypatch.setattr(blocks, "use_compiled", lambda poses=0: False)
    poses, cases = _poses("solid_axle_rear", 2)
    calls: list[int] = []
    full = statics.full_jacking

    def spy(*args: object, **kwargs: object) -> np.ndarray:
        calls.append(1)
        return full(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(statics, "full_jacking", spy)
    statics.statics(poses, cases)  # type: ignore[arg-type]
    assert calls


@pytest.mark.parametrize("method", ["numpy", "compiled"])
def test_blocks_with_one_null_direction(method: str) -> None:
    """Square and tall blocks of rank c - 1 (one with a zero column, whose null vector is
    that column's unit vector): the minimum-norm least-squares answer (pinv) and a unit
    null vector that the block maps to zero."""
    rng = np.random.default_rng(11)
    shapes = ((6, 6), (7, 4), (3, 3))
    B = 4
    n_rows = sum(r for r, _ in shapes)
    n_cols = sum(c for _, c in shapes)
    M = np.zeros((B, n_rows, n_cols))
    rows, cols = [], []
    r0 = c0 = 0
    for k, (r, c) in enumerate(shapes):
        for b in range(B):
            blk = rng.standard_normal((r, c - 1)) @ rng.standard_normal((c - 1, c))
            if k == 2:  # a zero column: rank 2 of 3
                blk = rng.standard_normal((r, c))
                blk[:, 1] = 0.0
            M[b, r0 : r0 + r, c0 : c0 + c] = blk
        rr, cc = np.meshgrid(np.arange(r0, r0 + r), np.arange(c0, c0 + c), indexing="ij")
        rows.append(rr.ravel())
        cols.append(cc.ravel())
        r0, c0 = r0 + r, c0 + c
    pattern = block_pattern(np.concatenate(rows), np.concatenate(cols), n_rows, n_cols)
    y = rng.standard_normal((B, n_rows, 2))
    sol = block_lstsq(M, y, pattern, method=method)  # type: ignore[arg-type]
    for b in range(B):
        scale = np.linalg.norm(M[b], axis=1, keepdims=True)
        x = np.linalg.pinv(M[b] / scale, rcond=blocks.RANK_TOL) @ (y[b] / scale)
        assert np.allclose(sol.x[b], x, rtol=1e-9, atol=1e-9 * np.abs(x).max())
    assert int(sol.null_cols.sum()) == len(shapes)
    N = sol.null_basis  # (B, n_cols, 3)
    assert np.allclose(np.linalg.norm(N, axis=1), 1.0)
    assert np.abs(M @ N).max() <= 1e-9 * np.abs(M).max()
    zero_col = 6 + 4 + 1
    assert np.allclose(np.abs(N[:, zero_col, 2]), 1.0)
