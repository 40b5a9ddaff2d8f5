"""The model's random draws, per task and not per event.

The job model (section 3.2 of dynamic-coscheduling-cluster-simulation.txt) multiplies
each compute and I/O part of an iteration by ``1 + unif(-s/2, s/2)`` per task and
iteration. :func:`skew_unit` is a counter-based generator (a draw depends only on the
job's seed, the task and the draw's index), so the order in which events consume draws
changes nothing; :func:`factor` is a process's next multiplier.
"""

from __future__ import annotations

import numpy as np

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.layout import P_DRAW, P_RANK, P_SEED, P_SKEW, State


@njit
def skew_unit(seed: int, rank: int, k: int) -> float:
    """The ``k``-th uniform [0, 1) draw of task ``rank`` of a job with ``seed``.

    A counter-based generator (SplitMix64's finaliser of ``seed + rank * 2^40 + k``, in
    wrapping uint64 arithmetic): a draw depends only on the job's seed (taken from the
    run's generator), the task and the draw's index, never on the order in which events
    consume draws.
    """
    z = np.uint64(seed) + (np.uint64(rank) << np.uint64(40)) + np.uint64(k)
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * 2.0**-53


@njit
def factor(S: State, p: int) -> float:
    """The next skew multiplier ``1 + unif(-s/2, s/2)`` of process ``p``."""
    k = S.I[p, P_DRAW]
    S.I[p, P_DRAW] = k + 1
    u = skew_unit(S.I[p, P_SEED], S.I[p, P_RANK], k)
    return 1.0 + S.F[p, P_SKEW] * (u - 0.5)
