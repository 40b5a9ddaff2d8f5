"""Per-job resource profiles from the coscheduling papers, as seeded annotators.

Each annotator takes a :class:`~cosched.workload.job.Workload` and a
``numpy.random.Generator`` and returns a copy with typed, family-prefixed profile
columns (``lomarc_*``, ``ns_*``, ``dcs_*``, ``coupled_*``); the batch policies ignore
them. Each family declares the profiles its policies read in its
:attr:`Family.profiles <cosched.families.Family.profiles>`; :func:`annotate` looks one up
by name there, and a name no family declares in the ``cosched.profiles`` entry points of
the installed packages (``name = "module:function"``), so that a family outside cosched
brings its own annotator (:func:`annotator`). :data:`PROFILES` holds the annotators
loaded so far, starting with ``recorded`` (the trace's own starts, no family's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cosched.errors import ConfigError, UnknownNameError
from cosched.workload.job import Workload
from cosched.workload.profiles.recorded import annotate_recorded

__all__ = ["ENTRY_POINT_GROUP", "PROFILES", "annotate", "annotate_recorded", "annotator", "names"]

#: Profile name -> annotator ``f(w, *, rng, **params) -> Workload``: those loaded so far.
PROFILES: dict[str, Callable[..., Workload]] = {"recorded": annotate_recorded}


def annotate(name: str, w: Workload, *, rng: np.random.Generator, **params: Any) -> Workload:
    """Run the annotator registered as ``name`` on ``w``.

    Args:
        name: a profile's name (:func:`names`).
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
    """The annotator registered as ``name``: in :data:`PROFILES`, else the one a family
    declares (:func:`cosched.families.profile`), else the entry point of that name in
    :data:`ENTRY_POINT_GROUP` (loaded once, then kept in :data:`PROFILES`).

    Raises:
        UnknownNameError: no annotator is registered as ``name``.
        ConfigError: the declaration or entry point fails to load or is not callable.
    """
    got = PROFILES.get(name)
    if got is not None:
        return got
    from cosched import families, plugins

    declared = families.profile(name)
    if declared is None:  # the scan costs 10-25 ms: only for a name no family declares
        import importlib.metadata

        eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        declared = next((ep.value for ep in eps if ep.name == name), None)
    if declared is None:
        raise UnknownNameError("profile", name, names())
    loaded = plugins.resolve(declared, name, "profile")
    if not callable(loaded):
        raise ConfigError(f"profile entry point {name!r} ({declared}) is not a function")
    PROFILES[name] = loaded
    return loaded


def names() -> list[str]:
    """Every profile's name: :data:`PROFILES`, the families' and the entry points'."""
    import importlib.metadata

    from cosched.families import families

    declared = {p for f in families() for p in f.profiles}
    eps = {ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return sorted({*PROFILES, *declared, *eps})
