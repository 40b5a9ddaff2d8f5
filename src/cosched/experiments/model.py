"""One experiment model: a spec (data, from TOML) that expands into cells.

An experiment names a *cell function* (``module:function``, run once per cell), a
*report section* function, the traces it reads, fixed parameters, one or more grids of
parameter values and the seeds. Each configuration of a grid runs once per seed; one
(configuration, seed) is a :class:`CellTask`, identified by a hash of its canonical
JSON, so the identity does not depend on where the cell sits in the grid.

The TOML format (see docs/experiments.md)::

    name = "coupled"
    cell = "cosched.coupled.experiment:run_cell"
    report = "cosched.coupled.experiment:report_section"
    claims = "cosched.coupled.claims:claims"  # optional: the paper's claims (claims.py)
    traces = ["KTH-SP2-1996-2.1-cln.swf.gz"]
    metrics = ["analysis.mean_wait"]        # columns of the summary table
    seeds = { root = 7, count = 5 }         # or seeds = [0, 1, 2]
    [params]                                # fixed, merged into every configuration
    span = 864000.0
    [[grid]]                                # each value list is an axis
    load = [0.25, 0.5]
    scheme = ["HH", "YY"]
    seeds = [0]                             # optional: this grid's own seeds
    [quick]                                 # what --quick changes: params, seeds, grid
    params = { span = 86400.0 }
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import math
import os
import tomllib
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cosched.errors import ConfigError

__all__ = [
    "CellEnv",
    "CellTask",
    "Experiment",
    "Scalar",
    "canonical",
    "experiment_from_dict",
    "load_experiment",
    "read_toml",
    "require",
    "resolve",
    "spawn_seeds",
]

Scalar = str | int | float | bool | None

_TOP = ("name", "cell", "report", "claims", "traces", "metrics", "seeds", "params", "grid", "quick")
_QUICK = ("params", "seeds", "grid")
# Column names the store itself writes; a parameter or metric may not take them.
RESERVED = ("key", "seed", "status", "error")


def require(params: Mapping[str, Scalar], cell: str, keys: Iterable[str]) -> None:
    """Refuse a cell's ``params`` that lack one of ``keys``, naming it and the ``cell``
    function's family (a cell function's ``check``).

    Raises:
        ConfigError: the first of ``keys`` missing.
    """
    for key in keys:
        if key not in params:
            raise ConfigError(f"the {cell} cell needs the parameter {key!r}")


def canonical(obj: object) -> str:
    """Canonical JSON: sorted keys, no spaces, NaN refused."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def resolve(target: str) -> Any:
    """The object named ``module:attribute``.

    Raises:
        ConfigError: not of that form, or the module or attribute does not exist.
    """
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"{target!r} is not of the form 'module:function'")
    try:
        obj = importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"cannot import {module!r} (from {target!r}): {exc}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"module {module!r} has no {attr!r} (from {target!r})")
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class CellEnv:
    """What every cell of a run shares: trace files found by name (name -> path), and
    how cells run where a family offers a choice that does not change results (the
    coupled family's ``transport``: ``local`` or ``tcp``). Not part of a cell's identity.
    """

    traces: Mapping[str, str] = field(default_factory=dict)
    transport: str = "local"

    def trace(self, name: str) -> Path:
        """The path of trace ``name`` (one the spec lists under ``traces``).

        Raises:
            ConfigError: the spec did not list it.
        """
        try:
            return Path(self.traces[name])
        except KeyError:
            raise ConfigError(
                f"trace {name!r} is not among the experiment's traces "
                f"({', '.join(self.traces) or 'none'}); list it under 'traces'"
            ) from None


@dataclass(frozen=True)
class CellTask:
    """One cell: a function to run on a payload, and the columns that identify it.

    Attributes:
        key: the cell's identity (a hash; also its file name in the store).
        columns: its parameters as they appear in the results (``seed`` included).
        target: ``module:function`` run as ``function(payload, env)``, returning a
            mapping of metric name to value (or a :class:`~cosched.experiments.store.CellResult`).
        payload: the function's argument (picklable).
        label: a short human label for messages.
    """

    key: str
    columns: Mapping[str, Scalar]
    target: str
    payload: Any
    label: str


@dataclass(frozen=True)
class Experiment:
    """A spec: cell function, report section, traces, parameters, grids and seeds.

    Attributes:
        name: label of the experiment.
        cell: ``module:function`` called as ``function(params, seed, env) -> metrics``.
        report: ``module:function`` of the report section (None: the generic report only).
        traces: archive names of the traces the cells read (found by the runner).
        metrics: metrics shown in the summary table (empty: every numeric one).
        seeds: seeds of every configuration unless its grid gives its own.
        params: fixed parameters merged into every configuration.
        grids: each grid is ``(axes, seeds)``: axis name -> values, and its seeds (or None).
        data: the spec as data (after ``--quick`` was applied), for provenance.
        source: where the spec came from, for messages.
    """

    name: str
    cell: str
    report: str | None
    traces: tuple[str, ...]
    metrics: tuple[str, ...]
    seeds: tuple[int, ...]
    params: tuple[tuple[str, Scalar], ...]
    grids: tuple[tuple[tuple[tuple[str, tuple[Scalar, ...]], ...], tuple[int, ...] | None], ...]
    data: Mapping[str, Any] = field(compare=False, repr=False, default_factory=dict)
    source: str = field(compare=False, default="<dict>")

    def configurations(self) -> list[tuple[dict[str, Scalar], tuple[int, ...]]]:
        """Every configuration with its seeds, in grid order, first occurrence kept."""
        out: list[tuple[dict[str, Scalar], tuple[int, ...]]] = []
        seen: set[str] = set()
        for axes, seeds in self.grids:
            names = [name for name, _ in axes]
            for combo in itertools.product(*(values for _, values in axes)):
                config = dict(self.params) | dict(zip(names, combo, strict=True))
                ident = canonical(config)
                if ident not in seen:
                    seen.add(ident)
                    out.append((config, seeds if seeds is not None else self.seeds))
        return out

    def tasks(self) -> list[CellTask]:
        """One :class:`CellTask` per (configuration, seed), in grid order."""
        out = []
        for config, seeds in self.configurations():
            for seed in seeds:
                ident = canonical({"cell": self.cell, "params": config, "seed": seed})
                key = hashlib.sha256(ident.encode()).hexdigest()[:16]
                label = ",".join(
                    f"{k}={v}" for k, v in config.items() if k not in dict(self.params)
                )
                out.append(
                    CellTask(
                        key=key,
                        columns={**config, "seed": seed},
                        target="cosched.experiments.runner:call_cell",
                        payload=(self.cell, config, seed),
                        label=f"{label}/seed={seed}",
                    )
                )
        return out


def spawn_seeds(root: int, count: int) -> tuple[int, ...]:
    """``count`` seeds spawned from ``SeedSequence(root)`` (independent streams).

    Each is the first 32-bit word of a child sequence's state, so it fits every
    integer column and every ``default_rng``.
    """
    children = np.random.SeedSequence(root).spawn(count)
    return tuple(int(c.generate_state(1, np.uint32)[0]) for c in children)


# -- parsing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SpecContext:
    """Where a spec came from: its errors name it (shared by every spec parser)."""

    source: str

    def fail(self, message: str) -> typing.NoReturn:
        raise ConfigError(f"{self.source}: {message}")

    def keys(self, table: Mapping[str, object], allowed: Sequence[str], where: str) -> None:
        for key in table:
            if key not in allowed:
                self.fail(f"unknown key {key!r} in {where} (allowed: {', '.join(allowed)})")


def load_experiment(path: str | os.PathLike[str], *, quick: bool = False) -> Experiment:
    """Read an experiment spec from TOML.

    Raises:
        ConfigError: unreadable file, bad TOML, unknown key or bad value, naming the
            file and the key.
    """
    p = Path(path)
    return experiment_from_dict(read_toml(p, "experiment spec"), source=str(p), quick=quick)


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """The TOML file ``path`` (a ``what``: ``sweep spec``), or a ConfigError naming it:
    unreadable, or not valid TOML."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def experiment_from_dict(
    data: Mapping[str, Any], *, source: str = "<dict>", quick: bool = False
) -> Experiment:
    """Build and check an experiment from a dict shaped like the TOML file.

    Args:
        data: the spec.
        source: name used in error messages.
        quick: apply the spec's ``[quick]`` table (its ``params`` are merged over the
            fixed parameters; its ``seeds`` and ``grid`` replace the spec's).

    Raises:
        ConfigError: unknown key or bad value, naming it and ``source``; a cell or
            report function that cannot be imported; a configuration that the
            ``check(params)`` function of the cell function's module refuses.
    """
    ctx = SpecContext(source)
    ctx.keys(data, _TOP, "the top level")
    applied = dict(data)
    applied.pop("quick", None)
    if quick:
        q = data.get("quick", {})
        if not isinstance(q, Mapping):
            ctx.fail(f"'quick' must be a table, got {q!r}")
        ctx.keys(q, _QUICK, "[quick]")
        if "params" in q:
            applied["params"] = {**_table(ctx, data.get("params", {}), "params"), **q["params"]}
        applied.update({k: q[k] for k in ("seeds", "grid") if k in q})
    name = _text(ctx, applied.get("name", Path(source).stem), "name")
    cell = _text(ctx, applied.get("cell"), "cell")
    report = applied.get("report")
    if report is not None:
        report = _text(ctx, report, "report")
    claims = applied.get("claims")
    if claims is not None:
        claims = _text(ctx, claims, "claims")
    for key, target in (("cell", cell), ("report", report), ("claims", claims)):
        if target is not None:
            try:
                fn = resolve(target)
            except ConfigError as exc:
                ctx.fail(f"{key!r}: {exc}")
            if not callable(fn):
                ctx.fail(f"{key!r}: {target!r} is not callable")
    params = _params(ctx, _table(ctx, applied.get("params", {}), "params"), "params")
    grids_raw = applied.get("grid", [{}])
    if not isinstance(grids_raw, list) or not grids_raw:
        ctx.fail(f"'grid' must be a non-empty list of tables ([[grid]]), got {grids_raw!r}")
    grids = tuple(_grid(ctx, i, g) for i, g in enumerate(grids_raw))
    exp = Experiment(
        name=name,
        cell=cell,
        report=report,
        traces=tuple(
            _text(ctx, t, "traces") for t in _list(ctx, applied.get("traces", []), "traces")
        ),
        metrics=tuple(
            _text(ctx, m, "metrics") for m in _list(ctx, applied.get("metrics", []), "metrics")
        ),
        seeds=_seeds(ctx, applied.get("seeds", [0]), "seeds"),
        params=tuple(params.items()),
        grids=grids,
        data=applied,
        source=source,
    )
    # The cell function's module may define check(params), run on every configuration.
    module = importlib.import_module(cell.partition(":")[0])
    check = getattr(module, "check", None)
    for config, _ in exp.configurations():
        if callable(check):
            try:
                check(config)
            except ConfigError as exc:
                ctx.fail(f"configuration {config}: {exc}")
    return exp


def _text(ctx: SpecContext, value: object, key: str) -> str:
    if not isinstance(value, str) or not value:
        ctx.fail(f"{key!r} must be a non-empty string, got {value!r}")
    return value


def _list(ctx: SpecContext, value: object, key: str) -> list[object]:
    if not isinstance(value, list):
        ctx.fail(f"{key!r} must be a list, got {value!r}")
    return value


def _table(ctx: SpecContext, value: object, key: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        ctx.fail(f"{key!r} must be a table, got {value!r}")
    return dict(value)


def _scalar(ctx: SpecContext, value: object, where: str) -> Scalar:
    ok = isinstance(value, str | int | bool) or (isinstance(value, float) and math.isfinite(value))
    if not ok:
        ctx.fail(f"{where} must be a string, a finite number or a boolean, got {value!r}")
    return typing.cast(Scalar, value)


def _name(ctx: SpecContext, name: str, where: str) -> str:
    if name in RESERVED:
        ctx.fail(f"{where}: {name!r} is reserved ({', '.join(RESERVED)}); rename the parameter")
    return name


def _params(ctx: SpecContext, raw: Mapping[str, Any], where: str) -> dict[str, Scalar]:
    return {_name(ctx, k, f"{where}.{k}"): _scalar(ctx, v, f"{where}.{k}") for k, v in raw.items()}


def _seeds(ctx: SpecContext, value: object, where: str) -> tuple[int, ...]:
    if isinstance(value, Mapping):
        ctx.keys(value, ("root", "count"), where)
        root, count = value.get("root"), value.get("count")
        for k, v in (("root", root), ("count", count)):
            if not isinstance(v, int) or isinstance(v, bool) or v < (1 if k == "count" else 0):
                ctx.fail(f"{where}.{k} must be an integer >= {1 if k == 'count' else 0}, got {v!r}")
        return spawn_seeds(typing.cast(int, root), typing.cast(int, count))
    seeds = value if isinstance(value, list) else [value]
    if not seeds or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds
    ):
        ctx.fail(
            f"{where!r} must be a non-empty list of integers >= 0 or {{root, count}}, got {value!r}"
        )
    if len(set(seeds)) != len(seeds):
        ctx.fail(f"{where!r} repeats a value: {seeds}")
    return tuple(seeds)


def _grid(
    ctx: SpecContext, i: int, raw: object
) -> tuple[tuple[tuple[str, tuple[Scalar, ...]], ...], tuple[int, ...] | None]:
    where = f"grid[{i}]"
    if not isinstance(raw, Mapping):
        ctx.fail(f"{where} must be a table, got {raw!r}")
    seeds = _seeds(ctx, raw["seeds"], f"{where}.seeds") if "seeds" in raw else None
    axes = []
    for name, value in raw.items():
        if name == "seeds":
            continue
        _name(ctx, name, f"{where}.{name}")
        values = value if isinstance(value, list) else [value]
        if not values:
            ctx.fail(f"{where}.{name} is an empty list; give at least one value")
        vals = tuple(_scalar(ctx, v, f"{where}.{name}") for v in values)
        if len({canonical(v) for v in vals}) != len(vals):
            ctx.fail(f"{where}.{name} repeats a value: {values!r}")
        axes.append((name, vals))
    return tuple(axes), seeds


CellFunction = Callable[[Mapping[str, Scalar], int, CellEnv], Mapping[str, Any]]
