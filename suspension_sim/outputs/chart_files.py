"""Chart files: the figures of `suspension_sim.outputs.figures` written as PNG.

`plot_sweep` and `plot_table` write every standard chart of a table into a folder
(created if needed, its parent must exist); each ``*_chart`` function writes one
figure; `save_figure` writes any figure atomically (an interrupted run leaves the
old file; a link is written through), as PNG at `figures.DPI`. `save_figures` writes
several built figures, `draw_plan` builds and writes the charts of a
`figures.figure_plan` one after the other on reused figures
(`figures.reused_figures`); both on two cores where they can (`in_two_processes`; a
four-panel chart costs ~0.1 s of CPU): the same files, byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import atomic_path
from suspension_sim.outputs.chart_units import DEFAULT_UNITS, OutputUnits
from suspension_sim.outputs.figures import (
    DPI,
    FigureBuilder,
    figure_plan,
    line_figure,
    reused_figures,
    roll_centre_figure,
    wheel_figure,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from suspension_sim.sweeps import SweepResult


T = TypeVar("T")

PNG_COMPRESS_LEVEL = 1
"""zlib level of the PNG files (lossless at any level): 1 encodes a chart in ~19 ms
where the default 6 takes ~35 ms (a sixth of a chart), for files ~7 % larger."""


def save_figure(fig: Figure, path: str | os.PathLike[str], *, option: str = "path") -> Path:
    """Write `fig` as a PNG at `path` (atomically; a link is written through).

    The format is PNG whatever the file ending. InputError naming `option`
    when the file cannot be written.
    """
    out = Path(path)
    try:
        with atomic_path(out) as tmp:
            fig.savefig(
                tmp, dpi=DPI, format="png", pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL}
            )
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror}", where=option) from None
    return out


FORK_FROM = 3
"""`save_figures` and `plot_table` draw this many figures or more in two processes
(fewer: the fork costs more than it saves)."""


def can_fork() -> bool:
    """True where a forked child may draw figures: Linux (fork without exec is safe
    there for this process), two cores or more for this process, and no other thread
    running (a fork copies only the calling thread, and locks another one holds)."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except OSError:  # pragma: no cover
        return False


def in_two_processes(
    items: Sequence[T], work: Callable[[T], Path | None], *, reuse: bool = False
) -> list[Path | None]:
    """`work(item)` for every item, in order: what each returned (a file written, or
    None). With `FORK_FROM` items or more on a machine with two cores (`can_fork`), a
    forked child does every second item (the first, third, ...) while this process does
    the others, and says through a pipe what it wrote. A child that fails is not
    trusted: this process then does its items itself, so an error is raised here, as
    without the child. reuse: each process draws inside `figures.reused_figures` (`work`
    saves its figure before returning)."""
    if len(items) < FORK_FROM or not can_fork():
        with reused_figures() if reuse else contextlib.nullcontext():
            return [work(item) for item in items]
    # the child takes the first item and every second one after it: this process pays
    # for the fork before its first item
    theirs, mine = list(range(0, len(items), 2)), list(range(1, len(items), 2))
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow os._exit)
        code = 1
        try:
            os.close(read_end)
            with reused_figures() if reuse else contextlib.nullcontext():
                done = [work(items[k]) for k in theirs]
            with os.fdopen(write_end, "w", encoding="utf-8") as out:
                out.write(json.dumps([None if p is None else str(p) for p in done]))
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    results: list[Path | None] = [None] * len(items)
    try:
        with reused_figures() if reuse else contextlib.nullcontext():
            for k in mine:
                results[k] = work(items[k])
    finally:
        with os.fdopen(read_end, encoding="utf-8") as pipe:
            said = pipe.read()
        _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and said:
        for k, path in zip(theirs, json.loads(said), strict=True):
            results[k] = None if path is None else Path(path)
    else:
        with reused_figures() if reuse else contextlib.nullcontext():
            for k in theirs:
                results[k] = work(items[k])
    return results


def save_figures(items: Sequence[tuple[Figure, Path]], *, option: str = "path") -> list[Path]:
    """`save_figure` for every (figure, path), in order; the paths written.

    With `FORK_FROM` figures or more on a machine with two cores, a forked child draws
    every second figure while this process draws the others (`in_two_processes`): the
    figures are already built, so both write exactly what one process would.
    """
    done = in_two_processes(items, lambda item: save_figure(item[0], item[1], option=option))
    return [p for p in done if p is not None]


def draw_plan(
    plan: Sequence[tuple[str, FigureBuilder]], directory: Path, *, option: str = "directory"
) -> list[Path]:
    """Build and save every chart of a `figures.figure_plan` as ``<stem>.png`` in
    `directory`, one after the other on one reused figure per shape, in two processes
    (`in_two_processes`); the files written, in the plan's order (charts without data
    are left out)."""

    def work(item: tuple[str, FigureBuilder]) -> Path | None:
        stem, build = item
        fig = build()
        return None if fig is None else save_figure(fig, directory / f"{stem}.png", option=option)

    return [p for p in in_two_processes(plan, work, reuse=True) if p is not None]


def plot_sweep(
    result: SweepResult,
    directory: str | os.PathLike[str],
    *,
    units: OutputUnits = DEFAULT_UNITS,
    against_travel: bool = False,
    plot_x: str | None = None,
    plot_y: Sequence[str] = (),
) -> list[Path]:
    """Write the charts of a sweep result into `directory` (created if needed).

    x = the first swept variable (or `plot_x`); a grid's second variable gives
    one line per value. `plot_y`: columns for an extra chart against x.
    Returns the files written (charts whose columns are all missing or NaN are
    left out).
    """
    return plot_table(
        **sweep_charts(
            result,
            directory,
            units=units,
            against_travel=against_travel,
            plot_x=plot_x,
            plot_y=plot_y,
        )
    )


def sweep_charts(
    result: SweepResult,
    directory: str | os.PathLike[str],
    *,
    units: OutputUnits = DEFAULT_UNITS,
    against_travel: bool = False,
    plot_x: str | None = None,
    plot_y: Sequence[str] = (),
) -> dict[str, Any]:
    """The arguments of `plot_table` that `plot_sweep` calls it with (plain data: they
    can be sent to another process, `chart_worker.ChartWorker.plot_table`)."""
    table = result.table.reset_index()
    return {
        "table": table,
        "x": plot_x or result.columns[0],
        "directory": directory,
        "wheels": _wheels(result, table),
        "series": result.columns[1] if len(result.columns) > 1 else None,
        "title": result.spec.name,
        "units": units,
        "against_travel": against_travel,
        "plot_y": list(plot_y),
    }


def _wheels(result: SweepResult, table: pd.DataFrame) -> list[str]:
    if result.model is not None:
        return [w.name for w in result.model.car.wheels]
    return sorted({c.split("_")[1] for c in table.columns if c.startswith("camber_")})


def plot_table(
    table: pd.DataFrame,
    x: str,
    directory: str | os.PathLike[str],
    *,
    wheels: Sequence[str],
    series: str | None = None,
    title: str = "",
    charts: Sequence[str] | None = None,
    option: str = "directory",
    units: OutputUnits = DEFAULT_UNITS,
    against_travel: bool = False,
    plot_y: Sequence[str] = (),
) -> list[Path]:
    """Per-wheel charts and the roll-centre chart of any metrics table, as
    ``<stem>.png`` files in `directory` (created if needed).

    series: a column whose values give one line each: numbers (a grid's
    second variable, ``rack [mm] = 10``) or text labels (e.g. a ``car``
    column: the text is the legend). charts: file stems to draw (default:
    `CHART_STEMS`; ``ackermann`` and ``antis`` only for steer and pitch
    motions). `option` names the folder in error messages. See `table_figures`.
    """
    out_dir = Path(directory)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"{out_dir} is a file, not a folder", where=option)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create folder {out_dir}: {exc.strerror}", where=option) from None
    plan = figure_plan(
        table,
        x,
        wheels=wheels,
        series=series,
        title=title,
        charts=charts,
        units=units,
        against_travel=against_travel,
        plot_y=plot_y,
    )
    return draw_plan(plan, out_dir, option=option)


def wheel_chart(
    table: pd.DataFrame,
    x: str,
    columns: dict[str, str],
    path: str | os.PathLike[str],
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Path | None:
    """`wheel_figure` written to `path` as PNG; None (nothing written) if there is no data."""
    fig = wheel_figure(table, x, columns, series=series, title=title, units=units)
    return None if fig is None else save_figure(fig, path)


def roll_centre_chart(
    table: pd.DataFrame,
    x: str,
    path: str | os.PathLike[str],
    *,
    series: str | None = None,
    title: str = "",
    units: OutputUnits = DEFAULT_UNITS,
) -> Path | None:
    """`roll_centre_figure` written to `path` as PNG; None if there is no data."""
    fig = roll_centre_figure(table, x, series=series, title=title, units=units)
    return None if fig is None else save_figure(fig, path)


def line_chart(
    table: pd.DataFrame,
    x: str,
    columns: Sequence[str],
    path: str | os.PathLike[str],
    *,
    title: str = "",
    ylabel: str | None = None,
    units: OutputUnits = DEFAULT_UNITS,
) -> Path | None:
    """`line_figure` written to `path` as PNG (folder created); None if there is no data."""
    fig = line_figure(table, x, columns, title=title, ylabel=ylabel, units=units)
    if fig is None:
        return None
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    return save_figure(fig, out)
