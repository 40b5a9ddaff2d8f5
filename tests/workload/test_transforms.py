"""Tests of the workload transforms."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cosched.errors import ConfigError, WorkloadError
from cosched.workload.columns import Columns
from cosched.workload.job import Workload
from cosched.workload.loader import load_workload
from cosched.workload.transforms import (
    filter_jobs,
    first_n,
    merge,
    offered_load,
    rebase,
    scale_arrivals,
    scale_to_load,
    shift,
    time_window,
    window,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "cosched" / "data" / "example.swf"


@pytest.fixture
def w() -> Workload:
    rows = [(100.0, 2, 50.0), (110.0, 1, 10.0), (130.0, 4, 20.0), (160.0, 1, 40.0)]
    return Workload.from_jobs(rows, name="w", max_procs=4, notes=("loaded",))


def submits(x: Workload) -> list[float]:
    return x.table["submit_time"].tolist()


def test_first_n(w: Workload) -> None:
    out = first_n(w, 2)
    assert out.table["job_id"].tolist() == [1, 2]
    assert out.notes == ("loaded", "kept the first 2 of 4 jobs (first_n)")
    assert len(first_n(w, 10)) == 4 and len(first_n(w, 0)) == 0
    assert len(w) == 4  # the input is untouched
    with pytest.raises(ConfigError, match="n must"):
        first_n(w, -1)


def test_window(w: Workload) -> None:
    out = window(w, 1, 2)
    assert out.table["job_id"].tolist() == [2, 3] and "window" in out.notes[-1]
    assert window(w, 3, 5).table["job_id"].tolist() == [4]
    with pytest.raises(ConfigError, match="start"):
        window(w, -1, 2)
    with pytest.raises(ConfigError, match="count"):
        window(w, 0, 1.5)  # type: ignore[arg-type]


def test_time_window(w: Workload) -> None:
    out = time_window(w, 110, 160)
    assert out.table["job_id"].tolist() == [2, 3] and "time_window" in out.notes[-1]
    with pytest.raises(ConfigError, match="t1"):
        time_window(w, 5, 1)
    with pytest.raises(ConfigError, match="t0"):
        time_window(w, float("nan"), 1)


def test_filter_jobs(w: Workload) -> None:
    by_mask = filter_jobs(w, np.array([True, False, True, False]))
    assert by_mask.table["job_id"].tolist() == [1, 3]
    by_function = filter_jobs(w, lambda t: t["procs"] > 1)
    assert by_function.table["job_id"].tolist() == [1, 3]
    assert by_function.notes[-1] == "kept 2 of 4 jobs (filter_jobs)"
    with pytest.raises(ConfigError, match="mask_or_predicate"):
        filter_jobs(w, np.array([True, False]))
    with pytest.raises(ConfigError, match="mask_or_predicate"):
        filter_jobs(w, lambda t: t["procs"])


def test_rebase_and_shift(w: Workload) -> None:
    based = rebase(w)
    assert submits(based) == [0, 10, 30, 60] and "rebase" in based.notes[-1]
    moved = shift(based, 5)
    assert submits(moved) == [5, 15, 35, 65] and "shift" in moved.notes[-1]
    assert submits(shift(w, -100)) == [0, 10, 30, 60]
    with pytest.raises(ConfigError, match="seconds"):
        shift(w, -101)
    with pytest.raises(ConfigError, match="seconds"):
        shift(w, float("inf"))
    assert len(rebase(first_n(w, 0))) == 0


def test_scale_arrivals(w: Workload) -> None:
    out = scale_arrivals(w, 0.5)
    assert submits(out) == [100, 105, 115, 130] and "scale_arrivals" in out.notes[-1]
    assert out.table["run_time"].tolist() == w.table["run_time"].tolist()
    for bad in (0, -1, float("nan")):
        with pytest.raises(ConfigError, match="factor"):
            scale_arrivals(w, bad)


def test_offered_load(w: Workload) -> None:
    work = 50 * 2 + 10 * 1 + 20 * 4 + 40 * 1
    assert offered_load(w, 4) == pytest.approx(work / (4 * 60))
    with pytest.raises(WorkloadError, match="same time"):
        offered_load(first_n(w, 1), 4)
    with pytest.raises(ConfigError, match="capacity_procs"):
        offered_load(w, 0)


@pytest.mark.parametrize("target", [0.3, 0.7, 0.95, 1.4])
def test_scale_to_load_hits_the_target(target: float) -> None:
    w = load_workload(EXAMPLE)
    out = scale_to_load(w, target, 64)
    assert offered_load(out, 64) == pytest.approx(target, rel=1e-9)
    assert out.table["submit_time"].iloc[0] == w.table["submit_time"].iloc[0]
    assert "scale_to_load" in out.notes[-1]
    with pytest.raises(ConfigError, match="target"):
        scale_to_load(w, 0, 64)


def test_merge(w: Workload) -> None:
    other = Workload.from_jobs([(105.0, 1, 5.0), (200.0, 8, 5.0)], name="o", max_procs=8)
    out = merge(w, other)
    assert out.table["job_id"].tolist() == [1, 1, 2, 3, 4, 2]
    assert submits(out) == sorted(submits(out))
    assert out.name == "w+o" and out.max_procs == 8
    assert out.notes[0] == "loaded"
    assert "2 job ids repeat" in out.notes[-1] and "merge" in out.notes[-1]


def test_transforms_are_pure(w: Workload) -> None:
    before = w.table.copy()
    for f in (rebase, lambda x: scale_arrivals(x, 2), lambda x: shift(x, 3)):
        f(w)
    assert w.table.equals(before) and w.notes == ("loaded",)


def _both() -> tuple[Workload, Workload]:
    """The bundled example held as numpy columns (as the reader makes it) and as a
    DataFrame."""
    c = load_workload(EXAMPLE)
    return c, Workload.from_table(c.columns.to_frame(), name=c.name, notes=c.notes)


def _in_columns(w: Workload) -> bool:
    return isinstance(w.__dict__["_table_value"], Columns) and "_table_frame" not in w.__dict__


def test_transforms_keep_columns_and_give_the_pandas_results() -> None:
    """A table held as columns stays so through the row and column transforms (no
    DataFrame is made), with the values and notes the DataFrame path gives."""
    c, w = _both()
    assert _in_columns(c) and not _in_columns(w)
    mask = np.arange(len(w)) % 3 == 0
    sub = w.columns["submit_time"]
    for name, f in {
        "window": lambda x: window(x, 5, 20),
        "first_n": lambda x: first_n(x, 7),
        "filter": lambda x: filter_jobs(x, mask),
        "time_window": lambda x: time_window(x, float(sub[10]), float(sub[40])),
        "shift": lambda x: shift(x, 30.0),
        "rebase": rebase,
        "scale": lambda x: scale_arrivals(x, 0.5),
    }.items():
        got, want = f(c), f(w)
        assert _in_columns(got) and not _in_columns(want), name
        assert got.notes == want.notes, name
        assert list(got.columns) == list(want.columns), name
        for col in want.columns:
            np.testing.assert_array_equal(got.columns[col], want.columns[col], err_msg=name)
    assert offered_load(c, 64) == offered_load(w, 64)


def test_with_columns_keeps_the_form() -> None:
    c, w = _both()
    extra = {"x": np.arange(len(w)), "procs": w.columns["procs"] * 2}
    got, want = c.with_columns(extra, "n"), w.with_columns(extra, "n")
    assert _in_columns(got) and not _in_columns(want)
    for col in want.columns:
        np.testing.assert_array_equal(got.columns[col], want.columns[col])
    assert got.notes[-1] == want.notes[-1] == "n"
    assert list(c.columns["procs"]) == list(w.columns["procs"])  # the input is unchanged
