"""Lublin workloads drawn and written in chunks equal the whole-array draw, bit for bit.

The oracle is the model's draw code as it was before chunking (``lublin_whole.py``): the
chunked draws must give the same numbers for any chunk size, and leave the caller's
generator where the whole-array draws left it.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.errors import InvariantError
from cosched.workload.models import LublinParams, generate_lublin, lublin_chunks
from cosched.workload.models.lublin_draws import CappedGammas, merge_clocks
from cosched.workload.swf import SwfHeader, SwfTrace, read_swf
from cosched.workload.swf_write import swf_table, write_swf, write_swf_chunks
from tests.workload.lublin_whole import whole_arrays


@pytest.mark.parametrize(
    ("typeless", "n", "nodes", "alpha", "chunk"),
    [
        (False, 3000, 128, None, 7),
        (False, 3000, 64, None, 1000),
        (True, 3000, 128, None, 7),
        (True, 2500, 256, None, 512),
        (False, 2000, 128, 12.0, 333),  # many inter-arrival draws above the cap
        (True, 2000, 32, 12.0, 1),
        (False, 1, 16, None, 1),
    ],
)
def test_chunks_equal_the_whole_array_draws(
    typeless: bool, n: int, nodes: int, alpha: float | None, chunk: int
) -> None:
    whole, chunked = np.random.default_rng(11), np.random.default_rng(11)
    sub, queue, sizes, runs = whole_arrays(
        whole, LublinParams.for_machine(nodes), n, nodes, typeless, alpha
    )
    gen = lublin_chunks(n, nodes=nodes, rng=chunked, typeless=typeless, alpha=alpha, chunk=chunk)
    parts = list(gen)
    assert max(len(p) for p in parts) <= 4 * chunk  # a merge of two buffers of < 2 chunks
    t = pd.concat(parts, ignore_index=True)
    assert np.array_equal(t["submit_time"].to_numpy(), sub)
    assert np.array_equal(t["queue"].to_numpy(), queue)
    assert np.array_equal(t["procs"].to_numpy(), sizes)
    assert np.array_equal(t["run_time"].to_numpy(), runs)
    assert np.array_equal(t["job_id"].to_numpy(), np.arange(1, n + 1))
    # The caller's generator is left where the whole-array draws left it.
    assert whole.bit_generator.state == chunked.bit_generator.state
    # Iterating again makes the same tables.
    pd.testing.assert_frame_equal(pd.concat(list(gen), ignore_index=True), t)


def test_redraws_above_the_cap_are_exercised() -> None:
    """With alpha 12 the inter-arrival gammas exceed the cap often: the patching path runs."""
    shape = 12.0 * LublinParams().batch.arar
    g = CappedGammas.scan(np.random.default_rng(1), shape, 0.8531, 2000, 13.0, 100)
    assert g.idx.size > 10 and (g.fixed <= 13.0).all()


def test_load_scaling_in_chunks_equals_scale_to_load() -> None:
    from cosched.workload.transforms import scale_to_load

    w = generate_lublin(4000, nodes=64, rng=np.random.default_rng(3))
    scaled = scale_to_load(w, 0.7, 64)
    expected = np.floor(scaled.table["submit_time"].to_numpy())
    gen = lublin_chunks(4000, nodes=64, rng=np.random.default_rng(3), load=0.7, chunk=300)
    t = pd.concat(list(gen), ignore_index=True)
    assert np.array_equal(t["submit_time"].to_numpy(), expected)
    assert gen.notes == scaled.notes[-1:]


def test_merge_is_a_stable_sort_of_the_two_streams() -> None:
    rng = np.random.default_rng(4)
    a = np.sort(rng.integers(0, 50, 300)).astype(float)
    b = np.sort(rng.integers(0, 50, 300)).astype(float)
    got = list(merge_clocks(iter(np.array_split(a, 13)), iter(np.array_split(b, 7)), 400, 16))
    clocks = np.concatenate([c for c, _ in got])
    second = np.concatenate([s for _, s in got])
    order = np.argsort(np.concatenate((a, b)), kind="stable")[:400]
    assert np.array_equal(clocks, np.concatenate((a, b))[order])
    assert np.array_equal(second, order >= a.size)


def test_merge_refuses_a_stream_that_goes_backwards() -> None:
    bad = iter([np.array([1.0, 3.0]), np.array([2.0])])
    with pytest.raises(InvariantError, match="went backwards"):
        list(merge_clocks(bad, iter([np.array([5.0, 6.0, 7.0])]), 3, 1))


@pytest.mark.parametrize("name", ["t.swf", "t.swf.gz"])
def test_chunked_writer_gives_the_bytes_of_the_whole_writer(tmp_path: Path, name: str) -> None:
    rng = np.random.default_rng(9)
    n = 1000
    table = pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit_time": np.sort(rng.integers(0, 10**6, n)).astype(float),
            "run_time": rng.integers(1, 10**5, n).astype(float),
            # Fractional only in the last rows: the whole column becomes text.
            "avg_cpu_time": np.r_[np.full(n - 3, 5.0), [1.25, np.nan, 7.5]],
            "queue": np.where(rng.random(n) < 0.5, np.nan, 3.0),
        }
    )
    header = SwfHeader.from_mapping({"MaxProcs": "64"}, ("; MaxProcs: 64",))
    whole = SwfTrace(table, header, "x", np.arange(n))
    write_swf(whole, tmp_path / f"whole-{name}")
    parts = [table.iloc[i : i + 97] for i in range(0, n, 97)]
    write_swf_chunks(lambda: iter(parts), tmp_path / name, whole.header)
    assert (tmp_path / name).read_bytes() == (tmp_path / f"whole-{name}").read_bytes()
    if name.endswith(".gz"):
        assert gzip.decompress((tmp_path / name).read_bytes()).count(b"\n") == n + 1


def test_generate_command_writes_what_generate_lublin_writes(tmp_path: Path) -> None:
    from cosched.cli.main import main

    w = generate_lublin(2000, nodes=64, rng=np.random.default_rng(2), load=0.9)
    write_swf(w, tmp_path / "api.swf.gz")
    args = ["generate", "lublin", "--nodes", "64", "--jobs", "2000", "--seed", "2"]
    assert main([*args, "--load", "0.9", "-o", str(tmp_path / "cli.swf.gz")]) == 0
    assert (tmp_path / "cli.swf.gz").read_bytes() == (tmp_path / "api.swf.gz").read_bytes()
    back = read_swf(tmp_path / "cli.swf.gz")
    assert np.array_equal(
        back.table["allocated_procs"].to_numpy(), swf_table(w.table)["allocated_procs"].to_numpy()
    )
