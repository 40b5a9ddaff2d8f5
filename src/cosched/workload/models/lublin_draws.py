"""The Lublin-Feitelson model's random draws, made in chunks of bounded size.

The model draws each quantity for all jobs at once, in a fixed order on one generator:
the interactive class's inter-arrival gammas (then redraws of those above the cap), the
batch class's, then for each class's jobs the size uniforms (three blocks: class,
segment, position), the hyper-gamma's component uniforms, its gammas, then the
run-time redraws. :class:`LublinDraws` reproduces exactly that stream of numbers while
holding only a chunk of each block at a time:

* a *scan* pass walks each block once to learn where the next block starts (a copy of
  the generator) and which draws exceed their cap (few: about 0.1% of inter-arrivals),
  whose redraws come after the whole block and are made then, as the whole-array code
  does;
* the *chunk* pass runs one copy of the generator per block, each at its block's start,
  side by side, patching the capped draws with their redraws.

Each value is computed by the same element-wise operations as in a whole-array draw
(a running sum continues from the previous chunk's last total), so the output is the
same bit for bit whatever the chunk size; ``tests/workload/test_lublin_chunks.py``
compares it with the whole-array implementation the model had before.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cosched.errors import ConfigError, InvariantError

if TYPE_CHECKING:
    from cosched.workload.models.lublin import LublinClassParams

__all__ = ["CHUNK", "ClassDraws", "merge_clocks"]

#: Jobs per chunk by default: a few tens of MB of arrays at a time.
CHUNK = 1 << 18
# Rejection sampling redraws only the values above a cap; a parameter set whose draws
# almost never fall under the cap would loop forever, so give up after this many rounds.
MAX_REDRAW_ROUNDS = 200


def spans(n: int, chunk: int) -> Iterator[tuple[int, int]]:
    """``(first index, length)`` of each chunk of ``n`` items."""
    for lo in range(0, n, chunk):
        yield lo, min(chunk, n - lo)


def _skip(rng: np.random.Generator, n: int, chunk: int) -> None:
    """Move ``rng`` past ``n`` uniform draws (one block), a chunk at a time."""
    for _, m in spans(n, chunk):
        rng.random(m)


def _patch(values: np.ndarray, lo: int, idx: np.ndarray, fixed: np.ndarray) -> None:
    """Overwrite the capped draws of chunk ``[lo, lo + len(values))`` with their redraws."""
    a, b = np.searchsorted(idx, [lo, lo + values.size])
    values[idx[a:b] - lo] = fixed[a:b]


def redraw_capped(
    rng: np.random.Generator, shape: float, scale: float, values: np.ndarray, cap: float
) -> np.ndarray:
    """Redraw, round after round, the gamma draws above ``cap`` (only the offenders)."""
    out = values.copy()
    for _ in range(MAX_REDRAW_ROUNDS):
        bad = np.flatnonzero(out > cap)
        if bad.size == 0:
            return out
        out[bad] = rng.gamma(np.full(bad.size, shape), np.full(bad.size, scale))
    raise ConfigError(
        f"gamma(shape~{shape:g}, scale~{scale:g}) "
        f"draws keep exceeding the cap {cap:g}: shape (alpha) or scale too large"
    )


@dataclass(frozen=True)
class CappedGammas:
    """One block of ``n`` gamma draws with redraws above ``cap`` (an arrival stream).

    Attributes:
        start: a generator at the block's first draw.
        end: a generator just after the block and its redraws.
        shape, scale, n, cap: the draws.
        idx: indices of the draws above the cap (ascending).
        fixed: their final (redrawn) values.
    """

    start: np.random.Generator
    end: np.random.Generator
    shape: float
    scale: float
    n: int
    cap: float
    idx: np.ndarray
    fixed: np.ndarray

    @classmethod
    def scan(
        cls, rng: np.random.Generator, shape: float, scale: float, n: int, cap: float, chunk: int
    ) -> CappedGammas:
        """Walk the block from ``rng``'s position (``rng`` is left untouched)."""
        start = copy.deepcopy(rng)
        g = copy.deepcopy(rng)
        idx, vals = [np.empty(0, np.int64)], [np.empty(0)]
        for lo, m in spans(n, chunk):
            draws = g.gamma(np.full(m, shape), np.full(m, scale))
            bad = np.flatnonzero(draws > cap)
            idx.append(bad + lo)
            vals.append(draws[bad])
        fixed = redraw_capped(g, shape, scale, np.concatenate(vals), cap)
        return cls(start, g, shape, scale, n, cap, np.concatenate(idx), fixed)

    def chunks(self, chunk: int) -> Iterator[np.ndarray]:
        """The final draws, ``chunk`` at a time."""
        g = copy.deepcopy(self.start)
        for lo, m in spans(self.n, chunk):
            draws = g.gamma(np.full(m, self.shape), np.full(m, self.scale))
            _patch(draws, lo, self.idx, self.fixed)
            yield draws


@dataclass(frozen=True)
class ClassDraws:
    """The size and run-time draws of ``n`` jobs of one class (one block each).

    Attributes:
        starts: generators at the first draw of the five blocks: size class
            (serial / power of two / any), size segment, size position, hyper-gamma
            component, hyper-gamma value.
        end: a generator just after the run-time redraws.
        idx: jobs whose run-time draw exceeded the cap; fixed: their final draws.
    """

    starts: tuple[np.random.Generator, ...]
    end: np.random.Generator
    n: int
    idx: np.ndarray
    fixed: np.ndarray

    @classmethod
    def scan(
        cls,
        rng: np.random.Generator,
        cp: LublinClassParams,
        n: int,
        nodes: int,
        cap: float,
        chunk: int,
    ) -> ClassDraws:
        """Walk the blocks from ``rng``'s position (``rng`` is left untouched)."""
        starts = [copy.deepcopy(rng)]
        for _ in range(4):
            nxt = copy.deepcopy(starts[-1])
            _skip(nxt, n, chunk)
            starts.append(nxt)
        draws = cls(tuple(starts), starts[-1], n, np.empty(0, np.int64), np.empty(0))
        idx, p_short = [np.empty(0, np.int64)], [np.empty(0)]
        gens = draws._copies()
        for lo, m in spans(n, chunk):
            _, p, g = _class_chunk(gens, cp, m, nodes)
            bad = np.flatnonzero(g > cap)
            idx.append(bad + lo)
            p_short.append(p[bad])
        fixed = _redraw_hyper(gens[-1], cp, np.concatenate(p_short), cap)
        return cls(tuple(starts), gens[-1], n, np.concatenate(idx), fixed)

    def _copies(self) -> list[np.random.Generator]:
        return [copy.deepcopy(g) for g in self.starts]

    def chunks(
        self, cp: LublinClassParams, nodes: int, chunk: int
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(sizes, ln run times)`` of the jobs, ``chunk`` at a time."""
        gens = self._copies()
        for lo, m in spans(self.n, chunk):
            sizes, _, g = _class_chunk(gens, cp, m, nodes)
            _patch(g, lo, self.idx, self.fixed)
            yield sizes, g


def _class_chunk(
    gens: list[np.random.Generator], cp: LublinClassParams, m: int, nodes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The next ``m`` jobs' sizes, short-component probabilities and first run-time draws."""
    u = gens[0].random(m)
    lower = gens[1].random(m) < cp.uprob
    v = gens[2].random(m)
    sizes = size_formula(cp, u, lower, v, nodes)
    p_short = np.clip(cp.pa * sizes + cp.pb, 0.0, 1.0)
    short = gens[3].random(m) < p_short
    shape = np.where(short, cp.a1, cp.a2)
    scale = np.where(short, cp.b1, cp.b2)
    return sizes, p_short, gens[4].gamma(shape, scale)


def size_formula(
    cp: LublinClassParams, u: np.ndarray, lower: np.ndarray, v: np.ndarray, nodes: int
) -> np.ndarray:
    """Job sizes in nodes from the three uniforms (step 2 of the sheet's procedure)."""
    c = cp
    x = np.where(lower, c.ulow + v * (c.umed - c.ulow), c.umed + v * (c.uhi - c.umed))
    # Round half up, as C's (int)(x + 0.5); numpy's round would round halves to even.
    x = np.where(u <= c.serial_prob + c.pow2_prob, np.floor(x + 0.5), x)
    size = np.floor(np.exp2(x) + 0.5).astype(np.int64)
    size[u <= c.serial_prob] = 1
    return np.clip(size, 1, nodes)


def _redraw_hyper(
    rng: np.random.Generator, cp: LublinClassParams, p_short: np.ndarray, cap: float
) -> np.ndarray:
    """Hyper-gamma redraws of the draws above ``cap`` (component drawn again too).

    The first round was the block itself, so at most ``MAX_REDRAW_ROUNDS - 1`` more.
    """
    out = np.full(p_short.size, np.inf)
    todo = np.arange(p_short.size)
    for _ in range(MAX_REDRAW_ROUNDS - 1):
        if todo.size == 0:
            return out
        short = rng.random(todo.size) < p_short[todo]
        shape = np.where(short, cp.a1, cp.a2)
        scale = np.where(short, cp.b1, cp.b2)
        out[todo] = rng.gamma(shape, scale)
        todo = todo[out[todo] > cap]
    if todo.size == 0:
        return out
    raise ConfigError(f"run-time draws keep exceeding runtime_cap {cap:g}: check a1/b1/a2/b2")


def merge_clocks(
    first: Iterator[np.ndarray], second: Iterator[np.ndarray], n: int, chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The first ``n`` clocks of two sorted streams merged, ``(clocks, from_second)``.

    Ties go to ``first``: the order of a stable sort of the two streams concatenated.
    An element is let out only once nothing still to come from the other stream can
    precede it, so what is let out is always a prefix of the whole merge.
    """
    bufs = [np.empty(0), np.empty(0)]
    srcs = [first, second]
    done = [False, False]
    last = [-np.inf, -np.inf]
    made = 0
    while made < n:
        for s in (0, 1):
            while not done[s] and bufs[s].size < chunk:
                nxt = next(srcs[s], None)
                if nxt is None:
                    done[s] = True
                    break
                if nxt.size and (nxt[0] < last[s] or (np.diff(nxt) < 0).any()):
                    raise InvariantError("arrival clocks of a class went backwards")
                if nxt.size:
                    last[s] = float(nxt[-1])
                bufs[s] = np.concatenate((bufs[s], nxt))
        a, b = bufs
        # A first-stream clock may go once every second-stream clock before it is
        # here (those still to come are >= the buffer's last); a second-stream clock
        # once every first-stream clock at or before it is.
        na = a.size if done[1] else int(np.searchsorted(a, b[-1], side="right")) if b.size else 0
        nb = b.size if done[0] else int(np.searchsorted(b, a[-1], side="left")) if a.size else 0
        if na + nb == 0:
            raise InvariantError("both arrival streams ran out before the jobs were drawn")
        clocks = np.concatenate((a[:na], b[:nb]))
        order = np.argsort(clocks, kind="stable")[: n - made]
        yield clocks[order], order >= na
        made += order.size
        # Whatever was not let out (beyond n) is never needed.
        used_a = int(np.count_nonzero(order < na))
        bufs = [a[used_a:], b[order.size - used_a :]]
