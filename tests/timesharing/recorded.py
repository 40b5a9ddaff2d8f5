"""Recorded results of the time-sharing model: the cases and their fingerprints.

``tests/timesharing/data/recorded.json`` holds, for every case below, a SHA-256 of the
run's exact results (every job time, node account and counter, floats written in hex)
and a few readable numbers. It was recorded from a Python reference engine of the
process model while the compiled kernel agreed with it bit for bit (a differential
test); the kernel is the one source of the model. The FCS cases were recorded from the
kernel after its hand-checked scenarios (tests/timesharing/test_fcs.py) passed. A test
runs every case and compares: any change of the model's results shows as a changed fingerprint.

Re-record only for a deliberate change of the model, stating why in the commit:

    python -m tests.timesharing.recorded          # rewrites data/recorded.json
    python -m tests.timesharing.recorded --new    # records only the cases not there
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from cosched.timesharing import SCHEMES, TSParams, jobs_table, simulate
from cosched.timesharing.params import OTHER_SCHEMES
from cosched.timesharing.workloads import make_workload

PATH = Path(__file__).parent / "data" / "recorded.json"
NODES = 4
#: (mpl, grain in 4 KiB units, skew, horizon) for each small random job list.
SETTINGS = (
    (1, 1, 0.0, math.inf),
    (2, 4, 0.2, math.inf),
    (3, 1, 1.5, math.inf),
    (4, 16, 0.2, math.inf),
    (3, 4, 0.2, 0.15),
)


def job_list(k: int) -> list[tuple[float, float, int, int]]:
    """Case ``k``'s jobs: 3 to 8 jobs of 1 to 4 tasks, every job type (seeded)."""
    rng = np.random.default_rng(1000 + k)
    n = int(rng.integers(3, 9))
    jobs = [
        (
            round(float(rng.uniform(0.0, 0.4)), 4),
            round(float(rng.uniform(0.01, 0.12)), 4),
            int(rng.integers(1, NODES + 1)),
            int(rng.integers(1, 7)),
        )
        for _ in range(n)
    ]
    return sorted(jobs)


def cases() -> list[dict[str, Any]]:
    """Every recorded case: small job lists under every setting, and Lublin jobs."""
    out: list[dict[str, Any]] = []
    k = 0
    for scheme in [*SCHEMES, *OTHER_SCHEMES]:
        for mpl, grain, skew, horizon in SETTINGS:
            out.append(
                {"name": f"{scheme}/list{k}", "scheme": scheme, "kind": "list", "k": k,
                 "mpl": mpl, "grain": grain, "skew": skew, "horizon": horizon, "nodes": NODES}
            )  # fmt: skip
            k += 1
        out.append(
            {"name": f"{scheme}/lublin", "scheme": scheme, "kind": "lublin", "k": 0,
             "mpl": 3, "grain": 1, "skew": 0.2, "horizon": math.inf, "nodes": 8}
        )  # fmt: skip
    return out


def run_case(case: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """Simulate one case; its fingerprint and readable numbers."""
    if case["kind"] == "list":
        w = jobs_table(job_list(case["k"]), skew=case["skew"])
    else:
        w = make_workload(
            20, rng=np.random.default_rng(7), nodes=case["nodes"], workload="WL7",
            skew=case["skew"], load=0.9, time_scale=4000.0, max_run=1000.0,
        )  # fmt: skip
    r = simulate(
        w,
        scheme=case["scheme"],
        nodes=case["nodes"],
        mpl=case["mpl"],
        rng=np.random.default_rng(case["k"] + 17),
        params=TSParams(msg_size=4096.0 * case["grain"]),
        horizon=case["horizon"],
        **extra,
    )
    jobs = r.jobs.sort_values("job_id")
    parts: list[str] = []
    for c in ("job_id", "procs"):
        parts.append(",".join(str(int(v)) for v in jobs[c]))
    for c in ("submit_time", "start_time", "end_time", "run_time"):
        parts.append(",".join(float(v).hex() for v in jobs[c]))
    for c in r.nodes.columns:
        if c == "io_cpu":  # newer than the recording: I/O holding the CPU, off here
            assert not r.nodes[c].any()
        elif c != "node":
            parts.append(c + ":" + ",".join(float(v).hex() for v in r.nodes[c]))
    scalars = (r.end_time, r.window[0], r.window[1], r.window_compute)
    parts.append(",".join(float(v).hex() for v in scalars))
    parts.append(f"{r.events},{r.messages_sent},{r.messages_received},{r.unfinished}")
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    return {
        "sha256": digest,
        "events": r.events,
        "messages": r.messages_sent,
        "unfinished": r.unfinished,
        "end_time": r.end_time,
        "context_switch": float(r.nodes["context_switch"].sum()),
    }


def main(only_new: bool = False) -> None:
    old = json.loads(PATH.read_text()) if only_new and PATH.exists() else {}
    data = {c["name"]: old.get(c["name"]) or run_case(c) for c in cases()}
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{len(data)} cases written to {PATH}", file=sys.stderr)


if __name__ == "__main__":
    main(only_new="--new" in sys.argv)
