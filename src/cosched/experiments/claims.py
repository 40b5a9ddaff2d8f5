"""A paper's claims as data: declared per family, judged from the stored results alone.

A family declares its paper's claims as :class:`Claim` values (an id, what the paper
says with its number or range, the paper's words and the line of its text they start
on, how to compute cosched's value per seed from the results table, a tolerance with its
reason, and the modelling choice that explains a disagreement) in a function named by
the spec's ``claims`` key (``module:function`` returning the list); the declaring module
names the paper's text file (``/work/shared/papers/<PAPER>.txt``) in a constant
``PAPER``. The report builder (:mod:`cosched.experiments.report`) calls :func:`evaluate`
on the results, writes the claim table to ``DIR/claims.parquet`` beside
``results.parquet`` (whose provenance names the declaring function in its spec) and
puts it at the top of the report; ``scripts/readme_status.py`` builds the README's
status column and ``docs/fidelity.md`` from it.

The verdict (:func:`verdict`), for a paper range ``[low, high]`` (a single number has
``low == high``; a one-sided claim such as "worse than PSS" has an infinite end) widened
by the claim's :class:`Tolerance` ``tol = max(absolute, relative * max(|low|, |high|))``
(finite ends only) into the *target*, and cosched's mean over seeds with its 95% Student-t interval.
A claim is *one-sided* when its range has an infinite end (the paper's side is beyond
the target's finite end) or it is declared ``direction=True`` with a range on one side
of 0 (the paper's side is that sign). Each verdict means one thing:

* **agrees**: the mean lies in the target and, for a one-sided claim, the whole interval
  lies strictly on the paper's side;
* **inconclusive**: the seeds can neither confirm nor exclude the paper's value: the
  mean is outside the target but the interval reaches it, or a one-sided claim's mean is
  in the target but its interval crosses to the other side; more seeds settle it, up to
  :data:`SEED_CAP`, beyond which the claim disagrees (or, for a mean outside the target,
  the mean alone decides);
* **direction**: for a claim declared ``direction=True`` (a signed comparison: an
  improvement, a difference, an ordering), the paper's range lies on one side of 0 and
  cosched's whole interval on the same side, but outside the target;
* **disagrees**: otherwise;
* **calibrated**: the claim was a target of a parameter fitted to the paper's output
  (:mod:`cosched.experiments.calibration`); cosched's number is shown, never counted;
* **input**: the claim is declared with ``input`` (what the simulation was given: a job
  length set from the paper's own column, say); cosched's number echoes it, so it is
  shown, never counted;
* **untestable**: the claim's *null outcome* (:meth:`Claim.null_outcome`: no effect, or
  the baseline's value) lies in the target too, so the claim cannot fail; shown, never
  counted, until its tolerance is tightened (with its stated reason) so that the null
  falls outside;
* **not simulated**: the claim is declared with ``not_simulated`` (the reason: a trace
  that is not public, a machine the paper does not describe) and kept in the table;
* **not run**: the results hold no finished cell for it (a quick grid, say).

One seed gives no interval: the interval is the mean itself, and the table says so.
The agreement figure (:func:`agreement`) is agrees over every declared claim less the
calibrated, input, untestable and not simulated ones, with the direction and
inconclusive counts beside it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.experiments.stats import Interval, mean_ci

__all__ = [
    "COLUMNS",
    "EXACT",
    "SEED_CAP",
    "UNCOUNTED",
    "VERDICTS",
    "Claim",
    "Improvement",
    "Measure",
    "Quote",
    "Tally",
    "Tolerance",
    "Value",
    "agreement",
    "claims_markdown",
    "combine",
    "evaluate",
    "not_simulated",
    "null_agrees",
    "per_seed",
    "rejudge",
    "select",
    "verdict",
]

Verdict = Literal[
    "agrees",
    "direction",
    "inconclusive",
    "disagrees",
    "calibrated",
    "input",
    "untestable",
    "not simulated",
    "not run",
]
#: The verdicts in the order tables and counts list them.
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
#: Verdicts left out of the agreement figure's denominator.
UNCOUNTED = frozenset({"calibrated", "input", "untestable", "not simulated"})
#: Seeds beyond which an interval reaching the target no longer makes a claim
#: inconclusive: the mean alone decides, and a one-sided claim whose interval crosses
#: its bound disagrees.
SEED_CAP = 20
#: Columns of the claim table (``claims.parquet``), in order.
COLUMNS = (
    "experiment",
    "claim",
    "description",
    "paper",
    "paper_low",
    "paper_high",
    "unit",
    "cosched",
    "cosched_low",
    "cosched_high",
    "seeds",
    "tolerance",
    "null",
    "verdict",
    "reason",
    "paper_line",
    "quote",
)

Measure = Callable[[pd.DataFrame], np.ndarray]


def select(results: pd.DataFrame, where: Mapping[str, object]) -> pd.DataFrame:
    """The finished rows whose parameters equal ``where``, sorted by seed.

    A key absent from the table matches nothing (a claim on a configuration the grid
    did not run is "not run", not an error).
    """
    rows = results[results["status"] == "ok"] if "status" in results else results
    for key, value in where.items():
        if key not in rows.columns:
            return rows.iloc[0:0]
        rows = rows[rows[key] == value]
    return rows.sort_values("seed") if "seed" in rows.columns else rows


def per_seed(results: pd.DataFrame, where: Mapping[str, object], metric: str) -> dict[int, float]:
    """``{seed: metric}`` of one configuration (for measures combining configurations)."""
    rows = select(results, where)
    if metric not in rows.columns:
        return {}
    return {int(s): float(v) for s, v in zip(rows["seed"], rows[metric], strict=True)}


def combine(
    parts: Sequence[Mapping[int, float]], fn: Callable[[Sequence[float]], float]
) -> np.ndarray:
    """``fn`` of the parts' values, per seed that every part has (seeds in order)."""
    if not parts:
        return np.empty(0)
    seeds = sorted(set.intersection(*(set(p) for p in parts)))
    return np.asarray([fn([p[s] for p in parts]) for s in seeds], dtype=np.float64)


@dataclass(frozen=True)
class Value:
    """A metric of one configuration, per seed, times ``scale``."""

    where: Mapping[str, object]
    metric: str
    scale: float = 1.0

    def __call__(self, results: pd.DataFrame) -> np.ndarray:
        rows = select(results, self.where)
        if self.metric not in rows.columns:
            return np.empty(0)
        return rows[self.metric].to_numpy(dtype=np.float64) * self.scale


@dataclass(frozen=True)
class Improvement:
    """The relative improvement of a configuration over a baseline, in %, per seed.

    ``100 * (base - value) / base`` (``higher_is_better``: ``(value - base) / base``),
    paired by seed when the baseline ran the same seeds (common random numbers); a
    baseline with a single row (a deterministic policy run once) is the baseline of
    every seed. ``difference=True`` gives ``value - base`` (times ``scale``) instead.
    """

    where: Mapping[str, object]
    base: Mapping[str, object]
    metric: str
    higher_is_better: bool = False
    difference: bool = False
    scale: float = 1.0

    def __call__(self, results: pd.DataFrame) -> np.ndarray:
        rows, base = select(results, self.where), select(results, self.base)
        if self.metric not in rows.columns or rows.empty or base.empty:
            return np.empty(0)
        value = rows[self.metric].to_numpy(dtype=np.float64)
        if len(base) == 1:
            ref = np.full(len(value), float(base[self.metric].iloc[0]))
        else:
            by_seed = dict(zip(base["seed"], base[self.metric], strict=True))
            missing = sorted(set(rows["seed"]) - set(by_seed))
            if missing:
                raise ConfigError(
                    f"claim baseline {dict(self.base)} has no run for seeds {missing}"
                )
            ref = np.asarray([by_seed[s] for s in rows["seed"]], dtype=np.float64)
        if self.difference:
            return (value - ref) * self.scale
        gain = (value - ref) if self.higher_is_better else (ref - value)
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * gain / ref


@dataclass(frozen=True)
class Tolerance:
    """How far beyond the paper's range cosched's mean may lie and still agree, and why:
    ``max(absolute, relative * max(|low|, |high|))`` (finite ends only), in the claim's
    unit. A family declares each of its tolerances once, numbers and reason together, and
    its claims name it (``within=``).

    Attributes:
        absolute: the tolerance in the claim's unit.
        relative: the tolerance as a share of the paper's value.
        reason: why the tolerance is what it is (required when it is not 0).
    """

    absolute: float = 0.0
    relative: float = 0.0
    reason: str = ""

    def __post_init__(self) -> None:
        if (self.absolute or self.relative) and not self.reason:
            raise ConfigError(
                f"tolerance {self.absolute:g} / {self.relative:g}: a tolerance needs its reason"
            )

    def absolute_only(self) -> Tolerance:
        """This tolerance without its relative part, for a bound or a range where the
        relative part is meant for a single number ("about 50" against "under 10")."""
        return Tolerance(absolute=self.absolute, reason=self.reason)


#: The tolerance of a claim that declares none: the paper's range itself.
EXACT = Tolerance()


@dataclass(frozen=True)
class Quote:
    """Where the paper says it: the paper's words a claim rests on and the line of its
    text (the declaring module's ``PAPER``) they start on.

    Attributes:
        line: the 1-based line where ``words`` start.
        words: as printed (whitespace may differ; they may run on into the following
            lines).
    """

    line: int
    words: str

    def __post_init__(self) -> None:
        if self.line < 1 or not self.words:
            raise ConfigError(
                f"quote at line {self.line}: a quote needs its words, its line 1-based"
            )


def not_simulated(results: pd.DataFrame) -> np.ndarray:
    """The measure of a claim declared ``not_simulated``: no value."""
    return np.empty(0)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, and how cosched's number for it is computed.

    Attributes:
        id: short stable identifier (``fig6-LR-W1``).
        description: what is claimed, in a few words.
        paper: the paper's value as it states it (``"+48%"``, ``"1% to 18%"``, ``"< 0"``).
        low, high: the paper's value as a range (equal for a single number; ``-inf`` or
            ``inf`` for a one-sided claim).
        measure: results table -> cosched's value per seed (:class:`Value`,
            :class:`Improvement` or any function).
        reason: the modelling choice behind a disagreement (shown unless it agrees).
        unit: unit of the paper's and cosched's numbers.
        within: the tolerance around the paper's range, with its reason (see the module
            docstring; :data:`EXACT`: none).
        direction: the claim is a signed comparison (an improvement, a difference, an
            ordering), so cosched's whole interval on the paper's side of 0 but its mean
            outside the target is *direction*; otherwise such a mean *disagrees*.
        source: the paper's words the claim rests on and their line (:class:`Quote`);
            :attr:`paper_line` and :attr:`quote` read them.
        not_simulated: why the claim cannot be simulated (the verdict is then *not
            simulated*, and ``measure`` is not called).
        input: what the simulation was given that makes cosched's number an echo of the
            paper's (the verdict is then *input*: shown, never counted).
        null: the claim's null outcome for the power check (:meth:`null_outcome`): a
            number, the id of another claim of the same table whose cosched mean is the
            baseline's value, ``None`` for the default, or NaN for none (a value claim
            that names no baseline).
    """

    id: str
    description: str
    paper: str
    low: float
    high: float
    measure: Measure = field(repr=False)
    reason: str
    unit: str = ""
    within: Tolerance = EXACT
    direction: bool = False
    source: Quote | None = None
    not_simulated: str = ""
    input: str = ""
    null: float | str | None = None

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ConfigError(f"claim {self.id}: low {self.low} above high {self.high}")

    @property
    def paper_line(self) -> int | None:
        """The line of the paper's text where :attr:`quote` starts (None: no quote)."""
        return self.source.line if self.source else None

    @property
    def quote(self) -> str:
        """The paper's words the claim rests on ("" for none)."""
        return self.source.words if self.source else ""

    def null_outcome(self) -> float | str | None:
        """The outcome of no effect, which the claim must be able to tell apart.

        Declared by ``null``; by default 0 for a signed comparison (``direction``, an
        :class:`Improvement` measure, or a range one-sided at 0: "better", "< 0") whose
        paper range asserts an effect (excludes 0), and none (``None``) otherwise: a
        claim of no difference ("almost the same", "under 3%") is its own null, and a
        value claim names its baseline's claim id when it has one.
        """
        if isinstance(self.null, str):
            return self.null
        if self.null is not None:
            return None if math.isnan(self.null) else float(self.null)
        at_zero = (self.low == 0 and self.high == math.inf) or (
            self.high == 0 and self.low == -math.inf
        )
        signed = self.direction or isinstance(self.measure, Improvement) or at_zero
        if signed and (at_zero or self.low > 0 or self.high < 0):
            return 0.0
        return None

    def side(self) -> tuple[float, float]:
        """The bounds a one-sided claim's whole interval must lie strictly beyond:
        ``(lower, upper)``, ``-inf`` / ``inf`` where there is none (a two-sided claim
        has neither)."""
        lo, hi = self.target()
        lower = (
            lo if self.high == math.inf else 0.0 if self.direction and self.low > 0 else -math.inf
        )
        upper = (
            hi if self.low == -math.inf else 0.0 if self.direction and self.high < 0 else math.inf
        )
        return lower, upper

    def target(self) -> tuple[float, float]:
        """The paper's range widened by the tolerance."""
        ends = [abs(v) for v in (self.low, self.high) if math.isfinite(v)]
        tol = max(self.within.absolute, self.within.relative * max(ends, default=0.0))
        return self.low - tol, self.high + tol

    def tolerance(self) -> str:
        """The tolerance and its reason, as the claim table shows it."""
        parts = []
        tol = self.within
        if tol.absolute:
            parts.append(f"{tol.absolute:g}{' ' + self.unit if self.unit else ''}")
        if tol.relative:
            parts.append(f"{100 * tol.relative:g}% of the paper's value")
        if not parts:
            return "none: the paper's range itself"
        text = " or ".join(parts) + (", whichever is larger" if len(parts) == 2 else "")
        return f"{text} ({tol.reason})"


def verdict(claim: Claim, ci: Interval) -> tuple[Verdict, str]:
    """The verdict on ``claim`` given cosched's interval, and why it is not *agrees*.

    The second item is empty for *agrees*; otherwise it says how cosched's number
    stands against the paper's (the declared modelling reason is added by
    :func:`evaluate`). *Calibrated*, *input* and *untestable* are :func:`evaluate`'s.
    """
    if claim.not_simulated:
        return "not simulated", claim.not_simulated
    if ci.n == 0 or math.isnan(ci.mean):
        return "not run", "no finished cell for this claim"
    lo, hi = claim.target()
    m = ci.mean
    half = 0.0 if math.isnan(ci.half) else ci.half
    if lo <= m <= hi:
        lower, upper = claim.side()
        if m - half > lower and m + half < upper:
            return "agrees", ""
        bound = lower if m - half <= lower else upper
        if not lower < m < upper:
            return "disagrees", (
                f"mean in the target only through the tolerance: not beyond {bound:g}, the "
                "paper's side of its one-sided claim"
            )
        crosses = (
            f"mean in the paper's range, but its 95% interval over {ci.n} seeds reaches "
            f"{bound:g}, the other side of the paper's one-sided claim"
        )
        if ci.n < SEED_CAP:
            return "inconclusive", f"{crosses} (more seeds, up to {SEED_CAP}, settle it)"
        return "disagrees", crosses
    side = "above" if m > hi else "below"
    if m - half <= hi and m + half >= lo and ci.n < SEED_CAP:
        return "inconclusive", (
            f"mean {side} the paper's, but its 95% interval over {ci.n} seeds reaches it "
            f"(more seeds, up to {SEED_CAP}, settle it)"
        )
    # Signs are the paper's own (its range before the tolerance widened it).
    positive, negative = claim.low > 0, claim.high < 0
    if claim.direction and ((positive and m - half > 0) or (negative and m + half < 0)):
        return "direction", f"same sign as the paper's, {side} its range"
    opposite = (positive and m < 0) or (negative and m > 0)
    return "disagrees", f"{side} the paper's range" + (", opposite sign" if opposite else "")


def null_agrees(claim: Claim, null: float) -> bool:
    """Whether the null outcome ``null`` would also agree: it lies in the target, other
    than on a one-sided claim's own bound (the paper's "better" or "below 50%" excludes
    the bound itself; a tolerance that widens the target past it does not)."""
    lo, hi = claim.target()
    if not lo <= null <= hi:
        return False
    own = (claim.high == math.inf and null == lo == claim.low) or (
        claim.low == -math.inf and null == hi == claim.high
    )
    return not own


def _resolve_null(c: Claim, means: Mapping[str, float]) -> float:
    """``c``'s null outcome as a number (NaN: none, or its baseline claim has no mean)."""
    null = c.null_outcome()
    if isinstance(null, str):
        if null not in means:
            raise ConfigError(f"claim {c.id}: its null names claim {null!r}, not declared")
        return means[null]
    return math.nan if null is None else null


def _row(c: Claim, ci: Interval, experiment: str, null: float = math.nan) -> dict[str, object]:
    """One row of the claim table: ``c`` judged on ``ci``; inputs, calibrated fits and
    claims whose null outcome ``null`` would agree set apart."""
    from cosched.experiments.calibration import calibration_of

    v, why = verdict(c, ci)
    judged = v not in ("not simulated", "not run")
    against = f"{v}: {why}" if why else v
    fit = calibration_of(experiment, c.id) if judged else None
    if judged and c.input:
        v, why = "input", f"{c.input}, so not counted (against the paper alone: {against})"
        reason = why
    elif fit is not None:
        v, why = (
            "calibrated",
            (
                f"a target of the fit of {fit.parameter} = {fit.value}, so not counted "
                f"(against the paper alone: {against})"
            ),
        )
        reason = why
    elif judged and not math.isnan(null) and null_agrees(c, null):
        lo, hi = c.target()
        v, why = (
            "untestable",
            (
                f"its null outcome {null:.3g} lies in the target [{lo:.3g}, {hi:.3g}] too, so it "
                f"cannot fail; not counted until the tolerance is tightened (against the paper "
                f"alone: {against})"
            ),
        )
        reason = why
    elif v in ("agrees", "not run", "not simulated"):
        reason = why
    else:
        reason = f"{why}: {c.reason}"
    half = 0.0 if math.isnan(ci.half) else ci.half
    return {
        "experiment": experiment,
        "claim": c.id,
        "description": c.description,
        "paper": c.paper,
        "paper_low": float(c.low),
        "paper_high": float(c.high),
        "unit": c.unit,
        "cosched": ci.mean,
        "cosched_low": ci.mean - half if ci.n else math.nan,
        "cosched_high": ci.mean + half if ci.n else math.nan,
        "seeds": ci.n,
        "tolerance": c.tolerance(),
        "null": null,
        "verdict": v,
        "reason": reason,
        "paper_line": c.paper_line,
        "quote": c.quote,
    }


def _rows(claims: Sequence[Claim], cis: Sequence[Interval], experiment: str) -> pd.DataFrame:
    """The claim table of ``claims`` on their intervals, nulls resolved among them."""
    means = {c.id: ci.mean if ci.n else math.nan for c, ci in zip(claims, cis, strict=True)}
    rows = [
        _row(c, ci, experiment, _resolve_null(c, means)) for c, ci in zip(claims, cis, strict=True)
    ]
    return _table(rows)


def _unique(claims: Sequence[Claim]) -> None:
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ConfigError(f"two claims have the id {dup!r}")


def _table(rows: list[dict[str, object]]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    # Whole line numbers or None (JSON null in results.parquet's metadata), never NaN.
    table["paper_line"] = pd.Series([r["paper_line"] for r in rows], dtype=object)
    return table


def evaluate(claims: Sequence[Claim], results: pd.DataFrame, experiment: str = "") -> pd.DataFrame:
    """The claim table (columns :data:`COLUMNS`) of ``claims`` on ``results``.

    ``experiment`` names the reproduction, whose registered calibrations
    (:mod:`cosched.experiments.calibration`) make their fit sets *calibrated*.
    """
    _unique(claims)
    cis = [
        mean_ci(np.asarray(np.empty(0) if c.not_simulated else c.measure(results), dtype=float))
        for c in claims
    ]
    return _rows(claims, cis, experiment)


def rejudge(claims: Sequence[Claim], stored: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """The claim table of ``claims`` judged on the numbers a stored table holds.

    ``stored`` is a claim table (``claims.parquet`` or a ``docs/claims`` copy): each
    claim's mean, interval ends and seed count are read from its row with the same id
    (the interval is symmetric about the mean), so the current declarations and verdict
    rule apply without a new simulation. A declared claim without a stored number is
    *not run* (or *not simulated*, if so declared).
    """
    _unique(claims)
    by_id = {str(r["claim"]): r for r in stored.to_dict("records")}
    cis = []
    for c in claims:
        r = by_id.get(c.id)
        ci = Interval(math.nan, math.nan, 0)
        if r is not None and int(r["seeds"]) > 0 and math.isfinite(float(r["cosched"])):
            n = int(r["seeds"])
            half = (float(r["cosched_high"]) - float(r["cosched_low"])) / 2
            ci = Interval(float(r["cosched"]), half if n >= 2 else math.nan, n)
        cis.append(ci)
    table = _rows(claims, cis, experiment)
    # The stored interval ends as stored: judging again changes no number.
    for col in ("cosched_low", "cosched_high"):
        kept = [by_id[c.id][col] if ci.n else math.nan for c, ci in zip(claims, cis, strict=True)]
        table[col] = np.asarray(kept, dtype=np.float64)
    return table


@dataclass(frozen=True)
class Tally:
    """A claim table's verdict counts and its agreement figure."""

    counts: Mapping[str, int]

    @property
    def counted(self) -> int:
        """Declared claims less the calibrated, input, untestable and not simulated ones."""
        return sum(n for v, n in self.counts.items() if v not in UNCOUNTED)

    @property
    def agreement(self) -> float:
        """Agrees over :attr:`counted` (NaN when nothing is counted)."""
        return self.counts.get("agrees", 0) / self.counted if self.counted else math.nan

    def text(self) -> str:
        """``A of N agree (P%); D direction, I inconclusive`` and the uncounted."""
        c = self.counts
        pct = "n/a" if math.isnan(self.agreement) else f"{100 * self.agreement:.0f}%"
        head = f"{c.get('agrees', 0)} of {self.counted} agree ({pct})"
        rest = [f"{c[v]} {v}" for v in VERDICTS[1:] if c.get(v)]
        return head + ("; " + ", ".join(rest) if rest else "")


def agreement(table: pd.DataFrame) -> Tally:
    """The verdict counts of a claim table (:class:`Tally`)."""
    counts = table["verdict"].value_counts().to_dict() if len(table) else {}
    unknown = sorted(set(counts) - set(VERDICTS))
    if unknown:
        raise ConfigError(f"claim table has unknown verdicts {unknown}")
    return Tally({v: int(counts[v]) for v in VERDICTS if counts.get(v)})


def _num(v: float) -> str:
    if math.isnan(v):
        return "n/a"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def claims_markdown(table: pd.DataFrame) -> list[str]:
    """The claim table as Markdown, with its verdict counts and agreement figure."""
    lines = [
        "## The paper's claims",
        "",
        "Each claim of the paper beside cosched's mean over seeds and its 95% Student-t "
        "interval (one seed: no interval). Verdicts: *agrees* (the mean within the "
        "paper's value or range widened by the claim's stated tolerance and, for a "
        "one-sided claim, the whole interval on the paper's side), *direction* "
        "(a signed comparison whose whole interval has the paper's sign, but outside the "
        "tolerance), *inconclusive* (the interval reaches both the target and its outside: "
        f"more seeds, up to {SEED_CAP}, settle it), *disagrees* (otherwise; the "
        "reason names the modelling choice), *calibrated* (a target of a parameter "
        "fitted to the paper: shown, not counted), *input* (a number the simulation was "
        "given: shown, not counted), *untestable* (the claim's null outcome, no effect or "
        "the baseline's value, would agree too: shown, not counted), *not simulated* "
        "(with the reason). The agreement figure is agrees over the claims less the "
        "calibrated, input, untestable and not simulated ones. The table is also "
        "`claims.parquet`.",
        "",
        "Claims: " + agreement(table).text() + ".",
        "",
        "| claim | what | paper | cosched (95% interval) | seeds | verdict | reason |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples(index=False):
        unit = f" {r.unit}" if r.unit else ""
        if r.seeds >= 2:
            ours = f"{_num(r.cosched)} [{_num(r.cosched_low)}, {_num(r.cosched_high)}]{unit}"
        else:
            ours = f"{_num(r.cosched)}{unit}"
        reason = str(r.reason).replace("|", "/")
        lines.append(
            f"| {r.claim} | {r.description} | {r.paper} | {ours} | {r.seeds} | "
            f"{r.verdict} | {reason} |"
        )
    return [*lines, ""]
