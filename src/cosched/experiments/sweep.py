"""Declarative sweeps: a grid of workloads x policy parameters x seeds, run resumably.

A :class:`SweepSpec` (parsed from TOML by :func:`load_spec` or from a dict by
:func:`spec_from_dict`) expands with :func:`cells` into :class:`Cell` s. Each cell has a
``key``: a short hash of its canonical JSON, so it does not depend on where the cell
sits in the grid, and adding cells leaves the other keys alone. :func:`run_sweep` runs
them through the one runner (:mod:`cosched.experiments.runner`), whose store keeps each
finished cell as it ends::

    store/cells/<key>.parquet   the cell's parameters, summary metrics, engine stats
    store/jobs/<key>.parquet    the per-job outcome table
    store/failed/<key>.parquet  error of a failed cell (retried on the next run)
    store/results.parquet       one row per cell of the spec, sorted by key
    store/report.md, .html      summary with confidence intervals, provenance

``results.parquet`` is built from the stored cells only, so it is byte-identical whether
the cells ran now or earlier, in one process, many, or on Dask.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import typing
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cosched.engine.simulation import Estimates, SimulationResult, simulate
from cosched.errors import ConfigError, CoschedError
from cosched.experiments.model import CellEnv, CellTask, SpecContext, canonical, read_toml
from cosched.experiments.runner import ExperimentError
from cosched.experiments.store import CellResult
from cosched.experiments.traces import file_sha256
from cosched.metrics.summary import summarize
from cosched.platform.machine import Platform
from cosched.policies.base import Policy, make_policy, policy_class, policy_ref
from cosched.policies.requirements import MachineFlags, build_platform, fit_workload
from cosched.workload.job import Workload

__all__ = [
    "BUNDLED_PREFIX",
    "Cell",
    "PolicySpec",
    "SweepError",
    "SweepSpec",
    "WorkloadSpec",
    "cells",
    "load_spec",
    "run_sweep",
    "spec_from_dict",
]

#: A trace path starting with this names a trace bundled in ``cosched/data``.
BUNDLED_PREFIX = "bundled:"

Scalar = str | int | float | bool | None
Progress = Callable[[int, int], None]

_TOP_KEYS = ("name", "workloads", "platform", "policies", "seeds", "estimates", "tau")
_PLATFORM_KEYS = (
    "procs", "nodes", "cores", "allocation", "mpl", "max_jobs_per_node", "exclusive", "unavailable",
    "partitions",
)  # fmt: skip
_RULE_KEYS = ("procs_field", "overrun", "nonpositive_run", "too_wide")
# Keys of each workload kind, with the check of their values (see _KINDS).
_WORKLOAD_KEYS: dict[str, dict[str, str]] = {
    "swf": {"path": "text", **dict.fromkeys(_RULE_KEYS, "text"), "limit": "count",
            "load": "number", "profiles": "text"},
    "lublin": {"jobs": "size", "nodes": "size", "typeless": "flag", "alpha": "number",
               "load": "number"},
}  # fmt: skip
_POLICY_KEYS = ("name", "params")
_NONE_WORDS = ("none", "null")
# Metrics in the report's summary table (results.parquet has them all).
_SHOWN = ("mean_wait", "mean_bounded_slowdown", "utilization", "makespan")
# Loaded workloads kept per process; a real trace is ~200k jobs, so keep only a few.
_CACHE_SIZE = 4
_CACHE: OrderedDict[str, Workload] = OrderedDict()


# -- the spec -------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkloadSpec:
    """One workload of the grid: an SWF trace with loader options, or a Lublin model.

    Attributes:
        kind: ``swf`` or ``lublin``.
        name: label in the results (unique within a sweep).
        path: (swf) the trace, as written: relative to ``root``, or ``bundled:NAME``.
        procs_field, overrun, nonpositive_run, too_wide: (swf) :class:`LoadRules`
            options; None keeps the loader's default.
        limit: (swf) keep only the first ``limit`` jobs the loader rules keep.
        jobs, nodes, typeless, alpha: (lublin) :func:`generate_lublin` arguments.
        load: target offered load (swf: arrivals scaled with ``scale_to_load``; lublin:
            passed to the generator).
        profiles: (swf) a Parquet sidecar of per-job profile columns (default: the
            trace's own sidecar if any, else the policy family's annotator).
        root: folder that relative paths are resolved against (not part of the identity).
    """

    kind: str
    name: str
    path: str | None = None
    procs_field: str | None = None
    overrun: str | None = None
    nonpositive_run: str | None = None
    too_wide: str | None = None
    limit: int | None = None
    jobs: int | None = None
    nodes: int | None = None
    typeless: bool | None = None
    alpha: float | None = None
    load: float | None = None
    profiles: str | None = None
    profile_params: tuple[tuple[str, Scalar], ...] | None = None
    root: Path | None = field(default=None, compare=False, repr=False)

    def identity(self) -> dict[str, Any]:
        """The fields that define the workload, unset ones left out (keeps keys stable)."""
        out = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "root" and getattr(self, f.name) is not None
        }
        if self.profile_params is not None:
            out["profile_params"] = dict(self.profile_params)
        return out


@dataclass(frozen=True)
class PolicySpec:
    """A policy and its parameter grid: each parameter maps to the values to try.

    ``name`` is as written (a registered name, ``file.py:Class`` or ``module:Class``);
    ``ref`` is how a worker process finds the class again (not part of the identity).
    """

    name: str
    params: tuple[tuple[str, tuple[Scalar, ...]], ...] = ()
    ref: str = field(default="", compare=False)

    def grid(self) -> list[tuple[tuple[str, Scalar], ...]]:
        """Every combination of the parameter values (keys sorted, values in given order)."""
        items = sorted(self.params)
        combos = itertools.product(*(values for _, values in items))
        return [tuple(zip((k for k, _ in items), combo, strict=True)) for combo in combos]


@dataclass(frozen=True)
class SweepSpec:
    """A sweep: the grid ``workloads x policies (x their parameter grids) x seeds``.

    Attributes:
        name: label of the sweep.
        workloads: the workloads.
        platform: what the spec says of the machine (None: nothing; each policy's
            family builds its machine from the trace header, see
            :func:`~cosched.policies.requirements.build_platform`).
        policies: the policies with their parameter grids.
        seeds: the seeds; each cell derives its own random streams from its identity.
        estimates: ``requested`` or ``exact`` run-time estimates.
        tau: bound of the bounded slowdown, in seconds.
        source: where the spec came from (file name, for messages).
    """

    name: str
    workloads: tuple[WorkloadSpec, ...]
    platform: MachineFlags | None
    policies: tuple[PolicySpec, ...]
    seeds: tuple[int, ...] = (0,)
    estimates: Estimates = "requested"
    tau: float = 10.0
    source: str = field(default="<dict>", compare=False)


@dataclass(frozen=True)
class Cell:
    """One simulation of the grid.

    Attributes:
        index: position in the grid (cell order); not part of the identity.
        seed: the user's seed of this cell.
    """

    index: int
    workload: WorkloadSpec
    platform: MachineFlags | None
    policy: str
    params: tuple[tuple[str, Scalar], ...]
    seed: int
    estimates: Estimates
    tau: float
    policy_ref: str = field(default="", compare=False)

    def identity(self) -> dict[str, Any]:
        """The canonical description of the cell, which the key hashes."""
        return {
            "workload": self.workload.identity(),
            "platform": _platform_dict(self.platform),
            "policy": self.policy,
            "params": dict(self.params),
            "seed": self.seed,
            "estimates": self.estimates,
            "tau": self.tau,
        }

    @cached_property
    def key(self) -> str:
        """Short hash of the canonical JSON (so independent of the position in the grid)."""
        return hashlib.sha256(canonical(self.identity()).encode()).hexdigest()[:16]

    @cached_property
    def cell_seed(self) -> int:
        """Seed of the policy's random stream, derived from the cell's identity (a trace
        named by an absolute path counts by its file name, :func:`_placeless`)."""
        return _derive_seed(self.identity() | {"workload": _placeless(self.workload)})

    @cached_property
    def workload_seed(self) -> int:
        """Seed of a generated workload: from workload and seed only, so that every
        policy of the grid sees the same jobs."""
        return _derive_seed({"workload": _placeless(self.workload), "seed": self.seed})

    @property
    def label(self) -> str:
        """A short human label such as ``example/easy(window=4)/seed=1``."""
        params = ",".join(f"{k}={v}" for k, v in self.params)
        return f"{self.workload.name}/{self.policy}({params})/seed={self.seed}"


class SweepError(ExperimentError):
    """Some cells of a sweep failed; the others are stored.

    Attributes:
        results: the results table (failed cells have ``status == "failed"``).
        failed: ``(key, label, error)`` of each failed cell, in key order.
    """

    def __init__(self, results: pd.DataFrame, failed: list[tuple[str, str, str]]) -> None:
        super().__init__(results, failed)
        lines = "\n".join(f"  {key} {label}: {error}" for key, label, error in failed)
        self.args = (f"{len(failed)} of {len(results)} sweep cells failed:\n{lines}",)


# -- parsing --------------------------------------------------------------------------


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read a sweep spec from a TOML file (relative trace paths resolve against its folder).

    Raises:
        ConfigError: unreadable file, bad TOML, unknown key, unknown policy name or bad
            value, named together with the file.
    """
    p = Path(path)
    return spec_from_dict(read_toml(p, "sweep spec"), source=str(p), root=p.resolve().parent)


def spec_from_dict(
    data: Mapping[str, Any], *, source: str = "<dict>", root: str | os.PathLike[str] | None = None
) -> SweepSpec:
    """Build and check a sweep spec from a dict shaped like the TOML file.

    Every policy, parameter combination and trace path is checked here, so a bad spec
    fails before anything runs.

    Args:
        data: the spec.
        source: name used in error messages.
        root: folder for relative trace paths (default: the current directory).

    Raises:
        ConfigError: unknown key or bad value, naming it and ``source``.
    """
    ctx = _Ctx(source, Path(root) if root is not None else Path.cwd())
    ctx.keys(data, _TOP_KEYS, "the top level")
    platform = _parse_platform(ctx, data.get("platform"))
    workloads = _as_list(ctx, data.get("workloads"), "workloads")
    policies = _as_list(ctx, data.get("policies"), "policies")
    spec = SweepSpec(
        name=_want(ctx, data.get("name", Path(source).stem), "name", "text"),
        workloads=tuple(_parse_workload(ctx, i, w, platform) for i, w in enumerate(workloads)),
        platform=platform,
        policies=tuple(_parse_policy(ctx, i, p) for i, p in enumerate(policies)),
        seeds=_parse_seeds(ctx, data.get("seeds", [0])),
        estimates=_parse_choice(ctx, data.get("estimates", "requested"), "estimates"),
        tau=_want(ctx, data.get("tau", 10.0), "tau", "number"),
        source=source,
    )
    names = [w.name for w in spec.workloads]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        ctx.fail(f"two workloads are named {dup!r}; give each a distinct 'name'")
    cells(spec)  # reject a grid with the same cell twice now, not at run time
    return spec


@dataclass(frozen=True)
class _Ctx(SpecContext):
    """The spec parser's context (errors name the source) and the folder for paths."""

    root: Path


def _as_list(ctx: _Ctx, value: object, key: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        ctx.fail(f"{key!r} must be a non-empty list of tables ([[{key}]]), got {value!r}")
    return value


# name -> (test, rule shown in the error)
_KINDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "text": (lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "count": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
              "an integer >= 0"),
    "size": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 2**53,
             "an integer from 1 to 2^53"),
    "number": (lambda v: isinstance(v, int | float) and not isinstance(v, bool)
               and math.isfinite(v) and v > 0, "a number > 0"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
}  # fmt: skip


def _want(ctx: _Ctx, value: object, key: str, kind: str) -> Any:
    test, rule = _KINDS[kind]
    if not test(value):
        ctx.fail(f"{key!r} must be {rule}, got {value!r}")
    return float(typing.cast(float, value)) if kind == "number" else value


def _parse_choice(ctx: _Ctx, value: object, key: str) -> Estimates:
    if value not in ("requested", "exact"):
        ctx.fail(f"{key!r} must be 'requested' or 'exact', got {value!r}")
    return typing.cast(Estimates, value)


def _parse_seeds(ctx: _Ctx, value: object) -> tuple[int, ...]:
    seeds = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(seeds, list) or not seeds:
        ctx.fail(f"'seeds' must be a non-empty list of integers, got {value!r}")
    out = tuple(_want(ctx, s, "seeds", "count") for s in seeds)
    if len(set(out)) != len(out):
        ctx.fail(f"'seeds' repeats a value: {list(out)}")
    return out


def _parse_platform(ctx: _Ctx, raw: object) -> MachineFlags | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        ctx.fail(f"'platform' must be a table, got {raw!r}")
    ctx.keys(raw, _PLATFORM_KEYS, "[platform]")
    for key, value in raw.items():
        if key == "allocation":
            if value not in ("cores", "nodes"):
                ctx.fail(f"[platform].allocation must be 'cores' or 'nodes', got {value!r}")
        elif key == "exclusive":
            _want(ctx, value, f"[platform].{key}", "flag")
        elif key not in ("unavailable", "partitions"):
            _want(ctx, value, f"[platform].{key}", "size")
    raw = dict(raw)
    if "unavailable" in raw:
        raw["unavailable"] = _parse_unavailable(ctx, raw["unavailable"])
    if "partitions" in raw:
        raw["partitions"] = _parse_partitions(ctx, raw["partitions"])
        if raw.get("unavailable"):
            ctx.fail("[platform]: 'unavailable' and 'partitions' cannot be given together")
    flags = MachineFlags(**raw)
    if flags.procs is not None and flags.nodes is not None:
        ctx.fail("[platform]: give either 'procs' or 'nodes', not both")
    return flags


def _parse_unavailable(ctx: _Ctx, raw: object) -> tuple[tuple[float, float, int], ...]:
    """``[platform].unavailable``: a list of ``[start, end, units]`` (the machine checks
    each interval when it is built)."""
    if not isinstance(raw, list | tuple):
        ctx.fail(f"[platform].unavailable must be a list of [start, end, units], got {raw!r}")
    out = []
    for k, item in enumerate(raw):
        ok = isinstance(item, list | tuple) and len(item) == 3
        if not ok or isinstance(item[2], bool) or not isinstance(item[2], int):
            ctx.fail(f"[platform].unavailable[{k}] must be [start, end, units], got {item!r}")
        try:
            out.append((float(item[0]), float(item[1]), int(item[2])))
        except (TypeError, ValueError):
            ctx.fail(f"[platform].unavailable[{k}] must be [start, end, units], got {item!r}")
    return tuple(out)


def _parse_partitions(ctx: _Ctx, raw: object) -> tuple[tuple[float, int], ...]:
    """``[platform].partitions``: a list of ``[partition, processors]``, the partition an
    SWF field 16 value (-1: the jobs without one), each partition its own machine
    (:mod:`cosched.engine.partitions`)."""
    want = "must be a list of [partition, processors]"
    if not isinstance(raw, list | tuple) or not raw:
        ctx.fail(f"[platform].partitions {want}, got {raw!r}")
    out: list[tuple[float, int]] = []
    for k, item in enumerate(raw):
        ok = isinstance(item, list | tuple) and len(item) == 2
        if not ok or isinstance(item[1], bool) or not isinstance(item[1], int) or item[1] < 1:
            ctx.fail(
                f"[platform].partitions[{k}] must be [partition, processors >= 1], got {item!r}"
            )
        try:
            out.append((float(item[0]), int(item[1])))
        except (TypeError, ValueError):
            ctx.fail(f"[platform].partitions[{k}] must be [partition, processors], got {item!r}")
    if len({a for a, _ in out}) < len(out):
        ctx.fail(f"[platform].partitions names a partition twice: {raw!r}")
    return tuple(out)


def _parse_workload(ctx: _Ctx, i: int, raw: object, platform: MachineFlags | None) -> WorkloadSpec:
    where = f"workloads[{i}]"
    if not isinstance(raw, Mapping):
        ctx.fail(f"{where} must be a table, got {raw!r}")
    kind = raw.get("kind", "swf")
    if kind not in _WORKLOAD_KEYS:
        ctx.fail(f"{where}.kind must be 'swf' or 'lublin', got {kind!r}")
    kinds = _WORKLOAD_KEYS[kind]
    ctx.keys(raw, ("kind", "name", "profile_params", *kinds), where)
    extra = raw.get("profile_params")
    if extra is not None and not (
        isinstance(extra, Mapping)
        and all(
            isinstance(k, str) and isinstance(v, str | int | float | bool) for k, v in extra.items()
        )
    ):
        ctx.fail(f"{where}.profile_params must be a table of name = value, got {extra!r}")
    values = {k: _want(ctx, raw[k], f"{where}.{k}", t) for k, t in kinds.items() if k in raw}
    if kind == "swf":
        default = _check_swf(ctx, where, values)
    else:
        default = _check_lublin(ctx, where, values, platform)
    name = _want(ctx, raw.get("name", default), f"{where}.name", "text")
    params = tuple(sorted(extra.items())) if extra else None
    return WorkloadSpec(kind, name, root=ctx.root, profile_params=params, **values)


def _check_swf(ctx: _Ctx, where: str, values: dict[str, Any]) -> str:
    """Check an SWF workload's path and loader rules; return its default name."""
    from cosched.workload.loader import LoadRules

    if "path" not in values:
        ctx.fail(f"{where} needs a 'path' (a trace file, or bundled:example)")
    _trace_file(ctx, values["path"])  # fail now on a missing trace
    if "profiles" in values and not (ctx.root / values["profiles"]).is_file():
        ctx.fail(f"{where}.profiles: {values['profiles']!r} not found (looked in {ctx.root})")
    try:
        LoadRules(**{k: values[k] for k in _RULE_KEYS if k in values})
    except ConfigError as exc:
        ctx.fail(f"{where}: {exc}")
    name = values["path"].removeprefix(BUNDLED_PREFIX).split("/")[-1]
    return name.removesuffix(".gz").removesuffix(".swf")


def _check_lublin(
    ctx: _Ctx, where: str, values: dict[str, Any], platform: MachineFlags | None
) -> str:
    """Check a Lublin workload (filling ``nodes`` from the platform); return its name."""
    if "jobs" not in values:
        ctx.fail(f"{where} needs 'jobs'")
    if "nodes" not in values:
        procs = None
        if platform is not None:
            procs = platform.procs or (
                platform.nodes * (platform.cores or 1) if platform.nodes else None
            )
        if procs is None:
            ctx.fail(f"{where} needs 'nodes' (or a [platform] to take it from)")
        values["nodes"] = procs
    if "alpha" in values and "load" in values:
        ctx.fail(f"{where}: give at most one of 'alpha' and 'load'")
    return f"lublin-{values['jobs']}"


def _parse_policy(ctx: _Ctx, i: int, raw: object) -> PolicySpec:
    where = f"policies[{i}]"
    if not isinstance(raw, Mapping):
        ctx.fail(f"{where} must be a table, got {raw!r}")
    ctx.keys(raw, _POLICY_KEYS, where)
    name = _want(ctx, raw.get("name"), f"{where}.name", "text")
    try:
        cls = policy_class(_resolve_file_ref(ctx, name))
    except CoschedError as exc:
        ctx.fail(f"{where}: {exc}")
    raw_params = raw.get("params", {})
    if not isinstance(raw_params, Mapping):
        ctx.fail(f"{where}.params must be a table, got {raw_params!r}")
    hints = typing.get_type_hints(cls)
    params = tuple(
        (key, _param_values(ctx, f"{where}.params.{key}", value, hints.get(key)))
        for key, value in raw_params.items()
    )
    spec = PolicySpec(name, params, _worker_ref(ctx, name, cls))
    for combo in spec.grid():
        try:
            make_policy(spec.ref, **dict(combo))
        except CoschedError as exc:
            ctx.fail(f"{where}: {exc}")
    return spec


def _param_values(ctx: _Ctx, where: str, value: object, hint: object) -> tuple[Scalar, ...]:
    values = value if isinstance(value, list) else [value]
    if not values:
        ctx.fail(f"{where} is an empty list; give at least one value")
    allows_none = type(None) in typing.get_args(hint)
    out: list[Scalar] = []
    for v in values:
        # TOML has no null: the word "none" stands for None where the parameter takes it.
        if allows_none and isinstance(v, str) and v.lower() in _NONE_WORDS:
            v = None
        ok = isinstance(v, str | int | bool) or (isinstance(v, float) and math.isfinite(v))
        if v is not None and not ok:
            ctx.fail(f"{where} values must be strings, finite numbers or booleans, got {v!r}")
        out.append(typing.cast(Scalar, v))
    if len(set(map(canonical, out))) != len(out):
        ctx.fail(f"{where} repeats a value: {values!r}")
    return tuple(out)


def _trace_file(ctx: _Ctx, path: str) -> Path:
    if path.startswith(BUNDLED_PREFIX):
        name = path.removeprefix(BUNDLED_PREFIX)
        res = resources.files("cosched") / "data" / f"{name}.swf"
        if not res.is_file():
            ctx.fail(f"no bundled trace {name!r} (path {path!r})")
        # A real path, not resources.as_file(): workers reopen it (cosched is not zipped).
        return Path(str(res))
    full = ctx.root / path
    if not full.is_file():
        ctx.fail(f"trace {path!r} not found (looked for {full})")
    return full


# -- the grid -------------------------------------------------------------------------


def _platform_dict(p: MachineFlags | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {k: v for k, v in vars(p).items() if v is not None}


def _resolve_file_ref(ctx: _Ctx, name: str) -> str:
    """``file.py:Class`` with the file made absolute (relative to the spec's folder)."""
    where, sep, attr = name.rpartition(":")
    if sep and (where.endswith(".py") or "/" in where):
        path = Path(where)
        return f"{path if path.is_absolute() else (ctx.root / path).resolve()}:{attr}"
    return name


def _worker_ref(ctx: _Ctx, name: str, cls: type) -> str:
    """How a worker process loads the policy: a file path made absolute, else its ref."""
    resolved = _resolve_file_ref(ctx, name)
    return resolved if resolved != name or ":" in name else policy_ref(cls)  # type: ignore[arg-type]


def _placeless(w: WorkloadSpec) -> dict[str, Any]:
    """``w``'s identity with an absolute trace path cut to the file's name: the random
    streams drawn for a trace do not depend on the folder it lies in (``compare`` names
    its trace by the absolute path, so the same log copied elsewhere would otherwise draw
    other profiles). A relative path, as a spec writes it, is kept as written, and the
    store's keys keep the whole identity."""
    out = w.identity()
    path = out.get("path")
    if isinstance(path, str) and Path(path).is_absolute():
        out["path"] = Path(path).name
    return out


def _derive_seed(identity: Mapping[str, object]) -> int:
    digest = hashlib.sha256(canonical(identity).encode()).digest()
    seq = np.random.SeedSequence(int.from_bytes(digest[:16], "little"))
    return int(seq.generate_state(1, np.uint64)[0])


def cells(spec: SweepSpec) -> list[Cell]:
    """The grid in cell order: workloads, then policies, parameter combos, seeds.

    Raises:
        ConfigError: two cells of the grid are the same simulation.
    """
    out: list[Cell] = []
    seen: set[str] = set()
    refs = {p.name: p.ref or p.name for p in spec.policies}
    grid = itertools.product(
        spec.workloads, [(p.name, c) for p in spec.policies for c in p.grid()], spec.seeds
    )
    for w, (policy, params), seed in grid:
        cell = Cell(
            len(out), w, spec.platform, policy, params, seed, spec.estimates, spec.tau, refs[policy]
        )
        if cell.key in seen:
            raise ConfigError(f"{spec.source}: the grid has {cell.label} twice")
        seen.add(cell.key)
        out.append(cell)
    return out


# -- running one cell (in a worker or in-process) -------------------------------------


def _make_workload(cell: Cell) -> Workload:
    w = cell.workload
    if w.kind == "lublin":
        from cosched.workload.models.lublin import generate_lublin

        assert w.jobs is not None and w.nodes is not None
        rng = np.random.default_rng(cell.workload_seed)
        return generate_lublin(
            w.jobs, nodes=w.nodes, rng=rng, typeless=bool(w.typeless), alpha=w.alpha, load=w.load
        )
    from cosched.policies.requirements import Requirements
    from cosched.workload.loader import LoadRules
    from cosched.workload.sources import open_workload

    assert w.path is not None
    rules = LoadRules(**{k: getattr(w, k) for k in _RULE_KEYS if getattr(w, k) is not None})
    path = _trace_file(_Ctx(w.name, w.root or Path.cwd()), w.path)
    flags = cell.platform or MachineFlags()
    given = None
    if flags.procs is not None or flags.nodes is not None:
        given, _ = build_platform(Requirements(), flags, None)
    return open_workload(str(path), rules=rules, platform=given, limit=w.limit)


def _cached_workload(cell: Cell) -> Workload:
    stochastic = cell.workload.kind == "lublin"
    key = canonical(
        {
            "workload": cell.workload.identity(),
            "root": str(cell.workload.root),
            "platform": _platform_dict(cell.platform),
            "seed": cell.workload_seed if stochastic else None,
        }
    )
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    made = _make_workload(cell)
    _CACHE[key] = made
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return made


def _prepare(cell: Cell) -> tuple[Workload, Platform, Policy]:
    """The cell's workload fitted to its policy's needs, the machine, and the policy."""
    from cosched.workload.transforms import scale_to_load

    cls = policy_class(cell.policy_ref or cell.policy)
    w = cell.workload
    profiles = None if w.profiles is None else (w.root or Path.cwd()) / w.profiles
    workload, platform, _ = fit_workload(
        cls.requires,
        _cached_workload(cell),
        cell.platform or MachineFlags(),
        profiles=profiles,
        seed=cell.workload_seed % 2**32,
        annotator_params=dict(w.profile_params or ()),
    )
    if w.kind == "swf" and w.load is not None:
        workload = scale_to_load(workload, w.load, platform.procs)
    policy = make_policy(cell.policy_ref or cell.policy, **dict(cell.params))
    return workload, platform, policy


def _execute(cell: Cell) -> CellResult:
    """Run one cell: its summary metrics and its per-job outcome table."""
    workload, platform, policy = _prepare(cell)
    rng = np.random.default_rng(cell.cell_seed)
    parts = cell.platform.partitions if cell.platform is not None else None
    if parts:
        result = _partitioned(cell, workload, platform, parts, rng)
        platform = result.platform
    else:
        result = simulate(workload, platform, policy, estimates=cell.estimates, rng=rng)
    metrics = summarize(
        result.jobs,
        capacity=platform.capacity,
        capacity_procs=platform.procs,
        tau=cell.tau,
        placements=result.placements,
        nodes=platform.nodes,
    )
    stats = {f"stats.{k}": v for k, v in sorted(result.stats.items())}
    diag = {f"diagnostics.{k}": v for k, v in sorted(result.diagnostics.items())}
    record = {"platform": platform.describe(), "workload_jobs": len(workload), **metrics}
    jobs = result.jobs
    if result.placements:  # where jobs ran: what ``compare`` says acted
        from cosched.metrics.colocation import placement_columns

        jobs = jobs.assign(**placement_columns(jobs, result.placements))
    return CellResult({**record, **stats, **diag}, {"jobs": jobs})


def _partitioned(
    cell: Cell,
    workload: Workload,
    platform: Platform,
    parts: tuple[tuple[float, int], ...],
    rng: np.random.Generator,
) -> SimulationResult:
    """The cell on a machine in partitions (``[platform].partitions``): each partition its
    own machine of the cell's node shape (:mod:`cosched.engine.partitions`)."""
    from cosched.engine.partitions import partition_index, simulate_partitioned

    nodes = []
    for value, procs in parts:
        if procs % platform.cores:
            raise ConfigError(
                f"[platform].partitions: partition {value:g}'s {procs} processors are not "
                f"whole nodes of {platform.cores} cores"
            )
        nodes.append(procs // platform.cores)
    t = workload.columns
    values = np.asarray(t["partition"], dtype=np.float64) if "partition" in t else None
    if values is None:
        values = np.full(len(workload), -1.0)
    group = partition_index(values, [v for v, _ in parts])
    return simulate_partitioned(
        workload,
        platform,
        lambda: make_policy(cell.policy_ref or cell.policy, **dict(cell.params)),
        group,
        nodes,
        estimates=cell.estimates,
        rng=rng,
    )


def sweep_cell(cell: Cell, env: CellEnv) -> CellResult:
    """The cell function of sweeps (``env`` is unused: a sweep names its trace files)."""
    return _execute(cell)


def _task(cell: Cell, param_names: list[str]) -> CellTask:
    params = dict(cell.params)
    columns: dict[str, Scalar] = {
        "workload": cell.workload.name,
        "policy": cell.policy,
        "params": canonical(params),
        **{f"param_{k}": params.get(k) for k in param_names},
        "estimates": cell.estimates,
        "tau": cell.tau,
        "seed": cell.seed,
    }
    return CellTask(cell.key, columns, "cosched.experiments.sweep:sweep_cell", cell, cell.label)


def tasks(spec: SweepSpec) -> list[CellTask]:
    """The sweep's cells as the runner's tasks (their keys are :attr:`Cell.key`)."""
    grid = cells(spec)
    param_names = sorted({k for c in grid for k, _ in c.params})
    return [_task(c, param_names) for c in grid]


def run_sweep(
    spec: SweepSpec,
    store: str | os.PathLike[str],
    *,
    workers: int = 1,
    dask: str | None = None,
    progress: Progress | None = None,
    raise_on_failure: bool = True,
    command: str | None = None,
    report: bool = True,
) -> pd.DataFrame:
    """Run the cells of ``spec`` not yet in ``store``; return the results table.

    Runs through the one runner (:func:`cosched.experiments.runner.run_tasks`): each
    finished cell is stored at once and atomically (``store/cells/<key>.parquet``, the
    per-job table in ``store/jobs/<key>.parquet``), so an interrupted sweep keeps every
    finished cell and a rerun runs only the rest (and the failed ones).

    Args:
        spec: the sweep.
        store: the output folder (created if needed).
        workers: local processes to run cells in; 1 runs them in this process.
        dask: run on Dask instead: ``local:N`` or a scheduler address.
        progress: called with ``(finished, total)`` cells after each cell and at start.
        raise_on_failure: raise :class:`SweepError` at the end if any cell failed
            (otherwise just return the table, where those cells have ``status == "failed"``).
        command: the command recorded in the results' provenance.
        report: write ``report.md`` and ``report.html``.

    Returns:
        One row per cell, sorted by key: ``key, workload, policy, params``, one
        ``param_<name>`` column per swept parameter, ``estimates, tau, seed, status,
        error``, then ``platform``, ``workload_jobs``, the summary metrics and the
        engine's ``stats.*``. Also written to ``store/results.parquet``.

    Raises:
        ConfigError: ``workers`` is not an integer >= 1, or a bad Dask address.
        SweepError: some cells failed (after all the others ran and were stored).
    """
    from cosched.experiments.executors import make_executor
    from cosched.experiments.runner import provenance, run_tasks

    executor = make_executor(workers, dask)
    todo = tasks(spec)
    traces: dict[str, str] = {}
    for w in spec.workloads:
        if w.kind == "swf" and w.path is not None:
            path = _trace_file(_Ctx(spec.source, w.root or Path.cwd()), w.path)
            traces[w.path] = file_sha256(path)
    meta = provenance(
        spec.name,
        {
            "name": spec.name,
            "kind": "sweep",
            "metrics": list(_SHOWN),
            "cells": [c.identity() for c in cells(spec)],
        },
        spec.seeds,
        traces,
        command or f"cosched sweep {Path(spec.source).name}",
    )
    return run_tasks(
        todo,
        store,
        meta=meta,
        executor=executor,
        progress=progress,
        error_type=SweepError,
        report=report,
        raise_on_failure=raise_on_failure,
    )
