"""I/O that gives up the CPU (the default, the dynamic coscheduling paper's text) or
holds it (``TSParams.io_holds_cpu``, a named reading): hand cases."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.timesharing import TSParams, jobs_table, simulate
from cosched.timesharing.engine import TSResult

L = 185.48e-6  # Table 3's one-way latency of 4,096 bytes
# Job type J3 (35% compute, 35% I/O, 30% communication): a one-task job has no
# neighbours, so an iteration of L / 0.3 is half compute and half I/O.
T_ITER = L / 0.3
N_ITER = 200
RUN = N_ITER * T_ITER
# No switch or queue cost, so that the CPU's time is the jobs' compute and I/O alone.
FREE = {"context_switch": 0.0, "queue_move": 0.0}


def _run(n_jobs: int, hold: int, scheme: str = "Local") -> TSResult:
    w = jobs_table([(0.0, RUN, 1, 3)] * n_jobs)
    p = TSParams(io_holds_cpu=hold, **FREE)
    return simulate(w, scheme=scheme, nodes=1, mpl=2, rng=np.random.default_rng(0), params=p)


def test_it_is_off_by_default_and_bad_values_are_named() -> None:
    assert TSParams().io_holds_cpu == 0
    with pytest.raises(ConfigError, match="io_holds_cpu must be 0 or 1"):
        TSParams(io_holds_cpu=0.5)


@pytest.mark.parametrize("hold", [0, 1])
def test_a_job_alone_ends_at_its_run_time_under_either_reading(hold: int) -> None:
    # Alone on its CPU, the job's iterations take compute then I/O back to back
    # whether or not the I/O holds the CPU: it ends at N_ITER x T_ITER.
    r = _run(1, hold)
    assert r.end_time == pytest.approx(RUN, rel=1e-9)


def test_two_jobs_whose_io_holds_the_cpu_take_the_sum_of_their_work() -> None:
    # Two such jobs on one CPU: with the I/O holding the CPU, nothing overlaps and the
    # CPU never idles, so the last ends at 2 x N_ITER x T_ITER, the CPU having spent
    # N_ITER x T_ITER / 2 per job computing and as long in I/O.
    r = _run(2, 1)
    assert r.end_time == pytest.approx(2 * RUN, rel=1e-9)
    assert r.nodes["compute"].sum() == pytest.approx(RUN, rel=1e-9)
    assert r.nodes["io_cpu"].sum() == pytest.approx(RUN, rel=1e-9)


def test_two_jobs_whose_io_gives_up_the_cpu_overlap_it_with_the_other_s_compute() -> None:
    # Giving up the CPU, one job's I/O (half an iteration) overlaps exactly the other's
    # compute (the other half): the CPU computes without a gap from the first job's
    # first compute phase to the second's last, N_ITER x T_ITER in all, and the second
    # ends one I/O phase later: RUN + T_ITER / 2. The CPU holds no I/O, and computes
    # each job's N_ITER x T_ITER / 2 once (a free queue move at an I/O's end must not
    # hand the runner time it did not compute).
    r = _run(2, 0)
    assert r.end_time == pytest.approx(RUN + T_ITER / 2, rel=1e-9)
    assert r.nodes["io_cpu"].sum() == 0.0
    assert r.nodes["compute"].sum() == pytest.approx(RUN, rel=1e-9)


def test_under_gang_scheduling_the_reading_changes_no_end_time() -> None:
    # GS runs one row at a time: the CPU idles during a released I/O (lines 111-112 of
    # the paper) and is busy with a held one; either way the job ends when it would.
    ends = [_run(2, hold, "GS").jobs.sort_values("job_id")["end_time"].tolist() for hold in (0, 1)]
    assert ends[0] == pytest.approx(ends[1], rel=1e-12)


def test_the_dyncosched_cell_reads_it_and_names_a_bad_value() -> None:
    from cosched.timesharing.experiment import READINGS, check

    assert "io_holds_cpu" in READINGS
    cell = {"workload": "WL5", "load": 1.0, "skew": 0.2, "mpl": 5, "scheme": "SB",
            "n_jobs": 5, "msg_factor": 1}  # fmt: skip
    check({**cell, "io_holds_cpu": 1})
    with pytest.raises(ConfigError, match="io_holds_cpu"):
        check({**cell, "io_holds_cpu": 2})
