"""The coupled reproduction's workloads, spec, resumability and determinism."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from cosched.coupled.workloads import (
    ANALYSIS_PLATFORM,
    ANALYSIS_TRACE,
    COMPUTE_TRACE,
    MONTH,
    analysis_workload,
    compute_workload,
    drawn_start,
    pack,
    pair_nearest,
    special_analysis,
)
from cosched.errors import ConfigError
from cosched.experiments.executors import ProcessPool
from cosched.experiments.model import experiment_from_dict
from cosched.experiments.reproductions import spec, spec_text
from cosched.experiments.runner import run_experiment
from cosched.workload import load_workload
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


def test_a_drawn_start_leaves_the_month_its_load_needs() -> None:
    # 10 jobs of 1 proc x 100 s, one every 100 s (t = 0 ... 900): from the job at t = k*100
    # on, (10 - k) x 100 proc-seconds remain. Load 0.5 over span 400 on 1 proc needs 200,
    # so the latest start is the 9th job's submission, t = 800.
    w = Workload.from_jobs([(i * 100.0, 1, 100.0) for i in range(10)])
    rng = np.random.default_rng(1)
    starts = [
        drawn_start(w, rng, load=0.5, capacity_procs=1, span=400.0, earliest=100.0)
        for _ in range(200)
    ]
    assert min(starts) >= 100.0 and max(starts) <= 800.0 and max(starts) > 700.0
    # Without a load: a whole span before the last submission (900 - 400 = 500).
    plain = [drawn_start(w, rng, load=None, capacity_procs=1, span=400.0, earliest=0.0)]
    assert 0.0 <= plain[0] <= 500.0
    again = drawn_start(
        w, np.random.default_rng(1), load=0.5, capacity_procs=1, span=400.0, earliest=100.0
    )
    assert again == starts[0]
    with pytest.raises(ConfigError, match="no start after 900"):
        drawn_start(w, rng, load=0.5, capacity_procs=1, span=400.0, earliest=900.0)


@needs_traces
def test_a_drawn_atlas_month_is_the_seeds() -> None:
    a = compute_workload(TRACES, span=2 * DAY, load=0.9, rng=np.random.default_rng(5))
    b = compute_workload(TRACES, span=2 * DAY, load=0.9, rng=np.random.default_rng(5))
    c = compute_workload(TRACES, span=2 * DAY, load=0.9, rng=np.random.default_rng(6))
    assert a.table.equals(b.table) and not a.table.equals(c.table)
    assert offered_load(a, 1152 * 8) == pytest.approx(0.9, rel=0.05)


@needs_traces
def test_machines_built_from_the_traces() -> None:
    wc = compute_workload(TRACES, span=2 * DAY)
    wa = analysis_workload(TRACES, load=0.5, span=2 * DAY)
    assert len(wc) > 100 and wc.table["submit_time"].max() < 2 * DAY
    assert offered_load(wa, 100) == pytest.approx(0.5, rel=0.05)


@needs_traces
def test_the_special_analysis_workload_has_the_asked_jobs_and_load() -> None:
    # Section V-E: the same number of jobs as the compute month, load about 0.5.
    w = special_analysis(TRACES, jobs=300, load=0.5, span=2 * DAY)
    assert len(w) == 300 and w.table["submit_time"].max() < 2 * DAY
    assert offered_load(w, 100) == pytest.approx(0.5, rel=0.01)
    assert (w.table["requested_time"] >= w.table["run_time"]).all()
    with pytest.raises(ConfigError, match="fewer than"):
        special_analysis(TRACES, jobs=10**7, load=0.5)


def tiny_spec(traces: Path = TRACES) -> dict:
    """Four cells of the coupled spec, one day each."""
    data = tomllib.loads(spec_text("coupled"))
    data.pop("quick")
    data["params"] = {**data["params"], "span": DAY}
    data["grid"] = [
        {"study": "load", "load": 0.5, "scheme": ["base", "HH"], "seeds": [0]},
        {"study": "proportion", "load": 0.5, "proportion": 0.33, "scheme": ["YY", "HY"]},
    ]
    data["seeds"] = [1]
    return data


def test_the_quick_spec_is_the_papers_grid() -> None:
    """Load study: 3 loads x (base + 4 schemes); proportion study: 5 shares x 4 schemes."""
    quick = [t.columns for t in spec("coupled", quick=True).tasks()]
    assert len(quick) == 3 * 5 + 5 * 4
    assert {c["span"] for c in quick} == {10 * DAY}
    full = spec("coupled").tasks()
    assert len(full) == (3 * 5 + 5 * 4) * 10 and {t.columns["span"] for t in full} == {MONTH}


@needs_traces
def test_reproduction_is_resumable_and_byte_identical(tmp_path: Path) -> None:
    exp = experiment_from_dict(tiny_spec(), source="tiny")
    out1, out2 = tmp_path / "a", tmp_path / "b"
    table = run_experiment(exp, out1, trace_dirs=[TRACES])
    assert (out1 / "report.md").exists() and (out1 / "fig-load.png").exists()
    assert (out1 / "report.html").exists()
    assert len(table) == 4 and (table["status"] == "ok").all()
    assert (table["outcome"] == "ok").all()
    assert list(table["sync_verified"]) == [s != "base" for s in table["scheme"]]
    assert table["analysis.mean_sync_time"].notna().all()
    run_experiment(exp, out2, trace_dirs=[TRACES], executor=ProcessPool(2))
    assert (out1 / "results.parquet").read_bytes() == (out2 / "results.parquet").read_bytes()
    assert (out1 / "report.md").read_bytes() == (out2 / "report.md").read_bytes()
    # A rerun skips the finished cells.
    seen: list[tuple[int, int]] = []
    run_experiment(exp, out1, trace_dirs=[TRACES], progress=lambda d, t: seen.append((d, t)))
    assert seen == [(4, 4)]


def test_missing_traces_are_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COSCHED_DATA", str(tmp_path))
    monkeypatch.delenv("COSCHED_TRACES", raising=False)
    exp = experiment_from_dict(tiny_spec(), source="tiny")
    with pytest.raises(ConfigError, match=r"trace 'KTH-SP2-1996-2\.1-cln\.swf\.gz' not found"):
        run_experiment(exp, tmp_path / "out", trace_dirs=[tmp_path])
    assert not (tmp_path / "out").exists()  # nothing ran


@needs_traces
def test_a_drawn_analysis_month_is_the_seeds() -> None:
    # analysis_month = "drawn": the packed KTH month starts where the seed's stream says,
    # the same for one seed every time, elsewhere for another seed.
    span = 2 * DAY
    full = load_workload(TRACES / ANALYSIS_TRACE, platform=ANALYSIS_PLATFORM)
    ids = full.table["job_id"].to_numpy()

    def first_job(seed: int) -> int:
        rng = np.random.default_rng(np.random.SeedSequence([seed, 8]))
        w = analysis_workload(TRACES, load=0.5, span=span, month="drawn", rng=rng)
        assert offered_load(w, 100) == pytest.approx(0.5, rel=0.05)
        k = int(np.flatnonzero(ids == int(w.table["job_id"].iloc[0]))[0])
        # A contiguous run of the trace from that job: packing keeps the jobs, only
        # their arrivals are scaled.
        assert (w.table["job_id"].to_numpy() == ids[k : k + len(w)]).all()
        return k

    a, again, b = first_job(1), first_job(1), first_job(2)
    assert a == again and a != b
    fixed = analysis_workload(TRACES, load=0.5, span=span)
    assert fixed.table["job_id"].iloc[0] == ids[0]  # the default: the trace's start
    with pytest.raises(ConfigError, match="needs the seed's generator"):
        analysis_workload(TRACES, load=0.5, span=span, month="drawn")


@needs_traces
def test_a_drawn_special_workload_starts_at_the_seeds_job() -> None:
    full = load_workload(TRACES / ANALYSIS_TRACE, platform=ANALYSIS_PLATFORM)
    ids = full.table["job_id"].to_numpy()

    def first(seed: int) -> int:
        w = special_analysis(
            TRACES,
            jobs=300,
            load=0.5,
            span=2 * DAY,
            month="drawn",
            rng=np.random.default_rng(seed),
        )
        assert len(w) == 300
        return int(np.flatnonzero(ids == int(w.table["job_id"].iloc[0]))[0])

    # Hand check: the first job is rng.integers(0, len - 300 + 1) of the seed's stream.
    assert first(3) == int(np.random.default_rng(3).integers(0, len(full) - 300 + 1))
    assert first(3) == first(3) and first(3) != first(4)


def test_bad_month_and_release_settings_name_the_parameter() -> None:
    from cosched.coupled.experiment import check

    ok = {"study": "load", "load": 0.5, "scheme": "HH", "span": DAY}
    check({**ok, "analysis_month": "drawn", "release_yield": True})
    with pytest.raises(ConfigError, match="'analysis_month' must be an integer >= 0"):
        check({**ok, "analysis_month": "random"})
    with pytest.raises(ConfigError, match="'compute_month' must be an integer >= 0"):
        check({**ok, "compute_month": -1})
    with pytest.raises(ConfigError, match="'release_yield' must be true or false"):
        check({**ok, "release_yield": "yes"})
