"""Family shortcuts give the answers of the plain code.

LOMARC's vectorised pair screen (``may_screen``) against ``MatchRules.screen`` pair by
pair: every pair the screen accepts is kept, and the slowdowns are the model's, bit for
bit. Node sharing's memoised book (fits and takes remembered until the next change)
against the plain :class:`NodeBook` through random starts and finishes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.lomarc.matching import MatchRules, may_screen
from cosched.lomarc.rates import Profiles
from cosched.lomarc.slowdown import FORMULAS, Profile, SlowdownModel
from cosched.nodeshare.configurations import configurations
from cosched.nodeshare.interference import InterferenceModel
from cosched.nodeshare.placement import NodeBook
from cosched.nodeshare.policies import _MemoBook
from cosched.workload.job import Job
from tests.nodeshare.reference_book import place_on_both

frac = st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 1.0])


@st.composite
def profiles(draw: st.DrawFn, n: int) -> list[Profile]:
    out = []
    for i in range(n):
        cpu = draw(frac)
        net = draw(st.sampled_from([x for x in (0.0, 0.1, 0.3, 0.5) if cpu + x <= 1.0]))
        disk = 1.0 - cpu - net
        cls, mem, draw_cpu = draw(st.integers(0, 2)), draw(frac), draw(st.sampled_from([1.4, 2.0]))
        out.append(Profile(i, cls, cpu, net, disk, mem, draw_cpu))
    return out


def _table(ps: list[Profile]) -> np.ndarray:
    return np.array([[p.index, p.cls, p.cpu, p.net, p.disk, p.mem, p.cpu_slowdown] for p in ps]).T


@settings(max_examples=150, deadline=None)
@given(
    ps=profiles(8),
    hyper=st.booleans(),
    check=st.booleans(),
    limit=st.sampled_from([None, 1.6, 1.4]),
    formula=st.sampled_from(FORMULAS),
)
def test_may_screen_keeps_every_accepted_pair(
    ps: list[Profile], hyper: bool, check: bool, limit: float | None, formula: str
) -> None:
    model = SlowdownModel(hyperthreaded=hyper, formula=formula)
    rules = MatchRules(model=model, max_slowdown=limit, check_match=check)
    a, b = ps[:4], ps[4:]
    ok, sl = may_screen(rules, _table(a), _table(b))
    for i, pa in enumerate(a):
        for j, pb in enumerate(b):
            exact = rules.screen(pa, pb, None)
            assert sl[i, j] == model.slowdown(pa, pb)  # the same arithmetic
            if exact is not None:
                assert ok[i, j]
            elif limit is None or abs(sl[i, j] - limit) > 1e-9:
                assert not ok[i, j]  # exact away from the limit's margin


def test_may_screen_by_hand() -> None:
    # Hyperthreaded: two CPU-bound jobs pair only with a good CPU draw (1.4) of the
    # later job; a CPU-bound and a disk-bound job pair if memory fits (0.5 + 0.6 > 1:
    # refused). Slowdown of (cpu 0.8, disk 0.2) with (cpu 0.2, disk 0.8), good draw,
    # under the overlap reading: 1 + 0.4 x 0.2 + 1 x 0.2 = 1.28; as printed (shared
    # parts only): 1.4 x 0.2 + 2 x 0.2 = 0.68, bounded below by 1.
    p0 = Profile(0, 0, 0.8, 0.0, 0.2, 0.3, 2.0)
    p1 = Profile(1, 0, 0.8, 0.0, 0.2, 0.3, 1.4)
    p2 = Profile(2, 2, 0.2, 0.0, 0.8, 0.3, 1.4)
    p3 = Profile(3, 2, 0.2, 0.0, 0.8, 0.8, 1.4)
    for formula, expected in (("overlap", 1.0 + 0.4 * 0.2 + 1.0 * 0.2), ("printed", 1.0)):
        model = SlowdownModel(hyperthreaded=True, formula=formula)
        rules = MatchRules(model=model, max_slowdown=1.6)
        ok, sl = may_screen(rules, _table([p0]), _table([p1, p2, p3]))
        assert ok.tolist() == [[True, True, False]]
        assert sl[0, 1] == pytest.approx(expected)


def test_profiles_table_reads_each_job_once() -> None:
    prof = Profiles(SlowdownModel())
    extra = {"lomarc_class": 1, "lomarc_cpu": 0.2, "lomarc_net": 0.7, "lomarc_disk": 0.1,
             "lomarc_mem": 0.4, "lomarc_cpu_slowdown": 1.4}  # fmt: skip
    jobs = [Job(index=i, job_id=i + 1, submit_time=0.0, run_time=1.0, requested_time=1.0,
                procs=1, extra=extra) for i in range(3)]  # fmt: skip
    t = prof.table(np.array([2, 0]), jobs)
    assert t[:, 0].tolist() == [2, 1, 0.2, 0.7, 0.1, 0.4, 1.4]
    assert t[0].tolist() == [2, 0]


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 2), st.integers(1, 6), st.integers(0, 2), st.booleans()),
        min_size=1,
        max_size=25,
    )
)
def test_memo_book_places_as_the_plain_book(steps: list[tuple[int, int, int, bool]]) -> None:
    model = InterferenceModel()
    plain = NodeBook(10, 4, 3, model, "High_Rq_Low")
    memo = _MemoBook(10, 4, 3, model, "High_Rq_Low", jobs=100)
    running: list[tuple[int, tuple[int, ...], int, int]] = []
    coeffs_of = {n: [(0.5 + 0.01 * k, 0.5) for k in range(20)] for n in range(1, 7)}
    configs_of = {n: configurations(n, 4, max_nodes=10) for n in range(1, 7)}  # as cached
    for idx, (s, n, finish, retry) in enumerate(steps):
        if finish and running:
            job, nodes, cores, cls = running.pop(min(finish, len(running)) - 1)
            plain.remove(job, nodes, cores, cls)
            memo.remove(job, nodes, cores, cls)
        configs = configs_of[n]
        coeffs = coeffs_of[n][: len(configs)]
        # a second ask is answered from the memo
        place_on_both(memo, plain, idx, s, configs, coeffs, running, asks=2 if retry else 1)
