"""Validate against an OptimumK result file (.O2Res) as against its Excel export.

A result file (`suspension_sim.workbook.optimumk_files.results.read_result`) holds the
same channels as OptimumK's Excel result export, by the same names, in SI units with a
unit code each. `result_export` turns them into the `Export` the Excel reader gives
(`suspension_sim.validation.okexport`): every channel through the same header grammar,
registry lookup and unit check, so `validate` compares exactly what it compares for the
export, with the same tolerances and report. The motion is the result's own Motion
channels.

The result also holds copies of the setup and both suspensions it was computed on.
`check_car` builds that car through the importer core
(`suspension_sim.workbook.optimumk_files.car.car_from_definitions`) and compares its
points with the workbook's: a point more than `CAR_TOLERANCE_MM` apart, or a point of
the result's car the workbook lacks, means the result is of another design. That is said
before any channel (first on the terminal and in the report), and the run does not pass
unless the caller accepts it (``accept_other_car``; the command's ``--accept-other-car``).

A force result's force case comes from ``--force-case FILE.O2For`` (OptimumK's force
case file), from ``--force-case NAME`` / ``--force-keyframes`` as for an export, or else
from the result itself: its ``Contact Patch - F.|M. [corner]`` channels are the loads
OptimumK applied at each step (`result_force_keys`); they are then the input, listed as
not compared.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.tolerances import REPEATED_COLUMN_ATOL
from suspension_sim.validation.export_table import OK_FORCE, Column, Export
from suspension_sim.validation.headers import check_unit
from suspension_sim.validation.okheaders import parse_optimumk_header
from suspension_sim.validation.results import Validation

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.description import Car
    from suspension_sim.loads.cases import LoadCase
    from suspension_sim.model import KinematicModel
    from suspension_sim.optimumk.forces import ForceKeys
    from suspension_sim.workbook.optimumk_files.results import OkResult, ResultChannel

RESULT_SUFFIXES = (".o2res",)
"""File suffixes read as OptimumK result files (case ignored)."""
FORCE_CASE_SUFFIXES = (".o2for",)
"""``--force-case`` values read as OptimumK force-case files (case ignored)."""
CAR_TOLERANCE_MM = 1e-3
"""Largest distance (mm) between a point of the result's own car and the workbook's that
still counts as the same point (the workbook stores its numbers to far better)."""
PERCENT_WORDS = ("percentage", "bias")
"""A no-unit channel (code 18) whose quantity ends in one of these is in % already."""
FORCE_INPUT = "the force case itself: the result's contact-patch loads, applied at each step"
"""Why the contact-patch channels are not compared when the force case is read from them."""
CONTACT_PATCH = "contact patch"
COMPONENTS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")


def is_result_file(path: str | Path) -> bool:
    """True for an OptimumK result file (by its suffix)."""
    return Path(path).suffix.lower() in RESULT_SUFFIXES


# -- channels -> Export -------------------------------------------------------------------
def _unit_word(ch: ResultChannel) -> str | None:
    """The SI unit of a channel as a header unit (``rad``, ``m``, ``-``, ``%`` ...), None
    for a unit code not known."""
    unit = ch.unit
    if unit == "-":
        ok = parse_optimumk_header(ch.name)
        if ok is None:
            quantity = ch.name
        else:  # Motion [Completion Percentage]: the word is its tag
            quantity = (ok.motion or "") if ok.kind == "motion" else ok.quantity
        quantity = quantity.strip().lower()
        if quantity.endswith(PERCENT_WORDS):
            return "%"
    return unit


def result_export(result: OkResult) -> Export:
    """The result's channels as the `Export` the Excel reader gives for its export: the
    header ``<name> (<SI unit>)`` through OptimumK's grammar and registry, values
    converted to mm, deg, deg/mm, %, N, N m by the same unit check (an InputError naming
    the channel and its byte when a unit code does not fit the registry's dimension)."""
    from suspension_sim.validation.okexport import column_header, lateral_axis

    file = result.path.name
    columns: list[Column] = []
    ignored: list[str] = []
    seen: dict[str, Column] = {}
    for ch in result.channels:
        where = f"{file}: byte {ch.record} (channel {ch.name!r})"
        word = _unit_word(ch)
        if word is None:
            if ch.name.lower().startswith("motion"):
                raise InputError(
                    f"channel {ch.name!r}: unit code {ch.unit_code} is not known, so its "
                    "values cannot be read",
                    where=where,
                )
            ignored.append(f"{ch.name} (unit code {ch.unit_code} not known: not read)")
            continue
        text = f"{ch.name} ({word})"
        ok = parse_optimumk_header(text)
        if ok is None:
            ignored.append(text)
            continue
        h, _why = column_header(ok, where)
        if h is None or h.quantity is None:
            ignored.append(text)
            continue
        factor = check_unit(h, h.quantity.dimension, where)
        values = ch.values * factor
        key = h.name.lower()
        twin = seen.get(key)
        if twin is not None:
            if np.allclose(twin.values, values, equal_nan=True, rtol=0, atol=REPEATED_COLUMN_ATOL):
                ignored.append(f"{text} (the same values as {twin.header.text!r})")
                continue
            raise InputError(
                f"channel {ch.name!r} is the same channel as {twin.header.text!r}, with "
                "other values",
                where=where,
            )
        byte = 8 * np.arange(result.n_steps) + ch.data
        col = Column(
            h,
            where,
            values,
            factor,
            h.quantity.dimension,
            tuple(int(b) for b in byte),
            f"{file}: byte {{row}} (channel {ch.name!r})",
        )
        seen[key] = col
        columns.append(col)
    title = (
        ("Name", result.name),
        ("Type", "Result (.O2Res)"),
        ("Version", result.version),
        ("Vehicle", result.vehicle.name),
        ("Setup", result.setup.header.name),
    )
    export = Export(
        result.path,
        tuple(columns),
        np.arange(result.n_steps, dtype=float),
        tuple(ignored),
        (),
        (),
        title,
        style="optimumk",
    )
    return lateral_axis(export)


# -- the result's own car ---------------------------------------------------------------------
@dataclass(frozen=True)
class Moved:
    """A point of the result's car away from the workbook's (mm, model frame)."""

    name: str
    distance: float
    ours: tuple[float, float, float]
    theirs: tuple[float, float, float]


@dataclass(frozen=True)
class ValueDiff:
    """A value of the result's car (not a point) that is not the workbook's."""

    label: str
    ours: float | None
    theirs: float | None
    unit: str


@dataclass(frozen=True)
class CarCheck:
    """The result's own car against the workbook's (mm, model frame)."""

    result: str
    workbook: str
    moved: tuple[Moved, ...] = ()
    """Points more than `tolerance` apart, largest first."""
    missing: tuple[str, ...] = ()
    """Points of the result's car the workbook does not have."""
    extra: tuple[str, ...] = ()
    """Points of the workbook the result's car does not have (said, not a difference)."""
    values: tuple[ValueDiff, ...] = ()
    """Tyre radii, steering ratio, CG height, mass, brake and drive shares that differ."""
    compared: int = 0
    tolerance: float = CAR_TOLERANCE_MM
    largest: float = 0.0
    notes: tuple[str, ...] = field(default=())

    @property
    def differs(self) -> bool:
        return bool(self.moved or self.missing or self.values)

    def headline(self) -> str:
        """One sentence: the same car, or how it differs."""
        if not self.differs:
            return (
                f"the result's own car (its copies of the setup and suspensions) is the "
                f"workbook's: {self.compared} points within {self.tolerance:g} mm (largest "
                f"{self.largest:.2g} mm), the same tyres, steering ratio and setup values"
            )
        parts = []
        if self.moved:
            named = ", ".join(f"{m.name} by {m.distance:.3f} mm" for m in self.moved[:8])
            more = len(self.moved) - 8
            parts.append(
                f"{len(self.moved)} point(s) differ by more than {self.tolerance:g} mm: "
                + named
                + (f" and {more} more" if more > 0 else "")
            )
        if self.missing:
            parts.append(
                f"{len(self.missing)} point(s) of the result's car are not in the workbook: "
                + ", ".join(self.missing[:8])
                + (" ..." if len(self.missing) > 8 else "")
            )
        if self.values:
            labels = [v.label for v in self.values]
            parts.append(", ".join(labels) + (" differs" if len(labels) == 1 else " differ"))
        return (
            f"{self.result} was computed on another car than {self.workbook} (the result's "
            "own copies of the setup and suspensions): " + "; ".join(parts)
        )

    def lines(self) -> list[str]:
        """The check as lines for the terminal and the report: the headline, then (indented)
        each point that moved with both positions, each value that differs, the
        workbook's extra points."""
        out = [self.headline()]
        for m in self.moved:
            out.append(
                f"  {m.name}: workbook {_xyz(m.ours)}, result {_xyz(m.theirs)} mm: "
                f"{m.distance:.3f} mm apart"
            )
        for v in self.values:
            out.append(
                f"  {v.label}: workbook {_value(v.ours)}, result {_value(v.theirs)} {v.unit}"
            )
        if self.extra:
            out.append(
                f"  the workbook has {len(self.extra)} point(s) the result's car does not "
                f"(not a difference): {', '.join(self.extra[:8])}"
                + (" ..." if len(self.extra) > 8 else "")
            )
        out += [f"  {n}" for n in self.notes]
        return out


def _xyz(p: tuple[float, float, float]) -> str:
    return "(" + ", ".join(f"{v:.3f}" for v in p) + ")"


def _value(v: float | None) -> str:
    return "none" if v is None else f"{v:.6g}"


def result_car(result: OkResult, axes: str | None = None) -> Car:
    """The car the result was computed on, built from its embedded copies by the importer
    core (mm, model frame). axes: the copies' axes as for the import (``--axes``; a
    binary file does not state them: OptimumK's default frame unless given). An anti-roll
    bar adds no kinematic constraint and the importer does not read OptimumK's bars, so
    it is left out here (said in the car's warnings) rather than stopping the check."""
    from suspension_sim.workbook.optimumk_files.car import car_from_definitions

    return car_from_definitions(
        result.front, result.rear, result.setup, axes=axes, skip_anti_roll_bars=True
    )


VALUE_TOLERANCE = 1e-9
"""Relative difference above which a value of the car (not a point) differs."""


def _car_values(car: Car) -> dict[str, tuple[float | None, str]]:
    """The values of a car the channels depend on besides its points."""
    o = car.options
    out: dict[str, tuple[float | None, str]] = {
        f"tyre radius {w.name}": (w.tyre_radius, "mm") for w in car.wheels
    }
    out["steering ratio"] = (car.rack.ratio_mm_per_deg if car.rack else None, "mm/deg")
    out["CG height"] = (o.cg_height_mm, "mm")
    out["front mass share"] = (o.front_mass_share, "")
    out["front brake share"] = (o.front_brake_share, "")
    out["rear drive share"] = (o.rear_drive_share, "")
    return out


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= VALUE_TOLERANCE * max(1.0, abs(a), abs(b))


def compare_cars(
    ours: Car,
    theirs: Car,
    *,
    result: str,
    workbook: str,
    tolerance: float = CAR_TOLERANCE_MM,
) -> CarCheck:
    """Every point of `theirs` (the result's car) against the point of the same name in
    `ours` (the workbook's), mm; then its tyre radii, steering ratio and setup values."""
    a, b = ours.point_map(), theirs.point_map()
    moved: list[Moved] = []
    largest = 0.0
    for name, p in b.items():
        q = a.get(name)
        if q is None:
            continue
        d = float(np.linalg.norm(q - p))
        largest = max(largest, d)
        if not d <= tolerance:
            moved.append(Moved(name, d, _tuple(q), _tuple(p)))
    moved.sort(key=lambda m: -m.distance)
    missing = tuple(n for n in b if n not in a)
    extra = tuple(n for n in a if n not in b)
    mine, yours = _car_values(ours), _car_values(theirs)
    values = tuple(
        ValueDiff(label, mine.get(label, (None, unit))[0], v, unit)
        for label, (v, unit) in yours.items()
        if not _same(mine.get(label, (None, unit))[0], v)
    )
    notes: tuple[str, ...] = ()
    if missing and len(missing) == len(b):
        notes = (
            "no point name of the result's car is in the workbook: was the workbook "
            "imported from OptimumK (suspension-sim import-optimumk)?",
        )
    return CarCheck(
        result,
        workbook,
        tuple(moved),
        missing,
        extra,
        values,
        len(b) - len(missing),
        tolerance,
        largest,
        notes,
    )


def _tuple(p: np.ndarray) -> tuple[float, float, float]:
    return (float(p[0]), float(p[1]), float(p[2]))


NOT_READ = "met, not read"
"""Words of the importer's warning for an element of the copies it does not read."""


def check_car(
    model: KinematicModel, result: OkResult, workbook: str | Path, *, axes: str | None = None
) -> CarCheck:
    """The result's own car against the workbook's (see `compare_cars`); elements of the
    copies the importer does not read (anti-roll bars ...) are named in its notes. axes:
    the copies' axes, as given to the import of the workbook (`result_car`)."""
    car = result_car(result, axes)
    check = compare_cars(model.car, car, result=result.path.name, workbook=Path(workbook).name)
    skipped = tuple(f"not checked: {w}" for w in car.warnings if NOT_READ in w)
    return replace(check, notes=check.notes + skipped) if skipped else check


# -- the force case -------------------------------------------------------------------------
def _contact_columns(export: Export) -> dict[tuple[str, str], Column]:
    """{(corner words, component): column} of the ``Contact Patch - F.|M.`` channels."""
    out: dict[tuple[str, str], Column] = {}
    for col in export.columns:
        ok = col.header.optimumk
        if col.rule.metric != OK_FORCE or ok is None or ok.force is None:
            continue
        if ok.force.source.strip().lower() != CONTACT_PATCH or ok.force.target:
            continue
        if ok.side and ok.axle:
            out[(f"{ok.axle} {ok.side}", ok.force.component)] = col
    return out


def result_force_keys(model: KinematicModel, export: Export) -> ForceKeys | None:
    """The force case the result applied, as keyframes at each step's ``Motion
    [Completion Percentage]`` (so every step gets its own loads exactly): from its
    ``Contact Patch`` force and moment channels of every wheel. None when the result has
    no contact-patch channel; InputError when some are missing or the completion is not
    strictly increasing."""
    from suspension_sim.optimumk.forces import ForceKeys, corner_names

    found = _contact_columns(export)
    if not found:
        return None
    where = str(export.path)
    completion = export.motion().get("completion")
    if completion is None:
        raise InputError(
            "the force case is read from the result's Contact Patch channels at each step's "
            "Motion [Completion Percentage], which this result lacks",
            where=where,
            hint="give the force case with --force-case FILE.O2For",
        )
    pct = completion.values
    if not np.all(np.isfinite(pct)) or (len(pct) > 1 and not np.all(np.diff(pct) > 0)):
        raise InputError(
            "Motion [Completion Percentage] does not increase from step to step, so the "
            "result's loads cannot be keyed to it",
            where=completion.where,
            hint="give the force case with --force-case FILE.O2For",
        )
    wheels: dict[str, np.ndarray] = {}
    for wheel, corner in corner_names(model).items():
        cols = [found.get((corner, c)) for c in COMPONENTS]
        lacking = [c for c, col in zip(COMPONENTS, cols, strict=True) if col is None]
        if lacking:
            raise InputError(
                f"the result has no 'Contact Patch - {lacking[0]} [{corner}]' channel, so "
                "its force case is not complete",
                where=where,
                hint="give the force case with --force-case FILE.O2For",
            )
        values = np.stack([c.values for c in cols if c is not None], axis=1)
        if not np.all(np.isfinite(values)):
            raise InputError(
                f"the result's Contact Patch channels of {corner} have blank steps",
                where=where,
                hint="give the force case with --force-case FILE.O2For",
            )
        wheels[wheel] = np.column_stack([pct, values])
    return ForceKeys(wheels, "design", f"the result's own loads ({export.path.name})")


WHEEL_CORNERS = {"FL": "Front Left", "FR": "Front Right", "RL": "Rear Left", "RR": "Rear Right"}
"""A force-case file's wheels, in OptimumK's corner words."""


def force_case_file(path: str | Path, model: KinematicModel) -> ForceKeys:
    """OptimumK's force-case file (.O2For) as keyframes: per wheel FL, FR, RL, RR the
    keys of Fx Fy Fz (N) and Mx My Mz (N m) against the motion's completion %, each
    component linear between its own keys (held outside them), merged on the union of
    their percentages (where a piecewise-linear list is still exact)."""
    from suspension_sim.optimumk.forces import ForceKeys, corner_names
    from suspension_sim.workbook.optimumk_files.definitions import (
        FORCE_COMPONENTS,
        FORCE_WHEELS,
        ForceCaseDef,
        read_definition,
    )

    p = Path(path)
    definition = read_definition(p)
    if not isinstance(definition, ForceCaseDef):
        raise InputError(
            f"{p.name} is not an OptimumK force case (.O2For)",
            where="--force-case",
        )
    by_corner = {v: k for k, v in corner_names(model).items()}
    wheels: dict[str, np.ndarray] = {}
    for code in FORCE_WHEELS:
        lists = [definition.keys[(code, c)].keys for c in FORCE_COMPONENTS]
        if not any(lists):
            continue
        wheel = by_corner.get(WHEEL_CORNERS[code])
        if wheel is None:
            raise InputError(
                f"{p.name}: the force case loads the {WHEEL_CORNERS[code]} wheel, which the "
                "workbook does not have",
                where="--force-case",
            )
        pct = sorted({float(k[0]) for keys in lists for k in keys})
        cols = [
            np.interp(pct, [k[0] for k in keys], [k[1] for k in keys])
            if keys
            else np.zeros(len(pct))
            for keys in lists
        ]
        wheels[wheel] = np.column_stack([pct, *cols])
    return ForceKeys(wheels, "design", f"{p.name} ({definition.header.name})")


def force_source(
    model: KinematicModel,
    export: Export,
    force_case: str | LoadCase | None,
    force_keyframes: str | Path | ForceKeys | None,
) -> tuple[str | LoadCase | None, str | Path | ForceKeys | None, bool]:
    """(force_case, force_keyframes, read from the result) for `validate`: an .O2For file
    as keyframes, a workbook case or keyframes as given, else the result's own
    contact-patch loads (None, None, False when it has none)."""
    if isinstance(force_case, str) and Path(force_case).suffix.lower() in FORCE_CASE_SUFFIXES:
        return None, force_case_file(force_case, model), False
    if force_case is not None or force_keyframes is not None:
        return force_case, force_keyframes, False
    own = result_force_keys(model, export)
    return None, own, own is not None


# -- the run ---------------------------------------------------------------------------------
def validate_result(
    model: KinematicModel,
    result: OkResult,
    export: Export,
    check: CarCheck,
    *,
    tolerances: dict[str, float] | None = None,
    workbook: str | Path | None = None,
    force_case: str | LoadCase | None = None,
    force_keyframes: str | Path | ForceKeys | None = None,
    accept_other_car: bool = False,
) -> Validation:
    """`validate` on the result's channels (`result_export`), its car check first: a
    result of another car (`CarCheck.differs`) does not pass unless `accept_other_car`."""
    from suspension_sim.validation.compare import validate

    case, keys, own = force_source(model, export, force_case, force_keyframes)
    v = validate(
        model,
        export,
        tolerances=tolerances,
        workbook=workbook,
        force_case=case,
        force_keyframes=keys,
    )
    if own:
        texts = {c.header.text for c in _contact_columns(export).values()}
        v.channels = [c for c in v.channels if c.column.header.text not in texts]
        v.not_compared = [(t, FORCE_INPUT) for t in sorted(texts)] + v.not_compared
    v.preface = check.lines()
    if check.differs:
        if accept_other_car:
            v.preface.append(
                "  accepted with --accept-other-car: the channels below compare the "
                "workbook's car with a result of another car"
            )
        else:
            v.other_car = check.headline()
    return v
