"""The kinematic model: body transforms, joined-point residuals and Jacobian.

A pose is a parameter vector q (one entry per joint parameter, see
`topology`). Every body part moves by ``G(q) = F @ T(q) @ F^-1`` where F is
its local frame at design and T the lambdified PoE of its joint chain, both
in chassis coordinates (the chassis 6-DOF state moves everything rigidly
afterwards and cannot open a joint, so the constraints are solved in the
chassis frame).

Residuals: for every point named on several bodies, copy(b) - copy(a) for
each further body b (three equations per pair, no square roots, Rowe eq. 14).
The Jacobian is analytic (symbolic derivatives of the PoE) and sparse with a
pattern fixed by the body graph.

Every evaluation takes a trailing batch axis (B input states at once) so that
replaying logged data needs no rewrite. Units: mm, rad.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from suspension_sim.description import CHASSIS, Car
from suspension_sim.model.screws import chain_template
from suspension_sim.model.topology import SIGNATURES, Part, Topology, classify
from suspension_sim.tolerances import COINCIDENT_MM

if TYPE_CHECKING:  # pragma: no cover
    import scipy.sparse as sps

_T = TypeVar("_T")


class Derived:
    """Memo of data that higher layers derive from one model (solver problems,
    metric layouts, the damper-wheel map): computed once per model and key,
    held here instead of in module-level dictionaries or ``model.__dict__``."""

    def __init__(self) -> None:
        self._values: dict[Any, Any] = {}

    def get(self, key: Any, build: Callable[[], _T]) -> _T:
        """The value for `key`, building (and keeping) it on first use."""
        try:
            return self._values[key]
        except KeyError:
            value = build()
            self._values[key] = value
            return value

    def clear(self) -> None:
        self._values.clear()


@dataclass(frozen=True)
class JacobianLayout:
    """Fixed CSR structure of d residual / d unknowns for one set of unknowns.

    `unknowns` are global parameter indices (column order). Values come from
    the per-instance derivative array by fancy indexing: ``value =
    sign * dP[inst, slot, axis]``, already in CSR order.
    """

    unknowns: np.ndarray
    rows: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    inst: np.ndarray
    slot: np.ndarray
    axis: np.ndarray
    sign: np.ndarray
    shape: tuple[int, int]


class KinematicModel:
    """A car's kinematic model: transforms, residuals and Jacobian, nothing else.

    Build with `KinematicModel(car)`; `suspension_sim.load` returns the
    user-facing `suspension_sim.Model`, which adds `solve` on top.
    """

    def __init__(self, car: Car):
        self.car = car
        self.topology: Topology = classify(car)
        self.n_params = len(self.topology.param_names)
        self._build_parts()
        self._build_instances()
        self._layouts: dict[bytes, JacobianLayout] = {}
        self.derived = Derived()
        """Per-model memo for higher layers (see `Derived`)."""

    # -- construction -----------------------------------------------------------
    def _build_parts(self) -> None:
        chassis = self.car.body(CHASSIS)
        fixed_parts = [Part(CHASSIS, "fixed", np.eye(4), (), chassis.points)]
        moving: list[Part] = []
        for j in self.topology.joints:
            for part in j.parts:
                (fixed_parts if part.chain == "fixed" else moving).append(part)
        self.parts: list[Part] = fixed_parts + moving
        self.n_fixed_parts = len(fixed_parts)
        self.kmax = max((len(SIGNATURES[p.chain]) for p in self.parts), default=0)
        # Group moving parts by chain so one lambdified call serves a group.
        self.groups: list[tuple[str, np.ndarray, np.ndarray]] = []
        for chain in dict.fromkeys(p.chain for p in moving):
            idx = np.array([i for i, p in enumerate(self.parts) if p.chain == chain])
            params = np.array([self.parts[i].params for i in idx], dtype=int)
            self.groups.append((chain, idx, params))
        frames = np.array([p.frame for p in self.parts])
        self.frame = frames
        self.frame_inv = np.linalg.inv(frames)

    def _build_instances(self) -> None:
        pts = self.car.point_map()
        part_of: list[int] = []
        names: list[str] = []
        bodies: list[str] = []
        for i, part in enumerate(self.parts):
            for p in part.points:
                part_of.append(i)
                names.append(p)
                bodies.append(part.body)
        self.inst_part = np.array(part_of, dtype=int)
        self.inst_point = tuple(names)
        self.inst_body = tuple(bodies)
        self.inst_index: dict[tuple[str, str], int] = {
            (n, b): i for i, (n, b) in enumerate(zip(names, bodies, strict=True))
        }
        """(point, body) -> row of that point copy in every per-instance array."""
        self.inst_design = np.array([pts[n] for n in names], dtype=float).reshape(-1, 3)
        # Design coordinates in each part's local frame, and that frame's placement.
        frame = self.frame[self.inst_part]
        finv = self.frame_inv[self.inst_part]
        self.inst_local = (
            np.einsum("nij,nj->ni", finv[:, :3, :3], self.inst_design) + finv[:, :3, 3]
        )
        self.inst_rot = frame[:, :3, :3].copy()
        self.inst_origin = frame[:, :3, 3].copy()
        # Slot -> global parameter index for each instance (-1 = none).
        slots = np.full((len(names), max(self.kmax, 1)), -1, dtype=int)
        for i, part_index in enumerate(part_of):
            params = self.parts[part_index].params
            slots[i, : len(params)] = params
        self.inst_slots = slots
        # Joined pairs: reference copy (chassis copy when there is one) vs others.
        first: dict[str, int] = {}
        pairs: list[tuple[int, int]] = []
        by_point: dict[str, list[int]] = {}
        for i, n in enumerate(names):
            by_point.setdefault(n, []).append(i)
        for n, copies in by_point.items():
            if len(copies) < 2:
                continue
            ref = copies[0]  # chassis parts come first, so this is the chassis copy if any
            first[n] = ref
            pairs.extend((ref, c) for c in copies[1:])
        self.pair_a = np.array([a for a, _ in pairs], dtype=int)
        self.pair_b = np.array([b for _, b in pairs], dtype=int)
        self.pair_point = tuple(names[a] for a, _ in pairs)
        self.pair_bodies = tuple((bodies[a], bodies[b]) for a, b in pairs)
        self.joined_points = tuple(dict.fromkeys(self.pair_point))
        self.n_residuals = 3 * len(pairs)
        self.active_pairs = self._active_pairs()

    def _active_pairs(self) -> np.ndarray:
        """Pairs that can open at all. A chassis point on its body's joint axis
        (a wishbone pivot, a universal centre) coincides by construction; its
        three zero rows are kept for reporting but left out of the solve."""
        if not len(self.pair_a):
            return np.zeros(0, dtype=int)
        rng = np.random.default_rng(0)
        q = rng.uniform(-0.5, 0.5, size=(self.n_params, 3))
        P, _ = self.instance_positions(q, derivatives=False)
        moves = np.abs(P - self.inst_design[:, :, None]).max(axis=(1, 2)) > COINCIDENT_MM
        fixed = self.inst_part < self.n_fixed_parts
        structural = (
            ~moves[self.pair_b] & ~moves[self.pair_a] & (fixed[self.pair_a] | fixed[self.pair_b])
        )
        return np.flatnonzero(~structural)

    # -- evaluation -------------------------------------------------------------
    def local_transforms(self, q: np.ndarray) -> np.ndarray:
        """Local PoE transforms of every part, (n_parts, 1 + kmax, 3, 4, B).

        Entry 0 is T(q) (top three rows), entry 1 + k its derivative with
        respect to the part's k-th joint parameter; fixed parts give identity.
        One lambdified call per joint class, for all its bodies and states.
        """
        q = np.asarray(q, dtype=float)
        batch = q.shape[1]
        out = np.zeros((len(self.parts), 1 + self.kmax, 3, 4, batch))
        out[:, 0, 0, 0] = out[:, 0, 1, 1] = out[:, 0, 2, 2] = 1.0
        for chain, idx, params in self.groups:
            k = params.shape[1]
            out[idx, : 1 + k] = chain_template(SIGNATURES[chain])(q[params])
        return out

    def part_transforms(
        self, q: np.ndarray, derivatives: bool = True
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Chassis-frame transforms of every part for parameters q (n_params, B).

        Returns G = F T F^-1 (n_parts, 3, 4, B) and, if asked, dG (n_parts,
        kmax, 3, 4, B), its derivative with respect to each joint parameter.
        Used for reporting body frames; the hot path uses `instance_positions`.
        """
        local = self.local_transforms(q)
        n = len(self.parts)
        G = _conjugate(self.frame, local[:, 0], self.frame_inv, homogeneous=True)
        if not derivatives:
            return G, None
        batch = local.shape[-1]  # explicit: with no joint parameters the arrays are empty
        rep = np.repeat(np.arange(n), self.kmax)
        d = local[:, 1:].reshape(n * self.kmax, 3, 4, batch)
        dG = _conjugate(self.frame[rep], d, self.frame_inv[rep], homogeneous=False)
        return G, dG.reshape(n, self.kmax, 3, 4, batch)

    def instance_positions(
        self, q: np.ndarray, derivatives: bool = True
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Position of every point copy (n_inst, 3, B) and d/d slot (n_inst, kmax, 3, B).

        p = F (T (F^-1 x)): the design point in its part's local frame is
        precomputed, so one pass of two einsums serves every point and slot.
        """
        local = self.local_transforms(q)[self.inst_part]
        if not derivatives:
            local = local[:, :1]
        # T @ [x_local; 1] for the transform and each derivative.
        Y = np.einsum("nkijb,nj->nkib", local[:, :, :, :3], self.inst_local)
        Y[:, 0] += local[:, 0, :, 3]
        Y[:, 1:] += local[:, 1:, :, 3]
        W = np.einsum("nij,nkjb->nkib", self.inst_rot, Y)
        P = W[:, 0] + self.inst_origin[:, :, None]
        return P, (W[:, 1:] if derivatives else None)

    def residuals(self, q: np.ndarray) -> np.ndarray:
        """Residual vector (3 per joined pair, mm) for q (n_params, B) -> (m, B)."""
        P, _ = self.instance_positions(q, derivatives=False)
        return (P[self.pair_b] - P[self.pair_a]).reshape(self.n_residuals, P.shape[-1])

    def layout(self, unknowns: np.ndarray) -> JacobianLayout:
        """CSR structure of the Jacobian for the given unknown parameters (cached)."""
        unknowns = np.asarray(unknowns, dtype=int)
        key = unknowns.tobytes()
        if key in self._layouts:
            return self._layouts[key]
        col_of = np.full(self.n_params, -1, dtype=int)
        col_of[unknowns] = np.arange(len(unknowns))
        entries: list[tuple[int, int, int, int, int, float]] = []
        act = self.active_pairs
        for r, (a, b) in enumerate(zip(self.pair_a[act], self.pair_b[act], strict=True)):
            for inst, sign in ((b, 1.0), (a, -1.0)):
                for slot, p in enumerate(self.inst_slots[inst]):
                    if p < 0 or col_of[p] < 0:
                        continue
                    for axis in range(3):
                        entries.append((3 * r + axis, int(col_of[p]), inst, slot, axis, sign))
        entries.sort(key=lambda e: (e[0], e[1]))
        arr = np.array(entries, dtype=float).reshape(-1, 6)
        rows = arr[:, 0].astype(int)
        n_rows = 3 * len(act)
        indptr = np.searchsorted(rows, np.arange(n_rows + 1))
        out = JacobianLayout(
            unknowns=unknowns,
            rows=rows,
            indptr=indptr,
            indices=arr[:, 1].astype(int),
            inst=arr[:, 2].astype(int),
            slot=arr[:, 3].astype(int),
            axis=arr[:, 4].astype(int),
            sign=arr[:, 5],
            shape=(n_rows, len(unknowns)),
        )
        self._layouts[key] = out
        return out

    def residuals_and_jacobian_data(
        self, q: np.ndarray, layout: JacobianLayout
    ) -> tuple[np.ndarray, np.ndarray]:
        """Residuals of the active pairs (m, B) and Jacobian values (nnz, B) in CSR order."""
        r, data, _, _ = self.evaluate_state(q, layout)
        return r, data

    def evaluate_state(
        self, q: np.ndarray, layout: JacobianLayout
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """As `residuals_and_jacobian_data`, plus the point copies P and dP used."""
        P, dP = self.instance_positions(q, derivatives=True)
        assert dP is not None
        act = self.active_pairs
        r = (P[self.pair_b[act]] - P[self.pair_a[act]]).reshape(3 * len(act), P.shape[-1])
        data = layout.sign[:, None] * dP[layout.inst, layout.slot, layout.axis]
        return r, data, P, dP

    def dense_jacobian(self, q: np.ndarray, unknowns: np.ndarray) -> np.ndarray:
        """Dense Jacobian d residual / d q[unknowns] at one state q (n_params,): the same
        numbers as `jacobian`, without importing scipy.sparse (the design checks)."""
        lay = self.layout(unknowns)
        _, data = self.residuals_and_jacobian_data(np.asarray(q).reshape(-1, 1), lay)
        out = np.zeros(lay.shape)
        rows = np.repeat(np.arange(lay.shape[0]), np.diff(lay.indptr))
        np.add.at(out, (rows, lay.indices), data[:, 0])
        return out

    def jacobian(self, q: np.ndarray, unknowns: np.ndarray) -> sps.csr_matrix:
        """Sparse Jacobian d residual / d q[unknowns] at one state q (n_params,)."""
        lay = self.layout(unknowns)
        _, data = self.residuals_and_jacobian_data(np.asarray(q).reshape(-1, 1), lay)
        import scipy.sparse as sps  # imported when first needed: ~0.2 s of a first pose

        return sps.csr_matrix((data[:, 0], lay.indices, lay.indptr), shape=lay.shape)

    # -- inputs ----------------------------------------------------------------
    @property
    def damper_names(self) -> tuple[str, ...]:
        return tuple(d.body for d in self.car.dampers)

    def input_params(self) -> np.ndarray:
        """Global indices of the input parameters (strokes, then rack travel)."""
        ids = list(self.topology.damper_params)
        if self.topology.rack_param is not None:
            ids.append(self.topology.rack_param)
        return np.array(ids, dtype=int)


def slot_rates(slots: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """Per-slot parameter rates: ``dq[slots]`` with slot -1 (no parameter) giving 0.

    slots: (..., k) global parameter indices or -1; dq: (n_params, n_cols) rates
    of every parameter per tangent column. Returns (..., k, n_cols).
    """
    padded = np.vstack([dq, np.zeros((1, dq.shape[1]))])  # row -1 is the zero row
    return padded[slots]


def _conjugate(F: np.ndarray, T: np.ndarray, Finv: np.ndarray, homogeneous: bool) -> np.ndarray:
    """F @ [T; 0 0 0 h] @ Finv for stacks: F, Finv (n, 4, 4), T (n, 3, 4, B) -> (n, 3, 4, B).

    h = 1 for a transform, 0 for a derivative of one.
    """
    n, _, _, B = T.shape
    # rotate rows: (n, 3, 3) @ (n, 3, 4B); then each row (.., 4) times Finv: matmul, not
    # einsum (the same products, several times faster on these small stacks)
    FT = np.matmul(F[:, :3, :3], T.reshape(n, 3, 4 * B)).reshape(n, 3, 4, B)
    if homogeneous:
        FT[:, :, 3] += F[:, :3, 3, None]
    out = np.matmul(FT.transpose(0, 1, 3, 2), Finv[:, None, :, :])  # (n, 3, B, 4)
    return out.transpose(0, 1, 3, 2)
