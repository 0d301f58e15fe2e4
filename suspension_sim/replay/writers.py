"""Writing a replay's table chunk by chunk: CSV or Parquet, atomically.

The file is written to a temporary sibling (`suspension_sim.files.atomic_path`)
and renamed over the target only when every chunk is in, so an interrupted
replay leaves no half-written results and never touches an older file until
the new one is complete. Parquet gets one row group per chunk (pyarrow,
``pip install suspension-sim[parquet]``).

CSV text is exactly what ``pandas.DataFrame.to_csv(index=False)`` writes (shortest
round-trip floats as Python prints them, ``0.0``, ``1e-05``, blank for NaN), but made
by pyarrow's vectorised number formatting when pyarrow is there (`csv_text`): pandas
formats every cell in Python, ~27 s for a 200,000-sample replay against ~3 s.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import NotWritableError, atomic_path

OUT_FORMATS = (".csv", ".parquet")
PARQUET_HINT = "pip install suspension-sim[parquet] (it installs pyarrow), or write .csv"
QUEUED = 2
"""CSV chunks that may wait for the writer thread (memory: a chunk each)."""
CSV_SPECIAL = (",", '"', "\r", "\n")
"""Characters that make pandas (the csv module) quote a text cell: such chunks go the
pandas way."""


def parquet_module() -> Any:
    """pyarrow and pyarrow.parquet, or an InputError with the install hint."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "writing Parquet needs the pyarrow package, which is not installed",
            where="out",
            hint=PARQUET_HINT,
        ) from None
    return pa, pq


def _float_text(values: np.ndarray) -> Any:
    """A float64 column as pyarrow strings, each as Python's ``repr`` writes it (what
    pandas writes into a CSV), NaN as null. pyarrow prints the same shortest round-trip
    digits but as ``0`` for ``0.0``, and fixed or exponent notation by its own rule:
    integers get ``.0``, and the cells where the rules differ (magnitudes below 1e-4 or
    from 1e16, or an exponent from pyarrow) are printed by Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pc.cast(pa.array(values, from_pandas=True), pa.string())
    text = pc.replace_substring_regex(text, r"^(-?[0-9]+)$", r"\1.0")
    size = np.abs(values)
    with np.errstate(invalid="ignore"):
        odd = ((size < 1e-4) & (size != 0)) | (size >= 1e16)
    odd |= pc.fill_null(pc.match_substring(text, "e"), False).to_numpy(zero_copy_only=False)
    odd &= np.isfinite(values)
    if not odd.any():
        return text
    python = pa.array([repr(v) for v in values[odd].tolist()], type=pa.string())
    return pc.replace_with_mask(text, pa.array(odd), python)


def csv_text(columns: dict[str, np.ndarray]) -> bytes | None:
    """The rows (no header) of `columns` as UTF-8 CSV, byte for byte what
    ``pd.DataFrame(columns).to_csv(index=False, header=False)`` writes, made with
    pyarrow; None when that cannot be promised (pyarrow missing or without the
    options used, a column that is neither float64 nor plain text, text that pandas
    would quote), and the caller uses pandas."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    floats = [k for k, v in columns.items() if v.dtype == np.float64]
    for name, values in columns.items():
        if name in floats:
            continue
        if values.dtype != object or not all(
            isinstance(v, str) and not any(c in v for c in CSV_SPECIAL) for v in set(values)
        ):
            return None
    # One pyarrow call for all the numbers of the chunk (it runs without the GIL).
    n = len(next(iter(columns.values())))
    text: Any = _float_text(np.concatenate([columns[k] for k in floats])) if floats else None
    at = {k: i * n for i, k in enumerate(floats)}
    arrays = [
        text.slice(at[k], n) if k in at else pa.array(v, type=pa.string())
        for k, v in columns.items()
    ]
    table = pa.Table.from_arrays(arrays, names=[str(k) for k in columns])
    try:
        options = pcsv.WriteOptions(include_header=False, quoting_style="none", eol=os.linesep)
    except TypeError:  # pragma: no cover - a pyarrow older than its eol option
        return None
    out = pa.BufferOutputStream()
    pcsv.write_csv(table, out, options)
    return bytes(out.getvalue())


class TableWriter:
    """``with TableWriter(path) as w: w.write(chunk) ...``: one table, chunk by chunk."""

    def __init__(self, path: str | Path, *, option: str = "out"):
        self.path = Path(path)
        self.option = option
        self.suffix = self.path.suffix.lower()
        if self.suffix not in OUT_FORMATS:
            raise InputError(
                f"cannot write {self.path.name!r}: a replay is written as .csv or .parquet",
                where=option,
                hint="end the file name with .csv or .parquet (Excel cannot hold a long log)",
            )
        if self.suffix == ".parquet":
            parquet_module()
        self.rows = 0
        self._stack = contextlib.ExitStack()
        self._file: IO[bytes] | None = None
        self._header = False
        self._thread: threading.Thread | None = None
        self._queue: queue.Queue[dict[str, np.ndarray] | None] = queue.Queue()
        self._error: BaseException | None = None
        self._cancel = False
        self._parquet: Any = None
        self._schema: Any = None

    def __enter__(self) -> TableWriter:
        try:
            self._tmp = self._stack.enter_context(atomic_path(self.path, suffix=self.suffix))
        except NotWritableError as exc:
            raise InputError(f"{self.path} {exc.strerror}", where=self.option) from None
        except OSError as exc:
            raise InputError(
                f"cannot write in folder {self.path.parent}: {exc.strerror}", where=self.option
            ) from None
        return self

    def write_columns(self, columns: dict[str, np.ndarray]) -> None:
        """Append a chunk given as {name: (N,) array} (the same names every time). For
        Parquet the arrays go to pyarrow directly, without a DataFrame and its
        pandas-to-arrow conversion (~0.3 us per sample with fifty columns); the schema
        (with pandas' metadata) comes from the first chunk's first row."""
        if self.suffix == ".csv":
            self._submit(columns)
            self.rows += len(next(iter(columns.values()), ()))
            return
        if not all(len(v) for v in columns.values()):
            return  # an empty chunk: nothing to write (and no first row for the schema)
        if self._parquet is None:
            self._open_parquet(pd.DataFrame({k: v[:1] for k, v in columns.items()}))
        if list(columns) != self._schema.names:
            self.write(pd.DataFrame(columns, copy=False))  # pyarrow then says what differs
            return
        pa, _ = parquet_module()
        fields = zip(columns.values(), self._schema, strict=True)
        # from_pandas: NaN cells (samples screened out or not closed) become Parquet nulls,
        # as pandas' own conversion writes them.
        arrays = [pa.array(v, type=f.type, from_pandas=True) for v, f in fields]
        self._write_table(pa.Table.from_arrays(arrays, schema=self._schema))

    def write(self, frame: pd.DataFrame) -> None:
        """Append `frame` (the same columns every time)."""
        if self.suffix == ".csv":
            self._drain()
            self._write_csv(frame, None)
            self.rows += len(frame)
            return
        pa, _ = parquet_module()
        if self._parquet is None:
            self._open_parquet(frame)
        self._write_table(pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False))

    def _submit(self, columns: dict[str, np.ndarray]) -> None:
        """Hand a CSV chunk to the writer thread (started on the first), which formats
        and writes it while the caller solves the next chunk: pyarrow formats without
        the GIL. At most `QUEUED` chunks wait; an error in the thread is raised here or
        at the end."""
        self._raise_thread_error()
        if self._thread is None:
            self._queue = queue.Queue(maxsize=QUEUED)
            self._thread = threading.Thread(target=self._work, name="csv-writer", daemon=True)
            self._thread.start()
        self._queue.put(columns)

    def _work(self) -> None:
        while (columns := self._queue.get()) is not None:
            try:
                if self._error is None and not self._cancel:
                    self._csv_chunk(columns)
            except BaseException as exc:  # raised in the caller's thread
                self._error = exc
            finally:
                self._queue.task_done()
        self._queue.task_done()

    def _csv_chunk(self, columns: dict[str, np.ndarray]) -> None:
        """Write one chunk: pyarrow's text (`csv_text`) after pandas' header, else pandas."""
        text = csv_text(columns) if all(len(v) for v in columns.values()) else None
        if text is None:
            self._write_csv(pd.DataFrame(columns, copy=False), None)
        else:
            self._write_csv(pd.DataFrame({k: v[:0] for k, v in columns.items()}), text)

    def _drain(self) -> None:
        """Wait until the writer thread has written every chunk handed to it."""
        if self._thread is not None:
            self._queue.join()
        self._raise_thread_error()

    def _stop(self) -> None:
        """End the writer thread (after its chunks)."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def _raise_thread_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _write_csv(self, frame: pd.DataFrame, text: bytes | None) -> None:
        """Append `frame` as CSV (the header before the first rows), or its columns'
        ready-made rows `text` (`csv_text`) after pandas' header."""
        try:
            if self._file is None:
                self._file = self._stack.enter_context(self._tmp.open("wb"))
            if not self._header:
                self._header = True
                self._file.write(frame.iloc[:0].to_csv(index=False).encode("utf-8"))
            if text is None:
                text = frame.to_csv(index=False, header=False).encode("utf-8")
            self._file.write(text)
        except OSError as exc:
            raise InputError(
                f"cannot write {self.path}: {exc.strerror}", where=self.option
            ) from None

    def _open_parquet(self, sample: pd.DataFrame) -> None:
        """Open the Parquet file with the schema of `sample` (its columns' types)."""
        pa, pq = parquet_module()
        self._schema = pa.Schema.from_pandas(sample, preserve_index=False)
        # Dictionary encoding only where values repeat (text: the status); on
        # measured floats it only costs (~half the write time).
        text = [f.name for f in self._schema if not pa.types.is_floating(f.type)]
        try:
            self._parquet = pq.ParquetWriter(self._tmp, self._schema, use_dictionary=text)
        except OSError as exc:
            raise InputError(
                f"cannot write {self.path}: {exc.strerror}", where=self.option
            ) from None
        self._stack.callback(self._parquet.close)

    def _write_table(self, table: Any) -> None:
        """Append a pyarrow table to the open Parquet file."""
        try:
            self._parquet.write_table(table)
        except OSError as exc:
            raise InputError(
                f"cannot write {self.path}: {exc.strerror}", where=self.option
            ) from None
        self.rows += table.num_rows

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._cancel = kind is not None  # the chunks still queued are not written
        self._stop()
        error, self._error = self._error, None
        if kind is None and error is not None:  # the writer thread failed: no file
            with contextlib.suppress(Exception):
                self._stack.__exit__(type(error), error, error.__traceback__)
            raise error
        try:
            self._stack.__exit__(kind, exc, tb)
        except OSError as failure:
            raise InputError(
                f"cannot write {self.path}: {failure.strerror}", where=self.option
            ) from None
