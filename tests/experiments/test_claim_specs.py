"""The specs behind the claim tables (docs/claims/*.toml): each loads, and each 20-seed
spec runs 20 seeds, the verdict rule's cap, whose first are the run it extends."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosched.experiments.claims import SEED_CAP
from cosched.experiments.model import load_experiment
from cosched.experiments.reproductions import spec

CLAIMS = Path(__file__).resolve().parents[2] / "docs" / "claims"
SPECS = sorted(CLAIMS.glob("*.toml"))
#: Each 20-seed spec and the run whose cells it reuses: a reproduction (its full grid)
#: or another spec in docs/claims.
EXTENDS = {
    "coupled-20seeds.toml": "coupled",
    "dyncosched-20seeds.toml": "dyncosched",
    "fcs-20seeds.toml": "fcs",
    "lomarc-20seeds.toml": "lomarc",
    "nodeshare-20seeds.toml": "nodeshare-inventory.toml",
}


def test_every_spec_is_listed_or_a_plain_spec() -> None:
    assert SPECS
    twenty = {p.name for p in SPECS if p.name.endswith("-20seeds.toml")}
    assert twenty == set(EXTENDS)


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_each_spec_loads(path: Path) -> None:
    exp = load_experiment(path)
    assert exp.tasks()


@pytest.mark.parametrize("name", sorted(EXTENDS))
def test_a_20_seed_spec_extends_its_run(name: str) -> None:
    exp = load_experiment(CLAIMS / name)
    base = EXTENDS[name]
    extended = load_experiment(CLAIMS / base) if base.endswith(".toml") else spec(base)
    assert len(exp.seeds) == SEED_CAP
    assert exp.seeds[: len(extended.seeds)] == extended.seeds
    assert exp.cell == extended.cell
    # Its cells of those seeds are the run's own cells (the same keys), so a copy of
    # that run's store supplies them.
    base_keys = {t.key for t in extended.tasks()}
    shared = [t for t in exp.tasks() if t.columns["seed"] in extended.seeds]
    assert shared
    assert all(t.key in base_keys for t in shared)
