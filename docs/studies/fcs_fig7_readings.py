"""Which reading of the FCS paper's section 5 gives Figure 7's saturation points (FCFS
about 78%, FCS 88%)?

    python docs/studies/fcs_fig7_readings.py [--jobs 1000] [--seeds 20031110 ...]
        [--schemes FCFS FCS] [--loads 0.6 0.7 ...] [--reading alloc=node ...]
        [--out results.csv]

Runs the dynamic workload of ``cosched reproduce fcs`` (the spec's parameters: Lublin
jobs on 32 PEs, run times clipped at 600 s then divided by 10, MPL 6, EASY in front)
under each scheme at each offered load, for each reading given (``--reading`` takes
``key=value[,key=value]`` of :data:`cosched.timesharing.fcs_experiment.READINGS` or of
the spec's parameters, e.g. ``time_scale=1``, ``local=linux24`` or ``slot_clock=heartbeat``;
several readings are compared one after the other; none: the defaults), and prints per
reading, scheme and load the mean response, the accepted load over the makespan and
over the arrival window, the PEs' shares of computing, spinning and idling (per
allocation unit), each seed's saturation point by
:func:`cosched.metrics.accepted_saturation` on the window accepted load, and (with FCFS
and FCS) the measure of the claim ``fig7-accepted-FCS-above-FCFS``: FCS's highest
accepted load of the sweep minus FCFS's, per seed, with its mean and 95% interval.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import pandas as pd

from cosched.experiments.model import CellEnv
from cosched.experiments.stats import mean_ci
from cosched.metrics import accepted_saturation
from cosched.timesharing.fcs_claims import capacity_gap
from cosched.timesharing.fcs_experiment import READINGS, run_cell
from cosched.timesharing.fcs_report import with_accepted

#: The PEs' accounts of a run besides idle (``frac_*`` of the cell).
ACCOUNTS = ("compute", "spin", "context_switch", "interrupt")

#: The spec's parameters (cosched/experiments/specs/fcs.toml).
BASE: dict[str, Any] = {
    "scenario": "dynamic", "nodes": 8, "job_time": 60.0, "grain": 0.001, "quantum": 0.1,
    "cslots_min": 20, "f_preempt": 0, "dyn_pes": 32, "dyn_mpl": 6, "max_run": 600.0,
    "time_scale": 10.0, "local": "mlfq", "linux_hz": 4096, "slot_clock": "assigned",
    "tcomm": "wall", "cs_local": 0,
}  # fmt: skip


#: FCS's own parameters: the other schemes' cells do not read them, so a run of FCFS, GS
#: or SB is shared by readings that differ only in these.
FCS_ONLY = ("slot_clock", "tcomm", "cs_local", "f_preempt", "cslots_min")


def parse_reading(text: str) -> dict[str, Any]:
    """``alloc=node,estimate=2`` -> the readings' values, typed as their defaults."""
    out: dict[str, Any] = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        known = {**BASE, **READINGS}
        if key not in known:
            raise SystemExit(f"unknown reading {key!r} (known: {', '.join(known)})")
        out[key] = type(known[key])(value)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[20031110])
    ap.add_argument("--schemes", nargs="+", default=["FCFS", "FCS"])
    ap.add_argument("--loads", type=float, nargs="+",
                    default=[0.6, 0.7, 0.74, 0.78, 0.82, 0.86, 0.9, 0.95, 1.0])  # fmt: skip
    ap.add_argument("--reading", action="append", default=[])
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    rows = []
    done: dict[tuple[Any, ...], dict[str, Any]] = {}
    for text in args.reading or [""]:
        how = parse_reading(text)
        for seed in args.seeds:
            for scheme in args.schemes:
                for load in args.loads:
                    p = {**BASE, **how, "scheme": scheme, "load": load, "n_jobs": args.jobs}
                    t0 = time.process_time()
                    key = (seed, *sorted((k, v) for k, v in p.items()
                                         if scheme == "FCS" or k not in FCS_ONLY))  # fmt: skip
                    if key not in done:
                        done[key] = run_cell(p, seed, CellEnv())
                    r = done[key]
                    rows.append({"reading": text or "default", **p, "seed": seed, **r,
                                 "cpu": time.process_time() - t0})  # fmt: skip
    df = with_accepted(pd.DataFrame(rows))
    if args.out:
        df.to_csv(args.out, index=False)
    df["frac_idle"] = 1.0 - df[[f"frac_{c}" for c in ACCOUNTS]].sum(axis=1)
    cols = ["mean_response", "accepted", "window_accepted", "queue_accepted", "frac_compute",
            "frac_spin", "frac_idle"]  # fmt: skip
    print("reading | scheme | load | " + " | ".join(cols) + " (mean over seeds)")
    for (reading, scheme, load), g in df.groupby(["reading", "scheme", "load"], sort=False):
        vals = " | ".join(f"{g[c].mean():.3f}" for c in cols)
        print(f"{reading} | {scheme} | {load:g} | {vals}")
    for measure in ("window_accepted", "queue_accepted"):
        print(f"\nreading | scheme | saturation point per seed ({measure})")
        for (reading, scheme), g in df.groupby(["reading", "scheme"], sort=False):
            sats = []
            for _, s in g.groupby("seed"):
                sat = accepted_saturation(s["load"].tolist(), s[measure].tolist())
                sats.append(sat.label())
            print(f"{reading} | {scheme} | {', '.join(sats)}")
    if {"FCFS", "FCS"} <= set(args.schemes):
        print("\nreading | FCS's highest accepted load minus FCFS's, per seed | mean [95%]")
        for reading, g in df.groupby("reading", sort=False):
            gap = capacity_gap()(g.drop(columns=["accepted"]))
            ci = mean_ci(gap)
            per = ", ".join(f"{v:+.4f}" for v in gap)
            print(f"{reading} | {per} | {ci.mean:+.4f} [{ci.low:+.4f}, {ci.high:+.4f}]")
        print("\nreading | the same by the queue accepted load, per seed | mean [95%]")
        for reading, g in df.groupby("reading", sort=False):
            gap = capacity_gap(column="queue_accepted")(g.drop(columns=["accepted"]))
            ci = mean_ci(gap)
            per = ", ".join(f"{v:+.4f}" for v in gap)
            print(f"{reading} | {per} | {ci.mean:+.4f} [{ci.low:+.4f}, {ci.high:+.4f}]")
    print(f"\ncells: {len(df)}, CPU {df['cpu'].sum():.0f} s")


if __name__ == "__main__":
    main()
