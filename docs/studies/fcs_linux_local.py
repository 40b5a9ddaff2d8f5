"""FCS sections 3 and 4 under the two local schedulers.

The FCS paper's nodes ran Red Hat Linux 7.3 (kernel 2.4), whose scheduler favours
processes that sleep often (a new epoch gives a sleeper counter / 2 + NICE_TO_TICKS, and
a woken process preempts when its goodness is higher). This script runs the FCS
reproduction's scenarios under SB and FCS (GS and FCFS have no local scheduler) with
the model's default 60-level MLFQ and with ``local = "linux24"`` at several HZ, and
prints each job's end time (s) beside the paper's, then per scheme, section and local
scheduler the mean over jobs of |ln(cosched / paper)| (section 4: the turnaround), and
over all of them ("all").
``--smp`` adds Linux with one run queue per node of that many PEs (the paper's
nodes are 4-way), ``--wake-preempt`` its reschedule_idle readings (0: 2.4.18 built for
Alpha, a woken process never preempts a busy PE; 1: as written):

    python docs/studies/fcs_linux_local.py [--hz 4096 1024 100] [--smp 1 4]
        [--wake-preempt 0 1] [--scenarios ...]
        [--reading slot_clock=heartbeat,tcomm=running ...]

``--reading`` (repeatable) runs each configuration under each reading given, a list of
the fcs cell's parameters (FCS's classification: ``slot_clock``, ``tcomm``, ``cs_local``;
none: the spec's defaults; ``noise_period``, ``noise_duration``, OS noise under every
scheme; ``block=4``, the imbalance on alternating four-way nodes, and ``f_all=1``, every
F process favoured in local slots; ``t_spin`` and
``latency`` in s, the spin of SB and FCS and the message latency, and
``random_counter=1``, Linux 2.4's processes starting with random counters; ``nodes``,
the PEs); SB ignores FCS's readings.
``--schemes SB GS FCS`` adds GS (no local scheduler: run it with ``--hz`` and no value,
the MLFQ row only).
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

from cosched.experiments.model import CellEnv
from cosched.timesharing.fcs_experiment import run_cell

#: The paper's end times (s) per scenario and scheme (sections 3.1-3.4 and 4).
PAPER = {
    ("balanced", "SB"): (126, 134),
    ("balanced", "FCS"): (125, 126),
    ("imbalanced", "SB"): (193, 194),
    ("imbalanced", "FCS"): (197, 197),
    ("complementing", "SB"): (144, 142, 244),
    ("complementing", "FCS"): (192, 193, 197),
    ("mixed", "SB"): (213, 214, 276),
    ("mixed", "FCS"): (252, 253, 155),
    ("sweep3d", "SB"): (275,),
    ("sweep3d", "FCS"): (244,),
    ("sage", "SB"): (276,),
    ("sage", "FCS"): (264,),
    ("sage+sweep3d", "SB"): (272,),
    ("sage+sweep3d", "FCS"): (235,),
    # GS (no local scheduler: the same under every --hz; used by the noise readings)
    ("balanced", "GS"): (124, 124),
    ("imbalanced", "GS"): (244, 245),
    ("complementing", "GS"): (185, 186, 308),
    ("mixed", "GS"): (185, 185, 305),
    ("sweep3d", "GS"): (232,),
    ("sage", "GS"): (261,),
    ("sage+sweep3d", "GS"): (245,),
}
SECTION3 = ("balanced", "imbalanced", "complementing", "mixed")
#: The FCS spec's parameters (cosched/experiments/specs/fcs.toml, full grid).
BASE = {"nodes": 8, "job_time": 60.0, "grain": 0.001, "quantum": 0.1, "cslots_min": 20,
        "f_preempt": 0, "topology": "ring"}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hz", type=int, nargs="*", default=[4096, 1024, 100])
    ap.add_argument("--scenarios", nargs="*", default=["balanced", "imbalanced",
                    "complementing", "mixed"])  # fmt: skip
    ap.add_argument("--schemes", nargs="*", default=["SB", "FCS"])
    ap.add_argument("--smp", type=int, nargs="*", default=[1],
                    help="PEs per Linux run queue (1: one queue per PE)")  # fmt: skip
    ap.add_argument("--wake-preempt", type=int, nargs="*", default=[0],
                    help="with --smp > 1: linux_wake_preempt values")  # fmt: skip
    ap.add_argument("--no-mlfq", action="store_true", help="skip the MLFQ runs")
    ap.add_argument("--reading", action="append", default=[])
    args = ap.parse_args()
    locals_: list[tuple[str, dict[str, int]]] = [] if args.no_mlfq else [("mlfq", {})]
    for hz in args.hz:
        for smp in args.smp:
            for wp in args.wake_preempt if smp > 1 else [0]:
                label = f"linux24 HZ {hz}" + (f" smp {smp} wp {wp}" if smp > 1 else "")
                extra = {"linux_hz": hz, "linux_smp": smp, "linux_wake_preempt": wp}
                locals_.append((label, extra))
    runs = [(lab, extra, text) for lab, extra in locals_ for text in args.reading or [""]]
    errors: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for scenario in args.scenarios:
        for scheme in args.schemes:
            for local_label, extra, text in runs:
                how = dict(part.split("=", 1) for part in filter(None, text.split(",")))
                params = {**BASE, "scenario": scenario, "scheme": scheme,
                          "local": "mlfq" if local_label == "mlfq" else "linux24",
                          **extra, **how}  # fmt: skip
                if scenario in ("sweep3d", "sage", "sage+sweep3d"):
                    params["quantum"] = 0.2
                out = run_cell(params, 20031110, CellEnv())
                ends = [round(out[f"job{k}_end"], 1) for k in (1, 2, 3)]
                ends = [e for e in ends if not math.isnan(e)]
                label = local_label + (f", {text}" if text else "")
                paper = PAPER.get((scenario, scheme), ())
                print(f"{scenario} | {scheme} | {label} | ends {ends} | turnaround "
                      f"{out['turnaround']:.1f} | paper {list(paper)}", flush=True)  # fmt: skip
                section = "3" if scenario in SECTION3 else "4"
                got = ends if len(paper) > 1 else [out["turnaround"]]
                err = [abs(math.log(g / p)) for g, p in zip(got, paper, strict=False)]
                errors[(scheme, section, label)] += err
                errors[("all", "3+4", label)] += err
    print("\nscheme | section | local | mean |ln(cosched / paper)| over jobs")
    for (scheme, section, label), e in sorted(errors.items()):
        print(f"{scheme} | {section} | {label} | {sum(e) / len(e):.3f}")


if __name__ == "__main__":
    main()
