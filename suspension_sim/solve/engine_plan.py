"""The batch engine's plan of a model: its independent blocks, and the result type.

With every input held (strokes, rack; the chassis state moves the car rigidly and
cannot open a joint) and no targets, the Jacobian splits into independent blocks
found once per model from the body graph (`solve.problem`): one per corner, or an
axle and whatever couples it. `plan` lists each block's residual rows, unknown
columns and where its Jacobian entries sit in the model's layout; both engines (the
numpy reference `engine_numpy`, the compiled kernel through `engine_tables`) start
from it, so they close the same blocks. `EngineResult` is what either returns per
state. Units: mm, rad.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.solve.problem import problem

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import JacobianLayout, KinematicModel

MAX_ITERATIONS = 50
"""Trust-region steps per block and state before the state counts as not closed."""


@dataclass(frozen=True)
class Block:
    """One independent block: its residual rows and unknown columns, and where its
    Jacobian entries sit in the plan's layout (unknown and input columns)."""

    rows: np.ndarray  # residual rows (layout row indices)
    params: np.ndarray  # global parameter index of each unknown column
    entries: np.ndarray  # layout entries in unknown columns of this block
    entry_row: np.ndarray  # their local row
    entry_col: np.ndarray  # their local column
    in_entries: np.ndarray  # layout entries in input columns touching this block
    in_row: np.ndarray
    in_col: np.ndarray  # index into Plan.inputs


@dataclass(frozen=True)
class Plan:
    """What the engine needs of one model: unknowns, inputs, blocks (built once per model)."""

    unknowns: np.ndarray  # global indices of the unknowns
    inputs: np.ndarray  # global indices of the held inputs (strokes, then rack)
    layout: JacobianLayout  # columns: unknowns, then inputs
    blocks: tuple[Block, ...]
    loose_rows: np.ndarray  # residual rows that no unknown can change


@dataclass(frozen=True)
class EngineResult:
    """Per-state outcome of an engine run (N states)."""

    params: np.ndarray  # (N, n_params)
    status: np.ndarray  # (N,) kernel status codes, 0 = converged
    iterations: np.ndarray  # (N,) largest number of Newton steps over the blocks
    max_residual_mm: np.ndarray  # (N,)
    seconds: float
    predicted: np.ndarray | None = None  # (N, n_params) first-order start of each state

    @property
    def converged(self) -> np.ndarray:
        return self.status == 0


def plan(model: KinematicModel) -> Plan:
    """The engine plan of a model with every input held (cached per model)."""
    return model.derived.get("engine_plan", lambda: _build_plan(model))


def _build_plan(model: KinematicModel) -> Plan:
    inputs = model.input_params()
    prob = problem(model, inputs)
    unknowns = prob.unknowns
    n_u = len(unknowns)
    lay = model.layout(np.concatenate([unknowns, inputs]))
    entry_rows = lay.rows
    blocks: list[Block] = []
    covered = np.zeros(lay.shape[0], dtype=bool)
    for rows, cols in prob.blocks:
        covered[rows] = True
        local_row = np.full(lay.shape[0], -1)
        local_row[rows] = np.arange(len(rows))
        local_col = np.full(n_u, -1)
        local_col[cols] = np.arange(len(cols))
        in_rows = local_row[entry_rows] >= 0
        unk = in_rows & (lay.indices < n_u)
        inp = in_rows & (lay.indices >= n_u)
        ent = np.flatnonzero(unk)
        ient = np.flatnonzero(inp)
        blocks.append(
            Block(
                rows=np.asarray(rows),
                params=unknowns[cols],
                entries=ent,
                entry_row=local_row[entry_rows[ent]],
                entry_col=local_col[lay.indices[ent]],
                in_entries=ient,
                in_row=local_row[entry_rows[ient]],
                in_col=lay.indices[ient] - n_u,
            )
        )
        assert np.all(blocks[-1].entry_col >= 0), "a block's rows reach another block's columns"
    return Plan(unknowns, inputs, lay, tuple(blocks), np.flatnonzero(~covered))
