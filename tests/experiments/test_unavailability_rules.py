"""The declared rules that read unavailability from a log, by hand."""

from __future__ import annotations

import numpy as np

from cosched.experiments.unavailability import (
    MIN_OUTAGE,
    MIN_SEGMENT,
    blocked_intervals,
    gap_intervals,
    infer,
    pieces,
)


def test_a_queued_job_that_fits_the_idle_units_for_an_hour_is_an_outage() -> None:
    # 4 units. Job 0 (2 units) runs 0-10000; job 1 (1 unit) is submitted at 100 and
    # waits until 7300 with 2 units idle: 7200 s blocked, removing 2 - 1 + 1 = 2 units.
    # Job 2 (1 unit) waits from 8000 to 8100 with 2 idle: too short to count.
    iv = blocked_intervals(
        submit=np.array([0.0, 100.0, 8000.0]),
        start=np.array([0.0, 7300.0, 8100.0]),
        run=np.array([10000.0, 50.0, 50.0]),
        size=np.array([2, 1, 1]),
        capacity=4,
        until=np.inf,
    )
    assert iv == [(100.0, 7300.0, 2)]


def test_a_job_its_user_limit_held_is_no_evidence() -> None:
    # The same, but job 1's user runs job 0 and held one job at most: not eligible.
    args = dict(
        submit=np.array([0.0, 100.0]),
        start=np.array([0.0, 7300.0]),
        run=np.array([7300.0, 50.0]),
        size=np.array([2, 1]),
        capacity=4,
        until=np.inf,
        user=np.array([1.0, 1.0]),
        procs=np.array([2, 1]),
    )
    assert blocked_intervals(**args, peaks=(1, 4)) == []  # type: ignore[arg-type]
    assert blocked_intervals(**args, peaks=(2, 4)) == [(100.0, 7300.0, 2)]  # type: ignore[arg-type]


def test_held_out_outages_come_from_submission_gaps_longer_than_the_fit_parts_quiet_ones() -> None:
    # Fit part: gaps of 100 s, one of 5000 s (quiet: no interval) and one of 20000 s
    # overlapping an interval of 3 units. Held out: gaps of 6000 s (longer than 5000
    # but read only if over the threshold: it is) and 4000 s (not).
    fit = np.array([0.0, 100.0, 5100.0, 25100.0])
    held = np.array([31100.0, 35100.0])
    out, threshold, units = gap_intervals(fit, held, [(6000.0, 20000.0, 3)])
    assert threshold == 5000.0 and units == 3
    assert out == [(25100.0, 31100.0, 3)]
    # No fit-part gap overlaps an interval: the held-out part reads none.
    assert gap_intervals(fit, held, []) == ([], float("inf"), 0)
    assert MIN_OUTAGE == 3600.0


def test_infer_never_reads_held_out_starts() -> None:
    submit = np.array([0.0, 100.0, 20000.0, 30000.0])
    run = np.array([10000.0, 50.0, 50.0, 50.0])
    size = np.array([2, 1, 1, 1])
    a = infer(submit, np.array([0.0, 7300.0, 20000.0, 30000.0]), run, size, 4, 2)
    b = infer(submit, np.array([0.0, 7300.0, np.nan, -5.0]), run, size, 4, 2)
    assert a == b and a.fit == ((100.0, 7300.0, 2),)


def test_a_stretchs_short_segments_join_into_pieces_of_a_minute_removing_the_most() -> None:
    assert MIN_SEGMENT == 60.0  # Slurm's default sched_interval
    # 0-30 (5 units) and 30-50 (3) are shorter than a minute: joined with 50-200 (2)
    # into one piece of 200 s removing 5. 200-260 (1) lasts a minute: its own piece.
    # 260-280 (4) is a short remainder at the end: it joins the piece before it.
    run = [(0.0, 30.0, 5), (30.0, 50.0, 3), (50.0, 200.0, 2), (200.0, 260.0, 1), (260.0, 280.0, 4)]
    assert pieces(run) == [(0.0, 200.0, 5), (200.0, 280.0, 4)]
    # Long segments stay as they are; adjacent pieces removing the same units are one.
    assert pieces([(0.0, 100.0, 2), (100.0, 400.0, 2), (400.0, 500.0, 3)]) == [
        (0.0, 400.0, 2),
        (400.0, 500.0, 3),
    ]
    # A segment of a minute or more after a short one is joined to it only while the
    # piece is shorter than a minute.
    assert pieces([(0.0, 10.0, 1), (10.0, 3700.0, 6)]) == [(0.0, 3700.0, 6)]


def test_a_blocked_stretch_reads_no_change_shorter_than_a_minute() -> None:
    # 8 units. Job 0 (4 units) runs 0-7300, job 1 (2 units) 0-7230 (two units come
    # free 70 s before the stretch ends). Job 2 (1 unit) waits 0-7300 with 2, then for
    # the last 70 s 4 units idle: segments (0, 7230, 2) and (7230, 7300, 4); the second
    # lasts more than a minute and stays. With job 1 ending at 7260 instead the last
    # segment (40 s) joins the first, which then removes 4.
    def read(end1: float) -> list[tuple[float, float, int]]:
        return blocked_intervals(
            submit=np.array([0.0, 0.0, 0.0]),
            start=np.array([0.0, 0.0, 7300.0]),
            run=np.array([7300.0, end1, 10.0]),
            size=np.array([4, 2, 1]),
            capacity=8,
            until=np.inf,
        )

    assert read(7230.0) == [(0.0, 7230.0, 2), (7230.0, 7300.0, 4)]
    assert read(7260.0) == [(0.0, 7300.0, 4)]
