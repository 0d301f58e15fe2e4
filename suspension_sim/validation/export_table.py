"""An export file as cells, and the `Export` / `Column` it is read into (mm, deg).

The layer under both readers of an export: the channel-map table path
(`suspension_sim.validation.export`) and OptimumK's grammar
(`suspension_sim.validation.okexport`). Cells come from .csv/.txt/.tsv (UTF-8,
UTF-16 or Windows-1252; comma, semicolon or tab) or .xlsx; a cell is named as the
user sees it (``export.csv: line 3, column 5``, ``export.xlsx: Results!E3``).
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.textfiles import read_text
from suspension_sim.validation.export_units import unit_factor
from suspension_sim.validation.headers import Header
from suspension_sim.validation.quantities import (
    CANONICAL_UNIT,
    MOTION_KEYS,
    ChannelRule,
    Dimension,
    Quantity,
)

HEADER_SCAN_ROWS = 50
"""Rows searched for the header row (title rows may come first)."""

STATISTIC_RE = re.compile(
    r"^(maximum|minimum|max|min|mean|average|avg|median|range|rms|sum|delta|"
    r"std\.?|standard|std\.? ?deviation|standard deviation|variance)( value)?s?$",
    re.IGNORECASE,
)
"""Labels of the statistic rows of OptimumK's table view (Maximum Value ... Std Deviation Value)."""
STEP_LABEL_RE = re.compile(r"^step\s*\[?\s*(-?\d+(?:\.\d+)?)\s*\]?$", re.IGNORECASE)
"""A step label in a row, ``Step [0]``: its number labels the step."""
LATERAL = "y"
"""The component that a lateral-axis flip negates."""


@dataclass(frozen=True)
class Column:
    """One channel of the export, converted to mm/deg and mapped (sign, scale applied).

    values: one per step, NaN where the cell is blank. `factor` is the unit
    factor times sign times scale that turned the export's numbers into ours.
    where: the header cell; rows: the file row (1-based) of each step, and
    cell_where: `where` of a data cell with ``{row}`` for its row (see `cell`).
    """

    header: Header
    where: str
    values: np.ndarray
    factor: float
    dimension: Dimension
    rows: tuple[int, ...] = ()
    cell_where: str = ""

    def cell(self, step: int) -> str:
        """Where the value of `step` (0-based) sits, e.g. ``export.csv: line 7, column 3``."""
        if not self.cell_where or not 0 <= step < len(self.rows):
            return self.where
        return self.cell_where.replace("{row}", str(self.rows[step]))

    @property
    def channel(self) -> str:
        return self.header.channel

    @property
    def rule(self) -> ChannelRule:
        assert self.header.rule is not None
        return self.header.rule

    @property
    def quantity(self) -> Quantity | None:
        return self.header.quantity

    @property
    def location(self) -> str | None:
        return self.header.location

    @property
    def unit(self) -> str:
        """Our unit for the converted values (mm, deg or -)."""
        return CANONICAL_UNIT[self.dimension]


@dataclass(frozen=True)
class Export:
    """An export read and converted. `steps`: the step column, or 1..n."""

    path: Path
    columns: tuple[Column, ...]
    steps: np.ndarray
    ignored: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())  # the export's comment lines
    skipped: tuple[str, ...] = ()  # rows that are not steps (statistics), as "label (row)"
    title: tuple[tuple[str, str], ...] = ()  # the title block's (key, value) pairs
    reading: tuple[str, ...] = ()  # what the reader did to the values (a lateral flip)
    style: str = "table"
    """``optimumk``: read in OptimumK's header grammar, compared through its channel
    registry (`suspension_sim.validation.okexport`); ``table``: through a channel map."""
    mirrored: bool = False
    """An OptimumK export whose lateral axis points right, turned into our frame
    (`suspension_sim.validation.okmirror`)."""

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    def motion(self) -> dict[str, Column]:
        """Motion columns by key (heave, roll, pitch, rack, steering_wheel)."""
        out: dict[str, Column] = {}
        for c in self.columns:
            if c.rule.metric in MOTION_KEYS:
                out[c.rule.metric] = c
        return out

    def outputs(self) -> list[Column]:
        """Columns to compare (everything mapped that is not a motion input or the step)."""
        return [
            c
            for c in self.columns
            if c.rule.metric
            and c.rule.metric not in MOTION_KEYS
            and not (c.quantity is not None and c.quantity.scope == "index")
        ]

    def find(self, channel: str) -> Column | None:
        """The column of a canonical channel name (``"Damper Length Front Left"``)."""
        for c in self.columns:
            if c.channel.lower() == channel.lower():
                return c
        return None


@dataclass
class Table:
    """Raw cells of one sheet: rows of values, and how to name a cell."""

    rows: list[list[object]]
    sheet: str | None = None  # xlsx sheet name (cells as Sheet!A1), None for csv
    comments: tuple[str, ...] = ()  # csv lines starting with '#', without the '#'

    def where(self, path: Path, row: int, col: int) -> str:
        """The cell at 0-based `row`, `col`, as the user sees it (1-based line, A1 cell)."""
        return self.where_in_column(path, col).replace("{row}", str(row + 1))

    def where_in_column(self, path: Path, col: int) -> str:
        """`where` of a cell of column `col`, with ``{row}`` standing for its 1-based row."""
        if self.sheet is None:
            return f"{path.name}: line {{row}}, column {col + 1}"
        return f"{path.name}: {self.sheet}!{col_letter(col)}{{row}}"


def col_letter(col: int) -> str:
    out = ""
    n = col + 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def csv_cells(path: Path) -> list[Table]:
    """Cells of a text export: UTF-8, UTF-16 (Excel's 'Unicode text') or Windows-1252
    (`suspension_sim.textfiles.read_text`), separated by commas, semicolons or tabs."""
    text = read_text(path, "export file")
    lines = text.splitlines()
    # Lines starting with '#' are comments (kept as empty rows so line numbers hold).
    body = ["" if line.lstrip().startswith("#") else line for line in lines]
    delimiter = _delimiter([line for line in body[:HEADER_SCAN_ROWS] if line])
    rows: list[list[object]] = [
        list(next(csv.reader([line], delimiter=delimiter), [])) if line else [] for line in body
    ]
    comments = tuple(line.lstrip()[1:].strip() for line in lines if line.lstrip().startswith("#"))
    return [Table(rows, None, comments)]


def _delimiter(lines: Sequence[str]) -> str:
    """The delimiter of a text table: comma, semicolon or tab.

    The one that splits some line into the most fields, and (on a tie) does so
    on the most lines: a semicolon table with decimal commas has as many commas
    as semicolons on its data rows, but no comma in its header. A title block
    above the table (``Name<TAB>run``) does not mislead it, as a whole-sample
    sniffer can be.
    """
    best, score = ",", (1, 0)
    for d in (",", ";", "\t"):
        counts = [len(next(csv.reader([line], delimiter=d), [])) for line in lines]
        if not counts:
            continue
        top = max(counts)
        candidate = (top, counts.count(top))
        if candidate > score:
            best, score = d, candidate
    return best


def xlsx_cells(path: Path) -> list[Table]:
    import openpyxl

    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # a corrupt or non-xlsx file
        raise InputError(f"cannot open as .xlsx: {exc}", where=str(path)) from None
    try:
        return [
            Table([list(r) for r in ws.iter_rows(values_only=True)], ws.title)
            for ws in wb.worksheets
        ]
    finally:
        wb.close()


def cell_text(value: object) -> str:
    return "" if value is None else str(value).strip()


def is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        float(str(value).strip().replace(",", "."))
    except ValueError:
        return False
    return True


TEXT_NUMBERS = {
    "nan": math.nan,
    "-nan": math.nan,
    "∞": math.inf,
    "inf": math.inf,
    "infinity": math.inf,
    "-∞": -math.inf,
    "-inf": -math.inf,
    "-infinity": -math.inf,
}
"""Words a cell may hold for a number (OptimumK writes NaN where a channel has no value)."""


def cell_number(value: object) -> float | None:
    """A cell as float: blank -> NaN, NaN/Infinity words accepted, decimal commas; None
    if it is not a number."""
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    if not text:
        return math.nan
    if text.lower() in TEXT_NUMBERS:
        return TEXT_NUMBERS[text.lower()]
    for candidate in (text, text.replace(",", ".")):
        try:
            return float(candidate)
        except ValueError:
            continue
    return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    for candidate in (text, text.replace(",", ".")):
        try:
            return float(candidate)
        except ValueError:
            continue
    return None


TITLE_KEYS = ("name", "type", "version", "user options", "date", "author", "user")
"""First words of OptimumK's title-block rows (kept as `Export.title`)."""


def title_block(table: Table, header_row: int) -> tuple[tuple[str, str], ...]:
    """(key, value) of every row above the header that holds a key and a value.

    OptimumK's title block: ``Name | <run>``, ``Type | Result``, ``Version |
    2.3.0``, ``User Options`` then rows such as ``Length | mm``. Rows with one
    cell are kept with an empty value.
    """
    out: list[tuple[str, str]] = []
    for row in table.rows[:header_row]:
        cells = [cell_text(v) for v in row if cell_text(v)]
        if not cells:
            continue
        key = cells[0].rstrip(":").strip()
        out.append((key, " ".join(cells[1:])))
    return tuple(out)


def default_units(title: tuple[tuple[str, str], ...]) -> dict[Dimension, str]:
    """Units the title block's User Options give (``Length | m``), by dimension."""
    out: dict[Dimension, str] = {}
    for key, value in title:
        # "Length | m" (key, value) or OptimumK's one-row "User Options | Length |
        # inch | in": the words after the dimension's name, the first known unit wins.
        words = [w.strip("[]():") for w in f"{key} {value}".split()]
        lowered = [w.lower() for w in words]
        for dimension in ("length", "angle"):
            if dimension not in lowered or dimension in out:
                continue
            for unit in words[lowered.index(dimension) + 1 :]:
                try:
                    unit_factor(unit, dimension)
                except KeyError:
                    continue
                out[dimension] = unit
                break
    return out


# -- markers of OptimumK registry channels (`ChannelRule.metric`) ----------------------
OK_METRIC = "optimumk"
"""`ChannelRule.metric` of a registry channel: its value comes from
`suspension_sim.optimumk.channels.optimumk_channels`, by its key."""
OK_FORCE = "optimumk-force"
"""`ChannelRule.metric` of a force or moment channel (the loads comparison)."""
SOURCE = "OptimumK registry"
