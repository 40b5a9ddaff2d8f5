"""docs/coupled.md's claim counts and side-by-side verdicts, generated from the claim tables.

The coupled paper's claims are judged on five runs, each stored as a claim table in
docs/claims/: the Intrepid stand-in on Blue Gene/P partitions with the paper's share of
paired jobs (``coupled.csv``, the reproduction), the stand-in with every pair of the
2-minute rule (``coupled-2min.csv``, load study), LLNL Atlas with the same share
(``coupled-atlas.csv``, both machines' months drawn per seed), LLNL Atlas with every
pair of the 2-minute rule on sampled months (``coupled-atlas-2min.csv``, load study),
and the proportion study with the
paper's special analysis workload (``coupled-special.csv``). This
script writes, between the markers ``<!-- coupled-claims:start -->`` and ``<!--
coupled-claims:end -->`` of docs/coupled.md, each run's counts by verdict and its
held-out agreement (the claims its calibrations hold out), then every claim's verdict
on each run; nothing in that block is typed by hand.

    python scripts/coupled_claims.py           # rewrite the block
    python scripts/coupled_claims.py --check   # exit 1 if the block is not up to date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from cosched.experiments.calibration import calibrations
from cosched.experiments.claims import agreement

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "docs" / "claims"
DOC = ROOT / "docs" / "coupled.md"
START, END = "<!-- coupled-claims:start -->", "<!-- coupled-claims:end -->"
#: (table, the family its calibrations are registered under, the parameters of those
#: that applied to the run (empty: all), label).
RUNS = (
    ("coupled", "coupled", (), "Intrepid stand-in, partitions, 7.5% paired"),
    ("coupled-2min", "coupled-2min", (), "Intrepid stand-in, every 2-minute pair, load study"),
    ("coupled-atlas", "coupled-atlas", (), "Atlas, drawn months, 7.5% paired"),
    ("coupled-atlas-2min", "coupled-atlas-2min", (), "Atlas, every 2-minute pair, load study"),
    (
        "coupled-special",
        "coupled-special",
        (),
        "Intrepid stand-in, the paper's 9,219-job analysis workload, proportion study",
    ),
)


def read(name: str) -> pd.DataFrame:
    """``docs/claims/NAME.csv``, less the claims its run has no cell for (``not run``)."""
    t = pd.read_csv(CLAIMS / f"{name}.csv", keep_default_na=False, na_values=[""])
    return t[t["verdict"] != "not run"].reset_index(drop=True)


def _held_out(frame: pd.DataFrame, family: str, params: tuple[str, ...]) -> pd.DataFrame:
    fits = [f for f in calibrations(family) if not params or f.parameter in params]
    held = [any(f.holds_out(str(c)) for f in fits) for c in frame["claim"]]
    return frame[held]


def _value(row: pd.Series) -> str:
    unit = f" {row['unit']}" if isinstance(row["unit"], str) and row["unit"] else ""
    v, lo, hi = (float(row[k]) for k in ("cosched", "cosched_low", "cosched_high"))
    if int(row["seeds"]) >= 2 and lo != hi:
        return f"{v:.3g} [{lo:.3g}, {hi:.3g}]{unit}"
    return f"{v:.3g}{unit}"


def block() -> str:
    """The generated Markdown between the markers."""
    tables = {name: read(name) for name, *_ in RUNS}
    lines = [
        "| run | claims | all counted claims | claims a registered fit holds out | seeds |",
        "|---|---|---|---|---|",
    ]
    for name, family, params, label in RUNS:
        t = tables[name]
        held = _held_out(t, family, params)
        seeds = ", ".join(str(s) for s in sorted(set(t["seeds"].astype(int))))
        held_text = agreement(held).text() if len(held) else "no calibration registered"
        lines.append(
            f"| {label} (`docs/claims/{name}.csv`) | {len(t)} | {agreement(t).text()} | "
            f"{held_text} | {seeds} |"
        )
    lines += ["", "| claim | paper | " + " | ".join(run[-1] for run in RUNS) + " |"]
    lines.append("|---|---|" + "---|" * len(RUNS))
    first = tables[RUNS[0][0]]
    by_run = {name: t.set_index("claim") for name, t in tables.items()}
    for _, row in first.iterrows():
        cells = []
        for name, *_ in RUNS:
            t = by_run[name]
            if row["claim"] in t.index:
                r = t.loc[row["claim"]]
                cells.append(f"{_value(r)}: {r['verdict']}")
            else:
                cells.append("not run")
        lines.append(f"| {row['claim']} | {row['paper']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(doc: str) -> str:
    """``doc`` with the block between the markers replaced."""
    head, start, rest = doc.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise SystemExit(f"coupled_claims: {DOC} lacks the markers {START} ... {END}")
    return f"{head}{START}\n{block()}\n{END}{tail}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/coupled.md is stale")
    args = ap.parse_args()
    doc = DOC.read_text()
    new = render(doc)
    if args.check:
        if new != doc:
            sys.exit(
                "coupled_claims: docs/coupled.md is out of date; run scripts/coupled_claims.py"
            )
        return
    DOC.write_text(new)


if __name__ == "__main__":
    main()
