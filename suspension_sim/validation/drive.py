"""Drive the model through the motion of an export, step by step (warm-started).

Two drives:

``motion``
    The export's own motion channels: chassis heave (z, mm), roll and pitch
    (deg) prescribed about the workbook's chassis reference point, every tyre
    contact point held on the ground (each damper replaced by a ``contact_z``
    target for its wheel, `suspension_sim.sweeps.motions.ground_targets`), rack
    travel from ``Rack Travel``, or ``Steering Wheel Angle`` x Steering ratio
    (+ = left turn), or OptimumK's ``Motion [Steering]`` x Steering ratio (+ =
    rack toward +Y); without a Steering ratio, OptimumK's ``Steering Rack
    Displacement`` drives the rack.
``dampers``
    As Rowe validated against OptimumK: every damper's stroke from the
    export's damper length (``stroke = design length - length``), rack and
    chassis pose from the motion channels if present. The tyres are then not
    forced onto the ground, so this drive checks the linkage alone.

Units: mm and deg.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.validation.export import Column, Export
from suspension_sim.validation.quantities import AXLES, CORNERS, SIDES, ChannelMap

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

Drive = Literal["motion", "dampers"]
DRIVES: tuple[str, ...] = ("motion", "dampers")


@dataclass(frozen=True)
class StepResult:
    """One solved step: the pose (None if the inputs were refused) and why it failed."""

    index: int
    pose: Pose | None
    failure: str | None

    @property
    def ok(self) -> bool:
        return self.pose is not None and self.pose.converged


# -- corners, wheels and dampers ----------------------------------------------------------
def corner_wheels(model: KinematicModel, channel_map: ChannelMap | None = None) -> dict[str, str]:
    """{export corner: wheel name} for the corners this car has.

    From where the wheels are (`suspension_sim.description.wheel_layout`:
    front/rear and left/right from the wheel centres, whatever the names),
    then the map file's ``corners``, which take precedence: a wheel the map
    puts on a corner leaves the corner the geometry gave it.
    """
    from suspension_sim.description import wheel_layout

    wheels = {w.name for w in model.car.wheels}
    out: dict[str, str] = {}
    explicit = dict((channel_map.corners if channel_map else {}) or {})
    for corner, wheel in explicit.items():
        if wheel not in wheels:
            raise InputError(
                f"the map puts corner {corner!r} on wheel {wheel!r}, which the workbook "
                "does not have",
                where=channel_map.source if channel_map else "map",
                hint=f"wheels: {', '.join(wheels) or '(none)'}",
            )
        out[corner] = wheel
    layout = wheel_layout(model.car)
    placed = {
        f"{axle.title()} {side.title()}": name
        for name, axle, side in zip(layout.names, layout.axle, layout.side, strict=True)
        if name not in out.values()
    }
    return {**placed, **out}


def design_lengths(model: KinematicModel) -> dict[str, float]:
    """Damper body -> eye-to-eye length at design (mm)."""
    car = model.car
    return {d.body: car.damper_design_length(d) for d in car.dampers}


def column_key(
    model: KinematicModel,
    column: Column,
    wheels: Mapping[str, str],
    dampers_of: Mapping[str, str] | None,
) -> str:
    """Our metric column (pose_metrics key) that an export column is compared with."""
    from suspension_sim.metrics.catalogue import CATALOGUE, metric_of

    metric = column.rule.metric
    assert metric is not None
    if metric_of(metric) is not None and metric not in CATALOGUE:
        return metric  # a full column named by the map
    m = CATALOGUE.get(metric)
    if m is None:
        raise InputError(
            f"column {column.header.text!r} is mapped to {metric!r}, which is not one of our "
            "metrics",
            where=column.where,
            hint="use a metric id or column from docs/metrics.md",
        )
    loc = column.location
    q = column.quantity
    component = q.component if q is not None and q.metric == metric else ""
    if m.scope == "car":
        return m.key()
    if m.scope == "side" and loc in SIDES:
        return m.key(loc.lower())
    if m.scope == "axle":
        if loc not in AXLES:
            raise InputError(
                f"column {column.header.text!r}: {metric} is per axle, the column is not",
                where=column.where,
                hint="map an axle channel (e.g. 'Track Front') to it",
            )
        return m.key(loc.lower())
    if loc not in CORNERS:
        raise InputError(
            f"column {column.header.text!r}: {metric} is per {m.scope}, the column has no corner",
            where=column.where,
            hint="name the corner in the header, e.g. 'Front Left'",
        )
    wheel = wheels.get(loc)
    if wheel is None:
        raise InputError(
            f"column {column.header.text!r}: the workbook has no wheel on the {loc} corner",
            where=column.where,
            hint=f"wheels found: {', '.join(f'{c} = {w}' for c, w in wheels.items()) or 'none'}; "
            "name them in the map file's 'corners', or ignore the column",
        )
    if m.scope == "wheel":
        return m.key(wheel, component)
    if m.scope == "damper":
        damper = (dampers_of or {}).get(wheel)
        if damper is None:
            raise InputError(
                f"column {column.header.text!r}: no damper found for wheel {wheel}",
                where=column.where,
                hint="map the column to a damper's metric, e.g. damper_length_<damper>_mm",
            )
        return m.key(damper)
    if m.scope == "side":
        return m.key("left" if loc.endswith("Left") else "right")
    raise InputError(f"cannot compare {metric} per corner", where=column.where)


def wheel_dampers_or_none(model: KinematicModel) -> dict[str, str] | None:
    """{wheel: damper} when every wheel has its own damper, else None."""
    from suspension_sim.sweeps.motions import wheel_dampers

    try:
        return wheel_dampers(model)
    except InputError:
        return None


# -- the drive ------------------------------------------------------------------------------
def motion_inputs(
    model: KinematicModel, export: Export
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(chassis (n, 6) in mm/deg, rack (n,) mm, motion channel names used) from the export."""
    n = export.n_steps
    motion = export.motion()
    chassis = np.zeros((n, 6))
    used: list[str] = []
    for key, axis in (("heave", 2), ("roll", 3), ("pitch", 4)):
        col = motion.get(key)
        if col is not None:
            chassis[:, axis] = finite_values(col)
            used.append(col.header.text)
    rack = np.zeros(n)
    rack_column = next((c for c in export.outputs() if c.rule.metric == "rack_mm"), None)
    has_ratio = model.car.rack is not None and bool(model.car.rack.ratio_mm_per_deg)
    if "rack" in motion:
        rack = finite_values(motion["rack"])
        used.append(motion["rack"].header.text)
    elif rack_column is not None and not has_ratio and model.car.rack is not None:
        # OptimumK's Steering Rack Displacement: the rack itself when we cannot turn
        # its steering-wheel degrees into rack travel (then it is an input, not compared).
        rack = finite_values(rack_column)
        used.append(rack_column.header.text)
    elif "steering_wheel" in motion or "steering" in motion:
        key = "steering_wheel" if "steering_wheel" in motion else "steering"
        col = motion[key]
        angle = finite_values(col)
        if np.any(angle != 0):  # a steering channel that never steers needs no rack
            _needs_rack(model, col)
            from suspension_sim.solve.steering import rack_per_wheel_degree

            ratio = rack_per_wheel_degree(model, where=col.where)
            if key == "steering":  # OptimumK: + = rack toward +Y, whichever way that turns
                ratio = abs(ratio)
            rack = angle * ratio
        used.append(col.header.text)
    if np.any(rack != 0) and model.car.rack is None:
        raise InputError(
            "the export moves the rack, but the workbook has no steering rack",
            where=str(export.path),
            hint="add a Steering section",
        )
    return chassis, rack, used


TABLE_MOTIONS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "heave": (("heave",), "'Heave [mm]'", "heave assumed 0 mm"),
    "roll": (("roll",), "'Roll [deg]'", "roll assumed 0 deg"),
    "pitch": (("pitch",), "'Pitch [deg]'", "pitch assumed 0 deg"),
    "steering": (
        ("rack", "steering_wheel", "steering"),
        "'Rack Travel [mm]' or 'Steering Wheel Angle [deg]'",
        "rack assumed at 0 mm (straight ahead)",
    ),
}
"""The table path's motion inputs: key -> (export motion keys, channels, what is assumed)."""


def missing_motions(
    model: KinematicModel, export: Export, used: list[str]
) -> tuple[list[str], list[str]]:
    """(channels, sentences): the motion inputs a table export lacks, each taken as 0 at
    every step (the steering only for a car with a rack, and not when the rack is driven
    by OptimumK's Steering Rack Displacement)."""
    motion = export.motion()
    names: list[str] = []
    sentences: list[str] = []
    for key, (keys, channels, what) in TABLE_MOTIONS.items():
        if any(k in motion for k in keys):
            continue
        if key == "steering" and (
            model.car.rack is None or any(u not in _motion_texts(motion) for u in used)
        ):
            continue
        names.append(channels)
        sentences.append(f"the export has no {channels} channel: {what} at every step")
    return names, sentences


def _motion_texts(motion: Mapping[str, Column]) -> set[str]:
    return {c.header.text for c in motion.values()}


def _needs_rack(model: KinematicModel, col: Column) -> None:
    """InputError naming the column when the workbook has no rack to steer."""
    if model.car.rack is None:
        raise InputError(
            f"column {col.header.text!r} steers, but the workbook has no steering rack",
            where=col.where,
            hint="add a Steering section, or ignore the column in a channel map file",
        )


def finite_values(col: Column) -> np.ndarray:
    """The column's values; an InputError naming the first blank cell if one is blank."""
    bad = np.flatnonzero(~np.isfinite(col.values))
    if len(bad):
        step = int(bad[0])
        raise InputError(
            f"column {col.header.text!r} has no value at step {step + 1} "
            f"({len(bad)} blank cell{'s' if len(bad) > 1 else ''})",
            where=col.cell(step),
            hint="every step needs its drive input",
        )
    return col.values


def damper_strokes(
    model: KinematicModel,
    export: Export,
    wheels: Mapping[str, str],
    dampers_of: Mapping[str, str] | None,
) -> tuple[dict[str, np.ndarray], list[str]]:
    """{damper: strokes (n,)} from the export's damper lengths (mm), and the columns used."""
    design = design_lengths(model)
    if not design:
        raise InputError(
            'drive="dampers" needs dampers, and the workbook has none',
            where="drive",
            hint='use drive="motion"',
        )
    by_key: dict[str, Column] = {}
    for out in export.outputs():
        if out.rule.metric and out.rule.metric.startswith("damper_length"):
            by_key[column_key(model, out, wheels, dampers_of)] = out
    strokes: dict[str, np.ndarray] = {}
    used: list[str] = []
    corner_of = {w: c for c, w in wheels.items()}
    wheel_of = {d: w for w, d in (dampers_of or {}).items()}
    for damper, length0 in design.items():
        col = by_key.get(f"damper_length_{damper}_mm")
        if col is None:
            wheel = wheel_of.get(damper)
            corner = corner_of.get(wheel or "")
            expected = f"Damper Length {corner} [mm]" if corner else f"a column for {damper}"
            found = [c.header.text for c in export.columns if "damper" in c.channel.lower()]
            raise InputError(
                f'missing channel {expected!r}: drive="dampers" needs the length of every '
                f"damper (damper {damper})",
                where=str(export.path),
                hint=(f"damper columns found: {', '.join(found)}; " if found else "")
                + "export the damper lengths, map the column in a channel map file, "
                'or use drive="motion"',
            )
        strokes[damper] = length0 - finite_values(col)
        used.append(col.header.text)
    return strokes, used


def drive_model(
    model: KinematicModel,
    export: Export,
    drive: Drive,
    wheels: Mapping[str, str],
    dampers_of: Mapping[str, str] | None,
) -> tuple[list[StepResult], list[str]]:
    """Solve every step of the export; returns the step results and the input columns used."""
    from suspension_sim.errors import SuspensionSimError
    from suspension_sim.solve.state import State
    from suspension_sim.sweeps.motions import ground_targets

    chassis, rack, used = motion_inputs(model, export)
    strokes: dict[str, np.ndarray] = {}
    targets = {}
    if drive == "motion":
        if not used:
            raise InputError(
                "missing motion channels: the export has none of 'Heave [mm]', 'Roll [deg]', "
                "'Pitch [deg]', 'Rack Travel [mm]', 'Steering Wheel Angle [deg]' (OptimumK: "
                "'Motion [Heave]', 'Motion [Roll]', 'Motion [Pitch]', 'Motion [Steering]')",
                where=str(export.path),
                hint='export the motion channels, or use drive="dampers"',
            )
        targets = ground_targets(model)
    elif drive == "dampers":
        strokes, used_d = damper_strokes(model, export, wheels, dampers_of)
        used = used_d + used
    else:
        raise InputError(f"unknown drive {drive!r}", where="drive", hint="motion or dampers")
    results: list[StepResult] = []
    guess: Pose | None = None
    for i in range(export.n_steps):
        state = State(
            shocks={d: float(v[i]) for d, v in strokes.items()},
            rack=float(rack[i]),
            chassis=tuple(float(v) for v in chassis[i]),  # type: ignore[arg-type]
            targets=targets,
        )
        try:
            pose = state.solve(model, guess=guess, on_failure="return")
        except SuspensionSimError as exc:  # e.g. a stroke beyond the damper's limits
            results.append(StepResult(i, None, exc.render()))
            continue
        if pose.converged:
            guess = pose
            results.append(StepResult(i, pose, None))
        else:
            results.append(StepResult(i, pose, pose.failure or "did not converge"))
    return results, used
