"""`State`: the inputs of one pose (strokes, rack, chassis state, targets) as one value.

Sweeps and validation build sequences of states; `State.solve` solves one.
Units: mm; chassis roll/pitch/yaw in degrees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.solve.inputs import CHASSIS_AXES, ZERO_CHASSIS, axis_unit

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose
    from suspension_sim.solve.targets import Target


@dataclass(frozen=True)
class State:
    """The inputs of one pose (mm; chassis roll/pitch/yaw in degrees).

    shocks: strokes of the dampers this state sets (others are 0), mm, + in
    compression. rack: mm, + toward +Y. chassis: x, y, z, roll, pitch, yaw
    relative to design. targets: {input name: Target}; a targeted input (a
    damper body or ``"rack"``) is solved for, its value here is only a guess.
    """

    shocks: Mapping[str, float] = field(default_factory=dict)
    rack: float = 0.0
    chassis: tuple[float, float, float, float, float, float] = ZERO_CHASSIS
    targets: Mapping[str, Target] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ch = tuple(float(v) for v in self.chassis)
        if len(ch) != 6:
            raise InputError(
                f"{len(ch)} chassis values given", where="state", hint="give x y z roll pitch yaw"
            )
        object.__setattr__(self, "chassis", ch)
        object.__setattr__(self, "rack", float(self.rack))
        object.__setattr__(self, "shocks", {str(k): float(v) for k, v in self.shocks.items()})
        object.__setattr__(self, "targets", dict(self.targets))

    def merge(self, other: State, *, names: tuple[str, str] = ("first", "second")) -> State:
        """The two states applied together: inputs and chassis add, targets unite.

        An input that one state drives by a target cannot also be set or
        targeted differently by the other (InputError naming both; `names`
        say which motions the states come from).
        """
        targets = dict(self.targets)
        for key, tg in other.targets.items():
            if key in targets and targets[key] != tg:
                raise InputError(
                    f"{names[0]} and {names[1]} both drive {key}: "
                    f"{targets[key].describe()} vs {tg.describe()}",
                    where="motions",
                    hint="combine a single-wheel or direct motion with the direct 'rack' or "
                    "'chassis' motions, or ground motions with each other",
                )
            targets[key] = tg
        shocks = dict(self.shocks)
        for key, v in other.shocks.items():
            shocks[key] = shocks.get(key, 0.0) + v
        for a, b, (na, nb) in ((self, other, names), (other, self, names[::-1])):
            for key in a.targets:
                if key in b.shocks and b.shocks[key] != 0.0:
                    raise InputError(
                        f"{na} drives {key} by a target ({a.targets[key].describe()}) while "
                        f"{nb} sets it to {b.shocks[key]:g} mm",
                        where="motions",
                        hint="a targeted input is solved for; do not also fix it",
                    )
                if key.lower() == "rack" and b.rack != 0.0:
                    raise InputError(
                        f"{na} drives the rack by a target while {nb} sets it to {b.rack:g} mm",
                        where="motions",
                    )
        chassis = tuple(a + b for a, b in zip(self.chassis, other.chassis, strict=True))
        return State(shocks, self.rack + other.rack, chassis, targets)  # type: ignore[arg-type]

    def solve(
        self,
        model: KinematicModel,
        guess: Pose | np.ndarray | None = None,
        *,
        on_failure: Literal["raise", "return"] = "raise",
        tolerance: float | None = None,
        method: Literal["auto", "trf"] = "auto",
    ) -> Pose:
        """Solve this state (see `suspension_sim.solve.solver.solve`)."""
        from suspension_sim.solve.solver import solve

        return solve(
            model,
            shocks=dict(self.shocks),
            rack=self.rack,
            chassis=self.chassis,
            guess=guess,
            tolerance=tolerance,
            on_failure=on_failure,
            targets=dict(self.targets) or None,
            method=method,
        )

    def describe(self, targets: bool = True) -> str:
        """One line: the non-zero inputs (and the targets unless `targets` is False)."""
        parts = [f"{k} {v:g} mm" for k, v in self.shocks.items() if v]
        if self.rack:
            parts.append(f"rack {self.rack:g} mm")
        for axis, v in zip(CHASSIS_AXES, self.chassis, strict=True):
            if v:
                parts.append(f"chassis {axis} {v:g} {axis_unit(axis)}")
        if targets:
            parts += [f"{k}: {t.describe()}" for k, t in self.targets.items()]
        return ", ".join(parts) or "design"
