"""Compiled kernels of the node book (:class:`cosched.nodeshare.placement.NodeBook`).

The book keeps nodes in buckets by *state* ``(code, free)`` (classes present, free
cores). A state's id is ``code * (cores + 1) + free``; per state the book keeps how many
nodes are in it (``cnt``) and the nodes themselves as a linked list in the order they
entered (``head``/``tail`` per state, ``nxt``/``prv`` per node), which is the order a
Python ``dict`` used as an ordered set would keep. The buckets' order for placement is
fixed once for a book (``order``: every state a job could join, sorted by pressure, then
free cores, then code), so a change of the book moves counts and links only.

Every rule that reads the buckets is written here once: :func:`usable` (may a node
in a state take a job), :func:`fit_row` (for each configuration of a job, the pressure
on the worst of its best nodes), :func:`choose` (the configuration Algorithm 1 picks
from those pressures), :func:`take` (its nodes) and :func:`move` (a job joins or leaves
nodes). The book's Python methods call them, and so does the backfill
window's scan (:mod:`cosched.nodeshare._window_kernels`).

The functions are marked with :func:`cosched.compile.kernel`, not compiled at import (so
importing this module loads no numba). Callers take the compiled forms from
``cosched.compile.kernels(__name__)``: compiled ahead of time (the ones in
:data:`SIGNATURES`, with the window's, as the group :data:`GROUP`) or by numba
(``cache=True``; :func:`cosched.compile.jitted` then replaces this module's functions with
numba's, in place). Until then they run as plain Python on the same arrays, with the
same results.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from cosched.compile import B1, B2, F1, F2, I1, I2, Group, kernel, register, tuple_of

#: A node's state code counts its jobs per class in base 8: ``low + 8 x moderate + 64 x
#: high`` (a job of class ``s`` adds ``BASE ** s``; cap <= 7 jobs a node).
BASE = 8

__all__ = ["BASE", "choose", "co_pressure", "fit_row", "jobs_on", "move", "new_factors", "take"]


@kernel
def usable(
    st: int, s: int, cores: int, st_code: np.ndarray, st_free: np.ndarray, ok: np.ndarray
) -> bool:
    """Whether a node in state ``st`` may take a class-``s`` job of ``cores`` per node:
    enough free cores, below the cap and allowed by the restriction (``ok[s, code]``)."""
    return st_free[st] >= cores and ok[s, st_code[st]]


@kernel
def fit_row(
    s: int,
    needs: np.ndarray,
    cores: np.ndarray,
    out: np.ndarray,
    order: np.ndarray,
    st_code: np.ndarray,
    st_free: np.ndarray,
    st_press: np.ndarray,
    ok: np.ndarray,
    cnt: np.ndarray,
) -> bool:
    """For each configuration ``(needs[k], cores[k])`` (``needs[k] < 0``: none), the
    pressure of the bucket at which the usable nodes for a class-``s`` job, counted along
    ``order``, reach ``needs[k]`` (the worst of its best nodes) into ``out[k]``; NaN if
    they never do. Returns whether any configuration fits. One walk serves them all."""
    width = len(needs)
    got = np.zeros(width, dtype=np.int64)
    done = needs < 0  # no configuration, or its pressure found
    left = 0
    for k in range(width):
        out[k] = np.nan
        if not done[k]:
            left += 1
    any_fit = False
    for i in range(len(order)):
        if left == 0:
            break
        st = order[i]
        c = cnt[st]
        if not c:
            continue
        for k in range(width):
            if done[k] or not usable(st, s, cores[k], st_code, st_free, ok):
                continue
            got[k] += c
            if got[k] >= needs[k]:
                out[k] = st_press[st]
                done[k] = True
                any_fit = True
                left -= 1
    return any_fit


@kernel
def choose(row: np.ndarray, coef: np.ndarray, victim: float) -> tuple[int, float]:
    """Algorithm 1's choice among a job's configurations: ``(c, factor)`` for the
    smallest run-time factor ``a (1 + victim x pressure) + b`` (``a, b = coef[c]``) over
    the configurations that fit (``row[c]``, the pressure from :func:`fit_row`; NaN: it
    does not fit), the first on ties; ``(-1, inf)`` if none fits or no factor is finite.
    """
    best = np.inf
    bc = -1
    for c in range(len(row)):
        p = row[c]
        if p != p:  # this configuration does not fit
            continue
        f = coef[c, 0] * (1.0 + victim * p) + coef[c, 1]
        if f < best:
            best = f
            bc = c
    return bc, best


@kernel
def take(
    s: int,
    need: int,
    cores: int,
    out: np.ndarray,
    order: np.ndarray,
    st_code: np.ndarray,
    st_free: np.ndarray,
    ok: np.ndarray,
    cnt: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
) -> int:
    """The first ``need`` usable nodes along ``order`` (each bucket in entry order) into
    ``out``; how many were found (fewer than ``need`` if too few are usable)."""
    n = 0
    if need <= 0:
        return 0
    for i in range(len(order)):
        st = order[i]
        if cnt[st] and usable(st, s, cores, st_code, st_free, ok):
            node = head[st]
            while node >= 0:
                out[n] = node
                n += 1
                if n == need:
                    return n
                node = nxt[node]
    return n


@kernel
def move(
    idx: int,
    nodes: np.ndarray,
    step: int,
    cores: int,
    width: int,
    code: np.ndarray,
    free: np.ndarray,
    cnt: np.ndarray,
    head: np.ndarray,
    tail: np.ndarray,
    nxt: np.ndarray,
    prv: np.ndarray,
    below_cap: np.ndarray,
    pressure_of: np.ndarray,
    node_pressure: np.ndarray,
    node_jobs: np.ndarray,
    count: np.ndarray,
    pad: int,
) -> tuple[bool, int]:
    """Job ``idx`` joins each node of ``nodes`` in turn (``step`` > 0: ``step`` added to
    the node's code, ``cores`` taken from its free cores, ``idx`` added to its jobs) or
    leaves it (``step`` < 0, ``cores`` < 0: the reverse); each node moves to the end of
    its new bucket. ``node_jobs[:count[node], node]`` are the node's jobs (the rest
    ``pad``; a job leaving is replaced by the node's last job).

    Returns ``(True, change in free cores on nodes below the cap)``, or ``(False, 0)``
    with nothing changed when a node would hold more jobs than ``node_jobs`` has rows
    or a leaving job is not on a node.
    """
    rows = node_jobs.shape[0]
    for i in range(len(nodes)):
        node = nodes[i]
        if step > 0 and count[node] >= rows:
            return False, 0
        if step < 0:
            found = False
            for r in range(count[node]):
                if node_jobs[r, node] == idx:
                    found = True
            if not found:
                return False, 0
    delta = 0
    for i in range(len(nodes)):
        node = nodes[i]
        old = code[node] * width + free[node]
        # unlink from the old bucket
        p, q = prv[node], nxt[node]
        if p >= 0:
            nxt[p] = q
        else:
            head[old] = q
        if q >= 0:
            prv[q] = p
        else:
            tail[old] = p
        cnt[old] -= 1
        if below_cap[code[node]]:
            delta -= free[node]
        code[node] += step
        free[node] -= cores
        new = code[node] * width + free[node]
        # link at the end of the new bucket
        last = tail[new]
        prv[node] = last
        nxt[node] = -1
        if last >= 0:
            nxt[last] = node
        else:
            head[new] = node
        tail[new] = node
        cnt[new] += 1
        if below_cap[code[node]]:
            delta += free[node]
        node_pressure[node] = pressure_of[code[node]]
        if step > 0:
            node_jobs[count[node], node] = idx
            count[node] += 1
        else:
            last_row = count[node] - 1
            for r in range(count[node]):
                if node_jobs[r, node] == idx:
                    node_jobs[r, node] = node_jobs[last_row, node]
                    break
            node_jobs[last_row, node] = pad
            count[node] = last_row
    return True, delta


@kernel
def jobs_on(nodes: np.ndarray, node_jobs: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The jobs on ``nodes`` (a job on several of them appears once per node)."""
    n = 0
    for i in range(len(nodes)):
        n += count[nodes[i]]
    out = np.empty(n, dtype=np.int64)
    n = 0
    for i in range(len(nodes)):
        node = nodes[i]
        for r in range(count[node]):
            out[n] = node_jobs[r, node]
            n += 1
    return out


@kernel
def co_pressure(nodes: np.ndarray, node_pressure: np.ndarray, own: float) -> float:
    """Largest summed pressure over ``nodes``, less the job's ``own``: the pressure of
    its co-runners (the interference model's reading)."""
    top = -np.inf
    for i in range(len(nodes)):
        p = node_pressure[nodes[i]]
        if p > top:
            top = p
    return top - own


@kernel
def new_factors(
    jobs: np.ndarray,
    spans: np.ndarray,
    arena: np.ndarray,
    node_pressure: np.ndarray,
    sens: np.ndarray,
    ca: np.ndarray,
    cb: np.ndarray,
    victim: np.ndarray,
    pressure: np.ndarray,
    factor: np.ndarray,
    fresh: np.ndarray,
    out: np.ndarray,
    rate: np.ndarray,
) -> int:
    """Run-time factors ``a (1 + victim x co-runner pressure) + b`` of the running jobs
    among ``jobs`` (job ``j`` on nodes ``arena[spans[j, 0]:spans[j, 1]]``; an empty span:
    not running). Writes into ``out[:n]`` and ``rate[:n]`` the jobs whose factor changed
    (or that are ``fresh``: just started) and their new rates ``1 / factor``, updates
    ``factor`` and clears ``fresh``; returns ``n``."""
    n = 0
    for i in range(len(jobs)):
        j = jobs[i]
        lo, hi = spans[j, 0], spans[j, 1]
        if lo == hi:
            continue
        s = sens[j]
        co = co_pressure(arena[lo:hi], node_pressure, pressure[s])
        f = ca[j] * (1.0 + victim[s] * co) + cb[j]
        if f != factor[j] or fresh[j]:
            factor[j] = f
            fresh[j] = False
            out[n] = j
            rate[n] = 1.0 / f
            n += 1
    return n


# -- compiled ahead of time (cosched.compile) ----------------------------------------------

#: The arrays of NodeBook.fit_arrays, as the window kernels receive them.
BOOK_ARRAYS = tuple_of(I1, I1, I1, F1, B2)

#: The kernels called from Python (:class:`~cosched.nodeshare.placement.NodeBook`,
#: :class:`~cosched.nodeshare.running.RunningJobs`), with the arrays their callers pass.
SIGNATURES = {
    "choose": f"Tuple((i8, f8))({F1}, {F2}, f8)",
    "co_pressure": f"f8({I1}, {F1}, f8)",
    "fit_row": f"b1(i8, {I1}, {I1}, {F1}, {I1}, {I1}, {I1}, {F1}, {B2}, {I1})",
    "jobs_on": f"{I1}({I1}, {I2}, {I1})",
    "move": (
        f"Tuple((b1, i8))(i8, {I1}, i8, i8, i8, {I1}, {I1}, {I1}, {I1}, {I1}, {I1},"
        f" {I1}, {B1}, {F1}, {F1}, {I2}, {I1}, i8)"
    ),
    "new_factors": (
        f"i8({I1}, {I2}, {I1}, {F1}, {I1}, {F1}, {F1}, {F1}, {F1}, {F1}, {B1}, {I1}, {F1})"
    ),
    "take": f"i8(i8, i8, i8, {I1}, {I1}, {I1}, {I1}, {B2}, {I1}, {I1}, {I1})",
}

#: The node-sharing family's kernels, built as one module (this one's and the window's).
GROUP = Group(
    "nodeshare",
    "_cosched_nodeshare",
    (__name__, "cosched.nodeshare._window_kernels"),
    f"{__name__}:self_check",
)
register(GROUP)


def self_check(module: ModuleType) -> None:
    """The node-sharing kernels as compiled (``module``) give their source's results on
    small cases (whole schedules are compared in tests/nodeshare/test_compiled.py)."""
    from cosched.nodeshare import _window_kernels as window

    row = np.array([0.5, np.nan, 0.0])
    coef = np.array([[1.0, 0.1], [0.5, 0.0], [1.2, 0.0]])
    node_jobs = np.array([[4, -1, 5], [7, -1, -1]], dtype=np.int64)
    count = np.array([2, 0, 1], dtype=np.int64)
    nodes = np.array([2, 0], dtype=np.int64)
    queued = np.array([True, False, True, True, False, True])
    cases = [
        (module.choose(row, coef, 0.4), choose(row, coef, 0.4)),
        (module.jobs_on(nodes, node_jobs, count), jobs_on(nodes, node_jobs, count)),
        (module.queued_after(queued, 1, 6, 2), window.queued_after(queued, 1, 6, 2)),
    ]
    for got, want in cases:
        if not np.array_equal(np.asarray(got), np.asarray(want)):
            raise RuntimeError("a compiled node-sharing kernel differs from its source")
