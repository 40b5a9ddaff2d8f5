"""Parameters of the process-level time-sharing model, with the paper's defaults.

Sources: dynamic-coscheduling-cluster-simulation.txt (section 2 for the mechanisms,
Table 3 for the costs). Every time is in seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

from cosched.errors import ConfigError, UnknownNameError

__all__ = [
    "FCS_NIC_BANDWIDTH",
    "FCS_SLOT_CLOCKS",
    "FCS_TCOMM",
    "LINEAR_NIC_BANDWIDTH",
    "LOCAL_SCHEDULERS",
    "OTHER_SCHEMES",
    "SCHEMES",
    "SchemeFlags",
    "TSParams",
    "scheme_flags",
]

#: The node's local scheduler (``TSParams.local``): ``mlfq``, the dynamic coscheduling
#: paper's 60-level multi-level feedback queue (section 2.3 of its paper, Solaris-like),
#: or ``linux24``, the Linux 2.4 scheduler of the FCS paper's nodes (Red Hat Linux 7.3:
#: epochs of per-process tick counters, goodness, wake-up preemption; see the kernel's
#: ``linux_*`` functions).
LOCAL_SCHEDULERS = ("mlfq", "linux24")
#: What ages an FCS process (``TSParams.fcs_slot_clock``): ``assigned``, the end of each
#: of its own assigned slots (Table 1: cslots, tslots "Assigned times slots"; Algorithm
#: 2 "invoked for every process that has just finished running in its assigned time
#: slot"), or ``heartbeat``, every machine time slot, every live process reclassified at
#: every heartbeat (section 5.2: "FCS always coschedules a job in its first few seconds
#: of running": cslots_MIN 20 x T_slice 100 ms = 2 s, where at MPL 6 its own slots take
#: 12 s).
FCS_SLOT_CLOCKS = ("assigned", "heartbeat")
#: What FCS's T_comm counts (``TSParams.fcs_tcomm``): ``wall``, the wall time from
#: entering a blocking receive to its completion (Table 1: "Total time waiting for
#: blocking commun. to complete"), suspensions by the node manager included; or
#: ``running``, only the time the process spins, polls or is blocked in it (section 2.3:
#: "Measurements are taken whenever a process is running"), not the time it is
#: suspended or ready without the CPU.
FCS_TCOMM = ("wall", "running")
#: NIC contention's bandwidth (``TSParams.nic_bandwidth``, bytes/s) read off the dynamic
#: coscheduling paper: "a simple linear model for the network that is parameterized by
#: the message size ... though the contention at the interface is modeled" (its section
#: 3.1) with Table 3's "Message Size 4096 bytes / 1-way Message Latency 185.48 us" and
#: the model's fixed part 0: the size term is the time the message's bytes take through
#: the interface, so one message holds it for the whole latency (22.1 MB/s).
LINEAR_NIC_BANDWIDTH = 4096.0 / 185.48e-6
#: The FCS paper's interface (its section 3, line 227): "two independent 32 MHz/64-bit
#: PCI buses, two Quadrics QM-400 Elan3 NIC": each NIC's DMA moves at most 32 MHz x 8
#: bytes = 256 MB/s over its bus; two per four-way node (``nic_pes`` 2).
FCS_NIC_BANDWIDTH = 32e6 * 8.0
#: The numeric parameters that may be 0 (every other one must be > 0; none negative).
_MAY_BE_ZERO = frozenset({
    "latency_fixed", "context_switch", "interrupt", "queue_move", "endpoint_check",
    "fcs_classify", "fcs_nm", "fcs_f_preempt", "fcs_cs_local", "fcs_f_all",
    "linux_change_penalty", "linux_wake_preempt", "linux_random_counter", "noise_period",
    "noise_duration", "wake_cost", "nic_bandwidth", "io_holds_cpu", "fcs_comm_cost",
})  # fmt: skip
#: Schemes whose mechanism is written in the MLFQ's terms (boosts to the top level,
#: yields to the lowest level) and so have no meaning under ``linux24``.
_MLFQ_ONLY_ARRIVAL = ("interrupt", "periodic")


@dataclass(frozen=True, slots=True)
class SchemeFlags:
    """How a scheme waits for a message and what happens when one arrives.

    Attributes:
        gang: explicit gang scheduling over an Ousterhout matrix (no per-node MLFQ).
        wait: "spin" (busy wait), "block" (spin then block) or "yield" (spin then yield).
        arrival: "none", "interrupt" (DCS) or "periodic" (PB).
        fcs: Flexible CoScheduling over the gang matrix: processes classified CS, F
            or DC; a CS process's slot is gang-scheduled, the other slots and the gaps
            go to the node's local MLFQ (flexible-coscheduling-fcs.txt, section 2).
    """

    gang: bool
    wait: str
    arrival: str
    fcs: bool = False


#: The ten schemes of the paper (Table 1 plus GS), in its figure order.
SCHEMES: dict[str, SchemeFlags] = {
    "Local": SchemeFlags(False, "spin", "none"),
    "GS": SchemeFlags(True, "spin", "none"),
    "SB": SchemeFlags(False, "block", "none"),
    "DCS": SchemeFlags(False, "spin", "interrupt"),
    "DCS-SB": SchemeFlags(False, "block", "interrupt"),
    "PB": SchemeFlags(False, "spin", "periodic"),
    "PB-SB": SchemeFlags(False, "block", "periodic"),
    "SY": SchemeFlags(False, "yield", "none"),
    "PB-SY": SchemeFlags(False, "yield", "periodic"),
    "DCS-SY": SchemeFlags(False, "yield", "interrupt"),
}


#: Schemes beyond the dynamic coscheduling paper's ten: Flexible CoScheduling (the
#: matrix of GS; spin-block in the local slots, polling in a CS slot).
OTHER_SCHEMES: dict[str, SchemeFlags] = {
    "FCS": SchemeFlags(True, "block", "none", fcs=True),
}


def scheme_flags(name: str) -> SchemeFlags:
    """The flags of scheme ``name``.

    Raises:
        UnknownNameError: ``name`` is not one of :data:`SCHEMES` or
            :data:`OTHER_SCHEMES` (close names listed).
    """
    if name in OTHER_SCHEMES:
        return OTHER_SCHEMES[name]
    try:
        return SCHEMES[name]
    except (KeyError, TypeError):
        raise UnknownNameError("scheme", str(name), {**SCHEMES, **OTHER_SCHEMES}) from None


@dataclass(frozen=True, slots=True)
class TSParams:
    """Costs and constants of the node, network and scheduler models.

    Attributes:
        context_switch: cost of a context switch for the MLFQ schemes (Table 3: 200 us).
        gs_context_switch: cost of a gang switch including synchronisation (Table 3: 2 ms).
        gs_quantum: gang-scheduling time quantum Q (Table 3: 200 ms).
        interrupt: cost of a NIC interrupt on the host (Table 3: 50 us).
        queue_move: cost of moving a process between priority queues (Table 3: 3 us).
        endpoint_check: cost of checking one endpoint (Table 3: 2 us); PB pays it for
            every process of the node every tick, SY on every yield.
        msg_size: message size in bytes (section 3.2: 4,096).
        latency_fixed: fixed part of the one-way latency (our choice: 0, so that the
            latency of 4,096 bytes is exactly the paper's 185.48 us).
        latency_per_byte: per-byte part (185.48 us / 4,096 bytes, Table 3).
        spin_factor: spin time = spin_factor x expected latency ("slightly higher",
            section 2.4.1; our choice 1.1).
        levels: MLFQ priority levels (section 2.3: 60).
        quantum_top: quantum of the top level (20 ms).
        quantum_bottom: quantum of level 0 (200 ms); levels between are linear.
        tick: scheduler (and PB) period (1 ms).
        raise_period: all processes return to the top level this often (1 s).
        fcs_spin: FCS's spin time before blocking, outside a CS slot (T_spin, Table 2
            of the FCS paper: 120 us).
        fcs_cslots_min: slots in a class before a process is re-evaluated (20).
        fcs_cs_thresh: granularity below which a process is CS (2 ms).
        fcs_dc_thresh: granularity above which a process is DC (1 s).
        fcs_f_factor: F_thresh = fcs_f_factor x fcs_cs_thresh, the compute per
            communication below which a slow communicator is F (0.85).
        fcs_tslots_max: assigned slots after which a process is reset to CS (32,768).
        fcs_classify: CPU cost of classifying one process at the end of its slot (the
            paper gives none: 0 by default); charged as an interrupt (the node manager).
        fcs_nm: CPU cost of the node manager's handling of one heartbeat on a node
            (none given: 0 by default); charged as an interrupt.
        fcs_f_preempt: 1 (default): the active slot's F process, when it wakes between
            heartbeats, preempts the running process at the next tick; 0: it is only
            chosen first when the CPU frees (and preempts by the MLFQ's rule, a higher
            level), the node manager prioritising it at the heartbeat alone (Algorithm
            1 says "prioritize it over all other processes", not when).
        fcs_slot_clock: what counts FCS's cslots and tslots, one of
            :data:`FCS_SLOT_CLOCKS`: ``assigned`` (the default) counts the end of each of
            a process's own assigned slots, when Algorithm 2 then runs for it;
            ``heartbeat`` counts every heartbeat and runs Algorithm 2 for every live
            process of the machine at every heartbeat.
        fcs_tcomm: what FCS's T_comm counts, one of :data:`FCS_TCOMM`: ``wall`` (the
            default) or ``running`` (spin, poll and blocked time only).
        fcs_cs_local: 0 (default): a CS process runs only in its own slot; 1: the local
            scheduler may also run it in a DC slot or a slot with no live process on the
            PE, never in an F slot (Algorithm 1, "let local OS scheduler schedule all
            processes"; section 2.2, "CS processes are no longer allowed to run in the F
            slots").
        fcs_f_all: 0 (default): the local scheduler favours the active slot's F
            process only; 1: it favours every F process over the DC ones in every local
            slot, the active slot's F first, then the F process queued first, and with
            ``fcs_f_preempt`` a woken F process preempts a running non-F one (section
            2.2: "The local scheduler's decision in choosing among processes in the DC
            time slots and F gaps is affected by the communication characterization of
            processes, which could lead to less-blocking processes").
        local: the node's local scheduler, one of :data:`LOCAL_SCHEDULERS` (``mlfq``,
            the default; ``linux24`` for Linux 2.4's). Gang scheduling (GS, and FCFS as
            its one-row matrix) has no local scheduler and is the same under both.
        linux_hz: ``linux24``'s timer frequency HZ: a tick every ``1 / linux_hz`` s
            charges the running process one tick of its counter, and a new epoch gives
            every process ``NICE_TO_TICKS(0) = TICK_SCALE(20) + 1`` ticks (21 below HZ
            200 ... 81 from HZ 1600; :meth:`linux_slice_ticks`). Default 4096: the FCS
            paper, section 2.6, "we increased the HZ value to 4096" (1024, the Alpha
            default, is "~1 ms").
        linux_smp: ``linux24`` on SMP nodes: the number of consecutive PEs (kernel rows)
            that form one node and share one run queue and one epoch, so that any of
            them runs any of the node's processes (Linux 2.4's one ``runqueue_head``;
            the FCS paper's Wolverine nodes are 4-way). 1 (default): one queue per PE,
            the processes bound to their PEs. The machine's PEs must be a multiple.
        linux_change_penalty: ``linux24`` with ``linux_smp`` > 1: PROC_CHANGE_PENALTY,
            the goodness a process gains on the PE it ran on last (20 in Linux's
            include/asm-alpha/smp.h; 15 on i386).
        linux_wake_preempt: ``linux24`` with ``linux_smp`` > 1: 1, a woken (or
            preempted) process that finds no idle PE preempts the PE of its node where
            its goodness beats the runner's by the most (kernel/sched.c's
            ``reschedule_idle()`` as written); 0 (default), never: the kernel the FCS
            paper's Alpha nodes ran, 2.4.18 built for Alpha, whose ``cycles_t`` is 32
            bits, so that ``oldest_idle == -1ULL`` is always false and the busy PEs
            are never compared (reported on linux-kernel in July 2003 on a 4-way ES40
            running 2.4.18, fixed in 2.4.22). One queue per PE keeps the
            uniprocessor rule (a woken process with the higher goodness preempts).
        linux_random_counter: ``linux24``: 0 (default), every process starts with a
            full counter (NICE_TO_TICKS); 1, with one drawn uniformly from 1 ..
            NICE_TO_TICKS from its job's seed and its rank (a forked child takes half
            its parent's counter, and the launcher's is whatever it has left), so that
            the nodes' epochs do not start in step.
        noise_period: OS noise, a named reading: every PE runs a
            daemon that takes its CPU for ``noise_duration`` every ``noise_period``
            seconds, at a phase of its own drawn from the run's generator (uniform in
            ``[0, noise_period)``), charged as an interrupt under every scheme (the FCS
            paper blames SB's losses on "noise created by system daemons", section 3).
            0 (default): no noise.
        noise_duration: the CPU time the daemon takes at each hit; < ``noise_period``,
            and 0 when ``noise_period`` is 0.
        wake_cost: a named reading: the CPU time a wake-up from a block costs beyond
            the NIC's ``interrupt`` (the kernel's wake-up path and the cache refill of
            a process that slept while others ran), charged as an interrupt on the
            woken process's PE at each wake-up by a message (SB, DCS-SB, PB-SB and
            FCS outside CS slots). 0 (default): neither paper gives such a cost, and
            the dynamic coscheduling paper's simulation models only "blocking/
            unblocking a process, context switches ... and interrupt processing".
        nic_bandwidth: contention at the network interface, a named reading (bytes/s;
            0, the default: none, every message takes one latency). The ``nic_pes``
            PEs of an interface share it: a message holds the sending side for
            ``msg_size / nic_bandwidth`` from when it is free, reaches the receiving
            interface one latency after it started, and is deposited into the endpoint
            after the receiving side's last deposit and as long again, so that more
            processes per node slow communication. :data:`LINEAR_NIC_BANDWIDTH` is the
            dynamic coscheduling paper's, :data:`FCS_NIC_BANDWIDTH` the FCS paper's.
            The occupancy must not exceed one latency.
        nic_pes: the PEs (kernel rows) that share one network interface (1, the
            default: one per PE); a message between two PEs of one interface does not
            cross it. Must divide the machine's PEs.
        io_holds_cpu: a named reading of an iteration's I/O. 0 (the default): the
            process gives up the CPU for its I/O (the state IO, off the CPU, another
            process may run) and, under the local schedulers, comes back boosted when it
            completes. The dynamic coscheduling paper's text decides it: the MLFQ boosts a
            process "when they return to the runnable state from the blocked state
            (completion of I/O, signal on a semaphore etc.)" (its lines 314-315), its GS
            "keeps the CPU idle while a process is performing I/O within its allotted
            quantum" (lines 111-112) and "the amount of time in the quantum that is
            wasted due to blocking (for I/O)" (lines 1244-1245). 1: the I/O holds the
            CPU for its duration (programmed I/O, or a wait that never blocks): a phase
            like compute, preemptible by quantum and priority as one, counted apart
            (``io_cpu`` in ``TSResult.nodes``), so no other process runs meanwhile and
            no switch follows it.

        fcs_comm_cost: a named reading: the CPU time an FCS process's monitoring costs
            per synchronous communication event, charged as an interrupt on its PE when
            the event completes (the receives from both neighbours, the event Algorithm
            2's C_comm counts). The FCS paper's monitoring layer notes "the start and
            end of each synchronous operation" and "entering and exiting a blocking
            state" (its line 204) and gives its accuracy, not its cost; its section 4
            names the cost ("FCS suffers from relatively high reclassification overhead,
            because of the high number of communication events", line 320; "the added
            overhead of process classification", line 244). 0 (default): the paper
            gives no figure. Other schemes never pay it.

    FCS's time slice (T_slice, 100 ms in the FCS paper) and global switch cost are
    ``gs_quantum`` and ``gs_context_switch``: its machine manager is GS's.
    """

    context_switch: float = 200e-6
    gs_context_switch: float = 2e-3
    gs_quantum: float = 0.2
    interrupt: float = 50e-6
    queue_move: float = 3e-6
    endpoint_check: float = 2e-6
    msg_size: float = 4096.0
    latency_fixed: float = 0.0
    latency_per_byte: float = 185.48e-6 / 4096.0
    spin_factor: float = 1.1
    levels: int = 60
    quantum_top: float = 0.02
    quantum_bottom: float = 0.2
    tick: float = 1e-3
    raise_period: float = 1.0
    fcs_spin: float = 120e-6
    fcs_cslots_min: float = 20
    fcs_cs_thresh: float = 2e-3
    fcs_dc_thresh: float = 1.0
    fcs_f_factor: float = 0.85
    fcs_tslots_max: float = 32768
    fcs_classify: float = 0.0
    fcs_nm: float = 0.0
    fcs_f_preempt: float = 1
    fcs_slot_clock: str = "assigned"
    fcs_tcomm: str = "wall"
    fcs_cs_local: float = 0
    fcs_f_all: float = 0
    local: str = "mlfq"
    linux_hz: float = 4096
    linux_smp: float = 1
    linux_change_penalty: float = 20
    linux_wake_preempt: float = 0
    linux_random_counter: float = 0
    noise_period: float = 0.0
    noise_duration: float = 0.0
    wake_cost: float = 0.0
    nic_bandwidth: float = 0.0
    nic_pes: float = 1
    io_holds_cpu: float = 0
    fcs_comm_cost: float = 0.0

    def __post_init__(self) -> None:
        if self.local not in LOCAL_SCHEDULERS:
            raise UnknownNameError("local scheduler", str(self.local), LOCAL_SCHEDULERS)
        if self.fcs_slot_clock not in FCS_SLOT_CLOCKS:
            raise UnknownNameError("FCS slot clock", str(self.fcs_slot_clock), FCS_SLOT_CLOCKS)
        if self.fcs_tcomm not in FCS_TCOMM:
            raise UnknownNameError("FCS T_comm reading", str(self.fcs_tcomm), FCS_TCOMM)
        for f in fields(self):
            if f.name in ("local", "fcs_slot_clock", "fcs_tcomm"):
                continue
            v = getattr(self, f.name)
            if not isinstance(v, int | float) or not math.isfinite(v):
                raise ConfigError(f"{f.name} must be a finite number (got {v!r})")
            positive = f.name not in _MAY_BE_ZERO
            if v < 0 or (positive and v == 0):
                need = "> 0" if positive else ">= 0"
                raise ConfigError(f"{f.name} must be {need} (got {v!r})")
        if self.levels < 2 or int(self.levels) != self.levels:
            raise ConfigError(f"levels must be an integer >= 2 (got {self.levels!r})")
        for name in ("fcs_cslots_min", "fcs_tslots_max"):
            v = getattr(self, name)
            if int(v) != v or (name == "fcs_tslots_max" and v < 1):
                raise ConfigError(f"{name} must be an integer (>= 1 for tslots) (got {v!r})")
        for name in ("linux_hz", "linux_smp", "linux_change_penalty"):
            v = getattr(self, name)
            if int(v) != v:
                raise ConfigError(f"{name} must be an integer (got {v!r})")
        if self.linux_wake_preempt not in (0, 1):
            raise ConfigError(
                f"linux_wake_preempt must be 0 or 1 (got {self.linux_wake_preempt!r})"
            )
        if self.linux_smp > 1 and self.local != "linux24":
            raise ConfigError(
                f"linux_smp > 1 (got {self.linux_smp!r}) is Linux 2.4's run queue: it "
                "needs local='linux24'"
            )
        if self.linux_random_counter == 1 and self.local != "linux24":
            raise ConfigError(
                "linux_random_counter=1 draws Linux 2.4's starting counters: it needs "
                "local='linux24'"
            )
        for name in ("fcs_f_preempt", "fcs_cs_local", "fcs_f_all", "linux_random_counter",
                     "io_holds_cpu"):  # fmt: skip
            if getattr(self, name) not in (0, 1):
                raise ConfigError(f"{name} must be 0 or 1 (got {getattr(self, name)!r})")
        if self.noise_period == 0 and self.noise_duration != 0:
            raise ConfigError(
                f"noise_duration must be 0 without noise (noise_period 0; got "
                f"{self.noise_duration!r})"
            )
        if self.noise_period > 0 and self.noise_duration >= self.noise_period:
            raise ConfigError(
                f"noise_duration must be < noise_period {self.noise_period!r} (got "
                f"{self.noise_duration!r})"
            )
        if int(self.nic_pes) != self.nic_pes:
            raise ConfigError(f"nic_pes must be an integer >= 1 (got {self.nic_pes!r})")
        if self.nic_bandwidth > 0 and self.nic_occupancy > self.latency * (1 + 1e-12):
            raise ConfigError(
                f"nic_bandwidth {self.nic_bandwidth!r} B/s holds the interface "
                f"{self.nic_occupancy:g} s per message, more than the one-way latency "
                f"{self.latency:g} s"
            )
        if self.spin_factor < 1.0:
            raise ConfigError(f"spin_factor must be >= 1 (got {self.spin_factor!r})")
        if self.latency <= 0:
            raise ConfigError("latency_fixed + latency_per_byte * msg_size must be > 0")

    @property
    def latency(self) -> float:
        """One-way latency of one message (linear in its size)."""
        return self.latency_fixed + self.latency_per_byte * self.msg_size

    @property
    def nic_occupancy(self) -> float:
        """How long one message holds a network interface (0: no contention)."""
        return self.msg_size / self.nic_bandwidth if self.nic_bandwidth > 0 else 0.0

    def linux_slice_ticks(self) -> int:
        """Linux 2.4's ``NICE_TO_TICKS(0)`` at ``linux_hz``: ``TICK_SCALE(20) + 1``, where
        ``TICK_SCALE`` shifts right by 2 below HZ 200, by 1 below 400, not below 800,
        left by 1 below 1600 and by 2 above (kernel/sched.c of 2.4.18)."""
        hz = self.linux_hz
        shift = -2 if hz < 200 else -1 if hz < 400 else 0 if hz < 800 else 1 if hz < 1600 else 2
        return (20 << shift if shift >= 0 else 20 >> -shift) + 1

    def check_scheme(self, flags: SchemeFlags) -> None:
        """Refuse a scheme whose mechanism the local scheduler cannot express.

        Raises:
            ConfigError: ``local`` is ``linux24`` and the scheme boosts or yields by
                the MLFQ's levels (DCS, PB, SY and their combinations).
        """
        mlfq_only = flags.arrival in _MLFQ_ONLY_ARRIVAL or flags.wait == "yield"
        if self.local == "linux24" and mlfq_only:
            raise ConfigError(
                "local='linux24' runs Local, SB, GS and FCS only: DCS, PB and SY move "
                "processes between the MLFQ's levels"
            )

    def quantum(self, level: int) -> float:
        """Time slice of a priority level (top level gets ``quantum_top``)."""
        top = self.levels - 1
        return self.quantum_bottom + (self.quantum_top - self.quantum_bottom) * level / top

    def quanta(self) -> list[float]:
        """Time slice of every level, level 0 first (both engines read this list)."""
        return [self.quantum(lv) for lv in range(int(self.levels))]

    def spin_budget(self, wait: str, fcs: bool = False) -> float:
        """How long a receive spins before it blocks or yields (forever for ``spin``;
        ``fcs_spin`` under FCS)."""
        if fcs:
            return self.fcs_spin
        return math.inf if wait == "spin" else self.spin_factor * self.latency

    def with_(self, **changes: Any) -> TSParams:
        """A copy with some fields changed; unknown names raise UnknownNameError."""
        known = {f.name for f in fields(self)}
        for k in changes:
            if k not in known:
                raise UnknownNameError("time-sharing parameter", k, known)
        return replace(self, **changes)
