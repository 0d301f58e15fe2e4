"""`metrics.batch.kinematics_into`: the compiled kinematics written into slices of shared
arrays, with work arrays shared between calls (how `explore.doe_metrics` runs a group of
designs), against one `kinematics_compiled` call on all the states.

What is checked: the kernel writes every work and scratch entry it reads before reading
it, state after state, so the states' values do not depend on what an earlier call left
there (here: one call per state, in reverse order, through one set of work arrays); and
the outputs land in the rows given. Equality is exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np
import pytest
from test_batch import random_states

import suspension_sim
from suspension_sim.metrics.batch import (
    KernelOutputs,
    compiled_args,
    kernel_outputs,
    kernel_work,
    kinematics_compiled,
    kinematics_into,
    square_travel,
)
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.solve import engine

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    if not engine.compiled_available():  # pragma: no cover - numba is a dependency
        pytest.skip("numba is not installed")
    engine.compile_kernel()


@pytest.mark.parametrize("twists", [False, True])
def test_state_by_state_into_shared_arrays_equals_one_call(twists: bool) -> None:
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    states = random_states(model, 7, seed=3)
    res = model.solve_batch(
        shocks=states["shocks"], rack=states["rack"], chassis=states["chassis"], method="numpy"
    )
    assert res.converged.all()
    st = wheel_set(model)
    Q = res.params.T
    flags = (True, False, twists)
    whole = kinematics_compiled(model, st, Q, *flags, True)
    c = compiled_args(model, st)
    assert square_travel(c, st)
    S = Q.shape[1]
    outputs = kernel_outputs(c, st, S, *flags)
    work = kernel_work(c.tables, st)
    for s in reversed(range(S)):  # the work arrays hold the later states' leftovers
        mine = cast(KernelOutputs, tuple(o[s : s + 1] for o in outputs))
        got = kinematics_into(model, st, c, c.tables, Q[:, s : s + 1], *flags, True, mine, work)
        assert np.shares_memory(got.P, outputs[0])  # written in place
    P, v_C, v_A, Wd, tw, ok = outputs
    assert ok.all()
    assert np.array_equal(P, whole.P)
    assert whole.v_C is not None and whole.v_A is not None and whole.Wd is not None
    assert np.array_equal(v_C, whole.v_C) and np.array_equal(v_A, whole.v_A)
    assert np.array_equal(Wd, whole.Wd)
    if twists:
        assert whole.tw is not None and np.array_equal(tw, whole.tw)
