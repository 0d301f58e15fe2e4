"""The package's one-way layout, checked from the source (docs/model.md, "Layout").

Every module is read with `ast` (imports inside functions and under
TYPE_CHECKING count too) and placed in a layer; an import may only point to
its own layer or a lower one, the kinematic model never reaches a reader,
the solver or an output, nothing imports another module's private names, and
the module graph has no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import suspension_sim

PACKAGE = Path(suspension_sim.__file__).parent

LAYERS: dict[str, int] = {
    # base: no suspension_sim imports above errors
    "errors": 0,
    "tolerances": 0,
    "names": 0,
    "files": 0,
    "cache": 0,
    "textfiles": 0,
    "version": 0,
    "units": 0,
    "description": 1,
    "workbook": 2,
    "model": 2,
    "solve": 3,
    "metrics": 4,
    "sweeps": 5,
    "loads": 5,
    "optimumk": 5,
    "outputs": 6,
    "viz": 6,
    "validation": 6,
    "replay": 6,
    "explore": 6,
    "maps": 6,
    "api": 7,
    "studio": 7,
    "cli": 8,
    "commands": 8,
    "__main__": 8,
    "moved": 8,
    "__init__": 8,
}
"""Layer of each top-level module or subpackage of suspension_sim (higher = later)."""

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "model": (
        "workbook",
        "cache",
        "files",
        "textfiles",
        "solve",
        "metrics",
        "sweeps",
        "outputs",
        "viz",
        "validation",
        "api",
    ),
    "workbook": ("model",),
}
"""Same-or-lower-layer imports that are still not allowed (siblings stay apart)."""


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1] if len(parts) > 1 else parts
    return ".".join(parts)


def _modules() -> dict[str, ast.Module]:
    return {
        _module_name(p): ast.parse(p.read_text(encoding="utf-8"), filename=str(p))
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def _group(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(module: str, tree: ast.Module) -> list[tuple[str, list[str], int]]:
    """(imported module, names imported from it, line) for every suspension_sim import."""
    out: list[tuple[str, list[str], int]] = []
    is_package = module.count(".") == 0 or module in PACKAGES
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith(PKG)
        ):
            out.append((str(node.args[0].value), [], node.lineno))  # importlib by name
        elif isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names if a.name.startswith(PKG)]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.startswith(PKG):
                names = [a.name for a in node.names]
                # `from pkg import submodule` imports the submodule
                subs = [n for n in names if f"{target}.{n}" in ALL]
                if len(subs) < len(names):
                    out.append((target, [n for n in names if n not in subs], node.lineno))
                out += [(f"{target}.{n}", [], node.lineno) for n in subs]
    return out


PKG = "suspension_sim"
TREES = _modules()
ALL = set(TREES)
PACKAGES = {_module_name(p.parent / "__init__.py") for p in PACKAGE.rglob("__init__.py")}
EDGES = {m: _imports(m, t) for m, t in TREES.items()}


def test_every_module_has_a_layer() -> None:
    missing = sorted({_group(m) for m in TREES} - set(LAYERS))
    assert not missing, f"add these to LAYERS (and to docs/model.md): {missing}"


@pytest.mark.parametrize("module", sorted(TREES))
def test_imports_point_down(module: str) -> None:
    here = _group(module)
    bad = []
    for target, _, line in EDGES[module]:
        there = _group(target)
        if there == here:
            continue
        if LAYERS[there] > LAYERS[here] or there in FORBIDDEN.get(here, ()):
            bad.append(f"line {line}: {target} ({there}, layer {LAYERS[there]})")
    assert not bad, f"{module} ({here}, layer {LAYERS[here]}) imports upward:\n" + "\n".join(bad)


def test_no_private_attributes_of_other_modules() -> None:
    """``module._name`` on an imported suspension_sim module is a private import too."""
    bad = []
    for m, tree in TREES.items():
        aliases = {
            (a.asname or a.name.rsplit(".", 1)[-1])
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for a in node.names
            if (isinstance(node, ast.Import) and a.name.startswith(PKG))
            or (isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PKG))
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                bad.append(f"{m} line {node.lineno}: {node.value.id}.{node.attr}")
    assert not bad, "\n".join(bad)


def test_no_private_names_cross_modules() -> None:
    bad = [
        f"{m} line {line}: from {target} import {n}"
        for m, edges in EDGES.items()
        for target, names, line in edges
        for n in names
        if n.startswith("_") and n != "__version__" and target != m
    ]
    assert not bad, "\n".join(bad)


def test_no_import_cycle() -> None:
    graph = {m: {t for t, _, _ in EDGES[m] if t in ALL and t != m} for m in TREES}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return [*stack[stack.index(t) :], t]
            if t not in state and (cycle := visit(t)):
                return cycle
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (cycle := visit(m)):
            pytest.fail("import cycle: " + " -> ".join(cycle))


def test_the_checker_sees_imports() -> None:
    """Guard against a checker that passes because it finds nothing."""
    solver = dict.fromkeys(t for t, _, _ in EDGES["suspension_sim.solve.solver"])
    assert "suspension_sim.model" in solver or "suspension_sim.model.model" in solver
    assert "suspension_sim.errors" in solver
    assert len(TREES) > 40
