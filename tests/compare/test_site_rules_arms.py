"""``compare --baseline fitted``: the fitted site rules on every arm that takes them."""

from __future__ import annotations

from cosched.cli.compare import _site
from cosched.compare.study import Arm, with_site
from cosched.policies import make_policy


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
