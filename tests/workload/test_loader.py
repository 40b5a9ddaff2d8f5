"""Tests of the loader rules that turn a raw SWF trace into a workload."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cosched.errors import ConfigError, WorkloadError, WorkloadFormatError
from cosched.platform.machine import Platform
from cosched.workload.job import SWF_FIELDS
from cosched.workload.loader import (
    LoadRules,
    NonpositiveRun,
    Overrun,
    ProcsField,
    TooWide,
    load_workload,
    load_workload_with_report,
)
from cosched.workload.swf import read_swf

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "src" / "cosched" / "data" / "example.swf"
TRACES = REPO / ".." / "shared" / "traces"


def line(job: int, submit: int, run: float, alloc: int, req_procs: int, req_time: float) -> str:
    """An SWF line with the fields the loader rules look at; the rest missing (-1)."""
    values = [-1] * len(SWF_FIELDS)
    values[0], values[1], values[3], values[4] = job, submit, run, alloc
    values[7], values[8] = req_procs, req_time
    return " ".join(str(v) for v in values)


def trace_file(tmp_path: Path, *lines: str, header: str = "; MaxProcs: 16\n") -> Path:
    path = tmp_path / "mini.swf.gz"  # plain text despite the name: detected by content
    path.write_text(header + "\n".join(lines) + "\n")
    return path


def test_defaults() -> None:
    rules = LoadRules()
    assert rules.procs_field is ProcsField.ALLOCATED
    assert rules.overrun is Overrun.EXTEND
    assert rules.nonpositive_run is NonpositiveRun.DROP
    assert rules.too_wide is TooWide.ERROR
    assert LoadRules(too_wide="clip").too_wide is TooWide.CLIP  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="overrun"):
        LoadRules(overrun="stretch")  # type: ignore[arg-type]


def test_example_loads_with_everything_kept() -> None:
    w, report = load_workload_with_report(EXAMPLE)
    assert (w.name, w.max_procs, w.max_nodes, len(w)) == ("example", 64, 16, 300)
    assert report["lines"] == 300 and report["jobs"] == 300
    assert set(SWF_FIELDS) <= set(w.table.columns) and w.profile_columns == ()
    assert w.header["MaxProcs"] == "64"
    assert w.table["submit_time"].iloc[0] == 0  # kept as in the trace


def test_procs_field(tmp_path: Path) -> None:
    path = trace_file(
        tmp_path,
        line(1, 0, 10, 4, 8, 20),
        line(2, 1, 10, -1, 8, 20),
        line(3, 2, 10, 6, -1, 20),
        line(4, 3, 10, -1, -1, 20),
        line(5, 4, 10, 0, 0, 20),
    )
    expected = {"allocated": [4, 8, 6], "requested": [8, 8, 6], "max": [8, 8, 6]}
    for rule, procs in expected.items():
        w, report = load_workload_with_report(path, rules=LoadRules(procs_field=rule))  # type: ignore[arg-type]
        assert w.table["procs"].tolist() == procs
        assert report["no_procs"] == 2
        assert "dropped 2 jobs with no processor count" in w.notes
    assert load_workload(path).table["procs"].tolist() == expected["allocated"]


def test_overrun(tmp_path: Path) -> None:
    path = trace_file(tmp_path, line(1, 0, 100, 1, 1, 50), line(2, 1, 10, 1, 1, 50))
    default = load_workload(path)
    assert default.table["requested_time"].tolist() == [100, 50]
    assert default.table["run_time"].tolist() == [100, 10]
    assert any("overrun=extend" in n for n in default.notes)
    keep = load_workload(path, rules=LoadRules(overrun=Overrun.KEEP))
    assert keep.table["requested_time"].tolist() == [50, 50]
    assert keep.table["run_time"].tolist() == [100, 10]
    kill, report = load_workload_with_report(path, rules=LoadRules(overrun=Overrun.KILL))
    assert kill.table["run_time"].tolist() == [50, 10]
    assert kill.table["requested_time"].tolist() == [50, 50]
    assert report["overrun"] == 1


def test_missing_requested_time_becomes_run_time(tmp_path: Path) -> None:
    path = trace_file(tmp_path, line(1, 0, 100, 1, 1, -1), line(2, 1, 10, 1, 1, 0))
    w, report = load_workload_with_report(path)
    assert w.table["requested_time"].tolist() == [100, 10]
    assert report["requested_time_filled"] == 2 and report["overrun"] == 0
    assert any("set the requested time of 2 jobs" in n for n in w.notes)


def test_nonpositive_run(tmp_path: Path) -> None:
    path = trace_file(
        tmp_path, line(1, 0, 0, 1, 1, 50), line(2, 1, -1, 1, 1, 50), line(3, 2, 5, 1, 1, 50)
    )
    w, report = load_workload_with_report(path)
    assert w.table["job_id"].tolist() == [3] and report["nonpositive_run"] == 2
    assert "dropped 2 jobs with run time <= 0 or missing (nonpositive_run=drop)" in w.notes
    one = load_workload(path, rules=LoadRules(nonpositive_run=NonpositiveRun.ONE))
    assert one.table["run_time"].tolist() == [1, 1, 5]


def test_too_wide_error_names_everything(tmp_path: Path) -> None:
    path = trace_file(tmp_path, line(1, 0, 10, 4, 4, 20), line(7, 1, 10, 32, 32, 20))
    with pytest.raises(WorkloadError) as info:
        load_workload(path)
    text = str(info.value)
    for part in (f"{path}:3", "job 7", "32 processors", "16", "--too-wide drop|clip"):
        assert part in text


def test_too_wide_drop_and_clip(tmp_path: Path) -> None:
    path = trace_file(tmp_path, line(1, 0, 10, 4, 4, 20), line(2, 1, 10, 32, 32, 20))
    dropped, report = load_workload_with_report(path, rules=LoadRules(too_wide=TooWide.DROP))
    assert dropped.table["job_id"].tolist() == [1] and report["too_wide"] == 1
    clipped = load_workload(path, rules=LoadRules(too_wide=TooWide.CLIP))
    assert clipped.table["procs"].tolist() == [4, 16]
    assert any("too_wide=clip" in n for n in clipped.notes)


def test_too_wide_machine_choice(tmp_path: Path) -> None:
    lines = (line(1, 0, 10, 4, 4, 20), line(2, 1, 10, 12, 12, 20))
    clip = LoadRules(too_wide=TooWide.CLIP)
    by_nodes = trace_file(tmp_path, *lines, header="; MaxNodes: 8\n")
    assert load_workload(by_nodes, rules=clip).table["procs"].tolist() == [4, 8]
    no_header = trace_file(tmp_path, *lines, header="")
    assert load_workload(no_header).table["procs"].tolist() == [4, 12]  # nothing to check
    platform = Platform(nodes=2, cores=4, allocation="nodes")  # type: ignore[arg-type]
    w = load_workload(by_nodes, rules=clip, platform=platform)  # platform beats the header
    assert w.table["procs"].tolist() == [4, 8]
    wide = Platform(nodes=4, cores=4)
    assert load_workload(by_nodes, platform=wide).table["procs"].tolist() == [4, 12]


def test_limit_counts_the_jobs_the_rules_keep(tmp_path: Path) -> None:
    path = trace_file(
        tmp_path,
        line(1, 0, 10, 1, 1, 20),
        line(2, 1, -1, 1, 1, 20),  # no run time: dropped
        line(3, 2, 10, 1, 1, 20),
        line(4, 3, 10, -1, -1, 20),  # no processor count: dropped
        line(5, 4, 10, 1, 1, 20),
        line(6, 5, 10, 1, 1, 20),
        line(7, 6, 10, 1, 1, 20),
    )
    w, report = load_workload_with_report(path, limit=3)
    assert w.table["job_id"].tolist() == [1, 3, 5]
    # Cut after line 5 (the third kept job): lines 6 and 7 are left out, and the rules
    # count what they did up to the cut.
    assert report["limit"] == 2 and report["lines"] == 5
    assert report["nonpositive_run"] == 1 and report["no_procs"] == 1 and report["jobs"] == 3
    assert "kept the first 3 jobs of the trace (2 data lines left out after them" in w.notes[0]
    assert load_workload(path, limit=4).table["job_id"].tolist() == [1, 3, 5, 6]
    assert len(load_workload(path, limit=0)) == 0
    assert len(load_workload(path, limit=99)) == 5  # the file holds five kept jobs
    assert load_workload_with_report(path, limit=99)[1]["limit"] == 0
    assert load_workload(path, limit=2).table["job_id"].tolist() == [1, 3]
    for bad in (-1, 2.5, True):
        with pytest.raises(ConfigError, match="limit"):
            load_workload(path, limit=bad)  # type: ignore[arg-type]


def test_limit_refuses_only_lines_before_its_last_job(tmp_path: Path) -> None:
    rows = [
        line(1, 0, 10, 1, 1, 20),
        line(2, 1, -1, 1, 1, 20),  # dropped
        line(3, 2, 10, 1, 1, 20),
        line(4, 3, -1, 1, 1, 20),  # dropped
        line(5, 4, 10, 1, 1, 20),
    ]
    path = trace_file(tmp_path, *rows, "1 2 3 not a job line")
    # The third kept job is on line 6 of the file (a header line first): the malformed
    # line 7 after it is not the load's business...
    assert load_workload(path, limit=3).table["job_id"].tolist() == [1, 3, 5]
    # ...but it is for a fourth job.
    with pytest.raises(WorkloadFormatError) as info:
        load_workload(path, limit=4)
    assert info.value.line == 7
    # A job too wide for the machine is refused when it lies before the cut, not after.
    wide = trace_file(tmp_path, *rows[:3], line(4, 3, 10, 99, 99, 20), rows[4])
    assert load_workload(wide, limit=2).table["job_id"].tolist() == [1, 3]
    with pytest.raises(WorkloadError, match="job 4 asks for 99 processors"):
        load_workload(wide, limit=3)


@pytest.mark.traces
def test_limit_gives_exactly_k_jobs_of_cea_curie() -> None:
    trace = TRACES / "CEA-Curie-2011-2.1-cln.swf.gz"
    if not trace.is_file():
        pytest.skip("needs the archive traces in ../shared/traces")
    ids = read_swf(trace).table["job_id"].to_numpy()
    assert (np.diff(ids) > 0).all()  # file order is job id order in this trace
    whole = load_workload(trace).table["job_id"].to_numpy()
    for k in (1000, 20_000):
        w, report = load_workload_with_report(trace, limit=k)
        assert len(w) == k
        # The first k jobs the rules keep, in file order: the k smallest kept ids.
        assert sorted(w.table["job_id"].tolist()) == np.sort(whole)[:k].tolist()
        assert report["lines"] > k  # the trace's first lines hold jobs the rules drop


def test_missing_submit_dropped_and_order_sorted(tmp_path: Path) -> None:
    path = trace_file(
        tmp_path, line(1, 50, 10, 1, 1, 20), line(2, -1, 10, 1, 1, 20), line(3, 5, 10, 1, 1, 20)
    )
    trace = read_swf(path)
    before = trace.table.copy()
    w, report = load_workload_with_report(trace)
    assert trace.table.equals(before)  # the loader works on a copy
    assert w.table["job_id"].tolist() == [3, 1]
    assert report["missing_submit"] == 1
    assert w.name == "mini"


def test_error_free_trace_has_no_notes(tmp_path: Path) -> None:
    w = load_workload(trace_file(tmp_path, line(1, 0, 10, 1, 1, 20)))
    assert w.notes == ()
    assert np.isnan(w.table["wait_time"].iloc[0])


@pytest.mark.traces
def test_real_trace_counts() -> None:
    path = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"
    if not path.exists():
        pytest.skip(f"shared trace not found under {TRACES.resolve()}")
    w, report = load_workload_with_report(path)
    assert report["lines"] == 59715 and report["nonpositive_run"] > 5000
    assert report["jobs"] == len(w) and w.max_procs == 128
