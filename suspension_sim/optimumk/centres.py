"""OptimumK's instant centres, roll centres and pitch centres of a solved pose.

OptimumK's centres are force-based (the SAE J670 construction of docs/conventions.md,
"Instant centres and swing arms") with the reference point R = its own contact patch
(`ok_contact_patches`, its heading turned by OptimumK's Steer Angle, `ok_steer`, the one
steer of every OptimumK channel), and they are drawn in **world** planes:

* front-view instant centre: in the plane X = CP.x. With (w, v) the carrier's twist for
  the wheel's own travel (rack held), w the part of the angular velocity normal to the
  plane and v the in-plane velocity of R (a point of the upright):
  ``IC = R + (w x v) / |w|^2``;
* side-view instant centre: in the plane Y = CP.y, where the line through the contact
  patch perpendicular to its side-view velocity meets the line through the wheel centre
  (moved into that plane) perpendicular to the wheel centre's side-view velocity
  (`two_point_lam`). It differs from the single-point formula above only because the
  wheel centre and the contact patch are at different depths (Y): by little for a near
  centre, by 7 % for the 309 m centres of OptimumK's own results, which this
  construction matches (docs/validation.md, "Side-view instant centres");
* roll centre of an axle: where the lines CP_left -> FVIC_left and CP_right -> FVIC_right
  meet, seen along world X; its x is the mean of the two contact patches' x;
* pitch centre of a side: where the force lines of the side's front and rear contact
  patches meet in the vertical plane through those two contact patches (the instant
  centres computed in that plane).

The twists, the force-centre algebra and the line intersection are the project's
(`suspension_sim.solve.sensitivity.part_twists`, `suspension_sim.metrics.linkage`);
only the planes and the contact patch are OptimumK's. World frame, mm.

Centres at infinity: a centre farther than `CENTRE_AT_INFINITY_MM` (10 km, the
metrics' rule) from its contact patch, or exactly at infinity (parallel force lines),
is NaN. The force line itself stays defined (`ForceLine`: the contact patch and the
line's direction, with the homogeneous weight ``lam = w.m``), so swing-arm angles and
anti percentages, which need only the line, stay finite and continuous through
infinity: OptimumK's own car had front side-view arms parallel to 309 m and reported
a finite anti-dive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.metrics import linkage, wheel
from suspension_sim.metrics.centres import world_homogeneous
from suspension_sim.metrics.geometry import (
    Wheels,
    WheelSet,
    pose_geometry,
    to_chassis,
    to_world,
    wheel_set,
)
from suspension_sim.metrics.vectors import Z_UP, cross, dot, reject, unit
from suspension_sim.solve.sensitivity import part_twists, wheel_tangents
from suspension_sim.tolerances import CENTRE_AT_INFINITY_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.solve.pose import Pose

EX, EY, EZ = np.eye(3)
WHERE = "optimumk centres"


@dataclass(frozen=True)
class ForceLine:
    """A contact patch's force line in a view, world frame (mm), homogeneous.

    The instant centre is ``point + direction / lam``: direction = m x u (m the view's
    unit normal, u the contact patch's velocity per mm of the wheel's travel), in the
    view plane along the line; lam = w.m (rad per mm) in the front view, `two_point_lam`
    (1/mm) in the side view, 0 when the centre is at infinity.
    Either way the line is defined: it runs through `point` along `direction`.
    """

    point: np.ndarray
    direction: np.ndarray
    lam: float

    @property
    def at_infinity(self) -> bool:
        """The centre is farther than `CENTRE_AT_INFINITY_MM` from the point, or lam = 0."""
        return bool(abs(self.lam) * CENTRE_AT_INFINITY_MM <= float(np.linalg.norm(self.direction)))

    def centre(self) -> np.ndarray:
        """The instant centre (3,), world mm; NaN at infinity (`at_infinity`)."""
        if self.at_infinity:
            return np.full(3, np.nan)
        return self.point + self.direction / self.lam

    def arm(self, inward: np.ndarray) -> np.ndarray:
        """The swing arm as a vector from the point toward the centre (3,), world mm.

        The centre minus the point when the centre is finite; at infinity the line's
        direction taken with the sense of `inward` (toward the car's centre), because
        the sense of a centre at infinity is undefined (its two limits, far inboard
        and far outboard, differ).
        """
        if not self.at_infinity:
            return self.direction / self.lam
        return self.direction if float(self.direction @ inward) >= 0.0 else -self.direction

    def from_point(self, ref: np.ndarray) -> np.ndarray:
        """Direction (either sense) of the line from `ref` through the centre (3,).

        Homogeneously ``N - lam ref`` with ``N = lam point + direction``: exact for a
        finite centre, parallel to this force line for a centre at infinity, and
        continuous between the two.
        """
        return self.direction + self.lam * (self.point - ref)


@dataclass(frozen=True)
class OkCentres:
    """OptimumK's centres of one pose, world frame, mm (NaN where at infinity).

    contact_patch, fvic, svic: per wheel name. roll_centre: per axle ("front", "rear").
    pitch_centre: per side ("left", "right"). fv_line, sv_line: per wheel name, the
    force lines through the contact patch and fvic / svic, defined also when those
    are at infinity.
    """

    contact_patch: dict[str, np.ndarray]
    fvic: dict[str, np.ndarray]
    svic: dict[str, np.ndarray]
    roll_centre: dict[str, np.ndarray]
    pitch_centre: dict[str, np.ndarray]
    fv_line: dict[str, ForceLine]
    sv_line: dict[str, ForceLine]


def two_point_lam(
    cp: np.ndarray, d_cp: np.ndarray, p: np.ndarray, u_p: np.ndarray, normal: np.ndarray
) -> np.ndarray:
    """Homogeneous weight of the side-view instant centre ``cp + d_cp / lam`` (1/mm).

    In the plane through `cp` (n, 3) with unit `normal`, the line cp + a d_cp (d_cp the
    contact patch's force-line direction, in the plane) meets the line through `p` (n, 3,
    moved along the normal into the plane) perpendicular to its velocity `u_p` (n, 3):
    lam = 1 / a, 0 when the two lines are parallel (centre at infinity). World frame, mm.
    """
    d_p = cross(np.broadcast_to(normal, u_p.shape), u_p)
    p_in = p - dot(p - cp, normal)[..., None] * normal
    n12 = cross(d_cp, d_p)
    num = dot(n12, n12)
    den = dot(cross(p_in - cp, d_p), n12)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(den != 0.0, num / np.where(den != 0.0, den, 1.0), 0.0)
    return np.asarray(lam, dtype=float)


def ok_static_toe(st: WheelSet) -> np.ndarray:
    """The Static Toe OptimumK's Steer Angle starts from (rad, + = toe-out), per wheel.

    The design's top-view toe. For a car imported from OptimumK it is the file's Static
    Toe exactly (the design spin axis is ``unit(-tan toe, side, -tan camber)``), not the
    design's Toe Angle ``-asin(s.x)``, which is smaller on a cambered wheel (0.499930 for
    0.5 deg at -0.96 deg of camber): OptimumK's steer is -7e-5 deg at design.
    """
    return -np.asarray(st.toe0, dtype=float)


def ok_steer(st: WheelSet, s: np.ndarray) -> np.ndarray:
    """OptimumK's Steer Angle (rad, + = wheel turned left on both sides), (..., n_wheels).

    ``side x (Toe - Static Toe)``, Toe = ``-asin(s.x)`` (+ = toe-out) of the outboard unit
    spin axes s (..., n_wheels, 3), world axes; Static Toe from `ok_static_toe`. The one
    steer of the OptimumK channels, contact patches, centres, rates and motion.
    """
    toe = -np.arcsin(np.clip(np.asarray(s, dtype=float)[..., 0], -1.0, 1.0))
    return st.side * (toe - ok_static_toe(st))


def ok_contact_points(geo: Wheels, st: WheelSet) -> np.ndarray:
    """OptimumK's contact patches of S placed states (S, n_wheels, 3), world mm.

    ``CP = C + r unit(s x hd)`` taken downward, hd = world X turned about the vertical by
    OptimumK's Steer Angle (`ok_steer`). At design that angle is not 0 on a cambered and
    toed wheel (-7e-5 deg), so the patch is r d |s.z| (5e-6 mm on a 515 mm tyre at -0.96
    deg of camber) along X from `WheelSet.patch0` (heading X, the Wheels block's patch):
    inside what OptimumK's results pin the heading down to (7.6e-6 mm).
    """
    heading = wheel.turned_heading(EX, EY, ok_steer(st, geo.s_w))
    return wheel.contact_patch(geo.C_w, geo.s_w, st.radius, heading, Z_UP)


def ok_contact_patches(pose: Pose) -> dict[str, np.ndarray]:
    """OptimumK's contact patch of every wheel (world mm): see `ok_contact_points`."""
    st = wheel_set(pose.model)
    geo = pose_geometry(pose, st, derivatives=False)
    cp = ok_contact_points(geo, st)[0]
    return {name: cp[i].copy() for i, name in enumerate(st.names)}


def optimumk_centres(pose: Pose) -> OkCentres:
    """Every OptimumK centre of one solved pose at once (one twist computation)."""
    model = pose.model
    st = wheel_set(model)
    geo = pose_geometry(pose, st, derivatives=False)
    R, t = geo.R, geo.t  # (1, 3, 3), (1, 3)
    cp_w = ok_contact_points(geo, st)  # (1, n, 3)
    cp_c = to_chassis(R, cp_w - t[:, None])
    n_w = len(st.names)
    # Carrier twists per mm of each wheel's travel (rack held), chassis frame; the front
    # view uses the axle's roll and the side view its heave, as metrics.centres does
    # (both are the wheel's own travel for independent corners).
    tw = part_twists(pose, wheel_tangents(pose))[st.part][None]  # (1, n, 6, cols)
    travel = tw[:, :, :, :n_w]
    tw_front = np.einsum("siak,ik->sia", travel, st.roll)
    tw_side = np.einsum("siak,ik->sia", travel, st.heave)

    def centre(twist: np.ndarray, normal_world: np.ndarray) -> np.ndarray:
        m = to_chassis(R, np.broadcast_to(normal_world, (1, 3)).copy())[:, None]
        N, lam = linkage.force_centre(twist, cp_c, m)
        return linkage.finite(world_homogeneous(R, t, N, lam), lam)[0]

    fv = centre(tw_front, EX)

    def velocity(twist: np.ndarray) -> np.ndarray:
        return to_world(R, twist[..., 3:] + cross(twist[..., :3], cp_c))[0]

    u_front, u_side = velocity(tw_front), velocity(tw_side)
    cp = cp_w[0]

    def lines(twist: np.ndarray, u: np.ndarray, normal_world: np.ndarray) -> list[ForceLine]:
        m_c = to_chassis(R, normal_world[None])[0]
        lam = dot(twist[0, :, :3], m_c)
        direction = cross(np.broadcast_to(normal_world, u.shape), u)
        return [ForceLine(cp[i].copy(), direction[i], float(lam[i])) for i in range(n_w)]

    fv_lines = lines(tw_front, u_front, EX)
    # side view: the contact patch's line through the wheel centre's line (two_point_lam)
    wc = geo.C_w[0]
    u_wc = to_world(R, tw_side[0, :, 3:] + cross(tw_side[0, :, :3], geo.C_c[0]))
    d_side = cross(np.broadcast_to(EY, u_side.shape), u_side)
    lam_side = two_point_lam(cp, d_side, wc, u_wc, EY)
    sv_lines = [ForceLine(cp[i].copy(), d_side[i], float(lam_side[i])) for i in range(n_w)]
    sv = np.array([line.centre() for line in sv_lines])
    roll: dict[str, np.ndarray] = {}
    for axle, (il, ir) in st.axles.items():
        yz = linkage.centre_of_lines(
            cp[il],
            linkage.view_normal(u_front[il], EX),
            cp[ir],
            linkage.view_normal(u_front[ir], EX),
            EY,
            EZ,
        )
        roll[axle] = np.array([0.5 * (cp[il, 0] + cp[ir, 0]), yz[0], yz[1]])
    pitch: dict[str, np.ndarray] = {}
    for side_name, (i_f, i_r) in st.sides.items():
        along = unit(reject(cp[i_f] - cp[i_r], Z_UP))
        normal = cross(Z_UP, along)
        az = linkage.centre_of_lines(
            cp[i_f],
            linkage.view_normal(u_side[i_f], normal),
            cp[i_r],
            linkage.view_normal(u_side[i_r], normal),
            along,
            EZ,
        )
        pitch[side_name] = az[0] * along + az[1] * EZ + dot(cp[i_f], normal) * normal
    names = st.names
    return OkCentres(
        contact_patch={n: cp[i].copy() for i, n in enumerate(names)},
        fvic={n: fv[i].copy() for i, n in enumerate(names)},
        svic={n: sv[i].copy() for i, n in enumerate(names)},
        roll_centre=roll,
        pitch_centre=pitch,
        fv_line=dict(zip(names, fv_lines, strict=True)),
        sv_line=dict(zip(names, sv_lines, strict=True)),
    )


def _pick(table: dict[str, np.ndarray], key: str, what: str) -> np.ndarray:
    if key not in table:
        raise InputError(
            f"no {what} {key!r}",
            where=WHERE,
            hint=f"this car has: {', '.join(table) or '(none)'}",
        )
    return table[key]


def fv_instant_centre(pose: Pose, wheel_name: str) -> np.ndarray:
    """OptimumK's front-view instant centre of a wheel (3,), world mm (NaN at infinity)."""
    return _pick(optimumk_centres(pose).fvic, wheel_name, "wheel")


def sv_instant_centre(pose: Pose, wheel_name: str) -> np.ndarray:
    """OptimumK's side-view instant centre of a wheel (3,), world mm (NaN at infinity)."""
    return _pick(optimumk_centres(pose).svic, wheel_name, "wheel")


def roll_centre(pose: Pose, axle: str) -> np.ndarray:
    """OptimumK's roll centre of an axle ("front" or "rear"): (3,) world mm, NaN when
    the two force lines are parallel."""
    return _pick(optimumk_centres(pose).roll_centre, axle.lower(), "axle")


def pitch_centre(pose: Pose, side: str) -> np.ndarray:
    """OptimumK's pitch centre of a side ("left" or "right"): (3,) world mm, NaN when
    the two force lines are parallel."""
    return _pick(optimumk_centres(pose).pitch_centre, side.lower(), "side")
