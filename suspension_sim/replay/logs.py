"""Reading a data-logger export chunk by chunk: CSV (any of , ; tab) or Parquet.

`open_log` looks at the file once (its columns, and for CSV the encoding, the
delimiter, the decimal mark and the header line: loggers often write a block of
metadata lines first, some of which may hold a column's name, such as AiM's
``"Time","10:23 AM"``, so the header is the first line among the first
`HEADER_SEARCH_LINES` that names the most of the map's columns);
`LogFile.chunks` then yields the chosen columns as floats, `chunk` rows at a
time, so a log of millions of samples is never held in memory. Text in a
number column (a units row under the header, a logger's "---") reads as NaN;
rows before the first numeric time are dropped as header rows. A time column of
dates (datetime64) becomes seconds from its first stamp, one of durations
(timedelta64) its seconds. Parquet needs pyarrow
(``pip install suspension-sim[parquet]``).
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.names import loose_key

HEADER_SEARCH_LINES = 200
"""Lines searched for the header row (the one naming the most of the map's columns)."""
DECIMAL_SEARCH_LINES = 50
"""Lines under the header looked at to tell a decimal comma ("1,25") from a point."""
SNIFF_BYTES = 1 << 18
"""Bytes read to find the encoding, the delimiter and the header line."""
DELIMITERS = (",", ";", "\t")
PARQUET_HINT = "pip install suspension-sim[parquet] (it installs pyarrow), or export the log as CSV"
LOG_FORMATS = (".csv", ".txt", ".parquet", ".pq")
DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+(?:[eE][+-]?\d+)?")
"""A number written with a decimal comma, the whole cell ("1,25", "-0,5e-3")."""
DECIMAL_POINT = re.compile(r"[+-]?\d*\.\d+(?:[eE][+-]?\d+)?")
"""A number written with a decimal point, the whole cell."""
SHOWN_TEXTS = 3
"""Texts of the time column kept from the rows skipped before the first numeric time."""


@dataclass
class LogFile:
    """A log file's layout (columns, and for CSV how to read it)."""

    path: Path
    kind: str  # "csv" or "parquet"
    columns: list[str]
    header_line: int = 0  # CSV: 0-based line of the header
    delimiter: str = ","
    encoding: str = "utf-8"
    decimal: str = "."  # CSV: the decimal mark ("," for "1,25")
    lineterminator: str | None = None  # CSV: "\r" for old Mac line ends, else pandas' own
    skipped_rows: int = 0  # rows dropped before the first numeric time (units rows)
    skipped_texts: list[str] = field(default_factory=list)  # their time cells (a few)
    time_note: str = ""  # how a time column of dates or durations was read, if it was
    _started: bool = field(default=False, repr=False)
    _origin: Any = field(default=None, repr=False)  # first stamp of a time column of dates

    def chunks(self, columns: Sequence[str], time_column: str, size: int) -> Iterator[pd.DataFrame]:
        """The chosen columns as float64, `size` rows at a time (index: row number
        among the samples, from 0). Rows before the first numeric time are dropped.
        A time column of dates gives seconds from its first stamp, one of durations
        their seconds (`time_note` says which)."""
        self.skipped_rows = 0
        self.skipped_texts = []
        self.time_note = ""
        self._started = False
        self._origin = None
        start = 0
        for raw in self._raw_chunks(list(dict.fromkeys(columns)), size):
            frame = pd.DataFrame(
                {
                    c: self._seconds(raw[c]) if c == time_column else _floats(raw[c], self.decimal)
                    for c in dict.fromkeys(columns)
                },
                index=raw.index,
            )
            if not self._started:
                t = frame[time_column].to_numpy()
                ok = np.flatnonzero(np.isfinite(t))
                skipped = int(ok[0]) if len(ok) else len(frame)
                self.skipped_rows += skipped
                if len(self.skipped_texts) < SHOWN_TEXTS:
                    texts = raw[time_column].iloc[:skipped].dropna().astype(str).str.strip()
                    texts = texts[texts != ""]
                    more = SHOWN_TEXTS - len(self.skipped_texts)
                    self.skipped_texts += texts.iloc[:more].tolist()
                if not len(ok):
                    continue
                frame = frame.iloc[skipped:]
                self._started = True
            frame.index = pd.RangeIndex(start, start + len(frame))
            start += len(frame)
            yield frame

    def _raw_chunks(self, columns: list[str], size: int) -> Iterator[pd.DataFrame]:
        if self.kind == "parquet":
            pq = _pyarrow_parquet(self.path)
            try:
                pf = pq.ParquetFile(self.path)
                for batch in pf.iter_batches(batch_size=size, columns=columns):
                    yield batch.to_pandas()
            except OSError as exc:
                raise InputError(f"cannot read the log: {exc}", where=str(self.path)) from None
            return
        try:
            reader = pd.read_csv(
                self.path,
                sep=self.delimiter,
                skiprows=self.header_line,
                header=0,
                usecols=columns,
                chunksize=size,
                encoding=self.encoding,
                decimal=self.decimal,
                lineterminator=self.lineterminator,
                low_memory=False,
                skip_blank_lines=True,
            )
            with reader:
                yield from reader
        except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(
                f"cannot read the log as {self.encoding} CSV: {' '.join(str(exc).split())}",
                where=str(self.path),
                hint="export the log as plain CSV (one header row, one row per sample)",
            ) from None

    def _seconds(self, values: pd.Series) -> np.ndarray:
        """The time column as float64: numbers as they are; dates (datetime64) as s from
        the log's first stamp; durations (timedelta64) as their s."""
        if pd.api.types.is_datetime64_any_dtype(values):
            stamps = values.dropna()
            if self._origin is None and len(stamps):
                self._origin = stamps.iloc[0]
                self.time_note = (
                    f"the time column {values.name!r} holds dates: time is in s from its first "
                    f"stamp {self._origin}"
                )
            if self._origin is None:
                return np.full(len(values), np.nan)
            return _float_array((values - self._origin).dt.total_seconds())
        if pd.api.types.is_timedelta64_dtype(values):
            self.time_note = (
                f"the time column {values.name!r} holds durations: time is their length in s"
            )
            return _float_array(values.dt.total_seconds())
        return _floats(values, self.decimal)


def _float_array(values: pd.Series) -> np.ndarray:
    return values.to_numpy(dtype=float, na_value=np.nan)


def _floats(values: pd.Series, decimal: str = ".") -> np.ndarray:
    """A column as float64; text that is not a number becomes NaN, and so do dates and
    durations (only the time column reads those, `LogFile._seconds`). With a decimal
    comma, text the CSV reader left (a column with a stray "1.5" or a units row)
    is read with "," as the decimal mark."""
    if pd.api.types.is_datetime64_any_dtype(values) or pd.api.types.is_timedelta64_dtype(values):
        return np.full(len(values), np.nan)
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return _float_array(values)
    if decimal != "." and len(values):
        values = values.astype(str).str.replace(decimal, ".", regex=False).where(values.notna())
    return _float_array(pd.to_numeric(values, errors="coerce"))


def _pyarrow_parquet(path: Path) -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading or writing Parquet needs the pyarrow package, which is not installed",
            where=str(path),
            hint=PARQUET_HINT,
        ) from None
    return pq


def open_log(path: str | os.PathLike[str], columns: str | Sequence[str] | None = None) -> LogFile:
    """The layout of the log at `path` (InputError naming it if it cannot be read).

    columns: the column names the caller will read (the time column first); a CSV's
    header is the first line naming the most of them."""
    p = Path(path)
    if not p.is_file():
        raise InputError(
            "no such log file" if not p.exists() else "is not a file",
            where=str(p),
            hint="give the data logger's CSV or Parquet export",
        )
    suffix = p.suffix.lower()
    if suffix in (".parquet", ".pq"):
        pq = _pyarrow_parquet(p)
        try:
            names = list(pq.ParquetFile(p).schema_arrow.names)
        except Exception as exc:  # pyarrow raises several types for a bad file
            raise InputError(
                f"not a Parquet file: {' '.join(str(exc).split())}", where=str(p)
            ) from None
        return LogFile(p, "parquet", [str(n) for n in names])
    if suffix in (".xlsx", ".xls", ".xlsm"):
        raise InputError(
            "a log is read from CSV or Parquet, not from Excel",
            where=str(p),
            hint="save the sheet as CSV (File > Save As > CSV UTF-8)",
        )
    wanted = [columns] if isinstance(columns, str) else list(columns or [])
    return _open_csv(p, wanted)


def _encoding(raw: bytes) -> str:
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(raw) - 4:  # not just a character cut at the end of the sample
            return "cp1252"
    return "utf-8"


def _open_csv(path: Path, wanted: Sequence[str]) -> LogFile:
    try:
        with path.open("rb") as f:
            raw = f.read(SNIFF_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read the log: {exc.strerror}", where=str(path)) from None
    if b"\x00" in raw and not raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError(
            "the log holds NUL bytes: it is not a CSV text file",
            where=str(path),
            hint="give the logger's CSV export, or a .parquet file",
        )
    encoding = _encoding(raw)
    text = raw.decode(encoding, errors="replace")
    lines = text.splitlines()[:HEADER_SEARCH_LINES]
    if not lines or not any(line.strip() for line in lines):
        raise InputError("the log is empty", where=str(path))
    header, delimiter = _header(lines, wanted)
    columns = [c for c in _cells(lines[header], delimiter)]
    data = lines[header + 1 : header + 1 + DECIMAL_SEARCH_LINES]
    decimal = _decimal(data, delimiter)
    cr_only = "\r" in text and "\n" not in text  # pandas counts lines otherwise then
    return LogFile(
        path, "csv", columns, header, delimiter, encoding, decimal, "\r" if cr_only else None
    )


def _header(lines: Sequence[str], wanted: Sequence[str]) -> tuple[int, str]:
    """(0-based line, delimiter) of the header: the first line that names the most of
    the `wanted` columns (exactly, ignoring case, or ignoring case, spaces and
    underscores), so that a metadata line naming one of them (AiM's ``"Time","10:23
    AM"``) is passed over; line 0 when no line names any."""
    best, found, delimiter = 0, 0, _delimiter(lines[0])
    keys = {loose_key(w) for w in wanted if w.strip()}
    if not keys:
        return best, delimiter
    for n, line in enumerate(lines):
        d = _delimiter(line)
        cells = {loose_key(c) for c in _cells(line, d)}
        score = len(keys & cells)
        if score > found:
            best, found, delimiter = n, score, d
            if score == len(keys):
                break
    return best, delimiter


def _decimal(lines: Sequence[str], delimiter: str) -> str:
    """ "," when the data lines write more numbers with a decimal comma ("1,25") than
    with a decimal point, "." otherwise."""
    comma = point = 0
    for line in lines:
        for cell in _cells(line, delimiter):
            cell = cell.strip()
            if DECIMAL_COMMA.fullmatch(cell):
                comma += 1
            elif DECIMAL_POINT.fullmatch(cell):
                point += 1
    return "," if comma > point else "."


def decimal_comma(texts: Sequence[str]) -> bool:
    """True when some of `texts` is a number written with a decimal comma."""
    return any(DECIMAL_COMMA.fullmatch(t.strip()) for t in texts)


def _delimiter(line: str) -> str:
    counts = [line.count(d) for d in DELIMITERS]
    return DELIMITERS[int(np.argmax(counts))] if max(counts) else ","


def _cells(line: str, delimiter: str) -> list[str]:
    rows = list(csv.reader(io.StringIO(line), delimiter=delimiter))
    return rows[0] if rows else []
