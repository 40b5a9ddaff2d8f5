"""The one runner: cells in, a resumable store and a report out.

:func:`run_tasks` runs the cells missing from a store on an executor and stores each as
it finishes; :func:`run_experiment` does that for an :class:`Experiment` (finding its
traces, checking them, recording provenance) and then builds the report. Sweeps
(:mod:`cosched.experiments.sweep`) and reproductions (the specs in
``cosched/experiments/specs``) both run through here.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cosched.errors import ConfigError, CoschedError
from cosched.experiments.executors import Executor, Serial
from cosched.experiments.model import CellEnv, CellTask, Experiment, Scalar, resolve
from cosched.experiments.store import CellOutcome, CellResult, Store, StoreError
from cosched.experiments.traces import file_sha256, find_trace

__all__ = ["ExperimentError", "call_cell", "provenance", "run_experiment", "run_tasks"]

Progress = Callable[[int, int], None]

log = logging.getLogger("cosched.experiments")


class ExperimentError(CoschedError, RuntimeError):
    """Some cells failed; the others are stored.

    Attributes:
        results: the results table (failed cells have ``status == "failed"``).
        failed: ``(key, label, error)`` of each failed cell, in key order.
    """

    def __init__(self, results: pd.DataFrame, failed: list[tuple[str, str, str]]) -> None:
        self.results = results
        self.failed = failed
        lines = "\n".join(f"  {key} {label}: {error}" for key, label, error in failed)
        super().__init__(f"{len(failed)} of {len(results)} cells failed:\n{lines}")


def call_cell(
    payload: tuple[str, Mapping[str, Scalar], int], env: CellEnv
) -> Mapping[str, object] | CellResult:
    """Run an experiment's cell function: ``function(params, seed, env)``."""
    target, params, seed = payload
    return resolve(target)(dict(params), seed, env)


def run_tasks(
    tasks: Sequence[CellTask],
    out: str | os.PathLike[str],
    *,
    meta: Mapping[str, Any],
    env: CellEnv | None = None,
    executor: Executor | None = None,
    progress: Progress | None = None,
    argv: Sequence[str] | None = None,
    error_type: type[ExperimentError] = ExperimentError,
    report: bool = False,
    raise_on_failure: bool = True,
) -> pd.DataFrame:
    """Run the tasks not yet finished in store ``out``; write ``results.parquet``.

    Args:
        tasks: the cells (unique keys).
        out: the store folder (created).
        meta: the provenance written into ``results.parquet`` (must not depend on the
            executor or the folder, or the file would).
        env: what every cell shares.
        executor: where to run (default: this process).
        progress: called with ``(finished, total)`` at the start and after each cell.
        argv: the command line, logged to ``runs.jsonl``.
        error_type: the exception raised when cells failed.
        raise_on_failure: raise ``error_type`` at the end if any cell failed (after the
            report, if any, was written).
        report: build ``report.md`` / ``report.html`` from the store at the end.

    Returns:
        The results table (sorted by key).
    """
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise ConfigError(f"two cells have the same identity {dup}")
    store = Store(out)
    store.check_layout(keys)
    executor = executor if executor is not None else Serial()
    env = env if env is not None else CellEnv()
    todo, damaged = _to_run(store, tasks)
    finished = len(tasks) - len(todo)
    started = time.time()
    if progress is not None:
        progress(finished, len(tasks))

    def done(task: CellTask, outcome: CellOutcome) -> None:
        nonlocal finished
        try:
            store.write(task, outcome)
        except StoreError:  # the store cannot be written (a folder of it is a file)
            raise
        except (ConfigError, ValueError, TypeError) as exc:  # metrics Parquet cannot hold
            store.write(task, CellOutcome(error=f"{type(exc).__name__}: {exc}"))
        finished += 1
        if progress is not None:
            progress(finished, len(tasks))

    record = {
        "argv": list(argv if argv is not None else sys.argv),
        "executor": executor.description,
        "started": started,
        "to_run": len(todo),
        "total": len(tasks),
    } | ({"recomputed": damaged} if damaged else {})
    try:
        executor.run(todo, env, done)
    except BaseException:
        store.remove_temporaries()
        store.log_run(record | {"ended": time.time(), "outcome": "interrupted"})
        raise
    table = store.assemble(tasks, meta)
    store.log_run(record | {"ended": time.time(), "outcome": "complete"})
    if report:
        from cosched.experiments.report import build_report

        build_report(out)
    bad = table[table["status"] != "ok"]
    if raise_on_failure and len(bad):
        labels = {t.key: t.label for t in tasks}
        info = [(k, labels[k], e) for k, e in zip(bad["key"], bad["error"], strict=True)]
        raise error_type(table, info)
    return table


def _to_run(store: Store, tasks: Sequence[CellTask]) -> tuple[list[CellTask], list[str]]:
    """The tasks to run: those not finished, and those whose stored files are damaged.

    A damaged cell's files are removed (it is then simply not finished, whatever
    happens to its rerun) and a warning names the file; the problems are returned too.
    """
    todo: list[CellTask] = []
    damaged: list[str] = []
    for t in tasks:
        problem = store.damage(t.key) if store.done(t.key) else None
        if problem is not None:
            damaged.append(problem)
            log.warning("cosched: %s; recomputing that cell", problem)
            store.forget(t.key)
        if not store.done(t.key):
            todo.append(t)
    return todo, damaged


def provenance(
    name: str,
    data: Mapping[str, Any],
    seeds: Sequence[int],
    traces: Mapping[str, str],
    command: str,
) -> dict[str, Any]:
    """The provenance record of a results file (nothing in it depends on the executor)."""
    from cosched import __version__

    return {
        "cosched_version": __version__,
        "experiment": name,
        "spec": dict(data),
        "seeds": sorted(set(seeds)),
        "command": command,
        "traces": dict(sorted(traces.items())),
    }


def run_experiment(
    exp: Experiment,
    out: str | os.PathLike[str],
    *,
    executor: Executor | None = None,
    progress: Progress | None = None,
    command: str | None = None,
    trace_dirs: Sequence[str | os.PathLike[str]] = (),
    argv: Sequence[str] | None = None,
    report: bool = True,
    raise_on_failure: bool = True,
    transport: str = "local",
) -> pd.DataFrame:
    """Run an experiment into ``out``: cells, ``results.parquet``, ``report.md``/``.html``.

    The traces are found (and hashed, for the provenance) before any cell runs, so a
    missing trace fails at once.

    Args:
        exp: the experiment.
        out: the store folder.
        executor: where cells run (default: this process).
        progress: called with ``(finished, total)``.
        command: the command that defines the results (recorded in the results file;
            default ``cosched sweep <name>``); executor options do not belong in it.
        trace_dirs: folders searched first for the traces.
        argv: the full command line, logged to ``runs.jsonl``.
        report: build the report at the end.
        raise_on_failure: raise :class:`ExperimentError` at the end if a cell failed
            (after the report was written).
        transport: how the coupled family's domains talk (``local`` or ``tcp``); the
            results are the same, so it is not part of any cell's identity.

    Returns:
        The results table.
    """
    paths = {name: str(find_trace(name, trace_dirs)) for name in exp.traces}
    sums = {name: file_sha256(Path(p)) for name, p in paths.items()}
    tasks = exp.tasks()
    meta = provenance(
        exp.name,
        exp.data,
        [s for t in tasks for s in [int(t.columns["seed"] or 0)]],
        sums,
        command or f"cosched sweep {exp.name}",
    )
    return run_tasks(
        tasks,
        out,
        meta=meta,
        env=CellEnv(traces=paths, transport=transport),
        executor=executor,
        progress=progress,
        argv=argv,
        report=report,
        raise_on_failure=raise_on_failure,
    )
