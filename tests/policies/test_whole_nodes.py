"""Whole-node baselines where the site allocates nodes exclusively.

The hand case: 2 nodes of 4 cores, three jobs of 2 processors each submitted at 0 and
running 100 s, under FCFS. On a pool of 8 processors all three fit at once (6 of 8):
every wait is 0. With whole nodes each job takes a node of its own: two start at 0,
the third waits for the first to end, at 100 s (mean wait 100 / 3 s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cosched.api import simulate
from cosched.cli.main import main
from cosched.compare.study import plan
from cosched.platform import Allocation, Platform
from cosched.policies import policy_class
from cosched.policies.requirements import MachineFlags, Requirements, build_platform
from cosched.workload.sources import open_workload

JOBS = [f"{i} 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1" for i in (1, 2, 3)]


def _trace(tmp_path: Path, *header: str) -> Path:
    path = tmp_path / "site.swf"
    lines = ["; MaxNodes: 2", "; MaxProcs: 8", *header, *JOBS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _waits(path: Path, flags: MachineFlags) -> tuple[Platform, list[float]]:
    w = open_workload(str(path))
    platform, _ = build_platform(Requirements(), flags, w)
    jobs = simulate(w, platform, "fcfs").jobs
    return platform, list(jobs["start_time"] - jobs["submit_time"])


def test_the_header_or_the_flag_gives_the_baselines_whole_nodes(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    pool = _trace(tmp_path / "a")
    (tmp_path / "b").mkdir()
    exclusive = _trace(tmp_path / "b", "; NodeAllocation: exclusive")
    # A pool of processors, as before: 8 single-core nodes, nobody waits.
    platform, waits = _waits(pool, MachineFlags())
    assert platform == Platform(8, 1, Allocation.CORES)
    assert waits == [0, 0, 0]
    # The header says the site gives whole nodes: the third job waits 100 s.
    platform, waits = _waits(exclusive, MachineFlags())
    assert platform == Platform(2, 4, Allocation.NODES)
    assert waits == [0, 0, 100]
    assert np.mean(waits) == pytest.approx(100 / 3)
    # The operator's flag says so for a header that does not, or overrides one that does.
    assert _waits(pool, MachineFlags(exclusive=True)) == (Platform(2, 4, Allocation.NODES),
                                                          [0, 0, 100])  # fmt: skip
    assert _waits(exclusive, MachineFlags(exclusive=False))[1] == [0, 0, 0]


def test_families_with_a_node_shape_of_their_own_keep_it(tmp_path: Path) -> None:
    # Node sharing places jobs on nodes by its own rules; LOMARC's nodes are single
    # processors: the site's exclusivity is what they are compared against, not imposed.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    pool = open_workload(str(_trace(tmp_path / "a")))
    exclusive = open_workload(str(_trace(tmp_path / "b", "; NodeAllocation: exclusive")))
    for name in ("nodeshare-easy", "lomarc", "gang"):
        req = policy_class(name).requires
        assert (
            build_platform(req, MachineFlags(), exclusive)[0]
            == (build_platform(req, MachineFlags(), pool)[0])
        )


def test_import_records_it_and_compare_states_it(tmp_path: Path) -> None:
    sacct = Path(__file__).parents[1] / "workload" / "fixtures" / "sacct_cases.txt"
    swf = tmp_path / "site.swf"
    args = ["trace", "import", "slurm", str(sacct), "-o", str(swf), "--nodes", "4", "--cores", "32"]
    assert main([*args, "--exclusive"]) == 0
    w = open_workload(str(swf))
    assert w.header["NodeAllocation"].startswith("exclusive")
    platform, notes = build_platform(policy_class("easy").requires, MachineFlags(), w)
    assert platform == Platform(4, 32, Allocation.NODES)
    assert any(n.startswith("whole nodes to each job (the trace header's") for n in notes)
    where = {"kind": "swf", "path": str(swf), "name": "site"}
    c = plan(where, policies=["easy"], seeds=1, flags=None, probe=w)
    assert any(
        n.startswith("whole nodes: the baselines give each job whole nodes") for n in c.notes
    )
