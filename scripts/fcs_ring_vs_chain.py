"""FCS section 3: each job's end time with its ranks on a ring and on a chain.

The paper's building block communicates "in a nearest-neighbor, ring pattern" (section
3); cosched's jobs are rings, and this compares them with chains (the end ranks have one
neighbour). This
prints the four scenarios under the four schemes with the full spec's parameters:

    python scripts/fcs_ring_vs_chain.py
"""

from __future__ import annotations

from cosched.timesharing.fcs_experiment import run_cell

#: The full spec's parameters (cosched/experiments/specs/fcs.toml).
BASE = {"nodes": 8, "job_time": 60.0, "grain": 0.001, "quantum": 0.1, "cslots_min": 20,
        "f_preempt": 0}  # fmt: skip


def main() -> None:
    for scen in ("balanced", "imbalanced", "complementing", "mixed"):
        for scheme in ("FCFS", "GS", "SB", "FCS"):
            out = []
            for topo in ("chain", "ring"):
                cell = {**BASE, "scenario": scen, "scheme": scheme, "topology": topo}
                r = run_cell(cell, 20031110, None)  # type: ignore[arg-type]
                ends = " ".join(f"{r[f'job{k}_end']:.1f}" for k in (1, 2, 3))
                out.append(f"{topo}: {ends} T={r['turnaround']:.1f}")
            print(scen, scheme, " | ".join(out), flush=True)


if __name__ == "__main__":
    main()
