"""One entry per reported metric: name, unit, scope, meaning and sign.

Column names are built here and nowhere else::

    <stem>_<where>[_<component>][_<suffix>]

``where`` is a wheel name (``FL``), an axle (``front``/``rear``), a side
(``left``/``right``) or a damper body name; car-wide metrics have none.
``component`` is ``x``/``y``/``z`` for coordinates. ``suffix`` carries the
unit (``mm``, ``deg``, ``deg_per_mm``, ``pct``; nothing for a ratio), e.g.
``camber_FL_deg``, ``wheel_centre_FL_x_mm``, ``track_front_mm``,
``stroke_FL_Damper_mm``, ``motion_ratio_FL``.

Signs are those of the ``iso`` preset (docs/conventions.md); ``optimumk`` says
how that preset differs (see `suspension_sim.metrics.conventions`). All
coordinates are world frame (ISO 8855, ground z = 0) unless stated.

The entries themselves are in `suspension_sim.metrics.catalogue_geometry` and
`suspension_sim.metrics.catalogue_rates` (by group, in column order), and the
`Metric` record in `suspension_sim.metrics.metric`; this module joins them and
looks columns up.
"""

from __future__ import annotations

import re

from suspension_sim.metrics.catalogue_geometry import GEOMETRY_ENTRIES
from suspension_sim.metrics.catalogue_rates import RATE_ENTRIES
from suspension_sim.metrics.metric import Metric, Scope

__all__ = ["CATALOGUE", "Metric", "Scope", "label", "markdown_table", "metric_of"]

_ENTRIES: tuple[Metric, ...] = (*GEOMETRY_ENTRIES, *RATE_ENTRIES)

CATALOGUE: dict[str, Metric] = {m.id: m for m in _ENTRIES}
"""Every metric by id, in column order."""

_UNIT_SUFFIXES = sorted({m.suffix for m in _ENTRIES if m.suffix}, key=len, reverse=True)


def metric_of(column: str) -> tuple[Metric, str, str] | None:
    """(metric, where, component) for a column name, or None if it is not one of ours."""
    for m in sorted(_ENTRIES, key=lambda e: len(e.stem), reverse=True):
        if not column.startswith(m.stem):
            continue
        rest = column[len(m.stem) :]
        if m.suffix:
            if not rest.endswith("_" + m.suffix):
                continue
            rest = rest[: -len(m.suffix) - 1]
        elif any(rest.endswith("_" + s) for s in _UNIT_SUFFIXES):
            continue
        rest = rest.lstrip("_")
        component = ""
        if m.components:
            found = re.search(r"_(" + "|".join(m.components) + r")$", "_" + rest)
            if not found:
                continue
            component = found.group(1)
            rest = rest[: -len(component)].rstrip("_")
        if bool(rest) != (m.scope != "car"):
            continue
        return m, rest, component
    return None


def label(column: str) -> str:
    """Plot label for a column, e.g. ``camber_FL_deg -> "camber FL [deg]"``."""
    found = metric_of(column)
    if found is None:
        return column
    m, where, component = found
    return m.label(where, component)


def markdown_table() -> str:
    """The catalogue as a Markdown table (docs/metrics.md embeds it)."""
    rows = [
        "| column | unit | scope | sign (iso) | optimumk | IFT |",
        "|---|---|---|---|---|---|",
    ]
    example = {"wheel": "FL", "axle": "front", "side": "left", "damper": "FL_Damper", "car": ""}
    for m in _ENTRIES:
        comp = m.components[0] if m.components else ""
        rear = ("anti_lift", "anti_squat", "svic_anti_lift", "svic_anti_squat")
        where = "RL" if m.id in rear else example[m.scope]
        col = m.key(where, comp)
        if m.components:
            col = col.replace(f"_{comp}_", "_{" + ",".join(m.components) + "}_")
            if not m.suffix:
                col = col.replace(f"_{comp}", "_{" + ",".join(m.components) + "}")
        rows.append(
            f"| `{col}` | {m.unit} | {m.scope} | {m.sign} | {m.optimumk} | "
            f"{'yes' if m.rates else ''} |"
        )
    return "\n".join(rows)
