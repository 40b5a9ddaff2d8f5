"""The comparison's report: ``report.md`` (figures as PNG, with an SVG of each beside it)
and ``report.html`` (one self-contained file with the figures inline as SVG).

Every section is computed from the store's tables; the verdict's paragraphs come from
:mod:`cosched.compare.mechanisms`. Each figure is drawn on its own (:class:`Document`):
one that fails leaves a note naming its error, never a lost report.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from cosched.compare.analysis import (
    SUMMARY_METRICS,
    busiest_day,
    ci95,
    class_means,
    job_ratios,
    summary_table,
    winners_losers,
)
from cosched.compare.document import Document, write_html
from cosched.compare.gantt import machine_of
from cosched.compare.mechanisms import report_verdict, robustness_note
from cosched.compare.site import FIT_WARNING
from cosched.compare.study import MACHINE_CHECK, differences
from cosched.metrics.summary import JobClasses
from cosched.platform import Platform

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from cosched.compare.study import Comparison

__all__ = ["FigureWarning", "write_report"]


class FigureWarning(UserWarning):
    """A figure of the report could not be drawn; the report has a note in its place."""


#: ``(strength, mean turnaround, CI half-width)`` points of the robustness sweep.
Curve = list[tuple[float, float, float]]

_HOURS = {"h"}


#: How the note of ``compare --baseline fitted`` starts (:func:`cosched.cli._fit.fitted_arm`).
FITTED_BASELINE = "fitted baseline "


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def baseline_paragraphs(notes: Sequence[str]) -> list[str]:
    """The fitted baseline's held-out match and the fit's warnings, for the verdict:
    the verdict's numbers are only as good as the baseline's match to what the machine
    did."""
    fitted = [f"the {n.rstrip('.')}." for n in notes if n.startswith(FITTED_BASELINE)]
    warned = [_upper(n.removeprefix(FIT_WARNING).rstrip(".")) + "." for n in notes
              if n.startswith(FIT_WARNING)]  # fmt: skip
    return [f"*Baseline*: {' '.join([*fitted, *warned])}"] if fitted else []


def _recorded_match(run: _Run) -> list[str]:
    """The best baseline against the log's own schedule, in one sentence (when the log
    records its starts and the baseline was not fitted, which says its own match)."""
    from cosched.metrics.validate import compare_schedules, judge

    recorded = run.shown[len(run.main) :]
    if (
        not recorded
        or run.base is None
        or any(n.startswith(FITTED_BASELINE) for n in run.comparison.notes)
    ):
        return []
    first = run.first
    rec = first[recorded[0]].reset_index(drop=True)
    sim = first[run.base]
    sim = sim[sim["job_id"].isin(rec["job_id"])].reset_index(drop=True)
    cmp = compare_schedules(rec, sim, capacity=int(run.machines[run.base].capacity))
    j = judge(cmp)
    return [
        f"*Baseline*: the match of {run.base} to the log's own schedule is {j.level} "
        f"({j.why}): {j.meaning}."
    ]


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


def _summary_rows(summary: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    metrics = [m for m in SUMMARY_METRICS if m[0] in keys]
    head = ["policy"] + [f"{label} ({u})" if u else label for _, label, u in metrics]
    rows = []
    for r in summary.to_dict("records"):
        n = int(r["seeds"])
        cells = [_fmt(r.get(k, math.nan), r.get(f"{k}_ci", 0.0), u, n) for k, _, u in metrics]
        rows.append([r["policy"], *cells])
    return pd.DataFrame(rows, columns=head)


#: The summary's two tables: times (h), then slowdown and machine figures; one table of
#: eleven columns with intervals does not fit a page's width.
_TIMES = ("mean_wait", "median_wait", "p95_wait", "mean_turnaround", "median_turnaround",
          "p95_turnaround")  # fmt: skip


def _utilization_note(
    table: pd.DataFrame, shown: Sequence[str], machines: Mapping[str, Platform]
) -> str | None:
    """What utilization means where a processor takes several jobs at once (mpl > 1)."""
    multi = [p for p in shown if machines[p].mpl > 1]
    if not multi:
        return None
    busy = []
    for p in multi:
        part = table[table["arm"] == p]
        if "node_busy_utilization" in part and part["node_busy_utilization"].notna().any():
            busy.append(f"{p} {part['node_busy_utilization'].mean():.2f}")
    named = "; ".join(f"`{p}`: {machines[p].mpl} slots per processor" for p in multi)
    mpl = machines[multi[0]].mpl
    share = "half" if mpl == 2 else f"1/{mpl}"
    text = (
        "Utilization is the share of the machine's capacity that jobs hold. Where a "
        f"processor can take several jobs at once ({named}), every slot counts in the "
        f"capacity: a processor running one job in one of its {mpl} slots counts as {share} "
        "busy. Their utilization is therefore not comparable with a baseline's (where a "
        "processor is either busy or idle), and a low value does not mean idle processors."
    )
    if busy:
        text += f" Share of node-time with at least one job on the node: {', '.join(busy)}."
    return text


@dataclass
class _Run:
    """What the sections share: the arms that ran, their first run's jobs and machines."""

    comparison: Comparison
    table: pd.DataFrame
    jobs: Mapping[str, Sequence[pd.DataFrame]]
    classes: JobClasses
    main: list[str]
    baselines: list[str]
    shown: list[str]
    machines: dict[str, Platform]
    summary: pd.DataFrame
    base: str | None
    best_co: str | None

    @property
    def first(self) -> dict[str, pd.DataFrame]:
        return {p: self.jobs[p][0] for p in self.shown}

    @property
    def procs(self) -> int:
        return max(self.machines[p].procs for p in self.main)

    def level(self, policy: str) -> float:
        return float(self.summary.set_index("policy").loc[policy, "mean_turnaround"])


def _facts(
    comparison: Comparison,
    table: pd.DataFrame,
    jobs: Mapping[str, Sequence[pd.DataFrame]],
    classes: JobClasses,
) -> _Run:
    from cosched.compare.study import BASELINES

    ran = set(table["arm"])
    main = [a.label for a in comparison.main if a.label in ran]
    baselines = [a.label for a in comparison.main if a.label in ran and a.policy in BASELINES]
    reference = [a.label for a in comparison.arms if a.role == "reference" and a.label in ran]
    shown = main + reference
    machines = {p: machine_of(str(table[table["arm"] == p]["platform"].iloc[0])) for p in shown}
    summary = summary_table(table, main)
    from cosched.policies.base import policy_class

    batch = {a.label for a in comparison.main if policy_class(a.policy).family == "batch"}
    return _Run(
        comparison, table, jobs, classes, main, baselines, shown, machines, summary,
        _best(summary, baselines), _best(summary, [p for p in main if p not in batch]),
    )  # fmt: skip


def write_report(
    out: Path,
    comparison: Comparison,
    table: pd.DataFrame,
    jobs: Mapping[str, Sequence[pd.DataFrame]],
    *,
    classes: JobClasses,
) -> Path:
    """Write ``report.md`` and ``report.html``; return the Markdown path.

    Each figure is drawn on its own: one that fails is replaced by a note naming the
    error, and a :class:`FigureWarning` says so (the caller decides how to show it).
    """
    run = _facts(comparison, table, jobs, classes)
    doc = Document(out)
    where = str(comparison.workload.get("path") or comparison.workload.get("kind"))
    doc.add(f"# Should jobs share nodes or time slices on this machine? ({Path(where).name})", "")
    wl = _winners_losers(run)
    curve = _robustness_curve(comparison, table)
    swept = comparison.robustness[0].label.rsplit("@", 1)[0] if curve else ""
    doc.add("## Verdict", "")  # built from the runs' measured mechanisms
    head, *rest = report_verdict(comparison, table, jobs, run.summary, wl)
    doc.add(head, "")
    # Beside the headline: what the verdict's numbers are only as good as.
    for note in comparison.notes:
        if note.startswith(MACHINE_CHECK):
            doc.add(f"*Machine*: {_upper(note.removeprefix(MACHINE_CHECK))}.", "")
    for paragraph in [*baseline_paragraphs(comparison.notes), *_recorded_match(run)]:
        doc.add(paragraph, "")
    if any(n.endswith("(--baseline)") for n in comparison.notes) and run.base is not None:
        for paragraph in differences(comparison, run.base):
            doc.add(f"*Unlike the baseline*: {paragraph}", "")
    for paragraph in rest:
        doc.add(paragraph, "")
    _assumptions(doc, run)
    _how_section(doc, run)
    _summary_section(doc, run)
    _attribution_section(doc, run)
    _figure_sections(doc, run, wl)
    if curve and run.base is not None:
        _robustness_section(doc, run, curve, swept)
    mixes = [a for a in comparison.arms if a.role == "mix" and a.label in set(table["arm"])]
    if mixes and run.base is not None:
        _mix_section(doc, table, mixes, run.base, run.level(run.base))
    path = out / "report.md"
    path.write_text("\n".join(doc.md) + "\n")
    write_html(out / "report.html", doc.md, doc.svgs)
    for name, error in doc.failed:
        warnings.warn(
            FigureWarning(f"figure {name!r} could not be drawn ({error}); the report has a note"),
            stacklevel=2,
        )
    return path


def _assumptions(doc: Document, run: _Run) -> None:
    """What the verdict rests on that no log says, beside the verdict."""
    from cosched.compare.attribution import stated_assumptions
    from cosched.policies.base import policy_class

    arms = [
        (a.label, a.policy, a.params)
        for a in run.comparison.main
        if a.label in run.main and policy_class(a.policy).family != "batch"
    ]
    lines = stated_assumptions(arms, run.comparison.assumptions)
    if lines:
        doc.add("*Assumed* (no log records these; each changes the answer):", "")
        doc.add(*(f"- {line}" for line in lines))
        doc.add("")


def _attribution_section(doc: Document, run: _Run) -> None:
    """Each coscheduling arm's chain of control runs from the best baseline."""
    from cosched.compare.attribution import STEP_WORDS
    from cosched.compare.mechanisms import report_attributions

    parts = report_attributions(run.comparison, run.table, run.summary)
    if not parts:
        return
    doc.add(
        "## Where the gain comes from",
        "",
        "Control runs: each coscheduling policy again with its assumptions, then its own "
        "mechanism, turned off one at a time (node sharing: shrinking, the memory-bandwidth "
        "speedup, then sharing; LOMARC: SMT, then pairing; gang: time slicing). Read from "
        "the top: the best baseline, the same scheduler with everything off, then each step "
        "turned back on. A step's change is the mean over seeds of the paired differences "
        "in mean turnaround, as a share of the baseline's, with its 95% interval.",
        "",
    )
    by = summary_table(run.table, sorted(set(run.table["arm"]))).set_index("policy")
    rows: list[list[str]] = []
    for a in parts.values():
        if not rows:
            rows.append([a.base, "the best baseline", _fmt_h(by, a.base), ""])
        for p in a.parts:
            step = (
                "the same scheduler, all of the below off"
                if p.kind == "baseline"
                else f"turns on {STEP_WORDS.get(p.what, p.what)}"
            )
            share = -100 * p.gain / a.level
            change = "0.0%" if abs(share) < 0.05 else f"{share:+.1f}%"
            if p.runs > 1:
                change += f" ± {100 * p.half / a.level:.1f}%"
            rows.append([p.on, step, _fmt_h(by, p.on), change])
    columns = ["policy", "step", "mean turnaround (h)", "change (share of baseline)"]
    doc.table(pd.DataFrame(rows, columns=columns))


def _fmt_h(by: pd.DataFrame, arm: str) -> str:
    r = by.loc[arm]
    return _fmt(float(r["mean_turnaround"]), float(r["mean_turnaround_ci"]), "h", int(r["seeds"]))


def _winners_losers(run: _Run) -> pd.DataFrame | None:
    """Per class, the best coscheduling policy's jobs against the best baseline's."""
    if run.base is None or run.best_co is None:
        return None
    base = run.jobs[run.base][0]
    ratios = pd.concat(
        job_ratios(j, base, capacity_procs=run.procs, classes=run.classes)
        for j in run.jobs[run.best_co]
    )
    # One row per job (not per job and seed): its mean ratio over seeds, which is its
    # mean turnaround over seeds against the baseline's (one run: baselines draw nothing).
    per_job = ratios.groupby(level=0, sort=False).agg(
        ratio=("ratio", "mean"), duration_class=("duration_class", "first"),
        width_class=("width_class", "first"),
    )  # fmt: skip
    return winners_losers(per_job)


def _how_section(doc: Document, run: _Run) -> None:
    by_policy = run.summary.set_index("policy")
    random = {a.label for a in run.comparison.main if a.random}
    # The fitted outages an arm runs under (compare --baseline fitted: site.with_site).
    gone = {a.label: len(a.machine.get("unavailable") or ()) for a in run.comparison.arms}
    under = {
        p: f", under the fitted unavailability ({n} interval{'s' if n > 1 else ''})"
        for p, n in gone.items()
        if n
    }
    for a in run.comparison.arms:  # the fitted partitions an arm runs in (with_site)
        if a.machine.get("partitions"):
            n = len(a.machine["partitions"])
            under[a.label] = under.get(a.label, "") + f", in the fitted partitions ({n})"
    doc.add("## How it was run", "")
    for p in run.main:
        n = int(by_policy.loc[p, "seeds"])
        kind = (
            f"{n} seed{'s' if n > 1 else ''} (profiles drawn at random)"
            if p in random
            else "one run"
        )
        doc.add(f"- `{p}` on {run.machines[p].describe()}{under.get(p, '')}: {kind}")
    for p in _beside(run):
        doc.add(
            f"- `{p}`{under.get(p, '')}: one run beside the baseline compared against "
            f"({'with' if p == 'easy' else 'without'} backfilling), never a candidate"
        )
    for p in run.shown[len(run.main) :]:
        doc.add(f"- `{p}`: the schedule the log records (each job's logged start), for reference")
    ran = set(run.table["arm"])
    controls = [a.label for a in run.comparison.controls if a.control_of and a.label in ran]
    if controls:
        doc.add(
            f"- {len(controls)} control runs, each policy with its assumptions and then its "
            "mechanism turned off, with the seeds of the policy it controls: "
            + ", ".join(f"`{c}`" for c in controls)
        )
    doc.add(*(f"- {note}" for note in run.comparison.notes))
    doc.add("")


def _beside(run: _Run) -> list[str]:
    """The baselines run beside the one compared against (``--baseline``): EASY with
    backfilling, FCFS without."""
    ran = set(run.table["arm"])
    return [
        a.label
        for a in run.comparison.controls
        if a.control_of is None and a.label in ran and a.label not in run.main
    ]


def _summary_section(doc: Document, run: _Run) -> None:
    doc.add(
        "## Summary",
        "",
        "Means over seeds with the half-width of the 95% confidence interval (Student's t, "
        "shown when a policy ran with several seeds); times in hours.",
        "",
    )
    beside = _beside(run)
    full = summary_table(run.table, [*run.main, *beside, *run.shown[len(run.main) :]])
    doc.table(_summary_rows(full, _TIMES))
    doc.table(_summary_rows(full, [k for k, _, _ in SUMMARY_METRICS if k not in _TIMES]))
    note = _utilization_note(run.table, run.shown, run.machines)
    if note is not None:
        doc.add(note, "")
    recorded = run.shown[len(run.main) :]
    if recorded and run.base is not None:
        first = run.first
        capacity = run.machines[run.base].capacity
        _reference_section(doc, first[recorded[0]], first[run.base], run.base, capacity)
        _replay_note(doc, run.table[run.table["arm"] == recorded[0]])


def _class_ci(run: _Run) -> pd.DataFrame:
    """Per policy and class: mean turnaround over seeds (each seed's class mean) and
    the half-width of its 95% confidence interval."""
    rows = []
    for p in run.shown:
        per_seed = pd.concat(
            class_means({p: [j]}, capacity_procs=run.procs, classes=run.classes)
            for j in run.jobs[p]
        )
        for (d, w), part in per_seed.groupby(["duration_class", "width_class"], observed=True):
            mean, half, _ = ci95(part["mean_turnaround"].dropna().tolist() or [math.nan])
            rows.append(
                {"policy": p, "duration_class": d, "width_class": w,
                 "mean_turnaround": mean / 3600, "mean_turnaround_ci": half / 3600}
            )  # fmt: skip
    return pd.DataFrame(rows)


def _figure_sections(doc: Document, run: _Run, wl: pd.DataFrame | None) -> None:
    from cosched.compare import figures

    first = run.first
    doc.add("## Distributions", "")
    doc.figure("cdf", lambda: figures.cdf_figure(first, run.shown))
    c = run.classes
    doc.add(
        "## By job class",
        "",
        f"Classes: short <= {c.short:g} s < medium <= {c.medium:g} s < long run time; wide "
        f"jobs take more than {c.wide_fraction:g} of the processors. Error bars: the 95% "
        "confidence interval over seeds.",
        "",
    )
    doc.figure(
        "classes",
        lambda: figures.class_figure(
            _class_ci(run), run.main, "mean_turnaround", "mean turnaround (h)"
        ),
    )
    base, best_co = run.base, run.best_co
    if wl is not None and base is not None and best_co is not None:
        doc.add(
            f"## Who wins and who loses: {best_co} against {base}",
            "",
            "Per job, its mean turnaround over seeds under the coscheduling policy over its "
            "turnaround under the best baseline (each job counted once); faster and slower "
            "mean by more than 5%.",
            "",
        )
        wl_table = wl.assign(
            faster=(100 * wl["faster"]).round(1),
            slower=(100 * wl["slower"]).round(1),
            median_ratio=wl["median_ratio"].round(3),
        )
        wl_table.columns = ["duration", "width", "jobs", "faster (%)", "slower (%)", "median ratio"]
        doc.table(wl_table)
        doc.figure("ratios", lambda: figures.ratio_figure(wl, best_co, base))
    doc.add(
        "## Over time",
        "",
        "Utilization and queued jobs of each policy (first seed), with "
        f"{base or 'the best baseline'} in grey behind it.",
        "",
    )
    capacity = {p: float(m.capacity) for p, m in run.machines.items()}
    notes = {p: f"(share of {m.mpl}\nslots each)" for p, m in run.machines.items()
             if m.mpl > 1}  # fmt: skip
    doc.figure("time", lambda: figures.time_figure(first, run.shown, capacity, base, notes=notes))
    _gantt_section(doc, run)


def _gantt_arms(run: _Run) -> list[str]:
    """The best arm of each coscheduling family (best first), then the best baseline:
    each family's way of sharing the machine, beside the schedule it is compared with."""
    from cosched.policies.base import policy_class

    policy = {a.label: a.policy for a in run.comparison.main}
    best: dict[str, str] = {}
    ranked = run.summary.sort_values("mean_turnaround", kind="stable")["policy"]
    for p in ranked:
        if p not in run.baselines:
            best.setdefault(policy_class(policy[p]).family, str(p))
    return [*best.values(), *([run.base] if run.base is not None else [])]


def _gantt_section(doc: Document, run: _Run) -> None:
    from cosched.compare import figures
    from cosched.compare.gantt import lanes

    drawn = _gantt_arms(run)
    if not drawn:
        return
    window = run.comparison.gantt_window or busiest_day(run.first[drawn[0]])
    what = "the chosen window" if run.comparison.gantt_window else f"{drawn[0]}'s busiest day"
    days = f"{window[0] / 86400:.1f} to {window[1] / 86400:.1f} days"
    doc.add(
        f"## Gantt chart of {what} ({days})",
        "",
        "Each job on the processors it held (first seed), under the best policy of each "
        "coscheduling family and the best baseline; a job keeps its colour in every "
        "panel. Runs record how many processors "
        "and slots a job held, not which: lanes are reconstructed by replaying starts and "
        "ends, a job taking the lowest free processors of the first slot with room. Where "
        "a processor takes several jobs at once, its slots are drawn as bands over all "
        "the processors: a LOMARC pair's second job in slot 2 above its partner, a gang "
        "matrix's rows one above the other.",
        "",
    )

    def draw() -> Figure:
        panels = []
        for p in drawn:
            jobs = run.first[p]
            panels.append((jobs, lanes(jobs, run.machines[p], window), p))
        return figures.gantt_figure(panels, window)

    doc.figure("gantt", draw)


def _robustness_section(doc: Document, run: _Run, curve: Curve, swept: str) -> None:
    from cosched.compare import figures

    base = run.base
    assert base is not None
    level = run.level(base)
    doc.add(
        "## Robustness: how strong must interference be to change the answer?",
        "",
        f"`{swept}` with its victim weights (how much co-located jobs slow each other) "
        "multiplied by a strength factor; 1 is the preset in force. "
        f"{base}'s mean turnaround ({level / 3600:.2f} h) is the line to beat.",
        "",
    )
    rows = [[f"{s:g}", f"{m / 3600:.2f} ± {h / 3600:.2f}"] for s, m, h in curve]
    doc.table(pd.DataFrame(rows, columns=["strength", "mean turnaround (h)"]))
    note = robustness_note(run.comparison, run.table, run.jobs)  # a flat curve tests nothing
    if note is not None:
        doc.add(note, "")
    doc.figure("robustness", lambda: figures.robustness_figure(curve, base, level, swept))


def _robustness_curve(comparison: Comparison, table: pd.DataFrame) -> Curve:
    """``(strength, mean turnaround, CI half-width)`` of the interference sweep."""
    curve: Curve = []
    for arm in comparison.robustness:
        part = table[table["arm"] == arm.label]
        if len(part) and arm.strength is not None:
            mean, half, _ = ci95(part["mean_turnaround"].tolist())
            curve.append((arm.strength, mean, half))
    return sorted(curve)


def _mix_section(
    doc: Document, table: pd.DataFrame, mixes: Sequence[Any], base: str, level: float
) -> None:
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
        change = f"{100 * abs(mean - level) / level:.0f}% {'lower' if mean < level else 'higher'}"
        if mean - half <= level <= mean + half:
            change += " (within the CI)"
        shares = f"{cpu:.0%} / {net:.0%} / {disk:.0%}"
        rows.append([mix, shares, _fmt(mean, half, "h", len(part)), change])
    doc.add(
        f"## Robustness: {main} under other job-type mixes",
        "",
        f"LOMARC pairs jobs by their dominant resource, which no log records; the report "
        f"draws them from the paper's mixtures (CPU / network / disk-bound shares). Mean "
        f"turnaround against {base}'s {level / 3600:.2f} h (lower: pairing wins; within the "
        "CI: the 95% interval includes the baseline's mean):",
        "",
    )
    columns = ["mix", "CPU / net / disk", "mean turnaround (h)", f"against {base}"]
    doc.table(pd.DataFrame(rows, columns=columns))


def _replay_note(doc: Document, rows: pd.DataFrame) -> None:
    """How many jobs the replay of the logged schedule had to delay: the machine could
    not hold them at their logged start (the log's machine held more)."""
    key = "diagnostics.recorded_delayed_jobs"
    if key not in rows or not len(rows) or not rows[key].iloc[0] > 0:
        return
    r = rows.iloc[0]
    doc.add(
        f"The `recorded` row replays the logged starts on the simulated machine, which "
        f"could not hold {r[key]:,.0f} jobs at their logged start: they were delayed (mean "
        f"{r['diagnostics.recorded_delay_mean'] / 3600:.2f} h, longest "
        f"{r['diagnostics.recorded_delay_max'] / 3600:.2f} h). The comparison above reads "
        "this replay, so it differs from `cosched validate`'s, which reads the logged "
        "starts; many delayed jobs name a machine smaller than the log's.",
        "",
    )


def _reference_section(
    doc: Document, recorded: pd.DataFrame, simulated: pd.DataFrame, base: str, capacity: float
) -> None:
    """Does the simulated baseline look like the machine? The log's schedule beside
    the best baseline's, on the jobs the log gives a start for."""
    from cosched.metrics.validate import compare_schedules, judge

    sim = simulated[simulated["job_id"].isin(recorded["job_id"])].reset_index(drop=True)
    rec = recorded.reset_index(drop=True)
    cmp = compare_schedules(rec, sim, capacity=int(capacity))
    verdict = judge(cmp)
    doc.add(
        "## Does the simulated baseline look like your machine?",
        "",
        f"The log's own schedule (`recorded`) beside {base}'s on the {len(rec):,} jobs with a "
        f"logged start: mean wait {cmp.recorded['mean_wait'] / 3600:.2f} h logged against "
        f"{cmp.simulated['mean_wait'] / 3600:.2f} h simulated; the Kolmogorov-Smirnov "
        f"statistic of the two wait distributions is {cmp.ks_statistic:.3f}; "
        f"{100 * cmp.within_share:.1f}% of the jobs start within {cmp.within / 3600:g} h of "
        "their logged start.",
        "",
        f"**The match is {verdict.level}** ({verdict.why}): {verdict.meaning}. "
        "`cosched validate` gives the full check.",
        "",
    )
