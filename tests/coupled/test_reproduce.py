"""The coupled reproduction's workloads, cells, resumability and determinism."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cosched.coupled import reproduce
from cosched.coupled.workloads import (
    ANALYSIS_TRACE,
    COMPUTE_TRACE,
    analysis_workload,
    compute_workload,
    pack,
    pair_nearest,
)
from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.transforms import offered_load

TRACES = Path(__file__).resolve().parents[2] / ".." / "shared" / "traces"
needs_traces = pytest.mark.skipif(
    not ((TRACES / COMPUTE_TRACE).exists() and (TRACES / ANALYSIS_TRACE).exists()),
    reason=f"shared traces {COMPUTE_TRACE} and {ANALYSIS_TRACE} not found under {TRACES}",
)
DAY = 86400.0


def uniform(n: int, gap: float = 60.0) -> Workload:
    return Workload.from_jobs([(i * gap, 1 + i % 3, 100.0 + i) for i in range(n)])


def test_pack_reaches_the_load_over_the_span() -> None:
    w = uniform(500)
    p = pack(w, load=0.5, capacity_procs=4, span=DAY)
    sub = p.table["submit_time"].to_numpy()
    assert sub[0] == 0.0 and sub[-1] < DAY
    work = float((p.table["run_time"] * p.table["procs"]).sum())
    assert 0.5 <= work / (4 * DAY) < 0.5 + 600 * 3 / (4 * DAY)
    with pytest.raises(ConfigError, match="carries only"):
        pack(w, load=50.0, capacity_procs=4, span=DAY)


def test_pair_nearest_pairs_the_share_one_to_one() -> None:
    a, b = uniform(300, 30.0), uniform(100, 90.0)
    pa, pb = pair_nearest(a, b, proportion=0.2, rng=np.random.default_rng(3))
    ma, mb = pa.table["coupled_mate"].to_numpy(), pb.table["coupled_mate"].to_numpy()
    assert (mb >= 0).sum() == 20 and (ma >= 0).sum() == 20
    ids_a = pa.table.set_index("job_id")
    for jid, mate in zip(pb.table["job_id"], mb, strict=True):
        if mate >= 0:
            assert ids_a.at[mate, "coupled_mate"] == jid
            gap = abs(
                ids_a.at[mate, "submit_time"] - pb.table.set_index("job_id").at[jid, "submit_time"]
            )
            assert gap <= 90.0 * 20  # near in time, not the i-th with the i-th
    again = pair_nearest(a, b, proportion=0.2, rng=np.random.default_rng(3))
    assert again[0].table.equals(pa.table) and again[1].table.equals(pb.table)


@needs_traces
def test_machines_built_from_the_traces() -> None:
    wc = compute_workload(TRACES, span=2 * DAY)
    wa = analysis_workload(TRACES, load=0.5, span=2 * DAY)
    assert len(wc) > 100 and wc.table["submit_time"].max() < 2 * DAY
    assert offered_load(wa, 100) == pytest.approx(0.5, rel=0.05)


ALL_CELLS = reproduce.cells


def small_grid(quick: bool) -> list[dict]:
    grid = [c for c in ALL_CELLS(quick=True) if c["key"] in KEYS]
    for c in grid:
        c["span"] = DAY
    return grid


KEYS = {"load-0.5-base-s0", "load-0.5-HH-s0", "proportion-0.33-YY-s1", "proportion-0.33-HY-s1"}


@needs_traces
def test_reproduction_is_resumable_and_byte_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reproduce, "cells", small_grid)
    out1, out2 = tmp_path / "a", tmp_path / "b"
    messages: list[str] = []
    report = reproduce.run(out1, quick=True, workers=1, progress=messages.append, traces=TRACES)
    assert report.exists() and (out1 / "fig-load.png").exists()
    records = json.loads((out1 / "summary.json").read_text())
    assert {r["key"] for r in records} == KEYS
    for r in records:
        assert r["status"] == "ok"
        assert r["sync_verified"] == (r["scheme"] != "base")
        assert set(r["machines"]) == {"compute", "analysis"}
        assert "mean_sync_time" in r["machines"]["analysis"]
    reproduce.run(out2, quick=True, workers=1, progress=None, traces=TRACES)
    assert (out1 / "summary.json").read_bytes() == (out2 / "summary.json").read_bytes()
    # A rerun skips the finished cells.
    messages.clear()
    reproduce.run(out1, quick=True, workers=1, progress=messages.append, traces=TRACES)
    assert any("4 of 4 cells already done" in m for m in messages)


def test_missing_traces_are_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs"):
        reproduce.run(tmp_path, quick=True, workers=1, progress=None, traces=tmp_path)
