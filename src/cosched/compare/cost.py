"""What a ``cosched compare`` will run and about how long it takes, before it runs.

:func:`cost` counts a comparison's runs (:class:`~cosched.compare.study.Comparison`), those
already stored, and their CPU time from each family's measured speed
(:func:`jobs_per_second`), and names the families whose compiled kernels are not built
yet; ``cosched compare`` prints it before it runs anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosched.compare.study import _arm_key, _cell_key, _later_efficiency_arms
from cosched.families import families
from cosched.policies.base import policy_class

if TYPE_CHECKING:
    from cosched.compare.study import Comparison
    from cosched.workload.job import Workload

__all__ = [
    "BATCH_JOBS_PER_SECOND",
    "REPORT_SECONDS",
    "RUN_OVERHEAD",
    "Cost",
    "cost",
    "jobs_per_second",
    "workload_jobs",
]

#: Jobs per CPU second of one run of a batch policy: the sweep's cell function
#: (annotation, simulation, summary) on the whole KTH-SP2 log (28,467 jobs, its 100
#: single-core nodes), ``time.process_time`` of the second cell in one process, on the
#: development machine (a 2-core VM): fcfs and EASY over 500,000, conservative 215,000,
#: rounded down. Each family declares its own (:attr:`Family.jobs_per_second
#: <cosched.families.Family.jobs_per_second>`). Drawing the report is not in it.
BATCH_JOBS_PER_SECOND = 200_000.0
#: CPU seconds of a run beyond its jobs (the store's files, the summary): EASY and
#: node sharing over the 300-job example through the sweep took 0.05-0.11 s a run.
RUN_OVERHEAD = 0.1
#: CPU seconds of drawing the report (and of the process's imports), about the same
#: for any trace: ``cosched report`` on the bundled example's comparison and on
#: KTH-SP2's took 15.2 and 15.5 s.
REPORT_SECONDS = 15.0


def jobs_per_second() -> dict[str, float]:
    """Jobs per CPU second of one run, by family: ``batch`` and each family that
    declares its speed."""
    declared = {f.name: f.jobs_per_second for f in families() if f.jobs_per_second}
    return {"batch": BATCH_JOBS_PER_SECOND, **declared}


#: How the plan names the runs of each arm role (main arms go by their family).
_ROLE_NAMES = {
    "robustness": "interference sweep",
    "efficiency": "switch-cost sweep up to",
    "mix": "job-type mixes",
    "reference": "recorded schedule",
    "control": "control runs",
}


@dataclass(frozen=True)
class Cost:
    """What a comparison will run.

    Attributes:
        runs: simulations in all.
        stored: those already in the store (a resumed comparison).
        todo: simulations still to do: the main arms by family (``nodeshare``), the
            others by what they are (``interference sweep``).
        cpu_seconds: estimated CPU time of those, from :func:`jobs_per_second` (the
            slowest for a family that declares none: a user's policy).
        compiling: families whose numba kernels are not cached yet.
        later_seconds: the part of ``cpu_seconds`` in gang's lower efficiencies, which
            run only while gang beats the best baseline (:func:`run`).
    """

    runs: int
    stored: int
    todo: dict[str, int]
    cpu_seconds: float
    compiling: list[str]
    later_seconds: float = 0.0


def cost(comparison: Comparison, out: Path, jobs: int) -> Cost:
    """The runs of ``comparison`` not yet in ``out/store``, and their estimated time on a
    trace of ``jobs`` jobs."""
    from cosched.experiments.store import Store
    from cosched.experiments.sweep import cells, spec_from_dict

    store = Store(out / "store") if (out / "store").is_dir() else None
    roles: dict[tuple[str, str, str, str], str] = {}
    for a in comparison.arms:  # a run shared by a main arm and a sweep counts as main
        roles.setdefault(_arm_key(comparison, a), a.role)
    later = {_arm_key(comparison, a) for a in _later_efficiency_arms(comparison)}
    runs = stored = 0
    todo: dict[str, int] = {}
    seconds = later_seconds = 0.0
    speeds = jobs_per_second()
    slowest = min(speeds.values())
    compiled: set[tuple[str, str]] = set()
    for s in comparison.specs():
        for c in cells(spec_from_dict(s, source="compare")):
            runs += 1
            if store is not None and store.done(c.key):
                stored += 1
                continue
            name = policy_class(c.policy).family
            compiled.add((name, c.policy))
            key = _cell_key(c)
            what = _ROLE_NAMES.get(roles.get(key) or "main", name)
            todo[what] = todo.get(what, 0) + 1
            one = RUN_OVERHEAD + jobs / speeds.get(name, slowest)
            seconds += one
            if key in later:
                later_seconds += one
    compiling = sorted({f for f, p in compiled if _compiles(p)})
    return Cost(runs, stored, todo, seconds, compiling, later_seconds)


def _compiles(policy: str) -> bool:
    """Whether the policy's first run compiles: its compiled pass's loop, or a group of
    kernels compiled ahead of time that the pass calls, is not built yet."""
    from cosched.engine import aot

    spec = policy_class(policy).compiled_pass()
    return spec is not None and bool(aot.unbuilt(spec))


def workload_jobs(workload: dict[str, Any], probe: Workload | None) -> int:
    """Jobs in the comparison's trace (the loaded probe, else the generator's count)."""
    if probe is not None:
        return len(probe)
    return int(workload.get("jobs") or 0)
