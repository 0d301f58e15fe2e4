"""The design sheet: a pose's static alignment per wheel, axle and side, as tables.

Rows are quantities (the unit in each label), columns are wheels (and axles or
sides in their own small tables), as a design screen shows them::

    sheet = design_sheet(model.solve(), "iso")
    print(format_design_sheet(sheet))
    sheet.frame()            # one DataFrame (rows: quantities; columns: wheels, axles, sides)

Every value is taken from `suspension_sim.metrics.pose_metrics` of the pose (one
source of truth: a sweep's row for the same pose holds the same numbers); the
only derived row is camber gain per 25 mm (25 x the deg/mm value). A quantity
that does not apply to a wheel (anti-dive on a rear wheel) or is undefined
(Ackermann with the wheels straight) is NaN, shown as ``-``. Units: mm, deg,
% (docs/conventions.md for every sign).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.metrics import CATALOGUE, layout, pose_metrics, preset
from suspension_sim.metrics.geometry import wheel_set
from suspension_sim.solve.inputs import CHASSIS_AXES, axis_unit
from suspension_sim.tolerances import CONTACT_OFF_GROUND_MM

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

RATIO_UNIT = "damper/wheel"
PER_25MM = "deg/25 mm"
DECIMALS: dict[str, int] = {
    "deg": 3,
    "mm": 2,
    "deg/mm": 5,
    PER_25MM: 3,
    RATIO_UNIT: 3,
    "%": 1,
}
"""Decimals shown per unit (the tables keep full precision)."""
NOTE_WIDTH = 88
"""Notes are wrapped to this many characters."""
MISSING = "-"
"""How a value that does not apply or is undefined (NaN) is printed."""


@dataclass(frozen=True)
class Quantity:
    """A row of the sheet: catalogue metric `metric` times `scale`, shown as
    ``name [unit]``; `toe_signed`: its sign follows the preset's toe sign."""

    name: str
    metric: str
    unit: str
    scale: float = 1.0
    toe_signed: bool = False


WHEEL_QUANTITIES: tuple[Quantity, ...] = (
    Quantity("camber", "camber", "deg"),
    Quantity("toe", "toe", "deg", toe_signed=True),
    Quantity("caster", "caster", "deg"),
    Quantity("KPI", "kpi", "deg"),
    Quantity("scrub radius", "scrub_radius", "mm"),
    Quantity("mechanical trail", "mechanical_trail", "mm"),
    Quantity("spindle length", "spindle_length", "mm"),
    Quantity("half track", "half_track", "mm"),
    Quantity("motion ratio", "motion_ratio", RATIO_UNIT),
    Quantity("camber gain", "camber_gain", "deg/mm"),
    Quantity("camber gain", "camber_gain", PER_25MM, scale=25.0),
    Quantity("bump steer", "bump_steer", "deg/mm", toe_signed=True),
    Quantity("bump steer", "bump_steer_per_25mm", PER_25MM, toe_signed=True),
    Quantity("anti-dive", "anti_dive", "%"),
    Quantity("anti-lift", "anti_lift", "%"),
    Quantity("anti-squat", "anti_squat", "%"),
)
AXLE_QUANTITIES: tuple[Quantity, ...] = (
    Quantity("track", "track", "mm"),
    Quantity("roll centre height", "roll_centre_height", "mm"),
    Quantity("roll centre lateral offset", "roll_centre_lateral", "mm"),
    Quantity("Ackermann", "ackermann", "%"),
)
SIDE_QUANTITIES: tuple[Quantity, ...] = (Quantity("wheelbase", "wheelbase", "mm"),)

SHORT_METRICS = frozenset(
    (
        "camber",
        "toe",
        "caster",
        "kpi",
        "scrub_radius",
        "mechanical_trail",
        "motion_ratio",
        "roll_centre_height",
    )
)
"""The quantities of the short version (`design_sheet(..., short=True)`)."""

SIGN_NOTE = (
    "signs: camber - = top toward the centreline; caster + = top rearward; KPI + = top "
    "inboard; scrub + = kingpin ground point inboard of the contact point; trail + = it is "
    "ahead; motion ratio = damper / wheel travel; roll centre lateral + = toward +Y (left); "
    "docs/conventions.md"
)


@dataclass(frozen=True)
class SheetRow:
    """One quantity over a table's columns: `keys` are the `pose_metrics` columns it
    reads (None where it does not apply), `values` = scale x those values (NaN: n/a)."""

    label: str
    quantity: Quantity
    keys: tuple[str | None, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class SheetTable:
    """A small table: `title` (per wheel, axle or side), its `columns`, its rows."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[SheetRow, ...]

    def frame(self) -> pd.DataFrame:
        """Rows = quantity labels (index ``quantity``), columns = `columns`."""
        import pandas as pd  # here only: check and report print without pandas

        data = [list(r.values) for r in self.rows]
        index = pd.Index([r.label for r in self.rows], name="quantity")
        return pd.DataFrame(data, index=index, columns=list(self.columns), dtype=float)


@dataclass(frozen=True)
class DesignSheet:
    """The sheet of one pose: car name, the preset's name, what the pose is
    (``"design"`` or its inputs), the tables and notes."""

    car: str
    convention: str
    state: str
    tables: tuple[SheetTable, ...]
    notes: tuple[str, ...] = ()

    def frame(self) -> pd.DataFrame:
        """All tables as one: rows = quantities, columns = wheels, then axles, then
        sides (a row is blank in the columns of the other tables). ``attrs`` holds
        the car, the convention and the pose."""
        import pandas as pd  # here only: check and report print without pandas

        columns: list[str] = []
        for t in self.tables:
            columns += [c for c in t.columns if c not in columns]
        if self.tables:
            out = pd.concat([t.frame() for t in self.tables]).reindex(columns=columns)
        else:
            out = pd.DataFrame(index=pd.Index([], name="quantity"), columns=columns, dtype=float)
        out.attrs.update(car=self.car, convention=self.convention, pose=self.state)
        return out


def design_sheet(pose: Pose, convention: str | None = None, *, short: bool = False) -> DesignSheet:
    """The design sheet of a solved pose (see the module doc).

    convention: the output preset (``"iso"``, ``"optimumk"``); None = the
    workbook's. short: only camber, toe, caster, KPI, scrub, trail, motion
    ratio and roll centre height (`SHORT_METRICS`).
    """
    model = pose.model
    name = preset(convention if convention is not None else model.car.options.sign_convention).name
    # A car with no joint parameters (every wheel fixed to the chassis) has no motion,
    # hence no rates: its sheet has the geometry rows only.
    rates = model.n_params > 0
    values = pose_metrics(pose, name, rates=rates)
    places: dict[str, list[str]] = {}
    for metric, where, _component in layout(model, rates=rates):
        places.setdefault(metric, []).append(where)
    wheels = tuple(w.name for w in model.car.wheels)
    axles = _columns(places, AXLE_QUANTITIES)
    sides = _columns(places, SIDE_QUANTITIES)
    tables = []
    for title, columns, quantities in (
        ("per wheel", wheels, WHEEL_QUANTITIES),
        ("per axle", axles, AXLE_QUANTITIES),
        ("per side", sides, SIDE_QUANTITIES),
    ):
        chosen = [q for q in quantities if not short or q.metric in SHORT_METRICS]
        rows = [_row(q, columns, places, values, name) for q in chosen]
        rows = [r for r in rows if any(k is not None for k in r.keys)]
        if rows and columns:
            tables.append(SheetTable(title, columns, tuple(rows)))
    return DesignSheet(
        model.car.name, name, pose_state(pose), tuple(tables), _notes(pose, tables, short)
    )


def _columns(places: dict[str, list[str]], quantities: tuple[Quantity, ...]) -> tuple[str, ...]:
    """The places (axles or sides) any of `quantities` has, in layout order."""
    out: list[str] = []
    for q in quantities:
        out += [p for p in places.get(q.metric, []) if p not in out]
    return tuple(out)


def _row(
    q: Quantity,
    columns: tuple[str, ...],
    places: dict[str, list[str]],
    values: dict[str, float],
    convention: str,
) -> SheetRow:
    metric = CATALOGUE[q.metric]
    have = places.get(q.metric, [])
    keys = tuple(metric.key(c) if c in have else None for c in columns)
    vals = tuple(math.nan if k is None else q.scale * values[k] for k in keys)
    return SheetRow(label(q, convention), q, keys, vals)


def label(q: Quantity, convention: str) -> str:
    """``"camber [deg]"``; toe and bump steer say their sign (``"toe [deg] (+ in)"``)."""
    text = f"{q.name} [{q.unit}]"
    if q.toe_signed:
        text += " (+ in)" if preset(convention).toe_sign > 0 else " (+ out)"
    return text


def pose_state(pose: Pose) -> str:
    """``"design"``, or the pose's non-zero inputs (mm, deg)."""
    parts = [f"stroke {k} {v:g} mm" for k, v in pose.shocks.items() if v]
    if pose.rack:
        parts.append(f"rack {pose.rack:g} mm")
    for axis, v in zip(CHASSIS_AXES, tuple(pose.chassis), strict=True):
        if v:
            parts.append(f"chassis {axis} {v:g} {axis_unit(axis)}")
    return ", ".join(parts) or "design"


def _notes(pose: Pose, tables: list[SheetTable], short: bool) -> tuple[str, ...]:
    notes = []
    if not pose.converged:
        notes.append("the pose did not close: its geometry is not reported")
    for t in tables:
        for r in t.rows:
            if r.quantity.metric == "ackermann" and all(math.isnan(v) for v in r.values):
                notes.append("Ackermann is undefined with the wheels straight: give a rack travel")
    ground = ground_note(pose.model)
    if ground:
        notes.append(ground)
    if not short:
        notes.append(SIGN_NOTE)
    return tuple(notes)


def ground_note(model: KinematicModel) -> str | None:
    """A note when the design contact points are not on z = 0 (a car imported from
    OptimumK keeps its Vertical Offset: the contact patches sit at that height in the
    file's frame), since heights such as the roll centre's are then world z, not height
    above the tyres' ground; None when every contact point is within
    `CONTACT_OFF_GROUND_MM` of z = 0."""
    st = wheel_set(model)
    z = st.contact0[:, 2] if len(st.names) else np.zeros(0)
    if not np.any(np.abs(z) > CONTACT_OFF_GROUND_MM):
        return None
    groups: dict[str, list[str]] = {}
    for name, value in zip(st.names, z, strict=True):
        groups.setdefault(f"{value:.2f}", []).append(name)
    where = ", ".join(f"{v} mm ({', '.join(ws)})" for v, ws in groups.items())
    return (
        f"at design the tyres' contact points are at z = {where}, not 0 (e.g. an OptimumK "
        "Vertical Offset): heights here (roll centre ...) are world z in the workbook's "
        "frame; subtract the axle's contact-point z for the height above the tyres' ground "
        "(OptimumK's (Ground) channels)"
    )


def format_value(value: float, unit: str) -> str:
    """A value at its unit's precision (`DECIMALS`); NaN as `MISSING`."""
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.{DECIMALS.get(unit, 3)}f}"
    return text if float(text) != 0.0 else text.lstrip("-")  # no "-0.000"


def format_table(table: SheetTable, width: int | None = None) -> list[str]:
    """The lines of one table: a header with the columns, then one line per row;
    `width`: of the label column (default: its longest label)."""
    label_w = width if width is not None else max(len(r.label) for r in table.rows)
    cells = [[format_value(v, r.quantity.unit) for v in r.values] for r in table.rows]
    col_w = max([len(c) for c in table.columns] + [len(c) for row in cells for c in row] + [8])
    head = f"  {table.title:<{label_w}}" + "".join(f"  {c:>{col_w}}" for c in table.columns)
    lines = [head.rstrip()]
    for r, row in zip(table.rows, cells, strict=True):
        lines.append(f"  {r.label:<{label_w}}" + "".join(f"  {c:>{col_w}}" for c in row))
    return lines


def format_design_sheet(sheet: DesignSheet, title: str | None = None) -> str:
    """The sheet as text: a title line (default: car, pose and convention), each
    table with its header, then the notes."""
    head = title or f"Design sheet of {sheet.car!r} at {sheet.state} ({sheet.convention} signs):"
    lines = [head]
    width = max((len(r.label) for t in sheet.tables for r in t.rows), default=0)
    for t in sheet.tables:
        lines += format_table(t, max(width, len(t.title)))
    for note in sheet.notes:
        lines += textwrap.wrap(
            note, NOTE_WIDTH, initial_indent="  note: ", subsequent_indent="    "
        )
    return "\n".join(lines)


__all__ = [
    "DECIMALS",
    "DesignSheet",
    "Quantity",
    "SheetRow",
    "SheetTable",
    "design_sheet",
    "format_design_sheet",
    "format_table",
    "format_value",
    "label",
    "pose_state",
]
