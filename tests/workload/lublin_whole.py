"""The Lublin model's draws as they were made before chunking: whole arrays at once.

A test oracle only: :mod:`cosched.workload.models.lublin_draws` must give the same
numbers bit for bit, whatever its chunk size. Copied from ``lublin.py`` as of commit
66099b1 (the draw functions, unchanged).
"""

from __future__ import annotations

import numpy as np

from cosched.errors import ConfigError
from cosched.workload.models.lublin import (
    QUEUE_BATCH,
    QUEUE_INTERACTIVE,
    LublinClassParams,
    LublinParams,
    daily_cycle_weights,
)

_MAX_REDRAW_ROUNDS = 200


def _capped_gamma(
    rng: np.random.Generator,
    shape: np.ndarray | float,
    scale: np.ndarray | float,
    n: int,
    cap: float,
) -> np.ndarray:
    """``n`` gamma draws, each redrawn while above ``cap`` (only the offenders)."""
    shape_a = np.broadcast_to(np.asarray(shape, dtype=float), (n,))
    scale_a = np.broadcast_to(np.asarray(scale, dtype=float), (n,))
    out = rng.gamma(shape_a, scale_a)
    for _ in range(_MAX_REDRAW_ROUNDS):
        bad = np.flatnonzero(out > cap)
        if bad.size == 0:
            return out
        out[bad] = rng.gamma(shape_a[bad], scale_a[bad])
    raise ConfigError(
        f"gamma(shape~{float(np.mean(shape_a)):g}, scale~{float(np.mean(scale_a)):g}) "
        f"draws keep exceeding the cap {cap:g}: shape (alpha) or scale too large"
    )


def _hyper_gamma(
    rng: np.random.Generator, cp: LublinClassParams, p_short: np.ndarray, cap: float
) -> np.ndarray:
    """Hyper-gamma draws; a draw above ``cap`` is redrawn whole (component too)."""
    n = p_short.size
    out = np.empty(n)
    todo = np.arange(n)
    for _ in range(_MAX_REDRAW_ROUNDS):
        short = rng.random(todo.size) < p_short[todo]
        shape = np.where(short, cp.a1, cp.a2)
        scale = np.where(short, cp.b1, cp.b2)
        out[todo] = rng.gamma(shape, scale)
        todo = todo[out[todo] > cap]
        if todo.size == 0:
            return out
    raise ConfigError(f"run-time draws keep exceeding runtime_cap {cap:g}: check a1/b1/a2/b2")


def _sizes(rng: np.random.Generator, cp: LublinClassParams, n: int, nodes: int) -> np.ndarray:
    """Job sizes in nodes (step 2 of the sheet's per-job procedure)."""
    u = rng.random(n)
    lower = rng.random(n) < cp.uprob
    v = rng.random(n)
    x = np.where(lower, cp.ulow + v * (cp.umed - cp.ulow), cp.umed + v * (cp.uhi - cp.umed))
    # Round half up, as C's (int)(x + 0.5); numpy's round would round halves to even.
    x = np.where(u <= cp.serial_prob + cp.pow2_prob, np.floor(x + 0.5), x)
    size = np.floor(np.exp2(x) + 0.5).astype(np.int64)
    size[u <= cp.serial_prob] = 1
    return np.clip(size, 1, nodes)


def _run_times(
    rng: np.random.Generator, cp: LublinClassParams, sizes: np.ndarray, cap: float
) -> np.ndarray:
    """Run times in whole seconds (step 3): exp of a size-dependent hyper-gamma."""
    p_short = np.clip(cp.pa * sizes + cp.pb, 0.0, 1.0)
    return np.floor(np.exp(_hyper_gamma(rng, cp, p_short, cap)))


def _arrivals(
    rng: np.random.Generator,
    cp: LublinClassParams,
    params: LublinParams,
    n: int,
    alpha: float | None,
) -> np.ndarray:
    """The first ``n`` arrival clocks of one class, in seconds from the start.

    Each draw adds ``e**g / slot_seconds`` points; a slot of weight ``w`` costs ``w``
    points to cross. The clock is therefore the inverse of the cumulative weight
    (piecewise linear, from the start slot) at the running point total.
    """
    shape = (cp.aarr if alpha is None else alpha) * cp.arar
    g = _capped_gamma(rng, shape, cp.barr, n, params.interarrival_cap)
    total = np.cumsum(np.exp(g) / params.slot_seconds)
    k = params.slots_per_day
    start_slot = round(params.start_hour * 3600.0 / params.slot_seconds) % k
    w = np.roll(daily_cycle_weights(cp, params), -start_slot)
    cum = np.concatenate(([0.0], np.cumsum(w)))
    days, rem = np.divmod(total, cum[-1])
    slot = np.clip(np.searchsorted(cum, rem, side="right") - 1, 0, k - 1)
    frac = (rem - cum[slot]) / w[slot]
    return (days * k + slot + frac) * params.slot_seconds


def _class_jobs(
    rng: np.random.Generator, cp: LublinClassParams, params: LublinParams, n: int, nodes: int
) -> tuple[np.ndarray, np.ndarray]:
    sizes = _sizes(rng, cp, n, nodes)
    return sizes, _run_times(rng, cp, sizes, params.runtime_cap)


def _two_classes(
    rng: np.random.Generator, params: LublinParams, n: int, nodes: int, alpha: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Merge the interactive and batch streams and keep the first ``n`` arrivals.

    Each stream gets ``n`` arrivals, so the first ``n`` of the merge never runs out.
    """
    t_int = _arrivals(rng, params.interactive, params, n, alpha)
    t_bat = _arrivals(rng, params.batch, params, n, alpha)
    clocks = np.concatenate((t_int, t_bat))
    order = np.argsort(clocks, kind="stable")[:n]
    queue = np.where(order < n, QUEUE_INTERACTIVE, QUEUE_BATCH).astype(np.int64)
    sizes = np.empty(n, dtype=np.int64)
    runs = np.empty(n)
    for q, cp in ((QUEUE_INTERACTIVE, params.interactive), (QUEUE_BATCH, params.batch)):
        idx = np.flatnonzero(queue == q)
        sizes[idx], runs[idx] = _class_jobs(rng, cp, params, idx.size, nodes)
    return clocks[order], queue, sizes, runs


def whole_arrays(
    rng: np.random.Generator,
    params: LublinParams,
    n: int,
    nodes: int,
    typeless: bool,
    alpha: float | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(floored submit times, queue, sizes, run times)`` as ``generate_lublin`` drew them."""
    if typeless:
        submit = _arrivals(rng, params.typeless, params, n, alpha)
        queue = np.full(n, QUEUE_INTERACTIVE, dtype=np.int64)
        sizes, runs = _class_jobs(rng, params.typeless, params, n, nodes)
    else:
        submit, queue, sizes, runs = _two_classes(rng, params, n, nodes, alpha)
    return np.floor(submit), queue, sizes, runs
