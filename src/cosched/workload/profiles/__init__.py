"""Per-job resource profiles from the coscheduling papers, as seeded annotators.

Each annotator takes a :class:`~cosched.workload.job.Workload` and a
``numpy.random.Generator`` and returns a copy with typed, family-prefixed profile
columns (``lomarc_*``, ``ns_*``, ``dcs_*``, ``coupled_*``); the batch policies ignore
them. :data:`PROFILES` maps a profile name to its annotator; :func:`annotate` looks
one up by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cosched.errors import UnknownNameError
from cosched.workload.job import Workload
from cosched.workload.profiles.coupled import annotate_coupled, pair_workloads
from cosched.workload.profiles.dyncosched import annotate_dyncosched
from cosched.workload.profiles.lomarc import annotate_lomarc
from cosched.workload.profiles.nodeshare import annotate_nodeshare
from cosched.workload.profiles.recorded import annotate_recorded

__all__ = [
    "PROFILES",
    "annotate",
    "annotate_coupled",
    "annotate_dyncosched",
    "annotate_lomarc",
    "annotate_nodeshare",
    "annotate_recorded",
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
    if name not in PROFILES:
        raise UnknownNameError("profile", name, PROFILES)
    return PROFILES[name](w, rng=rng, **params)
