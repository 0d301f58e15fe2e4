"""When a process loads the compiled kernel: `engine.hold_load` and the load clock.

In-process, with a fake clock and a recorder in place of the load, so nothing here
imports numba: the rule (docs/model.md, "Lazy load") is that the third question to
`kernel_compiled` loads once the process has been asking for `LOAD_AFTER_S`; inside
`hold_load` nothing is loaded, no question counts, and the held time is off the clock.
"""

from __future__ import annotations

import sys
import types

import pytest

from suspension_sim.solve import engine


class Clock:
    """A stand-in for `time.perf_counter`, moved by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> tuple[Clock, list[int]]:
    """engine's load state as in a new process without a loaded kernel; returns the
    clock and the list of questions at which a load was attempted."""
    clock = Clock()
    loads: list[int] = []
    monkeypatch.delitem(sys.modules, "suspension_sim.solve.kernel", raising=False)
    monkeypatch.setattr(engine, "time", types.SimpleNamespace(perf_counter=clock))
    for name, value in (
        ("_READY", False),
        ("_QUESTIONS", 0),
        ("_FIRST_ASKED", -1.0),
        ("_LOAD_TRIED", False),
        ("_HELD", 0),
        ("_HELD_SINCE", -1.0),
        ("LOAD_AT_QUESTION", 3),
        ("LOAD_AFTER_S", 0.5),
    ):
        monkeypatch.setattr(engine, name, value)
    monkeypatch.setattr(engine, "load_kernel_if_cached", lambda: loads.append(engine._QUESTIONS))
    return clock, loads


def test_the_third_question_after_half_a_second_loads(fresh: tuple[Clock, list[int]]) -> None:
    clock, loads = fresh
    assert not engine.kernel_compiled()  # first solve: both questions
    assert not engine.kernel_compiled()
    assert not engine.kernel_compiled()  # second solve, 0 s in: too early
    assert loads == []
    clock.now += 0.6
    assert not engine.kernel_compiled()
    assert loads == [4]


def test_nothing_loads_inside_hold_load(fresh: tuple[Clock, list[int]]) -> None:
    clock, loads = fresh
    with engine.hold_load():
        for _ in range(10):
            clock.now += 0.2
            assert not engine.kernel_compiled()
        with engine.hold_load():  # nested
            assert not engine.kernel_compiled()
        assert not engine.kernel_compiled()
    assert loads == [] and engine._QUESTIONS == 0  # held questions do not count
    engine.kernel_compiled()
    engine.kernel_compiled()
    clock.now += 0.5
    engine.kernel_compiled()
    assert loads == [3]


def test_held_time_is_off_the_clock(fresh: tuple[Clock, list[int]]) -> None:
    """A short sweep asks, then other work runs held for 2 s: the clock stands still
    meanwhile, so 0.3 s of solving afterwards is not yet the 0.5 s the load needs."""
    clock, loads = fresh
    engine.kernel_compiled()
    engine.kernel_compiled()
    clock.now += 0.1
    with engine.hold_load():
        clock.now += 2.0
        engine.kernel_compiled()
    clock.now += 0.3
    engine.kernel_compiled()
    assert loads == []  # 0.4 s outside the hold
    clock.now += 0.15
    engine.kernel_compiled()
    assert loads == [4]  # 0.55 s outside the hold


def test_a_kernel_module_still_importing_is_not_loaded(
    fresh: tuple[Clock, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another thread importing the kernel: its module is in sys.modules without its
    functions yet; the answer is False, not an AttributeError."""
    half = types.ModuleType("suspension_sim.solve.kernel")
    monkeypatch.setitem(sys.modules, "suspension_sim.solve.kernel", half)
    assert engine.kernel_compiled() is False
    done = types.SimpleNamespace(signatures=[("float64",)])
    half.solve_sequence = done  # type: ignore[attr-defined]
    assert engine.kernel_compiled() is False  # solve_single not there yet
    half.solve_single = done  # type: ignore[attr-defined]
    assert engine.kernel_compiled() is True
