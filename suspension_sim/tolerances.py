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
LSQ_STOP = 1e-15
"""scipy least_squares ftol/xtol/gtol: tiny, so that the residual target decides when to stop."""
RANK_TOL = 1e-9
"""Singular values below this fraction of the largest count as zero (columns normalised)."""
LOCK_SINE = 1e-6
"""An input is locked at design when its unit Jacobian column leaves the range of the
other columns by more than this sine (freeing it alone adds no motion)."""
LOCK_SHARE = 1e-3
"""A constraint row takes part in an input's lock above this share of the largest."""
STUCK_RATE = 1e-9
"""mm per mm (or rad) of input below which no input moves a point: a body none of whose
points moves faster is stuck."""

# -- inputs -------------------------------------------------------------------------
LIMIT_SLACK_MM = 1e-9
"""A damper length may pass its min/max by this much (round-off) before it is refused."""
INPUT_LIMIT_DIGITS = 2
"""Decimals (mm) of input limits in messages; an input is compared with a limit at this
precision, so a refused value never reads as equal to the limit it broke."""
MAX_INPUT = 1e6
"""No stroke, rack travel, chassis coordinate (mm) or angle (deg) is larger than this in
magnitude: larger values are typing errors, refused before any arithmetic."""
MAX_CHASSIS_MM = 1000.0
"""Chassis x, y, z (mm) beyond this from design: wheels a metre into the ground or the air."""
MAX_CHASSIS_TILT_DEG = 90.0
"""Chassis roll and pitch (deg) beyond this: the car is on its side or its nose."""
MAX_CHASSIS_YAW_DEG = 360.0
"""Chassis yaw (deg) beyond one turn."""
REACH_RESOLUTION_MM = 1e-3
"""A reach walk locates a dead point to this much input (mm)."""
REACH_CLOSED_MM = 1e-8
"""A reach walk's step is closed when every joint gap of its blocks is below this (mm)."""
REACH_MAX_MM = 500.0
"""A reach walk goes at most this far (mm of input) from design in each direction."""
NEAR_LIMIT_MM = 2.0
"""An input within this much travel (mm) of a dead point is flagged: the pose changes fast
there and the other assembly of the linkage is close."""
SOLVE_TIME_LIMIT_S = 10.0
"""Wall-clock seconds after which one solve stops and returns its best pose (not closed)."""

# -- geometry -----------------------------------------------------------------------
COINCIDENT_MM = 1e-9
"""Two points closer than this are the same point (a pivot on its joint axis)."""
ON_LINE_MM = 1e-6
"""A point closer than this to a line lies on it (joint axes, collinear pivots)."""
AXIS_ALONG_Y_MIN = 1e-3
"""|y component| of the unit rack axis below which "toward +Y" has no meaning."""
MODE_SHARE = 1e-6
"""A parameter or equation takes part in a free motion or redundancy above this share."""
NO_STEER_YAW = 1e-12
"""Summed wheel yaw rate (rad per mm of rack) below which the rack steers nothing."""
PURE_TRANSLATION_RAD = 1e-12
"""A twist whose angular rate is below this is a pure translation (no screw axis)."""
PARALLEL_SIN = 1e-12
"""|sin| of the angle below which two lines or vectors are parallel."""
NORM_FLOOR_MM = 1e-12
"""A vector length is floored at this before dividing by it (guards a zero length only)."""

# -- metrics ------------------------------------------------------------------------
CENTRE_AT_INFINITY_MM = 1e7
"""An instant centre farther than this (10 km) from its reference point is at infinity:
nearly parallel force lines (a few 1e-5 rad apart) print blank, not a huge number."""
NEAR_PARALLEL_LINES_DEG = 1.0
"""Two force lines nearer than this to parallel (deg) make an ill-conditioned roll or
pitch centre: on a 1200 mm track at 1 deg, tilting one line 0.1 deg more moves the roll
centre about 55 mm sideways, and the move grows as 1 / angle. The centre's line-angle
column (`suspension_sim.metrics.centres.LINE_ANGLES`) is then below this and charts ring
the point (docs/metrics.md, "Nearly parallel lines"); the value itself is kept."""
MIN_STEER_TWIST = 1e-9
"""rad per mm of rack below which the rack does not steer a wheel (no steering axis)."""
MIN_DAMPER_RATE = 1e-6
"""mm of stroke per mm of wheel travel below which a wheel does not move a damper."""
STRAIGHT_AHEAD_RAD = 0.017453292519943295  # 1 deg
"""Mean roadwheel angle below which Ackermann % is not reported (blank): near straight
ahead it is 0/0, and toe changes of 0.01 deg (roll steer) would read as thousands of %."""
COINCIDENT_LINES_MM = 1e-6
"""Two parallel lines closer than this coincide (a roll or pitch centre on the common line)."""

# -- sweeps -------------------------------------------------------------------------
NO_WHEEL_RATE = 1e-9
"""mm of wheel-centre motion per mm of stroke below which a damper carries no wheel."""
LIMIT_NOTE_MM = 1e-6
"""A target-driven damper length past its min/max by more than this gets a sweep note."""
SAME_TARGET_MM = 1e-9
"""Two values of one target (mm) closer than this are the same (where a walk stopped)."""

# -- drawing ------------------------------------------------------------------------
COLLINEAR_RATIO = 1e-6
"""A body whose points spread less than this fraction of their length across it is
drawn as a line (or, across its plane, as a plate)."""

# -- validation ---------------------------------------------------------------------
REPEATED_COLUMN_ATOL = 1e-9
"""A channel exported on two sheets must agree to this (mm or deg) at every step."""
SAME_AXLE_X_MM = 1.0
"""A wheel centre (or a single axle) closer than this to the chassis reference point in y
(or x) is on the centre plane (or at the reference): geometry cannot place it
(`suspension_sim.description.wheel_layout`)."""
AXLE_GAP_MM = 200.0
"""Wheel centres further apart than this in x are on different axles; closer, on one axle
(far below any wheelbase, far above a left-right asymmetry)."""
CONTACT_OFF_GROUND_MM = 0.5
"""A design tyre contact point further than this from z = 0 gets a validation warning."""

# -- workbook -----------------------------------------------------------------------
SAME_PLACE_MM = 1e-6
"""Two hard points closer than this are at the same place: a wheel's centre and axis
point, or its two kingpin points, must be further apart."""
MAX_COORDINATE_MM = 1e7
"""No point of a car is 10 km from its origin: larger coordinates are typing errors
(1e300, or the wrong Length unit)."""
MAX_CELL_NUMBER = 1e12
"""No number in a car workbook is larger than this in magnitude, whatever it measures:
larger values are refused at their cell before any arithmetic (no overflow later)."""

# -- batch engine (suspension_sim.solve.engine) ------------------------------------
SINGULAR_PIVOT_RATIO = 1e-13
"""A block whose smallest |R_ii| (QR) or LU pivot is below this fraction of its largest
Jacobian column norm is singular: the state goes to the robust least-squares path."""
TRUST_ACCEPT_RATIO = 1e-4
"""A trust-region step is taken when it achieves this share of its predicted reduction."""
TRUST_MIN_RADIUS = 1e-13
"""A trust radius below this (relative to 1 + |D x|) means the Newton iteration is stuck."""
CHORD_CONTRACTION = 0.1
"""A chord step (reused factorisation) must shrink the largest residual by this factor."""
STATIONARY_STEP = 1e-12
"""A Gauss-Newton step shorter than this (relative to 1 + |D x|) means a block sits at its
least-squares point: redundant joints that bind cannot close further."""
STATIONARY_GAIN = 1e-6
"""A step whose predicted reduction of the squared residual is below this share of it
also marks a least-squares point (round-off decides the rest)."""
BAR_AXIS_MM = 0.01
"""A U-bar arm's chassis points may lie this far (mm) from the bar axis line: the arm
turns about the line through its own two chassis points, which then leans from the bar
axis by at most this over their spacing (twist error of that order, negligible)."""
TBAR_SQUARE_DEG = 0.1
"""A T-bar's shaft axis must be perpendicular to its pivot axis within this (deg); the
model then makes it exactly perpendicular (docs/model.md, "Anti-roll bars")."""
