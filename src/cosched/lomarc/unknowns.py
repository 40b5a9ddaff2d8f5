"""The inputs the LOMARC paper leaves unknown, each with the range its text allows.

Section 6 names its workload model and its machine but not every number a simulation
needs. Each :class:`Unknown` records one such input: the value the reproduction uses,
the range the paper's own text allows (with the lines that bound it), and how a
workload is built at a point of that range (:func:`sensitivity_workload`).
``docs/studies/lomarc_unknowns.py`` sweeps the ranges and sorts the claims into those
that hold across them, those that flip inside them and those that fail everywhere.

* **W1's offered load** (``w1_load``). Table 4 prints "Load" 10.6 / 13 / 21 for W1-W3
  and defines it as "Load = (r-n)/(P*a) with r being the mean runtime, n the mean job
  size, and a the mean job interarrival time" (paper lines 1244-1246): not a
  utilization. Only the inter-arrival shape changes between the workloads ("Workload 2
  and Workload 3 have smaller α parameters", lines 1242-1243), so r and n are the same
  and the ratios of the printed loads are the ratios of the offered loads: W2 offers
  13 / 10.6 = 1.23 and W3 21 / 10.6 = 1.98 times W1's (:data:`LOAD_RATIOS`). W1 leaves
  the machine idle at times ("there are often not enough jobs to fully utilize the
  machine", lines 1414-1415), so W1 offers less than 1; W3's queue holds 213-233 jobs
  on average (Table 5), so it is saturated: 1.98 x W1 > 1. Range: (0.5, 1.0). The
  reproduction's paper-alpha workloads (the typeless Lublin model with the paper's
  alpha values) offer 0.73 / 0.99 / 1.71, ratios 1.36 and 2.34 instead.
* **The short-job share** (``short_share``): jobs of at most 60 s ("runtimes in
  [1sec,1min] are classified as short", line 1343). The paper "used the model in
  [Lublin2003]" (line 1216) without naming its variant: the typeless model gives 0.42
  of its jobs short, the class-separated model 0.71 (8,000 jobs, seed 0). Range:
  [0.42, 0.71]; 0.25 is swept as well, outside it, because Table 5's queues hold fewer
  short jobs than the typeless model's (a third on W1: 24 of 36 are medium or long).
* **How the memory slowdown combines with the shared parts** (the ``slowdown``
  option): every line that names sl_mem writes it as a summand (lines 474-475, 501-502) and
  section 4.2 measured 2.5 as a whole pair's slowdown (lines 843-844). Range: the
  readings ``overlap`` (max), ``overlap-add``, ``overlap-excess``
  (:mod:`cosched.lomarc.slowdown`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cosched.errors import ConfigError
from cosched.lomarc.experiment import NODES, WORKLOADS, _lublin, _rng
from cosched.policies.orders import SHORT_MAX
from cosched.workload.job import Workload
from cosched.workload.profiles.lomarc import MIXTURES, annotate_lomarc
from cosched.workload.transforms import scale_to_load

__all__ = [
    "LOAD_RATIOS",
    "UNKNOWNS",
    "Unknown",
    "sensitivity_workload",
    "with_short_share",
]

#: Table 4's printed loads over W1's: the offered-load ratios of W1-W3 (see above).
LOAD_RATIOS: dict[str, float] = {"W1": 1.0, "W2": 13 / 10.6, "W3": 21 / 10.6}


@dataclass(frozen=True)
class Unknown:
    """One input the paper does not give.

    Attributes:
        name: the input, as :func:`sensitivity_workload` or the policies name it.
        default: the reproduction's value (what the paper-alpha workloads give, or the
            option's default).
        values: the points swept (inside the range, plus any probe outside it, named
            in ``outside``).
        low: the range's lower end (None for a set of readings).
        high: its upper end.
        outside: swept values outside the range the text allows.
        lines: the paper's lines that bound it.
    """

    name: str
    default: float | str
    values: tuple[float | str, ...]
    low: float | None
    high: float | None
    outside: tuple[float | str, ...]
    lines: str


UNKNOWNS: tuple[Unknown, ...] = (
    Unknown(
        "w1_load",
        "paper-alpha",
        (0.55, 0.75, 0.95, 0.99),
        0.5,
        1.0,
        (),
        "1242-1246, 1414-1415, Table 5",
    ),
    Unknown("short_share", 0.42, (0.25, 0.42, 0.71), 0.42, 0.71, (0.25,), "1216, 1343"),
    Unknown(
        "slowdown",
        "overlap",
        ("overlap", "overlap-add", "overlap-excess"),
        None,
        None,
        (),
        "474-475, 501-502, 841-844",
    ),
)


def with_short_share(w: Workload, share: float, rng: np.random.Generator) -> Workload:
    """``w`` with ``round(share x n)`` of its jobs short (run time <= 60 s).

    Jobs chosen at random change class: a long-enough job made short takes the run time
    of a random short job, a short job made longer that of a random job above 60 s;
    the requested time keeps its ratio to the run time. Sizes and submit times are
    unchanged (so the offered load changes; :func:`sensitivity_workload` rescales it).

    Raises:
        ConfigError: ``share`` outside [0, 1], or no job on the side to draw from.
    """
    if not 0.0 <= share <= 1.0:
        raise ConfigError(f"short_share must be in [0, 1], got {share!r}")
    c = w.columns
    run = np.asarray(c["run_time"], dtype=np.float64).copy()
    req = np.asarray(c["requested_time"], dtype=np.float64).copy()
    short = run <= SHORT_MAX
    want = round(share * len(run))
    change = want - int(short.sum())
    if change == 0:
        return w
    take, source = (~short, short) if change > 0 else (short, ~short)
    if not source.any():
        raise ConfigError("short_share: the workload has no job to draw run times from")
    picked = rng.choice(np.flatnonzero(take), size=abs(change), replace=False)
    new = rng.choice(run[source], size=picked.size, replace=True)
    req[picked] *= new / run[picked]
    run[picked] = new
    note = f"made {want} of {len(run)} jobs short (run time <= {SHORT_MAX:g} s)"
    return w.with_columns({"run_time": run, "requested_time": req}, note)


def sensitivity_workload(
    workload: str, mixture: str, seed: int, jobs: int, w1_load: float, short_share: float
) -> Workload:
    """The reproduction's workload of a cell at one point of the unknowns' ranges.

    The paper-alpha jobs (those of :func:`cosched.lomarc.experiment.cell_workload`),
    with ``short_share`` of them short, arrivals scaled to offer ``w1_load`` times the
    workload's :data:`LOAD_RATIOS`, then annotated with the mixture's profiles as the
    reproduction does.
    """
    if workload not in WORKLOADS or mixture not in MIXTURES:
        raise ConfigError(f"unknown workload or mixture {workload!r}, {mixture!r}")
    index = list(WORKLOADS).index(workload)
    w = with_short_share(_lublin(workload, seed, jobs), short_share, _rng(seed, 3, index))
    w = scale_to_load(w, w1_load * LOAD_RATIOS[workload], NODES)
    mix = list(MIXTURES).index(mixture)
    return annotate_lomarc(w, rng=_rng(seed, 2, index, mix), mixture=mixture)
