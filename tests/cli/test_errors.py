"""Bad flags and unwritable outputs: one line naming the flag, exit 2, before any work;
and ``--limit K`` giving K jobs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cosched.cli.main import main

BIG = "100000000000000000000"  # 10^20: above int64, far above 2^53
SPEC = (
    'name = "tiny"\nseeds = [1]\n[[workloads]]\nkind = "lublin"\nname = "lub"\n'
    'jobs = 20\nnodes = 8\n[[policies]]\nname = "fcfs"\n'
)
PROC = Path("/proc/self")


def _argparse_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The last stderr line of a command line argparse refuses (exit 2)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one stderr line of a command that fails with exit 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["run", "--policy", "conservative", "--procs", BIG], "--procs"),
        (["run", "--policy", "conservative", "--procs", "1e20"], "--procs"),
        (["run", "--nodes", "0"], "--nodes"),
        (["run", "--cores", str(2**53 + 1)], "--cores"),
        (["run", "--mpl", "-2"], "--mpl"),
        (["run", "--seed", "-1"], "--seed"),
        (["run", "--limit", "-1"], "--limit"),
        (["generate", "lublin", "--nodes", "8", "--jobs", "5", "--seed", "-1", "-o", "x"],
         "--seed"),
        (["generate", "lublin", "--nodes", BIG, "--jobs", "5", "--seed", "1", "-o", "x"],
         "--nodes"),
        (["generate", "lublin", "--nodes", "8", "--jobs", "-5", "--seed", "1", "-o", "x"],
         "--jobs"),
        (["sweep", "spec.toml", "--out", "x", "--workers", "0"], "--workers"),
    ],
)  # fmt: skip
def test_out_of_range_numbers_name_their_flag(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _argparse_error(argv, capsys)
    assert line.startswith("cosched ") and f"argument {flag}: must be a whole number" in line


def test_the_largest_machine_size_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    from cosched.cli._checks import MAX_SIZE
    from cosched.workload.swf import MAX_EXACT_INT

    assert MAX_SIZE == MAX_EXACT_INT
    # 2^53 processors: the bound is inclusive (a float64 metric holds it exactly).
    assert main(["run", "--policy", "conservative", "--procs", str(2**53)]) == 0
    assert f"{2**53} nodes x 1 core" in capsys.readouterr().out


def test_a_machine_too_large_for_memory_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # A placement-aware policy keeps per-node state: 2^53 nodes cannot be held.
    line = _error(["run", "--policy", "nodeshare-easy", "--nodes", str(2**53)], capsys)
    assert line == "cosched: error: out of memory (a smaller machine or workload may fit)"


def test_sweep_into_a_file_or_an_unwritable_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    a_file = tmp_path / "file"
    a_file.write_text("")
    line = _error(["sweep", str(spec), "--out", str(a_file)], capsys)
    assert line == f"cosched: error: --out {a_file} exists and is not a folder"
    line = _error(["sweep", str(spec), "--out", str(a_file / "sub")], capsys)
    assert line.startswith(f"cosched: error: --out {a_file / 'sub'} cannot be written (")
    assert a_file.read_text() == ""  # left alone
    assert main(["sweep", str(spec), "--out", str(tmp_path / "new" / "store")]) == 0
    assert not list((tmp_path / "new" / "store").glob(".cosched-probe*"))


@pytest.mark.skipif(not PROC.is_dir(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["run", "--jobs-out", "/proc/x.csv"], "--jobs-out"),
        (["run", "--summary-out", "/proc/x.json"], "--summary-out"),
        (["generate", "lublin", "--nodes", "8", "--jobs", "5", "--seed", "1", "-o", "/proc/x"],
         "-o/--output"),
        (["sweep", "SPEC", "--out", "/proc/x"], "--out"),
        (["reproduce", "coupled", "--quick", "--out", "/proc/x"], "--out"),
    ],
)  # fmt: skip
def test_an_output_the_system_refuses_is_named_before_any_work(
    argv: list[str], flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # /proc takes no new file even for root, whose permission bits say yes.
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    argv = [str(spec) if a == "SPEC" else a for a in argv]
    line = _error(argv, capsys)
    assert line.startswith(f"cosched: error: {flag} /proc/x") and "cannot be written" in line


def test_an_output_inside_a_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("")
    line = _error(["run", "--jobs-out", str(a_file / "jobs.csv")], capsys)
    assert line == f"cosched: error: --jobs-out {a_file / 'jobs.csv'}: {a_file} is not a folder"


def _swf(*rows: tuple[int, int, int, int]) -> str:
    """SWF lines from (job, submit, run time, processors); the other fields missing."""
    lines = ["; MaxProcs: 16"]
    for job, submit, run, procs in rows:
        values = [job, submit, -1, run, procs, -1, -1, procs, 100] + [-1] * 9
        lines.append(" ".join(map(str, values)))
    return "\n".join(lines) + "\n"


def test_limit_gives_that_many_jobs_after_the_loader_drops_some(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "drops.swf"
    # Jobs 2 (run time 0) and 4 (no processors) are dropped by the default rules.
    trace.write_text(_swf((1, 0, 10, 1), (2, 1, 0, 1), (3, 2, 10, 2), (4, 3, 10, -1),
                          (5, 4, 10, 4), (6, 5, 10, 1)))  # fmt: skip
    jobs = tmp_path / "jobs.csv"
    assert main(["run", str(trace), "--limit", "3", "--jobs-out", str(jobs)]) == 0
    out = capsys.readouterr().out
    assert "drops (3 jobs)" in out
    assert "kept the first 3 jobs of the trace (1 data lines left out after them" in out
    assert pd.read_csv(jobs)["job_id"].tolist() == [1, 3, 5]


def test_every_limit_flag_says_jobs() -> None:
    from cosched.cli.main import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    seen = 0
    for name, sub in commands.items():
        for action in sub._actions:
            if "--limit" in action.option_strings:
                seen += 1
                assert "first K jobs" in (action.help or ""), name
    assert seen >= 2  # run and validate at least
