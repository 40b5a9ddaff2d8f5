"""A compare plan of one seed, no robustness sweeps or control runs, EASY as the
baseline, under a fitted baseline's site rules: the set-up of the tests of the fitted
rules on compare's arms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cosched.compare.study import Comparison, plan
from cosched.workload.sources import open_workload


def site_plan(path: Path, name: str, policies: list[str], site: dict[str, Any]) -> Comparison:
    """The plan of ``policies`` on the SWF log at ``path`` under ``site``."""
    return plan(
        {"kind": "swf", "path": str(path), "name": name},
        policies=policies,
        seeds=1,
        flags=None,
        probe=open_workload(str(path)),
        robustness=False,
        controls=False,
        baseline="easy",
        site=site,
    )
