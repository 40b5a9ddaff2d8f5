"""Why the compute machine's slowdown moves so much more than Intrepid's.

Mean slowdown is the mean of (wait + run) / run: one extra minute of wait adds
1 / run (in minutes) to a job's slowdown, so an extra wait spread evenly over the jobs
moves the mean slowdown by about that wait times the mean of 1 / run. This script
prints, for the reproduction's compute month (LLNL Atlas packed to load 0.94) and, from
a coupled results store, the measured base wait and slowdown and each load's extra
wait and slowdown (worst scheme, means over seeds), their ratio, and the share of
short jobs.

    python docs/studies/coupled_slowdown_gap.py runs/coupled-full
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from cosched.coupled.workloads import COMPUTE_TRACE, compute_workload
from cosched.experiments.store import read_results
from cosched.experiments.traces import find_trace

SCHEMES = ("HH", "HY", "YH", "YY")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path, help="a coupled results folder (full grid)")
    args = ap.parse_args()
    table, meta = read_results(args.store)
    params = meta["spec"]["params"]
    w = compute_workload(
        find_trace(COMPUTE_TRACE).parent, span=params["span"], load=params.get("compute_load")
    )
    run_min = w.table["run_time"].to_numpy() / 60.0
    print(f"compute jobs: {len(run_min):,}; run time median {np.median(run_min):.1f} min; "
          f"share under 10 min {np.mean(run_min < 10):.2f}; mean of 1/run "
          f"{np.mean(1 / np.maximum(run_min, 1 / 60)):.3f} per min")  # fmt: skip
    ok = table[(table["status"] == "ok") & (table["study"] == "load")]
    base = ok[ok["scheme"] == "base"]
    bw = base["compute.mean_wait"].mean() / 60
    bs = base["compute.mean_slowdown"].mean()
    print(
        f"base: wait {bw:.1f} min, slowdown {bs:.1f}, (slowdown - 1) / wait "
        f"{(bs - 1) / bw:.3f} per min (paper, Intrepid: (6.1 - 1) / 61 = {(6.1 - 1) / 61:.3f})"
    )
    for load in sorted(ok["load"].unique()):
        cells = ok[ok["load"] == load]
        b = cells[cells["scheme"] == "base"]
        waits, slows = [], []
        for s in SCHEMES:
            c = cells[cells["scheme"] == s]
            waits.append((c["compute.mean_wait"].mean() - b["compute.mean_wait"].mean()) / 60)
            slows.append(c["compute.mean_slowdown"].mean() - b["compute.mean_slowdown"].mean())
        k = int(np.argmax(slows))
        print(f"load {load:g}: extra wait {min(waits):+.1f} to {max(waits):+.1f} min, extra "
              f"slowdown {min(slows):+.1f} to {max(slows):+.1f} (worst {SCHEMES[k]}: "
              f"{slows[k]:+.1f} for {waits[k]:+.1f} min)")  # fmt: skip


if __name__ == "__main__":
    main()
