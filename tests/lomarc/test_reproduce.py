"""The reproduction's plumbing on a tiny grid: resumable, deterministic, complete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosched.errors import ConfigError
from cosched.lomarc.policies import VARIANTS
from cosched.lomarc.report import write_report
from cosched.lomarc.reproduce import NODES, RUNS, SETS, Cell, cell_workload, grid, run_grid
from cosched.workload.transforms import offered_load

CORE = ("mean_wait", "mean_turnaround", "mean_bounded_slowdown", "utilization", "makespan")


def tiny() -> list[Cell]:
    return [
        Cell("paper-alpha", "W1", "M1", "PSS", 0, 200),
        Cell("paper-alpha", "W3", "M1", "L-U1", 0, 200),
        Cell("paper-alpha", "W3", "M1", "AC", 1, 200),
        Cell("paper-alpha", "W1", "M2", "L-R", 1, 200),
    ]


def test_grid_covers_every_configuration_once() -> None:
    cells = grid(quick=True)
    assert len({c.key for c in cells}) == len(cells) == len(SETS) * 5 * len(RUNS)
    assert {c.variant for c in cells} == set(RUNS) >= set(VARIANTS)


def test_cells_resume_and_outputs_are_byte_identical(tmp_path: Path) -> None:
    cells = tiny()
    first = run_grid(tmp_path / "a", cells)
    assert [r["variant"] for r in first] == [c.variant for c in cells]
    for record in first:
        assert all(isinstance(record[m], float) for m in CORE)
        assert record["n_jobs"] == 200 and record["jobs"] == 200
    # A second folder holding only some finished cells runs the rest and ends equal.
    b = tmp_path / "b" / "cells"
    b.mkdir(parents=True)
    kept = tmp_path / "a" / "cells" / f"{cells[1].key}.json"
    (b / kept.name).write_bytes(kept.read_bytes())
    messages: list[str] = []
    second = run_grid(tmp_path / "b", cells, progress=messages.append)
    assert "1 cells done, 3 to run" in messages[0]
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    for name in ("a", "b"):
        write_report(tmp_path / name, first if name == "a" else second, quick=True)
    for f in ("report.md", "fig6_response.png", "fig9_mixtures.png"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    assert "| L-R | response time | M1 | W1 | +48% |" in (tmp_path / "a" / "report.md").read_text()


def test_cells_of_another_version_are_rerun(tmp_path: Path) -> None:
    cells = [Cell("paper-alpha", "W2", "M3", "L-FM", 2, 100)]
    (record,) = run_grid(tmp_path, cells)
    path = tmp_path / "cells" / f"{cells[0].key}.json"
    path.write_text(json.dumps({**record, "version": -1}))
    messages: list[str] = []
    (again,) = run_grid(tmp_path, cells, progress=messages.append)
    assert "0 cells done, 1 to run" in messages[0]
    assert again == record


def test_workloads_are_the_typeless_model_and_increasingly_heavy() -> None:
    """W1-W3 come from the single-class model (every job in queue 0), heavier in turn."""
    loads = []
    for w in ("W1", "W2", "W3"):
        workload = cell_workload("paper-alpha", w, "M1", 0, 1000)
        assert set(workload.table["queue"].tolist()) == {0}
        loads.append(offered_load(workload, NODES))
    assert loads[0] < loads[1] < loads[2]
    assert loads[0] > 0.3  # the class-separated model offered < 0.1 here


def test_unknown_sets_are_refused() -> None:
    with pytest.raises(ConfigError, match="set must be one of"):
        cell_workload("load-1", "W1", "M1", 0, 100)
