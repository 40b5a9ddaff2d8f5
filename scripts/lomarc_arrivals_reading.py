"""Which reading of Figure 5's prediction term do the LOMARC paper's own numbers support?

    python scripts/lomarc_arrivals_reading.py [--seeds 3] [--jobs 2000] [--workers 2]

Figure 5 gives a predicted arrival the response time ``jobn.runtime * jobn.size /
n_nodes`` (its own work: the ``own`` reading) right after loops that accumulate
``response_time +=`` over the queue (a job arriving now queues behind all of it: the
``queue`` reading). This runs PSS and L-R under both readings on the reproduction's
W1, W2 and W3 workloads (typeless Lublin, mixture M1, 128 nodes) and prints L-R's
mean-response improvement over PSS, mean and 95% interval over seeds, beside the paper's
Figure 6 (+48% on W1, +56% on W3; W2 is not quoted in the text).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import sys

PAPER = {"W1": 48.0, "W3": 56.0}


def one(args: tuple[str, int, int, str, str]) -> tuple[str, int, str, float]:
    from cosched.engine import Simulation
    from cosched.lomarc.experiment import NODES, cell_workload
    from cosched.lomarc.policies import lomarc_platform
    from cosched.policies import make_policy

    workload, seed, jobs, name, arrivals = args
    w = cell_workload("paper-alpha", workload, "M1", seed, jobs)
    params = {} if name == "lomarc-pss" else {"arrivals": arrivals}
    policy = make_policy(name, **params)
    jobs_table = Simulation(w, lomarc_platform(NODES), policy).run().jobs
    turnaround = float((jobs_table["end_time"] - jobs_table["submit_time"]).mean())
    label = "PSS" if name == "lomarc-pss" else f"L-R/{arrivals}"
    return workload, seed, label, turnaround


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    from cosched.experiments.stats import mean_ci

    tasks = [
        (w, s, args.jobs, name, arr)
        for w in ("W1", "W2", "W3")
        for s in range(args.seeds)
        for name, arr in (("lomarc-pss", "own"), ("lomarc-r", "own"), ("lomarc-r", "queue"))
    ]
    with cf.ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(one, tasks))
    by = {(w, s, label): t for w, s, label, t in results}
    print(f"L-R mean response improvement over PSS, {args.seeds} seeds, {args.jobs} jobs")
    print(f"{'workload':<10}{'own reading':>22}{'queue reading':>22}{'paper':>8}")
    for w in ("W1", "W2", "W3"):
        cells = []
        for reading in ("own", "queue"):
            gains = [
                100 * (by[(w, s, "PSS")] - by[(w, s, f"L-R/{reading}")]) / by[(w, s, "PSS")]
                for s in range(args.seeds)
            ]
            ci = mean_ci(gains)
            half = 0.0 if ci.n == 1 else ci.half
            cells.append(f"{ci.mean:+.1f}% ± {half:.1f}")
        paper = f"+{PAPER[w]:.0f}%" if w in PAPER else "-"
        print(f"{w:<10}{cells[0]:>22}{cells[1]:>22}{paper:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
