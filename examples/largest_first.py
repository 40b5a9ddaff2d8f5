"""A policy written by a newcomer in one file: the example of the README.

Run it: ``python examples/largest_first.py`` (prints the summary on the bundled trace).
"""

from __future__ import annotations

from dataclasses import dataclass

from cosched import simulate
from cosched.engine import Start, SystemView
from cosched.metrics import summarize
from cosched.platform import Platform
from cosched.policies import Policy
from cosched.workload import load_workload
from cosched.workload.sources import bundled_path


@dataclass(kw_only=True)
class LargestFirst(Policy):
    """Start the widest queued jobs that fit."""

    name = "largest-first"

    def schedule(self, view: SystemView) -> list[Start]:
        free, out = view.free, []
        for job in sorted(view.queue, key=lambda j: (-view.size(j), j.index)):
            if view.size(job) <= free:
                free -= view.size(job)
                out.append(Start(job))
        return out


def main() -> dict[str, float]:
    """Run the policy on the bundled example trace and return its summary."""
    w = load_workload(bundled_path())
    result = simulate(w, Platform.of_procs(64), "largest-first")
    return summarize(result.jobs, capacity=64)


if __name__ == "__main__":
    for key, value in main().items():
        print(f"{key:<24} {value:.4g}")
