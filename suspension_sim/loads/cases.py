"""Load cases: per-wheel contact-patch forces and brake/drive torques (docs/loads.md).

A `LoadCase` names, per wheel, the force the ground applies to the tyre at
its contact patch (N) and the brake and drive torques (N m). Forces are given
in the world (ground) frame, ISO 8855 axes (+X forward, +Y left, +Z up), or in
the wheel's own ground axes (`axes="wheel"`: longitudinal along the wheel's
heading, lateral to the wheel's left, vertical up; the ISO tyre axes).

`standard_cases` builds the usual FSAE design cases (braking, acceleration,
cornering, combined, bump) from a few numbers with the simple weight-transfer
formulas of design reports; `car_cases` takes the geometry from a car.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from suspension_sim.description import wheel_layout
from suspension_sim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

G = 9.80665
"""Standard gravity, m/s^2."""

Axes = Literal["world", "wheel"]
AXES: tuple[str, ...] = ("world", "wheel")
Application = Literal["contact", "design"]
APPLICATIONS: tuple[str, ...] = ("contact", "design")
"""Where a wheel's force acts: "contact" = through the contact point of the pose (a point
of the wheel carrier); "design" = along the world-fixed line through the design contact
point (OptimumK's force cases, docs/loads.md)."""


@dataclass(frozen=True)
class WheelLoad:
    """What the ground and the driveline put on one wheel.

    force: (Fx, Fy, Fz) in N, on the tyre at the contact patch, in `axes`
    ("world": ISO 8855 ground axes; "wheel": longitudinal, lateral, vertical
    in the wheel's ground axes). brake_torque: N m, + = braking (opposes
    forward rolling). drive_torque: N m, + = drives the car forward. Whether a
    torque loads the suspension depends on where it is reacted (the workbook's
    Front/Rear brakes and Drive options, docs/loads.md).
    moment: (Mx, My, Mz) in N m, a moment of the ground on the tyre (e.g. the
    aligning moment Mz) in `axes`, applied to the wheel carrier whatever the
    brakes and drive. application: where the force acts, "contact" (the contact
    point of the pose, fixed on the carrier) or "design" (the world-fixed line
    through the design contact point, as OptimumK applies its force cases).
    """

    force: tuple[float, float, float] = (0.0, 0.0, 0.0)
    axes: Axes = "world"
    brake_torque: float = 0.0
    drive_torque: float = 0.0
    moment: tuple[float, float, float] = (0.0, 0.0, 0.0)
    application: Application = "contact"

    def __post_init__(self) -> None:
        if self.axes not in AXES:
            raise InputError(
                f"axes {self.axes!r} is not one of {', '.join(AXES)}",
                hint="world = ISO ground axes; wheel = the wheel's own ground axes",
            )
        if self.application not in APPLICATIONS:
            raise InputError(
                f"application {self.application!r} is not one of {', '.join(APPLICATIONS)}",
                hint="contact = at the pose's contact point; design = along the line through "
                "the design contact point (OptimumK)",
            )
        values = (*self.force, *self.moment, self.brake_torque, self.drive_torque)
        if (
            len(self.force) != 3
            or len(self.moment) != 3
            or not all(math.isfinite(float(v)) for v in values)
        ):
            raise InputError(
                f"a wheel load needs three finite force and moment components and finite "
                f"torques, got force={self.force}, moment={self.moment}, "
                f"brake={self.brake_torque}, drive={self.drive_torque}",
                hint="forces in N, moments and torques in N m",
            )


@dataclass(frozen=True)
class LoadCase:
    """A named load case: wheel name -> `WheelLoad` (wheels not named carry nothing)."""

    name: str
    wheels: Mapping[str, WheelLoad]
    description: str = ""
    where: str | None = field(default=None, compare=False)
    """Where the case was defined (a workbook cell), for error messages."""


@dataclass(frozen=True)
class CarFigures:
    """The numbers the standard cases need (SI-ish units as named)."""

    mass_kg: float
    cg_height_mm: float
    wheelbase_mm: float
    track_mm: float
    tyre_radius_mm: float
    front_weight: float
    front_brake_share: float
    rear_drive_share: float


def standard_cases(
    mass_kg: float,
    cg_height_mm: float,
    wheelbase_mm: float,
    track_mm: float,
    *,
    brake_g: float = 1.5,
    accel_g: float = 1.0,
    lateral_g: float = 1.5,
    bump_g: float = 3.0,
    combined_fraction: float = 0.7,
    front_brake_share: float = 0.65,
    rear_drive_share: float = 1.0,
    front_weight: float = 0.5,
    tyre_radius_mm: float = 260.0,
    wheels: Sequence[str] = ("FL", "FR", "RL", "RR"),
) -> list[LoadCase]:
    """The usual design cases from a few numbers (docs/loads.md, "Standard cases").

    Quasi-static, rigid car, no aero, simple weight transfer: longitudinal
    m a h / L between the axles, lateral m a h / t within each axle in
    proportion to its vertical load; the lateral force of each tyre is its
    vertical load times the lateral g (the same friction use everywhere); the
    longitudinal force is split between the axles by `front_brake_share` or
    `rear_drive_share` (fixed, so the two axles' friction use differs) and
    within an axle by vertical load. A case in which a wheel would lift
    (negative vertical load) is refused (InputError). The brake and
    drive torques are the contact-patch force times the tyre radius. Cases:
    ``braking``, ``acceleration``, ``cornering`` (turning left: the tyres push
    the car toward +Y, load moves to the right wheels), ``combined`` (braking
    and cornering, both at `combined_fraction` of their g), ``bump`` (every
    wheel at `bump_g` times its static load). `wheels` = (front left, front
    right, rear left, rear right). Forces in N, torques in N m.
    """
    positive = (
        ("mass_kg", "the mass (kg)", mass_kg),
        ("cg_height_mm", "the CG height (mm)", cg_height_mm),
        ("wheelbase_mm", "the wheelbase (mm)", wheelbase_mm),
        ("track_mm", "the track (mm)", track_mm),
        ("tyre_radius_mm", "the tyre radius (mm)", tyre_radius_mm),
    )
    for where, what, value in positive:
        if not (math.isfinite(value) and value > 0):
            raise InputError(f"{what} must be a positive number, got {value:g}", where=where)
    for where, what, value in (
        ("front_brake_share", "the front brake share", front_brake_share),
        ("rear_drive_share", "the rear drive share", rear_drive_share),
        ("front_weight", "the front weight share", front_weight),
        ("combined_fraction", "the combined fraction", combined_fraction),
    ):
        if not (0.0 <= value <= 1.0):
            raise InputError(f"{what} must lie in 0..1, got {value:g}", where=where)
    for where, value in (
        ("brake_g", brake_g),
        ("accel_g", accel_g),
        ("lateral_g", lateral_g),
        ("bump_g", bump_g),
    ):
        if not (math.isfinite(value) and 0.0 <= value <= 10.0):
            raise InputError(f"{where} must lie in 0..10 g, got {value:g}", where=where)
    if len(wheels) != 4:
        raise InputError(
            "standard cases need four wheels: front left, front right, rear left, rear right",
            where="wheels",
        )
    fig = CarFigures(
        mass_kg,
        cg_height_mm,
        wheelbase_mm,
        track_mm,
        tyre_radius_mm,
        front_weight,
        front_brake_share,
        rear_drive_share,
    )
    c = combined_fraction
    return [
        _case(fig, wheels, "braking", -brake_g, 0.0, 1.0, f"braking at {brake_g:g} g"),
        _case(fig, wheels, "acceleration", accel_g, 0.0, 1.0, f"accelerating at {accel_g:g} g"),
        _case(fig, wheels, "cornering", 0.0, lateral_g, 1.0, f"left turn at {lateral_g:g} g"),
        _case(
            fig,
            wheels,
            "combined",
            -brake_g * c,
            lateral_g * c,
            1.0,
            f"braking at {brake_g * c:g} g in a left turn at {lateral_g * c:g} g",
        ),
        _case(fig, wheels, "bump", 0.0, 0.0, bump_g, f"{bump_g:g} g bump on every wheel"),
    ]


def _case(
    f: CarFigures,
    wheels: Sequence[str],
    name: str,
    ax_g: float,
    ay_g: float,
    vertical_g: float,
    text: str,
) -> LoadCase:
    """One case: ax_g (+ = accelerating), ay_g (+ = tyres push toward +Y), vertical g."""
    weight = f.mass_kg * G  # N
    static_front = weight * f.front_weight
    static_rear = weight - static_front
    dw_long = weight * ax_g * f.cg_height_mm / f.wheelbase_mm  # moves to the rear when +
    front = vertical_g * static_front - dw_long
    rear = vertical_g * static_rear + dw_long
    # Lateral transfer m a h / t (moves to the right wheels when +), shared by the
    # axles in proportion to their vertical loads.
    dw_lat = weight * ay_g * f.cg_height_mm / f.track_mm
    share_front = front / (front + rear) if front + rear else 0.5
    fz = {
        wheels[0]: 0.5 * front - share_front * dw_lat,
        wheels[1]: 0.5 * front + share_front * dw_lat,
        wheels[2]: 0.5 * rear - (1 - share_front) * dw_lat,
        wheels[3]: 0.5 * rear + (1 - share_front) * dw_lat,
    }
    lifted = [w for w, v in fz.items() if v < 0.0]
    if lifted:
        raise InputError(
            f"{', '.join(lifted)} would lift off the ground (vertical load "
            f"{min(fz.values()):.0f} N) at {ax_g:g} g longitudinal and {ay_g:g} g lateral: "
            "the simple weight transfer of the standard cases no longer holds",
            where="lateral_g" if lifted and abs(ay_g) > 0 else "brake_g",
            hint="lower the g level (or the CG height), or give this case yourself in the"
            " Load Cases section with the loads the tyres can carry",
        )
    # Longitudinal force per axle (brake or drive share), split by vertical load.
    total_x = weight * ax_g
    if ax_g < 0:
        axle_x = (total_x * f.front_brake_share, total_x * (1 - f.front_brake_share))
    else:
        axle_x = (total_x * (1 - f.rear_drive_share), total_x * f.rear_drive_share)
    out: dict[str, WheelLoad] = {}
    for k, wname in enumerate(wheels):
        axle = 0 if k < 2 else 1
        pair = (wheels[0], wheels[1]) if axle == 0 else (wheels[2], wheels[3])
        axle_fz = fz[pair[0]] + fz[pair[1]]
        fx = axle_x[axle] * (fz[wname] / axle_fz if axle_fz > 0 else 0.5)
        fy = weight * ay_g * (fz[wname] / sum(fz.values()) if sum(fz.values()) > 0 else 0.25)
        torque = abs(fx) * f.tyre_radius_mm / 1000.0
        out[wname] = WheelLoad(
            (fx, fy, fz[wname]),
            "wheel",
            brake_torque=torque if fx < 0 else 0.0,
            drive_torque=torque if fx > 0 else 0.0,
        )
    return LoadCase(name, out, text)


def car_cases(
    model: KinematicModel,
    mass_kg: float,
    *,
    front_weight: float = 0.5,
    brake_g: float = 1.5,
    accel_g: float = 1.0,
    lateral_g: float = 1.5,
    bump_g: float = 3.0,
    combined_fraction: float = 0.7,
) -> list[LoadCase]:
    """`standard_cases` with the geometry taken from a four-wheeled car: CG height,
    brake and drive shares from its User Options, the design wheelbase and front
    track as the metrics define them (docs/conventions.md: the Wheelbase option,
    else the mean of the sides; track between the contact points), the mean tyre
    radius and its wheel names."""
    car = model.car
    layout = wheel_layout(car)
    corners = [layout.at(a, s) for a in ("front", "rear") for s in ("left", "right")]
    if any(c is None for c in corners):
        raise InputError(
            "standard load cases need a four-wheeled car (front and rear axles, both sides)",
            hint="define the cases yourself (LoadCase, or the workbook's Load Cases section)",
        )
    names = [str(c) for c in corners]
    from suspension_sim.metrics.geometry import wheel_set

    st = wheel_set(model)
    wheelbase = float(st.design_wheelbase)
    track = float(st.design_track["front"])
    radius = float(sum(w.tyre_radius for w in car.wheels) / len(car.wheels))
    opts = car.options
    return standard_cases(
        mass_kg,
        opts.cg_height_mm,
        wheelbase,
        track,
        brake_g=brake_g,
        accel_g=accel_g,
        lateral_g=lateral_g,
        bump_g=bump_g,
        combined_fraction=combined_fraction,
        front_brake_share=opts.front_brake_share,
        rear_drive_share=opts.rear_drive_share,
        front_weight=front_weight,
        tyre_radius_mm=radius,
        wheels=names,
    )
