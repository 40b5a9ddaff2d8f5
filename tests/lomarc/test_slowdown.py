"""The slowdown model of section 4.1 on hand-computed values and the paper's Table 2."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cosched.errors import ConfigError, WorkloadError
from cosched.lomarc.matching import matchable, u_gain
from cosched.lomarc.slowdown import FORMULAS, Profile, SlowdownModel, pair_slowdown, profile_of


def prof(
    cpu: float,
    net: float,
    disk: float,
    *,
    mem: float = 0.2,
    cls: int = 0,
    index: int = 0,
    cpu_sl: float = 2.0,
) -> Profile:
    return Profile(index=index, cls=cls, cpu=cpu, net=net, disk=disk, mem=mem, cpu_slowdown=cpu_sl)


# Table 2: f_io = 0, so f_cpu = 1 - f_comm. "sl_e,max: X (Y)": X with CPU competition
# (c_cpu = 2), Y without (c_cpu = 1). By hand, the mixed pair (f_comm 0.4 with 0.6):
# m_cpu = min(0.6, 0.4) = 0.4, m_net = min(0.4, 0.6) = 0.4, so 1 + (2 - 1) 0.4 + (2 - 1)
# 0.4 = 1.8 and 1 + 0 + 0.4 = 1.4, the paper's 1.8 (1.4); the printed formula gives
# 2 x 0.4 + 2 x 0.4 = 1.6 and 0.4 + 0.8 = 1.2 (test_printed_formula_hand_values).
TABLE2 = [(0.4, 0.4, 2.0, 1.4), (0.6, 0.6, 2.0, 1.6), (0.4, 0.6, 1.8, 1.4), (0.6, 0.4, 1.8, 1.4)]


@pytest.mark.parametrize(("comm_a", "comm_b", "with_cpu", "without_cpu"), TABLE2)
def test_table2_estimates(
    comm_a: float, comm_b: float, with_cpu: float, without_cpu: float
) -> None:
    a = prof(1 - comm_a, comm_a, 0.0)
    b = prof(1 - comm_b, comm_b, 0.0)
    assert pair_slowdown(a, b, cpu_factor=2.0, formula="overlap") == pytest.approx(with_cpu)
    assert pair_slowdown(a, b, cpu_factor=1.0, formula="overlap") == pytest.approx(without_cpu)


@pytest.mark.parametrize(("comm_a", "comm_b", "with_cpu", "without_cpu"), TABLE2)
def test_the_default_reading_gives_table2s_worked_example(
    comm_a: float, comm_b: float, with_cpu: float, without_cpu: float
) -> None:
    # The default reading follows the paper's text: no formula named, Table 2's numbers.
    a = prof(1 - comm_a, comm_a, 0.0)
    b = prof(1 - comm_b, comm_b, 0.0, index=1)
    assert pair_slowdown(a, b, cpu_factor=2.0) == pytest.approx(with_cpu)
    assert pair_slowdown(a, b, cpu_factor=1.0) == pytest.approx(without_cpu)
    # The model on a standard CPU (CPU overlap costs 2) gives the left number too.
    assert SlowdownModel(hyperthreaded=False).slowdown(a, b) == pytest.approx(with_cpu)


def test_the_default_readings_are_table2s() -> None:
    from cosched.lomarc.policies import Lomarc

    assert FORMULAS[0] == SlowdownModel().formula == Lomarc().slowdown == "overlap"


def test_hand_computed_cpu_with_disk() -> None:
    cpu_job = prof(0.8, 0.1, 0.1, index=1, cpu_sl=1.4)
    disk_job = prof(0.3, 0.15, 0.55, cls=2, index=2, cpu_sl=1.4)
    # Overlap reading: 1 + (1.4 - 1) * 0.3 + min net 0.1 + min disk 0.1.
    overlap = SlowdownModel(formula="overlap")
    assert overlap.slowdown(cpu_job, disk_job) == pytest.approx(1.32)
    # Standard CPU: CPU overlap costs 2 -> 1 + 0.3 + 0.1 + 0.1.
    std = SlowdownModel(hyperthreaded=False, formula="overlap")
    assert std.slowdown(cpu_job, disk_job) == pytest.approx(1.5)
    # As printed (the preset): 2 x 0.3 + 2 x 0.1 + 2 x 0.1 = 1.0 on a standard CPU.
    printed = SlowdownModel(hyperthreaded=False, formula="printed")
    assert printed.slowdown(cpu_job, disk_job) == pytest.approx(1.0)


def test_pair_uses_the_later_jobs_cpu_draw() -> None:
    early = prof(0.8, 0.1, 0.1, index=1, cpu_sl=1.4)
    late = prof(0.7, 0.1, 0.2, index=5, cpu_sl=2.0)
    model = SlowdownModel(formula="overlap")
    assert model.cpu_factor(early, late) == model.cpu_factor(late, early) == 2.0
    # 1 + 1 * 0.7 + 0.1 + 0.1
    assert model.slowdown(early, late) == pytest.approx(1.9)
    # As printed: 2 * 0.7 + 2 * 0.1 + 2 * 0.1.
    assert SlowdownModel(formula="printed").slowdown(early, late) == pytest.approx(1.8)


def test_memory_conflict_gives_the_paging_slowdown() -> None:
    a = prof(0.8, 0.1, 0.1, mem=0.6)
    b = prof(0.3, 0.15, 0.55, mem=0.5, index=1)
    assert pair_slowdown(a, b, cpu_factor=1.4, formula="overlap") == 2.5
    assert pair_slowdown(a, b, cpu_factor=1.4, mem_slowdown=3.0, formula="overlap") == 3.0
    # As printed, sl_mem adds: 1.4 * 0.3 + 2 * 0.1 + 2 * 0.1 + 2.5 (or + 3).
    assert pair_slowdown(a, b, cpu_factor=1.4, formula="printed") == pytest.approx(3.32)
    assert pair_slowdown(
        a, b, cpu_factor=1.4, mem_slowdown=3.0, formula="printed"
    ) == pytest.approx(3.82)


fractions = st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)).filter(
    lambda t: sum(t) > 1e-3
)


@given(
    fa=fractions, fb=fractions, c=st.floats(1.0, 2.0), ma=st.floats(0, 0.5), mb=st.floats(0, 0.5)
)
def test_bounded_by_two_without_memory_conflict(fa, fb, c, ma, mb) -> None:  # type: ignore[no-untyped-def]
    # Both readings: "the maximum slowdown according to the above formula is 2 as long
    # as no memory conflicts are involved" (section 4.1), and sl_AB = sl_BA.
    a = prof(*(x / sum(fa) for x in fa), mem=ma)
    b = prof(*(x / sum(fb) for x in fb), mem=mb, index=1)
    for formula in FORMULAS:
        sl = pair_slowdown(a, b, cpu_factor=c, formula=formula)
        assert 1.0 - 1e-12 <= sl <= 2.0 + 1e-12
        assert sl == pytest.approx(pair_slowdown(b, a, cpu_factor=c, formula=formula))


def test_u_gain_hand_values() -> None:
    # Equal sizes and times, sl 1.6: 2 / 1.6 - 1 = 0.25.
    assert u_gain(4, 100, 4, 100, 1.6, timed=True) == pytest.approx(0.25)
    assert u_gain(4, 100, 4, 200, 1.6, timed=True) == pytest.approx(0.125)
    assert u_gain(4, 100, 4, 200, 1.6, timed=False) == pytest.approx(0.25)
    # Sizes 8 and 4: (4 * 0.25 - 4 * (1 - 1 / 1.6)) / 8 = -0.0625.
    assert u_gain(8, 100, 4, 100, 1.6, timed=False) == pytest.approx(-0.0625)


def test_matchable_rules() -> None:
    ht, std = SlowdownModel(), SlowdownModel(hyperthreaded=False)
    cpu_good = prof(0.8, 0.1, 0.1, cpu_sl=1.4, index=2)
    cpu_poor = prof(0.8, 0.1, 0.1, cpu_sl=2.0, index=3)
    cpu = prof(0.8, 0.1, 0.1, index=1)
    net = prof(0.3, 0.55, 0.15, cls=1, index=4)
    net2 = prof(0.3, 0.55, 0.15, cls=1, index=5)
    disk = prof(0.3, 0.15, 0.55, cls=2, index=6)
    big = prof(0.3, 0.15, 0.55, cls=2, index=7, mem=0.9)
    assert matchable(cpu, cpu_good, ht) and not matchable(cpu, cpu_poor, ht)
    assert matchable(cpu, net, ht) and matchable(net, disk, ht) and matchable(cpu, disk, ht)
    assert not matchable(net, net2, ht)
    assert not matchable(cpu, big, ht)
    assert matchable(cpu, disk, std) and matchable(disk, cpu, std)
    assert not matchable(cpu, net, std) and not matchable(net, disk, std)
    assert not matchable(cpu, cpu_good, std)


def test_bad_parameters_are_named() -> None:
    with pytest.raises(ConfigError, match="mem_slowdown"):
        SlowdownModel(mem_slowdown=0.5)
    with pytest.raises(WorkloadError, match="lomarc_cpu"):
        profile_of(0, {"lomarc_class": 0})


def test_printed_formula_hand_values() -> None:
    # Section 4.1 as printed: c_cpu * min f_CPU + 2 min f_net + 2 min f_disk.
    # Table 2's equal pairs give the same as the overlap form: 2 * 0.6 + 2 * 0.4 = 2.
    a, b = prof(0.6, 0.4, 0.0), prof(0.6, 0.4, 0.0, index=1)
    assert pair_slowdown(a, b, cpu_factor=2.0, formula="printed") == pytest.approx(2.0)
    # The mixed pair (f_comm 0.4 with 0.6): 2 * 0.4 + 2 * 0.4 = 1.6 (the overlap form:
    # 1.8, Table 2's printed estimate).
    c = prof(0.4, 0.6, 0.0, index=1)
    assert pair_slowdown(a, c, cpu_factor=2.0, formula="printed") == pytest.approx(1.6)
    # CPU-bound with disk-bound: 1.4 * 0.3 + 2 * 0.1 + 2 * 0.1 = 0.82 -> at least 1.
    cpu_job = prof(0.8, 0.1, 0.1, index=1, cpu_sl=1.4)
    disk_job = prof(0.3, 0.15, 0.55, cls=2, index=2, cpu_sl=1.4)
    assert SlowdownModel(formula="printed").slowdown(cpu_job, disk_job) == 1.0
    # A memory conflict adds sl_mem: 2 * 0.3 + 2 * 0.15 + 2.5 = 3.4.
    big = prof(0.3, 0.15, 0.55, mem=0.9, index=3)
    assert pair_slowdown(a, big, cpu_factor=2.0, formula="printed") == pytest.approx(3.4)


@given(
    fa=fractions, fb=fractions, c=st.floats(1.0, 2.0), ma=st.floats(0, 0.5), mb=st.floats(0, 0.5)
)
def test_printed_formula_never_above_the_overlap_form(fa, fb, c, ma, mb) -> None:  # type: ignore[no-untyped-def]
    # printed = overlap - sum_r (f_A,r - m_r) <= overlap: it drops the unshared parts.
    a = prof(*(x / sum(fa) for x in fa), mem=ma)
    b = prof(*(x / sum(fb) for x in fb), mem=mb, index=1)
    sl = pair_slowdown(a, b, cpu_factor=c, formula="printed")
    assert 1.0 <= sl <= pair_slowdown(a, b, cpu_factor=c, formula="overlap") + 1e-12


def test_unknown_formula_is_named() -> None:
    with pytest.raises(ConfigError, match="formula"):
        SlowdownModel(formula="literal")


def test_memory_combinations_hand_values() -> None:
    # A paging pair (memory 0.6 + 0.5 > 1), CPU factor 1.4: m_cpu = 0.3, m_net = 0.1,
    # m_disk = 0.1, so the overlap form's shared parts give 1 + 0.4 x 0.3 + 0.1 + 0.1
    # = 1.32. Section 4.1 writes sl_mem as a summand (lines 475, 502); section 4.2
    # measured 2.5 as a whole pair's slowdown (lines 843-844).
    a = prof(0.8, 0.1, 0.1, mem=0.6)
    b = prof(0.3, 0.15, 0.55, mem=0.5, index=1)
    expected = {
        "overlap": 2.5,  # max(1.32, 2.5): the measured pair slowdown
        "overlap-add": 3.82,  # 1.32 + 2.5
        "overlap-excess": 2.82,  # 1.32 + (2.5 - 1)
        "printed": 3.32,  # 1.4 x 0.3 + 2 x 0.1 + 2 x 0.1 + 2.5
    }
    assert set(expected) == set(FORMULAS)
    for formula, value in expected.items():
        assert pair_slowdown(a, b, cpu_factor=1.4, formula=formula) == pytest.approx(value)
    # The same pair without the memory conflict: every overlap reading gives 1.32.
    fits = prof(0.3, 0.15, 0.55, mem=0.3, index=1)
    for formula in ("overlap", "overlap-add", "overlap-excess"):
        assert pair_slowdown(a, fits, cpu_factor=1.4, formula=formula) == pytest.approx(1.32)


@pytest.mark.parametrize("formula", ["overlap-add", "overlap-excess"])
def test_memory_combinations_keep_table2(formula: str) -> None:
    # Table 2's pairs fit in memory, so the memory reading leaves its estimates alone.
    for comm_a, comm_b, with_cpu, without_cpu in TABLE2:
        a, b = prof(1 - comm_a, comm_a, 0.0), prof(1 - comm_b, comm_b, 0.0, index=1)
        assert pair_slowdown(a, b, cpu_factor=2.0, formula=formula) == pytest.approx(with_cpu)
        assert pair_slowdown(a, b, cpu_factor=1.0, formula=formula) == pytest.approx(without_cpu)
