"""Replaying logged damper data into wheel attitude (docs/replay.md).

Public API::

    import suspension_sim
    from suspension_sim.replay import replay_log

    model = suspension_sim.load("car.xlsx")
    result = replay_log(model, "log.csv", "map.yaml", out="results.parquet")
    print(result.summary())
    for line in result.report_lines():
        print(line)

Modules: `channelmap` (the YAML map file), `logs` (CSV/Parquet logs read
chunk by chunk), `signals` (unit conversion, zeroing, screening with time
stamps), `writers` (the table written chunk by chunk), `run` (`replay_log`),
`charts` (PNG charts against time).
"""

from __future__ import annotations

from suspension_sim.replay.channelmap import ChannelMap, load_map
from suspension_sim.replay.charts import plot_replay
from suspension_sim.replay.run import (
    STATUS_COLUMN,
    TIME_COLUMN,
    ReplayResult,
    available_columns,
    default_columns,
    replay_log,
)
from suspension_sim.replay.signals import STATUS_NAMES, Problem

__all__ = [
    "STATUS_COLUMN",
    "STATUS_NAMES",
    "TIME_COLUMN",
    "ChannelMap",
    "Problem",
    "ReplayResult",
    "available_columns",
    "default_columns",
    "load_map",
    "plot_replay",
    "replay_log",
]
