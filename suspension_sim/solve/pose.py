"""A solved pose and how its solve went: `Pose`, `SolveInfo`, the chassis transform.

A `Pose` holds the full joint-parameter vector of one solved (or best-effort)
state and derives everything else from the model on demand: point copies,
joined points, residuals and body frames, in the world frame (mm).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.model.screws import rotation_xyz, transform
from suspension_sim.tolerances import NEAR_SINGULAR_RATIO

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.targets import Target

ChassisState = tuple[float, float, float, float, float, float]
"""x, y, z (mm), roll, pitch, yaw (deg) of the chassis relative to design."""


@dataclass(frozen=True)
class SolveInfo:
    """How a solve went. Residuals in mm.

    The near-singular check (smallest over largest singular value of each
    column-scaled Jacobian block) costs more than a warm solve, so a solve may
    leave it to be computed on first use of `singular_ratio` or `near_singular`
    (``ratio`` NaN and ``ratio_of`` the function that computes it).
    """

    converged: bool
    method: str  # "engine", "trf", "trf+lm" or "none" (nothing to solve)
    iterations: int
    nfev: int
    njev: int
    max_residual_mm: float
    tolerance_mm: float
    seconds: float
    ratio: float  # min/max singular value of the column-scaled Jacobian (NaN: on demand)
    ratio_flag: bool  # ratio < NEAR_SINGULAR_RATIO
    message: str = ""
    ratio_of: Callable[[], float] | None = field(default=None, compare=False, repr=False)
    prediction: np.ndarray | None = field(default=None, compare=False, repr=False)
    """The engine's first-order start (n_params,), made from the parameters in
    `predicted_from` (the guess): continuation screens steps with it for free."""
    predicted_from: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def singular_ratio(self) -> float:
        """Smallest min/max singular value over the Jacobian's blocks (computed on demand)."""
        if math.isnan(self.ratio) and self.ratio_of is not None:
            value = float(self.ratio_of())
            object.__setattr__(self, "ratio", value)
            object.__setattr__(self, "ratio_flag", value < NEAR_SINGULAR_RATIO)
            object.__setattr__(self, "ratio_of", None)
        return self.ratio

    @property
    def near_singular(self) -> bool:
        """True near a toggle (dead point): `singular_ratio` below NEAR_SINGULAR_RATIO."""
        _ = self.singular_ratio
        return self.ratio_flag

    def summary(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        text = (
            f"{state} with {self.method}: {self.iterations} iterations, {self.nfev} residual "
            f"evaluations, largest residual {self.max_residual_mm:.3g} mm "
            f"(tolerance {self.tolerance_mm:g} mm), {self.seconds * 1e3:.2f} ms"
        )
        if self.near_singular:
            text += f"; near-singular (ratio {self.singular_ratio:.2g})"
        if self.message:
            text += f"; {self.message}"
        return text


@dataclass
class Pose:
    """A solved (or best-effort) pose of the car, in the world frame (mm).

    `params` is the full joint parameter vector (pass the pose as ``guess=``
    to warm-start the next solve).
    """

    model: KinematicModel = field(repr=False)
    params: np.ndarray = field(repr=False)
    shocks: dict[str, float]
    rack: float
    chassis: ChassisState
    info: SolveInfo
    failure: str | None = None
    targets: dict[str, Target] = field(default_factory=dict)

    @property
    def converged(self) -> bool:
        return self.info.converged

    @cached_property
    def chassis_transform(self) -> np.ndarray:
        """4x4 world transform of the chassis (docs/conventions.md: about the reference point)."""
        return chassis_transform(self.model, self.chassis)

    @cached_property
    def copies(self) -> pd.DataFrame:
        """Every copy of every point (point, body) -> x, y, z in the world frame."""
        import pandas as pd  # only here: a solve alone does not need pandas (0.3 s to import)

        P, _ = self.model.instance_positions(self.params[:, None], derivatives=False)
        world = apply_transform(self.chassis_transform, P[:, :, 0])
        index = pd.MultiIndex.from_arrays(
            [self.model.inst_point, self.model.inst_body], names=["point", "body"]
        )
        return pd.DataFrame(world, index=index, columns=["x", "y", "z"])

    @cached_property
    def points(self) -> pd.DataFrame:
        """Point name -> x, y, z (mm, world frame); joined points at the mean of their copies."""
        df = self.copies.groupby(level="point", sort=False).mean()
        df.index.name = "point"
        return df

    @cached_property
    def residuals(self) -> pd.Series:
        """Joined point -> largest distance between its copies (mm)."""
        import pandas as pd

        m = self.model
        r = m.residuals(self.params[:, None])[:, 0].reshape(-1, 3)
        gap = pd.Series(np.linalg.norm(r, axis=1), index=list(m.pair_point))
        out = gap.groupby(level=0, sort=False).max()
        out.index.name = "point"
        out.name = "residual_mm"
        return out

    @cached_property
    def body_frames(self) -> dict[str, np.ndarray]:
        """Body -> 4x4 world transform that carries its design points to this pose.

        A damper has two entries: ``NAME`` (cylinder) and ``NAME.rod``.
        """
        G, _ = self.model.part_transforms(self.params[:, None], derivatives=False)
        out: dict[str, np.ndarray] = {}
        for i, part in enumerate(self.model.parts):
            T = np.eye(4)
            T[:3, :] = G[i, :, :, 0]
            name = part.body + (".rod" if part.chain == "damper_rod" else "")
            out[name] = self.chassis_transform @ T
        return out


def chassis_transform(model: KinematicModel, chassis: ChassisState) -> np.ndarray:
    """World transform of the chassis: R about the reference point, then x, y, z (mm, deg)."""
    x, y, z, roll, pitch, yaw = (float(v) for v in chassis)
    ref = model.derived.get("chassis_reference_point", lambda: _reference_point(model))
    R = rotation_xyz(np.radians(roll), np.radians(pitch), np.radians(yaw))
    return transform(R, ref + np.array([x, y, z]) - R @ ref)


def _reference_point(model: KinematicModel) -> np.ndarray:
    """The chassis reference point's design position (mm; the origin when the workbook
    names none), read-only: kept per model."""
    ref_name = model.car.options.chassis_reference_point
    ref = model.car.point(ref_name) if ref_name else np.zeros(3)
    ref.flags.writeable = False
    return ref


def apply_transform(T: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Points P (n, 3) moved by the 4x4 transform T."""
    return P @ T[:3, :3].T + T[:3, 3]
