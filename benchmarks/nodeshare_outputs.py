"""Per-job outputs of node-sharing runs, written for a byte comparison of two versions.

For each profile seed (1, 2), machine (700 and 1,158 nodes of 16 cores, cap 3) and
policy setting below, on the first ``--jobs`` jobs of the Trace1 window: a CSV of every
column of ``SimulationResult.jobs`` (floats by ``repr``, the shortest round trip) plus
each job's placement, and a JSON of the engine counters, the policy's diagnostics, the
configurations chosen and the blocked record. Run it with two versions of cosched
and compare the directories file by file (``cmp``). Usage::

    python benchmarks/nodeshare_outputs.py OUT_DIR [--jobs 12000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

COMBOS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("nodeshare", {}),
    ("nodeshare", {"restriction": "High_Rq_Low", "rates": "at-start"}),
    ("nodeshare-easy", {}),
    ("nodeshare-easy", {"restriction": "High_Rq_Low", "rates": "at-start"}),
    ("nodeshare-easy", {"window": 20, "interference": "prior"}),
    ("nodeshare-easy", {"restriction": "Max_One_HM", "degraded": False}),
)


def main() -> None:
    """Run every setting and write its two files."""
    from cosched.engine.simulation import Simulation
    from cosched.nodeshare.experiment import prepare
    from cosched.platform import Platform
    from cosched.policies.base import make_policy
    from cosched.workload.transforms import filter_jobs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--jobs", type=int, default=12_000)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in (1, 2):
        w = prepare(0, args.jobs, seed)
        for nodes in (700, 1158):
            fits = w.table["procs"].to_numpy() <= nodes * 16
            ww = w if fits.all() else filter_jobs(w, fits)
            platform = Platform(nodes=nodes, cores=16, allocation="nodes", max_jobs_per_node=3)
            for k, (name, params) in enumerate(COMBOS):
                policy: Any = make_policy(name, **params)
                r = Simulation(ww, platform, policy).run()
                tag = f"s{seed}_n{nodes}_{k}"
                cols = list(r.jobs.columns)
                arr = {c: r.jobs[c].to_numpy() for c in cols}
                with open(args.out / f"{tag}.csv", "w") as f:
                    f.write(",".join(cols) + ",placement\n")
                    for i in range(len(r.jobs)):
                        vals = [
                            repr(float(arr[c][i])) if arr[c].dtype.kind == "f" else str(arr[c][i])
                            for c in cols
                        ]
                        f.write(",".join(vals) + "," + repr(r.placements.get(i)) + "\n")
                st = policy.stats()
                meta = {
                    "stats": r.stats,
                    "diag": {key: repr(v) for key, v in r.diagnostics.items()},
                    "chosen": {str(a): repr(b) for a, b in sorted(st["chosen"].items())},
                    "blocked": {str(a): b for a, b in sorted(st["blocked"].items())},
                }
                (args.out / f"{tag}.json").write_text(json.dumps(meta, sort_keys=True))
                print(tag, name, params, flush=True)


if __name__ == "__main__":
    main()
