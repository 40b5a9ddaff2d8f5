"""The LOMARC report section: the paper's numbers beside cosched's, and figures.

:func:`report_section` reads the results table of the lomarc spec (the store alone) and
is called by the one report builder (:mod:`cosched.experiments.report`).

The paper's numbers are the ones its text states (section 6.2 and Table 5); its
figures carry no printed values, so Figures 6-9 are compared through the relative
improvements over PSS the text quotes. Improvement = (PSS - variant) / PSS for times
and makespan, (variant - PSS) / PSS for the utilization efficiency E.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from cosched.experiments.claims import agreement, evaluate
from cosched.experiments.stats import mean_ci
from cosched.lomarc.experiment import (
    METRIC_READINGS,
    PRESETS,
    SETS,
    under_metric_reading,
    under_preset,
)
from cosched.lomarc.policies import VARIANTS

__all__ = ["PAPER_CLAIMS", "PAPER_TABLE5", "aggregate", "readings_markdown", "report_section"]

Key = tuple[str, str, str, str]  # set, workload, mixture, variant

#: (what, variant, metric, mixture, {workload: paper's improvement over PSS in %}).
PAPER_CLAIMS: list[tuple[str, str, str, str, dict[str, float]]] = [
    ("response time", "L-R", "mean_turnaround", "M1", {"W1": 48, "W3": 56}),
    ("rel. bounded response", "L-R", "mean_bounded_slowdown", "M1", {"W1": 50, "W3": 66}),
    ("response time", "L-FM", "mean_turnaround", "M1", {"W1": 40, "W2": 41, "W3": 48}),
    ("rel. bounded response", "L-FM", "mean_bounded_slowdown", "M1",
     {"W1": 47, "W2": 42, "W3": 52}),
    ("response time", "L-N", "mean_turnaround", "M1", {"W1": 23, "W2": 27, "W3": 31}),
    ("rel. bounded response", "L-N", "mean_bounded_slowdown", "M1", {"W1": 7, "W2": 17, "W3": 40}),
    ("makespan", "L-R", "makespan", "M1", {"W1": 5, "W2": 20, "W3": 33}),
    ("utilization efficiency E", "L-U1", "utilization_efficiency", "M1",
     {"W1": 8.5, "W2": 19, "W3": 38}),
    ("utilization efficiency E", "L-U2", "utilization_efficiency", "M1",
     {"W1": 8.5, "W2": 19, "W3": 38}),
    ("utilization efficiency E", "L-R", "utilization_efficiency", "M1",
     {"W1": 8.5, "W2": 19, "W3": 38}),
    ("utilization efficiency E", "L-FM", "utilization_efficiency", "M1",
     {"W1": 6, "W2": 15, "W3": 31}),
    ("utilization efficiency E", "L-N", "utilization_efficiency", "M1",
     {"W1": 2, "W2": 9, "W3": 18}),
    ("response time (Fig. 9)", "L-N", "mean_turnaround", "M2", {"W1": 34}),
    ("rel. bounded response (Fig. 9)", "L-N", "mean_bounded_slowdown", "M2", {"W1": 38}),
]  # fmt: skip

#: Table 5: (variant, workload) -> queue length, medium/long, size_B <= size_A, memory
#: fit, matchable, slowdown <= max, number selected.
PAPER_TABLE5: dict[tuple[str, str], tuple[int, ...]] = {
    ("L-U1", "W1"): (36, 24, 10, 8, 6, 5, 3),
    ("L-U1", "W2"): (81, 45, 21, 12, 10, 8, 4),
    ("L-U1", "W3"): (213, 86, 40, 20, 16, 14, 6),
    ("L-U2", "W1"): (40, 25, 11, 8, 6, 5, 3),
    ("L-U2", "W2"): (77, 49, 25, 16, 12, 11, 5),
    ("L-U2", "W3"): (233, 85, 39, 21, 16, 14, 7),
    ("L-R", "W1"): (36, 24, 13, 11, 8, 7, 3),
    ("L-R", "W2"): (80, 51, 31, 21, 15, 14, 4),
    ("L-R", "W3"): (222, 87, 48, 25, 20, 17, 4),
}
_T5_METRICS = (
    "avg_queue_length",
    "avg_medium_long",
    "avg_size_ok",
    "avg_memory_fit",
    "avg_matchable",
    "avg_slowdown_ok",
    "avg_selected_position",
)
_MEANS = (
    "mean_turnaround",
    "mean_bounded_slowdown",
    "mean_wait",
    "node_busy_utilization",
    "thread_share_utilization",
    "utilization_efficiency",
    "makespan",
    "offered_load",
    "queue_pairs",
    "running_pairs",
    *_T5_METRICS,
)


def aggregate(records: Sequence[Mapping[str, Any]]) -> dict[Key, dict[str, float]]:
    """Means over seeds per (set, workload, mixture, variant); None and NaN skipped.

    Also ``<metric>_ci``: the half-width of the 95% Student-t interval of the mean
    (NaN with one seed).
    """
    acc: dict[Key, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        key = (r["set"], r["workload"], r["mixture"], r["variant"])
        for m in _MEANS:
            v = r.get(m)
            if v is not None and not (isinstance(v, float) and math.isnan(v)):
                acc[key][m].append(float(v))
        acc[key]["seeds"].append(1.0)
    out: dict[Key, dict[str, float]] = {}
    for k, d in acc.items():
        row: dict[str, float] = {"seeds": len(d["seeds"])}
        for m, v in d.items():
            if m != "seeds":
                ci = mean_ci(np.asarray(v))
                row[m], row[f"{m}_ci"] = ci.mean, ci.half
        out[k] = row
    return out


def _variant_rank(v: str) -> tuple[int, str]:
    names = list(VARIANTS)
    return (names.index(v) if v in names else len(names), v)


def _improvement(agg: dict[Key, dict[str, float]], key: Key, metric: str) -> float | None:
    base = agg.get((*key[:3], "PSS"), {}).get(metric)
    value = agg.get(key, {}).get(metric)
    if base is None or value is None or base == 0:
        return None
    if metric == "utilization_efficiency":
        return 100.0 * (value - base) / base
    return 100.0 * (base - value) / base


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:+.1f}%"


def _separated(agg: dict[Key, dict[str, float]], key: Key, metric: str) -> str:
    """Whether the 95% intervals of the variant and of PSS do not overlap."""
    a, b = agg.get(key, {}), agg.get((*key[:3], "PSS"), {})
    if metric not in a or metric not in b:
        return "n/a"
    ha, hb = a.get(f"{metric}_ci", math.nan), b.get(f"{metric}_ci", math.nan)
    if math.isnan(ha) or math.isnan(hb):
        return "one seed"
    return "yes" if abs(a[metric] - b[metric]) > ha + hb else "no"


def _claims_table(agg: dict[Key, dict[str, float]], sets: Sequence[str]) -> list[str]:
    head = "| variant | metric | mixture | workload | paper | " + " | ".join(
        f"cosched {s} | separated from PSS (95%)" for s in sets
    )
    lines = [head + " |", "|" + "---|" * (5 + 2 * len(sets))]
    for what, variant, metric, mixture, paper in PAPER_CLAIMS:
        for workload, value in paper.items():
            ours = [
                f"{_pct(_improvement(agg, (s, workload, mixture, variant), metric))} | "
                f"{_separated(agg, (s, workload, mixture, variant), metric)}"
                for s in sets
            ]
            lines.append(
                f"| {variant} | {what} | {mixture} | {workload} | {value:+g}% | "
                + " | ".join(ours)
                + " |"
            )
    for workload in ("W1", "W2", "W3"):
        ours = [_pct(_improvement(agg, (s, workload, "M1", "AC"), "mean_turnaround")) for s in sets]
        lines.append(
            f"| AC | response time | M1 | {workload} | worse than PSS (< 0) | "
            + " | ".join(ours)
            + " |"
        )
    return lines


def _absolute_table(agg: dict[Key, dict[str, float]], set_name: str) -> list[str]:
    lines = [
        "| workload | mixture | variant | seeds | mean response (h) | rel. bounded response | "
        "utilization (node-busy) | thread share | E | makespan (days) | offered load | "
        "pairs (queue / running) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def pm(d: dict[str, float], m: str, scale: float, fmt: str) -> str:
        if m not in d:  # a store written before the metric existed
            return "n/a"
        half = d.get(f"{m}_ci", math.nan)
        text = f"{d[m] / scale:{fmt}}"
        return text if math.isnan(half) else f"{text} ± {half / scale:{fmt}}"

    for (s, w, m, v), d in agg.items():
        if s != set_name:
            continue
        lines.append(
            f"| {w} | {m} | {v} | {d['seeds']:.0f} | {pm(d, 'mean_turnaround', 3600, '.2f')} | "
            f"{pm(d, 'mean_bounded_slowdown', 1, '.2f')} | "
            f"{pm(d, 'node_busy_utilization', 1, '.3f')} | "
            f"{pm(d, 'thread_share_utilization', 1, '.3f')} | "
            f"{pm(d, 'utilization_efficiency', 1, '.3f')} | {pm(d, 'makespan', 86400, '.1f')} | "
            f"{d['offered_load']:.3f} | {d.get('queue_pairs', 0):.0f} / "
            f"{d.get('running_pairs', 0):.0f} |"
        )
    return lines


def _table5(agg: dict[Key, dict[str, float]], sets: Sequence[str]) -> list[str]:
    lines = [
        "| variant | workload | source | queue | medium/long | size_B <= size_A | memory fit "
        "| matchable | slowdown <= max | selected (position) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (variant, workload), paper in PAPER_TABLE5.items():
        lines.append(
            f"| {variant} | {workload} | paper | " + " | ".join(str(x) for x in paper) + " |"
        )
        for s in sets:
            d = agg.get((s, workload, "M1", variant), {})
            cells = [f"{d[m]:.1f}" if m in d else "n/a" for m in _T5_METRICS]
            lines.append(f"| {variant} | {workload} | cosched {s} | " + " | ".join(cells) + " |")
    return lines


def _bar_figure(
    agg: dict[Key, dict[str, float]],
    sets: Sequence[str],
    rows: Sequence[tuple[str, str, str]],
    path: Path,
    title: str,
) -> None:
    """One panel per (set, row); bars per variant, groups per workload."""
    fig = Figure(figsize=(5.5 * len(sets), 3.2 * len(rows)))
    FigureCanvasAgg(fig)
    variants = sorted({v for (_, _, _, v) in agg}, key=_variant_rank)
    for r, (metric, mixture, label) in enumerate(rows):
        for c, s in enumerate(sets):
            ax = fig.add_subplot(len(rows), len(sets), r * len(sets) + c + 1)
            workloads = sorted({w for (ss, w, m, _) in agg if ss == s and m == mixture})
            width = 0.8 / len(variants)
            for k, v in enumerate(variants):
                ds = [agg.get((s, w, mixture, v), {}) for w in workloads]
                ys = [d.get(metric, 0.0) for d in ds]
                err = [d.get(f"{metric}_ci", math.nan) for d in ds]
                err = [0.0 if math.isnan(e) else e for e in err]
                xs = [i + k * width for i in range(len(workloads))]
                ax.bar(xs, ys, width=width, yerr=err, capsize=1.5, label=v)
            ax.set_xticks([i + 0.4 - width / 2 for i in range(len(workloads))], workloads)
            ax.set_title(f"{label} ({mixture}, {s})", fontsize=9)
            if r == 0 and c == 0:
                ax.legend(fontsize=6, ncol=2)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})


def _figures(out: Path, agg: dict[Key, dict[str, float]], sets: Sequence[str]) -> list[str]:
    specs = [
        ("fig6_response.png", "Figure 6: mean response time (s)",
         [("mean_turnaround", "M1", "response time")]),
        ("fig7_bounded.png", "Figure 7: mean relative bounded response time",
         [("mean_bounded_slowdown", "M1", "rel. bounded response")]),
        ("fig8_utilization.png", "Figure 8: utilization and utilization efficiency",
         [("node_busy_utilization", "M1", "utilization"), ("utilization_efficiency", "M1", "E")]),
        ("fig9_mixtures.png", "Figure 9: M2 and M3 on W1",
         [("mean_turnaround", "M2", "response"), ("mean_bounded_slowdown", "M2", "bounded"),
          ("mean_turnaround", "M3", "response"), ("mean_bounded_slowdown", "M3", "bounded")]),
    ]  # fmt: skip
    names = []
    for name, title, rows in specs:
        _bar_figure(agg, sets, rows, out / name, title)
        names.append(f"![{title}]({name})")
    return names


def report_section(results: pd.DataFrame, out: Path, meta: Mapping[str, Any]) -> list[str]:
    """The LOMARC section of the report (writes ``fig6``-``fig9`` PNGs into ``out``)."""
    ok = results[results["status"] == "ok"]
    records = ok.to_dict("records")
    agg = aggregate(records)
    rank = {name: i for i, name in enumerate(SETS)}
    sets = sorted({r["set"] for r in records}, key=lambda s: (rank.get(s, len(rank)), s))
    seeds = sorted({int(r["seed"]) for r in records})
    jobs = sorted({int(r["n_jobs"]) for r in records})
    lines = [
        "## LOMARC reproduction",
        "",
        f"128 single-CPU nodes, {', '.join(map(str, jobs))} Lublin "
        f"jobs per run, seeds {', '.join(map(str, seeds))}, variants "
        f"{', '.join(VARIANTS)}, under section 4.1's slowdown formula read as Table 2's "
        "worked example needs it (`overlap`, the default); each pairing variant also "
        "under the `printed` preset (the formula as printed, `L-R-printed`, ...); also "
        "L-R-np (L-R without the prediction of arrivals) and L-R-own (an arrival's "
        "response read as its own work alone); M1 on W1-W3, M2 and M3 on "
        "W1. Values are means over seeds (± the half-width of "
        "the 95% Student-t interval where there are several seeds; error bars in the "
        "figures likewise). Workloads: the "
        "typeless (single-class) Lublin model with the paper's inter-arrival shapes "
        "(`paper-alpha`: 10.23 / 9.83 / 8.83 for W1-W3, Table 4; 10.23 is the typeless "
        "model's default). Readings and differences: docs/lomarc.md.",
        "",
        "### The paper's stated improvements over PSS beside cosched's (Figures 6-9)",
        "",
        "Positive = better than PSS (shorter times, higher E); from the means over seeds. "
        "'separated': the variant's and PSS's 95% intervals do not overlap, so these seeds "
        "resolve the difference; 'no': they do not; 'one seed': no interval (--quick).",
        "",
        *_claims_table(agg, sets),
        "",
        "### Table 5: candidates left after each constraint (searches in the queue)",
        "",
        "cosched counts per search in the waiting queue; `selected` is the mean 1-based "
        "position of the chosen partner among the candidates left.",
        "",
        *_table5(agg, sets),
        "",
    ]
    lines += readings_markdown(results)
    for s in sets:
        lines += [f"### Absolute values: {s}", "", *_absolute_table(agg, s), ""]
    lines += ["### Figures", "", *_figures(out, agg, sets), ""]
    return lines


def readings_markdown(results: pd.DataFrame) -> list[str]:
    """Every claim judged under the default readings and under each preset, side by
    side (the claim table and the agreement figure are the default's)."""
    # Imported here: the claims module reads this module's tables of the paper.
    from cosched.lomarc.claims import claims

    default = evaluate(claims(), results, "lomarc")
    lines = [
        "### The slowdown readings side by side",
        "",
        "The claim table above judges the default readings: section 4.1's slowdown "
        "formula read as Table 2's worked example needs it (`overlap`), and utilization "
        "as the node-busy share. Each preset runs the pairing variants it can change "
        "again under its reading (`<variant>-<preset>`; PSS never pairs and serves "
        "every reading, and a variant a preset cannot change keeps its default runs); "
        "a metric reading judges the same runs on another column. Each is judged by "
        f"the same claims. Defaults: {agreement(default).text()}.",
        "",
    ]
    tables = {p: evaluate(claims(), under_preset(results, p), "lomarc") for p in PRESETS}
    for preset, table in tables.items():
        given = ", ".join(f"{k}={v}" for k, v in PRESETS[preset].items())
        lines.append(f"Preset `{preset}` ({given}): {agreement(table).text()}.")
    for reading, columns in METRIC_READINGS.items():
        read = under_metric_reading(results, reading)
        if read is None:
            continue
        tables[reading] = evaluate(claims(), read, "lomarc")
        given = ", ".join(f"{k} read as {v}" for k, v in columns.items())
        lines.append(f"Metric reading `{reading}` ({given}): {agreement(tables[reading]).text()}.")
    heads = " | ".join(f"{p} | {p} verdict" for p in tables)
    lines += [
        "",
        f"| claim | paper | default (overlap) | verdict | {heads} |",
        "|---|---|---|---|" + "---|---|" * len(tables),
    ]
    for k, r in enumerate(default.itertuples(index=False)):
        cells = [f"{_num(r.cosched)} | {r.verdict}"]
        cells += [f"{_num(t['cosched'].iloc[k])} | {t['verdict'].iloc[k]}" for t in tables.values()]
        lines.append(f"| {r.claim} | {r.paper} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _num(v: float) -> str:
    return "n/a" if math.isnan(v) else f"{v:.3g}"
