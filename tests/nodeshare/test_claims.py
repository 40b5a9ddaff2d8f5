"""Node sharing's claims on hand-built results: Table 1's ratios, the seeds' variation,
Figure 4's convergence and Figure 5's comparison with FCFS."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cosched.nodeshare import claims as ns


def _rows(cells: list[tuple[int, str, int, int, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"trace": t, "variant": v, "nodes": n, "seed": s, "mean_turnaround": x,
             "status": "ok", "key": f"{v}-{s}-{n}"}
            for t, v, n, s, x in cells
        ]
    )  # fmt: skip


def test_ratio_quartiles_negate_and_invert_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    tables = {
        "fcfs-0-1158": np.array([10.0, 20.0, 30.0, 40.0]),
        "cosched-1-1158": np.array([20.0, 20.0, 15.0, 40.0]),
    }
    monkeypatch.setattr(ns, "_turnaround", lambda store, key: tables[key])
    r = _rows([(1, "fcfs", 1158, 0, 25.0), (1, "cosched", 1158, 1, 23.75)])
    r.attrs[ns.STORE_ATTR] = "somewhere"
    # fcfs / cosched per job: 0.5, 1, 2, 1 -> -2, 1, 2, 1: 0% -2, 50% 1, 100% 2.
    assert ns._ratio_quartile("fcfs", "cosched", 0)(r).tolist() == [-2.0]
    assert ns._ratio_quartile("fcfs", "cosched", 50)(r).tolist() == [1.0]
    assert ns._ratio_quartile("fcfs", "cosched", 100)(r).tolist() == [2.0]
    # Without the store (a claims copy re-judged), nothing to measure.
    r.attrs.clear()
    assert ns._ratio_quartile("fcfs", "cosched", 50)(r).size == 0


def test_coefficient_of_variation_by_hand() -> None:
    r = _rows([(2, "cosched", 1158, 1, 100.0), (2, "cosched", 1158, 2, 102.0)])
    # sample std of (100, 102) = sqrt(2); mean 101: 100 sqrt(2) / 101 %.
    assert ns._cv(2)(r).tolist() == pytest.approx([100 * np.sqrt(2) / 101])
    assert ns._cv(1)(r).size == 0


def test_baselines_gap_and_fcfs_against_restrictions_by_hand() -> None:
    r = _rows(
        [(1, "fcfs", 1400, 0, 100.0), (1, "easy", 1400, 0, 97.0),
         (1, "fcfs", 1158, 0, 50.0)]
        + [(1, v, 1158, s, x) for v, xs in (("Max_One_High", (60.0, 55.0)),
                                            ("High_Rq_Low", (70.0, 52.0)),
                                            ("Max_One_HM", (80.0, 75.0)))
           for s, x in zip((1, 2), xs, strict=True)]
    )  # fmt: skip
    assert ns._gap(1400)(r).tolist() == pytest.approx([3.0])
    # seed 1: lowest restricted 60 -> +20% over FCFS's 50; seed 2: 52 -> +4%.
    assert ns._worst_over_fcfs(r).tolist() == pytest.approx([20.0, 4.0])
