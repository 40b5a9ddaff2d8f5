"""A coupled run described by plain values: what a domain process needs to build its domain.

:class:`DomainSpec` is one machine (workload, platform, local policy, scheme and the
section IV-E settings). It builds the in-process :class:`Domain` and travels to a
``cosched coupled serve`` process as JSON plus the workload table as Parquet, so both
transports build the very same domain. :func:`load_spec` reads a run from a TOML file
(``cosched coupled run SPEC``)::

    [[domain]]
    name = "compute"
    workload = "compute.swf"      # SWF; its sidecar holds the coupled_mate column
    procs = 128                   # or nodes = 16, cores = 8, allocation = "nodes"
    scheme = "hold"
    policy = "easy"               # the local policy and its parameters
    params = { order = "wfp" }
    release_period = 1200         # or "none"
    release_clock = "machine"     # or "job" (whose clock times the release)
    release_yield = false         # true: no new hold in a pass that released holds

    [[domain]]
    name = "analysis"
    ...

    links = [["compute", "analysis"]]   # top level, before the tables; default: the
                                        # first domain with each of the others

    [pair]                        # optional: pair the first two domains' jobs
    window = 120                  # submitted within 120 s of each other (the paper's rule)
    proportion = 0.3              # or: this share of jobs paired at random
    seed = 1

Without ``[pair]`` the mates come from the workloads' ``coupled_mate`` column (or
``coupled_mate@NAME`` columns for mates on several machines), e.g. an SWF trace with
the sidecar ``cosched annotate coupled`` writes.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosched.coupled.coordinator import Outage
from cosched.coupled.domain import (
    DEFAULT_RELEASE_CLOCK,
    DEFAULT_RELEASE_PERIOD,
    HOLD_SETTINGS,
    Domain,
    ReleaseClock,
    Scheme,
)
from cosched.errors import ConfigError
from cosched.platform import Platform
from cosched.platform.machine import Allocation
from cosched.policies.base import make_policy
from cosched.workload.job import Workload

__all__ = ["DomainSpec", "RunSpec", "load_spec"]


@dataclass(frozen=True)
class DomainSpec:
    """One machine of a coupled run (see :class:`Domain` for the settings)."""

    name: str
    workload: Workload
    platform: Platform
    scheme: Scheme = "hold"
    policy: str = "easy"
    params: Mapping[str, Any] = field(default_factory=lambda: {"order": "wfp"})
    enabled: bool = True
    release_period: float | None = DEFAULT_RELEASE_PERIOD
    release_clock: ReleaseClock = DEFAULT_RELEASE_CLOCK
    release_yield: bool = False
    max_hold_share: float = 1.0
    max_yields: int | None = None
    estimates: str = "requested"
    check: bool = False

    def build(self) -> Domain:
        """The domain (raises :class:`ConfigError` for bad settings)."""
        return Domain(
            self.name,
            self.workload,
            self.platform,
            scheme=self.scheme,
            local=make_policy(self.policy, **dict(self.params)),
            **self._hold(),
            estimates=self.estimates,  # type: ignore[arg-type]
            check=self.check,
        )

    def _hold(self) -> dict[str, Any]:
        """The coscheduling knobs (:data:`HOLD_SETTINGS`) by name."""
        return {k: getattr(self, k) for k in HOLD_SETTINGS}

    def settings(self) -> dict[str, Any]:
        """Everything but the workload table, as JSON values."""
        p = self.platform
        w = self.workload
        return {
            "name": self.name,
            "platform": {
                "nodes": p.nodes,
                "cores": p.cores,
                "allocation": p.allocation.value,
                "mpl": p.mpl,
                "max_jobs_per_node": p.max_jobs_per_node,
                "partition": p.partition,
            },
            "workload": {
                "name": w.name,
                "max_procs": w.max_procs,
                "max_nodes": w.max_nodes,
                "header": dict(w.header),
                "notes": list(w.notes),
            },
            "scheme": self.scheme,
            "policy": self.policy,
            "params": dict(self.params),
            **self._hold(),
            "estimates": self.estimates,
            "check": self.check,
        }

    @classmethod
    def from_settings(cls, s: Mapping[str, Any], workload: Workload) -> DomainSpec:
        """The spec of :meth:`settings` with its workload table.

        Raises:
            ConfigError: a missing or ill-typed setting.
        """
        try:
            p = s["platform"]
            platform = Platform(
                nodes=int(p["nodes"]),
                cores=int(p["cores"]),
                allocation=Allocation(p["allocation"]),
                mpl=int(p["mpl"]),
                max_jobs_per_node=p["max_jobs_per_node"],
                partition=p.get("partition"),
            )
            return cls(
                name=str(s["name"]),
                workload=workload,
                platform=platform,
                scheme=s["scheme"],
                policy=str(s["policy"]),
                params=dict(s["params"]),
                enabled=bool(s["enabled"]),
                release_period=s["release_period"],
                release_clock=s.get("release_clock", DEFAULT_RELEASE_CLOCK),
                release_yield=bool(s.get("release_yield", False)),
                max_hold_share=float(s["max_hold_share"]),
                max_yields=s["max_yields"],
                estimates=str(s["estimates"]),
                check=bool(s["check"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"bad domain settings: {exc!r}") from None

    @staticmethod
    def workload_facts(s: Mapping[str, Any]) -> dict[str, Any]:
        """The :class:`Workload` facts of :meth:`settings` (name, sizes, header, notes)."""
        w = s.get("workload") or {}
        return {
            "name": str(w.get("name", "workload")),
            "max_procs": w.get("max_procs"),
            "max_nodes": w.get("max_nodes"),
            "header": dict(w.get("header") or {}),
            "notes": tuple(w.get("notes") or ()),
        }


@dataclass(frozen=True)
class RunSpec:
    """A whole coupled run: the domains, who is linked with whom, planned outages."""

    domains: tuple[DomainSpec, ...]
    links: tuple[tuple[str, str], ...] | None = None
    outages: tuple[Outage, ...] = ()


_DOMAIN_KEYS = {
    "name",
    "workload",
    "procs",
    "nodes",
    "cores",
    "allocation",
    "scheme",
    "policy",
    "params",
    *HOLD_SETTINGS,
    "estimates",
    "seed",
}


def _flag(value: object, where: str) -> bool:
    """A TOML boolean, or a one-line error naming the field."""
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false, got {value!r}")
    return value


def _platform(d: Mapping[str, Any], where: str) -> Platform:
    if "procs" in d:
        return Platform.of_procs(int(d["procs"]))
    if "nodes" in d:
        return Platform(
            nodes=int(d["nodes"]),
            cores=int(d.get("cores", 1)),
            allocation=Allocation(d.get("allocation", "cores")),
        )
    raise ConfigError(f"{where}: give procs, or nodes (and cores, allocation)")


def load_spec(path: str | Path) -> RunSpec:
    """Read a coupled run from a TOML file (format in this module's docstring).

    Raises:
        ConfigError: unreadable file, unknown keys, missing or bad values.
    """
    from cosched.workload.sources import open_workload

    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"coupled spec {path}: {exc}") from None
    unknown = sorted(set(data) - {"domain", "links", "outage", "pair"})
    if unknown:
        raise ConfigError(f"coupled spec {path}: unknown keys {unknown}")
    raw = data.get("domain")
    if not isinstance(raw, list) or len(raw) < 2:
        raise ConfigError(f"coupled spec {path}: needs at least two [[domain]] tables")
    domains = []
    for k, d in enumerate(raw):
        where = f"coupled spec {path}, domain {k + 1}"
        bad = sorted(set(d) - _DOMAIN_KEYS)
        if bad:
            raise ConfigError(f"{where}: unknown keys {bad} (known: {sorted(_DOMAIN_KEYS)})")
        if "name" not in d or "workload" not in d:
            raise ConfigError(f"{where}: name and workload are required")
        wpath = Path(str(d["workload"]))
        if not wpath.is_absolute() and ":" not in str(d["workload"]):
            wpath = path.parent / wpath
        try:
            platform = _platform(d, where)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
        try:
            workload = open_workload(str(wpath), seed=int(d.get("seed", 0)))
            rp = d.get("release_period", DEFAULT_RELEASE_PERIOD)
            spec = DomainSpec(
                name=str(d["name"]),
                workload=workload,
                platform=platform,
                scheme=d.get("scheme", "hold"),
                policy=str(d.get("policy", "easy")),
                params=dict(d.get("params", {"order": "wfp"})),
                enabled=bool(d.get("enabled", True)),
                release_period=None if rp == "none" else float(rp),
                release_clock=d.get("release_clock", DEFAULT_RELEASE_CLOCK),
                release_yield=_flag(d.get("release_yield", False), f"{where}: release_yield"),
                max_hold_share=float(d.get("max_hold_share", 1.0)),
                max_yields=d.get("max_yields"),
                estimates=str(d.get("estimates", "requested")),
            )
        except (TypeError, ValueError, OSError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"{where}: {exc}") from None
        spec.build()  # every setting checked before any process starts
        domains.append(spec)
    if "pair" in data:
        domains[:2] = _paired(domains[0], domains[1], data["pair"], f"coupled spec {path}")
    links = data.get("links")
    if links is not None:
        if not all(isinstance(x, list) and len(x) == 2 for x in links):
            raise ConfigError(f"coupled spec {path}: links must be pairs of domain names")
        links = tuple((str(a), str(b)) for a, b in links)
    outages = []
    for o in data.get("outage", []):
        try:
            end = o.get("end", math.inf)
            outages.append(Outage(str(o["domain"]), float(o["start"]), float(end)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(
                f"coupled spec {path}: [[outage]] needs domain, start: {exc}"
            ) from None
    return RunSpec(tuple(domains), links, tuple(outages))


def _paired(a: DomainSpec, b: DomainSpec, opts: Any, where: str) -> list[DomainSpec]:
    """``a`` and ``b`` with their jobs paired by :func:`pair_workloads`."""
    import dataclasses

    import numpy as np

    from cosched.workload.profiles.coupled import pair_workloads

    if not isinstance(opts, dict) or set(opts) - {"window", "proportion", "seed"}:
        raise ConfigError(f"{where}: [pair] takes window, proportion and seed")
    kw: dict[str, Any] = {}
    if "window" in opts:
        kw["window"] = float(opts["window"])
    if "proportion" in opts:
        kw["proportion"] = float(opts["proportion"])
    rng = np.random.default_rng(int(opts.get("seed", 0)))
    wa, wb = pair_workloads(a.workload, b.workload, rng=rng, **kw)
    return [dataclasses.replace(a, workload=wa), dataclasses.replace(b, workload=wb)]


def default_links(names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The first domain linked with each of the others."""
    return tuple((names[0], n) for n in names[1:])
