"""Hypothesis strategies shared by the test suite: random workloads and machines."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pandas as pd
from hypothesis import strategies as st

from cosched.platform import Platform
from cosched.workload.job import Workload


@st.composite
def platforms(draw: st.DrawFn, max_nodes: int = 16, max_cores: int = 4) -> Platform:
    """A small machine, in cores or nodes allocation."""
    return Platform(
        nodes=draw(st.integers(1, max_nodes)),
        cores=draw(st.integers(1, max_cores)),
        allocation=draw(st.sampled_from(["cores", "nodes"])),
    )


@st.composite
def workloads(
    draw: st.DrawFn, max_procs: int, max_jobs: int = 25, exact: bool | None = None, users: int = 0
) -> Workload:
    """Jobs that fit ``max_procs``: bursts of equal submit times, over-estimated requests.

    Times are integers (as in SWF) so that ties between events are frequent. With
    ``users``, each job belongs to one of that many users (SWF field 12), or to none.
    """
    n = draw(st.integers(1, max_jobs))
    rows = []
    t = 0
    for _ in range(n):
        t += draw(st.sampled_from([0, 0, 1, 5, 50, 300]))
        procs = draw(st.integers(1, max_procs))
        run = draw(st.integers(1, 500))
        over = 0 if exact else draw(st.sampled_from([0, 0, 1, 10, 200, 1000]))
        rows.append((float(t), procs, float(run), float(run + over)))
    w = Workload.from_jobs(rows)
    if not users:
        return w
    owners = draw(st.lists(st.integers(0, users), min_size=n, max_size=n))
    table = pd.DataFrame({name: w.columns[name] for name in w.columns})
    table["user_id"] = [float("nan") if u == 0 else float(u) for u in owners]
    return Workload.from_table(table)


def job_draws(
    draw: st.DrawFn, n: int, max_procs: int, gaps: Sequence[int], slack: Sequence[int]
) -> Iterator[tuple[float, int, float, float]]:
    """``n`` jobs' ``(submit, procs, run time, requested time)``, drawn one job at a time
    (a caller may draw more of each job between two): integer times, a gap from
    ``gaps`` between submits, requests off the run time by one of ``slack`` (at least
    1 s)."""
    t = 0
    for _ in range(n):
        t += draw(st.sampled_from(gaps))
        procs = draw(st.integers(1, max_procs))
        run = draw(st.integers(1, 500))
        req = max(run + draw(st.sampled_from(slack)), 1)
        yield float(t), procs, float(run), float(req)


#: Time-sharing test machine size and one job for ``jobs_table``:
#: ``(submit, run time, tasks, job type)``.
TS_NODES = 4
ts_job = st.tuples(
    st.floats(0.0, 0.5),
    st.floats(0.01, 0.15),
    st.integers(1, TS_NODES),
    st.integers(1, 6),
)


#: The gang matrix's settings drawn by the gang policy's property tests (each a keyword
#: of :class:`cosched.gang.Gang`), with the data to draw a workload from.
gang_settings = dict(
    data=st.data(),
    mpl=st.integers(1, 4),
    packing=st.sampled_from(["first-fit", "buddy"]),
    alternate=st.booleans(),
    backfill=st.booleans(),
)
