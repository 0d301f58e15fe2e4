"""Springs, third springs and anti-roll bars: wheel rates, roll stiffness, heave rates and
static ride height (docs/loads.md, "Springs" and "Third springs and anti-roll bars").

A damper may carry a linear coil-over spring (`Damper.spring_rate`, N/mm). Its
force, + = pushing the eyes apart (damper compression, as the loads), is

    F_d(s) = P_d + k_d s      (s: stroke, mm, + = compression; P_d: force at stroke 0)

with ``P_d = k_d (L_free - L_design)`` when a free length is given instead
of a preload.

**Wheel rate.** With z_i the travel of wheel i (wheel centre along the
chassis z axis, + = bump), every other wheel's travel and the rack held and
the strokes free, virtual work gives the vertical force on the wheel that
the springs balance, ``F_i = sum_d F_d ds_d/dz_i``, and its rate

    K_i = dF_i/dz_i = sum_d k_d (ds_d/dz_i)^2 + F_d d2s_d/dz_i^2

i.e. ``k MR^2 + F dMR/dz`` for one damper per wheel (MR = ds/dz, the motion
ratio). Third springs (compression c, force + pushes apart) and anti-roll bars
(twist theta, torque T) add ``k_e (de/dz_i)^2 + F_e d2e/dz_i^2`` the same way
(`suspension_sim.loads.elements`). Roll stiffness and heave rate per axle
(`roll_stiffness`) are the same sum along the axle's roll motion (left wheel
-(t/2) phi, right +(t/2) phi) and heave motion (both +1 mm).
ds/dz comes from the constraint Jacobian bordered by the travel and rack rows
(implicit function theorem); d2s/dz2 from the second-order expansion of the
same system, ``A q'' = -d(A q')/dt``, whose right side is a central difference
of A q' along q' (no pose is solved).

**Static ride height.** Given the vertical load at every contact patch
(corner weights), or the sprung mass and the CG (then the corner weights are
unknowns too, fixed by the three equilibrium equations), the strokes and the
chassis heave, roll and pitch are solved so that every damper's spring
force equals the force statics asks of it under those loads, the third
springs and bars being known internal loads at each pose
(`suspension_sim.loads.statics`, exact for the rigid-body model), and every
contact patch is on the ground (world z = `ground_z`). With corner weights
given and four wheels there is one equation more than unknowns: the contact
heights are met in least squares and the remainder is reported as `warp_mm`.

Units: mm, N, N/mm; angles in deg in the results.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from suspension_sim.description import wheel_layout
from suspension_sim.errors import InputError, SolveError
from suspension_sim.loads.cases import LoadCase, WheelLoad
from suspension_sim.loads.elements import THIRD, elements_of
from suspension_sim.loads.elements import curvatures as element_curvatures
from suspension_sim.loads.elements import evaluate as element_evaluate
from suspension_sim.loads.statics import statics
from suspension_sim.metrics import wheel as wheel_geometry
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.metrics.vectors import Z_UP

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

G = 9.80665
"""Standard gravity, m/s^2."""
SECOND_ORDER_STEP = 1e-3
"""Step (mm of wheel travel) of the central difference of A q' in `wheel_rates`."""


@dataclass(frozen=True)
class Spring:
    """A linear spring on a damper: rate k (N/mm) and force at stroke 0 (N)."""

    rate: float
    preload: float = 0.0

    def force(self, stroke: float | np.ndarray) -> float | np.ndarray:
        """Spring force (N, + = pushes the eyes apart) at a stroke (mm, + = compression)."""
        return self.preload + self.rate * stroke


def car_springs(
    model: KinematicModel, springs: Mapping[str, Spring] | None = None
) -> dict[str, Spring]:
    """Every damper's spring, from the workbook unless `springs` gives it.

    InputError naming the dampers that have none (a wheel rate without a
    spring would be a silent zero).
    """
    car = model.car
    out: dict[str, Spring] = {}
    missing: list[str] = []
    given = dict(springs or {})
    elements = [s.name for s in car.third_springs] + [b.name for b in car.anti_roll_bars]
    unknown = sorted(set(given) - set(model.damper_names) - set(elements))
    if unknown:
        raise InputError(
            f"springs given for {', '.join(unknown)}, which are not dampers, third "
            "springs or anti-roll bars of this car",
            where="springs",
            hint=f"the dampers are {', '.join(model.damper_names)}"
            + (f"; the elements {', '.join(elements)}" if elements else ""),
        )
    for d in car.dampers:
        if d.body in given:
            out[d.body] = given[d.body]
        elif d.spring_rate is not None:
            if d.spring_free_length is not None:
                preload = d.spring_rate * (d.spring_free_length - car.damper_design_length(d))
            else:
                preload = d.spring_preload or 0.0
            out[d.body] = Spring(d.spring_rate, preload)
        else:
            missing.append(d.body)
    if missing:
        raise InputError(
            f"no spring rate for damper(s) {', '.join(missing)}",
            where="Damping",
            hint="fill in the Spring rate column of the Damping section (docs/workbook.md)",
        )
    return out


# -- wheel rates -----------------------------------------------------------------------------
def _bordered(model: KinematicModel, q: np.ndarray) -> np.ndarray:
    """The constraint Jacobian with a travel row per wheel (wheel centre, chassis z) and
    the rack row: A dq = (0, dz, drack). The same system as
    `suspension_sim.solve.sensitivity.wheel_tangents`, at any parameter vector."""
    everything = np.arange(model.n_params)
    J = model.jacobian(q, everything).toarray()
    _, dP = model.instance_positions(q[:, None], derivatives=True)
    assert dP is not None
    rows = []
    for w in model.car.wheels:
        i = model.inst_index[(w.centre, w.body)]
        row = np.zeros(model.n_params)
        for slot, p in enumerate(model.inst_slots[i]):
            if p >= 0:
                row[p] += dP[i, slot, 2, 0]
        rows.append(row)
    if model.topology.rack_param is not None:
        row = np.zeros(model.n_params)
        row[model.topology.rack_param] = 1.0
        rows.append(row)
    return np.vstack([J, np.array(rows).reshape(len(rows), model.n_params)])


def _tangents(
    pose: Pose, second: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """q, the bordered matrix A, dq/dz_i and d2q/dz_i^2 (n_params, n_wheels) at a pose
    (every other wheel's travel and the rack held); d2q is zeros unless `second`."""
    model = pose.model
    n_w = len(model.car.wheels)
    q = np.asarray(pose.params, dtype=float)
    A = _bordered(model, q)
    m = A.shape[0] - n_w - (model.topology.rack_param is not None)
    rhs = np.zeros((A.shape[0], n_w))
    rhs[m + np.arange(n_w), np.arange(n_w)] = 1.0
    dq, *_ = np.linalg.lstsq(A, rhs, rcond=None)
    return q, A, dq, (_second_order(model, q, A, dq) if second else np.zeros_like(dq))


def _second_order(model: KinematicModel, q: np.ndarray, A: np.ndarray, V: np.ndarray) -> np.ndarray:
    """q'' of every motion q' = V[:, j] whose bordered rows (travels, rack) are linear in
    its parameter: ``A q'' = -d(A(q + t v) v)/dt`` at t = 0, a central difference."""
    h = SECOND_ORDER_STEP
    curv = np.empty((A.shape[0], V.shape[1]))
    for j in range(V.shape[1]):
        v = V[:, j]
        curv[:, j] = (_bordered(model, q + h * v) @ v - _bordered(model, q - h * v) @ v) / (2 * h)
    d2q, *_ = np.linalg.lstsq(A, -curv, rcond=None)
    return np.asarray(d2q)


def stroke_derivatives(pose: Pose) -> tuple[np.ndarray, np.ndarray]:
    """ds_d/dz_i and d2s_d/dz_i^2 per damper d and wheel i: two (n_dampers, n_wheels)
    arrays, mm/mm and 1/mm (every other wheel's travel and the rack held)."""
    _, _, dq, d2q = _tangents(pose)
    u = pose.model.input_params()[: len(pose.model.damper_names)]
    return dq[u], d2q[u]


@dataclass(frozen=True)
class _Terms:
    """Per spring group, the force F_e and the rate k_e of each spring or element, with
    its first and second derivative along each motion: de (n, n_dir), d2e (n, n_dir)."""

    k: np.ndarray
    F: np.ndarray
    de: np.ndarray
    d2e: np.ndarray

    def force(self) -> np.ndarray:
        """sum F_e de/dt per motion (n_dir,): the generalised force the springs balance."""
        return np.asarray(self.F @ self.de)

    def rate(self) -> np.ndarray:
        """sum k_e (de/dt)^2 + F_e d2e/dt^2 per motion (n_dir,)."""
        return np.asarray(self.k @ self.de**2 + self.F @ self.d2e)


GROUPS: tuple[str, ...] = ("springs", "third springs", "bars")
"""Spring groups of the rate contributions: the dampers' coil springs, third springs, bars."""


def _motion_terms(
    pose: Pose,
    springs: Mapping[str, Any] | None,
    dq: np.ndarray,
    d2q: np.ndarray,
    q: np.ndarray,
) -> dict[str, _Terms]:
    """Per group, the terms of every spring and element along the motions dq (n_params,
    n_dir) with second derivatives d2q."""
    model = pose.model
    sp = car_springs(model, springs)
    u = model.input_params()[: len(model.damper_names)]
    dampers = model.damper_names
    coil = _Terms(
        k=np.array([sp[d].rate for d in dampers]),
        F=np.array([float(sp[d].force(pose.shocks[d])) for d in dampers]),
        de=dq[u],
        d2e=d2q[u],
    )
    el = elements_of(model, springs)
    _, F, G = element_evaluate(model, el, q[:, None])
    de = G[0] @ dq  # (n_e, n_dir)
    d2e = G[0] @ d2q + element_curvatures(model, el, q, dq)
    spring = np.array([k == THIRD for k in el.kinds], dtype=bool)
    out = {"springs": coil}
    for name, on in (("third springs", spring), ("bars", ~spring)):
        out[name] = _Terms(el.rate[on], F[0, on], de[on], d2e[on])
    return out


def spring_wheel_forces(
    pose: Pose, springs: Mapping[str, Spring] | None = None
) -> dict[str, float]:
    """The vertical force on each wheel (N, + = up, along the wheel travel) that the
    springs, third springs and bars balance at the pose: ``sum_e F_e de/dz_i`` (virtual
    work)."""
    q, _, dq, d2q = _tangents(pose)
    terms = _motion_terms(pose, springs, dq, d2q, q)
    total = np.sum([t.force() for t in terms.values()], axis=0)
    return {w.name: float(total[i]) for i, w in enumerate(pose.model.car.wheels)}


def wheel_rate_terms(pose: Pose, springs: Mapping[str, Spring] | None = None) -> pd.DataFrame:
    """Wheel rate of every wheel split by spring group (N/mm per mm of wheel-centre
    travel, every other wheel and the rack held): index wheel, columns `GROUPS` and
    ``total``. Each group's term is ``sum k_e (de/dz)^2 + F_e d2e/dz^2`` over its springs."""
    q, _, dq, d2q = _tangents(pose)
    terms = _motion_terms(pose, springs, dq, d2q, q)
    data = {g: terms[g].rate() for g in GROUPS}
    table = pd.DataFrame(data, index=[w.name for w in pose.model.car.wheels])
    table["total"] = table[list(GROUPS)].sum(axis=1)
    table.index.name = "wheel"
    return table


def wheel_rates(pose: Pose, springs: Mapping[str, Spring] | None = None) -> dict[str, float]:
    """Wheel rate of every wheel at the pose, N/mm per mm of wheel-centre travel:
    ``sum_e k_e (de_e/dz)^2 + F_e d2e_e/dz2`` over the dampers' springs (e = stroke: k
    MR^2 + F dMR/dz), third springs and bars, every other wheel's travel and the rack
    held. Springs from the workbook unless `springs` gives them (by damper, third
    spring or bar name)."""
    table = wheel_rate_terms(pose, springs)
    return {str(w): float(v) for w, v in table["total"].items()}


# -- roll stiffness and heave rate per axle ----------------------------------------------------
NM_PER_DEG = math.pi / 180.0 / 1000.0
"""N m/deg per N mm/rad."""


@dataclass(frozen=True)
class AxleRates:
    """Roll stiffness and heave rate of one axle at a pose (chassis held, other axle held).

    roll: N m/deg of chassis roll, the axle's wheels moved by -/+ (t/2) phi (left
    down, right up for + roll, which lifts the chassis' left side), t = track_mm
    (wheel centres' y distance at the pose). heave: N/mm of both wheels moving up
    together (the force on the axle per mm). Each is split into `GROUPS` (dicts by
    group name, same units); bar_share = bars' roll / roll (0..1 for springs that
    all resist roll).
    """

    axle: str
    wheels: tuple[str, str]
    track_mm: float
    roll_Nm_per_deg: float
    roll_terms: dict[str, float]
    heave_N_per_mm: float
    heave_terms: dict[str, float]

    @property
    def bar_share(self) -> float:
        """The bars' share of this axle's roll stiffness."""
        return self.roll_terms["bars"] / self.roll_Nm_per_deg if self.roll_Nm_per_deg else 0.0


@dataclass(frozen=True)
class RollStiffness:
    """Roll stiffness per axle and its distribution (`roll_stiffness`).

    axles: {"front": AxleRates, "rear": AxleRates} (those with two wheels);
    total_Nm_per_deg: the sum of the axles' roll stiffnesses; front_share: front roll
    stiffness / total (roll stiffness distribution), NaN without both axles.
    """

    axles: dict[str, AxleRates]
    total_Nm_per_deg: float
    front_share: float

    def table(self) -> pd.DataFrame:
        """One row per axle: track, roll (total and per group), bar share, heave."""
        rows = []
        for a in self.axles.values():
            row: dict[str, object] = {"axle": a.axle, "track_mm": a.track_mm}
            row["roll_Nm_per_deg"] = a.roll_Nm_per_deg
            row.update({f"roll_{g}": a.roll_terms[g] for g in GROUPS})
            row["bar_share"] = a.bar_share
            row["heave_N_per_mm"] = a.heave_N_per_mm
            row.update({f"heave_{g}": a.heave_terms[g] for g in GROUPS})
            rows.append(row)
        return pd.DataFrame(rows).set_index("axle")


def roll_stiffness(pose: Pose, springs: Mapping[str, Spring] | None = None) -> RollStiffness:
    """Roll stiffness (N m/deg) and heave rate (N/mm) of each axle at a pose.

    Roll: the axle's left wheel moves by -(t/2) phi and its right wheel by +(t/2) phi
    (wheel-centre travel along the chassis z axis, t the track at the pose), the other
    axle's wheels and the rack held; K_phi = d2E/dphi2 = sum_e k_e (de/dphi)^2 + F_e
    d2e/dphi2 over coil springs, third springs and bars. Heave: both wheels +1 mm, the
    same sum per mm. Springs from the workbook unless `springs` gives them.
    """
    model = pose.model
    layout = wheel_layout(model.car)
    wheels = [w.name for w in model.car.wheels]
    q, A, dq, _ = _tangents(pose, second=False)
    P, _ = model.instance_positions(q[:, None], derivatives=False)
    st = wheel_set(model)
    centre_y = P[st.i_centre, 1, 0]
    cols: list[np.ndarray] = []
    tracks: dict[str, float] = {}
    for axle, (left, right) in layout.axles.items():
        i, j = wheels.index(left), wheels.index(right)
        t = float(abs(centre_y[i] - centre_y[j]))
        tracks[axle] = t
        cols += [0.5 * t * (dq[:, j] - dq[:, i]), dq[:, i] + dq[:, j]]
    V = np.column_stack(cols) if cols else np.zeros((model.n_params, 0))
    terms = _motion_terms(pose, springs, V, _second_order(model, q, A, V), q)
    rates = {g: terms[g].rate() for g in GROUPS}
    axles: dict[str, AxleRates] = {}
    for n, (axle, (left, right)) in enumerate(layout.axles.items()):
        roll = {g: float(rates[g][2 * n]) * NM_PER_DEG for g in GROUPS}
        heave = {g: float(rates[g][2 * n + 1]) for g in GROUPS}
        axles[axle] = AxleRates(
            axle=axle,
            wheels=(left, right),
            track_mm=tracks[axle],
            roll_Nm_per_deg=sum(roll.values()),
            roll_terms=roll,
            heave_N_per_mm=sum(heave.values()),
            heave_terms=heave,
        )
    total = sum(a.roll_Nm_per_deg for a in axles.values())
    both = "front" in axles and "rear" in axles and total != 0.0
    share = axles["front"].roll_Nm_per_deg / total if both else math.nan
    return RollStiffness(axles=axles, total_Nm_per_deg=total, front_share=share)


# -- static ride height ---------------------------------------------------------------------
@dataclass(frozen=True)
class RideHeight:
    """The static equilibrium on the ground (see the module docstring).

    heave_mm (+ = up), roll_deg (+ lifts the left side), pitch_deg (+ = nose
    down): the chassis state of `pose`, relative to design. strokes: mm, + =
    compression. corner_weights: vertical load at each contact patch (N).
    spring_forces: N. warp_mm: largest |contact height| left (0 when the four
    contact patches can all touch the ground). A car whose wheels do not spread
    in y (one corner) keeps roll at 0, in x (one axle) keeps pitch at 0: the tyres
    do not fix them.
    """

    pose: Pose
    heave_mm: float
    roll_deg: float
    pitch_deg: float
    strokes: dict[str, float]
    corner_weights: dict[str, float]
    spring_forces: dict[str, float]
    warp_mm: float
    iterations: int


def corner_weights_from_cg(
    model: KinematicModel, mass_kg: float, cg_xy_mm: tuple[float, float]
) -> dict[str, float]:
    """Corner weights (N) of a rigid car on four springs by the lever rule: front/rear from
    the CG's x between the axles' wheel centres, left/right from its y within each
    axle's track (model frame, mm, at design). Needs a front and a rear axle."""
    car = model.car
    layout = wheel_layout(car)
    if set(layout.axles) != {"front", "rear"}:
        raise InputError(
            "corner weights from the CG need a front and a rear axle with two wheels each",
            where="ride height",
            hint="give the corner weights directly",
        )
    xyz = {w.name: car.point(w.centre) for w in car.wheels}
    fl, fr = layout.axles["front"]
    rl, rr = layout.axles["rear"]
    x_f = 0.5 * (xyz[fl][0] + xyz[fr][0])
    x_r = 0.5 * (xyz[rl][0] + xyz[rr][0])
    front = (cg_xy_mm[0] - x_r) / (x_f - x_r)
    total = mass_kg * G
    out: dict[str, float] = {}
    for (left, right), share in (((fl, fr), front), ((rl, rr), 1.0 - front)):
        y_l, y_r = xyz[left][1], xyz[right][1]
        to_left = (cg_xy_mm[1] - y_r) / (y_l - y_r)
        out[left] = total * share * to_left
        out[right] = total * share * (1.0 - to_left)
    return out


def _contact_world(model: KinematicModel, pose: Pose) -> np.ndarray:
    """World contact points (n_w, 3), mm (docs/conventions.md)."""
    st = wheel_set(model)
    P, _ = model.instance_positions(pose.params[:, None], derivatives=False)
    P = P[:, :, 0]
    T = pose.chassis_transform
    R, t = T[:3, :3], T[:3, 3]
    s_c = wheel_geometry.spin_axis(P[None, st.i_centre], P[None, st.i_axis], st.orient)[0]
    C_w = P[st.i_centre] @ R.T + t
    return np.asarray(wheel_geometry.contact_point(C_w, s_c @ R.T, st.radius, Z_UP))


def ride_height(
    model: KinematicModel,
    corner_weights: Mapping[str, float] | None = None,
    *,
    mass_kg: float | None = None,
    cg_mm: tuple[float, float, float] | None = None,
    springs: Mapping[str, Spring] | None = None,
    ground_z: float = 0.0,
    tolerance_n: float = 1e-6,
    max_iterations: int = 40,
) -> RideHeight:
    """Static ride height on rigid tyres; see the module docstring.

    corner_weights: {wheel: N} at the contact patches; or mass_kg with cg_mm (x, y, z
    of the sprung mass' centre in the chassis frame, mm): then the corner weights are
    solved too (sum = m g, no moment about the CG). Springs from the workbook unless
    `springs` gives them. Raises SolveError when it does not converge.
    """
    from suspension_sim.solve.solver import solve

    sp = car_springs(model, springs)
    elements = elements_of(model, springs)
    wheels = [w.name for w in model.car.wheels]
    dampers = list(model.damper_names)
    n_w, n_d = len(wheels), len(dampers)
    by_mass = corner_weights is None
    weight_n = 0.0  # m g (N), when by mass
    if by_mass:
        if (
            mass_kg is None
            or cg_mm is None
            or not (math.isfinite(mass_kg) and mass_kg > 0)
            or len(cg_mm) != 3
            or not all(math.isfinite(float(c)) for c in cg_mm)
        ):
            raise InputError(
                "give the corner weights, or a positive mass with the CG position",
                where="ride height",
                hint="ride_height(model, {'FL': 700, ...}) or mass_kg=280, cg_mm=(x, y, z)",
            )
        if n_w < 3:
            raise InputError("a ride height from the CG needs three wheels or more")
        weight_n = float(mass_kg) * G
        W0 = np.full(n_w, weight_n / n_w)
    else:
        assert corner_weights is not None
        unknown = sorted(set(corner_weights) - set(wheels))
        if unknown or len(corner_weights) != n_w:
            raise InputError(
                f"corner weights must name every wheel once ({', '.join(wheels)}); got "
                f"{', '.join(corner_weights)}",
                where="ride height",
            )
        W0 = np.array([float(corner_weights[w]) for w in wheels])
        if not (np.all(np.isfinite(W0)) and np.all(W0 >= 0)):
            raise InputError(
                f"corner weights must be finite numbers of 0 N or more, got {W0.tolist()}",
                where="ride height",
                hint="the vertical load of the ground on each tyre, in N (+ = up)",
            )
    k = np.array([sp[d].rate for d in dampers])
    if not np.all(k > 0):
        bad = dampers[int(np.flatnonzero(~(k > 0))[0])]
        raise InputError(
            f"damper {bad!r}: a ride height needs a spring rate above 0 N/mm",
            where="ride height",
            hint="give every damper a positive spring rate",
        )
    P0 = np.array([sp[d].preload for d in dampers])
    guess: list[Pose | None] = [None]
    # Chassis roll (pitch) is fixed by the tyres only when the wheels spread in y (x):
    # a single corner or a single axle holds it at 0 instead of a minimum-norm guess.
    centres = np.array([model.car.point(w.centre) for w in model.car.wheels]).reshape(-1, 3)
    spread = np.ptp(centres, axis=0) if len(centres) else np.zeros(3)
    held = [n_d + 1] * bool(spread[1] < 1.0) + [n_d + 2] * bool(spread[0] < 1.0)

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, Pose, np.ndarray, np.ndarray]:
        s = x[:n_d]
        heave, roll, pitch = x[n_d : n_d + 3]
        W = x[n_d + 3 :] if by_mass else W0
        pose = solve(
            model,
            dict(zip(dampers, map(float, s), strict=True)),
            0.0,
            (0.0, 0.0, float(heave), float(roll), float(pitch), 0.0),
            guess[0],
        )
        guess[0] = pose
        case = LoadCase(
            "static", {w: WheelLoad((0.0, 0.0, float(W[i]))) for i, w in enumerate(wheels)}
        )
        f = statics([pose], [case], elements).input_force[0, :n_d, 0]
        spring = P0 + k * s
        cp = _contact_world(model, pose)
        rows = [(spring - f) / k, cp[:, 2] - ground_z]
        if by_mass:
            assert cg_mm is not None
            T = pose.chassis_transform
            cg = T[:3, :3] @ np.asarray(cg_mm, dtype=float) + T[:3, 3]
            scale = 1.0 / k.mean()
            rows.append(
                scale
                * np.array(
                    [
                        W.sum() - weight_n,
                        W @ (cp[:, 0] - cg[0]),
                        W @ (cp[:, 1] - cg[1]),
                    ]
                )
                / np.array([1.0, 1e3, 1e3])
            )
        return np.concatenate(rows), pose, spring, W

    # Force rows first and weighted: with given corner weights they are met exactly and
    # the contact heights in least squares (the warp).
    weight = np.ones(n_d + n_w + (3 if by_mass else 0))
    if not by_mass:
        weight[:n_d] = 1e3
    s0 = np.zeros(n_d)
    x = np.concatenate([s0, np.zeros(3), W0 if by_mass else np.zeros(0)])
    r, pose, spring, W = evaluate(x)
    J: np.ndarray | None = None
    prev = np.inf
    for it in range(1, max_iterations + 1):
        if J is None:
            J = _fd_jacobian(evaluate, x, r)
            J[:, held] = 0.0  # held chassis angles: no step (minimum-norm lstsq)
        # Chord Gauss-Newton: the problem is nearly linear, so one Jacobian serves
        # several steps; it is rebuilt when the steps stop shrinking fast.
        step, *_ = np.linalg.lstsq(weight[:, None] * J, -weight * r, rcond=None)
        x = x + step
        r, pose, spring, W = evaluate(x)
        force_err = float(np.abs(r[:n_d] * k).max())
        size = float(np.abs(step).max())
        if force_err <= tolerance_n * max(1.0, float(np.abs(spring).max())) and size < 1e-9:
            return _result(pose, dampers, wheels, spring, W, r[n_d : n_d + n_w], it)
        if size > 0.25 * prev:
            J = None
        prev = size
    raise SolveError(
        f"static ride height did not converge in {max_iterations} iterations "
        f"(spring force error {float(np.abs(r[:n_d] * k).max()):.3g} N)",
        where="ride height",
        hint="check the spring rates and corner weights (a spring too soft to hold its "
        "corner runs the damper to its stop)",
    )


def _fd_jacobian(evaluate: object, x: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Forward-difference Jacobian of the ride-height residuals (steps 1e-4 mm/deg/N)."""
    assert callable(evaluate)
    J = np.empty((len(r), len(x)))
    for j in range(len(x)):
        h = 1e-4 * max(1.0, abs(float(x[j])) * 1e-3)
        xp = x.copy()
        xp[j] += h
        J[:, j] = (evaluate(xp)[0] - r) / h
    return J


def _result(
    pose: Pose,
    dampers: list[str],
    wheels: list[str],
    spring: np.ndarray,
    W: np.ndarray,
    heights: np.ndarray,
    iterations: int,
) -> RideHeight:
    ch = pose.chassis
    return RideHeight(
        pose=pose,
        heave_mm=float(ch[2]),
        roll_deg=float(ch[3]),
        pitch_deg=float(ch[4]),
        strokes={d: float(pose.shocks[d]) for d in dampers},
        corner_weights={w: float(W[i]) for i, w in enumerate(wheels)},
        spring_forces={d: float(spring[i]) for i, d in enumerate(dampers)},
        warp_mm=float(np.abs(heights).max(initial=0.0)),
        iterations=iterations,
    )


__all__ = [
    "GROUPS",
    "AxleRates",
    "RideHeight",
    "RollStiffness",
    "Spring",
    "car_springs",
    "corner_weights_from_cg",
    "ride_height",
    "roll_stiffness",
    "spring_wheel_forces",
    "stroke_derivatives",
    "wheel_rate_terms",
    "wheel_rates",
]
