"""Slurm and PBS accounting logs to SWF: the documented cases, worked out by hand.

The fixtures in ``fixtures/`` are written from the sacct manual (``--parsable2``
output, its ``State`` values, ``Timelimit`` and ``ReqMem`` forms) and from the PBS
Professional reference guide's accounting chapter (record layout
``date time;type;id;message``, the ``E``/``D``/``A``/``Q`` records and their
attributes; Torque's ``nodes=N:ppn=M`` and ``exec_host`` forms). Each expected SWF
line below was computed by hand from the fixture's times: the first kept job's
arrival is time 0, wait = start - arrival, run = end - start.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cosched.cli.main import main
from cosched.errors import WorkloadFormatError
from cosched.workload.importers import ImportOptions, import_pbs, import_slurm
from cosched.workload.importers.pbs import parse_walltime
from cosched.workload.importers.slurm import parse_duration
from cosched.workload.swf import read_swf
from cosched.workload.swf_write import write_swf

FIX = Path(__file__).parent / "fixtures"
SACCT = FIX / "sacct_cases.txt"
PBS = FIX / "pbs_cases"


def _lines(result: object, tmp_path: Path) -> list[list[str]]:
    out = tmp_path / "out.swf"
    write_swf(result.trace, out)  # type: ignore[attr-defined]
    return [ln.split() for ln in out.read_text().splitlines() if not ln.startswith(";")]


# Users alice bob carol -> 1 2 3, groups chem physics -> 1 2, accounts proj1 proj2 -> 1 2,
# QOS high normal -> 1 2, partitions batch debug -> 1 2 (sorted names). The first
# arrival is job 1003_4 at 10:15 (job 1001 at 10:00 is a step's owner... see below).
SLURM_EXPECTED = {
    # 1001: submit 10:00, start 10:05, end 11:05, 64 CPUs, 02:00:00; ReqMem 4000Mn on
    # 2 nodes = 4000 x 1024 KB x 2 / 64 = 128000 KB per processor; COMPLETED -> 1.
    "1001": "1001 0 300 3600 64 -1 -1 64 7200 128000 1 1 2 1 2 1 -1 -1",
    # 1003_4 (JobIDRaw 1010): 10:15 -> 10:16 -> 10:26; Timelimit 30:00 (min:sec) =
    # 1800 s; ReqMem 2G without suffix, 1 node, 1 CPU = 2 x 1024^2 KB; TIMEOUT -> 0.
    "1010": "1010 900 60 600 1 -1 -1 1 1800 2097152 0 1 2 1 2 1 -1 -1",
    # 1002: submitted 10:10 but eligible 10:20 (arrival), start 10:20, end 10:30;
    # 1-00:00:00 = 86400 s; 1000Mc = 1024000 KB per CPU; "CANCELLED by 1234" -> 5.
    "1002": "1002 1200 0 600 4 -1 -1 4 86400 1024000 5 2 1 2 1 2 -1 -1",
    # 1020+0 (8 CPUs, ends 12:30) and 1020+1 (16 CPUs, ends 12:00): one job of 24
    # CPUs, 11:00 -> 11:30 -> 12:30; UNLIMITED -> -1.
    "1020": "1020 3600 1800 3600 24 -1 -1 24 -1 -1 1 3 1 2 2 1 -1 -1",
    # 1040: RUNNING at the dump (End Unknown): run -1, status -1; Partition_Limit -> -1.
    "1040": "1040 9000 600 -1 4 -1 -1 4 -1 -1 -1 3 1 2 2 1 -1 -1",
    # 1050-1053: submitted 13:00, each started 10 min after the previous one, 10 min
    # runs, 00:20:00; NODE_FAIL, OUT_OF_MEMORY, PREEMPTED -> 0; REQUEUED -> 2.
    "1050": "1050 10800 0 600 1 -1 -1 1 1200 -1 0 2 1 2 2 1 -1 -1",
    "1051": "1051 10800 600 600 1 -1 -1 1 1200 -1 0 2 1 2 2 1 -1 -1",
    "1052": "1052 10800 1200 600 1 -1 -1 1 1200 -1 0 2 1 2 2 1 -1 -1",
    "1053": "1053 10800 1800 600 1 -1 -1 1 1200 -1 2 2 1 2 2 1 -1 -1",
}


def test_every_sacct_case_gives_the_line_worked_out_by_hand(tmp_path: Path) -> None:
    result = import_slurm([SACCT])
    got = {f[0]: " ".join(f) for f in _lines(result, tmp_path)}
    assert got == SLURM_EXPECTED
    c = result.counts
    assert (c["steps"], c["pending_arrays"], c["never_started"], c["het_components"]) == (
        1,
        1,
        2,
        2,
    )
    assert c["dropped_never_started"] == 2 and c["still_running"] == 1


def test_a_job_cancelled_while_pending_is_kept_without_a_run_on_request(tmp_path: Path) -> None:
    result = import_slurm([SACCT], ImportOptions(unstarted="keep"))
    got = {f[0]: " ".join(f) for f in _lines(result, tmp_path)}
    # 1030: submitted 12:00 = 7200 s, Start None; 2 CPUs requested, 01:00:00, 1000Mc.
    assert got["1030"] == "1030 7200 -1 -1 -1 -1 -1 2 3600 1024000 5 2 1 2 1 2 -1 -1"
    # 1060: PENDING at the dump (Start Unknown), submitted 13:50 = 13800 s; 8 CPUs,
    # 00:30:00, 1000Mc; status -1 (not over).
    assert got["1060"] == "1060 13800 -1 -1 -1 -1 -1 8 1800 1024000 -1 3 1 2 2 1 -1 -1"
    assert result.counts["kept_never_started"] == 2


def test_daylight_saving_changes_give_no_negative_or_shifted_wait(tmp_path: Path) -> None:
    # Europe/Berlin. 2001: submitted 02:50 CEST (00:50 UTC) on 27 Oct 2024, started at
    # the second 02:10 (CET, 01:10 UTC), ended 03:10 CET (02:10 UTC): wait 1200, run 3600.
    # 2002: submitted 01:50 CET (00:50 UTC) on 31 Mar 2024, started 03:10 CEST (01:10
    # UTC), ended 04:10 CEST: wait 1200 (not 4800), run 3600.
    result = import_slurm([FIX / "sacct_dst.txt"], ImportOptions(tz="Europe/Berlin"))
    got = {f[0]: f[2:4] for f in _lines(result, tmp_path)}
    assert got == {"2001": ["1200", "3600"], "2002": ["1200", "3600"]}
    assert result.counts["ambiguous_times"] == 2 and result.counts["ambiguous_second"] == 1
    # 00:50 UTC 31 Mar to 00:50 UTC 27 Oct is 210 days.
    assert result.trace.table["submit_time"].tolist() == [0.0, 210 * 86400.0]


def test_epoch_seconds_need_no_time_zone(tmp_path: Path) -> None:
    dump = tmp_path / "epoch.txt"
    # SLURM_TIME_FORMAT=%s: 1709287200 = 2024-03-01T10:00:00Z.
    dump.write_text(
        "JobID|State|NCPUS|Timelimit|Submit|Start|End|JobIDRaw\n"
        "7|COMPLETED|3|10|1709287200|1709287260|1709287320|7\n"
    )
    for tz in ("UTC", "Asia/Tokyo"):
        got = _lines(import_slurm([dump], ImportOptions(tz=tz)), tmp_path)
        # Timelimit "10" is 10 minutes.
        assert got == [
            [
                "7",
                "0",
                "60",
                "60",
                "3",
                "-1",
                "-1",
                "3",
                "600",
                "-1",
                "1",
                "-1",
                "-1",
                "-1",
                "-1",
                "-1",
                "-1",
                "-1",
            ]
        ]


def test_several_dumps_keep_each_job_once_with_its_final_record(tmp_path: Path) -> None:
    early = tmp_path / "feb.txt"
    late = tmp_path / "mar.txt"
    head = "JobIDRaw|JobID|Submit|Start|End|State|NCPUS|Timelimit\n"
    early.write_text(head + "5|5|100|200|Unknown|RUNNING|2|01:00:00\n")
    late.write_text(head + "5|5|100|200|900|COMPLETED|2|01:00:00\n")
    joined = tmp_path / "both.txt"  # `cat feb.txt mar.txt`: the header twice
    joined.write_text(early.read_text() + late.read_text())
    for files in ([early, late], [late, early], [joined]):
        result = import_slurm(files)
        assert [" ".join(f) for f in _lines(result, tmp_path)] == [
            "5 0 100 700 2 -1 -1 2 3600 -1 1 -1 -1 -1 -1 -1 -1 -1"
        ]
        assert result.counts["duplicates"] == 1


def test_jobs_whose_times_are_out_of_order_are_dropped_and_counted(tmp_path: Path) -> None:
    dump = tmp_path / "d.txt"
    dump.write_text(
        "JobIDRaw|JobID|Submit|Eligible|Start|End|State|NCPUS|Timelimit\n"
        "1|1|100|100|90|200|COMPLETED|1|10\n"  # starts before its submission
        "2|2|100|100|150|140|COMPLETED|1|10\n"  # ends before it starts
        "3|3|100|170|160|200|COMPLETED|1|10\n"  # eligible after its start: ignored
    )
    result = import_slurm([dump])
    assert [" ".join(f) for f in _lines(result, tmp_path)] == [
        "3 0 60 40 1 -1 -1 1 600 -1 1 -1 -1 -1 -1 -1 -1 -1"
    ]
    c = result.counts
    assert (c["start_before_submit"], c["end_before_start"], c["eligible_after_start"]) == (1, 1, 1)


def test_partition_filter_and_operator_machine_size() -> None:
    result = import_slurm([SACCT], ImportOptions(partition="debug", nodes=4, cores=16))
    assert result.trace.table["job_id"].tolist() == [1002]
    # 12 allocation records besides the step and the pending range; 1002 and 1030 are
    # in debug (1030 never started and is dropped).
    assert result.counts["other_partition"] == 10
    h = result.trace.header
    assert (h.max_nodes, h.max_procs) == (4, 64)
    assert "given by the operator" in h.raw["Note"]


def test_the_machine_size_is_inferred_from_the_log_and_said() -> None:
    h = import_slurm([SACCT]).trace.header
    # Most CPUs at once: 1001 (64, 10:05-11:05) + 1002 (4, 10:20-10:30) + 1003_4 (1).
    assert h.max_procs == 69
    assert "inferred from the log" in h.raw["Note"]
    assert h.time_zone_string == "UTC"
    assert "source format: slurm" in h.raw["Note"]


def test_the_operators_id_mapping_is_used_and_extended() -> None:
    ids = {"user": {"carol": 40}, "partition": {"debug": 9}}
    t = import_slurm([SACCT], ImportOptions(ids=ids)).trace.table.set_index("job_id")
    assert t.loc[1020, "user_id"] == 40
    assert t.loc[1002, "partition"] == 9
    # alice and bob are not in the mapping: the numbers after its largest, sorted.
    assert (t.loc[1001, "user_id"], t.loc[1002, "user_id"]) == (41, 42)
    assert t.loc[1001, "partition"] == 10


# Users alice bob carol -> 1 2 3, groups chem physics -> 1 2, queues batch workq -> 1 2,
# account proj1 -> 1. Jobs are numbered in arrival order.
PBS_EXPECTED = [
    # 101.pbs01 (PBS Pro): qtime 10:00, start 10:05, end 11:05; exec_host n1/0*32+n2/0*32
    # = 64 CPUs; Resource_List.ncpus 64; walltime 02:00:00; mem 8gb / 64 = 131072 KB.
    "1 0 300 3600 64 -1 -1 64 7200 131072 1 1 2 1 2 -1 -1 -1",
    # 102.torque: 10:10 -> 10:12 -> 10:42; exec_host lists 8 CPUs; nodes=2:ppn=4 = 8;
    # 00:30:00; Exit_status 271 (killed by signal 15) -> 0.
    "2 600 120 1800 8 -1 -1 8 1800 -1 0 2 1 -1 1 -1 -1 -1",
    # 200[1] and 200[2]: both queued 10:20; 10:21-10:31 and 10:31-10:41, one CPU each.
    "3 1200 60 600 1 -1 -1 1 600 -1 1 3 2 -1 2 -1 -1 -1",
    "4 1200 660 600 1 -1 -1 1 600 -1 1 3 2 -1 2 -1 -1 -1",
    # 301: deleted (D) while running, then its E record: 11:00 -> 11:10 -> 11:30 -> 5.
    "5 3600 600 1200 16 -1 -1 16 3600 -1 5 1 2 -1 2 -1 -1 -1",
    # 303.torque: exec_host n7/0-3,5 = 5 CPUs; nodes=1:ppn=5; 11:20 -> 11:30 -> 11:40.
    "6 4800 600 600 5 -1 -1 5 1200 -1 1 2 1 -1 1 -1 -1 -1",
]


def test_every_pbs_case_gives_the_line_worked_out_by_hand(tmp_path: Path) -> None:
    result = import_pbs([PBS])
    assert [" ".join(f) for f in _lines(result, tmp_path)] == PBS_EXPECTED
    c = result.counts
    assert (c["skip_S"], c["skip_L"], c["skip_R"], c["skip_B"]) == (6, 1, 1, 1)
    assert c["array_parent"] == 2 and c["never_started"] == 2
    h = result.trace.header
    # Most at once: 64 + 8 + 1 CPUs (10:21-10:31) on n1, n2, n3, n4, n5.
    assert (h.max_procs, h.max_nodes) == (73, 5)


def test_pbs_jobs_that_never_ran_come_from_their_q_record(tmp_path: Path) -> None:
    result = import_pbs([PBS], ImportOptions(unstarted="keep"))
    lines = [" ".join(f) for f in _lines(result, tmp_path)]
    # 300 (Q 11:00, D 11:10) and 302 (Q 11:20, A 11:40) never ran; their Q records
    # name queue workq (2).
    assert lines[4] == "5 3600 -1 -1 -1 -1 -1 -1 -1 -1 5 -1 -1 -1 2 -1 -1 -1"
    assert lines[6] == "7 4800 -1 -1 -1 -1 -1 -1 -1 -1 5 -1 -1 -1 2 -1 -1 -1"
    assert len(lines) == 8


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("45", 2700),
        ("45:30", 2730),
        ("02:00:00", 7200),
        ("1-00:00:00", 86400),
        ("2-12", 216000),
        ("1-01:30", 91800),
        ("bad", None),
        ("1:2:3:4", None),
    ],
)
def test_slurm_time_strings(text: str, seconds: int | None) -> None:
    # sbatch --time: minutes, minutes:seconds, hours:minutes:seconds, days-hours,
    # days-hours:minutes, days-hours:minutes:seconds.
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "seconds"), [("00:30:00", 1800), ("36:00:00", 129600), ("90", 90), ("x", None)]
)
def test_pbs_walltimes(text: str, seconds: int | None) -> None:
    assert parse_walltime(text) == seconds


def test_reqmem_units_and_suffixes(tmp_path: Path) -> None:
    # SWF field 10 is KB per processor. 512000Kc: 512000 KB per CPU. 1Tn on 2 nodes, 4
    # CPUs: 1024^3 KB x 2 / 4. 3000 (M by default, per node) on 1 node, 2 CPUs: 1536000.
    # 0.5Gc: 524288 KB per CPU.
    dump = tmp_path / "mem.txt"
    rows = ["1|512000Kc|1|1", "2|1Tn|2|4", "3|3000|1|2", "4|0.5Gc|1|1"]
    dump.write_text(
        "JobIDRaw|ReqMem|NNodes|NCPUS|JobID|Submit|Start|End|State|Timelimit\n"
        + "".join(f"{r}|{r[0]}|0|1|2|COMPLETED|1\n" for r in rows)
    )
    t = import_slurm([dump]).trace.table.set_index("job_id")
    assert t["requested_memory"].to_dict() == {
        1: 512000.0,
        2: 1024.0**3 * 2 / 4,
        3: 1536000.0,
        4: 524288.0,
    }


def test_pbs_nodect_alone_gives_the_processor_count(tmp_path: Path) -> None:
    log = tmp_path / "20240301"
    log.write_text(
        "03/01/2024 10:00:00;E;7.s;user=u queue=q qtime=100 etime=100 start=160 end=220 "
        "Resource_List.nodect=3 Resource_List.walltime=5:00 Exit_status=0\n"
    )
    result = import_pbs([log])
    # No exec_host, ncpus, select or nodes: 3 nodes taken as 3 processors; walltime
    # 5:00 is MM:SS = 300 s.
    assert [" ".join(f) for f in _lines(result, tmp_path)] == [
        "1 0 60 60 3 -1 -1 3 300 -1 1 1 -1 -1 1 -1 -1 -1"
    ]
    assert result.counts["procs_from_nodect"] == 1


# -- bad input ----------------------------------------------------------------------------


def test_a_missing_column_is_named_with_the_sacct_command(tmp_path: Path) -> None:
    dump = tmp_path / "d.txt"
    dump.write_text("JobIDRaw|JobID|Submit|Start|End|State|NCPUS\n1|1|1|2|3|COMPLETED|1\n")
    with pytest.raises(WorkloadFormatError, match="Timelimit") as exc:
        import_slurm([dump])
    assert "sacct --allusers --allocations --parsable2" in str(exc.value)
    assert exc.value.line == 1


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        ("Submit", "2024-13-01T00:00:00", "not a time stamp"),
        ("Start", "2024-03-31T02:30:00", "does not exist in Europe/Berlin"),
        ("NCPUS", "four", "not a count"),
        ("Timelimit", "soon", "not a time limit"),
        ("State", "EXPLODED", "unknown job state"),
        ("ReqMem", "4X", "not a memory size"),
    ],
)
def test_a_malformed_value_names_file_line_and_field(
    tmp_path: Path, column: str, value: str, problem: str
) -> None:
    cols = ["JobIDRaw", "JobID", "Submit", "Start", "End", "State", "NCPUS", "Timelimit", "ReqMem"]
    good = [
        "9",
        "9",
        "2024-03-01T10:00:00",
        "2024-03-31T04:00:00",
        "2024-03-31T05:00:00",
        "COMPLETED",
        "2",
        "01:00:00",
        "1G",
    ]
    bad = list(good)
    bad[cols.index(column)] = value
    dump = tmp_path / "d.txt"
    rows = ["|".join(cols), "|".join(good).replace("|9|9|", "|8|8|"), "|".join(bad)]
    dump.write_text("\n".join(rows) + "\n")
    with pytest.raises(WorkloadFormatError, match=problem) as exc:
        import_slurm([dump], ImportOptions(tz="Europe/Berlin"))
    assert (exc.value.path, exc.value.line, exc.value.field) == (str(dump), 3, column)


def test_a_malformed_pbs_value_names_file_line_and_field(tmp_path: Path) -> None:
    log = tmp_path / "20240301"
    log.write_text(
        "03/01/2024 10:00:00;E;1.s;qtime=100 start=200 end=300 Resource_List.ncpus=2 "
        "Resource_List.walltime=00:10:00 Exit_status=0\n"
        "03/01/2024 10:00:00;E;2.s;qtime=100 start=2oo end=300 Resource_List.ncpus=2\n"
    )
    with pytest.raises(WorkloadFormatError, match="start") as exc:
        import_pbs([log])
    assert (exc.value.line, exc.value.field) == (2, "start")


def test_the_other_format_is_recognised_and_named(tmp_path: Path) -> None:
    with pytest.raises(WorkloadFormatError, match=r"PBS accounting file.*import pbs"):
        import_slurm([PBS / "20240301"])
    with pytest.raises(WorkloadFormatError, match=r"sacct --parsable2 dump.*import slurm"):
        import_pbs([SACCT])
    swf = tmp_path / "t.swf"
    shutil.copy(FIX.parents[2] / "src" / "cosched" / "data" / "example.swf", swf)
    with pytest.raises(WorkloadFormatError, match="an SWF trace"):
        import_slurm([swf])


def test_trace_import_writes_the_swf_and_prints_the_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site.swf.gz"
    assert main(["trace", "import", "pbs", str(PBS), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "kept 6 jobs of 8 jobs named in the PBS records" in printed
    assert "2 jobs never started" in printed
    trace = read_swf(out)
    assert len(trace) == 6 and trace.header.raw["Conversion"].startswith("cosched")


def test_trace_import_reports_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.swf"
    assert main(["trace", "import", "slurm", str(PBS / "20240301"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "use `cosched trace import pbs`" in err and "Traceback" not in err
    assert not out.exists()


# -- direct use -----------------------------------------------------------------------------


def test_open_workload_reads_logs_recognised_or_named() -> None:
    from cosched.workload.sources import open_workload

    for text in (str(SACCT), f"slurm:{SACCT}"):
        w = open_workload(text)
        # 9 jobs converted; the loader then drops 1040 (still running, no run time).
        assert w.table["job_id"].tolist() == [1001, 1010, 1002, 1020, 1050, 1051, 1052, 1053]
        assert w.notes[0] == "slurm log: kept 9 jobs of 14 sacct records"
        assert "dropped 1 jobs with run time <= 0 or missing" in " ".join(w.notes)
    assert len(open_workload(str(PBS))) == 6


def test_cosched_run_takes_a_log_and_prints_the_conversion_notes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(PBS), "--policy", "fcfs", "--unstarted", "keep"]) == 0
    out = capsys.readouterr().out
    assert "note      pbs log: kept 8 jobs of 8 jobs named in the PBS records" in out
    assert "kept them with wait, run time, processors, requested time and memory -1" in out
    # The two jobs that never ran have no processors (nor run time): the loader's first
    # rule drops them, and says so.
    assert "dropped 2 jobs with no processor count" in out
    assert "workload  pbs_cases (6 jobs)" in out


def test_a_sweep_takes_a_log_by_its_path(tmp_path: Path) -> None:
    from cosched.experiments.sweep import run_sweep, spec_from_dict

    spec = spec_from_dict(
        {
            "name": "log",
            "workloads": [{"kind": "swf", "path": str(SACCT)}],
            "policies": [{"name": "easy"}],
        },
        root=tmp_path,
    )
    table = run_sweep(spec, tmp_path / "store", workers=1)
    assert list(table["status"]) == ["ok"]
    assert list(table["jobs"]) == [8]


def test_the_same_log_gives_the_same_bytes(tmp_path: Path) -> None:
    outs = [tmp_path / "a.swf.gz", tmp_path / "b.swf.gz"]
    for out in outs:
        assert main(["trace", "import", "slurm", str(SACCT), "-o", str(out)]) == 0
    assert outs[0].read_bytes() == outs[1].read_bytes()


def test_the_header_counts_dropped_jobs_and_jobs_cancelled_before_they_started(
    tmp_path: Path,
) -> None:
    # sacct_cases.txt: 14 lines; 9 jobs kept; dropped: the pending array range 1003_[5-9]
    # and the two never-started jobs 1030 and 1060 (--unstarted drop) = 3 (the step
    # 1001.batch is skipped, not a job); cancelled before it started: 1030 only (1060
    # is still PENDING).
    result = import_slurm([SACCT])
    counts = (
        "read 14 sacct records: 9 jobs kept, 3 dropped, "
        "1 cancelled before they started (dropped, --unstarted)"
    )
    assert result.trace.header.raw["ImportCounts"] == counts
    out = tmp_path / "site.swf"
    write_swf(result.trace, out)
    assert read_swf(out).header.raw["ImportCounts"] == counts
    kept = import_slurm([SACCT], ImportOptions(unstarted="keep")).trace.header.raw
    assert kept["ImportCounts"] == (
        "read 14 sacct records: 11 jobs kept, 1 dropped, "
        "1 cancelled before they started (kept, --unstarted)"
    )
    # pbs_cases: 300 deleted (D) and 302 aborted (A) while queued, both dropped; 301
    # deleted while running is kept (status 5), not cancelled before it started.
    assert import_pbs([PBS]).trace.header.raw["ImportCounts"] == (
        "read 8 jobs named in the PBS records: 6 jobs kept, 2 dropped, "
        "2 cancelled before they started (dropped, --unstarted)"
    )
