"""Speed of the process-level time-sharing simulator, per scheme.

A 32-node cluster at MPL 5 is kept full: Lublin WL7 jobs (s = 20%) are all submitted
at time 0 and run far longer than the horizon, so every node holds up to five
processes for the whole run. Prints, per scheme and message size, simulated seconds per
wall second, events per second, and the wall time a simulated hour would take.
Usage::

    python benchmarks/bench_timesharing.py                       # all schemes, both sizes
    python benchmarks/bench_timesharing.py --schemes PB --horizon 3600 --msg-factor 1
    python benchmarks/bench_timesharing.py --param nic_bandwidth=22083244 --msg-factor 1
                                  # with a named reading of TSParams on
    NUMBA_DISABLE_JIT=1 python benchmarks/bench_timesharing.py --schemes PB --horizon 1
                                  # the same model interpreted (to compare)

Times are CPU seconds of this process (``time.process_time``), so another job on the
other core does not inflate them; the compiled kernel's one-time compilation (cached
on disk) is done by a short warm-up run before timing. Pin it to one core for figures
(``taskset -c 0``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosched.timesharing import SCHEMES, TSParams, simulate
from cosched.timesharing.workloads import make_workload
from cosched.workload.job import Workload


def backlog(seed: int = 1) -> Workload:
    """Long WL7 jobs, all submitted at 0 (the machine stays at its MPL)."""
    w = make_workload(300, rng=np.random.default_rng(seed), nodes=32, load=0.9)
    t = w.table.copy()
    t["submit_time"] = 0.0
    t["run_time"] = 1e6  # nothing ends within the horizon
    t["requested_time"] = t["run_time"]
    return Workload.from_table(t, name="backlog")


def measure(
    scheme: str, msg_factor: int, horizon: float, extra: dict[str, float] | None = None
) -> dict[str, float]:
    """Simulate ``horizon`` seconds (``extra``: TSParams fields to set); the speed figures."""
    w = backlog()
    params = TSParams(msg_size=4096.0 * msg_factor).with_(**(extra or {}))
    kw = dict(scheme=scheme, nodes=32, mpl=5, params=params)
    simulate(w, rng=np.random.default_rng(2), horizon=0.01, **kw)  # warm-up (compile)
    t0 = time.process_time()
    r = simulate(w, rng=np.random.default_rng(2), horizon=horizon, **kw)
    wall = time.process_time() - t0
    return {
        "sim_per_wall": r.end_time / wall,
        "events_per_s": r.events / wall,
        "hour_s": 3600.0 / (r.end_time / wall),
        "wall": wall,
    }


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemes", nargs="*", default=list(SCHEMES))
    ap.add_argument(
        "--msg-factor",
        type=int,
        nargs="*",
        default=[1, 16],
        help="message size in units of 4,096 bytes (1 = the paper's)",
    )
    ap.add_argument(
        "--horizon",
        type=float,
        default=None,
        help="simulated seconds (default 10 for factor 1, 60 otherwise)",
    )
    ap.add_argument(
        "--param",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="TSParams fields to set (e.g. nic_bandwidth=22083244)",
    )
    args = ap.parse_args()
    extra = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        try:
            extra[name] = float(value)
        except ValueError:
            ap.error(f"--param {item!r}: expected NAME=NUMBER")
        if not sep:
            ap.error(f"--param {item!r}: expected NAME=NUMBER")
    print(f"{'scheme':8s} {'msg':>7s} {'sim s/CPU s':>12s} {'events/s':>10s} {'1 h takes':>10s}")
    for f in args.msg_factor:
        horizon = args.horizon or (10.0 if f == 1 else 60.0)
        for s in args.schemes:
            m = measure(s, f, horizon, extra)
            print(
                f"{s:8s} {4096 * f:7d} {m['sim_per_wall']:12.2f} {m['events_per_s']:10.0f} "
                f"{m['hour_s']:9.0f}s",
                flush=True,
            )


if __name__ == "__main__":
    main()
