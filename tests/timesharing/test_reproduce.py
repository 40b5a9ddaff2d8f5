"""The dyncosched reproduction on a tiny grid: the spec, files written, deterministic output."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from cosched.experiments.model import CellEnv, experiment_from_dict
from cosched.experiments.reproductions import spec, spec_text
from cosched.experiments.runner import run_experiment
from cosched.timesharing.experiment import run_cell
from cosched.timesharing.params import SCHEMES


def tiny_spec() -> dict:
    """The quick grid's shape with 12 jobs and load 0.8 (as the old harness's TINY)."""
    data = tomllib.loads(spec_text("dyncosched"))
    data["params"]["n_jobs"] = 12
    data.pop("quick")
    data["grid"] = [
        {"workload": "WL7", "load": 0.8, "scheme": list(SCHEMES)},
        {"workload": "WL4", "load": 0.8, "mpl": [2, 5], "scheme": ["GS", "PB"]},
        {"workload": "WL4", "load": 0.8, "skew": 1.5, "scheme": ["GS", "PB"]},
        {"workload": "WL5", "load": 0.8, "scheme": "GS", "variant": "Q=100ms, CS=1ms"},
        {"workload": "WL5", "load": 0.8, "scheme": "GS"},
    ]
    return data


def test_the_spec_covers_every_scheme_once() -> None:
    quick = spec("dyncosched", quick=True).tasks()
    assert len({t.key for t in quick}) == len(quick) == 142  # MPL 16 too: every claim's cells
    wl7 = [t for t in quick if t.columns["workload"] == "WL7"]
    assert len(wl7) == 3 * len(SCHEMES)  # Figure 3: three loads x every scheme
    assert len(spec("dyncosched").tasks()) == 202 * 3  # 202 configurations x 3 seeds


def test_cell_is_deterministic() -> None:
    params = {"workload": "WL5", "load": 0.8, "skew": 0.2, "mpl": 2, "scheme": "PB",
              "variant": "", "n_jobs": 8, "msg_factor": 16}  # fmt: skip
    a, b = run_cell(params, 1, CellEnv()), run_cell(params, 1, CellEnv())
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)  # NaN-aware


@pytest.mark.slow
def test_tiny_reproduction_is_byte_identical(tmp_path: Path) -> None:
    from cosched.experiments.executors import ProcessPool

    exp = experiment_from_dict(tiny_spec(), source="tiny")
    run_experiment(exp, tmp_path / "a")
    run_experiment(exp, tmp_path / "b", executor=ProcessPool(2))
    report = (tmp_path / "a" / "report.md").read_text()
    for name in ("fig3.png", "fig4.png", "fig5.png"):
        assert (tmp_path / "a" / name).stat().st_size > 0
    a = (tmp_path / "a" / "results.parquet").read_bytes()
    assert a == (tmp_path / "b" / "results.parquet").read_bytes()
    assert "Table 5" in report


def test_a_spec_without_figure_3s_load_sweep_reports_without_the_cpu_breakdown(
    tmp_path: Path,
) -> None:
    """The report reads its sections off the results: a spec without the WL7 sweep (as
    docs/claims/dyncosched-20seeds.toml) gets Figure 4 and no CPU breakdown, not a failure
    that loses the report."""
    data = tiny_spec()
    data["params"]["n_jobs"] = 6
    data["grid"] = [{"workload": "WL4", "load": 0.8, "scheme": ["GS", "PB"]}]
    run_experiment(experiment_from_dict(data, source="tiny"), tmp_path)
    report = (tmp_path / "report.md").read_text()
    assert "CPU time breakdown" not in report
    assert "Figure 4" in report
