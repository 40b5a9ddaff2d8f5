"""``cosched compare``'s report: a figure never costs the report, the Gantt chart draws
every kind of machine, and the report's wording and tables.

The lanes are worked out by hand on jobs that share processors the way each family
shares them: a LOMARC pair (two jobs on one single-core node's two slots), a gang
matrix's two rows (two jobs on the same processors in different time slots) and node
sharing (two jobs on the cores of one node).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.compare import figures
from cosched.compare.document import Document
from cosched.compare.gantt import lanes, machine_of
from cosched.compare.render import FigureWarning, _mix_section, write_report
from cosched.compare.study import Arm, Comparison
from cosched.metrics.summary import JobClasses
from cosched.platform import Allocation, Platform
from tests.passes import KTH, NEEDS_KTH

LOMARC = "2 nodes x 1 core (nodes, mpl 2, at most 2 jobs a node)"
GANG = "1 nodes x 2 cores (cores, mpl 2)"
EASY = "2 nodes x 1 core (cores)"


def _jobs(rows: list[tuple[float, float, int, float | None]]) -> pd.DataFrame:
    """Jobs ``(start, end, procs, occupancy)``, all submitted at 0."""
    table = pd.DataFrame(
        {
            "job_id": np.arange(1, len(rows) + 1),
            "submit_time": 0.0,
            "start_time": [float(r[0]) for r in rows],
            "end_time": [float(r[1]) for r in rows],
            "procs": [r[2] for r in rows],
            "size": [r[2] for r in rows],
            "run_time": [float(r[1] - r[0]) for r in rows],
            "requested_time": [float(r[1] - r[0]) for r in rows],
        }
    )
    if rows and rows[0][3] is not None:
        table["occupancy"] = [float(r[3] or 0.0) for r in rows]
    return table


# -- the lanes: the crash class, by hand --------------------------------------------------


def test_machine_descriptions_read_back() -> None:
    for p in (
        Platform(2, 1, Allocation.NODES, mpl=2, max_jobs_per_node=2),
        Platform(16, 4, Allocation.CORES, mpl=2),
        Platform(64, 1),
    ):
        assert machine_of(p.describe()) == p


def test_lomarc_pairs_take_both_slots_of_a_processor() -> None:
    # Two single-core nodes with two slots each (LOMARC's machine). A (2 processors, one
    # slot on each node: occupancy 2 x 1/2 = 1 node) runs 0-100; B and C (1 processor,
    # occupancy 1/2 each) are paired with it, B from 10 to 50 and C from 20 to 60: all
    # four slots in use, three jobs on two processors. A count of whole processors
    # cannot hold them (the report was lost on "needs 1, 0 free").
    jobs = _jobs([(0, 100, 2, 1.0), (10, 50, 1, 0.5), (20, 60, 1, 0.5)])
    got = lanes(jobs, machine_of(LOMARC), (0.0, 100.0))
    # A: slot 1 of processors 0 and 1 (lanes 0, 1); B and C: slot 2 of processors 0
    # and 1 (lanes 2 + 0 and 2 + 1).
    assert got.lanes == [[0, 1], [2], [3]]
    assert got.split == 0
    # Drawn in bands: slot 2 of each processor sits above the band of slot 1 (2 rows and
    # a gap of 2).
    assert [got.y(lane) for lane in (0, 1, 2, 3)] == [0, 1, 4, 5]


def test_a_gang_matrix_puts_jobs_on_the_same_processors_in_two_rows() -> None:
    # One node of 2 cores with 2 time slots (the matrix's rows): A and B each hold both
    # processors (2 slots; occupancy 2 / mpl 2 = 1 core's worth) from 0 to 100; C (one
    # processor) starts as they end.
    jobs = _jobs([(0, 100, 2, 1.0), (0, 100, 2, 1.0), (100, 150, 1, 0.5)])
    got = lanes(jobs, machine_of(GANG), (0.0, 200.0))
    assert got.lanes == [[0, 1], [2, 3], [0]]  # row 1, row 2, then row 1 again


def test_node_sharing_puts_two_jobs_on_one_nodes_cores() -> None:
    # Two nodes of 4 cores: A holds 2 cores (occupancy 0.5 node), B 6 cores: A on node
    # 0's cores 0-1, B on node 0's cores 2-3 and all of node 1.
    jobs = _jobs([(0, 10, 2, 0.5), (0, 10, 6, 1.5)])
    got = lanes(jobs, machine_of("2 nodes x 4 cores (nodes, at most 3 jobs a node)"), (0, 10))
    assert got.lanes == [[0, 1], [2, 3, 4, 5, 6, 7]]


def test_a_job_no_one_slot_has_room_for_is_spread_over_them() -> None:
    # LOMARC's machine. At 0: X (1 processor, to 10) takes processor 0's slot 1, V
    # processor 1's slot 1, Y (the first slots full) processor 0's slot 2. At 10 X ends:
    # free are processor 0's slot 1 and processor 1's slot 2, in no one slot both. Z
    # (2 processors) takes them: lanes 0 and 2 + 1 = 3, and is counted as split.
    jobs = _jobs([(0, 10, 1, 0.5), (0, 100, 1, 0.5), (0, 100, 1, 0.5), (10, 100, 2, 1.0)])
    got = lanes(jobs, machine_of(LOMARC), (0.0, 100.0))
    assert got.lanes == [[0], [1], [2], [0, 3]]
    assert got.split == 1


# -- a figure never costs the report ------------------------------------------------------


def _comparison(path: str = "/some/where/t.swf") -> Comparison:
    arms = [Arm("easy", "easy"), Arm("lomarc", "lomarc", random=True), Arm("gang", "gang")]
    return Comparison({"kind": "swf", "path": path, "name": "t"}, arms, seeds=1)


def _synthetic(tmp_path: Path) -> Path:
    """A report of three runs whose jobs share processors as LOMARC and gang do."""
    easy = _jobs([(0, 100, 2, None), (100, 150, 1, None), (100, 160, 1, None)])
    lomarc = _jobs([(0, 100, 2, 1.0), (10, 50, 1, 0.5), (20, 60, 1, 0.5)])
    gang = _jobs([(0, 100, 2, 1.0), (0, 100, 2, 1.0), (100, 140, 1, 0.5)])
    rows = []
    for arm, platform, turnaround, util in (
        ("easy", EASY, 125.0, 0.6),
        ("lomarc", LOMARC, 75.0, 0.3),
        ("gang", GANG, 100.0, 0.5),
    ):
        rows.append({"arm": arm, "policy": arm, "seed": 0, "platform": platform,
                     "mean_turnaround": turnaround, "mean_bounded_slowdown": 1.0,
                     "utilization": util})  # fmt: skip
    out = tmp_path / "out"
    out.mkdir()
    jobs = {"easy": [easy], "lomarc": [lomarc], "gang": [gang]}
    return write_report(out, _comparison(), pd.DataFrame(rows), jobs, classes=JobClasses())


def test_jobs_sharing_processors_get_a_gantt_chart(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)  # no figure may fail
        md = _synthetic(tmp_path)
    text = md.read_text()
    assert "![gantt](figures/gantt.png)" in text
    assert (md.parent / "figures" / "gantt.svg").read_text().startswith("<svg")
    # The title names the trace's file, not where it lies.
    assert text.startswith("# Should jobs share nodes or time slices on this machine? (t.swf)")


def test_utilization_is_explained_where_a_processor_takes_two_jobs(tmp_path: Path) -> None:
    text = _synthetic(tmp_path).read_text()
    assert "(`lomarc`: 2 slots per processor; `gang`: 2 slots per processor)" in text
    assert "a processor running one job in one of its 2 slots counts as half busy" in text


def test_summary_tables_fit_a_page(tmp_path: Path) -> None:
    md = _synthetic(tmp_path)
    heads = [line for line in md.read_text().splitlines() if line.startswith("| policy |")]
    assert len(heads) == 2 and all(h.count("|") - 1 <= 7 for h in heads)
    assert "white-space:nowrap" in (md.parent / "report.html").read_text()


def test_a_failing_figure_leaves_a_note_and_exit_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(figures, "time_figure", boom)
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "time.png").write_text("an earlier report's figure")
    assert main(["compare", "--out", str(out), "--limit", "60", "--policies", "easy"]) == 0
    note = "> **Figure `time` could not be drawn** (RuntimeError: boom)."
    assert note in (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert "<p class='note'><strong>Figure <code>time</code> could not be drawn</strong>" in html
    err = capsys.readouterr().err
    assert "cosched compare: warning: figure 'time' could not be drawn (RuntimeError: boom)" in err
    assert not (out / "figures" / "time.png").exists()  # not shown as if it were current
    # The other figures are there, as PNG and SVG.
    for name in ("cdf", "classes", "gantt"):
        assert (out / "figures" / f"{name}.png").is_file()
        assert (out / "figures" / f"{name}.svg").is_file()
    assert main(["report", str(out)]) == 0
    assert "cosched report: warning: figure 'time'" in capsys.readouterr().err


# -- wording ------------------------------------------------------------------------------


def test_the_mix_table_says_lower_and_higher() -> None:
    # easy's 2.2 h = 7920 s is the level. M1 (the main arm): 7560 s, (7920 - 7560) /
    # 7920 = 4.5%: "5% lower"; M2: 8712 s, 10% higher; M3: seeds 7000 and 9000, mean
    # 8000 (1% higher), its 95% interval (t = 12.706 x 1000) holds 7920.
    table = pd.DataFrame(
        {
            "arm": ["lomarc", "lomarc@M2", "lomarc@M3", "lomarc@M3"],
            "mean_turnaround": [7560.0, 8712.0, 7000.0, 9000.0],
        }
    )
    mixes = [Arm(f"lomarc@{m}", "lomarc", {}, True, "mix", None, {"mixture": m})
             for m in ("M2", "M3")]  # fmt: skip
    doc = Document(Path("."))
    _mix_section(doc, table, mixes, "easy", 7920.0)
    rows = {line.split(" | ")[0]: line for line in doc.md if line.startswith("| M")}
    assert rows["| M1"].endswith("| 5% lower |")
    assert rows["| M2"].endswith("| 10% higher |")
    assert rows["| M3"].endswith("| 1% higher (within the CI) |")


def test_class_bars_carry_their_interval() -> None:
    means = pd.DataFrame(
        {
            "policy": ["a"],
            "duration_class": ["short"],
            "width_class": ["narrow"],
            "mean_turnaround": [2.0],
            "mean_turnaround_ci": [1.0],
        }
    )
    fig = figures.class_figure(means, ["a"], "mean_turnaround", "h")
    from matplotlib.container import ErrorbarContainer

    (bars,) = [c for c in fig.axes[0].containers if isinstance(c, ErrorbarContainer)]
    segments = bars.lines[2][0].get_segments()
    assert [tuple(p[1] for p in seg) for seg in segments] == [(1.0, 3.0)]


# -- the two commands that lost their report on KTH-SP2 -----------------------------------


@pytest.mark.slow
@NEEDS_KTH
@pytest.mark.parametrize(
    ("policies", "limit"),
    [("easy,lomarc", "6000"), ("fcfs,gang", "3000")],
)
def test_kth_reports_are_written(tmp_path: Path, policies: str, limit: str) -> None:
    out = tmp_path / "out"
    args = ["compare", str(KTH), "--out", str(out), "--policies", policies, "--limit", limit]
    assert main([*args, "--seeds", "1"]) == 0
    text = (out / "report.md").read_text()
    assert "could not be drawn" not in text
    assert "![gantt](figures/gantt.png)" in text
    assert "(KTH-SP2-1996-2.1-cln.swf.gz)" in text.splitlines()[0]


def test_html_renders_the_verdicts_emphasis_and_leaves_lone_stars() -> None:
    from cosched.compare.document import _inline

    assert _inline("*Time slicing*: gang") == "<em>Time slicing</em>: gang"
    assert _inline("**Pair jobs.** x") == "<strong>Pair jobs.</strong> x"
    assert _inline("2 * 3 * 4") == "2 * 3 * 4"
