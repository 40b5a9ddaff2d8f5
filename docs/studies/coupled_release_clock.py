"""Hold-hold deadlocks on small random cases under each reading of the periodic release.

200 cases (seeded): two machines of 10 units, 20 jobs each of 2 to 8 units, run times of
60 to 3,600 s, arrivals uniform over 6 hours, 60% of the jobs paired (the i-th drawn job
of one machine with the i-th of the other: ``pair_workloads``' proportion mode), EASY by
submit order on both. Counts the runs that end in a coscheduling deadlock (a Markdown
table): hold-hold without release, with release every 1,200 s on each job's own clock
and on the machine's clock, and hold-yield and yield-yield on the machine's clock.

    python docs/studies/coupled_release_clock.py
"""

from __future__ import annotations

import numpy as np

from cosched.coupled import CoupledDeadlockError, Domain, run_coupled
from cosched.platform import Platform
from cosched.policies.easy import EasyBackfilling
from cosched.workload.job import Workload
from cosched.workload.profiles.coupled import pair_workloads

CASES = 200
SEED = 20110913
#: (label, schemes A and B, release period, release clock)
SETTINGS = (
    ("HH, no release", ("hold", "hold"), None, "machine"),
    ("HH, each job's clock", ("hold", "hold"), 1200.0, "job"),
    ("HH, the machine's clock", ("hold", "hold"), 1200.0, "machine"),
    ("HY, the machine's clock", ("hold", "yield"), 1200.0, "machine"),
    ("YY, the machine's clock", ("yield", "yield"), 1200.0, "machine"),
)


def jobs(rng: np.random.Generator) -> Workload:
    submit = np.sort(rng.uniform(0.0, 6 * 3600.0, 20)).round()
    run = rng.integers(60, 3601, 20).astype(float)
    size = rng.integers(2, 9, 20)
    return Workload.from_jobs(list(zip(submit.tolist(), size.tolist(), run.tolist(), strict=True)))


def main() -> None:
    root = np.random.SeedSequence(SEED)
    cases = []
    for child in root.spawn(CASES):
        rng = np.random.default_rng(child)
        cases.append(pair_workloads(jobs(rng), jobs(rng), rng=rng, proportion=0.6))
    print("| setting | cases | deadlocked |")
    print("|---|---|---|")
    for label, schemes, period, clock in SETTINGS:
        stuck = 0
        for wa, wb in cases:
            doms = [
                Domain(
                    name,
                    w,
                    Platform.of_procs(10),
                    scheme=scheme,  # type: ignore[arg-type]
                    local=EasyBackfilling(),
                    release_period=period,
                    release_clock=clock,  # type: ignore[arg-type]
                )
                for name, w, scheme in (("A", wa, schemes[0]), ("B", wb, schemes[1]))
            ]
            try:
                run_coupled(doms)
            except CoupledDeadlockError:
                stuck += 1
        print(f"| {label} | {CASES} | {stuck} |")


if __name__ == "__main__":
    main()
