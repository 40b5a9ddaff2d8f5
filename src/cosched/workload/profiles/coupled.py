"""Mate pairs between the workloads of two coupled machines.

Source: the coupled-systems coscheduling paper, section V. Jobs on two machines
(Intrepid and Eureka) are associated as *mates* that must start together, either

* by submission proximity: "we associated the two jobs on different machines if their
  submission times were within 2 minutes" (section V-D; 5-10% of jobs paired), or
* to a target proportion of paired jobs: 2.5%, 5%, 10%, 20% and 33% (section V-E).

Our choices (the paper does not say how either association was computed):

* Proximity: one-to-one greedy matching of time-adjacent jobs. The two workloads are
  merged by submit time; adjacent jobs of different workloads within ``window``
  seconds are paired, earliest first, and the pass repeats over the still unpaired
  jobs until none are left within the window of each other. The result is a maximal
  matching: no two unpaired jobs of the two workloads are within the window. This mode
  draws nothing from ``rng``.
* Proportion: ``k = round(proportion * min(len(a), len(b)))`` jobs are drawn uniformly
  without replacement from each workload and paired in submit order (the i-th chosen
  job of ``a`` with the i-th chosen job of ``b``), which keeps mates close in time when
  the two workloads span the same period, as in the paper's set-up.

Column added (in both workloads):

=================  =====  ===================================================
name               dtype  meaning
=================  =====  ===================================================
``coupled_mate``   int64  ``job_id`` of the mate in the other workload, or -1
=================  =====  ===================================================
"""

from __future__ import annotations

import math

import numpy as np

from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.profiles._common import check_prob, check_rng

__all__ = ["DEFAULT_WINDOW", "NO_MATE", "annotate_coupled", "pair_workloads"]

#: Default proximity window in seconds (2 minutes, section V-D).
DEFAULT_WINDOW = 120.0
#: ``coupled_mate`` value of a job without a mate.
NO_MATE = -1


def _proximity_pairs(ta: np.ndarray, tb: np.ndarray, window: float) -> np.ndarray:
    """Row pairs (ia, ib), shape (k, 2), of the greedy time-adjacent matching."""
    t = np.concatenate((ta, tb))
    side = np.concatenate((np.zeros(ta.size, bool), np.ones(tb.size, bool)))
    alive = np.argsort(t, kind="stable")
    found = []
    while alive.size > 1:
        ts, ss = t[alive], side[alive]
        cand = (ss[:-1] != ss[1:]) & (np.diff(ts) <= window)
        if not cand.any():
            break
        # In a run of consecutive candidate edges, neighbours share a job: take the
        # 1st, 3rd, 5th... edge of each run, the greedy earliest-first choice.
        i = np.arange(cand.size)
        run_start = np.maximum.accumulate(np.where(cand & ~np.r_[False, cand[:-1]], i, 0))
        edges = np.flatnonzero(cand & ((i - run_start) % 2 == 0))
        left, right = alive[edges], alive[edges + 1]
        found.append(np.where(side[left], [right, left], [left, right]).T)
        keep = np.ones(alive.size, bool)
        keep[edges] = keep[edges + 1] = False
        alive = alive[keep]
    pairs = np.concatenate(found) if found else np.empty((0, 2), np.int64)
    return pairs - np.array([0, ta.size])


def _proportion_pairs(rng: np.random.Generator, na: int, nb: int, proportion: float) -> np.ndarray:
    """Row pairs (ia, ib) of ``round(proportion * min(na, nb))`` random mates."""
    k = math.floor(proportion * min(na, nb) + 0.5)
    ia = np.sort(rng.choice(na, size=k, replace=False))
    ib = np.sort(rng.choice(nb, size=k, replace=False))
    return np.stack((ia, ib), axis=1)


def _mates(w: Workload, rows: np.ndarray, other: Workload, other_rows: np.ndarray) -> np.ndarray:
    mate = np.full(len(w), NO_MATE, dtype=np.int64)
    mate[rows] = other.table["job_id"].to_numpy()[other_rows]
    return mate


def pair_workloads(
    a: Workload,
    b: Workload,
    *,
    rng: np.random.Generator,
    window: float = DEFAULT_WINDOW,
    proportion: float | None = None,
) -> tuple[Workload, Workload]:
    """Pair jobs of two workloads as mates (see the module docstring).

    Args:
        a: the first machine's workload.
        b: the second machine's workload.
        rng: the source of every draw (proportion mode only).
        window: proximity window in seconds (> 0), used when ``proportion`` is None.
        proportion: target fraction of paired jobs in [0, 1] (of the smaller workload);
            when given, mates are chosen at random instead of by proximity.

    Returns:
        Copies of ``a`` and ``b`` with the ``coupled_mate`` column.

    Raises:
        ConfigError: a bad parameter, named in the message.
    """
    check_rng(rng)
    if proportion is None:
        if not (math.isfinite(window) and window > 0):
            raise ConfigError(f"window must be a positive number of seconds (got {window!r})")
        ta, tb = a.table["submit_time"].to_numpy(), b.table["submit_time"].to_numpy()
        pairs = _proximity_pairs(ta, tb, float(window))
        how = f"proximity within {window:g} s"
    else:
        p = check_prob("proportion", proportion)
        pairs = _proportion_pairs(rng, len(a), len(b), p)
        how = f"proportion {p:g}"
    ia, ib = pairs[:, 0], pairs[:, 1]
    note = f"coupled profile: {pairs.shape[0]} mate pairs by {how}"
    return (
        a.with_columns({"coupled_mate": _mates(a, ia, b, ib)}, note + f" with {b.name!r}"),
        b.with_columns({"coupled_mate": _mates(b, ib, a, ia)}, note + f" with {a.name!r}"),
    )


def annotate_coupled(
    w: Workload,
    *,
    rng: np.random.Generator,
    other: Workload,
    window: float = DEFAULT_WINDOW,
    proportion: float | None = None,
) -> Workload:
    """``w`` with its mates in ``other`` (the first result of :func:`pair_workloads`).

    Args:
        w: the workload to annotate.
        rng: the source of every draw.
        other: the coupled machine's workload.
        window: proximity window in seconds.
        proportion: target fraction of paired jobs, or None for proximity pairing.
    """
    return pair_workloads(w, other, rng=rng, window=window, proportion=proportion)[0]
