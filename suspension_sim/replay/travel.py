"""The travel rule of logged inputs: where a damper stroke or rack travel (mm) is
beyond what the workbook allows, as the batch engine's own limit check has it.

Kept apart so that the map check (`replay.channelmap`) and the sample screen
(`replay.signals`) share one rule without importing each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.solve.inputs import input_limits
from suspension_sim.tolerances import LIMIT_SLACK_MM, MAX_INPUT

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


def travel_checks(
    model: KinematicModel, name: str, values: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray, float, str]]:
    """The screening rule of a damper's strokes or (name "steering") of rack travels
    (mm): [(beyond, excess, bound, "max" / "min" / "at most")], the batch's own rule,
    so no batch is ever refused."""
    limits = input_limits(model)
    v = np.asarray(values, dtype=float)
    checks = []
    with np.errstate(invalid="ignore"):
        # Strokes and rack travel against `input_limits`, exactly as the batch checks them
        # (`solve.batch._check_input_states`), so a screened sample is never refused there.
        low, high = limits.get("rack" if name == "steering" else name, (None, None))
        if high is not None:
            checks.append((v > high + LIMIT_SLACK_MM, v - high, high, "max"))
        if low is not None:
            checks.append((v < low - LIMIT_SLACK_MM, low - v, low, "min"))
        checks.append((np.abs(v) > MAX_INPUT, np.abs(v), MAX_INPUT, "at most"))
    return checks


def beyond_travel(model: KinematicModel, name: str, values: np.ndarray) -> np.ndarray:
    """True where a stroke of damper `name` (mm; "steering": a rack travel) is beyond its
    travel by the rule that screens samples (out_of_limits)."""
    out = np.zeros(np.shape(values), dtype=bool)
    for bad, *_ in travel_checks(model, name, values):
        out |= bad
    return out
