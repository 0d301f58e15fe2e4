"""suspension_sim: screw-theory suspension kinematics driven by an Excel workbook.

Typical use::

    import suspension_sim
    model = suspension_sim.load("workbooks/fsae_car.xlsx")
    pose = model.solve(shocks=[5, 5, 0, 0], rack=2.0)
    print(pose.points)

Internal units are mm, rad and N in the ISO 8855 model frame
(+X forward, +Y left, +Z up); see docs/ and CONVENTIONS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model.model import Model


def load(path: str, *, use_cache: bool = True) -> Model:
    """Read a workbook and build its kinematic model (cached by file content)."""
    from suspension_sim.model.model import load_model

    return load_model(path, use_cache=use_cache)


__all__ = ["__version__", "load"]
