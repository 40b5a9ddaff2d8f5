"""The Flexible CoScheduling paper's per-job claims of sections 3 and 4.

Each table of sections 3-4 gives, per scheme, every job's end time, the turnaround and
the mean response (:data:`cosched.timesharing.fcs_report.PAPER`); the turnarounds are
declared in :mod:`cosched.timesharing.fcs_claims`, the other cells here, each scaled to
the paper's 60 s block as the turnaround is. Besides them, the numbers the text draws
from the tables: section 4's per-job slowdowns of GS, FCS and SB against batch on
SWEEP3D (line 320), section 3.3's slowdown of job 3 under SB (about 36%) and FCS (about
9%) against its time alone (line 280), and section 3.4's SB ending job 3 last, much
later than FCS does (lines 291, 296).

FCFS's cells are *input*: each job's length is set so that it alone takes the paper's
time (:func:`cosched.timesharing.fcs_experiment.run_cell`'s job-time setting: the
block, SWEEP3D's 111 s, SAGE's 126 s), and FCFS runs the jobs one after another.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cosched.experiments.claims import Claim, Measure, Quote, Tolerance, combine, per_seed, select
from cosched.timesharing.fcs_report import PAPER as TABLES

__all__ = ["BLOCK", "FCFS_INPUT", "TABLE_LINE", "job_claims", "scaled"]

#: The paper's building block alone (section 3: "each job runs for 60 s in isolation").
BLOCK = 60.0
#: Why FCFS's numbers of sections 3-4 are inputs, not results.
FCFS_INPUT = (
    "FCFS runs the jobs one after another, and each job's length is set so that it alone "
    "takes the paper's time (the block's 60 s, the imbalanced jobs' 120 s, SWEEP3D's "
    "111 s, SAGE's 126 s: fcs_experiment's job-time setting), so FCFS's times are the "
    "paper's sums"
)
_S4 = ("sweep3d", "sage", "sage+sweep3d")
#: The line of each section 3-4 table's first row (FCFS; GS, SB and FCS follow).
TABLE_LINE = {
    "balanced": 239,
    "imbalanced": 258,
    "complementing": 275,
    "mixed": 289,
    "sweep3d": 315,
    "sage": 329,
    "sage+sweep3d": 339,
}
_TOL = Tolerance(
    relative=0.03,
    reason="the tables print whole seconds of one measured run (the best of five) on a "
    "machine whose noise and switch costs the paper does not give; 3%, as the turnarounds",
)
_REASON = (
    "the per-job times follow the turnaround's modelling choices (the scenario's "
    "reason in the turnaround claim: no system noise, no cache reload, skeleton "
    "applications, classification and node-manager costs of 0)"
)


def scaled(scenario: str, scheme: str, metric: str) -> Measure:
    """Per seed: ``metric`` (a time) scaled to the paper's 60 s block."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        rows = select(results, {"scenario": scenario, "scheme": scheme})
        if rows.empty or metric not in rows or "job_time" not in rows:
            return np.empty(0)
        t = rows[metric].to_numpy(dtype=np.float64)
        return t * BLOCK / rows["job_time"].to_numpy(dtype=np.float64)

    return measure


def _cells() -> list[Claim]:
    """Every job's end time and the mean response, per table and scheme."""
    out: list[Claim] = []
    for scenario, by_scheme in TABLES.items():
        sec = "s4" if scenario in _S4 else "s3"
        for k, (scheme, row) in enumerate(by_scheme.items()):
            *ends, _, mean = row
            cells = [(f"job{j + 1}", f"job{j + 1}_end", e) for j, e in enumerate(ends)]
            for name, metric, value in [*cells, ("mean_response", "mean_response", mean)]:
                what = "mean response" if name == "mean_response" else f"{name}'s end time"
                out.append(
                    Claim(
                        id=f"{sec}-{scenario}-{scheme}-{name}",
                        description=f"{scenario} jobs: {what} under {scheme}",
                        paper=f"{value:g} s",
                        low=float(value),
                        high=float(value),
                        measure=scaled(scenario, scheme, metric),
                        reason=_REASON,
                        unit="s",
                        within=_TOL,
                        source=Quote(
                            TABLE_LINE[scenario] + k, " ".join([scheme, *(f"{v:g}" for v in row)])
                        ),
                        input=FCFS_INPUT if scheme == "FCFS" else "",
                    )
                )
    return out


def _per_job_slowdown(scheme: str) -> Measure:
    """Per seed, two SWEEP3D jobs: the scheme's turnaround over FCFS's, less 1, in %,
    per job (halved: the paper's 2.25% for GS is (232 - 222) / 222 / 2)."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        at = {"scenario": "sweep3d"}
        parts = [per_seed(results, {**at, "scheme": s}, "turnaround") for s in (scheme, "FCFS")]
        return combine(parts, lambda v: 100.0 * (v[0] - v[1]) / v[1] / 2)

    return measure


def _job3_slowdown(scheme: str) -> Measure:
    """Per seed, section 3.3: job 3's end under ``scheme`` over its time alone (its run
    under FCFS, after jobs 1 and 2), less 1, in %."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        at = {"scenario": "complementing"}
        parts = [
            per_seed(results, {**at, "scheme": scheme}, "job3_end"),
            per_seed(results, {**at, "scheme": "FCFS"}, "job3_end"),
            per_seed(results, {**at, "scheme": "FCFS"}, "job2_end"),
        ]
        return combine(parts, lambda v: 100.0 * (v[0] / (v[1] - v[2]) - 1.0))

    return measure


def _mixed_job3(minus: str) -> Measure:
    """Per seed, section 3.4 under SB: job 3's end minus the later of jobs 1 and 2's
    (``minus="last"``) or minus FCS's job 3 end (``minus="FCS"``), scaled to the block."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        sb = {"scenario": "mixed", "scheme": "SB"}
        names = ("job3_end", "job1_end", "job2_end", "job_time")
        parts = [per_seed(results, sb, m) for m in names]
        if minus == "last":
            return combine(parts, lambda v: (v[0] - max(v[1], v[2])) * BLOCK / v[3])
        fcs = per_seed(results, {"scenario": "mixed", "scheme": "FCS"}, "job3_end")
        return combine([*parts, fcs], lambda v: (v[0] - v[4]) * BLOCK / v[3])

    return measure


_S4_SLOW = (
    r"causes a per-job slowdown of $\approx 2.25\%$ and $\approx 4.95\%$ for GS and FCS "
    "respectively, compared to batch scheduling."
)
#: Section 4 (line 320) and 3.3 (line 280): the paper's words on each slowdown.
_QUOTE = {
    "GS": Quote(320, _S4_SLOW),
    "FCS": Quote(320, _S4_SLOW),
    "SB": Quote(320, "with a per-job slowdown of 11.93% compared to FCFS."),
    "job3-SB": Quote(280, r"Job 3 still shows a significant slowdown ($\approx 36\%$) when "
                     "compared to FCFS."),
    "job3-FCS": Quote(280, r"the total run time of job 3 suffers a slowdown of $\approx 9\%$ "
                      "from the interference of the other jobs"),
}  # fmt: skip


def _text_claims() -> list[Claim]:
    """The numbers sections 3.3, 3.4 and 4 draw from their tables."""
    out = [
        Claim(
            id=f"s4-sweep3d-{scheme}-per-job-slowdown",
            description=f"two SWEEP3D: {scheme}'s per-job slowdown against FCFS (%)",
            paper=f"{value:g}%",
            low=value,
            high=value,
            measure=_per_job_slowdown(scheme),
            reason=_REASON,
            unit="%",
            within=Tolerance(
                relative=0.5,
                reason="half the paper's value: the slowdowns come from two whole-second "
                "turnarounds of one best-of-five run; half keeps GS's and SB's targets "
                "apart and the null outcome (no slowdown) outside",
            ),
            direction=True,
            source=_QUOTE[scheme],
        )
        for scheme, value in (("GS", 2.25), ("FCS", 4.95), ("SB", 11.93))
    ]
    for scheme, value in (("SB", 36.0), ("FCS", 9.0)):
        out.append(
            Claim(
                id=f"s3-complementing-{scheme}-job3-slowdown",
                description=(
                    f"complementing jobs: job 3's slowdown under {scheme} against its time "
                    "alone (%)"
                ),
                paper=f"about {value:g}%",
                low=value,
                high=value,
                measure=_job3_slowdown(scheme),
                reason=_REASON,
                unit="%",
                within=Tolerance(
                    absolute=5.0,
                    reason="5 points: the paper's 'about', and 3% on a 197-244 s end time is "
                    "3-4 points of job 3's 180 s",
                ),
                direction=True,
                source=_QUOTE[f"job3-{scheme}"],
            )
        )
    # Section 3.4 under SB: job 3 after jobs 1-2 (the table), and after FCS's (the text).
    mixed = (
        ("last", "after jobs 1-2", "ends last (+62 s)", 291, "SB 213 214 276 276 234"),
        ("FCS", "later than under FCS", "much worse (+121 s)", 296,
         "This effect is clearly shown in the performance of job 3 under SB, which is "
         "much worse than that under FCS."),
    )  # fmt: skip
    out += [
        Claim(
            id=f"s3-mixed-SB-job3-{'last' if minus == 'last' else 'vs-FCS'}",
            description=f"balanced and imbalanced jobs: under SB job 3 ends {what} (s)",
            paper=paper,
            low=0.0,
            high=float("inf"),
            measure=_mixed_job3(minus),
            reason=_REASON,
            unit="s",
            source=Quote(line, quote),
        )
        for minus, what, paper, line, quote in mixed
    ]
    return out


def job_claims() -> list[Claim]:
    """Sections 3-4's per-job cells and the numbers the text draws from them."""
    return _cells() + _text_claims()
