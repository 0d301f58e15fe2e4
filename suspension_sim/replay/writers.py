"""Writing a replay's table chunk by chunk: CSV or Parquet, atomically.

The file is written to a temporary sibling (`suspension_sim.files.atomic_path`)
and renamed over the target only when every chunk is in, so an interrupted
replay leaves no half-written results and never touches an older file until
the new one is complete. Parquet gets one row group per chunk (pyarrow,
``pip install suspension-sim[parquet]``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import NotWritableError, atomic_path

OUT_FORMATS = (".csv", ".parquet")
PARQUET_HINT = "pip install suspension-sim[parquet] (it installs pyarrow), or write .csv"


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
        self._file: IO[str] | None = None
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
            self.write(pd.DataFrame(columns, copy=False))
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
            try:
                if self._file is None:
                    self._file = self._stack.enter_context(
                        self._tmp.open("w", encoding="utf-8", newline="")
                    )
                frame.to_csv(self._file, header=self.rows == 0, index=False)
            except OSError as exc:
                raise InputError(
                    f"cannot write {self.path}: {exc.strerror}", where=self.option
                ) from None
            self.rows += len(frame)
            return
        pa, _ = parquet_module()
        if self._parquet is None:
            self._open_parquet(frame)
        self._write_table(pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False))

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
        try:
            self._stack.__exit__(kind, exc, tb)
        except OSError as error:
            raise InputError(
                f"cannot write {self.path}: {error.strerror}", where=self.option
            ) from None
