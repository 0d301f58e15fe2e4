"""Loads in every link and pickup from the solved constraint Jacobian (docs/loads.md).

    from suspension_sim.loads import LoadCase, WheelLoad, solve_loads
    pose = model.solve()
    result = solve_loads(pose, [LoadCase("bump", {"FL": WheelLoad((0, 0, 3000))})])
    result.table  # force at every joined point, member axial forces, pickups

Forces in N (torques in N m), world frame, + axial = tension. Springs on the
dampers give wheel rates and the static ride height (`suspension_sim.loads.springs`).
"""

from suspension_sim.loads.cases import LoadCase, WheelLoad, car_cases, standard_cases
from suspension_sim.loads.result import LoadResult, solve_loads, sweep_loads
from suspension_sim.loads.springs import (
    RideHeight,
    Spring,
    corner_weights_from_cg,
    ride_height,
    spring_wheel_forces,
    wheel_rates,
)

loads = solve_loads
"""The issue's name for `solve_loads`: ``suspension_sim.loads.loads(pose, cases)``."""

__all__ = [
    "LoadCase",
    "LoadResult",
    "RideHeight",
    "Spring",
    "WheelLoad",
    "car_cases",
    "corner_weights_from_cg",
    "loads",
    "ride_height",
    "solve_loads",
    "spring_wheel_forces",
    "standard_cases",
    "sweep_loads",
    "wheel_rates",
]
