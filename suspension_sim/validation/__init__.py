"""Validation against OptimumK exports (docs/validation.md).

Typical use::

    import suspension_sim
    from suspension_sim.validation import read_export, load_channel_map, validate, write_report

    model = suspension_sim.load("workbooks/fsae_car.xlsx")
    cmap = load_channel_map(None)                     # or a .csv/.yaml map file
    export = read_export("optimumk_results.csv", cmap)
    result = validate(model, export, drive="motion", channel_map=cmap)
    print(result.summary())
    write_report(result, "validation_report")

What is compared (the default channel map) is in
`suspension_sim.validation.quantities`, the export's header grammar and units
in `suspension_sim.validation.headers`, map files in
`suspension_sim.validation.mapfiles` (and docs/validation.md); the two drives
(``motion``: the export's heave/roll/pitch/steer with the tyres on the
ground; ``dampers``: its damper lengths as strokes) in
`suspension_sim.validation.drive`. Units: mm and deg.
"""

from __future__ import annotations

from suspension_sim.validation.compare import (
    DEFAULT_TOLERANCES,
    ChannelResult,
    Validation,
    validate,
)
from suspension_sim.validation.drive import DRIVES, corner_wheels
from suspension_sim.validation.export import Column, Export, read_export
from suspension_sim.validation.headers import parse_header
from suspension_sim.validation.mapfiles import default_map_markdown, load_channel_map
from suspension_sim.validation.quantities import (
    CORNERS,
    DEFAULT_QUANTITIES,
    ChannelMap,
    ChannelRule,
    Quantity,
)
from suspension_sim.validation.report import write_report

__all__ = [
    "CORNERS",
    "DEFAULT_QUANTITIES",
    "DEFAULT_TOLERANCES",
    "DRIVES",
    "ChannelMap",
    "ChannelResult",
    "ChannelRule",
    "Column",
    "Export",
    "Quantity",
    "Validation",
    "corner_wheels",
    "default_map_markdown",
    "load_channel_map",
    "parse_header",
    "read_export",
    "validate",
    "write_report",
]
