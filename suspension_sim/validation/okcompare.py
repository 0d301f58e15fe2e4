"""Compare the model with an OptimumK result export, every channel through its registry.

The car is driven in OptimumK's own motion style
(`suspension_sim.optimumk.motion.optimumk_motion`: heave along Z, roll about the
step-0 roll axis, pitch about the step-0 pitch axis, integrated step by step,
every tyre at its own design contact-patch height, rack = Motion [Steering] x the
workbook's Steering ratio), and each channel of the export is compared with the
channel of the same name from `suspension_sim.optimumk.channels.optimumk_channels`
(OptimumK's definitions, display units mm, deg, deg/mm, %). What is not compared
is listed with the reason (`NOT_COMPARED_REASONS`), never guessed:

* OptimumK's definition not established (for this motion or car);
* always blank in OptimumK (NaN for a double wishbone);
* blank in the export;
* a force channel (the loads comparison: give a force case);
* not computed by suspension_sim, or no value for this car.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.validation.drive import StepResult
from suspension_sim.validation.export import Column, Export
from suspension_sim.validation.okexport import OK_FORCE, OK_METRIC
from suspension_sim.validation.quantities import ChannelMap
from suspension_sim.validation.results import (
    DEFAULT_TOLERANCES,
    RELATIVE_TOLERANCE,
    ChannelResult,
    Validation,
    diagnose,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

NOT_ESTABLISHED = "OptimumK's definition not established"
ALWAYS_BLANK = "always blank in OptimumK (no number for this suspension type)"
BLANK_IN_EXPORT = "blank in the export at every step"
FORCE_CASE = "force channel: give --force-case"
NOT_COMPUTED = "not computed by suspension_sim"
NO_VALUE = "no value for this car"
NOT_COMPARED_REASONS = (NOT_ESTABLISHED, ALWAYS_BLANK, BLANK_IN_EXPORT, FORCE_CASE, NO_VALUE)
"""Why an OptimumK channel is not compared, in the report's order."""


def motion_columns(export: Export) -> dict[str, np.ndarray]:
    """OptimumK's motion inputs (heave mm, roll deg, pitch deg, steering deg; 0 when the
    export has no such column); InputError naming the first blank cell of one."""
    from suspension_sim.validation.drive import finite_values

    motion = export.motion()
    if not any(k in motion for k in ("heave", "roll", "pitch", "steering")):
        raise InputError(
            "missing motion channels: the export has none of 'Motion [Heave]', "
            "'Motion [Roll]', 'Motion [Pitch]', 'Motion [Steering]'",
            where=str(export.path),
            hint="export the result with its Motion channels",
        )
    n = export.n_steps
    return {
        k: (finite_values(motion[k]) if k in motion else np.zeros(n))
        for k in ("heave", "roll", "pitch", "steering")
    }


def tolerance_of(col: Column, tol: dict[str, float]) -> float:
    """Largest deviation allowed for a channel: the tolerance of its dimension; for ratios
    and gains plus `RELATIVE_TOLERANCE` of the largest value the export gives, so that a
    rate of hundreds (Motion Ratio Steering, deg per mm) is judged relatively."""
    base = tol[col.dimension]
    if col.dimension in ("ratio", "gain"):
        finite = np.abs(col.values[np.isfinite(col.values)])
        if finite.size:
            base += RELATIVE_TOLERANCE * float(finite.max())
    return base


def validate_optimumk(
    model: KinematicModel,
    export: Export,
    *,
    tolerances: dict[str, float] | None = None,
    workbook: str | Path | None = None,
) -> Validation:
    """Drive `model` as OptimumK moves its car and compare every registry channel."""
    from suspension_sim.optimumk.channels import channel_status, optimumk_channels
    from suspension_sim.optimumk.motion import optimumk_motion

    tol = {**DEFAULT_TOLERANCES, **(tolerances or {})}
    inputs = motion_columns(export)
    used = [c.header.text for k, c in export.motion().items() if k != "completion"]
    motion = optimumk_motion(
        model, inputs["heave"], inputs["roll"], inputs["pitch"], inputs["steering"]
    )
    steps = [
        StepResult(i, pose, motion.problems.get(i))
        if pose is not None
        else StepResult(i, None, motion.problems.get(i, "not solved"))
        for i, pose in enumerate(motion.poses)
    ]
    pitch = bool(np.any(inputs["pitch"] != 0))
    steered = bool(np.any(inputs["steering"] != 0))
    outputs = export.outputs()
    wanted: list[Column] = []
    not_compared: list[tuple[str, str]] = []
    for col in outputs:
        metric = col.rule.metric
        if metric == OK_FORCE:
            not_compared.append((col.header.text, FORCE_CASE))
            continue
        if metric != OK_METRIC:
            continue
        status, why = channel_status(model, col.header.name, pitch=pitch, steered=steered)
        if status == "always blank":
            note = ALWAYS_BLANK
            if np.isfinite(col.values).any():
                note += " (but this export has numbers in it)"
            not_compared.append((col.header.text, note))
        elif status != "established":
            not_compared.append((col.header.text, f"{NOT_ESTABLISHED}: {why}" if why else ""))
        elif not np.isfinite(col.values).any():
            not_compared.append((col.header.text, BLANK_IN_EXPORT))
        else:
            wanted.append(col)
    not_compared = [(t, r or NOT_ESTABLISHED) for t, r in not_compared]
    ours = optimumk_channels(model, motion.poses, motion=motion) if wanted else {}
    solved = np.array([s.ok for s in steps], dtype=bool)
    results: list[ChannelResult] = []
    for col in wanted:
        key = col.header.name
        values = ours.get(key)
        if values is None or (solved.any() and not np.isfinite(values[solved]).any()):
            not_compared.append((col.header.text, NO_VALUE))
            continue
        res = ChannelResult(
            col, key, np.asarray(values, dtype=float), col.values, tolerance_of(col, tol)
        )
        res.notes = diagnose(res)
        results.append(res)
    for text in export.ignored:
        not_compared.append((text, NOT_COMPUTED))
    return Validation(
        str(workbook or model.car.source_path or model.car.name),
        export,
        "motion",
        ChannelMap(source="OptimumK's channel registry (docs/validation.md)"),
        tol,
        steps,
        results,
        used,
        list(motion.notes),
        [],
        not_compared=not_compared,
        style="optimumk",
    )
