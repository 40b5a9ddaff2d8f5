"""The outputs the docs quote are what the code prints now (scripts/doc_outputs.py).

The fast tests run the pages' cheap commands (imports of the test suite's Slurm and
PBS logs); the slow test runs every marked command of every page, the comparisons too,
and skips, saying so, the ones that need ``../shared``'s traces when it is absent.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    name = "doc_outputs"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_a_changed_output_is_reported_and_regenerated(tmp_path: Path) -> None:
    # A page quoting an import's output with one line altered and one missing: the
    # check names the block, and the regenerated page holds what the command prints.
    page = tmp_path / "page.md"
    page.write_text(
        "Intro\n\n<!-- output fast -->\n```console\n"
        "$ cosched trace import pbs tests/workload/fixtures/pbs_cases -o x.swf.gz\n"
        "note      kept 7 jobs of 8 jobs named in the PBS records\n"
        "```\n\nAfter\n",
        encoding="utf-8",
    )
    doc = _script()
    outcome = doc.process(str(page), "fast")
    assert len(outcome.changed) == 1
    assert "-note      kept 7 jobs of 8" in outcome.changed[0]
    assert "+note      kept 6 jobs of 8" in outcome.changed[0]
    lines = outcome.text.splitlines()
    assert lines[:5] == [
        "Intro",
        "",
        "<!-- output fast -->",
        "```console",
        "$ cosched trace import pbs tests/workload/fixtures/pbs_cases -o x.swf.gz",
    ]
    assert "wrote     x.swf.gz (6 jobs)" in lines
    assert lines[-1] == "After"
    # Regenerated, it checks clean.
    page.write_text(outcome.text, encoding="utf-8")
    assert doc.process(str(page), "fast").changed == []


def test_a_quote_of_a_skipped_command_is_skipped_not_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- output slow -->\n```console\n$ cosched compare --out answer\n```\n\n"
        "<!-- quote answer/report.md Verdict -->\n> anything\n",
        encoding="utf-8",
    )
    outcome = _script().process(str(page), "fast")
    assert outcome.changed == []
    assert len(outcome.skipped) == 2
    assert "answer/report.md not written" in outcome.skipped[1]


@pytest.mark.parametrize("page", ["docs/tutorials/own-log.md", "docs/operator-logs.md"])
def test_the_cheap_quoted_outputs_are_what_the_code_prints(page: str) -> None:
    outcome = _script().process(page, "fast")
    assert outcome.changed == [], "\n".join(
        [*outcome.changed, "regenerate: python scripts/doc_outputs.py"]
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "page", ["README.md", "docs/tutorials/own-log.md", "docs/operator-logs.md"]
)
def test_every_quoted_output_is_what_the_code_prints(page: str) -> None:
    doc = _script()
    outcome = doc.process(page, "slow")
    assert outcome.changed == [], "\n".join(
        [*outcome.changed, "regenerate: python scripts/doc_outputs.py"]
    )
    if outcome.skipped:
        pytest.skip("not checked: " + "; ".join(outcome.skipped))
