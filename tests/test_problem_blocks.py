"""The solver's independent blocks: the column components of the Jacobian's pattern,
found without scipy.sparse (union-find), equal scipy's connected_components."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import connected_components

from suspension_sim.solve.problem import column_components


def test_column_components_equal_scipys_on_random_patterns() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        m, n = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        pattern = sps.csr_matrix((rng.random((m, n)) < rng.uniform(0.02, 0.2)).astype(float))
        count, labels = connected_components((pattern.T @ pattern).tocsr(), directed=False)
        got_count, got = column_components(pattern.indptr, pattern.indices, n)
        assert got_count == count
        np.testing.assert_array_equal(got, labels)


def test_hand_checked_pattern() -> None:
    """Rows {0, 2}, {2, 4}, {1}, {3, 5}: columns 0-2-4 are one block, 1 and 3-5 others."""
    indptr = np.array([0, 2, 4, 5, 7])
    indices = np.array([0, 2, 2, 4, 1, 3, 5])
    count, labels = column_components(indptr, indices, 6)
    assert count == 3
    assert labels.tolist() == [0, 1, 0, 2, 0, 2]


def test_chain_distances_equal_dijkstra_on_random_graphs() -> None:
    """The link-length bound's shortest chains (numpy Floyd-Warshall) equal scipy's
    Dijkstra on random undirected graphs, unreachable pairs inf in both."""
    from scipy.sparse.csgraph import dijkstra

    from suspension_sim.solve.reach import chain_distances

    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(2, 40))
        pairs: dict[tuple[int, int], float] = {}
        for a, b, w in zip(
            rng.integers(0, n, 80), rng.integers(0, n, 80), rng.uniform(0.1, 10, 80), strict=True
        ):
            if a != b:
                key = (int(min(a, b)), int(max(a, b)))
                pairs[key] = min(pairs.get(key, np.inf), float(w))
        rows = [a for a, b in pairs] + [b for a, b in pairs]
        cols = [b for a, b in pairs] + [a for a, b in pairs]
        dist = list(pairs.values()) * 2
        expect = dijkstra(sps.csr_matrix((dist, (rows, cols)), shape=(n, n)))
        got = chain_distances(
            n, np.array(rows, dtype=int), np.array(cols, dtype=int), np.array(dist)
        )
        np.testing.assert_allclose(got, expect)


def test_jacobian_blocks_equal_scipys_bipartite_components() -> None:
    from suspension_sim.model.rank import jacobian_blocks

    rng = np.random.default_rng(3)
    for _ in range(300):
        m, n = int(rng.integers(1, 30)), int(rng.integers(1, 30))
        J = (rng.random((m, n)) < rng.uniform(0.02, 0.3)) * rng.normal(size=(m, n))
        pattern = sps.csr_matrix(J != 0)
        graph = sps.bmat([[None, pattern], [pattern.T, None]], format="csr")
        count, labels = connected_components(graph, directed=False)
        expect = [
            (np.flatnonzero(labels[:m] == c), np.flatnonzero(labels[m:] == c)) for c in range(count)
        ]
        got = jacobian_blocks(J)
        assert len(got) == len(expect)
        for (r1, c1), (r2, c2) in zip(got, expect, strict=True):
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(c1, c2)


def test_dense_jacobian_is_the_sparse_one() -> None:
    from pathlib import Path

    import suspension_sim

    model = suspension_sim.load(Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx")
    q = np.linspace(-0.01, 0.01, model.n_params)
    unknowns = np.arange(0, model.n_params, 2)
    np.testing.assert_array_equal(
        model.dense_jacobian(q, unknowns), model.jacobian(q, unknowns).toarray()
    )
