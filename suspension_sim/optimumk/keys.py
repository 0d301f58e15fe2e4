"""OptimumK's channel keys and the record of one quantity (`OkQuantity`).

A channel's key is OptimumK's quantity followed by its bracketed tags, without the
unit (`channel_key`): ``"Camber Angle [Left] [Front]"`` (corner), ``"Roll Center Z
[Front]"`` (axle), ``"Wheelbase [Left]"`` (side), ``"Wheelbase"`` (car),
``"Motion [Heave]"`` (input). The quantities themselves are listed in
`suspension_sim.optimumk.registry`; `ok_quantity` and `xyz_quantities` build them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["corner", "axle", "side", "car", "input"]
Status = Literal["established", "not established", "always blank"]

DIMENSIONS: dict[str, str] = {
    "mm": "length",
    "deg": "angle",
    "deg/mm": "angle per length",
    "deg/deg": "angle per angle",
    "%": "percent",
    "-": "ratio",
}
"""Dimension of each display unit."""

SIDES = ("left", "right")
AXLES = ("front", "rear")


@dataclass(frozen=True)
class OkQuantity:
    """One OptimumK quantity (a channel per corner, axle or side, or one for the car).

    name: OptimumK's spelling (the header's text before the tags). aliases: other
    spellings accepted. axles: where it exists (corner and axle scope). definition: one
    line in our own words. conditions: motions in which a computed channel is not
    established. approximate: computed, close to OptimumK but not exact (`evidence` says
    how close). evidence: the largest difference from OptimumK's numbers seen.
    tolerance: for an approximate quantity, the deviation validate allows it (in its
    display unit) instead of its dimension's tolerance when that is smaller: the
    evidence's largest difference with a margin, so a known approximation never fails.
    """

    name: str
    scope: Scope
    unit: str
    status: Status
    definition: str
    aliases: tuple[str, ...] = ()
    axles: tuple[str, ...] = AXLES
    conditions: tuple[str, ...] = ()
    approximate: bool = False
    evidence: str = ""
    tolerance: float | None = None

    @property
    def dimension(self) -> str:
        """length, angle, angle per length, angle per angle, percent or ratio."""
        return DIMENSIONS[self.unit]

    def channel_keys(self) -> tuple[str, ...]:
        """Every channel key of this quantity on a four-wheeled car."""
        if self.scope == "corner":
            return tuple(channel_key(self.name, s, a) for a in self.axles for s in SIDES)
        if self.scope == "axle":
            return tuple(channel_key(self.name, None, a) for a in self.axles)
        if self.scope == "side":
            return tuple(channel_key(self.name, s, None) for s in SIDES)
        return (self.name,)


def channel_key(name: str, side: str | None = None, axle: str | None = None) -> str:
    """``"<name> [<Side>] [<Axle>]"`` (absent tags left out), OptimumK's order."""
    return name + "".join(f" [{t.capitalize()}]" for t in (side, axle) if t)


STEERED_FRONT = "front: not established when the front wheels are steered"
PITCH = "not established when the motion has pitch"
FRONT_ONLY = ("front",)
REAR_ONLY = ("rear",)
GAIN_SIGN = "(sign: minus the rate, so + = the angle decreases as the chassis rises)"
"""The sign note of the gains' definitions."""


def ok_quantity(
    name: str,
    scope: Scope,
    unit: str,
    definition: str,
    *,
    status: Status = "established",
    aliases: tuple[str, ...] = (),
    axles: tuple[str, ...] = AXLES,
    conditions: tuple[str, ...] = (),
    approximate: bool = False,
    evidence: str = "",
    tolerance: float | None = None,
) -> OkQuantity:
    """One `OkQuantity` (keyword arguments past the definition). An approximate quantity
    must state its `tolerance` (ValueError otherwise: validate would judge a known
    approximation with the exact channels' tolerance)."""
    if approximate and tolerance is None:
        raise ValueError(f"{name}: an approximate quantity needs its tolerance")
    return OkQuantity(
        name,
        scope,
        unit,
        status,
        definition,
        aliases,
        axles,
        conditions,
        approximate,
        evidence,
        tolerance,
    )


def xyz_quantities(
    name: str,
    scope: Scope,
    definition: str,
    *,
    aliases: tuple[str, ...] = (),
    status: Status = "established",
    axles: tuple[str, ...] = AXLES,
    conditions: tuple[str, ...] = (),
    evidence: str = "",
) -> tuple[OkQuantity, ...]:
    """The X, Y and Z channels of a point quantity (mm, world)."""
    return tuple(
        ok_quantity(
            f"{name} {c}",
            scope,
            "mm",
            f"{definition}: its {c} (world, mm)",
            status=status,
            aliases=tuple(f"{a} {c}" for a in aliases),
            axles=axles,
            conditions=conditions,
            evidence=evidence,
        )
        for c in "XYZ"
    )


def split_key(key: str) -> tuple[str, str | None, str | None]:
    """(quantity name, side, axle) of a channel key (side/axle lower case or None)."""
    if key.startswith("Motion ["):
        return key, None, None
    name, side, axle = key, None, None
    while name.endswith("]") and " [" in name:
        head, _, tag = name.rpartition(" [")
        word = tag[:-1].strip().lower()
        if word in SIDES and side is None:
            side = word
        elif word in AXLES and axle is None:
            axle = word
        else:
            break
        name = head
    return name, side, axle


def scope_of(side: str | None, axle: str | None) -> Scope:
    """The scope of a key's tags: corner (side and axle), axle, side or car."""
    if side and axle:
        return "corner"
    if axle:
        return "axle"
    return "side" if side else "car"
