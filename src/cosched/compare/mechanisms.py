"""What each coscheduling family actually did in a comparison, measured from its runs.

A family can beat the baselines through its own mechanism (jobs sharing a node, a time
slice or a processor pair) or through something else it does on the way (node
sharing also runs jobs *shrunk*, on fewer processors than they asked for; any policy
may start jobs in a better order). The verdict names the mechanism the per-job tables
show, never the one the family's name promises. Everything here is a pure function
of per-job tables (one per seed) and result rows. Which measures apply to a family, and
the words the verdict uses for its mechanism, are the family's own declaration
(:class:`cosched.families.Mechanism`): this module names no family.

Per-job measures, pooled over seeds:

* **shared a node** (``shared``; node sharing, LOMARC's pairs): the ``shared_node``
  column the experiment store records for placement-aware runs
  (:func:`cosched.metrics.colocation.shared_node`);
* **time-sliced** (``sliced``; gang): the job took longer than its run time. Gang's
  progress rate is ``efficiency`` unless the job is suspended for another row's slot,
  and a trace's efficiency is 1 (no ``gang_efficiency`` column), so a stretched job is
  exactly one that gave up slots to another job;
* **shrunk** (``shrunk``; node sharing): the job held fewer cores than the processors
  it asked for (``occupancy x cores per node < procs``: a malleable configuration);
* **spread** (``spread``; node sharing): the job ran on more nodes than its processors
  fill.

Each is given as a share of the jobs and a share of the unit-hours the jobs held
(``occupancy`` or ``size`` times the time run): node-hours on node-allocated machines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

import numpy as np
import pandas as pd

from cosched import families as registry
from cosched.compare.attribution import Attribution, part_text, source_headline
from cosched.compare.gantt import machine_of
from cosched.families import Mechanism

if TYPE_CHECKING:
    from cosched.compare.study import Comparison

__all__ = [
    "Mechanisms",
    "Share",
    "Sweep",
    "describe",
    "flat",
    "measure",
    "measures",
    "mechanism",
    "report_verdict",
    "robustness_note",
    "shrunk",
    "sweep_curve",
    "time_sliced",
    "verdict",
]

#: A relative change below this is no change (outcomes are sums of floats).
_TOL = 1e-9


def mechanism(family: str) -> Mechanism | None:
    """What ``family`` declares of its mechanism (None: a batch policy, a family that
    declares none)."""
    got = registry.family(family) if family else None
    return got.mechanism if got is not None else None


@dataclass(frozen=True)
class Share:
    """A measure's share of the jobs and of the unit-hours they held (0 to 1)."""

    jobs: float
    hours: float
    #: What the hours are: ``node-hours`` (node allocation) or ``core-hours``.
    unit: str = "node-hours"

    def text(self) -> str:
        return f"{100 * self.jobs:.0f}% of jobs ({100 * self.hours:.0f}% of their {self.unit})"


@dataclass(frozen=True)
class Mechanisms:
    """What a coscheduling arm did: each measure, or None where it does not apply to
    the family or the runs did not record it."""

    family: str
    shared: Share | None = None
    sliced: Share | None = None
    shrunk: Share | None = None
    spread: Share | None = None

    @property
    def colocated(self) -> Share | None:
        """The family's own mechanism: a shared node, a pair or a time slice (the first
        of ``sliced`` and ``shared`` its :class:`~cosched.families.Mechanism` measures)."""
        mech = mechanism(self.family)
        own = (w for w in (mech.measures if mech else ()) if w in ("sliced", "shared"))
        return self.sliced if next(own, "shared") == "sliced" else self.shared


def _held_hours(jobs: pd.DataFrame) -> np.ndarray:
    held = (jobs["occupancy"] if "occupancy" in jobs else jobs["size"]).to_numpy(dtype=float)
    ran = (jobs["end_time"] - jobs["start_time"]).to_numpy(dtype=float)
    return held * ran / 3600.0


def _share(flags: Sequence[np.ndarray], hours: Sequence[np.ndarray], unit: str) -> Share:
    f, h = np.concatenate(flags), np.concatenate(hours)
    total = float(h.sum())
    return Share(
        jobs=float(f.mean()) if f.size else 0.0,
        hours=float(h[f].sum() / total) if total > 0 else 0.0,
        unit=unit,
    )


def shrunk(jobs: pd.DataFrame, cores: int) -> np.ndarray:
    """Per job: ran on fewer cores than the processors it asked for (a node-allocated
    run's ``occupancy`` is in nodes' worth of cores)."""
    if "occupancy" not in jobs:
        return np.zeros(len(jobs), dtype=bool)
    held = jobs["occupancy"].to_numpy(dtype=float) * cores
    return held < jobs["procs"].to_numpy(dtype=float) * (1 - _TOL)


def spread(jobs: pd.DataFrame, cores: int) -> np.ndarray:
    """Per job: ran on more nodes than its processors fill (``nodes_used`` > procs /
    cores, rounded up): fewer cores on each node, the others left to other jobs."""
    if "nodes_used" not in jobs:
        return np.zeros(len(jobs), dtype=bool)
    need = -(-jobs["procs"].to_numpy(dtype=np.int64) // cores)
    return jobs["nodes_used"].to_numpy(dtype=np.int64) > need


def time_sliced(jobs: pd.DataFrame) -> np.ndarray:
    """Per job: took longer than its run time (gave up time slots to another job)."""
    ran = (jobs["end_time"] - jobs["start_time"]).to_numpy(dtype=float)
    return ran > jobs["run_time"].to_numpy(dtype=float) * (1 + _TOL) + _TOL


def measure(
    runs: Sequence[pd.DataFrame], family: str, cores: int, *, unit: str = "node-hours"
) -> Mechanisms:
    """The mechanisms of one arm from its per-job tables (one per seed), pooled.

    Args:
        runs: the arm's per-job tables.
        family: the policy's family; its :class:`~cosched.families.Mechanism` says
            which measures apply.
        cores: cores per node of the arm's machine.
        unit: what a job's held units times hours are (``node-hours``, ``core-hours``).
    """
    mech = mechanism(family)
    applies = set(mech.measures) if mech is not None else set()
    hours = [_held_hours(j) for j in runs]
    shared = sliced = small = wide = None
    if "shared" in applies and all("shared_node" in j for j in runs):
        shared = _share([j["shared_node"].to_numpy(dtype=bool) for j in runs], hours, unit)
    if "sliced" in applies:
        sliced = _share([time_sliced(j) for j in runs], hours, unit)
    if "shrunk" in applies:
        small = _share([shrunk(j, cores) for j in runs], hours, unit)
    if "spread" in applies and all("nodes_used" in j for j in runs):
        wide = _share([spread(j, cores) for j in runs], hours, unit)
    return Mechanisms(family, shared, sliced, small, wide)


def flat(curve: Sequence[tuple[float, float, float]]) -> bool:
    """Whether a robustness curve ``(strength, mean, half-width)`` never moves (every
    mean equal to the first within a relative 1e-9)."""
    if len(curve) < 2:
        return False
    first = curve[0][1]
    return all(abs(m - first) <= _TOL * max(abs(first), 1.0) for _, m, _ in curve)


def describe(arm: str, m: Mechanisms) -> str:
    """One sentence: what ``arm`` did, measured."""
    mech = mechanism(m.family)
    if mech is None:
        return ""
    parts = []
    for what in mech.measures:
        if what == "shared":
            parts.append(
                mech.unrecorded if m.shared is None else f"{m.shared.text()} {mech.shared}"
            )
        elif what == "spread" and m.spread is not None:
            parts.append(f"{m.spread.text()} ran spread over more nodes than their processors need")
        elif what == "shrunk" and m.shrunk is not None:
            parts.append(
                f"{m.shrunk.text()} ran shrunk, on fewer processors than they asked for "
                "(malleable shrinking: only applications that can run on fewer processors "
                "allow it)"
            )
        elif what == "sliced" and m.sliced is not None:
            parts.append(f"{m.sliced.text()} gave up time slices to another job")
    return f"Under {arm}, " + "; ".join(parts) + "." if parts else ""


def _measure_on(runs: Sequence[pd.DataFrame], family: str, platform: str) -> Mechanisms:
    """:func:`measure` on the machine a run's ``platform`` column describes."""
    m = machine_of(platform)
    unit = "node-hours" if m.allocation.value == "nodes" else "core-hours"
    return measure(runs, family, m.cores, unit=unit)


def measures(
    arms: Mapping[str, str],
    jobs: Mapping[str, Sequence[pd.DataFrame]],
    platforms: Mapping[str, str],
) -> dict[str, Mechanisms]:
    """:func:`measure` of each coscheduling arm (``arms``: label -> family)."""
    return {
        a: _measure_on(jobs[a], family, platforms[a])
        for a, family in arms.items()
        if mechanism(family) is not None and a in jobs
    }


# -- the verdict --------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweep:
    """A robustness sweep of one arm: ``(x, mean turnaround, half-width)`` points.

    Attributes:
        arm: the swept arm's label.
        curve: the points, by increasing ``x``.
        what: what ``x`` is, for the sentence (``interference strength``).
        unit: what follows a value of ``x`` (`` times the preset``).
    """

    arm: str
    curve: Sequence[tuple[float, float, float]]
    what: str
    unit: str
    #: Gang's time slot (s), to read an efficiency as a switch cost.
    quantum: float | None = None
    #: Planned points not run (``compare`` stops gang's switch-cost sweep once gang no
    #: longer beats the best baseline).
    skipped: tuple[float, ...] = ()


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _h(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h"


def _with_ci(row: pd.Series) -> str:
    seeds = int(row["seeds"])
    if seeds <= 1:
        return f"{_h(row['mean_turnaround'])} (one run)"
    return (
        f"{_h(row['mean_turnaround'])} (95% CI ± {_h(row['mean_turnaround_ci'])} over "
        f"{seeds} seeds)"
    )


def _best(summary: pd.DataFrame, among: Sequence[str]) -> str | None:
    part = summary[summary["policy"].isin(among)]
    if part.empty:
        return None
    return str(part.sort_values("mean_turnaround", kind="stable").iloc[0]["policy"])


def _against(c: pd.Series, b: pd.Series, base: str) -> tuple[float, bool, str]:
    """``(gain, separated, sentence)`` of an arm against the best baseline."""
    gain = (b["mean_turnaround"] - c["mean_turnaround"]) / b["mean_turnaround"]
    separated = abs(b["mean_turnaround"] - c["mean_turnaround"]) > (
        b["mean_turnaround_ci"] + c["mean_turnaround_ci"]
    )
    way = "lower" if gain > 0 else "higher"
    text = (
        f"{_with_ci(c)} against {_h(b['mean_turnaround'])} under {base}: "
        f"{100 * abs(gain):.0f}% {way}"
    )
    if not separated:
        text += ", within the confidence intervals"
    return gain, separated, text


def _headline(
    arm: str, family: str, m: Mechanisms | None, sentence: str, base: str,
    gain: float, separated: bool, a: Attribution | None = None,
) -> str:  # fmt: skip
    if gain <= 0:
        return f"**Do not share: keep {base}.** The best coscheduling policy, {arm}: {sentence}."
    if not separated:
        return f"**No clear answer.** {arm}: {sentence}."
    mech = mechanism(family)
    if a is not None and mech is not None:
        # The control runs say where the gain comes from: the headline names that.
        word, why = source_headline(a, mech.words)
        if not word:
            return (
                f"**{arm} is faster, but not from {mech.words}.** The lowest mean "
                f"turnaround, {sentence}; {why}."
            )
        return f"**{word}: {arm}.** The lowest mean turnaround, {sentence}; {why}."
    col = m.colocated if m is not None else None
    if col is not None and col.jobs > 0 and mech is not None:
        return f"**{mech.headline}: {arm}.** The lowest mean turnaround, {sentence}."
    shrinks = m is not None and m.shrunk is not None and m.shrunk.jobs > 0
    spreads = m is not None and m.spread is not None and m.spread.jobs > 0
    if col is not None and (shrinks or spreads):
        ways = [
            "running jobs on fewer processors than they asked for, which only malleable "
            "applications allow"
        ] if shrinks else []  # fmt: skip
        if spreads:
            ways.append(
                "spreading jobs over more nodes at fewer cores each (the interference "
                "model's memory-bandwidth speedup), which leaves the other cores idle"
            )
        word = "Shrink jobs (malleable)" if shrinks else "Spread jobs over more nodes"
        return (
            f"**{word}: {arm}.** The lowest mean turnaround, {sentence}; no two jobs shared "
            f"a node, so the gain comes from {' and from '.join(ways)}."
        )
    if col is None or mech is None:
        return f"**{arm} is faster.** The lowest mean turnaround, {sentence}."
    return (
        f"**{arm} is faster without co-locating any job.** The lowest mean turnaround, "
        f"{sentence}; its gain comes from the order in which it starts jobs, not from "
        f"{mech.words}."
    )


def _sweep_sentence(s: Sweep, level: float, base: str, m: Mechanisms | None) -> str:
    from cosched.compare.analysis import break_even

    xs = [p[0] for p in s.curve]
    lo, hi = xs[0], xs[-1]
    if flat(s.curve):
        col = m.colocated if m is not None else None
        why = (
            "the policy never co-located jobs"
            if col is not None and col.jobs == 0
            else ("the outcome did not move")
        )
        return (
            f"Robustness: not sensitive: {why} (the mean turnaround is the same at every "
            f"{s.what} from {lo:g} to {hi:g}{s.unit}), so the sweep tests nothing."
        )
    skipped = ""
    if s.skipped:
        skipped = (
            f" Not run: {', '.join(f'{x:g}' for x in sorted(s.skipped, reverse=True))}; "
            f"at {lo:g} {s.arm} already does no better than {base}, and a dearer switch "
            "only slows its time-sliced jobs further."
        )
    flip = break_even(xs, [p[1] for p in s.curve], level)
    if flip is None:
        return (
            f"Break-even: none in the range tried; the answer against {base} holds for "
            f"every {s.what} from {lo:g} to {hi:g}{s.unit}.{skipped}"
        )
    below = max(x for x in xs if x <= flip)
    above = min(x for x in xs if x >= flip)
    where = f"{flip:g}" if below == above else f"between {below:g} and {above:g}"
    text = f"Break-even: the answer against {base} flips where the {s.what} is {where}{s.unit}"
    if below != above:
        text += f" (about {flip:.3g} by linear interpolation"
        if s.quantum is not None and flip > 0:
            cost = s.quantum * (1 / flip - 1)
            text += f", a switch cost of about {cost:.2g} s per {s.quantum:g} s slot"
        text += ")"
    return f"{text}.{skipped}"


def _half(
    mech: Mechanism, family: str, summary: pd.DataFrame, arms: Sequence[str], base: str,
    mechs: Mapping[str, Mechanisms], sweeps: Mapping[str, Sweep], mixes: bool,
    parts: Mapping[str, Attribution],
) -> str:  # fmt: skip
    by = summary.set_index("policy")
    arm = _best(summary, arms)
    assert arm is not None
    _, _, sentence = _against(by.loc[arm], by.loc[base], base)
    words = [f"*{_upper(mech.words)}*: {arm}, {sentence}."]
    m = mechs.get(arm)
    if m is not None and describe(arm, m):
        words.append(describe(arm, m))
    if arm in parts:
        words.append(part_text(parts[arm], mech.words))
    caveat = (mech.caveat_mixes if mixes else "") or mech.caveat
    if caveat:
        words.append(caveat)
    sweep = sweeps.get(family)
    if sweep is not None and sweep.arm.split("@")[0] == arm:
        words.append(_sweep_sentence(sweep, float(by.loc[base, "mean_turnaround"]), base, m))
    return " ".join(words)


def _classes(wl: pd.DataFrame | None) -> list[str]:
    if wl is None or not len(wl):
        return []
    named = wl[wl["jobs"] > 0]
    gainers = named[named["median_ratio"] < 0.95]
    losers = named[named["median_ratio"] > 1.05]

    def names(rows: pd.DataFrame) -> str:
        return ", ".join(
            f"{d} {w} jobs (median turnaround ratio {r:.2f})"
            for d, w, r in zip(
                rows["duration_class"], rows["width_class"], rows["median_ratio"], strict=True
            )
        )

    out = []
    if len(gainers):
        out.append(f"Who gains: {names(gainers)}.")
    if len(losers):
        out.append(f"Who loses: {names(losers)}.")
    if not len(gainers) and not len(losers):
        out.append("No job class's median turnaround changes by more than 5%.")
    return out


def verdict(
    summary: pd.DataFrame,
    baselines: Sequence[str],
    families: Mapping[str, str],
    *,
    mechs: Mapping[str, Mechanisms] | None = None,
    wl: pd.DataFrame | None = None,
    sweeps: Mapping[str, Sweep] | None = None,
    not_applicable: Mapping[str, str] | None = None,
    mixes: bool = False,
    parts: Mapping[str, Attribution] | None = None,
) -> list[str]:
    """The answer as paragraphs, computed from the numbers and the measured mechanisms.

    The headline names the best arm and the mechanism that acted in its runs; then each
    family that ran (sharing nodes, time slicing, pairing) against the best baseline with
    its interval, what it did and where its answer would flip; the families that could
    not act on this machine; who gains and who loses under the best arm.

    Args:
        summary: :func:`~cosched.compare.analysis.summary_table` of the main arms.
        baselines: the space-sharing baselines among them.
        families: each main arm's family (``batch`` for the baselines).
        mechs: :func:`measures` of the coscheduling arms.
        wl: :func:`~cosched.compare.analysis.winners_losers` of the best coscheduling
            arm against the best baseline.
        sweeps: the robustness sweep of each family that has one.
        not_applicable: family -> why its mechanism cannot act on this machine.
        mixes: LOMARC also ran under the other job-type mixes.
        parts: the attribution of each coscheduling arm by its control runs
            (:mod:`cosched.compare.attribution`): where present, the headline names the
            largest source of the gain, not the mechanism measured.
    """
    mechs, sweeps, parts = mechs or {}, sweeps or {}, parts or {}
    base = _best(summary, baselines)
    if base is None:
        return ["No baseline ran, so there is nothing to compare against."]
    by = summary.set_index("policy")
    # Space-sharing arms beyond the baselines (a learned or plugin batch policy) are
    # shown in the tables but are not an answer to "share or not".
    others = [p for p in summary["policy"] if p not in baselines and families.get(p, "") != "batch"]
    best = _best(summary, others)
    out: list[str] = []
    if best is None:
        out.append(
            f"No coscheduling policy ran; of the baselines, {base} has the lowest mean turnaround "
            f"({_h(by.loc[base, 'mean_turnaround'])})."
        )
    else:
        gain, separated, sentence = _against(by.loc[best], by.loc[base], base)
        family = families.get(best, "")
        head = _headline(
            best, family, mechs.get(best), sentence, base, gain, separated, parts.get(best)
        )
        if gain > 0 and separated and mechanism(family) is not None and best not in parts:
            head += (
                " No control runs split this gain by source (a comparison stored before "
                "they existed): the same command run again adds them to its store."
            )
        c, b = by.loc[best], by.loc[base]
        bs = (b["mean_bounded_slowdown"] - c["mean_bounded_slowdown"]) / b["mean_bounded_slowdown"]
        head += (
            f" Mean bounded slowdown is {100 * abs(bs):.0f}% "
            f"{'lower' if bs > 0 else 'higher'} under {best}."
        )
        out.append(" ".join([head, *_classes(wl)]))
    for f in registry.by_verdict():
        arms = [a for a in others if families.get(a) == f.name]
        if arms and f.mechanism is not None:
            out.append(_half(f.mechanism, f.name, summary, arms, base, mechs, sweeps, mixes, parts))
    for family, why in (not_applicable or {}).items():
        said = mechanism(family)
        label = _upper(said.words if said is not None else family)
        out.append(f"*{label}*: not applicable on this machine: {why}")
    return out


class _Sliced(Protocol):
    """A time-slicing policy, as an ``efficiency`` sweep reads it."""

    quantum: float

    @property
    def efficiency(self) -> float: ...


def sweep_curve(comparison: Comparison, table: pd.DataFrame, role: str) -> Sweep | None:
    """The robustness sweep of ``role`` (``robustness``: interference strength;
    ``efficiency``: a time-sliced job's efficiency, as gang's switch cost) as a
    :class:`Sweep`; an efficiency sweep's main arm gives the point at its own
    efficiency."""
    from cosched.compare.analysis import ci95
    from cosched.policies.base import policy_class

    arms = [a for a in comparison.arms if a.role == role and a.strength is not None]
    if not arms:
        return None
    swept = arms[0].label.rsplit("@", 1)[0]
    points = [(a.strength, a.label) for a in arms]
    quantum = None
    if role == "efficiency":
        main = next(a for a in comparison.main if a.label == swept)
        sliced = cast(_Sliced, policy_class(main.policy)(**main.params))
        quantum = sliced.quantum
        points.append((sliced.efficiency, swept))
    curve = []
    skipped = []
    for x, label in points:
        part = table[table["arm"] == label]
        if len(part) and x is not None:
            mean, half, _ = ci95(part["mean_turnaround"].tolist())
            curve.append((float(x), mean, half))
        elif x is not None:
            skipped.append(float(x))
    if not curve:
        return None
    if role == "efficiency":
        what = "efficiency of a time-sliced job (quantum / (quantum + switch cost))"
        return Sweep(swept, sorted(curve), what, "", quantum, tuple(sorted(skipped)))
    return Sweep(swept, sorted(curve), "interference strength", " times the preset")


def report_verdict(
    comparison: Comparison,
    table: pd.DataFrame,
    jobs: Mapping[str, Sequence[pd.DataFrame]],
    summary: pd.DataFrame,
    wl: pd.DataFrame | None,
) -> list[str]:
    """:func:`verdict` of a stored comparison: the families, mechanisms and sweeps
    read from its plan, results and per-job tables."""
    from cosched.compare.study import BASELINES
    from cosched.policies.base import policy_class

    shown = set(summary["policy"])
    main = [a for a in comparison.main if a.label in shown]
    baselines = [a.label for a in main if a.policy in BASELINES]
    families = {a.label: policy_class(a.policy).family for a in main}
    platforms = {a.label: str(table[table["arm"] == a.label]["platform"].iloc[0]) for a in main}
    sweeps = {}
    for role in ("robustness", "efficiency"):
        s = sweep_curve(comparison, table, role)
        if s is not None:
            sweeps[families.get(s.arm, "")] = s
    return verdict(
        summary,
        baselines,
        families,
        mechs=measures(families, jobs, platforms),
        wl=wl,
        sweeps=sweeps,
        not_applicable=comparison.not_applicable,
        mixes=any(a.role == "mix" and a.label in set(table["arm"]) for a in comparison.arms),
        parts=report_attributions(comparison, table, summary),
    )


def report_attributions(
    comparison: Comparison, table: pd.DataFrame, summary: pd.DataFrame
) -> dict[str, Attribution]:
    """The attribution of each main coscheduling arm of a stored comparison against
    the best baseline, by its control runs."""
    from cosched.compare.attribution import attributions
    from cosched.compare.study import BASELINES

    shown = set(summary["policy"])
    baselines = [a.label for a in comparison.main if a.policy in BASELINES and a.label in shown]
    base = _best(summary, baselines)
    if base is None or table.empty:
        return {}
    controls: dict[str, list[tuple[str, list[str]]]] = {}
    for c in comparison.controls:
        if c.control_of is not None:
            controls.setdefault(c.control_of, []).append((c.label, c.off))
    for chain in controls.values():
        chain.sort(key=lambda c: len(c[1]))
    arms = [a.label for a in comparison.main if a.label in shown and a.label in controls]
    return attributions(table, arms, controls, base)


def robustness_note(
    comparison: Comparison, table: pd.DataFrame, jobs: Mapping[str, Sequence[pd.DataFrame]]
) -> str | None:
    """The line under a flat interference sweep (None when the curve moves): a curve
    that never moves tests nothing and is not robustness."""
    s = sweep_curve(comparison, table, "robustness")
    if s is None or not flat(s.curve):
        return None
    arm = next(a for a in comparison.main if a.label == s.arm)
    platform = str(table[table["arm"] == s.arm]["platform"].iloc[0])
    from cosched.policies.base import policy_class

    m = _measure_on(jobs[s.arm], policy_class(arm.policy).family, platform)
    if m.shared is not None and m.shared.jobs == 0:
        return (
            f"**Not sensitive: the policy never co-located jobs.** No job of {s.arm} shared "
            "a node, so interference never acted: the curve is flat and says nothing about "
            "robustness."
        )
    return (
        "**Not sensitive:** the mean turnaround is the same at every strength, so the "
        "curve says nothing about robustness."
    )
