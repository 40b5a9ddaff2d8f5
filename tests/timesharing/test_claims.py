"""The dynamic-coscheduling claims read what the paper plots: hand cases.

Figure 3 plots response time against "the percentage of time that the system actually
spends in useful work" (the paper's lines 760-761 and 779-781), the results column
``useful_share`` (the cell's reading of useful work: the jobs' dedicated work done or,
as in these cases, the CPU share spent computing, ``compute_share``), not
``utilization`` (the share of time-sharing slots held by jobs), which grows when a job
spins in its slot. tests/timesharing/test_useful_work.py holds the two readings' cases.
"""

from __future__ import annotations

import pandas as pd
import pytest

from cosched.experiments.claims import evaluate
from cosched.experiments.reproductions import spec
from cosched.timesharing.claims import claims
from cosched.timesharing.engine import TSResult
from cosched.timesharing.metrics import BREAKDOWN, ts_summary
from cosched.timesharing.params import SCHEMES


def one_node_run(compute: float, spin: float, second: float, gap: float = 0.0) -> TSResult:
    """One node at MPL 1: a job submitted at 0 holds the CPU for ``compute + spin``
    seconds (it computes ``compute`` of them and spins the rest); the CPU idles ``gap``
    seconds; the next job arrives then, closing the arrival window, and computes
    ``second`` seconds."""
    end1 = compute + spin
    t2 = end1 + gap
    jobs = pd.DataFrame(
        {
            "job_id": [1, 2],
            "submit_time": [0.0, t2],
            "start_time": [0.0, t2],
            "end_time": [end1, t2 + second],
            "procs": [1, 1],
            "size": [1, 1],
            "run_time": [compute, second],
        }
    )
    nodes = pd.DataFrame({c: [0.0] for c in BREAKDOWN} | {"io_wait": [0.0]})
    nodes.loc[0, "compute"] = compute + second
    nodes.loc[0, "spin"] = spin
    return TSResult(
        scheme="",
        jobs=jobs,
        nodes=nodes,
        end_time=t2 + second,
        events=0,
        messages_sent=0,
        messages_received=0,
        window=(0.0, t2),
        window_compute=compute,
    )


def fig3_row(scheme: str, run: TSResult) -> dict[str, object]:
    """A results row of Figure 3's sweep (WL7, MPL 5, s = 20%) carrying ``run``'s summary,
    its useful work read as the CPU share computing (the cell's ``useful=compute``)."""
    params = {"workload": "WL7", "load": 1.0, "skew": 0.2, "mpl": 5, "variant": ""}
    m = ts_summary(run, nodes=1)
    row = params | {"scheme": scheme, "seed": 1, "status": "ok", "useful": "compute"}
    return row | m | {"useful_share": m["compute_share"]}


def test_hand_case_slot_occupancy_and_cpu_share_differ() -> None:
    # The first job holds the only slot 0-10 s, computing 4 s and spinning 6 s; the second
    # holds it 10-14 s computing. Slots held: (10 + 4) / (1 x 14) = 1.0. CPU share in
    # useful work over the arrival window [0, 10]: 4 / (1 x 10) = 0.4.
    m = ts_summary(one_node_run(4.0, 6.0, 4.0), nodes=1)
    assert m["utilization"] == pytest.approx(1.0)
    assert m["compute_share"] == pytest.approx(0.4)


def test_figure_3_ceiling_is_the_cpu_share_in_useful_work() -> None:
    results = pd.DataFrame([fig3_row("PB", one_node_run(4.0, 6.0, 4.0))])
    by_id = {c.id: c for c in claims()}
    got = by_id["fig3-saturation-PB"].measure(results)
    assert list(got) == pytest.approx([40.0])  # 0.4 in %, not slot occupancy's 100


def test_figure_3_ordering_reads_the_cpu_share() -> None:
    # PB spins (as above): slots 1.0, CPU share 0.4. GS computes 5 s of the window
    # [0, 10] and leaves the CPU idle for 5 s; the next job computes 5 s from 10 s:
    # slots held (5 + 5) / (1 x 15) = 2/3, CPU share 5 / 10 = 0.5. PB's ceiling minus
    # GS's is 40 - 50 = -10 points (slot occupancy would say +33).
    gs = one_node_run(5.0, 0.0, 5.0, gap=5.0)
    assert ts_summary(gs, nodes=1)["compute_share"] == pytest.approx(0.5)
    assert ts_summary(gs, nodes=1)["utilization"] == pytest.approx(2 / 3)
    results = pd.DataFrame([fig3_row("PB", one_node_run(4.0, 6.0, 4.0)), fig3_row("GS", gs)])
    table = evaluate(claims(), results, "dyncosched").set_index("claim")
    assert table.loc["fig3-PB-above-GS", "cosched"] == pytest.approx(-10.0)
    assert table.loc["fig3-PB-above-GS", "verdict"] == "disagrees"


def fig4_results(responses: dict[str, float], workload: str) -> pd.DataFrame:
    params = {"workload": workload, "load": 1.0, "skew": 0.2, "mpl": 5, "variant": ""}
    return pd.DataFrame(
        [
            params | {"scheme": s, "seed": 1, "status": "ok", "mean_response": responses[s]}
            for s in SCHEMES
        ]
    )


def test_figure_4_comparisons_by_hand() -> None:
    # WL5 as the paper has it: PB best (8 against the next 10), GS, SB, PB-SB and PB-SY
    # within 10% of each other (10 to 11), DCS and DCS-SY behind all six of "the rest".
    resp = {s: 10.0 for s in SCHEMES} | {"PB": 8.0, "PB-SY": 11.0, "DCS-SB": 12.0}
    resp |= {"DCS": 30.0, "DCS-SY": 24.0, "Local": 50.0, "SY": 40.0}
    table = evaluate(claims(), fig4_results(resp, "WL5"), "dyncosched").set_index("claim")
    assert table.loc["fig4-WL5-PB-best", "cosched"] == pytest.approx(8 / 10 - 1)
    assert table.loc["fig4-WL5-GS-SB-PB-SB-PB-SY-alike", "cosched"] == pytest.approx(0.1)
    assert table.loc["fig4-WL5-DCS-SY-behind-rest", "cosched"] == pytest.approx(24 / 12 - 1)
    assert table.loc["fig4-WL5-SY-unacceptable", "cosched"] == pytest.approx(40 / 12 - 1)
    wl5 = table[table.index.str.startswith("fig4-WL5")]
    assert set(wl5["verdict"]) == {"agrees"}
    # GS the best by 2.6x, PB among the worst: PB-best and GS-alike disagree.
    resp |= {"GS": 11.6 / 2.6, "PB": 30.0}
    table = evaluate(claims(), fig4_results(resp, "WL5"), "dyncosched").set_index("claim")
    assert table.loc["fig4-WL5-PB-best", "verdict"] == "disagrees"
    assert table.loc["fig4-WL5-GS-SB-PB-SB-PB-SY-alike", "verdict"] == "disagrees"


@pytest.mark.parametrize("quick", [False, True])
def test_every_claim_has_its_cells_in_the_grid(quick: bool) -> None:
    # A results table with one row per cell of the spec's grid, every metric the claims
    # read set to 1: no claim may be "not run" (each finds the configurations it needs).
    tasks = spec("dyncosched", quick=quick).tasks()
    rows = [
        dict(t.columns) | {"status": "ok", "mean_response": 1.0, "useful_share": 1.0} for t in tasks
    ]
    table = evaluate(claims(), pd.DataFrame(rows), "dyncosched")
    assert list(table.loc[table["verdict"] == "not run", "claim"]) == []
