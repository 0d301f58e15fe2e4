"""Dampers paired with wheels (`solve.sensitivity.best_pairing`): the brute force used for
small cars against scipy's assignment solver, the independent truth."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from suspension_sim.solve.sensitivity import BRUTE_FORCE_PAIRING, best_pairing


@pytest.mark.parametrize("n", range(1, BRUTE_FORCE_PAIRING + 3))
def test_best_pairing_matches_scipy(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(40):
        M = rng.random((n, n))
        rows, cols = best_pairing(M)
        r_ref, c_ref = linear_sum_assignment(-M)
        assert list(rows) == list(range(n))
        assert sorted(cols) == list(range(n))  # a permutation
        assert list(cols) == list(c_ref[np.argsort(r_ref)])  # unique optimum: the same one


def test_a_car_pairs_each_damper_with_the_wheel_it_moves() -> None:
    # rates of 4 dampers (rows) at 4 wheels (columns), dampers listed out of wheel order
    M = np.array(
        [[0.0, 0.0, 0.9, 0.0], [0.8, 0.1, 0.0, 0.0], [0.0, 0.0, 0.0, 0.7], [0.1, 0.85, 0.0, 0.0]]
    )
    assert list(best_pairing(M)[1]) == [2, 0, 3, 1]
