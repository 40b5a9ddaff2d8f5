"""Code figures of a source tree: `Any` in annotations and function lengths, from the AST.

An `Any` counts where it stands in an annotation: a parameter's or a return's, an annotated
assignment's (`x: dict[str, Any] = ...`, dataclass and NamedTuple fields), or a type alias
(`type X = ...`, `X: TypeAlias = ...`, and a module-level `X = dict[str, Any]`); string
annotations are parsed too. `typing.Any` and `t.Any` count like `Any`. A function's length
is its body's lines without the docstring (first body line to last), as the reviews count.

    python scripts/code_figures.py                 # the totals over src/cosched
    python scripts/code_figures.py --top 15        # and the modules with the most `Any`
    python scripts/code_figures.py --long 40       # and every function over 40 lines
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# `type X = ...` statements exist from Python 3.12; 3.11 parses none.
_TYPE_ALIAS: type[ast.AST] | None = getattr(ast, "TypeAlias", None)
ROOT = Path(__file__).resolve().parent.parent / "src" / "cosched"


@dataclass(frozen=True)
class Function:
    """One function or method and its body's length in lines."""

    path: str
    name: str
    line: int
    length: int


def _any_in(node: ast.AST | None) -> int:
    """How many times `Any` is named inside an annotation expression."""
    if node is None:
        return 0
    count = 0
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else getattr(sub, "attr", None)
        if name == "Any":
            count += 1
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                count += _any_in(ast.parse(sub.value, mode="eval"))
            except SyntaxError:
                continue
    return count


def _is_alias_value(node: ast.expr) -> bool:
    """Whether a module-level assignment's value reads as a type (an alias)."""
    if isinstance(node, ast.Name):
        return node.id == "Any"
    if isinstance(node, ast.Subscript):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_alias_value(node.left) or _is_alias_value(node.right)
    return False


def count_any(tree: ast.Module) -> int:
    """`Any` in a module's annotations and type aliases."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            count += sum(_any_in(p.annotation) for p in params if p is not None)
            count += _any_in(node.returns)
        elif isinstance(node, ast.AnnAssign):
            count += _any_in(node.annotation)
            ann = node.annotation
            if isinstance(ann, ast.Name | ast.Attribute) and "TypeAlias" in ast.unparse(ann):
                count += _any_in(node.value)
        elif _TYPE_ALIAS is not None and isinstance(node, _TYPE_ALIAS):
            count += _any_in(node.value)  # type: ignore[attr-defined]
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and _is_alias_value(stmt.value):
            count += _any_in(stmt.value)
    return count


def functions(tree: ast.Module, path: str) -> Iterator[Function]:
    """Every function in a module with its body's length, the docstring left out."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        body = node.body
        if (
            len(body) > 1
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        first = body[0].lineno
        last = max(getattr(n, "end_lineno", None) or n.lineno for n in body)
        yield Function(path, node.name, node.lineno, last - first + 1)


def main(argv: list[str] | None = None) -> int:
    """Print the figures; the exit code is 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=ROOT)
    parser.add_argument("--top", type=int, default=0, help="list the N modules with most Any")
    parser.add_argument("--long", type=int, default=150, help="list functions over N lines")
    args = parser.parse_args(argv)
    per_module: dict[str, int] = {}
    funcs: list[Function] = []
    files = sorted(args.root.rglob("*.py"))
    for file in files:
        rel = file.relative_to(args.root).as_posix()
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
        per_module[rel] = count_any(tree)
        funcs.extend(functions(tree, rel))
    total = sum(per_module.values())
    long = sorted((f for f in funcs if f.length > args.long), key=lambda f: -f.length)
    print(f"modules: {len(files)}, functions: {len(funcs)}")
    print(f"Any in annotations: {total}")
    print(f"functions over {args.long} lines: {len(long)}")
    for f in long:
        print(f"  {f.length:5d}  {f.path}:{f.line} {f.name}")
    if args.top:
        print(f"modules with the most Any (top {args.top}):")
        ranked = sorted(per_module.items(), key=lambda kv: (-kv[1], kv[0]))
        for rel, n in ranked[: args.top]:
            if n:
                print(f"  {n:5d}  {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
