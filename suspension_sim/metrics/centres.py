"""Instant centres, swing arms, antis, roll and pitch centres of solved states.

Everything comes from the carrier's twist (w, v) relative to the chassis per
mm of wheel travel (rack held; `suspension_sim.solve.sensitivity.part_twists`),
as velocities of points fixed on the carrier, ``u(p) = v + w x p``. The views
are along the car's horizontal heading x_h (front view) and lateral axis y_h
(side view); results are in the world frame. Definitions, signs and the
reference point R of each quantity: docs/conventions.md ("Instant centres and
swing arms", "Roll centre and pitch centre", "Anti-dive, anti-lift,
anti-squat"); derivations and evidence: docs/metrics.md ("Linkage metrics").

Motions: the side view uses each wheel's axle heave (both travels +1 mm), the
front view its roll (left +1, right -1), which for independent corners is
the wheel's own travel and for a rigid axle the axle's own motion; the
screw-axis diagnostics use the wheel's own single-wheel travel.

`centre_columns` computes them for S states at once (a leading state axis:
`metrics.batch`); `centre_metrics` writes them for one pose through it.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.metrics import linkage
from suspension_sim.metrics.geometry import Slot, Wheels, WheelSet, to_chassis, to_world
from suspension_sim.metrics.vectors import Z_UP, dot, norm
from suspension_sim.tolerances import (
    CENTRE_AT_INFINITY_MM,
    COINCIDENT_LINES_MM,
    PARALLEL_SIN,
    PURE_TRANSLATION_RAD,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import Options

ANTIS = ("anti_dive", "anti_lift", "anti_squat")
LINE_ANGLES = {
    "roll_centre_height": "roll_centre_line_angle",
    "roll_centre_axis_height": "roll_centre_axis_line_angle",
    "pitch_centre": "pitch_centre_line_angle",
}
"""Each centre built from two lines -> the metric giving the angle between those lines
(deg): below `NEAR_PARALLEL_LINES_DEG` the centre is ill-conditioned (docs/metrics.md,
"Nearly parallel lines")."""
ANTI_CENTRES = {a: f"svic_{a}" for a in ANTIS}
"""The side-view centre printed beside each anti when its reference point is C."""


def anti_cases(front: bool, rear: bool, opts: Options) -> list[tuple[str, float, bool]]:
    """The antis of a wheel: (metric, share, reference point is C rather than CP).

    Front wheels: anti-dive (front brake share; C with inboard front brakes).
    Rear wheels: anti-lift (1 - front brake share; C with inboard rear brakes)
    and anti-squat (rear drive share; C for a chassis-mounted drive).
    """
    if front:
        return [("anti_dive", opts.front_brake_share, opts.front_brakes_inboard)]
    if rear:
        return [
            ("anti_lift", 1.0 - opts.front_brake_share, opts.rear_brakes_inboard),
            ("anti_squat", opts.rear_drive_share, opts.drive_inboard),
        ]
    return []


def world_homogeneous(R: np.ndarray, t: np.ndarray, N: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Chassis -> world for homogeneous points of S states: R N + lam t, N (S, ..., 3)."""
    extra = (1,) * (N.ndim - 2)
    return to_world(R, N) + lam[..., None] * t.reshape(len(t), *extra, 3)


def centre_columns(
    st: WheelSet,
    g: Wheels,
    twists: np.ndarray,
    opts: Options,
    ids: AbstractSet[str] | None = None,
) -> dict[Slot, np.ndarray]:
    """Instant centres, swing arms, antis, roll and pitch centres of S states: {slot: (S,)}.

    twists: carrier twists along the wheel tangents (S, n_w, 6, cols), chassis frame.
    ids: only these metrics (None = all; the others are not computed).

    The `linkage` formulas, every wheel at once on components-first arrays (3, S, n_w)
    (`_soa`): numpy then runs each operation in one loop over S x n_w values, where
    the (S, n_w, 3) layout's broadcasts and views cost one short loop per state and
    wheel. Every value is the one `linkage` gives (the same operations on the same
    numbers, in the same order; the 3x3 rotations through the same `to_world` calls:
    tests/test_centres_soa.py compares bit for bit).
    """

    def want(*mids: str) -> bool:
        return ids is None or any(m in ids for m in mids)

    n_w = len(st.names)
    R, t = g.R, g.t
    S = len(R)
    x_h, y_h = g.x_h, g.y_h
    m_front, m_side = to_chassis(R, x_h), to_chassis(R, y_h)  # (S, 3) chassis frame
    own = np.arange(n_w)
    # each wheel's twist along each travel column, components first (n_w, cols, 6, S),
    # when the linkage motions can be mixed from it (`_mix`)
    exact = all(_unit_weights(W) for W in (st.heave, st.roll))
    per_column = twists.transpose(1, 3, 2, 0).copy() if exact else None

    def every(v: np.ndarray) -> np.ndarray:  # (S, 3) -> (3, S, n_w), same for each wheel
        return np.broadcast_to(v.T[:, :, None], (3, S, n_w)).copy()

    mf, ms, xh, yh = every(m_front), every(m_side), every(x_h), every(y_h)
    cp_c, cp_w = _soa(g.cp_c), _soa(g.cp_w)
    out: dict[Slot, np.ndarray] = {}

    def put(mid: str, comps: str, N: np.ndarray, lam: np.ndarray) -> None:
        pts = _finite(N, lam)
        for i, name in enumerate(st.names):
            for comp in comps:
                out[(mid, name, comp)] = pts["xyz".index(comp), :, i]

    antis = st.has_wheelbase and want(*ANTIS, *ANTI_CENTRES.values())
    side = want("svic", "svsa", "pitch_centre", "pitch_centre_line_angle") or antis
    front = want(
        "fvic", "fvsa", "roll_centre_height", "roll_centre_lateral", "roll_centre_line_angle"
    )
    axis_rc = want("roll_centre_axis_height", "roll_centre_axis_line_angle") and bool(st.axles)
    tw_own = None
    if want("fvic_axis", "svic_axis") or axis_rc:
        if per_column is not None:
            tw_own = np.stack([per_column[i, i] for i in range(n_w)], axis=-1)  # (6, S, n_w)
        else:
            tw_own = twists[:, own, :, own].transpose(2, 1, 0).copy()
    # chassis-frame vectors (3, S, n_w) to turn into the world frame, all in one `to_world`
    # call; homogeneous centres get + lam t (`world_homogeneous`)
    chassis: dict[str, np.ndarray] = {}
    lams: dict[str, np.ndarray] = {}
    tw_side = tw_front = None
    if side:
        tw_side = _mix(twists, per_column, st.heave)
        chassis["cp_side"] = tw_side[3:] + _cross(tw_side[:3], cp_c)
    if front:
        tw_front = _mix(twists, per_column, st.roll)
        chassis["cp_front"] = tw_front[3:] + _cross(tw_front[:3], cp_c)
    if want("fvic", "fvsa"):
        assert tw_front is not None
        chassis["fN"], lams["fN"] = _force_centre(tw_front, cp_c, mf)
    if want("svic", "svsa"):
        assert tw_side is not None
        chassis["sN"], lams["sN"] = _force_centre(tw_side, cp_c, ms)
    screw = None if tw_own is None else _screw(tw_own)  # each wheel's own screw axis
    if want("fvic_axis"):
        assert screw is not None
        chassis["aNf"], lams["aNf"] = _pierce(screw, cp_c, mf)
    if want("svic_axis"):
        assert screw is not None
        chassis["aNs"], lams["aNs"] = _pierce(screw, cp_c, ms)
    C_c = None
    if antis:
        assert tw_side is not None
        C_c = _soa(g.C_c)
        chassis["c_side"] = tw_side[3:] + _cross(tw_side[:3], C_c)
    world = _to_world_many(R, chassis)
    if lams:
        tb = every(t)
        for key, lam in lams.items():
            world[key] = world[key] + lam * tb
    if want("fvic", "fvsa"):
        if want("fvic"):
            put("fvic", "yz", world["fN"], lams["fN"])
        fsa = _view_distance(cp_w, world["fN"], lams["fN"], xh)
        for i, name in enumerate(st.names):
            out[("fvsa", name, "")] = fsa[:, i]
    if want("svic", "svsa"):
        if want("svic"):
            put("svic", "xz", world["sN"], lams["sN"])
        ssa = _view_distance(cp_w, world["sN"], lams["sN"], yh)
        for i, name in enumerate(st.names):
            out[("svsa", name, "")] = ssa[:, i]
    if want("fvic_axis"):
        put("fvic_axis", "yz", world["aNf"], lams["aNf"])
    if want("svic_axis"):
        put("svic_axis", "xz", world["aNs"], lams["aNs"])
    if antis:
        assert tw_side is not None and C_c is not None
        L = st.design_wheelbase
        cases = [anti_cases(bool(st.front[i]), bool(st.rear[i]), opts) for i in range(n_w)]
        normals = {}
        for key in ("cp_side", "c_side"):
            normals[key] = _cross(yh, world[key]).transpose(1, 2, 0)  # `view_normal`
        inboard = [i for i in range(n_w) if any(c for *_, c in cases[i])]
        centre = None
        if inboard:  # their force centres, components first: (3, S, len(inboard))
            sel = np.asarray(inboard)
            centre = _force_centre(
                tw_side[:, :, sel].copy(), C_c[:, :, sel].copy(), ms[:, :, sel].copy()
            )
        for i, name in enumerate(st.names):
            for mid, share, at_centre in cases[i]:
                direction = normals["c_side" if at_centre else "cp_side"][:, i]
                out[(mid, name, "")] = linkage.anti_percent(
                    direction, x_h, Z_UP, mid == "anti_dive", L, opts.cg_height_mm, share
                )
                if at_centre:
                    assert centre is not None
                    k = inboard.index(i)
                    cN = centre[0][:, :, k].T.copy()
                    cl = centre[1][:, k]
                    pts = linkage.finite(world_homogeneous(R, t, cN, cl), cl)
                    for comp in "xz":
                        out[(ANTI_CENTRES[mid], name, comp)] = pts[:, "xyz".index(comp)]

    if want("fvic_arms", "svic_arms") and np.any(st.double_wishbone):
        _arm_centres(st, g, np.flatnonzero(st.double_wishbone), cp_w, xh, yh, out)

    # Roll, kinematic roll and pitch centres: the crossings of two lines in a view
    # (`linkage.centre_of_lines`, `linkage.lines_angle`), all of them in one `_lines`.
    # A line: (point, homogeneous point (N, lam) it goes through, the view's u axis).
    lines: list[tuple[str, str, int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    zero = np.zeros(S)  # `view_normal`'s lam
    roll = want("roll_centre_height", "roll_centre_lateral", "roll_centre_line_angle")
    if roll and st.axles:
        ahead = _cross(xh, world["cp_front"])  # `view_normal`
        for axle, (il, ir) in st.axles.items():
            lines.append(("roll", axle, il, ir, ahead[:, :, il], zero, ahead[:, :, ir], zero))
    if axis_rc:
        # OptimumK's kinematic roll centre: the lines CP -> where each wheel's screw axis
        # pierces the vertical plane through the two contact points.
        assert screw is not None
        mids = cp_c.copy()  # each axle wheel's plane point: the mid of its axle's CPs
        for il, ir in st.axles.values():
            mids[:, :, il] = mids[:, :, ir] = 0.5 * (cp_c[:, :, il] + cp_c[:, :, ir])
        pN, pl = _pierce(screw, mids, mf)
        for axle, (il, ir) in st.axles.items():
            pierce = []  # one-vector `world_homogeneous` each, as a pose
            for i in (il, ir):
                pierce.append(world_homogeneous(R, t, pN[:, :, i].T.copy(), pl[:, i]).T)
            lines.append(("axis", axle, il, ir, pierce[0], pl[:, il], pierce[1], pl[:, ir]))
    if want("pitch_centre", "pitch_centre_line_angle") and st.sides:
        across = _cross(yh, world["cp_side"])
        for side_name, (i_f, i_r) in st.sides.items():
            lines.append(
                ("pitch", side_name, i_f, i_r, across[:, :, i_f], zero, across[:, :, i_r], zero)
            )
    if lines:
        first = [ln[2] for ln in lines]
        second = [ln[3] for ln in lines]
        cols = np.arange(len(lines))
        u_axes = [yh if ln[0] != "pitch" else xh for ln in lines]
        angle, uv = _lines(
            cp_w[:, :, first].copy(),
            np.stack([ln[4] for ln in lines], axis=-1),
            np.stack([ln[5] for ln in lines], axis=-1),
            cp_w[:, :, second].copy(),
            np.stack([ln[6] for ln in lines], axis=-1),
            np.stack([ln[7] for ln in lines], axis=-1),
            np.stack([u[:, :, 0] for u in u_axes], axis=-1),
            _Z_UP,
        )
        degrees = np.degrees(angle)
        for k, (kind, where, il, ir, *_) in zip(cols.tolist(), lines, strict=True):
            if kind == "roll":
                out[("roll_centre_line_angle", where, "")] = degrees[:, k]
                u_rc, h = uv[0, :, k], uv[1, :, k]
                out[("roll_centre_height", where, "")] = h
                if want("roll_centre_lateral"):
                    cp_l, cp_r = (cp_w[:, :, i].T.copy() for i in (il, ir))
                    mid_cp = 0.5 * (cp_l + cp_r)
                    rc = dot(mid_cp, x_h)[:, None] * x_h + u_rc[:, None] * y_h + h[:, None] * Z_UP
                    out[("roll_centre_lateral", where, "")] = to_chassis(R, rc - t)[:, 1]
            elif kind == "axis":
                out[("roll_centre_axis_line_angle", where, "")] = degrees[:, k]
                out[("roll_centre_axis_height", where, "")] = uv[1, :, k]
            else:
                out[("pitch_centre_line_angle", where, "")] = degrees[:, k]
                out[("pitch_centre", where, "x")] = uv[0, :, k]
                out[("pitch_centre", where, "z")] = uv[1, :, k]
    return out


def _unit_weights(W: np.ndarray) -> bool:
    """Whether the travel weights W (n_w, n_w) are 0, 1 or -1 with at most two nonzero a
    row (`WheelSet.heave`, `WheelSet.roll`): then each product is exact and any order of
    the sum gives the same number, so `_mix` may add them one by one."""
    return bool(np.isin(W, (-1.0, 0.0, 1.0)).all() and (np.count_nonzero(W, axis=1) <= 2).all())


def _mix(twists: np.ndarray, per_column: np.ndarray | None, W: np.ndarray) -> np.ndarray:
    """``einsum("siak,ik->sia", travel twists, W)`` components first, (6, S, n_w): each
    wheel's twist along its linkage motion (the travels weighted by W). With
    `per_column` (`_unit_weights` W, plain arrays): summed from 0 in column order, which is
    einsum's value bit for bit (exact products; tests/test_centres_soa.py), at a third of
    its cost on the (S, n_w, 6, cols) layout."""
    n_w = W.shape[0]
    if per_column is None or not isinstance(twists, np.ndarray):
        return _soa(np.einsum("siak,ik->sia", twists[:, :, :, :n_w], W))
    wheels = []
    for i in range(n_w):
        acc = 0.0 + per_column[i, 0] * W[i, 0]
        for k in range(1, n_w):
            acc = acc + per_column[i, k] * W[i, k]
        wheels.append(acc)
    return np.stack(wheels, axis=-1)


def _arm_centres(
    st: WheelSet,
    g: Wheels,
    arms: np.ndarray,
    cp_w: np.ndarray,
    xh: np.ndarray,
    yh: np.ndarray,
    out: dict[Slot, np.ndarray],
) -> None:
    """``fvic_arms`` / ``svic_arms`` of the double-wishbone wheels `arms` into `out`:
    `linkage.planes_meet` of the two arm planes and the view plane through the contact
    point, all those wheels at once (components first)."""
    R, t = g.R, g.t
    S = len(R)
    copies = st.arms[arms].reshape(-1)  # (wheel, arm, pivot/pivot/joint)
    P = g.P[:, copies][:, :, None, :]  # (S, k, 1, 3)
    # each copy by its own one-vector `to_world` (a stack of them: one BLAS call each)
    world = np.matmul(P, R.transpose(0, 2, 1)[:, None])[:, :, 0] + t[:, None]
    pts = _soa(world).reshape(3, S, len(arms), 2, 3)
    arm_planes = []
    for arm in range(2):
        a, b, joint = (pts[:, :, :, arm, k] for k in range(3))
        arm_planes.append((a, _cross(b - a, joint - a)))
    cp = cp_w[:, :, arms].copy()
    # `linkage.planes_meet` of (arm plane, arm plane, view plane), what the two views
    # share computed once
    (p1, n1), (p2, n2) = ((p, _unit(n)) for p, n in arm_planes)
    n12 = _cross(n1, n2)
    d1, d2 = _dot(n1, p1), _dot(n2, p2)
    for mid, comps, normal in (("fvic_arms", "yz", xh), ("svic_arms", "xz", yh)):
        n3 = _unit(normal[:, :, : len(arms)].copy())
        n23 = _cross(n2, n3)
        lam = _dot(n1, n23)
        N = d1 * n23 + d2 * _cross(n3, n1) + _dot(n3, cp) * n12
        found = _finite(*_at_infinity(N, lam, cp))
        for k, i in enumerate(arms.tolist()):
            for comp in comps:
                out[(mid, st.names[i], comp)] = found["xyz".index(comp), :, k]


# -- the `linkage` formulas on components-first arrays (3, ...): same operations ----------
def _soa(v: np.ndarray) -> np.ndarray:
    """(..., k) -> (k, ...) contiguous: the components first."""
    return v.transpose(v.ndim - 1, *range(v.ndim - 1)).copy()


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`vectors.dot` of components-first vectors."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`vectors.cross` of components-first vectors."""
    return np.stack(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def _norm(a: np.ndarray) -> np.ndarray:
    """`vectors.norm` of components-first vectors."""
    return np.sqrt(_dot(a, a))


def _to_world_many(R: np.ndarray, vectors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`to_world` of several components-first (3, S, n) stacks in one call: the 3x3
    products of a stack of n >= 2 vectors come out the same whatever the stack. A car
    with one wheel keeps one call per stack (one-vector stacks take another BLAS routine,
    whose roundings differ)."""
    if not vectors:
        return {}
    keys = list(vectors)
    n = [vectors[k].shape[2] for k in keys]
    if min(n) < 2:
        return {k: _soa(to_world(R, vectors[k].transpose(1, 2, 0))) for k in keys}
    both = np.concatenate([vectors[k].transpose(1, 2, 0) for k in keys], axis=1)
    world = _soa(to_world(R, both))
    bounds = np.cumsum([0, *n])
    return {k: world[:, :, bounds[j] : bounds[j + 1]] for j, k in enumerate(keys)}


def _at_infinity(
    N: np.ndarray, lam: np.ndarray, ref: np.ndarray, tol: float = CENTRE_AT_INFINITY_MM
) -> tuple[np.ndarray, np.ndarray]:
    """`linkage._at_infinity`, components first."""
    offset = N - lam * ref
    far = np.abs(lam) * tol <= _norm(offset)
    return np.where(far, offset, N), np.where(far, 0.0, lam)


def _force_centre(
    twist: np.ndarray, ref: np.ndarray, plane_normal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`linkage.force_centre`, components first (twist (6, ...))."""
    w, v = twist[:3], twist[3:]
    lam = _dot(w, plane_normal)
    N = lam * ref + _cross(plane_normal, v + _cross(w, ref))
    return _at_infinity(N, lam, ref)


def _instant_centre(
    twist: np.ndarray, plane_point: np.ndarray, plane_normal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`linkage.instant_centre`, components first (twist (6, ...))."""
    return _pierce(_screw(twist), plane_point, plane_normal)


Screw = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""(v, moving, p0, what) of twists (`_screw`): what `linkage.instant_centre` computes
before it reads the plane, shared by every plane a twist's axis is pierced with."""


def _screw(twist: np.ndarray) -> Screw:
    """The screw axes of twists (6, ...), components first, as `linkage.instant_centre`
    computes them: v, moving (|w| past `PURE_TRANSLATION_RAD`), the axis point p0 and
    the unit direction."""
    w, v = twist[:3], twist[3:]
    ww = _dot(w, w)
    moving = ww >= PURE_TRANSLATION_RAD**2
    safe = np.where(moving, ww, 1.0)
    p0 = _cross(w, v) / safe
    what = w / np.sqrt(safe)
    return v, moving, p0, what


def _pierce(
    screw: Screw, plane_point: np.ndarray, plane_normal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`linkage.instant_centre` of the `_screw` axes and planes, components first."""
    v, moving, p0, what = screw
    lam = _dot(what, plane_normal)
    N = lam * p0 + _dot(plane_point - p0, plane_normal) * what
    N, lam = _at_infinity(N, lam, plane_point)
    N = np.where(moving, N, _cross(plane_normal, v))
    return N, np.where(moving, lam, 0.0)


def _finite(N: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """`linkage.finite`, components first."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(lam != 0.0, N / np.where(lam != 0, lam, 1.0), np.nan)


def _view_distance(
    point: np.ndarray, N: np.ndarray, lam: np.ndarray, view_axis: np.ndarray
) -> np.ndarray:
    """`linkage.view_distance`, components first."""
    d = _finite(N, lam) - point
    dist = _norm(d - _dot(d, view_axis) * view_axis)
    return np.where(lam == 0.0, np.inf, dist)


_Z_UP = Z_UP.reshape(3, 1, 1)
"""The ground normal, components first."""


def _lines(
    p1: np.ndarray,
    N1: np.ndarray,
    lam1: np.ndarray,
    p2: np.ndarray,
    N2: np.ndarray,
    lam2: np.ndarray,
    u_axis: np.ndarray,
    v_axis: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(`linkage.lines_angle`, `linkage.centre_of_lines`) of the lines p1 -> (N1, lam1)
    and p2 -> (N2, lam2) in the view (u_axis, v_axis), components first: (angle (...),
    (u, v) (2, ...))."""

    def view(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _dot(p, u_axis), _dot(p, v_axis)

    def line(p: tuple[np.ndarray, np.ndarray], N: np.ndarray, lam: np.ndarray) -> np.ndarray:
        # `vectors.homogeneous_line` of the point (p, 1) and (N.u, N.v, lam): 1 q = q
        q0, q1 = view(N)
        ln = np.stack([p[1] * lam - q1, q0 - p[0] * lam, p[0] * q1 - p[1] * q0])
        with np.errstate(invalid="ignore", divide="ignore"):
            return ln / np.hypot(ln[0], ln[1])

    a, b = view(p1), view(p2)
    l1, l2 = line(a, N1, lam1), line(b, N2, lam2)
    x = _cross(l1, l2)
    finite_x = np.isfinite(x[0]) & np.isfinite(x[1]) & np.isfinite(x[2])
    with np.errstate(invalid="ignore", divide="ignore"):
        crossing = x[:2] / x[2]
    same = np.abs(l1[0] * b[0] + l1[1] * b[1] + l1[2]) < COINCIDENT_LINES_MM
    mid = np.stack([(a[0] + b[0]) / 2, (a[1] + b[1]) / 2])
    uv = np.where(same, mid, np.nan)
    uv = np.where(np.abs(x[2]) > PARALLEL_SIN, crossing, uv)
    uv = np.where(finite_x, uv, np.nan)
    d1, d2 = view(N1 - lam1 * p1), view(N2 - lam2 * p2)  # `linkage.line_direction`
    across = np.abs(d1[0] * d2[1] - d1[1] * d2[0])
    # the 2-D dot products and lengths by `vectors.dot` itself (einsum), as `lines_angle`
    v1, v2 = np.stack(d1, axis=-1), np.stack(d2, axis=-1)
    along = np.abs(dot(v1, v2))
    defined = (norm(v1) > 0.0) & (norm(v2) > 0.0)
    return np.where(defined, np.arctan2(across, along), np.nan), uv


def _unit(a: np.ndarray) -> np.ndarray:
    """`vectors.unit` of components-first vectors."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / _norm(a)


def _planes_meet(
    planes: tuple[tuple[np.ndarray, np.ndarray], ...], tol: float = CENTRE_AT_INFINITY_MM
) -> tuple[np.ndarray, np.ndarray]:
    """`linkage.planes_meet`, components first."""
    (p1, n1), (p2, n2), (p3, n3) = ((p, _unit(n)) for p, n in planes)
    lam = _dot(n1, _cross(n2, n3))
    N = (
        _dot(n1, p1) * _cross(n2, n3)
        + _dot(n2, p2) * _cross(n3, n1)
        + _dot(n3, p3) * _cross(n1, n2)
    )
    return _at_infinity(N, lam, p3, tol)


def centre_metrics(
    st: WheelSet,
    geo: Wheels,
    twists: np.ndarray,
    opts: Options,
    out: dict[Slot, float],
) -> None:
    """Write the `centre_columns` of one pose (`pose_geometry`) into `out`.

    twists: `part_twists` along `wheel_tangents` (n_parts, 6, n_cols), chassis frame.
    """
    for slot, v in centre_columns(st, geo, twists[st.part][None], opts).items():
        out[slot] = float(v[0])
