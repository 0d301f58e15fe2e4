"""Output presets: the sign conventions metrics are reported in.

Everything is computed in the ``iso`` convention (docs/conventions.md); a preset
only changes signs on output, so the same pose gives the same geometry.

``iso`` (default)
    docs/conventions.md as written. ``camber`` is the inclination angle
    ``-asin(s.n)`` (what a tyre model needs); toe + = toe-in; steer + = wheel
    turned left, both wheels.

``optimumk`` (to validate against OptimumK exports)
    * camber: the same inclination angle ``-asin(s.n)`` and the same sign
      (OptimumK's help defines camber as "the angle between the tilted wheel
      plane and the vertical", i.e. the true angle, not a front-view
      projection; ``camber_front_view`` is reported as well in both presets
      should an export turn out to use the projection);
    * toe: + = toe-out (sign flipped), and so are ``toe_wheel_plane`` (the
      angle OptimumK calls toe) and ``bump_steer``;
    * steer: the wheel-plane toe minus its design (static) value, as a
      heading with one sign for both wheels (+ = front of the wheel toward
      +Y); a symmetric toe change (heave) gives equal and opposite steer on
      the two wheels. ``steer_rate`` follows.
    * steering-wheel rates: per degree of OptimumK's steering (+ = rack toward
      +Y, whichever side of the axle the rack is), as OptimumK defines them:
      Steering Ratio ``1 / mean(d steer / d steering)`` (``steering_ratio``),
      Steering Toe Angle Gain ``-d toe / d steering`` (its toe, + = toe-out;
      ``steering_toe_gain``), Steering Camber Angle Gain ``-d camber / d
      steering`` (``steering_camber_gain``).
    * roll centre: OptimumK's Roll Center is the force-based one, our
      ``roll_centre_height`` (the same number in both presets), not the
      screw-axis ``roll_centre_axis_height``.
    Everything else (angles in deg, lengths in mm) is as in iso; the
    OptimumK-only definitions (``toe_wheel_plane``, ``contact_patch``,
    ``scrub_vehicle``, ``trail_vehicle``, ``motion_ratio_heave``) are their
    own columns in both presets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from suspension_sim.errors import InputError


@dataclass(frozen=True)
class Preset:
    """An output sign convention.

    toe_sign: multiplies toe, toe_wheel_plane and bump steer (+1: toe-in positive).
    steer: which toe the ``steer`` heading (+ = turned left, both wheels) is
    the change of: "top_view" (`toe`, iso) or "wheel_plane"
    (`toe_wheel_plane`, OptimumK). camber: which camber the ``camber`` column
    holds. steering: what a + steering-wheel degree of the steering rates is:
    "left_turn" (iso: the workbook's signed ratio turns the car left) or
    "rack_left" (OptimumK: the rack moves toward +Y by the ratio's size).
    steering_gain_sign: multiplies d toe / d steering and d camber / d steering
    (+1 iso; -1 OptimumK, whose gains are ``-d toe / d SW`` and ``-d camber / d SW``).
    """

    name: str
    toe_sign: float
    steer: Literal["top_view", "wheel_plane"]
    camber: Literal["inclination", "front_view"]
    description: str
    steering: Literal["left_turn", "rack_left"] = "left_turn"
    steering_gain_sign: float = 1.0


PRESETS: dict[str, Preset] = {
    "iso": Preset(
        "iso",
        1.0,
        "top_view",
        "inclination",
        "docs/conventions.md: camber = -asin(s.n) (inclination), toe + = toe-in, "
        "steer + = turned left on both wheels",
    ),
    "optimumk": Preset(
        "optimumk",
        -1.0,
        "wheel_plane",
        "inclination",
        "OptimumK: camber = -asin(s.n) (inclination, same sign), toe + = toe-out, "
        "steer = wheel-plane toe - static toe as a heading, + = turned left on both wheels; "
        "steering rates per degree of its steering (+ = rack toward +Y): ratio "
        "1/mean(d steer/d SW), gains -d toe/d SW and -d camber/d SW",
        steering="rack_left",
        steering_gain_sign=-1.0,
    ),
}


def preset(name: str | None) -> Preset:
    """The preset called `name` (case-insensitive); ``None`` means ``iso``."""
    key = (name or "iso").strip().lower()
    if key not in PRESETS:
        raise InputError(
            f"unknown sign convention {name!r}",
            where="convention",
            hint=f"use one of {', '.join(PRESETS)}",
        )
    return PRESETS[key]
