"""Suspension metrics of solved poses (CONVENTIONS.md; docs/metrics.md).

Public API::

    from suspension_sim.metrics import pose_metrics, metrics_table, CATALOGUE

    row = pose_metrics(pose)               # {"camber_FL_deg": -1.2, ...}
    table = metrics_table(poses)           # one row per pose
    CATALOGUE["camber"].unit               # "deg"

Modules: `wheel` (per-wheel geometry on vectors), `linkage` (instant
centres, roll/pitch centres, antis, Ackermann), `rates` (derivatives along
the IFT tangents), `conventions` (output presets), `catalogue` (names,
units, signs), `core` (assembly).
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
