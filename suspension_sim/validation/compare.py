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

from dataclasses import dataclass, field
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
    wheel_dampers_or_none,
)
from suspension_sim.validation.export import Column, Export
from suspension_sim.validation.quantities import ChannelMap

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

DEFAULT_TOLERANCES: dict[str, float] = {
    "angle": 0.02,
    "length": 0.1,
    "ratio": 0.005,
    "percent": 0.1,
    "gain": 0.001,
    "force": 1.0,
    "moment": 1.0,
}
"""Largest deviation allowed: deg for angles, mm for lengths, plain for ratios (and
deg/deg), % for percentages (anti-dive, Ackermann), deg/mm for gains (0.001 deg/mm:
the angle tolerance, 0.02 deg, over 20 mm of wheel travel), N for forces and N m for
moments (1: a thousandth of a typical kN joint load)."""

RELATIVE_TOLERANCE = 1e-4
"""Added to the tolerance of an OptimumK ratio or gain channel, times the largest
value the export gives: rates such as Motion Ratio Steering (deg of steering wheel per
mm of coilover) run into the hundreds, where a fixed 0.005 would judge rounding."""

CONVENTION = "optimumk"
"""Sign preset our metrics are computed in for the comparison."""


@dataclass
class ChannelResult:
    """One channel compared. Deviations are ours - theirs, in `unit`.

    role: "compared", or "input" for a channel that drove the model (damper
    lengths under ``--drive dampers``), shown but never failed.
    """

    column: Column
    key: str
    ours: np.ndarray
    theirs: np.ndarray
    tolerance: float
    role: str = "compared"
    notes: list[str] = field(default_factory=list)

    @property
    def channel(self) -> str:
        """The channel in the export's words, e.g. ``CoilOver Length Front Left``."""
        loc = self.column.location
        return f"{self.quantity} {loc}" if loc else self.quantity

    @property
    def unit(self) -> str:
        return self.column.unit

    @property
    def location(self) -> str:
        return self.column.location or ""

    @property
    def quantity(self) -> str:
        """The quantity as the export spells it (its name without the corner)."""
        return self.column.header.label

    @property
    def diff(self) -> np.ndarray:
        return self.ours - self.theirs

    @property
    def valid(self) -> np.ndarray:
        """Steps where the export has a value."""
        return np.isfinite(self.theirs)

    @property
    def missing_ours(self) -> np.ndarray:
        """Steps where the export has a value and we do not (unsolved step or NaN metric)."""
        return self.valid & ~np.isfinite(self.ours)

    @property
    def max_abs(self) -> float:
        d = np.abs(self.diff[self.valid & np.isfinite(self.ours)])
        return float(d.max()) if d.size else float("nan")

    @property
    def at_step(self) -> int | None:
        mask = self.valid & np.isfinite(self.ours)
        if not mask.any():
            return None
        d = np.where(mask, np.abs(self.diff), -1.0)
        return int(np.argmax(d))

    @property
    def rms(self) -> float:
        d = self.diff[self.valid & np.isfinite(self.ours)]
        return float(np.sqrt(np.mean(d * d))) if d.size else float("nan")

    @property
    def mean(self) -> float:
        d = self.diff[self.valid & np.isfinite(self.ours)]
        return float(np.mean(d)) if d.size else float("nan")

    @property
    def passed(self) -> bool:
        if self.role == "input":
            return True
        if not self.valid.any():
            return True
        if self.missing_ours.any():
            return False
        return bool(self.max_abs <= self.tolerance)


@dataclass
class Validation:
    """The outcome of one validation run."""

    workbook: str
    export: Export
    drive: Drive
    channel_map: ChannelMap
    tolerances: dict[str, float]
    steps: list[StepResult]
    channels: list[ChannelResult]
    inputs: list[str]
    warnings: list[str] = field(default_factory=list)
    not_computed: list[str] = field(default_factory=list)
    """Default-map channels this car has no value for (e.g. anti-lift on a front wheel)."""
    not_compared: list[tuple[str, str]] = field(default_factory=list)
    """OptimumK channels not compared: (header, reason) (`okcompare.NOT_COMPARED_REASONS`)."""
    style: str = "table"
    """``optimumk``: compared through OptimumK's channel registry, driven in its motion
    style; ``table``: through a channel map and the ``drive``."""

    @property
    def failed_steps(self) -> list[StepResult]:
        return [s for s in self.steps if not s.ok]

    @property
    def failed_channels(self) -> list[ChannelResult]:
        return [c for c in self.channels if not c.passed]

    @property
    def compared(self) -> list[ChannelResult]:
        return [c for c in self.channels if c.role == "compared"]

    @property
    def passed(self) -> bool:
        return not self.failed_steps and not self.failed_channels and bool(self.compared)

    def summary(self) -> str:
        """One line for the terminal."""
        n = len(self.compared)
        if self.passed:
            worst = max(self.compared, key=lambda c: c.max_abs / c.tolerance)
            return (
                f"PASS: {n} channels over {self.export.n_steps} steps within tolerance "
                f"(closest: {worst.channel}, {worst.max_abs:.3g} {worst.unit} of "
                f"{worst.tolerance:g})"
            )
        parts = []
        if self.failed_steps:
            parts.append(f"{len(self.failed_steps)} step(s) not solved")
        if self.failed_channels:
            names = ", ".join(c.channel for c in self.failed_channels[:6])
            more = len(self.failed_channels) - 6
            parts.append(
                f"{len(self.failed_channels)} of {n} channels out of tolerance: {names}"
                + (f" and {more} more" if more > 0 else "")
            )
        if not n:
            parts.append("no channel to compare")
        return "FAIL: " + "; ".join(parts)


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
) -> Validation:
    """Drive `model` through `export` and compare every mapped channel (mm, deg).

    An export read in OptimumK's layout (``export.style == "optimumk"``) is driven in
    OptimumK's motion style and compared through its channel registry
    (`suspension_sim.validation.okcompare`); `drive` must then be ``motion``.
    """
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

        return validate_optimumk(model, export, tolerances=tolerances, workbook=workbook)
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
    warnings = _design_warnings(model, steps)
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
    )


def diagnose(res: ChannelResult) -> list[str]:
    """Hints for a failing channel: a sign flip, a constant offset, a scale, steps not solved."""
    if res.passed or res.role != "compared":
        return []
    notes: list[str] = []
    n_missing = int(res.missing_ours.sum())
    if n_missing:
        notes.append(f"we have no value at {n_missing} step(s) (not solved, or NaN)")
    mask = res.valid & np.isfinite(res.ours)
    if mask.sum() < 2:
        return notes
    a, b = res.ours[mask], res.theirs[mask]
    if np.max(np.abs(a + b)) <= res.tolerance:
        notes.append("ours = -theirs at every step: a sign convention differs (map sign: -1)")
        return notes
    d = a - b
    if np.ptp(d) <= res.tolerance and abs(np.mean(d)) > res.tolerance:
        notes.append(
            f"constant offset {np.mean(d):+.4g} {res.unit}: the design values differ "
            "(a hardpoint, static setting, or a definition with another zero)"
        )
        return notes
    da, db = a - a[0], b - b[0]
    if np.ptp(db) > 10 * res.tolerance and np.ptp(da) > 0:
        corr = float(np.corrcoef(da, db)[0, 1]) if np.std(da) and np.std(db) else 0.0
        if corr < -0.99:
            notes.append("the changes run opposite (correlation < -0.99): check the sign")
        ratio = float(np.ptp(da) / np.ptp(db))
        if corr > 0.99 and abs(ratio - 1) > 0.02:
            notes.append(f"the changes differ by a factor {ratio:.4g}: check units or scale")
    return notes


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
