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
