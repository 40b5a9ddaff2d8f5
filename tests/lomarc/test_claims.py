"""The LOMARC claims: the preset beside the default, Table 2's estimates, hand cases."""

from __future__ import annotations

import pandas as pd
import pytest

from cosched.errors import ConfigError
from cosched.experiments.claims import evaluate
from cosched.lomarc.claims import _gain_rises, claims
from cosched.lomarc.experiment import PRESET_ATTR, under_preset


def _rows(cells: list[tuple[str, str, str, int, float]], metric: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"set": "paper-alpha", "workload": w, "mixture": m, "variant": v, "seed": s,
             metric: x, "status": "ok"}
            for w, m, v, s, x in cells
        ]
    )  # fmt: skip


def test_under_preset_renames_the_presets_runs_and_keeps_pss() -> None:
    r = _rows(
        [("W1", "M1", "PSS", 0, 10.0), ("W1", "M1", "L-R", 0, 8.0),
         ("W1", "M1", "L-R-printed", 0, 6.0), ("W1", "M1", "L-R-np", 0, 9.0)],
        "mean_turnaround",
    )  # fmt: skip
    p = under_preset(r, "printed")
    assert dict(zip(p["variant"], p["mean_turnaround"], strict=True)) == {
        "PSS": 10.0, "L-R": 6.0, "L-R-np": 9.0,
    }  # fmt: skip
    assert p.attrs[PRESET_ATTR] == "printed" and PRESET_ATTR not in r.attrs
    with pytest.raises(ConfigError, match="preset"):
        under_preset(r, "nope")


def _table2(results: pd.DataFrame, experiment: str = "") -> dict[str, tuple[float, str]]:
    """Table 2's estimates judged against the paper alone (no experiment: no fit set)."""
    declared = [c for c in claims() if c.id.startswith("table2-estimate-")]
    t = evaluate(declared, results, experiment)
    return {r.claim: (r.cosched, r.verdict) for r in t.itertuples()}


def test_table2s_estimates_are_the_defaults_and_the_printed_preset_misses_the_mixed_pair() -> None:
    # One finished run (the estimates are judged with a run, under its reading).
    one_run = _rows([("W1", "M1", "PSS", 0, 1.0)], "mean_turnaround")
    # Table 2: 2 (1.4), 1.8 (1.4), 2 (1.6); by hand under the overlap reading the mixed
    # pair is 1 + 0.4 + 0.4 = 1.8 and 1 + 0.4 = 1.4.
    default = _table2(one_run)
    assert {k: v[1] for k, v in default.items()} == dict.fromkeys(default, "agrees")
    assert default["table2-estimate-0.4-0.6-cpu"][0] == pytest.approx(1.8)
    # As printed: 2 x 0.4 + 2 x 0.4 = 1.6 and 0.4 + 2 x 0.4 = 1.2.
    printed = _table2(under_preset(one_run, "printed"))
    assert printed["table2-estimate-0.4-0.6-cpu"] == (pytest.approx(1.6), "disagrees")
    assert printed["table2-estimate-0.4-0.6-nocpu"] == (pytest.approx(1.2), "disagrees")
    assert printed["table2-estimate-0.6-0.6-nocpu"][1] == "agrees"
    # In the reproduction they are the fit set of the overlap reading: never counted.
    assert {v[1] for v in _table2(one_run, "lomarc").values()} == {"calibrated"}


def test_gain_rises_takes_the_smallest_step_by_hand() -> None:
    pss = {"W1": 100.0, "W2": 200.0, "W3": 400.0}
    # Gains over PSS: every variant 10% / 20% / 40%, but L-N 10% / 30% / 35%: its last
    # step (+5 points) is the smallest.
    gains = {"W1": 0.10, "W2": 0.20, "W3": 0.40}
    ln = {"W1": 0.10, "W2": 0.30, "W3": 0.35}
    cells = [(w, "M1", "PSS", 0, x) for w, x in pss.items()]
    for v in ("L-U1", "L-U2", "L-R", "L-FM", "L-N"):
        g = ln if v == "L-N" else gains
        cells += [(w, "M1", v, 0, pss[w] * (1 - g[w])) for w in pss]
    r = _rows(cells, "mean_turnaround")
    assert _gain_rises("mean_turnaround")(r).tolist() == pytest.approx([5.0])
