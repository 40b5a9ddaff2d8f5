"""The documentation site's helpers and navigation (the site itself is built by CI with
``mkdocs build --strict``)."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from cosched.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, DOCS / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _parsers(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    out = [(words, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _parsers(sub, (*words, name))
    return out


def test_the_cli_reference_has_every_command_and_option() -> None:
    page = _module("cli_reference").cli_markdown()
    parsers = _parsers(build_parser())
    assert {w[0] for w, _ in parsers if w} == {c.name for c in COMMANDS}
    assert any(w == ("trace", "import") for w, _ in parsers)
    for words, parser in parsers[1:]:
        assert f"`cosched {' '.join(words)}`" in page, words
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                continue
            for flag in action.option_strings:
                assert f"`{flag}" in page, (words, flag)


def test_the_cli_reference_keeps_markdown_marks_literal() -> None:
    cell = _module("cli_reference")._cell
    assert cell("a | b") == "a \\| b"
    assert cell("lublin:jobs=K[,alpha=A] n1/0*4 job_id") == (
        "lublin:jobs=K\\[,alpha=A\\] n1/0\\*4 job\\_id"
    )
    assert cell("see `a_b [x]` and\n  more") == "see `a_b [x]` and more"


def test_sphinx_roles_become_code_spans() -> None:
    rewrite = _module("griffe_roles").rewrite
    text = ":class:`~cosched.engine.view.SystemView` and :meth:`Policy.schedule`"
    assert rewrite(text) == "`SystemView` and `Policy.schedule`"
    assert rewrite(":func:`the runner <cosched.experiments.runner.run_experiment>`") == (
        "`the runner`"
    )
    assert rewrite("no role here: `x`") == "no role here: `x`"
    assert rewrite("from a test::\n\n    check(P)") == "from a test:\n\n    check(P)"


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for value in node.values() for p in _nav_pages(value)]
    return []


def test_every_page_is_in_the_navigation() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    nav = set(_nav_pages(config["nav"]))
    pages = {
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if p.relative_to(DOCS).parts[0] != "hooks"
    }
    generated = {"reference/cli.md"}
    assert pages - nav == set()
    assert nav - pages - generated == set()


def test_the_reproduction_note_counts_the_verdicts() -> None:
    pd = pytest.importorskip("pandas")
    hook = _module("reproduction_status")
    verdicts = ["agrees", "agrees", "disagrees", "calibrated", "agrees"]
    table = pd.DataFrame({"verdict": verdicts, "command": "cosched reproduce x"})
    lines = hook.status_lines("x", table, "x-paper")
    # 3 agree of the 4 counted (the calibrated claim is shown, never counted): 75%.
    assert (
        "of the paper's 5 declared claims, 3 of 4 agree (75%); 1 disagrees, 1 calibrated"
        in (lines[0])
    )
    assert "`cosched reproduce x`" in lines[1]
    assert lines[2].endswith("(fidelity.md#x-paper).")
    assert hook._anchor("# F\n\n## fcs (flexible-coscheduling-fcs)\n", "fcs") == (
        "fcs-flexible-coscheduling-fcs"
    )


def test_every_family_page_with_a_note_has_its_claim_tables() -> None:
    for page, names in _module("reproduction_status").TABLES.items():
        assert (DOCS / page).is_file(), page
        for name in names:
            assert (DOCS / "claims" / f"{name}.csv").is_file(), name
