"""The compile lock file (`Lock`): one compile at a time, across processes.

Used by `solve.warmup` for ``compile.lock`` in the code folder. The lock is the
operating system's (fcntl.flock / msvcrt.locking), so it is released when its
process ends, however it ends.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from pathlib import Path
from typing import IO, Any


class Lock:
    """An exclusive lock on a file (fcntl.flock / msvcrt.locking); released when the
    process ends, however it ends, so a killed compile never leaves it held."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._f: IO[bytes] | None = None

    def acquire(self, wait: bool) -> bool:
        """Take the lock; False when `wait` is False and another process holds it."""
        try:
            f = open(self.path, "a+b")  # noqa: SIM115 - held until release
        except OSError:
            return False
        try:
            if os.name == "nt":  # pragma: no cover - Windows
                msvcrt: Any = importlib.import_module("msvcrt")
                mode = msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK
                while True:
                    try:
                        f.seek(0)
                        msvcrt.locking(f.fileno(), mode, 1)
                        break
                    except OSError:
                        if not wait:
                            raise
            else:
                import fcntl

                fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            f.close()
            return False
        self._f = f
        return True

    def release(self) -> None:
        if self._f is not None:
            with contextlib.suppress(OSError):
                if os.name == "nt":  # pragma: no cover - Windows
                    msvcrt: Any = importlib.import_module("msvcrt")
                    self._f.seek(0)
                    msvcrt.locking(self._f.fileno(), msvcrt.LK_UNLCK, 1)
            self._f.close()
            self._f = None
