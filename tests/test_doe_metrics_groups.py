"""`doe_metrics._groups`: how the DOE's designs are split into passes of the formulas.

A pass costs a fixed part plus a part per state, so the split takes as few passes as
`GROUP_STATES` allows, of about even sizes, keeping the designs whole and in order.
"""

from __future__ import annotations

from typing import Any

import pytest

from suspension_sim.explore.doe_metrics import _groups


def items(sizes: list[int]) -> list[tuple[Any, list[int]]]:
    """Stand-ins of (model, result) pairs: the result's length is its state count."""
    return [(k, [0] * n) for k, n in enumerate(sizes)]


@pytest.mark.parametrize(
    ("sizes", "cap", "want"),
    [
        ([39] * 64, 4096, [64]),  # the benchmark's call: one pass of 2496 states
        ([39] * 64, 2048, [32, 32]),  # two even passes, not 52 + 12
        ([39] * 64, 1000, [22, 22, 20]),  # each closes once past 2496 / 3 states
        ([10, 50, 10], 40, [1, 1, 1]),  # a design larger than the cap stays whole
        ([5], 4, [1]),
        ([], 4096, []),
    ],
)
def test_groups_are_few_even_and_in_order(sizes: list[int], cap: int, want: list[int]) -> None:
    got = _groups(items(sizes), cap)
    assert [len(g) for g in got] == want
    assert [k for g in got for k, _ in g] == list(range(len(sizes)))
    for g in got:  # within the cap unless one design alone exceeds it
        assert len(g) == 1 or sum(len(r) for _, r in g) <= cap
