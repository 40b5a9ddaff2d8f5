"""CPU seconds of the SWF reader and of the plain FCFS/EASY loops, in one process.

    python benchmarks/bench_reader_loops.py ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz

Pinned to one core (``--core``), after the imports: ``read_swf`` of the trace with
the parsers in use and with the numpy parser switched off (``VECTOR_PARSE``), best of
``--repeat``; then, on the workload ``cosched run`` loads from it, the FCFS and EASY
loops as plain Python: the kernel's source (``_batch_kernels.batch_loop``, what numba
compiles) and the interpreter's loop (``_batch_plain.plain_loop``), each ``--repeat``
times, with whether their starts, ends and counts are identical.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from typing import Any


def best(f: Any, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t = time.process_time()
        f()
        out.append(time.process_time() - t)
    return min(out)


def _loops(sim: Any, code: int, repeat: int) -> tuple[float, float, bool]:
    """Best CPU seconds of the kernel's source and of the plain loop, and whether the
    two give the same starts, ends and counts."""
    from cosched.engine import _batch_kernels, _batch_plain

    sim._lists()
    n = sim._n
    cols = (sim._submit, sim._run, sim._est, sim._sizes, sim._capacity, code, -1)
    got = {}

    def kernel() -> None:
        start, end, stats = [math.nan] * n, [math.nan] * n, [0, 0, 0]
        work = ([0] * n, [0.0] * n, [0] * n, [0] * n, [0.0] * n, [0] * n)
        _batch_kernels.batch_loop(*cols, start, end, *work, stats)
        got["kernel"] = (start, end, stats)

    def plain() -> None:
        start, end, stats = [math.nan] * n, [math.nan] * n, [0, 0, 0]
        _batch_plain.plain_loop(*cols, start, end, stats)
        got["plain"] = (start, end, stats)

    k, q = best(kernel, repeat), best(plain, repeat)
    return k, q, got["kernel"] == got["plain"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("--core", type=int, default=0)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    os.sched_setaffinity(0, {args.core})
    import numpy as np

    from cosched.cli.main import build_parser
    from cosched.cli.run import load_for
    from cosched.engine import Simulation
    from cosched.policies.base import make_policy, policy_class
    from cosched.workload import swf

    read = best(lambda: swf.read_swf(args.trace), args.repeat)
    swf.VECTOR_PARSE = False
    before = best(lambda: swf.read_swf(args.trace), args.repeat)
    swf.VECTOR_PARSE = True
    print(f"read_swf        {read:.3f} s   (without the numpy parser: {before:.3f} s)")
    for code, name in ((0, "fcfs"), (1, "easy")):
        run_args = build_parser().parse_args(["run", args.trace, "--policy", name])
        w, platform, _ = load_for(run_args, policy_class(name))
        sim = Simulation(w, platform, make_policy(name), rng=np.random.default_rng(0))
        k, q, same = _loops(sim, code, args.repeat)
        print(f"{name} loop       kernel source {k:.3f} s   plain loop {q:.3f} s   "
              f"{'identical' if same else 'DIFFER'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
