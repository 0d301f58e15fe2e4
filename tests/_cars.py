"""Small cars built directly as descriptions (no workbook), for solver tests.

Coordinates in mm, model frame (ISO 8855). The double-wishbone corner is a
plausible FSAE front-left corner with pushrod, rocker, damper, rack and tie rod.
"""

from __future__ import annotations

from suspension_sim.description import Body, Car, Damper, Options, Point, Rack, Wheel

CORNER_POINTS: dict[str, tuple[float, float, float]] = {
    "LCA_F": (120.0, 200.0, 130.0),
    "LCA_R": (-120.0, 210.0, 140.0),
    "LBJ": (5.0, 560.0, 130.0),
    "UCA_F": (110.0, 260.0, 300.0),
    "UCA_R": (-110.0, 265.0, 295.0),
    "UBJ": (-10.0, 540.0, 380.0),
    "TIE_I": (60.0, 220.0, 200.0),
    "RACK_R": (60.0, -220.0, 200.0),
    "TIE_O": (70.0, 555.0, 210.0),
    "WC": (0.0, 600.0, 260.0),
    "WA": (0.0, 550.0, 260.0),
    "PR_O": (0.0, 520.0, 150.0),
    "PR_I": (0.0, 260.0, 440.0),
    "RK_P1": (30.0, 200.0, 400.0),
    "RK_P2": (-30.0, 200.0, 400.0),
    "DMP_M": (0.0, 170.0, 460.0),
    "DMP_C": (0.0, -20.0, 400.0),
}

CORNER_BODIES: dict[str, tuple[str, ...]] = {
    "Chassis": ("LCA_F", "LCA_R", "UCA_F", "UCA_R", "RK_P1", "RK_P2", "DMP_C"),
    "LCA": ("LCA_F", "LCA_R", "LBJ", "PR_O"),
    "UCA": ("UCA_F", "UCA_R", "UBJ"),
    "Upright": ("UBJ", "LBJ", "TIE_O", "WC", "WA"),
    "Pushrod": ("PR_O", "PR_I"),
    "Rocker": ("RK_P1", "RK_P2", "PR_I", "DMP_M"),
    "Damper": ("DMP_C", "DMP_M"),
    "TieRod": ("TIE_I", "TIE_O"),
    "Rack": ("TIE_I", "RACK_R"),
}


def double_wishbone_corner(
    points: dict[str, tuple[float, float, float]] | None = None,
    options: Options | None = None,
) -> Car:
    """A front-left double wishbone corner (pushrod, rocker, damper, rack, tie rod)."""
    pts = dict(CORNER_POINTS)
    pts.update(points or {})
    return Car(
        name="test corner",
        options=options or Options(),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=tuple(Body(n, p) for n, p in CORNER_BODIES.items()),
        wheels=(Wheel("FL", "Upright", "WC", "WA", 260.0, 180.0, "LBJ", "UBJ"),),
        rack=Rack("Rack", ("TIE_I", "RACK_R")),
        dampers=(Damper("Damper", "DMP_C", "DMP_M", 150.0, 250.0),),
    )


def four_corner_car() -> Car:
    """Four copies of the test corner (front pair steered by one rack, rear pair
    with the tie rod inner point on the chassis), mirror-symmetric in Y."""
    pts: dict[str, tuple[float, float, float]] = {}
    bodies: dict[str, list[str]] = {"Chassis": []}
    wheels: list[Wheel] = []
    dampers: list[Damper] = []
    for corner, dx, sy in (
        ("FL", 0.0, 1),
        ("FR", 0.0, -1),
        ("RL", -1530.0, 1),
        ("RR", -1530.0, -1),
    ):
        front = corner[0] == "F"
        for n, (x, y, z) in CORNER_POINTS.items():
            if n == "RACK_R":
                continue
            name = f"{corner}_{n}"
            pts[name] = (x + dx, sy * y, z)
        for b, members in CORNER_BODIES.items():
            if b == "Rack":
                continue
            names = [f"{corner}_{p}" for p in members]
            if b == "Chassis":
                bodies["Chassis"] += names
                if not front:
                    bodies["Chassis"].append(f"{corner}_TIE_I")
                continue
            bodies[f"{corner}_{b}"] = names
        wheels.append(
            Wheel(
                corner,
                f"{corner}_Upright",
                f"{corner}_WC",
                f"{corner}_WA",
                260.0,
                180.0,
                f"{corner}_LBJ",
                f"{corner}_UBJ",
            )
        )
        dampers.append(
            Damper(f"{corner}_Damper", f"{corner}_DMP_C", f"{corner}_DMP_M", 150.0, 250.0)
        )
    bodies["Rack"] = ["FL_TIE_I", "FR_TIE_I"]
    return Car(
        name="four test corners",
        options=Options(),
        points=tuple(Point(n, xyz) for n, xyz in pts.items()),
        bodies=tuple(Body(n, tuple(p)) for n, p in bodies.items()),
        wheels=tuple(wheels),
        rack=Rack("Rack", ("FL_TIE_I", "FR_TIE_I")),
        dampers=tuple(dampers),
    )
