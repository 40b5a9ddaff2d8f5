"""Shared checks and helpers of the profile annotators (private)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cosched.errors import ConfigError


def check_rng(rng: object) -> np.random.Generator:
    """``rng`` itself, or a ConfigError if it is not a numpy Generator."""
    if not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    return rng


def check_prob(name: str, p: float) -> float:
    """``p`` as a float, or a ConfigError naming ``name`` if it is outside [0, 1]."""
    if not 0.0 <= float(p) <= 1.0:
        raise ConfigError(f"{name} must be a probability in [0, 1] (got {p!r})")
    return float(p)


def check_shares(name: str, shares: Sequence[float], size: int) -> np.ndarray:
    """``size`` probabilities in [0, 1] summing to 1 (within 1e-9), as an array."""
    a = np.asarray(shares, dtype=float)
    if a.shape != (size,) or (a < 0).any() or (a > 1).any() or abs(a.sum() - 1.0) > 1e-9:
        raise ConfigError(f"{name} must be {size} probabilities summing to 1 (got {shares!r})")
    return a


def check_interval(
    name: str, interval: Sequence[float], lo: float, hi: float
) -> tuple[float, float]:
    """An ordered pair inside ``[lo, hi]``, or a ConfigError naming ``name``."""
    if len(interval) != 2 or not lo <= interval[0] <= interval[1] <= hi:
        raise ConfigError(
            f"{name} must be a pair (low, high) with {lo:g} <= low <= high <= {hi:g} "
            f"(got {tuple(interval)!r})"
        )
    return float(interval[0]), float(interval[1])


def pick(rng: np.random.Generator, shares: np.ndarray, n: int) -> np.ndarray:
    """``n`` category indices drawn with the given probabilities."""
    cum = np.cumsum(shares)
    cum[-1] = 1.0  # guards against a last cumulative share a rounding error below 1
    return np.searchsorted(cum, rng.random(n), side="right").astype(np.int8)
