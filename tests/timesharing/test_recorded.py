"""The model against its recorded results (tests/timesharing/recorded.py), bit for bit."""

from __future__ import annotations

import json

import pytest

from tests.timesharing import recorded

RECORDED = json.loads(recorded.PATH.read_text())
CASES = recorded.cases()


def test_every_case_is_recorded() -> None:
    assert sorted(RECORDED) == sorted(c["name"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_results_equal_the_recording(case: dict) -> None:
    assert recorded.run_case(case) == RECORDED[case["name"]]
