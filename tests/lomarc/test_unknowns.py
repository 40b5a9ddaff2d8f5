"""The declared unknowns of the LOMARC paper and the workloads built inside their ranges."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cosched.errors import ConfigError
from cosched.lomarc.experiment import NODES, cell_workload
from cosched.lomarc.unknowns import LOAD_RATIOS, UNKNOWNS, sensitivity_workload, with_short_share
from cosched.workload.job import Workload
from cosched.workload.transforms import offered_load


def _w(runs: list[float]) -> Workload:
    n = len(runs)
    return Workload.from_table(
        pd.DataFrame(
            {"job_id": range(1, n + 1), "submit_time": np.arange(n, dtype=float) * 10,
             "run_time": runs, "procs": [1] * n, "requested_time": [2 * r for r in runs]}
        )
    )  # fmt: skip


def test_short_share_by_hand() -> None:
    # Four jobs, one short (30 s). Share 0.5 makes one of the three long ones short, with
    # the short job's run time (30 s) and its requested time in the same ratio (x2).
    w = _w([30.0, 100.0, 200.0, 400.0])
    out = with_short_share(w, 0.5, np.random.default_rng(0))
    run, req = np.asarray(out.columns["run_time"]), np.asarray(out.columns["requested_time"])
    assert sorted(run)[:2] == [30.0, 30.0] and (run <= 60).sum() == 2
    assert np.array_equal(req, 2 * run)
    # Share 0: the short job takes a run time of one of the others.
    run0 = np.asarray(with_short_share(w, 0.0, np.random.default_rng(0)).columns["run_time"])
    assert (run0 <= 60).sum() == 0 and run0[0] in (100.0, 200.0, 400.0)
    assert with_short_share(w, 0.25, np.random.default_rng(0)) is w  # already so
    with pytest.raises(ConfigError, match="short_share"):
        with_short_share(w, 1.5, np.random.default_rng(0))


def test_table4s_ratios_and_the_built_workloads() -> None:
    # Table 4: Load 10.6 / 13 / 21, the same r and n: offered loads in those ratios.
    assert LOAD_RATIOS["W2"] == pytest.approx(13 / 10.6)
    assert LOAD_RATIOS["W3"] == pytest.approx(21 / 10.6)
    for w in ("W1", "W3"):
        built = sensitivity_workload(w, "M1", 0, 400, 0.7, 0.3)
        assert offered_load(built, NODES) == pytest.approx(0.7 * LOAD_RATIOS[w])
        assert (np.asarray(built.columns["run_time"]) <= 60).sum() == round(0.3 * 400)
        assert "lomarc_class" in built.columns
        # The same jobs as the reproduction's cell, sizes unchanged.
        base = cell_workload("paper-alpha", w, "M1", 0, 400)
        assert np.array_equal(built.columns["procs"], base.columns["procs"])


def test_every_range_holds_its_default_or_says_why() -> None:
    for u in UNKNOWNS:
        inside = [v for v in u.values if v not in u.outside]
        assert inside, u.name
        if u.low is not None and u.high is not None:
            assert all(u.low <= float(v) <= u.high for v in inside), u.name
            assert all(not u.low <= float(v) <= u.high for v in u.outside), u.name


def test_a_cell_at_a_point_of_the_unknowns_checks_its_parameters() -> None:
    from cosched.lomarc.experiment import check

    base = {"set": "paper-alpha", "workload": "W1", "mixture": "M1", "variant": "PSS",
            "n_jobs": 100}  # fmt: skip
    check(base)
    check({**base, "w1_load": 0.99, "short_share": 0.42})
    for bad, match in (
        ({"w1_load": 0.99}, "needs 'short_share'"),
        ({"short_share": 0.42}, "needs 'w1_load'"),
        ({"w1_load": 0.0, "short_share": 0.42}, "'w1_load' must be a number > 0"),
        ({"w1_load": 0.9, "short_share": 1.5}, r"'short_share' must be a number in \[0, 1\]"),
        ({"w1_load": 0.9, "short_share": True}, "'short_share' must be"),
    ):
        with pytest.raises(ConfigError, match=match):
            check({**base, **bad})


def test_a_cell_at_a_point_runs_the_studys_workload() -> None:
    # The cell runs what the study's sensitivity_workload draws at that point: the sweep
    # spec docs/claims/lomarc-fitted.toml runs the registered fit's workloads.
    from cosched.engine.simulation import Simulation
    from cosched.experiments.model import CellEnv
    from cosched.lomarc.diagnostics import run_metrics
    from cosched.lomarc.experiment import run_cell
    from cosched.lomarc.policies import lomarc_platform
    from cosched.policies.base import make_policy

    params = {"set": "paper-alpha", "workload": "W2", "mixture": "M1", "variant": "L-R",
              "n_jobs": 300, "w1_load": 0.9, "short_share": 0.42}  # fmt: skip
    w = sensitivity_workload("W2", "M1", 3, 300, 0.9, 0.42)
    assert offered_load(w, NODES) == pytest.approx(0.9 * LOAD_RATIOS["W2"])
    direct = Simulation(w, lomarc_platform(NODES), make_policy("lomarc-r")).run()
    got = run_cell(params, 3, CellEnv())
    want = run_metrics(direct, NODES)
    assert {k: got[k] for k in want} == want
