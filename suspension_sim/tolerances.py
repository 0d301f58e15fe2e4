"""Named tolerances and numerical limits, in one place (mm, rad unless stated).

Each constant says what it decides; modules import them from here instead
of writing the literal inline, so one change applies everywhere.
"""

# -- solving ------------------------------------------------------------------------
INNER_TARGET_MM = 1e-10
"""The solver iterates until every residual is below this (or the tolerance, if smaller)."""
DENSE_LIMIT = 400
"""Unknowns up to which the trust-region subproblem is solved densely (exact)."""
NEAR_SINGULAR_RATIO = 1e-7
"""Smallest/largest singular value (columns normalised) below which a pose is a toggle."""
RANK_TOL = 1e-9
"""Singular values below this fraction of the largest count as zero (columns normalised)."""

# -- inputs -------------------------------------------------------------------------
LIMIT_SLACK_MM = 1e-9
"""A damper length may pass its min/max by this much (round-off) before it is refused."""

# -- geometry -----------------------------------------------------------------------
COINCIDENT_MM = 1e-9
"""Two points closer than this are the same point (a pivot on its joint axis)."""
PARALLEL_SIN = 1e-12
"""|sin| of the angle below which two lines or vectors are parallel."""
