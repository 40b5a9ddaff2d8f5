"""The job-level gang model against the process-level GS, before and after calibration.

Scenarios: the dynamic coscheduling paper's workloads at the scale the process level
handles (``cosched.timesharing.make_workload``: Lublin jobs on 32 single-CPU nodes,
skew 20%, run times clipped at 1,000 s then divided by 400, 64 KiB messages as in the
time-sharing reproduction), at MPL 2 and 5, one load. For each: per-type efficiencies
are fitted on one draw of the workload (seed 1) and the error of the mean response is
reported on another draw (seed 2), before and after calibration: out of sample.
Usage::

    python docs/studies/gang_calibration.py                       # WL7 and WL2, 300 jobs
    python docs/studies/gang_calibration.py --workloads WL7 --jobs 200 --mpl 2
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    """Run the scenarios and print the error tables."""
    from cosched.gang.calibrate import compare, efficiencies, errors
    from cosched.timesharing import TSParams, make_workload

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", nargs="*", default=["WL7", "WL2"])
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--mpl", type=int, nargs="*", default=[2, 5])
    ap.add_argument("--load", type=float, default=0.8)
    ap.add_argument("--threshold", type=float, default=0.05)
    args = ap.parse_args()
    params = TSParams(msg_size=16 * 4096)

    def draw(wl: str, seed: int):  # type: ignore[no-untyped-def]
        return make_workload(
            args.jobs,
            rng=np.random.default_rng(seed),
            workload=wl,
            skew=0.2,
            load=args.load,
            time_scale=400,
            max_run=1000,
        )

    for wl in args.workloads:
        fit, test = draw(wl, 1), draw(wl, 2)
        for mpl in args.mpl:
            t0 = time.process_time()
            eta = efficiencies(fit, mpl=mpl, seed=1, params=params)
            again = efficiencies(test, mpl=mpl, seed=2, params=params)
            jobs = compare(test, mpl=mpl, seed=2, params=params, eta=eta, threshold=args.threshold)
            table = errors(jobs)
            cpu = time.process_time() - t0
            print(
                f"\n## {wl}, MPL {mpl}, load {args.load:g}, {args.jobs} jobs "
                f"({cpu:.1f} CPU s); efficiencies fitted on seed 1: "
                + ", ".join(f"J{k} {v:.3f}" for k, v in sorted(eta.items()))
            )
            print(
                "efficiencies fitted on seed 2 (stability): "
                + ", ".join(f"J{k} {v:.3f}" for k, v in sorted(again.items()))
            )
            short = jobs["run_time"] < params.gs_quantum
            print(
                f"mean execution (end - start), uncalibrated: jobs shorter than a quantum "
                f"({int(short.sum())}): process {jobs['execution_process'][short].mean():.3f} s, "
                f"job level {jobs['execution_job'][short].mean():.3f} s; the others: process "
                f"{jobs['execution_process'][~short].mean():.3f} s, job level "
                f"{jobs['execution_job'][~short].mean():.3f} s"
            )
            print(
                "| type | jobs | mean response, process level | job level | error | "
                "calibrated | error |"
            )
            print("|---|---|---|---|---|---|---|")
            for r in table.itertuples():
                print(
                    f"| {r.type} | {r.jobs} | {r.mean_response_process:.3f} | "
                    f"{r.mean_response_job:.3f} | {r.error:+.1%} | "
                    f"{r.mean_response_calibrated:.3f} | {r.error_calibrated:+.1%} |"
                )


if __name__ == "__main__":
    main()
