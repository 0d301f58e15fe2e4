"""The validated, immutable description of a car, as read from a workbook.

Everything here is already converted: lengths in mm, angles in rad, forces in
N, coordinates in the model frame of docs/conventions.md (ISO 8855: +X forward,
+Y left, +Z up). The workbook's own units and axis map are kept in `Options`
only so that the writer can reproduce the workbook.

`Source` records where each item came from (sheet and cell) so that later
stages (model building, solving) can point the user at the right cell. It
never takes part in equality: a description written and read again compares
equal.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from suspension_sim.errors import WorkbookError
from suspension_sim.tolerances import (
    AXLE_GAP_MM,
    BAR_AXIS_MM,
    SAME_AXLE_X_MM,
)

CHASSIS = "Chassis"
"""Name of the body that is the chassis (the sprung mass)."""

SIGN_CONVENTIONS: tuple[str, ...] = ("iso", "optimumk")
"""Output presets a workbook or command may choose (docs/conventions.md); `iso` first."""

IDENTITY_AXIS_MAP: tuple[tuple[int, int, int], ...] = ((1, 0, 0), (0, 1, 0), (0, 0, 1))


@dataclass(frozen=True)
class Source:
    """Where an item was read: ``file: Sheet!Cell``. Not part of equality."""

    sheet: str
    cell: str
    file: str | None = None

    def __str__(self) -> str:
        place = f"{self.sheet}!{self.cell}"
        return f"{self.file}: {place}" if self.file else place


@dataclass(frozen=True)
class Options:
    """The `User Options` section. Lengths in mm, whatever the workbook used.

    axis_map: rows are model axes X, Y, Z written in workbook axes, so
    ``model = axis_map @ workbook`` (a signed permutation matrix).
    """

    length_unit: str = "mm"
    angle_unit: str = "deg"
    force_unit: str = "N"
    axis_map: tuple[tuple[int, int, int], ...] = IDENTITY_AXIS_MAP
    solver_tolerance_mm: float = 1e-6
    constraint_display_tolerance_mm: float = 0.01
    chassis_reference_point: str | None = None
    cg_height_mm: float = 300.0
    wheelbase_mm: float | None = None
    front_brake_share: float = 0.6
    front_brakes_inboard: bool = False
    rear_brakes_inboard: bool = False
    rear_drive_share: float = 1.0
    drive_inboard: bool = True
    sign_convention: str = "iso"
    front_mass_share: float | None = None
    """Fraction (0..1) of the car's mass on the front axle, for OptimumK's centre of gravity
    (CG between the axles' contact-patch midpoints); None = not given."""


@dataclass(frozen=True)
class Point:
    """A hard point at the design condition, mm, model frame."""

    name: str
    xyz: tuple[float, float, float]
    source: Source | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Body:
    """A rigid body and the names of its points (order as in the workbook)."""

    name: str
    points: tuple[str, ...]
    source: Source | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Wheel:
    """A wheel carried by `body`. Tyre radius and width in mm.

    The spin axis runs centre -> axis point; the model orients it outboard.
    Kingpin points (lower, upper) are optional; without them the steering
    axis is the instantaneous axis of the carrier under rack motion.
    """

    name: str
    body: str
    centre: str
    axis_point: str
    tyre_radius: float
    tyre_width: float
    kingpin_lower: str | None = None
    kingpin_upper: str | None = None
    source: Source | None = field(default=None, compare=False, repr=False)
    rim_diameter: float | None = None
    """Rim diameter (mm), optional: OptimumK's Toe Distance = rim diameter x sin(toe)."""


@dataclass(frozen=True)
class Rack:
    """The steering rack: prismatic along end_points[0] -> end_points[1].

    ratio_mm_per_deg: rack travel per degree of steering wheel (optional).
    min_travel / max_travel: optional limits of the rack travel (mm, + toward +Y,
    0 = design), checked before any solve like a damper's min/max length.
    """

    body: str
    end_points: tuple[str, str]
    ratio_mm_per_deg: float | None = None
    min_travel: float | None = None
    max_travel: float | None = None
    source: Source | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Damper:
    """A damper body: universal joint at `chassis_point`, prismatic stroke.

    Lengths in mm; `min_length`/`max_length` bound the eye-to-eye length.
    Optional linear coil-over spring (docs/loads.md, "Springs"): `spring_rate`
    in N/mm; its force at a stroke is ``preload + rate * stroke`` (N, +
    pushes the eyes apart), with `spring_preload` the force at the design
    length (stroke 0) or, instead, `spring_free_length` the eye-to-eye length
    (mm) at which the spring force is zero; neither given = preload 0.
    """

    body: str
    chassis_point: str
    moving_point: str
    min_length: float | None = None
    max_length: float | None = None
    source: Source | None = field(default=None, compare=False, repr=False)
    spring_rate: float | None = None
    spring_preload: float | None = None
    spring_free_length: float | None = None


@dataclass(frozen=True)
class ThirdSpring:
    """A third (heave) spring: a spring between two points on any two bodies.

    Not a body and not an input: its length follows the pose (it adds no
    constraint), and its force acts along the line between its end points,
    ``force = preload + rate * compression`` (N, + pushes the ends apart), with
    compression = design length - length (mm). Read from a Damping row whose
    Type is ``third`` (docs/workbook.md); `end_points` are that row's Chassis
    point and Moving point columns. `spring_free_length` (mm) may replace the
    preload as for a damper's spring. Lengths in mm, rate in N/mm, force in N.
    """

    name: str
    end_points: tuple[str, str]
    min_length: float | None = None
    max_length: float | None = None
    source: Source | None = field(default=None, compare=False, repr=False)
    spring_rate: float | None = None
    spring_preload: float | None = None
    spring_free_length: float | None = None


ANTI_ROLL_BAR_KINDS: tuple[str, ...] = ("U-bar", "T-bar")
"""Anti-roll bar kinds (docs/model.md, "Anti-roll bars")."""


@dataclass(frozen=True)
class AntiRollBar:
    """An anti-roll bar: a torsional rate between two arms on one chassis axis.

    ``U-bar``: `arms` = two bodies, each a revolute joint on the chassis about
    the bar axis (`axis_points`, two chassis points); the twist is arm 1's
    rotation minus arm 2's about the axis from axis_points[0] to axis_points[1],
    0 at design. ``T-bar``: `arms` = one lever body on a universal joint at the
    chassis point axis_points[0]: it turns freely about the pivot axis
    axis_points[0] -> axis_points[1] (heave and pitch) and twists the bar about
    the shaft axis axis_points[0] -> `shaft_point` (a point of the lever); the
    twist is that second rotation, 0 at design. `rate` in N mm/rad (torque per
    twist); the torque is ``rate * twist`` with no preload.
    """

    name: str
    kind: str
    arms: tuple[str, ...]
    axis_points: tuple[str, str]
    rate: float
    shaft_point: str | None = None
    source: Source | None = field(default=None, compare=False, repr=False)


_Vec = Sequence[float] | np.ndarray


def line_offset(p: _Vec, a: _Vec, b: _Vec) -> float:
    """Distance (mm) of point p from the line through a and b (all mm)."""
    a_ = np.asarray(a, dtype=float)
    d = np.asarray(b, dtype=float) - a_
    d = d / np.linalg.norm(d)
    r = np.asarray(p, dtype=float) - a_
    return float(np.linalg.norm(r - (r @ d) * d))


def u_bar_arm_fault(
    arm: Body,
    chassis: Body,
    xyz: Mapping[str, _Vec],
    axis_points: tuple[str, str],
) -> str | None:
    """Why a U-bar arm is not a revolute body on the bar axis, or None when it is.

    The arm must share two or more points with the Chassis, all within `BAR_AXIS_MM`
    of the line axis_points[0] -> axis_points[1] (so the model classifies it as a
    revolute joint about that line), and have a point off that line (else it is fixed).
    Coordinates in mm; the text names the points and directions.
    """
    a, b = (np.asarray(xyz[p], dtype=float) for p in axis_points)
    axis = (b - a) / np.linalg.norm(b - a)
    shared = [p for p in arm.points if p in chassis.points]
    if len(shared) < 2:
        found = f"only {shared[0]}" if shared else "none of its points"
        return (
            f"arm {arm.name!r} shares {found} with the Chassis, so it does not turn about"
            f" the bar axis {axis_points[0]} -> {axis_points[1]}: a U-bar arm is a revolute"
            " body with two chassis points on the bar axis"
        )
    off = [p for p in shared if line_offset(xyz[p], a, b) > BAR_AXIS_MM]
    if off:
        p0, p1 = shared[0], shared[1]
        d = np.asarray(xyz[p1], dtype=float) - np.asarray(xyz[p0], dtype=float)
        n = float(np.linalg.norm(d))
        turns = (
            f"turns about {_direction(d / n)} ({p0} -> {p1})"
            if n > 0
            else f"has its chassis points {p0} and {p1} at one place"
        )
        worst = max(line_offset(xyz[p], a, b) for p in off)
        return (
            f"arm {arm.name!r} {turns}, not about the bar axis {axis_points[0]} ->"
            f" {axis_points[1]} ({_direction(axis)}): {', '.join(off)} lie up to"
            f" {worst:.3g} mm off it"
        )
    if all(line_offset(xyz[p], a, b) <= BAR_AXIS_MM for p in arm.points):
        return f"arm {arm.name!r} has every point on the bar axis, so nothing turns it"
    return None


def t_bar_axes(
    pivot: _Vec, axis_point: _Vec, shaft_point: _Vec
) -> tuple[np.ndarray, np.ndarray, float]:
    """Unit pivot axis, unit shaft axis (made perpendicular to the pivot axis) and the
    angle (deg) by which the given shaft direction missed perpendicular. mm in."""
    p = np.asarray(pivot, dtype=float)
    u = np.asarray(axis_point, dtype=float) - p
    u = u / np.linalg.norm(u)
    s = np.asarray(shaft_point, dtype=float) - p
    s = s / np.linalg.norm(s)
    miss = float(np.degrees(np.arcsin(np.clip(abs(float(s @ u)), 0.0, 1.0))))
    w = s - (s @ u) * u
    return u, w / np.linalg.norm(w), miss


def _direction(v: np.ndarray) -> str:
    """A unit direction for messages: 'X', '-Y' when along an axis, else (x, y, z)."""
    for i, name in enumerate("XYZ"):
        if abs(abs(v[i]) - 1.0) < 1e-9:
            return ("" if v[i] > 0 else "-") + name
    return f"({v[0]:.3f}, {v[1]:.3f}, {v[2]:.3f})"


@dataclass(frozen=True)
class Car:
    """A whole validated car description (see module docstring for units)."""

    name: str
    options: Options
    points: tuple[Point, ...]
    bodies: tuple[Body, ...]
    wheels: tuple[Wheel, ...] = ()
    rack: Rack | None = None
    dampers: tuple[Damper, ...] = ()
    third_springs: tuple[ThirdSpring, ...] = ()
    anti_roll_bars: tuple[AntiRollBar, ...] = ()
    warnings: tuple[str, ...] = field(default=(), compare=False)
    source_path: str | None = field(default=None, compare=False)

    # -- look-ups -------------------------------------------------------------
    def point(self, name: str) -> np.ndarray:
        """Design position of a hard point (mm, model frame) as a new array."""
        for p in self.points:
            if p.name == name:
                return np.array(p.xyz, dtype=float)
        raise KeyError(name)

    def point_map(self) -> dict[str, np.ndarray]:
        """All hard points by name (mm, model frame)."""
        return {p.name: np.array(p.xyz, dtype=float) for p in self.points}

    def body(self, name: str) -> Body:
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(name)

    def bodies_of_point(self, name: str) -> list[str]:
        """Names of the bodies that carry a point (two or more = a joint)."""
        return [b.name for b in self.bodies if name in b.points]

    def joined_points(self) -> Iterator[tuple[str, list[str]]]:
        """(point, bodies) for every point named on two or more bodies."""
        seen: set[str] = set()
        for b in self.bodies:
            for p in b.points:
                if p in seen:
                    continue
                seen.add(p)
                owners = self.bodies_of_point(p)
                if len(owners) > 1:
                    yield p, owners

    def damper(self, body: str) -> Damper | None:
        for d in self.dampers:
            if d.body == body:
                return d
        return None

    def damper_design_length(self, damper: Damper | str) -> float:
        """Eye-to-eye length of a damper at design (mm): |moving - chassis point|.

        Every stroke is measured from it (``length = design - stroke``), so it is
        computed here and nowhere else.
        """
        d = self.damper(damper) if isinstance(damper, str) else damper
        if d is None:
            raise KeyError(damper)
        return damper_length(self.point(d.chassis_point), self.point(d.moving_point))


def damper_length(
    chassis_xyz: Sequence[float] | np.ndarray, moving_xyz: Sequence[float] | np.ndarray
) -> float:
    """Eye-to-eye length (mm) of a damper whose eyes are at these points (mm): the one
    formula of `Car.damper_design_length`, for readers that have no `Car` yet."""
    return float(np.linalg.norm(np.subtract(moving_xyz, chassis_xyz, dtype=float)))


# -- where the wheels are -------------------------------------------------------------------
AXLE_NAMES: tuple[str, str] = ("front", "rear")
SIDE_NAMES: tuple[str, str] = ("left", "right")


@dataclass(frozen=True)
class WheelLayout:
    """Where each wheel of a car is: its axle and side, from the geometry alone.

    names, axle, side: per wheel in the order of ``Car.wheels``; axle is
    ``"front"`` or ``"rear"``, side ``"left"`` (+Y) or ``"right"``.
    axles: axle -> (left wheel, right wheel), for each axle that has both;
    sides: side -> (front wheel, rear wheel), for each side that has both.
    See `wheel_layout` for the rules.
    """

    names: tuple[str, ...]
    axle: tuple[str, ...]
    side: tuple[str, ...]
    axles: Mapping[str, tuple[str, str]]
    sides: Mapping[str, tuple[str, str]]

    def corner(self, wheel: str) -> tuple[str, str]:
        """(axle, side) of a wheel by name; KeyError for an unknown wheel."""
        if wheel not in self.names:
            raise KeyError(wheel)
        i = self.names.index(wheel)
        return self.axle[i], self.side[i]

    def at(self, axle: str, side: str) -> str | None:
        """The wheel on this corner (e.g. ``at("front", "left")``), or None."""
        for name, a, s in zip(self.names, self.axle, self.side, strict=True):
            if a == axle and s == side:
                return name
        return None

    def index(self, wheel: str) -> int:
        """Position of a wheel in ``Car.wheels``."""
        return self.names.index(wheel)


def wheel_layout(car: Car) -> WheelLayout:
    """Axle and side of every wheel from its centre's x and y (docs/conventions.md,
    "Front, rear, left and right"). Names are labels only.

    Relative to the chassis reference point (``Options.chassis_reference_point``,
    else the origin): a wheel is left if its centre has larger y, right if
    smaller. Wheel centres within `AXLE_GAP_MM` of each other in x form one
    axle; with two axles the one with larger x is the front. A car with a
    single axle has it at the front when it is ahead of the reference point
    (x larger by `SAME_AXLE_X_MM`), at the rear when behind; an axle at the
    reference point's x is front unless every wheel on it is named as a rear
    wheel (``RL``, ``RR``, ``LR``, "Rear Left", ...), the only case where a
    name counts. WorkbookError naming the Wheels cells for a layout that
    cannot be read: a wheel on the centre plane, more than two wheels on an
    axle or two on one side of it, or more than two axles.
    """
    wheels = car.wheels
    names = tuple(w.name for w in wheels)
    if not wheels:
        return WheelLayout((), (), (), {}, {})
    ref_name = car.options.chassis_reference_point
    ref = car.point(ref_name) if ref_name else np.zeros(3)
    centres = np.array([car.point(w.centre) for w in wheels], dtype=float).reshape(-1, 3)
    x = centres[:, 0] - ref[0]
    y = centres[:, 1] - ref[1]
    reference = f"the reference point {ref_name}" if ref_name else "the origin"

    on_plane = [w for w, yy in zip(wheels, y, strict=True) if abs(yy) <= SAME_AXLE_X_MM]
    if on_plane:
        raise _layout_error(
            car,
            on_plane,
            f"{_wheel_list(on_plane)} {'is' if len(on_plane) == 1 else 'are'} on the car's "
            f"centre plane (y within {SAME_AXLE_X_MM:g} mm of {reference}), so neither left "
            "nor right",
            "left wheels have centres at +Y, right wheels at -Y (docs/conventions.md)",
        )
    side = tuple("left" if yy > 0 else "right" for yy in y)

    order = np.argsort(x, kind="stable")
    groups: list[list[int]] = [[int(order[0])]]
    for a, b in itertools.pairwise(order):
        if x[b] - x[a] > AXLE_GAP_MM:
            groups.append([])
        groups[-1].append(int(b))
    if len(groups) > 2:
        raise _layout_error(
            car,
            wheels,
            f"the wheels are on {len(groups)} axles (centres more than {AXLE_GAP_MM:g} mm "
            "apart in x): "
            + "; ".join(_wheel_list([wheels[i] for i in g]) for g in reversed(groups))
            + "; a car has a front and a rear axle",
            "check the x of the wheel centres",
        )
    if len(groups) == 2:
        axle_of = {i: name for name, g in zip(("rear", "front"), groups, strict=True) for i in g}
    else:
        mean_x = float(np.mean(x))
        if mean_x > SAME_AXLE_X_MM:
            label = "front"
        elif mean_x < -SAME_AXLE_X_MM:
            label = "rear"
        else:
            named_rear = all(_named_axle(w.name) == "rear" for w in wheels)
            label = "rear" if named_rear else "front"
        axle_of = {i: label for i in groups[0]}
    axle = tuple(axle_of[i] for i in range(len(wheels)))

    axles: dict[str, tuple[str, str]] = {}
    for label in AXLE_NAMES:
        on = [i for i in range(len(wheels)) if axle[i] == label]
        if len(on) > 2:
            raise _layout_error(
                car,
                [wheels[i] for i in on],
                f"{len(on)} wheels on the {label} axle ({_wheel_list([wheels[i] for i in on])})",
                "an axle has one left and one right wheel",
            )
        for s in SIDE_NAMES:
            same = [wheels[i] for i in on if side[i] == s]
            if len(same) > 1:
                raise _layout_error(
                    car,
                    same,
                    f"{_wheel_list(same)} are both on the {label} {s}",
                    "an axle has one left (+Y) and one right (-Y) wheel; check the y of "
                    "the wheel centres",
                )
        if len(on) == 2:
            left, right = sorted(on, key=lambda i: side[i] != "left")
            axles[label] = (names[left], names[right])
    layout = WheelLayout(names, axle, side, axles, {})
    sides: dict[str, tuple[str, str]] = {}
    for s in SIDE_NAMES:
        f, r = layout.at("front", s), layout.at("rear", s)
        if f is not None and r is not None:
            sides[s] = (f, r)
    return WheelLayout(names, axle, side, axles, sides)


_AXLE_CODES = {"fl": "front", "fr": "front", "lf": "front", "rf": "front"}
_AXLE_CODES.update({"rl": "rear", "rr": "rear", "lr": "rear"})


def _named_axle(name: str) -> str | None:
    """The axle a wheel's name states (FL, RF, "Rear Left", rear_left ...), or None."""
    words = [w for w in re.split(r"[^a-z]+", name.casefold()) if w]
    if len(words) == 1 and words[0] in _AXLE_CODES:
        return _AXLE_CODES[words[0]]
    for axle in AXLE_NAMES:
        if axle in words:
            return axle
    return None


def _wheel_list(wheels: Sequence[Wheel]) -> str:
    return ", ".join(
        f"{w.name}" + (f" ({w.source.sheet}!{w.source.cell})" if w.source else "") for w in wheels
    )


def _layout_error(car: Car, wheels: Sequence[Wheel], message: str, hint: str) -> WorkbookError:
    """The error for an unreadable wheel layout, at the first wheel's cell."""
    first = next((w.source for w in wheels if w.source is not None), None)
    where = str(first) if first is not None else (car.source_path or None)
    return WorkbookError(f"cannot tell where the wheels are: {message}", where=where, hint=hint)
