"""Per-job resource profiles from the coscheduling papers, as seeded annotators.

Each annotator takes a :class:`~cosched.workload.job.Workload` and a
``numpy.random.Generator`` and returns a copy with typed, family-prefixed profile
columns (``lomarc_*``, ``ns_*``, ``dcs_*``, ``coupled_*``); the batch policies ignore
them. :data:`PROFILES` maps a profile name to its annotator; :func:`annotate` looks
one up by name, and a name it does not hold in the ``cosched.profiles`` entry points of
the installed packages (``name = "module:function"``), so that a family outside cosched
brings its own annotator (:func:`annotator`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cosched.errors import ConfigError, UnknownNameError
from cosched.workload.job import Workload
from cosched.workload.profiles.coupled import annotate_coupled, pair_workloads
from cosched.workload.profiles.dyncosched import annotate_dyncosched
from cosched.workload.profiles.lomarc import annotate_lomarc
from cosched.workload.profiles.nodeshare import annotate_nodeshare
from cosched.workload.profiles.recorded import annotate_recorded

__all__ = [
    "ENTRY_POINT_GROUP",
    "PROFILES",
    "annotate",
    "annotate_coupled",
    "annotate_dyncosched",
    "annotate_lomarc",
    "annotate_nodeshare",
    "annotate_recorded",
    "annotator",
    "pair_workloads",
]

#: Profile name -> annotator ``f(w, *, rng, **params) -> Workload``.
PROFILES: dict[str, Callable[..., Workload]] = {
    "lomarc": annotate_lomarc,
    "nodeshare": annotate_nodeshare,
    "dyncosched": annotate_dyncosched,
    "coupled": annotate_coupled,
    "recorded": annotate_recorded,
}


def annotate(name: str, w: Workload, *, rng: np.random.Generator, **params: Any) -> Workload:
    """Run the annotator registered as ``name`` on ``w``.

    Args:
        name: a key of :data:`PROFILES`.
        w: the workload to annotate.
        rng: the source of every draw.
        **params: the annotator's keyword parameters.

    Raises:
        UnknownNameError: ``name`` is not registered.
        ConfigError: a bad parameter.
    """
    return annotator(name)(w, rng=rng, **params)


#: The entry-point group in which a package names its annotators.
ENTRY_POINT_GROUP = "cosched.profiles"


def annotator(name: str) -> Callable[..., Workload]:
    """The annotator registered as ``name``: in :data:`PROFILES`, else the entry point
    of that name in :data:`ENTRY_POINT_GROUP` (loaded once, then kept in
    :data:`PROFILES`).

    Raises:
        UnknownNameError: no annotator is registered as ``name``.
        ConfigError: the entry point fails to load or is not callable.
    """
    got = PROFILES.get(name)
    if got is not None:
        return got
    import importlib.metadata  # the scan costs 10-25 ms: only for a name not held

    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name != name:
            continue
        from cosched import plugins

        loaded = plugins.load(ep, "profile")
        if not callable(loaded):
            raise ConfigError(f"profile entry point {name!r} ({ep.value}) is not a function")
        PROFILES[name] = loaded
        return loaded
    raise UnknownNameError("profile", name, PROFILES)
