"""The coupled family in the experiment framework: its cell function.

The grid lives in the spec ``cosched/experiments/specs/coupled.toml``: two studies on a
compute machine (``compute``: the Intrepid stand-in on Blue Gene/P partitions, or LLNL
Atlas) coupled with an analysis machine (KTH SP2), both scheduled
by WFP with EASY backfilling, releasing held nodes every 20 minutes (see
:mod:`cosched.coupled.workloads` for the traces and why):

* load (Figures 3-6): the analysis machine at offered load 0.25, 0.5 and 0.75; mates
  by submission within 2 minutes (the paper's rule), of which a drawn ``pair_share`` of
  the analysis jobs' count is kept (the paper's 5-10%; without it, every such pair);
* proportion (Figures 7-10): load 0.5; 2.5, 5, 10, 20 and 33% of the analysis jobs
  paired with the nearest compute job in submit time, one random draw per seed.
  With ``analysis_jobs = N`` the analysis workload is the paper's special one, N jobs
  at the load (:func:`cosched.coupled.workloads.special_analysis`).

Each configuration runs HH, HY, YH, YY (compute scheme first) and a baseline without
coscheduling (``scheme = "base"``). Atlas's month is month 5 of its log for every
seed, or (``compute_month = "drawn"``) drawn per seed from the stream that draws the
stand-in's month. The packed analysis month starts at the start of KTH's log for every
seed, or (``analysis_month = "drawn"``) at a start drawn per seed from a stream of its
own (:func:`cosched.coupled.workloads.analysis_workload`); likewise the first job of
the special workload. The report section is in :mod:`cosched.coupled.report`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cosched.coupled.coordinator import CoupledResult, run_coupled
from cosched.coupled.domain import DEFAULT_RELEASE_CLOCK, RELEASE_CLOCKS
from cosched.coupled.errors import CoupledDeadlockError
from cosched.coupled.metrics import coupled_metrics, verify_sync
from cosched.coupled.spec import DomainSpec
from cosched.coupled.workloads import (
    ANALYSIS_MONTH,
    ANALYSIS_PLATFORM,
    ANALYSIS_TRACE,
    COMPUTE_MACHINES,
    COMPUTE_MONTH,
    COMPUTE_TRACE,
    DRAWN,
    STANDIN_SIGMA,
    analysis_workload,
    compute_machine,
    pair_nearest,
    special_analysis,
    thin_pairs,
)
from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv, Scalar, require
from cosched.workload.profiles.coupled import pair_workloads

__all__ = ["MACHINES", "SCHEMES", "STUDIES", "check", "run_cell"]

#: Scheme combinations, compute machine first; "base" is coscheduling off.
SCHEMES: dict[str, tuple[str, str]] = {
    "HH": ("hold", "hold"),
    "HY": ("hold", "yield"),
    "YH": ("yield", "hold"),
    "YY": ("yield", "yield"),
}
MACHINES = ("compute", "analysis")
STUDIES = ("load", "proportion")


def check(params: Mapping[str, Scalar]) -> None:
    """Refuse a configuration the cell function cannot run (before anything runs).

    Raises:
        ConfigError: naming the parameter.
    """
    require(params, "coupled", ("study", "load", "scheme", "span"))
    if params["study"] not in STUDIES:
        raise ConfigError(f"'study' must be one of {', '.join(STUDIES)}, got {params['study']!r}")
    if params["scheme"] != "base" and params["scheme"] not in SCHEMES:
        raise ConfigError(f"'scheme' must be base or one of {', '.join(SCHEMES)}")
    if params["study"] == "proportion" and "proportion" not in params:
        raise ConfigError("the proportion study needs 'proportion'")
    if params.get("compute", "atlas") not in COMPUTE_MACHINES:
        raise ConfigError(
            f"'compute' must be one of {', '.join(COMPUTE_MACHINES)}, got {params['compute']!r}"
        )
    if params.get("compute") == "intrepid" and "compute_load" not in params:
        raise ConfigError("the intrepid compute machine needs 'compute_load'")
    clock = params.get("release_clock", DEFAULT_RELEASE_CLOCK)
    if clock not in RELEASE_CLOCKS:
        raise ConfigError(
            f"'release_clock' must be one of {', '.join(RELEASE_CLOCKS)}, got {clock!r}"
        )
    if not isinstance(params.get("release_yield", False), bool):
        raise ConfigError(f"'release_yield' must be true or false, got {params['release_yield']!r}")
    for key, default in (("compute_month", COMPUTE_MONTH), ("analysis_month", ANALYSIS_MONTH)):
        month = params.get(key, default)
        if month != DRAWN and (isinstance(month, bool) or not isinstance(month, int) or month < 0):
            raise ConfigError(f"{key!r} must be an integer >= 0 or {DRAWN!r}, got {month!r}")
    share = params.get("pair_share")
    if share is not None and not (isinstance(share, int | float) and 0 <= share <= 1):
        raise ConfigError(f"'pair_share' must be a number in [0, 1], got {share!r}")
    jobs = params.get("analysis_jobs")
    if jobs is not None and not (
        isinstance(jobs, int) and not isinstance(jobs, bool) and jobs >= 2
    ):
        raise ConfigError(f"'analysis_jobs' must be an integer >= 2, got {jobs!r}")
    for key in ("load", "span", "proportion", "compute_load", "compute_sigma"):
        v = params.get(key)
        if key in params and not (isinstance(v, int | float) and not isinstance(v, bool) and v > 0):
            raise ConfigError(f"{key!r} must be a number > 0, got {v!r}")


def _simulate(specs: list[DomainSpec], transport: str) -> CoupledResult:
    """Run the domains in this process (``local``) or one process each (``tcp``)."""
    if transport == "local":
        return run_coupled([s.build() for s in specs])
    if transport == "tcp":
        from cosched.coupled.transport import run_tcp

        return run_tcp(specs, keep=True)  # the processes serve every cell
    raise ConfigError(f"transport must be 'local' or 'tcp', got {transport!r}")


def run_cell(params: Mapping[str, Scalar], seed: int, env: CellEnv) -> dict[str, Any]:
    """Simulate one configuration and seed; flat metrics ``<machine>.<metric>``.

    ``outcome`` is ``ok`` or ``deadlock`` (a hold-hold deadlock is a result, not a
    failure); ``sync_verified`` says every paired job started with its mate.
    """
    span = float(params["span"])  # type: ignore[arg-type]
    machine = str(params.get("compute", "atlas"))
    traces = env.trace(COMPUTE_TRACE).parent if machine == "atlas" else None
    analysis = env.trace(ANALYSIS_TRACE).parent
    compute_load = params.get("compute_load")
    # Independent streams per seed: the compute month (the stand-in's draw), the pairing,
    # the analysis month (read only with analysis_month = "drawn").
    draw_month, draw_pairs, draw_analysis = (
        np.random.default_rng(np.random.SeedSequence([int(seed), k])) for k in (7, 6, 8)
    )
    wc, compute_platform = compute_machine(
        machine,
        traces,
        span=span,
        load=None if compute_load is None else float(compute_load),  # type: ignore[arg-type]
        rng=draw_month,
        sigma=float(params.get("compute_sigma", STANDIN_SIGMA)),  # type: ignore[arg-type]
        month=params.get("compute_month", COMPUTE_MONTH),  # type: ignore[arg-type]
    )
    special = params.get("analysis_jobs") if params["study"] == "proportion" else None
    load = float(params["load"])  # type: ignore[arg-type]
    amonth = params.get("analysis_month", ANALYSIS_MONTH)
    if special is None:
        wa = analysis_workload(analysis, load=load, span=span, month=amonth, rng=draw_analysis)  # type: ignore[arg-type]
    else:  # the paper's special workload: the compute machine's job count
        wa = special_analysis(
            analysis,
            jobs=int(special),  # type: ignore[call-overload]
            load=load,
            span=span,
            month=amonth,  # type: ignore[arg-type]
            rng=draw_analysis,
        )
    rng = draw_pairs
    if params["study"] == "load":
        wc, wa = pair_workloads(wc, wa, rng=rng)
        share = params.get("pair_share")
        if share is not None:
            wc, wa = thin_pairs(wc, wa, share=float(share), rng=rng)  # type: ignore[arg-type]
    else:
        prop = float(params["proportion"])  # type: ignore[arg-type]
        wc, wa = pair_nearest(wc, wa, proportion=prop, rng=rng)
    scheme = str(params["scheme"])
    enabled = scheme != "base"
    sc, sa = SCHEMES.get(scheme, ("hold", "hold"))
    clock = params.get("release_clock", DEFAULT_RELEASE_CLOCK)
    release_yield = bool(params.get("release_yield", False))
    specs = [
        DomainSpec(
            name,
            w,
            platform,
            scheme=s,  # type: ignore[arg-type]
            enabled=enabled,
            release_clock=clock,  # type: ignore[arg-type]
            release_yield=release_yield,
        )
        for name, w, platform, s in (
            ("compute", wc, compute_platform, sc),
            ("analysis", wa, ANALYSIS_PLATFORM, sa),
        )
    ]
    try:
        res = _simulate(specs, env.transport)
    except CoupledDeadlockError as exc:
        return {"outcome": "deadlock", "deadlock": str(exc)}
    if res.faults:
        # Only over TCP: a domain process died or hung; a cell that lost a machine for
        # good has no metrics to compare, and says what happened.
        lost = any(f["event"] == "lost" for f in res.faults)
        faults = "; ".join(f"{f['event']} {f.get('domain', '')}".strip() for f in res.faults)
        if lost:
            return {"outcome": "lost", "deadlock": "", "faults": faults}
    if enabled:
        verify_sync(res)
    out: dict[str, Any] = {"outcome": "ok", "deadlock": "", "sync_verified": enabled}
    for machine, metrics in coupled_metrics(res).items():
        out.update({f"{machine}.{k}": v for k, v in metrics.items()})
    for machine, r in res.results.items():
        out.update({f"{machine}.stats.{k}": v for k, v in sorted(r.stats.items())})
    return out
