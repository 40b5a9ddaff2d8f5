"""The numpy column table behind workloads and results, and its DataFrame view."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pytest

from cosched.workload.columns import Columns, FrameField
from cosched.workload.job import Workload


def test_rows_select_and_keep_rows_select_the_same_rows() -> None:
    t = Columns({"a": np.arange(5), "b": np.arange(5) * 1.5})
    mask = np.array([True, False, True, True, False])
    kept = t.rows(mask)
    assert len(kept) == 3 and kept["a"].tolist() == [0, 2, 3]
    assert t.select(["b"]).columns == ["b"]
    t.keep_rows(mask)
    assert len(t) == 3 and t["b"].tolist() == [0.0, 3.0, 4.5]


def test_a_column_of_another_length_is_refused() -> None:
    t = Columns({"a": np.arange(3)})
    with pytest.raises(ValueError, match="3"):
        t["b"] = np.arange(4)


def test_the_dataframe_view_has_the_columns_dtypes_and_order() -> None:
    t = Columns({"job_id": np.array([3, 1]), "x": np.array([0.5, np.nan])})
    frame = t.to_frame()
    assert list(frame.columns) == ["job_id", "x"]
    assert frame["job_id"].dtype == np.int64 and frame["x"].dtype == np.float64
    back = Columns.from_frame(frame)
    assert back["job_id"].tolist() == [3, 1] and np.isnan(back["x"][1])


@dataclasses.dataclass(frozen=True, eq=False)
class _Holder:
    if TYPE_CHECKING:
        table: pd.DataFrame
    else:
        table: FrameField = FrameField()
    name: str = "h"


def test_a_frame_field_builds_its_dataframe_once_on_first_read() -> None:
    h = _Holder(Columns({"a": np.arange(3)}))
    assert "_table_frame" not in h.__dict__  # nothing built yet
    first = h.table
    assert isinstance(first, pd.DataFrame) and h.table is first
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.table = first  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Holder()  # type: ignore[call-arg]  # the field has no default


def test_a_workload_from_columns_equals_one_from_a_dataframe() -> None:
    cols = {
        "job_id": np.array([2, 1]),
        "submit_time": np.array([5.0, 0.0]),
        "run_time": np.array([10.0, 20.0]),
        "procs": np.array([4.0, 2.0]),
        "requested_time": np.array([10.0, 30.0]),
    }
    a = Workload.from_table(Columns(cols), name="w")
    b = Workload.from_table(pd.DataFrame(cols), name="w")
    pd.testing.assert_frame_equal(a.table, b.table)
    assert a.columns["job_id"].tolist() == [1, 2]  # sorted by submit time
    assert a.jobs() == b.jobs()


def test_a_copy_of_a_table_without_rows_keeps_its_columns() -> None:
    empty = Columns({"a": np.empty(0), "b": np.empty(0)})
    assert len(empty) == 0 and Columns(empty).columns == ["a", "b"]
    assert empty.copy().columns == ["a", "b"]


def test_jobs_built_in_bulk_equal_jobs_built_by_the_constructor() -> None:
    """A workload's jobs are made without ``Job.__init__`` (job.py, ``_new_job``): each
    must equal, field for field and type for type, the job the constructor makes."""
    from cosched.workload.job import Job

    rng = np.random.default_rng(3)
    n = 50
    cols = Columns(
        {
            "job_id": np.arange(1, n + 1),
            "submit_time": np.sort(rng.uniform(0, 1000, n)),
            "run_time": rng.uniform(1, 100, n),
            "requested_time": rng.uniform(100, 200, n),
            "procs": rng.integers(1, 9, n),
            "user_id": np.where(rng.random(n) < 0.2, np.nan, rng.integers(1, 5, n)),
            "queue": rng.integers(0, 3, n),
            "p_a": rng.integers(0, 3, n),
            "p_b": rng.random(n),
        }
    )
    w = Workload.from_table(cols)
    for job, i in zip(w.jobs(), range(n), strict=True):
        want = Job(
            i,
            int(cols["job_id"][i]),
            float(cols["submit_time"][i]),
            float(cols["run_time"][i]),
            float(cols["requested_time"][i]),
            int(cols["procs"][i]),
            None if np.isnan(cols["user_id"][i]) else int(cols["user_id"][i]),
            int(cols["queue"][i]),
            {"p_a": int(cols["p_a"][i]), "p_b": float(cols["p_b"][i])},
        )
        assert job == want
        for f in dataclasses.fields(Job):
            assert type(getattr(job, f.name)) is type(getattr(want, f.name)) or f.name == "extra"
        assert dict(job.extra) == dict(want.extra)
        with pytest.raises(dataclasses.FrozenInstanceError):
            job.procs = 3  # type: ignore[misc]
    assert [j.index for j in w.job_records(offset=7)] == list(range(7, 7 + n))
