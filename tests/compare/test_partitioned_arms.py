"""``compare --baseline fitted``: the fitted partitions on every arm whose machine can be
cut into them (:func:`cosched.compare.site.with_site`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosched.cli.compare import _site
from cosched.compare.site import with_site
from cosched.compare.study import Arm, build_report, load_store, run
from cosched.errors import ConfigError
from cosched.workload.sources import open_workload
from tests.compare.site_plan import site_plan

#: Partition 1 (SWF field 16) of 2 processors, partition 2 of 2.
PARTS = [[1.0, 2], [2.0, 2]]


def _log(tmp_path: Path) -> Path:
    """4 single-core nodes; three 2-processor jobs of 100 s in partition 1 and one
    1-processor job of 100 s in partition 2, all submitted at 0 s."""
    lines = ["; MaxNodes: 4", "; MaxProcs: 4"]
    for k, (procs, part) in enumerate(((2, 1), (2, 1), (2, 1), (1, 2))):
        lines.append(f"{k + 1} 0 -1 100 {procs} -1 -1 {procs} 100 -1 1 1 1 -1 1 {part} -1 -1")
    path = tmp_path / "parts.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_arm_runs_each_partition_on_its_own_nodes(tmp_path: Path) -> None:
    path = _log(tmp_path)
    comparison = site_plan(path, "parts", ["easy", "gang"], {"partitions": PARTS})
    by = {a.label: a for a in comparison.arms}
    assert by["easy"].machine == {"partitions": PARTS}
    assert by["gang"].machine == {"partitions": PARTS}
    assert any(n.startswith("fitted partitions: 2 partitions") for n in comparison.notes)
    (tmp_path / "out").mkdir()
    run(comparison, tmp_path / "out")
    _, _, jobs = load_store(tmp_path / "out")
    easy = jobs["easy"][0].sort_values("job_id")
    # Partition 1's jobs one after another on its 2 nodes, partition 2's job at once: on
    # one pool of 4 nodes jobs 1 and 2 would start together.
    assert easy["job_id"].tolist() == [1, 2, 3, 4]
    assert easy["start_time"].tolist() == [0.0, 100.0, 200.0, 0.0]
    gang = jobs["gang"][0]
    assert sorted(gang["job_id"].tolist()) == [1, 2, 3, 4]  # every job once
    build_report(tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text()
    assert "- `easy` on 4 nodes x 1 core (cores), in the fitted partitions (2)" in text


def test_an_arm_whose_machine_cannot_be_cut_is_named_with_why(tmp_path: Path) -> None:
    path = _log(tmp_path)
    arms = [Arm("easy", "easy"), Arm("easy on 4-core nodes", "easy", machine={"cores": 4})]
    out, notes = with_site(arms, {"partitions": PARTS}, None, open_workload(str(path)))
    assert out[0].machine == {"partitions": PARTS}
    assert "partitions" not in out[1].machine
    said = [n for n in notes if "without the fitted partitions" in n]
    assert len(said) == 1 and said[0].startswith("the fit: easy on 4-core nodes run on one")
    assert "2 processors is not whole nodes of its 4 cores" in said[0]


def test_outages_and_partitions_are_not_carried_together() -> None:
    with pytest.raises(ConfigError, match="outages or partitions, not both"):
        with_site([Arm("easy", "easy")], {"partitions": PARTS, "unavailable": [[0, 1, 1]]})


def test_the_site_of_a_fitted_baseline_carries_its_partitions() -> None:
    assert _site("easy(order=submit)", (), ((1.0, 32), (2.0, 16))) == {
        "partitions": [[1.0, 32], [2.0, 16]]
    }
