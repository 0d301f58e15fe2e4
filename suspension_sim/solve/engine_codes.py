"""Status codes and start constants shared by the batch engine and its compiled kernel.

Kept apart so that `solve.kernel` (numba) and `solve.engine` (numpy) both
read them without importing each other.
"""

TRUST_START = 100.0
"""Initial trust radius as a multiple of max(1, |D x|) (MINPACK's factor)."""

OK = 0
"""Status: every residual of the state is at or below the target."""
NOT_CONVERGED = 1
"""Status: the trust region shrank to nothing or the iterations ran out."""
SINGULAR = 2
"""Status: a block's Jacobian is (numerically) rank-deficient."""
NOT_FINITE = 3
"""Status: a residual became NaN or infinite."""
STATIONARY = 4
"""Status: a block stopped at its least-squares point above the target (redundant joints
that bind); the caller decides whether that is within the tolerance."""

BRANCH = 5
"""Status: the state closed far from its first-order prediction even from a fresh
factorisation (close to a dead point, where the solve may land on another assembly
branch); the caller re-solves it by continuation with the branch screen."""
JUMP_PARAM_RATIO = 0.5
"""Screen of the batch kernel: a state is suspicious when some unknown lands farther
from its prediction than this fraction of the predicted change (plus the floor)."""
JUMP_PARAM_FLOOR = 1e-6
"""Floor of that screen (rad, or mm for a sliding joint)."""

STATUS_TEXT = {
    0: "converged",
    1: "not converged",
    2: "singular block",
    3: "not finite",
    4: "least-squares point above the target",
    5: "possibly on another assembly branch",
}
"""Engine status code -> words."""
