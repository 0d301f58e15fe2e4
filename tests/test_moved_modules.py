"""Module paths of 0.1 still import (with a DeprecationWarning) as their 0.2 modules."""

from __future__ import annotations

import importlib
import sys

import pytest

from suspension_sim.moved import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_is_the_new_module(old: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\.")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])


def test_documented_old_import_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "suspension_sim.motions", raising=False)
    with pytest.warns(DeprecationWarning):
        from suspension_sim.motions import span
    assert span(-1.0, 1.0, 3) == [-1.0, 0.0, 1.0]


def test_an_unknown_module_is_still_an_import_error() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("suspension_sim.no_such_module")
