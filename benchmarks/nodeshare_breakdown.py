"""Where ``nodeshare-easy``'s time goes on the Trace1 window (1,158 x 16, cap 3).

Default: CPU seconds (``time.process_time``) of the whole simulation and inside each of
the policy's methods (``schedule`` contains ``_reserve``, ``_backfill`` and ``commit``;
``on_submit``, ``on_finish`` and ``_new_rates`` run from the engine; ``_backfill`` is
the short windows' per-job loop, ``_scan_window`` the long windows' scan, both in
variants only, ``_kernel_pass`` the built-in policy's pass), by wrapping them. With
``--profile``: the 30 functions of largest own time under cProfile instead. Usage::

    python benchmarks/nodeshare_breakdown.py --jobs 100000
    python benchmarks/nodeshare_breakdown.py --jobs 100000 --profile
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import time
from collections.abc import Callable
from typing import Any

#: Methods timed (those a policy lacks are left out: ``_scan_window`` is the variants'
#: long-window scan, ``_kernel_pass`` the built-in policy's whole pass in one kernel).
METHODS = (
    "schedule",
    "_kernel_pass",
    "on_submit",
    "_backfill",
    "_scan_window",
    "_reserve",
    "on_finish",
    "_new_rates",
    "commit",
)


def main() -> None:
    """Run one simulation and print the breakdown."""
    from cosched.engine.simulation import Simulation
    from cosched.nodeshare import policies
    from cosched.nodeshare.experiment import prepare
    from cosched.platform import Platform
    from cosched.policies.base import make_policy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    w = prepare(0, args.jobs, 1)
    platform = Platform(nodes=1158, cores=16, allocation="nodes", max_jobs_per_node=3)
    policy = make_policy("nodeshare-easy")
    sim = Simulation(w, platform, policy)
    if args.profile:
        prof = cProfile.Profile()
        t0 = time.process_time()
        prof.runcall(sim.run)
        print(f"{args.jobs} jobs: {time.process_time() - t0:.2f} CPU s under cProfile")
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    spent: collections.Counter[str] = collections.Counter()

    def timed(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            t = time.process_time()
            try:
                return f(*a, **k)
            finally:
                spent[name] += time.process_time() - t

        return wrapper

    cls = policies.CoschedulingBackfill
    methods = [name for name in METHODS if hasattr(cls, name)]
    for name in methods:
        setattr(cls, name, timed(name, getattr(cls, name)))
    t0 = time.process_time()
    sim.run()
    total = time.process_time() - t0
    parts = "  ".join(f"{k} {spent[k]:.2f}" for k in methods)
    print(f"{args.jobs} jobs: {total:.2f} CPU s in all; {parts}", flush=True)


if __name__ == "__main__":
    main()
