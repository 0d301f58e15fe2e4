"""The YAML sweep file: ``sweeps:`` then one mapping per sweep (docs/sweeps.md).

Read node by node (PyYAML's composer), so every error names the file and
the line of the offending key or value (``sweeps.yaml:14``). Names are not
checked against a car here; `SweepSpec.build` does that. Units: mm and
degrees.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, NoReturn

import yaml

from suspension_sim.errors import InputError
from suspension_sim.solve.targets import Target
from suspension_sim.sweeps.motions import unknown_name
from suspension_sim.sweeps.spec import (
    LIMITS_HINT,
    MAX_STEPS,
    MOTION_HINT,
    MOTION_KEYS,
    SWEEP_KEYS,
    MotionSpec,
    SweepSpec,
    check_input_name,
    check_value,
    held_limit,
    motion_limit,
    parse_motion_text,
    parse_target,
    sweep_values,
)
from suspension_sim.textfiles import read_text

YAML_HINT = "a sweep file looks like 'sweeps:' then 'NAME:' then motion/start/stop/steps"
VERSION = 1
"""The file format version this reader knows (``version:`` is optional)."""


class SweepLoader(yaml.SafeLoader):
    """PyYAML's safe loader, with numbers in exponent notation read as numbers.

    YAML 1.1 (PyYAML) reads ``-1e1``, ``2E3`` and ``1.5e3`` as text: it wants a dot and
    a signed exponent (``1.0e+3``). YAML 1.2 and every spreadsheet read them as numbers,
    and so does this loader (integers are still resolved first: ``10`` stays an int).
    """


SweepLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?$"),
    list("-+0123456789."),
)


class Node:
    """A YAML node with its place (file:line) for messages."""

    def __init__(self, node: yaml.Node, file: str, loader: yaml.SafeLoader):
        self.node = node
        self.file = file
        self.loader = loader

    @property
    def line(self) -> int:
        return int(self.node.start_mark.line) + 1

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def fail(self, message: str, hint: str | None = None) -> NoReturn:
        raise InputError(message, where=self.where, hint=hint)

    def value(self) -> Any:
        return self.loader.construct_object(self.node, deep=True)

    def mapping(self, what: str) -> dict[str, tuple[Node, Node]]:
        """{key text: (key node, value node)}; keys must be unique scalars."""
        if not isinstance(self.node, yaml.MappingNode):
            self.fail(f"{what} must be a mapping (key: value lines)")
        out: dict[str, tuple[Node, Node]] = {}
        for k, v in self.node.value:
            key = Node(k, self.file, self.loader)
            if not isinstance(k, yaml.ScalarNode):
                key.fail(f"{what}: keys must be plain names")
            text = str(key.value())
            if text in out:
                key.fail(f"{what}: {text!r} is given twice (first at line {out[text][0].line})")
            out[text] = (key, Node(v, self.file, self.loader))
        return out

    def number(self, what: str) -> float:
        v = self.value()
        if isinstance(v, bool) or not isinstance(v, int | float):
            self.fail(f"{what} must be a number, found {v!r}")
        try:
            value = float(v)
        except OverflowError:  # an integer with hundreds of digits
            value = math.inf
        if not math.isfinite(value):
            self.fail(f"{what} must be a finite number, found {self.source_text()}", LIMITS_HINT)
        return value

    def source_text(self) -> str:
        """The node as written (shortened), for messages."""
        text = str(getattr(self.node, "value", ""))
        return repr(text if len(text) <= 24 else text[:20] + "...")

    def text(self, what: str) -> str:
        v = self.value()
        if isinstance(v, dict | list) or v is None:
            self.fail(f"{what} must be a name or text, found {v!r}")
        return str(v)

    def numbers(self, what: str) -> list[float]:
        """A list of numbers, its length checked (`MAX_STEPS`) before it is read."""
        if not isinstance(self.node, yaml.SequenceNode):
            self.fail(f"{what} must be a list of numbers, e.g. [-20, 0, 20]")
        if len(self.node.value) > MAX_STEPS:
            self.fail(
                f"{what} has {len(self.node.value)} entries, more than {MAX_STEPS}", LIMITS_HINT
            )
        return [Node(n, self.file, self.loader).number(f"{what} entry") for n in self.node.value]


def yaml_root(loader: SweepLoader, file: str, docs: str) -> yaml.Node | None:
    """The root node of a YAML document (None when empty); text that is not YAML is an
    InputError at file:line, with a hint pointing at `docs`."""
    try:
        return loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark and "simple key" in (exc.context or ""):
            mark = exc.context_mark  # a key without ':' -- its own line, not the next
        where = f"{file}:{mark.line + 1}" if mark else file
        raise InputError(
            f"not valid YAML: {exc.problem or exc.context}",
            where=where,
            hint=f"check the indentation and the ':' after each key ({docs})",
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML: {exc}", where=file) from None


def load_yaml(path: Path) -> dict[str, SweepSpec]:
    """Sweep definitions by name from a YAML sweep file (InputError at file:line)."""
    file = str(path)
    text = read_text(path, "sweep file")
    loader = SweepLoader(text)
    try:
        root = yaml_root(loader, file, "docs/sweeps.md")
        if root is None:
            raise InputError("the sweep file is empty", where=file, hint=YAML_HINT)
        top = Node(root, file, loader).mapping("the sweep file")
        for key, (knode, _) in top.items():
            if key not in ("version", "sweeps"):
                knode.fail(unknown_name("top-level key", key, ("version", "sweeps")), YAML_HINT)
        if "version" in top:
            vnode = top["version"][1]
            if vnode.value() != VERSION:
                vnode.fail(
                    f"unsupported version {vnode.value()!r}", hint=f"this reader knows {VERSION}"
                )
        if "sweeps" not in top:
            raise InputError("no 'sweeps:' mapping", where=f"{file}:1", hint=YAML_HINT)
        specs: dict[str, SweepSpec] = {}
        for name, (knode, vnode) in top["sweeps"][1].mapping("sweeps").items():
            specs[name] = _sweep(name, knode, vnode)
        return specs
    finally:
        loader.dispose()


def _sweep(name: str, knode: Node, node: Node) -> SweepSpec:
    items = node.mapping(f"sweep {name!r}")
    for key, (k, _) in items.items():
        if key not in SWEEP_KEYS:
            k.fail(
                f"sweep {name!r}: " + unknown_name("key", key, SWEEP_KEYS),
                hint="keys: " + ", ".join(SWEEP_KEYS),
            )
    motion = _motion(f"sweep {name!r}", node, {k: v for k, (_, v) in items.items()})
    grid = None
    if "grid" in items:
        gnode = items["grid"][1]
        gitems = gnode.mapping(f"sweep {name!r}: grid")
        for key, (k, _) in gitems.items():
            if key not in MOTION_KEYS:
                k.fail(
                    f"sweep {name!r}: grid: " + unknown_name("key", key, MOTION_KEYS),
                    hint="keys: " + ", ".join(MOTION_KEYS),
                )
        grid = _motion(f"sweep {name!r} grid", gnode, {k: v for k, (_, v) in gitems.items()})
    fixed: dict[str, float] = {}
    if "fixed" in items:
        for key, (k, v) in items["fixed"][1].mapping(f"sweep {name!r}: fixed").items():
            held = check_input_name(key, k.where)
            fixed[held] = check_value(
                v.number(f"fixed {key}"), f"fixed {key}", held_limit(held), v.where
            )
    targets: dict[str, Target] = {}
    if "targets" in items:
        for key, (k, v) in items["targets"][1].mapping(f"sweep {name!r}: targets").items():
            targets[check_input_name(key, k.where)] = parse_target(v.text(f"target {key}"), v.where)
    description = items["description"][1].text("description") if "description" in items else ""
    return SweepSpec(name, motion, grid, fixed, targets, description, knode.where)


def _motion(what: str, node: Node, items: dict[str, Node]) -> MotionSpec:
    if "motion" not in items:
        node.fail(f"{what}: no motion", hint=MOTION_HINT)
    mnode = items["motion"]
    given = [k for k in ("wheel", "damper", "axis") if k in items]
    if len(given) > 1:
        items[given[1]].fail(f"{what}: give one of wheel, damper or axis")
    separate = items[given[0]].text(given[0]).strip() if given else None
    kind, of, unit = parse_motion_text(mnode.text("motion"), mnode.where, separate)
    if given:
        wanted = {"bump": "wheel", "stroke": "damper", "chassis": "axis"}.get(kind)
        if wanted != given[0]:
            items[given[0]].fail(f"{what}: motion {kind!r} takes no {given[0]}")
    if "unit" in items:
        if kind != "steer":
            items["unit"].fail(f"{what}: only steer takes a unit (mm or deg)")
        unit = items["unit"].text("unit").lower()
        if unit not in ("mm", "deg"):
            items["unit"].fail(f"{what}: unit must be mm or deg, found {unit!r}")

    def num(key: str) -> float | None:
        return items[key].number(key) if key in items else None

    first = next((items[k] for k in ("start", "values", "steps") if k in items), mnode)
    count = next((items[k] for k in ("steps", "values") if k in items), first)
    values = sweep_values(
        num("start"),
        num("stop"),
        num("steps"),
        items["values"].numbers("values") if "values" in items else None,
        first.where,
        items["steps"].where if "steps" in items else None,
        motion_limit(kind, of, unit),
        {k: items[k].where for k in ("start", "stop", "values") if k in items},
    )
    return MotionSpec(kind, values, of, unit, mnode.where, count.where)
