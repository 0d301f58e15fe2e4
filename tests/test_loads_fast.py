"""The compiled helpers of the statics (suspension_sim.loads.blocks_kernel) against independent
references: the model's own point and part evaluation, dense products, per-pair sums by hand;
and the whole load result of the car with a third spring and anti-roll bars, compiled
against numpy (the reference path), to 1e-12 of each quantity's own size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import suspension_sim
from suspension_sim.loads import LoadCase, WheelLoad, blocks, positions, statics, sweep_loads
from suspension_sim.loads.blocks import BatchCOO
from suspension_sim.model import KinematicModel

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kernel() -> object:
    """The compiled block kernel (compiled once per test session)."""
    blocks.compile_blocks()
    module = blocks.compiled_kernel()
    assert module is not None
    return module


@pytest.fixture(scope="module")
def arb_model() -> KinematicModel:
    return suspension_sim.load(ROOT / "workbooks" / "fsae_car_arb.xlsx")


def _states(model: KinematicModel, n: int) -> np.ndarray:
    """Parameters (n_params, n) of closed poses in heave and roll."""
    poses = [model.solve(chassis=(0.0, 0.0, -4.0 * k, 0.5 * k, 0.0, 0.0)) for k in range(n)]
    return np.stack([p.params for p in poses], axis=1)


def test_positions_are_the_models(arb_model: KinematicModel, kernel: object) -> None:
    """Both paths of `positions` give `KinematicModel.instance_positions` (numpy: the same
    operations, bit for bit; compiled: the same arithmetic, to rounding)."""
    q = _states(arb_model, 3)
    P_ref, dP_ref = arb_model.instance_positions(q, derivatives=True)
    assert dP_ref is not None
    P_ref, dP_ref = np.moveaxis(P_ref, -1, 0), np.moveaxis(dP_ref, -1, 0)
    local = arb_model.local_transforms(q)
    P, dP = positions.positions_numpy(arb_model, local)
    assert np.array_equal(P, P_ref) and np.array_equal(dP, dP_ref)
    P, dP = positions.positions(arb_model, local, kernel)  # type: ignore[arg-type]
    assert np.allclose(P, P_ref, rtol=0.0, atol=1e-12 * np.abs(P_ref).max())
    assert np.allclose(dP, dP_ref, rtol=0.0, atol=1e-12 * np.abs(dP_ref).max())


def test_part_transforms_of_some_parts(arb_model: KinematicModel) -> None:
    q = _states(arb_model, 2)
    G_ref, dG_ref = arb_model.part_transforms(q, derivatives=True)
    assert dG_ref is not None
    parts = np.array([len(arb_model.parts) - 1, 0, 3], dtype=int)
    G, dG = positions.part_transforms(arb_model, arb_model.local_transforms(q), parts)
    assert np.array_equal(G, G_ref[parts]) and np.array_equal(dG, dG_ref[parts])


def test_sparse_product_compiled(kernel: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """BatchCOO products (repeated places add up) against the dense matrices, on both paths."""
    rng = np.random.default_rng(3)
    B, n_rows, n_cols, nnz, K = 4, 7, 5, 30, 3
    rows, cols = rng.integers(0, n_rows, nnz), rng.integers(0, n_cols, nnz)
    rows[:3] = cols[:3] = 0  # a repeated place
    coo = BatchCOO(rng.standard_normal((B, nnz)), rows, cols, n_rows, n_cols)
    dense = coo.dense()
    v, u = rng.standard_normal((B, n_cols, K)), rng.standard_normal((B, n_rows, K))
    for method in ("compiled", "numpy"):
        monkeypatch.setattr(blocks, "use_compiled", lambda poses=0, m=method: m == "compiled")
        assert np.allclose(coo.matmul(v), dense @ v, rtol=1e-13, atol=1e-13)
        assert np.allclose(coo.rmatmul(u), np.swapaxes(dense, 1, 2) @ u, rtol=1e-13, atol=1e-13)


def test_body_wrenches_by_hand(arb_model: KinematicModel, kernel: object) -> None:
    """Compiled and numpy body wrenches against per-pair sums written out: +f on copy b,
    -f on copy a of each Jacobian pair, r x f for the moments, the chassis and rack left out."""
    lay = statics.load_layout(arb_model)
    rng = np.random.default_rng(8)
    B, C, K = 2, 2, 3
    n_inst, n_act = len(arb_model.inst_body), len(lay.act)
    r = rng.standard_normal((B, n_inst, 3))
    forces = rng.standard_normal((B, n_act, 3, K))
    want = np.zeros((B, len(lay.bodies), 6, K))
    for j, pair in enumerate(lay.act):
        for inst, sign in ((arb_model.pair_b[pair], 1.0), (arb_model.pair_a[pair], -1.0)):
            body = lay.inst_body[inst]
            if body < 0:
                continue
            f = sign * forces[:, j]  # (B, 3, K)
            want[:, body, :3] += f
            want[:, body, 3:] += np.cross(r[:, inst, :, None], f, axis=1)
    got = np.zeros_like(want)
    kernel.body_wrenches(  # type: ignore[attr-defined]
        forces,
        arb_model.pair_a[lay.act].astype(np.int64),
        arb_model.pair_b[lay.act].astype(np.int64),
        lay.inst_body.astype(np.int64),
        r,
        np.zeros((B, n_inst, 3)),
        C,
        got,
    )
    assert np.allclose(got, want, rtol=0.0, atol=1e-12)
    assert np.allclose(statics._body_wrenches(lay, r, forces, C, None), want, rtol=0.0, atol=1e-12)


@pytest.fixture
def force_method(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    def use(method: str) -> None:
        monkeypatch.setattr(blocks, "use_compiled", lambda poses=0: method == "compiled")

    yield use


def _close(a: np.ndarray, b: np.ndarray, scale: float) -> None:
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    assert np.abs(a[ok] - b[ok]).max(initial=0.0) <= 1e-12 * max(scale, 1e-300)


def test_compiled_loads_match_numpy_with_force_elements(
    arb_model: KinematicModel, kernel: object, force_method: object
) -> None:
    """The car with a third spring and anti-roll bars: every table number, input force,
    jacking force, element value and raw array of the compiled path equal the numpy
    path's to 1e-12 of its own size; labels equal."""
    poses = [
        arb_model.solve(chassis=(0.0, 0.0, z, roll, 0.0, 0.0)) for z, roll in ((0, 0), (-6, 1))
    ]
    names = [w.name for w in arb_model.car.wheels]
    cases = [
        LoadCase(
            "corner", {w: WheelLoad((300.0, 800.0 * (k + 1), 1500.0)) for k, w in enumerate(names)}
        ),
        LoadCase(
            "brake", {w: WheelLoad((-1200.0, 0.0, 1800.0), brake_torque=250.0) for w in names}
        ),
    ]
    results = {}
    for method in ("numpy", "compiled"):
        force_method(method)  # type: ignore[operator]
        results[method] = sweep_loads(poses, cases)
    a, b = results["numpy"], results["compiled"]
    assert a.determinate == b.determinate and a.message == b.message
    size = float(np.abs(a.raw.pair_force).max())
    for frame_a, frame_b in (
        (a.table, b.table),
        (a.inputs, b.inputs),
        (a.jacking, b.jacking),
        (a.elements, b.elements),
    ):
        assert list(frame_a.columns) == list(frame_b.columns)
        for col in frame_a.columns:
            if frame_a[col].dtype.kind == "f":
                _close(frame_a[col].to_numpy(float), frame_b[col].to_numpy(float), size)
            else:
                assert (frame_a[col].astype(str) == frame_b[col].astype(str)).all(), col
    for field in a.raw.__dataclass_fields__:
        u, v = getattr(a.raw, field), getattr(b.raw, field)
        if isinstance(u, np.ndarray) and u.dtype.kind == "f":
            _close(
                u,
                v,
                max(
                    float(np.abs(u[~np.isnan(u)]).max(initial=0.0)),
                    size if field in ("jacking", "bar_reaction") else 0.0,
                ),
            )
        elif isinstance(u, np.ndarray):
            assert np.array_equal(u, v), field


@pytest.mark.parametrize("method", ["numpy", "compiled"])
def test_basis_codes_and_copy_forces(
    arb_model: KinematicModel, kernel: object, force_method: object, method: str
) -> None:
    """The raw result's basis codes name its labels, and its force on each copy is the sum
    of its pairs' forces (+ on copy b, - on copy a), on both paths."""
    force_method(method)  # type: ignore[operator]
    pose = arb_model.solve()
    names = [w.name for w in arb_model.car.wheels]
    up = LoadCase("up", {w: WheelLoad((0.0, 0.0, 1000.0)) for w in names})
    st = statics.statics([pose], [up])
    assert st.pair_basis_code is not None and st.inst_force is not None
    labels = np.array(statics.BASIS_ORDER, dtype=object)[st.pair_basis_code]
    assert np.array_equal(st.pair_basis, labels)
    want = np.zeros_like(st.inst_force)
    for pair in range(len(arb_model.pair_a)):
        want[:, arb_model.pair_b[pair]] += st.pair_force[:, pair]
        want[:, arb_model.pair_a[pair]] -= st.pair_force[:, pair]
    assert np.allclose(st.inst_force, want, rtol=0.0, atol=1e-9)


def test_entry_points_load_the_compiled_code_from_disk(kernel: object) -> None:
    """Once compiled (on disk), the loads entry points use it: `load_if_cached` loads it."""
    assert blocks.load_if_cached()
    assert blocks.compiled_kernel() is kernel
