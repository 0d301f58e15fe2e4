"""Read a table in OptimumK's result-export layout, channel by channel, through its registry.

An OptimumK result export (title block, a header row of ``Quantity [Side]
[Axle] (unit)`` channels, statistic rows, ``Step [n]`` rows; docs/validation.md)
is recognised by its header grammar (`suspension_sim.validation.okheaders`).
Every column then becomes one of:

* a motion input (``Motion [Heave|Roll|Pitch|Steering|Completion Percentage]``);
* a channel of the registry (`suspension_sim.validation.okregistry`), compared
  later whatever its status (the comparison lists the not-established and
  always-blank ones);
* a force or moment channel (kept for the loads comparison);
* a channel we do not compute: listed in `Export.ignored`, never an error.

Units are converted to mm, deg, deg/mm, %, N and N m; a unit that is not one of
the registry's dimension is an InputError naming the header cell.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.validation.export_table import (
    OK_FORCE,
    OK_METRIC,
    SOURCE,
    STATISTIC_RE,
    STEP_LABEL_RE,
    Column,
    Export,
    Table,
    cell_number,
    cell_text,
    default_units,
    is_number,
    title_block,
)
from suspension_sim.validation.export_units import unit_factor
from suspension_sim.validation.headers import Header, check_unit
from suspension_sim.validation.okheaders import OkHeader, looks_like_optimumk
from suspension_sim.validation.okregistry import channel_key, lookup
from suspension_sim.validation.quantities import ChannelRule, Dimension, Quantity

MOTION_OF: dict[str, tuple[str, Dimension]] = {
    "Heave": ("heave", "length"),
    "Roll": ("roll", "angle"),
    "Pitch": ("pitch", "angle"),
    "Steering": ("steering", "angle"),
    "Completion Percentage": ("completion", "percent"),
}
"""OptimumK's motion tag -> (our motion key, dimension)."""


def find_optimumk_header(table: Table, scan: int) -> int | None:
    """The row of the first `scan` rows that is an OptimumK header row, or None."""
    for r, row in enumerate(table.rows[:scan]):
        texts = [cell_text(v) for v in row]
        if not any(texts) or any(is_number(v) for v in row if cell_text(v)):
            continue
        keys = [cell_text(x[0]) for x in table.rows[:r] if x and cell_text(x[0])]
        if looks_like_optimumk(texts, [k.rstrip(":") for k in keys]):
            return r
    return None


def column_header(ok: OkHeader, where: str) -> tuple[Header | None, str | None]:
    """(header, None) for a column we read, or (None, why it is not read); also used for
    the channels of a result file (`suspension_sim.validation.okresult`)."""
    if ok.kind == "motion":
        key, dim = MOTION_OF[ok.motion or ""]
        q = Quantity(ok.key, dim, "motion", key)
        h = Header(ok.text, ok.key, ok.unit, q, None, ChannelRule(key, source=SOURCE), ok)
        check_unit(h, dim, where)
        return h, None
    if ok.kind == "force":
        name = ok.quantity
        if ok.force is not None:
            moment = ok.force.component.upper().startswith("M")
        else:  # a force-unit channel without "A To B - Fx": its unit says which
            try:
                unit_factor(ok.unit, "moment")
                moment = True
            except KeyError:
                moment = False
        kind: Dimension = "moment" if moment else "force"
        scope = "corner" if ok.side and ok.axle else ("axle" if ok.axle else "car")
        q = Quantity(name, kind, scope, OK_FORCE)  # type: ignore[arg-type]
        h = Header(ok.text, ok.key, ok.unit, q, ok.location, ChannelRule(OK_FORCE, source=SOURCE))
        h = replace(h, optimumk=ok)
        check_unit(h, kind, where)
        return h, None
    entry = lookup(ok)
    if entry is None:
        return None, "not computed by suspension_sim"
    scope = "corner" if entry.scope == "point" else entry.scope
    q = Quantity(entry.name, entry.dimension, scope, OK_METRIC, entry.aliases, entry.definition)  # type: ignore[arg-type]
    key = channel_key(entry, ok)
    h = Header(ok.text, key, ok.unit, q, ok.location, ChannelRule(OK_METRIC, source=SOURCE), ok)
    check_unit(h, entry.dimension, where)
    return h, None


def parse_optimumk_table(path: Path, table: Table, header_row: int) -> Export:
    """An `Export` from one table in OptimumK's layout (see the module docstring)."""
    from suspension_sim.validation.okheaders import parse_optimumk_header

    row = table.rows[header_row]
    texts = [cell_text(v) for v in row]
    headers: list[Header | None] = []
    ignored: list[str] = []
    for c, t in enumerate(texts):
        ok = parse_optimumk_header(t) if t else None
        if ok is None:
            headers.append(None)
            if t and c > 0:
                ignored.append(t)
            continue
        h, _why = column_header(ok, table.where(path, header_row, c))
        headers.append(h)
        if h is None:
            ignored.append(t)
    used = [c for c, h in enumerate(headers) if h is not None]
    labels = [c for c in range(len(texts)) if c not in used]
    data = list(table.rows[header_row + 1 :])
    keep: list[int] = []
    skipped: list[str] = []
    step_labels: list[float] = []
    for i, values in enumerate(data):
        if not any(cell_text(values[c]) for c in used if c < len(values)):
            continue
        label = next(
            (cell_text(values[c]) for c in labels if c < len(values) and cell_text(values[c])), ""
        )
        if label and STATISTIC_RE.match(label) and not is_number(label):
            where = table.where(path, header_row + 1 + i, 0).split(": ", 1)[-1]
            skipped.append(f"{label} ({where})")
            continue
        keep.append(i)
        m = STEP_LABEL_RE.match(label)
        step_labels.append(float(m.group(1)) if m else math.nan)
    if not keep:
        raise InputError(
            "the export has a header row but no data rows",
            where=table.where(path, header_row, 0),
            hint="export the results of at least one step",
        )
    title = title_block(table, header_row)
    defaults = default_units(title)
    columns: list[Column] = []
    seen: dict[str, str] = {}
    for c, h in enumerate(headers):
        if h is None or h.quantity is None:
            continue
        where = table.where(path, header_row, c)
        dim = h.quantity.dimension
        if h.unit is None and dim in defaults:
            h = replace(h, unit=defaults[dim])
        factor = check_unit(h, dim, where)
        key = h.name.lower()
        if key in seen:
            raise InputError(
                f"column {h.text!r} is the same channel as {seen[key]!r}",
                where=where,
                hint="keep one column per channel",
            )
        seen[key] = h.text
        raw = np.full(len(keep), np.nan)
        for k, i in enumerate(keep):
            cells = data[i]
            value = cells[c] if c < len(cells) else None
            v = cell_number(value)
            if v is None:
                raise InputError(
                    f"column {h.text!r}: {value!r} is not a number",
                    where=table.where(path, header_row + 1 + i, c),
                    hint="every cell of a channel must be a number (blank = no value)",
                )
            raw[k] = v
        rows = tuple(header_row + 1 + i + 1 for i in keep)
        columns.append(
            Column(h, where, raw * factor, factor, dim, rows, table.where_in_column(path, c))
        )
    labelled = np.array(step_labels, dtype=float)
    steps = (
        labelled
        if len(labelled) and np.all(np.isfinite(labelled))
        else np.arange(len(keep), dtype=float)
    )
    return Export(
        path,
        tuple(columns),
        steps,
        tuple(ignored),
        table.comments,
        tuple(skipped),
        title,
        style="optimumk",
    )


def lateral_axis(export: Export) -> Export:
    """An OptimumK export whose lateral axis points right (its left wheels at negative Y),
    turned into our frame (+Y left) by `suspension_sim.validation.okmirror.mirror_export`;
    any other export as it is."""
    from suspension_sim.validation.okmirror import is_mirrored, mirror_export

    return mirror_export(export) if is_mirrored(export) else export
