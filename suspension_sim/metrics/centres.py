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
from suspension_sim.metrics.vectors import Z_UP, cross, dot

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
    """

    def want(*mids: str) -> bool:
        return ids is None or any(m in ids for m in mids)

    n_w = len(st.names)
    R, t = g.R, g.t
    x_h, y_h = g.x_h, g.y_h
    m_front, m_side = to_chassis(R, x_h), to_chassis(R, y_h)  # (S, 3) chassis frame
    own = np.arange(n_w)
    travel = twists[:, :, :, :n_w]

    def velocity(tw: np.ndarray, p: np.ndarray) -> np.ndarray:
        return to_world(R, tw[..., 3:] + cross(tw[..., :3], p))

    mf, ms = m_front[:, None], m_side[:, None]
    xh, yh = x_h[:, None], y_h[:, None]
    out: dict[Slot, np.ndarray] = {}

    def put(mid: str, comps: str, N: np.ndarray, lam: np.ndarray) -> None:
        pts = linkage.finite(N, lam)
        for i, name in enumerate(st.names):
            for comp in comps:
                out[(mid, name, comp)] = pts[:, i, "xyz".index(comp)]

    antis = st.has_wheelbase and want(*ANTIS, *ANTI_CENTRES.values())
    side = want("svic", "svsa", "pitch_centre", "pitch_centre_line_angle") or antis
    front = want(
        "fvic", "fvsa", "roll_centre_height", "roll_centre_lateral", "roll_centre_line_angle"
    )
    tw_own = twists[:, own, :, own].transpose(1, 0, 2)  # (S, n_w, 6)
    if side:
        tw_side = np.einsum("siak,ik->sia", travel, st.heave)
        cp_side = velocity(tw_side, g.cp_c)
    if front:
        tw_front = np.einsum("siak,ik->sia", travel, st.roll)
        cp_front = velocity(tw_front, g.cp_c)
    if want("fvic", "fvsa"):
        fN, fl = linkage.force_centre(tw_front, g.cp_c, mf)
        fN = world_homogeneous(R, t, fN, fl)
        if want("fvic"):
            put("fvic", "yz", fN, fl)
        fsa = linkage.view_distance(g.cp_w, fN, fl, xh)
        for i, name in enumerate(st.names):
            out[("fvsa", name, "")] = fsa[:, i]
    if want("svic", "svsa"):
        sN, sl = linkage.force_centre(tw_side, g.cp_c, ms)
        sN = world_homogeneous(R, t, sN, sl)
        if want("svic"):
            put("svic", "xz", sN, sl)
        ssa = linkage.view_distance(g.cp_w, sN, sl, yh)
        for i, name in enumerate(st.names):
            out[("svsa", name, "")] = ssa[:, i]
    if want("fvic_axis"):
        aN, al = linkage.instant_centre(tw_own, g.cp_c, mf)
        put("fvic_axis", "yz", world_homogeneous(R, t, aN, al), al)
    if want("svic_axis"):
        aN, al = linkage.instant_centre(tw_own, g.cp_c, ms)
        put("svic_axis", "xz", world_homogeneous(R, t, aN, al), al)
    if antis:
        c_side = velocity(tw_side, g.C_c)
        L = st.design_wheelbase
        for i, name in enumerate(st.names):
            for mid, share, at_centre in anti_cases(bool(st.front[i]), bool(st.rear[i]), opts):
                u = c_side[:, i] if at_centre else cp_side[:, i]
                direction, _ = linkage.view_normal(u, y_h)
                out[(mid, name, "")] = linkage.anti_percent(
                    direction, x_h, Z_UP, mid == "anti_dive", L, opts.cg_height_mm, share
                )
                if at_centre:
                    cN, cl = linkage.force_centre(tw_side[:, i], g.C_c[:, i], m_side)
                    pts = linkage.finite(world_homogeneous(R, t, cN, cl), cl)
                    for comp in "xz":
                        out[(ANTI_CENTRES[mid], name, comp)] = pts[:, "xyz".index(comp)]

    for i in (
        (int(k) for k in np.flatnonzero(st.double_wishbone))
        if want("fvic_arms", "svic_arms")
        else ()
    ):
        planes = []
        for arm in st.arms[i]:
            a, b, joint = (to_world(R, g.P[:, j]) + t for j in arm)  # pivots, ball joint
            planes.append((a, cross(b - a, joint - a)))
        for mid, comps, normal in (("fvic_arms", "yz", x_h), ("svic_arms", "xz", y_h)):
            pts = linkage.finite(*linkage.planes_meet((*planes, (g.cp_w[:, i], normal))))
            for comp in comps:
                out[(mid, st.names[i], comp)] = pts[:, "xyz".index(comp)]

    for axle, (il, ir) in st.axles.items():
        if want("roll_centre_height", "roll_centre_lateral", "roll_centre_line_angle"):
            lines = (
                g.cp_w[:, il],
                linkage.view_normal(cp_front[:, il], x_h),
                g.cp_w[:, ir],
                linkage.view_normal(cp_front[:, ir], x_h),
                y_h,
                Z_UP,
            )
            out[("roll_centre_line_angle", axle, "")] = np.degrees(linkage.lines_angle(*lines))
            uv = linkage.centre_of_lines(*lines)
            u_rc, h = uv[:, 0], uv[:, 1]
            out[("roll_centre_height", axle, "")] = h
            if want("roll_centre_lateral"):
                mid_cp = 0.5 * (g.cp_w[:, il] + g.cp_w[:, ir])
                rc = dot(mid_cp, x_h)[:, None] * x_h + u_rc[:, None] * y_h + h[:, None] * Z_UP
                out[("roll_centre_lateral", axle, "")] = to_chassis(R, rc - t)[:, 1]
        if want("roll_centre_axis_height", "roll_centre_axis_line_angle"):
            # OptimumK's kinematic roll centre: the lines CP -> where each wheel's screw axis
            # pierces the vertical plane through the two contact points.
            mid_c = 0.5 * (g.cp_c[:, il] + g.cp_c[:, ir])
            pierce = []
            for i in (il, ir):
                pN, pl = linkage.instant_centre(tw_own[:, i], mid_c, m_front)
                pierce.append((world_homogeneous(R, t, pN, pl), pl))
            axis_lines = (g.cp_w[:, il], pierce[0], g.cp_w[:, ir], pierce[1], y_h, Z_UP)
            angle = linkage.lines_angle(*axis_lines)
            out[("roll_centre_axis_line_angle", axle, "")] = np.degrees(angle)
            uv = linkage.centre_of_lines(*axis_lines)
            out[("roll_centre_axis_height", axle, "")] = uv[:, 1]
    pitch = want("pitch_centre", "pitch_centre_line_angle")
    for side_name, (i_f, i_r) in st.sides.items() if pitch else ():
        side_lines = (
            g.cp_w[:, i_f],
            linkage.view_normal(cp_side[:, i_f], y_h),
            g.cp_w[:, i_r],
            linkage.view_normal(cp_side[:, i_r], y_h),
            x_h,
            Z_UP,
        )
        angle = linkage.lines_angle(*side_lines)
        out[("pitch_centre_line_angle", side_name, "")] = np.degrees(angle)
        xz = linkage.centre_of_lines(*side_lines)
        out[("pitch_centre", side_name, "x")] = xz[:, 0]
        out[("pitch_centre", side_name, "z")] = xz[:, 1]
    return out


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
