"""The coscheduling families, each declared once, in its own package.

A family's package names one :class:`Family` in the ``cosched.families`` entry-point
group (``name = "package.module:FAMILY"``), as it names its policies in
``cosched.policies`` and its annotators in ``cosched.profiles``. The declaration says
what the shared commands do with the family's policies: which of them ``cosched
compare`` runs by default, under which conservative assumption and with which control
runs, how fast a run is, where its mechanism cannot act, and which papers its
reproductions reproduce. The shared modules read these declarations
(:func:`families`, :func:`family`) and name no family themselves.

The policies of a family are those whose class says ``family = NAME``; a policy whose
family declares nothing runs everywhere, with none of the above (a user's own policy).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cosched.errors import ConfigError

__all__ = [
    "ENTRY_POINT_GROUP",
    "Control",
    "Family",
    "Reading",
    "families",
    "family",
    "papers",
    "readings",
]

#: The entry-point group in which a package declares its families.
ENTRY_POINT_GROUP = "cosched.families"

#: One control run's step: ``(what, kind, parameters, machine flags)``. ``kind`` is
#: ``assumption`` or ``mechanism``; ``parameters`` are set on the policy, ``machine
#: flags`` on its machine (``max_jobs_per_node=1``).
Control = tuple[str, str, dict[str, Any], dict[str, int]]


@dataclass(frozen=True)
class Reading:
    """A mechanism (or a declared reading) a reproduction can switch on, with parameters
    a paper or the literature states: none of them fitted, so every claim tests it.

    docs/fidelity.md shows, per mechanism with a claim copy (``docs/claims/<name>.csv``,
    the reproduction's claims judged on its runs with the mechanism on), the claims it
    moves and the agreement with and without it.

    Attributes:
        name: the copy's name (``docs/claims/<name>.csv``); unique among copies.
        claims_of: the reproduction whose claims judge it.
        reading: the parameters switched on, as ``name=value`` pairs joined by commas.
        source: where each value is stated (the paper's line, or the literature).
        default: whether the reproduction's default runs with it on.
    """

    name: str
    claims_of: str
    reading: str
    source: str
    default: bool = False


@dataclass(frozen=True)
class Family:
    """What one family declares for the shared commands.

    Attributes:
        name: the ``family`` its policy classes carry.
        compare: the policies ``cosched compare`` runs by default, in order.
        compare_rank: where those stand among the families' in the default list (lower
            first; the baselines always come first).
        conservative: ``(parameter, value, flag)``: what the family's arms run with
            unless the operator names the parameter or gives ``compare --FLAG``
            (rigid jobs, processors without SMT).
        controls: what its control runs turn off, in order, each turning off its own
            step and every earlier one: the assumptions first, then the mechanism.
        jobs_per_second: jobs per CPU second of one run (a measurement: where it was
            measured is said beside the value), for ``compare``'s estimate.
        single_core: why the family is left out of ``compare``'s default run on
            single-core nodes (None: it can act there).
        papers: reproduction name -> the paper it reproduces (its text in the papers'
            folder), for docs/fidelity.md.
        readings: the mechanisms and declared readings its reproductions can switch
            on, for docs/fidelity.md.
    """

    name: str
    compare: tuple[str, ...] = ()
    compare_rank: int = 100
    conservative: tuple[str, Any, str] | None = None
    controls: tuple[Control, ...] = ()
    jobs_per_second: float | None = None
    single_core: str | None = None
    papers: Mapping[str, str] = field(default_factory=dict)
    readings: tuple[Reading, ...] = ()


@functools.cache
def families() -> tuple[Family, ...]:
    """Every declared family, by ``compare_rank`` then name (loaded once).

    Raises:
        ConfigError: an entry point that fails to load, is not a :class:`Family`, or
            declares a family under another name; cosched's installed metadata older
            than its families' declarations (a source checkout not reinstalled).
    """
    import importlib.metadata

    from cosched import plugins

    if plugins.own("cosched.policies") and not plugins.own(ENTRY_POINT_GROUP):
        raise ConfigError(
            "cosched's installed metadata declares no family (installed before "
            f"{ENTRY_POINT_GROUP} existed): reinstall it, e.g. pip install -e ."
        )
    out = []
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        got = plugins.load(ep, "family")
        if not isinstance(got, Family):
            raise ConfigError(f"family entry point {ep.name!r} ({ep.value}) is not a Family")
        if got.name != ep.name:
            raise ConfigError(
                f"family entry point {ep.name!r} ({ep.value}) declares family {got.name!r}"
            )
        out.append(got)
    return tuple(sorted(out, key=lambda f: (f.compare_rank, f.name)))


def family(name: str) -> Family | None:
    """The family declared as ``name`` (None: none is, as for the batch policies)."""
    return next((f for f in families() if f.name == name), None)


def papers() -> dict[str, str]:
    """Every reproduction's paper, from every family's :attr:`Family.papers`."""
    return {r: p for f in families() for r, p in f.papers.items()}


def readings(paper: str) -> tuple[Reading, ...]:
    """The readings declared for reproduction ``paper``, in declaration order."""
    return tuple(m for f in families() for m in f.readings if m.claims_of == paper)
