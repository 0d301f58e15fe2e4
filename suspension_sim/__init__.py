"""suspension_sim: screw-theory suspension kinematics driven by an Excel workbook.

Typical use::

    import suspension_sim
    model = suspension_sim.load("workbooks/fsae_car.xlsx")
    pose = model.solve(shocks=[5, 5, 0, 0], rack=2.0)
    print(pose.points)

Internal units are mm, rad and N in the ISO 8855 model frame
(+X forward, +Y left, +Z up); see docs/conventions.md.

The package reads in one direction (docs/model.md, "Layout"): workbook ->
description -> model -> solve -> metrics / sweeps -> outputs / viz /
validation -> api -> cli. Names here are imported lazily so that
``import suspension_sim`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from suspension_sim import moved
from suspension_sim.version import __version__

moved.install()

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.api import Model, load, solve
    from suspension_sim.explore.sensitivity import SensitivityResult, sensitivity
    from suspension_sim.outputs.compare import Comparison, compare
    from suspension_sim.solve.batch import solve_batch
    from suspension_sim.solve.pose import Pose, SolveInfo

_LAZY = {
    "Model": "suspension_sim.api",
    "load": "suspension_sim.api",
    "solve": "suspension_sim.api",
    "compare": "suspension_sim.outputs.compare",
    "Comparison": "suspension_sim.outputs.compare",
    "solve_batch": "suspension_sim.solve.batch",
    "Pose": "suspension_sim.solve.pose",
    "SolveInfo": "suspension_sim.solve.pose",
    "sensitivity": "suspension_sim.explore.sensitivity",
    "SensitivityResult": "suspension_sim.explore.sensitivity",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'suspension_sim' has no attribute {name!r}")


__all__ = [
    "Comparison",
    "Model",
    "Pose",
    "SensitivityResult",
    "SolveInfo",
    "__version__",
    "compare",
    "load",
    "sensitivity",
    "solve",
    "solve_batch",
]
