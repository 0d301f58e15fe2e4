"""Block least squares (suspension_sim.loads.blocks): both paths against an independent truth.

The truth is numpy's pseudo-inverse of the whole (row-equilibrated) matrix of
each pose: the minimum-norm least-squares solution, and I - pinv(M) M as the
projector on the null space. Blocks of every kind the statics meets are mixed
in one matrix: square nonsingular and singular, wide and tall of full or
deficient rank, rows that meet no unknown and unknowns in no row. The compiled
path (numba) must agree with it and with the numpy path on the example cars'
loads, including the statically indeterminate solid axle.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import suspension_sim
from suspension_sim.loads import LoadCase, WheelLoad, blocks, sweep_loads
from suspension_sim.loads.blocks import BatchCOO, block_lstsq, block_pattern

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("numpy", "compiled")
RCOND = blocks.RANK_TOL


def _rank_k(rng: np.random.Generator, r: int, c: int, k: int) -> np.ndarray:
    """A random r x c matrix of rank k (singular values well above the rank tolerance)."""
    return rng.standard_normal((r, k)) @ rng.standard_normal((k, c))


# (rows, cols, rank) of the blocks of the test matrix; None = full rank
SHAPES: tuple[tuple[int, int, int | None], ...] = (
    (4, 4, None),
    (4, 4, None),
    (5, 5, 3),
    (3, 5, None),
    (3, 6, 2),
    (6, 3, None),
    (6, 3, 2),
    (2, 0, None),  # rows that meet no unknown
    (0, 2, None),  # unknowns in no row
    (6, 6, 5),
)


def _system(B: int, K: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dense block-diagonal matrices (B, n_rows, n_cols) with rows and columns shuffled,
    right-hand sides (B, n_rows, K), and the pattern's nonzero rows and columns."""
    rng = np.random.default_rng(seed)
    n_rows = sum(s[0] for s in SHAPES)
    n_cols = sum(s[1] for s in SHAPES)
    row_perm = rng.permutation(n_rows)
    col_perm = rng.permutation(n_cols)
    M = np.zeros((B, n_rows, n_cols))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    r0 = c0 = 0
    for r, c, k in SHAPES:
        R, C = row_perm[r0 : r0 + r], col_perm[c0 : c0 + c]
        for b in range(B):
            block = _rank_k(rng, r, c, k) if k is not None else rng.standard_normal((r, c))
            block *= rng.uniform(0.1, 1e3, size=(r, 1))  # badly scaled rows
            M[b][np.ix_(R, C)] = block
        rr, cc = np.meshgrid(R, C, indexing="ij")
        rows.append(rr.ravel())
        cols.append(cc.ravel())
        r0, c0 = r0 + r, c0 + c
    y = rng.standard_normal((B, n_rows, K))
    return M, y, np.concatenate(rows), np.concatenate(cols)


def _truth(M: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Min-norm solution, null projector and residual of the row-equilibrated system."""
    scale = np.linalg.norm(M, axis=2, keepdims=True)
    scale = np.where(scale > 0, scale, 1.0)
    Ms, ys = M / scale, y / scale
    xs, projs, res = [], [], []
    for b in range(M.shape[0]):
        # pinv's cut is relative to the whole matrix; each block's largest singular
        # value is ~1 after equilibration, so the cut matches the per-block rule
        pinv = np.linalg.pinv(Ms[b], rcond=RCOND)
        x = pinv @ ys[b]
        xs.append(x)
        projs.append(np.eye(M.shape[2]) - pinv @ Ms[b])
        res.append(np.linalg.norm(Ms[b] @ x - ys[b], axis=0))
    return np.array(xs), np.array(projs), np.array(res)


@pytest.fixture(scope="module")
def system() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return _system(B=7, K=3, seed=1)


@pytest.mark.parametrize("method", METHODS)
def test_block_lstsq_is_the_min_norm_solution(
    system: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], method: str
) -> None:
    M, y, rows, cols = system
    pattern = block_pattern(rows, cols, M.shape[1], M.shape[2])
    sol = block_lstsq(M, y, pattern, method=method)  # type: ignore[arg-type]
    x, proj, res = _truth(M, y)
    assert np.allclose(sol.x, x, rtol=1e-9, atol=1e-9 * np.abs(x).max())
    assert np.allclose(sol.residual, res, rtol=1e-9, atol=1e-9)
    N = sol.null
    assert np.allclose(N @ np.swapaxes(N, 1, 2), proj, atol=1e-9)
    # each null vector is a unit vector in a column of its own block
    norms = np.linalg.norm(sol.null_basis, axis=1)
    assert np.allclose(norms[norms > 0], 1.0)
    assert np.array_equal(sol.null_cols, np.abs(N).max(axis=(0, 1)) > 0)
    # null vectors are orthonormal per pose
    gram = np.swapaxes(N, 1, 2) @ N
    diag = np.einsum("bii->bi", gram)
    assert np.allclose(gram, np.einsum("bi,ij->bij", diag, np.eye(N.shape[2])), atol=1e-12)
    # the dimension of the null space is what the ranks say
    expected = sum(c - min(r, c if k is None else k) for r, c, k in SHAPES)
    assert np.all(diag.sum(axis=1).round() == expected)


@pytest.mark.parametrize("method", METHODS)
def test_sparse_input_gives_the_dense_answer(
    system: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], method: str
) -> None:
    M, y, rows, cols = system
    pattern = block_pattern(rows, cols, M.shape[1], M.shape[2])
    coo = BatchCOO(M[:, rows, cols], rows, cols, M.shape[1], M.shape[2])
    assert np.array_equal(coo.dense(), M)
    a = block_lstsq(M, y, pattern, method=method)  # type: ignore[arg-type]
    b = block_lstsq(coo, y, pattern, method=method)  # type: ignore[arg-type]
    assert np.array_equal(a.x, b.x)
    assert np.array_equal(a.null_basis, b.null_basis)
    assert np.array_equal(a.residual, b.residual)


def test_batch_coo_products_and_repeats() -> None:
    rng = np.random.default_rng(3)
    rows = np.array([0, 2, 2, 1, 0, 2])
    cols = np.array([1, 0, 0, 3, 2, 3])  # (2, 0) twice: the two values add up
    values = rng.standard_normal((4, len(rows)))
    coo = BatchCOO(values, rows, cols, 3, 4)
    dense = np.zeros((4, 3, 4))
    for k, (r, c) in enumerate(zip(rows, cols, strict=True)):
        dense[:, r, c] += values[:, k]
    assert np.allclose(coo.dense(), dense)
    v = rng.standard_normal((4, 4, 2))
    u = rng.standard_normal((4, 3, 2))
    assert np.allclose(coo.matmul(v), dense @ v)
    assert np.allclose(coo.rmatmul(u), np.swapaxes(dense, 1, 2) @ u)
    assert np.allclose(coo.T.dense(), np.swapaxes(dense, 1, 2))


def test_entry_outside_the_pattern_is_refused() -> None:
    pattern = block_pattern(np.array([0, 1]), np.array([0, 1]), 2, 2)  # two 1x1 blocks
    coo = BatchCOO(np.ones((1, 3)), np.array([0, 1, 0]), np.array([0, 1, 1]), 2, 2)
    with pytest.raises(ValueError, match="outside the blocks"):
        block_lstsq(coo, np.ones((1, 2, 1)), pattern, method="numpy")


@pytest.mark.parametrize("method", METHODS)
def test_nearly_singular_blocks_follow_the_rank_rule(method: str) -> None:
    """Blocks whose smallest singular value is below RANK_TOL of the largest lose it
    (both paths, wide and tall), those just above keep it."""
    rng = np.random.default_rng(5)
    blocks_: list[np.ndarray] = []
    for r, c, s_min in ((3, 5, 1e-11), (5, 3, 1e-11), (3, 5, 1e-6), (5, 3, 1e-6)):
        k = min(r, c)
        U, _ = np.linalg.qr(rng.standard_normal((r, r)))
        V, _ = np.linalg.qr(rng.standard_normal((c, c)))
        S = np.zeros((r, c))
        S[np.arange(k), np.arange(k)] = np.geomspace(1.0, s_min, k)
        blocks_.append(U @ S @ V.T)
    n_rows = sum(b.shape[0] for b in blocks_)
    n_cols = sum(b.shape[1] for b in blocks_)
    M = np.zeros((1, n_rows, n_cols))
    r0 = c0 = 0
    rows, cols = [], []
    for blk in blocks_:
        r, c = blk.shape
        M[0, r0 : r0 + r, c0 : c0 + c] = blk
        rr, cc = np.meshgrid(np.arange(r0, r0 + r), np.arange(c0, c0 + c), indexing="ij")
        rows.append(rr.ravel())
        cols.append(cc.ravel())
        r0, c0 = r0 + r, c0 + c
    pattern = block_pattern(np.concatenate(rows), np.concatenate(cols), n_rows, n_cols)
    y = rng.standard_normal((1, n_rows, 2))
    sol = block_lstsq(M, y, pattern, method=method)  # type: ignore[arg-type]
    # null dimension: 2 + 1 (first), 1 (second), 2 (third), 0 (fourth)
    assert int(sol.null_cols.sum()) == 6
    x_true = []
    parts = np.split(y[0], np.cumsum([b.shape[0] for b in blocks_])[:-1])
    for blk, yb in zip(blocks_, parts, strict=True):
        scale = np.linalg.norm(blk, axis=1, keepdims=True)
        x_true.append(np.linalg.pinv(blk / scale, rcond=RCOND) @ (yb / scale))
    x = np.concatenate(x_true)
    assert np.allclose(sol.x[0], x, rtol=1e-7, atol=1e-7 * np.abs(x).max())


@pytest.fixture
def force_method(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Set what block_lstsq's method="auto" picks inside the statics."""

    def use(method: str) -> None:
        monkeypatch.setattr(blocks, "use_compiled", lambda poses=0: method == "compiled")

    yield use


@pytest.mark.parametrize(
    ("workbook", "wheels"),
    [("fsae_car", ("FL", "FR", "RL", "RR")), ("solid_axle_rear", None), ("macpherson_front", None)],
)
def test_compiled_loads_match_numpy_on_example_cars(
    workbook: str, wheels: tuple[str, ...] | None, force_method: object
) -> None:
    model = suspension_sim.load(ROOT / "workbooks" / f"{workbook}.xlsx")
    names = wheels or tuple(model.car.wheels[i].name for i in range(len(model.car.wheels)))
    poses = [model.solve(chassis=(0.0, 0.0, z, roll, 0.0, 0.0)) for z, roll in ((0, 0), (-8, 1))]
    cases = [
        LoadCase(
            "corner", {w: WheelLoad((300.0, 900.0 * (k + 1), 1500.0)) for k, w in enumerate(names)}
        ),
        LoadCase(
            "brake", {w: WheelLoad((-1200.0, 0.0, 1800.0), brake_torque=250.0) for w in names}
        ),
    ]
    results = {}
    for method in METHODS:
        force_method(method)  # type: ignore[operator]
        results[method] = sweep_loads(poses, cases)
    a, b = results["numpy"], results["compiled"]
    assert a.determinate == b.determinate
    assert (a.table["basis"] == b.table["basis"]).all()
    for col in ("Fx_N", "Fy_N", "Fz_N", "axial_N"):
        u, v = a.table[col].to_numpy(float), b.table[col].to_numpy(float)
        assert np.array_equal(np.isnan(u), np.isnan(v))
        ok = ~np.isnan(u)
        assert np.allclose(u[ok], v[ok], rtol=1e-9, atol=1e-9 * np.abs(u[ok]).max())
    assert np.allclose(a.inputs["force_N"], b.inputs["force_N"], rtol=1e-9, atol=1e-6)
    jack_a, jack_b = a.jacking["jacking_N"].to_numpy(float), b.jacking["jacking_N"].to_numpy(float)
    assert np.allclose(jack_a, jack_b, rtol=1e-9, atol=1e-6, equal_nan=True)
