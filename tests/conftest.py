"""Shared fixtures: a small valid workbook written with openpyxl.

`make_workbook(edits)` writes a quarter-car workbook into tmp_path, with
`edits` ({"Sheet!Cell": value, None clears}) applied before saving, so a test
can corrupt exactly one cell. The layout deliberately differs from the
writer's: the index table is not at A1, User Options sits on the index sheet
(unqualified range), three sections share a `Geometry` sheet, Hard Points has
a quoted sheet name and a blank row, and notes sit outside every range.

Where things are (cells a test may edit):

- Index: note A1; index header B3:C3; rows 4-9 = User Options, Components,
  Hard Points, Wheels, Steering, Damping (names in B, ranges in C).
- Index!E3:F9 User Options: E4 Length unit, E5 Angle unit, E6 Force unit,
  E7 Axis map, E8 CG height, E9 Car name (values in F).
- Geometry!A1:G8 Components: rows 2-8 = Chassis, Upper wishbone,
  Lower wishbone, Upright, Tie rod, Rack, Damper.
- 'Hard Points'!B2:E16: header row 2, points in rows 3-7 and 9-16 (row 8
  blank), in the order of SMALL_POINTS.
- Geometry!A11:H12 Wheels (row 12 = FL), Geometry!A15:D16 Steering (row 16,
  end points blank), Geometry!A19:E20 Damping (row 20).
"""

from __future__ import annotations

import os

# One BLAS thread per test worker, set before numpy loads OpenBLAS: the workers already
# fill the cores, and OpenBLAS threads busy-wait when the cores are oversubscribed (a
# small SVD then takes ~70 ms instead of ~0.1 ms). The CLI does the same (cli.main).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import openpyxl
import pytest

SMALL_POINTS: dict[str, tuple[float, float, float]] = {
    "UF": (150.0, 250.0, 300.0),
    "UR": (-150.0, 250.0, 300.0),
    "LF": (150.0, 200.0, 120.0),
    "LR": (-150.0, 200.0, 120.0),
    "UB": (0.0, 550.0, 320.0),
    "LB": (0.0, 570.0, 110.0),
    "TI": (60.0, 220.0, 150.0),
    "TO": (60.0, 560.0, 150.0),
    "WC": (0.0, 600.0, 230.0),
    "WA": (0.0, 650.0, 230.0),
    "DC": (0.0, 280.0, 500.0),
    "DM": (0.0, 450.0, 130.0),
    "RE": (60.0, -220.0, 150.0),
}
"""Points of the small workbook (mm, identity axis map)."""

SMALL_BODIES: dict[str, tuple[str, ...]] = {
    "Chassis": ("UF", "UR", "LF", "LR", "DC"),
    "Upper wishbone": ("UF", "UR", "UB"),
    "Lower wishbone": ("LF", "LR", "LB", "DM"),
    "Upright": ("UB", "LB", "TO", "WC", "WA"),
    "Tie rod": ("TI", "TO"),
    "Rack": ("TI", "RE"),
    "Damper": ("DC", "DM"),
}

POINT_ROWS: dict[str, int] = {
    name: row
    for name, row in zip(SMALL_POINTS, [3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16], strict=True)
}
"""Row of each point in 'Hard Points' (row 8 is blank)."""


def _cells() -> dict[str, Any]:
    """Every cell of the valid small workbook, as {"Sheet!Cell": value}."""
    cells: dict[str, Any] = {
        "Index!A1": "Quarter-car test workbook. Notes outside the ranges are ignored.",
        "Index!B3": "Section",
        "Index!C3": "Range",
        "Index!B4": "User Options",
        "Index!C4": "E3:F9",
        "Index!B5": "Components",
        "Index!C5": "Geometry!A1:G8",
        "Index!B6": "Hard Points",
        "Index!C6": "'Hard Points'!B2:E16",
        "Index!B7": "Wheels",
        "Index!C7": "Geometry!A11:H12",
        "Index!B8": "Steering",
        "Index!C8": "Geometry!A15:D16",
        "Index!B9": "Damping",
        "Index!C9": "Geometry!A19:E20",
        "Index!E3": "Option",
        "Index!F3": "Value",
        "Index!E4": "Length unit",
        "Index!F4": "mm",
        "Index!E5": "Angle unit",
        "Index!F5": "deg",
        "Index!E6": "Force unit",
        "Index!F6": "N",
        "Index!E7": "Axis map",
        "Index!F7": "+X +Y +Z",
        "Index!E8": "CG height",
        "Index!F8": 280,
        "Index!E9": "Car name",
        "Index!F9": "Quarter car",
        "Index!H4": "<- CAD export units (a note)",
        "Geometry!A1": "Body",
        "Geometry!B1": "Points",
        "Geometry!I1": "notes beside the data are ignored",
        "Hard Points!A1": "Hard points from CAD rev 3",
        "Hard Points!B2": "Point",
        "Hard Points!C2": "X",
        "Hard Points!D2": "Y",
        "Hard Points!E2": "Z",
        "Hard Points!G2": "a note",
        "Hard Points!G9": 12345,
    }
    for r, (body, points) in enumerate(SMALL_BODIES.items(), start=2):
        cells[f"Geometry!A{r}"] = body
        for c, p in enumerate(points):
            cells[f"Geometry!{'BCDEFG'[c]}{r}"] = p
    for name, (x, y, z) in SMALL_POINTS.items():
        r = POINT_ROWS[name]
        cells.update(
            {
                f"Hard Points!B{r}": name,
                f"Hard Points!C{r}": x,
                f"Hard Points!D{r}": y,
                f"Hard Points!E{r}": z,
            }
        )
    wheel = ["Wheel", "Body", "Centre point", "Axis point", "Tyre radius", "Tyre width"]
    wheel += ["Kingpin lower", "Kingpin upper"]
    _row(cells, "Geometry", 11, wheel)
    _row(cells, "Geometry", 12, ["FL", "Upright", "WC", "WA", 230, 180, "LB", "UB"])
    _row(cells, "Geometry", 15, ["Rack body", "End point 1", "End point 2", "Steering ratio"])
    _row(cells, "Geometry", 16, ["Rack", None, None, 0.5])
    damping = ["Damper body", "Chassis point", "Moving point", "Min length", "Max length"]
    _row(cells, "Geometry", 19, damping)
    _row(cells, "Geometry", 20, ["Damper", "DC", "DM", 350, 450])
    return cells


def _row(cells: dict[str, Any], sheet: str, row: int, values: list[Any]) -> None:
    for c, v in enumerate(values):
        if v is not None:
            cells[f"{sheet}!{'ABCDEFGH'[c]}{row}"] = v


def write_workbook(path: Path, edits: Mapping[str, Any] | None = None) -> Path:
    """Write the small workbook to `path` with `edits` applied (None clears a cell)."""
    cells = _cells()
    cells.update(edits or {})
    wb = openpyxl.Workbook()
    wb.active.title = "Index"
    for name in ("Geometry", "Hard Points"):
        wb.create_sheet(name)
    for ref, value in cells.items():
        sheet, cell = ref.rsplit("!", 1)
        if sheet not in wb.sheetnames:
            wb.create_sheet(sheet)
        wb[sheet][cell] = value
    wb.save(path)
    return path


os.environ["SUSPENSION_SIM_BACKGROUND_COMPILE"] = "0"
"""Set on import, before any test module copies the environment for its processes: a
test run never starts a background compile (`compiled_kernels` compiles once instead)."""


@pytest.fixture(scope="session", autouse=True)
def cache_folder(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """Every test (and every process it starts) caches into one temporary folder per
    test run, shared by the xdist workers, never ~/.cache; no background compiles.
    Session-scoped, so it is in place before any other fixture. The compiled kernels
    are put there once per run before any test starts (`compiled_kernels`)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker's folder is in the run's
        root = root.parent
    folder = root / "suspension_sim_cache"
    folder.mkdir(mode=0o700, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SUSPENSION_SIM_CACHE_DIR", str(folder))
        patch.setenv("SUSPENSION_SIM_BACKGROUND_COMPILE", "0")
        compiled_kernels(folder, request.config)
        yield folder


KERNEL_STORE = "suspension_sim_kernels"
"""pytest's cache folder (``.pytest_cache/d/...``) keeps the compiled kernels between
runs of this checkout (valid while the kernel sources, Python and numba are the same)."""


def compiled_kernels(folder: Path, config: pytest.Config) -> None:
    """Put the compiled numba kernels into the run's cache folder, once per run: the
    first worker copies them from pytest's cache (`KERNEL_STORE`) or compiles them
    (`suspension-sim warm-up`, both cores), under a lock; the other workers wait for it
    and find them there. A failed compile only warns: the tests that need a kernel
    then compile it themselves."""
    import io
    import sys
    import warnings

    from suspension_sim import cache
    from suspension_sim.solve import warmup

    code = warmup.code_folder()
    base = None if code is None else cache.private_code_dir(code.name)
    if base is None:
        return
    lock = warmup.Lock(folder / "tests-kernels.lock")
    lock.acquire(wait=True)
    try:
        if warmup.on_disk():
            return
        pytest_cache = getattr(config, "cache", None)
        store = pytest_cache.mkdir(KERNEL_STORE) if pytest_cache is not None else None
        if store is not None and warmup.copy_compiled(store, base) and warmup.verified():
            return
        print(  # the first run of a checkout: about a minute, said (pytest shows nothing)
            f"compiling the numba kernels once for this checkout into {base} (about a minute; "
            f"later runs copy them from .pytest_cache/d/{KERNEL_STORE})",
            file=sys.__stderr__,
            flush=True,
        )
        out = io.StringIO()
        if warmup.warm_up(progress=False, out=out) != 0:
            warnings.warn(f"compiling the kernels failed: {out.getvalue()}", stacklevel=2)
            return
        if store is not None:
            warmup.copy_compiled(base, store)
    finally:
        lock.release()


@pytest.fixture
def make_workbook(tmp_path: Path) -> Callable[..., Path]:
    """``make_workbook(edits=None, name="car.xlsx") -> Path`` of a small valid workbook."""

    def make(edits: Mapping[str, Any] | None = None, name: str = "car.xlsx") -> Path:
        return write_workbook(tmp_path / name, edits)

    return make


@pytest.fixture
def small_points() -> dict[str, tuple[float, float, float]]:
    """The small workbook's points (mm, model frame)."""
    return dict(SMALL_POINTS)


@pytest.fixture
def small_bodies() -> dict[str, tuple[str, ...]]:
    """The small workbook's bodies and their points, in order."""
    return dict(SMALL_BODIES)


@pytest.fixture
def point_rows() -> dict[str, int]:
    """Row of each point on the 'Hard Points' sheet."""
    return dict(POINT_ROWS)


@pytest.fixture(scope="module")
def rendering() -> None:
    """Skip the render tests (not the whole run) where this machine cannot render."""
    from suspension_sim.errors import RenderingUnavailableError
    from suspension_sim.viz import probe as viz_probe

    try:
        viz_probe.ensure_rendering()
    except RenderingUnavailableError as exc:
        if os.environ.get("CI"):  # CI must render: .ci/run installs Mesa's EGL
            raise
        pytest.skip(f"no off-screen rendering on this machine: {exc.render()}")
