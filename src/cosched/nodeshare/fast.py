"""The node-sharing policies' compiled pass (:data:`NODESHARE_PASS`, its functions in
:mod:`cosched.nodeshare._pass`) on the engine's event loop, selected automatically.

:meth:`Coscheduling.compiled_pass
<cosched.nodeshare.policies._NodeShareBase.compiled_pass>` declares it for
``nodeshare`` and ``nodeshare-easy`` themselves (not a subclass: a user's subclass
keeps the Python interface and the general loop). The engine's fast path
(:mod:`cosched.engine.fastpath`) runs it when :func:`arguments` accepts the simulation:
an instance whose ``plan`` and ``commit`` are the class's, the policy's own rate model,
no capacity checks, a workload in memory with the ``ns_*`` profile columns (classes 0,
1 or 2; otherwise the general loop runs and names the job) whose run-time factors are
positive and finite. Everything placement reads of a job is computed here before the
loop, with the policy's own code: its ``(size, class)`` key, numbered in submit order
as the policy numbers them, its configurations, their ``(a, b)`` coefficients
(:meth:`InterferenceModel.coefficients_for
<cosched.nodeshare.interference.InterferenceModel.coefficients_for>`) and its victim
weight; the node book's rules (:func:`~cosched.nodeshare.placement.state_rules`, the
buckets' order :func:`~cosched.nodeshare.placement.bucket_order`) go in as parameters.

Run as plain Python (a workload too small for the compiled loop, or before it is
built), the pass calls the node-sharing kernels compiled, as the general loop does
(:func:`plain_calls`); compiled, it calls their source compiled with it.

Schedules, placements, rates, the records ``chosen`` and ``blocked``, ``place_calls``
and the engine's counters are the same on both paths (``tests/nodeshare/test_fast.py``).
``place_ns``, the wall-clock time the general loop spends in placement, is 0 after a
run on the compiled pass, which does not time its placements.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cosched.engine.compiled import CompiledPass, ranked
from cosched.nodeshare import _book_kernels as BK
from cosched.nodeshare import _pass as K
from cosched.nodeshare import _window_kernels as WK
from cosched.nodeshare import policies as P
from cosched.nodeshare.configurations import PAPER_SHAPES, configurations
from cosched.nodeshare.interference import InterferenceModel, preset_model
from cosched.nodeshare.placement import bucket_order, state_rules
from cosched.platform import Allocation
from cosched.policies.base import OwnRates

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["BUILT_IN", "NODESHARE_PASS", "arguments", "plain_calls"]

#: The policies the compiled pass runs (exact types).
BUILT_IN: frozenset[type] = frozenset({P.Coscheduling, P.CoschedulingBackfill})

#: Whether each paper shape is degraded: fewer total cores than the base
#: (:attr:`Configuration.degraded <cosched.nodeshare.configurations.Configuration.degraded>`).
_DEGRADED = tuple(m * f < 1 for m, f in PAPER_SHAPES)

#: The last table :func:`arguments` built, for :func:`table` (the engine asks for both
#: in turn): ``(policy, simulation, table)``.
_built: list[tuple[Any, Any, np.ndarray]] = []


def _inputs(
    sizes: np.ndarray,
    sens: np.ndarray,
    profile: tuple[np.ndarray, np.ndarray, np.ndarray],
    nodes: int,
    cores: int,
    degraded: bool,
    model: InterferenceModel,
) -> np.ndarray | None:
    """The pass's table with its inputs filled in (see :mod:`cosched.nodeshare._pass`),
    or None when a configuration's factor could be zero, negative or not finite."""
    n = len(sizes)
    t = np.zeros((n, K.TABLE_COLUMNS), dtype=np.float64)
    size_list, sens_list = sizes.tolist(), sens.tolist()
    keys: dict[tuple[int, int], int] = {}
    kid = [keys.setdefault(pair, len(keys)) for pair in zip(size_list, sens_list, strict=True)]
    t[:, K.KID] = kid
    t[:, K.SENS] = sens
    t[:, K.VIC] = np.array(model.victim)[sens]
    cf, cp, dg = (p.tolist() for p in profile)
    coefficients = model.coefficients_for
    for size in np.unique(sizes).tolist():
        configs = configurations(size, cores, max_nodes=nodes, degraded=degraded)
        rows = np.flatnonzero(sizes == size)
        w = len(configs)
        t[rows, K.NEED : K.NEED + K.WIDTH] = -1.0
        t[rows, K.PER_NODE : K.PER_NODE + K.WIDTH] = -1.0
        t[rows, K.SHAPE : K.SHAPE + K.WIDTH] = -1.0
        if not w:
            continue
        t[rows, K.NEED : K.NEED + w] = [c.nodes for c in configs]
        t[rows, K.PER_NODE : K.PER_NODE + w] = [c.cores for c in configs]
        t[rows, K.SHAPE : K.SHAPE + w] = [c.shape for c in configs]
        coef = np.array(
            [
                coefficients(configs, comm_fraction=cf[j], comm_penalty=cp[j], degradation=dg[j])
                for j in rows.tolist()
            ],
            dtype=np.float64,
        ).reshape(len(rows), w, 2)
        a, b = coef[:, :, 0], coef[:, :, 1]
        if not (
            np.isfinite(coef).all() and (a >= 0).all() and (b >= 0).all() and (a + b > 0).all()
        ):
            return None
        t[rows, K.A : K.A + w] = a
        t[rows, K.B : K.B + w] = b
    return t


def _params(
    nodes: int,
    cores: int,
    cap: int,
    window: int,
    easy: bool,
    dynamic: bool,
    model: Any,
    restriction: str,
) -> K.NsParams:
    """The pass's parameters (see :mod:`cosched.nodeshare._pass`)."""
    pressure_of, jobs_of, ok = state_rules(cap, model, restriction)
    return K.NsParams(
        nodes=nodes,
        cores=cores,
        cap=cap,
        window=window,
        easy=easy,
        dynamic=dynamic,
        order=np.asarray(bucket_order(pressure_of, jobs_of, cap, cores + 1), dtype=np.int64),
        ok=np.array([int(x) for row in ok for x in row], dtype=np.int64),
        below_cap=np.array([int(j < cap) for j in jobs_of], dtype=np.int64),
        pressure=np.array(model.pressure, dtype=np.float64),
        victim=np.array(model.victim, dtype=np.float64),
        pressure_of=np.array(pressure_of, dtype=np.float64),
    )


def arguments(policy: P._NodeShareBase, sim: Simulation) -> K.NsParams | None:
    """The pass's parameters, or None when ``sim`` needs the general loop (see the
    module's description); the table of per-job inputs is built here too."""
    _built.clear()
    kind = type(policy)
    if kind not in BUILT_IN or not policy._one_kernel(kind):
        return None
    if sim.check or sim.streamed or not sim.placing or sim.n_jobs == 0:
        return None
    rates = sim.rate_model
    if type(rates) is not OwnRates or rates.policy is not policy:
        return None
    p = sim.platform
    if p.allocation is not Allocation.NODES or p.mpl != 1:
        return None
    cap = p.max_jobs_per_node or p.cores
    if not 1 <= cap < BK.BASE:
        return None
    cols = sim.workload.columns
    if not all(c in cols for c in P.PROFILE_COLUMNS):
        return None  # the general loop names the job
    sens_f, cf, cp, dg = (np.asarray(cols[c], dtype=np.float64) for c in P.PROFILE_COLUMNS)
    if not np.isfinite(sens_f).all():
        return None
    sens = sens_f.astype(np.int64)  # int() of each value, as the policy reads it
    sizes = np.asarray(sim.columns[3], dtype=np.int64)
    if ((sens < 0) | (sens > 2)).any() or ((sizes < 1) | (sizes > p.nodes)).any():
        return None
    t = _inputs(sizes, sens, (cf, cp, dg), p.nodes, p.cores, policy.degraded, policy._model)
    if t is None:
        return None
    easy = kind is P.CoschedulingBackfill
    window = policy.window if isinstance(policy, P.CoschedulingBackfill) else 0
    params = _params(
        p.nodes, p.cores, cap, window, easy, policy.rates == "dynamic", policy._model,
        policy.restriction,
    )  # fmt: skip
    _built.append((policy, sim, t))
    return params


def table(policy: P._NodeShareBase, sim: Simulation) -> np.ndarray:
    """One row per job: the inputs :func:`arguments` computed, and room for the
    outputs."""
    got = _built.pop() if _built else None
    if got is None or got[0] is not policy or got[1] is not sim:
        if arguments(policy, sim) is None:
            raise ValueError("the node-sharing pass does not accept this simulation")
        got = _built.pop()
    return got[2]


def absorb(
    policy: P._NodeShareBase, counters: list[int], floats: list[float], t: np.ndarray
) -> None:
    """The policy's records as the general loop leaves them (the dictionaries in the
    order it fills them); ``place_ns`` 0."""
    policy.place_calls = counters[0]
    policy.place_ns = 0
    started = ranked(t, K.STARTED)
    shapes = t[started, K.CHOSEN_SHAPE].astype(np.int64).tolist()
    factors = t[started, K.FACTOR].tolist()
    policy.chosen = {
        j: (s, _DEGRADED[s], f) for j, s, f in zip(started.tolist(), shapes, factors, strict=True)
    }
    blocked = ranked(t, K.BLOCKED)
    why = t[blocked, K.CAPACITY].tolist()
    policy.blocked = {
        j: "capacity" if c else "fragmentation" for j, c in zip(blocked.tolist(), why, strict=True)
    }


def placements(
    sim: Simulation, placed: np.ndarray, order: np.ndarray, t: np.ndarray
) -> tuple[dict[int, Any], list[int]]:
    """Where each job ran (in start order): its nodes in the order Algorithm 1 took
    them, each with the cores per node of its configuration; the slots it held."""
    off = t[:, K.OFF].astype(np.int64).tolist()
    count = t[:, K.NNODES].astype(np.int64).tolist()
    per = t[:, K.CORES_USED].astype(np.int64).tolist()
    nodes = placed.tolist()
    out: dict[int, Any] = {}
    for j in order.tolist():
        c = per[j]
        lo = off[j]
        out[j] = tuple([(node, c) for node in nodes[lo : lo + count[j]]])
    return out, [a * b for a, b in zip(count, per, strict=True)]


def sample(rng: np.random.Generator, n: int) -> tuple[int, K.NsParams, np.ndarray]:
    """nodeshare-easy (window 10, dynamic rates, Max_One_High) on 16 nodes of 4 cores,
    three jobs a node, random classes and profiles: the build's check. The per-job
    configurations are those of one-node jobs (within the room the check's sizes give)."""
    model = preset_model("prior")
    sens = rng.integers(0, 3, n)
    cf, cp, dg = rng.random(n) * 0.5, rng.random(n) * 0.3, 1.0 + rng.random(n) * 0.5
    t = _inputs(np.ones(n, dtype=np.int64), sens, (cf, cp, dg), 16, 4, True, model)
    assert t is not None
    return 16, _params(16, 4, 3, 10, True, True, model, "Max_One_High"), t


def plain_calls() -> dict[str, Any]:
    """The kernels the pass calls by name, compiled (ahead of time, else by numba), as
    the general loop runs them: the plain loop's calls."""
    from cosched.compile import kernels

    book, window = kernels(BK.__name__), kernels(WK.__name__)
    return {
        "easy_pass": window.easy_pass,
        "move": book.move,
        "jobs_on": book.jobs_on,
        "new_factors": book.new_factors,
    }


def _plain(f: Any) -> Any:
    """A kernel's Python source (the kernels' module may have been compiled in place)."""
    return getattr(f, "py_func", f)


NODESHARE_PASS = CompiledPass(
    name="nodeshare",
    init=K.ns_init,
    schedule=K.ns_pass,
    ended=K.ns_ended,
    report=K.ns_report,
    rates=K.ns_rates,
    arguments=arguments,
    params=K.NsParams,
    table=table,
    absorb=absorb,
    places=True,
    room=4,  # a configuration takes up to 4 nodes per node of its base
    placements=placements,
    calls=tuple(
        _plain(f)
        for f in (
            BK.usable,
            BK.fit_row,
            BK.choose,
            BK.take,
            BK.move,
            BK.jobs_on,
            BK.co_pressure,
            BK.new_factors,
            WK.key_row,
            WK.scan,
            WK._blocked,
            WK._start,
            WK._choice,
            WK.queued_after,
            WK.kth_smallest,
            WK.node_shadow,
            WK.easy_pass,
        )
    ),
    plain_calls=plain_calls,
    helpers=(K._once,),
    idle_passes=True,  # the policies pass at every instant (Policy.idle_passes)
    reports=K.REPORTS,
    sample=sample,
)
