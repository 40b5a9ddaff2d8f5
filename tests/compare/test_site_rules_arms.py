"""``compare --baseline fitted``: the fitted site rules on every arm that takes them."""

from __future__ import annotations

from pathlib import Path

from cosched.cli.compare import _site
from cosched.compare.site import with_site
from cosched.compare.study import Arm, Comparison, build_report, load_store, run
from cosched.policies import make_policy
from tests.compare.site_plan import site_plan


def test_every_arm_runs_under_the_site_rules_its_scheduler_takes() -> None:
    site = {"max_jobs_per_user": 2, "order": "fairshare", "fairshare_half_life": 86400.0}
    arms = [
        Arm("easy(order=fairshare)", "easy", {"order": "fairshare"}),
        Arm("fcfs", "fcfs"),
        Arm("conservative", "conservative"),
        Arm("gang", "gang"),
        Arm("recorded", "recorded", role="reference"),
    ]
    out, notes = with_site(arms, site)
    by = {a.label: a for a in out}
    # FCFS and EASY take every rule; conservative takes the limit, not the fair-share
    # order; gang takes none; the log's own schedule stays as logged.
    assert by["fcfs"].params == site and by["easy(order=fairshare)"].params == site
    assert by["conservative"].params == {"max_jobs_per_user": 2}
    assert by["gang"].params == {} and by["recorded"].params == {}
    for a in out[:3]:  # each still builds, with the rules in force
        assert make_policy(a.policy, **a.params).params()["max_jobs_per_user"] == 2
    assert "easy(order=fairshare), fcfs, conservative" in notes[0]
    assert "conservative (order, fairshare_half_life); gang (max_jobs_per_user, order" in notes[1]


def test_the_site_rules_of_a_fitted_baseline() -> None:
    assert _site("easy(order=submit,max_jobs_per_user=21)") == {"max_jobs_per_user": 21}
    assert _site("easy(order=fairshare,fairshare_half_life=86400.0)") == {
        "fairshare_half_life": 86400.0,
        "order": "fairshare",
    }
    assert _site("fcfs(order=sjf)") is None


# -- the fitted outages ------------------------------------------------------------------


def _log(tmp_path: Path) -> Path:
    """4 single-core nodes; 1-processor jobs of 50 s submitted at 0, 150, 200 and 300."""
    lines = ["; MaxNodes: 4", "; MaxProcs: 4"]
    for k, sub in enumerate((0, 150, 200, 300)):
        lines.append(f"{k + 1} {sub} -1 50 1 -1 -1 1 50 -1 1 1 1 -1 -1 -1 -1 -1")
    path = tmp_path / "four.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def _plan(tmp_path: Path, policies: list[str], gone: list[list[float]]) -> Comparison:
    return site_plan(_log(tmp_path), "four", policies, {"unavailable": gone})


def test_an_arm_of_a_fitted_compare_runs_on_the_fitted_outages(tmp_path: Path) -> None:
    # The whole machine (4 units) is out from 100 to 500 s: the job submitted at 0 runs
    # 0-50 s, the three submitted inside the outage all start at 500 s, none inside it.
    comparison = _plan(tmp_path, ["easy"], [[100.0, 500.0, 4]])
    (easy,) = comparison.main
    assert easy.machine == {"unavailable": [[100.0, 500.0, 4]]}
    (tmp_path / "out").mkdir()
    run(comparison, tmp_path / "out")
    _, _, jobs = load_store(tmp_path / "out")
    start = jobs["easy"][0].sort_values("job_id")["start_time"].tolist()
    assert start == [0.0, 500.0, 500.0, 500.0]
    build_report(tmp_path / "out")  # the report says which machine it ran on
    text = (tmp_path / "out" / "report.md").read_text()
    assert (
        "- `easy` on 4 nodes x 1 core (cores), under the fitted unavailability (1 interval)" in text
    )


def test_an_arm_that_cannot_take_the_fitted_outages_is_named_with_why(tmp_path: Path) -> None:
    comparison = _plan(tmp_path, ["easy", "gang"], [[100.0, 500.0, 2]])
    by = {a.label: a for a in comparison.arms}
    assert "unavailable" not in by["gang"].machine and "unavailable" in by["easy"].machine
    # The verdict repeats it (a note of the fit): gang's difference from the baseline
    # includes the capacity the outages remove.
    said = [n for n in comparison.notes if "run without the fitted outages" in n]
    assert len(said) == 1 and said[0].startswith("the fit: gang run without")
    assert "share nodes" in said[0] and "includes the capacity" in said[0]
    assert any(n.startswith("fitted outages: 1 unavailability") for n in comparison.notes)


def test_the_site_of_a_fitted_baseline_carries_its_outages() -> None:
    assert _site("fcfs(order=sjf)", ((1.0, 2.0, 3),)) == {"unavailable": [[1.0, 2.0, 3]]}
