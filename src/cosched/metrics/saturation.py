"""The saturation point of a load sweep: the highest offered load at which mean response
stays bounded (definition in docs/metrics.md).

A run at offered load rho is *bounded* when every job finished within the run's horizon
and its mean response is at most ``factor`` times a reference response: the sweep's own
response at its lowest load, or one given for several sweeps compared together (so that
a policy already saturated at the lowest load is not judged against itself). The
saturation point is the highest load of the sweep such that the run at that load and
the runs at every lower load are bounded; the next load of the sweep (the first
unbounded one) is returned too, so that a coarse sweep says "between 1.2 and 1.8"
rather than pretending to a precision it does not have.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cosched.errors import ConfigError

__all__ = [
    "DEFAULT_FACTOR",
    "DEFAULT_SHARE",
    "Saturation",
    "accepted_saturation",
    "saturation_point",
]

#: A run's mean response may grow to this multiple of the lowest load's and still count
#: as bounded (cosched's choice: a queue that grows without bound passes any fixed
#: multiple as the load approaches capacity; 5 separates the knee from the noise of one
#: sample in the reproductions' sweeps).
DEFAULT_FACTOR = 5.0

#: A run keeps up with its offered load when it accepts at least this share of it
#: (cosched's choice; docs/metrics.md).
DEFAULT_SHARE = 0.95


@dataclass(frozen=True)
class Saturation:
    """Where a load sweep saturates.

    Attributes:
        bounded_load: highest offered load with bounded response (NaN: not even the
            lowest load was bounded).
        unbounded_load: the sweep's next load, the first one not bounded (inf: every
            load of the sweep was bounded, the saturation point is at or above
            ``bounded_load``).
        reference: the reference response (given, or the sweep's at its lowest load).
        factor: the bound used, as a multiple of ``reference``.
    """

    bounded_load: float
    unbounded_load: float
    reference: float
    factor: float

    def label(self) -> str:
        """A short text: ``1.2-1.8``, ``>= 1.8`` or ``< 0.6``."""
        if math.isnan(self.bounded_load):
            return f"< {self.unbounded_load:g}"
        if math.isinf(self.unbounded_load):
            return f">= {self.bounded_load:g}"
        return f"{self.bounded_load:g}-{self.unbounded_load:g}"


def saturation_point(
    loads: Sequence[float],
    mean_response: Sequence[float],
    unfinished: Sequence[float],
    *,
    factor: float = DEFAULT_FACTOR,
    reference: float | None = None,
) -> Saturation:
    """The saturation point of one sweep (one policy, one workload, several loads).

    Args:
        loads: the offered loads of the runs (distinct, > 0; any order).
        mean_response: each run's mean response (NaN if no job finished).
        unfinished: each run's count of jobs not finished at its horizon.
        factor: the bound, as a multiple of the reference response (> 1).
        reference: the reference response (> 0); default: this sweep's mean response
            at its lowest load. Give one common value (e.g. the best policy's response
            at the lowest load) to compare several policies' sweeps on one bound.

    Returns:
        The :class:`Saturation`.

    Raises:
        ConfigError: lengths differ, the sweep is empty, a load is not a finite positive
            number or appears twice, or ``factor`` is not > 1.
    """
    n = len(loads)
    if n == 0:
        raise ConfigError("saturation_point needs at least one run")
    if len(mean_response) != n or len(unfinished) != n:
        raise ConfigError(
            f"saturation_point: {n} loads but {len(mean_response)} responses and "
            f"{len(unfinished)} unfinished counts"
        )
    if not factor > 1.0:
        raise ConfigError(f"saturation_point: factor must be > 1 (got {factor!r})")
    _check_loads("saturation_point", loads)
    if reference is not None and not (math.isfinite(reference) and reference > 0):
        raise ConfigError(f"saturation_point: reference must be > 0 (got {reference!r})")
    lowest = min(range(n), key=lambda i: loads[i])
    ref = float(mean_response[lowest]) if reference is None else float(reference)
    bound = factor * ref

    def bounded(i: int) -> bool:
        resp = float(mean_response[i])
        ok = unfinished[i] == 0 and math.isfinite(resp) and math.isfinite(bound)
        return ok and resp <= bound

    return _walk(loads, bounded, ref, factor)


def _check_loads(name: str, loads: Sequence[float]) -> None:
    for x in loads:
        if not (math.isfinite(x) and x > 0):
            raise ConfigError(f"{name}: loads must be finite and > 0 (got {x!r})")
    if len(set(loads)) != len(loads):
        raise ConfigError(f"{name}: a load appears twice in {list(loads)}")


def _walk(
    loads: Sequence[float], keeps: Callable[[int], bool], reference: float, factor: float
) -> Saturation:
    """The sweep's highest load up to which every run ``keeps`` (by index), and the next."""
    last = math.nan
    for i in sorted(range(len(loads)), key=lambda i: loads[i]):
        if not keeps(i):
            return Saturation(last, float(loads[i]), reference, factor)
        last = float(loads[i])
    return Saturation(last, math.inf, reference, factor)


def accepted_saturation(
    loads: Sequence[float],
    accepted: Sequence[float],
    *,
    share: float = DEFAULT_SHARE,
) -> Saturation:
    """The saturation point of one sweep read from its accepted load (docs/metrics.md).

    A run *keeps up* when its accepted load is at least ``share`` times its offered
    load: below saturation the machine does the work offered, above it the accepted
    load stays near the machine's capacity while the offered load grows (the FCS
    paper's "relatively constant accepted load"). The saturation point is the highest
    load of the sweep such that the run at that load and at every lower load keep up;
    as with :func:`saturation_point`, the next load of the sweep comes with it. Unlike
    a bound on response, this sees saturation in a finite workload, whose queue drains
    after the last arrival however long it grew.

    Args:
        loads: the offered loads of the runs (distinct, > 0; any order).
        accepted: each run's accepted load (NaN: does not keep up).
        share: the least accepted share of the offered load (0 < share <= 1).

    Returns:
        The :class:`Saturation`, with ``reference`` NaN and ``factor`` the share.

    Raises:
        ConfigError: lengths differ, the sweep is empty, a load is not a finite
            positive number or appears twice, or ``share`` is not in (0, 1].
    """
    n = len(loads)
    if n == 0:
        raise ConfigError("accepted_saturation needs at least one run")
    if len(accepted) != n:
        raise ConfigError(f"accepted_saturation: {n} loads but {len(accepted)} accepted loads")
    if not 0.0 < share <= 1.0:
        raise ConfigError(f"accepted_saturation: share must be in (0, 1] (got {share!r})")
    _check_loads("accepted_saturation", loads)
    return _walk(loads, lambda i: float(accepted[i]) >= share * float(loads[i]), math.nan, share)
