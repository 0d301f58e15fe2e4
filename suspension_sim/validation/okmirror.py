"""OptimumK exports whose lateral axis points right: what each channel is in our frame.

OptimumK's coordinate matrix is chosen per file. A file whose left wheels sit at
negative Y (``Wheel Center Y`` / ``Contact Patch Y``; its ``[Left]`` tag still names
the car's left wheels) has its lateral axis to the right: its frame is ours with Y
negated (X forward and Z up in both). What the definitions establish for such a file
(docs/validation.md, "An export whose lateral axis points right"):

* every definition holds **in the file's own frame**: its steer and steering ratio
  signs were found to match the definitions taken in that frame;
* ``Motion [Steering]`` + = the inboard tie-rod points move toward the file's +Y, so
  the same physical car and motion has ``SW_file = -SW_ours`` (the rack is driven by
  ``-SW_file x ratio`` in our frame).

From these, for the same physical car and ``SW_file = -SW_ours``, each channel is either
the same number in both frames, minus ours (`NEGATED`, and every Y coordinate), or not
derivable from the established facts (`NOT_DERIVED`, with the reason): the formulas
whose ``side`` would have to be known in a mirrored frame, roll and pitch rates, and the
loads. The sign of roll and pitch about a mirrored axis is not established either, so
the steps whose chassis pose depends on it are not compared (`sign_free_steps`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from suspension_sim.validation.export_table import OK_METRIC, Column, Export

NEGATED: frozenset[str] = frozenset(
    {
        # + = toward the file's +Y: side x (Toe - static toe) with the steer sense mirrored
        "Steer Angle",
        # SW_file x ratio / 360, + = inboard tie-rod points toward the file's +Y
        "Steering Rack Displacement",
        # -d Toe / d SW_file = +d Toe / d SW_ours (toe and camber are the same numbers)
        "Steering Toe Angle Gain",
        "Steering Camber Angle Gain",
        # d SW_file / d (CoilOver Length) = -d SW_ours / dL
        "Motion Ratio Steering",
    }
)
"""Quantities (besides the Y coordinates) whose value in the mirrored file is minus ours."""

SAME: frozenset[str] = frozenset(
    {
        # s (outboard), k (lower -> upper ball joint) enter only through x and z
        "Camber Angle",
        "Toe Angle",
        "Caster Angle",
        "Mechanical Trail",
        "Top Upright Angle",
        "Toe Distance",
        # X and Z coordinates, lengths and distances
        *(f"{p} {c}" for p in ("Wheel Center", "Contact Patch") for c in "XZ"),
        *(f"{p} Displacement {c}" for p in ("Wheel Center", "Contact Patch") for c in "XZ"),
        *(f"King Pin Axis at Ground {c}" for c in "XZ"),
        "CoilOver Length",
        "CoilOver Displacement",
        "Push/Pull Length",
        "Tie Rod Length",
        "Upper A-Arm Fore Length",
        "Upper A-Arm Aft Length",
        "Lower A-Arm Fore Length",
        "Lower A-Arm Aft Length",
        "Wheelbase",
        # angles taken with abs() of a component or in the XZ plane
        "Rocker/CoilOver Angle",
        "Rocker/PRod Angle",
        "Tie Rod Top View Angle",
        "Tie Rod Front View Angle",
        "Front View Swing Arm Length",
        "Front View Swing Arm Angle",
        "Side View Swing Arm Length",
        "Side View Swing Arm Angle",
        "Roll Axis Inclination Angle",
        *(
            f"{p} {c}"
            for p in ("Front View Instant Center", "Side View Instant Center")
            for c in "XZ"
        ),
        *(f"{p} {c}" for p in ("Roll Center", "Roll Center (Ground)") for c in "XZ"),
        *(f"{p} {c}" for p in ("Pitch Center", "Pitch Center (Ground)") for c in "XZ"),
        *(f"Center of Gravity {c}" for c in "XZ"),
        # side-view lines, wheelbase and heights: X and Z only
        "Anti-Dive Percentage",
        "Anti-Lift Percentage",
        "Anti-Squat Percentage",
        # heave is along Z; a wheel's bump moves its contact patch along Z ([Left] is the
        # car's left wheel in both frames)
        "Camber Angle Gain in Heave",
        "Toe Angle Gain in Heave",
        *(
            f"{what} Angle Gain in {wheel} Wheel Bump/Rebound"
            for what in ("Camber", "Toe")
            for wheel in ("Left", "Right")
        ),
        "Motion Ratio Heave",
        "Motion Ratio Single Left Wheel",
        "Motion Ratio Single Right Wheel",
        # 1 / (d Steer_file / d SW_file) = 1 / ((-d Steer) / (-d SW)): the same number
        "Steering Ratio",
        # SW_file / Steer_file = (-SW) / (-Steer)
        "Steering Wheel Angle per Steer Angle",
        "Steering Wheel Angle per Average Steer Angle",
    }
)
"""Quantities whose value in the mirrored file equals ours (the point channels' X and Z
are the same too: `mirror_rule`)."""

SIDE = "its formula uses `side`, and which sign `side` has in a mirrored frame is not established"
ROLL = "the sign of roll about a mirrored axis is not established"
NOT_DERIVED: dict[str, str] = {
    "King Pin Inclination": SIDE,
    "Scrub Radius": SIDE,
    "Half Track": SIDE,
    "Track": "ours (CP_left.y - CP_right.y), not one of the definitions; its sign in a "
    "mirrored frame is not established",
    "Ackerman Angle": "which wheel is the inner one in a mirrored frame is not established",
    "Ackerman Percentage": "which wheel is the inner one, and the sign of the track t, in a "
    "mirrored frame are not established",
    "Camber Angle Gain in Roll": ROLL,
    "Toe Angle Gain in Roll": ROLL,
    "Motion Ratio Roll": ROLL,
}
"""Quantities whose value in a mirrored file cannot be derived from the established facts."""

MIRRORED = "lateral axis to the right (mirrored file)"
"""The start of every not-compared reason this module gives."""
FORCES = (
    f"{MIRRORED}: the force case's and the moments' axes in a mirrored frame are not established"
)
STEPS = (
    f"{MIRRORED}: the sign of roll and pitch about a mirrored axis is not established, so "
    "steps whose chassis pose depends on it are not compared"
)


def mirror_rule(quantity: str, dimension: str) -> str:
    """ "same", "negate" or the reason the channel is not compared, for a quantity of an
    export whose lateral axis points right (a point's coordinate, ``UPRI_LowPnt Y``,
    follows its axis). A quantity in no list is not compared: its rule was not derived."""
    if quantity.endswith(" Y") and dimension == "length":
        return "negate"
    if quantity in NEGATED:
        return "negate"
    from suspension_sim.optimumk.corner_quantities import OK_POINTS

    point, _, axis = quantity.rpartition(" ")
    if quantity in SAME or (point in OK_POINTS and axis in ("X", "Z")):
        return "same"
    why = NOT_DERIVED.get(quantity, "how it reads in a mirrored frame was not derived")
    return f"{MIRRORED}: {why}"


def is_mirrored(export: Export) -> bool:
    """The export's left wheels sit at negative Y and its right wheels at positive Y (the
    first value of each ``Wheel Center Y`` / ``Contact Patch Y`` column)."""
    probe = [
        c
        for c in export.columns
        if c.header.optimumk is not None
        and c.header.optimumk.quantity in ("Wheel Center Y", "Contact Patch Y")
    ]
    first = [(c, c.values[np.isfinite(c.values)][:1]) for c in probe]
    left = [v[0] for c, v in first if len(v) and c.header.optimumk.side == "Left"]  # type: ignore[union-attr]
    right = [v[0] for c, v in first if len(v) and c.header.optimumk.side == "Right"]  # type: ignore[union-attr]
    return bool(left and right and max(left) < 0 < min(right))


def mirror_export(export: Export) -> Export:
    """The export in our frame: every channel `mirror_rule` negates and ``Motion
    [Steering]`` (SW_ours = -SW_file) negated, the others as read; `Export.mirrored` set
    so the comparison lists the rest (`mirror_rule`, `FORCES`, `STEPS`)."""

    def negate(c: Column) -> bool:
        if c.rule.metric == "steering":
            return True
        ok = c.header.optimumk
        if c.rule.metric != OK_METRIC or ok is None or c.quantity is None:
            return False
        return mirror_rule(c.quantity.name, c.dimension) == "negate"

    columns = tuple(
        replace(c, values=-c.values, factor=-c.factor) if negate(c) else c for c in export.columns
    )
    note = (
        "the export's lateral axis is positive to the right (its left wheels are at "
        "negative Y): OptimumK's definitions hold in that file's frame, so its Y "
        "coordinates, Motion [Steering] (+ = rack toward the file's +Y: the rack is driven "
        "by -Motion [Steering] x the Steering ratio in ours), Steer Angle, Steering Rack "
        "Displacement, Steering Toe/Camber Angle Gain and Motion Ratio Steering are negated "
        "to ours (+Y = left); channels whose mirrored value is not established, the force "
        "channels, and the steps whose pose depends on the sign of roll or pitch are listed, "
        "not compared (docs/validation.md)"
    )
    return replace(export, columns=columns, reading=(*export.reading, note), mirrored=True)


def sign_free_steps(
    heave_mm: np.ndarray, roll_deg: np.ndarray, pitch_deg: np.ndarray, axes: object
) -> np.ndarray:
    """Steps (bool) whose chassis pose does not depend on the sign of roll and pitch: no
    roll or pitch at that step, and the pose OptimumK's integration reaches with roll and
    pitch negated equals the one with them as given (to 1e-9 mm / rad)."""
    from suspension_sim.optimumk.motion import MotionAxes, compose_chassis

    h, r, p = (np.asarray(a, dtype=float) for a in (heave_mm, roll_deg, pitch_deg))
    free = (r == 0.0) & (p == 0.0)
    if not free.all():
        assert isinstance(axes, MotionAxes)
        a = compose_chassis(h, r, p, axes)
        b = compose_chassis(h, -r, -p, axes)
        free &= np.abs(a - b).max(axis=(1, 2)) <= 1e-9
    return free
