"""The comparison's report: ``report.md`` (PNG figures) and ``report.html`` (one
self-contained file with inline SVG figures), and the verdict computed from the numbers.
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from cosched.compare.analysis import (
    SUMMARY_METRICS,
    break_even,
    busiest_day,
    ci95,
    class_means,
    job_ratios,
    summary_table,
    winners_losers,
)
from cosched.metrics.summary import JobClasses

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from cosched.compare.study import Comparison

__all__ = ["verdict", "write_report"]

#: ``(strength, mean turnaround, CI half-width)`` points of the robustness sweep.
Curve = list[tuple[float, float, float]]

_HOURS = {"h"}


def _fmt(value: float, half: float, unit: str, seeds: int) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    scale = 3600.0 if unit in _HOURS else 1.0
    v, h = value / scale, half / scale
    digits = 2 if abs(v) < 100 else 1
    text = f"{v:,.{digits}f}"
    if seeds > 1:
        text += f" ± {h:,.{digits}f}"
    return text


def _best(summary: pd.DataFrame, among: Sequence[str], key: str = "mean_turnaround") -> str | None:
    part = summary[summary["policy"].isin(among)]
    if part.empty:
        return None
    return str(part.sort_values(key, kind="stable").iloc[0]["policy"])


def verdict(
    summary: pd.DataFrame,
    baselines: Sequence[str],
    wl: pd.DataFrame | None,
    robustness: tuple[str, float | None, tuple[float, float]] | None,
) -> str:
    """The answer, computed from the numbers: which policy, by how much, for whom, and
    the caveat (where the interference assumption would flip it).

    Args:
        summary: :func:`~cosched.compare.analysis.summary_table` of the main policies.
        baselines: the space-sharing baselines among them.
        wl: :func:`~cosched.compare.analysis.winners_losers` of the best coscheduling
            policy against the best baseline (None when there is none).
        robustness: ``(policy, break-even strength or None, (lowest, highest) strength
            tried)`` of the interference sweep.
    """
    base = _best(summary, baselines)
    others = [p for p in summary["policy"] if p not in baselines]
    cosched = _best(summary, others)
    if base is None:
        return "No baseline ran, so there is nothing to compare against."
    b = summary.set_index("policy").loc[base]
    if cosched is None:
        hours = b["mean_turnaround"] / 3600
        return f"Only baselines ran; {base} has the lowest mean turnaround ({hours:.2f} h)."
    c = summary.set_index("policy").loc[cosched]
    gain = (b["mean_turnaround"] - c["mean_turnaround"]) / b["mean_turnaround"]
    separated = abs(b["mean_turnaround"] - c["mean_turnaround"]) > (
        b["mean_turnaround_ci"] + c["mean_turnaround_ci"]
    )
    seeds = int(c["seeds"])
    ci = (
        f" (95% CI ± {c['mean_turnaround_ci'] / 3600:.2f} h over {seeds} seeds)"
        if seeds > 1
        else ""
    )
    words = []
    if gain > 0 and separated:
        words.append(
            f"**Share: {cosched}.** It gives the lowest mean turnaround, "
            f"{c['mean_turnaround'] / 3600:.2f} h{ci}, against "
            f"{b['mean_turnaround'] / 3600:.2f} h under {base}, the best space-sharing "
            f"baseline: {100 * gain:.0f}% lower."
        )
    elif gain > 0:
        words.append(
            f"**No clear answer.** {cosched} has a lower mean turnaround than {base} "
            f"({c['mean_turnaround'] / 3600:.2f} h{ci} against "
            f"{b['mean_turnaround'] / 3600:.2f} h, {100 * gain:.0f}% lower), but the "
            "difference is within the confidence intervals."
        )
    else:
        words.append(
            f"**Do not share: keep {base}.** The best coscheduling policy, {cosched}, has "
            f"a mean turnaround of {c['mean_turnaround'] / 3600:.2f} h{ci} against "
            f"{b['mean_turnaround'] / 3600:.2f} h under {base}: {100 * -gain:.0f}% higher."
        )
    bs_gain = (b["mean_bounded_slowdown"] - c["mean_bounded_slowdown"]) / b["mean_bounded_slowdown"]
    words.append(
        f"Mean bounded slowdown is {100 * abs(bs_gain):.0f}% "
        f"{'lower' if bs_gain > 0 else 'higher'} under {cosched}."
    )
    if wl is not None and len(wl):
        named = wl[wl["jobs"] > 0]
        gainers = named[named["median_ratio"] < 0.95]
        losers = named[named["median_ratio"] > 1.05]

        def describe(rows: pd.DataFrame) -> str:
            return ", ".join(
                f"{d} {w} jobs (median turnaround ratio {r:.2f})"
                for d, w, r in zip(
                    rows["duration_class"], rows["width_class"], rows["median_ratio"], strict=True
                )
            )

        if len(gainers):
            words.append(f"Who gains: {describe(gainers)}.")
        if len(losers):
            words.append(f"Who loses: {describe(losers)}.")
        if not len(gainers) and not len(losers):
            words.append("No job class's median turnaround changes by more than 5%.")
    if robustness is not None:
        policy, flip, (lo, hi) = robustness
        if flip is None:
            words.append(
                f"Caveat: {policy}'s result rests on the interference model, which no trace "
                f"records; the verdict against {base} does not change for interference "
                f"strengths from {lo:g} to {hi:g} times the preset in force."
            )
        else:
            words.append(
                f"Caveat: {policy}'s result rests on the interference model, which no trace "
                f"records; against {base} the verdict flips at {flip:.2f} times the preset "
                "interference strength (see the robustness section)."
            )
    return " ".join(words)


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.find("<svg") :]


def _save(out: Path, name: str, fig: Figure, svgs: dict[str, str]) -> str:
    import matplotlib.pyplot as plt

    (out / "figures").mkdir(exist_ok=True)
    fig.savefig(out / "figures" / f"{name}.png", dpi=150, metadata={"Software": None})
    svgs[name] = _svg(fig)
    plt.close(fig)
    return f"figures/{name}.png"


def _md_table(frame: pd.DataFrame) -> list[str]:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return lines


@dataclass
class _Doc:
    """The report as Markdown lines plus the SVG of each figure (for the HTML)."""

    out: Path
    md: list[str] = field(default_factory=list)
    svgs: dict[str, str] = field(default_factory=dict)

    def add(self, *lines: str) -> None:
        self.md.extend(lines)

    def table(self, frame: pd.DataFrame) -> None:
        self.md.extend([*_md_table(frame), ""])

    def figure(self, name: str, fig: Figure) -> None:
        self.md.extend([f"![{name}]({_save(self.out, name, fig, self.svgs)})", ""])


def _machine(platform: str) -> tuple[int, int, str]:
    """``(nodes, cores, allocation)`` of a run's machine description
    (``N nodes x C core(s) (mode, ...)``, :meth:`Platform.describe`)."""
    nodes = int(platform.split(" nodes")[0].split()[-1])
    cores = int(platform.split(" x ")[1].split()[0])
    return nodes, cores, "nodes" if "(nodes" in platform else "cores"


def _capacity(platform: str) -> float:
    """Allocation units of a run's machine."""
    nodes, cores, mode = _machine(platform)
    return float(nodes if mode == "nodes" else nodes * cores)


def _summary_rows(summary: pd.DataFrame) -> pd.DataFrame:
    head = ["policy"] + [f"{label} ({u})" if u else label for _, label, u in SUMMARY_METRICS]
    rows = []
    for r in summary.to_dict("records"):
        n = int(r["seeds"])
        cells = [
            _fmt(r.get(k, math.nan), r.get(f"{k}_ci", 0.0), u, n) for k, _, u in SUMMARY_METRICS
        ]
        rows.append([r["policy"], *cells])
    return pd.DataFrame(rows, columns=head)


def write_report(
    out: Path,
    comparison: Comparison,
    table: pd.DataFrame,
    jobs: Mapping[str, Sequence[pd.DataFrame]],
    *,
    classes: JobClasses,
) -> Path:
    """Write ``report.md`` and ``report.html``; return the Markdown path."""
    from cosched.compare import figures
    from cosched.compare.study import BASELINES

    ran = set(table["arm"])
    main = [a.label for a in comparison.main if a.label in ran]
    baselines = [a.label for a in comparison.main if a.label in ran and a.policy in BASELINES]
    random = {a.label for a in comparison.main if a.random}
    reference = [a.label for a in comparison.arms if a.role == "reference" and a.label in ran]
    shown = main + reference
    summary = summary_table(table, main)
    by_policy = summary.set_index("policy")
    first = {p: jobs[p][0] for p in shown}
    platform = {p: str(table[table["arm"] == p]["platform"].iloc[0]) for p in shown}
    capacity = {p: _capacity(platform[p]) for p in shown}
    procs = int(max(_machine(platform[p])[0] * _machine(platform[p])[1] for p in main))
    base = _best(summary, baselines)
    best_co = _best(summary, [p for p in main if p not in baselines])
    wl = None
    if base is not None and best_co is not None:
        ratios = pd.concat(
            job_ratios(j, first[base], capacity_procs=procs, classes=classes) for j in jobs[best_co]
        )
        wl = winners_losers(ratios)
    curve = _robustness_curve(comparison, table)
    robustness = None
    if curve and base is not None:
        level = float(by_policy.loc[base, "mean_turnaround"])
        flip = break_even([c[0] for c in curve], [c[1] for c in curve], level)
        swept = comparison.robustness[0].label.rsplit("@", 1)[0]
        robustness = (swept, flip, (curve[0][0], curve[-1][0]))

    doc = _Doc(out)
    where = comparison.workload.get("path") or comparison.workload.get("kind")
    doc.add(f"# Should jobs share nodes or time slices on this machine? ({where})", "")
    answer = verdict(summary, baselines, wl, robustness)
    if best_co is not None and _machine(platform[best_co])[1] == 1 and "nodeshare" in best_co:
        answer += (
            f" Note: on this machine's single-core nodes no two jobs can share a node, so "
            f"{best_co}'s gain comes from its malleable configurations (a job run on fewer "
            "processors than it asked for, more slowly), not from sharing; pass "
            "`--machine nodes=N,cores=C` if the nodes have several cores."
        )
    doc.add("## Verdict", "", answer, "")
    doc.add("## How it was run", "")
    for p in main:
        n = int(by_policy.loc[p, "seeds"])
        kind = f"{n} seeds (profiles drawn at random)" if p in random else "one run"
        doc.add(f"- `{p}` on {platform[p]}: {kind}")
    for p in reference:
        doc.add(f"- `{p}`: the schedule the log records (each job's logged start), for reference")
    doc.add(*(f"- {note}" for note in comparison.notes))
    doc.add("")
    doc.add(
        "## Summary",
        "",
        "Means over seeds with the half-width of the 95% confidence interval (Student's t, "
        "shown when a policy ran with several seeds); times in hours.",
        "",
    )
    doc.table(_summary_rows(summary_table(table, shown)))
    if reference and base is not None:
        _reference_section(doc, first[reference[0]], first[base], base, capacity[base])
    doc.add("## Distributions", "")
    doc.figure("cdf", figures.cdf_figure(first, shown))
    means = class_means({p: jobs[p] for p in shown}, capacity_procs=procs, classes=classes)
    doc.add(
        "## By job class",
        "",
        f"Classes: short <= {classes.short:g} s < medium <= {classes.medium:g} s < long run "
        f"time; wide jobs take more than {classes.wide_fraction:g} of the processors.",
        "",
    )
    doc.figure(
        "classes", figures.class_figure(means, main, "mean_turnaround", "mean turnaround (s)")
    )
    if wl is not None and base is not None and best_co is not None:
        doc.add(
            f"## Who wins and who loses: {best_co} against {base}",
            "",
            "Per job, turnaround under the coscheduling policy over turnaround under the best "
            "baseline (all seeds pooled); faster and slower mean by more than 5%.",
            "",
        )
        wl_table = wl.assign(
            faster=(100 * wl["faster"]).round(1),
            slower=(100 * wl["slower"]).round(1),
            median_ratio=wl["median_ratio"].round(3),
        )
        wl_table.columns = ["duration", "width", "jobs", "faster (%)", "slower (%)", "median ratio"]
        doc.table(wl_table)
        doc.figure("ratios", figures.ratio_figure(wl, best_co, base))
    doc.add("## Over time", "")
    doc.figure("time", figures.time_figure(first, shown, capacity))
    shown_policy = best_co or base
    if shown_policy is not None:
        g = first[shown_policy]
        window = comparison.gantt_window or busiest_day(g)
        res = _gantt_resources(g, platform[shown_policy])
        days = f"{window[0] / 86400:.1f} to {window[1] / 86400:.1f} days"
        what = "the chosen window" if comparison.gantt_window else "the busiest day"
        doc.add(f"## Gantt chart of {what}", "")
        doc.figure("gantt", figures.gantt_figure(g, res, window, f"{shown_policy}, {days}"))
    if curve and base is not None:
        level = float(by_policy.loc[base, "mean_turnaround"])
        doc.add(
            "## Robustness: how strong must interference be to change the answer?",
            "",
            f"`{robustness[0] if robustness else ''}` with its victim weights (how much "
            "co-located jobs slow "
            "each other) multiplied by a strength factor; 1 is the preset in force. "
            f"{base}'s mean turnaround ({level / 3600:.2f} h) is the line to beat.",
            "",
        )
        rows = [[f"{s:g}", f"{m / 3600:.2f} ± {h / 3600:.2f}"] for s, m, h in curve]
        doc.table(pd.DataFrame(rows, columns=["strength", "mean turnaround (h)"]))
        doc.figure("robustness", _robust_fig(curve, base, level))
    mixes = [a for a in comparison.arms if a.role == "mix" and a.label in ran]
    if mixes and base is not None:
        _mix_section(
            doc, comparison, table, mixes, base, float(by_policy.loc[base, "mean_turnaround"])
        )
    path = out / "report.md"
    path.write_text("\n".join(doc.md) + "\n")
    _write_html(out / "report.html", doc.md, doc.svgs)
    return path


def _robustness_curve(comparison: Comparison, table: pd.DataFrame) -> Curve:
    """``(strength, mean turnaround, CI half-width)`` of the interference sweep."""
    curve: Curve = []
    for arm in comparison.robustness:
        part = table[table["arm"] == arm.label]
        if len(part) and arm.strength is not None:
            mean, half, _ = ci95(part["mean_turnaround"].tolist())
            curve.append((arm.strength, mean, half))
    return sorted(curve)


def _gantt_resources(jobs: pd.DataFrame, platform: str) -> list[list[int]]:
    """Lanes of the Gantt chart: the cores each job held (a job on shared nodes holds
    ``occupancy x cores`` of them), assigned lowest first."""
    from cosched.outputs import assign_resources
    from cosched.platform import Platform

    nodes, cores, mode = _machine(platform)
    if mode == "nodes":
        held = jobs["occupancy"] if "occupancy" in jobs else jobs["size"]
        size = [max(1, round(float(h) * cores)) for h in held]
    else:
        size = [int(v) for v in jobs["size"]]
    return assign_resources(jobs.assign(size=size), Platform(nodes, cores))


def _mix_section(
    doc: _Doc, comparison: Comparison, table: pd.DataFrame, mixes: Sequence[Any], base: str,
    level: float,
) -> None:  # fmt: skip
    """LOMARC under the paper's other job-type mixes (no log records the mix)."""
    import inspect

    from cosched.workload.profiles.lomarc import MIXTURES, annotate_lomarc

    default = inspect.signature(annotate_lomarc).parameters["mixture"].default
    main = mixes[0].label.rsplit("@", 1)[0]
    rows = []
    for label, mix in [(main, default), *((a.label, a.profile_params["mixture"]) for a in mixes)]:
        part = table[table["arm"] == label]
        if not len(part):
            continue
        mean, half, _ = ci95(part["mean_turnaround"].tolist())
        cpu, net, disk = MIXTURES[mix]
        verdict_word = (
            "lower" if mean + half < level else "higher" if mean - half > level else "even"
        )
        shares = f"{cpu:.0%} / {net:.0%} / {disk:.0%}"
        hours = f"{mean / 3600:.2f} ± {half / 3600:.2f}"
        rows.append([mix, shares, hours, f"{100 * (level - mean) / level:+.0f}%", verdict_word])
    doc.add(
        f"## Robustness: {main} under other job-type mixes",
        "",
        f"LOMARC pairs jobs by their dominant resource, which no log records; the report "
        f"draws them from the paper's mixtures (CPU / network / disk-bound shares). Mean "
        f"turnaround against {base}'s {level / 3600:.2f} h (lower: pairing wins):",
        "",
    )
    doc.table(pd.DataFrame(rows, columns=["mix", "CPU / net / disk", "mean turnaround (h)",
                                          f"vs {base}", "against the baseline"]))  # fmt: skip


def _reference_section(
    doc: _Doc, recorded: pd.DataFrame, simulated: pd.DataFrame, base: str, capacity: float
) -> None:
    """Does the simulated baseline look like the machine? The log's schedule beside
    the best baseline's, on the jobs the log gives a start for."""
    from cosched.metrics.validate import compare_schedules

    sim = simulated[simulated["job_id"].isin(recorded["job_id"])].reset_index(drop=True)
    rec = recorded.reset_index(drop=True)
    cmp = compare_schedules(rec, sim, capacity=int(capacity))
    doc.add(
        "## Does the simulated baseline look like your machine?",
        "",
        f"The log's own schedule (`recorded`) beside {base}'s on the {len(rec):,} jobs with a "
        f"logged start: mean wait {cmp.recorded['mean_wait'] / 3600:.2f} h logged against "
        f"{cmp.simulated['mean_wait'] / 3600:.2f} h simulated; the Kolmogorov-Smirnov "
        f"statistic of the two wait distributions is {cmp.ks_statistic:.3f}; "
        f"{100 * cmp.within_share:.1f}% of the jobs start within {cmp.within / 3600:g} h of "
        "their logged start. A what-if is believed only as far as this baseline resembles "
        "what the machine did (`cosched validate` gives the full check).",
        "",
    )


def _robust_fig(curve: list[tuple[float, float, float]], base: str, level: float) -> Any:
    from cosched.compare.figures import HEIGHT, PALETTE, WIDTH, _plt

    plt = _plt()
    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT))
    xs = [c[0] for c in curve]
    ax.errorbar(
        xs,
        [c[1] / 3600 for c in curve],
        yerr=[c[2] / 3600 for c in curve],
        color=PALETTE[0],
        marker="o",
        capsize=3,
        label="node sharing",
    )
    ax.axhline(level / 3600, color=PALETTE[3], linestyle="--", label=base)
    ax.set_xlabel("interference strength (x the preset's victim weights)")
    ax.set_ylabel("mean turnaround (h)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def _write_html(path: Path, md: list[str], svgs: Mapping[str, str]) -> None:
    body: list[str] = []
    in_table = False
    for line in md:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not in_table:
                body.append(
                    "<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cells) + "</tr>"
                )
                in_table = True
            elif not set(line) <= set("|-"):
                body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        if line.startswith("!["):
            name = line.split("figures/")[1].split(".png")[0]
            body.append(f"<figure>{svgs[name]}</figure>")
        elif line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("- "):
            body.append(f"<li>{_inline(line[2:])}</li>")
        elif line:
            body.append(f"<p>{_inline(line)}</p>")
    if in_table:
        body.append("</table>")
    style = (
        "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;font-size:0.85em}td,th{border:1px solid #ccc;"
        "padding:0.2em 0.5em;text-align:right}th{background:#f3f3f3}figure{margin:1em 0}"
        "svg{max-width:100%;height:auto}"
    )
    path.write_text(
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>cosched compare</title>"
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _inline(text: str) -> str:
    out = html.escape(text)
    while "**" in out:
        out = out.replace("**", "<strong>", 1).replace("**", "</strong>", 1)
    while "`" in out:
        out = out.replace("`", "<code>", 1).replace("`", "</code>", 1)
    return out
