"""The kinematic model: joint classes, PoE transforms, residuals and Jacobian.

Layer 2 (workbook -> description -> **model** -> solve -> ...): it imports
the description only, never a reader, the solver or outputs.
"""

from suspension_sim.model.model import Derived, JacobianLayout, KinematicModel, slot_rates

__all__ = ["Derived", "JacobianLayout", "KinematicModel", "slot_rates"]
