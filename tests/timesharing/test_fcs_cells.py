"""The fcs cell's parameters as typed records (:func:`fcs_experiment.parse`): each kind
of cell gets its own frozen record, converted once, and bad input is refused naming the
parameter."""

from __future__ import annotations

import dataclasses

import pytest

from cosched.errors import ConfigError
from cosched.timesharing.fcs_experiment import DynamicCell, ScenarioCell, parse

SCENARIO = {"scenario": "imbalanced", "scheme": "FCS", "nodes": 8, "job_time": 1.0,
            "grain": 0.001, "quantum": 0.1, "cslots_min": 5}  # fmt: skip
DYN = {**SCENARIO, "scenario": "dynamic", "load": 0.7, "n_jobs": 12, "dyn_pes": 8,
       "dyn_mpl": 2, "max_run": 20.0, "time_scale": 10.0}  # fmt: skip


def test_a_scenario_cell_is_a_typed_record_with_the_spec_values() -> None:
    cell = parse(
        {**SCENARIO, "block": "4", "topology": "chain", "local": "linux24", "linux_smp": "4"}
    )
    assert isinstance(cell, ScenarioCell)
    assert (cell.scenario, cell.scheme, cell.nodes, cell.block, cell.ring) == (
        "imbalanced", "FCS", 8, 4, False,
    )  # fmt: skip
    assert (cell.job_time, cell.grain) == (1.0, 0.001)
    # the model's parameters: T_slice, cslots_MIN and the integer given as text
    assert (cell.model.gs_quantum, cell.model.fcs_cslots_min, cell.model.linux_smp) == (
        0.1, 5, 4,
    )  # fmt: skip
    unset = parse(SCENARIO)  # the defaults: a ring, block 1
    assert isinstance(unset, ScenarioCell) and unset.ring and unset.block == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        cell.nodes = 4  # type: ignore[misc]


def test_a_dynamic_cell_carries_its_readings_with_their_defaults() -> None:
    cell = parse(DYN)
    assert isinstance(cell, DynamicCell)
    assert (cell.load, cell.n_jobs, cell.dyn_pes, cell.dyn_mpl) == (0.7, 12, 8, 2)
    assert (cell.max_run, cell.time_scale) == (20.0, 10.0)
    # READINGS' defaults: every scheme on PEs, arrivals set the load, the estimate is
    # the isolated time, the equal mix
    assert (cell.alloc, cell.node_pes, cell.load_by, cell.estimate, cell.mix) == (
        "pe", 2, "arrivals", 1.0, "equal",
    )  # fmt: skip
    twice = parse({**DYN, "estimate": "2"})
    assert isinstance(twice, DynamicCell) and twice.estimate == 2.0


def test_an_integer_is_an_integer_whole_float_or_its_text() -> None:
    for value in (20, 20.0, "20"):
        got = parse({**SCENARIO, "cslots_min": value}).model.fcs_cslots_min
        assert got == 20 and isinstance(got, int)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"nodes": "eight"}, "'nodes' must be an integer (got 'eight')"),
        ({"cslots_min": 2.5}, "'cslots_min' must be an integer (got 2.5)"),
        ({"quantum": "fast"}, "'quantum' must be a number (got 'fast')"),
        ({"grain": None}, "'grain' must be a number (got None)"),
        ({"linux_hz": "often"}, "'linux_hz' must be a number (got 'often')"),
        ({"f_all": "yes"}, "'f_all' must be an integer (got 'yes')"),
    ],
)
def test_a_scenario_cell_names_the_bad_parameter(bad: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse({**SCENARIO, **bad})
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"n_jobs": "many"}, "'n_jobs' must be an integer (got 'many')"),
        ({"load": "high"}, "'load' must be a number (got 'high')"),
        ({"estimate": "twice"}, "'estimate' must be a number (got 'twice')"),
        ({"dyn_pes": 7.5}, "'dyn_pes' must be an integer (got 7.5)"),
    ],
)
def test_a_dynamic_cell_names_the_bad_parameter(bad: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse({**DYN, **bad})
    assert str(err.value) == message
