"""Speed of the workload layer: SWF parsing, Lublin generation, profile annotation.

Prints CPU seconds and rates (the work is single-threaded; CPU time equals wall time on
an idle core). Usage::

    python benchmarks/bench_workloads.py            # 1,000,000 generated jobs
    python benchmarks/bench_workloads.py --jobs 200000
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from cosched.workload import read_swf
from cosched.workload.models.lublin import generate_lublin
from cosched.workload.profiles import annotate

CURIE = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "traces"
    / ("CEA-Curie-2011-2.1-cln.swf.gz")
)


def timed(label: str, count: int, unit: str, fn: object) -> None:
    t0 = time.process_time()
    fn()  # type: ignore[operator]
    dt = time.process_time() - t0
    print(f"{label:<40}{dt:>8.2f} s{count / dt:>14,.0f} {unit}/s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    n = parser.parse_args().jobs
    if CURIE.exists():
        lines = int(read_swf(CURIE).line_numbers[-1])
        timed("parse CEA-Curie (read_swf)", lines, "lines", lambda: read_swf(CURIE))
    for typeless in (False, True):
        kind = "typeless" if typeless else "class-separated"
        timed(
            f"generate lublin {kind}",
            n,
            "jobs",
            lambda t=typeless: generate_lublin(
                n, nodes=128, rng=np.random.default_rng(1), typeless=t
            ),
        )
    w = generate_lublin(n, nodes=128, rng=np.random.default_rng(1), typeless=True)
    other = generate_lublin(n, nodes=128, rng=np.random.default_rng(2), typeless=True)
    for name, params in [
        ("lomarc", {}),
        ("nodeshare", {}),
        ("dyncosched", {}),
        ("coupled", {"other": other}),
        ("coupled", {"other": other, "proportion": 0.2}),
    ]:
        label = f"annotate {name} {params.get('proportion', '')}".rstrip()
        timed(
            label,
            n,
            "jobs",
            lambda nm=name, p=params: annotate(nm, w, rng=np.random.default_rng(3), **p),
        )


if __name__ == "__main__":
    main()
