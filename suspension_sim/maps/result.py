"""A car's kinematic maps (`Maps`, `CornerMap`) and their files: one table per corner
(CSV, Parquet) and maps.json.

A corner's table has one row per node (travel outer, rack inner), the axes and every
quantity with its unit in the header (``travel [mm]``, ``camber [deg]``) and a
``reason`` column ('' where the node was reached). ``maps.json`` describes the set:
car, corners, grid axes, units, signs, the software version and the lookup's
accuracy per quantity. Files are written atomically (`suspension_sim.files`), an
existing one is replaced only with force=True, and every file is checked before the
first is written.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.files import NotWritableError, atomic_path, check_output, refuse_existing
from suspension_sim.maps.fields import FIELDS, RACK, REASON, TRAVEL
from suspension_sim.maps.solve import Corner

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

DESCRIPTION = "maps.json"
FORMAT = "suspension_sim kinematic maps"
FORMAT_VERSION = 1
FORMATS = ("csv", "parquet")
NODE = (
    "single-wheel bump with the rack held: chassis at design, the wheel centre `travel` mm "
    "from its design place along the chassis z axis (+ = bump), every other damper at its "
    "design stroke, rack at `rack` mm (+ toward +Y); as the sweep 'bump WHEEL' with the "
    "rack moved (docs/sweeps.md). Ground = chassis frame here."
)


@dataclass
class CornerMap:
    """One corner's map: axes (mm), values {quantity: (n_travel, n_rack) or (n_travel,)},
    the reason each node is NaN ('' where reached), and the lookup accuracy measured at
    the cell centres ({quantity: {"linear": {"max", "rms"}, "cubic": ..., "method",
    "cells"}}; empty when not measured)."""

    corner: Corner
    travel: np.ndarray
    rack: np.ndarray | None
    values: dict[str, np.ndarray]
    reason: np.ndarray
    accuracy: dict[str, dict[str, Any]] = field(default_factory=dict)
    half_track_design: float = 0.0
    """The design half track (mm) that track_change is measured from."""

    @property
    def name(self) -> str:
        return self.corner.wheel

    @property
    def shape(self) -> tuple[int, ...]:
        return self.reason.shape

    @property
    def reachable(self) -> np.ndarray:
        """True at the nodes that were reached (the others are NaN)."""
        return self.reason == ""

    def table(self) -> pd.DataFrame:
        """Long table, one row per node (travel outer, rack inner), units in the headers."""
        import pandas as pd

        if self.rack is None:
            cols: dict[str, Any] = {TRAVEL.header: self.travel}
        else:
            t, r = np.meshgrid(self.travel, self.rack, indexing="ij")
            cols = {TRAVEL.header: t.ravel(), RACK.header: r.ravel()}
        for f in FIELDS:
            cols[f.header] = self.values[f.name].ravel()
        cols[REASON] = self.reason.ravel().astype(str)
        return pd.DataFrame(cols)


@dataclass
class Maps:
    """The maps of a car: {corner name: CornerMap}, and where they came from."""

    car: str
    workbook: str | None
    corners: dict[str, CornerMap]
    seconds: float = 0.0

    def __getitem__(self, corner: str) -> CornerMap:
        return self.corners[corner]

    def description(self, files: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        """The maps.json content (`description`)."""
        return description(self, files or {})

    def write(
        self,
        directory: str | Path,
        formats: Sequence[str] = ("csv", "parquet"),
        *,
        force: bool = False,
    ) -> list[Path]:
        """Write every corner's table (CSV and/or Parquet) and ``maps.json`` into
        `directory` (created if missing; its parent must exist). An existing file is
        replaced only with force=True; nothing is written if one would be refused."""
        return write_maps(self, directory, formats, force=force)

    @classmethod
    def read(cls, directory: str | os.PathLike[str]) -> Maps:
        """Maps written by `write` (Parquet preferred, else CSV)."""
        return read_maps(directory)


def file_stem(corner: str) -> str:
    """A file-name-safe stem for a corner (``map_FL``)."""
    return "map_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", corner)


def check_formats(formats: Sequence[str] | str) -> tuple[str, ...]:
    """The formats asked for ("csv", "parquet"; a comma-separated text works too)."""
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    out = tuple(dict.fromkeys(str(f).strip().lower() for f in items if str(f).strip()))
    bad = [f for f in out if f not in FORMATS]
    if bad or not out:
        raise InputError(
            f"unknown format {bad[0]!r}" if bad else "no format given",
            where="formats",
            hint="csv, parquet or csv,parquet",
        )
    return out


def _number(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def description(maps: Maps, files: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The maps.json content (plain JSON: NaN written as null)."""
    from suspension_sim.version import __version__

    corners: dict[str, Any] = {}
    for name, m in maps.corners.items():
        c = m.corner
        reasons: dict[str, int] = {}
        for r in m.reason.ravel():
            if r:
                reasons[str(r)] = reasons.get(str(r), 0) + 1
        axes: dict[str, Any] = {
            "travel": _axis(m.travel, TRAVEL.unit, TRAVEL.sign),
            "rack": None if m.rack is None else _axis(m.rack, RACK.unit, RACK.sign),
        }
        accuracy = {
            q: {
                "unit": next(f.unit for f in FIELDS if f.name == q),
                **{
                    k: ({kk: _number(vv) for kk, vv in v.items()} if isinstance(v, dict) else v)
                    for k, v in e.items()
                },
            }
            for q, e in m.accuracy.items()
        }
        corners[name] = {
            "axle": c.axle,
            "side": c.side,
            "damper": c.damper,
            "steered": c.steered,
            "axes": axes,
            "nodes": int(m.reason.size),
            "unreachable": int(sum(reasons.values())),
            "reasons": reasons,
            "half_track_design_mm": m.half_track_design,
            "files": files.get(name, {}),
            "accuracy": accuracy,
        }
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "software": {"name": "suspension_sim", "version": __version__},
        "car": maps.car,
        "workbook": maps.workbook,
        "convention": "iso",
        "node": NODE,
        "lookup": "scipy RegularGridInterpolator: linear (bilinear) or cubic per quantity "
        "(accuracy.method: the smaller error at the cell centres); never extrapolated",
        "units": {
            TRAVEL.name: TRAVEL.unit,
            RACK.name: RACK.unit,
            **{f.name: f.unit for f in FIELDS},
        },
        "signs": {
            TRAVEL.name: TRAVEL.sign,
            RACK.name: RACK.sign,
            **{f.name: f.sign for f in FIELDS},
        },
        "corners": corners,
    }


def _axis(values: np.ndarray, unit: str, sign: str) -> dict[str, Any]:
    return {
        "min": float(values[0]),
        "max": float(values[-1]),
        "n": len(values),
        "unit": unit,
        "sign": sign,
    }


def write_maps(
    maps: Maps, directory: str | os.PathLike[str], formats: Sequence[str] | str, *, force: bool
) -> list[Path]:
    """Write the tables and maps.json into `directory`; returns the paths written."""
    chosen = check_formats(formats)
    folder = check_output(directory, where="directory", folder=True)
    if "parquet" in chosen:
        from suspension_sim.replay.writers import parquet_module

        parquet_module()  # the install hint before anything is written
    targets: list[Path] = []
    files: dict[str, dict[str, str]] = {}
    for name in maps.corners:
        files[name] = {}
        for fmt in chosen:
            p = folder / f"{file_stem(name)}.{fmt}"
            files[name][fmt] = p.name
            targets.append(p)
    targets.append(folder / DESCRIPTION)
    for p in targets:
        refuse_existing(p, force=force, where="directory", what="a map")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {folder}: {exc.strerror}", where="directory") from None
    written: list[Path] = []
    for name, m in maps.corners.items():
        table = m.table()
        for fmt in chosen:
            p = folder / files[name][fmt]
            if fmt == "csv":
                _atomic(p, lambda tmp, t=table: t.to_csv(tmp, index=False))
            else:
                _atomic(p, lambda tmp, t=table: t.to_parquet(tmp, index=False))
            written.append(p)
    text = json.dumps(description(maps, files), indent=2, allow_nan=False) + "\n"
    _atomic(folder / DESCRIPTION, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    written.append(folder / DESCRIPTION)
    return written


def _atomic(path: Path, write: Any) -> None:
    try:
        with atomic_path(path, suffix=path.suffix) as tmp:
            write(tmp)
    except NotWritableError as exc:
        raise InputError(f"{path} {exc.strerror}", where="directory") from None
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror}", where="directory") from None


def read_maps(directory: str | os.PathLike[str]) -> Maps:
    """Maps from a folder written by `write_maps` (each corner's Parquet if it was
    written and pyarrow is there, else its CSV). A file that does not match maps.json
    is an `InputError` naming it."""
    import pandas as pd

    folder = Path(directory)
    desc_path = folder / DESCRIPTION
    try:
        desc = json.loads(desc_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(
            f"no {DESCRIPTION} in {folder}", where=str(folder), hint="give a folder written by maps"
        ) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {desc_path}: {exc}", where=str(desc_path)) from None
    if not isinstance(desc, dict) or desc.get("format") != FORMAT:
        raise InputError("not a kinematic maps description", where=str(desc_path))
    if desc.get("format_version") != FORMAT_VERSION:
        raise InputError(
            f"maps format version {desc.get('format_version')!r}; this version reads "
            f"{FORMAT_VERSION}",
            where=str(desc_path),
        )
    corners: dict[str, CornerMap] = {}
    for name, c in desc["corners"].items():
        files = c.get("files", {})
        path = None
        if "parquet" in files and (folder / files["parquet"]).is_file():
            try:
                import pyarrow  # noqa: F401

                path = folder / files["parquet"]
            except ImportError:
                path = None
        if path is None and "csv" in files:
            path = folder / files["csv"]
        if path is None:
            raise InputError(f"corner {name} has no table", where=str(desc_path))
        if not path.is_file():
            raise InputError(f"corner {name}: its table is missing", where=str(path))
        try:
            if path.suffix == ".parquet":
                table = pd.read_parquet(path)
            else:
                table = pd.read_csv(path, keep_default_na=False, na_values=["", "NaN", "nan"])
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the table: {exc}", where=str(path)) from None
        ax = c["axes"]
        tv = np.linspace(ax["travel"]["min"], ax["travel"]["max"], ax["travel"]["n"])
        rv = None
        shape: tuple[int, ...] = (len(tv),)
        if ax.get("rack"):
            rv = np.linspace(ax["rack"]["min"], ax["rack"]["max"], ax["rack"]["n"])
            shape = (len(tv), len(rv))
        need = [TRAVEL.header] + ([RACK.header] if rv is not None else [])
        need += [f.header for f in FIELDS] + [REASON]
        missing = [h for h in need if h not in table.columns]
        if missing or len(table) != int(np.prod(shape)):
            raise InputError(
                f"the table does not match {DESCRIPTION}: "
                + (
                    f"missing column {missing[0]!r}"
                    if missing
                    else f"{len(table)} rows, expected {int(np.prod(shape))}"
                ),
                where=str(path),
            )
        t_read = table[TRAVEL.header].to_numpy(dtype=float).reshape(shape)
        expect_t = tv if rv is None else np.broadcast_to(tv[:, None], shape)
        if not np.allclose(t_read, expect_t, rtol=0, atol=1e-9 * max(1.0, float(np.ptp(tv)))):
            raise InputError(f"its travel column does not match {DESCRIPTION}", where=str(path))
        if rv is not None:
            r_read = table[RACK.header].to_numpy(dtype=float).reshape(shape)
            if not np.allclose(
                r_read, np.broadcast_to(rv, shape), rtol=0, atol=1e-9 * max(1.0, float(np.ptp(rv)))
            ):
                raise InputError(f"its rack column does not match {DESCRIPTION}", where=str(path))
        values = {
            f.name: table[f.header].to_numpy(dtype=float).reshape(shape).copy() for f in FIELDS
        }
        reason = np.array(
            ["" if (isinstance(r, float) and math.isnan(r)) else str(r) for r in table[REASON]],
            dtype=object,
        ).reshape(shape)
        corner = Corner(name, c["damper"], c["axle"], c["side"], bool(c["steered"]), float("nan"))
        accuracy = {
            q: {k: v for k, v in e.items() if k != "unit"} for q, e in c.get("accuracy", {}).items()
        }
        corners[name] = CornerMap(
            corner, tv, rv, values, reason, accuracy, float(c.get("half_track_design_mm", 0.0))
        )
    return Maps(str(desc.get("car", "")), desc.get("workbook"), corners)
