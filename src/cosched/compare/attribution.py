"""Where a coscheduling arm's gain comes from, measured by its control runs.

A coscheduling arm differs from the best baseline in several ways at once: another
scheduler (its queue order, its backfilling), its own mechanism (jobs sharing a node,
a processor pair or a time slice) and the assumptions its model makes (node sharing's
malleable shrinking and memory-bandwidth speedup, LOMARC's hyperthreaded processors).
``compare`` runs the same scheduler with each of these turned off in turn
(:attr:`cosched.families.Family.controls`); the chain from the best baseline to the
arm then splits the gain into steps that add up to it:

* *baseline and order*: the best baseline against the arm's scheduler with its
  mechanism and every assumption off;
* *the mechanism*: that control against the one with only the assumptions off;
* *each assumption*, turned back on in the reverse order of the controls.

Each step's change is measured per seed (a randomised arm and its controls draw the
same profiles for a seed: the workload seed depends on the trace and the seed only)
and given with the 95% interval of those paired differences. The order of the chain
is a choice (the steps interact); the design page says why this one.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

__all__ = ["Attribution", "Part", "attribute", "attributions", "part_text", "source_headline"]

#: How the verdict names each step.
STEP_WORDS = {
    "baseline": "the scheduler's own order and backfilling",
    "sharing": "sharing nodes",
    "speedup": "the assumed memory-bandwidth speedup of jobs spread over more nodes",
    "shrinking": "shrinking jobs onto fewer processors (assumes malleable jobs)",
    "pairing": "pairing jobs on a processor",
    "SMT": "hyperthreaded (SMT) processors (assumed)",
    "time slicing": "time slicing",
}
#: The headline's imperative when a step is the largest source of the gain.
_SOURCE = {
    "sharing": "Share nodes",
    "speedup": "Spread jobs over more nodes",
    "shrinking": "Shrink jobs (malleable)",
    "pairing": "Pair jobs",
    "SMT": "Pair jobs on SMT (hyperthreaded) processors",
    "time slicing": "Time-slice",
}


@dataclass(frozen=True)
class Part:
    """One step of the chain from the best baseline to a coscheduling arm.

    Attributes:
        what: ``baseline`` or the step of a family's :attr:`~cosched.families.Family.controls`.
        kind: ``baseline``, ``mechanism`` or ``assumption``.
        off: the arm the step starts from (with it off).
        on: the arm it ends at (with it on).
        gain: mean turnaround removed by the step (s; negative: added), the mean of
            the paired per-seed differences.
        half: the half-width of their 95% interval (0 with one run).
        runs: paired differences.
    """

    what: str
    kind: str
    off: str
    on: str
    gain: float
    half: float
    runs: int


@dataclass(frozen=True)
class Attribution:
    """The chain of one arm: its parts from the baseline to the arm, in order."""

    arm: str
    base: str
    level: float  #: the baseline's mean turnaround (s)
    parts: tuple[Part, ...]

    @property
    def assumed(self) -> list[str]:
        """The assumptions the arm's gain rests on (steps of kind ``assumption``)."""
        return [p.what for p in self.parts if p.kind == "assumption"]

    def source(self) -> Part | None:
        """The step with the largest gain, or None when no step gains."""
        gaining = [p for p in self.parts if p.gain > 0]
        return max(gaining, key=lambda p: p.gain) if gaining else None


def _per_seed(table: pd.DataFrame, arm: str) -> dict[int, float]:
    part = table[table["arm"] == arm]
    return dict(zip(part["seed"].astype(int), part["mean_turnaround"].astype(float), strict=True))


def _paired(table: pd.DataFrame, off: str, on: str) -> list[float]:
    """Per seed, ``off``'s mean turnaround minus ``on``'s; a deterministic arm's one
    run pairs with every seed of the other."""
    a, b = _per_seed(table, off), _per_seed(table, on)
    if not a or not b:
        return []
    if len(a) == 1 and len(b) > 1:
        a = dict.fromkeys(b, next(iter(a.values())))
    if len(b) == 1 and len(a) > 1:
        b = dict.fromkeys(a, next(iter(b.values())))
    return [a[s] - b[s] for s in sorted(set(a) & set(b))]


def attribute(
    table: pd.DataFrame,
    arm: str,
    controls: Sequence[tuple[str, Sequence[str]]],
    base: str,
    kinds: Mapping[str, str],
) -> Attribution | None:
    """The chain of ``arm`` from ``base`` through its control runs.

    Args:
        table: one row per arm and seed (``arm``, ``seed``, ``mean_turnaround``).
        arm: the coscheduling arm.
        controls: its control arms and what each turns off, in the order turned off
            (each turns off its own step and every earlier one).
        base: the best baseline.
        kinds: each step's kind (``mechanism`` or ``assumption``).

    Returns:
        None when a control or the baseline has no finished run.
    """
    from cosched.compare.analysis import ci95

    chain = [(arm, ""), *((label, off[-1]) for label, off in controls)]
    parts: list[Part] = []
    for (on, _), (off, what) in itertools.pairwise(chain):
        diffs = _paired(table, off, on)
        if not diffs:
            return None
        mean, half, n = ci95(diffs)
        parts.append(Part(what, kinds.get(what, "mechanism"), off, on, mean, half, n))
    diffs = _paired(table, base, chain[-1][0])
    if not diffs:
        return None
    mean, half, n = ci95(diffs)
    parts.append(Part("baseline", "baseline", base, chain[-1][0], mean, half, n))
    level = float(table[table["arm"] == base]["mean_turnaround"].mean())
    return Attribution(arm, base, level, tuple(reversed(parts)))


def attributions(
    table: pd.DataFrame,
    arms: Sequence[str],
    controls: Mapping[str, Sequence[tuple[str, Sequence[str]]]],
    base: str,
) -> dict[str, Attribution]:
    """:func:`attribute` of each arm that has control runs (``controls``: arm ->
    its controls in order)."""
    from cosched.families import families

    kinds = {what: kind for f in families() for what, kind, _, _ in f.controls}
    out = {}
    for arm in arms:
        if controls.get(arm):
            a = attribute(table, arm, controls[arm], base, kinds)
            if a is not None:
                out[arm] = a
    return out


def _pct(part: Part, level: float) -> str:
    share = part.gain / level if level > 0 else 0.0
    if abs(share) < 0.005:
        text = "no change"
    else:
        text = f"{100 * abs(share):.0f}% {'lower' if share > 0 else 'higher'}"
    if part.runs > 1 and level > 0:
        text += f" (± {100 * part.half / level:.0f}%)"
    return text


def part_text(a: Attribution, mechanism: str) -> str:
    """One sentence: each step of the chain, as a share of the baseline's mean
    turnaround with its interval over seeds."""
    bits = []
    own = next((STEP_WORDS[p.what] for p in a.parts if p.kind == "mechanism"), mechanism)
    for p in a.parts:
        name = STEP_WORDS.get(p.what, p.what)
        if p.kind == "baseline":
            without = own + (" or any assumption" if a.assumed else "")
            name = f"{name} (the same scheduler without {without}, against {a.base})"
        bits.append(f"{name}: {_pct(p, a.level)}")
    seeds = max((p.runs for p in a.parts), default=1)
    over = f"95% interval over {seeds} seeds" if seeds > 1 else "one run each"
    return (
        f"Where the gain comes from (control runs: the mean turnaround at each step, as a "
        f"share of {a.base}'s; {over}): {'; '.join(bits)}."
    )


def source_headline(a: Attribution, mechanism: str) -> tuple[str, str]:
    """``(imperative, why)`` of the headline from the largest step of the chain: the
    family's mechanism only where that step is the largest source of the gain; an
    assumption by its own name; the order and backfilling of the scheduler otherwise."""
    src = a.source()
    if src is None or src.kind == "baseline":
        # The order and backfilling gain most; a step of the family's own that still
        # gains clearly (over seeds, its whole interval above zero) is named beside.
        own = [p for p in a.parts if p.kind != "baseline" and _clear_gain(p)]
        if not own:
            return "", (
                f"its gain comes from the order in which its scheduler starts jobs and how "
                f"it backfills, not from {mechanism}: turning {mechanism} on does not lower "
                "the same scheduler's mean turnaround beyond the spread over seeds"
            )
        src = max(own, key=lambda p: p.gain)
        why = (
            f"the largest part of its gain comes from {STEP_WORDS['baseline']}, and "
            f"{STEP_WORDS.get(src.what, src.what)} adds to it"
        )
    else:
        why = f"the largest part of its gain comes from {STEP_WORDS.get(src.what, src.what)}"
    word = _SOURCE.get(src.what, src.what)
    if src.what == "pairing" and "SMT" in a.assumed:
        word = _SOURCE["SMT"]
    return word, why


def _clear_gain(part: Part) -> bool:
    """Whether a step lowers the mean turnaround with its whole 95% interval over seeds
    (one run has no interval, so it never shows a clear gain)."""
    return part.runs >= 2 and part.gain - part.half > 0


def stated_assumptions(
    arms: Sequence[tuple[str, str, Mapping[str, object]]], assumptions: Mapping[str, object]
) -> list[str]:
    """The assumptions the verdict rests on, one line per arm (``(label, policy,
    params)`` of the main coscheduling arms), and what ``--quick`` left out.

    Args:
        arms: the coscheduling arms shown.
        assumptions: the comparison's :attr:`~cosched.compare.study.Comparison.assumptions`.
    """
    from cosched.families import family
    from cosched.policies.base import policy_class

    out = []
    for label, name, params in arms:
        cls = policy_class(name)
        declared = family(cls.family)
        stating = declared.assumptions if declared is not None else None
        said = stating(cls(**params)) if stating is not None else []
        if said:
            out.append(f"`{label}`: {'; '.join(said)}.")
    skipped = []
    if assumptions.get("robustness") is False:
        skipped.append(
            "the robustness sweeps (interference strength, gang's switch cost, LOMARC's "
            "job-type mixes)"
        )
    if assumptions.get("seeds") == 1:
        skipped.append("the extra seeds (one run per policy: no interval over seeds)")
    if skipped:
        out.append(
            f"Left out (--quick, --no-robustness or --seeds 1): {' and '.join(skipped)}; "
            "run without them for the full answer."
        )
    return out
