"""Golden placement tests for Algorithm 1 on small machines."""

from __future__ import annotations

import math

import pytest

from cosched.errors import ConfigError
from cosched.nodeshare.configurations import configurations
from cosched.nodeshare.interference import preset_model
from cosched.nodeshare.placement import NodeBook, allowed, encode

LOW, MOD, HIGH = 0, 1, 2
MODEL = preset_model("prior")  # the hand calculations below use its 1.10 / 1.15


def coeffs(configs, cf=0.1, cp=0.2, dg=1.5):
    return MODEL.coefficients_for(configs, comm_fraction=cf, comm_penalty=cp, degradation=dg)


def test_paper_configurations_for_16_cores():
    labels = [c.label() for c in configurations(2, 16, max_nodes=100)]
    assert labels == [
        "(4n x 4)",
        "(2n x 8)",
        "(n x 16)",
        "(2n x 4)",
        "(n x 8)",
        "(n/2 x 16)",
        "(n/2 x 8)",
    ]
    degraded = [c.degraded for c in configurations(2, 16, max_nodes=100)]
    assert degraded == [False, False, False, True, True, True, True]


def test_odd_n_and_small_machines_drop_shapes():
    assert all(c.nodes >= 1 for c in configurations(1, 16, max_nodes=100))
    one = configurations(1, 16, max_nodes=1)
    assert [c.label() for c in one] == ["(n x 16)", "(n x 8)"]
    assert len(configurations(3, 16, max_nodes=100, degraded=False)) == 3
    with pytest.raises(ConfigError, match="base_nodes"):
        configurations(0, 16, max_nodes=4)


def test_degradation_and_communication_terms():
    cfgs = {c.label(): c for c in configurations(2, 16, max_nodes=100)}
    a, b = MODEL.coefficients(
        fraction=0.5,
        node_ratio=0.5,
        halvings=2.0,
        comm_fraction=0.2,
        comm_penalty=0.25,
        degradation=1.8,
    )
    assert cfgs["(n/2 x 8)"].halvings == 2.0
    assert math.isclose(a, 0.8 * 1.8**2 / 1.10)
    assert math.isclose(b, 0.2 / 1.25)


def test_empty_machine_takes_the_fastest_configuration():
    book = NodeBook(8, 16, 3, MODEL, "No_Restrict")
    configs = configurations(1, 16, max_nodes=8)
    cs = coeffs(configs)
    plan = book.best(HIGH, configs, cs)
    expected = min(range(len(configs)), key=lambda k: cs[k][0] + cs[k][1])
    assert plan is not None and plan.config is configs[expected]
    assert plan.config.label() == "(4n x 4)"
    assert len(set(plan.nodes)) == 4
    assert math.isclose(plan.factor, sum(cs[expected]))


def test_prefers_quieter_nodes_and_reports_the_worst():
    book = NodeBook(4, 16, 3, MODEL, "No_Restrict")
    book.add(100, [0], 4, HIGH)
    book.add(101, [1], 4, LOW)
    configs = configurations(2, 16, max_nodes=4, degraded=False)
    cs = coeffs(configs)
    plan = book.best(MOD, configs, cs)
    # (4n x 4) needs 8 nodes; (n x 16) fits only the two empty nodes at factor a + b;
    # (2n x 8) needs all four, the worst being the high one's.
    assert [c.label() for c in configs] == ["(2n x 8)", "(n x 16)"]
    a, b = cs[0]
    spread = a * (1 + MODEL.victim[MOD] * MODEL.pressure[HIGH]) + b
    assert spread > sum(cs[1])
    assert plan is not None and plan.config.label() == "(n x 16)"
    assert plan.nodes == (2, 3) and math.isclose(plan.factor, sum(cs[1]))
    book.add(102, [3], 4, LOW)  # now only node 2 is empty: the spread wins
    plan = book.best(MOD, configs, cs)
    assert plan is not None and plan.config.label() == "(2n x 8)"
    assert plan.nodes[0] == 2 and set(plan.nodes) == {0, 1, 2, 3}
    assert math.isclose(plan.factor, spread)


def test_job_cap_holds():
    book = NodeBook(1, 16, 3, MODEL, "No_Restrict")
    for idx in range(3):
        book.add(idx, [0], 4, LOW)
    configs = configurations(1, 16, max_nodes=1)
    assert book.free[0] == 4
    assert book.best(LOW, configs, coeffs(configs)) is None
    # Cores on a node at the cap are not usable: the block counts as capacity.
    assert book.blocked_by_capacity(configs)


@pytest.mark.parametrize(
    ("restriction", "present", "newcomer", "ok"),
    [
        ("No_Restrict", [HIGH], HIGH, True),
        ("Max_One_High", [HIGH], HIGH, False),
        ("Max_One_High", [HIGH, MOD], LOW, True),
        ("High_Rq_Low", [LOW], HIGH, True),
        ("High_Rq_Low", [MOD], HIGH, False),
        ("High_Rq_Low", [HIGH], MOD, False),
        ("High_Rq_Low", [MOD], MOD, True),
        ("Max_One_HM", [MOD], HIGH, False),
        ("Max_One_HM", [MOD], LOW, True),
        ("Max_One_HM", [LOW, LOW], MOD, True),
        ("Max_One_HM", [], HIGH, True),
    ],
)
def test_restrictions(restriction, present, newcomer, ok):
    counts = [present.count(k) for k in (LOW, MOD, HIGH)]
    assert allowed(restriction, encode(counts), newcomer) is ok
    book = NodeBook(1, 16, 3, MODEL, restriction)
    for i, s in enumerate(present):
        book.add(i, [0], 4, s)
    configs = configurations(1, 16, max_nodes=1)
    plan = book.best(newcomer, configs, coeffs(configs))
    assert (plan is not None) is ok


def test_degraded_configuration_only_when_allowed():
    book = NodeBook(1, 16, 3, MODEL, "No_Restrict")
    book.add(0, [0], 8, LOW)
    full = configurations(1, 16, max_nodes=1, degraded=False)
    assert book.best(LOW, full, coeffs(full)) is None
    assert book.blocked_by_capacity(full)  # 8 free cores, every full shape needs 16
    every = configurations(1, 16, max_nodes=1, degraded=True)
    plan = book.best(LOW, every, coeffs(every))
    assert plan is not None and plan.config.degraded and plan.config.label() == "(n x 8)"


def test_remove_restores_the_book():
    book = NodeBook(3, 16, 3, MODEL, "Max_One_HM")
    book.add(7, [0, 2], 4, HIGH)
    book.remove(7, [0, 2], 4, HIGH)
    assert book.code.tolist() == [0, 0, 0] and book.free.tolist() == [16, 16, 16]
    assert book.usable_free == 48 and sorted(book.empty_nodes()) == [0, 1, 2]


def test_the_default_preset_is_the_figure3_fit_and_prior_is_named():
    from cosched.errors import ConfigError
    from cosched.policies.base import make_policy

    default = make_policy("nodeshare")
    assert default.params()["interference"] == "fig3"
    # The values fitted by docs/studies/fit_nodeshare_fig3.py (docs/nodeshare.md).
    assert (default.speedup_half, default.speedup_quarter) == (1.075, 1.10)
    assert (default.victim_low, default.victim_moderate, default.victim_high) == (
        0.005,
        0.015,
        0.03,
    )
    prior = make_policy("nodeshare-easy", interference="prior", victim_high=0.5)
    assert (prior.speedup_half, prior.speedup_quarter) == (1.10, 1.15)
    assert (prior.victim_low, prior.victim_high) == (0.05, 0.5)  # a given value wins
    assert "victim_high given" in prior.assumptions()[0]
    with pytest.raises(ConfigError, match="interference"):
        make_policy("nodeshare", interference="strong")
