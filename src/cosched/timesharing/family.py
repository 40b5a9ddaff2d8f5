"""Time sharing, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from cosched.families import Family, Reading

__all__ = ["FAMILY"]

_NIC = (
    "NIC contention at the dynamic coscheduling paper's interface: its section 3.1's "
    "'simple linear model for the network ... though the contention at the interface is "
    "modeled' with Table 3's 4,096-byte message in 185.48 us, the whole latency the "
    "bytes' time through the interface (22.1 MB/s; cosched.timesharing.params."
    "LINEAR_NIC_BANDWIDTH)"
)
_NO_NIC = (
    "No contention at the network interface (every message one latency, whatever else "
    "its node sends): the reading the paper's text does not take. Its simulator models "
    "'the contention at the interface' (its lines 549-553), so the reproduction's spec "
    "runs with it (nic_bandwidth=22083244, Table 3's 4,096 bytes in 185.48 us); off, to "
    "measure what it moves"
)
_FCS_NIC = (
    "NIC contention at the FCS paper's interface: 'two independent 32 MHz/64-bit PCI "
    "buses, two Quadrics QM-400 Elan3 NIC' per four-way node (its line 227): 32 MHz x 8 "
    "bytes = 256 MB/s per NIC, two PEs per NIC (cosched.timesharing.params."
    "FCS_NIC_BANDWIDTH)"
)
_IO = (
    "I/O that holds the CPU: the reading the paper's text does not take (its lines "
    "111-112, 314-315 and 1244-1245 have an iteration's I/O give up the CPU, the "
    "default), run to measure what the choice moves"
)

_COMPUTE = (
    "Figure 3's utilization read as the CPU seconds spent computing (compute_share), not "
    "the jobs' dedicated work done (the default, work_share): the reading the paper's "
    "numbers rule out, since GS spins in its receives (its lines 282-284) and idles "
    "through I/O (1067-1069), which caps its computing share at WL7's mean compute share, "
    "49.2% (Table 2), below its 57% (line 785); run to measure what the choice moves"
)
_LOAD_HALF = (
    "The cells the spec puts at load 1 (Figure 4, Tables 4 and 5, Figure 5) at offered "
    "load 0.5: the paper never gives their load, and load 1 (dedicated work equal to the "
    "machine) is past every ceiling of its Figure 3 (GS 57%, PB, PB-SB and SB 77%, lines "
    "785-788); 0.5 is below GS's, a value within what the text allows, not fitted"
)

FAMILY = Family(
    name="timesharing",
    papers={
        "dyncosched": "dynamic-coscheduling-cluster-simulation",
        "fcs": "flexible-coscheduling-fcs",
    },
    profiles={"dyncosched": "cosched.workload.profiles.dyncosched:annotate_dyncosched"},
    causes="cosched.timesharing.causes:CAUSES",
    calibrations="cosched.timesharing.calibrations:CALIBRATIONS",
    readings=(
        Reading("dyncosched-no-nic", "dyncosched", "nic_bandwidth=0", _NO_NIC),
        Reading(
            "dyncosched-io-no-nic",
            "dyncosched",
            "nic_bandwidth=0,io_holds_cpu=1",
            f"both: {_NO_NIC}; and {_IO}",
        ),
        Reading("fcs-nic", "fcs", "nic_bandwidth=256e6,nic_pes=2", _FCS_NIC),
        Reading(
            "dyncosched-nic-io",
            "dyncosched",
            "nic_bandwidth=22083244,io_holds_cpu=1",
            f"both: {_NIC} (the reproduction's default); and {_IO}",
        ),
        Reading("dyncosched-compute", "dyncosched", "useful=compute", _COMPUTE),
        Reading("dyncosched-load-half", "dyncosched", "load_scale=0.5", _LOAD_HALF),
    ),
)
