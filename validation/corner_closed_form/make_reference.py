"""Closed-form reference: a front-left double wishbone corner solved by hand.

Provenance: nothing here calls suspension_sim or a numerical constraint
solver. For a lower-wishbone angle theta the corner follows in closed form:

* LBJ and the damper's moving eye rotate about the lower wishbone's pivot
  axis (Rodrigues); the damper is direct-acting (chassis -> lower wishbone),
  so damper length <-> theta is ``K + P cos(theta) + Q sin(theta) = L^2``,
  inverted with atan2/acos;
* UBJ is where the upper wishbone's circle meets the sphere of radius
  |UBJ - LBJ| about LBJ (again ``A cos(phi) + B sin(phi) = C``);
* TIE_O is the intersection of three spheres (about UBJ, LBJ and the rack's
  inner tie-rod point), by trilateration;
* the wheel centre and axis point follow the upright's frame from UBJ, LBJ,
  TIE_O.

The motion holds the tyre on the ground: for each chassis heave/roll and rack
travel, theta is the root of "contact-point height = 0", a smooth scalar
function found with scipy's brentq to 1e-14 rad (the only iteration here).
Channels come from validation/refkit.py (formulas of docs/conventions.md written
separately from suspension_sim.metrics), in the OptimumK layout and signs.

Writes corner.xlsx (the workbook, with openpyxl) and export.csv beside this
script. Run: python validation/corner_closed_form/make_reference.py
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import refkit  # noqa: E402

RADIUS = 228.6  # tyre radius, mm (an 18 in tyre)
STATIC_CAMBER = -1.0  # deg
STATIC_TOE_IN = -0.25  # deg (toe-out 0.25 deg)
ARM = 50.0  # wheel centre -> axis point, mm


def _design_points() -> dict[str, np.ndarray]:
    """A plausible FSAE front-left corner (mm, ISO 8855), direct-acting damper on the LCA."""
    cam, toe = math.radians(STATIC_CAMBER), math.radians(STATIC_TOE_IN)
    # s (outboard spin axis) with camber = -asin(s.z) and toe-in = atan2(s.x, |s.y|)
    s = np.array([math.tan(toe) * math.cos(cam), math.cos(cam), -math.sin(cam)])
    s /= np.linalg.norm(s)
    wc = np.array([0.0, 610.0, RADIUS * math.sqrt(1.0 - s[2] ** 2)])  # tyre touches z = 0
    pts = {
        "LCA_F": (150.0, 215.0, 105.0),
        "LCA_R": (-160.0, 225.0, 112.0),
        "LBJ": (3.0, 575.0, 118.0),
        "UCA_F": (130.0, 270.0, 275.0),
        "UCA_R": (-140.0, 278.0, 268.0),
        "UBJ": (-12.0, 552.0, 330.0),
        "TIE_I": (62.0, 235.0, 160.0),
        "RACK_R": (62.0, -235.0, 160.0),
        "TIE_O": (68.0, 566.0, 172.0),
        "DMP_C": (-20.0, 300.0, 520.0),
        "DMP_M": (-15.0, 470.0, 125.0),
    }
    out = {k: np.array(v, dtype=float) for k, v in pts.items()}
    out["WC"] = wc
    out["WA"] = wc - ARM * s  # axis point inboard of the centre
    return out


P0 = _design_points()
BODIES = {
    "Chassis": ["LCA_F", "LCA_R", "UCA_F", "UCA_R", "DMP_C"],
    "LCA": ["LCA_F", "LCA_R", "LBJ", "DMP_M"],
    "UCA": ["UCA_F", "UCA_R", "UBJ"],
    "Upright": ["UBJ", "LBJ", "TIE_O", "WC", "WA"],
    "TieRod": ["TIE_I", "TIE_O"],
    "Rack": ["TIE_I", "RACK_R"],
    "Damper": ["DMP_C", "DMP_M"],
}


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def rotate(p: np.ndarray, o: np.ndarray, u: np.ndarray, th: float) -> np.ndarray:
    """Rodrigues: p rotated by th (rad) about the axis through o along unit u."""
    v = p - o
    return o + v * math.cos(th) + np.cross(u, v) * math.sin(th) + u * (u @ v) * (1 - math.cos(th))


def _circle(
    p: np.ndarray, o: np.ndarray, u: np.ndarray
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Centre, radius and in-plane unit vectors (e1 toward p) of p's circle about the axis."""
    centre = o + u * (u @ (p - o))
    r = float(np.linalg.norm(p - centre))
    e1 = (p - centre) / r
    return centre, r, e1, np.cross(u, e1)


def _solve_trig(a: float, b: float, c: float, near: float) -> float:
    """The root of a cos(x) + b sin(x) = c nearest `near`."""
    rho = math.hypot(a, b)
    base = math.atan2(b, a)
    delta = math.acos(max(-1.0, min(1.0, c / rho)))
    roots = [base + delta, base - delta]
    roots = [math.remainder(r - near, 2 * math.pi) + near for r in roots]
    return min(roots, key=lambda r: abs(r - near))


U_LCA = _unit(P0["LCA_R"] - P0["LCA_F"])
U_UCA = _unit(P0["UCA_R"] - P0["UCA_F"])
RACK_DIR = _unit(P0["RACK_R"] - P0["TIE_I"])
RACK_DIR = RACK_DIR if RACK_DIR[1] > 0 else -RACK_DIR
L_KP = float(np.linalg.norm(P0["UBJ"] - P0["LBJ"]))
L_TIE = float(np.linalg.norm(P0["TIE_O"] - P0["TIE_I"]))
R_TU = float(np.linalg.norm(P0["TIE_O"] - P0["UBJ"]))
R_TL = float(np.linalg.norm(P0["TIE_O"] - P0["LBJ"]))
DAMPER_DESIGN = float(np.linalg.norm(P0["DMP_M"] - P0["DMP_C"]))
TIE_SIDE = float(
    np.sign(np.cross(P0["LBJ"] - P0["UBJ"], P0["TIE_I"] - P0["UBJ"]) @ (P0["TIE_O"] - P0["UBJ"]))
)


def damper_length(theta: float) -> float:
    return float(np.linalg.norm(rotate(P0["DMP_M"], P0["LCA_F"], U_LCA, theta) - P0["DMP_C"]))


def theta_of_length(length: float) -> float:
    """Closed-form inverse of damper_length near design."""
    c, r, e1, e2 = _circle(P0["DMP_M"], P0["LCA_F"], U_LCA)
    w = c - P0["DMP_C"]
    # |c + r(e1 cos + e2 sin) - DC|^2 = L^2
    return _solve_trig(2 * r * (w @ e1), 2 * r * (w @ e2), length**2 - w @ w - r * r, 0.0)


def _trilaterate(
    p1: np.ndarray, r1: float, p2: np.ndarray, r2: float, p3: np.ndarray, r3: float, side: float
) -> np.ndarray:
    """The intersection of three spheres; `side` (+1/-1) picks the solution along
    +-(p2 - p1) x (p3 - p1)."""
    ex = _unit(p2 - p1)
    i = ex @ (p3 - p1)
    ey = _unit(p3 - p1 - i * ex)
    ez = np.cross(ex, ey)
    d = float(np.linalg.norm(p2 - p1))
    j = ey @ (p3 - p1)
    x = (r1**2 - r2**2 + d**2) / (2 * d)
    y = (r1**2 - r3**2 + i**2 + j**2) / (2 * j) - i * x / j
    z = math.sqrt(max(r1**2 - x**2 - y**2, 0.0))
    return p1 + x * ex + y * ey + side * z * ez


def _frame(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    x = _unit(b - a)
    z = _unit(np.cross(x, c - a))
    return np.column_stack([x, np.cross(z, x), z])


def corner(theta: float, rack: float) -> dict[str, np.ndarray]:
    """Every point (chassis frame, mm) for a lower-wishbone angle (rad) and rack travel (mm)."""
    p = {k: v.copy() for k, v in P0.items()}
    p["LBJ"] = rotate(P0["LBJ"], P0["LCA_F"], U_LCA, theta)
    p["DMP_M"] = rotate(P0["DMP_M"], P0["LCA_F"], U_LCA, theta)
    c, r, e1, e2 = _circle(P0["UBJ"], P0["UCA_F"], U_UCA)
    w = c - p["LBJ"]
    phi = _solve_trig(2 * r * (w @ e1), 2 * r * (w @ e2), L_KP**2 - w @ w - r * r, 0.0)
    p["UBJ"] = c + r * (e1 * math.cos(phi) + e2 * math.sin(phi))
    p["TIE_I"] = P0["TIE_I"] + rack * RACK_DIR
    p["RACK_R"] = P0["RACK_R"] + rack * RACK_DIR
    tie = _trilaterate(p["UBJ"], R_TU, p["LBJ"], R_TL, p["TIE_I"], L_TIE, TIE_SIDE)
    p["TIE_O"] = tie
    F0 = _frame(P0["UBJ"], P0["LBJ"], P0["TIE_O"])
    F = _frame(p["UBJ"], p["LBJ"], p["TIE_O"])
    for name in ("WC", "WA"):
        p[name] = p["UBJ"] + F @ F0.T @ (P0[name] - P0["UBJ"])
    return p


CAR = refkit.RefCar(
    "closed-form corner",
    P0,
    BODIES,
    [refkit.RefWheel("FL", "Upright", "WC", "WA", RADIUS, ("LBJ", "UBJ"))],
    [("Damper", "DMP_C", "DMP_M")],
    ("Rack", "TIE_I", "RACK_R"),
)


def on_ground(pose: refkit.ChassisPose, rack: float, near: float) -> float:
    """Lower-wishbone angle (rad) that puts the tyre's lowest point on z = 0."""

    def height(theta: float) -> float:
        pts = {k: pose.to_world(v) for k, v in corner(theta, rack).items()}
        return refkit.contact_heights(CAR, pts)["FL"]

    lo, hi = near - 0.05, near + 0.05
    while height(lo) * height(hi) > 0:
        lo, hi = lo - 0.05, hi + 0.05
    return brentq(height, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=200)


def motion() -> list[tuple[float, float, float]]:
    """(heave mm, roll deg, rack mm) per step: heave sweep, steer sweep, roll, combined."""
    steps = [(h, 0.0, 0.0) for h in np.linspace(-30.0, 30.0, 13)]
    steps += [(0.0, 0.0, r) for r in np.linspace(-12.0, 12.0, 9)]
    steps += [(0.0, a, 0.0) for a in np.linspace(-2.0, 2.0, 5)]
    t = np.linspace(0.0, 1.0, 13)
    steps += [
        (
            -20.0 * math.sin(math.pi * x),
            1.5 * math.sin(2 * math.pi * x),
            10.0 * math.sin(3 * math.pi * x),
        )
        for x in t
    ]
    return [(float(h), float(a), float(r)) for h, a, r in steps]


def write_workbook(path: Path) -> None:
    """The corner as a car workbook (docs/workbook.md), written with openpyxl alone."""
    import openpyxl

    wb = openpyxl.Workbook()
    ix = wb.active
    ix.title = "Index"
    sections = {
        "User Options": "'User Options'!A1:B4",
        "Components": f"Components!A1:F{len(BODIES) + 1}",
        "Hard Points": f"'Hard Points'!A1:D{len(P0) + 1}",
        "Wheels": "Wheels!A1:H2",
        "Steering": "Steering!A1:D2",
        "Damping": "Damping!A1:E2",
    }
    ix.append(["Section", "Range"])
    for k, v in sections.items():
        ix.append([k, v])
    ix["D1"] = "Made by validation/corner_closed_form/make_reference.py (closed-form reference)."
    ws = wb.create_sheet("User Options")
    for row in (
        ["Option", "Value"],
        ["Car name", "closed-form corner"],
        ["Length unit", "mm"],
        ["Axis map", "+X +Y +Z"],
    ):
        ws.append(row)
    ws = wb.create_sheet("Components")
    ws.append(["Body", "Points"])
    for body, pts in BODIES.items():
        ws.append([body, *pts])
    ws = wb.create_sheet("Hard Points")
    ws.append(["Point", "X", "Y", "Z"])
    for name, xyz in P0.items():
        ws.append([name, *(round(float(v), 12) for v in xyz)])
    ws = wb.create_sheet("Wheels")
    ws.append(
        [
            "Wheel",
            "Body",
            "Centre point",
            "Axis point",
            "Tyre radius",
            "Tyre width",
            "Kingpin lower",
            "Kingpin upper",
        ]
    )
    ws.append(["FL", "Upright", "WC", "WA", RADIUS, 180.0, "LBJ", "UBJ"])
    ws = wb.create_sheet("Steering")
    ws.append(["Rack body", "End point 1", "End point 2", "Steering ratio"])
    ws.append(["Rack", "TIE_I", "RACK_R", None])
    ws = wb.create_sheet("Damping")
    ws.append(["Damper body", "Chassis point", "Moving point", "Min length", "Max length"])
    ws.append(["Damper", "DMP_C", "DMP_M", None, None])
    wb.save(path)


def main() -> None:
    # The workbook stores rounded coordinates: use exactly what it holds.
    write_workbook(HERE / "corner.xlsx")
    car = refkit.read_workbook(HERE / "corner.xlsx")
    for k in P0:
        assert np.allclose(car.points[k], P0[k], atol=1e-9), k
    rows = []
    theta = 0.0
    design = refkit.wheel_channels(CAR, corner(0.0, 0.0), refkit.ChassisPose())["FL"]
    for h, a, r in motion():
        pose = refkit.ChassisPose(heave=h, roll=a)
        theta = on_ground(pose, r, theta)
        pts = {k: pose.to_world(v) for k, v in corner(theta, r).items()}
        ch = refkit.wheel_channels(CAR, pts, pose, {"FL": design["Toe Angle"]})["FL"]
        ch["Damper Length"] = damper_length(theta)
        # self-checks: the inverse closes, the tyre touches, the links keep their lengths
        assert abs(theta_of_length(ch["Damper Length"]) - theta) < 1e-12
        assert abs(refkit.contact_heights(CAR, pts)["FL"]) < 1e-9
        assert abs(np.linalg.norm(pts["TIE_O"] - pts["TIE_I"]) - L_TIE) < 1e-9
        assert abs(np.linalg.norm(pts["UBJ"] - pts["LBJ"]) - L_KP) < 1e-9
        rows.append((h, a, r, ch))
    units = {
        "Damper Length": "mm",
        "Scrub Radius": "mm",
        "Mechanical Trail": "mm",
        "Spindle Length": "mm",
        "Half Track": "mm",
        "Wheel Travel": "mm",
    }
    quantities = [
        "Camber Angle",
        "Toe Angle",
        "Steer Angle",
        "Caster Angle",
        "Kingpin Angle",
        "Scrub Radius",
        "Mechanical Trail",
        "Spindle Length",
        "Half Track",
        "Wheel Travel",
        "Damper Length",
    ]
    channels = {
        f"{q} Front Left [{units.get(q, 'deg')}]": [row[3][q] for row in rows] for q in quantities
    }
    motion_cols = {
        "Heave [mm]": [row[0] for row in rows],
        "Roll [deg]": [row[1] for row in rows],
        "Rack Travel [mm]": [row[2] for row in rows],
    }
    refkit.write_export(
        HERE / "export.csv",
        motion_cols,
        channels,
        comments=[
            "Reference export in the OptimumK layout - NOT from OptimumK.",
            "Closed-form double wishbone corner: see make_reference.py beside this file.",
            "Signs: OptimumK preset (toe + = toe-out). Units in the headers.",
        ],
    )
    print(f"wrote {HERE / 'export.csv'} ({len(rows)} steps) and {HERE / 'corner.xlsx'}")


if __name__ == "__main__":
    main()
