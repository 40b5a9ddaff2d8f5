"""Tests of the Lublin-Feitelson model (cosched.workload.models.lublin)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cosched.errors import ConfigError
from cosched.workload.models import (
    BATCH_DEFAULTS,
    INTERACTIVE_DEFAULTS,
    TYPELESS_DEFAULTS,
    LublinClassParams,
    LublinParams,
    daily_cycle_weights,
    generate_lublin,
)
from cosched.workload.transforms import offered_load


def _gen(n: int = 5000, seed: int = 1, **kw: object):
    kw.setdefault("nodes", 128)
    return generate_lublin(n, rng=np.random.default_rng(seed), **kw)


def test_same_seed_gives_identical_table() -> None:
    for typeless in (False, True):
        a, b = _gen(typeless=typeless), _gen(typeless=typeless)
        pd.testing.assert_frame_equal(a.table, b.table)


def test_different_seeds_differ() -> None:
    assert not _gen(seed=1).table.equals(_gen(seed=2).table)


@pytest.mark.parametrize("typeless", [False, True])
def test_table_shape_and_ranges(typeless: bool) -> None:
    w = _gen(20000, typeless=typeless)
    t = w.table
    assert len(w) == 20000
    assert t["job_id"].tolist() == list(range(1, 20001))
    assert (np.diff(t["submit_time"]) >= 0).all()
    assert t["procs"].between(1, 128).all()
    assert t["run_time"].between(1, math.exp(12)).all()
    assert (t["run_time"] == np.floor(t["run_time"])).all()
    assert (t["submit_time"] == np.floor(t["submit_time"])).all()
    assert (t["requested_time"] == t["run_time"]).all()
    assert set(t["queue"].unique()) <= ({0.0} if typeless else {0.0, 1.0})
    assert w.max_nodes == w.max_procs == 128
    assert w.header["MaxRuntime"] == "162754"


def test_interactive_jobs_respect_their_size_cap() -> None:
    t = _gen(50000).table
    inter = t.loc[t["queue"] == 0, "procs"]
    assert inter.max() <= round(2**5.5)
    assert t.loc[t["queue"] == 1, "procs"].max() == 128


def test_zero_jobs() -> None:
    assert len(_gen(0)) == 0


def test_for_machine_128_is_the_defaults() -> None:
    assert LublinParams.for_machine(128) == LublinParams()


def test_for_machine_retargets_uhi_and_umed() -> None:
    p = LublinParams.for_machine(1024)
    assert p.batch.uhi == pytest.approx(10) and p.typeless.uhi == pytest.approx(10)
    assert p.batch.umed == pytest.approx(8) and p.typeless.umed == pytest.approx(7.5)
    assert p.interactive.uhi == pytest.approx(8.5) and p.interactive.umed == pytest.approx(6)
    t = _gen(20000, nodes=1024, typeless=True).table
    assert t["procs"].max() == 1024


@pytest.mark.parametrize("nodes", [1, 2, 3, 5, 100])
def test_small_and_odd_machines(nodes: int) -> None:
    w = _gen(3000, nodes=nodes)
    assert w.table["procs"].between(1, nodes).all()


def test_for_machine_overrides_and_unknown_field() -> None:
    assert LublinParams.for_machine(64, start_hour=8).start_hour == 8
    with pytest.raises(ConfigError, match="bogus"):
        LublinParams.for_machine(64, bogus=1)


def test_daily_cycle_matches_the_sheet() -> None:
    p = LublinParams()
    # Peak slot and busiest/quietest weights from MODELS.md section 1.2.
    for cp, peak, hi, lo in (
        (BATCH_DEFAULTS, 26, 1.67, 0.24),
        (INTERACTIVE_DEFAULTS, 28, 1.88, 0.12),
        (TYPELESS_DEFAULTS, 27, 1.83, 0.16),
    ):
        w = daily_cycle_weights(cp, p)
        assert w.shape == (48,) and w.mean() == pytest.approx(1.0)
        assert int(np.argmax(w)) == peak
        assert w.max() == pytest.approx(hi, abs=0.01)
        assert w.min() == pytest.approx(lo, abs=0.01)
        assert 8 <= int(np.argmin(w)) <= 10  # quietest around 04:00-05:00


def test_arrivals_follow_the_daily_cycle() -> None:
    t = _gen(100000, typeless=True).table
    slot = ((t["submit_time"].to_numpy() % 86400) // 1800).astype(int)
    counts = np.bincount(slot, minlength=48)
    w = daily_cycle_weights(TYPELESS_DEFAULTS, LublinParams())
    assert np.corrcoef(counts, w)[0, 1] > 0.9


def test_start_hour_shifts_the_cycle() -> None:
    p = LublinParams(start_hour=12)
    t = generate_lublin(
        100000, nodes=128, rng=np.random.default_rng(3), typeless=True, params=p
    ).table
    slot = ((t["submit_time"].to_numpy() % 86400) // 1800).astype(int)
    # The clock starts at noon, so the afternoon peak sits near slot 27 - 24 = 3.
    assert abs(int(np.argmax(np.bincount(slot, minlength=48))) - 3) <= 2


def test_alpha_controls_arrival_rate() -> None:
    gaps = [
        np.diff(_gen(50000, typeless=True, alpha=a).table["submit_time"]).mean()
        for a in (10.23, 9.83, 8.83)
    ]
    assert gaps[0] > gaps[1] > gaps[2]
    default_gap = np.diff(_gen(50000, typeless=True).table["submit_time"]).mean()
    assert gaps[0] == pytest.approx(default_gap, rel=0.05)


@pytest.mark.parametrize("target", [0.5, 0.9, 1.3])
def test_load_scales_arrivals(target: float) -> None:
    w = _gen(20000, load=target)
    assert offered_load(w, 128) == pytest.approx(target, rel=1e-3)


def test_sizes_and_runtimes_unchanged_by_load() -> None:
    a, b = _gen(3000), _gen(3000, load=0.8)
    for c in ("procs", "run_time", "queue"):
        assert a.table[c].equals(b.table[c])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"nodes": 0}, "nodes"),
        ({"nodes": -4}, "nodes"),
        ({"nodes": 12.5}, "nodes"),
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"load": 0.0}, "load"),
        ({"alpha": 9.0, "load": 0.5}, "alpha and load"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs: dict, name: str) -> None:
    kw = {"nodes": 128, **kwargs}
    with pytest.raises(ConfigError, match=name):
        generate_lublin(10, rng=np.random.default_rng(0), **kw)


def test_rng_must_be_a_generator() -> None:
    with pytest.raises(ConfigError, match="rng"):
        generate_lublin(10, nodes=8, rng=42)  # type: ignore[arg-type]


def test_bad_job_count() -> None:
    with pytest.raises(ConfigError, match="n_jobs"):
        generate_lublin(-1, nodes=8, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("serial_prob", 1.5),
        ("pow2_prob", -0.1),
        ("uprob", 2.0),
        ("a1", 0.0),
        ("barr", -1.0),
        ("umed", 8.0),
        ("ulow", -1.0),
    ],
)
def test_bad_class_parameters_name_the_field(field: str, value: float) -> None:
    from dataclasses import replace

    with pytest.raises(ConfigError, match=field):
        replace(TYPELESS_DEFAULTS, **{field: value})


def test_serial_plus_pow2_above_one() -> None:
    from dataclasses import replace

    with pytest.raises(ConfigError, match="serial_prob"):
        replace(BATCH_DEFAULTS, serial_prob=0.5, pow2_prob=0.6)


@pytest.mark.parametrize(
    ("field", "value"),
    [("runtime_cap", 0.0), ("interarrival_cap", -1.0), ("start_hour", 24), ("slots_per_day", 0)],
)
def test_bad_model_parameters_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=field):
        LublinParams(**{field: value})


def test_alpha_too_large_is_reported_not_looped() -> None:
    with pytest.raises(ConfigError, match="cap"):
        _gen(1000, typeless=True, alpha=60.0)


def test_class_params_is_frozen() -> None:
    with pytest.raises(AttributeError):
        TYPELESS_DEFAULTS.uhi = 3.0  # type: ignore[misc]
    assert isinstance(LublinParams().batch, LublinClassParams)


# Targets: the reference generator's measured output, 128 nodes. A single
# 200,000-job sample has a seed-to-seed spread of 1.5-3% on the heavy-tailed means
# (inter-arrival, class-separated run time, load), so the statistics pool 20
# independent 200,000-job workloads (fixed seeds 0..19) before comparing. Fast enough
# (about 1 s) to stay in the default suite.
_TARGETS = {
    True: {"serial": 0.244, "run": 4370, "size": 12.1, "gap": 910, "load": 0.72},
    False: {
        "serial": 0.175,
        "run": 1610,
        "size": 8.9,
        "gap": 525,
        "load": 0.40,
        "interactive": 0.85,
    },
}


def _pooled_stats(typeless: bool) -> dict[str, float]:
    serial = run = size = work = span = inter = 0.0
    jobs = gaps = 0
    for seed in range(20):
        t = _gen(200_000, seed=seed, typeless=typeless).table
        sub, r, p = (t[c].to_numpy(dtype=float) for c in ("submit_time", "run_time", "procs"))
        jobs += len(t)
        gaps += len(t) - 1
        serial += (p == 1).sum()
        run += r.sum()
        size += p.sum()
        work += (r * p).sum()
        span += sub[-1] - sub[0]
        inter += (t["queue"] == 0).sum()
    return {
        "serial": serial / jobs,
        "run": run / jobs,
        "size": size / jobs,
        "gap": span / gaps,
        "load": work / (128 * span),
        "interactive": inter / jobs,
    }


@pytest.mark.parametrize("typeless", [True, False])
def test_statistics_match_reference_generator(typeless: bool) -> None:
    got = _pooled_stats(typeless)
    for key, target in _TARGETS[typeless].items():
        if key in ("serial", "interactive"):
            assert got[key] == pytest.approx(target, abs=0.01), key
        else:
            assert got[key] == pytest.approx(target, rel=0.02), key
