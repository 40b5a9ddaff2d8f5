"""Tests of annotated-workload files (cosched.workload.sidecar)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.errors import WorkloadError
from cosched.workload.job import Workload
from cosched.workload.models import generate_lublin
from cosched.workload.profiles import annotate
from cosched.workload.profiles.coupled import pair_workloads
from cosched.workload.sidecar import (
    attach_profiles,
    read_annotated,
    read_sidecar,
    sidecar_path,
    write_annotated,
    write_sidecar,
)


def _w(n: int = 3000, seed: int = 0) -> Workload:
    return generate_lublin(n, nodes=128, rng=np.random.default_rng(seed))


def test_sidecar_path() -> None:
    assert sidecar_path("a/b.swf") == Path("a/b.profile.parquet")
    assert sidecar_path("a/b.swf.gz") == Path("a/b.profile.parquet")
    assert sidecar_path("b.txt") == Path("b.txt.profile.parquet")


@pytest.mark.parametrize("name", ["lomarc", "nodeshare", "dyncosched"])
@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
def test_round_trip_is_exact(tmp_path: Path, name: str, suffix: str) -> None:
    w = annotate(name, _w(), rng=np.random.default_rng(4))
    path = tmp_path / f"x{suffix}"
    assert write_annotated(w, path) == tmp_path / "x.profile.parquet"
    back = read_annotated(path)
    pd.testing.assert_frame_equal(back.table[list(w.table.columns)], w.table)
    assert back.profile_columns == w.profile_columns
    assert back.max_nodes == w.max_nodes


def test_round_trip_coupled_pair(tmp_path: Path) -> None:
    a, b = pair_workloads(_w(seed=1), _w(seed=2), rng=np.random.default_rng(0))
    for w, stem in ((a, "a"), (b, "b")):
        write_annotated(w, tmp_path / f"{stem}.swf")
        back = read_annotated(tmp_path / f"{stem}.swf")
        pd.testing.assert_frame_equal(back.table[list(w.table.columns)], w.table)


def test_no_profile_columns_means_no_sidecar(tmp_path: Path) -> None:
    path = tmp_path / "x.swf"
    write_annotated(annotate("lomarc", _w(), rng=np.random.default_rng(0)), path)
    assert sidecar_path(path).exists()
    assert write_annotated(_w(), path) is None
    assert not sidecar_path(path).exists()  # the stale sidecar is gone
    assert read_annotated(path).profile_columns == ()


def test_in_memory_sidecar_round_trip(tmp_path: Path) -> None:
    w = annotate("nodeshare", _w(), rng=np.random.default_rng(0))
    write_sidecar(w, tmp_path / "s.parquet")
    side = read_sidecar(tmp_path / "s.parquet")
    assert list(side.columns) == ["job_id", *w.profile_columns]
    plain = Workload(w.table.drop(columns=list(w.profile_columns)), name="plain")
    back = attach_profiles(plain, side.sample(frac=1.0, random_state=0))  # order-free join
    pd.testing.assert_frame_equal(back.table, w.table)


def test_sidecar_rows_of_dropped_jobs_are_ignored(tmp_path: Path) -> None:
    w = annotate("dyncosched", _w(), rng=np.random.default_rng(0))
    write_annotated(w, tmp_path / "x.swf")
    back = read_annotated(tmp_path / "x.swf", limit=100)
    pd.testing.assert_frame_equal(back.table[list(w.table.columns)], w.table.iloc[:100])


def test_missing_sidecar_rows_are_an_error(tmp_path: Path) -> None:
    w = annotate("dyncosched", _w(), rng=np.random.default_rng(0))
    side = pd.DataFrame({"job_id": [1, 2], "dcs_job_type": [1, 2]})
    with pytest.raises(WorkloadError, match="no sidecar row"):
        attach_profiles(w, side)


def test_repeated_job_ids_are_an_error(tmp_path: Path) -> None:
    t = annotate("lomarc", _w(10), rng=np.random.default_rng(0)).table.copy()
    t["job_id"] = 1
    with pytest.raises(WorkloadError, match="job_id"):
        write_sidecar(Workload.from_table(t), tmp_path / "s.parquet")


def test_sidecar_without_job_id(tmp_path: Path) -> None:
    pd.DataFrame({"x": [1]}).to_parquet(tmp_path / "s.parquet")
    with pytest.raises(WorkloadError, match="job_id"):
        read_sidecar(tmp_path / "s.parquet")


def _cli(*argv: str) -> int:
    from cosched.cli.main import build_parser

    args = build_parser(argv).parse_args(list(argv))
    return args.func(args)


def test_cli_generate_then_annotate(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a.swf"), str(tmp_path / "b.swf")
    assert _cli("generate", "lublin", "--nodes", "64", "--jobs", "500", "--seed", "1", "-o", a) == 0
    w = read_annotated(a)
    expected = generate_lublin(500, nodes=64, rng=np.random.default_rng(1))
    pd.testing.assert_frame_equal(w.table[list(expected.table.columns)], expected.table)
    assert _cli("annotate", "lomarc", a, "--seed", "2", "--param", "mixture=M3", "-o", b) == 0
    got = read_annotated(b)
    want = annotate("lomarc", w, rng=np.random.default_rng(2), mixture="M3")
    pd.testing.assert_frame_equal(got.table, want.table)


def test_cli_bad_input_gives_exit_code_2(tmp_path: Path) -> None:
    out = str(tmp_path / "x.swf")
    with pytest.raises(SystemExit, match="2"):  # argparse refuses --nodes 0 itself
        _cli("generate", "lublin", "--nodes", "0", "--jobs", "5", "--seed", "1", "-o", out)
    assert _cli("generate", "lublin", "--nodes", "8", "--jobs", "50", "--seed", "1", "-o", out) == 0
    assert _cli("annotate", "nope", out, "--seed", "1", "-o", out) == 2
    assert _cli("annotate", "lomarc", out, "--seed", "1", "--param", "x", "-o", out) == 2
    assert _cli("annotate", "coupled", out, "--seed", "1", "-o", out) == 2
