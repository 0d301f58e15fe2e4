"""Read OptimumKinematics suspension and vehicle exports (.xlsx) into a `Car`
(docs/optimumk.md): ``read_optimumk(source, rear=..., vehicle=...) -> Car``.

Modules, by job: `sheets` (an export's cells: title block, blocks, units, the
coordinate-system matrix), `export` (what the importer knows, `AxleExport`), `axle` (one
suspension sheet and its User Options), `points` (point blocks, Reference Point, Wheels),
`links` (Attachment, tie rod, Rack Pinion, Stiffness), `setup` (the vehicle setup sheet),
`car` (`read_optimumk`: which sheet is which, and the `Car` built from them).
"""

from __future__ import annotations

from suspension_sim.workbook.optimumk.car import build_car, read_optimumk, wheel_points
from suspension_sim.workbook.optimumk.export import AxleExport
from suspension_sim.workbook.optimumk.setup import VehicleSetup

__all__ = ["AxleExport", "VehicleSetup", "build_car", "read_optimumk", "wheel_points"]
