"""Node-sharing profiles for malleable coscheduling (memory sensitivity and penalties).

Source: the malleable-configurations coscheduling paper, section 4 ("Experimental
Setup"): each job gets, "chosen from a uniform random distribution",

* a memory sensitivity: not sensitive ("low"), somewhat ("moderate"), very ("high");
* the percentage of time spent communicating, between 1% and 20%;
* a communication penalty between 0% and 40% (applied to the communication part only);
* a degradation slowdown between 1.5 and 2 each time the number of cores is halved.

Our reading: "uniform" over the three sensitivity categories means 1/3 each (the
default ``sensitivity_shares``); the numeric values are continuous uniforms.

Columns added (prefixed ``ns_``):

======================  =======  ===================================================
name                    dtype    meaning
======================  =======  ===================================================
``ns_mem_sensitivity``  int8     0 low, 1 moderate, 2 high (:data:`SENSITIVITY`)
``ns_comm_fraction``    float64  fraction of run time spent communicating
``ns_comm_penalty``     float64  extra fraction added to the communication time
``ns_degradation``      float64  slowdown factor per halving of the cores
======================  =======  ===================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.profiles._common import (
    check_interval,
    check_rng,
    check_shares,
    pick,
)

__all__ = ["SENSITIVITY", "SENSITIVITY_CODES", "annotate_nodeshare"]

#: ``ns_mem_sensitivity`` code -> label.
SENSITIVITY: dict[int, str] = {0: "low", 1: "moderate", 2: "high"}
#: label -> ``ns_mem_sensitivity`` code.
SENSITIVITY_CODES: dict[str, int] = {v: k for k, v in SENSITIVITY.items()}


def annotate_nodeshare(
    w: Workload,
    *,
    rng: np.random.Generator,
    sensitivity_shares: Sequence[float] = (1 / 3, 1 / 3, 1 / 3),
    comm_fraction: Sequence[float] = (0.01, 0.20),
    comm_penalty: Sequence[float] = (0.0, 0.40),
    degradation: Sequence[float] = (1.5, 2.0),
) -> Workload:
    """Add the node-sharing per-job profile columns (see the module docstring).

    Args:
        w: the workload to annotate (left unchanged).
        rng: the source of every draw.
        sensitivity_shares: probabilities of low, moderate and high sensitivity.
        comm_fraction: (low, high) of the uniform communication fraction, in [0, 1].
        comm_penalty: (low, high) of the uniform communication penalty, >= 0.
        degradation: (low, high) of the uniform slowdown per halving, >= 1.

    Returns:
        A copy of ``w`` with the ``ns_*`` columns.

    Raises:
        ConfigError: a bad parameter, named in the message.
    """
    check_rng(rng)
    shares = check_shares("sensitivity_shares", sensitivity_shares, 3)
    cf = check_interval("comm_fraction", comm_fraction, 0.0, 1.0)
    cp = check_interval("comm_penalty", comm_penalty, 0.0, np.inf)
    dg = check_interval("degradation", degradation, 1.0, np.inf)
    if not np.isfinite(cp[1]) or not np.isfinite(dg[1]):
        raise ConfigError("comm_penalty and degradation must be finite")
    n = len(w)
    cols = {
        "ns_mem_sensitivity": pick(rng, shares, n),
        "ns_comm_fraction": rng.uniform(cf[0], cf[1], n),
        "ns_comm_penalty": rng.uniform(cp[0], cp[1], n),
        "ns_degradation": rng.uniform(dg[0], dg[1], n),
    }
    return w.with_columns(cols, "nodeshare profile")
