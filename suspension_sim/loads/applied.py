"""The applied loads of load cases, per wheel and case (inputs to the statics).

Forces (N) and torques (N m) as the cases give them, the contact-patch moments,
whether a force acts on the design contact line, and where that line is.
Split from `suspension_sim.loads.statics`, which re-exports these names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.loads.cases import LoadCase
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.names import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


def wheel_loads(
    model: KinematicModel, cases: list[LoadCase]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per wheel and case: force (n_w, 3, C) N, axes flag (n_w, C) True = wheel axes,
    brake and drive torques (n_w, C) N m. InputError for an unknown wheel."""
    names = [w.name for w in model.car.wheels]
    n_w, n_c = len(names), len(cases)
    force = np.zeros((n_w, 3, n_c))
    wheel_axes = np.zeros((n_w, n_c), dtype=bool)
    brake = np.zeros((n_w, n_c))
    drive = np.zeros((n_w, n_c))
    for c, case in enumerate(cases):
        for name, load in case.wheels.items():
            if name not in names:
                raise InputError(
                    f"load case {case.name!r}: no wheel {name!r} in this car."
                    + did_you_mean(name, names),
                    where=case.where,
                    hint=f"the car's wheels are {', '.join(names) or '(none)'}",
                )
            i = names.index(name)
            force[i, :, c] = load.force
            wheel_axes[i, c] = load.axes == "wheel"
            brake[i, c] = load.brake_torque
            drive[i, c] = load.drive_torque
    return force, wheel_axes, brake, drive


def wheel_moments(model: KinematicModel, cases: list[LoadCase]) -> tuple[np.ndarray, np.ndarray]:
    """Per wheel and case: the contact-patch moment (n_w, 3, C) N m in the case's axes
    and whether the force acts on the line through the design contact point (n_w, C)
    (`WheelLoad.application`). Wheels are known to exist (`wheel_loads` checks)."""
    names = [w.name for w in model.car.wheels]
    moment = np.zeros((len(names), 3, len(cases)))
    design = np.zeros((len(names), len(cases)), dtype=bool)
    for c, case in enumerate(cases):
        for name, load in case.wheels.items():
            i = names.index(name)
            moment[i, :, c] = load.moment
            design[i, c] = load.application == "design"
    return moment, design


def design_contact_points(model: KinematicModel) -> np.ndarray:
    """Where a force with application "design" acts: OptimumK's contact patch of the
    design pose (every input and the chassis state 0), ``C + r unit(s x X)`` taken
    downward, world = chassis frame, (n_w, 3) mm. On a cambered and toed wheel it lies
    about ``r tan(camber) tan(toe)`` along X from the lowest point of the tyre circle
    (0.04 mm at 0.96 deg and 0.5 deg), which is a few N in the tie rods at kN loads."""
    return wheel_set(model).patch0
