"""``cosched compare``: the numbers, the verdict and the report.

The two end-to-end verdict cases are worked out by hand on tiny traces whose node-sharing
profiles are fixed by a sidecar (no communication, low memory sensitivity), so nothing
in them is random.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.compare.analysis import (
    break_even,
    busiest_day,
    ci95,
    over_time,
    summary_table,
    winners_losers,
)
from cosched.compare.mechanisms import Mechanisms, Share, Sweep, verdict
from cosched.compare.study import load_store
from cosched.errors import ConfigError

HEADER = "; Version: 2.2\n; MaxNodes: 4\n; MaxProcs: 16\n"


def _job(i: int, submit: int, run: int, procs: int) -> str:
    return f"{i} {submit} -1 {run} {procs} -1 -1 {procs} {run} -1 1 1 1 -1 1 1 -1 -1"


def _trace(tmp_path: Path, jobs: list[tuple[int, int, int]]) -> Path:
    path = tmp_path / "t.swf"
    lines = [_job(i + 1, *j) for i, j in enumerate(jobs)]
    path.write_text(HEADER + "\n".join(lines) + "\n")
    pd.DataFrame(
        {
            "job_id": np.arange(1, len(jobs) + 1),
            "ns_mem_sensitivity": 0,  # low
            "ns_comm_fraction": 0.0,  # no communication: spreading costs nothing
            "ns_comm_penalty": 0.0,
            "ns_degradation": 2.0,
        }
    ).to_parquet(tmp_path / "t.profile.parquet", index=False)
    return path


# -- the numbers --------------------------------------------------------------------------


def test_ci95_by_hand() -> None:
    # mean 2, sample sd 1, t(0.975, 2) = 4.302653: half-width 4.302653 / sqrt(3).
    mean, half, n = ci95([1.0, 2.0, 3.0])
    assert (mean, n) == (2.0, 3)
    assert half == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert ci95([5.0]) == (5.0, 0.0, 1)


def test_over_time_by_hand() -> None:
    # 4 units: a job of 2 units runs 0-10, one of 4 units 10-20; the second waits 0-10.
    jobs = pd.DataFrame(
        {
            "submit_time": [0.0, 0.0],
            "start_time": [0.0, 10.0],
            "end_time": [10.0, 20.0],
            "size": [2, 4],
        }
    )
    t, util, queued = over_time(jobs, 4.0, points=2)
    assert list(t) == [5.0, 15.0]
    assert list(util) == [0.5, 1.0]
    assert list(queued) == [1.0, 0.0]


def test_break_even_by_hand() -> None:
    assert break_even([0, 1, 2], [1.0, 2.0, 4.0], 3.0) == 1.5
    assert break_even([0, 1], [1.0, 2.0], 5.0) is None


def test_busiest_day_finds_the_heavy_window() -> None:
    day = 86400.0
    jobs = pd.DataFrame(
        {
            "start_time": [0.0, 3 * day, 3 * day],
            "end_time": [100.0, 4 * day, 4 * day],
            "size": [1, 8, 8],
        }
    )
    assert busiest_day(jobs) == (3 * day, 4 * day)


def test_winners_and_losers_by_hand() -> None:
    ratios = pd.DataFrame(
        {
            "ratio": [0.5, 0.9, 1.0, 2.0],
            "duration_class": pd.Categorical(["short"] * 4, ["short", "medium", "long"]),
            "width_class": pd.Categorical(["narrow"] * 4, ["narrow", "wide"]),
        }
    )
    row = winners_losers(ratios).iloc[0]
    assert (row["jobs"], row["faster"], row["slower"], row["median_ratio"]) == (4, 0.5, 0.25, 0.95)


# -- the verdict follows the numbers ------------------------------------------------------


def _summary(base: float, other: float, ci: float) -> pd.DataFrame:
    results = pd.DataFrame(
        {
            "arm": ["easy", "nodeshare", "nodeshare"],
            "mean_turnaround": [base, other - ci, other + ci],
            "mean_bounded_slowdown": [10.0, 5.0, 5.0],
        }
    )
    return summary_table(results, ["easy", "nodeshare"])


FAMILIES = {"easy": "batch", "nodeshare": "nodeshare"}
SHARED = {"nodeshare": Mechanisms("nodeshare", Share(0.5, 0.5), None, Share(0.0, 0.0))}


def _verdict(summary: pd.DataFrame, sweeps: dict[str, Sweep] | None = None) -> str:
    return " ".join(verdict(summary, ["easy"], FAMILIES, mechs=SHARED, sweeps=sweeps))


def test_a_space_sharing_arm_beyond_the_baselines_is_no_coscheduling_answer() -> None:
    # A learned (batch-family) policy better than EASY is not "share nodes", and with no
    # coscheduling arm the verdict says so.
    results = pd.DataFrame(
        {
            "arm": ["easy", "learned"],
            "mean_turnaround": [7200.0, 3600.0],
            "mean_bounded_slowdown": [10.0, 5.0],
        }
    )
    summary = summary_table(results, ["easy", "learned"])
    text = " ".join(verdict(summary, ["easy"], {"easy": "batch", "learned": "batch"}))
    assert text.startswith("No coscheduling policy ran; of the baselines, easy")
    assert "learned" not in text


def test_the_verdict_changes_with_the_numbers() -> None:
    assert _verdict(_summary(7200, 3600, 1)).startswith("**Share nodes: nodeshare.**")
    assert _verdict(_summary(3600, 7200, 1)).startswith("**Do not share: keep easy.**")
    # 10% lower, but the two runs are 2000 s apart: within the interval.
    assert _verdict(_summary(7200, 6480, 1000)).startswith("**No clear answer.**")
    # 3600 + 1440 x s crosses EASY's 7200 s at s = 2.5.
    curve = [(s, 3600.0 + 1440.0 * s, 0.0) for s in (0.0, 1.0, 4.0)]
    sweep = Sweep("nodeshare", curve, "interference strength", " times the preset")
    flip = _verdict(_summary(7200, 3600, 1), {"nodeshare": sweep})
    assert (
        "flips where the interference strength is between 1 and 4 times the preset "
        "(about 2.5 by linear interpolation)" in flip
    )


def test_easy_must_win_where_node_sharing_cannot_backfill(tmp_path: Path) -> None:
    # A (8 procs = 2 nodes, 1000 s) runs from 0; B (16 procs, all 4 nodes) must wait;
    # C (4 procs, 100 s) fits beside A. EASY backfills C: turnarounds 1000, 1999, 100.
    # Node sharing without backfilling: A spreads to 4 nodes x 2 cores (909 s at the
    # 1.10 memory speedup of the prior preset), B waits for whole nodes (909-1909), C
    # waits behind B.
    trace = _trace(tmp_path, [(0, 1000, 8), (1, 1000, 16), (2, 100, 4)])
    out = tmp_path / "out"
    policies = "easy,nodeshare(degraded=false,interference=prior)"
    assert main(["compare", str(trace), "--out", str(out), "--policies", policies]) == 0
    text = (out / "report.md").read_text()
    assert "**Do not share: keep easy.**" in text
    _, table, _ = load_store(out)
    easy = table[table["arm"] == "easy"]["mean_turnaround"].iloc[0]
    assert easy == pytest.approx((1000 + 1999 + 100) / 3)


def test_node_sharing_must_win_without_interference(tmp_path: Path) -> None:
    # One 4-proc job at a time on an empty 4 x 4 machine: EASY runs it in 1150 s; node
    # sharing spreads it to 4 nodes x 1 core, 1150 / 1.15 (prior preset's speedup at a quarter
    # of the cores) = 1000 s, as no communication is lost and nothing shares its nodes.
    trace = _trace(tmp_path, [(0, 1150, 4), (10_000, 1150, 4), (20_000, 1150, 4)])
    out = tmp_path / "out"
    none = "interference=prior,victim_low=0,victim_moderate=0,victim_high=0"
    policies = f"easy,nodeshare-easy({none})"
    assert main(["compare", str(trace), "--out", str(out), "--policies", policies]) == 0
    text = (out / "report.md").read_text()
    # One job at a time: no node is shared and no job shrunk; each ran on 4 nodes where
    # one would hold it. The verdict names that mechanism, not sharing.
    assert "**Spread jobs over more nodes: nodeshare-easy(" in text
    assert "0% of jobs (0% of their node-hours) shared a node" in text
    assert "100% of jobs (100% of their node-hours) ran spread over more nodes" in text
    _, table, _ = load_store(out)
    arm = table["arm"]
    shared = table[arm.str.startswith("nodeshare-easy(") & ~arm.str.contains(" without ")]
    assert shared["mean_turnaround"].to_numpy() == pytest.approx(1000.0)
    # The control runs: without the speedup each job runs its 1150 s (compact, as EASY
    # runs it), and so without sharing as well; the whole gain, (1150 - 1000) / 1150 =
    # 13%, is the assumed speedup's, and the headline says so.
    controls = table[arm.str.contains(" without speedup")]["mean_turnaround"]
    assert len(controls) == 6 and controls.to_numpy() == pytest.approx(1150.0)
    assert "the assumed memory-bandwidth speedup of jobs spread over more nodes: 13% lower" in text
    assert "largest part of its gain comes from the assumed memory-bandwidth speedup" in text


# -- the report is the store's numbers ----------------------------------------------------


def test_the_report_is_rebuilt_from_the_store(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["compare", "--out", str(out), "--limit", "80", "--seeds", "2"]
    assert main([*args, "--policies", "easy,nodeshare-easy"]) == 0
    report = (out / "report.md").read_text()
    # The summary row of each arm: recomputed by hand from results.parquet.
    results = pd.read_parquet(out / "results.parquet")
    plan = json.loads((out / "plan.json").read_text())
    labels = [a["label"] for a in plan["arms"] if a["role"] == "main"]
    for label in labels:
        values = results[results["arm"] == label]["mean_turnaround"].tolist()
        assert len(values) == (2 if label.startswith("nodeshare-easy") else 1)
        mean = sum(values) / len(values)
        row = next(line for line in report.splitlines() if line.startswith(f"| {label} |"))
        assert row.split(" | ")[4].split(" ")[0] == f"{mean / 3600:,.2f}"
    html = (out / "report.html").read_text()
    assert html.count("<svg") >= 5 and "src=" not in html  # figures inline, self-contained
    before = report
    assert main(["report", str(out)]) == 0
    assert (out / "report.md").read_text() == before


def test_errors_before_any_work(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match="not a folder"):
        main_raise(["compare", "--out", str(blocker)])
    with pytest.raises(ConfigError, match="no parameter"):
        main_raise(["compare", "--out", str(tmp_path / "o"), "--policies", "easy(bogus=1)"])
    with pytest.raises(ConfigError, match="at least one baseline"):
        main_raise(["compare", "--out", str(tmp_path / "o"), "--policies", "nodeshare"])
    assert not (tmp_path / "o" / "store").exists()


def main_raise(argv: list[str]) -> None:
    """Run a command, raising its error instead of printing it."""
    from cosched.cli.main import build_parser

    args = build_parser().parse_args(argv)
    args.func(args)


def test_a_log_with_recorded_starts_gets_a_reference_row(tmp_path: Path) -> None:
    # The three jobs of the EASY case, with their logged waits 0, 999 and 0 (SWF field 3):
    # the recorded schedule is EASY's own, so the check must find them identical.
    trace = _trace(tmp_path, [(0, 1000, 8), (1, 1000, 16), (2, 100, 4)])
    lines = trace.read_text().splitlines()
    waits = {"1": "0", "2": "999", "3": "0"}
    fixed = [
        " ".join([t[0], t[1], waits[t[0]], *t[3:]]) if not line.startswith(";") else line
        for line in lines
        for t in [line.split()]
    ]
    trace.write_text("\n".join(fixed) + "\n")
    out = tmp_path / "out"
    assert main(["compare", str(trace), "--out", str(out), "--policies", "easy"]) == 0
    text = (out / "report.md").read_text()
    assert "| recorded |" in text
    assert "## Does the simulated baseline look like your machine?" in text
    assert "statistic of the two wait distributions is 0.000" in text
    assert "100.0% of the jobs start within 1 h" in text
    assert "**The match is close**" in text


def test_lomarc_is_run_under_the_papers_three_mixes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["compare", "--out", str(out), "--limit", "60", "--seeds", "2", "--smt"]
    assert main([*args, "--policies", "easy,lomarc"]) == 0
    text = (out / "report.md").read_text()
    assert "## Robustness: lomarc under other job-type mixes" in text
    for mix, shares in (  # the paper's mixtures, CPU- / network- / disk-bound (section 6)
        ("M1", "40% / 30% / 30%"),
        ("M2", "40% / 10% / 50%"),
        ("M3", "30% / 50% / 20%"),
    ):
        assert f"| {mix} | {shares} |" in text
    results = pd.read_parquet(out / "results.parquet")
    assert set(results["arm"]) >= {"lomarc", "lomarc@M2", "lomarc@M3"}


def test_a_sweep_passes_profile_parameters_to_the_annotator(tmp_path: Path) -> None:
    from cosched.experiments.sweep import spec_from_dict

    bad = {"name": "x", "workloads": [{"path": "bundled:example", "profile_params": [1]}],
           "policies": [{"name": "lomarc"}]}  # fmt: skip
    with pytest.raises(ConfigError, match="profile_params must be a table"):
        spec_from_dict(bad)
    from cosched.policies import policy_class
    from cosched.policies.requirements import supply_profiles
    from cosched.workload.sources import open_workload

    w = open_workload("bundled:example")
    req = policy_class("lomarc").requires
    m2, notes = supply_profiles(req, w, seed=1, annotator_params={"mixture": "M2"})
    m3, _ = supply_profiles(req, w, seed=1, annotator_params={"mixture": "M3"})
    net = 1  # lomarc_class of network-bound jobs
    assert (m2.table["lomarc_class"] == net).mean() < (m3.table["lomarc_class"] == net).mean()
    assert "mixture=M2" in notes[0]
    with pytest.raises(ConfigError, match="annotator 'lomarc'"):
        supply_profiles(req, w, seed=1, annotator_params={"bogus": 1})
