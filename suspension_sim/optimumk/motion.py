"""OptimumK's motion style: how OptimumKinematics moves the chassis, step by step.

OptimumK integrates a motion (arrays of Heave mm, Roll deg, Pitch deg, Steering deg, one
value per step) incrementally. From step i-1 to step i it applies to the chassis, in
this order and about **world-fixed** axes:

1. the heave increment, a translation along world Z (+ = chassis up);
2. the roll increment, a rotation about the line through the front and rear roll
   centres of step 0 (`suspension_sim.optimumk.centres`), + lifting the left side;
3. the pitch increment, a rotation about the line through the left and right pitch
   centres of step 0, + putting the nose down.

The chassis pose therefore depends on the step size when heave is combined with roll or
pitch, and roll about an inclined axis adds a little yaw. Our own chassis state is
absolute, ``R = Rz(yaw) Ry(pitch) Rx(roll)`` about the chassis reference point
(docs/conventions.md): `chassis_state` converts each composed transform into it exactly,
so every step is an ordinary `State` the solver solves. Steering is the rack, ``rack =
steering x the workbook's Steering ratio`` (mm per steering-wheel degree, + = rack toward
+Y, OptimumK's sign). Every tyre's contact point (the lowest point of the tyre circle) is
held at its own design height, the damper strokes follow. OptimumK holds its own contact
patch (`suspension_sim.optimumk.centres.ok_contact_points`, turned by `ok_steer`) there
instead: the two differ in height by about ``(r/2) (psi sin(camber))^2`` (psi about the
static toe), whose change over a motion is 2.4e-5 mm on the reference car
(docs/conventions.md, "OptimumK's motion style"); no second contact target for it.

Units at this API: mm and degrees; 4x4 transforms map chassis (design) coordinates to
world coordinates, mm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.model.screws import rotation_xyz
from suspension_sim.solve.sensitivity import damper_wheels
from suspension_sim.solve.state import State
from suspension_sim.solve.targets import Target, contact_z

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

WHERE = "optimumk motion"
STEP0_NOTE = (
    "step 0 is not the design state: it was reached from design in one increment about the "
    "design state's roll and pitch axes, and the later steps turn about step 0's axes; "
    "OptimumK's behaviour in this case is not established (every result examined started "
    "at the design state)"
)
STEP0_HEAVE_NOTE = (
    "step 0 is not the design state: the motion never rolls or pitches, so its heave is a "
    "translation along Z whatever the path, and step 0 is exactly that (as in a real "
    "OptimumK heave result starting at -25.4 mm)"
)


@dataclass(frozen=True)
class MotionAxes:
    """The world-fixed roll and pitch axes of a motion (mm; unit directions).

    roll: through the rear roll centre (`roll_point`) toward the front one, so a + rotation
    lifts the left side. pitch: through the right pitch centre toward the left one, so a +
    rotation puts the nose down.
    """

    roll_point: np.ndarray
    roll_direction: np.ndarray
    pitch_point: np.ndarray
    pitch_direction: np.ndarray


@dataclass
class OptimumKMotion:
    """A motion in OptimumK's style, solved step by step.

    Arrays have one entry per step. chassis: (n, 4, 4) world transforms of the chassis
    (design coordinates -> world). states: our `State` of each step (its chassis state
    reproduces `chassis` exactly). poses: the solved poses, None where a step was not
    solved (`problems` says why). axes: the roll and pitch axes the steps after step 0
    turn about (step 0's); design_axes: the design state's (equal when step 0 is the
    design). notes: facts about how the motion was made.
    """

    heave_mm: np.ndarray
    roll_deg: np.ndarray
    pitch_deg: np.ndarray
    steering_deg: np.ndarray
    rack_mm: np.ndarray
    chassis: np.ndarray
    states: list[State]
    poses: list[Pose | None]
    axes: MotionAxes
    design_axes: MotionAxes
    problems: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every step solved."""
        return not self.problems


def no_axes() -> MotionAxes:
    """Axes for a motion that neither rolls nor pitches (NaN: never used)."""
    nan = np.full(3, np.nan)
    return MotionAxes(nan, nan.copy(), nan.copy(), nan.copy())


# -- rigid motions ---------------------------------------------------------------------------
def rotation_about(point: np.ndarray, direction: np.ndarray, angle_rad: float) -> np.ndarray:
    """4x4 rotation by `angle_rad` (right hand) about the line through `point` along
    `direction` (Rodrigues' formula; mm, rad)."""
    k = np.asarray(direction, dtype=float)
    k = k / np.linalg.norm(k)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = np.eye(3) + math.sin(angle_rad) * K + (1.0 - math.cos(angle_rad)) * (K @ K)
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = np.asarray(point, dtype=float) - R @ np.asarray(point, dtype=float)
    return T


def increment(
    d_heave_mm: float, d_roll_deg: float, d_pitch_deg: float, axes: MotionAxes
) -> np.ndarray:
    """One step's world motion: heave along Z, then roll, then pitch (4x4). A zero
    increment is no motion, whatever its axis (the axes of a motion without roll or pitch
    are not needed and may be NaN)."""
    T = np.eye(4)
    T[2, 3] = d_heave_mm
    if d_roll_deg != 0.0:
        T = rotation_about(axes.roll_point, axes.roll_direction, math.radians(d_roll_deg)) @ T
    if d_pitch_deg != 0.0:
        T = rotation_about(axes.pitch_point, axes.pitch_direction, math.radians(d_pitch_deg)) @ T
    return T


def compose_chassis(
    heave_mm: Sequence[float] | np.ndarray,
    roll_deg: Sequence[float] | np.ndarray,
    pitch_deg: Sequence[float] | np.ndarray,
    axes: MotionAxes,
    *,
    start: np.ndarray | None = None,
    start_values: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> np.ndarray:
    """The chassis transforms (n, 4, 4) of a motion integrated step by step.

    Step i is ``increment(values_i - values_(i-1)) @ T_(i-1)``; before step 0 the chassis
    is at `start` (identity: the design) with the motion values `start_values`
    (heave, roll, pitch).
    """
    h, r, p = (np.asarray(a, dtype=float).reshape(-1) for a in (heave_mm, roll_deg, pitch_deg))
    T = np.eye(4) if start is None else np.array(start, dtype=float)
    prev = start_values
    out = np.empty((len(h), 4, 4))
    for i in range(len(h)):
        T = increment(h[i] - prev[0], r[i] - prev[1], p[i] - prev[2], axes) @ T
        out[i] = T
        prev = (h[i], r[i], p[i])
    return out


def chassis_state(
    model: KinematicModel, T: np.ndarray
) -> tuple[float, float, float, float, float, float]:
    """Our chassis state (x, y, z mm; roll, pitch, yaw deg) whose transform is T.

    `suspension_sim.solve.pose.chassis_transform` is ``R = Rz(yaw) Ry(pitch) Rx(roll)``
    about the reference point ``ref``, then (x, y, z): ``t = ref + xyz - R ref``. The
    angles come from R (pitch within +-90 deg), xyz from t.
    """
    R = np.asarray(T, dtype=float)[:3, :3]
    t = np.asarray(T, dtype=float)[:3, 3]
    pitch = math.asin(max(-1.0, min(1.0, -R[2, 0])))
    roll = math.atan2(R[2, 1], R[2, 2])
    yaw = math.atan2(R[1, 0], R[0, 0])
    ref_name = model.car.options.chassis_reference_point
    ref = model.car.point(ref_name) if ref_name else np.zeros(3)
    Rs = rotation_xyz(roll, pitch, yaw)  # the rotation the solver rebuilds from the angles
    xyz = t - ref + Rs @ ref
    return (
        float(xyz[0]),
        float(xyz[1]),
        float(xyz[2]),
        math.degrees(roll),
        math.degrees(pitch),
        math.degrees(yaw),
    )


# -- axes and ground -------------------------------------------------------------------------
def motion_axes(pose: Pose, *, roll: bool = True, pitch: bool = True) -> MotionAxes:
    """The roll axis (front and rear roll centres) and pitch axis (left and right pitch
    centres) of a solved pose, OptimumK's centres (`optimumk.centres`). Only the axes
    asked for are needed (`roll`, `pitch`); the other is NaN (never used). InputError
    when a needed centre is missing or at infinity (the axis is then undefined)."""
    from suspension_sim.optimumk.centres import optimumk_centres

    c = optimumk_centres(pose)
    need: dict[str, np.ndarray | None] = {}
    if roll:
        need["front roll centre"] = c.roll_centre.get("front")
        need["rear roll centre"] = c.roll_centre.get("rear")
    if pitch:
        need["left pitch centre"] = c.pitch_centre.get("left")
        need["right pitch centre"] = c.pitch_centre.get("right")
    for what, p in need.items():
        if p is None or not np.all(np.isfinite(p)):
            raise InputError(
                f"OptimumK's motion needs the {what}, which this car "
                + ("does not have" if p is None else "has at infinity (parallel force lines)"),
                where=WHERE,
                hint=("roll" if "roll" in what else "pitch")
                + " in OptimumK's style needs "
                + (
                    "a front and a rear axle with finite roll centres"
                    if "roll" in what
                    else "finite pitch centres on both sides"
                )
                + "; move the car in our style instead (sweep --motion-style ours)",
            )
    axes = no_axes()
    if roll:
        rf, rr = need["front roll centre"], need["rear roll centre"]
        assert rf is not None and rr is not None
        axes = replace(axes, roll_point=rr.copy(), roll_direction=unit_vector(rf - rr))
    if pitch:
        pl, pr = need["left pitch centre"], need["right pitch centre"]
        assert pl is not None and pr is not None
        axes = replace(axes, pitch_point=pr.copy(), pitch_direction=unit_vector(pl - pr))
    return axes


def unit_vector(v: np.ndarray) -> np.ndarray:
    """v / |v| (an axis through two distinct centres)."""
    return np.asarray(v, dtype=float) / float(np.linalg.norm(v))


def ground_heights(design: Pose) -> dict[str, float]:
    """World z (mm) of every tyre's contact point (lowest point) at design: the height it is
    kept at (OptimumK keeps its own contact patch there: module doc)."""
    from suspension_sim.metrics.geometry import wheel_set

    st = wheel_set(design.model)
    return {name: float(st.contact0[i, 2]) for i, name in enumerate(st.names)}


def ground_targets(model: KinematicModel, design: Pose) -> dict[str, Target]:
    """Every damper replaced by a target holding its wheel's contact point at the height
    it has at design (`ground_heights`)."""
    z = ground_heights(design)
    return {d: contact_z(w, z[w]) for d, w in damper_wheels(model).items()}


def rack_per_steering_degree(model: KinematicModel) -> float:
    """mm of rack per steering-wheel degree, + = rack toward +Y (OptimumK's steering sign):
    the workbook's Steering ratio as given. InputError without a rack or a ratio."""
    from suspension_sim.solve.steering import rack_ratio

    return rack_ratio(model, where=WHERE)


def _columns(
    heave_mm: Sequence[float] | np.ndarray,
    roll_deg: Sequence[float] | np.ndarray,
    pitch_deg: Sequence[float] | np.ndarray,
    steering_deg: Sequence[float] | np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    names = ("heave_mm", "roll_deg", "pitch_deg", "steering_deg")
    cols = [np.atleast_1d(np.asarray(a, dtype=float)) for a in (heave_mm, roll_deg, pitch_deg)]
    cols.append(np.atleast_1d(np.asarray(steering_deg, dtype=float)))
    n = len(cols[0])
    for name, c in zip(names, cols, strict=True):
        if c.ndim != 1 or len(c) != n:
            raise InputError(
                f"{name} has {c.size} values, heave_mm {n}",
                where=WHERE,
                hint="give one value per step in each of the four motion arrays",
            )
        if not np.all(np.isfinite(c)):
            raise InputError(f"{name} holds a value that is not a finite number", where=WHERE)
    if n == 0:
        raise InputError("the motion has no steps", where=WHERE)
    return cols[0], cols[1], cols[2], cols[3]


# -- the motion ------------------------------------------------------------------------------
def optimumk_motion(
    model: KinematicModel,
    heave_mm: Sequence[float] | np.ndarray,
    roll_deg: Sequence[float] | np.ndarray,
    pitch_deg: Sequence[float] | np.ndarray,
    steering_deg: Sequence[float] | np.ndarray,
    *,
    step0_from_design: bool = True,
    design: Pose | None = None,
) -> OptimumKMotion:
    """Move the car as OptimumK does (module doc) and solve every step.

    heave_mm (+ = chassis up), roll_deg (+ = left side up), pitch_deg (+ = nose down),
    steering_deg (steering-wheel degrees, rack = value x Steering ratio, + = rack toward
    +Y): one value per step. Step 0 at all-zero values is the design state (the case
    established on OptimumK's results). Otherwise, with `step0_from_design`, step 0 is
    reached from design in one increment about the design axes and the later steps turn
    about step 0's axes (a note says this is not established); without it, InputError.
    Each step is solved by continuation from the previous solved pose; a step that
    cannot be solved is in `problems` and the motion goes on from the last solved pose.
    The roll and pitch axes are only needed (and only computed) when the motion rolls
    or pitches.
    """
    from suspension_sim.solve.continuation import MoveError, move

    h, r, p, sw = _columns(heave_mm, roll_deg, pitch_deg, steering_deg)
    rack = sw * rack_per_steering_degree(model) if np.any(sw != 0.0) else np.zeros_like(sw)
    if design is None:
        from suspension_sim.solve.solver import solve

        design = solve(model)
    targets = ground_targets(model, design)
    rolls, pitches = bool(np.any(r != 0.0)), bool(np.any(p != 0.0))
    turns = rolls or pitches
    design_axes = motion_axes(design, roll=rolls, pitch=pitches) if turns else no_axes()
    notes: list[str] = []
    step0_design = h[0] == 0.0 and r[0] == 0.0 and p[0] == 0.0
    if not step0_design and not step0_from_design:
        raise InputError(
            f"step 0 is not the design state (heave {h[0]:g} mm, roll {r[0]:g} deg, pitch "
            f"{p[0]:g} deg)",
            where=WHERE,
            hint="start the motion at 0, or pass step0_from_design=True",
        )
    T0 = compose_chassis(h[:1], r[:1], p[:1], design_axes)[0]
    states: list[State] = []
    poses: list[Pose | None] = []
    problems: dict[int, str] = {}

    def solve_step(i: int, T: np.ndarray, start: Pose) -> Pose | None:
        state = State(rack=float(rack[i]), chassis=chassis_state(model, T), targets=targets)
        states.append(state)
        try:
            pose = move(start, state, notes=notes)
        except MoveError as exc:
            problems[i] = f"cannot be reached from the previous solved pose: {exc.reason}"
            return None
        except InputError as exc:
            problems[i] = exc.render()
            return None
        return pose

    first = solve_step(0, T0, design)
    poses.append(first)
    axes = design_axes
    if not step0_design:
        notes.append(STEP0_NOTE if turns else STEP0_HEAVE_NOTE)
        if turns and len(h) > 1:
            if first is None:
                raise InputError(
                    f"step 0 could not be solved ({problems[0]}), so its roll and pitch axes "
                    "are unknown",
                    where=WHERE,
                    hint="start the motion at the design state",
                )
            axes = motion_axes(first, roll=rolls, pitch=pitches)
    chassis = np.empty((len(h), 4, 4))
    chassis[0] = T0
    if len(h) > 1:
        chassis[1:] = compose_chassis(
            h[1:], r[1:], p[1:], axes, start=T0, start_values=(h[0], r[0], p[0])
        )
    last = first if first is not None else design
    for i in range(1, len(h)):
        pose = solve_step(i, chassis[i], last)
        poses.append(pose)
        if pose is not None:
            last = pose
    return OptimumKMotion(
        heave_mm=h,
        roll_deg=r,
        pitch_deg=p,
        steering_deg=sw,
        rack_mm=rack,
        chassis=chassis,
        states=states,
        poses=poses,
        axes=axes,
        design_axes=design_axes,
        problems=problems,
        notes=notes,
    )
