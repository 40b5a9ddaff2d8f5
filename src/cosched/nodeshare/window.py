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
from typing import Any, NamedTuple

import numpy as np

from cosched.compile import kernels
from cosched.nodeshare import _window_kernels
from cosched.nodeshare.configurations import PAPER_SHAPES, Configuration
from cosched.nodeshare.placement import NodeBook

__all__ = ["Pass", "WindowScan"]

#: Configurations a job can have at most (one per paper shape).
_WIDTH = len(PAPER_SHAPES)
#: Cores of a key with no configuration (more than any book has free: blocked by capacity).
_NONE = np.iinfo(np.int64).max


class WindowScan:
    """Per-job arrays of what placement reads, and per-key fits for the book's state.

    Args:
        jobs: jobs in the run (the arrays are indexed by job index).
    """

    def __init__(self, jobs: int) -> None:
        #: the window kernels, compiled (ahead of time, else by numba).
        self.kern = kernels(_window_kernels.__name__)
        self.kid = np.full(jobs, -1, dtype=np.int64)  # key id, -1: not recorded yet
        self.est = np.zeros(jobs)
        self.vic = np.zeros(jobs)
        self.size = np.zeros(jobs, dtype=np.int64)  # in nodes (its base configuration's)
        self.coef = np.zeros((jobs, _WIDTH, 2))  # (a, b) per configuration
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
        self._kmin = np.zeros(0, dtype=np.int64)  # fewest cores of a configuration
        #: per key: found with no fitting configuration in this pass (a dead key).
        self.dead = np.zeros(0, dtype=np.bool_)
        self._held = np.zeros((0, _WIDTH), dtype=np.int64)
        self._buf = np.zeros(0, dtype=np.int64)
        self._out_job = self._out_cfg = self._out_end = self._out_nodes = self._buf
        self._out_factor = np.zeros(0)
        self._out_blocked = np.zeros((0, 2), dtype=np.int64)
        self._fixed: tuple[NodeBook, tuple[Any, ...]] | None = None
        self._fstate = np.zeros(1)  # the shadow time
        self._istate = np.zeros(4, dtype=np.int64)  # extra nodes, version, free, head

    def key(self, size: int, sensitivity: int, configs: Sequence[Configuration]) -> int:
        """The id of the ``(size, class)`` key (configurations depend on size only)."""
        got = self._ids.get((size, sensitivity))
        if got is None:
            got = self._ids[(size, sensitivity)] = self._n
            self._n += 1
            if got >= len(self._kfit):
                self._grow(max(16, len(self._kfit)))
            self._ks[got] = sensitivity
            self._kmin[got] = min((c.nodes * c.cores for c in configs), default=_NONE)
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
        self._kver, self._kmin = rows(self._kver, -1), rows(self._kmin, 0)
        self.dead, self._held = rows(self.dead, False), rows(self._held, -1)
        self._fixed = None  # the kernel's arrays are new

    def record(
        self,
        idx: int,
        key: int,
        estimate: float,
        victim: float,
        coeffs: Sequence[tuple[float, float]],
        size: int,
    ) -> None:
        """Store job ``idx``'s key, estimate, victim weight, ``(a, b)`` per configuration
        and size in nodes."""
        self.kid[idx] = key
        self.size[idx] = size
        self.est[idx] = estimate
        self.vic[idx] = victim
        if coeffs:
            self.coef[idx, : len(coeffs)] = coeffs

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
        _, pos = self.kern.scan(
            jobs, start, self.kid, keys, self.dead, self._held, self.blocked, self.coef,
            self.vic, self.est, now, shadow, extra, relevant, book.version,
            book.fit_arrays, book.cnt, book.head, book.nxt, self._buf,
        )  # fmt: skip
        return int(pos)

    def easy_pass(
        self,
        book: NodeBook,
        first: int,
        cand: np.ndarray,
        *,
        queued: np.ndarray,
        submitted: int,
        window: int,
        ends: np.ndarray,
        now: float,
        relevant: np.ndarray,
        reservation: tuple[float, int],
    ) -> Pass:
        """One pass of ``nodeshare-easy`` in one kernel call
        (:func:`~cosched.nodeshare._window_kernels.easy_pass`: from the head candidate
        ``first``, or, ``first < 0``, only the arrivals ``cand`` under ``reservation``,
        the ``(shadow time, extra nodes)`` in force). The book is changed in place
        (its ``version`` and ``usable_free`` too); what the pass did is returned."""
        fixed = self._fixed
        if (
            fixed is None
            or fixed[0] is not book
            or len(self._out_blocked) <= max(window, len(cand))
        ):
            fixed = self._arrays(book, max(window, len(cand)))
        istate, fstate = self._istate, self._fstate
        istate[:3] = reservation[1], book.version, book.usable_free
        fstate[0] = reservation[0]
        started, heads, nb, tried, status = self.kern.easy_pass(
            first, cand, queued, submitted, window, ends, now, relevant, *fixed[1]
        )
        extra, book.version, book.usable_free, head = istate.tolist()
        reservation = (fstate.item(0), extra)
        blocked = [(j, c == 1) for j, c in self._out_blocked[:nb].tolist()] if nb else []
        if not started:
            return Pass(heads, tried, head, reservation, status == 0, blocked)
        ends_at = self._out_end[:started].tolist()
        flat = self._out_nodes[: ends_at[-1]]
        taken = flat.tolist()
        return Pass(
            heads,
            tried,
            head,
            reservation,
            status == 0,
            blocked,
            self._out_job[:started].tolist(),
            self._out_cfg[:started].tolist(),
            self._out_factor[:started].tolist(),
            [tuple(taken[lo:hi]) for lo, hi in zip([0, *ends_at], ends_at, strict=False)],
            flat,
        )

    def _arrays(self, book: NodeBook, window: int) -> tuple[NodeBook, tuple[Any, ...]]:
        """The arrays :func:`~cosched.nodeshare._window_kernels.easy_pass` reads and
        writes besides those of one pass (output buffers sized for ``book``)."""
        nodes = book.nodes * book.cap  # at most this many (job, node) pairs start
        if len(self._out_job) < nodes:
            self._out_job = np.zeros(nodes, dtype=np.int64)
            self._out_cfg = np.zeros(nodes, dtype=np.int64)
            self._out_end = np.zeros(nodes, dtype=np.int64)
            self._out_nodes = np.zeros(nodes, dtype=np.int64)
            self._out_factor = np.zeros(nodes)
        if len(self._out_blocked) <= window:
            self._out_blocked = np.zeros((window + 1, 2), dtype=np.int64)
        if len(self._buf) != book.nodes:
            self._buf = np.zeros(book.nodes, dtype=np.int64)
        jobs = (self.kid, self.blocked, self.coef, self.vic, self.est, self.size)
        keys = (self._ks, self._kneed, self._kcores, self._kp, self._kfit, self._kver)
        out = (self._out_job, self._out_cfg, self._out_end, self._out_nodes)
        self._fixed = book, (
            jobs, keys, self._kmin, self.dead, self._held, self._fstate, self._istate,
            book.fit_arrays, book.links, book.state, book.width, book.pad, self._buf, out,
            self._out_factor, self._out_blocked,
        )  # fmt: skip
        return self._fixed


class Pass(NamedTuple):
    """What :meth:`WindowScan.easy_pass` did.

    Attributes:
        heads: how many jobs started ahead of the head (the rest were backfilled).
        tried: placements tried (a diagnostic).
        head: the blocked head (-1: none; a window of arrivals: -1).
        reservation: the shadow time and extra nodes left.
        fits: False when the head is wider than the machine (no reservation made).
        blocked: ``(job, by capacity)`` for each job recorded as blocked, in order.
        jobs, configs, factors, nodes: the jobs started, in order, each with the index of
            its configuration, its run-time factor and its nodes.
        taken: all their nodes, one after the other.
    """

    heads: int
    tried: int
    head: int
    reservation: tuple[float, int]
    fits: bool
    blocked: list[tuple[int, bool]]
    jobs: Sequence[int] = ()
    configs: Sequence[int] = ()
    factors: Sequence[float] = ()
    nodes: Sequence[tuple[int, ...]] = ()
    taken: np.ndarray = np.zeros(0, dtype=np.int64)
