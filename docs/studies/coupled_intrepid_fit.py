"""The Intrepid stand-in's fit: offered load and run-time shape against the base run.

The paper gives Intrepid's base mean wait (61 min) and base mean slowdown (6.1) under
WFP with EASY backfilling, and neither its load nor its run times. For each run-time
shape ``sigma`` (log-normal) and offered load of the grid, this script draws three
months of the stand-in (seeds 1-3), runs them without coscheduling beside the analysis
machine at load 0.5, and prints the compute machine's mean wait and slowdown per month
and their means; the spec keeps the pair closest to both numbers.

    python docs/studies/coupled_intrepid_fit.py            # the grid of the record
    python docs/studies/coupled_intrepid_fit.py --sigma 1.7 --load 0.8
"""

from __future__ import annotations

import argparse

import numpy as np

from cosched.coupled.coordinator import run_coupled
from cosched.coupled.metrics import coupled_metrics
from cosched.coupled.spec import DomainSpec
from cosched.coupled.workloads import ANALYSIS_PLATFORM, ANALYSIS_TRACE, analysis_workload
from cosched.experiments.traces import find_trace
from cosched.workload.models.intrepid import INTREPID_PLATFORM, intrepid_standin


def base_run(sigma: float, load: float, seed: int, analysis: object) -> tuple[float, float]:
    """Mean wait (min) and mean slowdown of one drawn month, without coscheduling."""
    wc = intrepid_standin(np.random.default_rng(seed), load=load, sigma=sigma)
    specs = [
        DomainSpec("compute", wc, INTREPID_PLATFORM, enabled=False),
        DomainSpec("analysis", analysis, ANALYSIS_PLATFORM, enabled=False),  # type: ignore[arg-type]
    ]
    m = coupled_metrics(run_coupled([s.build() for s in specs]))["compute"]
    return m["mean_wait"] / 60, m["mean_slowdown"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sigma", type=float, action="append")
    ap.add_argument("--load", type=float, action="append")
    args = ap.parse_args()
    analysis = analysis_workload(find_trace(ANALYSIS_TRACE).parent, load=0.5)
    print("sigma  load  wait per month (min)    mean   slowdown per month  mean")
    for sigma in args.sigma or [1.5, 1.7, 1.8]:
        for load in args.load or [0.76, 0.8]:
            runs = [base_run(sigma, load, seed, analysis) for seed in (1, 2, 3)]
            w, s = zip(*runs, strict=True)
            print(
                f"{sigma:5.2f}  {load:4.2f}  {' '.join(f'{x:6.1f}' for x in w)}  "
                f"{np.mean(w):6.1f}   {' '.join(f'{x:5.2f}' for x in s)}  {np.mean(s):5.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
