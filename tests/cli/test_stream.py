"""``cosched run --stream`` writes what the in-memory run writes, and refuses what it
cannot stream by name."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cosched.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "cosched" / "data" / "example.swf"


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_streamed_run_prints_and_writes_what_the_in_memory_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str
) -> None:
    out = {}
    for mode in ("memory", "stream"):
        jobs, summary = tmp_path / f"{mode}.csv", tmp_path / f"{mode}.json"
        args = ["run", str(EXAMPLE), "--policy", policy, "--by-class"]
        args += ["--jobs-out", str(jobs), "--summary-out", str(summary)]
        assert main([*args, "--stream"] if mode == "stream" else args) == 0
        out[mode] = (capsys.readouterr().out, jobs.read_bytes(), json.loads(summary.read_text()))
    assert out["stream"][0] == out["memory"][0]
    assert out["stream"][1] == out["memory"][1]
    got, want = out["stream"][2], out["memory"][2]
    for key, value in want["metrics"].items():
        if "bounded_slowdown" in key:  # fractional: a histogram within 1e-4
            assert got["metrics"][key] == pytest.approx(value, rel=1e-4), key
        else:
            assert got["metrics"][key] == value, key
    assert {k: v for k, v in got.items() if k != "metrics"} == {
        k: v for k, v in want.items() if k != "metrics"
    }


def test_streamed_parquet_holds_the_same_table(tmp_path: Path) -> None:
    for mode in ("memory", "stream"):
        args = ["run", str(EXAMPLE), "--jobs-out", str(tmp_path / f"{mode}.parquet")]
        assert main([*args, "--stream"] if mode == "stream" else args) == 0
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "stream.parquet"), pd.read_parquet(tmp_path / "memory.parquet")
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--limit", "10"], "cannot be combined with --limit"),
        (["--jobs-format", "batsim"], "csv or parquet, not batsim"),
        (["--policy", "nodeshare-easy"], "needs per-job profiles"),
    ],
)
def test_what_cannot_be_streamed_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    args = ["run", str(EXAMPLE), "--stream", "--jobs-out", str(tmp_path / "j.csv"), *extra]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_a_generated_workload_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "lublin:jobs=10,nodes=8", "--stream"]) == 2
    assert "--stream reads SWF files" in capsys.readouterr().err


def test_a_large_trace_streams_by_itself_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cosched.cli.run as run

    size = EXAMPLE.stat().st_size
    out = {}
    for mode, limit in (("memory", size + 1), ("auto", size)):
        monkeypatch.setattr(run, "STREAM_FROM", limit)
        jobs = tmp_path / f"{mode}.csv"
        assert main(["run", str(EXAMPLE), "--policy", "easy", "--jobs-out", str(jobs)]) == 0
        out[mode] = (capsys.readouterr().out, jobs.read_bytes())
    assert "streamed:" not in out["memory"][0]
    assert f"note      streamed: example.swf holds {size / (1 << 30):.1f} GiB" in out["auto"][0]
    assert out["auto"][1] == out["memory"][1]
    # --stream never keeps it in memory; --stream alone streams whatever the size
    assert main(["run", str(EXAMPLE), "--policy", "easy", "--stream", "never"]) == 0
    assert "streamed:" not in capsys.readouterr().out
    monkeypatch.setattr(run, "STREAM_FROM", 1 << 40)
    args = ["run", str(EXAMPLE), "--policy", "easy", "--stream", "--jobs-out", str(jobs)]
    assert main(args) == 0 and jobs.read_bytes() == out["memory"][1]


@pytest.mark.parametrize(
    "extra",
    [["--policy", "gang"], ["--policy", "easy", "--jobs-format", "batsim"]],
    ids=["time-sharing", "batsim-table"],
)
def test_what_cannot_be_streamed_whole_runs_in_memory_whatever_the_size(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
) -> None:
    import cosched.cli.run as run

    monkeypatch.setattr(run, "STREAM_FROM", 1)
    args = ["run", str(EXAMPLE), *extra, "--jobs-out", str(tmp_path / "jobs.csv")]
    assert main(args) == 0
    assert "streamed:" not in capsys.readouterr().out


def test_text_size_of_a_gzip_trace_from_its_trailer(tmp_path: Path) -> None:
    import gzip

    from cosched.cli.run import text_bytes

    plain = EXAMPLE.read_bytes()
    gz = tmp_path / "t.swf.gz"
    gz.write_bytes(gzip.compress(plain))
    assert text_bytes(gz) == len(plain)
    # a file of 200 MB (sparse) whose trailer says 50 bytes has wrapped modulo 2**32
    fake = tmp_path / "big.swf.gz"
    with fake.open("wb") as fh:
        fh.truncate(200_000_000 - 4)
        fh.seek(0, 2)
        fh.write((50).to_bytes(4, "little"))
    assert text_bytes(fake) == 50 + (1 << 32)
