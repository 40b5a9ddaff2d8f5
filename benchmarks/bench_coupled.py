"""Speed of a coupled run: one month on two machines with 10% paired jobs (target < 10 s).

The compute machine is a month of LLNL Atlas (1,152 nodes), the analysis machine KTH
SP2 (100 nodes) packed to offered load 0.5 over the same month; 10% of the analysis
jobs are paired with the nearest compute job in submit time (``pair_nearest``). Each
scheme combination is timed from the built workloads to the finished job tables
(loading excluded; loading is printed separately). Usage::

    python benchmarks/bench_coupled.py                  # HH, HY, YH, YY
    python benchmarks/bench_coupled.py --schemes HH --proportion 0.33
    python benchmarks/bench_coupled.py --pairing ith    # mates hours apart: long holds

``--pairing ith`` uses the proportion mode of ``pair_workloads`` (the i-th drawn job of
one machine with the i-th of the other), which leaves mates hours to days apart: holds
last long and release wake-ups every 20 minutes multiply the scheduling instants, the
slowest case we know of.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

SHARED = Path(
    os.environ.get("COSCHED_TRACES", Path(__file__).resolve().parents[2] / "shared" / "traces")
)
SCHEMES = {
    "HH": ("hold", "hold"),
    "HY": ("hold", "yield"),
    "YH": ("yield", "hold"),
    "YY": ("yield", "yield"),
}


def main() -> int:
    from cosched.coupled import Domain, run_coupled, verify_sync
    from cosched.coupled.workloads import (
        ANALYSIS_PLATFORM,
        COMPUTE_PLATFORM,
        analysis_workload,
        compute_workload,
        pair_nearest,
    )
    from cosched.workload.profiles.coupled import pair_workloads

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemes", nargs="+", default=list(SCHEMES), choices=list(SCHEMES))
    ap.add_argument("--proportion", type=float, default=0.1)
    ap.add_argument("--load", type=float, default=0.5)
    ap.add_argument("--pairing", choices=["nearest", "ith"], default="nearest")
    args = ap.parse_args()
    if not SHARED.is_dir():
        print(f"traces not found under {SHARED}; set COSCHED_TRACES", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    wc = compute_workload(SHARED)
    wa = analysis_workload(SHARED, load=args.load)
    rng = np.random.default_rng(1)
    if args.pairing == "nearest":
        wc, wa = pair_nearest(wc, wa, proportion=args.proportion, rng=rng)
    else:
        wc, wa = pair_workloads(wc, wa, proportion=args.proportion, rng=rng)
    load_s = time.perf_counter() - t0
    pairs = int((wa.table["coupled_mate"] >= 0).sum())
    print(
        f"workloads: compute {len(wc)} jobs, analysis {len(wa)} jobs, {pairs} pairs "
        f"({pairs / len(wa):.1%} of analysis jobs); built in {load_s:.2f} s"
    )
    worst = 0.0
    for name in args.schemes:
        sc, sa = SCHEMES[name]
        t0 = time.perf_counter()
        res = run_coupled(
            [
                Domain("compute", wc, COMPUTE_PLATFORM, scheme=sc),  # type: ignore[arg-type]
                Domain("analysis", wa, ANALYSIS_PLATFORM, scheme=sa),  # type: ignore[arg-type]
            ]
        )
        el = time.perf_counter() - t0
        verify_sync(res)
        worst = max(worst, el)
        jobs = sum(len(r.jobs) for r in res.results.values())
        print(
            f"{name}: one month, two machines, {jobs} jobs in {el:.2f} s "
            f"({jobs / el:,.0f} jobs/s, {res.stats['instants']} instants)"
        )
    print(f"slowest: {worst:.2f} s (target < 10 s): {'PASS' if worst < 10 else 'FAIL'}")
    return 0 if worst < 10 else 1


if __name__ == "__main__":
    raise SystemExit(main())
