"""CPU seconds of the SWF reader, in one process.

    python benchmarks/bench_reader.py ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz

Pinned to one core (``--core``), after the imports: ``read_swf`` of the trace with
the parsers in use and with the numpy parser switched off (``VECTOR_PARSE``), best of
``--repeat``. The event loops are measured by ``bench_fastpath.py``.
"""

from __future__ import annotations

import argparse
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("--core", type=int, default=0)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    os.sched_setaffinity(0, {args.core})
    from cosched.workload import swf

    read = best(lambda: swf.read_swf(args.trace), args.repeat)
    swf.VECTOR_PARSE = False
    before = best(lambda: swf.read_swf(args.trace), args.repeat)
    swf.VECTOR_PARSE = True
    print(f"read_swf        {read:.3f} s   (without the numpy parser: {before:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
