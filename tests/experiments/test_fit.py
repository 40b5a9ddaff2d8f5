"""``cosched validate --fit``: the fitted baseline, checked on logs cosched itself made.

A log written from a schedule that a known configuration produced must be reproduced
exactly by that configuration (KS 0: the same jobs on the same machines under the same
deterministic policy), so the fit must choose it; and the choice must not move when the
held-out jobs' logged starts change, since it reads the fit part only.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cosched.cli._fit import fitted_arm
from cosched.cli.main import main
from cosched.compare.study import plan
from cosched.engine.simulation import simulate
from cosched.errors import ConfigError
from cosched.experiments.executors import Serial
from cosched.experiments.fit import (
    PLAIN_EASY,
    Baseline,
    FitInput,
    FitResult,
    best_runnable,
    choose,
    lacks,
    prepare,
    run_fit,
    space,
)
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.policies.recorded import Recorded
from cosched.policies.requirements import MachineFlags, fit_workload
from cosched.workload.job import Workload
from cosched.workload.loader import load_workload
from cosched.workload.swf_write import write_swf

#: The generating configuration: EASY, window 20, two partitions of 32 and 16 processors.
SIZES = (32, 16)
TRUTH = Baseline("easy", 20, "submit", True, "requested")


def _jobs(rng: np.random.Generator, n: int, sizes: tuple[int, ...] = SIZES) -> pd.DataFrame:
    """An overloaded log (queues far longer than the window) in partitions of ``sizes``;
    each partition's first job is as wide as the partition, so its size is in the log."""
    part = np.where(rng.random(n) < 0.65, 1, 2) if len(sizes) == 2 else np.ones(n, dtype=int)
    width = np.array([sizes[p - 1] for p in part])
    procs = np.minimum(width, 2 ** rng.integers(0, 5, n))
    for p in range(1, len(sizes) + 1):
        procs[np.flatnonzero(part == p)[0]] = sizes[p - 1]
    run = rng.integers(60, 4000, n).astype(float)
    return pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit_time": np.cumsum(rng.integers(0, 120, n)).astype(float),
            "run_time": run,
            "procs": procs,
            "requested_time": run * rng.integers(1, 5, n),
            "partition": part.astype(float),
        }
    )


def _log(tmp: Path, n: int = 500, seed: int = 3, sizes: tuple[int, ...] = SIZES) -> Path:
    """Simulate EASY with window 20 (each partition its own machine) and write the log
    as SWF."""
    t = _jobs(np.random.default_rng(seed), n, sizes)
    start = np.full(n, np.nan)
    for p, size in enumerate(sizes, start=1):
        mask = (t["partition"] == p).to_numpy()
        w = Workload.from_table(t.loc[mask].reset_index(drop=True))
        policy = make_policy("easy", window=20)
        r = simulate(w, Platform.of_procs(size), policy, rng=np.random.default_rng(0))
        start[mask] = r.jobs["start_time"].to_numpy()
    t["wait_time"] = start - t["submit_time"]
    path = tmp / "made.swf"
    header = {"MaxProcs": str(sum(sizes)), "MaxNodes": str(sum(sizes))}
    write_swf(Workload.from_table(t), path, header=header)
    return path


def _fit(path: Path, out: Path, split: float = 0.5, **kw: Any):  # type: ignore[no-untyped-def]
    w = load_workload(path)
    w_rec, platform, _ = fit_workload(Recorded.requires, w, MachineFlags())
    return run_fit(prepare(w_rec, platform, split), out, **kw)


def test_the_fit_recovers_the_configuration_that_made_the_log(tmp_path: Path) -> None:
    res = _fit(_log(tmp_path), tmp_path / "store")
    assert res.input.sizes == SIZES  # the sizes read from the widest jobs
    assert res.chosen == TRUTH
    row = res.row(TRUTH)
    # The same deterministic schedule: the waits are the logged ones, on both parts.
    assert row["fit.ks"] == 0.0 and row["held.ks"] == 0.0
    assert row["held.within"] == 1.0
    # Plain EASY (one pool, no window) is not that schedule.
    assert res.row(PLAIN_EASY)["held.ks"] > 0.0
    features = {f for f, _, _ in res.contributions()}
    assert features == {"window", "partitions"}


def test_the_fit_is_deterministic_and_resumable(tmp_path: Path) -> None:
    path = _log(tmp_path, n=200, seed=5)
    a = _fit(path, tmp_path / "a")
    b = _fit(path, tmp_path / "b")
    again = _fit(path, tmp_path / "a")  # every cell already stored
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.table, again.table)
    assert a.chosen == b.chosen == again.chosen


def test_the_choice_never_reads_held_out_jobs(tmp_path: Path) -> None:
    # With successive halving from the first 30 jobs (then 90, then all 200).
    path = _log(tmp_path, n=200, seed=5)
    base = _fit(path, tmp_path / "a", first_rung=30)
    # Move every held-out job's logged start by up to two days; the fit part is as made.
    w = load_workload(path)
    k = base.input.fit_jobs
    t = w.table.copy()
    rng = np.random.default_rng(1)
    later = rng.integers(0, 2 * 86400, len(t) - k).astype(float)
    t.loc[k:, "wait_time"] = t.loc[k:, "wait_time"].to_numpy() + later
    moved = tmp_path / "moved.swf"
    write_swf(Workload.from_table(t), moved, header=dict(w.header))
    other = _fit(moved, tmp_path / "b", first_rung=30)
    assert set(base.table["jobs"]) == {30, 90, 200}
    fit_cols = [c for c in base.table if c.startswith("fit.")]
    pd.testing.assert_frame_equal(base.table[fit_cols], other.table[fit_cols])
    assert list(other.table["config"]) == list(base.table["config"])
    assert other.chosen == base.chosen
    # The held-out scores did read the moved starts.
    assert not base.table["held.ks"].equals(other.table["held.ks"])


def test_the_space_is_declared_and_plain_easy_first() -> None:
    full = space(queues=True, partitions=True)
    assert full[0] == PLAIN_EASY and len(set(full)) == len(full)
    # fcfs: 4 orders; easy: 2 windows x 4 orders; conservative: 2 orders; x 2 x 2.
    assert len(full) == (4 + 8 + 2) * 2 * 2
    small = space(queues=False, partitions=False)
    assert len(small) == (3 + 6 + 2) * 2
    assert all(b.order != "queue" and not b.partitions for b in small)


def _four_queued(queue: list[float], **extra: list[float]) -> pd.DataFrame:
    """Four one-processor jobs of 10 s, submitted at 0, 1, 2, 3, in these queues."""
    return pd.DataFrame(
        {
            "job_id": [1, 2, 3, 4],
            "submit_time": [0.0, 1.0, 2.0, 3.0],
            "run_time": [10.0] * 4,
            "procs": [1] * 4,
            "requested_time": [10.0] * 4,
            "queue": queue,
            **extra,
        }
    )


def test_queue_ranks_follow_the_fit_part_waits(tmp_path: Path) -> None:
    # Queue 7 waits 0 s, queue 3 waits 500 s in the fit part: 7 ranks first.
    t = _four_queued([3.0, 7.0, 3.0, 7.0], recorded_start=[500.0, 1.0, 9000.0, 3.0])
    inp = prepare(Workload.from_table(t), Platform.of_procs(4), 0.5)
    assert inp.workload.table["queue"].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert inp.queues
    assert "7, 3" in inp.notes[0]


def test_cli_fit_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _log(tmp_path, n=300, seed=5)
    assert main(["validate", str(path), "--fit", "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert f"chosen    {TRUTH.label()}" in out
    assert "plain     EASY held out" in out
    assert "assumed   partitions=on makes each partition (SWF field 16)" in out
    assert "judgement close (held out)" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--fit", "--split", "1.5"], "--split must be between 0 and 1"),
        (["--split", "0.6"], "go with --fit"),
        (["--fit", "--workers", "0"], "--workers"),
        (["--fit", "--figure", "f.png"], "--figure goes without --fit"),
    ],
)
def test_cli_fit_bad_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    path = _log(tmp_path, n=50, seed=5)
    try:
        code = main(["validate", str(path), *extra])
    except SystemExit as exc:  # argparse's own check of the flag
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_fit_needs_recorded_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = _jobs(np.random.default_rng(0), 20).drop(columns="partition")
    path = tmp_path / "nostarts.swf"
    write_swf(Workload.from_table(t), path, header={"MaxProcs": "48"})
    assert main(["validate", str(path), "--fit"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no job records its start (SWF field 3" in err and len(err.splitlines()) == 1


def test_the_queue_order_serves_lower_queues_first() -> None:
    # One processor. Job 1 (queue 2) runs 0-10; meanwhile 2 (queue 5), 3 (queue 1) and
    # 4 (no queue) arrive: 3 runs next, then 2, then 4, whatever their submit order.
    t = _four_queued([2.0, 5.0, 1.0, np.nan])
    for name in ("fcfs", "easy"):
        r = simulate(Workload.from_table(t), Platform.of_procs(1), make_policy(name, order="queue"))
        starts = dict(zip(r.jobs["job_id"], r.jobs["start_time"], strict=True))
        assert starts == {1: 0.0, 3: 10.0, 2: 20.0, 4: 30.0}


def test_cli_fit_on_a_slurm_log(capsys: pytest.CaptureFixture[str]) -> None:
    # The importer writes Slurm's QOS as the queue and its partition as the partition.
    sacct = Path(__file__).resolve().parents[1] / "workload" / "fixtures" / "sacct_cases.txt"
    assert main(["validate", str(sacct), "--fit"]) == 0
    out = capsys.readouterr().out
    assert "assumed   order=queue ranks the queues (SWF field 15)" in out
    assert "assumed   partitions=on makes each partition (SWF field 16)" in out
    # The whole space (56: queues and partitions), then the site stage: 11 configurations
    # around plain EASY, here also the best FCFS or EASY configuration by fit score.
    assert "run whole, by val score" in out


def test_compare_baseline_fitted_is_the_configuration_that_made_the_log(tmp_path: Path) -> None:
    # One partition: the generating configuration is one compare can run as an arm.
    path = _log(tmp_path, n=300, seed=5, sizes=(48,))
    arm, notes, gone, _ = fitted_arm(
        load_workload(path), str(path), None, tmp_path / "fit", Serial()
    )
    assert arm == "easy(order=submit,window=20)" and gone == ()
    assert "KS 0.000, 100.0% started within 3600 s" in notes[0] and "a close match" in notes[0]
    assert len(notes) == 1  # the best fit itself is the arm
    # the report's verdict carries the baseline's held-out match
    from cosched.compare.render import baseline_paragraphs

    (paragraph,) = baseline_paragraphs(["the reference baseline is x (--baseline)", *notes])
    assert (
        paragraph.startswith("*Baseline*: the fitted baseline easy window=20")
        and "KS 0.000" in paragraph
    )


def test_compare_baseline_fitted_runs_the_fitted_partitions(tmp_path: Path) -> None:
    # Two partitions (SWF field 16 values 1 and 2, 32 and 16 processors): the best fit
    # runs in them, and compare carries them to its arms.
    path = _log(tmp_path, n=300, seed=5)
    arm, notes, gone, parts = fitted_arm(
        load_workload(path), str(path), None, tmp_path / "fit", Serial()
    )
    assert arm == TRUTH.policy_string() and gone == ()
    assert parts == ((1.0, 32), (2.0, 16))
    assert "partitions=on" in notes[0] and "KS 0.000" in notes[0]


def test_compare_baseline_replaces_the_baselines(tmp_path: Path) -> None:
    path = _log(tmp_path, n=50, seed=5)
    probe = load_workload(path)
    entry = {"kind": "swf", "path": str(path), "name": "made"}
    c = plan(entry, policies=["fcfs", "easy", "conservative"], seeds=1, flags=None,
             probe=probe, robustness=False, baseline="easy(window=20)")  # fmt: skip
    assert [a.label for a in c.main] == ["easy(window=20)"]
    assert "the reference baseline is easy(window=20) (--baseline)" in c.notes
    with pytest.raises(ConfigError, match="the baseline must be one of fcfs, easy"):
        plan(entry, policies=["easy"], seeds=1, flags=None, probe=probe, baseline="lomarc")


#: The generating configuration of the user-limited log: plain EASY, two jobs per user.
USER_LIMIT = 2


def _limited_log(tmp: Path, n: int = 400, seed: int = 7) -> Path:
    """An overloaded one-pool log of 6 users made by EASY with at most ``USER_LIMIT``
    running jobs per user, written as SWF."""
    rng = np.random.default_rng(seed)
    t = _jobs(rng, n, sizes=(32,)).drop(columns="partition")
    t["user_id"] = rng.integers(1, 7, n).astype(float)
    w = Workload.from_table(t)
    policy = make_policy("easy", max_jobs_per_user=USER_LIMIT)
    r = simulate(w, Platform.of_procs(32), policy, rng=np.random.default_rng(0))
    t["wait_time"] = r.jobs["start_time"].to_numpy() - t["submit_time"]
    path = tmp / "limited.swf"
    write_swf(Workload.from_table(t), path, header={"MaxProcs": "32", "MaxNodes": "32"})
    return path


def test_the_fit_recovers_a_per_user_limit(tmp_path: Path) -> None:
    res = _fit(_limited_log(tmp_path), tmp_path / "store")
    # The fit part never shows a user above the limit, and (overloaded) reaches it.
    assert res.input.limits is not None and res.input.limits[0] == USER_LIMIT
    truth = Baseline("easy", max_jobs_per_user=USER_LIMIT)
    assert res.chosen == truth
    row = res.row(truth)
    assert row["fit.ks"] == 0.0 and row["held.ks"] == 0.0
    # Without the limit the schedule is not the logged one.
    assert res.row(PLAIN_EASY)["held.ks"] > 0.0
    assert {f for f, _, _ in res.contributions()} == {"max_jobs_per_user"}


def test_the_site_stage_never_reads_held_out_jobs(tmp_path: Path) -> None:
    path = _limited_log(tmp_path, n=300, seed=8)
    base = _fit(path, tmp_path / "a")
    w = load_workload(path)
    k = base.input.fit_jobs
    t = w.table.copy()
    later = np.random.default_rng(2).integers(0, 2 * 86400, len(t) - k).astype(float)
    t.loc[k:, "wait_time"] = t.loc[k:, "wait_time"].to_numpy() + later
    moved = tmp_path / "moved.swf"
    write_swf(Workload.from_table(t), moved, header=dict(w.header))
    other = _fit(moved, tmp_path / "b")
    assert other.input.limits == base.input.limits
    assert list(other.table["config"]) == list(base.table["config"])
    fit_cols = [c for c in base.table if c.startswith("fit.")]
    pd.testing.assert_frame_equal(base.table[fit_cols], other.table[fit_cols])
    assert other.chosen == base.chosen
    assert not base.table["held.ks"].equals(other.table["held.ks"])


def test_compare_runs_the_fitted_user_limit_as_its_baseline(tmp_path: Path) -> None:
    from cosched.compare.study import parse_arm, scheduling

    path = _limited_log(tmp_path, n=300, seed=8)
    arm, notes, _, _ = fitted_arm(load_workload(path), str(path), None, tmp_path / "fit", Serial())
    assert arm == f"easy(order=submit,max_jobs_per_user={USER_LIMIT})"
    assert "KS 0.000" in notes[0]
    parsed = parse_arm(arm)
    assert make_policy(parsed.policy, **parsed.params).params()["max_jobs_per_user"] == 2
    # The report says what the baseline's scheduler does, its limit included.
    assert scheduling(parsed.policy, parsed.params) == (
        True,
        "EASY backfilling, submit order, at most 2 running jobs per user",
    )


def test_user_peaks_by_hand() -> None:
    from cosched.experiments.fit import user_peaks

    # Fit part (first 4): user 1 holds [0, 100) x 2 and [50, 150) x 3 at once (2 jobs,
    # 5 processors), later [200, 300) x 1; user 2 holds 8 processors in one job. The
    # held-out job (user 1, 3 more jobs' worth at 60) is not read.
    t = pd.DataFrame(
        {
            "user_id": [1.0, 1.0, 2.0, 1.0, 1.0],
            "recorded_start": [0.0, 50.0, 0.0, 200.0, 60.0],
            "run_time": [100.0, 100.0, 10.0, 100.0, 1000.0],
            "procs": [2, 3, 8, 1, 30],
        }
    )
    assert user_peaks(t, 4) == (2, 8)
    assert user_peaks(t, 5) == (3, 35)


#: The outages of the log made with a known outage: (start, end), the whole machine,
#: one in each part; nobody submits while the machine is down.
OUTAGES = ((0.25, 6 * 3600.0), (0.75, 8 * 3600.0))


def _outage_log(tmp: Path, n: int = 400, seed: int = 7) -> tuple[Path, list[tuple[float, float]]]:
    """The user-limited log (``USER_LIMIT`` jobs per user) with two whole-machine
    outages, one in the fit part and one held out: the submissions after each outage's
    start are moved past its end, and EASY with the limit runs on a machine that loses
    all 32 processors over each (drained as they come free)."""
    rng = np.random.default_rng(seed)
    t = _jobs(rng, n, sizes=(32,)).drop(columns="partition")
    t["user_id"] = rng.integers(1, 7, n).astype(float)
    submit = t["submit_time"].to_numpy().copy()
    windows = []
    for share, length in OUTAGES:
        i = int(share * n)
        a = submit[i - 1] + 30.0  # after the last submission before it
        submit[i:] += a + length - submit[i] + 30.0  # nobody submits until it has ended
        windows.append((a, a + length))
    t["submit_time"] = submit
    w = Workload.from_table(t)
    gone = tuple((a, b, 32) for a, b in windows)
    policy = make_policy("easy", max_jobs_per_user=USER_LIMIT)
    r = simulate(w, Platform(32, unavailable=gone), policy, rng=np.random.default_rng(0))
    t["wait_time"] = r.jobs["start_time"].to_numpy() - t["submit_time"]
    path = tmp / "outages.swf"
    write_swf(Workload.from_table(t), path, header={"MaxProcs": "32", "MaxNodes": "32"})
    return path, windows


@pytest.mark.slow
def test_the_fit_recovers_a_per_user_limit_and_an_outage(tmp_path: Path) -> None:
    path, windows = _outage_log(tmp_path)
    res = _fit(path, tmp_path / "store")
    assert res.input.limits is not None and res.input.limits[0] == USER_LIMIT
    truth = Baseline("easy", max_jobs_per_user=USER_LIMIT, outages=True)
    assert res.chosen == truth
    (a, b), (c, d) = windows
    gone = res.input.unavailable
    # The fit part's outage, read from its starts: blocked from when its drain left a
    # queued job room until the machine came back, whole.
    fit = [iv for iv in gone if iv[0] < b and iv[1] > a]
    assert fit and a <= fit[0][0] < a + 4000.0 and fit[-1][1] == b
    assert max(u for _, _, u in fit) == 32
    # The held-out one, read from the submissions alone: the gap around it, whole.
    held = [iv for iv in gone if iv[0] < d and iv[1] > c]
    assert len(held) == 1 and held[0][0] <= c and d <= held[0][1] <= d + 120.0
    assert held[0][2] == 32
    # Near the logged schedule: the read intervals differ from the true ones only at
    # their edges (a drain shows once a queued job fits; a gap ends at a submission).
    row = res.row(truth)
    assert row["fit.ks"] <= 0.02 and row["held.ks"] <= 0.05 and row["held.within"] == 1.0
    # Without the outages, or without the limit, the held-out match is worse.
    assert res.row(Baseline("easy", max_jobs_per_user=USER_LIMIT))["held.ks"] > row["held.ks"]
    assert res.row(Baseline(outages=True))["held.ks"] > row["held.ks"]


def test_the_outages_read_never_depend_on_held_out_starts(tmp_path: Path) -> None:
    path, _ = _outage_log(tmp_path, n=300, seed=8)
    w = load_workload(path)
    base = prepare(*fit_workload(Recorded.requires, w, MachineFlags())[:2])
    k = base.fit_jobs
    t = w.table.copy()
    later = np.random.default_rng(2).integers(0, 2 * 86400, len(t) - k).astype(float)
    t.loc[k:, "wait_time"] = t.loc[k:, "wait_time"].to_numpy() + later
    moved = tmp_path / "moved.swf"
    write_swf(Workload.from_table(t), moved, header=dict(w.header))
    other = prepare(*fit_workload(Recorded.requires, load_workload(moved), MachineFlags())[:2])
    assert base.unavailable and other.unavailable == base.unavailable
    assert other.limits == base.limits


@pytest.mark.slow
def test_successive_halving_keeps_the_configuration_that_made_the_log(tmp_path: Path) -> None:
    # Prefixes of 40 and 120 jobs before the whole log (250 + 250 jobs): the generating
    # configuration reproduces every prefix too, so it survives and is chosen.
    res = _fit(_log(tmp_path), tmp_path / "store", first_rung=40)
    assert res.chosen == TRUTH and res.row(TRUTH)["held.ks"] == 0.0
    jobs = res.table["jobs"].to_numpy()
    assert set(jobs) == {40, 120, 500} and (jobs == 500).sum() < len(jobs) / 2
    # Plain EASY is always run whole (the report's reference); the rest stopped early
    # have no held-out scores.
    assert res.row(PLAIN_EASY)["jobs"] == 500
    assert res.table.loc[jobs < 500, "held.ks"].isna().all()


@pytest.mark.slow
def test_compare_runs_the_fitted_outages_with_its_baseline(tmp_path: Path) -> None:
    path, _ = _outage_log(tmp_path)
    arm, notes, gone, _ = fitted_arm(
        load_workload(path), str(path), None, tmp_path / "fit", Serial()
    )
    # The best fit replays the outages: it is the reference, and the intervals it
    # replays (both parts' rules) come with it for every arm that can take them.
    res = _fit(path, tmp_path / "fit")  # the stored fit, read again
    assert res.chosen.outages and best_runnable(res) == res.chosen
    assert arm == res.chosen.policy_string() and gone == res.input.unavailable and gone
    assert "outages=on" in notes[0]


# -- the selection rule ----------------------------------------------------------------------


def _scored(rows: list[tuple[Baseline, float, float, float]]) -> FitResult:
    """A fit result by hand: each configuration with its fit, search and validation
    scores, every one run on the whole log (of 10 jobs, 6 in the fit part)."""
    table = pd.DataFrame(
        [
            {"config": b.label(), "jobs": 10, "fit.score": f, "search.score": s, "val.score": v}
            for b, f, s, v in rows
        ]
    )
    w = Workload.from_table(
        pd.DataFrame({"job_id": np.arange(10), "submit_time": np.zeros(10),
                      "run_time": np.ones(10), "requested_time": np.ones(10),
                      "procs": np.ones(10, dtype=int)})
    )  # fmt: skip
    inp = FitInput(w, Platform(4), 6, (), False, ())
    return FitResult(table, PLAIN_EASY, 0.0, inp, 3600.0, tuple(b for b, *_ in rows))


def test_the_choice_reads_the_validation_segment_among_what_beats_plain_easy_on_both() -> None:
    sjf, fcfs, cons = Baseline(order="sjf"), Baseline("fcfs"), Baseline("conservative")
    # sjf: best on the whole fit part and on the validation segment, but worse than plain
    # EASY on the search segment; fcfs beats plain EASY on both segments; conservative
    # too, with a higher validation score.
    res = _scored(
        [(PLAIN_EASY, 0.50, 0.50, 0.50), (sjf, 0.20, 0.60, 0.10),
         (fcfs, 0.40, 0.45, 0.30), (cons, 0.30, 0.20, 0.40)]
    )  # fmt: skip
    assert choose(res, "nested") == fcfs
    assert choose(res, "fit") == sjf and choose(res, "val") == sjf
    # Nothing beats plain EASY on both segments: plain EASY.
    res = _scored([(PLAIN_EASY, 0.5, 0.5, 0.5), (sjf, 0.2, 0.6, 0.1), (fcfs, 0.4, 0.4, 0.6)])
    assert choose(res, "nested") == PLAIN_EASY
    # The margin rule: the simplest within the KS noise of the best validation score.
    assert choose(res, "margin") == PLAIN_EASY  # 6 jobs: a noise of over 0.5
    with pytest.raises(ConfigError, match="unknown selection rule"):
        choose(res, "held")


@pytest.mark.slow
def test_the_fit_recovers_partitions_and_a_per_user_limit_within_them(tmp_path: Path) -> None:
    # EASY in two partitions (32 and 16 processors), at most USER_LIMIT running jobs per
    # user within a partition, 6 users: the limit read within a partition, and chosen.
    from cosched.engine.partitions import simulate_partitioned

    rng = np.random.default_rng(4)
    n = 600
    t = _jobs(rng, n)
    t["submit_time"] *= 2.0  # loaded, not overloaded: the limit is what holds jobs
    t["user_id"] = rng.integers(1, 7, n).astype(float)
    part = t["partition"].to_numpy().astype(int) - 1
    r = simulate_partitioned(
        Workload.from_table(t), Platform(48),
        lambda: make_policy("easy", max_jobs_per_user=USER_LIMIT), part, SIZES,
    )  # fmt: skip
    t["wait_time"] = r.jobs["start_time"].to_numpy() - t["submit_time"]
    path = tmp_path / "parts-limit.swf"
    write_swf(Workload.from_table(t), path, header={"MaxProcs": "48", "MaxNodes": "48"})
    res = _fit(path, tmp_path / "store")
    assert res.input.sizes == SIZES and res.input.partition_limits is not None
    assert res.input.partition_limits[0] == USER_LIMIT
    truth = Baseline("easy", partitions=True, max_jobs_per_user=USER_LIMIT)
    assert res.chosen == truth
    assert res.row(truth)["held.ks"] == 0.0
    assert res.row(PLAIN_EASY)["held.ks"] > 0.0


def test_lacks_blames_the_outages_when_the_baseline_waits_longer_only_with_them() -> None:
    # Held out the machine waited 100 s a job; EASY with the outages read waits 300 s,
    # the same EASY without them 120 s: the outages, not the machine's size, are named.
    gone = Baseline(outages=True)
    res = _scored([(PLAIN_EASY, 0.5, 0.5, 0.5), (gone, 0.4, 0.4, 0.4)])
    held = {"held.mean_wait_log": [100.0, 100.0], "held.mean_wait_sim": [120.0, 300.0],
            "held.ks": [0.3, 0.2], "held.score": [0.6, 0.5], "held.within": [0.5, 0.5]}  # fmt: skip
    res = replace(res, table=res.table.assign(**held), chosen=gone)
    (line,) = [x for x in lacks(res, "poor") if "longer than the machine did" in x]
    assert line.startswith("the fitted baseline waits 3.0x longer than the machine did: the ")
    assert "outages it replays remove more capacity" in line and "without them 1.2x" in line
