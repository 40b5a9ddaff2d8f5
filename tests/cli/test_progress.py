"""Progress off a terminal: one plain line a minute of a long task, none for a short one."""

from __future__ import annotations

import io

import pytest

from cosched.cli import progress
from cosched.cli.progress import ProgressBar


def test_off_a_terminal_a_line_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    out = io.StringIO()  # not a terminal
    bar = ProgressBar("compare", out, unit="runs")
    for done, at in ((0, 0.0), (1, 30.0), (2, 61.0), (3, 90.0), (4, 125.0), (10, 130.0)):
        clock[0] = 1000.0 + at
        bar.update(done, 10)
    bar.close()
    # Lines at 61 s (2 done: 30.5 s a run, 8 left: 4:04) and 125 s (4 done: 31.25 s a
    # run, 6 left: 3:07); none at 0, 30, 90 or at the end 5 s after the last line.
    assert out.getvalue().splitlines() == [
        "compare  2/10 runs ( 20.0%, ETA 4:04), 1 min 01 s in",
        "compare  4/10 runs ( 40.0%, ETA 3:07), 2 min 05 s in",
    ]
