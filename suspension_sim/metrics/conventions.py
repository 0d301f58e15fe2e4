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
    * toe: + = toe-out (sign flipped), and so are ``bump_steer``;
    * steer: total toe minus static toe in its own (toe-out positive) sign,
      i.e. + = front of the wheel outward: the left wheel keeps the iso sign,
      the right wheel's is flipped; ``steer_rate`` follows.
    Everything else (angles in deg, lengths in mm) is as in iso.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from suspension_sim.errors import InputError


@dataclass(frozen=True)
class Preset:
    """An output sign convention.

    toe_sign: multiplies toe and bump steer (+1: toe-in positive).
    steer: "left_positive" (iso) or "toe_change" (toe - static toe in this
    preset's toe sign). camber: which camber the ``camber`` column holds.
    """

    name: str
    toe_sign: float
    steer: Literal["left_positive", "toe_change"]
    camber: Literal["inclination", "front_view"]
    description: str


PRESETS: dict[str, Preset] = {
    "iso": Preset(
        "iso",
        1.0,
        "left_positive",
        "inclination",
        "docs/conventions.md: camber = -asin(s.n) (inclination), toe + = toe-in, "
        "steer + = turned left on both wheels",
    ),
    "optimumk": Preset(
        "optimumk",
        -1.0,
        "toe_change",
        "inclination",
        "OptimumK: camber = -asin(s.n) (inclination, same sign), toe + = toe-out, "
        "steer = toe - static toe (toe-out positive, so the right wheel is flipped)",
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
