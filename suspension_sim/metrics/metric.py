"""What one catalogue entry is: `Metric` (id, column stem, unit, scope, meaning,
sign) and `entry`, which builds one with the unit's column suffix.

Kept apart from the entries (`suspension_sim.metrics.catalogue_geometry`,
`suspension_sim.metrics.catalogue_rates`) and from the look-ups over them
(`suspension_sim.metrics.catalogue`, which re-exports `Metric`), so each entry
module can import it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["car", "damper", "wheel", "axle", "side"]


@dataclass(frozen=True)
class Metric:
    """A reported quantity. `key(...)` builds its column name.

    rates: True when it comes from the implicit-function-theorem tangents
    (omitted by ``pose_metrics(..., rates=False)``).
    """

    id: str
    stem: str
    unit: str
    suffix: str
    scope: Scope
    description: str
    sign: str
    rates: bool = False
    components: tuple[str, ...] = ()
    optimumk: str = "same as iso"

    def key(self, where: str = "", component: str = "") -> str:
        """Column name, e.g. ``key("FL") -> "camber_FL_deg"``."""
        parts = [self.stem, where, component, self.suffix]
        return "_".join(p for p in parts if p)

    def label(self, where: str = "", component: str = "") -> str:
        """Human label for a plot axis, e.g. ``"camber FL [deg]"``."""
        text = " ".join(p for p in (self.stem.replace("_", " "), where, component) if p)
        return f"{text} [{self.unit}]" if self.unit else text


def entry(
    id: str,
    unit: str,
    scope: Scope,
    description: str,
    sign: str,
    *,
    stem: str | None = None,
    suffix: str | None = None,
    rates: bool = False,
    components: tuple[str, ...] = (),
    optimumk: str = "same as iso",
) -> Metric:
    """One catalogue entry; the column suffix follows from the unit unless given
    (``%`` -> ``pct``, ``-`` -> none, ``/`` -> ``_per_``)."""
    if suffix is None:
        suffix = {"%": "pct", "-": ""}.get(unit, unit.replace("/", "_per_"))
    return Metric(
        id, stem or id, unit, suffix, scope, description, sign, rates, components, optimumk
    )


XYZ = ("x", "y", "z")
