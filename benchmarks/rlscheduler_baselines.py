"""RLScheduler's heuristic baselines (its paper's Table V), reproduced with ``cosched/Batch-v0``.

RLScheduler (Zhang, Dai, He, Bao and Xie, SC'20) publishes the average bounded slowdown
of FCFS, WFP3, UNICEP, SJF and F1 on its traces, without and with backfilling: the README
of DIR-LAB/deep-batch-scheduler, section "Reproduce Results in Paper", table "Results of
Scheduling Towards average bounded slowdown" (the README's copy of the paper's Table V,
made by its ``make_table_script.py``). This script prints the Lublin-1, SDSC-SP2 and
HPC2N rows beside cosched's figures under the same conditions (Lublin-2's trace,
``lublin_256_new2``, is not among cosched's traces).

The conditions, read from that repository (``make_table_script.py``,
``compare-make-table.py``, ``HPCSimPickJobs.py``, ``job.py``, ``cluster.py``):

* 10 sequences of 1,024 consecutive jobs (``len = 1024``, ``iter = 10``, ``seed = 1``);
  each starts at ``np_random.randint(1024, n - 1024 - 1)`` on an empty machine, with
  ``n`` the trace's job count for Lublin-1 and 10,000 (``batch_job_slice``) for SDSC-SP2
  and HPC2N, and ``np_random`` legacy gym's ``seeding.np_random(1)`` (a RandomState
  seeded from a SHA-512 hash of the seed; gym at commit ff4664bd, RLScheduler's
  requirements);
* the machine is the header's MaxNodes nodes of MaxProcs / MaxNodes processors: 256, 128
  and 240 single-processor nodes here;
* a heuristic repeatedly takes the best-scored job of the whole queue; a job that does
  not fit waits, committed, until it does (``commit="head"``, K at least the queue);
  with backfilling, jobs pass it by RLScheduler's greedy rule (``backfill="rlscheduler"``,
  its ``moveforward_for_resources_backfill_greedy``);
* a job's size is the larger of SWF fields 5 and 8, a missing requested time is the run
  time, a negative run time becomes 10 s and a run time of 0 leaves the job out;
* bounded slowdown ``max(1, (wait + run) / max(run, 10))``, averaged over a sequence's
  jobs, then over the 10 sequences.

Columns: FCFS (``fcfs``), WFP3 (``wfp3-rlscheduler``), UNICEP (``unicep-rlscheduler``),
SJF (``sjf``), F1 (``f1``); the published WFP3 and UNICEP columns rest on RLScheduler's
scores reading a queued job's wait as ``-1 - submit`` (docs/gym.md), so the textbook
``wfp3`` and ``unicep`` are printed after the table for comparison.

Usage (the traces are not in the repository)::

    python benchmarks/rlscheduler_baselines.py [--traces DIR] [--rows Lublin-1,...]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import struct
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cosched.gym import agents
from cosched.gym.batch import BatchEnv
from cosched.workload.loader import LoadRules

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
SEQUENCE, SEQUENCES, SEED = 1024, 10, 1
#: The table's columns and the agents that make them.
COLUMNS = {
    "FCFS": "fcfs",
    "WFP3": "wfp3-rlscheduler",
    "UNI": "unicep-rlscheduler",
    "SJF": "sjf",
    "F1": "f1",
}
#: How the README's rows name the two halves of the table.
BACKFILLS = {"none": "Without backfilling", "rlscheduler": "With backfilling"}


@dataclass(frozen=True)
class Row:
    """One trace of the table: its file, machine, sampling bound and published figures."""

    file: str
    procs: int
    #: ``batch_job_slice``: sequences start below this job (0: the whole trace).
    slice: int
    published: dict[str, tuple[float, ...]]


#: The README's table, in the order of :data:`COLUMNS`.
ROWS = {
    "Lublin-1": Row(
        "lublin_256.swf.gz",
        256,
        0,
        {
            "none": (7273.77, 19753.53, 22274.74, 277.35, 258.37),
            "rlscheduler": (235.82, 133.87, 307.23, 73.31, 75.07),
        },
    ),
    "SDSC-SP2": Row(
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        128,
        10000,
        {
            "none": (1727.54, 3000.88, 1848.45, 2680.55, 1232.06),
            "rlscheduler": (1595.12, 1083.12, 548.01, 2167.84, 1098.22),
        },
    ),
    "HPC2N": Row(
        "HPC2N-2002-2.2-cln.swf.gz",
        240,
        10000,
        {
            "none": (297.18, 426.99, 609.77, 157.71, 118.01),
            "rlscheduler": (127.38, 97.39, 175.12, 122.04, 71.95),
        },
    ),
}
#: Also runs the textbook scores on Lublin-1, for comparison.
TEXTBOOK = ("wfp3", "unicep")


def _bigint_from_bytes(data: bytes) -> int:
    """Legacy gym's little-endian integer of ``data`` (padded to whole 32-bit words)."""
    data += b"\0" * (4 - len(data) % 4)
    words = struct.unpack(f"{len(data) // 4}I", data)
    return sum(w << (32 * i) for i, w in enumerate(words))


def legacy_gym_random(seed: int) -> np.random.RandomState:
    """``gym.utils.seeding.np_random(seed)`` of gym before 0.22 (RLScheduler's)."""
    digest = hashlib.sha512(str(seed % 2**64).encode("utf8")).digest()
    big = _bigint_from_bytes(digest[:8])
    ints = []
    while big > 0:
        big, low = divmod(big, 2**32)
        ints.append(low)
    return np.random.RandomState(ints or [0])


def starts(n_jobs: int) -> list[int]:
    """The first jobs of RLScheduler's 10 evaluation sequences below job ``n_jobs``."""
    rng = legacy_gym_random(SEED)
    return [int(rng.randint(SEQUENCE, n_jobs - SEQUENCE - 1)) for _ in range(SEQUENCES)]


def rlscheduler_swf(path: Path, out: Path) -> Path:
    """The trace as RLScheduler's ``job.py`` reads it: a negative run time is 10 s."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as src, open(out, "w") as dst:
        for line in src:
            fields = line.split()
            if fields and not line.startswith(";") and float(fields[3]) < 0:
                fields[3] = "10"
                line = " ".join(fields) + "\n"
            dst.write(line)
    return out


def mean_bsld(env: BatchEnv, agent: str, first: list[int]) -> list[float]:
    """The mean bounded slowdown of each sequence under ``agent``."""
    act = agents.AGENTS[agent]
    values = []
    for start in first:
        obs, _ = env.reset(options={"start": start})
        done = False
        while not done:
            obs, _, done, _, info = env.step(act(obs))
        values.append(info["metrics"]["mean_bounded_slowdown"])
    return values


def run_row(name: str, row: Row, traces: Path, tmp: Path) -> None:
    path = rlscheduler_swf(traces / row.file, tmp / row.file.removesuffix(".gz"))
    rules = LoadRules(procs_field="max", overrun="keep")
    for backfill, title in BACKFILLS.items():
        env = BatchEnv(
            str(path), jobs=SEQUENCE, slots=SEQUENCE, procs=row.procs, rules=rules,
            backfill=backfill,
        )  # fmt: skip
        first = starts(row.slice or len(env.workload))
        print(f"{name}, {title.lower()}: {len(env.workload)} jobs; sequence starts {first}")
        names = list(COLUMNS.items()) + ([(a, a) for a in TEXTBOOK] if name == "Lublin-1" else [])
        published = dict(zip(COLUMNS, row.published[backfill], strict=True))
        for column, agent in names:
            t0 = time.process_time()
            values = mean_bsld(env, agent, first)
            mean = float(np.mean(values))
            if column in published:
                p = published[column]
                note = f"published {p:9.2f}  diff {mean - p:+10.2f} ({(mean - p) / p:+6.1%})"
            else:
                note = "(textbook score; not in the published table)"
            print(
                f"  {column:>6} {agent:<19} {mean:12.4f}  {note}  "
                f"[{time.process_time() - t0:.1f} s CPU]",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=str(TRACES), help="the folder of the traces")
    parser.add_argument("--rows", default=",".join(ROWS), help="rows to run (comma-separated)")
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    for name in rows:
        if name not in ROWS:
            print(f"--rows: unknown row {name!r} (known: {', '.join(ROWS)})", file=sys.stderr)
            return 2
        if not (Path(args.traces) / ROWS[name].file).is_file():
            print(f"no trace {ROWS[name].file} in {args.traces}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory() as tmp:
        for name in rows:
            run_row(name, ROWS[name], Path(args.traces), Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
