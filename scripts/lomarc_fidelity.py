"""LOMARC: where the relative bounded response and AC's gain come from.

Runs PSS, AC, L-U1 and L-R under the default reading of the slowdown formula (as
printed, ``sl = ... + sl_mem``), and AC and L-U1 under the overlap reading (each job's
own time plus its shared parts' extra cost, ``max(sl, 2.5)`` when a pair pages), on the
reproduction's workloads (typeless Lublin, mixture
M1, 128 nodes) and prints, per workload and variant over the seeds: the mean response
(h), the mean relative bounded response (60 s bound) overall and per job class (short
<= 1 min, medium <= 1 h, long; the paper's classes, by run time), the improvement over
PSS on the same seed, and the pairs formed.

    python scripts/lomarc_fidelity.py                        # W1 and W3, 1,500 jobs, seeds 0-2
    python scripts/lomarc_fidelity.py --jobs 8000 --seeds 0,1,2,3,4
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from cosched.engine.simulation import Simulation
from cosched.experiments.stats import mean_ci
from cosched.lomarc.diagnostics import run_metrics
from cosched.lomarc.experiment import NODES, cell_workload
from cosched.lomarc.policies import lomarc_platform
from cosched.policies.base import make_policy

RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "PSS": ("lomarc-pss", {}),
    "AC": ("lomarc-ac", {}),
    "AC overlap": ("lomarc-ac", {"slowdown": "overlap"}),
    "L-U1": ("lomarc-u1", {}),
    "L-U1 overlap": ("lomarc-u1", {"slowdown": "overlap"}),
    "L-R": ("lomarc-r", {}),
}
CLASSES = (("short", 0.0, 60.0), ("medium", 60.0, 3600.0), ("long", 3600.0, np.inf))


def measure(workload: str, seed: int, jobs: int, name: str) -> dict[str, float]:
    w = cell_workload("paper-alpha", workload, "M1", seed, jobs)
    policy, params = RUNS[name]
    result = Simulation(w, lomarc_platform(NODES), make_policy(policy, **params)).run()
    out = run_metrics(result, NODES)
    j = result.jobs
    resp = (j["end_time"] - j["submit_time"]).to_numpy()
    run = j["run_time"].to_numpy()
    rel = resp / np.maximum(run, 60.0)
    rec = {
        "response_h": float(resp.mean()) / 3600,
        "bounded": float(rel.mean()),
        "pairs": float(out.get("queue_pairs", 0) + out.get("running_pairs", 0)),
    }
    for label, lo, hi in CLASSES:
        sel = (run > lo) & (run <= hi) if lo > 0 else run <= hi
        rec[f"bounded_{label}"] = float(rel[sel].mean())
        rec[f"share_{label}"] = float(sel.mean())
    return rec


def _ci(rs: list[dict[str, float]], key: str) -> str:
    return mean_ci(np.asarray([r[key] for r in rs])).text(3)


def _gain(base: list[dict[str, float]], rs: list[dict[str, float]], key: str) -> str:
    """Improvement over PSS on the same seed, mean and 95% interval, in %."""
    g = [100 * (p[key] - r[key]) / p[key] for p, r in zip(base, rs, strict=True)]
    return mean_ci(np.asarray(g)).text(3) + "%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="W1,W3")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--jobs", type=int, default=1500)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    t0 = time.process_time()
    print(
        "workload | variant | response (h) | vs PSS | rel. bounded | vs PSS | bounded short "
        "| bounded medium | bounded long | pairs"
    )
    for wl in args.workloads.split(","):
        recs = {v: [measure(wl, s, args.jobs, v) for s in seeds] for v in RUNS}
        shares = [recs["PSS"][0][f"share_{c}"] for c, _, _ in CLASSES]
        print(f"{wl}: job shares short / medium / long (seed {seeds[0]}): "
              + " / ".join(f"{x:.2f}" for x in shares))  # fmt: skip
        for v, rs in recs.items():
            base = recs["PSS"]
            print(
                f"{wl} | {v} | {_ci(rs, 'response_h')} | {_gain(base, rs, 'response_h')} | "
                f"{_ci(rs, 'bounded')} | {_gain(base, rs, 'bounded')} | "
                f"{_ci(rs, 'bounded_short')} | {_ci(rs, 'bounded_medium')} | "
                f"{_ci(rs, 'bounded_long')} | {_ci(rs, 'pairs')}",
                flush=True,
            )
    print(f"CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
