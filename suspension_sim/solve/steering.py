"""Steering-wheel angle <-> rack travel.

The workbook's Steering ratio is a magnitude: mm of rack travel per degree of
steering wheel. Its direction comes from the geometry, so that a positive
steering-wheel angle is always a left turn (ISO 8855: counter-clockwise as the
driver sees it), whether the rack sits ahead of the axle or behind it (on a
rear-steer rack, a left turn moves the rack toward -Y).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.tolerances import NO_STEER_YAW

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


def rack_ratio(model: KinematicModel, *, where: str = "steering") -> float:
    """The workbook's Steering ratio as given: mm of rack per steering-wheel degree.

    Raises InputError (naming `where`) when the car has no rack or no ratio.
    """
    rack = model.car.rack
    if rack is None:
        raise InputError(
            "this car has no steering rack",
            where=where,
            hint="add a Steering section to the workbook",
        )
    if rack.ratio_mm_per_deg is None or rack.ratio_mm_per_deg == 0:
        raise InputError(
            "steering-wheel angles need the Steering ratio (mm of rack per degree of "
            "steering wheel), which the workbook does not give",
            where=where,
            hint="fill in 'Steering ratio' in the Steering section, or steer in rack mm",
        )
    return float(rack.ratio_mm_per_deg)


def rack_per_wheel_degree(model: KinematicModel, *, where: str = "steering") -> float:
    """Signed mm of rack travel per degree of steering-wheel angle (+ = left turn).

    Raises InputError (naming `where`) when the car has no rack or no ratio.
    """
    return abs(rack_ratio(model, where=where)) * left_turn_rack_sign(model)


def left_turn_rack_sign(model: KinematicModel) -> float:
    """+1 when rack travel toward +Y turns the steered wheels left, -1 otherwise.

    From the implicit-function-theorem rates at design: the summed yaw rate of
    every wheel's spin axis per mm of rack (computed once per model).
    """
    return model.derived.get("left_turn_rack_sign", lambda: _left_turn_rack_sign(model))


def _left_turn_rack_sign(model: KinematicModel) -> float:
    from suspension_sim.solve.sensitivity import input_tangents, point_rates
    from suspension_sim.solve.solver import solve

    pose = solve(model)
    tangents = input_tangents(pose)
    k = tangents.inputs.index("rack")
    rates = point_rates(pose, tangents)[:, :, k]
    inst = model.inst_index
    yaw = 0.0
    for w in model.car.wheels:
        c, a = inst[(w.centre, w.body)], inst[(w.axis_point, w.body)]
        s = model.inst_design[a] - model.inst_design[c]
        ds = rates[a] - rates[c]
        yaw += float(np.cross(s, ds)[2] / (s @ s))
    if abs(yaw) < NO_STEER_YAW:
        raise InputError(
            "the rack does not steer any wheel",
            where="steering",
            hint="check the tie rods join the rack and the uprights",
        )
    return 1.0 if yaw > 0 else -1.0
