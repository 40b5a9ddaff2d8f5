"""The Lublin-Feitelson (2003) model of rigid parallel jobs, vectorised.

Implemented from the parameter sheet and sampling procedure in ``shared/models/MODELS.md``
(U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling the
characteristics of rigid jobs", JPDC 63(11), 2003). Every draw comes from the
``numpy.random.Generator`` passed in, so the same seed gives the same table.

Model summary (all per class; the class-separated mode has an interactive and a batch
class, the typeless mode a single class labelled interactive):

* size: serial with probability ``serial_prob``; otherwise ``2**x`` rounded, with ``x``
  from a two-stage uniform on ``[ulow, umed, uhi]``, and ``x`` itself rounded to an
  integer (a power-of-two size) with probability ``pow2_prob``;
* run time: ``exp`` of a hyper-gamma whose short-component probability is
  ``pa * size + pb`` clipped to [0, 1], redrawn while above ``runtime_cap``, truncated to
  whole seconds;
* arrivals: ``exp`` of a Gamma(``aarr * arar``, ``barr``) redrawn while above
  ``interarrival_cap``, measured in "points" and spent through a 48-slot daily cycle whose
  slot weights are Gamma(``anum``, ``bnum``) masses.

The per-job arrival loop of the reference generator is a monotone time warp: the clock
after ``k`` draws is the inverse of the cumulative slot-weight function evaluated at the
sum of the first ``k`` point draws. That is what makes the arrivals vectorisable here.

Requested time: the model has none. We set ``requested_time = run_time`` (exact user
estimates), which keeps EASY backfilling well defined; an estimate model can be applied
afterwards by a transform.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.transforms import scale_to_load

__all__ = [
    "BATCH_DEFAULTS",
    "INTERACTIVE_DEFAULTS",
    "QUEUE_BATCH",
    "QUEUE_INTERACTIVE",
    "TYPELESS_DEFAULTS",
    "LublinClassParams",
    "LublinParams",
    "daily_cycle_weights",
    "generate_lublin",
]

#: SWF queue number of interactive jobs (also every job of the typeless model).
QUEUE_INTERACTIVE = 0
#: SWF queue number of batch jobs.
QUEUE_BATCH = 1

# Rejection sampling redraws only the values above a cap; a parameter set whose draws
# almost never fall under the cap would loop forever, so give up after this many rounds.
_MAX_REDRAW_ROUNDS = 200
# Simpson sub-intervals per slot when integrating the daily-cycle gamma density.
_SIMPSON_STEPS = 64


def _check(ok: bool, name: str, rule: str, value: object) -> None:
    if not ok:
        raise ConfigError(f"{name} must be {rule} (got {value!r})")


@dataclass(frozen=True, slots=True)
class LublinClassParams:
    """The parameters of one job class (batch, interactive or typeless).

    Attributes:
        serial_prob: probability that a job is serial (1 node).
        pow2_prob: probability that a job is a power-of-two parallel job (unconditional:
            one uniform draw decides serial / power of two / any size).
        ulow: lower end of log2(size) for parallel jobs.
        umed: breakpoint of the two-stage uniform on log2(size).
        uhi: upper end of log2(size): log2 of the largest job.
        uprob: probability of the lower segment ``[ulow, umed]``.
        a1: shape of the short run-time gamma (on ln seconds).
        b1: scale of the short run-time gamma.
        a2: shape of the long run-time gamma.
        b2: scale of the long run-time gamma.
        pa: slope of the short-component probability against the node count.
        pb: intercept of the short-component probability.
        aarr: shape of the gamma on ln(inter-arrival seconds), fitted to rush hours.
        barr: scale of that gamma.
        arar: arrive-rush-to-all ratio; the effective shape is ``aarr * arar``.
        anum: shape of the gamma giving the daily-cycle slot weights.
        bnum: scale of that gamma.
    """

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    arar: float
    anum: float
    bnum: float

    def __post_init__(self) -> None:
        for name in ("serial_prob", "pow2_prob", "uprob"):
            v = getattr(self, name)
            _check(0.0 <= v <= 1.0, name, "in [0, 1]", v)
        total = self.serial_prob + self.pow2_prob
        _check(total <= 1.0, "serial_prob + pow2_prob", "<= 1", total)
        for name in ("a1", "b1", "a2", "b2", "aarr", "barr", "arar", "anum", "bnum"):
            v = getattr(self, name)
            _check(v > 0.0, name, "> 0", v)
        _check(self.ulow >= 0.0, "ulow", ">= 0", self.ulow)
        _check(self.ulow <= self.umed, "umed", f">= ulow ({self.ulow})", self.umed)
        _check(self.umed <= self.uhi, "uhi", f">= umed ({self.umed})", self.uhi)

    def retarget(self, log2_nodes: float) -> LublinClassParams:
        """This class moved to a machine of ``2**log2_nodes`` nodes.

        ``uhi`` and ``umed`` shift by the same amount so the class keeps its
        ``uhi - umed`` gap; on machines too small for that, ``uhi`` is clipped to
        ``[0, log2_nodes]`` and ``ulow`` and ``umed`` into ``[0, uhi]``.
        """
        shift = log2_nodes - BATCH_DEFAULTS.uhi
        uhi = max(min(self.uhi + shift, log2_nodes), 0.0)
        ulow = min(self.ulow, uhi)
        umed = min(max(self.umed + shift, ulow), uhi)
        return replace(self, ulow=ulow, umed=umed, uhi=uhi)


#: Batch class (queue 1) of the class-separated model.
BATCH_DEFAULTS = LublinClassParams(
    serial_prob=0.2927, pow2_prob=0.6686, ulow=1.2, umed=5.0, uhi=7.0, uprob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    aarr=6.0415, barr=0.8531, arar=1.0519, anum=6.1271, bnum=5.2740,
)  # fmt: skip
#: Interactive class (queue 0) of the class-separated model.
INTERACTIVE_DEFAULTS = LublinClassParams(
    serial_prob=0.1541, pow2_prob=0.625, ulow=1.0, umed=3.0, uhi=5.5, uprob=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    aarr=6.5510, barr=0.6621, arar=0.9797, anum=8.9186, bnum=3.6680,
)  # fmt: skip
#: The single class of the typeless model (every job in queue 0).
TYPELESS_DEFAULTS = LublinClassParams(
    serial_prob=0.244, pow2_prob=0.576, ulow=0.8, umed=4.5, uhi=7.0, uprob=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    aarr=10.2303, barr=0.4871, arar=1.0225, anum=8.1737, bnum=3.9631,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class LublinParams:
    """Every parameter of the reference generator, defaults for a 128-node machine.

    Attributes:
        batch: the batch class (class-separated mode).
        interactive: the interactive class (class-separated mode).
        typeless: the single class of the typeless mode.
        runtime_cap: largest ln(run time); larger draws are redrawn (e^12 ~ 1.9 days).
        interarrival_cap: largest ln(inter-arrival); larger draws are redrawn.
        slots_per_day: number of daily-cycle slots.
        slot_seconds: length of one slot in seconds.
        cycle_start: first evaluation point of the slot-weight gamma (the reference
            generator's cyclic day start).
        start_hour: hour of day (0-23) at which the clock starts; 0 as in the C program.
    """

    batch: LublinClassParams = BATCH_DEFAULTS
    interactive: LublinClassParams = INTERACTIVE_DEFAULTS
    typeless: LublinClassParams = TYPELESS_DEFAULTS
    runtime_cap: float = 12.0
    interarrival_cap: float = 13.0
    slots_per_day: int = 48
    slot_seconds: float = 1800.0
    cycle_start: int = 11
    start_hour: int = 0

    def __post_init__(self) -> None:
        for name in ("runtime_cap", "interarrival_cap", "slot_seconds"):
            v = getattr(self, name)
            _check(v > 0.0, name, "> 0", v)
        _check(self.slots_per_day >= 1, "slots_per_day", ">= 1", self.slots_per_day)
        _check(self.cycle_start >= 1, "cycle_start", ">= 1", self.cycle_start)
        hours = self.slots_per_day * self.slot_seconds / 3600.0
        _check(0 <= self.start_hour < hours, "start_hour", f"in [0, {hours:g})", self.start_hour)

    @classmethod
    def for_machine(cls, nodes: int, **overrides: object) -> LublinParams:
        """Defaults retargeted to a ``nodes``-node machine.

        Following the sheet, ``uhi = log2(nodes)`` for the batch and typeless classes,
        and ``umed`` keeps each class's default distance below ``uhi`` (batch 2,
        typeless 2.5: both inside the advised ``uhi - 3.5 .. uhi - 1.5``). The
        interactive class shifts by the same amount, so its largest job stays at
        ``2**-1.5`` of the machine as in the defaults (45 of 128 nodes). At 128 nodes
        this returns exactly the defaults.

        Args:
            nodes: machine size in nodes (> 0).
            **overrides: other :class:`LublinParams` fields to set.

        Raises:
            ConfigError: ``nodes`` is not a positive integer.
        """
        _check_nodes(nodes)
        log2n = math.log2(nodes)
        classes = {
            "batch": BATCH_DEFAULTS.retarget(log2n),
            "interactive": INTERACTIVE_DEFAULTS.retarget(log2n),
            "typeless": TYPELESS_DEFAULTS.retarget(log2n),
        }
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise ConfigError(f"unknown LublinParams fields {sorted(unknown)}")
        return cls(**{**classes, **overrides})  # type: ignore[arg-type]


def _check_nodes(nodes: object) -> None:
    ok = isinstance(nodes, int | np.integer) and not isinstance(nodes, bool) and bool(nodes > 0)
    _check(ok, "nodes", "a positive integer", nodes)


def daily_cycle_weights(cp: LublinClassParams, params: LublinParams) -> np.ndarray:
    """Relative arrival intensity of each daily slot, normalised to mean 1.

    Evaluation point ``i`` (from ``cycle_start`` for one day's worth of slots) gives
    slot ``(i - 1) mod slots_per_day`` the Gamma(``anum``, ``bnum``) mass between
    ``i - 0.5`` and ``i + 0.5``, as the sheet describes (so late mass wraps into the
    early-morning slots).

    Args:
        cp: the class whose ``anum``/``bnum`` shape the cycle.
        params: supplies the slot count and ``cycle_start``.
    """
    k = params.slots_per_day
    points = np.arange(params.cycle_start, params.cycle_start + k, dtype=float)
    weights = np.zeros(k)
    np.add.at(weights, (points.astype(np.int64) - 1) % k, _gamma_mass(points, cp.anum, cp.bnum))
    return weights / weights.mean()


def _gamma_mass(centres: np.ndarray, shape: float, scale: float) -> np.ndarray:
    """Gamma(shape, scale) probability of ``[c - 0.5, c + 0.5]`` for each centre c.

    Composite Simpson on the density: no scipy needed, error far below 1e-9 here.
    """
    steps = np.linspace(-0.5, 0.5, _SIMPSON_STEPS + 1)
    x = np.clip(centres[:, None] + steps[None, :], 1e-300, None)
    log_pdf = (shape - 1) * np.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale)
    pdf = np.exp(log_pdf)
    coef = np.ones(_SIMPSON_STEPS + 1)
    coef[1:-1:2], coef[2:-1:2] = 4.0, 2.0
    return pdf @ coef / (3.0 * _SIMPSON_STEPS)


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


def _check_positive(name: str, value: float | None) -> None:
    if value is not None:
        ok = isinstance(value, int | float | np.number) and math.isfinite(value) and value > 0
        _check(ok, name, "a positive number", value)


def generate_lublin(
    n_jobs: int,
    *,
    nodes: int,
    rng: np.random.Generator,
    typeless: bool = False,
    params: LublinParams | None = None,
    alpha: float | None = None,
    load: float | None = None,
) -> Workload:
    """Generate a Lublin-Feitelson workload.

    Args:
        n_jobs: number of jobs (>= 0).
        nodes: machine size in nodes; sizes are capped to it. With ``params=None`` the
            defaults are retargeted to it (:meth:`LublinParams.for_machine`).
        rng: the source of every random draw.
        typeless: use the single-class model (all jobs in queue 0) instead of the
            class-separated one (queue 0 interactive, 1 batch).
        params: explicit parameters (used as given, not retargeted).
        alpha: overrides the shape ``aarr`` of the inter-arrival gamma of every class in
            use (the LOMARC paper's Table 4 knob; 10.23 is the typeless default).
        load: target offered load; arrival times are then scaled with
            :func:`cosched.workload.transforms.scale_to_load` so that
            ``sum(run_time * procs) / (nodes * span)`` equals it (up to the flooring of
            submit times to whole seconds).

    Returns:
        The workload: ``job_id`` 1..n in submit order, integer-valued ``submit_time``
        and ``run_time`` (seconds), ``procs``, ``requested_time = run_time``, ``queue``
        and ``status`` (1), with the SWF header facts of the reference generator.

    Raises:
        ConfigError: a bad parameter (named in the message), or both alpha and load.
    """
    _check(
        isinstance(n_jobs, int | np.integer) and n_jobs >= 0, "n_jobs", "an integer >= 0", n_jobs
    )
    _check_nodes(nodes)
    _check(isinstance(rng, np.random.Generator), "rng", "a numpy.random.Generator", rng)
    _check_positive("alpha", alpha)
    _check_positive("load", load)
    if alpha is not None and load is not None:
        raise ConfigError("give at most one of alpha and load (both control the arrival rate)")
    params = LublinParams.for_machine(nodes) if params is None else params
    n = int(n_jobs)
    if typeless:
        submit = _arrivals(rng, params.typeless, params, n, alpha)
        queue = np.full(n, QUEUE_INTERACTIVE, dtype=np.int64)
        sizes, runs = _class_jobs(rng, params.typeless, params, n, nodes)
    else:
        submit, queue, sizes, runs = _two_classes(rng, params, n, nodes, alpha)
    w = _workload(np.floor(submit), runs, sizes, queue, nodes, params, typeless)
    return w if load is None else _whole_seconds_load(w, load, nodes)


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


def _whole_seconds_load(w: Workload, load: float, nodes: int) -> Workload:
    """``w`` scaled to offered load ``load``, submit times floored to whole seconds."""
    scaled = scale_to_load(w, load, nodes)
    t = scaled.table
    # SWF stores whole seconds; flooring keeps a written file identical to the table.
    return scaled.replace_table(t.assign(submit_time=np.floor(t["submit_time"].to_numpy())))


def _workload(
    submit: np.ndarray,
    runs: np.ndarray,
    sizes: np.ndarray,
    queue: np.ndarray,
    nodes: int,
    params: LublinParams,
    typeless: bool,
) -> Workload:
    n = submit.size
    table = pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1, dtype=np.int64),
            "submit_time": submit,
            "run_time": runs,
            "procs": sizes,
            "requested_time": runs.copy(),
            # Optional SWF columns are float64 (NaN = missing) as in a loaded trace.
            "queue": queue.astype(np.float64),
            "status": np.ones(n),
        }
    )
    header = {
        "Version": "2",
        "Acknowledge": "Uri Lublin, Hebrew University",
        "MaxJobs": str(n),
        "MaxRecords": str(n),
        "MaxNodes": str(nodes),
        "MaxRuntime": str(math.floor(math.exp(params.runtime_cap))),
    }
    mode = "typeless" if typeless else "class-separated"
    return Workload.from_table(
        table,
        name=f"lublin-{mode}",
        max_procs=nodes,
        max_nodes=nodes,
        header=header,
        notes=(f"Lublin-Feitelson 2003 model, {mode}; requested_time = run_time",),
    )
