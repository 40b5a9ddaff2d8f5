"""How many jobs the paper's 2-minute rule pairs on the reproduction's traces.

For each compute machine (the Intrepid stand-in's month of seed 1, Atlas's packed
month) and each analysis load, prints the mate pairs the rule finds, as a share of each
machine's jobs, and what keeping ``pair_share`` = 7.5% of the analysis jobs' count
leaves (a Markdown table).

    python docs/studies/coupled_pair_share.py
"""

from __future__ import annotations

import numpy as np

from cosched.coupled.workloads import (
    COMPUTE_TRACE,
    MONTH,
    analysis_workload,
    compute_machine,
    thin_pairs,
)
from cosched.experiments.traces import find_trace
from cosched.workload.profiles.coupled import pair_workloads

SHARE = 0.075


def main() -> None:
    traces = find_trace(COMPUTE_TRACE).parent
    print(
        "| compute machine | analysis load | compute jobs | analysis jobs | pairs by the rule "
        "| % of analysis | % of compute | pairs kept at 7.5% | % of compute |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for machine, load in (("intrepid", 0.8), ("atlas", 0.94)):
        month = np.random.default_rng(np.random.SeedSequence([1, 7]))
        wc, _ = compute_machine(machine, traces, span=MONTH, load=load, rng=month)
        for la in (0.25, 0.5, 0.75):
            wa = analysis_workload(traces, load=la)
            rng = np.random.default_rng(np.random.SeedSequence([1, 6]))
            c, a = pair_workloads(wc, wa, rng=rng)
            n = int((a.table["coupled_mate"] >= 0).sum())
            _, kept = thin_pairs(c, a, share=SHARE, rng=rng)
            k = int((kept.table["coupled_mate"] >= 0).sum())
            print(
                f"| {machine} | {la:g} | {len(wc):,} | {len(wa):,} | {n} | "
                f"{100 * n / len(wa):.1f} | {100 * n / len(wc):.1f} | {k} | "
                f"{100 * k / len(wc):.2f} |"
            )


if __name__ == "__main__":
    main()
