"""Matching names people type against the names a workbook or API knows.

One rule everywhere: exact match first, then the same name ignoring case
(and, where asked, spaces and underscores), then a "did you mean" suggestion
from difflib with one cut-off.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

SUGGEST_CUTOFF = 0.6
"""difflib similarity above which a near miss is suggested."""


def loose_key(text: str) -> str:
    """Case-, space- and underscore-insensitive key: ``"FL Damper"`` ~ ``"fl_damper"``."""
    return re.sub(r"[\s_]+", "", text.strip().casefold())


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice `name` most likely meant (case-insensitive first), or None."""
    options = list(choices)
    for c in options:
        if c.casefold() == name.casefold():
            return c
    for c in options:
        if loose_key(c) == loose_key(name):
            return c
    near = difflib.get_close_matches(name, options, n=1, cutoff=SUGGEST_CUTOFF)
    return near[0] if near else None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``" Did you mean 'X'?"`` for a near miss, else ``""`` (to append to a message)."""
    options = list(choices)
    match = closest(name, options)
    if match is None or match == name:
        return ""
    if match.casefold() == name.casefold():
        return f" Did you mean {match!r}? (names are case-sensitive)"
    return f" Did you mean {match!r}?"
