"""Result files: tables (csv, xlsx, parquet), sheets added to a workbook, charts.

from suspension_sim.outputs import write_table

The names are loaded on first use (`__getattr__`), so a command that imports one
output module (the design sheet of `check` and `report`) does not import pandas'
table writers with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.outputs.tables import FORMATS, check_table_path, write_table

__all__ = ["FORMATS", "check_table_path", "write_table"]


def __getattr__(name: str) -> Any:
    """`FORMATS`, `check_table_path`, `write_table` from `outputs.tables`, on first use."""
    if name in __all__:
        from suspension_sim.outputs import tables

        return getattr(tables, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
