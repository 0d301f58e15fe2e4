"""The reference path of a design of experiments: each design built as a whole model and
run through `sweeps.run_sweep`, its rows made from the sweep tables. `explore.doe_fast` gives
the same table faster (tests/test_doe_fast.py compares them) and falls back to this when
the base car itself fails in a way no check foresaw. Units: offsets mm, metrics in their
columns' units."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import SuspensionSimError
from suspension_sim.explore.design_space import Variable, apply_offsets

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.description import Car
    from suspension_sim.sweeps.spec import SweepSpec


def run_design(
    car: Car,
    variables: Sequence[Variable],
    offsets: Sequence[float],
    specs: Sequence[SweepSpec],
    convention: str | None,
) -> list[dict[str, Any]]:
    """Rows of one design: every step of every motion, or one row saying why the design
    cannot be built. Metric values are floats; offsets are added by the caller."""
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.diagnostics import checked_mobility
    from suspension_sim.sweeps import run_sweep

    try:
        model = KinematicModel(apply_offsets(car, variables, offsets))
        checked_mobility(model)
    except SuspensionSimError as exc:
        return [{"motion": None, "step": -1, "status": "invalid design", "reason": exc.render()}]
    rows: list[dict[str, Any]] = []
    for spec in specs:
        try:
            result = run_sweep(model, spec, convention=convention, keep_poses=False)
        except SuspensionSimError as exc:
            rows.append(
                {"motion": spec.name, "step": -1, "status": "input", "reason": exc.render()}
            )
            continue
        table = result.table
        records: list[dict[str, Any]] = [
            {str(k): v for k, v in r.items()} for r in table.to_dict("records")
        ]
        solved = dict(zip(result.steps, records, strict=True))
        failed = {p.step: p for p in result.problems}
        for step in range(len(solved) + len(failed)):
            if step in solved:
                rows.append(
                    {
                        "motion": spec.name,
                        "step": step,
                        "status": "ok",
                        "reason": "",
                        **solved[step],
                    }
                )
            else:
                p = failed[step]
                rows.append(
                    {"motion": spec.name, "step": step, "status": p.kind, "reason": p.message}
                )
    return rows


def run_chunk(
    car: Car,
    variables: Sequence[Variable],
    specs: Sequence[SweepSpec],
    convention: str | None,
    first: int,
    offsets: np.ndarray,
    columns: Sequence[str],
) -> pd.DataFrame:
    """Rows of designs first, first + 1, ... (one task on a worker), in `columns`' order.

    The compiled kernels are loaded when they are on disk (once per worker process). An
    exception no design check foresaw is that design's row (status ``error``) so one bad
    design cannot stop a study; the summary counts them."""
    import pandas as pd

    from suspension_sim.solve import engine

    engine.load_kernel_if_cached()
    rows: list[dict[str, Any]] = []
    for i, design in enumerate(np.atleast_2d(offsets)):
        try:
            got = run_design(car, variables, design, specs, convention)
        except Exception as exc:  # a design's failure is data, see above
            got = [
                {
                    "motion": None,
                    "step": -1,
                    "status": "error",
                    "reason": f"{type(exc).__name__}: {exc}",
                }
            ]
        for row in got:
            row["design"] = first + i
            for v, d in zip(variables, design, strict=True):
                row[v.name] = float(d)
        rows += got
    frame = pd.DataFrame.from_records(rows)
    return frame.reindex(columns=list(columns))
