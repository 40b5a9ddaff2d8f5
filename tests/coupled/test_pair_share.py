"""thin_pairs: the paper's share of paired jobs, drawn from the 2-minute rule's pairs."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.coupled.workloads import thin_pairs
from cosched.errors import ConfigError
from cosched.experiments.calibration import kept_fit
from cosched.workload.job import Workload
from cosched.workload.profiles.coupled import pair_workloads


def _two(n: int) -> tuple[Workload, Workload]:
    # Job i of each machine submitted at 600 i and 600 i + 30: every pair within 2 min.
    a = Workload.from_jobs([(600.0 * i, 1, 10.0) for i in range(n)])
    b = Workload.from_jobs([(600.0 * i + 30, 1, 10.0) for i in range(n)])
    return pair_workloads(a, b, rng=np.random.default_rng(0), window=120.0)


def test_keeps_the_share_of_the_smaller_workload_and_mates_stay_mutual() -> None:
    a, b = _two(40)
    assert (a.table["coupled_mate"] >= 0).sum() == 40
    ta, tb = thin_pairs(a, b, share=0.075, rng=np.random.default_rng(1))
    ma, mb = ta.table["coupled_mate"].to_numpy(), tb.table["coupled_mate"].to_numpy()
    assert (ma >= 0).sum() == (mb >= 0).sum() == 3  # round(0.075 x 40)
    ids_a, ids_b = ta.table["job_id"].to_numpy(), tb.table["job_id"].to_numpy()
    for i in np.flatnonzero(ma >= 0):
        j = int(np.flatnonzero(ids_b == ma[i])[0])
        assert mb[j] == ids_a[i]


def test_the_seed_draws_which_pairs_stay() -> None:
    a, b = _two(40)
    kept = [
        tuple(np.flatnonzero(thin_pairs(a, b, share=0.25, rng=np.random.default_rng(s))[0]
                             .table["coupled_mate"].to_numpy() >= 0))
        for s in (1, 1, 2)
    ]  # fmt: skip
    assert kept[0] == kept[1] != kept[2]


def test_fewer_pairs_than_the_share_keeps_them_all_and_a_bad_share_is_named() -> None:
    a, b = _two(4)
    ta, _ = thin_pairs(a, b, share=1.0, rng=np.random.default_rng(1))
    assert (ta.table["coupled_mate"] >= 0).sum() == 4
    with pytest.raises(ConfigError, match="pair_share must be in"):
        thin_pairs(a, b, share=1.5, rng=np.random.default_rng(1))


def test_a_study_keeps_only_the_reproduction_fits_it_uses() -> None:
    # The every-pair studies do not thin pairs, and the Atlas studies do not run the
    # stand-in: those fits' sets are judged there; the stand-in's fit holds in
    # coupled-2min, which runs the stand-in.
    assert kept_fit("coupled-2min", "coupled", "fig4-base-slowdown")
    assert not kept_fit("coupled-2min", "coupled", "pairing-share-analysis-0.5")
    assert not kept_fit("coupled-atlas-2min", "coupled", "fig4-base-slowdown")
    assert not kept_fit("coupled-atlas-2min", "coupled", "pairing-share-analysis-0.5")
    assert kept_fit("coupled-atlas", "coupled", "pairing-share-analysis-0.5")
    assert not kept_fit("coupled-atlas", "coupled", "fig4-base-slowdown")
