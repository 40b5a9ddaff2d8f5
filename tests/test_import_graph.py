"""The package's import graph: the engine knows no policy or family, and no two
packages import each other, directly or round a circle.

Imports are read from the source with :mod:`ast`: at the top of a module and inside
functions (an import deferred to a call is still an import). Imports under ``if
TYPE_CHECKING`` are left out: they run only in the type checker, and the engine names
there the :class:`~cosched.policies.base.Policy` type it is handed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "cosched"

#: What the engine must not import: the policies and every family built on it.
ABOVE_ENGINE = (
    "policies",
    "lomarc",
    "nodeshare",
    "gang",
    "timesharing",
    "coupled",
    "compare",
    "experiments",
    "cli",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, *, type_checking: bool = False) -> set[str]:
    """Every cosched module the file ``path`` imports."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _imports_in(path.read_text(), package, type_checking=type_checking)


def _imports_in(source: str, package: str, *, type_checking: bool = False) -> set[str]:
    """Every cosched module ``source`` (a module of ``package``) imports: absolute
    names, ``from x import y`` as ``x.y`` when that is a module, else ``x``."""
    tree = ast.parse(source)
    skip: set[int] = set()
    if not type_checking:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and _is_type_checking(node):
                skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if _exists(sub) else base)
    return {name for name in found if name == "cosched" or name.startswith("cosched.")}


def _exists(module: str) -> bool:
    rel = Path(*module.split("."))
    return (SRC.parent / rel).with_suffix(".py").is_file() or (SRC.parent / rel).is_dir()


def _package(module: str) -> str:
    """The unit of the package graph: ``cosched.X`` for a subpackage or a top-level
    module ``X``; the root's ``__init__`` is ``cosched``."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def test_the_engine_imports_no_policy_or_family() -> None:
    bad = []
    for path in sorted((SRC / "engine").rglob("*.py")):
        for name in _imports(path):
            if _package(name).removeprefix("cosched.") in ABOVE_ENGINE:
                bad.append(f"{path.relative_to(SRC.parent)} imports {name}")
    assert not bad, "\n".join(bad)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph``, or None (depth-first search)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in _sources():
        here = _package(_module_name(path))
        for name in _imports(path):
            there = _package(name)
            if there != here and there != "cosched":  # the root package imports all
                graph.setdefault(here, set()).add(there)
    return graph


def test_no_cycle_between_packages() -> None:
    cycle = _cycle(_package_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_check_finds_a_cycle() -> None:
    # The search itself, on a hand-made graph: a -> b -> c -> a, and d alone.
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}}) is None


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from cosched.engine import loop\n", {"cosched.engine.loop"}),
        ("def f():\n    import cosched.policies.base\n", {"cosched.policies.base"}),
        ("from . import compiled\n", {"cosched.engine.compiled"}),
        ("if TYPE_CHECKING:\n    from cosched.policies import base\n", set()),
    ],
)
def test_imports_are_read_everywhere(source: str, expected: set[str]) -> None:
    # Source read as a module of cosched.engine: function-level and relative imports count.
    assert _imports_in(source, "cosched.engine") == expected
