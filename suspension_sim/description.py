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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

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
    """

    body: str
    chassis_point: str
    moving_point: str
    min_length: float | None = None
    max_length: float | None = None
    source: Source | None = field(default=None, compare=False, repr=False)


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
