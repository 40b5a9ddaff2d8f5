"""A stand-in for Cab's jobs, built to the node-sharing paper's description of its trace.

The malleable-configurations paper (``hpc-coscheduling-malleable-configurations.txt``)
ran windows of LLNL Cab's 2014 trace, which is not available here; the reproduction's
main stand-in is RICC (:mod:`cosched.nodeshare.experiment`), a real trace whose jobs are
mostly single-node. This model draws a window to what the paper says of Cab's jobs:

* the machine: "as Cab had 1158 nodes and 16 cores per node, we used this configuration
  for all experiments" (lines 169-175; :data:`CAB_NODES`, :data:`CAB_CORES`);
* the job sizes: each job "requests n nodes, where 1 <= n <= N" (line 43) and "The base
  configuration for a job is therefore (n x 16)" (line 175): whole nodes of 16 cores,
  from 1 to 1,158;
* the count and the period: "While the Cab trace has nearly 700,000 jobs, ... we used
  subsets of 100,000 jobs" (line 167) of the "2014 Cab supercomputer job scheduling
  traces" (reference [12], line 311): 700,000 jobs over the year 2014, one every
  365 x 86,400 / 700,000 = 45.05 s on average (:data:`CAB_INTERARRIVAL`), so a window of
  100,000 jobs spans about 52 days;
* the run times and their estimates: "The job also specifies an estimated runtime ...
  the job is terminated if it exceeds this deadline" (line 43): every estimate is at
  least the run time;
* the load: not printed. The text bounds it: at 500 nodes "the average turnaround time
  is extremely high" and "When the node count is sufficiently large (1400 and above), all
  algorithms converge to a single value because there are enough nodes to avoid any
  waiting" (line 248), so the offered load of 1,158 nodes lies between 500 / 1,158 = 0.43
  and 1,400 / 1,158 = 1.21 (:data:`LOAD_RANGE`).

What the paper does not give is a parameter: the share of single-node jobs
(``single_share``; the text bounds it nowhere in [0, 1]) and, for the other jobs, the
size distribution (powers of two from 2 to 1,024 nodes, halving in frequency with each
doubling so that every size carries the same node count on average, as the Intrepid
stand-in assumes: :mod:`cosched.workload.models.intrepid`); the run times' shape
(log-normal, ``sigma``), scaled so that the window carries ``load`` exactly; the
estimates (run time over a uniform accuracy in ``[accuracy, 1]``); and the arrivals
(uniform over the window's span: a Poisson process conditioned on the count).
"""

from __future__ import annotations

import numpy as np

from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.models._drawn import check_accuracy, check_counts, drawn_jobs

__all__ = [
    "CAB_CORES",
    "CAB_INTERARRIVAL",
    "CAB_MULTI_SIZES",
    "CAB_NODES",
    "LOAD_RANGE",
    "cab_standin",
]

#: Cab's batch partition: "1158 nodes and 16 cores per node" (paper lines 169-175).
CAB_NODES, CAB_CORES = 1158, 16
#: Mean seconds between submissions: the year 2014 over "nearly 700,000 jobs" (l. 167, 311).
CAB_INTERARRIVAL = 365 * 86400.0 / 700_000
#: The sizes of multi-node jobs: powers of two from 2 to 1,024 nodes (<= 1,158).
CAB_MULTI_SIZES = tuple(2**k for k in range(1, 11))
#: The offered loads of 1,158 nodes the text allows (paper line 248; module docstring).
LOAD_RANGE = (500 / CAB_NODES, 1400 / CAB_NODES)


def cab_standin(
    rng: np.random.Generator,
    *,
    load: float,
    single_share: float = 0.5,
    jobs: int = 100_000,
    sigma: float = 1.0,
    accuracy: float = 0.2,
) -> Workload:
    """A window of Cab-like jobs (see the module docstring for each choice).

    Args:
        rng: the source of every draw.
        load: offered node load of the window, sum(run x nodes) / (1,158 x span), > 0.
        single_share: the share of single-node jobs, in [0, 1]; the others take the sizes
            of :data:`CAB_MULTI_SIZES`, each half as often as the one before.
        jobs: number of jobs; they arrive over ``jobs`` x :data:`CAB_INTERARRIVAL` s.
        sigma: shape of the log-normal run times (> 0).
        accuracy: the lowest run / estimate ratio, in (0, 1].

    Raises:
        ConfigError: a bad parameter, named in the message.
    """
    _check(load=load, single_share=single_share, jobs=jobs, sigma=sigma, accuracy=accuracy)
    halving = np.asarray([2.0**-k for k in range(len(CAB_MULTI_SIZES))])
    sizes = np.asarray((1, *CAB_MULTI_SIZES), dtype=np.int64)
    p = np.concatenate([[single_share], (1.0 - single_share) * halving / halving.sum()])
    nodes = rng.choice(sizes, size=jobs, p=p)
    table = drawn_jobs(
        rng,
        nodes,
        cores=CAB_CORES,
        capacity=CAB_NODES,
        load=load,
        span=jobs * CAB_INTERARRIVAL,
        sigma=sigma,
        accuracy=accuracy,
    )
    return Workload.from_table(
        table,
        name=f"cab-standin-load{load:g}-single{single_share:g}",
        max_procs=CAB_NODES * CAB_CORES,
        max_nodes=CAB_NODES,
    )


def _check(*, load: float, single_share: float, jobs: int, sigma: float, accuracy: float) -> None:
    check_counts("cab_standin", (("load", load), ("sigma", sigma)), jobs)
    if not (np.isfinite(single_share) and 0.0 <= single_share <= 1.0):
        raise ConfigError(f"cab_standin: single_share must be in [0, 1], got {single_share!r}")
    check_accuracy("cab_standin", accuracy)
