"""Algorithm 1's modified best fit, on a book of nodes grouped by state.

For each configuration of the job, the best set of usable nodes is the ``k`` nodes on
which the job itself runs fastest; among the configurations, the one with the shortest
estimated run time wins (ties: the paper's order). A node is usable when it has enough
free cores, is below the job cap and passes the restriction variant.

Speed. Under the interference model a node's effect on a newcomer depends only on the
sensitivity classes of the jobs on it (their summed pressure), so nodes are kept in
buckets by *state* (classes present, free cores). The best ``k`` nodes for a
configuration are the first ``k`` in buckets ordered by pressure; one placement scans a
few dozen buckets, not 1,158 nodes. Ties in pressure go to the bucket with the fewest
free cores (tightest fit), then to the node that entered its bucket first; the paper's
scan breaks such ties by node number instead (same run times, different nodes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from cosched.compile import kernels
from cosched.errors import ConfigError
from cosched.nodeshare import _book_kernels
from cosched.nodeshare.configurations import Configuration
from cosched.nodeshare.interference import InterferenceModel

__all__ = [
    "RESTRICTIONS",
    "MemoBook",
    "NodeBook",
    "Plan",
    "Restriction",
    "allowed",
    "bucket_order",
    "decode",
    "encode",
    "listed",
    "shapes",
    "state_rules",
]

Restriction = Literal["No_Restrict", "Max_One_High", "High_Rq_Low", "Max_One_HM"]
LOW, MODERATE, HIGH = 0, 1, 2
_BASE = _book_kernels.BASE  # counts per class fit in 3 bits (cap <= 7 jobs a node)
_CODES = _BASE**3


def encode(counts: Sequence[int]) -> int:
    """The state code of a node holding ``counts`` = (low, moderate, high) jobs."""
    lo, mo, hi = counts
    return lo + _BASE * mo + _BASE * _BASE * hi


def decode(code: int) -> tuple[int, int, int]:
    """(low, moderate, high) job counts of a node state code."""
    return code % _BASE, (code // _BASE) % _BASE, code // (_BASE * _BASE)


def _no_restrict(lo: int, mo: int, hi: int) -> bool:
    return True


def _max_one_high(lo: int, mo: int, hi: int) -> bool:
    return hi <= 1


def _high_rq_low(lo: int, mo: int, hi: int) -> bool:
    # A high job requires every other job on its node to be low.
    return hi == 0 or (hi == 1 and mo == 0)


def _max_one_hm(lo: int, mo: int, hi: int) -> bool:
    return hi + mo <= 1


#: variant -> rule on the node's (low, moderate, high) counts *after* the newcomer joins.
RESTRICTIONS: dict[str, Callable[[int, int, int], bool]] = {
    "No_Restrict": _no_restrict,
    "Max_One_High": _max_one_high,
    "High_Rq_Low": _high_rq_low,
    "Max_One_HM": _max_one_hm,
}


def allowed(restriction: str, code: int, sensitivity: int) -> bool:
    """Whether a job of ``sensitivity`` may join a node in state ``code``.

    An empty node is always allowed: restrictions only govern sharing.
    """
    counts = list(decode(code))
    if not any(counts):
        return True
    counts[sensitivity] += 1
    return RESTRICTIONS[restriction](*counts)


def state_rules(
    cap: int, model: InterferenceModel, restriction: str
) -> tuple[list[float], list[int], list[list[bool]]]:
    """Per node state code: the summed pressure of its jobs, how many jobs it holds,
    and ``ok[s][code]``: whether a job of class ``s`` may join it (the cap included)."""
    pr = model.pressure
    pressure_of = [
        lo * pr[0] + mo * pr[1] + hi * pr[2] for lo, mo, hi in map(decode, range(_CODES))
    ]
    jobs_of = [sum(decode(c)) for c in range(_CODES)]
    ok = [
        [jobs_of[c] < cap and allowed(restriction, c, s) for c in range(_CODES)] for s in range(3)
    ]
    return pressure_of, jobs_of, ok


def bucket_order(
    pressure_of: Sequence[float], jobs_of: Sequence[int], cap: int, width: int
) -> np.ndarray:
    """The buckets' order for placement: every state a job could join (state id ``code x
    width + free``), by (pressure, free cores, code); an empty bucket counts nothing, so
    it may stay in the order."""
    states = sorted(
        (pressure_of[c], f, c) for c in range(_CODES) if jobs_of[c] < cap for f in range(width)
    )
    return np.array([c * width + f for _, f, c in states], dtype=np.int64)


def listed(row: np.ndarray | None) -> list[tuple[int, float]]:
    """``(k, pressure)`` of the configurations that fit in a row of pressures."""
    if row is None:
        return []
    return [(k, p) for k, p in enumerate(row.tolist()) if p == p]


def _int_array(values: Sequence[int] | np.ndarray, what: str) -> np.ndarray:
    """``values`` as a 1-d contiguous, writeable int64 array (``values`` itself when it
    is one), the form the compiled kernels read (they check nothing themselves: see
    :func:`cosched.compile.kernels`)."""
    a = np.asarray(values, dtype=np.int64)  # an int64 array is not copied
    if a.ndim != 1:
        raise ValueError(f"{what} must be a flat sequence of integers, got shape {a.shape}")
    return a if a.flags.c_contiguous and a.flags.writeable else a.copy()


def _node_array(nodes: Sequence[int] | np.ndarray) -> np.ndarray:
    return _int_array(nodes, "nodes")


def shapes(configs: Sequence[Configuration]) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and cores per node of each configuration, as arrays (for the kernels)."""
    needs = np.array([c.nodes for c in configs], dtype=np.int64)
    return needs, np.array([c.cores for c in configs], dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Plan:
    """Where and how a job would run.

    Attributes:
        config: the chosen configuration.
        nodes: the nodes, in choice order.
        factor: estimated run time / base run time (1 / progress rate).
        coeffs: ``(a, b)`` of the job's factor in this configuration.
    """

    config: Configuration
    nodes: tuple[int, ...]
    factor: float
    coeffs: tuple[float, float]


class NodeBook:
    """Free cores and sensitivity classes per node, bucketed by state, in arrays.

    The buckets, their order and the counts that placement walks are arrays read and
    changed by the kernels of :mod:`cosched.nodeshare._book_kernels` (the rules are
    written there once; see that module for the layout). ``code[node]`` and
    ``free[node]`` are each node's state, ``node_pressure[node]`` the summed pressure of
    its jobs, ``count[node]`` how many jobs it holds and ``node_jobs[:count[node], node]``
    their indices (the rest of the column holds ``pad``).

    Args:
        nodes: nodes in the machine.
        cores: cores per node.
        cap: most jobs a node may hold.
        model: the interference model (pressure and victim weights).
        restriction: the restriction variant (a key of :data:`RESTRICTIONS`).
        pad: the job index that fills the unused slots of ``node_jobs``.
    """

    def __init__(
        self,
        nodes: int,
        cores: int,
        cap: int,
        model: InterferenceModel,
        restriction: str,
        pad: int = -1,
    ) -> None:
        self._rules(nodes, cores, cap, model, restriction)
        #: the kernels, compiled (ahead of time, else by numba).
        self.kern = kernels(_book_kernels.__name__)
        self._init_arrays()
        self.pad = pad
        self.count = np.zeros(nodes, dtype=np.int64)
        self.node_jobs = np.full((cap, nodes), pad, dtype=np.int64)
        self.usable_free = nodes * cores  # free cores on nodes below the cap
        self.state = (
            self.code, self.free, self._below_cap, self._pressure_of, self.node_pressure,
            self.node_jobs, self.count,
        )  # fmt: skip
        #: bumped at every :meth:`add` and :meth:`remove` (a caller's caches key on it).
        self.version = 0

    def _rules(
        self, nodes: int, cores: int, cap: int, model: InterferenceModel, restriction: str
    ) -> None:
        """Check the parameters; each state code's pressure, jobs, and who may join it."""
        if restriction not in RESTRICTIONS:
            raise ConfigError(
                f"restriction must be one of {', '.join(RESTRICTIONS)}, got {restriction!r}"
            )
        if not 1 <= cap < _BASE:
            raise ConfigError(f"max_jobs_per_node must be 1..{_BASE - 1}, got {cap}")
        self.nodes, self.cores, self.cap, self.model = nodes, cores, cap, model
        self.pressure_of, self.jobs_of, self.ok = state_rules(cap, model, restriction)

    def _init_arrays(self) -> None:
        nodes, cores, width = self.nodes, self.cores, self.cores + 1
        self.width = width  # states per code: a state's id is code x width + free
        st_code = np.repeat(np.arange(_CODES, dtype=np.int64), width)
        st_free = np.tile(np.arange(width, dtype=np.int64), _CODES)
        pressure_of = np.array(self.pressure_of)
        order = bucket_order(self.pressure_of, self.jobs_of, self.cap, width)
        ok = np.array(self.ok, dtype=np.bool_)
        #: the arrays :func:`~cosched.nodeshare._book_kernels.fit_row` reads, in its order.
        self.fit_arrays = (order, st_code, st_free, pressure_of[st_code], ok)
        self._below_cap = np.array([j < self.cap for j in self.jobs_of], dtype=np.bool_)
        self._pressure_of = pressure_of
        self.code = np.zeros(nodes, dtype=np.int64)
        self.free = np.full(nodes, cores, dtype=np.int64)
        self.node_pressure = np.zeros(nodes)
        self.cnt = np.zeros(_CODES * width, dtype=np.int64)  # nodes per state
        self.head = np.full(_CODES * width, -1, dtype=np.int64)
        self._tail = np.full(_CODES * width, -1, dtype=np.int64)
        self.nxt = np.arange(1, nodes + 1, dtype=np.int64)  # every node in state (0, cores)
        self._prv = np.arange(-1, nodes - 1, dtype=np.int64)
        if nodes:
            self.nxt[-1] = -1
            self.cnt[cores], self.head[cores], self._tail[cores] = nodes, 0, nodes - 1
        self._out = np.empty(nodes, dtype=np.int64)
        #: the arrays :func:`~cosched.nodeshare._book_kernels.move` changes, as the
        #: window kernels take them: ``(cnt, head, tail, nxt, prv)`` and ``(code, free,
        #: below_cap, pressure_of, node_pressure, node_jobs, count)``.
        self.links = (self.cnt, self.head, self._tail, self.nxt, self._prv)

    # -- state changes -------------------------------------------------------------------

    def _move(self, idx: int, nodes: Sequence[int], step: int, cores: int) -> None:
        self.version += 1
        ok, delta = self.kern.move(
            idx, _node_array(nodes), step, cores, self.width, self.code,
            self.free, self.cnt, self.head, self._tail, self.nxt, self._prv,
            self._below_cap, self._pressure_of, self.node_pressure, self.node_jobs,
            self.count, self.pad,
        )  # fmt: skip
        if not ok:
            what = "over the job cap on" if step > 0 else "not on"
            raise ValueError(f"job {idx} would be {what} one of the nodes {tuple(nodes)}")
        self.usable_free += delta

    def add(self, idx: int, nodes: Sequence[int], cores: int, sensitivity: int) -> None:
        """Record job ``idx`` of class ``sensitivity`` on ``nodes``, ``cores`` each."""
        self._move(idx, nodes, _BASE**sensitivity, cores)

    def remove(self, idx: int, nodes: Sequence[int], cores: int, sensitivity: int) -> None:
        """Take job ``idx`` off ``nodes``."""
        self._move(idx, nodes, -(_BASE**sensitivity), -cores)

    def jobs_on(self, nodes: Sequence[int] | np.ndarray) -> list[int]:
        """The jobs on ``nodes`` (a job on several of them once per node)."""
        return self.kern.jobs_on(_node_array(nodes), self.node_jobs, self.count).tolist()

    def empty_nodes(self) -> list[int]:
        """Nodes with no job, in bucket order."""
        out, node = [], int(self.head[self.cores])
        while node >= 0:
            out.append(node)
            node = int(self.nxt[node])
        return out

    # -- placement -----------------------------------------------------------------------

    def co_pressure(self, nodes: Sequence[int], own: float) -> float:
        """Largest pressure of co-runners over ``nodes`` for a job exerting ``own``."""
        return float(self.kern.co_pressure(_node_array(nodes), self.node_pressure, own))

    def _fit(self, sensitivity: int, need: int, cores: int) -> float | None:
        """Pressure on the worst of the best ``need`` usable nodes, or None if too few."""
        shape = np.array([need], dtype=np.int64), np.array([cores], dtype=np.int64)
        got = self.fits_of(sensitivity, shape)
        return got[0][1] if got else None

    def _take(self, sensitivity: int, need: int, cores: int) -> tuple[int, ...]:
        out = self._out
        n = self.kern.take(
            sensitivity, need, cores, out, *self.fit_arrays[:3], self.fit_arrays[4],
            self.cnt, self.head, self.nxt,
        )  # fmt: skip
        return tuple(out[:n].tolist())

    def take(self, sensitivity: int, need: int, cores: int) -> tuple[int, ...]:
        """The ``need`` nodes a placement of ``cores`` per node for class ``sensitivity``
        takes now (the best first; fewer if too few are usable)."""
        return self._take(sensitivity, need, cores)

    def first_node(self, sensitivity: int, cores: int) -> int:
        """The node every placement of ``cores`` per node for class ``sensitivity``
        takes first, or -1 if no node is usable."""
        got = self._take(sensitivity, 1, cores)
        return got[0] if got else -1

    def fits(
        self, sensitivity: int, configs: Sequence[Configuration]
    ) -> Sequence[tuple[int, float]]:
        """``(k, pressure)`` for each configuration ``configs[k]`` that fits now, with the
        pressure on the worst of its best nodes (in ``configs`` order)."""
        return listed(self.pressures(sensitivity, configs))

    def fits_of(
        self, sensitivity: int, shape: tuple[np.ndarray, np.ndarray]
    ) -> list[tuple[int, float]]:
        """:meth:`fits` for configurations given as :func:`shapes`."""
        return listed(self.pressures_of(sensitivity, shape))

    def pressures(self, sensitivity: int, configs: Sequence[Configuration]) -> np.ndarray | None:
        """Per configuration, the pressure on the worst of its best nodes (NaN: it does
        not fit), or None if none fits."""
        return self.pressures_of(sensitivity, shapes(configs))

    def pressures_of(
        self, sensitivity: int, shape: tuple[np.ndarray, np.ndarray]
    ) -> np.ndarray | None:
        """:meth:`pressures` for configurations given as :func:`shapes` (a new array)."""
        needs, cores = (_int_array(a, "a shape") for a in shape)
        if len(needs) != len(cores):
            raise ValueError(f"a shape has {len(needs)} node counts and {len(cores)} core counts")
        out = np.empty(len(needs))
        if not self.kern.fit_row(sensitivity, needs, cores, out, *self.fit_arrays, self.cnt):
            return None
        return out

    def best(
        self,
        sensitivity: int,
        configs: Sequence[Configuration],
        coeffs: Sequence[tuple[float, float]] | np.ndarray,
    ) -> Plan | None:
        """The fastest placement of a job over ``configs`` (Algorithm 1), or None.

        ``coeffs[k]`` is ``(a, b)`` of configuration ``k``; the choice is
        :func:`~cosched.nodeshare._book_kernels.choose`'s (the window kernels' too).
        """
        row = self.pressures(sensitivity, configs)
        if row is None:
            return None
        coef = np.ascontiguousarray(coeffs, dtype=np.float64)
        if coef.shape != (len(row), 2):
            raise ValueError(f"coeffs must be (a, b) per configuration, got shape {coef.shape}")
        k, factor = self.kern.choose(row, coef, self.model.victim[sensitivity])
        if k < 0:
            return None
        cfg = configs[k]
        nodes = self._take(sensitivity, cfg.nodes, cfg.cores)
        return Plan(cfg, nodes, factor, (float(coef[k, 0]), float(coef[k, 1])))

    def blocked_by_capacity(self, configs: Sequence[Configuration]) -> bool:
        """Whether too few cores are free in total for any configuration (else fragmentation).

        Only cores on nodes below the job cap count; restrictions count as fragmentation
        (the cores exist but not in usable form).
        """
        need = min(c.nodes * c.cores for c in configs)
        return self.usable_free < need


class MemoBook(NodeBook):
    """A :class:`NodeBook` that remembers its fits and takes between two changes.

    Between two changes of the book (:meth:`add`, :meth:`remove`) a scheduling pass
    asks the same fits and takes again and again (queued jobs are mostly of a few sizes
    and classes); the answers are kept until the next change. ``node_jobs`` is padded
    with ``jobs`` (the index of the padding entry of the policy's array of estimated
    ends, for the vectorised shadow time: ``ends[node_jobs].max(axis=0)``).
    """

    def __init__(
        self,
        nodes: int,
        cores: int,
        cap: int,
        model: InterferenceModel,
        restriction: str,
        jobs: int = 0,
    ) -> None:
        super().__init__(nodes, cores, cap, model, restriction, pad=jobs)
        self._fits: dict[tuple[int, int], tuple[Sequence[Configuration], np.ndarray | None]] = {}
        self._takes: dict[tuple[int, int, int], tuple[int, ...]] = {}
        self._shapes: dict[int, tuple[Sequence[Configuration], tuple[Any, Any], float]] = {}
        self._listed: dict[
            tuple[int, int], tuple[Sequence[Configuration], list[tuple[int, float]]]
        ] = {}

    def _changed(self) -> None:
        self._fits.clear()
        self._takes.clear()
        self._listed.clear()

    def add(self, idx: int, nodes: Sequence[int], cores: int, sensitivity: int) -> None:
        self._changed()
        super().add(idx, nodes, cores, sensitivity)

    def remove(self, idx: int, nodes: Sequence[int], cores: int, sensitivity: int) -> None:
        self._changed()
        super().remove(idx, nodes, cores, sensitivity)

    def _entry(
        self, sensitivity: int, configs: Sequence[Configuration]
    ) -> tuple[Sequence[Configuration], np.ndarray | None]:
        # Jobs of one size share one configurations tuple (the policy caches it), so
        # the tuple's identity keys the memo; the entry keeps the tuple to check it.
        key = (sensitivity, id(configs))
        entry = self._fits.get(key)
        if entry is None or entry[0] is not configs:
            shape = self._shapes.get(id(configs))
            if shape is None or shape[0] is not configs:
                fewest = min((c.nodes * c.cores for c in configs), default=math.inf)
                shape = self._shapes[id(configs)] = (configs, shapes(configs), fewest)
            row: np.ndarray | None = None
            # Too few free cores on nodes below the cap for the smallest configuration:
            # none fits (what fit_row would find, without the walk).
            if self.usable_free >= shape[2]:
                needs, cores = shape[1]  # built by shapes(): the kernel's int arrays
                out = np.empty(len(needs))
                if self.kern.fit_row(sensitivity, needs, cores, out, *self.fit_arrays, self.cnt):
                    row = out
            entry = self._fits[key] = (configs, row)
        return entry

    def pressures(self, sensitivity: int, configs: Sequence[Configuration]) -> np.ndarray | None:
        return self._entry(sensitivity, configs)[1]

    def fits(
        self, sensitivity: int, configs: Sequence[Configuration]
    ) -> Sequence[tuple[int, float]]:
        key = (sensitivity, id(configs))
        got = self._listed.get(key)
        if got is None or got[0] is not configs:
            got = self._listed[key] = (configs, listed(self._entry(sensitivity, configs)[1]))
        return got[1]

    def _take(self, sensitivity: int, need: int, cores: int) -> tuple[int, ...]:
        key = (sensitivity, need, cores)
        nodes = self._takes.get(key)
        if nodes is None:
            nodes = self._takes[key] = super()._take(sensitivity, need, cores)
        return nodes
