"""The car workbook: read it into a `Car`, write a `Car` back (docs/workbook.md).

`schema` declares the format (sections, columns, options), `cells` reads a
workbook's index and sections cell by cell, `reader` turns them into a
validated `Car` and `writer` lays a `Car` out as a workbook. `read_car` and
`write_car` are imported on first use, so that `car_json` (a model-cache hit)
does not import openpyxl.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.workbook.reader import read_car
    from suspension_sim.workbook.writer import write_car

__all__ = ["read_car", "write_car"]
_HOME = {"read_car": "reader", "write_car": "writer"}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
