"""Old module paths (before 0.2) keep importing, with a DeprecationWarning.

0.2 arranged the package in one-way layers (docs/model.md, "Layout"); scripts
written against 0.1 import e.g. ``suspension_sim.motions``. A finder on
``sys.meta_path`` serves each old name as the module at its new place.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

MOVED: dict[str, str] = {
    "suspension_sim.solver": "suspension_sim.solve.solver",
    "suspension_sim.targets": "suspension_sim.solve.targets",
    "suspension_sim.continuation": "suspension_sim.solve.continuation",
    "suspension_sim.steering": "suspension_sim.solve.steering",
    "suspension_sim.motions": "suspension_sim.sweeps.motions",
    "suspension_sim.sweep_plots": "suspension_sim.outputs.plots",
    "suspension_sim.xlsx_append": "suspension_sim.outputs.xlsx_append",
    "suspension_sim.examples": "suspension_sim.workbook.examples",
}
"""Module path in 0.1 -> its place now. (``suspension_sim.sensitivity``, 0.1's path of
`suspension_sim.solve.sensitivity`, is now the hardpoint-sensitivity function.)"""


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.target} in suspension_sim 0.2; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """The target module is already executed."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the 0.1 names in `MOVED` and loads their new modules."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(MOVED[fullname]))


def install() -> None:
    """Add the finder once (idempotent)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
