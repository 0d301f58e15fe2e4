"""From raw log columns to solver inputs, and what is wrong with which samples.

`convert` turns a chunk of raw columns into strokes (mm, + = compression),
rack travel (mm, + = toward +Y) and chassis states (mm, deg) as
docs/conventions.md defines them. `Scan` is the first pass over a log:
sample count, each channel's range (all-NaN and constant channels), the
median time step, and the static segment's samples whose median zeroes the
strokes (`ZeroOffset`: only samples within the damper's travel count, so one
glitch cannot shift a whole log; a spread over `ZERO_SPREAD_MM` is warned
of). `screen` gives every sample of a chunk its status and logs the
problems as time ranges in a `ProblemLog` ("t = 12.340..12.512 s: FL_Damper
stroke 31.2 mm beyond the damper's travel (max 25.0)"). The damper-limit
rule is `suspension_sim.solve.batch`'s own (length against the Damping
min/max lengths with `LIMIT_SLACK_MM`), so no batch is ever refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError, SolveError
from suspension_sim.replay.travel import beyond_travel, travel_checks
from suspension_sim.solve.inputs import limit_text
from suspension_sim.solve.reach import check_reach, link_bounds
from suspension_sim.solve.steering import rack_per_wheel_degree
from suspension_sim.tolerances import (
    LIMIT_SLACK_MM,
    MAX_CHASSIS_MM,
    MAX_CHASSIS_TILT_DEG,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.replay.channelmap import Channel, ChannelMap

OK, NOT_CLOSED, OUT_OF_LIMITS, GAP, BAD_CHANNEL = 0, 1, 2, 3, 4
STATUS_NAMES: tuple[str, ...] = ("ok", "not_closed", "out_of_limits", "gap", "bad_channel")
"""Status of a sample by code; a larger code wins when several apply."""
MAX_RANGES = 10_000
"""Problem ranges kept (more are counted, not listed)."""
CHASSIS_INDEX = {"heave": 2, "roll": 3, "pitch": 4}
"""Column of each chassis channel in the solver's (x, y, z, roll, pitch, yaw) state."""
ZERO_SPREAD_MM = 1.0
"""A stroke (or rack travel) moving more than this over the static segment is warned of:
the car was not standing still there, or the channel is noisy."""
NO_TIME = "time:none"
"""Problem channel of samples without a time stamp (shown at the time before them)."""
TIME_BACK = "time:back"
"""Problem channel of samples whose time goes back or repeats."""


@dataclass
class Inputs:
    """One chunk's solver inputs: time (s), strokes (n, dampers) mm, rack mm, chassis
    (n, 6): x, y, z mm, roll, pitch, yaw deg. NaN where the log has no value."""

    time: np.ndarray
    strokes: np.ndarray
    rack: np.ndarray
    chassis: np.ndarray


def rack_per_degree(model: KinematicModel, cmap: ChannelMap) -> float:
    """mm of rack per degree of steering wheel (+ = left turn), or 0 when not needed."""
    s = cmap.steering
    if s is None or s.kind != "steering_wheel":
        return 0.0
    return rack_per_wheel_degree(model, where=s.where)


def convert(
    model: KinematicModel,
    cmap: ChannelMap,
    frame: pd.DataFrame,
    offsets: dict[str, float],
    rack_ratio: float,
) -> Inputs:
    """A chunk of raw columns as solver inputs; `offsets` (mm, from `Scan.offsets`) are
    subtracted from the strokes ("steering": from the rack travel)."""
    n = len(frame)
    time = np.asarray(cmap.time.convert(frame[cmap.time.column].to_numpy()), dtype=float)
    strokes = np.zeros((n, len(model.damper_names)))
    for k, name in enumerate(model.damper_names):
        if name in cmap.fixed:
            strokes[:, k] = cmap.fixed[name]
            continue
        strokes[:, k] = stroke_values(model, cmap.dampers[name], frame) - offsets.get(name, 0.0)
    rack = np.zeros(n)
    if cmap.steering is not None:
        rack = rack_values(cmap.steering, frame, rack_ratio) - offsets.get("steering", 0.0)
    chassis = np.zeros((n, 6))
    for axis, ch in cmap.chassis.items():
        chassis[:, CHASSIS_INDEX[axis]] = np.asarray(ch.convert(frame[ch.column].to_numpy()))
    return Inputs(time, strokes, rack, chassis)


def stroke_values(model: KinematicModel, ch: Channel, frame: pd.DataFrame) -> np.ndarray:
    """Strokes (mm, + = compression) of a damper channel: the value itself for
    kind stroke, design length - value for kind length."""
    value = np.asarray(ch.convert(frame[ch.column].to_numpy()), dtype=float)
    if ch.kind == "length":
        d = model.car.damper(ch.name)
        assert d is not None
        return model.car.damper_design_length(d) - value
    return value


def rack_values(ch: Channel, frame: pd.DataFrame, rack_ratio: float) -> np.ndarray:
    """Rack travel (mm, + = toward +Y) of the steering channel."""
    value = np.asarray(ch.convert(frame[ch.column].to_numpy()), dtype=float)
    return value * rack_ratio if ch.kind == "steering_wheel" else value


# -- first pass ---------------------------------------------------------------------------
@dataclass
class Scan:
    """What one pass over the log tells before anything is solved."""

    samples: int = 0
    finite: dict[str, int] = field(default_factory=dict)  # channel name -> numeric samples
    low: dict[str, float] = field(default_factory=dict)
    high: dict[str, float] = field(default_factory=dict)
    zero_values: dict[str, list[np.ndarray]] = field(default_factory=dict)  # static segment
    zero_times: dict[str, list[np.ndarray]] = field(default_factory=dict)
    steps: list[float] = field(default_factory=list)  # median time step of each chunk
    first_time: float = math.nan
    last_time: float = math.nan
    _previous: float = math.nan

    def add(
        self,
        model: KinematicModel,
        cmap: ChannelMap,
        frame: pd.DataFrame,
        rack_ratio: float,
    ) -> None:
        """Account for one chunk of raw columns."""
        n = len(frame)
        self.samples += n
        t = np.asarray(cmap.time.convert(frame[cmap.time.column].to_numpy()), dtype=float)
        tf = t[np.isfinite(t)]
        if len(tf):
            if math.isnan(self.first_time):
                self.first_time = float(tf[0])
            self.last_time = float(tf[-1])
            dt = np.diff(
                np.concatenate([[self._previous], tf]) if np.isfinite(self._previous) else tf
            )
            dt = dt[dt > 0]
            if len(dt):
                self.steps.append(float(np.median(dt)))
            self._previous = float(tf[-1])
        values: dict[str, np.ndarray] = {"time": t}
        for name, ch in cmap.dampers.items():
            values[name] = stroke_values(model, ch, frame)
        if cmap.steering is not None:
            values["steering"] = rack_values(cmap.steering, frame, rack_ratio)
        for axis, ch in cmap.chassis.items():
            values[axis] = np.asarray(ch.convert(frame[ch.column].to_numpy()), dtype=float)
        zero = cmap.zero
        window = (
            np.isfinite(t) & (t >= zero.start) & (t <= zero.stop)
            if zero is not None
            else np.zeros(n, dtype=bool)
        )
        zeroed = _zeroed(cmap)
        for name, v in values.items():
            ok = np.isfinite(v)
            self.finite[name] = self.finite.get(name, 0) + int(ok.sum())
            if ok.any():
                self.low[name] = min(self.low.get(name, math.inf), float(v[ok].min()))
                self.high[name] = max(self.high.get(name, -math.inf), float(v[ok].max()))
            w = window & ok
            if name in zeroed and w.any():  # a static segment is short: its samples are kept
                self.zero_values.setdefault(name, []).append(v[w])
                self.zero_times.setdefault(name, []).append(t[w])

    @property
    def median_step(self) -> float:
        """Median time step of the log (s; NaN with fewer than two times)."""
        return float(np.median(self.steps)) if self.steps else math.nan

    def zeroes(self, model: KinematicModel, cmap: ChannelMap) -> list[ZeroOffset]:
        """The zero of each stroke (and, if asked, of the rack travel): the median of its
        samples in the static segment that are within the travel (the screening rule,
        `beyond_travel`), or of all of them when fewer than half are (a pot whose zero
        is farther off than the travel); InputError at the map's zero entry if a channel
        has no sample there."""
        zero = cmap.zero
        if zero is None:
            return []
        out = []
        for name in _zeroed(cmap):
            if name not in self.zero_values:
                raise InputError(
                    f"no sample of {name} in the static segment t = {zero.start:g}..{zero.stop:g}"
                    f" s (the log runs from {self.first_time:g} to {self.last_time:g} s)",
                    where=zero.where,
                    hint="choose from/to (s of log time) where the car stood still",
                )
            v = np.concatenate(self.zero_values[name])
            t = np.concatenate(self.zero_times[name])
            inside = ~beyond_travel(model, name, v)
            all_used = 2 * int(inside.sum()) < len(v)
            if not all_used:
                v, t = v[inside], t[inside]
            lo, hi = int(np.argmin(v)), int(np.argmax(v))
            out.append(
                ZeroOffset(
                    name=name,
                    value=float(np.median(v)),
                    used=len(v),
                    left_out=0 if all_used else int((~inside).sum()),
                    low=float(v[lo]),
                    high=float(v[hi]),
                    t_low=float(t[lo]),
                    t_high=float(t[hi]),
                    start=zero.start,
                    stop=zero.stop,
                    all_beyond=all_used,
                )
            )
        return out

    def bad_channels(self, cmap: ChannelMap) -> list[Channel]:
        """Channels without a single numeric sample."""
        return [ch for ch in cmap.channels[1:] if self.finite.get(ch.name, 0) == 0]

    def constant_channels(self, cmap: ChannelMap) -> list[tuple[Channel, float]]:
        """Damper and steering channels that never move (value in mm) over a log of
        more than one sample: a dead or unplugged sensor, most likely."""
        out = []
        moving = list(cmap.dampers.values()) + ([cmap.steering] if cmap.steering else [])
        for ch in moving:
            if self.finite.get(ch.name, 0) > 1 and self.low[ch.name] == self.high[ch.name]:
                out.append((ch, self.low[ch.name]))
        return out


def _zeroed(cmap: ChannelMap) -> list[str]:
    """Channels the static segment zeroes: the damper channels, the steering if asked."""
    zero = cmap.zero
    if zero is None:
        return []
    return list(cmap.dampers) + (["steering"] if zero.steering and cmap.steering else [])


@dataclass(frozen=True)
class ZeroOffset:
    """The zero of one channel found in the static segment (mm of stroke or rack)."""

    name: str  # a damper, or "steering"
    value: float  # the median of the samples used
    used: int  # samples used
    left_out: int  # samples beyond the travel, left out
    low: float  # lowest and highest of the samples used, and their times (s)
    high: float
    t_low: float
    t_high: float
    start: float  # the static segment (s)
    stop: float
    all_beyond: bool = False  # fewer than half were within the travel: all were used

    @property
    def spread(self) -> float:
        """Highest - lowest sample used (mm)."""
        return self.high - self.low

    def _what(self) -> str:
        return "rack travel" if self.name == "steering" else "stroke"

    def _travel(self) -> str:
        return "the rack's travel" if self.name == "steering" else "the damper's travel"

    def note(self) -> str:
        """``FL_Damper: stroke zeroed at its median +3.1000 mm over t = 0..1.5 s (...)``."""
        text = (
            f"{self.name}: {self._what()} zeroed at its median {self.value:+.4f} mm over t = "
            f"{self.start:g}..{self.stop:g} s ({self.used} samples)"
        )
        if self.left_out:
            text += f"; {self.left_out} sample(s) beyond {self._travel()} left out"
        if self.all_beyond:
            text += (
                f"; most samples there are beyond {self._travel()} before zeroing (a pot "
                "that is not calibrated?), so all were used"
            )
        return text

    def warning(self) -> str:
        """Why the zero is doubtful (a spread over `ZERO_SPREAD_MM`), or ""."""
        if not self.spread > ZERO_SPREAD_MM:
            return ""
        return (
            f"{self.name}: {self._what()} moves {self.spread:.2f} mm over the static segment "
            f"t = {self.start:g}..{self.stop:g} s (from {self.low:+.2f} mm at t = "
            f"{self.t_low:.6g} s to {self.high:+.2f} mm at t = {self.t_high:.6g} s): the car "
            f"was not standing still there, or the channel is noisy; zeroed at the median "
            f"{self.value:+.4f} mm"
        )


# -- problem ranges -----------------------------------------------------------------------
@dataclass
class Problem:
    """A run of consecutive samples with one problem (times in s)."""

    kind: str  # a status name: gap, out_of_limits, bad_channel, not_closed; or "jump"
    channel: str
    start: float
    stop: float
    count: int
    message: str  # what, without the time stamps
    detail: str = ""  # the solver's full explanation (not_closed)

    def text(self, decimals: int = 3) -> str:
        """``t = 12.340..12.512 s: <message>`` (one time for a single sample; ``after t =``
        for samples without a time stamp, shown at the last time before them)."""
        if self.start == self.stop:
            when = f"t = {self.start:.{decimals}f} s"
        else:
            when = f"t = {self.start:.{decimals}f}..{self.stop:.{decimals}f} s"
        if self.channel == NO_TIME:
            when = "after " + when
        many = f" ({self.count} samples)" if self.count > 1 else ""
        return f"{when}: {self.message}{many}"


@dataclass
class _Run:
    first: int
    last: int
    start: float
    stop: float
    count: int
    worst: float  # the value farthest beyond the limit (or NaN)
    excess: float
    message: str
    detail: str = ""


@dataclass
class ProblemLog:
    """Problems of a whole log as time ranges: consecutive samples (also across chunks)
    with the same problem on the same channel form one range."""

    problems: list[Problem] = field(default_factory=list)
    dropped: int = 0
    _open: dict[tuple[str, str], _Run] = field(default_factory=dict)
    _render: dict[tuple[str, str], object] = field(default_factory=dict)

    def add(
        self,
        kind: str,
        channel: str,
        index: np.ndarray,
        time: np.ndarray,
        message: str | None = None,
        values: np.ndarray | None = None,
        excess: np.ndarray | None = None,
        render: object = None,
        details: list[str] | None = None,
    ) -> None:
        """Samples `index` (global, increasing) at times `time` have problem `kind` on
        `channel`. Either a fixed `message`, or `values` with their `excess` beyond the
        limit and ``render(worst_value) -> message`` for the range's worst sample."""
        if not len(index):
            return
        key = (kind, channel)
        if render is not None:
            self._render[key] = render
        breaks = np.flatnonzero(np.diff(index) != 1) + 1
        starts = np.concatenate([[0], breaks])
        stops = np.concatenate([breaks, [len(index)]])
        for a, b in zip(starts.tolist(), stops.tolist(), strict=True):
            worst, ex = math.nan, -math.inf
            if values is not None and excess is not None:
                k = a + int(np.argmax(excess[a:b]))
                worst, ex = float(values[k]), float(excess[k])
            run = self._open.get(key)
            if run is not None and run.last + 1 == int(index[a]):
                run.last, run.stop = int(index[b - 1]), float(time[b - 1])
                run.count += b - a
                if ex > run.excess:
                    run.worst, run.excess = worst, ex
                continue
            if run is not None:
                self._close(key)
            self._open[key] = _Run(
                int(index[a]),
                int(index[b - 1]),
                float(time[a]),
                float(time[b - 1]),
                b - a,
                worst,
                ex,
                message or "",
                details[a] if details else "",
            )

    def flush_before(self, index: int) -> None:
        """Close every range that ended before sample `index`."""
        for key in [k for k, r in self._open.items() if r.last + 1 < index]:
            self._close(key)

    def _close(self, key: tuple[str, str]) -> None:
        run = self._open.pop(key)
        if len(self.problems) >= MAX_RANGES:
            self.dropped += 1
            return
        message = run.message
        render = self._render.get(key)
        if render is not None:
            message = render(run.worst)  # type: ignore[operator]
        self.problems.append(
            Problem(key[0], key[1], run.start, run.stop, run.count, message, run.detail)
        )

    def finish(self) -> list[Problem]:
        """Close every range; the problems in time order."""
        for key in list(self._open):
            self._close(key)
        self.problems.sort(key=lambda p: (p.start, p.kind, p.channel))
        return self.problems


# -- screening ----------------------------------------------------------------------------
@dataclass
class Screen:
    """Per-model screening rules, built once: damper lengths, rack and chassis limits,
    the linkage's reach (`suspension_sim.solve.reach.link_bounds`)."""

    model: KinematicModel
    cmap: ChannelMap
    gap_factor: float
    median_step: float
    bad: list[str] = field(default_factory=list)  # channel names without numeric samples
    _last_time: float = -math.inf
    _last_valid_time: float = math.nan

    def status(self, inputs: Inputs, start: int, log: ProblemLog) -> np.ndarray:
        """Status code of each sample of a chunk whose first sample is number `start`;
        every problem goes to `log` with its time stamps."""
        cmap = self.cmap
        n = len(inputs.time)
        index = np.arange(start, start + n)
        t = inputs.time
        status = np.zeros(n, dtype=np.int8)
        shown = self._times(t)
        if self.bad:
            status[:] = BAD_CHANNEL
            for name in self.bad:
                ch = _channel(cmap, name)
                log.add(
                    "bad_channel",
                    name,
                    index,
                    shown,
                    f"{ch.describe()} has no numeric value in the whole log: nothing is solved",
                )
            return status
        # time: missing, going back, jumping
        no_time = ~np.isfinite(t)
        if no_time.any():
            status[no_time] = GAP
            log.add("gap", NO_TIME, index[no_time], shown[no_time], "no time stamp")
        ok_t = np.flatnonzero(~no_time)
        if len(ok_t):
            tv = t[ok_t]
            before = np.maximum.accumulate(np.concatenate([[self._last_time], tv]))[:-1]
            back = tv <= before
            if back.any():
                status[ok_t[back]] = GAP
                log.add(
                    "gap",
                    TIME_BACK,
                    index[ok_t[back]],
                    tv[back],
                    "time goes back (or repeats): these samples are left blank",
                )
            prev = before  # the latest time before each sample
            step = tv - prev
            limit = self.gap_factor * self.median_step
            jump = np.isfinite(step) & (step > limit) & ~back
            for k in np.flatnonzero(jump):
                log.add(
                    "jump",
                    f"time@{start + int(ok_t[k])}",
                    np.array([start + int(ok_t[k])]),
                    np.array([tv[k]]),
                    f"time jumps by {step[k]:.6g} s, from {prev[k]:.6g} s "
                    f"({step[k] / self.median_step:.0f} x the median step "
                    f"{self.median_step:.3g} s): nothing is interpolated across it",
                )
            self._last_time = max(self._last_time, float(tv.max()))
            self._last_valid_time = float(tv[-1])
        # samples with no value
        for name, values in self._channels(inputs):
            nan = ~np.isfinite(values)
            if nan.any():
                status[nan] = np.maximum(status[nan], GAP)
                ch = _channel(cmap, name)
                log.add("gap", name, index[nan], shown[nan], f"no value in {ch.describe()}")
        self._limits(inputs, index, shown, status, log)
        return status

    def _times(self, t: np.ndarray) -> np.ndarray:
        """Time stamps to show: a sample without one shows the last time before it."""
        shown = t.copy()
        bad = ~np.isfinite(shown)
        if bad.any():
            filled = pd.Series(shown).ffill().to_numpy()
            first = self._last_valid_time if np.isfinite(self._last_valid_time) else math.nan
            shown = np.where(np.isfinite(filled), filled, first)
        return shown

    def _channels(self, inputs: Inputs) -> list[tuple[str, np.ndarray]]:
        out = [
            (name, inputs.strokes[:, k])
            for k, name in enumerate(self.model.damper_names)
            if name in self.cmap.dampers
        ]
        if self.cmap.steering is not None:
            out.append(("steering", inputs.rack))
        for axis in self.cmap.chassis:
            out.append((axis, inputs.chassis[:, CHASSIS_INDEX[axis]]))
        return out

    def _limits(
        self,
        inputs: Inputs,
        index: np.ndarray,
        shown: np.ndarray,
        status: np.ndarray,
        log: ProblemLog,
    ) -> None:
        model = self.model
        with np.errstate(invalid="ignore"):
            for k, d in enumerate(model.car.dampers):
                s = inputs.strokes[:, k]
                for bad, excess, bound, word in travel_checks(model, d.body, s):
                    self._mark(
                        log, status, index, shown, bad, f"{d.body}:{word}", s, excess,
                        _stroke_text(d.body, bound, word),
                    )  # fmt: skip
            if self.cmap.steering is not None:
                r = inputs.rack
                for bad, excess, bound, word in travel_checks(model, "steering", r):
                    self._mark(
                        log, status, index, shown, bad, f"steering:{word}", r, excess,
                        _rack_text(bound, "max" if word == "at most" else word),
                    )  # fmt: skip
            for axis in self.cmap.chassis:
                v = inputs.chassis[:, CHASSIS_INDEX[axis]]
                bound = MAX_CHASSIS_MM if axis == "heave" else MAX_CHASSIS_TILT_DEG
                self._mark(
                    log, status, index, shown, np.abs(v) > bound, axis, v, np.abs(v) - bound,
                    _chassis_text(axis, bound),
                )  # fmt: skip
        self._reach(inputs, index, shown, status, log)

    def _mark(
        self,
        log: ProblemLog,
        status: np.ndarray,
        index: np.ndarray,
        shown: np.ndarray,
        bad: np.ndarray,
        channel: str,
        values: np.ndarray,
        excess: np.ndarray,
        render: object,
    ) -> None:
        bad = bad & (status < OUT_OF_LIMITS)
        if not bad.any():
            return
        status[bad] = OUT_OF_LIMITS
        log.add(
            "out_of_limits",
            channel,
            index[bad],
            shown[bad],
            values=values[bad],
            excess=excess[bad],
            render=render,
        )

    def _reach(
        self,
        inputs: Inputs,
        index: np.ndarray,
        shown: np.ndarray,
        status: np.ndarray,
        log: ProblemLog,
    ) -> None:
        """Samples no configuration of the links reaches: the single-state solver refuses
        them before solving (`check_reach`), so they are not closed, with its explanation."""
        model = self.model
        bounds = link_bounds(model)
        beyond = np.zeros(len(status), dtype=bool)
        with np.errstate(invalid="ignore"):
            for k, name in enumerate(model.damper_names):
                lo, hi = bounds.get(name, (-math.inf, math.inf))
                s = inputs.strokes[:, k]
                beyond |= (s < lo - LIMIT_SLACK_MM) | (s > hi + LIMIT_SLACK_MM)
            if "rack" in bounds:
                lo, hi = bounds["rack"]
                beyond |= (inputs.rack < lo - LIMIT_SLACK_MM) | (inputs.rack > hi + LIMIT_SLACK_MM)
        beyond &= status == OK
        if not beyond.any():
            return
        status[beyond] = NOT_CLOSED
        details = []
        for i in np.flatnonzero(beyond):
            strokes = dict(zip(model.damper_names, inputs.strokes[i].tolist(), strict=True))
            try:
                check_reach(model, strokes, float(inputs.rack[i]))
                details.append("beyond the reach of the linkage")
            except SolveError as exc:
                details.append(exc.message)
        first = details[0].splitlines()[0]
        log.add(
            "not_closed", "reach", index[beyond], shown[beyond], f"not solved: {first}",
            details=details,
        )  # fmt: skip


def _channel(cmap: ChannelMap, name: str) -> Channel:
    for ch in cmap.channels:
        if ch.name == name:
            return ch
    raise KeyError(name)  # pragma: no cover


def _stroke_text(damper: str, bound: float, word: str) -> object:
    def render(value: float) -> str:
        shown, limit = limit_text(value, bound) if math.isfinite(value) else ("?", f"{bound}")
        return f"{damper} stroke {shown} mm beyond the damper's travel ({word} {limit})"

    return render


def _rack_text(bound: float, word: str) -> object:
    def render(value: float) -> str:
        shown, limit = limit_text(value, bound) if math.isfinite(value) else ("?", f"{bound}")
        return f"rack travel {shown} mm beyond the rack's travel ({word} {limit})"

    return render


def _chassis_text(axis: str, bound: float) -> object:
    unit = "mm" if axis == "heave" else "deg"

    def render(value: float) -> str:
        shown = f"{value:.3f}" if math.isfinite(value) else "?"
        return f"chassis {axis} {shown} {unit} beyond +-{bound:g} {unit}: no pose to solve"

    return render
