"""The progress bar of ``suspension-sim warm-up``: the compile process's lines shown.

`follow` reads the progress lines `solve.warmup.run_compile` prints (``PLAN``,
``STEP``, ``LANE``, ``GROUP``, ``WAIT``, ``DONE``, ``SKIP``, ``FAIL``) and draws them as a tqdm bar,
redrawn every second while a long step runs (`ticking`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, Any


def follow(lines: IO[str], progress: bool, stream: IO[str]) -> int:
    """Show the child's progress lines as a bar; returns 1 when it reported a failure."""
    from tqdm import tqdm

    bar: Any = None
    last = 0.0  # the weight of the step running
    code = 0
    other: list[str] = []
    with contextlib.ExitStack() as stack:
        for raw in lines:
            line = raw.rstrip("\n")
            word, _, rest = line.partition(" ")
            if word == "PLAN":
                total = float(rest.split(" ")[1])
                bar = stack.enter_context(
                    tqdm(
                        total=total,
                        desc="compiling kernels",
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}",
                        file=stream,
                        disable=not progress,
                    )
                )
                stack.enter_context(ticking(bar))
            elif word == "STEP" and bar is not None:
                weight, label = rest.split(" ", 1)
                bar.update(last)
                last = float(weight)
                bar.set_postfix_str(label)
            elif word == "LANE" and bar is not None:  # done by the second process
                bar.update(float(rest.split(" ", 1)[0]))
            elif word == "GROUP":  # the solvers are in use from here on; the rest follows
                if bar is not None:
                    bar.set_postfix_str(f"{rest} kernels ready")
            elif word == "WAIT":
                print("waiting for the compile already running in another process", file=stream)
            elif word in ("DONE", "SKIP"):
                if bar is not None:
                    bar.update(bar.total - bar.n)
                if word == "SKIP" or rest != "compiled":
                    print(rest, file=stream)
            elif word == "FAIL":
                code = 1
                print(f"compile failed: {rest}", file=stream)
            else:
                other.append(line)
    if code and other:
        print("\n".join(other[-20:]), file=stream)
    return code


@contextlib.contextmanager
def ticking(bar: Any) -> Iterator[None]:
    """Redraw `bar` every second (its elapsed time) while a long step runs."""
    import threading

    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(1.0):
            with contextlib.suppress(Exception):
                bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
