"""The README's status column for the reproductions, generated from their stored claims.

Each reproduction's report carries its claim table in ``DIR/results.parquet`` (metadata
``claim_table``; also written as ``DIR/claims.parquet``: the paper's claims judged on
the stored results: :mod:`cosched.experiments.claims`). This script keeps a readable
copy of each as ``docs/claims/NAME.csv`` (with the command that produced it) and writes
the status cell of the reproduction's row in README.md's "What it does today" table from
those copies: how many claims agree, partly agree and disagree, and from which run.

    python scripts/readme_status.py --store lomarc=runs/lomarc --store coupled=runs/coupled
    python scripts/readme_status.py            # rewrite README.md from docs/claims/*.csv
    python scripts/readme_status.py --check    # exit 1 if README.md is not up to date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from cosched.experiments.store import read_claims, read_results

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "docs" / "claims"
#: Reproduction -> the module named first in its README row's "where" cell.
ROWS = {
    "lomarc": "`cosched.lomarc`",
    "nodeshare": "`cosched.nodeshare`",
    "dyncosched": "`cosched.timesharing`",
    "fcs": "`cosched.timesharing.fcs_experiment`",
    "coupled": "`cosched.coupled`",
}
ORDER = ("agrees", "partly", "disagrees", "not run")


def copy_store(name: str, store: Path) -> Path:
    """The claim table ``store/results.parquet`` carries to ``docs/claims/NAME.csv``,
    with the command that produced the results."""
    if not (store / "results.parquet").is_file():
        sys.exit(f"readme_status: {store / 'results.parquet'} not found")
    frame = read_claims(store)
    if frame.empty:
        sys.exit(f"readme_status: {store / 'results.parquet'} carries no claim table: "
                 f"run `cosched report {store}` first")  # fmt: skip
    _, meta = read_results(store)
    frame.insert(0, "command", meta.get("command", ""))
    CLAIMS.mkdir(parents=True, exist_ok=True)
    out = CLAIMS / f"{name}.csv"
    frame.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")
    return out


def status(name: str, frame: pd.DataFrame) -> str:
    """The status cell of one reproduction."""
    counts = frame["verdict"].value_counts().to_dict()
    words = {"agrees": "agree", "disagrees": "disagree"}
    judged = ", ".join(f"{counts[k]} {words.get(k, k)}" for k in ORDER if counts.get(k))
    command = str(frame["command"].iloc[0]) if len(frame) else "?"
    seeds = int(frame["seeds"].max()) if len(frame) else 0
    over = "1 seed" if seeds == 1 else f"up to {seeds} seeds"
    return (
        f"built and reproduced; of the paper's {len(frame)} claims {judged} "
        f"(`{command}`, {over}; docs/claims/{name}.csv)"
    )


def _where(line: str) -> str:
    """The first module of a "What it does today" row's second cell ('' otherwise)."""
    parts = line.split(" | ")
    if not line.startswith("| ") or len(parts) < 3:
        return ""
    return parts[1].split(" ")[0]


def render(readme: str) -> str:
    """README.md with the status cell of every reproduction with a claims copy."""
    lines = readme.split("\n")
    for name, module in ROWS.items():
        path = CLAIMS / f"{name}.csv"
        if not path.is_file():
            continue
        cell = status(name, pd.read_csv(path, keep_default_na=False, na_values=[""]))
        hits = [i for i, line in enumerate(lines) if _where(line) in (module, module + ",")]
        if len(hits) != 1:
            sys.exit(f"readme_status: expected one README row for {module}, found {len(hits)}")
        parts = lines[hits[0]].split(" | ")
        parts[-1] = cell + " |"
        lines[hits[0]] = " | ".join(parts)
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md is stale")
    args = ap.parse_args()
    for item in args.store:
        name, sep, folder = item.partition("=")
        if not sep or name not in ROWS:
            sys.exit(f"readme_status: --store wants NAME=DIR with NAME in {', '.join(ROWS)}")
        print(f"wrote {copy_store(name, Path(folder)).relative_to(ROOT)}")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    new = render(readme)
    if args.check:
        if new != readme:
            print("README.md status column is stale: run python scripts/readme_status.py")
            return 1
        return 0
    if new != readme:
        (ROOT / "README.md").write_text(new, encoding="utf-8")
        print("updated README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
