"""Compare the model with an OptimumK result export, every channel through its registry.

The car is driven in OptimumK's own motion style
(`suspension_sim.optimumk.motion.optimumk_motion`: heave along Z, roll about the
step-0 roll axis, pitch about the step-0 pitch axis, integrated step by step,
every tyre at its own design contact-patch height, rack = Motion [Steering] x the
workbook's Steering ratio), and each channel of the export is compared with the
channel of the same name from `suspension_sim.optimumk.channels.optimumk_channels`
(OptimumK's definitions, display units mm, deg, deg/mm, %). What is not compared
is listed with the reason (`NOT_COMPARED_REASONS`), never guessed:

* OptimumK's definition not established (for this motion or car);
* always blank in OptimumK (NaN for a double wishbone);
* blank in the export;
* a force channel when no force case is given (with one, the force channels are
  compared by `suspension_sim.validation.okforces`, which lists the pivot forces of
  an A-arm carrying the push/pull rod as not established and compares their sum and
  their components normal to the pivot axis instead);
* not computed by suspension_sim, or no value for this car.

A motion channel the export lacks (``Motion [Roll]`` ...) is taken as 0 at every
step, and the run says so (`Validation.assumed`). An export whose step 0 is not the
design state (heave, roll or pitch non-zero) and whose motion rolls or pitches (or whose
force channels are compared) is not driven: how OptimumK reaches such a step 0 is not
established, so every channel is listed and the run does not pass
(`Validation.blocked`). A motion that never rolls or pitches is compared from any step 0:
its heave is a translation along Z, the same whatever the path. An export whose lateral
axis points right is compared in our frame as `suspension_sim.validation.okmirror`
derives it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.validation.drive import StepResult
from suspension_sim.validation.export import Column, Export
from suspension_sim.validation.export_table import OK_FORCE, OK_METRIC
from suspension_sim.validation.okforces import NO_SUCH_JOINT, SPLIT_NOT_ESTABLISHED
from suspension_sim.validation.quantities import ChannelMap
from suspension_sim.validation.results import (
    BLANK_IN_EXPORT,
    DEFAULT_TOLERANCES,
    NOT_COMPUTED,
    ChannelResult,
    Validation,
    diagnose,
    tolerance_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.loads.cases import LoadCase
    from suspension_sim.model import KinematicModel
    from suspension_sim.optimumk.forces import ForceKeys

NOT_ESTABLISHED = "OptimumK's definition not established"
ALWAYS_BLANK = "always blank in OptimumK (no number for this suspension type)"
FORCE_CASE = "force channel: give --force-case"
NO_VALUE = "no value for this car"
NOT_COMPARED_REASONS = (
    NOT_ESTABLISHED,
    SPLIT_NOT_ESTABLISHED,
    ALWAYS_BLANK,
    BLANK_IN_EXPORT,
    FORCE_CASE,
    NO_VALUE,
    NO_SUCH_JOINT,
)
"""Why an OptimumK channel is not compared, in the report's order."""
MOTION_CHANNELS: dict[str, tuple[str, str]] = {
    "heave": ("Motion [Heave]", "mm"),
    "roll": ("Motion [Roll]", "deg"),
    "pitch": ("Motion [Pitch]", "deg"),
    "steering": ("Motion [Steering]", "deg"),
}
"""OptimumK's motion inputs: key -> (channel, unit)."""


def motion_columns(export: Export) -> dict[str, np.ndarray]:
    """OptimumK's motion inputs (heave mm, roll deg, pitch deg, steering deg; 0 when the
    export has no such column); InputError naming the first blank cell of one."""
    from suspension_sim.validation.drive import finite_values

    motion = export.motion()
    if not any(k in motion for k in ("heave", "roll", "pitch", "steering")):
        raise InputError(
            "missing motion channels: the export has none of 'Motion [Heave]', "
            "'Motion [Roll]', 'Motion [Pitch]', 'Motion [Steering]'",
            where=str(export.path),
            hint="export the result with its Motion channels",
        )
    n = export.n_steps
    return {
        k: (finite_values(motion[k]) if k in motion else np.zeros(n))
        for k in ("heave", "roll", "pitch", "steering")
    }


def assumed_motions(export: Export) -> tuple[list[str], list[str]]:
    """(channels, sentences): OptimumK's motion inputs the export lacks, each taken as 0
    at every step, and one sentence per channel saying so."""
    motion = export.motion()
    missing = [(k, t, u) for k, (t, u) in MOTION_CHANNELS.items() if k not in motion]
    return [t for _, t, _ in missing], [
        f"the export has no {t!r} channel: {k} assumed 0 {u} at every step" for k, t, u in missing
    ]


def established_steps(
    model: KinematicModel, key: str, inputs: dict[str, np.ndarray]
) -> np.ndarray | None:
    """Steps at which a channel that is not established for the whole motion is
    established (bool per step), or None when no step is: a channel not established
    under pitch is established at the steps with no pitch, one not established for a
    steered front upright at the steps with the steering at 0 (the definitions'
    conditions, `suspension_sim.optimumk.registry.channel_status`)."""
    from suspension_sim.optimumk.channels import channel_status

    if channel_status(model, key)[0] != "established":
        return None  # not established even without pitch and steer
    ok = np.ones(len(inputs["pitch"]), dtype=bool)
    if channel_status(model, key, pitch=True)[0] != "established":
        ok &= inputs["pitch"] == 0
    if channel_status(model, key, steered=True)[0] != "established":
        ok &= inputs["steering"] == 0
    return ok


STEERING_SECANTS = (
    "Steering Wheel Angle per Steer Angle",
    "Steering Wheel Angle per Average Steer Angle",
    "Ackerman Angle",
    "Ackerman Percentage",
)
"""Quantities that divide by the steer or take the turn's direction from it: at a step
with the steering wheel at 0 they are 0/0 (the steer is the rounding of the toe change,
the inner wheel its sign), in OptimumK's numbers as in ours, so they are not compared
there."""
STRAIGHT = "0/0 at the steps with the steering wheel at 0"
STRAIGHT_SW_DEG = 1e-9
"""A steering-wheel angle at most this (deg) is 0: OptimumK's own stepping leaves round-off
there (9.5e-15 deg at the middle step of a -120..120 deg sweep in a real result), where
its secants are 0/0 noise (its Steering Wheel Angle per Average Steer Angle: -0.115)."""
FAR_SIDE_VIEW_MM = 10_000.0
"""Side-view instant centres are compared only where OptimumK's centre is within this
distance (mm) of its contact patch. Farther out the two lines that place it are nearly
parallel and its position is ill-conditioned: in OptimumK's own results (all at 309 m or
more) ours differ by at most 9.0e-10 mm per mm squared of the distance (8.2 mm at 309 m,
the line's angle to 3e-11 deg), which is 0.09 mm at 10 m (docs/validation.md)."""
FAR_CENTRE = (
    "OptimumK's side-view instant centre farther than 10 m from its contact patch: its "
    "position is ill-conditioned there (the swing-arm angle and the antis are compared)"
)
SIDE_VIEW_POSITIONS = ("Side View Instant Center", "Side View Swing Arm Length")
"""Quantities (name prefixes) that are the side-view centre's position."""
POLE_LIMITS = {"Motion Ratio Steering": 1000.0}
"""Ratios compared only where OptimumK's value is at most this (its unit) in size: Motion
Ratio Steering is d(SW)/d(CoilOver Length), infinite where the coilover stops moving with
the steering. In OptimumK's own results its reciprocal agrees to 3.3e-7 mm/deg at every
step and the ratio to 2.9e-5 relative up to 1000 deg/mm, but by 33 deg/mm at -58977
deg/mm (5.5e-4 relative) next to the pole (docs/validation.md)."""
NEAR_POLE = "a ratio near its pole (the denominator crosses 0): compared up to {limit:g}"


def far_side_view_steps(export: Export, key: str) -> np.ndarray | None:
    """Steps at which OptimumK's side-view instant centre of `key`'s corner is farther than
    `FAR_SIDE_VIEW_MM` from its contact patch (bool per step), from the export's Side View
    Swing Arm Length of that corner, else its centre's and contact patch's X and Z; None
    when the export has neither."""
    from suspension_sim.optimumk.registry import channel_key, split_key

    _, side, axle = split_key(key)
    by_key = {c.header.name: c.values for c in export.outputs()}
    length = by_key.get(channel_key("Side View Swing Arm Length", side, axle))
    if length is None:
        xz = [
            by_key.get(channel_key(f"{what} {c}", side, axle))
            for what in ("Side View Instant Center", "Contact Patch")
            for c in "XZ"
        ]
        if any(v is None for v in xz):
            return None
        ix, iz, cx, cz = (np.asarray(v, dtype=float) for v in xz)
        length = np.hypot(ix - cx, iz - cz)
    with np.errstate(invalid="ignore"):
        return np.asarray(np.asarray(length, dtype=float) > FAR_SIDE_VIEW_MM)


STEP0_REASON = (
    f"{NOT_ESTABLISHED}: step 0 is not the design state (heave, roll, pitch 0); how "
    "OptimumK reaches it is not established"
)
"""Why nothing is compared when an export's step 0 is not the design state."""
STEP0_STEERED_REASON = (
    f"{NOT_ESTABLISHED}: step 0 is steered and the motion rolls or pitches; the roll and "
    "pitch axes of a steered step 0 (its front roll centre, its pitch centres) are not "
    "established"
)
"""Why nothing is compared when step 0 is steered and the motion turns the chassis."""


def infinite_theirs(res: ChannelResult) -> str:
    """A note when OptimumK's value is +-inf at steps where ours is finite ("" otherwise):
    those steps are left out like blank cells, so the report says it rather than letting
    an infinite centre, or a damaged number in a result file (which has no checksum),
    pass unseen."""
    bad = np.isinf(res.theirs) & np.isfinite(res.ours)
    if not bad.any():
        return ""
    first = int(np.flatnonzero(bad)[0])
    return (
        f"OptimumK gives {res.theirs[first]:+g} where ours is {res.ours[first]:.6g} at"
        f" {int(bad.sum())} step(s) (first: step {first}); not compared there"
    )


def step0_off_design(inputs: dict[str, np.ndarray], forces: bool = False) -> str:
    """ "" when step 0 is the design state (heave, roll and pitch 0), or when the motion
    never rolls or pitches and no force case is compared: heave is then a translation
    along Z, reached the same way whatever the path (a real OptimumK heave result starts
    at -25.4 mm), so step 0 is known exactly. Else a sentence giving step 0's values.
    forces: a force case is compared (its contact-patch line is OptimumK's step 0 or
    design one, not settled off design)."""
    h, r, p = (float(inputs[k][0]) for k in ("heave", "roll", "pitch"))
    sw0 = float(inputs["steering"][0])
    turns = bool(np.any(inputs["roll"] != 0.0) or np.any(inputs["pitch"] != 0.0))
    if not turns and not forces:
        return ""
    if h == 0.0 and r == 0.0 and p == 0.0:
        if abs(sw0) > STRAIGHT_SW_DEG and turns:
            return (
                f"step 0 is steered ({sw0:g} deg) and the motion rolls or pitches: OptimumK "
                "turns the chassis about the roll and pitch centres of step 0, which are not "
                "established for a steered front upright, so every channel is listed, not "
                "compared"
            )
        return ""
    return (
        f"step 0 is not the design state (heave {h:g} mm, roll {r:g} deg, pitch {p:g} deg; "
        "every OptimumK result examined starts at heave, roll and pitch 0): how OptimumK "
        "reaches it is not established, so every channel is listed, not compared"
    )


def validate_optimumk(
    model: KinematicModel,
    export: Export,
    *,
    tolerances: dict[str, float] | None = None,
    workbook: str | Path | None = None,
    force_case: LoadCase | ForceKeys | None = None,
) -> Validation:
    """Drive `model` as OptimumK moves its car and compare every registry channel; with
    `force_case` (a workbook case held over the motion, or OptimumK's keyframes ramped
    with ``Motion [Completion Percentage]``) the force channels too (N, N m).

    Nothing is driven or compared when the export's step 0 is not the design state
    (`Validation.blocked` says why; such a run does not pass). An export whose lateral
    axis points right (`Export.mirrored`) is compared on the channels and steps
    `suspension_sim.validation.okmirror` derives; the rest are listed with the reason.
    """
    from suspension_sim.optimumk.channels import channel_status, optimumk_channels
    from suspension_sim.optimumk.motion import optimumk_motion
    from suspension_sim.validation.okmirror import FORCES, STEPS, mirror_rule, sign_free_steps

    tol = {**DEFAULT_TOLERANCES, **(tolerances or {})}
    inputs = motion_columns(export)
    used = [c.header.text for k, c in export.motion().items() if k != "completion"]
    assumed, assumed_text = assumed_motions(export)
    outputs = export.outputs()
    name = str(workbook or model.car.source_path or model.car.name)
    source = ChannelMap(source="OptimumK's channel registry (docs/validation.md)")
    blocked = step0_off_design(inputs, forces=force_case is not None)
    if blocked:
        reason = STEP0_STEERED_REASON if blocked.startswith("step 0 is steered") else STEP0_REASON
        listed = [(c.header.text, reason) for c in outputs]
        listed += [(text, NOT_COMPUTED) for text in export.ignored]
        return Validation(
            name,
            export,
            "motion",
            source,
            tol,
            [],
            [],
            used,
            [*assumed_text, blocked],
            [],
            not_compared=listed,
            style="optimumk",
            assumed=assumed,
            blocked=blocked,
        )
    motion = optimumk_motion(
        model, inputs["heave"], inputs["roll"], inputs["pitch"], inputs["steering"]
    )
    steps = [
        StepResult(i, pose, motion.problems.get(i))
        if pose is not None
        else StepResult(i, None, motion.problems.get(i, "not solved"))
        for i, pose in enumerate(motion.poses)
    ]
    n = export.n_steps
    free = (
        sign_free_steps(inputs["heave"], inputs["roll"], inputs["pitch"], motion.axes)
        if export.mirrored
        else np.ones(n, dtype=bool)
    )
    pitch = bool(np.any(inputs["pitch"] != 0))
    steered = bool(np.any(inputs["steering"] != 0))
    wanted: list[Column] = []
    not_compared: list[tuple[str, str]] = []
    step_notes: dict[str, str] = {}
    for col in outputs:
        text, metric = col.header.text, col.rule.metric
        if metric == OK_FORCE:
            if force_case is None:
                not_compared.append((text, FORCE_CASE))
            elif export.mirrored:
                not_compared.append((text, FORCES))
            continue
        if metric != OK_METRIC:
            continue
        status, why = channel_status(model, col.header.name, pitch=pitch, steered=steered)
        if status == "established":
            ok = np.ones(n, dtype=bool)
        else:
            partial = established_steps(model, col.header.name, inputs)
            if partial is None or not partial.any() or not np.isfinite(col.values[partial]).any():
                if status == "always blank":
                    note = ALWAYS_BLANK
                    if np.isfinite(col.values).any():
                        note += " (but this export has numbers in it)"
                    not_compared.append((text, note))
                else:
                    not_compared.append((text, f"{NOT_ESTABLISHED}: {why}" if why else ""))
                continue
            ok = partial  # established at the steps without pitch (or steer): compared there
        if export.mirrored:
            assert col.quantity is not None
            rule = mirror_rule(col.quantity.name, col.dimension)
            if rule not in ("same", "negate"):
                not_compared.append((text, rule))
                continue
        if not np.isfinite(col.values).any():
            not_compared.append((text, BLANK_IN_EXPORT))
            continue
        why_out = [why] if not ok.all() else []
        if not free.all():
            why_out.append(STEPS)
        ok = ok & free
        if col.quantity is not None and col.quantity.name in STEERING_SECANTS:
            straight = np.abs(inputs["steering"]) <= STRAIGHT_SW_DEG
            if (ok & straight).any():
                why_out.append(STRAIGHT)
            ok = ok & ~straight
        if col.quantity is not None and col.quantity.name.startswith(SIDE_VIEW_POSITIONS):
            far = far_side_view_steps(export, col.header.name)
            if far is not None and (ok & far).any():
                why_out.append(FAR_CENTRE)
                ok = ok & ~far
        if col.quantity is not None and col.quantity.name in POLE_LIMITS:
            limit = POLE_LIMITS[col.quantity.name]
            with np.errstate(invalid="ignore"):
                pole = np.abs(col.values) > limit
            if (ok & pole).any():
                why_out.append(NEAR_POLE.format(limit=limit))
                ok = ok & ~pole
        if not np.isfinite(col.values[ok]).any():
            not_compared.append((text, "; ".join(why_out)))
            continue
        if ok.all():
            wanted.append(col)
            continue
        wanted.append(dataclasses.replace(col, values=np.where(ok, col.values, np.nan)))
        step_notes[text] = (
            f"compared at the {int(ok.sum())} step(s) where it is established; not at the "
            f"other {int((~ok).sum())} ({'; '.join(why_out)})"
        )
    not_compared = [(t, r or NOT_ESTABLISHED) for t, r in not_compared]
    ours = optimumk_channels(model, motion.poses, motion=motion) if wanted else {}
    solved = np.array([s.ok for s in steps], dtype=bool)
    results: list[ChannelResult] = []
    for col in wanted:
        key = col.header.name
        values = ours.get(key)
        if values is None or (solved.any() and not np.isfinite(values[solved]).any()):
            not_compared.append((col.header.text, NO_VALUE))
            continue
        limit, approx = channel_tolerance(col, tol)
        res = ChannelResult(col, key, np.asarray(values, dtype=float), col.values, limit)
        res.notes = diagnose(res)
        if approx:
            res.notes.insert(0, approx)
        if col.header.text in step_notes:
            res.notes.insert(0, step_notes[col.header.text])
        infinite = infinite_theirs(res)
        if infinite:
            res.notes.insert(0, infinite)
        results.append(res)
    warnings = list(motion.notes)
    said = [r.column.header.text for r in results if infinite_theirs(r)]
    if said:
        shown = ", ".join(said[:3]) + (f" and {len(said) - 3} more" if len(said) > 3 else "")
        warnings.append(
            f"OptimumK gives an infinite value where ours is finite in {len(said)} channel(s)"
            f" ({shown}): those steps are not compared (see each channel in the report)"
        )
    if not free.all():
        labels = ", ".join(f"{export.steps[i]:g}" for i in np.flatnonzero(~free))
        warnings.append(f"{STEPS}: steps {labels}")
    if force_case is not None and not export.mirrored:
        from suspension_sim.validation.okforces import compare_forces

        forces, skipped, notes = compare_forces(model, export, motion, force_case, tol)
        results += forces
        not_compared += skipped
        warnings += notes
    for text in export.ignored:
        not_compared.append((text, NOT_COMPUTED))
    return Validation(
        name,
        export,
        "motion",
        source,
        tol,
        steps,
        results,
        used,
        assumed_text + warnings,
        [],
        not_compared=not_compared,
        style="optimumk",
        assumed=assumed,
    )


def channel_tolerance(col: Column, tol: dict[str, float]) -> tuple[float, str]:
    """(largest deviation allowed, note): the channel's dimension's tolerance
    (`tolerance_of`), or for a quantity the registry marks approximate (close to OptimumK,
    not exact) the registry's own tolerance from its evidence when that is larger, with a
    note saying so ("" otherwise)."""
    from suspension_sim.validation.okregistry import lookup

    limit = tolerance_of(col, tol)
    entry = lookup(col.header.optimumk) if col.header.optimumk is not None else None
    if entry is None or not entry.approximate or entry.tolerance is None:
        return limit, ""
    if entry.tolerance <= limit:
        return limit, ""
    note = (
        f"approximate: our definition of {entry.name} is close to OptimumK's, not exact "
        f"({entry.evidence}); judged to {entry.tolerance:g} {entry.unit} instead of "
        f"{limit:g}"
    )
    return entry.tolerance, note
