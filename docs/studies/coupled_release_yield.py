"""The hold-hold cells of docs/claims/coupled-special.toml that deadlock, rerun with
``release_yield`` (in a pass that released holds no other job may take the released
units to hold; docs/coupled.md, "Deadlock").

Reads the special study's store, reruns each deadlocked HH cell with the same
parameters and seed and ``release_yield = true``, and prints one Markdown row per cell:

    python docs/studies/coupled_release_yield.py runs/coupled-special

With ``--ticks PAIRED SEED`` it runs that HH cell as stored (no ``release_yield``),
records which jobs each machine releases at each 20-minute tick, and prints for how
many of the last ticks each machine releases the same jobs as two ticks before (a
livelock of period 2: the same holds re-taken in the same order):

    python docs/studies/coupled_release_yield.py --ticks 0.1 3205456419
"""

from __future__ import annotations

import sys
from pathlib import Path

from cosched.coupled import domain
from cosched.coupled.experiment import run_cell
from cosched.experiments.model import CellEnv, Scalar
from cosched.experiments.store import read_results
from cosched.experiments.traces import find_trace

TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"
PARAMS: dict[str, Scalar] = {
    "study": "proportion",
    "load": 0.5,
    "scheme": "HH",
    "span": 2592000.0,
    "compute": "intrepid",
    "compute_load": 0.8,
    "compute_sigma": 1.7,
    "analysis_jobs": 9219,
    "release_yield": True,
}


def main(store: Path) -> None:
    results, _ = read_results(store)
    dead = results[(results["outcome"] == "deadlock") & (results["scheme"] == "HH")]
    env = CellEnv(traces={TRACE: str(find_trace(TRACE))})
    print(
        "| paired | seed | outcome | compute wait (min) | compute sync (min) | "
        "analysis sync (min) | lost compute / analysis (%) |"
    )
    print("|---|---|---|---|---|---|---|")
    for _, row in dead.sort_values(["proportion", "seed"]).iterrows():
        out = run_cell({**PARAMS, "proportion": float(row["proportion"])}, int(row["seed"]), env)
        if out["outcome"] != "ok":
            print(f"| {row['proportion']:g} | {row['seed']} | {out['outcome']} | | | | |")
            continue
        print(
            f"| {row['proportion']:g} | {row['seed']} | ok | {out['compute.mean_wait'] / 60:.1f} "
            f"| {out['compute.mean_sync_time'] / 60:.1f} "
            f"| {out['analysis.mean_sync_time'] / 60:.1f} "
            f"| {100 * out['compute.lost_share']:.2f} / {100 * out['analysis.lost_share']:.2f} |",
            flush=True,
        )


def ticks(paired: float, seed: int) -> None:
    log: list[tuple[str, tuple[int, ...]]] = []
    release_due = domain.Domain._release_due

    def recorded(self: domain.Domain) -> list[int]:
        due = release_due(self)
        if due:
            log.append((self.name, tuple(self._jobs[i].job_id for i in due)))
        return due

    domain.Domain._release_due = recorded  # type: ignore[method-assign]
    try:
        env = CellEnv(traces={TRACE: str(find_trace(TRACE))})
        params: dict[str, Scalar] = {**PARAMS, "proportion": paired, "release_yield": False}
        out = run_cell(params, seed, env)
    finally:
        domain.Domain._release_due = release_due  # type: ignore[method-assign]
    print(f"outcome: {out['outcome']}")
    for name in ("compute", "analysis"):
        seq = [ids for n, ids in log if n == name]
        j = len(seq) - 1
        while j >= 2 and seq[j] == seq[j - 2]:
            j -= 1
        sizes = sorted({len(ids) for ids in seq[j:]})
        print(
            f"{name}: {len(seq)} ticks with releases; the last {len(seq) - j} release the "
            f"same jobs as two ticks before ({' or '.join(map(str, sizes))} jobs a tick)"
        )


if __name__ == "__main__":
    if sys.argv[1] == "--ticks":
        ticks(float(sys.argv[2]), int(sys.argv[3]))
    else:
        main(Path(sys.argv[1]))
