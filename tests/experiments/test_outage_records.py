"""The site's records of node failures and reservations, read as capacity removed.

Each format is tested on records written by hand in the documented format (sacctmgr's
and scontrol's man pages, the PBS accounting log's record types): not on a real site's
records, none being at hand.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.engine.simulation import simulate
from cosched.errors import ConfigError, WorkloadFormatError
from cosched.experiments.fit import PLAIN_EASY, evaluate, prepare
from cosched.experiments.outage_records import hostlist, read_outage_records
from cosched.platform import Platform
from cosched.platform.machine import Allocation
from cosched.policies.base import make_policy
from cosched.policies.recorded import Recorded
from cosched.policies.requirements import MachineFlags, fit_workload
from cosched.workload.job import Workload
from cosched.workload.loader import load_workload
from cosched.workload.swf_write import write_swf

#: 2024-03-01T00:00:00 UTC: the logs' time 0 here.
ORIGIN = int(datetime(2024, 3, 1, tzinfo=UTC).timestamp())
HOUR = 3600.0
#: 4 nodes of 8 cores, allocated by cores (32 units) or by whole nodes (4 units).
CORES = Platform(nodes=4, cores=8)
NODES = Platform(nodes=4, cores=8, allocation=Allocation.NODES)


def _read(tmp: Path, text: str, platform: Platform = CORES, horizon: float = 86400.0):  # type: ignore[no-untyped-def]
    path = tmp / "records.txt"
    path.write_text(text)
    return read_outage_records(path, platform, ORIGIN, horizon)


EVENTS = """\
Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User
linux||2024-03-01T00:00:00|2024-03-01T00:05:00|||
linux|n[1-2]|2024-03-01T10:00:00|2024-03-01T11:00:00|DOWN|power supply|root(0)
linux|n3|2024-03-01T10:00:00|2024-03-01T10:30:00|IDLE|not a down state|root(0)
"""


def test_a_down_event_of_two_nodes_for_an_hour_removes_their_units_for_that_hour(
    tmp_path: Path,
) -> None:
    r = _read(tmp_path, EVENTS)
    assert r.kind == "sacctmgr events" and r.read == 1 and r.skipped == 2
    assert r.intervals == ((10 * HOUR, 11 * HOUR, 16),)  # 2 nodes x 8 cores
    assert _read(tmp_path, EVENTS, NODES).intervals == ((10 * HOUR, 11 * HOUR, 2),)


def test_overlapping_events_of_one_node_merge_without_double_counting(tmp_path: Path) -> None:
    text = """\
NodeName|TimeStart|TimeEnd|State|Reason|TRES
n1|2024-03-01T10:00:00|2024-03-01T11:00:00|DOWN*|crash|cpu=8
n1|2024-03-01T10:30:00|2024-03-01T12:00:00|IDLE+DRAIN|repair|cpu=8
n2|2024-03-01T10:00:00|2024-03-01T11:00:00|DOWN|crash|cpu=8
n4|2024-03-01T13:00:00|2024-03-01T14:00:00|MIXED+DRAIN|half|cpu=4
"""
    r = _read(tmp_path, text, NODES)
    # n1 and n2 down 10:00-11:00 (n1's drain from 10:30 is the same node), n1 alone to
    # 12:00; n4's 4 of 8 cores is one node's worth on a machine allocated by nodes.
    assert r.intervals == (
        (10 * HOUR, 11 * HOUR, 2),
        (11 * HOUR, 12 * HOUR, 1),
        (13 * HOUR, 14 * HOUR, 1),
    )
    cores = _read(tmp_path, text, CORES)
    assert cores.intervals == (
        (10 * HOUR, 11 * HOUR, 16),
        (11 * HOUR, 12 * HOUR, 8),
        (13 * HOUR, 14 * HOUR, 4),
    )


def test_an_open_event_runs_to_the_end_of_the_log(tmp_path: Path) -> None:
    text = "NodeName|Start|End|State\nn4|2024-03-01T20:00:00|Unknown|DOWN\n"
    assert _read(tmp_path, text, NODES, horizon=22 * HOUR).intervals == ((20 * HOUR, 22 * HOUR, 1),)


def test_a_reservation_of_two_nodes_removes_their_units_for_its_hour(tmp_path: Path) -> None:
    text = """\
ReservationName=maint StartTime=2024-03-01T10:00:00 EndTime=2024-03-01T11:00:00 Duration=01:00:00
   Nodes=n[3-4] NodeCnt=2 CoreCnt=16 Features=(null) PartitionName=batch Flags=MAINT,SPEC_NODES
   TRES=cpu=16
   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE BurstBuffer=(null)

ReservationName=course StartTime=2024-03-01T10:30:00 EndTime=2024-03-01T12:00:00 Duration=01:30:00
   Nodes=n4 NodeCnt=1 CoreCnt=8 Features=(null) PartitionName=batch Flags=SPEC_NODES
"""
    r = _read(tmp_path, text, NODES)
    assert r.kind == "scontrol reservations" and r.read == 2
    # n4 is in both: counted once while they overlap.
    assert r.intervals == ((10 * HOUR, 11 * HOUR, 2), (11 * HOUR, 12 * HOUR, 1))
    assert _read(tmp_path, text, CORES).intervals == (
        (10 * HOUR, 10.5 * HOUR, 16),
        (10.5 * HOUR, 11 * HOUR, 24),  # core counts are not named per node: summed
        (11 * HOUR, 12 * HOUR, 8),
    )


def test_sacctmgr_reservations_remove_their_tres(tmp_path: Path) -> None:
    text = """\
Cluster|Name|TRES|TimeStart|TimeEnd|UnusedWall
linux|maint|cpu=16,node=2|2024-03-01T10:00:00|2024-03-01T11:00:00|3600.000000
"""
    r = _read(tmp_path, text)
    assert r.kind == "sacctmgr reservations"
    assert r.intervals == ((10 * HOUR, 11 * HOUR, 16),)
    assert _read(tmp_path, text, NODES).intervals == ((10 * HOUR, 11 * HOUR, 2),)


def test_pbs_reservation_records_remove_their_nodes_until_they_finish(tmp_path: Path) -> None:
    b1 = ORIGIN + 10 * 3600
    b2 = ORIGIN + 13 * 3600
    text = (
        f"03/01/2024 10:00:00;B;R101.server;owner=root@server queue=R101 ctime={b1 - 600} "
        f"start={b1} end={b1 + 3600} duration=3600 nodes=(n1:ncpus=8)+(n2:ncpus=8) "
        "Authorized_Users=root Resource_List.ncpus=16 Resource_List.nodect=2 "
        "Resource_List.select=2:ncpus=8 Resource_List.walltime=01:00:00\n"
        "03/01/2024 10:05:00;E;7.server;user=a group=g queue=workq start=1 end=2\n"
        f"03/01/2024 13:00:00;B;R102.server;owner=root@server start={b2} end={b2 + 7200} "
        "Resource_List.ncpus=8 Resource_List.nodect=1\n"
        "03/01/2024 13:30:00;K;R102.server;requestor=root@server\n"
    )
    r = _read(tmp_path, text)
    assert r.kind == "PBS reservations" and r.read == 2 and r.skipped == 1
    # R102 was removed half an hour after it began.
    assert r.intervals == ((10 * HOUR, 11 * HOUR, 16), (13 * HOUR, 13.5 * HOUR, 8))
    assert _read(tmp_path, text, NODES).intervals == (
        (10 * HOUR, 11 * HOUR, 2),
        (13 * HOUR, 13.5 * HOUR, 1),
    )


def test_a_standing_pbs_reservation_begins_once_per_occurrence(tmp_path: Path) -> None:
    day = 86400
    b = ORIGIN + 10 * 3600
    text = "".join(
        f"03/0{1 + i}/2024 10:00:00;B;S7.server;start={b + i * day} end={b + i * day + 3600} "
        "Resource_List.ncpus=8 Resource_List.nodect=1\n"
        for i in range(2)
    )
    text += "03/02/2024 10:20:00;F;S7.server;\n"  # the second occurrence ends early
    assert _read(tmp_path, text, horizon=3 * day).intervals == (
        (10 * HOUR, 11 * HOUR, 8),
        (day + 10 * HOUR, day + 10 * HOUR + 1200, 8),
    )


def test_a_reservation_of_no_node_removes_nothing(tmp_path: Path) -> None:
    text = (
        "ReservationName=lic StartTime=2024-03-01T10:00:00 EndTime=2024-03-01T11:00:00 "
        "Nodes=(null) NodeCnt=0 CoreCnt=0 Licenses=matlab:4\n"
    )
    r = _read(tmp_path, text)
    assert r.read == 0 and r.skipped == 1 and r.intervals == ()
    assert _read(tmp_path, "No reservations in the system\n").intervals == ()


def test_hostlists_expand_as_slurm_writes_them() -> None:
    assert hostlist("n[01-03,7],login0") == ["n01", "n02", "n03", "n7", "login0"]
    with pytest.raises(ValueError):
        hostlist("n[3-1]")


# -- bad input: one clear error naming file, line and field ---------------------------------


def test_an_unknown_format_is_refused_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"records.txt:1: not a record file cosched reads"):
        _read(tmp_path, "node1 down 10:00 11:00\n")


def test_a_malformed_event_time_names_line_and_field(tmp_path: Path) -> None:
    text = EVENTS.replace("2024-03-01T10:00:00|2024-03-01T11:00:00|DOWN", "yesterday|x|DOWN")
    with pytest.raises(WorkloadFormatError, match=r"records.txt:3: field 'TimeStart'"):
        _read(tmp_path, text)


def test_an_event_ending_before_it_starts_names_line_and_field(tmp_path: Path) -> None:
    text = "NodeName|Start|End|State\nn1|2024-03-01T11:00:00|2024-03-01T10:00:00|DOWN\n"
    with pytest.raises(WorkloadFormatError, match=r"records.txt:2: field 'End'.*ends before"):
        _read(tmp_path, text)


def test_a_reservation_wider_than_the_machine_names_line_and_field(tmp_path: Path) -> None:
    text = (
        "ReservationName=all StartTime=2024-03-01T10:00:00 EndTime=2024-03-01T11:00:00 NodeCnt=9\n"
    )
    with pytest.raises(WorkloadFormatError, match=r"records.txt:1: field 'NodeCnt' 9 nodes, more"):
        _read(tmp_path, text)


def test_a_malformed_pbs_record_names_line_and_field(tmp_path: Path) -> None:
    text = (
        f"03/01/2024 10:00:00;B;R1.server;start={ORIGIN + 7200} end={ORIGIN + 3600} "
        "Resource_List.nodect=1\n"
    )
    with pytest.raises(WorkloadFormatError, match=r"records.txt:1: field 'end'.*ends before"):
        _read(tmp_path, text)
    with pytest.raises(WorkloadFormatError, match=r"records.txt:2: not a PBS accounting record"):
        _read(tmp_path, text.replace("end=", "end=9") + "garbage\n")


# -- end to end: a log made by cosched with a known outage, its records in Slurm's format ----

#: The outages of the made log: (start, end) in the log's time, 16 of the 32 nodes each,
#: one in the fit part and one held out; submissions go on through them (so the rule
#: that reads the held-out part's outages from submission gaps cannot see them).
OUTAGES = ((40_000.0, 40_000.0 + 6 * HOUR), (130_000.0, 130_000.0 + 8 * HOUR))


def _made_log(tmp: Path, n: int = 400, seed: int = 11) -> Path:
    rng = np.random.default_rng(seed)
    run = rng.integers(60, 4000, n).astype(float)
    t = pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit_time": np.cumsum(rng.integers(0, 900, n)).astype(float),
            "run_time": run,
            "procs": 2 ** rng.integers(0, 5, n),
            "requested_time": run * rng.integers(1, 4, n),
        }
    )
    gone = tuple((a, b, 16) for a, b in OUTAGES)
    r = simulate(
        Workload.from_table(t),
        Platform(32, unavailable=gone),
        make_policy("easy"),
        rng=np.random.default_rng(0),
    )
    t["wait_time"] = r.jobs["start_time"].to_numpy() - t["submit_time"]
    path = tmp / "made.swf"
    header = {"MaxProcs": "32", "MaxNodes": "32", "UnixStartTime": str(ORIGIN)}
    write_swf(Workload.from_table(t), path, header=header)
    lines = ["Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User"]
    for a, b in OUTAGES:
        start, end = (
            datetime.fromtimestamp(ORIGIN + x, UTC).strftime("%Y-%m-%dT%H:%M:%S") for x in (a, b)
        )
        lines.append(f"made|n[01-16]|{start}|{end}|DOWN|power|root(0)")
    (tmp / "events.txt").write_text("\n".join(lines) + "\n")
    return path


def test_the_recorded_outages_reproduce_the_held_out_schedule_without_the_inference(
    tmp_path: Path,
) -> None:
    path = _made_log(tmp_path)
    w = load_workload(path)
    w_rec, platform, _ = fit_workload(Recorded.requires, w, MachineFlags())
    records = read_outage_records(tmp_path / "events.txt", platform, ORIGIN, 1e7)
    assert records.intervals == tuple((a, b, 16) for a, b in OUTAGES)
    replayed = replace(PLAIN_EASY, outages=True)
    with_records = evaluate(prepare(w_rec, platform, records=records), replayed, 0, 3600.0)
    inferred = evaluate(prepare(w_rec, platform), replayed, 0, 3600.0)
    # The configuration that made the log, on the recorded outages: the logged schedule.
    assert with_records["held.ks"] == 0.0 and with_records["fit.ks"] == 0.0
    # The inferred rule cannot see the held-out outage (submissions go on through it).
    assert inferred["held.ks"] > 0.0


def test_validate_fit_refuses_a_bad_records_file_before_the_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _made_log(tmp_path, n=60)
    bad = tmp_path / "bad.txt"
    bad.write_text(
        "NodeName|Start|End|State\n"
        "n01|2024-03-01T10:00:00|2024-03-01T10:00:00|DOWN\n"
        "n02|then|2024-03-01T10:00:00|DOWN\n"
    )
    assert main(["validate", str(path), "--fit", "--unavailability", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.txt:3: field 'Start'" in err and "Traceback" not in err
    assert main(["validate", str(path), "--unavailability", str(bad)]) == 2
    assert "go with --fit" in capsys.readouterr().err
    code = main(
        ["compare", str(path), "--out", str(tmp_path / "cmp"), "--unavailability", str(bad)]
    )
    assert code == 2 and "--baseline fitted" in capsys.readouterr().err


@pytest.mark.slow
def test_validate_fit_replays_the_records_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _made_log(tmp_path)
    out = tmp_path / "fit.json"
    events = str(tmp_path / "events.txt")
    code = main(["validate", str(path), "--fit", "--unavailability", events, "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 0 and "events.txt (sacctmgr events: 2 records" in text
    fit = json.loads(out.read_text())
    truth = replace(PLAIN_EASY, outages=True).label()
    rows = {r["config"]: r for r in fit["configurations"]}
    assert fit["chosen"] == truth and rows[truth]["held.ks"] == 0.0


@pytest.mark.slow
def test_compare_fitted_baseline_replays_the_records_file(tmp_path: Path) -> None:
    from cosched.cli._fit import fitted_arm
    from cosched.experiments.executors import Serial

    path = _made_log(tmp_path)
    w = load_workload(path)
    arm, notes, gone, _ = fitted_arm(
        w, str(path), None, tmp_path / "fit", Serial(), tmp_path / "events.txt"
    )
    # The fitted baseline is EASY on the recorded outages, and compare's arms get them.
    assert arm == "easy(order=submit)" and gone == tuple((a, b, 16) for a, b in OUTAGES)
    assert "KS 0.000" in notes[0]
