"""The coupled report section: figures, tables, the paper beside cosched.

:func:`report_section` reads the results table of the coupled spec (the store alone)
and is called by the one report builder (:mod:`cosched.experiments.report`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from cosched.coupled.domain import DEFAULT_RELEASE_PERIOD
from cosched.coupled.experiment import MACHINES, SCHEMES
from cosched.coupled.workloads import (
    ANALYSIS_PLATFORM,
    ANALYSIS_TRACE,
    COMPUTE_PLATFORM,
    COMPUTE_TRACE,
)
from cosched.experiments.stats import Interval, mean_ci
from cosched.workload.models.intrepid import INTREPID_PLATFORM

__all__ = ["PAPER", "mean_over_seeds", "report_section"]

#: The paper's findings (section V-D/E), as stated there.
PAPER = {
    "cost": "Intrepid: extra mean wait under 4 min (load 0.25) and 10 min (0.5), 42 min at "
    "0.75 (base 61 min); Eureka: extra wait under 5 min except YY at 0.5 (+7) and HH at "
    "0.75 (+8).",
    "sync": "Hold gives shorter sync time than yield on the same machine: Intrepid with hold "
    "from <10 to >150 min as Eureka's load rises; Eureka 35-111 min with hold, 52-137 min "
    "with yield.",
    "loss": "Service units lost to holding: Intrepid 0.46-4.6% of a month's node-hours "
    "(load study), 0.7-9.3% (proportion study); Eureka 3.5-4.9% (load), 1-21% (proportion).",
    "yield": "For medium and high load, and with 10% or more paired jobs, hold has worse "
    "wait and slowdown than yield; with 33% paired, hold is much worse (Intrepid up to 187 "
    "min vs about 100 min with yield).",
}

K = TypeVar("K")

_METRICS = (
    ("mean_wait", "mean wait (min)", 1 / 60),
    ("mean_slowdown", "mean slowdown", 1.0),
    ("mean_sync_time", "mean sync time (min)", 1 / 60),
    ("lost_share", "SU lost to holding (%)", 100.0),
)


#: Per machine, per metric: the interval over the seeds (:func:`mean_over_seeds`).
ByMachine = dict[str, dict[str, Interval]]
#: ``(x, scheme) ->`` :data:`ByMachine` for one study.
Study = dict[tuple[float, str], ByMachine]
#: The same with each interval's mean alone (:func:`_means`).
Means = dict[str, dict[str, float]]


def _ci(cis: ByMachine | None, machine: str, metric: str) -> Interval:
    nan = Interval(float("nan"), float("nan"), 0)
    return cis.get(machine, {}).get(metric, nan) if cis else nan


def _figure(
    path: Path,
    table: Study,
    xs: tuple[float, ...],
    xlabel: str,
    base: dict[float, ByMachine],
) -> None:
    """Bars of the four schemes per x, 95% intervals as error bars, the base as a mark."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(16, 7))
    axes = fig.subplots(2, 4)
    width = 0.2
    for row, machine in enumerate(MACHINES):
        for col, (metric, label, scale) in enumerate(_METRICS):
            ax = axes[row][col]
            for k, scheme in enumerate(SCHEMES):
                cis = [_ci(table.get((x, scheme)), machine, metric) for x in xs]
                pos = [i + (k - 1.5) * width for i in range(len(xs))]
                err = [0.0 if np.isnan(c.half) else c.half * scale for c in cis]
                ax.bar(pos, [c.mean * scale for c in cis], width, yerr=err, capsize=2, label=scheme)
            if col < 2 and base:
                ax.scatter(
                    range(len(xs)),
                    [_ci(base.get(x), machine, metric).mean * scale for x in xs],
                    marker="_",
                    s=600,
                    color="black",
                    label="no cosched",
                    zorder=3,
                )
            ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
            ax.set_xlabel(xlabel)
            ax.set_title(f"{machine}: {label}", fontsize=9)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    # Fixed metadata: the same results give the same bytes.
    fig.savefig(path, dpi=80, metadata={"Software": None})


def _table(
    table: Study, xs: tuple[float, ...], xname: str, base: dict[float, ByMachine]
) -> list[str]:
    lines = [
        f"| {xname} | scheme | machine | seeds | mean wait (min) | mean slowdown "
        "| bounded slowdown | sync (min) | SU lost (node-h) | SU lost (%) | paired |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def ci(v: dict[str, Interval], metric: str, scale: float) -> str:
        c = v[metric]
        return Interval(c.mean * scale, c.half * scale, c.n).text()

    for x in xs:
        rows = [("base", base.get(x))] + [(s, table.get((x, s))) for s in SCHEMES]
        for scheme, ms in rows:
            if ms is None:
                continue
            for m in MACHINES:
                v = ms[m]
                lines.append(
                    f"| {x:g} | {scheme} | {m} | {v['mean_wait'].n} | "
                    f"{ci(v, 'mean_wait', 1 / 60)} | {ci(v, 'mean_slowdown', 1)} | "
                    f"{ci(v, 'mean_bounded_slowdown', 1)} | {ci(v, 'mean_sync_time', 1 / 60)} | "
                    f"{ci(v, 'lost_node_hours', 1)} | {ci(v, 'lost_share', 100)} | "
                    f"{ci(v, 'paired_jobs', 1)} |"
                )
    return lines


def _findings(
    load: dict[tuple[float, str], Means],
    prop: dict[tuple[float, str], Means],
    base: dict[float, Means],
    loads: tuple[float, ...],
) -> list[str]:
    out = []

    def extra(x: float, s: str, m: str) -> float:
        return (load[(x, s)][m]["mean_wait"] - base[x][m]["mean_wait"]) / 60

    for x in loads:
        if x not in base or any((x, s) not in load for s in SCHEMES):
            continue
        for m in MACHINES:
            vals = ", ".join(f"{s} {extra(x, s, m):+.1f}" for s in SCHEMES)
            out.append(f"- load {x:g}, {m}: extra mean wait vs no coscheduling (min): {vals}")
    for name, tab in (("load", load), ("proportion", prop)):
        h_sync = y_sync = h_better = n = 0
        for (x, s), ms in tab.items():
            # Same remote scheme, local hold vs local yield, per machine.
            for i, m in enumerate(MACHINES):
                if s[i] != "H":
                    continue
                other = s[:i] + "Y" + s[i + 1 :]
                if (x, other) not in tab:
                    continue
                n += 1
                hs, ys = ms[m]["mean_sync_time"], tab[(x, other)][m]["mean_sync_time"]
                h_sync += hs < ys
                y_sync += ys < hs
                h_better += ms[m]["mean_wait"] < tab[(x, other)][m]["mean_wait"]
        out.append(
            f"- {name} study: local hold has the shorter sync time in {h_sync} of {n} "
            f"comparisons (yield shorter in {y_sync}); hold has the lower mean wait in "
            f"{h_better} of {n}."
        )
    for x in (0.75,):
        if (x, "HH") in load and (x, "YY") in load:
            out.append(_vs(f"load {x:g}", load[(x, "HH")], load[(x, "YY")]))
    for x in (0.2, 0.33):
        if (x, "HH") in prop and (x, "YY") in prop:
            out.append(_vs(f"{x:.0%} paired", prop[(x, "HH")], prop[(x, "YY")]))
    return out


def _separation(load: Study, prop: Study) -> list[str]:
    """Whether the seeds resolve the paper's hold-vs-yield comparisons (HH against YY)."""
    out = []
    for name, tab, xs in (("load", load, (0.75,)), ("paired", prop, (0.2, 0.33))):
        for x in xs:
            if (x, "HH") not in tab or (x, "YY") not in tab:
                continue
            parts = []
            for m in MACHINES:
                a, b = tab[(x, "HH")][m]["mean_wait"], tab[(x, "YY")][m]["mean_wait"]
                if min(a.n, b.n) < 2:
                    verdict = "one seed, no interval"
                else:
                    verdict = "separated" if a.separated_from(b) else "not separated"
                parts.append(f"{m} {verdict}")
            out.append(f"- {name} {x:g}, mean wait HH vs YY (95% intervals): " + "; ".join(parts))
    return [*out, ""] if out else []


def _vs(label: str, hh: Means, yy: Means) -> str:
    parts = [
        f"{m} HH {hh[m]['mean_wait'] / 60:.1f} vs YY {yy[m]['mean_wait'] / 60:.1f} min"
        for m in MACHINES
    ]
    return f"- {label}: mean wait " + "; ".join(parts)


def mean_over_seeds(results: pd.DataFrame, study: str) -> Study:
    """``(x, scheme) -> {machine: {metric: Interval over seeds}}`` for the finished cells."""
    ok = results[(results["status"] == "ok") & (results["outcome"] == "ok")]
    ok = ok[ok["study"] == study]
    xcol = "load" if study == "load" else "proportion"
    out: Study = {}
    if ok.empty or xcol not in ok.columns:  # a spec without this study
        return out
    for (x, scheme), rows in ok.groupby([xcol, "scheme"], sort=True):
        out[(float(x), str(scheme))] = {
            m: {
                c.removeprefix(f"{m}."): mean_ci(rows[c].to_numpy(dtype=np.float64))
                for c in rows.columns
                if c.startswith(f"{m}.") and ".stats." not in c
            }
            for m in MACHINES
        }
    return out


def _means(table: Mapping[K, ByMachine]) -> dict[K, Means]:
    return {k: {m: {n: ci.mean for n, ci in v[m].items()} for m in v} for k, v in table.items()}


def _compute_label(params: Mapping[str, Any]) -> str:
    """The compute machine of the spec's parameters, in words."""
    if params.get("compute") == "intrepid":
        p = INTREPID_PLATFORM
        return (
            f"Intrepid stand-in (a month drawn per seed at offered load "
            f"{params.get('compute_load')}, run-time sigma {params.get('compute_sigma', 1.7)}), "
            f"{p.nodes} nodes in partitions of {p.partition} x 2^k"
        )
    return f"{COMPUTE_TRACE}, {COMPUTE_PLATFORM.nodes} nodes allocated whole"


def report_section(results: pd.DataFrame, out: Path, meta: Mapping[str, Any]) -> list[str]:
    """The coupled section of the report (writes ``fig-load.png`` and ``fig-proportion.png``)."""
    params = meta.get("spec", {}).get("params", {})
    load_ci = mean_over_seeds(results, "load")
    prop_ci = mean_over_seeds(results, "proportion")
    loads = tuple(sorted({x for x, _ in load_ci}))
    props = tuple(sorted({x for x, _ in prop_ci}))
    base_ci = {x: load_ci[(x, "base")] for x in loads if (x, "base") in load_ci}
    prop_base_ci = {x: base_ci[0.5] for x in props} if 0.5 in base_ci else {}
    load_only_ci = {k: v for k, v in load_ci.items() if k[1] != "base"}
    load, prop, base = _means(load_only_ci), _means(prop_ci), _means(base_ci)
    _figure(out / "fig-load.png", load_only_ci, loads, "analysis machine load", base_ci)
    _figure(out / "fig-proportion.png", prop_ci, props, "paired proportion", prop_base_ci)
    deadlocked = results[(results["status"] == "ok") & (results["outcome"] != "ok")]
    span = float(params.get("span", 0.0))
    settings = {
        "compute": _compute_label(params),
        "analysis": f"{ANALYSIS_TRACE}, {ANALYSIS_PLATFORM.nodes} nodes",
        "span_days": f"{span / 86400:g}",
        "release_period_s": DEFAULT_RELEASE_PERIOD,
        "policy": "EASY backfilling with Cobalt's WFP order on both machines",
    }
    lines = [
        "## Coupled machines: reproduction of the coupled-systems coscheduling paper",
        "",
        "### Set-up",
        "",
        *[f"- {k}: {v}" for k, v in settings.items()],
        "- load study: mates by submission within 2 minutes"
        + (
            f", of which {100 * float(params['pair_share']):g}% of the analysis jobs' count "
            "is kept, drawn per seed"
            if "pair_share" in params
            else ""
        )
        + "; proportion study: analysis load 0.5, the given share of the analysis jobs "
        "paired with the nearest compute job.",
        "- every number is the mean over the seeds of the configuration; ± is the half-width "
        "of the 95% Student-t interval (none with one seed); error bars in the figures are "
        "the same intervals.",
        "- scheme names: compute machine first (HY = hold on compute, yield on analysis).",
        "- sync time = start minus the time the scheduler first made the job ready; every "
        "coscheduled cell was checked: each paired job started at the same instant as its "
        "mate.",
        "",
        "### Findings: the paper beside cosched",
        "",
        *[f"- paper ({k}): {v}" for k, v in PAPER.items()],
        "",
        "cosched:",
        "",
        *_findings(load, prop, base, loads),
        "",
    ]
    lines += _separation(load_only_ci, prop_ci)
    if len(deadlocked):
        lines += ["Cells that ended in a deadlock: " + ", ".join(deadlocked["key"]), ""]
    lines += [
        "### Load study (Figures 3-6)",
        "",
        "![load](fig-load.png)",
        "",
        *_table(load_only_ci, loads, "load", base_ci),
        "",
        "### Proportion study (Figures 7-10)",
        "",
        "![proportion](fig-proportion.png)",
        "",
        "Base rows: coscheduling off on the load-0.5 workloads (pairing does not matter "
        "then); the last column counts the pairs of the load study's proximity rule there.",
        "",
        *_table(prop_ci, props, "paired", prop_base_ci),
        "",
    ]
    return lines
