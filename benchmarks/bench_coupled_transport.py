"""Overhead of the TCP transport: messages and wall time per paired job, TCP vs in-process.

The two machines of the coupled reproduction (LLNL Atlas compute, KTH SP2 analysis at
offered load 0.5), ``--days`` days of each, ``--proportion`` of the analysis jobs paired
with the nearest compute job (``pair_nearest``), each scheme combination run twice:
in this process (``local``) and with each machine in its own ``cosched coupled serve``
process on 127.0.0.1 (``tcp``). The job tables must be identical (checked).

Counted per run: calls the coordinator makes to the domains (advance, pass, state,
notices, finish) and calls between domains (Algorithm 1's mate id, status, try-start,
start; try-hold for groups). In-process they are function calls; over TCP each is one
signed request and one reply, so TCP messages = 2 x requests. Wall time is
``time.perf_counter`` around the run (process start-up and shut-down included for tcp,
workload building excluded). Usage::

    python benchmarks/bench_coupled_transport.py                 # 2 days, HH and YY
    python benchmarks/bench_coupled_transport.py --days 10 --schemes HH HY YH YY
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

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


class Counted:
    """Counts the calls made through an object (a peer link or a coordinator member)."""

    def __init__(self, inner: Any, counter: Counter[str], kind: str, methods: set[str]) -> None:
        self._inner = inner
        self._counter = counter
        self._kind = kind
        self._methods = methods
        self.name = getattr(inner, "name", "")

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._inner, attr)
        if attr in self._methods and callable(value):

            def call(*args: Any, **kw: Any) -> Any:
                self._counter[self._kind] += 1
                return value(*args, **kw)

            return call
        return value


PEER_CALLS = {"mate_id", "mate_status", "try_start_mate", "start_mate", "try_hold_mate"}
DRIVER_CALLS = {"refresh", "advance", "run_pass", "notify", "finish"}


def run_local(specs: list[Any]) -> tuple[Any, Counter[str]]:
    from cosched.coupled.coordinator import Coordinator, LocalMember
    from cosched.coupled.protocol import LocalLink

    counter: Counter[str] = Counter()
    doms = [s.build() for s in specs]
    a, b = doms
    a.connect(b.name, Counted(LocalLink(b, a), counter, "peer", PEER_CALLS))  # type: ignore[arg-type]
    b.connect(a.name, Counted(LocalLink(a, b), counter, "peer", PEER_CALLS))  # type: ignore[arg-type]
    members = [Counted(LocalMember(d), counter, "driver", DRIVER_CALLS) for d in doms]
    coord = Coordinator(members)  # type: ignore[arg-type]
    coord.linked(a.name, b.name)
    return coord.run(), counter


def main() -> int:
    import pandas as pd

    from cosched.coupled import verify_sync
    from cosched.coupled.spec import DomainSpec
    from cosched.coupled.transport import run_tcp
    from cosched.coupled.workloads import (
        ANALYSIS_PLATFORM,
        COMPUTE_PLATFORM,
        analysis_workload,
        compute_workload,
        pair_nearest,
    )

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=float, default=2.0, help="simulated days (default 2)")
    ap.add_argument("--proportion", type=float, default=0.1, help="paired share (default 0.1)")
    ap.add_argument(
        "--schemes", nargs="+", default=["HH", "YY"], choices=list(SCHEMES), help="combinations"
    )
    args = ap.parse_args()
    if not SHARED.is_dir():
        print(f"traces not found under {SHARED}; set COSCHED_TRACES", file=sys.stderr)
        return 2
    span = args.days * 86400.0
    wc = compute_workload(SHARED, span=span)
    wa = analysis_workload(SHARED, load=0.5, span=span)
    wc, wa = pair_nearest(wc, wa, proportion=args.proportion, rng=np.random.default_rng(1))
    pairs = int((wa.table["coupled_mate"] >= 0).sum())
    print(
        f"{args.days:g} days: compute {len(wc)} jobs, analysis {len(wa)} jobs, {pairs} pairs "
        f"(each pair = 2 paired jobs)"
    )
    print(
        "scheme transport  wall_s  instants  driver_req  peer_req  messages  "
        "msgs/paired_job  ms/paired_job"
    )
    for name in args.schemes:
        sc, sa = SCHEMES[name]
        specs = [
            DomainSpec("compute", wc, COMPUTE_PLATFORM, scheme=sc),  # type: ignore[arg-type]
            DomainSpec("analysis", wa, ANALYSIS_PLATFORM, scheme=sa),  # type: ignore[arg-type]
        ]
        t0 = time.perf_counter()
        local, counter = run_local(specs)
        t_local = time.perf_counter() - t0
        t0 = time.perf_counter()
        tcp = run_tcp(specs)
        t_tcp = time.perf_counter() - t0
        verify_sync(tcp)
        for n in local.results:
            pd.testing.assert_frame_equal(
                local.results[n].jobs, tcp.results[n].jobs, check_exact=True
            )
        paired_jobs = 2 * pairs
        rows = [
            ("local", t_local, local.stats["instants"], counter["driver"], counter["peer"], 0),
            (
                "tcp",
                t_tcp,
                tcp.stats["instants"],
                tcp.stats["driver_messages"],
                tcp.stats["peer_messages"],
                2 * (tcp.stats["driver_messages"] + tcp.stats["peer_messages"]),
            ),
        ]
        for transport, wall, inst, drv, peer, msgs in rows:
            print(
                f"{name:6} {transport:9} {wall:7.2f} {inst:9d} {drv:11d} {peer:9d} {msgs:9d}"
                f" {msgs / paired_jobs:16.1f} {1000 * wall / paired_jobs:14.2f}"
            )
        print(f"{name}: job tables identical; tcp / local wall time = {t_tcp / t_local:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
