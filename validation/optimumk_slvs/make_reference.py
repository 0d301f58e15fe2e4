"""SolveSpace reference in OptimumK's definitions and result layout (issue 21).

Provenance. The car is defined here, in OptimumK's own terms (its point names,
Wheels block, Push Pull attachment, Rack Pinion ratio, vehicle setup), and
written as OptimumK-layout suspension and vehicle-setup exports
(`front.xlsx`, `rear.xlsx`, `vehicle.xlsx`, see `okfiles.py`) that
`suspension-sim import-optimumk` turns into a workbook. The same numbers
(not the files, not the workbook) are then solved by SolveSpace (`slvs`,
validation/refkit.py: points and distances, no screws) and every channel is
computed here from the solved points with OptimumK's definitions as the
project established them from real OptimumK results. suspension_sim is not
imported.

The motion is OptimumK's: step 0 is the design; from step i-1 to step i the
chassis is (1) translated along world Z by the heave increment, (2) rotated
by the roll increment about the world-fixed line through the front and rear
roll centres of step 0, (3) rotated by the pitch increment about the
world-fixed line through the left and right pitch centres of step 0; the rack
is at Motion [Steering] x Steering Ratio / 360 (+ = toward +Y); every tyre's
lowest point stays at its own design height (the contact patches sit at the
Wheels block's Vertical Offset, 4.73 mm front, 4.27 mm rear; OptimumK holds its own
contact patch there instead, which this reference's Contact Patch Z shows drifting by
at most 2.5e-5 mm: validation/README.md, "What is held on the ground").

Channels are in world axes, except the tie-rod top- and front-view angles, which are
taken in the chassis frame (the step's chassis placement), as the definitions give them.

Rates are central finite differences of slvs solves (each solve polished to
~1e-12 mm): heave, roll (about the step's own roll axis), pitch (about the
step's own pitch axis) and steering-wheel increments with every tyre on the
ground, and coilover-length increments with the chassis and rack held for the
force-based instant centres (velocity of the contact patch as a point of the
upright; in the side view the centre is where that line meets the wheel centre's,
as OptimumK's own results place it).

Writes export.xlsx (OptimumK's result layout: title block, statistic rows,
`Step [n]` rows, headers `Quantity [Side] [Axle] (unit)`) beside this script.

Force results (`run_forces`): export_forces.xlsx under the keyframes FORCE_KEYS
(also written as force_keys.csv) and export_forces_held.xlsx under HELD_CASE, the
forces by virtual work over central differences of slvs solves (`force_channels`).

    python validation/optimumk_slvs/make_reference.py
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import okfiles  # noqa: E402
import refkit  # noqa: E402

Vec = np.ndarray
Points = Mapping[str, Vec]

# -- the car: OptimumK names, model frame (X forward, Y left, Z up, mm), left side ----------
# Derived from workbooks/fsae_car.xlsx with the rods swapped to the real team file's
# arrangement: front pull rod on the upper A-arm to a low rocker, rear push rod on the
# lower A-arm to a high rocker. Rear points in the common frame (file X - Reference Distance).
REFERENCE_DISTANCE = 1530.0
FRONT: dict[str, tuple[float, float, float]] = {
    "CHAS_LowFor": (150.0, 200.0, 127.5),
    "CHAS_LowAft": (-150.0, 200.0, 136.5),
    "CHAS_UppFor": (120.0, 250.0, 346.0),
    "CHAS_UppAft": (-120.0, 250.0, 332.0),
    "UPRI_LowPnt": (8.0, 548.0, 135.0),
    "UPRI_UppPnt": (-13.5, 518.0, 380.0),
    "CHAS_TiePnt": (-65.0, 221.2, 185.2),
    "UPRI_TiePnt": (-65.0, 525.0, 200.0),
    "NSMA_PPAttPnt": (10.0, 505.0, 372.0),
    "ROCK_RodPnt": (90.0, 245.0, 165.0),
    "CHAS_RocAxi": (124.0, 235.8, 189.7),
    "CHAS_RocPiv": (124.0, 267.0, 150.5),
    "ROCK_CoiPnt": (124.0, 192.7, 123.4),
    "CHAS_AttPnt": (-76.0, 192.7, 123.4),
}
REAR: dict[str, tuple[float, float, float]] = {
    "CHAS_LowFor": (-1360.0, 230.0, 130.0),
    "CHAS_LowAft": (-1660.0, 230.0, 109.0),
    "CHAS_UppFor": (-1380.0, 265.0, 323.5),
    "CHAS_UppAft": (-1640.0, 265.0, 321.0),
    "UPRI_LowPnt": (-1525.0, 543.0, 130.0),
    "UPRI_UppPnt": (-1535.0, 523.0, 385.0),
    "CHAS_TiePnt": (-1610.0, 249.0, 231.6),
    "UPRI_TiePnt": (-1610.0, 535.0, 275.0),
    "NSMA_PPAttPnt": (-1533.0, 520.0, 150.0),
    "ROCK_RodPnt": (-1538.0, 255.0, 520.0),
    "CHAS_RocAxi": (-1588.0, 275.4, 534.4),
    "CHAS_RocPiv": (-1588.0, 235.2, 504.7),
    "ROCK_CoiPnt": (-1588.0, 213.7, 575.8),
    "CHAS_AttPnt": (-1788.0, 213.7, 575.8),
}
PUSH_PULL_ON = {"Front": "UpperAArm", "Rear": "LowerAArm"}
WHEELS: dict[str, dict[str, float]] = {
    "Front": {
        "Half Track": 600.0,
        "Longitudinal Offset": 0.0,
        "Lateral Offset": 0.0,
        "Vertical Offset": 4.73168606,
        "Static Camber": -0.96,
        "Static Toe": 0.5,
        "Rim Diameter": 330.2,
        "Tire Diameter": 515.0,
        "Tire Width": 180.0,
    },
    "Rear": {
        "Half Track": 590.0,
        "Longitudinal Offset": 0.0,
        "Lateral Offset": 0.0,
        "Vertical Offset": 4.27201516,
        "Static Camber": -1.5,
        "Static Toe": -0.25,
        "Rim Diameter": 330.2,
        "Tire Diameter": 515.0,
        "Tire Width": 180.0,
    },
}
RACK_MM_PER_REV = 90.0  # Rack Pinion Steering Ratio (front)
SETUP = {
    "Reference Distance": REFERENCE_DISTANCE,
    "Front Mass Distribution": 47.0,
    "Left Mass Distribution": 50.0,
    "Center of Gravity Height": 280.9,
    "Brake Bias": 60.0,
    "Drive Bias": 0.0,
}
SPRING_N_PER_MM = {"Front": 35.0, "Rear": 40.0}

CORNERS = (("Left", "Front"), ("Right", "Front"), ("Left", "Rear"), ("Right", "Rear"))
CODE = {c: c[1][0] + c[0][0] for c in CORNERS}  # ("Left", "Front") -> "FL"
SIDE = {"Left": 1.0, "Right": -1.0}
DOUBLE_A_ARM = okfiles.DOUBLE_A_ARM  # OptimumK point names, written by okfiles
PUSH_PULL = okfiles.PUSH_PULL


def _unit(v: Vec) -> Vec:
    return np.asarray(v, dtype=float) / float(np.linalg.norm(v))


def spin_axis0(side: float, camber_deg: float, toe_deg: float) -> Vec:
    """OptimumK's design spin axis (outboard): unit(-tan toe, side, -tan camber)."""
    return _unit(
        np.array([-math.tan(math.radians(toe_deg)), side, -math.tan(math.radians(camber_deg))])
    )


def block_patch(side_name: str, axle: str) -> Vec:
    """The design contact patch the Wheels block defines (common frame, mm): (longitudinal
    offset, side x half track, vertical offset). The wheel is placed from it with the
    heading X (`build_car`), so it is `C + r unit(s0 x X)`; the design CG and the force
    line go through it. OptimumK's Contact Patch channel turns the heading by the Steer
    Angle (`wheel_geometry`), -7e-5 deg at design here, 5e-6 mm along X from this point:
    inside what its results pin the heading down to (7.6e-6 mm)."""
    w = WHEELS[axle]
    x_cp = w["Longitudinal Offset"] - (REFERENCE_DISTANCE if axle == "Rear" else 0.0)
    return np.array([x_cp, SIDE[side_name] * w["Half Track"], w["Vertical Offset"]])


def build_car() -> tuple[refkit.RefCar, dict[str, dict[str, float]]]:
    """The car as a refkit.RefCar (names `FL_UPRI_LowPnt` ...; wheel centre `FL_WC` and a
    spin-axis point `FL_WA` 50 mm inboard, placed from the Wheels block by OptimumK's
    definitions: CP at (longitudinal offset, side x half track, vertical offset), s0 as in
    `spin_axis0`, C = CP - r unit(s0 x X)) and {corner code: wheel fields}."""
    points: dict[str, Vec] = {}
    bodies: dict[str, list[str]] = {"Chassis": [], "Rack": []}
    wheels: list[refkit.RefWheel] = []
    dampers: list[tuple[str, str, str]] = []
    fields: dict[str, dict[str, float]] = {}
    for side_name, axle in CORNERS:
        c = CODE[(side_name, axle)]
        side = SIDE[side_name]
        src = FRONT if axle == "Front" else REAR
        for name, (x, y, z) in src.items():
            points[f"{c}_{name}"] = np.array([x, side * y, z])
        w = WHEELS[axle]
        fields[c] = w
        r = w["Tire Diameter"] / 2.0
        s0 = spin_axis0(side, w["Static Camber"], w["Static Toe"])
        cp = block_patch(side_name, axle)
        u = _unit(np.cross(s0, [1.0, 0.0, 0.0]))
        u = u if u[2] < 0 else -u
        points[f"{c}_WC"] = cp - r * u
        points[f"{c}_WA"] = points[f"{c}_WC"] - 50.0 * s0
        p = functools.partial("{}_{}".format, c)
        bodies["Chassis"] += [
            p(n)
            for n in (
                "CHAS_LowFor",
                "CHAS_LowAft",
                "CHAS_UppFor",
                "CHAS_UppAft",
                "CHAS_RocAxi",
                "CHAS_RocPiv",
                "CHAS_AttPnt",
            )
        ]
        if axle == "Front":
            bodies["Rack"].append(p("CHAS_TiePnt"))
        else:
            bodies["Chassis"].append(p("CHAS_TiePnt"))
        lower = [p("CHAS_LowFor"), p("CHAS_LowAft"), p("UPRI_LowPnt")]
        upper = [p("CHAS_UppFor"), p("CHAS_UppAft"), p("UPRI_UppPnt")]
        (upper if PUSH_PULL_ON[axle] == "UpperAArm" else lower).append(p("NSMA_PPAttPnt"))
        bodies[f"{c}_LowerAArm"] = lower
        bodies[f"{c}_UpperAArm"] = upper
        bodies[f"{c}_Upright"] = [
            p("UPRI_LowPnt"),
            p("UPRI_UppPnt"),
            p("UPRI_TiePnt"),
            p("WC"),
            p("WA"),
        ]
        bodies[f"{c}_TieRod"] = [p("UPRI_TiePnt"), p("CHAS_TiePnt")]
        bodies[f"{c}_PushPull"] = [p("NSMA_PPAttPnt"), p("ROCK_RodPnt")]
        bodies[f"{c}_Rocker"] = [
            p("CHAS_RocAxi"),
            p("CHAS_RocPiv"),
            p("ROCK_RodPnt"),
            p("ROCK_CoiPnt"),
        ]
        bodies[f"{c}_CoilOver"] = [p("CHAS_AttPnt"), p("ROCK_CoiPnt")]
        dampers.append((f"{c}_CoilOver", p("CHAS_AttPnt"), p("ROCK_CoiPnt")))
        wheels.append(
            refkit.RefWheel(
                c, f"{c}_Upright", p("WC"), p("WA"), r, (p("UPRI_LowPnt"), p("UPRI_UppPnt"))
            )
        )
    car = refkit.RefCar(
        "optimumk_slvs",
        points,
        bodies,
        wheels,
        dampers,
        rack=("Rack", "FL_CHAS_TiePnt", "FR_CHAS_TiePnt"),
        rack_ratio_mm_per_deg=RACK_MM_PER_REV / 360.0,
    )
    return car, fields


def write_inputs(folder: Path) -> list[Path]:
    """front.xlsx, rear.xlsx, vehicle.xlsx in OptimumK's export layout (file frames: the
    rear file's X is the common X plus the Reference Distance)."""
    out = []
    for axle, src, dx in (("Front", FRONT, 0.0), ("Rear", REAR, REFERENCE_DISTANCE)):
        pts = {n: {"L": (x + dx, y, z), "R": (x + dx, -y, z)} for n, (x, y, z) in src.items()}
        out.append(
            okfiles.write_suspension(
                folder / f"{axle.lower()}.xlsx",
                name=f"SolveSpace reference car - {axle}",
                axle=axle,
                points=pts,
                wheels=WHEELS[axle],
                push_pull_on=PUSH_PULL_ON[axle],
                rack_mm_per_rev=RACK_MM_PER_REV if axle == "Front" else None,
                spring_n_per_mm=SPRING_N_PER_MM[axle],
            )
        )
    out.append(
        okfiles.write_setup(
            folder / "vehicle.xlsx",
            name="SolveSpace reference car",
            front="SolveSpace reference car - Front",
            rear="SolveSpace reference car - Rear",
            setup=SETUP,
        )
    )
    return out


# -- the motion ---------------------------------------------------------------------------------
def motion_steps(steering: bool = True) -> list[tuple[float, float, float, float]]:
    """(heave mm, roll deg, pitch deg, steering-wheel deg) per step; step 0 = design.
    Heave, roll, pitch and steering each out and back, then all four together.
    steering=False: the same without any steering (OptimumK's front instant centres are
    established only for an unsteered upright, so this motion exercises them)."""
    steps: list[tuple[float, float, float, float]] = [(0.0, 0.0, 0.0, 0.0)]
    tri = [0.25, 0.5, 0.75, 1.0, 0.5, 0.0, -0.5, -1.0, -0.5, 0.0]
    steps += [(25.0 * f, 0.0, 0.0, 0.0) for f in tri]
    steps += [(0.0, 2.0 * f, 0.0, 0.0) for f in tri]
    steps += [(0.0, 0.0, 1.0 * f, 0.0) for f in tri]
    if steering:
        steps += [(0.0, 0.0, 0.0, 100.0 * f) for f in tri]
    n = 16
    for i in range(1, n + 1):  # everything at once
        x = i / n
        steps.append(
            (
                -15.0 * math.sin(math.pi * x),
                1.5 * math.sin(2.0 * math.pi * x),
                -0.6 * math.sin(math.pi * x),
                80.0 * math.sin(2.0 * math.pi * x + 0.4) if steering else 0.0,
            )
        )
    return steps


# -- channels from points (OptimumK's definitions) ---------------------------------------------
@dataclass
class Geo:
    """Per-wheel geometry of one solved configuration (world mm)."""

    s: Vec  # unit spin axis, outboard
    camber: float  # deg
    toe: float  # deg, + = toe-out
    steer: float  # deg, + = turned left
    cp: Vec  # OptimumK's contact patch
    wc: Vec


def wheel_geometry(
    car: refkit.RefCar, pts: Points, fields: Mapping[str, Mapping[str, float]]
) -> dict[str, Geo]:
    """Camber = -asin(s.z), Toe = -asin(s.x), Steer = side (Toe - static toe), contact
    patch CP = WC + r unit(s x hd) (pointing down), hd the horizontal heading turned from X
    by the steer angle; all in world axes."""
    out = {}
    for w in car.wheels:
        side = 1.0 if w.name[1] == "L" else -1.0
        wc = np.asarray(pts[w.centre])
        s = _unit(wc - np.asarray(pts[w.axis_point]))  # WA is inboard of WC
        camber = -math.degrees(math.asin(float(s[2])))
        toe = -math.degrees(math.asin(float(s[0])))
        steer = side * (toe - fields[w.name]["Static Toe"])
        a = math.radians(steer)
        hd = np.array([math.cos(a), math.sin(a), 0.0])
        u = _unit(np.cross(s, hd))
        u = u if u[2] < 0 else -u
        out[w.name] = Geo(s, camber, toe, steer, wc + w.radius * u, wc)
    return out


def lowest_point_z(car: refkit.RefCar, pts: Points) -> dict[str, float]:
    return refkit.contact_heights(car, pts)


def rigid_velocity(
    before: Points, after: Points, names: list[str], h: float
) -> tuple[Vec, Vec, Vec]:
    """(origin o, velocity of o, angular velocity w) of a rigid body from its points at -h
    and +h of a parameter (central differences, least squares over the points)."""
    P = np.array([(np.asarray(before[n]) + np.asarray(after[n])) / 2.0 for n in names])
    V = np.array([(np.asarray(after[n]) - np.asarray(before[n])) / (2.0 * h) for n in names])
    o = P.mean(axis=0)
    rows, rhs = [], []
    for p, v in zip(P, V, strict=True):
        d = p - o
        # v = vo + w x d = vo - [d]x w
        dx = np.array([[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]])
        rows.append(np.hstack([np.eye(3), -dx]))
        rhs.append(v)
    sol, *_ = np.linalg.lstsq(np.vstack(rows), np.concatenate(rhs), rcond=None)
    return o, sol[:3], sol[3:]


def view_ic(cp: Vec, v_cp: Vec, w: Vec, normal: Vec) -> Vec:
    """Force-based instant centre in the plane through cp with this normal:
    IC = CP + (w_n x v_in)/|w_n|^2 (the line CP -> IC is perpendicular to v_in)."""
    n = _unit(normal)
    wn = float(w @ n)
    v_in = v_cp - float(v_cp @ n) * n
    return cp + np.cross(n, v_in) / wn if abs(wn) > 1e-300 else np.full(3, np.nan)


def view_ic_two_points(cp: Vec, v_cp: Vec, p: Vec, v_p: Vec, normal: Vec) -> Vec:
    """Side-view instant centre as OptimumK's own results place it: in the plane through
    cp with this normal, where the line through cp perpendicular to its in-plane velocity
    meets the line through p (the wheel centre, moved into the plane) perpendicular to
    p's in-plane velocity. (The single-point formula `view_ic` puts a 309 m centre 7 %
    nearer: the wheel centre and the contact patch are at different depths.)"""
    n = _unit(normal)
    d_cp = np.cross(n, v_cp - float(v_cp @ n) * n)
    d_p = np.cross(n, v_p - float(v_p @ n) * n)
    p_in = p - float((p - cp) @ n) * n
    return intersect_on_first(cp, d_cp, p_in, d_p)


def intersect_on_first(p1: Vec, d1: Vec, p2: Vec, d2: Vec) -> Vec:
    """The point of the line p1 + a d1 where it meets the coplanar line p2 + b d2 (NaN if
    they are parallel): exact on the first line, which carries the swing-arm angle."""
    n12 = np.cross(d1, d2)
    den = float(n12 @ n12)
    if den <= 1e-30 * float(d1 @ d1) * float(d2 @ d2):
        return np.full(3, np.nan)
    a = float(np.cross(p2 - p1, d2) @ n12) / den
    return p1 + a * d1


def intersect_in_plane(p1: Vec, d1: Vec, p2: Vec, d2: Vec) -> Vec:
    """Intersection of two coplanar lines (least squares on p1 + a d1 = p2 + b d2)."""
    A = np.column_stack([d1, -d2])
    if np.linalg.matrix_rank(A, tol=1e-12 * float(np.abs(A).max())) < 2:
        return np.full(3, np.nan)
    (a, b), *_ = np.linalg.lstsq(A, p2 - p1, rcond=None)
    return (p1 + a * d1 + p2 + b * d2) / 2.0


class Reference:
    """Solves the car and measures it."""

    def __init__(self) -> None:
        self.car, self.fields = build_car()
        self.slv = refkit.SlvsCar(self.car)
        design = refkit.Placement.identity()
        self.ground = lowest_point_z(self.car, self.car.points)  # each tyre's design height
        self.rack_per_deg = RACK_MM_PER_REV / 360.0
        self.design_pts = self.solve(design, 0.0, None)
        self.patch0 = {CODE[c]: block_patch(*c) for c in CORNERS}  # the Wheels block's
        mf = (self.patch0["FL"] + self.patch0["FR"]) / 2.0
        mr = (self.patch0["RL"] + self.patch0["RR"]) / 2.0
        d = mr - mf
        n = _unit(np.array([d[2], 0.0, -d[0]]))
        n = n if n[2] > 0 else -n
        f = SETUP["Front Mass Distribution"] / 100.0
        self.cg0 = mf + (1.0 - f) * d + SETUP["Center of Gravity Height"] * n

    # one configuration
    def solve(
        self,
        place: refkit.Placement,
        sw_deg: float,
        start: Points | None,
        lengths: Mapping[str, float] | None = None,
        ground: Mapping[str, float] | None = None,
    ) -> dict[str, Vec]:
        pts = self.slv.solve(
            place,
            rack=sw_deg * self.rack_per_deg,
            lengths=lengths,
            start=start,
            ground_z=dict(ground or self.ground),
            polish=6,
        )
        if lengths is None:
            z = lowest_point_z(self.car, pts)
            for k, v in z.items():
                assert abs(v - (ground or self.ground)[k]) < 1e-9, (k, v)
        return pts

    def coil_lengths(self, pts: Points) -> dict[str, float]:
        return {b[:2]: v for b, v in refkit.damper_lengths(self.car, pts).items()}

    def upright_motion(
        self, place: refkit.Placement, sw: float, pts: Points, dl: float = 0.01
    ) -> dict[str, tuple[Vec, Vec, Vec]]:
        """{wheel: (o, v_o, w)}: the upright's twist relative to the chassis (world axes)
        per mm of coilover length, chassis and rack held (every coilover changed at once:
        the corners are independent with the chassis and rack held)."""
        lengths = refkit.damper_lengths(self.car, pts)
        lo = self.solve(place, sw, pts, lengths={b: v - dl for b, v in lengths.items()})
        hi = self.solve(place, sw, pts, lengths={b: v + dl for b, v in lengths.items()})
        out = {}
        for w in self.car.wheels:
            names = [n for n in self.car.bodies[w.body]]
            out[w.name] = rigid_velocity(lo, hi, names, dl)
        return out


def _distance(P: Points, a: str, b: str) -> float:
    return float(np.linalg.norm(np.asarray(P[a]) - np.asarray(P[b])))


def point_velocity(tw: tuple[Vec, Vec, Vec], p: Vec) -> Vec:
    o, vo, w = tw
    return vo + np.cross(w, p - o)


@dataclass
class Centres:
    """Force-based centres of one configuration (world mm): per wheel fv, sv; per axle
    rc ("Front", "Rear"); per side pc ("Left", "Right")."""

    fv: dict[str, Vec]
    sv: dict[str, Vec]
    rc: dict[str, Vec]
    pc: dict[str, Vec]


def centres(
    ref: Reference, geo: Mapping[str, Geo], tw: Mapping[str, tuple[Vec, Vec, Vec]]
) -> Centres:
    """FV/SV instant centres per wheel, roll centre per axle, pitch centre per side."""
    X, Y = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    fv, sv, vcp = {}, {}, {}
    for c, g in geo.items():
        v = point_velocity(tw[c], g.cp)
        vcp[c] = v
        fv[c] = view_ic(g.cp, v, tw[c][2], X)
        sv[c] = view_ic_two_points(g.cp, v, g.wc, point_velocity(tw[c], g.wc), Y)
    rc = {}
    for axle, (lc, rc_) in (("Front", ("FL", "FR")), ("Rear", ("RL", "RR"))):
        pl, pr = geo[lc].cp, geo[rc_].cp
        dl_, dr_ = fv[lc] - pl, fv[rc_] - pr
        yz = intersect_in_plane(
            np.array([0.0, pl[1], pl[2]]),
            np.array([0.0, dl_[1], dl_[2]]),
            np.array([0.0, pr[1], pr[2]]),
            np.array([0.0, dr_[1], dr_[2]]),
        )
        yz[0] = (pl[0] + pr[0]) / 2.0
        rc[axle] = yz
    pc = {}
    for side, (fc, rcn) in (("Left", ("FL", "RL")), ("Right", ("FR", "RR"))):
        pf, pr = geo[fc].cp, geo[rcn].cp
        n = _unit(np.cross([0.0, 0.0, 1.0], pf - pr))
        lines = []
        for c, p in ((fc, pf), (rcn, pr)):
            v_in = vcp[c] - float(vcp[c] @ n) * n
            lines.append((p, np.cross(n, v_in)))
        pc[side] = intersect_in_plane(lines[0][0], lines[0][1], lines[1][0], lines[1][1])
    return Centres(fv, sv, rc, pc)


# -- the export ---------------------------------------------------------------------------------
def run(out: Path, write_files: bool = True, steering: bool = True) -> None:
    t0 = time.perf_counter()
    if write_files:
        for path in write_inputs(HERE):
            print(f"wrote {path}")
    ref = Reference()
    car = ref.car
    steps = motion_steps(steering)
    n = len(steps)
    cols: dict[str, list[float]] = {}

    def put(header: str, value: float) -> None:
        cols.setdefault(header, []).append(float(value))

    # step 0 centres -> the world-fixed roll and pitch axes of the motion
    place = refkit.Placement.identity()
    pts0 = ref.design_pts
    geo0 = wheel_geometry(car, pts0, ref.fields)
    cen0 = centres(ref, geo0, ref.upright_motion(place, 0.0, pts0))
    rc0, pc0 = cen0.rc, cen0.pc
    roll_axis = (rc0["Front"], rc0["Front"] - rc0["Rear"])
    pitch_axis = (pc0["Left"], pc0["Left"] - pc0["Right"])

    prev = (0.0, 0.0, 0.0, 0.0)
    pts: dict[str, Vec] = dict(pts0)
    first: dict[str, dict[str, Any]] = {}
    for i, (h, r, p, sw) in enumerate(steps):
        if i > 0:
            place = place.then(np.eye(3), np.array([0.0, 0.0, h - prev[0]]))
            place = place.then(*refkit.axis_rotation(roll_axis[0], roll_axis[1], r - prev[1]))
            place = place.then(*refkit.axis_rotation(pitch_axis[0], pitch_axis[1], p - prev[2]))
            pts = ref.solve(place, sw, pts)
        prev = (h, r, p, sw)
        measure(ref, place, sw, pts, (h, r, p, sw), i, n, put, first)
    print(f"solved {n} steps in {time.perf_counter() - t0:.1f} s")
    title = [
        (
            "Name",
            "SolveSpace reference car - heave, roll, pitch, "
            + ("steering, combined" if steering else "combined, no steering"),
        ),
        ("Type", "Result"),
        (
            "Version",
            "2.3.0 layout - NOT from OptimumK: SolveSpace (slvs) points, channels by "
            "validation/optimumk_slvs/make_reference.py",
        ),
    ]
    okfiles.write_result(out, title, cols)
    print(f"wrote {out}: {n} steps, {len(cols)} columns")


def measure(
    ref: Reference,
    place: refkit.Placement,
    sw: float,
    pts: dict[str, Vec],
    motion: tuple[float, float, float, float],
    step: int,
    n_steps: int,
    put: Callable[[str, float], None],
    first: dict[str, dict[str, Any]],
) -> None:
    """Every channel of one step (see the module docstring)."""
    car = ref.car
    h, r, p, _ = motion
    put("Motion [Heave] (mm)", h)
    put("Motion [Roll] (deg)", r)
    put("Motion [Pitch] (deg)", p)
    put("Motion [Steering] (deg)", sw)
    put("Motion [Completion Percentage] (%)", 100.0 * step / (n_steps - 1))

    geo = wheel_geometry(car, pts, ref.fields)
    tw = ref.upright_motion(place, sw, pts)
    cen = centres(ref, geo, tw)
    coil = ref.coil_lengths(pts)
    if step == 0:
        first["wc"] = {c: g.wc.copy() for c, g in geo.items()}
        first["cp"] = {c: g.cp.copy() for c, g in geo.items()}
        first["coil"] = dict(coil)
    cg = place.to_world(ref.cg0)
    wb_side = {
        "Left": float(np.linalg.norm(geo["FL"].cp - geo["RL"].cp)),
        "Right": float(np.linalg.norm(geo["FR"].cp - geo["RR"].cp)),
    }

    # rates: central differences of slvs solves
    def fd(
        moved: Callable[[float], tuple[refkit.Placement, float]], step_size: float
    ) -> tuple[dict[str, Geo], dict[str, Geo], dict[str, float], dict[str, float]]:
        pa, sa = moved(-step_size)
        pb, sb = moved(+step_size)
        lo = ref.solve(pa, sa, pts)
        hi = ref.solve(pb, sb, pts)
        return (
            wheel_geometry(car, lo, ref.fields),
            wheel_geometry(car, hi, ref.fields),
            ref.coil_lengths(lo),
            ref.coil_lengths(hi),
        )

    dh = 0.01
    heave = fd(lambda e: (place.then(np.eye(3), np.array([0.0, 0.0, e])), sw), dh)
    da = 0.001
    rc = cen.rc
    roll_now = (rc["Front"], rc["Front"] - rc["Rear"])
    roll = fd(lambda e: (place.then(*refkit.axis_rotation(roll_now[0], roll_now[1], e)), sw), da)
    pc = cen.pc
    pitch_now = (pc["Left"], pc["Left"] - pc["Right"])
    pitch = fd(lambda e: (place.then(*refkit.axis_rotation(pitch_now[0], pitch_now[1], e)), sw), da)
    dsw = 0.01
    steer = fd(lambda e: (place, sw + e), dsw)

    def rate(res: tuple, c: str, attr: str, step_size: float) -> float:
        lo, hi = res[0][c], res[1][c]
        return (getattr(hi, attr) - getattr(lo, attr)) / (2.0 * step_size)

    def dcoil(res: tuple, c: str) -> float:
        return res[3][c] - res[2][c]

    for side, axle in CORNERS:
        c = CODE[(side, axle)]
        sgn = SIDE[side]
        g = geo[c]
        tag = f"[{side}] [{axle}]"
        P = {k[3:]: v for k, v in pts.items() if k.startswith(c + "_")}
        put(f"Camber Angle {tag} (deg)", g.camber)
        put(f"Toe Angle {tag} (deg)", g.toe)
        put(f"Steer Angle {tag} (deg)", g.steer)
        k = P["UPRI_UppPnt"] - P["UPRI_LowPnt"]
        put(f"Caster Angle {tag} (deg)", math.degrees(math.atan2(-k[0], k[2])))
        put(f"King Pin Inclination {tag} (deg)", math.degrees(math.atan2(-sgn * k[1], k[2])))
        G = P["UPRI_LowPnt"] + (g.cp[2] - P["UPRI_LowPnt"][2]) / k[2] * k
        for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
            put(f"King Pin Axis at Ground {ax} {tag} (mm)", G[j])
        put(f"Scrub Radius {tag} (mm)", sgn * (g.cp - G)[1])
        put(f"Mechanical Trail {tag} (mm)", (G - g.cp)[0])
        t = P["UPRI_TiePnt"] - P["UPRI_UppPnt"]
        put(f"Top Upright Angle {tag} (deg)", math.degrees(math.atan(-t[2] / t[0])))
        put(f"Half Track {tag} (mm)", sgn * g.cp[1])
        put(
            f"Toe Distance {tag} (mm)",
            ref.fields[c]["Rim Diameter"] * math.sin(math.radians(g.toe)),
        )
        for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
            put(f"Wheel Center {ax} {tag} (mm)", g.wc[j])
            put(f"Contact Patch {ax} {tag} (mm)", g.cp[j])
            put(f"Wheel Center Displacement {ax} {tag} (mm)", g.wc[j] - first["wc"][c][j])
            put(f"Contact Patch Displacement {ax} {tag} (mm)", g.cp[j] - first["cp"][c][j])
        put(f"CoilOver Length {tag} (mm)", coil[c])
        put(f"CoilOver Displacement {tag} (mm)", coil[c] - first["coil"][c])
        dist = functools.partial(_distance, P)
        put(f"Push/Pull Length {tag} (mm)", dist("NSMA_PPAttPnt", "ROCK_RodPnt"))
        put(f"Tie Rod Length {tag} (mm)", dist("UPRI_TiePnt", "CHAS_TiePnt"))
        put(f"Upper A-Arm Fore Length {tag} (mm)", dist("UPRI_UppPnt", "CHAS_UppFor"))
        put(f"Upper A-Arm Aft Length {tag} (mm)", dist("UPRI_UppPnt", "CHAS_UppAft"))
        put(f"Lower A-Arm Fore Length {tag} (mm)", dist("UPRI_LowPnt", "CHAS_LowFor"))
        put(f"Lower A-Arm Aft Length {tag} (mm)", dist("UPRI_LowPnt", "CHAS_LowAft"))
        nrm = _unit(
            np.cross(P["ROCK_RodPnt"] - P["CHAS_RocPiv"], P["ROCK_CoiPnt"] - P["CHAS_RocPiv"])
        )
        u_coil = _unit(P["ROCK_CoiPnt"] - P["CHAS_AttPnt"])
        u_rod = _unit(P["ROCK_RodPnt"] - P["NSMA_PPAttPnt"])
        put(f"Rocker/CoilOver Angle {tag} (deg)", math.degrees(math.asin(abs(float(nrm @ u_coil)))))
        put(f"Rocker/PRod Angle {tag} (deg)", math.degrees(math.asin(abs(float(nrm @ u_rod)))))
        # in the chassis frame (the definitions: exact under roll there, 7e-6 deg; in world
        # axes ~2 deg off at 2 deg of roll); not established under pitch in either frame
        u_tie = _unit(place.R.T @ (P["UPRI_TiePnt"] - P["CHAS_TiePnt"]))
        put(f"Tie Rod Top View Angle {tag} (deg)", math.degrees(math.asin(abs(u_tie[0]))))
        put(f"Tie Rod Front View Angle {tag} (deg)", math.degrees(math.asin(abs(u_tie[2]))))
        fv = cen.fv[c]
        sv = cen.sv[c]
        for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
            put(f"Front View Instant Center {ax} {tag} (mm)", fv[j])
        for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
            put(f"Side View Instant Center {ax} {tag} (mm)", sv[j])
        d = fv - g.cp
        put(f"Front View Swing Arm Length {tag} (mm)", math.hypot(d[1], d[2]))
        put(f"Front View Swing Arm Angle {tag} (deg)", math.degrees(math.atan(d[2] / abs(d[1]))))
        d = sv - g.cp
        svsa_angle = math.degrees(math.atan(d[2] / d[0])) * (-1.0 if axle == "Front" else 1.0)
        put(f"Side View Swing Arm Length {tag} (mm)", math.hypot(d[0], d[2]))
        put(f"Side View Swing Arm Angle {tag} (deg)", svsa_angle)

        # gains and motion ratios (per corner)
        put(f"Camber Angle Gain in Heave {tag} (deg/mm)", -rate(heave, c, "camber", dh))
        put(f"Toe Angle Gain in Heave {tag} (deg/mm)", -rate(heave, c, "toe", dh))
        for bump in ("Left", "Right"):
            own = bump == side
            put(
                f"Camber Angle Gain in {bump} Wheel Bump/Rebound {tag} (deg/mm)",
                -rate(heave, c, "camber", dh) if own else 0.0,
            )
            put(
                f"Toe Angle Gain in {bump} Wheel Bump/Rebound {tag} (deg/mm)",
                -rate(heave, c, "toe", dh) if own else 0.0,
            )
        put(f"Camber Angle Gain in Roll {tag} (deg/deg)", -rate(roll, c, "camber", da))
        put(f"Toe Angle Gain in Roll {tag} (deg/deg)", -rate(roll, c, "toe", da))
        put(f"Camber Angle Gain in Pitch {tag} (deg/deg)", -rate(pitch, c, "camber", da))
        put(f"Toe Angle Gain in Pitch {tag} (deg/deg)", -rate(pitch, c, "toe", da))
        mr_heave = 2.0 * dh / dcoil(heave, c)
        put(f"Motion Ratio Heave {tag} (-)", mr_heave)
        put(f"Motion Ratio Single Left Wheel {tag} (-)", mr_heave if side == "Left" else 0.0)
        put(f"Motion Ratio Single Right Wheel {tag} (-)", mr_heave if side == "Right" else 0.0)
        put(f"Motion Ratio Roll {tag} (deg/mm)", 2.0 * da / dcoil(roll, c))
        put(f"Motion Ratio Pitch {tag} (deg/mm)", 2.0 * da / dcoil(pitch, c))
        put(f"Steering Toe Angle Gain {tag} (deg/deg)", -rate(steer, c, "toe", dsw))
        put(f"Steering Camber Angle Gain {tag} (deg/deg)", -rate(steer, c, "camber", dsw))
        if axle == "Front":
            put(f"Motion Ratio Steering {tag} (deg/mm)", 2.0 * dsw / dcoil(steer, c))
            put(f"Steering Ratio {tag} (-)", 1.0 / rate(steer, c, "steer", dsw))
            put(
                f"Steering Wheel Angle per Steer Angle {tag} (-)",
                sw / g.steer if sw != 0.0 else math.nan,
            )
        for name in DOUBLE_A_ARM + PUSH_PULL:
            for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
                put(f"{name} {ax} {tag} (mm)", P[name][j])
        for virtual in (
            "Virtual King Pin Inclination",
            "Virtual Caster Angle",
            "Virtual Scrub Radius",
            "Virtual Mechanical Trail",
        ):
            put(f"{virtual} {tag}", math.nan)

    # side level: antis, wheelbase, pitch centre
    mean_cp_z = float(np.mean([g.cp[2] for g in geo.values()]))
    bb = SETUP["Brake Bias"] / 100.0
    rear_drive = 1.0 - SETUP["Drive Bias"] / 100.0
    for side, (fc, rcn) in (("Left", ("FL", "RL")), ("Right", ("FR", "RR"))):
        L = wb_side[side]
        gf, gr = geo[fc], geo[rcn]
        svf = cen.sv[fc] - gf.cp
        svr = cen.sv[rcn] - gr.cp
        tan_f = -svf[2] / svf[0]  # tan of the front SVSA angle
        tan_r = svr[2] / svr[0]
        put(f"Anti-Dive Percentage [{side}] (%)", 100.0 * tan_f * L / (cg[2] - gf.cp[2]) * bb)
        put(
            f"Anti-Lift Percentage [{side}] [Rear] (%)",
            100.0 * tan_r * L / (cg[2] - gr.cp[2]) * (1.0 - bb),
        )
        put(f"Anti-Lift Percentage [{side}] [Front] (%)", 0.0)  # front drive share 0
        ic = cen.sv[rcn]
        put(
            f"Anti-Squat Percentage [{side}] (%)",
            100.0 * (ic[2] - gr.wc[2]) / (ic[0] - gr.wc[0]) * L / (cg[2] - gr.cp[2]) * rear_drive,
        )
        put(f"Wheelbase [{side}] (mm)", L)
        pcs = cen.pc[side]
        for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
            put(f"Pitch Center {ax} [{side}] (mm)", pcs[j])
        for ax, j in (("X", 0), ("Y", 1)):
            put(f"Pitch Center (Ground) {ax} [{side}] (mm)", pcs[j])
        put(f"Pitch Center (Ground) Z [{side}] (mm)", pcs[2] - mean_cp_z)

    # axle level
    for axle, (lc, rcn) in (("Front", ("FL", "FR")), ("Rear", ("RL", "RR"))):
        rcs = cen.rc[axle]
        for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
            put(f"Roll Center {ax} [{axle}] (mm)", rcs[j])
        for ax, j in (("X", 0), ("Y", 1)):
            put(f"Roll Center (Ground) {ax} [{axle}] (mm)", rcs[j])
        axle_cp_z = (geo[lc].cp[2] + geo[rcn].cp[2]) / 2.0
        put(f"Roll Center (Ground) Z [{axle}] (mm)", rcs[2] - axle_cp_z)
        put(f"Track [{axle}] (mm)", geo[lc].cp[1] - geo[rcn].cp[1])
    # front steering
    gl, gr_ = geo["FL"], geo["FR"]
    dl = rate(steer, "FL", "steer", dsw)
    dr = rate(steer, "FR", "steer", dsw)
    put("Steering Ratio [Front] (-)", 1.0 / ((dl + dr) / 2.0))
    mean_steer = (gl.steer + gr_.steer) / 2.0
    put(
        "Steering Wheel Angle per Average Steer Angle [Front] (-)",
        sw / mean_steer if sw != 0.0 else math.nan,
    )
    put("Steering Rack Displacement [Front] (mm)", sw * RACK_MM_PER_REV / 360.0)
    wheelbase = (wb_side["Left"] + wb_side["Right"]) / 2.0
    track = gl.cp[1] - gr_.cp[1]
    if sw != 0.0:
        inner, outer = (gl.steer, gr_.steer) if mean_steer > 0 else (gr_.steer, gl.steer)
        put("Ackerman Angle [Front] (deg)", abs(inner) - abs(outer))
        o = math.radians(abs(outer))
        ideal = math.atan(wheelbase / (wheelbase / math.tan(o) - track))
        put("Ackerman Percentage [Front] (%)", 100.0 * math.radians(abs(inner)) / ideal)
        # not established: our best reading (front axle lines meet the rear axle line)
        x_rear = (geo["RL"].cp[0] + geo["RR"].cp[0]) / 2.0
        ys = []
        for g in (gl, gr_):
            sh = np.array([g.s[0], g.s[1]])
            t_ = (x_rear - g.cp[0]) / sh[0]
            ys.append(g.cp[1] + t_ * sh[1])
        itc = np.array([x_rear, float(np.mean(ys)), 0.0])
    else:
        put("Ackerman Angle [Front] (deg)", math.nan)
        put("Ackerman Percentage [Front] (%)", math.nan)
        itc = np.full(3, math.nan)
    for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
        put(f"Instant Turn Center {ax} [Front] (mm)", itc[j])
    put("Instant Turn Radius [Front] (mm)", float(np.linalg.norm((itc - cg)[:2])))
    put("Steering Side Ratio [Front] (-)", math.nan)

    # car level
    put("Wheelbase (mm)", wheelbase)
    d = rc["Front"] - rc["Rear"]
    put("Roll Axis Inclination Angle (deg)", math.degrees(math.atan2(-d[2], d[0])))
    for ax, j in (("X", 0), ("Y", 1), ("Z", 2)):
        put(f"Center of Gravity {ax} (mm)", cg[j])


# -- the force result ---------------------------------------------------------------------------
# OptimumK's force case: per wheel, keyframes (completion %, Fx, Fy, Fz N, Mx, My, Mz N m),
# world axes, linear between keys and held outside them; every load on the world-fixed line
# through the tyre's design contact patch (OptimumK's rule), Mz applied.
FORCE_KEYS: dict[str, list[tuple[float, ...]]] = {
    "FL": [
        (0.0, 0.0, 0.0, 1500.0, 0.0, 0.0, 0.0),
        (40.0, -900.0, 1200.0, 2600.0, 30.0, -20.0, 45.0),
        (100.0, 600.0, -800.0, 1800.0, -15.0, 25.0, -30.0),
    ],
    "FR": [
        (0.0, 0.0, 0.0, 1400.0, 0.0, 0.0, 0.0),
        (100.0, -700.0, 900.0, 2200.0, 10.0, 0.0, 35.0),
    ],
    "RL": [
        (10.0, 200.0, 0.0, 1700.0, 0.0, 0.0, 0.0),
        (60.0, 1100.0, 1500.0, 2900.0, -25.0, 40.0, 20.0),
        (90.0, -400.0, -300.0, 1600.0, 5.0, -10.0, -15.0),
    ],
    "RR": [
        (0.0, 300.0, -200.0, 1650.0, 0.0, 0.0, 0.0),
        (100.0, 800.0, 1300.0, 2500.0, 0.0, 30.0, 25.0),
    ],
}
HELD_CASE: dict[str, tuple[float, ...]] = {
    "FL": (0.0, 0.0, 1000.0, 0.0, 0.0, 0.0),
    "FR": (0.0, -500.0, 800.0, 0.0, 0.0, 0.0),
    "RL": (0.0, 0.0, 900.0, 0.0, 0.0, 0.0),
    "RR": (300.0, 0.0, 900.0, 0.0, 0.0, 20.0),
}
"""A case held constant over its motion (the Load Cases test): plain numbers."""
MEMBERS = {  # OptimumK's two-force members: (our body suffix, end 1, end 2)
    "CoilOver": ("CoilOver", "CHAS_AttPnt", "ROCK_CoiPnt"),
    "Push/Pull": ("PushPull", "NSMA_PPAttPnt", "ROCK_RodPnt"),
    "Tie Rod": ("TieRod", "CHAS_TiePnt", "UPRI_TiePnt"),
}
PIVOTS = {  # chassis pivot -> (arm, leg)
    "CHAS_LowFor": ("Lower A-Arm", "Fore"),
    "CHAS_LowAft": ("Lower A-Arm", "Aft"),
    "CHAS_UppFor": ("Upper A-Arm", "Fore"),
    "CHAS_UppAft": ("Upper A-Arm", "Aft"),
}
WORDS = {c: f"{axle} {side}" for (side, axle), c in CODE.items()}  # "FL" -> "Front Left"


def force_motion_steps(held: bool = False) -> list[tuple[float, float, float, float]]:
    """(heave mm, roll deg, pitch deg, steering deg) per step, step 0 = design: every input
    at once over 12 steps (held=True: heave and roll only, 6 steps)."""
    n = 6 if held else 12
    out = []
    for i in range(n + 1):
        x = i / n
        out.append(
            (
                -15.0 * math.sin(math.pi * x),
                1.5 * math.sin(2.0 * math.pi * x),
                0.0 if held else -0.6 * math.sin(math.pi * x),
                0.0 if held else 60.0 * math.sin(2.0 * math.pi * x),
            )
        )
    return out


def keyed_load(keys: list[tuple[float, ...]], pct: float) -> tuple[Vec, Vec]:
    """(F N, M N m) of one wheel's keyframes at a completion percentage."""
    arr = np.array(keys, dtype=float)
    v = np.array([np.interp(pct, arr[:, 0], arr[:, k]) for k in range(1, 7)])
    return v[:3], v[3:]


def write_keyframes(path: Path) -> Path:
    """FORCE_KEYS as the keyframes CSV of docs/loads.md (wheel, percent, Fx ... Mz)."""
    lines = ["wheel,percent,Fx,Fy,Fz,Mx,My,Mz"]
    for c, keys in FORCE_KEYS.items():
        for key in keys:
            lines.append(f"{WORDS[c]}," + ",".join(f"{v:g}" for v in key))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def force_car(car: refkit.RefCar) -> refkit.RefCar:
    """The car with its push/pull rods and tie rods as variable-length members too (like
    the coilovers), so that each two-force member's length can be varied in slvs."""
    extra = [
        (f"{c}_{suffix}", f"{c}_{a}", f"{c}_{b}")
        for c in CODE.values()
        for name, (suffix, a, b) in MEMBERS.items()
        if name != "CoilOver"
    ]
    return dataclasses.replace(car, dampers=[*car.dampers, *extra])


def walk(ref: Reference, steps: list[tuple[float, float, float, float]]):  # type: ignore[no-untyped-def]
    """(step, placement, steering deg, solved points) of every step in OptimumK's motion
    style (module docstring): heave along Z, roll and pitch about step 0's axes."""
    place = refkit.Placement.identity()
    pts0 = ref.design_pts
    cen0 = centres(
        ref, wheel_geometry(ref.car, pts0, ref.fields), ref.upright_motion(place, 0.0, pts0)
    )
    roll_axis = (cen0.rc["Front"], cen0.rc["Front"] - cen0.rc["Rear"])
    pitch_axis = (cen0.pc["Left"], cen0.pc["Left"] - cen0.pc["Right"])
    prev = (0.0, 0.0, 0.0, 0.0)
    pts: dict[str, Vec] = dict(pts0)
    for i, (h, r, p, sw) in enumerate(steps):
        if i > 0:
            place = place.then(np.eye(3), np.array([0.0, 0.0, h - prev[0]]))
            place = place.then(*refkit.axis_rotation(roll_axis[0], roll_axis[1], r - prev[1]))
            place = place.then(*refkit.axis_rotation(pitch_axis[0], pitch_axis[1], p - prev[2]))
            pts = ref.solve(place, sw, pts)
        prev = (h, r, p, sw)
        yield i, place, sw, pts


def force_channels(
    ref: Reference,
    fslv: refkit.SlvsCar,
    place: refkit.Placement,
    sw: float,
    pts: dict[str, Vec],
    loads: Mapping[str, tuple[Vec, Vec]],
    cp_design: Mapping[str, Vec],
    put: Callable[[str, float], None],
) -> None:
    """The force channels of one step, by virtual work from central differences of slvs
    solves with the chassis placement held (N, N m, world axes):

    * every contact-patch load's virtual work per unit of a parameter,
      dW = F . v(p_design) + 1000 M . w, with v(p_design) the velocity of the upright's
      point at the tyre's design contact patch and w its angular velocity;
    * a two-force member's tension T = dW/dL (its length L varied, every other member
      length and the rack held); the force it exerts on the body at its end b is
      -T unit(b - a) (OptimumK's "A To B": the force A exerts on B);
    * an A-arm chassis pivot's force on the chassis, component e: dW/d(delta) for the
      pivot moved by delta along e (every member length held): a support's reaction
      by virtual work. For the arm carrying only its ball joint (rear upper, front lower:
      two legs in slvs) this is the force along the legs; for the arm carrying the
      push/pull mount the split along its pivot axis is that of this script's slvs bars
      (not OptimumK's, whose rule is not established), the sum of the two pivots and each
      component normal to the pivot axis are exact whatever the split;
    * Steering Torque [Front] Mz = dW/d(theta) / 1000, theta the steering-wheel angle (rad),
      the member lengths held: the torque the loads put on the steering wheel (OptimumK's
      sign, as its own force results show).
    """
    car = fslv.car
    lengths = refkit.damper_lengths(car, pts)
    up = {w.name: list(car.bodies[w.body]) for w in car.wheels}

    def work(lo: Points, hi: Points, h: float) -> dict[str, float]:
        out = {}
        for c, names in up.items():
            o, vo, w = rigid_velocity(lo, hi, names, h)
            f, m = loads[c]
            v = vo + np.cross(w, cp_design[c] - o)
            out[c] = float(f @ v + 1000.0 * (m @ w))
        return out

    def solve(
        dl: Mapping[str, float] | None = None,
        dsw: float = 0.0,
        offsets: Mapping[str, Vec] | None = None,
    ) -> dict[str, Vec]:
        ls = {b: v + (dl or {}).get(b, 0.0) for b, v in lengths.items()}
        return fslv.solve(
            place,
            rack=(sw + dsw) * ref.rack_per_deg,
            lengths=ls,
            start=pts,
            polish=6,
            offsets=offsets,
        )

    h = 0.01
    for name, (suffix, a, b) in MEMBERS.items():
        bodies = [f"{c}_{suffix}" for c in up]
        dw = work(solve({x: -h for x in bodies}), solve({x: h for x in bodies}), h)
        for c, tension in dw.items():
            pa, pb = pts[f"{c}_{a}"], pts[f"{c}_{b}"]
            u = _unit(pb - pa)
            tag = f"[{WORDS[c]}]"
            axle = WORDS[c].split()[0]
            if name == "CoilOver":
                on = {"CoilOver To Chassis": tension * u, "CoilOver To Rocker": -tension * u}
            elif name == "Push/Pull":
                arm = "Upper A-Arm" if PUSH_PULL_ON[axle] == "UpperAArm" else "Lower A-Arm"
                on = {"Push/Pull To Rocker": -tension * u, f"{arm} To Push/Pull": -tension * u}
            else:
                rack = "Rack" if axle == "Front" else "Chassis"
                on = {f"Tie Rod To {rack}": tension * u, "Tie Rod To Upright": -tension * u}
            for channel, vec in on.items():
                for k, comp in enumerate(("Fx", "Fy", "Fz")):
                    put(f"{channel} - {comp} {tag} (N)", float(vec[k]))
    for pivot, (arm, leg) in PIVOTS.items():
        force = {c: np.zeros(3) for c in up}
        for k in range(3):
            e = np.zeros(3)
            e[k] = 1.0
            lo = solve(offsets={f"{c}_{pivot}": -h * e for c in up})
            hi = solve(offsets={f"{c}_{pivot}": h * e for c in up})
            for c, value in work(lo, hi, h).items():
                force[c][k] = value
        for c, vec in force.items():
            for k, comp in enumerate(("Fx", "Fy", "Fz")):
                put(f"{arm} To Chassis ({leg}) - {comp} [{WORDS[c]}] (N)", float(vec[k]))
    dsw = 0.01
    dw = work(solve(dsw=-dsw), solve(dsw=dsw), math.radians(dsw))
    put("Steering Torque [Front] Mz (N m)", sum(dw.values()) / 1000.0)


def run_forces(out: Path, held: bool = False) -> None:
    """A force result in OptimumK's layout: the motion inputs, then per corner the
    Contact Patch loads and the force channels of `force_channels`."""
    t0 = time.perf_counter()
    ref = Reference()
    fslv = refkit.SlvsCar(force_car(ref.car))
    steps = force_motion_steps(held)
    n = len(steps)
    cp_design = ref.patch0
    cols: dict[str, list[float]] = {}

    def put(header: str, value: float) -> None:
        cols.setdefault(header, []).append(float(value))

    for i, place, sw, pts in walk(ref, steps):
        h, r, p, _ = steps[i]
        pct = 100.0 * i / (n - 1)
        put("Motion [Heave] (mm)", h)
        put("Motion [Roll] (deg)", r)
        put("Motion [Pitch] (deg)", p)
        put("Motion [Steering] (deg)", sw)
        put("Motion [Completion Percentage] (%)", pct)
        if held:
            loads = {c: (np.array(v[:3]), np.array(v[3:])) for c, v in HELD_CASE.items()}
        else:
            loads = {c: keyed_load(k, pct) for c, k in FORCE_KEYS.items()}
        for c in CODE.values():
            f, m = loads[c]
            for k, comp in enumerate(("Fx", "Fy", "Fz")):
                put(f"Contact Patch - {comp} [{WORDS[c]}] (N)", float(f[k]))
            for k, comp in enumerate(("Mx", "My", "Mz")):
                put(f"Contact Patch - {comp} [{WORDS[c]}] (N m)", float(m[k]))
        force_channels(ref, fslv, place, sw, pts, loads, cp_design, put)
    print(f"solved {n} force steps in {time.perf_counter() - t0:.1f} s")
    what = "held case (HELD_CASE)" if held else "keyframes (FORCE_KEYS)"
    title = [
        ("Name", f"SolveSpace reference car - force result, {what}"),
        ("Type", "Result"),
        (
            "Version",
            "2.3.0 layout - NOT from OptimumK: SolveSpace (slvs) points, forces by virtual "
            "work in validation/optimumk_slvs/make_reference.py",
        ),
    ]
    okfiles.write_result(out, title, cols)
    print(f"wrote {out}: {n} steps, {len(cols)} columns")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "export.xlsx")
    ap.add_argument(
        "--out-unsteered",
        type=Path,
        default=HERE / "export_unsteered.xlsx",
        help="the same motion without steering",
    )
    ap.add_argument("--no-inputs", action="store_true", help="do not rewrite the input files")
    ap.add_argument(
        "--forces-only", action="store_true", help="write only the force results and keyframes"
    )
    a = ap.parse_args()
    if not a.forces_only:
        run(a.out, write_files=not a.no_inputs)
        run(a.out_unsteered, write_files=False, steering=False)
    print(f"wrote {write_keyframes(HERE / 'force_keys.csv')}")
    run_forces(HERE / "export_forces.xlsx")
    run_forces(HERE / "export_forces_held.xlsx", held=True)


if __name__ == "__main__":
    main()
