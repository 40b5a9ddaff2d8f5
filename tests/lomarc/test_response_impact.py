"""The response-time impact of Figure 5 under both readings of its prediction term."""

from __future__ import annotations

import pytest

from cosched.errors import ConfigError
from cosched.lomarc.matching import response_impact
from cosched.policies import make_policy

BASE = {
    "ti": 100.0, "si": 2.0, "tj": 100.0, "sj": 2.0, "sl": 1.5, "n_nodes": 4,
    "rt_i": 60.0, "rt_j": 100.0, "push_inv": 0.0, "n_push": 0, "pull_inv": 0.0,
    "n_pull": 0, "bound": 60.0,
}  # fmt: skip


def test_by_hand_without_arrivals() -> None:
    # pair 150 s x 2 nodes: delay (300 - 200) / 4 = 25; improvement 200 / 4 - 25 = 25;
    # increase 25 / 60; job j moved: (100 - 100 x 1.5 x 2 / 4) / 100 = 0.25; 2 jobs.
    got = response_impact(**BASE, future=(0.0, 0.0, 0.0, 0.0))
    assert got == pytest.approx((0.25 - 25 / 60) / 2)


def test_a_predicted_arrival_queues_behind_the_whole_queue_under_the_queue_reading() -> None:
    # One predicted medium/long arrival of work 400 (100 s per node): it gains
    # improvement / its response time: 25 / 100 alone, 25 / (300 + 100) behind a queue
    # of 300 s per node.
    future = (0.0, 0.0, 1.0, 400.0)
    own = response_impact(**BASE, future=future)
    queue = response_impact(**BASE, future=future, queue_ahead=300.0)
    assert own == pytest.approx((0.25 + 25 / 100 - 25 / 60) / 3)
    assert queue == pytest.approx((0.25 + 25 / 400 - 25 / 60) / 3)


def test_the_reading_is_a_checked_parameter() -> None:
    assert make_policy("lomarc-r", arrivals="queue").arrivals == "queue"
    with pytest.raises(ConfigError, match="arrivals"):
        make_policy("lomarc-r", arrivals="both")
