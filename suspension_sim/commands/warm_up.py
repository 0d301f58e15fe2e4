"""``suspension-sim warm-up``: compile the fast solver kernels now, with a progress bar."""

from __future__ import annotations

import argparse


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
