"""The shipped joint-class templates against two independent truths.

1. A fresh sympy build of the same chain (`screws.lambdify_chain`): the
   shipped module is what the generator would write today.
2. A plain numpy product of exponentials, one screw at a time (`exp6`, Rowe
   eq. 13), with the derivative dT/dt_k = E1..E(k-1) [S_k] E_k..E_n; `exp6`
   itself is checked against scipy's matrix exponential.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

from suspension_sim.model.screws import (
    chain_template,
    exp6,
    lambdify_chain,
    prismatic_screw,
    revolute_screw,
    skew,
)
from suspension_sim.model.templates_generated import TEMPLATES
from suspension_sim.model.topology import SIGNATURES

AXIS = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0), "-z": (0.0, 0.0, -1.0)}
"""Local joint axes, written out here rather than taken from the code under test."""

SHIPPED = sorted(TEMPLATES, key=repr)


def bracket(screw: np.ndarray) -> np.ndarray:
    """The 4x4 matrix [S] of a screw S = (w, v)."""
    out = np.zeros((4, 4))
    out[:3, :3] = skew(screw[:3])
    out[:3, 3] = screw[3:]
    return out


def reference_chain(signature: tuple[tuple[str, str], ...], theta: np.ndarray) -> np.ndarray:
    """(1 + k, 3, 4): T and dT/dt_k by the numpy PoE, for one parameter vector."""
    screw_list = [
        revolute_screw(np.array(AXIS[axis]), np.zeros(3))
        if kind == "R"
        else prismatic_screw(np.array(AXIS[axis]))
        for kind, axis in signature
    ]
    factors = [exp6(s, t) for s, t in zip(screw_list, theta, strict=True)]
    out = [np.linalg.multi_dot([np.eye(4), np.eye(4), *factors])]
    for k, s in enumerate(screw_list):
        out.append(np.linalg.multi_dot([np.eye(4), *factors[:k], bracket(s), *factors[k:]]))
    return np.array([m[:3] for m in out])


def random_parameters(k: int, batch: int, rng: np.random.Generator) -> np.ndarray:
    """(k, batch): angles in (-pi, pi) rad and translations in (-300, 300) mm."""
    return rng.uniform(-np.pi, np.pi, (k, batch)) * rng.choice([1.0, 100.0], (k, 1))


def test_every_joint_class_is_shipped() -> None:
    assert set(SIGNATURES.values()) == set(TEMPLATES)


@pytest.mark.parametrize("signature", SHIPPED, ids=repr)
def test_shipped_equals_a_fresh_sympy_build(signature: tuple[tuple[str, str], ...]) -> None:
    rng = np.random.default_rng(len(signature))
    theta = random_parameters(len(signature), 50, rng)
    shipped = TEMPLATES[signature](*theta)
    fresh = lambdify_chain(signature)(*theta)
    assert len(shipped) == len(fresh) == 12 * (1 + len(signature))
    for a, b in zip(shipped, fresh, strict=True):
        np.testing.assert_allclose(
            np.broadcast_to(a, (50,)), np.broadcast_to(b, (50,)), rtol=0, atol=1e-12
        )


@pytest.mark.parametrize("signature", SHIPPED, ids=repr)
def test_shipped_equals_the_numpy_product_of_exponentials(
    signature: tuple[tuple[str, str], ...],
) -> None:
    rng = np.random.default_rng(7 + len(signature))
    k, n, batch = len(signature), 3, 4
    theta = np.stack([random_parameters(k, batch, rng) for _ in range(n)])  # (n, k, B)
    got = chain_template(signature)(theta)  # (n, 1 + k, 3, 4, B)
    assert got.shape == (n, 1 + k, 3, 4, batch)
    for i in range(n):
        for b in range(batch):
            want = reference_chain(signature, theta[i, :, b])
            np.testing.assert_allclose(got[i, :, :, :, b], want, rtol=0, atol=1e-12)


def test_a_chain_that_is_not_shipped_is_generated_in_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A new signature works, and nothing is read from or written to the cache folder."""
    monkeypatch.setenv("SUSPENSION_SIM_CACHE_DIR", str(tmp_path))
    signature = (("R", "z"), ("P", "x"), ("R", "-z"))
    assert signature not in TEMPLATES
    rng = np.random.default_rng(3)
    theta = random_parameters(3, 5, rng)[None]
    got = chain_template(signature)(theta)
    for b in range(5):
        np.testing.assert_allclose(
            got[0, :, :, :, b], reference_chain(signature, theta[0, :, b]), rtol=0, atol=1e-12
        )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "screw",
    [
        np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
        np.array([0.6, 0.0, 0.8, 12.0, -40.0, 7.5]),  # rotation with pitch, off the origin
        np.array([0.0, 0.0, 0.0, 0.36, 0.48, 0.8]),  # pure translation
    ],
)
def test_exp6_is_the_matrix_exponential(screw: np.ndarray) -> None:
    for theta in (-2.5, 0.3, 40.0):
        np.testing.assert_allclose(
            exp6(screw, theta), scipy.linalg.expm(bracket(screw) * theta), rtol=0, atol=1e-9
        )


def test_canonical_screws() -> None:
    point = np.array([10.0, -20.0, 5.0])
    s = revolute_screw(np.array([0.0, 0.0, 2.0]), point)
    np.testing.assert_allclose(s, [0, 0, 1, -20.0, -10.0, 0.0])  # v = -w x q
    # Rotating by pi about that axis maps the origin to 2 * (q projected on xy).
    np.testing.assert_allclose(exp6(s, np.pi)[:3, 3], [20.0, -40.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(prismatic_screw(np.array([0.0, 3.0, 4.0])), [0, 0, 0, 0, 0.6, 0.8])
