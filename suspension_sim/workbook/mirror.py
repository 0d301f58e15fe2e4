"""Symmetry: generate the right side of a car from its left side (docs/workbook.md).

One naming rule, used by the workbook reader (User Options ``Symmetry``) and by
the example sources (``symmetry = "mirror left to right"``):

* A name is split into words at anything that is not a letter or a digit
  (``_``, ``-``, ``.``, spaces). A word that is a *left token* (`LEFT_TOKENS`,
  compared case-insensitively) is replaced by its right token, in the same
  case style: ``FL_UCA_F`` -> ``FR_UCA_F``, ``RL Toe link`` -> ``RR Toe link``,
  ``LF_UBJ`` -> ``RF_UBJ``, ``UCA_L`` -> ``UCA_R``, ``Front Left`` -> ``Front Right``.
* A name with a left token is a *left* name: each left point, body, wheel and
  damper gets a right-hand twin. A point's twin is at model ``(x, -y, z)``
  (the model frame, after the axis map). Names without a left token (Chassis,
  Rack, a centre point) are shared: a shared body receives the twins of its
  left points, and the steering rack is left as written.
* Each twin follows the run of items it mirrors, so a left-side list
  ``FL.., RL..`` becomes ``FL.., FR.., RL.., RR..``.
* A right item that is also typed by hand is kept if it equals its twin (points
  within `SAME_PLACE_MM`) and is an error naming both places otherwise.
* Third springs follow the rule like dampers (a left-named one gets a twin, a
  centre one is kept). Anti-roll bars are never mirrored: a bar spans both
  sides, so it is declared once and may name the generated right arm
  (``Arm 2 = FR_ARB`` with only ``FL_ARB`` typed in Components).

Everything here works on the description records of `suspension_sim.description`
(lengths in mm, model frame).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from suspension_sim.description import Body, Car, Damper, Point, ThirdSpring, Wheel
from suspension_sim.errors import WorkbookError
from suspension_sim.tolerances import SAME_PLACE_MM

SYMMETRY_NONE = "none"
SYMMETRY_MIRROR = "mirror left to right"
SYMMETRY_CHOICES: dict[str, bool] = {SYMMETRY_NONE: False, SYMMETRY_MIRROR: True}
"""Words of the Symmetry option -> whether the right side is generated (first = default)."""

LEFT_TOKENS: dict[str, str] = {
    "FL": "FR",
    "RL": "RR",
    "LF": "RF",
    "LR": "RR",
    "L": "R",
    "LEFT": "RIGHT",
}
"""Left token -> right token (upper case; matched case-insensitively as whole words)."""

_WORD = re.compile(
    r"(?<![^\W_])(" + "|".join(sorted(LEFT_TOKENS, key=len, reverse=True)) + r")(?![^\W_])",
    re.IGNORECASE,
)
"""A left token as a whole word: not next to another letter or digit."""

_T = TypeVar("_T")


def left_tokens(name: str) -> tuple[str, ...]:
    """The left tokens in a name, upper case, in order (empty: a shared name)."""
    return tuple(m.group(1).upper() for m in _WORD.finditer(name))


def is_left(name: str) -> bool:
    """True when the name has a left token, i.e. Symmetry generates its twin."""
    return bool(left_tokens(name))


def right_name(name: str) -> str:
    """The twin's name: every left token replaced by its right token, case kept."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(1)
        right = LEFT_TOKENS[word.upper()]
        if word.isupper():
            return right
        if word.islower():
            return right.lower()
        return right.capitalize()

    return _WORD.sub(swap, name)


@dataclass(frozen=True)
class Generated:
    """How many right-side items Symmetry generated."""

    points: int = 0
    bodies: int = 0
    wheels: int = 0
    dampers: int = 0
    third_springs: int = 0

    def __bool__(self) -> bool:
        return any((self.points, self.bodies, self.wheels, self.dampers, self.third_springs))

    def summary(self) -> str:
        """One line for `check`: what was generated."""
        counts = ", ".join(
            f"{n} {what if n != 1 else what[:-1]}"
            for n, what in (
                (self.points, "points"),
                (self.bodies, "bodies"),
                (self.wheels, "wheels"),
                (self.dampers, "dampers"),
                (self.third_springs, "third springs"),
            )
            if n or what != "third springs"
        )
        if not self:
            return (
                f"Symmetry ({SYMMETRY_MIRROR}): generated nothing, no name has a left token"
                f" ({', '.join(LEFT_TOKENS)})"
            )
        return f"Symmetry ({SYMMETRY_MIRROR}): generated the right side: {counts}"


# -- the generic rule --------------------------------------------------------------------
def _place(item: object, where: str) -> str:
    source = getattr(item, "source", None)
    return str(source) if source is not None else where


def with_twins(
    items: Sequence[_T],
    key: Callable[[_T], str],
    twin: Callable[[_T], _T],
    same: Callable[[_T, _T], bool],
    what: str,
    where: str = "",
) -> tuple[list[_T], int]:
    """`items` with each run of same-side left items followed by their twins.

    A twin whose name is already typed is dropped when `same(typed, twin)`, and
    is a `WorkbookError` naming both places otherwise. Returns the list and the
    number of twins added. `where` names the place of items without a source.
    """
    typed = {key(i): i for i in items}
    made: dict[str, _T] = {}
    out: list[_T] = []
    run: list[_T] = []
    run_side: tuple[str, ...] = ()

    def flush() -> None:
        for left in run:
            t = twin(left)
            name = key(t)
            if name in made:
                raise WorkbookError(
                    f"Symmetry: {what}s {key(made[name])!r} and {key(left)!r} both mirror to"
                    f" {name!r} ({_place(made[name], where)} and {_place(left, where)})",
                    where=_place(left, where),
                    hint="rename one of them so that the right-side names differ",
                )
            made[name] = left
            if name in typed:
                if not same(typed[name], t):
                    raise WorkbookError(
                        f"Symmetry: {what} {name!r} is typed at {_place(typed[name], where)}"
                        f" and differs from the mirror of {key(left)!r} at"
                        f" {_place(left, where)}",
                        where=_place(typed[name], where),
                        hint=f"delete the {what} {name!r} (Symmetry generates it), or set"
                        f" Symmetry to {SYMMETRY_NONE!r} and type both sides",
                    )
                continue
            out.append(t)

    for item in items:
        side = left_tokens(key(item))
        if run and side != run_side:
            flush()
            run = []
        out.append(item)
        if side:
            run.append(item)
        run_side = side
    flush()
    return out, len(out) - len(items)


def with_twin_names(names: Sequence[str]) -> list[str]:
    """Point names of a shared body with the twins of its left points (runs as above)."""
    out, _ = with_twins(list(names), str, right_name, lambda a, b: a == b, "point")
    return out


# -- records -------------------------------------------------------------------------------
def mirror_point(p: Point) -> Point:
    """The twin of a left point: model ``(x, -y, z)``; it keeps the left point's source."""
    x, y, z = p.xyz
    return replace(p, name=right_name(p.name), xyz=(x, -y, z))


def mirror_body(b: Body) -> Body:
    """A left body's twin (every point renamed), or a shared body with its twin points."""
    if is_left(b.name):
        return replace(b, name=right_name(b.name), points=tuple(map(right_name, b.points)))
    return replace(b, points=tuple(with_twin_names(b.points)))


def mirror_wheel(w: Wheel) -> Wheel:
    """A left wheel's twin (its body and points renamed)."""
    return replace(
        w,
        name=right_name(w.name),
        body=right_name(w.body),
        centre=right_name(w.centre),
        axis_point=right_name(w.axis_point),
        kingpin_lower=None if w.kingpin_lower is None else right_name(w.kingpin_lower),
        kingpin_upper=None if w.kingpin_upper is None else right_name(w.kingpin_upper),
    )


def mirror_damper(d: Damper) -> Damper:
    """A left damper's twin (its body and eyes renamed)."""
    return replace(
        d,
        body=right_name(d.body),
        chassis_point=right_name(d.chassis_point),
        moving_point=right_name(d.moving_point),
    )


def mirror_third_spring(t: ThirdSpring) -> ThirdSpring:
    """A left third spring's twin (its name and ends renamed)."""
    return replace(
        t,
        name=right_name(t.name),
        end_points=(right_name(t.end_points[0]), right_name(t.end_points[1])),
    )


def mirror_points(points: Sequence[Point], where: str = "") -> tuple[list[Point], int]:
    """Points with their twins; a typed twin must be within `SAME_PLACE_MM` of the mirror."""
    return with_twins(
        points,
        lambda p: p.name,
        mirror_point,
        lambda a, b: math.dist(a.xyz, b.xyz) < SAME_PLACE_MM,
        "point",
        where,
    )


def mirror_bodies(bodies: Sequence[Body], where: str = "") -> tuple[list[Body], int]:
    """Bodies with the twins of the left ones; shared bodies get their twin points."""
    shared = [b if is_left(b.name) else mirror_body(b) for b in bodies]
    return with_twins(
        shared,
        lambda b: b.name,
        mirror_body,
        lambda a, b: set(a.points) == set(b.points),
        "body",
        where,
    )


def mirror_wheels(wheels: Sequence[Wheel], where: str = "") -> tuple[list[Wheel], int]:
    """Wheels with the twins of the left ones."""
    return with_twins(wheels, lambda w: w.name, mirror_wheel, lambda a, b: a == b, "wheel", where)


def mirror_dampers(dampers: Sequence[Damper], where: str = "") -> tuple[list[Damper], int]:
    """Dampers with the twins of the left ones (a damper is named by its body)."""
    return with_twins(
        dampers, lambda d: d.body, mirror_damper, lambda a, b: a == b, "damper", where
    )


def mirror_third_springs(
    springs: Sequence[ThirdSpring], where: str = ""
) -> tuple[list[ThirdSpring], int]:
    """Third springs with the twins of the left ones (a centre spring is kept as is)."""
    return with_twins(
        springs, lambda t: t.name, mirror_third_spring, lambda a, b: a == b, "third spring", where
    )


def generated_by_symmetry(car: Car) -> Generated:
    """What Symmetry generated in a car read from a workbook.

    A twin keeps its left item's `Source` while every typed item has its own cell, so
    the twins are the items whose source an earlier item already has. Items without a
    source (built in code or from a TOML source) count as typed.
    """

    def count(
        items: Sequence[Point]
        | Sequence[Body]
        | Sequence[Wheel]
        | Sequence[Damper]
        | Sequence[ThirdSpring],
    ) -> int:
        seen: set[object] = set()
        twins = 0
        for item in items:
            if item.source is None:
                continue
            twins += item.source in seen
            seen.add(item.source)
        return twins

    return Generated(
        count(car.points),
        count(car.bodies),
        count(car.wheels),
        count(car.dampers),
        count(car.third_springs),
    )


def mirror_car(car: Car, where: str = "") -> tuple[Car, Generated]:
    """`car` with its right side generated from its left side (the rack and the
    anti-roll bars are shared)."""
    points, n_points = mirror_points(car.points, where)
    bodies, n_bodies = mirror_bodies(car.bodies, where)
    wheels, n_wheels = mirror_wheels(car.wheels, where)
    dampers, n_dampers = mirror_dampers(car.dampers, where)
    thirds, n_thirds = mirror_third_springs(car.third_springs, where)
    mirrored = replace(
        car,
        points=tuple(points),
        bodies=tuple(bodies),
        wheels=tuple(wheels),
        dampers=tuple(dampers),
        third_springs=tuple(thirds),
    )
    return mirrored, Generated(n_points, n_bodies, n_wheels, n_dampers, n_thirds)
