"""``cosched validate TRACE --policy NAME``: the simulated baseline beside the recorded one.

The trace's recorded schedule (each job's logged start, as the log says; the
``recorded`` policy's replay also runs, to count the jobs the simulated machine cannot
hold at their logged start) and the named policy run on the same jobs and machine;
printed side by side:
mean and per-class waits, the Kolmogorov-Smirnov statistic between the two wait
distributions, the share of jobs started within an hour of their recorded start, the
judgement those give (:func:`cosched.metrics.validate.judge`); and a figure of
utilization and queue length over time.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cosched.cli._parser import Handler
from cosched.cli.run import loader_flags, policy_flags

__all__ = ["PARSERS"]


def _arguments(p: argparse.ArgumentParser) -> None:
    from cosched.cli.run import _machine_flags

    p.add_argument("workload", help="SWF trace, Slurm sacct dump or PBS accounting file/folder")
    policy_flags(p, "the simulated policy (default easy)")
    _machine_flags(p)
    loader_flags(p)
    p.add_argument("--seed", type=int, default=0, help="seed of annotators and policies")
    p.add_argument(
        "--estimates",
        choices=["requested", "exact"],
        default="requested",
        help="run-time estimates the simulated policy sees (default: the users' requests)",
    )
    p.add_argument(
        "--within",
        type=float,
        default=3600.0,
        help="a start this close (s) to the recorded one counts as matching (default 1 h)",
    )
    p.add_argument(
        "--bin", type=float, default=86400.0, help="time bin of the figure (s, default 1 day)"
    )
    p.add_argument("--figure", type=Path, help="write the figure (PNG)")
    p.add_argument("--json", type=Path, help="write the numbers (JSON)")
    _fit_flags(p)


#: ``--unavailability``'s help, shared with ``compare --baseline fitted``.
UNAVAILABILITY_HELP = (
    "the site's records of node failures and reservations (`sacctmgr -P show event`, "
    "`scontrol show reservation` or `sacctmgr -P show reservation` output, or a PBS "
    "accounting log's reservation records): the fit's outages=on replays them on the fit "
    "and the held-out part instead of the outages it reads from the schedule "
    "(docs/validate.md)"
)


def _fit_flags(p: argparse.ArgumentParser) -> None:
    from cosched.cli._checks import count

    g = p.add_argument_group("fitting the baseline (--fit; docs/validate.md)")
    g.add_argument(
        "--fit",
        action="store_true",
        help="search the declared space of baselines (policy, window, order, partitions, "
        "estimates) for the one that best reproduces the logged starts of the first part "
        "of the log, and score it on the held-out rest (--policy, -P and --estimates are "
        "part of the search; --figure is not drawn)",
    )
    g.add_argument(
        "--split",
        type=float,
        default=None,
        help="share of the jobs, first by submit time, the fit is chosen on (default 0.5)",
    )
    g.add_argument("--out", type=Path, help="store folder of the fit's cells (resumable)")
    g.add_argument("--unavailability", type=Path, metavar="FILE", help=UNAVAILABILITY_HELP)
    g.add_argument(
        "--workers", type=count(1), default=1, help="local processes to run cells in (default 1)"
    )
    g.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the cells on Dask: local:N or tcp://HOST:PORT",
    )


def _validate(args: argparse.Namespace) -> int:
    if args.fit:
        from cosched.cli._fit import fit_command

        return fit_command(args)
    if args.split is not None or args.out or args.workers != 1 or args.dask or args.unavailability:
        from cosched.errors import ConfigError

        raise ConfigError("--split, --out, --workers, --dask and --unavailability go with --fit")
    from cosched.cli._validate import _validate as run

    return run(args)


#: ``cosched validate`` (its texts: :mod:`cosched.cli.commands`).
PARSERS = {"validate": Handler(_validate, _arguments)}
