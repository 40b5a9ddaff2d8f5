"""Means and Student-t confidence intervals over replications (seeds)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Interval", "mean_ci"]


@dataclass(frozen=True)
class Interval:
    """A mean over ``n`` replications with the half-width of its confidence interval.

    ``half`` is NaN when ``n < 2`` (one replication has no interval).
    """

    mean: float
    half: float
    n: int

    @property
    def low(self) -> float:
        """Lower end of the interval."""
        return self.mean - self.half

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.mean + self.half

    def separated_from(self, other: Interval) -> bool:
        """Whether the two intervals do not overlap (both must have one)."""
        if math.isnan(self.half) or math.isnan(other.half):
            return False
        return self.high < other.low or other.high < self.low

    def text(self, digits: int = 3) -> str:
        """``mean ± half`` (or just the mean with ``n=1``), with ``digits`` significant."""
        if math.isnan(self.mean):
            return "n/a"
        if math.isnan(self.half):
            return f"{self.mean:.{digits}g}"
        return f"{self.mean:.{digits}g} ± {self.half:.2g}"


def mean_ci(values: Sequence[float] | np.ndarray, level: float = 0.95) -> Interval:
    """Mean of the finite ``values`` and the Student-t interval at ``level``.

    The half-width is ``t_{(1+level)/2, n-1} * s / sqrt(n)``, with ``s`` the sample
    standard deviation (``ddof=1``): the textbook interval for the mean of independent
    replications.
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return Interval(math.nan, math.nan, 0)
    mean = float(x.mean())
    if n == 1:
        return Interval(mean, math.nan, 1)
    sd = float(x.std(ddof=1))
    from scipy.special import stdtrit  # Student's t quantile; scipy.stats costs 4x the import

    half = float(stdtrit(n - 1, (1.0 + level) / 2.0)) * sd / math.sqrt(n)
    return Interval(mean, half, n)
