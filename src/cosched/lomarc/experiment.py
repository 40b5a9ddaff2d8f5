"""The LOMARC family in the experiment framework: its cell function.

The grid lives in the spec ``cosched/experiments/specs/lomarc.toml`` (section 6 of the
paper): 128 single-CPU nodes; Lublin workloads W1-W3 (inter-arrival shape alpha 10.23,
9.83, 8.83, Table 4) with 8,000 jobs; mixture M1 on all three, M2 and M3 on W1
(Figure 9); the variants PSS, AC, AM, L-N, L-U1, L-U2, L-R, L-FM, each pairing variant
under the ``printed`` preset, and the ablations L-R-np and L-R-own (see :data:`RUNS`).

The workloads come from the **typeless** (single-class) Lublin model
(``generate_lublin(..., typeless=True, alpha=...)``). The paper does not name the
model variant, but W1's alpha, 10.23, is exactly the typeless model's default arrival
shape (``TYPELESS_DEFAULTS.aarr`` = 10.2303), so W1 is the typeless model unchanged and
W2, W3 are it with a shorter inter-arrival shape: they offer about 0.74 / 0.88 / 1.58
(seed 0), increasingly heavy as the paper describes. The one arrival set,
``paper-alpha``, is that model with the paper's alpha values (kept as a parameter for
sensitivity sets). Every variant of a (workload, mixture, seed) sees the same jobs.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from cosched.engine.simulation import Simulation
from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv, Scalar, require
from cosched.lomarc.diagnostics import run_metrics
from cosched.lomarc.policies import VARIANTS, Lomarc, lomarc_platform
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from cosched.workload.models.lublin import generate_lublin
from cosched.workload.profiles.lomarc import MIXTURES, annotate_lomarc

__all__ = [
    "METRIC_READINGS",
    "NODES",
    "PAIRING",
    "PRESETS",
    "PRESET_ATTR",
    "PRESET_VARIANTS",
    "RUNS",
    "SETS",
    "WORKLOADS",
    "cell_workload",
    "check",
    "run_cell",
    "under_metric_reading",
    "under_preset",
]

NODES = 128
#: Table 4: inter-arrival gamma shape per workload.
WORKLOADS: dict[str, float] = {"W1": 10.23, "W2": 9.83, "W3": 8.83}
#: The arrival sets: only the paper's (kept as a grid axis for sensitivity sets).
SETS: tuple[str, ...] = ("paper-alpha",)
#: Named presets: another reading of the paper run beside the default. ``printed`` is
#: section 4.1's slowdown formula as printed (``slowdown="printed"``: the shared parts
#: only, plus ``sl_mem`` when a pair pages); the default is the ``overlap`` reading
#: Table 2's worked example needs (:mod:`cosched.lomarc.slowdown`).
#: ``overlap-add`` and ``overlap-excess`` are the other readings of how the memory
#: slowdown combines with the shared parts (:data:`~cosched.lomarc.slowdown.FORMULAS`).
PRESETS: dict[str, dict[str, Any]] = {
    "printed": {"slowdown": "printed"},
    "overlap-add": {"slowdown": "overlap-add"},
    "overlap-excess": {"slowdown": "overlap-excess"},
}
#: The key, in a results frame's ``attrs``, of the preset its rows were run under
#: (:func:`under_preset` sets it; absent: the default readings).
PRESET_ATTR = "lomarc_preset"
#: The variants that pair jobs, so that the slowdown reading changes what they do.
PAIRING = ("AC", "AM", "L-N", "L-U1", "L-U2", "L-R", "L-FM")
#: The variants each preset runs. A memory reading changes only a pair whose memory
#: needs sum above 1, which every variant but AC refuses (``check_match``), so the
#: memory presets run AC alone and the others' default runs stand for them (tested).
PRESET_VARIANTS: dict[str, tuple[str, ...]] = {
    "printed": PAIRING,
    "overlap-add": ("AC",),
    "overlap-excess": ("AC",),
}
#: Readings of a metric rather than of the model: the claims judged on another column
#: of the same runs. ``thread-share`` reads the paper's utilization ("ratio of the
#: accumulated used nodes and the product of makespan T and number of nodes P",
#: section 6.1) as the share of hardware threads in use, beside the default node-busy
#: share (:mod:`cosched.lomarc.diagnostics`). ``E-executed`` reads E's t_i as the time a
#: job ran (its slowed time when paired), ``bounded-executed`` the relative bounded
#: response's run time the same way (both in :mod:`cosched.lomarc.diagnostics`).
METRIC_READINGS: dict[str, dict[str, str]] = {
    "thread-share": {"node_busy_utilization": "thread_share_utilization"},
    "E-executed": {"utilization_efficiency": "executed_efficiency"},
    "bounded-executed": {"mean_bounded_slowdown": "mean_bounded_slowdown_executed"},
}
#: What each variant runs: the paper's eight under the default readings; each pairing
#: variant under each preset that can change it (``L-R-printed``: L-R with
#: ``PRESETS["printed"]``; :data:`PRESET_VARIANTS`); and two ablations: ``L-R-np`` is
#: L-R without the one-level prediction of arrivals (``predict=False``) and ``L-R-own``
#: L-R under the other reading of that prediction (``arrivals="own"``: an arrival's
#: response time is its own work alone), run because the reading decides how often L-R
#: pairs at all.
RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    **{name: (policy, {}) for name, policy in VARIANTS.items()},
    **{
        f"{name}-{preset}": (VARIANTS[name], dict(params))
        for preset, params in PRESETS.items()
        for name in PRESET_VARIANTS[preset]
    },
    "L-R-np": ("lomarc-r", {"predict": False}),
    "L-R-own": ("lomarc-r", {"arrivals": "own"}),
}
_KEYS = ("set", "workload", "mixture", "variant", "n_jobs")


def check(params: Mapping[str, Scalar]) -> None:
    """Refuse a configuration the cell function cannot run (before anything runs).

    Raises:
        ConfigError: naming the parameter.
    """
    require(params, "lomarc", _KEYS)
    for key, known in (("set", SETS), ("workload", WORKLOADS), ("mixture", MIXTURES),
                       ("variant", RUNS)):  # fmt: skip
        if params[key] not in known:
            raise ConfigError(f"{key!r} must be one of {', '.join(known)}, got {params[key]!r}")
    n = params["n_jobs"]
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ConfigError(f"'n_jobs' must be an integer >= 1, got {n!r}")
    _unknowns(params)


#: The optional parameters that place a cell at a point of the unknown inputs' ranges
#: (:mod:`cosched.lomarc.unknowns`): W1's offered load and the short-job share.
UNKNOWN_KEYS = ("w1_load", "short_share")


def _unknowns(params: Mapping[str, Scalar]) -> tuple[float, float] | None:
    """``(w1_load, short_share)`` when the cell sets both, None when it sets neither.

    Raises:
        ConfigError: one without the other, or a value out of its range.
    """
    given = [k for k in UNKNOWN_KEYS if k in params]
    if not given:
        return None
    if len(given) == 1:
        other = next(k for k in UNKNOWN_KEYS if k not in params)
        raise ConfigError(f"the lomarc cell's {given[0]!r} needs {other!r} too")
    if params["set"] != "paper-alpha":
        raise ConfigError("'w1_load' and 'short_share' apply to the set 'paper-alpha' only")
    load, share = params["w1_load"], params["short_share"]
    if isinstance(load, bool) or not isinstance(load, int | float) or load <= 0:
        raise ConfigError(f"'w1_load' must be a number > 0, got {load!r}")
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise ConfigError(f"'short_share' must be a number in [0, 1], got {share!r}")
    return float(load), float(share)


def _rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(list(key)))


@functools.lru_cache(maxsize=8)
def _lublin(workload: str, seed: int, jobs: int) -> Workload:
    index = list(WORKLOADS).index(workload)
    return generate_lublin(
        jobs, nodes=NODES, rng=_rng(seed, 1, index), typeless=True, alpha=WORKLOADS[workload]
    )


@functools.lru_cache(maxsize=8)
def cell_workload(set_name: str, workload: str, mixture: str, seed: int, jobs: int) -> Workload:
    """The annotated workload of a cell (shared by every variant of the cell)."""
    if set_name not in SETS:
        raise ConfigError(f"set must be one of {', '.join(SETS)}, got {set_name!r}")
    w = _lublin(workload, seed, jobs)
    index = list(WORKLOADS).index(workload)
    mix = list(MIXTURES).index(mixture)
    return annotate_lomarc(w, rng=_rng(seed, 2, index, mix), mixture=mixture)


def run_cell(params: Mapping[str, Scalar], seed: int, env: CellEnv) -> dict[str, Any]:
    """Simulate one configuration and seed: the core metrics and the search diagnostics.

    With ``w1_load`` and ``short_share`` the cell's workload is the reproduction's at
    that point of the unknowns' ranges (:func:`cosched.lomarc.unknowns.
    sensitivity_workload`, as the fitted study ``lomarc-fitted`` runs it)."""
    point = _unknowns(params)
    if point is None:
        w = cell_workload(
            str(params["set"]),
            str(params["workload"]),
            str(params["mixture"]),
            seed,
            int(params["n_jobs"]),  # type: ignore[arg-type]
        )
    else:
        from cosched.lomarc.unknowns import sensitivity_workload  # it imports this module

        w = sensitivity_workload(
            str(params["workload"]),
            str(params["mixture"]),
            seed,
            int(params["n_jobs"]),  # type: ignore[arg-type]
            *point,
        )
    name, extra = RUNS[str(params["variant"])]
    policy = make_policy(name, **extra)
    assert isinstance(policy, Lomarc)
    result = Simulation(w, lomarc_platform(NODES), policy).run()
    return {"policy": policy.name, **run_metrics(result, NODES)}


def under_preset(results: pd.DataFrame, preset: str) -> pd.DataFrame:
    """``results`` as the preset's runs: each ``<variant>-<preset>`` row renamed to the
    paper's variant and the default's rows of those variants dropped, so the same
    claims judge the preset (PSS never pairs and is shared by every reading; a variant
    the preset does not run keeps its default rows, :data:`PRESET_VARIANTS`); the other
    presets' runs are dropped.

    Raises:
        ConfigError: an unknown preset.
    """
    if preset not in PRESETS:
        raise ConfigError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    if "variant" not in results.columns:
        return results
    runs = PRESET_VARIANTS[preset]
    renamed = {f"{name}-{preset}": name for name in runs}
    others = {f"{n}-{p}" for p, names in PRESET_VARIANTS.items() if p != preset for n in names}
    kept = results[~results["variant"].isin([*runs, *others])].copy()
    kept["variant"] = kept["variant"].replace(renamed)
    kept = kept.reset_index(drop=True)
    kept.attrs[PRESET_ATTR] = preset
    return kept


def under_metric_reading(results: pd.DataFrame, reading: str) -> pd.DataFrame | None:
    """``results`` with each metric the reading replaces taken from its other column
    (:data:`METRIC_READINGS`), so the same claims judge it; None when the runs lack a
    column the reading needs (a store written before the column existed).

    Raises:
        ConfigError: an unknown reading.
    """
    if reading not in METRIC_READINGS:
        raise ConfigError(
            f"metric reading must be one of {', '.join(METRIC_READINGS)}, got {reading!r}"
        )
    columns = METRIC_READINGS[reading]
    if not all(c in results.columns for c in columns.values()):
        return None
    out = results.copy()
    for metric, column in columns.items():
        out[metric] = results[column]
    return out
