"""A stand-in for Intrepid's compute workload, built to the coupled-systems paper's words.

Intrepid's 2010 log is not public here (the Parallel Workloads Archive's 2009 log could
not be obtained), so the coupled reproduction draws a month of jobs to the paper's
description of the machine and its jobs (``coupled-systems-coscheduling.txt``):

* the machine: "The system comprises 40,960 quad-core nodes" (line 127), allocated in
  partitions (:data:`INTREPID_PLATFORM`: blocks of 512-node midplanes, 2^k of them);
* the job sizes: "On Intrepid, the job size ranges from from 512 nodes to 32,768 nodes"
  (line 539): every job takes one of the seven partitions 512, 1,024, ..., 32,768 nodes;
* the count: "For Intrepid, we used the real job trace in a month containing 9,219
  jobs" (line 632);
* the load: "the current Intrepid system load is high and stable" (line 626), with no
  number: the offered load is a parameter (the reproduction fits it to the paper's base
  mean wait, as it does Atlas's packing; docs/coupled.md).

What the paper does not give is assumed, and each assumption is a parameter: the share
of jobs of each partition size (default: halving with each doubling, so that every size
carries the same node count on average), the run times (log-normal, shape ``sigma``,
scaled so that the month carries ``load``), the estimates (run time over a uniform
accuracy in ``[accuracy, 1]``) and the arrivals (uniform over the month: a Poisson
process conditioned on the count). A job's size is its partition: both ends of the
paper's range are partition sizes.
"""

from __future__ import annotations

import numpy as np

from cosched.errors import ConfigError
from cosched.platform import Allocation, Platform
from cosched.workload.job import Workload
from cosched.workload.models._drawn import check_accuracy, check_counts, drawn_jobs

__all__ = [
    "INTREPID_JOBS",
    "INTREPID_PARTITIONS",
    "INTREPID_PLATFORM",
    "MIDPLANE",
    "intrepid_standin",
]

#: Nodes in a Blue Gene/P midplane, the smallest partition the paper's jobs take.
MIDPLANE = 512
#: Intrepid: 40,960 quad-core nodes, jobs in partitions of 2^k midplanes.
INTREPID_PLATFORM = Platform(nodes=40960, cores=4, allocation=Allocation.NODES, partition=MIDPLANE)
#: The partition sizes the paper's jobs take, in nodes (512 to 32,768).
INTREPID_PARTITIONS = tuple(MIDPLANE * 2**k for k in range(7))
#: Jobs in the paper's month of Intrepid's trace.
INTREPID_JOBS = 9219


def intrepid_standin(
    rng: np.random.Generator,
    *,
    load: float,
    span: float = 30 * 86400.0,
    jobs: int = INTREPID_JOBS,
    sigma: float = 1.0,
    accuracy: float = 0.2,
    size_weights: tuple[float, ...] | None = None,
) -> Workload:
    """One month of Intrepid-like jobs (see the module docstring for each choice).

    Args:
        rng: the source of every draw.
        load: offered load of the month, sum(run x nodes) / (40,960 x span), > 0.
        span: seconds over which the jobs arrive.
        jobs: number of jobs.
        sigma: shape of the log-normal run times (> 0).
        accuracy: the lowest run / estimate ratio, in (0, 1].
        size_weights: relative frequency of each of :data:`INTREPID_PARTITIONS`
            (default 64, 32, ..., 1: halving with each doubling).

    Raises:
        ConfigError: a bad parameter, named in the message.
    """
    weights = np.asarray(size_weights or [2.0 ** (6 - k) for k in range(7)], dtype=np.float64)
    _check(load=load, span=span, jobs=jobs, sigma=sigma, accuracy=accuracy, weights=weights)
    nodes = rng.choice(np.asarray(INTREPID_PARTITIONS), size=jobs, p=weights / weights.sum())
    table = drawn_jobs(
        rng,
        nodes,
        cores=INTREPID_PLATFORM.cores,
        capacity=INTREPID_PLATFORM.nodes,
        load=load,
        span=span,
        sigma=sigma,
        accuracy=accuracy,
    )
    return Workload.from_table(
        table,
        name=f"intrepid-standin-load{load:g}",
        max_procs=INTREPID_PLATFORM.procs,
        max_nodes=INTREPID_PLATFORM.nodes,
    )


def _check(
    *, load: float, span: float, jobs: int, sigma: float, accuracy: float, weights: np.ndarray
) -> None:
    check_counts("intrepid_standin", (("load", load), ("span", span), ("sigma", sigma)), jobs)
    check_accuracy("intrepid_standin", accuracy)
    if weights.shape != (len(INTREPID_PARTITIONS),) or (weights < 0).any() or weights.sum() <= 0:
        raise ConfigError(
            f"intrepid_standin: size_weights must be {len(INTREPID_PARTITIONS)} weights >= 0, "
            "not all zero"
        )
