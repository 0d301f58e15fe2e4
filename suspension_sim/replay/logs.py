"""Reading a data-logger export chunk by chunk: CSV (any of , ; tab) or Parquet.

`open_log` looks at the file once (its columns, and for CSV the encoding, the
delimiter and the header line: loggers often write a block of metadata lines
first, so the header is the first line among the first `HEADER_SEARCH_LINES`
that names the time column); `LogFile.chunks` then yields the chosen columns as
floats, `chunk` rows at a time, so a log of millions of samples is never held
in memory. Text in a number column (a units row under the header, a logger's
"---") reads as NaN; rows before the first numeric time are dropped as header
rows. Parquet needs pyarrow (``pip install suspension-sim[parquet]``).
"""

from __future__ import annotations

import codecs
import csv
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError

HEADER_SEARCH_LINES = 200
"""Lines searched for the header row (the one naming the time column)."""
SNIFF_BYTES = 1 << 18
"""Bytes read to find the encoding, the delimiter and the header line."""
DELIMITERS = (",", ";", "\t")
PARQUET_HINT = "pip install suspension-sim[parquet] (it installs pyarrow), or export the log as CSV"
LOG_FORMATS = (".csv", ".txt", ".parquet", ".pq")


@dataclass
class LogFile:
    """A log file's layout (columns, and for CSV how to read it)."""

    path: Path
    kind: str  # "csv" or "parquet"
    columns: list[str]
    header_line: int = 0  # CSV: 0-based line of the header
    delimiter: str = ","
    encoding: str = "utf-8"
    skipped_rows: int = 0  # rows dropped before the first numeric time (units rows)
    _started: bool = field(default=False, repr=False)

    def chunks(self, columns: Sequence[str], time_column: str, size: int) -> Iterator[pd.DataFrame]:
        """The chosen columns as float64, `size` rows at a time (index: row number
        among the samples, from 0). Rows before the first numeric time are dropped."""
        self.skipped_rows = 0
        self._started = False
        start = 0
        for raw in self._raw_chunks(list(dict.fromkeys(columns)), size):
            frame = pd.DataFrame(
                {c: _floats(raw[c]) for c in dict.fromkeys(columns)}, index=raw.index
            )
            if not self._started:
                t = frame[time_column].to_numpy()
                ok = np.flatnonzero(np.isfinite(t))
                if not len(ok):
                    self.skipped_rows += len(frame)
                    continue
                self.skipped_rows += int(ok[0])
                frame = frame.iloc[int(ok[0]) :]
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


def _floats(values: pd.Series) -> np.ndarray:
    """A column as float64; text that is not a number becomes NaN."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float, na_value=np.nan)
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


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


def open_log(path: str | os.PathLike[str], time_column: str | None = None) -> LogFile:
    """The layout of the log at `path` (InputError naming it if it cannot be read)."""
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
    return _open_csv(p, time_column)


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


def _open_csv(path: Path, time_column: str | None) -> LogFile:
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
    header = 0
    delimiter = _delimiter(lines[0])
    if time_column is not None:
        for n, line in enumerate(lines):
            d = _delimiter(line)
            cells = [c.strip() for c in _cells(line, d)]
            if time_column.strip() in cells or time_column.strip().casefold() in {
                c.casefold() for c in cells
            }:
                header, delimiter = n, d
                break
    columns = [c for c in _cells(lines[header], delimiter)]
    return LogFile(path, "csv", columns, header, delimiter, encoding)


def _delimiter(line: str) -> str:
    counts = [line.count(d) for d in DELIMITERS]
    return DELIMITERS[int(np.argmax(counts))] if max(counts) else ","


def _cells(line: str, delimiter: str) -> list[str]:
    rows = list(csv.reader(io.StringIO(line), delimiter=delimiter))
    return rows[0] if rows else []
