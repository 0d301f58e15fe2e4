"""The public API: `load` a workbook into a `Model`, `solve` poses.

This is the top of the library (below only the CLI): it wires the input
layer (workbook reader, cache), the kinematic model and the solver together,
so that none of those has to import the others' layers.

    import suspension_sim
    model = suspension_sim.load("workbooks/fsae_car.xlsx")
    pose = model.solve(shocks=[10, 10, 5, 5], rack=5.0)

Units: mm for strokes, rack and chassis x/y/z; degrees for chassis roll,
pitch and yaw (docs/conventions.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from suspension_sim.errors import WorkbookError
from suspension_sim.model import KinematicModel
from suspension_sim.model.mobility import Mobility
from suspension_sim.solve.pose import Pose
from suspension_sim.solve.targets import Target

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.solve.batch import BatchResult

Strokes = Sequence[float] | Mapping[str, float] | None
"""One stroke per damper in Damping order, or {damper body: stroke} (mm, + = compression)."""


class Model(KinematicModel):
    """A car's kinematic model with its solver: what `load` returns.

    Everything kinematic (points, residuals, Jacobian) comes from
    `KinematicModel`; this class adds the solve and its diagnostics.
    """

    def solve(
        self,
        shocks: Strokes = None,
        rack: float = 0.0,
        chassis: Sequence[float] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        guess: Pose | np.ndarray | None = None,
        tolerance: float | None = None,
        on_failure: Literal["raise", "return"] = "raise",
        targets: Mapping[str, Target] | None = None,
        method: Literal["auto", "trf"] = "auto",
    ) -> Pose:
        """Solve one pose; see `solve`."""
        return solve(self, shocks, rack, chassis, guess, tolerance, on_failure, targets, method)

    def solve_batch(
        self,
        shocks: Any = None,
        rack: Any = None,
        chassis: Any = None,
        guess: Pose | np.ndarray | None = None,
        tolerance: float | None = None,
        method: Literal["auto", "compiled", "numpy"] = "auto",
    ) -> BatchResult:
        """Solve many states at once (N, n_dampers strokes; see `solve.batch.solve_batch`)."""
        from suspension_sim.solve.batch import solve_batch

        return solve_batch(self, shocks, rack, chassis, guess, tolerance, method)

    def mobility(self) -> Mobility:
        """Degree-of-freedom report at design (computed once per model)."""
        from suspension_sim.solve.diagnostics import design_mobility

        return design_mobility(self)


def solve(
    model: KinematicModel,
    shocks: Strokes = None,
    rack: float = 0.0,
    chassis: Sequence[float] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    guess: Pose | np.ndarray | None = None,
    tolerance: float | None = None,
    on_failure: Literal["raise", "return"] = "raise",
    targets: Mapping[str, Target] | None = None,
    method: Literal["auto", "trf"] = "auto",
) -> Pose:
    """Solve the pose for the given inputs.

    shocks: strokes in mm, + in compression (one per damper in Damping order,
    or {damper body: stroke}); rack: mm, + toward +Y; chassis: x, y, z (mm),
    roll, pitch, yaw (deg) relative to design; guess: a previous pose (or
    parameter vector) to warm-start from; tolerance: largest joint gap
    accepted (mm; the workbook's Solver tolerance by default); on_failure:
    "raise" a `SolveError` naming the open joints, or "return" the
    best-effort pose with ``converged=False``; targets: {input name: Target}
    replaces those inputs by targets (`suspension_sim.solve.targets`); method:
    "auto" (the block engine, then trf + Levenberg-Marquardt for anything it
    cannot close) or "trf" (trf + LM only).
    """
    from suspension_sim.solve.solver import solve as solve_pose

    return solve_pose(model, shocks, rack, chassis, guess, tolerance, on_failure, targets, method)


def load(path: str | os.PathLike[str], *, use_cache: bool = True) -> Model:
    """Read a workbook and build its model.

    The validated car description is cached as plain JSON by the workbook's
    content, its file name and the package's own code (`suspension_sim.cache`),
    so an unchanged workbook skips the reader (and openpyxl) entirely. Any
    cache problem only warns once and reads the workbook; ``use_cache=False``
    always reads it.
    """
    import dataclasses
    import hashlib

    from suspension_sim import cache
    from suspension_sim.workbook.car_json import car_from_json, car_to_json

    p = Path(path)
    if not p.is_file():
        raise WorkbookError(
            "no such workbook", where=str(p), hint="check the path (run from the project folder?)"
        )

    def digest() -> str | None:
        try:
            return hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:  # unreadable: the reader reports it
            return None

    before = digest() if use_cache else None
    key = f"{before}|{p.name}|{cache.package_fingerprint()}" if before else None
    if key is not None:
        payload = cache.read_entry("car", key)
        if payload is not None:
            try:
                car = car_from_json(payload)
            except ValueError as exc:  # well-formed, but not a car of this code
                cache.reject_entry("car", key, f"is not a car ({exc})")
                car = None
            if car is not None:
                try:
                    return Model(dataclasses.replace(car, source_path=str(p)))
                except Exception as exc:  # a well-formed entry of a car the model refuses
                    cache.reject_entry("car", key, f"does not build a model ({exc!r})")

    from suspension_sim.workbook.reader import read_car

    car = read_car(p)
    if key is not None and digest() == before:  # not changed while it was being read
        cache.write_entry("car", key, car_to_json(car).encode())
    return Model(car)
