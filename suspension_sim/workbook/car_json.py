"""A `Car` as plain JSON and back, exactly: the model cache's payload.

Every field of `Car` and of the dataclasses in it (`Options`, `Point`,
`Body`, `Wheel`, `Rack`, `Damper`, `ThirdSpring`, `AntiRollBar`, `Source`) is
written, including those left out of equality (sources, warnings, source_path),
so a car read back is the car written. Floats are written with ``repr`` (Python's ``json``), which
reads back bit for bit; tuples are JSON lists, None is null. Reading is
driven by the dataclasses' type hints and checks every value's type, so a
payload that does not describe a `Car` of this code raises ValueError.
Units are those of `Car` (mm, rad, N).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from typing import Any

from suspension_sim.description import Car

FORMAT = 1
"""Version of the layout; a payload of another format is refused."""


def car_to_json(car: Car) -> str:
    """The whole car, sources and warnings included, as JSON text."""
    return json.dumps({"format": FORMAT, "car": _encode(car)}, separators=(",", ":"))


def car_from_json(text: str | bytes) -> Car:
    """The `Car` written by `car_to_json`; ValueError if `text` is anything else."""
    try:
        document = json.loads(text)
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f"not a car of format {FORMAT}")
        car = _decode(Car, document.get("car"), "car")
    except RecursionError:  # absurdly nested input
        raise ValueError("nested too deeply to be a car") from None
    assert isinstance(car, Car)
    return car


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise TypeError(f"cannot write {type(value).__name__} to car JSON")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(hint: Any, value: Any, where: str) -> Any:
    """`value` (parsed JSON) as an instance of the type `hint`; ValueError if it is not one."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _decode(option, value, where)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors))
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list, got {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise ValueError(f"{where}: expected {len(args)} items, got {len(value)}")
        pairs = enumerate(zip(args, value, strict=True))
        return tuple(_decode(a, v, f"{where}[{i}]") for i, (a, v) in pairs)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object, got {type(value).__name__}")
        names = [f.name for f in dataclasses.fields(hint)]
        if set(value) != set(names):
            raise ValueError(f"{where}: fields {sorted(value)} are not {sorted(names)}")
        hints = _hints(hint)
        return hint(**{n: _decode(hints[n], value[n], f"{where}.{n}") for n in names})
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value  # an int stays an int: it compares equal and reads back the same
        raise ValueError(f"{where}: expected a number, got {type(value).__name__}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ValueError(f"{where}: expected an integer, got {type(value).__name__}")
    if hint in (str, bool):
        if type(value) is hint:
            return value
        raise ValueError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    raise ValueError(f"{where}: cannot read a {hint!r}")
