"""Motions and named sweeps (docs/sweeps.md).

from suspension_sim.sweeps import load_sweeps, run_sweep, MotionSpec, SweepSpec
"""

from suspension_sim.sweeps.run import (
    MotionSpec,
    SweepResult,
    SweepSpec,
    find_sweep,
    load_sweeps,
    run_named_sweep,
    run_sweep,
)

__all__ = [
    "MotionSpec",
    "SweepResult",
    "SweepSpec",
    "find_sweep",
    "load_sweeps",
    "run_named_sweep",
    "run_sweep",
]
