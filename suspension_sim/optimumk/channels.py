"""OptimumK's result channels of a motion's poses: `optimumk_channels`.

The values of the quantities of the registry (`suspension_sim.optimumk.registry`:
names, aliases, units, statuses, definitions), keyed as `channel_key` builds them
(``"Camber Angle [Left] [Front]"``), in OptimumK's display units (mm, deg, deg/mm,
deg/deg, %, ratio). World axes (X forward, Y left, Z up); OptimumK's contact patch and
centres come from `suspension_sim.optimumk.centres`, the rates from
`suspension_sim.optimumk.rates`.

Centres at infinity: an instant centre farther than `CENTRE_AT_INFINITY_MM` (10 km)
from its contact patch, or exactly at infinity (parallel force lines), is blank, and so
is its swing-arm length; the swing-arm angles and the anti percentages only need the
force line's direction, which stays defined, and are computed from it
(`suspension_sim.optimumk.centres.ForceLine`). The side-view angle and the antis are
the same for either sense of the line, so they are continuous through infinity; the
front-view angle ``atan(dz / |dy|)`` is not (far inboard and far outboard give opposite
signs): at infinity it takes the line's sense toward the car's centreline.

The registry's names are re-exported here (`QUANTITIES`, `channel_key`, `split_key`,
`quantity`, `channel_status`, ...) for the importers that read both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.optimumk.registry import (
    AXLES,
    DIMENSIONS,
    OK_POINTS,
    QUANTITIES,
    SIDES,
    OkQuantity,
    Scope,
    Status,
    channel_key,
    channel_status,
    quantity,
    split_key,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.metrics.geometry import WheelSet
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

__all__ = [
    "AXLES",
    "DIMENSIONS",
    "OK_POINTS",
    "QUANTITIES",
    "SIDES",
    "OkQuantity",
    "Scope",
    "Status",
    "channel_key",
    "channel_status",
    "corner_points",
    "design_cg",
    "optimumk_channels",
    "quantity",
    "split_key",
]

# -- computing the channels -----------------------------------------------------------------
DEG = 180.0 / np.pi
EY = np.array([0.0, 1.0, 0.0])
_LINKS = {
    "Tie Rod Length": ("CHAS_TiePnt", "UPRI_TiePnt"),
    "Push/Pull Length": ("NSMA_PPAttPnt", "ROCK_RodPnt"),
    "Upper A-Arm Fore Length": ("CHAS_UppFor", "UPRI_UppPnt"),
    "Upper A-Arm Aft Length": ("CHAS_UppAft", "UPRI_UppPnt"),
    "Lower A-Arm Fore Length": ("CHAS_LowFor", "UPRI_LowPnt"),
    "Lower A-Arm Aft Length": ("CHAS_LowAft", "UPRI_LowPnt"),
}
"""Link lengths: the distance between two named points of the corner."""

_DISPLACED = ("Wheel Center", "Contact Patch")


def corner_points(model: KinematicModel) -> dict[str, dict[str, int]]:
    """Wheel name -> {OptimumK point name: index of a copy of that point} (world geometry).

    The corner's own points are named ``<prefix>_<OptimumK name>`` by the importer; the
    prefix is read from the wheel's lower kingpin point (``FL_UPRI_LowPnt`` -> ``FL_``),
    else the wheel's name and an underscore. Points the car does not have are left out.
    """
    index = {p: i for i, p in reversed(list(enumerate(model.inst_point)))}
    out: dict[str, dict[str, int]] = {}
    for w in model.car.wheels:
        low = w.kingpin_lower or ""
        prefix = low[: -len("UPRI_LowPnt")] if low.endswith("UPRI_LowPnt") else f"{w.name}_"
        out[w.name] = {ok: index[prefix + ok] for ok in OK_POINTS if prefix + ok in index}
    return out


def design_cg(model: KinematicModel, front_mass_share: float | None) -> np.ndarray:
    """OptimumK's CG at design (world mm), NaN without a front mass share or two axles.

    ``Mf + (1 - front share)(Mr - Mf) + H n``: Mf, Mr the midpoints of the front and rear
    design contact patches (OptimumK's, `WheelSet.patch0`), n the upward unit normal of the
    line Mf -> Mr in the XZ plane, H the workbook's CG height.
    """
    from suspension_sim.metrics.geometry import wheel_set

    st = wheel_set(model)
    if front_mass_share is None or not {"front", "rear"} <= set(st.axles):
        return np.full(3, np.nan)
    cp = st.patch0
    mf = cp[list(st.axles["front"])].mean(axis=0)
    mr = cp[list(st.axles["rear"])].mean(axis=0)
    d = mr - mf
    n = np.array([d[2], 0.0, -d[0]])
    n = n / np.linalg.norm(n) * (1.0 if d[0] <= 0 else -1.0)
    if n[2] < 0:
        n = -n
    return mf + (1.0 - front_mass_share) * d + model.car.options.cg_height_mm * n


def _finite_ratio(num: float, den: float) -> float:
    return float(num / den) if den != 0.0 and np.isfinite(den) else float("nan")


def optimumk_channels(
    model: KinematicModel,
    poses: Sequence[Pose | None],
    *,
    motion: Any = None,
    steering_deg: Sequence[float] | np.ndarray | None = None,
    front_mass_share: float | None = None,
    rates: bool = True,
) -> dict[str, np.ndarray]:
    """Every established OptimumK channel of a motion's poses: {key: (n,) values}.

    Keys as `channel_key` builds them; values in OptimumK's display units (mm, deg,
    deg/mm, deg/deg, %, ratio); NaN where a step did not solve (None) or the channel is
    blank at that step (e.g. a ratio at zero steer). Channels of quantities that are not
    established are left out; "always blank" ones are all NaN. Displacements are from
    the first step.

    motion: an `OptimumKMotion` (its Motion [...] inputs are echoed and its steering
    gives SW); steering_deg: SW per step when no motion is given (else rack / ratio);
    front_mass_share: overrides the workbook's (User Options) for the CG; rates: also
    the gains, motion ratios and steering rates (one IFT solve per step).
    """
    from suspension_sim.description import wheel_layout
    from suspension_sim.metrics.geometry import pose_geometry, wheel_set

    st = wheel_set(model)
    layout = wheel_layout(model.car)
    n = len(poses)
    rows: list[dict[str, float]] = []
    if steering_deg is None and motion is not None:
        steering_deg = getattr(motion, "steering_deg", None)
    ratio = model.car.rack.ratio_mm_per_deg if model.car.rack is not None else None
    share = front_mass_share
    if share is None:
        share = getattr(model.car.options, "front_mass_share", None)
    cg0 = design_cg(model, share)
    pts = corner_points(model)
    for i, pose in enumerate(poses):
        if pose is None or not pose.converged:
            rows.append({})
            continue
        if steering_deg is not None:
            sw = float(np.asarray(steering_deg, dtype=float)[i])
        else:
            sw = float(pose.rack) / ratio if ratio else float("nan")
        geo = pose_geometry(pose, st, derivatives=rates)
        with np.errstate(divide="ignore", invalid="ignore"):  # centres at infinity: NaN
            rows.append(_pose_channels(pose, st, layout, geo, pts, cg0, sw, ratio, rates))
    keys: list[str] = []
    for row in rows:
        keys.extend(k for k in row if k not in keys)
    out = {k: np.array([row.get(k, np.nan) for row in rows], dtype=float) for k in keys}
    for k in list(out):
        name, side, axle = split_key(k)
        for base in _DISPLACED:
            if name.startswith(base + " ") and len(name) == len(base) + 2:
                dk = channel_key(f"{base} Displacement {name[-1]}", side, axle)
                out[dk] = out[k] - out[k][0]
        if name == "CoilOver Length":
            out[channel_key("CoilOver Displacement", side, axle)] = out[k] - out[k][0]
    if motion is not None:
        for word, attr in (
            ("Heave", "heave_mm"),
            ("Roll", "roll_deg"),
            ("Pitch", "pitch_deg"),
            ("Steering", "steering_deg"),
        ):
            values = getattr(motion, attr, None)
            if values is not None:
                out[f"Motion [{word}]"] = np.asarray(values, dtype=float).reshape(n)
    for q in QUANTITIES:
        if q.status == "always blank":
            for k in q.channel_keys():
                out[k] = np.full(n, np.nan)
    return out


def _angle_between(u: np.ndarray, plane: tuple[np.ndarray, ...]) -> float:
    """asin(|n.u|) (deg): the angle between the line along u and the plane through 3 points."""
    a, b, c = plane
    n = np.cross(b - a, c - a)
    return float(np.degrees(np.arcsin(abs(n @ u) / (np.linalg.norm(n) * np.linalg.norm(u)))))


def _pose_channels(
    pose: Pose,
    st: WheelSet,
    layout: Any,
    geo: Any,
    pts: dict[str, dict[str, int]],
    cg0: np.ndarray,
    sw: float,
    ratio: float | None,
    rates: bool,
) -> dict[str, float]:
    """The channels of one solved pose (module doc; displacements are added later)."""
    from suspension_sim.optimumk.centres import ok_steer, optimumk_centres

    out: dict[str, float] = {}
    R, t = geo.R[0], geo.t[0]
    P = geo.P[0] @ R.T + t  # every point copy, world
    s, C = geo.s_w[0], geo.C_w[0]
    camber = -np.arcsin(np.clip(s[:, 2], -1.0, 1.0))
    toe = -np.arcsin(np.clip(s[:, 0], -1.0, 1.0))
    steer = ok_steer(st, s)
    cen = optimumk_centres(pose)
    cp = np.array([cen.contact_patch[name] for name in st.names]).reshape(-1, 3)
    T = pose.chassis_transform
    cg = T[:3, :3] @ cg0 + T[:3, 3]
    svsa_rad: dict[int, float] = {}
    for i, name in enumerate(st.names):
        axle, side, sgn = layout.axle[i], layout.side[i], float(st.side[i])

        def put(q: str, v: float | np.floating[Any], axle: str = axle, side: str = side) -> None:
            out[channel_key(q, side, axle)] = float(v)

        def put_xyz(q: str, p: np.ndarray) -> None:
            for c, v in zip("XYZ", p, strict=True):
                put(f"{q} {c}", v)

        put("Camber Angle", camber[i] * DEG)
        put("Toe Angle", toe[i] * DEG)
        put("Steer Angle", steer[i] * DEG)
        put("Half Track", sgn * cp[i, 1])
        rim = getattr(model_wheel(pose, name), "rim_diameter", None)
        if rim:
            put("Toe Distance", rim * np.sin(toe[i]))
        put_xyz("Wheel Center", C[i])
        put_xyz("Contact Patch", cp[i])
        if st.i_lower[i] >= 0 and st.i_upper[i] >= 0:
            lbj, ubj = P[st.i_lower[i]], P[st.i_upper[i]]
            k = ubj - lbj
            put("Caster Angle", np.degrees(np.arctan2(-k[0], k[2])))
            put("King Pin Inclination", np.degrees(np.arctan2(-sgn * k[1], k[2])))
            g = lbj + (cp[i, 2] - lbj[2]) / k[2] * k
            put_xyz("King Pin Axis at Ground", g)
            put("Scrub Radius", sgn * (cp[i, 1] - g[1]))
            put("Mechanical Trail", g[0] - cp[i, 0])
        d = st.damper_of[i]
        if d >= 0:
            length = st.damper_design_length[d] - float(pose.shocks[st.dampers[d]])
            put("CoilOver Length", length)
        named = {ok: P[j] for ok, j in pts.get(name, {}).items()}
        for ok, p in named.items():
            put_xyz(ok, p)
        for q, (a, b) in _LINKS.items():
            if a in named and b in named:
                put(q, np.linalg.norm(named[a] - named[b]))
        if "UPRI_UppPnt" in named and "UPRI_TiePnt" in named:
            dv = named["UPRI_TiePnt"] - named["UPRI_UppPnt"]
            put("Top Upright Angle", np.degrees(np.arctan(-dv[2] / dv[0])))
        if "CHAS_TiePnt" in named and "UPRI_TiePnt" in named:
            u = R.T @ (named["UPRI_TiePnt"] - named["CHAS_TiePnt"])
            u = u / np.linalg.norm(u)
            put("Tie Rod Top View Angle", np.degrees(np.arcsin(abs(u[0]))))
            put("Tie Rod Front View Angle", np.degrees(np.arcsin(abs(u[2]))))
        rocker = ("CHAS_RocPiv", "ROCK_RodPnt", "ROCK_CoiPnt")
        if all(p in named for p in rocker):
            plane = tuple(named[p] for p in rocker)
            if "CHAS_AttPnt" in named:
                u = named["CHAS_AttPnt"] - named["ROCK_CoiPnt"]
                put("Rocker/CoilOver Angle", _angle_between(u, plane))
            if "NSMA_PPAttPnt" in named:
                u = named["ROCK_RodPnt"] - named["NSMA_PPAttPnt"]
                put("Rocker/PRod Angle", _angle_between(u, plane))
        fv, sv = cen.fvic[name], cen.svic[name]
        put_xyz("Front View Instant Center", fv)
        put_xyz("Side View Instant Center", sv)
        # Lengths need the centre (blank at infinity); angles only the force line.
        put("Front View Swing Arm Length", np.hypot(fv[1] - cp[i, 1], fv[2] - cp[i, 2]))
        arm = cen.fv_line[name].arm(-sgn * EY)  # at infinity: taken toward the centreline
        put("Front View Swing Arm Angle", np.degrees(np.arctan(arm[2] / abs(arm[1]))))
        put("Side View Swing Arm Length", np.hypot(sv[0] - cp[i, 0], sv[2] - cp[i, 2]))
        u = cen.sv_line[name].direction  # either sense: dz/dx is the same
        svsa_rad[i] = float(np.arctan(u[2] / u[0])) * (-1.0 if axle == "front" else 1.0)
        put("Side View Swing Arm Angle", np.degrees(svsa_rad[i]))

    opts = pose.model.car.options
    wheelbase: dict[str, float] = {}
    for side, (i_f, i_r) in st.sides.items():
        wheelbase[side] = float(np.linalg.norm(cp[i_f] - cp[i_r]))
        out[channel_key("Wheelbase", side)] = wheelbase[side]
        pc = cen.pitch_centre[side]
        for c, v in zip("XYZ", pc, strict=True):
            out[channel_key(f"Pitch Center {c}", side)] = float(v)
        ground = np.array([pc[0], pc[1], pc[2] - cp[:, 2].mean()])
        for c, v in zip("XYZ", ground, strict=True):
            out[channel_key(f"Pitch Center (Ground) {c}", side)] = float(v)
        wb = wheelbase[side]
        dive = 100.0 * np.tan(svsa_rad[i_f]) * wb / (cg[2] - cp[i_f, 2]) * opts.front_brake_share
        lift = (
            100.0 * np.tan(svsa_rad[i_r]) * wb / (cg[2] - cp[i_r, 2]) * (1 - opts.front_brake_share)
        )
        # the line wheel centre -> side-view centre; parallel to the force line at infinity
        u = cen.sv_line[st.names[i_r]].from_point(C[i_r])
        slope = u[2] / u[0]
        squat = 100.0 * slope * wb / (cg[2] - cp[i_r, 2]) * opts.rear_drive_share
        for key, v in (
            (channel_key("Anti-Dive Percentage", side, "front"), dive),
            (channel_key("Anti-Dive Percentage", side), dive),
            (channel_key("Anti-Lift Percentage", side, "rear"), lift),
            (channel_key("Anti-Squat Percentage", side, "rear"), squat),
            (channel_key("Anti-Squat Percentage", side), squat),
        ):
            out[key] = float(v)
        if opts.rear_drive_share == 1.0:  # no front drive: no front anti-lift
            out[channel_key("Anti-Lift Percentage", side, "front")] = 0.0
    if wheelbase:
        out["Wheelbase"] = float(np.mean(list(wheelbase.values())))
    for c, v in zip("XYZ", cg, strict=True):
        out[f"Center of Gravity {c}"] = float(v)
    for axle, (il, ir) in st.axles.items():
        rc = cen.roll_centre[axle]
        out[channel_key("Track", None, axle)] = float(cp[il, 1] - cp[ir, 1])
        ground = np.array([rc[0], rc[1], rc[2] - 0.5 * (cp[il, 2] + cp[ir, 2])])
        for c, v, g in zip("XYZ", rc, ground, strict=True):
            out[channel_key(f"Roll Center {c}", None, axle)] = float(v)
            out[channel_key(f"Roll Center (Ground) {c}", None, axle)] = float(g)
    if {"front", "rear"} <= set(cen.roll_centre):
        d = cen.roll_centre["front"] - cen.roll_centre["rear"]
        out["Roll Axis Inclination Angle"] = float(np.degrees(np.arctan2(-d[2], d[0])))
    if st.has_rack and "front" in st.axles:
        il, ir = st.axles["front"]
        out[channel_key("Steering Rack Displacement", None, "front")] = float(pose.rack)
        mean = 0.5 * (steer[il] + steer[ir])
        out[channel_key("Steering Wheel Angle per Average Steer Angle", None, "front")] = (
            _finite_ratio(sw, mean * DEG) if mean != 0.0 else float("nan")
        )
        inner, outer = (steer[il], steer[ir]) if mean >= 0 else (-steer[ir], -steer[il])
        out[channel_key("Ackerman Angle", None, "front")] = float((abs(inner) - abs(outer)) * DEG)
        if wheelbase and mean != 0.0:
            L = out["Wheelbase"]
            track = out[channel_key("Track", None, "front")]
            with np.errstate(divide="ignore", invalid="ignore"):
                ideal = np.arctan(L / (L / np.tan(outer) - track))
            pct = float(100.0 * inner / ideal)
        else:
            pct = float("nan")
        out[channel_key("Ackerman Percentage", None, "front")] = pct
        out["Ackerman Percentage"] = pct
        for i in range(len(st.names)):
            key = channel_key(
                "Steering Wheel Angle per Steer Angle", layout.side[i], layout.axle[i]
            )
            out[key] = _finite_ratio(sw, steer[i] * DEG) if steer[i] != 0.0 else float("nan")
    if rates:
        _rate_channels(pose, st, layout, geo, cen, ratio, out)
    return out


def model_wheel(pose: Pose, name: str) -> Any:
    """The description's wheel called `name`."""
    return next(w for w in pose.model.car.wheels if w.name == name)


def _inverse(x: float, floor: float = 1e-12) -> float:
    return float(1.0 / x) if abs(x) > floor else float("nan")


def _rate_channels(
    pose: Pose,
    st: WheelSet,
    layout: Any,
    geo: Any,
    cen: Any,
    ratio: float | None,
    out: dict[str, float],
) -> None:
    """The gains, motion ratios and steering rates of one pose (`optimumk.rates`)."""
    from suspension_sim.optimumk.rates import pose_rates

    axis = None
    if {"front", "rear"} <= set(cen.roll_centre):
        rf, rr = cen.roll_centre["front"], cen.roll_centre["rear"]
        axis = (rr, (rf - rr) / np.linalg.norm(rf - rr))
    pr = pose_rates(pose, st, geo, axis, ratio if st.has_rack else None)
    for i in range(len(st.names)):
        axle, side = layout.axle[i], layout.side[i]

        def put(q: str, v: float | np.floating[Any], axle: str = axle, side: str = side) -> None:
            out[channel_key(q, side, axle)] = float(v)

        put("Camber Angle Gain in Heave", -pr.heave.camber[i] * DEG)
        put("Toe Angle Gain in Heave", -pr.heave.toe[i] * DEG)
        put("Motion Ratio Heave", _inverse(pr.heave.length[i]))
        pair = st.axles.get(axle)
        for word, j in zip(("Left", "Right"), pair or (None, None), strict=True):
            if j is None:
                continue
            b = pr.bump[j]
            put(f"Camber Angle Gain in {word} Wheel Bump/Rebound", b.camber[i] * DEG)
            put(f"Toe Angle Gain in {word} Wheel Bump/Rebound", b.toe[i] * DEG)
            dl = b.length[i]
            put(f"Motion Ratio Single {word} Wheel", -1.0 / dl if abs(dl) > 1e-12 else 0.0)
        if pr.roll is not None:
            put("Camber Angle Gain in Roll", -pr.roll.camber[i])
            put("Toe Angle Gain in Roll", -pr.roll.toe[i])
            put("Motion Ratio Roll", DEG * _inverse(pr.roll.length[i]))
        if pr.steering is not None:
            d_steer = float(st.side[i]) * pr.steering.toe[i] * DEG  # deg per SW deg
            put("Steering Ratio", _inverse(d_steer))
            put("Steering Toe Angle Gain", -pr.steering.toe[i] * DEG)
            put("Steering Camber Angle Gain", -pr.steering.camber[i] * DEG)
            put("Motion Ratio Steering", _inverse(pr.steering.length[i]))
    if pr.steering is not None and "front" in st.axles:
        il, ir = st.axles["front"]
        mean = 0.5 * (st.side[il] * pr.steering.toe[il] + st.side[ir] * pr.steering.toe[ir])
        out[channel_key("Steering Ratio", None, "front")] = _inverse(float(mean) * DEG)
