"""The batch engine's reduced tables (two-point links as distance rows) against the full ones.

* the example car's corners come down from 21/18 unknowns to 9 (hand count: two
  wishbones, the upright's six coordinates, the rocker), with its twelve links
  (pushrods, tie rods, dampers) eliminated;
* at poses solved on the full tables (every coordinate an unknown), the reduced
  rows vanish and the links' rebuilt coordinates equal the solved ones;
* a batch solved on the reduced tables equals the full tables' batch to 1e-9 in
  every coordinate (links included) and reports the model's own residual.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_batch import log_path

import suspension_sim
from suspension_sim import Model
from suspension_sim.solve import engine

WORKBOOKS = sorted((Path(__file__).parents[1] / "workbooks").glob("*.xlsx"))


@pytest.fixture(scope="module", params=WORKBOOKS, ids=[p.stem for p in WORKBOOKS])
def model(request: pytest.FixtureRequest) -> Model:
    return suspension_sim.load(request.param)


def _inputs(model: Model, n: int) -> np.ndarray:
    states = log_path(model, n)
    pl = engine.plan(model)
    return np.column_stack([states["shocks"], states["rack"]])[:, : len(pl.inputs)]


def test_example_car_corners_shrink_to_nine_unknowns() -> None:
    model = suspension_sim.load(Path(__file__).parents[1] / "workbooks" / "fsae_car.xlsx")
    red = engine.reduced_tables(model)
    assert red is not None
    rows, cols = red.arrays[9], red.arrays[7]
    sizes = [(int(rows[b + 1] - rows[b]), int(cols[b + 1] - cols[b])) for b in range(4)]
    assert sizes == [(9, 9)] * 4
    links = {model.parts[int(i)].body for i in red.arrays[29]}
    assert len(links) == 12
    assert {b for b in links if "Damper" in b} == {f"{c}_Damper" for c in ("FL", "FR", "RL", "RR")}


def test_reduced_batch_equals_full_tables(model: Model) -> None:
    assert engine.reduced_tables(model) is not None  # every example car has links
    engine.compile_kernel()
    U = _inputs(model, 80)
    q0 = np.zeros(model.n_params)
    full = engine.session(model).solve(U, q0, 1e-10)
    red = engine.solve_compiled(model, U, q0, 1e-10, reduced=True)
    closed = (engine.OK, engine.STATIONARY)  # the latter where redundant joints bind
    both = np.isin(full.status, closed) & np.isin(red.status, closed)
    assert both.sum() >= 78
    assert np.max(np.abs(full.params[both] - red.params[both])) < 1e-9
    # the reported residual is the model's own, every row (links included)
    r = model.residuals(red.params[both].T)
    assert np.allclose(np.max(np.abs(r), axis=0), red.max_residual_mm[both], atol=1e-12)
    assert np.all(red.max_residual_mm[both] <= model.car.options.solver_tolerance_mm)


def test_reduced_rows_vanish_and_links_rebuild_at_full_solutions(model: Model) -> None:
    red = engine.reduced_tables(model)
    assert red is not None  # every example car has links
    engine.compile_kernel()
    from suspension_sim.solve import kernel

    U = _inputs(model, 20)
    full = engine.session(model).solve(U, np.zeros(model.n_params), 1e-11)
    W, S = engine._work(red)
    for q in full.params[full.converged]:
        for b in range(red.n_blocks - 1):
            m = int(red.arrays[9][b + 1] - red.arrays[9][b])
            kernel.eval_block(b, q, red.arrays, W, S[4], S[6], S[7], False)
            assert np.max(np.abs(S[4][:m]), initial=0.0) < 1e-9
            rebuilt = q.copy()
            links = red.arrays[29][red.arrays[28][b] : red.arrays[28][b + 1]]
            for i in links:
                rebuilt[list(model.parts[int(i)].params)] = np.nan  # must be written back
            rebuilt[model.input_params()] = q[model.input_params()]
            kernel.rebuild_links(b, rebuilt, red.arrays, W)
            assert np.max(np.abs(rebuilt - q)) < 1e-9
