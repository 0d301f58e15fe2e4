"""Compare the model with an export, channel by channel (mm, deg).

`validate(model, export, ...)` drives the model through the export's motion
(`suspension_sim.validation.drive`), computes our metrics in the ``optimumk``
sign preset at every step, and for each mapped channel reports the largest
and RMS deviation (ours - theirs) against a tolerance per dimension: angles
(deg), lengths (mm) and ratios. A channel passes when its largest deviation
is within tolerance at every step both tools have a value for; a step the
model cannot solve fails every channel.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.tolerances import CONTACT_OFF_GROUND_MM
from suspension_sim.validation.drive import (
    Drive,
    StepResult,
    column_key,
    corner_wheels,
    drive_model,
    missing_motions,
    wheel_dampers_or_none,
)
from suspension_sim.validation.export import Export
from suspension_sim.validation.quantities import ChannelMap
from suspension_sim.validation.results import (
    CONVENTION,
    DEFAULT_TOLERANCES,
    ChannelResult,
    Validation,
    diagnose,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.loads.cases import LoadCase
    from suspension_sim.model import KinematicModel
    from suspension_sim.optimumk.forces import ForceKeys


def _needs_rates(keys: list[str]) -> bool:
    from suspension_sim.metrics.catalogue import metric_of

    for k in keys:
        found = metric_of(k)
        if found is not None and found[0].rates:
            return True
    return False


def available_columns(model: KinematicModel) -> set[str]:
    """Every metric column `pose_metrics` gives for this car."""
    from suspension_sim.metrics.catalogue import CATALOGUE
    from suspension_sim.metrics.core import layout

    return {CATALOGUE[m].key(w, c) for m, w, c in layout(model, True)}


def evaluate_metrics(
    steps: list[StepResult], keys: list[str], *, rates: bool
) -> dict[str, np.ndarray]:
    """Our metric columns `keys` at every step (NaN where a step failed), optimumk preset."""
    from suspension_sim.metrics import pose_metrics

    out = {k: np.full(len(steps), np.nan) for k in keys}
    available: set[str] | None = None
    for i, s in enumerate(steps):
        if not s.ok or s.pose is None:
            continue
        values = pose_metrics(s.pose, convention=CONVENTION, rates=rates)
        if available is None:
            available = set(values)
            unknown = [k for k in keys if k not in available]
            if unknown:
                raise InputError(
                    f"our metrics do not include {', '.join(unknown)}",
                    where="channel_map",
                    hint="metric columns available for this car: "
                    + ", ".join(sorted(available)[:40])
                    + (" ..." if len(available) > 40 else ""),
                )
        for k in keys:
            out[k][i] = float(values[k])
    return out


def validate(
    model: KinematicModel,
    export: Export,
    *,
    drive: Drive = "motion",
    channel_map: ChannelMap | None = None,
    tolerances: dict[str, float] | None = None,
    workbook: str | Path | None = None,
    force_case: LoadCase | str | None = None,
    force_keyframes: ForceKeys | str | Path | None = None,
) -> Validation:
    """Drive `model` through `export` and compare every mapped channel (mm, deg).

    An export read in OptimumK's layout (``export.style == "optimumk"``) is driven in
    OptimumK's motion style and compared through its channel registry
    (`suspension_sim.validation.okcompare`); `drive` must then be ``motion``. Its force
    channels (N, N m) are compared when the force case is given: `force_case`, a
    `LoadCase` or the name of one in the workbook's Load Cases section, held at every
    step; or `force_keyframes`, OptimumK's keyframes (`ForceKeys` or the CSV of
    docs/loads.md) ramped with the export's ``Motion [Completion Percentage]``.
    """
    source = force_source(model, export, force_case, force_keyframes, workbook)
    if export.style == "optimumk":
        if drive != "motion":
            raise InputError(
                f'drive="{drive}" compares through a channel map; this export was read in '
                "OptimumK's layout, which is driven by its own motion",
                where="drive",
                hint='read it as a table (read_export(..., layout="table"), or give --map) '
                'for drive="dampers"',
            )
        from suspension_sim.validation.okcompare import validate_optimumk

        return validate_optimumk(
            model, export, tolerances=tolerances, workbook=workbook, force_case=source
        )
    cmap = channel_map or ChannelMap()
    tol = {**DEFAULT_TOLERANCES, **(tolerances or {})}
    wheels = corner_wheels(model, cmap)
    dampers_of = wheel_dampers_or_none(model)
    outputs = export.outputs()
    if not outputs:
        raise InputError(
            "the export has no channel to compare (camber, toe, damper length, ...)",
            where=str(export.path),
            hint="export per-corner channels such as 'Camber Angle Front Left [deg]'",
        )
    keys = [column_key(model, c, wheels, dampers_of) for c in outputs]
    # A default-map channel that this car has no column for (anti-lift on a front
    # wheel, a push rod on a direct-acting damper) is listed, not an error.
    have = available_columns(model)
    not_computed = [
        f"{c.header.text} (no `{k}` for this car)"
        for c, k in zip(outputs, keys, strict=True)
        if k not in have and c.rule.source == "default map"
    ]
    pairs = [
        (c, k)
        for c, k in zip(outputs, keys, strict=True)
        if k in have or c.rule.source != "default map"
    ]
    outputs, keys = [c for c, _ in pairs], [k for _, k in pairs]
    if not outputs:
        raise InputError(
            "the export has no channel that this car has a value for: "
            + "; ".join(not_computed[:6]),
            where=str(export.path),
            hint="export per-corner channels such as 'Camber Angle [Left] [Front] (deg)'",
        )
    steps, inputs = drive_model(model, export, drive, wheels, dampers_of)
    ours = evaluate_metrics(steps, list(dict.fromkeys(keys)), rates=_needs_rates(keys))
    results = []
    solved = np.array([s.ok for s in steps], dtype=bool)
    for col, key in zip(outputs, keys, strict=True):
        if (
            col.rule.source == "default map"
            and solved.any()
            and not np.isfinite(ours[key][solved]).any()
        ):
            # a column this car has but never fills (a push rod on a direct-acting
            # damper, a steering gain without a Steering ratio): not compared, listed
            not_computed.append(f"{col.header.text} (`{key}` has no value for this car)")
            continue
        role = "input" if col.header.text in inputs else "compared"
        res = ChannelResult(col, key, ours[key], col.values, tol[col.dimension], role)
        res.notes = diagnose(res)
        results.append(res)
    assumed, assumed_text = (
        missing_motions(model, export, inputs) if drive == "motion" else ([], [])
    )
    warnings = assumed_text + _design_warnings(model, steps)
    return Validation(
        str(workbook or model.car.source_path or model.car.name),
        export,
        drive,
        cmap,
        tol,
        steps,
        results,
        inputs,
        warnings,
        not_computed,
        assumed=assumed,
    )


def force_source(
    model: KinematicModel,
    export: Export,
    force_case: LoadCase | str | None,
    force_keyframes: ForceKeys | str | Path | None,
    workbook: str | Path | None,
) -> LoadCase | ForceKeys | None:
    """The force case `validate` compares the force channels with (None: not compared).
    InputError naming the parameter (the command's --force-case / --force-keyframes)."""
    if force_case is None and force_keyframes is None:
        return None
    if force_case is not None and force_keyframes is not None:
        raise InputError(
            "give one force case: a workbook case or the keyframes, not both",
            where="force_keyframes",
            hint="--force-case NAME holds a Load Cases case; --force-keyframes FILE.csv ramps "
            "OptimumK's keyframes",
        )
    option = "force_case" if force_case is not None else "force_keyframes"
    if export.style != "optimumk":
        raise InputError(
            "force channels are compared only for an export read in OptimumK's layout "
            "(no --map, --drive motion)",
            where=option,
            hint="leave out the map file and --drive dampers, or the force case",
        )
    from suspension_sim.optimumk.forces import ForceKeys, read_force_keys
    from suspension_sim.validation.okforces import workbook_case

    if isinstance(force_case, str):
        return workbook_case(model, force_case, workbook)
    if force_case is not None:
        return force_case
    if isinstance(force_keyframes, ForceKeys):
        return force_keyframes
    assert force_keyframes is not None
    path = Path(force_keyframes)
    if not path.is_file():
        raise InputError(f"no keyframes file {str(path)!r}", where="force_keyframes")
    return read_force_keys(path, model)


def _design_warnings(model: KinematicModel, steps: list[StepResult]) -> list[str]:
    """Notes about the car that affect the comparison (contact points off the ground)."""
    out: list[str] = []
    wheels = model.car.wheels
    for w in wheels:
        c = model.car.point(w.centre)
        a = model.car.point(w.axis_point)
        s = (a - c) / np.linalg.norm(a - c)
        d = np.array([0.0, 0.0, 1.0]) - s[2] * s
        cp = c - w.tyre_radius * d / np.linalg.norm(d)
        if abs(cp[2]) > CONTACT_OFF_GROUND_MM:
            out.append(
                f"wheel {w.name}: at design its contact point is at z = {cp[2]:.2f} mm, not on "
                "the ground (z = 0); the motion drive holds it at z = 0, so heave 0 is not the "
                "design state"
            )
    return out
