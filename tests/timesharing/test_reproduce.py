"""The dyncosched reproduction on a tiny grid: files written, deterministic output."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosched.experiments.reproductions import reproduction
from cosched.timesharing import reproduce
from cosched.timesharing.reproduce import Cell, Grid, cells, run_cell

TINY = Grid(jobs=12, loads=(0.8,), base_load=0.8, mpls=(2, 5))


def test_registered() -> None:
    assert reproduction("dyncosched") is reproduce.run


def test_grid_covers_every_scheme_once() -> None:
    keys = [c.key for c in cells(TINY)]
    assert len(keys) == len(set(keys))
    assert sum(1 for c in cells(TINY) if c.workload == "WL7") == 10


def test_cell_is_deterministic() -> None:
    c = Cell("WL5", 0.8, 0.2, 2, "PB")
    assert run_cell(c, 8) == run_cell(c, 8)


@pytest.mark.slow
def test_tiny_reproduction_is_byte_identical(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(reproduce, "QUICK", TINY)
    lines: list[str] = []
    a = reproduce.run(tmp_path / "a", quick=True, workers=1, progress=lines.append)
    reproduce.run(tmp_path / "b", quick=True, workers=2, progress=None)
    assert a.name == "report.md" and a.exists()
    for name in ("fig3.png", "fig4.png", "fig5.png"):
        assert (tmp_path / "a" / name).stat().st_size > 0
    sa = (tmp_path / "a" / "summary.json").read_bytes()
    assert sa == (tmp_path / "b" / "summary.json").read_bytes()
    assert len(lines) == len(cells(TINY))
    assert "Table 5" in a.read_text()
