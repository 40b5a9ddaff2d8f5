"""Claims as data: the verdict rule against hand calculations, and the stored table."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from cosched.errors import ConfigError
from cosched.experiments.claims import (
    SEED_CAP,
    UNCOUNTED,
    Claim,
    Improvement,
    Quote,
    Tolerance,
    Value,
    agreement,
    evaluate,
    null_agrees,
    rejudge,
    verdict,
)
from cosched.experiments.model import CellEnv, experiment_from_dict
from cosched.experiments.runner import run_experiment
from cosched.experiments.stats import Interval
from cosched.experiments.store import META_KEY, read_claims

# t quantile 0.975 with 2 degrees of freedom (tables: 4.303); [1, 2, 3] has s = 1, so
# the half-width is 4.302653 / sqrt(3) = 2.484138 and the interval [-0.4841, 4.4841].
T2 = 4.302652729911275
HALF_123 = T2 / math.sqrt(3)


def claim(low: float, high: float, tol_abs: float = 0.0, tol_rel: float = 0.0, **kw: Any) -> Claim:
    """A hand claim on ``[low, high]``, its tolerance ``tol_abs`` / ``tol_rel`` (reason
    "a hand case"); ``kw`` sets any other field."""
    if tol_abs or tol_rel:
        kw["within"] = Tolerance(absolute=tol_abs, relative=tol_rel, reason="a hand case")
    fields: dict[str, Any] = {
        "id": "c",
        "description": "d",
        "paper": "p",
        "measure": lambda r: np.empty(0),
        "reason": "the modelling choice",
        **kw,
    }
    return Claim(low=low, high=high, **fields)


def test_mean_inside_the_widened_range_agrees() -> None:
    ci = Interval(2.0, HALF_123, 3)
    assert verdict(claim(2.5, 2.5, tol_abs=0.5), ci) == ("agrees", "")
    # tolerance: max(abs 1, rel 0.1 x 18 = 1.8) -> target [-0.8, 19.8]
    assert claim(1, 18, tol_abs=1, tol_rel=0.1).target() == pytest.approx((-0.8, 19.8))


def test_interval_reaching_the_target_is_inconclusive_below_the_seed_cap() -> None:
    # target [4.48, 5.52]; the interval [-0.4841, 4.4841] reaches it
    v, why = verdict(claim(5, 5, tol_abs=0.52), Interval(2.0, HALF_123, 3))
    assert v == "inconclusive" and "interval over 3 seeds reaches it" in why
    # the same interval over SEED_CAP seeds settles on the mean: 2 is off the target
    assert verdict(claim(5, 5, tol_abs=0.52), Interval(2.0, HALF_123, SEED_CAP))[0] == ("disagrees")
    # target [4.5, 5.5]: 4.4841 < 4.5 does not reach it
    assert verdict(claim(5, 5, tol_abs=0.5), Interval(2.0, HALF_123, 3))[0] == "disagrees"


def test_direction_needs_a_signed_claim_and_the_whole_interval_on_the_papers_side() -> None:
    # paper +5 (target [4.5, 5.5]); cosched 2 +- 1: the interval [1, 3] is positive
    signed = claim(5, 5, tol_abs=0.5, direction=True)
    v, why = verdict(signed, Interval(2.0, 1.0, 3))
    assert v == "direction" and why == "same sign as the paper's, below its range"
    # an unsigned claim (a wait in minutes) is only off the paper's value
    assert verdict(claim(5, 5, tol_abs=0.5), Interval(2.0, 1.0, 3))[0] == "disagrees"
    # [-0.4841, 4.4841] straddles 0: the sign is not established
    assert verdict(signed, Interval(2.0, HALF_123, 3))[0] == "disagrees"


def test_sign_is_the_papers_range_not_the_widened_target() -> None:
    # paper "1% to 18% lower", tolerance 2 points: target [-1, 20] crosses 0, but the
    # paper's own range is positive, so +50% is the same sign (direction), -5% opposite.
    c = claim(1, 18, tol_abs=2, direction=True)
    v, why = verdict(c, Interval(50.0, math.nan, 1))
    assert v == "direction" and why.endswith("above its range")
    v, why = verdict(c, Interval(-5.0, math.nan, 1))
    assert v == "disagrees" and "opposite sign" in why


def test_opposite_sign_disagrees_and_one_seed_has_no_interval() -> None:
    v, why = verdict(claim(5, 5, tol_abs=0.5, direction=True), Interval(-2.0, 1.0, 3))
    assert v == "disagrees" and "opposite sign" in why
    # one-sided "worse than PSS" (< 0): +6.41 on one seed disagrees, -6.3 agrees
    assert verdict(claim(-math.inf, 0.0), Interval(6.41, math.nan, 1))[0] == "disagrees"
    assert verdict(claim(-math.inf, 0.0), Interval(-6.3, math.nan, 1))[0] == "agrees"
    assert verdict(claim(0, 1), Interval(math.nan, math.nan, 0))[0] == "not run"


def test_a_one_sided_claim_with_its_interval_across_its_bound_is_not_agrees() -> None:
    # "better" (> 0): mean 2 in [0, inf), but [2 - 2.4841, 2 + 2.4841] reaches below 0
    better = claim(0.0, math.inf)
    v, why = verdict(better, Interval(2.0, HALF_123, 3))
    assert v == "inconclusive" and "reaches 0" in why
    # the same interval over SEED_CAP seeds: the paper's side is not established
    assert verdict(better, Interval(2.0, HALF_123, SEED_CAP))[0] == "disagrees"
    # [1, 3] wholly above 0 agrees; one deterministic seed of 2 agrees on its mean
    assert verdict(better, Interval(2.0, 1.0, SEED_CAP)) == ("agrees", "")
    assert verdict(better, Interval(2.0, math.nan, 1)) == ("agrees", "")
    # "< 50%": the interval [45, 55] crosses 50
    assert verdict(claim(-math.inf, 50.0), Interval(45.0, 5.0, SEED_CAP))[0] == "disagrees"
    # a declared direction: paper +5 +- 5 (target [0, 10]), mean 1.46 [-1.05, 3.96] (the
    # audit's "significantly better" case): in the target, but its sign is not established
    signed = claim(5.0, 5.0, tol_abs=5.0, direction=True)
    assert verdict(signed, Interval(1.46, 2.51, SEED_CAP))[0] == "disagrees"
    assert verdict(signed, Interval(1.46, 1.0, SEED_CAP)) == ("agrees", "")
    # a two-sided claim is judged on its mean: 2 +- 2.48 within [-1, 3] agrees
    assert verdict(claim(-1.0, 3.0), Interval(2.0, HALF_123, SEED_CAP)) == ("agrees", "")


def test_a_claim_whose_null_outcome_agrees_is_untestable() -> None:
    t = table([("a", 1, 0.5), ("a", 2, 0.5), ("base", 1, 40.0), ("base", 2, 40.0)])
    # paper +2 +- 2: target [0, 4] holds the null 0 of a difference (cosched 0.5 agrees)
    loose = Claim("loose", "d", "+2", 2, 2, Value({"variant": "a"}, "x"), "why",
                  within=Tolerance(absolute=2.0, reason="by hand"), direction=True)  # fmt: skip
    # the same tightened to 1.5 (target [0.5, 3.5]): 0 is outside, cosched 0.5 agrees
    tight = Claim("tight", "d", "+2", 2, 2, Value({"variant": "a"}, "x"), "why",
                  within=Tolerance(absolute=1.5, reason="by hand"), direction=True)  # fmt: skip
    # "below 50" whose baseline (the scheme the paper puts at 77) is 40 in cosched
    base = Claim("base", "d", "77", 77, 77, Value({"variant": "base"}, "x"), "why")
    below = Claim("below", "d", "< 50", -math.inf, 50, Value({"variant": "a"}, "x"), "why",
                  null="base")  # fmt: skip
    out = evaluate([loose, tight, base, below], t, "toy").set_index("claim")
    assert out.loc["loose", "verdict"] == "untestable"
    assert "null outcome 0 lies in the target [0, 4]" in out.loc["loose", "reason"]
    assert "alone: agrees" in out.loc["loose", "reason"]
    assert out.loc["tight", "verdict"] == "agrees" and out.loc["tight", "null"] == 0.0
    assert out.loc["below", "verdict"] == "untestable" and out.loc["below", "null"] == 40.0
    assert out.loc["base", "verdict"] == "disagrees" and math.isnan(out.loc["base", "null"])
    # a one-sided claim's own bound is the paper's strict "better": 0 is not "> 0"
    assert not null_agrees(claim(0.0, math.inf), 0.0)
    assert null_agrees(claim(0.0, math.inf, tol_abs=1.0), 0.0)
    # defaults: 0 for a signed comparison, none for a value claim naming no baseline
    assert claim(5, 5, direction=True).null_outcome() == 0.0
    assert claim(5, 5).null_outcome() is None
    assert claim(5, 5, null=math.nan, direction=True).null_outcome() is None
    with pytest.raises(ConfigError, match="null names claim 'gone'"):
        evaluate([claim(5, 5, null="gone")], t, "toy")


def test_an_input_claim_is_shown_and_left_out_of_the_figure() -> None:
    t = table([("a", 1, 60.0)])
    given = Claim("given", "d", "60 s", 60, 60, Value({"variant": "a"}, "x"), "why",
                  input="the job length is set from the paper's column")  # fmt: skip
    result = Claim("result", "d", "60 s", 60, 60, Value({"variant": "a"}, "x"), "why")
    out = evaluate([given, result], t, "toy")
    assert out["verdict"].tolist() == ["input", "agrees"]
    assert out["reason"].iloc[0].startswith("the job length is set from the paper's column")
    assert out["cosched"].iloc[0] == 60.0
    tally = agreement(out)
    assert tally.counted == 1 and tally.agreement == 1.0
    assert tally.text() == "1 of 1 agree (100%); 1 input"
    # every uncounted verdict leaves the denominator: 2 agree of 4 counted
    verdicts = ["agrees", "agrees", "disagrees", "not run", "calibrated", "input",
                "untestable", "not simulated"]  # fmt: skip
    assert agreement(pd.DataFrame({"verdict": verdicts})).counted == 4


def test_a_tolerance_keeps_its_numbers_and_reason_together() -> None:
    tol = Tolerance(absolute=1.0, relative=0.25, reason="read from bars")
    # a single number 10: max(1, 0.25 x 10) = 2.5; a bound "under 10": the 1 alone
    assert claim(10, 10, within=tol).target() == (7.5, 12.5)
    assert claim(0, 10, within=tol.absolute_only()).target() == (-1.0, 11.0)
    assert claim(10, 10, within=tol, unit="min").tolerance() == (
        "1 min or 25% of the paper's value, whichever is larger (read from bars)"
    )
    assert claim(0, 10, within=tol.absolute_only(), unit="min").tolerance() == (
        "1 min (read from bars)"
    )


def test_not_simulated_keeps_its_reason_and_a_tolerance_needs_one() -> None:
    c = claim(1, 1, not_simulated="the trace is not public")
    assert verdict(c, Interval(1.0, math.nan, 1)) == ("not simulated", "the trace is not public")
    with pytest.raises(ConfigError, match="tolerance 1 / 0: a tolerance needs its reason"):
        Tolerance(absolute=1.0)
    with pytest.raises(ConfigError, match="a quote needs its words, its line 1-based"):
        Quote(3, "")
    with pytest.raises(ConfigError, match="quote at line 0"):
        Quote(0, "five")
    c = claim(1, 1, source=Quote(3, "five"))
    assert (c.paper_line, c.quote) == (3, "five")
    assert (claim(1, 1).paper_line, claim(1, 1).quote) == (None, "")


def test_agreement_leaves_out_calibrated_and_not_simulated_by_hand() -> None:
    verdicts = ["agrees", "agrees", "direction", "inconclusive", "disagrees", "calibrated",
                "not simulated"]  # fmt: skip
    tally = agreement(pd.DataFrame({"verdict": verdicts}))
    # 7 declared less 1 calibrated and 1 not simulated = 5; 2 of them agree
    assert tally.counted == 5 and tally.agreement == pytest.approx(0.4)
    assert tally.text() == (
        "2 of 5 agree (40%); 1 direction, 1 inconclusive, 1 disagrees, 1 calibrated, "
        "1 not simulated"
    )
    with pytest.raises(ConfigError, match="unknown verdicts"):
        agreement(pd.DataFrame({"verdict": ["partly"]}))


def test_a_fitted_claim_is_calibrated_and_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    from cosched.experiments import calibration

    fit = calibration.Calibration("k", "toy", "3", ("fit-*",), "by hand", ("held",))
    monkeypatch.setattr(calibration, "CALIBRATIONS", (fit,))
    t = table([("a", 1, 2.0), ("a", 2, 2.0)])
    mk = lambda cid: Claim(cid, "d", "2", 2, 2, Value({"variant": "a"}, "x"), "why")  # noqa: E731
    out = evaluate([mk("fit-one"), mk("held")], t, "toy")
    assert out["verdict"].tolist() == ["calibrated", "agrees"]
    assert "fit of k = 3" in out["reason"].iloc[0] and "alone: agrees" in out["reason"].iloc[0]
    assert agreement(out).text() == "1 of 1 agree (100%); 1 calibrated"
    # another reproduction's claim of the same id is not the toy fit's
    assert evaluate([mk("fit-one")], t, "other")["verdict"].tolist() == ["agrees"]


def test_rejudge_reads_a_stored_tables_numbers() -> None:
    stored = pd.DataFrame(
        [{"claim": "c", "cosched": 2.0, "cosched_low": 2.0 - HALF_123,
          "cosched_high": 2.0 + HALF_123, "seeds": 3}]
    )  # fmt: skip
    out = rejudge([claim(5, 5, tol_abs=0.52)], stored, "toy")
    assert out["verdict"].tolist() == ["inconclusive"]
    assert out["cosched_high"].iloc[0] == pytest.approx(2.0 + HALF_123)
    # judging a judged table again changes no number, to the last bit
    again = rejudge([claim(5, 5, tol_abs=0.52)], out, "toy")
    pd.testing.assert_frame_equal(again, out)
    ends = stored.assign(cosched_low=0.1 + 0.2, cosched_high=3.7)  # not symmetric in floats
    kept = rejudge([claim(5, 5, tol_abs=0.52)], ends, "toy")
    assert (kept["cosched_low"].iloc[0], kept["cosched_high"].iloc[0]) == (0.1 + 0.2, 3.7)
    # a declared claim the stored table does not hold
    assert rejudge([claim(5, 5)], stored.assign(claim="gone"), "toy")["verdict"].tolist() == [
        "not run"
    ]


def table(rows: list[tuple[str, int, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"variant": v, "seed": s, "x": x, "status": "ok"} for v, s, x in rows])


def test_improvement_is_paired_by_seed_or_against_a_single_baseline() -> None:
    t = table([("base", 0, 100.0), ("base", 1, 200.0), ("new", 0, 80.0), ("new", 1, 150.0)])
    got = Improvement({"variant": "new"}, {"variant": "base"}, "x")(t)
    assert got.tolist() == pytest.approx([20.0, 25.0])
    up = Improvement({"variant": "new"}, {"variant": "base"}, "x", higher_is_better=True)(t)
    assert up.tolist() == pytest.approx([-20.0, -25.0])
    t = table([("base", 0, 100.0), ("new", 1, 90.0), ("new", 2, 110.0)])
    assert Improvement({"variant": "new"}, {"variant": "base"}, "x")(t).tolist() == [10.0, -10.0]
    t = table([("base", 0, 1.0), ("base", 1, 2.0), ("new", 2, 3.0)])
    with pytest.raises(ConfigError, match="no run for seeds"):
        Improvement({"variant": "new"}, {"variant": "base"}, "x")(t)
    assert Value({"variant": "gone"}, "x")(t).size == 0


def test_evaluate_reports_reason_only_when_not_agreeing() -> None:
    t = table([("a", 1, 1.0), ("a", 2, 2.0), ("a", 3, 3.0)])
    c1 = claim(2, 2, tol_abs=0.1, id="ok", measure=Value({"variant": "a"}, "x"), reason="why")
    c2 = claim(5, 5, tol_abs=0.52, id="off", measure=Value({"variant": "a"}, "x"), reason="why")
    out = evaluate([c1, c2], t, "toy")
    assert out["verdict"].tolist() == ["agrees", "inconclusive"]
    assert out["reason"].tolist()[0] == ""
    assert out["reason"].tolist()[1].endswith(": why")
    row = out.iloc[1]
    assert row["cosched"] == pytest.approx(2.0) and row["seeds"] == 3
    assert row["cosched_high"] == pytest.approx(2.0 + HALF_123)
    with pytest.raises(ConfigError, match="two claims have the id"):
        evaluate([c1, c1], t)


# -- through the runner and the report ------------------------------------------------


def toy_cell(params: Mapping[str, Any], seed: int, env: CellEnv) -> dict[str, float]:
    return {"x": float(params["a"]) * seed}


def toy_claims() -> list[Claim]:
    return [
        Claim(
            "x-a1", "x of a=1", "5", 5, 5, Value({"a": 1}, "x"), "toy model",
            within=Tolerance(absolute=0.52, reason="a toy's"), source=Quote(1, "five"),
        )
    ]  # fmt: skip


def test_report_writes_claims_parquet_beside_results(tmp_path: Path) -> None:
    exp = experiment_from_dict(
        {
            "name": "toy",
            "cell": "tests.experiments.test_claims:toy_cell",
            "claims": "tests.experiments.test_claims:toy_claims",
            "seeds": [1, 2, 3],
            "grid": [{"a": [1, 2]}],
        }
    )
    run_experiment(exp, tmp_path)
    stored = pq.read_table(tmp_path / "claims.parquet")
    meta = json.loads(stored.schema.metadata[META_KEY])
    assert meta["claims"] == "tests.experiments.test_claims:toy_claims"
    rows = stored.to_pylist()
    assert [(r["claim"], r["verdict"], r["seeds"]) for r in rows] == [("x-a1", "inconclusive", 3)]
    assert rows[0]["cosched"] == pytest.approx(2.0)
    results = json.loads(pq.read_schema(tmp_path / "results.parquet").metadata[META_KEY])
    assert results["spec"]["claims"] == "tests.experiments.test_claims:toy_claims"
    # results.parquet carries the same claim table as data, and its rows are unchanged.
    carried = read_claims(tmp_path)
    pd.testing.assert_frame_equal(carried, stored.to_pandas(), check_dtype=False)
    assert len(pq.read_table(tmp_path / "results.parquet")) == 2 * 3
    report = (tmp_path / "report.md").read_text()
    assert "| x-a1 | x of a=1 | 5 | 2 [-0.484, 4.48] | 3 | inconclusive |" in report
    assert rows[0]["paper_line"] == 1 and rows[0]["quote"] == "five"


def test_a_claims_key_that_cannot_be_imported_is_refused() -> None:
    with pytest.raises(ConfigError, match="'claims': cannot import"):
        experiment_from_dict(
            {"cell": "tests.experiments.test_claims:toy_cell", "claims": "cosched.nope:x"},
            source="mine.toml",
        )


@pytest.mark.parametrize("name", ["lomarc", "nodeshare", "dyncosched", "coupled", "fcs"])
def test_every_reproduction_declares_claims_with_unique_ids(name: str) -> None:
    import tomllib

    from cosched.experiments.model import resolve
    from cosched.experiments.reproductions import spec_text

    target = tomllib.loads(spec_text(name))["claims"]
    declared = resolve(target)()
    assert len(declared) >= 10
    empty = pd.DataFrame({"key": [], "status": [], "seed": []})
    out = evaluate(declared, empty, name)
    # With no results every claim is "not run", but for those declared not simulated.
    expected = ["not simulated" if c.not_simulated else "not run" for c in declared]
    assert out["verdict"].tolist() == expected
    assert out["claim"].is_unique
    # Every claim names the modelling choice that a disagreement would be put down to.
    assert all(len(c.reason) > 20 for c in declared)


def test_node_count_claim_takes_each_seeds_worst_count_by_hand() -> None:
    from cosched.nodeshare.claims import _lowest_at_every_count

    rows = [
        # (variant, nodes, seed, mean turnaround)
        ("fcfs", 500, 0, 100.0), ("easy", 500, 0, 80.0),
        ("cosched", 500, 1, 60.0), ("cosched", 500, 2, 90.0),
        ("fcfs", 1000, 0, 50.0), ("easy", 1000, 0, 60.0),
        ("cosched", 1000, 1, 45.0), ("cosched", 1000, 2, 40.0),
    ]  # fmt: skip
    t = pd.DataFrame(
        [
            {"trace": 1, "variant": v, "nodes": n, "seed": s, "mean_turnaround": x, "status": "ok"}
            for v, n, s, x in rows
        ]
    )
    # better baseline 80 at 500 nodes: seed 1 +25%, seed 2 -12.5%; 50 at 1000: +10%, +20%
    assert _lowest_at_every_count(t).tolist() == pytest.approx([10.0, -12.5])


def test_coupled_extra_wait_is_the_worst_scheme_minus_base_by_hand() -> None:
    from cosched.coupled.claims import _extra

    waits = {"base": (600.0, 660.0), "HH": (900.0, 720.0), "HY": (1200.0, 690.0)}
    t = pd.DataFrame(
        [
            {"study": "load", "load": 0.5, "scheme": k, "seed": s, "x": v[s], "status": "ok"}
            for k, v in waits.items()
            for s in (0, 1)
        ]
    )
    # seed 0: max(900, 1200) - 600 = 600 s = 10 min; seed 1: 720 - 660 = 60 s = 1 min
    assert _extra(0.5, "x", 1 / 60)(t).tolist() == pytest.approx([10.0, 1.0])


# -- the calibration record against the declared claims and the stored tables -----------


def _declared(family: str) -> list[Claim]:
    import tomllib

    from cosched.experiments.model import resolve
    from cosched.experiments.reproductions import spec_text

    # A family run from a spec in docs/claims (coupled-atlas) or a reproduction's own.
    path = Path(__file__).resolve().parents[2] / "docs" / "claims" / f"{family}.toml"
    text = path.read_text() if path.is_file() else spec_text(family)
    return list(resolve(tomllib.loads(text)["claims"])())


def test_every_registered_fit_names_declared_claims() -> None:
    from fnmatch import fnmatchcase

    from cosched.experiments.calibration import CALIBRATIONS

    for fit in CALIBRATIONS:
        ids = [c.id for c in _declared(fit.claims_of or fit.family)]
        for pattern in (*fit.fitted_to, *fit.held_out):
            matched = [i for i in ids if fnmatchcase(i, pattern)]
            assert matched, f"{fit.parameter} ({fit.family}): {pattern!r} matches no claim"
        held = [i for i in ids if fit.holds_out(i)]
        assert held, f"{fit.parameter}: no held-out claim tests it"


@pytest.mark.parametrize("family", ["lomarc", "nodeshare", "dyncosched", "coupled", "fcs"])
def test_no_calibrated_claim_enters_an_agreement_count(family: str) -> None:
    from cosched.experiments.calibration import calibration_of

    path = Path(__file__).resolve().parents[2] / "docs" / "claims" / f"{family}.csv"
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    fitted = [calibration_of(family, str(c)) is not None for c in frame["claim"]]
    # every claim in a fit set is stored as calibrated (unless it cannot be simulated) ...
    stored = frame.loc[fitted, "verdict"].tolist()
    assert all(v in ("calibrated", "not simulated", "not run") for v in stored), stored
    # ... and the agreement figure's denominator leaves every one of them out
    tally = agreement(frame)
    uncounted = int((frame["verdict"].isin(sorted(UNCOUNTED))).sum())
    assert tally.counted == len(frame) - uncounted
    assert tally.counts.get("agrees", 0) == int((frame["verdict"] == "agrees").sum())
    assert not any(f and v == "agrees" for f, v in zip(fitted, frame["verdict"], strict=True))
