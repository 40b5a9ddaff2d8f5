"""The summary folded in chunk by chunk equals the whole-table summary.

Exactly where the docstring of :mod:`cosched.metrics.running` says so (counts, whole-
number sums and quantiles), within 1e-15 for fractional means and within the stated
relative error for the quantiles of fractional values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation
from cosched.errors import ConfigError
from cosched.metrics import summarize
from cosched.metrics.running import QuantileCounter, RunningSummary
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.workload.models import generate_lublin


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(0, 10**6), min_size=1, max_size=300),
    chunk=st.integers(1, 50),
    p=st.sampled_from([0, 1, 25, 50, 90, 95, 99, 100]),
)
def test_whole_numbers_give_numpys_percentile_exactly(
    values: list[int], chunk: int, p: int
) -> None:
    q = QuantileCounter()
    a = np.array(values, dtype=float)
    for i in range(0, a.size, chunk):
        q.add(a[i : i + chunk])
    assert q.exact
    assert q.percentile(p) == np.percentile(a, p)


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=300),
    p=st.sampled_from([1, 50, 90, 99]),
)
def test_fractions_are_within_the_stated_relative_error(values: list[float], p: int) -> None:
    q = QuantileCounter(relative_error=1e-3)
    a = np.array(values)
    q.add(a)
    exact = float(np.percentile(a, p))
    # Each order statistic is within 1e-3 of its value, so is their interpolation
    # (plus the rounding of the arithmetic).
    assert abs(q.percentile(p) - exact) <= 1e-3 * exact * (1 + 1e-12) + 1e-300


def test_too_many_distinct_whole_values_switch_to_the_histogram() -> None:
    q = QuantileCounter(exact_values=10, relative_error=1e-2)
    q.add(np.arange(100, dtype=float))
    assert not q.exact
    assert abs(q.percentile(50) - 49.5) <= 1e-2 * 49.5


def test_negative_values_are_refused() -> None:
    with pytest.raises(ConfigError, match=">= 0"):
        QuantileCounter().add(np.array([1.0, -2.0]))


def test_chunks_give_the_whole_table_summary() -> None:
    w = generate_lublin(3000, nodes=64, rng=np.random.default_rng(5), load=0.9)
    t = w.table.assign(requested_time=w.table["run_time"] * 3)
    jobs = Simulation(w.replace_table(t), Platform(nodes=64), make_policy("easy")).run().jobs
    whole = summarize(jobs, capacity=64)
    running = RunningSummary(capacity=64)
    for i in range(0, len(jobs), 173):
        running.add(jobs.iloc[i : i + 173])
    got = running.result()
    assert list(got) == list(whole)
    for key, value in whole.items():
        if "bounded_slowdown" in key and ("median" in key or key.startswith("p")):
            assert got[key] == pytest.approx(value, rel=1e-4), key
        elif "bounded_slowdown" in key:
            assert got[key] == pytest.approx(value, rel=1e-14, nan_ok=True), key
        else:
            assert got[key] == value or (np.isnan(got[key]) and np.isnan(value)), key


def test_no_jobs_gives_a_count_of_zero() -> None:
    assert RunningSummary(capacity=4).result() == summarize(pd.DataFrame(), capacity=4)
