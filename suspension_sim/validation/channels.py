"""Former home of the export channels, kept so that old imports keep working.

The code now lives in three modules: `suspension_sim.validation.quantities`
(what is compared and its metric mapping), `suspension_sim.validation.headers`
(the header grammar and units) and `suspension_sim.validation.mapfiles`
(channel-map files and `default_map_markdown`). Import from those.
"""

from __future__ import annotations

from suspension_sim.validation.export_units import known_unit
from suspension_sim.validation.headers import (
    Header,
    check_unit,
    match_quantity,
    norm_name,
    parse_header,
    parse_location,
    split_unit,
    tokens,
    unit_factor,
)
from suspension_sim.validation.mapfiles import (
    build_channel_map,
    default_map_markdown,
    load_channel_map,
)
from suspension_sim.validation.quantities import (
    AXLES,
    CANONICAL_UNIT,
    CORNER_CODES,
    CORNERS,
    DEFAULT_QUANTITIES,
    MOTION_KEYS,
    ChannelMap,
    ChannelRule,
    Dimension,
    Quantity,
    Scope,
)

__all__ = [
    "AXLES",
    "CANONICAL_UNIT",
    "CORNERS",
    "CORNER_CODES",
    "DEFAULT_QUANTITIES",
    "MOTION_KEYS",
    "ChannelMap",
    "ChannelRule",
    "Dimension",
    "Header",
    "Quantity",
    "Scope",
    "build_channel_map",
    "check_unit",
    "default_map_markdown",
    "known_unit",
    "load_channel_map",
    "match_quantity",
    "norm_name",
    "parse_header",
    "parse_location",
    "split_unit",
    "tokens",
    "unit_factor",
]
