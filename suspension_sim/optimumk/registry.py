"""OptimumK's result channels: the registry `QUANTITIES`, names and statuses.

One `OkQuantity` per quantity OptimumK (v2.3) exports. A channel's key is the quantity
followed by its bracketed tags, without the unit (`channel_key`):
``"Camber Angle [Left] [Front]"`` (corner), ``"Roll Center Z [Front]"`` (axle),
``"Wheelbase [Left]"`` (side), ``"Wheelbase"`` (car), ``"Motion [Heave]"`` (input),
``"UPRI_LowPnt X [Left] [Front]"`` (a hardpoint's coordinate).

status:

* ``"established"``: the definition reproduces OptimumK's numbers (to the error in
  `evidence`) and `optimumk_channels` computes it; `conditions` say in which motions it
  is not (`channel_status` applies them);
* ``"not established"``: the data did not pin the definition down; never computed;
* ``"always blank"``: OptimumK writes no number for a double wishbone; reported as NaN.

Values are in OptimumK's display units: mm, deg, deg/mm, deg/deg, % and plain ratios
("-"). Every definition is in world axes (X forward, Y left, Z up), side = +1 left and
-1 right, s the unit spin axis pointing outboard, k the king pin axis (lower -> upper
ball joint), CP OptimumK's contact patch (``C + r unit(s x h)``, h the X axis turned by
the steer angle), SW the steering-wheel angle (+ = rack toward +Y). Definitions and
their evidence: docs/optimumk.md and docs/validation.md.

Where things are: `OkQuantity` and the key helpers in `suspension_sim.optimumk.keys`,
the corner quantities in `suspension_sim.optimumk.corner_quantities`, the values in
`suspension_sim.optimumk.channels`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from suspension_sim.optimumk.corner_quantities import CORNER_QUANTITIES, OK_POINTS
from suspension_sim.optimumk.keys import (
    AXLES,
    DIMENSIONS,
    FRONT_ONLY,
    PITCH,
    SIDES,
    STEERED_FRONT,
    OkQuantity,
    Scope,
    Status,
    channel_key,
    ok_quantity,
    scope_of,
    split_key,
    xyz_quantities,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

__all__ = [
    "AXLES",
    "DIMENSIONS",
    "OK_POINTS",
    "PITCH",
    "QUANTITIES",
    "SIDES",
    "STEERED_FRONT",
    "OkQuantity",
    "Scope",
    "Status",
    "channel_key",
    "channel_status",
    "quantity",
    "split_key",
]

QUANTITIES: tuple[OkQuantity, ...] = (
    *CORNER_QUANTITIES,
    # -- axle ------------------------------------------------------------------------------
    *xyz_quantities(
        "Roll Center",
        "axle",
        "roll centre: where the front-view lines from the two contact patches to their "
        "front-view instant centres meet (X the contact patches' mean)",
        aliases=("Roll Centre",),
        conditions=(STEERED_FRONT, PITCH),
        evidence="2.4e-3 mm front, 4e-7 mm rear",
    ),
    *xyz_quantities(
        "Roll Center (Ground)",
        "axle",
        "roll centre with Z measured from the axle's contact patch height (X, Y as the roll "
        "centre's)",
        aliases=("Roll Centre (Ground)",),
        conditions=(STEERED_FRONT, PITCH),
        evidence="1.5e-14 mm from the roll centre",
    ),
    ok_quantity(
        "Track",
        "axle",
        "mm",
        "ours, not a channel OptimumK's definitions list: CP_left.y - CP_right.y, the front "
        "track t of the Ackerman Percentage and the sum of the two Half Tracks",
        aliases=("Track Width",),
    ),
    ok_quantity(
        "Steering Ratio",
        "axle",
        "-",
        "1 / mean of the sides' d Steer Angle / d SW (harmonic mean of the sides' ratios)",
        axles=FRONT_ONLY,
        evidence="3e-8 relative",
    ),
    ok_quantity(
        "Steering Wheel Angle per Average Steer Angle",
        "axle",
        "-",
        "SW / mean(Steer Angle) (a secant); blank at zero steer",
        axles=FRONT_ONLY,
        evidence="9e-16",
    ),
    ok_quantity(
        "Steering Rack Displacement",
        "axle",
        "mm",
        "SW x rack travel per steering-wheel turn / 360: + = inner tie-rod points toward +Y",
        axles=FRONT_ONLY,
        evidence="3.6e-15 mm",
    ),
    ok_quantity(
        "Ackerman Angle",
        "axle",
        "deg",
        "|steer of the inner wheel| - |steer of the outer wheel|, the inner wheel on the side "
        "the car turns to",
        aliases=("Ackermann Angle",),
        axles=FRONT_ONLY,
        evidence="1e-16 deg",
    ),
    ok_quantity(
        "Ackerman Percentage",
        "axle",
        "%",
        "100 x inner steer / atan(L / (L / tan(outer steer) - t)), L the current Wheelbase, "
        "t the current front Track; blank at zero steer",
        aliases=("Ackermann Percentage", "Ackerman", "Ackermann"),
        axles=FRONT_ONLY,
        evidence="2.8e-14 %",
    ),
    ok_quantity(
        "Ackerman Percentage",
        "car",
        "%",
        "as Ackerman Percentage [Front]",
        aliases=("Ackermann Percentage",),
    ),
    *xyz_quantities(
        "Instant Turn Center",
        "axle",
        "the point the car turns about: in pure steer it lies at the rear axle's X on the "
        "ground, but no construction found matches",
        status="not established",
        axles=FRONT_ONLY,
    ),
    ok_quantity(
        "Instant Turn Radius",
        "axle",
        "mm",
        "turn radius: not the distance from the turn centre to the CG; no construction found",
        status="not established",
        axles=FRONT_ONLY,
    ),
    ok_quantity(
        "Steering Side Ratio",
        "axle",
        "-",
        "OptimumK leaves it blank",
        status="always blank",
        axles=FRONT_ONLY,
    ),
    # -- side ------------------------------------------------------------------------------
    ok_quantity(
        "Wheelbase",
        "side",
        "mm",
        "3-D distance between the side's front and rear contact patches",
        evidence="4.6e-13 mm",
    ),
    *xyz_quantities(
        "Pitch Center",
        "side",
        "pitch centre: where the force lines of the side's front and rear contact patches "
        "meet, in the vertical plane through those two contact patches",
        aliases=("Pitch Centre",),
        conditions=(STEERED_FRONT,),
        evidence="5e-5 mm at design, 0.44 mm at +25 mm of heave",
    ),
    *xyz_quantities(
        "Pitch Center (Ground)",
        "side",
        "pitch centre with Z measured from the mean height of the four contact patches",
        aliases=("Pitch Centre (Ground)",),
        conditions=(STEERED_FRONT,),
        evidence="1.3e-13 mm from the pitch centre",
    ),
    ok_quantity(
        "Anti-Dive Percentage",
        "side",
        "%",
        "the side's front Anti-Dive Percentage",
        aliases=("Anti Dive Percentage", "Anti-Dive"),
        conditions=(STEERED_FRONT, "blank without the front mass share (CG)"),
        evidence="5e-16 relative",
    ),
    ok_quantity(
        "Anti-Squat Percentage",
        "side",
        "%",
        "the side's rear Anti-Squat Percentage",
        aliases=("Anti Squat Percentage", "Anti-Squat"),
        conditions=("blank without the front mass share (CG)",),
        evidence="2.4e-15 relative",
    ),
    # -- car -------------------------------------------------------------------------------
    ok_quantity(
        "Wheelbase",
        "car",
        "mm",
        "mean of Wheelbase [Left] and [Right]",
        evidence="2.3e-13 mm",
    ),
    ok_quantity(
        "Roll Axis Inclination Angle",
        "car",
        "deg",
        "atan2(-dz, dx), (dx, dz) from the rear to the front roll centre: + = axis lower at "
        "the front",
        aliases=("Roll Axis Inclination",),
        conditions=(STEERED_FRONT, PITCH),
        evidence="7e-15 deg from the roll centres",
    ),
    *xyz_quantities(
        "Center of Gravity",
        "car",
        "centre of gravity: at design on the line between the axles' contact-patch "
        "midpoints at the front mass share, raised by the CG height normal to that line; "
        "then carried by the chassis",
        aliases=("Centre of Gravity", "CG"),
        conditions=("blank without the front mass share",),
        evidence="1e-13 mm",
    ),
    # -- inputs ----------------------------------------------------------------------------
    ok_quantity("Motion [Heave]", "input", "mm", "heave input: + = chassis up"),
    ok_quantity("Motion [Roll]", "input", "deg", "roll input about the step-0 roll axis"),
    ok_quantity("Motion [Pitch]", "input", "deg", "pitch input about the step-0 pitch axis"),
    ok_quantity("Motion [Steering]", "input", "deg", "steering-wheel angle: + = rack toward +Y"),
    ok_quantity(
        "Motion [Completion Percentage]",
        "input",
        "%",
        "progress through the motion (drives a force case's ramp); read from the export",
        status="not established",
    ),
)
"""Every OptimumK quantity we know of, in the order of docs/validation.md's table."""


def quantity(name: str, scope: Scope | None = None) -> OkQuantity:
    """The quantity called `name` (or one of its aliases), matched ignoring case, spaces,
    hyphens and underscores; `scope` picks between same-named ones (Wheelbase). KeyError
    when none matches."""
    want = _norm(name)
    for q in QUANTITIES:
        if scope is not None and q.scope != scope:
            continue
        if want in (_norm(q.name), *(_norm(a) for a in q.aliases)):
            return q
    raise KeyError(name)


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch not in " -_")


def channel_status(
    model: KinematicModel | None, key: str, *, pitch: bool = False, steered: bool = False
) -> tuple[Status, str]:
    """Whether a channel is established for this car and motion: (status, reason).

    pitch: the motion has pitch; steered: the front wheels are steered at some step.
    The reason is "" for an established channel, else says why (an unknown key is
    "not established" with the reason "not an OptimumK quantity we know").
    """
    name, side, axle = split_key(key)
    scope: Scope = "input" if key.startswith("Motion [") else scope_of(side, axle)
    try:
        q = quantity(name, scope)
    except KeyError:
        if scope == "axle":
            try:  # Ackerman Percentage is also accepted car-level
                q = quantity(name, "car")
            except KeyError:
                return "not established", "not an OptimumK quantity we know"
        else:
            return "not established", "not an OptimumK quantity we know"
    if q.status != "established":
        return q.status, q.definition
    if axle is not None and axle not in q.axles:
        return "not established", f"{q.name} exists on the {' and '.join(q.axles)} axle only"
    front = axle == "front" or (scope == "side" and q.name.startswith("Pitch Center"))
    front = front or q.name in ("Roll Axis Inclination Angle", "Anti-Dive Percentage")
    if steered and STEERED_FRONT in q.conditions and front:
        return "not established", (
            "the front instant centres of a steered upright are not established"
        )
    if pitch and PITCH in q.conditions:
        return "not established", "not established when the motion has pitch"
    if q.name == "Anti-Lift Percentage" and axle == "front":
        opts = model.car.options if model is not None else None
        if opts is None or opts.rear_drive_share != 1.0:
            return "not established", "front anti-lift is known only with no front drive"
    if model is not None:
        opts = model.car.options
        needs_cg = any("front mass share" in c for c in q.conditions)
        if needs_cg and getattr(opts, "front_mass_share", None) is None:
            return "not established", "no front mass share (User Options) to place the CG"
        if q.name == "Toe Distance" and not all(
            getattr(w, "rim_diameter", None) for w in model.car.wheels
        ):
            return "not established", "no rim diameter in the Wheels section"
    return "established", ""
