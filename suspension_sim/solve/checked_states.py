"""The checks `solve` makes of a state's inputs, for many states at once (a sweep).

`check_states` reads every state's strokes, rack and chassis state as `solve`
reads them and says which pass every check (`CheckedStates.ok`), vectorised
and without messages; a sweep solves those by `solver.solve_checked` and hands
the others to `solver.solve`, whose error names what is wrong. Split from
`suspension_sim.solve.solver` (which re-exports these names). Units: mm, deg.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from suspension_sim.solve.inputs import CHASSIS_LIMITS, input_table, within_limits
from suspension_sim.solve.pose import ChassisState
from suspension_sim.solve.reach import within_reach
from suspension_sim.tolerances import MAX_INPUT

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.targets import Target


@dataclasses.dataclass(frozen=True)
class CheckedStates:
    """Many states' inputs read as `solve` reads them, and which of the states pass every
    check `solve` makes of its inputs (`check_states`). A row where `ok` is False may
    hold anything: solve that state with `solve`, which names what is wrong.

    strokes: (S, n_dampers) mm in Damping order (0 where a state sets none); rack: (S,)
    mm; chassis: (S, 6) mm, deg; held: (S, n_dampers) True where no target frees the
    damper's stroke; rack_held: (S,) True where no target frees the rack.
    """

    names: tuple[str, ...]
    ok: np.ndarray
    strokes: np.ndarray
    rack: np.ndarray
    chassis: np.ndarray
    held: np.ndarray
    rack_held: np.ndarray

    @functools.cached_property
    def _floats(self) -> tuple[list[list[float]], list[float], list[list[float]]]:
        """strokes, rack and chassis as Python floats (the states' own values)."""
        return self.strokes.tolist(), self.rack.tolist(), self.chassis.tolist()

    def inputs(self, i: int) -> tuple[dict[str, float], float, ChassisState]:
        """State i's strokes {damper body: mm}, rack (mm) and chassis state (mm, deg) as
        `solve` reads them (a fresh dict: `solve_checked` keeps it in the pose)."""
        strokes, rack, chassis = self._floats
        x, y, z, roll, pitch, yaw = chassis[i]
        return dict(zip(self.names, strokes[i], strict=True)), rack[i], (x, y, z, roll, pitch, yaw)


class StateInputs(Protocol):
    """What `check_states` reads of a state (`solve.state.State`, which imports the
    solver, which imports this module, so it is named by its shape here)."""

    @property
    def shocks(self) -> Mapping[str, float]: ...
    @property
    def rack(self) -> float: ...
    @property
    def chassis(self) -> tuple[float, float, float, float, float, float]: ...
    @property
    def targets(self) -> Mapping[str, Target]: ...


def check_states(model: KinematicModel, states: Sequence[StateInputs]) -> CheckedStates:
    """The checks `solve` makes of each state's inputs (`parse_shocks`, `finite_number`,
    no rack on a car without one, `check_chassis`, `check_input_limits`, `check_reach`),
    for all the states at once: `CheckedStates.ok` says which pass them all (the same
    comparisons, vectorised, without messages). A sweep solves those by `solve_checked`
    and hands the others to `solve`, whose error then names the culprit."""
    table = input_table(model)
    n, nd = len(states), len(table.names)
    strokes = np.zeros((n, nd))
    ok = np.ones(n, dtype=bool)
    # States grouped by the strokes they name and by the inputs their targets free.
    by_keys: dict[tuple[str, ...], list[int]] = {}
    by_freed: dict[tuple[str, ...], list[int]] = {}
    for i, st in enumerate(states):
        by_keys.setdefault(tuple(st.shocks), []).append(i)
        by_freed.setdefault(tuple(st.targets), []).append(i)
    for keys, rows in by_keys.items():
        if not keys:
            continue
        found = [table.lookup.get(str(k).lower()) for k in keys]
        cols = [table.names.index(c) for c in found if c is not None]
        if len(set(cols)) != len(keys):  # an unknown damper, or one given twice
            ok[rows] = False
            continue
        values = [list(states[i].shocks.values()) for i in rows]
        strokes[np.ix_(rows, cols)] = np.array(values, dtype=float).reshape(len(rows), len(cols))
    held = np.ones((n, nd), dtype=bool)
    rack_held = np.ones(n, dtype=bool)
    for tkeys, rows in by_freed.items():
        if tkeys:
            freed = {str(k).lower() for k in tkeys}
            held[rows] = [d not in freed for d in table.lowered]
            rack_held[rows] = "rack" not in freed
    rack = np.array([st.rack for st in states], dtype=float).reshape(n)
    chassis = np.array([st.chassis for st in states], dtype=float).reshape(n, 6)
    ok &= (np.abs(strokes) <= MAX_INPUT).all(axis=1)  # NaN fails too
    ok &= np.abs(rack) <= MAX_INPUT
    if table.rack_param is None:
        ok &= rack == 0.0
    ok &= (np.abs(chassis) <= np.minimum(CHASSIS_LIMITS, MAX_INPUT)).all(axis=1)
    ok &= within_limits(model, strokes, rack)
    ok &= within_reach(model, np.where(held, strokes, 0.0), np.where(rack_held, rack, 0.0))
    return CheckedStates(table.names, ok, strokes, rack, chassis, held, rack_held)
