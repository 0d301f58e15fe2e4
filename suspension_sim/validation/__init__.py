"""Validation against OptimumK exports (GitHub issue 6).

Typical use::

    import suspension_sim
    from suspension_sim.validation import read_export, load_channel_map, validate, write_report

    model = suspension_sim.load("workbooks/fsae_car.xlsx")
    cmap = load_channel_map(None)                     # or a .csv/.yaml map file
    export = read_export("optimumk_results.csv", cmap)
    result = validate(model, export, drive="motion", channel_map=cmap)
    print(result.summary())
    write_report(result, "validation_report")

The export's header grammar and the default channel map are in
`suspension_sim.validation.channels` (and docs/validation.md); the two drives
(``motion``: the export's heave/roll/pitch/steer with the tyres on the
ground; ``dampers``: its damper lengths as strokes) in
`suspension_sim.validation.drive`. Units: mm and deg.
"""

from __future__ import annotations

from suspension_sim.validation.channels import (
    CORNERS,
    DEFAULT_QUANTITIES,
    ChannelMap,
    ChannelRule,
    Quantity,
    load_channel_map,
    parse_header,
)
from suspension_sim.validation.compare import (
    DEFAULT_TOLERANCES,
    ChannelResult,
    Validation,
    validate,
)
from suspension_sim.validation.drive import DRIVES, corner_wheels
from suspension_sim.validation.export import Column, Export, read_export
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
    "load_channel_map",
    "parse_header",
    "read_export",
    "validate",
    "write_report",
]
