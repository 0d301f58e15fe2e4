"""Loads in every link and pickup from the solved constraint Jacobian (docs/loads.md).

    from suspension_sim.loads import LoadCase, WheelLoad, solve_loads
    pose = model.solve()
    result = solve_loads(pose, [LoadCase("bump", {"FL": WheelLoad((0, 0, 3000))})])
    result.table  # force at every joined point, member axial forces, pickups

Forces in N (torques in N m), world frame, + axial = tension. Springs on the
dampers, third springs and anti-roll bars (`suspension_sim.loads.elements`) give
wheel rates, roll stiffness and the static ride height
(`suspension_sim.loads.springs`).
"""

from suspension_sim.loads.cases import LoadCase, WheelLoad, car_cases, standard_cases
from suspension_sim.loads.elements import Elements, elements_of
from suspension_sim.loads.result import LoadResult, solve_loads, sweep_loads
from suspension_sim.loads.springs import (
    AxleRates,
    RideHeight,
    RollStiffness,
    Spring,
    corner_weights_from_cg,
    ride_height,
    roll_stiffness,
    spring_wheel_forces,
    wheel_rate_terms,
    wheel_rates,
)

loads = solve_loads
"""The issue's name for `solve_loads`: ``suspension_sim.loads.loads(pose, cases)``."""

__all__ = [
    "AxleRates",
    "Elements",
    "LoadCase",
    "LoadResult",
    "RideHeight",
    "RollStiffness",
    "Spring",
    "WheelLoad",
    "car_cases",
    "corner_weights_from_cg",
    "elements_of",
    "loads",
    "ride_height",
    "roll_stiffness",
    "solve_loads",
    "spring_wheel_forces",
    "standard_cases",
    "sweep_loads",
    "wheel_rate_terms",
    "wheel_rates",
]
