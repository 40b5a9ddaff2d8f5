"""LOMARC profiles: resource classes, CPU/network/disk fractions and memory per job.

Source: the LOMARC hyper-threaded coscheduling paper, section 6.1 ("Metrics and
Workloads"). Each job is CPU-, network- or disk-bound according to a mixture:

* M1: 40% CPU, 30% network, 30% disk (the paper's main mixture);
* M2: 40% CPU, 10% network, 50% disk (data mining);
* M3: 30% CPU, 50% network, 20% disk ("conventional").

Within its class a job's two named fractions are uniform on the paper's ranges,
conditioned on their sum (uniform on the resulting polygon, by rejection):

* CPU-bound: cpu in [0.5, 0.9), disk in [0.05, 0.4), cpu + disk in [0.6, 0.95);
* disk-bound: disk in [0.4, 0.65), net in [0.05, 0.4), disk + net in [0.5, 0.8);
* network-bound: net in [0.4, 0.65), disk in [0.05, 0.4), net + disk in [0.5, 0.8).

Our choice (the paper names only two fractions per class): the third fraction is the
remainder ``1 - a - b``, so the three fractions of a job sum to 1.

Memory is uniform within [0.05, 0.5] for 70% of jobs, (0.5, 0.8) for 25% and
[0.8, 1] for 5% (1 = the memory available to applications).

CPU pairing: the paper says two jobs' CPU parts go well together with probability
0.33 (slowdown 1.4) and poorly with probability 0.67 (slowdown 2), a property of a pair.
Our choice, so that the annotation is per job and reproducible: each job carries one
draw (``lomarc_cpu_good``, ``lomarc_cpu_slowdown``), and a pairing uses the draw of
the job being matched into the pair (the later one). Each pairing therefore still sees
an independent 0.33 / 0.67 outcome. The memory-overcommit slowdown (2.5) is a constant
of the machine, not of a job: it is exported as :data:`MEM_SLOWDOWN`.

Columns added (all prefixed ``lomarc_``):

========================  =======  ==================================================
name                      dtype    meaning
========================  =======  ==================================================
``lomarc_class``          int8     0 CPU-bound, 1 network-bound, 2 disk-bound
``lomarc_cpu``            float64  fraction of time on the CPU
``lomarc_net``            float64  fraction of time on the network
``lomarc_disk``           float64  fraction of time on disk
``lomarc_mem``            float64  memory need, fraction of the node's memory
``lomarc_cpu_good``       bool     the CPU part pairs well (True) or poorly (False)
``lomarc_cpu_slowdown``   float64  CPU slowdown when coscheduled (1.4 or 2.0)
========================  =======  ==================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.profiles._common import (
    check_prob,
    check_rng,
    check_shares,
    pick,
)

__all__ = [
    "CLASS_CPU",
    "CLASS_DISK",
    "CLASS_NET",
    "MEM_RANGES",
    "MEM_SLOWDOWN",
    "MIXTURES",
    "annotate_lomarc",
]

CLASS_CPU, CLASS_NET, CLASS_DISK = 0, 1, 2

#: Class shares (CPU, network, disk) of the paper's mixtures.
MIXTURES: dict[str, tuple[float, float, float]] = {
    "M1": (0.40, 0.30, 0.30),
    "M2": (0.40, 0.10, 0.50),
    "M3": (0.30, 0.50, 0.20),
}
#: Memory ranges (low, high) of the paper, in the order of ``memory_shares``.
MEM_RANGES: tuple[tuple[float, float], ...] = ((0.05, 0.5), (0.5, 0.8), (0.8, 1.0))
#: Slowdown of a job whose coscheduled pair does not fit in memory (section 6.1).
MEM_SLOWDOWN = 2.5

# Per class: (range of the first named fraction, range of the second, range of their
# sum, which column each goes to). Columns: 0 cpu, 1 net, 2 disk.
_SCHEME: dict[int, tuple[tuple[float, float], tuple[float, float], tuple[float, float], int, int]]
_SCHEME = {
    CLASS_CPU: ((0.5, 0.9), (0.05, 0.4), (0.6, 0.95), 0, 2),
    CLASS_DISK: ((0.4, 0.65), (0.05, 0.4), (0.5, 0.8), 2, 1),
    CLASS_NET: ((0.4, 0.65), (0.05, 0.4), (0.5, 0.8), 1, 2),
}
_MAX_ROUNDS = 1000


def _conditioned_pair(
    rng: np.random.Generator,
    n: int,
    ra: tuple[float, float],
    rb: tuple[float, float],
    rsum: tuple[float, float],
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` pairs uniform on ``ra x rb`` restricted to ``a + b`` in ``rsum`` (rejection)."""
    a, b = np.empty(n), np.empty(n)
    todo = np.arange(n)
    for _ in range(_MAX_ROUNDS):
        if todo.size == 0:
            break
        a[todo] = rng.uniform(ra[0], ra[1], todo.size)
        b[todo] = rng.uniform(rb[0], rb[1], todo.size)
        s = a[todo] + b[todo]
        todo = todo[(s < rsum[0]) | (s >= rsum[1])]
    return a, b


def _fractions(rng: np.random.Generator, cls: np.ndarray) -> np.ndarray:
    """An (n, 3) array of cpu/net/disk fractions following the per-class scheme."""
    out = np.empty((cls.size, 3))
    for c, (ra, rb, rsum, col_a, col_b) in _SCHEME.items():
        idx = np.flatnonzero(cls == c)
        a, b = _conditioned_pair(rng, idx.size, ra, rb, rsum)
        third = 3 - col_a - col_b
        out[idx, col_a], out[idx, col_b], out[idx, third] = a, b, 1.0 - a - b
    return out


def _memory(rng: np.random.Generator, shares: np.ndarray, n: int) -> np.ndarray:
    band = pick(rng, shares, n)
    lows = np.array([r[0] for r in MEM_RANGES])
    highs = np.array([r[1] for r in MEM_RANGES])
    return rng.uniform(lows[band], highs[band])


def _mixture_shares(mixture: str | Sequence[float]) -> np.ndarray:
    if isinstance(mixture, str):
        if mixture not in MIXTURES:
            raise ConfigError(f"mixture must be one of {sorted(MIXTURES)} (got {mixture!r})")
        return np.array(MIXTURES[mixture])
    return check_shares("mixture", mixture, 3)


def annotate_lomarc(
    w: Workload,
    *,
    rng: np.random.Generator,
    mixture: str | Sequence[float] = "M1",
    memory_shares: Sequence[float] = (0.70, 0.25, 0.05),
    good_pair_prob: float = 0.33,
    good_slowdown: float = 1.4,
    poor_slowdown: float = 2.0,
) -> Workload:
    """Add the LOMARC per-job profile columns (see the module docstring).

    Args:
        w: the workload to annotate (left unchanged).
        rng: the source of every draw.
        mixture: "M1", "M2", "M3" or explicit (CPU, network, disk) class shares.
        memory_shares: shares of the three memory ranges of :data:`MEM_RANGES`.
        good_pair_prob: probability that a job's CPU part pairs well.
        good_slowdown: CPU slowdown of a good pairing (>= 1).
        poor_slowdown: CPU slowdown of a poor pairing (>= 1).

    Returns:
        A copy of ``w`` with the ``lomarc_*`` columns.

    Raises:
        ConfigError: a bad parameter, named in the message.
    """
    check_rng(rng)
    shares = _mixture_shares(mixture)
    mem_shares = check_shares("memory_shares", memory_shares, 3)
    p_good = check_prob("good_pair_prob", good_pair_prob)
    for name, v in (("good_slowdown", good_slowdown), ("poor_slowdown", poor_slowdown)):
        if not v >= 1.0:
            raise ConfigError(f"{name} must be >= 1 (got {v!r})")
    n = len(w)
    cls = pick(rng, shares, n)
    frac = _fractions(rng, cls)
    good = rng.random(n) < p_good
    cols = {
        "lomarc_class": cls,
        "lomarc_cpu": frac[:, 0],
        "lomarc_net": frac[:, 1],
        "lomarc_disk": frac[:, 2],
        "lomarc_mem": _memory(rng, mem_shares, n),
        "lomarc_cpu_good": good,
        "lomarc_cpu_slowdown": np.where(good, float(good_slowdown), float(poor_slowdown)),
    }
    label = mixture if isinstance(mixture, str) else tuple(float(s) for s in shares)
    return w.with_columns(cols, f"lomarc profile: mixture {label}")
