"""Where the CPU time of a whole ``cosched run`` process goes, imports included.

    python benchmarks/run_breakdown.py ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz easy
    python benchmarks/run_breakdown.py TRACE easy --runs 9 --core 1

Runs the command ``cosched run TRACE --policy P --jobs-out jobs.csv`` (its ``main``, as
``python -m cosched`` calls it, without ``runpy``) in ``--runs`` fresh processes pinned
to one core, each with a small tracer loaded first: every import is charged, with
``time.process_time``, to its outermost module (``import pyarrow``: what that import
loaded, other imports nested in it included), except that another package imported
from one of cosched's modules is charged to that package (``import numpy`` from
``cosched.platform``: numpy's, not ``import cosched.platform``'s), and the command's
main steps to themselves (``read_swf`` without the parse, ``parse_block``,
``load_loop``, ``try_run`` (the event loop), ``summarize``, ``write_csv``...), each
exclusive of what is charged elsewhere; the cyclic collector's passes are charged to ``gc``. It
prints the median of each part over the runs, the sum of those medians and the median
of the whole process's CPU time as the operating system counts it (``getrusage``;
the tracer's own start is its own part). The command's
own code is unchanged: the parts are found by wrapping functions as their modules
load, so a function a version lacks is simply not listed (``PYTHONPATH`` selects
another source tree).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

#: Functions charged to themselves: module -> names (``Class.method`` for methods).
WRAPPED: dict[str, tuple[str, ...]] = {
    "argparse": ("ArgumentParser.parse_args",),
    "cosched.cli.main": ("build_parser",),
    "cosched.cli.run": ("check_writable", "open_for", "_table"),
    "cosched.policies.base": ("policy_class", "make_policy"),
    "cosched.policies.requirements": ("fit_workload",),
    "cosched.workload.sources": ("log_format", "_with_sidecar"),
    "cosched.workload.loader": ("load_workload_with_report", "apply_rules"),
    "cosched.workload.swf": ("read_swf", "_to_table", "_check_unique_ids"),
    "cosched.compile": ("load",),
    "cosched.workload._swf_kernel": ("parse",),
    "cosched.engine.aot": ("load_loop",),
    "cosched.engine.simulation": ("Simulation.__init__", "Simulation.run"),
    "cosched.engine.fastpath": ("try_run",),
    "cosched.metrics.summary": ("summarize", "outcome_columns"),
    "cosched.outputs": ("write_jobs", "_integral_columns", "_write_csv"),
}


#: The measured process: the tracer, then the command's own ``main``. The tracer loads
#: no module of its own before the command (``importlib.machinery`` is loaded at
#: start), so that it moves no import's time between parts.
CHILD = """
import time
started = time.process_time()
import gc, importlib._bootstrap as bootstrap, os, sys
from importlib.machinery import PathFinder

WRAPPED = %r
spent = {"interpreter start": started}
stack = ["tracer start"]
last = [started]


def switch(label):
    now = time.process_time()
    spent[stack[-1]] = spent.get(stack[-1], 0.0) + now - last[0]
    last[0] = now
    if label is None:
        stack.pop()
    else:
        stack.append(label)


real_find_and_load = bootstrap._find_and_load


def find_and_load(name, import_):
    parts = name.split(".")
    label = "import " + (".".join(parts[:2]) if parts[0] == "cosched" else parts[0])
    # The outermost import, or another package's inside one of cosched's (numpy inside
    # cosched.engine is numpy's time, not the engine's).
    outer = not stack[-1].startswith("import ") or (
        stack[-1].startswith("import cosched") and parts[0] != "cosched"
    )
    if outer:
        switch(label)
    try:
        return real_find_and_load(name, import_)
    finally:
        if outer:
            switch(None)


def wrap(owner, attr, label):
    f = getattr(owner, attr)

    def timed(*a, **k):
        switch(label)
        try:
            return f(*a, **k)
        finally:
            switch(None)

    setattr(owner, attr, timed)


class Wrapper:
    def find_spec(self, name, path, target=None):
        if name not in WRAPPED:
            return None
        spec = PathFinder.find_spec(name, path)
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            for item in WRAPPED[name]:
                owner_name, _, attr = item.rpartition(".")
                owner = getattr(module, owner_name) if owner_name else module
                if hasattr(owner, attr):
                    wrap(owner, attr, item.lstrip("_"))

        spec.loader.exec_module = exec_module
        return spec


gc.callbacks.append(lambda phase, info: switch("gc" if phase == "start" else None))
sys.meta_path.insert(0, Wrapper())
bootstrap._find_and_load = find_and_load
switch("other (the command's own lines)")
sys.argv = ["cosched", *sys.argv[1:]]
from cosched.cli.main import main

main()
switch(None)
sys.stdout.flush()
import json
print("BREAKDOWN " + json.dumps(spent), file=sys.stderr)
sys.stderr.flush()
os._exit(0)
"""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("policy")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--core", type=int, default=1)
    args = p.parse_args()
    env = dict(os.environ)
    runs: list[dict[str, float]] = []
    whole: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        code = CHILD % (WRAPPED,)
        cmd = ["taskset", "-c", str(args.core), sys.executable, "-c", code, "run", args.trace]
        cmd += ["--policy", args.policy, "--jobs-out", os.path.join(tmp, "jobs.csv")]
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            whole.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            line = next(x for x in done.stderr.splitlines() if x.startswith("BREAKDOWN "))
            runs.append(json.loads(line.removeprefix("BREAKDOWN ")))
    names = {k for r in runs for k in r}
    medians = {k: statistics.median(r.get(k, 0.0) for r in runs) for k in names}
    print(f"{args.trace} --policy {args.policy}: CPU ms, median of {args.runs} runs")
    for k, v in sorted(medians.items(), key=lambda kv: -kv[1]):
        if v >= 0.0005:
            print(f"  {k:<36}{v * 1000:7.1f}")
    print(f"  {'sum of the medians':<36}{sum(medians.values()) * 1000:7.1f}")
    print(f"  {'whole process (getrusage)':<36}{statistics.median(whole) * 1000:7.1f}"
          f"   (runs: {', '.join(f'{w * 1000:.0f}' for w in whole)})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
