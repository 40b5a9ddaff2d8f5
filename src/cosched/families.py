"""The coscheduling families, each declared once, in its own package.

A family's package names one :class:`Family` in the ``cosched.families`` entry-point
group (``name = "package.module:FAMILY"``), as it names its policies in
``cosched.policies`` and its annotators in ``cosched.profiles``. The declaration says
what the shared commands do with the family's policies: which of them ``cosched
compare`` runs by default, under which conservative assumption and with which control
runs, how fast a run is, where its mechanism cannot act, how the verdict measures and
words its mechanism, which per-job profiles its policies read, and which papers its
reproductions reproduce. The shared modules read these declarations
(:func:`families`, :func:`family`) and name no family themselves.

The policies of a family are those whose class says ``family = NAME``; a policy whose
family declares nothing runs everywhere, with none of the above (a user's own policy).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from cosched.errors import ConfigError

if TYPE_CHECKING:
    from cosched.compare.study import Arm
    from cosched.policies.base import Policy

__all__ = [
    "ENTRY_POINT_GROUP",
    "Control",
    "Family",
    "Mechanism",
    "Reading",
    "Sweeps",
    "by_verdict",
    "each",
    "families",
    "family",
    "gathered",
    "papers",
    "profile",
    "readings",
]

T = TypeVar("T")

#: The entry-point group in which a package declares its families.
ENTRY_POINT_GROUP = "cosched.families"

#: One control run's step: ``(what, kind, parameters, machine flags)``. ``kind`` is
#: ``assumption`` or ``mechanism``; ``parameters`` are set on the policy, ``machine
#: flags`` on its machine (``max_jobs_per_node=1``).
Control = tuple[str, str, dict[str, Any], dict[str, int]]


@dataclass(frozen=True)
class Mechanism:
    """How ``cosched compare``'s verdict measures and words a family's own mechanism
    (:mod:`cosched.compare.mechanisms`).

    Attributes:
        words: what the family does to co-locate jobs, in the verdict's words
            (``sharing nodes``).
        headline: the headline's imperative when the mechanism acted (``Share nodes``).
        measures: the per-job measures that apply, in the order the verdict says them:
            ``shared`` (the ``shared_node`` column), ``sliced`` (ran longer than its run
            time), ``spread`` (more nodes than its processors fill), ``shrunk`` (fewer
            cores than it asked for). The first of ``sliced`` and ``shared`` is the
            mechanism itself.
        shared: what a job counted by ``shared`` did (``shared a node with another job``).
        unrecorded: the sentence when the runs did not record ``shared_node``.
        caveat: a sentence closing the family's paragraph: what its numbers leave out.
        caveat_mixes: the caveat when the comparison also ran its other job-type mixes
            (empty: ``caveat``).
        rank: where the family's paragraph stands in the verdict (lower first).
    """

    words: str
    headline: str
    measures: tuple[str, ...]
    shared: str = ""
    unrecorded: str = ""
    caveat: str = ""
    caveat_mixes: str = ""
    rank: int = 100


#: An arm's backfilling in words, from its policy and the `` (window N)`` it shows.
Backfilling = Callable[[object, str], str]
#: What a comparison assumes of an arm of the family, one phrase each, from its policy.
Assumptions = Callable[["Policy"], list[str]]
#: The robustness arms a family adds to a comparison, from the comparison's arms.
Sweeps = Callable[["Sequence[Arm]"], "list[Arm]"]


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
        mechanism: how ``compare``'s verdict measures and words its mechanism (None:
            its arms are told by their numbers only).
        backfilling: an arm's backfilling in words (None: ``its own backfilling, if
            any``), for the table of what each arm's scheduler does beside its mechanism.
        order: its queue order in words, in place of the policy's ``order``.
        assumptions: what the verdict rests on for an arm of the family, one phrase
            each, from the arm's policy (None: nothing beyond its numbers).
        profiles: per-job profile name -> the annotator its policies read, as
            ``module:function`` (imported when a run asks for the profile).
        causes: why some claims of its reproductions are not reproduced, as
            ``module:attribute`` of a tuple of
            :class:`~cosched.experiments.fidelity.Cause` (docs/fidelity.md).
        calibrations: the parameters of its reproductions fitted to a paper's output, as
            ``module:attribute`` of a tuple of
            :class:`~cosched.experiments.calibration.Calibration`.
        sweeps: the robustness arms ``compare`` adds for the family (None: none), from
            the comparison's arms: their ``role`` (``robustness``: interference
            strength; ``efficiency``: a time-sliced job's efficiency, the policy having
            ``efficiency`` and ``quantum``; ``mix``: another job-type mix) says how the
            report reads them.
        readings: the mechanisms and declared readings its reproductions can switch
            on, for docs/fidelity.md.
    """

    name: str
    compare: tuple[str, ...] = ()
    compare_rank: int = 100
    conservative: tuple[str, object, str] | None = None
    controls: tuple[Control, ...] = ()
    jobs_per_second: float | None = None
    single_core: str | None = None
    papers: Mapping[str, str] = field(default_factory=dict)
    mechanism: Mechanism | None = None
    backfilling: Backfilling | None = None
    order: str | None = None
    assumptions: Assumptions | None = None
    profiles: Mapping[str, str] = field(default_factory=dict)
    sweeps: Sweeps | None = None
    causes: str | None = None
    calibrations: str | None = None
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


def each(field: Literal["causes", "calibrations"], kind: type[T]) -> tuple[T, ...]:
    """What every family declares as ``field`` (a ``module:attribute`` naming a tuple of
    ``kind``), in the families' order, each family's entries in its own order.

    Raises:
        ConfigError: a declaration that fails to load or holds something else.
    """
    from cosched import plugins

    out: list[T] = []
    for f in families():
        value = getattr(f, field)
        if value is None:
            continue
        got = plugins.resolve(value, f.name, f"family {field}")
        if not isinstance(got, tuple) or not all(isinstance(x, kind) for x in got):
            raise ConfigError(
                f"family {f.name!r}: {field} ({value}) is not a tuple of {kind.__name__}"
            )
        out.extend(got)
    return tuple(out)


def gathered(
    namespace: dict[str, Any],
    name: str,
    field: Literal["causes", "calibrations"],
    kind: type[T],
) -> tuple[T, ...]:
    """A registry module's global ``name``: what :func:`each` family declares as
    ``field``, gathered on first use and kept there (a test may set it)."""
    got: tuple[T, ...] | None = namespace.get(name)
    if got is None:
        got = namespace[name] = each(field, kind)
    return got


def by_verdict() -> tuple[Family, ...]:
    """The families in the order of ``compare``'s verdict and sweeps: by their
    :attr:`Mechanism.rank` (100 for one that declares no mechanism), then name."""
    return tuple(
        sorted(families(), key=lambda f: (f.mechanism.rank if f.mechanism else 100, f.name))
    )


def family(name: str) -> Family | None:
    """The family declared as ``name`` (None: none is, as for the batch policies)."""
    return next((f for f in families() if f.name == name), None)


def papers() -> dict[str, str]:
    """Every reproduction's paper, from every family's :attr:`Family.papers`."""
    return {r: p for f in families() for r, p in f.papers.items()}


def profile(name: str) -> str | None:
    """The annotator (``module:function``) a family declares as profile ``name``, or
    None. The families cosched itself declares are loaded one at a time, the one named
    like the profile first, so that a run pays only for the family it uses."""
    from cosched import plugins

    own = plugins.own(ENTRY_POINT_GROUP)
    for fam in sorted(own, key=lambda f: f != name):
        got = _own_family(fam, own[fam])
        if name in got.profiles:
            return got.profiles[name]
    return next((f.profiles[name] for f in families() if name in f.profiles), None)


def _own_family(name: str, value: str) -> Family:
    """One of cosched's own families, imported by its ``module:attribute``."""
    from cosched import plugins

    got = plugins.resolve(value, name, "family")
    if not isinstance(got, Family) or got.name != name:
        raise ConfigError(f"family entry point {name!r} ({value}) is not Family {name!r}")
    return got


def readings(paper: str) -> tuple[Reading, ...]:
    """The readings declared for reproduction ``paper``, in declaration order."""
    return tuple(m for f in families() for m in f.readings if m.claims_of == paper)
