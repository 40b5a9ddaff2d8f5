"""The backfill window of ``nodeshare-easy`` scanned as arrays (numpy), not job by job.

EASY's backfill behind a blocked head tries up to ``window`` queued jobs in order. Most
of them do nothing: no configuration fits, or the placement Algorithm 1 would choose
ends after the shadow time and holds nodes the head counts on. Between two starts
nothing they read changes (the node book, the shadow time, the extra nodes and which
nodes the head counts on), and what Algorithm 1 decides for a job depends only on its
``(size, class)`` key (which configurations fit, at what pressure, on which nodes)
and on its own coefficients and estimate. :class:`WindowScan` keeps those per job in
arrays and per key in a small table for the book's current state, and finds the
first job of the window whose visit *does* something with one compiled loop
(:mod:`cosched.nodeshare._window_kernels`; numpy operations on a 150-job window cost
more than the Python loop they would replace):

* it starts: a configuration fits and Algorithm 1's choice (the smallest factor
  ``a (1 + victim x pressure) + b``, the first on ties) ends by the shadow time, or
  takes no more of the nodes the head counts on than the extra nodes;
* it is the first of its key found with no configuration that fits, not yet recorded
  as blocked (the policy then
  records why it is blocked and skips the key for the rest of the pass);
* a configuration fits but no factor is finite (never seen; the policy's own code
  decides).

The policy visits that job with its ordinary per-job code and scans again from the
next one. The arithmetic is the same IEEE operations in the same order as
:meth:`~cosched.nodeshare.placement.NodeBook.best`, so the schedules are the same
bit for bit; the jobs passed over are exactly those the per-job loop would have passed
over without any effect.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cosched.nodeshare.configurations import PAPER_SHAPES, Configuration
from cosched.nodeshare.placement import NodeBook

__all__ = ["WindowScan"]

#: Configurations a job can have at most (one per paper shape).
_WIDTH = len(PAPER_SHAPES)


class WindowScan:
    """Per-job arrays of what placement reads, and per-key fits for the book's state.

    Args:
        jobs: jobs in the run (the arrays are indexed by job index).
    """

    def __init__(self, jobs: int) -> None:
        self.kid = np.full(jobs, -1, dtype=np.int64)  # key id, -1: not recorded yet
        self.est = np.zeros(jobs)
        self.vic = np.zeros(jobs)
        self.ca = np.zeros((jobs, _WIDTH))
        self.cb = np.zeros((jobs, _WIDTH))
        #: per job: already in the policy's record of blocked jobs.
        self.blocked = np.zeros(jobs, dtype=np.bool_)
        self._keys: list[tuple[int, Sequence[Configuration]]] = []
        self._ids: dict[tuple[int, int], int] = {}
        self._kp = np.full((0, _WIDTH), np.nan)  # pressure per fitting configuration
        self._kfit = np.zeros(0, dtype=np.bool_)
        self._kver = np.zeros(0, dtype=np.int64)  # book version of each row
        #: per key: found with no fitting configuration in this pass (a dead key).
        self.dead = np.zeros(0, dtype=np.bool_)
        self._held = np.zeros((0, _WIDTH), dtype=np.int64)

    def key(self, size: int, sensitivity: int, configs: Sequence[Configuration]) -> int:
        """The id of the ``(size, class)`` key (configurations depend on size only)."""
        got = self._ids.get((size, sensitivity))
        if got is None:
            got = self._ids[(size, sensitivity)] = len(self._keys)
            self._keys.append((sensitivity, configs))
            if got >= len(self._kfit):
                grow = max(16, len(self._kfit))
                self._kp = np.vstack([self._kp, np.full((grow, _WIDTH), np.nan)])
                self._kfit = np.concatenate([self._kfit, np.zeros(grow, dtype=np.bool_)])
                self._kver = np.concatenate([self._kver, np.full(grow, -1, dtype=np.int64)])
                self.dead = np.concatenate([self.dead, np.zeros(grow, dtype=np.bool_)])
                self._held = np.vstack([self._held, np.full((grow, _WIDTH), -1, np.int64)])
        return got

    def record(
        self,
        idx: int,
        key: int,
        estimate: float,
        victim: float,
        coeffs: Sequence[tuple[float, float]],
    ) -> None:
        """Store job ``idx``'s key, estimate, victim weight and ``(a, b)`` per configuration."""
        self.kid[idx] = key
        self.est[idx] = estimate
        self.vic[idx] = victim
        for k, (a, b) in enumerate(coeffs):
            self.ca[idx, k] = a
            self.cb[idx, k] = b

    def new_pass(self) -> None:
        """Forget the dead keys and the relevant-node counts (a new backfill pass)."""
        self.dead.fill(False)
        self._held.fill(-1)

    def changed(self) -> None:
        """The book or the nodes the head counts on changed (a job started)."""
        self._held.fill(-1)

    def next_event(
        self,
        book: NodeBook,
        jobs: np.ndarray,
        start: int,
        *,
        now: float,
        shadow: float,
        extra: int,
        relevant: np.ndarray,
    ) -> int:
        """Position in ``jobs`` (job indices, recorded), from ``start``, of the first job
        whose visit does something (see the module's description), or -1 if none does.

        ``relevant[node]`` says whether the head counts on ``node``; :attr:`dead` marks the
        keys already found with no fitting configuration in this pass.
        """
        from cosched.nodeshare import _window_kernels as kern  # numba, on first use

        ver = book.version
        for k in kern.stale_keys(jobs[start:], self.kid, self._kver, ver).tolist():
            s, configs = self._keys[k]
            row = self._kp[k]
            row.fill(np.nan)
            fits = book.fits(s, configs)
            for c, pressure in fits:
                row[c] = pressure
            self._kfit[k] = bool(fits)
            self._kver[k] = ver
        while True:
            what, pos, c = kern.scan(
                jobs, start, self.kid, self._kp, self._kfit, self.dead, self._held,
                self.blocked, self.ca, self.cb, self.vic, self.est, now, shadow, extra,
            )  # fmt: skip
            if what != kern.NEED_HELD:
                return int(pos)
            key = int(self.kid[jobs[pos]])
            s, configs = self._keys[key]
            cfg = configs[c]
            nodes = book.take(s, cfg.nodes, cfg.cores)
            self._held[key, c] = int(np.count_nonzero(relevant[list(nodes)]))
            start = pos
