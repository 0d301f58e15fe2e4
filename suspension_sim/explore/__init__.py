"""Design exploration: hardpoint sensitivities (`suspension_sim.explore.sensitivity`: the
implicit function theorem with exact forward-mode derivatives, docs/exploration.md).

``suspension_sim.sensitivity(model, ...)`` is the entry point; `pose_derivatives`,
`hardpoint_names`, `mirror_pairs` and `SensitivityResult` are importable from here too.
Nothing is imported until used (the submodule ``sensitivity`` keeps its name: the function
of that name lives at ``suspension_sim.sensitivity`` and in the submodule), so importing a
sibling module of this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.explore.sensitivity import (
        SensitivityResult,
        hardpoint_names,
        mirror_pairs,
        pose_derivatives,
    )

_LAZY = ("SensitivityResult", "hardpoint_names", "mirror_pairs", "pose_derivatives")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from suspension_sim.explore import sensitivity

        return getattr(sensitivity, name)
    raise AttributeError(f"module 'suspension_sim.explore' has no attribute {name!r}")


__all__ = ["SensitivityResult", "hardpoint_names", "mirror_pairs", "pose_derivatives"]
