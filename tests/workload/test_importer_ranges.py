"""Every value an importer reads is range-checked as the SWF reader checks it.

SWF values pass through float64, which holds integers exactly only up to 2^53, so the
reader refuses a larger count, duration or job number; an importer must refuse it too,
naming the log's file, line and field, rather than write a number the reader refuses
(or worse, one wrapped around to -2^63). At the limit itself the value is written and
read back exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosched.cli.main import main
from cosched.errors import ConfigError, WorkloadFormatError
from cosched.workload.importers import ImportOptions, import_pbs, import_slurm, read_ids
from cosched.workload.swf import read_swf
from cosched.workload.swf_write import write_swf

LIMIT = 2**53

SACCT_COLUMNS = (
    "JobIDRaw|JobID|Partition|Submit|Start|End|Timelimit|State|NNodes|NCPUS|ReqCPUS|ReqMem"
)
#: Two valid jobs: 7 runs 100..200 s, 8 runs 150..250 s (so they overlap).
SACCT_GOOD = {
    "JobIDRaw": "7",
    "JobID": "7",
    "Partition": "batch",
    "Submit": "1700000000",
    "Start": "1700000100",
    "End": "1700000200",
    "Timelimit": "00:10:00",
    "State": "COMPLETED",
    "NNodes": "1",
    "NCPUS": "4",
    "ReqCPUS": "4",
    "ReqMem": "1000Mc",
}


def _sacct(tmp_path: Path, second: dict[str, str], first: dict[str, str] | None = None) -> Path:
    """A dump of job 7 (line 2, changed by ``first``) and job 8 (line 3, by ``second``)."""
    names = SACCT_COLUMNS.split("|")
    one = {**SACCT_GOOD, **(first or {})}
    two = {
        **SACCT_GOOD,
        "JobIDRaw": "8",
        "JobID": "8",
        "Start": "1700000150",
        "End": "1700000250",
        **second,
    }
    rows = [SACCT_COLUMNS, "|".join(one[n] for n in names), "|".join(two[n] for n in names)]
    path = tmp_path / "sacct.txt"
    path.write_text("\n".join(rows) + "\n")
    return path


def _pbs(tmp_path: Path, attrs: str) -> Path:
    """A PBS file of one valid job (line 1) and one E record with ``attrs`` (line 2)."""
    path = tmp_path / "20240301"
    path.write_text(
        "03/01/2024 10:00:00;E;1.s;qtime=100 start=200 end=300 exec_host=n1/0*2 "
        "Resource_List.ncpus=2 Resource_List.walltime=00:10:00 Exit_status=0\n"
        f"03/01/2024 10:00:00;E;2.s;qtime=100 start=200 end=300 {attrs} Exit_status=0\n"
    )
    return path


def _refused(call: object, path: Path, line: int, field: str, match: str) -> None:
    with pytest.raises(WorkloadFormatError, match=match) as exc:
        call()  # type: ignore[operator]
    assert (exc.value.path, exc.value.line, exc.value.field) == (str(path), line, field)


def _one_line_error(
    argv: list[str], out: Path, capsys: pytest.CaptureFixture[str], *expected: str
) -> None:
    assert main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cosched: error: ")
    assert all(e in err for e in expected), err
    assert not out.exists()


def _too_large(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fmt: str,
    log: Path,
    line: int,
    field: str,
) -> None:
    """``log``'s ``field`` on ``line`` beyond 2^53: refused by the importer of ``fmt`` and
    by ``cosched trace import`` in one line, each naming the file, line and field."""
    importer = import_pbs if fmt == "pbs" else import_slurm
    _refused(lambda: importer([log]), log, line, field, r"more than 2\^53")
    named = f"{log}:{line}: field '{field}'"
    _one_line_error(["trace", "import", fmt, str(log)], tmp_path / "o.swf", capsys, named)


# -- the bugs found from outside --------------------------------------------------------------


@pytest.mark.parametrize("value", [str(2**63), "9" * 20, str(LIMIT + 1)])
def test_pbs_ncpus_beyond_2_53_is_refused_by_line_and_field(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _pbs(tmp_path, f"Resource_List.ncpus={value}")
    _too_large(tmp_path, capsys, "pbs", log, 2, "Resource_List.ncpus")


@pytest.mark.parametrize("value", [str(2**63), "9" * 20, str(LIMIT + 1)])
def test_slurm_ncpus_beyond_2_53_is_refused_by_line_and_field(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _too_large(tmp_path, capsys, "slurm", _sacct(tmp_path, {"NCPUS": value}), 3, "NCPUS")


@pytest.mark.parametrize(
    "value",
    [
        # 2^63 MB per CPU = 2^73 KB: beyond int64, which the writer wrapped.
        f"{2**63}Mc",
        # 2^43 TB per CPU = 2^73 KB again, from a short number.
        f"{2**43}Tc",
        # so many digits that float() gives infinity.
        "9" * 400 + "K",
    ],
)
def test_slurm_reqmem_beyond_2_53_kb_per_processor_is_refused(tmp_path: Path, value: str) -> None:
    dump = _sacct(tmp_path, {"ReqMem": value})
    _refused(lambda: import_slurm([dump]), dump, 3, "ReqMem", r"KB per processor too large")


def test_pbs_exec_host_of_separators_only_is_refused(tmp_path: Path) -> None:
    for bad in ("+++", "n1/0+", "+n1/0", "n1/0*", "n1/5-3", "|/0"):
        log = _pbs(tmp_path, f"exec_host={bad} Resource_List.ncpus=2")
        _refused(
            lambda log=log: import_pbs([log]), log, 2, "exec_host", "host/cpu list|ends before"
        )


@pytest.mark.parametrize("value", [str(2**63), str(2**64), "9" * 5000])
def test_slurm_job_id_raw_beyond_2_53_is_refused_not_a_traceback(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _too_large(tmp_path, capsys, "slurm", _sacct(tmp_path, {"JobIDRaw": value}), 3, "JobIDRaw")


# -- the limit itself is held exactly -------------------------------------------------------


def test_values_at_2_53_are_written_and_read_back_exactly(tmp_path: Path) -> None:
    # Job 8 alone (job 7 partitioned away): its id, CPUs and time limit all 2^53;
    # 2^53 s is 104249991374 days 7:36:32 (hand: 2^53 = 9007199254740992 =
    # 104249991374 x 86400 + 27392, and 27392 s = 7 h 36 min 32 s).
    dump = _sacct(
        tmp_path,
        {
            "JobIDRaw": str(LIMIT),
            "NCPUS": str(LIMIT),
            "ReqCPUS": str(LIMIT),
            "Timelimit": "104249991374-07:36:32",
            "Partition": "big",
        },
    )
    result = import_slurm([dump], ImportOptions(partition="big"))
    out = tmp_path / "o.swf"
    write_swf(result.trace, out)
    back = read_swf(out).table
    assert back["job_id"].tolist() == [LIMIT]
    for name in ("allocated_procs", "requested_procs", "requested_time"):
        assert back[name].tolist() == [float(LIMIT)], name
    assert read_swf(out).header.max_procs == LIMIT


def test_the_machine_inferred_beyond_2_53_names_the_job_or_takes_the_flags(
    tmp_path: Path,
) -> None:
    # Jobs 7 and 8 overlap (150..200 s): 2^52 + 2^52 + 2 CPUs at once > 2^53.
    half = str(2**52 + 1)
    dump = _sacct(tmp_path, {"NCPUS": half}, {"NCPUS": half})
    _refused(lambda: import_slurm([dump]), dump, 3, "MaxProcs", "--nodes/--cores")
    given = import_slurm([dump], ImportOptions(nodes=4, cores=2**40))
    assert given.trace.header.max_procs == 4 * 2**40


def test_heterogeneous_components_summing_beyond_2_53_are_refused(tmp_path: Path) -> None:
    dump = _sacct(
        tmp_path,
        {"JobID": "7+1", "NCPUS": "1"},
        {"JobID": "7+0", "NCPUS": str(LIMIT)},
    )
    _refused(lambda: import_slurm([dump]), dump, 3, "NCPUS", "components together")


# -- times, durations, digits ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("tz", "value"),
    [
        ("UTC", "999999999999"),  # epoch seconds in the year 33658
        ("UTC", "9" * 5000),
        ("Europe/Berlin", "0001-01-01T00:00:00"),  # one hour before year 1 in UTC
        ("America/New_York", "9999-12-31T23:59:59"),  # year 10000 in UTC
        ("UTC", "1969-12-31T23:59:59"),  # before 1970
    ],
)
def test_slurm_times_outside_1970_to_9999_are_refused(tmp_path: Path, tz: str, value: str) -> None:
    dump = _sacct(tmp_path, {"End": value})
    _refused(lambda: import_slurm([dump], ImportOptions(tz=tz)), dump, 3, "End", "out of range")


def test_pbs_times_beyond_9999_are_refused(tmp_path: Path) -> None:
    log = _pbs(tmp_path, "Resource_List.ncpus=2").read_text().replace("end=300", f"end={2**63}")
    path = tmp_path / "20240301"
    path.write_text(log)
    _refused(lambda: import_pbs([path]), path, 1, "end", "out of range")


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("Timelimit", "9" * 5000, r"more than 2\^53"),  # int() refuses > 4300 digits
        ("Timelimit", f"{2**53 // 60 + 1}", r"more than 2\^53"),  # minutes -> seconds
        ("NCPUS", "²", "not a count"),  # str.isdigit() says yes, int() says no
        ("NCPUS", "٣", "not a count"),  # Arabic-Indic three
        ("NNodes", "-1", "not a count"),
        ("JobIDRaw", "0", "not a positive job number"),
    ],
)
def test_slurm_numbers_are_ascii_digits_within_2_53(
    tmp_path: Path, field: str, value: str, problem: str
) -> None:
    dump = _sacct(tmp_path, {field: value})
    _refused(lambda: import_slurm([dump]), dump, 3, field, problem)


@pytest.mark.parametrize(
    ("attr", "field", "problem"),
    [
        ("Resource_List.ncpus=²", "Resource_List.ncpus", "not a count"),
        ("Resource_List.select=²:ncpus=1", "Resource_List.select", "chunk"),
        ("Resource_List.select=+++", "Resource_List.select", "chunk"),
        (f"Resource_List.select={2**52}:ncpus=4", "Resource_List.select", "2\\^53"),
        ("Resource_List.nodes=1:ppn=٣", "Resource_List.nodes", "ppn is not a count"),
        ("Resource_List.walltime=" + "9" * 5000, "Resource_List.walltime", "2\\^53"),
        (f"Resource_List.ncpus=1 Resource_List.mem={2**63}tb", "Resource_List.mem", "KB per"),
        (f"exec_host=n1/0-{2**60}*{2**10}", "exec_host", "2\\^53"),
        ("start=" + "9" * 5000, "start", "out of range"),
    ],
)
def test_pbs_values_are_ascii_digits_within_range(
    tmp_path: Path, attr: str, field: str, problem: str
) -> None:
    log = _pbs(tmp_path, attr)
    _refused(lambda: import_pbs([log]), log, 2, field, problem)


# -- the operator's numbers -----------------------------------------------------------------


def test_operator_numbers_beyond_2_53_are_refused(tmp_path: Path) -> None:
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps({"user": {"alice": LIMIT + 1}}))
    with pytest.raises(ConfigError, match=r"alice.*2\^53"):
        read_ids(ids)
    with pytest.raises(ConfigError, match=r"2\^53"):
        ImportOptions(ids={"user": {"alice": LIMIT + 1}})
    with pytest.raises(ConfigError, match=r"--nodes \(times --cores\)"):
        ImportOptions(nodes=2**30, cores=2**30)
    # The next free number after the operator's largest would pass 2^53.
    dump = _sacct(tmp_path, {})
    text = dump.read_text().replace("|batch|", "|p|")
    dump.write_text(text)
    with pytest.raises(ConfigError, match=r"partition numbers after its largest"):
        import_slurm([dump], ImportOptions(ids={"partition": {"other": LIMIT}}))


def test_a_partition_name_with_braces_is_quoted_in_the_notes() -> None:
    fixture = Path(__file__).parent / "fixtures" / "sacct_cases.txt"
    result = import_slurm([fixture], ImportOptions(partition="{n}{0}"))
    assert any("not in partition {n}{0}" in note for note in result.notes)


# -- values written as -1 or taken from another field are counted -------------------------


def _noted(result: object, sentence: str, swf: Path) -> None:
    """``sentence`` is in the notes and in the SWF header written of the import."""
    notes = result.notes  # type: ignore[attr-defined]
    assert sentence in notes, notes
    write_swf(result.trace, swf)  # type: ignore[attr-defined]
    assert f"; Note: {sentence}\n" in swf.read_text()


@pytest.mark.parametrize(
    ("change", "field", "sentence"),
    [
        ({"NCPUS": ""}, "allocated_procs",
         "wrote allocated processors -1 for 1 started jobs whose NCPUS is empty or 0"),
        ({"NCPUS": "0"}, "allocated_procs",
         "wrote allocated processors -1 for 1 started jobs whose NCPUS is empty or 0"),
        ({"ReqCPUS": ""}, "requested_procs",
         "wrote requested processors -1 for 1 jobs whose ReqCPUS is empty or 0"),
        ({"ReqCPUS": "0"}, "requested_procs",
         "wrote requested processors -1 for 1 jobs whose ReqCPUS is empty or 0"),
        ({"NNodes": "", "ReqMem": "64000Mn"}, "requested_memory",
         "wrote requested memory -1 for 1 jobs whose ReqMem is per node but whose NNodes or "
         "NCPUS is empty or 0 (memory per processor unknown)"),
        ({"ReqMem": "0"}, "requested_memory",
         "wrote requested memory -1 for 1 jobs whose ReqMem is empty or 0"),
    ],
)  # fmt: skip
def test_slurm_values_written_as_minus_one_are_counted_in_notes_and_header(
    tmp_path: Path, change: dict[str, str], field: str, sentence: str
) -> None:
    result = import_slurm([_sacct(tmp_path, change)])
    col = result.trace.table.set_index("job_id")[field]
    assert col.isna().tolist() == [False, True]  # job 7 as given, job 8 written -1
    _noted(result, sentence, tmp_path / "out.swf")


def test_slurm_memory_per_node_uses_the_node_count(tmp_path: Path) -> None:
    # 64,000 MB per node on 2 nodes for 4 CPUs: 32,000 MB = 32,768,000 KB per CPU.
    result = import_slurm([_sacct(tmp_path, {"NNodes": "2", "ReqMem": "64000Mn"})])
    assert result.trace.table["requested_memory"].tolist()[1] == 64000 * 1024 * 2 / 4


@pytest.mark.parametrize(
    ("attrs", "field", "sentence"),
    [
        ("exec_host=n1/0*2 Resource_List.ncpus=2 Resource_List.walltime=600", "run_time",
         "wrote run time -1 for 1 E records without end"),
        ("exec_host=n1/0*2 Resource_List.ncpus=2", "requested_time",
         "wrote requested time -1 for 1 jobs without Resource_List.walltime"),
        ("Resource_List.walltime=600", "allocated_procs",
         "wrote allocated processors -1 for 1 started jobs without exec_host or requested "
         "processors"),
        ("exec_host=n1/0*2 Resource_List.walltime=600", "requested_procs",
         "wrote requested processors -1 for 1 jobs whose Resource_List gives none (ncpus, "
         "select, nodes and nodect absent or 0)"),
    ],
)  # fmt: skip
def test_pbs_values_written_as_minus_one_are_counted_in_notes_and_header(
    tmp_path: Path, attrs: str, field: str, sentence: str
) -> None:
    path = _pbs(tmp_path, attrs)
    if field == "run_time":  # the E record without end=
        path.write_text(path.read_text().replace(" end=300 " + attrs, " " + attrs))
    result = import_pbs([path])
    col = result.trace.table.set_index("job_id")[field]
    assert col.isna().tolist() == [False, True]
    _noted(result, sentence, tmp_path / "out.swf")


def test_pbs_a_host_with_zero_cpus_is_refused(tmp_path: Path) -> None:
    path = _pbs(tmp_path, "exec_host=n1/0*0 Resource_List.ncpus=2")
    _refused(lambda: import_pbs([path]), path, 2, "exec_host", r"a host with 0 CPUs \(\*0\)")


@pytest.mark.parametrize("fmt", ["slurm", "pbs"])
def test_a_last_record_without_its_line_end_is_named(tmp_path: Path, fmt: str) -> None:
    if fmt == "slurm":
        path = _sacct(tmp_path, {})
    else:
        path = _pbs(tmp_path, "exec_host=n1/0*2 Resource_List.ncpus=2")
    path.write_text(path.read_text().rstrip("\n"))
    result = (import_slurm if fmt == "slurm" else import_pbs)([path])
    sentence = (
        f"the last record of {path} (line {2 if fmt == 'pbs' else 3}) has no line end: "
        "perhaps cut short (read as it stands)"
    )
    _noted(result, sentence, tmp_path / "out.swf")


@pytest.mark.parametrize(
    "stamp", ["2024-03-01T10:00:00.5", "2024-03-01T10:00:00.000001", "2024-03-01T10:00:00,5"]
)
def test_a_fractional_second_is_refused_as_such_not_as_daylight_saving(
    tmp_path: Path, stamp: str
) -> None:
    path = _sacct(tmp_path, {"Start": stamp, "Submit": "2024-03-01T09:00:00"})
    for tz in ("UTC", "Europe/Berlin"):
        with pytest.raises(WorkloadFormatError, match="a fractional second") as exc:
            import_slurm([path], ImportOptions(tz=tz))
        assert (exc.value.line, exc.value.field) == (3, "Start")
        assert "daylight" not in str(exc.value)


@pytest.mark.parametrize("value", ["1_000", "1_0", "0_1"])
@pytest.mark.parametrize("column", ["NCPUS", "ReqCPUS", "NNodes", "JobIDRaw"])
def test_slurm_underscore_digits_are_refused_by_line_and_field(
    tmp_path: Path, column: str, value: str
) -> None:
    path = _sacct(tmp_path, {column: value})
    _refused(lambda: import_slurm([path]), path, 3, column, "not")


@pytest.mark.parametrize(
    ("attr", "field"),
    [("Resource_List.ncpus=1_000", "Resource_List.ncpus"), ("start=1_000", "start"),
     ("exec_host=n1/0*1_0", "exec_host"),
     ("Resource_List.walltime=1_000", "Resource_List.walltime")],
)  # fmt: skip
def test_pbs_underscore_digits_are_refused_by_line_and_field(
    tmp_path: Path, attr: str, field: str
) -> None:
    path = _pbs(tmp_path, "exec_host=n1/0*2 Resource_List.ncpus=2 Resource_List.walltime=600")
    key = attr.partition("=")[0]
    text = path.read_text().splitlines()
    parts = [p for p in text[1].split(" ") if not p.startswith(key + "=")]
    text[1] = " ".join([*parts[:-1], attr, parts[-1]])
    path.write_text("\n".join(text) + "\n")
    _refused(lambda: import_pbs([path]), path, 2, field, "not")


def test_slurm_an_empty_nnodes_left_out_of_the_inferred_maxnodes_is_counted(
    tmp_path: Path,
) -> None:
    # Jobs 7 (1 node, 100..200 s) and 8 (NNodes empty, 150..250 s) overlap: the inferred
    # MaxNodes is 1, not 2, and the note says why.
    result = import_slurm([_sacct(tmp_path, {"NNodes": ""})])
    assert result.trace.header.max_nodes == 1
    sentence = "left 1 started jobs whose NNodes is empty or 0 out of the inferred MaxNodes"
    _noted(result, sentence, tmp_path / "out.swf")
    given = import_slurm([_sacct(tmp_path, {"NNodes": ""})], ImportOptions(nodes=4))
    assert not [n for n in given.notes if "NNodes" in n]  # --nodes: nothing inferred


def test_slurm_a_heterogeneous_component_without_ncpus_is_counted(tmp_path: Path) -> None:
    # Job 8 in two components, 8+0 with 4 CPUs and 8+1 with NCPUS empty: the sum is
    # unknown, -1, not 4.
    path = _sacct(tmp_path, {"JobID": "8+0"})
    extra = {**SACCT_GOOD, "JobIDRaw": "9", "JobID": "8+1", "NCPUS": "",
             "Start": "1700000150", "End": "1700000250"}  # fmt: skip
    names = SACCT_COLUMNS.split("|")
    path.write_text(path.read_text() + "|".join(extra[n] for n in names) + "\n")
    result = import_slurm([path])
    assert result.trace.table["allocated_procs"].isna().tolist() == [False, True]
    assert "wrote allocated processors -1 for 1 started jobs whose NCPUS is empty or 0" in (
        result.notes
    )


def test_pbs_a_job_without_hosts_left_out_of_the_inferred_maxnodes_is_counted(
    tmp_path: Path,
) -> None:
    result = import_pbs([_pbs(tmp_path, "Resource_List.ncpus=2 Resource_List.walltime=600")])
    assert result.trace.header.max_nodes == 1  # job 1's host n1 only
    sentence = (
        "left 1 started jobs without exec_host or Resource_List.nodect out of the inferred MaxNodes"
    )
    _noted(result, sentence, tmp_path / "out.swf")
