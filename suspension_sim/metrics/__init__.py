"""Suspension metrics of solved poses (docs/conventions.md, docs/metrics.md).

Public API::

    from suspension_sim.metrics import pose_metrics, metrics_table, CATALOGUE

    row = pose_metrics(pose)               # {"camber_FL_deg": -1.2, ...}
    table = metrics_table(poses)           # one row per pose
    CATALOGUE["camber"].unit               # "deg"

Modules: `vectors`, `wheel` and `linkage` (pure formulas on vectors: wheel
angles and offsets; instant centres, lines, antis, Ackermann), `geometry`
(per-model wheel facts and per-pose wheel geometry), `rates` (derivatives
along the IFT tangents), `centres` (instant centres, swing arms, antis,
roll and pitch centres of a pose), `conventions` (output presets),
`catalogue` (names, units, signs), `core` (`pose_metrics`, `metrics_table`,
the column layout).
"""

from __future__ import annotations

from suspension_sim.metrics.catalogue import CATALOGUE, Metric, label, metric_of
from suspension_sim.metrics.conventions import PRESETS, Preset, preset
from suspension_sim.metrics.core import layout, metrics_table, pose_metrics, wheel_dampers

__all__ = [
    "CATALOGUE",
    "PRESETS",
    "Metric",
    "Preset",
    "label",
    "layout",
    "metric_of",
    "metrics_table",
    "pose_metrics",
    "preset",
    "wheel_dampers",
]
