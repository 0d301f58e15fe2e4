"""Force elements: third (heave) springs and anti-roll bars (docs/loads.md,
"Third springs and anti-roll bars").

An element adds no constraint: it is a known internal load at a pose. Each has
one scalar deflection e(q) and a force F_e = P_e + k_e e that resists it:

=============  =====================================  ===========  ==================
kind           deflection e                           k_e          F_e
=============  =====================================  ===========  ==================
third spring   compression = L_design - |p2 - p1|     N/mm         N, + pushes apart
U-bar          twist = arm 1 rotation - arm 2's,      N mm/rad     torque N mm,
               about axis_points[0] -> [1], 0 design               = k_e * twist
T-bar          twist = the lever's rotation about     N mm/rad     torque N mm
               its shaft axis (second joint param)
=============  =====================================  ===========  ==================

Its generalised force on the joint parameters is ``Q_e = -F_e de/dq`` (it
resists its deflection: the work of the element on a motion dq is -F_e de).
On the parts: a third spring pushes its two ends apart with F_e (on end 2
``+F_e u``, on end 1 ``-F_e u``, u the unit vector end 1 -> end 2); a U-bar
puts ``-T a`` on arm 1 and ``+T a`` on arm 2 (a = the unit bar axis); a T-bar's
lever takes from the chassis the moment that balances it about its pivot (-T
about the shaft axis from the bar, the rest from the pivot bearings, none about
the pivot axis), found in `suspension_sim.loads.statics`, and the chassis the
reaction.

Everything takes B poses at once (no per-pose loop). Units: mm, rad, N, N mm.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.description import CHASSIS, ThirdSpring
from suspension_sim.errors import InputError, ModelError
from suspension_sim.model.topology import bar_twist_params

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

THIRD = "third spring"
U_BAR = "U-bar"
T_BAR = "T-bar"
CURVATURE_STEP = 1e-3
"""Step (mm or rad of parameter along a unit tangent) of the central difference of de/dq."""


@dataclass(frozen=True)
class Elements:
    """The force elements of one model, fixed with the model (and any rate overrides).

    names, kinds: per element (third springs first, then bars, each in car order).
    rate (n_e,): N/mm or N mm/rad; preload (n_e,): N (third springs), 0 for bars.
    ends (n_s, 2): the point copies (rows of the model's per-instance arrays) of the
    third springs' ends; design_length (n_s,) mm. twist_idx, twist_sign (n_b, k):
    twist = sum(sign * q[idx]) for each bar (sign 0 pads). axis (n_b, 3): a U-bar's
    unit axis (chassis frame), zeros for a T-bar. arms (n_b, 2): a U-bar's arm bodies,
    a T-bar's (lever, ""). centre (n_b,): a T-bar lever's copy of its pivot centre
    (-1 for a U-bar).
    """

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    rate: np.ndarray
    preload: np.ndarray
    ends: np.ndarray
    design_length: np.ndarray
    twist_idx: np.ndarray
    twist_sign: np.ndarray
    axis: np.ndarray
    arms: tuple[tuple[str, str], ...]
    centre: np.ndarray

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def n_springs(self) -> int:
        return len(self.ends)

    @property
    def units(self) -> tuple[str, ...]:
        """Unit of each deflection as reported: mm (third spring) or deg (bars)."""
        return tuple("mm" if k == THIRD else "deg" for k in self.kinds)

    def index(self, name: str) -> int:
        return self.names.index(name)


def elements_of(model: KinematicModel, overrides: Mapping[str, Any] | None = None) -> Elements:
    """The model's `Elements` (memoised without overrides).

    overrides: {element name: object with ``rate`` and ``preload``, e.g.
    `suspension_sim.loads.springs.Spring`} replacing the car's values (third spring:
    N/mm and N; bar: N mm/rad, preload 0). Names that are not elements are ignored:
    the same mapping may hold the dampers' springs. InputError for a bar given a
    preload. A third spring without a rate has none (force = its preload, or 0).
    """
    given = {n: v for n, v in (overrides or {}).items() if n in _element_names(model)}
    if not given:
        return model.derived.get(("loads", "elements"), lambda: _build(model, {}))
    return _build(model, given)


def _element_names(model: KinematicModel) -> set[str]:
    car = model.car
    return {s.name for s in car.third_springs} | {b.name for b in car.anti_roll_bars}


def _build(model: KinematicModel, given: Mapping[str, Any]) -> Elements:
    car = model.car
    names: list[str] = []
    kinds: list[str] = []
    rate: list[float] = []
    preload: list[float] = []
    ends: list[tuple[int, int]] = []
    length: list[float] = []
    for s in car.third_springs:
        a, b = (_copy(model, p, s.name, _where(s)) for p in s.end_points)
        design = float(np.linalg.norm(model.inst_design[b] - model.inst_design[a]))
        if s.name in given:
            k, p0 = float(given[s.name].rate), float(given[s.name].preload)
        else:
            k = float(s.spring_rate or 0.0)
            if s.spring_free_length is not None:
                p0 = k * (s.spring_free_length - design)
            else:
                p0 = float(s.spring_preload or 0.0)
        names.append(s.name)
        kinds.append(THIRD)
        rate.append(k)
        preload.append(p0)
        ends.append((a, b))
        length.append(design)
    idx_rows: list[list[int]] = []
    sign_rows: list[list[float]] = []
    axes: list[np.ndarray] = []
    arms: list[tuple[str, str]] = []
    centre: list[int] = []
    for bar in car.anti_roll_bars:
        idx, sign = bar_twist_params(model, bar)
        k = float(bar.rate)
        if bar.name in given:
            k = float(given[bar.name].rate)
            if float(given[bar.name].preload) != 0.0:
                raise InputError(
                    f"anti-roll bar {bar.name!r}: a bar has no preload",
                    where="springs",
                    hint="give the bar's rate only (N mm/rad), preload 0",
                )
        names.append(bar.name)
        kinds.append(bar.kind)
        rate.append(k)
        preload.append(0.0)
        idx_rows.append(list(idx))
        sign_rows.append(list(sign))
        a0, a1 = (car.point(p) for p in bar.axis_points)
        if bar.kind == U_BAR:
            axes.append((a1 - a0) / np.linalg.norm(a1 - a0))
            arms.append((bar.arms[0], bar.arms[1]))
            centre.append(-1)
        else:
            axes.append(np.zeros(3))
            arms.append((bar.arms[0], ""))
            centre.append(model.inst_index[(bar.axis_points[0], bar.arms[0])])
    width = max((len(r) for r in idx_rows), default=1)
    twist_idx = np.zeros((len(idx_rows), width), dtype=int)
    twist_sign = np.zeros((len(idx_rows), width))
    for i, (r, s_) in enumerate(zip(idx_rows, sign_rows, strict=True)):
        twist_idx[i, : len(r)] = r
        twist_sign[i, : len(s_)] = s_
    return Elements(
        names=tuple(names),
        kinds=tuple(kinds),
        rate=np.array(rate, dtype=float),
        preload=np.array(preload, dtype=float),
        ends=np.array(ends, dtype=int).reshape(-1, 2),
        design_length=np.array(length, dtype=float),
        twist_idx=twist_idx,
        twist_sign=twist_sign,
        axis=np.array(axes, dtype=float).reshape(-1, 3),
        arms=tuple(arms),
        centre=np.array(centre, dtype=int),
    )


def _where(spring: ThirdSpring) -> str | None:
    """The workbook cell a third spring was read from, when known."""
    return str(spring.source) if spring.source is not None else None


def _copy(model: KinematicModel, point: str, element: str, where: str | None = None) -> int:
    """The point copy an element end acts on: the chassis copy when the point is on
    the chassis, else the copy on a body with three or more points (joined copies
    coincide). A two-point body is a two-force member in the statics (its force is
    along it): a spring end there would bend it, so that is refused."""
    rows = [i for i, n in enumerate(model.inst_point) if n == point]
    if not rows:
        raise ModelError(
            f"third spring {element!r}: its end point {point!r} is on no body",
            where=where,
            hint="name the end points in the bodies they attach to (Components)",
        )
    on_chassis = [i for i in rows if model.inst_body[i] == CHASSIS]
    if on_chassis:
        return on_chassis[0]
    rigid = [i for i in rows if len(model.car.body(model.inst_body[i]).points) > 2]
    if not rigid:
        owners = ", ".join(dict.fromkeys(model.inst_body[i] for i in rows))
        raise ModelError(
            f"third spring {element!r}: its end point {point!r} is only on two-point links"
            f" ({owners}), which carry force along themselves only",
            where=where,
            hint="end the spring on a point of a rocker, arm, upright or the chassis",
        )
    return rigid[0]


# -- evaluation (B poses at once) ------------------------------------------------------------
def deflections(el: Elements, q: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Deflection of every element (B, n_e): compression mm, twist rad.

    q: (n_params, B) parameters; P: (B, n_inst, 3) point copies, chassis frame.
    """
    B = q.shape[1]
    out = np.zeros((B, el.n))
    ns = el.n_springs
    if ns:
        d = P[:, el.ends[:, 1]] - P[:, el.ends[:, 0]]
        out[:, :ns] = el.design_length[None] - np.linalg.norm(d, axis=-1)
    if el.n > ns:
        out[:, ns:] = np.einsum("ek,ekb->be", el.twist_sign, q[el.twist_idx])
    return out


def gradients(model: KinematicModel, el: Elements, P: np.ndarray, dP: np.ndarray) -> np.ndarray:
    """de/dq of every element (B, n_e, n_params), from the model's point derivatives.

    P: (B, n_inst, 3); dP: (B, n_inst, kmax, 3) (``instance_positions`` moved to
    batch-first). A third spring: dc/dq = -u . (dp2/dq - dp1/dq); a bar: its signs.
    """
    B = P.shape[0]
    n = model.n_params
    G = np.zeros((B, el.n, n + 1))  # last column collects slot -1
    flat = G.reshape(B, -1).T  # a view: row e * (n + 1) + parameter
    ns = el.n_springs
    if ns:
        a, b = el.ends[:, 0], el.ends[:, 1]
        d = P[:, b] - P[:, a]
        u = d / np.linalg.norm(d, axis=-1, keepdims=True)  # (B, n_s, 3)
        for end, sgn in ((b, -1.0), (a, 1.0)):
            val = sgn * np.einsum("bski,bsi->bsk", dP[:, end], u)  # (B, n_s, kmax)
            slots = np.where(model.inst_slots[end] >= 0, model.inst_slots[end], n)
            where = np.arange(ns)[:, None] * (n + 1) + slots  # (n_s, kmax)
            np.add.at(flat, where.ravel(), val.reshape(B, -1).T)
    if el.n > ns:
        where = np.arange(ns, el.n)[:, None] * (n + 1) + el.twist_idx
        np.add.at(flat, where.ravel(), np.repeat(el.twist_sign.reshape(1, -1), B, axis=0).T)
    return G[:, :, :n]


def forces(el: Elements, e: np.ndarray) -> np.ndarray:
    """Force (N, third springs) or torque (N mm, bars) of every element (B, n_e)."""
    return el.preload[None] + el.rate[None] * e


def evaluate(
    model: KinematicModel, el: Elements, q: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deflection (B, n_e), force (B, n_e) and de/dq (B, n_e, n_params) at q (n_params, B)."""
    P, dP = model.instance_positions(q, derivatives=True)
    assert dP is not None
    P = np.moveaxis(P, -1, 0)
    dP = np.moveaxis(dP, -1, 0)
    e = deflections(el, q, P)
    return e, forces(el, e), gradients(model, el, P, dP)


def curvatures(model: KinematicModel, el: Elements, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """d2e/dt2 of e(q + t v) at t = 0 for the columns of v (n_params, n_dir) at one q
    (n_params,): (n_e, n_dir). The bars' twist is linear in q (0); a third spring's
    from a central difference of de/dq along v."""
    out = np.zeros((el.n, v.shape[1]))
    if not el.n_springs:
        return out
    scale = np.maximum(np.abs(v).max(axis=0), 1e-300)
    h = CURVATURE_STEP / scale  # at most CURVATURE_STEP in any parameter
    qq = np.concatenate([q[:, None] + h * v, q[:, None] - h * v], axis=1)
    _, _, G = evaluate(model, el, qq)
    n_dir = v.shape[1]
    gv = np.einsum("bep,pb->be", G, np.concatenate([v, v], axis=1))
    out[:] = ((gv[:n_dir] - gv[n_dir:]) / (2 * h[:, None])).T
    out[el.n_springs :] = 0.0
    return out


def spring_end_forces(el: Elements, P: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Force on each third spring's end copies (B, n_s, 2, 3), chassis frame, N:
    ``-F u`` on end 1 and ``+F u`` on end 2 (+ F pushes the ends apart)."""
    ns = el.n_springs
    if not ns:
        return np.zeros((P.shape[0], 0, 2, 3))
    d = P[:, el.ends[:, 1]] - P[:, el.ends[:, 0]]
    u = d / np.linalg.norm(d, axis=-1, keepdims=True)
    f = F[:, :ns, None] * u
    return np.stack([-f, f], axis=2)


def u_bar_moments(el: Elements, F: np.ndarray) -> np.ndarray:
    """Moment of each bar on its arms (B, n_b, 2, 3), N mm, chassis frame: ``-T a`` on
    arm 1, ``+T a`` on arm 2 for a U-bar; zeros for a T-bar (its lever's moment comes
    from the lever's balance, `suspension_sim.loads.statics`)."""
    T = F[:, el.n_springs :]
    m = T[..., None] * el.axis[None]
    return np.stack([-m, m], axis=2)


__all__ = [
    "THIRD",
    "T_BAR",
    "U_BAR",
    "Elements",
    "curvatures",
    "deflections",
    "elements_of",
    "evaluate",
    "forces",
    "gradients",
    "spring_end_forces",
    "u_bar_moments",
]
