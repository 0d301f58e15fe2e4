"""Motions and named sweeps (docs/sweeps.md).

from suspension_sim.sweeps import load_sweeps, run_sweep, standard_sweep, MotionSpec, SweepSpec

Modules: `motions` (the steps of heave, roll, bump, ...), `spec` (definitions
and their text), `yaml_file` and `sheet` (the two file forms), `run` (finding
and running a sweep), `standard` (the standard motions every car has).
"""

from suspension_sim.sweeps.run import (
    SweepResult,
    find_sweep,
    load_sweeps,
    run_named_sweep,
    run_sweep,
)
from suspension_sim.sweeps.spec import MotionSpec, SweepSpec
from suspension_sim.sweeps.standard import STANDARD_MOTIONS, choose_sweep, standard_sweep

__all__ = [
    "STANDARD_MOTIONS",
    "MotionSpec",
    "SweepResult",
    "SweepSpec",
    "choose_sweep",
    "find_sweep",
    "load_sweeps",
    "run_named_sweep",
    "run_sweep",
    "standard_sweep",
]
