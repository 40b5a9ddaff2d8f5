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
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from cosched.errors import ConfigError, WorkloadError
from cosched.workload.job import Workload
from cosched.workload.models.lublin_draws import CHUNK, CappedGammas, ClassDraws, merge_clocks

__all__ = [
    "BATCH_DEFAULTS",
    "INTERACTIVE_DEFAULTS",
    "QUEUE_BATCH",
    "QUEUE_INTERACTIVE",
    "TYPELESS_DEFAULTS",
    "LublinChunks",
    "LublinClassParams",
    "LublinParams",
    "daily_cycle_weights",
    "generate_lublin",
    "lublin_chunks",
]

#: SWF queue number of interactive jobs (also every job of the typeless model).
QUEUE_INTERACTIVE = 0
#: SWF queue number of batch jobs.
QUEUE_BATCH = 1

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


def _warp_table(cp: LublinClassParams, params: LublinParams) -> tuple[np.ndarray, np.ndarray]:
    """The daily cycle from the start slot: slot weights and their running total."""
    k = params.slots_per_day
    start_slot = round(params.start_hour * 3600.0 / params.slot_seconds) % k
    w = np.roll(daily_cycle_weights(cp, params), -start_slot)
    return w, np.concatenate(([0.0], np.cumsum(w)))


def _clocks(
    gammas: CappedGammas, cp: LublinClassParams, params: LublinParams, chunk: int
) -> Iterator[np.ndarray]:
    """One class's arrival clocks in seconds from the start, ``chunk`` at a time.

    Each draw adds ``e**g / slot_seconds`` points; a slot of weight ``w`` costs ``w``
    points to cross. The clock is therefore the inverse of the cumulative weight
    (piecewise linear, from the start slot) at the running point total.
    """
    k = params.slots_per_day
    w, cum = _warp_table(cp, params)
    carry = 0.0
    for g in gammas.chunks(chunk):
        # The running total continues from the last chunk's, added in the same order
        # as one cumulative sum over all draws.
        total = np.cumsum(np.concatenate(([carry], np.exp(g) / params.slot_seconds)))[1:]
        carry = float(total[-1])
        days, rem = np.divmod(total, cum[-1])
        slot = np.clip(np.searchsorted(cum, rem, side="right") - 1, 0, k - 1)
        frac = (rem - cum[slot]) / w[slot]
        yield (days * k + slot + frac) * params.slot_seconds


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
    gen = lublin_chunks(
        n_jobs, nodes=nodes, rng=rng, typeless=typeless, params=params, alpha=alpha, load=load
    )
    return gen.workload()


def lublin_chunks(
    n_jobs: int,
    *,
    nodes: int,
    rng: np.random.Generator,
    typeless: bool = False,
    params: LublinParams | None = None,
    alpha: float | None = None,
    load: float | None = None,
    chunk: int = CHUNK,
) -> LublinChunks:
    """The workload :func:`generate_lublin` gives, as table chunks of ``chunk`` jobs.

    The draws are planned here (a scan of the random stream, see
    :mod:`cosched.workload.models.lublin_draws`) and ``rng`` is left where the whole
    workload's draws leave it; iterating the result makes the tables. Memory is a few
    chunks whatever ``n_jobs``, and the jobs are the same bit for bit as
    :func:`generate_lublin`'s (which concatenates these chunks).

    Args:
        n_jobs, nodes, rng, typeless, params, alpha, load: as :func:`generate_lublin`.
        chunk: jobs per chunk (> 0).
    """
    _check(
        isinstance(n_jobs, int | np.integer) and n_jobs >= 0, "n_jobs", "an integer >= 0", n_jobs
    )
    _check_nodes(nodes)
    _check(isinstance(rng, np.random.Generator), "rng", "a numpy.random.Generator", rng)
    _check_positive("alpha", alpha)
    _check_positive("load", load)
    _check(isinstance(chunk, int) and chunk > 0, "chunk", "a positive integer", chunk)
    if alpha is not None and load is not None:
        raise ConfigError("give at most one of alpha and load (both control the arrival rate)")
    params = LublinParams.for_machine(nodes) if params is None else params
    n = int(n_jobs)
    classes = [params.typeless] if typeless else [params.interactive, params.batch]
    g = rng
    arrivals = []
    for cp in classes:
        shape = (cp.aarr if alpha is None else alpha) * cp.arar
        arrivals.append(CappedGammas.scan(g, shape, cp.barr, n, params.interarrival_cap, chunk))
        g = arrivals[-1].end
    gen = LublinChunks(n, nodes, params, typeless, chunk, tuple(arrivals), ())
    counts = [n] if typeless else gen.class_counts()
    draws = []
    for cp, m in zip(classes, counts, strict=True):
        draws.append(ClassDraws.scan(g, cp, m, nodes, params.runtime_cap, chunk))
        g = draws[-1].end
    rng.bit_generator.state = g.bit_generator.state
    gen = replace(gen, draws=tuple(draws))
    return gen if load is None else gen.scaled_to(load)


@dataclass(frozen=True)
class LublinChunks:
    """A planned Lublin workload, iterable (any number of times) as table chunks.

    Built by :func:`lublin_chunks`; each iteration makes the same tables again from
    the planned draws. ``factor`` scales arrivals (``load``), ``notes`` says so.
    """

    n: int
    nodes: int
    params: LublinParams
    typeless: bool
    chunk: int
    arrivals: tuple[CappedGammas, ...]
    draws: tuple[ClassDraws, ...]
    factor: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """``lublin-typeless`` or ``lublin-class-separated``."""
        return f"lublin-{self._mode}"

    @property
    def _mode(self) -> str:
        return "typeless" if self.typeless else "class-separated"

    @property
    def header(self) -> dict[str, str]:
        """The SWF header facts of the reference generator."""
        return {
            "Version": "2",
            "Acknowledge": "Uri Lublin, Hebrew University",
            "MaxJobs": str(self.n),
            "MaxRecords": str(self.n),
            "MaxNodes": str(self.nodes),
            "MaxRuntime": str(math.floor(math.exp(self.params.runtime_cap))),
        }

    def _class_clocks(self) -> list[Iterator[np.ndarray]]:
        classes = (
            [self.params.typeless]
            if self.typeless
            else [
                self.params.interactive,
                self.params.batch,
            ]
        )
        return [
            _clocks(a, cp, self.params, self.chunk)
            for a, cp in zip(self.arrivals, classes, strict=True)
        ]

    def _merged(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(clocks, batch?)`` of the jobs in submit order, a chunk at a time."""
        clocks = self._class_clocks()
        if self.typeless:
            for c in clocks[0]:
                yield c, np.zeros(c.size, dtype=bool)
            return
        yield from merge_clocks(clocks[0], clocks[1], self.n, self.chunk)

    def class_counts(self) -> list[int]:
        """How many of the first ``n`` arrivals are interactive and how many batch."""
        batch = sum(int(np.count_nonzero(b)) for _, b in self._merged())
        return [self.n - batch, batch]

    def _raw(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """``(floored clocks, queue, sizes, run times)``, a chunk at a time."""
        classes = (
            [self.params.typeless]
            if self.typeless
            else [
                self.params.interactive,
                self.params.batch,
            ]
        )
        takers = [
            _Take(d.chunks(cp, self.nodes, self.chunk))
            for d, cp in zip(self.draws, classes, strict=True)
        ]
        for clocks, batch in self._merged():
            m = clocks.size
            sizes = np.empty(m, dtype=np.int64)
            runs = np.empty(m)
            for q, sel in ((0, ~batch), (1, batch)):
                k = int(np.count_nonzero(sel))
                if k:
                    s, g = takers[q].take(k)
                    sizes[sel], runs[sel] = s, np.floor(np.exp(g))
            queue = np.where(batch, QUEUE_BATCH, QUEUE_INTERACTIVE).astype(np.int64)
            yield np.floor(clocks), queue, sizes, runs

    def __iter__(self) -> Iterator[pd.DataFrame]:
        """The workload table, ``chunk`` jobs (about) at a time."""
        first: float | None = None
        done = 0
        for submit, queue, sizes, runs in self._raw():
            if self.factor is not None:
                first = float(submit[0]) if first is None else first
                # scale_to_load's formula, then whole seconds (_whole_seconds_load).
                submit = np.floor(first + (submit - first) * self.factor)
            m = submit.size
            yield pd.DataFrame(
                {
                    "job_id": np.arange(done + 1, done + m + 1, dtype=np.int64),
                    "submit_time": submit,
                    "run_time": runs,
                    "procs": sizes,
                    "requested_time": runs.copy(),
                    # Optional SWF columns are float64 (NaN = missing) as in a loaded trace.
                    "queue": queue.astype(np.float64),
                    "status": np.ones(m),
                }
            )
            done += m

    def scaled_to(self, load: float) -> LublinChunks:
        """These jobs with arrivals scaled to offered ``load`` (one more pass over them).

        The work ``sum(run_time * procs)`` is a sum of whole numbers below 2**53 (for
        fewer than 400 million jobs), so adding it up chunk by chunk gives exactly the
        whole-array :func:`~cosched.workload.transforms.offered_load`.
        """
        work, first, last = 0.0, math.nan, math.nan
        for submit, _, sizes, runs in self._raw():
            work += float(np.dot(runs, sizes.astype(np.float64)))
            first = float(submit[0]) if math.isnan(first) else first
            last = float(submit[-1])
        span = last - first if self.n else 0.0
        if not span > 0:
            raise WorkloadError(
                f"workload {self.name!r}: offered load is undefined, all {self.n} jobs "
                "are submitted at the same time"
            )
        current = work / (float(self.nodes) * span)
        goal = float(load)
        note = f"scaled arrivals from offered load {current:.4g} to {goal:.4g} (scale_to_load)"
        return replace(self, factor=current / goal, notes=(note,))

    def workload(self) -> Workload:
        """All chunks as one :class:`Workload` (what :func:`generate_lublin` returns)."""
        parts = list(self)
        table = pd.concat(parts, ignore_index=True) if parts else _empty_table()
        return Workload.from_table(
            table,
            name=self.name,
            max_procs=self.nodes,
            max_nodes=self.nodes,
            header=self.header,
            notes=(
                f"Lublin-Feitelson 2003 model, {self._mode}; requested_time = run_time",
                *self.notes,
            ),
        )


class _Take:
    """Takes any number of the next jobs from a stream of ``(sizes, draws)`` chunks."""

    def __init__(self, chunks: Iterator[tuple[np.ndarray, np.ndarray]]) -> None:
        self._chunks = chunks
        self._sizes = np.empty(0, dtype=np.int64)
        self._draws = np.empty(0)

    def take(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        while self._sizes.size < k:
            s, g = next(self._chunks)
            self._sizes = np.concatenate((self._sizes, s))
            self._draws = np.concatenate((self._draws, g))
        out = self._sizes[:k], self._draws[:k]
        self._sizes, self._draws = self._sizes[k:], self._draws[k:]
        return out


def _empty_table() -> pd.DataFrame:
    cols = ("job_id", "submit_time", "run_time", "procs", "requested_time", "queue", "status")
    return pd.DataFrame(
        {c: np.empty(0, dtype=np.int64 if c in ("job_id", "procs") else float) for c in cols}
    )
