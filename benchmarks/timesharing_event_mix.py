"""Where the process-level kernel's events come from: calls per simulated second.

Runs the bench_timesharing backlog (32 nodes, MPL 5, WL7, s = 20%) interpreted
(``NUMBA_DISABLE_JIT=1``, set here) for a short horizon and counts the calls of the
kernel's handlers and queue operations by wrapping the module's functions (the kernel
looks them up at call time when interpreted), and the nodes' CPU events by what they do
(``cpu:`` lines: a compute phase or a send ends, a receive is woken, a spin budget runs
out, a tick; ``/CS``: in an FCS coscheduled slot). Usage::

    python benchmarks/timesharing_event_mix.py --schemes PB FCS --horizon 0.3
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from collections.abc import Callable
from typing import Any

os.environ["NUMBA_DISABLE_JIT"] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np

from bench_timesharing import backlog
from cosched.timesharing import TSParams, simulate
from cosched.timesharing import kernel as K

COUNTED = ("node_event", "arrive", "io_done", "activity_done", "receive", "resched",
           "cpu_update", "push", "push_msg", "switch_to", "pb_tick", "raise_all",
           "gang_slot", "lazy_expire")  # fmt: skip


def cpu_kind(S: Any, n: int, t: float) -> str:
    """What node ``n``'s CPU event at ``t`` does (read before ``node_event`` runs)."""
    cur = S.I[n, K.N_CUR]
    due = t + K.EPS
    if t < S.F[n, K.N_OVH] - K.EPS:
        return "cpu:overhead end"
    if cur < 0:
        return "cpu:idle"
    if S.F[n, K.N_PB] <= due:
        return "cpu:PB tick"
    if S.F[n, K.N_PRE] <= due:
        return "cpu:preemption tick"
    a = max(S.F[n, K.N_ACT], S.F[n, K.N_OVH])
    spin = S.I[cur, K.P_SPINNING] != 0
    left = S.F[cur, K.P_REM] - (t - a if spin else (t - a) * S.F[n, K.N_SPEED])
    cs = "/CS" if S.I[n, K.N_MODE] == K.MODE_CS else ""
    if left > K.EPS:
        return "cpu:quantum" + cs
    if spin and S.F[cur, K.P_REM] > K.EPS:
        return "cpu:spin budget out" + cs
    phase = S.I[cur, K.P_PHASE]
    what = {K.P_COMPUTE: "compute end", K.P_SEND: "send"}.get(phase, "receive woken")
    return "cpu:" + what + cs


def count(scheme: str, horizon: float) -> tuple[collections.Counter[str], Any]:
    """Calls of each counted function in a run of ``horizon`` simulated seconds."""
    calls: collections.Counter[str] = collections.Counter()
    saved = {name: getattr(K, name) for name in COUNTED if hasattr(K, name)}

    def wrap(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def g(*a: Any) -> Any:
            calls[name] += 1
            if name == "node_event":
                calls[cpu_kind(*a)] += 1
            return f(*a)

        return g

    try:
        for name, f in saved.items():
            setattr(K, name, wrap(name, f))
        r = simulate(backlog(), scheme=scheme, nodes=32, mpl=5, params=TSParams(),
                     rng=np.random.default_rng(2), horizon=horizon)  # fmt: skip
    finally:
        for name, f in saved.items():
            setattr(K, name, f)
    return calls, r


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemes", nargs="*", default=["PB", "FCS"])
    ap.add_argument("--horizon", type=float, default=0.3)
    args = ap.parse_args()
    for s in args.schemes:
        calls, r = count(s, args.horizon)
        print(f"{s}: {r.events / r.end_time:,.0f} events per simulated second "
              f"(replaced CPU events included)")  # fmt: skip
        for name, v in calls.most_common():
            print(f"  {name:26s} {v / r.end_time:12,.0f} /s")


if __name__ == "__main__":
    main()
