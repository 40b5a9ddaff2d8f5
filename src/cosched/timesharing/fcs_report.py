"""The FCS report section: the synthetic scenarios of section 3 of
flexible-coscheduling-fcs.txt, cosched's job end times beside the paper's, and the
dynamic workload of section 5 (Figure 7: response and slowdown against offered load,
saturation; Figure 8: response-time distributions of the shorter and longer halves)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cosched.metrics.saturation import (
    DEFAULT_SHARE,
    Saturation,
    accepted_saturation,
    saturation_point,
)
from cosched.timesharing.fcs_experiment import DECILES, DYNAMIC, READINGS, SCENARIOS, SCHEMES
from cosched.timesharing.workloads import dynamic_workload

__all__ = [
    "FIG8_LOAD",
    "PAPER",
    "PAPER_SATURATION",
    "SATURATION_MEASURE",
    "accepted_saturation_by_scheme",
    "report_section",
    "saturation_by_scheme",
    "with_accepted",
]

#: Figure 7 / section 5.2: the offered load at which FCFS and FCS saturate (GS and SB:
#: the conclusions say only that FCS's advantage over them is "less dramatic").
PAPER_SATURATION: dict[str, float] = {"FCFS": 0.78, "FCS": 0.88}
#: Figure 8's load (its caption: 74%).
FIG8_LOAD = 0.74
_FIG7 = (
    ("mean_response", "mean response (s)"),
    ("mean_slowdown", "mean slowdown"),
    ("median_response", "median response (s)"),
    ("median_slowdown", "median slowdown"),
    ("accepted", "accepted load"),
)

#: Section 3's tables: scheme -> (job ends..., turnaround, mean response), in seconds
#: (the paper's building block runs 60 s alone).
PAPER: dict[str, dict[str, tuple[float, ...]]] = {
    "balanced": {  # 3.1
        "FCFS": (60, 120, 120, 90),
        "GS": (124, 124, 124, 124),
        "SB": (126, 134, 134, 130),
        "FCS": (125, 126, 126, 126),
    },
    "imbalanced": {  # 3.2
        "FCFS": (120, 240, 240, 180),
        "GS": (244, 245, 245, 245),
        "SB": (193, 194, 194, 194),
        "FCS": (197, 197, 197, 197),
    },
    "complementing": {  # 3.3
        "FCFS": (60, 121, 301, 301, 161),
        "GS": (185, 186, 308, 308, 226),
        "SB": (144, 142, 244, 244, 177),
        "FCS": (192, 193, 197, 197, 194),
    },
    "mixed": {  # 3.4
        "FCFS": (120, 241, 302, 302, 221),
        "GS": (185, 185, 305, 305, 225),
        "SB": (213, 214, 276, 276, 234),
        "FCS": (252, 253, 155, 253, 220),
    },
    "sweep3d": {  # section 4, two SWEEP3D
        "FCFS": (111, 222, 222, 167),
        "GS": (232, 232, 232, 232),
        "SB": (275, 275, 275, 275),
        "FCS": (244, 244, 244, 244),
    },
    "sage": {  # section 4, two SAGE
        "FCFS": (126, 252, 252, 189),
        "GS": (260, 261, 261, 261),
        "SB": (274, 276, 276, 275),
        "FCS": (264, 264, 264, 264),
    },
    "sage+sweep3d": {  # section 4, combined workload (SAGE, SWEEP3D)
        "FCFS": (126, 238, 238, 182),
        "GS": (245, 240, 245, 243),
        "SB": (240, 272, 272, 256),
        "FCS": (235, 224, 235, 230),
    },
}
_TITLE = {
    "balanced": "3.1 Balanced jobs",
    "imbalanced": "3.2 Load-imbalanced jobs",
    "complementing": "3.3 Complementing jobs",
    "mixed": "3.4 Balanced and imbalanced job combination",
    "sweep3d": "4 Two SWEEP3D skeletons (time slice 200 ms)",
    "sage": "4 Two SAGE skeletons (time slice 200 ms)",
    "sage+sweep3d": "4 SAGE and SWEEP3D skeletons (time slice 200 ms; job 1 SAGE)",
}


def _f(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.0f}"


def with_accepted(dyn: pd.DataFrame) -> pd.DataFrame:
    """``dyn`` with an ``accepted`` column: the accepted load of each run, its work (sum
    of isolated run time x size, the same at every offered load of a seed) over
    processors x its makespan (times the offered load when ``load_by`` is "runtimes").
    Once a scheme saturates it stops growing with the offered
    load (section 5.1: saturation "witnessed by a relatively constant accepted load")."""
    out = dyn.copy()
    work: dict[tuple[int, int, int, float, float], float] = {}
    acc = []
    for _, r in out.iterrows():
        key = (int(r["seed"]), int(r["n_jobs"]), int(r["dyn_pes"]), float(r["max_run"]),
               float(r["time_scale"]))  # fmt: skip
        if key not in work:
            w = dynamic_workload(key[1], rng=np.random.default_rng(key[0]), pes=key[2],
                                 load=1.0, max_run=key[3], time_scale=key[4]).table  # fmt: skip
            work[key] = float((w["requested_time"] * w["procs"]).sum())
        # offered load set by run times (section 5.2's reading): the work grows with it
        by_runs = r.get("load_by", "arrivals") == "runtimes"
        scale = float(r["load"]) if by_runs else 1.0
        acc.append(work[key] * scale / (key[2] * float(r["turnaround"])))
    out["accepted"] = acc
    return out


def saturation_by_scheme(dyn: pd.DataFrame) -> dict[tuple[str, int], Saturation]:
    """Per (scheme, seed), the :class:`~cosched.metrics.saturation.Saturation` of the
    dynamic sweep, every scheme judged against one bound: 5 x the best scheme's mean
    response at the lowest load (of that seed)."""
    out: dict[tuple[str, int], Saturation] = {}
    if dyn.empty:
        return out
    for seed, rows in dyn.groupby("seed"):
        lowest = rows[rows["load"] == rows["load"].min()]
        ref = float(lowest["mean_response"].min())
        for scheme, sweep in rows.groupby("scheme"):
            out[(str(scheme), int(seed))] = saturation_point(  # type: ignore[call-overload]
                sweep["load"].tolist(),
                sweep["mean_response"].tolist(),
                sweep["unfinished"].tolist(),
                reference=ref,
            )
    return out


def _readings_text(dyn: pd.DataFrame) -> str:
    """The section 5 readings the runs used (docs/timesharing.md, "Figure 7's
    saturation, re-read"), in words."""
    first = dyn.iloc[0] if len(dyn) else pd.Series(dtype=object)
    how = {k: first.get(k, v) for k, v in READINGS.items()}
    how = {k: (v if isinstance(v, str) or not pd.isna(v) else READINGS[k]) for k, v in how.items()}
    load = (
        "the offered load (sum of isolated run time x size over processors x last arrival) "
        + ("set by multiplying the run times, arrivals fixed at those of load 1"
           if how["load_by"] == "runtimes" else "set by scaling the arrivals")
    )  # fmt: skip
    alloc = (
        f"FCFS allocates whole {int(how['node_pes'])}-PE nodes, the time-sharing schemes PEs"
        if how["alloc"] == "node"
        else "every scheme allocates PEs"
    )
    est = float(how["estimate"])
    return (
        f"{load}; {alloc}; EASY backfilling in front of every scheme, estimates = "
        + ("isolated run time" if est == 1.0 else f"{est:g} x isolated run time")
        + " x MPL"
        + ("" if how["mix"] == READINGS["mix"] else f"; job kinds: the {how['mix']!r} mix")
    )


#: How the saturation of Figure 7 is read (section 5.1: accepted load "indirectly
#: inferred from the accumulation of jobs in the queue"): ``queue_accepted``, the work
#: that left the queue by the last arrival. ``window_accepted`` (the work done by then)
#: is the other reading, reported beside it (docs/timesharing-fidelity.md, "Figure 7 read from
#: the queue").
SATURATION_MEASURE = "queue_accepted"


def accepted_saturation_by_scheme(
    dyn: pd.DataFrame, measure: str = SATURATION_MEASURE
) -> dict[tuple[str, int], Saturation]:
    """Per (scheme, seed), the :class:`~cosched.metrics.saturation.Saturation` of the
    dynamic sweep read from an accepted load of the cell's (``measure``: by default
    ``queue_accepted``, the offered work less the work still queued at the last
    arrival; or ``window_accepted``, the work done by then): the highest load up to
    which every run accepts at least ``DEFAULT_SHARE`` of its offered load
    (:func:`cosched.metrics.accepted_saturation`; section 5.1: saturation "witnessed by
    a relatively constant accepted load", accepted load "inferred from the accumulation
    of jobs in the queue"). Empty if the results lack ``measure``."""
    out: dict[tuple[str, int], Saturation] = {}
    if dyn.empty or measure not in dyn:
        return out
    for (scheme, seed), sweep in dyn.groupby(["scheme", "seed"]):
        out[(str(scheme), int(seed))] = accepted_saturation(
            sweep["load"].tolist(), sweep[measure].tolist()
        )
    return out


def _dynamic(
    dyn: pd.DataFrame, out: Path, params: Mapping[str, Any], apps: bool = False
) -> list[str]:
    """Figure 7 (a table per metric, fig7.png) and Figure 8 (fig8.png, deciles); with
    ``apps``, Figure 9 (fig9.png: the SAGE/SWEEP3D set at MPL 2)."""
    dyn = with_accepted(dyn)
    fig_name = "fig9" if apps else "fig7"
    loads = sorted(dyn["load"].unique())
    schemes = [s for s in SCHEMES if s in set(dyn["scheme"])]
    mean = dyn.groupby(["scheme", "load"]).mean(numeric_only=True)
    lines = [
        "## Reproduction: Flexible CoScheduling, dynamic workload (section 5, "
        + ("Figure 9: SAGE and SWEEP3D skeletons, half each, MPL 2)" if apps else "Figures 7-8)"),
        "",
        f"{params.get('n_jobs')} Lublin jobs on {params.get('dyn_pes')} processors (run "
        f"times clipped at {params.get('max_run')} s), each a BSP job of a random kind (1 ms "
        "balanced, 1 ms imbalanced as in section 3.2, 50 ms balanced); "
        + _readings_text(dyn)
        + f" (FCFS: MPL 1; GS, SB, FCS: MPL {2 if apps else params.get('dyn_mpl')}). "
        + ("Job kinds: the SAGE and SWEEP3D skeletons of section 4 instead. The paper: "
           "64 processors (16 four-way nodes), MPL 2." if apps else
           "The paper: 1,000 jobs on 32 processors (16 two-way nodes), MPL 6.")
        + " Mean over seeds.",
        "",
        f"![{fig_name}]({fig_name}.png)",
        "",
    ]  # fmt: skip
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5))
    axes.flat[-1].axis("off")
    for (metric, title), ax in zip(_FIG7, axes.flat, strict=False):
        lines += [f"**{title}** by offered load", "",
                  "| scheme | " + " | ".join(f"{x:g}" for x in loads) + " |",
                  "|---" * (len(loads) + 1) + "|"]  # fmt: skip
        for s in schemes:
            vals = [mean[metric].get((s, x), math.nan) for x in loads]
            lines.append(f"| {s} | " + " | ".join(f"{v:.2f}" for v in vals) + " |")
            ax.plot(loads, vals, marker="o", label=s)
        lines.append("")
        ax.set_xlabel("offered load")
        ax.set_title(title, fontsize=9)
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / f"{fig_name}.png", dpi=100)
    plt.close(fig)
    sat = saturation_by_scheme(dyn)
    acc = accepted_saturation_by_scheme(dyn)
    done = accepted_saturation_by_scheme(dyn, "window_accepted")
    lines += ["**Saturation**: the highest offered load of the sweep up to which every run "
              f"accepts at least {DEFAULT_SHARE:.0%} of its offered load, and the next load "
              "(`cosched.metrics.accepted_saturation`), the accepted load read from the "
              "queue as the paper's section 5.1 does (the offered work less the work still "
              "queued at the last arrival, over processors x that time; a started job "
              "counts whole) and from the work done (the work done by the last arrival, "
              "a running job in proportion); the same by response (mean response within "
              "5x the best scheme's at the lowest load: `cosched.metrics.saturation_point`); "
              "and the highest accepted load of the sweep over the makespan", "",
              "| scheme | saturation (queue), per seed | saturation (work done), per seed "
              "| by response, per seed | max accepted load | paper |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    top = dyn.groupby("scheme")["accepted"].max()
    for s in schemes:
        labels = ", ".join(v.label() for (sc, _), v in sorted(sat.items()) if sc == s)
        by_acc = ", ".join(v.label() for (sc, _), v in sorted(acc.items()) if sc == s) or "-"
        by_done = ", ".join(v.label() for (sc, _), v in sorted(done.items()) if sc == s) or "-"
        paper = PAPER_SATURATION.get(s)
        paper = None if apps else paper
        lines.append(f"| {s} | {by_acc} | {by_done} | {labels} | {top[s]:.2f} | "
                     f"{f'{paper:.0%}' if paper else '-'} |")  # fmt: skip
    lines.append("")
    if apps:
        return [*lines, ""]
    near = min(loads, key=lambda x: abs(x - FIG8_LOAD))
    lines += [
        f"**Figure 8** (offered load {near:g}; the paper: 74%): response-time deciles (s) "
        "of the shorter and the longer half of the jobs by isolated run time",
        "",
        "![Figure 8](fig8.png)",
        "",
        "| half | scheme | " + " | ".join(f"{d}%" for d in DECILES) + " |",
        "|---" * (len(DECILES) + 2) + "|",
    ]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for half, ax in zip(("short", "long"), axes, strict=True):
        for s in schemes:
            qs = [mean[f"resp_{half}_q{d}"].get((s, near), math.nan) for d in DECILES]
            lines.append(f"| {half} | {s} | " + " | ".join(f"{q:.1f}" for q in qs) + " |")
            ax.plot(qs, [d / 100 for d in DECILES], marker=".", label=s)
        ax.set_xscale("log")
        ax.set_xlabel("response time (s)")
        ax.set_title(f"{'shortest' if half == 'short' else 'longest'} half", fontsize=9)
    axes[0].set_ylabel("cumulative share")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig8.png", dpi=100)
    plt.close(fig)
    return [*lines, ""]


def report_section(results: pd.DataFrame, out: Path, meta: Mapping[str, Any]) -> list[str]:
    """Per scenario, a table of the job end times, turnaround and mean response; the
    dynamic workload's Figures 7 and 8."""
    ok = results[results["status"] == "ok"]
    if "scenario" in ok:
        dyn = ok[ok["scenario"] == "dynamic"]
        apps = ok[ok["scenario"] == "dynamic-apps"]
        ok = ok[~ok["scenario"].isin(DYNAMIC)]
    else:
        dyn = apps = ok.iloc[0:0]
    params = meta.get("spec", {}).get("params", {})
    lines = [
        "## Reproduction: Flexible CoScheduling, synthetic scenarios (section 3)",
        "",
        f"{params.get('nodes')} single-CPU nodes, every job as wide as the machine, all "
        f"submitted at 0; BSP building block of {1e3 * float(params.get('grain', 0)):g} ms "
        f"per iteration taking {params.get('job_time')} s alone (the paper: 60 s on 32 "
        "4-way nodes); time slice "
        f"{1e3 * float(params.get('quantum', 0)):g} ms, cslots_MIN "
        f"{params.get('cslots_min')}. Each cell: cosched (paper), in seconds; the paper's "
        "times are for 60 s jobs, so compare ratios when job_time differs. FCFS is the "
        "gang matrix with one row. The node arrangement of the complementing jobs (3.3, "
        "Figure 5) is our reading of the text. See docs/timesharing.md.",
        "",
    ]
    for sc in SCENARIOS:
        rows = ok[ok["scenario"] == sc]
        if rows.empty:
            continue
        n_jobs = 3 if sc in ("mixed", "complementing") else 2
        head = [f"Job {k + 1}" for k in range(n_jobs)] + ["Turnaround", "Mean response"]
        lines += [
            f"### {_TITLE[sc]}",
            "",
            "| scheme | " + " | ".join(head) + " | FCS classes (CS/F/DC) |",
            "|---" * (len(head) + 2) + "|",
        ]
        for s in SCHEMES:
            r = rows[rows["scheme"] == s]
            if r.empty:
                continue
            rec = r.mean(numeric_only=True)
            ours = [rec[f"job{k + 1}_end"] for k in range(n_jobs)]
            ours += [rec["turnaround"], rec["mean_response"]]
            paper = PAPER[sc][s]
            cells = [f"{_f(o)} ({_f(p)})" for o, p in zip(ours, paper, strict=True)]
            cls = (
                f"{_f(rec['procs_cs'])}/{_f(rec['procs_f'])}/{_f(rec['procs_dc'])}"
                if s == "FCS"
                else "-"
            )
            lines.append(f"| {s} | " + " | ".join(cells) + f" | {cls} |")
        lines.append("")
    if not dyn.empty:
        lines += _dynamic(dyn, out, params)
    if not apps.empty:
        lines += _dynamic(apps, out, params, apps=True)
    return lines
