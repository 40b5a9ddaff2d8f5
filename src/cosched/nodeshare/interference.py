"""The interference model of section 3.2: how a configuration and co-runners change run time.

A job of base configuration ``(n x C)`` with run time ``T`` splits into a computation part
``(1 - f) T`` and a communication part ``f T`` (``f`` = ``ns_comm_fraction``). Run in a
configuration of ``m n`` nodes with ``c`` cores per node, on nodes whose co-runners put
memory pressure on it, its run time becomes ``T * factor`` with::

    factor = a * (1 + slowdown) + b
    a = (1 - f) * d ** h / speedup(c / C)      computation, degraded and spread
    b = f * (1 + p) ** log2(m)                 communication
    slowdown = victim[s] * max over its nodes of (sum of pressure[s'] of co-runners)

where ``d`` is the job's degradation per halving (``ns_degradation``), ``h`` the number of
halvings of its total cores against the base, ``p`` its communication penalty
(``ns_comm_penalty``), ``s`` its memory sensitivity and ``s'`` the co-runners'.

Sources. The paper gives the four effects and the per-job ranges of ``f``, ``p`` and ``d``
(section 4, drawn by :func:`cosched.workload.profiles.nodeshare.annotate_nodeshare`), but
tabulates neither the memory speedup per core fraction ("improvement[fractionCores]") nor
the slowdown between sensitivity classes, nor how the communication penalty scales with
the node count. Those are parameters here, grouped in named presets (:data:`PRESETS`):

* ``fig3`` (the default): memory speedup 1.075 at half and 1.10 at a quarter of the
  cores, victim weights 0.005 / 0.015 / 0.03, fitted by
  ``docs/studies/fit_nodeshare_fig3.py`` to the one published quantity they determine, the
  paper's own distribution of execution-time changes (Figure 3; docs/nodeshare.md).
* ``prior``: cosched's guesses fixed before any run (speedup 1.10 / 1.15, victim weights
  0.05 / 0.15 / 0.30: a high-sensitivity job next to another high one runs 45% slower).
  They contradict Figure 3 (6% of jobs sped up against the paper's 45%), so they are
  kept only as a named alternative.

Common to both: ``pressure`` (0.5, 1.0, 1.5) by class low, moderate, high (the product
form makes "high with high" the worst pair, which is what the paper's restriction
variants guard against); communication ``(1 + p) ** log2(m)``, the penalty once per
doubling of the node count and its inverse (a benefit) per halving, as the paper's "more
(fewer) nodes: penalty (benefit)" reads; the node slowdown of a job is its slowest
node's, as in Algorithm 1 ("the slowdown for the job is the maximum slowdown over all
nodes").

Two readings of "who is affected by a newcomer" (the paper's placement only looks at the
newcomer): ``rates="dynamic"`` (default) recomputes the rate of every job whose co-runners
change, whenever a job starts or ends on one of its nodes; ``rates="at-start"`` fixes a
job's rate at its start from the co-runners present then, and later arrivals or
departures never change it. We default to ``dynamic`` because interference is mutual: a
model in which a newcomer slows nobody already running counts only half the harm of
sharing, and flatters coscheduling.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from cosched.errors import ConfigError

__all__ = [
    "DEFAULT_PRESET",
    "DEFAULT_PRESSURE",
    "DEFAULT_SPEEDUP",
    "DEFAULT_VICTIM",
    "PRESETS",
    "STRENGTH_RANGE",
    "ConfigurationShape",
    "InterferenceModel",
    "RateReading",
    "preset_model",
    "scaled_victims",
]

RateReading = Literal["dynamic", "at-start"]


class ConfigurationShape(Protocol):
    """What the model needs of a configuration (see ``configurations.Configuration``)."""

    @property
    def fraction(self) -> float: ...
    @property
    def node_ratio(self) -> float: ...
    @property
    def halvings(self) -> float: ...


#: The named sets of the untabulated values (see the module docstring): memory speedup
#: at half and a quarter of a node's cores, victim weights of classes low, moderate, high.
PRESETS: Mapping[str, Mapping[str, float]] = {
    "fig3": {
        "speedup_half": 1.075,
        "speedup_quarter": 1.10,
        "victim_low": 0.005,
        "victim_moderate": 0.015,
        "victim_high": 0.03,
    },
    "prior": {
        "speedup_half": 1.10,
        "speedup_quarter": 1.15,
        "victim_low": 0.05,
        "victim_moderate": 0.15,
        "victim_high": 0.30,
    },
}
#: The preset in force unless another is named: the one fitted to the paper's Figure 3.
DEFAULT_PRESET = "fig3"
_D = PRESETS[DEFAULT_PRESET]
#: Memory speedup of the computation part by fraction of the node's cores used.
DEFAULT_SPEEDUP: Mapping[float, float] = {
    1.0: 1.0,
    0.5: _D["speedup_half"],
    0.25: _D["speedup_quarter"],
}
#: How much a job of class low, moderate, high suffers per unit of co-runner pressure.
DEFAULT_VICTIM: tuple[float, float, float] = (
    _D["victim_low"],
    _D["victim_moderate"],
    _D["victim_high"],
)
#: How much memory pressure a co-runner of class low, moderate, high exerts.
DEFAULT_PRESSURE: tuple[float, float, float] = (0.5, 1.0, 1.5)


def _triple(name: str, values: Sequence[float]) -> tuple[float, float, float]:
    vals = tuple(float(v) for v in values)
    if len(vals) != 3 or any(not (math.isfinite(v) and v >= 0) for v in vals):
        raise ConfigError(f"{name} must be three finite numbers >= 0, got {values!r}")
    return vals  # type: ignore[return-value]


@dataclass(frozen=True)
class InterferenceModel:
    """Run-time factors of jobs by configuration and co-runners (see the module docstring).

    Attributes:
        speedup: memory speedup of the computation part by the fraction of a node's
            cores the job uses (default: the ``fig3`` preset's ``{1.0: 1.0, 0.5: 1.075,
            0.25: 1.10}``); a fraction not listed takes the nearest listed one at or
            above it.
        victim: sensitivity to co-runner pressure of classes low, moderate, high.
        pressure: pressure a co-runner of class low, moderate, high exerts.
        rates: ``dynamic`` or ``at-start`` (who a newcomer affects; see the module).
    """

    speedup: Mapping[float, float] = field(default_factory=lambda: dict(DEFAULT_SPEEDUP))
    victim: tuple[float, float, float] = DEFAULT_VICTIM
    pressure: tuple[float, float, float] = DEFAULT_PRESSURE
    rates: RateReading = "dynamic"
    _speedups: dict[float, float] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _terms: dict[int, tuple[Sequence[ConfigurationShape], list[tuple[float, float, float]]]] = (
        field(default_factory=dict, init=False, repr=False, compare=False)
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "victim", _triple("victim", self.victim))
        object.__setattr__(self, "pressure", _triple("pressure", self.pressure))
        if self.rates not in ("dynamic", "at-start"):
            raise ConfigError(f"rates must be 'dynamic' or 'at-start', got {self.rates!r}")
        table = {}
        for frac, value in dict(self.speedup).items():
            if not (0 < float(frac) <= 1) or not (math.isfinite(value) and value > 0):
                raise ConfigError(
                    f"speedup needs fractions in (0, 1] and factors > 0, got {frac!r}: {value!r}"
                )
            table[float(frac)] = float(value)
        if 1.0 not in table:
            table[1.0] = 1.0
        object.__setattr__(self, "speedup", dict(sorted(table.items())))

    def memory_speedup(self, fraction: float) -> float:
        """Speedup of the computation part when using ``fraction`` of each node's cores."""
        got = self._speedups.get(fraction)
        if got is None:
            got = 1.0
            for frac, value in self.speedup.items():  # sorted ascending
                if frac >= fraction - 1e-12:
                    got = value
                    break
            self._speedups[fraction] = got  # a handful of fractions: each found once
        return got

    def coefficients(
        self,
        *,
        fraction: float,
        node_ratio: float,
        halvings: float,
        comm_fraction: float,
        comm_penalty: float,
        degradation: float,
    ) -> tuple[float, float]:
        """``(a, b)`` of ``factor = a * (1 + slowdown) + b`` for one job and configuration.

        Args:
            fraction: cores per node used / cores per node.
            node_ratio: nodes of the configuration / nodes of the base configuration.
            halvings: log2(base total cores / configuration total cores), 0 if not degraded.
            comm_fraction: share of the base run time spent communicating.
            comm_penalty: the job's communication penalty per doubling of nodes.
            degradation: the job's slowdown per halving of its cores.
        """
        terms = [(halvings, self.memory_speedup(fraction), math.log2(node_ratio))]
        return self._from_terms(terms, comm_fraction, comm_penalty, degradation)[0]

    @staticmethod
    def _from_terms(
        terms: Sequence[tuple[float, float, float]],
        comm_fraction: float,
        comm_penalty: float,
        degradation: float,
    ) -> list[tuple[float, float]]:
        """``(a, b)`` per configuration from its ``(halvings, memory speedup, log2 node
        ratio)``: ``a = (1 - comm_fraction) x degradation ** halvings / speedup`` and ``b =
        comm_fraction x (1 + comm_penalty) ** log2 ratio``."""
        rest, comm = 1.0 - comm_fraction, 1.0 + comm_penalty
        return [
            (rest * degradation**h / speedup, comm_fraction * comm**log_ratio)
            for h, speedup, log_ratio in terms
        ]

    def coefficients_for(
        self,
        configs: Sequence[ConfigurationShape],
        *,
        comm_fraction: float,
        comm_penalty: float,
        degradation: float,
    ) -> list[tuple[float, float]]:
        """:meth:`coefficients` of one job for each configuration in ``configs``
        (the same operations in the same order, so the same bits; the per-configuration
        terms are found once per ``configs`` object, which the policies cache)."""
        terms = self._terms.get(id(configs))
        if terms is None or terms[0] is not configs:
            if len(self._terms) >= 4096:  # callers passing a new sequence each time
                self._terms.clear()
            terms = self._terms[id(configs)] = (
                configs,
                [
                    (c.halvings, self.memory_speedup(c.fraction), math.log2(c.node_ratio))
                    for c in configs
                ],
            )
        return self._from_terms(terms[1], comm_fraction, comm_penalty, degradation)

    def slowdown(self, sensitivity: int, co_pressure: float) -> float:
        """Memory slowdown (added fraction) of a job of ``sensitivity`` under co-runners."""
        return self.victim[sensitivity] * co_pressure


#: The interference strengths (:func:`scaled_victims`) the paper's text allows: above 0,
#: since two high-sensitivity jobs on a node suffer "a large penalty due to memory
#: interference" (line 161), and at most the strength at which the largest memory
#: slowdown, a high job beside two high co-runners (the cap of 3 jobs a node), reaches
#: 5, since "No job slowed down by more than a factor of five" (line 244):
#: 1 + 0.03 k x (1.5 + 1.5) <= 5, k <= 44.4.
STRENGTH_RANGE: tuple[float, float] = (
    0.0,
    4.0 / (PRESETS[DEFAULT_PRESET]["victim_high"] * 2 * DEFAULT_PRESSURE[2]),
)


def scaled_victims(strength: float) -> dict[str, float]:
    """The default preset's victim weights times ``strength`` (policy parameters).

    The one-parameter family of interference functions the studies sweep and fit
    (``docs/studies/nodeshare_fit.py``): pressures and memory speedups unchanged;
    ``strength = 10`` gives the ``prior`` preset's victim weights.

    Raises:
        ConfigError: ``strength`` not a finite number >= 0.
    """
    if not (math.isfinite(strength) and strength >= 0):
        raise ConfigError(f"interference strength must be a number >= 0, got {strength!r}")
    p = PRESETS[DEFAULT_PRESET]
    return {f"victim_{c}": strength * p[f"victim_{c}"] for c in ("low", "moderate", "high")}


def preset_model(
    name: str = DEFAULT_PRESET,
    *,
    pressure: tuple[float, float, float] = DEFAULT_PRESSURE,
    rates: RateReading = "dynamic",
) -> InterferenceModel:
    """The model of preset ``name`` (``fig3`` or ``prior``).

    Raises:
        ConfigError: an unknown preset.
    """
    if name not in PRESETS:
        raise ConfigError(f"interference preset must be one of {', '.join(PRESETS)}, got {name!r}")
    p = PRESETS[name]
    return InterferenceModel(
        speedup={1.0: 1.0, 0.5: p["speedup_half"], 0.25: p["speedup_quarter"]},
        victim=(p["victim_low"], p["victim_moderate"], p["victim_high"]),
        pressure=pressure,
        rates=rates,
    )
