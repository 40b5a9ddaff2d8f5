"""Every registered policy on a real archive trace, from the command line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.policies import all_policies
from cosched.workload.loader import load_workload

TRACE = Path(__file__).resolve().parents[3] / "shared" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.traces,
    pytest.mark.skipif(not TRACE.is_file(), reason=f"needs the KTH-SP2 trace at {TRACE}"),
]


@pytest.mark.parametrize("name", sorted(all_policies()))
def test_every_policy_runs_on_kth_sp2(name: str, tmp_path: Path) -> None:
    out = tmp_path / "jobs.csv"
    args = ["run", str(TRACE), "--policy", name, "--limit", "3000", "--jobs-out", str(out)]
    assert main(args) == 0
    jobs = pd.read_csv(out)
    kept = load_workload(TRACE, limit=3000).table["job_id"]  # the loader's rules drop some
    assert list(jobs["job_id"]) == list(kept)
    assert jobs["start_time"].notna().all() and (jobs["start_time"] >= jobs["submit_time"]).all()


def test_every_policy_runs_on_kth_sp2_in_a_two_worker_sweep(tmp_path: Path) -> None:
    names = sorted(all_policies())
    spec = tmp_path / "kth.toml"
    lines = [
        'name = "kth-every-policy"',
        "[[workloads]]",
        'kind = "swf"',
        f'path = "{TRACE}"',
        "limit = 3000",
    ]
    lines += [f'[[policies]]\nname = "{n}"' for n in names]
    spec.write_text("\n".join(lines) + "\n")
    out = tmp_path / "store"
    assert main(["sweep", str(spec), "--out", str(out), "--workers", "2"]) == 0
    table = pd.read_parquet(out / "results.parquet")
    kept = len(load_workload(TRACE, limit=3000))
    assert sorted(table["policy"]) == names
    assert list(table["status"]) == ["ok"] * len(names)
    assert (table["jobs"] == kept).all()
