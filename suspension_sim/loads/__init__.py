"""Loads in every link and pickup from the solved constraint Jacobian (docs/loads.md).

    from suspension_sim.loads import LoadCase, WheelLoad, solve_loads
    pose = model.solve()
    result = solve_loads(pose, [LoadCase("bump", {"FL": WheelLoad((0, 0, 3000))})])
    result.table  # force at every joined point, member axial forces, pickups

Forces in N (torques in N m), world frame, + axial = tension.
"""

from suspension_sim.loads.cases import LoadCase, WheelLoad, car_cases, standard_cases
from suspension_sim.loads.result import LoadResult, solve_loads, sweep_loads

loads = solve_loads
"""The issue's name for `solve_loads`: ``suspension_sim.loads.loads(pose, cases)``."""

__all__ = [
    "LoadCase",
    "LoadResult",
    "WheelLoad",
    "car_cases",
    "loads",
    "solve_loads",
    "standard_cases",
    "sweep_loads",
]
