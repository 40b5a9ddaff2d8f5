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

from cosched.nodeshare import _window_kernels as kern
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
        self._ids: dict[tuple[int, int], int] = {}
        self._n = 0
        # Per key: class, (nodes, cores) per configuration (-1: none), the pressure per
        # fitting configuration (NaN: does not fit), whether any fits, and the book
        # version those were computed for (-1: never).
        self._ks = np.zeros(0, dtype=np.int64)
        self._kneed = np.zeros((0, _WIDTH), dtype=np.int64)
        self._kcores = np.zeros((0, _WIDTH), dtype=np.int64)
        self._kp = np.zeros((0, _WIDTH))
        self._kfit = np.zeros(0, dtype=np.bool_)
        self._kver = np.zeros(0, dtype=np.int64)
        #: per key: found with no fitting configuration in this pass (a dead key).
        self.dead = np.zeros(0, dtype=np.bool_)
        self._held = np.zeros((0, _WIDTH), dtype=np.int64)
        self._buf = np.zeros(0, dtype=np.int64)

    def key(self, size: int, sensitivity: int, configs: Sequence[Configuration]) -> int:
        """The id of the ``(size, class)`` key (configurations depend on size only)."""
        got = self._ids.get((size, sensitivity))
        if got is None:
            got = self._ids[(size, sensitivity)] = self._n
            self._n += 1
            if got >= len(self._kfit):
                self._grow(max(16, len(self._kfit)))
            self._ks[got] = sensitivity
            for c, cfg in enumerate(configs):
                self._kneed[got, c] = cfg.nodes
                self._kcores[got, c] = cfg.cores
        return got

    def _grow(self, more: int) -> None:
        def rows(a: np.ndarray, fill: float) -> np.ndarray:
            return np.concatenate([a, np.full((more, *a.shape[1:]), fill, dtype=a.dtype)])

        self._ks = rows(self._ks, 0)
        self._kneed, self._kcores = rows(self._kneed, -1), rows(self._kcores, -1)
        self._kp, self._kfit = rows(self._kp, np.nan), rows(self._kfit, False)
        self._kver = rows(self._kver, -1)
        self.dead, self._held = rows(self.dead, False), rows(self._held, -1)

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
        if len(self._buf) != book.nodes:
            self._buf = np.zeros(book.nodes, dtype=np.int64)
        keys = (self._ks, self._kneed, self._kcores, self._kp, self._kfit, self._kver)
        _, pos = kern.scan(
            jobs, start, self.kid, keys, self.dead, self._held, self.blocked, self.ca,
            self.cb, self.vic, self.est, now, shadow, extra, relevant, book.version,
            book.fit_arrays, book.cnt, book.head, book.nxt, self._buf,
        )  # fmt: skip
        return int(pos)
