"""Driver of the time-sharing model: builds the state arrays, runs the model, collects
a :class:`TSResult`.

The model itself (node MLFQ, NIC, schemes, gang matrix, the process program) is written
once, in :mod:`cosched.timesharing.kernel`, as plain Python over arrays; numba compiles
it, and ``NUMBA_DISABLE_JIT=1`` runs the very same source as Python (slowly) to read it
in a debugger.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from cosched.compile import announced
from cosched.errors import ConfigError, InvariantError, WorkloadError
from cosched.timesharing import kernel as K
from cosched.timesharing.params import TSParams, scheme_flags
from cosched.workload.job import Workload

__all__ = ["TSResult", "TimeSharingSim", "check_inputs", "job_seeds", "simulate"]

INF = math.inf
_NEEDED = ("dcs_comp", "dcs_io", "dcs_comm", "dcs_skew")
_WAIT = {"spin": K.WAIT_SPIN, "block": K.WAIT_BLOCK, "yield": K.WAIT_YIELD}
_ARRIVAL = {"none": K.ARR_NONE, "interrupt": K.ARR_INTERRUPT, "periodic": K.ARR_PERIODIC}
#: Per-process counters of ``TSResult.procs`` and their state columns.
PROC_FLOAT = (
    ("compute", K.P_COMPUTE_T),
    ("spin", K.P_SPIN_T),
    ("io", K.P_IO_T),
    ("blocked", K.P_BLOCKED_T),
)
PROC_INT = (
    ("sent", K.P_SENT),
    ("received", K.P_RECEIVED),
    ("switches", K.P_SWITCHES),
    ("klass", K.P_KLASS),
    ("cslots", K.P_CSLOTS),
    ("tslots", K.P_TSLOTS),
    ("blocking_comms", K.P_CCOMM),
)
#: FCS class names by ``klass`` value (``TSResult.procs``; meaningful under FCS only).
FCS_CLASSES = ("CS", "F", "DC")


def check_inputs(workload: Workload, nodes: int, mpl: int, rng: np.random.Generator) -> None:
    """Reject what the model cannot simulate, with the offending value named.

    Raises:
        ConfigError: ``nodes`` or ``mpl`` is not an integer >= 1, or ``rng`` is not a
            numpy Generator.
        WorkloadError: the workload lacks the ``dcs_*`` columns, has a job wider than
            the machine, or a non-positive communication share.
    """
    if not isinstance(nodes, int | np.integer) or nodes < 1:
        raise ConfigError(f"nodes must be an integer >= 1 (got {nodes!r})")
    if not isinstance(mpl, int | np.integer) or mpl < 1:
        raise ConfigError(f"mpl must be an integer >= 1 (got {mpl!r})")
    if not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    t = workload.table
    missing = [c for c in _NEEDED if c not in t.columns]
    if missing:
        raise WorkloadError(
            f"workload {workload.name!r} lacks {missing}; annotate it with annotate_dyncosched"
        )
    if len(t) and int(t["procs"].max()) > nodes:
        raise WorkloadError(
            f"workload {workload.name!r} has a job of {int(t['procs'].max())} processes "
            f"for {nodes} nodes"
        )
    if len(t) and (t["dcs_comm"].to_numpy() <= 0).any():
        raise WorkloadError(f"workload {workload.name!r}: dcs_comm must be > 0")
    if "imbalance" in t.columns:
        bad = t.index[~(t["imbalance"].to_numpy(dtype=float) > 0)]
        if len(bad):
            raise WorkloadError(
                f"workload {workload.name!r}: imbalance must be > 0 "
                f"(job {t['job_id'].iloc[bad[0]]!r}: {t['imbalance'].iloc[bad[0]]!r})"
            )
    for name in ("imbalance_block", "imbalance_period"):
        if name in t.columns and not (t[name].to_numpy() >= 1).all():
            raise WorkloadError(f"workload {workload.name!r}: {name} must be an integer >= 1")
    if "ring" in t.columns and not t["ring"].isin([0, 1]).all():
        raise WorkloadError(f"workload {workload.name!r}: ring must be 0 (a chain) or 1")
    period = t["imbalance_period"] if "imbalance_period" in t.columns else 2
    if (
        "imbalance_parity" in t.columns
        and not ((t["imbalance_parity"] >= 0) & (t["imbalance_parity"] < period)).all()
    ):
        raise WorkloadError(
            f"workload {workload.name!r}: imbalance_parity must be in 0 .. imbalance_period - 1"
        )


def job_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """The skew seed of each of ``n`` jobs (non-negative int64), drawn from ``rng``."""
    return rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)


@dataclass
class TSResult:
    """What a time-sharing run produced.

    Attributes:
        scheme: the scheme's name.
        jobs: one row per finished job (``job_id, submit_time, start_time, end_time,
            procs, size, run_time`` plus ``dedicated_time`` and the job type shares).
        nodes: per-node CPU seconds by category (compute, spin, context_switch,
            interrupt, queue, endpoint_check, io_cpu: I/O that held the CPU under
            ``TSParams.io_holds_cpu``) and ``io_wait`` (process I/O seconds).
        end_time: simulated time at which the run stopped.
        events: events processed (a CPU event replaced before it fell counts too if it
            fell within the horizon, as when replaced events sat in a single heap).
        messages_sent: messages sent by all processes.
        messages_received: messages consumed by receives.
        unfinished: jobs not finished when the run stopped (horizon reached).
        window: first and last submit time.
        window_compute: CPU seconds spent computing, on all nodes, by the last submit.
        window_work: the dedicated work (run time x tasks) that computing stands for: each
            process's compute seconds by the last submit over its job's compute share of
            a dedicated iteration (``kernel.snapshot``).
        procs: one row per process of every started job (``job_id, rank, node``) with
            its counters: CPU seconds computing and spinning, seconds in I/O and
            blocked, messages sent and received, context switches into it; under
            FCS its class at the end (``klass``: 0 CS, 1 F, 2 DC, see
            ``FCS_CLASSES``), its slots in that class and in all, and its blocking
            communications since the last reset.
    """

    scheme: str
    jobs: pd.DataFrame
    nodes: pd.DataFrame
    end_time: float
    events: int
    messages_sent: int
    messages_received: int
    unfinished: int = 0
    window: tuple[float, float] = (0.0, 0.0)
    window_compute: float = 0.0
    window_work: float = 0.0
    procs: pd.DataFrame = field(default_factory=pd.DataFrame)


class TimeSharingSim:
    """One run of one scheme on one workload (see :func:`simulate`).

    ``state`` holds every piece of the model's state (:class:`kernel.State`); the
    kernel's functions can be called on it directly, which is how the scenario tests
    set up a situation and watch one mechanism react.
    """

    def __init__(
        self,
        workload: Workload,
        *,
        scheme: str,
        nodes: int,
        mpl: int,
        rng: np.random.Generator,
        params: TSParams | None = None,
        check: bool = False,
        easy: bool = False,
    ) -> None:
        flags = scheme_flags(scheme)
        self.scheme = scheme
        check_inputs(workload, nodes, mpl, rng)
        p = TSParams() if params is None else params
        p.check_scheme(flags)
        nodes, mpl = int(nodes), int(mpl)
        t = workload.table
        n_jobs = len(t)
        procs = t["procs"].to_numpy().astype(np.int64)
        n_procs = int(procs.sum())
        self.nodes = nodes
        self.w_id = t["job_id"].to_numpy()
        levels = int(p.levels)
        quanta = np.array(p.quanta(), dtype=np.float64)
        n_rows = nodes + max(n_procs, 1) + n_jobs
        jb = nodes + max(n_procs, 1)  # jobs are the last rows
        self.jb = jb
        width_i = max(K.N_PL + 2 * mpl, K.K_PI, K.K_JI)
        width_f = max(K.K_NF, K.K_PF, K.K_JF)
        tab_i = np.zeros((n_rows, width_i), dtype=np.int64)
        tab_f = np.zeros((n_rows, width_f))
        tab_i[:nodes, K.N_CUR] = -1
        tab_i[:nodes, K.N_TARGET] = -1
        tab_i[:nodes, K.N_LAST] = -1
        tab_i[:nodes, K.N_PL :] = -1  # process lists and gang cells
        tab_f[:nodes, K.N_DUE] = math.inf
        tab_f[:nodes, K.N_PRE] = math.inf
        tab_f[:nodes, K.N_PB] = math.inf
        tab_f[:nodes, K.N_SPEED] = 1.0
        jobs = slice(jb, jb + n_jobs)
        tab_i[jobs, K.J_PROCS] = procs
        tab_i[jobs, K.J_SEED] = job_seeds(rng, n_jobs)
        tab_f[jobs, K.J_START] = math.nan
        tab_f[jobs, K.J_END] = math.nan
        tab_f[jobs, K.J_SUB] = t["submit_time"].to_numpy(dtype=np.float64)
        tab_f[jobs, K.J_RUN] = t["run_time"].to_numpy(dtype=np.float64)
        tab_f[jobs, K.J_WCOMP] = t["dcs_comp"].to_numpy(dtype=np.float64)
        tab_f[jobs, K.J_WIO] = t["dcs_io"].to_numpy(dtype=np.float64)
        tab_f[jobs, K.J_WCOMM] = t["dcs_comm"].to_numpy(dtype=np.float64)
        tab_f[jobs, K.J_SKEW] = t["dcs_skew"].to_numpy(dtype=np.float64)
        tab_f[jobs, K.J_SLOW] = (
            t["imbalance"].to_numpy(dtype=np.float64) if "imbalance" in t.columns else 1.0
        )
        if easy:  # EASY's estimate: the request times the MPL (FCS paper, 5.1)
            tab_f[jobs, K.J_EST] = t["requested_time"].to_numpy(dtype=np.float64) * mpl
        if "imbalance_parity" in t.columns:
            tab_i[jobs, K.J_PARITY] = t["imbalance_parity"].to_numpy().astype(np.int64)
        for col, name, default in ((K.J_BLOCK, "imbalance_block", 1),
                                   (K.J_PERIOD, "imbalance_period", 2),
                                   (K.J_RING, "ring", 0)):  # fmt: skip
            tab_i[jobs, col] = t[name].to_numpy().astype(np.int64) if name in t.columns else default
        tab_i[:nodes, K.N_NK] = -1  # every PE's noise daemon sleeps
        if p.noise_period > 0:  # drawn after the job seeds: no noise, the same draws
            tab_f[:nodes, K.N_NPH] = rng.uniform(0.0, p.noise_period, nodes)
        tmp_b = K.G_GSR + mpl
        q_b = tmp_b + max(nodes, mpl) + 1
        tree_b = q_b + max(n_jobs, 1)
        p2 = 1 << max(nodes - 1, 0).bit_length()  # leaves of the CPU-event tree
        g = np.zeros(tree_b + 4 * p2, dtype=np.int64)
        # No event anywhere: every subtree's first is its first node (the leaves past the
        # last node: none, sequence number above any other).
        tree = g[tree_b : tree_b + 2 * p2]
        tree[p2:] = np.where(np.arange(p2) < nodes, np.arange(p2), -1)
        g[tree_b + 3 * p2 + nodes : tree_b + 4 * p2] = np.iinfo(np.int64).max
        for k in range(p2 - 1, 0, -1):
            tree[k] = tree[2 * k] if tree[2 * k] >= 0 else tree[2 * k + 1]
        g[K.S_TREEB] = tree_b
        g[K.S_P2] = p2
        g[K.S_NEXTPROC] = nodes  # process ids are rows, after the nodes
        g[K.S_JB] = jb
        g[K.S_GSCOL] = K.N_PL + mpl
        g[K.S_TMPB] = tmp_b
        g[K.S_QB] = q_b
        g[K.F_GANG] = int(flags.gang)
        g[K.F_WAIT] = _WAIT[flags.wait]
        g[K.F_ARRIVAL] = _ARRIVAL[flags.arrival]
        g[K.F_TOP] = levels - 1
        g[K.F_MPL] = mpl
        g[K.F_CHECK] = int(bool(check))
        g[K.F_NNODES] = nodes
        g[K.F_FCS] = int(flags.fcs)
        g[K.F_EASY] = int(bool(easy))
        g[K.F_FPRE] = int(flags.fcs and p.fcs_f_preempt == 1)
        g[K.F_HBCLOCK] = int(flags.fcs and p.fcs_slot_clock == "heartbeat")
        g[K.F_TCRUN] = int(flags.fcs and p.fcs_tcomm == "running")
        g[K.F_CSLOCAL] = int(flags.fcs and p.fcs_cs_local == 1)
        g[K.F_FALL] = int(flags.fcs and p.fcs_f_all == 1)
        # Linux 2.4's local scheduler; gang scheduling (GS, FCFS) has no local one.
        g[K.F_LINUX] = int(p.local == "linux24" and (not flags.gang or flags.fcs))
        g[K.F_NTT] = p.linux_slice_ticks()
        g[K.F_CNT0] = int(g[K.F_LINUX] and p.linux_random_counter == 1)
        # Linux 2.4 on SMP nodes: PEs per run queue, PROC_CHANGE_PENALTY and the
        # wake-up preemption of reschedule_idle (one queue per PE: the uniprocessor's).
        smp = int(p.linux_smp) if g[K.F_LINUX] else 1
        if smp > 1 and nodes % smp:
            raise ConfigError(f"linux_smp={smp} PEs per node must divide the machine's {nodes} PEs")
        g[K.F_SMP] = smp
        g[K.F_PEN] = int(p.linux_change_penalty) if smp > 1 else 0
        g[K.F_WPRE] = int(p.linux_wake_preempt) if smp > 1 else 1
        nic_pes = int(p.nic_pes)
        if nodes % nic_pes:
            raise ConfigError(f"nic_pes={nic_pes} PEs per interface must divide the {nodes} PEs")
        g[K.F_NICPES] = nic_pes
        g[K.F_IOHOLD] = int(p.io_holds_cpu == 1)
        g[K.F_CSMIN] = int(p.fcs_cslots_min)
        g[K.F_TSMAX] = int(p.fcs_tslots_max)
        gf = np.zeros(K.G_QU + levels + 2 * p2)
        gf[K.G_QU + levels :] = math.inf  # the CPU-event tree's times
        g[K.S_TREEF] = K.G_QU + levels
        gf[K.R_LATENCY] = p.latency
        gf[K.R_CS] = p.context_switch
        gf[K.R_GSCS] = p.gs_context_switch
        gf[K.R_GSQ] = p.gs_quantum
        gf[K.R_INTR] = p.interrupt
        gf[K.R_QM] = p.queue_move
        gf[K.R_EC] = p.endpoint_check
        gf[K.R_SPIN] = p.spin_budget(flags.wait, flags.fcs)
        gf[K.R_CST] = p.fcs_cs_thresh
        gf[K.R_DCT] = p.fcs_dc_thresh
        gf[K.R_FT] = p.fcs_f_factor * p.fcs_cs_thresh
        gf[K.R_CLS] = p.fcs_classify
        gf[K.R_NM] = p.fcs_nm
        gf[K.R_TICK] = p.tick
        gf[K.R_HZ] = p.linux_hz
        gf[K.R_RAISE] = p.raise_period
        gf[K.R_NPER] = p.noise_period
        gf[K.R_NDUR] = p.noise_duration
        gf[K.R_WAKE] = p.wake_cost
        gf[K.R_COMM] = p.fcs_comm_cost
        gf[K.R_NICOCC] = p.nic_occupancy
        gf[K.R_QTOP] = quanta[levels - 1]
        gf[K.G_QU : K.G_QU + levels] = quanta
        self.margin = 2 * nodes * mpl + 2 * nodes + 16
        if p.noise_period > 0:  # a job's start wakes every PE's noise daemon
            self.margin += nodes
        cap = 4 * self.margin + 4 * n_procs + 64
        self.state = K.State(
            I=tab_i,
            F=tab_f,
            G=g,
            GF=gf,
            HT=np.zeros(cap),
            HI=np.zeros((cap, 4), dtype=np.int64),
            MT=np.zeros(cap),
            MI=np.zeros((cap, 3), dtype=np.int64),
        )

    def _grow(self) -> None:
        """Double the event heap and the message FIFO (the kernel asked for room)."""
        s = self.state
        grown = {}
        for name in ("HT", "HI", "MT", "MI"):
            a = getattr(s, name)
            b = np.zeros((2 * a.shape[0], *a.shape[1:]), dtype=a.dtype)
            b[: a.shape[0]] = a
            grown[name] = b
        self.state = s._replace(**grown)

    def advance(self, until: float) -> int:
        """Run the kernel until every job ended or simulated time ``until``, building no
        result: a study may read :attr:`state` between two calls and go on (a result's
        fold of the nodes' accounts would change what follows, so :meth:`run` ends a
        run). Returns the kernel's code (``K.RET_DONE`` once every job ended)."""
        self.state.GF[K.R_HORIZON] = until
        while True:
            # With NUMBA_DISABLE_JIT=1 the skew generator's uint64 products wrap in
            # numpy, which warns; compiled, they wrap silently. Same numbers either way.
            with np.errstate(over="ignore"), announced("the time-sharing kernel", K.run_kernel):
                ret = K.run_kernel(self.state, self.margin)
            if ret != K.RET_GROW:
                break
            self._grow()
        s = self.state
        now = float(s.GF[K.S_NOW])
        if ret == K.RET_OVERFLOW:
            raise InvariantError("event heap overflow: the growth margin is too small")
        if ret == K.RET_BACKWARDS:
            raise InvariantError(f"event at {s.GF[K.S_ERRT]} s after time {now} s")
        if ret == K.RET_INVARIANT:
            node, code = int(s.G[K.S_ERRNODE]), int(s.G[K.S_ERR])
            what = {
                1: "more than one running process",
                2: "current process is not running",
                3: f"busy time exceeds wall time {now} s",
            }[code]
            raise InvariantError(f"node {node}: {what}")
        return int(ret)

    def run(self, horizon: float = math.inf) -> TSResult:
        """Simulate until every job ended (or ``horizon`` simulated seconds), and the
        run's result (the run ends here)."""
        ret = self.advance(horizon)
        s = self.state
        now = float(s.GF[K.S_NOW])
        jobs = slice(self.jb, None)
        started = s.I[jobs, K.J_STARTED] == 1
        if ret == K.RET_DONE:
            ends = s.F[jobs][started, K.J_END]
            end = float(ends.max()) if ends.size else now
        else:
            end = min(now, horizon)
        return self._result(end)

    def _result(self, end: float) -> TSResult:
        s = self.state
        ji = s.I[self.jb :]
        jf = s.F[self.jb :]
        started = np.flatnonzero(ji[:, K.J_STARTED] == 1)
        finished = started[np.isfinite(jf[started, K.J_END])]
        k = ji[finished, K.J_NPROCS]
        jobs = pd.DataFrame(
            {
                "job_id": self.w_id[finished],
                "submit_time": jf[finished, K.J_SUB],
                "start_time": jf[finished, K.J_START],
                "end_time": jf[finished, K.J_END],
                "procs": k,
                "size": k,
                "run_time": jf[finished, K.J_RUN],
                "comp": jf[finished, K.J_WCOMP],
                "io": jf[finished, K.J_WIO],
                "comm": jf[finished, K.J_WCOMM],
            }
        )
        K.fold_all(s, end)
        io_wait = [0.0] * self.nodes
        for j in started.tolist():
            p0 = int(ji[j, K.J_P0])
            for p in range(p0, p0 + int(ji[j, K.J_NPROCS])):
                io_wait[int(s.I[p, K.P_NODE])] += float(s.F[p, K.P_IO_T])
        nf = s.F[: self.nodes]
        nodes = pd.DataFrame(
            {
                "node": np.arange(self.nodes),
                "compute": nf[:, K.N_COMPUTE].copy(),
                "spin": nf[:, K.N_SPIN].copy(),
                "context_switch": nf[:, K.N_CS].copy(),
                "interrupt": nf[:, K.N_INTR].copy(),
                "queue": nf[:, K.N_QUEUE].copy(),
                "endpoint_check": nf[:, K.N_CHECK].copy(),
                "io_cpu": nf[:, K.N_IOCPU].copy(),
                "io_wait": io_wait,
            }
        )
        rows = [
            p
            for j in started.tolist()
            for p in range(int(ji[j, K.J_P0]), int(ji[j, K.J_P0] + ji[j, K.J_NPROCS]))
        ]
        pi = s.I[rows]
        pf = s.F[rows]
        procs = pd.DataFrame(
            {
                "job_id": self.w_id[pi[:, K.P_JOB]] if rows else self.w_id[:0],
                "rank": pi[:, K.P_RANK],
                "node": pi[:, K.P_NODE],
                **{name: pf[:, col] for name, col in PROC_FLOAT},
                **{name: pi[:, col] for name, col in PROC_INT},
            }
        )
        n_jobs = ji.shape[0]
        return TSResult(
            scheme=self.scheme,
            jobs=jobs,
            nodes=nodes,
            end_time=float(end),
            events=int(s.G[K.S_EVENTS] + s.G[K.S_STALE]),
            messages_sent=int(s.G[K.S_SENT]),
            messages_received=int(s.G[K.S_RECEIVED]),
            unfinished=n_jobs - len(finished),
            window=(float(s.GF[K.S_WIN0]), float(s.GF[K.S_WIN1])),
            window_compute=float(s.GF[K.S_WINCOMP]),
            window_work=float(s.GF[K.S_WINWORK]),
            procs=procs,
        )


def simulate(
    workload: Workload,
    *,
    scheme: str,
    nodes: int = 32,
    mpl: int = 5,
    rng: np.random.Generator,
    params: TSParams | None = None,
    horizon: float = INF,
    check: bool = False,
    easy: bool = False,
) -> TSResult:
    """Simulate ``workload`` under one time-sharing scheme.

    Args:
        workload: jobs with the ``dcs_*`` columns of ``annotate_dyncosched``.
        scheme: one of :data:`cosched.timesharing.params.SCHEMES`.
        nodes: number of nodes (one CPU each).
        mpl: multiprogramming level (matrix rows for GS, processes per node otherwise).
        rng: the source of every random draw (skew).
        params: costs and constants (the paper's defaults if None).
        horizon: stop after this many simulated seconds.
        check: verify the one-running-process-per-CPU invariant after every event.
        easy: admit queued jobs by EASY backfilling (the head's reservation from the
            running jobs' estimated ends, ``requested_time`` times ``mpl``: the FCS
            paper's section 5.1) instead of strict FCFS.

    Returns:
        The run's :class:`TSResult`.
    """
    return TimeSharingSim(
        workload,
        scheme=scheme,
        nodes=nodes,
        mpl=mpl,
        rng=rng,
        params=params,
        check=check,
        easy=easy,
    ).run(horizon)
