"""The LOMARC scheduler and the paper's variants as registered policies.

One pass follows Figure 1 over the queue in the ``priority`` order (short / medium /
long classes with aging by the mean wait, section 6.2):

1. While the first queued job fits the empty nodes, start it on the lowest-numbered
   empty nodes (first fit) and, unless the machine is weakly loaded, look for a partner
   among the jobs behind it; the partner moves ahead (pull-up; the jobs it passes are
   pushed down) and runs on the first of the current job's nodes.
2. When the first job does not fit, look for a running job it can ride on (one with
   at least as many nodes without a partner as the job needs); if there is one, start
   the job there and go on with the next job.
3. Otherwise the first job is the EASY head: it gets a reservation at its shadow time
   and the rest of the queue is backfilled with the same matching; a backfilled job
   (or pair) must end by the shadow time or use only extra nodes, and riding on a
   running job must not delay nodes the reservation counts on.

Every job is placed with one slot per node, so a node holds at most two jobs (the
platform has two slots per node and a cap of two jobs); the engine's ``free`` count is
the number of empty nodes, which is what the weakly-loaded rule and EASY use. Which job
is on which node is read from the engine's node ledger (``view.jobs_on``,
``view.placement``); the pass adds its own starts on top. Shadow times are EASY's
shared rule (:func:`cosched.policies.reservation.reservation`) over nodes (a node is
empty when the last of its jobs ends by the estimates, adjusted for the slowdowns this
pass introduces).

Registered names (parameters in :class:`Lomarc`):

=============== =============================================================
``lomarc``      all parameters free (default: L-U1 on hyperthreaded CPUs)
``lomarc-pss``  PSS: space sharing, priorities and EASY, no pairing
``lomarc-ac``   AC: always pair (next fitting job / any running job), no rules
``lomarc-am``   AM: pair only with the adjacent queued job, if matchable
``lomarc-n``    L-N: standard CPUs (only CPU- with disk-bound), U_gain,1
``lomarc-u1``   L-U1: hyperthreaded CPUs, U_gain,1
``lomarc-u2``   L-U2: hyperthreaded CPUs, U_gain,2
``lomarc-r``    L-R: hyperthreaded CPUs, response-time impact
``lomarc-fm``   L-FM: hyperthreaded CPUs, first match
=============== =============================================================
"""

from __future__ import annotations

import math
import types
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Literal, TypeVar

import numpy as np

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision
from cosched.engine.simulation import RateModel
from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.lomarc.heuristics import PARTNER_HEURISTICS
from cosched.lomarc.matching import ArrivalStats, Funnel, Heuristic, MatchRules, may_screen
from cosched.lomarc.rates import PairRates, Profiles
from cosched.lomarc.slowdown import FORMULAS, SlowdownModel
from cosched.platform import Allocation, Platform
from cosched.policies.base import Policy, check_choice, check_range
from cosched.policies.orders import SHORT_MAX, priority_indices
from cosched.policies.requirements import Requirements
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.lomarc.search import PassState

__all__ = [
    "LOMARC_COLUMNS",
    "VARIANTS",
    "Lomarc",
    "LomarcAC",
    "LomarcAM",
    "LomarcFM",
    "LomarcN",
    "LomarcPSS",
    "LomarcR",
    "LomarcU1",
    "LomarcU2",
    "lomarc_platform",
]

#: The per-job profile columns LOMARC reads (written by the ``lomarc`` annotator).
LOMARC_COLUMNS = ("lomarc_class", "lomarc_cpu", "lomarc_net", "lomarc_disk", "lomarc_mem")

Cpu = Literal["hyperthreaded", "standard"]
Search = Literal["queue", "adjacent", "none"]

#: What every LOMARC variant needs: the paper's machine (single-CPU nodes with two
#: hardware-thread slots, at most two jobs a node; each processor of a trace is a
#: node) and the five profile columns of the ``lomarc`` annotator.
LOMARC_REQUIRES = Requirements(
    allocation=Allocation.NODES,
    cores_per_node=1,
    mpl=2,
    max_jobs_per_node=2,
    profile_columns=LOMARC_COLUMNS,
    annotator="lomarc",
    per_processor_nodes=True,
)


def lomarc_platform(nodes: int = 128) -> Platform:
    """The paper's machine: single-CPU nodes, at most two jobs a node."""
    return Platform(nodes=nodes, cores=1, allocation=Allocation.NODES, mpl=2, max_jobs_per_node=2)


@dataclass(kw_only=True)
class Lomarc(Policy):
    """LOMARC look-ahead pair coscheduling with priorities and EASY backfilling.

    Attributes:
        cpu: ``hyperthreaded`` or ``standard`` node CPUs (slowdown model and rules).
        heuristic: ``u1``, ``u2``, ``response`` or ``first`` (section 5.2).
        search: where partners come from in the queue: ``queue`` (all jobs behind),
            ``adjacent`` (only the next job), ``none`` (no queue matching).
        running: also match a job that does not fit against running jobs (Figure 2).
        weak_spare: the weakly-loaded rule: no pairing while the queued requests are
            at most ``(1 - weak_spare)`` x the empty nodes (0.2, section 5.1); None
            disables the rule.
        check_match: apply the memory and matchable-class rules (False for AC).
        medium_long_only: pair only medium and long jobs (section 5.1).
        max_slowdown: MAX_SLOWDOWN (1.6, section 6.2); None: no limit.
        mem_slowdown: ``sl_mem`` of a pair that does not fit in memory (2.5, sec. 6.1).
        aging_time: aging period of the priority order (None: the mean wait).
        bound: bound (s) of the response times in the ``response`` heuristic (60).
        predict: include the one-level prediction of arrivals in ``response``.
        arrivals: a predicted arrival's response time in ``response``: ``queue`` (the
            whole queue's work ahead of it plus its own, as the loops above it
            accumulate; the default, the reading the paper's Figure 6 supports:
            docs/lomarc.md) or ``own`` (its own work alone,
            Figure 5's literal ``=``).
        slowdown: the pair-slowdown formula: ``overlap`` (the default: each job's own
            time plus the extra cost of the shared parts, ``max`` with ``sl_mem``; the
            reading section 4.2's Table 2 estimates need), ``printed`` (a named
            preset: section 4.1's overall formula as printed, the shared parts plus
            ``sl_mem`` when the pair pages; docs/lomarc.md reports it beside the
            default), ``overlap-add`` or ``overlap-excess`` (the overlap form with
            ``sl_mem``, or its excess ``sl_mem - 1``, added for a pair that pages).
    """

    name = "lomarc"
    family = "lomarc"
    requires = LOMARC_REQUIRES
    cpu: Cpu = "hyperthreaded"
    heuristic: Heuristic = "u1"
    search: Search = "queue"
    running: bool = True
    weak_spare: float | None = 0.2
    check_match: bool = True
    medium_long_only: bool = True
    max_slowdown: float | None = 1.6
    mem_slowdown: float = 2.5
    aging_time: float | None = None
    bound: float = 60.0
    predict: bool = True
    arrivals: Literal["own", "queue"] = "queue"
    slowdown: Literal["overlap", "printed", "overlap-add", "overlap-excess"] = "overlap"
    # Per-run state.
    funnel: Funnel = field(default_factory=Funnel, init=False, repr=False)
    counts: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    _arrivals: ArrivalStats = field(default_factory=ArrivalStats, init=False, repr=False)
    _screens: dict[tuple[int, int], float | None] = field(
        default_factory=dict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        check_choice(self.name, "cpu", self.cpu, ("hyperthreaded", "standard"))
        check_choice(self.name, "heuristic", self.heuristic, tuple(PARTNER_HEURISTICS))
        check_choice(self.name, "search", self.search, ("queue", "adjacent", "none"))
        check_choice(self.name, "arrivals", self.arrivals, ("own", "queue"))
        check_choice(self.name, "slowdown", self.slowdown, FORMULAS)
        if self.weak_spare is not None:
            check_range(self.name, "weak_spare", self.weak_spare, low=0)
            if self.weak_spare >= 1:
                raise ConfigError(
                    f"policy {self.name!r} parameter 'weak_spare' must be < 1, "
                    f"got {self.weak_spare!r}"
                )
        if self.max_slowdown is not None:
            check_range(self.name, "max_slowdown", self.max_slowdown, low=1)
        check_range(self.name, "mem_slowdown", self.mem_slowdown, low=1)
        check_range(self.name, "bound", self.bound, low=1e-9)
        if self.aging_time is not None:
            check_range(self.name, "aging_time", self.aging_time, low=1e-9)
        model = SlowdownModel(
            hyperthreaded=self.cpu == "hyperthreaded",
            mem_slowdown=self.mem_slowdown,
            formula=self.slowdown,
        )
        self._profiles = Profiles(model)
        self._rules = MatchRules(
            model=model,
            max_slowdown=self.max_slowdown,
            check_match=self.check_match,
            medium_long_only=self.medium_long_only,
        )
        self.counts = {"queue_pairs": 0, "running_pairs": 0}

    # -- engine hooks -------------------------------------------------------------------

    @property
    def pairing(self) -> bool:
        """Whether this variant ever pairs jobs."""
        return self.search != "none" or self.running

    def rate_model(self) -> RateModel | None:
        """Pair slowdowns as progress rates (None for PSS: rates stay 1)."""
        return PairRates(self._profiles) if self.pairing else None

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """The built-in variants' compiled pass (:mod:`cosched.lomarc.fast`); not a
        user's subclass's."""
        from cosched.lomarc.fast import BUILT_IN, LOMARC_PASS

        return LOMARC_PASS if cls in BUILT_IN else None

    def assumptions(self) -> list[str]:
        """The slowdown model in force (section 6.1 of the paper)."""
        if self.slowdown == "printed":
            formula = (
                "section 4.1's formula as printed (shared parts only); a pair that does "
                f"not fit in memory adds sl_mem {self.mem_slowdown:g}"
            )
        else:
            paging = {
                "overlap": f"runs at 1/{self.mem_slowdown:g}",
                "overlap-add": f"adds sl_mem {self.mem_slowdown:g}",
                "overlap-excess": f"adds sl_mem - 1 = {self.mem_slowdown - 1:g}",
            }[self.slowdown]
            formula = (
                "each job's own time plus its shared parts' extra cost (Table 2's "
                f"reading); a pair that does not fit in memory {paging}"
            )
        notes = [f"pair slowdowns: the paper's {self.cpu} CPU model (section 6.1), {formula}"]
        if self.pairing and self.max_slowdown is not None:
            notes.append(f"no pair predicted slower than MAX_SLOWDOWN {self.max_slowdown:g}")
        return notes

    def check_platform(self, platform: Platform) -> None:
        """The requirements, and room for two jobs on every node (pairs)."""
        super().check_platform(platform)
        if (platform.max_jobs_per_node or 2) < 2:
            raise ConfigError(
                f"policy {self.name!r} needs two jobs a node (max_jobs_per_node=2), "
                f"got {platform.describe()}"
            )

    def on_submit(self, job: Job, view: SystemView) -> None:
        """Learn the arrival rate and average work for the one-level prediction."""
        self._arrivals.add(job.submit_time, view.estimate(job), view.size(job))

    def diagnostics(self) -> dict[str, float]:
        """Table 5 averages plus the pair counts of this run."""
        return {**self.funnel.averages(), **self.counts}

    # -- the pass -----------------------------------------------------------------------

    def schedule(self, view: SystemView) -> list[Decision]:
        """One pass of Figure 1 followed by EASY backfilling with matching."""
        order = priority_indices(view, self.aging_time)
        if not order.size:
            return []
        # The searches are imported by the general loop only: the built-in variants
        # run the compiled pass (cosched.lomarc.fast), which does not use them.
        from cosched.lomarc.search import PassState

        queue = list(map(view.jobs.__getitem__, order.tolist()))
        ps = PassState(self, view, queue, order)
        k = 0
        head = -1
        while k < len(queue):
            cur = queue[k]
            if cur.index in ps.taken:
                k += 1
                continue
            if ps.size(cur) <= len(ps.free):
                self._start_with_partner(ps, k, backfill=False)
                k += 1
                continue
            if self._ride(ps, k, backfill=False):
                k += 1
                continue
            head = k
            break
        if head >= 0:
            self._backfill(ps, head)
        return ps.decisions

    def _may_pair(self, ps: PassState, job: Job) -> bool:
        """The weakly-loaded rule and the medium/long rule for the current job."""
        if not self._rules.eligible(ps.view.estimate(job)):
            return False
        if self.weak_spare is None:
            return True
        return ps.queued_units > (1.0 - self.weak_spare) * len(ps.free)

    def _start_with_partner(self, ps: PassState, k: int, *, backfill: bool) -> bool:
        """Start ``queue[k]`` on empty nodes, with a partner from the queue if any.

        With ``backfill``, the job or pair must end by the shadow time or
        fit in the extra nodes; returns whether the job started.
        """
        cur = ps.queue[k]
        est = ps.view.estimate(cur)
        # A pair never ends before the job alone: if the job alone cannot backfill,
        # no pair can, so the search is skipped.
        if backfill and not ps.backfill_ok(ps.view.now + est, ps.size(cur)):
            return False
        partner = None
        sl = 1.0
        if self.search != "none" and self._may_pair(ps, cur):
            from cosched.lomarc.search import queue_match

            found = queue_match(self, ps, k)
            if found is not None:
                partner, sl = found
        if backfill:
            now = ps.view.now
            end = now + est if partner is None else ps.pair_end(est, partner, sl)
            if not ps.backfill_ok(end, ps.size(cur)) and partner is not None:
                partner, sl = None, 1.0
                end = now + est
            if not ps.backfill_ok(end, ps.size(cur)):
                return False
            ps.use_backfill(end, ps.size(cur))
        nodes = ps.free[: ps.size(cur)]
        ps.start(cur, nodes, est)
        if partner is not None:
            ps.start_pair(cur, partner, nodes, sl)
            self.counts["queue_pairs"] += 1
        return True

    def _ride(self, ps: PassState, k: int, *, backfill: bool) -> bool:
        """Start ``queue[k]`` on a running job's unpartnered nodes, if a match exists."""
        cur = ps.queue[k]
        if not self.running or not self._may_pair(ps, cur):
            return False
        from cosched.lomarc.search import running_match

        found = running_match(self, ps, k, backfill=backfill)
        if found is None:
            return False
        host, nodes, sl = found
        ps.ride(cur, host, nodes, sl)
        self.counts["running_pairs"] += 1
        return True

    def _backfill(self, ps: PassState, head: int) -> None:
        """EASY backfilling behind the head, with the same matching.

        Only jobs that could start are visited: a job that fits the empty nodes must
        pass EASY's test alone (a pair never ends earlier), and one that does not must
        be allowed to pair and be no wider than the most unpartnered nodes of a running
        job. Which jobs qualify changes only when a job starts (or the running jobs are
        first listed), so the candidates are found for the rest of the queue with one
        vectorised test, and found again after each such change.
        """
        ps.compute_shadow(ps.queue[head])
        cols = ps.view.columns
        rest = ps.order[head + 1 :]
        size, est = cols.size[rest], cols.estimate[rest]
        alone_end = ps.now + est
        eligible = est > SHORT_MAX if self._rules.medium_long_only else None
        queue, taken = ps.queue, ps.taken
        k = head + 1
        while k < len(queue):
            state = self._backfill_state(ps)
            at = k - head - 1
            mask = self._may_act(ps, state, rest[at:], size[at:], alone_end[at:], eligible, at)
            for pos in (np.flatnonzero(mask) + k).tolist():
                job = queue[pos]
                if job.index in taken:
                    continue
                if ps.size(job) <= len(ps.free):
                    self._start_with_partner(ps, pos, backfill=True)
                else:
                    self._ride(ps, pos, backfill=True)
                if self._backfill_state(ps) != state:
                    k = pos + 1
                    break
            else:
                return

    @staticmethod
    def _backfill_state(ps: PassState) -> tuple[int, int, int, bool]:
        """What decides which queued jobs may act: empty nodes, extra nodes, queued
        units (the weakly-loaded rule) and whether the running jobs are listed."""
        return len(ps.free), ps.reservation.extra, ps.queued_units, ps.hosts_known

    def _may_act(
        self,
        ps: PassState,
        state: tuple[int, int, int, bool],
        idx: np.ndarray,
        size: np.ndarray,
        alone_end: np.ndarray,
        eligible: np.ndarray | None,
        at: int,
    ) -> np.ndarray:
        """Which of the remaining jobs ``idx`` could start (a superset: the rest is
        exact)."""
        free, extra, queued, known = state
        fits = size <= free
        mask = fits & ((alone_end <= ps.shadow) | (size <= extra))
        weak_ok = self.weak_spare is None or queued > (1.0 - self.weak_spare) * free
        if self.running and weak_ok:
            ride = ~fits
            if eligible is not None:
                ride &= eligible[at:]
            if known:
                ride &= size <= ps.max_solo()
                self._may_ride(ps, ride, idx, size)
            mask |= ride
        return mask

    def _may_ride(self, ps: PassState, ride: np.ndarray, idx: np.ndarray, size: np.ndarray) -> None:
        """Keep in ``ride`` only the backfill candidates that have a running host the
        search could take: enough unpartnered nodes, a pair that may pass the screen
        (:func:`~cosched.lomarc.matching.may_screen`), and, if the host ends by the
        shadow time, a ride that may end by it too. All hosts are tested at once; the
        tests are supersets of the search's (margins against rounding), so a job
        dropped here is one whose search finds nothing.
        """
        rules = self._rules
        if not rules.check_match and rules.max_slowdown is None:
            return  # the screen refuses no pair (AC): the matrix would cost, not prune
        rows = np.flatnonzero(ride)
        if not rows.size:
            return
        hosts = ps.hosts()
        solo = np.array([len(nodes) for _, nodes in hosts], dtype=np.int64)
        host_idx = np.array([host.index for host, _ in hosts], dtype=np.intp)
        table, jobs = self._profiles.table, ps.view.jobs
        cand = idx[rows]
        ok, sl = may_screen(rules, table(cand, jobs), table(host_idx, jobs))
        ok &= solo[None, :] >= size[rows][:, None]
        shadow = ps.shadow
        if shadow < math.inf:
            # A host ending by the shadow time is refused when the ride ends after it:
            # the ride's last end is max(host's end, now + the longer pair time), with
            # the longer pair time min(t) (sl - 1) + max(t) (slowdown.pair_ends).
            end_h = np.array([ps.end_of(host.index) for host, _ in hosts])
            rem = np.array([ps.remaining(host) for host, _ in hosts])[None, :]
            est = ps.view.columns.estimate[cand][:, None]
            longer = np.minimum(rem, est) * (sl - 1.0) + np.maximum(rem, est)
            late = ps.now + longer > shadow + 1e-6 * max(1.0, abs(shadow))
            ok &= ~(late & (end_h <= shadow)[None, :])
        ride[rows] = ok.any(axis=1)


# The variants change defaults only: they keep Lomarc's __repr__ and __eq__ (the same
# fields, named by the instance's class), and their __init__ is Lomarc's code with their
# own defaults (_variant).

_V = TypeVar("_V", bound=type[Lomarc])


def _variant(cls: _V) -> _V:
    """``cls``, a subclass of :class:`Lomarc` that changes its fields' defaults only, as
    a dataclass whose ``__init__`` is Lomarc's function with ``cls``'s defaults (its
    keyword-only defaults): the same parameters, checks and instance, without
    generating and compiling one ``__init__`` a variant (some 0.2 ms each at start-up;
    docs/performance.md)."""
    dataclass(kw_only=True, repr=False, eq=False, init=False)(cls)  # the same class
    base = Lomarc.__init__
    own = {f.name: f.default for f in fields(cls) if f.init}
    kwdefaults = base.__kwdefaults__ or {}
    if set(own) != set(kwdefaults) or any(v is MISSING for v in own.values()):
        raise TypeError(f"{cls.__name__}: a LOMARC variant changes defaults only")
    init = types.FunctionType(
        base.__code__, base.__globals__, "__init__", base.__defaults__, base.__closure__
    )
    init.__kwdefaults__ = own
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = dict(base.__annotations__)
    init.__module__ = base.__module__
    type.__setattr__(cls, "__init__", init)
    return cls


@_variant
class LomarcPSS(Lomarc):
    """PSS: space sharing with priorities and EASY (no pairing)."""

    name = "lomarc-pss"
    search: Search = "none"
    running: bool = False


@_variant
class LomarcAC(Lomarc):
    """AC: always pair with the next fitting job, no rules (hyperthreaded)."""

    name = "lomarc-ac"
    heuristic: Heuristic = "first"
    check_match: bool = False
    medium_long_only: bool = False
    weak_spare: float | None = None
    max_slowdown: float | None = None


@_variant
class LomarcAM(Lomarc):
    """AM: pair only adjacent queued jobs that match (hyperthreaded)."""

    name = "lomarc-am"
    heuristic: Heuristic = "first"
    search: Search = "adjacent"
    running: bool = False


@_variant
class LomarcN(Lomarc):
    """L-N: LOMARC on standard CPUs with U_gain,1."""

    name = "lomarc-n"
    cpu: Cpu = "standard"


@_variant
class LomarcU1(Lomarc):
    """L-U1: LOMARC, hyperthreaded CPUs, U_gain,1."""

    name = "lomarc-u1"
    heuristic: Heuristic = "u1"


@_variant
class LomarcU2(Lomarc):
    """L-U2: LOMARC, hyperthreaded CPUs, U_gain,2."""

    name = "lomarc-u2"
    heuristic: Heuristic = "u2"


@_variant
class LomarcR(Lomarc):
    """L-R: LOMARC, hyperthreaded CPUs, response-time impact."""

    name = "lomarc-r"
    heuristic: Heuristic = "response"


@_variant
class LomarcFM(Lomarc):
    """L-FM: LOMARC, hyperthreaded CPUs, first match."""

    name = "lomarc-fm"
    heuristic: Heuristic = "first"


#: The paper's variant names -> registered policy names.
VARIANTS: dict[str, str] = {
    "PSS": "lomarc-pss",
    "AC": "lomarc-ac",
    "AM": "lomarc-am",
    "L-N": "lomarc-n",
    "L-U1": "lomarc-u1",
    "L-U2": "lomarc-u2",
    "L-R": "lomarc-r",
    "L-FM": "lomarc-fm",
}
