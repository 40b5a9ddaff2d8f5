"""Where the compiled time-sharing kernel spends its time: ``perf`` samples by source line.

Compiles the kernel with line information (``NUMBA_DEBUGINFO=1``, into a fresh numba
cache of its own), runs the bench_timesharing backlog (32 nodes, MPL 5, 4 KiB) under
``perf record``, and attributes the samples that fall inside ``run_kernel`` (the hot
path is inlined into it) to lines of ``kernel.py`` through the object code's line
table (``objdump -dl``). Needs ``perf`` and ``objdump``; Linux only. Usage::

    python benchmarks/timesharing_perf.py --scheme PB --horizon 300 --top 40

The line-table build is what is profiled, so its figures are shares of that build's
time (close to, not the same as, the ordinary build's).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(scheme: str, horizon: float, out: Path) -> None:
    """Run inside ``perf record``: warm up, save run_kernel's address and object code,
    simulate ``horizon`` seconds."""
    sys.path.insert(0, str(HERE))
    import numpy as np

    from bench_timesharing import backlog
    from cosched.timesharing import TSParams, simulate
    from cosched.timesharing import kernel as K

    w = backlog()
    kw = dict(scheme=scheme, nodes=32, mpl=5, params=TSParams())
    simulate(w, rng=np.random.default_rng(2), horizon=0.01, **kw)  # compile
    cres = K.run_kernel.overloads[K.run_kernel.signatures[0]]
    addr = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    (out / "addr").write_text(f"{addr:x}\n")
    (out / "kernel.o").write_bytes(cres.library._get_compiled_object())
    t0 = time.process_time()
    simulate(w, rng=np.random.default_rng(2), horizon=horizon, **kw)
    print(f"{scheme}: {horizon} simulated s in {time.process_time() - t0:.2f} s of CPU")


def line_table(obj: Path) -> tuple[list[int], list[str]]:
    """Offsets of run_kernel's instructions and the kernel.py line of each."""
    dis = subprocess.run(
        ["objdump", "-dl", "--no-show-raw-insn", str(obj)], capture_output=True, text=True
    ).stdout
    offs: list[int] = []
    where: list[str] = []
    inside = False
    line = "?"
    for s in dis.splitlines():
        if re.match(r"^[0-9a-f]+ <", s):
            inside = "10run_kernel" in s and "cpython" not in s and "cfunc" not in s
            continue
        if not inside:
            continue
        m = re.match(r"^(/\S+):(\d+)", s)
        if m:
            line = f"{m.group(1)}:{m.group(2)}"
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s", s)
        if m:
            offs.append(int(m.group(1), 16))
            where.append(line)
    return offs, where


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheme", default="FCS")
    ap.add_argument("--horizon", type=float, default=300.0)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.scheme, args.horizon, Path(args.child))
        return
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        env = {**os.environ, "NUMBA_DEBUGINFO": "1", "NUMBA_CACHE_DIR": str(tmp / "cache")}
        cmd = [sys.executable, __file__, "--scheme", args.scheme, "--horizon",
               str(args.horizon), "--child", str(tmp)]  # fmt: skip
        perf = ["perf", "record", "-q", "-F", "2000", "-o", str(tmp / "perf.data"), "--"]
        subprocess.run(perf + cmd, env=env, check=True)
        ips = subprocess.run(
            ["perf", "script", "-i", str(tmp / "perf.data"), "-F", "ip"],
            capture_output=True, text=True,
        ).stdout.split()  # fmt: skip
        base = int((tmp / "addr").read_text(), 16)
        offs, where = line_table(tmp / "kernel.o")
    counts: collections.Counter[str] = collections.Counter()
    for ip in ips:
        off = int(ip, 16) - base
        if offs and 0 <= off <= offs[-1]:
            counts[where[bisect.bisect_right(offs, off) - 1]] += 1
    inside = sum(counts.values())
    print(f"{len(ips)} samples, {inside} in run_kernel (the share below is of those)")
    for key, v in counts.most_common(args.top):
        path, _, num = key.rpartition(":")
        text = ""
        if path.endswith("kernel.py") and num.isdigit():
            text = Path(path).read_text().splitlines()[int(num) - 1].strip()
        print(f"{v:7d} {100 * v / inside:5.1f}%  {Path(path).name}:{num:5s} {text[:72]}")


if __name__ == "__main__":
    main()
