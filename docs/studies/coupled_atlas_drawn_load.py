"""Atlas's base mean wait and slowdown on drawn months of its log, by packed load.

Reads the base runs (no coscheduling) of the sweep of
``docs/studies/coupled-atlas-drawn-load.toml`` and, for load 0.94, those of
``docs/claims/coupled-atlas-2min.toml`` (the same 20 drawn months), and prints a
Markdown table: mean over the months with the 95% Student-t interval.

    python docs/studies/coupled_atlas_drawn_load.py runs/coupled-atlas-drawn-load \\
        runs/coupled-atlas-2min
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from cosched.experiments.stats import mean_ci
from cosched.experiments.store import read_results


def main(loads: Path, study: Path) -> None:
    a, _ = read_results(loads)
    b, _ = read_results(study)
    b = b[(b["scheme"] == "base") & (b["load"] == 0.25)].assign(compute_load=0.94)
    rows = pd.concat([a[a["scheme"] == "base"], b], ignore_index=True)
    print("| packed load | months | base mean wait (min) | base mean slowdown |")
    print("|---|---|---|---|")
    for load, g in rows.groupby("compute_load"):
        w = mean_ci((g["compute.mean_wait"] / 60).to_numpy())
        s = mean_ci(g["compute.mean_slowdown"].to_numpy())
        print(
            f"| {load:g} | {len(g)} | {w.mean:.1f} [{w.low:.1f}, {w.high:.1f}] "
            f"| {s.mean:.1f} [{s.low:.1f}, {s.high:.1f}] |"
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
