"""Design exploration: hardpoint sensitivities (`sensitivity`), by the implicit function
theorem with exact forward-mode derivatives (docs/exploration.md)."""

from __future__ import annotations

from suspension_sim.explore.sensitivity import (
    SensitivityResult,
    hardpoint_names,
    mirror_pairs,
    pose_derivatives,
    sensitivity,
)

__all__ = [
    "SensitivityResult",
    "hardpoint_names",
    "mirror_pairs",
    "pose_derivatives",
    "sensitivity",
]
