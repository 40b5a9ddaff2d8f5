"""Mutated sacct and PBS lines: a clean error naming line and field, or a readable SWF file.

Each mutant starts from the hand-checked fixtures (``fixtures/sacct_cases.txt``,
``fixtures/pbs_cases``) and changes one field of one line (or cuts the line short),
with values chosen to break a reader: numbers beyond 2^53 and 2^63, 5000 digits,
negatives, empty values, words, digits of other scripts, separators, out-of-range
times. The mutations come from a seeded generator, so a failure names a seed that
reproduces it. Every mutant must either

* raise only :class:`~cosched.errors.WorkloadFormatError` naming the file, a line of it
  and, unless the whole line is malformed, the field; and through the command line
  print exactly one line and exit 2, or
* import without a warning, every value written as -1 (run time, processors,
  requested time and memory) be counted by a note, the notes be in the SWF header, and
  the SWF file written of it (by the writer ``cosched trace import`` uses) must read
  back through :func:`~cosched.workload.swf.read_swf` with the same jobs.

Some mutations aim at the values an importer could write as -1 without a word: an
empty or 0 ``NCPUS``, ``ReqCPUS`` or ``NNodes``; an ``E`` record without ``end=``,
``Resource_List.walltime``, ``exec_host`` or ``Resource_List.ncpus``, or with
``exec_host=n1/0*0``; a file whose last line has no line end.
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from cosched.cli.main import main
from cosched.errors import WorkloadFormatError
from cosched.workload.importers import ImportOptions, ImportResult, import_log
from cosched.workload.swf import read_swf
from cosched.workload.swf_write import write_swf

FIX = Path(__file__).parent / "fixtures"
MUTANTS = 300  # per format

#: Errors about a whole line, which name no field.
WHOLE_LINE = ("fields separated by '|'", "not a PBS accounting record", "this looks like")

VALUES: list[str] = [
    # beyond what float64 holds exactly, beyond int64, beyond int() of a string
    "9" * 20,
    str(2**63),
    str(2**63 - 1),
    str(2**64),
    str(2**53),
    str(2**53 + 1),
    "9" * 400,
    "9" * 5000,
    "0" * 30 + "7",
    "1e400",
    # negative, empty, not numbers
    "-1",
    "-0",
    str(-(2**63)),
    "",
    "abc",
    "nan",
    "inf",
    "1.5",
    "0x10",
    "1_000",
    # digits of other scripts and odd characters
    "²",
    "٣",
    "७",
    "𝟡",
    "é",
    "\u00a0",
    "\u2028",
    "\x00",
    "\ufeff",
    # separators
    "|",
    ";",
    "+",
    "+++",
    "=",
    ":",
    "-",
    ",",
    "/",
    "*",
    "[]",
    "\t",
    # times at and beyond the edges of what dates hold
    "0",
    "253402300799",
    "999999999999",
    "0001-01-01T00:00:00",
    "9999-12-31T23:59:59",
    "1969-12-31T23:59:59",
    "2024-02-30T00:00:00",
]

ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Pacific/Kiritimati")


def _new_value(rng: np.random.Generator, old: str) -> str:
    """A replacement for the field value ``old``."""
    kind = int(rng.integers(5))
    if kind <= 1:
        return VALUES[int(rng.integers(len(VALUES)))]
    if kind == 2:  # cut short
        return old[: int(rng.integers(len(old) + 1))]
    if kind == 3:  # a huge number of the same shape
        return old + "0" * int(rng.integers(10, 30))
    # a separator inside
    k = int(rng.integers(len(old) + 1))
    return old[:k] + str(rng.choice(["|", "+", ":", "-", "=", ",", " ", "/", "*"])) + old[k:]


#: sacct columns whose empty or 0 value the importer writes as -1 (or uses to divide).
SACCT_QUIET = ("NCPUS", "ReqCPUS", "NNodes", "ReqMem")


def _mutate_sacct(rng: np.random.Generator, lines: list[str]) -> tuple[list[str], int]:
    """The sacct dump with one data line changed, and that line's number (1-based)."""
    k = int(rng.integers(1, len(lines)))
    values = lines[k].split("|")
    if rng.random() < 0.2:  # a value the importer could write as -1 quietly
        j = lines[0].split("|").index(str(rng.choice(SACCT_QUIET)))
        values[j] = str(rng.choice(["", "0"]))
        lines[k] = "|".join(values)
    elif rng.random() < 0.08:
        lines[k] = lines[k][: int(rng.integers(len(lines[k])))]
    else:
        j = int(rng.integers(len(values)))
        values[j] = _new_value(rng, values[j])
        lines[k] = "|".join(values)
    return lines, k + 1


#: The attributes of an E record the importer reads (most mutations go to these).
PBS_READ = (
    "qtime",
    "ctime",
    "etime",
    "start",
    "end",
    "exec_host",
    "Resource_List.ncpus",
    "Resource_List.select",
    "Resource_List.nodes",
    "Resource_List.nodect",
    "Resource_List.walltime",
    "Resource_List.mem",
    "Exit_status",
)


def _mutate_pbs(rng: np.random.Generator, lines: list[str]) -> tuple[list[str], int]:
    """The PBS file with one record changed, and that line's number (1-based)."""
    ends = [i for i, text in enumerate(lines) if ";E;" in text]
    k = int(rng.choice(ends)) if rng.random() < 0.75 else int(rng.integers(len(lines)))
    head, _, message = lines[k].rpartition(";")
    attrs = message.split(" ")
    read = [i for i, a in enumerate(attrs) if a.partition("=")[0] in PBS_READ]
    r = rng.random()
    if rng.random() < 0.2 and ";E;" in lines[k]:  # a value the importer could write as -1
        what = str(rng.choice(["end", "Resource_List.walltime", "exec_host", "Resource_List.ncpus",
                               "Resource_List.select", "n1/0*0"]))  # fmt: skip
        if what == "n1/0*0":
            attrs = [a for a in attrs if not a.startswith("exec_host=")] + ["exec_host=n1/0*0"]
        else:
            attrs = [a for a in attrs if a.partition("=")[0] != what]
        lines[k] = head + ";" + " ".join(attrs)
    elif r < 0.08:
        lines[k] = lines[k][: int(rng.integers(len(lines[k])))]
    elif r < 0.16:  # the date, type or job id
        parts = head.split(";")
        j = int(rng.integers(len(parts)))
        parts[j] = _new_value(rng, parts[j])
        lines[k] = ";".join(parts) + ";" + message
    else:
        j = int(rng.choice(read)) if read and r < 0.85 else int(rng.integers(len(attrs)))
        key, sep, value = attrs[j].partition("=")
        attrs[j] = key + sep + _new_value(rng, value) if sep else _new_value(rng, key)
        lines[k] = head + ";" + " ".join(attrs)
    return lines, k + 1


def _options(rng: np.random.Generator) -> tuple[ImportOptions, list[str]]:
    tz = str(rng.choice(ZONES))
    unstarted = "keep" if rng.random() < 0.5 else "drop"
    opts = ImportOptions(tz=tz, unstarted=unstarted)
    return opts, ["--tz", tz, "--unstarted", unstarted]


def _check_one(
    fmt: str,
    source: Path,
    files: set[str],
    out: Path,
    opts: ImportOptions,
    flags: list[str],
    capsys: pytest.CaptureFixture[str],
) -> str | None:
    """The problem with one mutant (None: it behaves)."""
    out.unlink(missing_ok=True)
    cli = ["trace", "import", fmt, str(source), "-o", str(out), *flags]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a numpy cast warning is a wrapped integer
            result = import_log(fmt, [source], opts)
    except WorkloadFormatError as exc:
        if exc.path not in files or exc.line is None:
            return f"error without its file and line: {exc}"
        if exc.field is None and not any(w in str(exc) for w in WHOLE_LINE):
            return f"error without its field: {exc}"
        code = main(cli)
        err = capsys.readouterr().err
        if code != 2 or err.count("\n") != 1 or not err.startswith("cosched: error: "):
            return f"command line: exit {code}, printed {err!r}"
        if f":{exc.line}:" not in err:
            return f"command line error without the line: {err!r}"
        return None
    quiet = _unexplained(result)
    if quiet:
        return quiet
    write_swf(result.trace, out)  # what `cosched trace import` does with the result
    back = read_swf(out)
    if back.table["job_id"].tolist() != result.trace.table["job_id"].tolist():
        return "the written file reads back with other jobs"
    missing = [n for n in result.notes if n not in back.header.raw.get("Note", "")]
    if missing:
        return f"notes not in the SWF header: {missing}"
    return None


#: What a note says of each field written as -1 for a job that started.
QUIET = {
    "run_time": "run time -1",
    "allocated_procs": "allocated processors -1",
    "requested_procs": "requested processors -1",
    "requested_time": "requested time -1",
    "requested_memory": "requested memory -1",
}


def _unexplained(result: ImportResult) -> str | None:
    """A field written as -1 that no note counts (None: every one is counted)."""
    table = result.trace.table
    said = " ".join(result.notes)
    started = table["wait_time"].notna()
    for name, words in QUIET.items():
        gap = table[name].isna()
        if (gap & started).any() and words not in said:
            return f"{name} written as -1 for a started job without a note ({words!r})"
        if (gap & ~started).any() and "--unstarted keep" not in said:
            return f"{name} written as -1 for a job that never started without a note"
    return None


def _fuzz(
    fmt: str,
    mutate: Callable[[np.random.Generator, list[str]], tuple[list[str], int]],
    target: Path,
    source: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Mutate ``target`` (a file of the log ``source``) again and again, and check each."""
    base = target.read_text().splitlines()
    files = {str(source)} if source.is_file() else {str(p) for p in source.iterdir()}
    out = source.parent / "out.swf"
    problems: list[str] = []
    for seed in range(MUTANTS):
        rng = np.random.default_rng([seed, len(fmt)])
        lines, line = mutate(rng, list(base))
        end = "" if rng.random() < 0.1 else "\n"  # a last line cut before its line end
        target.write_text("\n".join(lines) + end, encoding="utf-8")
        opts, flags = _options(rng)
        try:
            problem = _check_one(fmt, source, files, out, opts, flags, capsys)
        except Exception as exc:  # anything else escaping is the failure looked for
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            problems.append(f"seed {seed} (line {line}): {problem}")
    assert not problems, "\n".join(problems[:10])


def test_mutated_sacct_lines_give_clean_errors_or_readable_swf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "sacct.txt"
    shutil.copy(FIX / "sacct_cases.txt", target)
    _fuzz("slurm", _mutate_sacct, target, target, capsys)


def test_mutated_pbs_records_give_clean_errors_or_readable_swf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "pbs"
    shutil.copytree(FIX / "pbs_cases", folder)
    # One file of the two is mutated; the folder is read as one log.
    _fuzz("pbs", _mutate_pbs, folder / "20240301b", folder, capsys)
