"""Which kernel functions are compiled out of line, checked against the source.

A function numba inlines is compiled again inside each caller, and inside each of its
callers' callers: a large function called from several places multiplies the code the
first compile optimises. ``_jit._SHARED`` lists exactly the functions with two or more
callers whose body, with what it inlines, exceeds ``_jit.SHARED_LINES`` source lines
(what is compiled out of line anyway, ``_OUT_OF_LINE`` and ``_ALLOCATING``, counts as a
call, not as lines).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from cosched.timesharing.kernel import _jit

KERNEL = Path(_jit.__file__).resolve().parent


def _kernel_functions() -> dict[str, tuple[set[str], int]]:
    """Each ``@njit`` function of the package: the names it calls, its source lines."""
    found: dict[str, tuple[set[str], int]] = {}
    for path in sorted(KERNEL.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Name) and d.id == "njit" for d in node.decorator_list
            ):
                calls = {
                    c.func.id
                    for c in ast.walk(node)
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                }
                assert node.end_lineno is not None
                found[node.name] = (calls, node.end_lineno - node.lineno + 1)
    return found


def _shared_by_rule() -> set[str]:
    fns = _kernel_functions()
    apart = _jit._OUT_OF_LINE | _jit._ALLOCATING

    @functools.cache
    def inlined(name: str) -> int:
        calls, lines = fns[name]
        return lines + sum(inlined(c) for c in calls & fns.keys() if c != name and c not in apart)

    callers: dict[str, set[str]] = {name: set() for name in fns}
    for name, (calls, _) in fns.items():
        for callee in calls & fns.keys():
            callers[callee].add(name)
    return {
        name
        for name in fns
        if name not in apart and len(callers[name]) >= 2 and inlined(name) > _jit.SHARED_LINES
    }


def test_the_shared_functions_are_the_large_ones_with_several_callers() -> None:
    assert _shared_by_rule() == set(_jit._SHARED)


def test_every_named_function_exists() -> None:
    names = _kernel_functions().keys()
    assert set(_jit._SHARED) <= names
    assert set(_jit._OUT_OF_LINE) <= names
