"""What a validation run gives: per-channel deviations, the run's verdict and the tolerances.

Shared by the channel-map comparison (`suspension_sim.validation.compare`) and
OptimumK's registry comparison (`suspension_sim.validation.okcompare`). Deviations
are ours - theirs, in mm, deg, % or plain ratios.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from suspension_sim.validation.drive import Drive, StepResult
from suspension_sim.validation.export_table import Column, Export
from suspension_sim.validation.quantities import ChannelMap

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
BLANK_IN_EXPORT = "blank in the export at every step"
NOT_COMPUTED = "not computed by suspension_sim"
"""Reasons an OptimumK channel is not compared (with `okcompare.NOT_COMPARED_REASONS`)."""


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
    assumed: list[str] = field(default_factory=list)
    """Motion channels the export lacks, taken as 0 at every step (``Motion [Roll]``;
    `warnings` says so in a sentence); a failing summary names them first."""
    blocked: str = ""
    """Why no channel was compared at all (e.g. an OptimumK export whose step 0 is not
    the design state): the summary leads with it; such a run never passes."""
    preface: list[str] = field(default_factory=list)
    """Lines said before any channel, first in the report and on the terminal (an
    OptimumK result file's check of its own car, `suspension_sim.validation.okresult`)."""
    other_car: str = ""
    """Why the compared result is of another car than the workbook's: the summary leads
    with it; such a run never passes."""

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
        return (
            not self.other_car
            and not self.failed_steps
            and not self.failed_channels
            and bool(self.compared)
        )

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
        if self.other_car:
            parts.append(self.other_car)
        if self.blocked:
            parts.append(f"no channel compared: {self.blocked}")
        if self.assumed and (self.failed_channels or self.failed_steps):
            parts.append(
                "motion channel(s) missing from the export, assumed 0 at every step: "
                + ", ".join(self.assumed)
                + " (if the run moved them, export them)"
            )
        if self.failed_steps:
            parts.append(f"{len(self.failed_steps)} step(s) not solved")
        if self.failed_channels:
            names = ", ".join(c.channel for c in self.failed_channels[:6])
            more = len(self.failed_channels) - 6
            parts.append(
                f"{len(self.failed_channels)} of {n} channels out of tolerance: {names}"
                + (f" and {more} more" if more > 0 else "")
            )
        if not n and not self.blocked:
            parts.append("no channel to compare")
        elif self.other_car and not self.failed_channels and not self.failed_steps:
            parts.append(f"the {n} channels compared with that result are within tolerance")
        return "FAIL: " + "; ".join(parts)


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
