"""Instant centres, swing arms, antis, roll and pitch centres of a solved pose.

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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.metrics import linkage
from suspension_sim.metrics.geometry import PoseGeometry, Slot, WheelSet
from suspension_sim.metrics.vectors import Z_UP, cross

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import Options

ANTIS = ("anti_dive", "anti_lift", "anti_squat")
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


def centre_metrics(
    st: WheelSet,
    geo: PoseGeometry,
    twists: np.ndarray,
    opts: Options,
    out: dict[Slot, float],
) -> None:
    """Write instant centres, swing arms, antis, roll and pitch centres into `out`.

    twists: `part_twists` along `wheel_tangents` (n_parts, 6, n_cols), chassis frame.
    """
    n = Z_UP
    n_w = len(st.names)
    T, R = geo.T, geo.R
    x_h, y_h = geo.x_h, geo.y_h
    m_front, m_side = R.T @ x_h, R.T @ y_h  # view normals, chassis frame
    own = np.arange(n_w)
    tw_own = twists[st.part, :, own]  # (n_w, 6): carrier twist per mm of its wheel's travel
    travel = twists[st.part, :, :n_w]  # (n_w, 6, n_w): carrier i per mm of wheel k
    tw_side = np.einsum("iak,ik->ia", travel, st.heave)
    tw_front = np.einsum("iak,ik->ia", travel, st.roll)

    def velocity(tw: np.ndarray, p: np.ndarray) -> np.ndarray:
        """World velocity of carrier-fixed points p (chassis frame) under twists tw."""
        return (tw[:, 3:] + cross(tw[:, :3], p)) @ R.T

    def world(centre: tuple[np.ndarray, float]) -> tuple[np.ndarray, float]:
        return linkage.transform_homogeneous(T, *centre), centre[1]

    cp_side, c_side = velocity(tw_side, geo.cp_c), velocity(tw_side, geo.C_c)
    cp_front = velocity(tw_front, geo.cp_c)
    L = st.design_wheelbase
    for i, name in enumerate(st.names):
        # Force-based centres through R = CP, and the swing arms to them.
        fv = world(linkage.force_centre(tw_front[i], geo.cp_c[i], m_front))
        sv = world(linkage.force_centre(tw_side[i], geo.cp_c[i], m_side))
        _put(out, "fvic", name, "yz", linkage.finite(*fv))
        _put(out, "svic", name, "xz", linkage.finite(*sv))
        out[("fvsa", name, "")] = linkage.view_distance(geo.cp_w[i], *fv, x_h)
        out[("svsa", name, "")] = linkage.view_distance(geo.cp_w[i], *sv, y_h)
        # Screw-axis diagnostics: the same planes, the wheel's own travel.
        fa = world(linkage.instant_centre(tw_own[i], geo.cp_c[i], m_front))
        sa = world(linkage.instant_centre(tw_own[i], geo.cp_c[i], m_side))
        _put(out, "fvic_axis", name, "yz", linkage.finite(*fa))
        _put(out, "svic_axis", name, "xz", linkage.finite(*sa))
        if st.double_wishbone[i]:
            _arm_centres(st, geo, i, out)
        for mid, share, at_centre in anti_cases(bool(st.front[i]), bool(st.rear[i]), opts):
            if not st.has_wheelbase:
                break
            u = c_side[i] if at_centre else cp_side[i]
            direction, _ = linkage.view_normal(u, y_h)
            out[(mid, name, "")] = linkage.anti_percent(
                direction, x_h, n, mid == "anti_dive", L, opts.cg_height_mm, share
            )
            if at_centre:  # the centre this anti's line goes through, for R = C
                sc = world(linkage.force_centre(tw_side[i], geo.C_c[i], m_side))
                _put(out, ANTI_CENTRES[mid], name, "xz", linkage.finite(*sc))

    for axle, (il, ir) in st.axles.items():
        u_rc, h = linkage.centre_of_lines(
            geo.cp_w[il],
            linkage.view_normal(cp_front[il], x_h),
            geo.cp_w[ir],
            linkage.view_normal(cp_front[ir], x_h),
            y_h,
            n,
        )
        mid_cp = 0.5 * (geo.cp_w[il] + geo.cp_w[ir])
        rc = (mid_cp @ x_h) * x_h + u_rc * y_h + h * n
        out[("roll_centre_height", axle, "")] = float(h)
        out[("roll_centre_lateral", axle, "")] = float(((rc - geo.t) @ R)[1])
    for side_name, (i_f, i_r) in st.sides.items():
        x, h = linkage.centre_of_lines(
            geo.cp_w[i_f],
            linkage.view_normal(cp_side[i_f], y_h),
            geo.cp_w[i_r],
            linkage.view_normal(cp_side[i_r], y_h),
            x_h,
            n,
        )
        out[("pitch_centre", side_name, "x")] = float(x)
        out[("pitch_centre", side_name, "z")] = float(h)


def _arm_centres(st: WheelSet, geo: PoseGeometry, i: int, out: dict[Slot, float]) -> None:
    """fvic_arms / svic_arms: the two arm planes meet the view planes through CP."""
    name = st.names[i]
    planes = []
    for arm in st.arms[i]:
        a, b, joint = geo.P[arm] @ geo.R.T + geo.t  # pivot, pivot, ball joint (world)
        planes.append((a, cross(b - a, joint - a)))
    cp = geo.cp_w[i]
    fv = linkage.planes_meet((*planes, (cp, geo.x_h)))
    sv = linkage.planes_meet((*planes, (cp, geo.y_h)))
    _put(out, "fvic_arms", name, "yz", linkage.finite(*fv))
    _put(out, "svic_arms", name, "xz", linkage.finite(*sv))


def _put(out: dict[Slot, float], mid: str, where: str, comps: str, point: np.ndarray) -> None:
    """Write the world components `comps` (of "xyz") of `point` as (mid, where, comp)."""
    for comp in comps:
        out[(mid, where, comp)] = float(point["xyz".index(comp)])
