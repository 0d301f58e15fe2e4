"""What a sweep produced: the solved steps, their problems and notes, and the table.

`SweepResult.table` is one row per solved step: the swept values, every metric
(computed for all steps at once), the dampers past their length limits, and
optionally OptimumK's channels. `MetricRows` is what a sweep keeps of each step
with ``keep_poses=False``. Split from `suspension_sim.sweeps.run` (which
re-exports these names). Units: mm and degrees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from suspension_sim.sweeps.motions import Motion
from suspension_sim.sweeps.spec import SweepSpec
from suspension_sim.tolerances import LIMIT_NOTE_MM

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.batch import BatchResult
    from suspension_sim.solve.pose import Pose


MAX_NOTES = 6
"""Notes shown by `SweepResult.summary` (all are in `SweepResult.notes`)."""


@dataclass(frozen=True)
class Problem:
    """A step that was not solved (or a note about one that was).

    step: index in the motion (0-based). values: the swept values.
    kind: "unreachable", "branch jump", "input" (an invalid input such as a
    stroke beyond the damper's length limits) or "note".
    """

    step: int
    values: tuple[float, ...]
    message: str
    kind: Literal["unreachable", "branch jump", "input", "note"] = "unreachable"

    def describe(self, columns: Sequence[str]) -> str:
        vals = ", ".join(f"{c} = {v:g}" for c, v in zip(columns, self.values, strict=False))
        return f"step {self.step} ({vals}): {self.message}"


@dataclass
class MetricRows:
    """What a sweep keeps of each solved step with ``keep_poses=False``: the joint
    parameters and inputs (a few hundred bytes a step, not a `Pose`) and the
    damper-limit text; `frame` computes every metric for all steps at once
    (`suspension_sim.metrics.batch.batch_metrics`, as `SweepResult.table` does
    for kept poses). `convention` is the preset's name."""

    convention: str
    model: KinematicModel | None = None
    params: list[np.ndarray] = field(default_factory=list)
    shocks: list[list[float]] = field(default_factory=list)
    rack: list[float] = field(default_factory=list)
    chassis: list[tuple[float, ...]] = field(default_factory=list)
    residual: list[float] = field(default_factory=list)
    tolerance: float = 0.0
    limits: list[str] = field(default_factory=list)

    def add(self, pose: Pose) -> None:
        """Keep what the metrics of one solved pose need."""
        self.model = pose.model
        self.params.append(pose.params.copy())
        self.shocks.append([pose.shocks[d] for d in pose.model.damper_names])
        self.rack.append(float(pose.rack))
        self.chassis.append(tuple(pose.chassis))
        self.residual.append(pose.info.max_residual_mm)
        self.tolerance = max(self.tolerance, pose.info.tolerance_mm)
        self.limits.append(limit_text(pose))

    @property
    def values(self) -> list[np.ndarray]:
        """The kept steps' parameter vectors (one per solved step)."""
        return self.params

    def batch(self) -> BatchResult:
        """The kept steps as one `BatchResult` (its `pose(i)` rebuilds step i's pose)."""
        from suspension_sim.solve.batch import BatchResult

        assert self.model is not None
        n = len(self.params)
        return BatchResult(
            model=self.model,
            params=np.array(self.params).reshape(n, self.model.n_params),
            shocks=np.array(self.shocks, dtype=float).reshape(n, len(self.model.damper_names)),
            rack=np.array(self.rack, dtype=float),
            chassis=np.array(self.chassis, dtype=float).reshape(n, 6),
            converged=np.ones(n, dtype=bool),
            iterations=np.zeros(n, dtype=int),
            max_residual_mm=np.array(self.residual, dtype=float),
            method=np.full(n, "sweep", dtype=object),
            tolerance_mm=self.tolerance,
            seconds=0.0,
            engine="sweep",
        )

    def frame(self) -> pd.DataFrame:
        """Every metric of the kept steps, laid out as `metrics_table` lays them out."""
        from suspension_sim.metrics.batch import batch_metrics

        table = batch_metrics(self.batch(), self.convention, rates=True).reset_index(drop=True)
        table.attrs["convention"] = self.convention
        return table


def poses_table(poses: Sequence[Pose], convention: str | None) -> pd.DataFrame:
    """`metrics_table` of solved poses, computed for all of them at once
    (`suspension_sim.metrics.batch.batch_metrics`, equal to it per pose)."""
    from suspension_sim.metrics import preset
    from suspension_sim.metrics.batch import batch_metrics
    from suspension_sim.solve.batch import BatchResult

    model = poses[0].model
    name = preset(convention or model.car.options.sign_convention).name
    table = batch_metrics(BatchResult.from_poses(model, poses), name, rates=True)
    table.attrs["convention"] = name
    return table.reset_index(drop=True)


@dataclass
class SweepResult:
    """What a sweep produced. Poses, values and seconds are for the solved steps only.

    `poses` is empty when the sweep ran with ``keep_poses=False``: the table's metrics
    were then computed step by step into `rows` and the poses let go.
    """

    spec: SweepSpec
    motion: Motion
    poses: list[Pose]
    steps: list[int]  # motion step index of each solved step
    problems: list[Problem]
    notes: list[Problem]
    seconds: list[float]  # wall time of each solved step (s)
    convention: str | None = None
    model: KinematicModel | None = None
    rows: MetricRows | None = None
    motion_style: str = "ours"
    """How the ground motions moved the chassis (`suspension_sim.sweeps.motions.MOTION_STYLES`)."""
    optimumk_channels: bool = False
    """`table` also holds OptimumK's channels (`suspension_sim.sweeps.okcolumns`)."""

    @property
    def columns(self) -> tuple[str, ...]:
        """Names (with units) of the swept variables."""
        return self.motion.columns

    @property
    def values(self) -> np.ndarray:
        """Swept values of the solved steps, (solved steps, columns)."""
        return self.motion.values[self.steps] if self.steps else np.zeros((0, len(self.columns)))

    @property
    def ok(self) -> bool:
        return not self.problems

    @cached_property
    def table(self) -> pd.DataFrame:
        """One row per solved step (index ``step``): the swept values, then every metric
        (`suspension_sim.metrics.metrics_table`; a metric column equal to a swept one is
        not repeated); with `optimumk_channels`, then every OptimumK channel of the solved
        poses under OptimumK's header (`suspension_sim.sweeps.okcolumns.optimumk_columns`).
        ``attrs`` holds the sweep name and the sign convention."""
        front = pd.DataFrame(self.values, columns=list(self.columns))
        metrics: pd.DataFrame | None = None
        if self.rows is not None and self.rows.values:
            metrics, limits = self.rows.frame(), self.rows.limits
        elif self.poses:
            metrics = poses_table(self.poses, self.convention)
            limits = [limit_text(p) for p in self.poses]
        if metrics is not None:
            attrs = dict(metrics.attrs)
            metrics = metrics.drop(columns=[c for c in front.columns if c in metrics.columns])
            table = pd.concat([front, metrics], axis=1).copy()
            # Strokes solved for a target are not limited by the solver: say so on
            # every row, so a plot of the table cannot hide a bottomed-out damper.
            table["dampers_beyond_limits"] = limits
            if self.optimumk_channels:
                table = pd.concat([table, self.optimumk_table()], axis=1)
            table.attrs.update(attrs)
        else:
            table = front
        table.index = pd.Index(self.steps, name="step")
        table.attrs["sweep"] = self.spec.name
        return table

    def solved_poses(self) -> list[Pose]:
        """The solved steps' poses, in order: the kept ones, else rebuilt from what
        ``keep_poses=False`` kept (`MetricRows`; the same joint parameters and inputs)."""
        if self.poses:
            return list(self.poses)
        if self.rows is not None and self.rows.values:
            batch = self.rows.batch()
            return [batch.pose(i) for i in range(len(batch))]
        return []

    def optimumk_table(self) -> pd.DataFrame:
        """OptimumK's channels of the solved steps (`optimumk_columns`), one row per
        solved step (0..n-1); no columns when no step was solved."""
        from suspension_sim.sweeps.okcolumns import optimumk_columns

        poses = self.solved_poses()
        if not poses:
            return pd.DataFrame(index=pd.RangeIndex(0))
        return optimumk_columns(poses[0].model, poses)

    def summary(self) -> str:
        """Steps solved, problems, slowest step: a few lines for the terminal."""
        n = len(self.motion)
        total = sum(self.seconds)
        lines = [
            f"sweep {self.spec.name!r} ({self.motion.name}): {len(self.steps)} of {n} steps "
            f"solved in {total:.2f} s"
        ]
        if self.seconds:
            k = int(np.argmax(self.seconds))
            vals = ", ".join(
                f"{c} = {v:g}" for c, v in zip(self.columns, self.values[k], strict=True)
            )
            lines.append(f"slowest step: {self.steps[k]} ({vals}), {self.seconds[k]:.3f} s")
        for note in self.notes[:MAX_NOTES]:
            lines.append("note: " + note.describe(self.columns))
        if len(self.notes) > MAX_NOTES:
            lines.append(f"... and {len(self.notes) - MAX_NOTES} more note(s) (result.notes)")
        if self.problems:
            lines.append(f"{len(self.problems)} problem(s):")
            lines += ["  " + p.describe(self.columns) for p in self.problems]
        else:
            lines.append("no problems")
        return "\n".join(lines)


def limit_text(pose: Pose) -> str:
    """The table's ``dampers_beyond_limits`` cell: the dampers past their lengths, or ''."""
    return "; ".join(damper_limit_notes(pose)).removeprefix("dampers beyond their length limits: ")


def damper_limit_notes(pose: Pose) -> list[str]:
    """One line naming the dampers whose solved length is outside their Min/Max length.

    Strokes solved for a target (ground motions, bump) are not limited by the
    solver: the pose is kept, but those dampers would have bottomed or topped out.
    """
    out = []
    car = pose.model.car
    design = pose.model.derived.get(
        "damper_design_lengths", lambda: {d.body: car.damper_design_length(d) for d in car.dampers}
    )
    for d in car.dampers:
        length = design[d.body] - pose.shocks[d.body]
        if d.min_length is not None and length < d.min_length - LIMIT_NOTE_MM:
            out.append(f"{d.body} {length:.1f} mm < min {d.min_length:g} mm")
        if d.max_length is not None and length > d.max_length + LIMIT_NOTE_MM:
            out.append(f"{d.body} {length:.1f} mm > max {d.max_length:g} mm")
    return ["dampers beyond their length limits: " + ", ".join(out)] if out else []
