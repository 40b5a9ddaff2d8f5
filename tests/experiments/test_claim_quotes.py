"""Every quoted claim quotes its paper: the words start on the declared line of the text.

The papers' texts are not in the repository: they are looked for in ``../shared/papers``
beside the clone (where CI has them), then in ``/work/shared/papers``. Without them the
test skips on a workstation and fails in CI (``CI=true``), where it must check.
"""

from __future__ import annotations

import importlib
import os
import re
import tomllib
from pathlib import Path

import pytest

from cosched.experiments.model import resolve
from cosched.experiments.reproductions import spec_text

ROOT = Path(__file__).resolve().parents[2]
#: Where the papers' texts are looked for, in order.
PLACES = (ROOT.parent / "shared" / "papers", Path("/work/shared/papers"))
PAPERS = next((p for p in PLACES if p.is_dir()), PLACES[0])


def absent(reason: str) -> None:
    """Skip for ``reason``, or fail in CI (``CI=true``), where the texts must be."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the quotes must be checked)")
    pytest.skip(reason)


FAMILIES = ("lomarc", "nodeshare", "dyncosched", "coupled", "fcs")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def quoted_at(lines: list[str], line: int, quote: str) -> bool:
    """Whether ``quote`` (whitespace-normalised) starts within line ``line`` (1-based)
    of ``lines`` and may run on into the lines after it."""
    if not 1 <= line <= len(lines):
        return False
    first = _norm(lines[line - 1])
    words = _norm(quote)
    # Enough following lines to hold the quote, whatever the line lengths.
    text = _norm(" ".join(lines[line - 1 : line + words.count(" ") + 2]))
    at = text.find(words)
    return 0 <= at < len(first) if first else False


def test_quoted_at_by_hand() -> None:
    lines = ["The improvement in response", "", "time is 48%  to", "56%, and more."]
    assert quoted_at(lines, 1, "improvement in response time is 48% to 56%")
    assert quoted_at(lines, 3, "is 48% to 56%,")
    assert not quoted_at(lines, 3, "response time is 48%")  # starts on line 1
    assert not quoted_at(lines, 4, "and more. Beyond")  # runs past the text
    assert not quoted_at(lines, 9, "56%")


def _module(family: str) -> object:
    target = tomllib.loads(spec_text(family))["claims"]
    return importlib.import_module(target.partition(":")[0]), resolve(target)()


@pytest.mark.parametrize("family", FAMILIES)
def test_every_quote_is_in_its_paper_at_its_line(family: str) -> None:
    module, declared = _module(family)
    paper = getattr(module, "PAPER", None)
    quoted = [c for c in declared if c.quote]
    if quoted and paper is None:
        pytest.fail(f"{module.__name__} quotes its paper but names no PAPER")
    if not quoted:
        pytest.skip(f"{family}: no claim quotes its paper")
    path = PAPERS / f"{paper}.txt"
    if not PAPERS.is_dir():
        absent(f"no papers' texts in {' or '.join(map(str, PLACES))}")
    assert path.is_file(), f"{family}: PAPER names {path}, which does not exist"
    lines = path.read_text(encoding="utf-8").split("\n")
    wrong = [
        f"{c.id}: line {c.paper_line}: {c.quote!r}"
        for c in quoted
        if c.paper_line is None or not quoted_at(lines, c.paper_line, c.quote)
    ]
    assert not wrong, "quotes not found at their lines:\n" + "\n".join(wrong)


def test_absent_papers_fail_in_ci_and_skip_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        absent("no texts")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="no texts"):
        absent("no texts")
