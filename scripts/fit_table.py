"""The table of docs/validate.md: `cosched validate --fit` on archive logs, held out.

For each log: plain EASY, the configurations each selection rule of
``cosched.experiments.fit.choose`` chooses among the same runs (the fit's, ``nested``,
and the alternatives), each with its held-out KS and share started within an hour, the
configuration chosen and the wall time with the machine's load average, and the CPU
time of the process (the fit runs in it, one worker: on a shared machine the wall time
says more about the load than about the fit). One JSON a log
under ``--store`` (a log already there is not run again); ``--write`` renders every
stored log into docs/validate.md between the table's markers.

    python scripts/fit_table.py --store runs/fit-table KTH-SP2-1996-2.1 SDSC-SP2-1998-4.2
    python scripts/fit_table.py --store runs/fit-table --store runs/more --write docs/validate.md
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

TRACES = Path(os.environ.get("COSCHED_TRACES", "/work/shared/traces"))
BEGIN, END = "<!-- fit-table: begin -->", "<!-- fit-table: end -->"


def _trace(name: str) -> Path:
    for cand in (TRACES / f"{name}-cln.swf.gz", TRACES / f"{name}.swf.gz", Path(name)):
        if cand.exists():
            return cand
    raise SystemExit(f"fit_table.py: no trace {name} in {TRACES}")


def _fit(path: Path, out: Path, previous: bool) -> dict[str, Any]:
    from cosched.experiments.fit import PLAIN_EASY, RULES, choose, prepare, run_fit
    from cosched.policies.base import policy_class
    from cosched.policies.recorded import Recorded
    from cosched.policies.requirements import MachineFlags, fit_workload
    from cosched.workload.loader import load_workload

    load = os.getloadavg()[0]
    started = time.perf_counter()
    cpu = time.process_time()  # the fit runs in this process (one worker)
    w = load_workload(path)
    w_rec, _, _ = fit_workload(Recorded.requires, w, MachineFlags())
    _, platform, _ = fit_workload(policy_class("easy").requires, w_rec, MachineFlags())
    inp = prepare(w_rec, platform)
    kw: dict[str, Any] = {"first_rung": sys.maxsize, "outages": False} if previous else {}
    res = run_fit(inp, out, **kw)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu
    c, pe = res.row(res.chosen), res.row(PLAIN_EASY)
    rules = {}
    for rule in RULES:  # every selection rule on the same configurations' scores
        b = choose(res, rule)
        r = res.row(b)
        rules[rule] = {"chosen": b.label(), "held_ks": float(r["held.ks"]),
                       "held_within": float(r["held.within"])}  # fmt: skip
    from cosched.cli._fit import held_judgement
    from cosched.experiments.fit import lacks

    level = held_judgement(res, c).level
    return {
        "rules": rules,
        "level": level,
        "lacks": lacks(res, level),
        "held_score": float(c["held.score"]),
        "plain_score": float(pe["held.score"]),
        "jobs": [res.input.fit_jobs, len(res.input.workload) - res.input.fit_jobs],
        "configurations": len(res.table),
        "whole": int(res.whole().sum()),
        "chosen": res.chosen.label(),
        "held_ks": float(c["held.ks"]),
        "held_within": float(c["held.within"]),
        "plain_ks": float(pe["held.ks"]),
        "plain_within": float(pe["held.within"]),
        "wall": wall,
        "cpu": cpu,
        "load": [load, os.getloadavg()[0]],
        "intervals": len(inp.unavailable),
    }


def run(names: list[str], store: Path, previous: bool) -> None:
    store.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = _trace(name)
        for kind in ("new", "previous") if previous else ("new",):
            dest = store / f"{name}.{kind}.json"
            if dest.exists():
                continue
            rec = _fit(path, store / f"{name}.{kind}", kind == "previous")
            dest.write_text(json.dumps(rec, indent=1) + "\n")
            print(f"{name} {kind}: {rec['wall']:.1f} s", flush=True)


def _cell(ks: float, within: float) -> str:
    return f"{ks:.3f} / {100 * within:.1f} %"


def render(stores: list[Path]) -> str:
    """The table: plain EASY, the fit (the ``nested`` rule) and the other selection
    rules on the same configurations; a log's JSON without them (written before the
    rules were recorded) shows its fit alone."""
    from cosched.experiments.fit import RULES

    others = [r for r in RULES if r != "nested"]
    rows = [
        "| log | jobs (fit + held out) | plain EASY: KS / within 1 h | "
        + " | ".join(f"rule `{r}`: KS / within 1 h" for r in others)
        + " | fit (rule `nested`): KS / within 1 h | fit's configuration | fit's "
        "wall time (load at start, end) | fit's CPU time | configurations run whole / "
        "searched |",
        "|---|---|---|" + "---|" * len(others) + "---|---|---|---|---|",
    ]
    found = {f.name: f for store in stores for f in store.glob("*.new.json")}
    for key in sorted(found):
        f = found[key]
        name = f.name.removesuffix(".new.json")
        new = json.loads(f.read_text())
        rules = new.get("rules", {})
        alt = " | ".join(
            _cell(rules[r]["held_ks"], rules[r]["held_within"]) if r in rules else "not run"
            for r in others
        )
        cpu = f"{new['cpu']:.1f} s" if "cpu" in new else "not measured"
        rows.append(
            f"| {name} | {new['jobs'][0]} + {new['jobs'][1]} | "
            f"{_cell(new['plain_ks'], new['plain_within'])} | {alt} | "
            f"{_cell(new['held_ks'], new['held_within'])} | `{new['chosen']}` | "
            f"{new['wall']:.1f} s ({new['load'][0]:.1f}, {new['load'][1]:.1f}) | "
            f"{cpu} | {new['whole']} / {new['configurations']} |"
        )
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="*", help="trace names in the traces folder")
    ap.add_argument(
        "--store", type=Path, action="append", required=True,
        help="where the fits go (the first given); the table reads every one given",
    )  # fmt: skip
    ap.add_argument(
        "--previous", action="store_true",
        help="also run every configuration on the whole log without the outage stage",
    )  # fmt: skip
    ap.add_argument("--write", type=Path, help="the page whose table to regenerate")
    args = ap.parse_args()
    run(args.logs, args.store[0], args.previous)
    table = render(args.store)
    if args.write is None:
        print(table)
        return 0
    text = args.write.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"fit_table.py: {args.write} has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    args.write.write_text(f"{head}{BEGIN}\n{table}\n{END}{tail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
