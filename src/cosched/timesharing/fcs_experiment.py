"""The FCS reproduction's cell function: the synthetic scenarios of section 3 of
flexible-coscheduling-fcs.txt under FCFS, GS, SB and FCS (spec
``cosched/experiments/specs/fcs.toml``; report in :mod:`cosched.timesharing.fcs_report`).

Every job is a BSP job of the paper's building block (:func:`bsp_jobs`: 1 ms of
computation per iteration, then one message to each neighbour), as wide as the machine,
all submitted at time 0. ``job_time`` is the balanced job's time alone (the paper's
60 s). Scenarios:

* ``balanced`` (3.1): two identical balanced jobs;
* ``imbalanced`` (3.2): job 1's odd ranks and job 2's even ranks compute
  ``2 + 2 L / grain`` times as much, so that the job alone takes twice the balanced
  job's time (footnote 4: "slightly over 2:1", the communication time being unchanged;
  a slow rank's messages are waiting for it, so its iteration is its computation);
* ``complementing`` (3.3): two non-communicating jobs of ``job_time`` whose odd ranks
  compute for ``job_time`` and even ranks almost nothing (one iteration each), and a
  communicating job whose even ranks compute ``3 + 3 L / grain`` times as much as its odd
  ones (alone it takes three times the balanced job), so that every node has
  3 x ``job_time`` of computation (our reading of "arranged so that alternating nodes
  run for different amounts of time, taking a total of 180 s per processor");
* ``mixed`` (3.4): the two imbalanced jobs and a balanced third one.

Section 4's application pairs, with skeletons of the two applications (run in a grid
of their own with the paper's 200 ms time slice):

* SWEEP3D: the balanced 1 ms block ("very fine granularity, averaging about 1 ms"),
  111/60 ``job_time`` alone (the paper's 111 s);
* SAGE: one rank in four computes ``SAGE_SLOW`` x a 1.5 ms grain (8 ms), the others
  1.5 ms and wait for it, so that about 75% of the processes are F (compute per
  communication 1.5 ms < F_thresh, granularity about 8 ms: "most processes reach a
  synchronization point every 5 ms or less ... the average granularity over all
  processes is closer to 8 ms ... ~75% of the processes as class F"), 126/60
  ``job_time`` alone;
* ``sweep3d``, ``sage``: two copies; ``sage+sweep3d``: one of each (SAGE first).

FCFS is the gang matrix with one row (the jobs run one after the other); GS, SB and FCS
get one matrix row (or one process slot per node) per job.

``dynamic`` (section 5): :func:`dynamic_workload`'s Lublin jobs of random BSP kinds at an
offered ``load`` on ``dyn_pes`` processors, admitted by EASY backfilling with estimates
of the isolated run time times the MPL (``dyn_mpl`` for GS, SB and FCS; 1 for FCFS, i.e.
batch EASY); ``dynamic-apps`` is Figure 9's set, SAGE and SWEEP3D skeletons at MPL 2;
the cell reports mean and median response and slowdown, and the deciles of
the response times of the shorter and the longer half of the jobs (by isolated run
time: Figure 8). SB spins for the FCS paper's
120 us before blocking (its section 3) when that is at least one latency; at 4 KiB
(L = 185 us) it spins one latency, as ``spin_factor`` cannot go below 1. The readings
``latency`` and ``t_spin`` (seconds) set the message latency and both schemes' spin
(docs/timesharing-fidelity.md, "Section 3.4 under SB").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv, Scalar, require
from cosched.timesharing.engine import TimeSharingSim, simulate
from cosched.timesharing.params import TSParams
from cosched.timesharing.workloads import (
    APP_KINDS,
    DYNAMIC_MIXES,
    LOAD_BY,
    SAGE_GRAIN,
    SAGE_SLOW,
    bsp_jobs,
    dynamic_workload,
    whole_nodes,
)
from cosched.workload.job import Workload

__all__ = [
    "DECILES",
    "DYNAMIC",
    "DYNAMIC_KEYS",
    "SCENARIOS",
    "SCHEMES",
    "TOPOLOGIES",
    "DynamicCell",
    "ScenarioCell",
    "check",
    "parse",
    "queue_accepted",
    "run_cell",
    "run_dynamic",
    "scenario_jobs",
    "scenario_sim",
    "window_accepted",
]

SCHEMES = ("FCFS", "GS", "SB", "FCS")
#: How a scenario's ranks exchange messages: the paper's "nearest-neighbor, ring
#: pattern" (section 3, the default), or a chain (the end ranks have one neighbour).
TOPOLOGIES = ("ring", "chain")
SCENARIOS = ("balanced", "imbalanced", "complementing", "mixed", "sweep3d", "sage", "sage+sweep3d")

_KEYS = ("scenario", "scheme", "nodes", "job_time", "grain", "quantum", "cslots_min")
#: The dynamic workloads: section 5's synthetic set (Figures 7-8, MPL ``dyn_mpl``) and its
#: SAGE/SWEEP3D set (Figure 9, at the paper's MPL 2: ``APPS_MPL``).
DYNAMIC = ("dynamic", "dynamic-apps")
APPS_MPL = 2
#: The dynamic workload's parameters (section 5).
DYNAMIC_KEYS = ("load", "n_jobs", "dyn_pes", "dyn_mpl", "max_run", "time_scale")
#: The dynamic workload's readings of section 5.1, each a parameter with its default
#: (docs/timesharing-fidelity.md, "Figure 7's saturation, re-read"): ``alloc`` "pe" (every
#: scheme allocates PEs) or "node" (batch FCFS allocates whole nodes of ``node_pes``
#: PEs, the time-sharing schemes PEs); ``load_by`` (:data:`LOAD_BY`); ``estimate``, the
#: request as a multiple of the isolated run time (EASY's estimate is the request times
#: the MPL); ``mix``, the job kinds of the synthetic set (:data:`DYNAMIC_MIXES`; "equal"
#: is :data:`DYNAMIC_KINDS`: docs/timesharing-fidelity.md, "The dynamic workload's job mix").
READINGS: dict[str, Scalar] = {
    "alloc": "pe", "node_pes": 2, "load_by": "arrivals", "estimate": 1.0, "mix": "equal",
}  # fmt: skip
ALLOC = ("pe", "node")
#: Deciles of Figure 8's response-time CDFs.
DECILES = tuple(range(10, 100, 10))
#: Bounded slowdown's threshold: the usual 10 s, in the workload's own seconds (divided
#: by ``time_scale`` like the run times).
BOUND = 10.0


@dataclass(frozen=True, slots=True)
class ScenarioCell:
    """A cell of sections 3-4: one scenario or application pair under one scheme.

    Attributes:
        scenario: one of :data:`SCENARIOS`.
        scheme: one of :data:`SCHEMES`.
        nodes: the machine's PEs (every job is as wide).
        job_time: the balanced job's time alone (s).
        grain: the compute per iteration of the building block (s).
        block: consecutive ranks slow or fast together (:func:`scenario_jobs`).
        ring: the ranks exchange messages in a ring (``topology`` "ring"), else a chain.
        model: the model's parameters (:func:`_params`).
        mpl: the rows of GS's and FCS's matrix, the process slots per PE under SB
            (``mpl``); 0, the default, gives every job its own (a job beyond them waits
            for one to free). Section 4 states MPL 2 for its two jobs; section 3 states
            none, and its 3.3 GS row needs three rows (docs/timesharing-fidelity.md,
            "Section 3.4's order, written up").
    """

    scenario: str
    scheme: str
    nodes: int
    job_time: float
    grain: float
    block: int
    ring: bool
    model: TSParams
    mpl: int = 0


@dataclass(frozen=True, slots=True)
class DynamicCell:
    """A cell of section 5: a dynamic workload (:data:`DYNAMIC`) under one scheme.

    Attributes:
        scenario: "dynamic" (the synthetic set) or "dynamic-apps" (Figure 9's set).
        scheme: one of :data:`SCHEMES`.
        load: the offered load.
        n_jobs: the jobs drawn.
        dyn_pes: the machine's PEs.
        dyn_mpl: the MPL of GS, SB and FCS (the synthetic set).
        max_run: the longest run time drawn (s, before ``time_scale``).
        time_scale: run and inter-arrival times are divided by it.
        alloc, node_pes, load_by, estimate, mix: the readings of :data:`READINGS`.
        model: the model's parameters (:func:`_params`).
    """

    scenario: str
    scheme: str
    load: float
    n_jobs: int
    dyn_pes: int
    dyn_mpl: int
    max_run: float
    time_scale: float
    alloc: str
    node_pes: int
    load_by: str
    estimate: float
    mix: str
    model: TSParams


def check(params: Mapping[str, Scalar]) -> None:
    """Refuse a configuration the cell cannot run, naming the parameter (:func:`parse`).

    Raises:
        ConfigError: a parameter is missing, of the wrong type or out of range.
    """
    parse(params)


def parse(params: Mapping[str, Scalar]) -> ScenarioCell | DynamicCell:
    """The cell's parameters, checked and converted once: a :class:`DynamicCell` for the
    dynamic scenarios, else a :class:`ScenarioCell`.

    Raises:
        ConfigError: a parameter is missing, of the wrong type or out of range, naming it.
    """
    require(params, "fcs", _KEYS)
    if params["scheme"] not in SCHEMES:
        raise ConfigError(f"'scheme' must be one of {', '.join(SCHEMES)}")
    model = _params(params)  # the model's readings (latency, t_spin, costs) before any run
    scenario = str(params["scenario"])
    scheme = str(params["scheme"])
    if scenario in DYNAMIC:
        return _parse_dynamic(params, scenario, scheme, model)
    if scenario not in SCENARIOS:
        raise ConfigError(f"'scenario' must be one of {', '.join(SCENARIOS)} or 'dynamic'")
    topology = params.get("topology", "ring")
    if topology not in TOPOLOGIES:
        raise ConfigError(f"'topology' must be one of {', '.join(TOPOLOGIES)}")
    block = params.get("block", 1)
    if not (str(block).isdigit() and int(str(block)) >= 1):
        raise ConfigError(f"'block' must be an integer >= 1 (got {block!r})")
    mpl = _int(params, "mpl", 0)
    if mpl < 0:
        raise ConfigError(f"'mpl' must be an integer >= 0 (0: a row per job; got {mpl})")
    return ScenarioCell(
        scenario=scenario,
        scheme=scheme,
        nodes=_int(params, "nodes"),
        job_time=_float(params, "job_time"),
        grain=_float(params, "grain"),
        block=int(str(block)),
        ring=topology == "ring",
        model=model,
        mpl=mpl,
    )


def _parse_dynamic(
    params: Mapping[str, Scalar], scenario: str, scheme: str, model: TSParams
) -> DynamicCell:
    """:func:`parse` for a dynamic scenario (its keys and readings)."""
    for key in DYNAMIC_KEYS:
        if key not in params:
            raise ConfigError(f"the fcs cell's dynamic scenario needs the parameter {key!r}")
    r = reading(params)
    if r["alloc"] not in ALLOC:
        raise ConfigError(f"'alloc' must be one of {', '.join(ALLOC)} (got {r['alloc']!r})")
    if r["load_by"] not in LOAD_BY:
        raise ConfigError(f"'load_by' must be one of {', '.join(LOAD_BY)}")
    node_pes = r["node_pes"]
    dyn_pes = _int(params, "dyn_pes")
    if not (isinstance(node_pes, int) and node_pes >= 1) or dyn_pes % node_pes:
        raise ConfigError("'node_pes' must be an integer >= 1 that divides 'dyn_pes'")
    estimate = _float(r, "estimate")
    if not estimate >= 1.0:
        raise ConfigError(f"'estimate' must be >= 1 (got {r['estimate']!r})")
    if r["mix"] not in DYNAMIC_MIXES:
        raise ConfigError(f"'mix' must be one of {', '.join(DYNAMIC_MIXES)} (got {r['mix']!r})")
    if scenario == "dynamic-apps" and r["mix"] != READINGS["mix"]:
        raise ConfigError(
            f"'mix' applies to the 'dynamic' scenario; 'dynamic-apps' runs Figure 9's "
            f"SAGE and SWEEP3D set (got mix={r['mix']!r})"
        )
    return DynamicCell(
        scenario=scenario,
        scheme=scheme,
        load=_float(params, "load"),
        n_jobs=_int(params, "n_jobs"),
        dyn_pes=dyn_pes,
        dyn_mpl=_int(params, "dyn_mpl"),
        max_run=_float(params, "max_run"),
        time_scale=_float(params, "time_scale"),
        alloc=str(r["alloc"]),
        node_pes=node_pes,
        load_by=str(r["load_by"]),
        estimate=estimate,
        mix=str(r["mix"]),
        model=model,
    )


def reading(params: Mapping[str, Scalar]) -> dict[str, Scalar]:
    """The dynamic workload's readings (:data:`READINGS`), defaults filled in."""
    return {k: params.get(k, v) for k, v in READINGS.items()}


def scenario_jobs(
    scenario: str,
    nodes: int,
    job_time: float,
    grain: float,
    params: TSParams,
    block: int = 1,
) -> list[tuple[float, ...]]:
    """The ``bsp_jobs`` tuples of a scenario; ``block`` consecutive ranks (PEs) are
    slow or fast together in the imbalanced and complementing jobs (1: alternating
    PEs; 4: alternating four-way nodes, the paper's "every alternating node (four
    processes)")."""
    # A slow rank's iteration: its computing when its neighbours are fast (block 1: their
    # messages wait for it), its computing and one latency when a neighbour is slow too
    # (block > 1). The slow factors give the imbalanced job alone twice the balanced
    # job's time (2 (grain + L) an iteration) and the complementing job 3 three times.
    waits = 0 if block == 1 else 1
    slow = 2 + (2 - waits) * params.latency / grain
    balanced = (0.0, job_time, nodes, grain, 1.0, 0)
    imb1 = (0.0, job_time, nodes, grain, slow, 1, block, 2)
    imb2 = (0.0, job_time, nodes, grain, slow, 0, block, 2)
    if scenario == "balanced":
        return [balanced, balanced]
    if scenario == "imbalanced":
        return [imb1, imb2]
    if scenario in ("sweep3d", "sage", "sage+sweep3d"):
        # SWEEP3D alone: 111/60 of the block. SAGE alone: its slow rank's compute sets
        # the pace (its neighbours' messages wait for it; with block > 1 it waits one
        # latency for its slow neighbour), so n_iter iterations take
        # n_iter * (SAGE_SLOW * SAGE_GRAIN + waits * L); n_iter = run / (grain + L).
        sweep = (0.0, job_time * 111 / 60, nodes, grain, 1.0, 0)
        t_sage = job_time * 126 / 60
        pace = SAGE_SLOW * SAGE_GRAIN + waits * params.latency
        run = t_sage * (SAGE_GRAIN + params.latency) / pace
        sage = (0.0, run, nodes, SAGE_GRAIN, SAGE_SLOW, 0, block, 4)
        pairs: dict[str, list[tuple[float, ...]]] = {
            "sweep3d": [sweep, sweep],
            "sage": [sage, sage],
            "sage+sweep3d": [sage, sweep],
        }
        return pairs[scenario]
    if scenario == "complementing":
        idle = 1e-6  # the even ranks of the non-communicating jobs: next to nothing
        lone = (0.0, job_time, nodes, job_time, idle, 0, block, 2)
        slow3 = 3 + (3 - waits) * params.latency / grain
        return [lone, lone, (0.0, job_time, nodes, grain, slow3, 0, block, 2)]
    return [imb1, imb2, balanced]


def _params(params: Mapping[str, Scalar]) -> TSParams:
    """The model's parameters: T_slice, cslots_MIN, SB spinning the FCS paper's 120 us
    (at least one latency), the local scheduler (``local``, ``linux_hz``,
    ``linux_smp``, ``linux_wake_preempt``: the model's MLFQ unless the spec names Linux
    2.4's), FCS's slot clock (``slot_clock``: ``TSParams.fcs_slot_clock``, "assigned"
    unless the spec names "heartbeat") and what its T_comm counts (``tcomm``:
    ``TSParams.fcs_tcomm``, "wall" unless "running"), whether CS processes run in DC
    slots (``cs_local``: ``TSParams.fcs_cs_local``), whether every F process is favoured
    in local slots (``f_all``: ``TSParams.fcs_f_all``), the cost of a local context
    switch (``context_switch``: the model's 200 us unless the spec names one), OS noise
    (``noise_period``, ``noise_duration``: none unless the spec names them), the cost of
    a wake-up from a block beyond the interrupt (``wake_cost``: ``TSParams.wake_cost``,
    0 unless the spec names one), contention at the network interface
    (``nic_bandwidth`` in B/s and ``nic_pes``: ``TSParams``'s, none unless the spec
    names them), the one-way
    latency of a message (``latency``, in s: the model's 185.48 us at 4 KiB unless the
    spec names one; sets ``latency_per_byte``) and the spin time of SB and FCS
    (``t_spin``, in s, for both: unset, FCS spins the paper's 120 us and SB the larger
    of 120 us and one latency; set, it must be at least one latency), and whether Linux
    2.4's processes start with random counters (``random_counter``:
    ``TSParams.linux_random_counter``), and the cost of a gang switch (``gs_switch``, in
    s: ``TSParams.gs_context_switch``, the dynamic coscheduling paper's 2 ms unless the
    spec names one; the FCS paper's STORM switches "in a few hundreds of microseconds",
    its line 46), and the cost of FCS's monitoring per synchronous communication
    (``comm_cost``, in s: ``TSParams.fcs_comm_cost``, 0 unless the spec names one)."""
    base = TSParams(gs_quantum=_float(params, "quantum"))
    if "gs_switch" in params:  # the gang switch (the model's 2 ms unless the spec names one)
        base = base.with_(gs_context_switch=_seconds(params, "gs_switch"))
    if "latency" in params:
        lat = _seconds(params, "latency")
        base = base.with_(latency_fixed=0.0, latency_per_byte=lat / base.msg_size)
    t_spin = _seconds(params, "t_spin") if "t_spin" in params else base.fcs_spin
    if "t_spin" in params and t_spin < base.latency:
        raise ConfigError(
            f"'t_spin' ({t_spin:g} s) is below one latency ({base.latency:g} s): SB would "
            "block before a coscheduled partner's message could arrive"
        )
    return base.with_(
        fcs_cslots_min=_int(params, "cslots_min"),
        spin_factor=max(1.0, t_spin / base.latency),
        fcs_spin=t_spin,
        fcs_f_preempt=_int(params, "f_preempt", 1),
        local=str(params.get("local", base.local)),
        linux_hz=_float(params, "linux_hz", base.linux_hz),
        linux_smp=_int(params, "linux_smp", int(base.linux_smp)),
        linux_wake_preempt=_int(params, "linux_wake_preempt", int(base.linux_wake_preempt)),
        linux_random_counter=_int(params, "random_counter", int(base.linux_random_counter)),
        fcs_slot_clock=str(params.get("slot_clock", base.fcs_slot_clock)),
        fcs_tcomm=str(params.get("tcomm", base.fcs_tcomm)),
        fcs_cs_local=_int(params, "cs_local", int(base.fcs_cs_local)),
        fcs_f_all=_int(params, "f_all", int(base.fcs_f_all)),
        context_switch=_float(params, "context_switch", base.context_switch),
        noise_period=_float(params, "noise_period", base.noise_period),
        noise_duration=_float(params, "noise_duration", base.noise_duration),
        wake_cost=_float(params, "wake_cost", base.wake_cost),
        nic_bandwidth=_float(params, "nic_bandwidth", base.nic_bandwidth),
        nic_pes=_int(params, "nic_pes", int(base.nic_pes)),
        fcs_comm_cost=_float(params, "comm_cost", base.fcs_comm_cost),
    )


def _given(params: Mapping[str, Scalar], key: str, default: Scalar) -> Scalar:
    """The cell's parameter ``key``, or ``default`` when unset (None: a ConfigError)."""
    if key in params:
        return params[key]
    if default is None:
        raise ConfigError(f"the fcs cell needs the parameter {key!r}")
    return default


def _float(params: Mapping[str, Scalar], key: str, default: float | None = None) -> float:
    """The cell's parameter ``key`` as a float: a number, or its text as the scripts'
    ``--reading key=value`` give it (``default`` if unset).

    Raises:
        ConfigError: unset without a default, or not a number, naming ``key``.
    """
    value = _given(params, key, default)
    if isinstance(value, int | float | str):  # a bool is an int, as float() takes it
        try:
            return float(value)
        except ValueError:
            pass
    raise ConfigError(f"{key!r} must be a number (got {value!r})")


def _int(params: Mapping[str, Scalar], key: str, default: int | None = None) -> int:
    """The cell's parameter ``key`` as an integer: an integer, a float without a
    fraction, or the text of an integer (``default`` if unset).

    Raises:
        ConfigError: unset without a default, or not an integer, naming ``key``.
    """
    value = _given(params, key, default)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    raise ConfigError(f"{key!r} must be an integer (got {value!r})")


def _seconds(params: Mapping[str, Scalar], key: str) -> float:
    """The cell's reading ``key``, a time in seconds > 0 (a number, or its text as the
    scripts' ``--reading key=value`` give it).

    Raises:
        ConfigError: not a finite number > 0, naming ``key``.
    """
    try:
        value = _float(params, key)
    except ConfigError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(f"{key!r} must be a time in seconds > 0 (got {params[key]!r})")
    return value


def window_accepted(
    submit: np.ndarray, start: np.ndarray, end: np.ndarray, work: np.ndarray, pes: int
) -> float:
    """The accepted load while jobs arrive: the work done by the last arrival T over
    ``pes`` x T, a job running at T counted in proportion to the time it has run
    (``(T - start) / (end - start)`` of its ``work``). A saturated machine accumulates
    jobs in its queue, so its accepted load in the window falls below the offered load
    (the FCS paper, section 5.1: accepted load "inferred from the accumulation of jobs in
    the queue"); unlike the makespan, it does not count the drain after the last
    arrival, which every finite workload has."""
    t = float(submit.max())
    run = np.maximum(end - start, 1e-300)
    done = np.clip((t - start) / run, 0.0, 1.0)
    return float((work * done).sum()) / (pes * t)


def queue_accepted(submit: np.ndarray, start: np.ndarray, work: np.ndarray, pes: int) -> float:
    """The accepted load inferred from the queue (the FCS paper, section 5.1: "Accepted
    load could not be measured precisely, but could be indirectly inferred from the
    accumulation of jobs in the queue"): the work offered by the last arrival T less
    the work still queued at T (submitted, not started), over ``pes`` x T. A job counts
    once it leaves the queue, whatever its progress: under time sharing a started job
    holds a slot of the matrix until it ends. With an empty queue at T it is the offered
    load; a saturated scheme's queue grows, and its queue accepted load stays near what
    the machine takes in."""
    t = float(submit.max())
    taken = (submit <= t) & (start <= t)
    return float(work[taken].sum()) / (pes * t)


def run_dynamic(cell: DynamicCell, seed: int) -> dict[str, Any]:
    """The dynamic workload of section 5 under one scheme at one offered load."""
    pes = cell.dyn_pes
    apps = cell.scenario == "dynamic-apps"
    ts = cell.model
    rng = np.random.default_rng(seed)
    w = dynamic_workload(
        cell.n_jobs,
        rng=rng,
        pes=pes,
        load=cell.load,
        max_run=cell.max_run,
        time_scale=cell.time_scale,
        params=ts,
        kinds=APP_KINDS if apps else DYNAMIC_MIXES[cell.mix],
        load_by=cell.load_by,
    )
    scheme = cell.scheme
    mpl = 1 if scheme == "FCFS" else APPS_MPL if apps else cell.dyn_mpl
    run_w, units = w, pes
    if cell.estimate != 1.0:
        t = w.table.copy()
        t["requested_time"] = t["requested_time"] * cell.estimate
        run_w = Workload.from_table(t, name=w.name)
    if scheme == "FCFS" and cell.alloc == "node":
        node_pes = cell.node_pes
        run_w, units = whole_nodes(run_w, node_pes), pes // node_pes
    r = simulate(
        run_w,
        scheme="GS" if scheme == "FCFS" else scheme,
        nodes=units,
        mpl=mpl,
        rng=rng,
        params=ts,
        easy=True,
    )
    by_id = w.table.set_index("job_id")
    iso = by_id["requested_time"]
    compute = float(r.nodes["compute"].sum())
    if units != pes:  # whole nodes: a unit's computing stands for its job's PEs there
        size = w.table["procs"].to_numpy(dtype=float)
        cost = w.table["requested_time"].to_numpy(dtype=float)
        compute *= float((cost * size).sum()) / float((cost * run_w.table["procs"]).sum())
    j = r.jobs
    alone = iso.loc[j["job_id"]].to_numpy(dtype=float)
    resp = (j["end_time"] - j["submit_time"]).to_numpy(dtype=float)
    slow = resp / alone
    bound = BOUND / cell.time_scale
    bslow = np.maximum(resp / np.maximum(alone, bound), 1.0)
    submit = j["submit_time"].to_numpy(dtype=float)
    start = j["start_time"].to_numpy(dtype=float)
    work = alone * by_id["procs"].loc[j["job_id"]].to_numpy(dtype=float)
    out: dict[str, Any] = {
        "turnaround": float(r.end_time),
        "mean_response": float(resp.mean()),
        "median_response": float(np.median(resp)),
        "mean_slowdown": float(slow.mean()),
        "median_slowdown": float(np.median(slow)),
        "mean_bslowdown": float(bslow.mean()),
        "median_bslowdown": float(np.median(bslow)),
        "mean_wait": float((j["start_time"] - j["submit_time"]).mean()),
        "unfinished": float(r.unfinished),
        "utilization": compute / (pes * r.end_time),
        "events": float(r.events),
        "window_accepted": window_accepted(
            submit, start, j["end_time"].to_numpy(dtype=float), work, pes
        ),
        "queue_accepted": queue_accepted(submit, start, work, pes),
    }
    # where the PEs' time went (per allocation unit: a whole node under alloc "node")
    for c in ("compute", "spin", "context_switch", "interrupt"):
        out[f"frac_{c}"] = float(r.nodes[c].sum()) / (units * r.end_time)
    # Figure 8: the shorter and the longer half of the jobs by isolated run time (ties
    # by job id), their response-time deciles
    order = np.lexsort((j["job_id"].to_numpy(), alone))
    half = len(order) // 2
    for name, part in (("short", order[:half]), ("long", order[half:])):
        qs = np.percentile(resp[part], DECILES) if len(part) else np.full(len(DECILES), np.nan)
        for d, q in zip(DECILES, qs, strict=True):
            out[f"resp_{name}_q{d}"] = float(q)
    procs = r.procs
    for k, name in enumerate(("cs", "f", "dc")):
        out[f"procs_{name}"] = float((procs["klass"] == k).sum()) if scheme == "FCS" else math.nan
    return out


def scenario_sim(cell: ScenarioCell, seed: int) -> TimeSharingSim:
    """The simulation of a section 3-4 scenario cell, ready to run: FCFS is the gang
    matrix with one row, the other schemes get one row per job (or ``cell.mpl`` rows,
    the jobs beyond them waiting in arrival order). It can be run to a horizon to follow
    each job's progress."""
    nodes = cell.nodes
    ts = cell.model
    jobs = scenario_jobs(cell.scenario, nodes, cell.job_time, cell.grain, ts, cell.block)
    w = bsp_jobs(jobs, params=ts, ring=cell.ring)
    scheme = cell.scheme
    return TimeSharingSim(
        w,
        scheme="GS" if scheme == "FCFS" else scheme,
        nodes=nodes,
        mpl=1 if scheme == "FCFS" else (cell.mpl or len(jobs)),
        rng=np.random.default_rng(seed),
        params=ts,
    )


def run_cell(params: Mapping[str, Scalar], seed: int, env: CellEnv) -> dict[str, Any]:
    """One scenario under one scheme: each job's end time, turnaround, mean response
    and (FCS) the final classes of the processes."""
    cell = parse(params)
    if isinstance(cell, DynamicCell):
        return run_dynamic(cell, seed)
    nodes = cell.nodes
    scheme = cell.scheme
    r = scenario_sim(cell, seed).run()
    j = r.jobs.sort_values("job_id")
    ends = j["end_time"].to_numpy(dtype=float)
    out: dict[str, Any] = {f"job{k + 1}_end": float(e) for k, e in enumerate(ends)}
    for k in range(len(ends), 3):
        out[f"job{k + 1}_end"] = math.nan
    out["turnaround"] = float(ends.max())
    out["mean_response"] = float((j["end_time"] - j["submit_time"]).mean())
    out["unfinished"] = float(r.unfinished)
    procs = r.procs
    for k, name in enumerate(("cs", "f", "dc")):
        out[f"procs_{name}"] = float((procs["klass"] == k).sum()) if scheme == "FCS" else math.nan
    for c in ("compute", "spin", "context_switch"):
        out[f"frac_{c}"] = float(r.nodes[c].sum()) / (nodes * r.end_time)
    out["events"] = float(r.events)
    return out
