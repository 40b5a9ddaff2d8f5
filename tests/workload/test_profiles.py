"""Tests of the profile annotators (cosched.workload.profiles)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from cosched.errors import ConfigError, UnknownNameError
from cosched.workload.job import Workload
from cosched.workload.models import generate_lublin
from cosched.workload.profiles import annotate, names
from cosched.workload.profiles.coupled import annotate_coupled, pair_workloads
from cosched.workload.profiles.dyncosched import JOB_TYPES, annotate_dyncosched
from cosched.workload.profiles.lomarc import MIXTURES, annotate_lomarc
from cosched.workload.profiles.nodeshare import annotate_nodeshare

N = 100_000


def _rng(seed: int = 7) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.fixture(scope="module")
def big() -> Workload:
    return generate_lublin(N, nodes=128, rng=_rng(0), typeless=True)


@pytest.fixture(scope="module")
def small() -> Workload:
    return generate_lublin(2000, nodes=128, rng=_rng(1))


def _share(values: pd.Series, value: object) -> float:
    return float((values == value).mean())


# ---- LOMARC --------------------------------------------------------------------------


@pytest.mark.parametrize("mixture", ["M1", "M2", "M3"])
def test_lomarc_class_mixture(big: Workload, mixture: str) -> None:
    t = annotate_lomarc(big, rng=_rng(), mixture=mixture).table
    for code, share in enumerate(MIXTURES[mixture]):
        assert _share(t["lomarc_class"], code) == pytest.approx(share, abs=0.01)


def test_lomarc_fractions_follow_the_per_class_scheme(big: Workload) -> None:
    t = annotate_lomarc(big, rng=_rng()).table
    cpu, net, disk = (t[c].to_numpy() for c in ("lomarc_cpu", "lomarc_net", "lomarc_disk"))
    assert np.allclose(cpu + net + disk, 1.0)
    cls = t["lomarc_class"].to_numpy()
    # (class, first fraction, its range, second fraction, its range, range of the sum)
    schemes = [
        (0, cpu, (0.5, 0.9), disk, (0.05, 0.4), (0.6, 0.95)),
        (2, disk, (0.4, 0.65), net, (0.05, 0.4), (0.5, 0.8)),
        (1, net, (0.4, 0.65), disk, (0.05, 0.4), (0.5, 0.8)),
    ]
    for code, a, ra, b, rb, rs in schemes:
        m = cls == code
        assert m.sum() > 10_000
        assert a[m].min() >= ra[0] and a[m].max() < ra[1]
        assert b[m].min() >= rb[0] and b[m].max() < rb[1]
        s = a[m] + b[m]
        assert s.min() >= rs[0] - 1e-12 and s.max() < rs[1]
        # Uniform on the allowed region: the region is wide, so values reach both ends.
        assert a[m].min() < ra[0] + 0.01 and a[m].max() > ra[1] - 0.01


def test_lomarc_memory_ranges(big: Workload) -> None:
    mem = annotate_lomarc(big, rng=_rng()).table["lomarc_mem"]
    assert mem.between(0.05, 1.0).all()
    assert float((mem <= 0.5).mean()) == pytest.approx(0.70, abs=0.01)
    assert float(((mem > 0.5) & (mem < 0.8)).mean()) == pytest.approx(0.25, abs=0.01)
    assert float((mem >= 0.8).mean()) == pytest.approx(0.05, abs=0.01)


def test_lomarc_cpu_pairing(big: Workload) -> None:
    t = annotate_lomarc(big, rng=_rng()).table
    assert t["lomarc_cpu_good"].dtype == bool
    assert float(t["lomarc_cpu_good"].mean()) == pytest.approx(0.33, abs=0.01)
    expected = np.where(t["lomarc_cpu_good"], 1.4, 2.0)
    assert np.array_equal(t["lomarc_cpu_slowdown"].to_numpy(), expected)


def test_lomarc_dtypes(small: Workload) -> None:
    t = annotate_lomarc(small, rng=_rng()).table
    assert t["lomarc_class"].dtype == np.int8
    for c in ("lomarc_cpu", "lomarc_net", "lomarc_disk", "lomarc_mem", "lomarc_cpu_slowdown"):
        assert t[c].dtype == np.float64


def test_lomarc_explicit_mixture(big: Workload) -> None:
    t = annotate_lomarc(big, rng=_rng(), mixture=(1.0, 0.0, 0.0)).table
    assert (t["lomarc_class"] == 0).all()


# ---- node sharing --------------------------------------------------------------------


def test_nodeshare_distributions(big: Workload) -> None:
    t = annotate_nodeshare(big, rng=_rng()).table
    assert t["ns_mem_sensitivity"].dtype == np.int8
    for code in (0, 1, 2):
        assert _share(t["ns_mem_sensitivity"], code) == pytest.approx(1 / 3, abs=0.01)
    for col, lo, hi in (
        ("ns_comm_fraction", 0.01, 0.20),
        ("ns_comm_penalty", 0.0, 0.40),
        ("ns_degradation", 1.5, 2.0),
    ):
        v = t[col]
        assert v.dtype == np.float64
        assert v.min() >= lo and v.max() <= hi
        assert float(v.mean()) == pytest.approx((lo + hi) / 2, rel=0.01)
        # Uniform: each quarter of the range holds a quarter of the jobs.
        q = np.histogram(v, bins=4, range=(lo, hi))[0] / len(v)
        assert np.allclose(q, 0.25, atol=0.01)


# ---- dynamic coscheduling ------------------------------------------------------------


def test_dyncosched_wl7_is_an_equal_mix(big: Workload) -> None:
    t = annotate_dyncosched(big, rng=_rng()).table
    assert t["dcs_job_type"].dtype == np.int8
    for jt in range(1, 7):
        assert _share(t["dcs_job_type"], jt) == pytest.approx(1 / 6, abs=0.01)


def test_dyncosched_wl8_and_single_type_workloads(big: Workload) -> None:
    t = annotate_dyncosched(big, rng=_rng(), workload="WL8").table
    for jt in (2, 4, 5):
        assert _share(t["dcs_job_type"], jt) == pytest.approx(1 / 3, abs=0.01)
    for jt in range(1, 7):
        t = annotate_dyncosched(big, rng=_rng(), workload=f"WL{jt}").table
        assert (t["dcs_job_type"] == jt).all()


def test_dyncosched_shares_match_table_2(small: Workload) -> None:
    t = annotate_dyncosched(small, rng=_rng(), skew=1.5).table
    assert JOB_TYPES[4] == (0.90, 0.05, 0.05) and JOB_TYPES[1] == (0.35, 0.15, 0.50)
    got = t[["dcs_comp", "dcs_io", "dcs_comm"]].to_numpy()
    want = np.array([JOB_TYPES[int(j)] for j in t["dcs_job_type"]])
    assert np.array_equal(got, want)
    assert np.allclose(got.sum(axis=1), 1.0)
    assert (t["dcs_skew"] == 1.5).all()


@pytest.mark.parametrize(
    ("annotator", "kwargs", "name"),
    [
        (annotate_lomarc, {"mixture": "M9"}, "mixture"),
        (annotate_lomarc, {"mixture": (0.5, 0.5, 0.5)}, "mixture"),
        (annotate_lomarc, {"memory_shares": (0.7, 0.3)}, "memory_shares"),
        (annotate_lomarc, {"good_pair_prob": 1.5}, "good_pair_prob"),
        (annotate_lomarc, {"good_pair_prob": -0.1}, "good_pair_prob"),
        (annotate_lomarc, {"good_slowdown": 0.5}, "good_slowdown"),
        (annotate_nodeshare, {"comm_fraction": (0.3, 0.2)}, "comm_fraction"),
        (annotate_nodeshare, {"comm_fraction": (0.1, 1.2)}, "comm_fraction"),
        (annotate_nodeshare, {"comm_penalty": (-0.1, 0.4)}, "comm_penalty"),
        (annotate_nodeshare, {"degradation": (0.5, 2.0)}, "degradation"),
        (annotate_nodeshare, {"sensitivity_shares": (0.5, 0.6, 0.1)}, "sensitivity_shares"),
        (annotate_dyncosched, {"workload": "WL9"}, "workload"),
        (annotate_dyncosched, {"skew": -0.1}, "skew"),
    ],
    ids=lambda v: v.__name__ if callable(v) else None,
)
def test_bad_parameters_are_refused_by_name(
    small: Workload, annotator: Callable[..., Workload], kwargs: dict, name: str
) -> None:
    with pytest.raises(ConfigError, match=name):
        annotator(small, rng=_rng(), **kwargs)


# ---- coupled machines ----------------------------------------------------------------


@pytest.fixture(scope="module")
def pair() -> tuple[Workload, Workload]:
    a = generate_lublin(20000, nodes=128, rng=_rng(2), typeless=True)
    b = generate_lublin(20000, nodes=64, rng=_rng(3), typeless=True)
    return a, b


def _check_mates(a: Workload, b: Workload) -> tuple[np.ndarray, np.ndarray]:
    ma, mb = a.table["coupled_mate"].to_numpy(), b.table["coupled_mate"].to_numpy()
    assert ma.dtype == np.int64 and mb.dtype == np.int64
    ida, idb = a.table["job_id"].to_numpy(), b.table["job_id"].to_numpy()
    pa = ma >= 0
    # One-to-one and symmetric: the mate of my mate is me.
    assert len(set(ma[pa])) == pa.sum() and pa.sum() == (mb >= 0).sum()
    row_b = {j: i for i, j in enumerate(idb)}
    assert all(mb[row_b[m]] == j for j, m in zip(ida[pa], ma[pa], strict=True))
    assert ((ma == -1) | pa).all()
    return ma, mb


def test_coupled_proximity_pairs(pair: tuple[Workload, Workload]) -> None:
    a, b = pair_workloads(*pair, rng=_rng())
    ma, mb = _check_mates(a, b)
    ta, tb = a.table["submit_time"].to_numpy(), b.table["submit_time"].to_numpy()
    row_b = {j: i for i, j in enumerate(b.table["job_id"])}
    rows = np.flatnonzero(ma >= 0)
    gaps = np.abs(ta[rows] - tb[[row_b[m] for m in ma[rows]]])
    assert rows.size > 100 and gaps.max() <= 120
    # Maximal: no unpaired job of a has an unpaired job of b within 2 minutes.
    free_b = np.sort(tb[mb < 0])
    free_a = ta[ma < 0]
    k = np.searchsorted(free_b, free_a)
    near = np.minimum(
        np.abs(free_a - free_b[np.clip(k - 1, 0, free_b.size - 1)]),
        np.abs(free_a - free_b[np.clip(k, 0, free_b.size - 1)]),
    )
    assert (near > 120).all()


def test_coupled_window_changes_pair_count(pair: tuple[Workload, Workload]) -> None:
    def n_pairs(window: float) -> int:
        a, _ = pair_workloads(*pair, rng=_rng(), window=window)
        return int((a.table["coupled_mate"] >= 0).sum())

    assert n_pairs(30) < n_pairs(120) < n_pairs(600)


@pytest.mark.parametrize("proportion", [0.025, 0.05, 0.10, 0.20, 0.33])
def test_coupled_proportion(pair: tuple[Workload, Workload], proportion: float) -> None:
    a, b = pair_workloads(*pair, rng=_rng(), proportion=proportion)
    ma, _ = _check_mates(a, b)
    assert (ma >= 0).sum() == round(proportion * 20000)


def test_coupled_identical_workloads_pair_fully(pair: tuple[Workload, Workload]) -> None:
    a, _ = pair_workloads(pair[0], pair[0], rng=_rng())
    assert (a.table["coupled_mate"] == a.table["job_id"]).all()


def test_annotate_coupled_is_first_of_pair(pair: tuple[Workload, Workload]) -> None:
    a = annotate_coupled(pair[0], rng=_rng(), other=pair[1], proportion=0.1)
    b, _ = pair_workloads(*pair, rng=_rng(), proportion=0.1)
    pd.testing.assert_frame_equal(a.table, b.table)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"proportion": 1.5}, "proportion"), ({"window": 0.0}, "window"), ({"window": -5}, "window")],
)
def test_coupled_bad_parameters(pair: tuple[Workload, Workload], kwargs: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        pair_workloads(*pair, rng=_rng(), **kwargs)


# ---- all annotators ------------------------------------------------------------------


def _params(name: str, other: Workload) -> dict:
    return {"other": other, "proportion": 0.2} if name == "coupled" else {}


# "recorded" reads the trace's recorded starts and draws nothing: same output for any seed.
@pytest.mark.parametrize("name", sorted(set(names()) - {"recorded"}))
def test_determinism(small: Workload, name: str) -> None:
    other = generate_lublin(2000, nodes=64, rng=_rng(5))
    runs = [annotate(name, small, rng=_rng(s), **_params(name, other)) for s in (11, 11, 12)]
    pd.testing.assert_frame_equal(runs[0].table, runs[1].table)
    assert not runs[0].table.equals(runs[2].table)


@pytest.mark.parametrize("name", names())
def test_input_unchanged_and_columns_prefixed(small: Workload, name: str) -> None:
    before = small.table.copy()
    other = generate_lublin(2000, nodes=64, rng=_rng(5))
    out = annotate(name, small, rng=_rng(), **_params(name, other))
    pd.testing.assert_frame_equal(small.table, before)
    prefix = {
        "lomarc": "lomarc_",
        "nodeshare": "ns_",
        "dyncosched": "dcs_",
        "coupled": "coupled_",
        "recorded": "recorded_",
    }
    assert out.profile_columns and all(c.startswith(prefix[name]) for c in out.profile_columns)
    assert len(out.notes) == len(small.notes) + 1


def test_unknown_profile() -> None:
    with pytest.raises(UnknownNameError, match="lomarc"):
        annotate("lomark", Workload.from_jobs([(0, 1, 10)]), rng=_rng())


def test_rng_must_be_a_generator(small: Workload) -> None:
    with pytest.raises(ConfigError, match="rng"):
        annotate_lomarc(small, rng=42)  # type: ignore[arg-type]


def test_empty_workload() -> None:
    w = generate_lublin(0, nodes=8, rng=_rng())
    for name in ("lomarc", "nodeshare", "dyncosched"):
        assert len(annotate(name, w, rng=_rng())) == 0
    a, b = pair_workloads(w, w, rng=_rng(), proportion=0.5)
    assert len(a) == len(b) == 0


def _plugin_annotator(w: Workload, *, rng: np.random.Generator, scale: float = 1.0) -> Workload:
    """A package's own annotator: one profile column, each job's draw times ``scale``."""
    t = w.table.copy()
    t["mine_draw"] = rng.random(len(t)) * scale
    return w.replace_table(t)


def test_a_package_brings_its_own_annotator_by_entry_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.metadata

    from cosched.workload import profiles

    ep = importlib.metadata.EntryPoint(
        name="mine",
        value="tests.workload.test_profiles:_plugin_annotator",
        group=profiles.ENTRY_POINT_GROUP,
    )
    broken = importlib.metadata.EntryPoint(
        name="broken", value="no_such_module_here:f", group=profiles.ENTRY_POINT_GROUP
    )
    real = importlib.metadata.entry_points

    def entry_points(group: str) -> object:
        return [ep, broken] if group == profiles.ENTRY_POINT_GROUP else real(group=group)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(profiles, "PROFILES", dict(profiles.PROFILES))
    w = generate_lublin(20, nodes=8, rng=np.random.default_rng(1))
    out = profiles.annotate("mine", w, rng=np.random.default_rng(2), scale=2.0)
    want = np.random.default_rng(2).random(20) * 2.0
    assert np.array_equal(out.table["mine_draw"].to_numpy(), want)
    assert profiles.PROFILES["mine"] is _plugin_annotator  # loaded once, then held
    with pytest.raises(ConfigError, match=r"'broken' .* failed to load"):
        profiles.annotator("broken")
    with pytest.raises(UnknownNameError):
        profiles.annotator("nobody")
