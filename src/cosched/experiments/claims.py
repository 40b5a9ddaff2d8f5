"""A paper's claims as data: declared per family, judged from the stored results alone.

A family declares its paper's claims as :class:`Claim` values (an id, what the paper
says with its number or range, how to compute cosched's value per seed from the results
table, a tolerance, and the modelling choice that explains a disagreement) in a
function named by the spec's ``claims`` key (``module:function`` returning the list).
The report builder (:mod:`cosched.experiments.report`) calls :func:`evaluate` on the
results, writes the claim table to ``DIR/claims.parquet`` beside ``results.parquet``
(whose provenance names the declaring function in its spec) and puts it at the top of
the report; ``scripts/readme_status.py`` builds the README's status column from it.

The verdict (:func:`verdict`), for a paper range ``[low, high]`` (a single number has
``low == high``; a one-sided claim such as "worse than PSS" has an infinite end) widened
by the tolerance ``tol = max(tol_abs, tol_rel * max(|low|, |high|))`` (finite ends
only) into the *target*, and cosched's mean over seeds with its 95% Student-t interval:

* **agrees**: the mean lies in the target;
* **partly**: it does not, but the interval reaches the target (the seeds cannot
  exclude the paper's value), or the direction agrees: with ``partly="sign"`` the
  paper's range (before the tolerance) lies on one side of 0 and the mean on the same
  side; with ``partly="factor"`` both are positive and the mean is within a factor
  ``factor`` of the target;
* **disagrees**: otherwise.

One seed gives no interval: the interval is the mean itself, and the table says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.experiments.stats import Interval, mean_ci

__all__ = [
    "COLUMNS",
    "Claim",
    "Improvement",
    "Measure",
    "Value",
    "claims_markdown",
    "combine",
    "evaluate",
    "per_seed",
    "select",
    "verdict",
]

Verdict = Literal["agrees", "partly", "disagrees", "not run"]
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
    "verdict",
    "reason",
)

Measure = Callable[[pd.DataFrame], np.ndarray]


def select(results: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
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


def per_seed(results: pd.DataFrame, where: Mapping[str, Any], metric: str) -> dict[int, float]:
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

    where: Mapping[str, Any]
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

    where: Mapping[str, Any]
    base: Mapping[str, Any]
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
        tol_abs, tol_rel: tolerance around the paper's range (see the module docstring).
        partly: ``sign`` or ``factor``: which weaker agreement counts as *partly*.
        factor: the factor of ``partly="factor"``.
    """

    id: str
    description: str
    paper: str
    low: float
    high: float
    measure: Measure = field(repr=False)
    reason: str
    unit: str = ""
    tol_abs: float = 0.0
    tol_rel: float = 0.0
    partly: Literal["sign", "factor"] = "sign"
    factor: float = 2.0

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ConfigError(f"claim {self.id}: low {self.low} above high {self.high}")
        if self.partly not in ("sign", "factor"):
            raise ConfigError(f"claim {self.id}: partly must be 'sign' or 'factor'")

    def target(self) -> tuple[float, float]:
        """The paper's range widened by the tolerance."""
        ends = [abs(v) for v in (self.low, self.high) if math.isfinite(v)]
        tol = max(self.tol_abs, self.tol_rel * max(ends, default=0.0))
        return self.low - tol, self.high + tol


def verdict(claim: Claim, ci: Interval) -> tuple[Verdict, str]:
    """The verdict on ``claim`` given cosched's interval, and why it is not *agrees*.

    The second item is empty for *agrees*; otherwise it says how cosched's number
    stands against the paper's (the declared modelling reason is added by
    :func:`evaluate`).
    """
    if ci.n == 0 or math.isnan(ci.mean):
        return "not run", "no finished cell for this claim"
    lo, hi = claim.target()
    m = ci.mean
    if lo <= m <= hi:
        return "agrees", ""
    half = 0.0 if math.isnan(ci.half) else ci.half
    side = "above" if m > hi else "below"
    if m - half <= hi and m + half >= lo:
        return "partly", f"mean {side} the paper's, but its 95% interval reaches it"
    # Signs are the paper's own (its range before the tolerance widened it).
    positive, negative = claim.low > 0, claim.high < 0
    if claim.partly == "sign":
        if (positive and m > 0) or (negative and m < 0):
            return "partly", f"same sign, {side} the paper's range"
    elif lo > 0 and m > 0:
        near = lo if m < lo else hi
        ratio = max(m / near, near / m)
        if ratio <= claim.factor:
            return "partly", f"within a factor {claim.factor:g} ({side}: x{ratio:.2f})"
    return "disagrees", f"{side} the paper's range" + (
        ", opposite sign" if (positive and m < 0) or (negative and m > 0) else ""
    )


def evaluate(claims: Sequence[Claim], results: pd.DataFrame, experiment: str = "") -> pd.DataFrame:
    """The claim table (columns :data:`COLUMNS`) of ``claims`` on ``results``."""
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ConfigError(f"two claims have the id {dup!r}")
    rows = []
    for c in claims:
        ci = mean_ci(np.asarray(c.measure(results), dtype=np.float64))
        v, why = verdict(c, ci)
        half = 0.0 if math.isnan(ci.half) else ci.half
        reason = "" if v == "agrees" else f"{why}: {c.reason}" if v != "not run" else why
        rows.append(
            {
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
                "verdict": v,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _num(v: float) -> str:
    if math.isnan(v):
        return "n/a"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def claims_markdown(table: pd.DataFrame) -> list[str]:
    """The claim table as Markdown, with a count of the verdicts."""
    counts = table["verdict"].value_counts().to_dict()
    order = ("agrees", "partly", "disagrees", "not run")
    lines = [
        "## The paper's claims",
        "",
        "Each claim of the paper beside cosched's mean over seeds and its 95% Student-t "
        "interval (one seed: no interval). Verdict: *agrees* (cosched's mean within the "
        "paper's value or range, widened by the claim's tolerance), *partly* (not, but the "
        "interval reaches the paper's, or the sign or order of magnitude agrees), "
        "*disagrees* (otherwise; the reason names the modelling choice). The table is "
        "also `claims.parquet`.",
        "",
        "Verdicts: " + ", ".join(f"{counts[k]} {k}" for k in order if counts.get(k)) + ".",
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
