"""The reproduction's plumbing on a tiny grid: resumable, deterministic, complete."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from cosched.errors import ConfigError
from cosched.experiments.model import experiment_from_dict
from cosched.experiments.reproductions import spec, spec_text
from cosched.experiments.runner import run_experiment
from cosched.lomarc.experiment import NODES, PAIRING, RUNS, SETS, cell_workload
from cosched.lomarc.policies import VARIANTS
from cosched.workload.transforms import offered_load

CORE = ("mean_wait", "mean_turnaround", "mean_bounded_slowdown", "utilization", "makespan")


def tiny_spec() -> dict:
    """Four cells of the lomarc spec, 200 jobs each."""
    data = tomllib.loads(spec_text("lomarc"))
    data.pop("quick")
    data["params"] = {"set": "paper-alpha", "n_jobs": 200}
    data["grid"] = [
        {"workload": "W1", "mixture": "M1", "variant": "PSS", "seeds": [0]},
        {"workload": "W3", "mixture": "M1", "variant": "L-U1", "seeds": [0]},
        {"workload": "W3", "mixture": "M1", "variant": "AC", "seeds": [1]},
        {"workload": "W1", "mixture": "M2", "variant": "L-R", "seeds": [1]},
    ]
    return data


def test_the_spec_covers_every_configuration_once() -> None:
    """M1 on W1-W3 and M2, M3 on W1 (5 pairs) x every run (the paper's variants, each
    pairing variant under the printed preset, AC under the memory presets, the two
    ablations) x the seeds."""
    quick = spec("lomarc", quick=True).tasks()
    n = 5 * len(RUNS)
    assert len({t.key for t in quick}) == len(quick) == len(SETS) * n
    assert {t.columns["variant"] for t in quick} == set(RUNS) >= set(VARIANTS)
    printed = {v for v in RUNS if v.endswith("-printed")}
    assert printed == {f"{v}-printed" for v in PAIRING}
    assert all(RUNS[v][1] == {"slowdown": "printed"} for v in printed)
    memory = {v for v in RUNS if v.startswith("AC-overlap-")}
    assert memory == {"AC-overlap-add", "AC-overlap-excess"}
    assert {t.columns["n_jobs"] for t in quick} == {1500}
    assert len(spec("lomarc").tasks()) == n * 5


def test_cells_resume_and_outputs_are_byte_identical(tmp_path: Path) -> None:
    exp = experiment_from_dict(tiny_spec(), source="tiny")
    first = run_experiment(exp, tmp_path / "a")
    assert (first["status"] == "ok").all() and len(first) == 4
    for m in CORE:
        assert first[m].notna().all()
    assert (first["jobs"] == 200).all()
    # A second folder holding only some finished cells runs the rest and ends equal.
    b = tmp_path / "b" / "cells"
    b.mkdir(parents=True)
    kept = next((tmp_path / "a" / "cells").glob("*.parquet"))
    (b / kept.name).write_bytes(kept.read_bytes())
    seen: list[tuple[int, int]] = []
    run_experiment(exp, tmp_path / "b", progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (1, 4)
    for f in ("results.parquet", "report.md", "fig6_response.png", "fig9_mixtures.png"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    assert "| L-R | response time | M1 | W1 | +48% |" in (tmp_path / "a" / "report.md").read_text()


def test_bad_configurations_are_refused_before_running() -> None:
    data = tiny_spec()
    data["grid"] = [{"workload": "W4", "mixture": "M1", "variant": "PSS"}]
    with pytest.raises(ConfigError, match="'workload' must be one of W1, W2, W3, got 'W4'"):
        experiment_from_dict(data, source="tiny")


def test_workloads_are_the_typeless_model_and_increasingly_heavy() -> None:
    """W1-W3 come from the single-class model (every job in queue 0), heavier in turn."""
    loads = []
    for w in ("W1", "W2", "W3"):
        workload = cell_workload("paper-alpha", w, "M1", 0, 1000)
        assert set(workload.table["queue"].tolist()) == {0}
        loads.append(offered_load(workload, NODES))
    assert loads[0] < loads[1] < loads[2]
    assert loads[0] > 0.3  # the class-separated model offered < 0.1 here


def test_unknown_sets_are_refused() -> None:
    with pytest.raises(ConfigError, match="set must be one of"):
        cell_workload("load-1", "W1", "M1", 0, 100)
