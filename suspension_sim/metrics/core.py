"""`pose_metrics` and `metrics_table`: every metric of solved poses, in catalogue order.

Computed in the iso convention from the model's own point copies (no
DataFrame look-ups), vectorised over wheels, then signed by the output
preset. The work is split by seam: `geometry` (per-wheel geometry),
`rates` (derivatives along the IFT tangents) and `centres` (instant
centres, swing arms, antis, roll and pitch centres); rates and centres come
from one IFT solve (`suspension_sim.solve.sensitivity.wheel_tangents`) per
pose. Definitions: docs/conventions.md; derivations: docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from suspension_sim.metrics.catalogue import CATALOGUE, Metric
from suspension_sim.metrics.centres import ANTI_CENTRES, ANTIS, anti_cases, centre_metrics
from suspension_sim.metrics.conventions import preset
from suspension_sim.metrics.geometry import (
    Slot,
    WheelSet,
    geometry_metrics,
    pose_geometry,
    steering_twists,
    wheel_set,
)
from suspension_sim.metrics.rates import rate_metrics
from suspension_sim.solve.sensitivity import part_twists, wheel_tangents
from suspension_sim.solve.solver import blas_controller

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose


def layout(model: KinematicModel, rates: bool = True) -> tuple[Slot, ...]:
    """The (metric id, where, component) of every column `pose_metrics` returns, in order."""
    return model.derived.get(("metrics", "layout", rates), lambda: _layout(model, rates))


def _layout(model: KinematicModel, rates: bool) -> tuple[Slot, ...]:
    st = wheel_set(model)
    out: list[Slot] = []
    for m in CATALOGUE.values():
        if m.rates and not rates:
            continue
        for where in _places(m, model, st):
            for comp in m.components or ("",):
                out.append((m.id, where, comp))
    return tuple(out)


def _keys(model: KinematicModel, rates: bool) -> tuple[str, ...]:
    return model.derived.get(
        ("metrics", "keys", rates),
        lambda: tuple(CATALOGUE[m].key(w, c) for m, w, c in layout(model, rates)),
    )


def _places(m: Metric, model: KinematicModel, st: WheelSet) -> list[str]:
    """Where a metric applies for this model ([""] for a car-wide one, [] for none)."""
    if m.scope == "car":
        if m.id == "rack":
            return [""] if st.has_rack else []
        if m.id == "steering_wheel_angle":
            return [""] if st.has_rack and st.rack_ratio else []
        return [""]
    if m.scope == "damper":
        return list(st.dampers)
    if m.scope == "axle":
        if m.id == "ackermann":
            return ["front"] if "front" in st.axles and st.has_rack and st.has_wheelbase else []
        return list(st.axles)
    if m.scope == "side":
        return list(st.sides)
    names = list(st.names)
    if m.id in ("motion_ratio", "installation_ratio"):
        return [n for n, d in zip(names, st.damper_of, strict=True) if d >= 0]
    if m.id == "steer_rate":
        return names if st.has_rack else []
    if m.id in ("fvic_arms", "svic_arms"):
        return [n for n, dw in zip(names, st.double_wishbone, strict=True) if dw]
    if m.id in ANTIS or m.id in ANTI_CENTRES.values():
        if not st.has_wheelbase:
            return []
        opts = model.car.options
        found = []
        for i, name in enumerate(names):
            for anti, _share, at_centre in anti_cases(bool(st.front[i]), bool(st.rear[i]), opts):
                if m.id == anti or (m.id == ANTI_CENTRES[anti] and at_centre):
                    found.append(name)
        return found
    return names


def pose_metrics(pose: Pose, convention: str | None = None, rates: bool = True) -> dict[str, float]:
    """Every metric of a pose: ``{column: value}`` in catalogue order (see `CATALOGUE`).

    convention: an output preset (``"iso"``, ``"optimumk"``); None = the
    workbook's ``sign_convention``. rates: also the IFT-based metrics (rates,
    instant centres, roll/pitch centres, anti percentages); off = geometry
    only, somewhat faster. A pose that did not converge gives NaN for
    everything but its inputs (chassis state, rack, strokes, damper lengths).
    Units and signs are in the column names and the catalogue.
    """
    model = pose.model
    pre = preset(convention if convention is not None else model.car.options.sign_convention)
    slots = layout(model, rates)
    keys = _keys(model, rates)
    st = wheel_set(model)
    values: dict[Slot, float] = {}
    _inputs(pose, st, values)
    if pose.converged and st.names:
        with blas_controller().limit(limits=1, user_api="blas"):  # small systems: threads only cost
            geo = pose_geometry(pose, st, derivatives=rates)
            tg = wheel_tangents(pose) if rates else None
            twists = part_twists(pose, tg) if tg is not None else None
            steer = None
            if st.kingpin_needs_rack and st.has_rack:
                steer = steering_twists(pose, st, twists)
            geometry_metrics(st, geo, pre, steer, values)
            if tg is not None and twists is not None:
                rate_metrics(model, st, geo, tg, pre, values)
                centre_metrics(st, geo, twists, model.car.options, values)
    nan = float("nan")
    # "+ 0.0" turns -0.0 into 0.0 so tables do not show "-0".
    return {k: float(values.get(slot, nan)) + 0.0 for k, slot in zip(keys, slots, strict=True)}


def metrics_table(poses: Iterable[Pose], convention: str | None = None) -> pd.DataFrame:
    """One row per pose (in order), one column per metric (`pose_metrics` with rates).

    ``table.attrs["convention"]`` names the preset used.
    """
    rows = []
    name = convention
    for pose in poses:
        if name is None:
            name = pose.model.car.options.sign_convention
        rows.append(pose_metrics(pose, name, rates=True))
    import pandas as pd

    table = pd.DataFrame(rows)
    table.attrs["convention"] = preset(name).name
    return table


def _inputs(pose: Pose, st: WheelSet, out: dict[Slot, float]) -> None:
    """The pose's own inputs: chassis state, rack (and steering-wheel angle), strokes."""
    _x, _y, z, roll, pitch, _yaw = pose.chassis
    out[("chassis_heave", "", "")] = float(z)
    out[("chassis_roll", "", "")] = float(roll)
    out[("chassis_pitch", "", "")] = float(pitch)
    out[("rack", "", "")] = float(pose.rack)
    if st.rack_ratio:
        out[("steering_wheel_angle", "", "")] = float(pose.rack) / st.rack_ratio
    for name, length in zip(st.dampers, st.damper_design_length, strict=True):
        stroke = float(pose.shocks[name])
        out[("stroke", name, "")] = stroke
        out[("damper_length", name, "")] = float(length) - stroke


def wheel_dampers(model: KinematicModel) -> dict[str, str | None]:
    """Wheel -> the damper its motion ratio refers to (None: no damper moves with it)."""
    st = wheel_set(model)
    return {
        name: (st.dampers[d] if d >= 0 else None)
        for name, d in zip(st.names, st.damper_of, strict=True)
    }
