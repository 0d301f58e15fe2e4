"""OptimumK's channels as table columns, named as OptimumK names them.

`optimumk_columns` computes every channel `suspension_sim.optimumk.channels.optimumk_channels`
gives for a list of solved poses and names each column by OptimumK's own channel
text with its unit in round brackets (`optimumk_header`):
``Camber Angle [Left] [Front] (deg)``, ``Roll Center Z [Front] (mm)``,
``Wheelbase [Left] (mm)``; a plain ratio has no unit (``Motion Ratio Heave [Left]
[Front]``), as in OptimumK's exports. So a sweep or design table can sit beside
OptimumK's charts. The values are OptimumK's definitions (world frame, its toe
and steer, its contact patch, its rates; docs/validation.md), in its display
units (mm, deg, deg/mm, deg/deg, %); displacements are from the first pose given.

They are OptimumK's numbers only for poses moved the way OptimumK moves the car
(``motion_style="optimumk"``, docs/conventions.md, "OptimumK's motion style"):
under our motion style they are its definitions applied to our poses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose


def optimumk_header(key: str) -> str:
    """OptimumK's header text of a channel key: ``"Camber Angle [Left] [Front]"`` ->
    ``"Camber Angle [Left] [Front] (deg)"``; a plain ratio (unit ``-``) has no unit.
    KeyError for a key that is not one of OptimumK's quantities."""
    from suspension_sim.optimumk.channels import Scope, quantity, split_key

    if key.startswith("Motion ["):
        q = quantity(key, "input")
    else:
        name, side, axle = split_key(key)
        scope: Scope = "corner" if side and axle else "axle" if axle else "side" if side else "car"
        q = quantity(name, scope)
    return key if q.unit == "-" else f"{key} ({q.unit})"


def optimumk_columns(
    model: KinematicModel,
    poses: Sequence[Pose],
    *,
    steering_deg: Sequence[float] | np.ndarray | None = None,
    rates: bool = True,
) -> pd.DataFrame:
    """Every channel `optimumk_channels` gives for `poses`, one column each, named by
    `optimumk_header`, one row per pose (a plain 0..n-1 index).

    steering_deg: OptimumK's Motion [Steering] per pose (steering-wheel degrees, + =
    rack toward +Y); None = the pose's rack over the workbook's Steering ratio, which
    is that value in either motion style. rates: also the gains, motion ratios and
    steering rates (one implicit-function solve per pose).
    """
    from suspension_sim.optimumk.channels import optimumk_channels

    channels = optimumk_channels(model, list(poses), steering_deg=steering_deg, rates=rates)
    data = {optimumk_header(k): np.asarray(v, dtype=float) for k, v in channels.items()}
    return pd.DataFrame(data, index=pd.RangeIndex(len(poses)))


__all__ = ["optimumk_columns", "optimumk_header"]
