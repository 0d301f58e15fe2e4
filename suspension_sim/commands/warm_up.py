"""``suspension-sim warm-up``: compile the fast solver kernels now, with a progress bar."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.solve.warmup import Step


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "warm-up",
        help="compile the fast solver kernels now (once per install; for CI images and lab PCs)",
        description="Compile the numba kernels (solver, batch metrics, loads) into this user's "
        "cache folder, in the foreground with a progress bar; waits for a compile already "
        "running in the background. Later processes load them in well under a second. "
        "Without it, the first command after an install compiles them in the background.",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0 when the compiled kernels are on disk afterwards; 1 when they could not be."""
    from suspension_sim.solve import warmup

    return warmup.warm_up(progress=not args.quiet)


def compile_steps() -> list[Step]:
    """What the warm-up compiles: the solve kernel function by function and the
    batch-metrics kernel (each run on empty tables of the types every car's tables
    have), and the loads kernel (compiled at its import)."""
    from suspension_sim.solve import engine
    from suspension_sim.solve.warmup import LOADS_STEP, METRICS_STEP, Step
    from suspension_sim.solve.warmup_codegen import skip_inner_machine_code

    skip_inner_machine_code()  # this is the compile process: ~20 % less to compile

    steps = [Step(f"solve kernel: {name}", fn, w) for name, fn, w in engine.kernel_steps()]

    def metrics() -> None:  # on empty tables: no car, no compiled solve needed
        from suspension_sim.metrics.batch_kernel import compile_on_empty_tables

        compile_on_empty_tables()

    def loads() -> None:
        from suspension_sim.loads.blocks import compile_blocks

        compile_blocks()

    def where() -> None:
        """Every kernel module wrote into the staging folder (none into another)."""
        import os

        from suspension_sim.cache import cache_dir
        from suspension_sim.solve.warmup import KERNEL_SOURCES, STAGING_ENV

        root, name = cache_dir(), os.environ.get(STAGING_ENV)
        staging = None if root is None or name is None else root / name
        for source in KERNEL_SOURCES:
            prefix = source.split("/")[0] + "_"
            if staging is None or not any(staging.glob(f"{prefix}*/*.nbi")):
                raise RuntimeError(f"nothing of {source} was compiled into {staging}")

    steps.append(Step(METRICS_STEP, metrics, 12.0))
    steps.append(Step(LOADS_STEP, loads, 25.0))
    steps.append(Step("check", where, 0.1))
    return steps


if __name__ == "__main__":  # pragma: no cover - the compile process (`solve.warmup`)
    from suspension_sim.solve import warmup

    sys.exit(warmup.child_main(sys.argv[1:], compile_steps))
