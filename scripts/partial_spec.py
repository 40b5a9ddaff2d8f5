"""Write a spec listing exactly the finished cells of a run store (an unfinished grid).

    cosched reproduce nodeshare --print-spec > full.toml
    python scripts/partial_spec.py full.toml STORE --name nodeshare-partial > partial.toml
    mkdir -p judged/cells && cp STORE/cells/*.parquet judged/cells/
    cosched sweep partial.toml --out judged        # runs nothing: builds the report and claims

Every configuration of ``full.toml`` with at least one finished seed in ``STORE/cells``
becomes one ``[[grid]]`` entry with exactly those seeds, so the partial spec's cell keys
are a subset of the full spec's (a key hashes the cell function, the parameters and the
seed, not the spec's name) and a sweep over a copy of the store recomputes nothing. The
header comment lists the configurations that have no finished cell.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cosched.experiments.model import load_experiment


def _toml(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", help="the full spec (TOML)")
    ap.add_argument("store", type=Path, help="the run store holding cells/<key>.parquet")
    ap.add_argument("--name", required=True, help="the partial spec's name")
    args = ap.parse_args()
    exp = load_experiment(args.spec)
    done = {p.stem for p in (args.store / "cells").glob("*.parquet")}
    by_config: dict[str, tuple[dict[str, object], list[int], list[int]]] = {}
    for task in exp.tasks():
        config = {k: v for k, v in task.columns.items() if k != "seed"}
        ident = repr(sorted(config.items()))
        entry = by_config.setdefault(ident, (config, [], []))
        (entry[1] if task.key in done else entry[2]).append(int(task.columns["seed"]))
    params = dict(exp.params)
    out = [
        f"# The finished cells of {args.spec} in {args.store} "
        f"({len(done & {t.key for t in exp.tasks()})} of {len(exp.tasks())} cells).",
        "# Configurations (seeds) with no finished cell:",
    ]
    for config, _finished, missing in by_config.values():
        if missing:
            label = ", ".join(
                f"{k}={v}" for k, v in config.items() if k not in params or params[k] != v
            )
            out.append(f"#   {label}: seeds {missing}")
    out += [
        f'name = "{args.name}"',
        f'cell = "{exp.cell}"',
    ]
    for key in ("report", "claims"):
        if exp.data.get(key):
            out.append(f'{key} = "{exp.data[key]}"')
    if exp.traces:
        out.append("traces = [" + ", ".join(_toml(t) for t in exp.traces) + "]")
    out.append("metrics = [" + ", ".join(_toml(m) for m in exp.metrics) + "]")
    out.append("seeds = [" + ", ".join(str(s) for s in exp.seeds) + "]")
    out += ["", "[params]"] + [f"{k} = {_toml(v)}" for k, v in params.items()]
    for config, finished, _ in by_config.values():
        if not finished:
            continue
        out += ["", "[[grid]]"]
        out += [f"{k} = {_toml(v)}" for k, v in config.items()]
        out.append("seeds = [" + ", ".join(str(s) for s in finished) + "]")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
