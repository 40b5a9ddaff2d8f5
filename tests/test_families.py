"""Each family's declaration (cosched.families): read from its entry point, consistent
with the family's own policies, and refused with a one-line error when broken."""

from __future__ import annotations

import dataclasses
import importlib.metadata

import pytest

from cosched import families
from cosched.compare.cost import jobs_per_second
from cosched.compare.study import BASELINES, default_policies
from cosched.errors import ConfigError
from cosched.experiments import reproductions
from cosched.policies.base import policy_class


def test_each_built_in_family_is_declared_once_by_its_own_package() -> None:
    found = {f.name: f for f in families.families()}
    assert sorted(found) == ["coupled", "gang", "lomarc", "nodeshare", "timesharing"]
    for name, f in found.items():
        assert type(f).__module__ == "cosched.families"
        ep = next(
            e for e in importlib.metadata.entry_points(group=families.ENTRY_POINT_GROUP)
            if e.name == name
        )  # fmt: skip
        assert ep.value == f"cosched.{name}.family:FAMILY"


def test_what_a_family_declares_for_compare_fits_its_policies() -> None:
    for f in families.families():
        for name in f.compare:
            cls = policy_class(name)
            assert cls.family == f.name, name
            fields = {x.name for x in dataclasses.fields(cls)}  # type: ignore[arg-type]
            if f.conservative is not None:
                assert f.conservative[0] in fields
                assert f.conservative[2] in ("smt", "malleable")
            for _, kind, params, _ in f.controls:
                assert kind in ("assumption", "mechanism")
                assert set(params) <= fields


def test_compare_runs_the_baselines_then_each_familys_arms_in_rank_order() -> None:
    # the order compare has always run them in: arms keep their labels and places
    assert default_policies() == (
        *BASELINES, "nodeshare", "nodeshare-easy", "lomarc", "gang"
    )  # fmt: skip
    speeds = jobs_per_second()
    assert set(speeds) == {"batch", "nodeshare", "lomarc", "gang"}
    assert min(speeds.values()) == speeds["gang"]


def test_every_paper_belongs_to_a_shipped_reproduction() -> None:
    papers = families.papers()
    assert set(papers) == {"lomarc", "nodeshare", "dyncosched", "fcs", "coupled"}
    assert set(papers) <= set(reproductions.names())


def test_a_broken_family_entry_point_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def points(value: str) -> list[importlib.metadata.EntryPoint]:
        return [importlib.metadata.EntryPoint("mine", value, families.ENTRY_POINT_GROUP)]

    for value, said in (
        ("no_such_module_xyz:FAMILY", "failed to load"),
        ("cosched.families:ENTRY_POINT_GROUP", "is not a Family"),
        ("cosched.gang.family:FAMILY", "declares family 'gang'"),
    ):
        monkeypatch.setattr(importlib.metadata, "entry_points", lambda group, v=value: points(v))
        families.families.cache_clear()
        try:
            with pytest.raises(ConfigError, match=said):
                families.families()
        finally:
            monkeypatch.undo()
            families.families.cache_clear()


def test_an_install_older_than_the_families_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from cosched import plugins

    # a checkout updated without reinstalling: compare would silently run no family
    monkeypatch.setattr(plugins, "own", lambda group: {} if "families" in group else {"x": "y"})
    families.families.cache_clear()
    try:
        with pytest.raises(ConfigError, match="reinstall"):
            families.families()
    finally:
        monkeypatch.undo()
        families.families.cache_clear()


#: A plugin family's own causes and calibrations, named by its Family record (set by
#: the test below).
_PLUGIN_CAUSES: tuple[object, ...] = ()
_PLUGIN_CALIBRATIONS: tuple[object, ...] = ()


def test_a_plugin_family_adds_its_causes_calibrations_and_profiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A family outside cosched declares its gaps' causes, its fitted parameters and its
    # annotator in its Family record; the shared registries gather them with cosched's own.
    from cosched.experiments import calibration, fidelity

    cause = fidelity.Cause("mine", ("fig1-*",), "paper under-specified", "no trace", "a trace")
    fit = calibration.Calibration("k", "mine", "2", ("fig1-a",), "grid", ("fig1-b",))
    monkeypatch.setitem(globals(), "_PLUGIN_CAUSES", (cause,))
    monkeypatch.setitem(globals(), "_PLUGIN_CALIBRATIONS", (fit,))
    mine = families.Family(
        name="mine",
        causes=f"{__name__}:_PLUGIN_CAUSES",
        calibrations=f"{__name__}:_PLUGIN_CALIBRATIONS",
        profiles={"mine": "cosched.workload.profiles.recorded:annotate_recorded"},
    )
    real = families.families()
    fidelity.causes(), calibration.all_calibrations()
    monkeypatch.setattr(families, "families", lambda: (*real, mine))
    # Gathered again on first use, with the plugin's entries after cosched's own (the
    # gathered tuples are put back after the test).
    monkeypatch.delitem(vars(fidelity), "CAUSES")
    monkeypatch.delitem(vars(calibration), "CALIBRATIONS")
    assert fidelity.cause_of("mine", "fig1-x") == cause
    assert fidelity.CAUSES[-1] == cause and fidelity.cause_of("lomarc", "*") is not cause
    assert calibration.calibration_of("mine", "fig1-a") == fit
    assert calibration.calibration_of("mine", "fig1-b") is None
    assert calibration.CALIBRATIONS[-1] == fit
    assert families.profile("mine") == "cosched.workload.profiles.recorded:annotate_recorded"


def test_a_family_declaration_holding_something_else_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cosched.experiments.fidelity import Cause

    mine = families.Family(name="mine", causes=f"{__name__}:BASELINES")
    monkeypatch.setattr(families, "families", lambda: (mine,))
    with pytest.raises(ConfigError, match=r"family 'mine': causes .* is not a tuple of Cause"):
        families.each("causes", Cause)
