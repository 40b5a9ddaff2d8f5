"""The summary's median and percentiles are numpy's, bit for bit, without ``numpy.ma``."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from cosched.metrics.summary import _quantiles
from tests.fresh import python_out

PERCENTILES = [0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100]


def _median(values: np.ndarray) -> float:
    return _quantiles(values, [])[0]


def _percentile(values: np.ndarray, p: int) -> float:
    return _quantiles(values, [p])[1][0]


FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e12, max_value=1e12)
# Schedules' values: few distinct whole numbers (ties), fractions, huge and tiny ones.
VALUES = st.one_of(
    arrays(np.float64, st.integers(1, 60), elements=FLOATS),
    arrays(np.float64, st.integers(1, 60), elements=st.sampled_from([0.0, 1.0, 2.5, 1e9])),
    arrays(np.int64, st.integers(1, 60), elements=st.integers(-(2**40), 2**40)),
)


def _same(mine: float, theirs: float) -> bool:
    return (math.isnan(mine) and math.isnan(theirs)) or mine == theirs


@settings(max_examples=400, deadline=None)
@given(VALUES, st.lists(st.sampled_from(PERCENTILES), max_size=4))
def test_median_and_percentiles_are_numpys(values: np.ndarray, ps: list[int]) -> None:
    before = values.copy()
    median, got = _quantiles(values, ps)
    assert _same(median, float(np.median(values)))
    assert len(got) == len(ps)
    for p, value in zip(ps, got, strict=True):
        assert _same(value, float(np.percentile(values, p)))
    assert (values == before).all()  # the caller's column is not reordered


def test_nan_gives_nan_as_numpy_does() -> None:
    values = np.array([3.0, np.nan, 1.0, 2.0])
    assert math.isnan(_median(values)) and math.isnan(_percentile(values, 90))
    assert math.isnan(float(np.median(values))) and math.isnan(np.percentile(values, 90))


def test_hand_values() -> None:
    # Odd count: the middle value; even: the mean of the two middle ones. The 90th
    # percentile of 1..11 sits at index 10 x 0.9 = 9: the 10th value, 10. Of 1..10 at
    # 9 x 0.9 = 8.1: 9 + 0.1 x (10 - 9).
    assert _median(np.array([5, 1, 3])) == 3.0
    assert _median(np.array([4.0, 1.0, 3.0, 2.0])) == 2.5
    assert _percentile(np.arange(1, 12), 90) == 10.0
    assert _percentile(np.arange(1.0, 11.0), 90) == 9.0 + (10.0 - 9.0) * ((9 * 0.9) - 8)
    assert _percentile(np.array([7.0]), 99) == 7.0


def test_the_summary_does_not_load_numpy_ma() -> None:
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from cosched.metrics import summarize\n"
        "from cosched.workload.columns import Columns\n"
        "c = Columns()\n"
        "for k, v in dict(submit_time=[0.0, 5.0], start_time=[0.0, 9.0], "
        "end_time=[4.0, 20.0], run_time=[4.0, 11.0], procs=[1, 2], size=[1, 2]).items():\n"
        "    c[k] = np.array(v)\n"
        "summarize(c, capacity=4, classes=None)\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    out = python_out(code)
    assert out.strip() == "False"
