"""Which OptimumK channels validate compares, and with what: a view of the channel registry.

The registry itself (names, aliases, scope, unit, status, one-line definition)
is `suspension_sim.optimumk.channels.QUANTITIES`; the values are
`suspension_sim.optimumk.channels.optimumk_channels`. This module matches an
export header (`suspension_sim.validation.okheaders.OkHeader`) to a registry
entry, by words (case, spaces, ``-``, ``_`` and ``/`` ignored; aliases allowed), and
turns the registry's unit into the dimension a channel is compared in.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from suspension_sim.validation.okheaders import OkHeader, norm_words
from suspension_sim.validation.quantities import Dimension

ESTABLISHED = "established"
NOT_ESTABLISHED = "not established"
ALWAYS_BLANK = "always blank"


@dataclass(frozen=True)
class Entry:
    """One quantity of the registry as validate uses it (units mm, deg)."""

    name: str  # OptimumK's spelling
    aliases: tuple[str, ...]
    scope: str  # corner | axle | side | car | motion | point
    unit: str  # display unit: mm, deg, %, deg/mm, deg/deg, -
    status: str  # established | not established | always blank
    definition: str
    conditions: str = ""
    approximate: bool = False
    """Close to OptimumK, not exact (`evidence` says how close)."""
    tolerance: float | None = None
    """An approximate quantity's own tolerance (display unit), from its evidence."""
    evidence: str = ""

    @property
    def dimension(self) -> Dimension:
        return unit_dimension(self.unit)


def unit_dimension(unit: str) -> Dimension:
    """The dimension a registry unit is compared in."""
    u = (unit or "").strip().lower()
    if u in ("deg", "°", "rad"):
        return "angle"
    if u in ("mm", "m", "in"):
        return "length"
    if u in ("%", "pct", "percent"):
        return "percent"
    if u in ("deg/mm", "rad/m", "deg/m"):
        return "gain"
    if u in ("n",):
        return "force"
    if u in ("n m", "n.m", "nm"):
        return "moment"
    return "ratio"


@lru_cache(maxsize=1)
def registry() -> tuple[Entry, ...]:
    """Every quantity of `suspension_sim.optimumk.channels.QUANTITIES`, as `Entry`."""
    from suspension_sim.optimumk.channels import QUANTITIES

    return tuple(
        Entry(
            q.name,
            tuple(q.aliases),
            q.scope,
            q.unit,
            q.status,
            q.definition,
            "; ".join(q.conditions),
            q.approximate,
            q.tolerance,
            q.evidence,
        )
        for q in QUANTITIES
    )


@lru_cache(maxsize=1)
def _by_words() -> dict[str, list[Entry]]:
    out: dict[str, list[Entry]] = {}
    for e in registry():
        for spelling in (e.name, *e.aliases):
            out.setdefault(norm_words(spelling), []).append(e)
    return out


SCOPES_OF_KIND: dict[str, tuple[str, ...]] = {
    "corner": ("corner",),
    "axle": ("axle",),
    "side": ("side", "corner"),  # Anti-Dive Percentage [Left]: a corner quantity, side-only
    "car": ("car", "axle"),  # Ackerman Percentage written without its axle
    "point": ("point", "corner"),
}


def lookup(h: OkHeader) -> Entry | None:
    """The registry entry of an export header, or None when we do not compute it.

    A point channel (``UPRI_LowPnt X [Left] [Front]``) is the point's world
    coordinate: an entry of its own when the registry has no row for it.
    """
    found = _by_words().get(norm_words(h.quantity), [])
    for scope in SCOPES_OF_KIND.get(h.kind, ()):
        for e in found:
            if e.scope == scope:
                return e
    if h.kind == "point" and h.point is not None:
        return Entry(
            h.quantity,
            (),
            "point",
            "mm",
            ESTABLISHED,
            f"the world {h.point[1]} coordinate of {h.point[0]} (file frame, mm)",
        )
    return None


def channel_key(entry: Entry, h: OkHeader) -> str:
    """The key of `optimumk_channels` for a header: the registry's spelling plus the
    header's tags in v2.x order (``King Pin Inclination [Left] [Front]``)."""
    tags = "".join(f" [{t}]" for t in (h.side, h.axle) if t)
    return f"{entry.name}{tags}"
