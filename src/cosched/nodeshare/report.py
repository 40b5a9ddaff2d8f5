"""The node-sharing report section: tables and figures beside the paper's.

:func:`report_section` reads the results table of the nodeshare spec and the per-cell
``turnaround`` tables (the store alone) and is called by the one report builder.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from cosched.experiments.stats import mean_ci
from cosched.nodeshare import outputs

__all__ = ["report_section"]

Key = tuple[int, str, int]
#: A results row as the tables read it (:func:`_record`): the counters nested by group
#: (``execution``, ``blocked``, ``configurations``), the cell's turnarounds an array.
Record = dict[str, Any]
#: What a table cell shows of one record (seconds, scaled by the caller).
Measure = Callable[[Record], float]
POLICIES = ("fcfs", "easy", "easy_nowindow", "cosched", "combined", "prior", "combined_prior")
RESTRICT = ("cosched", "Max_One_High", "High_Rq_Low", "Max_One_HM")
#: The two interference arms: the default preset (fitted to the paper's Figure 3) and
#: cosched's prior guesses.
ARMS = (("Figure-3 preset, the default", ""), ("prior guesses", "_prior"))


def arm(variant: str, suffix: str) -> str:
    """The variant name of ``variant`` in an interference arm (``cosched`` -> ``prior``)."""
    if not suffix:
        return variant
    return "prior" if variant == "cosched" else f"{variant}{suffix}"


def _plt() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, out: Path, name: str) -> str:
    """Write ``fig`` as ``out/name`` (laid out tight, 110 dpi), close it and give ``name``."""
    fig.tight_layout()
    fig.savefig(out / name, dpi=110)
    _plt().close(fig)
    return name


def _over(
    groups: dict[Key, list[Record]] | None,
    key: Key,
    value: Measure,
    scale: float = 3600.0,
) -> str:
    """``mean ± half`` over the seeds of ``key`` of ``value(record) / scale`` (the
    95% Student-t interval; just the value with one seed)."""
    if groups is None or key not in groups:
        return "n/a"
    return mean_ci(np.asarray([value(r) for r in groups[key]], dtype=float) / scale).text(4)


def _err(groups: dict[Key, list[Record]] | None, key: Key, value: Measure) -> float:
    """Half-width of the 95% interval over the seeds of ``key`` (0 with one seed)."""
    if groups is None or key not in groups:
        return 0.0
    half = mean_ci(np.asarray([value(r) for r in groups[key]], dtype=float)).half
    return 0.0 if np.isnan(half) else float(half)


def _pct(new: float, old: float) -> str:
    return f"{100 * (old - new) / old:+.1f}%"


def _fig_policies(
    out: Path,
    chosen: dict[Key, Record],
    traces: list[int],
    groups: dict[Key, list[Record]] | None = None,
) -> str:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    pols = [p for p in POLICIES if all((t, p, 1158) in chosen for t in traces)]
    width = 0.8 / len(pols)
    for k, pol in enumerate(pols):
        xs = np.arange(len(traces)) + (k - (len(pols) - 1) / 2) * width
        ta = [chosen[(t, pol, 1158)]["mean_turnaround"] / 3600 for t in traces]
        wt = [chosen[(t, pol, 1158)]["mean_wait"] / 3600 for t in traces]
        # Error bars: the 95% interval of the mean over the seeds, around the median seed.
        ea = [_err(groups, (t, pol, 1158), lambda g: g["mean_turnaround"] / 3600) for t in traces]
        ew = [_err(groups, (t, pol, 1158), lambda g: g["mean_wait"] / 3600) for t in traces]
        axes[0].bar(xs, ta, width, yerr=ea, capsize=2, label=pol)
        axes[1].bar(xs, wt, width, yerr=ew, capsize=2, label=pol)
    for ax, title in zip(axes, ("mean turnaround (h)", "mean wait (h)"), strict=True):
        ax.set_xticks(range(len(traces)), [f"Trace{t}" for t in traces])
        ax.set_title(title)
    axes[0].legend(fontsize=8)
    return _save(fig, out, "fig1_policies.png")


def _fig_nodes(
    out: Path,
    chosen: dict[Key, Record],
    groups: dict[Key, list[Record]] | None = None,
) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for pol in ("fcfs", "easy", "cosched", "prior"):
        pts = sorted(
            (n, r["mean_turnaround"] / 3600)
            for (t, p, n), r in chosen.items()
            if t == 1 and p == pol
        )
        errs = [_err(groups, (1, pol, n), lambda g: g["mean_turnaround"] / 3600) for n, _ in pts]
        ax.errorbar(
            [p[0] for p in pts], [p[1] for p in pts], yerr=errs, marker="o", capsize=2, label=pol
        )
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("mean turnaround (h)")
    ax.legend()
    return _save(fig, out, "fig4_nodes.png")


def _fig_restrict(
    out: Path,
    chosen: dict[Key, Record],
    suffix: str = "",
    groups: dict[Key, list[Record]] | None = None,
) -> str:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    rs = [chosen[(1, arm(v, suffix), 1158)] for v in RESTRICT]
    wait = [r["mean_wait"] / 3600 for r in rs]
    exe = [(r["mean_turnaround"] - r["mean_wait"]) / 3600 for r in rs]
    names = ["No_Restrict", *RESTRICT[1:]]
    keys = [(1, arm(v, suffix), 1158) for v in RESTRICT]
    ew = [_err(groups, k, lambda g: g["mean_wait"] / 3600) for k in keys]
    ee = [_err(groups, k, lambda g: (g["mean_turnaround"] - g["mean_wait"]) / 3600) for k in keys]
    axes[0].bar(names, wait, yerr=ew, capsize=2, label="wait")
    axes[0].bar(names, exe, bottom=wait, yerr=ee, capsize=2, label="execution")
    axes[0].set_ylabel("hours")
    axes[0].legend()
    axes[1].bar(names, [r["configurations"]["degraded"] for r in rs])
    axes[1].set_title("jobs in degraded configurations")
    for ax in axes:
        ax.tick_params(axis="x", labelsize=7)
    return _save(fig, out, f"fig5_restrictions{suffix}.png")


def _table1(chosen: dict[Key, Record], paper: dict[str, Any]) -> list[str]:
    import pandas as pd

    def frame(v: str) -> pd.DataFrame:
        ta = np.asarray(chosen[(1, v, 1158)]["turnaround"])
        ids = np.arange(len(ta))
        return pd.DataFrame({"job_id": ids, "submit_time": 0.0, "end_time": ta})

    lines = ["| policies | source | 0% | 25% | 50% | 75% | 100% |", "|---|---|---|---|---|---|---|"]
    for a, b, label in (
        ("easy", "fcfs", "easy vs fcfs"),
        ("fcfs", "cosched", "fcfs vs cosched"),
        ("easy", "cosched", "easy vs cosched"),
    ):
        theirs = " | ".join(f"{v:g}" for v in paper["table1"][label])
        lines.append(f"| {label} | paper | {theirs} |")
        for source, suffix in (("cosched", ""), ("cosched, prior guesses", "_prior")):
            bb = arm(b, suffix)
            if (b == "fcfs" and suffix) or (1, bb, 1158) not in chosen:
                continue
            q = outputs.ratio_quartiles(outputs.turnaround_ratios(frame(a), frame(bb)))
            ours = " | ".join(f"{v:.4g}" for v in q.values())
            lines.append(f"| {label} | {source} | {ours} |")
    return lines


def _turnaround_rows(
    chosen: dict[Key, Record], traces: list[int], names: Iterable[str]
) -> Iterator[tuple[Key, Record, str]]:
    """The rows of a table of turnarounds at 1,158 nodes: per trace, each of ``names``
    that ran, its key, record and first cells (trace, name, mean wait and turnaround in
    hours, turnaround against EASY's and FCFS's)."""
    for t in traces:
        easy, fcfs = chosen[(t, "easy", 1158)], chosen[(t, "fcfs", 1158)]
        for name in names:
            key = (t, name, 1158)
            r = chosen.get(key)
            if r is None:
                continue
            yield (
                key,
                r,
                (
                    f"| Trace{t} | {name} | {r['mean_wait'] / 3600:.2f} | "
                    f"{r['mean_turnaround'] / 3600:.2f} | "
                    f"{_pct(r['mean_turnaround'], easy['mean_turnaround'])} | "
                    f"{_pct(r['mean_turnaround'], fcfs['mean_turnaround'])} |"
                ),
            )


def _sensitivity(
    chosen: dict[Key, Record],
    traces: list[int],
    groups: dict[Key, list[Record]] | None = None,
) -> list[str]:
    """Coscheduling under the untabulated-parameter alternatives, beside the baselines."""
    lines = [
        "## Interference sensitivity (1,158 nodes)",
        "",
        "`cosched`: the default interference preset `fig3` (speedups and victim weights "
        "fitted to the paper's Figure 3, execution-time changes only, by "
        "`docs/studies/fit_nodeshare_fig3.py`); `prior`: cosched's prior guesses; `no_speedup`: "
        "no memory speedup from spreading (Trace1 only). Mean turnaround in hours.",
        "",
        "| trace | variant | mean wait | mean turnaround | vs EASY | vs FCFS "
        "| mean turnaround over seeds (h) |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, _, cells in _turnaround_rows(chosen, traces, ("cosched", "prior", "no_speedup")):
        lines.append(cells + f" {_over(groups, key, lambda g: g['mean_turnaround'])} |")
    return [*lines, ""]


_GROUPS = ("execution", "blocked", "configurations")


def _record(row: Mapping[str, Any], out: Path) -> Record:
    """A results row as the record the tables read: groups nested, counts as ints."""
    rec: Record = {g: {} for g in _GROUPS}
    for k, v in row.items():
        group, dot, name = k.partition(".")
        if dot and group in _GROUPS:
            if v is not None and not (isinstance(v, float) and math.isnan(v)):
                rec[group][name] = int(v) if float(v).is_integer() else v
        else:
            rec[k] = v
    for k in ("trace", "nodes", "seed", "jobs", "dropped_too_wide"):
        rec[k] = int(rec[k])
    path = out / "turnaround" / f"{rec['key']}.parquet"
    rec["turnaround"] = pd.read_parquet(path)["turnaround"].to_numpy() if path.is_file() else []
    return rec


def _median(recs: list[Record]) -> Record:
    """The seed with the median mean turnaround (the paper's choice)."""
    ordered = sorted(recs, key=lambda r: (r["mean_turnaround"], r["seed"]))
    return ordered[(len(ordered) - 1) // 2]


def report_section(results: pd.DataFrame, out: Path, meta: Mapping[str, Any]) -> list[str]:
    """The node-sharing section of the report (writes its figures into ``out``)."""
    ok = results[results["status"] == "ok"]
    groups: dict[Key, list[Record]] = {}
    for row in ok.to_dict("records"):
        rec = _record(row, out)
        groups.setdefault((rec["trace"], rec["variant"], rec["nodes"]), []).append(rec)
    chosen = {k: _median(v) for k, v in sorted(groups.items())}
    if not chosen:
        return ["## Node sharing with malleable configurations", "", "(no finished cells)"]
    try:
        return _lines(out, chosen, groups)
    except KeyError as exc:  # a spec cut down (cosched sweep of an edited copy)
        key = exc.args[0]
        if not (isinstance(key, tuple) and len(key) == 3):
            raise
        trace, variant, nodes = key
        return [
            "## Node sharing with malleable configurations: reproduction",
            "",
            f"(the tables need the cells of variant {variant!r} on Trace{trace} at "
            f"{nodes} nodes, which this run does not have; the claims above are judged on "
            "the cells it has)",
            "",
        ]


def _lines(out: Path, chosen: dict[Key, Record], groups: dict[Key, list[Record]]) -> list[str]:
    """The section's Markdown from the median cells (and all seeds for the intervals)."""
    from cosched.nodeshare.experiment import PAPER

    traces = sorted({t for t, _, n in chosen if n == 1158})
    jobs = max(r["jobs"] for r in chosen.values())
    lines = [
        "## Node sharing with malleable configurations: reproduction",
        "",
        f"{int(jobs):,} jobs a trace window (RICC-2010-2, "
        "node count kept, on 1,158 x 16, at most 3 jobs a node). Coscheduling cells: the "
        "seed with the median mean turnaround; the mean turnaround over the seeds with the "
        "half-width of its 95% Student-t interval is in the last column (and in every table "
        "below; figures draw the median seed with that interval as error bars). Paper: Cab "
        "trace (not available).",
        "",
        "### Mean turnaround and wait (hours), 1,158 nodes",
        "",
        "| trace | policy | mean wait | mean turnaround | vs EASY | vs FCFS | seeds | CV "
        "| utilization | offered load | mean turnaround over seeds (h) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, r, first in _turnaround_rows(chosen, traces, POLICIES):
        seeds = [g["mean_turnaround"] for g in groups[key]]
        cv = float(np.std(seeds) / np.mean(seeds)) if len(seeds) > 1 else 0.0
        ci = mean_ci(np.asarray(seeds) / 3600)
        lines.append(
            first + f" {len(seeds)} | "
            f"{100 * cv:.2f}% | {r['utilization']:.3f} | {r['offered_load']:.2f} | "
            f"{ci.text(4)} |"
        )
    lines += [
        "",
        "Sign: +x% = x% lower (better) than the baseline. Paper: coscheduling "
        f"{PAPER['cosched_vs_easy_turnaround']} than EASY, {PAPER['cosched_vs_fcfs_turnaround']}"
        f" than FCFS; combined {PAPER['combined_vs_cosched']} than coscheduling alone.",
        "Utilization: busy node-equivalents / (nodes x makespan), a shared job counting the "
        "cores it holds (the engine's `occupancy`), a node-exclusive job its whole nodes; "
        "offered load: core-seconds of the base configurations / (cores x submit span).",
        "",
        f"![policies]({_fig_policies(out, chosen, traces, groups)})",
        "",
        "## Table 1: per-job turnaround ratios (Trace1)",
        "",
        *_table1(chosen, PAPER),
        "",
        "## Execution-time changes under coscheduling (Trace1)",
        "",
        "| | " + " | ".join(PAPER["execution"]) + " |",
        "|---|" + "---|" * len(PAPER["execution"]),
        "| paper (100,000 jobs) | "
        + " | ".join(str(v) for v in PAPER["execution"].values())
        + " |",
        *[
            f"| {label} | "
            + " | ".join(str(chosen[(1, v, 1158)]["execution"][k]) for k in PAPER["execution"])
            + " |"
            for label, v in (
                ("cosched (default: Figure-3 preset)", "cosched"),
                ("cosched, prior guesses", "prior"),
                ("cosched, no memory speedup", "no_speedup"),
            )
            if (1, v, 1158) in chosen
        ],
        "",
        "## Table 2: jobs blocked (fragmentation, capacity), Trace1",
        "",
        "| version | paper | cosched (default: Figure-3 preset) | cosched (prior guesses) |",
        "|---|---|---|---|",
    ]
    for label, variant in (("with degraded", "cosched"), ("without degraded", "no_degraded")):
        paper = PAPER["table2"][label]
        cols = []
        for _name, suffix in ARMS:
            found = chosen.get((1, arm(variant, suffix), 1158))
            b = found["blocked"] if found else None
            cols.append(f"{b['fragmentation']:,} / {b['capacity']:,}" if b else "not run")
        lines.append(f"| {label} | {paper[0]:,} / {paper[1]:,} | " + " | ".join(cols) + " |")
    for title, suffix in ARMS:
        if any((1, arm(v, suffix), 1158) not in chosen for v in RESTRICT):
            continue
        lines += [
            "",
            f"## Restrictions (Trace1, {title})",
            "",
            "| variant | mean wait (h) | mean execution (h) | degraded (paper) | degraded "
            "| mean wait over seeds (h) | mean execution over seeds (h) |",
            "|---|---|---|---|---|---|---|",
        ]
        for v in RESTRICT:
            r = chosen[(1, arm(v, suffix), 1158)]
            name = "No_Restrict" if v == "cosched" else v
            exe = (r["mean_turnaround"] - r["mean_wait"]) / 3600
            k = (1, arm(v, suffix), 1158)
            lines.append(
                f"| {name} | {r['mean_wait'] / 3600:.2f} | {exe:.2f} | "
                f"{PAPER['degraded_used'][name]:,} | {r['configurations']['degraded']:,} | "
                f"{_over(groups, k, lambda g: g['mean_wait'])} | "
                f"{_over(groups, k, lambda g: g['mean_turnaround'] - g['mean_wait'])} |"
            )
        lines += ["", f"![restrictions]({_fig_restrict(out, chosen, suffix, groups)})"]
    lines += ["", "## Rate reading (Trace1)", ""]
    for title, suffix in ARMS:
        dyn = chosen.get((1, arm("cosched", suffix), 1158))
        at = chosen.get((1, arm("at_start", suffix), 1158))
        if dyn and at:
            kd = (1, arm("cosched", suffix), 1158)
            ka = (1, arm("at_start", suffix), 1158)
            lines.append(
                f"- {title}: dynamic (default) mean turnaround "
                f"{dyn['mean_turnaround'] / 3600:.2f} h "
                f"({_over(groups, kd, lambda g: g['mean_turnaround'])} over seeds); at-start "
                f"(newcomer only): {at['mean_turnaround'] / 3600:.2f} h "
                f"({_over(groups, ka, lambda g: g['mean_turnaround'])})."
            )
    lines += [
        "",
        *_sensitivity(chosen, traces, groups),
        "## Node count (Trace1)",
        "",
        f"![nodes]({_fig_nodes(out, chosen, groups)})",
        "",
        "Mean turnaround (h) over the seeds, ± the 95% interval.",
        "",
        "| nodes | fcfs | easy | cosched | cosched (prior guesses) "
        "| jobs dropped (wider than the machine) |",
        "|---|---|---|---|---|---|",
    ]
    for n in sorted({n for t, _, n in chosen if t == 1}):
        row = [chosen.get((1, p, n)) for p in ("fcfs", "easy", "cosched", "prior")]
        if row[0] and row[1] and row[2]:
            cells = [
                _over(groups, (1, p, n), lambda g: g["mean_turnaround"]) if r else "not run"
                for p, r in zip(("fcfs", "easy", "cosched", "prior"), row, strict=True)
            ]
            dropped = row[0].get("dropped_too_wide", 0)
            lines.append(f"| {n} | " + " | ".join(cells) + f" | {dropped:,} |")
    lines += [
        "",
        "Placement time per job and wall time are in the metadata of `cells/*.parquet` "
        "(`Store(DIR).info(key)['diagnostic']`; wall-clock, not part of results.parquet).",
        "",
    ]
    return [lines[0], *(("#" + line) if line.startswith("## ") else line for line in lines[1:])]
