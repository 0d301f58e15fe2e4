"""A chart worker: a process forked when a command starts, that loads matplotlib while the
command solves, then draws the charts it is sent.

``sweep --plot`` and ``compare`` spend about 0.25 s of CPU importing matplotlib and
reading its fonts before the first chart. Started before the car is read
(`ChartWorker.start`), the worker does that on the second core while this process reads
the car and solves the sweep; `ChartWorker.plot_table` (or `submit`, other work, then
`result`) then sends it the table (pickled through a pipe) and the worker draws the
charts, in two processes from three charts on (`chart_files.plot_table` forks once more,
from a process that has matplotlib loaded).
What it writes is what `chart_files.plot_table` writes in this process, byte for byte.

Nothing is trusted that did not finish: when the worker cannot start (not Linux, one
core, a thread running), dies, or fails on the job (a bad column, a file that cannot be
written), this process draws the charts itself with `plot_table`, so any error is raised
here, as without the worker. A command that ends without charts (an error before them)
stops the worker at once (`close`): it has written nothing; one that fails after sending
the job waits for its charts (written whole, never half).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from suspension_sim.outputs.chart_files import can_fork, plot_table


class ChartWorker:
    """The forked worker (`start`): `plot_table` sends it one job, `close` ends it."""

    def __init__(self, pid: int, jobs: int, results: int) -> None:
        self.pid = pid
        self._jobs = jobs  # write end: this process -> worker (-1 once closed)
        self._results = results  # read end: worker -> this process (-1 once closed)
        self._job: dict[str, Any] | None = None
        self._failed = False
        self._done = False

    @classmethod
    def start(cls) -> ChartWorker | None:
        """Fork the worker (None where a fork is not safe or not worth it:
        `chart_files.can_fork`)."""
        if not can_fork():
            return None
        job_read, job_write = os.pipe()
        result_read, result_write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the worker (coverage does not follow os._exit)
            code = 1
            try:
                os.close(job_write)
                os.close(result_read)
                code = _serve(job_read, result_write)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(job_read)
        os.close(result_write)
        return cls(pid, job_write, result_read)

    def plot_table(self, **job: Any) -> list[Path]:
        """`chart_files.plot_table(**job)` drawn by the worker: the files written. If the
        worker fails, this process draws them itself (raising any error)."""
        self.submit(**job)
        return self.result()

    def submit(self, **job: Any) -> None:
        """Send the worker its job (`chart_files.plot_table`'s arguments) and return at
        once: this process may do other work meanwhile, then ask for the `result`."""
        if self._job is not None:
            raise RuntimeError("a chart worker takes one job")
        self._job = job
        try:
            with os.fdopen(self._jobs, "wb", closefd=False) as out:
                pickle.dump(job, out, protocol=pickle.HIGHEST_PROTOCOL)
        except (OSError, pickle.PickleError):
            self._failed = True
        os.close(self._jobs)
        self._jobs = -1

    def result(self) -> list[Path]:
        """Wait for the worker: the files it wrote. If it failed, or was sent nothing,
        this process draws the job itself (raising any error, as without a worker)."""
        if self._job is None:
            raise RuntimeError("no job was submitted")
        paths = self._answer()
        self.close()
        return plot_table(**self._job) if paths is None else paths

    def _answer(self) -> list[Path] | None:
        """The worker's answer: the paths, or None when it failed."""
        if self._failed or self._results < 0:
            return None
        try:
            with os.fdopen(self._results, "rb", closefd=False) as answer:
                got = pickle.load(answer)
        except (OSError, EOFError, pickle.PickleError):
            got = None
        os.close(self._results)
        self._results = -1
        return [Path(p) for p in got] if isinstance(got, list) else None

    def close(self) -> None:
        """End the worker. Sent no job, it is stopped at once (it has only loaded
        matplotlib); sent one, it is waited for (its files are written whole: the command
        may have failed after the job was sent, as without the worker, whose charts
        would have been written too). Safe to call twice."""
        if self._done:
            return
        self._done = True
        if self._job is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        else:
            self._answer()
        for fd in (self._jobs, self._results):
            if fd >= 0:
                os.close(fd)
        self._jobs = self._results = -1
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _serve(jobs: int, results: int) -> int:  # pragma: no cover - runs in the worker
    """The worker's life: load matplotlib and the font, read one job, draw it, answer
    (the paths written, or None after any error: the caller redoes the job)."""
    _warm_up(jobs)
    with os.fdopen(jobs, "rb") as incoming:
        try:
            job = pickle.load(incoming)
        except EOFError:  # the command ended without charts
            return 0
    try:
        answer: list[str] | None = [str(p) for p in plot_table(**job)]
    except Exception:
        answer = None
    with os.fdopen(results, "wb") as out:
        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
    return 0


def _warm_up(jobs: int) -> None:  # pragma: no cover - runs in the worker
    """What every chart needs first: matplotlib, the font, and the figure of the
    per-wheel charts made and drawn once (`figures.warm_up`), unless the job has come
    (the pipe `jobs` is readable): then the charts start at once."""
    from suspension_sim.outputs.figures import warm_up

    warm_up(stop=lambda: bool(select.select([jobs], [], [], 0)[0]))


@contextlib.contextmanager
def chart_worker(wanted: bool = True) -> Iterator[ChartWorker | None]:
    """A `ChartWorker` for the block (None when not `wanted` or where it cannot start),
    closed at the end however the block ends."""
    worker = ChartWorker.start() if wanted else None
    try:
        yield worker
    finally:
        if worker is not None:
            worker.close()


__all__ = ["ChartWorker", "chart_worker"]
