"""docs/coupled.md's claim block is generated from the claim tables, never typed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script() -> object:
    spec = importlib.util.spec_from_file_location(
        "coupled_claims", ROOT / "scripts" / "coupled_claims.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_block_in_docs_coupled_md_equals_the_tables() -> None:
    mod = _script()
    doc = (ROOT / "docs" / "coupled.md").read_text()
    assert mod.render(doc) == doc, "run python scripts/coupled_claims.py"  # type: ignore[attr-defined]


def test_the_counts_are_those_of_the_tables() -> None:
    mod = _script()
    text = mod.block()  # type: ignore[attr-defined]
    for name, *_ in mod.RUNS:  # type: ignore[attr-defined]
        rows = mod.read(name)  # type: ignore[attr-defined]
        agree = int((rows["verdict"] == "agrees").sum())
        assert f"`docs/claims/{name}.csv`) | {len(rows)} | {agree} of " in text
