"""``cosched sweep SPEC.toml --out DIR``: run an experiment or a sweep into a resumable store.

The spec is either an experiment (it names a ``cell`` function, as the reproductions'
specs do: ``cosched reproduce NAME --print-spec > mine.toml``) or a sweep of workloads x
policies x seeds. Both run through the one runner, on a local pool or on Dask.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosched.cli._parser import Handler

if TYPE_CHECKING:
    from cosched.experiments.model import Experiment

__all__ = [
    "PARSERS",
    "add_run_options",
    "progress_line",
    "run_and_report",
    "run_experiment_and_report",
]

# Columns printed to stdout; results.parquet in the store has every metric.
_SHOWN = (
    "workload",
    "policy",
    "params",
    "seed",
    "status",
    "mean_wait",
    "mean_bounded_slowdown",
    "utilization",
    "makespan",
)


def add_run_options(p: argparse.ArgumentParser, *, out_required: bool = True) -> None:
    """The options every experiment command shares: store, executor, traces."""
    p.add_argument("--out", type=Path, required=out_required, help="the store folder (created)")
    from cosched.cli._checks import count

    p.add_argument(
        "--workers", type=count(1), default=1, help="local processes to run cells in (default 1)"
    )
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on Dask instead: local:N starts a LocalCluster of N worker processes, "
        "tcp://HOST:PORT uses a running scheduler",
    )
    p.add_argument(
        "--traces",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder to look for the spec's traces in first (repeatable; then "
        "$COSCHED_TRACES, ../shared/traces, the cache)",
    )


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", type=Path, help="the spec (TOML)")
    add_run_options(p)
    p.add_argument(
        "--quick", action="store_true", help="apply the spec's [quick] table (experiments only)"
    )


def progress_line(done: int, total: int) -> None:
    """Show ``cells: done/total`` in place on stderr."""
    end = "\n" if done == total else ""
    print(f"\rcells: {done}/{total}", end=end, file=sys.stderr, flush=True)


def _show(table: Any) -> None:
    cols = [c for c in _SHOWN if c in table.columns]
    if cols:
        print(table[cols].to_string(index=False))


def run_and_report(run: Any, out: Path) -> int:
    """Check that store ``out`` can be written, call ``run()``; map failures and Ctrl-C
    to exit codes with a message.

    Returns:
        0 when every cell is done, 1 when some failed, 130 on Ctrl-C.
    """
    from cosched.cli._checks import check_writable_dir
    from cosched.experiments.runner import ExperimentError

    check_writable_dir(out)
    try:
        table = run()
    except ExperimentError as exc:
        _show(exc.results)
        print(f"cosched: {exc}", file=sys.stderr)
        print(f"rerun to retry them; details in {out / 'failed'}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"\ncosched: interrupted; finished cells are kept in {out}, rerun to resume",
            file=sys.stderr,
        )
        return 130
    _show(table)
    print(f"cosched: results in {out / 'results.parquet'}, report in {out / 'report.md'}",
          file=sys.stderr)  # fmt: skip
    return 0


def _is_experiment(path: Path) -> bool:
    try:
        return "cell" in tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False  # the sweep loader reports the error with the file's name


def run_experiment_and_report(
    exp: Experiment, args: argparse.Namespace, command: str, **options: Any
) -> int:
    """Run ``exp`` into ``args.out`` with the options of :func:`add_run_options` (a
    progress line on a terminal), ``command`` recorded as what made it, ``options``
    passed on to :func:`~cosched.experiments.runner.run_experiment`; as
    :func:`run_and_report`."""
    from cosched.experiments.executors import make_executor
    from cosched.experiments.runner import run_experiment

    executor = make_executor(args.workers, args.dask)
    return run_and_report(
        lambda: run_experiment(
            exp,
            args.out,
            executor=executor,
            progress=progress_line if sys.stderr.isatty() else None,
            command=command,
            trace_dirs=args.traces,
            **options,
        ),
        args.out,
    )


def handler(args: argparse.Namespace) -> int:
    """Run the spec; print the results table to stdout.

    Returns:
        0 when every cell is done, 1 when some failed, 130 on Ctrl-C. A bad spec raises
        :class:`~cosched.errors.ConfigError`, which ``cosched.cli.main`` maps to 2.
    """
    if _is_experiment(args.spec):
        from cosched.experiments.model import load_experiment

        exp = load_experiment(args.spec, quick=args.quick)
        command = f"cosched sweep {args.spec.name}" + (" --quick" if args.quick else "")
        return run_experiment_and_report(exp, args, command)
    from cosched.experiments.executors import make_executor
    from cosched.experiments.sweep import load_spec, run_sweep

    progress = progress_line if sys.stderr.isatty() else None
    make_executor(args.workers, args.dask)  # checks --workers and --dask
    spec = load_spec(args.spec)
    return run_and_report(
        lambda: run_sweep(spec, args.out, workers=args.workers, dask=args.dask, progress=progress),
        args.out,
    )


#: ``cosched sweep`` (its texts: :mod:`cosched.cli.commands`).
PARSERS = {"sweep": Handler(handler, _arguments)}
