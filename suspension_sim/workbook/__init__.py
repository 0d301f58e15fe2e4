"""The car workbook: read it into a `Car`, write a `Car` back (docs/workbook.md)."""

from suspension_sim.workbook.reader import read_car
from suspension_sim.workbook.writer import write_car

__all__ = ["read_car", "write_car"]
