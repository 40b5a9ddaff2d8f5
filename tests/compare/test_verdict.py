"""The verdict says what the runs did: the mechanism measured per job, both halves of
the question, a flat sweep called what it is, and the guard rails around ``compare``.

Every number asserted is worked out by hand from the tables written here, or from what
a machine of single-core nodes allows (one slot per node: no two jobs on a node).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.compare.analysis import summary_table
from cosched.compare.mechanisms import (
    Mechanisms,
    Share,
    Sweep,
    flat,
    measure,
    shrunk,
    time_sliced,
    verdict,
)
from cosched.compare.study import load_store, plan, run
from cosched.errors import ConfigError
from cosched.metrics.colocation import shared_node
from cosched.workload.sources import open_workload

from .test_compare import _trace, main_raise

# -- the per-job measures -----------------------------------------------------------------


def test_shared_node_by_hand() -> None:
    # Node 0: A [0, 10) then B [10, 20): they touch at 10, never overlap. Node 1: C [0, 5)
    # and D [4, 6) overlap on [4, 5). E [0, 100) alone on node 2 and, in the second case,
    # also on node 0, where it overlaps A and B.
    start = np.array([0.0, 10.0, 0.0, 4.0, 0.0])
    end = np.array([10.0, 20.0, 5.0, 6.0, 100.0])
    alone = {0: ((0, 1),), 1: ((0, 1),), 2: ((1, 1),), 3: ((1, 1),), 4: ((2, 1),)}
    assert shared_node(start, end, alone).tolist() == [False, False, True, True, False]
    spread = {**alone, 4: ((2, 1), (0, 1))}
    assert shared_node(start, end, spread).tolist() == [True] * 5
    # A job that lasts no time overlaps nothing; one without a placement shares nothing.
    instant = shared_node(np.array([5.0, 0.0]), np.array([5.0, 10.0]), {0: ((0, 1),), 1: ((0, 1),)})
    assert instant.tolist() == [False, False]
    assert shared_node(start[:1], end[:1], {}).tolist() == [False]


def _jobs(**cols: list[float]) -> pd.DataFrame:
    n = len(next(iter(cols.values())))
    base = {"submit_time": [0.0] * n, "start_time": [0.0] * n}
    return pd.DataFrame({**base, **cols})


def test_shrunk_and_time_sliced_by_hand() -> None:
    # 4-core nodes. Job 1 asked 8 processors and holds 2 nodes' worth of cores (8): whole.
    # Job 2 asked 8 and holds 1.5 nodes' worth (6 cores): shrunk. Job 3 asked 2, holds
    # half a node (2 cores): whole.
    t = _jobs(procs=[8, 8, 2], occupancy=[2.0, 1.5, 0.5], end_time=[10.0, 10.0, 10.0])
    assert shrunk(t, 4).tolist() == [False, True, False]
    # Gang: run time 100 s; ended at 100 (never suspended) or at 150 (suspended a third).
    g = _jobs(run_time=[100.0, 100.0], end_time=[100.0, 150.0])
    assert time_sliced(g).tolist() == [False, True]


def test_shares_of_jobs_and_of_node_hours_by_hand() -> None:
    # Two seeds pooled. Seed 0: a 1-node job of 3600 s that shared, a 3-node job of 3600 s
    # that did not. Seed 1: one 1-node job of 7200 s that shared. Jobs: 2 of 3 shared.
    # Node-hours: shared 1 + 2 = 3 of 1 + 3 + 2 = 6, a half.
    s0 = _jobs(procs=[4, 12], occupancy=[1.0, 3.0], end_time=[3600.0, 3600.0],
               shared_node=[True, False], run_time=[3600.0, 3600.0])  # fmt: skip
    s1 = _jobs(procs=[4], occupancy=[1.0], end_time=[7200.0], shared_node=[True],
               run_time=[7200.0])  # fmt: skip
    m = measure([s0, s1], "nodeshare", 4)
    assert m.shared == Share(2 / 3, 0.5)
    assert m.shrunk == Share(0.0, 0.0)
    assert m.sliced is None
    # A store written before the column existed: not recorded, never a zero.
    assert measure([s0.drop(columns="shared_node")], "nodeshare", 4).shared is None


def test_flat_by_hand() -> None:
    assert flat([(0, 3600.0, 1.0), (1, 3600.0, 1.0), (8, 3600.0 * (1 + 1e-12), 0.0)])
    assert not flat([(0, 3600.0, 0.0), (8, 3601.0, 0.0)])
    assert not flat([(1, 3600.0, 0.0)])  # one point is no sweep


# -- the verdict --------------------------------------------------------------------------


def _summary(rows: dict[str, float]) -> pd.DataFrame:
    results = pd.DataFrame(
        {
            "arm": list(rows),
            "mean_turnaround": list(rows.values()),
            "mean_bounded_slowdown": [10.0] * len(rows),
        }
    )
    return summary_table(results, list(rows))


FAMILIES = {"easy": "batch", "nodeshare-easy": "nodeshare", "gang": "gang"}


def test_single_core_nodes_the_verdict_names_shrinking_not_sharing() -> None:
    # Node sharing halves the mean turnaround, but no job shared a node (one core per
    # node) and a quarter of the jobs ran shrunk: the gain is malleable shrinking.
    none = Share(0.0, 0.0)
    mechs = {"nodeshare-easy": Mechanisms("nodeshare", shared=none, shrunk=Share(0.25, 0.4))}
    summary = _summary({"easy": 7200.0, "nodeshare-easy": 3600.0})
    text = verdict(summary, ["easy"], FAMILIES, mechs=mechs)
    head = text[0]
    assert head.startswith("**Shrink jobs (malleable): nodeshare-easy.**")
    assert "Share" not in " ".join(text)
    assert "no two jobs shared a node" in head
    assert "which only malleable applications allow" in head
    assert "0% of jobs (0% of their node-hours) shared a node" in text[1]
    assert "25% of jobs (40% of their node-hours) ran shrunk" in text[1]
    # The same numbers with jobs really sharing nodes: now it says so.
    mechs = {"nodeshare-easy": Mechanisms("nodeshare", Share(0.5, 0.6), None, none)}
    assert verdict(summary, ["easy"], FAMILIES, mechs=mechs)[0].startswith(
        "**Share nodes: nodeshare-easy.**"
    )
    # Neither shared nor shrunk: the gain is the order jobs start in, not sharing.
    mechs = {"nodeshare-easy": Mechanisms("nodeshare", none, None, none)}
    assert "without co-locating any job" in verdict(summary, ["easy"], FAMILIES, mechs=mechs)[0]


def test_a_plugin_family_declares_its_mechanism(monkeypatch: pytest.MonkeyPatch) -> None:
    # A family outside cosched brings its verdict words in its Family record: the
    # measures it names are taken, its headline and paragraph say its words, and its
    # paragraph stands where its rank puts it (before node sharing's 10).
    from cosched import families as registry

    mine = registry.Family(
        name="colocate",
        mechanism=registry.Mechanism(
            words="co-locating pairs",
            headline="Co-locate",
            measures=("shared",),
            shared="ran beside another job",
            unrecorded="not recorded",
            caveat="A made-up family.",
            rank=5,
        ),
    )
    real = registry.families()
    monkeypatch.setattr(registry, "families", lambda: (*real, mine))
    runs = [_jobs(end_time=[10.0, 10.0], size=[1.0, 1.0], shared_node=[True, False])]
    m = measure(runs, "colocate", 4)
    assert m.shared == Share(0.5, 0.5) and m.sliced is m.shrunk is m.spread is None
    families = {**FAMILIES, "pairs": "colocate"}
    summary = _summary({"easy": 7200.0, "nodeshare-easy": 5400.0, "pairs": 3600.0})
    text = verdict(summary, ["easy"], families, mechs={"pairs": m})
    assert text[0].startswith("**Co-locate: pairs.**")
    assert text[1].startswith("*Co-locating pairs*: pairs,")
    assert "50% of jobs (50% of their node-hours) ran beside another job" in text[1]
    assert text[1].endswith("A made-up family.")
    assert text[2].startswith("*Sharing nodes*: nodeshare-easy,")


def test_a_flat_sweep_is_labelled_not_sensitive() -> None:
    summary = _summary({"easy": 7200.0, "nodeshare-easy": 3600.0})
    mechs = {"nodeshare-easy": Mechanisms("nodeshare", Share(0.0, 0.0), None, Share(0.3, 0.3))}
    curve = [(s, 3600.0, 0.0) for s in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)]
    sweeps = {"nodeshare": Sweep("nodeshare-easy", curve, "interference strength", "")}
    text = " ".join(verdict(summary, ["easy"], FAMILIES, mechs=mechs, sweeps=sweeps))
    assert "not sensitive: the policy never co-located jobs" in text
    assert "holds for every" not in text and "flips" not in text
    # A curve that moves gives the break-even: 3600 + 900 x s crosses 7200 at s = 4.
    moving = [(s, 3600.0 + 900.0 * s, 0.0) for s in (0.0, 2.0, 8.0)]
    sweeps = {"nodeshare": Sweep("nodeshare-easy", moving, "interference strength", "")}
    text = " ".join(verdict(summary, ["easy"], FAMILIES, mechs=mechs, sweeps=sweeps))
    assert "flips where the interference strength is between 2 and 8 (about 4 by" in text
    # A crossing at a point tried is that point.
    at = [(s, 3600.0 + 900.0 * s, 0.0) for s in (0.0, 4.0, 8.0)]
    sweeps = {"nodeshare": Sweep("nodeshare-easy", at, "interference strength", "")}
    text = " ".join(verdict(summary, ["easy"], FAMILIES, mechs=mechs, sweeps=sweeps))
    assert "flips where the interference strength is 4." in text


def test_a_switch_cost_sweep_stopped_at_the_break_even_says_what_it_did_not_run() -> None:
    # EASY 7200 s; gang 6480 s at efficiency 1 and 8640 s at 0.9: the line crosses
    # 7200 at 1 - 0.1 * 720 / 2160 = 0.9667, a switch cost of 30 * (1 / 0.9667 - 1) =
    # 1.03 s per 30 s slot; 0.75 and 0.5 were not run.
    summary = _summary({"easy": 7200.0, "gang": 6480.0})
    mechs = {"gang": Mechanisms("gang", sliced=Share(0.2, 0.3, "core-hours"))}
    curve = [(0.9, 8640.0, 0.0), (1.0, 6480.0, 0.0)]
    what = "efficiency of a time-sliced job (quantum / (quantum + switch cost))"
    sweeps = {"gang": Sweep("gang", curve, what, "", 30.0, (0.5, 0.75))}
    text = " ".join(
        verdict(summary, ["easy"], FAMILIES | {"gang": "gang"}, mechs=mechs, sweeps=sweeps)
    )
    assert f"flips where the {what} is between 0.9 and 1 (about 0.967 by linear" in text
    assert "a switch cost of about 1 s per 30 s slot" in text
    assert "Not run: 0.75, 0.5; at 0.9 gang already does no better than easy" in text


def test_both_halves_each_against_the_best_baseline() -> None:
    # EASY 7200 s; node sharing 3600 s (50% lower); gang 6480 s (10% lower), one run each.
    summary = _summary({"easy": 7200.0, "nodeshare-easy": 3600.0, "gang": 6480.0})
    mechs = {
        "nodeshare-easy": Mechanisms("nodeshare", Share(0.5, 0.5), None, Share(0.0, 0.0)),
        "gang": Mechanisms("gang", sliced=Share(0.2, 0.3, "core-hours")),
    }
    text = verdict(summary, ["easy"], FAMILIES, mechs=mechs)
    nodes = next(p for p in text if p.startswith("*Sharing nodes*"))
    slices = next(p for p in text if p.startswith("*Time slicing*"))
    assert "1.00 h (one run) against 2.00 h under easy: 50% lower" in nodes
    assert "1.80 h (one run) against 2.00 h under easy: 10% lower" in slices
    assert "20% of jobs (30% of their core-hours) gave up time slices" in slices
    assert "uncalibrated" in slices and "`gang_efficiency`" in slices
    # A family left out is named as not applicable, with the reason.
    text = verdict(summary, ["easy"], FAMILIES, not_applicable={"nodeshare": "one core."})
    assert text[-1] == "*Sharing nodes*: not applicable on this machine: one core."


# -- end to end on single-core nodes --------------------------------------------------------


def test_node_sharing_on_single_core_nodes_is_left_out_or_named_shrinking(tmp_path: Path) -> None:
    # 64 nodes of one core: one slot per node, so no two jobs can share one.
    machine = ["--machine", "nodes=64,cores=1", "--limit", "120", "--quick"]
    out = tmp_path / "default"
    assert main(["compare", "--out", str(out), *machine]) == 0
    plan = json.loads((out / "plan.json").read_text())
    assert "nodeshare" in plan["not_applicable"]
    assert not any(a["policy"].startswith("nodeshare") for a in plan["arms"])
    # Named, it runs, with its interference sweep (one seed): no job is ever beside
    # another, so interference never acts and the curve cannot move.
    out = tmp_path / "named"
    named = [*machine[:-1], "--seeds", "1", "--malleable", "--policies", "easy,nodeshare-easy"]
    assert main(["compare", "--out", str(out), *named]) == 0
    _, _, jobs = load_store(out)
    runs = jobs["nodeshare-easy"]
    assert not any(j["shared_node"].any() for j in runs)
    small = float(np.concatenate([shrunk(j, 1) for j in runs]).mean())
    report = (out / "report.md").read_text()
    verdict_text = report.split("## Verdict")[1].split("## How it was run")[0]
    assert "**Share" not in verdict_text
    assert "0% of jobs (0% of their node-hours) shared a node" in verdict_text
    assert f"{100 * small:.0f}% of jobs" in verdict_text
    if small > 0:  # the only mechanism left to node sharing here
        assert "ran shrunk" in verdict_text
    assert "Robustness: not sensitive: the policy never co-located jobs" in verdict_text
    assert "**Not sensitive: the policy never co-located jobs.**" in report


# -- guard rails ----------------------------------------------------------------------------


def test_an_empty_trace_is_an_error_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.swf"
    empty.write_text("; MaxNodes: 16\n; MaxProcs: 64\n")
    for extra in ([], ["--machine", "nodes=16,cores=4"]):
        assert main(["compare", str(empty), "--out", str(tmp_path / "o"), *extra]) == 2
        err = capsys.readouterr().err
        assert err == "cosched: error: empty.swf: the trace has no jobs\n"
    assert not (tmp_path / "o").exists()


def test_a_partial_machine_is_an_error_naming_the_missing_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "--out", str(tmp_path / "o"), "--machine", "nodes=16"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing cores" in err and "--machine" in err
    # A machine too small for the trace names compare's own flag, not the loader's.
    argv = ["compare", "--out", str(tmp_path / "o"), "--machine", "nodes=4,cores=4"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--machine nodes=N,cores=C" in err
    assert "too-wide" not in err and "LoadRules" not in err


def test_an_out_holding_another_trace_is_refused_unless_forced(tmp_path: Path) -> None:
    a = _trace(tmp_path, [(0, 100, 4)])
    other = tmp_path / "other"
    other.mkdir()
    b = _trace(other, [(0, 200, 4), (5, 100, 8)])
    out = tmp_path / "out"
    assert main(["compare", str(a), "--out", str(out), "--policies", "easy"]) == 0
    with pytest.raises(ConfigError, match=r"holds the comparison of .*t\.swf.*--force"):
        main_raise(["compare", str(b), "--out", str(out), "--policies", "easy"])
    # The same trace again resumes; --force replaces the other trace's runs.
    assert main(["compare", str(a), "--out", str(out), "--policies", "easy"]) == 0
    assert main(["compare", str(b), "--out", str(out), "--policies", "easy", "--force"]) == 0
    assert len(list((out / "store" / "cells").glob("*.parquet"))) == 1
    _, table, _ = load_store(out)
    assert table["workload_jobs"].tolist() == [2]


def test_the_plan_and_its_estimate_are_printed_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _trace(tmp_path, [(0, 100, 4), (5, 100, 8)])
    out = tmp_path / "out"
    argv = ["compare", str(trace), "--out", str(out), "--policies", "easy,fcfs"]
    assert main(argv) == 0
    assert "plan      2 runs: batch 2" in capsys.readouterr().out
    assert main([*argv[:-1], "easy,fcfs,conservative"]) == 0
    printed = capsys.readouterr().out
    assert "plan      3 runs, 2 already stored, 1 to do: batch 1" in printed
    assert "estimate  about" in printed and "jobs_per_second" in printed


def test_quick_runs_one_seed_and_no_sweep(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["compare", "--out", str(out), "--limit", "40", "--policies", "easy,nodeshare-easy,gang"]
    assert main([*argv, "--quick"]) == 0
    plan = json.loads((out / "plan.json").read_text())
    assert plan["seeds"] == 1
    # No sweep; the control runs that attribute the gain stay (they are the verdict's).
    assert {a["role"] for a in plan["arms"]} == {"main", "control"}


def test_a_resumed_run_counts_its_stored_runs_at_once(tmp_path: Path) -> None:
    # easy and nodeshare-easy stored (with their control runs); the plan adds
    # conservative. The progress reports the two stored runs first, then moves by one
    # per run done, so an ETA counts only those.
    trace = _trace(tmp_path, [(0, 100, 4), (5, 100, 8)])
    out = tmp_path / "out"
    argv = ["compare", str(trace), "--out", str(out), "--quick"]
    assert main([*argv, "--policies", "easy,nodeshare-easy"]) == 0
    workload = json.loads((out / "plan.json").read_text())["workload"]
    comparison = plan(
        workload, policies=["easy", "conservative", "nodeshare-easy"], seeds=1, flags=None,
        probe=open_workload(str(trace)), robustness=False, controls=False,
    )  # fmt: skip
    calls: list[tuple[int, int]] = []
    run(comparison, out, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (2, 3)
    assert sorted(set(calls)) == [(2, 3), (3, 3)]


def test_gang_is_swept_over_the_switch_cost_of_each_efficiency() -> None:
    # Efficiency = quantum / (quantum + switch cost); gang's quantum is 30 s, so 0.9, 0.75
    # and 0.5 need 30/0.9 - 30 = 3.33 s, 10 s and 30 s.
    comparison = plan(
        {"kind": "swf", "path": "bundled:example", "name": "example"},
        policies=["easy", "gang"], seeds=1, flags=None,
        probe=open_workload("bundled:example"),
    )  # fmt: skip
    swept = [
        (a.strength, a.params["switch_cost"]) for a in comparison.arms if a.role == "efficiency"
    ]
    assert swept == [
        (0.9, pytest.approx(10 / 3)),
        (0.75, pytest.approx(10.0)),
        (0.5, pytest.approx(30.0)),
    ]
    quick = plan(
        {"kind": "swf", "path": "bundled:example", "name": "example"},
        policies=["easy", "gang"], seeds=1, flags=None, robustness=False,
        probe=open_workload("bundled:example"),
    )  # fmt: skip
    assert [a.role for a in quick.arms if a.role != "control"] == ["main", "main"]


def test_failed_runs_name_each_error_once() -> None:
    from cosched.compare.study import _failed_runs

    failed = [("k1", "ex/gang()/seed=0", "boom"), ("k2", "ex/gang()/seed=1", "boom"),
              ("k3", "ex/easy()/seed=0", "other")]  # fmt: skip
    assert _failed_runs(failed, 10).splitlines() == [
        "3 of 10 runs failed (the others are stored; the same command runs these again):",
        "  boom (ex/gang()/seed=0 and 1 more)",
        "  other (ex/easy()/seed=0)",
    ]


def test_machine_errors_name_compares_flag() -> None:
    from cosched.compare.study import machine_flags

    assert machine_flags("the trace header gives no MaxProcs; pass --procs N") == (
        "the trace header gives no MaxProcs; pass --machine procs=N"
    )
    assert machine_flags("give either --procs or --nodes/--cores, not both") == (
        "give either --machine procs=P or --machine nodes=N/--machine cores=C, not both"
    )


@pytest.mark.parametrize(
    ("jobs", "run_effs"),
    [
        # Two whole-machine jobs of 1000 s at 0: easy ends them at 1000 and 2000 (mean
        # 1500 s); gang slices both at rate 1/2 from 0, ending both at 2000 s: it loses
        # at efficiency 1 already, so past 0.9 (run with the main arms) nothing runs.
        ([(0, 1000, 16), (0, 1000, 16)], [0.9]),
        # A whole-machine job of 1000 s at 0 and one of 100 s at 1: easy's mean is
        # (1000 + 1099) / 2 = 1049.5 s; gang at efficiency e slices both at e / 2, the
        # short one ends at 1 + 200 / e and the long one 900 s later (mean 650 s at 1,
        # 850 s at 0.5): it wins at every efficiency, so every one runs.
        ([(0, 1000, 16), (1, 100, 16)], [0.9, 0.75, 0.5]),
    ],
    ids=["loses", "wins"],
)
def test_the_switch_cost_sweep_stops_where_gang_stops_beating_the_baselines(
    tmp_path: Path, jobs: list[tuple[int, int, int]], run_effs: list[float]
) -> None:
    trace = _trace(tmp_path, jobs)
    comparison = plan(
        {"kind": "swf", "path": str(trace), "name": "t"}, policies=["easy", "gang"],
        seeds=1, flags=None, probe=open_workload(str(trace)),
    )  # fmt: skip
    out = tmp_path / "out"
    out.mkdir()
    run(comparison, out)
    _, table, _ = load_store(out)
    swept = {a.label: a.strength for a in comparison.arms if a.role == "efficiency"}
    assert sorted((swept[a] for a in table["arm"] if a in swept), reverse=True) == run_effs
    means = table.set_index("arm")["mean_turnaround"]
    assert means["easy"] == pytest.approx(1500.0 if run_effs == [0.9] else 1049.5)
    assert means["gang"] == pytest.approx(2000.0 if run_effs == [0.9] else 650.0)


def test_the_estimate_counts_gangs_lower_efficiencies_as_up_to(tmp_path: Path) -> None:
    from cosched.compare.cost import RUN_OVERHEAD, cost, jobs_per_second

    trace = _trace(tmp_path, [(0, 1000, 16), (1, 100, 16)])
    comparison = plan(
        {"kind": "swf", "path": str(trace), "name": "t"}, policies=["easy", "gang"],
        seeds=1, flags=None, probe=open_workload(str(trace)), controls=False,
    )  # fmt: skip
    c = cost(comparison, tmp_path / "out", 2)
    speeds = jobs_per_second()
    gang = RUN_OVERHEAD + 2 / speeds["gang"]
    # easy, gang and gang at 0.9 always; gang at 0.75 and 0.5 only while gang wins
    assert c.runs == 5 and c.todo["switch-cost sweep up to"] == 3
    assert c.later_seconds == pytest.approx(2 * gang)
    assert c.cpu_seconds == pytest.approx(4 * gang + RUN_OVERHEAD + 2 / speeds["batch"])
