"""A claim over several schemes' cells drops a month in which one of them deadlocked."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cosched.coupled.claims import claims


def results() -> pd.DataFrame:
    # Two months: a base wait of 60 min, every coscheduled cell 10 min more (seed 1) or
    # 20 min more (seed 2), but seed 2's HH at 10% paired deadlocked (no wait).
    rows = []
    for seed, extra in ((1, 10.0), (2, 20.0)):
        rows.append({"study": "load", "load": 0.5, "scheme": "base", "seed": seed,
                     "compute.mean_wait": 3600.0})  # fmt: skip
        for p in (0.025, 0.05, 0.1):
            for s in ("HH", "HY", "YH", "YY"):
                dead = seed == 2 and p == 0.1 and s == "HH"
                wait = math.nan if dead else 3600.0 + 60 * extra
                rows.append({"study": "proportion", "load": 0.5, "proportion": p, "scheme": s,
                             "seed": seed, "compute.mean_wait": wait})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_deadlocked_cell_drops_its_month_from_a_range_over_the_schemes() -> None:
    by_id = {c.id: c for c in claims()}
    for cid in ("fig7-extra-wait-le10-max", "fig7-extra-wait-le10-min"):
        values = by_id[cid].measure(results())
        assert np.isnan(values).tolist() == [False, True]  # seed 2 has no full set of bars
        assert values[0] == 10.0
