"""Calibrations and causes declared as TOML data (cosched.experiments.declarations): each
file is read into the same records, and a bad entry is an error naming file, line and
key."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cosched.errors import ConfigError
from cosched.experiments.calibration import Calibration, declared_calibrations
from cosched.experiments.fidelity import Cause, declared_causes

PACKAGE = "cosched_declared_fixture"

CAUSE = """\
[[cause]]
family = "mine"
claims = ["fig1-*"]
kind = "missing mechanism"
cause = "the model lacks X"
evidence = "a run with X"
"""

FIT = """\
[[calibration]]
parameter = "k"
family = "mine"
value = "0.5"
fitted_to = ["fig1-a"]
method = "a grid"
held_out = ["fig2-*"]
"""


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    """An importable package, empty but for its ``__init__.py``, whose data files a test
    writes."""
    root = tmp_path / PACKAGE
    root.mkdir()
    (root / "__init__.py").write_text("")
    sys.path.insert(0, str(tmp_path))
    yield root
    sys.path.remove(str(tmp_path))
    sys.modules.pop(PACKAGE, None)


def _error(call: Callable[[], object], match: str) -> str:
    with pytest.raises(ConfigError, match=match) as got:
        call()
    return str(got.value)


def test_a_cause_is_read_into_its_record(package: Path) -> None:
    (package / "causes.toml").write_text(CAUSE)
    assert declared_causes(PACKAGE) == (
        Cause("mine", ("fig1-*",), "missing mechanism", "the model lacks X", "a run with X"),
    )


def test_a_passage_is_declared_once_and_joined_into_a_text(package: Path) -> None:
    text = CAUSE.replace('cause = "the model lacks X"', 'cause = [{ passage = "why" }, "; and Y"]')
    (package / "causes.toml").write_text('[passages]\nwhy = "the model lacks X"\n\n' + text)
    (cause,) = declared_causes(PACKAGE)
    assert cause.cause == "the model lacks X; and Y"


def test_a_multi_line_string_joins_its_lines_with_one_space(package: Path) -> None:
    text = CAUSE.replace('cause = "the model lacks X"', 'cause = """\\\nthe model \\\nlacks X"""')
    (package / "causes.toml").write_text(text)
    (cause,) = declared_causes(PACKAGE)
    assert cause.cause == "the model lacks X"


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (("evidence = ", 'evidnce = "typo"\nevidence = '), "unknown key 'evidnce'"),
        (('evidence = "a run with X"\n', ""), "missing field 'evidence'"),
        (('claims = ["fig1-*"]', 'claims = "fig1-*"'), "claims: expected an array of strings"),
        (('family = "mine"', "family = 3"), "family: expected a string"),
        (('kind = "missing mechanism"', 'kind = "a guess"'), "kind: 'a guess' is not one of"),
        (('cause = "the model lacks X"', 'cause = [{ passage = "none" }]'), "no passage 'none'"),
    ],
)
def test_a_bad_cause_names_file_line_and_key(
    package: Path, change: tuple[str, str], match: str
) -> None:
    # The second entry is the bad one: the error names its header's line (8).
    (package / "causes.toml").write_text(CAUSE + "\n" + CAUSE.replace(*change))
    message = _error(lambda: declared_causes(PACKAGE), match)
    assert message.startswith(f"{PACKAGE}/causes.toml:8: ")


def test_a_file_that_is_not_toml_or_not_there_is_named(package: Path) -> None:
    (package / "causes.toml").write_text('[[cause]]\nfamily = "mine\n')
    assert _error(lambda: declared_causes(PACKAGE), "causes.toml: ").startswith(PACKAGE)
    _error(lambda: declared_calibrations(PACKAGE), "calibrations.toml: no such declarations")
    (package / "causes.toml").write_text(CAUSE + "[elsewhere]\n")
    _error(lambda: declared_causes(PACKAGE), "unknown key 'elsewhere'")


def test_a_calibration_is_read_into_its_record(package: Path) -> None:
    (package / "calibrations.toml").write_text(FIT + 'claims_of = "paper"\nnot_kept = ["j"]\n')
    assert declared_calibrations(PACKAGE) == (
        Calibration("k", "mine", "0.5", ("fig1-a",), "a grid", ("fig2-*",), "paper", ("j",)),
    )


def test_also_declares_the_same_fit_for_a_study_of_the_reproduction(package: Path) -> None:
    also = 'also = [{ family = "study" }, { family = "other", not_kept = ["j"] }]\n'
    (package / "calibrations.toml").write_text(FIT + also)
    fit = Calibration("k", "mine", "0.5", ("fig1-a",), "a grid", ("fig2-*",))
    # Each copy is judged by the reproduction's claims, right after the fit it copies.
    assert declared_calibrations(PACKAGE) == (
        fit,
        Calibration("k", "study", "0.5", ("fig1-a",), "a grid", ("fig2-*",), "mine"),
        Calibration("k", "other", "0.5", ("fig1-a",), "a grid", ("fig2-*",), "mine", ("j",)),
    )


def test_keeps_gives_a_study_the_reproduction_s_fits_after_its_own(package: Path) -> None:
    study = FIT.replace('"k"', '"s"').replace('"mine"', '"study"') + 'keeps = "mine"\n'
    # The reproduction's fit is declared after the study: keeps reads the whole file.
    (package / "calibrations.toml").write_text(study + "\n" + FIT)
    own = Calibration("k", "mine", "0.5", ("fig1-a",), "a grid", ("fig2-*",))
    assert declared_calibrations(PACKAGE) == (
        Calibration("s", "study", "0.5", ("fig1-a",), "a grid", ("fig2-*",)),
        Calibration("k", "study", "0.5", ("fig1-a",), "a grid", ("fig2-*",), "mine"),
        own,
    )


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ('also = [{ family = "s", value = "1" }]\n', "also 1: unknown key 'value'"),
        ('also = [{ claims_of = "s" }]\n', "also 1: missing field 'family'"),
        ('also = ["s"]\n', "also: expected an array of tables"),
        ('keeps = "nobody"\n', "keeps: no fit of 'nobody' in the file"),
    ],
)
def test_a_bad_calibration_names_file_line_and_key(package: Path, extra: str, match: str) -> None:
    (package / "calibrations.toml").write_text(FIT + extra)
    message = _error(lambda: declared_calibrations(PACKAGE), match)
    assert message.startswith(f"{PACKAGE}/calibrations.toml:1")


def test_every_family_s_declarations_load() -> None:
    from cosched.experiments.calibration import all_calibrations
    from cosched.experiments.fidelity import causes

    families = {c.family for c in causes()}
    assert {"coupled", "lomarc", "nodeshare", "fcs", "dyncosched"} <= families
    assert {c.family for c in all_calibrations()} >= {"coupled", "lomarc", "nodeshare", "fcs"}
