"""Solving many (wheel travel, rack) states of a corner as one batch.

A map node is single-wheel bump with the rack at a value: the chassis at design,
the corner's wheel centre `travel` mm above its design place along the chassis z
axis (docs/conventions.md, `wheel_travel`: + = bump), every other damper at its
design stroke, the rack at `rack` mm (+ toward +Y). It is the state of the sweep
``bump WHEEL`` (docs/sweeps.md) with the rack held elsewhere, and the state a
single ``model.solve(targets={damper: wheel_travel(wheel, t)}, rack=r)`` closes.

`solve_batch` holds inputs (strokes, rack), not targets, so the travel is reached
by Newton's method on the corner's damper stroke, every state at once: each pass
is one `solve_batch` of all the states and one `batch_metrics` for their travels;
the first step uses the design motion ratio (d stroke / d travel), the later ones
the secant of each state's last two passes. A few passes bring every travel
within `TRAVEL_TOL_MM`. Corners whose strokes move no other corner's wheel (checked
at design from the implicit-function-theorem rates) share the states of one
batch, each driven by its own damper.

A node that cannot be reached is NaN with a reason, never a nearby value: a stroke
past the damper's declared Min/Max length, a rack travel past the rack's limits, a
state the solver cannot close (its failure text), or a travel Newton does not reach.
Units: mm, deg (rad inside the solver).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.names import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

TRAVEL_TOL_MM = 1e-9
"""A node's wheel travel is accepted within this of the asked value (mm)."""
MAX_PASSES = 30
"""Most Newton passes (batch solves) before a node is reported as not reached."""
COUPLING_RATE = 1e-9
"""mm of another wheel's centre per mm of a stroke below which two corners are
independent (structurally they give exact zeros; rounding stays far below this)."""
FAIL_LIMIT = 6
"""Passes in a row a state may fail to close (each halving its step back toward its
last closed strokes) before its corners still moving are reported as not solved."""
SECANT_MIN_MM = 1e-7
"""Smallest change of travel between two passes that a secant slope is taken from."""


@dataclass(frozen=True)
class Corner:
    """One wheel of the car and the damper that drives its travel."""

    wheel: str
    damper: str
    axle: str  # "front" / "rear" (docs/metrics.md: from the wheel centres)
    side: str  # "left" / "right"
    steered: bool  # the rack moves this wheel (its map has a rack axis)
    design_ratio: float  # d stroke / d travel at design (damper over wheel)


@dataclass(frozen=True)
class Layout:
    """The corners of a model and which of them may share one batch."""

    corners: tuple[Corner, ...]
    coupled: frozenset[tuple[str, str]]  # (wheel, wheel) pairs whose strokes interact
    has_rack: bool


def corner_layout(model: KinematicModel) -> Layout:
    """Corners of the model (one damper per wheel), found once per model at design."""
    return model.derived.get(("maps", "layout"), lambda: _corner_layout(model))


def _corner_layout(model: KinematicModel) -> Layout:
    from suspension_sim.description import wheel_layout
    from suspension_sim.solve.sensitivity import damper_wheels, input_tangents, point_rates
    from suspension_sim.solve.solver import solve

    try:
        wheel_of = damper_wheels(model)  # {damper: wheel}, one damper per wheel
    except InputError as exc:
        raise InputError(
            f"kinematic maps drive each wheel by its own damper: {exc.message}",
            where="maps",
            hint="maps need one damper per wheel (a monoshock or a car without dampers "
            "has no single-wheel travel input); run sweeps instead",
        ) from None
    damper_of = {w: d for d, w in wheel_of.items()}
    lay = wheel_layout(model.car)
    design = solve(model)
    tg = input_tangents(design)
    rates = point_rates(design, tg)  # (n_inst, 3, n_inputs), chassis frame
    inst = model.inst_index
    names = model.damper_names
    has_rack = model.topology.rack_param is not None
    corners: list[Corner] = []
    coupled: set[tuple[str, str]] = set()
    for k, w in enumerate(model.car.wheels):
        d = damper_of[w.name]
        i_c = inst[(w.centre, w.body)]
        i_a = inst[(w.axis_point, w.body)]
        dz = float(rates[i_c, 2, names.index(d)])
        steered = has_rack and bool(np.abs(rates[[i_c, i_a], :, len(names)]).max() > COUPLING_RATE)
        corners.append(
            Corner(w.name, d, lay.axle[k], lay.side[k], steered, 1.0 / dz if dz else np.inf)
        )
        for other in model.car.wheels:
            if other.name == w.name:
                continue
            j = inst[(other.centre, other.body)]
            if np.abs(rates[j, :, names.index(d)]).max() > COUPLING_RATE:
                coupled.add((w.name, other.name))
                coupled.add((other.name, w.name))
    return Layout(tuple(corners), frozenset(coupled), has_rack)


def batch_groups(layout: Layout, corners: Sequence[Corner]) -> list[list[Corner]]:
    """Corners split into groups whose members move no other member's wheel (greedy,
    in order): each group is solved as one batch."""
    groups: list[list[Corner]] = []
    for c in corners:
        for g in groups:
            if all((c.wheel, o.wheel) not in layout.coupled for o in g):
                g.append(c)
                break
        else:
            groups.append([c])
    return groups


METRIC_KEYS = {
    "camber": "camber_{w}_deg",
    "toe": "toe_{w}_deg",
    "steer": "steer_{w}_deg",
    "half_track": "half_track_{w}_mm",
    "caster": "caster_{w}_deg",
    "kpi": "kpi_{w}_deg",
    "scrub_radius": "scrub_radius_{w}_mm",
    "trail": "mechanical_trail_{w}_mm",
    "motion_ratio": "motion_ratio_{w}",
    "wheel_centre_x": "wheel_centre_{w}_x_mm",
    "wheel_centre_y": "wheel_centre_{w}_y_mm",
    "wheel_centre_z": "wheel_centre_{w}_z_mm",
    "contact_point_x": "contact_point_{w}_x_mm",
    "contact_point_y": "contact_point_{w}_y_mm",
    "contact_point_z": "contact_point_{w}_z_mm",
    "wheel_travel": "wheel_travel_{w}_mm",
}
"""Map quantity -> the `pose_metrics` / `batch_metrics` column it is read from (iso)."""


@dataclass
class Solved:
    """One corner's values at N states: {metric quantity: (N,)}, the damper stroke (mm),
    and the reason each state is NaN ('' where it was reached)."""

    values: dict[str, np.ndarray]
    stroke: np.ndarray
    reason: np.ndarray  # (N,) object: str


def solve_corners(
    model: KinematicModel,
    corners: Sequence[Corner],
    travel: np.ndarray,
    rack: np.ndarray,
    method: str = "auto",
) -> dict[str, Solved]:
    """Every corner of `corners` at the N states (travel[i] mm, rack[i] mm), as few
    batches as the coupling allows. Returns {wheel: Solved}."""
    layout = corner_layout(model)
    travel = np.asarray(travel, dtype=float).ravel()
    rack = np.asarray(rack, dtype=float).ravel()
    out: dict[str, Solved] = {}
    for group in batch_groups(layout, corners):
        steered = [c for c in group if c.steered]
        plain = [c for c in group if not c.steered]
        if steered:
            out.update(_solve_group(model, steered, travel, rack, method))
        if plain:  # the rack does not move these wheels: solved at rack 0
            out.update(_solve_group(model, plain, travel, np.zeros_like(travel), method))
    return out


def _solve_group(
    model: KinematicModel,
    group: Sequence[Corner],
    travel: np.ndarray,
    rack: np.ndarray,
    method: str,
) -> dict[str, Solved]:
    from suspension_sim.metrics.batch import batch_metrics
    from suspension_sim.metrics.catalogue import CATALOGUE
    from suspension_sim.metrics.core import layout as metric_layout
    from suspension_sim.solve.batch import solve_batch
    from suspension_sim.solve.inputs import input_limits
    from suspension_sim.solve.reach import link_bounds

    n = len(travel)
    names = model.damper_names
    cols = [names.index(c.damper) for c in group]
    limits = input_limits(model)
    reach = link_bounds(model)  # the linkage's outer bound: past it a solve is refused
    lim_lo = np.array([_bound(limits.get(c.damper, (None, None))[0], -np.inf) for c in group])
    lim_hi = np.array([_bound(limits.get(c.damper, (None, None))[1], np.inf) for c in group])
    far_lo = np.array([reach.get(c.damper, (-np.inf, np.inf))[0] for c in group])
    far_hi = np.array([reach.get(c.damper, (-np.inf, np.inf))[1] for c in group])
    lo, hi = np.maximum(lim_lo, far_lo), np.minimum(lim_hi, far_hi)
    reason = np.full((n, len(group)), "", dtype=object)
    rack_used = rack.copy()
    if model.topology.rack_param is not None:
        r_lo, r_hi = limits.get("rack", (None, None))
        r_lo, r_hi = _bound(r_lo, -np.inf), _bound(r_hi, np.inf)
        past = (rack < r_lo) | (rack > r_hi)
        if past.any():
            reason[past, :] = f"rack travel outside the rack's limits ({r_lo:g} to {r_hi:g} mm)"
        f_lo, f_hi = reach.get("rack", (-np.inf, np.inf))
        beyond = ~past & ((rack < f_lo) | (rack > f_hi))
        if beyond.any():
            reason[beyond, :] = (
                f"rack travel beyond the reach of the linkage ({f_lo:.3f} to {f_hi:.3f} mm)"
            )
        rack_used = np.clip(rack, max(r_lo, f_lo), min(r_hi, f_hi))
    elif np.any(rack != 0.0):
        raise InputError("this workbook has no steering rack", where="rack")
    T = np.broadcast_to(travel[:, None], (n, len(group)))
    ratio = np.array([c.design_ratio for c in group])
    S = np.clip(T * ratio, lo, hi)
    slope = np.broadcast_to(ratio, (n, len(group))).copy()
    good_S = np.zeros_like(S)  # the last strokes of each state that closed (design first)
    prev: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    done = np.zeros((n, len(group)), dtype=bool)
    pinned = np.zeros_like(done)
    gave_up = np.zeros_like(done)
    reached = np.zeros_like(done)  # the solver failed FAIL_LIMIT times: not reachable
    fails = np.zeros(n, dtype=int)
    travel_cols = [METRIC_KEYS["wheel_travel"].format(w=c.wheel) for c in group]
    shocks = np.zeros((n, len(names)))
    res = None
    solved_S = S
    got = np.full((n, len(group)), np.nan)
    for _ in range(MAX_PASSES):
        shocks[:, cols] = S
        res = solve_batch(model, shocks, rack_used, None, None, None, method)  # type: ignore[arg-type]
        solved_S = S.copy()
        got = batch_metrics(res, "iso", columns=travel_cols).to_numpy()
        closed = res.converged[:, None] & np.isfinite(got)
        err = np.where(closed, T - got, np.nan)
        done = closed & (np.abs(err) <= TRAVEL_TOL_MM)
        reached |= done  # its stroke is kept from now on (even when the state fails)
        # a stroke at its limit that would have to go further: this travel is out of reach
        step = slope * np.nan_to_num(err)
        at_lo, at_hi = np.less_equal(S, lo), np.greater_equal(S, hi)
        pinned = closed & ~done & ((at_lo & (step < 0)) | (at_hi & (step > 0)))
        failed = ~res.converged
        fails = np.where(failed, fails + 1, 0)
        for st in np.flatnonzero(fails >= FAIL_LIMIT):  # give up the corners still moving
            text = res.failures.get(int(st), "") or "the solver did not close this state"
            for k in np.flatnonzero(~reached[st] & ~gave_up[st]):
                gave_up[st, k] = True
                if not reason[st, k]:
                    reason[st, k] = "not solved: " + text.splitlines()[0].rstrip(":")
        settled = (reached & ~failed[:, None]) | pinned | gave_up
        if np.all(settled):
            break
        if prev is not None:
            dS, dT = S - prev[0], got - prev[1]
            use = closed & prev[2] & (np.abs(dT) > SECANT_MIN_MM)
            slope = np.where(use, dS / np.where(use, dT, 1.0), slope)
        prev = (S.copy(), got.copy(), closed)
        good_S = np.where(closed, S, good_S)
        new = np.where(closed, S + slope * np.nan_to_num(err), 0.5 * (S + good_S))
        S = np.where(reached | pinned, S, np.clip(new, lo, hi))
        S = np.where(gave_up, good_S, S)  # given up: back where the state closes
    assert res is not None
    keys = [CATALOGUE[m].key(w, c) for m, w, c in metric_layout(model, True)]
    want: list[str] = []
    for c in group:
        want += [k.format(w=c.wheel) for k in METRIC_KEYS.values()]
    table = batch_metrics(res, "iso", rates=True, columns=[k for k in want if k in keys])
    out: dict[str, Solved] = {}
    for j, c in enumerate(group):
        why = reason[:, j]
        for i in np.flatnonzero(~res.converged):
            if not why[i]:
                text = res.failures.get(int(i), "") or "the solver did not close this state"
                why[i] = "not solved: " + text.splitlines()[0].rstrip(":")
        at_limit = pinned[:, j] & (why == "")
        declared = np.isclose(solved_S[:, j], lim_lo[j]) | np.isclose(solved_S[:, j], lim_hi[j])
        limit_text = f"{c.damper} stroke limit ({lim_lo[j]:g} to {lim_hi[j]:g} mm)"
        why[at_limit & declared] = f"travel needs the damper past its {limit_text}"
        why[at_limit & ~declared] = (
            f"travel beyond the reach of the linkage ({c.damper} stroke {far_lo[j]:.3f} "
            f"to {far_hi[j]:.3f} mm at most)"
        )
        missed = ~(reached[:, j] & res.converged) & (why == "")
        for i in np.flatnonzero(missed):
            why[i] = (
                f"travel not reached (off by {abs(travel[i] - got[i, j]):.3g} mm after "
                f"{MAX_PASSES} passes)"
            )
        bad = why != ""
        values: dict[str, np.ndarray] = {}
        for q, key in METRIC_KEYS.items():
            col = key.format(w=c.wheel)
            v = table[col].to_numpy(dtype=float).copy() if col in table else np.full(n, np.nan)
            v[bad] = np.nan
            values[q] = v
        stroke = np.where(bad, np.nan, solved_S[:, j])
        out[c.wheel] = Solved(values, stroke, why)
    return out


def _bound(value: float | None, default: float) -> float:
    return default if value is None else float(value)


def choose_corners(model: KinematicModel, corners: Sequence[str] | None) -> list[Corner]:
    """The corners asked for (all by default), by wheel name."""
    layout = corner_layout(model)
    every = {c.wheel: c for c in layout.corners}
    if corners is None:
        return list(layout.corners)
    out = []
    for name in corners:
        if name not in every:
            raise InputError(
                f"unknown corner {name!r}." + did_you_mean(str(name), list(every)),
                where="corners",
                hint=f"wheels of this car: {', '.join(every)}",
            )
        out.append(every[name])
    return out


def design_half_tracks(model: KinematicModel, corners: Sequence[Corner]) -> dict[str, float]:
    """Half track (mm) of each corner at design, where track_change is 0 (once per model)."""

    def build() -> dict[str, float]:
        from suspension_sim.metrics.core import pose_metrics
        from suspension_sim.solve.solver import solve

        row = pose_metrics(solve(model), "iso", rates=False)
        return {w.name: row[f"half_track_{w.name}_mm"] for w in model.car.wheels}

    every = model.derived.get(("maps", "design half tracks"), build)
    return {c.wheel: every[c.wheel] for c in corners}
