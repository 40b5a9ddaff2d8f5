"""Naming a workload in one string, for the command line and sweep files.

* a path to an SWF trace (plain or ``.gz``); its profile sidecar
  (``FILE.profile.parquet``, written by ``cosched annotate``) is joined when present;
* ``bundled:example``: the small example trace shipped with cosched (64 processors);
* ``lublin:jobs=K,nodes=N[,typeless][,alpha=A][,load=L]``: a generated Lublin–Feitelson
  workload, seeded by the caller;
* an operator's accounting log, converted on the fly (:mod:`cosched.workload.importers`):
  a Slurm ``sacct --parsable2`` dump or a PBS accounting file or folder, recognised from
  its content, or named as ``slurm:FILE[,FILE...]`` / ``pbs:FILE_OR_DIR[,...]``; the
  conversion notes come first among the workload's notes.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cosched.errors import ConfigError
from cosched.platform import Platform
from cosched.workload.job import Workload
from cosched.workload.loader import DEFAULT_RULES, LoadRules, load_workload

if TYPE_CHECKING:
    from cosched.workload.importers import ImportOptions

__all__ = ["BUNDLED", "bundled_path", "log_format", "open_workload"]

#: Names of the traces shipped inside the package.
BUNDLED = {"example": "example.swf"}


def bundled_path(name: str = "example") -> Path:
    """The file of a bundled trace."""
    try:
        file = BUNDLED[name]
    except KeyError:
        raise ConfigError(f"no bundled trace {name!r} (bundled: {', '.join(BUNDLED)})") from None
    from importlib import resources  # here: it loads tempfile and random (3 ms a run)

    return Path(str(resources.files("cosched") / "data" / file))


def _lublin(spec: str, seed: int) -> Workload:
    from cosched.workload.models.lublin import generate_lublin

    opts: dict[str, str] = {}
    for part in filter(None, spec.split(",")):
        key, _, value = part.partition("=")
        opts[key.strip()] = value.strip()
    allowed = {"jobs", "nodes", "typeless", "alpha", "load"}
    unknown = sorted(set(opts) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed))
        raise ConfigError(f"lublin workload: unknown option(s) {unknown} (known: {known})")
    try:
        jobs = int(opts.get("jobs", "1000"))
        nodes = int(opts.get("nodes", "128"))
        alpha = float(opts["alpha"]) if "alpha" in opts else None
        load = float(opts["load"]) if "load" in opts else None
    except ValueError as exc:
        raise ConfigError(f"lublin workload {spec!r}: {exc}") from None
    return generate_lublin(
        jobs,
        nodes=nodes,
        rng=np.random.default_rng(seed),
        typeless="typeless" in opts,
        alpha=alpha,
        load=load,
    )


def open_workload(
    text: str,
    *,
    rules: LoadRules = DEFAULT_RULES,
    platform: Platform | None = None,
    limit: int | None = None,
    seed: int = 0,
    fmt: str | None = None,
    log_options: ImportOptions | None = None,
) -> Workload:
    """The workload named by ``text`` (see the module docstring).

    Args:
        text: what to open.
        rules: the loader's rules for questionable jobs.
        platform: the machine for the loader's too-wide check.
        limit: keep the first ``limit`` jobs.
        seed: the seed of a generated workload.
        fmt: ``swf``, ``slurm`` or ``pbs`` to say what a file is (None: recognised
            from its content).
        log_options: how an accounting log becomes SWF (time zone, ...).
    """
    kind, sep, rest = text.partition(":")
    if sep and kind == "bundled":
        return load_workload(bundled_path(rest), rules=rules, platform=platform, limit=limit)
    if sep and kind == "lublin":
        w = _lublin(rest, seed)
        return w if limit is None else w.replace_table(w.table.iloc[:limit])
    if sep and kind in ("slurm", "pbs"):
        fmt, paths = kind, rest.split(",")
    else:
        paths = [text]
        if fmt is None:
            fmt = log_format(text)
    if fmt in ("slurm", "pbs"):
        return _from_log(fmt, paths, rules, platform, limit, log_options)
    if fmt not in (None, "swf"):
        raise ConfigError(f"unknown workload format {fmt!r} (known: swf, slurm, pbs)")
    w = load_workload(text, rules=rules, platform=platform, limit=limit)
    return _with_sidecar(w, text)


def log_format(path: str) -> str | None:
    """``slurm`` or ``pbs`` when ``path`` (a file, or a folder of PBS files) is such a log."""
    from cosched.workload.importers import FORMATS, detect_file

    target = path
    if os.path.isdir(path):
        files = sorted(f for f in Path(path).iterdir() if f.is_file())
        if not files:
            return None
        target = str(files[0])
    found = detect_file(target)
    return found if found in FORMATS else None


def _from_log(
    fmt: str,
    paths: list[str],
    rules: LoadRules,
    platform: Platform | None,
    limit: int | None,
    options: ImportOptions | None,
) -> Workload:
    from cosched.workload.importers import import_log

    result = import_log(fmt, paths, options)
    w = load_workload(result.trace, rules=rules, platform=platform, limit=limit)
    name = Path(paths[0]).name.removesuffix(".gz") or "workload"
    notes = (*(f"{fmt} log: {n}" for n in result.notes), *w.notes)
    return dataclasses.replace(w, name=name, notes=notes)


def _with_sidecar(w: Workload, path: str) -> Workload:
    """``w`` with the profile columns of the sidecar beside ``path``, if there is one."""
    from cosched.workload.sidecar import sidecar_path

    side = sidecar_path(path)
    if not side.is_file():
        return w
    from cosched.workload.sidecar import attach_profiles, read_sidecar

    joined = attach_profiles(w, read_sidecar(side))
    cols = ", ".join(joined.profile_columns)
    return joined.replace_table(joined.table, f"profile columns {cols} from {side.name}")
