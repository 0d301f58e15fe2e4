"""Test cars with force elements, built in code from `tests._cars.four_corner_car`.

The four corners are mirror-symmetric in Y. Each rocker turns about an x axis
at (y = +-200, z = 400). Added here:

* a front third spring between two rocker points right above the rocker pivots,
  FL_TS = (0, 200, 450) and FR_TS = (0, -200, 450): in pure roll both rockers turn
  the same way and the spring keeps its length (to first order), in heave they
  turn opposite ways and it is compressed;
* a rear U-bar on the chassis axis through ARB_P1 = (-1630, 100, 300) and
  ARB_P2 = (-1630, -100, 300) (along Y), its arms RL_ARB and RR_ARB reaching
  ARM mm forward to (-1530, +-400, 300), each driven by a vertical drop link to a
  point of the lower wishbone right below, (-1530, +-400, z_LCA).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from suspension_sim.description import AntiRollBar, Body, Car, Point, ThirdSpring
from tests._cars import four_corner_car

ARM = 100.0
"""U-bar arm length, mm."""
BAR_AXIS_X = -1630.0
BAR_Z = 300.0


def _lca_z(car: Car, corner: str, x: float, y: float) -> float:
    """z of the lower wishbone's plane (its three joints) at (x, y)."""
    a, b, c = (car.point(f"{corner}_{p}") for p in ("LCA_F", "LCA_R", "LBJ"))
    n = np.cross(b - a, c - a)
    return float(a[2] - (n[0] * (x - a[0]) + n[1] * (y - a[1])) / n[2])


def element_car(
    third_rate: float | None = 60.0,
    third_preload: float = 150.0,
    bar_rate: float | None = 4.0e5,
    springs: tuple[float, float] = (35.0, 40.0),
    bar_kind: str = "U-bar",
) -> Car:
    """The four-corner car with a front third spring and a rear bar (rates in N/mm
    and N mm/rad; None leaves the element out) and coil springs (front, rear) N/mm.

    bar_kind "T-bar": instead of the U-bar, one lever on the chassis pivot
    ARB_P1 = (-1630, 0, 300), pivot axis along +Y (to ARB_P2 = (-1630, 100, 300)),
    shaft axis along +X to its shaft point TB_S = (-1530, 0, 300), its ends at
    (-1530, +-400, 300) driven by the same drop links."""
    car = four_corner_car()
    points = list(car.points)
    bodies = list(car.bodies)
    chassis = car.body("Chassis")
    third: tuple[ThirdSpring, ...] = ()
    bars: tuple[AntiRollBar, ...] = ()
    if third_rate is not None:
        points += [Point("FL_TS", (0.0, 200.0, 450.0)), Point("FR_TS", (0.0, -200.0, 450.0))]
        bodies = [
            dataclasses.replace(b, points=(*b.points, f"{b.name[:2]}_TS"))
            if b.name in ("FL_Rocker", "FR_Rocker")
            else b
            for b in bodies
        ]
        third = (
            ThirdSpring(
                "Heave", ("FL_TS", "FR_TS"), spring_rate=third_rate, spring_preload=third_preload
            ),
        )
    if bar_rate is not None:
        x_end = BAR_AXIS_X + ARM
        t_bar = bar_kind == "T-bar"
        points += [
            Point("ARB_P1", (BAR_AXIS_X, 0.0 if t_bar else 100.0, BAR_Z)),
            Point("ARB_P2", (BAR_AXIS_X, 100.0 if t_bar else -100.0, BAR_Z)),
        ]
        chassis_points = (*chassis.points, "ARB_P1", "ARB_P2")
        bodies = [
            dataclasses.replace(b, points=chassis_points) if b.name == "Chassis" else b
            for b in bodies
        ]
        for corner, sy in (("RL", 1.0), ("RR", -1.0)):
            y = 400.0 * sy
            z_low = _lca_z(car, corner, x_end, y)
            points += [
                Point(f"{corner}_ARB_E", (x_end, y, BAR_Z)),
                Point(f"{corner}_DL_L", (x_end, y, z_low)),
            ]
            bodies = [
                dataclasses.replace(b, points=(*b.points, f"{corner}_DL_L"))
                if b.name == f"{corner}_LCA"
                else b
                for b in bodies
            ]
            if not t_bar:
                bodies.append(Body(f"{corner}_ARB", ("ARB_P1", "ARB_P2", f"{corner}_ARB_E")))
            bodies.append(Body(f"{corner}_DropLink", (f"{corner}_ARB_E", f"{corner}_DL_L")))
        if t_bar:
            points.append(Point("TB_S", (x_end, 0.0, BAR_Z)))
            bodies.append(Body("Lever", ("TB_S", "RL_ARB_E", "ARB_P1", "RR_ARB_E")))
            bars = (
                AntiRollBar("RearBar", "T-bar", ("Lever",), ("ARB_P1", "ARB_P2"), bar_rate, "TB_S"),
            )
        else:
            bars = (
                AntiRollBar(
                    "RearBar", "U-bar", ("RL_ARB", "RR_ARB"), ("ARB_P1", "ARB_P2"), bar_rate
                ),
            )
    dampers = tuple(
        dataclasses.replace(
            d, spring_rate=springs[0] if d.body[0] == "F" else springs[1], spring_preload=250.0
        )
        for d in car.dampers
    )
    return dataclasses.replace(
        car,
        points=tuple(points),
        bodies=tuple(bodies),
        third_springs=third,
        anti_roll_bars=bars,
        dampers=dampers,
    )
