"""The LOMARC paper's claims, judged by :mod:`cosched.experiments.claims`.

Every number claim is an improvement over PSS on the same seeds (common random
numbers), positive = better: ``(PSS - variant) / PSS`` for times and makespan,
``(variant - PSS) / PSS`` for the utilization efficiency E. The paper's numbers are the
ones its text states (:data:`cosched.lomarc.report.PAPER_CLAIMS`); its comparative
sentences (AC worse than PSS, L-R against L-U1, AM between PSS and L-R, utilization
almost the same, ...) are one-sided or "about equal" claims. Each claim quotes the
sentence of the paper's text it rests on (:data:`PAPER`, line and words). The reasons
name the modelling choice that docs/lomarc.md found behind each disagreement. The
tables (Table 2's estimates, Table 5, the measured Tables 1-3) are declared in
:mod:`cosched.lomarc.table_claims`. The claims judge the default readings;
:func:`cosched.lomarc.report.readings_markdown` judges the same claims on each preset's
runs beside them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from cosched.experiments.claims import (
    EXACT,
    Claim,
    Improvement,
    Measure,
    Quote,
    Tolerance,
    Value,
    combine,
    per_seed,
)
from cosched.lomarc.report import PAPER_CLAIMS
from cosched.lomarc.table_claims import table_claims

__all__ = ["PAPER", "REASONS", "claims"]

#: The paper's text: ``/work/shared/papers/<PAPER>.txt``.
PAPER = "lomarc-hyperthreaded-coscheduling"

_SHORT = {
    "mean_turnaround": "response",
    "mean_bounded_slowdown": "bounded",
    "makespan": "makespan",
    "utilization_efficiency": "E",
}
_FIG = {
    "mean_turnaround": "fig6",
    "mean_bounded_slowdown": "fig7",
    "utilization_efficiency": "fig8",
    "makespan": "text",
}
_TOL = Tolerance(
    absolute=2.0,
    relative=0.25,
    reason="the paper's percentages are rounded readings of one run per workload, on "
    "workloads whose load it does not give (Table 4's 'Load' is not a utilization)",
)
_SAME = Tolerance(
    absolute=5.0,
    reason="'almost the same' read as within 5% of the reference: a gap a bar chart shows as equal",
)
#: (variant, metric, mixture) -> the line of the paper's text and its words, per
#: workload (a sentence giving W1-W3 is quoted for each).
_QUOTES: dict[tuple[str, str, str], dict[str, Quote]] = {}


def _quote(key: tuple[str, str, str], workloads: Sequence[str], line: int, words: str) -> None:
    for w in workloads:
        _QUOTES.setdefault(key, {})[w] = Quote(line, words)


_W = ("W1", "W2", "W3")
_quote(
    ("L-R", "mean_turnaround", "M1"),
    _W,
    1367,
    "improvement in response time of L-R increases from 48% to 56%",
)
_quote(
    ("L-R", "mean_bounded_slowdown", "M1"),
    _W,
    1369,
    "the improvement in relative bounded response time of L-R increases from 50% to "
    "66% compared to PSS",
)
_quote(
    ("L-FM", "mean_turnaround", "M1"),
    ("W1", "W2"),
    1394,
    "the improvement in response times of L-FM vs. PSS is 40% for W1, 41%",
)
_quote(("L-FM", "mean_turnaround", "M1"), ("W3",), 1399, "for W2, and 48% for W3.")
_quote(
    ("L-FM", "mean_bounded_slowdown", "M1"),
    _W,
    1399,
    "The improvement in relative bounded response times is 47% for W1, 42% for W2, and 52% for W3.",
)
_quote(
    ("L-N", "mean_turnaround", "M1"),
    _W,
    1408,
    "as regards response times 23% for W1, 27% for W2, and 31% for W3.",
)
_quote(
    ("L-N", "mean_bounded_slowdown", "M1"),
    _W,
    1409,
    "Relative bounded response times are improved by 7% for W1, 17% for W2, and 40% for W3.",
)
_quote(
    ("L-R", "makespan", "M1"),
    ("W1",),
    1412,
    "The makespans for Workload 1 are about 10 weeks and are by only 5% improved by L-R vs. PSS.",
)
_quote(
    ("L-R", "makespan", "M1"),
    ("W2", "W3"),
    1415,
    "The improvement for Workload 2 is 20% and for Workload 33%.",
)
for _v in ("L-U1", "L-U2", "L-R"):
    _quote(
        (_v, "utilization_efficiency", "M1"),
        _W,
        1421,
        "For utilization efficiency, LOMARC shows improvements, especially under "
        "heavier workloads, for L-U1, L-U2, and L-R: 8.5% for W1, 19% for W2, and 38% "
        "for W3.",
    )
_quote(
    ("L-FM", "utilization_efficiency", "M1"),
    _W,
    1432,
    "L-FM is slightly worse\u2014the improvement is 6% for W1, 15% for W2, and 31% for W3.",
)
_quote(
    ("L-N", "utilization_efficiency", "M1"),
    _W,
    1434,
    "L-N only accomplishes 2% improvement for L1, 9% for W2, and 18% for W3.",
)
for _m in ("mean_turnaround", "mean_bounded_slowdown"):
    _quote(
        ("L-N", _m, "M2"),
        ("W1",),
        1441,
        "for M2, L-N now improves upon PSS by 34% in response times and by 38% in "
        "relative bounded response times",
    )


#: The modelling choice behind a disagreement, per metric (docs/lomarc.md, "Where
#: cosched differs").
REASONS = {
    "mean_turnaround": "typeless Lublin workloads offer 0.73 / 0.99 / 1.71 (W1-W3; the "
    "paper's Table 4 'Load' is not a utilization): on W2 and W3 the queue grows for most "
    "of the run, so the capacity pairing adds cuts an ever-growing wait",
    "mean_bounded_slowdown": "only medium and long jobs pair (paper's rule) while 43% of "
    "the typeless Lublin jobs run <= 60 s and dominate the 60 s-bounded mean; the gain "
    "follows the workloads' offered loads (0.73 / 0.99 / 1.71)",
    "makespan": "W1 and W2 are not saturated for the whole run, so the makespan is set by "
    "the last arrivals",
    "utilization_efficiency": "W1 and W2 (offered 0.73 / 0.99) are not saturated for most "
    "of the run, so the work done is set by the arrivals; their queues hold about half the "
    "jobs of Table 5's (about 20 against 36 on W1), so fewer pairs form",
}
_AC = (
    "overlap reading of section 4.1 (Table 2's): a pair costs at most 2 unless it pages "
    "and a paging pair max(sl, sl_mem), so AC, pairing every job, adds more capacity "
    "than its pairs cost (under the printed preset, sl_mem added to the shared parts, "
    "AC loses on W1 and W2 as in the paper; W3 offers 1.71 and AC wins there under both)"
)


def _where(workload: str, mixture: str, variant: str) -> dict[str, str]:
    return {"set": "paper-alpha", "workload": workload, "mixture": mixture, "variant": variant}


def _vs_pss(
    claim_id: str, description: str, value: float, where: dict[str, str], metric: str,
    reason: str, source: Quote | None,
) -> Claim:  # fmt: skip
    """A paper's improvement over PSS (same workload and mixture), 2 points or 25%."""
    return Claim(
        id=claim_id,
        description=description,
        paper=f"{value:+g}%",
        low=value,
        high=value,
        measure=Improvement(
            where,
            {**where, "variant": "PSS"},
            metric,
            higher_is_better=metric == "utilization_efficiency",
        ),
        reason=reason,
        unit="%",
        within=_TOL,
        direction=True,
        source=source,
    )


def _numbers() -> list[Claim]:
    """The numbers of section 6.2's text (Figures 6-9 and the makespans)."""
    out = []
    for what, variant, metric, mixture, paper in PAPER_CLAIMS:
        fig = "fig9" if mixture != "M1" else _FIG[metric]
        quotes = _QUOTES.get((variant, metric, mixture), {})
        for workload, value in paper.items():
            out.append(
                _vs_pss(
                    f"{fig}-{variant}-{_SHORT[metric]}-{mixture}-{workload}",
                    f"{variant} {what} over PSS, {mixture} {workload}",
                    value,
                    _where(workload, mixture, variant),
                    metric,
                    REASONS[metric],
                    quotes.get(workload),
                )
            )
    return out


def _ac() -> list[Claim]:
    """ "AC is significantly worse than PSS", per workload."""
    return [
        Claim(
            id=f"fig6-AC-response-M1-{workload}",
            description=f"AC response time over PSS, M1 {workload}",
            paper="worse than PSS (< 0)",
            low=-math.inf,
            high=0.0,
            measure=Improvement(
                _where(workload, "M1", "AC"), _where(workload, "M1", "PSS"), "mean_turnaround"
            ),
            reason=_AC,
            unit="%",
            source=Quote(
                1356, "The arbitrary coscheduling AC is signficantly worse than space sharing PSS"
            ),
        )
        for workload in _W
    ]


#: The approaches of Figures 6-8 (the LOMARC variants and the three others).
LOMARC = ("L-U1", "L-U2", "L-R", "L-FM", "L-N")
OTHERS = ("PSS", "AC", "AM")


def _spread(workload: str, metric: str, variants: Sequence[str], ref: str) -> Measure:
    """Per seed: the largest |variant - ref| / ref over ``variants``, in %."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        base = per_seed(results, _where(workload, "M1", ref), metric)
        parts = [per_seed(results, _where(workload, "M1", v), metric) for v in variants]
        if not base or not all(parts):
            return np.empty(0)
        return combine([base, *parts], lambda x: 100 * max(abs(v - x[0]) for v in x[1:]) / x[0])

    return measure


def _margin(workload: str, metric: str, better: Sequence[str], worse: Sequence[str]) -> Measure:
    """Per seed: the smallest improvement (%) of a ``better`` approach over the best of
    ``worse`` (positive: every one of ``better`` beats every one of ``worse``)."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        good = [per_seed(results, _where(workload, "M1", v), metric) for v in better]
        bad = [per_seed(results, _where(workload, "M1", v), metric) for v in worse]
        if not all(good) or not all(bad):
            return np.empty(0)
        k = len(good)

        def fn(x: Sequence[float]) -> float:
            ref = min(x[k:])
            return min(100 * (ref - v) / ref for v in x[:k])

        return combine([*good, *bad], fn)

    return measure


def _heavier(metric: str, variants: Sequence[str]) -> Measure:
    """Per seed: the smallest rise of ``metric`` (points of %) from W1 to W2 and W2 to
    W3 over ``variants`` (positive: every one rises with every heavier workload)."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        parts = [per_seed(results, _where(w, "M1", v), metric) for v in variants for w in _W]
        if not all(parts):
            return np.empty(0)

        def fn(x: Sequence[float]) -> float:
            # x holds each variant's W1, W2, W3 in turn.
            steps = [x[k + 1] - x[k] for k in range(len(x)) if k % 3 != 2]
            return 100 * min(steps)

        return combine(parts, fn)

    return measure


def _closer_under_m3(metric: str) -> Measure:
    """Per seed: L-N's improvement over PSS on W1 under M1 less under M3, in points."""

    def gain(mixture: str) -> Callable[[pd.DataFrame], np.ndarray]:
        return Improvement(_where("W1", mixture, "L-N"), _where("W1", mixture, "PSS"), metric)

    def measure(results: pd.DataFrame) -> np.ndarray:
        m1, m3 = gain("M1")(results), gain("M3")(results)
        return m1 - m3 if m1.size and m1.size == m3.size else np.empty(0)

    return measure


def _claim(cid: str, what: str, paper: str, low: float, high: float, measure: Measure,
           reason: str, line: int, quote: str, within: Tolerance = EXACT,
           direction: bool = False) -> Claim:  # fmt: skip
    """A claim in % quoting the paper's line (the comparisons' shorthand)."""
    return Claim(id=cid, description=what, paper=paper, low=low, high=high, measure=measure,
                 reason=reason, unit="%", within=within, direction=direction,
                 source=Quote(line, quote))  # fmt: skip


def _comparisons() -> list[Claim]:
    """Section 6.2's comparative sentences, per workload where they speak of all."""
    out = []
    for w in _W:
        out += [
            _claim(
                f"fig6-LOMARC-above-others-M1-{w}",
                f"every LOMARC variant's response below PSS's, AC's and AM's, M1 {w}",
                "better than all other approaches (> 0)",
                0.0,
                math.inf,
                _margin(w, "mean_turnaround", LOMARC, OTHERS),
                _AC,
                1354,
                "For all workloads, all LOMARC variants perform clearly better "
                "than all other approaches.",
            ),
            _claim(
                f"fig6-L-U1-vs-L-U2-response-M1-{w}",
                f"L-U1's response below L-U2's, M1 {w}",
                "slightly better (> 0)",
                0.0,
                math.inf,
                Improvement(_where(w, "M1", "L-U1"), _where(w, "M1", "L-U2"), "mean_turnaround"),
                REASONS["mean_turnaround"],
                1376,
                "L-U1 performs slightly better than L-U2.",
            ),
            _claim(
                f"fig6-L-U1-vs-L-R-response-M1-{w}",
                f"L-U1's response against L-R's, M1 {w}",
                "almost the same (0)",
                0.0,
                0.0,
                Improvement(_where(w, "M1", "L-U1"), _where(w, "M1", "L-R"), "mean_turnaround"),
                REASONS["mean_turnaround"],
                1377,
                "L-U1 provides almost the same results as L-R for all workloads.",
                within=_SAME,
            ),
            _claim(
                f"fig7-L-U1-vs-L-U2-bounded-M1-{w}",
                f"L-U1's rel. bounded response below L-U2's, M1 {w}",
                "better (> 0)",
                0.0,
                math.inf,
                Improvement(
                    _where(w, "M1", "L-U1"), _where(w, "M1", "L-U2"), "mean_bounded_slowdown"
                ),
                REASONS["mean_bounded_slowdown"],
                1381,
                "L-U2 is again worse than L-U1.",
            ),
            _claim(
                f"fig6-AM-vs-PSS-response-M1-{w}",
                f"AM's response below PSS's, M1 {w}",
                "significantly better (> 0)",
                0.0,
                math.inf,
                Improvement(_where(w, "M1", "AM"), _where(w, "M1", "PSS"), "mean_turnaround"),
                REASONS["mean_turnaround"],
                1402,
                "AM that only matches adjacent jobs "
                "in the queue is still doing significantly better than PSS",
            ),
            _claim(
                f"fig6-L-R-vs-AM-response-M1-{w}",
                f"L-R's response below AM's, M1 {w}",
                "significantly better (> 0)",
                0.0,
                math.inf,
                Improvement(_where(w, "M1", "L-R"), _where(w, "M1", "AM"), "mean_turnaround"),
                REASONS["mean_turnaround"],
                1404,
                "but still significantly worse than L-R and also worse than L-FM",
            ),
            _claim(
                f"fig6-L-FM-vs-AM-response-M1-{w}",
                f"L-FM's response below AM's, M1 {w}",
                "better (> 0)",
                0.0,
                math.inf,
                Improvement(_where(w, "M1", "L-FM"), _where(w, "M1", "AM"), "mean_turnaround"),
                REASONS["mean_turnaround"],
                1404,
                "but still significantly worse than L-R and also worse than L-FM",
            ),
            _claim(
                f"fig8-utilization-same-M1-{w}",
                f"largest gap of any approach's utilization from PSS's, M1 {w}",
                "almost the same for all approaches (0)",
                0.0,
                0.0,
                _spread(w, "node_busy_utilization", (*LOMARC, "AC", "AM"), "PSS"),
                "pairing keeps fewer nodes busy: two jobs on one node count it once, so "
                "the LOMARC variants' node-busy share falls below PSS's wherever "
                "arrivals, not capacity, set the work done (W1, W2)",
                1418,
                "Utilization is almost the same for all approaches",
                within=_SAME,
            ),
            _claim(
                f"fig8-E-L-U1-L-U2-L-R-same-M1-{w}",
                f"largest gap of L-U2's and L-R's E from L-U1's, M1 {w}",
                "no relevant differences (0)",
                0.0,
                0.0,
                _spread(w, "utilization_efficiency", ("L-U2", "L-R"), "L-U1"),
                REASONS["utilization_efficiency"],
                1429,
                "there are no relevant differences between L-U1, L-U2, and L-R.",
                within=_SAME,
            ),
        ]
    return out + _between_variants()


def _between_variants() -> list[Claim]:
    """Section 6.2's comparisons between the LOMARC variants, and of utilization with
    the load."""
    out: list[Claim] = []
    lr = ((19.0, "W1"), (16.0, "W2"), (8.0, "W3"))
    for value, w in lr:
        out.append(
            _claim(f"fig7-L-R-vs-L-U1-bounded-M1-{w}",
                   f"L-R's rel. bounded response over L-U1's, M1 {w}", f"{value:+g}%",
                   value, value,
                   Improvement(_where(w, "M1", "L-R"), _where(w, "M1", "L-U1"),
                               "mean_bounded_slowdown"),
                   REASONS["mean_bounded_slowdown"], 1382,
                   "L-R is better than L-U1, especially for W1 where it is better by 19% "
                   "whereas only better by 16% for W2, and by 8% for W3.",
                   within=_TOL, direction=True)
        )  # fmt: skip
    for metric, value in (("mean_turnaround", 17.0), ("mean_bounded_slowdown", 24.0)):
        out.append(
            _claim(f"{_FIG[metric]}-L-FM-vs-L-R-{_SHORT[metric]}-M1-W3",
                   f"L-FM's {_SHORT[metric]} worse than L-R's, M1 W3", f"{value:g}% worse",
                   -value, -value,
                   Improvement(_where("W3", "M1", "L-FM"), _where("W3", "M1", "L-R"), metric),
                   REASONS[metric], 1392, "Response times are by 17% worse than L-R under "
                   "W3 and relative bounded response times by 24%.",
                   within=_TOL, direction=True)
        )  # fmt: skip
    for metric in ("mean_turnaround", "mean_bounded_slowdown"):
        out.append(
            _claim(f"fig9-L-N-closer-under-M3-{_SHORT[metric]}-W1",
                   f"L-N's {_SHORT[metric]} gain over PSS, M1 less M3, W1 (points)",
                   "closer to PSS under M3 than under M1 (> 0)", 0.0, math.inf,
                   _closer_under_m3(metric), REASONS[metric], 1443,
                   "for M3 it is closer to PSS than under M1.")
        )  # fmt: skip
    out.append(
        _claim("fig8-utilization-rises-M1",
               "smallest rise of an approach's utilization from W1 to W2 and W2 to W3 "
               "(points)",
               "improves if the workload becomes heavier (> 0)", 0.0, math.inf,
               _heavier("node_busy_utilization", (*LOMARC, *OTHERS)),
               REASONS["utilization_efficiency"], 1419,
               "for all approaches improves if the workload becomes heavier")
    )  # fmt: skip
    return out


def _gain_rises(metric: str) -> Measure:
    """Per seed: the smallest rise (points) of a LOMARC variant's improvement over PSS
    from W1 to W2 and W2 to W3 (positive: every gain grows with every heavier load)."""
    higher = metric == "utilization_efficiency"

    def measure(results: pd.DataFrame) -> np.ndarray:
        gains = [
            Improvement(_where(w, "M1", v), _where(w, "M1", "PSS"), metric, higher)(results)
            for v in LOMARC
            for w in _W
        ]
        if not all(g.size for g in gains) or len({g.size for g in gains}) != 1:
            return np.empty(0)
        steps = [gains[k + 1] - gains[k] for k in range(len(gains)) if k % 3 != 2]
        return np.min(np.vstack(steps), axis=0)

    return measure


def _gap_grows(metric: str) -> Measure:
    """Per seed: L-R's improvement over L-FM on W3 less on W1, in points."""

    def gap(w: str) -> Improvement:
        return Improvement(_where(w, "M1", "L-R"), _where(w, "M1", "L-FM"), metric)

    def measure(results: pd.DataFrame) -> np.ndarray:
        w1, w3 = gap("W1")(results), gap("W3")(results)
        return w3 - w1 if w1.size and w1.size == w3.size else np.empty(0)

    return measure


def _below_all(workload: str, metric: str, variant: str, others: Sequence[str]) -> Measure:
    """Per seed: the largest relative gap (%) of ``variant``'s ``metric`` above any of
    ``others`` (negative: below every one of them)."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        parts = [per_seed(results, _where(workload, "M1", v), metric)
                 for v in (variant, *others)]  # fmt: skip
        if not all(parts):
            return np.empty(0)
        return combine(parts, lambda x: max(100 * (x[0] - o) / o for o in x[1:]))

    return measure


def _mixtures_similar(metric: str) -> Measure:
    """Per seed: the largest |gain under M2 or M3 - gain under M1| (points) of L-U1,
    L-U2 and L-R over PSS and over AC, on W1."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        diffs = []
        for v, base, mix in itertools.product(("L-U1", "L-U2", "L-R"), ("PSS", "AC"),
                                              ("M2", "M3")):  # fmt: skip
            m1 = Improvement(_where("W1", "M1", v), _where("W1", "M1", base), metric)(results)
            mx = Improvement(_where("W1", mix, v), _where("W1", mix, base), metric)(results)
            if not m1.size or m1.size != mx.size:
                return np.empty(0)
            diffs.append(np.abs(mx - m1))
        return np.max(np.vstack(diffs), axis=0)

    return measure


_CLOSE = Tolerance(
    absolute=20.0,
    reason="'pretty close' read as within 20%: the paper calls the heuristics close while "
    "reporting L-FM 17% worse than L-R on W3",
)
_SIMILAR = Tolerance(
    absolute=10.0,
    reason="'similar' read as within 10 points: the paper calls L-N's changes from M1 to "
    "M2 (+11 and +31 points) a difference",
)


def _sentences() -> list[Claim]:
    """Section 6.2's remaining comparative sentences (trends across workloads and
    mixtures, the heuristics against each other) and the makespan's size."""
    out = [
        _claim(f"{_FIG[m]}-LOMARC-gain-rises-{_SHORT[m]}-M1",
               f"smallest rise of a LOMARC variant's {_SHORT[m]} gain over PSS from W1 to "
               "W2 and W2 to W3 (points)", "more obvious improvement as the workload "
               "becomes heavier (> 0)", 0.0, math.inf, _gain_rises(m), REASONS[m], 1362,
               "with the workload becoming heavier, our approaches, L-U1, L-U2, L-R, L-FM "
               "and L-N, show more obvious improvement over other approaches")
        for m in ("mean_turnaround", "mean_bounded_slowdown", "utilization_efficiency")
    ]  # fmt: skip
    out += [
        _claim(f"fig6-heuristics-close-M1-{w}",
               f"largest gap of L-U2's, L-R's and L-FM's response from L-U1's, M1 {w}",
               "pretty close to each other (0)", 0.0, 0.0,
               _spread(w, "mean_turnaround", ("L-U2", "L-R", "L-FM"), "L-U1"),
               REASONS["mean_turnaround"], 1374, "Comparing our different LOMARC "
               "heuristics, all are pretty close to each other as regards response times.",
               within=_CLOSE)
        for w in _W
    ]  # fmt: skip
    out += [
        _claim(f"{_FIG[m]}-L-FM-falls-behind-L-R-{_SHORT[m]}-M1",
               f"L-R's {_SHORT[m]} gain over L-FM on W3 less on W1 (points)",
               "L-FM not too much worse on W1, worse on heavier workloads (> 0)", 0.0,
               math.inf, _gap_grows(m), REASONS[m], 1387, "Selecting simply the first "
               "match in L-FM is not too much worse if the workload is lighter (W1) but "
               "becomes worse than the workload becomes heavier")
        for m in ("mean_turnaround", "mean_bounded_slowdown")
    ]  # fmt: skip
    out += [
        _claim(f"fig8-L-FM-E-below-M1-{w}",
               f"largest gap of L-FM's E above L-U1's, L-U2's or L-R's, M1 {w}",
               "slightly worse (< 0)", -math.inf, 0.0,
               _below_all(w, "utilization_efficiency", "L-FM", ("L-U1", "L-U2", "L-R")),
               REASONS["utilization_efficiency"], 1432, "L-FM is slightly worse")
        for w in _W
    ]  # fmt: skip
    out += [
        _claim(f"fig9-gains-similar-{_SHORT[m]}-W1",
               f"largest change of L-U1's, L-U2's and L-R's {_SHORT[m]} gains over PSS and "
               "AC from M1 to M2 or M3, W1 (points)", "similar to M1 (0)", 0.0, 0.0,
               _mixtures_similar(m), REASONS[m], 1440, "For M2 and M3, the relative "
               "improvements of LU1, L-U2, and L-R vs. PSS and AC are similar to M1.",
               within=_SIMILAR)
        for m in ("mean_turnaround", "mean_bounded_slowdown")
    ]  # fmt: skip
    out.append(
        Claim(id="text-makespan-weeks-W1", description="PSS's makespan, M1 W1 (weeks)",
              paper="about 10 weeks", low=10.0, high=10.0,
              measure=Value(_where("W1", "M1", "PSS"), "makespan", scale=1 / 604800),
              reason=REASONS["makespan"], unit="weeks",
              within=Tolerance(absolute=1.0, reason="'about 10 weeks' read as 9 to 11 weeks"),
              source=Quote(1412, "The makespans for Workload 1 are about 10 weeks"))
    )  # fmt: skip
    return out


def claims() -> list[Claim]:
    """The paper's claims: section 6.2's numbers (Figures 6-9, the makespans) and
    comparative sentences, and its tables (:mod:`cosched.lomarc.table_claims`)."""
    return [*_numbers(), *_ac(), *_comparisons(), *_sentences(), *table_claims()]
