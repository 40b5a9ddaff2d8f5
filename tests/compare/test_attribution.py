"""The gain split by control runs, and the headline named by its largest source.

Every number asserted is worked out by hand from the results tables written here.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.compare.analysis import summary_table
from cosched.compare.attribution import attributions
from cosched.compare.mechanisms import Mechanisms, Share, report_verdict, verdict
from cosched.compare.study import Arm, control_arms, load_store, plan, run
from cosched.workload.sources import open_workload

NS = "ns"
NS_OFF = [
    ("ns without shrinking", ["shrinking"]),
    ("ns without shrinking, speedup", ["shrinking", "speedup"]),
    ("ns without shrinking, speedup, sharing", ["shrinking", "speedup", "sharing"]),
]


def _table(rows: dict[str, list[float]]) -> pd.DataFrame:
    out = []
    for arm, values in rows.items():
        for seed, v in enumerate(values):
            out.append({"arm": arm, "seed": seed, "mean_turnaround": v,
                        "mean_bounded_slowdown": 10.0})  # fmt: skip
    return pd.DataFrame(out)


def _verdict(table: pd.DataFrame, arm: str, family: str, controls: list) -> list[str]:
    summary = summary_table(table, ["easy", arm])
    parts = attributions(table, [arm], {arm: controls}, "easy")
    mechs = {arm: Mechanisms(family, shared=Share(0.5, 0.5), sliced=Share(0.5, 0.5))}
    return verdict(summary, ["easy"], {"easy": "batch", arm: family}, mechs=mechs, parts=parts)


def test_a_node_sharing_gain_from_shrinking_is_headlined_as_shrinking() -> None:
    # EASY 10000 s (one run). Node sharing, two seeds: 5000 and 5200 s; without shrinking
    # 9000 and 9400; also without the speedup 9500 and 9900; also without sharing 9800
    # and 10200. Steps (per seed, then the mean): baseline 10000 - 9800 = 200 and -200:
    # 0; sharing 300 and 300: 3%; speedup 500 and 500: 5%; shrinking 4000 and 4200: 41%
    # of EASY's 10000, with a 95% half-width of t(0.975, 1) x 141.42 / sqrt(2) = 12.706 x
    # 100 = 1271 s, 13%.
    table = _table({
        "easy": [10000.0], NS: [5000.0, 5200.0], "ns without shrinking": [9000.0, 9400.0],
        "ns without shrinking, speedup": [9500.0, 9900.0],
        "ns without shrinking, speedup, sharing": [9800.0, 10200.0],
    })  # fmt: skip
    a = attributions(table, [NS], {NS: NS_OFF}, "easy")[NS]
    assert [p.what for p in a.parts] == ["baseline", "sharing", "speedup", "shrinking"]
    assert [p.gain for p in a.parts] == pytest.approx([0.0, 300.0, 500.0, 4100.0])
    assert sum(p.gain for p in a.parts) == pytest.approx(10000.0 - 5100.0)
    assert a.parts[-1].half == pytest.approx(12.7062 * 100.0, rel=1e-4)
    assert a.assumed == ["speedup", "shrinking"]
    text = _verdict(table, NS, "nodeshare", NS_OFF)
    assert text[0].startswith("**Shrink jobs (malleable): ns.**")
    assert "**Share nodes" not in " ".join(text)
    assert (
        "shrinking jobs onto fewer processors (assumes malleable jobs): 41% lower (± 13%)"
        in (text[1])
    )
    assert "sharing nodes: 3% lower (± 0%)" in text[1]
    # Where sharing itself gives the most (rigid jobs: no shrinking step), it says so.
    table = _table({
        "easy": [10000.0], NS: [6000.0, 6000.0], "ns without speedup": [6500.0, 6500.0],
        "ns without speedup, sharing": [9000.0, 9000.0],
    })  # fmt: skip
    rigid = [("ns without speedup", ["speedup"]), ("ns without speedup, sharing",
             ["speedup", "sharing"])]  # fmt: skip
    assert _verdict(table, NS, "nodeshare", rigid)[0].startswith("**Share nodes: ns.**")


def test_a_pairing_gain_under_smt_names_smt() -> None:
    # EASY 10000; LOMARC 6000 with SMT, 8000 without, 9000 without pairing as well:
    # baseline 10%, pairing 10%, SMT 20%, the largest.
    off = [("lm without SMT", ["SMT"]), ("lm without SMT, pairing", ["SMT", "pairing"])]
    rows = {"easy": [10000.0], "lm": [6000.0], "lm without SMT": [8000.0],
            "lm without SMT, pairing": [9000.0]}  # fmt: skip
    head = _verdict(_table(rows), "lm", "lomarc", off)[0]
    assert head.startswith("**Pair jobs on SMT (hyperthreaded) processors: lm.**")
    # Pairing the larger part, still under SMT: the headline names SMT too.
    rows["lm without SMT"] = [6500.0]
    head = _verdict(_table(rows), "lm", "lomarc", off)[0]
    assert head.startswith("**Pair jobs on SMT (hyperthreaded) processors: lm.**")
    assert "largest part of its gain comes from pairing jobs on a processor" in head
    # On standard processors (no SMT step), plain pairing.
    rows = {"easy": [10000.0], "lm": [6500.0], "lm without pairing": [9000.0]}
    head = _verdict(_table(rows), "lm", "lomarc", [("lm without pairing", ["pairing"])])[0]
    assert head.startswith("**Pair jobs: lm.**")


def test_a_gain_from_the_schedulers_order_is_not_credited_to_time_slicing() -> None:
    # EASY 10000; gang 8000; gang without time slicing 8100: 19% of the 20% is the order.
    rows = {"easy": [10000.0], "gang": [8000.0], "gang without time slicing": [8100.0]}
    off = [("gang without time slicing", ["time slicing"])]
    head = _verdict(_table(rows), "gang", "gang", off)[0]
    assert head.startswith("**gang is faster, but not from time slicing.**")
    assert "Time-slice" not in head


def test_each_family_gets_its_chain_of_controls() -> None:
    # Default node sharing shrinks and has the preset's speedup: three controls. Rigid
    # jobs (degraded=False) skip the shrinking step; LOMARC on a standard CPU skips SMT.
    ns = control_arms(Arm("n", "nodeshare-easy", {}, random=True))
    assert [c.off for c in ns] == [
        ["shrinking"],
        ["shrinking", "speedup"],
        ["shrinking", "speedup", "sharing"],
    ]
    assert ns[-1].machine == {"max_jobs_per_node": 1} and all(c.random for c in ns)
    assert ns[1].params == {"degraded": False, "speedup_half": 1.0, "speedup_quarter": 1.0}
    rigid = control_arms(Arm("n", "nodeshare-easy", {"degraded": False}, random=True))
    assert [c.off for c in rigid] == [["speedup"], ["speedup", "sharing"]]
    smt = control_arms(Arm("l", "lomarc", {}, random=True))
    assert [c.off for c in smt] == [["SMT"], ["SMT", "pairing"]]
    assert smt[1].params == {"cpu": "standard", "search": "none", "running": False}
    assert [c.off for c in control_arms(Arm("l", "lomarc-n", {}))] == [["pairing"]]
    assert control_arms(Arm("g", "gang"))[0].params == {"mpl": 1}
    assert control_arms(Arm("e", "easy")) == []


def test_rigid_jobs_and_no_smt_unless_the_operator_says_so() -> None:
    where = {"kind": "swf", "path": "bundled:example", "name": "example"}
    probe = open_workload("bundled:example")
    names = ["easy", "nodeshare-easy", "lomarc", "lomarc(cpu=hyperthreaded)"]
    c = plan(where, policies=names, seeds=1, flags=None, probe=probe, robustness=False)
    assert [a.label for a in c.main] == [
        "easy", "nodeshare-easy(degraded=False)", "lomarc(cpu=standard)",
        "lomarc(cpu=hyperthreaded)",
    ]  # fmt: skip
    c = plan(where, policies=names[:3], seeds=1, flags=None, probe=probe, robustness=False,
             smt=True, malleable=True)  # fmt: skip
    assert [a.label for a in c.main] == ["easy", "nodeshare-easy", "lomarc"]
    assert c.assumptions == {"smt": True, "malleable": True, "robustness": False, "seeds": 1}


# -- end to end ---------------------------------------------------------------------------


def _shared_trace(name: str) -> Path:
    """A trace of the shared folder beside the repository (or beside its worktree)."""
    here = Path(__file__).resolve()
    places = [here.parents[k] / "shared" / "traces" / name for k in (3, 4)]
    return next((p for p in places if p.is_file()), places[0])


BLUE = _shared_trace("SDSC-BLUE-2000-4.2-cln.swf.gz")


def _verdict_of(out: Path) -> str:
    return (out / "report.md").read_text().split("## Verdict")[1].split("## How it was run")[0]


def _library_verdict(out: Path, **said: bool) -> tuple[list[str], pd.DataFrame]:
    """The verdict of a quick comparison of EASY and node sharing on the bundled example
    (16 nodes of 4 cores), without drawing the report."""
    where = {"kind": "swf", "path": "bundled:example", "name": "example"}
    c = plan(where, policies=["easy", "nodeshare-easy"], seeds=1, flags=None,
             probe=open_workload("bundled:example"), robustness=False, **said)  # fmt: skip
    out.mkdir()
    run(c, out)
    comparison, table, jobs = load_store(out)
    summary = summary_table(table, [a.label for a in comparison.main])
    return report_verdict(comparison, table, jobs, summary, None), table


def test_on_the_example_shrinking_is_headlined_as_shrinking(tmp_path: Path) -> None:
    # Malleable jobs: node sharing beats EASY, and its control runs put the gain on
    # shrinking, not on sharing.
    text, _ = _library_verdict(tmp_path / "m", malleable=True)
    assert text[0].startswith("**Shrink jobs (malleable): nodeshare-easy.**")
    assert "**Share nodes" not in " ".join(text)
    assert "shrinking jobs onto fewer processors (assumes malleable jobs): " in text[1]
    # Rigid jobs (the default): no shrinking step, and "Share nodes" only where sharing
    # itself gains the most.
    text, table = _library_verdict(tmp_path / "r")
    assert "shrinking jobs onto fewer processors" not in " ".join(text)
    means = table.groupby("arm")["mean_turnaround"].mean()
    off = "nodeshare-easy(degraded=False) without speedup"
    if text[0].startswith("**Share nodes"):
        assert means[f"{off}, sharing"] > means[off]


@pytest.mark.slow
@pytest.mark.skipif(not BLUE.is_file(), reason=f"needs the SDSC-BLUE trace at {BLUE}")
def test_on_a_blue_extract_shrinking_is_headlined_as_shrinking(tmp_path: Path) -> None:
    # The first 5,000 jobs of SDSC-BLUE (144 nodes of 8 cores), malleable jobs.
    lines, jobs = [], 0
    with gzip.open(BLUE, "rt") as f:
        for line in f:
            if not line.startswith(";"):
                jobs += 1
                if jobs > 5000:
                    break
            lines.append(line)
    trace = tmp_path / "blue5k.swf"
    trace.write_text("".join(lines))
    out = tmp_path / "out"
    policies = "conservative,easy,nodeshare-easy"
    args = ["compare", str(trace), "--out", str(out), "--quick", "--policies", policies]
    assert main([*args, "--malleable"]) == 0
    text = _verdict_of(out)
    assert text.startswith("\n\n**Shrink jobs (malleable): nodeshare-easy.**")
    assert "**Share nodes" not in text
    # The assumptions and what --quick left out, beside the verdict; the control runs'
    # table after the summary.
    assert "malleable jobs: a job may run shrunk" in text
    assert "memory speedup" in text and "robustness sweeps" in text
    assert "## Where the gain comes from" in (out / "report.md").read_text()


# -- the machine against the log ------------------------------------------------------------

#: Two jobs in epoch seconds: 3 processors on [60, 660) and 2 on [300, 800) after the
#: first submission: at most 3 + 2 = 5 busy at once.
TINY = (
    "JobID|State|NCPUS|Timelimit|Submit|Start|End|JobIDRaw\n"
    "1|COMPLETED|3|10|1709287200|1709287260|1709287860|1\n"
    "2|COMPLETED|2|10|1709287200|1709287500|1709288000|2\n"
)


def _import(tmp_path: Path, capsys: pytest.CaptureFixture[str], dump: Path, *flags: str) -> str:
    out = tmp_path / f"t{len(list(tmp_path.iterdir()))}.swf"
    assert main(["trace", "import", "slurm", str(dump), "-o", str(out), *flags]) == 0
    return capsys.readouterr().out


def test_a_machine_too_large_or_too_small_for_the_log_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = tmp_path / "tiny.txt"
    dump.write_text(TINY)
    # 4 nodes of 8 cores: 5 of 32 (16%) at most.
    text = _import(tmp_path, capsys, dump, "--nodes", "4", "--cores", "8")
    assert "warning   the log never has more than 5 of the stated 32 processors busy at " in text
    assert "with one core per node it would have 4" in text
    # 4 single-core nodes: 5 busy on 4.
    text = _import(tmp_path, capsys, dump, "--nodes", "4", "--cores", "1")
    assert "the log has up to 5 processors busy at once, more than the 4" in text
    # 5 or 9 processors: the log fits (5 of 9 is above half).
    for nodes in ("5", "9"):
        assert "warning" not in _import(tmp_path, capsys, dump, "--nodes", nodes, "--cores", "1")
    # compare says so before any run, and beside the verdict.
    swf = tmp_path / "big.swf"
    assert main(["trace", "import", "slurm", str(dump), "-o", str(swf), "--nodes", "4",
                 "--cores", "8"]) == 0  # fmt: skip
    where = {"kind": "swf", "path": str(swf), "name": "big"}
    c = plan(where, policies=["easy"], seeds=1, flags=None, probe=open_workload(str(swf)))
    assert c.notes[0].startswith("machine check: the log never has more than 5 of the stated 32")
    # validate too.
    capsys.readouterr()
    assert main(["validate", str(swf)]) == 0
    assert "warning   the log never has more than 5 of the stated 32" in capsys.readouterr().out


CTC = _shared_trace("CTC-SP2-1996-3.1-cln.swf.gz")


@pytest.mark.skipif(not CTC.is_file(), reason=f"needs the CTC-SP2 trace at {CTC}")
def test_a_ctc_import_with_eight_cores_per_node_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # CTC-SP2's first 3,000 jobs as a sacct dump (epoch seconds): its 338 single-processor
    # nodes given as 8-core nodes (2,704 processors) are never half busy.
    rows = ["JobID|State|NCPUS|Timelimit|Submit|Start|End|JobIDRaw"]
    with gzip.open(CTC, "rt") as f:
        for line in f:
            if line.startswith(";"):
                continue
            v = line.split()
            sub, wait, run, procs, req = (int(float(x)) for x in (v[1], v[2], v[3], v[4], v[8]))
            if wait < 0 or run < 0 or procs <= 0:
                continue
            t0 = 820_000_000 + sub
            rows.append(f"{v[0]}|COMPLETED|{procs}|{max(req // 60, 1)}|{t0}|{t0 + wait}|"
                        f"{t0 + wait + run}|{v[0]}")  # fmt: skip
            if len(rows) > 3000:
                break
    dump = tmp_path / "ctc.txt"
    dump.write_text("\n".join(rows) + "\n")
    text = _import(tmp_path, capsys, dump, "--nodes", "338", "--cores", "8")
    assert "of the stated 2704 processors busy at once" in text
    assert "with one core per node it would have 338" in text
    # One core per node: the machine is not too large; at times the log has more than
    # 338 processors busy, and that is flagged instead.
    text = _import(tmp_path, capsys, dump, "--nodes", "338", "--cores", "1")
    assert "never has more" not in text and "more than the 338 of the stated machine" in text


# -- --baseline fitted ------------------------------------------------------------------------


def _fcfs_log(tmp_path: Path) -> Path:
    """A log FCFS reproduces exactly, on 4 single-core nodes, 20 times over (every
    1000 s): a 3-processor job at 0 runs 100 s; a 4-processor job at 1 waits for it
    (starts at 100); a 1-processor job of 50 s at 2 starts at 200, after both, where
    EASY or conservative backfilling would start it at once."""
    lines = ["; MaxNodes: 4", "; MaxProcs: 4"]
    for k in range(20):
        for j, (sub, wait, ran, procs) in enumerate(((0, 0, 100, 3), (1, 99, 100, 4),
                                                     (2, 198, 50, 1))):  # fmt: skip
            lines.append(f"{3 * k + j + 1} {1000 * k + sub} {wait} {ran} {procs} -1 -1 {procs} "
                         f"{ran} -1 1 1 1 -1 -1 -1 -1 -1")  # fmt: skip
    path = tmp_path / "fcfs.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_fitted_baseline_without_backfilling_says_which_arms_backfill(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["compare", str(_fcfs_log(tmp_path)), "--out", str(out), "--quick"]
    assert main([*args, "--baseline", "fitted", "--policies", "easy,gang"]) == 0
    text = (out / "report.md").read_text()
    verdict_text = text.split("## Verdict")[1].split("## How it was run")[0]
    assert "*Baseline*: the fitted baseline fcfs order=submit" in verdict_text
    assert "`fcfs(order=submit)` schedules with no backfilling, submit order" in verdict_text
    assert "`gang` backfills where the baseline does not" in verdict_text
    # EASY stays in the table, beside the fitted baseline.
    assert "\n| easy |" in text
    # FCFS: turnarounds 100, 99 + 100 and 198 + 50 s, mean 182.33 s a block. Gang
    # without time slicing (one row, EASY backfilling) starts the 1-processor job at
    # once: 100, 199 and 50, mean 116.33 s: its order and backfilling alone give
    # (182.33 - 116.33) / 182.33 = 36% lower, which the headline never calls time slicing.
    assert "(the same scheduler without time slicing, against fcfs(order=submit)): 36% lower" in (
        verdict_text
    )
    assert "**Time-slice" not in verdict_text


def test_validate_refuses_a_log_without_recorded_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _fcfs_log(tmp_path)
    rows = [line if line.startswith(";") else " ".join([*line.split()[:2], "-1",
            *line.split()[3:]]) for line in log.read_text().splitlines()]  # fmt: skip
    log.write_text("\n".join(rows) + "\n")
    assert main(["validate", str(log)]) == 2
    err = capsys.readouterr().err
    assert "fcfs.swf: no job records its start" in err
    assert "validate compares the logged starts" in err


@pytest.mark.slow
def test_a_stored_fit_is_reused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _fcfs_log(tmp_path)
    fit = tmp_path / "fit"
    assert main(["validate", str(log), "--fit", "--out", str(fit)]) == 0
    cells = sorted(p.name for p in fit.rglob("*.parquet"))
    out = tmp_path / "out"
    args = ["compare", str(log), "--out", str(out), "--quick", "--policies", "easy,gang"]
    assert main([*args, "--baseline", f"fitted:{fit}"]) == 0
    assert f"reusing the fit stored in {fit}" in capsys.readouterr().out
    assert sorted(p.name for p in fit.rglob("*.parquet")) == cells  # nothing ran again
    assert not (out / "fit").exists()


def test_a_too_wide_job_names_compares_flags_and_machine_fixes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The header says 4 processors; a job asks for 8.
    trace = tmp_path / "w.swf"
    trace.write_text(
        "; MaxNodes: 4\n; MaxProcs: 4\n1 0 0 10 8 -1 -1 8 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
    )
    assert main(["compare", str(trace), "--out", str(tmp_path / "o"), "--quick"]) == 2
    err = capsys.readouterr().err
    assert "job 1 asks for 8 processors but the machine has 4" in err
    assert "--machine nodes=N,cores=C" in err and "--too-wide" not in err
    from cosched.cli.compare import _flags, _probe

    assert len(_probe(str(trace), None, _flags("nodes=4,cores=2"))) == 1


def test_who_wins_counts_each_job_once(tmp_path: Path) -> None:
    from cosched.compare.render import _facts, _winners_losers
    from cosched.metrics.summary import JobClasses

    where = {"kind": "swf", "path": "bundled:example", "name": "example", "limit": 60}
    c = plan(where, policies=["easy", "nodeshare-easy"], seeds=2, flags=None,
             probe=open_workload("bundled:example", limit=60), robustness=False,
             controls=False)  # fmt: skip
    run(c, tmp_path)
    comparison, table, jobs = load_store(tmp_path)
    wl = _winners_losers(_facts(comparison, table, jobs, JobClasses()))
    assert wl is not None and int(wl["jobs"].sum()) == 60  # not 60 x 2 seeds


def test_local_slurm_times_without_tz_are_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    local = tmp_path / "local.txt"
    local.write_text(
        "JobID|State|NCPUS|Timelimit|Submit|Start|End|JobIDRaw\n"
        "1|COMPLETED|1|10|2024-03-01T10:00:00|2024-03-01T10:01:00|2024-03-01T10:02:00|1\n"
    )
    assert "warning   " + str(local) + " has local date-times" in _import(tmp_path, capsys, local)
    assert "local date-times" not in _import(tmp_path, capsys, local, "--tz", "Europe/Berlin")
    epoch = tmp_path / "epoch.txt"
    epoch.write_text(TINY)
    assert "local date-times" not in _import(tmp_path, capsys, epoch)


def test_compare_states_the_import_counts_of_an_imported_log(tmp_path: Path) -> None:
    # The Slurm fixture (tests/workload/test_importers.py works its counts out by hand):
    # 14 records, 9 jobs kept, 3 dropped, 1 cancelled before it started.
    swf = tmp_path / "site.swf"
    sacct = Path(__file__).parents[1] / "workload" / "fixtures" / "sacct_cases.txt"
    assert main(["trace", "import", "slurm", str(sacct), "-o", str(swf)]) == 0
    where = {"kind": "swf", "path": str(swf), "name": "site"}
    c = plan(where, policies=["easy"], seeds=1, flags=None, probe=open_workload(str(swf)))
    assert (
        "imported from the site's accounting log: read 14 sacct records: 9 jobs kept, "
        "3 dropped, 1 cancelled before they started (dropped, --unstarted) (the trace header)"
    ) in c.notes
    # An archive log has no import counts, and compare says none.
    bundled = {"kind": "swf", "path": "bundled:example", "name": "example"}
    c = plan(bundled, policies=["easy"], seeds=1, flags=None,
             probe=open_workload("bundled:example"))  # fmt: skip
    assert not any(n.startswith("imported from") for n in c.notes)


def test_a_mechanism_that_still_gains_clearly_beside_the_order_is_named() -> None:
    # Three seeds. EASY 10000; gang without time slicing 9000 (order: 10%); gang 8700,
    # 8800, 8600 (time slicing: 300, 200, 400 s, all above zero): the order is the
    # largest part, and time slicing adds to it beyond its interval.
    rows = {
        "easy": [10000.0],
        "gang": [8700.0, 8800.0, 8600.0],
        "gang without time slicing": [9000.0, 9000.0, 9000.0],
    }
    off = [("gang without time slicing", ["time slicing"])]
    head = _verdict(_table(rows), "gang", "gang", off)[0]
    assert head.startswith("**Time-slice: gang.**")
    assert "order and backfilling, and time slicing adds to it" in head
