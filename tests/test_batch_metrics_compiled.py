"""The compiled path of `batch_metrics` (`metrics.batch_kernel`) against the numpy path.

The two are independent computations of what feeds the metric formulas: the
numpy path places the copies and takes the Jacobian from the shipped sympy
templates (``model.part_transforms`` / ``model.evaluate_state``), solves each
block of the full engine plan with LAPACK and differentiates the part
transforms for the carriers' twists; the compiled path evaluates the product
of exponentials from the joint signatures, solves the engine's reduced blocks
(two-point links eliminated) with its own LU/QR and builds the twists from the
joint screws. tests/test_batch_metrics.py checks the numpy path against
`pose_metrics` pose by pose.

* every example workbook, random states, with and without rates, both
  presets: every column within 1e-9 relative (instant centres and swing arms
  within their conditioning, as in test_batch_metrics.py);
* the point copies agree to 1e-9 mm;
* a front axle without kingpin points (kingpin axis from the steering twist), a
  state that did not converge, chunking;
* the vectorised Ackermann percentage equals the scalar one, and closed-form cases.

Compiling the kernels costs ~30 s once per test session (a fresh cache folder).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_batch import log_path, random_states
from test_batch_metrics import tolerances

import suspension_sim
from suspension_sim import Model
from suspension_sim.errors import InputError
from suspension_sim.metrics import linkage
from suspension_sim.metrics.batch import (
    batch_metrics,
    compiled_args,
    copy_positions,
    kinematics_compiled,
)
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.solve import engine
from suspension_sim.solve.batch import BatchResult

ROOT = Path(__file__).resolve().parents[1]
WORKBOOKS = sorted(p for p in (ROOT / "workbooks").glob("*.xlsx") if p.stem != "template")
REL = 1e-9


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    if not engine.compiled_available():  # pragma: no cover - numba is a dependency
        pytest.skip("numba is not installed")
    engine.compile_kernel()


def assert_tables_close(fast: pd.DataFrame, ref: pd.DataFrame) -> None:
    """Same columns; every value within REL relative (centres: their conditioning)."""
    assert list(fast.columns) == list(ref.columns)
    for i in range(len(ref)):
        row = {k: float(v) for k, v in ref.iloc[i].items()}
        tol = tolerances(row)
        got = fast.iloc[i]
        for key, want in row.items():
            a = float(got[key])
            if not np.isfinite(want):
                assert a == want or (np.isnan(a) and np.isnan(want)), (i, key, a, want)
            else:
                allowed = max(REL * max(1.0, abs(want)), tol[key])
                assert abs(a - want) <= allowed, (i, key, a, want, a - want)


@pytest.fixture(scope="module", params=WORKBOOKS, ids=[p.stem for p in WORKBOOKS])
def solved(request: pytest.FixtureRequest) -> suspension_sim.solve.batch.BatchResult:
    model = suspension_sim.load(request.param)
    res = model.solve_batch(**random_states(model, 6, seed=11), method="numpy")
    assert res.converged.all()
    return res


@pytest.mark.parametrize("convention", ["iso", "optimumk"])
@pytest.mark.parametrize("rates", [False, True])
def test_compiled_equals_numpy_on_every_workbook(solved, convention: str, rates: bool) -> None:  # type: ignore[no-untyped-def]
    fast = batch_metrics(solved, convention, rates, method="compiled")
    ref = batch_metrics(solved, convention, rates, method="numpy")
    assert_tables_close(fast, ref)
    assert fast.attrs["convention"] == convention


def test_each_rate_metric_alone(solved) -> None:  # type: ignore[no-untyped-def]
    """Asked alone, every rate metric equals the numpy path: the compiled kernel skips
    the wheels' velocities unless an asked column reads them (`rates.VELOCITY_IDS`), so
    a metric missing from that set would come out NaN here."""
    from suspension_sim.metrics.batch import CENTRE_IDS
    from suspension_sim.metrics.catalogue import CATALOGUE
    from suspension_sim.metrics.core import layout

    full = batch_metrics(solved, "iso", True, method="numpy")
    by_metric: dict[str, list[str]] = {}
    for mid, where, comp in layout(solved.model, rates=True):
        if CATALOGUE[mid].rates and mid not in CENTRE_IDS:
            by_metric.setdefault(mid, []).append(CATALOGUE[mid].key(where, comp))
    assert "motion_ratio" in by_metric and "camber_gain" in by_metric
    for cols in by_metric.values():
        fast = batch_metrics(solved, "iso", True, columns=cols, method="compiled")
        assert_tables_close(fast, full[cols])  # NaN exactly where the numpy path has NaN


def test_point_copies_agree(solved) -> None:  # type: ignore[no-untyped-def]
    model = solved.model
    st = wheel_set(model)
    Q = solved.params.T
    ref, _ = model.instance_positions(Q, derivatives=False)  # the sympy templates
    ref = ref.transpose(2, 0, 1)
    assert np.max(np.abs(copy_positions(model, st, Q)[:, st.i_centre] - ref[:, st.i_centre])) < 1e-9
    insts = compiled_args(model, st).insts
    for tangents in (False, True):
        kin = kinematics_compiled(model, st, Q, tangents, False, tangents)
        assert kin.P.shape == (Q.shape[1], len(insts), 3)
        assert np.max(np.abs(kin.P - ref[:, insts])) < 1e-9


def test_block_jacobian_equals_the_solvers_assembly(solved) -> None:  # type: ignore[no-untyped-def]
    """`batch_kernel.block_jacobian` (row by row from the joint screws) against the
    solver's own assembly (`kernel.eval_block`: per-copy derivatives scattered by the
    engine's entry lists), on the full and the reduced tables, at solved states and at
    states moved off them (rows not closed, so the distance rows' unit vectors differ
    from the design direction)."""
    from suspension_sim.metrics import batch_kernel as bk
    from suspension_sim.solve import kernel as k

    model = solved.model
    reduced = engine.reduced_tables(model)
    rng = np.random.default_rng(5)
    for tab in [engine.kernel_tables(model)] + ([reduced] if reduced is not None else []):
        T = tab.arrays
        pcol = bk.param_columns(T[7], T[8], tab.inputs, tab.n_params)
        W = bk.work_arrays(tab.n_parts, tab.n_inst, tab.k_max, tab.max_rows)
        n, m, n_in = max(tab.max_cols, 1), max(tab.max_rows, 1), max(len(tab.inputs), 1)
        Jt, Jin = np.zeros((n, m)), np.zeros((m, n_in))
        Jt_ref, Jin_ref, r = np.zeros((n, m)), np.zeros((m, n_in)), np.zeros(m)
        checked = 0
        for q0 in solved.params:
            for q in (q0, q0 + rng.normal(0.0, 0.01, size=q0.shape)):
                q = np.ascontiguousarray(q)
                for b in range(tab.n_blocks):
                    rows, cols = T[9][b + 1] - T[9][b], T[7][b + 1] - T[7][b]
                    if cols == 0:
                        continue
                    k.eval_block(b, q, T, W, r, Jt_ref, Jin_ref, True)
                    k.eval_parts(q, T[14][T[13][b] : T[13][b + 1]], *T[:5], *W[:3])
                    bk.block_jacobian(b, T, W, pcol, Jt, Jin)
                    scale = max(1.0, float(np.abs(Jt_ref[:cols, :rows]).max()))
                    assert np.abs(Jt[:cols, :rows] - Jt_ref[:cols, :rows]).max() <= 1e-12 * scale
                    assert np.abs(Jin[:rows] - Jin_ref[:rows]).max() <= 1e-12 * scale
                    assert np.abs(Jt_ref[:cols, :rows]).max() > 0.0
                    checked += 1
        assert checked > 0


def test_kingpin_from_the_steering_twist() -> None:
    """Front wheels without kingpin points: the axis comes from the rack tangent."""
    car = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx").car
    wheels = tuple(
        dataclasses.replace(w, kingpin_lower=None, kingpin_upper=None)
        if w.name.startswith("F")
        else w
        for w in car.wheels
    )
    model = Model(dataclasses.replace(car, wheels=wheels))
    res = model.solve_batch(**random_states(model, 4, seed=2), method="numpy")
    for rates in (False, True):
        fast = batch_metrics(res, "iso", rates, method="compiled")
        assert_tables_close(fast, batch_metrics(res, "iso", rates, method="numpy"))
        assert np.all(np.isfinite(fast["caster_FL_deg"]))


def test_unconverged_state_and_chunks_and_columns() -> None:
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    states = log_path(model, 7)
    states["rack"][3] = 150.0  # far past what the tie rods can follow
    res = model.solve_batch(**states, method="numpy")
    assert list(np.flatnonzero(~res.converged)) == [3]
    fast = batch_metrics(res, "optimumk", rates=True, method="compiled")
    assert_tables_close(fast, batch_metrics(res, "optimumk", rates=True, method="numpy"))
    assert np.isnan(fast["camber_FL_deg"][3]) and fast["rack_mm"][3] == 150.0
    small = batch_metrics(res, "optimumk", rates=True, chunk=2, method="compiled")
    pd.testing.assert_frame_equal(small, fast, rtol=0, atol=1e-12)
    pick = ["roll_centre_height_front_mm", "camber_FL_deg", "motion_ratio_RR", "rack_mm"]
    part = batch_metrics(res, "optimumk", rates=True, columns=pick, method="compiled")
    pd.testing.assert_frame_equal(part, fast[pick], rtol=0, atol=1e-12)


def test_unknown_method_is_an_input_error() -> None:
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    res = model.solve_batch(**log_path(model, 2), method="numpy")
    with pytest.raises(InputError) as exc:
        batch_metrics(res, method="fast")
    assert exc.value.where == "method"


def test_vectorised_ackermann_equals_the_scalar_one() -> None:
    L, t = 1530.0, 1200.0
    d_o = 0.2
    ideal = math.atan(L / (L / math.tan(d_o) - t))  # the inner angle of pure Ackermann
    left = np.array([ideal, 0.5 * (ideal + d_o), d_o, -d_o, 0.0, np.nan, 0.3, -0.05])
    right = np.array([d_o, d_o, d_o, -ideal, 0.0, 0.1, 0.25, -0.12])
    got = linkage.ackermann_percents(left, right, L, t)
    assert got[0] == pytest.approx(100.0, rel=1e-12)  # left turn, ideal inner angle
    assert got[1] == pytest.approx(50.0, rel=1e-12)
    assert got[2] == pytest.approx(0.0, abs=1e-12)  # parallel steer
    assert got[3] == pytest.approx(100.0, rel=1e-12)  # right turn: right wheel inside
    assert np.isnan(got[4]) and np.isnan(got[5])  # straight ahead; no angle
    want = [
        linkage.ackermann_percent(float(a), float(b), L, t)
        for a, b in zip(left, right, strict=True)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_the_warm_up_compiles_the_types_the_metrics_pass(
    solved: BatchResult,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The warm-up compiles `metric_kinematics` on empty tables (no car, no compiled
    solve: `batch_kernel.compile_on_empty_tables`); a real call with any flags must
    have the same numba types, or it would compile a second version at first use."""
    import numba

    from suspension_sim.metrics import batch_kernel

    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(batch_kernel, "metric_kinematics", lambda *args: calls.append(args))
    batch_kernel.compile_on_empty_tables()
    model = solved.model
    st = wheel_set(model)
    Q = solved.params[solved.converged].T
    for tangents, steer, twists, velocities in [
        (True, True, True, True),
        (True, False, False, False),
        (False, False, False, False),
    ]:
        kinematics_compiled(model, st, Q, tangents, steer, twists, velocities)
    assert len(calls) == 4
    types = [tuple(numba.typeof(a) for a in args) for args in calls]
    assert all(t == types[0] for t in types[1:]), [t for t in types if t != types[0]]
