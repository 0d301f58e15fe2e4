"""Read an OptimumK results export (.csv or .xlsx) into channels in mm and deg.

The export is a table: one header row (titles above it are skipped), an
optional units row right below it, then one row per motion step. Which
columns are channels, and in what unit, follows the header grammar of
`suspension_sim.validation.headers`. Columns that are not channels (notes,
quantities we do not compare) are listed as ignored, never silently dropped.

OptimumK's own exports (docs/validation.md, "OptimumK result exports") may
open with a title block (``Name``, ``Type``, ``Version``, ``User Options``: kept
as `Export.title`, and its length/angle units are the default of a header
without one), and its table view puts statistic rows (``Maximum Value`` ...
``Std Deviation Value``) before the first step, ``Step [0]``: those rows are
skipped and listed in `Export.skipped`. Coordinates in an export whose left
wheels sit at negative Y (a lateral axis positive to the right) are turned
into ours (+Y left) and said so in `Export.notes`.

Every problem is an `InputError` whose `where` names the file and the column
(``export.csv: line 3, column 5`` or ``export.xlsx: Results!E3``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.tolerances import REPEATED_COLUMN_ATOL
from suspension_sim.validation.export_table import (
    HEADER_SCAN_ROWS,
    LATERAL,
    STATISTIC_RE,
    STEP_LABEL_RE,
    Column,
    Export,
    Table,
    cell_number,
    cell_text,
    csv_cells,
    default_units,
    is_number,
    title_block,
    xlsx_cells,
)
from suspension_sim.validation.export_units import known_unit
from suspension_sim.validation.headers import Header, check_unit, parse_header
from suspension_sim.validation.quantities import (
    MOTION_KEYS,
    ChannelMap,
    Dimension,
)

# -- reading --------------------------------------------------------------------------------
LAYOUTS = ("auto", "optimumk", "table")
"""How an export is read: ``auto`` (OptimumK's grammar when its header row is in it and
no map file is given, else the channel map), ``optimumk`` or ``table`` (the map)."""


def read_export(
    path: str | Path, channel_map: ChannelMap | None = None, *, layout: str = "auto"
) -> Export:
    """Read an export file; see the module docstring. Units out: mm and deg.

    layout: ``auto``: a table whose header row is in OptimumK's grammar
    (`suspension_sim.validation.okheaders.looks_like_optimumk`) is read through
    OptimumK's channel registry, unless a map file is given; other tables through the
    channel map. ``optimumk`` / ``table`` force one of them.
    """
    p = Path(path)
    if layout not in LAYOUTS:
        raise InputError(f"unknown layout {layout!r}", where="layout", hint=", ".join(LAYOUTS))
    cmap = channel_map or ChannelMap()
    if not p.is_file():
        raise InputError("no such export file", where=str(p), hint="check the EXPORT path")
    suffix = p.suffix.lower()
    if suffix in (".csv", ".txt", ".tsv"):
        table = csv_cells(p)
    elif suffix in (".xlsx", ".xlsm"):
        table = xlsx_cells(p)
    else:
        raise InputError(
            f"unknown export file type {suffix or '(none)'}",
            where=str(p),
            hint="export the results as .csv or .xlsx",
        )
    if layout == "optimumk" or (layout == "auto" and cmap.source is None):
        from suspension_sim.validation.okexport import (
            find_optimumk_header,
            lateral_axis,
            parse_optimumk_table,
        )

        found = [(t, find_optimumk_header(t, HEADER_SCAN_ROWS)) for t in table]
        if any(r is not None for _, r in found):
            parts = [parse_optimumk_table(p, t, r) for t, r in found if r is not None]
            return lateral_axis(_merge(p, parts))
        if layout == "optimumk":
            raise InputError(
                "no header row in OptimumK's grammar ('Camber Angle [Left] [Front] (deg)', "
                f"'Motion [Heave] (mm)') in the first {HEADER_SCAN_ROWS} rows",
                where=str(p),
                hint="export the result from OptimumK's table view, or read it as a table",
            )
    return _parse_table(p, table, cmap)


def _find_header(
    path: Path, table: Table, cmap: ChannelMap
) -> tuple[int, int, list[Header | None], list[str]] | None:
    """(header row, first data row, headers, ignored) of the row with the most channels.

    Title rows above the table can hold a word that names a channel (a title
    block's ``Name: Heave``), so the header is the row with the most channels,
    the first of equals.
    """
    best: tuple[int, int, list[Header | None], list[str]] | None = None
    best_n = 0
    for r, row in enumerate(table.rows[:HEADER_SCAN_ROWS]):
        found = _header_at(path, table, cmap, r, row)
        if found is None:
            continue
        n = sum(1 for h in found[2] if h is not None and h.rule is not None)
        if n > best_n:
            best, best_n = found, n
    return best


def _header_at(
    path: Path, table: Table, cmap: ChannelMap, r: int, row: list[object]
) -> tuple[int, int, list[Header | None], list[str]] | None:
    """The header parsed from row `r`, or None if it names no channel."""
    texts = [cell_text(v) for v in row]
    if not any(texts) or any(is_number(v) for v in row if cell_text(v)):
        return None
    below = table.rows[r + 1] if r + 1 < len(table.rows) else []
    units_row = _units_row(below, len(row))
    headers: list[Header | None] = []
    ignored: list[str] = []
    for c, t in enumerate(texts):
        if not t:
            headers.append(None)
            continue
        unit_below = cell_text(below[c]).strip("[]() ") if units_row and c < len(below) else None
        h = parse_header(t, table.where(path, r, c), cmap, unit_below or None)
        headers.append(h)
        if h is None:
            ignored.append(t)
    if any(h is not None and h.rule is not None for h in headers):
        return r, r + (2 if units_row else 1), headers, ignored
    return None


def _units_row(row: Sequence[object], width: int) -> bool:
    """True if `row` holds only unit words (a units row under the header)."""
    texts = [cell_text(v) for v in list(row)[:width]]
    filled = [t for t in texts if t]
    if not filled:
        return False
    cleaned = [t.strip("[]()") for t in filled]
    return all(known_unit(t) for t in cleaned)


def _parse_table(path: Path, tables: Sequence[Table], cmap: ChannelMap) -> Export:
    """Every sheet with a header row, merged (same steps; a channel repeated on several
    sheets must carry the same values)."""
    parts = []
    for table in tables:
        found = _find_header(path, table, cmap)
        if found is not None:
            parts.append(_parse_one(path, table, cmap, *found))
    if not parts:
        raise InputError(
            "no header row with a known channel found "
            f"(searched the first {HEADER_SCAN_ROWS} rows"
            + (" of every sheet)" if len(tables) > 1 else ")"),
            where=str(path),
            hint="headers look like 'Camber Angle Front Left [deg]', 'Heave [mm]'; map other "
            "names in a channel map file",
        )
    return _lateral_axis(_merge(path, parts))


def _merge(path: Path, parts: Sequence[Export]) -> Export:
    """One export from the sheets of a workbook: the same steps; a channel repeated on
    several sheets must carry the same values."""
    first = parts[0]
    columns = list(first.columns)
    ignored = list(first.ignored)
    for part in parts[1:]:
        if part.n_steps != first.n_steps:
            raise InputError(
                f"this sheet has {part.n_steps} steps, the first has {first.n_steps}",
                where=part.columns[0].where if part.columns else str(path),
                hint="export one motion per file, or delete the other sheets",
            )
        have = {_key(c): c for c in columns}
        for col in part.columns:
            twin = have.get(_key(col))
            if twin is None:
                columns.append(col)
            elif not np.allclose(
                twin.values, col.values, equal_nan=True, rtol=0, atol=REPEATED_COLUMN_ATOL
            ):
                raise InputError(
                    f"column {col.header.text!r} repeats {twin.where} with other values",
                    where=col.where,
                    hint="keep one of them, or ignore one in a channel map file",
                )
        ignored += [t for t in part.ignored if t not in ignored]
    return Export(
        path,
        tuple(columns),
        first.steps,
        tuple(ignored),
        first.notes,
        first.skipped,
        first.title,
        style=first.style,
    )


def _key(col: Column) -> str:
    if col.header.optimumk is not None:
        return col.header.name.lower()
    m = col.rule.metric
    return m if m is not None and m in MOTION_KEYS else col.channel.lower()


def _parse_one(
    path: Path,
    table: Table,
    cmap: ChannelMap,
    header_row: int,
    first_data: int,
    headers: list[Header | None],
    ignored: list[str],
) -> Export:
    data = list(table.rows[first_data:])
    # A row is a step when some channel has a value in it: blank rows and notes beside
    # or below the table (in columns that are not channels) are skipped, and so are the
    # statistic rows of OptimumK's table view (a label such as "Maximum Value").
    used = [
        c
        for c, h in enumerate(headers)
        if h is not None
        and h.rule is not None
        and h.rule.metric is not None
        and not (h.quantity is not None and h.quantity.scope == "index")
    ]
    labels = [c for c in range(len(headers)) if c not in used]
    keep: list[int] = []
    skipped: list[str] = []
    step_labels: list[float] = []
    for i, row in enumerate(data):
        if not any(cell_text(row[c]) for c in used if c < len(row)):
            continue
        label = next((cell_text(row[c]) for c in labels if c < len(row) and cell_text(row[c])), "")
        if label and STATISTIC_RE.match(label) and not is_number(label):
            skipped.append(f"{label} ({table.where(path, first_data + i, 0).split(': ', 1)[-1]})")
            continue
        keep.append(i)
        m = STEP_LABEL_RE.match(label)
        step_labels.append(float(m.group(1)) if m else math.nan)
    title = title_block(table, header_row)
    defaults = default_units(title)
    columns: list[Column] = []
    step_values: np.ndarray | None = None
    seen: dict[str, str] = {}
    for c, h in enumerate(headers):
        if h is None or h.rule is None:
            continue
        where = table.where(path, header_row, c)
        if h.quantity is not None and h.quantity.scope == "index":
            step_values = _column_values(path, table, data, keep, c, first_data, h, strict=False)
            continue
        rule = h.rule
        if rule.metric is None:
            ignored.append(f"{h.text} (ignored by {rule.source})")
            continue
        dimension = rule.dimension or (h.quantity.dimension if h.quantity else None)
        if dimension is None:
            dimension = _dimension_of_metric(rule.metric, where, h)
        if h.unit is None and dimension in defaults:
            h = replace(h, unit=defaults[dimension])  # the title block's unit
        factor = check_unit(h, dimension, where) * rule.sign * rule.scale
        key = rule.metric if rule.metric in MOTION_KEYS else h.channel.lower()
        raw = _column_values(path, table, data, keep, c, first_data, h, strict=True)
        if key in seen:
            twin = next(col for col in columns if col.header.text == seen[key])
            if np.allclose(
                twin.values, raw * factor, equal_nan=True, rtol=0, atol=REPEATED_COLUMN_ATOL
            ):
                # OptimumK writes Ackerman Percentage both with and without [Front]
                ignored.append(f"{h.text} (the same values as {seen[key]!r})")
                continue
            raise InputError(
                f"column {h.text!r} is the same channel as {seen[key]!r}, with other values",
                where=where,
                hint="keep one column per channel, or ignore one in a channel map file",
            )
        seen[key] = h.text
        rows = tuple(first_data + i + 1 for i in keep)
        cells = table.where_in_column(path, c)
        columns.append(Column(h, where, raw * factor, factor, dimension, rows, cells))
    if not keep:
        raise InputError(
            "the export has a header row but no data rows",
            where=table.where(path, header_row, 0),
            hint="export the results of at least one step",
        )
    labelled = np.array(step_labels, dtype=float)
    if step_values is not None and np.all(np.isfinite(step_values)):
        steps = step_values
    elif len(labelled) and np.all(np.isfinite(labelled)):
        steps = labelled  # OptimumK's "Step [0]", "Step [1]", ...
    else:
        steps = np.arange(1, len(keep) + 1, dtype=float)
    return Export(
        path, tuple(columns), steps, tuple(ignored), table.comments, tuple(skipped), title
    )


def _lateral_axis(export: Export) -> Export:
    """Negate the lateral coordinates of an export whose lateral axis is + to the right.

    OptimumK's coordinate matrix is a per-file choice (docs/conventions.md): when
    every left-corner ``y`` coordinate the export gives is negative and every
    right-corner one positive (at the first step), its lateral axis points right;
    ours points left (ISO 8855), so those columns are negated and `reading` says so.
    """
    ys = [
        c
        for c in export.columns
        if c.quantity is not None
        and c.quantity.component == LATERAL
        and c.rule.metric == c.quantity.metric
        and c.location is not None
    ]
    first = [(c, c.values[np.isfinite(c.values)][:1]) for c in ys]
    left = [v[0] for c, v in first if len(v) and (c.location or "").endswith("Left")]
    right = [v[0] for c, v in first if len(v) and (c.location or "").endswith("Right")]
    if not left or not right or not (max(left) < 0 < min(right)):
        return export
    lateral = {id(c) for c in ys}
    flipped = tuple(
        replace(c, values=-c.values, factor=-c.factor) if id(c) in lateral else c
        for c in export.columns
    )
    names = ", ".join(sorted({c.quantity.name for c in ys if c.quantity is not None}))
    note = (
        "the export's lateral axis is positive to the right (its left wheels are at "
        f"negative Y): {names} negated to ours (+Y = left). OptimumK's pitch and "
        "steering signs are defined about that axis too: check that Motion [Pitch] and "
        "Motion [Steering] drive the car the way the export shows it moving"
    )
    return replace(export, columns=flipped, reading=(*export.reading, note))


def _column_values(
    path: Path,
    table: Table,
    data: list[list[object]],
    keep: list[int],
    col: int,
    first_data: int,
    header: Header,
    *,
    strict: bool,
) -> np.ndarray:
    out = np.full(len(keep), np.nan)
    for k, i in enumerate(keep):
        row = data[i]
        value = row[col] if col < len(row) else None
        v = cell_number(value)
        if v is None:
            if not strict:
                return np.full(len(keep), np.nan)
            raise InputError(
                f"column {header.text!r}: {value!r} is not a number",
                where=table.where(path, first_data + i, col),
                hint="every cell of a channel must be a number (blank = no value at that step)",
            )
        out[k] = v
    return out


def _dimension_of_metric(metric: str, where: str, header: Header) -> Dimension:
    """Dimension of one of our metrics (for a column mapped only by a map file)."""
    from suspension_sim.metrics.catalogue import CATALOGUE, metric_of

    if metric in MOTION_KEYS:
        return "length" if metric in ("heave", "rack") else "angle"
    found = metric_of(metric)
    m = found[0] if found else CATALOGUE.get(metric)
    if m is None:
        raise InputError(
            f"column {header.text!r} is mapped to {metric!r}, which is not one of our metrics",
            where=where,
            hint="use a metric id or column from docs/metrics.md (e.g. camber, "
            "camber_FL_deg), or add 'dimension: angle|length|ratio' to the map entry",
        )
    if m.unit == "deg":
        return "angle"
    if m.unit == "mm":
        return "length"
    if m.unit == "%":
        return "percent"
    return "ratio"
