"""``calibration.grid_fit``: the fit reads its fit set only.

A hand case fixes the loss (mean |ln(cosched / paper)| over the fit set), and on
LOMARC's registered fit (family ``lomarc-fitted``) a held-out claim's paper value,
changed, moves no loss and no fitted point, while a fit claim's does.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pandas as pd
import pytest

from cosched.errors import ConfigError
from cosched.experiments.calibration import Calibration, calibrations, grid_fit
from cosched.experiments.claims import Claim, Value
from cosched.lomarc.claims import claims as lomarc_claims
from cosched.nodeshare.claims import claims as nodeshare_claims


def _claim(cid: str, paper: float, metric: str) -> Claim:
    return Claim(cid, cid, f"{paper:g}", paper, paper, Value({}, metric), "hand case")


def _rows(**metrics: list[float]) -> pd.DataFrame:
    n = len(next(iter(metrics.values())))
    return pd.DataFrame({"seed": range(n), "status": ["ok"] * n, **metrics})


def test_loss_by_hand_and_the_held_out_claim_is_not_read() -> None:
    # Fit set: a (paper 10) and b (paper 4). Point p: a = 20, b = 4 -> (ln 2 + 0) / 2;
    # point q: a = 10 (mean of 5 and 15), b = 8 -> (0 + ln 2) / 2: a tie, the first wins.
    declared = [_claim("a", 10.0, "x"), _claim("b", 4.0, "y"), _claim("held", 1.0, "z")]
    points = {
        "p": _rows(x=[20.0, 20.0], y=[4.0, 4.0], z=[1.0, 1.0]),
        "q": _rows(x=[5.0, 15.0], y=[8.0, 8.0], z=[50.0, 50.0]),
    }
    best, losses = grid_fit(points, declared, ("a", "b"))
    assert losses == pytest.approx({"p": math.log(2) / 2, "q": math.log(2) / 2})
    assert best == "p"
    # The held-out claim's value at q is far off, and it does not count.
    declared[0] = _claim("a", 20.0, "x")  # a fit claim moved: p now fits exactly
    assert grid_fit(points, declared, ("a", "b")) == (
        "p",
        pytest.approx({"p": 0.0, "q": math.log(2)}),
    )
    with pytest.raises(ConfigError, match="fit set"):
        grid_fit(points, declared, ("nothing-*",))


def _table5_runs(scale: float) -> pd.DataFrame:
    """L-U1, L-U2 and L-R on W1-W3 (two seeds), every Table 5 counter ``scale`` x 20."""
    cols = ("avg_queue_length", "avg_medium_long", "avg_size_ok", "avg_memory_fit",
            "avg_matchable", "avg_slowdown_ok", "avg_selected_position")  # fmt: skip
    return pd.DataFrame(
        [
            {"set": "paper-alpha", "workload": w, "mixture": "M1", "variant": v, "seed": s,
             "status": "ok", **{c: scale * (20.0 + k + s) for k, c in enumerate(cols)}}
            for v in ("L-U1", "L-U2", "L-R") for w in ("W1", "W2", "W3") for s in (0, 1)
        ]
    )  # fmt: skip


def test_lomarcs_fit_moves_with_no_held_out_claim() -> None:
    (fit,) = calibrations("lomarc-fitted")
    points = {f"x{s:g}": _table5_runs(s) for s in (0.5, 1.0, 2.0, 4.0)}
    declared = lomarc_claims()
    held = [c for c in declared if fit.holds_out(c.id)]
    assert {c.id for c in held} >= {"table5-L-U1-size-W1", "table5-candidates-left-W1"}
    assert any(c.id.startswith("fig7-") for c in held)
    _reads_only_its_fit_set(fit, points, declared)


def _reads_only_its_fit_set(
    fit: Calibration, points: dict[str, pd.DataFrame], declared: list[Claim]
) -> None:
    """Every held-out claim's paper value multiplied by 10 moves no loss and no point;
    a fit claim's moves the losses (so the first check can fail)."""
    before = grid_fit(points, declared, fit.fitted_to)
    moved = [
        dataclasses.replace(c, low=10 * c.low + 1, high=10 * c.high + 1)
        if fit.holds_out(c.id)
        else c
        for c in declared
    ]
    assert grid_fit(points, moved, fit.fitted_to) == before
    fitted = [
        dataclasses.replace(c, low=10 * c.low, high=10 * c.high) if fit.fits(c.id) else c
        for c in declared
    ]
    assert grid_fit(points, fitted, fit.fitted_to)[1] != before[1]


#: The execution-change counts of the nodeshare reproduction's results.
_COUNTS = ("sped_up", "slowed_down", "unchanged", "slowed_over_1.2", "slowed_over_2",
           "slowed_over_3", "slowed_over_4", "slowed_over_5")  # fmt: skip


def _trace1_runs(scale: float) -> pd.DataFrame:
    """Trace1's coscheduling and restrictions (two seeds of 10,000 jobs), every
    execution-change count and the turnaround, wait and degraded counts ``scale`` x."""
    return pd.DataFrame(
        [
            {"trace": 1, "variant": v, "nodes": 1158, "jobs": 10_000, "seed": s,
             "status": "ok", "mean_turnaround": scale * (900.0 + 10 * k + s),
             "mean_wait": scale * (400.0 + 10 * k), "configurations.degraded": 100.0 * k,
             **{f"execution.{c}": scale * (50.0 + 20 * j + s) for j, c in enumerate(_COUNTS)}}
            for k, v in enumerate(("cosched", "Max_One_High", "High_Rq_Low", "Max_One_HM"))
            for s in (1, 2)
        ]
    )  # fmt: skip


def _cab_runs(scale: float) -> pd.DataFrame:
    """The Cab stand-in's Trace1 at one load / share point: the baselines, coscheduling
    and no-degraded runs (two seeds of 50,000 jobs), their block and execution counts
    and turnarounds ``scale`` x."""
    rows = [
        {"trace": 1, "variant": v, "nodes": 1158, "jobs": 50_000, "seed": 0, "status": "ok",
         "mean_turnaround": t, "mean_wait": t / 2}
        for v, t in (("fcfs", 9000.0), ("easy", 3000.0))
    ]  # fmt: skip
    rows += [
        {"trace": 1, "variant": v, "nodes": 1158, "jobs": 50_000, "seed": s, "status": "ok",
         "mean_turnaround": scale * (900.0 + 10 * k + s), "mean_wait": scale * 400.0,
         "blocked.fragmentation": scale * (300.0 + 100 * k + s),
         "blocked.capacity": scale * (2000.0 + 500 * k + s),
         **{f"execution.{c}": scale * (50.0 + 20 * j + s) for j, c in enumerate(_COUNTS)}}
        for k, v in enumerate(("cosched", "no_degraded", "combined"))
        for s in (1, 2)
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("study", "runs", "held_out", "fitted"),
    [
        # Figure 5's execution-time statements and the rest of Figure 3 are held out.
        (
            "nodeshare-fitted",
            _trace1_runs,
            {"fig5-execution-rises", "fig5-execution-rises-Max_One_High", "fig3-sped-up"},
            set(),
        ),
        # Figure 1, Table 1 and Figure 5 are held out; Table 2 and Figure 3's shares are
        # fitted.
        (
            "nodeshare-cab",
            _cab_runs,
            {"fig1-vs-easy-T1", "table1-easy-vs-fcfs-q50", "fig5-wait-rises"},
            {"table2-capacity-without-degraded", "fig3-sped-up"},
        ),
    ],
)
def test_a_nodeshare_fit_moves_with_no_held_out_claim(
    study: str,
    runs: Callable[[float], pd.DataFrame],
    held_out: set[str],
    fitted: set[str],
) -> None:
    (fit,) = calibrations(study)
    assert fit.claims_of == "nodeshare"
    points = {f"x{s:g}": runs(s) for s in (0.5, 1.0, 2.0, 4.0)}
    declared = nodeshare_claims()
    held = {c.id for c in declared if fit.holds_out(c.id)}
    assert held_out <= held
    assert all(fit.fits(c) for c in fitted)
    assert not any(fit.fits(c) for c in held)
    _reads_only_its_fit_set(fit, points, declared)
