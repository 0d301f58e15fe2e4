"""Hardpoint sensitivities: d metric / d hardpoint coordinate, by the implicit function theorem.

A pose is the joint-parameter vector q that closes the residuals r(q, p) = 0 (joined point
copies coincide, plus the motion's targets such as contact points on the ground), where p
holds every hardpoint coordinate (mm). The model's hardpoints enter in two places: each
point copy's design position, and the local frame F of every body (its joint axes run
through hardpoints: a wishbone's pivot axis, a damper's axis, a link's direction; a free
body's frame sits at the centroid of its points). A copy is placed by

    P(q, p) = F(p) T(q) F(p)^-1 x(p)

with T the product of exponentials of the body's joint chain (the shipped sympy-generated
templates, evaluated here on derivative-carrying arrays). Everything is differentiated
exactly in forward mode (`suspension_sim.explore.dual`): the frames through their
construction from the points, T through sin/cos of the joint parameters, and every metric
through the project's own metric formulas (`suspension_sim.metrics`), so the values are the
same numbers `pose_metrics` reports. Then

    dq/dp = -(dr/dq_x)^+ dr/dp          (x: the unknowns; inputs held, targets freed)
    dm/dp = dm/dP (dP/dq dq/dp + dP/dp)

in one pass over all 3 x n_points directions. At design q = 0 for every p, so dq/dp = 0
there. Rates (motion ratio, camber gain, roll centre) are derivatives along the pose's own
tangents; their hardpoint derivatives follow from the same pass, because the tangents are
solved from the derivative-carrying Jacobian.

Units: hardpoint coordinates in mm; each derivative is in the metric's unit per mm.

One module for now (~960 lines): the frames' derivatives, the IFT solve and the metric
pass share one set of forward-mode arrays (`explore.dual`); the result type and its tables
would split out first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.description import CHASSIS
from suspension_sim.errors import InputError
from suspension_sim.explore.dual import Dual, DualArray, lstsq, value
from suspension_sim.metrics.catalogue import CATALOGUE
from suspension_sim.metrics.centres import centre_columns
from suspension_sim.metrics.conventions import preset
from suspension_sim.metrics.geometry import (
    Slot,
    WheelSet,
    geometry_columns,
    place_wheels,
    wheel_set,
)
from suspension_sim.metrics.rates import point_velocities, rate_columns
from suspension_sim.metrics.vectors import cross, dot, unit
from suspension_sim.model.screws import lambdify_chain, rotation_xyz
from suspension_sim.model.templates_generated import TEMPLATES
from suspension_sim.model.topology import SIGNATURES
from suspension_sim.tolerances import MIN_STEER_TWIST

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose
    from suspension_sim.solve.state import State
    from suspension_sim.sweeps.motions import Motion

AXES = ("x", "y", "z")

GEOMETRY_IDS = frozenset(
    {
        "wheel_travel",
        "camber",
        "camber_chassis",
        "camber_front_view",
        "toe",
        "toe_wheel_plane",
        "steer",
        "caster",
        "kpi",
        "scrub_radius",
        "mechanical_trail",
        "spindle_length",
        "pushrod_length",
        "half_track",
        "wheel_centre",
        "contact_point",
        "track",
        "wheelbase",
    }
)
"""Geometry metrics differentiated (`metrics.geometry.geometry_columns`)."""

RATE_IDS = frozenset(
    {"motion_ratio", "installation_ratio", "camber_gain", "bump_steer", "bump_steer_per_25mm"}
    | {"steer_rate", "roll_camber"}
)
"""Rate metrics differentiated (`metrics.rates.rate_columns`)."""

CENTRE_IDS = frozenset(
    {"roll_centre_height", "roll_centre_lateral", "roll_centre_line_angle"}
    | {"pitch_centre", "pitch_centre_line_angle"}
)
"""Instant-centre metrics differentiated (`metrics.centres.centre_columns`)."""

ANTI_IDS = frozenset({"anti_dive", "anti_lift", "anti_squat"})
"""Anti percentages, differentiated where the anti is taken at the contact point (outboard
brakes, a drive through the uprights); one taken at the wheel centre (inboard brakes, a
chassis-mounted drive) goes through its side-view centre, which is not differentiated yet,
and is left out."""

SUPPORTED_IDS = GEOMETRY_IDS | RATE_IDS | CENTRE_IDS | ANTI_IDS | {"ackermann"}
"""Every metric id `sensitivity` reports (the others, e.g. the OptimumK-comparison contact
patch, Ackermann and the antis, are not differentiated yet)."""


@dataclass(frozen=True)
class SensitivityResult:
    """Derivatives of metrics with respect to hardpoint coordinates.

    `matrix[i, j]` is d metrics[i] / d coordinates[j] in the metric's unit per mm; `values`
    the metrics (at design, or their change over the motion: last step minus first).
    `coordinates` are (point, axis); with `symmetric` a left point stands for its mirror
    pair (its y moves the left point by +dy and the right one by -dy).
    """

    metrics: tuple[str, ...]
    units: tuple[str, ...]
    values: np.ndarray
    coordinates: tuple[tuple[str, str], ...]
    matrix: np.ndarray
    what: str  # "design" or "change over <motion>"
    symmetric: bool = False
    pairs: dict[str, str] = dataclasses.field(default_factory=dict)
    """With `symmetric`: point -> its mirror partner (the column's point is the first)."""
    redundant: int = 0
    """Redundant joint equations at design (an over-constrained linkage, e.g. a solid axle
    located by more links than it needs): its mobility rests on an exact alignment of
    points, so moving one point of those links alone may lock it (`redundant_points` are
    the joints that carry the redundancy); the derivatives then hold only for moves that
    keep the alignment."""
    redundant_points: tuple[str, ...] = ()

    def table(self) -> pd.DataFrame:
        """Tidy table: metric, unit, point, axis, value (metric unit per mm), metric value."""
        import pandas as pd

        n_m, n_c = self.matrix.shape
        pts = [p for p, _ in self.coordinates]
        axes = [a for _, a in self.coordinates]
        return pd.DataFrame(
            {
                "metric": np.repeat(self.metrics, n_c),
                "unit": np.repeat([f"{u}/mm" if u != "-" else "1/mm" for u in self.units], n_c),
                "point": np.tile(pts, n_m),
                "partner": np.tile([self.pairs.get(p, "") for p in pts], n_m),
                "axis": np.tile(axes, n_m),
                "derivative": self.matrix.reshape(-1),
                "metric_value": np.repeat(self.values, n_c),
                "evaluated": self.what,
            }
        )

    def column(self, metric: str) -> np.ndarray:
        """The derivatives of one metric (by column name), one per coordinate."""
        try:
            return np.asarray(self.matrix[self.metrics.index(metric)])
        except ValueError:
            raise KeyError(metric) from None

    def derivative(self, metric: str, point: str, axis: str) -> float:
        """d metric / d point.axis (metric unit per mm)."""
        return float(self.column(metric)[self.coordinates.index((point, axis))])

    def top(self, metric: str, count: int = 10) -> list[tuple[str, str, float]]:
        """The `count` coordinates with the largest |derivative| of a metric, largest first."""
        col = self.column(metric)
        order = np.argsort(-np.abs(col), kind="stable")[:count]
        return [(*self.coordinates[i], float(col[i])) for i in order]


# -- the model on derivative-carrying arrays -----------------------------------------------------
@dataclass(frozen=True)
class _Layout:
    """Per-model index arrays (built once)."""

    names: tuple[str, ...]  # hardpoints, one per point of the car
    p0: np.ndarray  # (n_points, 3) design coordinates
    inst_pt: np.ndarray  # point index of every copy
    onehot: np.ndarray  # (n_inst, kmax, n_params): slot -> parameter
    recipes: tuple[tuple[str, tuple[int, ...]], ...]  # per part: frame kind, point indices
    ref: int  # chassis reference point index, -1 none


def _layout(model: KinematicModel) -> _Layout:
    return model.derived.get(("explore", "sensitivity_layout"), lambda: _build_layout(model))


def _build_layout(model: KinematicModel) -> _Layout:
    car = model.car
    pmap = car.point_map()
    names = tuple(pmap)
    index = {n: i for i, n in enumerate(names)}
    p0 = np.array([pmap[n] for n in names], dtype=float).reshape(-1, 3)
    kmax = max(model.kmax, 1)
    onehot = np.zeros((len(model.inst_point), kmax, model.n_params))
    for i, slots in enumerate(model.inst_slots):
        for s, par in enumerate(slots):
            if par >= 0:
                onehot[i, s, par] = 1.0
    chassis = set(car.body(CHASSIS).points)
    dampers = {d.body: d for d in car.dampers}
    bars = {b.arms[0]: b for b in car.anti_roll_bars if b.kind == "T-bar"}
    recipes: list[tuple[str, tuple[int, ...]]] = []
    for part in model.parts:
        kind = model.topology.joint(part.body).kind if part.body != CHASSIS else "fixed"
        body = car.body(part.body)
        shared = [p for p in body.points if p in chassis]
        others = [p for p in body.points if p not in chassis]
        if kind == "fixed":
            recipes.append(("identity", ()))
        elif kind == "damper":
            d = dampers[part.body]
            recipes.append(("axis", (index[d.moving_point], index[d.chassis_point])))
        elif kind == "rack":
            assert car.rack is not None
            e0, e1 = car.rack.end_points
            recipes.append(("rack", (index[e1], index[e0])))
        elif kind == "revolute":
            recipes.append(("axis", (index[shared[1]], index[shared[0]])))
        elif kind == "universal":
            recipes.append(("axis", (index[others[0]], index[shared[0]])))
        elif kind == "spherical":
            recipes.append(("at", (index[shared[0]],)))
        elif kind == "link5":
            recipes.append(("axis", (index[body.points[1]], index[body.points[0]])))
        elif kind == "free6":
            recipes.append(("centroid", tuple(index[p] for p in body.points)))
        elif kind == "tbar":
            bar = bars[part.body]
            assert bar.shaft_point is not None
            pivot, axis2 = bar.axis_points
            recipes.append(("tbar", (index[pivot], index[axis2], index[bar.shaft_point])))
        else:  # pragma: no cover - every class of topology.SIGNATURES is handled above
            raise NotImplementedError(kind)
    ref_name = car.options.chassis_reference_point
    lay = _Layout(
        names=names,
        p0=p0,
        inst_pt=np.array([index[n] for n in model.inst_point]),
        onehot=onehot,
        recipes=tuple(recipes),
        ref=index[ref_name] if ref_name else -1,
    )
    # The frames rebuilt from the points must be the model's own (same parametrisation).
    R, o = _frames(model, lay, Dual.constant(p0, 1))
    for i, part in enumerate(model.parts):
        if not (
            np.allclose(R.val[i], part.frame[:3, :3], atol=1e-9)
            and np.allclose(o.val[i], part.frame[:3, 3], atol=1e-9)
        ):
            raise RuntimeError(f"sensitivity: the frame of {part.body!r} is not rebuilt exactly")
    return lay


def _frames_from_axes(z_axis: DualArray, origin: DualArray) -> tuple[DualArray, DualArray]:
    """`model.screws.frame_from_axis` for many axes (n, 3) on Duals: local z along the
    axis, x perpendicular to z and to the model axis least aligned with z (locally
    constant), y = z x x. Returns rotations (n, 3, 3) and origins (n, 3)."""
    z = unit(z_axis)
    helper = np.eye(3)[np.argmin(np.abs(value(z)), axis=-1)]
    x = unit(cross(helper, z))
    y = cross(z, x)
    return np.stack([x, y, z], axis=-1), origin


def _frames(model: KinematicModel, lay: _Layout, p: DualArray) -> tuple[DualArray, DualArray]:
    """Rotation (n_parts, 3, 3) and origin (n_parts, 3) of every part's local frame, built
    from the points exactly as `model.topology.classify` builds them."""
    n = p.n
    n_parts = len(lay.recipes)
    R = Dual.constant(np.broadcast_to(np.eye(3), (n_parts, 3, 3)), n)
    o = Dual.constant(np.zeros((n_parts, 3)), n)
    groups: dict[str, list[int]] = {}
    for i, (kind, _) in enumerate(lay.recipes):
        groups.setdefault(kind, []).append(i)
    for kind, parts in groups.items():
        idx = np.array([lay.recipes[i][1] for i in parts], dtype=int).reshape(len(parts), -1)
        if kind == "identity":
            continue
        if kind in ("axis", "rack"):
            axis = p[idx[:, 0]] - p[idx[:, 1]]
            if kind == "rack":  # oriented toward +Y
                axis = unit(axis) * np.where(value(unit(axis))[:, 1] > 0, 1.0, -1.0)[:, None]
            R[parts], o[parts] = _frames_from_axes(axis, p[idx[:, 1]])
        elif kind == "at":
            o[parts] = p[idx[:, 0]]
        elif kind == "tbar":  # x = pivot axis, y = shaft axis made perpendicular, z = x cross y
            u = unit(p[idx[:, 1]] - p[idx[:, 0]])
            s = unit(p[idx[:, 2]] - p[idx[:, 0]])
            w = unit(s - dot(s, u)[:, None] * u)
            R[parts] = np.stack([u, w, cross(u, w)], axis=-1)
            o[parts] = p[idx[:, 0]]
        else:  # centroid: a free body's frame sits at the mean of its points
            for i in parts:
                pts = list(lay.recipes[i][1])
                o[i] = p[pts].sum(axis=0) / len(pts)
    return R, o


def _transforms(model: KinematicModel, q: DualArray) -> DualArray:
    """Local PoE transforms and their derivatives, (n_parts, 1 + kmax, 3, 4): the shipped
    templates (sin/cos of the joint parameters) evaluated on Duals; a plain array when q
    carries no derivative (at design q = 0 whatever the hardpoints)."""
    n = q.n
    if not np.any(q.der):
        return model.local_transforms(q.val[:, None])[..., 0]
    kmax = max(model.kmax, 1)
    blocks: list[Any] = []
    order: list[int] = []
    fixed = np.zeros((model.n_fixed_parts, 1 + kmax, 3, 4))
    fixed[:, 0, :, :3] = np.eye(3)
    blocks.append(fixed)
    order.extend(range(model.n_fixed_parts))
    for chain, idx, params in model.groups:
        signature = SIGNATURES[chain]
        raw = TEMPLATES.get(signature) or lambdify_chain(signature)
        k = params.shape[1]
        theta = q[params]  # (n_g, k)
        entries = raw(*(theta[:, j] for j in range(k)))
        flat = np.stack(
            [e if isinstance(e, Dual) else np.full(len(idx), float(e)) for e in entries]
        )
        T = flat.reshape(1 + k, 3, 4, len(idx)).transpose(3, 0, 1, 2)
        if k < kmax:
            T = np.concatenate([T, np.zeros((len(idx), kmax - k, 3, 4))], axis=1)
        blocks.append(T)
        order.extend(int(i) for i in idx)
    allT = np.concatenate([b if isinstance(b, Dual) else Dual.constant(b, n) for b in blocks])
    return allT[np.argsort(np.array(order))]


@dataclass
class _Placed:
    """Point copies of one state on Duals: P (n_inst, 3), dP (n_inst, kmax, 3) d/d slot,
    the frames and transforms (for body twists), chassis rotation (plain) and translation."""

    P: DualArray
    dP: DualArray
    R_F: DualArray
    o_F: DualArray
    T: DualArray
    Rc: np.ndarray
    tc: DualArray


def _place(
    model: KinematicModel, lay: _Layout, q: DualArray, p: DualArray, chassis: Sequence[float]
) -> _Placed:
    R_F, o_F = _frames(model, lay, p)
    T = _transforms(model, q)
    part = model.inst_part
    Rp, op = R_F[part], o_F[part]
    x = p[lay.inst_pt]
    local = np.einsum("nji,nj->ni", Rp, x - op)
    Ti = T[part]
    Y = np.einsum("nkij,nj->nki", Ti[:, :, :, :3], local) + Ti[:, :, :, 3]
    W = np.einsum("nij,nkj->nki", Rp, Y)
    P = W[:, 0] + op
    dP = W[:, 1:]
    xs, ys, zs, roll, pitch, yaw = (float(v) for v in chassis)
    Rc = rotation_xyz(np.radians(roll), np.radians(pitch), np.radians(yaw))
    ref = p[lay.ref] if lay.ref >= 0 else Dual.constant(np.zeros(3), p.n)
    tc = ref + np.array([xs, ys, zs]) - np.einsum("ij,j->i", Rc, ref)
    return _Placed(P, dP, R_F, o_F, T, Rc, tc)


def _jacobian(model: KinematicModel, pl: _Placed) -> DualArray:
    """d joint residuals / d every parameter (3 rows per active pair, n_params), gathered
    from the copies' slot derivatives with the model's own CSR layout."""
    lay = model.layout(np.arange(model.n_params))
    data = pl.dP[lay.inst, lay.slot, lay.axis] * lay.sign
    rows = np.repeat(np.arange(lay.shape[0]), np.diff(lay.indptr))
    val = np.zeros(lay.shape)
    val[rows, lay.indices] = data.val
    der = np.zeros((data.n, *lay.shape))
    der[:, rows, lay.indices] = data.der
    return Dual(val, der)


def _residuals(
    model: KinematicModel, lay: _Layout, pl: _Placed, state: State, p: DualArray
) -> DualArray:
    """Joint residuals of the active pairs and the state's target residuals (mm)."""
    act = model.active_pairs
    r = (pl.P[model.pair_b[act]] - pl.P[model.pair_a[act]]).reshape(-1)
    rows = [r]
    wheels = {w.name: w for w in model.car.wheels}
    index = {n: i for i, n in enumerate(lay.names)}
    for tg in state.targets.values():
        if tg.kind in ("contact_z", "travel"):
            w = wheels[tg.name]
            C = pl.P[model.inst_index[(w.centre, w.body)]]
            if tg.kind == "travel":
                rows.append((C[2] - p[index[w.centre]][2] - tg.value).reshape(1))
                continue
            A = pl.P[model.inst_index[(w.axis_point, w.body)]]
            s = unit(np.einsum("ij,j->i", pl.Rc, A - C))
            cz = dot(pl.Rc[2], C) + pl.tc[2]
            rows.append((cz - w.tyre_radius * np.sqrt(1.0 - s[2] * s[2]) - tg.value).reshape(1))
        else:
            copy = model.inst_point.index(tg.name)
            a = AXES.index(tg.axis)
            P = pl.P[copy]
            coord = dot(pl.Rc[a], P) + pl.tc[a] if tg.frame == "world" else P[a]
            rows.append((coord - tg.value).reshape(1))
    return np.concatenate(rows)


def _unknowns(model: KinematicModel, state: State) -> np.ndarray:
    """Parameters solved for: all but the inputs that are held (not replaced by a target)."""
    held = [p for d, p in zip(model.damper_names, model.topology.damper_params, strict=True)]
    held = [p for d, p in zip(model.damper_names, held, strict=True) if d not in state.targets]
    if model.topology.rack_param is not None and "rack" not in state.targets:
        held.append(model.topology.rack_param)
    return np.setdiff1d(np.arange(model.n_params), np.array(held, dtype=int))


def _parameter_rates(
    model: KinematicModel,
    lay: _Layout,
    q0: np.ndarray,
    state: State,
    chassis: Sequence[float],
    directions: np.ndarray,
) -> np.ndarray:
    """dq/dp (n_params, n_dir) at a closed pose along hardpoint moves `directions`
    (n_dir, n_points, 3): -(dr/dq_x)^+ dr/dp (IFT). One forward pass carries the
    parameters' own directions (dr/dq, targets included) and the hardpoint moves."""
    n_q, n_d = model.n_params, len(directions)
    n = n_q + n_d
    dq = np.zeros((n, n_q))
    dq[:n_q] = np.eye(n_q)
    dp = np.zeros((n, *lay.p0.shape))
    dp[n_q:] = directions
    q, p = Dual(q0, dq), Dual(lay.p0, dp)
    pl = _place(model, lay, q, p, chassis)
    r = _residuals(model, lay, pl, state, p)
    x = _unknowns(model, state)
    r_q = r.der[:n_q].T  # (rows, n_q)
    r_p = r.der[n_q:].T  # (rows, n_dir)
    sol = lstsq(r_q[:, x], -r_p)
    out = np.zeros((n_q, n_d))
    out[x] = sol
    return out


# -- metrics on Duals ------------------------------------------------------------------------
def _tangent_rates(
    model: KinematicModel, A: DualArray, rhs: np.ndarray, columns: np.ndarray
) -> DualArray:
    """Least-squares tangents dq (n_params, n_cols) of a bordered Jacobian A over `columns`."""
    sol = lstsq(A[:, columns], rhs)
    rest = np.setdiff1d(np.arange(model.n_params), columns)
    parts = [sol] + ([Dual.constant(np.zeros((len(rest), rhs.shape[1])), A.n)] if len(rest) else [])
    stacked = np.concatenate(parts)
    order = np.argsort(np.concatenate([columns, rest]))
    return stacked[order]


def _twists(model: KinematicModel, pl: _Placed, parts: np.ndarray, dq: DualArray) -> DualArray:
    """Spatial twists (w, v) of `parts` per tangent column, chassis frame: (n, 6, cols)
    (`solve.sensitivity.part_twists` on Duals)."""
    R_F, o_F = pl.R_F[parts], pl.o_F[parts]
    T = pl.T[parts]
    GR = np.einsum("nij,njk,nlk->nil", R_F, T[:, 0, :, :3], R_F)
    Gt = np.einsum("nij,nj->ni", R_F, T[:, 0, :, 3]) + o_F - np.einsum("nij,nj->ni", GR, o_F)
    dGR = np.einsum("nij,nsjk,nlk->nsil", R_F, T[:, 1:, :, :3], R_F)
    dGt = np.einsum("nij,nsj->nsi", R_F, T[:, 1:, :, 3]) - np.einsum("nsij,nj->nsi", dGR, o_F)
    kmax = T.shape[1] - 1
    slots = np.full((len(parts), kmax), -1, dtype=int)
    for i, part in enumerate(parts):
        prm = model.parts[int(part)].params
        slots[i, : len(prm)] = prm
    padded = np.concatenate([dq, np.zeros((1, dq.shape[1]))])
    rates = padded[slots]  # (n, kmax, cols)
    GRdot = np.einsum("nsij,nsu->niju", dGR, rates)
    Gtdot = np.einsum("nsi,nsu->niu", dGt, rates)
    Wm = np.einsum("niju,nkj->niku", GRdot, GR)
    w = np.stack([Wm[:, 2, 1], Wm[:, 0, 2], Wm[:, 1, 0]], axis=1)
    v = Gtdot - np.einsum("niku,nk->niu", Wm, Gt)
    return np.concatenate([w, v], axis=1)


def _kingpins(
    model: KinematicModel,
    st: WheelSet,
    pl: _Placed,
    J: DualArray,
    travel_twists: Callable[[], DualArray],
) -> tuple[DualArray, DualArray]:
    """Kingpin direction (up) and a point on it, chassis frame, (1, n_w, 3) each
    (`metrics.geometry.kingpin_axes`): from the kingpin points, else the carrier's
    screw axis per mm of rack with every stroke held (`metrics.geometry.steering_twists`;
    a wheel that no damper moves: with every wheel's travel held, `travel_twists`, the
    carriers' twists along the wheel tangents)."""
    n = pl.P.n
    ks: list[Any] = []
    k0s: list[Any] = []
    steer_tw = None
    for i in range(len(st.names)):
        if st.i_lower[i] >= 0:
            lo, up = pl.P[int(st.i_lower[i])], pl.P[int(st.i_upper[i])]
            ks.append(unit(up - lo))
            k0s.append(lo)
            continue
        if not st.has_rack:
            nan = Dual.constant(np.full(3, np.nan), n)
            ks.append(nan)
            k0s.append(nan)
            continue
        if st.damper_of[i] < 0:
            tw_all = travel_twists()
            tw = tw_all[i, :, tw_all.shape[2] - 1]
        else:
            if steer_tw is None:
                inputs = model.input_params()
                x = np.setdiff1d(np.arange(model.n_params), inputs)
                rhs_cols = Dual(J.val[:, inputs], J.der[:, :, inputs])
                dqx = lstsq(J[:, x], -rhs_cols)
                n_in = len(inputs)
                full = np.concatenate([dqx, np.eye(n_in)])
                order = np.argsort(np.concatenate([x, inputs]))
                dq = full[order]
                steer_tw = _twists(model, pl, st.part, dq[:, n_in - 1 : n_in])
            tw = steer_tw[i, :, 0]
        w, v = tw[:3], tw[3:]
        ww = dot(w, w)
        if value(ww) <= MIN_STEER_TWIST**2:
            nan = Dual.constant(np.full(3, np.nan), n)
            ks.append(nan)
            k0s.append(nan)
            continue
        direction = w / np.sqrt(ww)
        ks.append(direction if direction.val[2] >= 0 else -direction)
        k0s.append(cross(w, v) / ww)
    return np.stack(ks)[None], np.stack(k0s)[None]


def _metrics_at(
    model: KinematicModel,
    lay: _Layout,
    q: DualArray,
    p: DualArray,
    chassis: Sequence[float],
    convention: str | None,
    rates: bool,
) -> dict[Slot, DualArray]:
    """Every supported metric of one state, as Duals of shape (1,) (directions of p)."""
    pre = preset(convention if convention is not None else model.car.options.sign_convention)
    st0 = wheel_set(model)
    pl = _place(model, lay, q, p, chassis)
    index = {nm: i for i, nm in enumerate(lay.names)}
    wheels = model.car.wheels
    centre0 = p[[index[w.centre] for w in wheels]]
    axis0 = p[[index[w.axis_point] for w in wheels]]
    s0 = unit(axis0 - centre0) * st0.orient[:, None]
    from suspension_sim.metrics import wheel as wheel_formulas

    st = dataclasses.replace(
        st0,
        centre0=centre0,
        toe0=wheel_formulas.toe(s0),
        toe_wp0=wheel_formulas.toe_wheel_plane(s0),
        reference=p[lay.ref] if lay.ref >= 0 else st0.reference,
        design_wheelbase=_design_wheelbase(model, st0, centre0, s0),
    )
    dP4 = pl.dP[:, :, :, None]
    g = place_wheels(st, pl.P[None], pl.Rc[None], pl.tc[None], dP4)
    J = _jacobian(model, pl)
    memo: dict[str, DualArray] = {}

    def tangents() -> DualArray:
        """Wheel tangents (n_params, n_w [+ rack]) from the bordered Jacobian
        (`solve.sensitivity.wheel_tangents` on Duals)."""
        if "dq" not in memo:
            B = np.einsum(
                "nk,nkp->np",
                pl.dP[st.i_centre][:, :, 2],
                lay.onehot[st.i_centre][:, : pl.dP.shape[1]],
            )
            rows = [J, B]
            if st.has_rack:
                rack_row = np.zeros((1, model.n_params))
                rack_row[0, model.topology.rack_param] = 1.0
                rows.append(Dual.constant(rack_row, p.n))
            A = np.concatenate(rows)
            n_cols = len(wheels) + int(st.has_rack)
            rhs = np.zeros((A.shape[0], n_cols))
            rhs[J.shape[0] :] = np.eye(n_cols)
            memo["dq"] = _tangent_rates(model, A, rhs, np.arange(model.n_params))
        return memo["dq"]

    def travel_twists() -> DualArray:
        if "twists" not in memo:
            memo["twists"] = _twists(model, pl, st.part, tangents())
        return memo["twists"]

    k_c, k0_c = _kingpins(model, st, pl, J, travel_twists)
    out: dict[Slot, Any] = dict(
        geometry_columns(st, g, pre, k_c, k0_c, ackermann=False, ids=GEOMETRY_IDS)
    )
    if "front" in st.axles and st.has_rack and st.has_wheelbase:
        out[("ackermann", "front", "")] = _ackermann(model, st, g, centre0, s0)
    if rates and len(wheels):
        W = tangents()[None]
        v_C = point_velocities(model, dP4, W, st.i_centre)
        v_A = point_velocities(model, dP4, W, st.i_axis)
        Wd = W[:, st.damper_params]
        out.update(rate_columns(st, g, v_C, v_A, Wd, pre, ids=RATE_IDS))
        twists = travel_twists()
        # every anti evaluated at the contact point, then those the car takes at the wheel
        # centre dropped (their side-view centre is not differentiated)
        opts = model.car.options
        at_contact = dataclasses.replace(
            opts, front_brakes_inboard=False, rear_brakes_inboard=False, drive_inboard=False
        )
        found = centre_columns(st, g, twists[None], at_contact, ids=CENTRE_IDS | ANTI_IDS)
        out.update({k: v for k, v in found.items() if k not in _antis_at_centre(model, st)})
    return {k: v for k, v in out.items() if isinstance(v, Dual) and k[0] in SUPPORTED_IDS}


def _design_wheelbase(
    model: KinematicModel, st: WheelSet, centre0: DualArray, s0: DualArray
) -> DualArray | float:
    """The wheelbase the antis use (`metrics.geometry.WheelSet.design_wheelbase`): the
    workbook's, else the mean of the sides' design wheelbases (contact points, moving with
    the hardpoints)."""
    from suspension_sim.metrics import wheel as wheel_formulas

    if model.car.options.wheelbase_mm is not None or not st.sides:
        return st.design_wheelbase
    cp0 = wheel_formulas.contact_point(centre0, s0, st.radius)
    bases = [cp0[f, 0] - cp0[r, 0] for f, r in st.sides.values()]
    return sum(bases[1:], bases[0]) / len(bases)


def _ackermann(
    model: KinematicModel, st: WheelSet, g: Any, centre0: DualArray, s0: DualArray
) -> DualArray:
    """Ackermann percentage of the front axle (`metrics.linkage.ackermann_percents`, whose
    inputs it turns into plain arrays, spelt out here on Duals; the design wheelbase and
    track move with the hardpoints). The tests compare its value with `pose_metrics`."""
    from suspension_sim.metrics import wheel as wheel_formulas
    from suspension_sim.tolerances import STRAIGHT_AHEAD_RAD

    il, ir = st.axles["front"]
    steer = wheel_formulas.steer(g.toe, st.toe0, st.side)
    left, right = steer[:, il], steer[:, ir]
    cp0 = wheel_formulas.contact_point(centre0, s0, st.radius)
    track = st.side[il] * cp0[il, 1] + st.side[ir] * cp0[ir, 1]
    wheelbase = st.design_wheelbase
    mean = 0.5 * (left + right)
    turning = np.isfinite(value(mean)) & (np.abs(value(mean)) >= STRAIGHT_AHEAD_RAD)
    left_turn = value(mean) > 0  # left turn: left wheel inside
    d_i = np.where(left_turn, left, -right)
    d_o = np.where(left_turn, right, -left)
    with np.errstate(divide="ignore", invalid="ignore"):
        ideal = np.arctan(wheelbase / (wheelbase / np.tan(d_o) - track))
        percent = (d_i - d_o) / (ideal - d_o) * 100.0
    return np.where(turning, percent, np.nan)


def _antis_at_centre(model: KinematicModel, st: WheelSet) -> set[Slot]:
    """The anti slots the car takes at the wheel centre (see `ANTI_IDS`)."""
    from suspension_sim.metrics.centres import anti_cases

    opts = model.car.options
    return {
        (mid, name, "")
        for i, name in enumerate(st.names)
        for mid, _, at_centre in anti_cases(bool(st.front[i]), bool(st.rear[i]), opts)
        if at_centre
    }


# -- the public function ---------------------------------------------------------------------
def _solve_path(model: KinematicModel, motion: Motion) -> list[Pose]:
    """Solved poses of the motion's first and last steps, reached step by step from the
    step nearest design (each solve warm-started from its neighbour)."""
    steps = list(motion)
    start = int(np.argmin([abs(s.values[0]) for s in steps]))
    poses: dict[int, Pose] = {}
    poses[start] = _solve_state(model, steps[start].state, None)
    for direction in (-1, 1):
        i = start
        while 0 <= i + direction < len(steps):
            poses[i + direction] = _solve_state(model, steps[i + direction].state, poses[i])
            i += direction
    return [poses[0], poses[len(steps) - 1]]


def _solve_state(model: KinematicModel, state: State, guess: Pose | None) -> Pose:
    from suspension_sim.solve.solver import solve

    return solve(
        model,
        shocks=dict(state.shocks),
        rack=state.rack,
        chassis=state.chassis,
        targets=dict(state.targets) or None,
        guess=guess,
    )


def _check_motion(motion: Motion) -> None:
    """Refuse motions whose states depend on the design in a way not differentiated here."""
    if len(motion) < 2:
        raise InputError("a motion for sensitivities needs two or more steps", where="motion")
    for step in motion:
        for tg in step.state.targets.values():
            if tg.kind == "contact_z" and tg.value != 0.0:
                raise InputError(
                    f"the motion holds {tg.describe()}: a ground height taken from the design "
                    "(OptimumK's motion style) moves with the hardpoints, which the "
                    "sensitivities do not follow",
                    where="motion",
                    hint="build the motion in our style (contact points at z = 0), e.g. "
                    "motions.heave(model, values, style='ours')",
                )


def _derivatives(
    model: KinematicModel,
    lay: _Layout,
    motion: Motion | None,
    convention: str | None,
    rates: bool,
) -> tuple[dict[Slot, DualArray], str]:
    """Every supported metric (at design, or its change over the motion) as Duals along
    the hardpoint coordinates, and what was evaluated."""
    directions = _unit_moves(lay)
    if motion is None:
        q = Dual.constant(np.zeros(model.n_params), len(directions))  # q = 0 at design
        p = Dual(lay.p0, directions)
        return _metrics_at(model, lay, q, p, (0.0,) * 6, convention, rates), "design"
    ends = _solve_path(model, motion)
    per_end = [
        _state_metrics(
            model, lay, pose.params, pose.chassis, step.state, directions, convention, rates
        )
        for pose, step in zip(ends, (motion[0], motion[len(motion) - 1]), strict=True)
    ]
    found = {k: per_end[1][k] - per_end[0][k] for k in per_end[0] if k in per_end[1]}
    first, last = motion[0].values[0], motion[len(motion) - 1].values[0]
    return found, f"change over {motion.name} ({first:g} to {last:g})"


def _unit_moves(lay: _Layout) -> np.ndarray:
    """One direction per hardpoint coordinate: (3 n_points, n_points, 3)."""
    n_p = lay.p0.size
    return np.eye(n_p).reshape(n_p, *lay.p0.shape)


def _state_metrics(
    model: KinematicModel,
    lay: _Layout,
    params: np.ndarray,
    chassis: Sequence[float],
    state: State,
    directions: np.ndarray,
    convention: str | None,
    rates: bool,
) -> dict[Slot, DualArray]:
    """The metrics of one solved state as Duals along `directions` (IFT for the pose)."""
    dq = _parameter_rates(model, lay, params, state, chassis, directions)
    q = Dual(params, dq.T)
    return _metrics_at(model, lay, q, Dual(lay.p0, directions), chassis, convention, rates)


def hardpoint_names(model: KinematicModel) -> tuple[str, ...]:
    """The hardpoints in the order of the `directions` axis of `pose_derivatives` (and of
    `SensitivityResult.coordinates`): every point of the car, workbook order."""
    return _layout(model).names


def pose_derivatives(
    model: KinematicModel,
    params: np.ndarray,
    chassis: Sequence[float],
    state: State,
    directions: np.ndarray,
    metrics: Iterable[str] | None = None,
    convention: str | None = None,
    rates: bool = True,
) -> dict[str, tuple[float, np.ndarray]]:
    """Metrics of one solved pose and their derivatives along hardpoint moves.

    params, chassis: a solved pose's ``Pose.params`` and ``Pose.chassis``; state: the
    `State` it was solved for (its targets say which inputs are free); directions:
    (n_dir, n_points, 3) moves of the hardpoints (mm per unit of each direction, points
    in `hardpoint_names` order: a design variable moves one coordinate, a mirror pair
    two). Returns {column: (value, gradient (n_dir,))}, metric unit per unit of
    direction, for the supported metrics (`SUPPORTED_IDS`; `metrics`: only these
    columns). The pose's chassis state and target values are taken as given.
    """
    from suspension_sim.metrics.core import layout as metric_layout
    from suspension_sim.solve.solver import blas_controller

    lay = _layout(model)
    moves = np.asarray(directions, dtype=float)
    if moves.ndim != 3 or moves.shape[1:] != lay.p0.shape:
        raise InputError(
            f"directions of shape {moves.shape}: expected (n_dir, {len(lay.names)}, 3)",
            where="directions",
            hint="one (n_points, 3) move per direction, points in hardpoint_names order",
        )
    with blas_controller().limit(limits=1, user_api="blas"):
        found = _state_metrics(
            model, lay, np.asarray(params, dtype=float), chassis, state, moves, convention, rates
        )
    out: dict[str, tuple[float, np.ndarray]] = {}
    for slot in metric_layout(model, rates):
        if slot in found:
            v = found[slot]
            value_ = float(v.val.reshape(-1)[0])
            grad = v.der.reshape(len(moves), -1)[:, 0].copy()
            out[CATALOGUE[slot[0]].key(slot[1], slot[2])] = (
                value_,
                grad if np.isfinite(value_) else np.full(len(moves), np.nan),
            )
    if metrics is not None:
        wanted = list(metrics)
        unknown = [m for m in wanted if m not in out]
        if unknown:
            raise InputError(f"no sensitivity for {', '.join(unknown)}", where="metrics")
        out = {m: out[m] for m in wanted}
    return out


def mirror_pairs(model: KinematicModel, tolerance_mm: float = 1e-6) -> dict[str, str]:
    """Left point -> its right mirror image (same x and z, opposite y within `tolerance_mm`)."""
    pmap = model.car.point_map()
    names = list(pmap)
    xyz = np.array([pmap[n] for n in names], dtype=float).reshape(-1, 3)
    out: dict[str, str] = {}
    for i, n in enumerate(names):
        if xyz[i, 1] <= tolerance_mm:
            continue
        target = xyz[i] * np.array([1.0, -1.0, 1.0])
        d = np.abs(xyz - target).max(axis=1)
        j = int(np.argmin(d))
        if d[j] <= tolerance_mm:
            out[n] = names[j]
    return out


def sensitivity(
    model: KinematicModel,
    motion: Motion | None = None,
    *,
    symmetric: bool = False,
    metrics: Iterable[str] | None = None,
    convention: str | None = None,
    rates: bool = True,
) -> SensitivityResult:
    """Derivatives of every supported metric with respect to every hardpoint coordinate.

    model: `suspension_sim.load(...)`. motion: None for the metrics at design, or a
    `suspension_sim.sweeps.motions.Motion` (e.g. ``motions.heave(model, [-30, 0, 30])``):
    then the derivatives of each metric's change over it (last step minus first, e.g.
    bump steer = toe(+30) - toe(-30)); the steps between are only the solve's path.
    symmetric: move each left point and its mirror image together (y mirrored), one
    column per pair (`mirror_pairs`). metrics: only these columns (names as in
    `pose_metrics`); convention: the output preset (None = the workbook's). rates: also
    the IFT-based metrics (motion ratio, camber gain, roll centre, ...).

    Derivatives are exact (forward mode through the model and the metric formulas, the
    implicit function theorem for the pose): metric unit per mm of the coordinate.
    """
    from suspension_sim.solve.solver import blas_controller

    lay = _layout(model)
    n_p = lay.p0.size
    if motion is not None:
        _check_motion(motion)
    with blas_controller().limit(limits=1, user_api="blas"):  # small systems: threads only cost
        found, what = _derivatives(model, lay, motion, convention, rates)
    from suspension_sim.metrics.core import layout as metric_layout

    order = [s for s in metric_layout(model, rates) if s in found]
    keys = [CATALOGUE[m].key(w, c) for m, w, c in order]
    if metrics is not None:
        wanted = list(metrics)
        unknown = [m for m in wanted if m not in keys]
        if unknown:
            raise InputError(
                f"no sensitivity for {', '.join(unknown)}",
                where="metrics",
                hint=f"columns with sensitivities: {', '.join(keys[:12])}, ...",
            )
        picked = [keys.index(m) for m in wanted]
        order, keys = [order[i] for i in picked], [keys[i] for i in picked]
    vals = np.array([float(found[s].val.reshape(-1)[0]) for s in order])
    mat = np.array([found[s].der.reshape(n_p, -1)[:, 0] for s in order]).reshape(len(order), n_p)
    mat[~np.isfinite(vals)] = np.nan  # no value, no derivative
    units = tuple(CATALOGUE[m].unit for m, _, _ in order)
    coords = tuple((nm, a) for nm in lay.names for a in AXES)
    pairs: dict[str, str] = {}
    if symmetric:
        mat, coords, pairs = _symmetric(model, lay, mat)
    from suspension_sim.solve.diagnostics import design_mobility

    mob = design_mobility(model)
    return SensitivityResult(
        tuple(keys),
        units,
        vals,
        coords,
        mat,
        what,
        symmetric,
        pairs,
        mob.redundant,
        tuple(mob.redundant_points),
    )


def _symmetric(
    model: KinematicModel, lay: _Layout, mat: np.ndarray
) -> tuple[np.ndarray, tuple[tuple[str, str], ...], dict[str, str]]:
    """Columns of mirror pairs moved together: x and z added, y subtracted (the right point
    moves by -dy); points without a partner keep their own columns."""
    pairs = mirror_pairs(model)
    partners = set(pairs.values())
    index = {n: i for i, n in enumerate(lay.names)}
    cols: list[np.ndarray] = []
    coords: list[tuple[str, str]] = []
    for n in lay.names:
        if n in partners:
            continue
        for a, axis in enumerate(AXES):
            col = mat[:, 3 * index[n] + a].copy()
            if n in pairs:
                sign = -1.0 if axis == "y" else 1.0
                col += sign * mat[:, 3 * index[pairs[n]] + a]
            cols.append(col)
            coords.append((n, axis))
    return np.stack(cols, axis=1), tuple(coords), pairs


__all__ = [
    "CENTRE_IDS",
    "GEOMETRY_IDS",
    "RATE_IDS",
    "SUPPORTED_IDS",
    "SensitivityResult",
    "hardpoint_names",
    "mirror_pairs",
    "pose_derivatives",
    "sensitivity",
]
