"""Cars with hand-checkable geometry for the metric tests (mm, model frame).

* `fixed_wheel_car`: one wheel on a hub fixed to the chassis, its spin axis
  and kingpin points placed by explicit rotations (no joints move).
* `wishbone_car`: mirror-symmetric double-wishbone corners whose chassis
  pivot axes are all parallel to X, so the front view is a planar linkage
  with a textbook instant centre. The tie rod is aimed at that instant
  centre (zero bump steer at design), which makes the carrier's
  instantaneous motion a pure rotation about the line through the FVIC
  parallel to X. `incline_deg` then rotates a whole axle's corners about the
  Y axis through the wheel centre: the wheels are unchanged (their spin
  axis is Y) while every pivot axis tilts by that angle in side view, so
  the SVIC is at infinity along the tilted direction.
"""

from __future__ import annotations

import numpy as np

from suspension_sim.description import Body, Car, Damper, Options, Point, Wheel

WHEEL_CENTRE = (0.0, 600.0, 260.0)
TYRE_RADIUS = 260.0

TYPICAL_ARMS: dict[str, tuple[float, float, float]] = {
    # Front view: lower arm (200,120) -> (560,130), upper arm (250,300) -> (540,330).
    "LCA_F": (100.0, 200.0, 120.0),
    "LCA_R": (-100.0, 200.0, 120.0),
    "LBJ": (0.0, 560.0, 130.0),
    "UCA_F": (100.0, 250.0, 300.0),
    "UCA_R": (-100.0, 250.0, 300.0),
    "UBJ": (0.0, 540.0, 330.0),
    "TIE_O": (70.0, 555.0, 200.0),
}

PARALLEL_ARMS: dict[str, tuple[float, float, float]] = {
    # Horizontal, parallel, equal (360 mm) arms and tie rod: a parallelogram.
    "LCA_F": (100.0, 200.0, 120.0),
    "LCA_R": (-100.0, 200.0, 120.0),
    "LBJ": (0.0, 560.0, 120.0),
    "UCA_F": (100.0, 180.0, 320.0),
    "UCA_R": (-100.0, 180.0, 320.0),
    "UBJ": (0.0, 540.0, 320.0),
    "TIE_O": (70.0, 550.0, 220.0),
    "TIE_I": (70.0, 190.0, 220.0),
}


def front_view_ic(arms: dict[str, tuple[float, float, float]]) -> np.ndarray:
    """Textbook FVIC (y, z) of a left corner: where the two arm lines cross in front view."""
    a0, a1 = np.array(arms["LCA_F"])[1:], np.array(arms["LBJ"])[1:]
    b0, b1 = np.array(arms["UCA_F"])[1:], np.array(arms["UBJ"])[1:]
    # a0 + s (a1 - a0) = b0 + t (b1 - b0)
    s, _t = np.linalg.solve(np.column_stack([a1 - a0, b0 - b1]), b0 - a0)
    return a0 + s * (a1 - a0)


def _corner_points(arms: dict[str, tuple[float, float, float]]) -> dict[str, np.ndarray]:
    pts = {k: np.array(v, dtype=float) for k, v in arms.items()}
    pts["WC"] = np.array(WHEEL_CENTRE)
    pts["WA"] = pts["WC"] + (0.0, 50.0, 0.0)
    if "TIE_I" not in pts:  # on the line TIE_O -> FVIC (front view), at y = 200
        ic = front_view_ic(arms)
        o = pts["TIE_O"]
        s = (200.0 - o[1]) / (ic[0] - o[1])
        pts["TIE_I"] = np.array([o[0], 200.0, o[2] + s * (ic[1] - o[2])])
    pts["DMP_M"] = np.array([0.0, 480.0, 150.0])
    pts["DMP_C"] = np.array([0.0, 150.0, 450.0])
    return pts


CORNER_BODIES: dict[str, tuple[str, ...]] = {
    "LCA": ("LCA_F", "LCA_R", "LBJ", "DMP_M"),
    "UCA": ("UCA_F", "UCA_R", "UBJ"),
    "Upright": ("UBJ", "LBJ", "TIE_O", "WC", "WA"),
    "TieRod": ("TIE_I", "TIE_O"),
    "Damper": ("DMP_C", "DMP_M"),
}
CHASSIS_POINTS = ("LCA_F", "LCA_R", "UCA_F", "UCA_R", "TIE_I", "DMP_C")


def rotation_y(angle_deg: float) -> np.ndarray:
    """Rotation about +Y: takes +X to (cos a, 0, -sin a)."""
    a = np.radians(angle_deg)
    return np.array([[np.cos(a), 0.0, np.sin(a)], [0.0, 1.0, 0.0], [-np.sin(a), 0.0, np.cos(a)]])


def wishbone_car(
    corners: tuple[str, ...] = ("FL", "FR"),
    arms: dict[str, tuple[float, float, float]] | None = None,
    incline_deg: dict[str, float] | None = None,
    wheelbase: float = 1530.0,
    options: Options | None = None,
) -> Car:
    """Mirror-symmetric double-wishbone corners (no rack: tie rods end on the chassis).

    corners: names from FL, FR, RL, RR; rear corners sit `wheelbase` mm behind.
    incline_deg: per axle letter ("F"/"R"), the side-view tilt of that axle's
    pivot axes (rotation about Y through the wheel centre; + = axes rise
    toward the rear).
    """
    base = _corner_points(arms or TYPICAL_ARMS)
    incline = incline_deg or {}
    pts: dict[str, tuple[float, float, float]] = {}
    bodies: dict[str, list[str]] = {"Chassis": []}
    wheels: list[Wheel] = []
    dampers: list[Damper] = []
    pivot = np.array([0.0, 0.0, WHEEL_CENTRE[2]])
    for corner in corners:
        dx = 0.0 if corner[0] == "F" else -wheelbase
        sy = 1.0 if corner[1] == "L" else -1.0
        R = rotation_y(incline.get(corner[0], 0.0))
        for name, p in base.items():
            q = R @ (p - pivot) + pivot
            pts[f"{corner}_{name}"] = (float(q[0] + dx), float(sy * q[1]), float(q[2]))
        bodies["Chassis"] += [f"{corner}_{p}" for p in CHASSIS_POINTS]
        for b, members in CORNER_BODIES.items():
            bodies[f"{corner}_{b}"] = [f"{corner}_{p}" for p in members]
        wheels.append(
            Wheel(
                corner,
                f"{corner}_Upright",
                f"{corner}_WC",
                f"{corner}_WA",
                TYRE_RADIUS,
                180.0,
                f"{corner}_LBJ",
                f"{corner}_UBJ",
            )
        )
        dampers.append(Damper(f"{corner}_Damper", f"{corner}_DMP_C", f"{corner}_DMP_M"))
    return Car(
        name="wishbone test car",
        options=options or Options(cg_height_mm=300.0, wheelbase_mm=wheelbase),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=tuple(Body(n, tuple(p)) for n, p in bodies.items()),
        wheels=tuple(wheels),
        dampers=tuple(dampers),
    )


def fixed_wheel_car(
    centre: np.ndarray,
    spin: np.ndarray,
    kingpin: tuple[np.ndarray, np.ndarray] | None = None,
    name: str = "FL",
    radius: float = TYRE_RADIUS,
    options: Options | None = None,
) -> Car:
    """One wheel on a hub rigidly fixed to the chassis (three shared chassis points).

    centre: wheel centre; spin: any vector along the spin axis (the axis
    point is centre + 50 spin/|spin|); kingpin: (lower, upper) points.
    """
    spin = np.asarray(spin, dtype=float) / np.linalg.norm(spin)
    pts: dict[str, np.ndarray] = {
        "H1": np.array([100.0, 300.0, 100.0]),
        "H2": np.array([-100.0, 300.0, 100.0]),
        "H3": np.array([0.0, 300.0, 400.0]),
        "WC": np.asarray(centre, dtype=float),
        "WA": np.asarray(centre, dtype=float) + 50.0 * spin,
    }
    hub = ["H1", "H2", "H3", "WC", "WA"]
    kp: tuple[str | None, str | None] = (None, None)
    if kingpin is not None:
        pts["KL"], pts["KU"] = (np.asarray(p, dtype=float) for p in kingpin)
        hub += ["KL", "KU"]
        kp = ("KL", "KU")
    return Car(
        name="fixed wheel",
        options=options or Options(),
        points=tuple(Point(n, tuple(float(c) for c in p)) for n, p in pts.items()),
        bodies=(Body("Chassis", ("H1", "H2", "H3")), Body("Hub", tuple(hub))),
        wheels=(Wheel(name, "Hub", "WC", "WA", radius, 180.0, kp[0], kp[1]),),
    )


TRAILING_PIVOTS: tuple[tuple[float, float, float], tuple[float, float, float]] = (
    # Left corner, relative to a corner origin below the wheel centre's x: a pure
    # trailing arm, pivot axis along Y 400 mm ahead of and 70 mm above C.
    (400.0, 350.0, 330.0),
    (400.0, 500.0, 330.0),
)


def trailing_arm_car(
    corners: tuple[str, ...] = ("FL", "FR", "RL", "RR"),
    pivots: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] | None = None,
    wheelbase: float = 1530.0,
    options: Options | None = None,
) -> Car:
    """Mirror-symmetric trailing-arm corners: one arm per wheel hinged to the chassis.

    Each arm carries the wheel (centre (0, 600, 260) of its corner, spin axis
    along Y) and turns about the fixed line through its two pivots, so the
    carrier's motion is a pure rotation about that line (no pitch): every
    instant centre is where the pivot line meets the plane, and the screw-axis
    and in-plane centres coincide. pivots: per axle letter ("F"/"R") the two
    pivot points of the left corner (default `TRAILING_PIVOTS`); a yawed or
    tilted line makes a semi-trailing arm. Rear corners sit `wheelbase` mm
    behind the front ones.
    """
    piv = pivots or {}
    pts: dict[str, tuple[float, float, float]] = {}
    bodies: dict[str, list[str]] = {"Chassis": []}
    wheels: list[Wheel] = []
    dampers: list[Damper] = []
    for corner in corners:
        dx = 0.0 if corner[0] == "F" else -wheelbase
        sy = 1.0 if corner[1] == "L" else -1.0
        a, b = piv.get(corner[0], TRAILING_PIVOTS)
        local = {
            "PA": a,
            "PB": b,
            "WC": WHEEL_CENTRE,
            "WA": (0.0, 650.0, 260.0),
            "DMP_M": (150.0, 560.0, 300.0),
            "DMP_C": (150.0, 520.0, 620.0),
        }
        for name, p in local.items():
            pts[f"{corner}_{name}"] = (p[0] + dx, sy * p[1], p[2])
        bodies["Chassis"] += [f"{corner}_PA", f"{corner}_PB", f"{corner}_DMP_C"]
        bodies[f"{corner}_Arm"] = [f"{corner}_{p}" for p in ("PA", "PB", "WC", "WA", "DMP_M")]
        bodies[f"{corner}_Damper"] = [f"{corner}_DMP_C", f"{corner}_DMP_M"]
        wheels.append(
            Wheel(corner, f"{corner}_Arm", f"{corner}_WC", f"{corner}_WA", TYRE_RADIUS, 180.0)
        )
        dampers.append(Damper(f"{corner}_Damper", f"{corner}_DMP_C", f"{corner}_DMP_M"))
    return Car(
        name="trailing arm test car",
        options=options or Options(cg_height_mm=300.0, wheelbase_mm=wheelbase),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=tuple(Body(n, tuple(p)) for n, p in bodies.items()),
        wheels=tuple(wheels),
        dampers=tuple(dampers),
    )


AXLE_X = -1530.0
PANHARD_X = -1610.0


def solid_axle_car(
    link_rise: float = 0.0,
    panhard: tuple[tuple[float, float], tuple[float, float]] = ((-420.0, 300.0), (400.0, 300.0)),
    options: Options | None = None,
) -> Car:
    """A rigid rear axle (RL and RR on one body) on four parallel links and a Panhard rod.

    The links run along X from the axle (x = -1530, y = +-430, z = 130 and
    370) 560 mm forward to the chassis, whose ends are `link_rise` mm higher:
    all four are parallel, inclined by atan(link_rise / 560) in side view
    (rising toward the front). The Panhard rod (x = -1610) goes from the
    chassis at (y, z) = panhard[0] to the axle at panhard[1]. Wheel centres
    (-1530, +-590, 260), tyre radius 260, wheelbase 1530 mm.
    """
    pts: dict[str, tuple[float, float, float]] = {}
    bodies: dict[str, list[str]] = {"Chassis": [], "Axle": []}
    wheels: list[Wheel] = []
    dampers: list[Damper] = []
    for corner, sy in (("RL", 1.0), ("RR", -1.0)):
        local = {
            "LL_C": (-970.0, 430.0, 130.0 + link_rise),
            "LL_A": (AXLE_X, 430.0, 130.0),
            "UL_C": (-970.0, 430.0, 370.0 + link_rise),
            "UL_A": (AXLE_X, 430.0, 370.0),
            "DMP_C": (-1570.0, 460.0, 540.0),
            "DMP_A": (-1570.0, 500.0, 215.0),
            "WC": (AXLE_X, 590.0, 260.0),
            "WA": (AXLE_X, 540.0, 260.0),
        }
        for name, p in local.items():
            pts[f"{corner}_{name}"] = (p[0], sy * p[1], p[2])
        bodies["Chassis"] += [f"{corner}_{p}" for p in ("LL_C", "UL_C", "DMP_C")]
        bodies["Axle"] += [f"{corner}_{p}" for p in ("WC", "WA", "LL_A", "UL_A", "DMP_A")]
        bodies[f"{corner}_LowerLink"] = [f"{corner}_LL_C", f"{corner}_LL_A"]
        bodies[f"{corner}_UpperLink"] = [f"{corner}_UL_C", f"{corner}_UL_A"]
        bodies[f"{corner}_Damper"] = [f"{corner}_DMP_C", f"{corner}_DMP_A"]
        wheels.append(Wheel(corner, "Axle", f"{corner}_WC", f"{corner}_WA", TYRE_RADIUS, 178.0))
        dampers.append(Damper(f"{corner}_Damper", f"{corner}_DMP_C", f"{corner}_DMP_A"))
    (yc, zc), (ya, za) = panhard
    pts["PH_C"], pts["PH_A"] = (PANHARD_X, yc, zc), (PANHARD_X, ya, za)
    bodies["Chassis"].append("PH_C")
    bodies["Axle"].append("PH_A")
    bodies["Panhard"] = ["PH_C", "PH_A"]
    return Car(
        name="solid axle test car",
        options=options or Options(cg_height_mm=300.0, wheelbase_mm=1530.0),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=tuple(Body(n, tuple(p)) for n, p in bodies.items()),
        wheels=tuple(wheels),
        dampers=tuple(dampers),
    )
